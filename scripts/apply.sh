#!/bin/bash
# apply.sh - put patches-7.3/series onto the base in build/src-7.3 as commits
# (git am) on branch 'series' (the paths are scripts/series.sh's).
#
#   scripts/apply.sh              apply now (make apply)
#   scripts/apply.sh --if-needed  only if patches-7.3/ changed since the last
#                                 apply or export (what 'make' runs)
#   scripts/apply.sh --record     note that build/src-7.3 and patches-7.3/ agree
#                                 (export.sh calls this)
#
# build/applied-7.3.state holds the hash of
# patches-7.3/*, the commit build/src-7.3 was left at by the last apply or export,
# and its notes ref (the notes
# below each patch's '---' are git notes in build/src-7.3: am-series.sh --notes
# restores them, export.sh writes them).  The series is applied in a
# scratch worktree (scripts/am-series.sh) and build/src-7.3 is then checked out
# at the result, so only files that differ are rewritten and an
# incremental build stays small.
#
# Never throws work away unless FORCE=1: it refuses when build/src-7.3 has
# uncommitted changes, or commits made since the last apply/export that
# patches-7.3/ does not have (commit them and 'make export' first).  With no
# record at all (a build/src-7.3 older than this script), --if-needed leaves
# build/src-7.3's commits alone and says so.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
src=$SER_SRC
state=$SER_STATE
pdir=$SER_PATCHES
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mode=${1:-}

patches_hash() {
	(cd "$pdir" 2>/dev/null && find . -type f | sort | xargs -r sha1sum --) | sha1sum | cut -c1-40
}
notes_ref() {
	git -C "$src" rev-parse -q --verify refs/notes/commits || true
}
record() {
	printf 'patches=%s\nhead=%s\nnotes=%s\n' "$(patches_hash)" \
		"$(git -C "$src" rev-parse HEAD)" "$(notes_ref)" > "$state.tmp"
	mv "$state.tmp" "$state"
}
# does exporting build/src-7.3's base..HEAD give exactly patches-7.3/?
exported_matches() {
	local tmp ok=0 p
	tmp=$(mktemp -d)
	"$top/scripts/export.sh" --to "$tmp" >/dev/null
	if cmp -s "$tmp/series" "$pdir/series"; then
		while read -r p; do
			cmp -s "$tmp/$p" "$pdir/$p" || { ok=1; break; }
		done < "$tmp/series"
	else
		ok=1
	fi
	rm -rf "$tmp"
	return $ok
}

if [ "$mode" = --record ]; then
	record
	exit 0
fi

"$top/scripts/fetch-base.sh"
rec_patches=$(sed -n 's/^patches=//p' "$state" 2>/dev/null || true)
rec_head=$(sed -n 's/^head=//p' "$state" 2>/dev/null || true)
# (a state file older than the notes has no notes= line: no notes then)
rec_notes=$(sed -n 's/^notes=//p' "$state" 2>/dev/null || true)

if [ "$mode" = --if-needed ]; then
	[ "$(patches_hash)" = "$rec_patches" ] && exit 0
	if exported_matches; then
		record
		exit 0
	fi
	if [ ! -f "$state" ] && [ "$(git -C "$src" rev-list --count base..HEAD)" != 0 ]; then
		# no record of an apply or export, and commits that are not
		# patches-7.3/: leave them alone, and never count them as exported
		echo "apply.sh: $(rel "$src") has commits that $(rel "$pdir")/ does not have; building them as they are" >&2
		echo "apply.sh: ('make export' writes them to $(rel "$pdir")/, 'FORCE=1 make apply' replaces them)" >&2
		printf 'patches=%s\nhead=\n' "$(patches_hash)" > "$state"
		exit 0
	fi
	if [ -n "$rec_patches" ]; then
		echo "apply.sh: $(rel "$pdir")/ changed since the last apply/export: applying it"
	fi
fi

cd "$src"
if [ "${FORCE:-0}" != 1 ]; then
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		git status --short --untracked-files=no >&2
		echo "apply.sh: $(rel "$src") has uncommitted changes; commit and 'make export' them, or FORCE=1 to discard" >&2
		exit 1
	fi
	if [ "$(git rev-list --count base..HEAD)" != 0 ] &&
	   { [ "$(git rev-parse HEAD)" != "$rec_head" ] || [ "$(notes_ref)" != "$rec_notes" ]; } &&
	   ! exported_matches; then
		git log --oneline base..HEAD >&2
		echo "apply.sh: $(rel "$src") has commits or notes that $(rel "$pdir")/ does not have; 'make export' them, or FORCE=1 to discard" >&2
		exit 1
	fi
fi

git am --abort >/dev/null 2>&1 || true
list=$("$top/scripts/am-series.sh" --notes)
tip=$(echo "$list" | tail -n 1 | cut -d' ' -f1)
[ -n "$tip" ] || tip=$(git rev-parse base)
if [ "${FORCE:-0}" = 1 ]; then
	git checkout -q -f -B series "$tip"
else
	git checkout -q -B series "$tip"
fi
record
echo "apply.sh: $(echo "$list" | grep -c . || true) patches applied on base in $(rel "$src") (branch series)"
