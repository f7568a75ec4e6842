#!/bin/bash
# generator-selfcheck: tests/tools/gen_perfdata.py writes what it says it
# writes.  For a few small files (file and pipe mode, threads, migrated
# records, late samples, missing records, burst schedule, ID/CPU sample
# fields, bad-input kinds) the counts in its JSON summary must equal what the
# independent parser tests/tools/deferred_stats.py finds, every sample of the
# floor file (full callchains, no record 22) must carry the merged chain of
# its deferred twin, and perf must read the floor file with the same number
# of samples.  A big-endian floor file must print exactly like the
# little-endian one.  If upstream perf 7.3 is already cached
# (tests/tools/upstream-perf.sh), its merged output of a deferred file must
# equal perf's output of the floor file, frame by frame.
. "$(dirname "$0")/../lib.sh"

GEN=${GEN:-$TOP/tests/tools/gen_perfdata.py}
STATS=$TOP/tests/tools/deferred_stats.py
[ -x "$PERF" ] || skip "no perf binary at $PERF"
command -v python3 > /dev/null || skip "no python3"
cd "$TMPD"

# check NAME GEN-ARGS...: generate NAME.data + NAME.floor.data, compare
check() {
	local name=$1 pipe=0 n m
	shift
	case " $* " in *" --mode pipe "*) pipe=1 ;; esac
	python3 "$GEN" -o "$name.data" --floor "$name.floor.data" "$@" > "$name.json" ||
		fail "$name: generator failed"
	python3 - "$name.json" "$STATS" <<-'EOF' || fail "$name: counts differ (above)"
	import json, subprocess, sys
	s = json.load(open(sys.argv[1]))
	def stats(path):
	    out = subprocess.run([sys.executable, sys.argv[2], path, "--json"],
	                         capture_output=True, text=True, check=True).stdout
	    return json.loads(out)
	bad = []
	if s["stats_checkable"]:
	    d = stats(s["file"])
	    bad += [("deferred", k, v, d.get(k)) for k, v in s["expect"].items() if d.get(k) != v]
	    if d["record_counts"].get("SAMPLE") != s["expect"]["samples"]:
	        bad.append(("deferred", "SAMPLE records", s["expect"]["samples"], d["record_counts"]))
	f = stats(s["floor_file"])
	bad += [("floor", k, v, f.get(k)) for k, v in s["floor_expect"].items() if f.get(k) != v]
	if s["stats_checkable"] and s["expect"]["samples_matched"]:
	    # same stacks: the floor sample's chain is the deferred sample's kernel
	    # part + PERF_CONTEXT_USER + the ips of the record of its (tid, cookie)
	    # (for a late sample: the record before it), using deferred_stats.py's
	    # record parsers
	    import importlib.util, struct
	    spec = importlib.util.spec_from_file_location("ds", sys.argv[2])
	    ds = importlib.util.module_from_spec(spec); spec.loader.exec_module(ds)
	    def walk(path):
	        buf = open(path, "rb").read()
	        attrs, off, size, _ = ds.parse_attrs(buf)
	        st, sida = attrs[0]["sample_type"], attrs[0]["sample_id_all"]
	        out, end = [], off + size
	        while off + 8 <= end:
	            typ, misc, sz = struct.unpack_from("<IHH", buf, off)
	            if typ == 9:
	                out.append(("S", ds.parse_sample(buf, off + 8, off + sz, st)))
	            elif typ == 22:
	                ck, nr = struct.unpack_from("<QQ", buf, off + 8)
	                r = dict(cookie=ck, ips=list(struct.unpack_from("<%dQ" % nr, buf, off + 24)))
	                if sida:
	                    r.update(ds.parse_sample_id(buf, off + 24 + 8 * nr, off + sz, st))
	                out.append(("R", r))
	            off += sz
	        return out
	    dev = walk(s["file"])
	    recs = sorted((r for k, r in dev if k == "R"), key=lambda r: r.get("time", 0))
	    fsmp = [r for k, r in walk(s["floor_file"]) if k == "S"]
	    dsmp = [r for k, r in dev if k == "S"]
	    checked = wrong = 0
	    for d, fl in zip(dsmp, fsmp):
	        cc = d["callchain"]
	        if ds.CTX_USER_DEFERRED not in cc:
	            continue
	        i = cc.index(ds.CTX_USER_DEFERRED)
	        cands = [r for r in recs if r.get("tid") == d["tid"] and r["cookie"] == cc[i + 1]]
	        if not cands:
	            continue
	        after = [r for r in cands if r["time"] > d["time"]]
	        ips = (after[0] if after else cands[-1])["ips"]
	        want = cc[:i] + ([ds.CTX_USER] + ips if ips else [])
	        checked += 1
	        if fl["callchain"] != want or fl["tid"] != d["tid"] or fl["time"] != d["time"]:
	            wrong += 1
	    if wrong or len(dsmp) != len(fsmp) or not checked:
	        bad.append(("floor", "samples whose chain is the merged deferred chain",
	                    "%d of %d" % (checked, len(dsmp)), "%d wrong" % wrong))
	for b in bad:
	    print("%s: %s: expected %s, found %s" % b)
	print("%s: %d samples, %d deferred records, %d matched, %d late, %d never completed%s" % (
	    s["file"], s["expect"]["samples"], s["expect"]["deferred_records"],
	    s["expect"]["samples_matched"],
	    s["expect"]["unmatched_samples_taken_AFTER_their_cookies_record"],
	    s["expect"]["unmatched_samples_whose_cookie_never_appears"],
	    "" if s["stats_checkable"] else " (deferred file not parseable by design)"))
	sys.exit(1 if bad else 0)
	EOF
	n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["expect"]["samples"])' "$name.json")
	if [ $pipe = 1 ]; then
		m=$("$PERF" report --stats -i - < "$name.floor.data" 2> "$name.err" |
		    awk '/^ *SAMPLE events:/ { print $3; exit }')
	else
		m=$("$PERF" report --stats -i "$name.floor.data" 2> "$name.err" |
		    awk '/^ *SAMPLE events:/ { print $3; exit }')
	fi
	[ "$m" = "$n" ] || { cat "$name.err"; fail "$name: perf report --stats counts '$m' samples in the floor file, the generator wrote $n"; }
	if [ $pipe = 1 ]; then
		m=$("$PERF" script -F tid,time -i - < "$name.floor.data" 2> /dev/null | grep -c ':')
	else
		m=$("$PERF" script -F tid,time -i "$name.floor.data" 2> /dev/null | grep -c ':')
	fi
	[ "$m" = "$n" ] || fail "$name: perf script prints $m samples of the floor file, the generator wrote $n"
	echo "$name: ok ($n samples; perf reads the floor file)"
}

check plain    --samples 400 --threads 1
check mt       --samples 1500 --threads 6 --per-entry 2 --cpus 2 --migrate 0.3 \
               --late 0.03 --missing 0.02 --round-events 150
check pipe     --mode pipe --samples 800 --threads 3 --migrate 0.3 --late 0.05 \
               --round-events 100
check burst    --schedule burst --samples 900 --threads 300 --per-entry 2 \
               --user-frac 0.2 --missing 0.05 --late 0.05 --round-events 250
check idcpu    --samples 700 --threads 8 --cpus 4 --sample-id --sample-cpu \
               --migrate 0.5 --round-events 64
check attr144  --samples 300 --threads 2 --attr-size 144 --procs 2
check bad      --samples 1000 --threads 3 --bad nr0:2 --bad nr-big --bad cookie0:3 \
               --bad dup:2 --bad unknown-tid:4
check nosid    --samples 300 --threads 2 --no-sample-id-all
check hostile  --samples 300 --bad nr-past-end:2 --bad no-sample-id
check trunc    --samples 600 --round-events 100 --truncate 0.5 --truncate-header fit

# the hostile kinds really are there: the independent parser trips on them
if python3 "$STATS" hostile.data > /dev/null 2>&1; then
	fail "deferred_stats.py parses the nr-past-end/no-sample-id file: no bad record in it?"
fi

# "burst": every thread's entry is pending at once
p=$(python3 -c 'import json; print(json.load(open("burst.json"))["max_pending_entries"])')
[ "$p" -ge 250 ] || fail "burst schedule: only $p entries pending at once"

# big endian (file mode): same samples, same output as little endian
python3 "$GEN" -o le.data --floor le.floor.data --samples 500 --threads 3 --late 0.05 > le.json
python3 "$GEN" -o be.data --floor be.floor.data --samples 500 --threads 3 --late 0.05 \
	--endian big > be.json
cmp -s le.data be.data && fail "big-endian file is the little-endian file"
"$PERF" script -F tid,time,ip -i le.floor.data > le.txt 2>&1
"$PERF" script -F tid,time,ip -i be.floor.data > be.txt 2>&1
[ -s le.txt ] && cmp -s le.txt be.txt ||
	fail "perf prints the big-endian floor file differently: $(diff le.txt be.txt | head -5)"
echo "big endian: ok"

# upstream 7.3 (only if already cached: no network in the tests)
UP=$TOP/tests/tools/upstream-perf.sh
if "$UP" --available 2> /dev/null; then
	python3 "$GEN" -o x.data --floor x.floor.data --samples 600 --threads 4 --cpus 2 \
		--per-entry 2 --migrate 0.3 --round-events 80 > x.json
	# (perf 7.x marks inlined frames unless told not to, as upstream is)
	"$PERF" script --no-inline -F tid,time,ip -i x.floor.data > ours.txt 2>&1
	"$UP" script --no-inline -F tid,time,ip -i x.data > up.txt 2>&1
	cmp -s ours.txt up.txt ||
		fail "upstream $UPV's merged chains differ from the floor file: $(diff ours.txt up.txt | head -6)"
	echo "upstream $UPV merged == floor: ok"
else
	echo "note: upstream perf $UPV not cached, merged-vs-floor cross-check not run"
fi
echo "generator-selfcheck: all ok"
