#!/usr/bin/env python3
"""byteswap_attrs.py - a big-endian copy of a perf.data file's event attrs.

  byteswap_attrs.py IN OUT

IN is a little-endian perf.data file or pipe-mode stream.  OUT gets what
'perf evlist' reads of it, byte-swapped as a big-endian perf would have
written it, so that a test can check that perf reads the attrs (of any
size: perf 7.x writes 144 bytes) of a file of the other endianness:

  - file mode: the file header, the attrs and their ids; no data, one
    header feature (HOSTNAME, as perf uses it to tell the endianness);
  - pipe mode: the pipe header, the PERF_RECORD_HEADER_ATTR records and
    the header of the first PERF_RECORD_HEADER_FEATURE, where
    'perf evlist' stops reading.

Each attr field is swapped as its type needs; the flag bit-field word
after read_format has the bits of each byte reversed (bit-fields fill a
big-endian word from its most significant bit).
"""

import struct
import sys

# byte offsets of the perf_event_attr fields, by width (up to config4, 144 bytes)
U64 = [8, 16, 24, 32, 56, 64, 72, 80, 96, 120, 128, 136]
U32 = [0, 4, 48, 52, 88, 92, 104, 112, 116]
U16 = [108, 110]
FLAGS = 40


def rev8(b):
    return int("{:08b}".format(b)[::-1], 2)


def swap_attr(a):
    a = bytearray(a)
    for offs, width in ((U64, 8), (U32, 4), (U16, 2)):
        for o in offs:
            if o + width <= len(a):
                a[o:o + width] = a[o:o + width][::-1]
    a[FLAGS:FLAGS + 8] = bytes(rev8(b) for b in a[FLAGS:FLAGS + 8])
    return bytes(a)


def swap_u64s(b):
    return b"".join(b[i:i + 8][::-1] for i in range(0, len(b), 8))


def pipe_mode(d):
    magic, hsz = struct.unpack_from("<8sQ", d, 0)
    out = bytearray(magic[::-1] + struct.pack(">Q", hsz))
    off = hsz
    while off + 8 <= len(d):
        typ, misc, size = struct.unpack_from("<IHH", d, off)
        rec = d[off:off + size]
        hdr = struct.pack(">IHH", typ, misc, size)
        if typ == 64:  # PERF_RECORD_HEADER_ATTR: attr, then ids
            asz, = struct.unpack_from("<I", rec, 12)
            out += hdr + swap_attr(rec[8:8 + asz]) + swap_u64s(rec[8 + asz:])
        elif typ == 80:  # PERF_RECORD_HEADER_FEATURE: perf evlist stops here
            feat, = struct.unpack_from("<Q", rec, 8)
            out += hdr + struct.pack(">Q", feat) + rec[16:]
            return bytes(out)
        else:
            sys.exit("byteswap_attrs.py: unexpected record type %d before the features" % typ)
        off += size
    sys.exit("byteswap_attrs.py: no header feature record")


def file_mode(d):
    magic, hsz, attr_size = struct.unpack_from("<8sQQ", d, 0)
    attrs_off, attrs_size = struct.unpack_from("<QQ", d, 24)
    attrs, ids = [], []
    for i in range(attrs_size // attr_size):
        o = attrs_off + i * attr_size
        ids_off, ids_size = struct.unpack_from("<QQ", d, o + attr_size - 16)
        attrs.append(swap_attr(d[o:o + attr_size - 16]))
        ids.append(swap_u64s(d[ids_off:ids_off + ids_size]))
    out = bytearray(hsz)
    ids_at = []
    for b in ids:
        ids_at.append((len(out), len(b)))
        out += b
    new_attrs_off = len(out)
    for a, (o, n) in zip(attrs, ids_at):
        out += a + struct.pack(">QQ", o, n)
    data_off = len(out)  # empty data section; the feature table follows it
    host = b"(none)\0\0"
    out += struct.pack(">QQ", data_off + 16, 4 + len(host)) + struct.pack(">I", len(host)) + host
    features = struct.pack(">Q", 1 << 3) + bytes(24)  # HEADER_HOSTNAME
    out[0:hsz] = (magic[::-1] + struct.pack(">QQQQQQQQ", hsz, attr_size, new_attrs_off,
                                            len(attrs) * attr_size, data_off, 0, 0, 0)
                  + features + bytes(hsz - 104))
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        d = f.read()
    if d[:8] != b"PERFILE2":
        sys.exit("byteswap_attrs.py: %s is not a little-endian perf.data" % sys.argv[1])
    hsz, = struct.unpack_from("<Q", d, 8)
    out = pipe_mode(d) if hsz == 16 else file_mode(d)
    with open(sys.argv[2], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
