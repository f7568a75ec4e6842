#!/usr/bin/env python3
"""frames.py - compare two `perf script` text outputs sample by sample.

perf 7.2 and perf 6.12 do not print the same text for the same sample:
7.2 prints an inlined function as an extra frame line at the address of
the frame it was inlined into, and picks other aliases for some glibc
symbols (__memcpy_avx_unaligned_erms for __memmove_avx_unaligned_erms).
What must agree is the sample header and the callchain's addresses, so
each sample is reduced to

  - its header: everything before the first frame line, whitespace
    collapsed ("st_syscalls 148 14.657596: 1000000 cpu-clock:");
  - its frames: the address of each frame line, consecutive repeats
    collapsed into one (an inlined frame and its caller share one).

A frame line is an indented line that starts with a hex address, as
perf script prints callchains (also "<hex> (cookie)" lines of
--no-merge-callchains output).  A sample starts at a line that is not
indented; samples with a callchain end with an empty line.

Command line:

  frames.py [--by-key] [--show N] OURS UPSTREAM

reads two outputs (a '.xz' name is decompressed, '-' is stdin), compares
them sample by sample in order (or, with --by-key, the samples of each
(tid, time), in any order: for outputs whose sample order may differ), prints
how many samples were compared and the first N mismatches, and exits 1
if any sample differs or the sample counts differ, 0 otherwise.

As a module:

  import frames
  a = frames.parse(text)                # [Sample(header, frames, line)]
  frames.key(a[0])                      # (tid, time): time is None with --per-thread
  r = frames.compare(a, b, by_key=True) # Result(compared, mismatches)
"""

import argparse
import lzma
import re
import sys
from collections import OrderedDict, namedtuple

Sample = namedtuple("Sample", "header frames line")
Result = namedtuple("Result", "compared mismatches")
# where: index (in order) or (tid, time) key; what: text for a person
Mismatch = namedtuple("Mismatch", "where what ours theirs")

FRAME_RE = re.compile(r"^\s+([0-9a-fA-F]+)(?:\s|$)")
# comm (may hold spaces), [pid/]tid, optional [cpu], optional time:
HEADER_RE = re.compile(r"^(?P<comm>.*?)\s+(?P<id1>-?\d+)(?:/(?P<id2>-?\d+))?\s+"
                       r"(?:\[(?P<cpu>\d+)\]\s+)?(?:(?P<time>\d+\.\d+):)?")


def parse(text):
    """Split perf script output (a str or iterable of lines) into Samples."""
    lines = text.splitlines() if isinstance(text, str) else text
    samples = []
    header, frames, start = None, [], 0

    def flush():
        if header is not None:
            samples.append(Sample(" ".join(" ".join(header).split()), frames, start))

    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if not line.strip():
            flush()
            header, frames = None, []
            continue
        if not line[0].isspace():
            flush()
            header, frames, start = [line], [], n
            continue
        m = FRAME_RE.match(line)
        if header is None:
            # an indented line outside a sample: keep it as a sample of its own
            header, frames, start = [], [], n
        if m:
            addr = int(m.group(1), 16)
            if not frames or frames[-1] != addr:
                frames.append(addr)
        else:
            # other indented text (a raw dump, say) counts as header
            header.append(line)
    flush()
    return samples


def key(sample):
    """(tid, time) of a sample: time is a str like '14.657596', or None."""
    m = HEADER_RE.match(sample.header)
    if not m:
        return (None, None)
    tid = int(m.group("id2") or m.group("id1"))
    return (tid, m.group("time"))


def _diff(where, a, b):
    if a.header != b.header:
        return Mismatch(where, "header", a, b)
    if a.frames != b.frames:
        for i, (x, y) in enumerate(zip(a.frames, b.frames)):
            if x != y:
                what = "frame %d: %x vs %x" % (i, x, y)
                break
        else:
            what = "%d vs %d frames" % (len(a.frames), len(b.frames))
        return Mismatch(where, what, a, b)
    return None


def compare(ours, theirs, by_key=False):
    """Compare two lists of Samples; return Result(compared, mismatches)."""
    mism = []
    compared = 0
    if not by_key:
        for i, (a, b) in enumerate(zip(ours, theirs)):
            compared += 1
            d = _diff(i, a, b)
            if d:
                mism.append(d)
        n = min(len(ours), len(theirs))
        if len(ours) != len(theirs):
            mism.append(Mismatch(n, "sample count %d vs %d" % (len(ours), len(theirs)),
                                 ours[n] if len(ours) > n else None,
                                 theirs[n] if len(theirs) > n else None))
        return Result(compared, mism)

    ga, gb = OrderedDict(), OrderedDict()
    for s in ours:
        ga.setdefault(key(s), []).append(s)
    for s in theirs:
        gb.setdefault(key(s), []).append(s)
    for k in list(ga) + [k for k in gb if k not in ga]:
        # samples of one tid at one time (two events): any order
        la = sorted(ga.get(k, []), key=lambda s: (s.header, s.frames))
        lb = sorted(gb.get(k, []), key=lambda s: (s.header, s.frames))
        for a, b in zip(la, lb):
            compared += 1
            d = _diff(k, a, b)
            if d:
                mism.append(d)
        if len(la) != len(lb):
            mism.append(Mismatch(k, "%d vs %d samples with this tid/time" % (len(la), len(lb)),
                                 la[len(lb)] if len(la) > len(lb) else None,
                                 lb[len(la)] if len(lb) > len(la) else None))
    return Result(compared, mism)


def read(path):
    if path == "-":
        return sys.stdin.read()
    if path.endswith(".xz"):
        with lzma.open(path, "rt", errors="replace") as f:
            return f.read()
    with open(path, errors="replace") as f:
        return f.read()


def _show(m, ours, theirs, context=3):
    """A few lines for a person: both headers, and the frames around the first difference."""
    out = []
    for name, s in ((ours, m.ours), (theirs, m.theirs)):
        out.append("    %s: %s" % (name, "line %d: %s (%d frames)" % (s.line, s.header, len(s.frames))
                                   if s else "(none)"))
    if m.ours and m.theirs and m.ours.header == m.theirs.header:
        fa, fb = m.ours.frames, m.theirs.frames
        first = next((i for i, (x, y) in enumerate(zip(fa, fb)) if x != y), min(len(fa), len(fb)))
        for i in range(max(0, first - context), min(max(len(fa), len(fb)), first + context + 1)):
            x = "%x" % fa[i] if i < len(fa) else "-"
            y = "%x" % fb[i] if i < len(fb) else "-"
            out.append("    %s #%-3d %18s %18s" % ("!" if x != y else " ", i, x, y))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Compare two perf script outputs by "
                                 "sample header and frame addresses.")
    ap.add_argument("ours")
    ap.add_argument("theirs")
    ap.add_argument("--by-key", action="store_true",
                    help="match samples by (tid, time), in any order")
    ap.add_argument("--show", type=int, default=3, metavar="N",
                    help="mismatches to print (default 3)")
    args = ap.parse_args(argv)

    a = parse(read(args.ours))
    b = parse(read(args.theirs))
    res = compare(a, b, by_key=args.by_key)
    print("frames.py: %d vs %d samples, %d compared, %d mismatches"
          % (len(a), len(b), res.compared, len(res.mismatches)))
    for m in res.mismatches[:args.show]:
        print("  sample %s: %s" % (m.where, m.what))
        print(_show(m, args.ours, args.theirs))
    return 1 if res.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
