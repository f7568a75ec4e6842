"""py_binding_dump.py - what perf's Python binding gives a program that reads
a perf.data file itself (not a perf script -s script):

    PYTHONPATH=DIR python3 py_binding_dump.py PERF.DATA

with DIR the perf build's python/ directory.  Prints one line per sample,
"TID TIME IP IP ...", the IPs of its callchain as the binding resolves it,
innermost first: the format tests/e2e/python-binding-merged.sh also makes of
`perf script -F tid,time,ip --ns`.
"""
import sys

import perf


def main():
    out = sys.stdout

    def sample(s):
        ips = " ".join("%x" % node.ip for node in (s.callchain or []))
        out.write(("%d %d %s" % (s.sample_tid, s.sample_time, ips)).rstrip() + "\n")

    perf.session(perf.data(sys.argv[1]), sample=sample).process_events()


if __name__ == "__main__":
    main()
