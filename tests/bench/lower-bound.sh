#!/bin/bash
# lower-bound.sh - what merging a bench file's deferred callchains costs at
# the least: perf script and perf report --stats on the floor file, on the
# floor file with the records in it too (read by a perf that drops each
# record as soon as it is parsed, and by ours), and on the deferred file,
# round-robin (tests/bench/compare.py).  Whatever a merge does, it reads
# and parses the records, so "drop" is a floor under any merge; ours on
# the same file adds what our record path does without any sample to
# match.  Not part of the tests: about 5 minutes with REPS=5 (and a perf
# build the first time).
#
# Usage: tests/bench/lower-bound.sh [CELL [REPS]]
#   CELL  a file of build/bench/data (default 1M-32kt; run tests/bench/run.sh
#         --cells CELL once to generate it); REPS default 5
#
# Writes build/bench/data/CELL.floor-records.data (gen_perfdata.py
# --floor-records with the cell's arguments, checked to give the same
# deferred file) and build/perf-drop/perf: build/src-7.3 (the 7.3 series)
# with a few more lines in perf_session__deliver_event(), before the
# session's merge: PERF_RECORD_CALLCHAIN_DEFERRED dropped, and deferred
# samples handed to the tool as they are, without the merge.
# The floor file runs with both binaries (on it they run the same code).
# "drop-deferred" is perf report --stats of the deferred file with that
# perf: every event read and parsed in file order, as --stats reads, and no
# matching at all: what any counting of the deferred file reads.  (The 6.12
# series' figures, git show ba1f488:docs/bench.md, have a column
# "drop-ordered": the same perf on the deferred file, --stats reading it in
# time order.)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cell=${1:-1M-32kt}
reps=${2:-5}
data=$top/build/bench/data
key=$data/$cell.key
if [ ! -s "$key" ] || [ ! -s "$data/$cell.data" ] || [ ! -s "$data/$cell.floor.data" ]; then
	echo "lower-bound.sh: no $cell files (tests/bench/run.sh --cells $cell)" >&2
	exit 1
fi
read -r _ args < "$key"

if [ ! -s "$data/$cell.floor-records.data" ]; then
	echo "generating $cell.floor-records: $args"
	tmp=$data/$cell.lb-tmp.data
	# shellcheck disable=SC2086
	python3 "$top/tests/tools/gen_perfdata.py" -o "$tmp" --floor "$data/$cell.floor-records.data" \
		--floor-records $args > /dev/null
	cmp -s "$tmp" "$data/$cell.data" ||
		{ rm -f "$tmp" "$data/$cell.floor-records.data"; echo "lower-bound.sh: the generator no longer gives $cell.data" >&2; exit 1; }
	rm -f "$tmp"
fi

# the 7.3 series' tree, perf and make arguments (scripts/series.sh)
SERIES=7.3 . "$top/scripts/series.sh"
drop=$top/build/perf-drop
wt=$top/build/lb-src
git -C "$SER_SRC" worktree remove --force "$wt" 2> /dev/null || true
git -C "$SER_SRC" worktree add -q --detach "$wt" HEAD
trap 'git -C "$SER_SRC" worktree remove --force "$wt"' EXIT
python3 - "$wt/tools/perf/util/session.c" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
# the session's merge of a deferred sample in perf_session__deliver_event()
anchor = re.compile(r'^\tif \(sample\.deferred_callchain &&[^\n]*merges_callchains\(tool\)\) \{$', re.M)
assert len(anchor.findall(s)) == 1, 'perf_session__deliver_event() changed'
s = anchor.sub(lambda m: '''	/* lower-bound.sh: records read, parsed, dropped; no merge */
	if (event->header.type == PERF_RECORD_CALLCHAIN_DEFERRED) {
		ret = 0;
		goto out;
	}
	if (sample.deferred_callchain) {
		ret = machines__deliver_event(&session->machines, session->evlist, event,
					      &sample, tool, file_offset, file_path);
		goto out;
	}
''' + m.group(0), s)
open(p, 'w').write(s)
EOF
SRC=$wt O=$drop "$top/scripts/build.sh" --if-changed "${SER_BUILD_ARGS[@]}" > /dev/null
ours=$SER_PERF_O/perf
export CELL=$cell RATIOS="records/floor merged/floor drop/drop-floor"
stats_ratios="$RATIOS drop-deferred/drop-floor"
# Two builds of the same code can differ by a few percent by code layout
# alone: each binary gets its own floor run, and the ratios that count are
# drop / drop-floor and merged / floor.
echo "perf script, $cell ($reps runs round-robin; cpu time):"
python3 "$top/tests/bench/compare.py" "$reps" floor="$ours:floor" records="$ours:rfloor" \
	merged="$ours:merged" drop-floor="$drop/perf:floor" drop="$drop/perf:rfloor"
echo "perf report --stats, $cell:"
RATIOS=$stats_ratios python3 "$top/tests/bench/compare.py" "$reps" floor="$ours:sfloor" \
	records="$ours:srfloor" merged="$ours:stats" drop-floor="$drop/perf:sfloor" \
	drop="$drop/perf:srfloor" drop-deferred="$drop/perf:stats"
