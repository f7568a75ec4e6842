# debian-apt.sh - sourced (not run): a private apt configuration for Debian
# trixie and trixie-backports, to look their packages up and download them
# on any Debian host without touching the host's apt setup: its own
# sources.list ("deb MIRROR trixie main", "deb MIRROR trixie-backports
# main"; DEBIAN_APT_SUITES), package lists and cache, no preferences,
# amd64 only.  Used by scripts/fetch-base.sh (linux-source-7.3 of
# BASE-VERSION-7.3, from trixie-backports) and tests/realkernel/run.sh
# (the cloud kernel of the same version).
#
#   . scripts/debian-apt.sh
#   debian_apt_init DIR [MIRROR] lists and cache under DIR (default
#                               $PERF_DEFER_CACHE/debian-apt); MIRROR
#                               default the host's (scripts/debian-mirror.sh:
#                               $PERF_DEFER_MIRROR, else the Debian archive
#                               of /etc/apt/sources.list{,.d}); sets
#                               DEBIAN_APT, the options to give apt-get and
#                               apt-cache:
#                               apt-cache "${DEBIAN_APT[@]}" show PKG
#   debian_apt_update LOG       apt-get update of those lists, output in
#                               LOG; one update at a time per DIR
debian_apt_init() {
	DEBIAN_APT_DIR=${1:-${PERF_DEFER_CACHE:-/var/cache/perf-defer}/debian-apt}
	local mirror=${2:-}
	if [ -z "$mirror" ]; then
		. "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
		mirror=$(debian_mirror) || return 1
	fi
	mkdir -p "$DEBIAN_APT_DIR/lists/partial" "$DEBIAN_APT_DIR/cache/archives/partial" || return 1
	local list suite
	list=$(for suite in ${DEBIAN_APT_SUITES:-trixie trixie-backports}; do echo "deb $mirror $suite main"; done)
	# (rewritten only when it changes: another run may be reading it)
	if [ "$(cat "$DEBIAN_APT_DIR/sources.list" 2>/dev/null)" != "$list" ]; then
		echo "$list" > "$DEBIAN_APT_DIR/sources.list.tmp" &&
			mv "$DEBIAN_APT_DIR/sources.list.tmp" "$DEBIAN_APT_DIR/sources.list"
	fi
	DEBIAN_APT=(-o Dir::Etc::SourceList="$DEBIAN_APT_DIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
		-o Dir::State::Lists="$DEBIAN_APT_DIR/lists" -o Dir::Cache="$DEBIAN_APT_DIR/cache"
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Debug::NoLocking=1)
}
debian_apt_update() { # LOG
	(
		flock 7
		apt-get "${DEBIAN_APT[@]}" -q update
	) 7> "$DEBIAN_APT_DIR/.update.lock" > "$1" 2>&1
}
