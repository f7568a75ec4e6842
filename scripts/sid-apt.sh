# sid-apt.sh - sourced (not run): a private apt configuration for Debian
# sid and experimental, to look their packages up and download them on
# any Debian host without touching the host's apt setup: its own
# sources.list ("deb MIRROR sid main", "deb MIRROR experimental main";
# SID_APT_SUITES), package lists and cache, no preferences, amd64 only
# (experimental's packages are never chosen unless asked for by version).  Used by scripts/fetch-base.sh (SERIES=7.2:
# linux-source-7.2 from sid; SERIES=7.3: linux-source-7.3 from
# experimental) and tests/realkernel/run.sh (the cloud kernels).
#
#   . scripts/sid-apt.sh
#   sid_apt_init DIR [MIRROR]   lists and cache under DIR (default
#                               $PERF_DEFER_CACHE/sid-apt); MIRROR default
#                               the host's (scripts/debian-mirror.sh:
#                               $PERF_DEFER_MIRROR, else the Debian
#                               archive of /etc/apt/sources.list{,.d});
#                               sets SID_APT,
#                               the options to give apt-get and apt-cache:
#                               apt-cache "${SID_APT[@]}" show PKG
#   sid_apt_update LOG          apt-get update of those lists, output in
#                               LOG; one update at a time per DIR
sid_apt_init() {
	SID_APT_DIR=${1:-${PERF_DEFER_CACHE:-/var/cache/perf-defer}/sid-apt}
	local mirror=${2:-}
	if [ -z "$mirror" ]; then
		. "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
		mirror=$(debian_mirror) || return 1
	fi
	mkdir -p "$SID_APT_DIR/lists/partial" "$SID_APT_DIR/cache/archives/partial" || return 1
	local list suite
	list=$(for suite in ${SID_APT_SUITES:-sid experimental}; do echo "deb $mirror $suite main"; done)
	# (rewritten only when it changes: another run may be reading it)
	if [ "$(cat "$SID_APT_DIR/sources.list" 2>/dev/null)" != "$list" ]; then
		echo "$list" > "$SID_APT_DIR/sources.list.tmp" &&
			mv "$SID_APT_DIR/sources.list.tmp" "$SID_APT_DIR/sources.list"
	fi
	SID_APT=(-o Dir::Etc::SourceList="$SID_APT_DIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
		-o Dir::State::Lists="$SID_APT_DIR/lists" -o Dir::Cache="$SID_APT_DIR/cache"
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Debug::NoLocking=1)
}
sid_apt_update() { # LOG
	(
		flock 7
		apt-get "${SID_APT[@]}" -q update
	) 7> "$SID_APT_DIR/.update.lock" > "$1" 2>&1
}
