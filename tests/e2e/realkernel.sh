#!/bin/bash
# realkernel: our perf records deferred user callchains on a real Linux 7.3
# kernel (tests/realkernel/run.sh boots Debian trixie-backports' 7.3.4 cloud
# kernel under qemu) and reads them back.
#
# Runs the harness, or reuses build/realkernel-7.3/out when it was made by the
# same perf binary with the same harness (tests/realkernel/run.sh --key),
# then checks, on each recording:
#  1. perf record exited 0 and did not fall back: the kernel took the bits;
#  2. the defer bits are where they belong (perf evlist -v): defer_callchain
#     on every event that samples callchains, defer_output on exactly one
#     event, the tracking one (mmap: 1; the dummy event with -a), none of
#     them in the plain fp recording;
# and, when this perf can read PERF_RECORD_CALLCHAIN_DEFERRED (it knows
# `perf script --merge-callchains`; skipped with a reason otherwise):
#  3. perf report --stats counts the SAMPLE and CALLCHAIN_DEFERRED records
#     that tests/tools/deferred_stats.py (a parser that does not use perf)
#     finds in the file, and perf record's summary says the
#     deferred samples per record it finds ("N samples, R per user
#     unwind");
#  4. raw mode (perf script --no-merge-callchains) shows every record
#     ("DEFERRED CALLCHAIN") and every sample's cookie ("(cookie)");
#  5. merged perf script: no kernel frame after a user frame, the
#     workloads' functions in caller order (check_chains.py), and user
#     frames in as many samples as the independent count says can have
#     them (samples matched with a record, or with an inline user chain),
#     3 points of slack for user chains that are only frameless glibc junk;
#     the shares are printed; samples taken in execve are not counted
#     (their user stack is not the workload's: the old program's with
#     plain fp, the new one's entry point deferred; 6 checks those);
#  6. interop: upstream perf (tests/tools/upstream-perf.sh: trixie-backports'
#     linux-perf of the base, 7.3.4) prints the same user frames for every
#     sample it merged (check_chains.py compare), and, from its side
#     (check_chains.py interop): every sample it merges we merge with the same
#     user addresses, every user frame it names we name the same (symbol and
#     object; the comm too for the exec workload, whose samples taken in execve
#     get the new program's user stack), the blocked thread's sched_switch
#     sample in read() has blocker_read <- blocker_outer (offcpu), at least one
#     exec'd sample (execer); all recordings are checked before the test fails,
#     the counts are printed;
#  7. the series' shell test (tools/perf/tests/shell/
#     record_defer_callchain.sh), run in the guest by perf test, passed;
#  8. perf sched timehist, which needs every event in time order, on the
#     sched_switch recordings (offcpu_sw, offcpu_swa): no run time wraps
#     below zero (18446744073709.xxx ms), which a blocked task's sample
#     delivered at its record, seconds late, makes; upstream perf's
#     count is printed; with -g, the blocked reads' user stacks
#     (blocker_read, the thread blocked for 3 s) are shown at least as
#     often as upstream perf shows them (it merges the blocked sample at
#     its record, seconds late: hence its wrapped run times), and at least
#     once (a window of 100 ms of recording time showed none); perf inject
#     --merge-callchains'
#     output of them reads back with no "out of order events";
#  9. live merging in the guest (live/top.txt,
#     live/trace.txt): perf top --stdio --call-graph fp,defer shows the
#     workload's sys_outer and sys_middle in its call graphs; at least 90%
#     of perf trace --call-graph fp,defer's write( lines, live and from
#     perf trace record + perf trace -i, are followed by frames through
#     sys_leaf_write.  What upstream perf does, run the same way in the
#     guest when tests/tools/upstream-perf.sh has it, is printed: its perf
#     top refuses fp,defer (its usage), its perf trace prints "(cookie)"
#     where the user frames should be.
. "$(dirname "$0")/../lib.sh"

H=$TOP/tests/realkernel
# (the base's perf keeps its own recordings: build/realkernel-7.3)
rk=realkernel-$PERF_BASE
OUT=${REALKERNEL_OUT:-$TOP/build/$rk/out}
# the shell test the harness runs in the guest: this base's
export SRC=$PERF_SRC
PY=/usr/bin/python3
UPSTREAM=$TOP/tests/tools/upstream-perf.sh
DEFER="st mt user long exit syswide perthread zstd pipe twoev offcpu_sw offcpu_swa offcpu_clk exec"
ALL="$DEFER st_nodefer"

want=$(PERF=$PERF "$H/run.sh" --key) || fail "tests/realkernel/run.sh --key failed"
if [ -f "$OUT/key" ] && [ "$(cat "$OUT/key")" = "$want" ]; then
	echo "reusing $OUT: recorded by this perf with this harness"
	cat "$OUT/walltime.txt"
else
	rc=0
	PERF=$PERF REALKERNEL_OUT=$OUT "$H/run.sh" > "$TMPD/run.log" 2>&1 || rc=$?
	cat "$TMPD/run.log"
	# qemu TCG now and then trips the guest kernel's code patching ("Oops:
	# int3" in the guest, then a panic): not ours, boot once more
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && grep -q 'Kernel panic' "$TMPD/run.log"; then
		echo "the guest kernel panicked (above): running the harness once more"
		rc=0
		PERF=$PERF REALKERNEL_OUT=$OUT "$H/run.sh" > "$TMPD/run.log" 2>&1 || rc=$?
		cat "$TMPD/run.log"
	fi
	[ "$rc" != 77 ] || skip "$(grep -m1 '^SKIP: ' "$TMPD/run.log" | sed 's/^SKIP: //')"
	[ "$rc" = 0 ] || fail "tests/realkernel/run.sh failed (rc=$rc)"
fi
echo "kernel: $(cat "$OUT/sysinfo/uname.txt")"
D=$OUT/data
SYM="--symfs=$OUT/symfs --kallsyms=$OUT/symfs/kallsyms"

# the workload a recording ran
workload() {
	awk -F'\t' -v n="$1" '$1 == n { print $4 }' "$OUT/recordings.tsv" |
		grep -o '/realkernel/bin/[a-z]*' | sed 's|.*/||'
}

# 1. recorded, without falling back
for n in $ALL; do
	rc=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' "$OUT/recordings.tsv")
	[ "$rc" = 0 ] || fail "$n: perf record exited '${rc:-not run}' in the guest (logs/$n.record.err)"
	[ -s "$D/$n.data" ] || fail "$n: no data"
	if grep -q 'cannot defer user callchains' "$OUT/logs/$n.record.err"; then
		fail "$n: perf record fell back to ordinary callchains on $(cat "$OUT/kernel.txt")"
	fi
done
echo "1. all recordings made, the kernel took the defer bits"

# 2. the bits where they belong
for n in $ALL; do
	"$PERF" evlist -v -i "$D/$n.data" > "$TMPD/$n.evlist" 2>&1 || fail "$n: perf evlist: $(cat "$TMPD/$n.evlist")"
	mode=defer
	[ "$n" != st_nodefer ] || mode=none
	awk -v mode="$mode" -v n="$n" '
	function fail(msg) { print n ": " msg ": " $0 > "/dev/stderr"; bad = 1 }
	{
		cc = /sample_type: [^,]*CALLCHAIN/; dc = /defer_callchain: 1/
		do_ = /defer_output: 1/; track = /(^|, )mmap: 1/
		if (mode == "none") { if (dc || do_) fail("defer bit in a plain fp recording"); next }
		if (cc && !dc) fail("callchain event without defer_callchain")
		if (!cc && dc) fail("defer_callchain on an event without callchains")
		if (do_) { outputs++; if (!track) fail("defer_output on an event that is not the tracking one"); out = $1 }
	}
	END {
		if (mode == "defer" && outputs != 1) { print n ": " outputs + 0 " events with defer_output, want 1" > "/dev/stderr"; bad = 1 }
		if (n == "syswide" && out !~ /^dummy/) { print n ": defer_output on " out ", want the dummy tracking event" > "/dev/stderr"; bad = 1 }
		exit bad
	}' "$TMPD/$n.evlist" || { cat "$TMPD/$n.evlist"; fail "$n: defer bits misplaced"; }
done
echo "2. defer_callchain on every callchain event, defer_output on the tracking event only"

# the rest needs a perf that reads PERF_RECORD_CALLCHAIN_DEFERRED
if "$PERF" script --merge-callchains -h 2>&1 | grep -q 'unknown option'; then
	skip "recording checks passed; $PERF cannot read PERF_RECORD_CALLCHAIN_DEFERRED yet (no perf script --merge-callchains): records, raw and merged checks not run"
fi

upstream_ok=0
iop_failed=""
per_unwind=""
: > "$TMPD/interop.txt"
if [ -x "$UPSTREAM" ]; then
	if "$UPSTREAM" --setup > "$TMPD/upstream.log" 2>&1; then upstream_ok=1
	else echo "note: no upstream perf $UPV, interop not checked: $(tail -1 "$TMPD/upstream.log")"
	fi
else
	echo "note: no $UPSTREAM, interop not checked"
fi

printf '%-11s %7s %8s %8s %9s %s\n' file samples records user-% reachable% interop
for n in $ALL; do
	w=$(workload "$n")
	f=$D/$n.data
	fields=comm,tid,time,event,ip,sym,dso
	grep -q 'sample_type: [^,]*TIME' "$TMPD/$n.evlist" || fields=comm,tid,event,ip,sym,dso
	"$PY" "$TOP/tests/tools/deferred_stats.py" "$f" --json > "$TMPD/$n.json" 2> "$TMPD/$n.json.err" ||
		fail "$n: deferred_stats.py: $(tail -3 "$TMPD/$n.json.err")"
	read -r samples records marked reach <<EOF
$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
rec = sum(v for k, v in d["record_counts"].items() if k.startswith("CALLCHAIN_DEFERRED"))
print(d["samples"], rec, d["samples_with_USER_DEFERRED"],
      (d["samples_matched"] + d["samples_with_inline_USER_ctx"]) / d["samples"])' "$TMPD/$n.json")
EOF
	if [ "$n" != st_nodefer ] && [ "$records" = 0 ]; then fail "$n: no CALLCHAIN_DEFERRED record in the file"; fi

	# 3. --stats
	"$PERF" report --stats -i "$f" > "$TMPD/$n.stats" 2>&1 || fail "$n: perf report --stats failed: $(tail -3 "$TMPD/$n.stats")"
	s=$(awk '/^ *SAMPLE events:/ { print $3; exit }' "$TMPD/$n.stats")
	r=$(awk '/^ *CALLCHAIN_DEFERRED events:/ { print $3; exit }' "$TMPD/$n.stats")
	[ "${s:-0}" = "$samples" ] || fail "$n: perf report --stats: ${s:-no} SAMPLE events, the file has $samples"
	[ "${r:-0}" = "$records" ] || fail "$n: perf report --stats: ${r:-no} CALLCHAIN_DEFERRED events, the file has $records"
	# perf record's summary (a pipe has none) stays "(N samples)", and a
	# line after it counts the records and the deferred samples
	if [ "$n" != pipe ]; then
		want=
		[ "$records" = 0 ] || want="$records $marked"
		got=$(sed -n 's/^\[ perf record: \([0-9]*\) deferred user callchains for \([0-9]*\) samples \]$/\1 \2/p' \
			"$OUT/logs/$n.record.err")
		[ "$got" = "$want" ] ||
			fail "$n: perf record says '${got:-nothing}' (records, deferred samples); the file has $records records, $marked deferred samples"
		grep -q "^\[ perf record: Captured and wrote .* ($samples samples)" "$OUT/logs/$n.record.err" ||
			fail "$n: perf record's summary does not say '($samples samples)': $(grep Captured "$OUT/logs/$n.record.err")"
		[ -z "$got" ] || per_unwind="$per_unwind $n:${got// /\/}"
	fi

	# 4. raw mode
	"$PERF" script --no-merge-callchains -F "$fields" $SYM -i "$f" > "$TMPD/$n.raw" 2> "$TMPD/$n.raw.err" ||
		fail "$n: perf script --no-merge-callchains failed: $(tail -3 "$TMPD/$n.raw.err")"
	r=$(grep -c 'DEFERRED CALLCHAIN' "$TMPD/$n.raw" || true)
	c=$(grep -c '(cookie)' "$TMPD/$n.raw" || true)
	[ "$r" = "$records" ] || fail "$n: --no-merge-callchains shows $r DEFERRED CALLCHAIN records, the file has $records"
	[ "$c" = "$marked" ] || fail "$n: --no-merge-callchains shows $c cookies, the file has $marked samples with one"

	# 5. merged
	"$PERF" script --ns -F "$fields" $SYM -i "$f" > "$TMPD/$n.merged" 2> "$TMPD/$n.merged.err" ||
		fail "$n: perf script failed: $(tail -3 "$TMPD/$n.merged.err")"
	"$PY" "$H/check_chains.py" analyse "$TMPD/$n.merged" "$w" > "$TMPD/$n.check" ||
		{ cat "$TMPD/$n.check"; fail "$n: merged callchains wrong"; }
	read -r ns nu <<EOF
$(sed -n 's/^samples=\([0-9]*\) user=\([0-9]*\) .*/\1 \2/p' "$TMPD/$n.check")
EOF
	share=$(awk -v u="$nu" -v s="$ns" 'BEGIN { printf "%.1f", 100 * u / s }')
	rpct=$(awk -v r="$reach" 'BEGIN { printf "%.1f", 100 * r }')
	awk -v u="$nu" -v s="$ns" -v r="$reach" 'BEGIN { exit !(u / s >= r - 0.03) }' ||
		fail "$n: user frames in $share% of the $w samples, $rpct% can have them"

	# 6. interop
	iop=-
	if [ $upstream_ok = 1 ]; then
		"$UPSTREAM" script --ns -F "$fields" $SYM -i "$f" > "$TMPD/$n.up" 2> /dev/null ||
			fail "$n: upstream perf script failed"
		"$UPSTREAM" script --ns --no-merge-callchains -F "$fields" $SYM -i "$f" > "$TMPD/$n.up.raw" 2> /dev/null ||
			fail "$n: upstream perf script --no-merge-callchains failed"
		"$PY" "$H/check_chains.py" compare "$TMPD/$n.merged" "$TMPD/$n.up" "$TMPD/$n.up.raw" > "$TMPD/$n.cmp" ||
			{ cat "$TMPD/$n.cmp"; fail "$n: our merged user frames differ from upstream perf $UPV's"; }
		iop=$(sed -n 's/^compared=\([0-9]*\) same=\([0-9]*\).*theirs-unmerged=\([0-9]*\).*/\2 same of \1 (+\3 unmerged by '"$UPV"')/p' "$TMPD/$n.cmp")
		if [ "$n" != st_nodefer ] && ! "$PY" "$H/check_chains.py" interop "$TMPD/$n.merged" "$TMPD/$n.up" "$TMPD/$n.up.raw" "$w" > "$TMPD/$n.iop"; then
			iop_failed="$iop_failed $n"
		fi
		[ "$n" = st_nodefer ] ||
			grep -E '^(samples|comm:|blocker|mismatches|  [0-9]+x )' "$TMPD/$n.iop" | sed "s/^/$n: /" >> "$TMPD/interop.txt"
	fi
	printf '%-11s %7s %8s %8s %9s %s\n' "$n" "$samples" "$records" "$share" "$rpct" "$iop"
done
if [ $upstream_ok = 1 ]; then
	echo "6. interop, from upstream perf $UPV's side (check_chains.py interop):"
	sed 's/^/   /' "$TMPD/interop.txt"
	for n in $iop_failed; do
		echo "--- $n: first mismatch"
		grep -A12 -m1 '^MISMATCH' "$TMPD/$n.iop" | awk '/^MISMATCH/ && NR > 1 { exit } { print }' 
	done
fi

# 7. the shell test, run in the guest
if [ -d "$PERF_SRC/tools/perf/tests/shell" ] &&
   [ -f "$PERF_SRC/tools/perf/tests/shell/record_defer_callchain.sh" ]; then
	[ -f "$OUT/shelltest.txt" ] || fail "the guest did not run the shell test record_defer_callchain.sh"
	res=$(cut -f1 "$OUT/shelltest.txt")
	echo "7. shell test record_defer_callchain.sh in the guest (perf test): $res, $(cut -f2 "$OUT/shelltest.txt") s"
	grep -E '\[(Success|Failed|Skipped)' "$OUT/logs/shelltest.log" | sed 's/^/   /'
	[ "$res" = Ok ] || { cat "$OUT/logs/shelltest.log"; fail "shell test record_defer_callchain.sh: $res in the guest"; }
else
	echo "7. no tools/perf/tests/shell/record_defer_callchain.sh in the series: shell test not run"
fi
# 8. time order for perf sched
wrapped=0 blocked_lost=
for n in offcpu_sw offcpu_swa; do
	[ -f "$OUT/data/$n.data" ] || fail "no $n recording"
	"$PERF" sched timehist -i "$OUT/data/$n.data" > "$TMPD/$n.timehist" 2> "$TMPD/$n.timehist.err" ||
		fail "perf sched timehist $n failed: $(head -3 "$TMPD/$n.timehist.err")"
	w=$(grep -c ' 184467440737[0-9][0-9]\.' "$TMPD/$n.timehist" || true)
	up=
	if [ $upstream_ok = 1 ]; then
		up=$("$UPSTREAM" sched timehist -i "$OUT/data/$n.data" 2> /dev/null | grep -c ' 184467440737[0-9][0-9]\.' || true)
		up=", perf $UPV: $up"
	fi
	echo "8. perf sched timehist $n: $(grep -c . "$TMPD/$n.timehist") lines, $w wrapped run times$up"
	wrapped=$((wrapped + w))
	"$PERF" sched timehist -g --max-stack 30 $SYM -i "$OUT/data/$n.data" > "$TMPD/$n.timehist-g" \
		2> "$TMPD/$n.timehist-g.err" ||
		fail "perf sched timehist -g $n failed: $(head -3 "$TMPD/$n.timehist-g.err")"
	b=$(grep -c 'blocker_read' "$TMPD/$n.timehist-g" || true)
	w=$(grep -c ' 184467440737[0-9][0-9]\.' "$TMPD/$n.timehist-g" || true)
	wrapped=$((wrapped + w))
	up=
	if [ $upstream_ok = 1 ]; then
		up=$("$UPSTREAM" sched timehist -g --max-stack 30 $SYM -i "$OUT/data/$n.data" 2> /dev/null |
			grep -c 'blocker_read' || true)
		[ "$b" -ge "$up" ] || blocked_lost="$blocked_lost $n ($b, perf $UPV: $up)"
		up=", perf $UPV: $up"
	fi
	[ "$b" -ge 1 ] || blocked_lost="$blocked_lost $n (none)"
	echo "8. perf sched timehist -g $n: $b lines with the blocked read's stack, $w wrapped run times$up"
done
[ -z "$per_unwind" ] || echo "3. perf record's count of deferred user callchains / samples, as the file says:$per_unwind"
[ -z "$iop_failed" ] || fail "interop (upstream perf $UPV's side): mismatches in$iop_failed"
[ "$wrapped" = 0 ] || fail "perf sched timehist: $wrapped run times wrapped below zero (events out of time order)"
[ -z "$blocked_lost" ] || fail "perf sched timehist -g: fewer blocked reads' stacks than upstream perf in$blocked_lost"
# 8b. perf inject --merge-callchains writes the blocked task's sample in its
# place: its output reads back without "out of order events" (a window of
# recording time wrote it at its record, behind rounds already written)
for n in offcpu_sw offcpu_swa; do
	"$PERF" inject --merge-callchains -i "$OUT/data/$n.data" -o "$TMPD/$n.inj" 2> "$TMPD/$n.inj.err" ||
		fail "perf inject --merge-callchains $n failed: $(head -3 "$TMPD/$n.inj.err")"
	"$PERF" report --stdio -i "$TMPD/$n.inj" > /dev/null 2> "$TMPD/$n.inj.report" ||
		fail "perf report of perf inject --merge-callchains' $n failed: $(head -3 "$TMPD/$n.inj.report")"
	! grep -q 'out of order events' "$TMPD/$n.inj.report" ||
		fail "perf inject --merge-callchains $n: $(grep 'out of order events' "$TMPD/$n.inj.report")"
	echo "8b. perf inject --merge-callchains $n: read back in order"
done

# 9. live merging: perf top and perf trace in the guest
# write(N, M): N syscall lines of FILE that start with NAME(, M of them
# followed by a frame in FUNC before the next syscall line
with_frames() { # FILE NAME FUNC
	awk -v name="$2(" -v func_="$3" '
	/^ *[0-9]+\.[0-9]+ / { cur = index($0, " " name) > 0; n += cur; done_ = 0; next }
	cur && !done_ && index($0, func_) { m++; done_ = 1 }
	END { printf "%d %d\n", n, m }' "$1"
}
L=$OUT/live
[ -f "$L/top.txt" ] && [ -f "$L/trace.txt" ] ||
	fail "the guest left no live/top.txt, live/trace.txt (perf top, perf trace)"
echo "9. live, in the guest: $(tail -1 "$L/top.err"), $(tail -1 "$L/trace.err")"
grep -q 'rc=0 ' "$L/top.err" || { cat "$L/top.err"; fail "perf top --call-graph fp,defer failed in the guest"; }
for f in sys_outer sys_middle; do
	grep -q "[-| ]$f\$" "$L/top.txt" ||
		{ tail -40 "$L/top.txt"; fail "perf top: no $f in its call graphs"; }
done
nu=$(grep -o 'no user stack: [0-9/]*' "$L/top.txt" | tail -1)
echo "   perf top: sys_outer and sys_middle in its call graphs; ${nu:-no sample without its user stack}"
grep -q 'rc=0 ' "$L/trace.err" || { cat "$L/trace.err"; fail "perf trace --call-graph fp,defer failed in the guest"; }
for t in trace trace-i; do
	[ -f "$L/$t.txt" ] || continue
	read -r n m <<< "$(with_frames "$L/$t.txt" write sys_leaf_write)"
	echo "   perf ${t/-/ -}: $m of $n write( lines with frames through sys_leaf_write"
	[ "$n" -gt 0 ] && [ $((m * 10)) -ge $((n * 9)) ] ||
		fail "perf ${t/-/ -}: $m of $n write( lines have their user frames, want 90%"
done
# upstream perf beside it, when run.sh could put it in the guest
if [ -f "$L/upstream-top.err" ]; then
	read -r n m <<< "$(with_frames "$L/upstream-trace.txt" write sys_leaf_write)"
	echo "   perf $UPV: perf top $(tail -1 "$L/upstream-top.err" | cut -d' ' -f3)" \
	     "($(grep -c 'Usage: perf top' "$L/upstream-top.err") usage message)," \
	     "perf trace: $m of $n write( lines with user frames, $(grep -c '(cookie)' "$L/upstream-trace.txt") '(cookie)' frames"
else
	echo "   perf $UPV not run in the guest (tests/tools/upstream-perf.sh --available fails)"
fi
echo "PASS"
