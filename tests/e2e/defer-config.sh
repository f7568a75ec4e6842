#!/bin/bash
# defer-config: the perf config key of the deferred callchain merge, and a
# tool that never looks at callchains, on the real mt_defer recording (a
# thread blocked in the kernel for 990 ms: its record comes that much after
# its sample).
#   - call-graph.defer-window-bytes takes a number or 'unlimited'; anything
#     else (-1, junk, a unit) is an error that names the key, and perf
#     stops;
#   - the series waits in perf's own queue, and the blocked thread's sample
#     holds it until its record, whatever the time: only a window smaller
#     than what the queue holds lets it go before its record (perf script
#     says how many waited past the window at the end; the 5 samples taken
#     in execve, shown after the exec's COMM and MMAPs to be resolved in the
#     new program, are said apart);
#   - perf stat report, which never looks at a callchain, reads the
#     recording without a "BUG:".
. "$(dirname "$0")/../lib.sh"

data=$FIX/data/mt_defer.data
cfg() { printf '[call-graph]\n\t%s = %s\n' "$1" "$2" > "$TMPD/cfg"; }

for kv in "defer-window-bytes -1" "defer-window-bytes junk" "defer-window-bytes 16M"; do
	read -r key value <<< "$kv"
	cfg "$key" "$value"
	if PERF_CONFIG=$TMPD/cfg "$PERF" script -i "$data" > "$TMPD/out" 2> "$TMPD/err"; then
		fail "call-graph.$key = $value: perf script exits 0"
	fi
	no_sanitizer_report "$TMPD/err"
	grep -q "^call-graph.$key: '$value' is not a number" "$TMPD/err" ||
		fail "call-graph.$key = $value: no error that names the key: $(head -3 "$TMPD/err")"
	! grep -q ignoring "$TMPD/err" ||
		fail "call-graph.$key = $value: says it ignores the value, then stops: $(head -3 "$TMPD/err")"
	echo "ok   call-graph.$key = $value: $(head -1 "$TMPD/err")"
done

# the series holds samples in perf's own queue, flushed at the 3 rounds
# of this file: by then the blocked thread's record was read, and only a
# window smaller than the queue lets its sample go before it (want: how
# many samples it says waited past the window; the 5 taken in execve are
# said apart)
windows=("defer-window-bytes 4194304 0" "defer-window-bytes unlimited 0"
	 "defer-window-bytes 0 1")
for kv in "${windows[@]}"; do
	read -r key value want <<< "$kv"
	cfg "$key" "$value"
	PERF_CONFIG=$TMPD/cfg "$PERF" script -i "$data" > "$TMPD/out" 2> "$TMPD/err" ||
		fail "call-graph.$key = $value: perf script exits $?: $(head -3 "$TMPD/err")"
	no_sanitizer_report "$TMPD/err"
	n=$(awk '/ samples with a deferred user callchain were shown out of time$/ { n = $1; next }
		 n != "" && /^order: they waited/ { s += n } { n = "" } END { print s + 0 }' "$TMPD/err")
	[ "$n" = "$want" ] ||
		fail "call-graph.$key = $value: $n samples shown out of time order, want $want"
	echo "ok   call-graph.$key = $value: $n samples out of time order"
done

"$PERF" stat report -i "$data" > "$TMPD/stat" 2> "$TMPD/stat.err" ||
	fail "perf stat report exits $?: $(head -3 "$TMPD/stat.err")"
no_sanitizer_report "$TMPD/stat.err"
! grep -q 'BUG' "$TMPD/stat" "$TMPD/stat.err" ||
	fail "perf stat report: $(grep -h BUG "$TMPD/stat" "$TMPD/stat.err" | head -1)"
echo "ok   perf stat report: no BUG"
echo "defer-config: all ok"
