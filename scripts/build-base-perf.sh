#!/bin/bash
# build-base-perf.sh - build perf 6.12 WITHOUT the series (the tag 'base')
# into build/perf-base, from a worktree build/wt/base of build/src;
# SERIES=7.2: perf 7.2 without its series into build/perf-7.2-base, from
# build/wt/base-7.2 (scripts/series.sh).
#
# perf 6.12 is the "tool that knows nothing of deferral" of the tests: perf
# inject --merge-callchains must write files it reads.  Unpatched perf 7.2
# is what the peer suite (tests/peer/run.sh) compares the 7.2 series with.
# Same flags as our perf; skipped when that tree was built already
# (build.sh --if-changed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
wt=$SER_BASE_WT
"$top/scripts/fetch-base.sh"
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	mkdir -p "$(dirname "$wt")"
	git -C "$SER_SRC" worktree prune
	git -C "$SER_SRC" worktree add -q --detach "$wt" base
fi
SRC=$wt O=$SER_BASE_O exec "$top/scripts/build.sh" --if-changed "${SER_BUILD_ARGS[@]}"
