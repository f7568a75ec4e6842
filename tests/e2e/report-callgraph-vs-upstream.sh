#!/bin/bash
# report-callgraph-vs-upstream: perf report builds its call graphs from
# the merged callchains of samples recorded with deferred user callchains.
# On every real recording, `perf report --stdio` (--children, the default,
# and --no-children) gives the same entries and call graphs as upstream
# perf 7.2 (tests/fixtures/real-7.2/upstream-7.2/NAME.report*.txt), and
# report loses no sample.
#
# The text cannot be compared as is: 7.2 prints inlined functions and some
# glibc aliases as frames of their own, marks kernel --children entries
# "[.]", hides call-graph branches below 0.5 % that an inlined frame split
# off, and shows the cookie of a sample whose record never came as a user
# frame.  tests/tools/report_graph.py explains each difference and reduces
# both outputs to what must agree: per entry (shared object, symbol) its
# overhead(s), per call-graph path its percentage.  The recordings without
# deferral (*_nodefer, st_g_default) are compared the same way: they show
# that what is left is the same in both perfs without deferral too.
#
# Samples merged differently: a sample taken after its own record (in the
# deferred unwind, on the way back to user space) is merged by us with
# that record, shown by 7.2 with its cookie only; 7.2 names the comm of a
# merged sample at the time of its record.  Such samples are found by
# comparing our merged `perf script` with 7.2's, sample by sample, frame
# addresses and header (tests/tools/frames.py): each entry's overhead may
# differ by their share of the samples (the "slack", printed), no more.
#
# Sample conservation: per event, `perf report --stats` counts the SAMPLE
# events of upstream's --stats, and the "Samples" column of
# `perf report -n --sort comm` adds up to it (every sample reaches the
# histograms once, merged or not).
. "$(dirname "$0")/../lib.sh"

command -v nm > /dev/null || skip "nm (binutils) is needed for the symbol aliases"
SYM=$(symroot)
KALLSYMS=$TOP/build/symfs/kallsyms.txt
TOOLS=$TOP/tests/tools
DEFER="st_defer st_defer_pipe st_defer_zstd st_perthread_defer st_userchains_defer
       mt_defer mt_perthread_defer mt_2ev_cpu_defer mixed_defer mixed_useronly_defer
       long_defer syswide_defer taskclock_defer"
NODEFER="st_nodefer mt_nodefer long_nodefer st_g_default"

# workload NAME: the fixture binary the recording ran (static: glibc too)
workload() {
	awk -F'\t' -v n="$1" '$1 == n { print $NF }' "$FIX/recordings.tsv" |
		grep -o '/fixtures/bin/[a-z_]*' | head -1 | sed "s|^/fixtures/bin|$FIX/bin|"
}

# event_samples: "EVENT N" per event of a --stats output
event_samples() {
	awk '/ stats:$/ && !/^Aggregated/ { ev = $1; next } ev != "" && /SAMPLE events:/ { print ev, $3; ev = "" }'
}

# column_samples: "EVENT N" summed from perf report -n --sort comm -g none
column_samples() {
	awk "/^# Samples: .* of event '/ { split(\$0, a, \"'\"); ev = a[2] }
	     /^ +[0-9.]+% +[0-9]+ / { n[ev] += \$2 }
	     END { for (e in n) print e, n[e] }" | sort
}

errors=0
# NAMES="st_defer mt_defer" to run some only
for name in ${NAMES:-$DEFER $NODEFER}; do
	data=$FIX/data/$name.data
	bin=$(workload "$name")
	[ -x "$bin" ] || fail "$name: no workload binary in recordings.tsv"
	out=$TMPD/$name

	# --stats: the SAMPLE and CALLCHAIN_DEFERRED counts of the file
	"$PERF" report --stats -i "$data" > "$out.stats" 2>&1 ||
		fail "$name: perf report --stats failed: $(tail -3 "$out.stats")"
	event_samples < "$out.stats" | sort > "$out.n"
	upstream "$name" report-stats | event_samples | sort > "$out.n.up"
	cmp -s "$out.n" "$out.n.up" ||
		fail "$name: SAMPLE per event $(tr '\n' ' ' < "$out.n"), upstream $(tr '\n' ' ' < "$out.n.up")"
	a=$(awk '/CALLCHAIN_DEFERRED events:/ { print $3 }' "$out.stats")
	b=$(upstream "$name" report-stats | awk '/CALLCHAIN_DEFERRED events:/ { print $3 }')
	[ "$a" = "$b" ] || fail "$name: CALLCHAIN_DEFERRED events: $a, upstream $b"

	# every sample is in the histograms once
	"$PERF" report --stdio -n --no-children --sort comm -g none $SYM -i "$data" \
		2> "$out.n.err" | column_samples > "$out.col"
	cmp -s "$out.n" "$out.col" ||
		fail "$name: report -n counts $(tr '\n' ' ' < "$out.col"), SAMPLE $(tr '\n' ' ' < "$out.n")"

	# samples the two perfs merge differently, as a share of the samples
	"$PERF" script $SYM -i "$data" > "$out.script" 2> "$out.script.err" ||
		fail "$name: perf script failed: $(tail -3 "$out.script.err")"
	upstream "$name" script > "$out.script.up"
	nmin=$(awk '{ print $2 }' "$out.n" | sort -n | head -1)
	slack=$(python3 - "$TOOLS" "$out.script" "$out.script.up" "$nmin" <<-'EOF'
		import sys
		sys.path.insert(0, sys.argv[1])
		import frames
		a = frames.parse(open(sys.argv[2]).read())
		b = frames.parse(open(sys.argv[3]).read())
		r = frames.compare(a, b, by_key=True)
		print('%.4f %d' % (100.0 * len(r.mismatches) / int(sys.argv[4]), len(r.mismatches)))
	EOF
	)
	echo "$name: $(tr '\n' ' ' < "$out.n")samples; merged differently: ${slack#* } (slack ${slack% *}%)"
	slack=${slack% *}

	for mode in children no-children; do
		if [ $mode = children ]; then
			opt=--children up=report
		else
			opt=--no-children up=report-no-children
		fi
		"$PERF" report --stdio $opt $SYM -i "$data" > "$out.$mode" 2> "$out.$mode.err" ||
			fail "$name: perf report $opt failed: $(tail -3 "$out.$mode.err")"
		upstream "$name" $up > "$out.$mode.up"
		if python3 "$TOOLS/report_graph.py" --binary "$bin" --kallsyms "$KALLSYMS" \
			--slack "$slack" "$out.$mode" "$out.$mode.up" > "$out.$mode.cmp"; then
			echo "  $mode: $(cat "$out.$mode.cmp")"
		else
			echo "  $mode: DIFFERS from upstream 7.2:"
			sed 's/^/    /' "$out.$mode.cmp"
			errors=$((errors + 1))
		fi
	done
done
[ $errors = 0 ] || fail "$errors reports differ from upstream 7.2's"
echo "all reports agree with upstream 7.2"
