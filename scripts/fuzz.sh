#!/bin/bash
# fuzz.sh - fuzz perf's reading of perf.data (the file header, attrs and
# features, the events: deferred user callchains, record 22 validation,
# merging, time order, thread life, callchain resolution) with AFL++ on
# the real perf binary, built with afl-clang-fast + ASan + UBSan (traps)
# into build/perf-afl.
#
#   scripts/fuzz.sh [-m file|pipe|both] [-t SECONDS] [-j JOBS] [-o DIR]
#                   [--no-build] [--no-defer] [--strict] [--triage]
#
# Modes (-m; default both):
#   file  the fuzz input is a whole perf.data file: header, attrs, attr ids,
#         data section and feature sections, all mutable (the mutator knows
#         the layout, keeps only the magic; see tests/fuzz/perfdata_mutator.py)
#   pipe  the fuzz input is a pipe-mode stream: behind fixed header events
#         (HEADER_ATTR, HEADER_FEATURE... of the seed recordings) or, in
#         part of the inputs, the whole stream with its header events mutable
#   both  file mode for the first half of -t, then pipe mode
# Each mode has its own output, DIR/MODE/out (resume with the same -o;
# afl-fuzz's own status: afl-whatsup DIR/MODE/out).
#
# Short run (tests/e2e/fuzz-short.sh): scripts/fuzz.sh -m both -t 90
# A campaign, one mode after the other, both cores (-j 2) each:
#   scripts/fuzz.sh -m file -t 3600 -j 2 -o build/fuzz-long
#   scripts/fuzz.sh -m pipe -t 3600 -j 2 -o build/fuzz-long
#
# Targets: instance 1 runs `perf script -i FILE` (merged callchains),
# instance 2 (-j 2) `perf script --no-merge-callchains -i FILE`, instance 3
# (-j 3) `perf report --stats -i FILE`.
# Seeds: file mode, the real recordings of tests/fixtures/real-7.2
# (st_defer, mt_defer, mt_perthread_defer, mt_2ev_cpu_defer,
# syswide_defer, st_userchains_defer, mixed_defer, st_defer_zstd,
# st_nodefer, taskclock_defer) cut to their side-band events and first 16
# samples (perfdata_mutator.py cut: 7-11 KB, the features kept) and files
# of tests/tools/gen_perfdata.py (migrated records, late samples, missing
# records, bad input kinds, ID/CPU fields, no sample_id_all, big-endian,
# 144-byte attrs); pipe mode, st_defer_pipe and perf inject -o - of
# mt_perthread_defer, mt_2ev_cpu_defer, syswide_defer, st_userchains_defer,
# and gen_perfdata.py's pipe-mode files (little-endian only).
# Dictionary tests/fuzz/perf-data.dict.
#
# Build: the perf fuzzed is built from a copy of the source (SRC, default
# build/src-7.3, the 7.3 series' tree; the copy in build/fuzz-src) with
# tests/fuzz/afl-deferred-forkserver.patch applied: AFL's forkserver then
# forks where perf opens its input, after perf's start-up, instead of
# before main().  The patch is fuzzing-only: never in the series, and
# --no-defer builds SRC as it is (into the same O).  O (environment):
# where perf is built, default build/perf-afl; FUZZ_BUILD_ARGS: more make
# arguments for that build (DEBUG=1: tests/e2e/fuzz-short.sh).
#
# At the end every crash and hang is run again with the ASan perf, crashes
# grouped by their top stack frames (DIR/triage.txt).  A crash whose top
# frames are those of a bug listed in tests/fuzz/found/known.txt (found,
# not fixed yet: its minimised input and cause in tests/fuzz/found) is
# counted as KNOWN; exit status 1 if any other crash (or a hang that still
# hangs for 20 s) was found, or any crash at all with --strict (the
# campaign that must find none), 77 if afl++/clang cannot be had.
# --triage only runs the triage again on DIR's crashes (no build, no fuzzing).
# Crashes found (the saved inputs are complete perf.data files, file or
# pipe mode: `perf script -i CRASH` reproduces): minimise one keeping its
# crash with (build/perf-asan: make check-asan's build)
#   tests/fuzz/minimise.py --args "script --kallsyms=DIR/ks.txt" CRASH \
#       tests/fuzz/found/NAME.data
# (afl-tmin keeps any crash, and drifts), keep it there with its cause in
# tests/fuzz/found/README.md and its signature in known.txt until it is
# fixed, then in tests/fuzz/regressions: tests/e2e/fuzz-regressions.sh
# runs perf on every such file.  Base perf bugs found so far:
# tests/fuzz/README.md and tests/fuzz/found (the mutator does not steer
# around them).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=60 jobs=1 out=$top/build/fuzz build=1 modes=both defer=1 strict='' triage_only=''
while [ $# -gt 0 ]; do
	case $1 in
	-t) secs=$2; shift ;;
	-j) jobs=$2; shift ;;
	-o) out=$2; shift ;;
	-m) modes=$2; shift ;;
	--no-build) build= ;;
	--no-defer) defer= ;;
	--strict) strict=1 ;;
	--triage) triage_only=1 build= ;;
	*) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
	shift
done
case $modes in
file|pipe) ;;
both) modes="file pipe" ;;
*) echo "fuzz.sh: -m file, pipe or both" >&2; exit 2 ;;
esac
[ "$jobs" -ge 1 ] && [ "$jobs" -le 3 ] || { echo "fuzz.sh: -j 1..3" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
O=${O:-$top/build/perf-afl}
# the 7.3 series' tree and its make arguments (LIBUNWIND=1)
SERIES=7.3 . "$top/scripts/series.sh"
SRC=${SRC:-$SER_SRC}
PERF_AFL=$O/perf
unavailable() { echo "SKIP: $*"; exit 77; }

if ! command -v afl-fuzz > /dev/null || ! command -v afl-clang-fast > /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "fuzz.sh: installing afl++ (apt-get)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 afl++ > "$out/apt.log" 2>&1 ||
			unavailable "afl++ is not installed and apt-get install afl++ failed (see $out/apt.log)"
	fi
	command -v afl-fuzz > /dev/null && command -v afl-clang-fast > /dev/null ||
		unavailable "afl++ (afl-fuzz, afl-clang-fast) is not installed"
fi
afl-fuzz -h 2>&1 | grep -q 'Python.*module support' ||
	unavailable "this afl-fuzz has no Python custom mutator support"

# the git tree of SRC's work tree as it is now (build.sh's way: the
# index is a copy, SRC's own is not touched)
src_tree() {
	local idx
	idx=$(mktemp)
	cp "$(git -C "$SRC" rev-parse --path-format=absolute --git-path index)" "$idx" &&
	GIT_INDEX_FILE=$idx git -C "$SRC" add -A . &&
	GIT_INDEX_FILE=$idx git -C "$SRC" write-tree || echo unknown
	rm -f "$idx"
}
# SRC copied with the fuzz-only patch applied (a git repository of its own,
# so that build.sh --if-changed knows its tree); copied again only when
# SRC or the patch changed
fuzz_src() {
	local fsrc=$1 patch=$top/tests/fuzz/afl-deferred-forkserver.patch key
	key="$(src_tree) $(sha1sum < "$patch" | cut -c1-40)"
	case $key in unknown*) echo "fuzz.sh: $SRC is not a git work tree" >&2; return 1 ;; esac
	[ "$(cat "$fsrc/.fuzz-src-key" 2>/dev/null)" = "$key" ] && return 0
	echo "fuzz.sh: copying ${SRC#"$top"/} to ${fsrc#"$top"/} with ${patch#"$top"/}"
	rm -rf "$fsrc"
	mkdir -p "$fsrc"
	tar -C "$SRC" --exclude=./.git -cf - . | tar -C "$fsrc" -xf - &&
	patch -s -p1 -d "$fsrc" < "$patch" &&
	git -C "$fsrc" init -q &&
	git -C "$fsrc" add -A . &&
	git -C "$fsrc" -c user.name=fuzz.sh -c user.email=fuzz@localhost \
		commit -q -m "${SRC##*/} + afl-deferred-forkserver.patch" || return 1
	echo "$key" > "$fsrc/.fuzz-src-key"
}

if [ -n "$build" ]; then
	bsrc=$SRC
	if [ -n "$defer" ]; then
		bsrc=${FUZZ_SRC:-$top/build/fuzz-src}
		fuzz_src "$bsrc" || exit 1
	fi
	# ASan + UBSan (AFL_USE_UBSAN: undefined behaviour traps, SIGILL);
	# without Python: the target is the perf.data reader, and perf's
	# Python extension is not built for afl-clang-fast's instrumentation
	# (FUZZ_BUILD_ARGS: more make arguments, e.g. DEBUG=1 for a build that
	# compiles twice as fast and runs slower: fuzz-short's, in its own O;
	# CLANG too: perf 7.3's Makefile.config replaces a clang CC with
	# $(CLANG) --target=..., which would compile and link uninstrumented)
	# shellcheck disable=SC2086 # a list of make arguments
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1 SRC=$bsrc O=$O "$top/scripts/build.sh" \
		--if-changed CC=afl-clang-fast CXX=afl-clang-fast++ CLANG=afl-clang-fast NO_LIBPYTHON=1 \
		"${SER_BUILD_ARGS[@]}" ${FUZZ_BUILD_ARGS:-} || exit 1
fi
[ -x "$PERF_AFL" ] || { echo "fuzz.sh: no $PERF_AFL" >&2; exit 1; }
if grep -q SIG_AFL_DEFER_FORKSRV "$PERF_AFL"; then
	fs="deferred forkserver"
else
	fs="forkserver before main()"
fi

export PERF_CONFIG=/dev/null HOME=$out/home LC_ALL=C
mkdir -p "$HOME"
# made-up and real kernel addresses resolve against this, not the host's
printf 'ffffffff81000000 T _stext\n' > "$out/ks.txt"

GEN=$top/tests/tools/gen_perfdata.py
FIX=$top/tests/fixtures/real-7.2/data
MUT=$top/tests/fuzz/perfdata_mutator.py
gen() { python3 "$GEN" --kallsyms '' --stacks 3 --round-events 16 "$@" > /dev/null ||
	{ echo "fuzz.sh: gen_perfdata.py $* failed" >&2; exit 1; }; }
# gen_seeds MODE DIR: the generated files of one mode
gen_seeds() {
	local m=$1 d=$2
	gen --mode "$m" -o "$d/gen_basic.data" --samples 40 --threads 3 --cpus 2 --per-entry 2 \
		--migrate 0.3 --late 0.1 --missing 0.1
	gen --mode "$m" -o "$d/gen_idcpu.data" --samples 30 --threads 2 --sample-id --sample-cpu \
		--bad nr0 --bad cookie0 --bad dup --bad unknown-tid --bad nr-big
	gen --mode "$m" -o "$d/gen_nosid.data" --samples 20 --threads 2 --no-sample-id-all
	gen --mode "$m" -o "$d/gen_hostile.data" --samples 30 --threads 2 --bad nr-past-end \
		--bad no-sample-id
	# (gen_perfdata.py writes big-endian files in file mode only)
	[ "$m" = pipe ] ||
		gen --mode "$m" -o "$d/gen_be.data" --samples 20 --threads 2 --endian big --sample-id
	gen --mode "$m" -o "$d/gen_attr144.data" --samples 20 --threads 2 --attr-size 144
}
# seeds MODE: DIR/MODE/work/seeds (and the pipe prefixes)
seeds() {
	local m=$1 w=$out/$1/work r
	rm -rf "$w"
	mkdir -p "$w/files"
	gen_seeds "$m" "$w/files"
	if [ "$m" = file ]; then
		mkdir -p "$w/seeds"
		cp "$w"/files/*.data "$w/seeds/"
		for r in st_defer mt_defer mt_perthread_defer mt_2ev_cpu_defer syswide_defer \
			st_userchains_defer mixed_defer st_defer_zstd st_nodefer taskclock_defer; do
			python3 "$MUT" cut "$FIX/$r.data" "$w/seeds/$r.data" || exit 1
		done
		return
	fi
	cp "$FIX/st_defer_pipe.data" "$w/files/st_defer_pipe.data"
	for r in mt_perthread_defer mt_2ev_cpu_defer syswide_defer st_userchains_defer; do
		ASAN_OPTIONS=detect_leaks=0 "$PERF_AFL" inject -i "$FIX/$r.data" -o - \
			> "$w/files/$r.data" 2> /dev/null ||
			{ echo "fuzz.sh: perf inject of $r failed" >&2; exit 1; }
	done
	python3 "$MUT" seeds "$w" "$w"/files/*.data || exit 1
}

# afl-fuzz sets the sanitizer options it needs (abort_on_error=1...)
unset ASAN_OPTIONS UBSAN_OPTIONS MSAN_OPTIONS LSAN_OPTIONS
export PYTHONPATH=$top/tests/fuzz AFL_PYTHON_MODULE=perfdata_mutator
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_DISABLE_TRIM=1 AFL_NO_AFFINITY=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
# perf has more edges than AFL's default map
loc=$(AFL_DEBUG=1 "$PERF_AFL" version 2>&1 | sed -n 's/.*__afl_final_loc = \([0-9]*\).*/\1/p' | head -1)
export AFL_MAP_SIZE=$(( (${loc:-65536} + 64) / 64 * 64 ))

KS=--kallsyms=$out/ks.txt
targets=("script $KS -i @@" "script $KS --no-merge-callchains -i @@" "report --stats $KS -i @@")
# shellcheck disable=SC2086 # the mode names
set -- $modes
per=$((secs / $#))
[ -n "$triage_only" ] ||
	echo "fuzz.sh: mode(s) $modes, $jobs instance(s) for ${per}s each, $fs, output $out/MODE/out (map size $AFL_MAP_SIZE)"
# one instance for the whole time: afl-fuzz 4.04c itself now and then dies
# of a segfault in libc (seen after 60 s, 6 and 12 minutes, with no crash
# of perf saved): it is started again on its queue and its stats
# (AFL_AUTORESUME: execs_done goes on from where it was) for the time left;
# DIR/MODE/execs-NAME has execs_done at the end of each run
instance() { # mode i
	local m=$1 i=$2 d=$out/$1 name role end left rc st
	name=$([ $i = 0 ] && echo main || echo sec$i)
	role=$([ $i = 0 ] && echo -M || echo -S)
	st=$d/out/$name/fuzzer_stats
	end=$(( $(date +%s) + per ))
	: > "$d/execs-$name"
	while left=$((end - $(date +%s))); [ $left -ge 10 ]; do
		rc=0
		# shellcheck disable=SC2086 # the target's arguments
		PERF_FUZZ_MODE=$m PERF_FUZZ_PREFIXES=$d/work/prefixes AFL_AUTORESUME=1 \
		afl-fuzz $role $name -i "$d/work/seeds" -o "$d/out" \
			-x "$top/tests/fuzz/perf-data.dict" -m none -t 5000 -V "$left" \
			-- "$PERF_AFL" ${targets[$i]} >> "$d/afl-$name.log" 2>&1 || rc=$?
		[ -f "$st" ] && sed -n 's/^execs_done *: *//p' "$st" >> "$d/execs-$name"
		[ $rc -ge 128 ] || return $rc
		echo "fuzz.sh: afl-fuzz $m $name died of signal $((rc - 128)) (afl-fuzz's own bug), started again for the $((end - $(date +%s))) s left" >&2
	done
	return 0
}
for m in $modes; do
	[ -z "$triage_only" ] || break
	mkdir -p "$out/$m"
	seeds "$m"
	pids=()
	for i in $(seq 0 $((jobs - 1))); do
		instance "$m" "$i" &
		pids+=($!)
	done
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=$?; done
	if [ $rc != 0 ]; then
		echo "fuzz.sh: afl-fuzz ($m) exits $rc:" >&2
		for l in "$out/$m"/afl-*.log; do
			sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$l" | grep -v '^ *$' | tail -5 >&2
		done
		exit 1
	fi
	for i in $(seq 0 $((jobs - 1))); do
		name=$([ $i = 0 ] && echo main || echo sec$i)
		st=$out/$m/out/$name/fuzzer_stats
		if [ ! -f "$st" ]; then
			echo "fuzz.sh: afl-fuzz $m $name did not run:" >&2
			sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$out/$m/afl-$name.log" |
				grep -E 'PROGRAM ABORT|Location|ERROR' >&2
			exit 1
		fi
		runs=$(grep -c . "$out/$m/execs-$name")
		awk -F' *: ' -v n="$m $name" -v r="$runs" '{ s[$1] = $2 } END {
			printf "fuzz.sh: %s: %s execs in %d run(s) of afl-fuzz, %s s, %s execs/s, corpus %s, edges %s, crashes %s, hangs %s\n",
			n, s["execs_done"], r, s["run_time"], s["execs_per_sec"], s["corpus_count"],
			s["edges_found"], s["saved_crashes"], s["saved_hangs"] }' "$st"
	done
done

# triage: run every crash and hang again with the ASan perf
# (allocations that fail return NULL, as under afl-fuzz: perf refuses the
# sizes files ask for by failing cleanly; past 2 GB they fail at once:
# ASan takes tens of seconds to map the 17 GB a fuzzed TRACING_DATA size
# asks for, which plain perf is refused in no time, and that is no hang)
export ASAN_OPTIONS=detect_leaks=0:symbolize=1:allocator_may_return_null=1:max_allocation_size_mb=2048
export UBSAN_OPTIONS=print_stacktrace=1
crashes=0 hangs=0 known=0
: > "$out/triage.txt"
for m in $modes; do
# crashes.DATE and hangs.DATE: those saved before afl-fuzz was started
# again (on resuming, afl-fuzz moves them aside)
for f in "$out/$m"/out/*/crashes*/id:* "$out/$m"/out/*/hangs*/id:*; do
	[ -f "$f" ] || continue
	inst=$(basename "$(dirname "$(dirname "$f")")")
	i=0
	[ "$inst" = main ] || i=${inst#sec}
	args=${targets[$i]//@@/$f}
	case $f in
	*/hangs/*|*/hangs.*/*)
		# shellcheck disable=SC2086
		{ timeout 20 "$PERF_AFL" $args > /dev/null 2> "$out/last.err"; } 2> /dev/null
		[ $? = 124 ] || continue
		hangs=$((hangs + 1))
		echo "HANG  $m $f: perf ${targets[$i]} runs over 20 s" >> "$out/triage.txt"
		continue ;;
	esac
	# shellcheck disable=SC2086 # (no "Illegal instruction" from bash)
	{ timeout 60 "$PERF_AFL" $args > /dev/null 2> "$out/last.err"; } 2> /dev/null
	st=$?
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
	# a crash whose top frames are those of a known one (tests/fuzz/found)
	fns=" $(echo "$frames" | sed 's/@[^ ]*//g' | tr -s ' ') "
	name=
	if [ -z "$strict" ]; then
		name=$(while read -r n kind pat; do
			case $n in ""|\#*) continue ;; esac
			case $what in *"$kind"*) ;; *) continue ;; esac
			case $fns in *" $pat "*) echo "$n"; break ;; esac
		done < "$top/tests/fuzz/found/known.txt")
	fi
	if [ -n "$name" ]; then
		known=$((known + 1))
		echo "KNOWN $m $name [$what] $frames| $f" >> "$out/triage.txt"
		continue
	fi
	crashes=$((crashes + 1))
	echo "CRASH $m [$what] $frames| $f" >> "$out/triage.txt"
done
done
if [ $known != 0 ]; then
	echo "fuzz.sh: $known crash(es) of known bugs (tests/fuzz/found/known.txt, not fixed yet):"
	grep '^KNOWN' "$out/triage.txt" | awk '{ print $2, $3 }' | sort | uniq -c | sort -rn
fi
if [ $crashes != 0 ] || [ $hangs != 0 ]; then
	echo "fuzz.sh: $crashes new crash(es), $hangs hang(s); by top frames:"
	grep -v '^KNOWN' "$out/triage.txt" | sed 's/| .*//' | sort | uniq -c | sort -rn
	echo "fuzz.sh: inputs and details: $out/triage.txt"
	exit 1
fi
echo "fuzz.sh: no new crash, no hang"
