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

# Background members and processes (test_helper: start_bg, start_member,
# stop_bg) are ended after each test; settled (test_helper) says whether
# the group is stable with its partitions each owned once.
teardown() {
	end_bg
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

# glog FILE LINE...: a group log as tmq-dump -J prints it, one message a
# LINE of "OFFSET KEY TYPE PAYLOAD", timestamps 1000 + OFFSET / 1000.
glog() {
	local f=$1
	shift
	python3 - "$@" >"$f" <<-'EOF'
	import json, sys
	for l in sys.argv[1:]:
	    off, key, kind, payload = l.split(" ", 3)
	    print(json.dumps({"topic": "--group--G", "partition": 0,
	                      "offset": int(off), "key": int(key),
	                      "timestamp": 1000 + int(off) / 1000,
	                      "type": "~~TWAIN~~" + kind,
	                      "payload": json.loads(payload)}))
	EOF
}

# Every member that finds the offers complete may write an ENDREBAL, so
# with many members a rebalance often has two; make
# bench judged by the last one and waited for confirms that had all come,
# forever (3 of 8 runs).  The rebalance ends at the first.
@test "a group is settled by the confirms after its rebalance's first ENDREBAL, when members wrote two" {
	local d=$BATS_TEST_TMPDIR
	cat >"$d/describe.json" <<-'EOF'
	{"group":"G","topic":"ev","state":"stable","rebalance_end":null,"members":{"1":[0],"2":[1]},"partitions":[{"partition":0,"owner":1},{"partition":1,"owner":2}]}
	EOF
	glog "$d/log.jsonl" '1 1 JOINED {"tag":1}' '2 2 JOINED {"tag":2}' \
	    '3 2 BEGINREBAL {"timestamp":1005}' \
	    '4 2 REBALOFFER {"own":[],"partitions":[0,1]}' \
	    '5 1 REBALOFFER {"own":[],"partitions":[0,1]}' \
	    '6 1 ENDREBAL {}' '7 1 REBALCONFIRM {"partitions":[0]}' \
	    '8 2 ENDREBAL {}' '9 2 REBALCONFIRM {"partitions":[1]}'
	run python3 "$BATS_TEST_DIRNAME/group-settled.py" 2 2 "$d/describe.json" "$d/log.jsonl"
	assert_success
	assert_output "1:0 2:1"
	# With a start time, the milliseconds to the last confirm.
	run python3 "$BATS_TEST_DIRNAME/group-settled.py" 2 2 "$d/describe.json" "$d/log.jsonl" 1000.002
	assert_success
	assert_output 7
	# A confirm from before the rebalance's end does not count.
	glog "$d/log.jsonl" '1 1 JOINED {"tag":1}' '2 2 JOINED {"tag":2}' \
	    '3 2 BEGINREBAL {"timestamp":1005}' \
	    '4 2 REBALOFFER {"own":[],"partitions":[0,1]}' \
	    '5 1 REBALCONFIRM {"partitions":[0]}' \
	    '6 1 REBALOFFER {"own":[],"partitions":[0,1]}' \
	    '7 1 ENDREBAL {}' '8 2 REBALCONFIRM {"partitions":[1]}' \
	    '9 2 ENDREBAL {}'
	run python3 "$BATS_TEST_DIRNAME/group-settled.py" 2 2 "$d/describe.json" "$d/log.jsonl"
	assert_failure
	assert_output "member 1 confirmed [0] at 5 (ENDREBAL at 7), describe: [0]"
}

@test "64 members started at once on a 64-partition topic: all join, each partition owned once, every message read" {
	local i pids=()
	tmq-topic create -k u32 -p 64 ev
	seq 1 6400 | awk '{ print $1 " msg-" $1 }' | tmq-put -K ' ' ev
	seq 1 6400 | sed 's/^/msg-/' >"$BATS_TEST_TMPDIR/want"
	for i in $(seq 64); do
		start_member "m$i"
		pids+=($!)
	done
	wait_for settled 64 64
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
		stop_bg "m$i"
	done
}

# holds_all ID NPARTS: member ID's latest REBALCONFIRM, after the last
# ENDREBAL, holds every partition, and describe says so; prints the
# confirm's timestamp.
holds_all() {
	settled 1 "$2" >/dev/null && python3 - "$1" "$2" "$BATS_TEST_TMPDIR/log.jsonl" <<-'EOF2'
	import json, sys
	key, n = int(sys.argv[1]), int(sys.argv[2])
	last = None
	for l in open(sys.argv[3]):
	    m = json.loads(l)
	    if m["type"] == "~~TWAIN~~REBALCONFIRM" and m["key"] == key:
	        last = m
	if last is None or sorted(last["payload"]["partitions"]) != list(range(n)):
	    sys.exit(1)
	print(last["timestamp"])
	EOF2
}

# commits_forward: in the log, no partition's committed offset ever goes
# back; prints each commit that does.
commits_forward() {
	tmq-dump -J -- --group--G | python3 -c '
import json, sys
last = {}
bad = []
for l in sys.stdin:
    m = json.loads(l)
    if m["type"] != "~~TWAIN~~COMMIT":
        continue
    for p, o in m["payload"]["partition_offsets"]:
        if p in last and o < last[p][0]:
            bad.append("partition %d: %d by member %d at offset %d, after %d by member %d"
                       % (p, o, m["key"], m["offset"], last[p][0], last[p][1]))
        last[p] = (o, m["key"])
print("\n".join(bad))
sys.exit(1 if bad else 0)'
}

@test "a stopped member (SIGSTOP, three times its session timeout) loses its partitions within the timeout; back, it commits nothing over the new owner, and every message is read" {
	local a t0 t1 i
	tmq-topic create -k u32 -p 4 ev
	seq 1 200 | awk '{ print $1 " msg-" $1 }' | tmq-put -K ' ' ev
	seq 1 200 | sed 's/^/msg-/' >"$BATS_TEST_TMPDIR/want"
	start_bg a tmq-get -g G --window 1 --session-timeout 2 --commit -f ev
	a=$(cat "$BATS_TEST_TMPDIR/a.pid")
	wait_for settled 1 4
	wait_for read_all "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/a.out"
	t0=$(date +%s.%N)
	kill -STOP "$a"
	start_bg b tmq-get -g G --window 1 --session-timeout 2 --commit -f ev
	# b holds every partition while a is still stopped, and soon:
	# within a's session timeout (2 s) plus a window (1 s) and the time
	# to see it, from the stop.
	wait_for holds_all 2 4
	t1=$(holds_all 2 4)
	run python3 -c "import sys; d = $t1 - $t0; print('%.1f' % d); sys.exit(not d < 2 + 1 + 2)"
	assert_success
	echo "# handover after SIGSTOP: $output s" >&3
	run describe_state
	refute_output --partial "rebalancing"
	seq 201 400 | awk '{ print $1 " msg-" $1 }' | tmq-put -K ' ' ev
	seq 201 400 | sed 's/^/msg-/' >>"$BATS_TEST_TMPDIR/want"
	wait_for read_all "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/a.out" \
	    "$BATS_TEST_TMPDIR/b.out"
	# Three times the timeout in all, then a runs again.
	python3 -c "import time; time.sleep(max(0, $t0 + 6 - time.time()))"
	kill -CONT "$a"
	seq 401 600 | awk '{ print $1 " msg-" $1 }' | tmq-put -K ' ' ev
	seq 401 600 | sed 's/^/msg-/' >>"$BATS_TEST_TMPDIR/want"
	# a finds out, asks again, and the two share.
	wait_for settled 2 4
	wait_for read_all "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/a.out" \
	    "$BATS_TEST_TMPDIR/b.out"
	stop_bg a
	stop_bg b
	run commits_forward
	assert_success
}

# reads_from PID FILE: PID's standard input is FILE.
reads_from() {
	[ "$(readlink "/proc/$1/fd/0" 2>/dev/null)" = "$2" ]
}

# describe_state: the state line of describe.
describe_state() {
	tmq-group describe G | sed -n 's/^state: *//p'
}

@test "a member blocked on a pipe nobody reads loses its partitions after its session timeout; reading on, it commits nothing over the new owner" {
	tmq-topic create -k u32 -p 4 ev
	# Far more than a pipe holds (tmq-get asks for 1 MiB).
	seq 1 120000 | awk '{ print $1 " message-number-" $1 }' | tmq-put -K ' ' ev
	seq 1 120000 | sed 's/^/message-number-/' >"$BATS_TEST_TMPDIR/want"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	exec 4<>"$BATS_TEST_TMPDIR/fifo"
	tmq-get -g G --window 1 --session-timeout 2 --commit -f ev \
	    >"$BATS_TEST_TMPDIR/fifo" 2>"$BATS_TEST_TMPDIR/a.err" 3>&- 4>&- &
	echo $! >"$BATS_TEST_TMPDIR/a.pid"
	wait_for grep -q pipe_write "/proc/$(cat "$BATS_TEST_TMPDIR/a.pid")/wchan"
	start_bg b tmq-get -g G --window 1 --session-timeout 2 --commit -f ev
	# Before, b got nothing for as long as the pipe stayed full.
	wait_for holds_all 2 4
	wait_for read_all "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/b.out"
	# The reader reads on: a finds out, asks again, and the two share.
	# (our end closed once cat has the FIFO open: a writer must never
	# find it without a reader)
	cat <"$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/drain.out" 3>&- 4>&- &
	echo $! >"$BATS_TEST_TMPDIR/drain.pid"
	wait_for reads_from "$!" "$BATS_TEST_TMPDIR/fifo"
	exec 4>&-
	wait_for settled 2 4
	seq 120001 120400 | awk '{ print $1 " message-number-" $1 }' | tmq-put -K ' ' ev
	seq 120001 120400 | sed 's/^/message-number-/' >>"$BATS_TEST_TMPDIR/want"
	wait_for read_all "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/drain.out" \
	    "$BATS_TEST_TMPDIR/b.out"
	stop_bg a
	stop_bg b
	run commits_forward
	assert_success
}
