#!/bin/bash
# stats-deferred: the "Deferred callchains:" counters of 'perf report
# --stats' on every real recording agree with the independent count in
# analysis/NAME.stats.json (tests/tools/deferred_stats.py, a perf.data
# parser that does not use perf):
#   SAMPLE / CALLCHAIN_DEFERRED events   = samples / deferred_records
#   deferred samples                     = samples_with_USER_DEFERRED
#   merged                               = samples_matched
#   merged, after their record           = unmatched_samples_taken_AFTER_their_cookies_record
#   without user callchain               = unmatched_samples_whose_cookie_never_appears
#   of them, lost                        = 0: each is the last kernel entry
#                                          of its task (its exit, or the end)
#   in time order, no user part          = 0 (perf report --stats: file order)
#   records used by no sample            = deferred_records_orphan
#   duplicate records                    = deferred_with_same_tid_cookie_more_than_once
#   invalid records                      = 0
#   samples per user unwind              = (samples_matched + the AFTER ones)
#                                          / deferred_records_used, 2 decimals
# and recordings without deferred callchains show no such section.
. "$(dirname "$0")/../lib.sh"

bad=0
n=0
for data in "$FIX"/data/*.data; do
	name=$(basename "$data" .data)
	n=$((n + 1))
	if ! "$PERF" report --stats -i "$data" > "$TMPD/$name.txt" 2> "$TMPD/$name.err"; then
		echo "FAIL $name: perf report --stats failed: $(head -3 "$TMPD/$name.err")"
		bad=$((bad + 1))
		continue
	fi
	# an ASan/UBSan build reports on stderr
	if grep -E 'runtime error|Sanitizer' "$TMPD/$name.err"; then
		echo "FAIL $name: sanitizer report"
		bad=$((bad + 1))
		continue
	fi
	if out=$(python3 - "$TMPD/$name.txt" "$FIX/analysis/$name.stats.json" <<'PY'
import json, os, re, sys
text = open(sys.argv[1]).read()
a = json.load(open(sys.argv[2]))

def counter(name, section):
    m = re.search(r"^\s*" + re.escape(name) + r":\s+(\d+)", section, re.M)
    return int(m.group(1)) if m else None

agg = text.split("Aggregated stats:", 1)[-1]
got_deferred = "Deferred callchains:" in text
dc = agg.split("Deferred callchains:", 1)[1] if got_deferred else ""
checks = [("SAMPLE events", counter("SAMPLE events", agg), a["samples"]),
          ("CALLCHAIN_DEFERRED events",
           counter("CALLCHAIN_DEFERRED events", agg) or 0, a["deferred_records"])]
if a["deferred_records"] or a["samples_with_USER_DEFERRED"]:
    checks += [
        ("deferred samples", counter("deferred samples", dc),
         a["samples_with_USER_DEFERRED"]),
        ("merged", counter("merged", dc), a["samples_matched"]),
        ("merged, after their record", counter("merged, after their record", dc),
         a["unmatched_samples_taken_AFTER_their_cookies_record"]),
        ("without user callchain", counter("without user callchain", dc),
         a["unmatched_samples_whose_cookie_never_appears"]),
        ("of them, lost", counter("of them, lost", dc), 0),
        ("in time order, no user part", counter("in time order, no user part", dc), 0),
        ("records used by no sample", counter("records used by no sample", dc),
         a["deferred_records_orphan"]),
        ("duplicate records", counter("duplicate records", dc),
         a["deferred_with_same_tid_cookie_more_than_once"]),
        ("invalid records", counter("invalid records", dc), 0),
    ]
    checks.append(("samples per user unwind",
        (re.search(r"^\s*samples per user unwind:\s+(\S+)", dc, re.M) or [None, None])[1],
        "%.2f" % ((a["samples_matched"] +
                   a["unmatched_samples_taken_AFTER_their_cookies_record"]) /
                  max(a["deferred_records_used"], 1))))
elif got_deferred:
    checks.append(("a Deferred callchains section", 1, 0))
bad = ["%s: %s, want %s" % c for c in checks if c[1] != c[2]]
print("; ".join(bad) if bad else
      ", ".join("%s %s" % (c[0], c[1]) for c in checks[:6]))
sys.exit(1 if bad else 0)
PY
	); then
		echo "ok   $name: $out"
	else
		echo "FAIL $name: $out"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no recordings in $FIX/data"
[ "$bad" = 0 ] || fail "$bad of $n recordings differ"

# The same counters from a pipe: perf inject writes the events of the -a
# recording in file order, where records of migrated tasks are in another
# CPU's buffer; --stats matches by cookie in that order, holding nothing.
dc() { sed -n '/^Deferred callchains:/,/invalid records/p'; }
for name in syswide_defer mt_defer; do
	"$PERF" report --stats -i "$FIX/data/$name.data" 2> /dev/null | dc > "$TMPD/file.txt"
	"$PERF" inject -i "$FIX/data/$name.data" -o - 2> /dev/null |
		"$PERF" report --stats -i - 2> /dev/null | dc > "$TMPD/pipe.txt"
	[ -s "$TMPD/file.txt" ] || fail "$name: no Deferred callchains section"
	diff "$TMPD/file.txt" "$TMPD/pipe.txt" > "$TMPD/diff" ||
		fail "$name: report --stats counts otherwise from a pipe: $(cat "$TMPD/diff")"
	echo "ok   $name: the same counters from a pipe"
done
echo "all $n recordings agree"

# What one user unwind served, on a generated file: 5 samples in two kernel
# entries (3 and 2), so two records
python3 "$TOP/tests/tools/gen_perfdata.py" -o "$TMPD/five.data" --samples 5 --threads 1 \
	--per-entry 3 --user-frac 0 --cpus 1 --seed 1 > /dev/null || fail "generator failed"
"$PERF" report --stats -i "$TMPD/five.data" > "$TMPD/five.txt" 2>&1 ||
	fail "perf report --stats failed on 5 samples: $(head -3 "$TMPD/five.txt")"
got=$(sed -n 's/^ *samples per user unwind: *//p' "$TMPD/five.txt")
[ "$got" = 2.50 ] || fail "5 samples on 2 records: samples per user unwind '$got', want 2.50"
echo "ok   5 samples on 2 records: 2.50 samples per user unwind"
