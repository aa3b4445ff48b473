#!/usr/bin/env bats
# t0500-tmq-commit: tmq-commit records committed offsets for a group: pairs
# as arguments or one a line on stdin (as tmq-get -F '%p %o\n' prints
# them), done-up-to offsets or --next positions, the highest per partition
# winning, one COMMIT under key 0.  Operands: nothing written at all when
# any pair is bad.  Standard input: a bad line ends it, the good lines
# before it committed.  Groups the library made (no topic recorded) need -t.

load test_helper

# Topic ev: u32 keys, 4 partitions, 40 messages (keys 1..40, payloads
# m1..m40), and group G on it, made by a fixed-partition reader, with every
# partition committed at 0.
make_group() {
	tmq-topic create -k u32 -p 4 ev
	seq 1 40 | awk '{ print $1 " m" $1 }' | tmq-put -K ' ' ev
	tmq-get -g G -P 0 -n 1 ev >/dev/null
}

# end_of P: partition P's end offset.
end_of() {
	tmq-topic info --json ev | python3 -c '
import json, sys
print(json.load(sys.stdin)["partitions"][int(sys.argv[1])]["end"])' "$1"
}

# last_commit [GROUP]: "key BODY" of the last message of the group's log,
# which must be a COMMIT.
last_commit() {
	tmq-dump -J -- "--group--${1:-G}" | tail -n 1 | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())
assert m["type"] == "~~TWAIN~~COMMIT", m["type"]
print(m["key"], json.dumps(m["payload"], separators=(",", ":")))'
}

@test "pairs as arguments: done up to OFFSET, resume at OFFSET + 1" {
	make_group
	run --separate-stderr tmq-commit G 0 3 2 4
	assert_success
	assert_output ""
	assert_stderr ""
	run committed
	assert_output "0=4 1=0 2=5 3=0"
	# One COMMIT, under key 0, of just the pairs given.
	run last_commit
	assert_output '0 {"partition_offsets":[[0,4],[2,5]]}'
	run tmq-group describe --json G
	assert_output --partial '"partition":0,"committed":4,'
}

@test "--next: the numbers are where to resume" {
	make_group
	run --separate-stderr tmq-commit --next G 1 7 3 0
	assert_success
	assert_stderr ""
	run committed
	assert_output "0=0 1=7 2=0 3=0"
	run last_commit
	assert_output '0 {"partition_offsets":[[1,7],[3,0]]}'
}

@test "the highest offset given for a partition wins" {
	make_group
	run --separate-stderr tmq-commit G 0 5 1 2 0 9 0 1 1 0
	assert_success
	run committed
	assert_output "0=10 1=3 2=0 3=0"
	run last_commit
	assert_output '0 {"partition_offsets":[[0,10],[1,3]]}'
	# ...on stdin too; a lower commit than the group's last one is
	# still written (the latest in the log wins).
	run --separate-stderr tmq-commit G <<-EOF
		0 3
		0 8

		0 1
	EOF
	assert_success
	assert_stderr ""
	run committed
	assert_output "0=9 1=3 2=0 3=0"
}

@test "pairs through a pipe from tmq-get -F '%p %o': lag 0 afterwards" {
	tmq-topic create -k u32 -p 4 ev
	seq 1 40 | awk '{ print $1 " m" $1 }' | tmq-put -K ' ' ev
	tmq-get -g G --window 1 -F '%p %o\n' ev >"$BATS_TEST_TMPDIR/pairs"
	run wc -l <"$BATS_TEST_TMPDIR/pairs"
	assert_output 40
	run --separate-stderr tmq-commit G <"$BATS_TEST_TMPDIR/pairs"
	assert_success
	assert_stderr ""
	run --separate-stderr tmq-group describe --max-lag 0 G
	assert_success
	assert_line --partial "total lag: 0"
	run committed
	assert_output "0=$(end_of 0) 1=$(end_of 1) 2=$(end_of 2) 3=$(end_of 3)"
	# In one go, as the usage has it.
	tmq-put -k 5 ev more1 more2
	tmq-get -g G --window 1 -F '%p %o\n' ev | tmq-commit G
	run --separate-stderr tmq-group describe --max-lag 0 G
	assert_success
	# A member joining now resumes at the commits: nothing left to read.
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_output ""
	assert_stderr ""
}

@test "unknown group, bad group name, no group" {
	make_group
	run --separate-stderr tmq-commit nosuch 0 1
	assert_fails_with "tmq-commit: nosuch: no such group"
	assert_output ""
	run --separate-stderr tmq-commit 'bad/name' 0 1
	assert_fails_with "tmq-commit: 'bad/name': bad group name (use letters, digits, '_', '.' and '-')"
	run --separate-stderr tmq-commit ..
	assert_fails_with "tmq-commit: '..': bad group name"
	run --separate-stderr tmq-commit
	assert_usage_error tmq-commit "missing group"
}

@test "a partition the topic does not have: nothing written" {
	make_group
	before=$(log_length)
	run --separate-stderr tmq-commit G 9 1
	assert_fails_with "tmq-commit: pair 1: partition 9 does not exist (topic has 4)"
	assert_output ""
	run --separate-stderr tmq-commit G 0 1 4 1
	assert_fails_with "tmq-commit: pair 2: partition 4 does not exist (topic has 4)"
	run --separate-stderr tmq-commit G <<<"7 1"
	assert_fails_with "tmq-commit: line 1: partition 7 does not exist (topic has 4)"
	run log_length
	assert_output "$before"
}

@test "an offset past the end: nothing written" {
	make_group
	end=$(end_of 0)
	before=$(log_length)
	run --separate-stderr tmq-commit G 1 0 0 "$end"
	assert_fails_with "tmq-commit: pair 2: partition 0: offset $end is beyond the end ($end)"
	assert_output ""
	run --separate-stderr tmq-commit --next G 0 $((end + 1))
	assert_fails_with "tmq-commit: pair 1: partition 0: offset $((end + 1)) is beyond the end ($end)"
	run --separate-stderr tmq-commit G <<<"0 $((end + 5))"
	assert_fails_with "tmq-commit: line 1: partition 0: offset $((end + 5)) is beyond the end ($end)"
	run log_length
	assert_output "$before"
	run committed
	assert_output "0=0 1=0 2=0 3=0"
	# The last message is as far as one can be done; the end is as far
	# as one can resume.
	run --separate-stderr tmq-commit G 0 $((end - 1))
	assert_success
	run --separate-stderr tmq-commit --next G 1 "$(end_of 1)"
	assert_success
	run committed
	assert_output "0=$end 1=$(end_of 1) 2=0 3=0"
}

@test "odd number of arguments, and numbers that are not offsets: usage or failure" {
	make_group
	before=$(log_length)
	run --separate-stderr tmq-commit G 0
	assert_usage_error tmq-commit "PARTITION without OFFSET"
	run --separate-stderr tmq-commit G 0 1 2
	assert_usage_error tmq-commit "PARTITION without OFFSET"
	run --separate-stderr tmq-commit G 0 x
	assert_fails_with "tmq-commit: pair 1: 'x': not a number"
	run --separate-stderr tmq-commit -- G -1 2
	assert_fails_with "tmq-commit: pair 1: partition '-1' is negative"
	run --separate-stderr tmq-commit G 0 99999999999999999999
	assert_fails_with "tmq-commit: pair 1: '99999999999999999999': number too large"
	run log_length
	assert_output "$before"
}

@test "a bad line on stdin ends tmq-commit: the good lines before it are committed, the bad one said, nothing after it read" {
	make_group
	run --separate-stderr tmq-commit G < <(printf '0 1\n1 2 3\n0 5\n')
	assert_fails_with "tmq-commit: line 2: want PARTITION OFFSET"
	run committed
	assert_output "0=2 1=0 2=0 3=0"
	run --separate-stderr tmq-commit G < <(printf '1 1\n2\n')
	assert_fails_with "tmq-commit: line 2: want PARTITION OFFSET"
	run --separate-stderr tmq-commit G < <(printf '0 x\n')
	assert_fails_with "tmq-commit: line 1: 'x': not a number"
	run committed
	assert_output "0=2 1=2 2=0 3=0"
	# Only the first bad line is said: nothing after it is read.
	before=$(log_length)
	run --separate-stderr tmq-commit G < <(printf 'a b\n0 1\nc\n')
	assert_equal "$status" 1
	assert_equal "$stderr" "tmq-commit: line 1: 'a': not a number"
	run log_length
	assert_output "$before"
}

@test "a pair on stdin past the topic's partitions or end ends tmq-commit likewise, what came before it committed" {
	make_group
	end=$(end_of 0)
	printf '1 3\n2 4\n0 999\n1 y\n3 1\n' >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr tmq-commit G <"$BATS_TEST_TMPDIR/in"
	assert_equal "$status" 1
	assert_output ""
	assert_equal "$stderr" "tmq-commit: line 3: partition 0: offset 999 is beyond the end ($end)"
	run committed
	assert_output "0=0 1=4 2=5 3=0"
	run --separate-stderr tmq-commit G < <(printf '3 2\n7 7\n')
	assert_equal "$stderr" "tmq-commit: line 2: partition 7 does not exist (topic has 4)"
	run committed
	assert_output "0=0 1=4 2=5 3=3"
}

# ended PID: the process has exited (gone, or a zombie not yet reaped:
# its descriptors closed either way).
ended() {
	! kill -0 "$1" 2>/dev/null ||
	    [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" = Z ]
}

@test "in a pipeline, a handler's stray line ends the pipeline whole: the good pairs committed, tmq-commit exits 1, the member at once" {
	make_group
	# The handler passes the pairs on and, at the third, a stray line.
	# (A shell loop: awk may wait for a buffer's worth of input.)
	bash -c 'tmq-get -g G2 --window 1 -f -F "%p %o\n" ev 2>"$0/get.err" |
	    bash -c "n=0; while read -r l; do n=\$((n + 1));
	        [ \$n = 3 ] && echo stray; echo \"\$l\"; done" 2>/dev/null |
	    bash -c "echo \$\$ >\"\$0/commit.pid\"; exec tmq-commit G2 2>\"\$0/commit.err\"" "$0"
	    echo "${PIPESTATUS[*]}" >"$0/rc"' \
	    "$BATS_TEST_TMPDIR" 3>&- &
	wait_for test -s "$BATS_TEST_TMPDIR/commit.err"
	# tmq-commit has ended (its error said is not enough: until it has
	# exited, the handler's next write still lands in the pipe): the
	# handler's next write fails, and the member (following) finds its
	# reader gone without waiting for another message.
	wait_for ended "$(cat "$BATS_TEST_TMPDIR/commit.pid")"
	tmq-put -k 1 ev one-more
	wait_for test -s "$BATS_TEST_TMPDIR/rc"
	run cat "$BATS_TEST_TMPDIR/rc"
	# (the member and the handler end by SIGPIPE, as a reader's writers do)
	assert_output "141 141 1"
	run cat "$BATS_TEST_TMPDIR/commit.err"
	assert_output "tmq-commit: line 3: want PARTITION OFFSET"
	run cat "$BATS_TEST_TMPDIR/get.err"
	assert_output ""
	# The two pairs before the stray line are committed (the first of
	# two partitions, read in turn), nothing after it.
	run committed G2
	assert_output "0=1 1=1 2=0 3=0"
}

@test "nothing on stdin: nothing written" {
	make_group
	before=$(log_length)
	run --separate-stderr tmq-commit G </dev/null
	assert_success
	assert_stderr ""
	run --separate-stderr tmq-commit G <<<""
	assert_success
	run log_length
	assert_output "$before"
}

@test "a group the library made needs -t, then commits like any other" {
	copy_vectors_root "$BATS_TEST_TMPDIR/vroot"
	export TMQ_ROOT="$BATS_TEST_TMPDIR/vroot"
	run --separate-stderr tmq-commit workers 0 27
	assert_fails_with "tmq-commit: workers: the group's topic is not recorded: name it with -t"
	run --separate-stderr tmq-commit -t u32t workers 0 27 3 4
	assert_success
	assert_stderr ""
	run committed workers -t u32t
	assert_output "0=28 1=29 2=4 3=5 4=5"
	run last_commit workers
	assert_output '0 {"partition_offsets":[[0,28],[3,5]]}'
	# u32t partition 0 ends at 28.
	run --separate-stderr tmq-commit -t u32t workers 0 28
	assert_fails_with "tmq-commit: pair 1: partition 0: offset 28 is beyond the end (28)"
	# -t names the wrong topic: its partitions are what count.
	run --separate-stderr tmq-commit -t one workers 3 0
	assert_fails_with "tmq-commit: pair 1: partition 3 does not exist (topic has 1)"
}

@test "a write error on standard output (-h, -V) exits 1; committing prints nothing" {
	tmq-topic create ev
	tmq-put ev a b
	tmq-get -g G ev >/dev/null
	assert_write_error tmq-commit -h
	assert_write_error tmq-commit -V
	assert_write_error tmq-commit --completion-helper
	run --separate-stderr bash -c 'tmq-commit G 0 1 >/dev/full'
	assert_success
}

@test "a negative offset or partition is said to be one, not taken for an option" {
	make_group
	before=$(log_length)
	run --separate-stderr tmq-commit G 0 -1
	assert_fails_with "tmq-commit: pair 1: offset '-1' is negative"
	run --separate-stderr tmq-commit G 0 3 -2 5
	assert_fails_with "tmq-commit: pair 2: partition '-2' is negative"
	# Options still work around them, and their arguments are theirs.
	run --separate-stderr tmq-commit -t ev G 1 -7 --next
	assert_fails_with "tmq-commit: pair 1: offset '-7' is negative"
	run --separate-stderr tmq-commit --root "$TMQ_ROOT" G 1 -7
	assert_fails_with "tmq-commit: pair 1: offset '-7' is negative"
	run log_length
	assert_output "$before"
	# An option that does not exist is still one.
	run --separate-stderr tmq-commit G 0 -x
	assert_usage_error tmq-commit "invalid option -- 'x'"
	run --separate-stderr tmq-commit G 0 1 --next
	assert_success
}

@test "a closed standard input is said to be one" {
	make_group
	before=$(log_length)
	run --separate-stderr bash -c 'tmq-commit G <&-'
	assert_fails_with "tmq-commit: standard input: not open for reading: Bad file descriptor"
	run log_length
	assert_output "$before"
}
