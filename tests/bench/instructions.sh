#!/bin/bash
# instructions.sh - instructions and simulated cache misses of perf script
# on a bench file, merged and on its floor file (valgrind --tool=cachegrind
# --cache-sim=yes): a ratio that the load of a shared machine does not
# change, next to the wall times of tests/bench/run.sh.  Not part of the
# tests: about 10 minutes for the 1M-32kt file (the two runs in parallel).
#
# Usage: tests/bench/instructions.sh [CELL [PERF]]
#   CELL  a file of build/bench/data (default 1M-32kt; run tests/bench/run.sh
#         --cells CELL once to generate it)
#   PERF  default build/perf-7.3/perf
#   LL=BYTES in the environment simulates a last-level cache of that size
#         (16-way, 64-byte lines) instead of the machine's: on a shared host
#         the L3 that valgrind detects (hundreds of MB) is not what one
#         process gets; LL=2097152 models only the core's own L2
#
# Prints, for merged and floor: instructions (Ir), D1 and LL data misses,
# and "cost" = Ir + 10 * D1 misses + 100 * LL misses (a rough cycle
# estimate), then the merged / floor ratios.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cell=${1:-1M-32kt}
perf=${2:-$top/build/perf-7.3/perf}
data=$top/build/bench/data
syms=$top/build/symfs/kallsyms.txt
command -v valgrind > /dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
for f in "$data/$cell.data" "$data/$cell.floor.data" "$syms"; do
	[ -s "$f" ] || { echo "instructions.sh: $f is missing (tests/bench/run.sh --cells $cell)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in merged floor; do
	f=$data/$cell.data
	[ $v = floor ] && f=$data/$cell.floor.data
	valgrind --tool=cachegrind --cache-sim=yes ${LL:+--LL=$LL,16,64} \
		--cachegrind-out-file="$work/$v.out" \
		"$perf" script --kallsyms="$syms" -i "$f" > /dev/null 2> "$work/$v.log" &
done
wait
python3 - "$work" "$cell" <<'EOF'
import sys
work, cell = sys.argv[1], sys.argv[2]
r = {}
for v in ('merged', 'floor'):
    ev = summ = None
    for l in open(f'{work}/{v}.out'):
        if l.startswith('events:'):
            ev = l.split()[1:]
        if l.startswith('summary:'):
            summ = [int(x) for x in l.split()[1:]]
    d = dict(zip(ev, summ))
    d1 = d['D1mr'] + d['D1mw']
    ll = d['DLmr'] + d['DLmw']
    d['cost'] = d['Ir'] + 10 * (d1 + d['I1mr']) + 100 * (ll + d['ILmr'])
    r[v] = d
    print(f"{cell} {v:6s} Ir {d['Ir'] / 1e9:.3f} G  D1 misses {d1 / 1e6:.1f} M  "
          f"LL misses {ll / 1e6:.2f} M  cost {d['cost'] / 1e9:.3f} G")
m, f = r['merged'], r['floor']
print(f"{cell} merged / floor: Ir {m['Ir'] / f['Ir']:.3f}x  cost {m['cost'] / f['cost']:.3f}x")
EOF
