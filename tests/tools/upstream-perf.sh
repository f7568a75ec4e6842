#!/bin/bash
# upstream-perf.sh - run upstream perf 7.2 (Debian sid's linux-perf) as a
# black-box reference:  tests/tools/upstream-perf.sh ARGS...  runs `perf ARGS`.
#
# On first use it builds a cached Debian sid root with linux-perf in it:
#     debootstrap --variant=minbase --include=linux-perf sid \
#         ${PERF_DEFER_CACHE:-/var/cache/perf-defer}/sid MIRROR
# (a few minutes, ~250 MB; debootstrap is installed with apt if missing).
# perf then runs on the host, not in a chroot: the sid root's own dynamic
# loader and libraries start the sid root's perf binary, so every path on the
# command line (perf.data, --symfs, --kallsyms, -o) is a host path.
#
# Environment: PERF_DEFER_CACHE (cache directory), PERF_DEFER_MIRROR
# (default: the host's Debian mirror, scripts/debian-mirror.sh);
# PERF_DEFER_NO_UPSTREAM=1 makes it unavailable (make check-asan).  PERF_CONFIG defaults to /dev/null
# (no user config) and perf report's random "Tip:" line is switched off.
#
# Exit status 77, with the reason on stderr, when perf 7.2 cannot be had
# (no root, no network, no debootstrap...).  `upstream-perf.sh --setup` only
# makes sure the root exists; `--root` prints its path; `--available` exits
# 0 if the root is already there and 77 otherwise, without building it (for
# tests, which must not need the network).
set -u
CACHE=${PERF_DEFER_CACHE:-/var/cache/perf-defer}
ROOT=$CACHE/sid
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/debian-mirror.sh"
MA=x86_64-linux-gnu

unavailable() { echo "upstream-perf.sh: upstream perf 7.2 unavailable: $*" >&2; exit 77; }

setup() {
	[ "$(uname -m)" = x86_64 ] || unavailable "host is not x86_64"
	[ "$(id -u)" = 0 ] || unavailable "building $ROOT needs root (debootstrap)"
	mkdir -p "$CACHE" || unavailable "cannot create $CACHE"
	exec 9> "$CACHE/.sid.lock"
	flock 9
	[ -f "$ROOT/.perf-defer-ok" ] && return 0
	if ! command -v debootstrap > /dev/null; then
		echo "upstream-perf.sh: installing debootstrap" >&2
		apt-get install -y -q -o DPkg::Lock::Timeout=600 debootstrap > "$CACHE/apt.log" 2>&1 ||
			unavailable "apt-get install debootstrap failed (see $CACHE/apt.log)"
	fi
	MIRROR=$(debian_mirror) || unavailable "no Debian mirror (set PERF_DEFER_MIRROR)"
	rm -rf "$ROOT.tmp"
	echo "upstream-perf.sh: building $ROOT (debootstrap sid, a few minutes)" >&2
	if ! debootstrap --variant=minbase --include=linux-perf sid "$ROOT.tmp" \
	     "$MIRROR" > "$CACHE/debootstrap.log" 2>&1; then
		rm -rf "$ROOT.tmp"
		unavailable "debootstrap failed (see $CACHE/debootstrap.log)"
	fi
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
	rm -rf "$ROOT"/var/cache/apt/archives/*.deb
	echo ok > "$ROOT/.perf-defer-ok"
}

# make check-asan: the sanitizers look at our perf; what upstream prints
# is compared by the ordinary run of the same tests
[ -z "${PERF_DEFER_NO_UPSTREAM:-}" ] || unavailable "not compared (PERF_DEFER_NO_UPSTREAM is set)"
case "${1:-}" in
--available) [ -f "$ROOT/.perf-defer-ok" ] && exit 0
	echo "upstream perf 7.2 is not cached in $ROOT (run $0 --setup)" >&2; exit 77 ;;
esac
[ -f "$ROOT/.perf-defer-ok" ] || setup
case "${1:-}" in
--setup) exit 0 ;;
--root) echo "$ROOT"; exit 0 ;;
esac

LDSO=$ROOT/lib64/ld-linux-x86-64.so.2
[ -e "$LDSO" ] || LDSO=$ROOT/usr/lib64/ld-linux-x86-64.so.2
PERFBIN=$ROOT/usr/bin/perf
[ -x "$PERFBIN" ] || unavailable "no $PERFBIN in $ROOT"
LIBS=$ROOT/usr/lib/$MA:$ROOT/lib/$MA
export PERF_CONFIG=${PERF_CONFIG:-/dev/null}
unset DEBUGINFOD_URLS
RUN=("$LDSO" --inhibit-cache --library-path "$LIBS" "$PERFBIN" "$@")

# perf report --stdio ends with a random line of $TIPDIR/tips.txt, and this
# perf's TIPDIR is the absolute /usr/share/doc/linux-perf: the HOST's (its
# linux-perf package) if there is one.  Hide it in a private mount namespace
# so that the output is stable and reads "Cannot load tips.txt file, please
# install perf!" like the stored outputs in tests/fixtures/real-7.2/upstream-7.2.
TIPDIR=/usr/share/doc/linux-perf
if [ -e "$TIPDIR/tips.txt" ] && [ "$(id -u)" = 0 ]; then
	EMPTY=$CACHE/empty
	mkdir -p "$EMPTY" 2> /dev/null
	if unshare --mount --propagation private true 2> /dev/null; then
		exec unshare --mount --propagation private sh -c \
			'mount --bind "$0" '"$TIPDIR"' 2> /dev/null; exec "$@"' "$EMPTY" "${RUN[@]}"
	fi
fi
exec "${RUN[@]}"
