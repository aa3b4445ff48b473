#!/usr/bin/env bats
# tmq-put: records in (arguments, lines, NUL records, whole input, files),
# keys, payload types, the checks that refuse a record, and what lands on
# disk (day file names, partitions, concurrent producers, the library).

load test_helper

# The helper's setup, then work in the test's own directory.
eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

# A topic: mk NAME [tmq-topic create options].
mk() {
	tmq-topic create "$@"
}

# The topic's messages, one per line, as KEY<TAB>PARTITION<TAB>PAYLOAD.
kps() {
	tmq-get -F '%k\t%p\t%s\n' "$@"
}

# ---------------------------------------------------------------- input

@test "tmq-put: messages from the arguments, one message each, quietly" {
	mk ev
	run --separate-stderr tmq-put ev one 'two words' 'три' ''
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
	run --separate-stderr tmq-get -F '[%s]\n' ev
	assert_success
	assert_output $'[one]\n[two words]\n[три]\n[]'
}

@test "tmq-put: without MESSAGE operands, one message per line of stdin" {
	mk ev
	run --separate-stderr tmq-put ev < <(printf 'a\n\nb c\nlast, no newline')
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
	run tmq-get -F '[%s]\n' ev
	assert_output $'[a]\n[]\n[b c]\n[last, no newline]'
	# Empty input puts nothing.
	run --separate-stderr tmq-put ev </dev/null
	assert_success
	run tmq-get -F '.' ev
	assert_output '....'
}

@test "tmq-put -0: records end with NUL and may hold newlines" {
	mk ev
	printf 'one\0two\nlines\0\0tab\there' >in
	run --separate-stderr tmq-put -0 ev <in
	assert_success
	assert_equal "$stderr" ''
	run tmq-get -F '[%s]\n' ev
	assert_output $'[one]\n[two\nlines]\n[]\n[tab\there]'
	tmq-get -0 ev >out
	printf 'one\0two\nlines\0\0tab\there\0' >want
	cmp want out
}

@test "tmq-put -l: all of stdin is one message, byte for byte" {
	mk ev
	printf 'line 1\nline 2\n\n' >in
	run --separate-stderr tmq-put -l ev <in
	assert_success
	assert_equal "$stderr" ''
	tmq-get -F '%s' ev >out
	diff -u in out
	run tmq-get -F '%o\n' ev
	assert_output '0'
	# An empty stdin is one empty message.
	run --separate-stderr tmq-put --whole ev </dev/null
	assert_success
	run tmq-get -F '%o[%s]\n' ev
	assert_output $'0[line 1\nline 2\n\n]\n1[]'
}

@test "tmq-put -l --file: each file is one message (repeatable, -F short)" {
	mk ev
	printf 'first\nfile\n' >f1
	printf 'second, no newline' >f2
	: >f3
	run --separate-stderr tmq-put -l --file f1 -F f2 -F f3 ev
	assert_success
	assert_output ''
	assert_equal "$stderr" ''
	tmq-get -0 ev >out
	printf 'first\nfile\n\0second, no newline\0\0' >want
	cmp want out
}

@test "tmq-put -l --file: a missing file is an error, the other files are put" {
	mk ev
	printf 'one' >f1
	printf 'three' >f3
	run --separate-stderr tmq-put -l -F f1 -F nonexistent -F f3 ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: nonexistent: No such file or directory'
	run tmq-get ev
	assert_output $'one\nthree'
}

@test "tmq-put -l --file: an unreadable file (a directory) is reported, the files after it are put" {
	mk ev
	printf 'one' >f1
	mkdir d
	printf 'two' >f2
	run --separate-stderr tmq-put -l -F f1 -F d -F f2 -F f1 ev
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'tmq-put: d: read error: Is a directory'
	run tmq-get ev
	assert_output $'one\ntwo\none'
}

@test "tmq-put -l -F -: standard input among the files, once" {
	mk ev
	printf 'one' >f1
	run --separate-stderr tmq-put -l -F f1 -F - -F f1 ev < <(printf 'from\nstdin')
	assert_success
	assert_equal "$stderr" ''
	tmq-get -0 ev >out
	printf 'one\0from\nstdin\0one\0' >want
	cmp want out
	# A second "-" could only be empty: a usage error, nothing put.
	run --separate-stderr tmq-put -l -F - -F f1 -F - ev </dev/null
	assert_usage_error tmq-put "-F - (standard input) given more than once"
	run tmq-get -F '%o\n' ev
	assert_output $'0\n1\n2'
}

@test "tmq-put -l --file: a file whose content is refused is named" {
	mk ev
	printf 'bad \377' >badf
	printf 'good' >goodf
	run --separate-stderr tmq-put -l -F badf -F goodf ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: badf 1: text is not valid UTF-8 (use -b for bytes)'
	run tmq-get ev
	assert_output 'good'
}

got_first() {
	[ "$(tmq-get ev)" = first ]
}

@test "tmq-put: records from a slow pipe land as they come" {
	mk ev
	mkfifo fifo
	tmq-put ev <fifo 3>&- &
	pid=$!
	exec 7>fifo
	echo first >&7
	wait_for got_first
	run tmq-get ev
	assert_output 'first'
	kill -0 "$pid"	# still reading its input
	echo second >&7
	exec 7>&-
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 0
	run tmq-get ev
	assert_output $'first\nsecond'
}

# ---------------------------------------------------------------- keys

@test "tmq-put -k: one key for every message" {
	mk ev -k u16 -p 4
	run --separate-stderr tmq-put -k 42 ev a b
	assert_success
	assert_equal "$stderr" ''
	# tmq-format(5): u16 key 42 with 4 partitions goes to 2.
	run kps ev
	assert_output $'42\t2\ta\n42\t2\tb'
	# Without a key: key 0, all in its partition.
	tmq-put ev c
	run tmq-get -P "$(tmq-topic partition ev 0)" -F '%k %s\n' ev
	assert_output '0 c'
}

@test "tmq-put -K: KEY SEP PAYLOAD records; the payload may hold SEP" {
	mk ev -k u8 -p 3
	run --separate-stderr tmq-put -K : ev < <(printf '1:one\n2:a:b\n3:\n1:again\n')
	assert_success
	assert_equal "$stderr" ''
	run bash -c "tmq-get -K = ev | grep '^1='"
	assert_output $'1=one\n1=again'
	run bash -c 'tmq-get -K = ev | LC_ALL=C sort'
	assert_output $'1=again\n1=one\n2=a:b\n3='
	# From the arguments too.
	mk ar -k u8
	run --separate-stderr tmq-put -K : ar 7:x 8:y
	assert_success
	run tmq-get -K ' ' ar
	assert_output $'7 x\n8 y'
}

@test "tmq-put -K: a delimiter of several characters" {
	mk ev -k char3 -p 2
	run --separate-stderr tmq-put --key-delimiter ' => ' ev < <(printf 'ab => x => y\né => z\n => empty key\n')
	assert_success
	assert_equal "$stderr" ''
	run bash -c "tmq-get -K '|' ev | LC_ALL=C sort"
	assert_output $'ab|x => y\n|empty key\né|z'
	# A record holding only part of the delimiter has no key.
	run --separate-stderr tmq-put -K '::' ev 'a:b'
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: message 1: no key (no '::' in the record)"
}

@test "tmq-put -K: a record without a key is refused by number, the others are put" {
	mk ev -k u8 -p 4
	run --separate-stderr tmq-put -K : ev < <(printf '1:a\nno key here\n2:b\n')
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "tmq-put: ev: record 2: no key (no ':' in the record)"
	run bash -c 'tmq-get -K : ev | LC_ALL=C sort'
	assert_output $'1:a\n2:b'
	# Several bad records: one line each.
	run --separate-stderr tmq-put -K : ev < <(printf 'x\n3:c\ny\n')
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: record 1: no key (no ':' in the record)
tmq-put: ev: record 3: no key (no ':' in the record)"
	run tmq-get -K : -P "$(tmq-topic partition ev 3)" ev
	assert_line '3:c'
}

@test "tmq-put -K: an empty delimiter is refused" {
	mk ev
	run --separate-stderr tmq-put -K '' ev 1:a
	assert_usage_error tmq-put '-K: empty key delimiter'
	run tmq-get ev
	assert_output ''
}

@test "tmq-put -K: kcat's escapes \\t \\r \\0 \\\\ in the delimiter" {
	mk ev -k char8
	run --separate-stderr tmq-put -K '\t' ev < <(printf 'a\tone\tx\nb\t\n')
	assert_success
	assert_equal "$stderr" ''
	run bash -c "tmq-get -F '%k=%s\n' ev | LC_ALL=C sort"
	assert_output $'a=one\tx\nb='
	# A literal backslash, a CR and a NUL (the NUL inside a line).
	mk bs -k char8
	run --separate-stderr tmq-put -K '\\' bs 'k\v'
	assert_success
	mk cr -k char8
	run --separate-stderr tmq-put -K '\r' cr < <(printf 'k\rv\n')
	assert_success
	mk nul -k char8
	run --separate-stderr tmq-put -K '\0' nul < <(printf 'k\0v\n')
	assert_success
	assert_equal "$stderr" ''
	run tmq-get -F '%k=%s\n' bs cr nul
	assert_output $'k=v\nk=v\nk=v'
	# '\n' splits a message given as an argument (one record, no lines).
	mk nl -k char8
	run --separate-stderr tmq-put -K '\n' nl $'k\nv'
	assert_success
	run tmq-get -F '%k=%s\n' nl
	assert_output 'k=v'
	# The message of a record without the delimiter shows it as written.
	run --separate-stderr tmq-put -K '\t' ev nokey
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: message 1: no key (no '\\t' in the record)"
}

@test "tmq-put -K: an unknown escape, a lone backslash and the record separator are refused" {
	mk ev -k char8
	run --separate-stderr tmq-put -K '\q' ev 'a\qb'
	assert_usage_error tmq-put "-K: unknown escape '\\q'"
	run --separate-stderr tmq-put -K 'x\' ev 'ax\b'
	assert_usage_error tmq-put "-K: '\\' at the end"
	# Lines never hold a newline, nor -0 records a NUL.
	run --separate-stderr tmq-put -K '\n' ev < <(printf 'a\nb\n')
	assert_usage_error tmq-put "-K: '\\n' holds the record separator (newline; -0 reads NUL-separated records)"
	run --separate-stderr tmq-put -0 -K '\0' ev < <(printf 'a\0b\0')
	assert_usage_error tmq-put "-K: '\\0' holds the record separator (NUL, with -0)"
	# With -0 a newline is a fine delimiter.
	run --separate-stderr tmq-put -0 -K '\n' ev < <(printf 'a\nb\0')
	assert_success
	run tmq-get -F '%k=%s\n' ev
	assert_output 'a=b'
}

@test "tmq-put: integer keys are checked against the key type" {
	mk k8 -k u8
	mk k64 -k u64 -p 3
	mk k16 -k u16
	run --separate-stderr tmq-put -k 255 k8 ok
	assert_success
	run --separate-stderr tmq-put -k 256 k8 no
	assert_failure 1
	assert_equal "$stderr" "tmq-put: k8: key '256' out of range for u8 (0 to 255)"
	run --separate-stderr tmq-put -K : k8 < <(printf '0:a\n256:b\n1:c\n')
	assert_failure 1
	assert_equal "$stderr" "tmq-put: k8: record 2: key '256' out of range for u8 (0 to 255)"
	run bash -c 'tmq-get -K : k8 | LC_ALL=C sort'
	assert_output $'0:a\n1:c\n255:ok'

	run --separate-stderr tmq-put -k 18446744073709551615 k64 max
	assert_success
	assert_equal "$stderr" ''
	run tmq-get -K ' ' k64
	assert_output '18446744073709551615 max'
	run --separate-stderr tmq-put -k 18446744073709551616 k64 over
	assert_failure 1
	assert_equal "$stderr" "tmq-put: k64: key '18446744073709551616' out of range for u64 (0 to 18446744073709551615)"

	run --separate-stderr tmq-put -k abc k16 x
	assert_failure 1
	assert_equal "$stderr" "tmq-put: k16: key 'abc' is not an unsigned integer"
	run --separate-stderr tmq-put -k -1 k16 x
	assert_failure 1
	assert_equal "$stderr" "tmq-put: k16: key '-1' is not an unsigned integer"
	run --separate-stderr tmq-put -K : k16 ':no key'
	assert_failure 1
	assert_equal "$stderr" "tmq-put: k16: message 1: empty key"
	run tmq-get k16
	assert_output ''
}

@test "tmq-put: string keys are checked against charN" {
	mk c3 -k char3 -p 2
	# 3 bytes fit, whatever the number of characters.
	run --separate-stderr tmq-put -K : c3 'abc:1' 'é:2' '€:3' ':4'
	assert_success
	assert_equal "$stderr" ''
	run bash -c "tmq-get -K : c3 | LC_ALL=C sort"
	assert_output $':4\nabc:1\né:2\n€:3'
	run --separate-stderr tmq-put -k abcd c3 x
	assert_failure 1
	assert_equal "$stderr" "tmq-put: c3: key 'abcd' is 4 bytes, wider than char3"
	run --separate-stderr tmq-put -K : c3 'aé€:x'
	assert_failure 1
	assert_equal "$stderr" "tmq-put: c3: message 1: key 'aé€' is 6 bytes, wider than char3"
	run --separate-stderr tmq-put -k "$(printf 'a\377')" c3 x
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: c3: key is not valid UTF-8'
	run --separate-stderr tmq-put -K : c3 < <(printf 'ok:1\n\300\200:2\n')
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: c3: record 2: key is not valid UTF-8'
	run --separate-stderr tmq-put -l -K : c3 < <(printf 'a\0b:x')
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: c3: record 1: key contains a NUL byte'
	run bash -c "tmq-get c3 | LC_ALL=C sort"
	assert_output $'1\n1\n2\n3\n4'
}

# ---------------------------------------------------------------- payloads

@test "tmq-put: text that is not valid UTF-8 is refused and never written" {
	mk ev
	run --separate-stderr tmq-put ev "$(printf 'bad \377 byte')"
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: message 1: text is not valid UTF-8 (use -b for bytes)'
	# Overlong encodings, surrogates and cut sequences are not UTF-8 either.
	run --separate-stderr tmq-put ev < <(printf 'ok 1\n\300\257\n\355\240\200\nok 2\n\342\202\n')
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: record 2: text is not valid UTF-8 (use -b for bytes)
tmq-put: ev: record 3: text is not valid UTF-8 (use -b for bytes)
tmq-put: ev: record 5: text is not valid UTF-8 (use -b for bytes)'
	run tmq-get ev
	assert_output $'ok 1\nok 2'
	run tmq-dump --verify ev
	assert_success
	assert_output --partial '2 lines, 0 corrupt'
	run --separate-stderr tmq-put -l ev < <(printf 'whole \377')
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: record 1: text is not valid UTF-8 (use -b for bytes)'
	run tmq-get -F '.' ev
	assert_output '..'
}

@test "tmq-put -b: every byte value, newline and NUL included, reads back exactly" {
	mk ev -p 3
	python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 3)' >all.bin
	run --separate-stderr tmq-put -b -l ev <all.bin
	assert_success
	assert_equal "$stderr" ''
	tmq-get -F '%s' ev >out.bin
	cmp all.bin out.bin
	run tmq-get -F '%y %o\n' ev
	assert_output 'bytes 0'
	# -J gives bytes in base64.
	run bash -c 'tmq-get -J ev | python3 -c "import json,sys,base64; m=json.load(sys.stdin); sys.stdout.buffer.write(base64.b64decode(m[\"payload\"]))" | cmp - all.bin'
	assert_success
}

@test "tmq-put -b: bytes per line or per NUL record, not UTF-8 checked" {
	mk ev
	printf '\377\376\n\200\n\n' >in
	run --separate-stderr tmq-put -b ev <in
	assert_success
	assert_equal "$stderr" ''
	tmq-get ev >out
	cmp in out
	printf 'a\nb\0\377\0' >in0
	run --separate-stderr tmq-put -0 --bytes ev <in0
	assert_success
	tmq-get -0 -o 3 ev >out0
	cmp in0 out0
	run tmq-get -F '%y\n' ev
	assert_output $'bytes\nbytes\nbytes\nbytes\nbytes'
}

@test "tmq-put -T: typed messages, each a JSON object" {
	mk ty -t Order,Refund
	run --separate-stderr tmq-put -T Refund ty '{"id": 7, "amount": 2.5, "note": "ü"}'
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr tmq-put --type Order ty < <(printf '{"id":1}\n {"big": 18446744073709551615, "a": [1, {"b": null}]} \n')
	assert_success
	assert_equal "$stderr" ''
	run tmq-get -F '%y %s\n' ty
	assert_output 'Refund {"id": 7, "amount": 2.5, "note": "ü"}
Order {"id":1}
Order  {"big": 18446744073709551615, "a": [1, {"b": null}]} '
	run bash -c 'tmq-get -J ty | python3 -c "
import json, sys
for l in sys.stdin:
    m = json.loads(l)
    print(m[\"type\"], m[\"payload\"])
"'
	assert_success
	# (The third, stored with spaces around it, is given as the string
	# of its text, so that a copy keeps them.)
	assert_output "Refund {'id': 7, 'amount': 2.5, 'note': 'ü'}
Order {'id': 1}
Order  {\"big\": 18446744073709551615, \"a\": [1, {\"b\": null}]} "
}

@test "tmq-put -T: only strict JSON: no NaN, Infinity or lone surrogate escape" {
	mk ty -t Order
	run --separate-stderr tmq-put -T Order ty '{"a":NaN}' '{"a": Infinity}' '{"a":[-Infinity]}'
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ty: message 1: not strict JSON (-T Order): NaN at byte 6 (JSON has no NaN or Infinity)
tmq-put: ty: message 2: not strict JSON (-T Order): Infinity at byte 7 (JSON has no NaN or Infinity)
tmq-put: ty: message 3: not strict JSON (-T Order): -Infinity at byte 7 (JSON has no NaN or Infinity)'
	run --separate-stderr tmq-put -T Order ty < <(printf '%s\n' '{"s":"\ud800"}' '{"s":"\udc00"}' '{"s":"\ud800\u0041"}' '{"s":"x\ud800"}' '{"ok":"\ud83d\ude00 \u00e9"}' "{'a':1}" '{"a":1,}' '{"a":01}' '{"a":1} ')
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ty: record 1: not strict JSON (-T Order): lone surrogate escape \ud800 at byte 7
tmq-put: ty: record 2: not strict JSON (-T Order): lone surrogate escape \udc00 at byte 7
tmq-put: ty: record 3: not strict JSON (-T Order): lone surrogate escape \ud800 at byte 7
tmq-put: ty: record 4: not strict JSON (-T Order): lone surrogate escape \ud800 at byte 8
tmq-put: ty: record 6: not strict JSON (-T Order): expected a string key at byte 2
tmq-put: ty: record 7: not strict JSON (-T Order): expected a string key at byte 8
tmq-put: ty: record 8: not strict JSON (-T Order): expected '"'"','"'"' or '"'"'}'"'"' at byte 7'
	# Only the good ones were written: a surrogate pair, and trailing
	# white space.
	run tmq-get ty
	assert_output $'{"ok":"\\ud83d\\ude00 \\u00e9"}\n{"a":1} '
}

@test "tmq-put -T: JSON that is not an object, malformed JSON and unknown types are refused" {
	mk ty -t Order,Refund
	run --separate-stderr tmq-put -T Order ty '[1, 2]'
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ty: message 1: not a JSON object (-T Order)'
	run --separate-stderr tmq-put -T Order ty < <(printf '{"ok": true}\n"text"\n{"id":\n42\n{"a":1} {"b":2}\n{"ok": 2}\n')
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ty: record 2: not a JSON object (-T Order)
tmq-put: ty: record 3: not a JSON object (-T Order)
tmq-put: ty: record 4: not a JSON object (-T Order)
tmq-put: ty: record 5: not a JSON object (-T Order)'
	run tmq-get ty
	assert_output $'{"ok": true}\n{"ok": 2}'
	run --separate-stderr tmq-put -T Nope ty '{}'
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ty: no type 'Nope' in the topic"
	mk plain
	run --separate-stderr tmq-put -T Order plain '{}'
	assert_failure 1
	assert_equal "$stderr" "tmq-put: plain: no type 'Order' in the topic"
	run tmq-get -F '.' ty plain
	assert_output '..'
}

@test "tmq-put: a record over the 4096-byte line limit is refused by number" {
	mk ev -p 2
	big=$(head -c 6000 /dev/urandom | base64 -w0)
	run --separate-stderr tmq-put ev < <(printf 'before\n%s\nafter\n' "$big")
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: ev: record 2: too large for a message: its line would be over the 4096\-byte limit \(about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create \-\-max\-message SIZE takes more\)$'
	run tmq-get ev
	assert_output $'before\nafter'
	run --separate-stderr tmq-put ev one "$big" three
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: ev: message 2: too large for a message: its line would be over the 4096\-byte limit \(about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create \-\-max\-message SIZE takes more\)$'
	run tmq-get -o 2 ev
	assert_output $'one\nthree'
	run --separate-stderr tmq-put -b -l ev < <(head -c 5000 /dev/urandom)
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: ev: record 1: too large for a message: its line would be over the 4096\-byte limit \(about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create \-\-max\-message SIZE takes more\)$'
	run tmq-get -F '.' ev
	assert_output '....'
	# Every line on disk is within the limit.
	run bash -c "awk 'length(\$0) >= 4096' \"\$TMQ_ROOT\"/ev/*.tmf | wc -l"
	assert_output '0'
}

@test "tmq-put: a payload too large is told in one message, whatever its size: the line's limit and what fits" {
	mk ev
	head -c 10000000 /dev/urandom >r10
	head -c 3000000 /dev/urandom >r3
	for f in r10 r3; do
		run --separate-stderr tmq-put -b -l ev <"$f"
		assert_failure 1
		assert_equal "$stderr" 'tmq-put: ev: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)'
	done
}

@test "tmq-put: a line of exactly 4096 bytes is put, one of 4097 is not" {
	mk ev
	# Random bytes deflate to a stored block: 1 + n bytes of payload and
	# 5 of block header, in base85; with the u16 key (3) and the time (10)
	# and the newline, 3259 bytes make a line of 4096 and 3260 one of 4097.
	head -c 3259 /dev/urandom >r1
	head -c 3260 /dev/urandom >r2
	run --separate-stderr tmq-put -b -l ev <r1
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr tmq-put -b -l ev <r2
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)'
	run bash -c "awk '{ print length(\$0) + 1 }' \"\$TMQ_ROOT\"/ev/*.tmf"
	assert_output 4096
	tmq-get -F '%s' ev >out
	cmp r1 out
}

@test "tmq-put: a long but compressible record fits" {
	mk ev
	long=$(head -c 100000 /dev/zero | tr '\0' 'x')
	run --separate-stderr tmq-put ev "$long"
	assert_success
	run tmq-get ev
	assert_equal "${#output}" 100000
	assert_equal "$output" "$long"
}

@test "tmq-put --sync: messages are put" {
	mk ev -k u8 -p 3
	run --separate-stderr tmq-put --sync -K : ev < <(printf '1:a\n2:b\n3:c\n')
	assert_success
	assert_equal "$stderr" ''
	run bash -c 'tmq-get -K : ev | LC_ALL=C sort'
	assert_output $'1:a\n2:b\n3:c'
}

# ---------------------------------------------------------------- -J

@test "tmq-put -J: tmq-get -J's objects: key, type, payload; other fields ignored" {
	mk ev -k u64 -p 1 -t Order
	run --separate-stderr tmq-put -J ev <<'IN'
{"topic":"elsewhere","partition":9,"offset":77,"key":"18446744073709551615","timestamp":1.5,"type":"str","payload":"line one\nline two"}
{"key":"5","type":"bytes","payload":"AApiAA=="}
{"key":7,"type":"Order","payload":{"id": 1,  "total": 9.5}}
{"payload":"no key, no type"}
{"key":null,"payload":null}
IN
	assert_success
	assert_equal "$stderr" ''
	run tmq-get -F '%p %o %k %y\n' ev
	assert_output '0 0 18446744073709551615 str
0 1 5 bytes
0 2 7 Order
0 3 0 str
0 4 0 str'
	# The payloads, byte for byte; the typed one as it was written.
	printf '[line one\nline two][\0\nb\0][{"id": 1,  "total": 9.5}]' > want
	printf '[no key, no type][]' >> want
	run bash -c 'tmq-get -F "[%s]" ev | cmp - want'
	assert_success
}

@test "tmq-put -J: messages are stamped now, unless --keep-time" {
	mk ev
	before=$(date +%s)
	tmq-put -J ev '{"timestamp":1000000000.25,"payload":"a"}'
	run tmq-get -F '%u\n' ev
	[ "${output%.*}" -ge "$before" ]
	mk kept
	tmq-put -J --keep-time kept '{"timestamp":1000000000.25,"payload":"a"}' \
	    '{"timestamp":1732971234.123456,"payload":"b"}' \
	    '{"timestamp":0,"payload":"c"}'
	run tmq-get -F '%u %T %s\n' kept
	assert_output '1000000000.25 2001-09-09T01:46:40.250Z a
1732971234.123456 2024-11-30T12:53:54.123Z b
0.0 1970-01-01T00:00:00.000Z c'
}

@test "tmq-put -J: kcat -J's shape: ts in milliseconds, strings as text, null key and payload" {
	mk ev -k char16 -p 1
	run --separate-stderr tmq-put -J --keep-time ev <<'IN'
{"topic":"orders","partition":2,"offset":41,"tstype":"create","ts":1700000000123,"broker":1,"key":"alice","payload":"{\"id\":1}"}
{"topic":"orders","partition":0,"offset":42,"tstype":"logappend","ts":1700000001000,"broker":-1,"key":null,"payload":null}
{"topic":"orders","partition":0,"offset":43,"tstype":"create","ts":1700000002500,"broker":1,"key":"bob","payload":"caf\u00e9"}
IN
	assert_success
	assert_equal "$stderr" ''
	run tmq-get -F '%k|%u|%y|%s\n' ev
	assert_output 'alice|1700000000.123|str|{"id":1}
|1700000001.0|str|
bob|1700000002.5|str|café'
}

@test "tmq-put -J: bad records are refused by number with what is wrong, the rest go in, exit 1" {
	mk ev -k u64 -t Order
	run --separate-stderr tmq-put -J ev <<'IN'
{"key":"1","payload":"first"}
not json
[1]
{"key":"18446744073709551616","payload":"x"}
{"key":18446744073709551616,"payload":"x"}
{"key":-1,"payload":"x"}
{"key":true,"payload":"x"}
{"key":"2","type":"Refund","payload":{}}
{"key":"2","type":"bytes","payload":"YQ="}
{"key":"2","type":"bytes","payload":"YR=="}
{"key":"2","type":"str","payload":5}
{"key":"2","type":"Order","payload":[1]}
{"key":"2"}
{"key":"2","type":7,"payload":"x"}
{"key":"2","payload":"a"} x
{"key":"2","payload":"NaN","n":NaN}
{"key":"2","type":"Order","payload":"[1]"}
{"key":"2","payload":"\ud800"}
{"key":"3","type":"Order","payload":{"n": 1}}
IN
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "tmq-put: ev: record 2: not a JSON object
tmq-put: ev: record 3: not a JSON object
tmq-put: ev: record 4: key '18446744073709551616' out of range for u64 (0 to 18446744073709551615)
tmq-put: ev: record 5: key '18446744073709551616' out of range for u64 (0 to 18446744073709551615)
tmq-put: ev: record 6: key '-1' is not an unsigned integer
tmq-put: ev: record 7: key: not a string, number or null
tmq-put: ev: record 8: no type 'Refund' in the topic
tmq-put: ev: record 9: payload: not base64 (type bytes)
tmq-put: ev: record 10: payload: not base64 (type bytes)
tmq-put: ev: record 11: payload: not a string (type str)
tmq-put: ev: record 12: payload: not a JSON object (type Order)
tmq-put: ev: record 13: no payload
tmq-put: ev: record 14: type: not a string
tmq-put: ev: record 15: bad JSON: text after the object at byte 27
tmq-put: ev: record 16: bad JSON: NaN at byte 32 (JSON has no NaN or Infinity)
tmq-put: ev: record 17: not a JSON object (type Order)
tmq-put: ev: record 18: bad JSON: lone surrogate escape \\ud800 at byte 23"
	run tmq-get -F '%k %y %s\n' ev
	assert_output $'1 str first\n3 Order {"n": 1}'
}

@test "tmq-put -J: charN keys are strings; bad timestamps are refused with --keep-time" {
	mk ev -k char4
	run --separate-stderr tmq-put -J --keep-time ev \
	    '{"key":"abcd","timestamp":5,"payload":"ok"}' \
	    '{"key":"abcd","payload":"x"}' \
	    '{"key":"abcde","timestamp":5,"payload":"x"}' \
	    '{"key":5,"timestamp":5,"payload":"x"}' \
	    '{"key":"a","timestamp":"now","payload":"x"}' \
	    '{"key":"a","timestamp":-1,"payload":"x"}' \
	    '{"key":"a","ts":"now","payload":"x"}' \
	    '{"key":"a","timestamp":253402214400,"payload":"x"}' \
	    '{"key":"a","ts":253402214400000,"payload":"x"}'
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: message 2: no timestamp (--keep-time)
tmq-put: ev: message 3: key 'abcde' is 5 bytes, wider than char4
tmq-put: ev: message 4: key: a number, not a char4 key
tmq-put: ev: message 5: timestamp: not a number
tmq-put: ev: message 6: timestamp: out of range (1970 to 9999-12-30)
tmq-put: ev: message 7: ts: not a number
tmq-put: ev: message 8: timestamp: out of range (1970 to 9999-12-30)
tmq-put: ev: message 9: timestamp: out of range (1970 to 9999-12-30)"
	run tmq-get -F '%k %u %s\n' ev
	assert_output 'abcd 5.0 ok'
}

@test "tmq-put -J -0: NUL-terminated JSON records" {
	mk ev
	run --separate-stderr tmq-put -J -0 ev < <(printf '{"payload":"a"}\0{\n"payload" :\n"b"}\0')
	assert_success
	run tmq-get ev
	assert_output $'a\nb'
}

@test "tmq-put -J: usage errors exit 2 and write nothing" {
	mk ev -t Order
	run --separate-stderr tmq-put --keep-time ev x
	assert_usage_error tmq-put '--keep-time needs -J'
	for o in '-k 1' '-K :' -b '-T Order' -l; do
		# shellcheck disable=SC2086
		run --separate-stderr tmq-put -J $o ev '{"payload":"x"}'
		assert_usage_error tmq-put '-J does not go with -k, -K, -b, -T or -l'
	done
	run tmq-get ev
	assert_output ''
}

# ------------------------------------------------------ -J round trips

# fill ROOT: topics of every key type at its limits, text with newlines,
# bytes with every byte value, typed messages, empty payloads.
fill() {
	local r=$1 b
	tmq-topic -d "$r" create txt -k u8 -p 3
	tmq-topic -d "$r" create bin -k u64 -p 4
	tmq-topic -d "$r" create typed -k char8 -p 2 -t Order,Refund
	tmq-put -d "$r" -k 0 txt 'plain' '' $'two\nlines' $'tab\there' 'café ☕'
	tmq-put -d "$r" -k 255 txt 'at the top' $'\r\n'
	printf '1 one\n2 two\n254 last\n' | tmq-put -d "$r" -K ' ' txt
	# Every byte value in one message; then each byte alone, NUL and
	# newline among them; then an empty bytes payload.
	for b in $(seq 0 255); do printf "\\x$(printf %02x "$b")"; done > all.bin
	tmq-put -d "$r" -b -l -k 18446744073709551615 bin < all.bin
	for b in $(seq 0 255); do
		printf "\\x$(printf %02x "$b")" > one.bin
		tmq-put -d "$r" -b -l -k "$b" bin < one.bin
	done
	printf 'a\0b\nc' | tmq-put -d "$r" -b -l -k 0 bin
	tmq-put -d "$r" -b -l -k 9223372036854775808 bin < /dev/null
	tmq-put -d "$r" -T Order -k '' typed '{"id": 1, "n": [1, 2.5, null]}'
	tmq-put -d "$r" -T Refund -k 'éééé' typed '{"s":"line\nbreak \u0000 nul"}'
	tmq-put -d "$r" -T Order -k 12345678 typed '{}'
	tmq-put -d "$r" -k abc typed 'text among typed' ''
	# Typed payloads tmq-get -J gives as strings of their text: line
	# breaks in the white space, and what the library's json.dumps
	# writes and strict JSON has not (put here the way a copy puts it).
	tmq-put -d "$r" -T Refund -k nl typed $'{\r\n  "id": 2,\n  "v": [1,\n2]\n}\n'
	printf '%s\n' '{"key":"nan","type":"Order","payload":"{\"x\": NaN, \"y\": [Infinity, -Infinity], \"s\": \"\\udc00\"}"}' |
	    tmq-put -d "$r" -J typed
}

# mkb ROOT: the topics of fill, empty.
mkb() {
	tmq-topic -d "$1" create txt -k u8 -p 3
	tmq-topic -d "$1" create bin -k u64 -p 4
	tmq-topic -d "$1" create typed -k char8 -p 2 -t Order,Refund
}

@test "tmq-put -J --keep-time: tmq-get -J from one root into another reproduces it exactly" {
	fill A
	mkb B
	for t in txt bin typed; do
		run --separate-stderr bash -c "tmq-get -d A -J $t | tmq-put -d B -J --keep-time $t"
		assert_success
		assert_equal "$stderr" ''
	done
	tmq-dump -d A -J > a.json
	tmq-dump -d B -J > b.json
	[ "$(wc -c < all.bin)" -eq 256 ]
	[ "$(wc -l < a.json)" -gt 270 ]
	run diff a.json b.json
	assert_success
	# And tmq-get reads the same from both, --from included.
	t=$(tmq-get -d A -F '%u\n' txt | sort -n | sed -n 3p)
	run diff <(tmq-get -d A -J --from "@$t" txt) <(tmq-get -d B -J --from "@$t" txt)
	assert_success
}

@test "tmq-put -J --keep-time: a backup file restored into a fresh root is the topic again" {
	fill A
	for t in txt bin typed; do tmq-get -d A -J "$t" > "$t.jsonl"; done
	mkb B
	for t in txt bin typed; do
		run --separate-stderr tmq-put -d B -J --keep-time "$t" < "$t.jsonl"
		assert_success
		assert_equal "$stderr" ''
	done
	run diff <(tmq-dump -d A -J) <(tmq-dump -d B -J)
	assert_success
}

@test "tmq-put -J: without --keep-time a copy differs only in its timestamps" {
	fill A
	tmq-topic -d B create bin -k u64 -p 4
	tmq-get -d A -J bin | tmq-put -d B -J bin
	run diff <(tmq-get -d A -J bin | sed 's/"timestamp":[^,]*,//') \
	    <(tmq-get -d B -J bin | sed 's/"timestamp":[^,]*,//')
	assert_success
}

@test "tmq-put -J: a copy into a topic with other partitions keeps every message by key" {
	fill A
	tmq-topic -d B create bin -k u64 -p 7
	tmq-get -d A -J bin | tmq-put -d B -J --keep-time bin
	strip='s/"partition":[0-9]*,"offset":[0-9]*,//'
	run diff <(tmq-get -d A -J bin | sed "$strip" | sort) \
	    <(tmq-get -d B -J bin | sed "$strip" | sort)
	assert_success
	run bash -c "tmq-get -d B -F '%k %p\n' bin | sort -u | while read -r k p; do
		[ \"\$(tmq-topic -d B partition bin \"\$k\" | cut -f2)\" = \"\$p\" ] || echo \"\$k in \$p\"
	done"
	assert_output ''
}

@test "tmq-put -J: a typed payload tmq-get -J gives as a string goes back byte for byte" {
	mk ty -k u8 -t Order
	tmq-put -T Order -k 1 ty $'{\n  "a": 1,\r\n  "b": [1,\n2]\n}' '{"a": 2}'
	printf '%s\n' '{"key":2,"type":"Order","payload":"{\"a\": NaN, \"s\": \"\\ud800\"}"}' |
	    tmq-put -J ty
	tmq-get -J ty >a.jsonl
	assert_strict_jsonl a.jsonl
	run python3 -c '
import json
for l in open("a.jsonl"):
    print(type(json.loads(l)["payload"]).__name__)'
	assert_output $'str\ndict\nstr'
	tmq-topic -d B create ty -k u8 -t Order
	run --separate-stderr tmq-put -d B -J --keep-time ty <a.jsonl
	assert_success
	assert_equal "$stderr" ''
	tmq-get -0 ty >a.bin
	tmq-get -d B -0 ty >b.bin
	[ "$(od -c a.bin | grep -c '\\r')" -eq 1 ]
	run cmp a.bin b.bin
	assert_success
	run diff <(tmq-dump -J) <(tmq-dump -d B -J)
	assert_success
}

@test "tmq-put -J: a typed payload with white space around its object is given as a string, and a copy keeps it byte for byte" {
	mk ty -k char4 -t Ev
	# Stored as given; a -J line with the object itself lost the spaces.
	tmq-put -T Ev -k k ty '  {"a" : 1 }  ' $' \t{"b":2}' '{"c":3} ' '{"d" : 4}'
	tmq-get -J ty >a.jsonl
	assert_strict_jsonl a.jsonl
	run python3 -c '
import json
for l in open("a.jsonl"):
    print(type(json.loads(l)["payload"]).__name__)'
	assert_output $'str\nstr\nstr\ndict'
	tmq-topic -d B create ty -k char4 -t Ev
	run --separate-stderr tmq-put -d B -J --keep-time ty <a.jsonl
	assert_success
	assert_equal "$stderr" ''
	tmq-get -0 ty >a.bin
	tmq-get -d B -0 ty >b.bin
	run cmp a.bin b.bin
	assert_success
	run diff <(tmq-dump -J) <(tmq-dump -d B -J)
	assert_success
	run tmq-get -d B -F '[%s]\n' ty
	assert_output $'[  {"a" : 1 }  ]\n[ \t{"b":2}]\n[{"c":3} ]\n[{"d" : 4}]'
}

@test "tmq-put -J: a string for a typed payload must hold one JSON object" {
	mk ty -t Order
	run --separate-stderr tmq-put -J ty <<'IN'
{"type":"Order","payload":"[1]"}
{"type":"Order","payload":""}
{"type":"Order","payload":"{\"a\":"}
{"type":"Order","payload":"{\"a\":1} {}"}
{"type":"Order","payload":"not json"}
{"type":"Order","payload":"{\"a\": NaN}"}
IN
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ty: record 1: not a JSON object (type Order)
tmq-put: ty: record 2: not a JSON object (type Order)
tmq-put: ty: record 3: not a JSON object (type Order)
tmq-put: ty: record 4: not a JSON object (type Order)
tmq-put: ty: record 5: not a JSON object (type Order)'
	run tmq-get -F '%y %s\n' ty
	assert_output 'Order {"a": NaN}'
}

# ---------------------------------------------------------------- usage

@test "tmq-put: usage errors exit 2" {
	mk ev
	run --separate-stderr tmq-put -k 1 -K : ev 1:a
	assert_usage_error tmq-put '-k and -K do not go together'
	run --separate-stderr tmq-put --file f ev
	assert_usage_error tmq-put '--file needs -l'
	run --separate-stderr tmq-put
	assert_usage_error tmq-put 'missing topic'
	run --separate-stderr tmq-put -l ev extra
	assert_usage_error tmq-put '-l takes no MESSAGE operands'
	run --separate-stderr tmq-put -0 -l ev
	assert_usage_error tmq-put '-0 and -l do not go together'
	run --separate-stderr tmq-put --no-such-option ev
	assert_failure 2
	assert_equal "${stderr_lines[1]}" "Try 'tmq-put --help' for more information."
	run --separate-stderr tmq-put -k
	assert_failure 2
	run tmq-get ev
	assert_output ''
}

@test "tmq-put: no such topic exits 1" {
	mk ev
	run --separate-stderr tmq-put nosuch x
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'tmq-put: nosuch: no such topic'
	[ ! -e "$TMQ_ROOT/nosuch" ]
}

@test "tmq-put -d: the root comes from -d over TMQ_ROOT" {
	other=$BATS_TEST_TMPDIR/other
	tmq-topic -d "$other" create ev
	run --separate-stderr tmq-put -d "$other" ev there
	assert_success
	run tmq-get --root "$other" ev
	assert_output 'there'
	[ ! -e "$TMQ_ROOT/ev" ]
}

# ---------------------------------------------------------------- on disk

@test "tmq-put: text round trips exactly across key types and partitions" {
	long=$(head -c 2000 /dev/urandom | base64 -w0)
	for kt in u8 u16 u32 u64 char3; do
		mk "t$kt" -k "$kt" -p 5
		case $kt in
		u8) keys='0 1 7 200 255' ;;
		u16) keys='0 42 1000 65535 9' ;;
		u32) keys='0 70000 4294967295 12 13' ;;
		u64) keys='0 18446744073709551615 4294967296 99 1' ;;
		char3) keys='a é € xyz 0' ;;
		esac
		: >"in.$kt"
		for k in $keys; do
			printf '%s\t%s\n' "$k" 'plain ascii' "$k" 'Grüße, 日本語, Ελληνικά, 🙂' \
			    "$k" '' "$k" "$long" "$k" $'tab\tinside' >>"in.$kt"
		done
		run --separate-stderr tmq-put -K $'\t' "t$kt" <"in.$kt"
		assert_success
		assert_equal "$stderr" ''
		# Per key, the order is kept; across partitions it interleaves.
		tmq-get -K $'\t' "t$kt" >"out.$kt"
		for k in $keys; do
			diff <(awk -F'\t' -v k="$k" '$1 == k' "in.$kt") \
			    <(awk -F'\t' -v k="$k" '$1 == k' "out.$kt")
		done
		diff <(LC_ALL=C sort "in.$kt") <(LC_ALL=C sort "out.$kt")
		# The keys went to more than one partition.
		run bash -c "tmq-get -F '%p\n' t$kt | LC_ALL=C sort -u | wc -l"
		[ "$output" -gt 1 ]
	done
}

@test "tmq-put: each key lands in the partition tmq-topic partition names" {
	mk p16 -k u16 -p 7
	mk p64 -k u64 -p 5
	mk pc8 -k char8 -p 3
	seq 0 300 | awk '{print $1 ":" $1}' | tmq-put -K : p16
	printf '%s\n' 0 1 255 65536 4294967295 18446744073709551615 12345678901234567 |
	    awk '{print $1 ":" $1}' | tmq-put -K : p64
	printf '%s\n' abc '' a Zürich 12345678 '€€' | awk '{print $0 "|" $0}' | tmq-put -K '|' pc8
	for t in p16 p64 pc8; do
		tmq-get -F '%k\t%p\n' "$t" | LC_ALL=C sort >got
		tmq-get -F '%k\n' "$t" | LC_ALL=C sort >keys
		paste keys <(tmq-topic partition "$t" <keys) >want
		run diff want got
		assert_success
	done
	# tmq-format(5)'s example: char8 key abc with 3 partitions goes to 1.
	run bash -c "tmq-get -F '%k %p\n' pc8 | grep '^abc '"
	assert_output 'abc 1'
	# And 200 cases of the vectors.
	require_vectors
	mk v64 -k u64 -p 8
	awk -F'\t' '$1 == "u64" && $3 == 8 {print $2 ":" $4}' "$VECTORS/partitions.tsv" | head -200 >cases
	[ -s cases ]
	tmq-put -K : v64 <cases
	run bash -c "tmq-get -F '%k:%p\n' v64 | LC_ALL=C sort | diff - <(LC_ALL=C sort cases)"
	assert_success
}

@test "tmq-put: the day file is P-YYYYMMDD_FIRST.tmf for today (UTC)" {
	mk ev -k u8 -p 4
	# u8 keys 0 and 1 go to partitions 0 and 1 of 4.
	run tmq-topic partition ev 0 1
	assert_output $'0\n1'
	before=$(date -u +%Y%m%d)
	tmq-put -K : ev 0:a 0:b 1:c
	tmq-put -K : ev 0:d
	after=$(date -u +%Y%m%d)
	[ "$before" = "$after" ] || skip "the UTC day changed during the test"
	# (partitions 2 and 3 have the empty files create made)
	run ls "$TMQ_ROOT/ev"
	assert_output "0-${after}_0.tmf
1-${after}_0.tmf
2-${after}_0.tmf
3-${after}_0.tmf"
	[ ! -s "$TMQ_ROOT/ev/2-${after}_0.tmf" ]
	run wc -l <"$TMQ_ROOT/ev/0-${after}_0.tmf"
	assert_output 3
	run wc -l <"$TMQ_ROOT/ev/1-${after}_0.tmf"
	assert_output 1
}

@test "tmq-put: today's file starts where the previous day's file ends" {
	mk ev -k u8
	for i in 0 1 2; do
		tmq_write_line "$TMQ_ROOT/ev" 0-20201231_5.tmf u8 0 1609372800 "old $i"
	done
	tmq-put ev new
	today=$(date -u +%Y%m%d)
	[ -f "$TMQ_ROOT/ev/0-${today}_8.tmf" ]
	run tmq-get -F '%o %s\n' ev
	assert_output $'5 old 0\n6 old 1\n7 old 2\n8 new'
	tmq-put ev newer
	run ls "$TMQ_ROOT/ev"
	assert_output $'0-20201231_5.tmf\n0-'"$today"'_8.tmf'
}

# Producers whose clocks disagree (machines sharing a root; midnight on
# one): faketime gives each its clock.  ASan wants to be the first
# preloaded library; libfaketime is preloaded before it here.
clocked() {	# clocked 'YYYY-MM-DD HH:MM:SS' COMMAND...
	local at=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    TZ=UTC faketime "$at" "$@"
}

has() {	# has TEXT TOPIC: a message of TOPIC is TEXT
	tmq-get "$2" | grep -qx "$1"
}

need_faketime() {
	command -v faketime >/dev/null || skip "faketime is not installed"
}

@test "tmq-put: a producer whose clock is behind appends to the newest day file, never to an older one" {
	need_faketime
	mk ev
	today=$(date -u +%Y-%m-%d) tomorrow=$(date -u -d tomorrow +%Y-%m-%d)
	clocked "$today 00:00:01" tmq-put ev first
	clocked "$tomorrow 00:00:05" tmq-put ev ahead
	clocked "$today 00:00:02" tmq-put ev behind
	clocked "$today 00:00:03" tmq-put -k 9 ev 'behind, keyed'
	run tmq-get -F '%o %s\n' ev
	assert_output $'0 first\n1 ahead\n2 behind\n3 behind, keyed'
	run tmq-dump --verify
	assert_success
}

@test "tmq-put: a producer behind, already writing, moves to the day file one ahead of it started" {
	need_faketime
	today=$(date -u +%Y-%m-%d) tomorrow=$(date -u -d tomorrow +%Y-%m-%d)
	for mode in auto lock; do
		tmq-topic delete --yes ev 2>/dev/null || :
		mk ev
		rm -f in
		mkfifo in
		TMQ_APPEND=$mode clocked "$today 00:00:01" tmq-put ev <in &
		exec 5>in
		echo first >&5
		wait_for has first ev
		TMQ_APPEND=$mode clocked "$tomorrow 00:00:05" tmq-put ev ahead
		echo second >&5
		exec 5>&-
		wait
		run tmq-get -F '%o %s\n' ev
		assert_output $'0 first\n1 ahead\n2 second'
		run ls "$TMQ_ROOT/ev"
		assert_output "0-${today//-/}_0.tmf
0-${tomorrow//-/}_1.tmf"
		run tmq-dump --verify ev
		assert_success
	done
}

# ---------------------------------------------------------------- the library

@test "tmq-put: the TwainMQ library reads what tmq-put wrote" {
	require_ref
	mk u16t -k u16 -p 4
	mk c3t -k char3 -p 3
	mk ty -t Order,Refund
	printf '%s\n' '1:text' '2:Grüße 🙂' '3:' '1:again' | tmq-put -K : u16t
	printf '\001\000\377\n' | tmq-put -b -l -k 9 u16t
	tmq-put -K '|' c3t 'é|x' 'abc|y' '|z'
	tmq-put -T Refund ty '{"id": 3, "amount": 1.5}'
	run python3 - "$TMQ_ROOT" <<'EOF'
import sys
from dataclasses import dataclass
import twainmq

@dataclass
class Order:
    id: int

@dataclass
class Refund:
    id: int
    amount: float

t = twainmq.Twain(sys.argv[1])
t.register_msg_cls(Order)
t.register_msg_cls(Refund)
for topic in ("u16t", "c3t", "ty"):
    c = t.consumer(topic)
    out = []
    for p in c._partitions:
        cl = c._consumerlets[p]
        while (m := cl.poll()) is not None:
            out.append((p, m.offset, m.key, m.message))
    for r in sorted(out, key=lambda r: (r[2], r[1])):
        print(topic, repr(r[2]), repr(r[3]))
EOF
	assert_success
	assert_output "u16t 1 'text'
u16t 1 'again'
u16t 2 'Grüße 🙂'
u16t 3 ''
u16t 9 b'\\x01\\x00\\xff\\n'
c3t '' 'z'
c3t 'abc' 'y'
c3t 'é' 'x'
ty 0 Refund(id=3, amount=1.5)"
	# The library put them in the partitions we did.
	run python3 - "$TMQ_ROOT" <<'EOF'
import sys, twainmq
from twainmq.encoding import partition_hash64
t = twainmq.Twain(sys.argv[1])
for topic, n in (("u16t", 4), ("c3t", 3)):
    c = t.consumer(topic)
    for p in c._partitions:
        cl = c._consumerlets[p]
        while (m := cl.poll()) is not None:
            if partition_hash64(m.key, n) != p:
                print("wrong partition", topic, m)
EOF
	assert_success
	assert_output ''
}

@test "tmq-put: tmq-get reads what the TwainMQ library wrote, and both append to one file" {
	require_ref
	mk u32t -k u32 -p 3
	tmq-put -K : u32t 5:tool-first
	run python3 - "$TMQ_ROOT" <<'EOF'
import sys, twainmq
t = twainmq.Twain(sys.argv[1])
p = t.producer("u32t")
p.write_message(5, "lib text")
p.write_message(4294967295, "Grüße 🙂")
p.write_message(7, b"\x00\xff\n")
p.write_message(5, "")
EOF
	assert_success
	tmq-put -K : u32t 5:tool-last
	run bash -c "tmq-get -F '%k %y [%s]\n' u32t | grep -a '^5 '"
	assert_output $'5 str [tool-first]\n5 str [lib text]\n5 str []\n5 str [tool-last]'
	run bash -c "tmq-get -J u32t | python3 -c '
import json, sys
for l in sys.stdin:
    m = json.loads(l)
    print(m[\"key\"], m[\"type\"], repr(m[\"payload\"]))
' | LC_ALL=C sort"
	assert_output "4294967295 str 'Grüße 🙂'
5 str ''
5 str 'lib text'
5 str 'tool-first'
5 str 'tool-last'
7 bytes 'AP8K'"
	run tmq-dump --verify u32t
	assert_success
}

@test "tmq-put -J: typed messages the library wrote with NaN copy into a root the library reads the same" {
	require_ref
	tmq-topic -d A create ty -k u16 -t Reading
	tmq-topic -d B create ty -k u16 -t Reading
	cat >lib.py <<'EOF'
import math, sys
from dataclasses import dataclass
import twainmq

@dataclass
class Reading:
    v: float
    tags: list

t = twainmq.Twain(sys.argv[1])
t.register_msg_cls(Reading)
if sys.argv[2] == "write":
    p = t.producer("ty")
    p.write_message(1, Reading(math.nan, ["a\nb"]))
    p.write_message(2, Reading(-math.inf, []))
    p.write_message(3, Reading(1.5, ["\ud800"]))
    p.write_message(3, Reading(2.5, ["ok"]))
else:
    c = t.consumer("ty")
    for p in c._partitions:
        cl = c._consumerlets[p]
        while (m := cl.poll()) is not None:
            print(m.key, repr(m.message), m.timestamp)
EOF
	run python3 lib.py A write
	assert_success
	run --separate-stderr bash -c 'tmq-get -d A -J ty | tmq-put -d B -J --keep-time ty'
	assert_success
	assert_equal "$stderr" ''
	run python3 lib.py A read
	assert_success
	[ "${#lines[@]}" -eq 4 ]
	assert_line --index 0 --partial "1 Reading(v=nan, tags=['a\\nb'])"
	want=$output
	run python3 lib.py B read
	assert_success
	assert_equal "$output" "$want"
	run diff <(tmq-dump -d A -J) <(tmq-dump -d B -J)
	assert_success
}

# ---------------------------------------------------------------- concurrency

@test "tmq-put: 4 concurrent producers, 50,000 records each, none lost or reordered" {
	mk conc -k u16 -p 4
	for p in 1 2 3 4; do
		awk -v p="$p" 'BEGIN { for (i = 1; i <= 50000; i++)
		    printf "%d:p%d %d\n", (i * 7 + p * 13) % 500, p, i }' >"in.$p"
	done
	pids=()
	for p in 1 2 3 4; do
		tmq-put -K : conc <"in.$p" 2>"err.$p" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid"
	done
	for p in 1 2 3 4; do
		[ ! -s "err.$p" ]
	done
	tmq-get -K : conc >out
	run wc -l <out
	assert_output 200000
	run tmq-dump --verify conc
	assert_success
	assert_output --partial '200000 lines, 0 corrupt'
	# Within a key, each producer's records keep their order; each record
	# is there once.
	run awk -F'[: ]' '
	    { if (($2, $1) in last && $3 <= last[$2, $1]) bad++
	      last[$2, $1] = $3; n[$2]++; seen[$2, $3]++ }
	    END { for (k in seen) if (seen[k] != 1) dup++
	          printf "%d %d %d %d %d %d\n", bad, dup, n["p1"], n["p2"], n["p3"], n["p4"] }' out
	assert_output '0 0 50000 50000 50000 50000'
	# And each key is in its partition only.
	run bash -c "tmq-get -F '%k %p\n' conc | LC_ALL=C sort -u | awk '{print \$1}' | uniq -d | wc -l"
	assert_output 0
}

@test "a write error on standard output (-h, -V) exits 1; putting prints nothing" {
	tmq-topic create ev
	assert_write_error tmq-put -h
	assert_write_error tmq-put -V
	assert_write_error tmq-put --completion-helper
	run --separate-stderr bash -c 'tmq-put ev a b >/dev/full'
	assert_success
	run tmq-get ev
	assert_output $'a\nb'
}

@test "a closed standard input is said to be one, not 'read error'" {
	tmq-topic create ev
	run --separate-stderr bash -c 'tmq-put ev <&-'
	assert_fails_with "tmq-put: standard input: not open for reading: Bad file descriptor"
	run --separate-stderr bash -c 'tmq-put -l ev <&-'
	assert_fails_with "tmq-put: standard input: not open for reading: Bad file descriptor"
	run tmq-get ev
	assert_output ''
}

@test "a closed standard error: a refusal's message never lands in the partition file" {
	# The first file opened takes the lowest free descriptor: with fd 2
	# closed, the partition file became "stderr", and the message for a
	# bad record was appended to the topic as a corrupt line.
	tmq-topic create ev -t A
	run --separate-stderr bash -c '{ echo "{\"x\":1}"
		end=$((SECONDS + 120))
		until [ "$(tmq-get ev)" = "{\"x\":1}" ] || [ $SECONDS -ge $end ]
		do sleep 0.05; done
		echo notjson; echo "{\"x\":2}"; } | tmq-put -T A ev 2>&-'
	assert_equal "$status" 1
	run --separate-stderr tmq-dump --verify ev
	assert_success
	assert_output '1 files, 2 lines, 0 corrupt'
	run tmq-get ev
	assert_output $'{"x":1}\n{"x":2}'
}

@test "tmq-put: -b with -T, an empty -F or -d: usage errors, nothing put" {
	# -b and -T each set the kind of the messages: the last one won.
	tmq-topic create ev -t A
	run --separate-stderr tmq-put -T A -b ev '{"x":1}'
	assert_usage_error tmq-put '-b and -T do not go together'
	run --separate-stderr tmq-put -b -T A ev '{"x":1}'
	assert_usage_error tmq-put '-b and -T do not go together'
	run --separate-stderr tmq-put -l -F '' ev
	assert_usage_error tmq-put '-F: empty file name'
	run --separate-stderr tmq-put -d '' ev x
	assert_usage_error tmq-put '-d: empty directory name'
	run tmq-get ev
	assert_output ''
}

@test "tmq-put -p N: every message to partition N, its key kept, whatever the key picks; a partition out of range refused, nothing written" {
	mk ev -p 4
	run --separate-stderr tmq-put -p 2 -k 7 ev a b
	assert_success
	printf '5:c\n9:d\n' | tmq-put -p 2 -K: ev
	tmq-put -p 2 -J ev '{"key":3,"payload":"e"}'
	run tmq-get -F '%p %o %k %s\n' ev
	assert_output $'2 0 7 a\n2 1 7 b\n2 2 5 c\n2 3 9 d\n2 4 3 e'
	run --separate-stderr tmq-put -p 4 ev x
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: partition 4 does not exist (topic has 4)"
	run --separate-stderr tmq-put -p 1 -J --keep-offsets ev </dev/null
	assert_usage_error tmq-put "-p and --keep-offsets do not go together (each record keeps its own partition)"
	run tmq-get -F '.' ev
	assert_output '.....'
}

# Whether topic ev's files hold N lines.
lines_are() {
	test "$(cat "$TMQ_ROOT"/ev/*.tmf | wc -l)" -eq "$1"
}

# The system calls of the records that came alone, from the trace of
# tmq-put: those after the first read of stdin up to its last, by record.
calls_a_record() {
	awk -v n="$2" '/^[0-9]+ +read\(0,/ { if (!s) s = NR; e = NR }
	    END { printf "%.1f\n", (e - s) / n }' "$1"
}

@test "tmq-put: a record that comes alone costs its read, the lock, two fstats, its write and the unlock: no poll, no signal mask (7 calls at most where there were 10)" {
	require_strace
	mk ev -k u32 -p 1
	mkfifo in
	strace -f -qq -o trace tmq-put -K: ev <in &
	exec 8>in
	for i in $(seq 1 40); do
		echo "$i:record $i" >&8
		wait_for lines_are "$i"
	done
	exec 8>&-
	wait
	run tmq-get -n 40 -F '%s\n' ev
	assert_line --index 39 'record 40'
	n=$(calls_a_record trace 40)
	echo "$n calls a record"
	! grep 'ppoll\|rt_sigprocmask' trace
	awk -v n="$n" 'BEGIN { exit !(n <= 7.2) }'
}

@test "tmq-put: an input another process made non-blocking is waited for, not an error" {
	mk ev -k u32 -p 1
	mkfifo in
	/usr/bin/python3 -c '
import fcntl, os, sys
fl = fcntl.fcntl(0, fcntl.F_GETFL)
fcntl.fcntl(0, fcntl.F_SETFL, fl | os.O_NONBLOCK)
os.execvp(sys.argv[1], sys.argv[1:])' tmq-put -K: ev <in 2>err &
	exec 8>in
	echo "1:one" >&8
	wait_for lines_are 1
	echo "2:two" >&8
	exec 8>&-
	wait $!
	run cat err
	assert_output ''
	run tmq-get -F '%s\n' ev
	assert_output $'one\ntwo'
}

@test "tmq-put: a put lists the topic's directory once, to choose the file, and not again to know it is still the last before its write" {
	require_strace
	mk ev -k u32 -p 64
	# A settled directory (made over 50 ms ago: see SETTLED_NS).
	touch -d '1 minute ago' "$TMQ_ROOT/ev"
	strace -f -qq -o trace tmq-put -K: ev 7:x
	run grep -c 'openat([^)]*"\.", [^)]*O_DIRECTORY' trace
	assert_output 1
	run tmq-get -F '%o %s\n' ev
	assert_output '0 x'
	run tmq-dump --verify ev
	assert_success
}

@test "tmq-put: a producer writing since a settled listing still moves to the file a producer ahead of it started since" {
	need_faketime
	tomorrow=$(date -u -d tomorrow +%Y-%m-%d)
	mk ev
	touch -d '1 minute ago' "$TMQ_ROOT/ev"
	mkfifo in
	tmq-put ev <in &
	exec 5>in
	echo first >&5
	wait_for has first ev
	clocked "$tomorrow 00:00:05" tmq-put ev ahead
	echo second >&5
	exec 5>&-
	wait
	run tmq-get -F '%o %s\n' ev
	assert_output $'0 first\n1 ahead\n2 second'
	run tmq-dump --verify ev
	assert_success
}
