#!/usr/bin/env bats
# t0400-tmq-group: consumer groups (tmq-format(5)).  tmq-group describe, list,
# rebalance, reset and delete, on the library's group in the vectors and on
# groups of our own; membership through tmq-get -g: after each rebalance
# every partition has exactly one owner (by describe and by the members'
# REBALCONFIRMs), every message is read once across the members, a member
# that leaves (TERM) or dies (KILL, then a rebalance) hands its partitions
# over, --commit resumes where it stopped, fixed partitions (-P) read from
# the commits under the group's lock; and a member run by the Python
# library (TWAINMQ_REF) shares a group with a tmq member, either first.
#
# Members run in the background with short windows (--window 1); every
# wait is for a condition, bounded by $TMQ_TEST_WAIT (wait_until), and
# teardown stops what is left.

load test_helper

# Background members and processes (test_helper: start_bg, start_member,
# stop_bg) are ended after each test.
teardown() {
	end_bg
}

# wait_until COMMAND...: test_helper's wait_for: run COMMAND until it
# succeeds, for at most $TMQ_TEST_WAIT seconds; on timeout show what it
# said the last time, and fail.
wait_until() {
	wait_for "$@"
}

# lines_at_least N FILE...: the files have N lines or more between them.
lines_at_least() {
	local n=$1
	shift
	[ "$(cat "$@" | wc -l)" -ge "$n" ]
}

# read_once EXPECTED OUTPUT...: every line of EXPECTED is in exactly one
# of the OUTPUT files, once, and they hold nothing else.
read_once() {
	python3 - "$@" <<-'EOF'
	import collections, sys
	want = collections.Counter(open(sys.argv[1], encoding="utf-8").read().splitlines())
	got = collections.Counter()
	for f in sys.argv[2:]:
	    got.update(open(f, encoding="utf-8").read().splitlines())
	dup = sum(c - 1 for c in got.values() if c > 1)
	missing = sum((want - got).values())
	extra = sum((got - want).values())
	print("%d read, %d duplicated, %d missing, %d unexpected"
	      % (sum(got.values()), dup, missing, extra))
	EOF
}

# put_batch FIRST LAST FILE: put messages FIRST..LAST (key = the number,
# payload "msg-N") on ev, and append the payloads to FILE.
put_batch() {
	seq "$1" "$2" | awk '{ print $1 " msg-" $1 }' | tmq-put -K ' ' ev
	seq "$1" "$2" | sed 's/^/msg-/' >>"$3"
}

# end_of P [TOPIC]: the end offset of partition P.
end_of() {
	tmq-topic info --json "${2:-ev}" | python3 -c '
import json, sys
print(json.load(sys.stdin)["partitions"][int(sys.argv[1])]["end"])' "$1"
}

# Topic ev (u32 keys, 4 partitions, keys 1..40 with payloads m1..m40) and
# group G on it from start, made by a fixed-partition reader.
make_group() {
	tmq-topic create -k u32 -p 4 ev
	seq 1 40 | awk '{ print $1 " m" $1 }' | tmq-put -K ' ' ev
	tmq-get -g G -P 0 -n 1 ev >/dev/null
}

# --- describe and list on the library's group -------------------------

@test "describe --json on the library's group: members and commits as the library holds them" {
	require_vectors
	run --separate-stderr tmq-group describe --json -t u32t workers -d "$VECTORS/root"
	assert_success
	assert_stderr ""
	echo "$output" >"$BATS_TEST_TMPDIR/d.json"
	run python3 - "$VECTORS/group.json" "$BATS_TEST_TMPDIR/d.json" <<-'EOF'
	import json, sys
	want = json.load(open(sys.argv[1]))
	got = json.load(open(sys.argv[2]))
	for k in ("group", "topic", "members", "committed"):
	    if got[k] != want[k]:
	        print("%s: got %r, want %r" % (k, got[k], want[k]))
	print(got["state"], got["total_lag"],
	      [(p["partition"], p["committed"], p["end"], p["lag"], p["owner"])
	       for p in got["partitions"]])
	EOF
	assert_success
	assert_output "stable 30 [(0, 21, 28, 7, 1), (1, 29, 41, 12, 2), (2, 4, 4, 0, 1), (3, 1, 12, 11, 2), (4, 5, 5, 0, 1)]"
	run python3 -c 'import json, sys; print(json.loads(sys.argv[1])["topic"])' "$(cat "$BATS_TEST_TMPDIR/d.json")"
	assert_output u32t
}

@test "describe as text: members, then PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG OWNER" {
	require_vectors
	run --separate-stderr tmq-group describe -t u32t workers -d "$VECTORS/root"
	assert_success
	assert_stderr ""
	assert_line --index 0 "group:     workers"
	assert_line --index 1 "topic:     u32t"
	assert_line --index 2 "state:     stable"
	assert_line --index 3 "members:   2"
	assert_line --index 4 "total lag: 30"
	assert_line --regexp '^MEMBER +PARTITIONS +LAST-SEEN +ALIVE$'
	# The library's members hold no lock: describe cannot vouch for them.
	assert_line --regexp '^1 +0,2,4 +2026-11-28T12:00:14\.250Z +\?$'
	assert_line --regexp '^2 +1,3 +2026-11-28T12:00:14\.250Z +\?$'
	assert_line --regexp '^PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG +OWNER$'
	assert_line --regexp '^0 +21 +28 +7 +1$'
	assert_line --regexp '^1 +29 +41 +12 +2$'
	assert_line --regexp '^2 +4 +4 +0 +1$'
	assert_line --regexp '^3 +1 +12 +11 +2$'
	assert_line --regexp '^4 +5 +5 +0 +1$'
}

@test "describe --max-lag N: exit 1 naming each partition that lags by more" {
	require_vectors
	run --separate-stderr tmq-group describe --max-lag 11 -t u32t workers -d "$VECTORS/root"
	assert_failure 1
	assert_stderr "tmq-group: workers: partition 1 lags by 12 (more than 11)"
	assert_line --regexp '^1 +29 +41 +12 +2$'
	run --separate-stderr tmq-group describe --max-lag 6 --json -t u32t workers -d "$VECTORS/root"
	assert_failure 1
	assert_equal "$stderr" "tmq-group: workers: partition 0 lags by 7 (more than 6)
tmq-group: workers: partition 1 lags by 12 (more than 6)
tmq-group: workers: partition 3 lags by 11 (more than 6)"
	assert_output --partial '"total_lag":30'
	run --separate-stderr tmq-group describe --max-lag 12 -t u32t workers -d "$VECTORS/root"
	assert_success
	assert_stderr ""
	run --separate-stderr tmq-group describe --max-lag x -t u32t workers -d "$VECTORS/root"
	assert_equal "$status" 2
	[[ $stderr == "tmq-group: --max-lag: "* ]]
}

@test "describe errors: topic not recorded, no such group, bad names" {
	require_vectors
	run --separate-stderr tmq-group describe workers -d "$VECTORS/root"
	assert_fails_with "tmq-group: workers: the group's topic is not recorded: name it with -t"
	assert_output ""
	run --separate-stderr tmq-group describe nosuch -d "$VECTORS/root"
	assert_fails_with "tmq-group: nosuch: no such group"
	run --separate-stderr tmq-group describe -t u32t nosuch -d "$VECTORS/root"
	assert_fails_with "tmq-group: nosuch: no such group"
	run --separate-stderr tmq-group describe 'a/b' -d "$VECTORS/root"
	assert_fails_with "tmq-group: 'a/b': bad group name (use letters, digits, '_', '.' and '-')"
	run --separate-stderr tmq-group describe .. -d "$VECTORS/root"
	assert_fails_with "tmq-group: '..': bad group name"
	run --separate-stderr tmq-group describe -d "$VECTORS/root" -- -x
	assert_fails_with "tmq-group: '-x': bad group name (must not begin with '-')"
	# A topic is not a group.
	run --separate-stderr tmq-group describe -t u32t u8t -d "$VECTORS/root"
	assert_fails_with "tmq-group: u8t: no such group"
	# -t naming a topic that is not there.
	run --separate-stderr tmq-group describe -t nosuch workers -d "$VECTORS/root"
	assert_equal "$status" 1
	[[ $stderr == "tmq-group: "*nosuch* ]]
}

@test "usage errors" {
	make_group
	run --separate-stderr tmq-group
	assert_usage_error tmq-group "missing command (list, describe, rebalance, reset, delete or wait)"
	run --separate-stderr tmq-group frob G
	assert_usage_error tmq-group "'frob': unknown command"
	run --separate-stderr tmq-group describe
	assert_usage_error tmq-group "describe: missing group"
	run --separate-stderr tmq-group describe G H
	assert_usage_error tmq-group "describe: too many operands"
	run --separate-stderr tmq-group list G
	assert_usage_error tmq-group "list takes no operands"
	run --separate-stderr tmq-group reset G
	assert_usage_error tmq-group "reset needs --to or --shift-by"
	run --separate-stderr tmq-group reset G --to bogus
	assert_usage_error tmq-group "--to: 'bogus': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	run --separate-stderr tmq-group rebalance G --window 0
	assert_equal "$status" 2
	[[ $stderr == "tmq-group: --window: "* ]]
}

@test "list, as text and --json" {
	require_vectors
	run --separate-stderr tmq-group list -d "$VECTORS/root"
	assert_success
	assert_stderr ""
	assert_line --index 0 --regexp '^GROUP +TOPIC +MEMBERS +LAG$'
	assert_line --index 1 --regexp '^workers +- +- +-$'
	assert_equal "${#lines[@]}" 2
	run --separate-stderr tmq-group list --json -d "$VECTORS/root"
	assert_success
	assert_output '[{"group":"workers","topic":null,"members":null,"lag":null}]'

	# A root with no group: nothing, or [].
	tmq-topic create -k u32 -p 4 ev
	run --separate-stderr tmq-group list
	assert_success
	assert_output ""
	run --separate-stderr tmq-group list --json
	assert_success
	assert_output "[]"

	# Our groups record their topic.
	seq 1 40 | awk '{ print $1 " m" $1 }' | tmq-put -K ' ' ev
	tmq-get -g G -P 0 -n 1 ev >/dev/null
	tmq-get -g H -o now -P 0 ev >/dev/null
	run --separate-stderr tmq-group list
	assert_success
	assert_line --index 1 --regexp '^G +ev +0 +40$'
	assert_line --index 2 --regexp '^H +ev +0 +0$'
	run --separate-stderr tmq-group list --json
	assert_success
	run python3 -c 'import json, sys; print(json.loads(sys.argv[1]))' "$output"
	assert_output "[{'group': 'G', 'topic': 'ev', 'members': 0, 'lag': 40}, {'group': 'H', 'topic': 'ev', 'members': 0, 'lag': 0}]"
}

@test "list: a topic definition that is damaged or cannot be read is said, naming it, exit 1, the other groups listed" {
	tmq-topic create t
	tmq-topic create u
	tmq-put t x
	tmq-put u y
	tmq-get -g G -P 0 -o now t >/dev/null
	tmq-get -g H -P 0 -o now u >/dev/null
	cp "$TMQ_ROOT/t.twc" "$BATS_TEST_TMPDIR/t.twc"
	echo garbage >"$TMQ_ROOT/t.twc"
	run --separate-stderr tmq-group list
	assert_failure 1
	assert_equal "$stderr" 'tmq-group: t: corrupt t.twc: definition is not valid JSON'
	assert_line --index 1 --regexp '^G +t +- +-$'
	assert_line --index 2 --regexp '^H +u +0 +0$'
	run --separate-stderr tmq-group list --json
	assert_failure 1
	assert_equal "$stderr" 'tmq-group: t: corrupt t.twc: definition is not valid JSON'
	assert_output '[{"group":"G","topic":"t","members":null,"lag":null},{"group":"H","topic":"u","members":0,"lag":0}]'

	# A read of it that fails.
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true ||
	    skip "strace cannot trace here (ptrace not permitted)"
	cp "$BATS_TEST_TMPDIR/t.twc" "$TMQ_ROOT/t.twc"
	# (LeakSanitizer cannot run under ptrace)
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -o /dev/null -P "$TMQ_ROOT/t.twc" \
	    -e trace=read -e inject=read:error=EIO tmq-group list
	assert_failure 1
	assert_equal "$stderr" 'tmq-group: t: cannot read t.twc: Input/output error'
	assert_line --index 1 --regexp '^G +t +- +-$'
	assert_line --index 2 --regexp '^H +u +0 +0$'
	# Undamaged, all is listed and said nothing of.
	run --separate-stderr tmq-group list
	assert_success
	assert_stderr ""
	assert_line --index 1 --regexp '^G +t +0 +0$'
}

@test "list: a long group or topic name widens its column instead of breaking the others" {
	local long
	long=$(printf 'a-consumer-group-with-a-long-name-%s' {1..2})
	tmq-topic create -p 2 ev
	tmq-put ev a b
	tmq-get -g "$long" -P 0 -o now ev >/dev/null
	tmq-get -g G -P 1 -o now ev >/dev/null
	run --separate-stderr tmq-group list
	assert_success
	assert_line --index 0 "$(printf '%-*s  %-5s  %7s  %3s' ${#long} GROUP TOPIC MEMBERS LAG)"
	assert_line --index 1 "$(printf '%-*s  %-5s  %7s  %3s' ${#long} G ev 0 0)"
	assert_line --index 2 "$(printf '%-*s  %-5s  %7s  %3s' ${#long} "$long" ev 0 0)"
}

# --- members ----------------------------------------------------------

@test "three members: one owner per partition after each rebalance, every message read once" {
	tmq-topic create -k u32 -p 6 ev
	start_member a
	wait_until settled 1 6
	run settled 1 6
	assert_output "1:0,1,2,3,4,5"
	start_member b
	wait_until settled 2 6
	run settled 2 6
	assert_output "1:0,2,4 2:1,3,5"
	start_member c
	wait_until settled 3 6
	run settled 3 6
	assert_output "1:0,4 2:1,3 3:2,5"
	# Resetting under active members is refused.
	run --separate-stderr tmq-group reset G --to start
	assert_fails_with "tmq-group: G: 3 members are active: stop them or use --force"

	: >"$BATS_TEST_TMPDIR/want"
	put_batch 1 300 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 300 "$BATS_TEST_TMPDIR"/[abc].out
	sleep 0.3
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR"/[abc].out
	assert_output "300 read, 0 duplicated, 0 missing, 0 unexpected"
	# Each read its own share, which for 300 keys over 6 partitions is
	# something for everyone.
	for m in a b c; do
		[ -s "$BATS_TEST_TMPDIR/$m.out" ]
	done
	stop_bg a
	stop_bg b
	stop_bg c
}

@test "members starting at once on a new group: one creates it, all join with distinct ids" {
	tmq-topic create -k u32 -p 6 ev
	start_member a
	start_member b
	start_member c
	wait_until settled 3 6
	run settled 3 6
	assert_output --regexp '^[0-9]+:[0-9,]+ [0-9]+:[0-9,]+ [0-9]+:[0-9,]+$'
	local ids
	ids=$(sed 's/:[0-9,]*//g' <<<"$output")
	# One JOINED that counts per id (any others were aborted), and those
	# are the three members' ids (1, 2 and 3 unless two claims met).
	run python3 -c '
import json, sys
first = {}
for l in open(sys.argv[1]):
    m = json.loads(l)
    if m["type"] == "~~TWAIN~~JOINED":
        first.setdefault(m["key"], m["payload"]["tag"])
print(" ".join(map(str, sorted(first))))' "$BATS_TEST_TMPDIR/log.jsonl"
	assert_output "$ids"
	# One group, made once: one initial COMMIT, under key 0.
	run grep -c '"key":0,.*COMMIT' "$BATS_TEST_TMPDIR/log.jsonl"
	assert_output 1
	# Nobody gave up (a member that lost the race to create the group
	# once failed with "G: no such group").
	stop_bg a
	stop_bg b
	stop_bg c
}

@test "a member that leaves (TERM) hands its partitions to the others; with --commit nothing is read twice" {
	tmq-topic create -k u32 -p 6 ev
	start_member a --commit
	wait_until settled 1 6
	start_member b --commit
	wait_until settled 2 6
	start_member c --commit
	wait_until settled 3 6
	run settled 3 6
	assert_output "1:0,4 2:1,3 3:2,5"

	: >"$BATS_TEST_TMPDIR/want"
	put_batch 1 150 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 150 "$BATS_TEST_TMPDIR"/[abc].out
	before=$(wc -l <"$BATS_TEST_TMPDIR/b.out")

	stop_bg b
	# b wrote a BEGINREBAL and an empty offer on its way out.
	run python3 -c '
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
print([(m["type"][9:], m["payload"]) for m in log if m["key"] == 2][-2:])' \
	    <(tmq-dump -J -- --group--G)
	assert_output --regexp "^\[\('BEGINREBAL', \{'timestamp': [0-9.]+\}\), \('REBALOFFER', \{'own': \[\], 'partitions': \[\]\}\)\]$"
	wait_until settled 2 6
	# Owners keep theirs and share b's.
	run settled 2 6
	assert_output "1:0,1,4 3:2,3,5"

	put_batch 151 300 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 300 "$BATS_TEST_TMPDIR"/[abc].out
	sleep 0.3
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR"/[abc].out
	assert_output "300 read, 0 duplicated, 0 missing, 0 unexpected"
	# b read nothing after it left; the survivors read all of the rest.
	run wc -l <"$BATS_TEST_TMPDIR/b.out"
	assert_output "$before"
	run read_once <(seq 151 300 | sed 's/^/msg-/') \
	    <(cat "$BATS_TEST_TMPDIR"/[ac].out | grep -Fxf <(seq 151 300 | sed 's/^/msg-/'))
	assert_output "150 read, 0 duplicated, 0 missing, 0 unexpected"
	stop_bg a
	stop_bg c
	run --separate-stderr tmq-group describe --max-lag 0 G
	assert_success
}

# all_read N FILE...: N distinct lines in the files together.
all_read() {
	local n=$1
	shift
	[ "$(sort -u "$@" | wc -l)" -ge "$n" ]
}

# member_strace NAME INJECT [STRACE OPTIONS...]: a following member of
# group G on ev with --commit, printing payloads to NAME.out, under strace
# with the fault INJECT (--window WINDOW, 5 unless set, and
# --session-timeout SESSION, 45 unless set); NAME.pid is tmq-get's own
# (NAME-s.pid strace's).
# (LeakSanitizer cannot run under strace: ptrace.)
member_strace() {
	local name=$1 inject=$2
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	start_bg "$name-s" strace -f -qq -o /dev/null "$@" -e inject="$inject" \
	    bash -c 'echo $$ >"$0.pid"; exec tmq-get -g G --window "$1" --session-timeout "$2" -f --commit ev >"$0.out"' \
	    "$BATS_TEST_TMPDIR/$name" "${WINDOW:-5}" "${SESSION:-45}"
	wait_for test -s "$BATS_TEST_TMPDIR/$name.pid"
	track "$(cat "$BATS_TEST_TMPDIR/$name.pid")"
}

# member_strace_stop NAME: TERM to NAME's tmq-get; wait for its strace.
member_strace_stop() {
	kill -TERM "$(cat "$BATS_TEST_TMPDIR/$1.pid")"
	wait "$(cat "$BATS_TEST_TMPDIR/$1-s.pid")"
}

@test "a member busy with a backlog prints nothing between its offer and the rebalance's end: with --commit, what moves is read once" {
	# a reads a backlog, slowly (each read of a partition file 5 ms
	# late); b joins, its offer 300 ms after its BEGINREBAL (as on
	# CephFS, where a saw b's BEGINREBAL through its own client before
	# b's offer).  b starts its share at a's latest commit before the
	# ENDREBAL; what a printed after that, until it read the ENDREBAL
	# (it looks at the log once every 1,024 records), b read again:
	# about 500 records here, and 512 at a rebalance on CephFS.
	require_strace
	strace -f -qq -o /dev/null -e trace=write -e inject=write:delay_enter=1 \
	    true || skip "this strace cannot delay system calls (inject=)"
	local n=400000 log
	tmq-topic create -k u32 -p 4 ev
	: >"$BATS_TEST_TMPDIR/want"
	put_batch 1 $n "$BATS_TEST_TMPDIR/want"
	member_strace a read,pread64:delay_enter=5000 \
	    -P "$(echo "$TMQ_ROOT"/ev/0-*.tmf)" -P "$(echo "$TMQ_ROOT"/ev/1-*.tmf)" \
	    -P "$(echo "$TMQ_ROOT"/ev/2-*.tmf)" -P "$(echo "$TMQ_ROOT"/ev/3-*.tmf)" \
	    -e trace=read,pread64
	wait_until lines_at_least 2000 "$BATS_TEST_TMPDIR/a.out"
	log=$(echo "$TMQ_ROOT"/--group--G/0-*.tmf)
	# b's third line in the log (JOINED, BEGINREBAL, then its offer) is
	# written 300 ms late.
	member_strace b write:delay_enter=300000:when=3 -P "$log" -e trace=write
	wait_until all_read $n "$BATS_TEST_TMPDIR"/[ab].out
	wait_until settled 2 4
	member_strace_stop a
	member_strace_stop b
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR"/[ab].out
	assert_output "$n read, 0 duplicated, 0 missing, 0 unexpected"
	# b joined while a still had most of the backlog before it (or the
	# test would show nothing): b read its share of it.
	run lines_at_least $((n / 8)) "$BATS_TEST_TMPDIR/b.out"
	assert_success
}

# in_rebalance: group G is in a rebalance (by describe --json).
in_rebalance() {
	tmq-group describe --json G | python3 -c '
import json, sys
sys.exit(json.load(sys.stdin)["state"] != "rebalancing")'
}

@test "a member holds its reading in a rebalance for 2 s at most: one slow to answer holds up nobody longer" {
	require_strace
	strace -f -qq -o /dev/null -e trace=write -e inject=write:delay_enter=1 \
	    true || skip "this strace cannot delay system calls (inject=)"
	local log
	tmq-topic create -k u32 -p 2 ev
	start_member a --commit
	wait_until settled 1 2
	log=$(echo "$TMQ_ROOT"/--group--G/0-*.tmf)
	# b joins with a window and a session of 100 s (its silence is no
	# death for that long), and its offer comes a minute late.
	WINDOW=100 SESSION=100 member_strace b write:delay_enter=60000000:when=3 -P "$log" \
	    -e trace=write
	wait_until in_rebalance
	: >"$BATS_TEST_TMPDIR/want"
	put_batch 1 10 "$BATS_TEST_TMPDIR/want"
	# a prints them, after 2 s of the rebalance, before b's offer.
	wait_until lines_at_least 10 "$BATS_TEST_TMPDIR/a.out"
	run grep -c '"key":2,.*REBALOFFER' <(tmq-dump -J -- --group--G)
	assert_output 0
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/a.out"
	assert_output "10 read, 0 duplicated, 0 missing, 0 unexpected"
}

@test "a member whose reader goes away (| head) leaves the group, then ends quietly by SIGPIPE as any reader does" {
	tmq-topic create ev -p 2
	seq 1 50000 | tmq-put ev
	run --separate-stderr bash -c 'tmq-get -g P --window 1 -f ev | head -n 2; echo "${PIPESTATUS[0]}"'
	assert_output $'1\n2\n141'
	assert_stderr ""
	# Its last word in the log: a rebalance in which it offers nothing.
	run bash -c "tmq-dump -J -- --group--P | tail -n 1"
	assert_output --partial '"type":"~~TWAIN~~REBALOFFER","payload":{"own":[],"partitions":[]}'
}

@test "a member that dies (KILL) loses its partitions without an operator" {
	tmq-topic create -k u32 -p 6 ev
	start_member a
	wait_until settled 1 6
	start_member b
	wait_until settled 2 6
	before=$(log_length)
	stop_bg b KILL
	# a sees b's lock gone and starts a rebalance; b cannot answer.
	wait_until settled 1 6
	run settled 1 6
	assert_output "1:0,1,2,3,4,5"
	run python3 -c '
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
print([(m["key"], m["type"][9:]) for m in log])' "$BATS_TEST_TMPDIR/log.jsonl" "$before"
	assert_output "[(1, 'BEGINREBAL'), (1, 'REBALOFFER'), (1, 'ENDREBAL'), (1, 'REBALCONFIRM')]"
	# b's lock file goes once the rebalance has moved its partitions (a
	# sweeps on its next look at the log).
	wait_until only_own_lock

	: >"$BATS_TEST_TMPDIR/want"
	put_batch 1 60 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 60 "$BATS_TEST_TMPDIR/a.out"
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/a.out"
	assert_output "60 read, 0 duplicated, 0 missing, 0 unexpected"
}

# only_own_lock: G's .tmq holds one member's lock file (and the -P lock).
only_own_lock() {
	local left
	left=$(ls -A -- "$TMQ_ROOT/--group--G/.tmq" | grep -vxE "lock|fence")
	[[ $left =~ ^live\.[0-9a-f]{16}$ ]]
}

# append_log MSG...: append group messages ID:KIND:JSON (KIND: 0 JOINED,
# 2 REBALOFFER, 4 BEGINREBAL, 5 ENDREBAL) to G's log in one write, as
# other members would have written them; NOW1 stands for a second from now.
append_log() {
	python3 - "$TMQ_ROOT/--group--G" "$@" <<-'EOF'
	import base64, os, struct, sys, time, zlib
	d = sys.argv[1]
	buf = b""
	for spec in sys.argv[2:]:
	    mid, kind, js = spec.split(":", 2)
	    js = js.replace("NOW1", repr(time.time() + 1))
	    raw = b"\xfb" + int(kind).to_bytes(2, "big") + js.encode()
	    z = zlib.compressobj(9, zlib.DEFLATED, -15)
	    body = z.compress(raw) + z.flush()
	    buf += (base64.b85encode(int(mid).to_bytes(4, "big")) +
	            base64.b85encode(struct.pack(">d", time.time())) +
	            base64.b85encode(body) + b"\n")
	last = sorted(f for f in os.listdir(d) if f.endswith(".tmf"))[-1]
	fd = os.open(os.path.join(d, last), os.O_WRONLY | os.O_APPEND)
	os.write(fd, buf)
	EOF
}

@test "a member reading the log late never takes away the lock file of one that joined and died meanwhile" {
	tmq-topic create -k u32 -p 2 ev
	start_member a -F '%p %o\n'
	wait_until settled 1 2
	# What a member blocked on its pipe reads all at once: a rebalance,
	# its end, then member 8 joining, starting a rebalance, offering, and
	# dying (its lock file is there, unlocked).  a confirms the first
	# rebalance before it reads that 8 joined: its lock file must stay,
	# or 8 is a member nobody can see die, and keeps its share for ever.
	touch "$TMQ_ROOT/--group--G/.tmq/live.0000000000001092"
	append_log '7:4:{"timestamp": NOW1}' '7:5:{}' \
	    '8:0:{"tag": 4242}' '8:4:{"timestamp": NOW1}' \
	    '8:2:{"own": [], "partitions": [0, 1]}'
	# 8 got a partition and is seen dead: a takes both back.
	wait_until settled 1 2
	run settled 1 2
	assert_output "1:0,1"
	printf '%s\n' 0:a 1:b 2:c 3:d | tmq-put -K : ev
	wait_until lines_at_least 4 "$BATS_TEST_TMPDIR/a.out"
	run sort "$BATS_TEST_TMPDIR/a.out"
	assert_output $'0 0\n0 1\n0 2\n1 0'
	# With its partitions moved, 8's file goes.
	wait_until only_own_lock
}

# sigterm_caught PID: the process has its SIGTERM handler in place.
sigterm_caught() {
	local mask
	mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status") &&
	    [ $((0x$mask >> 14 & 1)) = 1 ]
}

@test "SIGTERM while a member joins, or finds where to start, exits 0 and says nothing" {
	make_group
	# A long log, read whole by each member that joins (no snapshots):
	# the signal comes while it is still reading it.
	f=$(find "$TMQ_ROOT/--group--G" -maxdepth 1 -name '*.tmf')
	python3 - "$f" <<-'EOF'
	import base64, struct, sys, time, zlib
	raw = b"\xfb\x00\x06" + b'{"partition_offsets":[[0,1]]}'
	z = zlib.compressobj(9, zlib.DEFLATED, -15)
	line = (base64.b85encode((0).to_bytes(4, "big")) +
	        base64.b85encode(struct.pack(">d", time.time())) +
	        base64.b85encode(z.compress(raw) + z.flush()) + b"\n")
	with open(sys.argv[1], "ab") as out:
	    out.write(line * 200000)
	EOF
	for fixed in "" "-P 0"; do
		# shellcheck disable=SC2086
		TMQ_SNAPSHOT_EVERY=0 tmq-get -g G $fixed ev \
		    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
		pid=$!
		wait_until sigterm_caught "$pid"
		kill -TERM "$pid"
		rc=0
		wait "$pid" || rc=$?
		# Not "interrupted while joining", nor "partition 0: ...:
		# Interrupted system call", exit 1: a stop that was asked for.
		assert_equal "-g G $fixed: $rc $(cat "$BATS_TEST_TMPDIR/err")" "-g G $fixed: 0 "
	done
	# The group is as it was: a member reads all but the committed one.
	run --separate-stderr tmq-get -g G --window 1 -F '%p %o\n' ev
	assert_success
	assert_equal "${#lines[@]}" 39
	refute_line '0 0'
}

@test "describe and list probe the members' locks: alive, dead, or not known" {
	tmq-topic create -k u32 -p 4 ev
	start_member a
	wait_until settled 1 4
	run tmq-group describe G
	assert_line --index 3 "members:   1"
	assert_line --regexp '^1 +0,1,2,3 +[0-9T:.-]+Z +yes$'
	run tmq-group describe --json G
	assert_output --partial '"alive":{"1":true}'
	# Killed with no other member to notice: it holds its partitions, and
	# describe says it is dead; list and reset do not count it.
	stop_bg a KILL
	run tmq-group describe G
	assert_line --index 3 "members:   0 (and 1 dead)"
	assert_line --regexp '^1 +0,1,2,3 +[0-9T:.-]+Z +no$'
	run tmq-group describe --json G
	assert_output --partial '"alive":{"1":false}'
	run tmq-group list --json
	assert_output --partial '"group":"G","topic":"ev","members":0,'
	run --separate-stderr tmq-group reset G --to start
	assert_success
	# The next member takes everything at once: the dead one is not waited for.
	run --separate-stderr timeout 60 tmq-get -g G --window 600 -n 1 ev
	assert_success
	run bash -c "tmq-dump -J -- --group--G | grep '\"key\":2,.*REBALCONFIRM'"
	assert_output --partial '"payload":{"partitions":[0,1,2,3]}'
}

@test "rebalance on a group with no members, and on no group" {
	make_group
	before=$(log_length)
	run --separate-stderr tmq-group rebalance G --window 2
	assert_success
	assert_output ""
	assert_stderr ""
	# Under key 0, ending --window seconds after it was written (the end
	# is reckoned just before the line is stamped: within a second of it
	# on a machine however busy).
	run python3 -c '
import json, sys
m = json.loads(sys.stdin.readlines()[int(sys.argv[1])])
print(m["type"], m["key"], abs(m["payload"]["timestamp"] - m["timestamp"] - 2) < 1)' \
	    "$before" < <(tmq-dump -J -- --group--G)
	assert_output "~~TWAIN~~BEGINREBAL 0 True"
	# Nobody is alive to answer: the group is empty at once.
	run tmq-group describe G
	assert_line --index 2 "state:     empty"
	# The library's members hold no lock: their window is waited for.
	require_vectors
	cp -R "$VECTORS/root" "$BATS_TEST_TMPDIR/lib"
	run --separate-stderr tmq-group rebalance -d "$BATS_TEST_TMPDIR/lib" workers --window 600
	assert_success
	run tmq-group describe -d "$BATS_TEST_TMPDIR/lib" -t u32t workers
	assert_line --index 2 --regexp '^state: +rebalancing until [0-9T:.-]+Z$'
	run --separate-stderr tmq-group rebalance nosuch
	assert_fails_with "tmq-group: nosuch: no such group"
}

@test "a member restarted with --commit resumes at the committed offsets" {
	tmq-topic create -k u32 -p 6 ev
	: >"$BATS_TEST_TMPDIR/want"
	put_batch 1 60 "$BATS_TEST_TMPDIR/want"
	run --separate-stderr tmq-get -g G --window 1 --commit -n 20 ev
	assert_success
	assert_stderr ""
	assert_equal "${#lines[@]}" 20
	echo "$output" >"$BATS_TEST_TMPDIR/run1"
	run --separate-stderr tmq-get -g G --window 1 --commit ev
	assert_success
	assert_stderr ""
	echo "$output" >"$BATS_TEST_TMPDIR/run2"
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/run1" "$BATS_TEST_TMPDIR/run2"
	assert_output "60 read, 0 duplicated, 0 missing, 0 unexpected"
	run --separate-stderr tmq-group describe --max-lag 0 G
	assert_success
	# Only what was put since.
	: >"$BATS_TEST_TMPDIR/want2"
	put_batch 61 75 "$BATS_TEST_TMPDIR/want2"
	run --separate-stderr tmq-get -g G --window 1 --commit ev
	assert_success
	echo "$output" >"$BATS_TEST_TMPDIR/run3"
	run read_once "$BATS_TEST_TMPDIR/want2" "$BATS_TEST_TMPDIR/run3"
	assert_output "15 read, 0 duplicated, 0 missing, 0 unexpected"
	# Without --commit nothing is recorded: the same again.
	put_batch 76 80 "$BATS_TEST_TMPDIR/want2"
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_equal "${#lines[@]}" 5
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_equal "${#lines[@]}" 5
}

@test "a member joining the library's group resumes at the library's commits" {
	copy_vectors_root "$BATS_TEST_TMPDIR/vroot"
	export TMQ_ROOT="$BATS_TEST_TMPDIR/vroot"
	run --separate-stderr tmq-get -g workers --window 1 --commit -F '%p %o\n' u32t
	assert_success
	assert_stderr ""
	run sort -n -k1,1 -k2,2 <<<"$output"
	assert_output "$( (seq 21 27 | sed 's/^/0 /'; seq 29 40 | sed 's/^/1 /'; seq 1 11 | sed 's/^/3 /'))"
	# It took id 3 (the library's members had 1 and 2), and committed.
	run tmq-dump -J -- --group--workers
	assert_line --index 19 --partial '"key":3,'
	assert_line --index 19 --partial '"type":"~~TWAIN~~JOINED"'
	run --separate-stderr tmq-group describe --max-lag 0 -t u32t workers
	assert_success
}

# --- fixed partitions --------------------------------------------------

@test "-g G -P: fixed partitions read from the committed offsets, under the group's lock" {
	make_group
	tmq-commit G 0 2 1 4 2 0
	run --separate-stderr tmq-get -g G -P 0,1 -F '%p %o\n' ev
	assert_success
	assert_stderr ""
	run sort -n -k1,1 -k2,2 <<<"$output"
	assert_output "$( (seq 3 $(($(end_of 0) - 1)) | sed 's/^/0 /'; seq 5 $(($(end_of 1) - 1)) | sed 's/^/1 /'))"
	# No member joined.
	run tmq-dump -J -- --group--G
	refute_output --partial "JOINED"

	# A reader holding the lock...
	start_bg fixed tmq-get -g G -P 3 -f -F '%p %o\n' ev
	wait_until lines_at_least "$(end_of 3)" "$BATS_TEST_TMPDIR/fixed.out"
	run --separate-stderr tmq-get -g G -P 0,1 ev
	assert_fails_with "tmq-get: group G: another reader of fixed partitions holds the group's lock"
	assert_output ""
	stop_bg fixed
	# ...and free again once it is gone.
	run --separate-stderr tmq-get -g G -P 2 -n 1 -F '%p %o' ev
	assert_success
	assert_output "2 1"
	# The lock lives where the library does not look for partition files.
	[ -f "$TMQ_ROOT/--group--G/.tmq/lock" ]
}

@test "-g G -P --commit: the next fixed reader goes on from there" {
	make_group
	run --separate-stderr tmq-get -g G -P 0,2 --commit -n 5 -F '%p %o\n' ev
	assert_success
	assert_output "0 0
2 0
0 1
2 1
0 2"
	run committed
	assert_output "0=3 1=0 2=2 3=0"
	# Fixed readers commit under key 0.
	run tmq-dump -J -- --group--G
	assert_line --index 1 --partial '"key":0,'
	assert_line --index 1 --partial '"payload":{"partition_offsets":[[0,3],[2,2]]}'
	run --separate-stderr tmq-get -g G -P 0,2 --commit -n 2 -F '%p %o\n' ev
	assert_output "0 3
2 2"
	run --separate-stderr tmq-get -g G -P 7 ev
	assert_equal "$status" 1
	assert_stderr "tmq-get: ev: partition 7 does not exist (topic has 4)"
}

@test "-g workers -P on the library's group reads from the library's commits" {
	copy_vectors_root "$BATS_TEST_TMPDIR/vroot"
	run --separate-stderr tmq-get -d "$BATS_TEST_TMPDIR/vroot" -g workers -P 0,1 -J u32t
	assert_success
	assert_stderr ""
	echo "$output" >"$BATS_TEST_TMPDIR/got.jsonl"
	run python3 - "$VECTORS/expected.jsonl" "$BATS_TEST_TMPDIR/got.jsonl" <<-'EOF'
	import json, sys
	committed = {0: 21, 1: 29}
	want = []
	for l in open(sys.argv[1], encoding="utf-8"):
	    o = json.loads(l)
	    if "payload_b64" in o:
	        o["payload"] = o.pop("payload_b64")
	    if o["topic"] == "u32t" and o["offset"] >= committed.get(o["partition"], 1e9):
	        want.append(o)
	got = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
	key = lambda o: (o["partition"], o["offset"])
	print(len(got), len(want), sorted(got, key=key) == sorted(want, key=key))
	EOF
	assert_output "19 19 True"
}

# --- reset ---------------------------------------------------------------

@test "reset --to start, now, OFFSET, with -P, and --shift-by" {
	make_group
	e0=$(end_of 0) e1=$(end_of 1) e2=$(end_of 2) e3=$(end_of 3)
	before=$(log_length)
	run --separate-stderr tmq-group reset G --to now
	assert_success
	assert_stderr ""
	assert_line --index 0 --regexp '^PARTITION +OLD-OFFSET +NEW-OFFSET$'
	assert_line --index 1 --regexp "^0 +0 +$e0\$"
	assert_line --index 4 --regexp "^3 +0 +$e3\$"
	assert_equal "${#lines[@]}" 5
	run committed
	assert_output "0=$e0 1=$e1 2=$e2 3=$e3"
	run log_length
	assert_output $((before + 1))

	run --separate-stderr tmq-group reset G --to 3 -P 1,2
	assert_success
	assert_output --regexp "^PARTITION +OLD-OFFSET +NEW-OFFSET
1 +$e1 +3
2 +$e2 +3\$"
	run committed
	assert_output "0=$e0 1=3 2=3 3=$e3"

	run --separate-stderr tmq-group reset G --shift-by -2
	assert_success
	run committed
	assert_output "0=$((e0 - 2)) 1=1 2=1 3=$((e3 - 2))"
	# Clamped to the partition: not before its first offset...
	run --separate-stderr tmq-group reset G --shift-by -5 -P 1
	assert_line --index 1 --regexp '^1 +1 +0$'
	# ...nor past its end.
	run --separate-stderr tmq-group reset G --shift-by +100 -P 0
	assert_line --index 1 --regexp "^0 +$((e0 - 2)) +$e0\$"
	run --separate-stderr tmq-group reset G --to 1000 -P 3
	assert_line --index 1 --regexp "^3 +$((e3 - 2)) +$e3\$"
	# --shift-by moves from --to when both are given.
	run --separate-stderr tmq-group reset G --to start --shift-by 4
	assert_success
	run committed
	assert_output "0=4 1=4 2=4 3=4"
	run --separate-stderr tmq-group reset G --to start
	run committed
	assert_output "0=0 1=0 2=0 3=0"
	# The reset offsets are where a fixed reader starts.
	tmq-group reset G --to 2 -P 3 >/dev/null
	run --separate-stderr tmq-get -g G -P 3 -n 1 -F '%p %o' ev
	assert_output "3 2"

	before=$(log_length)
	run --separate-stderr tmq-group reset G --to start -P 7
	assert_fails_with "tmq-group: G: partition 7 does not exist (topic has 4)"
	run --separate-stderr tmq-group reset G --shift-by x
	assert_equal "$status" 2
	[[ $stderr == "tmq-group: --shift-by: "* ]]
	run --separate-stderr tmq-group reset nosuch --to start
	assert_fails_with "tmq-group: nosuch: no such group"
	run log_length
	assert_output "$before"
}

@test "reset --to @TIME and ISO 8601: the first message at or after it" {
	# Partition 0 at 1000, 2000, 3000, 4000; partition 1 at 1500, 2500, 3500.
	tmq-topic create -p 2 tv
	for t in 1000 2000 3000 4000; do
		tmq_write_line "$TMQ_ROOT/tv" 0-19700101_0.tmf u16 1 "$t" "p0 at $t"
	done
	for t in 1500 2500 3500; do
		tmq_write_line "$TMQ_ROOT/tv" 1-19700101_0.tmf u16 2 "$t" "p1 at $t"
	done
	tmq-get -g G -P 0 -n 1 tv >/dev/null
	run --separate-stderr tmq-group reset G --to @2500
	assert_success
	assert_line --index 1 --regexp '^0 +0 +2$'
	assert_line --index 2 --regexp '^1 +0 +1$'
	run --separate-stderr tmq-get -g G -P 0,1 tv
	assert_output "p0 at 3000
p1 at 2500
p0 at 4000
p1 at 3500"
	run --separate-stderr tmq-group reset G --to @2000 -P 0
	assert_line --index 1 --regexp '^0 +2 +1$'
	run --separate-stderr tmq-group reset G --to 1970-01-01T00:50:00Z
	assert_success
	assert_line --index 1 --regexp '^0 +1 +2$'
	assert_line --index 2 --regexp '^1 +1 +2$'
	run --separate-stderr tmq-group reset G --to @9999
	assert_line --index 1 --regexp '^0 +2 +4$'
	assert_line --index 2 --regexp '^1 +2 +3$'
	run --separate-stderr tmq-group reset G --to @0
	assert_line --index 1 --regexp '^0 +4 +0$'
	assert_line --index 2 --regexp '^1 +3 +0$'
}

@test "reset --to: every form of tmq(7)'s TIMES; OFFSET and -N stay counts" {
	local now f
	aged_topic ev
	tmq-get -g G -n 1 ev >/dev/null
	for f in 1h -1h 60m 3600s "@$((now - 3600))" "@$((now - 3600)).5" \
	    "$(date -u -d @$((now - 3600)) +%Y-%m-%dT%H:%M:%SZ)" \
	    "$(date -d @$((now - 3600)) +%Y-%m-%dT%H:%M:%S%:z)" 1 -1; do
		run --separate-stderr tmq-group reset G --to "$f" --dry-run
		assert_success
		assert_line --index 1 --regexp '^0 +0 +1$'
	done
	for f in 3h -3h 1d 0; do
		run --separate-stderr tmq-group reset G --to "$f" --dry-run
		assert_line --index 1 --regexp '^0 +0 +0$'
	done
	# "now" is the end; a time after the newest message is the end too.
	for f in now "@$((now + 60))"; do
		run --separate-stderr tmq-group reset G --to "$f" --dry-run
		assert_line --index 1 --regexp '^0 +0 +2$'
	done
	run --separate-stderr tmq-group reset G --to "$now.5"
	assert_usage_error tmq-group "--to: '$now.5': a bare number with a fraction is not a position (write @$now.5 for Unix seconds)"
	for f in 1x 1.h 30m1h @ @1e9 h; do
		run --separate-stderr tmq-group reset G --to "$f"
		assert_usage_error tmq-group "--to: '$f': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	done
}

@test "reset --dry-run prints OLD and NEW and writes nothing" {
	make_group
	tmq-commit G 0 4 >/dev/null
	before=$(log_length)
	run --separate-stderr tmq-group reset G --to now --dry-run
	assert_success
	assert_stderr ""
	assert_line --index 0 --regexp '^PARTITION +OLD-OFFSET +NEW-OFFSET$'
	assert_line --index 1 --regexp "^0 +5 +$(end_of 0)\$"
	assert_line --index 2 --regexp "^1 +0 +$(end_of 1)\$"
	run --separate-stderr tmq-group reset G --shift-by -3 -P 0 --dry-run
	assert_output --regexp '^PARTITION +OLD-OFFSET +NEW-OFFSET
0 +5 +2$'
	run log_length
	assert_output "$before"
	run committed
	assert_output "0=5 1=0 2=0 3=0"
}

@test "reset refuses while a member is active, unless --force" {
	make_group
	start_member a
	wait_until settled 1 4
	before=$(log_length)
	run --separate-stderr tmq-group reset G --to now
	assert_fails_with "tmq-group: G: 1 member is active: stop it or use --force"
	assert_output ""
	run log_length
	assert_output "$before"
	# A dry run harms nobody.
	run --separate-stderr tmq-group reset G --to now --dry-run
	assert_success
	assert_line --index 1 --regexp "^0 +0 +$(end_of 0)\$"
	run --separate-stderr tmq-group reset G --to 5 -P 1 --force
	assert_success
	assert_line --index 1 --regexp '^1 +0 +5$'
	run committed
	assert_output "0=0 1=5 2=0 3=0"
	# Once the member has left (and its rebalance is over), no --force.
	stop_bg a
	wait_until bash -c 'tmq-group describe --json G | grep -q "\"members\":{}"'
	run --separate-stderr tmq-group reset G --to 6 -P 1
	assert_success
	run committed
	assert_output "0=0 1=6 2=0 3=0"
}

# --- delete ----------------------------------------------------------------

@test "delete: --yes removes the group and only the group; without a terminal it refuses" {
	make_group
	run --separate-stderr setsid -w tmq-group delete G </dev/null
	assert_fails_with "tmq-group: no terminal to confirm on: use --yes"
	assert_output ""
	[ -f "$TMQ_ROOT/--group--G.twc" ]
	run --separate-stderr tmq-group delete --yes G
	assert_success
	assert_output ""
	assert_stderr ""
	[ ! -e "$TMQ_ROOT/--group--G.twc" ]
	[ ! -e "$TMQ_ROOT/--group--G" ]
	run --separate-stderr tmq-group describe G
	assert_fails_with "tmq-group: G: no such group"
	run --separate-stderr tmq-group list
	assert_output ""
	run tmq-get ev
	assert_equal "${#lines[@]}" 40
	run --separate-stderr tmq-group delete -y G
	assert_fails_with "tmq-group: G: no such group"
	# A new group of that name starts afresh.
	run --separate-stderr tmq-get -g G -P 0 -n 1 -F '%o' ev
	assert_output 0
}

@test "delete refuses while a member is active, unless --force" {
	# As kafka-consumer-groups --delete of a group that is not empty: the
	# running member failed, its log gone under it.
	make_group
	start_member a
	wait_until settled 1 4
	run --separate-stderr tmq-group delete -y G
	assert_fails_with "tmq-group: G: 1 member is active: stop it or use --force"
	[ -f "$TMQ_ROOT/--group--G.twc" ]
	kill -0 "$(cat "$BATS_TEST_TMPDIR/a.pid")"
	run --separate-stderr tmq-group delete -y --force G
	assert_success
	[ ! -e "$TMQ_ROOT/--group--G.twc" ]
	kill "$(cat "$BATS_TEST_TMPDIR/a.pid")" || :
	wait "$(cat "$BATS_TEST_TMPDIR/a.pid")" || :
}

# --- the Python library as a fellow member ---------------------------------

# Topic ev with a message in every partition before any member starts: the
# library starts a partition that has no file yet at its end, whatever was
# committed (twainmq 0.1.9, TwainMQConsumerlet._seek_active_file), and would
# miss messages put after it was assigned.
make_seeded_topic() {
	tmq-topic create -k u32 -p 6 ev
	: >"$BATS_TEST_TMPDIR/want"
	seq 1 30 | awk '{ print $1 " seed-" $1 }' | tmq-put -K ' ' ev
	seq 1 30 | sed 's/^/seed-/' >>"$BATS_TEST_TMPDIR/want"
	run python3 -c '
import json, sys
print(all(p["end"] > 0 for p in json.load(sys.stdin)["partitions"]))' < <(tmq-topic info --json ev)
	assert_output True
}

# start_py NAME WINDOW: a library member of G on ev.
start_py() {
	start_bg "$1" python3 "$BATS_TEST_DIRNAME/pymember.py" "$TMQ_ROOT" ev G "$2" 30 \
	    "$BATS_TEST_TMPDIR/$1.stop"
}

# stop_py NAME: tell it to stop; it commits and exits 0.
stop_py() {
	local pid rc=0
	touch "$BATS_TEST_TMPDIR/$1.stop"
	pid=$(cat "$BATS_TEST_TMPDIR/$1.pid")
	wait "$pid" || rc=$?
	rm -f "$BATS_TEST_TMPDIR/$1.pid"
	assert_equal "$rc" 0
}

# both_read: every message read once between the two, both had a share.
check_shared() {
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/py.out" "$BATS_TEST_TMPDIR/tmq.out"
	assert_output "230 read, 0 duplicated, 0 missing, 0 unexpected"
	[ -s "$BATS_TEST_TMPDIR/py.out" ]
	[ -s "$BATS_TEST_TMPDIR/tmq.out" ]
	run grep '^py partitions' "$BATS_TEST_TMPDIR/py.err"
	assert_output --regexp '^py partitions \[[0-9]'
	run --separate-stderr tmq-group describe -t ev --max-lag 0 G
	assert_success
}

@test "library member first (it makes the group), then a tmq member: one group, each message once" {
	require_ref
	make_seeded_topic
	start_py py 3
	wait_until grep -q '^py joined as 1$' "$BATS_TEST_TMPDIR/py.err"
	start_bg tmq tmq-get -g G -f --window 2 --commit ev
	wait_until settled 2 6 G -t ev
	run settled 2 6 G -t ev
	assert_output "1:0,2,4 2:1,3,5"
	put_batch 1 200 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 230 "$BATS_TEST_TMPDIR/py.out" "$BATS_TEST_TMPDIR/tmq.out"
	stop_py py
	stop_bg tmq
	check_shared
	# The library made the group: its definition records no topic, but
	# the tmq member, which read ev, kept it beside the log
	# (grouptopic.h), and describe needs no -t.
	run grep -c '"topic"' "$TMQ_ROOT/--group--G.twc"
	assert_output 0
	[ "$(cat "$TMQ_ROOT/--group--G/.tmq/topic")" = ev ]
	run --separate-stderr tmq-group describe --json G
	assert_success
	[[ $output == '{"group":"G","topic":"ev",'* ]]
}

@test "tmq member first (it makes the group), then a library member: one group, each message once" {
	require_ref
	make_seeded_topic
	start_bg tmq tmq-get -g G -f --window 3 --commit ev
	wait_until bash -c 'tmq-dump -J -- --group--G | grep -q JOINED'
	start_py py 2
	wait_until settled 2 6
	run settled 2 6
	assert_output "1:0,2,4 2:1,3,5"
	run grep '^py joined as' "$BATS_TEST_TMPDIR/py.err"
	assert_output "py joined as 2"
	put_batch 1 200 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 230 "$BATS_TEST_TMPDIR/py.out" "$BATS_TEST_TMPDIR/tmq.out"
	stop_py py
	stop_bg tmq
	check_shared
}

@test "a library member, a plain tmq member and a --exec member share one group: each message once, by one of them" {
	require_ref
	make_seeded_topic
	# The library's member last: this one commits only when it stops
	# (pymember.py), so a partition taken from it would be read again.
	start_bg tmq tmq-get -g G -f --window 3 --commit ev
	wait_until bash -c 'tmq-dump -J -- --group--G | grep -q JOINED'
	start_bg x tmq-get -g G -f --window 3 --jobs 2 --shell \
	    --exec 'cat; echo' ev
	wait_until settled 2 6
	start_py py 2
	wait_until settled 3 6
	put_batch 1 200 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 230 "$BATS_TEST_TMPDIR/py.out" \
	    "$BATS_TEST_TMPDIR/tmq.out" "$BATS_TEST_TMPDIR/x.out"
	stop_py py
	stop_bg tmq
	stop_bg x
	run read_once "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/py.out" \
	    "$BATS_TEST_TMPDIR/tmq.out" "$BATS_TEST_TMPDIR/x.out"
	assert_output "230 read, 0 duplicated, 0 missing, 0 unexpected"
	[ -s "$BATS_TEST_TMPDIR/py.out" ]
	[ -s "$BATS_TEST_TMPDIR/tmq.out" ]
	[ -s "$BATS_TEST_TMPDIR/x.out" ]
	run --separate-stderr tmq-group describe -t ev --max-lag 0 G
	assert_success
}

# --- group state snapshots (--group--G/.tmq/snapshot) ----------------------

# add_commits GROUP N PARTITION [OFFSET]: append N COMMIT lines (key 0) of
# PARTITION at OFFSET (by default 1, 2, ... N) to the group's last log
# file, at once, as a pipeline committing for a long time leaves them.
add_commits() {
	local f
	f=$(find "$TMQ_ROOT/--group--$1" -maxdepth 1 -name '*.tmf' | sort -t_ -k2n | tail -n 1)
	python3 - "$f" "$2" "$3" "${4-}" <<-'EOF'
	import base64, struct, sys, time, zlib
	path, n, p, o = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
	out = []
	for i in range(n):
	    body = '{"partition_offsets":[[%d,%d]]}' % (p, int(o) if o else i + 1)
	    raw = b"\xfb\x00\x06" + body.encode()
	    z = zlib.compressobj(9, zlib.DEFLATED, -15)
	    out.append(base64.b85encode((0).to_bytes(4, "big")) +
	               base64.b85encode(struct.pack(">d", time.time())) +
	               base64.b85encode(z.compress(raw) + z.flush()) + b"\n")
	with open(path, "ab") as f:
	    f.write(b"".join(out))
	EOF
}

# swap_commit GROUP FROM TO: in the group's log, rewrite in place the COMMIT
# whose body is FROM into one whose body is TO, of the same length, as an
# editor would (same file, same size).
swap_commit() {
	python3 - "$TMQ_ROOT/--group--$1" "$2" "$3" <<-'EOF'
	import base64, glob, sys, zlib
	d, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
	def enc(raw):
	    z = zlib.compressobj(9, zlib.DEFLATED, -15)
	    return base64.b85encode(z.compress(raw) + z.flush())
	for path in glob.glob(d + "/*.tmf"):
	    data = open(path, "rb").read()
	    at = 0
	    for line in data.split(b"\n"):
	        try:
	            raw = zlib.decompress(base64.b85decode(line[15:]), -15)
	        except Exception:
	            raw = b""
	        if raw == b"\xfb\x00\x06" + old:
	            body = enc(b"\xfb\x00\x06" + new)
	            assert len(body) == len(line) - 15, "not the same length"
	            with open(path, "r+b") as f:
	                f.seek(at + 15)
	                f.write(body)
	            sys.exit(0)
	        at += len(line) + 1
	sys.exit("no such commit")
	EOF
}

# The last run's stderr: the group log's index refused, once, as of a
# file written to in place.
assert_stderr_idx_rewritten() {
	assert_equal "$(wc -l <<<"$stderr")" 1
	[[ $stderr == "tmq-group: --group--G: .tmq/0-"*".$EUID.idx refused (the file was written to in place since it was indexed): the file is read without it" ]]
}

@test "snapshot: describe on a long log leaves one beside the log, and the next reader starts from it" {
	make_group
	add_commits G 600 0
	add_commits G 1 1 7
	add_commits G 600 0
	[ ! -e "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID" ]
	run --separate-stderr committed
	assert_output "0=600 1=7 2=0 3=0"
	assert_equal "$stderr" ''
	[ -f "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID" ]
	# Proof that readers start from it: the one commit of partition 1, in
	# the middle of the log (where a snapshot does not look), rewritten
	# by hand.  A full replay (TMQ_SNAPSHOT_EVERY=0: no snapshots) sees
	# the change; readers going on from the snapshot do not.  (The log's
	# index sees the file written to in place, and says so.)
	swap_commit G '{"partition_offsets":[[1,7]]}' '{"partition_offsets":[[2,7]]}'
	run committed
	assert_output "0=600 1=7 2=0 3=0"
	TMQ_SNAPSHOT_EVERY=0 run --separate-stderr committed
	assert_output "0=600 1=0 2=7 3=0"
	assert_stderr_idx_rewritten
	# Lines after the snapshot are read on from it.
	add_commits G 1 3 9
	run committed
	assert_output "0=600 1=7 2=0 3=9"
	# A member joins from it too: partition 1 resumes at 7.
	run --separate-stderr tmq-get -g G --window 1 -n 40 -F '%p %o\n' ev
	assert_success
	run grep -c '^1 7$' <<<"$output"
	assert_output 1
	# The snapshot is invisible to tmq's other readers and listings.
	run --separate-stderr tmq-dump --verify -- --group--G
	assert_success
	assert_output --regexp '^1 files, [0-9]+ lines, 0 corrupt$'
	run --separate-stderr tmq-group list
	assert_success
	assert_line --index 1 --regexp '^G +ev +0 +[0-9]+$'
	assert_equal "${#lines[@]}" 2
	run --separate-stderr tmq-topic list
	assert_output ev
	run bash -c 'source "$1/completions/tmq.bash" && _tmq_names "$2" group "" &&
	    _tmq_names "$2" topic "" && printf "%s\n" "${COMPREPLY[@]}"' _ \
	    "$BATS_TEST_DIRNAME/.." "$TMQ_ROOT"
	assert_output $'G\nev'
}

@test "snapshot: a log replaced, rewritten near its end or truncated is replayed in full" {
	local f want
	make_group
	add_commits G 1200 0
	add_commits G 1 1 7
	run committed
	assert_output "0=1200 1=7 2=0 3=0"
	[ -f "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID" ]
	f=$(echo "$TMQ_ROOT"/--group--G/*.tmf)
	# Rewritten near the end (same file, same size): seen (and by the
	# log's index too).
	swap_commit G '{"partition_offsets":[[1,7]]}' '{"partition_offsets":[[2,7]]}'
	run --separate-stderr committed
	assert_output "0=1200 1=0 2=7 3=0"
	assert_stderr_idx_rewritten
	# Replaced by another file (a restore, a copy): seen.
	head -n 300 "$f" >"$f.new"
	mv "$f.new" "$f"
	TMQ_SNAPSHOT_EVERY=0 run committed
	want=$output
	[ "$want" != "0=1200 1=0 2=7 3=0" ]
	run committed
	assert_output "$want"
	# Truncated (rolled back), under a snapshot of its own: seen.
	add_commits G 1200 3
	run committed
	assert_output --regexp ' 3=1200$'
	truncate -s "$(($(stat -c %s "$f") / 2))" "$f"
	TMQ_SNAPSHOT_EVERY=0 run committed
	want=$output
	[[ $want != *' 3=1200' ]]
	run committed
	assert_output "$want"
	# The group deleted and made again: its snapshot went with it.
	tmq-group delete --yes G
	[ ! -e "$TMQ_ROOT/--group--G" ]
	tmq-get -g G -P 0 -n 1 ev >/dev/null
	run committed
	assert_output "0=0 1=0 2=0 3=0"
}

@test "snapshot: a reader that may not write the group's directory reads the state without one, and uses none of another user's" {
	local base run_as want
	[ "$(id -u)" = 0 ] || skip "needs root (to run the tools as nobody)"
	if command -v setpriv >/dev/null; then
		run_as() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups -- "$@"; }
	else
		run_as() { runuser -u nobody -- "$@"; }
	fi
	# Under /tmp: nobody cannot get through the test's own 0700 directories.
	base=$(mktemp -d "${TMPDIR:-/tmp}/tmq-t0400.XXXXXX")
	chmod 755 "$base"
	export TMQ_ROOT="$base/root"
	run_as true || skip "cannot run as nobody here"
	make_group
	add_commits G 1200 0
	add_commits G 1 1 7
	add_commits G 1200 0
	TMQ_SNAPSHOT_EVERY=0 run committed
	want=$output
	assert_equal "$want" "0=1200 1=7 2=0 3=0"
	run --separate-stderr run_as env PATH="$PATH" TMQ_ROOT="$TMQ_ROOT" bash -c \
	    "$(declare -f committed); committed"
	assert_success
	assert_output "$want"
	assert_equal "$stderr" ''
	[ ! -e "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID" ]
	# One written by a reader who may is that user's: nobody does not
	# start from it (a log rewritten in its middle, where a snapshot
	# does not look, shows it: nobody reads the log as it now is, the
	# snapshot's user as it was).
	run committed
	[ -f "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID" ]
	swap_commit G '{"partition_offsets":[[1,7]]}' '{"partition_offsets":[[2,7]]}'
	run --separate-stderr run_as env PATH="$PATH" TMQ_ROOT="$TMQ_ROOT" bash -c \
	    "$(declare -f committed); committed"
	assert_success
	assert_output "0=1200 1=0 2=7 3=0"
	assert_equal "$stderr" ''
	run committed
	assert_output "$want"
	rm -rf "$base"
}

@test "snapshot: the library's member shares a group whose tmq members write snapshots beside the log" {
	require_ref
	make_seeded_topic
	export TMQ_SNAPSHOT_EVERY=1
	start_bg tmq tmq-get -g G -f --window 3 --commit ev
	wait_until test -f "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID"
	start_py py 2
	wait_until settled 2 6
	run settled 2 6
	assert_output "1:0,2,4 2:1,3,5"
	put_batch 1 200 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 230 "$BATS_TEST_TMPDIR/py.out" "$BATS_TEST_TMPDIR/tmq.out"
	stop_py py
	stop_bg tmq
	check_shared
	[ -f "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID" ]
	TMQ_SNAPSHOT_EVERY=0 run committed
	local want=$output
	run committed
	assert_output "$want"
}

@test "every output path reports a write error on standard output, exit 1" {
	make_group
	assert_write_error tmq-group list
	assert_write_error tmq-group list --json
	assert_write_error tmq-group describe G
	assert_write_error tmq-group describe --json G
	assert_write_error tmq-group reset G --to start --dry-run
	assert_write_error tmq-group reset G --to start
	assert_write_error tmq-group -h
	assert_write_error tmq-group -V
	assert_write_error tmq-group --completion-helper
	run --separate-stderr bash -c 'tmq-group rebalance G >/dev/full'
	assert_success
}

@test "reset whose table cannot be written resets nothing" {
	# It reset, then exited 1 for the write error: a script that ran it
	# again shifted twice, and the old offsets were lost.
	make_group
	run committed
	local before=$output
	run --separate-stderr bash -c 'tmq-group reset G --shift-by 3 >/dev/full'
	assert_failure 1
	assert_equal "$stderr" "tmq-group: G: nothing reset: the old offsets could not be written
tmq-group: write error on standard output: No space left on device"
	run committed
	assert_output "$before"
}

@test "reset whose commit fails after its table says the table was not applied" {
	make_group
	run committed
	local before=$output
	# A file size limit of 0 fails the commit's write (EFBIG), after the
	# look at the log found it writable; the table and the message go
	# through pipes, to which the limit does not apply; the one stderr
	# goes through is waited for, so that what it says is all here.
	run --separate-stderr bash -c '{ (trap "" XFSZ; ulimit -f 0 && exec tmq-group reset G --shift-by 3) | cat; rc=${PIPESTATUS[0]}; } 2> >(cat >&2); wait $!; exit "$rc"'
	assert_failure 1
	assert_line --index 0 --regexp '^PARTITION +OLD-OFFSET +NEW-OFFSET$'
	assert_equal "$stderr" "tmq-group: G: the reset above was not applied: --group--G: partition 0: write failed: File too large"
	run committed
	assert_output "$before"
}

@test "reset: -P given twice is a usage error, not the last list alone" {
	make_group
	run committed
	local before=$output
	run --separate-stderr tmq-group reset G --to now -P 0 -P 1
	assert_usage_error tmq-group "-P given twice: give one list (N[,N...])"
	run committed
	assert_output "$before"
}

# --- options that a command does not take ------------------------------

@test "every command refuses every option it does not take (the whole table)" {
	check_option_table tmq-group
}

@test "a foreign option is never ignored: delete --dry-run deletes nothing, reset --json resets nothing" {
	make_group
	run committed
	local before=$output
	run --separate-stderr tmq-group delete G -y --dry-run
	assert_usage_error tmq-group "--dry-run is for reset, not delete"
	[ -e "$TMQ_ROOT/--group--G.twc" ]
	run --separate-stderr tmq-group reset G --to now --json
	assert_usage_error tmq-group "--json is for list and describe, not reset"
	run committed
	assert_output "$before"
	run --separate-stderr tmq-group describe G -P 1
	assert_usage_error tmq-group "-P is for reset, not describe"
	run --separate-stderr tmq-group rebalance G -t ev
	assert_usage_error tmq-group "-t is for describe, reset and wait, not rebalance"
	run --separate-stderr tmq-group --max-lag 3 list
	assert_usage_error tmq-group "--max-lag is for describe, not list"
}

@test "--to, --shift-by, --force and --yes are taken only in full; --dry abbreviates" {
	# getopt_long takes any unique prefix: '--shift' moved offsets,
	# '--for' overrode the check for active members, '--ye' deleted.
	make_group
	run committed
	local before=$output
	run --separate-stderr tmq-group reset G --shift=-1
	assert_usage_error tmq-group "'--shift': write --shift-by in full"
	run --separate-stderr tmq-group reset G --to now --for
	assert_usage_error tmq-group "'--for': write --force in full"
	run --separate-stderr tmq-group delete G --ye
	assert_usage_error tmq-group "'--ye': write --yes in full"
	run --separate-stderr tmq-group reset G --to now -d ''
	assert_usage_error tmq-group "-d: empty directory name"
	run --separate-stderr tmq-group reset G --to ''
	assert_usage_error tmq-group "--to: empty position"
	[ -e "$TMQ_ROOT/--group--G.twc" ]
	run committed
	assert_output "$before"
	run --separate-stderr tmq-group reset G --to now --dry
	assert_success
	run committed
	assert_output "$before"
}

@test "-h lists every command; --to shows -N" {
	run --separate-stderr tmq-group -h
	assert_success
	local sub
	for sub in list describe rebalance reset delete; do
		assert_line --regexp "^  $sub  +[a-z]"
	done
	assert_line --regexp '^      --to POS +reset: start, now, OFFSET, -N '
}

# --- liveness and windows ----------------------------------------------------

# settled_as WANT N NPARTS [GROUP [DESCRIBE-OPTIONS...]]: settled, and it
# printed WANT.
settled_as() {
	local want=$1 got
	shift
	got=$(settled "$@") && [ "$got" = "$want" ]
}

# past_end [GROUP]: a rebalance is under way and its window ended more
# than 2 s ago (by describe --json).
past_end() {
	tmq-group describe --json "${1:-G}" | python3 -c '
import json, sys, time
d = json.load(sys.stdin)
sys.exit(not (d["state"] == "rebalancing" and time.time() > d["rebalance_end"] + 2))'
}

# owns_all ID NPARTS [GROUP]: describe says member ID holds every partition
# and is alive.
owns_all() {
	tmq-group describe --json "${3:-G}" | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = list(range(int(sys.argv[2])))
sys.exit(not (d["members"].get(sys.argv[1]) == want and d["alive"][sys.argv[1]] is True))' "$1" "$2"
}

@test "a lone member reads at once, whatever its window: members that left or died are not waited for" {
	tmq-topic create -k u32 -p 4 ev
	seq 1 40 | awk '{ print $1 " m" $1 }' | tmq-put -K ' ' ev
	tmq-get -g G -n 5 ev >/dev/null
	tmq-get -g G -n 5 ev >/dev/null
	start_member k
	wait_until settled 1 4
	stop_bg k KILL
	# An hour's window, and a bound far below it.
	run --separate-stderr timeout 60 tmq-get -g G --window 3600 -n 10 ev
	assert_success
	assert_equal "${#lines[@]}" 10
	# Its rebalance ended before its window: it wrote the ENDREBAL.
	run bash -c "tmq-dump -J -- --group--G | tail -n 6 | grep -c '\"key\":4,.*\"type\":\"~~TWAIN~~ENDREBAL\"'"
	assert_output 1
}

@test "a stopped member (SIGSTOP) keeps its partitions past the window, within its session timeout" {
	tmq-topic create -k u32 -p 4 ev
	start_member a --session-timeout 600
	wait_until settled 1 4
	kill -STOP "$(cat "$BATS_TEST_TMPDIR/a.pid")"
	start_bg b tmq-get -g G --window 1 -f ev
	# b's window is over, and it still waits for a, which holds its lock.
	wait_until past_end
	run owns_all 1 4
	assert_success
	# describe says what the rebalance waits for, not a deadline past.
	run tmq-group describe G
	assert_line --index 2 --regexp '^state: +rebalancing, window over at [0-9T:.-]+Z: waiting for member 1 \(alive, silent [0-9]+ s of its 600 s session timeout\)$'
	kill -CONT "$(cat "$BATS_TEST_TMPDIR/a.pid")"
	wait_until settled 2 4
	run settled 2 4
	assert_output "1:0,2 2:1,3"
}

@test "a member blocked on a pipe nobody reads keeps its partitions until it reads on, within its session timeout" {
	tmq-topic create -k u32 -p 4 ev
	# Far more than a pipe holds (tmq-get asks for 1 MiB).
	seq 1 120000 | awk '{ print $1 " message-number-" $1 }' | tmq-put -K ' ' ev
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	exec 4<>"$BATS_TEST_TMPDIR/fifo"
	tmq-get -g G --window 1 --session-timeout 600 -f ev >"$BATS_TEST_TMPDIR/fifo" 2>"$BATS_TEST_TMPDIR/a.err" 3>&- 4>&- &
	echo $! >"$BATS_TEST_TMPDIR/a.pid"
	wait_until grep -q pipe_write "/proc/$(cat "$BATS_TEST_TMPDIR/a.pid")/wchan"
	start_bg b tmq-get -g G --window 1 -f ev
	wait_until past_end
	run owns_all 1 4
	assert_success
	# The reader reads on: a answers, and the two share.
	start_bg drain cat "$BATS_TEST_TMPDIR/fifo"
	exec 4>&-
	wait_until settled 2 4
	run settled 2 4
	assert_output "1:0,2 2:1,3"
}

@test "files beside the log: tmq-dump, list and the completions ignore the members' lock files" {
	tmq-topic create -k u32 -p 4 ev
	start_member a
	wait_until settled 1 4
	start_member b
	wait_until settled 2 4
	stop_bg b KILL
	start_member c
	wait_until settled 2 4
	ls -A -- "$TMQ_ROOT/--group--G/.tmq" | grep -q '^live\.'
	run --separate-stderr tmq-dump -- --group--G
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr tmq-group list
	assert_success
	assert_equal "${#lines[@]}" 2
	run bash -c 'source "$1/completions/tmq.bash" && _tmq_names "$2" group "" &&
	    _tmq_names "$2" topic "" && printf "%s\n" "${COMPREPLY[@]}"' _ \
	    "$BATS_TEST_DIRNAME/.." "$TMQ_ROOT"
	assert_output $'G\nev'
}

@test "the library ignores the lock files: it lists the topics and reads the group's log" {
	require_ref
	tmq-topic create -k u32 -p 4 ev
	start_member a
	wait_until settled 1 4
	ls -A -- "$TMQ_ROOT/--group--G/.tmq" | grep -q '^live\.'
	n=$(log_length)
	run python3 -c '
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
print(t.list_topics())
c = t.consumer("--group--G", start_from="start")
n = 0
while c.poll() is not None:
    n += 1
print(n)' "$TMQ_ROOT"
	assert_success
	assert_output "['ev']"$'\n'"$n"
}

@test "a library member that does not answer gets the whole window, then the others go on; every message read" {
	require_ref
	make_seeded_topic
	start_py py 2
	wait_until settled 1 6 G -t ev
	wait_until lines_at_least 30 "$BATS_TEST_TMPDIR/py.out"
	kill -STOP "$(cat "$BATS_TEST_TMPDIR/py.pid")"
	before=$(log_length)
	start_bg tmq tmq-get -g G -f --window 3 --commit ev
	# The library's member cannot be vouched for: the rebalance runs to
	# the end of its window, then tmq takes everything.
	wait_until settled_as "2:0,1,2,3,4,5" 1 6 G -t ev
	run python3 -c '
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
begin = [m for m in log if m["type"] == "~~TWAIN~~BEGINREBAL"][-1]
end = [m for m in log if m["type"] == "~~TWAIN~~ENDREBAL" and m["offset"] > begin["offset"]][0]
print(end["timestamp"] >= begin["payload"]["timestamp"])' "$BATS_TEST_TMPDIR/log.jsonl" "$before"
	assert_output True
	kill -CONT "$(cat "$BATS_TEST_TMPDIR/py.pid")"
	put_batch 1 200 "$BATS_TEST_TMPDIR/want"
	wait_until lines_at_least 200 "$BATS_TEST_TMPDIR/tmq.out"
	stop_py py
	stop_bg tmq
	# At least once: everything was read, by one or the other.
	run python3 - "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/py.out" "$BATS_TEST_TMPDIR/tmq.out" <<-'EOF'
	import sys
	want = set(open(sys.argv[1]).read().split())
	got = set(open(sys.argv[2]).read().split()) | set(open(sys.argv[3]).read().split())
	print(len(want - got), "missing")
	EOF
	assert_output "0 missing"
}

@test "a member that cannot make its lock file says so and reads, unvouched" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ "$(id -u)" = 0 ] || skip "needs root to run as another user"
	tmq-topic create ev -p 2
	tmq-put ev a
	tmq-get -g G -n 1 ev >/dev/null
	mkdir -p "$TMQ_ROOT/--group--G/.tmq"
	chmod 555 "$TMQ_ROOT/--group--G/.tmq"
	chmod -R a+rwX "$TMQ_ROOT/ev" "$TMQ_ROOT/--group--G"/*.tmf
	chmod a+rwx "$TMQ_ROOT" "$TMQ_ROOT/--group--G"
	# The user must reach the root: open the way down to it.
	local d=$TMQ_ROOT
	while d=$(dirname "$d") && [ "$d" != / ]; do chmod a+x "$d"; done
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$TMQ_BIN/tmq-get" -g G -n 1 ev
	assert_success
	assert_output a
	local re='^tmq-get: group G: no liveness lock \(\.tmq/live\.[0-9a-f]{16}: Permission denied\): rebalances will wait their window for this member$'
	# (after the warning that the root, open to every user, is at risk)
	assert_equal "${stderr%%$'\n'*}" "tmq-get: $TMQ_ROOT: the root is open to others: every user can write to it, so they can plant, change or remove its files (see tmq(7), A shared root)"
	[[ ${stderr#*$'\n'} =~ $re ]]
}

@test "a .tmq beside the log that links out of the root: a member makes no lock file there, and reads" {
	tmq-topic create ev
	tmq-put ev x
	tmq-get -g G -n 1 ev >/dev/null
	rm -r "$TMQ_ROOT/--group--G/.tmq"
	mkdir "$BATS_TEST_TMPDIR/out"
	ln -s "$BATS_TEST_TMPDIR/out" "$TMQ_ROOT/--group--G/.tmq"
	run --separate-stderr tmq-get -g G -n 1 ev
	assert_success
	assert_output x
	assert_equal "$stderr" "tmq-get: group G: no liveness lock (.tmq is a symbolic link (not followed)): rebalances will wait their window for this member"
	run ls -A "$BATS_TEST_TMPDIR/out"
	assert_output ''
	run --separate-stderr tmq-group describe G
	assert_success
}

@test "--window and --session-timeout are durations of tmq(7), from 1 s to a day" {
	tmq-topic create ev
	tmq-put ev a
	run --separate-stderr tmq-get -g G --window 1.5s --session-timeout 1m ev
	assert_equal "$status $output $stderr" "0 a "
	run --separate-stderr tmq-get -g G --window 0.5 ev
	assert_usage_error tmq-get "--window: '0.5': out of range (1 s to 86400 s)"
	run --separate-stderr tmq-get -g G --session-timeout 1d1s ev
	assert_usage_error tmq-get "--session-timeout: '1d1s': out of range (1 s to 86400 s)"
	run --separate-stderr tmq-get -g G --session-timeout 5x ev
	assert_usage_error tmq-get "--session-timeout: '5x': bad duration (want seconds, or numbers with units w, d, h, m and s, longest first: 90s, 10m, 1.5h, 1h30m, 1d, 1w)"
	run --separate-stderr tmq-group rebalance G --window 1m30s
	assert_success
}

@test "a member with no lock file (as the Python library's) killed without leaving: the others hand its partitions over after the library's window of silence, in a rebalance of that window" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ "$(id -u)" = 0 ] || skip "needs root to run as another user"
	tmq-topic create ev -p 2
	tmq-get -g G -n 1 --from now ev >/dev/null
	# The lockless member: one who cannot make its lock file in .tmq.
	mkdir -p "$TMQ_ROOT/--group--G/.tmq"
	chmod 555 "$TMQ_ROOT/--group--G/.tmq"
	chmod -R a+rwX "$TMQ_ROOT/ev" "$TMQ_ROOT/--group--G"/*.tmf
	chmod a+rwx "$TMQ_ROOT" "$TMQ_ROOT/--group--G"
	local d=$TMQ_ROOT
	while d=$(dirname "$d") && [ "$d" != / ]; do chmod a+x "$d"; done
	start_bg b setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$TMQ_BIN/tmq-get" -g G --window 1 -f -F '%p %o %s\n' ev
	wait_until settled 1 2
	start_member a -F '%p %o %s\n'
	wait_until settled 2 2
	# b holds a partition; a the other.  b dies without a word.
	kill -KILL "$(cat "$BATS_TEST_TMPDIR/b.pid")"
	seq 1 20 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	# Nothing says b is gone but its silence: within the library's window
	# (60 s) of it and a rebalance of that window, a has both partitions.
	TMQ_TEST_WAIT=400 wait_until lines_at_least 20 "$BATS_TEST_TMPDIR/a.out"
	run cut -d ' ' -f 1 "$BATS_TEST_TMPDIR/a.out"
	assert_line 0
	assert_line 1
	# The rebalance a began for the silence gives the library's members
	# its window: 60 seconds, not a's --window of 1.
	run bash -c "tmq-dump -q -J -- --group--G | python3 -c '
import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m[\"type\"] == \"~~TWAIN~~BEGINREBAL\":
        last = m[\"payload\"][\"timestamp\"] - m[\"timestamp\"]
print(round(last))'"
	assert_output 60
	stop_bg a INT	# (its stderr says the root is open to others)
}
