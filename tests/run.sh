#!/bin/bash
# run.sh - run every test: the repository's end-to-end tests (tests/e2e),
# the perf test cases the series adds (tests/perf-tests-7.3.txt) and the
# series checks (scripts/check-series.sh: one line per patch).  One line
# per test, then "N passed, N failed, N skipped".  Exit status 1 if
# anything failed.
#
# Every e2e test runs with the perf of the 7.3 series (build/perf-7.3/perf,
# PERF_BASE=7.3, PERF_SRC=build/src-7.3): line "NAME".  The perf test
# cases: "perf test: NAME"; the series checks: "check-series-7.3: ...".
#
# Tests run TEST_JOBS at a time (default: the number of processors), each
# one's line printed when it ends; the longest first, by the times of the
# last run (build/test-logs/durations) or, in a new clone, those of
# tests/durations.txt.  The tests share nothing they
# write but through locks (tests/lib.sh symroot, the stackvis install, the
# realkernel harness, the upstream perf root, the series' check directory).
#
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)
# Environment:
#   PERF            another perf binary
#   TEST_JOBS       how many tests at a time
#   TEST_LOG_DIR    where the logs go (default build/test-logs)
#   TEST_SERIES     which series checks: "patches" (the default: the
#                   series file, each patch applies and is checkpatch
#                   clean, the cover letter; one line per patch), "full"
#                   (also every prefix built and its behaviour checked,
#                   as make check-series: a line more per patch), 0: none
#   TEST_SKIP       "NAME=REASON" lines: tests not run, and why
#   PERF_DEFER_SANITIZER=1  $PERF is built with ASan and UBSan
#                   (scripts/check-asan.sh): each test gets its own report
#                   directory (ASAN_OPTIONS/UBSAN_OPTIONS log_path), and a
#                   report there or in its log fails it
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
PERF=${PERF:-$TOP/build/perf-7.3/perf}
LOG=${TEST_LOG_DIR:-$TOP/build/test-logs}
mkdir -p "$LOG"
pat=${1:-}
pass=0 failn=0 skipn=0
njobs=${TEST_JOBS:-$(nproc)}
san=${PERF_DEFER_SANITIZER:-}
declare -A skipwhy=()
while IFS='=' read -r n why; do
	[ -n "$n" ] && skipwhy[$n]=$why
done <<< "${TEST_SKIP:-}"

report() { # name rc logfile
	local name=$1 rc=$2 log=$3 why
	case $rc in
	0) pass=$((pass + 1)); echo "PASS  $name" ;;
	77) skipn=$((skipn + 1))
	    why=$(grep -m1 '^SKIP: ' "$log" | sed 's/^SKIP: //')
	    echo "SKIP  $name: ${why:-no reason given}" ;;
	*) failn=$((failn + 1)); echo "FAIL  $name (rc=$rc, log: ${log#$TOP/})"
	   tail -n 15 "$log" | sed 's/^/      /' ;;
	esac
}
# the names in a list file (one a line, # comments)
names() { [ -f "$1" ] && sed 's/#.*//; s/[[:space:]]*$//; s/^[[:space:]]*//; /^$/d' "$1"; }
slug() { echo "$1" | tr -c 'A-Za-z0-9\n' '_'; }

# --- the jobs: "kind<TAB>name<TAB>log<TAB>args" ----------------------------
jobs=()
want() { [ -z "$pat" ] || [[ "$1" == *"$pat"* ]]; }
# 1. perf test cases added by the series, selected by name
add_perf_tests() { # list perf srcdir
	local t name
	while IFS= read -r t; do
		name="perf test: $t"
		want "$name" || continue
		jobs+=("perftest	$name	$LOG/perftest-$(slug "$t").log	$t	$2	$3")
	done < <(names "$1")
}
add_perf_tests "$TOP/tests/perf-tests-7.3.txt" "$PERF" "$TOP/build/src-7.3"
# 2. end-to-end tests, with the 7.3 perf
for t in "$TOP"/tests/e2e/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	want "$name" && jobs+=("e2e	$name	$LOG/$name.log	$t	$PERF	7.3")
done
# 3. the series checks: one line per patch (applies, checkpatch; with
# TEST_SERIES=full also builds on its own, and a line more: behaves); see
# scripts/check-series.sh (names: "check-series-7.3:
# patches-7.3/series", "check-series-7.3: cover letter",
# "check-series-7.3: NNNN-subject" and "check-series-7.3: NNNN-subject:
# behaviour").  One job, its lines printed when it ends.
add_series() { # SERIES prefix patchdir
	local names
	names=$(printf '%s: %s/series\n%s: cover letter\n' "$2" "$3" "$2"
		sed -n '/^[^#]/s/\.patch$//p' "$TOP/$3/series" 2>/dev/null |
			sed "s/.*/$2: &\n$2: &: behaviour/")
	[ -z "$pat" ] || grep -qF -- "$pat" <<< "$names" || return 0
	jobs+=("series	$2	$LOG/$2.log	$1")
}
series_mode=${TEST_SERIES:-patches}
case $series_mode in
patches) series_opt=--patches-only ;;
full) series_opt= ;;
0) ;;
*) echo "run.sh: TEST_SERIES=$series_mode: patches, full or 0" >&2; exit 2 ;;
esac
if [ "$series_mode" != 0 ]; then
	add_series 7.3 check-series-7.3 patches-7.3
fi

# longest first: by the last run's times, else by tests/durations.txt (a
# run's times on a cold start, for a new clone); unknown ones after the
# series checks, in the order above
declare -A took=()
for f in "$TOP/tests/durations.txt" "$LOG/durations"; do
	[ -f "$f" ] || continue
	while IFS=$'\t' read -r s n; do
		[[ "$s" =~ ^[0-9]+$ ]] && took[$n]=$s
	done < "$f"
done
order=$(for i in "${!jobs[@]}"; do
	IFS=$'\t' read -r kind name _ <<< "${jobs[$i]}"
	d=${took[$name]:-}
	[ -n "$d" ] || { [ "$kind" = series ] && d=100000 || d=-1; }
	printf '%s\t%s\n' "$d" "$i"
done | sort -t$'\t' -k1,1nr -k2,2n -s | cut -f2)

# --- running one job (in a subshell; its rc in $st/I) ----------------------
st=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX")
trap 'rm -rf "$st"' EXIT
# the shared symfs root, made once before the tests that read it
(. "$TOP/tests/lib.sh" && symroot > /dev/null) || echo "run.sh: symroot failed" >&2

run_job() { # index
	local kind name log a b c rc=0 sd=
	IFS=$'\t' read -r kind name log a b c <<< "${jobs[$1]}"
	if [ -n "${skipwhy[$name]:-}" ]; then
		echo "SKIP: ${skipwhy[$name]}" > "$log"
		echo 77 > "$st/$1"
		return
	fi
	if [ -n "$san" ]; then
		sd=$LOG/sanitizer/$(slug "$name")
		rm -rf "$sd" && mkdir -p "$sd"
		export ASAN_OPTIONS=detect_leaks=0:log_path=$sd/san
		export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$sd/san
	fi
	case $kind in
	perftest)
		# run from tools/perf so that shell tests are found
		(cd "$c/tools/perf" && PATH=$(dirname "$b"):$PATH "$b" test -v "$a") > "$log" 2>&1
		if grep -q ': FAILED!' "$log"; then rc=1
		elif grep -q ': Ok' "$log"; then rc=0
		elif grep -q ': Skip' "$log"; then
			echo "SKIP: perf test says: $(grep -m1 ': Skip' "$log")" >> "$log"; rc=77
		else rc=1; echo "no such perf test, or it did not run" >> "$log"
		fi ;;
	e2e)	PERF=$b PERF_BASE=$c PERF_SRC=$TOP/build/src-$c bash "$a" > "$log" 2>&1 < /dev/null || rc=$? ;;
	series)	SERIES=$a "$TOP/scripts/check-series.sh" $series_opt --results "$st/$1.results" \
			--logdir "$LOG" > "$log" 2>&1 < /dev/null || rc=$? ;;
	esac
	# ASan reports go to files; GCC's UBSan ones (with ASan) stay on
	# stderr, in the log
	if [ -n "$sd" ] && { [ -n "$(ls "$sd")" ] ||
			     grep -Eq 'runtime error:|ERROR: AddressSanitizer' "$log"; }; then
		grep -E -A3 'runtime error:|ERROR: AddressSanitizer' "$log" > "$sd/from-test-log"
		{ echo "sanitizer report (${sd#$TOP/}):"
		  grep -h -m3 -E 'ERROR: AddressSanitizer|runtime error|^ +#[0-2] ' "$sd"/* | head -8
		} >> "$log"
		rc=1
	fi
	echo "$rc" > "$st/$1"
}

finish() { # index: print its line(s)
	local kind name log rc r n l cs_lines=0 cs_fail=0
	IFS=$'\t' read -r kind name log _ <<< "${jobs[$1]}"
	rc=$(cat "$st/$1" 2>/dev/null || echo 1)
	if [ "$kind" = series ]; then
		while IFS=$'\t' read -r r n l; do
			cs_lines=$((cs_lines + 1))
			case $r in 0|77) ;; *) cs_fail=1 ;; esac
			[ -n "$pat" ] && [[ "$n" != *"$pat"* ]] && continue
			report "$n" "$r" "$l"
		done < "$st/$1.results"
		# the script itself failed without naming a failing patch
		if [ $cs_lines = 0 ] || { [ "$rc" != 0 ] && [ $cs_fail = 0 ]; }; then
			report "$name" 1 "$log"
		fi
	else
		report "$name" "$rc" "$log"
	fi
	printf '%s\t%s\n' $(($(date +%s) - ${started[$1]})) "$name" >> "$st/durations"
}

declare -A running=() started=()
for i in $order; do
	while [ ${#running[@]} -ge "$njobs" ]; do
		wait -n -p done_pid
		finish "${running[$done_pid]}"
		unset "running[$done_pid]"
	done
	started[$i]=$(date +%s)
	run_job "$i" &
	running[$!]=$i
done
while [ ${#running[@]} -gt 0 ]; do
	wait -n -p done_pid
	finish "${running[$done_pid]}"
	unset "running[$done_pid]"
done
# keep the times of the tests that ran, and the others' from before
if [ -f "$st/durations" ]; then
	{ cat "$st/durations"
	  [ -f "$LOG/durations" ] && cat "$LOG/durations"
	} | awk -F'\t' '!seen[$2]++' > "$LOG/durations.tmp" && mv "$LOG/durations.tmp" "$LOG/durations"
fi

echo "$pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ]
