#!/bin/bash
# inject-merge-guests: deferred user callchains of a host and its guests
# are matched per machine, by perf script and by perf inject
# --merge-callchains, in file and in pipe mode.
#
# A cookie names a kernel entry within ONE kernel: a host and its guests
# count cookies each on their own, so the same tid with the same cookie
# comes in several machines, each with its own PERF_RECORD_CALLCHAIN_DEFERRED.
# perf knows a sample's or record's machine from its sample id, by the
# PERF_RECORD_ID_INDEX (extended entries: machine pid, vcpu), and must match
# by (machine pid, cookie).  Generated files (tests/tools/gen_perfdata.py
# --guests 2): the host and two guests run the same threads (same pids and
# tids), each machine with user stacks of its own (so a user part taken
# from another machine shows), guest events with GUEST_KERNEL/GUEST_USER
# cpumode and ids of their own; most (tid, cookie) pairs come in two or
# three machines, some guest entries have a cookie of their own (same tid,
# other cookie).  Two schedules: "interleave" (one entry after another, a
# few records written on another cpu, a few samples after their record)
# and "burst" (every thread's entry in every machine pending at once).
# The generator writes each sample's expected merged chain (--chains).
#
#   (a) perf script -F machine_pid,tid,time,ip of the file: every sample
#       shows its machine, kernel part and the user part of its own machine;
#   (b) perf inject --merge-callchains to a file, then perf script: the
#       same, and the same samples with the same chains as (a);
#   (c) the same from the pipe-mode file, through a pipe:
#       perf inject --merge-callchains -i - -o - | perf script -i -;
#   (d) perf script --show-round-events, which reads the file in its order:
#       a sample whose record comes later waits for it out of the queue and
#       is parsed again from its copy when the record delivers it; it keeps
#       its machine (the sample id's machine pid: evlist__parse_sample()).
#       The same samples and chains as (a).  Most samples wait so (on
#       interleave's file, 3568 of 4000 go through the session's delivery at
#       the record: a breakpoint's count, 2026-12-05).
# Every check runs; the failures are listed at the end.
. "$(dirname "$0")/../lib.sh"

GEN=$TOP/tests/tools/gen_perfdata.py
[ -x "$PERF" ] || skip "no perf binary at $PERF"
cd "$TMPD"

# (perf 7.x adds the inlined frames DWARF tells it of: the chains as written)
F=(-F "machine_pid,tid,time,ip" --ns --no-inline)

# check.py JSON CHAINS WHAT=TXT...: the generator made what this test is
# about (else exit 2); then the samples of each perf script text TXT
# against the generator's chains: a line "WHAT: ..." each, with what is
# wrong (exit 1)
cat > check.py <<'PY'
import json, re, sys
g = json.load(open(sys.argv[1]))["guests"]
hg, gg = g["same_tid_cookie_host_and_guest"], g["same_tid_cookie_between_guests"]
own = sum(m["entries_with_own_cookie"] for m in g["machines"])
if not (hg and gg and own and g["tids_sampled_in_more_than_one_machine"]):
    print("the generator made no (tid, cookie) in two machines: %d host and guest, "
          "%d two guests, %d guest entries with a cookie of their own" % (hg, gg, own))
    sys.exit(2)
print("generated: %s; (tid, cookie) in the host and a guest: %d, in two guests: %d; "
      "guest entries with a cookie of their own: %d" % (
          ", ".join("%s %d samples" % ("host" if m["machine_pid"] == 0 else
                                       "guest %d" % m["machine_pid"], m["samples"])
                    for m in g["machines"]), hg, gg, own))


def ips(s):
    return () if s == "-" else tuple(int(x, 16) for x in s.split(","))


want, owner = {}, {}
for l in open(sys.argv[2]):
    if l.startswith("#"):
        continue
    tm, mp, pid, tid, ck, ip, k, u = l.split()
    want[int(tm)] = (int(mp), int(tid), ips(k), ips(u))
    if u != "-":
        owner[ips(u)] = int(mp)   # each machine has stacks of its own

head = re.compile(r"^(?:VM:\s*(\d+)\s+)?\s*(-?\d+)\s+(\d+)\.(\d{9}):")
rc = 0
for arg in sys.argv[3:]:
    what, txt = arg.rsplit("=", 1)
    got, cur = {}, None
    for l in open(txt):
        m = head.match(l)
        if m:
            cur = []
            got[int(m.group(3)) * 10**9 + int(m.group(4))] = (int(m.group(1) or 0),
                                                             int(m.group(2)), cur)
        elif l.strip() and cur is not None:
            cur.append(int(l.split()[0], 16))
    wrong, kinds, first = 0, {}, []
    for tm, (mp, tid, k, u) in sorted(want.items()):
        if tm not in got:
            kind = "missing"
        else:
            gmp, gtid, chain = got[tm]
            if (gmp, gtid) != (mp, tid):
                kind = "shown as machine %d tid %d" % (gmp, gtid)
            elif tuple(chain) == k + u:
                continue
            elif tuple(chain[:len(k)]) != k:
                kind = "another kernel part"
            else:
                o = owner.get(tuple(chain[len(k):]))
                kind = ("no user part" if len(chain) == len(k) else
                        "user part of machine %d" % o if o is not None else "another user part")
        key = "%s samples: %s" % ("host" if mp == 0 else "guest %d" % mp, kind)
        kinds[key] = kinds.get(key, 0) + 1
        wrong += 1
        if len(first) < 2:
            gu = got[tm][2][len(k):] if tm in got else []
            first.append("    e.g. time %d machine %d tid %d: user part %s..., shown %s" % (
                tm, mp, tid, ",".join("%x" % i for i in u[:3]),
                ",".join("%x" % i for i in gu[:3]) + "..." if gu else "none"))
    extra = len(set(got) - set(want))
    if wrong or extra:
        print("%s: %d of %d samples wrong%s" % (what, wrong, len(want),
              ", %d samples the generator did not write" % extra if extra else ""))
        for key, n in sorted(kinds.items()):
            print("  %5d %s" % (n, key))
        print("\n".join(first))
        rc = 1
    else:
        print("%s: %d samples of machines %s, each with its own machine's user part" % (
            what, len(want), " ".join(map(str, sorted({v[0] for v in want.values()})))))
sys.exit(rc)
PY

# sorted TXT: one line per sample (its header and chain addresses: perf
# script -i - adds "[unknown]" to them), sorted
sorted() {
	awk 'BEGIN { RS = "" }
	     { n = split($0, l, "\n"); s = l[1]; gsub(/[ \t]+/, " ", s)
	       for (i = 2; i <= n; i++) { split(l[i], w, " "); s = s " | " w[1] }
	       print s }' "$1" | sort
}

errs=()
for sched in interleave burst; do
	# made-up kernel addresses (no kallsyms): a guest's are [unknown] anyway
	args=(--guests 2 --threads 4 --procs 2 --cpus 2 --per-entry 2 --samples 4000
	      --schedule "$sched" --seed 3 --kallsyms=)
	[ "$sched" = interleave ] && args+=(--late 0.02 --migrate 0.2)
	python3 "$GEN" -o "$sched.data" --chains "$sched.chains" "${args[@]}" > "$sched.json" ||
		fail "$sched: generator failed"
	python3 "$GEN" -o "$sched.pipe" --chains "$sched.pipe.chains" --mode pipe "${args[@]}" \
		> /dev/null || fail "$sched: generator failed (pipe mode)"
	cmp -s "$sched.chains" "$sched.pipe.chains" ||
		fail "$sched: the pipe-mode file has other samples than the file"

	# (a) perf script of the file
	"$PERF" script "${F[@]}" -i "$sched.data" > "$sched.a" 2> "$sched.a.err" ||
		fail "$sched (a): perf script failed: $(head -3 "$sched.a.err")"
	# (b) perf inject --merge-callchains, file to file
	"$PERF" inject --merge-callchains -i "$sched.data" -o "$sched.out" 2> "$sched.b.err" ||
		fail "$sched (b): perf inject --merge-callchains failed: $(tail -3 "$sched.b.err")"
	"$PERF" script "${F[@]}" -i "$sched.out" > "$sched.b" 2>> "$sched.b.err" ||
		fail "$sched (b): perf script of the output failed: $(tail -3 "$sched.b.err")"
	# (c) pipe in, pipe out
	"$PERF" inject --merge-callchains -i - -o - < "$sched.pipe" 2> "$sched.c.err" |
		"$PERF" script "${F[@]}" -i - > "$sched.c" 2>> "$sched.c.err" ||
		fail "$sched (c): perf inject -i - -o - | perf script -i - failed: $(tail -3 "$sched.c.err")"
	# (d) in file order
	"$PERF" script "${F[@]}" --show-round-events -i "$sched.data" > "$sched.d.raw" \
		2> "$sched.d.err" ||
		fail "$sched (d): perf script --show-round-events failed: $(head -3 "$sched.d.err")"
	grep -v '^PERF_RECORD_FINISHED_ROUND' "$sched.d.raw" > "$sched.d"
	no_sanitizer_report "$sched".*.err

	echo "$sched:"
	rc=0
	python3 check.py "$sched.json" "$sched.chains" "(a) perf script=$sched.a" \
		"(b) perf inject -o FILE=$sched.b" "(c) perf inject -i - -o -=$sched.c" \
		"(d) perf script in file order=$sched.d" > "$sched.check" || rc=$?
	sed 's/^/  /' "$sched.check"
	[ $rc != 2 ] || fail "$sched: $(head -1 "$sched.check")"
	while read -r line; do
		errs+=("$sched ${line%%:*}: ${line#*: }")
	done < <(grep 'samples wrong' "$sched.check")
	# (b), (c): the same samples, the same chains as (a)
	sorted "$sched.a" > "$sched.a.sorted"
	for x in b c d; do
		sorted "$sched.$x" > "$sched.$x.sorted"
		if ! cmp -s "$sched.a.sorted" "$sched.$x.sorted"; then
			n=$(diff "$sched.a.sorted" "$sched.$x.sorted" | grep -c '^>' || :)
			echo "  ($x): $n samples differ from (a)'s, e.g. (the chain's end):"
			{ diff "$sched.a.sorted" "$sched.$x.sorted" | grep -m1 '^<'
			  diff "$sched.a.sorted" "$sched.$x.sorted" | grep -m1 '^>'; } |
				awk '{ if (length($0) > 150) $0 = substr($0, 1, 24) " ..." substr($0, length($0) - 110)
				       print "    " $0 }'
			errs+=("$sched ($x): $n samples differ from (a)'s")
		fi
	done
done
if [ ${#errs[@]} != 0 ]; then
	fail "samples not merged with their own machine's user part: $(printf '%s; ' "${errs[@]}" | sed 's/; $//')"
fi
echo "inject-merge-guests: perf script (in time and in file order) and perf inject --merge-callchains (file, pipe) merge per machine"
