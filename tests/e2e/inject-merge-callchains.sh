#!/bin/bash
# inject-merge-callchains: `perf inject --merge-callchains` turns a
# recording with deferred user callchains into an ordinary one that tools
# knowing nothing of deferral read: each deferred sample is written with
# its full callchain (kernel part, PERF_CONTEXT_USER, the user IPs of its
# PERF_RECORD_CALLCHAIN_DEFERRED), the records are gone and so are the
# defer_callchain/defer_output attr bits.
#
# The tool that knows nothing is perf without the series: upstream perf
# of the same base ($BASE_PERF, default tests/tools/upstream-perf.sh:
# Debian trixie-backports' linux-perf 7.3; the test is skipped, saying how
# to set it up, when it cannot be had).  It
# must read our output as it is.
#
# For each real recording, to a file and to a pipe (-o -):
#   - the output's --stats has every SAMPLE of the input, per event, and
#     no CALLCHAIN_DEFERRED; perf evlist -v shows no defer bit;
#   - `perf script` of the base perf on the output prints the same samples
#     as ours, merged, on the input: the same headers and the same
#     callchain addresses, sample by sample (tests/tools/frames.py), so the
#     samples whose record never came have their kernel chain only there
#     too, and no cookie is anywhere in a chain;
#   - our perf script on the output prints the same text as on the input.
# Also with -B, which keeps the mappings the merged chains hit.
# Two things differ by design and are left out of the comparisons: the
# samples taken in execve (merged, they are resolved in the new program
# when their record comes; a file has them at their own time, before the
# new program's MMAPs, so any reader resolves them in the old one: see
# docs/design.md, known limitations), and the order of the samples merged
# after their reorder window (the output has them at their own time).
#
# Unpatched perf finds no deferred sample in the output, so it prints the
# chains as they were written.
. "$(dirname "$0")/../lib.sh"

SYM=$(symroot)
DEFER="st_defer st_defer_pipe st_defer_zstd st_perthread_defer st_userchains_defer
       mt_defer mt_perthread_defer mt_2ev_cpu_defer mixed_defer mixed_useronly_defer
       long_defer syswide_defer taskclock_defer"
BASE_PERF=${BASE_PERF:-$TOP/tests/tools/upstream-perf.sh} BV=$PERF_BASE
BUILD="tests/tools/upstream-perf.sh --setup"

[ -x "$BASE_PERF" ] ||
	skip "no perf $BV without the series at $BASE_PERF"
[ "$BASE_PERF" != "$TOP/tests/tools/upstream-perf.sh" ] || "$BASE_PERF" --available ||
	skip "no upstream perf $BV: $BUILD makes it (make check does)"
# (Debian's release candidates say 7.3.0-rc7 or 7.3-rc7)
"$BASE_PERF" version | grep -Eq "^perf version ${BV//./\\.}[.~-]" || fail "$BASE_PERF is not perf $BV"

# counts FILE: "EVENT N" per event, then "CALLCHAIN_DEFERRED N"
counts() {
	"$PERF" report --stats -i "$1" 2>&1 |
	awk '/ stats:$/ && !/^Aggregated/ { ev = $1; next }
	     ev != "" && /SAMPLE events:/ { sub(/:HG$/, "", ev); print ev, $3; ev = "" }
	     /CALLCHAIN_DEFERRED events:/ { d = $3 }
	     END { print "CALLCHAIN_DEFERRED", d + 0 }'
}

# noexec FILE: the perf script text of FILE without the samples of the
# kernel entries that exec'd ($in.exec: "TID TIME" from exec_samples.py)
noexec() {
	awk 'FNR == NR { skip[$1 " " $2] = 1; next }
	     BEGIN { ORS = "\n\n" }
	     { split($0, l, "\n"); n = split(l[1], h, " ")
	       for (i = 2; i < n; i++) if (h[i + 1] ~ /^[0-9]+\.[0-9]+:$/) break
	       t = i; if (h[t] ~ /^\[/) t--	# the tid, before a [cpu]
	       k = h[t] " " substr(h[i + 1], 1, length(h[i + 1]) - 1)
	       if (!(k in skip)) print }' "$in.exec" RS= "$1"
}

# sorted FILE: one line per sample, sorted
sorted() {
	awk 'BEGIN { RS = "" } { gsub(/\n/, " | "); print }' "$1" | sort
}

# check NAME WHAT OUT
check() {
	local name=$1 what=$2 out=$3 in=$TMPD/$1.in n

	counts "$out" > "$out.counts"
	sed 's/^CALLCHAIN_DEFERRED .*/CALLCHAIN_DEFERRED 0/' "$in.counts" > "$out.want"
	cmp -s "$out.want" "$out.counts" ||
		fail "$name, $what: counts $(tr '\n' ' ' < "$out.counts"), want $(tr '\n' ' ' < "$out.want")"
	"$PERF" evlist -v -i "$out" > "$out.evlist" 2>&1 || fail "$name, $what: perf evlist failed"
	if grep -E 'defer_(callchain|output)' "$out.evlist"; then
		fail "$name, $what: defer bits left in the output's attrs"
	fi

	# (a file converted to a pipe shows its events as "cpu-clock:HG:")
	"$BASE_PERF" script $SYM -i "$out" 2> "$out.base.err" | sed 's/:HG: *$/:/' > "$out.base" ||
		fail "$name, $what: perf $BV cannot read the output: $(tail -3 "$out.base.err")"
	noexec "$in.merged" > "$in.noexec"
	noexec "$out.base" > "$out.base.noexec"
	python3 "$TOP/tests/tools/frames.py" --by-key "$in.noexec" "$out.base.noexec" > "$out.cmp" || {
		cat "$out.cmp"
		fail "$name, $what: perf $BV on the output differs from our merged view of the input"
	}
	# no cookie in any chain, as a frame of its own: the samples whose
	# record never came have their kernel chain only
	n=$(python3 - "$TOP/tests/tools" "$in.cookies" "$out.base" <<-'EOF'
		import sys
		sys.path.insert(0, sys.argv[1])
		import frames
		cookies = {int(c, 16) for c in open(sys.argv[2]).read().split()}
		print(sum(1 for s in frames.parse(open(sys.argv[3]).read())
			  if cookies.intersection(s.frames)))
	EOF
	)
	[ "$n" = 0 ] || fail "$name, $what: $n samples with a cookie as a frame in perf $BV's output"
	"$PERF" script $SYM -i "$out" 2> "$out.err" | sed 's/:HG: *$/:/; s/: *$/:/' > "$out.ours"
	sorted "$in.noexec" > "$in.sorted"
	noexec "$out.ours" > "$out.ours.noexec"
	sorted "$out.ours.noexec" > "$out.ours.sorted"
	cmp -s "$in.sorted" "$out.ours.sorted" || {
		diff "$in.sorted" "$out.ours.sorted" | head -20
		fail "$name, $what: our perf script on the output differs from the input's"
	}
	echo "  $what: $(head -1 "$out.cmp")"
}

for name in $DEFER; do
	data=$FIX/data/$name.data
	in=$TMPD/$name.in
	counts "$data" > "$in.counts"
	"$PERF" script $SYM -i "$data" 2> "$in.err" | sed 's/: *$/:/' > "$in.merged"
	"$PERF" script --no-merge-callchains -F ip,sym -i "$data" 2> "$in.err" |
		awk '/\(cookie\)/ { print $1 }' | sort -u > "$in.cookies"
	[ -s "$in.cookies" ] || fail "$name: no cookie in the input"
	"$PERF" script --no-merge-callchains --show-task-events -F comm,tid,time,event,ip,sym \
		-i "$data" 2> /dev/null > "$in.raw" || : > "$in.raw"	# no time: no exec found
	python3 "$TOP/tests/tools/exec_samples.py" "$in.raw" > "$in.exec"
	echo 0 0 >> "$in.exec"	# never empty for awk's FNR == NR
	nokernel=$("$PERF" report --stats -i "$data" 2>&1 | awk '/without user callchain:/ { print $NF }')
	echo "$name: $(tr '\n' ' ' < "$in.counts")in the input; $nokernel deferred samples never got their record"

	"$PERF" inject --merge-callchains -i "$data" -o "$TMPD/$name.out" 2> "$TMPD/$name.err" ||
		fail "$name: perf inject --merge-callchains failed: $(tail -3 "$TMPD/$name.err")"
	check "$name" "file" "$TMPD/$name.out"
	"$PERF" inject --merge-callchains -i "$data" -o - > "$TMPD/$name.pipe" 2> "$TMPD/$name.err" ||
		fail "$name: perf inject --merge-callchains -o - failed: $(tail -3 "$TMPD/$name.err")"
	check "$name" "pipe" "$TMPD/$name.pipe"
	case $name in
	st_defer|syswide_defer|mt_2ev_cpu_defer)
		"$PERF" inject --merge-callchains -B -i "$data" -o "$TMPD/$name.B" 2> "$TMPD/$name.err" ||
			fail "$name: perf inject --merge-callchains -B failed: $(tail -3 "$TMPD/$name.err")"
		check "$name" "file, -B" "$TMPD/$name.B"
		;;
	esac
done
echo "perf $BV without the series reads every merged output with the full callchains"
