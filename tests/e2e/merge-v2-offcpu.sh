#!/bin/bash
# merge-v2-offcpu: off-CPU profiling, where a blocked task's record comes
# seconds later or never (merge v2).
#
# Generated file (tests/tools/gen_perfdata.py --blocked): 1000 threads each
# take one kernel-mode sample early (in __schedule under read()) and block;
# their records come only at the very end, 2 s of stream time after all the
# other traffic (4 threads' ordinary sample/record pairs); 5 % of them never
# get one.  Expected, with the default window (call-graph.defer-window-bytes
# 8 MiB: the blocked samples hold perf's queue, which holds the 6000 other
# samples and records behind them, about 0.7 MB of entries, until their
# records come) and with a 64 KiB window (which the queue passes: the
# blocked samples leave it, the other events flow on):
#   - every blocked sample with a record is merged (upstream perf merges
#     them too: same frames, sample by sample); the others without user
#     part, no cookie printed;
#   - within the window, every sample in time order but those of a
#     process's first kernel entry after its exec (delivered at their
#     record, like the exec's own), none said to be past the window;
#   - past the window, the blocked samples printed at their record, after
#     all the other samples (which were not held behind them): perf
#     script's warning counts them as shown out of time order;
#   - samples out = samples in; the --stats counters are the independent
#     count (deferred_stats.py, through the generator's summary).
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
! grep -q 'past call-graph.defer-window-bytes' default.err ||
	{ echo "FAIL default: $(grep -B1 'past call-graph' default.err)"; bad=$((bad + 1)); }
printf '[call-graph]\n\tdefer-window-bytes = 65536\n' > small.cfg
run small-window "$TMPD/small.cfg" --at-record-upto "$woke" --out-of-order 1
[ "$bad" = 0 ] || fail "$bad of 2 runs wrong"
echo "off-CPU: all ok"
