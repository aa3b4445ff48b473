#!/bin/sh
# many.sh: a following tmq-get on a topic of many partitions (make bench
# runs it for 1,000 and 10,000).  Prints the reader's CPU while nothing is
# written (IDLE seconds) and the delivery latency of records put one at a
# time afterwards (median and p99, by tests/bench/latency.c).
# Targets: under 1% of a core idle, delivery within 10 ms at 10,000.
#
# many.sh -1 PARTITIONS: a once-through tmq-get instead (make bench runs
# it for 1,024, 8,192 and 65,536): the wall time of a read of the empty
# topic, of one with 1,024 records put in, and of --from -2 on that.
# (No more records: tmq-put lists the directory for each partition it
# opens, so putting 3 a partition on 65,536 takes many minutes.)
# Target: linear in the partitions (65,536 within 64 times 1,024) and
# under 3 s each at 65,536.  Measured (2 cores shared with other work,
# non-sanitizer build, empty / 1,024 records / --from -2):
#   before 160b2b1: 1,024: 0.02 / 0.02 / 0.28 s; 8,192: 0.11 / 0.12 /
#   18.3 s; 65,536: 14.6 / 14.7 s / not waited for (one listing of
#   65,536 names for each partition);
#   after: 1,024: 0.01 / 0.01 / 0.02 s; 8,192: 0.10 / 0.09 / 0.13 s;
#   65,536: 1.45 / 2.1 / 2.4 s.
set -eu
once=
if [ "${1:-}" = -1 ]; then
	once=1
	shift
fi
P=${1:?usage: many.sh [-1] PARTITIONS}
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
LATENCY=${TMQ_LATENCY:-$(dirname "$0")/latency}
IDLE=${IDLE:-5}
L=${L:-100}
work=$(mktemp -d)
reader=
trap '[ -n "$reader" ] && kill "$reader" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
export TMQ_ROOT="$work/root"

"$BIN/tmq-topic" create many -k u32 -p "$P"
if [ -n "$once" ]; then
	now() { date +%s.%N; }
	took() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f s", b - a }'; }
	t0=$(now)
	"$BIN/tmq-get" many >/dev/null
	t1=$(now)
	seq 0 1023 | sed 's/$/:x/' | "$BIN/tmq-put" -K: many
	t2=$(now)
	n=$("$BIN/tmq-get" many | wc -l)
	t3=$(now)
	"$BIN/tmq-get" --from -2 many >/dev/null
	t4=$(now)
	[ "$n" -eq 1024 ] || { echo "many.sh: read $n of 1024" >&2; exit 1; }
	echo "tmq-get once through $P partitions: empty $(took "$t0" "$t1"), $n records $(took "$t2" "$t3"), --from -2 $(took "$t3" "$t4")"
	exit 0
fi
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
