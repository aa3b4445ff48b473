#!/usr/bin/env bats
# t0410-commit-taken: tmq-get -g --commit commits what the reader took, not
# what was written: a pipe holds what its reader may never read.  Readers
# that take an exact number of lines (bash's read takes a pipe byte by
# byte), head -n, a slow reader, a reader killed mid-stream, a Unix socket,
# and a file (written is taken).
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

# has_lines FILE N: FILE has N lines.
has_lines() {
	[ -e "$1" ] && [ "$(wc -l <"$1")" -eq "$2" ]
}

# is_committed WANT [GROUP]: the group's committed offsets are WANT.
is_committed() {
	[ "$(committed "${2:-G}")" = "$1" ]
}

# total_committed [GROUP]: the sum of the committed offsets.
total_committed() {
	committed "${1:-G}" | tr ' ' '\n' | awk -F= '{ s += $2 } END { print s + 0 }'
}

# Topic ev with N messages (1 partition unless P given), each line of
# output exactly 101 bytes: a 100-digit payload and the newline.
make_topic() {
	tmq-topic create -p "${2:-1}" ev
	seq 1 "$1" | awk '{ printf "%d %0100d\n", $1, $1 }' | tmq-put -K ' ' ev
}

@test "--commit | head -n 2: commits what head read from the pipe, not what was written" {
	make_topic 2000 4
	run --separate-stderr bash -c 'tmq-get -g G --window 1 --commit ev | head -n 2 | wc -l; echo "${PIPESTATUS[0]}"'
	# A reader that goes away is no error: quiet, SIGPIPE, as without -g.
	assert_output $'2\n141'
	assert_equal "$stderr" ""
	# head reads a buffer (8 KiB with coreutils) and prints 2 lines of it:
	# the messages whose last byte it read are committed, no more (64 KiB,
	# far more than head takes, is 648 lines), and at least the 2.
	total=$(total_committed)
	[ "$total" -ge 2 ]
	[ "$total" -le 648 ]
	# The group goes on exactly after them: nothing lost, nothing twice.
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_equal "${#lines[@]}" $((2000 - total))
}

@test "--commit: a reader that takes exactly 2 lines gets exactly 2 committed" {
	make_topic 2000 4
	run --separate-stderr bash -c 'tmq-get -g G --window 1 --commit ev | { read -r a; read -r b; }'
	assert_equal "$stderr" ""
	run total_committed
	assert_output 2
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_equal "${#lines[@]}" 1998
}

@test "--commit: a slow reader gets committed what it has taken; tmq-get waits for it to take the rest" {
	make_topic 100
	# The reader takes 3 lines, then waits for "go", then takes the rest.
	(
		echo "$BASHPID" >get.pid
		exec tmq-get -g G --window 1 --commit ev 2>get.err
	) | (
		for i in 1 2 3; do read -r l && echo "$l"; done >took
		while [ ! -e go ]; do sleep 0.05; done
		cat >>took
	) 3>&- &
	wait_for has_lines took 3
	# Committed while it waits: the 3, and only the 3, though all 100 were
	# written and the topic is read to its end.
	wait_for is_committed "0=3"
	run gone "$(cat get.pid)"
	assert_failure
	run committed
	assert_output "0=3"
	touch go
	wait_for gone "$(cat get.pid)"
	wait_for has_lines took 100
	run committed
	assert_output "0=100"
	[ ! -s get.err ]
}

@test "--commit: a reader killed mid-stream: what it took is committed, the rest is read again" {
	make_topic 20000
	# 20000 lines (2 MB) do not fit in a pipe (tmq-get asks for 1 MiB):
	# tmq-get is mid-stream when the reader (3 lines taken, then asleep)
	# is killed.
	(
		echo "$BASHPID" >get.pid
		rc=0
		tmq-get -g G --window 1 --commit ev 2>get.err || rc=$?
		echo "$rc" >get.rc
	) | bash -c 'for i in 1 2 3; do read -r l && echo "$l"; done >took
		echo "$$" >reader.pid; exec sleep 600' 3>&- &
	wait_for test -s reader.pid
	wait_for has_lines took 3
	kill -KILL "$(cat reader.pid)"
	wait_for test -s get.rc
	run cat get.rc get.err
	assert_output '141'
	run committed
	assert_output "0=3"
	run --separate-stderr tmq-get -g G --window 1 -F '%o\n' ev
	assert_success
	assert_equal "${#lines[@]}" 19997
	assert_equal "${lines[0]}" 3
}

@test "--commit -f: a reader that goes away while nothing comes in: the member leaves at once, the rest is read by the next" {
	make_topic 500 2
	# 50 KB, all in the pipe at once; head takes a buffer of it, prints 2
	# lines and goes, and nothing is put after.  Had the member waited
	# for a next message to find its reader gone, it would hold its
	# partitions, and what is left in the pipe, for as long as none came.
	bash -c 'tmq-get -g G --window 1 -f --commit ev 2>"$0/get.err" |
		head -n 2 >"$0/took"; echo "${PIPESTATUS[0]}" >"$0/get.rc"' \
	    "$BATS_TEST_TMPDIR" 3>&- &
	echo "$!" >pipeline.pid
	wait_for test -s get.rc
	run cat get.rc get.err
	assert_output '141'
	run wc -l <took
	assert_output 2
	# It left the group: its last word is a rebalance offering nothing.
	run bash -c 'tmq-dump -J -- --group--G | tail -n 1'
	assert_output --partial '"type":"~~TWAIN~~REBALOFFER","payload":{"own":[],"partitions":[]}'
	# Committed: what head took (its buffer), not what it left in the
	# pipe; the next member reads exactly the rest.
	total=$(total_committed)
	[ "$total" -ge 2 ]
	[ "$total" -lt 500 ]
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_equal "${#lines[@]}" $((500 - total))
}

@test "--commit on a Unix socket: nothing the reader did not read is committed" {
	make_topic 2000
	# The reader takes 3 lines and closes; then another takes them all.
	run python3 - <<-'EOF'
	import socket, subprocess
	def reader(lines):
	    a, b = socket.socketpair()
	    p = subprocess.Popen(["tmq-get", "-g", "G", "--window", "1", "--commit", "ev"],
	                         stdout=b, stderr=subprocess.DEVNULL)
	    b.close()
	    got = b""
	    while got.count(b"\n") < lines:
	        chunk = a.recv(101 if lines < 100 else 65536)
	        if not chunk:
	            break
	        got += chunk
	    a.close()
	    p.wait()
	    return got.count(b"\n")
	print(reader(3))
	EOF
	assert_output 3
	total=$(total_committed)
	[ "$total" -le 3 ]
	run python3 - <<-'EOF'
	import socket, subprocess
	a, b = socket.socketpair()
	p = subprocess.Popen(["tmq-get", "-g", "G", "--window", "1", "--commit", "ev"], stdout=b)
	b.close()
	n = 0
	while True:
	    chunk = a.recv(65536)
	    if not chunk:
	        break
	    n += chunk.count(b"\n")
	print(n, p.wait())
	EOF
	assert_output "$((2000 - total)) 0"
	run committed
	assert_output "0=2000"
}

@test "--commit to a file: written is taken" {
	make_topic 50 2
	run --separate-stderr tmq-get -g G --window 1 --commit -n 30 ev
	assert_success
	tmq-get -g G --window 1 --commit -n 7 ev >out
	run wc -l <out
	assert_output 7
	run total_committed
	assert_output 37
}
