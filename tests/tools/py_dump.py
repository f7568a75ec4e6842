# py_dump.py - a `perf script -s` Python script for tests/e2e/script-python.sh:
# writes what perf hands to a Python script, one JSON object a line, to the
# file named by its argument:
#
#   perf script -i DATA [--no-merge-callchains] -s py_dump.py -- OUT
#
#   {"k": "s", "tid": T, "time": NS, "cookie": C or null, "frames": F}
#       each sample (process_event); cookie: its "deferred_cookie" (raw
#       delivery of a sample whose user callchain was deferred)
#   {"k": "r", "tid": T, "time": NS, "cookie": C, "frames": F}
#       each PERF_RECORD_CALLCHAIN_DEFERRED (callchain_deferred, called only
#       with --no-merge-callchains)
#
# F is the callchain as the script sees it: [ip, symbol name or null, dso
# or null] per frame, innermost first.
import json
import sys

out = None


def frames(callchain):
    return [[f["ip"], f["sym"]["name"] if "sym" in f else None, f.get("dso")]
            for f in callchain]


def trace_begin():
    global out
    out = open(sys.argv[1], "w")


def process_event(param_dict):
    s = param_dict["sample"]
    out.write(json.dumps({"k": "s", "tid": s["tid"], "time": s["time"],
                          "cookie": param_dict.get("deferred_cookie"),
                          "frames": frames(param_dict["callchain"])}) + "\n")


def callchain_deferred(param_dict):
    s = param_dict["sample"]
    out.write(json.dumps({"k": "r", "tid": s["tid"], "time": s["time"],
                          "cookie": param_dict["cookie"],
                          "frames": frames(param_dict["callchain"])}) + "\n")


def trace_end():
    out.close()
