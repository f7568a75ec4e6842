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
# and headers for every sample, the new program's symbols, the 3 samples
# delivered at their record, after the exec (perf script --show-task-events
# --ns shows exactly these 3 after the exec's COMM, which was taken after
# them: no other sample of the file lies between them and their record, so
# among the samples alone they are in time order), the other samples in
# time order, samples out = samples in, and the --stats counters of the
# independent count (deferred_stats.py).  Since v6 perf script prints no
# warning about samples shown after their exec (before, it said so and
# named the exec, not the reorder window, as the reason): it must print no
# deferred warning at all, in particular none that blames the window.
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
	--stats stats.txt --late-pid "$pid") || fail "$out"
echo "$out"
# delivered at their record, after the exec: the samples shown after an
# event (the exec's COMM) taken later than them are the exec's
# shellcheck disable=SC2086
"$PERF" script $S --ns -F tid,time,event --show-task-events -i exec.data > events.txt \
	2> events.err || fail "perf script --show-task-events failed: $(head -3 events.err)"
no_sanitizer_report events.err
n=$(out_of_order events.txt)
[ "$n" = "$nexec" ] ||
	fail "perf script --show-task-events shows $n samples after an event taken later, want the $nexec taken in execve (after its COMM)"
echo "ok   the $nexec samples taken in execve are shown after the exec's COMM"
# samples shown after their exec are expected: no warning (and none that
# blames the reorder window)
! grep -Ei 'deferred|defer-window' ours.err events.err ||
	fail "perf script warns about the deferred callchains of a file that lost none"
echo "exec: ok"
