#!/usr/bin/env python3
# compare.py - wall and CPU time of several perf binaries on one bench file,
# run round-robin N times so that a busy spell of a shared machine hits all
# of them alike (best and median of the N runs).  For comparing two builds
# of the series (tests/bench/run.sh compares ours with upstream).  Not part
# of the tests.
#
# Usage: tests/bench/compare.py N NAME=PERF:WHAT...
#   WHAT  merged (perf script), nomerge (perf script --no-merge-callchains),
#         floor (perf script of the floor file), stats, sfloor (perf report
#         --stats of the deferred and the floor file), rfloor, srfloor (the
#         same on the floor file with the records, tests/bench/lower-bound.sh)
#   CELL=NAME in the environment picks the file of build/bench/data
#   (default 1M-32kt; tests/bench/run.sh --cells NAME generates it)
#   RATIOS="A/B ..." in the environment prints the ratios of those best
#   cpu times too
# e.g. tests/bench/compare.py 5 old=/tmp/perf-old:merged new=build/perf-7.3/perf:merged \
#          floor=build/perf-7.3/perf:floor
import os
import resource
import statistics
import subprocess
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
cell = os.environ.get('CELL', '1M-32kt')
data = os.path.join(top, 'build/bench/data')
syms = '--kallsyms=' + os.path.join(top, 'build/symfs/kallsyms.txt')
what = {
    'merged': ['script', '-i', f'{data}/{cell}.data'],
    'nomerge': ['script', '--no-merge-callchains', '-i', f'{data}/{cell}.data'],
    'floor': ['script', '-i', f'{data}/{cell}.floor.data'],
    'stats': ['report', '--stats', '-i', f'{data}/{cell}.data'],
    'sfloor': ['report', '--stats', '-i', f'{data}/{cell}.floor.data'],
    'rfloor': ['script', '-i', f'{data}/{cell}.floor-records.data'],
    'srfloor': ['report', '--stats', '-i', f'{data}/{cell}.floor-records.data'],
}
if len(sys.argv) < 3:
    sys.exit(__doc__ or 'usage: compare.py N NAME=PERF:WHAT...')
n = int(sys.argv[1])
cells = []
for arg in sys.argv[2:]:
    name, spec = arg.split('=', 1)
    perf, w = spec.rsplit(':', 1)
    cells.append((name, [perf] + what[w] + [syms]))
runs = {name: [] for name, _ in cells}
for _ in range(n):
    for name, cmd in cells:
        t0 = time.time()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        runs[name].append((time.time() - t0, cpu))
for name, _ in cells:
    wall = [r[0] for r in runs[name]]
    cpu = [r[1] for r in runs[name]]
    print(f'{name:12s} wall best {min(wall):.3f} med {statistics.median(wall):.3f}  '
          f'cpu best {min(cpu):.3f} med {statistics.median(cpu):.3f}')
for ratio in os.environ.get('RATIOS', '').split():
    a, b = ratio.split('/')
    print(f'{ratio}: {min(r[1] for r in runs[a]) / min(r[1] for r in runs[b]):.3f}x (best cpu)')
