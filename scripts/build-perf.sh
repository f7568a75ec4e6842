#!/bin/bash
# build-perf.sh - build the perf of a base and its series, if its sources
# changed: build/src-7.3 into build/perf-7.3/perf, with that base's make
# arguments (scripts/series.sh); what 'make' runs after apply.sh.
#
#   scripts/build-perf.sh [ARGS]   scripts/build.sh --if-changed [ARGS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
SRC=$SER_SRC O=$SER_PERF_O exec "$top/scripts/build.sh" --if-changed "${SER_BUILD_ARGS[@]}" "$@"
