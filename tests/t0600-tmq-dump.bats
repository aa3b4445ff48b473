#!/usr/bin/env bats
# t0600-tmq-dump: tmq-dump decodes the reference root message for message
# as the library's own consumer does (-J), shows messages to humans with
# control characters escaped, verifies roots (--verify) and names each
# corrupt line by file, line, partition and offset, dumps single FILE
# operands and groups, and refuses what it must.

load test_helper

# compare_with_expected DUMP [TOPIC]: DUMP (tmq-dump -J output) holds
# exactly the messages of vectors/expected.jsonl (of TOPIC only, if given),
# in order.  expected.jsonl has bytes payloads under "payload_b64", tmq-dump
# under "payload"; and u64 keys as numbers, tmq-dump as strings (exact in
# every JSON tool: see tmq-dump(1)); nothing else is normalised.
compare_with_expected() {
	python3 - "$VECTORS/expected.jsonl" "$1" "${2-}" <<'EOF'
import json, sys
exp_path, got_path, topic = sys.argv[1:4]
exp = [json.loads(l) for l in open(exp_path, encoding="utf-8")]
got = [json.loads(l) for l in open(got_path, encoding="utf-8")]
for o in exp:
    if "payload_b64" in o:
        o["payload"] = o.pop("payload_b64")
    if o["topic"] == "u64t":
        o["key"] = str(o["key"])
if topic:
    exp = [o for o in exp if o["topic"] == topic]
bad = 0
for i, (e, g) in enumerate(zip(exp, got)):
    if e != g:
        bad += 1
        if bad <= 5:
            print("message %d:\n  got  %r\n  want %r" % (i, g, e))
if len(exp) != len(got):
    bad += 1
    print("%d messages, want %d" % (len(got), len(exp)))
print("%d messages, %d differ" % (len(got), bad))
sys.exit(1 if bad else 0)
EOF
}

# A small root of our own: topic ev, u16 keys, 2 partitions, with good
# lines around two corrupt ones.
make_corrupt_root() {
	local d="$TMQ_ROOT/ev" good
	tmq-topic create -p 2 ev
	tmq_write_line "$d" 0-20261125_0.tmf 2 1 1795597320.08 a
	tmq_write_line "$d" 0-20261125_0.tmf 2 2 1795597321 b
	echo 'this is not base85' >>"$d/0-20261125_0.tmf"
	tmq_write_line "$d" 0-20261125_0.tmf 2 3 1795597322 c
	tmq_write_line "$d" 0-20261126_4.tmf 2 4 1795683720 d
	# a good line with a quote for its last character
	good=$(tmq_encode_line 2 5 1795683721 e)
	printf '%s"\n' "${good%?}" >>"$d/0-20261126_4.tmf"
	tmq_write_line "$d" 1-20261125_0.tmf 2 6 1795597330 f
}

@test "-J on the reference root equals expected.jsonl, message for message" {
	require_vectors
	tmq-dump -J -d "$VECTORS/root" >"$BATS_TEST_TMPDIR/dump.jsonl"
	run compare_with_expected "$BATS_TEST_TMPDIR/dump.jsonl"
	assert_success
	assert_output "718 messages, 0 differ"
}

@test "-J keeps JSON integers above 2^63 exact" {
	require_vectors
	run --separate-stderr tmq-dump -J -d "$VECTORS/root" -- --group--workers
	assert_success
	assert_line --index 1 '{"topic":"--group--workers","partition":0,"offset":1,"key":1,"timestamp":1795867200.0,"type":"~~TWAIN~~JOINED","payload":{"tag":10870414539955817808}}'
}

@test "-J: every line is strict JSON, u64 keys are exact strings" {
	require_vectors
	local d=$TMQ_ROOT/ty
	tmq-topic create -k u64 -t Order ty
	tmq_write_line "$d" 0-20261125_0.tmf 8 18446744073709551615 1795597320 '{"a": NaN, "s": "\ud800"}' typed:0
	tmq_write_line "$d" 0-20261125_0.tmf 8 9007199254740993 1795597321 $'{"ok":\n true}' typed:0
	tmq-dump -J ty >"$BATS_TEST_TMPDIR/ty.jsonl"
	assert_strict_jsonl "$BATS_TEST_TMPDIR/ty.jsonl"
	run cat "$BATS_TEST_TMPDIR/ty.jsonl"
	assert_line --index 0 '{"topic":"ty","partition":0,"offset":0,"key":"18446744073709551615","timestamp":1795597320.0,"type":"Order","payload":"{\"a\": NaN, \"s\": \"\\ud800\"}"}'
	assert_line --index 1 '{"topic":"ty","partition":0,"offset":1,"key":"9007199254740993","timestamp":1795597321.0,"type":"Order","payload":"{\"ok\":\n true}"}'
	# The whole reference root, too.
	tmq-dump -J -d "$VECTORS/root" >"$BATS_TEST_TMPDIR/all.jsonl"
	assert_strict_jsonl "$BATS_TEST_TMPDIR/all.jsonl"
	command -v jq >/dev/null || skip "jq is not installed"
	run bash -c "jq -r 'select(.topic == \"u64t\") | .key' '$BATS_TEST_TMPDIR/all.jsonl' | grep -c '^18446744073709551615\$'"
	assert_output "$(grep '"topic": "u64t"' "$VECTORS/expected.jsonl" | grep -c '"key": 18446744073709551615,')"
}

@test "--verify on the reference root" {
	require_vectors
	run --separate-stderr tmq-dump --verify -d "$VECTORS/root"
	assert_success
	assert_stderr ""
	assert_output "94 files, 718 lines, 0 corrupt"
	run --separate-stderr tmq-dump -v -d "$VECTORS/root" typed one
	assert_success
	assert_output "12 files, 131 lines, 0 corrupt"
}

@test "human output of a topic" {
	require_vectors
	run --separate-stderr tmq-dump -d "$VECTORS/root" typed
	assert_success
	assert_stderr ""
	[ "${#lines[@]}" -eq 47 ]
	assert_line --index 0 'typed/0-20261125_0.tmf:1 partition=0 offset=0 key=3078257373 time=2026-11-25T09:02:00.080Z type=Order size=61/31 payload={"id":3,"item":"apple","qty":1}'
	assert_line 'typed/0-20261127_3.tmf:5 partition=0 offset=7 key=2722067671 time=2026-11-27T00:01:47.833Z type=Refund size=56/27 payload={"order":9,"reason":"late"}'
	# the JSON of a typed payload is shown as written, backslashes escaped
	assert_line --index 1 'typed/0-20261125_0.tmf:2 partition=0 offset=1 key=1124482883 time=2026-11-25T09:02:02.080Z type=Order size=69/37 payload={"id":7,"item":"\\u00fc-bahn","qty":5}'
}

@test "human output escapes control characters" {
	local payload want size len
	tmq-topic create esc
	payload=$'red \e[31mX\e[0m\ttab\nnl\\bs\r \x7f del \xc2\x9b csi \xc3\xa9'
	tmq_write_line "$TMQ_ROOT/esc" 0-20261125_0.tmf 2 7 1795597320.08 "$payload"
	size=$(wc -c <"$TMQ_ROOT/esc/0-20261125_0.tmf")
	len=$(printf '%s' "$payload" | wc -c)
	run --separate-stderr tmq-dump esc
	assert_success
	assert_stderr ""
	want='esc/0-20261125_0.tmf:1 partition=0 offset=0 key=7 time=2026-11-25T09:02:00.080Z type=str'
	want+=" size=$size/$len payload="'red \x1b[31mX\x1b[0m\ttab\nnl\\bs\r \x7f del \xc2\x9b csi '$'\xc3\xa9'
	assert_output "$want"
	[[ "$output" != *$'\e'* ]]
	# -J keeps the text exact, as JSON
	run --separate-stderr tmq-dump -J esc
	assert_success
	run python3 -c 'import json, sys; sys.exit(json.loads(sys.argv[1])["payload"] != sys.argv[2])' "$output" "$payload"
	assert_success
}

@test "human output escapes keys, and shows bytes payloads escaped" {
	tmq-topic create -k char8 ck
	tmq_write_line "$TMQ_ROOT/ck" 0-20261125_0.tmf char8 $'k\e' 1795597320.08 x
	tmq_write_line "$TMQ_ROOT/ck" 0-20261125_0.tmf char8 k2 1795597320.08 00ff0a41 bytes
	run --separate-stderr tmq-dump ck
	assert_success
	assert_line --index 0 --regexp '^ck/0-20261125_0\.tmf:1 partition=0 offset=0 key=k\\x1b time=2026-11-25T09:02:00\.080Z type=str size=[0-9]+/1 payload=x$'
	assert_line --index 1 --regexp '^ck/0-20261125_0\.tmf:2 partition=0 offset=1 key=k2 time=2026-11-25T09:02:00\.080Z type=bytes size=[0-9]+/4 payload=\\x00\\xff\\nA$'
	run --separate-stderr tmq-dump -J ck
	assert_success
	assert_line --index 0 '{"topic":"ck","partition":0,"offset":0,"key":"k\u001b","timestamp":1795597320.08,"type":"str","payload":"x"}'
	assert_line --index 1 '{"topic":"ck","partition":0,"offset":1,"key":"k2","timestamp":1795597320.08,"type":"bytes","payload":"AP8KQQ=="}'
}

@test "--verify names each corrupt line by file, line, partition and offset" {
	make_corrupt_root
	run --separate-stderr tmq-dump --verify
	assert_failure 1
	assert_stderr "tmq-dump: ev/0-20261125_0.tmf:3: partition 0 offset 2: bad base85 in the timestamp
tmq-dump: ev/0-20261126_4.tmf:2: partition 0 offset 5: bad base85 in the body"
	assert_output "3 files, 7 lines, 2 corrupt"
}

@test "a corrupt line does not stop the dump" {
	make_corrupt_root
	run --separate-stderr tmq-dump ev
	assert_failure 1
	assert_stderr "tmq-dump: ev/0-20261125_0.tmf:3: partition 0 offset 2: bad base85 in the timestamp
tmq-dump: ev/0-20261126_4.tmf:2: partition 0 offset 5: bad base85 in the body"
	[ "${#lines[@]}" -eq 5 ]
	assert_line --index 0 --regexp '^ev/0-20261125_0\.tmf:1 partition=0 offset=0 key=1 .* payload=a$'
	assert_line --index 2 --regexp '^ev/0-20261125_0\.tmf:4 partition=0 offset=3 key=3 .* payload=c$'
	assert_line --index 3 --regexp '^ev/0-20261126_4\.tmf:1 partition=0 offset=4 key=4 .* payload=d$'
	assert_line --index 4 --regexp '^ev/1-20261125_0\.tmf:1 partition=1 offset=0 key=6 .* payload=f$'
	run --separate-stderr tmq-dump -J ev
	assert_failure 1
	[ "${#lines[@]}" -eq 5 ]
}

@test "--verify on a copy of the reference root with a corrupt line" {
	copy_vectors_root "$BATS_TEST_TMPDIR/vr"
	# replace the second line of a file with one whose body is cut short
	python3 - "$BATS_TEST_TMPDIR/vr/typed/1-20261127_4.tmf" <<'EOF'
import sys
p = sys.argv[1]
lines = open(p, "rb").read().split(b"\n")
lines[1] = lines[1][:-5]
open(p, "wb").write(b"\n".join(lines))
EOF
	run --separate-stderr tmq-dump --verify -d "$BATS_TEST_TMPDIR/vr"
	assert_failure 1
	assert_stderr "tmq-dump: typed/1-20261127_4.tmf:2: partition 1 offset 5: deflate stream is truncated"
	assert_output "94 files, 718 lines, 1 corrupt"
}

@test "--verify: an unknown type index is corrupt" {
	tmq-topic create -t Order typed
	tmq_write_line "$TMQ_ROOT/typed" 0-20261125_0.tmf 2 1 1795597320.08 '{"id": 1}' typed:0
	tmq_write_line "$TMQ_ROOT/typed" 0-20261125_0.tmf 2 1 1795597320.08 '{"id": 2}' typed:1
	tmq_write_line "$TMQ_ROOT/typed" 0-20261125_0.tmf 2 1 1795597320.08 '[1, 2]' typed:0
	run --separate-stderr tmq-dump --verify typed
	assert_failure 1
	assert_stderr "tmq-dump: typed/0-20261125_0.tmf:2: partition 0 offset 1: unknown type index 1
tmq-dump: typed/0-20261125_0.tmf:3: partition 0 offset 2: typed payload is not a JSON object"
	assert_output "1 files, 3 lines, 2 corrupt"
}

@test "an unterminated line in an older file is corrupt, and so is a cut last line" {
	local d="$TMQ_ROOT/ev"
	tmq-topic create ev
	tmq_write_line "$d" 0-20261125_0.tmf 2 1 1795597320.08 a
	tmq_encode_line 2 2 1795597321 b | head -c 12 >>"$d/0-20261125_0.tmf"
	# The last line of the newest file, without its newline, as a crash
	# leaves it: reported once it stays so (a line being written would
	# have grown), as --verify and the dump both say.
	run --separate-stderr tmq-dump --verify ev
	assert_failure 1
	assert_stderr "tmq-dump: ev/0-20261125_0.tmf:2: partition 0 offset 1: last line without its newline (12 bytes): cut short"
	assert_output "1 files, 2 lines, 1 corrupt"
	run --separate-stderr tmq-dump ev
	assert_failure 1
	assert_stderr "tmq-dump: ev/0-20261125_0.tmf:2: partition 0 offset 1: last line without its newline (12 bytes): cut short"
	assert_line --index 0 --partial 'ev/0-20261125_0.tmf:1 partition=0 offset=0 '
	[ "${#lines[@]}" -eq 1 ]
	run --separate-stderr tmq-dump -J ev
	assert_failure 1
	[ "${#lines[@]}" -eq 1 ]
	# A FILE operand: the same.
	run --separate-stderr tmq-dump --verify "$d/0-20261125_0.tmf"
	assert_failure 1
	assert_output "1 files, 2 lines, 1 corrupt"
	# Once a newer file exists, it is an unterminated line like any other.
	tmq_write_line "$d" 0-20261126_2.tmf 2 3 1795683720 c
	run --separate-stderr tmq-dump --verify ev
	assert_failure 1
	assert_stderr "tmq-dump: ev/0-20261125_0.tmf:2: partition 0 offset 1: unterminated line"
	assert_output "2 files, 3 lines, 1 corrupt"
}

@test "a FILE operand dumps that file only" {
	require_vectors
	local f="$VECTORS/root/typed/1-20261127_4.tmf"
	run --separate-stderr tmq-dump "$f"
	assert_success
	assert_stderr ""
	[ "${#lines[@]}" -eq 6 ]
	assert_line --index 0 'typed/1-20261127_4.tmf:1 partition=1 offset=4 key=22967784 time=2026-11-27T00:01:43.333Z type=Refund size=56/27 payload={"order":0,"reason":"late"}'
	assert_line --index 5 --regexp '^typed/1-20261127_4\.tmf:6 partition=1 offset=9 '
	run --separate-stderr tmq-dump --verify "$f"
	assert_success
	assert_output "1 files, 6 lines, 0 corrupt"
	# the first and the last file of a partition
	run --separate-stderr tmq-dump --verify "$VECTORS/root/typed/1-20261125_0.tmf" "$VECTORS/root/typed/1-20261128_10.tmf"
	assert_success
	assert_output "2 files, 11 lines, 0 corrupt"
}

@test "a FILE operand gives the same messages as expected.jsonl" {
	require_vectors
	tmq-dump -J "$VECTORS/root/typed/1-20261127_4.tmf" >"$BATS_TEST_TMPDIR/f.jsonl"
	python3 - "$VECTORS/expected.jsonl" "$BATS_TEST_TMPDIR/f.jsonl" <<'EOF'
import json, sys
exp = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
exp = [o for o in exp if o["topic"] == "typed" and o["partition"] == 1
       and 4 <= o["offset"] <= 9]
got = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
assert got == exp, (got, exp)
EOF
}

@test "a FILE operand given relative to the current directory" {
	require_vectors
	cd "$VECTORS/root/typed"
	run --separate-stderr tmq-dump --verify ./1-20261127_4.tmf
	assert_success
	assert_output "1 files, 6 lines, 0 corrupt"
	cd ..
	run --separate-stderr tmq-dump --verify typed/1-20261127_4.tmf
	assert_success
	assert_output "1 files, 6 lines, 0 corrupt"
}

@test "a FILE operand that is not a partition file of its topic" {
	copy_vectors_root "$BATS_TEST_TMPDIR/vr"
	cp "$BATS_TEST_TMPDIR/vr/typed/1-20261127_4.tmf" "$BATS_TEST_TMPDIR/vr/typed/7-20261127_4.tmf"
	run --separate-stderr tmq-dump "$BATS_TEST_TMPDIR/vr/typed/7-20261127_4.tmf"
	assert_fails_with "tmq-dump: typed/7-20261127_4.tmf: not a partition file of the topic"
	assert_output ""
}

@test "a group, by its topic name" {
	require_vectors
	run --separate-stderr tmq-dump -d "$VECTORS/root" -- --group--workers
	assert_success
	assert_stderr ""
	[ "${#lines[@]}" -eq 19 ]
	assert_line --index 0 '--group--workers/0-20261128_0.tmf:1 partition=0 offset=0 key=0 time=2026-11-28T12:00:00.000Z type=~~TWAIN~~COMMIT size=74/53 payload={"partition_offsets":[[0,0],[1,0],[2,0],[3,0],[4,0]]}'
	tmq-dump -J -d "$VECTORS/root" -- --group--workers >"$BATS_TEST_TMPDIR/g.jsonl"
	run compare_with_expected "$BATS_TEST_TMPDIR/g.jsonl" --group--workers
	assert_success
	assert_output "19 messages, 0 differ"
}

@test "an empty root, and topics without messages" {
	mkdir -p "$TMQ_ROOT"
	run --separate-stderr tmq-dump
	assert_success
	assert_output ""
	assert_stderr ""
	tmq-topic create -p 3 ev
	run --separate-stderr tmq-dump --verify
	assert_success
	# (each partition's empty file of the day, as tmq-topic info counts)
	assert_output "3 files, 0 lines, 0 corrupt"
	run --separate-stderr tmq-dump -J ev
	assert_success
	assert_output ""
}

@test "without operands, topics whose names begin with '.' are dumped and verified too" {
	tmq-topic create .hidden
	tmq-topic create alpha
	tmq-put .hidden secret
	tmq-put alpha open
	run --separate-stderr tmq-dump
	assert_success
	assert_line --index 0 --regexp '^\.hidden/0-[0-9]{8}_0\.tmf:1 partition=0 offset=0 .* payload=secret$'
	assert_line --index 1 --regexp '^alpha/0-[0-9]{8}_0\.tmf:1 partition=0 offset=0 .* payload=open$'
	run --separate-stderr tmq-dump --verify
	assert_success
	assert_output "2 files, 2 lines, 0 corrupt"
}

@test "-J and --verify together are a usage error" {
	run --separate-stderr tmq-dump -J --verify
	assert_usage_error tmq-dump "-J and --verify do not go together"
	run --separate-stderr tmq-dump --json -v -d /nonexistent typed
	assert_usage_error tmq-dump "-J and --verify do not go together"
	run --separate-stderr tmq-dump --bogus
	assert_usage_error tmq-dump "unrecognized option '--bogus'"
}

@test "no such topic or group" {
	require_vectors
	run --separate-stderr tmq-dump -d "$VECTORS/root" nope
	assert_fails_with "tmq-dump: nope: no such topic"
	assert_output ""
	run --separate-stderr tmq-dump -d "$VECTORS/root" -- --group--nope
	assert_fails_with "tmq-dump: nope: no such group"
	run --separate-stderr tmq-dump -d "$VECTORS/root" 'a b'
	assert_fails_with "tmq-dump: 'a b': bad topic name (use letters, digits, '_', '.' and '-')"
	# the topics that exist are still dumped, the exit status says one failed
	run --separate-stderr tmq-dump --verify -d "$VECTORS/root" nope one
	assert_fails_with "tmq-dump: nope: no such topic"
	assert_output "3 files, 84 lines, 0 corrupt"
}

@test "no root" {
	run --separate-stderr tmq-dump
	assert_fails_with "tmq-dump: $TMQ_ROOT: no such root (create a topic first, or use -d DIR)"
	run --separate-stderr tmq-dump ev
	assert_fails_with "tmq-dump: $TMQ_ROOT: no such root (create a topic first, or use -d DIR)"
}

@test "-h and -V" {
	run --separate-stderr tmq-dump -h
	assert_success
	assert_stderr ""
	assert_line --index 0 "usage: tmq-dump [-J | --verify [--repair]] [TOPIC | FILE]..."
	assert_line --partial -- "--repair"
	assert_line --partial -- "-J, --json"
	assert_line --partial -- "-v, --verify"
	run --separate-stderr tmq-dump -V
	assert_success
	assert_output --regexp '^tmq-dump \(tmq\) [0-9]+\.[0-9]+'
}

@test "every output path reports a write error on standard output, exit 1" {
	tmq-topic create ev
	tmq-put ev a b
	assert_write_error tmq-dump
	assert_write_error tmq-dump ev
	assert_write_error tmq-dump -J ev
	assert_write_error tmq-dump --verify
	assert_write_error tmq-dump "$TMQ_ROOT"/ev/0-*.tmf
	assert_write_error tmq-dump -h
	assert_write_error tmq-dump -V
	assert_write_error tmq-dump --completion-helper
}

@test "a path that is not in a root says what it is not, not 'no such topic'" {
	run --separate-stderr tmq-dump /etc/passwd
	assert_fails_with "tmq-dump: /etc/passwd: not a partition file (named PARTITION-YYYYMMDD_OFFSET.tmf)"
	run --separate-stderr tmq-dump /etc
	assert_fails_with "tmq-dump: /etc: not a topic directory of a tmq root (no /etc.twc)"
	tmq-topic create ev
	tmq-put ev a
	mkdir "$BATS_TEST_TMPDIR/loose"
	cp "$TMQ_ROOT"/ev/0-*.tmf "$BATS_TEST_TMPDIR/loose/"
	local f
	f=$(ls "$BATS_TEST_TMPDIR"/loose/0-*.tmf)
	run --separate-stderr tmq-dump "$f"
	assert_fails_with "tmq-dump: $f: not in a topic directory of a tmq root (no $BATS_TEST_TMPDIR/loose.twc)"
	# The same file in its topic directory is dumped.
	run --separate-stderr tmq-dump -J "$TMQ_ROOT"/ev/0-*.tmf
	assert_success
}

@test "tmq-dump escapes a key's spaces (and a type's), so that a line splits back into its fields at spaces" {
	tmq-topic create -k char8 ev
	tmq-put -k 'trail ' ev x
	tmq-put -k 'a b\c' ev y
	run --separate-stderr tmq-dump ev
	assert_success
	assert_line --index 0 --regexp '^ev/0-[0-9]{8}_0\.tmf:1 partition=0 offset=0 key=trail\\x20 time=[^ ]+ type=str size=25/1 payload=x$'
	assert_line --index 1 --regexp '^ev/0-[0-9]{8}_0\.tmf:2 partition=0 offset=1 key=a\\x20b\\\\c time=[^ ]+ type=str size=25/1 payload=y$'
	# Each line is eight fields, whatever the key.
	run bash -c "tmq-dump ev | awk '{ print NF }' | sort -u"
	assert_output 8
}

@test "tmq-dump --verify counts the files as tmq-topic info does, empty ones too" {
	tmq-topic create -p 3 ev
	tmq-put -k 1 ev a
	run --separate-stderr tmq-dump --verify ev
	assert_equal "$status $output" "0 3 files, 1 lines, 0 corrupt"
	run bash -c "tmq-topic info --json ev | python3 -c 'import json,sys; print(sum(len(p[\"files\"]) for p in json.load(sys.stdin)[\"partitions\"]))'"
	assert_output 3
}
