#!/bin/sh
# lone.sh: make bench's figures for records that come alone (issue 38):
# - a long-lived tmq-put fed RATE records a second (default 1000), each on
#   its own, with tmq-get -f following: the CPU time each spends per record
#   (wait4's, cputime.c), and the latency from the producer's clock (a
#   stamp in the payload, trickle.c) to the follower's read (latency.c);
# - a process per record, as a cron job or a shell loop puts: the CPU time
#   of a loop of P tmq-put runs above the same loop of /bin/true, per run.
# Each figure is the median of R rounds (default 5).
set -eu
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
B=${TMQ_BENCHBIN:-$(dirname "$0")}
R=${R:-5}
N=${N:-3000}
RATE=${RATE:-1000}
P=${P:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
export TMQ_ROOT="$work/root"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
"$BIN/tmq-topic" create lone -k u32 -p 4
: >"$work/put.cpu"
: >"$work/get.cpu"
: >"$work/p50"
: >"$work/p99"
r=0
while [ "$r" -lt "$R" ]; do
	rm -f "$work/fifo"
	mkfifo "$work/fifo"
	"$B/latency" <"$work/fifo" >"$work/lat" &
	reader=$!
	"$B/cputime" "$work/get.cpu" "$BIN/tmq-get" -f --from now -n "$N" \
	    -F '%s\n' lone >"$work/fifo" &
	timer=$!
	# The follower is waiting once it holds its inotify watch; a record
	# put before then would not be counted: wait for the watch.
	i=0
	until f=$(pgrep -P "$timer" -x tmq-get) &&
	    grep -qs inotify "/proc/$f/fdinfo/"*; do
		i=$((i + 1))
		[ "$i" -lt 3000 ] || { echo "lone: the follower never waited" >&2; exit 1; }
		sleep 0.01
	done
	"$B/trickle" "$N" "$RATE" | "$B/cputime" "$work/put.cpu" \
	    "$BIN/tmq-put" -K: lone
	wait "$timer"
	wait "$reader"
	sed -n 's/.*median \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*/\1 \2/p' \
	    "$work/lat" >"$work/lat2"
	awk '{ print $1 >> "'"$work/p50"'"; print $2 >> "'"$work/p99"'" }' "$work/lat2"
	r=$((r + 1))
done
us() { awk -v n="$N" '{ print ($1 + $2) / n * 1e6 }' "$1" | median; }
put=$(us "$work/put.cpu")
get=$(us "$work/get.cpu")
both=$(awk -v a="$put" -v b="$get" 'BEGIN { printf "%.1f", a + b }')
v=$(awk -v d="$both" 'BEGIN { print (d <= 20 ? "met" : "NOT MET") }')
echo "a record alone at $RATE/s: tmq-put $(printf '%.1f' "$put") us CPU per record, tmq-get -f $(printf '%.1f' "$get") us, together $both us (target: at most 20, $v)"
echo "latency at $RATE records/s, producer's clock to the follower's read, median of $R: p50 $(median <"$work/p50") ms, p99 $(median <"$work/p99") ms"

# A process per record.
"$BIN/tmq-topic" create each -k u32
: >"$work/put1.cpu"
: >"$work/true.cpu"
r=0
while [ "$r" -lt "$R" ]; do
	"$B/cputime" "$work/put1.cpu" sh -c 'i=0; while [ $i -lt '"$P"' ]; do "$0" each x || exit 1; i=$((i + 1)); done' "$BIN/tmq-put"
	"$B/cputime" "$work/true.cpu" sh -c 'i=0; while [ $i -lt '"$P"' ]; do "$0" each x || exit 1; i=$((i + 1)); done' /bin/true
	r=$((r + 1))
done
pm=$(awk -v p="$P" '{ print ($1 + $2) / p * 1e3 }' "$work/put1.cpu" | median)
tm=$(awk -v p="$P" '{ print ($1 + $2) / p * 1e3 }' "$work/true.cpu" | median)
above=$(awk -v a="$pm" -v b="$tm" 'BEGIN { printf "%.2f", a - b }')
verdict=$(awk -v d="$above" 'BEGIN { print (d <= 1.5 ? "met" : "NOT MET") }')
echo "a process per record: tmq-put $(printf '%.2f' "$pm") ms CPU a run, /bin/true $(printf '%.2f' "$tm") ms in the same loop: $above ms above (target: at most 1.5, $verdict)"
