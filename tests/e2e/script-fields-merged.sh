#!/bin/bash
# script-fields-merged: perf script's field selection and display options
# work on merged deferred user callchains, on every real recording with
# deferral (per-task, -a, pipe, -z, two events with --sample-cpu,
# --per-thread).
#
# 1. `perf script -F comm,tid,time,event,ip,sym,dso` (field-selected
#    output) is checked against upstream perf 7.2, sample by sample, with
#    tests/tools/check_merged.py (see script-merged-vs-upstream.sh): every
#    sample has its kernel frames then its user frames, no cookie, samples
#    out = samples in (analysis/NAME.stats.json, counted without perf).
#    Its workload frames come after its kernel frames in every sample, and
#    main / start_thread are in the user frames of as many samples as in
#    upstream 7.2's merged output, plus at most the samples 7.2 leaves
#    unmerged because they were taken after their own record ("late").
#    (_start is not counted: samples taken during exec have it as a bare
#    address for us, named for 7.2, see tests/tools/report_graph.py.)
# 2. Against that checked output (tests/tools/script_fields.py):
#    -F comm,tid,time,ip,sym,dso (same headers without the event, same
#    frame lines); -F ip (same addresses); -F +srcline (same addresses;
#    main and the thread entry functions carry their NAME.c:N line);
#    --ns (same samples, 9-digit times); --max-stack K
#    (the first K frames, the kernel/user boundary included); -G (one line
#    per sample, its first frame's address, or its kernel ip with
#    --user-callchains); --call-trace (one header line per sample:
#    without instruction trace data it prints no callchain).
# 3. Scripting engines: our perf is built with libpython (Python scripts
#    see merged chains: tests/e2e/script-python.sh) and without libperl
#    (NO_LIBPERL=1; `perf version --build-options` says OFF): `perf script
#    -s x.pl` must say Perl scripting is not supported and exit with an
#    error, not crash; so must `-s x.py` and `-g python` in a perf built
#    without libpython.  An engine that is built in is not covered here
#    (the test says so and goes on).
#
# The test can fail: on --no-merge-callchains output of st_defer, both
# checks of 1. fail (checked at the end); perf without the series cannot
# read these files at all.
. "$(dirname "$0")/../lib.sh"

S=$(symroot)
# perf 7.2 shows inlined functions as frames of their own (unpatched 7.2
# too): the expected values here are the frames of the callchains
S="$S --no-inline"
TOOLS=$TOP/tests/tools
# sf ARGS: tests/tools/script_fields.py ARGS
sf() { python3 "$TOOLS/script_fields.py" "$@"; }

# workload NAME: the fixture binary the recording ran
workload() {
	awk -F'\t' -v n="$1" '$1 == n { print $NF }' "$FIX/recordings.tsv" |
		grep -o '/fixtures/bin/[a-z_]*' | head -1 | xargs -r basename
}

# pscript OUT ARGS...: perf script ARGS on the recording, to OUT
pscript() {
	local out=$1
	shift
	# shellcheck disable=SC2086 # $S is a list of options
	if ! "$PERF" script $S -i "$data" "$@" > "$out" 2> "$out.err"; then
		echo "FAIL $name: perf script $* failed: $(head -3 "$out.err")"
		return 1
	fi
	if grep -E 'runtime error|Sanitizer' "$out.err"; then
		echo "FAIL $name: perf script $*: sanitizer report"
		return 1
	fi
}

# check NAME WHAT CMD...: run a check, print its result
check() {
	local what=$1 r
	shift
	if r=$("$@" 2>&1); then
		echo "  ok   $what${r:+: $(echo "$r" | head -1)}"
	else
		echo "  FAIL $what: $r"
		return 1
	fi
}

# fields_vs_upstream OUT: check 1. on a -F comm,tid,time,event,ip,sym,dso output
fields_vs_upstream() {
	python3 "$TOOLS/check_merged.py" --out-of-order "$ooo" "$1" "$TMPD/$name.up" "$TMPD/$name.up-raw" \
		"$FIX/analysis/$name.stats.json" &&
		sf roots "$1" "$TMPD/$name.up" "$late"
}

bad=0
n=0
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	bin=$(workload "$name")
	[ -n "$bin" ] || fail "$name: no workload binary in recordings.tsv"
	o=$TMPD/$name
	upstream "$name" script > "$o.up"
	upstream "$name" script-no-merge > "$o.up-raw"
	samples=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' \
		  "$FIX/analysis/$name.stats.json")
	late=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["unmatched_samples_taken_AFTER_their_cookies_record"])' \
		"$FIX/analysis/$name.stats.json")
	# samples shown after a later one (past their reorder window)
	"$PERF" script -i "$FIX/data/$name.data" -F tid,time > "$o.ooo" 2> /dev/null || : > "$o.ooo"
	ooo=$(out_of_order "$o.ooo")
	# --per-thread recordings have no timestamps: no time field, no --ns
	time=time,
	case $name in *perthread*) time= ;; esac
	echo "$name ($bin, $samples samples, $late late):"

	errs=0
	pscript "$o.ev" -F "comm,tid,${time}event,ip,sym,dso" || { bad=$((bad + 1)); continue; }
	check "-F comm,tid,${time}event,ip,sym,dso vs upstream 7.2" fields_vs_upstream "$o.ev" ||
		errs=$((errs + 1))

	pscript "$o.f" -F "comm,tid,${time}ip,sym,dso" &&
		check "-F comm,tid,${time}ip,sym,dso" sf fields "$o.ev" "$o.f" ||
		errs=$((errs + 1))
	pscript "$o.ip" -F ip &&
		check "-F ip" sf ip "$o.ev" "$o.ip" || errs=$((errs + 1))

	# the default fields: the reference of the display options
	pscript "$o.def" && check "default fields" sf frames "$o.ev" "$o.def" ||
		errs=$((errs + 1))
	pscript "$o.src" -F +srcline &&
		check "-F +srcline" sf frames "$o.def" "$o.src" &&
		check "-F +srcline lines" sf srcline "$bin.c" "$o.src" || errs=$((errs + 1))
	# (not --inline: perf 7.x adds inlined frames with it, not the same
	# frames)
	if [ -n "$time" ]; then
		pscript "$o.ns" --ns && check "--ns" sf ns "$o.def" "$o.ns" ||
			errs=$((errs + 1))
	fi
	for k in 1 3 6 9; do
		pscript "$o.ms$k" --max-stack $k &&
			check "--max-stack $k" sf max-stack $k "$o.def" "$o.ms$k" ||
			errs=$((errs + 1))
	done
	pscript "$o.G" -G && check "-G" sf leaf "$o.def" "$o.G" || errs=$((errs + 1))
	pscript "$o.ct" --call-trace &&
		check "--call-trace" sf headers "$samples" "$o.ct" || errs=$((errs + 1))
	[ $errs = 0 ] || bad=$((bad + 1))
done
[ "$n" -gt 0 ] || fail "no *_defer recordings in $FIX/data"

# 3. scripting engines built without: an error message, no crash
echo 'print("x")' > "$TMPD/x.py"
echo 'print "x";' > "$TMPD/x.pl"
data=$FIX/data/st_defer.data
for engine in python perl; do
	if "$PERF" version --build-options | grep -Eq "lib$engine: +\[ on"; then
		echo "note: this perf has $engine scripting: not covered here"
		continue
	fi
	case $engine in
	python) set -- "-s $TMPD/x.py" "-g python" ;;
	perl) set -- "-s $TMPD/x.pl" ;;
	esac
	for args in "$@"; do
		rc=0
		# shellcheck disable=SC2086 # $args is a list of options
		"$PERF" script $args -i "$data" > "$TMPD/scripting" 2>&1 || rc=$?
		# killed by a signal: 128 + its number
		if [ $rc = 0 ] || { [ $rc -gt 128 ] && [ $rc -lt 192 ]; } ||
		   ! grep -Eq '(Python|Perl) scripting not supported' "$TMPD/scripting"; then
			echo "FAIL perf script $args: exit $rc: $(head -2 "$TMPD/scripting")"
			bad=$((bad + 1))
		else
			echo "ok   perf script $args: $(head -1 "$TMPD/scripting") (exit $rc)"
		fi
	done
done

# the check fails on output that is not merged
name=st_defer
ooo=0
data=$FIX/data/$name.data
late=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["unmatched_samples_taken_AFTER_their_cookies_record"])' \
	"$FIX/analysis/$name.stats.json")
# shellcheck disable=SC2086 # $S is a list of options
"$PERF" script $S --no-merge-callchains -F comm,tid,time,event,ip,sym,dso -i "$data" \
	> "$TMPD/nomerge" 2> /dev/null || fail "perf script --no-merge-callchains failed"
upstream $name script > "$TMPD/$name.up"
upstream $name script-no-merge > "$TMPD/$name.up-raw"
if python3 "$TOOLS/check_merged.py" "$TMPD/nomerge" "$TMPD/$name.up" "$TMPD/$name.up-raw" \
	"$FIX/analysis/$name.stats.json" > "$TMPD/nomerge.check" 2>&1; then
	fail "check_merged.py passes on --no-merge-callchains output"
fi
echo "ok   check_merged.py fails on --no-merge-callchains output: $(head -1 "$TMPD/nomerge.check")"
if sf roots "$TMPD/nomerge" "$TMPD/$name.up" "$late" > "$TMPD/nomerge.roots" 2>&1; then
	fail "the main/start_thread count passes on --no-merge-callchains output"
fi
echo "ok   the main/start_thread count fails on it: $(tail -1 "$TMPD/nomerge.roots")"

[ "$bad" = 0 ] || fail "$bad checks failed"
echo "all $n recordings: field selections and display options show merged chains"
