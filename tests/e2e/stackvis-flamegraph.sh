#!/bin/bash
# stackvis-flamegraph: an independent reader of perf's text output sees the
# merged deferred user callchains: the npm package stackvis (0.5.0, pinned
# with its dependencies in tests/tools/stackvis/package-lock.json,
# installed with `npm ci --ignore-scripts` into build/node/stackvis; the
# test is skipped if node/npm are missing or the install fails).
#
# On every real recording with deferral, `perf script | stackvis perf
# collapsed` (tests/tools/stackvis_check.py collapsed) gives
#   - one stack per sample: the counts add up to the samples in the file
#     (analysis/NAME.stats.json; stackvis drops the empty stack of a sample
#     without any frame: --user-callchains, record never came);
#   - no cookie frame ("(cookie)" or a bare number);
#   - root first, the workload's user frames (_start / start_thread,
#     main...) before the kernel frames (entry_SYSCALL_64_after_hwframe...),
#     in as many stacks as our perf script has samples with both;
#   - exactly our samples' frames (names and depth), read stackvis's way.
# On mt_defer, `perf script -F comm,tid,time,event,ip,sym,dso | stackvis
# perf flamegraph-svg` (no symbol offsets: one box per function) is
# well-formed SVG whose bottom box has every sample, whose outermost
# functions are those of our samples (start_thread for 95 %), as deep as
# the deepest sample (tests/tools/stackvis_check.py svg).
#
# The test can fail: the collapsed stacks of `perf script
# --no-merge-callchains` (what perf 7.2 also prints with that option) have
# cookie frames and a stack per record: the check must reject them.
#
# DOCS_OUT=DIR also writes DIR/flamegraph-mt_defer.svg and, with
# rsvg-convert (Debian's librsvg2-bin), DIR/flamegraph-mt_defer.png and
# DIR/flamegraph-mt_defer-nomerge.png (the pictures of docs/views.md).
. "$(dirname "$0")/../lib.sh"

{ command -v node && command -v npm; } > /dev/null ||
	skip "node and npm are needed for stackvis"
S=$(symroot)
TOOLS=$TOP/tests/tools
NODE=$TOP/build/node/stackvis
SV=$NODE/node_modules/.bin/stackvis

# install the pinned stackvis (again if the lock file changed)
mkdir -p "$NODE"
exec 9> "$NODE/.lock"
flock 9
if [ ! -x "$SV" ] || ! cmp -s "$TOOLS/stackvis/package-lock.json" "$NODE/package-lock.json"; then
	cp "$TOOLS/stackvis/package.json" "$TOOLS/stackvis/package-lock.json" "$NODE/"
	if ! (cd "$NODE" && npm ci --ignore-scripts --no-audit --no-fund) > "$TMPD/npm.log" 2>&1; then
		rm -f "$NODE/package-lock.json"
		skip "npm ci of stackvis failed (no npm registry?): $(tail -3 "$TMPD/npm.log")"
	fi
fi
exec 9>&-
[ -x "$SV" ] || skip "no stackvis in $NODE after npm ci"

samples() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' \
		"$FIX/analysis/$1.stats.json"
}

# stackvis MODE IN OUT: stackvis perf MODE < IN > OUT
stackvis() {
	if ! "$SV" perf "$1" < "$2" > "$3" 2> "$3.err"; then
		echo "FAIL $name: stackvis perf $1 failed: $(head -3 "$3.err")"
		return 1
	fi
}

bad=0
n=0
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	o=$TMPD/$name
	# shellcheck disable=SC2086 # $S is a list of options
	"$PERF" script $S -i "$data" > "$o.txt" 2> /dev/null || fail "$name: perf script failed"
	stackvis collapsed "$o.txt" "$o.collapsed" || { bad=$((bad + 1)); continue; }
	if r=$(python3 "$TOOLS/stackvis_check.py" collapsed "$o.txt" "$o.collapsed" \
		"$(samples "$name")"); then
		echo "ok   $name: $r"
	else
		echo "FAIL $name: $r"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no *_defer recordings in $FIX/data"

# the flame graph of mt_defer
name=mt_defer
data=$FIX/data/$name.data
# shellcheck disable=SC2086 # $S is a list of options
"$PERF" script $S -F comm,tid,time,event,ip,sym,dso -i "$data" > "$TMPD/fg.txt" 2> /dev/null ||
	fail "perf script -F failed"
stackvis flamegraph-svg "$TMPD/fg.txt" "$TMPD/fg.svg" || fail "no flame graph"
if r=$(python3 "$TOOLS/stackvis_check.py" svg "$TMPD/fg.txt" "$TMPD/fg.svg" "$(samples $name)"); then
	echo "ok   $name flame graph: $r"
else
	echo "FAIL $name flame graph: $r"
	bad=$((bad + 1))
fi

# the check rejects what is not merged
# shellcheck disable=SC2086 # $S is a list of options
"$PERF" script $S --no-merge-callchains -i "$data" > "$TMPD/nm.txt" 2> /dev/null ||
	fail "perf script --no-merge-callchains failed"
stackvis collapsed "$TMPD/nm.txt" "$TMPD/nm.collapsed" || fail "stackvis failed"
if r=$(python3 "$TOOLS/stackvis_check.py" collapsed "$TMPD/nm.txt" "$TMPD/nm.collapsed" \
	"$(samples $name)"); then
	fail "the check passes on --no-merge-callchains output: $r"
fi
echo "ok   the check rejects --no-merge-callchains output:$(echo "$r" | sed 1d | tr -s ' ' | paste -sd ';')"

if [ -n "${DOCS_OUT:-}" ]; then
	mkdir -p "$DOCS_OUT"
	cp "$TMPD/fg.svg" "$DOCS_OUT/flamegraph-mt_defer.svg"
	if command -v rsvg-convert > /dev/null; then
		# shellcheck disable=SC2086 # $S is a list of options
		"$PERF" script $S --no-merge-callchains -F comm,tid,time,event,ip,sym,dso \
			-i "$data" > "$TMPD/fg-nm.txt" 2> /dev/null
		stackvis flamegraph-svg "$TMPD/fg-nm.txt" "$TMPD/fg-nm.svg"
		rsvg-convert -w 1200 "$TMPD/fg.svg" -o "$DOCS_OUT/flamegraph-mt_defer.png"
		rsvg-convert -w 1200 "$TMPD/fg-nm.svg" -o "$DOCS_OUT/flamegraph-mt_defer-nomerge.png"
	else
		echo "note: no rsvg-convert (apt-get install librsvg2-bin): no PNG written"
	fi
	echo "wrote the flame graphs to $DOCS_OUT"
fi

[ "$bad" = 0 ] || fail "$bad checks failed"
echo "all $n recordings: stackvis reads merged stacks, user frames below kernel frames"
