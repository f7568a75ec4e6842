#!/bin/bash
# run.sh - run every test: the repository's end-to-end tests (tests/e2e),
# the perf test cases the series add (tests/perf-tests.txt,
# tests/perf-tests-7.2.txt) and the series checks (scripts/check-series.sh:
# one line per patch).  One line per test, then "N passed, N failed, N
# skipped".  Exit status 1 if anything failed.
#
# Two bases: every e2e test runs with the 6.12 perf (build/perf/perf,
# PERF_BASE=6.12: line "NAME"), and those listed in tests/e2e-7.2.txt once
# more with the 7.2 perf (build/perf-7.2/perf, PERF_BASE=7.2: line
# "NAME [7.2]"); nothing is printed for the e2e tests not listed there.
# The perf test cases: "perf test: NAME" and "perf test [7.2]: NAME"; the
# series checks: "check-series: ..." and "check-series-7.2: ...".
#
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)
# PERF and PERF72 may name other perf binaries for the two bases;
# TEST_BASES=6.12 (or 7.2) runs one base's tests only (default "6.12 7.2").
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
PERF=${PERF:-$TOP/build/perf/perf}
PERF72=${PERF72:-$TOP/build/perf-7.2/perf}
LOG=$TOP/build/test-logs
mkdir -p "$LOG"
pat=${1:-}
pass=0 failn=0 skipn=0
bases=" ${TEST_BASES:-6.12 7.2} "
on() { [[ "$bases" == *" $1 "* ]]; }

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

# 1. perf test cases added by the series, selected by name
perf_tests() { # list perf srcdir label logsuffix
	local list=$1 perf=$2 srcdir=$3 label=$4 sfx=$5 t name log rc
	while IFS= read -r t; do
		name="perf test$label: $t"
		[ -n "$pat" ] && [[ "$name" != *"$pat"* ]] && continue
		log=$LOG/perftest-$(echo "$t" | tr -c 'A-Za-z0-9\n' '_')$sfx.log
		# run from tools/perf so that shell tests are found
		(cd "$srcdir/tools/perf" &&
		 PATH=$(dirname "$perf"):$PATH "$perf" test -v "$t") > "$log" 2>&1
		if grep -q ': FAILED!' "$log"; then rc=1
		elif grep -q ': Ok' "$log"; then rc=0
		elif grep -q ': Skip' "$log"; then
			echo "SKIP: perf test says: $(grep -m1 ': Skip' "$log")" >> "$log"; rc=77
		else rc=1; echo "no such perf test, or it did not run" >> "$log"
		fi
		report "$name" $rc "$log"
	done < <(names "$list")
}
on 6.12 && perf_tests "$TOP/tests/perf-tests.txt" "$PERF" "$TOP/build/src" "" ""
on 7.2 && perf_tests "$TOP/tests/perf-tests-7.2.txt" "$PERF72" "$TOP/build/src-7.2" " [7.2]" -7.2

# 2. end-to-end tests: with the 6.12 perf, and with the 7.2 perf when
# tests/e2e-7.2.txt lists them
e2e72=" $(names "$TOP/tests/e2e-7.2.txt" | tr '\n' ' ') "
for t in "$TOP"/tests/e2e/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if on 6.12 && { [ -z "$pat" ] || [[ "$name" == *"$pat"* ]]; }; then
		log=$LOG/$name.log
		PERF=$PERF PERF_BASE=6.12 bash "$t" > "$log" 2>&1 < /dev/null
		report "$name" $? "$log"
	fi
	on 7.2 && [[ "$e2e72" == *" $name "* ]] || continue
	[ -z "$pat" ] || [[ "$name [7.2]" == *"$pat"* ]] || continue
	log=$LOG/$name-7.2.log
	PERF=$PERF72 PERF_BASE=7.2 bash "$t" > "$log" 2>&1 < /dev/null
	report "$name [7.2]" $? "$log"
done

# 3. the series checks: one line per patch (checkpatch, applies, builds
# on its own, behaves), reported as each patch is done; see
# scripts/check-series.sh (names: "check-series: patches/series",
# "check-series: cover letter", "check-series: NNNN-subject" and
# "check-series: NNNN-subject: behaviour"; for 7.2 "check-series-7.2: ...")
check_series() { # SERIES prefix patchdir
	local series=$1 cs=$2 pdir=$3 series_names cs_lines=0 cs_fail=0 rc name log
	series_names=$(printf '%s: %s/series\n%s: cover letter\n' "$cs" "$pdir" "$cs"
		sed -n '/^[^#]/s/\.patch$//p' "$TOP/$pdir/series" 2>/dev/null |
			sed "s/.*/$cs: &\n$cs: &: behaviour/")
	[ -z "$pat" ] || grep -qF -- "$pat" <<< "$series_names" || return 0
	while IFS=$'\t' read -r rc name log; do
		cs_lines=$((cs_lines + 1))
		case $rc in 0|77) ;; *) cs_fail=1 ;; esac
		[ -n "$pat" ] && [[ "$name" != *"$pat"* ]] && continue
		report "$name" "$rc" "$log"
	done < <(SERIES=$series "$TOP/scripts/check-series.sh" --results /dev/fd/3 --logdir "$LOG" \
			3>&1 >"$LOG/$cs.log" 2>&1 </dev/null)
	wait $! 2>/dev/null
	rc=$?
	# the script itself failed without naming a failing patch
	if [ $cs_lines = 0 ] || { [ $rc != 0 ] && [ $cs_fail = 0 ]; }; then
		report "$cs" 1 "$LOG/$cs.log"
	fi
}
on 6.12 && check_series 6.12 check-series patches
on 7.2 && check_series 7.2 check-series-7.2 patches-7.2

echo "$pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ]
