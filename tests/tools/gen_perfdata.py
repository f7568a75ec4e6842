#!/usr/bin/python3
"""gen_perfdata.py - write synthetic perf.data files with deferred user callchains.

Writes, at any scale, a perf.data file ("deferred file") laid out like a
recording made with `perf record --call-graph fp,defer` on a Linux 6.19+
kernel, and optionally the same samples with ordinary full callchains
("floor file": the same stacks as PERF_CONTEXT_USER chains, no record 22),
which any perf can read.  With --floor-records the floor file carries the
records as well, for a perf that reads and drops them: a lower bound of
what merging them can cost.  Python 3 standard library only; no perf code.

The deferred file
  - one cpu-clock event (PERF_TYPE_SOFTWARE, config 0, freq 1000) with
    defer_callchain (attr bit 38) and defer_output (bit 39) in the flag word
    at attr offset 40, sample_id_all, sample_type IP|TID|TIME|CALLCHAIN|PERIOD
    (+ ID with --sample-id, + CPU with --sample-cpu), attr size 136 (perf
    6.12's; --attr-size 144 writes perf 7.x's size);
  - side-band: MMAP2 of [kernel.kallsyms]_text, per process COMM (exec) and
    MMAP2 of the text segment of a real static binary at its link address
    (default tests/fixtures/real-7.2/bin/mt_syscalls, so perf can symbolise
    the user frames), a COMM per thread, an EXIT per thread at the end;
  - samples: a kernel-mode sample carries
    [PERF_CONTEXT_KERNEL, kernel ips..., PERF_CONTEXT_USER_DEFERRED, cookie],
    a user-mode one [PERF_CONTEXT_USER_DEFERRED, cookie];
  - PERF_RECORD_CALLCHAIN_DEFERRED (22) {cookie, nr, ips[nr], sample_id}
    after the samples of each kernel entry (misc PERF_RECORD_MISC_USER);
  - events are written in "rounds" like perf record does: within a round
    grouped by CPU buffer (then time), rounds separated by FINISHED_ROUND;
    so a record written on another CPU than its samples (--migrate) can sit
    earlier in the file than its samples while being later in time.

Model: T threads (--threads) in P processes (--procs) on C CPUs (--cpus).
A "kernel entry" of a thread gets one cookie; it is a syscall with S
kernel-mode samples (--per-entry) or, with probability --user-frac, an
interrupt in user mode with one user-mode sample.  Entries are scheduled
round-robin over the threads (--schedule interleave: at most one entry
pending at a time) or in waves where every thread takes its samples before
any record is written (--schedule burst: T entries pending at once).
Exactly --samples samples are written.  With --late a fraction of entries
gets one more kernel-mode sample taken after its own record (same cookie,
no record follows: the kernel's late-sample window); with --missing a
fraction of entries never gets its record (task exit, lost buffer).

Scenarios (events on top of the --samples ones, placed at fixed fractions
of them, drawn from a random generator of their own: without them the file
is byte-identical to one written before they existed):
  --blocked N   off-CPU profiling: N more threads (of the first process)
                each take ONE kernel-mode sample early (spread over the first
                --blocked-spread of the normal samples; kernel stack
                __schedule, schedule, ..., n_tty_read, vfs_read, ksys_read,
                syscall entry) and block; their records come only at the
                very end, after every other event (and --blocked-delay-ms of
                stream time), then their EXITs; --blocked-never FRAC of them
                never get a record (nor an EXIT: the recording ended first)
  --exec        a process of its own runs --exec-from (st_syscalls), makes
                --exec-entries syscalls, then execs --binary (mt_syscalls):
                --exec-samples samples in the exec path, COMM with
                PERF_RECORD_MISC_COMM_EXEC and MMAP2 of the new program at the
                same addresses (both are static, linked at 0x400000), then the
                record of the exec entry with ips in the NEW program
                (a_outer, thread_a_entry; the old program has main there),
                then --exec-entries more syscalls
  --tid-reuse   a thread makes --tid-reuse-entries syscalls and exits; the
                record of its last one comes after its EXIT (per-CPU style);
                --tid-reuse-gap-ms later a new thread gets the same tid
                (FORK, COMM) and makes as many syscalls, records as usual
  --no-tid N    N kernel-mode deferred samples whose pid/tid are (u32)-1
                (sample_type has TID), spread over the stream; no record
The summary's "scenarios" object says what was put in, and its
"merged_stats" what a merge that never gives a sample up counts (perf
report --stats labels of merge v2; "delivered out of time order" depends on
the merge's window and is not in it).

Guests (--guests N; the --samples are shared by all machines, files
without it are byte-identical to ones written before it existed): N guest
machines besides the host, as `perf inject --guest-data` writes them,
simplified (one event, more ids).  Guest G is machine pid
100000 + 1000 * G; it runs the host's threads (same pids, tids, cpus as
vcpus: the same tids in every machine) with user stacks of its own, and its
kernel counts cookies from the same values as the host's: each thread makes
its entries in every machine in turn (random machine order), so the same
(tid, cookie) comes in every machine, each with its own record, but for a
fraction --guest-own-cookies of a guest's entries, whose cookie is its own
(same tid, another cookie).  Each machine's events have ids of their own
(host 1000 + cpu, guest 1000000 * G + 1000 + vcpu; PERF_SAMPLE_ID is
implied), a guest's events cpumode GUEST_KERNEL or GUEST_USER (USER ->
GUEST_USER, else GUEST_KERNEL), its COMMs, MMAP2s (same binary, same
addresses) and EXITs included; a PERF_RECORD_ID_INDEX with the extended
entries (machine pid, vcpu; a guest id's tid is its VMM's vcpu thread,
guest pid + 1 + vcpu) comes first in the data, file and pipe mode.  No
guest kernel map: guest kernel frames are [unknown].  The summary's
"guests" object counts per machine and the (tid, cookie) pairs in more
than one machine; "expect" counts per machine, which deferred_stats.py
(blind to machines) cannot: the summary says "stats_checkable": false.

--chains FILE writes each sample's expected merged chain, in time order:
TIME MACHINE_PID PID TID COOKIE IP KERNEL_IPS USER_IPS (ips hex, comma
separated, leaf first; '-' for none: a user-mode sample has no kernel part,
a sample whose record never comes no user part).

Kernel addresses come from the guest kallsyms of the fixtures
(sysinfo/kallsyms.txt.xz) when present: use perf's --kallsyms with the
same file to symbolise them; otherwise they are made up.

Bad input (--bad KIND[:N], repeatable, N instances spread over the file):
  nr-past-end   a record whose nr claims 1000 more ips than its size holds
  nr0           a record with nr = 0 (empty user stack; legal per the ABI)
  nr-big        a record with nr = 600 > 510 (kernel's max), size consistent
  cookie0       an entry whose samples and record carry cookie 0
  dup           a record written twice (same tid and cookie)
  unknown-tid   a record for a tid that has no COMM and no sample
  no-sample-id  a record without its sample_id trailer (size too short)
  bogus-ip      a kernel-mode entry whose user stack has 0xffffffffffffffff
                after its leaf, [u0, -1, u1...] (what a broken back-chain
                unwinding gives): in its record, and in its samples' user
                part in the floor file (ordinary, non-deferred callchains)
and --truncate FRAC cuts the deferred file inside the record at FRAC of
its data (--truncate-header: keep the header as is, fit its data size to
the cut, or zero it like a killed perf record).  deferred_stats.py
cannot parse nr-past-end, no-sample-id or truncated files: the summary then
says "stats_checkable": false.

Output: a JSON summary on stdout; its "expect" object holds the counts that
tests/tools/deferred_stats.py must find in the deferred file (same keys).

Examples:
  gen_perfdata.py -o d.data --floor f.data --samples 100000 --threads 64
  gen_perfdata.py -o d.data --samples 32768 --threads 32768 --per-entry 1 \\
      --user-frac 0 --schedule burst          # 32k pending samples
  gen_perfdata.py -o p.data --mode pipe --migrate 0.1 --late 0.01
  gen_perfdata.py -o b.data --bad nr-past-end:3 --bad dup --truncate 0.7
  gen_perfdata.py -o off.data --samples 1000000 --blocked 1000   # off-CPU
  gen_perfdata.py -o x.data --exec --tid-reuse --no-tid 20
  gen_perfdata.py -o g.data --guests 2 --threads 4 --chains g.chains
"""
import argparse
import bisect
import json
import lzma
import os
import random
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.normpath(os.path.join(HERE, "..", "fixtures", "real-7.2"))

# record types, misc bits
R_MMAP, R_COMM, R_EXIT, R_FORK, R_SAMPLE, R_MMAP2, R_DEFERRED = 1, 3, 4, 7, 9, 10, 22
R_HEADER_ATTR, R_FINISHED_ROUND, R_ID_INDEX, R_HEADER_FEATURE = 64, 68, 69, 80
MISC_KERNEL, MISC_USER, MISC_COMM_EXEC = 1, 2, 1 << 13
MISC_CPUMODE_MASK, MISC_GUEST_KERNEL, MISC_GUEST_USER = 7, 4, 5

S_IP, S_TID, S_TIME, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = 1, 2, 4, 0x20, 0x40, 0x80, 0x100
F_ID = 4  # read_format

CTX_KERNEL = 2**64 - 128
CTX_USER = 2**64 - 512
CTX_USER_DEFERRED = 2**64 - 640

# attr flag bits
A_DISABLED, A_INHERIT, A_MMAP, A_COMM, A_FREQ, A_ENABLE_ON_EXEC, A_TASK = 0, 1, 8, 9, 10, 12, 13
A_SAMPLE_ID_ALL, A_MMAP2, A_COMM_EXEC = 18, 23, 24
A_DEFER_CALLCHAIN, A_DEFER_OUTPUT = 38, 39

# feature ids (perf's enum in util/header.h)
FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH, FEAT_NRCPUS, FEAT_CMDLINE = 3, 4, 5, 6, 7, 11
FEAT_EVENT_DESC = 12

# --guests: guest G (1..N) is machine pid guest_pid(G), its VMM's vcpu
# threads on the host are tids guest_pid(G) + 1 + vcpu; its sample ids
# GUEST_ID_STEP * G + 1000 + vcpu (the host's: 1000 + cpu)
GUEST_ID_STEP = 1000000


def guest_pid(g):
    return 100000 + 1000 * g


BAD_KINDS = ("nr-past-end", "nr0", "nr-big", "cookie0", "dup", "unknown-tid", "no-sample-id",
             "bogus-ip")
BOGUS_IP = 0xffffffffffffffff
UNPARSEABLE = ("nr-past-end", "no-sample-id")


# ---------------------------------------------------------------- inputs --
class Binary:
    """Exec PT_LOAD segment and function symbols of an ELF64 LE executable."""

    def __init__(self, path):
        with open(path, "rb") as f:
            b = f.read()
        if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
            sys.exit("%s: not an ELF64 little-endian file" % path)
        (e_type, _, _, _, e_phoff, e_shoff, _, _, e_phentsize, e_phnum,
         e_shentsize, e_shnum, _) = struct.unpack_from("<HHIQQQIHHHHHH", b, 16)
        self.segments = []
        for i in range(e_phnum):
            p_type, p_flags, p_offset, p_vaddr, _, p_filesz, _, _ = \
                struct.unpack_from("<IIQQQQQQ", b, e_phoff + i * e_phentsize)
            if p_type == 1 and p_flags & 1:
                self.segments.append((p_vaddr, p_filesz, p_offset))
        if not self.segments:
            sys.exit("%s: no executable PT_LOAD segment" % path)
        shdrs = [struct.unpack_from("<IIQQQQIIQQ", b, e_shoff + i * e_shentsize)
                 for i in range(e_shnum)]
        funcs = {}
        for sh in shdrs:
            if sh[1] != 2:  # SHT_SYMTAB
                continue
            strtab = shdrs[sh[6]]
            for off in range(sh[4], sh[4] + sh[5], 24):
                st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", b, off)
                if st_info & 0xf != 2 or st_size < 8 or st_shndx == 0:
                    continue
                if not any(v <= st_value < v + s for v, s, _ in self.segments):
                    continue
                s0 = strtab[4] + st_name
                name = b[s0:b.index(b"\0", s0)].decode()
                funcs.setdefault(name, (st_value, st_size))
        if len(funcs) < 8:
            sys.exit("%s: no symbol table (need an unstripped binary)" % path)
        self.funcs = funcs
        self.e_type = e_type

    def map_range(self):
        """(start, len, pgoff) of the text mapping, page aligned."""
        v, s, o = self.segments[0]
        start = v & ~0xfff
        end = (v + s + 0xfff) & ~0xfff
        return start, end - start, o & ~0xfff


class Kallsyms:
    def __init__(self, path):
        opener = lzma.open if path.endswith(".xz") else open
        ents = []
        with opener(path, "rt") as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[1] in "tT" and len(p) == 3:
                    ents.append((int(p[0], 16), p[2]))
        ents.sort()
        self.addr = {}
        self.funcs = []  # (name, start, size)
        for i, (a, n) in enumerate(ents[:-1]):
            size = ents[i + 1][0] - a
            self.addr.setdefault(n, (a, size))
            if 16 <= size <= 65536 and not n.startswith(("__pfx_", "__UNIQUE_ID")) \
                    and "." not in n:
                self.funcs.append((n, a, size))
        self.text = self.addr.get("_text", (ents[0][0], 0))[0]
        self.etext = self.addr.get("_etext", (ents[-1][0] + 0x1000, 0))[0]


# --------------------------------------------------------------- encoding --
class Enc:
    def __init__(self, endian):
        self.e = "<" if endian == "little" else ">"
        self.big = endian == "big"

    def pack(self, fmt, *a):
        return struct.pack(self.e + fmt, *a)

    def u64s(self, vals):
        return struct.pack("%s%dQ" % (self.e, len(vals)), *vals)

    def flags(self, bits):
        """attr bitfield word: a big-endian ABI allocates bitfields from the
        most significant bit of each byte (perf reverses the bits of every
        byte when it swaps an attr)."""
        v = 0
        for b in bits:
            v |= 1 << b
        raw = struct.pack("<Q", v)
        if self.big:
            raw = bytes(int("{:08b}".format(x)[::-1], 2) for x in raw)
        return raw


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def cstr(s, limit=None):
    b = s.encode()
    if limit:
        b = b[:limit - 1]
    return pad8(b + b"\0")


def feat_string(enc, s):
    b = s.encode() + b"\0"
    n = (len(b) + 63) & ~63
    return enc.pack("I", n) + b + b"\0" * (n - len(b))


# ------------------------------------------------------------------ model --
class Entry:
    __slots__ = ("tid", "pid", "cpu", "cookie", "kstacks", "ustack", "user_mode",
                 "rec_seq", "has_record", "bad", "m")

    def __init__(self):
        self.rec_seq = None
        self.bad = None
        self.m = 0  # machine: 0 the host, 1..N the guests (--guests)


class Gen:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.enc = Enc(a.endian)
        self.bin = Binary(a.binary)
        self.dso = a.dso_path or os.path.abspath(a.binary)
        self.comm = os.path.basename(a.binary)[:15]
        ks = a.kallsyms
        if ks is None:
            p = os.path.join(FIX, "sysinfo", "kallsyms.txt.xz")
            ks = p if os.path.exists(p) else ""
        self.ksyms = Kallsyms(ks) if ks else None
        self.stype = S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD
        if a.sample_id or a.guests:
            self.stype |= S_ID
        if a.sample_cpu:
            self.stype |= S_CPU
        self.ids = [1000 + c for c in range(a.cpus)]
        # --guests: machine m (0 the host, 1..N the guests) has its machine
        # pid and its own sample ids of the one event, one per (v)cpu
        self.mpid = [0] + [guest_pid(g) for g in range(1, a.guests + 1)]
        self.mids = [self.ids] + [[GUEST_ID_STEP * g + 1000 + c for c in range(a.cpus)]
                                  for g in range(1, a.guests + 1)]
        self.all_ids = [i for ids in self.mids for i in ids]
        self.make_stacks()
        self.make_threads()
        # the scenarios (--blocked, --exec, --tid-reuse, --no-tid) draw from
        # their own generator: files without them stay byte-identical
        self.xrng = random.Random(a.seed * 1000003 + 7)
        self.make_scenarios()
        self.cookie_ctr = [self.rng.randrange(0x100, 0x10000) | 1 for _ in range(a.cpus)]
        # a guest's kernel counts its cookies from the same values: the same
        # (tid, cookie) comes in several machines
        self.mcookie = [self.cookie_ctr] + [list(self.cookie_ctr) for _ in range(a.guests)]
        self.host_nstacks = len(self.ustacks)
        self.gstacks = []  # per guest: indices (in self.ustacks) of its user stacks
        self.grng = random.Random(a.seed * 7919 + 13)
        self.gstat = [dict(machine_pid=self.mpid[m], sample_ids=self.mids[m], samples=0,
                           samples_kernel_mode=0, samples_user_mode=0, deferred_records=0,
                           entries_with_own_cookie=0)
                      for m in range(a.guests + 1)]
        self.gkeys = {}     # (tid, cookie) -> {machine: samples}, with --guests
        self.chains = [] if a.chains else None
        if a.guests:
            self.make_guests()
        self.seq = 0
        self.ex = dict(samples=0, samples_kernel_mode=0, samples_user_mode=0,
                       samples_with_USER_DEFERRED=0, deferred_records=0,
                       samples_matched=0, samples_unmatched=0,
                       unmatched_samples_taken_AFTER_their_cookies_record=0,
                       unmatched_samples_whose_cookie_never_appears=0,
                       matched_samples_whose_deferred_record_is_EARLIER_in_file_order=0,
                       deferred_records_used=0, deferred_records_orphan=0,
                       deferred_with_same_tid_cookie_more_than_once=0)
        self.info = dict(entries=0, entries_kernel=0, entries_user=0, entries_missing_record=0,
                         records_migrated=0, max_pending_entries=0, max_pending_samples=0,
                         rounds=0, bad={})

    # -- stacks
    def make_stacks(self):
        rng, f = self.rng, self.bin.funcs
        names = sorted(n for n, (v, s) in f.items() if s >= 16)
        outer = [n for n in ("main", "__libc_start_call_main", "__libc_start_main_impl", "_start")
                 if n in f]

        def uip(name, leaf=False):
            v, s = f[name]
            return v + (rng.randrange(0, s) if leaf else rng.randrange(1, s))

        self.ustacks = []
        for _ in range(self.a.stacks):
            depth = rng.randrange(1, 8)
            chain = [uip(rng.choice(names), True)] + [uip(rng.choice(names)) for _ in range(depth - 1)]
            chain += [uip(n) for n in outer]
            self.ustacks.append(chain)
        ks = self.ksyms
        if ks:
            def kip(name):
                a, s = ks.addr[name]
                return a + rng.randrange(1, max(2, min(s, 4096)))

            def krand():
                n, a, s = rng.choice(ks.funcs)
                return a + rng.randrange(1, s)
            base = [n for n in ("x64_sys_call", "do_syscall_64", "entry_SYSCALL_64_after_hwframe")
                    if n in ks.addr]
            defer = [n for n in ("perf_callchain_deferred_output", "perf_unwind_deferred_callback",
                                 "process_unwind_deferred", "task_work_run",
                                 "exit_to_user_mode_loop", "do_syscall_64",
                                 "entry_SYSCALL_64_after_hwframe") if n in ks.addr]
        else:
            def kip(name):
                return 0xffffffff81000000 + (zlib.crc32(name.encode()) & 0xffffff)

            def krand():
                return 0xffffffff81000000 + rng.randrange(0x10, 0xfffff0)
            base = ["x64_sys_call", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"]
            defer = ["perf_callchain_deferred_output", "task_work_run", "do_syscall_64",
                     "entry_SYSCALL_64_after_hwframe"]
        self.kstacks = []
        for _ in range(max(4, self.a.stacks // 2)):
            self.kstacks.append([krand() for _ in range(rng.randrange(1, 9))] + [kip(n) for n in base])
        self.kdefer = [krand()] + [kip(n) for n in defer]
        # packed chain parts, shared by every sample using them
        u = self.enc.u64s
        self.kpart = [u([CTX_KERNEL] + k) for k in self.kstacks]
        self.kdefer_part = u([CTX_KERNEL] + self.kdefer)
        self.upart_floor = [u([CTX_USER] + s) for s in self.ustacks]
        self.urec = [u(s) for s in self.ustacks]

    def make_threads(self):
        a = self.a
        self.threads = []  # (pid, tid, cpu)
        per = -(-a.threads // a.procs)
        for i in range(a.threads):
            p = i // per
            pid = a.first_pid + p * per
            self.threads.append((pid, a.first_pid + i, i % a.cpus))
        self.pids = sorted({t[0] for t in self.threads})

    def new_cookie(self, cpu, m=0):
        ctr = self.mcookie[m]
        c = ctr[cpu]
        ctr[cpu] += 2
        if m and self.grng.random() < self.a.guest_own_cookies:
            # a value no other machine has (the counters stay in step)
            c |= 1 << 31
            self.gstat[m]["entries_with_own_cookie"] += 1
        return (c << 32) | (cpu + 1)

    # -- guests (--guests N): N more machines with the host's threads (same
    # pids, tids, cpus), stacks of their own, ids of their own
    def make_guests(self):
        g, f = self.grng, self.bin.funcs
        names = sorted(n for n, (v, s) in f.items() if s >= 16)
        outer = [n for n in ("main", "__libc_start_call_main", "__libc_start_main_impl", "_start")
                 if n in f]

        def uip(name, leaf=False):
            v, s = f[name]
            return v + (g.randrange(0, s) if leaf else g.randrange(1, s))
        seen = {tuple(c) for c in self.ustacks}
        for _ in range(self.a.guests):
            idx = []
            while len(idx) < self.a.stacks:
                depth = g.randrange(1, 8)
                chain = [uip(g.choice(names), True)] + [uip(g.choice(names)) for _ in range(depth - 1)]
                chain += [uip(n) for n in outer]
                if tuple(chain) in seen:
                    continue   # never the stack of another machine
                seen.add(tuple(chain))
                idx.append(self.add_ustack(chain))
            self.gstacks.append(idx)

    def vcpu_tid(self, m, vcpu):
        """the host thread that runs vcpu VCPU of guest M (its VMM's thread)"""
        return self.mpid[m] + 1 + vcpu

    def gmisc(self, misc, m):
        """header.misc of an event of machine M: a guest's events are
        GUEST_USER if they were USER, else GUEST_KERNEL (perf inject
        --guest-data's conversion)"""
        if not m:
            return misc
        mode = MISC_GUEST_USER if misc & MISC_USER else MISC_GUEST_KERNEL
        return (misc & ~MISC_CPUMODE_MASK) | mode

    def r_id_index(self):
        """PERF_RECORD_ID_INDEX with the extended entries: the host's ids
        (per cpu, machine pid 0), each guest's (per vcpu: its VMM thread,
        machine pid, vcpu)"""
        p = self.enc.pack
        e1, e2 = [], []
        for m, ids in enumerate(self.mids):
            for c, i in enumerate(ids):
                if m == 0:
                    e1.append(p("QQqq", i, 0, c, -1))
                    e2.append(p("QQ", 0, 0))
                else:
                    e1.append(p("QQqq", i, 0, -1, self.vcpu_tid(m, c)))
                    e2.append(p("QQ", self.mpid[m], c))
        return self.hdr(R_ID_INDEX, 0, p("Q", len(e1)) + b"".join(e1) + b"".join(e2))

    def note_sample(self, e, time, kpart, user_mode, ip):
        """per machine counts, (tid, cookie) across machines, --chains"""
        st = self.gstat[e.m]
        st["samples"] += 1
        st["samples_user_mode" if user_mode else "samples_kernel_mode"] += 1
        if self.a.guests:
            d = self.gkeys.setdefault((e.tid, e.cookie), {})
            d[e.m] = d.get(e.m, 0) + 1
        if self.chains is None:
            return
        k = [] if user_mode else list(struct.unpack(self.enc.e + "%dQ" % (len(kpart) // 8), kpart))[1:]
        if not e.has_record or e.bad == "nr0":
            u = []
        elif e.bad == "nr-big":
            u = self.big_stack(e)
        else:
            u = self.ustacks[e.ustack]
        self.chains.append((time, self.mpid[e.m], e.pid, e.tid, e.cookie, ip, k, u))

    def write_chains(self, path):
        def ips(v):
            return ",".join("%x" % i for i in v) if v else "-"
        with open(path, "w") as f:
            f.write("# time machine_pid pid tid cookie ip kernel_ips user_ips"
                    " (the merged chain; '-': none)\n")
            for tm, mp, pid, tid, ck, ip, k, u in sorted(self.chains):
                f.write("%d %d %d %d %#x %x %s %s\n" % (tm, mp, pid, tid, ck, ip, ips(k), ips(u)))

    def guest_summary(self):
        keys = [d for d in self.gkeys.values() if len(d) > 1]
        tids = {}
        for (tid, _), d in self.gkeys.items():
            tids.setdefault(tid, set()).update(d)
        out = dict(machines=self.gstat,
                   vcpu_tids={str(self.mpid[m]): [self.vcpu_tid(m, c) for c in range(self.a.cpus)]
                              for m in range(1, len(self.mpid))},
                   threads_per_machine=len(self.threads),
                   tids_sampled_in_more_than_one_machine=sum(1 for v in tids.values() if len(v) > 1),
                   same_tid_cookie_across_machines=len(keys),
                   samples_sharing_tid_cookie_with_another_machine=sum(sum(d.values()) for d in keys),
                   same_tid_cookie_host_and_guest=sum(1 for d in keys if 0 in d),
                   same_tid_cookie_between_guests=sum(1 for d in keys if len(set(d) - {0}) > 1))
        return out

    # -- scenarios: off-CPU (--blocked), execve (--exec), tid reuse
    # (--tid-reuse), samples without a thread id (--no-tid).  Their events
    # come on top of the --samples normal ones, at fixed fractions of them.
    def add_ustack(self, chain):
        """a user stack of our own; returns its index"""
        u = self.enc.u64s
        self.ustacks.append(chain)
        self.upart_floor.append(u([CTX_USER] + chain))
        self.urec.append(u(chain))
        return len(self.ustacks) - 1

    def kchain(self, names):
        """kernel ips in the functions NAMES (those present), leaf first"""
        ks, x, out = self.ksyms, self.xrng, []
        for n in names:
            if ks:
                if n in ks.addr:
                    v, s = ks.addr[n]
                    out.append(v + x.randrange(1, max(2, min(s, 4096))))
            else:
                out.append(0xffffffff81000000 + (zlib.crc32(n.encode()) & 0xffffff))
        return out

    def make_scenarios(self):
        a, x = self.a, self.xrng
        self.sc = {}
        self.next_tid = a.first_pid + a.threads
        sys_tail = ["x64_sys_call", "do_syscall_64", "entry_SYSCALL_64_after_hwframe"]
        u = self.enc.u64s
        if a.blocked:
            # a read() that blocks: the sched_switch-like sample in __schedule
            koff = []
            for mid in (["schedule_timeout", "wait_woken", "n_tty_read", "tty_read"],
                        ["wait_woken", "n_tty_read", "tty_read"],
                        ["schedule_timeout", "n_tty_read", "tty_read"],
                        ["n_tty_read", "tty_read"]):
                c = self.kchain(["__schedule", "schedule"] + mid
                                + ["vfs_read", "ksys_read", "__x64_sys_read"] + sys_tail)
                koff.append((u([CTX_KERNEL] + c), c[0]))
            pid = self.pids[0]
            thr = []
            for i in range(a.blocked):
                thr.append((pid, self.next_tid, i % a.cpus))
                self.next_tid += 1
            never = set(x.sample(range(a.blocked), int(round(a.blocked * a.blocked_never))))
            self.sc["blocked"] = dict(threads=thr, never=never, koff=koff, entries=[])
        if a.exec:
            old = Binary(a.exec_from)
            nstart = self.bin.map_range()[0]
            ostart, olen, opgoff = old.map_range()
            if ostart != nstart:
                sys.stderr.write("gen_perfdata: --exec-from %s is mapped at %#x, --binary at %#x: "
                                 "not the same addresses\n" % (a.exec_from, ostart, nstart))
            if a.dso_path:
                odso = os.path.join(os.path.dirname(a.dso_path), os.path.basename(a.exec_from))
            else:
                odso = os.path.abspath(a.exec_from)
            names = sorted(n for n, (v, s) in old.funcs.items() if s >= 16)
            outer = [n for n in ("main", "__libc_start_call_main", "__libc_start_main_impl",
                                 "_start") if n in old.funcs]

            def oip(name, leaf=False):
                v, s = old.funcs[name]
                return v + (x.randrange(0, s) if leaf else x.randrange(1, s))
            ostacks = []
            for _ in range(4):
                depth = x.randrange(1, 5)
                c = [oip(x.choice(names), True)] + [oip(x.choice(names)) for _ in range(depth - 1)]
                ostacks.append(self.add_ustack(c + [oip(n) for n in outer]))
            # the record of the execve entry: ips of the NEW program
            f = self.bin.funcs
            want = [n for n in ("a_outer", "thread_a_entry") if n in f]
            if len(want) < 2:
                want = sorted(n for n, (v, s) in f.items() if s >= 16)[:2]
            chain = [f[want[0]][0] + x.randrange(1, f[want[0]][1])] + \
                [f[n][0] + x.randrange(1, f[n][1]) for n in want[1:]]

            def sym(b, ip):
                for n, (v, s) in b.funcs.items():
                    if v <= ip < v + s:
                        return n
                return None
            kex = []
            for mid in (["begin_new_exec", "load_elf_binary", "bprm_execve"],
                        ["setup_arg_pages", "load_elf_binary", "bprm_execve"],
                        ["copy_strings.isra.0"]):
                c = self.kchain(mid + ["do_execveat_common.isra.0", "__x64_sys_execve"] + sys_tail)
                kex.append((u([CTX_KERNEL] + c), c[0]))
            pid = self.next_tid
            self.next_tid += 1
            ostart_, olen_, opgoff_ = old.map_range()
            self.sc["exec"] = dict(
                pid=pid, cpu=pid % a.cpus, old_map=(ostart_, olen_, opgoff_), old_dso=odso,
                old_comm=os.path.basename(a.exec_from)[:15], new_comm=self.comm,
                old_stacks=ostacks, exec_stack=self.add_ustack(chain), kexec=kex,
                exec_ips=chain, new_symbols=want, old_symbols=[sym(old, ip) for ip in chain])
        if a.tid_reuse:
            tid = self.next_tid
            self.next_tid += 1
            self.sc["tid_reuse"] = dict(pid=self.pids[0], tid=tid, cpu=tid % a.cpus)
        if a.no_tid:
            self.sc["no_tid"] = dict(n=a.no_tid)

    def sc_entry(self, pid, tid, cpu, ustack, has_record=True):
        e = Entry()
        e.pid, e.tid, e.cpu, e.ustack = pid, tid, cpu, ustack
        e.user_mode, e.has_record, e.kstacks = False, has_record, []
        e.cookie = self.new_cookie(cpu)
        return e

    def sc_sample(self, e, kpart=None, kip=None):
        """one kernel-mode deferred sample of entry E (a random ordinary
        kernel stack unless KPART/KIP); returns its event"""
        if kpart is None:
            k = self.xrng.randrange(len(self.kstacks))
            kpart, kip = self.kpart[k], self.kstacks[k][0]
        tm = self.tick()
        d, f = self.r_sample(e, tm, e.cpu, kpart, False, kip)
        ex = self.ex
        ex["samples"] += 1
        ex["samples_with_USER_DEFERRED"] += 1
        ex["samples_kernel_mode"] += 1
        e.kstacks.append(0)
        if e.has_record:
            ex["samples_matched"] += 1
            if len(e.kstacks) == 1:
                self.pending[0] += 1
            self.pending[1] += 1
            info = self.info
            info["max_pending_entries"] = max(info["max_pending_entries"], self.pending[0])
            info["max_pending_samples"] = max(info["max_pending_samples"], self.pending[1])
        else:
            ex["samples_unmatched"] += 1
            ex["unmatched_samples_whose_cookie_never_appears"] += 1
        return (tm, e.cpu, "sample", (d, f, e if e.has_record else None))

    def sc_record(self, e):
        tm = self.tick()
        self.ex["deferred_records"] += 1
        self.ex["deferred_records_used"] += 1
        self.pending[0] -= 1
        self.pending[1] -= len(e.kstacks)
        return (tm, e.cpu, "record", (self.r_deferred(e, tm, e.cpu), e))

    def sc_raw(self, cpu, make):
        tm = self.tick()
        return (tm, cpu, "raw", make(tm))

    def sc_plain(self, pid, tid, cpu, ustack, n):
        """an ordinary syscall entry: N samples, then its record"""
        e = self.sc_entry(pid, tid, cpu, ustack)
        for _ in range(n):
            yield self.sc_sample(e)
        yield self.sc_record(e)

    def sc_start(self):
        """side-band at the start of the recording"""
        a, sc = self.a, self.sc
        if "exec" in sc:
            x = sc["exec"]
            p, c = x["pid"], x["cpu"]
            s, ln, pg = x["old_map"]
            yield self.sc_raw(c, lambda tm: self.r_comm(p, p, x["old_comm"], tm, c, True))
            yield self.sc_raw(c, lambda tm: self.r_mmap2(p, p, s, ln, pg, x["old_dso"], tm, c,
                                                         MISC_USER, 5, 4343))
        if "tid_reuse" in sc:
            r = sc["tid_reuse"]
            yield self.sc_raw(r["cpu"], lambda tm: self.r_comm(r["pid"], r["tid"], self.comm,
                                                               tm, r["cpu"]))
        if "blocked" in sc:
            for pid, tid, cpu in sc["blocked"]["threads"]:
                yield self.sc_raw(cpu, lambda tm: self.r_comm(pid, tid, self.comm, tm, cpu))

    def sc_schedule(self):
        """[(normal samples written before it, order, generator function)]"""
        a, sc, out = self.a, self.sc, []
        if "blocked" in sc:
            b = sc["blocked"]
            n = len(b["threads"])
            for i, (pid, tid, cpu) in enumerate(b["threads"]):
                def one(i=i, pid=pid, tid=tid, cpu=cpu):
                    e = self.sc_entry(pid, tid, cpu, self.xrng.randrange(a.stacks),
                                      i not in b["never"])
                    kp, kip = b["koff"][i % len(b["koff"])]
                    yield self.sc_sample(e, kp, kip)
                    b["entries"].append(e)
                out.append((int(a.samples * a.blocked_spread * i / n), 0, one))
        if "no_tid" in sc:
            n = sc["no_tid"]["n"]
            for i in range(n):
                def one(i=i):
                    e = self.sc_entry(-1, -1, i % a.cpus, 0, False)
                    yield self.sc_sample(e)
                out.append((a.samples * (i + 1) // (n + 1), 1, one))
        if "exec" in sc:
            x = sc["exec"]

            def run():
                p, c, xr = x["pid"], x["cpu"], self.xrng
                for _ in range(a.exec_entries):   # the old program's syscalls
                    yield from self.sc_plain(p, p, c, xr.choice(x["old_stacks"]), a.per_entry)
                # execve: samples in the exec path, then the new comm and
                # text mapping, then the record with the new program's ips
                e = self.sc_entry(p, p, c, x["exec_stack"])
                for i in range(a.exec_samples):
                    kp, kip = x["kexec"][i % len(x["kexec"])]
                    yield self.sc_sample(e, kp, kip)
                s, ln, pg = self.bin.map_range()
                yield self.sc_raw(c, lambda tm: self.r_comm(p, p, x["new_comm"], tm, c, True))
                yield self.sc_raw(c, lambda tm: self.r_mmap2(p, p, s, ln, pg, self.dso, tm, c,
                                                             MISC_USER, 5, 4242))
                yield self.sc_record(e)
                for _ in range(a.exec_entries):   # the new program's
                    yield from self.sc_plain(p, p, c, xr.randrange(a.stacks), a.per_entry)
            out.append((int(a.samples * a.exec_at), 2, run))
        if "tid_reuse" in sc:
            r = sc["tid_reuse"]

            def run():
                p, t, c, xr = r["pid"], r["tid"], r["cpu"], self.xrng
                for _ in range(a.tid_reuse_entries - 1):
                    yield from self.sc_plain(p, t, c, xr.randrange(a.stacks), a.per_entry)
                # the last entry: the task exits, its record comes after the
                # EXIT (per-CPU buffers)
                e = self.sc_entry(p, t, c, xr.randrange(a.stacks))
                for _ in range(a.per_entry):
                    yield self.sc_sample(e)
                yield self.sc_raw(c, lambda tm: self.r_exit(p, t, tm, c))
                yield self.sc_record(e)
                # seconds later a new thread gets the same tid
                self.t[0] += int(a.tid_reuse_gap_ms * 1e6)
                yield self.sc_raw(c, lambda tm: self.r_fork(p, t, tm, c))
                yield self.sc_raw(c, lambda tm: self.r_comm(p, t, self.comm, tm, c))
                for _ in range(a.tid_reuse_entries):
                    yield from self.sc_plain(p, t, c, xr.randrange(a.stacks), a.per_entry)
            out.append((int(a.samples * a.tid_reuse_at), 3, run))
        out.sort(key=lambda z: (z[0], z[1]))
        return out

    def sc_end(self):
        """after the other threads' EXITs: the exec'd and reused tids exit,
        the blocked threads wake up (their records, then their EXITs)"""
        a, sc = self.a, self.sc
        if "exec" in sc:
            p, c = sc["exec"]["pid"], sc["exec"]["cpu"]
            yield self.sc_raw(c, lambda tm: self.r_exit(p, p, tm, c))
        if "tid_reuse" in sc:
            r = sc["tid_reuse"]
            yield self.sc_raw(r["cpu"], lambda tm: self.r_exit(r["pid"], r["tid"], tm, r["cpu"]))
        if "blocked" in sc:
            self.t[0] += int(a.blocked_delay_ms * 1e6)
            woke = [e for e in sc["blocked"]["entries"] if e.has_record]
            for e in woke:
                yield self.sc_record(e)
            for e in woke:
                yield self.sc_raw(e.cpu, lambda tm, e=e: self.r_exit(e.pid, e.tid, tm, e.cpu))

    def sc_summary(self):
        a, sc, out = self.a, self.sc, {}
        if "blocked" in sc:
            b = sc["blocked"]
            out["blocked"] = dict(threads=len(b["threads"]), samples=len(b["entries"]),
                                  with_record=sum(1 for e in b["entries"] if e.has_record),
                                  never=len(b["never"]), delay_ms=a.blocked_delay_ms,
                                  first_tid=b["threads"][0][1], last_tid=b["threads"][-1][1],
                                  kernel_leaf="__schedule")
        if "exec" in sc:
            x = sc["exec"]
            out["exec"] = dict(pid=x["pid"], old_comm=x["old_comm"], new_comm=x["new_comm"],
                               old_binary=os.path.abspath(a.exec_from), samples_in_exec=a.exec_samples,
                               samples_before=a.exec_entries * a.per_entry,
                               samples_after=a.exec_entries * a.per_entry,
                               exec_ips=[hex(i) for i in x["exec_ips"]],
                               new_symbols=x["new_symbols"], old_symbols=x["old_symbols"])
        if "tid_reuse" in sc:
            r = sc["tid_reuse"]
            n = a.tid_reuse_entries * a.per_entry
            out["tid_reuse"] = dict(pid=r["pid"], tid=r["tid"], samples_first=n, samples_second=n,
                                    gap_ms=a.tid_reuse_gap_ms)
        if "no_tid" in sc:
            out["no_tid"] = dict(samples=sc["no_tid"]["n"])
        return out

    # -- records (return bytes for the deferred file and the floor file)
    def sid(self, pid, tid, time, cpu, m=0):
        if self.a.no_sample_id_all:
            return b""
        b = self.enc.pack("iiQ", pid, tid, time)
        if self.stype & S_ID:
            b += self.enc.pack("Q", self.mids[m][cpu])
        if self.stype & S_CPU:
            b += self.enc.pack("II", cpu, 0)
        return b

    def hdr(self, typ, misc, body):
        return self.enc.pack("IHH", typ, misc, 8 + len(body)) + body

    def r_comm(self, pid, tid, name, time, cpu, exec_=False, m=0):
        return self.hdr(R_COMM, self.gmisc(MISC_COMM_EXEC if exec_ else 0, m),
                        self.enc.pack("ii", pid, tid) + cstr(name, 16)
                        + self.sid(pid, tid, time, cpu, m))

    def r_mmap2(self, pid, tid, start, length, pgoff, name, time, cpu, misc, prot=5, ino=0, m=0):
        body = (self.enc.pack("iiQQQIIQQII", pid, tid, start, length, pgoff, 8, 1, ino, 0, prot, 2)
                + cstr(name) + self.sid(pid, tid, time, cpu, m))
        return self.hdr(R_MMAP2, self.gmisc(misc, m), body)

    def r_exit(self, pid, tid, time, cpu, m=0):
        return self.hdr(R_EXIT, self.gmisc(0, m), self.enc.pack("iiiiQ", pid, pid, tid, pid, time)
                        + self.sid(pid, tid, time, cpu, m))

    def r_fork(self, pid, tid, time, cpu):
        return self.hdr(R_FORK, 0, self.enc.pack("iiiiQ", pid, pid, tid, pid, time)
                        + self.sid(pid, tid, time, cpu))

    def r_sample(self, e, time, cpu, kpart, user_mode, kernel_ip):
        st, p = self.stype, self.enc.pack
        ip = self.ustacks[e.ustack][0] if user_mode else kernel_ip
        head = p("QiiQ", ip, e.pid, e.tid, time)
        if st & S_ID:
            head += p("Q", self.mids[e.m][cpu])
        if st & S_CPU:
            head += p("II", cpu, 0)
        head += p("Q", 1000000)
        misc = self.gmisc(MISC_USER if user_mode else MISC_KERNEL, e.m)
        kp = b"" if user_mode else kpart
        self.note_sample(e, time, kpart, user_mode, ip)
        dchain = kp + p("QQ", CTX_USER_DEFERRED, e.cookie)
        if e.bad == "nr0":
            fchain = kp
        elif e.bad == "nr-big":
            fchain = kp + self.enc.u64s([CTX_USER] + self.big_stack(e))
        else:
            fchain = kp + self.upart_floor[e.ustack]
        d = self.hdr(R_SAMPLE, misc, head + p("Q", len(dchain) // 8) + dchain)
        f = self.hdr(R_SAMPLE, misc, head + p("Q", len(fchain) // 8) + fchain)
        return d, f

    def big_stack(self, e):
        s = self.ustacks[e.ustack]
        return (s[:-1] * (600 // max(1, len(s) - 1) + 1))[:599] + s[-1:]

    def r_deferred(self, e, time, cpu):
        p = self.enc.pack
        if e.bad == "nr0":
            ips, nr = b"", 0
        elif e.bad == "nr-big":
            ips = self.enc.u64s(self.big_stack(e))
            nr = 600
        else:
            ips = self.urec[e.ustack]
            nr = len(ips) // 8
        if e.bad == "nr-past-end":
            nr += 1000
        sid = b"" if e.bad == "no-sample-id" else self.sid(e.pid, e.tid, time, cpu, e.m)
        self.gstat[e.m]["deferred_records"] += 1
        return self.hdr(R_DEFERRED, self.gmisc(MISC_USER, e.m), p("QQ", e.cookie, nr) + ips + sid)

    # -- headers
    def attr(self, defer):
        a, p = self.a, self.enc.pack
        bits = [A_DISABLED, A_INHERIT, A_MMAP, A_COMM, A_FREQ, A_ENABLE_ON_EXEC, A_TASK,
                A_MMAP2, A_COMM_EXEC]
        if not a.no_sample_id_all:
            bits.append(A_SAMPLE_ID_ALL)
        if defer:
            bits += [A_DEFER_CALLCHAIN, A_DEFER_OUTPUT]
        b = p("IIQQQQ", 1, a.attr_size, 0, 1000, self.stype, F_ID) + self.enc.flags(bits)
        return b + b"\0" * (a.attr_size - len(b))

    def features(self, defer):
        e = self.enc
        desc = (e.pack("II", 1, self.a.attr_size) + self.attr(defer) + e.pack("I", len(self.all_ids))
                + feat_string(e, "cpu-clock") + e.u64s(self.all_ids))
        return [(FEAT_HOSTNAME, feat_string(e, "perf-defer-gen")),
                (FEAT_OSRELEASE, feat_string(e, "7.2.0-synthetic")),
                (FEAT_VERSION, feat_string(e, "7.2.synthetic")),
                (FEAT_ARCH, feat_string(e, "x86_64")),
                (FEAT_NRCPUS, e.pack("II", self.a.cpus, self.a.cpus)),
                (FEAT_CMDLINE, e.pack("I", 2) + feat_string(e, "perf") + feat_string(e, "record")),
                (FEAT_EVENT_DESC, desc)]

    # -- event stream in time order: yields (time, cpu, kind, payload)
    def events(self):
        a, rng = self.a, self.rng
        t = [a.start_time]

        def tick():
            t[0] += rng.randrange(200, 2000)
            return t[0]
        self.t, self.tick = t, tick

        ks = self.ksyms
        if ks:
            yield (0, 0, "raw", self.r_mmap2(-1, 0, ks.text, ks.etext - ks.text, ks.text,
                                             "[kernel.kallsyms]_text", 0, 0, MISC_KERNEL, 0, 0))
        else:
            yield (0, 0, "raw", self.r_mmap2(-1, 0, 0xffffffff81000000, 0x1000000,
                                             0xffffffff81000000, "[kernel.kallsyms]_text",
                                             0, 0, MISC_KERNEL, 0, 0))
        start, length, pgoff = self.bin.map_range()
        for pid in self.pids:
            tm = tick()
            cpu = (pid - a.first_pid) % a.cpus
            yield (tm, cpu, "raw", self.r_comm(pid, pid, self.comm, tm, cpu, True))
            tm = tick()
            yield (tm, cpu, "raw", self.r_mmap2(pid, pid, start, length, pgoff, self.dso,
                                                tm, cpu, MISC_USER, 5, 4242))
        for pid, tid, cpu in self.threads:
            if tid != pid:
                tm = tick()
                yield (tm, cpu, "raw", self.r_comm(pid, tid, self.comm, tm, cpu))
        # each guest runs the same program, same pids and tids, mapped at
        # the same addresses (its events: guest cpumode, the guest's ids)
        for m in range(1, a.guests + 1):
            for pid in self.pids:
                cpu = (pid - a.first_pid) % a.cpus
                tm = tick()
                yield (tm, cpu, "raw", self.r_comm(pid, pid, self.comm, tm, cpu, True, m=m))
                tm = tick()
                yield (tm, cpu, "raw", self.r_mmap2(pid, pid, start, length, pgoff, self.dso,
                                                    tm, cpu, MISC_USER, 5, 4242, m=m))
            for pid, tid, cpu in self.threads:
                if tid != pid:
                    tm = tick()
                    yield (tm, cpu, "raw", self.r_comm(pid, tid, self.comm, tm, cpu, m=m))
        yield from self.sc_start()
        sched = self.sc_schedule()

        def due(done):
            while sched and sched[0][0] <= done:
                yield from sched.pop(0)[2]()

        # bad-input positions: emitted-sample thresholds
        bad = []
        for spec in a.bad:
            kind, _, n = spec.partition(":")
            n = int(n or 1)
            for k in range(n):
                bad.append((a.samples * (k + 1) // (n + 1), kind))
        bad.sort(key=lambda x: x[0])
        ex, info = self.ex, self.info
        pending = [0, 0]  # entries, samples waiting for a record
        self.pending = pending

        def plan(ti, budget, m=0):
            pid, tid, cpu = self.threads[ti]
            e = Entry()
            e.pid, e.tid, e.cpu, e.m = pid, tid, cpu, m
            if m:
                gs = self.gstacks[m - 1]
                e.ustack = gs[rng.randrange(len(gs))]
            else:
                e.ustack = rng.randrange(self.host_nstacks)
            e.user_mode = rng.random() < a.user_frac
            n = 1 if e.user_mode else min(a.per_entry, budget)
            e.has_record = not (rng.random() < a.missing)
            late = e.has_record and rng.random() < a.late and budget > n
            # inject the bad inputs whose position falls in this entry
            while bad and bad[0][0] < ex["samples"] + n:
                kind = bad[0][1]
                if kind == "unknown-tid":
                    bad.pop(0)
                    self.unknown_tid += 1
                    u = Entry()
                    u.pid, u.cpu = pid, cpu
                    u.tid = self.threads[-1][1] + 1000 + self.unknown_tid
                    u.ustack, u.cookie = e.ustack, self.new_cookie(cpu)
                    self.standalone.append(u)
                    info["bad"][kind] = info["bad"].get(kind, 0) + 1
                    continue
                if e.bad:
                    break  # one per entry: the next entry takes it
                bad.pop(0)
                e.bad = kind
                info["bad"][kind] = info["bad"].get(kind, 0) + 1
                e.has_record = True
                if kind == "bogus-ip":
                    s = self.ustacks[e.ustack]
                    e.ustack = self.add_ustack(s[:1] + [BOGUS_IP] + s[1:])
                if kind in ("nr0", "nr-big", "bogus-ip") and e.user_mode:
                    e.user_mode = False
                    n = min(a.per_entry, budget)
                if kind in ("cookie0", "dup"):
                    late = False
                late = late and budget > n
            e.kstacks = [rng.randrange(len(self.kstacks)) for _ in range(n)]
            e.cookie = 0 if e.bad == "cookie0" else self.new_cookie(cpu, m)
            if e.cookie == 0:
                c0 = self.cookie0_tids
                c0[tid] = c0.get(tid, 0) + 1
                if c0[tid] == 2:  # (tid, 0) now has more than one record
                    ex["deferred_with_same_tid_cookie_more_than_once"] += 1
            return e, n, late

        def samples_of(e):
            for k in e.kstacks:
                tm = tick()
                d, f = self.r_sample(e, tm, e.cpu, self.kpart[k], e.user_mode, self.kstacks[k][0])
                ex["samples"] += 1
                ex["samples_with_USER_DEFERRED"] += 1
                ex["samples_user_mode" if e.user_mode else "samples_kernel_mode"] += 1
                if e.has_record:
                    ex["samples_matched"] += 1
                else:
                    ex["samples_unmatched"] += 1
                    ex["unmatched_samples_whose_cookie_never_appears"] += 1
                yield (tm, e.cpu, "sample", (d, f, e if e.has_record else None))
            info["entries"] += 1
            info["entries_user" if e.user_mode else "entries_kernel"] += 1
            if e.has_record:
                pending[0] += 1
                pending[1] += len(e.kstacks)
                info["max_pending_entries"] = max(info["max_pending_entries"], pending[0])
                info["max_pending_samples"] = max(info["max_pending_samples"], pending[1])
            else:
                info["entries_missing_record"] += 1

        def record_of(e, late):
            if not e.has_record:
                return
            pending[0] -= 1
            pending[1] -= len(e.kstacks)
            cpu = e.cpu
            if a.cpus > 1 and rng.random() < a.migrate:
                cpu = (cpu + 1 + rng.randrange(a.cpus - 1)) % a.cpus
                info["records_migrated"] += 1
            tm = tick()
            ex["deferred_records"] += 1
            ex["deferred_records_used"] += 1
            yield (tm, cpu, "record", (self.r_deferred(e, tm, cpu), e))
            if e.bad == "dup":
                tm = tick()
                ex["deferred_records"] += 1
                ex["deferred_records_orphan"] += 1
                ex["deferred_with_same_tid_cookie_more_than_once"] += 1
                yield (tm, (cpu + 1) % a.cpus, "record", (self.r_deferred(e, tm, (cpu + 1) % a.cpus), None))
            if late:
                tm = tick()
                d, f = self.r_sample(e, tm, e.cpu, self.kdefer_part, False, self.kdefer[0])
                ex["samples"] += 1
                ex["samples_kernel_mode"] += 1
                ex["samples_with_USER_DEFERRED"] += 1
                ex["samples_unmatched"] += 1
                ex["unmatched_samples_taken_AFTER_their_cookies_record"] += 1
                yield (tm, e.cpu, "sample", (d, f, None))

        def standalone():
            while self.standalone:
                u = self.standalone.pop()
                tm = tick()
                ex["deferred_records"] += 1
                ex["deferred_records_orphan"] += 1
                yield (tm, u.cpu, "record", (self.r_deferred(u, tm, u.cpu), None))

        def slots():
            """(thread, machine) in turn: with --guests each thread makes an
            entry in every machine, in a random machine order: the k-th
            entry on a cpu is the same thread's in every machine, so it
            gets the same cookie there"""
            for ti in range(len(self.threads)):
                if not a.guests:
                    yield ti, 0
                    continue
                ms = list(range(a.guests + 1))
                self.grng.shuffle(ms)
                for m in ms:
                    yield ti, m

        self.unknown_tid = 0
        self.standalone = []
        self.cookie0_tids = {}
        budget = a.samples
        while budget > 0:
            if a.schedule == "interleave":
                for ti, m in slots():
                    if budget <= 0:
                        break
                    yield from due(a.samples - budget)
                    e, n, late = plan(ti, budget, m)
                    budget -= n + late
                    yield from samples_of(e)
                    yield from record_of(e, late)
                    yield from standalone()
            else:
                wave = []
                for ti, m in slots():
                    if budget <= 0:
                        break
                    yield from due(a.samples - budget)
                    e, n, late = plan(ti, budget, m)
                    budget -= n + late
                    wave.append((e, late))
                    yield from samples_of(e)
                for e, late in wave:
                    yield from record_of(e, late)
                yield from standalone()
        yield from due(float("inf"))
        for pid, tid, cpu in self.threads:
            tm = tick()
            yield (tm, cpu, "raw", self.r_exit(pid, tid, tm, cpu))
        for m in range(1, a.guests + 1):
            for pid, tid, cpu in self.threads:
                tm = tick()
                yield (tm, cpu, "raw", self.r_exit(pid, tid, tm, cpu, m=m))
        yield from self.sc_end()

    # -- writing
    def write(self):
        a = self.a
        fd = open(a.output, "wb")
        ff = open(a.floor, "wb") if a.floor else None
        outs = [(fd, True)] + ([(ff, False)] if ff else [])
        attr_d, attr_f = self.attr(True), self.attr(False)
        ids = self.enc.u64s(self.all_ids)
        p = self.enc.pack
        MAGIC = 0x32454c4946524550
        if a.mode == "pipe":
            for f, defer in outs:
                f.write(p("QQ", MAGIC, 16))
                f.write(self.hdr(R_HEADER_ATTR, 0, (attr_d if defer else attr_f) + ids))
                for fid, payload in self.features(defer):
                    f.write(self.hdr(R_HEADER_FEATURE, 0, p("Q", fid) + payload))
            data_off = {f: f.tell() for f, _ in outs}
        else:
            hsize = 104
            for f, defer in outs:
                f.write(b"\0" * hsize)
                f.write(ids)
                f.write(attr_d if defer else attr_f)
                f.write(p("QQ", hsize, len(ids)))
            data_off = {f: f.tell() for f, _ in outs}
        if a.guests:
            # which machine each id is of: before any event (perf processes
            # it at once, the other events are sorted)
            idx = self.r_id_index()
            for f, _ in outs:
                f.write(idx)

        fr = self.hdr(R_FINISHED_ROUND, 0, b"")
        ex = self.ex
        rnd = []

        def flush():
            rnd.sort(key=lambda x: (x[1], x[0]))
            bd, bf = [], []
            for tm, cpu, kind, pl in rnd:
                self.seq += 1
                if kind == "raw":
                    bd.append(pl)
                    bf.append(pl)
                elif kind == "sample":
                    bd.append(pl[0])
                    bf.append(pl[1])
                    e = pl[2]
                    if e is not None and e.rec_seq is not None:
                        ex["matched_samples_whose_deferred_record_is_EARLIER_in_file_order"] += 1
                else:
                    bd.append(pl[0])
                    if a.floor_records:
                        bf.append(pl[0])
                    if pl[1] is not None:
                        pl[1].rec_seq = self.seq
            bd.append(fr)
            bf.append(fr)
            self.seq += 1
            fd.write(b"".join(bd))
            if ff:
                ff.write(b"".join(bf))
            self.info["rounds"] += 1
            rnd.clear()

        for ev in self.events():
            rnd.append(ev)
            if len(rnd) >= a.round_events:
                flush()
        if rnd:
            flush()
        sizes = {}
        for f, defer in outs:
            end = f.tell()
            if a.mode == "file":
                dsize = end - data_off[f]
                feats = self.features(defer)
                f.write(b"\0" * (16 * len(feats)))
                secs = []
                for _, payload in feats:
                    secs.append((f.tell(), len(payload)))
                    f.write(payload)
                f.seek(end)
                for off, sz in secs:
                    f.write(p("QQ", off, sz))
                f.seek(0)
                bits = 0
                for fid, _ in feats:
                    bits |= 1 << fid
                attrs_off = 104 + len(ids)
                f.write(p("QQQ", MAGIC, 104, a.attr_size + 16))
                f.write(p("QQQQQQ", attrs_off, a.attr_size + 16, data_off[f], dsize, 0, 0))
                f.write(p("QQQQ", bits, 0, 0, 0))
            f.seek(0, 2)
            sizes[f] = f.tell()
            f.close()
        return sizes[fd], (sizes[ff] if ff else None), data_off[fd]


def truncate(path, data_off, frac, endian, pipe, header):
    """Cut the file inside the record found at FRAC of the data; count what
    is complete before the cut.  File mode: HEADER keep leaves the header as
    it was (data size and features past the end of the file), fit sets the
    data size to what is left (the last record is cut short) and zero sets it
    to 0 (a killed `perf record`); both drop the features."""
    e = "<" if endian == "little" else ">"
    with open(path, "rb") as f:
        b = f.read()
    if pipe:
        end = len(b)
    else:
        dsize, = struct.unpack_from(e + "Q", b, 48)
        end = data_off + dsize
    target = data_off + int((end - data_off) * frac)
    off, n = data_off, {}
    while off < end:
        typ, _, size = struct.unpack_from(e + "IHH", b, off)
        if off + size > target:
            cut = off + max(1, size // 2)
            break
        n[typ] = n.get(typ, 0) + 1
        off += size
    else:
        cut = end
    with open(path, "r+b") as f:
        f.truncate(cut)
        if not pipe and header != "keep":
            f.seek(48)
            f.write(struct.pack(e + "Q", cut - data_off if header == "fit" else 0))
            f.seek(72)
            f.write(b"\0" * 32)
    return dict(cut_offset=cut, original_size=len(b), header=header,
                samples_before_cut=n.get(R_SAMPLE, 0), records_before_cut=n.get(R_DEFERRED, 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (head of this file) for the model.")
    ap.add_argument("-o", "--output", required=True, help="deferred perf.data file to write")
    ap.add_argument("--floor", help="also write the same samples with full callchains here")
    ap.add_argument("--floor-records", action="store_true",
                    help="write the records into the floor file too: what reading them costs "
                         "a perf that drops them (tests/bench/lower-bound.sh)")
    ap.add_argument("--samples", type=int, default=1000, help="total samples (default 1000)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--procs", type=int, default=1, help="processes the threads are spread over")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--per-entry", type=int, default=1, help="samples per kernel entry (S)")
    ap.add_argument("--user-frac", type=float, default=0.3, help="fraction of user-mode entries")
    ap.add_argument("--schedule", choices=("interleave", "burst"), default="interleave")
    ap.add_argument("--migrate", type=float, default=0.0,
                    help="fraction of records written into another CPU's buffer")
    ap.add_argument("--late", type=float, default=0.0,
                    help="fraction of entries with a sample taken after its record")
    ap.add_argument("--missing", type=float, default=0.0,
                    help="fraction of entries whose record is never written")
    ap.add_argument("--round-events", type=int, default=2048,
                    help="events per FINISHED_ROUND (default 2048)")
    ap.add_argument("--mode", choices=("file", "pipe"), default="file")
    ap.add_argument("--endian", choices=("little", "big"), default="little")
    ap.add_argument("--attr-size", type=int, choices=(136, 144), default=136)
    ap.add_argument("--sample-id", action="store_true", help="add PERF_SAMPLE_ID")
    ap.add_argument("--sample-cpu", action="store_true", help="add PERF_SAMPLE_CPU")
    ap.add_argument("--no-sample-id-all", action="store_true",
                    help="attr without sample_id_all: no record has a tid or time")
    ap.add_argument("--binary", default=os.path.join(FIX, "bin", "mt_syscalls"),
                    help="static ELF whose text the user frames fall in")
    ap.add_argument("--dso-path", help="file name in its MMAP2 (default: the binary's absolute "
                    "path; /fixtures/bin/NAME to use perf --symfs like the real recordings)")
    ap.add_argument("--kallsyms", help="kallsyms (.xz ok) to take kernel addresses from "
                    "(default: the fixtures' guest kallsyms; '' for made-up addresses)")
    ap.add_argument("--stacks", type=int, default=32, help="distinct user stacks")
    ap.add_argument("--start-time", type=int, default=10_000_000_000)
    ap.add_argument("--first-pid", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--guests", type=int, default=0, metavar="N",
                    help="N guest machines besides the host, with the host's pids and tids, "
                    "user stacks of their own, the same cookie values; implies --sample-id "
                    "and writes a PERF_RECORD_ID_INDEX with machine pids (see the docstring)")
    ap.add_argument("--guest-own-cookies", type=float, default=0.25, metavar="FRAC",
                    help="with --guests: fraction of a guest's entries whose cookie no other "
                    "machine has (the others: the host's value of the same entry; default 0.25)")
    ap.add_argument("--chains", metavar="FILE",
                    help="write each sample's expected merged chain here, one line per sample "
                    "in time order: TIME MACHINE_PID PID TID COOKIE IP KERNEL_IPS USER_IPS")
    ap.add_argument("--bad", action="append", default=[], metavar="KIND[:N]",
                    help="inject bad input: " + ", ".join(BAD_KINDS))
    ap.add_argument("--truncate", type=float, metavar="FRAC",
                    help="cut the deferred file inside the record at FRAC of its data")
    ap.add_argument("--truncate-header", choices=("keep", "fit", "zero"), default="keep",
                    help="file mode header after --truncate: keep it (data size and features "
                    "past EOF), fit the data size to the cut, or zero it like a killed perf "
                    "record (default keep)")
    sc = ap.add_argument_group("scenarios (events on top of the --samples ones; see the docstring)")
    sc.add_argument("--blocked", type=int, default=0, metavar="N",
                    help="off-CPU: N more threads take one kernel-mode sample each early "
                    "(in __schedule under read()) and get their records only at the very end")
    sc.add_argument("--blocked-never", type=float, default=0.0, metavar="FRAC",
                    help="fraction of the --blocked threads that never get a record")
    sc.add_argument("--blocked-spread", type=float, default=0.1, metavar="FRAC",
                    help="the blocked samples are spread over this first fraction of the "
                    "normal samples (default 0.1)")
    sc.add_argument("--blocked-delay-ms", type=float, default=0.0, metavar="MS",
                    help="stream time between the last other event and the blocked "
                    "threads' records (default 0)")
    sc.add_argument("--exec", action="store_true",
                    help="a process of its own (the --exec-from program) execs the --binary "
                    "one: samples in the exec path, COMM|EXEC and MMAP2 of the new program at "
                    "the same addresses, then their record with the new program's ips")
    sc.add_argument("--exec-from", default=os.path.join(FIX, "bin", "st_syscalls"),
                    metavar="PATH", help="the program before the exec (default st_syscalls)")
    sc.add_argument("--exec-at", type=float, default=0.5, metavar="FRAC",
                    help="where in the normal samples the exec happens (default 0.5)")
    sc.add_argument("--exec-samples", type=int, default=3, metavar="N",
                    help="samples taken inside execve (default 3)")
    sc.add_argument("--exec-entries", type=int, default=2, metavar="N",
                    help="ordinary syscalls before and after the exec (default 2 each)")
    sc.add_argument("--tid-reuse", action="store_true",
                    help="a thread exits (its last record after its EXIT), and --tid-reuse-gap-ms "
                    "later a new thread gets the same tid (FORK, COMM) and takes samples")
    sc.add_argument("--tid-reuse-at", type=float, default=0.3, metavar="FRAC",
                    help="where in the normal samples the first thread starts (default 0.3)")
    sc.add_argument("--tid-reuse-entries", type=int, default=3, metavar="N",
                    help="syscalls of each of the two threads (default 3)")
    sc.add_argument("--tid-reuse-gap-ms", type=float, default=2000.0, metavar="MS",
                    help="stream time between the EXIT and the FORK (default 2000)")
    sc.add_argument("--no-tid", type=int, default=0, metavar="N",
                    help="N kernel-mode deferred samples with pid/tid (u32)-1, spread over the "
                    "stream, never completed")
    a = ap.parse_args()
    if a.blocked < 0 or a.no_tid < 0 or not 0 <= a.blocked_never <= 1 \
            or not 0 <= a.blocked_spread <= 1 or a.exec_samples < 1 or a.exec_entries < 0 \
            or a.tid_reuse_entries < 1:
        ap.error("bad scenario sizes")
    for spec in a.bad:
        if spec.partition(":")[0] not in BAD_KINDS:
            ap.error("unknown --bad kind %r" % spec)
    if a.samples < 0 or a.threads < 1 or a.procs < 1 or a.cpus < 1 or a.per_entry < 1:
        ap.error("bad sizes")
    a.procs = min(a.procs, a.threads)
    if a.truncate is not None and not 0 < a.truncate < 1:
        ap.error("--truncate takes a fraction in (0, 1)")
    if a.mode == "pipe" and a.endian == "big":
        ap.error("--endian big is for file mode only (perf swaps no pipe-mode feature)")
    if a.guests < 0 or a.guests > 40:
        ap.error("--guests takes 0..40")
    if not 0 <= a.guest_own_cookies <= 1:
        ap.error("--guest-own-cookies takes a fraction")
    if a.guests:
        if a.no_sample_id_all:
            ap.error("--guests needs sample_id_all: records name their machine by their id")
        if a.cpus > 999 or a.cpus * (a.guests + 1) > 1300:
            ap.error("--guests: too many (v)cpus for one ID_INDEX record")
        if a.first_pid + a.threads + a.blocked + 10 > guest_pid(1):
            ap.error("--guests: host tids would reach the VMM threads' (%d...)" % guest_pid(1))

    g = Gen(a)
    size, fsize, data_off = g.write()
    out = dict(file=a.output, floor_file=a.floor, mode=a.mode, endian=a.endian,
               attr_size=a.attr_size, sample_type=hex(g.stype), threads=a.threads,
               procs=a.procs, cpus=a.cpus, per_entry=a.per_entry, schedule=a.schedule,
               seed=a.seed, binary=os.path.abspath(a.binary), dso_path=g.dso,
               kallsyms=bool(g.ksyms), bytes=size, floor_bytes=fsize)
    out.update(g.info)
    # (deferred_stats.py matches by (tid, cookie), blind to machines: with
    # --guests the same (tid, cookie) is in several machines)
    checkable = not (set(g.info["bad"]) & set(UNPARSEABLE)) and a.truncate is None \
        and a.endian == "little" and not a.guests
    if a.truncate is not None:
        out["truncated"] = truncate(a.output, data_off, a.truncate, a.endian, a.mode == "pipe",
                                    a.truncate_header)
    out["stats_checkable"] = checkable
    scen = g.sc_summary()
    if scen:
        out["scenarios"] = scen
        ex = g.ex
        # what a merge that never gives a sample up reports (perf report
        # --stats, v2 labels); "out of time order" depends on its window
        out["scenarios"]["merged_stats"] = {
            "deferred samples": ex["samples_with_USER_DEFERRED"],
            "merged": ex["samples_matched"],
            "merged, after their record": ex["unmatched_samples_taken_AFTER_their_cookies_record"],
            "without user callchain": ex["unmatched_samples_whose_cookie_never_appears"],
            "of which without thread id": a.no_tid,
            "records used by no sample": ex["deferred_records_orphan"],
        }
    if a.no_sample_id_all:
        # records carry no tid and no time: a parser matching on (tid, cookie)
        # after the sample in time (deferred_stats.py) can match nothing.
        ex = g.ex
        ex["samples_matched"] = 0
        ex["samples_unmatched"] = ex["unmatched_samples_whose_cookie_never_appears"] = \
            ex["samples_with_USER_DEFERRED"]
        ex["unmatched_samples_taken_AFTER_their_cookies_record"] = 0
        ex["matched_samples_whose_deferred_record_is_EARLIER_in_file_order"] = 0
        ex["deferred_records_used"] = 0
        ex["deferred_records_orphan"] = ex["deferred_records"]
        ex["deferred_with_same_tid_cookie_more_than_once"] = g.info["bad"].get("dup", 0) + \
            (sum(g.cookie0_tids.values()) > 1)
    if a.guests:
        out["guests"] = g.guest_summary()
    if a.chains:
        g.write_chains(a.chains)
        out["chains_file"] = a.chains
    out["expect"] = g.ex
    out["floor_expect"] = dict(samples=g.ex["samples"],
                               deferred_records=g.ex["deferred_records"] if a.floor_records else 0,
                               samples_with_USER_DEFERRED=0)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
