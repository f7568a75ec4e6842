#!/usr/bin/env python3
"""convert_check.py - check `perf data convert` output against `perf script`.

Both describe the same samples; the converters must give each sample the
callchain perf script shows (merged, for recordings with deferred user
callchains), with the user frames as user frames:

  convert_check.py json OUT.json SCRIPT
      OUT.json from `perf data convert --to-json`: per sample, the
      callchain's ips are the frame addresses perf script prints, and each
      frame's symbol is the one perf script names ("[unknown]": none).  A
      user address resolved as a kernel one (what perf 7.2 does after
      "invalid callchain context: -640") has no symbol there.

  convert_check.py ctf BABELTRACE.txt SCRIPT
      BABELTRACE.txt from `babeltrace DIR` of `perf data convert
      --to-ctf DIR`: per sample, perf_callchain holds the raw callchain,
      context markers included.  No PERF_CONTEXT_USER_DEFERRED, and no
      kernel address after PERF_CONTEXT_USER; without the markers, the
      addresses perf script prints.

  convert_check.py json OUT.json SCRIPT --kernel-addresses
      the same, but kernel frames are compared by address only (perf 7.2's
      JSON converter names kernel addresses from another symbol table than
      perf script --kallsyms, on files without deferred callchains too).

SCRIPT is the output of `perf script` (default fields) on the same file.
Samples are matched by (tid, time to the microsecond; by tid alone
without timestamps), any order among those with the same key.  Consecutive repeats of an address count once
(perf script prints an inlined frame twice).  Prints what was compared,
the first differences, exits 1 if any.
"""

import json
import re
import sys
from collections import defaultdict

FRAME = re.compile(r'^\s+([0-9a-f]+) (.*) \((.*)\)$')
# the time is missing in per-thread recordings (no PERF_SAMPLE_TIME)
HEADER = re.compile(r'^(?P<comm>.*?)\s+(?P<tid>-?\d+)(?:/-?\d+)?\s+(?:\[\d+\]\s+)?(?:(?P<time>\d+\.\d+):)?')
CONTEXT_MAX = 0xfffffffffffff001       # (u64)-4095
CONTEXT_USER = 0xfffffffffffffe00
CONTEXT_USER_DEFERRED = 0xfffffffffffffd80
KERNEL_START = 0xffff800000000000


def dedup(frames):
    out = []
    for f in frames:
        if not out or out[-1][0] != f[0]:
            out.append(f)
    return out


def parse_script(text):
    """{(tid, time): [[(ip, symbol or None)], ...]}"""
    samples = defaultdict(list)
    cur = None
    for ln in text.splitlines():
        if not ln.strip():
            cur = None
            continue
        if not ln[0].isspace():
            m = HEADER.match(ln)
            if not m:
                raise ValueError('not a sample header: %r' % ln)
            cur = []
            samples[(int(m.group('tid')), m.group('time'))].append(cur)
            continue
        m = FRAME.match(ln)
        if m and cur is not None:
            sym = re.sub(r'\+0x[0-9a-f]+$', '', m.group(2))
            cur.append((int(m.group(1), 16), None if sym == '[unknown]' else sym))
    return {k: [dedup(s) for s in v] for k, v in samples.items()}


def usec(ns):
    if ns <= 0 or ns >= 1 << 63:
        return None
    return '%d.%06d' % (ns // 1000000000, ns % 1000000000 // 1000)


def parse_json(text):
    samples = defaultdict(list)
    for s in json.loads(text)['samples']:
        frames = [(int(f['ip'], 16), f.get('symbol')) for f in s['callchain']]
        samples[(s['tid'], usec(s['timestamp']))].append(dedup(frames))
    return samples


BT = re.compile(r'^\[(\d+):(\d+):(\d+)\.(\d+)\].*perf_tid = (-?\d+),.*perf_callchain = \[ ?(.*?) ?\] \}')


def parse_ctf(text, errors):
    samples = defaultdict(list)
    for ln in text.splitlines():
        m = BT.match(ln)
        if not m:
            continue
        h, mi, s, ns = (int(x) for x in m.group(1, 2, 3, 4))
        key = (int(m.group(5)), usec(((h * 60 + mi) * 60 + s) * 1000000000 + ns))
        chain = [int(x.split(' = ')[1], 16) for x in m.group(6).split(', ') if x]
        user = False
        frames = []
        for ip in chain:
            if ip == CONTEXT_USER_DEFERRED:
                errors.append('%s: PERF_CONTEXT_USER_DEFERRED in %s' % (key, chain))
            if ip >= CONTEXT_MAX:
                user = ip == CONTEXT_USER
                continue
            if user and ip >= KERNEL_START:
                errors.append('%s: kernel address %#x after PERF_CONTEXT_USER' % (key, ip))
            frames.append((ip, None))
        samples[key].append(dedup(frames))
    return samples


def main():
    kind, conv, script = sys.argv[1:4]
    kernel_addresses = sys.argv[4:] == ['--kernel-addresses']
    errors = []
    a = parse_script(open(script).read())
    if kind == 'json':
        b = parse_json(open(conv).read())
        if kernel_addresses:
            def anon(d):
                return {k: [[(ip, None if ip >= KERNEL_START else sym) for ip, sym in s]
                             for s in v] for k, v in d.items()}
            a, b = anon(a), anon(b)
    else:
        b = parse_ctf(open(conv).read(), errors)
        a = {k: [[(ip, None) for ip, _ in s] for s in v] for k, v in a.items()}
    if all(t is None for _, t in a):
        # no timestamps in the file: whatever time the converter made up
        rekeyed = defaultdict(list)
        for (tid, _), v in b.items():
            rekeyed[(tid, None)].extend(v)
        b = rekeyed
    na = sum(len(v) for v in a.values())
    nb = sum(len(v) for v in b.values())
    if na != nb:
        errors.append('%d samples in perf script, %d in the %s output' % (na, nb, kind))
    user = 0
    for key in sorted(set(a) | set(b), key=repr):
        sa, sb = sorted(a.get(key, []), key=repr), sorted(b.get(key, []), key=repr)
        if sa != sb:
            errors.append('%s %s: perf script %s, %s %s' % (key[0], key[1], sa, kind, sb))
        user += sum(1 for s in sb if any(ip < KERNEL_START and sym for ip, sym in s))
    print('%s: %d samples compared%s' %
          (kind, nb, ', %d with named user frames' % user if kind == 'json' else ''))
    for e in errors[:5]:
        print('  ' + e[:600])
    if errors:
        print('%d differences' % len(errors))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
