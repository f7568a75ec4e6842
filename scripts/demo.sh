#!/bin/bash
# demo.sh - the patched perf on a real recording made on Linux 7.2 with
# deferred user callchains (make demo; run 'make' first).
#
# tests/fixtures/real-7.2/data/mt_defer.data: 'perf record --call-graph
# fp,defer' of a 4-thread syscall loop, written by perf 7.2.  Shows
#  1. the attr bits (perf evlist -v);
#  2. three samples merged (perf script) next to the same time window raw
#     (perf script --no-merge-callchains: kernel part + cookie, then the
#     PERF_RECORD_CALLCHAIN_DEFERRED records that carry the user part);
#     with a perf that has no --no-merge-callchains yet: what it prints
#     for those samples, and the raw records (perf report -D);
#  3. a short perf report --stats.
# Symbols come from the workload binaries and the guest's kallsyms that
# come with the fixture (tests/lib.sh symroot).
#
# The perf is that of the 7.3 series (build/perf-7.3/perf; make demo sets
# PERF_BASE=7.3; tests/lib.sh).
#
# Usage: scripts/demo.sh [RECORDING [START,END]]
set -eu
. "$(dirname "$0")/../tests/lib.sh"
name=${1:-mt_defer}
data=$FIX/data/$name.data
# three samples of threads 160 and 161 in mt_defer, each completed by its
# own deferred record a few microseconds later
window=${2:-18.685300,18.686300}
[ -x "$PERF" ] || { echo "demo: no $PERF; run 'make' first" >&2; exit 1; }
[ -f "$data" ] || { echo "demo: no recording $data" >&2; exit 1; }
read -r -a sym <<< "$(symroot)"
cols=$(tput cols 2>/dev/null || echo 160)
[ "$cols" -ge 120 ] || cols=160
half=$(((cols - 3) / 2))

if [ -t 1 ]; then
	title() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	title() { printf '\n== %s\n' "$*"; }
fi

echo "perf: $PERF ($("$PERF" version))"
echo "recording: ${data#$TOP/}"
awk -F '\t' -v n="$name" '$1 == n { print "  recorded on Linux 7.2 with: " $NF }' "$FIX/recordings.tsv"

title "1. perf evlist -v: the attr bits"
"$PERF" evlist -v -i "$data" 2>&1 | sed 's/, /,\n    /g' | grep -E 'cpu-clock|sample_type|defer_' | sed 's/,$//'

# the blocks (a header line and its indented frames) of perf script output
# whose time stamp is in the window; done here rather than with --time so
# that samples and deferred records are selected alike; kernel frames lose
# their "([kernel.kallsyms])" to fit two columns
in_window() {
	awk -v from="${window%,*}" -v to="${window#*,}" '
		/^[^ \t]/ { keep = 0
			     for (i = 1; i <= NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }
			     keep = (t >= from && t <= to)
			     if (keep && n++) print "" }
		/^[ \t]/ && keep { print }
		/^[^ \t]/ && keep { print }' |
		sed 's/ (\[kernel\.kallsyms\])$//' | expand | cut -c1-"$half"
}
side_by_side() { # left-title right-title left-file right-file
	{ echo "$1"; echo "${1//?/-}"; cat "$3"; } > "$TMPD/l"
	{ echo "$2"; echo "${2//?/-}"; cat "$4"; } > "$TMPD/r"
	# (no tabs left after expand: a tab separates the columns)
	paste "$TMPD/l" "$TMPD/r" |
		awk -F '\t' -v w="$half" '{ printf "%-*s | %s\n", w, $1, $2 }'
}

if "$PERF" script --no-merge-callchains -h 2>&1 | grep -q 'unknown option'; then
	title "2. raw records (this perf cannot merge deferred callchains yet)"
	echo "perf script, samples between ${window/,/ and } s:"
	"$PERF" script "${sym[@]}" -i "$data" > "$TMPD/out" 2>&1 || true
	in_window < "$TMPD/out" > "$TMPD/sel"
	[ -s "$TMPD/sel" ] || head -n 5 "$TMPD/out" > "$TMPD/sel"
	sed 's/^/  /' "$TMPD/sel"
	echo "perf report -D: the first PERF_RECORD_CALLCHAIN_DEFERRED records:"
	"$PERF" report -D -i "$data" 2>&1 | grep -A4 -m3 'PERF_RECORD_CALLCHAIN_DEFERRED' |
		sed 's/^/  /'
else
	title "2. merged and raw, samples and records between ${window/,/ and } s"
	"$PERF" script "${sym[@]}" -i "$data" 2>&1 | in_window > "$TMPD/merged"
	"$PERF" script "${sym[@]}" -i "$data" --no-merge-callchains 2>&1 |
		in_window > "$TMPD/raw"
	side_by_side "perf script (merged: one whole callchain per sample)" \
		"perf script --no-merge-callchains (raw)" "$TMPD/merged" "$TMPD/raw"
fi

title "3. perf report --stats (summary)"
"$PERF" report --stats -i "$data" > "$TMPD/out" 2>&1 || true
awk '
	/TOTAL events|SAMPLE events|CALLCHAIN_DEFERRED events|LOST/ && !done { print; next }
	/ stats:$/ && !/^Aggregated/ { done = 1 }
	/[Dd]eferred/ && !/events:/ { blk = 1; print; next }
	blk && /^ / { print; next }
	{ blk = 0 }' "$TMPD/out" > "$TMPD/sel"
[ -s "$TMPD/sel" ] || head -n 5 "$TMPD/out" > "$TMPD/sel"
cat "$TMPD/sel"
echo
echo "upstream perf 7.2's outputs for this file: ${FIX#$TOP/}/upstream-7.2/$name.*"
