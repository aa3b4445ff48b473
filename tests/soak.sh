#!/bin/bash
# soak.sh: tmq under a steady load (make soak; not part of make check).
#
# 8 producers put paced records into one 8-partition topic for SOAK_SECONDS
# (default 30) while 4 followers (tmq-get -f) read it.  Each producer is a
# bounded loop: at most SOAK_RATE records a second (default 1000) and
# SOAK_RATE * SOAK_SECONDS records in all, into one tmq-put.  Then
# everything stops, and the script checks that every follower printed every
# record exactly once (count and set equality with what the producers
# sent), that each producer's records came in order within a key, that a
# plain tmq-get reads the same, and that tmq-dump --verify finds nothing
# corrupt.  It prints the figures: records, rate, and follower lag (the
# time from the message's timestamp, %u, stamped by tmq-put, to the moment
# the follower's line reached a reader on its pipe).
#
# Environment: TMQ_BIN (the tools), SOAK_SECONDS, SOAK_RATE,
# SOAK_PRODUCERS (8), SOAK_FOLLOWERS (4), SOAK_KEEP=1 to keep the work
# directory.  Exit status 0 when every check passes, 1 otherwise.
set -eu

SECONDS_=${SOAK_SECONDS:-30}
RATE=${SOAK_RATE:-1000}
NPROD=${SOAK_PRODUCERS:-8}
NFOLL=${SOAK_FOLLOWERS:-4}
BIN=${TMQ_BIN:-$(cd "$(dirname "$0")/.." && pwd)/bin}
PATH=$BIN:$PATH
export PATH

command -v python3 >/dev/null || { echo "soak: python3 is needed" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tmq-soak.XXXXXX")
export TMQ_ROOT="$work/root"
pids=""

# stop_all: end the background producers and followers, and reap them.
stop_all() {
	local p
	for p in $pids; do
		kill "$p" 2>/dev/null || :
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || :
	done
	pids=""
}

cleanup() {
	stop_all
	if [ "${SOAK_KEEP:-0}" = 1 ]; then
		echo "soak: work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "soak: FAIL: $*" >&2
	exit 1
}

# gen P: producer P's records, "KEY:pP-SEQ", paced; its count goes to
# $work/sent.P when it is done.
gen() {
	python3 - "$1" "$RATE" "$SECONDS_" "$work/sent.$1" <<'EOF'
import sys, time
p, rate, secs, countfile = int(sys.argv[1]), float(sys.argv[2]), \
    float(sys.argv[3]), sys.argv[4]
limit = int(rate * secs)
out = sys.stdout
start = time.monotonic()
seq = 0
try:
    while seq < limit:
        now = time.monotonic() - start
        if now >= secs:
            break
        due = min(limit, int(now * rate) + 1)
        if due > seq:
            out.write("".join("%d:p%d-%d\n" % ((p * 7919 + s) % 1000, p, s)
                              for s in range(seq, due)))
            out.flush()
            seq = due
        time.sleep(0.005)
finally:
    open(countfile, "w").write("%d\n" % seq)
EOF
}

# stamp: prefix each line of stdin with the time it was read.
stamp() {
	python3 -c '
import sys, time
w = sys.stdout.write
for line in sys.stdin:
    w("%.6f %s" % (time.time(), line))
'
}

tmq-topic create -k u32 -p 8 soak
echo "soak: $NPROD producers x $RATE records/s for ${SECONDS_}s, $NFOLL followers, 8 partitions"

# Each follower is a tmq-get -f whose output goes through stamp; we keep
# the tmq-get's pid (to stop it: it flushes and exits on SIGTERM, and stamp
# ends at the end of its input) and stamp's.
for f in $(seq 1 "$NFOLL"); do
	(
		tmq-get -f -F '%u %p %o %s\n' soak 2>"$work/follow.$f.err" &
		echo $! >"$work/follow.$f.pid"
		wait
	) | stamp >"$work/follow.$f" &
	pids="$pids $!"
done
for f in $(seq 1 "$NFOLL"); do
	i=0
	until [ -s "$work/follow.$f.pid" ]; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || fail "follower $f did not start"
		sleep 0.05
	done
	pids="$(cat "$work/follow.$f.pid") $pids"
done
# Followers are in their wait before the first record lands.
sleep 0.5

t0=$(date +%s.%N)
ppids=""
for p in $(seq 1 "$NPROD"); do
	gen "$p" | tmq-put -K : soak 2>"$work/put.$p.err" &
	ppids="$ppids $!"
done
pids="$pids $ppids"
failed=0
for p in $ppids; do
	wait "$p" || failed=1
done
t1=$(date +%s.%N)
[ "$failed" = 0 ] || fail "a producer failed: $(cat "$work"/put.*.err)"

sent=0
for p in $(seq 1 "$NPROD"); do
	sent=$((sent + $(cat "$work/sent.$p")))
done

# Let the followers catch up (bounded), then stop them.
deadline=$((SECONDS + 60))
for f in $(seq 1 "$NFOLL"); do
	while [ "$(wc -l <"$work/follow.$f")" -lt "$sent" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
		    fail "follower $f has $(wc -l <"$work/follow.$f") of $sent records after 60 s"
		sleep 0.1
	done
done
stop_all

verify=$(tmq-dump --verify soak) || fail "tmq-dump --verify: $verify"
tmq-get -F '%u %p %o %s\n' soak >"$work/get" || fail "tmq-get failed"
for f in $(seq 1 "$NFOLL"); do
	[ ! -s "$work/follow.$f.err" ] ||
	    fail "follower $f said: $(head -n 5 "$work/follow.$f.err")"
done

python3 - "$work" "$NPROD" "$NFOLL" "$sent" "$t0" "$t1" "$verify" <<'EOF'
import collections, os, sys
work, nprod, nfoll, sent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t0, t1, verify = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
bad = []
want = set()
for p in range(1, nprod + 1):
    n = int(open(os.path.join(work, "sent.%d" % p)).read())
    want.update("p%d-%d" % (p, s) for s in range(n))
assert len(want) == sent

def check(name, lines, stamped):
    got = collections.Counter()
    last = {}
    lags = []
    offsets = set()
    for l in lines:
        f = l.rstrip("\n").split(" ")
        if stamped:
            recv, f = float(f[0]), f[1:]
            lags.append(recv - float(f[0]))
        u, part, off, payload = f
        got[payload] += 1
        offsets.add((part, off, payload))
        prod, seq = payload.split("-")
        key = (int(prod[1:]) * 7919 + int(seq)) % 1000
        if last.get((prod, key), -1) >= int(seq):
            bad.append("%s: %s out of order within key %d" % (name, payload, key))
        last[(prod, key)] = int(seq)
    dups = [k for k, c in got.items() if c > 1]
    if dups:
        bad.append("%s: %d records twice, e.g. %s" % (name, len(dups), dups[:3]))
    if set(got) != want:
        missing, extra = want - set(got), set(got) - want
        bad.append("%s: %d missing (e.g. %s), %d unknown (e.g. %s)" % (
            name, len(missing), sorted(missing)[:3], len(extra), sorted(extra)[:3]))
    if sum(got.values()) != sent:
        bad.append("%s: %d records, want %d" % (name, sum(got.values()), sent))
    return offsets, lags

ref, _ = check("tmq-get", open(os.path.join(work, "get")), False)
alllags = []
for f in range(1, nfoll + 1):
    offs, lags = check("follower %d" % f, open(os.path.join(work, "follow.%d" % f)), True)
    if offs != ref:
        bad.append("follower %d: offsets differ from tmq-get's" % f)
    alllags += lags

def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))]
alllags.sort()
print("soak: %s" % verify)
print("soak: records: %d (%d producers), in %.1f s: %.0f records/s" % (
    sent, nprod, t1 - t0, sent / (t1 - t0)))
if alllags:
    print("soak: follower lag over %d deliveries: median %.1f ms, p99 %.1f ms, max %.1f ms" % (
        len(alllags), 1000 * pct(alllags, .5), 1000 * pct(alllags, .99), 1000 * alllags[-1]))
if not verify.endswith(" 0 corrupt"):
    bad.append("tmq-dump --verify: " + verify)
for b in bad:
    print("soak: FAIL: " + b, file=sys.stderr)
print("soak: %s" % ("FAIL" if bad else "PASS: every record, once, in every follower; 0 corrupt"))
sys.exit(1 if bad else 0)
EOF
