#!/usr/bin/env bats
# tmq-get: output forms, where reading starts and stops, partitions,
# round-robin order, damaged partition files, follow mode, the vectors.

load test_helper

# The helper's setup, then work in the test's own directory.
eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

# Stop whatever a test left running in the background (track PID).
teardown() {
	end_bg
}

# A topic: mk NAME [tmq-topic create options].
mk() {
	tmq-topic create "$@"
}

# Topic tt (u8, 2 partitions) with hand-written lines at known times:
#   p0: a0 2026-11-25T09:00:00Z, a1 10:00:00.5Z | a2 2026-11-26T09:00:00.08Z
#   p1: b0 2026-11-25T09:01:00.25Z | b1 2026-11-26T11:00Z, b2 12:00Z
# (| starts a new day file).
timed_topic() {
	local d=$TMQ_ROOT/tt
	mk tt -k u8 -p 2
	tmq_write_line "$d" 0-20261125_0.tmf u8 0 1795597200 a0
	tmq_write_line "$d" 0-20261125_0.tmf u8 0 1795600800.5 a1
	tmq_write_line "$d" 0-20261126_2.tmf u8 0 1795683600.08 a2
	tmq_write_line "$d" 1-20261125_0.tmf u8 1 1795597260.25 b0
	tmq_write_line "$d" 1-20261126_1.tmf u8 1 1795690800 b1
	tmq_write_line "$d" 1-20261126_1.tmf u8 1 1795694400 b2
}

# has_lines FILE N: FILE has N lines or more.
has_lines() {
	[ "$(wc -l <"$1")" -ge "$2" ]
}

# wait_lines FILE N: wait until FILE has N lines (test_helper's wait_for).
wait_lines() {
	wait_for has_lines "$1" "$2"
}

# wait_exit PID: wait until PID has exited.
wait_exit() {
	wait_for gone "$1"
}

# ---------------------------------------------------------------- output

@test "tmq-get: by default each payload and a newline, quietly" {
	mk ev
	tmq-put ev one 'two words' 'Grüße 🙂' ''
	run --separate-stderr tmq-get ev
	assert_success
	assert_equal "$stderr" ''
	assert_output $'one\ntwo words\nGrüße 🙂'	# (run drops the last newlines)
	tmq-get ev >out
	printf 'one\ntwo words\nGrüße 🙂\n\n' >want
	diff -u want out
	# Payloads are printed as they are, newlines and all.
	printf 'a\nb' | tmq-put -l ev
	run tmq-get -o 4 ev
	assert_output $'a\nb'
	# An empty topic prints nothing and succeeds.
	mk empty -p 3
	run --separate-stderr tmq-get empty
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
}

@test "tmq-get -K: KEY SEP PAYLOAD" {
	mk n -k u64
	mk s -k char8
	tmq-put -k 18446744073709551615 n big
	tmq-put -K '|' s 'Zürich|x' '|empty key' 'a b|c'
	run --separate-stderr tmq-get -K : n
	assert_success
	assert_output '18446744073709551615:big'
	run tmq-get --key-delimiter ' => ' s
	assert_output $'Zürich => x\n => empty key\na b => c'
}

@test "tmq-get -F: every directive" {
	timed_topic
	mk ty -k char3 -t Order,Refund
	tmq-put -k 'é' -T Refund ty '{"id": 1}'
	tmq-put -k 'xyz' -b ty "$(printf 'raw')"
	run --separate-stderr tmq-get -F 'topic=%t p=%p o=%o k=%k u=%u T=%T y=%y s=%s 100%%\n' tt
	assert_success
	assert_equal "$stderr" ''
	assert_output 'topic=tt p=0 o=0 k=0 u=1795597200.0 T=2026-11-25T09:00:00.000Z y=str s=a0 100%
topic=tt p=1 o=0 k=1 u=1795597260.25 T=2026-11-25T09:01:00.250Z y=str s=b0 100%
topic=tt p=0 o=1 k=0 u=1795600800.5 T=2026-11-25T10:00:00.500Z y=str s=a1 100%
topic=tt p=1 o=1 k=1 u=1795690800.0 T=2026-11-26T11:00:00.000Z y=str s=b1 100%
topic=tt p=0 o=2 k=0 u=1795683600.08 T=2026-11-26T09:00:00.080Z y=str s=a2 100%
topic=tt p=1 o=2 k=1 u=1795694400.0 T=2026-11-26T12:00:00.000Z y=str s=b2 100%'
	run --separate-stderr tmq-get --format '%t|%k|%y|%s\n' ty
	assert_success
	assert_output $'ty|é|Refund|{"id": 1}\nty|xyz|bytes|raw'
}

@test "tmq-get -F: %m epoch milliseconds (rounded as %T) and %S payload size in bytes" {
	timed_topic
	run --separate-stderr tmq-get -F '%m %T %S\n' tt
	assert_success
	assert_equal "$stderr" ''
	assert_output '1795597200000 2026-11-25T09:00:00.000Z 2
1795597260250 2026-11-25T09:01:00.250Z 2
1795600800500 2026-11-25T10:00:00.500Z 2
1795690800000 2026-11-26T11:00:00.000Z 2
1795683600080 2026-11-26T09:00:00.080Z 2
1795694400000 2026-11-26T12:00:00.000Z 2'
	mk sz -t Order
	tmq-put -J --keep-time sz '{"timestamp":0.0005,"payload":"café"}' \
	    '{"timestamp":1700000000.9996,"payload":""}' \
	    '{"timestamp":1.0,"type":"bytes","payload":"AAo="}' \
	    '{"timestamp":2,"type":"Order","payload":{"a": 1}}'
	run --separate-stderr tmq-get -F '%m|%T|%S|%y\n' sz
	assert_success
	assert_output '1|1970-01-01T00:00:00.001Z|5|str
1700000001000|2023-11-14T22:13:21.000Z|0|str
1000|1970-01-01T00:00:01.000Z|2|bytes
2000|1970-01-01T00:00:02.000Z|8|Order'
}

@test "tmq-get -F: escapes \\n \\t \\0 \\\\ and no newline of its own" {
	mk ev -k u8
	tmq-put -k 7 ev a b
	tmq-get -F '%k\t%s\0' ev >out
	printf '7\ta\0007\tb\000' >want
	cmp want out
	run tmq-get -F '[%s]' ev
	assert_output '[a][b]'
	run tmq-get -F '\\%s\\\n' ev
	assert_output $'\\a\\\n\\b\\'
	run tmq-get -F 'literal only\n' ev
	assert_output $'literal only\nliteral only'
}

@test "tmq-get -F: a bad directive or escape is a usage error" {
	mk ev
	tmq-put ev a
	run --separate-stderr tmq-get -F '%s %q' ev
	assert_usage_error tmq-get "bad format: unknown directive '%q'"
	run --separate-stderr tmq-get -F 'x\q' ev
	assert_usage_error tmq-get "bad format: unknown escape '\\q'"
	run --separate-stderr tmq-get -F '%s%' ev
	assert_usage_error tmq-get "bad format: '%' at the end"
	run --separate-stderr tmq-get -F '%s\' ev
	assert_usage_error tmq-get "bad format: '\\' at the end"
}

@test "tmq-get -0: each message ends with NUL" {
	mk ev
	printf 'one\0two\nlines\0\0' | tmq-put -0 ev
	run --separate-stderr tmq-get -0 ev
	assert_success
	tmq-get --null ev >out
	printf 'one\0two\nlines\0\0' >want
	cmp want out
	tmq-get -0 -K : ev >out
	printf '0:one\0000:two\nlines\0000:\0' >want
	cmp want out
}

@test "tmq-get -J: one JSON object a message, bytes in base64" {
	mk ev -k char8 -p 2 -t Order
	tmq-put -K '|' ev $'a"b\\c|text\twith "quotes" and\x01control' 'é|Grüße 🙂' '|'
	printf '\000\377\n' | tmq-put -b -l -k k ev
	tmq-put -T Order -k o ev '{"id": 18446744073709551615, "x": [1.5, null]}'
	run --separate-stderr tmq-get -J ev
	assert_success
	assert_equal "$stderr" ''
	assert_equal "${#lines[@]}" 5
	run bash -c 'tmq-get -J ev | python3 -c "
import base64, json, sys
for l in sys.stdin:
    m = json.loads(l)
    assert set(m) == {\"topic\", \"partition\", \"offset\", \"key\", \"timestamp\", \"type\", \"payload\"}, m
    assert m[\"topic\"] == \"ev\" and isinstance(m[\"timestamp\"], float)
    p = m[\"payload\"]
    if m[\"type\"] == \"bytes\":
        p = base64.b64decode(p)
    print(repr(m[\"key\"]), m[\"type\"], repr(p))
" | LC_ALL=C sort'
	assert_success
	assert_output "'' str ''
'a\"b\\\\c' str 'text\\twith \"quotes\" and\\x01control'
'k' bytes b'\\x00\\xff\\n'
'o' Order {'id': 18446744073709551615, 'x': [1.5, None]}
'é' str 'Grüße 🙂'"
	# partition and offset are right.
	run bash -c "tmq-get -J ev | python3 -c '
import json, sys
for l in sys.stdin:
    m = json.loads(l)
    print(m[\"partition\"], m[\"offset\"])
' | LC_ALL=C sort"
	assert_output "$(tmq-get -F '%p %o\n' ev | LC_ALL=C sort)"
}

@test "tmq-get -J: every line is strict JSON, whatever the root holds" {
	mk ty -k u16 -t Order
	local d=$TMQ_ROOT/ty f=0-20261125_0.tmf
	# Typed payloads that the library's json.dumps writes and json-c
	# reads, but no strict JSON parser does; then a good one, and one
	# with raw newlines (white space: valid, but it would split a line).
	tmq_write_line "$d" $f 2 1 1795597320 '{"a": NaN}' typed:0
	tmq_write_line "$d" $f 2 2 1795597321 '{"a": [Infinity, -Infinity]}' typed:0
	tmq_write_line "$d" $f 2 3 1795597322 '{"s": "\ud800"}' typed:0
	tmq_write_line "$d" $f 2 4 1795597323 '{"s": "\udc00 and \ud83d\ude00"}' typed:0
	tmq_write_line "$d" $f 2 5 1795597324 '{"ok": "\ud83d\ude00", "n": -1.5e3}' typed:0
	tmq_write_line "$d" $f 2 6 1795597325 $'{\r\n "id": 1,\n "v": [1,\n 2]\n}' typed:0
	tmq-get -J ty >out.jsonl
	[ "$(wc -l <out.jsonl)" -eq 6 ]
	assert_strict_jsonl out.jsonl
	# A payload that is not strict JSON on one line comes as a string of
	# its exact text (the type says it is typed); a strict one as it is.
	run python3 -c '
import json, sys
for l in open("out.jsonl"):
    m = json.loads(l)
    print(m["key"], m["type"], type(m["payload"]).__name__, json.dumps(m["payload"]))'
	assert_output '1 Order str "{\"a\": NaN}"
2 Order str "{\"a\": [Infinity, -Infinity]}"
3 Order str "{\"s\": \"\\ud800\"}"
4 Order str "{\"s\": \"\\udc00 and \\ud83d\\ude00\"}"
5 Order dict {"ok": "\ud83d\ude00", "n": -1500.0}
6 Order str "{\r\n \"id\": 1,\n \"v\": [1,\n 2]\n}"'
	run tmq-get -J -n 1 -o 4 ty
	assert_output '{"topic":"ty","partition":0,"offset":4,"key":5,"timestamp":1795597324.0,"type":"Order","payload":{"ok": "\ud83d\ude00", "n": -1.5e3}}'
}

@test "tmq-get -J: u64 keys are strings, exact in jq; other integer keys numbers" {
	mk big -k u64 -p 3
	mk small -k u32
	tmq-put -k 18446744073709551615 big max
	tmq-put -k 9007199254740993 big 2^53+1
	tmq-put -k 0 big zero
	tmq-put -k 4294967295 small max
	tmq-get -J big >big.jsonl
	assert_strict_jsonl big.jsonl
	command -v jq >/dev/null || skip "jq is not installed"
	run bash -c "jq -r '.key + \" \" + .payload' big.jsonl | LC_ALL=C sort"
	assert_output $'0 zero\n18446744073709551615 max\n9007199254740993 2^53+1'
	run bash -c "tmq-get -J small | jq -c '[.key, (.key | type)]'"
	assert_output '[4294967295,"number"]'
}

# ---------------------------------------------------------------- order

@test "tmq-get: partitions in turn, one message from each" {
	mk rr -k u8 -p 3
	d=$TMQ_ROOT/rr
	for m in x0 x1 x2; do tmq_write_line "$d" 0-20261125_0.tmf u8 0 1795597200 "$m"; done
	tmq_write_line "$d" 1-20261125_0.tmf u8 0 1795597200 y0
	for m in z0 z1; do tmq_write_line "$d" 2-20261125_0.tmf u8 0 1795597200 "$m"; done
	run --separate-stderr tmq-get -F '%p:%o:%s ' rr
	assert_success
	assert_output '0:0:x0 1:0:y0 2:0:z0 0:1:x1 2:1:z1 0:2:x2 '
	# The same with partitions written by tmq-put.
	mk put -k u8 -p 2
	tmq-put -K : put 0:a 0:b 0:c 1:d
	run tmq-get -F '%p%s ' put
	assert_output '0a 1d 0b 0c '
}

@test "tmq-get: several topics are read in turn, partition by partition" {
	mk ta -k u8 -p 2
	mk tb -k u8
	tmq_write_line "$TMQ_ROOT/ta" 0-20261125_0.tmf u8 0 1795597200 a00
	tmq_write_line "$TMQ_ROOT/ta" 0-20261125_0.tmf u8 0 1795597200 a01
	tmq_write_line "$TMQ_ROOT/ta" 1-20261125_0.tmf u8 1 1795597200 a10
	for m in b0 b1 b2; do tmq_write_line "$TMQ_ROOT/tb" 0-20261125_0.tmf u8 0 1795597200 "$m"; done
	run --separate-stderr tmq-get -F '%t/%p/%o=%s ' ta tb
	assert_success
	assert_output 'ta/0/0=a00 ta/1/0=a10 tb/0/0=b0 ta/0/1=a01 tb/0/1=b1 tb/0/2=b2 '
	run tmq-get -F '%t/%p/%o=%s ' tb ta
	assert_output 'tb/0/0=b0 ta/0/0=a00 ta/1/0=a10 tb/0/1=b1 ta/0/1=a01 tb/0/2=b2 '
	# A topic named twice is read once.
	run tmq-get -F '%s ' tb tb
	assert_output 'b0 b1 b2 '
}

# ---------------------------------------------------------------- from, until, count

@test "tmq-get --from start and now" {
	timed_topic
	run --separate-stderr tmq-get --from start tt
	assert_success
	assert_output $'a0\nb0\na1\nb1\na2\nb2'
	run --separate-stderr tmq-get -o now tt
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
}

@test "tmq-get --from OFFSET: in every partition, or with -P in one" {
	timed_topic
	run --separate-stderr tmq-get -o 2 -F '%p:%o:%s ' tt
	assert_success
	assert_output '0:2:a2 1:2:b2 '
	run tmq-get -o 1 -P 1 tt
	assert_output $'b1\nb2'
	run tmq-get -o 0 -P 0 tt
	assert_output $'a0\na1\na2'
	# Past the end: nothing yet.
	run --separate-stderr tmq-get -o 3 tt
	assert_success
	assert_output ''
}

@test "tmq-get --from OFFSET: an offset whose file is gone starts at the first left" {
	mk gone -k u8
	tmq_write_line "$TMQ_ROOT/gone" 0-20261126_10.tmf u8 0 1795683600 x
	tmq_write_line "$TMQ_ROOT/gone" 0-20261126_10.tmf u8 0 1795683600 y
	run --separate-stderr tmq-get -o 3 -F '%o %s\n' gone
	assert_success
	assert_output $'10 x\n11 y'
	assert_equal "$stderr" 'tmq-get: gone: partition 0: offset 3 is gone, starting at 10'
	run --separate-stderr tmq-get -o 11 -F '%o %s\n' gone
	assert_output '11 y'
	assert_equal "$stderr" ''
	run --separate-stderr tmq-get -F '%o %s\n' gone
	assert_output $'10 x\n11 y'
	assert_equal "$stderr" ''
}

@test "tmq-get --from -N: the last N of each partition" {
	timed_topic
	run --separate-stderr tmq-get -o -1 tt
	assert_success
	assert_output $'a2\nb2'
	run tmq-get -o -2 -F '%p:%o ' tt
	assert_output '0:1 1:1 0:2 1:2 '
	run tmq-get -o -100 tt
	assert_output $'a0\nb0\na1\nb1\na2\nb2'
	run tmq-get -o -0 tt
	assert_output ''
	run tmq-get -o -2 -P 1 tt
	assert_output $'b1\nb2'
}

@test "tmq-get --from TIME: @UNIXSECONDS and ISO 8601" {
	timed_topic
	# 2026-11-25T10:00:00.5Z is a1's time: from there on.
	run --separate-stderr tmq-get -o @1795600800.5 tt
	assert_success
	assert_output $'a1\nb1\na2\nb2'
	run tmq-get -o @1795600800.6 tt
	assert_output $'a2\nb1\nb2'
	run tmq-get -o @1795600800 tt
	assert_output $'a1\nb1\na2\nb2'
	# A bare number with a fraction is neither an offset nor a time.
	run --separate-stderr tmq-get -o 1795600800.6 tt
	assert_usage_error tmq-get "--from: '1795600800.6': a bare number with a fraction is not a position (write @1795600800.6 for Unix seconds)"
	run tmq-get -o 2026-11-25T10:00Z tt
	assert_output $'a1\nb1\na2\nb2'
	run tmq-get -o 2026-11-25T09:00:30 -F '%p:%o ' tt
	assert_output '0:1 1:0 0:2 1:1 1:2 '
	run tmq-get -o 2026-11-26 tt
	assert_output $'a2\nb1\nb2'
	run tmq-get -o 2026-11-26T10:00:00+01:00 -F '%s@%T ' tt
	assert_output 'a2@2026-11-26T09:00:00.080Z b1@2026-11-26T11:00:00.000Z b2@2026-11-26T12:00:00.000Z '
	run tmq-get -o @1795700000 tt
	assert_output ''
	run tmq-get -o @1000000000 tt
	assert_output $'a0\nb0\na1\nb1\na2\nb2'
}

@test "tmq-get --until: each partition stops at its first message after TIME" {
	timed_topic
	run --separate-stderr tmq-get --until 2026-11-25T10:00:00.5Z tt
	assert_success
	assert_output $'a0\nb0\na1'
	run tmq-get --until @1795690800 tt
	assert_output $'a0\nb0\na1\nb1\na2'
	run tmq-get --until @1795690799.9 tt
	assert_output $'a0\nb0\na1\na2'
	run tmq-get --until @1795597200 tt
	assert_output 'a0'
	run tmq-get --until 2026-11-24 tt
	assert_output ''
	run tmq-get -o 2026-11-25T09:30Z --until 2026-11-26T11:30Z tt
	assert_output $'a1\nb1\na2'
}

@test "tmq-get -n: stop after N messages" {
	timed_topic
	run --separate-stderr tmq-get -n 3 tt
	assert_success
	assert_output $'a0\nb0\na1'
	run tmq-get --count 1 -o -1 tt
	assert_output 'a2'
	run tmq-get -n 100 tt
	assert_output $'a0\nb0\na1\nb1\na2\nb2'
	run tmq-get -n 18446744073709551615 -P 1 tt
	assert_output $'b0\nb1\nb2'
}

# ---------------------------------------------------------------- partitions

@test "tmq-get -P: only the partitions listed" {
	mk ev -k u8 -p 4
	for p in 0 1 2 3; do
		tmq_write_line "$TMQ_ROOT/ev" "$p-20261125_0.tmf" u8 "$p" 1795597200 "m$p"
	done
	run --separate-stderr tmq-get -P 2 ev
	assert_success
	assert_output 'm2'
	run tmq-get -P 0,3 ev
	assert_output $'m0\nm3'
	run tmq-get --partition 1-3 ev
	assert_output $'m1\nm2\nm3'
	# In partition order, whatever the order of the list.
	run tmq-get -P 3,0-1 ev
	assert_output $'m0\nm1\nm3'
	run tmq-get -P 1-2,0 ev
	assert_output $'m0\nm1\nm2'
	# A partition listed twice is read once.
	run tmq-get -P 2,2,1-2 ev
	assert_output $'m1\nm2'
}

@test "tmq-get -P: a partition the topic does not have is an error" {
	mk ev -k u8 -p 4
	mk small -k u8 -p 2
	tmq-put ev x
	run --separate-stderr tmq-get -P 7 ev
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'tmq-get: ev: partition 7 does not exist (topic has 4)'
	run --separate-stderr tmq-get -P 1-4 ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: ev: partition 4 does not exist (topic has 4)'
	# Checked against each topic.
	run --separate-stderr tmq-get -P 3 ev small
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'tmq-get: small: partition 3 does not exist (topic has 2)'
}

@test "tmq-get -P: a malformed list is a usage error that quotes the list" {
	mk ev -k u8 -p 4
	run --separate-stderr tmq-get -P x ev
	assert_usage_error tmq-get "-P: 'x': 'x' is not a partition number"
	run --separate-stderr tmq-get -P '' ev
	assert_usage_error tmq-get "-P: '': empty partition list"
	run --separate-stderr tmq-get -P 2-1 ev
	assert_usage_error tmq-get "-P: '2-1': range 2-1 runs backwards"
	run --separate-stderr tmq-get -P 0,a-3 ev
	assert_usage_error tmq-get "-P: '0,a-3': 'a' is not a partition number"
	# Before any topic is opened: even one that does not exist.
	run --separate-stderr tmq-get -P 1,,2 nosuch
	assert_usage_error tmq-get "-P: '1,,2': empty element"
}

@test "tmq-get -K: kcat's escapes \\t \\n \\r \\0 \\\\, the same as tmq-put's" {
	tmq-topic create ev -k char8
	tmq-put -k a ev one
	run tmq-get -K '\t' ev
	assert_output $'a\tone'
	run tmq-get -K '\n' ev
	assert_output $'a\none'
	run tmq-get -K '\\' ev
	assert_output 'a\one'
	run bash -c "tmq-get -K '\r' ev | od -An -c | tr -s ' '"
	assert_output ' a \r o n e \n'
	run bash -c "tmq-get -K '<\0>' ev | od -An -c | tr -s ' '"
	assert_output ' a < \0 > o n e \n'
	# What tmq-get -K writes, tmq-put -K reads back.
	tmq-topic create copy -k char8
	tmq-get -K '\t' ev | tmq-put -K '\t' copy
	run tmq-get -F '%k=%s\n' copy
	assert_output 'a=one'
	run --separate-stderr tmq-get -K '\q' ev
	assert_usage_error tmq-get "-K: unknown escape '\\q'"
	run --separate-stderr tmq-get -K '\' ev
	assert_usage_error tmq-get "-K: '\\' at the end"
}

@test "tmq-get --from and --until: every form of tmq(7)'s TIMES; -N and OFFSET stay counts" {
	local now f
	aged_topic ev
	for f in 1h -1h 60m -60m 3600s "@$((now - 3600))" "@$((now - 3600)).5" \
	    "$(date -u -d @$((now - 3600)) +%Y-%m-%dT%H:%M:%SZ)" \
	    "$(date -d @$((now - 3600)) +%Y-%m-%dT%H:%M:%S%:z)"; do
		run --separate-stderr tmq-get --from "$f" ev
		assert_success
		assert_output new
		run --separate-stderr tmq-get --until "$f" ev
		assert_success
		assert_output old
	done
	for f in 3h -3h 1d 180m; do
		run --separate-stderr tmq-get --from "$f" ev
		assert_output $'old\nnew'
	done
	run --separate-stderr tmq-get --until now ev
	assert_output $'old\nnew'
	# A bare number is an offset for --from, -N the last N.
	run --separate-stderr tmq-get --from 1 ev
	assert_output new
	run --separate-stderr tmq-get --from -2 ev
	assert_output $'old\nnew'
	# ... and nothing for --until.
	run --separate-stderr tmq-get --until "$now" ev
	assert_usage_error tmq-get "--until: '$now': a bare number is not a time (write @$now for Unix seconds)"
	for f in 1x 1.h 30m1h @ @1e9 h; do
		run --separate-stderr tmq-get --until "$f" ev
		assert_usage_error tmq-get "--until: '$f': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
		run --separate-stderr tmq-get --from "$f" ev
		assert_usage_error tmq-get "--from: '$f': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	done
	run --separate-stderr tmq-get --until 36600000d ev
	assert_usage_error tmq-get "--until: '36600000d': too long ago (at most 100 years: 36525d)"
	# One limit, as tmq(7) states it, in every unit; 36600d passed.
	for f in 36525d 876600h 52596000m 3155760000s -36525d; do
		run --separate-stderr tmq-get --from "$f" ev
		assert_success
		assert_output $'old\nnew'
	done
	for f in 36526d 876601h 52596001m 3155760001s 36600d -36526d; do
		run --separate-stderr tmq-get --from "$f" ev
		assert_usage_error tmq-get "--from: '$f': too long ago (at most 100 years: 36525d)"
	done
	run --separate-stderr tmq-get --from -1x ev
	assert_usage_error tmq-get "--from: '-1x': bad position (-N wants a count)"
}

@test "tmq-get: -K, -F and -J exclude each other; -K '' is refused as by tmq-put" {
	mk ev
	tmq-put ev a
	run --separate-stderr tmq-get -K : -F '%s' ev
	assert_usage_error tmq-get "-K and -F do not go together"
	run --separate-stderr tmq-get -F '%s' -K : ev
	assert_usage_error tmq-get "-F and -K do not go together"
	run --separate-stderr tmq-get -J -K : ev
	assert_usage_error tmq-get "-J and -K do not go together"
	run --separate-stderr tmq-get -F '%s' --json ev
	assert_usage_error tmq-get "-F and -J do not go together"
	run --separate-stderr tmq-get -K '' ev
	assert_usage_error tmq-get "-K: empty key delimiter"
	run --separate-stderr tmq-put -K '' ev
	assert_usage_error tmq-put "-K: empty key delimiter"
	# The same one twice is no conflict: the last wins.
	run --separate-stderr tmq-get -F '%o' -F '%s\n' ev
	assert_success
	assert_output a
}

@test "TMQ_FOLLOW: auto and poll, anything else refused as TMQ_APPEND is" {
	mk ev
	tmq-put ev a
	run --separate-stderr env TMQ_FOLLOW=bogus tmq-get ev
	assert_fails_with "tmq-get: TMQ_FOLLOW='bogus': want auto or poll"
	assert_output ''
	run --separate-stderr env TMQ_FOLLOW=auto tmq-get ev
	assert_success
	assert_output a
	run --separate-stderr env TMQ_FOLLOW= tmq-get ev
	assert_success
}

# ---------------------------------------------------------------- damaged files

@test "tmq-get: a partial last line is not a message until its newline lands" {
	mk ev -k u16
	mk scratch -k u16
	tmq-put ev first
	tmq-put -k 9 scratch 'second, being written'
	f=$(echo "$TMQ_ROOT"/ev/0-*.tmf)
	s=$(echo "$TMQ_ROOT"/scratch/*.tmf)
	n=$(($(wc -c <"$s") - 1))
	head -c "$n" "$s" >>"$f"
	run --separate-stderr tmq-get -F '%o %k %s\n' ev
	assert_success
	assert_equal "$stderr" ''
	assert_output '0 0 first'
	run tmq-get -o now -n 1 ev
	assert_output ''
	printf '\n' >>"$f"
	run --separate-stderr tmq-get -F '%o %k %s\n' ev
	assert_success
	assert_equal "$stderr" ''
	assert_output $'0 0 first\n1 9 second, being written'
}

@test "tmq-get: a corrupt line is reported with topic, partition and offset; reading goes on" {
	mk cr -k u8 -p 2 -t A,B
	d=$TMQ_ROOT/cr
	f=1-20261125_0.tmf
	tmq_write_line "$d" 0-20261125_0.tmf u8 0 1795597200 p0
	tmq_write_line "$d" "$f" u8 1 1795597200 ok0
	echo 'garbage' >>"$d/$f"
	tmq_write_line "$d" "$f" u8 1 1795597200 "$(printf 'bad\377utf')"
	tmq_write_line "$d" "$f" u8 1 1795597200 '{}' typed:5
	line=$(tmq_encode_line u8 1 1795597200 hello)
	echo "${line:0:12}~~~~~~~~${line:20}" >>"$d/$f"
	tmq_write_line "$d" "$f" u8 1 1795597200 ok5
	run --separate-stderr tmq-get -F '%p:%o:%s\n' cr
	assert_failure 1
	assert_output $'0:0:p0\n1:0:ok0\n1:5:ok5'
	assert_equal "$stderr" 'tmq-get: cr: partition 1 offset 1: line too short (7 bytes)
tmq-get: cr: partition 1 offset 2: text payload is not valid UTF-8
tmq-get: cr: partition 1 offset 3: unknown type index 5
tmq-get: cr: partition 1 offset 4: bad base85 in the body'
	# Only what is read counts.
	run --separate-stderr tmq-get -o 5 cr
	assert_success
	assert_output 'ok5'
	assert_equal "$stderr" ''
}

# ---------------------------------------------------------------- follow

@test "tmq-get -f --until: stops at TIME by the clock too, while partitions stay idle" {
	mk ev -k u8 -p 3
	tmq-put -k 0 ev before
	# A deadline in the past: what is there up to it, then the end, at once.
	run --separate-stderr timeout "$TMQ_TEST_WAIT" tmq-get -f --until @1 ev
	assert_success
	assert_output ''
	run --separate-stderr timeout "$TMQ_TEST_WAIT" tmq-get -f --until "@$(date +%s.%N)" ev
	assert_success
	assert_output 'before'
	# A deadline ahead: messages put before it show; then it ends by itself
	# though partitions 1 and 2 never see a message after TIME.
	until=$(($(date +%s) + 5))
	tmq-get -f --until "@$until" -F '%k:%s\n' ev >out 2>err 3>&- &
	pid=$!
	track "$pid"
	tmq-put -k 1 ev during
	wait_lines out 2
	wait_for gone "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 0
	# It did not stop before TIME.
	[ "$(date +%s)" -ge "$until" ]
	run cat out
	assert_output $'0:before\n1:during'
	[ ! -s err ]
}


@test "tmq-get -f: messages put after it started appear, until it is stopped" {
	mk ev -k u8 -p 3
	tmq-put -k 0 ev old
	tmq-get -f -F '%k:%s\n' ev >out 2>err 3>&- &
	pid=$!
	track "$pid"
	tmq-put -K : ev 1:new1 2:new2
	tmq-put -k 0 ev new3
	wait_lines out 4
	kill -0 "$pid"
	tmq-put -k 2 ev new4
	wait_lines out 5
	kill -TERM "$pid"
	wait_exit "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 0
	run sort out
	assert_output $'0:new3\n0:old\n1:new1\n2:new2\n2:new4'
	# Partition by partition, the order is kept.
	run grep '^0:' out
	assert_output $'0:old\n0:new3'
	run grep '^2:' out
	assert_output $'2:new2\n2:new4'
	[ ! -s err ]
}

@test "tmq-get -f: polling (TMQ_FOLLOW=poll) works too" {
	mk ev
	TMQ_FOLLOW=poll tmq-get -f ev >out 2>err 3>&- &
	pid=$!
	track "$pid"
	tmq-put ev one
	wait_lines out 1
	tmq-put ev two
	wait_lines out 2
	kill "$pid"
	wait_exit "$pid"
	run cat out
	assert_output $'one\ntwo'
	[ ! -s err ]
}

@test "tmq-get -f: a line being written is printed once it is whole" {
	mk ev -k u16
	mk scratch -k u16
	tmq-put ev first
	tmq-put -k 9 scratch second
	f=$(echo "$TMQ_ROOT"/ev/0-*.tmf)
	s=$(echo "$TMQ_ROOT"/scratch/*.tmf)
	n=$(($(wc -c <"$s") - 1))
	tmq-get -f -F '%k %s\n' ev >out 2>err 3>&- &
	pid=$!
	track "$pid"
	wait_lines out 1
	# (The pauses give the follower time to misread the partial line; on
	# a busy machine they prove less, never fail wrongly.)
	head -c 10 "$s" >>"$f"
	sleep 0.3
	tail -c +11 "$s" | head -c $((n - 10)) >>"$f"
	sleep 0.3
	run cat out
	assert_output '0 first'
	printf '\n' >>"$f"
	wait_lines out 2
	kill "$pid"
	wait_exit "$pid"
	run cat out
	assert_output $'0 first\n9 second'
	[ ! -s err ]
}

@test "tmq-get -f -n N: exits by itself after N messages" {
	mk ev -k u8 -p 2
	tmq-put ev old
	tmq-get -f -n 3 ev >out 2>err 3>&- &
	pid=$!
	track "$pid"
	tmq-put -K : ev 1:two
	wait_lines out 2
	kill -0 "$pid"	# still waiting for the third
	tmq-put -K : ev 0:three 1:four
	wait_exit "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 0
	run cat out
	assert_output $'old\ntwo\nthree'
	[ ! -s err ]
}

@test "tmq-get -f | head: ends once its reader has gone, though nothing more comes in (as tail -f)" {
	mk ev -k u8 -p 2
	tmq-put ev one two three
	# Nothing is put after head goes: tmq-get must see it gone while it
	# waits, not at a next write that never comes.
	bash -c 'tmq-get -f ev 2>"$0/err" | head -n 2 >"$0/out"
		echo "${PIPESTATUS[0]}" >"$0/rc"' "$BATS_TEST_TMPDIR" 3>&- &
	track "$!"
	wait_for test -s "$BATS_TEST_TMPDIR/rc"
	# Ended as the next write would have ended it: by SIGPIPE, quietly.
	run cat "$BATS_TEST_TMPDIR/rc" "$BATS_TEST_TMPDIR/out"
	assert_output $'141\none\ntwo'
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

# probe_shows: put a probe to ev; true once out has shown one.
probe_shows() {
	tmq-put -k 0 ev probe
	grep -q probe out || { sleep 0.2; grep -q probe out; }
}

@test "tmq-get -f --from now: only messages put after it started" {
	mk ev -k u8 -p 3
	tmq-put -K : ev 0:old0 1:old1 2:old2
	tmq-get -f -o now ev >out 2>err 3>&- &
	pid=$!
	track "$pid"
	# Put a probe until one shows: from then on, it is surely reading.
	wait_for probe_shows
	tmq-put -K : ev 1:new1 2:new2 0:new0
	wait_lines out $(($(grep -c probe out) + 3))
	kill "$pid"
	wait_exit "$pid"
	run bash -c "grep -v '^probe\$' out | LC_ALL=C sort"
	assert_output $'new0\nnew1\nnew2'
	[ ! -s err ]
}

# blocked_writing PID: PID sleeps in a write to a pipe (its reader does
# not read).
blocked_writing() {
	grep -q pipe_write "/proc/$1/wchan"
}

# A topic of 3000 messages of 1000 bytes: more than a pipe (tmq-get asks
# for 1 MiB) and tmq-get's buffer hold, so that a reader that does not
# read blocks tmq-get.
big_topic() {
	mk ev
	local p
	p=$(printf '%0995d' 0)
	seq -w 1 3000 | sed "s/\$/ $p/" | tmq-put ev
}

@test "tmq-get: SIGTERM or SIGINT while blocked on a reader that does not read: exit 0, no write error" {
	big_topic
	mkfifo fifo
	local sig pid rpid
	for sig in TERM INT; do
		sleep 600 <fifo &
		rpid=$!
		track "$rpid"
		tmq-get -f ev >fifo 2>err &
		pid=$!
		track "$pid"
		wait_for blocked_writing "$pid"
		kill -"$sig" "$pid"
		wait_for gone "$pid"
		status=0
		wait "$pid" || status=$?
		assert_equal "$status" 0
		run cat err
		assert_output ""
		kill "$rpid"
	done
}

@test "tmq-get: stopped while blocked on a slow reader, it flushes what it printed, whole messages" {
	big_topic
	mkfifo fifo
	local pid cpid
	# The reader opens the pipe at once (fd 4 holds it open for writing
	# meanwhile) and is paused before it reads: tmq-get fills the pipe
	# and blocks.
	exec 4<>fifo
	cat fifo >got 4>&- &
	cpid=$!
	track "$cpid"
	wait_for grep -q pipe_read "/proc/$cpid/wchan"
	kill -STOP "$cpid"
	tmq-get ev >fifo 2>err 4>&- &
	pid=$!
	track "$pid"
	exec 4>&-
	wait_for blocked_writing "$pid"
	kill -TERM "$pid"
	kill -CONT "$cpid"
	wait_for gone "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 0
	run cat err
	assert_output ""
	wait_for gone "$cpid"
	# Whole messages, in order, from the first: what it had printed
	# before the signal reached the reader.
	local n
	n=$(wc -l <got)
	[ "$n" -ge 1 ]
	[ "$(tail -c 1 got | od -An -c | tr -d ' ')" = '\n' ]
	tmq-get ev | head -n "$n" | diff -u - got
}

# ---------------------------------------------------------------- the vectors

@test "tmq-get: the vectors root reads back as expected.jsonl" {
	require_vectors
	for t in u8t u16t u32t u64t char3t char8t one typed --group--workers; do
		tmq-get -d "$VECTORS/root" -J -- "$t" >"$t.json"
		tmq-get -d "$VECTORS/root" -0 -- "$t" >"$t.raw"
	done
	run python3 - "$VECTORS/expected.jsonl" <<'EOF'
import base64, json, sys
exp = {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    # -J gives u64 keys as strings (tmq-get(1)); expected.jsonl as numbers.
    if o["topic"] == "u64t":
        o["key"] = str(o["key"])
    exp.setdefault(o["topic"], {}).setdefault(o["partition"], []).append(o)
bad = 0
for t, parts in sorted(exp.items()):
    # Partitions in turn, one message each, from partition 0.
    queues = [list(parts.get(p, [])) for p in range(max(parts) + 1)]
    order = []
    while any(queues):
        for q in queues:
            if q:
                order.append(q.pop(0))
    got = [json.loads(l) for l in open(t + ".json")]
    if len(got) != len(order):
        print(t, "count", len(got), "want", len(order)); bad += 1
    for g, e in zip(got, order):
        for f in ("partition", "offset", "key", "timestamp", "type"):
            if g[f] != e[f]:
                print(t, e["partition"], e["offset"], f, g[f], e[f]); bad += 1
        want = e["payload_b64"] if "payload_b64" in e else e["payload"]
        if g["payload"] != want:
            print(t, e["partition"], e["offset"], "payload", g["payload"], want); bad += 1
    # The plain output: the payloads themselves, NUL after each.
    raw = open(t + ".raw", "rb").read()
    want = b""
    for e in order:
        if "payload_b64" in e:
            want += base64.b64decode(e["payload_b64"])
        elif isinstance(e["payload"], str):
            want += e["payload"].encode("utf-8")
        else:
            want += json.dumps(e["payload"], separators=(",", ":")).encode("utf-8")
        want += b"\0"
    if t != "typed" and not t.startswith("--") and raw != want:
        print(t, "plain output differs"); bad += 1
print("bad", bad)
EOF
	assert_success
	assert_output 'bad 0'
}

@test "tmq-get: vectors with -o TIME and -P give the expected subset" {
	require_vectors
	# Messages of u16t on 2026-11-27 or later, partition 1.
	run bash -c 'tmq-get -d "$1/root" -o 2026-11-27 -P 1 -F "%o " u16t' - "$VECTORS"
	assert_success
	want=$(python3 -c '
import json, sys
print(" ".join(str(o["offset"]) for o in map(json.loads, open(sys.argv[1]))
    if o["topic"] == "u16t" and o["partition"] == 1 and o["timestamp"] >= 1795737600), end=" ")
' "$VECTORS/expected.jsonl")
	[ -n "$want" ]
	assert_output "$want"
}

# ---------------------------------------------------------------- errors

@test "tmq-get: no such topic exits 1" {
	mk ev
	run --separate-stderr tmq-get nosuch
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'tmq-get: nosuch: no such topic'
	run --separate-stderr tmq-get ev nosuch
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: nosuch: no such topic'
}

@test "tmq-get: usage errors exit 2" {
	mk ev
	tmq-put ev a
	run --separate-stderr tmq-get
	assert_usage_error tmq-get 'missing topic'
	run --separate-stderr tmq-get -o bogus ev
	assert_usage_error tmq-get "--from: 'bogus': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	run --separate-stderr tmq-get -o -x ev
	assert_usage_error tmq-get "--from: '-x': bad position (-N wants a count)"
	run --separate-stderr tmq-get -o 99999999999999999999 ev
	assert_usage_error tmq-get "--from: '99999999999999999999': offset too large"
	run --separate-stderr tmq-get -o 2026-13-01 ev
	assert_usage_error tmq-get "--from: '2026-13-01': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	run --separate-stderr tmq-get --until bogus ev
	assert_usage_error tmq-get "--until: 'bogus': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	run --separate-stderr tmq-get -n 0 ev
	assert_usage_error tmq-get "-n: '0': out of range (1 to 18446744073709551615)"
	run --separate-stderr tmq-get -n 18446744073709551616 ev
	assert_usage_error tmq-get "-n: '18446744073709551616': number too large"
	run --separate-stderr tmq-get -n abc ev
	assert_usage_error tmq-get "-n: 'abc': not a number"
	run --separate-stderr tmq-get -n -1 ev
	assert_usage_error tmq-get "-n: '-1': not a number"
	run --separate-stderr tmq-get --no-such-option ev
	assert_failure 2
	assert_output ''
	assert_equal "${stderr_lines[1]}" "Try 'tmq-get --help' for more information."
}

@test "tmq-get: --commit and --offset-reset are taken only in full; -d '' is refused" {
	tmq-topic create ev
	tmq-put ev a b
	run --separate-stderr tmq-get -g G --comm ev
	assert_usage_error tmq-get "'--comm': write --commit in full"
	run --separate-stderr tmq-get -g G --commit --offset=now ev
	assert_usage_error tmq-get "'--offset': write --offset-reset in full"
	run --separate-stderr tmq-get -g G --commit -d '' ev
	assert_usage_error tmq-get "-d: empty directory name"
	# Not "a bare number with a fraction", which '' and '.' are not.
	run --separate-stderr tmq-get -o '' ev
	assert_usage_error tmq-get "--from: empty position"
	run --separate-stderr tmq-get -g G.twc ev
	assert_fails_with "tmq-get: 'G.twc': bad group name (must not end in '.twc')"
	[ ! -e "$TMQ_ROOT/--group--G.twc" ]
	run --separate-stderr tmq-get -o . ev
	assert_usage_error tmq-get "--from: '.': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	[ ! -e "$TMQ_ROOT/--group--G.twc" ]
	run --separate-stderr tmq-get --foll -n 2 ev
	assert_success
	assert_output $'a\nb'
}

@test "tmq-get: -P given twice is a usage error, not the last list alone" {
	# "-P 0 -P 1" read partition 1 only: 0 was skipped without a word.
	tmq-topic create ev -p 2
	run --separate-stderr tmq-get -P 0 -P 1 ev
	assert_usage_error tmq-get "-P given twice: give one list (N[,N...])"
	run --separate-stderr tmq-get -P 0 --partition 1 ev
	assert_usage_error tmq-get "--partition given twice: give one list (N[,N...])"
	run --separate-stderr tmq-get -P 0,1 ev
	assert_success
}

@test "tmq-get: a write error on standard output exits 1" {
	[ -w /dev/full ] || skip "no /dev/full"
	mk ev
	tmq-put ev a b
	run --separate-stderr bash -c 'tmq-get ev >/dev/full'
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: write error on standard output: No space left on device'
}

@test "every output path reports a write error on standard output, exit 1" {
	tmq-topic create ev
	tmq-put ev a b
	assert_write_error tmq-get ev
	assert_write_error tmq-get -J ev
	assert_write_error tmq-get -K : ev
	assert_write_error tmq-get -F '%o\n' ev
	assert_write_error tmq-get -0 -n 1 ev
	assert_write_error tmq-get -g G ev
	assert_write_error tmq-get -h
	assert_write_error tmq-get -V
	assert_write_error tmq-get --completion-helper
}

@test "--until now with a producer a day ahead: every message there when tmq-get starts, whatever its stamp; a past TIME still stops at the first message after it" {
	command -v faketime >/dev/null || skip "faketime is not installed"
	tmq-topic create -p 2 ev
	seq 1 50 | sed 's/^/a/' | tmq-put ev
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    faketime -f +1d tmq-put ev ahead1 ahead2
	seq 51 100 | sed 's/^/a/' | tmq-put ev
	# Before, the partitions ended at the skewed messages.
	run --separate-stderr tmq-get --until now ev
	assert_success
	assert_equal "${#lines[@]}" 102
	run --separate-stderr tmq-get -f --until now ev
	assert_success
	assert_equal "${#lines[@]}" 102
	# A time before the reader starts keeps its meaning: each partition
	# stops at its first message stamped after it (the skewed ones too).
	run --separate-stderr tmq-get --until "@$(($(date +%s) - 3600))" ev
	assert_success
	assert_output ""
}

@test "a write that fails stops each reader at once, as cat's does: tmq-get, -J, tmq-dump and tmq-dump -J read a buffer's worth, not the topic" {
	local size
	tmq-topic create -p 1 big
	seq 1 200000 | tmq-put big
	size=$(cat "$TMQ_ROOT"/big/*.tmf | wc -c)
	[ "$size" -gt 4000000 ]
	for c in "tmq-get big" "tmq-get -J big" "tmq-dump big" "tmq-dump -J big"; do
		# (read_at_most stops a command that reads past its bound)
		read_at_most 1048576 bash -c "exec $c >/dev/full"
		assert_equal "$c: $status $(cat err)" "$c: 1 ${c%% *}: write error on standard output: No space left on device"
	done
}

@test "durations in one grammar: 1.5h, 1h30m, 2h30m, 1w, 90s ago in --from and --until; pieces out of order, twice or unitless refused" {
	aged_topic tt
	for f in 1.5h 1h30m 90s 90m -1.5h; do
		run --separate-stderr tmq-get --from "$f" tt
		assert_equal "$f: $status $output" "$f: 0 new"
	done
	for f in 2h30m 1w 1w2d 3h 0.2d; do
		run --separate-stderr tmq-get --from "$f" tt
		assert_equal "$f: $status $(tr '\n' ' ' <<<"$output")" "$f: 0 old new "
	done
	run --separate-stderr tmq-get --until 1h30m tt
	assert_equal "$status $output" "0 old"
	for f in 30m1h 1h1h 1.h .5h h 1x 1h30 1H; do
		run --separate-stderr tmq-get --from "$f" tt
		assert_usage_error tmq-get "--from: '$f': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
	done
	run --separate-stderr tmq-get --from 5218w tt
	assert_usage_error tmq-get "--from: '5218w': too long ago (at most 100 years: 36525d)"
}

@test "kcat's millisecond forms: --from s@MS and --until e@MS" {
	aged_topic tt
	run --separate-stderr tmq-get --from "s@$(((now - 3600) * 1000))" tt
	assert_equal "$status $output" "0 new"
	run --separate-stderr tmq-get --until "e@$(((now - 3600) * 1000))" tt
	assert_equal "$status $output" "0 old"
	run --separate-stderr tmq-get --from "s@$(((now - 7200) * 1000))" -F '%m %s\n' tt
	assert_equal "$status ${lines[0]}" "0 $(((now - 7200) * 1000)) old"
	run --separate-stderr tmq-get --from s@12x tt
	assert_usage_error tmq-get "--from: 's@12x': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
}

@test "--from a bare number past every partition's end says so, with the ends, and how a time is written" {
	tmq-topic create -p 3 ev
	tmq-put -k 1 ev a b
	p=$(tmq-topic partition ev 1)
	run --separate-stderr tmq-get --from 1764400000 ev
	assert_success
	assert_output ""
	assert_equal "$stderr" "tmq-get: --from 1764400000 is past every partition's end ($(for q in 0 1 2; do [ "$q" = "$p" ] && printf '%s=2' "$q" || printf '%s=0' "$q"; [ "$q" = 2 ] || printf ' '; done)); a time is written @1764400000"
	# At an end, or before one: nothing said.
	run --separate-stderr tmq-get --from 2 ev
	assert_equal "$status $stderr" "0 "
	run --separate-stderr tmq-get --from 1 ev
	assert_equal "$status $output $stderr" "0 b "
}

@test "-q on every tool: notices go, errors stay (a bad operand, a partition that cannot be read), and the exit status is the same" {
	tmq-topic create -p 2 ev
	tmq-put -k 1 ev a
	tmq-get -g G -P 0 -n 1 ev >/dev/null
	chmod 777 "$TMQ_ROOT"
	for t in "tmq-topic list" "tmq-topic info ev" "tmq-get ev" "tmq-dump ev" \
	    "tmq-put ev b" "tmq-group list" "tmq-commit G 0 0"; do
		run --separate-stderr $t
		assert_regex "$stderr" 'the root is open to others'
		run --separate-stderr ${t%% *} -q ${t#* }
		assert_equal "$t -q: $stderr" "$t -q: "
	done
	chmod 755 "$TMQ_ROOT"
	# A notice of tmq-get's own, past every end.
	run --separate-stderr tmq-get -q --from 1764400000 ev
	assert_equal "$status $output $stderr" "0  "
	# Errors are said all the same.
	run --separate-stderr tmq-get -q nosuch
	assert_equal "$status $stderr" "1 tmq-get: nosuch: no such topic"
	# (a FIFO where partition 1's next day file would be, at its end)
	mkfifo "$TMQ_ROOT/ev/1-29991231_$(tmq-topic info --ends ev | sed 's/.*1=//')".tmf
	run --separate-stderr timeout 20 tmq-get -q ev
	assert_equal "$status" 1
	assert_regex "$stderr" '^tmq-get: ev: partition 1: .*not a regular file \(a FIFO\)$'
	run --separate-stderr tmq-put -q -k x ev y
	assert_equal "$status" 1
	assert_regex "$stderr" '^tmq-put: ev: '
}

@test "tmq-get -f -n N: the last record is written out before the watch is closed (closing an inotify descriptor waits out the kernel's grace period)" {
	require_strace
	tmq-topic create ev
	strace -f -qq -o trace tmq-get -f -n 2 -F '%s\n' ev >out &
	wait_for grep -q 'inotify_add_watch' trace
	tmq-put ev a b
	wait
	run cat out
	assert_output $'a\nb'
	ifd=$(sed -n 's/.*inotify_init1(.*) = \([0-9]*\)$/\1/p' trace | tail -1)
	[ -n "$ifd" ]
	w=$(grep -n 'write(1, ' trace | tail -1 | cut -d: -f1)
	c=$(grep -n "close($ifd)" trace | tail -1 | cut -d: -f1)
	echo "last write at line $w, the watch closed at $c"
	[ -n "$w" ] && [ -n "$c" ] && [ "$w" -lt "$c" ]
}

# Whether process PID holds an inotify descriptor (a follower waiting).
watching() {
	grep -qs inotify "/proc/$1/fdinfo/"*
}

@test "tmq-get -f: a record that comes alone costs the wake, the event's read, the file's read and the write: no second read of either, no look at the directory (4 calls at most where there were 7)" {
	require_strace
	tmq-topic create ev -k u32 -p 4
	strace -f -qq -o trace tmq-get -f -n 40 -F '%s\n' ev >out &
	wait_for grep -q 'inotify_add_watch' trace
	for i in $(seq 1 40); do
		tmq-put -K: ev "$i:record $i"
		wait_for lines_in out "$i"
	done
	wait
	# From the first record's write to the last's, by record.
	n=$(awk '/write\(1, / { if (!s) s = NR; e = NR; k++ }
	    END { printf "%.1f\n", (e - s) / (k - 1) }' trace)
	echo "$n calls a record"
	awk -v n="$n" 'BEGIN { exit !(n <= 4.5) }'
}

@test "tmq-get -f over two topics: one removed while empty, the other written all along, is found within seconds, exit 1" {
	tmq-topic create a
	tmq-topic create b
	tmq-get -f a b >out 2>err &
	pid=$!
	wait_for watching "$pid"
	rm -f "$TMQ_ROOT"/a/*
	tmq-put b one
	wait_for lines_in out 1
	rmdir "$TMQ_ROOT/a"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 2000 ]; do
		tmq-put b more
		i=$((i + 1))
	done
	run wait "$pid"
	assert_failure 1
	run cat err
	assert_output --partial 'the topic directory was removed'
}
