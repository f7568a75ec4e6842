#!/bin/bash
# upstream-perf.sh - run upstream perf (Debian's own linux-perf build) as a
# black-box reference:  tests/tools/upstream-perf.sh ARGS...  runs `perf ARGS`.
#
# Which perf: Debian trixie-backports' linux-perf 7.3.4-1~bpo13+1, the
# build of the 7.3 base (BASE-VERSION-7.3), in the root $CACHE/trixie-7.3
# ($CACHE is ${PERF_DEFER_CACHE:-/var/cache/perf-defer}).
#
# On first use it builds that cached Debian root with linux-perf in it:
#     debootstrap --variant=minbase trixie $CACHE/trixie-7.3 MIRROR
# then, in a chroot of it, apt-get installs linux-perf of the version the
# base's BASE-VERSION-7.3 file pins (linux-perf and linux-source come from
# the same Debian source package, so the same version is the same perf;
# from "deb MIRROR trixie-backports main", added to the root's sources,
# its libraries from trixie).  When the mirror no longer has that version,
# the newest linux-perf of the suite is taken instead, provided `perf
# version` still says 7.3.
# A few minutes, ~280 MB; debootstrap is installed with apt if missing.
# perf then runs on the host, not in a chroot: the root's own dynamic
# loader and libraries start the root's perf binary, so every path on the
# command line (perf.data, --symfs, --kallsyms, -o) is a host path.
#
# Environment: PERF_DEFER_CACHE (cache directory), PERF_DEFER_MIRROR
# (default: the host's Debian mirror, scripts/debian-mirror.sh);
# PERF_DEFER_NO_UPSTREAM=1 makes it unavailable (make check-asan).
# PERF_CONFIG defaults to /dev/null (no user config) and perf report's
# random "Tip:" line is switched off.
#
# Exit status 77, with the reason on stderr, when that perf cannot be had
# (no root, no network, no debootstrap...).  `upstream-perf.sh --setup` only
# makes sure the root exists; `--root` prints its path; `--available` exits
# 0 if the root is already there and 77 otherwise, without building it (for
# tests, which must not need the network).
set -u
CACHE=${PERF_DEFER_CACHE:-/var/cache/perf-defer}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/debian-mirror.sh"
MA=x86_64-linux-gnu

UP=7.3 ROOT=$CACHE/trixie-7.3 DIST=trixie SUITE=trixie-backports VERSION_FILE=$TOP/BASE-VERSION-7.3

unavailable() { echo "upstream-perf.sh: upstream perf $UP unavailable: $*" >&2; exit 77; }

# apt-get in the root being built (its own apt, dpkg and sources)
in_root() {
	chroot "$ROOT.tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
}

setup() {
	local mirror version log
	[ "$(uname -m)" = x86_64 ] || unavailable "host is not x86_64"
	[ "$(id -u)" = 0 ] || unavailable "building $ROOT needs root (debootstrap, chroot)"
	mkdir -p "$CACHE" || unavailable "cannot create $CACHE"
	exec 9> "$CACHE/.${ROOT##*/}.lock"
	flock 9
	[ -f "$ROOT/.perf-defer-ok" ] && return 0
	if ! command -v debootstrap > /dev/null; then
		echo "upstream-perf.sh: installing debootstrap" >&2
		apt-get install -y -q -o DPkg::Lock::Timeout=600 debootstrap > "$CACHE/apt.log" 2>&1 ||
			unavailable "apt-get install debootstrap failed (see $CACHE/apt.log)"
	fi
	mirror=$(debian_mirror) || unavailable "no Debian mirror (set PERF_DEFER_MIRROR)"
	version=$(sed -n 's/^version=//p' "$VERSION_FILE" 2> /dev/null)
	[ -n "$version" ] || unavailable "no version in $VERSION_FILE"
	log=$CACHE/debootstrap-${ROOT##*/}.log
	rm -rf "$ROOT.tmp"
	echo "upstream-perf.sh: building $ROOT (debootstrap $DIST, linux-perf $version; a few minutes)" >&2
	if ! debootstrap --variant=minbase $DIST "$ROOT.tmp" "$mirror" > "$log" 2>&1; then
		rm -rf "$ROOT.tmp"
		unavailable "debootstrap failed (see $log)"
	fi
	echo "deb $mirror $SUITE main" >> "$ROOT.tmp/etc/apt/sources.list"
	# linux-perf of the base's version, else the suite's newest (checked
	# below); its dependencies come from $DIST.  The mirror may be a snapshot whose Release files have
	# expired: debootstrap does not mind, and the signatures are checked.
	if ! { in_root apt-get -q -o Acquire::Check-Valid-Until=false \
			-o Acquire::Check-Date=false update &&
	       { in_root apt-get install -y -q --no-install-recommends \
			"linux-perf=$version" ||
		 in_root apt-get install -y -q --no-install-recommends \
			"linux-perf/$SUITE"; }; } >> "$log" 2>&1; then
		rm -rf "$ROOT.tmp"
		unavailable "apt-get install linux-perf in the $SUITE root failed (see $log)"
	fi
	# (the packages and lists are not needed to run perf: 100 MB less)
	in_root apt-get clean >> "$log" 2>&1
	rm -rf "$ROOT.tmp"/var/lib/apt/lists/*
	local got
	got=$(run_perf "$ROOT.tmp" version 2>&1)
	case "$got" in
	"perf version $UP"|"perf version $UP"[!0-9]*) ;;
	*)	rm -rf "$ROOT.tmp"
		unavailable "the $SUITE root's perf is not $UP: ${got:-it does not run} (see $log)" ;;
	esac
	echo "upstream-perf.sh: $ROOT: $got (linux-perf $(in_root dpkg-query -W -f '${Version}' linux-perf))" >&2
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
	echo ok > "$ROOT/.perf-defer-ok"
}

# run_perf ROOT ARGS...: the root's perf with the root's loader and libraries
run_perf() {
	local root=$1 ldso
	shift
	ldso=$root/lib64/ld-linux-x86-64.so.2
	[ -e "$ldso" ] || ldso=$root/usr/lib64/ld-linux-x86-64.so.2
	[ -x "$root/usr/bin/perf" ] || { echo "no $root/usr/bin/perf" >&2; return 1; }
	"$ldso" --inhibit-cache --library-path "$root/usr/lib/$MA:$root/lib/$MA" \
		"$root/usr/bin/perf" "$@"
}

# make check-asan: the sanitizers look at our perf; what upstream prints
# is compared by the ordinary run of the same tests
[ -z "${PERF_DEFER_NO_UPSTREAM:-}" ] || unavailable "not compared (PERF_DEFER_NO_UPSTREAM is set)"
case "${1:-}" in
--available) [ -f "$ROOT/.perf-defer-ok" ] && exit 0
	echo "upstream perf $UP is not cached in $ROOT (run $0 --setup)" >&2; exit 77 ;;
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
