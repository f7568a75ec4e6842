#!/usr/bin/python3
"""table.py - Markdown report of tests/bench/run.sh's measurements.

Usage: table.py RESULTS CELLS DATADIR ELAPSED REPS OURS-VERSION UP-VERSION OURS-MERGE
RESULTS lines, one per run: "CELL WHO CMD VARIANT WALL-SECONDS PEAK-RSS-KB"
(WHO ours|up, CMD script|report, VARIANT merged|nomerge|floor; WALL may be
timeout or error);
CELLS lines: "CELL REPS GENERATOR-ARGS"; DATADIR holds CELL.json (generator
summaries).
"""
import json
import os
import sys
import time

resf, cellsf, data, elapsed, reps, ours_ver, up_ver, ours_merge = sys.argv[1:9]
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


names = [c[0] for c in cells]
L = ["# Benchmark: deferred user callchains in perf script and perf report", ""]
L.append("Written by `tests/bench/run.sh` (`make bench`) on %s, %d s in all, on %d CPUs. "
         "Ours: `%s` (--no-merge-callchains: %s); upstream: `%s` (Debian sid's linux-perf, "
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
                 "%d / %d" % (s["bytes"] >> 20, (s["floor_bytes"] or 0) >> 20)])
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
L.append("perf report has no --no-merge-callchains (upstream 7.2 neither); there the floor "
         "file is the baseline.")
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
             "ours %s%s; upstream 7.2 %s." % (
                 n, o, "" if ok is None else (" (met)" if ok <= 1.5 else " (MISSED)"), u))
mem = []
for n in names:
    a, b = res.get((n, "ours", "script", "merged")), res.get((n, "ours", "script", "nomerge"))
    if a and b and a[1] and b[1]:
        mem.append("%s %+d MB" % (n, (a[1] - b[1]) / 1024))
if mem:
    L.append("- memory grows with pending samples, not with file length: ours merged minus "
             "no-merge peak RSS (perf script): %s." % ", ".join(mem))
print("\n".join(L))
