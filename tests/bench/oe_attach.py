#!/usr/bin/python3
"""oe_attach.py - measure the review suggestion "attach records to samples
still in ordered_events instead of a second queue".

For every sample whose callchain ends in PERF_CONTEXT_USER_DEFERRED, cookie,
decide whether a PERF_RECORD_CALLCHAIN_DEFERRED with the same cookie has been
READ (in file / pipe order) while the sample is still queued in perf's
ordered_events, i.e. after the sample was queued and before it is FLUSHED
(delivered), with perf's flushing unchanged.  Machines/guests are ignored:
the match is by cookie alone.

Flushing simulated (perf 6.12 base, tools/perf/util/ordered-events.c and
session.c; same rule for file and pipe mode):
  - user records (type >= 64) are not queued; FINISHED_ROUND (68) calls
    ordered_events__flush(oe, OE_FLUSH__ROUND);
  - a kernel record is queued with its timestamp (SAMPLE: PERF_SAMPLE_TIME;
    others: the sample_id trailer when sample_id_all); no timestamp, or 0,
    (-ETIME) means it is delivered at once, in file order;
  - queue_event(): max_timestamp = ts when the queue was empty or the event
    goes to the tail (ts >= every queued ts);
  - OE_FLUSH__ROUND: nothing at all when the queue is empty (nr_events == 0:
    next_flush is not updated either); otherwise deliver every queued event
    with ts <= next_flush (nothing while next_flush == 0), THEN
    next_flush = max_timestamp.  So a round delivers what was at or below the
    newest timestamp seen at the PREVIOUS round;
  - at EOF OE_FLUSH__FINAL delivers everything;
  - OE_FLUSH__HALF (queue over its memory limit) is not simulated: the limit
    is unlimited unless report.queue-size / convert.queue-size is set.

Usage: oe_attach.py [--json] [--markdown] [--rounds] [--unordered] FILE.data...
--unordered: a tool without ordered_events (perf inject's default): every
event is delivered when it is read.
--rounds prints the queue length before/after every FINISHED_ROUND, to
compare with perf --debug ordered-events=1 (PRE/POST ROUND nr_events).
Uses the parser helpers of tests/tools/deferred_stats.py (standard library
only, plus python3-zstandard for -z files).
"""
import heapq
import json
import os
import struct
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import deferred_stats as ds  # noqa: E402

R_SAMPLE, R_DEFERRED, R_FINISHED_ROUND = 9, 22, 68


def id_hdr_size(st):
    return 8 * sum(1 for b in (ds.S_TID, ds.S_TIME, ds.S_ID, ds.S_STREAM_ID, ds.S_CPU,
                               ds.S_IDENTIFIER) if st & b)


def records(path):
    """Yield (seq, type, misc, buf, body, end) in the order perf reads them:
    the records inside PERF_RECORD_COMPRESSED(2) right after it (perf
    processes the decompressed events before the next top-level record),
    a record split across two compressed records when it is complete."""
    buf = open(path, "rb").read()
    attrs, d_off, d_size, pipe = ds.parse_attrs(buf)
    yield attrs, pipe
    seq = 0
    zstate = {}

    def walk(rbuf, off, end):
        nonlocal seq
        while off + 8 <= end:
            typ, misc, size = struct.unpack_from("<IHH", rbuf, off)
            if size < 8 or off + size > end:
                break
            seq += 1
            yield seq, typ, misc, rbuf, off + 8, off + size
            if typ in (81, 83):
                body = off + 8
                if typ == 83:
                    dsize, = struct.unpack_from("<Q", rbuf, body)
                    payload = rbuf[body + 8: body + 8 + dsize]
                else:
                    payload = rbuf[body: off + size]
                zs = zstate.get("z")
                if zs is None:
                    try:
                        import zstandard
                    except ImportError:
                        sys.exit("python3-zstandard is needed for compressed perf.data files")
                    zstate["mod"] = zstandard
                    zstate["z"] = zs = zstandard.ZstdDecompressor().decompressobj()
                out = zs.decompress(payload)
                while zs.eof and zs.unused_data:
                    rest = zs.unused_data
                    zstate["z"] = zs = zstate["mod"].ZstdDecompressor().decompressobj()
                    out += zs.decompress(rest)
                if zs.eof:
                    zstate["z"] = None
                pend = zstate.get("pending", b"") + out
                p2 = 0
                while p2 + 8 <= len(pend):
                    _, _, sz2 = struct.unpack_from("<IHH", pend, p2)
                    if sz2 < 8 or p2 + sz2 > len(pend):
                        break
                    p2 += sz2
                zstate["pending"] = pend[p2:]
                yield from walk(pend, 0, p2)
            off += size

    yield from walk(buf, d_off, min(d_off + d_size, len(buf)))


def quantiles(xs):
    if not xs:
        return None
    xs = sorted(xs)
    n = len(xs)
    return dict(min=xs[0], p10=xs[n // 10], median=xs[n // 2], p90=xs[(9 * n) // 10],
                p99=xs[(99 * n) // 100], max=xs[-1])


def rounds_bucket(n):
    if n <= 3:
        return str(n)
    if n <= 7:
        return "4-7"
    if n <= 15:
        return "8-15"
    if n <= 63:
        return "16-63"
    return "64+"


def simulate(path, ordered=True):
    it = records(path)
    attrs, pipe = next(it)
    id2st = {i: a["sample_type"] for a in attrs for i in a["ids"]}
    stypes = {a["sample_type"] for a in attrs}
    st0 = attrs[0]["sample_type"]
    sid_all = bool(attrs[0]["sample_id_all"])

    def st_sample(rbuf, body):
        if len(stypes) == 1:
            return st0
        i, = struct.unpack_from("<Q", rbuf, body)
        return id2st.get(i, st0)

    def st_sid(rbuf, end):
        if len(stypes) == 1:
            return st0
        i, = struct.unpack_from("<Q", rbuf, end - 8)
        return id2st.get(i, st0)

    # ordered_events state (ordered-events.c)
    heap = []            # (ts, seq, kind, index)
    max_ts = 0           # oe->max_timestamp
    next_flush = 0       # oe->next_flush
    n_rounds = 0
    rounds_delivering = 0
    round_pos = []       # seq of every FINISHED_ROUND
    max_queued = 0
    round_log = []       # (queued before, after) at every FINISHED_ROUND

    samples = []         # dict(read, ts, cookie, flush, flush_round)
    recs = []            # dict(read, ts, cookie, flush)
    counts = Counter()

    def deliver(kind, idx, at, rnd):
        if kind == "s":
            samples[idx]["flush"] = at
            samples[idx]["flush_round"] = rnd
        elif kind == "d":
            recs[idx]["flush"] = at

    last_seq = 0
    for seq, typ, misc, rbuf, body, end in it:
        last_seq = seq
        counts[typ] += 1
        if typ >= 64:
            if typ == R_FINISHED_ROUND:
                n_rounds += 1
                round_pos.append(seq)
                before = len(heap)
                if heap:                       # nr_events == 0: nothing
                    if next_flush:             # do_flush(): !limit -> nothing
                        got = 0
                        while heap and heap[0][0] <= next_flush:
                            ts, _, kind, idx = heapq.heappop(heap)
                            deliver(kind, idx, seq, n_rounds)
                            got += 1
                        rounds_delivering += got > 0
                    next_flush = max_ts
                if before:             # perf prints nothing for an empty queue
                    round_log.append((before, len(heap)))
            continue
        ts = None
        kind, idx = None, None
        try:
            if typ == R_SAMPLE:
                st = st_sample(rbuf, body)
                smp = ds.parse_sample(rbuf, body, end, st)
                ts = smp.get("time")
                cc = smp.get("callchain", [])
                if ds.CTX_USER_DEFERRED in cc:
                    i = cc.index(ds.CTX_USER_DEFERRED)
                    cookie = cc[i + 1] if i + 1 < len(cc) else None
                    samples.append(dict(read=seq, ts=ts, cookie=cookie, flush=None,
                                        flush_round=None, tid=smp.get("tid")))
                    kind, idx = "s", len(samples) - 1
            else:
                if sid_all:
                    st = st_sid(rbuf, end)
                    hs = id_hdr_size(st)
                    if st & ds.S_TIME and end - hs >= body:
                        sid = ds.parse_sample_id(rbuf, end - hs, end, st)
                        ts = sid.get("time")
                if typ == R_DEFERRED:
                    cookie, = struct.unpack_from("<Q", rbuf, body)
                    recs.append(dict(read=seq, ts=ts, cookie=cookie, flush=None))
                    kind, idx = "d", len(recs) - 1
        except (AssertionError, struct.error):
            counts["unparsable"] += 1
            ts = None
        if not ordered or not ts or ts == 2**64 - 1:
            # tool->ordered_events false (perf inject by default), or -ETIME:
            # delivered at once, in file order
            deliver(kind, idx, seq, None)
            continue
        if not heap:
            max_ts = ts
        elif ts >= max_ts:
            max_ts = ts
        heapq.heappush(heap, (ts, seq, kind, idx))
        max_queued = max(max_queued, len(heap))
    final = last_seq + 1                        # OE_FLUSH__FINAL at EOF
    while heap:
        ts, _, kind, idx = heapq.heappop(heap)
        deliver(kind, idx, final, None)

    # --- classify -------------------------------------------------------
    by_cookie = defaultdict(list)
    for d in recs:
        by_cookie[d["cookie"]].append(d)
    import bisect
    res = Counter()
    later_rounds = Counter()
    later_dt, later_dt_flush = [], []
    before_dt = []
    for s in samples:
        ds_ = by_cookie.get(s["cookie"])
        res["deferred samples"] += 1
        if s["flush_round"] is not None:
            res["flushed by a FINISHED_ROUND"] += 1
        elif s["flush"] == s["read"]:
            res["delivered at once (no timestamp)"] += 1
        else:
            res["flushed at EOF (final flush)"] += 1
        if not ds_:
            res["record never comes"] += 1
            continue
        if any(s["read"] < d["read"] < s["flush"] for d in ds_):
            res["attachable"] += 1
            continue
        after = [d for d in ds_ if d["read"] > s["flush"]]
        if after:
            d = min(after, key=lambda x: x["read"])
            res["record in a later round"] += 1
            if s["flush"] == s["read"]:
                res["later: sample delivered at once"] += 1
            # rounds the sample would have to wait longer: FINISHED_ROUNDs
            # from its flushing one (inclusive) up to the record
            n = bisect.bisect_left(round_pos, d["read"]) - bisect.bisect_left(round_pos, s["flush"])
            later_rounds[rounds_bucket(n)] += 1
            if s["ts"] is not None and d["ts"] is not None:
                later_dt.append(d["ts"] - s["ts"])
            continue
        # every record of the cookie was read before the sample
        d = max(ds_, key=lambda x: x["read"])
        if s["ts"] is None or d["ts"] is None:
            # no timestamps (--per-thread): one buffer per thread, file order
            # is the thread's order: the sample was taken after its record
            res["record read before: sample taken after its record"] += 1
        elif d["ts"] < s["ts"]:
            res["record read before: sample taken after its record"] += 1
            before_dt.append(s["ts"] - d["ts"])
        else:
            res["record read before: record later in time (other CPU's buffer)"] += 1
        if d["flush"] < s["read"]:
            res["record read before: record already flushed when sample read"] += 1
        else:
            res["record read before: record still queued when sample read"] += 1
    # stream time from each sample to the first record of its cookie that
    # is not earlier in time: how long a sample has to stay queued
    gaps = []
    for s in samples:
        if s["ts"] is None:
            continue
        later = [d["ts"] for d in by_cookie.get(s["cookie"], ()) if d["ts"] is not None and d["ts"] >= s["ts"]]
        if later:
            gaps.append(min(later) - s["ts"])
    gap_over = {lim: sum(1 for g in gaps if g > ns) for lim, ns in
                (("1ms", 10**6), ("10ms", 10**7), ("100ms", 10**8), ("1s", 10**9))}
    # FINISHED_ROUNDs a sample flushed by a round stays queued: 1 = flushed
    # by the first round after it was read
    stay = Counter(bisect.bisect_left(round_pos, s["flush"]) - bisect.bisect_left(round_pos, s["read"]) + 1
                   for s in samples if s["flush_round"] is not None)
    out = dict(file=os.path.basename(path), pipe=pipe, finished_rounds=n_rounds,
               rounds_that_delivered=rounds_delivering, max_queued=max_queued,
               records_22=len(recs),
               cookies_with_several_records=sum(1 for v in by_cookie.values() if len(v) > 1),
               first_round_at=(round_pos[0] / last_seq if round_pos else None),
               round_log=round_log, result=dict(res), later_extra_rounds=dict(later_rounds),
               later_record_minus_sample_ns=quantiles(later_dt),
               taken_after_sample_minus_record_ns=quantiles(before_dt),
               record_minus_sample_ns=quantiles(gaps), record_minus_sample_over=gap_over,
               samples_with_later_record=len(gaps),
               rounds_queued_histogram=dict(sorted(stay.items())))
    return out


def pct(a, b):
    # rounded down: 2655 of 2656 is 99.9 %, not 100.0 %
    return "%.1f %%" % ((1000 * a // b) / 10.0) if b else "-"


def ms(q, keys=("median", "p90", "max")):
    if not q:
        return "-"
    return " / ".join("%.3g" % (q[k] / 1e6) for k in keys)


def markdown(rows):
    order = ["0", "1", "2", "3", "4-7", "8-15", "16-63", "64+"]
    hdr = ("| file | FINISHED_ROUNDs (that delivered) | deferred samples "
           "| flushed by a round / at EOF / on read (no timestamp) "
           "| **attachable** (record read while the sample is queued) "
           "| record read after the sample's flush | extra rounds needed "
           "| record - sample, ms (median / p90 / max) | record never comes "
           "| record read before the sample: taken after it / later in time (of which already flushed) "
           "| attachable if records are also kept |")
    lines = [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    for r in rows:
        x = r["result"]
        n = x.get("deferred samples", 0)
        name = r["file"] + (" (pipe)" if r["pipe"] else "")
        if not n:
            lines.append("| %s | %d (%d) | 0 |" % (name, r["finished_rounds"], r["rounds_that_delivered"])
                         + " |" * 8)
            continue
        lr = ", ".join("%s: %d" % (k if k != "0" else "0 (read after, sample delivered on read)",
                                   r["later_extra_rounds"][k])
                       for k in order if k in r["later_extra_rounds"]) or "-"
        att = x.get("attachable", 0)
        bef_a = x.get("record read before: sample taken after its record", 0)
        bef_b = x.get("record read before: record later in time (other CPU's buffer)", 0)
        lines.append("| %s | %d (%d) | %d | %d / %d / %d | %d (%s) | %d (%s) | %s | %s | %d (%s) | %d / %d (%d) | %s |" % (
            name, r["finished_rounds"], r["rounds_that_delivered"], n,
            x.get("flushed by a FINISHED_ROUND", 0), x.get("flushed at EOF (final flush)", 0),
            x.get("delivered at once (no timestamp)", 0),
            att, pct(att, n),
            x.get("record in a later round", 0), pct(x.get("record in a later round", 0), n),
            lr, ms(r["later_record_minus_sample_ns"]),
            x.get("record never comes", 0), pct(x.get("record never comes", 0), n),
            bef_a, bef_b, x.get("record read before: record already flushed when sample read", 0),
            pct(att + bef_a + bef_b, n)))
    lines += ["", "| file | deferred samples with a record not earlier in time "
              "| record - sample, ms (median / p99 / max) | > 1 ms | > 10 ms | > 100 ms | > 1 s |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["result"].get("deferred samples"):
            continue
        o = r["record_minus_sample_over"]
        lines.append("| %s | %d | %s | %d | %d | %d | %d |" % (
            r["file"], r["samples_with_later_record"],
            ms(r["record_minus_sample_ns"], ("median", "p99", "max")),
            o["1ms"], o["10ms"], o["100ms"], o["1s"]))
    return "\n".join(lines)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    ordered = "--unordered" not in sys.argv
    rows = [simulate(p, ordered) for p in args]
    if not ordered:
        for r in rows:
            r["file"] += " [unordered]"
    if "--markdown" in sys.argv:
        print(markdown(rows))
    if "--rounds" in sys.argv:          # nr_events before/after each round
        for r in rows:
            for i, (b, a) in enumerate(r["round_log"], 1):
                print("%s round %d nr_events %d -> %d" % (r["file"], i, b, a))
    for r in rows:
        del r["round_log"]
    if "--json" in sys.argv or not ("--markdown" in sys.argv or "--rounds" in sys.argv):
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
