#!/bin/bash
# build-base-perf.sh - build perf 7.3 WITHOUT the series (the tag 'base')
# into build/perf-7.3-base (scripts/series.sh).
#
# Unpatched perf 7.3 is what the peer suite (tests/peer/run.sh) compares
# the 7.3 series with (make peer builds it).
#
# The base is the first build of the series checks (scripts/check-series.sh
# builds base, base+1, base+2, ... one after the other in build/check-series-7.3
# and goes on from each to the next): it is built there, and build/perf-7.3-base
# is a copy of that build directory.  So a cold 'make check' compiles the
# base once, not twice, and the first prefix is an incremental build.
# Same flags as our perf; nothing is done when build/perf-7.3-base was made
# from the base with this configuration.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
"$top/scripts/fetch-base.sh"
key="$(git -C "$SER_SRC" rev-parse 'base^{tree}') $("$top/scripts/build.sh" --config-hash "${SER_CHECK_ARGS[@]}")"
up_to_date() { [ -x "$1/perf" ] && [ "$(cat "$1/.build-state" 2>/dev/null)" = "$key" ]; }
up_to_date "$SER_BASE_O" && { echo "build-base-perf: $(rel "$SER_BASE_O")/perf is up to date"; exit 0; }
mkdir -p "$SER_CHECK"
exec 9> "$SER_CHECK/lock"
flock 9
ser_check_worktree
if ! up_to_date "$SER_CHECK_O"; then
	echo "build-base-perf: building the base in $(rel "$SER_CHECK_O") (log: $(rel "$SER_CHECK_O")/build.log)"
	ser_check_build base > /dev/null
fi
rm -rf "$SER_BASE_O.tmp"
cp -a "$SER_CHECK_O" "$SER_BASE_O.tmp"
rm -rf "$SER_BASE_O"
mv "$SER_BASE_O.tmp" "$SER_BASE_O"
echo "build-base-perf: $(rel "$SER_BASE_O")/perf (a copy of $(rel "$SER_CHECK_O") at base)"
