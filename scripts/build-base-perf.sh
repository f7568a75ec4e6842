#!/bin/bash
# build-base-perf.sh - build perf 6.12 WITHOUT the series (the tag 'base')
# into build/perf-base, from a worktree build/wt/base of build/src.
#
# It is the "tool that knows nothing of deferral" of the tests: perf inject
# --merge-callchains must write files it reads.  Same flags as our perf;
# skipped when that tree was built already (build.sh --if-changed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
wt=$top/build/wt/base
"$top/scripts/fetch-base.sh"
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	mkdir -p "$top/build/wt"
	git -C "$top/build/src" worktree prune
	git -C "$top/build/src" worktree add -q --detach "$wt" base
fi
SRC=$wt O=$top/build/perf-base exec "$top/scripts/build.sh" --if-changed
