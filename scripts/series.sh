# series.sh - sourced (not run) by the scripts that work on a base and its
# series: which one, from $SERIES.
#
#   SERIES=7.3 (the default and the only one)
#                  BASE-VERSION-7.3   patches-7.3/  build/src-7.3
#                  build/perf-7.3/perf  build/perf-7.3-base/perf
#
# Sets (paths absolute, under $top, which the script sets first):
#   SER            7.3
#   SER_PKG        the Debian source package (linux-source-7.3)
#   SER_VERSION    the file that pins its version (BASE-VERSION-7.3)
#                  (from trixie-backports, through the private apt
#                  configuration of scripts/debian-apt.sh)
#   SER_SRC        the applied work tree (git, tag 'base')
#   SER_PATCHES    the series directory (series, NNNN-*.patch, cover letter)
#   SER_STATE      what apply.sh recorded of the last apply or export
#   SER_PERF_O     the build of base + series (perf at $SER_PERF_O/perf)
#   SER_BASE_O     the build of the base alone (a copy of check-series'
#                  build of it: scripts/build-base-perf.sh)
#   SER_CHECK      check-series' directory (worktree, builds, logs; the
#                  functions below)
#   SER_NAME       check-series' result names: "SER_NAME: NNNN-subject"
#   SER_LOG        its log names: logs/SER_LOG-NNNN.log
#   SER_BUILD_ARGS the make arguments scripts/build.sh gets for this base
#   SER_CHECK_ARGS those of check-series' builds (the base, each prefix)
#                  (an array)
#   SER_ARM64_TOOLS  what of arch/arm64/tools perf's build needs
case ${SERIES:-7.3} in
7.3)
	SER=7.3 SER_PKG=linux-source-7.3 SER_VERSION=$top/BASE-VERSION-7.3
	SER_SRC=$top/build/src-7.3 SER_PATCHES=$top/patches-7.3 SER_STATE=$top/build/applied-7.3.state
	SER_PERF_O=$top/build/perf-7.3 SER_BASE_O=$top/build/perf-7.3-base
	SER_CHECK=$top/build/check-series-7.3 SER_NAME=check-series-7.3 SER_LOG=check-series-7.3
	SER_BUILD_ARGS=(LIBUNWIND=1)
	# the base and every prefix: no Rust workload, which the base cannot
	# build where rustc is installed (00-build's second patch fixes it)
	SER_CHECK_ARGS=("${SER_BUILD_ARGS[@]}" NO_RUST=1)
	SER_ARM64_TOOLS=arch/arm64/tools ;;
*)
	echo "${0##*/}: SERIES=${SERIES:-} is not a base this repository has (7.3)" >&2
	exit 2 ;;
esac
# the names relative to the top, for messages
rel() { echo "${1#"$top"/}"; }

# check-series' build directory: a worktree of SER_SRC (detached, never
# SER_SRC itself) and its O= directory, where the base and then every
# prefix of the series are built one after the other, each build going on
# from the one before (scripts/check-series.sh, scripts/build-base-perf.sh)
SER_CHECK_WT=$SER_CHECK/src SER_CHECK_O=$SER_CHECK/perf
SER_FROZEN=$SER_CHECK/FEATURES.frozen
# make sure SER_CHECK_WT is a worktree of SER_SRC (re-made if SER_SRC was
# re-created); the caller holds $SER_CHECK/lock
ser_check_worktree() {
	local common
	common=$(git -C "$SER_SRC" rev-parse --path-format=absolute --git-common-dir)
	[ "$(git -C "$SER_CHECK_WT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = "$common" ] &&
		return 0
	git -C "$SER_SRC" worktree remove --force "$SER_CHECK_WT" >/dev/null 2>&1 || true
	rm -rf "$SER_CHECK_WT"
	git -C "$SER_SRC" worktree prune
	git -C "$SER_SRC" worktree add -q --detach "$SER_CHECK_WT" base
}
# build commit $1 of SER_SRC in SER_CHECK_O (build log on stdout), with the
# feature detection of the first build there frozen (FEATURES_DUMP), so
# that each build only recompiles what changed
ser_check_build() {
	local f n
	git -C "$SER_CHECK_WT" checkout -q -f --detach "$1" || return 1
	if [ -s "$SER_FROZEN" ]; then
		SRC=$SER_CHECK_WT O=$SER_CHECK_O FEATURES_DUMP=$SER_FROZEN \
			"$top/scripts/build.sh" "${SER_CHECK_ARGS[@]}"
		return
	fi
	SRC=$SER_CHECK_WT O=$SER_CHECK_O "$top/scripts/build.sh" "${SER_CHECK_ARGS[@]}" || return 1
	# FEATURE-DUMP lacks the features perf's Makefile.config checks on its
	# own (libpfm4, babeltrace, cxa-demangle, ...): add them from the
	# feature tests that ran, or a frozen build would rebuild everything
	{
		cat "$SER_CHECK_O/FEATURE-DUMP"
		for f in "$SER_CHECK_O"/feature/test-*.make.output; do
			n=${f##*/test-}; n=${n%.make.output}
			[ "$n" = all ] && continue
			grep -q "^feature-$n=" "$SER_CHECK_O/FEATURE-DUMP" && continue
			if [ -e "$SER_CHECK_O/feature/test-$n.bin" ]; then echo "feature-$n=1"
			else echo "feature-$n=0"; fi
		done
	} > "$SER_FROZEN.tmp" && mv "$SER_FROZEN.tmp" "$SER_FROZEN"
}
