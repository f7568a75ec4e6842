#!/bin/bash
# read-perf72-zstd-pipe.sh - perf reads the whole of the perf 7.2 recordings
# made with 'perf record -z' (PERF_RECORD_COMPRESSED2) and 'perf record -o -'
# (pipe mode: 144-byte attrs in PERF_RECORD_HEADER_ATTR, header features this
# perf does not know): 'perf report --stats' counts every record type as
# upstream perf 7.2 did (upstream-7.2/*.report-stats.txt), and 'perf inject'
# passes compressed records, COMPRESSED2 and this perf's own COMPRESSED,
# through unchanged.
#
# Both recordings have deferred callchains: this needs
# PERF_RECORD_CALLCHAIN_DEFERRED (type 22) to be read too.
. "$(dirname "$0")/../lib.sh"

# the "NAME events: N" lines of perf report --stats
counts() { grep -E '^ *[A-Za-z0-9_]+ events: ' | sed -E 's/ +\(.*//; s/^ +//; s/ +/ /g'; }

bad=0
check_stats() { # what file expected-stats [whose]
	local what=$1 f=$2 up=$3 whose=${4:-upstream perf 7.2}
	if ! "$PERF" report --stats -i "$f" > "$TMPD/stats" 2> "$TMPD/err" ||
	   grep -q 'failed to process' "$TMPD/err"; then
		cat "$TMPD/err"
		echo "$what: perf report --stats failed"
		bad=$((bad + 1))
		return
	fi
	if ! diff -u <(counts < "$up") <(counts < "$TMPD/stats"); then
		echo "$what: record counts differ from $whose's (- $whose, + ours)"
		bad=$((bad + 1))
		return
	fi
	echo "$what: $(counts < "$TMPD/stats" | grep -m1 SAMPLE), as $whose"
}

for name in st_defer_zstd st_defer_pipe; do
	upstream $name report-stats > "$TMPD/$name.up"
	check_stats "$name" "$FIX/data/$name.data" "$TMPD/$name.up"
done

# perf inject keeps the COMPRESSED2 record, and so the records inside it
upstream st_defer_zstd inject.report-stats > "$TMPD/inject.up"
if "$PERF" inject -i "$FIX/data/st_defer_zstd.data" -o "$TMPD/inject.data"; then
	check_stats "st_defer_zstd, perf inject" "$TMPD/inject.data" "$TMPD/inject.up"
else
	echo "st_defer_zstd: perf inject failed"
	bad=$((bad + 1))
fi

# and this perf's own PERF_RECORD_COMPRESSED (COMPRESSED2 with perf 7.2),
# when it can record here
if "$PERF" record -z -e cpu-clock -c 100000 -g -o "$TMPD/z.data" -- \
	"$FIX/bin/st_syscalls" 0.2 > "$TMPD/rec.log" 2>&1; then
	"$PERF" report --stats -i "$TMPD/z.data" > "$TMPD/z.stats"
	if grep -Eq 'COMPRESSED2? events' "$TMPD/z.stats" &&
	   "$PERF" inject -i "$TMPD/z.data" -o "$TMPD/zi.data"; then
		check_stats "perf record -z, perf inject" "$TMPD/zi.data" "$TMPD/z.stats" \
			"the input"
	else
		echo "perf record -z: no COMPRESSED record, or perf inject failed"
		bad=$((bad + 1))
	fi
else
	echo "note: perf record does not work here, COMPRESSED not checked:"
	tail -3 "$TMPD/rec.log"
fi
[ $bad = 0 ] || fail "$bad check(s) failed"
