#!/usr/bin/env bats
# t0420-offset-range: committed offsets out of range, past a partition's
# end (the topic deleted and made again) or before its first offset
# (pruned).  tmq-get -g says so once, naming group, partition and offsets,
# and goes where --offset-reset says (start, the default, now, or fail);
# tmq-group describe shows such a partition as out of range, and
# --max-lag counts it as lagging.

load test_helper

# Topic ev, 2 partitions, 20 messages (10 a partition), read and committed
# by group G; then the topic deleted and made again with 3 messages in
# partition 0 and none in 1: G's commits (10 and 10) are past both ends.
remade() {
	tmq-topic create -k u8 -p 2 ev
	seq 1 20 | awk '{ print $1 % 2 " old" $1 }' | tmq-put -K ' ' ev
	tmq-get -g G --window 1 --commit ev >/dev/null
	[ "$(committed)" = "0=10 1=10" ]
	tmq-topic delete --yes ev
	tmq-topic create -k u8 -p 2 ev
	printf '0 new1\n0 new2\n0 new3\n' | tmq-put -K ' ' ev
}

@test "tmq-get -g: committed offsets past the end are said once each and read from the start" {
	remade
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_output $'new1\nnew2\nnew3'
	assert_equal "$stderr" "tmq-get: group G: partition 0: committed offset 10 is out of range, past the end (3): reading from 0 (--offset-reset start)
tmq-get: group G: partition 1: committed offset 10 is out of range, past the end (0): reading from 0 (--offset-reset start)"
	# Without --commit nothing moved: the same again.
	run --separate-stderr tmq-get -g G --window 1 --offset-reset start ev
	assert_output $'new1\nnew2\nnew3'
	run committed
	assert_output "0=10 1=10"
	# With --commit the reset is recorded: then all is well again.
	run --separate-stderr tmq-get -g G --window 1 --commit ev
	assert_output $'new1\nnew2\nnew3'
	run committed
	assert_output "0=3 1=0"
	tmq-put -k 1 ev new4
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_output new4
	assert_stderr ""
}

@test "tmq-get -g --offset-reset now: from the end, and --commit records it" {
	remade
	run --separate-stderr tmq-get -g G --window 1 --commit --offset-reset now ev
	assert_success
	assert_output ""
	assert_equal "$stderr" "tmq-get: group G: partition 0: committed offset 10 is out of range, past the end (3): reading from 3 (--offset-reset now)
tmq-get: group G: partition 1: committed offset 10 is out of range, past the end (0): reading from 0 (--offset-reset now)"
	run committed
	assert_output "0=3 1=0"
}

@test "tmq-get -g --offset-reset fail: exit 1 naming group, partition and offsets; nothing read or committed" {
	remade
	run --separate-stderr tmq-get -g G --window 1 --commit --offset-reset fail ev
	assert_equal "$status" 1
	assert_output ""
	assert_equal "$stderr" "tmq-get: group G: partition 0: committed offset 10 is out of range, past the end (3) (--offset-reset fail)"
	run committed
	assert_output "0=10 1=10"
	# A fixed reader (-P) fails the same way.
	run --separate-stderr tmq-get -g G -P 1 --offset-reset fail ev
	assert_fails_with "tmq-get: group G: partition 1: committed offset 10 is out of range, past the end (0) (--offset-reset fail)"
	assert_output ""
}

@test "tmq-get -g: a committed offset before the first offset (pruned) is out of range too" {
	tmq-topic create -k u8 -p 1 pt
	for i in 0 1 2; do
		tmq_write_line "$TMQ_ROOT/pt" 0-20261125_0.tmf u8 0 1795597200 "day1-$i"
	done
	for i in 3 4; do
		tmq_write_line "$TMQ_ROOT/pt" 0-20261126_3.tmf u8 0 1795683600 "day2-$i"
	done
	tmq-get -g G --window 1 -n 1 --commit pt >/dev/null
	run committed
	assert_output "0=1"
	tmq-topic prune pt --before 2026-11-26 >/dev/null
	run --separate-stderr tmq-group describe G
	assert_success
	assert_line --regexp '^0 +1 +5 +out-of-range  -$'
	run --separate-stderr tmq-get -g G -P 0 pt
	assert_success
	assert_output $'day2-3\nday2-4'
	assert_stderr "tmq-get: group G: partition 0: committed offset 1 is out of range, before the first offset (3): reading from 3 (--offset-reset start)"
	run --separate-stderr tmq-get -g G -P 0 --offset-reset now pt
	assert_output ""
	assert_stderr "tmq-get: group G: partition 0: committed offset 1 is out of range, before the first offset (3): reading from 5 (--offset-reset now)"
}

@test "tmq-group describe: out of range, not lag 0, in text and JSON; --max-lag counts it as lagging" {
	remade
	run --separate-stderr tmq-group describe G
	assert_success
	assert_line --regexp '^PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG  OWNER$'
	assert_line --regexp '^0 +10 +3 +out-of-range  -$'
	assert_line --regexp '^1 +10 +0 +out-of-range  -$'
	# The lag is what a reader from the start has before it.
	assert_line "total lag: 3"
	run --separate-stderr tmq-group describe --json G
	assert_success
	run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print([(p["partition"], p["committed"], p["end"], p["lag"], p["out_of_range"]) for p in d["partitions"]])' "$output"
	assert_output "[(0, 10, 3, 3, 'past_end'), (1, 10, 0, 0, 'past_end')]"
	run --separate-stderr tmq-group describe --max-lag 1000 G
	assert_equal "$status" 1
	assert_equal "$stderr" "tmq-group: group G: partition 0: committed offset 10 is out of range, past the end (3)
tmq-group: group G: partition 1: committed offset 10 is out of range, past the end (0)"
	# Once reset, in range again.
	tmq-get -g G --window 1 --commit ev >/dev/null 2>&1
	run --separate-stderr tmq-group describe --json --max-lag 0 G
	assert_success
	assert_output --partial '"lag":0,"out_of_range":null'
	refute_output --partial '"past_end"'
}

@test "tmq-get --offset-reset: a policy it knows, and only with -g" {
	tmq-topic create ev
	run --separate-stderr tmq-get -g G --offset-reset latest ev
	assert_usage_error tmq-get "--offset-reset: 'latest': not a policy (want start, now or fail)"
	run --separate-stderr tmq-get --offset-reset now ev
	assert_usage_error tmq-get "--offset-reset needs -g"
}

@test "a new group on a pruned topic starts at each partition's first offset, quietly: in range for describe, --offset-reset fail starts" {
	tmq-topic create -k u8 -p 2 pt
	for i in 0 1 2; do
		tmq_write_line "$TMQ_ROOT/pt" 0-20261125_0.tmf u8 0 1795597200 "day1-$i"
	done
	for i in 3 4; do
		tmq_write_line "$TMQ_ROOT/pt" 0-20261126_3.tmf u8 0 1795683600 "day2-$i"
	done
	tmq_write_line "$TMQ_ROOT/pt" 1-20261125_0.tmf u8 1 1795597200 "p1-0"
	tmq_write_line "$TMQ_ROOT/pt" 1-20261126_1.tmf u8 1 1795683600 "p1-1"
	tmq-topic prune pt --before 2026-11-26 >/dev/null
	# A member of a new group with --offset-reset fail can start, and
	# reads what is left, saying nothing.
	run --separate-stderr tmq-get -g G --window 1 --offset-reset fail --commit pt
	assert_success
	assert_stderr ""
	run sort <<<"$output"
	assert_output $'day2-3\nday2-4\np1-1'
	run committed
	assert_output "0=5 1=2"
	# The group's first commit (key 0) holds the first offsets, not 0.
	run bash -c "tmq-dump -J -- --group--G | head -n 1"
	assert_output --partial '"key":0,'
	assert_output --partial '"partition_offsets":[[0,3],[1,1]]'
	# Another new group, made by a reader of fixed partitions: in range
	# for describe, its lag what is left.
	tmq-get -g H -P 0 -n 1 pt >/dev/null
	run --separate-stderr tmq-group describe H --max-lag 2
	assert_success
	assert_stderr ""
	refute_output --partial "out-of-range"
	# -o now: the ends, as before.
	tmq-get -g N -o now -P 0 -n 1 pt >/dev/null || :
	run bash -c "tmq-dump -J -- --group--N | head -n 1"
	assert_output --partial '"partition_offsets":[[0,5],[1,2]]'
}
