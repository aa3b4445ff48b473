#!/usr/bin/env bats
# t0430-group-scale: consumer groups under numbers and stalls (tmq(7),
# "Consumer groups").  Many members started at once all join, each
# partition is owned once and every message read; a member that stops
# answering (SIGSTOP, a full pipe) loses its partitions after the session
# timeout, and when it runs again it learns so before it commits or prints
# more of them.
#
# Members run in the background; every wait is for a condition, bounded
# by $TMQ_TEST_WAIT, and teardown stops what is left.

load test_helper

teardown() {
	local f pid i
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		kill -CONT "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
	done
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		rm -f "$f"
	done
}

# start_bg NAME COMMAND...: COMMAND in the background, stdout to NAME.out,
# stderr to NAME.err, its pid in NAME.pid.
start_bg() {
	local name=$1
	shift
	"$@" >"$BATS_TEST_TMPDIR/$name.out" 2>"$BATS_TEST_TMPDIR/$name.err" 3>&- &
	echo $! >"$BATS_TEST_TMPDIR/$name.pid"
}

# stopped_ok NAME: TERM it (again), wait; it exited 0 and said nothing.
stopped_ok() {
	local pid rc=0
	pid=$(cat "$BATS_TEST_TMPDIR/$1.pid")
	kill -TERM "$pid" 2>/dev/null || :
	wait "$pid" || rc=$?
	rm -f "$BATS_TEST_TMPDIR/$1.pid"
	assert_equal "$rc" 0
	assert_equal "$(cat "$BATS_TEST_TMPDIR/$1.err")" ""
}

# owned N NPARTS: the group G is stable with N members owning the NPARTS
# partitions between them, each exactly once, by describe --json and by
# each member's REBALCONFIRM after the ENDREBAL that closed the last
# rebalance.
owned() {
	tmq-group describe --json G >"$BATS_TEST_TMPDIR/describe.json" &&
	    tmq-dump -J -- --group--G >"$BATS_TEST_TMPDIR/log.jsonl" &&
	    python3 - "$1" "$2" "$BATS_TEST_TMPDIR/describe.json" \
		"$BATS_TEST_TMPDIR/log.jsonl" <<-'EOF'
		import json, sys
		n, nparts = int(sys.argv[1]), int(sys.argv[2])
		d = json.load(open(sys.argv[3]))
		log = [json.loads(l) for l in open(sys.argv[4])]
		def fail(why):
		    print(why)
		    sys.exit(1)
		if d["state"] != "stable":
		    fail("state %s" % d["state"])
		members = {int(k): v for k, v in d["members"].items()}
		if len(members) != n:
		    fail("%d members, want %d" % (len(members), n))
		owned = sorted(p for v in members.values() for p in v)
		if owned != list(range(nparts)):
		    fail("partitions owned: %r" % owned)
		begun = max([m["offset"] for m in log if m["type"] == "~~TWAIN~~BEGINREBAL"],
		            default=-1)
		ended = min([m["offset"] for m in log
		             if m["type"] == "~~TWAIN~~ENDREBAL" and m["offset"] > begun],
		            default=-1)
		confirmed = {}
		for m in log:
		    if m["type"] == "~~TWAIN~~REBALCONFIRM":
		        confirmed[m["key"]] = (m["offset"], sorted(m["payload"]["partitions"]))
		for k, v in members.items():
		    off, parts = confirmed.get(k, (-1, None))
		    if off < ended or parts != sorted(v):
		        fail("member %d confirmed %r at %d (ENDREBAL at %d), describe: %r"
		             % (k, parts, off, ended, v))
		EOF
}

# read_all EXPECTED OUTPUT...: every line of EXPECTED is in the OUTPUT
# files at least once, and they hold nothing else.
read_all() {
	python3 - "$@" <<-'EOF'
	import sys
	want = set(open(sys.argv[1], encoding="utf-8").read().splitlines())
	got = set()
	for f in sys.argv[2:]:
	    got.update(open(f, encoding="utf-8").read().splitlines())
	print("%d missing, %d unexpected" % (len(want - got), len(got - want)))
	sys.exit(0 if want <= got and got <= want else 1)
	EOF
}

@test "64 members started at once on a 64-partition topic: all join, each partition owned once, every message read" {
	local i pids=()
	tmq-topic create -k u32 -p 64 ev
	seq 1 6400 | awk '{ print $1 " msg-" $1 }' | tmq-put -K ' ' ev
	seq 1 6400 | sed 's/^/msg-/' >"$BATS_TEST_TMPDIR/want"
	for i in $(seq 64); do
		tmq-get -g G --window 1 -f ev >"$BATS_TEST_TMPDIR/m$i.out" \
		    2>"$BATS_TEST_TMPDIR/m$i.err" 3>&- &
		echo $! >"$BATS_TEST_TMPDIR/m$i.pid"
		pids+=($!)
	done
	wait_for owned 64 64
	wait_for read_all "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR"/m*.out
	# Nobody gave up (before, all but four exited 1 with "could not claim
	# a member id"), and no id was given twice: one JOINED counts per id,
	# 64 ids in all.
	for i in "${pids[@]}"; do
		kill -0 "$i"
	done
	run cat "$BATS_TEST_TMPDIR"/m*.err
	assert_output ""
	run python3 -c '
import json, sys
first = {}
for l in open(sys.argv[1]):
    m = json.loads(l)
    if m["type"] == "~~TWAIN~~JOINED":
        first.setdefault(m["key"], m["payload"]["tag"])
print(len(first))' "$BATS_TEST_TMPDIR/log.jsonl"
	assert_output 64
	# All 64 leave at once, each exiting 0, quietly.
	for i in "${pids[@]}"; do
		kill -TERM "$i"
	done
	for i in $(seq 64); do
		stopped_ok "m$i"
	done
}
