#!/usr/bin/env bats
# t0500-tmq-commit: tmq-commit records committed offsets for a group: pairs
# as arguments or one a line on stdin (as tmq-get -F '%p %o\n' prints
# them), done-up-to offsets or --next positions, the highest per partition
# winning, one COMMIT under key 0, and nothing written at all when any pair
# is bad.  Groups the library made (no topic recorded) need -t.

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

@test "a malformed line on stdin: nothing written, not even the good lines" {
	make_group
	before=$(log_length)
	run --separate-stderr tmq-commit G < <(printf '0 1\n1 2 3\n')
	assert_fails_with "tmq-commit: line 2: want PARTITION OFFSET"
	run --separate-stderr tmq-commit G < <(printf '0 1\n2\n')
	assert_fails_with "tmq-commit: line 2: want PARTITION OFFSET"
	run --separate-stderr tmq-commit G < <(printf '0 x\n')
	assert_fails_with "tmq-commit: line 1: 'x': not a number"
	run log_length
	assert_output "$before"
	run committed
	assert_output "0=0 1=0 2=0 3=0"
	# Every bad line is named.
	run --separate-stderr tmq-commit G < <(printf 'a b\n0 1\nc\n')
	assert_equal "$status" 1
	assert_equal "$stderr" "tmq-commit: line 1: 'a': not a number
tmq-commit: line 3: want PARTITION OFFSET"
}

@test "every bad pair is reported, in input order, whatever is wrong with it" {
	make_group
	end=$(end_of 0)
	before=$(log_length)
	printf '7 7\n0 999\n1 y\n0 1\nfoo\n0 %s\n' "$end" >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr tmq-commit G <"$BATS_TEST_TMPDIR/in"
	assert_equal "$status" 1
	assert_output ""
	assert_equal "$stderr" "tmq-commit: line 1: partition 7 does not exist (topic has 4)
tmq-commit: line 2: partition 0: offset 999 is beyond the end ($end)
tmq-commit: line 3: 'y': not a number
tmq-commit: line 5: want PARTITION OFFSET
tmq-commit: line 6: partition 0: offset $end is beyond the end ($end)"
	# The same pairs as operands.
	run --separate-stderr tmq-commit G 7 7 0 999 1 y 0 1 0 "$end"
	assert_equal "$status" 1
	assert_equal "$stderr" "tmq-commit: pair 1: partition 7 does not exist (topic has 4)
tmq-commit: pair 2: partition 0: offset 999 is beyond the end ($end)
tmq-commit: pair 3: 'y': not a number
tmq-commit: pair 5: partition 0: offset $end is beyond the end ($end)"
	run log_length
	assert_output "$before"
	run committed
	assert_output "0=0 1=0 2=0 3=0"
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
