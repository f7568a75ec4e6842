#!/usr/bin/python3
"""table.py - Markdown report of tests/bench/run.sh's measurements.

Usage: table.py RESULTS CELLS DATADIR ELAPSED REPS OURS-VERSION UP-VERSION OURS-MERGE [BENCHDIR]
RESULTS lines, one per run: "CELL WHO CMD VARIANT WALL-SECONDS PEAK-RSS-KB"
(WHO ours|up: perf 7.3 + our 7.3 series, upstream; CMD script|report|stats,
VARIANT merged|nomerge|floor; WALL may be timeout or error);
CELLS lines: "CELL REPS GENERATOR-ARGS"; DATADIR holds CELL.json (generator
summaries).  Cells named offcpu-* are the off-CPU files (no floor file).
BENCHDIR (optional) holds checks.txt ("CELL WHO blocked-merged M N": M of
the N blocked samples got a user part) and stats/CELL.WHO-stats-VARIANT.txt
(the output of perf report --stats).
"""
import json
import os
import re
import sys
import time

resf, cellsf, data, elapsed, reps, ours_ver, up_ver, ours_merge = sys.argv[1:9]
benchdir = sys.argv[9] if len(sys.argv) > 9 else None
checks = {}
if benchdir and os.path.exists(os.path.join(benchdir, "checks.txt")):
    for line in open(os.path.join(benchdir, "checks.txt")):
        p_ = line.split()
        if len(p_) == 5 and p_[2] == "blocked-merged":
            checks[(p_[0], p_[1])] = (int(p_[3]), int(p_[4]))


def deferred_stats(name, who="ours", var="merged"):
    """the "Deferred callchains:" counters of a kept perf report --stats"""
    if not benchdir:
        return {}
    f = os.path.join(benchdir, "stats", "%s.%s-stats-%s.txt" % (name, who, var))
    if not os.path.exists(f):
        return {}
    text = open(f).read().split("Aggregated stats:", 1)[-1]
    if "Deferred callchains:" not in text:
        return {}
    out = {}
    for line in text.split("Deferred callchains:", 1)[1].splitlines()[1:]:
        m = re.match(r"^\s*(\S.*?):\s+(\d+)\s*$", line)
        if not m:
            break
        out[m.group(1)] = int(m.group(2))
    return out
runs = {}
for line in open(resf):
    name, who, cmd, var, wall, rss = line.split()
    runs.setdefault((name, who, cmd, var), []).append((wall, int(rss)))
res = {}  # best wall (or timeout/error), largest peak RSS
for k, v in runs.items():
    walls = [w for w, _ in v]
    bad = [w for w in walls if w in ("timeout", "error")]
    best = bad[0] if bad else "%.3f" % min(float(w) for w in walls)
    res[k] = (best, max(r for _, r in v))
cells = [l.rstrip("\n").split(None, 2) for l in open(cellsf) if l.strip()]
summ = {c[0]: json.load(open(os.path.join(data, c[0] + ".json"))) for c in cells}


def t(*k):
    r = res.get(k)
    return r[0] if r else "n/a"


def num(x):
    try:
        return float(x)
    except ValueError:
        return None


def ratio(a, b):
    a, b = num(a), num(b)
    if a is None or b is None or b <= 0:
        return "n/a"
    return "%.2fx" % (a / b)


def mb(*k):
    r = res.get(k)
    return "%d" % (r[1] / 1024) if r and r[1] else "n/a"


def row(cells_):
    return "| " + " | ".join(cells_) + " |"


def table(head, rows):
    out = [row(head), row(["---"] * len(head))]
    out += [row(r) for r in rows]
    return "\n".join(out)


allnames = [c[0] for c in cells]
offcpu = [n for n in allnames if n.startswith("offcpu")]
names = [n for n in allnames if n not in offcpu]
L = ["## The full matrix (written by tests/bench/run.sh)", ""]
L.append("Written by `tests/bench/run.sh` (`make bench`) on %s, %d s in all, on %d CPUs. "
         "Ours: `%s` (--no-merge-callchains: %s); upstream: `%s` (Debian's linux-perf, "
         "`tests/tools/upstream-perf.sh`)." % (
             time.strftime("%Y-%m-%d"), int(elapsed), os.cpu_count(), ours_ver,
             "yes" if ours_merge == "1" else "not yet, so our merged/unmerged columns are n/a",
             up_ver))
L.append("")
L.append("Load average (1/5/15 min) %s: the machine is shared, small differences are "
         "noise." % os.environ.get("BENCH_LOAD", "?"))
L.append("")
L.append("Wall time in seconds (bash $EPOCHREALTIME around the command), best of the runs "
         "(column \"runs\" of the files table; variants run round-robin); peak RSS "
         "is the largest of the runs (GNU time `%M`; it includes the pages of perf.data "
         "that perf has mapped). Every ratio compares runs made in this one invocation. "
         "\"merged\" is the deferred file with the default merging, \"no-merge\" the same "
         "file with `--no-merge-callchains`, \"floor\" the same samples recorded with "
         "ordinary full callchains (no record 22). Kernel frames are symbolised with the "
         "fixtures' guest kallsyms (`--kallsyms`), user frames from the fixture binary "
         "`mt_syscalls`; stdout goes to /dev/null.")
L.append("")
L.append("## Files (tests/tools/gen_perfdata.py)")
L.append("")
rows = []
for name, nreps, args in cells:
    s = summ[name]
    e = s["expect"]
    rows.append([name, nreps, str(e["samples"]), str(s["threads"]), s["schedule"],
                 str(e["deferred_records"]), str(s["max_pending_samples"]),
                 str(e["unmatched_samples_taken_AFTER_their_cookies_record"]),
                 str(e["unmatched_samples_whose_cookie_never_appears"]),
                 "%d / %s" % (s["bytes"] >> 20, "%d" % (s["floor_bytes"] >> 20)
                               if s["floor_bytes"] else "none")])
L.append(table(["file", "runs", "samples", "threads", "schedule", "records 22", "max pending samples",
                "late samples", "never completed", "MB deferred / floor"], rows))
L.append("")
L.append("Generator arguments:")
L.append("")
for name, _, args in cells:
    L.append("- `%s`: `%s`" % (name, args))
L.append("")

L.append("## perf script (seconds)")
L.append("")
rows = []
for n in names:
    om, on, of = t(n, "ours", "script", "merged"), t(n, "ours", "script", "nomerge"), \
        t(n, "ours", "script", "floor")
    um, un, uf = t(n, "up", "script", "merged"), t(n, "up", "script", "nomerge"), \
        t(n, "up", "script", "floor")
    rows.append([n, om, on, of, ratio(om, on), ratio(om, of), um, un, uf, ratio(um, un),
                 ratio(om, um)])
L.append(table(["file", "ours merged", "ours no-merge", "ours floor", "ours merged / no-merge",
                "ours merged / floor", "upstream merged", "upstream no-merge", "upstream floor",
                "upstream merged / no-merge", "ours / upstream (merged)"], rows))
L.append("")

L.append("## perf report --stdio (seconds)")
L.append("")
rows = []
for n in names:
    om, on, of = t(n, "ours", "report", "merged"), t(n, "ours", "report", "nomerge"), \
        t(n, "ours", "report", "floor")
    um, uf = t(n, "up", "report", "merged"), t(n, "up", "report", "floor")
    rows.append([n, om, on, of, ratio(om, of), um, uf, ratio(um, uf), ratio(om, um)])
L.append(table(["file", "ours merged", "ours no-merge", "ours floor", "ours merged / floor",
                "upstream merged", "upstream floor", "upstream merged / floor",
                "ours / upstream (merged)"], rows))
L.append("")
L.append("perf report has no --no-merge-callchains (upstream neither); there the floor "
         "file is the baseline.")
L.append("")

L.append("## perf report --stats (seconds)")
L.append("")
rows = []
for n in names:
    om, of = t(n, "ours", "stats", "merged"), t(n, "ours", "stats", "floor")
    um, uf = t(n, "up", "stats", "merged"), t(n, "up", "stats", "floor")
    rows.append([n, om, of, ratio(om, of), um, uf, ratio(um, uf), ratio(om, um),
                 mb(n, "ours", "stats", "merged"), mb(n, "ours", "stats", "floor")])
L.append(table(["file", "ours merged", "ours floor", "ours merged / floor", "upstream merged",
                "upstream floor", "upstream merged / floor", "ours / upstream (merged)",
                "ours merged MB", "ours floor MB"], rows))
L.append("")
L.append("`perf report --stats` matches samples with their records by cookie without merging "
         "(the merge unit's counting mode), in file order; "
         "the floor file is the baseline.")
L.append("")

L.append("## Peak RSS (MB)")
L.append("")
rows = []
for n in names:
    rows.append([n] + [mb(n, w, c, v) for w, c, v in (
        ("ours", "script", "merged"), ("ours", "script", "nomerge"), ("ours", "script", "floor"),
        ("up", "script", "merged"), ("up", "script", "nomerge"), ("up", "script", "floor"),
        ("ours", "report", "merged"), ("ours", "report", "floor"),
        ("up", "report", "merged"), ("up", "report", "floor"))])
L.append(table(["file", "script ours merged", "ours no-merge", "ours floor", "upstream merged",
                "upstream no-merge", "upstream floor", "report ours merged", "ours floor",
                "upstream merged", "upstream floor"], rows))
L.append("")

if offcpu:
    L.append("## Off-CPU files (perf script, seconds and peak RSS)")
    L.append("")
    L.append("1000 threads each take one kernel-mode sample early (in `__schedule` under "
             "`read()`) and get their record only at the very end, after the plain "
             "sample/record pairs of one other thread (`gen_perfdata.py --blocked 1000`). "
             "\"blocked merged\": of the blocked threads' samples, how many got a user part "
             "(an untimed `perf script --tid` of those threads after the timed runs; n/a where "
             "the timed merged run did not finish). Counters: our `perf report --stats` "
             "(timed too, column \"ours --stats\").")
    L.append("")
    rows = []
    for n in offcpu:
        om, on = t(n, "ours", "script", "merged"), t(n, "ours", "script", "nomerge")
        um, un = t(n, "up", "script", "merged"), t(n, "up", "script", "nomerge")
        a_, b_ = res.get((n, "ours", "script", "merged")), res.get((n, "ours", "script", "nomerge"))
        d_ = "%+d" % ((a_[1] - b_[1]) / 1024) if a_ and b_ and a_[1] and b_[1] else "n/a"
        bo, bu = checks.get((n, "ours")), checks.get((n, "up"))
        rows.append([n, om, on, ratio(om, on), mb(n, "ours", "script", "merged"),
                     mb(n, "ours", "script", "nomerge"), d_,
                     "%d / %d" % bo if bo else "n/a", t(n, "ours", "stats", "merged"),
                     um, un, ratio(um, un), mb(n, "up", "script", "merged"),
                     "%d / %d" % bu if bu else "n/a", ratio(om, um)])
    L.append(table(["file", "ours merged", "ours no-merge", "ours merged / no-merge",
                    "ours merged MB", "ours no-merge MB", "merged - no-merge MB",
                    "ours blocked merged", "ours --stats", "upstream merged",
                    "upstream no-merge", "upstream merged / no-merge", "upstream merged MB",
                    "upstream blocked merged", "ours / upstream (merged)"], rows))
    L.append("")
    for n in offcpu:
        st = deferred_stats(n)
        if st:
            L.append("- `%s`, our `perf report --stats`: %s." % (
                n, ", ".join("%s %d" % kv for kv in st.items())))
    to = [n for n in offcpu if t(n, "up", "script", "merged") == "timeout"]
    if to:
        L.append("- upstream on %s: stopped by `timeout` (run.sh --big-timeout / "
                 "--timeout), not measured." % ", ".join("`%s`" % n for n in to))
    L.append("")

L.append("## Targets")
L.append("")
real = [n for n in names if summ[n]["schedule"] == "interleave"]
rs = [(n, num(t(n, "ours", "script", "merged")), num(t(n, "ours", "script", "nomerge")))
      for n in real]
rs = [(n, a / b, b) for n, a, b in rs if a is not None and b]
# runs under half a second are mostly start-up (symbol tables): not judged
judged = [x for x in rs if x[2] >= 0.5]
if judged:
    worst = max(judged, key=lambda x: x[1])
    L.append("- merged <= 1.10x unmerged on realistic files (perf script, files whose "
             "unmerged run takes >= 0.5 s): %s; worst %s at %.2fx (%s)." % (
                 "met" if worst[1] <= 1.10 else "MISSED by %.0f %%" % ((worst[1] / 1.10 - 1) * 100),
                 worst[0], worst[1],
                 ", ".join("%s %.2fx%s" % (n, r, "" if b >= 0.5 else " (start-up dominated, "
                                           "not judged)") for n, r, b in rs)))
elif rs:
    L.append("- merged <= 1.10x unmerged on realistic files: no file large enough to judge.")
else:
    L.append("- merged <= 1.10x unmerged on realistic files: not measured (ours n/a).")
pend = [n for n in names if summ[n]["schedule"] == "burst" and summ[n]["threads"] >= 32768]
for n in pend:
    o = ratio(t(n, "ours", "script", "merged"), t(n, "ours", "script", "nomerge"))
    u = ratio(t(n, "up", "script", "merged"), t(n, "up", "script", "nomerge"))
    ok = num(o[:-1]) if o != "n/a" else None
    L.append("- 32k threads with one pending sample each <= 1.5x unmerged (%s, perf script): "
             "ours %s%s; upstream %s." % (
                 n, o, "" if ok is None else (" (met)" if ok <= 1.5 else " (MISSED)"), u))
mem = []
for n in names:
    a, b = res.get((n, "ours", "script", "merged")), res.get((n, "ours", "script", "nomerge"))
    if a and b and a[1] and b[1]:
        mem.append("%s %+d MB" % (n, (a[1] - b[1]) / 1024))
if mem:
    L.append("- memory grows with pending samples, not with file length: ours merged minus "
             "no-merge peak RSS (perf script): %s." % ", ".join(mem))

# merge v2's targets
v2 = []
for n in offcpu:
    bo = checks.get((n, "ours"))
    nb = summ[n].get("scenarios", {}).get("blocked", {}).get("with_record")
    if bo and nb is not None:
        v2.append("off-CPU `%s`: blocked samples merged %d/%d (%s)" % (
            n, bo[0], nb, "met" if bo[0] == nb and bo[1] == nb else "MISSED"))
    else:
        v2.append("off-CPU `%s`: blocked samples merged n/a" % n)
    a_, b_ = res.get((n, "ours", "script", "merged")), res.get((n, "ours", "script", "nomerge"))
    if a_ and b_ and a_[1] and b_[1]:
        d = (a_[1] - b_[1]) / 1024
        v2.append("`%s`: peak RSS merged - no-merge %+d MB <= 24 MB (%s)" % (
            n, d, "met" if d <= 24 else "MISSED"))
    r = ratio(t(n, "ours", "script", "merged"), t(n, "ours", "script", "nomerge"))
    if r != "n/a":
        v2.append("`%s`: perf script merged / no-merge %s <= 1.15x (%s)" % (
            n, r, "met" if float(r[:-1]) <= 1.15 else "MISSED"))
for n in [n for n in names if n == "1M-32kt"]:
    r = ratio(t(n, "ours", "script", "merged"), t(n, "ours", "script", "floor"))
    if r != "n/a":
        v2.append("`%s`: perf script merged / floor %s <= 1.05x (%s)" % (
            n, r, "met" if float(r[:-1]) <= 1.05 else "MISSED"))
    r = ratio(t(n, "ours", "stats", "merged"), t(n, "ours", "stats", "floor"))
    if r != "n/a":
        v2.append("`%s`: perf report --stats merged / floor %s <= 2x (%s)" % (
            n, r, "met" if float(r[:-1]) <= 2 else "MISSED"))
if v2:
    L.append("")
    L.append("Merge v2 (off-CPU, exec, tid reuse; ratios from one run):")
    L.append("")
    for x in v2:
        L.append("- " + x + ".")
print("\n".join(L))
