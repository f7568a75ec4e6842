#!/usr/bin/python3
"""crafted_features.py - write the header-feature inputs of tests/fuzz/regressions/.

File-mode perf.data files (a small tests/tools/gen_perfdata.py recording)
whose header features lie about their sizes:

  feat-osrelease-nonul   OSRELEASE string without its NUL
  feat-cmdline-nonul     CMDLINE strings without their NUL
  feat-cmdline-nr        CMDLINE claiming 2^30 strings
  feat-event-desc-nr     EVENT_DESC claiming 2^31 - 1 events of 2^31 bytes
  feat-mem-topology      MEM_TOPOLOGY with a node bitmap of 2^32 + 64 bits
  feat-string-len        HOSTNAME string claiming 4 GB
  feat-numa-nr           NUMA_TOPOLOGY claiming 0x55000001 nodes
  feat-cmdline-cut       CMDLINE claiming 3 strings, holding 1
  feat-cpu-topology-cut  CPU_TOPOLOGY claiming 2 sibling lists, holding 1
  feat-build-id-size     BUILD_ID record of 65528 bytes (a 65492-byte file name)

Usage: crafted_features.py OUTDIR   (tests/fuzz/regressions)
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tools", "gen_perfdata.py")
BUILD_ID, HOSTNAME, OSRELEASE, CMDLINE, EVENT_DESC, MEM_TOPOLOGY = 2, 3, 4, 11, 12, 22
CPU_TOPOLOGY, NUMA_TOPOLOGY = 13, 14


def load(path):
    b = open(path, "rb").read()
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    bits = int.from_bytes(b[72:104], "little")
    table = data_off + data_size
    feats, i = {}, 0
    for f in range(256):
        if bits >> f & 1:
            off, size = struct.unpack_from("<QQ", b, table + 16 * i)
            feats[f] = b[off:off + size]
            i += 1
    return bytearray(b[:table]), feats


def save(path, head, feats):
    head = bytearray(head)
    bits = sum(1 << f for f in feats)
    head[72:104] = bits.to_bytes(32, "little")
    table = len(head)
    off = table + 16 * len(feats)
    tab, body = b"", b""
    for f in sorted(feats):
        tab += struct.pack("<QQ", off + len(body), len(feats[f]))
        body += feats[f]
    with open(path, "wb") as out:
        out.write(head + tab + body)


def string(s):
    return struct.pack("<I", len(s)) + s


def files(base):
    head, feats = load(base)
    yield "feat-osrelease-nonul", {OSRELEASE: string(b"A" * 64)}
    yield "feat-cmdline-nonul", {CMDLINE: struct.pack("<I", 2) + string(b"B" * 64) + string(b"C" * 64)}
    yield "feat-cmdline-nr", {CMDLINE: struct.pack("<I", 2**30) + string(b"perf\0\0\0\0")}
    yield "feat-event-desc-nr", {EVENT_DESC: struct.pack("<II", 2**31 - 1, 2**31) + b"\0" * 64}
    node = struct.pack("<QQQ", 0, 2**30, 2**32 + 64) + b"\xff" * 64
    yield "feat-mem-topology", {MEM_TOPOLOGY: struct.pack("<QQQ", 1, 2**27, 1) + node}
    yield "feat-string-len", {HOSTNAME: struct.pack("<I", 2**32 - 1) + b"host\0\0\0\0"}
    yield "feat-numa-nr", {NUMA_TOPOLOGY: struct.pack("<IIQQ", 0x55000001, 0, 1, 1) + string(b"0\0\0\0")}
    yield "feat-cmdline-cut", {CMDLINE: struct.pack("<I", 3) + string(b"perf\0\0\0\0")}
    yield "feat-cpu-topology-cut", {CPU_TOPOLOGY: struct.pack("<I", 2) + string(b"0-1\0")}
    # PERF_RECORD_HEADER_BUILD_ID, pid, build id, then the file name
    bid = struct.pack("<IHHi", 67, 0, 0xfff8, -1) + b"\x11" * 20 + b"\x14\0\0\0"
    yield "feat-build-id-size", {BUILD_ID: bid + b"A" * (0xfff8 - len(bid))}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.data")
        subprocess.run([sys.executable, GEN, "-o", base, "--kallsyms", "", "--samples", "20",
                        "--threads", "2", "--seed", "1"], check=True, stdout=subprocess.DEVNULL)
        head, feats = load(base)
        for name, change in files(base):
            f = dict(feats)
            f.update(change)
            save(os.path.join(sys.argv[1], name + ".data"), head, f)


if __name__ == "__main__":
    main()
