#!/bin/bash
# report-modes-merged: perf report's modes show merged deferred user
# callchains, on every real recording with deferral (per-task, -a, pipe,
# -z, two events with --sample-cpu, --per-thread, --user-callchains).
#
# Modes: --children / --no-children with --sort dso, --sort sym,dso and
# the default sort (comm,dso,sym) with -g caller and -g callee.
#
# 1. Sample conservation: per event, `perf report --stats` counts the
#    samples that analysis/NAME.stats.json counted without perf, and the
#    "Samples" column of `perf report -n --no-children --sort dso` adds up
#    to them, per shared object as many as `perf script -G` (the ip of
#    each sample) has there.
# 2. The report's numbers are those of our merged `perf script` of the
#    same file (tests/tools/report_modes.py expect): per shared object
#    (--sort dso) and per symbol (--sort sym,dso), Self = share of the
#    period of the samples whose ip is there, Children = of the samples
#    with it anywhere in their chain; the --no-children call graphs
#    (-g caller, -g callee) have, per entry, each path from the root
#    (caller) or the leaf (callee) with the share of the samples whose
#    chain starts so (paths of 1 % or more, within 0.5 %).
#    perf report (7.2 too) makes no Children column in pipe mode: the
#    --children reports of st_defer_pipe are checked as --no-children.
# 3. The workload's share (tests/tools/report_modes.py share): its
#    --children --sort dso entry has the share of the samples that have
#    frames in the workload binary (/fixtures/bin/NAME) in our merged perf
#    script, and that share is upstream perf 7.2's (stored merged perf
#    script output) plus the samples 7.2 leaves unmerged (taken after their
#    own record) minus the samples taken during exec (the new image is
#    not mapped yet for us, 7.2 resolves them later); no other difference.
# 4. If upstream perf 7.3 is cached (tests/tools/upstream-perf.sh
#    --available; not built here, that needs the network), every mode is
#    also compared with upstream 7.3's report of the same file, by
#    tests/tools/report_graph.py's rules (inlined frames, aliases...), each
#    entry within the share of the samples the two perfs show differently
#    in their merged perf script (frame addresses, header or shared
#    objects: the late and exec-time samples of 3., and comms),
#    as in report-callgraph-vs-upstream.sh.
#
# The test can fail: checks 2. and 3. are run at the end against the
# --no-merge-callchains `perf script` of mt_defer and must fail there (the
# report does not show unmerged chains); perf without the series cannot
# read these files at all.
. "$(dirname "$0")/../lib.sh"

command -v nm > /dev/null || skip "nm (binutils) is needed for the symbol aliases"
S=$(symroot)
# perf 7.2 shows inlined functions as frames of their own (unpatched 7.2
# too): the expected values here are the frames of the callchains
S="$S --no-inline"
KALLSYMS=$TOP/build/symfs/kallsyms.txt
TOOLS=$TOP/tests/tools
FIELDS=comm,tid,period,event,ip,sym,dso
UPSTREAM=1
"$TOOLS/upstream-perf.sh" --available 2> /dev/null || UPSTREAM=

rm_() { python3 "$TOOLS/report_modes.py" "$@"; }

# workload NAME: the fixture binary the recording ran
workload() {
	awk -F'\t' -v n="$1" '$1 == n { print $NF }' "$FIX/recordings.tsv" |
		grep -o '/fixtures/bin/[a-z_]*' | head -1
}

# event_samples: "EVENT N" per event of a --stats output
event_samples() {
	awk '/ stats:$/ && !/^Aggregated/ { ev = $1; next } ev != "" && /SAMPLE events:/ { print ev, $3; ev = "" }'
}

# column_samples: "EVENT N" summed from perf report -n --no-children
column_samples() {
	awk "/^# Samples: .* of event '/ { split(\$0, a, \"'\"); ev = a[2] }
	     /^ +[0-9.]+% +[0-9]+ / { n[ev] += \$2 }
	     END { for (e in n) print e, n[e] }" | sort
}

# mode_opts MODE: the perf report options of a report_modes.py mode
mode_opts() {
	case $1 in
	dso-children) echo "--children --sort dso -g none" ;;
	dso-self) echo "--no-children --sort dso -g none" ;;
	symdso-children) echo "--children --sort sym,dso -g none" ;;
	symdso-self) echo "--no-children --sort sym,dso -g none" ;;
	caller) echo "--no-children -g caller" ;;
	callee) echo "--no-children -g callee" ;;
	children-caller) echo "--children -g caller" ;;
	children-callee) echo "--children -g callee" ;;
	esac
}

# report OUT MODE: perf report --stdio in MODE, to OUT
report() {
	# shellcheck disable=SC2046,SC2086 # lists of options
	if ! "$PERF" report --stdio $S $(mode_opts "$2") -i "$data" > "$1" 2> "$1.err"; then
		echo "  FAIL perf report $(mode_opts "$2"): $(tail -3 "$1.err")"
		return 1
	fi
}

# check WHAT CMD...: run a check, print its result
check() {
	local what=$1 r
	shift
	if r=$("$@" 2>&1); then
		echo "  ok   $what: $(echo "$r" | head -1)"
	else
		echo "  FAIL $what: $r"
		return 1
	fi
}

bad=0
n=0
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	dso=$(workload "$name")
	[ -n "$dso" ] || fail "$name: no workload binary in recordings.tsv"
	bin=$FIX/bin/$(basename "$dso")
	o=$TMPD/$name
	echo "$name ($dso):"
	errs=0

	# 1. conservation
	"$PERF" report --stats -i "$data" > "$o.stats" 2>&1 ||
		fail "$name: perf report --stats failed: $(tail -3 "$o.stats")"
	event_samples < "$o.stats" | sort > "$o.n"
	total=$(awk '{ n += $2 } END { print n }' "$o.n")
	want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' \
	       "$FIX/analysis/$name.stats.json")
	if [ "$total" != "$want" ]; then
		echo "  FAIL --stats: $total samples, analysis/$name.stats.json $want"
		errs=$((errs + 1))
	fi
	# shellcheck disable=SC2086 # $S is a list of options
	"$PERF" report --stdio -n --no-children --sort dso -g none $S -i "$data" > "$o.rn" 2> /dev/null
	column_samples < "$o.rn" > "$o.col"
	if [ -s "$o.n" ] && cmp -s "$o.n" "$o.col"; then
		echo "  ok   samples: $(tr '\n' ' ' < "$o.n")in --stats and report -n"
	else
		echo "  FAIL report -n counts $(tr '\n' ' ' < "$o.col"), --stats $(tr '\n' ' ' < "$o.n")"
		errs=$((errs + 1))
	fi

	# 2. the report's numbers are our merged perf script's
	# shellcheck disable=SC2015,SC2086 # fail if either fails; $S: options
	"$PERF" script $S -F $FIELDS -i "$data" > "$o.s" 2> /dev/null &&
		"$PERF" script $S -F $FIELDS -G -i "$data" > "$o.l" 2> /dev/null ||
		fail "$name: perf script failed"
	check "report -n per shared object" rm_ samples "$o.s" "$o.l" "$o.rn" ||
		errs=$((errs + 1))
	for mode in dso-children dso-self symdso-children caller callee; do
		report "$o.$mode" $mode &&
			check "$(mode_opts $mode)" rm_ expect $mode --binary "$bin" \
				--kallsyms "$KALLSYMS" "$o.s" "$o.l" "$o.$mode" ||
			errs=$((errs + 1))
	done

	# 3. the workload's share, ours and upstream 7.2's
	# shellcheck disable=SC2086 # $S is a list of options
	"$PERF" script $S -i "$data" > "$o.def" 2> /dev/null || fail "$name: perf script failed"
	upstream "$name" script > "$o.up"
	check "share of $(basename "$dso")" rm_ share "$dso" "$o.def" "$o.up" "$o.dso-children" ||
		errs=$((errs + 1))

	# 4. upstream 7.3's report of the same file
	if [ -n "$UPSTREAM" ]; then
		nmin=$(awk '{ print $2 }' "$o.n" | sort -n | head -1)
		slack=$(rm_ slack "$dso" "$nmin" "$o.def" "$o.up")
		slack=${slack% *}
		for mode in dso-children dso-self symdso-children symdso-self \
			    caller callee children-caller children-callee; do
			case $mode in
			dso-*) sort=dso ;;
			symdso-*) sort=sym,dso ;;
			*) sort=default ;;
			esac
			[ -s "$o.$mode" ] || report "$o.$mode" $mode || { errs=$((errs + 1)); continue; }
			# shellcheck disable=SC2046,SC2086 # lists of options
			"$TOOLS/upstream-perf.sh" report --stdio $S $(mode_opts $mode) -i "$data" \
				> "$o.$mode.up" 2> "$o.$mode.up.err" ||
				fail "upstream perf $UPV report failed: $(tail -3 "$o.$mode.up.err")"
			check "$(mode_opts $mode) vs upstream $UPV (slack $slack%)" rm_ upstream $sort \
				--binary "$bin" --kallsyms "$KALLSYMS" --slack "$slack" \
				"$o.$mode" "$o.$mode.up" || errs=$((errs + 1))
		done
	fi
	[ $errs = 0 ] || bad=$((bad + 1))
done
[ "$n" -gt 0 ] || fail "no *_defer recordings in $FIX/data"
[ -n "$UPSTREAM" ] ||
	echo "note: upstream perf $UPV is not cached (tests/tools/upstream-perf.sh --setup): check 4 not run"

# the checks fail on chains that are not merged
name=mt_defer
data=$FIX/data/$name.data
o=$TMPD/$name
# shellcheck disable=SC2015,SC2086 # fail if any fails; $S: options
"$PERF" script $S --no-merge-callchains -F $FIELDS -i "$data" > "$TMPD/nm.s" 2> /dev/null &&
	"$PERF" script $S --no-merge-callchains -F $FIELDS -G -i "$data" > "$TMPD/nm.l" 2> /dev/null &&
	"$PERF" script $S --no-merge-callchains -i "$data" > "$TMPD/nm.def" 2> /dev/null ||
	fail "perf script --no-merge-callchains failed"
for mode in dso-children caller; do
	if rm_ expect $mode --binary "$FIX/bin/mt_syscalls" --kallsyms "$KALLSYMS" \
		"$TMPD/nm.s" "$TMPD/nm.l" "$o.$mode" > "$TMPD/nm.$mode" 2>&1; then
		fail "report_modes.py expect $mode passes against --no-merge-callchains perf script"
	fi
	echo "ok   $mode: the report is not the --no-merge-callchains script's: $(head -1 "$TMPD/nm.$mode")"
done
if rm_ share /fixtures/bin/mt_syscalls "$TMPD/nm.def" "$o.up" "$o.dso-children" \
	> "$TMPD/nm.share" 2>&1; then
	fail "report_modes.py share passes on --no-merge-callchains perf script"
fi
echo "ok   share fails on --no-merge-callchains perf script: $(head -1 "$TMPD/nm.share" | cut -c1-160)"

[ "$bad" = 0 ] || fail "$bad of $n recordings have reports that differ"
echo "all $n recordings: perf report modes show merged chains"
