#!/usr/bin/env python3
"""report_modes.py - check `perf report --stdio` modes on merged deferred
user callchains (tests/e2e/report-modes-merged.sh).

perf report's numbers are computed here from `perf script` output of the
same file: each sample's event, period, comm, leaf (its ip) and callchain.
A report made of merged chains must agree with the merged `perf script`;
the report output and the expectation are both reduced by
tests/tools/report_graph.py (parse, summarise, compare: entries keyed by
(event, shared object, symbol), overheads equal within the rounding of the
printed percentages, call-graph paths of 1 % or more within 0.5 %).

  report_modes.py expect MODE [--binary B] [--kallsyms K] SCRIPT LEAF REPORT

      SCRIPT: `perf script -F comm,tid,period,event,ip,sym,dso`;
      LEAF: the same with -G (one line per sample: its ip);
      REPORT: `perf report --stdio` in MODE, one of
        dso-children     --children --sort dso -g none
        dso-self         --no-children --sort dso -g none
        symdso-children  --children --sort sym,dso -g none
        symdso-self      --no-children --sort sym,dso -g none
        caller           --no-children -g caller (default sort)
        callee           --no-children -g callee (default sort)
      (a --children report without a Children column, as perf prints in
      pipe mode, is compared as --no-children)
      Expected: an entry per shared object (per (symbol, shared object));
      "Self" is the share of the period of the samples whose ip is there,
      "Children" of the samples with the entry anywhere in the leaf or the
      callchain; per (comm, shared object, symbol) of the ip, the call graph
      paths root first (caller) or leaf first (callee), each with the share
      of the samples whose chain starts with it; branches below 0.5 % are
      left out, as perf does.  Entries of a bare address in an object that
      is neither the workload nor the kernel are left out (see drop_bare).

  report_modes.py samples SCRIPT LEAF REPORT_N
      REPORT_N: `perf report --stdio -n --no-children --sort dso -g none`:
      per event and shared object, the "Samples" column is the number of
      samples whose ip is there.

  report_modes.py upstream SORT [--binary B] [--kallsyms K] [--slack PCT] OURS UPSTREAM
      two reports (ours and upstream perf's: tests/tools/upstream-perf.sh,
      perf 7.3) in the same mode, SORT
      "default" (comm,dso,sym), "dso" or "sym,dso", compared by
      report_graph.compare.

  report_modes.py share DSO OURS_SCRIPT UPSTREAM_SCRIPT REPORT
      the share of the samples with a frame in DSO (a path, as perf script
      prints it) in our merged `perf script` is the "Children" overhead of
      DSO in REPORT (--children --sort dso -g none; not compared if it
      has no Children column, as in pipe mode); upstream 7.2's merged
      `perf script` (stored output) has the same samples, and where it
      differs from ours on having DSO frames, the sample is one of:
        - left unmerged by 7.2 (taken after its own record): its frames
          are our kernel frames and the cookie;
        - taken during exec (same addresses, which we name "[unknown]":
          the new image's MMAP2 comes after the sample, 7.2 resolves
          them later).
      Prints the counts.

  report_modes.py slack DSO NMIN OURS_SCRIPT UPSTREAM_SCRIPT
      prints "PCT N": the N samples that ours and upstream 7.2's merged
      `perf script` show differently (frame addresses, header, shared
      objects; DSO as for share), PCT of NMIN samples: the slack of the
      comparison with upstream 7.2's report.

Prints what was compared; exit 1 with the first differences if any.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames  # noqa: E402
import report_graph as rg  # noqa: E402

HEADER = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<tid>-?\d+)\s+(?P<period>\d+)\s+"
                    r"(?P<event>\S+):(?:\s+(?P<rest>.*))?$")
FRAME = re.compile(r"^\t\s*([0-9a-f]+) (\S+?)(?:\+0x[0-9a-f]+)? \((.*)\)$")
RECORD = "DEFERRED CALLCHAIN ["
LEAF = re.compile(r"^([0-9a-f]+) (\S+?)(?:\+0x[0-9a-f]+)? \((.*)\)$")


def name(addr, sym, dso):
    """(shared object, symbol) as perf report prints them."""
    if sym == "[unknown]":
        # perf's "%#llx": no "0x" for 0
        sym = "0x%016x" % addr if addr else "%016x" % addr
    if dso.startswith("/"):
        dso = os.path.basename(dso)
    return dso, sym


class Sample:
    def __init__(self, m):
        self.comm = m.group("comm")
        self.event = m.group("event")
        self.period = int(m.group("period"))
        self.leaf = None
        self.chain = []         # (dso, sym), leaf first


def parse_script(text, leaf_text):
    samples, cur, skip = [], None, False
    for line in text.splitlines():
        if not line.strip():
            cur, skip = None, False
            continue
        if skip:
            continue
        if RECORD in line:
            # a record in --no-merge-callchains output: not a sample
            skip = True
            continue
        m = FRAME.match(line)
        if m and cur is not None:
            cur.chain.append(name(int(m.group(1), 16), m.group(2), m.group(3)))
            continue
        m = HEADER.match(line)
        if not m or line[0] == "\t":
            raise ValueError("perf script output: unexpected line %r" % line)
        cur = Sample(m)
        samples.append(cur)
    # (with --no-merge-callchains, -G still prints the records' chains)
    leaves = [line for line in leaf_text.splitlines()
              if line.strip() and line[0] != "\t" and RECORD not in line]
    if len(leaves) != len(samples):
        raise ValueError("%d samples, %d -G lines" % (len(samples), len(leaves)))
    for s, line in zip(samples, leaves):
        m = HEADER.match(line)
        lm = LEAF.match(m.group("rest") or "") if m else None
        if not lm or m.group("event") != s.event:
            raise ValueError("perf script -G output: unexpected line %r" % line)
        s.leaf = name(int(lm.group(1), 16), lm.group(2), lm.group(3))
    return samples


def trie_child(node, frame):
    for c in node.children:
        if c.frames[0] == frame:
            return c
    c = rg.Node(0.0, 0)
    c.frames = [frame]
    node.children.append(c)
    return c


# perf report prints no call-graph branch below 0.5 % of the samples
MIN_PERCENT = 0.5


def prune(nodes):
    keep = [n for n in nodes if n.pct >= MIN_PERCENT]
    for n in keep:
        n.children = prune(n.children)
    return keep


def kind(dso):
    return "[k]" if dso == "[kernel.kallsyms]" else "[.]"


def expected(samples, mode, nr):
    """{event: report_graph.Section} that perf report should print."""
    total = defaultdict(int)
    for s in samples:
        total[s.event] += s.period
    sections = {}
    groups = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    graphs = defaultdict(list)
    for s in samples:
        share = 100.0 * s.period / total[s.event]
        g = groups[s.event]
        if mode in ("dso-children", "dso-self"):
            g[s.leaf[0]][1] += share
            if mode == "dso-children":
                for dso in {s.leaf[0]} | {f[0] for f in s.chain}:
                    g[dso][0] += share
        elif mode in ("symdso-children", "symdso-self"):
            g[s.leaf][1] += share
            if mode == "symdso-children":
                for f in {s.leaf} | set(s.chain):
                    g[f][0] += share
        else:
            k = (s.comm,) + s.leaf
            g[k][1] += share
            path = [f[1] for f in s.chain]
            if mode == "caller":
                path.reverse()
            node = graphs.setdefault((s.event, k), rg.Node(None, 0))
            for f in path:
                node = trie_child(node, f)
                node.pct += share
    for ev, g in groups.items():
        sec = rg.Section(ev, nr.get(ev, 0))
        for k, (children, self_) in sorted(g.items()):
            if mode == "dso-children":
                fields = ["%f%%" % children, "%f%%" % self_, "-", k, "-"]
            elif mode == "dso-self":
                fields = ["%f%%" % self_, "-", k, "-"]
            elif mode == "symdso-children":
                fields = ["%f%%" % children, "%f%%" % self_, "-", k[0], kind(k[0]) + " " + k[1]]
            elif mode == "symdso-self":
                fields = ["%f%%" % self_, "-", k[0], kind(k[0]) + " " + k[1]]
            else:
                fields = ["%f%%" % self_, k[0], k[1], kind(k[1]) + " " + k[2]]
            e = rg.Entry(fields)
            if (ev, k) in graphs:
                e.root.children = prune(graphs[(ev, k)].children)
            sec.entries.append(e)
        sections[ev] = sec
    return sections


def reorder(sections, sort):
    """Make entries of --sort dso / sym,dso look like the default sort's:
    [overheads..., comm, dso, symbol].  With --sort sym,dso, 7.2 can print
    an inlined frame as several entries of the same name (other samples:
    one entry of the default sort has their sum): they are summed here,
    report_graph.py would take them for a function and its alias."""
    for sec in sections.values():
        if sort == "sym,dso":
            merged = {}
            for e in sec.entries:
                k = tuple(e.fields[-2:])
                if k in merged and k[0].endswith(rg.INLINED):
                    old = merged[k]
                    old.fields = ["%f%%" % (float(x.rstrip("%")) + float(y.rstrip("%")))
                                  for x, y in zip(old.fields[:-2], e.fields[:-2])] + list(k)
                    continue
                merged.setdefault(k, e)
            sec.entries = list(merged.values())
        for e in sec.entries:
            f = e.fields
            if sort == "dso":
                e.fields = f[:-1] + ["-", f[-1], "-"]
            elif sort == "sym,dso":
                e.fields = f[:-2] + ["-", f[-1], f[-2]]
    return sections


def drop_bare(sections, workload):
    """Leave out entries of a bare address in a shared object other than
    the workload and the kernel (perf itself in the -a recording, no file
    here): perf report names the ip of such a sample relative to its map,
    a callchain address absolutely, so perf script's addresses cannot say
    which entry is which."""
    n = 0
    for sec in sections.values():
        keep = []
        for e in sec.entries:
            dso, sym = e.fields[-2], re.sub(r"^\[.\] ", "", e.fields[-1])
            if dso not in (workload, "[kernel.kallsyms]", "[unknown]") and \
               re.fullmatch(r"(0x)?[0-9a-f]+", sym):
                n += 1
                continue
            keep.append(e)
        sec.entries = keep
    return n


def report(path, mode):
    sort = {"dso-children": "dso", "dso-self": "dso", "symdso-children": "sym,dso",
            "symdso-self": "sym,dso"}.get(mode)
    return reorder(rg.parse(rg.read(path)), sort)


def done(stats, diffs, what):
    print("%s: compared %d events, %d entries, %d call-graph paths; %d entries needed the slack"
          % (what, stats["events"], stats["entries"], stats["paths"], stats["slack"]))
    for d in diffs[:8]:
        print("  " + d)
    if diffs:
        print("%d differences" % len(diffs))
        return 1
    return 0


def cmd_expect(a):
    syms = rg.Symbols(a.binary, a.kallsyms)
    samples = parse_script(rg.read(a.script), rg.read(a.leaf))
    mode, note = a.mode, ""
    if mode.endswith("-children") and \
       not re.search(r"^# Children ", rg.read(a.report), re.M):
        # perf report (7.2 too) accumulates no children in pipe mode
        mode, note = mode.replace("-children", "-self"), " (no Children column)"
    ours = report(a.report, mode)
    exp = expected(samples, mode, {ev: s.nr for ev, s in ours.items()})
    left = drop_bare(ours, syms.dso) + drop_bare(exp, syms.dso)
    stats, diffs = rg.compare(ours, exp, syms)
    return done(stats, diffs, "%s vs perf script%s%s" % (
        a.mode, note, " (%d bare addresses of other objects left out)" % left if left else ""))


def cmd_samples(a):
    samples = parse_script(rg.read(a.script), rg.read(a.leaf))
    want = defaultdict(int)
    for s in samples:
        want[(s.event, s.leaf[0])] += 1
    got = defaultdict(int)
    ev, dots = None, None
    for line in rg.read(a.report).splitlines():
        m = rg.SAMPLES.match(line)
        if m:
            ev = m.group(2)
        elif line.startswith("# .."):
            dots = line
        elif ev and dots and rg.ENTRY.match(line):
            f = rg.split_columns(line, dots)
            got[(ev, f[-1])] += int(f[-2])
    diffs = ["%s %s: %d samples, perf script %d" % (k[0], k[1], got.get(k, 0), want.get(k, 0))
             for k in sorted(set(got) | set(want)) if got.get(k, 0) != want.get(k, 0)]
    print("samples: %d in %d entries, perf script %d samples"
          % (sum(got.values()), len(got), len(samples)))
    for d in diffs[:8]:
        print("  " + d)
    return 1 if diffs else 0


def cmd_upstream(a):
    syms = rg.Symbols(a.binary, a.kallsyms)
    ours = reorder(rg.parse(rg.read(a.ours)), a.sort)
    up = reorder(rg.parse(rg.read(a.upstream)), a.sort)
    stats, diffs = rg.compare(ours, up, syms, slack=a.slack)
    return done(stats, diffs, "vs upstream")


def script_samples(text, workload=None):
    """{(tid, time, event): [(addrs, {addr: {dso}})]} of a perf script
    output, consecutive repeats of an address collapsed.
    7.2 prints some frames as "(inlined)" instead of their object (a glibc
    function's alias, see report_graph.py): with WORKLOAD (static: glibc is
    in it), such a user address is in the workload."""
    out = defaultdict(list)
    cur = None
    for line in text.splitlines():
        if not line.strip():
            cur = None
            continue
        m = re.match(r"^\t\s*([0-9a-f]+) .*\((.*)\)$", line)
        if m and cur is not None:
            addr = int(m.group(1), 16)
            dso = m.group(2)
            if dso == "inlined" and workload and addr < 0xffff800000000000:
                dso = workload
            if not cur[0] or cur[0][-1] != addr:
                cur[0].append(addr)     # 7.2's inlined frames: same address
            cur[1].setdefault(addr, set()).add(dso)
        elif RECORD in line:
            cur = ([], {})      # not a sample: dropped
        elif not line[0].isspace():
            ev = re.search(r"\s(\S+):\s*$", line)
            tid, time = frames.key(frames.Sample(line, [], 0))
            cur = ([], {})
            out[(tid, time, ev.group(1) if ev else None)].append(cur)
    return out


def cmd_share(a):
    """The share of the samples with frames in DSO: in the report, in our
    merged perf script, in upstream 7.2's; every sample where ours and
    7.2's differ must be one of the two kinds known to differ."""
    errors = []
    children = {}
    ev, dots = None, None
    for line in rg.read(a.report).splitlines():
        m = rg.SAMPLES.match(line)
        if m:
            ev = m.group(2)
        elif line.startswith("# .."):
            dots = line
        elif ev and dots and rg.ENTRY.match(line):
            f = rg.split_columns(line, dots)
            if f[-1] == os.path.basename(a.dso):
                children[ev] = float(f[0].rstrip("%"))
    ours = script_samples(rg.read(a.ours_script))
    up = script_samples(rg.read(a.upstream_script), a.dso)
    if sorted((k, len(v)) for k, v in ours.items()) != sorted((k, len(v)) for k, v in up.items()):
        errors.append("not the same samples as upstream 7.2's perf script")
    # per event: samples, with DSO ours, upstream, late, exec
    count = defaultdict(lambda: [0, 0, 0, 0, 0])
    for k in ours:
        # samples of one key: pair them in order
        for (oa, od), (ua, ud) in zip(ours[k], up.get(k, [])):
            c = count[k[2]]
            o = any(a.dso in d for d in od.values())
            u = any(a.dso in d for d in ud.values())
            c[0] += 1
            c[1] += o
            c[2] += u
            if o == u:
                continue
            kern = [x for x in oa if x >= 0xffff800000000000]
            if o and ua and rg.is_cookie(ua[-1]) and ua[:-1] == kern:
                c[3] += 1       # left unmerged by 7.2 (taken after its record)
            elif not o and oa == ua and \
                    all(od[x] == {"[unknown]"} for x in oa if a.dso in ud.get(x, ())):
                c[4] += 1       # taken during exec: the new image not mapped yet for us
            else:
                errors.append("%s: ours %s, upstream 7.2 %s" % (
                    k, [hex(x) for x in oa], [hex(x) for x in ua]))
    pipe = not re.search(r"^# Children ", rg.read(a.report), re.M)
    lines = []
    for e, (n, o, u, late, exe) in sorted(count.items()):
        got = None if pipe else children.get(e)
        lines.append("%s: %s frames in %d of %d samples (%.2f%%), report %s; "
                     "upstream 7.2 %d, + %d merged by us only, - %d exec-time samples"
                     % (e, os.path.basename(a.dso), o, n, 100.0 * o / n,
                        "%.2f%%" % got if got is not None else "none", u, late, exe))
        if pipe:
            continue
        if got is None or abs(100.0 * o / n - got) > 0.005 + 1e-9:
            errors.append("%s: the report's Children overhead is not %.2f%%" % (e, 100.0 * o / n))
    print("share: " + "; ".join(lines) + (" (no Children column: pipe mode)" if pipe else ""))
    for d in errors[:8]:
        print("  " + d)
    return 1 if errors else 0


def cmd_slack(a):
    """The samples the two perfs show differently: other frame addresses,
    header or shared objects (see script_samples), as a percentage of
    NMIN (the smallest per-event sample count)."""
    ours = script_samples(rg.read(a.ours_script), a.dso)
    up = script_samples(rg.read(a.upstream_script), a.dso)
    hdr_o = defaultdict(list)
    hdr_u = defaultdict(list)
    for path, hdr in ((a.ours_script, hdr_o), (a.upstream_script, hdr_u)):
        for s in frames.parse(rg.read(path)):
            if RECORD not in s.header:
                hdr[frames.key(s)].append(s.header)
    n = 0
    for k in set(ours) | set(up):
        lo, lu = ours.get(k, []), up.get(k, [])
        n += abs(len(lo) - len(lu))
        ho, hu = sorted(hdr_o.get(k[:2], [])), sorted(hdr_u.get(k[:2], []))
        for i, ((oa, od), (ua, ud)) in enumerate(zip(lo, lu)):
            dso_o = set().union(*od.values()) if od else set()
            dso_u = set().union(*ud.values()) if ud else set()
            if oa != ua or dso_o != dso_u or ho != hu:
                n += 1
    print("%.4f %d" % (100.0 * n / a.nmin, n))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("expect")
    p.add_argument("mode", choices=["dso-children", "dso-self", "symdso-children",
                                    "symdso-self", "caller", "callee"])
    p.add_argument("--binary")
    p.add_argument("--kallsyms")
    p.add_argument("script")
    p.add_argument("leaf")
    p.add_argument("report")
    p = sub.add_parser("samples")
    p.add_argument("script")
    p.add_argument("leaf")
    p.add_argument("report")
    p = sub.add_parser("upstream")
    p.add_argument("sort", choices=["default", "dso", "sym,dso"])
    p.add_argument("--binary")
    p.add_argument("--kallsyms")
    p.add_argument("--slack", type=float, default=0.0)
    p.add_argument("ours")
    p.add_argument("upstream")
    p = sub.add_parser("slack")
    p.add_argument("dso")
    p.add_argument("nmin", type=int)
    p.add_argument("ours_script")
    p.add_argument("upstream_script")
    p = sub.add_parser("share")
    p.add_argument("dso")
    p.add_argument("ours_script")
    p.add_argument("upstream_script")
    p.add_argument("report")
    a = ap.parse_args()
    return {"expect": cmd_expect, "samples": cmd_samples, "upstream": cmd_upstream,
            "share": cmd_share, "slack": cmd_slack}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
