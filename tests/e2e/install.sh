#!/bin/bash
# install: `make install` (scripts/install.sh) with DESTDIR installs perf as
# a distribution does, with perf's own install targets (SERIES=$PERF_BASE:
# the perf of the series under test; make install's default is 7.3's):
#   - DESTDIR/usr/local/bin/perf, with libpython and the five libraries on
#     (`perf version --build-options`), the scripts of perf script
#     (libexec/perf-core/scripts/python), tips.txt (share/doc/perf-tip),
#     perf.data-file-format.txt (share/doc/perf-doc);
#   - the rendered man pages (share/man/man1, read with `man -l`):
#     perf-script documents --merge-callchains and --no-merge-callchains,
#     perf-script-python callchain_deferred() and deferred_cookie,
#     perf-record fp,defer, perf-inject --merge-callchains, perf-config
#     the reorder window keys;
#   - the installed perf runs its installed report script: `perf script
#     report gecko --save-only` on mt_defer names the workload's user
#     functions (symbols from a build-id cache, as script-python.sh).
# Whether the installed perf finds tips.txt needs an install to the real
# prefix (`make install PREFIX=DIR`; README): not done here.
#
# Installs build/perf-7.3/perf (the perf built for /usr/local); skipped
# for another $PERF (make check-asan), without man or asciidoc/xmlto.  The
# first run renders the man pages (about a minute), later runs reuse them.
. "$(dirname "$0")/../lib.sh"

built=$TOP/build/perf-$PERF_BASE/perf
[ "$PERF" -ef "$built" ] ||
	skip "installs ${built#$TOP/}, not \$PERF=$PERF"
command -v man > /dev/null || skip "no man (Debian's man-db)"
{ command -v asciidoc && command -v xmlto; } > /dev/null ||
	skip "asciidoc and xmlto render the man pages (scripts/fetch-base.sh installs them)"

D=$TMPD/root
P=$D/usr/local
(cd "$TOP" && make -s install SERIES="$PERF_BASE" DESTDIR="$D") > "$TMPD/install.log" 2>&1 ||
	fail "make install SERIES=$PERF_BASE DESTDIR=$D failed: $(tail -5 "$TMPD/install.log")"
echo "ok   make install SERIES=$PERF_BASE DESTDIR=\$TMPD/root: $(tail -1 "$TMPD/install.log")"
bad=0
check() { # what command...
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		bad=$((bad + 1))
	fi
}

"$P/bin/perf" version --build-options > "$TMPD/opts" || fail "installed perf does not run"
for lib in libpython libelf dwarf libtraceevent zlib libunwind; do
	check "installed perf: $lib on" grep -Eq "^ +$lib: \[ on  \]" "$TMPD/opts"
done
for f in bin/perf libexec/perf-core/scripts/python/gecko.py \
	 libexec/perf-core/scripts/python/bin/gecko-report \
	 libexec/perf-core/scripts/python/flamegraph.py \
	 libexec/perf-core/scripts/python/Perf-Trace-Util/lib/Perf/Trace/Core.py \
	 share/doc/perf-tip/tips.txt share/doc/perf-doc/perf.data-file-format.txt \
	 share/man/man1/perf.1; do
	check "installed $f" test -s "$P/$f"
done

# man PAGE PATTERN...: the rendered page has every pattern
man_has() {
	local page=$1 p
	shift
	MANWIDTH=100 man -l "$P/share/man/man1/$page.1" 2> /dev/null > "$TMPD/$page.txt" || return 1
	for p in "$@"; do
		grep -Fq -- "$p" "$TMPD/$page.txt" || { echo "no '$p' in man $page"; return 1; }
	done
}
check "man perf-script-python: callchain_deferred, deferred_cookie" \
	man_has perf-script-python "callchain_deferred(param_dict)" deferred_cookie \
	"DEFERRED USER CALLCHAINS"
check "man perf-script: --[no-]merge-callchains" man_has perf-script \
	"--merge-callchains" "--no-merge-callchains" "call-graph.defer-window-bytes"
check "man perf-record: fp,defer" man_has perf-record "fp,defer"
check "man perf-inject: --merge-callchains" man_has perf-inject "--merge-callchains"
check "man perf-config: the reorder window" \
	man_has perf-config "call-graph.defer-window-bytes"

# the installed perf and its installed scripts
root=$(symroot)
root=${root#--symfs=}
root=${root%% *}
"$P/bin/perf" buildid-cache -a "$root/fixtures/bin/mt_syscalls" || fail "perf buildid-cache -a failed"
kbid=$("$P/bin/perf" buildid-list -i "$FIX/data/mt_defer.data" 2> /dev/null |
	awk '$2 == "[kernel.kallsyms]" { print $1 }')
mkdir -p "$HOME/.debug/[kernel.kallsyms]/$kbid"
cp "$root/kallsyms.txt" "$HOME/.debug/[kernel.kallsyms]/$kbid/kallsyms"
w=$TMPD/w
mkdir -p "$w"
cp "$FIX/data/mt_defer.data" "$w/perf.data"
# DESTDIR: perf looks for its scripts under /usr/local unless told
if (cd "$w" && PATH=$P/bin:$PATH PERF_EXEC_PATH=$P/libexec/perf-core \
	perf script report gecko --save-only gecko.json) > "$w/gecko.log" 2>&1 < /dev/null &&
   r=$(python3 "$TOP/tests/tools/py_script_check.py" gecko "$w/gecko.json" \
	thread_a_entry a_outer thread_b_entry b_outer); then
	echo "ok   installed perf script report gecko: $r"
else
	echo "FAIL installed perf script report gecko: $(tail -3 "$w/gecko.log") ${r:-}"
	bad=$((bad + 1))
fi

[ "$bad" = 0 ] || fail "$bad checks failed"
echo "all checks passed"
