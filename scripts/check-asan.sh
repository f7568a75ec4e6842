#!/bin/bash
# check-asan.sh - 'make check-asan': build the perf of the 7.3 series
# (build/src-7.3) with AddressSanitizer and UndefinedBehaviorSanitizer into
# build/perf-asan and run the e2e tests of tests/run.sh's primary run with
# it (PERF=build/perf-asan/perf).
#
# A test fails if it fails, or if perf (or anything it runs) wrote a
# sanitizer report: ASan reports go to files (ASAN_OPTIONS log_path) under
# build/test-logs/asan/, checked after each test whatever the test did with
# perf's stderr.  GCC's UBSan runtime ignores log_path when linked with
# ASan: its reports stay on perf's stderr, and perf exits 1 after the first
# (halt_on_error=1), which the test sees; reports in the test's log count
# too, and tests can check captured stderr with no_sanitizer_report
# (tests/lib.sh).
#   ASAN_OPTIONS=detect_leaks=0   perf frees little at exit, by design
#   UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Every UBSan check is on for every test, alignment included: events that
# are not 8-byte aligned in a file (perf record -z of older perfs,
# HEADER_FEATUREs of a pipe copied by perf inject) are read through an
# aligned copy.
# PERF_DEFER_SANITIZER=1 tells tests that time or memory use is not
# comparable (tests/e2e/bad-input.sh then skips its peak RSS check).
# The series checks (check-series: checkpatch and a build of each patch)
# do not use $PERF and are not run.
# The tests run side by side, as in make check (tests/run.sh, TEST_JOBS);
# the logs go to build/test-logs/asan/, each test's sanitizer reports to
# build/test-logs/asan/sanitizer/TEST/.
#
# Usage: scripts/check-asan.sh [PATTERN]   (only tests whose name contains it)
#        scripts/check-asan.sh --build-only (the build alone, if needed)
# Environment: CHECK_ASAN_SKIP="name ..." more tests to skip,
#              CHECK_ASAN_NO_BUILD=1 use build/perf-asan/perf as it is,
#              SRC (default build/src-7.3) and CHECK_ASAN_O to build
#              another tree into another directory (e.g. a worktree's
#              commits).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# the 7.3 series' tree and its make arguments (LIBUNWIND=1)
SERIES=7.3 . "$top/scripts/series.sh"
export SRC=${SRC:-$SER_SRC}
O=${CHECK_ASAN_O:-$top/build/perf-asan}
log=$top/build/test-logs/asan
build_only=
[ "${1:-}" != --build-only ] || { build_only=1; shift; }
pat=${1:-}
start=$(date +%s)

# tests that cannot run under the sanitizers, by name, with the reason
declare -A SKIP=(
	[realkernel]="records in a qemu TCG guest (minutes without sanitizers); the recordings' read-back is what the other tests check"
	[fuzz-short]="fuzzes its own ASan+UBSan build of build/src-7.3 (build/perf-afl-quick), not \$PERF"
	[report-modes-merged]="the report code it runs runs here in every-tool and stats-deferred; its modes are checked by make check (minutes more under ASan)"
	[report-callgraph-vs-upstream]="this DEBUG=1 build groups inlined frames differently in perf report --children, on recordings without deferred callchains too (st_nodefer: inner_read 92.93%, upstream and the -O2 build 49.13%): nothing to compare with upstream's output; make check compares"
	[script-fields-merged]="the script code it runs runs here in script-merged-vs-upstream and script-python; its field options are checked by make check (minutes more under ASan)"
)
for n in ${CHECK_ASAN_SKIP:-}; do SKIP[$n]="CHECK_ASAN_SKIP"; done
if [ -z "${CHECK_ASAN_NO_BUILD:-}" ]; then
	O=$O "$top/scripts/build.sh" --if-changed DEBUG=1 "${SER_BUILD_ARGS[@]}" \
		EXTRA_CFLAGS='-fno-omit-frame-pointer -fsanitize=address,undefined' \
		LDFLAGS='-fsanitize=address,undefined' || exit 1
fi
[ -z "$build_only" ] || exit 0
[ -x "$O/perf" ] || { echo "check-asan: no $O/perf" >&2; exit 1; }
nm "$O/perf" 2> /dev/null | grep -q __asan_init ||
	{ echo "check-asan: $O/perf is not built with -fsanitize=address" >&2; exit 1; }

rm -rf "$log"
mkdir -p "$log"
skips=
for n in "${!SKIP[@]}"; do skips+="$n=not run under the sanitizers: ${SKIP[$n]}"$'\n'; done
# (no series checks: they build their own perfs; no comparison with
# upstream perf's outputs: make check compares them, here they would only
# cost time)
# (the runner's lines as they come, its summary with the phase's time)
set -o pipefail
PERF=$O/perf PERF_DEFER_SANITIZER=1 PERF_DEFER_NO_UPSTREAM=1 TEST_SERIES=0 TEST_LOG_DIR=$log \
	TEST_SKIP=$skips "$top/tests/run.sh" "$pat" 2>&1 | {
	prev=
	while IFS= read -r line; do
		[ -z "$prev" ] || echo "$prev"
		prev=$line
	done
	echo "$prev (ASan+UBSan, $(( $(date +%s) - start ))s)"
}
