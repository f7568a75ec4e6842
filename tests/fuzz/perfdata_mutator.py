#!/usr/bin/python3
"""perfdata_mutator.py - AFL++ custom mutator for perf's event stream.

Fuzzes what perf does with the events of a recording - sample parsing, the
validation of PERF_RECORD_CALLCHAIN_DEFERRED (22), merging deferred user
callchains, time ordering, thread life (COMM/FORK/EXIT) and callchain
resolution - in the real perf binary (`perf script -i FILE`), not in a copy.

A fuzz input is one selector byte then the body of a pipe-mode perf.data
stream (events, no header).  post_process() turns it into the file perf
reads: the selector picks one of the fixed "prefixes" (pipe header,
HEADER_ATTR and the other header events of a real or generated recording,
never mutated: perf's header parsing is not what is fuzzed here), and the
body is repaired just enough to reach the event code: sizes are multiples
of 8 and at least 8, and event types are mapped onto the kernel records
that matter (and FINISHED_ROUND).  Nothing else is repaired: perf checks
every record against its type itself (short records, sample_id trailers,
strings, MMAP ranges, build id sizes, FORKs of a thread's own tid: the
base bugs of tests/fuzz/README.md the mutator used to steer around).  A
truncated last event stays truncated.

fuzz() adds event-aware mutations to AFL's own: duplicate, drop, swap or
move events (records before their samples, duplicate records), splice
events of another input, set a u64 of an event to an interesting value
(PERF_CONTEXT_USER_DEFERRED and the other context markers, nr 0, 510, 511,
8189, huge values) or to a u64 taken from another event (a cookie, tid or
time that exists elsewhere), resize an event, change the selector.

Environment: PERF_FUZZ_PREFIXES, the directory of prefix files (*.prefix,
sorted by name; the selector byte is an index modulo their number).

Command line (used by scripts/fuzz.sh):
  perfdata_mutator.py seeds OUTDIR PIPEFILE...  write OUTDIR/prefixes/NAME.prefix
                                                and OUTDIR/seeds/NAME (selector+body)
  perfdata_mutator.py wrap IN OUT               fuzz input -> perf.data (pipe mode)
"""
import os
import random
import struct
import sys

# kernel records reaching the deferred callchain code (and FINISHED_ROUND)
TYPES = (1, 2, 3, 4, 5, 6, 7, 9, 10, 13, 14, 15, 22, 68)
INTERESTING = (
    2**64 - 640,  # PERF_CONTEXT_USER_DEFERRED
    2**64 - 512,  # PERF_CONTEXT_USER
    2**64 - 128,  # PERF_CONTEXT_KERNEL
    2**64 - 4095,  # PERF_CONTEXT_MAX
    2**64 - 1,
    0, 1, 2, 3, 510, 511, 512, 8189, 8190,
    2**61 - 1, 2**61, 2**63, 2**32 - 1, 2**32,
)

_prefixes = None
_rng = random.Random(0)
_kept = {}


def _keep(what, buf):
    # afl-fuzz 4.04 uses the returned buffer after dropping its reference
    # to it, sometimes after more calls than one (it crashed in libc after
    # 60 s and after 12 minutes keeping only the last one): keep the last
    # 16 of each kind
    q = _kept.setdefault(what, [])
    q.append(buf)
    del q[:-16]
    return buf


def prefixes():
    global _prefixes
    if _prefixes is None:
        d = os.environ.get("PERF_FUZZ_PREFIXES", "")
        names = sorted(n for n in os.listdir(d) if n.endswith(".prefix")) if d else []
        _prefixes = [open(os.path.join(d, n), "rb").read() for n in names]
        if not _prefixes:
            raise RuntimeError("PERF_FUZZ_PREFIXES: no *.prefix files in %r" % d)
    return _prefixes


def split(body):
    """Events of a body as a list of bytearrays (the last may be short)."""
    evs, off = [], 0
    while off + 8 <= len(body):
        size = struct.unpack_from("<H", body, off + 6)[0]
        size = max(8, size & ~7)
        evs.append(bytearray(body[off:off + size]))
        off += size
    if off < len(body):
        evs.append(bytearray(body[off:]))
    return evs


def repair(ev):
    if len(ev) < 8:
        return ev
    typ, misc, size = struct.unpack_from("<IHH", ev, 0)
    if typ not in TYPES:
        typ = TYPES[typ % len(TYPES)]
    size = max(8, size & ~7)
    struct.pack_into("<IHH", ev, 0, typ, misc, size)
    return ev


def post_process(buf):
    buf = bytes(buf)
    if not buf:
        buf = b"\0"
    pre = prefixes()
    evs = split(buf[1:])
    out = bytearray(pre[buf[0] % len(pre)] + b"".join(repair(e) for e in evs))
    return _keep("post", out)


def init(seed):
    _rng.seed(seed)


def deinit():
    pass


def describe(max_description_length):
    # names queue and crash files (afl-fuzz 4.04 crashes without it)
    return _keep("describe", b"perfdata"[:max_description_length])


def _u64_slots(ev):
    return list(range(8, len(ev) - 7, 8))


def fuzz(buf, add_buf, max_size):
    buf = bytes(buf) or b"\0"
    sel, evs = buf[0], split(buf[1:])
    other = split(bytes(add_buf)[1:]) if add_buf else []
    r = _rng
    for _ in range(r.randint(1, 4)):
        op = r.randrange(10)
        if op == 0 or not evs:
            sel = r.randrange(256)
            if not evs and other:
                evs = [bytearray(e) for e in other[:8]]
            continue
        i = r.randrange(len(evs))
        if op == 1:  # duplicate an event, somewhere after it
            evs.insert(r.randint(i, len(evs)), bytearray(evs[i]))
        elif op == 2 and len(evs) > 1:  # drop
            del evs[i]
        elif op == 3:  # swap with a neighbour
            j = min(len(evs) - 1, i + r.randint(1, 3))
            evs[i], evs[j] = evs[j], evs[i]
        elif op == 4:  # move far (a record before its samples, or late)
            e = evs.pop(i)
            evs.insert(r.randrange(len(evs) + 1), e)
        elif op == 5 and other:  # splice events of another input
            k = r.randrange(len(other))
            evs[i:i] = [bytearray(e) for e in other[k:k + r.randint(1, 4)]]
        elif op in (6, 7):  # a u64 slot: interesting value
            s = _u64_slots(evs[i])
            if s:
                struct.pack_into("<Q", evs[i], r.choice(s), r.choice(INTERESTING))
        elif op == 8:  # a u64 slot: a value from another event (cookie, tid, time)
            s, j = _u64_slots(evs[i]), r.randrange(len(evs))
            t = _u64_slots(evs[j])
            if s and t:
                v = struct.unpack_from("<Q", evs[j], r.choice(t))[0]
                if r.random() < 0.3:
                    v = (v + r.choice((-1, 1, 2))) % 2**64
                struct.pack_into("<Q", evs[i], r.choice(s), v)
        elif op == 9 and len(evs[i]) >= 8:  # resize (size field and bytes)
            n = max(8, len(evs[i]) + 8 * r.choice((-2, -1, 1, 2)))
            e = evs[i][:n] + bytearray(max(0, n - len(evs[i])))
            struct.pack_into("<H", e, 6, n & 0xffff)
            evs[i] = e
    out = bytes([sel]) + b"".join(bytes(e) for e in evs)
    return _keep("fuzz", bytearray(out[:max_size]))


# ------------------------------------------------------------------ CLI --
def make_seeds(outdir, files):
    """Prefix = pipe header + the user-type events before the first kernel
    event; seed body = a few of the kernel events (all side-band, the
    first samples and records)."""
    os.makedirs(os.path.join(outdir, "prefixes"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "seeds"), exist_ok=True)
    names = sorted(os.path.splitext(os.path.basename(f))[0] for f in files)
    for f in files:
        name = os.path.splitext(os.path.basename(f))[0]
        b = open(f, "rb").read()
        off = 16
        while off + 8 <= len(b):
            typ, _, size = struct.unpack_from("<IHH", b, off)
            if typ < 64 or size < 8:
                break
            off += size
        # the header events, HEADER_FEATUREs (80) included: the CPU
        # topology makes perf look samples' CPUs up in it
        prefix = bytearray(b[:off])
        body = []
        counts = {}
        while off + 8 <= len(b):
            typ, _, size = struct.unpack_from("<IHH", b, off)
            if size < 8:
                break
            key = typ if typ in (9, 22) else "other"
            counts[key] = counts.get(key, 0) + 1
            if typ in TYPES and counts[key] <= (24 if key != "other" else 40):
                body.append(b[off:off + size])
            off += size
        with open(os.path.join(outdir, "prefixes", name + ".prefix"), "wb") as o:
            o.write(prefix)
        with open(os.path.join(outdir, "seeds", name), "wb") as o:
            o.write(bytes([names.index(name)]) + b"".join(body))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "seeds":
        make_seeds(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == "wrap":
        data = open(sys.argv[2], "rb").read()
        with open(sys.argv[3], "wb") as o:
            o.write(post_process(data))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
