#!/usr/bin/env bats
# t0435-group-wait: tmq-group wait GROUP [--timeout DURATION], a barrier
# for cron stages.  It exits 0 once the group has committed every
# partition up to the end it had when the wait began (what is put later is
# not waited for), and on timeout prints the lag left per partition and
# exits 1.  It sleeps on inotify (one poll with no timeout, not a poll
# every so often) and wakes on the commit; with TMQ_FOLLOW=poll, as on a
# shared filesystem, it looks every 50 ms instead.  A group the TwainMQ
# library made is named with its topic (-t), and its members' commits end
# the wait as tmq's do.

load test_helper

teardown() {
	end_bg KILL
}

# A topic ev (u32, 3 partitions) with 30 messages, and a group G made at
# its start that has read nothing.
make_ev() {
	tmq-topic create ev -k u32 -p 3
	seq 1 30 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	tmq-get -g G --window 1 -P 0 -n 1 ev >/dev/null
}

# start_wait NAME ARGS...: tmq-group wait ARGS... in the background, its
# output in NAME.out and NAME.err, its pid in NAME.pid and $pid.
start_wait() {
	local name=$1
	shift
	tmq-group wait "$@" >"$BATS_TEST_TMPDIR/$name.out" \
	    2>"$BATS_TEST_TMPDIR/$name.err" 3>&- &
	pid=$!
	echo "$pid" >"$BATS_TEST_TMPDIR/$name.pid"
}

# watching PID: the wait has fixed its targets and sleeps on inotify
# (it makes its inotify descriptor once the targets are known).
watching() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:inotify'
}

# finish NAME: wait for it; its exit status in $status.
finish() {
	status=0
	wait "$(cat "$BATS_TEST_TMPDIR/$1.pid")" || status=$?
	rm -f "$BATS_TEST_TMPDIR/$1.pid"
}

@test "wait: a group that has committed everything returns at once, silent" {
	make_ev
	tmq-get -g G --window 1 --commit ev >/dev/null
	run --separate-stderr tmq-group wait G
	assert_success
	assert_output ""
	assert_stderr ""
	# So does a topic with nothing in it.
	tmq-topic create empty -p 2
	tmq-get -g E --window 1 empty >/dev/null
	run --separate-stderr tmq-group wait E --timeout 0
	assert_success
	assert_output ""
}

@test "wait blocks until the group commits what its topic held, then exits 0" {
	make_ev
	start_wait w G
	wait_for watching "$pid"
	# Half of it: still waiting.
	tmq-get -g G --window 1 --commit -n 15 ev >/dev/null
	kill -0 "$pid"
	tmq-get -g G --window 1 --commit ev >/dev/null
	finish w
	assert_equal "$status" 0
	assert_equal "$(cat "$BATS_TEST_TMPDIR/w.out" "$BATS_TEST_TMPDIR/w.err")" ""
}

@test "wait: what is put after the wait began is not waited for" {
	make_ev
	local ends
	ends=$(tmq-topic info --ends ev)
	start_wait w G --timeout 10m
	wait_for watching "$pid"
	seq 31 60 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	# Commit each partition up to where it ended before: the ends of
	# then, not of now.
	tr , '\n' <<<"$ends" | awk -F= '$2 > 0 { print $1, $2 - 1 }' | tmq-commit G
	finish w
	assert_equal "$status" 0
	run tmq-group describe --json G
	[[ $output == *'"total_lag":30,'* ]]
}

@test "wait --timeout: the lag left per partition on stdout, exit 1" {
	make_ev
	printf '0 3\n2 8\n' | tmq-commit G
	run --separate-stderr tmq-group wait G --timeout 0.2
	assert_failure 1
	assert_output "PARTITION CURRENT-OFFSET  TARGET-OFFSET          LAG
0                      4              7            3
1                      0             14           14
2                      9              9            0"
	assert_stderr "tmq-group: G: timed out: 17 messages in 2 partitions not committed yet"
	run --separate-stderr tmq-group wait G --timeout 0
	assert_failure 1
	run --separate-stderr tmq-group wait G --timeout 1s
	assert_failure 1
	assert_stderr "tmq-group: G: timed out: 17 messages in 2 partitions not committed yet"
}

@test "wait sleeps on inotify: one poll without a timeout, however long it waits" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true ||
	    skip "strace cannot trace here (ptrace not permitted)"
	make_ev
	# (LeakSanitizer cannot run under ptrace.)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -e trace=poll,ppoll -o "$BATS_TEST_TMPDIR/trace" \
	    tmq-group wait G >/dev/null 2>&1 3>&- &
	pid=$!
	echo "$pid" >"$BATS_TEST_TMPDIR/st.pid"
	wait_for grep -q 'poll(.*POLLIN.*, 1, -1' "$BATS_TEST_TMPDIR/trace"
	before=$(log_length)
	tmq-get -g G --window 1 --commit ev >/dev/null
	finish st
	assert_equal "$status" 0
	# Every poll waits without a timeout and is woken by the log: one to
	# begin with, then at most one for each line the member wrote (its
	# join, rebalance, commit and leave: a busy machine wakes the wait for
	# more of them, an idle one for fewer).
	written=$(($(log_length) - before))
	[ "$written" -ge 3 ]
	run grep -c poll "$BATS_TEST_TMPDIR/trace"
	[ "$output" -ge 2 ] && [ "$output" -le $((written + 1)) ]
	run grep -c 'poll(.*, -1) = 1 ' "$BATS_TEST_TMPDIR/trace"
	assert_output "$(grep -c poll "$BATS_TEST_TMPDIR/trace")"
	run grep -c 'Timeout' "$BATS_TEST_TMPDIR/trace"
	assert_output 0
}

@test "wait with TMQ_FOLLOW=poll (a shared filesystem's way) looks every 50 ms and sees the commit" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true ||
	    skip "strace cannot trace here (ptrace not permitted)"
	make_ev
	TMQ_FOLLOW=poll \
	    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -e trace=poll,ppoll \
	    -o "$BATS_TEST_TMPDIR/trace" tmq-group wait G >/dev/null 2>&1 3>&- &
	pid=$!
	echo "$pid" >"$BATS_TEST_TMPDIR/st.pid"
	wait_for bash -c '[ "$(grep -c "poll(NULL, 0, 50)" "$1")" -ge 2 ]' _ \
	    "$BATS_TEST_TMPDIR/trace"
	tmq-get -g G --window 1 --commit ev >/dev/null
	finish st
	assert_equal "$status" 0
	run --separate-stderr env TMQ_FOLLOW=often tmq-group wait G
	assert_fails_with "tmq-group: TMQ_FOLLOW='often': want auto or poll"
}

@test "wait: the group deleted meanwhile is an error" {
	make_ev
	start_wait w G
	wait_for watching "$pid"
	tmq-group delete -y G
	finish w
	assert_equal "$status" 1
	assert_equal "$(cat "$BATS_TEST_TMPDIR/w.err")" "tmq-group: group G was deleted"
}

@test "wait: a group of the TwainMQ library is named with its topic, and its member's commit ends the wait" {
	require_ref
	tmq-topic create ev -k u32 -p 3
	seq 1 30 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	# The library's consumer makes the group, reads 5 and commits.
	local py='
import contextlib, datetime, io, sys, time
import twainmq, twainmq.consumer
twainmq.consumer.REBAL_LENGTH = datetime.timedelta(seconds=1)
c = twainmq.Twain(sys.argv[1]).consumer("ev", start_from="start", group="pyg")
want, got, end = int(sys.argv[2]), 0, time.time() + 60
while got < want and time.time() < end:
    m = c.poll()
    if m is None:
        time.sleep(0.05)
        continue
    got += 1
with contextlib.redirect_stdout(io.StringIO()):
    c.commit()
print(got)'
	run python3 -c "$py" "$TMQ_ROOT" 5
	assert_output 5
	run --separate-stderr tmq-group wait pyg
	assert_fails_with "tmq-group: pyg: the group's topic is not recorded: name it with -t"
	run --separate-stderr tmq-group wait pyg -t ev --timeout 0
	assert_failure 1
	assert_stderr "tmq-group: pyg: timed out: 25 messages in 3 partitions not committed yet"
	start_wait w pyg -t ev
	wait_for watching "$pid"
	run python3 -c "$py" "$TMQ_ROOT" 25
	assert_output 25
	finish w
	assert_equal "$status" 0
}

@test "wait: usage errors and a group that is not there" {
	make_ev
	run --separate-stderr tmq-group wait
	assert_usage_error tmq-group "wait: missing group"
	run --separate-stderr tmq-group wait G --timeout 5x
	assert_usage_error tmq-group "--timeout: '5x': bad duration (want seconds, or numbers with units w, d, h, m and s, longest first: 90s, 10m, 1.5h, 1h30m, 1d, 1w)"
	run --separate-stderr tmq-group wait G --timeout -1
	assert_usage_error tmq-group "--timeout: '-1': bad duration (want seconds, or numbers with units w, d, h, m and s, longest first: 90s, 10m, 1.5h, 1h30m, 1d, 1w)"
	run --separate-stderr tmq-group describe G --timeout 1
	assert_usage_error tmq-group "--timeout is for wait, not describe"
	run --separate-stderr tmq-group wait nosuch
	assert_fails_with "tmq-group: nosuch: no such group"
	run --separate-stderr tmq-group wait G -t other
	assert_fails_with "tmq-group: group G consumes topic ev, not other"
}
