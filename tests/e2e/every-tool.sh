#!/bin/bash
# every-tool: every perf subcommand that reads perf.data, on every real
# recording with deferred callchains (and on the pipe-mode one from a pipe),
# neither crashes nor stops with a "BUG:" message: every tool either chose
# how it gets deferred callchains or gets the samples as recorded.  In the
# series a tool that did not choose stops at the first record, saying
# that it "did not choose": no shipped tool may.  A tool
# may refuse a recording that lacks the events it needs (perf kmem, kwork,
# c2c on a cpu-clock recording): it must say so and exit, not die of a
# signal.  The 6.12 series' merge v2 stops perf stat report with "BUG: this
# tool met a deferred user callchain without choosing ...".
. "$(dirname "$0")/../lib.sh"

cd "$TMPD"
# one subcommand and its options a line; -i FILE is added, or FILE replaced
tools="script
script --no-merge-callchains
report --stdio
report --stats
report --tasks
report --mmaps
report -D
report --stdio --children
annotate --stdio
c2c report --stdio
diff FILE FILE
evlist -v
inject -o out.data
inject --merge-callchains -o out.data
inject -b -o out.data
kmem stat
kwork report
lock report
mem report --stdio
sched timehist
sched latency
sched map
stat report
timechart -o out.svg
trace
buildid-list
data convert --to-json out.json"
bad=0
n=0
# sig ARGS...: run ARGS, its stdin as given, its output into out.txt and
# err.txt; print the number of the signal that killed it, 0 if none (an
# exit status says nothing: perf exits 255 or 234 for its own errors)
sig() {
	python3 -c 'import subprocess, sys
r = subprocess.call(sys.argv[1:], stdout=open("out.txt", "w"), stderr=open("err.txt", "w"))
print(max(0, -r))' "$@"
	rm -f out.data out.svg out.json
}
run() { # FILE ARGS...: sig of perf ARGS -i FILE
	local f=$1 in=(-i "$1")
	shift
	case "$*" in *"$f"*) in=() ;; esac
	sig "$PERF" "$@" "${in[@]}" < /dev/null
}
for data in "$FIX"/data/*_defer*.data; do
	name=$(basename "$data" .data)
	while read -r args; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # $args is a list of options
		rc=$(run "$data" ${args//FILE/$data})
		if [ "$rc" != 0 ]; then
			echo "FAIL $name: perf $args: killed by signal $rc: $(tail -2 err.txt)"
			bad=$((bad + 1))
		elif grep -Eq 'BUG|did not choose' out.txt err.txt; then
			echo "FAIL $name: perf $args: $(grep -Eh -m1 'BUG|did not choose' out.txt err.txt)"
			bad=$((bad + 1))
		elif grep -Eq 'runtime error|Sanitizer' err.txt; then
			echo "FAIL $name: perf $args: sanitizer report: $(grep -E -m1 'runtime error|Sanitizer' err.txt)"
			bad=$((bad + 1))
		fi
	done <<< "$tools"
done
# the pipe-mode recording, read from a pipe
while read -r args; do
	case $args in diff*|"data convert"*|"report --mmaps"|"report --tasks") continue ;; esac
	n=$((n + 1))
	# shellcheck disable=SC2086
	rc=$(sig "$PERF" $args -i - < "$FIX/data/st_defer_pipe.data")
	if [ "$rc" != 0 ] || grep -Eq 'BUG|did not choose' out.txt err.txt; then
		echo "FAIL st_defer_pipe from a pipe: perf $args: signal $rc $(grep -Eh -m1 'BUG|did not choose' out.txt err.txt)"
		bad=$((bad + 1))
	fi
done <<< "$tools"
[ "$bad" = 0 ] || fail "$bad of $n runs crashed, stopped with a BUG message or had not chosen"
echo "every-tool: $n runs of $(echo "$tools" | wc -l) subcommands, none crashed, said BUG or had not chosen"
