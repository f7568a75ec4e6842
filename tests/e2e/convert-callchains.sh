#!/bin/bash
# convert-callchains: `perf data convert --to-json` (and --to-ctf when perf
# is built with libbabeltrace and the babeltrace reader is installed) give
# each sample of the real recordings the callchain perf script shows, the
# merged one for deferred user callchains, with the user frames as user
# frames.  Upstream perf 7.2 prints "invalid callchain context: -640" for
# these samples and looks their user addresses up as kernel ones, so its
# JSON has no symbol for them.
#
# perf data convert has no --symfs/--kallsyms: the fixture binaries and the
# guest's kallsyms go into a build-id cache in $HOME (= $TMPD), where perf
# finds them by the build-ids recorded in the files.  Then, per recording
# (tests/tools/convert_check.py):
#   - JSON: as many samples as perf script; per sample the same frame
#     addresses and the same symbol for each, user frames included;
#   - CTF (babeltrace text): the same addresses, context markers aside; no
#     PERF_CONTEXT_USER_DEFERRED marker, no kernel address after
#     PERF_CONTEXT_USER.
# perf script runs with --no-inline (perf 7.x shows inlined frames, which
# the converters do not write), and kernel frames are compared by address
# only: unpatched perf 7.2's JSON converter
# names the kernel addresses of these files from another symbol table than
# the build-id cache's kallsyms (st_nodefer: 674 differences, all kernel
# symbols), a base 7.2 behaviour that has nothing to do with deferral.
. "$(dirname "$0")/../lib.sh"

SYM=$(symroot)
KALLSYMS=$TOP/build/symfs/kallsyms.txt
# st_defer_pipe (pipe mode) for JSON only: --to-ctf sets its streams up from
# the attrs before reading the events, and a pipe-mode file has none then.
NAMES="st_defer st_defer_pipe st_defer_zstd st_perthread_defer st_userchains_defer
       mt_defer mt_perthread_defer mt_2ev_cpu_defer mixed_defer mixed_useronly_defer
       long_defer syswide_defer taskclock_defer st_nodefer"

# the build-id cache: workload binaries, and kallsyms under the kernel's id
for b in "$FIX"/bin/*; do
	[ -x "$b" ] && "$PERF" buildid-cache -a "$b" 2> /dev/null
done
kid=$("$PERF" buildid-list -i "$FIX/data/st_defer.data" 2> /dev/null |
	awk '$2 == "[kernel.kallsyms]" { print $1 }')
[ -n "$kid" ] || fail "no kernel build-id in st_defer.data"
kdir="$HOME/.debug/[kernel.kallsyms]/$kid"
mkdir -p "$kdir" "$HOME/.debug/.build-id/${kid:0:2}"
cp "$KALLSYMS" "$kdir/kallsyms"
ln -sfn "../../[kernel.kallsyms]/$kid" "$HOME/.debug/.build-id/${kid:0:2}/${kid:2}"

SCRIPT_OPTS= CMP_OPTS=
SCRIPT_OPTS=--no-inline CMP_OPTS=--kernel-addresses

ctf=yes
if ! command -v babeltrace > /dev/null; then
	ctf="no: the babeltrace reader is not installed (apt-get install babeltrace)"
elif "$PERF" data convert --to-ctf "$TMPD/probe.ctf" -i "$FIX/data/st_nodefer.data" 2>&1 |
	grep -q 'NO_LIBBABELTRACE\|not compiled'; then
	ctf="no: this perf is built without libbabeltrace"
fi

for name in $NAMES; do
	data=$FIX/data/$name.data
	out=$TMPD/$name
	"$PERF" script $SCRIPT_OPTS $SYM -i "$data" > "$out.script" 2> "$out.script.err" ||
		fail "$name: perf script failed: $(tail -3 "$out.script.err")"

	"$PERF" data convert --to-json "$out.json" -i "$data" > "$out.json.err" 2>&1 ||
		fail "$name: perf data convert --to-json failed: $(tail -3 "$out.json.err")"
	if grep 'invalid callchain context' "$out.json.err"; then
		fail "$name: perf data convert --to-json did not understand a callchain"
	fi
	python3 "$TOP/tests/tools/convert_check.py" json "$out.json" "$out.script" $CMP_OPTS \
		> "$out.json.cmp" || {
		cat "$out.json.cmp"
		fail "$name: the JSON callchains differ from perf script's"
	}
	msg="$name: $(cat "$out.json.cmp")"

	if [ "$ctf" = yes ] && [ "$name" != st_defer_pipe ]; then
		"$PERF" data convert --to-ctf "$out.ctf" -i "$data" > "$out.ctf.err" 2>&1 ||
			fail "$name: perf data convert --to-ctf failed: $(tail -3 "$out.ctf.err")"
		babeltrace "$out.ctf" > "$out.bt" 2> "$out.bt.err" ||
			fail "$name: babeltrace cannot read the CTF output: $(tail -3 "$out.bt.err")"
		python3 "$TOP/tests/tools/convert_check.py" ctf "$out.bt" "$out.script" > "$out.ctf.cmp" || {
			cat "$out.ctf.cmp"
			fail "$name: the CTF callchains differ from perf script's"
		}
		msg="$msg; $(cat "$out.ctf.cmp")"
	fi
	echo "$msg"
done
[ "$ctf" = yes ] || echo "CTF not checked: $ctf"
