#!/bin/bash
# convert-json-pipe: `perf data convert --to-json` converts a pipe-mode
# recording (st_defer_pipe, perf 7.2 `perf record -o -`), read from the file
# and from stdin.  Base perf 6.12 died of SIGSEGV on the header fields a
# pipe-mode file does not have (hostname...), and, once past them, stopped
# at the ID_INDEX record: it never read the attrs of the stream.
#   - exit 0, nothing refused ("failed to process"), valid JSON;
#   - as many samples as the file has (fixture analysis), the same from
#     stdin;
#   - the header fields missing from the stream are "" (upstream 7.2 too);
#   - when upstream perf 7.3 is available (tests/tools/upstream-perf.sh):
#     the same header keys, and the same samples (time, pid, tid, comm) in
#     the same order.  Its callchains are not compared: upstream does not
#     merge deferred user callchains in JSON (tests/e2e/convert-callchains.sh
#     compares ours with perf script's).
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "no perf binary at $PERF"
command -v python3 > /dev/null || skip "no python3"
name=st_defer_pipe
data=$FIX/data/$name.data
n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["record_counts"]["SAMPLE"])' \
	"$FIX/analysis/$name.stats.json")
cd "$TMPD"

rc=0
"$PERF" data convert --to-json file.json -i "$data" > file.err 2>&1 || rc=$?
no_sanitizer_report file.err
[ $rc = 0 ] || fail "perf data convert --to-json exits $rc: $(tail -3 file.err)"
rc=0
"$PERF" data convert --to-json stdin.json -i - < "$data" > stdin.err 2>&1 || rc=$?
no_sanitizer_report stdin.err
[ $rc = 0 ] || fail "perf data convert --to-json -i - exits $rc: $(tail -3 stdin.err)"
if grep 'failed to process' file.err stdin.err; then
	fail "perf data convert refused a record"
fi

# summary FILE: samples, "time pid tid comm" per sample, header keys, and
# the header values that a pipe-mode stream does not have
summary() {
	python3 - "$1" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	s = d["samples"]
	print("samples", len(s))
	for e in s:
	    print(e.get("timestamp"), e.get("pid"), e.get("tid"), e.get("comm"))
	print("keys", " ".join(d["headers"]))
	print("missing", " ".join("%s=%r" % (k, d["headers"][k])
	                          for k in ("hostname", "arch", "perf-version")))
	EOF
}
summary file.json > file.sum || fail "file.json is not valid JSON: $(head -3 file.json)"
summary stdin.json > stdin.sum || fail "stdin.json is not valid JSON: $(head -3 stdin.json)"
got=$(head -1 file.sum)
[ "$got" = "samples $n" ] || fail "$got from the file, want $n"
got=$(head -1 stdin.sum)
[ "$got" = "samples $n" ] || fail "$got from stdin, want $n"
diff <(grep -v '^keys' file.sum) <(grep -v '^keys' stdin.sum) > /dev/null ||
	fail "the file and stdin give different samples"
got=$(grep '^missing' file.sum)
[ "$got" = "missing hostname='' arch='' perf-version=''" ] ||
	fail "header fields not in the stream: $got"

if "$TOP/tests/tools/upstream-perf.sh" --available 2> /dev/null; then
	"$TOP/tests/tools/upstream-perf.sh" data convert --to-json up.json -i "$data" \
		> up.err 2>&1 || fail "upstream perf $UPV cannot convert $name: $(tail -3 up.err)"
	summary up.json > up.sum || fail "upstream's JSON is not valid"
	diff <(grep -v '^missing' up.sum) <(grep -v '^missing' file.sum) > up.diff ||
		fail "samples or header keys differ from upstream $UPV's: $(head -5 up.diff)"
	echo "ok   $n samples, the same as upstream perf $UPV's (time, pid, tid, comm)"
else
	echo "note: upstream perf $UPV unavailable, not compared"
fi
echo "convert-json-pipe: $name converted, $n samples, from the file and from stdin"
