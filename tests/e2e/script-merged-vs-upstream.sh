#!/bin/bash
# script-merged-vs-upstream: on every real recording with deferred user
# callchains, our merged 'perf script' (the default) gives every sample its
# full chain, in time order, and agrees with upstream perf 7.2.
#
# tests/tools/check_merged.py builds each sample's expected chain from
# upstream's --no-merge-callchains output alone (kernel frames, then the
# frames of the record with the same tid and cookie, wherever it is), and
# checks, per sample (tid, time, event):
#   - ours has the expected frames (addresses, repeats collapsed);
#   - ours has upstream's merged frames wherever upstream merged (upstream
#     prints the cookie as a fake "[unknown]" frame where it did not);
#   - the samples upstream left unmerged because they were taken after
#     their own record ("late") are merged by us, and the counts of samples
#     whose record comes after / before / never match the independent
#     count in analysis/NAME.stats.json (samples_matched,
#     unmatched_samples_taken_AFTER_their_cookies_record,
#     unmatched_samples_whose_cookie_never_appears);
#   - no cookie is printed as a frame, 0 timestamp inversions,
#     samples out = samples in.
. "$(dirname "$0")/../lib.sh"

S=$(symroot)
bad=0
n=0
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	# shellcheck disable=SC2086 # $S is a list of options
	if ! "$PERF" script $S -i "$data" > "$TMPD/$name.txt" 2> "$TMPD/$name.err"; then
		echo "FAIL $name: perf script failed: $(head -3 "$TMPD/$name.err")"
		bad=$((bad + 1))
		continue
	fi
	# an ASan/UBSan build reports on stderr
	if grep -E 'runtime error|Sanitizer' "$TMPD/$name.err"; then
		echo "FAIL $name: sanitizer report"
		bad=$((bad + 1))
		continue
	fi
	if grep -q '(cookie)' "$TMPD/$name.txt"; then
		echo "FAIL $name: a cookie is printed in the merged output"
		bad=$((bad + 1))
		continue
	fi
	upstream "$name" script > "$TMPD/$name.up"
	upstream "$name" script-no-merge > "$TMPD/$name.up-raw"
	# samples shown after a later one (past their reorder window)
	ooo=$(out_of_order "$TMPD/$name.txt")
	if out=$(python3 "$TOP/tests/tools/check_merged.py" --out-of-order "$ooo" "$TMPD/$name.txt" \
		 "$TMPD/$name.up" "$TMPD/$name.up-raw" "$FIX/analysis/$name.stats.json"); then
		echo "ok   $name: ${out#check_merged: }"
	else
		echo "FAIL $name: $out"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no *_defer recordings in $FIX/data"
[ "$bad" = 0 ] || fail "$bad of $n recordings differ"
echo "all $n recordings agree"
