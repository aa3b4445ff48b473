#!/bin/sh
# shared.sh: make bench's costs on each shared filesystem engine beside the
# local disk (issue 36 item 7).  On each: one tmq-put of N records of about
# 110 bytes into 4 partitions through one mount (wall clock), a tmq-get of
# them once through from the other mount (another client, whose cache has
# none of them), and a follower's latency on the other mount: L records
# stamped by the producer's clock, RATE a second (trickle.c), the
# follower's read minus the stamp (latency.c), p50 and p99.  Local disk is
# the same with both roots one.
#
# Each engine is brought up by the test suite's own script
# (tests/glusterfs.sh: one brick; tests/cephfs.sh: one node, ceph-fuse)
# under a scratch folder, and taken down after; an engine that cannot run
# here (not root, no /dev/fuse, its packages missing, one already up) is
# said, and skipped.  TMQ_SHARED_FS=gluster|ceph|all picks, as for
# make check-shared (none: the local disk alone).  With PROFILE=1, strace -c -f of the put and the get
# on each engine's mounts, the calls that took the most time first.
#
# No target: what a network round trip costs is the engine's; the figures
# go into the README's performance section beside the local disk's.
set -eu
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
B=${TMQ_BENCHBIN:-$(dirname "$0")}
SRC=${TMQ_SRCDIR:-$(dirname "$0")/../..}
N=${N_SHARED:-200000}
L=${L:-300}
RATE=${RATE:-100}
work=$(mktemp -d)
up=
cleanup() {
	for u in $up; do
		sh "$SRC/tests/${u%%:*}.sh" down "${u#*:}" >/dev/null 2>&1 || :
	done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.2f s, %d records/s", b - a, n / (b - a) }'; }

awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++)
	printf "%d:{\"id\":%d,\"kind\":\"event\",\"pad\":\"%080d\"}\n", i, i, i }' \
    >"$work/in"

# measure NAME PUTROOT GETROOT
measure() {
	"$BIN/tmq-topic" -d "$2" create t -k u32 -p 4
	"$BIN/tmq-topic" -d "$2" create lat -k u32 -p 1
	t0=$(now)
	"$BIN/tmq-put" -d "$2" -K: t <"$work/in"
	t1=$(now)
	put=$(rate "$N" "$t0" "$t1")
	# The other client's first look at what this one wrote: on CephFS it
	# waits until the writer's client gives up its capabilities on the
	# files (seconds: ceph-fuse's, not tmq's round trips).
	t0=$(now)
	"$BIN/tmq-topic" -d "$3" info t >/dev/null
	t1=$(now)
	look=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s", b - a }')
	t0=$(now)
	got=$("$BIN/tmq-get" -d "$3" t | wc -l)
	t1=$(now)
	[ "$got" -eq "$N" ] || { echo "$1: tmq-get read $got of $N" >&2; exit 1; }
	get=$(rate "$N" "$t0" "$t1")
	rm -f "$work/fifo"
	mkfifo "$work/fifo"
	"$B/latency" <"$work/fifo" >"$work/lat" &
	reader=$!
	# From the start of the empty topic: a follower slow to open it (a
	# second and more on CephFS) misses none, where --from now would
	# begin after the first records and wait for ever for the last.
	"$BIN/tmq-get" -d "$3" -f --from start -n "$L" -F '%s\n' lat >"$work/fifo" &
	follower=$!
	# (settled at its end before the first stamp, or the first records'
	# latencies are its opening's: a bench, not a test, may give it two
	# seconds)
	sleep 2
	"$B/trickle" "$L" "$RATE" | "$BIN/tmq-put" -d "$2" -K: lat
	wait "$follower"
	wait "$reader"
	where=
	[ "$2" = "$3" ] || where=" on the other mount"
	echo "$1: tmq-put $put; first look$where $look; tmq-get$where $get;" \
	    "$(sed "s|^follow latency: |follow latency at $RATE/s$where: |" "$work/lat")"
	if [ "${PROFILE:-}" = 1 ] && command -v strace >/dev/null; then
		"$BIN/tmq-topic" -d "$2" create p -k u32 -p 4
		head -n 20000 "$work/in" >"$work/in20k"
		echo "  strace -c -f of tmq-put of 20,000 records (wall time in each call, the 6 of most):"
		strace -c -w -f -o "$work/put.strace" "$BIN/tmq-put" -d "$2" -K: p <"$work/in20k"
		sed -n '3,8p' "$work/put.strace" | sed 's/^/    /'
		echo "  strace -c -f of tmq-get of them from the other mount:"
		strace -c -w -f -o "$work/get.strace" "$BIN/tmq-get" -d "$3" p >/dev/null
		sed -n '3,8p' "$work/get.strace" | sed 's/^/    /'
	fi
}

mkdir "$work/local"
measure "local disk" "$work/local" "$work/local"
case ${TMQ_SHARED_FS:-all} in
gluster) engines=glusterfs ;;
ceph) engines=cephfs ;;
all) engines="glusterfs cephfs" ;;
none) engines= ;;
*) echo "TMQ_SHARED_FS=$TMQ_SHARED_FS: want gluster, ceph, all or none" >&2; exit 2 ;;
esac
for e in $engines; do
	case $e in
	glusterfs) name="GlusterFS (one brick, FUSE client)" ;;
	cephfs) name="CephFS (one node, ceph-fuse)" ;;
	esac
	if ! why=$(sh "$SRC/tests/$e.sh" why); then
		echo "$name: not measured ($why)"
		continue
	fi
	d=$work/$e
	sh "$SRC/tests/$e.sh" up "$d" >"$work/$e.up" 2>&1 ||
	    { cat "$work/$e.up" >&2; echo "$name: could not be brought up" >&2; exit 1; }
	up="$up $e:$d"
	mkdir "$d/a/bench"
	measure "$name" "$d/a/bench" "$d/b/bench"
	sh "$SRC/tests/$e.sh" down "$d" >/dev/null 2>&1
	up=
done
