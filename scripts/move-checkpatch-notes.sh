#!/bin/bash
# move-checkpatch-notes.sh - move the lines that are for the reviewers and
# not for the history out of the commit messages of base..HEAD into the
# commits' git notes, which 'make export' writes below each patch's '---':
#
#   checkpatch: TYPE reason     a checkpatch exception (check-series.sh)
#   vN: ...                     the patch's changelog, with the indented
#                               lines that follow it
#
# The commits are rewritten in place (same trees, authors and dates; the
# messages lose those lines and the empty lines they leave doubled), the
# moved lines are appended to each commit's existing note, and the notes of
# the commits that did not change are carried over.  The branch is moved
# with a reflog entry ("git reset --hard ORIG" undoes it: the old tip is
# printed).  Work tree and index are not touched: the trees are the same.
#
#   scripts/move-checkpatch-notes.sh [--dry-run] [REPO]
#       REPO: a repository or work tree with a 'base' tag, build/src-7.3 by
#       default; --dry-run: only show what would move
#
# Then 'make export' (checkpatch exceptions and changelogs appear below
# '---' in patches-7.3/) and 'make check-series'.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
dry=0
[ "${1:-}" = --dry-run ] && { dry=1; shift; }
repo=${1:-$top/build/src-7.3}
cd "$repo"
git rev-parse -q --verify base >/dev/null ||
	{ echo "move-checkpatch-notes.sh: $repo has no 'base' tag" >&2; exit 1; }
for d in rebase-merge rebase-apply; do
	[ ! -e "$(git rev-parse --git-path $d)" ] ||
		{ echo "move-checkpatch-notes.sh: a rebase or git am is in progress in $repo" >&2; exit 1; }
done
git config notes.rewriteRef refs/notes/commits

# the message without the moved lines, and the moved lines, of a message
split_msg() { # file-with-message -> $1.keep $1.move
	awk -v keep="$1.keep" -v move="$1.move" '
		/^checkpatch:[[:space:]]/ { print > move; cont = 0; next }
		/^v[0-9]+:/ { print > move; cont = 1; next }
		cont && /^[[:space:]]+[^[:space:]]/ { print > move; next }
		{ cont = 0; print > keep }' "$1"
	touch "$1.keep" "$1.move"
	# the removed lines leave empty lines doubled, or one at the end
	git stripspace < "$1.keep" > "$1.k2" && mv "$1.k2" "$1.keep"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
old_tip=$(git rev-parse HEAD)
parent=$(git rev-parse base)
nmoved=0 changed=0
for c in $(git rev-list --reverse base..HEAD); do
	rm -f "$tmp"/raw*
	# the message exactly as git stores it
	git cat-file commit "$c" | sed '1,/^$/d' > "$tmp/raw"
	split_msg "$tmp/raw"
	if [ -s "$tmp/raw.move" ]; then
		nmoved=$((nmoved + 1))
		echo "$(git log -1 --format='%h %s' "$c"):"
		sed 's/^/    /' "$tmp/raw.move"
		msgfile=$tmp/raw.keep
	else
		msgfile=$tmp/raw
	fi
	[ $dry = 1 ] && continue
	if [ "$msgfile" = "$tmp/raw" ] && [ "$changed" = 0 ]; then
		new=$c	# nothing changed yet: keep the commit as it is
	else
		changed=1
		new=$(GIT_AUTHOR_NAME=$(git log -1 --format=%an "$c") \
		      GIT_AUTHOR_EMAIL=$(git log -1 --format=%ae "$c") \
		      GIT_AUTHOR_DATE=$(git log -1 --format=%ad --date=raw "$c") \
		      GIT_COMMITTER_NAME=$(git log -1 --format=%cn "$c") \
		      GIT_COMMITTER_EMAIL=$(git log -1 --format=%ce "$c") \
		      GIT_COMMITTER_DATE=$(git log -1 --format=%cd --date=raw "$c") \
		      git commit-tree "$c^{tree}" -p "$parent" -F "$msgfile")
		# the note: the old one, then the moved lines
		{
			git notes show "$c" 2>/dev/null || true
			cat "$tmp/raw.move"
		} | git stripspace > "$tmp/note"
		# (the new commit may be one that had its note already: the
		# same message, tree and dates give the same commit)
		git notes remove --ignore-missing "$new" 2>/dev/null
		[ -s "$tmp/note" ] && git notes add -F "$tmp/note" "$new"
	fi
	parent=$new
done
if [ $dry = 1 ]; then
	echo "move-checkpatch-notes.sh: $nmoved commits have lines to move (dry run: nothing changed)"
	exit 0
fi
if [ "$parent" = "$old_tip" ]; then
	echo "move-checkpatch-notes.sh: nothing to move in base..HEAD"
	exit 0
fi
git update-ref -m "move-checkpatch-notes: checkpatch and changelog lines to notes" HEAD "$parent" "$old_tip"
echo "move-checkpatch-notes.sh: moved the lines of $nmoved commits into notes;" \
	"HEAD was $old_tip (git reset --hard $old_tip undoes it)"
echo "move-checkpatch-notes.sh: now 'make export' and 'make check-series'"
