#!/usr/bin/env bats
# t0735-frozen-reader: a reader that stops, hangs or is frozen in the
# middle of a read never stops a producer (issue 19 item 3; tmq(7), Shared
# file systems).  The locked, direct ways that a network filesystem gets
# are forced on the local disk (TMQ_APPEND=lock, TMQ_READ=direct), and a
# reader is held inside its read of a partition file by strace, which
# delays that pread(2) for ten minutes: a reader that held a lock for its
# reads would hold it all that time.  Then the same for readers stopped
# with SIGSTOP at random moments while they catch up.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	export TMQ_APPEND=lock TMQ_READ=direct
	# O_DIRECT, which the direct reads need (a tmpfs has none: there a
	# reader reads as on any local disk, and the test shows nothing).
	dd if=/dev/zero of="$BATS_TEST_TMPDIR/odirect" bs=4096 count=1 \
	    oflag=direct 2>/dev/null ||
	    skip "no O_DIRECT in $BATS_TEST_TMPDIR"
	command -v strace >/dev/null || skip "no strace (Debian's strace)"
}

teardown() {
	end_bg KILL
}

# held NAME FILE COMMAND...: run COMMAND in the background (start_bg NAME)
# under strace, its first pread(2) of FILE delayed ten minutes; return once
# it is inside that read.  NAME.pid is strace's; the command is tracked.
held() {
	local name=$1 file=$2 pid
	shift 2
	start_bg "$name" strace -qq -o "$BATS_TEST_TMPDIR/$name.trace" \
	    -P "$file" -e trace=pread64 -e inject=pread64:delay_enter=600s "$@"
	pid=$(cat "$BATS_TEST_TMPDIR/$name.pid")
	wait_for grep -q '^pread64(' "$BATS_TEST_TMPDIR/$name.trace"
	track "$(pgrep -P "$pid")"
}

# No lock of any kind is held on FILE (by its inode in /proc/locks).
no_lock_on() {
	local ino
	ino=$(stat -c %i "$1")
	run grep -E ":$ino " /proc/locks
	assert_failure
}

@test "a follower held inside its read of a partition file holds no lock: a producer gets through" {
	tmq-topic create t -p 1
	seq 1000 | tmq-put t
	local file
	file=$(echo "$TMQ_ROOT"/t/0-*.tmf)
	held reader "$file" tmq-get -f t
	no_lock_on "$file"
	start_bg put sh -c 'echo after | tmq-put t'
	wait_for gone "$(cat "$BATS_TEST_TMPDIR/put.pid")"
	stop_bg put KILL || :
	assert_equal "$(cat "$BATS_TEST_TMPDIR/put.err")" ""
	run -0 tmq-get -o -1 t
	assert_output after
}

@test "tmq-group describe held inside its read of a group's log: a commit gets through" {
	tmq-topic create t -p 2
	seq 100 | tmq-put t
	tmq-get -g G -n 10 t >/dev/null
	local file
	file=$(ls "$TMQ_ROOT"/--group--G/*.tmf | tail -1)
	held describe "$file" tmq-group describe G
	no_lock_on "$file"
	run -0 tmq-commit G 0 50
	run -0 tmq-group describe G
	assert_line --regexp '^0 +51 '
}

@test "followers stopped with SIGSTOP at 10 moments of catching up: a producer gets through every time" {
	tmq-topic create t -p 1
	awk 'BEGIN { for (i = 0; i < 300000; i++) printf "record %d %s\n", i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }' |
	    tmq-put t
	local try pid n
	for try in $(seq 10); do
		start_bg "f$try" tmq-get -f t
		pid=$(cat "$BATS_TEST_TMPDIR/f$try.pid")
		# Stopped once it has read some, at a moment of its own.
		wait_for test -s "$BATS_TEST_TMPDIR/f$try.out"
		kill -STOP "$pid"
		no_lock_on "$(echo "$TMQ_ROOT"/t/0-*.tmf)"
		start_bg "p$try" sh -c "echo put-$try | tmq-put t"
		wait_for gone "$(cat "$BATS_TEST_TMPDIR/p$try.pid")"
		stop_bg "p$try" KILL || :
		stop_bg "f$try" KILL || :
	done
	run -0 tmq-get -o -10 t
	n=$(printf '%s\n' "$output" | grep -c '^put-')
	assert_equal "$n" 10
}
