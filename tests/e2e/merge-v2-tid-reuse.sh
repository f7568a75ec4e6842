#!/bin/bash
# merge-v2-tid-reuse: a tid reused by a new thread (merge v2).
#
# Generated file (tests/tools/gen_perfdata.py --tid-reuse): a thread makes
# three syscalls (two samples each) and exits; in per-CPU style the record
# of its last syscall comes right after its EXIT.  2 s of stream time later
# a new thread gets the same tid (FORK, COMM) and makes three syscalls whose
# records come normally.  Two other threads make ordinary sample/record
# pairs.  Expected: every sample of both threads merged (upstream perf's
# frames, sample by sample; where upstream names the first thread
# ":TID" because it resolved the sample after the EXIT, ours names it),
# in time order ("delivered out of time order" = 0), samples out = samples
# in, and the --stats counters of the independent count (deferred_stats.py).
# Today's series keeps the exited thread in its hash and drops the new
# thread's samples unmatched.
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

python3 "$GEN" -o reuse.data --dso-path /fixtures/bin/mt_syscalls --samples 2000 --threads 2 \
	--cpus 2 --per-entry 2 --tid-reuse > reuse.json || fail "generator failed"

# shellcheck disable=SC2086 # $S is a list of options
[ ${#UPOPT[@]} = 0 ] || "$UP" script --no-inline $S -i reuse.data > up.txt 2> up.err || fail "upstream perf script failed: $(head -3 up.err)"
# shellcheck disable=SC2086
"$PERF" script $S -i reuse.data > ours.txt 2> ours.err || fail "perf script failed: $(head -3 ours.err)"
"$PERF" report --stats -i reuse.data > stats.txt 2> stats.err || fail "perf report --stats failed: $(head -3 stats.err)"
no_sanitizer_report ours.err stats.err
out=$(python3 "$CHECK" --gen reuse.json --data reuse.data --ours ours.txt "${UPOPT[@]}" \
	--stats stats.txt --out-of-order 0) || fail "$out"
echo "$out"
echo "tid reuse: ok"
