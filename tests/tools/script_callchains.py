"""script_callchains.py - `perf script -F tid,time,ip --ns` (stdin) as one line
per sample, "TID TIME IP IP ...", innermost first: the format of
py_binding_dump.py.  A sample without time (--per-thread) gets the time perf
leaves in it, (u64)-1.
"""
import re
import sys

HEAD = re.compile(r"^\s*(-?\d+)\s+(?:(\d+)\.(\d{9}):)?\s*$")
FRAME = re.compile(r"^\s+([0-9a-f]+)(?:\s.*)?$")


def main():
    cur = None
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = HEAD.match(line)
        if m:
            if cur:
                print(" ".join(cur))
            t = (int(m.group(2)) * 10**9 + int(m.group(3))) if m.group(2) else 2**64 - 1
            cur = [m.group(1), str(t)]
            continue
        m = FRAME.match(line)
        if m and cur is not None:
            cur.append(m.group(1))
    if cur:
        print(" ".join(cur))


if __name__ == "__main__":
    main()
