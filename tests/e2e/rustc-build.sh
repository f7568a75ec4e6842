#!/bin/bash
# rustc-build: perf builds where Debian's rustc is installed.  perf 7.3
# builds its Rust test workload (tests/workloads/code_with_type.rs) as soon
# as it finds rustc: a static library that holds the objects of Rust's
# standard library too, each with its LLVM bitcode in an .llvmbc section.
# 'ld -r' concatenates those into one section of perf-test-in.o that is no
# valid bitcode, and GNU ar, which loads LLVMgold from /usr/lib/bfd-plugins
# (Debian's llvm-14-linker-tools, clang's dependency), aborts on it:
# "AR libperf-test.a / LLVM ERROR: Invalid encoding".  The patch "perf
# build: Remove the LLVM bitcode from the Rust workload's library" removes
# the sections from the library.
#
# Checks, with Debian's rustc (and its standard library): libperf-test.a
# builds, the workload is in it, and perf-test-in.o has no .llvmbc section
# (so the test fails without the patch also where ar loads no LLVM plugin).
#
# rustc is not installed: apt-get download fetches rustc, libstd-rust-dev
# and the libstd-rust-X.Y it needs, dpkg -x unpacks them into
# $PERF_DEFER_CACHE/deb-rust (default /var/cache/perf-defer), and perf's
# make gets that rustc as RUSTC (a wrapper that sets LD_LIBRARY_PATH), so
# no other build on the machine sees it.  Only libperf-test.a is made
# (perf's libraries and tests/, with scripts/build.sh's flags), in
# build/rustc-build-7.3: about a minute cold, seconds when it is there.
. "$(dirname "$0")/../lib.sh"

[ -z "${PERF_DEFER_SANITIZER:-}" ] ||
	skip "builds perf's libperf-test.a: nothing of \$PERF for the sanitizers to see"
[ -f "$PERF_SRC/tools/perf/tests/workloads/code_with_type.rs" ] ||
	skip "no Rust workload in $PERF_SRC"
{ command -v apt-get && command -v dpkg; } > /dev/null ||
	skip "no apt-get/dpkg to fetch Debian's rustc"

# --- Debian's rustc, unpacked, never installed ------------------------------
cache=${PERF_DEFER_CACHE:-/var/cache/perf-defer}/deb-rust
mkdir -p "$cache" 2> /dev/null || skip "cannot make $cache"
[ -w "$cache" ] || skip "cannot write $cache"
RUSTC=$cache/bin/rustc
rc=0
(
	flock 9
	[ -x "$RUSTC" ] && [ -f "$cache/root/.complete" ] && exit 0
	rm -rf "${cache:?}/debs" "${cache:?}/root" "${cache:?}/bin"
	mkdir -p "$cache/debs" "$cache/root" "$cache/bin"
	cd "$cache/debs" || exit 1
	fetch() { apt-get -q download "$@" > "$cache/apt.log" 2>&1; }
	# libstd-rust-dev depends on the versioned libstd-rust-X.Y
	std=$(apt-cache depends libstd-rust-dev 2> /dev/null |
		sed -n 's/^ *Depends: \(libstd-rust-[0-9][0-9.]*\)$/\1/p' | head -1)
	if [ -z "$std" ] || ! fetch rustc libstd-rust-dev "$std"; then
		# the lists may be missing or old: once more after an update
		apt-get -q -o DPkg::Lock::Timeout=600 update > "$cache/apt.log" 2>&1 || exit 3
		std=$(apt-cache depends libstd-rust-dev 2> /dev/null |
			sed -n 's/^ *Depends: \(libstd-rust-[0-9][0-9.]*\)$/\1/p' | head -1)
		[ -n "$std" ] && fetch rustc libstd-rust-dev "$std" || exit 3
	fi
	# what libstd-rust-X.Y needs (libllvmNN) and is not installed
	for d in $(apt-cache depends "$std" | sed -n 's/^ *Depends: \([^<> ]*\)$/\1/p'); do
		dpkg -s "$d" > /dev/null 2>&1 || fetch "$d" || exit 3
	done
	for f in *.deb; do dpkg -x "$f" "$cache/root" || exit 1; done
	lib=$(find "$cache/root/usr/lib" -name 'librustc_driver-*.so' -printf '%h\n' | head -1)
	llvm=$(find "$cache/root/usr/lib" -name 'libLLVM-*.so*' -printf '%h\n' | head -1)
	[ -n "$lib" ] && [ -x "$cache/root/usr/bin/rustc" ] || exit 1
	cat > "$RUSTC" <<-EOF
	#!/bin/sh
	# Debian's rustc, unpacked by tests/e2e/rustc-build.sh (dpkg -x), not installed
	LD_LIBRARY_PATH=$lib${llvm:+:$llvm}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} exec $cache/root/usr/bin/rustc "\$@"
	EOF
	chmod +x "$RUSTC"
	ls -- *.deb > "$cache/root/.complete"
) 9> "$cache/.lock" || rc=$?
case $rc in
0) ;;
3) skip "apt-get could not fetch Debian's rustc: $(tail -1 "$cache/apt.log")" ;;
*) fail "unpacking Debian's rustc into $cache failed" ;;
esac
ver=$("$RUSTC" --version 2>&1) || skip "the unpacked rustc does not run: $ver"
echo "ok   $ver (unpacked in $cache: $(tr '\n' ' ' < "$cache/root/.complete"))"
plugins=
for f in /usr/lib/bfd-plugins/*[Ll][Ll][Vv][Mm]*; do
	[ -e "$f" ] && plugins="$plugins${f##*/} "
done
if [ -n "$plugins" ]; then
	echo "note: GNU ar loads $plugins(from /usr/lib/bfd-plugins)"
else
	echo "note: no LLVM plugin in /usr/lib/bfd-plugins: ar cannot abort here; the .llvmbc check still tells"
fi

# --- libperf-test.a, with scripts/build.sh's flags ----------------------------
eval "$(sed -n '/^flags=(/,/)$/p' "$TOP/scripts/build.sh")"
[ "${#flags[@]}" -gt 5 ] || fail "could not read perf's make flags from scripts/build.sh"
flags+=(DEBUG=0)
O=$TOP/build/rustc-build-$PERF_BASE
mkdir -p "$O"
t0=$(date +%s)
rc=0
(
	flock 9
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin
	if [ "${PERF_DEFER_CCACHE:-1}" != 0 ] && [ -x /usr/lib/ccache/gcc ]; then
		export CCACHE_DIR=${CCACHE_DIR:-${PERF_DEFER_CACHE:-/var/cache/perf-defer}/ccache}
		PATH=/usr/lib/ccache:$PATH
	fi
	make -s -C "$PERF_SRC/tools/perf" O="$O" JOBS="$(nproc)" "${flags[@]}" \
		RUSTC="$RUSTC" "$O/libperf-test.a"
) 9> "$O/.lock" > "$TMPD/build.log" 2>&1 || rc=$?
t=$(($(date +%s) - t0))
if [ $rc != 0 ]; then
	grep -E -m3 'LLVM ERROR|Error|error:' "$TMPD/build.log" | sed 's/^/      /'
	tail -5 "$TMPD/build.log"
	fail "libperf-test.a does not build with $ver (make: $rc, ${t}s)"
fi
[ -f "$O/tests/workloads/code_with_type.a" ] ||
	fail "perf's build did not build the Rust workload with RUSTC=$RUSTC"
nm "$O/libperf-test.a" 2> /dev/null | grep -q ' T test_rs$' ||
	fail "libperf-test.a has no test_rs (the Rust workload's function)"
echo "ok   libperf-test.a builds with $ver and holds the Rust workload (${t}s)"

bad=0
for f in "$O/tests/workloads/perf-test-in.o" "$O/perf-test-in.o"; do
	if readelf -SW "$f" | grep -q ' \.llvmbc '; then
		echo "FAIL ${f#"$TOP"/}: an .llvmbc section, the rust objects' bitcode concatenated by ld -r"
		bad=$((bad + 1))
	fi
done
[ $bad = 0 ] || fail "LLVM based tools (ar with LLVMgold, llvm-nm) abort on these objects"
echo "ok   no .llvmbc section in the perf-test-in.o objects"
echo "PASS"
