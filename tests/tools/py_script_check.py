#!/usr/bin/env python3
"""py_script_check.py - checks of tests/e2e/script-python.sh: what Python
scripts run by `perf script -s` (and `perf script report gecko|flamegraph`)
see of a recording with deferred user callchains.

  py_script_check.py merged DUMP TEXT STATS
      DUMP (tests/tools/py_dump.py, merged delivery) against TEXT
      (`perf script -F tid,time,ip --ns` of the same file, -F tid,ip
      for recordings without time): the same
      samples with the same callchains, no record, no cookie; user frames
      in >= 99 % of the samples that have a user part (STATS:
      analysis/NAME.stats.json) and in no fewer than the samples that
      have their record or an ordinary callchain; user
      frames only after the kernel frames; the workload's functions named.
  py_script_check.py nomerge DUMP MERGED_DUMP STATS
      DUMP of --no-merge-callchains: every deferred sample has its
      deferred_cookie and only kernel frames (no cookie frame), every
      record reaches callchain_deferred(); joining each sample with the
      record of its (tid, cookie) gives MERGED_DUMP's callchains (their
      addresses).
  py_script_check.py gecko OUT.json FUNC...
      `perf script report gecko --save-only OUT.json`: >= 99 % of the
      samples of the workload's threads have user frames, root first (user
      frames before kernel frames from the root), the workload's functions
      named, each FUNC among them.
  py_script_check.py flamegraph OUT.json FUNC...
      `perf script report flamegraph -f json`: the same on the tree.

Prints one summary line; exit status 1 if a check fails.
"""
import json
import re
import sys

KERNEL = 0xffff800000000000
# the comms of the fixtures' workloads (tests/fixtures/real-7.2/src)
WORKLOADS = ("st_syscalls", "mt_syscalls", "long_syscalls", "mixed")


def load_dump(path):
    samples, records = [], []
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            (samples if e["k"] == "s" else records).append(e)
    return samples, records


def is_user(frame):
    return frame[0] < KERNEL


def order_ok(frames):
    """innermost first: kernel frames, then user frames"""
    seen_user = False
    for fr in frames:
        if is_user(fr):
            seen_user = True
        elif seen_user:
            return False
    return True


def parse_text(path):
    """`perf script -F tid,time,ip --ns` (or -F tid,ip): [(tid, time_ns, [ips])]"""
    out = []
    # no time in per-thread recordings (-F tid,ip): None
    head = re.compile(r'^\s*(-?\d+)(?:\s+(\d+)\.(\d{9}):)?\s*$')
    with open(path) as f:
        for line in f:
            if line.startswith("\t"):
                if line.strip() and out:
                    out[-1][2].append(int(line.split()[0], 16))
                continue
            m = head.match(line)
            if m:
                t = int(m.group(2)) * 10**9 + int(m.group(3)) if m.group(2) else None
                out.append((int(m.group(1)), t, []))
    return out


def workload_named(frames):
    return any(is_user(fr) and fr[1] and (fr[2] or "").startswith("/fixtures/bin/")
               for fr in frames)


def merged(dump, text, stats_path):
    st = json.load(open(stats_path))
    samples, records = load_dump(dump)
    txt = parse_text(text)
    errs = []
    if records:
        errs.append(f"{len(records)} records reached callchain_deferred() in merged mode")
    cookies = sum(1 for s in samples if s["cookie"] is not None)
    if cookies:
        errs.append(f"{cookies} samples with deferred_cookie in merged mode")
    if len(samples) != st["samples"]:
        errs.append(f"{len(samples)} samples, the file has {st['samples']}")
    if len(txt) != len(samples):
        errs.append(f"{len(samples)} samples, perf script text has {len(txt)}")
    diff = 0
    for s, t in zip(samples, txt):
        # perf script prints tid -1, the script gets it as a u32
        tid = s["tid"] - (1 << 32) if s["tid"] >= 1 << 31 else s["tid"]
        if (tid, s["time"] if t[1] is not None else None,
                [fr[0] for fr in s["frames"]]) != t:
            diff += 1
            if diff <= 3:
                errs.append(f"sample tid {s['tid']} time {s['time']}: "
                            f"{[hex(fr[0]) for fr in s['frames']]} != text {t[0]} {t[1]} {[hex(i) for i in t[2]]}")
    if diff:
        errs.append(f"{diff} samples differ from the text output")
    with_user = [s for s in samples if any(is_user(fr) for fr in s["frames"])]
    can = st["samples"] - st["samples_without_user_part"]
    ratio = len(with_user) / can if can else 1.0
    # matched with their record in file order, plus ordinary callchains
    least = st["samples_matched"] + st["samples_with_inline_USER_ctx"]
    if ratio < 0.99:
        errs.append(f"user frames in {len(with_user)} of {can} samples with a user part ({ratio:.1%} < 99 %)")
    if len(with_user) < least:
        errs.append(f"user frames in {len(with_user)} samples, {least} have their record or "
                    f"an ordinary callchain")
    bad_order = sum(1 for s in samples if not order_ok(s["frames"]))
    if bad_order:
        errs.append(f"{bad_order} samples with a kernel frame after a user frame")
    named = sum(1 for s in with_user if workload_named(s["frames"]))
    # (the few samples taken during an exec: [unknown], see docs/design.md)
    if len(with_user) - named > max(10, 0.05 * len(with_user)):
        errs.append(f"only {named} of {len(with_user)} samples name a function of the workload")
    summary = (f"{len(samples)} samples, {len(with_user)} with user frames "
               f"({ratio:.2%} of the {can} with a user part, >= {least} matched), "
               f"{named} naming the workload's functions, same chains as perf script")
    return summary, errs


def nomerge(dump, merged_dump, stats_path):
    st = json.load(open(stats_path))
    samples, records = load_dump(dump)
    msamples, _ = load_dump(merged_dump)
    errs = []
    deferred = [s for s in samples if s["cookie"] is not None]
    if len(deferred) != st["samples_with_USER_DEFERRED"]:
        errs.append(f"{len(deferred)} samples with deferred_cookie, the file has "
                    f"{st['samples_with_USER_DEFERRED']} deferred samples")
    if len(records) != st["deferred_records"]:
        errs.append(f"{len(records)} records reached callchain_deferred(), the file has "
                    f"{st['deferred_records']}")
    bad = [s for s in deferred
           if any(fr[0] == s["cookie"] or is_user(fr) for fr in s["frames"])]
    if bad:
        errs.append(f"{len(bad)} deferred samples with a user or cookie frame: "
                    f"{bad[0]['frames'][-2:]} cookie {bad[0]['cookie']:#x}")
    recs = {}
    for r in records:
        recs[(r["tid"], r["cookie"])] = r
        if any(not is_user(fr) for fr in r["frames"]):
            errs.append(f"record tid {r['tid']} cookie {r['cookie']:#x} has kernel frames")
            break
    if len(samples) != len(msamples):
        errs.append(f"{len(samples)} samples raw, {len(msamples)} merged")
    joined = same = 0
    # merged delivery has the samples past their reorder window (blocked
    # tasks) and of an exec'd thread at their record: pair by time and tid
    def key(x):
        return (x["time"] if x["time"] is not None else 0, x["tid"])
    for s, m in zip(sorted(samples, key=key), sorted(msamples, key=key)):
        chain = s["frames"]
        if s["cookie"] is not None and (s["tid"], s["cookie"]) in recs:
            chain = chain + recs[(s["tid"], s["cookie"])]["frames"]
            joined += 1
        # addresses: the user frames of samples taken during an exec are
        # resolved against the maps at the sample's time when merged (see
        # docs/design.md), at the record's time when raw
        if ((s["tid"], s["time"], [fr[0] for fr in chain]) ==
                (m["tid"], m["time"], [fr[0] for fr in m["frames"]])):
            same += 1
        elif len(errs) < 4:
            errs.append(f"tid {s['tid']} time {s['time']}: joined chain differs from the merged one")
    if same != len(msamples):
        errs.append(f"{len(msamples) - same} samples joined by (tid, cookie) differ from merged delivery")
    summary = (f"{len(samples)} samples, {len(deferred)} with deferred_cookie and kernel frames "
               f"only, {len(records)} records to callchain_deferred(); {joined} joined by "
               f"(tid, cookie), {same} equal to merged delivery")
    return summary, errs


def gecko(path, want):
    d = json.load(open(path))
    errs = []
    total = with_user = bad_order = named = 0
    funcs = set()
    for t in d["threads"]:
        strings = t["stringTable"]
        frames = t["frameTable"]["data"]
        fschema = t["frameTable"]["schema"]
        stacks = t["stackTable"]["data"]
        sschema = t["stackTable"]["schema"]
        for smp in t["samples"]["data"]:
            stack = smp[t["samples"]["schema"]["stack"]]
            names = []
            while stack is not None:
                fr = frames[stacks[stack][sschema["frame"]]]
                names.append(strings[fr[fschema["location"]]])
                stack = stacks[stack][sschema["prefix"]]
            names.reverse()     # root first
            if t["name"] not in WORKLOADS:
                continue
            total += 1
            user = ["kallsyms" not in n for n in names]
            if any(user):
                with_user += 1
            if user and any(user[i] and not user[i - 1] for i in range(1, len(user))):
                bad_order += 1
            w = [n for n in names if "(in /fixtures/bin/" in n]
            if w:
                named += 1
                funcs.update(n.split(" (in ")[0] for n in w)
    if not total:
        errs.append("no sample of the workload")
        return "", errs
    if with_user < 0.99 * total:
        errs.append(f"user frames in {with_user} of {total} samples (< 99 %)")
    if bad_order:
        errs.append(f"{bad_order} stacks with a user frame after a kernel frame from the root")
    if named < 0.99 * total:
        errs.append(f"{named} of {total} samples name the workload's functions")
    if set(want) - funcs:
        errs.append(f"no frame of {', '.join(sorted(set(want) - funcs))}")
    return (f"{total} samples of the workload, {with_user} with user frames, {named} naming "
            f"its functions ({', '.join(want)}...), user frames at the root"), errs


def flamegraph(path, want):
    root = json.load(open(path))
    errs = []
    total = with_user = bad_order = 0
    funcs = set()

    def walk(node, path):
        nonlocal total, with_user, bad_order
        path = path + [node]
        if node.get("v", 0) and len(path) > 2:
            frames = path[2:]     # below "all" and the comm
            # "COMM (PID)"
            if path[1]["n"].split(" (")[0] in WORKLOADS:
                n = node["v"]
                total += n
                user = [f["l"] != "kernel" for f in frames]
                if any(u and f["n"] != "[unknown]" for u, f in zip(user, frames)):
                    with_user += n
                if any(user[i] and not user[i - 1] for i in range(1, len(user))):
                    bad_order += n
                funcs.update(f["n"] for f in frames if f["l"] != "kernel")
        for c in node.get("c", []):
            walk(c, path)

    walk(root, [])
    if not total:
        errs.append("no sample of the workload")
    elif with_user < 0.99 * total:
        errs.append(f"user frames in {with_user} of {total} samples (< 99 %)")
    if bad_order:
        errs.append(f"{bad_order} samples with a user frame after a kernel frame from the root")
    if set(want) - funcs:
        errs.append(f"no frame of {', '.join(sorted(set(want) - funcs))}")
    return (f"{total} samples of the workload, {with_user} with named user frames root first "
            f"({', '.join(want)}...)"), errs


def main():
    mode = sys.argv[1]
    if mode == "merged":
        summary, errs = merged(*sys.argv[2:5])
    elif mode == "nomerge":
        summary, errs = nomerge(*sys.argv[2:5])
    elif mode == "gecko":
        summary, errs = gecko(sys.argv[2], sys.argv[3:])
    elif mode == "flamegraph":
        summary, errs = flamegraph(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(f"unknown mode {mode}")
    if errs:
        print("; ".join(errs[:6]))
        sys.exit(1)
    print(summary)


if __name__ == "__main__":
    main()
