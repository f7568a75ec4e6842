#!/usr/bin/env python3
"""merge-v2-check.py - checks shared by the tests/e2e/merge-v2-*.sh tests.

  merge-v2-check.py --gen GEN.json --ours OURS.txt --up UP.txt
                    [--stats STATS.txt] [--out-of-order N] [--late-tids A-B]
                    [--late-pid PID] [--data FILE]

GEN.json is tests/tools/gen_perfdata.py's summary of the generated file
(its "expect" counts are what tests/tools/deferred_stats.py, the
independent parser, finds in it; "scenarios" says what was put in it);
OURS.txt is our merged `perf script` of the file, UP.txt upstream perf's
merged `perf script` of the same file, STATS.txt our `perf report
--stats` of it.

Checks (every failure is listed, exit 1 if any):
  - with --data FILE: tests/tools/deferred_stats.py's counts of FILE are the
    generator's "expect" counts (the test input is what it claims);
  - samples out = samples in: OURS and UP print expect["samples"] samples;
  - per sample (tid, time; see tests/tools/frames.py) OURS has upstream's
    frames (addresses, repeats collapsed), where upstream left a sample
    unmerged ("<cookie> (cookie)" as its last frame) OURS has the kernel
    frames only; no cookie is printed as a frame in OURS;
  - the sample header (comm, tid, time, period, event) equals upstream's,
    except where upstream names the thread ":TID" (it resolved the sample
    after the thread's EXIT): there OURS must name a real comm;
  - --exec scenario: the samples taken inside execve show the new comm and
    the NEW program's symbols at the record's ips (upstream's too), never
    the old program's (what a merge resolving them in the old maps shows);
  - time order: the samples of OURS are in time order, except those of the
    --late-tids range (off-CPU threads) and the --late-pid process (exec),
    which may come at their record; with --at-record N, N samples of the
    --late-tids range are merged and printed after every other sample (at
    their records, which come at the end of the file: nothing was held in
    time order behind them);
  - --out-of-order N: at least N samples of OURS are shown out of time
    order, after a sample taken later (counted like tests/lib.sh's
    out_of_order: perf prints no warning about it since v6 of the merge),
    and no more than the deferred samples; with --at-record(-upto), at
    least the late samples printed at their record;
  - with STATS.txt: "SAMPLE events" = expect["samples"] and the v2
    "Deferred callchains:" counters = scenarios["merged_stats"] (what a merge
    that never gives a sample up must count), "invalid records" = 0.
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import frames  # noqa: E402

COOKIE_RE = re.compile(r"^\s+([0-9a-fA-F]+) \(cookie\)", re.M)
SYM_RE = re.compile(r"^\s+([0-9a-fA-F]+) (.*?)(?:\+0x[0-9a-fA-F]+)? \((.*)\)\s*$")
V2_LABELS = ("deferred samples", "merged", "merged, after their record",
             "without user callchain", "records used by no sample", "invalid records")


def blocks(text):
    """[(Sample, [lines])] like check_merged.parse"""
    lines = text.splitlines()
    out = []
    for s in frames.parse(lines):
        end = s.line
        while end < len(lines) and lines[end].strip():
            end += 1
        out.append((s, lines[s.line - 1:end]))
    return out


def shown_out_of_order(samples):
    """how many samples come after a sample taken later (tests/lib.sh's
    out_of_order, on the parsed samples)"""
    n, top = 0, None
    for s, _ in samples:
        t = frames.key(s)[1]
        if t is None:
            continue
        t = tuple(int(v) for v in t.split("."))
        if top is not None and t < top:
            n += 1
        else:
            top = t
    return n


def comm_of(header):
    m = frames.HEADER_RE.match(header)
    return m.group("comm") if m else None


def stats_block(text):
    """counters of the "Deferred callchains:" block of the aggregated stats"""
    agg = text.split("Aggregated stats:", 1)[-1]
    got = {}
    m = re.search(r"^\s*SAMPLE events:\s+(\d+)", agg, re.M)
    if m:
        got["SAMPLE events"] = int(m.group(1))
    if "Deferred callchains:" in agg:
        dc = agg.split("Deferred callchains:", 1)[1]
        for line in dc.splitlines()[1:]:
            m = re.match(r"^\s*(\S.*?):\s+(\d+)\s*$", line)
            if not m:
                break
            got[m.group(1)] = int(m.group(2))
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--up", help="(without: no comparison with upstream)")
    ap.add_argument("--stats")
    ap.add_argument("--out-of-order", type=int)
    ap.add_argument("--late-tids", default="")
    ap.add_argument("--late-pid", type=int)
    ap.add_argument("--at-record", type=int,
                    help="with --late-tids: this many of their samples are merged and printed "
                    "after every other sample (at their record, at the end of the file)")
    ap.add_argument("--at-record-upto", type=int,
                    help="like --at-record, but 1 to this many: those held in perf's own queue "
                    "until their record was read are merged in place; at least the others are "
                    "shown out of time order")
    ap.add_argument("--data", help="the generated file: its counts by deferred_stats.py must be "
                    "the generator's")
    a = ap.parse_args()
    g = json.load(open(a.gen))
    sc = g.get("scenarios", {})
    nsamples = g["expect"]["samples"]
    errors, notes = [], []

    if a.data:
        import subprocess
        ds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools",
                          "deferred_stats.py")
        d = json.loads(subprocess.run([sys.executable, ds, a.data, "--json"], check=True,
                                      capture_output=True, text=True).stdout)
        for k, v in g["expect"].items():
            if d.get(k) != v:
                errors.append("test input: deferred_stats.py counts %s %s, the generator %s"
                              % (k, d.get(k), v))
        notes.append("deferred_stats.py agrees" if not errors else "deferred_stats.py differs")

    ours_text = frames.read(a.ours)
    up_text = frames.read(a.up) if a.up else ""
    ours, up = blocks(ours_text), blocks(up_text)
    notes.append("%d samples in, ours %d out, upstream %s" % (
        nsamples, len(ours), len(up) if a.up else "not run"))
    if len(ours) != nsamples:
        errors.append("samples out != samples in: ours prints %d samples, the file has %d"
                      % (len(ours), nsamples))
    # the independent count: samples with a record (before or after them)
    # get a user part, the others none
    ms = sc.get("merged_stats")
    if ms:
        with_user = sum(1 for s_, _ in ours if any(f < 0x800000000000 for f in s_.frames))
        want = ms["merged"] + ms["merged, after their record"]
        notes.append("%d with a user part" % with_user)
        if with_user != want:
            errors.append("%d samples printed with a user part, want %d (deferred_stats.py: "
                          "their record exists)" % (with_user, want))
    if a.up and len(up) != nsamples:
        errors.append("upstream prints %d samples, the file has %d (test input?)"
                      % (len(up), nsamples))
    if COOKIE_RE.search(ours_text):
        errors.append("ours prints a cookie as a frame")
    cookies = {int(c, 16) for c in COOKIE_RE.findall(up_text)}

    # frames and headers, by (tid, time)
    gu = {}
    for s, lines in up:
        gu.setdefault(frames.key(s), []).append((s, lines))
    bad_frames = bad_hdr = 0
    unmerged_up = 0
    first = []
    for s, lines in (ours if a.up else []):
        k = frames.key(s)
        cand = gu.get(k)
        if not cand:
            bad_frames += 1
            first.append("%s: ours has a sample upstream does not" % (k,))
            continue
        u, ulines = cand.pop(0)
        want = list(u.frames)
        if want and want[-1] in cookies:
            want.pop()
            unmerged_up += 1
        if s.frames != want:
            bad_frames += 1
            first.append("%s: ours %d frames %s..., upstream (cookie dropped) %d frames %s..."
                         % (k, len(s.frames), [hex(x) for x in s.frames[-3:]], len(want),
                            [hex(x) for x in want[-3:]]))
        if s.header != u.header:
            uc, oc = comm_of(u.header), comm_of(s.header)
            if uc and uc.startswith(":") and uc != ":-1" and oc and not oc.startswith(":") \
                    and s.header.replace(oc, "", 1) == u.header.replace(uc, "", 1):
                pass  # upstream resolved it after the EXIT; ours names the thread
            else:
                bad_hdr += 1
                first.append("%s: header ours %r, upstream %r" % (k, s.header, u.header))
    if bad_frames:
        errors.append("%d samples with other frames than upstream's" % bad_frames)
    if bad_hdr:
        errors.append("%d samples with another header than upstream's" % bad_hdr)
    if a.up:
        notes.append("upstream left %d unmerged" % unmerged_up)

    # exec: the new program's comm and symbols
    if "exec" in sc:
        x = sc["exec"]
        ips = {int(i, 16) for i in x["exec_ips"]}
        nb = os.path.basename(g["binary"])
        for who, bl in (("ours", ours), ("upstream", up))[:2 if a.up else 1]:
            n = wrong = 0
            for s, lines in bl:
                if frames.key(s)[0] != x["pid"] or not ips & set(s.frames):
                    continue
                n += 1
                syms = []
                for line in lines[1:]:
                    m = SYM_RE.match(line)
                    if m and int(m.group(1), 16) in ips:
                        syms.append((m.group(2), os.path.basename(m.group(3))))
                ok = comm_of(s.header) == x["new_comm"] and \
                    [y for y, _ in syms] == x["new_symbols"] and all(d == nb for _, d in syms)
                if not ok:
                    wrong += 1
                    if wrong == 1:
                        first.append("exec sample %s in %s: comm %r, user frames %s; want comm %r, "
                                     "%s in %s (the old program has %s there)"
                                     % (frames.key(s), who, comm_of(s.header), syms, x["new_comm"],
                                        x["new_symbols"], nb, x["old_symbols"]))
            if n != x["samples_in_exec"]:
                errors.append("%s: %d samples taken in execve with the record's ips, want %d"
                              % (who, n, x["samples_in_exec"]))
            if wrong:
                errors.append("%s: %d of the %d samples taken in execve not resolved in the new "
                              "program (comm %s, %s)" % (who, wrong, n, x["new_comm"],
                                                         "/".join(x["new_symbols"])))
        notes.append("exec samples checked")

    # time order, except the samples that may come at their record
    lo = hi = None
    if a.late_tids:
        lo, hi = (int(v) for v in a.late_tids.split("-"))
    last, inv, late = None, 0, 0
    at_record = 0  # late-tid samples with a user part after the last other sample
    for s, _ in ours:
        tid, t = frames.key(s)
        if t is None:
            continue
        t = tuple(int(v) for v in t.split("."))
        pid_m = frames.HEADER_RE.match(s.header)
        pid = int(pid_m.group("id1")) if pid_m and pid_m.group("id2") else None
        if lo is not None and lo <= tid <= hi:
            if any(f < 0x800000000000 for f in s.frames):
                at_record += 1
            continue
        if a.late_pid is not None and a.late_pid in (tid, pid):
            continue
        at_record = 0
        if last is not None and t < last:
            inv += 1
        last = t
    if inv:
        errors.append("%d timestamp inversions among the samples that must be in time order" % inv)
    notes.append("%d inversions" % inv)
    if a.at_record_upto is not None:
        notes.append("%d late samples merged at their record" % at_record)
        if not 1 <= at_record <= a.at_record_upto:
            errors.append("%d of the samples of tids %s are printed merged after all the other "
                          "samples (at their record), want 1 to %d"
                          % (at_record, a.late_tids, a.at_record_upto))
        a.out_of_order = max(a.out_of_order or 0, at_record)
    if a.at_record is not None:
        notes.append("%d late samples merged at their record" % at_record)
        # the first of them may still be at the head of the queue when the
        # first of their records comes (the window is in stream time, and
        # the traffic of a small file spans less): merged in place
        if not a.at_record - 1 <= at_record <= a.at_record:
            errors.append("%d of the samples of tids %s are printed merged after all the other "
                          "samples (at their record), want %d: the others were held in time "
                          "order behind them" % (at_record, a.late_tids, a.at_record))

    got = stats_block(open(a.stats).read()) if a.stats else {}
    # --out-of-order N: at least N samples of OURS come after a sample
    # taken later, and never more than the deferred samples
    if a.out_of_order is not None:
        ooo = shown_out_of_order(ours)
        most = got.get("deferred samples", len(ours))
        notes.append("%d shown out of time order" % ooo)
        if not a.out_of_order <= ooo <= most:
            errors.append("perf script: %d samples shown out of time order (after a sample "
                          "taken later), want %d to %d" % (ooo, a.out_of_order, most))
    if a.stats:
        want = dict(sc.get("merged_stats", {}))
        want["invalid records"] = 0
        if got.get("SAMPLE events") != nsamples:
            errors.append("perf report --stats: SAMPLE events %s, want %d"
                          % (got.get("SAMPLE events"), nsamples))
        for lab in V2_LABELS:
            if lab not in want:
                continue
            if lab not in got:
                errors.append("perf report --stats: no %r counter (v2 block); want %d"
                              % (lab, want[lab]))
            elif got[lab] != want[lab]:
                errors.append("perf report --stats: %r = %d, want %d" % (lab, got[lab], want[lab]))
        notes.append("stats " + ", ".join("%s %d" % kv for kv in got.items()
                                          if kv[0] != "SAMPLE events"))

    print("merge-v2-check: %s; %d errors" % ("; ".join(notes), len(errors)))
    for e in errors:
        print("  " + e)
    for f in first[:5]:
        print("    e.g. " + f)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
