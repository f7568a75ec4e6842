#!/bin/bash
# other-endian: perf reads a recording of the other byte order as it reads
# the same recording in its own.
#   - pipe mode: a big-endian pipe-mode stream (tests/tools/gen_perfdata.py
#     --endian big, its attrs turned into HEADER_ATTR records) prints the
#     same perf script output as the big-endian file it comes from; perf
#     6.12 did not mark the evsels of a pipe's HEADER_ATTRs as swapped, and
#     read the pid/tid (and cpu) halves of every sample in the wrong order;
#   - attr fields: a byte-swapped copy (tests/tools/byteswap_attrs.py) of
#     mt_2ev_cpu_defer whose attrs have clockid, sample_regs_intr, sig_data
#     and config3 set shows the same `perf evlist -v` as the original;
#     perf_event__attr_swap() of perf 6.12 left these fields unswapped
#     (config3 too, which perf 6.12 does not print);
#   - no feature: the big-endian file with an empty feature bitmap and
#     nothing after its data reads as with its features; perf 7.2 took it
#     for a file older than HEADER_HOSTNAME, looked for a BUILD_ID section
#     past its end and refused it.
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "no perf binary at $PERF"
command -v python3 > /dev/null || skip "no python3"
cd "$TMPD"
printf 'ffffffff81000000 T _stext\n' > ks.txt

# pipe mode
python3 "$TOP/tests/tools/gen_perfdata.py" -o be.data --endian big --kallsyms '' \
	--samples 300 --threads 3 --cpus 2 --sample-cpu > be.json || fail "generator failed"
python3 - be.data be.pipe <<-'EOF' || fail "cannot make the pipe-mode stream"
import struct, sys
b = open(sys.argv[1], "rb").read()
attr_size = struct.unpack_from(">Q", b, 16)[0]
attrs_off, attrs_size = struct.unpack_from(">QQ", b, 24)
data_off, data_size = struct.unpack_from(">QQ", b, 40)
out = struct.pack(">QQ", 0x32454c4946524550, 16)
for o in range(attrs_off, attrs_off + attrs_size, attr_size):
    ids_off, ids_size = struct.unpack_from(">QQ", b, o + attr_size - 16)
    body = b[o:o + attr_size - 16] + b[ids_off:ids_off + ids_size]
    out += struct.pack(">IHH", 64, 0, 8 + len(body)) + body
open(sys.argv[2], "wb").write(out + b[data_off:data_off + data_size])
EOF
"$PERF" script --kallsyms=ks.txt -F comm,pid,tid,cpu,time,period -i be.data > file.out 2> file.err ||
	fail "perf script on the big-endian file exits $?: $(tail -3 file.err)"
rc=0
"$PERF" script --kallsyms=ks.txt -F comm,pid,tid,cpu,time,period -i - < be.pipe > pipe.out 2> pipe.err || rc=$?
no_sanitizer_report file.err pipe.err
[ $rc = 0 ] || fail "perf script on the big-endian pipe exits $rc: $(tail -3 pipe.err)"
# perf script prints the callchains of a pipe whatever -F says, and pads
# the columns of a file: the sample lines, blanks squeezed
awk '/^[^\t]/ && NF { $1 = $1; print }' file.out > file.samples
awk '/^[^\t]/ && NF { $1 = $1; print }' pipe.out > pipe.samples
n=$(grep -c . file.samples) || true
[ "$n" = 300 ] || fail "perf script prints $n samples of the big-endian file, want 300"
diff file.samples pipe.samples > pipe.diff ||
	fail "the big-endian pipe reads differently from its file: $(head -6 pipe.diff)"
echo "ok   big-endian pipe: $n samples as from the file"

# a file without any feature (nothing in the feature bitmap, nothing after
# the data): perf 7.2 made up a BUILD_ID feature for an other-endian one,
# as for the files of perf before HOSTNAME, and refused the file for a
# section past its end
python3 - be.data be-nofeat.data <<-'EOF' || fail "cannot make the file without features"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
data_off, data_size = struct.unpack_from(">QQ", b, 40)
b[72:104] = bytes(32)
open(sys.argv[2], "wb").write(b[:data_off + data_size])
EOF
"$PERF" script --kallsyms=ks.txt -F comm,pid,tid,cpu,time,period -i be-nofeat.data > nofeat.out 2> nofeat.err ||
	fail "perf script on the big-endian file without features exits $?: $(tail -3 nofeat.err)"
no_sanitizer_report nofeat.err
awk '/^[^\t]/ && NF { $1 = $1; print }' nofeat.out > nofeat.samples
diff file.samples nofeat.samples > nofeat.diff ||
	fail "the big-endian file without features reads differently: $(head -6 nofeat.diff)"
echo "ok   big-endian file without features: $n samples as with them"

# attr fields
python3 - "$FIX/data/mt_2ev_cpu_defer.data" le.data <<-'EOF' || fail "cannot set the attr fields"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
attr_size = struct.unpack_from("<Q", b, 16)[0]
attrs_off, attrs_size = struct.unpack_from("<QQ", b, 24)
for o in range(attrs_off, attrs_off + attrs_size, attr_size):
    flags = struct.unpack_from("<Q", b, o + 40)[0]
    struct.pack_into("<Q", b, o + 40, flags | 1 << 25)    # use_clockid
    struct.pack_into("<i", b, o + 92, 7)                  # clockid
    struct.pack_into("<Q", b, o + 96, 0x1f0)              # sample_regs_intr
    struct.pack_into("<Q", b, o + 120, 0x1122334455)      # sig_data
    struct.pack_into("<Q", b, o + 128, 0x66)              # config3
open(sys.argv[2], "wb").write(b)
EOF
python3 "$TOP/tests/tools/byteswap_attrs.py" le.data be-attrs.data || fail "byteswap_attrs.py failed"
"$PERF" evlist -v -i le.data > le.evlist 2> le.err || fail "perf evlist -v exits $?: $(tail -3 le.err)"
"$PERF" evlist -v -i be-attrs.data > be.evlist 2> be.err || fail "perf evlist -v on the byte-swapped copy exits $?: $(tail -3 be.err)"
no_sanitizer_report le.err be.err
for f in clockid sample_regs_intr sig_data; do
	grep -q "$f" le.evlist || fail "perf evlist -v shows no $f: $(head -2 le.evlist)"
done
# the copy has no event names (no EVENT_DESC feature): compare the attrs
diff <(sed 's/^[^ ]*: type: /type: /' le.evlist) <(sed 's/^[^ ]*: type: /type: /' be.evlist) > attr.diff || fail "the byte-swapped attrs read differently: $(head -6 attr.diff)"
echo "ok   byte-swapped attrs: clockid, sample_regs_intr, sig_data as in the original"
echo "other-endian: all ok"
