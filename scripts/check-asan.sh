#!/bin/bash
# check-asan.sh - 'make check-asan': build perf with AddressSanitizer and
# UndefinedBehaviorSanitizer into build/perf-asan and run every test of
# tests/run.sh with it (PERF=build/perf-asan/perf), one test at a time.
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
# are not 8-byte aligned in a file (perf record -z of 6.12, HEADER_FEATUREs
# of a pipe copied by perf inject) are read through an aligned copy.
# PERF_DEFER_SANITIZER=1 tells tests that time or memory use is not
# comparable (tests/e2e/bad-input.sh then skips its peak RSS check).
# The series checks (check-series: checkpatch and a build of each patch)
# do not use $PERF and are not run.
# Takes about 6 minutes on 2 cores (measured: 363 s, ASan build from ccache
# included; the slowest tests report-modes-merged 97 s, script-fields-merged
# 77 s, inject-keeps-deferred 45 s); a build without ccache adds ~4 min.
#
# Usage: scripts/check-asan.sh [PATTERN]   (only tests whose name contains it)
# Environment: CHECK_ASAN_SKIP="name ..." more tests to skip,
#              CHECK_ASAN_NO_BUILD=1 use build/perf-asan/perf as it is,
#              SRC (scripts/build.sh) and CHECK_ASAN_O to build another
#              tree into another directory (e.g. a worktree's commits).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${CHECK_ASAN_O:-$top/build/perf-asan}
log=$top/build/test-logs/asan
pat=${1:-}
start=$(date +%s)

# tests that cannot run under the sanitizers, by name, with the reason
declare -A SKIP=(
	[realkernel]="records in a qemu TCG guest (minutes without sanitizers); the recordings' read-back is what the other tests check"
	[fuzz-short]="fuzzes its own ASan+UBSan build (build/perf-afl), not \$PERF"
)
for n in ${CHECK_ASAN_SKIP:-}; do SKIP[$n]="CHECK_ASAN_SKIP"; done
if [ -z "${CHECK_ASAN_NO_BUILD:-}" ]; then
	O=$O "$top/scripts/build.sh" --if-changed DEBUG=1 \
		EXTRA_CFLAGS='-fno-omit-frame-pointer -fsanitize=address,undefined' \
		LDFLAGS='-fsanitize=address,undefined' || exit 1
fi
[ -x "$O/perf" ] || { echo "check-asan: no $O/perf" >&2; exit 1; }
nm "$O/perf" 2> /dev/null | grep -q __asan_init ||
	{ echo "check-asan: $O/perf is not built with -fsanitize=address" >&2; exit 1; }

rm -rf "$log"
mkdir -p "$log"
export PERF=$O/perf PERF_DEFER_SANITIZER=1
# (the 6.12 series' tests only: the ASan perf is 6.12's)
export TEST_BASES=6.12
export ASAN_OPTIONS=detect_leaks=0:log_path=$log/san
ubsan=halt_on_error=1:print_stacktrace=1:log_path=$log/san

names=()
if [ -f "$top/tests/perf-tests.txt" ]; then
	while IFS= read -r t; do
		case "$t" in ""|\#*) continue ;; esac
		names+=("$t")
	done < "$top/tests/perf-tests.txt"
fi
for t in "$top"/tests/e2e/*.sh; do
	[ -e "$t" ] && names+=("$(basename "$t" .sh)")
done
series=$(sed -n '/^[^#]/s/\.patch$//p' "$top/patches/series" 2> /dev/null)

pass=0 failn=0 skipn=0
for name in "${names[@]}"; do
	[ -n "$pat" ] && [[ "$name" != *"$pat"* ]] && continue
	if [ -n "${SKIP[$name]:-}" ]; then
		echo "SKIP  $name: not run under the sanitizers: ${SKIP[$name]}"
		skipn=$((skipn + 1))
		continue
	fi
	t0=$(date +%s)
	rm -f "$log"/san.*
	export UBSAN_OPTIONS=$ubsan
	if [ -f "$top/tests/e2e/$name.sh" ] && grep -qF -- "$name" <<< "$series"; then
		# run.sh would take the name for a patch's and run check-series too
		tlog=$log/$name.log
		if bash "$top/tests/e2e/$name.sh" > "$log/$name.log" 2>&1 < /dev/null; then
			out="PASS  $name"
		else
			rc=$?
			[ $rc = 77 ] && out="SKIP  $name: $(grep -m1 '^SKIP: ' "$log/$name.log")" ||
				out="FAIL  $name (rc=$rc)"
		fi
	else
		tlog=$top/build/test-logs/$name.log
		[ -f "$top/tests/e2e/$name.sh" ] ||
			tlog=$top/build/test-logs/perftest-$(echo "$name" | tr -c 'A-Za-z0-9\n' '_').log
		rm -f "$tlog"
		out=$("$top/tests/run.sh" "$name" 2>&1 < /dev/null | grep -v ' passed, .* failed, ')
	fi
	dt=$(( $(date +%s) - t0 ))
	reports=$(ls "$log"/san.* 2> /dev/null)
	# UBSan reports stay on stderr (see above): those the test printed
	if [ -z "$reports" ] && [ -f "$tlog" ] &&
	   grep -Eq 'runtime error:|ERROR: AddressSanitizer' "$tlog"; then
		grep -E -A3 'runtime error:|ERROR: AddressSanitizer' "$tlog" > "$log/san.from-test-log"
		reports=$log/san.from-test-log
	fi
	if [ -n "$reports" ]; then
		mkdir -p "$log/$name.reports"
		mv $reports "$log/$name.reports/"
		echo "FAIL  $name: sanitizer report (${dt}s; build/test-logs/asan/$name.reports/)"
		grep -h -m3 -E 'ERROR: AddressSanitizer|runtime error|^ +#[0-2] ' \
			"$log/$name.reports"/* | head -8 | sed 's/^/      /'
		failn=$((failn + 1))
		continue
	fi
	echo "$out" | sed "1s/\$/ (${dt}s)/"
	case "$out" in
	*FAIL*) failn=$((failn + 1)) ;;
	SKIP*) skipn=$((skipn + 1)) ;;
	PASS*) pass=$((pass + 1)) ;;
	*) echo "      (no result line from tests/run.sh)"; failn=$((failn + 1)) ;;
	esac
done
echo "$pass passed, $failn failed, $skipn skipped (ASan+UBSan, $(( $(date +%s) - start ))s)"
[ $failn = 0 ]
