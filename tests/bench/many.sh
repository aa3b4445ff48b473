#!/bin/sh
# many.sh: a following tmq-get on a topic of many partitions (make bench
# runs it for 1,000 and 10,000).  Prints the reader's CPU while nothing is
# written (IDLE seconds) and the delivery latency of records put one at a
# time afterwards (median and p99, by tests/bench/latency.c).
# Targets: under 1% of a core idle, delivery within 10 ms at 10,000.
set -eu
P=${1:?usage: many.sh PARTITIONS}
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
LATENCY=${TMQ_LATENCY:-$(dirname "$0")/latency}
IDLE=${IDLE:-5}
L=${L:-100}
work=$(mktemp -d)
reader=
trap '[ -n "$reader" ] && kill "$reader" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
export TMQ_ROOT="$work/root"

"$BIN/tmq-topic" create many -k u32 -p "$P"
# Three keys a partition on average: most partitions get a file.
seq 0 $((3 * P)) | sed 's/$/:x/' | "$BIN/tmq-put" -K: many
mkfifo "$work/fifo"
printf 'tmq-get -f on %d partitions, ' "$P" >"$work/lat"
"$LATENCY" <"$work/fifo" >>"$work/lat" &
"$BIN/tmq-get" -f -o now -n "$L" -F '%u\n' many >"$work/fifo" 2>"$work/err" &
reader=$!
# Wait until the reader is idle: its CPU time stops growing.
ticks() { awk '{ print $14 + $15 }' "/proc/$reader/stat"; }
prev=-1
cur=$(ticks)
while [ "$cur" != "$prev" ]; do
	sleep 0.5
	prev=$cur
	cur=$(ticks)
done
hz=$(getconf CLK_TCK)
sleep "$IDLE"
idle=$(ticks)
awk -v a="$cur" -v b="$idle" -v s="$IDLE" -v hz="$hz" -v p="$P" 'BEGIN {
	printf "tmq-get -f on %d partitions, idle: %.2f%% of a core\n", p,
	    100 * (b - a) / hz / s }'
i=0
while [ "$i" -lt "$L" ]; do
	echo "$((i * 7919 % (3 * P))):record $i" | "$BIN/tmq-put" -K: many
	sleep 0.01
	i=$((i + 1))
done
wait "$reader"
reader=
wait
cat "$work/lat"
if [ -s "$work/err" ]; then cat "$work/err" >&2; fi
