#!/bin/bash
# script-no-merge-vs-upstream: 'perf script --no-merge-callchains' shows
# samples and PERF_RECORD_CALLCHAIN_DEFERRED records as recorded, the way
# upstream perf 7.2 does ("<cookie> (cookie)" as a sample's last frame,
# "DEFERRED CALLCHAIN [cookie: <hex>]" then the record's user frames), on
# every real recording, with and without deferred callchains: the same
# blocks in the same order, the same header lines and frame addresses
# (tests/tools/frames.py; 7.2's extra inline frames and other symbol
# aliases are not compared).
. "$(dirname "$0")/../lib.sh"

S=$(symroot)
bad=0
n=0
for data in "$FIX"/data/*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	# shellcheck disable=SC2086 # $S is a list of options
	if ! "$PERF" script $S --no-merge-callchains -i "$data" > "$TMPD/$name.txt" \
		2> "$TMPD/$name.err"; then
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
	upstream "$name" script-no-merge > "$TMPD/$name.up"
	# frames.py compares addresses: check that cookies print as such
	ours=$(grep -Ec '^\s+[0-9a-f]+ \(cookie\)' "$TMPD/$name.txt" || true)
	theirs=$(grep -Ec '^\s+[0-9a-f]+ \(cookie\)' "$TMPD/$name.up" || true)
	if [ "$ours" != "$theirs" ]; then
		echo "FAIL $name: $ours '(cookie)' frames, upstream $theirs"
		bad=$((bad + 1))
		continue
	fi
	if out=$(python3 "$TOP/tests/tools/frames.py" "$TMPD/$name.txt" "$TMPD/$name.up"); then
		echo "ok   $name: ${out#frames.py: }, $ours cookies"
	else
		echo "FAIL $name: $out"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no recordings in $FIX/data"
[ "$bad" = 0 ] || fail "$bad of $n recordings differ"
echo "all $n recordings agree"
