#!/usr/bin/env bats
# t0100-tmq-topic: tmq-topic create, list, info, partition and delete: the
# definitions it writes, what it refuses (message and exit status), its
# figures on the reference root, and the library's key -> partition map for
# every row of vectors/partitions.tsv.

load test_helper

# A lock holder a test started (lock_holder) goes with it, whatever happened.
teardown() {
	end_bg
}

twc_field() {	# twc_field FILE EXPR: evaluate EXPR on the parsed .twc as d
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2]), sort_keys=True))' "$1" "$2"
}

# --- create ---------------------------------------------------------------

@test "create: defaults to u16 keys, one partition, no types" {
	[ ! -e "$TMQ_ROOT" ]	# the first create makes the root
	run --separate-stderr tmq-topic create events
	assert_success
	assert_output ""
	assert_stderr ""
	[ -d "$TMQ_ROOT/events" ]
	[ -f "$TMQ_ROOT/events.twc" ]
	run twc_field "$TMQ_ROOT/events.twc" 'd'
	assert_output '{"key_width": 2, "message_types": {}, "partitions": 1}'
	# no temporary file is left behind
	run ls -A "$TMQ_ROOT"
	assert_output $'events\nevents.twc'
}

@test "create: -k, -p and -t" {
	run --separate-stderr tmq-topic create -k char8 -p 3 -t Order,Refund orders
	assert_success
	assert_stderr ""
	run twc_field "$TMQ_ROOT/orders.twc" 'd'
	assert_output '{"key_width": -8, "message_types": {"Order": 0, "Refund": 1}, "partitions": 3}'
}

@test "create: long options" {
	run --separate-stderr tmq-topic create --key-type u64 --partitions 65536 --types A events
	assert_success
	run twc_field "$TMQ_ROOT/events.twc" '[d["key_width"], d["partitions"], d["message_types"]]'
	assert_output '[8, 65536, {"A": 0}]'
}

@test "create: every key type has its key_width" {
	local kt
	for kt in u8:1 u16:2 u32:4 u64:8 char1:-1 char3:-3 char40:-40 char3000:-3000; do
		tmq-topic create -k "${kt%%:*}" "t_${kt%%:*}"
		run twc_field "$TMQ_ROOT/t_${kt%%:*}.twc" 'd["key_width"]'
		assert_output "${kt#*:}"
	done
}

@test "create: refuses an existing topic" {
	tmq-topic create -p 2 events
	run --separate-stderr tmq-topic create events
	assert_fails_with "tmq-topic: events: topic exists"
	assert_output ""
	run twc_field "$TMQ_ROOT/events.twc" 'd["partitions"]'
	assert_output 2
}

@test "create: refuses a name whose directory exists without a definition, and says that delete removes it" {
	# Never one of ours (a create renames its directory in whole, after
	# the definition): the library's create between its two steps, or
	# one of the library's or an older tmq's killed there.
	mkdir -p "$TMQ_ROOT/events"
	run --separate-stderr tmq-topic create events
	assert_fails_with "tmq-topic: events: not created: events/ exists without a definition (delete removes it)"
	[ ! -e "$TMQ_ROOT/events.twc" ]
	run --separate-stderr tmq-topic delete -y events
	assert_success
	assert_stderr ""
	run --separate-stderr tmq-topic create events
	assert_success
	run ls -A "$TMQ_ROOT"
	assert_output $'events\nevents.twc'
}

@test "create: refuses bad names" {
	local long
	long=$(printf 'a%.0s' {1..256})
	run --separate-stderr tmq-topic create a/b
	assert_fails_with "tmq-topic: 'a/b': bad topic name (use letters, digits, '_', '.' and '-')"
	run --separate-stderr tmq-topic create ..
	assert_fails_with "tmq-topic: '..': bad topic name"
	run --separate-stderr tmq-topic create .
	assert_fails_with "tmq-topic: '.': bad topic name"
	run --separate-stderr tmq-topic create -- -x
	assert_fails_with "tmq-topic: '-x': bad topic name (must not begin with '-')"
	run --separate-stderr tmq-topic create -- --group--x
	assert_fails_with "tmq-topic: '--group--x': bad topic name (must not begin with '-')"
	run --separate-stderr tmq-topic create "$long"
	assert_fails_with "tmq-topic: '$(printf 'a%.0s' {1..64})...': topic name too long (256 bytes, at most 251)"
	run --separate-stderr tmq-topic create ''
	assert_fails_with "tmq-topic: empty topic name"
	run --separate-stderr tmq-topic create 'a b'
	assert_fails_with "tmq-topic: 'a b': bad topic name (use letters, digits, '_', '.' and '-')"
	run --separate-stderr tmq-topic create $'caf\xc3\xa9'
	assert_fails_with "tmq-topic: 'caf"$'\xc3\xa9'"': bad topic name (use letters, digits, '_', '.' and '-')"
	# nothing was made, not even the root
	[ ! -e "$TMQ_ROOT" ]
}

@test "create: the longest name (251 bytes) works, 252 does not" {
	local n251 n252
	n251=$(printf 'n%.0s' {1..251})
	n252=${n251}n
	run --separate-stderr tmq-topic create "$n251"
	assert_success
	assert_stderr ""
	[ -f "$TMQ_ROOT/$n251.twc" ]
	run --separate-stderr tmq-topic create "$n252"
	assert_fails_with "tmq-topic: '$(printf 'n%.0s' {1..64})...': topic name too long (252 bytes, at most 251)"
	run tmq-topic list
	assert_output "$n251"
}

@test "create: refuses bad key types (a usage error, as for -p)" {
	local kt
	for kt in u7 U16 i32 char char0 char08 char3001 ''; do
		run --separate-stderr tmq-topic create -k "$kt" events
		assert_usage_error tmq-topic "-k: '$kt': bad key type (u8, u16, u32, u64 or charN with N from 1 to 3000)"
	done
	[ ! -e "$TMQ_ROOT/events.twc" ]
}

@test "create: -p out of range is a usage error" {
	run --separate-stderr tmq-topic create -p 0 events
	assert_usage_error tmq-topic "-p: '0': out of range (1 to 65536)"
	run --separate-stderr tmq-topic create -p 65537 events
	assert_usage_error tmq-topic "-p: '65537': out of range (1 to 65536)"
	run --separate-stderr tmq-topic create -p 18446744073709551616 events
	assert_usage_error tmq-topic "-p: '18446744073709551616': number too large"
	run --separate-stderr tmq-topic create -p -1 events
	assert_usage_error tmq-topic "-p: '-1': not a number"
	run --separate-stderr tmq-topic create -p 2x events
	assert_usage_error tmq-topic "-p: '2x': not a number"
	[ ! -e "$TMQ_ROOT/events.twc" ]
}

@test "create: refuses a type given twice" {
	run --separate-stderr tmq-topic create -t A,B,A events
	assert_fails_with "tmq-topic: type 'A' given twice"
	[ ! -e "$TMQ_ROOT/events.twc" ]
	[ ! -e "$TMQ_ROOT/events" ]
}

# --- usage ----------------------------------------------------------------

@test "usage errors: missing or unknown command, operands, options" {
	run --separate-stderr tmq-topic
	assert_usage_error tmq-topic "missing command (create, list, info, partition, prune or delete)"
	run --separate-stderr tmq-topic frob
	assert_usage_error tmq-topic "'frob': unknown command"
	run --separate-stderr tmq-topic create
	assert_usage_error tmq-topic "create: missing topic name"
	run --separate-stderr tmq-topic info
	assert_usage_error tmq-topic "info: missing topic name"
	run --separate-stderr tmq-topic info a b
	assert_usage_error tmq-topic "info: too many operands"
	run --separate-stderr tmq-topic delete a b
	assert_usage_error tmq-topic "delete: too many operands"
	run --separate-stderr tmq-topic list x
	assert_usage_error tmq-topic "list takes no operands"
	run --separate-stderr tmq-topic --bogus list
	assert_usage_error tmq-topic "unrecognized option '--bogus'"
	run --separate-stderr tmq-topic -k
	assert_usage_error tmq-topic "option requires an argument -- 'k'"
}

@test "-h and --help print the usage on stdout" {
	local opt
	for opt in -h --help; do
		run --separate-stderr tmq-topic "$opt"
		assert_success
		assert_stderr ""
		assert_line --index 0 "usage: tmq-topic create NAME [-k TYPE] [-p N] [-t A,B,...] [--max-message SIZE] [--if-not-exists]"
		assert_line --index 1 "       tmq-topic list [-l] [--json] [--prometheus]"
		assert_line --partial -- "-k, --key-type TYPE"
		assert_line --partial -- "-y, --yes"
		assert_line --partial -- "--json"
		assert_line --partial -- "-d, --root DIR"
	done
	# -h wins over everything else, and touches nothing
	run --separate-stderr tmq-topic create -h events
	assert_success
	[ ! -e "$TMQ_ROOT" ]
}

@test "-V prints the version" {
	run --separate-stderr tmq-topic -V
	assert_success
	assert_stderr ""
	assert_output --regexp '^tmq-topic \(tmq\) [0-9]+\.[0-9]+'
	run --separate-stderr tmq-topic --version
	assert_success
	assert_output --regexp '^tmq-topic \(tmq\) [0-9]+\.[0-9]+'
}

# --- the root -------------------------------------------------------------

@test "-d and --root override TMQ_ROOT" {
	run --separate-stderr tmq-topic -d "$BATS_TEST_TMPDIR/other" create events
	assert_success
	[ -f "$BATS_TEST_TMPDIR/other/events.twc" ]
	[ ! -e "$TMQ_ROOT" ]
	run --separate-stderr tmq-topic --root="$BATS_TEST_TMPDIR/other" list
	assert_output "events"
	run --separate-stderr tmq-topic list
	assert_fails_with "tmq-topic: $TMQ_ROOT: no such root (create a topic first, or use -d DIR)"
}

@test "without TMQ_ROOT: \$XDG_DATA_HOME/tmq, else ~/.local/share/tmq" {
	run --separate-stderr env -u TMQ_ROOT XDG_DATA_HOME="$BATS_TEST_TMPDIR/xdg" tmq-topic create events
	assert_success
	[ -f "$BATS_TEST_TMPDIR/xdg/tmq/events.twc" ]
	run --separate-stderr env -u TMQ_ROOT -u XDG_DATA_HOME HOME="$BATS_TEST_TMPDIR/home" tmq-topic create events
	assert_success
	[ -f "$BATS_TEST_TMPDIR/home/.local/share/tmq/events.twc" ]
}

# --- list -----------------------------------------------------------------

@test "list: topics, sorted, never groups" {
	tmq-topic create zeta
	tmq-topic create alpha
	tmq-topic create m.i-d_1
	# a group, and what a create in progress leaves
	printf '{"key_width": 4, "partitions": 1, "message_types": {}}' >"$TMQ_ROOT/--group--g.twc"
	mkdir "$TMQ_ROOT/--group--g"
	: >"$TMQ_ROOT/.x.twc.123"
	: >"$TMQ_ROOT/notes.txt"
	run --separate-stderr tmq-topic list
	assert_success
	assert_stderr ""
	assert_output $'alpha\nm.i-d_1\nzeta'
}

@test "a definition left without its directory (the library's delete_topic): not listed, created anew, deleted" {
	# The library deletes a topic by removing its directory and leaves
	# NAME.twc; for it the topic no longer exists (topic_exists is
	# False) and create_topic makes it again over the old definition.
	tmq-topic create -p 3 ev
	tmq-topic create other
	tmq-put ev x
	rm -r "$TMQ_ROOT/ev"
	run --separate-stderr tmq-topic list
	assert_success
	assert_output other
	run --separate-stderr tmq-topic list -l
	assert_success
	assert_output --partial other
	refute_output --partial ev
	run --separate-stderr tmq-topic list --prometheus
	assert_success
	refute_output --partial 'topic="ev"'
	run --separate-stderr tmq-topic info ev
	assert_fails_with "tmq-topic: ev: no such topic"
	run --separate-stderr tmq-get ev
	assert_fails_with "tmq-get: ev: no such topic"
	run --separate-stderr tmq-topic create -p 2 ev
	assert_success
	run twc_field "$TMQ_ROOT/ev.twc" 'd["partitions"]'
	assert_output 2
	tmq-put ev y
	run --separate-stderr tmq-get ev
	assert_output y
	# and delete takes the leftover away
	rm -r "$TMQ_ROOT/ev"
	run --separate-stderr tmq-topic delete -y ev
	assert_success
	[ ! -e "$TMQ_ROOT/ev.twc" ]
	run --separate-stderr tmq-topic delete -y ev
	assert_fails_with "tmq-topic: ev: no such topic"
}

@test "create: the library's consumer, started before anything is written, reads tmq-put's first messages" {
	require_ref
	# The library's consumer takes a partition with no file as "read from
	# the end of the first file that appears": without the empty day files
	# that create makes (as the library's producer does), it skipped
	# tmq-put's whole first batch.
	tmq-topic create -p 2 ev
	python3 - "$TMQ_ROOT" ev "$BATS_TEST_TMPDIR/ready" >"$BATS_TEST_TMPDIR/out" 2>&1 <<'EOF2' &
import sys, time, twainmq
c = twainmq.Twain(sys.argv[1]).consumer(sys.argv[2], start_from="start")
assert c.poll() is None
open(sys.argv[3], "w").close()
got, end = [], time.time() + 60
while len(got) < 4 and time.time() < end:
    m = c.poll()
    if m is None:
        time.sleep(0.02)
    else:
        got.append(m.message)
print(sorted(got))
EOF2
	pid=$!
	wait_for test -e "$BATS_TEST_TMPDIR/ready"
	tmq-put -k 1 ev a b
	tmq-put -k 2 ev c d
	wait "$pid"
	run cat "$BATS_TEST_TMPDIR/out"
	assert_output "['a', 'b', 'c', 'd']"
}

@test "create: a library group member commits on a topic with a partition tmq-put never wrote to" {
	require_ref
	# Its consumerlet for a partition without files has no offset, and
	# commit() failed with AttributeError.
	tmq-topic create -p 2 ev
	tmq-put -k 1 ev a
	run python3 - "$TMQ_ROOT" <<'EOF2'
import contextlib, datetime, io, sys, time, twainmq, twainmq.consumer
twainmq.consumer.REBAL_LENGTH = datetime.timedelta(seconds=1)
c = twainmq.Twain(sys.argv[1]).consumer("ev", start_from="start", group="G")
got, end = [], time.time() + 60
while not got and time.time() < end:
    m = c.poll()
    if m is None:
        time.sleep(0.02)
    else:
        got.append(m.message)
with contextlib.redirect_stdout(io.StringIO()):
    c.commit()
print(sorted(c._partitions), got)
EOF2
	assert_success
	assert_output "[0, 1] ['a']"
	run tmq-group describe G -t ev
	assert_line --regexp '^1 +1 +1 +0 +1$'
}

@test "a topic the library deleted: tmq creates it again, and the library reads it" {
	require_ref
	tmq-topic create -p 2 ev
	tmq-put -k 1 ev old
	python3 - "$TMQ_ROOT" <<'EOF2'
import builtins, sys, twainmq
builtins.input = lambda prompt: "YES" + prompt[-1]
twainmq.Twain(sys.argv[1]).delete_topic("ev")
EOF2
	[ -f "$TMQ_ROOT/ev.twc" ]
	run --separate-stderr tmq-topic list
	assert_output ""
	tmq-topic create -p 3 ev
	tmq-put -k 1 ev new
	run python3 - "$TMQ_ROOT" <<'EOF2'
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
c = t.consumer("ev")
print(len(c._partitions), [m.message for m in c.poll_many(10)])
EOF2
	assert_success
	assert_output "3 ['new']"
}

@test "names that begin with '.' are topics like any other, listed everywhere" {
	tmq-topic create .hidden
	tmq-topic create alpha
	tmq-put .hidden secret
	run --separate-stderr tmq-topic list
	assert_success
	assert_output $'.hidden\nalpha'
	run --separate-stderr tmq-topic list --json
	assert_success
	assert_output --partial '{"name":".hidden","key_type":"u16","partitions":1,"messages":1,'
	run --separate-stderr tmq-topic list -l
	assert_line --partial '.hidden'
	run --separate-stderr tmq-topic info .hidden
	assert_success
	run tmq-get .hidden
	assert_output secret
	# but never "." or "..", nor a temporary definition (.NAME.twc.PID)
	: >"$TMQ_ROOT/.alpha.twc.12345"
	run --separate-stderr tmq-topic create .
	assert_fails_with "tmq-topic: '.': bad topic name"
	run --separate-stderr tmq-topic list
	assert_output $'.hidden\nalpha'
}

@test "a topic whose name begins with '.': the library's is listed by tmq, tmq's by the library" {
	require_ref
	mkdir -p "$TMQ_ROOT"
	python3 - "$TMQ_ROOT" <<'EOF2'
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
t.create_topic(".lib", "u16", 2)
t.producer(".lib").write_message(5, "from the library")
EOF2
	tmq-topic create .tmq
	tmq-put -k 7 .tmq 'from tmq'
	run --separate-stderr tmq-topic list
	assert_success
	assert_output $'.lib\n.tmq'
	run --separate-stderr tmq-get -F '%k %s\n' .lib
	assert_output '5 from the library'
	run python3 - "$TMQ_ROOT" <<'EOF2'
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
print(" ".join(sorted(t.list_topics())))
c = t.consumer(".tmq")
for p in c._partitions:
    cl = c._consumerlets[p]
    while (m := cl.poll()) is not None:
        print(m.key, m.message)
EOF2
	assert_success
	assert_output $'.lib .tmq\n7 from tmq'
}

@test "list: an empty root lists nothing" {
	mkdir -p "$TMQ_ROOT"
	run --separate-stderr tmq-topic list
	assert_success
	assert_output ""
	run --separate-stderr tmq-topic list --json
	assert_success
	assert_output "[]"
}

@test "list -l: key type, partitions, messages and bytes" {
	tmq-topic create -k char8 -p 3 beta
	tmq-topic create alpha
	tmq_write_line "$TMQ_ROOT/alpha" 0-20261125_0.tmf 2 1 1795597320.08 one
	tmq_write_line "$TMQ_ROOT/alpha" 0-20261125_0.tmf 2 2 1795597321 two
	tmq_write_line "$TMQ_ROOT/alpha" 0-20261126_2.tmf 2 3 1795683721 three
	local bytes
	bytes=$(cat "$TMQ_ROOT"/alpha/*.tmf | wc -c)
	run --separate-stderr tmq-topic list -l
	assert_success
	assert_stderr ""
	# Columns as wide as their widest cell, two spaces apart, a header.
	local w=${#bytes}
	[ "$w" -ge 5 ] || w=5
	assert_line --index 0 "$(printf "%-5s  %-8s  %10s  %8s  %${w}s" TOPIC KEY-TYPE PARTITIONS MESSAGES BYTES)"
	assert_line --index 1 "$(printf "%-5s  %-8s  %10u  %8u  %${w}u" alpha u16 1 3 "$bytes")"
	assert_line --index 2 "$(printf "%-5s  %-8s  %10u  %8u  %${w}u" beta char8 3 0 0)"
	[ "${#lines[@]}" -eq 3 ]
}

@test "list -l: a long name widens its column instead of breaking the others" {
	local long
	long=$(printf 'topic-with-a-very-long-name-%s' {1..3})
	tmq-topic create "$long"
	tmq-topic create -k char3000 -p 1000 x
	run --separate-stderr tmq-topic list -l
	assert_success
	assert_line --index 0 "$(printf '%-*s  %-8s  %10s  %8s  %5s' ${#long} TOPIC KEY-TYPE PARTITIONS MESSAGES BYTES)"
	assert_line --index 1 "$(printf '%-*s  %-8s  %10s  %8s  %5s' ${#long} "$long" u16 1 0 0)"
	assert_line --index 2 "$(printf '%-*s  %-8s  %10s  %8s  %5s' ${#long} x char3000 1000 0 0)"
	# An empty root: nothing at all, not even the header.
	tmq-topic -d "$BATS_TEST_TMPDIR/empty" create t
	tmq-topic -d "$BATS_TEST_TMPDIR/empty" delete -y t
	run --separate-stderr tmq-topic -d "$BATS_TEST_TMPDIR/empty" list -l
	assert_success
	assert_output ''
}

@test "list --json" {
	tmq-topic create -k u64 -p 8 beta
	tmq-topic create alpha
	tmq_write_line "$TMQ_ROOT/alpha" 0-20261125_0.tmf 2 1 1795597320.08 one
	local bytes
	bytes=$(cat "$TMQ_ROOT"/alpha/*.tmf | wc -c)
	run --separate-stderr tmq-topic list --json
	assert_success
	assert_stderr ""
	run python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]), sort_keys=True))' "$output"
	assert_output '[{"bytes": '"$bytes"', "key_type": "u16", "messages": 1, "name": "alpha", "partitions": 1}, {"bytes": 0, "key_type": "u64", "messages": 0, "name": "beta", "partitions": 8}]'
}

@test "list on the reference root" {
	require_vectors
	run --separate-stderr tmq-topic -d "$VECTORS/root" list
	assert_success
	assert_output $'char3t\nchar8t\none\ntyped\nu16t\nu32t\nu64t\nu8t'
	run --separate-stderr tmq-topic -d "$VECTORS/root" list -l
	assert_success
	assert_line --index 0 --regexp '^TOPIC +KEY-TYPE +PARTITIONS +MESSAGES +BYTES$'
	assert_line --index 4 --regexp '^typed +u32 +3 +47 +2852$'
}

# --- info -----------------------------------------------------------------

@test "info: a new topic" {
	tmq-topic create -k char8 -p 2 -t Order,Refund orders
	run --separate-stderr tmq-topic info orders
	assert_success
	assert_stderr ""
	local header top today
	header=$(printf '%-9s %-28s %12s %12s %12s  %-24s  %s' PARTITION FILE FIRST END BYTES FIRST-TIME LAST-TIME)
	top="topic:      orders
key type:   char8
partitions: 2
types:      Order,Refund
messages:   0
bytes:      0
"
	# create makes an empty file of the day for each partition, as the
	# library's producer does (tmq(7) Day files)
	today=$(date -u +%Y%m%d)
	assert_output "$top
$header
$(printf '%-9u %-28s %12s %12s %12s  %-24s  %s' 0 "0-${today}_0.tmf" 0 0 0 - -)
$(printf '%-9u %-28s %12s %12s %12s  %-24s  %s' 1 "1-${today}_0.tmf" 0 0 0 - -)"
	# A partition without files (a topic the library made, before its
	# first producer) shows dashes.
	rm "$TMQ_ROOT"/orders/*.tmf
	run --separate-stderr tmq-topic info orders
	assert_success
	assert_output "$top
$header
$(printf '%-9u %-28s %12s %12s %12s  %-24s  %s' 0 - - - - - -)
$(printf '%-9u %-28s %12s %12s %12s  %-24s  %s' 1 - - - - - -)"
}

@test "info: files, offsets and times" {
	tmq-topic create -p 2 events
	tmq_write_line "$TMQ_ROOT/events" 0-20261125_0.tmf 2 1 1795597320.08 one
	tmq_write_line "$TMQ_ROOT/events" 0-20261125_0.tmf 2 1 1795597321.5 two
	tmq_write_line "$TMQ_ROOT/events" 0-20261126_2.tmf 2 1 1795683721 three
	local b1 b2
	b1=$(wc -c <"$TMQ_ROOT/events/0-20261125_0.tmf")
	b2=$(wc -c <"$TMQ_ROOT/events/0-20261126_2.tmf")
	run --separate-stderr tmq-topic info events
	assert_success
	assert_line --index 1 "key type:   u16"
	assert_line --index 3 "types:      -"
	assert_line --index 4 "messages:   3"
	assert_line --index 5 "bytes:      $((b1 + b2))"
	assert_line --index 7 "$(printf '%-9u %-28s %12llu %12llu %12llu  %-24s  %s' 0 0-20261125_0.tmf 0 2 "$b1" 2026-11-25T09:02:00.080Z 2026-11-25T09:02:01.500Z)"
	assert_line --index 8 "$(printf '%-9u %-28s %12llu %12llu %12llu  %-24s  %s' 0 0-20261126_2.tmf 2 3 "$b2" 2026-11-26T09:02:01.000Z 2026-11-26T09:02:01.000Z)"
	assert_line --index 9 "$(printf '%-9u %-28s %12s %12s %12s  %-24s  %s' 1 - - - - - -)"
}

@test "info: an unfinished last line (no newline) is not the last line" {
	tmq-topic create events
	local f=$TMQ_ROOT/events/0-20261125_0.tmf
	tmq_write_line "$TMQ_ROOT/events" 0-20261125_0.tmf 2 1 1795597320.08 one
	tmq_write_line "$TMQ_ROOT/events" 0-20261125_0.tmf 2 1 1795597321.5 two
	# a crash cut the next line short, in its timestamp
	tmq_encode_line 2 1 1795597399 three | head -c 9 >>"$f"
	run --separate-stderr tmq-topic info events
	assert_success
	assert_line --regexp '^0 +0-20261125_0\.tmf +0 +2 +[0-9]+  2026-11-25T09:02:00\.080Z +2026-11-25T09:02:01\.500Z$'
	refute_output --partial 1970
	run --separate-stderr tmq-topic info --json events
	assert_output --partial '"first":0,"end":2,'
	assert_output --partial '"first_timestamp":1795597320.08,"last_timestamp":1795597321.5}'
	# the whole line but its newline: still not a line
	truncate -s -9 "$f"
	tmq_encode_line 2 1 1795597399 three | head -c -1 >>"$f"
	run --separate-stderr tmq-topic info --json events
	assert_output --partial '"first_timestamp":1795597320.08,"last_timestamp":1795597321.5}'
}

@test "info: a corrupt last line leaves the first time shown" {
	tmq-topic create events
	local f=$TMQ_ROOT/events/0-20261125_0.tmf
	tmq_write_line "$TMQ_ROOT/events" 0-20261125_0.tmf 2 1 1795597320.08 one
	printf 'not base85 at all ~~~~~~~~~~~\n' >>"$f"
	run --separate-stderr tmq-topic info events
	assert_success
	assert_line --regexp '^0 +0-20261125_0\.tmf +0 +2 +[0-9]+  2026-11-25T09:02:00\.080Z +-$'
	run --separate-stderr tmq-topic info --json events
	assert_output --partial '"first_timestamp":1795597320.08,"last_timestamp":null}'
	# and a wide key (char100: 125 base85 characters) does not hide them
	tmq-topic create -k char100 wide
	tmq_write_line "$TMQ_ROOT/wide" 0-20261125_0.tmf char100 k 1795597320.08 one
	tmq_write_line "$TMQ_ROOT/wide" 0-20261125_0.tmf char100 k 1795597321.5 two
	run --separate-stderr tmq-topic info --json wide
	assert_output --partial '"first_timestamp":1795597320.08,"last_timestamp":1795597321.5}'
}

@test "info --json" {
	tmq-topic create -p 2 -t 'Order,Re"fund' events
	tmq_write_line "$TMQ_ROOT/events" 1-20261125_0.tmf 2 7 1795597320.08 one
	tmq_write_line "$TMQ_ROOT/events" 1-20261125_0.tmf 2 7 1795597321.5 two
	local b
	b=$(wc -c <"$TMQ_ROOT/events/1-20261125_0.tmf")
	run --separate-stderr tmq-topic info --json events
	assert_success
	assert_stderr ""
	run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
want = {"name": "events", "key_type": "u16", "key_width": 2,
        "partitions": [
            {"partition": 0, "first": 0, "end": 0, "bytes": 0, "files": []},
            {"partition": 1, "first": 0, "end": 2, "bytes": int(sys.argv[2]),
             "files": [{"name": "1-20261125_0.tmf", "first": 0, "end": 2,
                        "bytes": int(sys.argv[2]),
                        "first_timestamp": 1795597320.08,
                        "last_timestamp": 1795597321.5}]}],
        "types": ["Order", "Re\"fund"]}
if d != want:
    sys.exit("got  %r\nwant %r" % (d, want))
' "$output" "$b"
	assert_success
}

@test "info: a definition with a gap in its type indices" {
	mkdir -p "$TMQ_ROOT/gap"
	printf '{"key_width": 2, "partitions": 1, "message_types": {"B": 1}, "extra": true}' >"$TMQ_ROOT/gap.twc"
	run --separate-stderr tmq-topic info gap
	assert_success
	assert_line --index 3 "types:      B"
	run --separate-stderr tmq-topic info --json gap
	assert_success
	run python3 -c 'import json, sys; print(json.loads(sys.argv[1])["types"])' "$output"
	assert_output "['B']"
}

@test "info on the reference root" {
	require_vectors
	run --separate-stderr tmq-topic -d "$VECTORS/root" info typed
	assert_success
	assert_stderr ""
	assert_line --index 0 "topic:      typed"
	assert_line --index 1 "key type:   u32"
	assert_line --index 2 "partitions: 3"
	assert_line --index 3 "types:      Order,Refund"
	assert_line --index 4 "messages:   47"
	assert_line --index 5 "bytes:      2852"
	assert_line --regexp '^0 +0-20261125_0\.tmf +0 +3 +191  2026-11-25T09:02:00\.080Z  2026-11-25T09:02:04\.580Z$'
	assert_line --regexp '^2 +2-20261128_10\.tmf +10 +13 '
	[ "${#lines[@]}" -eq 16 ]
	run --separate-stderr tmq-topic -d "$VECTORS/root" info --json typed
	assert_success
	run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert len(d["partitions"]) == 3, d
f = d["partitions"][0]["files"][0]
assert (f["name"], f["first"], f["end"], f["bytes"]) == ("0-20261125_0.tmf", 0, 3, 191), f
assert f["first_timestamp"] == 1795597320.08, f
assert sum(p["end"] - p["first"] for p in d["partitions"]) == 47
assert d["types"] == ["Order", "Refund"]
' "$output"
	assert_success
}

@test "info on a group of the reference root" {
	require_vectors
	run --separate-stderr tmq-topic -d "$VECTORS/root" info -- --group--workers
	assert_success
	assert_line --index 0 "topic:      --group--workers"
	assert_line --index 1 "key type:   u32"
	assert_line --index 3 "types:      ~~TWAIN~~JOINED,~~TWAIN~~ABORTJOIN,~~TWAIN~~REBALOFFER,~~TWAIN~~REBALCONFIRM,~~TWAIN~~BEGINREBAL,~~TWAIN~~ENDREBAL,~~TWAIN~~COMMIT"
}

@test "info: a partition count written as a float or a string, as the library reads it" {
	# The library's create_topic writes the count it was given (3.0 from
	# a division, "3" from an environment variable) and reads it back
	# with int(): such topics work for it, and must for us.
	mkdir -p "$TMQ_ROOT/f" "$TMQ_ROOT/s" "$TMQ_ROOT/w" "$TMQ_ROOT/bad"
	printf '{\n"key_width": 2,\n"partitions": 3.0,\n"message_types": {}\n}' >"$TMQ_ROOT/f.twc"
	printf '{\n"key_width": 2,\n"partitions": "3",\n"message_types": {}\n}' >"$TMQ_ROOT/s.twc"
	printf '{"key_width": 2, "partitions": " +1_0\\n"}' >"$TMQ_ROOT/w.twc"
	for t in f s; do
		run --separate-stderr tmq-topic info "$t"
		assert_success
		assert_line --index 2 "partitions: 3"
	done
	run --separate-stderr tmq-topic info w
	assert_success
	assert_line --index 2 "partitions: 10"
	# Keys go where the library puts them (partition_hash64(42, 3) is 0).
	run --separate-stderr tmq-topic partition s 42
	assert_success
	assert_output 0
	# What int() refuses, or would cut, is refused.
	for v in '"3.0"' '"3__0"' '"_3"' '"3x"' '""' '" "' '"\\u00003"' 3.5 1e300 true null; do
		printf '{"key_width": 2, "partitions": %s}' "$v" >"$TMQ_ROOT/bad.twc"
		run --separate-stderr tmq-topic info bad
		assert_fails_with 'tmq-topic: bad: corrupt bad.twc: "partitions" is not an integer'
	done
	printf '{"key_width": 2, "partitions": "99999999999999999999"}' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with 'tmq-topic: bad: corrupt bad.twc: "partitions" out of range'
	printf '{"key_width": 2, "partitions": "-3"}' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with 'tmq-topic: bad: corrupt bad.twc: bad partitions -3 (1 to 65536)'
}

@test "a topic the library made with its partition count as a float or a string: each reads the other's messages, keys in the same partitions" {
	require_ref
	mkdir -p "$TMQ_ROOT"
	python3 - "$TMQ_ROOT" <<'EOF2'
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
t.create_topic("f", "u16", 8 / 2)
t.create_topic("s", "char4", "3")
t.producer("f").write_message(42, "lib f")
t.producer("s").write_message("abc", "lib s")
EOF2
	tmq-put -k 42 f 'tmq f'
	tmq-put -k abc s 'tmq s'
	run --separate-stderr tmq-get -F '%t %p %o %k %s\n' f
	assert_success
	assert_output $'f 2 0 42 lib f\nf 2 1 42 tmq f'
	run --separate-stderr tmq-get -F '%t %p %o %k %s\n' s
	assert_success
	assert_output $'s 1 0 abc lib s\ns 1 1 abc tmq s'
	run python3 - "$TMQ_ROOT" <<'EOF2'
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
for topic in ("f", "s"):
    c = t.consumer(topic)
    for p in c._partitions:
        cl = c._consumerlets[p]
        while (m := cl.poll()) is not None:
            print(topic, p, m.offset, m.key, m.message)
EOF2
	assert_success
	assert_output $'f 2 0 42 lib f\nf 2 1 42 tmq f\ns 1 0 abc lib s\ns 1 1 abc tmq s'
}

@test "info: no such topic, bad name, corrupt definition" {
	mkdir -p "$TMQ_ROOT"
	run --separate-stderr tmq-topic info events
	assert_fails_with "tmq-topic: events: no such topic"
	assert_output ""
	run --separate-stderr tmq-topic info -- --group--g
	assert_fails_with "tmq-topic: g: no such group"
	run --separate-stderr tmq-topic info a/b
	assert_fails_with "tmq-topic: 'a/b': bad topic name (use letters, digits, '_', '.' and '-')"
	mkdir "$TMQ_ROOT/bad"
	echo 'not json' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with "tmq-topic: bad: corrupt bad.twc: definition is not valid JSON"
	# Junk after the object: the library's json.loads refuses it too.
	printf '{"key_width": 2, "partitions": 1}\n}x' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with "tmq-topic: bad: corrupt bad.twc: definition is not valid JSON"
	printf '{"key_width": 2, "partitions": 1, "message_types": {}}\n\n' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_success
	printf '{"key_width": 3, "partitions": 1}' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with "tmq-topic: bad: corrupt bad.twc: bad key_width 3"
	printf '{"key_width": 2, "partitions": 0}' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with "tmq-topic: bad: corrupt bad.twc: bad partitions 0 (1 to 65536)"
	printf '{"key_width": 2}' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic info bad
	assert_fails_with 'tmq-topic: bad: corrupt bad.twc: missing "partitions"'
	printf '{"key_width": 2, "partitions": 1}' >"$TMQ_ROOT/nodir.twc"
	run --separate-stderr tmq-topic info nodir
	assert_fails_with "tmq-topic: nodir: no such topic"
}

# --- partition ------------------------------------------------------------

@test "partition: the examples of tmq-format(5)" {
	tmq-topic create -p 4 u16x4
	tmq-topic create -k char8 -p 3 c8x3
	run --separate-stderr tmq-topic partition u16x4 42
	assert_success
	assert_stderr ""
	assert_output 2
	run --separate-stderr tmq-topic partition c8x3 abc
	assert_success
	assert_output 1
}

@test "partition: several keys, one answer a line" {
	tmq-topic create -p 4 ev
	run --separate-stderr tmq-topic partition ev 42 0 65535
	assert_success
	assert_output $'2\n0\n1'
}

@test "partition: one partition puts every key in 0" {
	tmq-topic create -k u64 one
	run --separate-stderr tmq-topic partition one 0 18446744073709551615
	assert_success
	assert_output $'0\n0'
}

@test "partition: keys from stdin, one a line" {
	tmq-topic create -p 4 ev
	run --separate-stderr tmq-topic partition ev < <(printf '42\n0\n65535\n')
	assert_success
	assert_output $'2\n0\n1'
	# the last key may lack its newline
	run --separate-stderr tmq-topic partition ev < <(printf '42\n0')
	assert_output $'2\n0'
	# no keys, no output
	run --separate-stderr tmq-topic partition ev </dev/null
	assert_success
	assert_output ""
}

@test "partition -0: keys from stdin, NUL-terminated" {
	tmq-topic create -k char8 -p 100 ev
	local want
	want=$(tmq-topic partition ev abc 'a b' $'new\nline')
	run --separate-stderr tmq-topic partition -0 ev < <(printf 'abc\0a b\0new\nline\0')
	assert_success
	assert_output "$want"
	[ "${#lines[@]}" -eq 3 ]
	run --separate-stderr tmq-topic --null partition ev < <(printf 'abc\0a b')
	assert_success
	assert_output "$(tmq-topic partition ev abc 'a b')"
}

@test "partition: bad keys fail with the key's message, exit 1, and a '-' line" {
	tmq-topic create -p 4 ev
	tmq-topic create -k char3 -p 4 c3
	run --separate-stderr tmq-topic partition ev 65536
	assert_fails_with "tmq-topic: ev: key '65536' out of range for u16 (0 to 65535)"
	assert_equal "$output" "-"
	run --separate-stderr tmq-topic partition ev x
	assert_fails_with "tmq-topic: ev: key 'x' is not an unsigned integer"
	run --separate-stderr tmq-topic partition ev ''
	assert_fails_with "tmq-topic: ev: empty key"
	run --separate-stderr tmq-topic partition c3 abcd
	assert_fails_with "tmq-topic: c3: key 'abcd' is 4 bytes, wider than char3"
	run --separate-stderr tmq-topic partition c3 $'\xff'
	assert_fails_with "tmq-topic: c3: key is not valid UTF-8"
	# good keys are still answered, one line a key; the bad one is named
	# by its line number on stdin
	run --separate-stderr tmq-topic partition ev 42 x 0
	assert_fails_with "tmq-topic: ev: key 'x' is not an unsigned integer"
	assert_output $'2\n-\n0'
	run --separate-stderr tmq-topic partition ev < <(printf '42\n-1\n0\n')
	assert_fails_with "tmq-topic: ev: line 2: key '-1' is not an unsigned integer"
	assert_output $'2\n-\n0'
	run --separate-stderr tmq-topic partition -0 c3 < <(printf 'a\0b\0c\0')
	assert_success
	run --separate-stderr tmq-topic partition -0 c3 < <(printf 'a\0a\nb\0')
	assert_success
	run --separate-stderr tmq-topic partition c3 < <(printf 'a\nabcd\n')
	assert_fails_with "tmq-topic: c3: line 2: key 'abcd' is 4 bytes, wider than char3"
	run --separate-stderr tmq-topic partition -0 c3 < <(printf 'abcd\0a\0')
	assert_fails_with "tmq-topic: c3: record 1: key 'abcd' is 4 bytes, wider than char3"
	assert_output "-
$(tmq-topic partition c3 a)"
}

@test "partition: the answers line up with the keys (paste)" {
	tmq-topic create -k u8 -p 4 ev
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 1 bad 2 '' 300 3 >keys
	run --separate-stderr bash -c 'paste keys <(tmq-topic partition ev <keys)'
	assert_equal "$stderr" "tmq-topic: ev: line 2: key 'bad' is not an unsigned integer
tmq-topic: ev: line 4: empty key
tmq-topic: ev: line 5: key '300' out of range for u8 (0 to 255)"
	assert_output "1	$(tmq-topic partition ev 1)
bad	-
2	$(tmq-topic partition ev 2)
	-
300	-
3	$(tmq-topic partition ev 3)"
	run --separate-stderr tmq-topic partition ev <keys
	assert_failure 1
	[ "${#lines[@]}" -eq 6 ]
}

@test "partition: no such topic" {
	mkdir -p "$TMQ_ROOT"
	run --separate-stderr tmq-topic partition ev 1
	assert_fails_with "tmq-topic: ev: no such topic"
	assert_output ""
}

@test "partition: every row of vectors/partitions.tsv" {
	require_vectors
	# One topic per (key type, partitions) pair, all its keys at once.
	run python3 - "$VECTORS/partitions.tsv" <<'EOF'
import subprocess, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8")][1:]
pairs = {}
for kt, key, parts, want in rows:
    pairs.setdefault((kt, parts), []).append((key, want))
bad = 0
for (kt, parts), cases in sorted(pairs.items()):
    name = "%s_%s" % (kt, parts)
    subprocess.run(["tmq-topic", "create", "-k", kt, "-p", parts, name], check=True)
    keys = "".join(k + "\0" for k, _ in cases).encode("utf-8")
    out = subprocess.run(["tmq-topic", "partition", "-0", name], input=keys,
                         stdout=subprocess.PIPE, check=True).stdout.decode().split()
    for (key, want), got in zip(cases, out):
        if got != want:
            bad += 1
            print("%s key %r among %s: got %s, want %s" % (kt, key, parts, got, want))
    if len(out) != len(cases):
        bad += 1
        print("%s: %d answers for %d keys" % (name, len(out), len(cases)))
print("%d rows, %d pairs, %d wrong" % (len(rows), len(pairs), bad))
sys.exit(1 if bad or len(rows) < 3000 else 0)
EOF
	assert_success
	assert_output "3000 rows, 108 pairs, 0 wrong"
}

# --- delete ---------------------------------------------------------------

@test "delete --yes removes the definition and the directory" {
	tmq-topic create -p 2 events
	tmq-topic create other
	tmq_write_line "$TMQ_ROOT/events" 0-20261125_0.tmf 2 1 1795597320.08 one
	mkdir "$TMQ_ROOT/events/.tmq"
	: >"$TMQ_ROOT/events/.tmq/index"
	run --separate-stderr tmq-topic delete --yes events
	assert_success
	assert_output ""
	assert_stderr ""
	[ ! -e "$TMQ_ROOT/events.twc" ]
	[ ! -e "$TMQ_ROOT/events" ]
	run tmq-topic list
	assert_output "other"
	run --separate-stderr tmq-topic delete -y other
	assert_success
	[ ! -e "$TMQ_ROOT/other.twc" ]
}

@test "delete without --yes and without a terminal refuses" {
	command -v setsid >/dev/null || skip "setsid is needed to run without a terminal"
	tmq-topic create events
	run --separate-stderr setsid -w tmq-topic delete events </dev/null
	assert_fails_with "tmq-topic: no terminal to confirm on: use --yes"
	assert_output ""
	[ -f "$TMQ_ROOT/events.twc" ]
	[ -d "$TMQ_ROOT/events" ]
}

@test "create refuses a name ending in .twc: its directory would be another topic's definition" {
	# a.twc/ beside a.twc.twc: the root listed a topic 'a' that is not,
	# and 'create a' said it exists.
	run --separate-stderr tmq-topic create a.twc
	assert_fails_with "tmq-topic: 'a.twc': bad topic name (must not end in '.twc')"
	[ ! -e "$TMQ_ROOT/a.twc" ]
	tmq-topic create a
	tmq-topic create a.twc2
	run --separate-stderr tmq-topic list
	assert_output $'a\na.twc2'
}

@test "delete: no such topic, bad names" {
	mkdir -p "$TMQ_ROOT"
	run --separate-stderr tmq-topic delete --yes events
	assert_fails_with "tmq-topic: events: no such topic"
	run --separate-stderr tmq-topic delete --yes ..
	assert_fails_with "tmq-topic: '..': bad topic name"
	run --separate-stderr tmq-topic delete --yes -- --group--g
	assert_fails_with "tmq-topic: '--group--g': bad topic name (must not begin with '-')"
	run --separate-stderr tmq-topic delete --yes a/b
	assert_fails_with "tmq-topic: 'a/b': bad topic name (use letters, digits, '_', '.' and '-')"
}

@test "delete: entries that are not the topic's stop it, each named, and nothing is changed; removed, delete goes on" {
	tmq-topic create -p 2 ev
	tmq-put ev x
	tmq-get -g G -P 0 ev >/dev/null
	# Ours: partition files by the library's name rule (a link in place
	# of one is unlinked, never followed), .tmq and what it holds but
	# directories.  Not ours: any other name, any directory.
	: >"$TMQ_ROOT/ev/notes"
	mkdir "$TMQ_ROOT/ev/0-20250101_0.tmf" "$TMQ_ROOT/ev/.tmq" "$TMQ_ROOT/ev/.tmq/sub"
	: >"$TMQ_ROOT/ev/.tmq/index"
	: >"$TMQ_ROOT/ev/007-x"
	run --separate-stderr tmq-topic delete -y ev
	assert_failure 1
	[[ $stderr =~ ^"tmq-topic: ev: not deleted: ev/ holds entries that are not the topic's: "(.*)" (remove them, then delete again)"$ ]]
	[ "$(tr -d , <<<"${BASH_REMATCH[1]}" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')" = ".tmq/sub 0-20250101_0.tmf 007-x notes " ]
	run tmq-topic list
	assert_output ev
	run ls -A "$TMQ_ROOT"
	assert_output $'--group--G\n--group--G.twc\nev\nev.twc'
	rm -r "$TMQ_ROOT/ev/notes" "$TMQ_ROOT/ev/0-20250101_0.tmf" "$TMQ_ROOT/ev/.tmq/sub" "$TMQ_ROOT/ev/007-x"
	# (With a directory in the place of partition 0's first file, that
	# partition cannot be read: it is read once the directory is gone.)
	run -0 tmq-get ev
	assert_output x
	run --separate-stderr tmq-topic delete -y --with-groups ev
	assert_success
	assert_stderr ""
	run ls -A "$TMQ_ROOT"
	assert_output ''
}

@test "delete and tmq-group delete take a directory without its definition away; a partition file with messages too" {
	tmq-topic create -p 2 ev
	tmq-put ev x
	tmq-get -g G -P 0 ev >/dev/null
	rm "$TMQ_ROOT/ev.twc" "$TMQ_ROOT/--group--G.twc"
	run --separate-stderr tmq-topic info ev
	assert_fails_with "tmq-topic: ev: no such topic"
	run --separate-stderr tmq-topic delete -y ev
	assert_success
	assert_stderr ""
	run --separate-stderr tmq-group delete -y G
	assert_success
	assert_stderr ""
	run ls -A "$TMQ_ROOT"
	assert_output ''
	run --separate-stderr tmq-topic delete -y ev
	assert_fails_with "tmq-topic: ev: no such topic"
	run --separate-stderr tmq-group delete -y G
	assert_fails_with "tmq-group: G: no such group"
}

# plant_remains NAME: what a create or delete of NAME killed at its worst
# moments leaves: a definition without its directory, a half-built
# directory and its definition under NAME+tmq, a half-emptied one.
plant_remains() {
	local w=$TMQ_ROOT/$1+tmq
	mkdir -p "$w/new" "$w/old/.tmq"
	: >"$w/new/0-20250101_0.tmf"
	: >"$w/new/1-20250101_0.tmf"
	printf '{"key_width": 2, "partitions": 9}' >"$w/twc"
	: >"$w/lock"
	printf 'ABC\n' >"$w/old/3-20250101_0.tmf"
	: >"$w/old/.tmq/lock"
	[ -e "$TMQ_ROOT/$1" ] || printf '{"key_width": 2, "partitions": 9}' >"$TMQ_ROOT/$1.twc"
}

@test "what a killed create or delete left is no topic, and the next create or delete of the name clears it" {
	mkdir -p "$TMQ_ROOT"
	tmq-topic create other
	plant_remains ev
	run --separate-stderr tmq-topic list
	assert_output other
	run --separate-stderr tmq-topic list -l
	refute_output --partial ev
	run --separate-stderr tmq-topic info ev
	assert_fails_with "tmq-topic: ev: no such topic"
	run --separate-stderr tmq-topic create -p 2 ev
	assert_success
	assert_stderr ""
	run ls -A "$TMQ_ROOT"
	assert_output $'ev\nev.twc\nother\nother.twc'
	run twc_field "$TMQ_ROOT/ev.twc" 'd["partitions"]'
	assert_output 2
	# The same under a whole topic: create says it exists, and clears
	# them; delete clears both.
	plant_remains ev
	run --separate-stderr tmq-topic create -p 2 ev
	assert_fails_with "tmq-topic: ev: topic exists"
	run ls -A "$TMQ_ROOT"
	assert_output $'ev\nev.twc\nother\nother.twc'
	plant_remains ev
	run --separate-stderr tmq-topic delete -y ev
	assert_success
	assert_stderr ""
	run ls -A "$TMQ_ROOT"
	assert_output $'other\nother.twc'
	# Remains alone: a delete clears them and succeeds; there is nothing
	# left for the next.
	plant_remains ev
	rm "$TMQ_ROOT/ev.twc"
	run --separate-stderr tmq-topic delete -y ev
	assert_success
	assert_stderr ""
	run ls -A "$TMQ_ROOT"
	assert_output $'other\nother.twc'
	run --separate-stderr tmq-topic delete -y ev
	assert_fails_with "tmq-topic: ev: no such topic"
	# And for a group's log.
	tmq-put other x
	plant_remains --group--G
	run --separate-stderr tmq-group list
	refute_output --partial G
	run --separate-stderr tmq-get -g G -P 0 other
	assert_success
	assert_output x
	run ls -A "$TMQ_ROOT"
	assert_output $'--group--G\n--group--G.twc\nother\nother.twc'
	plant_remains --group--G
	run --separate-stderr tmq-group delete -y G
	assert_success
	assert_stderr ""
	run ls -A "$TMQ_ROOT"
	assert_output $'other\nother.twc'
}

# lock_holder FILE: hold a POSIX lock on FILE (which conflicts with the
# tools' open file description locks) until killed; FILE.held once held.
lock_holder() {
	python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[1] + ".held", "w").close()
time.sleep(3600)
' "$1" 3>&- &
	echo $! >"$BATS_TEST_TMPDIR/holder.pid"
}

# waits_for_lock FILE: a process waits for a lock on FILE.
waits_for_lock() {
	grep -q -- "-> .*:$(stat -c %i "$1") " /proc/locks
}

@test "one create or delete of a name at a time: the next waits for it, then finishes on what it left" {
	local hpid cpid
	[ -r /proc/locks ] || skip "no /proc/locks"
	mkdir -p "$TMQ_ROOT/ev+tmq"
	lock_holder "$TMQ_ROOT/ev+tmq/lock"
	hpid=$(cat "$BATS_TEST_TMPDIR/holder.pid")
	wait_for test -e "$TMQ_ROOT/ev+tmq/lock.held"
	rm "$TMQ_ROOT/ev+tmq/lock.held"
	tmq-topic create -p 3 ev 2>"$BATS_TEST_TMPDIR/err" &
	cpid=$!
	wait_for waits_for_lock "$TMQ_ROOT/ev+tmq/lock"
	run ls -A "$TMQ_ROOT"
	assert_output 'ev+tmq'
	kill "$hpid"
	wait "$cpid"
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output ''
	run ls -A "$TMQ_ROOT"
	assert_output $'ev\nev.twc'
	run twc_field "$TMQ_ROOT/ev.twc" 'd["partitions"]'
	assert_output 3
	# A delete waits the same way.
	mkdir "$TMQ_ROOT/ev+tmq"
	lock_holder "$TMQ_ROOT/ev+tmq/lock"
	hpid=$(cat "$BATS_TEST_TMPDIR/holder.pid")
	wait_for test -e "$TMQ_ROOT/ev+tmq/lock.held"
	rm "$TMQ_ROOT/ev+tmq/lock.held"
	tmq-topic delete -y ev 2>"$BATS_TEST_TMPDIR/err" &
	cpid=$!
	wait_for waits_for_lock "$TMQ_ROOT/ev+tmq/lock"
	run tmq-topic list
	assert_output ev
	kill "$hpid"
	wait "$cpid"
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output ''
	run ls -A "$TMQ_ROOT"
	assert_output ''
}

# on_tty ANSWER... -- COMMAND...: run COMMAND on a terminal of its own (a
# pty), typing each ANSWER after each "[y/N] " prompt; print what the
# terminal showed (the answers echoed; \r\n as \n) and exit with its status.
on_tty() {
	python3 - "$@" <<-'EOF'
	import os, pty, sys
	args = sys.argv[1:]
	answers = args[:args.index("--")]
	argv = args[args.index("--") + 1:]
	pid, fd = pty.fork()
	if pid == 0:
	    os.execvp(argv[0], argv)
	out, given = b"", 0
	while True:
	    try:
	        chunk = os.read(fd, 4096)
	    except OSError:
	        break
	    if not chunk:
	        break
	    out += chunk
	    while answers and out.count(b"[y/N] ") > given:
	        os.write(fd, answers.pop(0).encode() + b"\n")
	        given += 1
	_, status = os.waitpid(pid, 0)
	sys.stdout.write(out.replace(b"\r\n", b"\n").decode())
	sys.exit(os.waitstatus_to_exitcode(status))
	EOF
}

# Topic ev read by groups G and H (their definitions record it), topic
# other read by group X, and a group of the library's (no topic recorded).
topic_with_groups() {
	tmq-topic create ev
	tmq-topic create other
	tmq-put ev a
	tmq-put other b
	tmq-get -g G -P 0 ev >/dev/null
	tmq-get -g H -P 0 ev >/dev/null
	tmq-get -g X -P 0 other >/dev/null
}

# groups_left: the groups in the root.
groups_left() {
	ls "$TMQ_ROOT" | sed -n 's/^--group--\(.*\)\.twc$/\1/p' | tr '\n' ' '
}

@test "delete names the groups that read the topic and offers to delete them too" {
	topic_with_groups
	# Yes, then yes: the topic and its groups go; other groups stay.
	run on_tty y y -- tmq-topic delete ev
	assert_success
	assert_output "delete topic 'ev' and all its messages? [y/N] y
delete the groups that read it too (G, H)? [y/N] y"
	[ ! -e "$TMQ_ROOT/ev.twc" ]
	run groups_left
	assert_output "X "
	# Yes, then no: the groups stay, and it says so.
	tmq-topic create ev
	tmq-get -g G -P 0 ev >/dev/null
	run on_tty y n -- tmq-topic delete ev
	assert_success
	assert_output "delete topic 'ev' and all its messages? [y/N] y
delete the group that reads it too (G)? [y/N] n
tmq-topic: ev: kept the group that reads it: G (--with-groups deletes them too)"
	[ ! -e "$TMQ_ROOT/ev.twc" ]
	run groups_left
	assert_output "G X "
	# No: nothing goes, and nothing more is asked.
	run on_tty n -- tmq-topic delete other
	assert_failure
	assert_output "delete topic 'other' and all its messages? [y/N] n
tmq-topic: other: not deleted"
	[ -e "$TMQ_ROOT/other.twc" ]
}

@test "delete --with-groups asks once, for both; --yes alone keeps the groups and names them" {
	topic_with_groups
	run on_tty y -- tmq-topic delete --with-groups ev
	assert_success
	assert_output "delete topic 'ev' and all its messages, and the groups that read it (G, H)? [y/N] y"
	run groups_left
	assert_output "X "
	# --yes answers the question about the topic, not about the groups.
	run --separate-stderr tmq-topic delete --yes other
	assert_success
	assert_output ""
	assert_stderr "tmq-topic: other: kept the group that reads it: X (--with-groups deletes them too)"
	run groups_left
	assert_output "X "
	# Made again, the group's offsets are out of range for tmq-get.
	tmq-topic create other
	tmq-get -g Y -P 0 other >/dev/null
	run --separate-stderr tmq-topic delete --yes --with-groups other
	assert_success
	assert_stderr ""
	run groups_left
	assert_output ""
	# Without a terminal and without --yes, --with-groups deletes nothing.
	tmq-topic create ev
	tmq-get -g G -P 0 ev >/dev/null
	run --separate-stderr setsid -w tmq-topic delete --with-groups ev </dev/null
	assert_fails_with "tmq-topic: no terminal to confirm on: use --yes"
	run groups_left
	assert_output "G "
}

# --- prune -------------------------------------------------------------

# A topic "old" (u16, 2 partitions) with three day files in partition 0
# (2026-01-01: offsets 0-1, 2026-01-02: 2-3, 2026-01-03: 4) and one in
# partition 1 (2026-01-01: 0).
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

@test "prune: old day files go, the newest of each partition stays, offsets stay" {
	make_old_topic
	run --separate-stderr tmq-topic prune old --before 2026-01-03
	assert_success
	assert_output ""
	run ls "$TMQ_ROOT/old"
	assert_output "0-20260103_4.tmf
1-20260101_0.tmf"
	run tmq-get -F '%p %o %s\n' old
	assert_output "0 4 c4
1 0 p1"
	# A reader asking for a pruned offset starts at the first left.
	run --separate-stderr tmq-get -P 0 --from 1 old
	assert_success
	assert_output "c4"
	assert_stderr "tmq-get: old: partition 0: offset 1 is gone, starting at 4"
}

@test "prune --dry-run lists what would go and removes nothing" {
	make_old_topic
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --dry-run
	assert_success
	assert_output "0-20260101_0.tmf
0-20260102_2.tmf"
	[ -f "$TMQ_ROOT/old/0-20260101_0.tmf" ]
	[ -f "$TMQ_ROOT/old/0-20260102_2.tmf" ]
}

@test "prune --archive moves the files under DIR/NAME/, DIR a root of its own" {
	make_old_topic
	run tmq-topic prune old --before 2026-01-02 --archive "$BATS_TEST_TMPDIR/arch"
	assert_success
	[ -f "$BATS_TEST_TMPDIR/arch/old/0-20260101_0.tmf" ]
	[ ! -e "$TMQ_ROOT/old/0-20260101_0.tmf" ]
	[ -f "$TMQ_ROOT/old/0-20260102_2.tmf" ]
	# The partition's only file stays, old as it is.
	[ -f "$TMQ_ROOT/old/1-20260101_0.tmf" ]
	# The archive is a root: its files read as they did.
	run tmq-get -d "$BATS_TEST_TMPDIR/arch" -F '%o %s\n' old
	assert_success
	assert_output "0 a0
1 a1"
}

@test "prune --archive into the topic's own root or directory is refused, nothing moved" {
	# The own root: each file was moved onto itself and prune exited 0,
	# having pruned nothing; the directory: a topic made inside it.
	make_old_topic
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --archive "$TMQ_ROOT"
	assert_fails_with "tmq-topic: $TMQ_ROOT: the archive cannot be the topic's own root"
	run --separate-stderr tmq-topic prune old --before 2026-01-03 --archive "$TMQ_ROOT/old/"
	assert_fails_with "tmq-topic: $TMQ_ROOT/old/: the archive cannot be the topic's directory"
	run ls -A "$TMQ_ROOT/old"
	assert_output "0-20260101_0.tmf
0-20260102_2.tmf
0-20260103_4.tmf
1-20260101_0.tmf"
}

@test "prune: a group's lag counts from what remains" {
	make_old_topic
	tmq-get -g g --window 1 -P 1 old >/dev/null
	run tmq-topic prune old --before 2026-01-03
	assert_success
	run tmq-group describe --json g
	assert_success
	run python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["partitions"][0]["lag"], d["total_lag"])' <<<"$output"
	assert_output "1 2"
}

@test "prune refuses a group's log: its old days hold the group's commits" {
	tmq-topic create ev
	tmq-put ev a b c
	tmq-get -g G --window 1 --commit ev >/dev/null
	# The group's log as if its commit were from an older day, and a
	# newer day file after it.
	mv "$TMQ_ROOT"/--group--G/0-*.tmf "$TMQ_ROOT/--group--G/0-20260101_0.tmf"
	tmq-group rebalance G --window 1
	for dry in --dry-run ""; do
		run --separate-stderr tmq-topic prune --before 1d $dry -- --group--G
		assert_fails_with "tmq-topic: --group--G: a consumer group's log, not a topic"
		assert_output ""
	done
	[ -f "$TMQ_ROOT/--group--G/0-20260101_0.tmf" ]
	run tmq-get -g G --window 1 ev
	assert_success
	assert_output ""
}

@test "prune: Nd means N days ago; --before is required and checked" {
	make_old_topic
	run tmq-topic prune old --before 1d --dry-run
	assert_success
	assert_output "0-20260101_0.tmf
0-20260102_2.tmf"
	run --separate-stderr tmq-topic prune old
	assert_usage_error tmq-topic "prune needs --before DATE"
	run --separate-stderr tmq-topic prune old --before yesterday
	assert_usage_error tmq-topic "--before: 'yesterday': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	run --separate-stderr tmq-topic prune nosuch --before 1d
	assert_fails_with "tmq-topic: nosuch: no such topic"
}

@test "prune --before: every form of tmq(7)'s TIMES; a bare number and bad forms are refused" {
	make_old_topic
	local f at
	at=@$(date -u -d 2026-01-03 +%s)
	for f in 1d -1d 24h 1440m 86400s now 2026-01-03 2026-01-03T00:00:00Z \
	    2026-01-03T01:00+01:00 "$at" "$at.5"; do
		run --separate-stderr tmq-topic prune old --before "$f" --dry-run
		assert_success
		assert_output "0-20260101_0.tmf
0-20260102_2.tmf"
	done
	run --separate-stderr tmq-topic prune old --before 1767398400
	assert_usage_error tmq-topic "--before: '1767398400': a bare number is not a time (write @1767398400 for Unix seconds)"
	for f in 7x d -d @ @1e9 @-5 1.d 1d1d 2026-01-03T; do
		run --separate-stderr tmq-topic prune old --before "$f"
		assert_usage_error tmq-topic "--before: '$f': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	done
	run --separate-stderr tmq-topic prune old --before 36600000d
	assert_usage_error tmq-topic "--before: '36600000d': too long ago (at most 100 years: 36525d)"
	# Nothing went.
	run tmq-topic prune old --before 1d --dry-run
	assert_line 0-20260101_0.tmf
}

@test "every output path reports a write error on standard output, exit 1" {
	make_old_topic
	assert_write_error tmq-topic list
	assert_write_error tmq-topic list -l
	assert_write_error tmq-topic list --json
	assert_write_error tmq-topic info old
	assert_write_error tmq-topic info old --json
	assert_write_error tmq-topic partition old 1 2
	printf '1\n2\n' >"$BATS_TEST_TMPDIR/keys"
	assert_write_error -i "$BATS_TEST_TMPDIR/keys" tmq-topic partition old
	assert_write_error tmq-topic prune old --before 2026-01-03 --dry-run
	assert_write_error tmq-topic -h
	assert_write_error tmq-topic -V
	assert_write_error tmq-topic --completion-helper
	# What prints nothing has nothing to fail.
	run --separate-stderr bash -c 'tmq-topic create quiet >/dev/full'
	assert_success
	run --separate-stderr bash -c 'tmq-topic delete -y quiet >/dev/full'
	assert_success
	run --separate-stderr bash -c 'tmq-topic list >&-'
	assert_failure 1
	assert_stderr "tmq-topic: write error on standard output: Bad file descriptor"
}

# --- options that a command does not take ------------------------------

@test "every command refuses every option it does not take (the whole table)" {
	check_option_table tmq-topic
}

@test "a foreign option is never ignored: delete --dry-run deletes nothing, create -l creates nothing" {
	tmq-topic create t
	run --separate-stderr tmq-topic delete t -y --dry-run
	assert_usage_error tmq-topic "--dry-run is for prune, not delete"
	[ -e "$TMQ_ROOT/t.twc" ]
	run --separate-stderr tmq-topic create x -l -y --archive /x
	assert_usage_error tmq-topic "-l is for list, not create"
	[ ! -e "$TMQ_ROOT/x.twc" ]
	run --separate-stderr tmq-topic --long list -p 2
	assert_usage_error tmq-topic "-p is for create, not list"
	run --separate-stderr tmq-topic info t --yes
	assert_usage_error tmq-topic "--yes is for delete, not info"
	run --separate-stderr tmq-topic partition t 1 --json
	assert_usage_error tmq-topic "--json is for list and info, not partition"
}

@test "--yes, --with-groups and --before are taken only in full; other options abbreviate" {
	# getopt_long takes any unique prefix: '--y' said yes for the user,
	# '--with' deleted the groups too, '--bef' pruned.
	tmq-topic create t
	tmq-put t a
	tmq-get -g G --window 1 --commit t >/dev/null
	run --separate-stderr tmq-topic delete t --y
	assert_usage_error tmq-topic "'--y': write --yes in full"
	run --separate-stderr tmq-topic delete t --yes --with
	assert_usage_error tmq-topic "'--with': write --with-groups in full"
	run --separate-stderr tmq-topic delete t --yes --with-grou
	assert_usage_error tmq-topic "'--with-grou': write --with-groups in full"
	run --separate-stderr tmq-topic prune t --bef=1d
	assert_usage_error tmq-topic "'--bef': write --before in full"
	[ -e "$TMQ_ROOT/t.twc" ]
	[ -e "$TMQ_ROOT/--group--G.twc" ]
	run --separate-stderr tmq-topic prune t --before 1d --dry
	assert_success
	run --separate-stderr tmq-topic list --lo
	assert_success
	assert_line --index 1 --regexp '^t +u16 +1 +1 '
}

@test "an empty -d or --archive is a usage error, not the default root" {
	# -d "$ROOT" with ROOT unset: the default root is not where the
	# command was meant to go.
	tmq-topic create t
	run --separate-stderr tmq-topic delete -y -d '' t
	assert_usage_error tmq-topic "-d: empty directory name"
	run --separate-stderr tmq-topic delete -y --root= t
	assert_usage_error tmq-topic "--root: empty directory name"
	run --separate-stderr tmq-topic prune t --before 1d --archive ''
	assert_usage_error tmq-topic "--archive: empty directory name"
	[ -e "$TMQ_ROOT/t.twc" ]
}

@test "create: -t given twice is a usage error, not the last list alone" {
	# "-t A -t B" made a topic of type B only; its types never change.
	run --separate-stderr tmq-topic create t -t A -t B
	assert_usage_error tmq-topic "-t given twice: give one list (A,B,...)"
	[ ! -e "$TMQ_ROOT/t.twc" ]
	run --separate-stderr tmq-topic create t --types A --types=B
	assert_usage_error tmq-topic "--types given twice: give one list (A,B,...)"
	tmq-topic create t -t A,B
}

@test "-h lists every command, and each option with the commands that take it" {
	run --separate-stderr tmq-topic -h
	assert_success
	local sub
	for sub in create list info partition prune delete; do
		assert_line --regexp "^       tmq-topic $sub( |\$)|^usage: tmq-topic $sub( |\$)"
		assert_line --regexp "^  $sub  +[a-z]"
	done
	assert_line --regexp '^Create, list, describe, locate keys in, prune and delete'
	assert_line --regexp '^  -0, --null +partition: '
	assert_line --regexp '^      --json +list and info: print JSON'
}

@test "partition: a closed standard input is said to be one, not taken for no keys" {
	tmq-topic create t -p 4
	run --separate-stderr bash -c 'tmq-topic partition t <&-'
	assert_fails_with "tmq-topic: standard input: not open for reading: Bad file descriptor"
	assert_output ''
}

@test "create --if-not-exists: the same definition there is no error and writes nothing; another is, naming the first difference" {
	tmq-topic create -p 2 -t A,B ev
	tmq-put ev x
	before=$(ls -l --time-style=full-iso "$TMQ_ROOT"/ev.twc "$TMQ_ROOT"/ev)
	run --separate-stderr tmq-topic create -p 2 -t A,B --if-not-exists ev
	assert_equal "$status $output $stderr" "0  "
	assert_equal "$(ls -l --time-style=full-iso "$TMQ_ROOT"/ev.twc "$TMQ_ROOT"/ev)" "$before"
	run --separate-stderr tmq-topic create -p 4 -t A,B --if-not-exists ev
	assert_fails_with "tmq-topic: ev exists with another definition: 2 partitions, not 4"
	run --separate-stderr tmq-topic create -p 2 -t A --if-not-exists ev
	assert_fails_with "tmq-topic: ev exists with another definition: types A,B, not A"
	run --separate-stderr tmq-topic create -p 2 -t B,A --if-not-exists ev
	assert_fails_with "tmq-topic: ev exists with another definition: types A,B, not B,A"
	run --separate-stderr tmq-topic create -k u8 -p 2 -t A,B --if-not-exists ev
	assert_fails_with "tmq-topic: ev exists with another definition: key type u16, not u8"
	# Without it, as before; and a new name is simply created.
	run --separate-stderr tmq-topic create -p 2 -t A,B ev
	assert_fails_with "tmq-topic: ev: topic exists"
	run --separate-stderr tmq-topic create --if-not-exists nw
	assert_success
	run tmq-topic list
	assert_output $'ev\nnw'
	# Not an option of the other commands.
	run --separate-stderr tmq-topic list --if-not-exists
	assert_equal "$status" 2
}
