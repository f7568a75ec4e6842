#!/bin/bash
# read-perf72-nodefer.sh - perf reads the perf 7.2 recordings that have no
# deferred callchains (*_nodefer, st_g_default: 144-byte attrs, header
# features this perf does not know) as upstream perf 7.2 did:
#  - 'perf script' prints every sample with the same header and the same
#    callchain addresses (tests/tools/frames.py: the symbol text differs
#    where 7.2 shows inlined frames or picks another alias);
#  - 'perf inject' copies the file, and 'perf script' on the copy prints
#    what upstream printed on its own copy (upstream-7.2/*.inject.script).
. "$(dirname "$0")/../lib.sh"

syms=$(symroot)
bad=0
compare() { # name ours upstream-kind
	upstream "$1" "$3" > "$TMPD/upstream"
	python3 "$TOP/tests/tools/frames.py" "$2" "$TMPD/upstream" || bad=$((bad + 1))
}
for f in "$FIX"/data/*_nodefer.data "$FIX"/data/st_g_default.data; do
	name=$(basename "$f" .data)
	echo "== $name"
	if ! "$PERF" script $syms -i "$f" > "$TMPD/$name.ours" 2> "$TMPD/err"; then
		cat "$TMPD/err"
		echo "$name: perf script failed"
		bad=$((bad + 1))
		continue
	fi
	compare "$name" "$TMPD/$name.ours" script

	echo "== $name, perf inject"
	if ! "$PERF" inject -i "$f" -o "$TMPD/$name.inject" 2> "$TMPD/err" ||
	   ! "$PERF" script $syms -i "$TMPD/$name.inject" > "$TMPD/$name.ours" 2> "$TMPD/err"; then
		cat "$TMPD/err"
		echo "$name: perf inject, or perf script on its output, failed"
		bad=$((bad + 1))
		continue
	fi
	compare "$name" "$TMPD/$name.ours" inject.script
done
[ $bad = 0 ] || fail "$bad check(s) failed"
