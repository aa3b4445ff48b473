#!/usr/bin/env bats
# t0411-fence: a member commits only partitions the group log gives it, as
# the log stands just before its commit goes in, and never below what is
# committed there (tmq-get(1), Fencing): a member on a slow disk that reads
# the end of a rebalance late does not commit what it gave up after its new
# owner committed further.  And a member holds a bounded number of
# descriptors, whatever its partitions (tmq(7)).
#
# Every wait polls for a condition (test_helper's wait_for).

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
	end_bg KILL
}

# require_strace_delay: strace (test_helper), able to delay a call.
require_strace_delay() {
	require_strace
	strace -f -qq -o /dev/null -e trace=read -e inject=read:delay_enter=1 \
	    true || skip "this strace cannot delay system calls (inject=)"
}

# no_backwards [GROUP]: no member's commit in the log is below the offset
# committed for its partition before it.
no_backwards() {
	tmq-dump -J -- "--group--${1:-G}" >"$BATS_TEST_TMPDIR/log.jsonl"
	python3 "$BATS_TEST_DIRNAME/group-backwards.py" <"$BATS_TEST_TMPDIR/log.jsonl"
}

is_committed() {
	[ "$(committed "${2:-G}")" = "$1" ]
}

# A reader that takes its input slowly (4 KiB every 20 ms), as a pipe to a
# busy program does: what the member printed is taken long after.
SLOW_READER='import sys, time
while True:
    b = sys.stdin.buffer.read1(4096)
    if not b:
        break
    sys.stdout.buffer.write(b)
    sys.stdout.flush()
    time.sleep(0.02)'

@test "a member whose reads are slow does not commit what it gave up after its new owner committed further" {
	require_strace_delay
	tmq-topic create -p 2 ev
	seq 1 20000 | awk '{ printf "%d %0100d\n", $1 % 2, $1 }' | tmq-put -K ' ' ev
	# Member 1: every read and pread of it 150 ms late (its disk is
	# slow), its output taken slowly.  member1.pid is tmq-get's own.
	# (LeakSanitizer cannot run under strace: ptrace.)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	start_bg m1 bash -c 'strace -f -qq -o /dev/null -e trace=read,pread64 \
	    -e inject=read,pread64:delay_enter=150000 \
	    bash -c "echo \$\$ >member1.pid; exec tmq-get -g G --window 1 --commit -f ev" |
	    python3 -c "$0" >m1.data' "$SLOW_READER"
	wait_for test -s member1.pid
	track "$(cat member1.pid)"
	# It holds both partitions and has printed some of them.
	wait_for settled 1 2
	wait_for test -s m1.data
	# Member 2 joins: the rebalance gives it one partition, which it
	# reads to its end and commits while member 1 still reads the log.
	start_member m2 --commit
	wait_for settled 2 2
	wait_for is_committed "0=10000 1=10000"
	# Member 1 commits what it keeps, never what it gave up.
	run no_backwards
	assert_success
	assert_output ""
	# Both go cleanly; the group resumes from the higher offsets.
	stop_bg m2
	kill -TERM "$(cat member1.pid)"
	wait "$(cat m1.pid)"
	assert_equal "$(cat m1.err)" ""
	run no_backwards
	assert_success
	assert_output ""
	run is_committed "0=10000 1=10000"
	assert_success
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_output ""
}

@test "a member never commits below what tmq-commit committed; the group resumes there" {
	tmq-topic create ev
	seq 0 1999 | tmq-put ev
	# The member's reader takes one line, then another once told (bash's
	# read takes a pipe byte by byte: taken is exactly what it read).
	start_bg m bash -c 'bash -c "echo \$\$ >member.pid; exec tmq-get -g G --window 1 --commit -f ev" |
	    { read -r l; echo "$l" >first; until [ -e go ]; do sleep 0.05; done
	      read -r l; echo "$l" >second; exec sleep 1000; }'
	wait_for test -s member.pid
	track "$(cat member.pid)"
	wait_for is_committed "0=1"
	# A later step of a pipeline says the group is done up to 1499.
	tmq-commit G 0 1499
	run is_committed "0=1500"
	assert_success
	# The member's reader takes one more line: the member has 2 to
	# commit, below 1500, and commits nothing of it, then or as it goes.
	touch go
	wait_for test -s second
	assert_equal "$(cat second)" 1
	kill -TERM "$(cat member.pid)"
	wait_for gone "$(cat member.pid)"
	run no_backwards
	assert_success
	assert_output ""
	run is_committed "0=1500"
	assert_success
	run --separate-stderr tmq-get -g G --window 1 -n 1 ev
	assert_success
	assert_output 1500
}

@test "a member stopped as it holds the fence lock holds up no rebalance and no commit of the others" {
	tmq-topic create -p 2 ev
	seq 1 200 | awk '{ print $1 % 2 " m" $1 }' | tmq-put -K ' ' ev
	start_member a --commit
	wait_for settled 1 2
	# Someone holds the lock and never lets go (as a member stopped mid-
	# commit would): a POSIX lock, which open file description locks
	# respect.
	start_bg holder python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "r+")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(1000)' "$TMQ_ROOT/--group--G/.tmq/fence" held
	wait_for test -e held
	start_member b --commit
	wait_for settled 2 2
	seq 201 400 | awk '{ print $1 % 2 " m" $1 }' | tmq-put -K ' ' ev
	wait_for is_total_committed 400
	run no_backwards
	assert_success
	# Each says once that it went on without the lock.
	for m in a b; do
		kill -TERM "$(cat "$m.pid")"
		rc=0
		wait "$(cat "$m.pid")" || rc=$?
		run cat "$m.err"
		assert_equal "$rc" 0
		assert_line --partial "group G: --group--G/.tmq/fence held for over 2000 ms (a member stopped as it committed?): going on without it"
		assert_equal "${#lines[@]}" 1
	done
}

# total_committed [GROUP]: the sum of the committed offsets.
total_committed() {
	committed "${1:-G}" | tr ' ' '\n' | awk -F= '{ s += $2 } END { print s + 0 }'
}

is_total_committed() {
	[ "$(total_committed "$2")" = "$1" ]
}

# Run the rest with 20 descriptors, those inherited (beyond 0, 1 and 2)
# closed first.
FEW_FDS='for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; ulimit -n 20'

@test "a member on 256 partitions reads and commits them all with 20 descriptors, and so do three, one killed" {
	tmq-topic create -p 256 ev
	seq 1 2000 | awk '{ print $1 " m" $1 }' | tmq-put -K ' ' ev
	run --separate-stderr bash -c "$FEW_FDS; exec tmq-get -g G --window 1 --commit ev"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 2000
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" 2000
	assert_equal "$(total_committed)" 2000
	# Two following members share them, committing as they go.
	start_bg a bash -c "$FEW_FDS; exec tmq-get -g H --window 1 --commit -f ev"
	start_bg b bash -c "$FEW_FDS; exec tmq-get -g H --window 1 --commit -f ev"
	# A third joins, and is killed: its partitions come back to them.
	start_bg c bash -c "$FEW_FDS; exec tmq-get -g H --window 1 --commit -f ev"
	wait_for settled 3 256 H
	stop_bg c KILL
	wait_for settled 2 256 H
	wait_for is_total_committed 2000 H
	stop_bg a
	stop_bg b
	assert_equal "$(sort -u a.out b.out c.out | wc -l)" 2000
	run --separate-stderr tmq-get -g H --window 1 ev
	assert_success
	assert_output ""
}
