#!/bin/bash
# bogus-user-ip: a callchain entry at or above PERF_CONTEXT_MAX that is no
# context (issue #34, item 4).
#
# A broken user unwinding (s390's back chain through a JVM's frames,
# reported on linux-perf-users) puts 0xffffffffffffffff among the user
# ips.  perf took it for an unknown context and discarded the whole
# callchain, kernel part included: the sample was printed with no frame
# at all.  What comes before the entry is good; only what follows it is
# not to be trusted.
#
# Generated files (tests/tools/gen_perfdata.py --bad bogus-ip:2): two
# kernel-mode entries whose user stack is [u0, 0xffffffffffffffff, u1...],
# in their CALLCHAIN_DEFERRED record (the deferred file, merged by perf
# script) and in the sample's own PERF_CONTEXT_USER part (the floor file:
# ordinary fp callchains, no deferral).  Expected, for both files, in the
# default (callee) order and in caller order (call-graph.order = caller,
# which walks the chain from its end): every sample shows exactly its
# kernel frames and its user frames up to the bogus entry (u0 only for
# the two bad ones, all of them for the others, the samples after a bad
# one included), the warning naming the value once on stderr, and the
# end-of-session line counting the 2 callchains that were cut.
. "$(dirname "$0")/../lib.sh"

GEN=$TOP/tests/tools/gen_perfdata.py
[ -x "$PERF" ] || skip "no perf binary at $PERF"
S=$(symroot)
cd "$TMPD"

python3 "$GEN" -o bogus.data --floor floor.data --chains chains.txt --samples 12 --threads 2 \
	--per-entry 1 --cpus 1 --seed 3 --bad bogus-ip:2 \
	--dso-path /fixtures/bin/mt_syscalls > gen.json || fail "generator failed"
[ "$(grep -c ',ffffffffffffffff,' chains.txt)" = 2 ] || fail "the generator wrote no 2 bogus entries"

printf '[call-graph]\n\torder = caller\n' > caller.cfg
# compare NAME ORDER: perf script's frames (one ip a line under each
# sample) with chains.txt, the user part cut at the bogus entry
compare() {
	python3 - "$1" "$2" chains.txt <<'EOF' || fail "$1 ($2 order): $(cat "$1.diff")"
import sys
out, order, chains = sys.argv[1:]
exp = []
for line in open(chains):
    if line.startswith("#"):
        continue
    f = line.split()
    k = [] if f[6] == "-" else f[6].split(",")
    u = [] if f[7] == "-" else f[7].split(",")
    if "ffffffffffffffff" in u:
        u = u[:u.index("ffffffffffffffff")]
    c = k + u
    exp.append(c[::-1] if order == "caller" else c)
got, cur = [], None
for line in open(out):
    if not line.strip():
        cur = None
    elif line[0] not in " \t":
        continue
    elif cur is None and ":" in line:
        cur = []
        got.append(cur)
    elif cur is not None:
        cur.append(line.split()[0].lstrip("0") or "0")
msgs = []
if len(got) != len(exp):
    msgs.append("%d samples, expected %d" % (len(got), len(exp)))
for i, (g, e) in enumerate(zip(got, exp)):
    if g != e:
        msgs.append("sample %d: %s, expected %s" % (i, ",".join(g) or "no frame", ",".join(e)))
open(out + ".diff", "w").write("\n".join(msgs[:4]))
sys.exit(1 if msgs else 0)
EOF
}

for f in bogus floor; do
	for order in callee caller; do
		cfg=/dev/null
		[ $order = caller ] && cfg=caller.cfg
		# shellcheck disable=SC2086 # $S is a list of options
		PERF_CONFIG=$cfg "$PERF" script $S -F tid,time,ip -i $f.data > $f.$order.txt \
			2> $f.$order.err || fail "perf script of $f.data failed: $(head -3 $f.$order.err)"
		no_sanitizer_report $f.$order.err
		compare $f.$order.txt $order
		n=$(grep -c "^Invalid callchain entry 0xffffffffffffffff" $f.$order.err || :)
		[ "$n" = 1 ] || fail "$f.data ($order order): the warning came $n times: $(cat $f.$order.err)"
		grep -q "^2 callchains were cut at an invalid entry" $f.$order.err ||
			fail "$f.data ($order order): no count of the cut callchains: $(cat $f.$order.err)"
	done
done
echo "bogus user ip: ok"
