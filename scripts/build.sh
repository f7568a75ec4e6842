#!/bin/bash
# build.sh - build perf from build/src out of tree into build/perf (or $O).
#
# libelf, libdw, libtraceevent, zlib, libunwind and libpython (Debian's
# /usr/bin/python3, never a pyenv or virtualenv one: PATH is reset below)
# must be on, or the build fails (libpython not if ARGS has NO_LIBPYTHON=1,
# as the AFL build does, libunwind not with NO_LIBUNWIND=1, as the i386 build
# does); Perl, BPF, LLVM, capstone and JVMTI are off.
# The prefix is /usr/local: perf looks for its scripts (perf script
# report) and tips.txt under the prefix it was built with, so 'make install'
# installs build/perf/perf as it is, and builds another perf for another
# PREFIX (scripts/install.sh).  EXTRA make arguments may be passed on the
# command line (e.g. DEBUG=1, or prefix=DIR: the last one counts).
# DEBUG=0 is given unless ARGS say DEBUG= (below).
#
#   scripts/build.sh [ARGS]               always run perf's make
#   scripts/build.sh --if-changed [ARGS]  skip it when $O/perf was built
#                                         from the same source tree with
#                                         the same script and ARGS ('make')
#   scripts/build.sh --config-hash [ARGS] print the hash of the script and
#                                         ARGS (check-series' cache key)
#   scripts/build.sh --install [ARGS]     run perf's install targets
#                                         (install-bin install-man) with
#                                         the same flags ('make install',
#                                         scripts/install.sh)
#
# ccache is used when installed (PERF_DEFER_CCACHE=0: never), with its cache
# in $PERF_DEFER_CACHE/ccache unless CCACHE_DIR says otherwise: rebuilding
# the same sources again (check-series after an early patch changed,
# switching branches) then costs little.  It does not change the result,
# so it is not part of the configuration hash.
#
# The source state is the git tree of $SRC's work tree, uncommitted and
# untracked files included.  Every successful build appends
# "<tree> <config hash>" to build/built-trees, so check-series knows which
# trees are known to build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=${SRC:-$top/build/src}
O=${O:-$top/build/perf}
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mode=
case "${1:-}" in --if-changed|--config-hash|--install) mode=$1; shift ;; esac
# perf's make flags: what every build of perf here uses
flags=(NO_LIBPERL=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_CAPSTONE=1
	NO_LIBLLVM=1 NO_JVMTI=1 NO_LIBDEBUGINFOD=1 NO_BIONIC=1
	NO_PERF_READ_VDSO32=1 NO_PERF_READ_VDSOX32=1 WERROR=1
	PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config
	prefix=/usr/local)
# DEBUG=0 given on the command line unless ARGS set DEBUG: perf's
# Makefile.config defaults DEBUG to 0 in its own make only, and
# tools/lib/api and tools/lib/symbol add -O3 only when DEBUG is 0, so a
# build without it compiles those two libraries at -O0 (perf report --stdio
# then runs 1.5x the instructions of Debian's perf, parsing kallsyms 2.6x).
# The patch "perf build: Pass DEBUG to the libapi and libsymbol sub-makes"
# fixes perf's build itself; this also makes the bases without it
# (build/perf-*-base) optimised like a distribution's perf, so that
# comparisons with them are fair.
case " $* " in *" DEBUG="*) ;; *) flags+=(DEBUG=0) ;; esac

config_hash() {
	{ cat "$top/scripts/build.sh"; printf '%s\n' "$@"; } | sha1sum | cut -c1-40
}
# the git tree of the work tree as it is now, without touching its index
worktree_tree() {
	local idx
	idx=$(mktemp)
	cp "$(git -C "$src" rev-parse --path-format=absolute --git-path index)" "$idx" &&
	GIT_INDEX_FILE=$idx git -C "$src" add -A . &&
	GIT_INDEX_FILE=$idx git -C "$src" write-tree || echo unknown
	rm -f "$idx"
}

if [ "$mode" = --config-hash ]; then
	config_hash "$@"
	exit 0
fi

if [ "$mode" = --install ]; then
	# after a build with the same ARGS (less DESTDIR): only copies files
	# and renders the man pages (asciidoc, xmlto)
	exec make -s -C "$src/tools/perf" O="$O" JOBS="${JOBS:-$(nproc)}" \
		"${flags[@]}" "$@" install-bin install-man
fi

key="$(worktree_tree) $(config_hash "$@")"
if [ "$mode" = --if-changed ] && [ -x "$O/perf" ] &&
   [ "$(cat "$O/.build-state" 2>/dev/null)" = "$key" ]; then
	echo "build.sh: ${O#$top/}/perf is up to date"
	exit 0
fi

# (through its gcc symlinks: the compiler command lines perf's build
# records stay the same, so turning ccache on or off rebuilds nothing)
if [ "${PERF_DEFER_CCACHE:-1}" != 0 ] && [ -x /usr/lib/ccache/gcc ]; then
	export CCACHE_DIR=${CCACHE_DIR:-${PERF_DEFER_CACHE:-/var/cache/perf-defer}/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G}
	PATH=/usr/lib/ccache:$PATH
fi

# perf's make rebuilds what its flags changed only in part (objects with
# rules of their own keep their old flags: turning libpython on, which
# adds -fPIC, then fails to link the Python extension), so a build with
# other make flags starts from an empty $O (ccache makes it cheap)
cfg=$(printf '%s\n' "${flags[@]}" "$@" | sha1sum | cut -c1-40)
if [ -e "$O" ] && [ "$(cat "$O/.build-config" 2>/dev/null)" != "$cfg" ] &&
   [ -n "$(ls -A "$O")" ]; then
	echo "build.sh: new build configuration: emptying ${O#$top/}"
	find "$O" -mindepth 1 -delete
fi
mkdir -p "$O"
echo "$cfg" > "$O/.build-config"
rm -f "$O/.build-state"
echo "build.sh: building ${O#$top/}/perf from ${src#$top/} (log: ${O#$top/}/build.log)"
make -s -C "$src/tools/perf" O="$O" JOBS="${JOBS:-$(nproc)}" "${flags[@]}" \
	${FEATURES_DUMP:+FEATURES_DUMP="$FEATURES_DUMP"} "$@" >"$O/build.log" 2>&1 || {
	tail -40 "$O/build.log" >&2
	echo "build.sh: perf build failed (log: $O/build.log)" >&2
	exit 1
}
# (PERF_DEFER_EXEC runs it where this kernel cannot: qemu-i386 for the i386
# build of tests/e2e/m32-build.sh on a kernel without IA32 emulation)
opts=$(${PERF_DEFER_EXEC:-} "$O/perf" version --build-options)
# perf 6.12 reports libdw as "dwarf"; NO_LIBPYTHON=1 in ARGS (the AFL
# build of scripts/fuzz.sh) turns Python off, NO_LIBUNWIND=1 libunwind (the
# i386 build, tests/e2e/m32-build.sh)
libs="libelf dwarf libtraceevent zlib libunwind libpython"
case " $* " in *" NO_LIBPYTHON=1 "*) libs=${libs% libpython} ;; esac
case " $* " in *" NO_LIBUNWIND=1 "*) libs=${libs/ libunwind/} ;; esac
for lib in $libs; do
	if ! echo "$opts" | grep -Eq "^ +$lib: \[ on  \]"; then
		echo "$opts" >&2
		echo "build.sh: $lib is not on in $O/perf" >&2
		exit 1
	fi
done
case "$key" in
unknown*) ;;
*)	echo "$key" > "$O/.build-state"
	echo "$key" >> "$top/build/built-trees" ;;
esac
