#!/bin/bash
# merge-v2-exec: samples taken inside execve (merge v2).
#
# Generated file (tests/tools/gen_perfdata.py --exec): a process running
# st_syscalls makes two syscalls, execs mt_syscalls (3 samples in the exec
# path, then COMM with PERF_RECORD_MISC_COMM_EXEC and the MMAP2 of
# mt_syscalls at the same addresses as st_syscalls), and the record of
# the exec entry carries ips of mt_syscalls (a_outer, thread_a_entry), then
# makes two more syscalls; two other threads make ordinary sample/record
# pairs.  The kernel unwinds the user stack after the exec, so the right
# output names the NEW program for those 3 samples: comm mt_syscalls and
# a_outer/thread_a_entry of mt_syscalls, as upstream perf shows them.
# Resolved in the maps of the sample's time (today's series) the same
# addresses fall in st_syscalls' main: wrong.  Expected: upstream's frames
# and headers for every sample, the new program's symbols, "merged, out of
# time order" = 3 (delivered at their record, after the exec), the other
# samples in time order, samples out = samples in, and the --stats
# counters of the independent count (deferred_stats.py); perf script's
# warning names the exec as the reason.
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

python3 "$GEN" -o exec.data --dso-path /fixtures/bin/mt_syscalls --samples 2000 --threads 2 \
	--cpus 2 --per-entry 2 --exec --exec-samples 3 > exec.json || fail "generator failed"
read -r pid nexec < <(python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["scenarios"]["exec"]; print(x["pid"], x["samples_in_exec"])' exec.json)

# shellcheck disable=SC2086 # $S is a list of options
[ ${#UPOPT[@]} = 0 ] || "$UP" script --no-inline $S -i exec.data > up.txt 2> up.err || fail "upstream perf script failed: $(head -3 up.err)"
# shellcheck disable=SC2086
"$PERF" script $S -i exec.data > ours.txt 2> ours.err || fail "perf script failed: $(head -3 ours.err)"
"$PERF" report --stats -i exec.data > stats.txt 2> stats.err || fail "perf report --stats failed: $(head -3 stats.err)"
no_sanitizer_report ours.err stats.err
out=$(python3 "$CHECK" --gen exec.json --data exec.data --ours ours.txt "${UPOPT[@]}" \
	--stats stats.txt --out-of-order "$nexec" --late-pid "$pid") || fail "$out"
echo "$out"
# the series gives the reason: the exec, not the reorder window
grep -q "^order, after the exec they were taken in" ours.err ||
	fail "perf script does not say the samples taken in execve are shown after the exec: $(cat ours.err)"
! grep -q defer-window ours.err ||
	fail "perf script blames the reorder window for samples taken in execve: $(cat ours.err)"
echo "exec: ok"
