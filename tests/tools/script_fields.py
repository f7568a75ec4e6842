#!/usr/bin/env python3
"""script_fields.py - check `perf script` field selections and display
options on merged deferred user callchains (tests/e2e/script-fields-merged.sh).

Each check compares OUT, the output of `perf script` with some option, with
REF, the output of the same perf on the same file without that option (REF
itself is checked against upstream perf 7.2 by the test, sample by sample,
with check_merged.py).  Samples are compared in order; a sample's frames
are its callchain lines, as printed: a tab, then the address, then
(unless -F ip) "sym[+off] (dso)".  No repeats are collapsed.

  script_fields.py fields REF OUT
      same samples; each header equals REF's without the event name (REF
      has -F ...,event, OUT the same fields without it); each frame line
      equals REF's.
  script_fields.py frames REF OUT
      same samples, same frame addresses (--inline, +srcline).
  script_fields.py ip REF OUT
      the same for -F ip, whose samples have no header line.
  script_fields.py ns REF OUT
      --ns: same samples and frames; each header's time has 9 decimals
      and is REF's time (6 decimals) followed by 3 more digits.
  script_fields.py max-stack K REF OUT
      each sample's frames are the first K of REF's.
  script_fields.py leaf REF OUT
      -G: one line per sample, whose address is REF's first frame; or,
      if REF has no kernel frame (--user-callchains), a kernel address
      (the sample's ip, for a sample taken in the kernel).
  script_fields.py headers N OUT
      OUT has N samples (header lines, as --call-trace prints them).
  script_fields.py srcline SRC OUT
      +srcline: every frame (in the workload binary) of `main` or of a
      thread start function (a name ending in "_entry") is followed by
      its source line "SRC:N", SRC being the workload's source file name
      (`frames` checks that the frames are there).
  script_fields.py roots OURS UPSTREAM LATE
      kernel/user order and the workload's entry points: in every sample
      (a "DEFERRED CALLCHAIN" record is not a sample)
      of OURS, no frame in the workload binary (dso /fixtures/bin/...)
      comes before a kernel frame; per root function R in (main,
      start_thread), the samples that have R after their last kernel
      frame (anywhere if they have none: --user-callchains):
      upstream <= OURS <= upstream + LATE, where UPSTREAM is
      upstream 7.2's merged `perf script` and LATE the number of samples
      taken after their own record (merged by us, not by 7.2).

Exit 1 with the first differences printed if a check fails.
"""

import lzma
import re
import sys

FRAME = re.compile(r"^\t\s*([0-9a-f]+)(?: (\S+?)(?:\+0x[0-9a-f]+)?(?: \((.*)\))?)?$")
TIME = re.compile(r"\s(\d+)\.(\d+):")
LEAF = re.compile(r"\s([0-9a-f]+) (\S+?)(?:\+0x[0-9a-f]+)? \(([^()]*)\)\s*$")
KERNEL_MIN = 0xffff800000000000


def read(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt").read()
    return open(path).read()


class Sample:
    def __init__(self, header):
        self.header = header
        self.frames = []        # (addr, sym or None, dso or None, line)
        self.after = {}         # frame index -> extra (srcline) lines


def parse(text):
    """[Sample]: a sample starts at a line that is not indented (its
    header) or, with -F ip, at a frame after an empty line."""
    out, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            cur = None
            continue
        m = FRAME.match(line)
        if m:
            if cur is None:
                cur = Sample("")
                out.append(cur)
            cur.frames.append((int(m.group(1), 16), m.group(2), m.group(3), line))
        elif not line[0].isspace():
            cur = Sample(line)
            out.append(cur)
        elif cur is not None and cur.frames:
            cur.after.setdefault(len(cur.frames) - 1, []).append(line.strip())
    return out


def parse_ip(text):
    """[Sample] of `perf script -F ip`: each sample is an empty header
    line, its frames (in pipe mode with their symbol) and an empty line
    (also after an empty callchain)."""
    out, cur = [], None
    for line in text.splitlines():
        if line.strip():
            m = FRAME.match(line)
            if not m or cur is None:
                raise ValueError("-F ip output: unexpected line %r" % line)
            cur.frames.append((int(m.group(1), 16), None, None, line))
        elif cur is not None and not cur.ended:
            cur.ended = True
        else:
            cur = Sample("")
            cur.ended = False
            out.append(cur)
    return out


def squash(s):
    return " ".join(s.split())


def addrs(s):
    return [f[0] for f in s.frames]


def fail(errors, what):
    if errors:
        print("%s: %d differences" % (what, len(errors)))
        for e in errors[:5]:
            print("  " + e)
        return 1
    return 0


def same_count(ref, out, errors):
    if len(ref) != len(out):
        errors.append("samples: %d, expected %d" % (len(out), len(ref)))


def check_fields(ref, out):
    errors = []
    same_count(ref, out, errors)
    for i, (r, o) in enumerate(zip(ref, out)):
        # REF: "comm tid [cpu] time: event: ", OUT: the same without "event:"
        want = squash(re.sub(r"\s\S+:\s*$", "", r.header))
        if squash(o.header) != want:
            errors.append("sample %d: header %r, expected %r" % (i, o.header, want))
        if [f[3] for f in o.frames] != [f[3] for f in r.frames]:
            errors.append("sample %d (%s): frames differ" % (i, squash(o.header)))
    return fail(errors, "fields")


def check_frames(ref, out):
    errors = []
    same_count(ref, out, errors)
    for i, (r, o) in enumerate(zip(ref, out)):
        if addrs(o) != addrs(r):
            errors.append("sample %d (%s): %s, expected %s" % (
                i, squash(r.header), [hex(a) for a in addrs(o)], [hex(a) for a in addrs(r)]))
    return fail(errors, "frames")


def check_ns(ref, out):
    errors = []
    same_count(ref, out, errors)
    for i, (r, o) in enumerate(zip(ref, out)):
        tr, to = TIME.search(r.header), TIME.search(o.header)
        if not tr or not to or len(to.group(2)) != 9 or \
           (to.group(1), to.group(2)[:6]) != (tr.group(1), tr.group(2)):
            errors.append("sample %d: %r, expected the time of %r with ns" % (i, o.header, r.header))
        if addrs(o) != addrs(r):
            errors.append("sample %d: frames differ" % i)
    return fail(errors, "ns")


def check_max_stack(k, ref, out):
    errors = []
    same_count(ref, out, errors)
    for i, (r, o) in enumerate(zip(ref, out)):
        if addrs(o) != addrs(r)[:k]:
            errors.append("sample %d (%s): %s, expected %s" % (
                i, squash(r.header), [hex(a) for a in addrs(o)], [hex(a) for a in addrs(r)[:k]]))
    return fail(errors, "max-stack %d" % k)


def check_leaf(ref, lines):
    errors = []
    if len(lines) != len(ref):
        errors.append("lines: %d, expected %d samples" % (len(lines), len(ref)))
    for i, (r, line) in enumerate(zip(ref, lines)):
        m = LEAF.search(line)
        ip = int(m.group(1), 16) if m else None
        user_only = all(f[0] < KERNEL_MIN for f in r.frames)
        if ip is None or not ((r.frames and ip == r.frames[0][0]) or
                              (user_only and ip >= KERNEL_MIN)):
            errors.append("line %d %r, expected the address %s" % (
                i, line, hex(r.frames[0][0]) if r.frames else None))
    return fail(errors, "leaf")


def check_srcline(src, out):
    errors = []
    n = 0
    for i, s in enumerate(out):
        for j, f in enumerate(s.frames):
            if f[1] != "main" and not (f[1] or "").endswith("_entry"):
                continue
            if not (f[2] or "").startswith("/fixtures/bin/"):
                continue
            n += 1
            extra = s.after.get(j, [])
            if not extra or not re.match(re.escape(src) + r":\d+$", extra[0]):
                errors.append("sample %d (%s): %s followed by %r, not %s:N" % (
                    i, squash(s.header), f[3].strip(), extra[:1], src))
    print("srcline: %d frames of main/*_entry with their %s line" % (n, src))
    return fail(errors, "srcline")


ROOTS = ("main", "start_thread")


def roots(samples):
    """(samples with kernel and workload frames, samples with a workload frame
    before a kernel frame, {root: samples with root after their kernel frames})"""
    both, bad, count = 0, 0, dict.fromkeys(ROOTS, 0)
    for s in samples:
        if "DEFERRED CALLCHAIN" in s.header:
            continue        # a record of --no-merge-callchains output
        kern = [j for j, f in enumerate(s.frames) if f[0] >= KERNEL_MIN]
        user = [j for j, f in enumerate(s.frames)
                if f[0] < KERNEL_MIN and (f[2] or "").startswith("/fixtures/bin/")]
        if kern and user:
            both += 1
            if min(user) < max(kern):
                bad += 1
        names = {f[1] for f in s.frames[max(kern) + 1 if kern else 0:]}
        for r in ROOTS:
            if r in names:
                count[r] += 1
    return both, bad, count


def check_roots(ours, up, late):
    errors = []
    both, bad, c = roots(ours)
    _, _, cu = roots(up)
    if bad:
        errors.append("%d samples have a workload frame before a kernel frame" % bad)
    for r in ROOTS:
        if not cu[r] <= c[r] <= cu[r] + late:
            errors.append("%s in the user frames of %d samples, upstream 7.2 %d (+ %d late)"
                          % (r, c[r], cu[r], late))
    print("roots: %d samples with kernel then workload frames; user frames %s (upstream %s, late %d)"
          % (both, " ".join("%s %d" % (r, c[r]) for r in ROOTS),
             " ".join("%s %d" % (r, cu[r]) for r in ROOTS), late))
    return fail(errors, "roots")


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    mode, args = argv[1], argv[2:]
    if mode == "fields":
        return check_fields(parse(read(args[0])), parse(read(args[1])))
    if mode == "frames":
        return check_frames(parse(read(args[0])), parse(read(args[1])))
    if mode == "ip":
        return check_frames(parse(read(args[0])), parse_ip(read(args[1])))
    if mode == "ns":
        return check_ns(parse(read(args[0])), parse(read(args[1])))
    if mode == "max-stack":
        return check_max_stack(int(args[0]), parse(read(args[1])), parse(read(args[2])))
    if mode == "leaf":
        return check_leaf(parse(read(args[0])),
                          [line for line in read(args[1]).splitlines() if line.strip()])
    if mode == "headers":
        n = len([line for line in read(args[1]).splitlines() if line.strip()])
        return fail(["%d lines, expected %s samples" % (n, args[0])] if n != int(args[0]) else [],
                    "headers")
    if mode == "srcline":
        return check_srcline(args[0], parse(read(args[1])))
    if mode == "roots":
        return check_roots(parse(read(args[0])), parse(read(args[1])), int(args[2]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
