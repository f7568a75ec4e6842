#!/bin/bash
# run.sh - the peer test suite: upstream perf 7.3's own 'perf test' (the C
# tests and the shell tests of tools/perf/tests/shell) on perf 7.3 without
# the 7.3 series (build/perf-7.3-base, built from the tag 'base') and with
# it (build/perf-7.3), and whether every test that passes without the
# series passes with it: pass(series) ⊇ pass(base).  'make peer'.
#
#   tests/peer/run.sh              build both if needed, run both, compare
#   tests/peer/run.sh --baseline   run the base twice and write the pass
#                                  list (tests/peer/pass-7.3-base.txt: the
#                                  tests that passed both times) and add
#                                  the tests that passed only once to
#                                  tests/peer/flaky-7.3.txt
#
# Each perf runs from its own tree's tools/perf with its build directory
# first in PATH (the shell tests are found relative to the cwd and run
# 'perf' from PATH), as root, one test at a time (perf test -S: the
# machine is small and shared, parallel runs flake), without the suites
# named in tests/peer/skip-7.3.txt (they fail, hang or take minutes here
# for reasons that are not ours; perf test -s takes numbers, and numbers
# depend on the cwd: the names are looked up in 'perf test list').  A test
# is its suite's name, or "suite / case" for a suite of several cases.
# The tests in tests/peer/flaky-7.3.txt are left out of the comparison (and
# listed when their result differs).  When the series' tree is the base's
# (an empty series) the base's results stand for both.
#
# Results in build/peer/: base.log, series.log (perf test's output),
# base.results, series.results ("RESULT<tab>TEST"), pass-base.txt,
# pass-series.txt.  The last line says whether pass(series) ⊇ pass(base);
# exit 0 if it holds, 1 if not, 77 (SKIP: reason) when it cannot run.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/peer
out=$top/build/peer
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
mode=compare
case "${1:-}" in
"") ;;
--baseline) mode=baseline ;;
*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "SKIP: perf test needs root here"; exit 77; }
mkdir -p "$out"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
names() { [ -f "$1" ] && sed 's/#.*//; s/[[:space:]]*$//; s/^[[:space:]]*//; /^$/d' "$1"; }
t0=$(now)

# --- the two perfs -----------------------------------------------------------
export SERIES=7.3
"$top/scripts/build-base-perf.sh" > "$out/build-base.log" 2>&1 ||
	{ tail -20 "$out/build-base.log"; echo "peer: building build/perf-7.3-base failed" >&2; exit 1; }
if [ $mode = compare ]; then
	{ "$top/scripts/apply.sh" --if-needed && "$top/scripts/build-perf.sh"; } > "$out/build-series.log" 2>&1 ||
		{ tail -20 "$out/build-series.log"; echo "peer: building build/perf-7.3 failed" >&2; exit 1; }
fi
t_built=$(now)
base_src=$top/build/wt/base-7.3 series_src=$top/build/src-7.3
# (the base's own tools/perf: its tests and their scripts)
if [ ! -e "$base_src/.git" ]; then
	mkdir -p "$(dirname "$base_src")"
	git -C "$series_src" worktree prune
	git -C "$series_src" worktree add -q --detach "$base_src" base
fi

# run_tests NAME SRC PERF: perf test, results in $out/NAME.results
run_tests() {
	local name=$1 dir=$2/tools/perf perf=$3 skip
	# the numbers of the suites to skip, from this cwd's list
	skip=$(cd "$dir" && PATH=$(dirname "$perf"):$PATH "$perf" test list 2>/dev/null |
		awk -v list="$here/skip-7.3.txt" '
			BEGIN { while ((getline l < list) > 0) {
					sub(/#.*/, "", l); gsub(/^[ \t]+|[ \t]+$/, "", l)
					if (l != "") want[l] = 1 } }
			/^ *[0-9]+: / { n = $1; sub(/:$/, "", n); t = $0
					sub(/^ *[0-9]+: /, "", t); gsub(/[ \t]+$/, "", t)
					if (t in want) s = s (s ? "," : "") n }
			END { print s }')
	echo "peer: $name: perf test -S ${skip:+-s $skip} (from ${dir#$top/})"
	# (line-buffered, each line stamped: how long each test took, in
	# $out/NAME.times)
	mkdir -p "$out/home-$name"
	(cd "$dir" && PATH=$(dirname "$perf"):$PATH HOME=$out/home-$name \
		timeout 3600 stdbuf -oL -eL "$perf" test -S ${skip:+-s "$skip"} 2>&1 < /dev/null |
		while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done) > "$out/$name.log.ts"
	cut -d' ' -f2- "$out/$name.log.ts" > "$out/$name.log"
	awk 'NR == 1 { prev = $1 }
		/ : (Ok|FAILED!|Skip)/ { d = $1 - prev; prev = $1; $1 = ""; printf "%6.1f %s\n", d, $0 }' \
		"$out/$name.log.ts" > "$out/$name.times"
	# " 5: Suite name:" heads the cases " 5.1: Case : Ok"; a suite of one
	# case is " 1: Name : Ok"
	awk '
		/^ *[0-9]+: .*:$/ { suite = $0; sub(/^ *[0-9]+: /, "", suite); sub(/ *:$/, "", suite); next }
		/^ *[0-9]+(\.[0-9]+)?: .* : (Ok|FAILED!|Skip)/ {
			line = $0
			sub(/^ *[0-9]+/, "", line); iscase = (line ~ /^\.[0-9]+:/)
			sub(/^(\.[0-9]+)?: /, "", line)
			res = line; sub(/.* : /, "", res); sub(/ .*/, "", res)
			sub(/ +: (Ok|FAILED!|Skip).*$/, "", line)
			if (res == "FAILED!") res = "FAIL"; else if (res == "Skip") res = "SKIP"; else res = "PASS"
			printf "%s\t%s\n", res, (iscase ? suite " / " line : line)
		}' "$out/$name.log" > "$out/$name.results"
	# a suite that gains cases keeps its name as its first case's
	# ("Sample parsing" becomes "Sample parsing / Sample parsing"): the
	# same test
	grep '^PASS' "$out/$name.results" | cut -f2 |
		awk -F' / ' 'NF == 2 && $1 == $2 { $0 = $1 } { print }' | sort -u > "$out/pass-$name.txt"
	echo "peer: $name: $(grep -c '^PASS' "$out/$name.results") passed," \
		"$(grep -c '^FAIL' "$out/$name.results") failed, $(grep -c '^SKIP' "$out/$name.results") skipped"
}

if [ $mode = baseline ]; then
	t=$(now)
	run_tests base "$base_src" "$top/build/perf-7.3-base/perf"
	echo "peer: base run 1 took $(secs "$t" "$(now)") s"
	cp "$out/pass-base.txt" "$out/pass-base-1.txt"
	t=$(now)
	run_tests base "$base_src" "$top/build/perf-7.3-base/perf"
	echo "peer: base run 2 took $(secs "$t" "$(now)") s"
	comm -12 "$out/pass-base-1.txt" "$out/pass-base.txt" > "$here/pass-7.3-base.txt"
	comm -3 "$out/pass-base-1.txt" "$out/pass-base.txt" | sed 's/^\t//' > "$out/flaky.new"
	# (the file as it is, its comments too, then the new ones)
	names "$here/flaky-7.3.txt" | sort -u > "$out/flaky.old"
	sort -u "$out/flaky.new" | comm -13 "$out/flaky.old" - |
		sed "s/\$/\t# 1 of 2 baseline runs ($(date +%F))/" >> "$here/flaky-7.3.txt"
	echo "peer: baseline: $(wc -l < "$here/pass-7.3-base.txt") tests passed both runs" \
		"(tests/peer/pass-7.3-base.txt); passed once: $(wc -l < "$out/flaky.new")" \
		"$(paste -sd';' "$out/flaky.new")"
	echo "peer: total $(secs "$t0" "$(now)") s"
	exit 0
fi

t=$(now)
run_tests base "$base_src" "$top/build/perf-7.3-base/perf"
t_base=$(secs "$t" "$(now)")
btree=$(git -C "$top/build/src-7.3" rev-parse 'base^{tree}')
stree=$(git -C "$top/build/src-7.3" rev-parse 'HEAD^{tree}')
if [ "$btree" = "$stree" ] && [ -z "$(git -C "$top/build/src-7.3" status --porcelain --untracked-files=no)" ]; then
	echo "peer: series: build/src-7.3 is the base (an empty series): the base's results stand"
	cp "$out/base.results" "$out/series.results"
	cp "$out/pass-base.txt" "$out/pass-series.txt"
	t_series=0
else
	t=$(now)
	run_tests series "$series_src" "$top/build/perf-7.3/perf"
	t_series=$(secs "$t" "$(now)")
fi

# --- compare -------------------------------------------------------------------
names "$here/flaky-7.3.txt" | sort -u > "$out/flaky.txt"
comm -23 "$out/pass-base.txt" "$out/pass-series.txt" | comm -23 - "$out/flaky.txt" > "$out/lost.txt"
comm -13 "$out/pass-base.txt" "$out/pass-series.txt" > "$out/gained.txt"
flaky_diff=$( { comm -3 "$out/pass-base.txt" "$out/pass-series.txt" | sed 's/^\t//'; } |
	comm -12 - "$out/flaky.txt" | paste -sd';')
# the base against the stored baseline: the same machine should pass the same
names "$here/pass-7.3-base.txt" | sort -u > "$out/baseline.txt"
bl_lost=$(comm -23 "$out/baseline.txt" "$out/pass-base.txt" | comm -23 - "$out/flaky.txt" | paste -sd';')
bl_new=$(comm -13 "$out/baseline.txt" "$out/pass-base.txt" | comm -23 - "$out/flaky.txt" | paste -sd';')
[ -z "$bl_lost" ] || echo "peer: note: the base passes fewer tests than tests/peer/pass-7.3-base.txt here: $bl_lost"
[ -z "$bl_new" ] || echo "peer: note: the base passes tests that tests/peer/pass-7.3-base.txt does not list: $bl_new"
[ -z "$flaky_diff" ] || echo "peer: flaky (tests/peer/flaky-7.3.txt), not compared: $flaky_diff"
[ -s "$out/gained.txt" ] && echo "peer: pass with the series only: $(paste -sd';' "$out/gained.txt")"
echo "peer: times: builds $(secs "$t0" "$t_built") s, base $t_base s, series $t_series s," \
	"total $(secs "$t0" "$(now)") s"
if [ -s "$out/lost.txt" ]; then
	echo "peer: pass(series) ⊇ pass(base): NO; $(wc -l < "$out/lost.txt") test(s) pass without the series only:"
	sed 's/^/peer:   /' "$out/lost.txt"
	exit 1
fi
echo "peer: pass(series) ⊇ pass(base): yes ($(wc -l < "$out/pass-series.txt") and $(wc -l < "$out/pass-base.txt") tests pass)"
