#!/bin/bash
# bad-input: crafted perf.data files (tests/tools/gen_perfdata.py --bad,
# --truncate, --missing) never crash perf or lose the rest of the data.
# For every case: perf exits 0, 'perf script' prints every sample (merged and
# --no-merge-callchains: as many sample blocks as the file has SAMPLEs, and
# the valid records unmerged), the warning names the problem, the counters
# of 'perf report --stats' ("Deferred callchains:") count it, and every other
# sample gets its user callchain: the merged output equals the "floor" file
# (the same samples with ordinary full callchains) except for the samples of
# the bad records, which lose their user part and nothing else.
#
#   nr-past-end   record whose nr claims more IPs than its size holds:
#                 skipped with "at offset <offset>: CALLCHAIN_DEFERRED record
#                 of <size> bytes cannot hold nr=<nr> IPs, skipping event"
#                 and "N invalid CALLCHAIN_DEFERRED records were skipped";
#                 "invalid records" = N, its samples "without user callchain"
#                 and lost ("of them, lost": their tasks went on), which the
#                 one deferred warning left at the end says: "N of M samples
#                 with a deferred user callchain got no user part: their
#                 CALLCHAIN_DEFERRED record never came, though their task
#                 went on"
#   no-sample-id  record cut short of its sample_id trailer: the same
#   nr0           nr = 0 is legal (empty user stack): merged, the sample
#                 keeps its kernel part only, no warning
#   nr-big        nr = 600, above the kernel's 510, consistent with the
#                 record's size: ACCEPTED and merged like any record, no
#                 warning.  510 is the kernel's unwind depth today, not part
#                 of the record format; header.size (u16) bounds nr to 8189
#                 anyway, so such a record costs no more than any event, and
#                 perf does not limit ordinary callchains to the kernel's
#                 depth either.  Upstream perf 7.2 merges it the same way.
#   cookie0       samples and record with cookie 0: TREATED LIKE ANY COOKIE
#                 (the kernel never writes 0, but matching needs no reserved
#                 value; upstream 7.2 merges it too).  The generator gives two
#                 kernel entries of one thread cookie 0, which no kernel does
#                 (a cookie names one entry): the series matches by cookie
#                 alone, so the second entry's sample takes the first
#                 record's user callchain (perf script differs from the floor
#                 file there, by other user frames: not compared), and --stats
#                 counts it as taken after the first record and the second
#                 record as used by no sample; no warning (since v6 perf
#                 warns of records used by no sample no more).  Raw, every
#                 record is printed.
#   dup           record written twice: the second is counted as a
#                 duplicate ("duplicate records"), not as a record that
#                 completed no sample, and draws no warning: its user
#                 callchain is shown
#   unknown-tid   record of a thread with no sample: completes no sample;
#                 "records used by no sample" = N, no warning (v6 dropped
#                 "N CALLCHAIN_DEFERRED records completed no sample")
#   no sample_id_all (attr): records have no tid and no time: the cookie
#                 matches them all the same, no warning
#   big endian: nr-past-end and dup in a big-endian file
#   all kinds at once in a pipe-mode file with migrated records
#   truncated files: pipe mode prints every complete sample and exits like
#                 perf does with the same cut in a file of ordinary callchains
#                 ("unexpected end of event stream", exit 0); file mode (data
#                 size in the header past the end, fitted to the cut record,
#                 or 0 like a killed perf record) exits like perf on such a
#                 floor file, and prints every complete sample when it exits
#                 0, else as many as with the floor file (data size past the
#                 end: perf stops at the zeros past EOF; 0: refused).  Fitted,
#                 perf must warn "the data ends inside the event" and exit 0:
#                 base perf dies of SIGBUS there (its remap unmaps the queued
#                 events; fixed by "perf session: Stop at an event cut short
#                 by the end of the data").  Base perf also dies of SIGBUS
#                 with the data size past EOF and EOF on a page boundary (the
#                 cuts here are not on one): dying the same way with the cut
#                 floor file is reported as BASE BUG, not failed, in the
#                 other cases; a crash only the deferred file causes fails.
#   many tids that never get a record: 300000 threads with one sample each,
#                 no record: each waits for its reorder window (until
#                 perf's queue holds 8 MiB), then alone,
#                 without holding back the events after it, until the
#                 window's bytes of waiting samples or the end give it up,
#                 without user part.  Every sample comes out, and in time
#                 order (perf script's output: none after a sample taken
#                 later): every event of this file is such a sample, so
#                 nothing passes them, and they are given up oldest first.
#                 Each is its thread's latest (only) kernel entry: not a
#                 loss, no warning, "of them, lost" = 0.  Peak
#                 RSS must stay within 1.5 x that of the same threads whose
#                 records come; not measured under a sanitizer
#                 (PERF_DEFER_SANITIZER set by make check-asan).
. "$(dirname "$0")/../lib.sh"

GEN=$TOP/tests/tools/gen_perfdata.py
[ -x "$PERF" ] || skip "no perf binary at $PERF"
command -v python3 > /dev/null || skip "no python3"
cd "$TMPD"
# made-up kernel addresses resolve against this, not the host's kallsyms
printf 'ffffffff81000000 T _stext\n' > ks.txt
KS=--kallsyms=$TMPD/ks.txt

# perf_in MODE FILE ARGS...: run perf ARGS on FILE (stdin in pipe mode)
perf_in() {
	local mode=$1 file=$2
	shift 2
	if [ "$mode" = pipe ]; then
		"$PERF" "$@" -i - < "$file"
	else
		"$PERF" "$@" -i "$file"
	fi
}

# blocks FILE: "<samples> <records>" printed by perf script
blocks() {
	awk '/^[^ \t]/ { if (/DEFERRED CALLCHAIN/) r++; else s++ } END { print s + 0, r + 0 }' "$1"
}

# counter FILE NAME: a counter of perf report --stats
counter() {
	awk -v n="$2" -F': *' '/^Deferred callchains:/ { d = 1 }
		/^Aggregated stats:/ { a = 1 }
		a && !d && $1 ~ "^ *" n " events$" { split($2, v, " "); print v[1]; exit }
		d && $1 ~ "^ *" n "$" { print $2 + 0; exit }' "$1"
}

json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$1" "$2"; }


# check NAME MODE "EXPECTED COUNTERS" WARNING-REGEX|- HUNKS GEN-ARGS...
#   counters: merged late unmatched lost unused invalid duplicate (deferred
#   samples = all samples; the samples perf script shows out of time order
#   are only shown); WARNING-REGEX: extended regexps separated by ' && ' that
#   stderr of perf script must match ('-': stderr must be empty); HUNKS: how
#   many samples lose their user part (merged vs floor), '-' not to compare
check() {
	local name=$1 mode=$2 want=$3 warn=$4 hunks=$5 n r got rc s re
	shift 5
	python3 "$GEN" -o "$name.data" --floor "$name.floor.data" --mode "$mode" \
		--kallsyms '' "$@" > "$name.json" || fail "$name: generator failed"
	n=$(json "$name.json" expect.samples)
	r=$(json "$name.json" expect.deferred_records)

	perf_in "$mode" "$name.data" report --stats > "$name.stats" 2> "$name.stats.err" ||
		fail "$name: perf report --stats exits $?: $(head -3 "$name.stats.err")"
	no_sanitizer_report "$name.stats.err"
	got="$(counter "$name.stats" SAMPLE) $(counter "$name.stats" CALLCHAIN_DEFERRED)"
	got="$got $(counter "$name.stats" 'deferred samples') $(counter "$name.stats" merged)"
	got="$got $(counter "$name.stats" 'merged, after their record')"
	got="$got $(counter "$name.stats" 'without user callchain')"
	got="$got $(counter "$name.stats" 'of them, lost')"
	got="$got $(counter "$name.stats" 'records used by no sample')"
	got="$got $(counter "$name.stats" 'invalid records')"
	got="$got $(counter "$name.stats" 'duplicate records')"
	[ "$got" = "$n $r $n $want" ] ||
		fail "$name: perf report --stats: SAMPLE, CALLCHAIN_DEFERRED, deferred, merged, late, unmatched, lost, unused, invalid, duplicate = $got, want $n $r $n $want"

	rc=0
	perf_in "$mode" "$name.data" script $KS > "$name.merged" 2> "$name.err" || rc=$?
	no_sanitizer_report "$name.err"
	# how many came out of time order depends on the generated times, not
	# on the bad input: shown, checked by the merge-v2 tests
	ooo=$(out_of_order "$name.merged")
	[ $rc = 0 ] || fail "$name: perf script exits $rc: $(head -3 "$name.err")"
	s=$(blocks "$name.merged")
	[ "$s" = "$n 0" ] || fail "$name: perf script prints '$s' sample and record blocks, want '$n 0'"
	if [ "$warn" = - ]; then
		# (the generator starts each process with an exec: the series
		# shows the samples of its first kernel entry at their record,
		# after the exec, and since v6 says nothing about it)
		[ ! -s "$name.err" ] || fail "$name: unexpected warning: $(head -5 "$name.err")"
	else
		while read -r re; do
			grep -Eq -- "$re" "$name.err" ||
				fail "$name: no warning /$re/ in: $(cat "$name.err")"
		done < <(echo "$warn" | sed 's/ && /\n/g')
	fi

	rc=0
	perf_in "$mode" "$name.data" script $KS --no-merge-callchains > "$name.unmerged" \
		2> "$name.err2" || rc=$?
	no_sanitizer_report "$name.err2"
	[ $rc = 0 ] || fail "$name: perf script --no-merge-callchains exits $rc"
	s=$(blocks "$name.unmerged")
	want_r=$((r - ${RAW_DROPPED:-$(echo "$want" | awk '{ print $6 }')}))
	[ "$s" = "$n $want_r" ] ||
		fail "$name: perf script --no-merge-callchains prints '$s' sample and record blocks, want '$n $want_r'"

	if [ "$hunks" != - ]; then
		perf_in "$mode" "$name.floor.data" script $KS > "$name.floor" 2> /dev/null
		s=$(diff "$name.merged" "$name.floor" | grep -c '^[0-9]') || true
		[ "$s" = "$hunks" ] ||
			fail "$name: merged output and floor file differ in $s places, want $hunks: $(diff "$name.merged" "$name.floor" | head -5)"
		# and only by the user frames the floor has and the merged lacks
		if diff "$name.merged" "$name.floor" | grep -E '^(<|[0-9]+(,[0-9]+)?[cd])'; then
			fail "$name: merged output differs from the floor file by more than missing user frames"
		fi
	fi
	echo "ok   $name: $n samples, $r records; counters $want; $ooo delivered out of time order"
}

# the warning of an invalid record: the series words it like perf's
# other "skipping event" warnings
W_INVALID='at offset 0x[0-9a-f]+: CALLCHAIN_DEFERRED record of [0-9]+ bytes cannot hold nr=[0-9]+ IPs( and a sample_id)?, skipping event'
# (the samples of the invalid records are lost: their tasks went on)
W_LOST='^their CALLCHAIN_DEFERRED record never came, though their task went$'
E_INVALID="$W_INVALID && ^2 invalid CALLCHAIN_DEFERRED records were skipped && ^2 of 1000 samples with a deferred user callchain got no user part:$ && $W_LOST"
# (v6 warns of lost records only: none for records used by no sample)
E_UNUSED=-
#     name         mode  merged late unmatched lost unused invalid dup
# (RAW_DROPPED: how many records perf script --no-merge-callchains does not
# print, if not the unused ones)
check nr-past-end  file '998 0 2 2 0 2 0'   "$E_INVALID" 2 --samples 1000 --threads 3 --bad nr-past-end:2
check no-sample-id file '998 0 2 2 0 2 0'   "$E_INVALID" 2 --samples 1000 --threads 3 --bad no-sample-id:2
check nr0          file '1000 0 0 0 0 0 0'  -            0 --samples 1000 --threads 3 --bad nr0:2
check nr-big       file '1000 0 0 0 0 0 0'  -            0 --samples 1000 --threads 3 --bad nr-big:2
# (the series matches by cookie alone, merging too: the second entry's
# sample takes the first record, and the second is unused: counted, since
# v6 not warned of)
W_COOKIE0=- H_COOKIE0=-
RAW_DROPPED=0 check cookie0 file '999 1 0 0 1 0 0' "$W_COOKIE0" "$H_COOKIE0" --samples 1000 --threads 3 \
	--bad cookie0:2
check dup          file '1000 0 0 0 0 0 2'  -            0 --samples 1000 --threads 3 --bad dup:2
check unknown-tid  file '1000 0 0 0 2 0 0'  "$E_UNUSED"  0 --samples 1000 --threads 3 --bad unknown-tid:2
# records without sample_id (no tid, no time): the cookie matches them all
check no-sample-id-all file '1000 0 0 0 0 0 0' - 0 --samples 1000 --threads 3 --no-sample-id-all
# big-endian file: records are checked after byte swapping
check be-file      file '998 0 2 2 0 2 1' "$E_INVALID" \
	2 --samples 1000 --threads 3 --endian big --bad nr-past-end:2 --bad dup
# every kind at once, pipe mode, 2 samples per kernel entry, records in
# another CPU's buffer: the 2 invalid records leave 4 samples without user part
# (the unknown tid's record: counted as used by no sample, not warned of)
check all-pipe     pipe '996 0 4 4 1 2 1' \
	"$W_INVALID && ^2 invalid CALLCHAIN_DEFERRED records were skipped && ^4 of 1000 samples with a deferred user callchain got no user part:$ && $W_LOST" \
	4 --samples 1000 --threads 4 --cpus 2 --per-entry 2 --user-frac 0 --migrate 0.3 \
	--round-events 100 --bad nr-past-end --bad no-sample-id --bad nr0 --bad nr-big \
	--bad cookie0 --bad dup --bad unknown-tid

# truncated files: the same cut in the floor file is what perf does anyway
# trunc NAME MODE FRAC HEADER
trunc() {
	local name=$1 mode=$2 frac=$3 header=$4 cut n rc frc s=- fs=-
	python3 "$GEN" -o "$name.data" --floor "$name.floor.data" --mode "$mode" --kallsyms '' \
		--samples 600 --threads 3 --cpus 2 --per-entry 2 --migrate 0.3 --round-events 100 \
		--truncate "$frac" --truncate-header "$header" > "$name.json" ||
		fail "$name: generator failed"
	cut=$(json "$name.json" truncated.cut_offset)
	n=$(json "$name.json" truncated.samples_before_cut)
	python3 - "$GEN" "$name.floor.data" "$mode" "$frac" "$header" <<-'EOF' || fail "$name: cannot cut the floor file"
	import importlib.util, struct, sys
	spec = importlib.util.spec_from_file_location("gen", sys.argv[1])
	gen = importlib.util.module_from_spec(spec); spec.loader.exec_module(gen)
	path, mode, frac, header = sys.argv[2:]
	off = 16 if mode == "pipe" else struct.unpack_from("<Q", open(path, "rb").read(48), 40)[0]
	gen.truncate(path, off, float(frac), "little", mode == "pipe", header)
	EOF
	for f in "$name.data" "$name.floor.data"; do
		[ $(( $(stat -c %s "$f") % 4096 )) != 0 ] || fail "$f: cut on a page boundary (base perf SIGBUS)"
	done
	for m in "" --no-merge-callchains; do
		rc=0
		perf_in "$mode" "$name.data" script $KS $m > "$name.out" 2> "$name.err" || rc=$?
		frc=0
		perf_in "$mode" "$name.floor.data" script $KS > "$name.fout" 2> "$name.ferr" || frc=$?
		no_sanitizer_report "$name.err" "$name.ferr"
		if [ "$header" = fit ]; then
			[ $rc = 0 ] && [ $frc = 0 ] ||
				fail "$name: perf script $m exits $rc (floor file $frc), want 0: $(grep -v HEADER_NRCPUS "$name.err" | head -3)"
			grep -q "the data ends inside the event" "$name.err" ||
				fail "$name: no 'the data ends inside the event' in: $(head -3 "$name.err")"
		fi
		# 129..159: killed by a signal (perf's own errors are 255 - errno + 1)
		if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
			[ $frc = $rc ] ||
				fail "$name: perf script $m dies (exit $rc), not with the floor file ($frc): $(head -3 "$name.err")"
			echo "BASE BUG $name: perf script $m dies of signal $((rc - 128)) like it does with the cut floor file"
			basebug=$((basebug + 1))
			continue
		fi
		[ $rc = $frc ] || fail "$name: perf script $m exits $rc, with the floor file $frc"
		s=$(blocks "$name.out")
		s=${s% *}
		fs=$(blocks "$name.fout")
		fs=${fs% *}
		if [ "$mode" = pipe ]; then
			[ "$s" = "$n" ] ||
				fail "$name: perf script $m prints $s samples, $n are complete before the cut at $cut"
			grep -q 'unexpected end of event stream' "$name.err" ||
				fail "$name: no 'unexpected end of event stream' in: $(head -3 "$name.err")"
		elif [ $rc = 0 ]; then
			[ "$s" = "$n" ] ||
				fail "$name: perf script $m prints $s samples, $n are complete before the cut at $cut"
		else
			[ "$s" = "$fs" ] ||
				fail "$name: perf script $m prints $s samples, $fs of the cut floor file"
		fi
	done
	echo "ok   $name: cut at $cut, $n complete samples; perf script exits $rc, prints $s samples (floor file: $frc, $fs)"
}
basebug=0
trunc trunc-pipe-20 pipe 0.2 keep
trunc trunc-pipe-45 pipe 0.45 keep
trunc trunc-pipe-70 pipe 0.7 keep
trunc trunc-pipe-95 pipe 0.95 keep
trunc trunc-keep    file 0.6 keep
trunc trunc-fit     file 0.6 fit
trunc trunc-zero    file 0.6 zero

# many threads whose record never comes: each sample waits for its window
# (until perf's queue holds 8 MiB), then alone, until the end
# (300k for the peak RSS comparison below; under the sanitizers, which
# skip it, 30k reach the same paths in a tenth of the time, 40 s, not 7 min,
# with a tenth of the window: all 30k fit in 8 MiB)
T=300000
[ -z "${PERF_DEFER_SANITIZER:-}" ] || {
	T=30000
	printf '[call-graph]\n\tdefer-window-bytes = %d\n' $((8 << 20) / 10) > window.cfg
	export PERF_CONFIG=$TMPD/window.cfg
}
T=${BAD_INPUT_TIDS:-$T}
python3 "$GEN" -o many.data --kallsyms '' --samples "$T" --threads "$T" --per-entry 1 \
	--user-frac 0 --missing 1 > many.json || fail "generator failed"
python3 "$GEN" -o manyrec.data --kallsyms '' --samples "$T" --threads "$T" --per-entry 1 \
	--user-frac 0 > manyrec.json || fail "generator failed"
name=many
"$PERF" report --stats -i many.data > many.stats 2> many.stats.err ||
	fail "many: perf report --stats exits $?"
no_sanitizer_report many.stats.err
got="$(counter many.stats 'deferred samples') $(counter many.stats 'without user callchain')"
got="$got $(counter many.stats 'of them, lost')"
[ "$got" = "$T $T 0" ] ||
	fail "many: deferred, without user callchain, lost = '$got', want '$T $T 0'"

rss() { # FILE ARGS...: peak RSS in kB of perf script ARGS on FILE, checks its output
	local f=$1 s
	shift
	/usr/bin/time -f '%M' -o "$TMPD/rss" "$PERF" script $KS -F tid,time "$@" -i "$f" \
		> "$TMPD/rss.out" 2> "$TMPD/rss.err" || fail "$f: perf script $* exits $?"
	no_sanitizer_report "$TMPD/rss.err"
	s=$(grep -c : "$TMPD/rss.out")
	[ "$s" = "$T" ] || fail "$f: perf script $* prints $s samples, want $T"
	cat "$TMPD/rss"
}
if [ -n "${PERF_DEFER_SANITIZER:-}" ] || [ ! -x /usr/bin/time ]; then
	"$PERF" script $KS -F tid,time -i many.data > many.out 2> many.err ||
		fail "many: perf script exits $?"
	no_sanitizer_report many.err
	s=$(grep -c : many.out)
	[ "$s" = "$T" ] || fail "many: perf script prints $s samples, want $T"
	echo "note: peak RSS not compared (sanitizer build or no /usr/bin/time)"
else
	m=$(rss many.data)
	cp "$TMPD/rss.err" many.err
	cp "$TMPD/rss.out" many.out
	u=$(rss many.data --no-merge-callchains)
	r=$(rss manyrec.data)
	echo "peak RSS, $T threads: no record merged ${m} kB, unmerged ${u} kB; records come, merged ${r} kB"
	# the window bounds the held events, and the same bound again the
	# samples waiting past it: at most ~1.5x the file whose records come
	[ "$m" -le $((r * 3 / 2)) ] ||
		fail "many: peak RSS ${m} kB without records, ${r} kB with them"
fi
# past their window they wait alone, and come out when the memory bound or
# the end gives them up: oldest first, and no other event of the file went
# ahead of them, so in time order (before v6 perf's warning on stderr
# counted as shown out of time order those that waited past their window,
# 1 to all of them; the output shows none after a later one); no warning,
# none lost
ooo=$(out_of_order many.out)
[ "$ooo" = 0 ] || fail "many: $ooo samples shown out of time order, want 0"
! grep -Ei 'deferred' many.err many.stats.err ||
	fail "many: perf warns about the deferred callchains of tasks whose latest entry has no record"
echo "ok   many: $T threads without record: all delivered, in time order, no warning"
[ $basebug = 0 ] || echo "bad-input: $basebug runs hit the base perf SIGBUS on truncated files (see the header)"
echo "bad-input: all ok"
