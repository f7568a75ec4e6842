#!/bin/bash
# long-entry: one kernel entry sampled 80000 times, the worst realistic case
# of samples sharing one cookie (a 20 s system call sampled at 4 kHz, or a
# vCPU thread in KVM_RUN): they all wait for one record.
#
# Generated file and pipe (tests/tools/gen_perfdata.py --per-entry 80000):
# one thread, 80000 kernel-mode samples in one kernel entry, its record at
# the end.  Expected, for the file and the same data as a pipe: every
# sample merged with upstream perf's frames (sample by sample), samples
# out = samples in, no warning on stderr (nothing went past the memory
# bound: the samples that leave the reorder window, 80000 x ~230 bytes
# here, may take four times call-graph.defer-window-bytes), and the
# --stats counters of the independent count (deferred_stats.py).  The
# generator starts each process with an exec (COMM|EXEC, like 'perf record
# -- workload'), and the entry comes within the window of it, so it is
# taken for the exec's own and its samples wait alone at once; with
# call-graph.defer-window-bytes = 0 it is not, and the samples leave the queue
# as it fills: the same output is expected (the samples that left the queue
# go back in the order they were taken).  With a bound under four times
# (the 6.12 series before its merge v3): 3775 samples without user part,
# "more than call-graph.defer-window-bytes were held for them"; the 6.12
# series' merge v2 takes 54 s on it (quadratic in the samples of one entry);
# how the time grows with the
# samples is measured by tests/bench/targets.sh.
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

args=(--dso-path /fixtures/bin/mt_syscalls --samples 80000 --threads 1 --per-entry 80000
      --user-frac 0 --cpus 1 --seed 1)
python3 "$GEN" -o long.data "${args[@]}" > long.json || fail "generator failed"
python3 "$GEN" -o long.pipe --mode pipe "${args[@]}" > /dev/null || fail "generator failed (pipe)"

# shellcheck disable=SC2086 # $S is a list of options
[ ${#UPOPT[@]} = 0 ] || "$UP" script --no-inline $S -i long.data > up.txt 2> up.err ||
	fail "upstream perf script failed: $(head -3 up.err)"
# shellcheck disable=SC2086
"$PERF" script $S -i long.data > ours.txt 2> ours.err || fail "perf script failed: $(head -3 ours.err)"
# shellcheck disable=SC2086
"$PERF" script $S -i - < long.pipe > pipe.txt 2> pipe.err ||
	fail "perf script of the pipe failed: $(head -3 pipe.err)"
"$PERF" report --stats -i long.data > stats.txt 2> stats.err ||
	fail "perf report --stats failed: $(head -3 stats.err)"
printf '[call-graph]\n\tdefer-window-bytes = 0\n' > window0.cfg
# shellcheck disable=SC2086
PERF_CONFIG=window0.cfg "$PERF" script $S -i long.data > window0.txt 2> window0.err ||
	fail "perf script with defer-window-bytes = 0 failed: $(head -3 window0.err)"
no_sanitizer_report ours.err pipe.err stats.err window0.err
[ -s window0.err ] && fail "perf script with defer-window-bytes = 0 warned: $(head -5 window0.err)"
cmp -s ours.txt window0.txt || fail "perf script with defer-window-bytes = 0 prints another order or other frames"
[ -s ours.err ] && fail "perf script warned: $(head -5 ours.err)"
[ -s pipe.err ] && fail "perf script of the pipe warned: $(head -5 pipe.err)"
# a pipe has no event names: perf names the event with its modifiers there
sed 's/cpu-clock:HG:/cpu-clock:/' pipe.txt | cmp -s ours.txt - ||
	fail "perf script prints the pipe differently from the file"
out=$(python3 "$CHECK" --gen long.json --data long.data --ours ours.txt "${UPOPT[@]}" \
	--stats stats.txt) || fail "$out"
echo "$out"
echo "long entry: ok"
