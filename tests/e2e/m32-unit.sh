#!/bin/bash
# m32-unit: the deferred callchain merge (util/session.c, where upstream's
# merge is) and its
# perf test (tests/deferred-callchain.c) compile as 32-bit code, with the
# flags perf was built with (-Werror, -Wshift-count-overflow ...) and -m32:
# Debian ships linux-perf for i386 and armhf, where long is 32 bits.  Merge
# v2 hashed its u64 keys as long (key ^ (key >> 32)): an error there, and
# host and guest keys collided.  Only these two files are compiled, not the
# whole of perf (the i386 libraries perf links with are not installed):
# gcc-multilib is enough, and is installed when missing.
. "$(dirname "$0")/../lib.sh"

[ -z "${PERF_DEFER_SANITIZER:-}" ] ||
	skip "a compile check, not a run: nothing for the sanitizers to see"
o=$(dirname "$PERF")
units="util/session tests/deferred-callchain"
for f in $units; do
	[ -f "$o/$(dirname $f)/.$(basename $f).o.cmd" ] ||
		fail "no $o/$(dirname $f)/.$(basename $f).o.cmd: was $PERF built with this series?"
done
if [ ! -e /usr/lib/gcc/x86_64-linux-gnu/12/32/libgcc.a ] && ! dpkg -s gcc-multilib > /dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
		--no-install-recommends gcc-multilib > "$TMPD/apt.log" 2>&1 ||
		skip "gcc-multilib cannot be installed: $(tail -1 "$TMPD/apt.log")"
fi

for f in $units; do
	cmd=$o/$(dirname $f)/.$(basename $f).o.cmd
	# the compiler command line of the build, without its dependency and
	# output options; the x86_64 arch flags go, -m32 comes
	line=$(sed -n '1s/^cmd_[^=]*:= //p' "$cmd")
	srcdir=$(echo "$line" | grep -o -- '-I[^ ]*/tools/perf/util/include' | head -1)
	srcdir=${srcdir#-I}
	srcdir=${srcdir%/util/include}
	[ -d "$srcdir" ] || fail "$f: no source directory in $cmd"
	read -ra argv <<< "$(echo "$line" | sed 's/-Wp,-M[DT],[^ ]*//g; s/-c -o [^ ]* [^ ]*$//;
		s/-DHAVE_ARCH_X86_64_SUPPORT//; s#-I[^ ]*/arch/x86/include/generated##;
		s/-D"BUILD_STR(s)=$(pound)s"//')"
	if ! (cd "$srcdir" && "${argv[@]}" -m32 -fsyntax-only "$f.c") > "$TMPD/cc.err" 2>&1; then
		fail "$f.c does not compile with -m32: $(grep -m3 -E 'error|warning' "$TMPD/cc.err")"
	fi
	echo "ok   $f.c compiles with -m32 ($(echo "${argv[0]}" | xargs basename), perf's flags, -Werror)"
done
