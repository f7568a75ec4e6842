#!/bin/bash
# merge-v2-no-tid: deferred samples without a thread id (merge v2).
#
# Generated file (tests/tools/gen_perfdata.py --no-tid): sample_type has TID
# but 25 kernel-mode deferred samples carry pid/tid (u32)-1, as samples of
# some kernel contexts do; no record can ever complete them.  Three other
# threads make ordinary sample/record pairs.  Expected: the 25 are
# delivered at once, in time order, with their kernel frames only (no
# cookie printed), counted as "without user callchain" and "of which
# without thread id"; every other sample merged as upstream perf merges
# it; samples out = samples in; the --stats counters of the independent
# count (deferred_stats.py).  Today's series gives them all one thread
# (tid -1) and holds every event behind them.
. "$(dirname "$0")/../lib.sh"

GEN=$TOP/tests/tools/gen_perfdata.py
CHECK=$TOP/tests/e2e/merge-v2-check.py
UP=$TOP/tests/tools/upstream-perf.sh
[ -x "$PERF" ] || skip "no perf binary at $PERF"
UPOPT=()
if "$UP" --available 2> /dev/null; then UPOPT=(--up up.txt)
else echo "note: upstream perf $UPV not cached (tests/tools/upstream-perf.sh --setup): not compared with it"
fi
S=$(symroot)
cd "$TMPD"

python3 "$GEN" -o notid.data --dso-path /fixtures/bin/mt_syscalls --samples 3000 --threads 3 \
	--cpus 2 --per-entry 2 --no-tid 25 > notid.json || fail "generator failed"

# shellcheck disable=SC2086 # $S is a list of options
[ ${#UPOPT[@]} = 0 ] || "$UP" script --no-inline $S -i notid.data > up.txt 2> up.err || fail "upstream perf script failed: $(head -3 up.err)"
# shellcheck disable=SC2086
"$PERF" script $S -i notid.data > ours.txt 2> ours.err || fail "perf script failed: $(head -3 ours.err)"
"$PERF" report --stats -i notid.data > stats.txt 2> stats.err || fail "perf report --stats failed: $(head -3 stats.err)"
no_sanitizer_report ours.err stats.err
out=$(python3 "$CHECK" --gen notid.json --data notid.data --ours ours.txt "${UPOPT[@]}" \
	--stats stats.txt --out-of-order 0) || fail "$out"
echo "$out"
echo "no tid: ok"
