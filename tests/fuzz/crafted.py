#!/usr/bin/python3
"""crafted.py - write the hand-made inputs of tests/fuzz/regressions/.

Edge cases of the deferred callchain code, in pipe-mode files that start
with the header events of the real recording st_defer_pipe (perf 7.2,
sample_type IP|TID|TIME|CALLCHAIN|ID|PERIOD, sample_id_all):

  r22-before-attr       a record 22 before any HEADER_ATTR
  r22-short             records 22 of 8, 16 and 24 bytes (no nr, no ips,
                        no sample_id), then a valid one
  r22-nr-huge           records whose nr overflows nr * 8 (2^61, 2^64 - 1)
  r22-nr-max            the largest consistent record (nr 8185) completing
                        a sample with the largest kernel chain (nr 8180)
  marker-odd-places     chains: [USER_DEFERRED], [..., USER_DEFERRED] with
                        no cookie, [] (nr 0), USER_DEFERRED in the middle
  dup-records           one sample, 2000 copies of its record
  exit-while-waiting    a waiting sample, EXIT of its thread, 2 s of other
                        events, then its record
  time-backwards        samples and records with time going back, time 0
                        and time -1, across FINISHED_ROUNDs
  tid-minus1            sample and record of tid -1 (the "no tid" value)
  short-records         COMM, MMAP, MMAP2, FORK, EXIT shorter than their
                        fixed part, while a deferred sample waits
  short-sample-id       SWITCH, SWITCH_CPU_WIDE, EXIT and, last, a record of
                        an unknown kernel type without the sample_id trailer
  string-no-nul         COMM and MMAP whose string has no NUL before the end
  thread-map-nr         THREAD_MAP with nr 1000 and one entry
  fork-same-tid         two FORKs whose child has its parent's tid, not pid
  mmap2-build-id-size   MMAP2 with a build id of 255 bytes (20 at most)
  mmap-wrap             MMAP and MMAP2 whose start + len wraps around
  stat-no-config        THREAD_MAP, CPU_MAP, STAT and STAT_ROUND, no
                        STAT_CONFIG (perf stat report)
  stat-before-maps      STAT and STAT_ROUND before the THREAD_MAP and CPU_MAP
  arm-spe-metadata-cut  an Arm SPE AUXTRACE_INFO, metadata version 2, whose
                        header says 1 CPU and that holds no CPU's metadata
                        (a bare pipe header, no attr: like cs-etm-metadata-cut)

Usage: crafted.py OUTDIR   (tests/fuzz/regressions)
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "real-7.2", "data", "st_defer_pipe.data")
USER_DEFERRED = 2**64 - 640
KERNEL = 2**64 - 128
KIP = 0xffffffffa5752ae6
UIP = 0x401000


def prefix():
    b = open(FIX, "rb").read()
    off, ident = 16, None
    while True:
        typ, _, size = struct.unpack_from("<IHH", b, off)
        if typ < 64:
            break
        if typ == 64 and ident is None:  # HEADER_ATTR: attr then ids
            asize = struct.unpack_from("<I", b, off + 12)[0]
            ident = struct.unpack_from("<Q", b, off + 8 + asize)[0]
        off += size
    return b[:off], ident


PRE, ID = prefix()


def ev(typ, misc, payload):
    return struct.pack("<IHH", typ, misc, 8 + len(payload)) + payload


def sample(tid, time, chain, misc=1):
    p = struct.pack("<QIIQQQQ", KIP, tid, tid, time, ID, 1000000, len(chain))
    return ev(9, misc, p + struct.pack("<%dQ" % len(chain), *chain))


def sid(tid, time):
    return struct.pack("<IIQQ", tid, tid, time, ID)


def record(tid, time, cookie, ips, nr=None):
    nr = len(ips) if nr is None else nr
    return ev(22, 2, struct.pack("<QQ", cookie, nr) + struct.pack("<%dQ" % len(ips), *ips)
              + sid(tid, time))


def comm(tid, time, name=b"crafted"):
    return ev(3, 0, struct.pack("<II", tid, tid) + name.ljust(16, b"\0") + sid(tid, time))


def exit_(tid, time):
    return ev(4, 0, struct.pack("<IIIIQ", tid, tid, tid, tid, time) + sid(tid, time))


def fork(pid, ppid, tid, ptid, time):
    return ev(7, 0, struct.pack("<IIIIQ", pid, ppid, tid, ptid, time) + sid(tid, time))


def rnd():
    return ev(68, 0, b"")


def dchain(cookie, knr=2):
    return [KERNEL] + [KIP] * knr + [USER_DEFERRED, cookie]


def files():
    t = 10**10
    yield "r22-before-attr", struct.pack("<QQ", 0x32454c4946524550, 16) + \
        record(5, t, 7, [UIP]) + PRE[16:] + sample(5, t + 1, dchain(7)) + record(5, t + 2, 7, [UIP])
    b = comm(100, t) + sample(100, t + 1, dchain(9))
    b += ev(22, 2, b"") + ev(22, 2, struct.pack("<Q", 9)) + ev(22, 2, struct.pack("<QQ", 9, 0))
    b += record(100, t + 2, 9, [UIP, UIP + 4]) + rnd()
    yield "r22-short", PRE + b
    b = comm(100, t) + sample(100, t + 1, dchain(9))
    for nr in (2**61, 2**61 - 1, 2**64 - 1, 2**63):
        b += record(100, t + 2, 9, [UIP], nr=nr)
    b += record(100, t + 3, 9, [UIP]) + rnd()
    yield "r22-nr-huge", PRE + b
    knr = (65528 - 64 - 16) // 8 - 1
    s = sample(100, t + 1, [KERNEL] + [KIP] * knr + [USER_DEFERRED, 11])
    r = record(100, t + 2, 11, [UIP + 8 * i for i in range(8185)])
    assert len(s) <= 65528 and len(r) <= 65528, (len(s), len(r))
    yield "r22-nr-max", PRE + comm(100, t) + s + r + rnd()
    b = comm(100, t)
    b += sample(100, t + 1, [USER_DEFERRED], misc=2)
    b += sample(100, t + 2, [KERNEL, KIP, USER_DEFERRED])
    b += sample(100, t + 3, [])
    b += sample(100, t + 4, [KERNEL, USER_DEFERRED, 13, KIP, USER_DEFERRED, 13])
    b += sample(100, t + 5, [USER_DEFERRED, 13, USER_DEFERRED, 14])
    b += record(100, t + 6, 13, [UIP]) + record(100, t + 7, 14, [UIP]) + rnd()
    yield "marker-odd-places", PRE + b
    b = comm(100, t) + sample(100, t + 1, dchain(15))
    b += b"".join(record(100, t + 2 + i, 15, [UIP, UIP + 4]) for i in range(2000)) + rnd()
    yield "dup-records", PRE + b
    b = comm(100, t) + comm(101, t) + sample(100, t + 1, dchain(17)) + exit_(100, t + 2)
    b += b"".join(sample(101, t + 3 + i * 10**7, [KERNEL, KIP]) for i in range(200))
    b += record(100, t + 3 + 200 * 10**7, 17, [UIP]) + rnd()
    yield "exit-while-waiting", PRE + b
    b = comm(100, t)
    for k, tm in enumerate((t + 50, t + 40, 0, 2**64 - 1, t + 10, t + 60)):
        b += sample(100, tm, dchain(20 + k % 2)) + record(100, tm, 20 + k % 2, [UIP])
        if k % 2:
            b += rnd()
    yield "time-backwards", PRE + b
    m = 2**32 - 1
    b = comm(m, t) + sample(m, t + 1, dchain(30)) + record(m, t + 2, 30, [UIP]) + exit_(m, t + 3)
    yield "tid-minus1", PRE + b + rnd()
    # records shorter than the fixed part of their type, while a deferred
    # sample waits (the events held behind it are copied at their size)
    b = comm(100, t) + sample(100, t + 1, dchain(40))
    b += ev(3, 0, struct.pack("<I", 100))                    # COMM, 12 bytes
    b += ev(1, 0, struct.pack("<II", 100, 100))              # MMAP, 16 bytes
    b += ev(10, 0, struct.pack("<IIQ", 100, 100, 0x400000))  # MMAP2, 24 bytes
    b += ev(7, 0, struct.pack("<II", 100, 100))              # FORK, 16 bytes
    b += ev(4, 0, struct.pack("<II", 100, 100))              # EXIT, 16 bytes
    b += record(100, t + 2, 40, [UIP]) + rnd()
    yield "short-records", PRE + b
    # records holding no sample_id though the attr says they have one
    b = comm(100, t) + sample(100, t + 1, dchain(41))
    b += ev(14, 0, b"") + ev(15, 0, struct.pack("<II", 100, 100))
    b += ev(4, 0, struct.pack("<IIIIQ", 100, 100, 100, 100, t + 2))
    b += record(100, t + 3, 41, [UIP]) + rnd()
    # perf stops at a kernel record type it does not know: the last one
    yield "short-sample-id", PRE + b + ev(30, 0, b"")
    # strings without their NUL up to the end of the record
    a = 0x4141414141414141
    b = comm(100, t) + sample(100, t + 1, dchain(42))
    b += ev(3, 0, struct.pack("<II", 100, 100) + b"A" * 16 + struct.pack("<QQQ", a, a, a))
    b += ev(1, 0, struct.pack("<IIQQQ", 100, 100, 0x400000, 0x1000, 0) + b"A" * 8
            + struct.pack("<QQQ", a, a, a))
    b += record(100, t + 3, 42, [UIP]) + rnd()
    yield "string-no-nul", PRE + b
    # a thread map claiming more threads than it holds
    b = ev(73, 0, struct.pack("<QQ", 1000, 100) + b"crafted".ljust(16, b"\0"))
    yield "thread-map-nr", PRE + b + comm(100, t) + sample(100, t + 1, [KERNEL, KIP]) + rnd()
    # two FORKs whose child has its parent's tid but not its pid
    b = comm(100, t) + fork(100, 200, 100, 100, t + 1) + fork(100, 200, 100, 100, t + 2)
    yield "fork-same-tid", PRE + b + sample(100, t + 5, [KERNEL, KIP]) + rnd()
    # an MMAP2 whose build id claims 255 of its 20 bytes
    b = comm(100, t) + ev(10, 0x4000, struct.pack("<IIQQQBBH20sII", 100, 100, 0x400000, 0x1000,
                                                  0, 255, 0, 0, b"\x55" * 20, 5, 2)
                          + b"/bin/true\0".ljust(16, b"\0") + sid(100, t + 1))
    yield "mmap2-build-id-size", PRE + b + sample(100, t + 5, [KERNEL, KIP]) + rnd()
    # MMAP and MMAP2 whose start + len wraps around
    b = comm(100, t)
    b += ev(1, 2, struct.pack("<IIQQQ", 100, 100, 2**64 - 0x1000, 0x10000, 0)
            + b"/bin/true\0".ljust(16, b"\0") + sid(100, t + 1))
    b += ev(10, 2, struct.pack("<IIQQQIIQQII", 100, 100, 2**64 - 0x2000, 0x20000, 0, 8, 1, 2, 0, 5, 2)
            + b"/bin/false\0".ljust(16, b"\0") + sid(100, t + 2))
    yield "mmap-wrap", PRE + b + sample(100, t + 5, [KERNEL, KIP, 2**64 - 512, 2**64 - 0x800], misc=2) + rnd()
    # perf stat's records: both maps, a count and a round, but no STAT_CONFIG
    b = ev(73, 0, struct.pack("<Q", 1) + struct.pack("<Q", 100) + b"crafted".ljust(16, b"\0"))
    b += ev(74, 0, struct.pack("<HHHH", 0, 1, 0, 0))
    b += ev(76, 0, struct.pack("<QIIQQQ", ID, 0, 0, 100, 1000, 1000))
    yield "stat-no-config", PRE + b + ev(77, 0, struct.pack("<QQ", 1, t))
    b = ev(76, 0, struct.pack("<QIIQQQ", ID, 0, 0, 100, 1000, 1000))
    yield "stat-before-maps", PRE + b + ev(77, 0, struct.pack("<QQ", 1, t))
    # Arm SPE metadata version 2 (header version, header size, PMU type,
    # CPU count) claiming more than the AUXTRACE_INFO (type 4: ARM_SPE) holds
    pipe = struct.pack("<QQ", 0x32454c4946524550, 16)
    spe = struct.pack("<II", 4, 0) + struct.pack("<4Q", 2, 4, 8, 1)
    yield "arm-spe-metadata-cut", pipe + ev(70, 0, spe)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in files():
        with open(os.path.join(sys.argv[1], name + ".data"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
