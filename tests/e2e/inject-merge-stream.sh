#!/bin/bash
# inject-merge-stream: `perf inject --merge-callchains` writes as it reads,
# with the FINISHED_ROUNDs of its output where they belong.
#
# It must order events to merge them, and perf inject's FINISHED_ROUND
# handler used to copy each round out as it came, flushing nothing: the
# whole input was held to the end, every round of the output came before
# its first sample, and whatever read the output held all of it too, so
# `perf record -o - | perf inject --merge-callchains -o - | ...` stalled.
#
# Generated pipe (tests/tools/gen_perfdata.py): 40 threads on 4 CPUs, a
# round every 256 events, a fifth of the records in another CPU's buffer
# (they come a round or more after their samples) and some samples taken
# after their record.  Checked on the output of perf inject, from a pipe
# to a pipe:
#   - its rounds are spread over its samples: some before a tenth of them,
#     some after nine tenths (so it was written as the input was read;
#     before, every round came before the first sample);
#   - it is in time order: perf script of it finds no event out of order
#     (the merged samples are written at their own time, not at their
#     record's, and the rounds after the events they flush);
#   - it has every sample of the input.
# And off-CPU: 50 threads blocked in read() from the start, their records
# at the end, with a window of 64 KiB (call-graph.defer-window-bytes) that
# they wait past: perf inject writes each of them at its record, merged,
# behind later events (in its output's file order, perf script
# --dump-unsorted-raw-trace, the 50 samples of the blocked threads and no
# other come after a sample taken later, and perf script shows the 50 with
# user frames; perf inject says nothing on stderr: before v6 it said "50
# samples ... were shown out of time order"), and writes no round while
# one waits, for at most the window's bytes of output.  On a stream of
# 600 samples (150 KB) the records
# come within it: what reads the output gets every event in time order
# (with the rounds written: "50 out of order events recorded").  On 20000
# samples they do not: the rounds go on after the window, so that what
# reads the output holds no more than it, and it counts the 50 as out of
# order.
. "$(dirname "$0")/../lib.sh"

GEN=$TOP/tests/tools/gen_perfdata.py
[ -x "$PERF" ] || skip "no perf binary at $PERF"
cd "$TMPD"

python3 "$GEN" -o in.pipe --mode pipe --samples 20000 --threads 40 --cpus 4 --per-entry 4 \
	--round-events 256 --migrate 0.2 --late 0.05 --dso-path /fixtures/bin/mt_syscalls \
	> gen.json || fail "generator failed"
"$PERF" inject --merge-callchains -i - -o - < in.pipe > out.pipe 2> inject.err ||
	fail "perf inject --merge-callchains failed: $(head -3 inject.err)"
no_sanitizer_report inject.err

# the positions of the rounds among the samples: "SAMPLES ROUNDS FIRST LAST",
# FIRST and LAST the samples written before the first and the last round
"$PERF" report -D -i - < out.pipe 2> dump.err |
	awk '/ PERF_RECORD_SAMPLE/ { n++ }
	     / PERF_RECORD_FINISHED_ROUND/ { if (!r++) first = n; last = n }
	     END { print n + 0, r + 0, first + 0, last + 0 }' > rounds.txt
read -r samples rounds first last < rounds.txt
echo "output: $samples samples, $rounds rounds, the first after $first samples, the last after $last"
[ "$rounds" -gt 10 ] || fail "$rounds rounds in the output"
[ $((first * 10)) -lt "$samples" ] ||
	fail "the first round of the output comes after $first of $samples samples"
[ $((last * 10)) -gt $((samples * 9)) ] ||
	fail "the last round of the output comes after $last of $samples samples: not written as read"

in=$("$PERF" report --stats -i - < in.pipe 2> /dev/null | awk '/SAMPLE events:/ { print $3; exit }')
[ "$samples" = "$in" ] || fail "$samples samples out of perf inject, $in in"

"$PERF" script -i - < out.pipe > script.txt 2> script.err || fail "perf script of the output failed"
no_sanitizer_report script.err
if grep -i "out of order" script.err; then
	fail "perf script finds events out of order in perf inject's output"
fi

printf '[call-graph]\n\tdefer-window-bytes = 65536\n' > window.cfg
for n in 600 20000; do
	python3 "$GEN" -o off$n.pipe --mode pipe --samples $n --threads 8 --cpus 2 --per-entry 1 \
		--round-events 32 --blocked 50 --dso-path /fixtures/bin/mt_syscalls > off$n.json ||
		fail "generator failed (off-CPU, $n samples)"
	read -r lo hi < <(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["scenarios"]["blocked"]; print(b["first_tid"], b["last_tid"])' off$n.json)
	PERF_CONFIG=window.cfg "$PERF" inject --merge-callchains -i - -o - < off$n.pipe \
		> off$n.out 2> off$n.err ||
		fail "perf inject --merge-callchains failed (off-CPU, $n samples): $(head -3 off$n.err)"
	no_sanitizer_report off$n.err
	! grep -Ei 'deferred|defer-window' off$n.err ||
		fail "perf inject warns about deferred callchains (off-CPU, $n samples)"
	# the blocked samples, written at their record: "SAMPLES-AFTER-LATER
	# OF-THE-BLOCKED" in the output's file order
	"$PERF" script --dump-unsorted-raw-trace -i - < off$n.out 2> off$n.dump.err |
		awk -v lo="$lo" -v hi="$hi" '/ PERF_RECORD_SAMPLE/ {
			t = $1 + 0; split($6, a, "/"); tid = a[2] + 0
			if (t < max) { n++; if (tid >= lo && tid <= hi) b++ } else max = t
		     } END { print n + 0, b + 0 }' > off$n.late
	read -r late blocked < off$n.late
	[ "$late" = 50 ] && [ "$blocked" = 50 ] ||
		fail "the blocked samples were not written at their record ($n samples): $late samples after a later one in the output, $blocked of the blocked threads, want 50 50"
	"$PERF" script -F tid,ip -i - < off$n.out > off$n.txt 2> off$n.script.err ||
		fail "perf script of the output failed (off-CPU, $n samples)"
	no_sanitizer_report off$n.dump.err off$n.script.err
	# merged: each with its user frames
	merged=$(awk -v lo="$lo" -v hi="$hi" '/^[^\t]/ { tid = /DEFERRED CALLCHAIN/ ? -1 : $1 + 0; next }
		/^\t/ && $1 !~ /^ffff/ && tid >= lo && tid <= hi { u[tid] = 1 }
		END { print length(u) }' off$n.txt)
	[ "$merged" = 50 ] ||
		fail "$merged of the 50 blocked threads' samples have user frames in perf inject's output ($n samples)"
	echo "ok   off-CPU, $n samples: the 50 blocked samples written at their record, merged"
done
if grep -i "out of order" off600.script.err; then
	fail "perf script finds events out of order in perf inject's output of the off-CPU stream"
fi
grep -q "^50 out of order events recorded" off20000.script.err ||
	fail "past the window, perf inject's output kept its rounds back: $(grep -i order off20000.script.err)"
echo "off-CPU: the 50 samples written past the window read back in time order within the window, counted past it"
echo "inject --merge-callchains streams: ok"
