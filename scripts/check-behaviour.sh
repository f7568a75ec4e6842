#!/bin/bash
# check-behaviour.sh - the behaviour half of the per-prefix series checks
# (check-series.sh runs it on the perf built from every prefix of the
# series): bisectable in behaviour, not only in build.  No prefix may make
# a command that perf ships worse than the base or than the prefix before.
#
#   scripts/check-behaviour.sh --key
#       print the cache key of the measurements: a hash of this script and
#       of the fixtures it reads (check-series keeps one measurement per
#       source tree and key in build/check-series-7.3/behaviour/)
#   scripts/check-behaviour.sh --measure PERF > FILE
#       run PERF on the fixtures and write what it did, one "key value"
#       line each (exit status, sample and record counts, first error line)
#   scripts/check-behaviour.sh --judge BASE [EARLIER...] CURRENT
#       judge the measurement CURRENT against the base's and those of the
#       prefixes before it (oldest first): print a one-line summary, the
#       details on stderr, and exit 1 if a rule is broken
#
# Per fixture (recordings by perf 7.2: deferred, ordinary, deferred with -z,
# deferred in pipe mode):
#   perf evlist -i F                    can this perf read the file at all?
#   perf script -F tid,time -i F        one line per sample: the count
#   perf script -F ip -i F              the callchains: the frames shown
#   perf report --stats -i F            SAMPLE and CALLCHAIN_DEFERRED counts
#   perf inject -i F -o X; perf report --stats -i X
#
# Rules, for every fixture:
#   - a command the base or an earlier prefix ran successfully (exit 0)
#     must still succeed;
#   - a command that fails where the base also fails may fail with another
#     error (a prefix that reads more of a 7.x file stops later in it), but
#     never by a signal (a crash);
#   - the sample count of 'perf script' and of 'perf report --stats', and
#     the number of callchain frames 'perf script' shows, never go down
#     from one prefix to the next (a lost user stack is fewer frames),
#     but for one frame per deferred sample without a user part ('without
#     user callchain' in --stats, or the warning at the end of perf
#     script): where the base shows its cookie as a frame (upstream
#     perf), the series shows its kernel part only;
#   - once 'perf report --stats' works, 'perf inject -o X' exits 0 and X
#     has the same number of samples, and (once the prefix parses record 22,
#     i.e. counts CALLCHAIN_DEFERRED records) the same number of them;
#     where the base itself counts them and its perf inject loses some
#     (upstream perf drops every one: the series fixes that), a
#     prefix's perf inject keeps at least as many as the prefix before.
# Each measurement takes well under a second (the fixtures are small).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
fixdir=$top/tests/fixtures/real-7.2/data
# (CHECK_BEHAVIOUR_FIXTURES="st_defer st_defer_zstd ..." for others)
fixtures=${CHECK_BEHAVIOUR_FIXTURES:-st_defer st_nodefer st_defer_zstd st_defer_pipe}

case "${1:-}" in
--key)
	{ cat "$0"; echo "$fixtures"; for f in $fixtures; do cat "$fixdir/$f.data"; done; } |
		sha1sum | cut -c1-16
	exit 0 ;;
--measure)
	[ $# = 2 ] && [ -x "$2" ] || { echo "usage: $0 --measure PERF" >&2; exit 2; }
	perf=$2 ;;
--judge)
	[ $# -ge 3 ] || { echo "usage: $0 --judge BASE [EARLIER...] CURRENT" >&2; exit 2; }
	shift ;;
*)	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac

# ---- measure ---------------------------------------------------------------
if [ -n "${perf:-}" ]; then
	tmp=$(mktemp -d /tmp/check-behaviour.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	# no ~/.perfconfig, no ~/.debug, no pager, no terminal (not
	# PERF_CONFIG=/dev/null: perf 6.12 then quietly does nothing)
	export HOME=$tmp PERF_PAGER=cat
	run() { # name command... : exit status, stdout in $tmp/out, error line
		local name=$1 rc
		shift
		timeout 60 "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
		rc=$?
		echo "$name.rc $rc"
		if [ $rc -gt 128 ] && [ $rc -le 192 ]; then
			echo "$name.err killed by signal $((rc - 128))"
		elif [ $rc != 0 ]; then
			# the line that says what went wrong (the first one that
			# looks like an error, else the last), without the
			# temporary directory's name
			{ grep -m1 -iE 'error|fail|incompatible|invalid|unknown|cannot|not supported' "$tmp/err" ||
			  grep -v '^[[:space:]]*$' "$tmp/err" | tail -n 1; } |
				sed "s|$tmp|TMP|g; s|$fixdir/||g; s/^/$name.err /" | cut -c1-200
		fi
		return $rc
	}
	stats() { # name file: SAMPLE and CALLCHAIN_DEFERRED counts (aggregated)
		if run "$1" "$perf" report --stats -i "$2"; then
			awk -v n="$1" '
				$1 == "SAMPLE" && $2 == "events:" && !s { s = $3 }
				$1 == "CALLCHAIN_DEFERRED" && $2 == "events:" && !d { d = $3 }
				/^ *without user callchain: / && !u { u = $4 }
				END { printf "%s.samples %d\n%s.deferred %d\n%s.nouser %d\n", n, s, n, d, n, u }' "$tmp/out"
		fi
	}
	for f in $fixtures; do
		data=$fixdir/$f.data
		run "$f.read" "$perf" evlist -i "$data"
		run "$f.script" "$perf" script -F tid,time -i "$data" &&
			echo "$f.script.samples $(grep -c . "$tmp/out")"
		if run "$f.frames" "$perf" script -F ip -i "$data"; then
			echo "$f.frames.count $(grep -c . "$tmp/out")"
			# the samples it showed without a user part, if it says
			echo "$f.frames.nouser $(sed -n 's/^\([0-9]*\) of [0-9]* samples with a deferred user callchain got no user part.*/\1/p' "$tmp/err" | head -1)"
		fi
		stats "$f.stats" "$data"
		if run "$f.inject" "$perf" inject -i "$data" -o "$tmp/inj.data"; then
			stats "$f.inject.stats" "$tmp/inj.data"
		fi
		rm -f "$tmp/inj.data"
	done
	exit 0
fi

# ---- judge -----------------------------------------------------------------
# m[i,key] = value, i = 0 (base) .. last (the prefix judged)
declare -A m
last=-1
for file in "$@"; do
	last=$((last + 1))
	while read -r k v; do
		[ -n "$k" ] && m[$last,$k]=$v
	done < "$file"
done
get() { echo "${m[$1,$2]:-}"; }

bad=0 summary=()
problem() { echo "  $*" >&2; bad=1; }
cmdname() {
	case $1 in
	read) echo "perf evlist" ;; script) echo "perf script" ;;
	frames) echo "perf script -F ip" ;; stats) echo "perf report --stats" ;;
	inject) echo "perf inject" ;;
	esac
}
how() { # i f cmd: how the command ended
	local rc
	rc=$(get $1 $2.$3.rc)
	case $rc in
	0) echo "exit 0" ;;
	"") echo "not run" ;;
	*) echo "exit $rc: $(get $1 $2.$3.err)" ;;
	esac
}
for f in $fixtures; do
	c=$last
	nfailed=0
	for cmd in read script frames stats inject; do
		[ "$(get $c $f.$cmd.rc)" = 0 ] && continue
		nfailed=$((nfailed + 1))
		# 1. nothing that worked before may stop working
		worked=
		for ((i = 0; i < c; i++)); do
			[ "$(get $i $f.$cmd.rc)" = 0 ] || continue
			worked=$([ $i = 0 ] && echo "the base" || echo "an earlier prefix")
			break
		done
		if [ -n "$worked" ]; then
			problem "$f: '$(cmdname $cmd)' fails ($(how $c $f $cmd)), $worked ran it"
		# 2. a command that fails as in the base does not crash
		elif rc=$(get $c $f.$cmd.rc) && [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
			problem "$f: '$(cmdname $cmd)' crashes ($(how $c $f $cmd)); the base: $(how 0 $f $cmd)"
		fi
	done
	if [ $nfailed = 5 ]; then
		summary+=("$f: fails as the base does")
		continue
	fi
	# 3. counts never go down
	for k in script.samples stats.samples frames.count; do
		cur=$(get $c $f.$k)
		[ -n "$cur" ] || continue
		# a deferred sample whose record never came: a perf that shows
		# its cookie as a frame (upstream perf) has one frame more for it
		# than one that shows its kernel part only (--stats counts them);
		# so has 'perf script -F tid,time' of a pipe, which shows the
		# callchains whatever the fields asked
		slack=0
		if [ $k = frames.count ] || [ $k = script.samples ]; then
			slack=$(get $c $f.frames.nouser)
			[ -n "$slack" ] || slack=$(get $c $f.stats.nouser)
		fi
		for ((i = c - 1; i >= 0; i--)); do
			prev=$(get $i $f.$k)
			[ -n "$prev" ] || continue
			[ "$((cur + ${slack:-0}))" -ge "$prev" ] ||
				problem "$f: $k went down to $cur, from $prev with $([ $i = 0 ] && echo "the base" || echo "the prefix before")"
			break
		done
	done
	# 4. perf inject keeps the samples and the deferred records
	if [ "$(get $c $f.script.rc)" = 0 ]; then
		line="$f: $(get $c $f.script.samples) samples $(get $c $f.frames.count) frames"
	else
		line="$f: script fails"
	fi
	s=$(get $c $f.stats.samples) d=$(get $c $f.stats.deferred)
	if [ "$(get $c $f.inject.rc)" != 0 ]; then
		line="$line, inject fails"
	elif [ "$(get $c $f.inject.stats.rc)" != 0 ]; then
		problem "$f: perf report --stats cannot read what perf inject wrote ($(how $c $f inject.stats))"
		line="$line, inject output unreadable"
	elif [ "$(get $c $f.stats.rc)" = 0 ]; then
		is=$(get $c $f.inject.stats.samples) id=$(get $c $f.inject.stats.deferred)
		[ "$is" = "$s" ] ||
			problem "$f: perf inject keeps $is of $s samples"
		bd=$(get 0 $f.stats.deferred) bid=$(get 0 $f.inject.stats.deferred)
		if [ "${d:-0}" -gt 0 ] && [ "$id" != "$d" ]; then
			if [ "${bd:-0}" -gt 0 ] && [ "${bid:-0}" -lt "$bd" ]; then
				# the base loses records: no fewer than before
				for ((i = c - 1; i >= 0; i--)); do
					prev=$(get $i $f.inject.stats.deferred)
					[ -n "$prev" ] || continue
					[ "${id:-0}" -ge "$prev" ] ||
						problem "$f: perf inject keeps $id of $d CALLCHAIN_DEFERRED records, $prev with $([ $i = 0 ] && echo "the base" || echo "the prefix before")"
					break
				done
			else
				problem "$f: perf inject keeps $id of $d CALLCHAIN_DEFERRED records"
			fi
		fi
		if [ "$is" = "$s" ] && [ "$id" = "$d" ]; then
			line="$line, inject keeps all"
		else
			line="$line, inject keeps $is/$s samples $id/$d records"
		fi
	fi
	summary+=("$line")
done
(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')
exit $bad
