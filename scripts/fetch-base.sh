#!/bin/bash
# fetch-base.sh - fetch Debian's linux-source package of a base and lay the
# perf part out as a git repository, tagged 'base': Debian trixie-backports'
# linux-source-7.3 into build/src-7.3 (SERIES=7.3; scripts/series.sh).
#
# The .deb is kept in $PERF_DEFER_CACHE (default /var/cache/perf-defer) so
# that reruns and CI on the same machine do not download it again.  The exact
# package version is pinned in BASE-VERSION-7.3; if the mirror no longer
# has it, the newest of that series is taken and a warning says so.  It
# comes through a private apt configuration listing trixie and
# trixie-backports (scripts/debian-apt.sh: its own sources.list, lists and cache
# in $PERF_DEFER_CACHE/debian-apt; the host's apt setup is not touched; the
# mirror is the host's: scripts/debian-mirror.sh, $PERF_DEFER_MIRROR to
# override it).
# Also installs the build dependencies when they are missing (for
# 'make install' too: asciidoc and xmlto render the man pages).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
cache=${PERF_DEFER_CACHE:-/var/cache/perf-defer}
src=$SER_SRC
pkg=$SER_PKG
want=$(sed -n 's/^version=//p' "$SER_VERSION")
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

deps="gcc g++ make flex bison pkg-config python3 python3-dev perl git xz-utils
libelf-dev libdw-dev libtraceevent-dev libunwind-dev zlib1g-dev liblzma-dev
libzstd-dev libslang2-dev libnuma-dev libssl-dev libcap-dev libbabeltrace-dev
libpfm4-dev systemtap-sdt-dev ccache python3-setuptools asciidoc-base xmlto
man-db"
missing=""
# (installed for this machine's architecture: with another one added, as
# tests/e2e/m32-build.sh adds i386, 'dpkg -s NAME' calls NAME ambiguous)
native=$(dpkg --print-architecture)
for p in $deps; do
	dpkg-query -W -f='${db:Status-Abbrev}${Architecture}\n' "$p" 2> /dev/null |
		grep -Eq "^ii *($native|all)$" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "fetch-base: installing build dependencies:$missing"
	apt-get update -qq -o DPkg::Lock::Timeout=600
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $missing >/dev/null
fi

if [ -f "$src/.git/BASE-OK" ] && [ "$(cat "$src/.git/BASE-OK")" = "$want" ]; then
	exit 0
fi

mkdir -p "$cache"
deb=$cache/${pkg}_${want}_all.deb
if [ ! -s "$deb" ]; then
	. "$top/scripts/debian-apt.sh"
	debian_apt_init "$cache/debian-apt" ||
		{ echo "fetch-base: no apt configuration for trixie and trixie-backports" >&2; exit 1; }
	debian_apt_update "$cache/debian-apt/update.log" ||
		{ cat "$cache/debian-apt/update.log" >&2; echo "fetch-base: apt-get update of trixie and trixie-backports failed" >&2; exit 1; }
	apt=("${DEBIAN_APT[@]}")
	ver=$want
	if ! apt-cache "${apt[@]}" madison $pkg | awk '{print $3}' | grep -qxF "$want"; then
		ver=$(apt-cache "${apt[@]}" madison $pkg | awk '{print $3}' | sort -V | tail -1)
		[ -n "$ver" ] || { echo "fetch-base: $pkg not on the mirror" >&2; exit 1; }
		echo "fetch-base: WARNING: $want is gone from the mirror, using the newest $SER: $ver" >&2
		deb=$cache/${pkg}_${ver}_all.deb
		want=$ver
	fi
	if [ ! -s "$deb" ]; then
		echo "fetch-base: downloading $pkg $ver"
		tmp=$(mktemp -d "$cache/dl.XXXXXX")
		(cd "$tmp" && apt-get "${apt[@]}" download -qq "$pkg=$ver")
		mv "$tmp"/${pkg}_*.deb "$deb"
		rmdir "$tmp"
	fi
fi

# a work tree, perhaps with commits and changes not exported yet: never
# thrown away (it lacks the mark when it was cloned or made by hand)
if [ -e "$src/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	echo "fetch-base: $src is a git work tree without the mark of base $want" \
		"($src/.git/BASE-OK): not replacing it; FORCE=1 to replace it" >&2
	exit 1
fi
echo "fetch-base: extracting perf from $(basename "$deb")"
rm -rf "$src"
mkdir -p "$src"
paths="Makefile scripts arch/x86/Makefile $SER_ARM64_TOOLS tools/arch tools/build
tools/include tools/lib tools/perf tools/scripts"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO ./usr/src/$pkg.tar.xz | xz -dc |
	tar -x -C "$src" --strip-components=1 $(for p in $paths; do echo "$pkg/$p"; done)
cd "$src"
git init -q
git config user.name "perf-defer base"
git config user.email "base@localhost"
git add -A
git commit -q -m "base: Debian $pkg $want"
git tag base
# the series is ours: commits made here are the developers'
git config user.name "Perf Defer Developers"
git config user.email "perf-defer@localhost"
echo "$want" > .git/BASE-OK
echo "fetch-base: $(rel "$src") at base ($want)"
