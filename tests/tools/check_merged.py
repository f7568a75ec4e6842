#!/usr/bin/env python3
"""check_merged.py - check our merged `perf script` output of a recording
with deferred user callchains against upstream perf 7.2's outputs.

  check_merged.py [--out-of-order N] OURS UPSTREAM_MERGED UPSTREAM_NO_MERGE [STATS_JSON]

OURS is `perf script` (merged, the default) by the perf under test;
UPSTREAM_MERGED and UPSTREAM_NO_MERGE are upstream perf 7.2's
`perf script` and `perf script --no-merge-callchains` of the same file
(.xz names are decompressed); STATS_JSON is the fixture's
analysis/NAME.stats.json (an independent count made without perf).

The expected merged chain of every sample is built from upstream's raw
output alone: its kernel frames (the chain without its last "<hex>
(cookie)" line), then the frames of the "DEFERRED CALLCHAIN [cookie:
<hex>]" record of the same tid and cookie, wherever that record is (a
sample can come after its own record); a sample whose cookie has no
record keeps its kernel frames only.  Samples are matched by (tid,
time, event), in order within one key; frames are compared by address,
consecutive repeats collapsed (see frames.py).

Checks, each a failure if it does not hold:
  - the same samples (keys) in OURS and both upstream outputs;
  - OURS has the expected frames for every sample;
  - for every sample that upstream merged (its chain does not end with its
    cookie printed as an "[unknown]" frame), OURS has upstream's frames;
  - the samples upstream did not merge because they were taken after their
    own record are merged in OURS;
  - no cookie of a sample is printed as a frame in OURS;
  - time order in OURS (when it has timestamps): at most N samples (the
    --out-of-order count, default 0: what `perf report --stats` counts as
    "delivered out of time order", the samples whose record came after
    their reorder window or after their thread exec'd) come after a
    sample taken later than them;
  - with STATS_JSON: samples = "samples", samples whose record comes
    after them = "samples_matched", before them =
    "unmatched_samples_taken_AFTER_their_cookies_record", without record =
    "unmatched_samples_whose_cookie_never_appears".

Prints one summary line (and the first mismatches); exit 1 on failure.
"""

import json
import os
import re
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames  # noqa: E402

COOKIE_LINE_RE = re.compile(r"^\s+([0-9a-fA-F]+) \(cookie\)")
RECORD_RE = re.compile(r"DEFERRED CALLCHAIN \[cookie: ([0-9a-fA-F]+)\]")
EVENT_RE = re.compile(r"(\S+):\s*$")


def parse(text):
    """[(sample, raw_lines)] for every block of perf script text."""
    lines = text.splitlines()
    out = []
    for s in frames.parse(lines):
        end = s.line
        while end < len(lines) and lines[end].strip():
            end += 1
        out.append((s, lines[s.line - 1:end]))
    return out


def key(s):
    tid, time = frames.key(s)
    m = EVENT_RE.search(s.header)
    return (tid, time, m.group(1) if m else None)


def collapse(addrs):
    out = []
    for a in addrs:
        if not out or out[-1] != a:
            out.append(a)
    return out


def group(samples):
    g = OrderedDict()
    for s in samples:
        g.setdefault(key(s), []).append(s)
    return g


def main(argv):
    out_of_order = 0
    if len(argv) > 2 and argv[1] == "--out-of-order":
        out_of_order = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    ours = frames.parse(frames.read(argv[1]))
    up_merged = frames.parse(frames.read(argv[2]))
    raw = parse(frames.read(argv[3]))
    stats = json.load(open(argv[4])) if len(argv) == 5 else None

    # upstream's raw output: samples (with cookie) and records, in time order
    records = {}            # (tid, cookie) -> (position, frames)
    raw_samples = []        # (sample, cookie or None, position)
    for pos, (s, lines) in enumerate(raw):
        m = RECORD_RE.search(s.header)
        if m:
            k = (frames.key(s)[0], int(m.group(1), 16))
            if k in records:
                print("check_merged: record %s appears twice" % (k,))
                return 1
            records[k] = (pos, s.frames)
            continue
        cookie = None
        for line in lines[1:]:
            c = COOKIE_LINE_RE.match(line)
            if c:
                cookie = int(c.group(1), 16)
        raw_samples.append((s, cookie, pos))

    errors = []
    n_after = n_before = n_norecord = n_up_merged = n_up_unmerged = n_late = 0
    expected = {}
    for s, cookie, pos in raw_samples:
        if cookie is None:
            exp = s.frames
        else:
            kern = s.frames[:-1] if s.frames and s.frames[-1] == cookie else s.frames
            rec = records.get((frames.key(s)[0], cookie))
            if rec is None:
                n_norecord += 1
                exp = kern
            else:
                if rec[0] > pos:
                    n_after += 1
                else:
                    n_before += 1
                exp = collapse(kern + rec[1])
        expected.setdefault(key(s), []).append((exp, cookie))

    g_ours, g_up = group(ours), group(up_merged)
    if len(ours) != len(raw_samples) or len(up_merged) != len(raw_samples):
        errors.append("samples: ours %d, upstream merged %d, upstream raw %d"
                      % (len(ours), len(up_merged), len(raw_samples)))
    for k in list(expected) + [k for k in g_ours if k not in expected]:
        exps, os_, us = expected.get(k, []), g_ours.get(k, []), g_up.get(k, [])
        if not (len(exps) == len(os_) == len(us)):
            errors.append("%s: %d samples in ours, %d upstream merged, %d upstream raw"
                          % (k, len(os_), len(us), len(exps)))
            continue
        for (exp, cookie), o, u in zip(exps, os_, us):
            if o.frames != exp:
                errors.append("%s: ours %s, expected %s"
                              % (k, [hex(a) for a in o.frames], [hex(a) for a in exp]))
            if cookie is not None and cookie in o.frames:
                errors.append("%s: ours prints the cookie %x as a frame" % (k, cookie))
            if cookie is not None and u.frames and u.frames[-1] == cookie:
                n_up_unmerged += 1
                if o.frames != u.frames[:-1]:
                    n_late += 1
                continue
            n_up_merged += 1
            if o.frames != u.frames:
                errors.append("%s: ours %s, upstream merged %s"
                              % (k, [hex(a) for a in o.frames], [hex(a) for a in u.frames]))

    if n_late != n_before:
        errors.append("of the %d samples taken after their record, upstream left %d "
                      "unmerged and ours merged %d of those" % (n_before, n_up_unmerged, n_late))

    inversions = 0
    latest = None
    for s in ours:
        t = frames.key(s)[1]
        if t is None:
            continue
        t = tuple(int(x) for x in t.split("."))
        if latest is not None and t < latest:
            inversions += 1
        else:
            latest = t
    if inversions > out_of_order:
        errors.append("%d samples out of time order in ours, %d counted as delivered "
                      "out of time order" % (inversions, out_of_order))

    if stats is not None:
        for name, got, want in (
                ("samples", len(ours), stats["samples"]),
                ("samples_matched (record after the sample)", n_after,
                 stats["samples_matched"]),
                ("unmatched_samples_taken_AFTER_their_cookies_record", n_before,
                 stats["unmatched_samples_taken_AFTER_their_cookies_record"]),
                ("unmatched_samples_whose_cookie_never_appears", n_norecord,
                 stats["unmatched_samples_whose_cookie_never_appears"])):
            if got != want:
                errors.append("%s: %d, analysis says %d" % (name, got, want))

    print("check_merged: %d samples; record after %d, before %d, none %d; "
          "upstream merged %d (compared), left %d unmerged of which ours merged %d; "
          "%d inversions; %d errors"
          % (len(ours), n_after, n_before, n_norecord, n_up_merged, n_up_unmerged,
             n_late, inversions, len(errors)))
    for e in errors[:5]:
        print("  " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
