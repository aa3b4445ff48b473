#!/usr/bin/env bats
# t0150-prune-readers: retention that knows its readers (tmq-topic prune).
# Without a new option prune prunes as it always has, and says on stderr
# each group of the topic that loses messages it has not read, and how
# many (--dry-run: would lose); --keep-unread keeps every day file that
# holds an offset some group has not committed past, and says which group
# holds which file back.  Groups the TwainMQ library made count once a tmq
# tool that wrote to them was told their topic (--group--G/.tmq/topic);
# before that --keep-unread names them as not counted.

load test_helper

# A topic "old" (u16, 2 partitions) with three day files in partition 0
# (2026-01-01: offsets 0-1, 2026-01-02: 2-3, 2026-01-03: 4) and one in
# partition 1 (2026-01-01: 0), as t0100 makes it.
make_old_topic() {
	local d=$TMQ_ROOT/old
	tmq-topic create old -p 2
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225600 a0
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225601 a1
	tmq_write_line "$d" 0-20260102_2.tmf u16 1 1767312000 b2
	tmq_write_line "$d" 0-20260102_2.tmf u16 1 1767312001 b3
	tmq_write_line "$d" 0-20260103_4.tmf u16 1 1767398400 c4
	tmq_write_line "$d" 1-20260101_0.tmf u16 2 1767225600 p1
}

# group NAME OFFSET: a group of old (made by a reader of partition 1 that
# commits nothing) whose partition 0 is committed at OFFSET.
group() {
	tmq-get -g "$1" --window 1 -P 1 old >/dev/null
	tmq-group reset "$1" -P 0 --to "$2" >/dev/null
}

# as_library GROUP: its definition as the TwainMQ library writes it, with
# no topic recorded.
as_library() {
	python3 - "$TMQ_ROOT/--group--$1.twc" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
del d["topic"]
open(sys.argv[1], "w").write(json.dumps(d, indent=0))
EOF
}

@test "prune says which groups lose unread messages and how many, and prunes as before" {
	make_old_topic
	group loaders 3		# has read a0 a1 b2
	group audit 0		# has read nothing
	group done 4		# has read all that goes
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run
	assert_success
	assert_output "0-20260101_0.tmf
0-20260102_2.tmf"
	assert_stderr "tmq-topic: old: group audit would lose 4 unread messages (--keep-unread keeps them)
tmq-topic: old: group loaders would lose 1 unread message (--keep-unread keeps them)"
	[ -f "$TMQ_ROOT/old/0-20260101_0.tmf" ]
	run --separate-stderr tmq-topic prune old --before 2026-01-03
	assert_success
	assert_output ""
	assert_stderr "tmq-topic: old: group audit lost 4 unread messages (--keep-unread keeps them)
tmq-topic: old: group loaders lost 1 unread message (--keep-unread keeps them)"
	run ls "$TMQ_ROOT/old"
	assert_output "0-20260103_4.tmf
1-20260101_0.tmf"
	# Nothing more to lose: nothing said.
	run --separate-stderr tmq-topic prune old --before 2026-01-04
	assert_success
	assert_stderr ""
}

@test "prune: a group of another topic, one that has read all, and 'now' lose nothing" {
	make_old_topic
	tmq-topic create other
	tmq-get -g elsewhere --window 1 other >/dev/null
	group done 5
	tmq-get -g late --window 1 --from now -P 1 old >/dev/null
	run --separate-stderr tmq-topic prune old --before 2026-01-03
	assert_success
	assert_stderr ""
}

@test "prune --keep-unread keeps the files a group has not read, naming the groups, and prunes the rest" {
	make_old_topic
	group loaders 3
	group audit 2
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --keep-unread --dry-run
	assert_success
	assert_output "0-20260101_0.tmf"
	assert_stderr "tmq-topic: old: would keep 0-20260102_2.tmf: unread by groups audit (from offset 2), loaders (from offset 3)"
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --keep-unread
	assert_success
	assert_output ""
	assert_stderr "tmq-topic: old: kept 0-20260102_2.tmf: unread by groups audit (from offset 2), loaders (from offset 3)"
	run ls "$TMQ_ROOT/old"
	assert_output "0-20260102_2.tmf
0-20260103_4.tmf
1-20260101_0.tmf"
	# Every offset a group has still to read is there, where it was.
	run bash -c "tmq-get -g audit --window 1 -F '%p %o %s\n' old | sort"
	assert_output "0 2 b2
0 3 b3
0 4 c4
1 0 p1"
	# Once the groups have read it, it goes.
	tmq-group reset audit --to now >/dev/null
	tmq-group reset loaders --to now >/dev/null
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --keep-unread
	assert_success
	assert_stderr ""
	run ls "$TMQ_ROOT/old"
	assert_output "0-20260103_4.tmf
1-20260101_0.tmf"
}

@test "prune --keep-unread: a group that never committed, or whose offset is past the end, holds every file" {
	make_old_topic
	group fresh 0
	# A commit past the end (as when the topic was made again): its next
	# member reads from the first offset, so nothing has been read.
	group stale 5
	: >"$TMQ_ROOT/old/0-20260103_4.tmf"
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --keep-unread
	assert_success
	assert_stderr "tmq-topic: old: kept 0-20260101_0.tmf: unread by groups fresh (from offset 0), stale (from offset 0)
tmq-topic: old: kept 0-20260102_2.tmf: unread by groups fresh (from offset 0), stale (from offset 0)"
	run ls "$TMQ_ROOT/old"
	assert_output "0-20260101_0.tmf
0-20260102_2.tmf
0-20260103_4.tmf
1-20260101_0.tmf"
}

@test "prune: a group the TwainMQ library made counts once a tmq tool that wrote to it was told its topic" {
	make_old_topic
	group lib 3
	as_library lib
	# Its topic is recorded nowhere: not counted, and --keep-unread says
	# so.
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run
	assert_success
	assert_stderr ""
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run --keep-unread
	assert_success
	assert_output "0-20260101_0.tmf
0-20260102_2.tmf"
	assert_stderr "tmq-topic: old: group lib: its topic is not recorded (the TwainMQ library made it): not counted"
	# tmq-commit told its topic writes to the group: kept, and counted.
	printf '1 0\n' | tmq-commit -t old lib
	[ "$(cat "$TMQ_ROOT/--group--lib/.tmq/topic")" = old ]
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run --keep-unread
	assert_success
	assert_output "0-20260101_0.tmf"
	assert_stderr "tmq-topic: old: would keep 0-20260102_2.tmf: unread by group lib (from offset 3)"
	# describe no longer needs -t either.
	run --separate-stderr tmq-group describe --json lib
	assert_success
	[[ $output == '{"group":"lib","topic":"old",'* ]]
	# The library's definition is as it wrote it.
	run grep -c topic "$TMQ_ROOT/--group--lib.twc"
	assert_output 0
}

@test "prune: a forged or damaged record of a library group's topic is not taken" {
	make_old_topic
	group lib 3
	as_library lib
	mkdir -p "$TMQ_ROOT/--group--lib/.tmq"
	local f=$TMQ_ROOT/--group--lib/.tmq/topic bad
	for bad in 'old' 'nosuch' '../old' 'old
old' "$(head -c 300 /dev/zero | tr '\0' a)"; do
		rm -f "$f"
		printf '%s\n' "$bad" >"$f"
		[ "$bad" != old ] || printf '%s' "$bad" >"$f"	# no newline
		run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run --keep-unread
		assert_success
		assert_stderr "tmq-topic: old: group lib: its topic is not recorded (the TwainMQ library made it): not counted"
	done
	rm -f "$f"
	mkfifo "$f"
	run --separate-stderr timeout 20 tmq-topic prune old --before 2026-01-03 --dry-run --keep-unread
	assert_success
	assert_stderr "tmq-topic: old: group lib: its topic is not recorded (the TwainMQ library made it): not counted"
	rm -f "$f"
	ln -s "$TMQ_ROOT/old.twc" "$f"
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run --keep-unread
	assert_stderr "tmq-topic: old: group lib: its topic is not recorded (the TwainMQ library made it): not counted"
}

@test "prune --keep-unread: a reader group whose log cannot be read prunes nothing; without it prune goes on" {
	make_old_topic
	group loaders 3
	local f
	f=$(ls "$TMQ_ROOT"/--group--loaders/0-*.tmf)
	rm "$f"
	mkfifo "$f"
	run --separate-stderr timeout 20 tmq-topic prune old --before 2026-01-03 --keep-unread
	assert_failure 1
	[[ $stderr == "tmq-topic: old: nothing pruned: "*"not a regular file (a FIFO)"* ]]
	[ -f "$TMQ_ROOT/old/0-20260101_0.tmf" ]
	run --separate-stderr timeout 20 tmq-topic prune old --before 2026-01-03
	assert_success
	[[ $stderr == "tmq-topic: old: what groups lose is not known: "* ]]
	[ ! -e "$TMQ_ROOT/old/0-20260101_0.tmf" ]
}

@test "prune with groups of the TwainMQ library itself: counted once a tmq member has read with them" {
	require_ref
	make_old_topic
	# The library's consumer makes the group, reads two messages and
	# commits them.
	python3 - "$TMQ_ROOT" <<'EOF'
import contextlib, datetime, io, sys, time
import twainmq, twainmq.consumer
twainmq.consumer.REBAL_LENGTH = datetime.timedelta(seconds=1)
c = twainmq.Twain(sys.argv[1]).consumer("old", start_from="start", group="pyg")
got, end = 0, time.time() + 60
while got < 2 and time.time() < end:
    m = c.poll()
    if m is None:
        time.sleep(0.05)
        continue
    got += 1
with contextlib.redirect_stdout(io.StringIO()):
    c.commit()
EOF
	run grep -c '"topic"' "$TMQ_ROOT/--group--pyg.twc"
	assert_output 0
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run --keep-unread
	assert_stderr "tmq-topic: old: group pyg: its topic is not recorded (the TwainMQ library made it): not counted"
	# A tmq member of the group, reading the topic, records it.
	tmq-get -g pyg --window 1 -n 1 old >/dev/null
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run
	assert_success
	[[ $stderr == "tmq-topic: old: group pyg would lose "*" unread message"* ]]
}
