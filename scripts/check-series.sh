#!/bin/bash
# check-series.sh - the series checks (make check-series; tests/run.sh runs
# them too).  For every patch in patches-7.3/series, in order:
#
#  1. it applies (git am onto base + the patches before it);
#  2. checkpatch.pl --strict --no-tree has nothing to say: 0 errors,
#     0 warnings, 0 checks; and it touches no file outside tools/,
#     include/ and Documentation/;
#  3. base + patches 1..k builds on its own, with -Werror (bisectability);
#  4. base + patches 1..k behaves (scripts/check-behaviour.sh: perf script,
#     report --stats and inject on four recordings made by perf 7.2;
#     nothing that worked before stops working or fails differently from
#     the base, no sample, frame or record is lost): one more line per patch,
#     "check-series-7.3: NNNN-...: behaviour".
# And patches-7.3/0000-cover-letter.patch, when there is one, is what
# scripts/export.sh makes of patches-7.3/cover-letter.txt and the series.
#
# Checkpatch exceptions: a patch may silence a checkpatch message TYPE for
# itself only, by saying why in its notes, below the patch's '---' line
# (a git note on the commit in build/src-7.3: 'git notes edit', then 'make
# export'), one line per type:
#
#     checkpatch: LONG_LINE_COMMENT copied verbatim from the kernel's UAPI header
#
# (TYPE as printed by checkpatch --show-types; a reason is required, and an
# exception that is not needed any more is an error too.)  Such a line, or
# a changelog line ("v2: ..."), in the commit message is an error: it
# belongs in the notes (scripts/move-checkpatch-notes.sh moves them).
#
# The builds are incremental, one after the other, in a worktree of
# build/src-7.3 (build/check-series-7.3/src, detached, never build/src-7.3 itself) and
# their own O= directory (build/check-series-7.3/perf), with the feature
# detection of the first build frozen (FEATURES_DUMP) so that each step
# only recompiles what the patch touches.  The first is the base's (made
# by scripts/build-base-perf.sh, which 'make check' runs first and which
# copies it to build/perf-7.3-base, or here to measure the base's behaviour):
# base+1 goes on from it.  A step is skipped when the same
# source tree was built before with the same build script and flags
# (build/built-trees, which scripts/build.sh appends to).
#
# (The paths and names are scripts/series.sh's.)
#
# Usage: scripts/check-series.sh [--no-build | --patches-only] [--results FILE]
#                                [--logdir DIR]
#   --results FILE  also write one line per test, "RC<tab>NAME<tab>LOG"
#                   (RC 0 pass, 1 fail, 77 skip), as each one finishes
#   --patches-only  the checks of the patches only (the series file, 1. and
#                   2., the cover letter): no prefix is built or measured,
#                   no behaviour line (what make check and CI run: building
#                   every prefix from cold takes longer than CI has, see
#                   README.md)
# Prints one line per patch and the times; exit status 1 if any check failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
src=$SER_SRC
pdir=$SER_PATCHES
P=$(rel "$pdir")
dir=$SER_CHECK
wt=$SER_CHECK_WT
CO=$SER_CHECK_O
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
results= logdir=$dir/logs dobuild=1 prefixes=1
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=$2; shift 2 ;;
	--logdir) logdir=$2; shift 2 ;;
	--no-build) dobuild=0; shift ;;
	--patches-only) prefixes=0 dobuild=0; shift ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
mkdir -p "$dir" "$logdir" "$CO"
[ -n "$results" ] && : > "$results"
# one run at a time per checkout (make check and make check-series share it)
exec 9> "$dir/lock"
flock 9

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
nfail=0
result() { # rc name log detail
	local tag
	case $1 in 0) tag=PASS ;; 77) tag=SKIP ;; *) tag=FAIL; nfail=$((nfail + 1)) ;; esac
	printf '%-4s  %s  (%s)\n' "$tag" "$2" "$4"
	[ "$1" = 0 ] || [ "$1" = 77 ] || sed 's/^/      /' "$3" | tail -n 25
	[ -z "$results" ] || printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$results"
}

t_start=$(now)
"$top/scripts/fetch-base.sh" > "$logdir/$SER_LOG-fetch.log" 2>&1 || {
	cat "$logdir/$SER_LOG-fetch.log"
	result 1 "$SER_NAME: base" "$logdir/$SER_LOG-fetch.log" "fetch-base.sh failed"
	exit 1
}

# the worktree the builds run in, re-made if build/src-7.3 was re-created
ser_check_worktree || exit 1
checkpatch=$wt/scripts/checkpatch.pl

# --- patches-7.3/series itself ------------------------------------------------
patches=()
log=$logdir/$SER_LOG-series.log
: > "$log"
if [ -f "$pdir/series" ]; then
	while read -r p; do
		case "$p" in ""|\#*) continue ;; esac
		patches+=("$p")
		[ -f "$pdir/$p" ] || echo "listed in $P/series but missing: $p" >> "$log"
	done < "$pdir/series"
else
	echo "$P/series is missing" >> "$log"
fi
# (a series split into submissions has them in folders: DIR/PATCH)
for f in "$pdir"/*.patch "$pdir"/*/*.patch; do
	[ -e "$f" ] || continue
	[ "${f##*/}" = 0000-cover-letter.patch ] && continue
	grep -qxF "${f#"$pdir"/}" "$pdir/series" 2>/dev/null ||
		echo "not listed in $P/series: ${f#"$pdir"/}" >> "$log"
done
if [ -s "$log" ]; then
	result 1 "$SER_NAME: $P/series" "$log" "series and patch files disagree"
else
	echo "${#patches[@]} patches, all present" > "$log"
	result 0 "$SER_NAME: $P/series" "$log" "${#patches[@]} patches"
fi

# --- 1. apply: one commit per patch ---------------------------------------
amlog=$logdir/$SER_LOG-am.log
mapfile -t applied < <("$top/scripts/am-series.sh" 2> "$amlog")
commits=()
for l in "${applied[@]}"; do commits+=("${l%% *}"); done
nok=${#commits[@]}

# --- the cover letters -----------------------------------------------------
# one beside each cover-letter.txt (the series', or each submission's)
covers=$(cd "$pdir" && { find . -maxdepth 2 -name cover-letter.txt; find . -maxdepth 2 -name 0000-cover-letter.patch; } |
	sed 's,^\./,,; s,/*[^/]*$,,' | sort -u)
if [ -n "$covers" ] || [ -f "$pdir/cover-letter.txt" ]; then
	log=$logdir/$SER_LOG-cover-letter.log
	: > "$log"
	bad=
	for d in ${covers:-.}; do
		[ -n "$d" ] || d=.
		cl=$pdir/$d/0000-cover-letter.patch
		if [ ! -f "$pdir/$d/cover-letter.txt" ]; then
			echo "$P/$d/0000-cover-letter.patch but no cover-letter.txt to make it from" >> "$log"
			bad="no cover-letter.txt"
		elif [ ! -f "$cl" ] && [ ${#patches[@]} = 0 ]; then
			# (git format-patch writes no cover letter for no patches)
			echo "no patches yet: no cover letter" >> "$log"
		elif [ ! -f "$cl" ]; then
			echo "$P/$d/cover-letter.txt but no 0000-cover-letter.patch: run 'make export'" >> "$log"
			bad="0000-cover-letter.patch missing"
		fi
	done
	if [ -n "$bad" ]; then
		result 1 "$SER_NAME: cover letter" "$log" "$bad"
	elif [ ${#patches[@]} = 0 ]; then
		result 0 "$SER_NAME: cover letter" "$log" "no patches yet, no cover letter"
	elif [ "$nok" != "${#patches[@]}" ]; then
		echo "not checked: the series does not apply" >> "$log"
		result 77 "$SER_NAME: cover letter" "$log" "not checked: the series does not apply"
	else
		cldir=$(mktemp -d /tmp/check-series-cl.XXXXXX)
		ok=0 n=0 what=
		"$top/scripts/export.sh" --to "$cldir" --tip "${commits[$((nok - 1))]:-base}" >> "$log" 2>&1 || ok=1
		for d in ${covers:-.}; do
			cl=$pdir/$d/0000-cover-letter.patch
			diff -u "$cl" "$cldir/$d/0000-cover-letter.patch" >> "$log" || ok=1
			n=$((n + 1))
			what=$(sed -n 's/^Subject: \(\[[^]]*\]\).*/\1/p' "$cl")
		done
		if [ $ok = 0 ]; then
			[ $n = 1 ] || what="$n cover letters"
			result 0 "$SER_NAME: cover letter" "$log" "$what, up to date"
		else
			echo "(- $P/.../0000-cover-letter.patch, + what 'make export' would write)" >> "$log"
			result 1 "$SER_NAME: cover letter" "$log" "out of date: run 'make export'"
		fi
		rm -rf "$cldir"
	fi
fi

# --- 2. checkpatch --------------------------------------------------------
declare -A cpmsg cprc
# checkpatch run inside a git work tree on a file git tracks checks that
# file as source, not as a patch: run it on a copy outside any repository
cpdir=$(mktemp -d /tmp/check-series.XXXXXX)
trap 'rm -rf "$cpdir"' EXIT
t_cp=$(now)
# a patch's number in the stack (NNNN): its logs' names
pnum() { printf '%04d' $(($1 + 1)); }
for i in "${!patches[@]}"; do
	p=${patches[$i]}
	f=$pdir/$p
	n=$(pnum "$i")
	log=$logdir/$SER_LOG-$n.log
	{
		echo "== $p"
		if [ ! -f "$f" ]; then
			echo "missing"; cprc[$p]=1; cpmsg[$p]="patch file missing"
			continue
		fi
		# exceptions: "checkpatch: TYPE reason" in the notes (below
		# the "---"); none in the commit message, nor a changelog
		excs=$("$top/scripts/patch-notes.sh" "$f" | grep '^checkpatch:')
		inmsg=$("$top/scripts/patch-notes.sh" --message "$f" |
			grep -E '^(checkpatch:|v[0-9]+:)')
		ign= bad=
		while read -r _ type reason; do
			[ -n "$type" ] || continue
			if [[ ! "$type" =~ ^[A-Z][A-Z0-9_]*$ ]] || [ -z "$reason" ]; then
				bad="$bad '$type'"
				continue
			fi
			ign=${ign:+$ign,}$type
		done <<< "$excs"
		echo "== checkpatch --strict${ign:+ --ignore $ign}"
		cp "$f" "$cpdir/${p##*/}"
		out=$(cd "$cpdir" && "$checkpatch" --strict --no-tree --show-types \
			--color=never ${ign:+--ignore "$ign"} "${p##*/}" 2>&1)
		rc=$?
		echo "$out"
		total=$(echo "$out" | grep -m1 '^total: ')
		cprc[$p]=0; cpmsg[$p]="checkpatch clean${ign:+ but $ign (see notes)}"
		# a series for tools/perf has nothing to say outside these
		stray=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$f" |
			grep -Ev '^(tools|include|Documentation)/')
		if [ -n "$stray" ]; then
			echo "files outside tools/, include/ and Documentation/:" $stray
			cprc[$p]=1; cpmsg[$p]="touches files outside tools/, include/ and Documentation/"
		elif [ -n "$inmsg" ]; then
			echo "$inmsg"
			echo "these lines are for the reviewers, not the history: move them below"
			echo "the '---' line (git notes: scripts/move-checkpatch-notes.sh does it)"
			cprc[$p]=1; cpmsg[$p]="checkpatch or changelog line in the commit message"
		elif [ -n "$bad" ]; then
			echo "a 'checkpatch: TYPE reason' line needs a TYPE and a reason:$bad"
			cprc[$p]=1; cpmsg[$p]="bad checkpatch exception line"
		elif [ $rc != 0 ] || [[ "$total" != "total: 0 errors, 0 warnings, 0 checks,"* ]]; then
			cprc[$p]=1; cpmsg[$p]="checkpatch: ${total:-no summary}"
		elif [ -n "$ign" ]; then
			# an exception nothing needs any more is stale: remove it
			all=$(cd "$cpdir" && "$checkpatch" --strict --no-tree \
				--show-types --color=never "${p##*/}" 2>&1)
			for type in ${ign//,/ }; do
				if ! echo "$all" | grep -q "^[A-Z]*:$type:"; then
					echo "exception '$type' is not needed: remove its line from the patch's notes"
					cprc[$p]=1; cpmsg[$p]="unneeded checkpatch exception $type"
				fi
			done
		fi
	} > "$log" 2>&1
	# (the braces ran in this shell: cprc/cpmsg are set)
done
t_cp_end=$(now)

# --- 3. build base+1, base+2, ... ----------------------------------------
cfg=$("$top/scripts/build.sh" --config-hash "${SER_CHECK_ARGS[@]}")
nbuilt=0 ncached=0 t_build=0
# build commit $1 in $CO (log: $2); on success keep its perf for the
# behaviour checks; sets bsecs
build_commit() {
	local c=$1 log=$2 tree t0 t1 brc
	tree=$(git -C "$src" rev-parse "$c^{tree}")
	t0=$(now)
	ser_check_build "$c" >> "$log" 2>&1
	brc=$?
	t1=$(now)
	bsecs=$(secs "$t0" "$t1")
	t_build=$(awk -v a="$t_build" -v d="$bsecs" 'BEGIN { print a + d }')
	nbuilt=$((nbuilt + 1))
	[ $brc = 0 ] && keep_perf "$tree"
	return $brc
}

# --- 4. behaviour of every prefix (scripts/check-behaviour.sh) ------------
# One measurement per source tree (and build configuration and version of
# the check) in $bdir, kept across runs; the perf of every tree of the
# current series in $bindir, so that a change to the check itself
# re-measures without rebuilding.
bdir=$dir/behaviour bindir=$dir/bin
mkdir -p "$bdir" "$bindir"
bkey=$("$top/scripts/check-behaviour.sh" --key)
keep_perf() { # tree: copy $CO/perf, which was just built from it
	cp "$CO/perf" "$bindir/$1-${cfg:0:12}.tmp" &&
		mv -f "$bindir/$1-${cfg:0:12}.tmp" "$bindir/$1-${cfg:0:12}"
}
mfile() { echo "$bdir/$1-${cfg:0:12}-$bkey"; }
built_elsewhere() { # tree: the build directory of a perf built from it, if any
	local o
	for o in "$SER_BASE_O" "$SER_PERF_O"; do
		[ "$(cat "$o/.build-state" 2>/dev/null)" = "$1 $cfg" ] && [ -x "$o/perf" ] &&
			{ echo "$o"; return 0; }
	done
	return 1
}
# make sure tree $1 (commit $2) is measured: from the cache, from its kept
# perf, or by building it now; says how in $mhow, fails if it cannot
t_beh=0
measure() {
	local tree=$1 c=$2 log=$3 m t0
	mhow=measured
	m=$(mfile "$tree")
	[ -s "$m" ] && { mhow="measured before"; return 0; }
	if [ ! -x "$bindir/$tree-${cfg:0:12}" ]; then
		if [ "$(cut -d' ' -f1 "$CO/.build-state" 2>/dev/null)" = "$tree" ] &&
		   [ "$(cut -d' ' -f2 "$CO/.build-state")" = "$cfg" ]; then
			keep_perf "$tree"
		elif o=$(built_elsewhere "$tree"); then
			# (the base's perf, or the series' when it is the
			# base: make and the peer suite built it already)
			cp "$o/perf" "$bindir/$tree-${cfg:0:12}.tmp" &&
				mv -f "$bindir/$tree-${cfg:0:12}.tmp" "$bindir/$tree-${cfg:0:12}"
			mhow="measured the perf of $(rel "$o")"
		elif [ $dobuild = 0 ]; then
			mhow="not measured: no perf built from tree ${tree:0:12} (--no-build)"
			return 1
		else
			echo "== build of tree $tree for the behaviour check" >> "$log"
			if ! build_commit "$c" "$log"; then
				mhow="not measured: the build failed"
				return 1
			fi
			mhow="built in $bsecs s and measured"
		fi
	fi
	t0=$(now)
	"$top/scripts/check-behaviour.sh" --measure "$bindir/$tree-${cfg:0:12}" > "$m.tmp" 2>> "$log" &&
		mv "$m.tmp" "$m"
	t_beh=$(awk -v a="$t_beh" -v d="$(secs "$t0" "$(now)")" 'BEGIN { print a + d }')
	[ -s "$m" ] || { mhow="not measured: check-behaviour.sh --measure failed"; return 1; }
}
base_tree=$(git -C "$src" rev-parse "base^{tree}")
if [ $prefixes = 1 ]; then
	blog=$logdir/$SER_LOG-base-behaviour.log
	: > "$blog"
	measure "$base_tree" base "$blog"
	base_ok=$? base_how=$mhow
	echo "base: $base_how" >> "$blog"
	cat "$(mfile "$base_tree")" >> "$blog" 2>/dev/null
	measured=("$(mfile "$base_tree")")
fi
behaviour() { # i name tree: judge prefix i, one result line
	local i=$1 name="$2: behaviour" tree=$3 log rc detail
	log=$logdir/$SER_LOG-$(pnum "$i")-behaviour.log
	: > "$log"
	if [ $base_ok != 0 ]; then
		echo "the base was not measured: $base_how (log: $blog)" >> "$log"
		result 77 "$name" "$log" "base not measured: $base_how"
		return
	fi
	if ! measure "$tree" "${commits[$i]}" "$log"; then
		echo "$mhow" >> "$log"
		result 77 "$name" "$log" "$mhow"
		return
	fi
	measured+=("$(mfile "$tree")")
	{ echo "== measurement ($mhow)"; cat "$(mfile "$tree")"; echo "== judged against base and earlier prefixes"; } >> "$log"
	detail=$("$top/scripts/check-behaviour.sh" --judge "${measured[@]}" 2>> "$log")
	rc=$?
	[ $rc = 0 ] || rc=1
	result "$rc" "$name" "$log" "$detail"
}

for i in "${!patches[@]}"; do
	p=${patches[$i]}
	n=$(pnum "$i")
	name="$SER_NAME: ${p%.patch}"
	log=$logdir/$SER_LOG-$n.log
	rc=${cprc[$p]} msg=${cpmsg[$p]}
	if [ "$i" -ge "$nok" ]; then
		if [ "$i" = "$nok" ]; then
			{ echo "== git am"; cat "$amlog"; } >> "$log"
			result 1 "$name" "$log" "does not apply; $msg"
		elif [ "$rc" = 0 ]; then
			echo "not built: ${patches[$nok]} does not apply" >> "$log"
			result 77 "$name" "$log" "$msg; not built: an earlier patch does not apply"
		else
			result 1 "$name" "$log" "$msg"
		fi
		[ $prefixes = 1 ] || continue
		echo "not checked: ${patches[$nok]} does not apply" > "$logdir/$SER_LOG-$n-behaviour.log"
		result 77 "$name: behaviour" "$logdir/$SER_LOG-$n-behaviour.log" "not checked: ${patches[$nok]%.patch} does not apply"
		continue
	fi
	if [ $prefixes = 0 ]; then
		echo "== applies; not built (--patches-only: make check-series builds it)" >> "$log"
		result "$rc" "$name" "$log" "applies; $msg"
		continue
	fi
	c=${commits[$i]}
	tree=$(git -C "$src" rev-parse "$c^{tree}")
	built=1
	if [ $dobuild = 0 ]; then
		bmsg="build not checked (--no-build)"
	elif grep -qxF "$tree $cfg" "$top/build/built-trees" 2>/dev/null; then
		ncached=$((ncached + 1))
		bmsg="built before (tree ${tree:0:12})"
		echo "== build: tree $tree built before with this configuration" >> "$log"
	else
		echo "== build of base..$p (tree $tree)" >> "$log"
		if build_commit "$c" "$log"; then
			bmsg="built in $bsecs s"
		else
			bmsg="BUILD FAILED after $bsecs s (log: ${CO#$top/}/build.log)"
			rc=1 built=0
		fi
	fi
	result "$rc" "$name" "$log" "$msg; $bmsg"
	if [ $built = 1 ]; then
		behaviour "$i" "$name" "$tree"
	else
		blog2=$logdir/$SER_LOG-$n-behaviour.log
		echo "not built" > "$blog2"
		result 77 "$name: behaviour" "$blog2" "not checked: the build failed"
	fi
done
# keep the perf of the base and of the current series' trees only
keep=" $base_tree-${cfg:0:12} "
for c in "${commits[@]}"; do keep="$keep$(git -C "$src" rev-parse "$c^{tree}")-${cfg:0:12} "; done
for f in "$bindir"/*; do
	[ $prefixes = 1 ] && [ -e "$f" ] || continue
	[[ "$keep" == *" ${f##*/} "* ]] || rm -f "$f"
done
t_end=$(now)
echo "$SER_NAME: ${#patches[@]} patches; checkpatch $(secs "$t_cp" "$t_cp_end") s;" \
	"$nbuilt built in $(awk -v a="$t_build" 'BEGIN { printf "%.1f", a }') s, $ncached built before;" \
	"behaviour measured in $(awk -v a="$t_beh" 'BEGIN { printf "%.1f", a }') s;" \
	"total $(secs "$t_start" "$t_end") s"
[ $nfail = 0 ]
