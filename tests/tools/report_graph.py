#!/usr/bin/env python3
"""report_graph.py - compare two `perf report --stdio` outputs, call graphs included.

perf 6.12 and perf 7.2 print different report text for the same samples,
for reasons that have nothing to do with deferred callchains (measured on
the recordings without deferral, *_nodefer and st_g_default):

  - 7.2 adds the functions inlined at an address as frames of their own,
    "raw_syscall3 (inlined)", in call graphs and as --children entries;
    6.12 does not for frame pointer callchains.  Where a glibc function
    has aliases, 7.2 prints an alias as if it were inlined, in place of
    the function: "__write (inlined)" where 6.12 prints "__libc_write";
  - glibc aliases: __memcpy_avx_unaligned_erms for
    __memmove_avx_unaligned_erms, and so on;
  - 7.2 marks kernel --children entries "[.]" instead of "[k]";
  - the shared objects other than the workload and the kernel (perf
    itself, libc.so.6 in the -a recording) are not here: an address 7.2
    named is a bare address for us;
  - a call-graph branch below 0.5 % of the samples (the default threshold)
    is not printed: when an inlined frame splits a branch of ours in two,
    the smaller half can vanish from 7.2's output.

and, on the recordings with deferred callchains, for reasons that are
about deferral but not about which frames a sample has:

  - 7.2 resolves a merged sample when its CALLCHAIN_DEFERRED record
    arrives, 6.12 with the series when the sample was taken.  A sample
    taken during exec is shown with the comm and the maps of that time:
    "perf-exec" and the new image's user frames as bare addresses (the
    exec's MMAP2 comes later), where 7.2 shows the new comm and symbols;
  - 7.2 shows the cookie of a sample whose record never came as a user
    frame "0x0000000500000002" ([unknown]); we show the kernel part only.

So both outputs are reduced to what must agree:

  - per event, the sample count of the "# Samples:" line;
  - the entries, keyed by (event, shared object, symbol), with their
    overhead percentage(s) summed over command names: equal within the
    rounding of the printed percentages (0.005 each), plus --slack, the
    share of the samples the caller knows to be merged differently (see
    tests/e2e/report-callgraph-vs-upstream.sh);
  - each entry's call graph, as the paths from its root to each frame,
    with the percentage of the branch where the path ends, pooled over
    command names (paths that normalise to the same one add up).  Paths
    of 1 % or more must be in both outputs, within --tolerance (0.5 %,
    the threshold) of each other.  Where 7.2 split an entry in a function
    and its alias printed as inlined, only the overheads are compared.

Frames and symbols are normalised, with --binary (the workload: static,
so it holds glibc too) to know the aliases and --kallsyms (the guest's) to
name kernel addresses 7.2 printed bare: a name becomes the first of the
names at its address; a bare address inside a function becomes that
function's name; an inlined frame is dropped unless
its name is an alias of a function of the binary, then it stands for that
function; a frame that repeats the one before is dropped; cookie frames
(bare values whose high 32 bits are odd and whose low 32 bits are a small
CPU number + 1) are dropped; "[.]"/"[k]" are dropped.  Entries of other
shared objects whose symbols differ must pair up by their overheads.

Command line:

  report_graph.py [--binary FILE] [--kallsyms FILE] [--tolerance PCT]
                  [--slack PCT] [--show N] OURS UPSTREAM

prints what was compared and the first N differences, exits 1 if any.  A
'.xz' name is decompressed, '-' is stdin.
"""

import argparse
import bisect
import lzma
import os
import re
import subprocess
import sys
from collections import defaultdict

ENTRY = re.compile(r'^ +(\d+\.\d+)%')
SAMPLES = re.compile(r"^# Samples: (\d+\S*)\s+of event '([^']*)'")
BRANCH = re.compile(r'^(.*?)--(\d+\.\d+)%--(\S.*)$')
ROOT = re.compile(r'^( *)---(\S.*)$')
INLINED = ' (inlined)'


class Node:
    def __init__(self, pct, col):
        self.pct = pct          # None: as much as its parent
        self.col = col          # column of its frames after the first
        self.frames = []
        self.children = []


class Entry:
    def __init__(self, fields):
        self.fields = fields    # [children%,] self%, comm, dso, "[x] sym"
        self.root = Node(None, -1)


class Section:
    def __init__(self, event, nr):
        self.event = event
        self.nr = nr
        self.entries = []


def read(name):
    if name == '-':
        return sys.stdin.read()
    if name.endswith('.xz'):
        return lzma.open(name, 'rt').read()
    return open(name).read()


def split_columns(line, dots):
    """Cut an entry line at the columns of the '# ....  ....' line."""
    spans = [m.start() for m in re.finditer(r'\.+', dots)]
    out = []
    for i, a in enumerate(spans):
        b = spans[i + 1] if i + 1 < len(spans) else len(line)
        out.append(line[a:b].strip())
    return out


def parse_graph(entry, lines):
    """Rebuild the tree perf printed under an entry.

    perf indents each level by 11 columns: a branch "--12.34%--name" whose
    '--' is at column c belongs to the node whose frames are at column
    c - 1, and its own further frames are at column c + 10 whatever the
    width of the percentage.  A "---name" root chain (no percentage: all
    of the entry) has its frames at the column of its first name.
    """
    root = entry.root
    bycol = {}
    for ln in lines:
        if not ln.strip(' |'):
            continue
        m = ROOT.match(ln)
        if m:
            root.col = len(m.group(1))
            node = Node(None, root.col + 3)
            node.frames.append(m.group(2).strip())
            root.children.append(node)
            bycol = {root.col: root, node.col: node}
            continue
        m = BRANCH.match(ln)
        if m:
            mark = len(m.group(1))
            pcol = mark - 1
            if root.col < 0:
                root.col = pcol
                bycol[pcol] = root
            parent = bycol.get(pcol)
            if parent is None:
                raise ValueError('branch without a parent: %r' % ln)
            node = Node(float(m.group(2)), mark + 10)
            node.frames.append(m.group(3).strip())
            parent.children.append(node)
            bycol = {c: n for c, n in bycol.items() if c <= pcol}
            bycol[node.col] = node
            continue
        col = len(ln) - len(ln.lstrip(' |'))
        node = bycol.get(col)
        if node is None:
            raise ValueError('frame without a node: %r' % ln)
        node.frames.append(ln[col:].strip())


def parse(text):
    """{event: Section} of a perf report --stdio output."""
    sections = {}
    sec = None
    dots = None
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = SAMPLES.match(ln)
        if m:
            nr = m.group(1)
            mult = {'K': 1000, 'M': 1000000}.get(nr[-1], 1)
            sec = Section(m.group(2), int(float(nr.rstrip('KM')) * mult))
            sections[sec.event] = sec
        elif ln.startswith('# ..'):
            dots = ln
        elif sec is not None and dots and ENTRY.match(ln):
            entry = Entry(split_columns(ln, dots))
            sec.entries.append(entry)
            j = i + 1
            # an entry below the threshold has no graph
            while j < len(lines) and lines[j].strip() and not ENTRY.match(lines[j]):
                j += 1
            parse_graph(entry, lines[i + 1:j])
            i = j - 1
        i += 1
    return sections


class Symbols:
    """Aliases and address ranges of a binary's functions (from nm)."""

    def __init__(self, path=None, kallsyms=None):
        self.canon = {}         # name -> first name at its address
        self.alias = set()      # names that share their address
        self.starts, self.ends, self.names = [], [], []
        self.dso = os.path.basename(path) if path else None
        self.kstarts, self.knames = [], []
        if kallsyms:
            self.load_kallsyms(kallsyms)
        if not path:
            return
        out = subprocess.run(['nm', '-S', '--defined-only', path], check=True,
                             capture_output=True, text=True).stdout
        byaddr = defaultdict(set)
        size = {}
        for ln in out.splitlines():
            f = ln.split()
            if len(f) != 4 or f[2] not in 'TtWwi':
                continue
            a = int(f[0], 16)
            byaddr[a].add(f[3])
            size[a] = max(size.get(a, 0), int(f[1], 16))
        for a in sorted(byaddr):
            names = sorted(byaddr[a])
            for n in names:
                self.canon.setdefault(n, names[0])
                if len(names) > 1:
                    self.alias.add(n)
            self.starts.append(a)
            self.ends.append(a + size[a])
            self.names.append(names[0])

    def load_kallsyms(self, path):
        ks = []
        with open(path) as f:
            for ln in f:
                a, t, name = ln.split()[:3]
                if t in 'Tt':
                    ks.append((int(a, 16), name))
        ks.sort()
        self.kstarts = [a for a, _ in ks]
        self.knames = [n for _, n in ks]

    def kernel_at(self, addr):
        i = bisect.bisect_right(self.kstarts, addr) - 1
        return self.knames[i] if i >= 0 else None

    def at(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and addr < self.ends[i]:
            return self.names[i]
        return None


def is_cookie(v):
    hi, lo = v >> 32, v & 0xffffffff
    return hi & 1 and 0 < lo <= 4096


def norm_frame(f, syms):
    """A frame's name as compared, or None to drop it."""
    if f.endswith(INLINED):
        f = f[:-len(INLINED)]
        return syms.canon[f] if f in syms.alias else None
    if re.fullmatch(r'0x[0-9a-f]+', f):
        v = int(f, 16)
        if is_cookie(v):
            return None
        if v >= 0xffff800000000000:
            return syms.kernel_at(v) or f
        return syms.at(v) or f
    return syms.canon.get(f, f)


def norm_symbol(sym, syms):
    """'[k] name' of an entry, or None for entries to leave out."""
    sym = re.sub(r'^\[.\] ', '', sym)
    return norm_frame(sym, syms)


def prefixes(node, npath, pct, syms, acc):
    """Every normalised path from the root to a frame, with the percentage
    perf printed for the branch where it starts: a frame dropped or
    repeated by the normalisation adds no path; sibling branches that give
    the same path are different samples and add up."""
    pct = node.pct if node.pct is not None else pct
    for f in node.frames:
        n = norm_frame(f, syms)
        if n is None or (npath and npath[-1] == n):
            continue
        npath = npath + (n,)
        acc[npath] += pct
    for c in node.children:
        prefixes(c, npath, pct, syms, acc)


def summarise(sections, syms):
    """{event: (samples, {key: (pcts, n)}, {key: {path: pct} or None})}

    Entries of one command that normalise to the same key are one: for a
    function and an alias 7.2 printed as inlined (the same samples), the
    larger children and path percentages and the sum of the self ones;
    otherwise (a bare address resolved, other samples) the sums.  Then the
    commands are summed; n counts the percentages summed, for the rounding
    tolerance.
    """
    out = {}
    for ev, sec in sections.items():
        percomm = {}
        for e in sec.entries:
            sym = norm_symbol(e.fields[-1], syms)
            if sym is None:
                continue
            dso = e.fields[-2]
            if dso == '[unknown]' and sym != e.fields[-1].split('] ', 1)[-1]:
                dso = syms.dso
            comm = e.fields[-3]
            pcts = [float(x.rstrip('%')) for x in e.fields[:-3]]
            paths = defaultdict(float)
            prefixes(e.root, (), pcts[0], syms, paths)
            k = (comm, dso, sym)
            inlined = e.fields[-1].endswith(INLINED)
            if k not in percomm:
                percomm[k] = (pcts, paths, inlined)
                continue
            old, oldpaths, oldinl = percomm[k]
            if inlined or oldinl:
                # the same samples, under the function and its alias
                if len(pcts) == 2:
                    pcts = [max(old[0], pcts[0]), old[1] + pcts[1]]
                else:
                    pcts = [old[0] + pcts[0]]
                for path, pct in oldpaths.items():
                    paths[path] = max(paths[path], pct)
            else:
                pcts = [a + b for a, b in zip(old, pcts)]
                for path, pct in oldpaths.items():
                    paths[path] += pct
            percomm[k] = (pcts, paths, inlined or oldinl)
        counts = {}
        allpaths = {}
        for (comm, dso, sym), (pcts, paths, split) in percomm.items():
            key = (dso, sym)
            old, n = counts.get(key, ([0.0] * len(pcts), 0))
            counts[key] = ([a + b for a, b in zip(old, pcts)], n + 1)
            if split:
                # 7.2 split the samples between the function and its alias
                # differently in each graph: compare the overheads only
                allpaths[key] = None
            if allpaths.get(key, 0) is None:
                continue
            dest = allpaths.setdefault(key, defaultdict(float))
            for path, pct in paths.items():
                dest[path] += pct
        out[ev] = (sec.nr, counts, allpaths)
    return out


def compare(ours, theirs, syms, tolerance=0.5, slack=0.0):
    a, b = summarise(ours, syms), summarise(theirs, syms)
    diffs = []
    stats = {'events': 0, 'samples': 0, 'entries': 0, 'paths': 0, 'slack': 0}
    for ev in sorted(set(a) | set(b)):
        if ev not in a or ev not in b:
            diffs.append('event %s only in %s' % (ev, 'ours' if ev in a else 'upstream'))
            continue
        (na, ca, pa), (nb, cb, pb) = a[ev], b[ev]
        stats['events'] += 1
        stats['samples'] += na
        if na != nb:
            diffs.append('%s: %d samples, upstream %d' % (ev, na, nb))
        # a shared object that is neither the workload nor the kernel has
        # no file here: 7.2 may have named a symbol we show as an address.
        # Such entries, left over on both sides, must pair by overheads.
        left = defaultdict(lambda: ([], []))
        for key in set(ca) ^ set(cb):
            if key[0] not in (syms.dso, '[kernel.kallsyms]', '[unknown]'):
                side = 0 if key in ca else 1
                left[key[0]][side].append(tuple(round(p, 2) for p in (ca, cb)[side][key][0]))
        for dso, (la, lb) in sorted(left.items()):
            stats['entries'] += len(la)
            if sorted(la) != sorted(lb):
                diffs.append('%s %s: entries %s, upstream %s' % (ev, dso, sorted(la), sorted(lb)))
        for key in sorted(set(ca) | set(cb)):
            if key[0] in left and (key not in ca or key not in cb):
                continue
            stats['entries'] += 1
            (x, m), (y, n) = ca.get(key, (None, 0)), cb.get(key, (None, 0))
            # each printed percentage is rounded to 0.005
            tol = 0.005 * (m + n) + 1e-9
            if x is None or y is None or any(abs(u - v) > tol for u, v in zip(x, y)):
                stats['slack'] += 1
            tol += slack
            if x is None or y is None or any(abs(u - v) > tol for u, v in zip(x, y)):
                diffs.append('%s %s %s: %s, upstream %s' % (ev, key[0], key[1], fmt(x), fmt(y)))
                continue
            qa, qb = pa.get(key), pb.get(key)
            if qa is None or qb is None:
                continue
            for path in sorted(set(qa) | set(qb)):
                u, v = qa.get(path, 0.0), qb.get(path, 0.0)
                if max(u, v) < 1.0:
                    continue
                stats['paths'] += 1
                if abs(u - v) > tolerance + tol:
                    diffs.append('%s %s: path %s: %.2f%%, upstream %.2f%%' %
                                 (ev, key[1], ' <- '.join(path), u, v))
    return stats, diffs


def fmt(pcts):
    return 'none' if pcts is None else '/'.join('%.2f%%' % p for p in pcts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--binary', help='the workload, for aliases and addresses')
    ap.add_argument('--kallsyms', help='to name kernel addresses printed bare')
    ap.add_argument('--tolerance', type=float, default=0.5)
    ap.add_argument('--slack', type=float, default=0.0,
                    help='more tolerance for the entries\' overheads (percent)')
    ap.add_argument('--show', type=int, default=10)
    ap.add_argument('ours')
    ap.add_argument('upstream')
    args = ap.parse_args()
    syms = Symbols(args.binary, args.kallsyms)
    stats, diffs = compare(parse(read(args.ours)), parse(read(args.upstream)),
                           syms, args.tolerance, args.slack)
    print('compared %(events)d events, %(entries)d entries, %(paths)d call-graph paths; '
          '%(slack)d entries needed the slack' % stats)
    for d in diffs[:args.show]:
        print('  ' + d)
    if diffs:
        print('%d differences' % len(diffs))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
