#!/usr/bin/python3
"""check_chains.py - check the merged callchains that `perf script` prints
for the real-kernel harness recordings (tests/realkernel/run.sh).

    check_chains.py analyse SCRIPT.txt WORKLOAD
        SCRIPT.txt is `perf script -F comm,tid,time,event,ip,sym,dso` output.
        For every sample: no kernel frame after a user frame; the functions
        of our workload (workloads/WORKLOAD.c) in caller order, callee
        first, each thread's functions with its own.  Prints one line:
        "samples=N user=N ours=N bad=N" (user: samples with at least one
        user frame in a real object, ours: with at least one function of
        the workload) and the first few bad samples; exit status 1 if any.
        Samples taken in execve are left out of the counts (and counted,
        "execve=N"): their user stack is the old program's (plain fp) or
        the new program's entry point (deferred), not the workload's;
        interop checks the deferred ones against upstream perf.

    check_chains.py compare OURS.txt THEIRS.txt THEIRS-RAW.txt
        The same recording printed by two perf versions (merged, same -F),
        THEIRS-RAW.txt being THEIRS's --no-merge-callchains output (its
        "(cookie)" lines tell which of its samples it left unmerged: upstream
        perf prints such a cookie as an [unknown] user frame).  Samples are
        matched on (tid, time, event), not on order (upstream perf prints
        multi-threaded files out of time order), and their user frames
        compared by address (upstream perf prints inlined functions as
        frames of their own, and may pick another alias for a symbol).  Prints
        "compared=N same=N differ=N theirs-unmerged=N only-ours=N
        only-theirs=N" and the first differences; exit status 1 if any
        compared sample differs or a sample is missing on one side.

    check_chains.py interop OURS.txt THEIRS.txt THEIRS-RAW.txt WORKLOAD
        Like compare (same inputs), from upstream's side: every sample
        upstream perf merged (its raw output has a cookie for it, its merged
        output does not end with that cookie) must be merged by us with the
        same user addresses, and every user frame upstream perf names (not
        [unknown], nor an inlined function it prints instead of the symbol)
        must have the same symbol and object in ours.  For the
        exec workloads, whose samples taken in execve get the user stack of
        the new program, the comm too.  Two kinds of samples are counted
        apart and must be there:
          blocked reads (offcpu): sched_switch samples of the thread that
            blocks in blocker_read, with a read in their kernel part; ours
            must have blocker_read called from blocker_outer;
          exec'd samples (execer): samples with an exec in their kernel
            part, or whose user stack in upstream perf is just _start
            (taken at the very end of execve); upstream perf must have
            merged at least one.
        Prints the counts, then the first mismatches; exit status 1 if any.
"""
import hashlib
import re
import sys
from collections import Counter

KERNEL_START = 0xffff800000000000
HEAD = re.compile(r"^\s*(\S.*?)\s+(\d+)\s+(?:(\d+\.\d+):\s+)?(\S+):\s*$")
FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")

# rank of our functions in each workload: callees have lower ranks; a
# thread's functions carry its name in GROUP so that chains do not mix
RANKS = {
    "syscalls": {"rk_account": 0, "sys_leaf_write": 1, "sys_leaf_getppid": 1,
                 "sys_leaf_read": 1, "sys_middle": 2, "sys_outer": 3,
                 "sys_loop": 4, "main": 5},
    "threads": {"rk_account": 0, "thr_one_leaf": 1, "thr_two_leaf": 1,
                "thr_three_leaf": 1, "thr_one_outer": 2, "thr_two_outer": 2,
                "thr_three_outer": 2, "thr_one_entry": 3, "thr_two_entry": 3,
                "thr_three_entry": 3, "thr_main_wait": 1, "main": 2},
    "userloop": {"rk_account": 0, "spin_leaf": 1, "spin_middle": 2,
                 "spin_outer": 3, "spin_loop": 4, "main": 5},
    "longsys": {"rk_account": 0, "long_read": 1, "long_populate": 1,
                "long_outer": 2, "long_loop": 3, "main": 4},
    "exiter": {"rk_account": 0, "exit_thread_read": 1, "exit_thread_entry": 2,
               "exit_child_read": 1, "exit_child": 2, "exit_round": 3,
               "exit_loop": 4, "main": 5},
}
RANKS["offcpu"] = {
    "rk_account": 0, "blocker_read": 1, "blocker_outer": 2, "blocker_entry": 3,
    "ping_leaf": 1, "ping_outer": 2, "ping_entry": 3,
    "pong_leaf": 1, "pong_outer": 2, "pong_entry": 3,
    "nap_leaf": 1, "nap_outer": 2, "nap_entry": 3,
    "off_main_wake": 1, "off_main_wait": 1, "main": 2}
RANKS["execer"] = {"rk_account": 0, "exa_leaf": 1, "exa_outer": 2,
                   "exa_exec": 2, "main": 3}
RANKS["exectarget"] = {"rk_account": 0, "exb_leaf": 1, "exb_outer": 2,
                       "exb_exec": 2, "main": 3}
GROUP = re.compile(r"^thr_(one|two|three)_|^exit_(thread|child)_|^(blocker|ping|pong|nap)_")


def samples(path):
    """Yields (comm, tid, time, event, frames); frames: [(addr, sym, dso)].
    Without timestamps (--per-thread), time is "#K.N": the Nth sample of
    that tid and event whose kernel callchain is K (a digest of its
    addresses).  Not "the Nth sample": perf delivers samples without time
    in file order, but may hold one whose record never came until the end
    (upstream perf does), and its kernel chain is what names it in both
    outputs."""
    def done(s):
        if s[2] is not None:
            return s
        kern = " ".join("%x" % fr[0] for fr in s[4] if is_kernel(fr))
        k = (s[1], s[3], kern)
        seq[k] = seq.get(k, 0) + 1
        digest = hashlib.sha1(kern.encode()).hexdigest()[:8]
        return (s[0], s[1], "#%s.%d" % (digest, seq[k]), s[3], s[4])

    cur = None
    seq = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEAD.match(line)
            if m and not line.startswith("\t"):
                if cur:
                    yield done(cur)
                tid, time, ev = int(m.group(2)), m.group(3), m.group(4)
                cur = (m.group(1), tid, time, ev, [])
                continue
            m = FRAME.match(line)
            if m and cur:
                fr = (int(m.group(1), 16), m.group(2), m.group(3))
                # upstream perf prints an inlined function as a frame of
                # its own, with the address of the frame it is inlined in,
                # or instead of that frame: one frame per address
                if cur[4] and cur[4][-1][0] == fr[0] and "inlined" in (fr[2], cur[4][-1][2]):
                    if cur[4][-1][2] == "inlined":
                        cur[4][-1] = fr
                    continue
                cur[4].append(fr)
            elif not line.strip() and cur:
                yield done(cur)
                cur = None
    if cur:
        yield done(cur)


def is_kernel(fr):
    return fr[0] >= KERNEL_START or fr[2] == "[kernel.kallsyms]"


def is_user(fr):
    """a user frame in a real object (not junk, not a printed cookie)"""
    return not is_kernel(fr) and fr[2] not in ("[unknown]", "unknown")


def user_part(frames):
    """the addresses after the last kernel frame"""
    last = -1
    for i, fr in enumerate(frames):
        if is_kernel(fr):
            last = i
    return [fr[0] for fr in frames[last + 1:]]


def analyse(path, workload):
    ranks = RANKS[workload]
    comm = workload[:15]
    n = user = ours = execve = 0
    bad = []
    for s in samples(path):
        if s[0] != comm:
            continue
        frames = s[4]
        if any(EXEC_K.match(symname(fr)) for fr in frames if is_kernel(fr)):
            execve += 1
            continue
        n += 1
        seen_user = False
        why = None
        prev_rank, group = -1, None
        has_ours = False
        for fr in frames:
            if is_kernel(fr):
                if seen_user:
                    why = "kernel frame after a user frame"
                continue
            if not is_user(fr):
                continue
            seen_user = True
            sym = fr[1].split("+")[0]
            if sym not in ranks:
                continue
            has_ours = True
            r = ranks[sym]
            if r <= prev_rank:
                why = "%s out of caller order" % sym
            prev_rank = max(prev_rank, r)
            g = GROUP.match(sym)
            if g:
                if group and group != g.group(0):
                    why = "%s in a chain of %s" % (sym, group)
                group = g.group(0)
        user += seen_user
        ours += has_ours
        if why:
            bad.append((why, s))
    print("samples=%d user=%d ours=%d bad=%d execve=%d" % (n, user, ours, len(bad), execve))
    for why, s in bad[:3]:
        print("BAD (%s): %s %d %s %s" % (why, s[0], s[1], s[2], s[3]))
        for fr in s[4]:
            print("\t%x %s (%s)" % fr)
    return 1 if bad or n == 0 else 0


def compare(ours_path, theirs_path, theirs_raw):
    cookies = {}
    for s in samples(theirs_raw):
        for fr in s[4]:
            if fr[1] == "(cookie)":
                cookies[(s[1], s[2], s[3])] = fr[0]
    ours = {(s[1], s[2], s[3]): s for s in samples(ours_path)}
    theirs = {(s[1], s[2], s[3]): s for s in samples(theirs_path)}
    same = differ = unmerged = 0
    diffs = []
    for k, t in theirs.items():
        if k not in ours:
            continue
        tu = user_part(t[4])
        if k in cookies and tu[-1:] == [cookies[k]]:
            unmerged += 1       # upstream perf printed the cookie as a frame
            continue
        if user_part(ours[k][4]) == tu:
            same += 1
        else:
            differ += 1
            diffs.append(k)
    only_ours = len(set(ours) - set(theirs))
    only_theirs = len(set(theirs) - set(ours))
    print("compared=%d same=%d differ=%d theirs-unmerged=%d only-ours=%d only-theirs=%d"
          % (same + differ, same, differ, unmerged, only_ours, only_theirs))
    for k in diffs[:3]:
        print("DIFFERENT: tid %d time %s %s" % k)
        print("  ours:   " + " ".join("%x" % a for a in user_part(ours[k][4])))
        print("  theirs: " + " ".join("%x" % a for a in user_part(theirs[k][4])))
    return 1 if differ or only_ours or only_theirs or same == 0 else 0


# kernel functions that tell a blocked pipe read and an exec
READ_K = re.compile(r"^(anon_pipe_read|pipe_read|vfs_read|ksys_read|__x64_sys_read)\b")
EXEC_K = re.compile(r"^(bprm_execve|do_execveat_common|__x64_sys_execve|"
                    r"load_elf_binary|begin_new_exec|exec_binprm)\b")


def symname(fr):
    return fr[1].split("+0x")[0]


def user_frames(frames):
    """the frames after the last kernel frame"""
    last = -1
    for i, fr in enumerate(frames):
        if is_kernel(fr):
            last = i
    return frames[last + 1:]


def interop(ours_path, theirs_path, theirs_raw, workload):
    cookies = {}
    for s in samples(theirs_raw):
        for fr in s[4]:
            if fr[1] == "(cookie)":
                cookies[(s[1], s[2], s[3])] = fr[0]
    ours = {(s[1], s[2], s[3]): s for s in samples(ours_path)}
    theirs = {(s[1], s[2], s[3]): s for s in samples(theirs_path)}
    exec_wl = workload in ("execer", "exectarget")
    c = dict.fromkeys(("merged", "same", "named", "named_same", "comm",
                       "comm_same", "blocked", "blocked_merged",
                       "blocked_ours", "exec", "exec_merged", "exec_same",
                       "bad_exec", "bad_other"), 0)
    bad = []
    pairs = Counter()   # what upstream perf names, and what we name it

    def merged_by_them(k, t):
        tu = user_part(t[4])
        return k in cookies and tu and tu[-1:] != [cookies[k]]

    # the blocker thread: the tids with a blocker_* user frame on either side
    blockers = set()
    for side in (ours, theirs):
        for k, s in side.items():
            if any(symname(fr).startswith("blocker_") for fr in user_frames(s[4])):
                blockers.add(k[0])
    switches = any("sched_switch" in k[2] for k in theirs)

    for k, t in sorted(theirs.items(), key=lambda kv: str(kv[0])):
        o = ours.get(k)
        kern = [symname(fr) for fr in t[4] if is_kernel(fr)]
        # taken in execve: an exec in the kernel part, or (a sample at the
        # very end of execve) a user stack that is only a program's entry
        is_exec = (any(EXEC_K.match(f) for f in kern) or
                   [symname(fr) for fr in user_frames(t[4])] == ["_start"])
        is_blocked = (k[0] in blockers and "sched_switch" in k[2] and
                      any(READ_K.match(f) for f in kern))
        merged = merged_by_them(k, t)
        c["exec"] += is_exec
        c["blocked"] += is_blocked
        if not merged:
            continue
        c["merged"] += 1
        c["exec_merged"] += is_exec
        c["blocked_merged"] += is_blocked
        if o is None:
            bad.append(("merged by upstream perf, missing in ours", k, t, None))
            continue
        tf, of = user_frames(t[4]), user_frames(o[4])
        ok = True
        if [fr[0] for fr in tf] != [fr[0] for fr in of]:
            bad.append(("different user addresses", k, t, o))
            ok = False
        else:
            c["same"] += 1
            for a, b in zip(tf, of):
                # upstream perf may print an inlined function (from debug info)
                # instead of the symbol: not a symbol name to compare
                if symname(a) in ("[unknown]", "unknown") or a[2] == "inlined":
                    continue
                c["named"] += 1
                if (symname(a), a[2]) == (symname(b), b[2]):
                    c["named_same"] += 1
                else:
                    pairs["%s (%s) as %s (%s)" % (symname(a), a[2], symname(b), b[2])] += 1
                    if ok:
                        bad.append(("upstream perf names %s (%s), ours %s (%s)" %
                                    (symname(a), a[2], symname(b), b[2]), k, t, o))
                        ok = False
        # (upstream perf prints ":TID" for a thread it resolves after its EXIT)
        if exec_wl and not re.match(r"^:\d+$", t[0]):
            c["comm"] += 1
            if t[0] == o[0]:
                c["comm_same"] += 1
            else:
                pairs["comm %s as %s" % (t[0], o[0])] += 1
                if ok:
                    bad.append(("comm %s in upstream perf, %s in ours" % (t[0], o[0]), k, t, o))
                    ok = False
        if is_exec and ok:
            c["exec_same"] += 1
        if not ok:
            c["bad_exec" if is_exec else "bad_other"] += 1
        if is_blocked:
            names = [symname(fr) for fr in of]
            if ("blocker_read" in names and "blocker_outer" in names and
                    names.index("blocker_read") < names.index("blocker_outer")):
                c["blocked_ours"] += 1
            else:
                bad.append(("blocked read without blocker_read <- blocker_outer", k, t, o))

    print("samples ours=%d upstream=%d; merged by upstream perf: %d, "
          "same user addresses in ours: %d; "
          "user frames upstream perf names: %d, same name in ours: %d"
          % (len(ours), len(theirs), c["merged"], c["same"], c["named"], c["named_same"]))
    if exec_wl:
        print("comm: %d/%d the same; exec'd samples: %d, merged by upstream perf: %d, "
              "same frames and comm in ours: %d"
              % (c["comm_same"], c["comm"], c["exec"], c["exec_merged"], c["exec_same"]))
    if workload == "offcpu":
        print("blocker tids: %s; blocked reads: %d, merged by upstream perf: %d, "
              "blocker_read <- blocker_outer in ours: %d"
              % (",".join(map(str, sorted(blockers))) or "none", c["blocked"],
                 c["blocked_merged"], c["blocked_ours"]))
    if workload == "offcpu" and switches and c["blocked_merged"] == 0:
        bad.append(("no blocked read that upstream perf merged in a sched_switch recording",
                    None, None, None))
    if exec_wl and c["exec_merged"] == 0:
        bad.append(("no exec'd sample that upstream perf merged", None, None, None))
    if c["merged"] == 0:
        bad.append(("upstream perf merged no sample", None, None, None))
    print("mismatches: %d (samples with other frames or comm than upstream perf's: "
          "%d taken in execve, %d others)" % (len(bad), c["bad_exec"], c["bad_other"]))
    for what, n in pairs.most_common(6):
        print("  %dx %s" % (n, what))
    for why, k, t, o in bad[:5]:
        print("MISMATCH: %s%s" % (why, "" if k is None else ": tid %d time %s %s" % k))
        for name, s in (("upstream perf", t), ("ours", o)):
            if s:
                kern = [symname(fr) for fr in s[4] if is_kernel(fr)]
                print("  %s: comm %s, %d kernel frames (%s), user frames:"
                      % (name, s[0], len(kern), " <- ".join(kern[-4:])))
                for fr in user_frames(s[4]):
                    print("\t%x %s (%s)" % fr)
    return 1 if bad else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "analyse":
        return analyse(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 6 and sys.argv[1] == "interop":
        return interop(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
