#!/bin/bash
# fuzz-short: about a minute of AFL++ on perf's event path (scripts/fuzz.sh
# -t 60: `perf script -i FILE` on mutated pipe-mode streams of the real and
# generated recordings, see tests/fuzz/perfdata_mutator.py) finds no crash
# and no hang.  The fuzzed perf is build/perf-afl/perf, built from build/src
# with afl-clang-fast, ASan and UBSan (a few minutes when build/src changed;
# $PERF is not used).  Skips, with the reason, when afl++ or its clang
# cannot be installed.  FUZZ_SECONDS changes the duration.
. "$(dirname "$0")/../lib.sh"

rc=0
"$TOP/scripts/fuzz.sh" -t "${FUZZ_SECONDS:-60}" -o "$TMPD/fuzz" > "$TMPD/fuzz.out" 2>&1 || rc=$?
cat "$TMPD/fuzz.out"
case $rc in
0) ;;
77) skip "$(sed -n 's/^SKIP: //p' "$TMPD/fuzz.out" | head -1)" ;;
*) [ -f "$TMPD/fuzz/triage.txt" ] && cat "$TMPD/fuzz/triage.txt"
   fail "scripts/fuzz.sh exits $rc" ;;
esac
grep -q '^fuzz.sh: main: [1-9][0-9]* execs' "$TMPD/fuzz.out" || fail "afl-fuzz did not run"
