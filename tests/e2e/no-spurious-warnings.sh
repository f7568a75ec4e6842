#!/bin/bash
# no-spurious-warnings: tools that do not merge deferred user callchains,
# because they look at no callchain, say nothing about them: perf report
# --tasks (samples not looked at), perf report -D (raw dump), perf
# buildid-list (sample IPs only).  With the 6.12 series' merge before its
# v2 the first two say "N CALLCHAIN_DEFERRED records were not used by this
# tool".  Each must
# exit 0, print no warning about deferred callchains or records, and -D
# must still dump every record (its count from --stats).
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "no perf binary at $PERF"
re='CALLCHAIN_DEFERRED|deferred user callchain|BUG:'
bad=0
n=0
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	recs=$("$PERF" report --stats -i "$data" 2> /dev/null |
	       awk '/CALLCHAIN_DEFERRED events:/ { print $3; exit }')
	for cmd in "report --tasks" "report -D" "buildid-list"; do
		# shellcheck disable=SC2086 # $cmd is a command and its options
		if ! "$PERF" $cmd -i "$data" > "$TMPD/out" 2> "$TMPD/err"; then
			echo "FAIL $name: perf $cmd exits non-zero: $(head -3 "$TMPD/err")"
			bad=$((bad + 1))
			continue
		fi
		no_sanitizer_report "$TMPD/err"
		if grep -Eq "$re" "$TMPD/err"; then
			echo "FAIL $name: perf $cmd: $(grep -E -m1 "$re" "$TMPD/err")"
			bad=$((bad + 1))
		fi
		if [ "$cmd" = "report -D" ]; then
			d=$(grep -c '^[0-9].* PERF_RECORD_CALLCHAIN_DEFERRED' "$TMPD/out" || true)
			if [ "$d" != "$recs" ]; then
				echo "FAIL $name: perf report -D dumps $d records, --stats counts $recs"
				bad=$((bad + 1))
			fi
		fi
	done
	echo "ok   $name: report --tasks, report -D ($recs records dumped), buildid-list"
done
[ "$n" -gt 0 ] || fail "no *_defer recordings in $FIX/data"
[ "$bad" = 0 ] || fail "$bad problems"
