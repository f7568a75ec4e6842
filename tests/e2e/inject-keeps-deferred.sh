#!/bin/bash
# inject-keeps-deferred: perf inject passes the samples recorded with
# deferred user callchains and their PERF_RECORD_CALLCHAIN_DEFERRED
# records through unchanged: every record once, in place.  Upstream perf
# 7.2 drops them all (upstream-7.2/NAME.inject.report-stats.txt has no
# CALLCHAIN_DEFERRED line but for -z, whose compressed records it copies
# whole), so every user stack is lost downstream.
#
# For each real recording, perf inject -i IN -o OUT, to a file and to a
# pipe (-o -), and from stdin for the pipe recording:
#   - per event, the SAMPLE count of OUT's --stats is IN's, and so is the
#     CALLCHAIN_DEFERRED count;
#   - perf script on OUT prints what it prints on IN, merged (the default)
#     and with --no-merge-callchains (each record printed where it is in
#     the file, as "DEFERRED CALLCHAIN [cookie: ...]").
# The same for the inject modes that rewrite samples or mmaps: -b,
# --buildid-all, -B, --mmap2-buildid-all, --jit, --itrace (no AUX data
# here: --itrace just takes its own path through inject), on recordings
# that cover the variants (one thread, -a, two events, per-thread, pipe,
# -z).
#
# Known differences that have nothing to do with deferral (also with the
# *_nodefer recordings): a file converted to a pipe shows its events as
# "cpu-clock:HG:" (6.12 does not carry the event names into the pipe); a
# -z recording cannot be converted to a pipe at all by 6.12 ("Couldn't
# decompress data"), so st_defer_zstd is checked with file output only;
# inject copies -z data whole, without looking into it: -B sees no sample
# there and drops the kernel's MMAP2 (outside the compressed records) as
# unused, so -B is not checked on st_defer_zstd.
. "$(dirname "$0")/../lib.sh"

SYM=$(symroot)
DEFER="st_defer st_defer_pipe st_defer_zstd st_perthread_defer st_userchains_defer
       mt_defer mt_perthread_defer mt_2ev_cpu_defer mixed_defer mixed_useronly_defer
       long_defer syswide_defer taskclock_defer"
MODES="-b --buildid-all -B --mmap2-buildid-all --jit --itrace"
MODE_FILES="st_defer syswide_defer mt_2ev_cpu_defer st_perthread_defer st_defer_pipe st_defer_zstd"

# counts FILE: "EVENT N" per event, then "CALLCHAIN_DEFERRED N"
counts() {
	"$PERF" report --stats -i "$1" 2>&1 |
	awk '/ stats:$/ && !/^Aggregated/ { ev = $1; next }
	     ev != "" && /SAMPLE events:/ { sub(/:HG$/, "", ev); print ev, $3; ev = "" }
	     /CALLCHAIN_DEFERRED events:/ { d = $3 }
	     END { print "CALLCHAIN_DEFERRED", d + 0 }'
}

# scripts FILE OUT: perf script merged and raw, event modifiers a pipe
# adds dropped
scripts() {
	"$PERF" script $SYM -i "$1" 2> "$2.err" | sed 's/:HG: *$/:/; s/: *$/:/' > "$2.merged" ||
		fail "perf script -i $1: $(tail -3 "$2.err")"
	"$PERF" script $SYM --no-merge-callchains -i "$1" 2>> "$2.err" |
		sed 's/:HG: *$/:/; s/: *$/:/' > "$2.raw" ||
		fail "perf script --no-merge-callchains -i $1: $(tail -3 "$2.err")"
}

# check NAME WHAT OUT: OUT, made by inject from NAME, is NAME again
check() {
	local name=$1 what=$2 out=$3 in=$TMPD/$1.in

	counts "$out" > "$out.counts"
	cmp -s "$in.counts" "$out.counts" ||
		fail "$name, $what: counts $(tr '\n' ' ' < "$out.counts"), input $(tr '\n' ' ' < "$in.counts")"
	scripts "$out" "$out"
	cmp -s "$in.merged" "$out.merged" || {
		diff "$in.merged" "$out.merged" | head -20
		fail "$name, $what: perf script differs from the input's"
	}
	cmp -s "$in.raw" "$out.raw" || {
		diff "$in.raw" "$out.raw" | head -20
		fail "$name, $what: perf script --no-merge-callchains differs from the input's"
	}
}

checked=0
for name in $DEFER; do
	data=$FIX/data/$name.data
	in=$TMPD/$name.in
	counts "$data" > "$in.counts"
	grep -q '^CALLCHAIN_DEFERRED [1-9]' "$in.counts" || fail "$name: no CALLCHAIN_DEFERRED in the input"
	scripts "$data" "$in"
	up=$(upstream "$name" inject.report-stats | awk '/CALLCHAIN_DEFERRED events:/ { print $3 }')

	"$PERF" inject -i "$data" -o "$TMPD/$name.out" 2> "$TMPD/$name.err" ||
		fail "$name: perf inject failed: $(tail -3 "$TMPD/$name.err")"
	check "$name" "file" "$TMPD/$name.out"
	checked=$((checked + 1))
	if [ "$name" != st_defer_zstd ]; then
		"$PERF" inject -i "$data" -o - > "$TMPD/$name.pipe" 2> "$TMPD/$name.err" ||
			fail "$name: perf inject -o - failed: $(tail -3 "$TMPD/$name.err")"
		check "$name" "pipe" "$TMPD/$name.pipe"
		checked=$((checked + 1))
	fi
	if [ "$name" = st_defer_pipe ]; then
		"$PERF" inject < "$data" > "$TMPD/$name.stdin" 2> "$TMPD/$name.err" ||
			fail "$name: perf inject < in > out failed: $(tail -3 "$TMPD/$name.err")"
		check "$name" "stdin to stdout" "$TMPD/$name.stdin"
		checked=$((checked + 1))
	fi
	echo "$name: $(tr '\n' ' ' < "$in.counts")kept by inject (upstream 7.2 kept ${up:-0})"

	case " $MODE_FILES " in *" $name "*) ;; *) continue ;; esac
	modes=
	for mode in $MODES; do
		[ "$name.$mode" = st_defer_zstd.-B ] && continue
		modes="$modes $mode"
		out=$TMPD/$name.mode$mode
		"$PERF" inject $mode -i "$data" -o "$out" 2> "$out.err" ||
			fail "$name: perf inject $mode failed: $(tail -3 "$out.err")"
		check "$name" "inject $mode" "$out"
		checked=$((checked + 1))
	done
	echo "  and with$modes"
done
echo "$checked injected files keep every deferred record and sample"
