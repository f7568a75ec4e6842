#!/bin/bash
# merge-v2-offcpu: off-CPU profiling, where a blocked task's record comes
# seconds later or never (merge v2).
#
# Generated file (tests/tools/gen_perfdata.py --blocked): 1000 threads each
# take one kernel-mode sample early (in __schedule under read()) and block;
# their records come only at the very end, 2 s of stream time after all the
# other traffic (4 threads' ordinary sample/record pairs); 5 % of them never
# get one.  Expected, with the default window (call-graph.defer-window-ms
# 100) and again with a 1 MiB byte window (call-graph.defer-window-bytes,
# defer-window-ms set far out of the way: the 3 MB of traffic behind the
# first blocked sample pass that window, the 1000 blocked samples held
# past it, about 500 KB, do not pass the same bound again):
#   - every blocked sample with a record is merged (upstream 7.2 merges
#     them too: same frames, sample by sample) and printed at its record,
#     after all the other samples (which were not held behind it): perf
#     script's warning counts them as shown out of time order; the others
#     without user part, no cookie printed;
#   - all other samples in time order, merged; samples out = samples in;
#   - the --stats counters are the independent count (deferred_stats.py,
#     through the generator's summary).
# The series holds samples in perf's own queue, which is bounded by time
# only: there the blocked samples still held when their records are read
# merge in place, the others at their record (at least one, counted by the
# warning); with no window (defer-window-ms = unlimited) all of them in
# place but the few of a first kernel entry after an exec, and none is said
# to have waited past the window.
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

python3 "$GEN" -o off.data --dso-path /fixtures/bin/mt_syscalls --samples 6000 --threads 4 \
	--cpus 2 --blocked 1000 --blocked-never 0.05 --blocked-delay-ms 2000 > off.json ||
	fail "generator failed"
read -r first last woke < <(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["scenarios"]["blocked"]; print(b["first_tid"], b["last_tid"], b["with_record"])' off.json)

# shellcheck disable=SC2086 # $S is a list of options
[ ${#UPOPT[@]} = 0 ] || "$UP" script --no-inline $S -i off.data > up.txt 2> up.err || fail "upstream perf script failed: $(head -3 up.err)"

bad=0
# run NAME [PERF_CONFIG file]
run() {
	local name=$1 cfg=${2:-/dev/null}
	# shellcheck disable=SC2086
	PERF_CONFIG=$cfg "$PERF" script $S -i off.data > "$name.txt" 2> "$name.err" ||
		{ echo "FAIL $name: perf script failed: $(head -3 "$name.err")"; bad=$((bad + 1)); return; }
	PERF_CONFIG=$cfg "$PERF" report --stats -i off.data > "$name.stats" 2> "$name.stats.err" ||
		{ echo "FAIL $name: perf report --stats failed: $(head -3 "$name.stats.err")"; bad=$((bad + 1)); return; }
	no_sanitizer_report "$name.err" "$name.stats.err"
	if out=$(python3 "$CHECK" --gen off.json --ours "$name.txt" "${UPOPT[@]}" --stats "$name.stats" \
		 --late-tids "$first-$last" "${@:3}"); then
		echo "ok   $name: $out"
	else
		echo "FAIL $name: $out"
		bad=$((bad + 1))
	fi
}
run default /dev/null --data=off.data --at-record-upto "$woke"
# no window: every blocked sample held in order until its record but
# those of a process's first kernel entry after its exec (delivered at
# their record, like the exec's own): none said to be past the window
printf '[call-graph]\n\tdefer-window-ms = unlimited\n' > nowindow.cfg
run no-window "$TMPD/nowindow.cfg" --at-record-upto "$woke"
! grep -q 'past call-graph.defer-window-ms' no-window.err ||
	{ echo "FAIL no-window: $(grep -B1 'past call-graph' no-window.err)"; bad=$((bad + 1)); }
[ "$bad" = 0 ] || fail "$bad of 2 runs wrong"
echo "off-CPU: all ok"
