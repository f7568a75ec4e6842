#!/bin/bash
# build.sh - build perf from build/src out of tree into build/perf (or $O).
#
# Python, Perl, BPF, LLVM, capstone and JVMTI are off; libelf, libdw,
# libtraceevent, zlib and libunwind must be on, or the build fails.
# EXTRA make arguments may be passed on the command line (e.g. DEBUG=1).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=${SRC:-$top/build/src}
O=${O:-$top/build/perf}
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkdir -p "$O"
make -s -C "$src/tools/perf" O="$O" JOBS="${JOBS:-$(nproc)}" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_CAPSTONE=1 \
	NO_LIBLLVM=1 NO_JVMTI=1 NO_LIBDEBUGINFOD=1 NO_BIONIC=1 \
	NO_PERF_READ_VDSO32=1 NO_PERF_READ_VDSOX32=1 WERROR=1 \
	${FEATURES_DUMP:+FEATURES_DUMP="$FEATURES_DUMP"} "$@" >"$O/build.log" 2>&1 || {
	tail -40 "$O/build.log" >&2
	echo "build.sh: perf build failed (log: $O/build.log)" >&2
	exit 1
}
opts=$("$O/perf" version --build-options)
# perf 6.12 reports libdw as "dwarf"
for lib in libelf dwarf libtraceevent zlib libunwind; do
	if ! echo "$opts" | grep -Eq "^ +$lib: \[ on  \]"; then
		echo "$opts" >&2
		echo "build.sh: $lib is not on in $O/perf" >&2
		exit 1
	fi
done
