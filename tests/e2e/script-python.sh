#!/bin/bash
# script-python: Python scripts run by perf script see merged deferred user
# callchains, and with --no-merge-callchains the records as documented in
# perf-script-python(1) (the series' last perf script patch).
#
# On every real recording with deferral (tests/tools/py_dump.py dumps what a
# script gets, tests/tools/py_script_check.py checks it):
#   1. `perf script -s`: process_event() gets every sample (analysis/
#      NAME.stats.json), with the callchain perf script prints
#      (-F tid,time,ip --ns, or -F tid,ip without time), user frames after kernel frames, in >= 99 % of
#      the samples that have a user part (100 % of the workload's samples
#      in mt_defer), naming the workload's functions; no record, no
#      deferred_cookie;
#   2. `perf script --no-merge-callchains -s`: each deferred sample has
#      "deferred_cookie" and its kernel frames only (no cookie frame), each
#      record reaches callchain_deferred(param_dict) with its user frames,
#      and joining the two by (tid, cookie) gives the merged callchains of
#      1.; a script without callchain_deferred() gets a warning on stderr
#      that says how many records it did not see.
# On mt_defer and long_defer, as perf.data in a directory, symbolised through
# a build-id cache in $HOME (the report scripts run `perf script` again,
# without --symfs):
#   3. `perf script report gecko --save-only FILE` (Firefox Profiler
#      format): >= 99 % of the workload's samples have user frames, at the
#      root of the stack, named (thread_a_entry, main...);
#   4. `perf script report flamegraph -f json -o FILE` (d3-flame-graph
#      data; the HTML output needs d3-flame-graph's template): the same.
#      As `perf script report flamegraph -- -f json -o FILE`: perf 7.x's
#      flamegraph-report passes its arguments to perf script without a
#      "--", and perf script would take -f as its own --force.
#
# Skipped if perf is built without libpython.  The test can fail: perf
# before the series' script patch prints the records on stdout between the
# script's output and passes the cookie to scripts as a frame (2. fails),
# and without the merge 1., 3. and 4. fail.
. "$(dirname "$0")/../lib.sh"

"$PERF" version --build-options | grep -Eq 'libpython: +\[ on' ||
	skip "perf is built without libpython"
S=$(symroot)
TOOLS=$TOP/tests/tools
CHECK=$TOOLS/py_script_check.py
bad=0
n=0

# dump NAME OUT [OPTIONS]: tests/tools/py_dump.py's view of recording NAME
dump() {
	local name=$1 out=$2
	shift 2
	# shellcheck disable=SC2086 # $S is a list of options
	"$PERF" script $S "$@" -i "$FIX/data/$name.data" -s "$TOOLS/py_dump.py" -- "$out" \
		> "$out.out" 2> "$out.err" < /dev/null
}

for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	o=$TMPD/$name
	stats=$FIX/analysis/$name.stats.json
	dump "$name" "$o.merged" || fail "$name: perf script -s failed: $(tail -3 "$o.merged.err")"
	[ ! -s "$o.merged.out" ] || fail "$name: perf script -s printed: $(head -3 "$o.merged.out")"
	# shellcheck disable=SC2086 # (per-thread recordings have no time)
	"$PERF" script $S -F tid,time,ip --ns -i "$data" > "$o.txt" 2> /dev/null < /dev/null ||
	"$PERF" script $S -F tid,ip -i "$data" > "$o.txt" 2> /dev/null < /dev/null ||
		fail "$name: perf script failed"
	if r=$(python3 "$CHECK" merged "$o.merged" "$o.txt" "$stats"); then
		echo "ok   $name merged: $r"
	else
		echo "FAIL $name merged: $r"
		bad=$((bad + 1))
	fi
	dump "$name" "$o.raw" --no-merge-callchains ||
		fail "$name: perf script --no-merge-callchains -s failed: $(tail -3 "$o.raw.err")"
	[ ! -s "$o.raw.out" ] ||
		fail "$name: perf script --no-merge-callchains -s printed: $(head -3 "$o.raw.out")"
	if r=$(python3 "$CHECK" nomerge "$o.raw" "$o.merged" "$stats"); then
		echo "ok   $name raw: $r"
	else
		echo "FAIL $name raw: $r"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no *_defer recordings in $FIX/data"

# mt_defer: every sample of the workload with its user frames
c=$(python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
print(sum(1 for e in s if any(f[0] < 0xffff800000000000 for f in e["frames"])), len(s))' \
	"$TMPD/mt_defer.merged")
[ "$c" = "1320 1320" ] || { echo "FAIL mt_defer: user frames in $c samples, want 1320 1320"; bad=$((bad + 1)); }

# a script without callchain_deferred(): told, not silently
echo 'def process_event(param_dict): pass' > "$TMPD/noop.py"
# shellcheck disable=SC2086
"$PERF" script $S --no-merge-callchains -i "$FIX/data/mt_defer.data" -s "$TMPD/noop.py" \
	> "$TMPD/noop.out" 2> "$TMPD/noop.err" < /dev/null || fail "perf script -s noop.py failed"
if grep -q '^1250 PERF_RECORD_CALLCHAIN_DEFERRED records were not$' "$TMPD/noop.err" &&
   [ ! -s "$TMPD/noop.out" ]; then
	echo "ok   no callchain_deferred(): $(grep -m1 -A1 'records were not$' "$TMPD/noop.err")"
else
	echo "FAIL no callchain_deferred(): stdout $(head -2 "$TMPD/noop.out"), stderr $(head -3 "$TMPD/noop.err")"
	bad=$((bad + 1))
fi

# 3., 4.: the report scripts, as a user runs them: perf.data in the current
# directory, perf on PATH, the scripts under PERF_EXEC_PATH (the source
# tree; an installed perf finds its own), symbols from the build-id cache
root=${S#--symfs=}
root=${root%% *}
"$PERF" buildid-cache -a "$root"/fixtures/bin/long_syscalls,"$root"/fixtures/bin/mt_syscalls ||
	fail "perf buildid-cache -a failed"
kbid=$("$PERF" buildid-list -i "$FIX/data/mt_defer.data" 2> /dev/null |
	awk '$2 == "[kernel.kallsyms]" { print $1 }')
[ -n "$kbid" ] || fail "no kernel build-id in mt_defer.data"
mkdir -p "$HOME/.debug/[kernel.kallsyms]/$kbid"
cp "$root/kallsyms.txt" "$HOME/.debug/[kernel.kallsyms]/$kbid/kallsyms"
PATH=$(dirname "$PERF"):$PATH
export PATH
export PERF_EXEC_PATH=${PERF_EXEC_PATH:-$PERF_SRC/tools/perf}
FLAME=(-f json -o flame.json)
FLAME=(-- "${FLAME[@]}")
declare -A FUNCS=([mt_defer]="thread_a_entry a_outer a_inner thread_d_entry d_outer"
		 [long_defer]="main long_outer long_read_inner fault_inner")
for name in mt_defer long_defer; do
	funcs=${FUNCS[$name]}
	w=$TMPD/report-$name
	mkdir -p "$w"
	cp "$FIX/data/$name.data" "$w/perf.data"
	if ! (cd "$w" && perf script report gecko --save-only gecko.json) \
		> "$w/gecko.log" 2>&1 < /dev/null || [ ! -s "$w/gecko.json" ]; then
		echo "FAIL $name: perf script report gecko --save-only: $(tail -3 "$w/gecko.log")"
		bad=$((bad + 1))
	elif r=$(python3 "$CHECK" gecko "$w/gecko.json" $funcs); then # (a list)
		echo "ok   $name gecko: $r"
	else
		echo "FAIL $name gecko: $r"
		bad=$((bad + 1))
	fi
	if ! (cd "$w" && perf script report flamegraph "${FLAME[@]}") \
		> "$w/flame.log" 2>&1 < /dev/null || [ ! -s "$w/flame.json" ]; then
		echo "FAIL $name: perf script report flamegraph -f json: $(tail -3 "$w/flame.log")"
		bad=$((bad + 1))
	elif r=$(python3 "$CHECK" flamegraph "$w/flame.json" $funcs); then
		echo "ok   $name flamegraph: $r"
	else
		echo "FAIL $name flamegraph: $r"
		bad=$((bad + 1))
	fi
done

[ "$bad" = 0 ] || fail "$bad checks failed"
echo "all checks passed ($n recordings)"
