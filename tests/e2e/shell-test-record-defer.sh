#!/bin/bash
# shell-test-record-defer: the series' perf shell test,
# tools/perf/tests/shell/record_defer_callchain.sh, run by `perf test` on
# this machine, and the branch it takes.
#
# On a kernel that cannot defer user callchains (before 6.19: the machines
# this runs on) it must take its fallback branch: perf record says once
# that it records ordinary callchains, the recording has no defer bit,
# dwarf,defer / lbr,defer / fp,defer,64 are refused with their messages,
# and the test skips (perf test: Skip).  On a kernel that can, it must pass
# (Ok).  Its full branch runs on Linux 7.3 in the real-kernel harness
# (tests/e2e/realkernel.sh, check 7).
. "$(dirname "$0")/../lib.sh"

SH=$PERF_SRC/tools/perf/tests/shell
T=record_defer_callchain.sh
NAME='perf record deferred user callchain tests'
[ -f "$SH/$T" ] || skip "no tools/perf/tests/shell/$T in the series"
[ -x "$SH/$T" ] || fail "$T is not executable: perf test would not run it"
# (line 3, after the SPDX line: upstream's style)
head -3 "$SH/$T" | grep -qx "# $NAME" || fail "$T: its description is not '$NAME'"

# from tools/perf, where perf test finds ./tests/shell
(cd "$PERF_SRC/tools/perf" &&
 PATH=$(dirname "$PERF"):$PATH "$PERF" test -vv "$NAME") > "$TMPD/log" 2>&1 || true
cat "$TMPD/log"
res=$(sed -n "s/^ *[0-9]*: $NAME *: *\([A-Za-z!]*\).*/\1/p" "$TMPD/log" | tail -1)
[ -n "$res" ] || fail "perf test did not run '$NAME'"

if grep -q 'Fallback to ordinary callchains test' "$TMPD/log"; then
	for want in 'Fallback test \[Success\]' 'Option errors test \[Success\]' \
		    'Skipped this kernel cannot defer user callchains'; do
		grep -q "$want" "$TMPD/log" || fail "fallback branch: no '$want'"
	done
	if grep -q 'Record fp,defer test' "$TMPD/log"; then
		fail "fallback branch: the deferring tests ran on a kernel that cannot defer"
	fi
	[ "$res" = Skip ] || fail "fallback branch: perf test says $res, want Skip"
	echo "kernel $(uname -r) cannot defer: the shell test took its fallback branch and skipped"
else
	[ "$res" = Ok ] || fail "kernel $(uname -r) can defer: perf test says $res, want Ok"
	echo "kernel $(uname -r) can defer: the shell test passed"
fi
echo "PASS"
