#!/bin/bash
# targets.sh - the measured targets of the merge (docs/bench.md; written to
# build/bench/targets.md): the shapes where a merge goes quadratic, grows
# with its input or loses samples, each measured as ratios between runs of
# this one invocation (variants round-robin, best wall time of REPS runs,
# largest peak RSS).  `make bench` runs it after run.sh; not part of the tests.
#
#   long entry    one thread sampled N times in one kernel entry (a 20 s
#                 system call at 4 kHz is 80k samples), N = 8k, 80k, 800k:
#                 perf script merged, --no-merge-callchains and the floor
#                 file (the same samples with full callchains), upstream
#                 perf merged, and how many samples got their user part
#                 (perf report --stats, and perf script's warnings); merged
#                 prints the user frames that --no-merge-callchains does not,
#                 so the merge's own cost is merged / no-merge with -G (no
#                 call graph printed: the same output)
#   pipes         perf inject --merge-callchains and perf report --stats
#                 reading a pipe of 100k and of 1M samples (1024 threads):
#                 peak RSS must stay flat
#   no EXIT       100k threads that take two kernel entries each and never
#                 exit (no EXIT event): peak RSS of perf script, ours and
#                 upstream's
#   off-CPU       run.sh's offcpu-1M file: 1000 blocked threads whose
#                 records come at the end: peak RSS merged against
#                 --no-merge-callchains, blocked samples merged
#   1M-32kt       run.sh's 1M-32kt file: perf script merged / floor (wall)
#                 and perf report --stats merged / floor; instructions with
#                 tests/bench/instructions.sh when --instructions is given
#                 (about 10 more minutes), and perf script's instructions
#                 with our 7.3 series against perf 7.3 as it is, the same
#                 build (build/perf-7.3/perf, build/perf-7.3-base/perf:
#                 $PERF, $PERFBASE), on entry-80k, noexit and 1M-32kt
#                 (about 6 more minutes)
#
# Usage: tests/bench/targets.sh [--reps N] [--instructions] [--out FILE]
# Data files go to build/bench/data (shared with run.sh, same keys).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PERF=${PERF:-$TOP/build/perf-7.3/perf}
PERFBASE=${PERFBASE:-$TOP/build/perf-7.3-base/perf}
UP=$TOP/tests/tools/upstream-perf.sh
GEN=$TOP/tests/tools/gen_perfdata.py
DATA=$TOP/build/bench/data
OUT=$TOP/build/bench/targets.md
REPS=3 INSTR=0
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift ;;
	--instructions) INSTR=1 ;;
	--out) OUT=$2; shift ;;
	*) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2 ;;
	esac
	shift
done
export LC_ALL=C PERF_CONFIG=/dev/null
W=$(mktemp -d "${TMPDIR:-/tmp}/perf-defer-targets.XXXXXX")
trap 'rm -rf "$W"' EXIT
export HOME=$W
SYMS=$TOP/build/symfs/kallsyms.txt
if [ ! -s "$SYMS" ]; then
	mkdir -p "${SYMS%/*}"
	xz -dc "$TOP/tests/fixtures/real-7.2/sysinfo/kallsyms.txt.xz" > "$SYMS.tmp" && mv "$SYMS.tmp" "$SYMS"
fi
K=--kallsyms=$SYMS
up=0
"$UP" --setup 2> /dev/null && up=1
mkdir -p "$DATA"
gsum=$(sha1sum < "$GEN" | cut -c1-12)

# gen NAME [--floor] ARGS...: build/bench/data/NAME.data (and .floor.data)
gen() {
	local name=$1 fopt=() key
	shift
	[ "$1" = --floor ] && { fopt=(--floor "$DATA/$name.floor.data"); shift; }
	key="$gsum $*"
	[ -s "$DATA/$name.json" ] && [ "$(cat "$DATA/$name.key" 2> /dev/null)" = "$key" ] && return
	echo "generating $name: $*"
	nice python3 "$GEN" -o "$DATA/$name.data" "${fopt[@]}" "$@" > "$DATA/$name.json" ||
		{ echo "generator failed" >&2; exit 1; }
	echo "$key" > "$DATA/$name.key"
}

# run TAG [<FILE] CMD...: one run, "TAG WALL RSS-MB" appended to $W/res
run() {
	local tag=$1 in=/dev/null t0 t1 rc
	shift
	case $1 in \<*) in=${1#<}; shift ;; esac
	t0=$EPOCHREALTIME
	/usr/bin/time -o "$W/t" -f "%M" "$@" < "$in" > /dev/null 2> "$W/err.$tag"
	rc=$?
	t1=$EPOCHREALTIME
	[ $rc = 0 ] || echo "  $tag: exit $rc: $(tail -2 "$W/err.$tag" | tr '\n' ' ')" >&2
	echo "$tag $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }") $(($(tail -1 "$W/t") / 1024))" >> "$W/res"
}
# best TAG: best wall time; rss TAG: largest peak RSS (MB)
best() { awk -v t="$1" '$1 == t && (b == "" || $2 < b) { b = $2 } END { print b }' "$W/res"; }
rss() { awk -v t="$1" '$1 == t && $3 > m { m = $3 } END { print m + 0 }' "$W/res"; }
ratio() { awk "BEGIN { printf \"%.2fx\", $1 / $2 }"; }
# merged TAG: samples merged by perf report --stats of the file TAG names
counter() { "$PERF" report --stats -i "$1" 2> /dev/null | awk -v k="$2" -F: '$1 ~ "^ *"k"$" { print $2 + 0 }'; }
: > "$W/res"
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
{
echo "## Merge v3: the targets"
echo
echo "Written by \`tests/bench/targets.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, load $load0 at the start; best of $REPS runs (round-robin), peak RSS the largest. Ours: \`$("$PERF" version)\`; upstream: \`$([ $up = 1 ] && "$UP" version)\`."
echo
} > "$W/md"

# -- long entry
echo "| samples in one kernel entry | merged, s | --no-merge-callchains, s | floor, s | merged / no-merge | merged / floor | -G: merged / no-merge | merged (--stats) | without user part (perf script) | peak RSS merged, MB | upstream merged, s |" >> "$W/md"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" >> "$W/md"
for n in 8000 80000 800000; do
	name=entry-$((n / 1000))k
	gen $name --floor --samples $n --threads 1 --per-entry $n --user-frac 0 --cpus 1 --seed 1
	d=$DATA/$name.data
	for _ in $(seq "$REPS"); do
		run $name-m "$PERF" script $K -i "$d"
		run $name-n "$PERF" script $K --no-merge-callchains -i "$d"
		run $name-f "$PERF" script $K -i "$DATA/$name.floor.data"
		run $name-gm "$PERF" script -G $K -i "$d"
		run $name-gn "$PERF" script -G $K --no-merge-callchains -i "$d"
		[ $up = 1 ] && run $name-u "$UP" script $K -i "$d"
	done
	lost=$(grep -o '^[0-9]* of [0-9]* samples with a deferred' "$W/err.$name-m" | cut -d' ' -f1)
	m=$(best $name-m) nm=$(best $name-n) f=$(best $name-f)
	echo "| $n | $m | $nm | $f | $(ratio "$m" "$nm") | $(ratio "$m" "$f") | $(ratio "$(best $name-gm)" "$(best $name-gn)") | $(counter "$d" merged) | ${lost:-0} | $(rss $name-m) | $([ $up = 1 ] && best $name-u) |" >> "$W/md"
done
echo >> "$W/md"

# -- pipes
echo "| pipe, 1024 threads | 100k samples: peak RSS, MB | 1M samples: peak RSS, MB | 10x the input | wall 100k / 1M, s |" >> "$W/md"
echo "| --- | --- | --- | --- | --- |" >> "$W/md"
for n in 100k:100000 1M:1000000; do
	gen pipe-${n%:*} --mode pipe --samples ${n#*:} --threads 1024 --per-entry 1 --user-frac 0.3 \
		--cpus 2 --migrate 0.05 --late 0.005 --missing 0.003
done
for what in inject report-stats upstream-report-stats; do
	[ $what = upstream-report-stats ] && [ $up = 0 ] && continue
	for n in 100k 1M; do
		p=$DATA/pipe-$n.data
		case $what in
		inject) run $what-$n "<$p" "$PERF" inject --merge-callchains -i - -o - ;;
		report-stats) run $what-$n "<$p" "$PERF" report --stats -i - ;;
		*) run $what-$n "<$p" "$UP" report --stats -i - ;;
		esac
	done
	echo "| \`$what\` | $(rss $what-100k) | $(rss $what-1M) | $(ratio "$(rss $what-1M)" "$(rss $what-100k)") | $(best $what-100k) / $(best $what-1M) |" >> "$W/md"
done
echo >> "$W/md"

# -- threads that never exit
gen noexit --samples 200000 --threads 100000 --per-entry 1 --user-frac 0.3 --cpus 2 --seed 2
d=$DATA/noexit.data
for _ in $(seq "$REPS"); do
	run noexit-m "$PERF" script $K -i "$d"
	run noexit-n "$PERF" script $K --no-merge-callchains -i "$d"
	[ $up = 1 ] && run noexit-u "$UP" script $K -i "$d"
done
echo "| 100k threads without EXIT (200k samples) | merged | --no-merge-callchains | upstream merged | ours / upstream |" >> "$W/md"
echo "| --- | --- | --- | --- | --- |" >> "$W/md"
echo "| peak RSS, MB | $(rss noexit-m) | $(rss noexit-n) | $(rss noexit-u) | $([ $up = 1 ] && ratio "$(rss noexit-m)" "$(rss noexit-u)") |" >> "$W/md"
echo "| wall, s | $(best noexit-m) | $(best noexit-n) | $(best noexit-u) | $([ $up = 1 ] && ratio "$(best noexit-m)" "$(best noexit-u)") |" >> "$W/md"
echo >> "$W/md"

# -- off-CPU (run.sh's offcpu-1M) and 1M-32kt (run.sh's 1M-32kt)
gen offcpu-1M --samples 1000000 --threads 1 --per-entry 1 --user-frac 0.3 --cpus 2 --blocked 1000
run offcpu-m "$PERF" script $K -i "$DATA/offcpu-1M.data"
run offcpu-n "$PERF" script $K --no-merge-callchains -i "$DATA/offcpu-1M.data"
lost=$(grep -o '^[0-9]* of [0-9]* samples with a deferred' "$W/err.offcpu-m" | cut -d' ' -f1)
echo "| off-CPU 1M, 1000 blocked threads | merged | --no-merge-callchains | difference |" >> "$W/md"
echo "| --- | --- | --- | --- |" >> "$W/md"
echo "| peak RSS, MB | $(rss offcpu-m) | $(rss offcpu-n) | +$(($(rss offcpu-m) - $(rss offcpu-n))) MB |" >> "$W/md"
echo "| wall, s | $(best offcpu-m) | $(best offcpu-n) | $(ratio "$(best offcpu-m)" "$(best offcpu-n)") |" >> "$W/md"
echo "| samples without user part | ${lost:-0} | | |" >> "$W/md"
echo >> "$W/md"

gen 1M-32kt --floor --samples 1000000 --threads 32768 --per-entry 1 --user-frac 0.3 --cpus 2 \
	--migrate 0.05 --late 0.005 --missing 0.003
d=$DATA/1M-32kt.data f=$DATA/1M-32kt.floor.data
for _ in $(seq 5); do
	run big-m "$PERF" script $K -i "$d"
	run big-f "$PERF" script $K -i "$f"
	run big-s "$PERF" report --stats -i "$d"
	run big-sf "$PERF" report --stats -i "$f"
done
[ $up = 1 ] && run big-u "$UP" script $K -i "$d" && run big-us "$UP" report --stats -i "$d"
echo "| 1M samples, 32k threads | merged, s | floor, s | merged / floor | upstream merged, s |" >> "$W/md"
echo "| --- | --- | --- | --- | --- |" >> "$W/md"
echo "| \`perf script\` (best of 5) | $(best big-m) | $(best big-f) | $(ratio "$(best big-m)" "$(best big-f)") | $(best big-u) |" >> "$W/md"
echo "| \`perf report --stats\` (best of 5) | $(best big-s) | $(best big-sf) | $(ratio "$(best big-s)" "$(best big-sf)") | $(best big-us) |" >> "$W/md"
if [ $INSTR = 1 ]; then
	"$TOP/tests/bench/instructions.sh" 1M-32kt "$PERF" > "$W/instr" 2>&1
	echo >> "$W/md"
	echo "Instructions (\`tests/bench/instructions.sh\`, cachegrind):" >> "$W/md"
	echo >> "$W/md"
	sed 's/^/    /' "$W/instr" >> "$W/md"
	# ours against upstream on the same base, built the same way: perf 7.3
	# with our 7.3 series and without it (wall times above compare our
	# build with Debian's, whose printing alone can differ by ~5%)
	if [ -x "$PERF" ] && [ -x "$PERFBASE" ]; then
		echo >> "$W/md"
		echo "Instructions of \`perf script\`, perf 7.3 with our 7.3 series against perf 7.3 as it is (\`${PERFBASE#"$TOP"/}\`), the same build (cachegrind Ir; the two outputs compared):" >> "$W/md"
		echo >> "$W/md"
		echo "| file | ours, G | upstream, G | ours / upstream | outputs |" >> "$W/md"
		echo "| --- | --- | --- | --- | --- |" >> "$W/md"
		for name in entry-80k noexit 1M-32kt; do
			for v in ours up; do
				p=$PERF
				[ $v = up ] && p=$PERFBASE
				valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
					"$p" script $K -i "$DATA/$name.data" > "$W/out.$v" 2> "$W/ir.$v" &
			done
			wait
			o=$(sed -n 's/.*I *refs: *//p' "$W/ir.ours" | tr -d ,)
			u=$(sed -n 's/.*I *refs: *//p' "$W/ir.up" | tr -d ,)
			same=differ
			cmp -s "$W/out.ours" "$W/out.up" && same=identical
			echo "| $name | $(awk -v x="$o" 'BEGIN { printf "%.3f", x / 1e9 }') | $(awk -v x="$u" 'BEGIN { printf "%.3f", x / 1e9 }') | $(awk -v a="$o" -v b="$u" 'BEGIN { printf "%.3fx", a / b }') | $same |" >> "$W/md"
		done
	else
		echo >> "$W/md"
		echo "Not measured: ours against upstream on the same build needs $PERF and $PERFBASE (\`make build\`, \`SERIES=7.3 scripts/build-base-perf.sh\`)." >> "$W/md"
	fi
fi
echo >> "$W/md"
echo "$(($(date +%s) - start)) s in all; load $(cut -d' ' -f1-3 /proc/loadavg) at the end." >> "$W/md"
mkdir -p "$(dirname "$OUT")"
cp "$W/md" "$OUT"
cat "$OUT"
