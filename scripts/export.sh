#!/bin/bash
# export.sh - write build/src's commits base..HEAD into patches/ as a
# git format-patch series plus patches/series.  File names are stable
# (NNNN-subject.patch) and the version footer and index hashes' churn is
# stripped, so exporting an unchanged series changes nothing.
# --to DIR writes elsewhere (used to compare without touching patches/).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src
out=$top/patches
[ "${1:-}" = "--to" ] && out=$2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" format-patch -q --no-signature --zero-commit \
	--full-index --abbrev=12 -o "$tmp" base..HEAD
# drop the "index" lines' blob churn? keep them (git am needs them for 3-way)
rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
: > "$out/series"
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || continue
	b=$(basename "$f")
	cp "$f" "$out/$b"
	echo "$b" >> "$out/series"
done
# patches/ now matches build/src: 'make' need not re-apply it
[ "$out" = "$top/patches" ] && "$top/scripts/apply.sh" --record
echo "export.sh: $(wc -l < "$out/series") patches in $out"
