#!/bin/bash
# defer-config: the perf config key of the deferred callchain merge, and a
# tool that never looks at callchains, on the real mt_defer recording (a
# thread blocked in the kernel for 990 ms: its record comes that much after
# its sample).
#   - call-graph.defer-window-bytes takes a number or 'unlimited'; anything
#     else (-1, junk, a unit) is an error that names the key, and perf
#     stops;
#   - the series waits in perf's own queue, and the blocked thread's sample
#     holds it until its record, whatever the time.  This file's 3 rounds
#     are two at its start and one at its end: its queue is flushed at the
#     end, after every record was read, so even a window of 0 holds nothing
#     past it and every sample is shown in time order (perf script's
#     output: no sample after one taken later; v5 said on stderr that with
#     a window of 0 one sample waited past it, v6 says nothing and the
#     output shows it in its place, merged).  What a window of 0 changes
#     here is the records kept for the samples taken after them (half the
#     window): the 9 such samples ("merged, after their record" of perf
#     report --stats) get no user part.  Samples that wait past a window
#     and are shown out of order: merge-v2-offcpu, inject-merge-stream;
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

# the series holds samples in perf's own queue, flushed at the end of this
# file: by then every record was read, whatever the window, and every
# sample is shown in time order (want: samples shown after one taken
# later, in perf script's output; samples without user part, "late" the
# samples taken after their record, whose records a window of 0 does not
# keep)
late=$("$PERF" report --stats -i "$data" 2> /dev/null |
	awk -F': *' '/^ *merged, after their record:/ { print $2 + 0; exit }')
[ "${late:-0}" -gt 0 ] || fail "perf report --stats counts no sample merged after its record"
windows=("defer-window-bytes 4194304 0 0" "defer-window-bytes unlimited 0 0"
	 "defer-window-bytes 0 0 late")
for kv in "${windows[@]}"; do
	read -r key value want nouser <<< "$kv"
	[ "$nouser" != late ] || nouser=$late
	cfg "$key" "$value"
	PERF_CONFIG=$TMPD/cfg "$PERF" script -i "$data" > "$TMPD/out" 2> "$TMPD/err" ||
		fail "call-graph.$key = $value: perf script exits $?: $(head -3 "$TMPD/err")"
	no_sanitizer_report "$TMPD/err"
	n=$(out_of_order "$TMPD/out")
	[ "$n" = "$want" ] ||
		fail "call-graph.$key = $value: $n samples shown out of time order, want $want"
	# samples whose callchain has no user address
	u=$(awk '/^[^\t]/ { if (h && !u) n++; h = 1; u = 0; next }
		 /^\t/ && $1 !~ /^ffff/ { u = 1 }
		 END { if (h && !u) n++; print n + 0 }' "$TMPD/out")
	[ "$u" = "$nouser" ] ||
		fail "call-graph.$key = $value: $u samples without user part, want $nouser"
	if [ "$nouser" = 0 ] && grep -Ei 'deferred' "$TMPD/err"; then
		fail "call-graph.$key = $value: perf script warns about deferred callchains"
	fi
	echo "ok   call-graph.$key = $value: $n samples out of time order, $u without user part"
done

"$PERF" stat report -i "$data" > "$TMPD/stat" 2> "$TMPD/stat.err" ||
	fail "perf stat report exits $?: $(head -3 "$TMPD/stat.err")"
no_sanitizer_report "$TMPD/stat.err"
! grep -q 'BUG' "$TMPD/stat" "$TMPD/stat.err" ||
	fail "perf stat report: $(grep -h BUG "$TMPD/stat" "$TMPD/stat.err" | head -1)"
echo "ok   perf stat report: no BUG"
echo "defer-config: all ok"
