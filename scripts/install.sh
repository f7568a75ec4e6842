#!/bin/bash
# install.sh - 'make install': install perf as a distribution does, with
# perf's own install targets (install-bin install-man): $PREFIX/bin/perf,
# the scripts of 'perf script' (libexec/perf-core: perf script report
# flamegraph, gecko, ...), share/doc/perf-tip/tips.txt, the tests of
# 'perf test', bash completion (etc), and the man pages rendered with
# asciidoc and xmlto (share/man/man1); and perf.data-file-format.txt,
# which perf renders into no man page, in share/doc/perf-doc.
#
#   make install [PREFIX=/usr/local] [DESTDIR=DIR]
#
# The perf of the 7.3 series (SERIES=7.3, the default and only one).
# perf finds its scripts and tips.txt under the prefix it was built with:
# for PREFIX=/usr/local (the default) the series' perf that the tests run
# (build/perf-7.3/perf) is installed as it is; for another PREFIX perf is
# built again into build/install-7.3 (mostly from ccache).  DESTDIR is
# prepended to every path written and changes nothing in the files (for
# packaging: a perf installed with DESTDIR looks for its files under
# PREFIX).
set -eu
export SERIES=${SERIES:-7.3}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
case "$prefix" in
/*) ;;
*) echo "install.sh: PREFIX must be an absolute path: $prefix" >&2; exit 1 ;;
esac
case "$destdir" in
""|/*) ;;
*) destdir=$(pwd)/$destdir ;;
esac
# perf's make wants no trailing slash (it compares prefix with /usr)
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/

args=("${SER_BUILD_ARGS[@]}")
if [ "$prefix" = /usr/local ]; then
	O=$SER_PERF_O
else
	O=$top/build/install${SER_PERF_O#$top/build/perf}
	args+=(prefix="$prefix")
fi
export SRC=$SER_SRC
"$top/scripts/apply.sh" --if-needed
O=$O "$top/scripts/build.sh" --if-changed "${args[@]}"
echo "install.sh: installing ${O#$top/}/perf into $destdir$prefix (log: ${O#$top/}/install.log)"
O=$O "$top/scripts/build.sh" --install "${args[@]}" DESTDIR="$destdir" \
	> "$O/install.log" 2>&1 || {
	tail -30 "$O/install.log" >&2
	echo "install.sh: perf's install failed (log: $O/install.log)" >&2
	exit 1
}
doc=$destdir$prefix/share/doc/perf-doc
install -d -m 755 "$doc"
install -m 644 "$SER_SRC/tools/perf/Documentation/perf.data-file-format.txt" "$doc"
echo "install.sh: $destdir$prefix/bin/perf; man pages in $destdir$prefix/share/man/man1"
