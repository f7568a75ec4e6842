#!/bin/bash
# am-series.sh - turn patches-7.3/series into a chain of commits on 'base'
# without touching any existing work tree: 'git am' runs in a scratch
# worktree of build/src-7.3 that is removed afterwards (the commits stay in
# build/src-7.3's object store).  Used by apply.sh and check-series.sh.
# (The paths are scripts/series.sh's.)
#
# The committer date is the author date, so the same patches give the same
# commits (and perf version string) on every machine and every run.
#
# Prints one line per patch that applied: "<commit> <patch file>".
# If a patch does not apply, says which on stderr and exits 1 after
# printing the lines of the patches before it.
#
# --notes: also make each patch's notes (below its '---' line, which 'git
# am' drops: checkpatch exceptions, changelog; scripts/patch-notes.sh) the
# git note of its commit (refs/notes/commits), and remove a note the patch
# no longer has.  Only apply.sh asks for it: the same patches give the
# same commits, so check-series must not overwrite notes edited in
# build/src-7.3 and not yet exported.
set -eu
notes=0
[ "${1:-}" = --notes ] && notes=1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
src=$SER_SRC
pdir=$SER_PATCHES
series=$pdir/series
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

git -C "$src" rev-parse -q --verify base >/dev/null ||
	{ echo "am-series.sh: $(rel "$src") has no 'base' tag (run scripts/fetch-base.sh)" >&2; exit 1; }
scratch=$(mktemp -d "$top/build/am-scratch.XXXXXX")
cleanup() {
	git -C "$src" worktree remove --force "$scratch" >/dev/null 2>&1 || true
	rm -rf "$scratch" "$scratch.log"
	git -C "$src" worktree prune
}
trap cleanup EXIT
git -C "$src" worktree add -q --detach "$scratch" base
# git rebase and git commit --amend carry the notes over to the new commits
git -C "$src" config notes.rewriteRef refs/notes/commits
cd "$scratch"
[ -f "$series" ] || exit 0
while read -r p; do
	case "$p" in ""|\#*) continue ;; esac
	if [ ! -f "$pdir/$p" ]; then
		echo "am-series.sh: $p is listed in $(rel "$series") but missing" >&2
		exit 1
	fi
	if ! git am -q --keep-cr --committer-date-is-author-date "$pdir/$p" >"$scratch.log" 2>&1; then
		cat "$scratch.log" >&2
		git am --abort >/dev/null 2>&1 || true
		echo "am-series.sh: $p does not apply" >&2
		exit 1
	fi
	if [ $notes = 1 ]; then
		want=$("$top/scripts/patch-notes.sh" "$pdir/$p" | git stripspace)
		have=$(git notes show HEAD 2>/dev/null || true)
		if [ -z "$want" ]; then
			[ -z "$have" ] || git notes remove HEAD 2>/dev/null
		elif [ "$want" != "$have" ]; then
			printf '%s\n' "$want" | git notes add -f -F - HEAD
		fi
	fi
	echo "$(git rev-parse HEAD) $p"
done < "$series"
