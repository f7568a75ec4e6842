#!/bin/bash
# fuzz-regressions: perf survives every input kept in tests/fuzz/regressions/
# (minimised fuzzer finds, and crafted inputs of the same kind): perf script
# (merged and --no-merge-callchains), perf report --stats and perf report
# --header-only -I (the header features' print) are not killed
# by a signal and, under check-asan, write no sanitizer report.  Their exit
# status is not checked: a broken file may well be refused.
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "no perf binary at $PERF"
printf 'ffffffff81000000 T _stext\n' > "$TMPD/ks.txt"
n=0
for f in "$TOP"/tests/fuzz/regressions/*.data; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	for args in "script" "script --no-merge-callchains" "report --stats" \
		    "report --header-only -I"; do
		rc=0
		# shellcheck disable=SC2086 # $args is a list
		timeout 120 "$PERF" $args --kallsyms="$TMPD/ks.txt" -i "$f" > /dev/null \
			2> "$TMPD/err" || rc=$?
		no_sanitizer_report "$TMPD/err"
		[ $rc != 124 ] || fail "$name: perf $args runs over 120 s"
		if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
			fail "$name: perf $args killed by signal $((rc - 128)): $(tail -3 "$TMPD/err")"
		fi
	done
	echo "ok   $name"
done
[ $n -gt 0 ] || skip "no inputs in tests/fuzz/regressions"
echo "fuzz-regressions: $n inputs ok"
