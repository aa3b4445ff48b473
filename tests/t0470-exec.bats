#!/usr/bin/env bats
# t0470-exec: tmq-get -g GROUP --exec CMD, a topic as a work queue: each
# message runs CMD once, its payload on stdin and the message in TMQ_*
# variables (nothing of it reaches a shell's text); --jobs run at once,
# one message of a partition (--order partition) or of a key (--order
# key) at a time; failures retried with a backoff up to --retries, then
# put to --dead-letter (or the member stops, exit 1, uncommitted); each
# partition committed up to its first message not finished; SIGTERM
# drains; a member killed with SIGKILL loses nothing.

load test_helper

teardown() {
	end_bg KILL
	end_mounts
}

# A handler script NAME in the test's directory, its body the rest.
handler() {
	local name=$1
	shift
	printf '#!/bin/sh\n%s\n' "$*" >"$BATS_TEST_TMPDIR/$name"
	chmod +x "$BATS_TEST_TMPDIR/$name"
}

# ev: char16 keys, 2 partitions.
make_ev() {
	tmq-topic create ev -k char16 -p "${1:-2}"
}

@test "each message runs the command once: payload on stdin, the message in the environment" {
	make_ev 1
	printf 'k1\tone\nk2\ttwo\n\tthree\n' | tmq-put -K '\t' ev
	handler h 'printf "%s|%s|%s|%s|%s|%s|%s|" "$TMQ_TOPIC" "$TMQ_PARTITION" \
	    "$TMQ_OFFSET" "$TMQ_KEY" "$TMQ_TYPE" "$TMQ_ATTEMPT" "$TMQ_GROUP"
cat; echo " $TMQ_TIMESTAMP" | grep -q "^ 1[0-9]*\.[0-9]*$" && echo'
	run --separate-stderr tmq-get -g G --exec "$BATS_TEST_TMPDIR/h" ev
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "ev|0|0|k1|str|1|G|one
ev|0|1|k2|str|1|G|two
ev|0|2||str|1|G|three"
	assert_equal "$(committed)" "0=3"
	# Committed: a second run has nothing to do.
	run --separate-stderr tmq-get -g G --exec "$BATS_TEST_TMPDIR/h" ev
	assert_success
	assert_equal "$output" ""
}

@test "--exec splits CMD as xargs does; --shell runs sh -c CMD, the message never in its text" {
	make_ev 1
	printf 'k\tx\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g G --exec "printf '<%s>' 'a b' c\\ d \$TMQ_KEY" ev
	assert_success
	assert_equal "$output" '<a b><c d><$TMQ_KEY>'
	printf 'k\ty\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g G --shell --exec 'echo "$TMQ_KEY $(cat)" "$0"' ev
	assert_success
	assert_equal "$output" 'k y sh'
}

@test "a hostile key, type and payload run nothing" {
	tmq-topic create ev -k char16 -t 'a$(touch t)`touch u`'
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '{"key":"$(touch x)","payload":"p\n$(touch y)\n`touch w`"}' \
	    '{"key":"a\nb;touch v","payload":"x"}' | tmq-put -J ev
	echo '{"x":"$(touch s)"}' | tmq-put -T 'a$(touch t)`touch u`' ev
	run --separate-stderr tmq-get -g G --shell \
	    --exec 'echo "[$TMQ_KEY][$TMQ_TYPE]"; cat >/dev/null' ev
	assert_success
	assert_equal "$output" '[$(touch x)][str]
[a
b;touch v][str]
[][a$(touch t)`touch u`]'
	run --separate-stderr tmq-get -g H --exec 'env' ev
	assert_success
	assert_line 'TMQ_KEY=$(touch x)'
	run ls
	refute_output --regexp '^[stuvwxy]$'
	assert_equal "$(committed H)" "0=3"
}

@test "--jobs N: N commands at once, never more" {
	make_ev 1
	for k in a b c d e f; do printf '%s\tx\n' "$k"; done | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	# Each waits until three run at once (only three jobs get there),
	# counts what runs as it sees them, and goes once the three of its
	# round (offsets 0-2, then 3-5) have counted: a count of other than
	# 3 is a fourth at once, or a round that did not meet.
	handler h 'touch "run.$TMQ_OFFSET"; n=0
until c=$(ls run.* | wc -l); [ "$c" -ge 3 ]; do sleep 0.05; n=$((n+1)); [ $n -lt 1200 ] || exit 9; done
echo "$c" >>counts
r=$(( (TMQ_OFFSET / 3 + 1) * 3 ))
until [ "$(wc -l <counts)" -ge "$r" ]; do sleep 0.05; n=$((n+1)); [ $n -lt 2400 ] || exit 9; done
rm "run.$TMQ_OFFSET"'
	run --separate-stderr timeout 120 tmq-get -g G --jobs 3 --order key \
	    --retries 0 --exec "$BATS_TEST_TMPDIR/h" ev
	# Three at a time: the first three meet, then the next three.
	assert_success
	assert_equal "$(sort -u counts)" 3
	assert_equal "$(wc -l <counts)" 6
	assert_equal "$(committed)" "0=6"
}

@test "--order partition: one message of a partition at a time, partitions side by side" {
	make_ev 2
	tmq-topic partition ev a b >/dev/null
	for i in 1 2 3 4 5 6 7 8; do printf 'k%s\tx\n' "$i"; done | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'mkdir "busy.$TMQ_PARTITION" || echo "two in $TMQ_PARTITION" >>bad
last=$(cat "last.$TMQ_PARTITION" 2>/dev/null || echo -1)
[ "$TMQ_OFFSET" -gt "$last" ] || echo "out of order" >>bad
sleep 0.1; echo "$TMQ_OFFSET" >"last.$TMQ_PARTITION"; rmdir "busy.$TMQ_PARTITION"'
	run --separate-stderr tmq-get -g G --jobs 8 --exec "$BATS_TEST_TMPDIR/h" ev
	assert_success
	[ ! -e bad ]
	assert_equal "$(committed)" "$(tmq-topic info ev --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%d=%d" % (p["partition"], p["end"]) for p in d["partitions"]))')"
}

@test "--order key under --jobs 8: a key's messages one at a time and in order (a handler that checks)" {
	make_ev 1
	for i in $(seq 1 40); do printf 'k%s\t%s\n' $((i % 4)) "$i"; done | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'mkdir "busy.$TMQ_KEY" 2>/dev/null || echo "two of $TMQ_KEY at once" >>bad
p=$(cat); last=$(cat "last.$TMQ_KEY" 2>/dev/null || echo 0)
[ "$p" -gt "$last" ] || echo "$TMQ_KEY: $p after $last" >>bad
touch "run.$TMQ_OFFSET"; sleep 0.0$((TMQ_OFFSET % 7))
[ "$(ls run.* | wc -l)" -gt 1 ] && touch overlapped
echo "$p" >"last.$TMQ_KEY"; echo "$p" >>done; rm "run.$TMQ_OFFSET"; rmdir "busy.$TMQ_KEY"'
	run --separate-stderr tmq-get -g G --jobs 8 --order key --exec "$BATS_TEST_TMPDIR/h" ev
	assert_success
	[ ! -e bad ] || { cat bad; false; }
	assert_equal "$(sort -n done | tr '\n' ' ')" "$(seq 1 40 | tr '\n' ' ')"
	[ -e overlapped ]	# keys did run side by side
	assert_equal "$(committed)" "0=40"
}

@test "a message failing past --retries: dead-lettered after exactly N+1 attempts, committed past, nothing else blocked" {
	make_ev 1
	tmq-topic create dead -k char16
	printf 'ok1\ta\nbad\tb\nok2\tc\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'echo "$TMQ_OFFSET $TMQ_ATTEMPT" >>attempts; echo "oops $TMQ_ATTEMPT" >&2
[ "$TMQ_KEY" != bad ]'
	run --separate-stderr tmq-get -g G --order key --retries 2 --backoff 0.1s,0.2s \
	    --dead-letter dead --exec "$BATS_TEST_TMPDIR/h" ev
	assert_success
	assert_equal "$(grep -c '^1 ' attempts)" 3
	assert_equal "$(grep '^1 ' attempts | tr '\n' ' ')" "1 1 1 2 1 3 "
	assert_equal "$(grep -vc '^1 ' attempts)" 2
	assert_equal "$(committed)" "0=3"
	assert_equal "$(grep -c '^tmq-get: ev: partition 0 offset 1: exit 1: retry [12] of 2 in 0.[12]s$' <<<"$stderr")" 2
	assert_equal "$(grep -c '^tmq-get: ' <<<"$stderr")" 3
	assert_equal "$(grep -c '^oops [123]$' <<<"$stderr")" 5
	grep -qx 'tmq-get: ev: partition 0 offset 1: exit 1 after 3 attempts: dead-lettered to dead' <<<"$stderr"
	run tmq-get -F '%k %s' dead
	assert_success
	python3 -c '
import json, sys
line = sys.argv[1]
key, _, js = line.partition(" ")
d = json.loads(js)
assert key == "bad", key
want = {"topic": "ev", "partition": 0, "offset": 1, "key": "bad",
    "type": "str", "payload": "b", "group": "G", "status": "exit 1",
    "exit": 1, "signal": None, "timed_out": False, "attempts": 3,
    "stderr": "oops 3\n"}
for k, v in want.items():
    assert d[k] == v, (k, d[k], v)
assert d["last_attempt"].endswith("Z")
' "$output"
	# Sent back: it runs again.
	tmq-get dead | tmq-put -J ev
	handler h2 'cat; echo " $TMQ_KEY"'
	run --separate-stderr tmq-get -g G --exec "$BATS_TEST_TMPDIR/h2" ev
	assert_success
	assert_output "b bad"
}

@test "without --dead-letter, a message failing past its retries stops the member with exit 1, uncommitted" {
	make_ev 1
	printf 'a\t1\nbad\t2\nc\t3\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'echo "$TMQ_OFFSET" >>ran; [ "$TMQ_KEY" != bad ]'
	run --separate-stderr tmq-get -g G --retries 1 --backoff 0.1s --exec "$BATS_TEST_TMPDIR/h" ev
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0 offset 1: exit 1: retry 1 of 1 in 0.1s
tmq-get: ev: partition 0 offset 1: exit 1 after 2 attempts, and no --dead-letter: not committed"
	assert_equal "$(tr '\n' ' ' <ran)" "0 1 1 "
	assert_equal "$(committed)" "0=1"
	# Run again: the failed one first.
	run --separate-stderr tmq-get -g G --retries 0 --exec "$BATS_TEST_TMPDIR/h" ev
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0 offset 1: exit 1 after 1 attempt, and no --dead-letter: not committed"
	assert_equal "$(committed)" "0=1"
}

@test "a dead letter that cannot be put commits nothing past its message" {
	make_ev 1
	tmq-topic create dead -k u32
	printf 'a\t1\nbad\t2\nc\t3\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g G --retries 0 --dead-letter dead --shell \
	    --exec '[ "$TMQ_KEY" != bad ]' ev
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0 offset 1: dead letter: dead: key 'bad' is not an unsigned integer"
	assert_equal "$(committed)" "0=1"
	assert_equal "$(tmq-get dead)" ""
}

@test "a dead letter put to a full disk commits nothing past its message, says so, exit 1; once there is room it goes" {
	local fs
	make_ev 1
	tmq-topic create dead -k char16
	# The dead letter topic's directory a small file system, full.
	fs=$TMQ_ROOT/dead
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a small tmpfs)"
	mount_tmpfs "$fs" 64k || skip "cannot mount a tmpfs here"
	head -c 65536 /dev/zero >"$fs/filler" 2>/dev/null || :
	printf 'a\t1\nbad\t2\nc\t3\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g G --retries 0 --dead-letter dead --shell \
	    --exec '[ "$TMQ_KEY" != bad ]' ev
	assert_failure 1
	assert_regex "$stderr" '^tmq-get: ev: partition 0 offset 1: dead letter: dead: partition 0: write failed: No space left on device; no dead letter was written$'
	assert_equal "$(committed)" "0=1"
	rm "$fs/filler"
	run --separate-stderr tmq-get -g G --retries 0 --dead-letter dead --shell \
	    --exec '[ "$TMQ_KEY" != bad ]' ev
	assert_success
	assert_equal "$(committed)" "0=3"
	assert_equal "$(tmq-get -F '%k %o\n' dead)" "bad 0"
}

@test "--timeout: a command that never ends is sent SIGTERM, one deaf to it SIGKILL, and fails" {
	make_ev 1
	tmq-topic create dead -k char16
	printf 'a\t1\nb\t2\n' | tmq-put -K '\t' ev
	run --separate-stderr timeout 120 tmq-get -g G --retries 0 --timeout 1 \
	    --dead-letter dead --shell --exec '[ "$TMQ_KEY" = a ] && exec sleep 1000
trap "" TERM; sleep 1000' ev
	assert_success
	grep -qx 'tmq-get: ev: partition 0 offset 0: signal TERM (timeout) after 1 attempt: dead-lettered to dead' <<<"$stderr"
	grep -qx 'tmq-get: ev: partition 0 offset 1: signal KILL (timeout) after 1 attempt: dead-lettered to dead' <<<"$stderr"
	assert_equal "$(tmq-get -F '%k\n' dead | tr '\n' ' ')" "a b "
	assert_equal "$(committed)" "0=2"
}

@test "standard output passes through a whole line at a time, never mixed" {
	make_ev 1
	for i in $(seq 1 12); do printf 'k%s\tx\n' "$i"; done | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g G --jobs 6 --order key --shell \
	    --exec 'printf "<%s" "$TMQ_OFFSET"; sleep 0.1; printf "%s>\n" "$TMQ_OFFSET"; printf "tail%s" "$TMQ_OFFSET"' ev
	assert_success
	assert_equal "${#lines[@]}" 24
	for l in "${lines[@]}"; do
		[[ $l =~ ^\<([0-9]+)([0-9]+)\>$ && ${BASH_REMATCH[1]} = "${BASH_REMATCH[2]}" ]] ||
		    [[ $l =~ ^\<([0-9]+)\>$ ]] || [[ $l =~ ^tail[0-9]+$ ]] ||
		    { echo "mixed: $l"; false; }
	done
	assert_equal "$(grep -c '^tail' <<<"$output")" 12
}

@test "SIGTERM: nothing new starts, what runs finishes and is committed, the group left" {
	make_ev 1
	for i in $(seq 1 20); do printf 'k%s\tx\n' "$i"; done | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'touch "start.$TMQ_OFFSET"; sleep 0.5; echo "$TMQ_OFFSET" >>done'
	start_bg m tmq-get -g G -f --jobs 2 --order key --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for test -e start.3
	stop_bg m TERM
	n=$(wc -l <done)
	# What started, finished; nothing after the stop.
	assert_equal "$(ls start.* | wc -l)" "$n"
	assert_equal "$(committed)" "0=$n"
	run tmq-group describe G
	assert_line --regexp '^members: +0$'
}

@test "SIGTERM past --drain-timeout: the commands are ended and left uncommitted" {
	make_ev 1
	printf 'a\t1\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'touch started; exec sleep 1000'
	start_bg m tmq-get -g G -f --drain-timeout 0.5s --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for test -e started
	pid=$(cat m.pid)
	kill -TERM "$pid"
	wait "$pid"
	rm m.pid
	! pgrep -f 'sleep 1000' -P "$pid"
	assert_equal "$(cat m.err)" ""
	assert_equal "$(committed)" "0=0"
}

# lines_at_least FILE N: FILE has N lines or more; runs_of FILE LINE N:
# LINE is in FILE N times or more.
lines_at_least() {
	[ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ]
}
runs_of() {
	[ "$(grep -cx "$2" "$1" 2>/dev/null)" -ge "$3" ]
}

# rebalancing_with N: G is in a rebalance, N members in it.
rebalancing_with() {
	local out
	out=$(tmq-group describe G) &&
	    grep -q '^state: *rebalancing' <<<"$out" &&
	    grep -qx "members: *$1" <<<"$out"
}

# committed_is OFFSETS: G has committed OFFSETS ("P=O ...").
committed_is() {
	[ "$(committed)" = "$1" ]
}

# running N: member 1 of G says it runs N messages.
running() {
	[ "$(tmq-group describe --json G | python3 -c '
import json, sys
print(len(json.load(sys.stdin)["exec"]["1"]["running"]))')" = "$1" ]
}

# stable_with N: G is stable with N members.
stable_with() {
	local out
	out=$(tmq-group describe G) &&
	    grep -qx 'state: *stable' <<<"$out" &&
	    grep -qx "members: *$1" <<<"$out"
}

@test "a rebalance waits for the commands running: they finish and are committed before a partition moves, and no message runs twice" {
	make_ev 2
	# One message a partition (keys found to go to 0 and to 1).
	printf 'a\tx\nb\tx\nc\tx\nd\tx\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'echo "$TMQ_PARTITION $TMQ_OFFSET" >>started
while [ ! -e release ]; do sleep 0.05; done
echo "$TMQ_PARTITION $TMQ_OFFSET" >>finished'
	start_bg a tmq-get -g G -f --jobs 4 --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for stable_with 1
	wait_for grep -q '^0 0$' started
	wait_for grep -q '^1 0$' started
	start_bg b tmq-get -g G -f --jobs 4 --exec "$BATS_TEST_TMPDIR/h" ev
	# b's rebalance waits for a's offer, a for its commands.
	wait_for rebalancing_with 2
	touch release
	wait_for stable_with 2

	printf 'a\ty\nb\ty\nc\ty\nd\ty\n' | tmq-put -K '\t' ev
	wait_for lines_at_least finished 8
	stop_bg b TERM
	stop_bg a TERM
	# Every message ran once, by one member or the other.
	assert_equal "$(sort started | uniq -d)" ""
	assert_equal "$(wc -l <started)" 8
	assert_equal "$(sort finished | uniq -d)" ""
	assert_equal "$(cat a.err b.err)" ""
	assert_equal "$(committed)" "$(tmq-topic info ev --ends | tr ',' ' ')"
}

@test "a rebalance past --drain-timeout: the member offers, ends the command of the partition it loses, says so, and the new owner runs it again" {
	make_ev 2
	printf 'a\tx\nd\tx\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'echo "$TMQ_PARTITION $TMQ_OFFSET" >>started
while [ ! -e release ]; do sleep 0.05; done
echo "$TMQ_PARTITION $TMQ_OFFSET" >>finished'
	start_bg a tmq-get -g G -f --jobs 4 --drain-timeout 0.5s \
	    --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for lines_at_least started 2
	start_bg b tmq-get -g G -f --jobs 4 --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for stable_with 2
	wait_for grep -q 'moved' a.err
	run cat a.err
	assert_output --regexp '^tmq-get: ev: partition ([01]) offset 0: the partition moved while it ran: ended, left to its new owner$'
	moved=${BASH_REMATCH[1]}
	# The new owner runs it again, from the start.
	wait_for runs_of started "$moved 0" 2
	touch release
	wait_for lines_at_least finished 2
	stop_bg b TERM
	# (a's stderr holds the line above: stop_bg would want none.)
	pid=$(cat a.pid)
	kill -TERM "$pid"
	wait "$pid"
	rm a.pid
	assert_equal "$(wc -l <a.err)" 1
	assert_equal "$(sort -u finished | wc -l)" 2
	assert_equal "$(committed)" "0=1 1=1"
}

@test "describe and list --prometheus show each member's commands: run, retried, dead-lettered, and the messages running" {
	make_ev 2
	tmq-topic create dead -k char16
	# d to partition 0; a, b to partition 1 (tmq-topic partition): 3 messages.
	printf 'd\tx\na\tx\nb\tx\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	# Offset 0 of each partition waits for release; partition 1's
	# offset 1 fails every time (retried once, then dead-lettered).
	handler h '[ "$TMQ_PARTITION $TMQ_OFFSET" = "1 1" ] && exit 4
[ "$TMQ_OFFSET" = 0 ] || exit 0
while [ ! -e release ]; do sleep 0.05; done'
	start_bg a tmq-get -g G -f --jobs 4 --retries 1 --backoff 0.1s \
	    --dead-letter dead --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for stable_with 1
	wait_for running 2
	run tmq-group describe G
	assert_line --regexp '^MEMBER +COMMANDS-RUN +RETRIED +DEAD-LETTERED$'
	assert_line --regexp '^1 +2 +0 +0$'
	assert_line --regexp '^MEMBER +PARTITION +OFFSET +ATTEMPT +RUNNING-FOR$'
	assert_line --regexp '^1 +0 +0 +1 +[0-9]+\.[0-9]s$'
	assert_line --regexp '^1 +1 +0 +1 +[0-9]+\.[0-9]s$'
	run tmq-group list --prometheus
	assert_line 'tmq_group_exec_running{group="G",topic="ev",member="1"} 2'
	assert_line '# TYPE tmq_group_exec_commands_total counter'
	assert_line 'tmq_group_exec_commands_total{group="G",topic="ev",member="1"} 2'
	touch release
	wait_for committed_is "0=1 1=2"
	wait_for running 0
	run tmq-group describe --json G
	assert_success
	assert_equal "$(python3 -c '
import json, sys
x = json.loads(sys.argv[1])["exec"]["1"]
print(x["run"], x["retried"], x["dead_lettered"], x["running"])' "$output")" "4 1 1 []"
	run tmq-group describe G
	refute_line --regexp '^MEMBER +PARTITION +OFFSET'
	run tmq-group list --prometheus
	assert_line 'tmq_group_exec_retries_total{group="G",topic="ev",member="1"} 1'
	assert_line 'tmq_group_exec_dead_letters_total{group="G",topic="ev",member="1"} 1'
	assert_line 'tmq_group_exec_running{group="G",topic="ev",member="1"} 0'
	stop_bg a INT
	# A member gone shows no commands.
	run tmq-group describe G
	refute_line --regexp '^MEMBER +COMMANDS-RUN'
	run tmq-group list --prometheus
	refute_output --partial tmq_group_exec_
}

@test "tmq-group wait on a --exec member's group returns once its commands have finished and been committed" {
	make_ev 2
	printf 'a\t1\nb\t2\nc\t3\nd\t4\n' | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'while [ ! -e release ]; do sleep 0.05; done; echo "$TMQ_PARTITION $TMQ_OFFSET" >>done'
	start_bg m tmq-get -g G -f --jobs 4 --exec "$BATS_TEST_TMPDIR/h" ev
	wait_for stable_with 1
	run --separate-stderr tmq-group wait --timeout 0.5s G
	assert_failure 1
	touch release
	run --separate-stderr tmq-group wait --timeout 60s G
	assert_success
	assert_equal "$(wc -l <done)" 4
	assert_equal "$(committed)" "$(tmq-topic info ev --ends | tr ',' ' ')"
	stop_bg m TERM
}

# ran_at_least N: the file ran has N lines or more.
ran_at_least() {
	[ "$(cat ran 2>/dev/null | wc -l)" -ge "$1" ]
}

@test "a member killed with SIGKILL and started again loses nothing" {
	make_ev 2
	for i in $(seq 1 40); do printf 'k%s\t%s\n' $((i % 5)) "$i"; done | tmq-put -K '\t' ev
	cd "$BATS_TEST_TMPDIR"
	handler h 'sleep 0.0$((TMQ_OFFSET % 5)); [ $((TMQ_OFFSET % 4)) != 1 ] || [ "$TMQ_ATTEMPT" -gt 1 ] || exit 3
p=$(cat); echo "$p" >>ran'
	for round in 1 2 3; do
		start_bg m tmq-get -g G -f --jobs 4 --order key --backoff 0.1s \
		    --exec "$BATS_TEST_TMPDIR/h" ev
		wait_for ran_at_least $((round * 8))
		stop_bg m KILL
	done
	run --separate-stderr tmq-get -g G --jobs 4 --order key --backoff 0.1s \
	    --exec "$BATS_TEST_TMPDIR/h" ev
	assert_success
	# (A command left running by a killed member may have read its
	# payload cut short: an empty line, uncommitted, run again.)
	assert_equal "$(grep . ran | sort -un | tr '\n' ' ')" "$(seq 1 40 | tr '\n' ' ')"
	assert_equal "$(committed)" "$(tmq-topic info ev --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%d=%d" % (p["partition"], p["end"]) for p in d["partitions"]))')"
}

@test "-n N runs N messages; --until and --from start|now bound the reading as without --exec; --commit is taken, the same" {
	make_ev 1
	printf 'a\t1\nb\t2\nc\t3\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g G -n 2 --exec cat ev
	assert_success
	assert_equal "$output" "1
2"
	assert_equal "$(committed)" "0=2"
	run --separate-stderr tmq-get -g N -o now --exec cat ev
	assert_success
	assert_output ""
	# --commit is what --exec does anyway: taken, the same.
	run --separate-stderr tmq-get -g G --commit --exec cat ev
	assert_success
	assert_equal "$output" 3
	assert_equal "$(committed)" "0=3"
	# --until: what was put after it is not run.
	t=$(date +%s.%N)
	printf 'd\t4\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get -g U --until "@$t" --exec cat ev
	assert_success
	assert_equal "$output" "1
2
3"
	assert_equal "$(committed U)" "0=3"
}

@test "errors: usage, a command not found, a bad command line, a dead letter topic missing" {
	make_ev 1
	printf 'a\t1\n' | tmq-put -K '\t' ev
	run --separate-stderr tmq-get --exec cat ev
	assert_usage_error tmq-get "--exec needs -g"
	run --separate-stderr tmq-get -g G --jobs 2 ev
	assert_usage_error tmq-get "--shell, --jobs, --order, --retries, --backoff, --timeout, --dead-letter and --drain-timeout need --exec"
	run --separate-stderr tmq-get -g G -J --exec cat ev
	assert_usage_error tmq-get "--exec prints no messages: -J, -K, -F and -0 do not go with it"
	run --separate-stderr tmq-get -g G --exec cat --order time ev
	assert_usage_error tmq-get "--order: time: not partition or key"
	run --separate-stderr tmq-get -g G --exec cat --backoff 5s,1s ev
	assert_usage_error tmq-get "--backoff: 5s,1s: the backoff must be more than 0 and at most its MAX"
	run --separate-stderr tmq-get -g G --exec cat --jobs 0 ev
	assert_equal "$status" 2
	run --separate-stderr tmq-get -g G --exec "cat 'x" ev
	assert_fails_with "tmq-get: --exec: unmatched single quote in the command"
	run --separate-stderr tmq-get -g G --exec cat --dead-letter nope ev
	assert_fails_with "tmq-get: --dead-letter: nope: no such topic"
	run --separate-stderr tmq-get -g G --exec /nonexistent/cmd ev
	assert_fails_with "tmq-get: /nonexistent/cmd: No such file or directory"
	assert_equal "$(committed)" "0=0"
}
