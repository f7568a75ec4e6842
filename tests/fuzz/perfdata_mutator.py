#!/usr/bin/python3
"""perfdata_mutator.py - AFL++ custom mutator for perf.data, file and pipe mode.

Fuzzes what perf does with a recording - the file header, the attrs and
their ids, the header features, and the events: sample parsing, the
validation of PERF_RECORD_CALLCHAIN_DEFERRED (22), merging deferred user
callchains, time ordering, thread life and callchain resolution - in the
real perf binary (`perf script -i FILE`), not in a copy.  PERF_FUZZ_MODE
(environment) says which kind of input this instance fuzzes:

file: a fuzz input is a whole perf.data file, exactly what perf reads.
  fuzz() knows its structure (perf_file_header: the attrs, data and
  event_types sections and the feature bitmap; the perf_file_attrs and
  their id arrays; the feature table after the data and each feature's
  contents; the events of the data section), edits it and lays the file
  out again, then (often) makes a header field lie: a section offset or
  size, attr_size, a feature bit, a feature's offset or size, an attr's
  ids section set to a value that does not fit (0, +-1, +-8, the file
  size, huge, another field's value).  Edits: the events as in pipe mode
  below; an attr field (type, size, config, sample_type and read_format
  bits, the flag bits: sample_id_all, defer_callchain, defer_output...,
  any u64/u32 slot); attrs duplicated, dropped or taken from another
  input; ids dropped, added, duplicated across attrs, set to interesting
  values; a feature dropped, emptied, cut, grown, its NULs removed, a u32
  or u64 of it (the counts) set to an interesting value, taken from
  another input, or an unknown feature bit set.  An input that does not
  parse any more gets only AFL's own mutations and the header lies.
  post_process() repairs nothing but the magic: an input whose first 8
  bytes are none of perf's magics (PERFILE2, its byte swap for the other
  endianness, the legacy PERFFILE) gets PERFILE2 back (else every input
  AFL breaks there would be rejected at once).  Sizes, offsets and counts
  are never fixed: perf must check them.

pipe: a fuzz input is a selector byte and the body of a pipe-mode stream
  (events after the 16-byte pipe header).  Selector < 0x80: post_process()
  puts one of the fixed "prefixes" in front (pipe header, HEADER_ATTR and
  the other header events of a real or generated recording), which keeps
  the fuzzing on the events of valid attrs.  Selector >= 0x80: the body is
  the whole stream after the pipe header (HEADER_ATTR, HEADER_FEATURE,
  EVENT_UPDATE, ... are in the body and mutated like any event), behind a
  little-endian pipe header, or a big-endian one with bit 0x40 (the seeds
  of an other-endian stream).  Nothing is repaired: sizes (not multiples
  of 8, below 8), types (any value) and the last event cut short stay as
  they are; perf checks every record itself (short records, sample_id
  trailers, strings, MMAP ranges, build id sizes, FORKs of a thread's own
  tid: the base bugs of tests/fuzz/README.md the mutator used to steer
  around, and the mapping of types onto the records of the event path and
  the rounding of sizes it did until now).

fuzz() in both modes adds event-aware mutations to AFL's own: duplicate,
drop, swap or move events (records before their samples, duplicate
records), splice events of another input, set a u64 of an event to an
interesting value (PERF_CONTEXT_USER_DEFERRED and the other context
markers, nr 0, 510, 511, 8189, huge values) or to a u64 taken from another
event (a cookie, tid or time that exists elsewhere), resize an event, set
its type to any record type, change the selector (pipe).

Environment: PERF_FUZZ_MODE (file or pipe; default pipe);
PERF_FUZZ_PREFIXES (pipe mode), the directory of prefix files (*.prefix,
sorted by name; the selector byte is an index modulo their number).

Command line (used by scripts/fuzz.sh):
  perfdata_mutator.py seeds OUTDIR PIPEFILE...  write OUTDIR/prefixes/NAME.prefix,
                                                OUTDIR/seeds/NAME (selector+body)
                                                and OUTDIR/seeds/NAME.whole
  perfdata_mutator.py cut [-n N] IN OUT         a file-mode perf.data cut to its
                                                side-band events and first N
                                                samples and records (default 16),
                                                features kept (file-mode seeds)
  perfdata_mutator.py wrap IN OUT               fuzz input -> perf.data (the mode
                                                of PERF_FUZZ_MODE)
"""
import os
import random
import struct
import sys

# every record type perf knows (kernel 1-22, perf's own 64-83): the "set
# type" mutation picks one; nothing maps the types of an input
TYPES = tuple(range(1, 23)) + tuple(range(64, 84))
INTERESTING = (
    2**64 - 640,  # PERF_CONTEXT_USER_DEFERRED
    2**64 - 512,  # PERF_CONTEXT_USER
    2**64 - 128,  # PERF_CONTEXT_KERNEL
    2**64 - 4095,  # PERF_CONTEXT_MAX
    2**64 - 1,
    0, 1, 2, 3, 510, 511, 512, 8189, 8190,
    2**61 - 1, 2**61, 2**63, 2**32 - 1, 2**32,
)
INTERESTING32 = (0, 1, 2, 3, 7, 8, 16, 64, 255, 256, 4095, 4096, 65535, 65536,
                 2**31 - 1, 2**31, 2**32 - 1, 2**32 - 8, 2**32 - 16)
MAGICS = (b"PERFILE2", b"2ELIFREP", b"PERFFILE")
PIPE_HDR = {"<": b"PERFILE2" + struct.pack("<Q", 16), ">": b"2ELIFREP" + struct.pack(">Q", 16)}
FILE_HDR_SIZE = 104
# perf_event_attr: (offset, width) of its fields, and the bits worth flipping
ATTR_FIELDS = ((0, 4), (4, 4), (8, 8), (16, 8), (24, 8), (32, 8), (40, 8), (48, 4),
               (52, 4), (56, 8), (64, 8), (72, 8), (80, 8), (88, 4), (92, 4), (96, 8),
               (104, 4), (108, 2), (112, 4), (116, 2), (120, 8), (128, 8), (136, 8))
ATTR_SIZES = (0, 8, 63, 64, 72, 80, 96, 104, 112, 120, 128, 136, 144, 152, 160, 4096, 65535)

_prefixes = None
_rng = random.Random(0)
_kept = {}


def mode():
    return os.environ.get("PERF_FUZZ_MODE", "pipe")


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


def split(body, e="<"):
    """Events of a body as a list of bytearrays, cut where their size
    fields say (a size below 8 counts as 8 here, so that the mutations can
    go on past it; the bytes are not changed).  The last may be short."""
    evs, off = [], 0
    while off + 8 <= len(body):
        size = max(8, struct.unpack_from(e + "H", body, off + 6)[0])
        evs.append(bytearray(body[off:off + size]))
        off += size
    if off < len(body):
        evs.append(bytearray(body[off:]))
    return evs


def _u64_slots(ev):
    return list(range(8, len(ev) - 7, 8))


def mutate_events(evs, other, r, e="<"):
    """One event-level mutation of the list evs (in place)."""
    if not evs:
        if other:
            evs.extend(bytearray(x) for x in other[:8])
        return
    i = r.randrange(len(evs))
    op = r.randrange(10)
    if op == 0:  # duplicate an event, somewhere after it
        evs.insert(r.randint(i, len(evs)), bytearray(evs[i]))
    elif op == 1 and len(evs) > 1:  # drop
        del evs[i]
    elif op == 2:  # swap with a neighbour
        j = min(len(evs) - 1, i + r.randint(1, 3))
        evs[i], evs[j] = evs[j], evs[i]
    elif op == 3:  # move far (a record before its samples, or late)
        x = evs.pop(i)
        evs.insert(r.randrange(len(evs) + 1), x)
    elif op == 4 and other:  # splice events of another input
        k = r.randrange(len(other))
        evs[i:i] = [bytearray(x) for x in other[k:k + r.randint(1, 4)]]
    elif op in (5, 6):  # a u64 slot: interesting value
        s = _u64_slots(evs[i])
        if s:
            struct.pack_into(e + "Q", evs[i], r.choice(s), r.choice(INTERESTING))
    elif op == 7:  # a u64 slot: a value from another event (cookie, tid, time)
        s, j = _u64_slots(evs[i]), r.randrange(len(evs))
        t = _u64_slots(evs[j])
        if s and t:
            v = struct.unpack_from(e + "Q", evs[j], r.choice(t))[0]
            if r.random() < 0.3:
                v = (v + r.choice((-1, 1, 2))) % 2**64
            struct.pack_into(e + "Q", evs[i], r.choice(s), v)
    elif op == 8 and len(evs[i]) >= 8:  # resize (size field and bytes)
        n = max(8, len(evs[i]) + r.choice((-16, -8, -4, -1, 1, 4, 8, 16)))
        x = evs[i][:n] + bytearray(max(0, n - len(evs[i])))
        if r.random() < 0.8:
            struct.pack_into(e + "H", x, 6, n & 0xffff)
        evs[i] = x
    elif op == 9 and len(evs[i]) >= 8:  # any record type
        struct.pack_into(e + "I", evs[i], 0, r.choice(TYPES))


# ------------------------------------------------------------ pipe mode --
def pipe_post(buf):
    buf = bytes(buf) or b"\0"
    sel = buf[0]
    if sel & 0x80:
        head = PIPE_HDR[">" if sel & 0x40 else "<"]
    else:
        pre = prefixes()
        head = pre[sel % len(pre)]
    return bytearray(head + buf[1:])


def pipe_fuzz(buf, add_buf, max_size):
    buf = bytes(buf) or b"\0"
    sel = buf[0]
    e = ">" if sel & 0xc0 == 0xc0 else "<"
    evs = split(buf[1:], e)
    other = split(bytes(add_buf)[1:], e) if add_buf else []
    r = _rng
    for _ in range(r.randint(1, 4)):
        if r.randrange(10) == 0:
            # another prefix, or the whole stream (its header events
            # mutable) in 3 of 10; a big-endian stream stays one
            if sel & 0xc0 != 0xc0:
                sel = r.randrange(128) if r.random() < 0.7 else 0x80
            continue
        mutate_events(evs, other, r, e)
    out = bytes([sel]) + b"".join(bytes(x) for x in evs)
    return bytearray(out[:max_size])


# ------------------------------------------------------------ file mode --
class PerfFile:
    """A perf.data file taken apart: header fields, attrs (bytes of the
    perf_event_attr, ids), events, features [(bit, bytes)]."""

    def __init__(self):
        self.e = "<"
        self.magic = b"PERFILE2"
        self.attrs = []
        self.events = []
        self.features = []
        self.event_types = b""


def parse_file(b):
    """A PerfFile, or None if b is not laid out like a perf.data file.
    Lenient where the layout can still be read (another header size, ids,
    the data section or a feature going past the end: kept up to it, or
    dropped): fuzz() then edits the file and lays it out again, the lie
    gone (AFL's own mutations go on with the input as it is)."""
    if len(b) < FILE_HDR_SIZE or b[:8] not in (b"PERFILE2", b"2ELIFREP"):
        return None
    f = PerfFile()
    f.magic = b[:8]
    e = f.e = "<" if f.magic == b"PERFILE2" else ">"
    _, attr_size, ao, asz, do, dsz, eo, esz = struct.unpack_from(e + "8Q", b, 8)
    bits = struct.unpack_from(e + "4Q", b, 72)
    n = len(b)
    if attr_size < 24 or attr_size > 4096 or asz % attr_size or asz // attr_size > 64:
        return None
    if ao + asz > n or do > n:
        return None
    for k in range(asz // attr_size):
        a = b[ao + k * attr_size:ao + (k + 1) * attr_size]
        io, isz = struct.unpack_from(e + "2Q", a, attr_size - 16)
        if io + isz > n or isz > 65536:
            isz = 0
        ids = [struct.unpack_from(e + "Q", b, io + 8 * j)[0] for j in range(isz // 8)]
        f.attrs.append([bytearray(a[:attr_size - 16]), ids])
    dsz = min(dsz, n - do)
    f.events = split(b[do:do + dsz], e)
    f.event_types = b[eo:eo + esz] if eo + esz <= n and esz <= 65536 else b""
    fo = do + dsz
    feats = [i for i in range(256) if bits[i // 64] >> (i % 64) & 1]
    for k, bit in enumerate(feats):
        if fo + 16 * (k + 1) > n:
            break
        off, sz = struct.unpack_from(e + "2Q", b, fo + 16 * k)
        if off + sz <= n:
            f.features.append((bit, bytearray(b[off:off + sz])))
    return f


def write_file(f):
    """Lay a PerfFile out as perf record does: header, ids, attrs,
    (event types), data, feature table, features."""
    e = f.e
    body = bytearray()
    pos = FILE_HDR_SIZE
    idoffs = []
    for a, ids in f.attrs:
        idoffs.append((pos + len(body), 8 * len(ids)))
        body += b"".join(struct.pack(e + "Q", i) for i in ids)
    attr_size = (max([len(a) for a, _ in f.attrs] or [136])) + 16
    ao = pos + len(body)
    for (a, _), (io, isz) in zip(f.attrs, idoffs):
        body += bytes(a) + bytes(attr_size - 16 - len(a)) + struct.pack(e + "2Q", io, isz)
    asz = len(body) + pos - ao
    eo, esz = (pos + len(body), len(f.event_types)) if f.event_types else (0, 0)
    body += f.event_types
    do = pos + len(body)
    data = b"".join(bytes(x) for x in f.events)
    body += data
    feats = sorted(dict(f.features).items())
    fo = pos + len(body)
    off = fo + 16 * len(feats)
    table, contents = bytearray(), bytearray()
    for _, c in feats:
        table += struct.pack(e + "2Q", off, len(c))
        contents += c
        off += len(c)
    body += table + contents
    bits = [0, 0, 0, 0]
    for bit, _ in feats:
        bits[bit // 64] |= 1 << (bit % 64)
    hdr = f.magic + struct.pack(e + "8Q4Q", FILE_HDR_SIZE, attr_size, ao, asz, do, len(data),
                                eo, esz, *bits)
    return bytearray(hdr + body)


def _interesting_for(r, old, n):
    """A value a size or offset field should not take (file size n)."""
    return r.choice((0, 1, 8, n, n - 8, n + 8, old + 1, old - 1 if old else 2**64 - 1,
                     old + 8, old - 8 if old >= 8 else 0, old * 2, old // 2, 2**63,
                     2**64 - 1, 2**64 - 8, 2**32, 2**32 - 1, 4096, n - (n % 4096))) % 2**64


def lie(b, r):
    """Make one size/offset/count field of a laid-out file lie."""
    if len(b) < FILE_HDR_SIZE:
        return b
    e = "<" if b[:8] == b"PERFILE2" else ">"
    n = len(b)
    op = r.randrange(8)
    if op <= 2:  # a header u64: size, attr_size, the sections
        off = 8 + 8 * r.randrange(8)
    elif op == 3:  # a feature bit
        w = r.randrange(4)
        v = struct.unpack_from(e + "Q", b, 72 + 8 * w)[0] ^ (1 << r.randrange(64))
        struct.pack_into(e + "Q", b, 72 + 8 * w, v)
        return b
    elif op <= 5:  # a feature table entry
        do, dsz = struct.unpack_from(e + "2Q", b, 40)
        bits = struct.unpack_from(e + "4Q", b, 72)
        nf = sum(bin(x).count("1") for x in bits)
        fo = do + dsz
        if not nf or fo + 16 * nf > n:
            return b
        off = fo + 16 * r.randrange(nf) + 8 * r.randrange(2)
    else:  # an attr's ids section
        attr_size, ao, asz = struct.unpack_from(e + "3Q", b, 16)
        if not attr_size or attr_size < 16 or not asz or ao + asz > n:
            return b
        k = r.randrange(max(1, asz // attr_size))
        off = ao + (k + 1) * attr_size - 16 + 8 * r.randrange(2)
        if off + 8 > n:
            return b
    old = struct.unpack_from(e + "Q", b, off)[0]
    struct.pack_into(e + "Q", b, off, _interesting_for(r, old, n))
    return b


def _set_field(r, buf, e, off, width):
    if off + width > len(buf):
        return
    fmt = e + {2: "H", 4: "I", 8: "Q"}[width]
    old = struct.unpack_from(fmt, buf, off)[0]
    k = r.randrange(4)
    if k == 0:
        v = old ^ (1 << r.randrange(8 * width))
    elif k == 1:
        v = r.choice(INTERESTING if width == 8 else INTERESTING32)
    elif k == 2:
        v = old + r.choice((-1, 1, 8, -8))
    else:
        v = r.getrandbits(8 * width)
    struct.pack_into(fmt, buf, off, v % 2**(8 * width))


def mutate_attr(f, other, r):
    e = f.e
    if not f.attrs or (other and other.attrs and r.random() < 0.1):
        if other and other.attrs:  # an attr of another input
            a, ids = r.choice(other.attrs)
            f.attrs.insert(r.randint(0, len(f.attrs)), [bytearray(a), list(ids)])
        return
    k = r.randrange(len(f.attrs))
    a, ids = f.attrs[k]
    op = r.randrange(10)
    if op <= 3:  # a field: bits of sample_type, read_format, the flags...
        off, width = r.choice(ATTR_FIELDS)
        if off in (24, 32, 40) and off + 8 <= len(a) and r.random() < 0.7:
            # a bit perf knows: sample_type (26), read_format (5), flags (42)
            v = struct.unpack_from(e + "Q", a, off)[0]
            bit = r.randrange({24: 26, 32: 5, 40: 42}[off])
            struct.pack_into(e + "Q", a, off, v ^ (1 << bit))
        else:
            _set_field(r, a, e, off, width)
    elif op == 4:  # attr.size
        if len(a) >= 8:
            struct.pack_into(e + "I", a, 4, r.choice(ATTR_SIZES))
    elif op == 5 and len(f.attrs) > 1:
        del f.attrs[k]
    elif op == 6:
        f.attrs.insert(r.randint(0, len(f.attrs)), [bytearray(a), list(ids)])
    elif op == 7:  # ids: drop, add, duplicate, interesting
        j = r.randrange(4)
        if j == 0 and ids:
            del ids[r.randrange(len(ids))]
        elif j == 1:
            ids.append(r.choice(INTERESTING) if r.random() < 0.5 else r.getrandbits(64))
        elif j == 2:
            a2, ids2 = r.choice(f.attrs)
            if ids2:
                ids.append(r.choice(ids2))
        elif ids:
            ids[r.randrange(len(ids))] = r.choice(INTERESTING)
    elif op == 8:  # an id from the events (a sample's ID field)
        slots = [(x, s) for x in f.events for s in _u64_slots(x)]
        if slots:
            x, s = r.choice(slots)
            ids.append(struct.unpack_from(e + "Q", x, s)[0])
    else:  # attr bytes cut or grown
        n = max(0, len(a) + r.choice((-8, 8, -64)))
        f.attrs[k][0] = a[:n] + bytearray(max(0, n - len(a)))


def mutate_feature(f, other, r):
    e = f.e
    if not f.features or r.random() < 0.05:
        bit = r.choice((r.randrange(1, 40), r.randrange(256)))
        f.features.append((bit, bytearray(r.choice((b"", bytes(8), b"\xff" * 16)))))
        return
    k = r.randrange(len(f.features))
    bit, c = f.features[k]
    op = r.randrange(9)
    if op == 0:
        del f.features[k]
        return
    if op == 1:  # cut
        c = c[:r.randrange(len(c) + 1)]
    elif op == 2:  # grow
        c = c + bytearray(r.choice((b"\0", b"A", b"\xff"))) * r.choice((1, 4, 8, 64))
    elif op == 3:  # no NUL to end the strings
        c = bytearray(x if x else 0x41 for x in c)
    elif op in (4, 5) and len(c) >= 4:  # a u32 (the counts, string lengths)
        off = 4 * r.randrange(len(c) // 4)
        struct.pack_into(e + "I", c, off, r.choice(INTERESTING32 + (len(c), len(c) + 1)))
    elif op == 6 and len(c) >= 8:
        off = 8 * r.randrange(len(c) // 8)
        struct.pack_into(e + "Q", c, off, r.choice(INTERESTING))
    elif op == 7 and other and other.features:  # the same feature of another input
        same = [x for b2, x in other.features if b2 == bit] or [x for _, x in other.features]
        c = bytearray(r.choice(same))
    else:  # another bit for the same contents
        bit = r.randrange(1, 40)
    f.features[k] = (bit, c)


def file_fuzz(buf, add_buf, max_size):
    buf = bytearray(buf)
    r = _rng
    f = parse_file(bytes(buf))
    if f is not None:
        other = parse_file(bytes(add_buf)) if add_buf else None
        oev = [bytearray(x) for x in other.events] if other else []
        for _ in range(r.randint(1, 4)):
            w = r.randrange(10)
            if w <= 5:
                mutate_events(f.events, oev, r, f.e)
            elif w <= 7:
                mutate_attr(f, other, r)
            else:
                mutate_feature(f, other, r)
        buf = write_file(f)
    if f is None or r.random() < 0.3:
        buf = lie(buf, r)
    return bytearray(bytes(buf)[:max_size])


def file_post(buf):
    buf = bytearray(buf)
    if bytes(buf[:8]) not in MAGICS:
        buf[:8] = b"PERFILE2"
    return buf


# -------------------------------------------------------- AFL++ entries --
def post_process(buf):
    return _keep("post", file_post(buf) if mode() == "file" else pipe_post(buf))


def fuzz(buf, add_buf, max_size):
    f = file_fuzz if mode() == "file" else pipe_fuzz
    return _keep("fuzz", f(buf, add_buf, max_size))


def init(seed):
    _rng.seed(seed)


def deinit():
    pass


def describe(max_description_length):
    # names queue and crash files (afl-fuzz 4.04 crashes without it)
    return _keep("describe", b"perfdata"[:max_description_length])


# ------------------------------------------------------------------ CLI --
def make_seeds(outdir, files):
    """Prefix = pipe header + the user-type events before the first kernel
    event; seed body = a few of the events (all side-band, the first
    samples and records); the .whole seed: the same events behind the
    header events (selector 0x80, or 0xc0 for a big-endian stream)."""
    os.makedirs(os.path.join(outdir, "prefixes"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "seeds"), exist_ok=True)
    names = sorted(os.path.splitext(os.path.basename(f))[0] for f in files)
    for f in files:
        name = os.path.splitext(os.path.basename(f))[0]
        b = open(f, "rb").read()
        e = ">" if b[:8] == b"2ELIFREP" else "<"
        off = 16
        while off + 8 <= len(b):
            typ, _, size = struct.unpack_from(e + "IHH", b, off)
            if typ < 64 or size < 8:
                break
            off += size
        # the header events, HEADER_FEATUREs (80) included: the CPU
        # topology makes perf look samples' CPUs up in it
        prefix = bytearray(b[:off])
        body = []
        counts = {}
        while off + 8 <= len(b):
            typ, _, size = struct.unpack_from(e + "IHH", b, off)
            if size < 8:
                break
            key = typ if typ in (9, 22) else "other"
            counts[key] = counts.get(key, 0) + 1
            if counts[key] <= (24 if key != "other" else 40):
                body.append(b[off:off + size])
            off += size
        with open(os.path.join(outdir, "prefixes", name + ".prefix"), "wb") as o:
            o.write(prefix)
        if e == "<":  # the prefixes are little-endian, like the mutator
            with open(os.path.join(outdir, "seeds", name), "wb") as o:
                o.write(bytes([names.index(name) % 128]) + b"".join(body))
        with open(os.path.join(outdir, "seeds", name + ".whole"), "wb") as o:
            o.write(bytes([0xc0 if e == ">" else 0x80]) + prefix[16:] + b"".join(body))


def cut_file(src, dst, n=16):
    """A file-mode perf.data with its side-band events (at most 24 of the
    other types), its first n samples and 2n deferred records, its first
    COMPRESSED record; attrs, ids and features as they are."""
    f = parse_file(open(src, "rb").read())
    if f is None:
        raise SystemExit("%s: not a file-mode perf.data this cutter knows" % src)
    counts, keep = {}, []
    for x in f.events:
        if len(x) < 8:
            continue
        typ = struct.unpack_from(f.e + "I", x, 0)[0]
        key = typ if typ in (9, 22, 81, 83) else "other"
        counts[key] = counts.get(key, 0) + 1
        lim = {9: n, 22: 2 * n, 81: 1, 83: 1}.get(key, 24 + n)
        if counts[key] <= lim:
            keep.append(x)
    f.events = keep
    with open(dst, "wb") as o:
        o.write(write_file(f))


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "seeds":
        make_seeds(a[1], a[2:])
    elif a[:1] == ["cut"] and len(a) in (3, 5):
        n = 16
        if a[1] == "-n":
            n = int(a[2])
            a = a[2:]
        cut_file(a[1], a[2], n)
    elif len(a) == 3 and a[0] == "wrap":
        data = open(a[1], "rb").read()
        with open(a[2], "wb") as o:
            o.write(post_process(data))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
