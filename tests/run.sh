#!/bin/bash
# run.sh - run every test: the repository's end-to-end tests (tests/e2e),
# the perf test cases the series adds (tests/perf-tests.txt) and the series
# checks (scripts/check-series.sh: one line per patch).  One line per
# test, then "N passed, N failed, N skipped".  Exit status 1 if anything failed.
#
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
PERF=${PERF:-$TOP/build/perf/perf}
LOG=$TOP/build/test-logs
mkdir -p "$LOG"
pat=${1:-}
pass=0 failn=0 skipn=0

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

# 1. perf test cases added by the series, selected by name
if [ -f "$TOP/tests/perf-tests.txt" ]; then
	while IFS= read -r t; do
		case "$t" in ""|\#*) continue ;; esac
		name="perf test: $t"
		[ -n "$pat" ] && [[ "$name" != *"$pat"* ]] && continue
		log=$LOG/perftest-$(echo "$t" | tr -c 'A-Za-z0-9\n' '_').log
		# run from tools/perf so that shell tests are found
		(cd "$TOP/build/src/tools/perf" &&
		 PATH=$(dirname "$PERF"):$PATH "$PERF" test -v "$t") > "$log" 2>&1
		if grep -q ': FAILED!' "$log"; then rc=1
		elif grep -q ': Ok' "$log"; then rc=0
		elif grep -q ': Skip' "$log"; then
			echo "SKIP: perf test says: $(grep -m1 ': Skip' "$log")" >> "$log"; rc=77
		else rc=1; echo "no such perf test, or it did not run" >> "$log"
		fi
		report "$name" $rc "$log"
	done < "$TOP/tests/perf-tests.txt"
fi

# 2. end-to-end tests
for t in "$TOP"/tests/e2e/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	[ -n "$pat" ] && [[ "$name" != *"$pat"* ]] && continue
	log=$LOG/$name.log
	PERF=$PERF bash "$t" > "$log" 2>&1 < /dev/null
	report "$name" $? "$log"
done

# 3. the series checks: one line per patch (checkpatch, applies, builds
# on its own), reported as each patch is done; see scripts/check-series.sh
# (names: "check-series: patches/series", "check-series: cover letter",
# "check-series: NNNN-subject" and "check-series: NNNN-subject: behaviour")
series_names=$(printf 'check-series: patches/series\ncheck-series: cover letter\n'
	sed -n '/^[^#]/s/\.patch$//p' "$TOP/patches/series" 2>/dev/null |
		sed 's/.*/check-series: &\ncheck-series: &: behaviour/')
if [ -z "$pat" ] || grep -qF -- "$pat" <<< "$series_names"; then
	cs_lines=0 cs_fail=0
	while IFS=$'\t' read -r rc name log; do
		cs_lines=$((cs_lines + 1))
		case $rc in 0|77) ;; *) cs_fail=1 ;; esac
		[ -n "$pat" ] && [[ "$name" != *"$pat"* ]] && continue
		report "$name" "$rc" "$log"
	done < <("$TOP/scripts/check-series.sh" --results /dev/fd/3 --logdir "$LOG" \
			3>&1 >"$LOG/check-series.log" 2>&1 </dev/null)
	wait $! 2>/dev/null
	rc=$?
	# the script itself failed without naming a failing patch
	if [ $cs_lines = 0 ] || { [ $rc != 0 ] && [ $cs_fail = 0 ]; }; then
		report "check-series" 1 "$LOG/check-series.log"
	fi
fi

echo "$pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ]
