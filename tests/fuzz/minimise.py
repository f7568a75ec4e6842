#!/usr/bin/python3
"""minimise.py - minimise a crashing perf.data, keeping the same crash.

afl-tmin keeps any crash: on these inputs it often ends on another bug
than the one the input was saved for (a misaligned event is the easiest
crash to keep).  This keeps the crash's signature - the first sanitizer
report's kind and source location, from a perf built with ASan and UBSan
without traps (make check-asan's build/perf-asan) - and removes what it
can, by structure: for a file-mode perf.data the header features, the
events of the data section, the attrs and their ids (the file laid out
again as perf record does, tests/fuzz/perfdata_mutator.py), for a
pipe-mode one the events after the pipe header, then bytes at the end.

  minimise.py [--perf PERF] [--args 'script --kallsyms=FILE'] IN OUT
  minimise.py --sig [--perf PERF] [--args ...] IN    print the signature

The default PERF is build/perf-asan/perf; the arguments are those of perf
before `-i FILE` (default `script`).
"""
import os
import re
import subprocess
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata_mutator as pm  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, PERF_CONFIG="/dev/null", LC_ALL="C",
           ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:halt_on_error=1",
           UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")


def signature(perf, args, data):
    """(kind, location) of the first sanitizer report, or None."""
    with tempfile.NamedTemporaryFile(suffix=".data") as t:
        t.write(data)
        t.flush()
        try:
            p = subprocess.run([perf] + args + ["-i", t.name], env=ENV, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=60)
        except subprocess.TimeoutExpired:
            return None
    err = p.stderr.decode(errors="replace")
    m = re.search(r"^(\S+:\d+):\d+: runtime error: (.*)$", err, re.M)
    if m:
        kind = re.sub(r"0x[0-9a-f]+|-?\d+", "N", m.group(2))
        return ("ubsan " + kind, m.group(1))
    m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", err)
    if m:
        for f in re.finditer(r"^ +#\d+ 0x[0-9a-f]+ in (\S+) (\S+)", err, re.M):
            if not re.search(r"libsanitizer|interceptor|libc\.so|^__asan|^str|^mem", f.group(1) + f.group(2)):
                return ("asan " + m.group(1), f.group(1) + " " + re.sub(r":\d+$", "", f.group(2)))
        return ("asan " + m.group(1), "?")
    if p.returncode < 0 or p.returncode >= 128:
        return ("signal %d" % (-p.returncode if p.returncode < 0 else p.returncode - 128), "?")
    return None


def ddmin(items, test):
    """The smallest sub-list (in order) test() still accepts, greedily."""
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        removed = False
        for i in range(0, len(items), chunk):
            rest = items[:i] + items[i + chunk:]
            if rest and test(rest):
                items, n, removed = rest, max(n - 1, 2), True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    if len(items) == 1 and test([]):
        items = []
    return items


def minimise(perf, args, data):
    want = signature(perf, args, data)
    if want is None:
        sys.exit("minimise.py: the input does not crash %s" % perf)
    same = lambda b: signature(perf, args, b) == want  # noqa: E731
    f = pm.parse_file(data) if data[:8] in (b"PERFILE2", b"2ELIFREP") else None
    if f is not None and struct.unpack_from(f.e + "Q", data, 8)[0] == 104 and \
       same(bytes(pm.write_file(f))):
        def build(**kw):
            g = pm.PerfFile()
            g.__dict__.update(f.__dict__)
            g.__dict__.update(kw)
            return bytes(pm.write_file(g))
        f.features = ddmin(f.features, lambda x: same(build(features=x)))
        f.events = ddmin(f.events, lambda x: same(build(events=x)))
        if len(f.attrs) > 1:
            f.attrs = ddmin(f.attrs, lambda x: same(build(attrs=x)))
        for a in f.attrs:
            ids = a[1]
            a[1] = ddmin(ids, lambda x, a=a: (a.__setitem__(1, x), same(build()))[1])
        data = build()
    elif data[:8] in (b"PERFILE2", b"2ELIFREP") and len(data) >= 16 and \
            struct.unpack_from("<Q" if data[:8] == b"PERFILE2" else ">Q", data, 8)[0] == 16:
        e = "<" if data[:8] == b"PERFILE2" else ">"
        head = data[:16]
        evs = [bytes(x) for x in pm.split(data[16:], e)]
        evs = ddmin(evs, lambda x: same(head + b"".join(x)))
        data = head + b"".join(evs)
    # bytes at the end
    step = 1 << max(0, len(data).bit_length() - 2)
    while step >= 8:
        if len(data) > step and same(data[:-step]):
            data = data[:-step]
        else:
            step //= 2
    return data, want


def main():
    a = sys.argv[1:]
    perf = os.path.join(TOP, "build", "perf-asan", "perf")
    args = ["script"]
    sig_only = False
    while a and a[0].startswith("--"):
        if a[0] == "--perf":
            perf, a = a[1], a[2:]
        elif a[0] == "--args":
            args, a = a[1].split(), a[2:]
        elif a[0] == "--sig":
            sig_only, a = True, a[1:]
        else:
            sys.exit(__doc__)
    if sig_only and len(a) == 1:
        print(signature(perf, args, open(a[0], "rb").read()))
        return
    if len(a) != 2:
        sys.exit(__doc__)
    data = open(a[0], "rb").read()
    out, sig = minimise(perf, args, data)
    with open(a[1], "wb") as o:
        o.write(out)
    print("%s: %d -> %d bytes, %s at %s" % (a[1], len(data), len(out), sig[0], sig[1]))


if __name__ == "__main__":
    main()
