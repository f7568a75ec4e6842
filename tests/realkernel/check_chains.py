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

    check_chains.py compare OURS.txt THEIRS.txt THEIRS-RAW.txt
        The same recording printed by two perf versions (merged, same -F),
        THEIRS-RAW.txt being THEIRS's --no-merge-callchains output (its
        "(cookie)" lines tell which of its samples it left unmerged: perf
        7.2 prints such a cookie as an [unknown] user frame).  Samples are
        matched on (tid, time, event), not on order (perf 7.2 prints
        multi-threaded files out of time order), and their user frames
        compared by address (perf 7.2 prints inlined functions as frames
        of their own, and may pick another alias for a symbol).  Prints
        "compared=N same=N differ=N theirs-unmerged=N only-ours=N
        only-theirs=N" and the first differences; exit status 1 if any
        compared sample differs or a sample is missing on one side.
"""
import re
import sys

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
GROUP = re.compile(r"^thr_(one|two|three)_|^exit_(thread|child)_")


def samples(path):
    """Yields (comm, tid, time, event, frames); frames: [(addr, sym, dso)].
    Without timestamps (--per-thread), time is "#N": the Nth sample of
    that tid and event."""
    cur = None
    seq = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEAD.match(line)
            if m and not line.startswith("\t"):
                if cur:
                    yield cur
                tid, time, ev = int(m.group(2)), m.group(3), m.group(4)
                if time is None:
                    seq[(tid, ev)] = seq.get((tid, ev), 0) + 1
                    time = "#%d" % seq[(tid, ev)]
                cur = (m.group(1), tid, time, ev, [])
                continue
            m = FRAME.match(line)
            if m and cur:
                fr = (int(m.group(1), 16), m.group(2), m.group(3))
                # perf 7.2 prints an inlined function as a frame of its own,
                # with the address of the frame it is inlined in, or instead
                # of that frame: one frame per address
                if cur[4] and cur[4][-1][0] == fr[0] and "inlined" in (fr[2], cur[4][-1][2]):
                    if cur[4][-1][2] == "inlined":
                        cur[4][-1] = fr
                    continue
                cur[4].append(fr)
            elif not line.strip() and cur:
                yield cur
                cur = None
    if cur:
        yield cur


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
    n = user = ours = 0
    bad = []
    for s in samples(path):
        if s[0] != comm:
            continue
        n += 1
        frames = s[4]
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
    print("samples=%d user=%d ours=%d bad=%d" % (n, user, ours, len(bad)))
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
            unmerged += 1       # perf 7.2 printed the cookie as a frame
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


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "analyse":
        return analyse(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
