#!/usr/bin/env python3
"""exec_samples.py - the samples of a recording with deferred user callchains
whose user stack was unwound in a program their thread exec'd into.

  exec_samples.py RAW > KEYS

RAW is `perf script --no-merge-callchains --show-task-events -F
comm,tid,time,event,ip,sym` of the recording.  For every COMM exec of a
thread, the first CALLCHAIN_DEFERRED record of that thread after it carries
the user stack of the kernel entry that exec'd: every sample of the thread
with that record's cookie is printed as "TID TIME", one a line.  Merged
delivery resolves those samples in the new program at their record; a
file written with their full callchains has them at their own time, before
the new program's MMAPs (docs/design.md, known limitations).
"""
import re
import sys

HDR = re.compile(r"^\s*\S.*?\s+(\d+)\s+(\d+\.\d+):\s+(.*)$")
EXEC = re.compile(r"PERF_RECORD_COMM exec:")
REC = re.compile(r"DEFERRED CALLCHAIN \[cookie: ([0-9a-fA-F]+)\]")
COOKIE = re.compile(r"^\s+([0-9a-fA-F]+) \(cookie\)")


def main(argv):
    execs = {}          # tid -> [exec times]
    records = {}        # tid -> [(time, cookie)]
    samples = []        # (tid, time text, cookie)
    cur = None
    for line in open(argv[1]):
        m = HDR.match(line)
        if m:
            tid, t, rest = int(m.group(1)), m.group(2), m.group(3)
            cur = None
            if EXEC.search(rest):
                execs.setdefault(tid, []).append(float(t))
            elif REC.search(rest):
                records.setdefault(tid, []).append((float(t), REC.search(rest).group(1)))
            else:
                cur = [tid, t, None]
                samples.append(cur)
            continue
        c = COOKIE.match(line)
        if c and cur is not None:
            cur[2] = c.group(1)
    cookies = set()
    for tid, times in execs.items():
        for t in times:
            after = [c for (rt, c) in records.get(tid, []) if rt >= t]
            if after:
                cookies.add((tid, after[0]))
    for tid, t, c in samples:
        if c is not None and (tid, c) in cookies:
            print(tid, t)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
