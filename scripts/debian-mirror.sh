# debian-mirror.sh - sourced (not run): which Debian mirror to fetch from.
#
#   . scripts/debian-mirror.sh
#   mirror=$(debian_mirror) || ...
#
# $PERF_DEFER_MIRROR when set; otherwise the first Debian archive (a URI
# whose path ends in /debian, not /debian-security or a third-party
# repository) that this machine's own apt configuration uses:
# /etc/apt/sources.list, then /etc/apt/sources.list.d/*.list and *.sources
# (one-line and deb822 formats; disabled files, with any other name, are
# not read).  So the scripts use the mirror the machine is set up with
# (a local mirror, a proxy, a snapshot) and never name a host themselves.
# Fails, saying so on stderr, when neither gives one.
debian_mirror() {
	local f
	if [ -n "${PERF_DEFER_MIRROR:-}" ]; then
		echo "${PERF_DEFER_MIRROR%/}"
		return 0
	fi
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# one-line: "deb [options] URI suite ..."; deb822: "URIs: URI ..."
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '
			$1 == "deb" { print $2 }
			tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }'
	done | sed 's:/*$::' | grep -m1 -E '^(https?|file)://.*/debian$' && return 0
	echo "debian-mirror.sh: no Debian mirror in /etc/apt/sources.list{,.d}: set PERF_DEFER_MIRROR" >&2
	return 1
}
