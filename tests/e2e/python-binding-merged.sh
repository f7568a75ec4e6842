#!/bin/bash
# python-binding-merged: a Python program that reads a perf.data file with
# perf's Python binding (perf.session(perf.data(FILE), sample=cb)) gets every
# sample of every real deferring recording with its merged callchain: the
# same samples, in the same order, with the same callchain IPs as perf script
# prints (-F tid,time,ip --ns, or -F tid,ip without time).
#
# tests/tools/py_binding_dump.py dumps what the binding gives, one line per
# sample, tests/tools/script_callchains.py turns perf script's output into
# the same lines.  Fails without the series' choice in the binding (the
# session's default fails at the first PERF_RECORD_CALLCHAIN_DEFERRED: "this
# tool did not choose", process_events() raises -22) and without the merged
# callchain handed to the binding's sample (user frames missing: the
# binding parses the event again, whose callchain ends at the cookie).
# Skipped without libpython or the binding beside $PERF (python/), and under
# the sanitizers (the extension is not loaded by an instrumented python).
. "$(dirname "$0")/../lib.sh"

"$PERF" version --build-options | grep -Eq 'libpython: +\[ on' ||
	skip "perf is built without libpython"
PYDIR=$(dirname "$PERF")/python
ls "$PYDIR"/perf*.so > /dev/null 2>&1 || skip "no Python binding in $PYDIR"
[ -z "${PERF_DEFER_SANITIZER:-}" ] || skip "the binding is not loaded under the sanitizers"
TOOLS=$TOP/tests/tools
bad=0 n=0
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	o=$TMPD/$name
	PYTHONPATH=$PYDIR python3 "$TOOLS/py_binding_dump.py" "$data" > "$o.py" 2> "$o.py.err" ||
		fail "$name: the binding failed: $(tail -2 "$o.py.err")"
	# (per-thread recordings have no time)
	{ "$PERF" script -F tid,time,ip --ns -i "$data" 2> /dev/null ||
	  "$PERF" script -F tid,ip -i "$data" 2> /dev/null; } < /dev/null |
		python3 "$TOOLS/script_callchains.py" > "$o.script"
	[ -s "$o.script" ] || fail "$name: perf script printed no sample"
	total=$(wc -l < "$o.script")
	user=$(awk '{ for (i = 3; i <= NF; i++) if (length($i) < 16) { n++; break } } END { print n + 0 }' "$o.py")
	if cmp -s "$o.py" "$o.script"; then
		echo "ok   $name: $total samples, $user with user frames, as perf script"
	else
		echo "FAIL $name: the binding's samples differ from perf script's:"
		diff "$o.script" "$o.py" | head -4 | cut -c1-160
		bad=$((bad + 1))
	fi
done
[ "$n" -ge 13 ] || fail "only $n deferring recordings"
[ "$bad" = 0 ] || fail "$bad of $n recordings"
echo "PASS: $n recordings, the binding's samples and callchains are perf script's"
