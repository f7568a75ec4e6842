#!/bin/bash
# fetch-base.sh - fetch Debian's linux-source-6.12 and lay the perf base out
# as a git repository in build/src, tagged 'base'.
#
# The .deb is kept in $PERF_DEFER_CACHE (default /var/cache/perf-defer) so
# that reruns and CI on the same machine do not download it again.  The exact
# package version is pinned in BASE-VERSION; if the mirror no longer has it,
# the newest 6.12 is taken and a warning says so.
# Also installs the build dependencies when they are missing (for
# 'make install' too: asciidoc and xmlto render the man pages).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PERF_DEFER_CACHE:-/var/cache/perf-defer}
src=$top/build/src
want=$(sed -n 's/^version=//p' "$top/BASE-VERSION")
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

deps="gcc g++ make flex bison pkg-config python3 python3-dev perl git xz-utils
libelf-dev libdw-dev libtraceevent-dev libunwind-dev zlib1g-dev liblzma-dev
libzstd-dev libslang2-dev libnuma-dev libssl-dev libcap-dev libbabeltrace-dev
libpfm4-dev systemtap-sdt-dev ccache python3-setuptools asciidoc-base xmlto
man-db"
missing=""
for p in $deps; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
updated=0
if [ -n "$missing" ]; then
	echo "fetch-base: installing build dependencies:$missing"
	apt-get update -qq && updated=1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ -f "$src/.git/BASE-OK" ] && [ "$(cat "$src/.git/BASE-OK")" = "$want" ]; then
	exit 0
fi

mkdir -p "$cache"
deb=$cache/linux-source-6.12_${want}_all.deb
if [ ! -s "$deb" ]; then
	[ $updated = 1 ] || apt-get update -qq
	ver=$want
	if ! apt-cache madison linux-source-6.12 | awk '{print $3}' | grep -qxF "$want"; then
		ver=$(apt-cache madison linux-source-6.12 | awk '{print $3}' | sort -V | tail -1)
		[ -n "$ver" ] || { echo "fetch-base: linux-source-6.12 not on the mirror" >&2; exit 1; }
		echo "fetch-base: WARNING: $want is gone from the mirror, using the newest 6.12: $ver" >&2
		deb=$cache/linux-source-6.12_${ver}_all.deb
		want=$ver
	fi
	if [ ! -s "$deb" ]; then
		tmp=$(mktemp -d "$cache/dl.XXXXXX")
		(cd "$tmp" && apt-get download -qq "linux-source-6.12=$ver")
		mv "$tmp"/linux-source-6.12_*.deb "$deb"
		rmdir "$tmp"
	fi
fi

echo "fetch-base: extracting perf from $(basename "$deb")"
rm -rf "$src"
mkdir -p "$src"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO ./usr/src/linux-source-6.12.tar.xz | xz -dc |
	tar -x -C "$src" --strip-components=1 \
		linux-source-6.12/Makefile linux-source-6.12/scripts \
		linux-source-6.12/arch/x86/Makefile \
		linux-source-6.12/arch/arm64/tools/gen-sysreg.awk \
		linux-source-6.12/arch/arm64/tools/sysreg \
		linux-source-6.12/tools/arch linux-source-6.12/tools/build \
		linux-source-6.12/tools/include linux-source-6.12/tools/lib \
		linux-source-6.12/tools/perf linux-source-6.12/tools/scripts
cd "$src"
git init -q
git config user.name "perf-defer base"
git config user.email "base@localhost"
git add -A
git commit -q -m "base: Debian linux-source-6.12 $want"
git tag base
# the series is ours: commits made here are the developers'
git config user.name "Perf Defer Developers"
git config user.email "perf-defer@localhost"
echo "$want" > .git/BASE-OK
echo "fetch-base: build/src at base ($want)"
