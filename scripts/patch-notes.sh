#!/bin/bash
# patch-notes.sh - what a patch file says below its '---' line for the
# reviewers, not for the history: the git notes that 'git format-patch
# --notes' (scripts/export.sh) writes between '---' and the diffstat,
#
#     Signed-off-by: ...
#     ---
#
#     Notes:
#         checkpatch: CAMELCASE PRIx64 is the C99 format macro perf uses.
#         v2: - split out of the merge patch
#
#      tools/perf/util/session.c | 12 ++++++
#
# ('git am' drops them.)  Prints the notes without their 4-space indent,
# nothing if the patch has none.
#
#   scripts/patch-notes.sh PATCH             the notes
#   scripts/patch-notes.sh --message PATCH   the commit message part instead
#                                            (after the mail headers, up to
#                                            the '---' or the diff)
set -eu
export LC_ALL=C
if [ "${1:-}" = --message ]; then
	exec awk 'h && (/^---$/ || /^diff --git /) { exit }
		  !h && /^$/ { h = 1; next }
		  h' "$2"
fi
[ $# = 1 ] || { echo "usage: $0 [--message] PATCH" >&2; exit 2; }
# A note's empty lines are written as 4 spaces; a mailer or an editor may
# have stripped those, so an empty line ends the notes only when what
# follows is not indented by 4 spaces (the diffstat is indented by 1).
awk '
	/^diff --git / { exit }
	!sep { if ($0 == "---") sep = 1; next }
	state == 0 && /^$/ { next }
	state == 0 && /^Notes:$/ { state = 1; next }
	state == 0 { exit }
	/^    / { while (blank > 0) { print ""; blank-- } print substr($0, 5); next }
	/^ *$/ { blank++; next }
	{ exit }
' "$1"
