#!/bin/bash
# export.sh - write build/src-7.3's commits base..HEAD into patches-7.3/ as a
# git format-patch series plus patches-7.3/series.  File names are stable
# (NNNN-subject.patch) and the version footer and index hashes' churn is
# stripped, so exporting an unchanged series changes nothing (the paths
# are scripts/series.sh's).
#
# Each commit's git note (refs/notes/commits: checkpatch exceptions, the
# patch's changelog) goes below its '---' line ('git format-patch
# --notes'), where reviewers read it and 'git am' drops it; apply.sh puts
# it back as a note (am-series.sh --notes).  Edit one with
# 'git -C build/src-7.3 notes edit COMMIT'; rebase and amend keep them.
#
# With patches-7.3/cover-letter.txt it also writes patches-7.3/0000-cover-letter.patch
# (not listed in patches-7.3/series: 'git am' cannot apply it), as
# 'git format-patch --cover-letter' does, its subject and text taken from
# that file and the shortlog and diffstat from the series.  The file is
#
#     Subject: perf tools: Support deferred user callchains
#     Prefix: PATCH v2
#     Cc: Namhyung Kim <namhyung@kernel.org>
#
#     The text of the cover letter, as it is sent ...
#
# a header block (Subject: required; Prefix: the subject prefix of every
# patch, "PATCH" when absent; Cc: lines, copied into the cover letter's
# header, from the tree's scripts/get_maintainer.pl), an empty line, the
# body.  The cover letter's
# From and Date are those of the last commit, so it is stable too.
#
# The patches are the project's, From and Signed-off-by a placeholder
# (scripts/fetch-base.sh's identity): a person who exports with
# git config user.name and user.email set signs them as that identity, so
# that what they send carries their own DCO.
#
#   scripts/export.sh                 into patches-7.3/
#   scripts/export.sh --to DIR        elsewhere (to compare without touching
#                                     patches-7.3/)
#   scripts/export.sh --to DIR --tip COMMIT
#                                     base..COMMIT instead of build/src-7.3's HEAD
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
src=$SER_SRC
out=$SER_PATCHES
tip=HEAD
cover=$SER_PATCHES/cover-letter.txt
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
while [ $# -gt 0 ]; do
	case $1 in
	--to) out=$2; shift 2 ;;
	--tip) tip=$2; shift 2 ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# git rebase and git commit --amend carry the notes over to the new commits
git -C "$src" config notes.rewriteRef refs/notes/commits

# one git format-patch series: format RANGE DIR COVER-LETTER.TXT
format() {
	local range=$1 dir=$2 cover=$3 last=${1#*..} prefix=PATCH subject= withcover= p
	mkdir -p "$dir"
	if [ -f "$cover" ]; then
		subject=$(sed -n '/^$/q; s/^Subject:[[:space:]]*//p' "$cover")
		p=$(sed -n '/^$/q; s/^Prefix:[[:space:]]*//p' "$cover")
		[ -n "$p" ] && prefix=$p
		if [ -z "$subject" ]; then
			echo "export.sh: ${cover#$top/} has no 'Subject:' line" >&2
			exit 1
		fi
		withcover=--cover-letter
	fi
	git -C "$src" format-patch -q --no-signature --zero-commit --notes \
		--full-index --abbrev=12 --subject-prefix="$prefix" $withcover \
		-o "$dir" "$range"

	if [ -n "$withcover" ] && [ -f "$dir/0000-cover-letter.patch" ]; then
		# fill in git's placeholders; From and Date of the last commit
		sed '1,/^$/d' "$cover" > "$dir/.body"
		# its Cc: lines, after the Subject (git send-email --cc-cover
		# sends every patch of the submission to them too)
		sed -n '/^$/q; /^Cc:/p' "$cover" > "$dir/.cc"
		from=$(git -C "$src" log -1 --format='%an <%ae>' "$last")
		date=$(git -C "$src" log -1 --format='%aD' "$last")
		awk -v subject="$subject" -v from="$from" -v date="$date" -v body="$dir/.body" \
			-v cc="$dir/.cc" '
			# git folds a long identity onto a second line: drop it with the first
			!hdr && /^From: / { print "From: " from; infrom = 1; next }
			!hdr && infrom && /^ / { next }
			{ infrom = 0 }
			!hdr && /^Date: / { print "Date: " date; next }
			!hdr && /^Subject: .*\*\*\* SUBJECT HERE \*\*\*$/ {
				# fold the header as git does, at about 78 columns
				line = $0; sub(/\*\*\* SUBJECT HERE \*\*\*$/, "", line)
				sub(/ $/, "", line)
				n = split(subject, w, " ")
				for (i = 1; i <= n; i++) {
					if (length(line) + 1 + length(w[i]) > 78 && line !~ /^Subject: \[[^]]*\]$/) {
						print line; line = ""
					}
					line = line " " w[i]
				}
				print line
				while ((getline l < cc) > 0) print l
				next
			}
			!hdr && /^$/ { hdr = 1 }
			$0 == "*** BLURB HERE ***" {
				while ((getline l < body) > 0) print l
				next
			}
			{ print }' "$dir/0000-cover-letter.patch" > "$dir/.cover" &&
			mv "$dir/.cover" "$dir/0000-cover-letter.patch"
		rm -f "$dir/.body" "$dir/.cc"
	fi
}

# A series split into submissions (patches-7.3/: one folder each, with its
# own cover-letter.txt and series, and the top series naming DIR/PATCH in
# the order they apply): each commit goes where its patch was, a new one
# where the one before it is.
subs=$(sed -n 's,^\([^#/][^/]*\)/[0-9]\{4\}-.*\.patch$,\1,p' "$SER_PATCHES/series" 2> /dev/null | uniq)
if [ -z "$subs" ]; then
	format "base..$tip" "$tmp" "$cover"
else
	declare -A where=()
	for d in $subs; do
		while read -r f; do where[${f#[0-9][0-9][0-9][0-9]-}]=$d; done < "$SER_PATCHES/$d/series"
	done
	git -C "$src" format-patch -q --zero-commit -o "$tmp/all" "base..$tip"
	d=${subs%%$'\n'*} start=base n=0 prev=
	: > "$tmp/groups"
	for c in $(git -C "$src" rev-list --reverse "base..$tip"); do
		n=$((n + 1))
		f=$(cd "$tmp/all" && ls | sed -n "$n"p)
		d=${where[${f#[0-9][0-9][0-9][0-9]-}]:-$d}
		[ "$d" = "$prev" ] || echo "$d $c" >> "$tmp/groups"
		prev=$d
	done
	rm -rf "$tmp/all"
	if [ "$(cut -d' ' -f1 "$tmp/groups" | sort | uniq -d)" != "" ]; then
		echo "export.sh: a submission's commits are not all together:" >&2
		cut -d' ' -f1 "$tmp/groups" >&2
		exit 1
	fi
	# each submission: from the first commit of the next back to its own
	while read -r d first; do
		next=$(awk -v d="$d" 'found { print $2; exit } $1 == d { found = 1 }' "$tmp/groups")
		last=${next:+$next~1}
		format "$first~1..${last:-$tip}" "$tmp/$d" "$SER_PATCHES/$d/cover-letter.txt"
	done < "$tmp/groups"
	cut -d' ' -f1 "$tmp/groups" > "$tmp/subs"
fi

# the placeholder's From and Signed-off-by: the exporting person's
placeholder="Perf Defer Developers <perf-defer@localhost>"
name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
ident=
if [ -n "$name" ] && [ -n "$email" ] && [ "$name <$email>" != "$placeholder" ]; then
	# a name with characters outside atext is quoted, as git does
	case $name in
	*[!A-Za-z0-9\ _-]*) name="\"${name//\"/\\\"}\"" ;;
	esac
	ident="$name <$email>"
fi
# (and a From: that git folds onto a second line, as it does a long
# identity, on one line: the same whoever wrote the commit)
for f in "$tmp"/*.patch "$tmp"/*/*.patch; do
	[ -e "$f" ] || continue
	PH=$placeholder ID=${ident:-$placeholder} NAME=${ident:+$name} awk '
		BEGIN { ph = ENVIRON["PH"]; id = ENVIRON["ID"]; name = ENVIRON["NAME"]
			phname = ph; sub(/ <.*/, "", phname) }
		function flush() { if (from != "") { print (from == "From: " ph ? "From: " id : from); from = "" } }
		!hdr && /^From: / { flush(); from = $0; next }
		!hdr && from != "" && /^ / { sub(/^ +/, " "); from = from $0; next }
		{ flush() }
		!hdr && /^$/ { hdr = 1 }
		$0 == "Signed-off-by: " ph { print "Signed-off-by: " id; next }
		# the cover letter'"'"'s shortlog
		name != "" && index($0, phname " (") == 1 && /^[^(]*\([0-9]+\):$/ {
			sub(/^[^(]*\(/, ""); print name " (" $0; next
		}
		{ print }
		END { flush() }' "$f" > "$f.id" && mv "$f.id" "$f"
done

rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch "$out"/*/[0-9][0-9][0-9][0-9]-*.patch
: > "$out/series"
copy() { # DIR: the patches of $tmp/DIR into $out/DIR, listed in DIR/series
	local b
	mkdir -p "$out/$1"
	[ "$1" = . ] || : > "$out/$1/series"
	for f in "$tmp/$1"/*.patch; do
		[ -e "$f" ] || continue
		b=$(basename "$f")
		cp "$f" "$out/$1/$b"
		[ "$b" = 0000-cover-letter.patch ] && continue
		if [ "$1" = . ]; then
			echo "$b" >> "$out/series"
		else
			echo "$b" >> "$out/$1/series"
			echo "$1/$b" >> "$out/series"
		fi
	done
}
if [ -f "$tmp/subs" ]; then
	while read -r d; do
		copy "$d"
		# (--to: with the cover-letter.txt it was made from)
		[ "$out" = "$SER_PATCHES" ] || [ ! -f "$SER_PATCHES/$d/cover-letter.txt" ] ||
			cp "$SER_PATCHES/$d/cover-letter.txt" "$out/$d/"
	done < "$tmp/subs"
else
	copy .
fi
# patches-7.3/ now matches build/src-7.3: 'make' need not re-apply it
[ "$out" = "$SER_PATCHES" ] && "$top/scripts/apply.sh" --record
covers=$(find "$out" -maxdepth 2 -name 0000-cover-letter.patch | wc -l)
echo "export.sh: $(wc -l < "$out/series") patches and $covers cover letter(s) in $out"
