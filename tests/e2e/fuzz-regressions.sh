#!/bin/bash
# fuzz-regressions: perf survives every input kept in tests/fuzz/regressions/
# (minimised fuzzer finds, and crafted inputs of the same kind): perf script
# (merged and --no-merge-callchains), perf report --stats, perf report
# --header-only -I (the header features' print), perf report -D (every
# record's dump) and perf stat report (the records of perf stat record:
# maps, STAT_CONFIG, STAT, STAT_ROUND) are not killed
# by a signal and, under check-asan, write no sanitizer report.  Their exit
# status is not checked: a broken file may well be refused.
# With valgrind installed (and not under check-asan), perf script, merged
# (and --no-merge-callchains where the input has records 22 that --stats
# counts), also runs under valgrind's memcheck and must make no error
# (invalid read or write, use of uninitialised values) on the inputs the
# series fix (VGFIXED: fork-same-tid, whose FORK made threads__remove()
# put an uninitialized pointer): the series do not harden the rest of
# the base (short records, header features...), which upstream perf
# lacks too.
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "no perf binary at $PERF"
printf 'ffffffff81000000 T _stext\n' > "$TMPD/ks.txt"
VALGRIND= vgn=0 VGFIXED="fork-same-tid.data"
if [ -z "${PERF_DEFER_SANITIZER:-}" ] && command -v valgrind > /dev/null; then
	VALGRIND=valgrind
fi
n=0
for f in "$TOP"/tests/fuzz/regressions/*.data; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	ks=--kallsyms="$TMPD/ks.txt"
	for args in "script $ks" "script --no-merge-callchains $ks" "report --stats $ks" \
		    "report --header-only -I $ks" "report -D $ks" "stat report"; do
		rc=0
		# shellcheck disable=SC2086 # $args is a list
		timeout 120 "$PERF" $args -i "$f" > "$TMPD/out" 2> "$TMPD/err" || rc=$?
		[ "$args" != "report --stats $ks" ] || cp "$TMPD/out" "$TMPD/stats"
		no_sanitizer_report "$TMPD/err"
		[ $rc != 124 ] || fail "$name: perf $args runs over 120 s"
		if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
			fail "$name: perf $args killed by signal $((rc - 128)): $(tail -3 "$TMPD/err")"
		fi
	done
	if [ -n "$VALGRIND" ] && [[ " $VGFIXED " == *" $name "* ]]; then
		# (--no-merge-callchains reads a file as merging does, but for
		# the records 22: where --stats counts none, it adds nothing)
		modes=("script")
		grep -Eq 'CALLCHAIN_DEFERRED events: +[1-9]' "$TMPD/stats" &&
			modes+=("script --no-merge-callchains")
		for args in "${modes[@]}"; do
			rc=0
			# shellcheck disable=SC2086 # $args is a list
			timeout 300 valgrind -q --leak-check=no --error-exitcode=99 \
				"$PERF" $args --kallsyms="$TMPD/ks.txt" -i "$f" \
				> /dev/null 2> "$TMPD/vg" || rc=$?
			if [ $rc = 99 ]; then
				fail "$name: valgrind: perf $args: $(grep -m1 -A4 '^==[0-9]*== [A-Z]' "$TMPD/vg")"
			fi
			[ $rc != 124 ] || fail "$name: perf $args under valgrind runs over 300 s"
		done
		vgn=$((vgn + 1))
	fi
	echo "ok   $name"
done
[ $n -gt 0 ] || skip "no inputs in tests/fuzz/regressions"
echo "fuzz-regressions: $n inputs ok${VALGRIND:+, $vgn of them valgrind clean}"
