#!/bin/bash
# run.sh - benchmark of deferred callchain processing (`make bench`; not part
# of the tests).
#
# For a matrix of generated recordings (tests/tools/gen_perfdata.py: N
# samples, T threads) it measures the wall time (best of REPS runs) and the
# peak RSS (GNU time %M, largest of the runs) of
#     perf script             and   perf report --stdio
# on the deferred file (merged: the default), with --no-merge-callchains
# (where the command has it), and on the "floor" file (the same samples with
# ordinary full callchains), and perf report --stats on the deferred and the
# floor file, for our perf ($PERF, default build/perf-7.3/perf: perf 7.3
# with the 7.3 series) and for upstream perf (tests/tools/upstream-perf.sh:
# Debian trixie-backports' linux-perf 7.3) on the same files.
# Two off-CPU files (gen_perfdata.py --blocked: 1000 threads that each take
# one sample early and get their record only at the very end, across 1M and
# 10M sample/record pairs of another thread; no floor file) get perf script
# merged and --no-merge-callchains, and our perf report --stats (whose
# counters are kept); afterwards one untimed perf script --tid of the
# blocked threads counts how many of their samples got a user part.
# Every ratio in the output is between runs of this one invocation.  Results
# go to stdout and, as Markdown, to docs/bench.md (--out FILE to change),
# below its line "<!-- tests/bench/run.sh writes below this line -->": what
# is above it (the tools, the files, the dated measurements) is kept.
#
# Usage: tests/bench/run.sh [--full] [--reps N] [--cells REGEX] [--no-upstream]
#                           [--timeout SEC] [--big-timeout SEC] [--out FILE]
#                           [--table-only]
#   default matrix: 5 files, 1k..1M samples, 1..32k threads (runs per
#                   variant: 7 for the 1k and 10k files, 2 for the 1M one, 3
#                   for the others; --reps N for all), and the two off-CPU
#                   files (1 run each): ~40-60 min on 2 cores, most of it the
#                   10M off-CPU file (2.2 GB, generated once in ~4 min CPU)
#                   and upstream on the off-CPU files; --cells 'k-|kt'
#                   for the old 10-15 min matrix
#   --full          1k,10k,100k,1M samples x 1,64,1024,32768 threads (threads
#                   <= samples; 3 runs, 1 for 1M) interleaved, plus the burst
#                   schedule (every thread pending at once) for each thread
#                   count; upstream's merge is quadratic in pending samples,
#                   so some upstream cells hit --timeout (default 600 s):
#                   expect about an hour (an estimate)
#   --cells REGEX   only the files whose name matches (e.g. --cells 32k)
#   --big-timeout SEC  timeout of upstream perf on the 10M off-CPU file
#                   (default 300: its merge scans every pending sample for
#                   every record, about 43 s per 1M pairs)
#   --table-only    rewrite the table from the last run's raw results
#                   (build/bench/results.txt), measuring nothing
# Our --no-merge-callchains is detected with `$PERF script -h`; if $PERF
# lacks it, our merged and unmerged columns are n/a.
# Generated files are kept in build/bench/data (regenerated when the
# generator or its arguments change).  The machine should be otherwise idle.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PERF=${PERF:-$TOP/build/perf-7.3/perf}
UP=$TOP/tests/tools/upstream-perf.sh
GEN=$TOP/tests/tools/gen_perfdata.py
OUT=$TOP/docs/bench.md
DATA=$TOP/build/bench/data
REPS= FULL=0 CELLS=. UPSTREAM=1 TIMEOUT=600 BIG_TIMEOUT=300 TABLE_ONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	--full) FULL=1 ;;
	--reps) REPS=$2; shift ;;
	--cells) CELLS=$2; shift ;;
	--no-upstream) UPSTREAM=0 ;;
	--timeout) TIMEOUT=$2; shift ;;
	--big-timeout) BIG_TIMEOUT=$2; shift ;;
	--out) OUT=$2; shift ;;
	--table-only) TABLE_ONLY=1 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

export LC_ALL=C PERF_CONFIG=/dev/null
# what is above this line of $OUT stays (the tools, the dated measurements)
marker='<!-- tests/bench/run.sh writes below this line -->'
write_out() { # MARKDOWN: $OUT's part above the marker, then MARKDOWN
	{
		[ -f "$OUT" ] && grep -qxF "$marker" "$OUT" &&
			awk -v m="$marker" '{ print } $0 == m { print ""; exit }' "$OUT"
		cat "$1"
	} > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
}

if [ $TABLE_ONLY = 1 ]; then  # again from build/bench/*.txt of the last run
	B=$TOP/build/bench
	[ -s "$B/results.txt" ] || { echo "no $B/results.txt: run the benchmark first" >&2; exit 1; }
	{ read -r elapsed BENCH_LOAD; read -r om; read -r ourver; read -r upver; } < "$B/run-info.txt"
	export BENCH_LOAD
	python3 "$TOP/tests/bench/table.py" "$B/results.txt" "$B/cells.txt" "$B/data" "$elapsed" \
		"${REPS:--}" "$ourver" "$upver" "$om" "$B" > "$B/table.md" &&
		write_out "$B/table.md" && cat "$OUT" && echo "written: $OUT"
	exit
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/perf-defer-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK  # no build-id cache, no ~/.perfconfig
[ -x "$PERF" ] || { echo "no perf at $PERF (make build)" >&2; exit 1; }
[ -x /usr/bin/time ] || apt-get install -y -q time > /dev/null 2>&1 ||
	{ echo "GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

# symbolise kernel frames with the fixtures' guest kallsyms, never the host's
SYMS=$TOP/build/symfs/kallsyms.txt
if [ ! -s "$SYMS" ]; then
	mkdir -p "${SYMS%/*}"
	xz -dc "$TOP/tests/fixtures/real-7.2/sysinfo/kallsyms.txt.xz" > "$SYMS.tmp" && mv "$SYMS.tmp" "$SYMS"
fi
KOPT=--kallsyms=$SYMS

ours_merge=0
"$PERF" script -h 2>&1 | grep -q -- '--merge-callchains' && ours_merge=1
ours_report_merge=0
"$PERF" report -h 2>&1 | grep -q -- '--merge-callchains' && ours_report_merge=1
up=0
if [ $UPSTREAM = 1 ]; then
	if "$UP" --setup 2> "$WORK/up.err"; then up=1
	else echo "upstream perf not available: $(cat "$WORK/up.err")" >&2
	fi
fi

# realistic recordings: mostly one sample per kernel entry, 30 % user-mode
# entries, a few records in another CPU's buffer, late samples and missing
# records at the rates of the real recordings (0-1.3 %).
REAL="--per-entry 1 --user-frac 0.3 --cpus 2 --migrate 0.05 --late 0.005 --missing 0.003"
# off-CPU: 1000 threads blocked from early on (one sample each, in
# __schedule under read()) whose records come only at the very end, across
# the plain sample/record pairs of one other thread
OFFCPU="--threads 1 --per-entry 1 --user-frac 0.3 --cpus 2 --blocked 1000"
# cells: NAME REPS GEN-ARGS (names offcpu-*: off-CPU files, no floor file)
cells() {
	echo "offcpu-1M ${REPS:-1} --samples 1000000 $OFFCPU"
	echo "offcpu-10M ${REPS:-1} --samples 10000000 $OFFCPU"
	if [ $FULL = 0 ]; then
		# small files are dominated by start-up time: more runs there
		echo "1k-1t ${REPS:-7} --samples 1000 --threads 1 $REAL"
		echo "10k-16t ${REPS:-7} --samples 10000 --threads 16 $REAL"
		echo "100k-256t ${REPS:-3} --samples 100000 --threads 256 $REAL"
		echo "1M-32kt ${REPS:-2} --samples 1000000 --threads 32768 $REAL"
		echo "32kt-1pending ${REPS:-3} --samples 32768 --threads 32768 --per-entry 1 --user-frac 0 --cpus 2 --schedule burst"
		return
	fi
	local n t r
	for n in 1000 10000 100000 1000000; do
		r=${REPS:-3}; [ $n -ge 1000000 ] && r=${REPS:-1}
		for t in 1 64 1024 32768; do
			[ $t -le $n ] || continue
			echo "$((n / 1000))k-${t}t $r --samples $n --threads $t $REAL"
			[ $t -gt 1 ] && echo "$((n / 1000))k-${t}t-burst $r --samples $n --threads $t --per-entry 1 --user-frac 0 --cpus 2 --schedule burst"
		done
	done
}

# run_once TAG CMD...: one timed run; appends "TAG WALL RSS-KB" to $WORK/res
# (WALL = timeout or error when it did not finish normally); stdout goes to
# $RUN_OUT (default /dev/null), the timeout is $RUN_TIMEOUT (default $TIMEOUT)
run_once() {
	local tag=$1 rc t0 t1 w m
	shift
	t0=$EPOCHREALTIME
	/usr/bin/time -o "$WORK/t" -f "%M" timeout "${RUN_TIMEOUT:-$TIMEOUT}" "$@" \
		> "${RUN_OUT:-/dev/null}" 2> "$WORK/err"
	rc=$?
	t1=$EPOCHREALTIME
	m=$(tail -1 "$WORK/t")
	case $m in *[!0-9]*|"") m=0 ;; esac
	if [ $rc = 124 ]; then w=timeout
	elif [ $rc != 0 ]; then
		w=error
		echo "  $tag: exit $rc: $(grep -v '^Command' "$WORK/err" | tail -2 | tr '\n' ' ')" >&2
	else w=$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")
	fi
	echo "$tag $w $m" >> "$WORK/res"
	printf '  %-34s %9s s %6s MB\n' "$tag" "$w" "$((m / 1024))"
}

mkdir -p "$DATA" "$TOP/build/bench/stats"
rm -f "$TOP/build/bench/stats/"*.txt
: > "$WORK/res"
: > "$WORK/checks"
: > "$WORK/cells"
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
gsum=$(sha1sum < "$GEN" | cut -c1-12)
cells | grep -E "^[^ ]*($CELLS)" | while read -r name reps args; do
	d=$DATA/$name.data f=$DATA/$name.floor.data j=$DATA/$name.json
	key="$gsum $args"
	offcpu=0 fopt=(--floor "$f")
	case $name in offcpu*) offcpu=1 fopt=(); rm -f "$f" ;; esac
	if [ ! -s "$j" ] || [ "$(cat "$DATA/$name.key" 2> /dev/null)" != "$key" ] ||
	   { [ $offcpu = 0 ] && [ ! -s "$f" ]; }; then
		echo "generating $name: $args"
		rm -f "$d" "$f" "$j"  # make room first (the 10M off-CPU file is 2.2 GB)
		# shellcheck disable=SC2086
		nice python3 "$GEN" -o "$d" "${fopt[@]}" $args > "$j" || { echo "generator failed" >&2; exit 1; }
		echo "$key" > "$DATA/$name.key"
	fi
	echo "$name $reps $args" >> "$WORK/cells"
	echo "$name ($(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%d samples, %d threads, %d records, max %d samples pending, %d MB" % (s["expect"]["samples"], s["threads"], s["expect"]["deferred_records"], s["max_pending_samples"], s["bytes"] >> 20))' "$j"))"
	# the variants, run round-robin REPS times so that a busy spell of the
	# machine hits all of them alike; a variant that timed out or failed is
	# not run again
	tags=() cmds=()
	for who in ours up; do
		case $who in
		ours) P=$PERF m=$ours_merge rm=$ours_report_merge ;;
		up) [ $up = 1 ] || continue; P=$UP m=1 rm=0 ;;
		esac
		if [ $offcpu = 1 ]; then
			tags+=("$who script merged"); cmds+=("$P script $KOPT -i $d")
			[ "$m" = 1 ] && { tags+=("$who script nomerge"); cmds+=("$P script --no-merge-callchains $KOPT -i $d"); }
			[ $who != up ] && { tags+=("$who stats merged"); cmds+=("$P report --stats $KOPT -i $d"); }
			continue
		fi
		tags+=("$who stats merged"); cmds+=("$P report --stats $KOPT -i $d")
		tags+=("$who stats floor"); cmds+=("$P report --stats $KOPT -i $f")
		if [ "$m" = 1 ]; then
			tags+=("$who script merged"); cmds+=("$P script $KOPT -i $d")
			tags+=("$who script nomerge"); cmds+=("$P script --no-merge-callchains $KOPT -i $d")
			tags+=("$who report merged"); cmds+=("$P report --stdio $KOPT -i $d")
			if [ "$rm" = 1 ]; then
				tags+=("$who report nomerge")
				cmds+=("$P report --stdio --no-merge-callchains $KOPT -i $d")
			fi
		fi
		tags+=("$who script floor"); cmds+=("$P script $KOPT -i $f")
		tags+=("$who report floor"); cmds+=("$P report --stdio $KOPT -i $f")
	done
	declare -A dead=()
	for ((r = 0; r < reps; r++)); do
		for i in "${!tags[@]}"; do
			[ -n "${dead[$i]:-}" ] && continue
			RUN_OUT=/dev/null RUN_TIMEOUT=$TIMEOUT
			# perf report --stats prints a few lines: kept (build/bench/stats)
			case ${tags[$i]} in *" stats "*)
				RUN_OUT=$TOP/build/bench/stats/$name.${tags[$i]// /-}.txt ;;
			esac
			case "$name ${tags[$i]}" in "offcpu-10M up "*) RUN_TIMEOUT=$BIG_TIMEOUT ;; esac
			# shellcheck disable=SC2086
			RUN_OUT=$RUN_OUT RUN_TIMEOUT=$RUN_TIMEOUT run_once "$name ${tags[$i]}" ${cmds[$i]}
			case $(tail -1 "$WORK/res" | cut -d' ' -f5) in timeout|error) dead[$i]=1 ;; esac
		done
	done
	# off-CPU: how many of the blocked threads' samples got a user part
	# (one untimed perf script of those threads; merged only where the
	# timed merged run finished)
	if [ $offcpu = 1 ]; then
		tids=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["scenarios"]["blocked"]; print(",".join(str(t) for t in range(b["first_tid"], b["last_tid"] + 1)))' "$j")
		for who in ours up; do
			[ $who = up ] && [ $up = 0 ] && continue
			grep -q "^$name $who script merged [0-9]" "$WORK/res" || continue
			case $who in ours) P=$PERF ;; up) P=$UP ;; esac
			to=$TIMEOUT
			[ "$name $who" = "offcpu-10M up" ] && to=$BIG_TIMEOUT
			echo "  $name $who: counting the blocked samples with a user part (untimed)"
			# shellcheck disable=SC2086
			if timeout "$to" $P script $KOPT --tid="$tids" -F comm,tid,ip,sym -i "$d" \
				> "$WORK/blocked.txt" 2> /dev/null; then
				# a sample: a line that does not start with a tab, then
				# its frames; user frames have short addresses
				read -r mm nn < <(awk '!NF { next }
					!/^\t/ { if (s) { n++; if (u) m++ } s = 1; u = 0; next }
					/\(cookie\)/ { next }
					length($1) < 16 { u = 1 }
					END { if (s) { n++; if (u) m++ } print m + 0, n + 0 }' "$WORK/blocked.txt")
				echo "$name $who blocked-merged $mm $nn" >> "$WORK/checks"
				echo "    $mm of $nn blocked samples with a user part"
			fi
		done
	fi
done || exit 1
elapsed=$(( $(date +%s) - start ))
export BENCH_LOAD="$load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"

mkdir -p "$(dirname "$OUT")"
# keep the raw runs: --table-only rewrites the table from them
upver=n/a
[ $up = 1 ] && upver=$("$UP" version 2> /dev/null)
ourver=$("$PERF" version 2> /dev/null)
cp "$WORK/res" "$TOP/build/bench/results.txt"
cp "$WORK/cells" "$TOP/build/bench/cells.txt"
cp "$WORK/checks" "$TOP/build/bench/checks.txt"
printf '%s %s\n%s\n%s\n%s\n' "$elapsed" "$BENCH_LOAD" "$ours_merge" "$ourver" "$upver" \
	> "$TOP/build/bench/run-info.txt"
python3 "$TOP/tests/bench/table.py" "$WORK/res" "$WORK/cells" "$DATA" \
	"$elapsed" "${REPS:--}" "$ourver" "$upver" "$ours_merge" "$TOP/build/bench" > "$WORK/bench.md" || exit 1
write_out "$WORK/bench.md" || exit 1
echo
cat "$OUT"
echo
echo "written: $OUT"
