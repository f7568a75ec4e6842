#!/bin/bash
# evlist-defer-bits.sh - 'perf evlist -v' on every perf 7.2 recording shows
# defer_callchain and defer_output on exactly the events where upstream perf
# 7.2 showed them (upstream-7.2/*.evlist-v.txt), file and pipe mode, with
# the writer's attr size (the 144 bytes of perf 7.2) in either mode, and
# the same attrs for a byte-swapped copy of two of them (a pipe and a file
# with two events: tests/tools/byteswap_attrs.py).
#
# Events are compared in order, by name without modifiers ("cpu-clock:HG"
# and "cpu-clock" are the same event).
. "$(dirname "$0")/../lib.sh"

# one line per event: "NAME-WITHOUT-MODIFIERS defer_...: 1 ..."
defer_bits() {
	local line name
	while IFS= read -r line; do
		case "$line" in *": type: "*) ;; *) continue ;; esac
		name=${line%%: type: *}
		echo "${name%%:*}" $(grep -o 'defer_[a-z_]*: [0-9]*' <<< "$line")
	done
}

bad=0
n=0
for f in "$FIX"/data/*.data; do
	name=$(basename "$f" .data)
	if ! "$PERF" evlist -v -i "$f" > "$TMPD/$name.ours" 2> "$TMPD/$name.err"; then
		cat "$TMPD/$name.err"
		echo "$name: perf evlist failed"
		bad=$((bad + 1))
		continue
	fi
	defer_bits < "$TMPD/$name.ours" > "$TMPD/$name.bits"
	upstream "$name" evlist-v | defer_bits > "$TMPD/$name.upbits"
	if [ ! -s "$TMPD/$name.upbits" ] ||
	   ! diff -u "$TMPD/$name.upbits" "$TMPD/$name.bits" > "$TMPD/$name.diff"; then
		echo "$name: defer bits differ from upstream perf 7.2 (- upstream, + ours):"
		cat "$TMPD/$name.diff"
		bad=$((bad + 1))
		continue
	fi
	n=$((n + 1))
	echo "$name: $(paste -sd ';' "$TMPD/$name.bits")"
done

# perf.data attrs and pipe-mode PERF_RECORD_HEADER_ATTRs alike show the
# writer's attr size (perf 7.2's 144 bytes)
asz=144
sizes=$(cat "$TMPD"/*.ours | grep -o ', size: [0-9]*' | sort -u | paste -sd ' ')
if [ "$sizes" != ", size: $asz" ]; then
	grep -H ', size: ' "$TMPD"/*.ours | grep -v ", size: $asz,"
	echo "attr sizes: $sizes, want $asz"
	bad=$((bad + 1))
fi

# the attrs of a file of the other endianness: all fields after the name
for name in st_defer_pipe mt_2ev_cpu_defer; do
	python3 "$TOP/tests/tools/byteswap_attrs.py" "$FIX/data/$name.data" "$TMPD/$name.be"
	"$PERF" evlist -v -i "$TMPD/$name.be" 2> "$TMPD/$name.be.err" | sed 's/^[^ ]*: type: /type: /' > "$TMPD/$name.be.out" || true
	if ! sed 's/^[^ ]*: type: /type: /' "$TMPD/$name.ours" | diff -u - "$TMPD/$name.be.out" ||
	   ! grep -q defer_callchain "$TMPD/$name.be.out"; then
		cat "$TMPD/$name.be.err"
		echo "$name: byte-swapped copy reads differently"
		bad=$((bad + 1))
	else
		echo "$name, byte-swapped: same attrs"
	fi
done
[ $bad = 0 ] || fail "$bad check(s) failed"
echo "$n recordings: defer bits as upstream perf 7.2"
