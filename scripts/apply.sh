#!/bin/bash
# apply.sh - (re)create build/src from the base and apply patches/series
# onto it as commits (git am).  Refuses to throw away unexported commits or
# uncommitted changes in build/src unless FORCE=1.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src
"$top/scripts/fetch-base.sh"
cd "$src"
if [ "${FORCE:-0}" != 1 ]; then
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		echo "apply.sh: build/src has uncommitted changes; commit and export them, or FORCE=1" >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	"$top/scripts/export.sh" --to "$tmp" >/dev/null
	if ! diff -r -q "$tmp" "$top/patches" >/dev/null 2>&1; then
		# the work tree holds commits that patches/ does not have
		if [ "$(git rev-list --count base..HEAD)" != 0 ]; then
			rm -rf "$tmp"
			echo "apply.sh: build/src has commits not exported to patches/; run 'make export' or FORCE=1" >&2
			exit 1
		fi
	fi
	rm -rf "$tmp"
fi
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach base
git branch -q -f series base
git checkout -q series
n=0
if [ -f "$top/patches/series" ]; then
	while read -r p; do
		case "$p" in ""|\#*) continue ;; esac
		git am -q --keep-cr "$top/patches/$p" || {
			echo "apply.sh: $p does not apply" >&2
			exit 1
		}
		n=$((n + 1))
	done < "$top/patches/series"
fi
echo "apply.sh: $n patches applied on base"
