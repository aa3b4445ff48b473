#!/usr/bin/env bats
# t0710-bad-input: bad input of every kind, each refused with its exact
# message and exit status: names, keys, payloads, topic definitions,
# stored lines, option values, options and operands, times and formats.
#
# The cases are tables, one row a case:
#
#     LABEL | COMMAND | STATUS | STDERR
#
# COMMAND is shell (it may hold pipes, and set up what it needs with the
# helpers below), run with stdin at /dev/null unless it pipes.  STDERR is
# what the command must print, exactly; for STATUS 2 (a usage error) the
# "Try 'TOOL --help' for more information." line that follows it is
# implied.  In STDERR, {N} stands for a decimal number, {X64} for 64 x's,
# {TMP} for the test's directory and {NL} for a line break.  Each table is one test; a test
# prints every row that went wrong, not only the first.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	X300=$(printf '%0300d' 0 | tr 0 x)
	X252=${X300:0:252}
	tmq-topic create -p 2 -t Order,Refund ev
	tmq-topic create plain
	for k in u8 u16 u32 u64; do
		tmq-topic create -k "$k" "${k}t"
	done
	tmq-topic create -k char4 c4
	: >"$BATS_TEST_TMPDIR/.dirs"
}

# A test's background processes (track PID) are killed after it, and
# the directories it made elsewhere (.dirs) removed.
teardown() {
	local d
	end_bg KILL
	while read -r d; do
		rm -rf "$d"
	done <"$BATS_TEST_TMPDIR/.dirs"
}

# twc NAME TEXT: a topic NAME whose definition is TEXT, made by hand.
twc() {
	rm -rf "$TMQ_ROOT/$1"
	mkdir "$TMQ_ROOT/$1"
	printf '%s' "$2" >"$TMQ_ROOT/$1.twc"
}

# bounded COMMAND...: run COMMAND, and complain on stderr when its maximum
# resident set passed 64 MiB.
bounded() {
	local st=0 rss
	if [ ! -x /usr/bin/time ]; then
		echo "# /usr/bin/time not found: memory not measured" >&3
		"$@"
		return
	fi
	/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rss" "$@" || st=$?
	rss=$(tail -n 1 "$BATS_TEST_TMPDIR/rss")
	if [ "$rss" -gt 65536 ]; then
		echo "bounded: $* used $rss KiB" >&2
	fi
	return "$st"
}

# store TOPIC KIND: TOPIC's partition 0 is one day file of three lines,
# "before", a bad line of KIND, and "after" (u16 key 1).
store() {
	rm -f "$TMQ_ROOT/$1"/*.tmf
	python3 - "$TMQ_ROOT/$1/0-20261125_0.tmf" "$2" <<'EOF'
import base64, struct, sys, zlib
path, kind = sys.argv[1:3]
def enc(raw, ts=1795597320.0, tail=b""):
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = z.compress(raw) + z.flush() + tail
    return (base64.b85encode((1).to_bytes(2, "big")) +
            base64.b85encode(struct.pack(">d", ts)) + base64.b85encode(body))
bad = {
    # 40 KB of line that inflates a thousandfold, to 40 MB
    "bomb": lambda: enc(b"\0" * 40000000),
    "long": lambda: b"a" * 70000,
    "base85": lambda: enc(b"hello")[:20] + b'"' + enc(b"hello")[21:],
    "short": lambda: b"0012",
    "empty": lambda: b"",
    "typeidx": lambda: enc(b"\xfb\x00\x09{}"),
    "notjson": lambda: enc(b"\xfb\x00\x00nope"),
    "jsonutf8": lambda: enc(b'\xfb\x00\x00{"a": "\xff"}'),
    "marker": lambda: enc(b"\xf8abc"),
    "utf8": lambda: enc(b"caf\xe9"),
    "trailing": lambda: enc(b"hello", tail=b"junk"),
    "cut": lambda: enc(b"hello world, hello world")[:-5],
}[kind]()
with open(path, "ab") as f:
    f.write(enc(b"before", ts=1795597319.0) + b"\n" + bad + b"\n" +
            enc(b"after", ts=1795597321.0) + b"\n")
EOF
}

# gline GROUP KIND JSON: append a message of KIND (JOINED ... COMMIT) with
# body JSON, under member key 7, to GROUP's log, made by a first tmq-get -g
# of ev when missing.  BEGIN stands for a BEGINREBAL that ends now.
gline() {
	local d="$TMQ_ROOT/--group--$1" kind=$2 body=$3 i f
	[ -d "$d" ] || tmq-get -g "$1" ev || return 1
	case $kind in
	JOINED) i=0 ;; ABORTJOIN) i=1 ;; REBALOFFER) i=2 ;; REBALCONFIRM) i=3 ;;
	BEGINREBAL) i=4 ;; ENDREBAL) i=5 ;; COMMIT) i=6 ;;
	BEGIN) i=4 body="{\"timestamp\":$(date +%s)}" ;;
	esac
	f=$(ls "$d"/0-*.tmf | tail -n 1)
	tmq_encode_line 4 7 "$(date +%s)" "$body" "typed:$i" >>"$f"
}

# offers GROUP OFFER...: a rebalance by member 7 with these offers, ended.
offers() {
	local g=$1 o
	shift
	gline "$g" BEGIN '' || return 1
	for o; do
		gline "$g" REBALOFFER "$o"
	done
	gline "$g" ENDREBAL '{}'
}

# planted KIND: a topic "three" whose partitions 0 and 2 hold "zero" and
# "two", and whose partition 1 file is KIND: fifo, null (a device like
# /dev/null), zero (like /dev/zero), dir, link (to a good file outside the
# root), or wrap (a good file whose offsets would run past 2^64-1).
planted() {
	local d="$TMQ_ROOT/three" f
	rm -rf "$d" "$d.twc"
	tmq-topic create -p 3 three
	tmq_write_line "$d" 0-20261125_0.tmf u16 1 1795597320 zero
	tmq_write_line "$d" 2-20261125_0.tmf u16 1 1795597320 two
	f=$d/1-20261125_0.tmf
	case $1 in
	fifo) mkfifo "$f" ;;
	null) mknod "$f" c 1 3 ;;
	zero) mknod "$f" c 1 5 ;;
	dir) mkdir "$f" ;;
	link)
		tmq_write_line "$BATS_TEST_TMPDIR" elsewhere u16 1 1795597320 one
		ln -s "$BATS_TEST_TMPDIR/elsewhere" "$f" ;;
	wrap)
		f=$d/1-20261125_18446744073709551614.tmf
		tmq_write_line "$d" "${f##*/}" u16 1 1795597320 one
		tmq_write_line "$d" "${f##*/}" u16 1 1795597320 one-more ;;
	esac
}

# today: the name of partition 0's file for today.
today() {
	echo "0-$(date -u +%Y%m%d)_0.tmf"
}

# stderr_matches GOT WANT: GOT is WANT, where {N} in WANT is any number.
stderr_matches() {
	local got=$1 want=$2 lit
	while [[ $want == *'{N}'* ]]; do
		lit=${want%%'{N}'*}
		[[ $got == "$lit"* ]] || return 1
		got=${got#"$lit"}
		[[ $got =~ ^[0-9]+ ]] || return 1
		got=${got#"${BASH_REMATCH[0]}"}
		want=${want#*'{N}'}
	done
	[ "$got" = "$want" ]
}

# check_table < TABLE: run every row; print the ones that go wrong.
check_table() {
	local row label rest cmd want_status want n=0 bad=0
	while IFS= read -r row <&4; do
		case $row in '' | '#'*) continue ;; esac
		label=${row%% | *}
		rest=${row#* | }
		want=${rest##* | }
		rest=${rest% | *}
		want_status=${rest##* | }
		cmd=${rest% | *}
		want=${want//'{X64}'/${X300:0:64}}
		want=${want//'{TMP}'/$BATS_TEST_TMPDIR}
		want=${want//'{NL}'/$'\n'}
		if [ "$want_status" = 2 ]; then
			want+=$'\n'"Try '${want%%:*} --help' for more information."
		fi
		n=$((n + 1))
		run --separate-stderr eval "$cmd" </dev/null
		if [ "$status" != "$want_status" ] ||
		    ! stderr_matches "$stderr" "$want"; then
			bad=$((bad + 1))
			printf 'row %s: %s\n  want %s: %s\n  got  %s: %s\n' \
			    "$label" "$cmd" "$want_status" "$want" "$status" \
			    "$stderr"
		fi
	done 4<&0
	echo "# $n rows, $bad wrong" >&3
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}

@test "bad names: '/', '.', '..', a leading '-', --group--, too long, empty" {
	check_table <<'EOF'
slash-create | tmq-topic create a/b | 1 | tmq-topic: 'a/b': bad topic name (use letters, digits, '_', '.' and '-')
slash-put | tmq-put a/b x | 1 | tmq-put: 'a/b': bad topic name (use letters, digits, '_', '.' and '-')
slash-get | tmq-get ev/../ev | 1 | tmq-get: 'ev/../ev': bad topic name (use letters, digits, '_', '.' and '-')
dotdot-create | tmq-topic create .. | 1 | tmq-topic: '..': bad topic name
dotdot-get | tmq-get .. | 1 | tmq-get: '..': bad topic name
dot-put | tmq-put . x | 1 | tmq-put: '.': bad topic name
dash-create | tmq-topic create -- -x | 1 | tmq-topic: '-x': bad topic name (must not begin with '-')
dash-get | tmq-get -- -x | 1 | tmq-get: '-x': bad topic name (must not begin with '-')
dash-no-dashdash | tmq-put -x hello | 2 | tmq-put: invalid option -- 'x'
group-create | tmq-topic create -- --group--x | 1 | tmq-topic: '--group--x': bad topic name (must not begin with '-')
group-put | tmq-put -- --group--x hello | 1 | tmq-put: --group--x: a consumer group's log, not a topic
long-create | tmq-topic create "$X300" | 1 | tmq-topic: '{X64}...': topic name too long (300 bytes, at most 251)
long-252 | tmq-topic create "$X252" | 1 | tmq-topic: '{X64}...': topic name too long (252 bytes, at most 251)
long-get | tmq-get "$X300" | 1 | tmq-get: '{X64}...': topic name too long (300 bytes, at most 251)
empty-put | tmq-put '' x | 1 | tmq-put: empty topic name
space | tmq-topic create 'a b' | 1 | tmq-topic: 'a b': bad topic name (use letters, digits, '_', '.' and '-')
colon | tmq-topic create a:b | 1 | tmq-topic: 'a:b': bad topic name (use letters, digits, '_', '.' and '-')
group-slash | tmq-get -g a/b ev | 1 | tmq-get: 'a/b': bad group name (use letters, digits, '_', '.' and '-')
group-dotdot | tmq-group describe .. | 1 | tmq-group: '..': bad group name
group-long | tmq-group describe "$X300" | 1 | tmq-group: '{X64}...': group name too long (300 bytes, at most 242)
no-such-topic | tmq-get nosuch | 1 | tmq-get: nosuch: no such topic
EOF
}

@test "bad keys: out of range, negative, not a number, too wide for charN, not UTF-8" {
	check_table <<'EOF'
u8-256 | tmq-put -k 256 u8t x | 1 | tmq-put: u8t: key '256' out of range for u8 (0 to 255)
u16-65536 | tmq-put -k 65536 u16t x | 1 | tmq-put: u16t: key '65536' out of range for u16 (0 to 65535)
u32-2^32 | tmq-put -k 4294967296 u32t x | 1 | tmq-put: u32t: key '4294967296' out of range for u32 (0 to 4294967295)
u64-2^64 | tmq-put -k 18446744073709551616 u64t x | 1 | tmq-put: u64t: key '18446744073709551616' out of range for u64 (0 to 18446744073709551615)
u64-huge | tmq-put -k 99999999999999999999999999 u64t x | 1 | tmq-put: u64t: key '99999999999999999999999999' out of range for u64 (0 to 18446744073709551615)
negative | tmq-put -k -1 u16t x | 1 | tmq-put: u16t: key '-1' is not an unsigned integer
plus | tmq-put -k +1 u16t x | 1 | tmq-put: u16t: key '+1' is not an unsigned integer
word | tmq-put -k abc u16t x | 1 | tmq-put: u16t: key 'abc' is not an unsigned integer
fraction | tmq-put -k 1.5 u16t x | 1 | tmq-put: u16t: key '1.5' is not an unsigned integer
hex | tmq-put -k 0x10 u16t x | 1 | tmq-put: u16t: key '0x10' is not an unsigned integer
blank | tmq-put -k ' 1' u16t x | 1 | tmq-put: u16t: key ' 1' is not an unsigned integer
empty | tmq-put -k '' u16t x | 1 | tmq-put: u16t: empty key
char-wide | tmq-put -k abcde c4 x | 1 | tmq-put: c4: key 'abcde' is 5 bytes, wider than char4
char-wide-utf8 | tmq-put -k 'ééé' c4 x | 1 | tmq-put: c4: key 'ééé' is 6 bytes, wider than char4
char-not-utf8 | tmq-put -k $'\xff' c4 x | 1 | tmq-put: c4: key is not valid UTF-8
char-overlong | tmq-put -k $'\xc0\xaf' c4 x | 1 | tmq-put: c4: key is not valid UTF-8
K-range | printf '256:x\n' | tmq-put -K : u8t | 1 | tmq-put: u8t: record 1: key '256' out of range for u8 (0 to 255)
K-word | printf '1:ok\nx:y\n' | tmq-put -K : u8t | 1 | tmq-put: u8t: record 2: key 'x' is not an unsigned integer
K-none | printf 'no delimiter\n' | tmq-put -K : u8t | 1 | tmq-put: u8t: record 1: no key (no ':' in the record)
partition-range | tmq-topic partition u8t 256 | 1 | tmq-topic: u8t: key '256' out of range for u8 (0 to 255)
partition-word | tmq-topic partition u16t abc | 1 | tmq-topic: u16t: key 'abc' is not an unsigned integer
EOF
}

@test "bad payloads: invalid UTF-8, malformed or non-object JSON, unknown types, records and lines too long" {
	check_table <<'EOF'
text-arg | tmq-put plain $'\xff' | 1 | tmq-put: plain: message 1: text is not valid UTF-8 (use -b for bytes)
text-stdin | printf 'fine\n\xc3\x28\n' | tmq-put plain | 1 | tmq-put: plain: record 2: text is not valid UTF-8 (use -b for bytes)
text-overlong | printf '\xc0\xaf\n' | tmq-put plain | 1 | tmq-put: plain: record 1: text is not valid UTF-8 (use -b for bytes)
text-surrogate | printf '\xed\xa0\x80\n' | tmq-put plain | 1 | tmq-put: plain: record 1: text is not valid UTF-8 (use -b for bytes)
text-past-10FFFF | printf '\xf4\x90\x80\x80\n' | tmq-put plain | 1 | tmq-put: plain: record 1: text is not valid UTF-8 (use -b for bytes)
text-cut | printf 'a\xe2\x82' | tmq-put plain | 1 | tmq-put: plain: record 1: text is not valid UTF-8 (use -b for bytes)
text-nul-records | printf 'a\0\xff\0' | tmq-put -0 plain | 1 | tmq-put: plain: record 2: text is not valid UTF-8 (use -b for bytes)
json-malformed | printf '{"id": 1\n' | tmq-put -T Order ev | 1 | tmq-put: ev: record 1: not a JSON object (-T Order)
json-array | printf '[1, 2]\n' | tmq-put -T Order ev | 1 | tmq-put: ev: record 1: not a JSON object (-T Order)
json-number | tmq-put -T Order ev 42 | 1 | tmq-put: ev: message 1: not a JSON object (-T Order)
json-string | tmq-put -T Order ev '"s"' | 1 | tmq-put: ev: message 1: not a JSON object (-T Order)
json-null | tmq-put -T Order ev null | 1 | tmq-put: ev: message 1: not a JSON object (-T Order)
json-empty | tmq-put -T Order ev '' | 1 | tmq-put: ev: message 1: not a JSON object (-T Order)
json-trailing | tmq-put -T Order ev '{} x' | 1 | tmq-put: ev: message 1: not a JSON object (-T Order)
json-two | tmq-put -T Order ev '{}{}' | 1 | tmq-put: ev: message 1: not a JSON object (-T Order)
json-not-utf8 | tmq-put -T Order ev $'{"a": "\xff"}' | 1 | tmq-put: ev: message 1: JSON is not valid UTF-8 (-T Order)
type-unknown | tmq-put -T Nope ev '{}' | 1 | tmq-put: ev: no type 'Nope' in the topic
type-none | tmq-put -T Order plain '{}' | 1 | tmq-put: plain: no type 'Order' in the topic
line-over-4096 | seq 1 5000 | tr '\n' , | tmq-put plain | 1 | tmq-put: plain: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)
record-100MB | head -c 100000000 /dev/zero | tr '\0' a | bounded tmq-put plain | 1 | tmq-put: plain: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)
record-100MB-whole | head -c 100000000 /dev/zero | tr '\0' a | bounded tmq-put -l plain | 1 | tmq-put: plain: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)
record-100MB-nul | head -c 100000000 /dev/zero | tr '\0' a | bounded tmq-put -0 plain | 1 | tmq-put: plain: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)
EOF
}

@test "a 100 MB record among good ones is refused alone, in bounded memory" {
	{
		echo first
		head -c 100000000 /dev/zero | tr '\0' a
		printf '\nlast'
	} | bounded tmq-put plain 2>err && false
	run cat err
	assert_output 'tmq-put: plain: record 2: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)'
	run tmq-get plain
	assert_output $'first\nlast'
}

@test "bad topic definitions: corrupt or truncated .twc, partitions 0, key_width 3, a name holding \\u0000, ..." {
	check_table <<'EOF'
truncated | twc t '{"key_width": 2, "partitions": 1'; tmq-put t x | 1 | tmq-put: t: corrupt t.twc: definition is not valid JSON
empty | twc t ''; tmq-get t | 1 | tmq-get: t: corrupt t.twc: definition is not valid JSON
binary | twc t $'\x89PNG\r\n\x1a\n'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: definition is not valid JSON
array | twc t '[1]'; tmq-dump t | 1 | tmq-dump: t: corrupt t.twc: definition is not a JSON object
partitions-0 | twc t '{"key_width": 2, "partitions": 0, "message_types": {}}'; tmq-put t x | 1 | tmq-put: t: corrupt t.twc: bad partitions 0 (1 to 65536)
partitions-70000 | twc t '{"key_width": 2, "partitions": 70000}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: bad partitions 70000 (1 to 65536)
partitions-float | twc t '{"key_width": 2, "partitions": 1.5}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: "partitions" is not an integer
key-width-3 | twc t '{"key_width": 3, "partitions": 1, "message_types": {}}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: bad key_width 3
key-width-0 | twc t '{"key_width": 0, "partitions": 1}'; tmq-topic info t | 1 | tmq-topic: t: corrupt t.twc: bad key_width 0
key-width-16 | twc t '{"key_width": 16, "partitions": 1}'; tmq-put t x | 1 | tmq-put: t: corrupt t.twc: bad key_width 16
key-width-missing | twc t '{"partitions": 1}'; tmq-put t x | 1 | tmq-put: t: corrupt t.twc: missing "key_width"
key-width-string | twc t '{"key_width": "2", "partitions": 1}'; tmq-put t x | 1 | tmq-put: t: corrupt t.twc: "key_width" is not an integer
types-array | twc t '{"key_width": 2, "partitions": 1, "message_types": []}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: "message_types" is not an object
types-shared-index | twc t '{"key_width": 2, "partitions": 1, "message_types": {"a": 0, "b": 0}}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: two types share index 0
types-negative-index | twc t '{"key_width": 2, "partitions": 1, "message_types": {"a": -1}}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: bad index for type "a"
no-directory | twc t '{"key_width": 2, "partitions": 1}'; rmdir "$TMQ_ROOT/t"; tmq-put t x | 1 | tmq-put: t: no such topic
types-nul | twc t '{"key_width": 2, "partitions": 1, "message_types": {"a\u0000b": 0, "a\u0000c": 1}}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: \u0000 at byte 55: a name cannot hold NUL
types-nul-put | twc t '{"key_width": 2, "partitions": 1, "message_types": {"a": 0, "a\u0000": 1}}'; tmq-put -T a t '{}' | 1 | tmq-put: t: corrupt t.twc: \u0000 at byte 63: a name cannot hold NUL
field-nul | twc t '{"key_width\u0000x": 2, "partitions": 1}'; tmq-put t x | 1 | tmq-put: t: corrupt t.twc: \u0000 at byte 12: a name cannot hold NUL
group-topic-nul | twc --group--H '{"key_width": 4, "partitions": 1, "message_types": {}, "topic": "ev\u0000x"}'; tmq-group describe H | 1 | tmq-group: --group--H: corrupt --group--H.twc: \u0000 at byte 68: a name cannot hold NUL
types-escaped-backslash | twc t '{"key_width": 2, "partitions": 1, "message_types": {"a\\u0000b": 0}}'; tmq-topic info t | sed -n 's/^types: *//p' >&2 | 0 | a\\u0000b
EOF
}

@test "bad stored lines are reported corrupt by tmq-get and tmq-dump, by partition and offset, in bounded memory" {
	check_table <<'EOF'
bomb-get | store plain bomb; bounded tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: payload inflates beyond 4194304 bytes
bomb-dump | store plain bomb; bounded tmq-dump plain | 1 | tmq-dump: plain/0-20261125_0.tmf:2: partition 0 offset 1: payload inflates beyond 4194304 bytes
bomb-json | store plain bomb; bounded tmq-get -J plain | 1 | tmq-get: plain: partition 0 offset 1: payload inflates beyond 4194304 bytes
long-get | store plain long; bounded tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: line too long
long-dump | store plain long; bounded tmq-dump --verify plain | 1 | tmq-dump: plain/0-20261125_0.tmf:2: partition 0 offset 1: line too long
base85 | store plain base85; tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: bad base85 in the body
short | store plain short; tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: line too short (4 bytes)
empty | store plain empty; tmq-dump plain | 1 | tmq-dump: plain/0-20261125_0.tmf:2: partition 0 offset 1: line too short (0 bytes)
type-index | store ev typeidx; tmq-get ev | 1 | tmq-get: ev: partition 0 offset 1: unknown type index 9
typed-not-json | store ev notjson; tmq-get ev | 1 | tmq-get: ev: partition 0 offset 1: typed payload is not a JSON object
typed-not-utf8 | store ev jsonutf8; tmq-get -J ev | 1 | tmq-get: ev: partition 0 offset 1: typed payload is not a JSON object
multi-line-marker | store plain marker; tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: multi-line message (marker 0xF8) is not supported
text-not-utf8 | store plain utf8; tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: text payload is not valid UTF-8
deflate-trailing | store plain trailing; tmq-get plain | 1 | tmq-get: plain: partition 0 offset 1: trailing bytes after the deflate stream
deflate-cut | store plain cut; tmq-dump plain | 1 | tmq-dump: plain/0-20261125_0.tmf:2: partition 0 offset 1: deflate stream is truncated
EOF
	# Around the bad line, the good ones are read.
	store plain bomb
	run --separate-stderr tmq-get -F '%o %s\n' plain
	assert_failure 1
	assert_output $'0 before\n2 after'
	run --separate-stderr tmq-dump --verify plain
	assert_failure 1
	assert_output '1 files, 3 lines, 1 corrupt'
}

@test "group log lines naming partitions the topic does not have are ignored, said once by offset, in bounded memory" {
	# ev has partitions 0 and 1; each row has a group of its own (list comes first, while D is the only
	# group).  Partition 2^32-1 once wrapped the
	# assignment's bound to 0 and crashed every member for ever;
	# 2^32-2 made a reader allocate gigabytes.
	check_table <<'EOF'
offer-list | offers D '{"own":[],"partitions":[4294967295]}'; bounded tmq-group list >/dev/null | 0 | tmq-group: group D: offset {N}: partition 4294967295 does not exist (topic has 2): ignored
offer-get | offers A '{"own":[],"partitions":[4294967295]}'; bounded tmq-get -g A ev | 0 | tmq-get: group A: offset {N}: partition 4294967295 does not exist (topic has 2): ignored
offer-describe | offers B '{"own":[],"partitions":[4294967295]}'; bounded tmq-group describe B >/dev/null | 0 | tmq-group: group B: offset {N}: partition 4294967295 does not exist (topic has 2): ignored
offer-reset | offers C '{"own":[],"partitions":[4294967295]}'; bounded tmq-group reset --to start --force C >/dev/null | 0 | tmq-group: group C: offset {N}: partition 4294967295 does not exist (topic has 2): ignored
offer-huge | offers E '{"own":[4294967294],"partitions":[0,4294967294]}'; bounded tmq-group describe E >/dev/null | 0 | tmq-group: group E: offset {N}: partition 4294967294 does not exist (topic has 2): ignored
offer-next | offers F '{"own":[],"partitions":[0,1,2]}'; bounded tmq-group describe F >/dev/null | 0 | tmq-group: group F: offset {N}: partition 2 does not exist (topic has 2): ignored
confirm | gline H REBALCONFIRM '{"partitions":[1,65535]}'; tmq-group describe H >/dev/null | 0 | tmq-group: group H: offset {N}: partition 65535 does not exist (topic has 2): ignored
commit | gline I COMMIT '{"partition_offsets":[[1,5],[4294967295,9]]}'; tmq-group describe I >/dev/null | 0 | tmq-group: group I: offset {N}: partition 4294967295 does not exist (topic has 2): ignored
EOF
	# The rest of each line counts: member 7 got partition 0, and
	# partition 1's commit holds.
	tmq-put -k 0 ev a
	tmq-put -k 1 ev b
	tmq-get -g G ev >/dev/null
	offers G '{"own":[],"partitions":[0,4294967295]}'
	gline G COMMIT '{"partition_offsets":[[1,1],[4294967295,9]]}'
	run --separate-stderr tmq-group describe --json G
	assert_success
	run python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print(d["committed"]["1"], [(p["partition"], p.get("owner")) for p in d["partitions"]])' "$output"
	assert_output "1 [(0, 7), (1, None)]"
}

@test "FIFOs, devices, directories and links named like partition files or definitions are refused, never waited on" {
	# Each command runs under a timeout: a hang fails the row (124).
	check_table <<'EOF'
get-fifo | planted fifo; timeout 20 tmq-get three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
get-null | planted null; timeout 20 tmq-get three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a character device)
get-zero | planted zero; timeout 20 tmq-get three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a character device)
get-dir | planted dir; timeout 20 tmq-get three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a directory)
get-link | planted link; timeout 20 tmq-get three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: a symbolic link, not followed
get-follow | planted fifo; timeout 20 tmq-get -f -n 2 three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
get-now | planted fifo; timeout 20 tmq-get --from now three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
get-tail | planted fifo; timeout 20 tmq-get --from -1 three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
get-P | planted fifo; timeout 20 tmq-get -P 1 three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
get-group | planted fifo; timeout 20 tmq-get -g G three | 1 | tmq-get: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
list | planted fifo; timeout 20 tmq-topic list -l | 1 | tmq-topic: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
info | planted zero; timeout 20 tmq-topic info three | 1 | tmq-topic: three: partition 1: 1-20261125_0.tmf: not a regular file (a character device)
dump | planted fifo; timeout 20 tmq-dump three >/dev/null | 1 | tmq-dump: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
dump-verify | planted null; timeout 20 tmq-dump --verify three >/dev/null | 1 | tmq-dump: three: partition 1: 1-20261125_0.tmf: not a regular file (a character device)
describe | planted fifo; tmq-get -g G three 2>/dev/null; timeout 20 tmq-group describe G >/dev/null | 1 | tmq-group: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)
put-fifo | rm -rf "$TMQ_ROOT/plain"/*; mkfifo "$TMQ_ROOT/plain/$(today)"; timeout 20 tmq-put plain x | 1 | tmq-put: plain: partition 0: 0-{N}_0.tmf: not a regular file (a FIFO); no message was written
put-null | rm -rf "$TMQ_ROOT/plain"/*; mknod "$TMQ_ROOT/plain/$(today)" c 1 3; timeout 20 tmq-put plain x | 1 | tmq-put: plain: partition 0: 0-{N}_0.tmf: not a regular file (a character device); no message was written
put-dir | rm -rf "$TMQ_ROOT/plain"/*; mkdir "$TMQ_ROOT/plain/$(today)"; timeout 20 tmq-put plain x | 1 | tmq-put: plain: partition 0: 0-{N}_0.tmf: not a regular file (a directory); no message was written
put-older-fifo | rm -rf "$TMQ_ROOT/plain"/*; mkfifo "$TMQ_ROOT/plain/0-20261125_0.tmf"; timeout 20 tmq-put plain x | 1 | tmq-put: plain: partition 0: 0-20261125_0.tmf: not a regular file (a FIFO); no message was written
twc-fifo | rm "$TMQ_ROOT/plain.twc"; mkfifo "$TMQ_ROOT/plain.twc"; timeout 20 tmq-get plain | 1 | tmq-get: plain: plain.twc: not a regular file (a FIFO)
twc-null | rm "$TMQ_ROOT/plain.twc"; mknod "$TMQ_ROOT/plain.twc" c 1 3; timeout 20 tmq-put plain x | 1 | tmq-put: plain: plain.twc: not a regular file (a character device)
twc-dir | rm "$TMQ_ROOT/plain.twc"; mkdir "$TMQ_ROOT/plain.twc"; timeout 20 tmq-topic info plain | 1 | tmq-topic: plain: plain.twc: not a regular file (a directory)
twc-link | mv "$TMQ_ROOT/plain.twc" "$BATS_TEST_TMPDIR/p.twc"; ln -s "$BATS_TEST_TMPDIR/p.twc" "$TMQ_ROOT/plain.twc"; timeout 20 tmq-get plain | 1 | tmq-get: plain: plain.twc: a symbolic link, not followed
EOF
}

@test "one bad partition is said, and the rest of the topic is read (exit 1 at the end)" {
	local k
	for k in fifo null zero dir link; do
		planted "$k"
		run --separate-stderr timeout 20 tmq-get three
		assert_failure 1
		assert_output $'zero\ntwo'
		planted "$k"
		run --separate-stderr timeout 20 tmq-dump three
		assert_failure 1
		assert_line --index 0 --partial 'payload=zero'
		assert_line --index 1 --partial 'payload=two'
	done
	# A group member reads the rest of its share too.
	planted fifo
	run --separate-stderr timeout 20 tmq-get -g G --commit three
	assert_failure 1
	assert_output $'zero\ntwo'
	rm "$TMQ_ROOT/three/1-20261125_0.tmf"
	run tmq-group describe --json G
	run python3 -c '
import json, sys
print(sorted(json.loads(sys.argv[1])["committed"].items()))' "$output"
	assert_output "[('0', 1), ('1', 0), ('2', 1)]"
	# Listings count the other partitions, and say the bad one.
	planted fifo
	run --separate-stderr timeout 20 tmq-topic list -l
	assert_failure 1
	assert_line --regexp '^three +u16 +3 +2 +[0-9]+$'
	assert_stderr 'tmq-topic: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)'
	run --separate-stderr timeout 20 tmq-topic info --json three
	assert_failure 1
	run python3 -c '
import json, sys
print([p["end"] for p in json.loads(sys.argv[1])["partitions"]])' "$output"
	assert_output '[1, 0, 1]'
	timeout 20 tmq-get -g R three >/dev/null 2>&1 || :
	run --separate-stderr timeout 20 tmq-group describe R
	assert_failure 1
	assert_line --regexp '^2 +0 +1 +1 +-$'
	# No reset from figures that leave a partition out.
	run --separate-stderr timeout 20 tmq-group reset R --to now --force
	assert_failure 1
	assert_stderr 'tmq-group: three: partition 1: 1-20261125_0.tmf: not a regular file (a FIFO)'
	# Put into a partition whose file is a FIFO fails; the messages for
	# the others land.
	rm -rf "$TMQ_ROOT/plain"/*
	mkfifo "$TMQ_ROOT/plain/$(today)"
	run --separate-stderr timeout 20 tmq-put plain x
	assert_failure 1
	[ -p "$TMQ_ROOT/plain/$(today)" ]
}

@test "offsets never wrap past 2^64-1: a file that would is corrupt, and commits past 2^63-1 are refused" {
	planted wrap
	run --separate-stderr timeout 20 tmq-get -F '%p %o %s\n' three
	assert_failure 1
	assert_output $'0 0 zero\n1 18446744073709551614 one\n2 0 two'
	assert_stderr 'tmq-get: three: partition 1: 1-20261125_18446744073709551614.tmf: corrupt: offsets run past 2^64-1'
	check_table <<'EOF'
wrap-tail | planted wrap; tmq-get -P 1 --from -1 three | 1 | tmq-get: three: partition 1: 1-20261125_18446744073709551614.tmf: corrupt: offsets run past 2^64-1
wrap-now | planted wrap; tmq-get -P 1 --from now three | 1 | tmq-get: three: partition 1: 1-20261125_18446744073709551614.tmf: corrupt: offsets run past 2^64-1
wrap-info | planted wrap; tmq-topic info three | 1 | tmq-topic: three: partition 1: 1-20261125_18446744073709551614.tmf: corrupt: offsets run past 2^64-1
wrap-put | planted wrap; tmq-put -k 1 three x | 1 | tmq-put: three: partition 1: 1-20261125_18446744073709551614.tmf: corrupt: offsets run past 2^64-1; no message was written
wrap-dump | planted wrap; tmq-dump --verify three | 1 | tmq-dump: three: partition 1: 1-20261125_18446744073709551614.tmf: corrupt: offsets run past 2^64-1
commit-2^64-1 | gline C COMMIT '{"partition_offsets":[[0,18446744073709551615]]}'; tmq-group describe C >/dev/null | 0 | tmq-group: group C: offset {N}: ~~TWAIN~~COMMIT: offset 18446744073709551615 for partition 0 is past 2^63-1
commit-2^63 | gline D COMMIT '{"partition_offsets":[[1,9223372036854775808]]}'; tmq-get -g D ev | 0 | tmq-get: group D: offset {N}: ~~TWAIN~~COMMIT: offset 9223372036854775808 for partition 1 is past 2^63-1
EOF
	# Nothing was put after the corrupt file: no file that sorts first.
	run ls "$TMQ_ROOT/three"
	refute_output --partial '1-20261125_0.tmf'
}

# holed ROOT KIND [SIZE]: in ROOT, topic "three" (u16 keys, 3 partitions), whose
# partitions 0 and 2 hold "zero" and "two", and whose partition 1 is one
# day file: "one-a", "one-b", a line that is KIND, "one-c" and "one-d"
# (offsets 0 to 4).  KIND is hole (a hole of SIZE, 20G by default: a sparse
# file, 8 KB on disk) or dense (four NUL bytes, what a hole reads as).
holed() {
	local d=$1/three f=$1/three/1-20261125_0.tmf
	TMQ_ROOT=$1 tmq-topic create -p 3 three
	tmq_write_line "$d" 0-20261125_0.tmf u16 1 1795597320 zero
	tmq_write_line "$d" 2-20261125_0.tmf u16 1 1795597320 two
	tmq_write_line "$d" "${f##*/}" u16 1 1795597321 one-a
	tmq_write_line "$d" "${f##*/}" u16 1 1795597322 one-b
	case $2 in
	hole) truncate -s "+${3:-20G}" "$f" ;;
	dense) printf '\0\0\0\0' >>"$f" ;;
	esac
	printf '\n' >>"$f"
	tmq_write_line "$d" "${f##*/}" u16 1 1795597323 one-c
	tmq_write_line "$d" "${f##*/}" u16 1 1795597324 one-d
}

# holes_in FILE: "N bytes of holes at byte X": FILE's holes from its first
# one on, as the filesystem tells them (SEEK_HOLE, SEEK_DATA); skips the
# test where it keeps none (the file takes as much room as it says).
holes_in() {
	[ "$(du -k "$1" | cut -f 1)" -lt 1024 ] ||
	    skip "the filesystem of $1 keeps no holes"
	python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
end = os.lseek(fd, 0, os.SEEK_END)
at, n = os.lseek(fd, 0, os.SEEK_HOLE), 0
while at + n < end:
    try:
        data = os.lseek(fd, at + n, os.SEEK_DATA)
    except OSError:
        data = end
    n = data - at
    if data < end:
        break
print("%d bytes of holes at byte %d" % (n, at))
PY
}

# like_dense COMMAND...: run COMMAND on the root with holes ($TMQ_ROOT),
# which may read at most 1 MiB more than COMMAND on the dense root
# ($dense) reads; $output, $stderr, $status are what it did, and the dense
# run's stdout must be $output too.
like_dense() {
	read_at_most $((1 << 40)) env TMQ_ROOT="$dense" "$@" || return 1
	local dout dread=$read_bytes
	dout=$(cat "$BATS_TEST_TMPDIR/out")
	dense_stderr=$(cat "$BATS_TEST_TMPDIR/err") dense_status=$status
	read_at_most $((dread + 1048576)) "$@" || return 1
	output=$(cat "$BATS_TEST_TMPDIR/out")
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
	mapfile -t lines <<<"$output"
	[ "$output" = "$dout" ] || {
		printf '%s: holes: %s\n  dense: %s\n' "$*" "$output" "$dout" >&2
		return 1
	}
}

@test "a sparse partition file (20 GiB of holes among a few lines) costs every reader what its data costs, and reads as the same file dense" {
	local dense=$BATS_TEST_TMPDIR/dense h
	holed "$TMQ_ROOT" hole
	holed "$dense" dense
	h="1-20261125_0.tmf: $(holes_in "$TMQ_ROOT/three/1-20261125_0.tmf") skipped"
	# Each command as it reads the dense file, 20 GiB of holes or not:
	# before, each read all of them (tmq-get 22 s, tmq-topic list -l 11).
	# The line with the hole takes its offset, as the library counts it,
	# and is said once, with its holes.
	like_dense tmq-get -F '%p %o %s\n' three
	assert_equal "$status $dense_status" "1 1"
	assert_output $'0 0 zero\n1 0 one-a\n2 0 two\n1 1 one-b\n1 3 one-c\n1 4 one-d'
	assert_stderr "tmq-get: three: partition 1 offset 2: $h"
	like_dense env TMQ_READ=direct tmq-get -F '%p %o %s\n' three
	assert_stderr "tmq-get: three: partition 1 offset 2: $h"
	like_dense tmq-get -P 1 --from 3 three
	assert_output $'one-c\none-d'
	like_dense tmq-get --from -2 -F '%p %o %s\n' three
	assert_equal "$status $dense_status" "0 0"
	assert_output $'0 0 zero\n1 3 one-c\n2 0 two\n1 4 one-d'
	like_dense env TMQ_READ=direct tmq-get -P 1 --from -1 three
	assert_output one-d
	like_dense tmq-get --from now three
	assert_equal "$status $output" "0 "
	like_dense tmq-get --from @1795597322.5 three
	assert_equal "$status $stderr" "0 "
	assert_output $'one-c\none-d'
	like_dense tmq-dump three
	assert_equal "$status $dense_status" "1 1"
	assert_stderr "tmq-dump: three/1-20261125_0.tmf:3: partition 1 offset 2: $h"
	like_dense env TMQ_READ=direct tmq-dump --verify three
	assert_output '3 files, 7 lines, 1 corrupt'
	assert_stderr "tmq-dump: three/1-20261125_0.tmf:3: partition 1 offset 2: $h"
	# Ends and counts are the dense file's; the partition is said to be
	# damaged (exit 1), its figures shown all the same.
	like_dense bash -c 'set -o pipefail; tmq-topic list -l |
	    awk "NR == 1 || \$1 == \"three\" { print \$1, \$2, \$3, \$4 }"'
	assert_equal "$status $dense_status" "1 0"
	assert_output $'TOPIC KEY-TYPE PARTITIONS MESSAGES\nthree u16 3 7'
	assert_stderr "tmq-topic: three: partition 1: $h"
	like_dense bash -c 'tmq-topic info --json three | python3 -c "
import json, sys
print([(p[\"first\"], p[\"end\"]) for p in json.load(sys.stdin)[\"partitions\"]])"'
	assert_output '[(0, 1), (0, 5), (0, 1)]'
	assert_stderr "tmq-topic: three: partition 1: $h"
	like_dense bash -c 'tmq-topic list --prometheus | grep "topic=\"three\"" | grep -v bytes'
	assert_line 'tmq_partition_end_offset{topic="three",partition="1"} 5'
	# A group reads it, and its lag is the dense file's.
	like_dense tmq-get -g G --commit -F '%p %o %s\n' three
	assert_equal "$status $dense_status" "1 1"
	assert_stderr "tmq-get: three: partition 1 offset 2: $h"
	like_dense tmq-group describe G
	assert_equal "$status $dense_status" "1 0"
	assert_line --regexp '^1 +5 +5 +0 +-$'
	assert_stderr "tmq-group: three: partition 1: $h"
	like_dense bash -c 'echo 1 3 | tmq-commit G'
	assert_equal "$status $dense_status" "0 0"
	like_dense tmq-group describe --json G
	like_dense bash -c 'echo 1 6 | tmq-commit G'
	assert_equal "$status" "$dense_status"
	assert_equal "$stderr" "$dense_stderr"
	# Offsets computed from its files are exact: a reset goes ahead.
	like_dense tmq-group reset G --to end --force
	assert_equal "$status $stderr" "0 "
}

@test "a producer starts its day file after a sparse one where the dense one would have it, reading none of the holes" {
	local dense=$BATS_TEST_TMPDIR/dense k
	holed "$TMQ_ROOT" hole
	holed "$dense" dense
	holes_in "$TMQ_ROOT/three/1-20261125_0.tmf" >/dev/null
	for k in $(seq 0 99); do
		[ "$(tmq-topic partition three "$k")" = 1 ] && break
	done
	like_dense tmq-put -k "$k" three new
	assert_equal "$status $stderr" "0 "
	run ls "$TMQ_ROOT/three"
	assert_line "1-$(date -u +%Y%m%d)_5.tmf"
	like_dense tmq-get -P 1 --from 5 -F '%o %s\n' three
	assert_output '5 new'
}

@test "the library's producer numbers a sparse file's lines as tmq does" {
	require_ref
	local y f k
	y=$(date -u -d yesterday +%Y%m%d)
	for r in lib tmq; do
		TMQ_ROOT=$BATS_TEST_TMPDIR/$r tmq-topic create -p 1 one
		rm -f "$BATS_TEST_TMPDIR/$r/one"/*
		f=$BATS_TEST_TMPDIR/$r/one/0-${y}_0.tmf
		tmq_write_line "${f%/*}" "${f##*/}" u16 1 1795597321 a
		# (64 MiB: the library reads the whole line into memory)
		truncate -s +64M "$f"
		printf '\n' >>"$f"
		tmq_write_line "${f%/*}" "${f##*/}" u16 1 1795597323 c
	done
	holes_in "$f" >/dev/null
	python3 - "$BATS_TEST_TMPDIR/lib" <<'PY'
import sys, twainmq
with twainmq.Twain(sys.argv[1]).producer("one") as p:
    p.write_message(1, "new")
PY
	TMQ_ROOT=$BATS_TEST_TMPDIR/tmq tmq-put -k 1 one new
	run ls "$BATS_TEST_TMPDIR/lib/one"
	assert_line "0-$(date -u +%Y%m%d)_3.tmf"
	run ls "$BATS_TEST_TMPDIR/tmq/one"
	assert_line "0-$(date -u +%Y%m%d)_3.tmf"
	run tmq-get -d "$BATS_TEST_TMPDIR/lib" -F '%o %s\n' --from 2 one
	assert_output $'2 c\n3 new'
}

@test "a follower of a sparse partition reads what comes after its holes, and none of them" {
	local f=$TMQ_ROOT/three/1-20261125_0.tmf k pid at
	holed "$TMQ_ROOT" hole
	holes_in "$f" >/dev/null
	for k in $(seq 0 99); do
		[ "$(tmq-topic partition three "$k")" = 1 ] && break
	done
	tmq-get -f -P 1 --from 4 -F '%o %s\n' three >"$BATS_TEST_TMPDIR/f.out" \
	    2>"$BATS_TEST_TMPDIR/f.err" &
	pid=$!
	track "$pid"
	wait_for grep -q '^4 one-d$' "$BATS_TEST_TMPDIR/f.out"
	tmq-put -k "$k" three five
	wait_for grep -q '^5 five$' "$BATS_TEST_TMPDIR/f.out"
	# A hole at the end of today's file, with no newline after it: the
	# next producer ends it (a line cut short), and its line follows.
	f=$TMQ_ROOT/three/1-$(date -u +%Y%m%d)_5.tmf
	[ -s "$f" ]
	truncate -s +20G "$f"
	read_at_most 1048576 tmq-put -k "$k" three seven
	assert_equal "$status" 0
	wait_for grep -q '^7 seven$' "$BATS_TEST_TMPDIR/f.out"
	! read_past "$pid" 1048576 || fail "the follower read $(awk '/^rchar/ { print $2 }' /proc/$pid/io) bytes"
	kill "$pid"
	wait "$pid" || :
	run cat "$BATS_TEST_TMPDIR/f.out"
	assert_output $'4 one-d\n5 five\n7 seven'
	run cat "$BATS_TEST_TMPDIR/f.err"
	# (Its hole ran to the end of the file when the follower passed it:
	# the newline that ended it came after, and went into a block of
	# its own.)
	at=$(holes_in "$f")
	assert_output --regexp "^tmq-get: three: partition 1 offset 6: ${f##*/}: [0-9]+ bytes of holes at byte ${at##* } skipped\$"
}

@test "tmq-topic prune --archive on another filesystem copies a sparse file's data only, its holes kept" {
	local a f=$TMQ_ROOT/three/1-20261125_0.tmf st size was kb
	a=$(mktemp -d /dev/shm/tmq-archive.XXXXXX 2>/dev/null) ||
	    skip "no /dev/shm to archive to"
	echo "$a" >>"$BATS_TEST_TMPDIR/.dirs"
	[ "$(stat -c %d "$a")" != "$(stat -c %d "$BATS_TEST_TMPDIR")" ] ||
	    skip "/dev/shm is on the root's filesystem: archiving renames"
	holed "$TMQ_ROOT" hole 1G
	holes_in "$f" >/dev/null
	tmq_write_line "$TMQ_ROOT/three" 1-20261126_5.tmf u16 1 1795683720 later
	was=$(stat -c %s "$f")
	read_at_most 1048576 tmq-topic prune three --before 2026-11-26T00:00:00Z \
	    --archive "$a"
	st=$status
	size=$(stat -c %s "$a/three/1-20261125_0.tmf")
	kb=$(du -k "$a/three/1-20261125_0.tmf" | cut -f 1)
	run --separate-stderr tmq-get -d "$a" -P 1 -F '%o %s\n' three
	assert_equal "$st" 0
	assert_output $'0 one-a\n1 one-b\n3 one-c\n4 one-d'
	assert_equal "$size" "$was"
	[ "$kb" -lt 1024 ] || fail "the copy takes $kb KiB"
	[ ! -e "$f" ]
}

@test "a planted huge dense line costs each reader what honest data of its size costs, in bounded memory" {
	local f=$TMQ_ROOT/plain/0-20261125_0.tmf size
	rm -f "$TMQ_ROOT/plain"/*.tmf
	head -c 67108864 /dev/zero | tr '\0' x >"$f"
	printf '\n' >>"$f"
	tmq_write_line "$TMQ_ROOT/plain" "${f##*/}" u16 1 1795597320 after
	size=$(stat -c %s "$f")
	# Each reads the file as often as it reads honest data: once, or
	# twice for the last N (counted, then read).
	read_at_most $((size + 1048576)) bounded tmq-get -F '%o %s\n' plain
	assert_equal "$status $(cat out)" "1 1 after"
	assert_equal "$(cat err)" "tmq-get: plain: partition 0 offset 0: line too long"
	read_at_most $((2 * size + 1048576)) bounded tmq-get --from -1 plain
	assert_equal "$status $(cat out) $(cat err)" "0 after "
	read_at_most $((size + 1048576)) bounded tmq-dump --verify plain
	assert_equal "$status $(cat out)" "1 1 files, 2 lines, 1 corrupt"
	read_at_most $((size + 1048576)) bounded tmq-topic list -l
	assert_equal "$status $(cat err)" "0 "
	read_at_most $((size + 1048576)) bounded tmq-put plain next
	assert_equal "$status $(cat err)" "0 "
	run ls "$TMQ_ROOT/plain"
	assert_line "0-$(date -u +%Y%m%d)_2.tmf"
}

@test "a planted typed payload that inflates to megabytes of small numbers costs each reader bounded memory, not a tree of it" {
	local f
	[ -x /usr/bin/time ] || skip "/usr/bin/time not found"
	f=$(ls "$TMQ_ROOT"/ev/"$(tmq-topic partition ev 0)"-*.tmf)
	# A 3.7 KB line whose payload is {"a":[0,0,...]} of 3,000,010 bytes:
	# a document tree of it took some 120 MB.
	python3 - "$f" <<'EOF'
import base64, struct, sys, zlib
raw = b"\xfb\x00\x00" + b'{"a":[' + b"0," * 1499999 + b"0]}"
z = zlib.compressobj(9, zlib.DEFLATED, -15)
body = z.compress(raw) + z.flush()
line = (base64.b85encode(b"\0\0") + base64.b85encode(struct.pack(">d", 1795597320.0))
        + base64.b85encode(body) + b"\n")
assert len(line) < 4096
with open(sys.argv[1], "ab") as f:
    f.write(line)
EOF
	tmq-put -k 0 -T Order ev '{"after":1}'
	peak_kib tmq-get -F '%o %y %s\n' ev
	assert_equal "$status $(cut -c 1-20 out | tr '\n' ' ')" '0 0 Order {"a":[0,0,0, 1 Order {"after":1} '
	assert_peak_below 32768 "tmq-get"
	peak_kib tmq-get -J ev
	# (the first line only: the second's timestamp is the time of the
	# put, and its decimals are as many as it needs)
	assert_equal "$status $(wc -l <out) $(head -n 1 out | wc -c)" "0 2 3000106"
	assert_peak_below 32768 "tmq-get -J"
	peak_kib tmq-dump --verify ev
	assert_equal "$status $(cat out)" "0 2 files, 2 lines, 0 corrupt"
	assert_peak_below 32768 "tmq-dump --verify"
	# A copy of it through -J checks it again, as a typed payload.
	tmq-topic create -p 2 -t Order,Refund ev2
	tmq-get -J ev >ev.jsonl
	peak_kib tmq-put -J --keep-time ev2 <ev.jsonl
	assert_equal "$status $(cat err)" "0 "
	assert_peak_below 32768 "tmq-put -J"
	assert_equal "$(tmq-get -F '%o %y %s\n' ev2 | md5sum)" \
	    "$(tmq-get -F '%o %y %s\n' ev | md5sum)"
	# Nested deeper than a typed payload may be: refused, in bounded
	# memory too.
	python3 -c 'print("{\"a\":" + "[" * 500000 + "]" * 500000 + "}")' >deep
	peak_kib tmq-put -T Order ev2 <deep
	assert_equal "$status $(cat err)" "1 tmq-put: ev2: record 1: not strict JSON (-T Order): nested deeper than 32 at byte 37"
	assert_peak_below 32768 "tmq-put"
}

@test "names and strings planted in the root reach no terminal raw: escaped in every message and listing" {
	local esc=$'\e]0;owned\a' nl=$'a\nb' red=$'\e[31m'
	cp "$TMQ_ROOT/plain.twc" "$TMQ_ROOT/$esc.twc"
	cp "$TMQ_ROOT/plain.twc" "$TMQ_ROOT/$nl.twc"
	mkdir "$TMQ_ROOT/--group--$red" "$TMQ_ROOT/$esc" "$TMQ_ROOT/$nl"
	cp "$TMQ_ROOT/plain.twc" "$TMQ_ROOT/--group--$red.twc"
	check_table <<'EOF'
topic-list | tmq-topic list >/dev/null | 1 | tmq-topic: '\x1b]0;owned\x07': bad topic name (use letters, digits, '_', '.' and '-'){NL}tmq-topic: 'a\nb': bad topic name (use letters, digits, '_', '.' and '-')
topic-list-l | tmq-topic list -l >/dev/null | 1 | tmq-topic: '\x1b]0;owned\x07': bad topic name (use letters, digits, '_', '.' and '-'){NL}tmq-topic: 'a\nb': bad topic name (use letters, digits, '_', '.' and '-')
group-list | tmq-group list >/dev/null | 1 | tmq-group: '\x1b[31m': bad group name (use letters, digits, '_', '.' and '-')
group-list-json | tmq-group list --json >/dev/null | 1 | tmq-group: '\x1b[31m': bad group name (use letters, digits, '_', '.' and '-')
dump | tmq-dump >/dev/null | 1 | tmq-dump: '\x1b]0;owned\x07': bad topic name (use letters, digits, '_', '.' and '-'){NL}tmq-dump: '\x1b[31m': bad group name (use letters, digits, '_', '.' and '-'){NL}tmq-dump: 'a\nb': bad topic name (use letters, digits, '_', '.' and '-')
get-operand | tmq-get $'\e[2J' | 1 | tmq-get: '\x1b[2J': bad topic name (use letters, digits, '_', '.' and '-')
type-name | twc t $'{"key_width": 2, "partitions": 1, "message_types": {"\\u001b]0;x\\u0007": -1}}'; tmq-get t | 1 | tmq-get: t: corrupt t.twc: '\x1b]0;x\x07': bad type name (control character U+001B)
group-topic | twc --group--T $'{"key_width": 4, "partitions": 1, "message_types": {}, "topic": "\\u001b[31m"}'; tmq-group describe T | 1 | tmq-group: --group--T: corrupt --group--T.twc: "topic": '\x1b[31m': bad topic name (use letters, digits, '_', '.' and '-')
EOF
	# The listings themselves hold only good names.
	run --separate-stderr tmq-topic list
	assert_output $'c4\nev\nplain\nt\nu16t\nu32t\nu64t\nu8t'
}

@test "files in a topic directory that are not partition files are ignored by readers, and not counted" {
	local d="$TMQ_ROOT/plain" f
	tmq-put plain a b
	for f in README 0-notes.txt 00-20261125_0.tmf 0-2026112_0.tmf \
	    0-20261125_0.tmf.bak 0-20261125_01.tmf 0-20261125_-1.tmf \
	    .0-20261125_0.tmf 1-20261125_0.tmf 4294967296-20261125_0.tmf; do
		echo junk >"$d/$f"
	done
	mkdir "$d/.tmq" "$d/0-20261126_9.tmf.d"
	echo junk >"$d/.tmq/index"
	run --separate-stderr tmq-get plain
	assert_success
	assert_output $'a\nb'
	assert_equal "$stderr" ''
	run --separate-stderr tmq-dump --verify plain
	assert_success
	assert_output '1 files, 2 lines, 0 corrupt'
	run --separate-stderr tmq-topic list -l
	assert_success
	assert_line --regexp '^plain +u16 +1 +2 +36$'
	run --separate-stderr tmq-topic info --json plain
	assert_success
	run python3 -c '
import json, sys
p = json.loads(sys.argv[1])["partitions"][0]
print(p["end"], [f["name"][-6:] for f in p["files"]])' "$output"
	assert_output "2 ['_0.tmf']"
	run tmq-put plain c
	assert_success
	run tmq-get -F '%o %s\n' plain
	assert_output $'0 a\n1 b\n2 c'
}

@test "bad option values: numbers that overflow, zero or negative where they may not be" {
	check_table <<'EOF'
get-n-overflow | tmq-get -n 99999999999999999999 ev | 2 | tmq-get: -n: '99999999999999999999': number too large
get-n-zero | tmq-get -n 0 ev | 2 | tmq-get: -n: '0': out of range (1 to 18446744073709551615)
get-n-negative | tmq-get -n -1 ev | 2 | tmq-get: -n: '-1': not a number
topic-p-2^32 | tmq-topic create -p 4294967296 t | 2 | tmq-topic: -p: '4294967296': out of range (1 to 65536)
topic-p-overflow | tmq-topic create -p 99999999999999999999 t | 2 | tmq-topic: -p: '99999999999999999999': number too large
topic-p-zero | tmq-topic create -p 0 t | 2 | tmq-topic: -p: '0': out of range (1 to 65536)
topic-t-empty | tmq-topic create -t , t | 1 | tmq-topic: empty type name
topic-t-hole | tmq-topic create -t A,,B t | 1 | tmq-topic: empty type name
topic-t-twice | tmq-topic create -t A,A t | 1 | tmq-topic: type 'A' given twice
topic-k-u7 | tmq-topic create -k u7 t | 2 | tmq-topic: -k: 'u7': bad key type (u8, u16, u32, u64 or charN with N from 1 to 3000)
topic-k-char0 | tmq-topic create -k char0 t | 2 | tmq-topic: -k: 'char0': bad key type (u8, u16, u32, u64 or charN with N from 1 to 3000)
topic-k-char3001 | tmq-topic create -k char3001 t | 2 | tmq-topic: -k: 'char3001': bad key type (u8, u16, u32, u64 or charN with N from 1 to 3000)
get-from-overflow | tmq-get --from 99999999999999999999 ev | 2 | tmq-get: --from: '99999999999999999999': offset too large
get-P-2^32 | tmq-get -P 4294967296 ev | 2 | tmq-get: -P: '4294967296': no topic has partition 4294967296 (at most 65536 partitions)
get-P-absent | tmq-get -P 2 ev | 1 | tmq-get: ev: partition 2 does not exist (topic has 2)
get-P-empty | tmq-get -P '' ev | 2 | tmq-get: -P: '': empty partition list
get-P-word | tmq-get -P a ev | 2 | tmq-get: -P: 'a': 'a' is not a partition number
get-P-backwards | tmq-get -P 2-1 ev | 2 | tmq-get: -P: '2-1': range 2-1 runs backwards
get-P-element | tmq-get -P 0,,1 ev | 2 | tmq-get: -P: '0,,1': empty element
get-P-comma | tmq-get -P 0, ev | 2 | tmq-get: -P: '0,': empty element
get-P-dash | tmq-get -P 1- ev | 2 | tmq-get: -P: '1-': '' is not a partition number
get-P-twodash | tmq-get -P 0-1-2 ev | 2 | tmq-get: -P: '0-1-2': '1-2' is not a partition number
group-P-word | tmq-group reset G --to start -P a | 2 | tmq-group: -P: 'a': 'a' is not a partition number
group-P-backwards | tmq-group reset G --to start -P 3-0 | 2 | tmq-group: -P: '3-0': range 3-0 runs backwards
get-window-0 | tmq-get -g G --window 0 ev | 2 | tmq-get: --window: '0': out of range (1 s to 86400 s)
get-window-day | tmq-get -g G --window 86401 ev | 2 | tmq-get: --window: '86401': out of range (1 s to 86400 s)
group-max-lag-negative | tmq-group describe G --max-lag -1 | 2 | tmq-group: --max-lag: '-1': not a number
group-max-lag-overflow | tmq-group describe G --max-lag 99999999999999999999 | 2 | tmq-group: --max-lag: '99999999999999999999': number too large
group-window-0 | tmq-group rebalance G --window 0 | 2 | tmq-group: --window: '0': out of range (1 s to 86400 s)
commit-offset-overflow | tmq-commit G 0 99999999999999999999 | 1 | tmq-commit: pair 1: '99999999999999999999': number too large
commit-partition-2^32 | tmq-commit G 4294967296 0 | 1 | tmq-commit: pair 1: '4294967296': out of range (0 to 4294967295)
append-mode | TMQ_APPEND=sometimes tmq-put ev x | 1 | tmq-put: TMQ_APPEND='sometimes': want auto, lock or plain
EOF
}

@test "bad options and operands: unknown options, missing operands, options that do not go together" {
	check_table <<'EOF'
unknown-put | tmq-put --bogus ev | 2 | tmq-put: unrecognized option '--bogus'
unknown-get | tmq-get -X ev | 2 | tmq-get: invalid option -- 'X'
unknown-dump | tmq-dump --nope | 2 | tmq-dump: unrecognized option '--nope'
unknown-topic | tmq-topic -Z list | 2 | tmq-topic: invalid option -- 'Z'
unknown-group | tmq-group --frob list | 2 | tmq-group: unrecognized option '--frob'
unknown-commit | tmq-commit --frob G | 2 | tmq-commit: unrecognized option '--frob'
path-put | "$TMQ_BIN/tmq-put" --bogus ev | 2 | tmq-put: unrecognized option '--bogus'
path-get | "$TMQ_BIN/tmq-get" -X ev | 2 | tmq-get: invalid option -- 'X'
path-get-arg | "$TMQ_BIN/tmq-get" ev -n | 2 | tmq-get: option requires an argument -- 'n'
path-dump | "$TMQ_BIN/tmq-dump" --json=1 | 2 | tmq-dump: option '--json' doesn't allow an argument
path-topic | "$TMQ_BIN/tmq-topic" --bogus list | 2 | tmq-topic: unrecognized option '--bogus'
path-group | "$TMQ_BIN/tmq-group" --to | 2 | tmq-group: option '--to' requires an argument
path-commit | "$TMQ_BIN/tmq-commit" --frob G | 2 | tmq-commit: unrecognized option '--frob'
unknown-command | tmq-topic frob | 2 | tmq-topic: 'frob': unknown command
missing-put | tmq-put | 2 | tmq-put: missing topic
missing-get | tmq-get | 2 | tmq-get: missing topic
missing-command | tmq-topic | 2 | tmq-topic: missing command (create, list, info, partition, prune or delete)
missing-create | tmq-topic create | 2 | tmq-topic: create: missing topic name
missing-info | tmq-topic info | 2 | tmq-topic: info: missing topic name
missing-group | tmq-group describe | 2 | tmq-group: describe: missing group
missing-commit | tmq-commit | 2 | tmq-commit: missing group
missing-offset | tmq-commit G 0 | 2 | tmq-commit: PARTITION without OFFSET
missing-argument | tmq-get ev -n | 2 | tmq-get: option requires an argument -- 'n'
too-many | tmq-topic create a b | 2 | tmq-topic: create: too many operands
k-with-K | tmq-put -k 1 -K : ev x | 2 | tmq-put: -k and -K do not go together
K-empty | tmq-put -K '' ev | 2 | tmq-put: -K: empty key delimiter
get-K-empty | tmq-get -K '' ev | 2 | tmq-get: -K: empty key delimiter
get-K-F | tmq-get -K : -F %s ev | 2 | tmq-get: -K and -F do not go together
get-J-K | tmq-get -J -K : ev | 2 | tmq-get: -J and -K do not go together
get-F-J | tmq-get --format %s --json ev | 2 | tmq-get: -F and -J do not go together
get-FF | tmq-get -F %s -F %k ev | 0 | 
follow-mode | TMQ_FOLLOW=bogus tmq-get ev | 1 | tmq-get: TMQ_FOLLOW='bogus': want auto or poll
commit-negative-offset | tmq-get -g G -P 0 ev >/dev/null; tmq-commit G 0 -1 | 1 | tmq-commit: pair 1: offset '-1' is negative
commit-negative-partition | tmq-get -g G -P 0 ev >/dev/null; tmq-commit --next -t ev G 1 0 -10 3 | 1 | tmq-commit: pair 2: partition '-10' is negative
commit-negative-after-dashdash | tmq-get -g G -P 0 ev >/dev/null; tmq-commit G -- 0 -1 | 1 | tmq-commit: pair 1: offset '-1' is negative
file-without-l | tmq-put -F f ev | 2 | tmq-put: --file needs -l
l-with-messages | tmq-put -l ev a | 2 | tmq-put: -l takes no MESSAGE operands
l-with-0 | tmq-put -l -0 ev | 2 | tmq-put: -0 and -l do not go together
J-with-verify | tmq-dump -J --verify | 2 | tmq-dump: -J and --verify do not go together
window-without-g | tmq-get --window 5 ev | 2 | tmq-get: --commit and --window need -g
commit-without-g | tmq-get --commit ev | 2 | tmq-get: --commit and --window need -g
g-two-topics | tmq-get -g G ev plain | 2 | tmq-get: -g reads exactly one topic
g-from-offset | tmq-get -g G --from 5 ev | 2 | tmq-get: with -g, --from is start or now (where a new group begins)
no-root | tmq-put -d "$BATS_TEST_TMPDIR/none" ev x | 1 | tmq-put: {TMP}/none: no such root (create a topic first, or use -d DIR)
EOF
}

@test "bad times and formats: --from, --until, -F" {
	check_table <<'EOF'
from-word | tmq-get --from yesterday ev | 2 | tmq-get: --from: 'yesterday': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
from-month-13 | tmq-get --from 2026-13-01 ev | 2 | tmq-get: --from: '2026-13-01': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
from-feb-30 | tmq-get --from 2026-02-30 ev | 2 | tmq-get: --from: '2026-02-30': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
from-apr-31 | tmq-get --from 2026-04-31T00:00:00Z ev | 2 | tmq-get: --from: '2026-04-31T00:00:00Z': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
from-hour-25 | tmq-get --from 2026-11-25T25:00 ev | 2 | tmq-get: --from: '2026-11-25T25:00': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
from-at-word | tmq-get --from @noon ev | 2 | tmq-get: --from: '@noon': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
from-tail-word | tmq-get --from -x ev | 2 | tmq-get: --from: '-x': bad position (-N wants a count)
until-word | tmq-get --until soon ev | 2 | tmq-get: --until: 'soon': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
until-feb-29 | tmq-get --until 2026-02-29 ev | 2 | tmq-get: --until: '2026-02-29': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
until-empty | tmq-get --until '' ev | 2 | tmq-get: --until: empty time
until-short-zone | tmq-get --until 2026-11-25T10:00+1 ev | 2 | tmq-get: --until: '2026-11-25T10:00+1': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
until-two-points | tmq-get --until 1.2.3 ev | 2 | tmq-get: --until: '1.2.3': bad time (want ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)
format-directive | tmq-get -F '%z' ev | 2 | tmq-get: bad format: unknown directive '%z'
format-percent-at-end | tmq-get -F 'x%' ev | 2 | tmq-get: bad format: '%' at the end
format-escape | tmq-get -F '\q' ev | 2 | tmq-get: bad format: unknown escape '\q'
format-backslash-at-end | tmq-get -F 'x\' ev | 2 | tmq-get: bad format: '\' at the end
EOF
	# A leap year's February 29th is a good time.
	run --separate-stderr tmq-get --until 2024-02-29 ev
	assert_success
}

# spoil_snapshot KIND: put a bad snapshot of KIND where group G's goes
# (G on plain, made on first use with a good snapshot, kept in good.snap).
spoil_snapshot() {
	local d="$TMQ_ROOT/--group--G" t=$BATS_TEST_TMPDIR
	if [ ! -f "$t/good.snap" ]; then
		tmq-put plain a b c
		tmq-get -g G -P 0 -n 1 plain >/dev/null
		tmq-commit G 0 1
		TMQ_SNAPSHOT_EVERY=1 tmq-group describe G >/dev/null
		cp "$d/.tmq/snapshot.$EUID" "$t/good.snap"
		tmq-get -g H -P 0 -n 2 plain >/dev/null
		TMQ_SNAPSHOT_EVERY=1 tmq-group describe H >/dev/null
		cp "$TMQ_ROOT/--group--H/.tmq/snapshot.$EUID" "$t/other.snap"
	fi
	rm -rf "$d/.tmq" "$t/elsewhere"
	mkdir "$d/.tmq"
	case $1 in
	garbage) head -c 300 /dev/urandom >"$d/.tmq/snapshot.$EUID" ;;
	empty) : >"$d/.tmq/snapshot.$EUID" ;;
	magic) printf TMQGSNAP >"$d/.tmq/snapshot.$EUID" ;;
	truncated) head -c 100 "$t/good.snap" >"$d/.tmq/snapshot.$EUID" ;;
	flipped)
		cp "$t/good.snap" "$d/.tmq/snapshot.$EUID"
		printf '\377' | dd of="$d/.tmq/snapshot.$EUID" bs=1 seek=50 conv=notrunc 2>/dev/null ;;
	huge) truncate -s 1G "$d/.tmq/snapshot.$EUID" ;;
	fifo) mkfifo "$d/.tmq/snapshot.$EUID" ;;
	link) ln -s /dev/zero "$d/.tmq/snapshot.$EUID" ;;
	directory) mkdir "$d/.tmq/snapshot.$EUID" ;;
	other-group) cp "$t/other.snap" "$d/.tmq/snapshot.$EUID" ;;
	dir-is-file) rmdir "$d/.tmq"; echo junk >"$d/.tmq" ;;
	dir-is-link) rmdir "$d/.tmq"; mkdir "$t/elsewhere"
		cp "$t/good.snap" "$t/elsewhere/snapshot.$EUID"; ln -s "$t/elsewhere" "$d/.tmq" ;;
	esac
}

@test "corrupt or hostile group snapshots are never believed: describe and members replay the log in full" {
	local kind want bad=0 n=0
	for kind in garbage empty magic truncated flipped huge fifo link directory \
	    other-group dir-is-file dir-is-link; do
		spoil_snapshot "$kind"
		# (The truth: a full replay, snapshots off.)
		want=$(TMQ_SNAPSHOT_EVERY=0 tmq-group describe --json G)
		n=$((n + 1))
		run --separate-stderr timeout 30 env TMQ_SNAPSHOT_EVERY=1 tmq-group describe --json G
		if [ "$status" != 0 ] || [ "$stderr" != '' ] || [ "$output" != "$want" ]; then
			bad=$((bad + 1))
			printf 'row %s: status %s, stderr %s\n  want %s\n  got  %s\n' \
			    "$kind" "$status" "$stderr" "$want" "$output"
		fi
		# Nothing followed a link out of the group's directory.
		[ "$kind" != dir-is-link ] || cmp -s "$BATS_TEST_TMPDIR/good.snap" \
		    "$BATS_TEST_TMPDIR/elsewhere/snapshot.$EUID" || {
			bad=$((bad + 1)); echo "row $kind: wrote through the link"; }
		# A reader of the group too: it resumes partition 0 after the
		# commit, at 2.  (Not when .tmq is a file or a link: the fixed
		# readers' lock lives there, and its error says so.)
		case $kind in dir-is-*) continue ;; esac
		run --separate-stderr timeout 30 tmq-get -g G -P 0 -n 1 -F '%o' plain
		if [ "$status" != 0 ] || [ "$output" != 2 ]; then
			bad=$((bad + 1))
			printf 'row %s (member): status %s, stderr %s, read %s\n' \
			    "$kind" "$status" "$stderr" "$output"
		fi
	done
	echo "# $n rows, $bad wrong" >&3
	[ "$bad" -eq 0 ]
	# The good one, back in place, gives the same answer.
	spoil_snapshot none
	cp "$BATS_TEST_TMPDIR/good.snap" "$TMQ_ROOT/--group--G/.tmq/snapshot.$EUID"
	run --separate-stderr tmq-group describe --json G
	assert_success
	assert_output "$want"
}
