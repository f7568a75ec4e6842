#!/bin/bash
# vs-debian.sh - instructions (Ir, valgrind --tool=cachegrind --cache-sim=no)
# of the series' perf against Debian trixie-backports' own perf 7.3.4 (the
# root of tests/tools/upstream-perf.sh, run with that root's loader and
# libraries), on the real recordings of tests/fixtures/real-7.2/data:
#     perf script -i long_defer.data   -F tid,ip,sym
#     perf script -i long_nodefer.data -F tid,ip,sym
#     perf report -i syswide_defer.data --stdio
#     perf report -i long_nodefer.data  --stdio
# each with the symfs options of symroot (tests/lib.sh), as docs/bench.md's
# "The series' perf against Debian's" sections measured them: env -i
# (PATH=/usr/bin:/bin PERF_CONFIG=/dev/null), in an empty working directory,
# the tips files of both perfs hidden (a private mount namespace, so root
# is needed when a tips.txt is installed), valgrind at nice -n 19.
# Three perfs: Debian's; ours on this machine's libraries; ours on the
# trixie root's loader and libraries (what the root lacks, e.g. libunwind,
# libpfm and this machine's libpython, still comes from this machine: the
# script lists them).  Not part of the tests: about 15 s on 2 cores (JOBS
# valgrind runs side by side, default 2; the counts do not depend on the
# load, and two runs agree within 0.2%).
#
# Usage: tests/bench/vs-debian.sh [PERF]
#   PERF  default build/perf-7.3/perf.  This is also what `make install`
#         installs: with the default PREFIX=/usr/local scripts/install.sh
#         runs perf's install-bin in build/perf-7.3 (scripts/build.sh
#         --install), which copies build/perf-7.3/perf with install(1),
#         unstripped: $DESTDIR/usr/local/bin/perf is byte-identical to it
#         (another PREFIX builds another binary, build/install-7.3/perf).
#         The script does not run `make install` itself: that would
#         re-apply/re-build build/src-7.3 and build/perf-7.3 if needed.
#   JOBS=N in the environment: valgrind runs side by side (default 2)
#   KEEP=DIR: keep the outputs (.txt), perf's stderr (.err), valgrind's
#         logs (.vg) and cachegrind's files (.cg) in DIR
#
# Prints Ir for each perf and command, ours / Debian's, and whether the
# outputs (stdout) are byte-identical to Debian's; where they are not, the
# number of lines diff(1) shows on each side.  On the nodefer recordings
# they must be identical (the script exits 1 otherwise); on the deferred
# ones ours merges the samples Debian's prints with the cookie as a frame.
# The stack's starting position (the length of argv: the loader and its
# options come first for the trixie-root runs) moves these counts by up to
# ~0.3% (docs/bench.md), so differences below that are noise.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
perf=$(realpath "${1:-$top/build/perf-7.3/perf}")
jobs=${JOBS:-2}
fix=$top/tests/fixtures/real-7.2
data=$fix/data
MA=x86_64-linux-gnu
# the tips files perf report --stdio picks its last line from: Debian's
# perf's (absolute TIPDIR) and ours (prefix /usr/local, scripts/build.sh)
tipdirs="/usr/share/doc/linux-perf /usr/local/share/doc/perf-tip"

[ -x "$perf" ] || { echo "vs-debian.sh: no $perf (make)" >&2; exit 1; }
if ! command -v valgrind > /dev/null; then
	echo "vs-debian.sh: installing valgrind" >&2
	apt-get install -y -q valgrind > /dev/null
fi

# hide the tips files: re-run in a private mount namespace
if [ -z "${VS_DEBIAN_NS:-}" ]; then
	for d in $tipdirs; do
		[ -e "$d/tips.txt" ] || continue
		[ "$(id -u)" = 0 ] || { echo "vs-debian.sh: $d/tips.txt would make perf report's output random: run as root" >&2; exit 1; }
		exec env VS_DEBIAN_NS=1 unshare --mount --propagation private "$0" "$perf"
	done
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/vs-debian.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty" "$work/cwd" "$work/out"
if [ -n "${VS_DEBIAN_NS:-}" ]; then
	for d in $tipdirs; do
		[ -e "$d/tips.txt" ] && mount --bind "$work/empty" "$d"
	done
fi

root=$("$top/tests/tools/upstream-perf.sh" --root) ||
	{ echo "vs-debian.sh: no Debian perf (tests/tools/upstream-perf.sh --setup)" >&2; exit 1; }
ldso=$root/lib64/ld-linux-x86-64.so.2
[ -e "$ldso" ] || ldso=$root/usr/lib64/ld-linux-x86-64.so.2
libs=$root/usr/lib/$MA:$root/lib/$MA
trixie=("$ldso" --inhibit-cache --library-path "$libs")

# symroot (tests/lib.sh)
sym=$top/build/symfs
if [ ! -s "$sym/kallsyms.txt" ]; then
	mkdir -p "$sym/fixtures/bin"
	(
		flock 9
		[ -s "$sym/kallsyms.txt" ] && exit 0
		cp "$fix"/bin/* "$sym/fixtures/bin/"
		xz -dc "$fix/sysinfo/kallsyms.txt.xz" > "$sym/kallsyms.tmp"
		mv "$sym/kallsyms.tmp" "$sym/kallsyms.txt"
	) 9> "$sym/.lock"
fi
symopts=(--symfs="$sym" --kallsyms="$sym/kallsyms.txt")

variants="debian ours ours-trixie"
cases="script:long_defer script:long_nodefer report:syswide_defer report:long_nodefer"
cmd() {	# cmd VARIANT: the perf command line
	case $1 in
	debian) echo "${trixie[@]}" "$root/usr/bin/perf" ;;
	ours) echo "$perf" ;;
	ours-trixie) echo "${trixie[@]}" "$perf" ;;
	esac
}
args() {	# args CASE: perf's arguments
	case $1 in
	script:*) echo script -i "$data/${1#*:}.data" -F tid,ip,sym ;;
	report:*) echo report -i "$data/${1#*:}.data" --stdio ;;
	esac
}

echo "Debian's: $("${trixie[@]}" "$root/usr/bin/perf" version) ($root/usr/bin/perf)"
echo "ours:     $("$perf" version) ($perf)"
echo "$(valgrind --version), cachegrind --cache-sim=no"
own=$("${trixie[@]}" --list "$perf" | awk '$3 ~ /^\// { print $3 }' | grep -v "^$root/" | tr '\n' ' ')
[ -z "$own" ] || echo "ours-trixie: not in the trixie root, from this machine: $own"

run() {	# run VARIANT CASE
	local v=$1 c=$2 n=$1.${2/:/.}
	# (paths have no spaces: word splitting of cmd and args is intended)
	(cd "$work/cwd" && exec nice -n 19 env -i PATH=/usr/bin:/bin PERF_CONFIG=/dev/null \
		valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$work/out/$n.cg" --log-file="$work/out/$n.vg" \
		$(cmd "$v") $(args "$c") "${symopts[@]}" \
		> "$work/out/$n.txt" 2> "$work/out/$n.err") ||
		{ echo "vs-debian.sh: $v $(args "$c") failed:" >&2; tail -5 "$work/out/$n.err" "$work/out/$n.vg" >&2; return 1; }
}
for c in $cases; do
	for v in $variants; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || :; done
		{ run "$v" "$c" || touch "$work/failed"; } &
	done
done
wait
[ ! -e "$work/failed" ] || exit 1
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/out/* "$KEEP/"; fi

python3 - "$work/out" "$variants" "$cases" <<'EOF'
import sys, subprocess
out, variants, cases = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def ir(n):
    for l in open(f'{out}/{n}.cg'):
        if l.startswith('events:'):
            ev = l.split()[1:]
        if l.startswith('summary:'):
            return dict(zip(ev, map(int, l.split()[1:])))['Ir']
def cmp(a, b, mine_name, their_name):
    A, B = open(f'{out}/{a}.txt', 'rb').read(), open(f'{out}/{b}.txt', 'rb').read()
    if A == B:
        return 'identical', True
    d = subprocess.run(['diff', f'{out}/{a}.txt', f'{out}/{b}.txt'],
                       capture_output=True, text=True, errors='replace').stdout.splitlines()
    mine = sum(l.startswith('< ') for l in d)
    theirs = sum(l.startswith('> ') for l in d)
    la, lb = A.count(b'\n'), B.count(b'\n')
    return (f'{mine} of {la} lines of {mine_name} and {theirs} of {lb} of '
            f'{their_name} differ', False)
bad = False
print()
print('| command | ' + ' | '.join(variants) + ' | output vs Debian\'s |')
print('| --- |' + ' --- |' * (len(variants) + 1))
for c in cases:
    kind, f = c.split(':')
    n = lambda v: f'{v}.{kind}.{f}'
    base = ir(n('debian'))
    cells = [f'{base:,}'] + [f'{ir(n(v)):,} ({ir(n(v)) / base:.4f}x)' for v in variants[1:]]
    notes = []
    for v in variants[1:]:
        s, same = cmp(n(v), n('debian'), v, "Debian's")
        notes.append(f'{v}: {s}')
        if not same and 'nodefer' in f:
            bad = True
    s, same = cmp(n('ours-trixie'), n('ours'), 'ours-trixie', 'ours')
    if not same:
        notes.append(f'ours-trixie vs ours: {s}')
    args = '-F tid,ip,sym' if kind == 'script' else '--stdio'
    print(f'| `{kind} -i {f}.data {args}` | ' + ' | '.join(cells) + ' | ' + '; '.join(notes) + ' |')
if bad:
    print('vs-debian.sh: ours differs from Debian\'s on a recording without deferred callchains', file=sys.stderr)
    sys.exit(1)
EOF
