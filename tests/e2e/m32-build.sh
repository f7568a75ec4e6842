#!/bin/bash
# m32-build: the series builds as an i386 perf with perf's -Werror
# (Debian multiarch: gcc -m32 and the :i386 libraries perf links with,
# libelf, libdw, libtraceevent, zlib, zstd, libunwind; libpython off, its
# extension is built by the host's Python), and that perf works as the
# x86_64 one: the series' perf test passes, and perf script, merged and
# with --no-merge-callchains, and perf report --stats print the same bytes
# on every real recording and on generated guests (two machines with equal
# tids and cookies, samples late and out of their thread's order).  Debian
# ships linux-perf for i386 and armhf, where long and pointers are 32 bits:
# the 6.12 series' merge v2 hashes its u64 keys as long (key >> 32: an
# error there) and host and guest keys collide.
#
# The build is build/perf-i386-7.3 (scripts/build.sh --if-changed: again
# only when the tree changed; cold, about as long as the x86_64 build).
# What is missing is installed with apt (i386 added to dpkg's
# architectures); the test skips, with the reason, where that cannot be
# done.
. "$(dirname "$0")/../lib.sh"

[ -z "${PERF_DEFER_SANITIZER:-}" ] ||
	skip "builds and runs its own i386 perf: nothing of \$PERF for the sanitizers to see"
[ "$(uname -m)" = x86_64 ] || skip "an x86_64 host builds the i386 perf"

pkgs="gcc-multilib libelf-dev:i386 libdw-dev:i386 libtraceevent-dev:i386 zlib1g-dev:i386
      libunwind-dev:i386 libzstd-dev:i386"
# shellcheck disable=SC2086 # a list
if ! dpkg -s $pkgs > /dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || skip "not root: cannot install $pkgs"
	apt=(apt-get -q -o DPkg::Lock::Timeout=600)
	dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386 ||
		skip "dpkg --add-architecture i386 failed"
	# (other tests may run apt at the same time: the lists' lock is not
	# waited for, so try again)
	for i in 1 2 3 4 5; do
		"${apt[@]}" update > "$TMPD/apt.log" 2>&1 && break
		[ $i = 5 ] && skip "apt-get update failed: $(tail -1 "$TMPD/apt.log")"
		sleep 10
	done
	# shellcheck disable=SC2086 # a list
	DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends $pkgs \
		>> "$TMPD/apt.log" 2>&1 || skip "apt-get install failed: $(tail -1 "$TMPD/apt.log")"
fi
# a kernel without IA32 emulation (this project's machines) runs it in
# qemu's user mode
ia32=1
/lib/ld-linux.so.2 --version > /dev/null 2>&1 || ia32=
if [ -z "$ia32" ] && ! command -v qemu-i386 > /dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 \
		--no-install-recommends qemu-user > "$TMPD/apt.log" 2>&1 ||
		skip "this kernel runs no i386 binary and qemu-user cannot be installed"
fi

O=$TOP/build/perf-i386-$PERF_BASE
# perf 7.x's libunwind-i386.c does not build for i386 (EM_I386 undeclared,
# _Ux86_get_reg's argument types): without libunwind, as perf 7.x builds by
# default (libdw unwinds)
# (no Rust workload: rustc makes x86_64 objects, which ld -m elf_i386 refuses)
args=(NO_LIBUNWIND=1 NO_RUST=1)
P32=$O/perf
run32=
[ -n "$ia32" ] || run32=qemu-i386
PKG_CONFIG_LIBDIR=/usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig O=$O SRC=$PERF_SRC \
	PERF_DEFER_EXEC=$run32 \
	"$TOP/scripts/build.sh" --if-changed ARCH=i386 EXTRA_CFLAGS=-m32 LDFLAGS=-m32 \
	"LD=ld -m elf_i386" NO_LIBPYTHON=1 "${args[@]}" > "$TMPD/build.out" 2>&1 ||
	fail "the i386 build failed: $(tail -5 "$TMPD/build.out")"
class=$(od -An -tx1 -j4 -N1 "$P32" | tr -d ' ')
[ "$class" = 01 ] || fail "$P32 is not a 32-bit ELF file (EI_CLASS $class)"
echo "ok   perf builds as an i386 binary with -Werror: $(tail -1 "$TMPD/build.out")"
perf32() { $run32 "$P32" "$@"; }
[ -n "$ia32" ] || echo "note: this kernel runs no i386 binary (no IA32 emulation): qemu-i386 runs it"

# the series' perf test
perf32 test -v "Deferred user callchain merging" > "$TMPD/ptest" 2>&1 ||
	fail "perf test 'Deferred user callchain merging' fails on i386: $(grep -m3 -i 'fail' "$TMPD/ptest")"
grep -q ': Ok$' "$TMPD/ptest" || fail "perf test did not run: $(tail -3 "$TMPD/ptest")"
echo "ok   perf test 'Deferred user callchain merging' passes on i386"

# the same output, byte for byte
S=$(symroot)
GEN=$TOP/tests/tools/gen_perfdata.py
python3 "$GEN" -o "$TMPD/guests.data" --guests 2 --threads 4 --procs 2 --cpus 2 --per-entry 2 \
	--samples 4000 --schedule interleave --late 0.02 --migrate 0.2 --seed 3 --kallsyms= \
	> /dev/null || fail "generator failed"
bad=0
n=0
for data in "$FIX"/data/*.data "$TMPD/guests.data"; do
	name=$(basename "$data" .data)
	for cmd in "script" "script --no-merge-callchains" "report --stats"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # lists of options
		"$PERF" $cmd $S -i "$data" > "$TMPD/64" 2> "$TMPD/64.err"
		r64=$?
		# shellcheck disable=SC2086
		perf32 $cmd $S -i "$data" > "$TMPD/32" 2> "$TMPD/32.err"
		r32=$?
		if [ $r64 != $r32 ] || ! cmp -s "$TMPD/64" "$TMPD/32"; then
			echo "FAIL $name: perf $cmd: x86_64 exits $r64, i386 $r32; first difference:"
			diff "$TMPD/64" "$TMPD/32" | head -4
			bad=$((bad + 1))
		fi
	done
done
[ $bad = 0 ] || fail "$bad of $n outputs of the i386 perf differ from the x86_64 perf's"
echo "ok   $n outputs (perf script, --no-merge-callchains, report --stats on $((n / 3)) files) the same on i386 and x86_64"
