#!/usr/bin/env python3
"""stackvis_check.py - check what stackvis (npm, an independent reader of
`perf script` text) makes of our merged perf script output
(tests/e2e/stackvis-flamegraph.sh).

  stackvis_check.py collapsed SCRIPT COLLAPSED N

      SCRIPT: our `perf script` output; COLLAPSED: `stackvis perf
      collapsed < SCRIPT` ("f1,f2,...,leaf COUNT" lines, root first);
      N: the number of samples in the file (counted without perf).
      Checks:
        - the counts add up to N (one stack per sample), less the samples
          without any frame (stackvis drops an empty stack);
        - no cookie frame: no frame "(cookie)" (perf script
          --no-merge-callchains) and no frame that is a bare number;
        - root first, the user frames of a stack come before its kernel
          frames (a frame is user or kernel by its shared object in SCRIPT;
          names found in both are not classified), and as many stacks as
          SCRIPT has samples with kernel and user frames have both;
        - the stacks are SCRIPT's samples, frame for frame: each sample's
          frames as stackvis reads them (lib/input-perf.js: "addr sym+off
          (dso)" -> "sym+off", prefixed "comm`" when the comm is a word;
          a header that does not start with a word, "perf-exec" or
          "ksoftirqd/1", is taken as a frame), outermost first; the
          multisets of stacks must be equal.
      Prints the counts and the deepest stack.

  stackvis_check.py svg SCRIPT SVG N

      SVG: `stackvis perf flamegraph-svg < SCRIPT` (SCRIPT without symbol
      offsets, -F ...,sym): well-formed XML, an <svg> whose "all samples"
      box has N samples (less those without frames), whose boxes one level up are the outermost
      functions of SCRIPT's samples with their sample counts, and as many
      levels as the deepest sample.

Exit 1 with the first differences printed if a check fails.
"""

import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter

FRAME = re.compile(r"^\t\s*([0-9a-f]+) (.*?) \((\S+)\)$")
KERNEL_MIN = 0xffff800000000000


def samples(text):
    """[(header, [(addr, 'sym+off', dso)])] of perf script output."""
    out, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            cur = None
            continue
        m = FRAME.match(line)
        if m and cur is not None:
            cur[1].append((int(m.group(1), 16), m.group(2), m.group(3)))
        elif not line[0].isspace():
            cur = (line, [])
            out.append(cur)
        else:
            raise ValueError("perf script output: unexpected line %r" % line)
    return out


def as_stackvis(header, frames):
    """The stack stackvis reads for a sample (lib/input-perf.js 0.5.0)."""
    m = re.match(r"^(\w+)\s+", header)
    prefix = m.group(1) + "`" if m else ""
    names = [prefix + re.sub(r"(..)[(<].*", r"\1", f[1]) for f in frames]
    if not m:
        names.insert(0, header.strip())
    return tuple(reversed(names))


def kinds(smp):
    """{function name: 'k' or 'u'} from the frames' addresses."""
    k = {}
    for _, frames in smp:
        for addr, sym, _ in frames:
            name = re.sub(r"\+0x[0-9a-f]+$", "", sym)
            if name == "[unknown]":
                continue
            kind = "k" if addr >= KERNEL_MIN else "u"
            k[name] = kind if k.get(name, kind) == kind else None
    return k


def bare(frame):
    """A frame of a collapsed stack without its "comm`" and offset."""
    return re.sub(r"\+0x[0-9a-f]+$", "", frame.split("`", 1)[-1])


def check_collapsed(script, collapsed, n):
    errors = []
    smp = samples(open(script).read())
    got = Counter()
    for line in open(collapsed).read().splitlines():
        stack, count = line.rsplit(" ", 1)
        got[tuple(stack.split(","))] += int(count)
    total = sum(got.values())
    if len(smp) != n:
        errors.append("perf script has %d samples, the file %d" % (len(smp), n))
    # a sample without any frame (user-only chain whose record never came)
    # is an empty stack, which stackvis drops
    empty = sum(1 for _, fr in smp if not fr)
    if total != n - empty:
        errors.append("stack counts add up to %d, %d samples (%d without frames)"
                      % (total, n, empty))
    smp = [x for x in smp if x[1]]

    kind = kinds(smp)
    cookies = order = both = 0
    deepest = ()
    for stack, count in got.items():
        names = [bare(f) for f in stack]
        if any(f == "(cookie)" or re.fullmatch(r"(0x)?[0-9a-fA-F]+", f) for f in names):
            cookies += count
        ks = [kind.get(f) for f in names]
        if "k" in ks and "u" in ks:
            both += count
            if max(i for i, k in enumerate(ks) if k == "u") > \
               min(i for i, k in enumerate(ks) if k == "k"):
                order += count
        if len(stack) > len(deepest):
            deepest = stack
    if cookies:
        errors.append("%d stacks have a cookie frame" % cookies)
    if order:
        errors.append("%d stacks have a user frame above a kernel frame" % order)
    want_both = sum(1 for _, fr in smp
                    if any(a >= KERNEL_MIN for a, _, _ in fr) and
                    any(a < KERNEL_MIN and not s.startswith("[unknown]") for a, s, _ in fr))
    if both != want_both:
        errors.append("%d stacks have user and kernel frames, perf script %d samples"
                      % (both, want_both))

    want = Counter(as_stackvis(h, fr) for h, fr in smp)
    missing, extra = want - got, got - want
    for stack, c in list(missing.items())[:3]:
        errors.append("%d samples of perf script not in stackvis: %s" % (c, ",".join(stack)))
    for stack, c in list(extra.items())[:3]:
        errors.append("%d stacks of stackvis not in perf script: %s" % (c, ",".join(stack)))
    if missing or extra:
        errors.append("%d samples' stacks differ" % sum(missing.values()))

    print("collapsed: %d stacks (%d distinct)%s, %d with user frames below kernel frames, "
          "deepest %d frames: %s" % (total, len(got),
                                     " + %d samples without frames" % empty if empty else "",
                                     both, len(deepest), ";".join(bare(f) for f in deepest)))
    for e in errors[:8]:
        print("  " + e)
    return 1 if errors else 0


def check_svg(script, svg, n):
    errors = []
    smp = samples(open(script).read())
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        print("svg: not well-formed XML: %s" % e)
        return 1
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        errors.append("the root element is %s, not svg" % root.tag)
    boxes = []
    for r in root.iter(ns + "rect"):
        m = re.match(r'^s\("(.*) \((\d+) samples, [\d.]+%\)"\)$', r.get("onmouseover") or "")
        if m:
            boxes.append((float(r.get("y")), float(r.get("x")), m.group(1), int(m.group(2))))
    levels = sorted({b[0] for b in boxes}, reverse=True)
    alls = [b for b in boxes if b[2] == "all samples"]
    n -= sum(1 for _, fr in smp if not fr)
    smp = [x for x in smp if x[1]]
    if len(alls) != 1 or alls[0][3] != n or alls[0][0] != levels[0]:
        errors.append("'all samples' boxes %s, expected one of %d samples at the bottom"
                      % ([(b[2], b[3]) for b in alls], n))
    got = Counter()
    for y, _, name, count in boxes:
        if len(levels) > 1 and y == levels[1]:
            got[bare(name)] += count
    want = Counter()
    for h, fr in smp:
        if fr:
            want[bare(as_stackvis(h, fr)[0])] += 1
    if got != want:
        errors.append("outermost functions %s, perf script %s"
                      % (got.most_common(4), want.most_common(4)))
    depth = max(len(as_stackvis(h, fr)) for h, fr in smp)
    if len(levels) != depth + 1:
        errors.append("%d levels, expected %d (the deepest sample and 'all')"
                      % (len(levels), depth + 1))
    print("svg: well-formed, %d boxes on %d levels, 'all samples' %s, outermost: %s"
          % (len(boxes), len(levels), alls[0][3] if alls else None,
             ", ".join("%s %d" % kv for kv in got.most_common(3))))
    for e in errors[:8]:
        print("  " + e)
    return 1 if errors else 0


def main(argv):
    if len(argv) != 5 or argv[1] not in ("collapsed", "svg"):
        sys.stderr.write(__doc__)
        return 2
    check = check_collapsed if argv[1] == "collapsed" else check_svg
    return check(argv[2], argv[3], int(argv[4]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
