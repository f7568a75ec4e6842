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
#     record, like the exec's own: 2 shown after a sample taken later);
#   - past the window, the blocked samples printed at their record, after
#     all the other samples (which were not held behind them), and those
#     whose record never came at the end: all 1000 are shown after a
#     sample taken later (perf script's output; since v6 of the merge perf
#     says nothing about the time order on stderr);
#   - no warning about deferred callchains in either run: the 50 samples
#     without record are their tasks' latest kernel entries, which is not
#     a loss ("of them, lost" = 0), and the window is no reason to warn;
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
# no deferred warning (v6 warns of lost records only; before, of samples
# past the window too)
no_warning() {
	! grep -E 'deferred|CALLCHAIN_DEFERRED|defer-window' "$1.err" "$1.stats.err" ||
		{ echo "FAIL $1: warns about deferred callchains"; bad=$((bad + 1)); }
}
run default /dev/null --data=off.data --at-record-upto "$woke"
no_warning default
printf '[call-graph]\n\tdefer-window-bytes = 65536\n' > small.cfg
# every blocked sample comes after the other samples: the merged ones at
# their record, the others at the end
run small-window "$TMPD/small.cfg" --at-record-upto "$woke" --out-of-order $((last - first + 1))
no_warning small-window
[ "$bad" = 0 ] || fail "$bad of 2 runs wrong"
echo "off-CPU: all ok"
