#!/bin/bash
# fuzz-short: 40 seconds of AFL++ on perf's reading of
# perf.data (scripts/fuzz.sh -m both -t 40: `perf script -i FILE` on whole
# file-mode perf.data files, headers and features mutated, for 20 s, then
# on pipe-mode streams of the real and generated recordings for 20 s, see
# tests/fuzz/perfdata_mutator.py) finds no hang and no crash but those of
# the bugs found and not fixed yet (tests/fuzz/found/known.txt, reported
# as KNOWN by fuzz.sh; a new one fails).  The fuzzed
# perf is build/perf-afl-quick/perf, built from a copy of the 7.3 series'
# tree build/src-7.3 (build/fuzz-src, with the fuzzing-only
# tests/fuzz/afl-deferred-forkserver.patch) with afl-clang-fast, ASan and
# UBSan (a few minutes when build/src-7.3 changed; $PERF is not used).
# Skips, with the reason, when afl++ or its clang cannot be installed.
# FUZZ_SECONDS changes the duration (both modes together).  Then the
# AFL build runs every input of tests/fuzz/regressions, as fuzz-regressions
# does with $PERF: clang's UBSan traps where GCC's does not.
. "$(dirname "$0")/../lib.sh"

# A build of its own, at -O0 (DEBUG=1, and no -O3 from afl-clang-fast):
# it compiles faster than the campaigns' build/perf-afl (the build is the
# larger part of this test) and runs slower, which 40 s of fuzzing does
# not mind.
export O=${O:-$TOP/build/perf-afl-quick} FUZZ_BUILD_ARGS=DEBUG=1 AFL_DONT_OPTIMIZE=1
export SRC=$TOP/build/src-7.3
rc=0
"$TOP/scripts/fuzz.sh" -m both -t "${FUZZ_SECONDS:-40}" -o "$TMPD/fuzz" > "$TMPD/fuzz.out" 2>&1 || rc=$?
cat "$TMPD/fuzz.out"
case $rc in
0) ;;
77) skip "$(sed -n 's/^SKIP: //p' "$TMPD/fuzz.out" | head -1)" ;;
*) keep=$TOP/build/test-logs/fuzz-short.found
   if [ -f "$TMPD/fuzz/triage.txt" ]; then
	cat "$TMPD/fuzz/triage.txt"
	# the inputs outlive the test's temporary directory: CI's log names them
	rm -rf "$keep" && mkdir -p "$keep"
	grep -o '/[^ |]*/\(crashes\|hangs\)[^ /]*/id:[^ |]*' "$TMPD/fuzz/triage.txt" |
		while read -r f; do cp "${f%:}" "$keep/" 2> /dev/null || cp "$f" "$keep/"; done
	cp "$TMPD/fuzz/triage.txt" "$keep/"
	echo "fuzz-short: the inputs are kept in ${keep#$TOP/}"
	# and in the log, where the machine is gone (CI): base64 -d | xz -d
	for f in "$keep"/id:*; do
		[ -f "$f" ] || continue
		echo "fuzz-short: $(basename "$f") | xz | base64:"
		xz -9c "$f" | base64 -w 0; echo
	done
   fi
   fail "scripts/fuzz.sh exits $rc" ;;
esac
for m in file pipe; do
	grep -q "^fuzz.sh: $m main: [1-9][0-9]* execs" "$TMPD/fuzz.out" || fail "afl-fuzz did not run in $m mode"
done

# Every regression input once more through the AFL build just fuzzed: its
# clang UBSan traps on what the GCC one of make check-asan lets pass (a
# pointer overflow: intel-pt-filter-len), as afl-fuzz runs it (allocations
# the file asks for may fail).
afl=${O:-$TOP/build/perf-afl}/perf
printf 'ffffffff81000000 T _stext\n' > "$TMPD/ks.txt"
n=0
for f in "$TOP"/tests/fuzz/regressions/*.data; do
	n=$((n + 1))
	for args in "script" "script --no-merge-callchains"; do
		rc=0
		# shellcheck disable=SC2086 # $args is a list
		ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=2048:detect_leaks=0 timeout 120 \
			"$afl" $args --kallsyms="$TMPD/ks.txt" -i "$f" > /dev/null 2> "$TMPD/err" || rc=$?
		[ $rc != 124 ] || fail "$(basename "$f"): the AFL build's perf $args runs over 120 s"
		if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
			fail "$(basename "$f"): the AFL build's perf $args killed by signal $((rc - 128))"
		fi
	done
done
echo "fuzz-short: the AFL build survives the $n regression inputs"
