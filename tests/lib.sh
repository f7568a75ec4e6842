# tests/lib.sh - sourced by every end-to-end test in tests/e2e/.
#
# A test is an executable tests/e2e/NAME.sh: exit 0 passes, exit 77 skips
# (after 'skip REASON', which prints the reason), anything else fails.
# What it prints goes to build/test-logs/NAME.log; the runner shows the
# last lines of a failing test.
#
# tests/run.sh runs every test with the perf of the 7.3 series.  A test
# reads which base it runs with from
#   PERF_BASE   7.3 (build/perf-7.3/perf, the default and only base)
#   PERF_SRC    that base's applied source tree (build/src-7.3:
#               tools/perf/tests/shell, the scripts of perf script)
# Upstream perf (tests/tools/upstream-perf.sh), where a test compares with
# it or uses it as the perf without the series, is that of the same base:
# Debian trixie-backports' linux-perf 7.3; UPV says which, for messages.
set -eu
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PERF_BASE=${PERF_BASE:-7.3}
case $PERF_BASE in
7.3) PERF=${PERF:-$TOP/build/perf-7.3/perf} PERF_SRC=${PERF_SRC:-$TOP/build/src-7.3} ;;
*) echo "tests/lib.sh: PERF_BASE=$PERF_BASE: the only base is 7.3" >&2; exit 2 ;;
esac
UPV=7.3
FIX=$TOP/tests/fixtures/real-7.2
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/perf-defer-test.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
export LC_ALL=C
# perf report prints a random tip unless told not to
export PERF_CONFIG=/dev/null
# Debian's python3 (the one perf is built with) for the tools, not a
# version manager's shim in front of another: pyenv's costs 0.7 s a call,
# and the tests make thousands of calls
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir "$TMPD/bin"
	ln -s /usr/bin/python3 "$TMPD/bin/python3"
	PATH=$TMPD/bin:$PATH
fi
# never the host's kallsyms or build-id cache
export HOME=$TMPD

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# symroot: a symfs root with the fixture binaries at /fixtures/bin (their
# path in the guest) and the guest's kallsyms; prints the perf options that
# symbolise the real-7.2 recordings on this host.
symroot() {
	local root=$TOP/build/symfs
	if [ ! -s "$root/kallsyms.txt" ]; then
		# (tests run side by side: one makes it, the others wait)
		mkdir -p "$root/fixtures/bin"
		(
			flock 9
			[ -s "$root/kallsyms.txt" ] && exit 0
			cp "$FIX"/bin/* "$root/fixtures/bin/"
			xz -dc "$FIX/sysinfo/kallsyms.txt.xz" > "$root/kallsyms.tmp"
			mv "$root/kallsyms.tmp" "$root/kallsyms.txt"
		) 9> "$root/.lock"
	fi
	echo "--symfs=$root --kallsyms=$root/kallsyms.txt"
}

# upstream NAME KIND: upstream perf 7.2's output for recording NAME, stored
# (tests/fixtures/real-7.2/upstream-7.2): the reference for what these
# recordings hold
upstream() {
	local f=$FIX/upstream-7.2/$1.$2.txt
	if [ -f "$f.xz" ]; then xz -dc "$f.xz"; else cat "$f"; fi
}

# no_sanitizer_report FILE...: fail if perf built with ASan/UBSan (make
# check-asan) wrote a report into these captures of its stderr.  Reports
# that go elsewhere are caught by scripts/check-asan.sh itself (log_path).
no_sanitizer_report() {
	local f re='ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer'
	for f in "$@"; do
		if grep -Eq "$re" "$f"; then
			grep -E -m1 -A8 "$re" "$f" >&2
			fail "sanitizer report in $(basename "$f")"
		fi
	done
}

# out_of_order FILE: how many samples perf script's output FILE shows out
# of time order: after a sample taken later (the time is the first field
# "SECONDS.FRACTION:" of a line that is no callchain line); 0 without times
out_of_order() {
	awk '/^\t/ { next }
	     { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = substr($i, 1, length($i) - 1) + 0
			if (t < max) n++; else max = t
			break
	       } }
	     END { print n + 0 }' "$1"
}
