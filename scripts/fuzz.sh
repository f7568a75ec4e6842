#!/bin/bash
# fuzz.sh - fuzz perf's event path (deferred user callchains: record 22
# validation, merging, time order, thread life, callchain resolution) with
# AFL++ on the real perf binary, built with afl-clang-fast + ASan + UBSan
# (traps) into build/perf-afl.
#
#   scripts/fuzz.sh [-t SECONDS] [-j JOBS] [-o DIR] [--no-build]
#
# Short run (tests/e2e/fuzz-short.sh): scripts/fuzz.sh -t 60
# Long run, both cores, an hour (resume with the same -o; afl-fuzz's own
# status: afl-whatsup DIR/out):
#   scripts/fuzz.sh -t 3600 -j 2 -o build/fuzz-long
#
# Targets: instance 1 runs `perf script -i FILE` (merged callchains),
# instance 2 (-j 2) `perf script --no-merge-callchains -i FILE`, instance 3
# (-j 3) `perf report --stats -i FILE`.
# Inputs: tests/fuzz/perfdata_mutator.py (AFL++ Python custom mutator: the
# fuzz input is a selector byte and the events of a pipe-mode stream; the
# header events are fixed prefixes, see its docstring), seeds from the real
# 7.2 recordings (tests/fixtures/real-7.2: st_defer_pipe, and perf inject
# -o - of mt_perthread_defer, mt_2ev_cpu_defer, syswide_defer,
# st_userchains_defer) and from tests/tools/gen_perfdata.py (migrated
# records, late samples, missing records, bad input kinds, ID/CPU fields,
# no sample_id_all), dictionary tests/fuzz/perf-data.dict.
#
# At the end every crash and hang is run again with the ASan perf, crashes
# grouped by their top stack frames; exit status 1 if any crash (or a hang
# that still hangs for 20 s) was found, 77 if afl++/clang cannot be had.
# Crashes found: minimise one with
#   afl-tmin -i CRASH -o tests/fuzz/regressions/NAME.data -- \
#       build/perf-afl/perf script --kallsyms=DIR/ks.txt -i @@
# (the saved inputs are complete pipe-mode perf.data files) and keep it
# there: tests/e2e/fuzz-regressions.sh runs perf on every such file.
# Base perf 6.12 bugs found so far, fixed by the series: tests/fuzz/README.md
# (the mutator no longer steers around them).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=60 jobs=1 out=$top/build/fuzz build=1
while [ $# -gt 0 ]; do
	case $1 in
	-t) secs=$2; shift ;;
	-j) jobs=$2; shift ;;
	-o) out=$2; shift ;;
	--no-build) build= ;;
	*) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
O=${O:-$top/build/perf-afl}
PERF_AFL=$O/perf
unavailable() { echo "SKIP: $*"; exit 77; }

if ! command -v afl-fuzz > /dev/null || ! command -v afl-clang-fast > /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "fuzz.sh: installing afl++ (apt-get)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q afl++ > "$out/apt.log" 2>&1 ||
			unavailable "afl++ is not installed and apt-get install afl++ failed (see $out/apt.log)"
	fi
	command -v afl-fuzz > /dev/null && command -v afl-clang-fast > /dev/null ||
		unavailable "afl++ (afl-fuzz, afl-clang-fast) is not installed"
fi
afl-fuzz -h 2>&1 | grep -q 'Python.*module support' ||
	unavailable "this afl-fuzz has no Python custom mutator support"

if [ -n "$build" ]; then
	# ASan + UBSan (AFL_USE_UBSAN: undefined behaviour traps, SIGILL);
	# without Python: the target is the perf.data reader, and perf's
	# Python extension is not built for afl-clang-fast's instrumentation
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1 O=$O "$top/scripts/build.sh" --if-changed \
		CC=afl-clang-fast CXX=afl-clang-fast++ NO_LIBPYTHON=1 || exit 1
fi
[ -x "$PERF_AFL" ] || { echo "fuzz.sh: no $PERF_AFL" >&2; exit 1; }

export PERF_CONFIG=/dev/null HOME=$out/home LC_ALL=C
mkdir -p "$HOME"
# made-up and real kernel addresses resolve against this, not the host's
printf 'ffffffff81000000 T _stext\n' > "$out/ks.txt"

# seeds: pipe-mode streams, split into fixed prefixes and fuzzable bodies
w=$out/work
rm -rf "$w"
mkdir -p "$w/pipe"
GEN=$top/tests/tools/gen_perfdata.py
FIX=$top/tests/fixtures/real-7.2/data
gen() { python3 "$GEN" --mode pipe --kallsyms '' --stacks 3 --round-events 16 "$@" > /dev/null ||
	{ echo "fuzz.sh: gen_perfdata.py $* failed" >&2; exit 1; }; }
gen -o "$w/pipe/gen_basic.data" --samples 40 --threads 3 --cpus 2 --per-entry 2 \
	--migrate 0.3 --late 0.1 --missing 0.1
gen -o "$w/pipe/gen_idcpu.data" --samples 30 --threads 2 --sample-id --sample-cpu \
	--bad nr0 --bad cookie0 --bad dup --bad unknown-tid --bad nr-big
gen -o "$w/pipe/gen_nosid.data" --samples 20 --threads 2 --no-sample-id-all
gen -o "$w/pipe/gen_hostile.data" --samples 30 --threads 2 --bad nr-past-end --bad no-sample-id
cp "$FIX/st_defer_pipe.data" "$w/pipe/st_defer_pipe.data"
for r in mt_perthread_defer mt_2ev_cpu_defer syswide_defer st_userchains_defer; do
	ASAN_OPTIONS=detect_leaks=0 "$PERF_AFL" inject -i "$FIX/$r.data" -o - \
		> "$w/pipe/$r.data" 2> /dev/null ||
		{ echo "fuzz.sh: perf inject of $r failed" >&2; exit 1; }
done
python3 "$top/tests/fuzz/perfdata_mutator.py" seeds "$w" "$w"/pipe/*.data || exit 1

# afl-fuzz sets the sanitizer options it needs (abort_on_error=1...)
unset ASAN_OPTIONS UBSAN_OPTIONS MSAN_OPTIONS LSAN_OPTIONS
export PERF_FUZZ_PREFIXES=$w/prefixes
export PYTHONPATH=$top/tests/fuzz AFL_PYTHON_MODULE=perfdata_mutator
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_DISABLE_TRIM=1 AFL_NO_AFFINITY=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
# perf has more edges than AFL's default map
loc=$(AFL_DEBUG=1 "$PERF_AFL" version 2>&1 | sed -n 's/.*__afl_final_loc = \([0-9]*\).*/\1/p' | head -1)
export AFL_MAP_SIZE=$(( (${loc:-65536} + 64) / 64 * 64 ))

KS=--kallsyms=$out/ks.txt
targets=("script $KS -i @@" "script $KS --no-merge-callchains -i @@" "report --stats $KS -i @@")
[ "$jobs" -ge 1 ] && [ "$jobs" -le 3 ] || { echo "fuzz.sh: -j 1..3" >&2; exit 2; }
echo "fuzz.sh: $jobs instance(s) for ${secs}s, output $out/out (map size $AFL_MAP_SIZE)"
# one instance for the whole time: afl-fuzz 4.04c itself now and then dies
# of a segfault in libc (seen after 60 s, 6 and 12 minutes, with no crash
# of perf saved): it is started again on its queue and its stats
# (AFL_AUTORESUME: execs_done goes on from where it was) for the time left;
# $out/execs-NAME has execs_done at the end of each run
instance() { # i
	local i=$1 name role end left rc st
	name=$([ $i = 0 ] && echo main || echo sec$i)
	role=$([ $i = 0 ] && echo -M || echo -S)
	st=$out/out/$name/fuzzer_stats
	end=$(( $(date +%s) + secs ))
	: > "$out/execs-$name"
	while left=$((end - $(date +%s))); [ $left -ge 10 ]; do
		rc=0
		# shellcheck disable=SC2086 # the target's arguments
		AFL_AUTORESUME=1 afl-fuzz $role $name -i "$w/seeds" -o "$out/out" \
			-x "$top/tests/fuzz/perf-data.dict" -m none -t 5000 -V "$left" \
			-- "$PERF_AFL" ${targets[$i]} >> "$out/afl-$name.log" 2>&1 || rc=$?
		[ -f "$st" ] && sed -n 's/^execs_done *: *//p' "$st" >> "$out/execs-$name"
		[ $rc -ge 128 ] || return $rc
		echo "fuzz.sh: afl-fuzz $name died of signal $((rc - 128)) (afl-fuzz's own bug), started again for the $((end - $(date +%s))) s left" >&2
	done
	return 0
}
pids=()
for i in $(seq 0 $((jobs - 1))); do
	instance "$i" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
if [ $rc != 0 ]; then
	echo "fuzz.sh: afl-fuzz exits $rc:" >&2
	for l in "$out"/afl-*.log; do
		sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$l" | grep -v '^ *$' | tail -5 >&2
	done
	exit 1
fi
for i in $(seq 0 $((jobs - 1))); do
	name=$([ $i = 0 ] && echo main || echo sec$i)
	st=$out/out/$name/fuzzer_stats
	if [ ! -f "$st" ]; then
		echo "fuzz.sh: afl-fuzz $name did not run (exit $rc):" >&2
		sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$out/afl-$name.log" | grep -E 'PROGRAM ABORT|Location|ERROR' >&2
		exit 1
	fi
	runs=$(grep -c . "$out/execs-$name")
	awk -F' *: ' -v n="$name" -v r="$runs" '{ s[$1] = $2 } END {
		printf "fuzz.sh: %s: %s execs in %d run(s) of afl-fuzz, corpus %s, edges %s, crashes %s, hangs %s\n",
		n, s["execs_done"], r, s["corpus_count"], s["edges_found"],
		s["saved_crashes"], s["saved_hangs"] }' "$st"
done

# triage: run every crash and hang again with the ASan perf
export ASAN_OPTIONS=detect_leaks=0:symbolize=1 UBSAN_OPTIONS=print_stacktrace=1
crashes=0 hangs=0
: > "$out/triage.txt"
for f in "$out"/out/*/crashes/id:* "$out"/out/*/hangs/id:*; do
	[ -f "$f" ] || continue
	inst=$(basename "$(dirname "$(dirname "$f")")")
	i=0
	[ "$inst" = main ] || i=${inst#sec}
	args=${targets[$i]//@@/$f}
	case $f in
	*/hangs/*)
		# shellcheck disable=SC2086
		timeout 20 "$PERF_AFL" $args > /dev/null 2> "$out/last.err"
		[ $? = 124 ] || continue
		hangs=$((hangs + 1))
		echo "HANG  $f: perf ${targets[$i]} runs over 20 s" >> "$out/triage.txt"
		continue ;;
	esac
	# shellcheck disable=SC2086
	timeout 60 "$PERF_AFL" $args > /dev/null 2> "$out/last.err"
	st=$?
	crashes=$((crashes + 1))
	what=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error|Assertion' "$out/last.err" |
		sed 's/==[0-9]*==//; s/ on address.*//; s/ (pc .*//')
	frames=$(grep -E '^ +#[0-9]+ ' "$out/last.err" | grep -v -E 'libsanitizer|interceptor|libc\.so' |
		head -3 | awk '{ print $4 }' | tr '\n' ' ')
	if [ -z "$what" ] && [ $st -ge 128 ]; then
		# a UBSan trap (SIGILL) or another signal: ask gdb where
		if command -v gdb > /dev/null; then
			# shellcheck disable=SC2086
			frames=$(gdb -q -batch -ex run -ex bt --args "$PERF_AFL" $args 2>&1 |
				sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .* at \(.*\)$/\2@\3/p' |
				head -3 | tr '\n' ' ')
		fi
		what="signal $((st - 128))"
	fi
	echo "CRASH [$what] $frames| $f" >> "$out/triage.txt"
done
if [ $crashes != 0 ] || [ $hangs != 0 ]; then
	echo "fuzz.sh: $crashes crash(es), $hangs hang(s); by top frames:"
	sed 's/| .*//' "$out/triage.txt" | sort | uniq -c | sort -rn
	echo "fuzz.sh: inputs and details: $out/triage.txt"
	exit 1
fi
echo "fuzz.sh: no crash, no hang"
