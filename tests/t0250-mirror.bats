#!/usr/bin/env bats
# t0250-mirror: exactly-once, resumable copies.  tmq-topic info --ends
# prints a topic's ends as PARTITION=OFFSET pairs; tmq-get --from takes
# such pairs, each named partition starting at its offset (through the
# seek --from OFFSET uses), the others from the start.

load test_helper

# A topic ev (u32, 3 partitions): 30 messages, keys 1..30.
make_ev() {
	tmq-topic create "${1:-ev}" -k u32 -p 3
	seq 1 30 | awk '{ print $1 ":m" $1 }' | tmq-put -K: "${1:-ev}"
}

@test "info --ends: every partition's end as P=OFFSET pairs, for --from" {
	make_ev
	tmq-topic create empty -p 4
	run --separate-stderr tmq-topic info --ends ev
	assert_success
	assert_output "0=7,1=14,2=9"
	run --separate-stderr tmq-topic info --ends empty
	assert_success
	assert_output "0=0,1=0,2=0,3=0"
	run --separate-stderr tmq-topic info --ends --json ev
	assert_usage_error tmq-topic "--ends and --json exclude each other"
	run --separate-stderr tmq-topic info --ends nosuch
	assert_fails_with "tmq-topic: nosuch: no such topic"
}

@test "info --ends: a partition that cannot be read prints nothing and fails" {
	make_ev
	local f
	f=$(ls "$TMQ_ROOT"/ev/1-*.tmf)
	rm "$f"
	mkfifo "$f"
	run --separate-stderr timeout 20 tmq-topic info --ends ev
	assert_failure 1
	assert_output ""
	[[ $stderr == "tmq-topic: ev: partition 1: "*"not a regular file (a FIFO)" ]]
}

@test "--from P=OFFSET,...: each named partition from its offset, the others from the start" {
	make_ev
	run --separate-stderr tmq-get -F '%p %o %s\n' --from 0=5,2=8 ev
	assert_success
	run sort <<<"$output"
	assert_output "$({ tmq-get -F '%p %o %s\n' -P 0 --from 5 ev
	    tmq-get -F '%p %o %s\n' -P 1 ev
	    tmq-get -F '%p %o %s\n' -P 2 --from 8 ev; } | sort)"
	[ "${#lines[@]}" -eq 17 ]
	# Its own ends: nothing; what is put after them: only that.
	local ends
	ends=$(tmq-topic info --ends ev)
	run --separate-stderr tmq-get --from "$ends" ev
	assert_success
	assert_output ""
	tmq-put -k 7 ev new
	local p
	p=$(tmq-topic partition ev 7)
	run --separate-stderr tmq-get -F '%p %o %s\n' --from "$ends" ev
	assert_output "$p $(tr , '\n' <<<"$ends" | sed -n "s/^$p=//p") new"
	# An offset past the end has nothing yet; with -f it is waited for.
	run --separate-stderr tmq-get --from 0=100,1=100,2=100 ev
	assert_success
	assert_output ""
	# With -P, the pairs name read partitions only.
	run --separate-stderr tmq-get -P 0 -F '%o\n' --from 0=6 ev
	assert_output 6
}

@test "--from P=OFFSET: an offset pruned away says so and starts at the first left, as --from OFFSET does" {
	local d=$TMQ_ROOT/old
	tmq-topic create old -p 2
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225600 a0
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225601 a1
	tmq_write_line "$d" 0-20260102_2.tmf u16 1 1767312000 b2
	tmq_write_line "$d" 1-20260101_0.tmf u16 2 1767225600 p1
	tmq-topic prune old --before 2026-01-02 2>/dev/null
	run --separate-stderr tmq-get -F '%p %o %s\n' --from 0=1 old
	assert_success
	assert_output "0 2 b2
1 0 p1"
	assert_stderr "tmq-get: old: partition 0: offset 1 is gone, starting at 2"
}

@test "--from P=OFFSET with -f follows each partition from its offset" {
	make_ev
	tmq-get -f -F '%p %o %s\n' --from 0=7,1=14,2=9 ev >"$BATS_TEST_TMPDIR/f.out" 3>&- &
	local pid=$!
	wait_for bash -c 'ls -l /proc/$1/fd | grep -q inotify' _ "$pid"
	tmq-put -k 1 ev late
	wait_for grep -q late "$BATS_TEST_TMPDIR/f.out"
	kill "$pid"
	wait "$pid" || :
	local p
	p=$(tmq-topic partition ev 1)
	run cat "$BATS_TEST_TMPDIR/f.out"
	assert_output "$p $(tr , '\n' <<<"0=7,1=14,2=9" | sed -n "s/^$p=//p") late"
}

@test "--from P=OFFSET: malformed lists, repeats, partitions the topic or -P lacks, and -g are refused" {
	make_ev
	local bad want
	while IFS='|' read -r bad want; do
		run --separate-stderr tmq-get --from "$bad" ev
		assert_usage_error tmq-get "--from: $want"
	done <<'EOF'
0=1,0=2|'0=1,0=2': partition 0 named twice
0=1,|'0=1,': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
0=1,,1=2|'0=1,,1=2': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
=5|'=5': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
0=|'0=': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
x=1|'x=1': no partition x (at most 65535)
65536=1|'65536=1': no partition 65536 (at most 65535)
0=-1|'0=-1': partition 0: '-1' is not an offset
0=1h|'0=1h': partition 0: '1h' is not an offset
0=1=2|'0=1=2': partition 0: '1=2' is not an offset
0=18446744073709551616|'0=18446744073709551616': partition 0: offset too large
EOF
	run --separate-stderr tmq-get --from 3=1 ev
	assert_fails_with "tmq-get: ev: --from: partition 3 does not exist (topic has 3)"
	run --separate-stderr tmq-get -P 1 --from 0=1 ev
	assert_usage_error tmq-get "--from names partition 0, which -P does not read"
	run --separate-stderr tmq-get -g G --from 0=1 ev
	assert_usage_error tmq-get "with -g, --from is start or now (where a new group begins)"
	# The last --from wins, as for every option that is not a list.
	run --separate-stderr tmq-get -F '%p %o\n' --from 0=1 --from now ev
	assert_success
	assert_output ""
	run --separate-stderr tmq-group reset G --to 0=1
	assert_usage_error tmq-group "--to: '0=1': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, or a duration ago such as 90s, 15m, 1h, 7d or -1h)"
}
