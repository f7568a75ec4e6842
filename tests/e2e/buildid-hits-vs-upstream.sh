#!/bin/bash
# buildid-hits-vs-upstream.sh - 'perf buildid-list --with-hits' on every
# real recording lists the DSOs (with their build ids) that upstream perf
# 7.2 lists (upstream-7.2/*.buildid-list-hits.txt).  A DSO reached only by
# the user IPs of CALLCHAIN_DEFERRED records (the program of a thread
# sampled only in the kernel, libc in an -a recording) is hit too: it is
# what perf archive and perf record's build-id cache keep, and a tool that
# ignored the records dropped it (mt_perthread_defer: mt_syscalls;
# syswide_defer: libc).
. "$(dirname "$0")/../lib.sh"

bad=0
n=0
for f in "$FIX"/data/*.data; do
	name=$(basename "$f" .data)
	if ! "$PERF" buildid-list --with-hits -i "$f" > "$TMPD/$name.ours" 2> "$TMPD/$name.err"; then
		cat "$TMPD/$name.err"
		echo "$name: perf buildid-list failed"
		bad=$((bad + 1))
		continue
	fi
	upstream "$name" buildid-list-hits | sort > "$TMPD/$name.up"
	sort "$TMPD/$name.ours" > "$TMPD/$name.sorted"
	if [ ! -s "$TMPD/$name.up" ] ||
	   ! diff -u "$TMPD/$name.up" "$TMPD/$name.sorted" > "$TMPD/$name.diff"; then
		echo "$name: DSOs hit differ from upstream perf 7.2 (- upstream, + ours):"
		cat "$TMPD/$name.diff"
		bad=$((bad + 1))
		continue
	fi
	n=$((n + 1))
	echo "$name: $(awk '{ print $2 }' "$TMPD/$name.sorted" | paste -sd ' ')"
done
[ $n -ge 17 ] || echo "only $n recordings compared"
[ $bad = 0 ] && [ $n -ge 17 ] || fail "$bad of $((n + bad)) recordings differ from upstream"
