#!/usr/bin/env bats
# t0711-co-user-costs: what a co-user of a shared root can make another
# user's commands print and spend (tmq(7), "Sharing a root").  Type names
# a definition declares reach a terminal and -J only when they are names
# (no control character, valid UTF-8); a planted line inflates to at most
# TMQ_PAYLOAD_MAX, and a reader's batch keeps a bounded number of bytes of
# them, not a payload for each of its 512 lines; a definition declares at
# most 65,536 partitions, and a declared partition costs a reader about
# 1 KB, not a buffer.  Each attack is run by one Unix user against
# another's commands, whose peak memory and CPU are measured against the
# attacker's bytes.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

# What a test made, undone whatever happened (test_helper's undo_all).
teardown() {
	undo_all
}

# Two Unix users in one fresh group (U1 the attacker, U2 the victim), and
# their root, SHARED/root, writable by the group (as tests/t0720-shared-root
# makes it).
two_users() {
	shared_users
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
}

# as USER COMMAND: run COMMAND (a shell line) as USER in the shared root.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env PATH="$SHARED/bin:/usr/bin:/bin" TMQ_ROOT="$SHARED/root" \
	    ASAN_OPTIONS="${ASAN_OPTIONS-}" sh -c "umask 022; cd /; $*"
}

# cost USER COMMAND: run COMMAND as USER, stdout into out, stderr into
# err; status into $status, its peak memory (KiB) into $kib and its CPU
# time (user and system, seconds) into $cpu.
cost() {
	local u=$1
	shift
	[ -x /usr/bin/time ] || skip "/usr/bin/time not found"
	status=0
	: >"$SHARED/cost"
	chmod 666 "$SHARED/cost"
	as "$u" "/usr/bin/time -f '%M %U %S' -o $SHARED/cost $*" >out 2>err ||
	    status=$?
	read -r kib u s <<<"$(tail -n 1 "$SHARED/cost")"
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

# at_most WHAT GOT MAX: fail saying so when GOT > MAX.
at_most() {
	if awk -v g="$2" -v m="$3" 'BEGIN { exit !(g > m) }'; then
		fail "$1: $2, more than $3"
	fi
}

# kib_at_most WHAT MAX: $kib (from cost) is at most MAX, in a plain build;
# under sanitizers (TMQ_SANITIZED, test_helper) a note of it instead.
kib_at_most() {
	if [ -n "$TMQ_SANITIZED" ]; then
		echo "# $1: $kib KiB under sanitizers (bound of $2 KiB not asserted)" >&3
		return 0
	fi
	at_most "$1: peak KiB" "$kib" "$2"
}

# The day file tmq-put starts today for partition 0.
today_file() {
	printf '0-%s_0.tmf' "$(date -u +%Y%m%d)"
}

# ------------------------------------------------------------ type names

# plant_types TOPIC JSON: the attacker U1 makes TOPIC with type A, puts a
# message of it, then replaces the definition with one whose
# message_types is JSON (given as Python bytes).
plant_types() {
	as "$U1" "tmq-topic create -t A $1 && tmq-put -T A $1 '{\"x\": 1}'" ||
	    fail "cannot make $1"
	as "$U1" "python3 -c 'import sys; open(sys.argv[1], \"wb\").write(b\"{\\\"key_width\\\": 2, \\\"partitions\\\": 1, \\\"message_types\\\": \" + $2 + b\"}\")' \$TMQ_ROOT/$1.twc" ||
	    fail "cannot plant $1.twc"
}

# valid_utf8 FILE: python3 reads FILE as UTF-8.
valid_utf8() {
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1"
}

@test "a co-user's type name with terminal escapes or invalid UTF-8 is refused when read, said escaped, and reaches neither -F %y nor -J" {
	two_users
	# Retitles the window and clears the screen, printed as it is.
	plant_types esc 'b"{\"\x1b]0;owned\x07\x1b[2J\": 0}"'
	run --separate-stderr as "$U2" "tmq-get -F '%y\n' esc"
	[[ $output != *$'\e'* ]] || fail "an escape reached the terminal: $(printf %q "$output")"
	assert_equal "$stderr" "tmq-get: esc: corrupt esc.twc: '\\x1b]0;owned\\x07\\x1b[2J': bad type name (control character U+001B)"
	assert_equal "$status" 1
	run --separate-stderr as "$U2" "tmq-get -J esc"
	[[ $output != *$'\e'* ]] || fail "an escape reached -J"
	assert_equal "$status" 1
	# Not UTF-8: "type" would be an invalid JSON string.
	plant_types bad 'b"{\"\xff\xfeA\": 0}"'
	as "$U2" "tmq-get -J bad" >out 2>err || status=$?
	valid_utf8 out || fail "-J printed invalid UTF-8: $(od -c out | head -3)"
	assert_equal "$status" 1
	assert_equal "$(cat err)" "tmq-get: bad: corrupt bad.twc: '\\xff\\xfeA': bad type name (not valid UTF-8)"
	run --separate-stderr as "$U2" "tmq-get -F '%y\n' bad"
	assert_equal "$stderr" "tmq-get: bad: corrupt bad.twc: '\\xff\\xfeA': bad type name (not valid UTF-8)"
	assert_equal "$status" 1
	# A bidirectional override reorders what a terminal shows.
	plant_types bidi 'b"{\"A\xe2\x80\xaeB\": 0}"'
	run --separate-stderr as "$U2" "tmq-dump bidi"
	assert_equal "$stderr" "tmq-dump: bidi: corrupt bidi.twc: 'A\\xe2\\x80\\xaeB': bad type name (control character U+202E)"
	assert_equal "$status" 1
	# The attacker's own topics are the victim's to list, as they were.
	run --separate-stderr as "$U2" "tmq-topic list"
	assert_success
	assert_output $'bad\nbidi\nesc'
}

@test "create refuses type names that are not names, and takes any Python identifier (Unicode ones too) and the groups' ~~TWAIN~~ types" {
	run --separate-stderr tmq-topic create -t "$(printf 'A\033[2J')" t
	assert_fails_with "tmq-topic: 'A\\x1b[2J': bad type name (control character U+001B)"
	run --separate-stderr tmq-topic create -t "$(printf 'A\377')" t
	assert_fails_with "tmq-topic: 'A\\xff': bad type name (not valid UTF-8)"
	run --separate-stderr tmq-topic create -t "$(printf 'A\302\205')" t
	assert_fails_with "tmq-topic: 'A\\xc2\\x85': bad type name (control character U+0085)"
	run --separate-stderr tmq-topic create -t "$(printf '%0256d' 0)" t
	assert_fails_with "tmq-topic: '$(printf '%064d' 0)...': type name too long (256 bytes, at most 255)"
	[ ! -e "$TMQ_ROOT/t.twc" ]
	run --separate-stderr tmq-topic create -t "Événement,~~TWAIN~~X,$(printf '%0255d' 0)" t
	assert_success
	tmq-put -T Événement t '{"a": 1}'
	run --separate-stderr tmq-get -F '%y\n' t
	assert_success
	assert_output Événement
}

# ------------------------------------------------------------ inflating

# plant_inflating FILE N: append N lines of 4,096 bytes (newline included),
# each a text payload of as many "a" as fit: 3,351,488 bytes.
plant_inflating() {
	python3 - "$@" <<'EOF'
import base64, struct, sys, zlib
path, count = sys.argv[1], int(sys.argv[2])
def line(n):
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = z.compress(b"a" * n) + z.flush()
    return (base64.b85encode(b"\0\1") + base64.b85encode(struct.pack(">d", 1795597320.0))
            + base64.b85encode(body) + b"\n")
lo, hi = 1, 4 << 20
while lo < hi:
    mid = (lo + hi + 1) // 2
    if len(line(mid)) <= 4096:
        lo = mid
    else:
        hi = mid - 1
assert lo == 3351488 and len(line(lo)) == 4096, lo
with open(path, "ab") as f:
    f.write(line(lo) * count)
EOF
}

@test "2 MiB of planted lines that each inflate to 3.35 MB cost a victim's tmq-get -n 1, and a group member, bounded memory and CPU, not a payload for each line of a batch" {
	two_users
	as "$U1" "tmq-topic create -p 1 ev" || fail "cannot create ev"
	# The attacker writes the lines itself: 512 of them, one batch.
	plant_inflating "$BATS_TEST_TMPDIR/lines" 512
	as "$U1" "cat >>\$TMQ_ROOT/ev/$(today_file)" <"$BATS_TEST_TMPDIR/lines"
	run stat -c %s "$SHARED/root/ev/$(today_file)"
	assert_output 2097152
	# (Before: 1.69 GB and 8 to 16 s of CPU for one message.)
	cost "$U2" tmq-get -n 1 -F "'%o %S\n'" ev
	assert_equal "$status $(cat out) $(cat err)" "0 0 3351488 "
	kib_at_most "tmq-get -n 1" 65536
	at_most "tmq-get -n 1: CPU seconds" "$cpu" 2
	cost "$U2" tmq-get -g G --window 1 -n 1 -F "'%o %S\n'" ev
	assert_equal "$status $(cat out) $(cat err)" "0 0 3351488 "
	kib_at_most "tmq-get -g G -n 1" 65536
	at_most "tmq-get -g G -n 1: CPU seconds" "$cpu" 2
	# Read on past what one batch keeps: every line, in order, and the
	# same bound (what the reading costs in CPU is the inflating itself).
	cost "$U2" tmq-get -n 40 -F "'%o %S\n'" ev
	assert_equal "$status $(cat err)" "0 "
	assert_equal "$(cat out)" "$(seq 0 39 | sed 's/$/ 3351488/')"
	kib_at_most "tmq-get -n 40" 65536
}

# ------------------------------------------------------------ partitions

@test "a planted 34-byte definition of 65,536 partitions costs a victim's reads what a partition's reader is, not a buffer each; one of more is refused, saying the bound" {
	two_users
	as "$U1" "mkdir \$TMQ_ROOT/big && printf '{\"key_width\":2,\"partitions\":65536}' >\$TMQ_ROOT/big.twc"
	run stat -c %s "$SHARED/root/big.twc"
	assert_output 34
	# (Before: 334 MB; a partition's reader is about 1 KB.)
	cost "$U2" tmq-get -n 1 big
	assert_equal "$status $(cat out) $(cat err)" "0  "
	kib_at_most "tmq-get -n 1 of 65,536 declared partitions" 131072
	cost "$U2" tmq-get -F "'%p\n'" big
	assert_equal "$status $(cat out) $(cat err)" "0  "
	kib_at_most "tmq-get of 65,536 declared partitions" 131072
	as "$U1" "printf '{\"key_width\":2,\"partitions\":65537}' >\$TMQ_ROOT/big.twc"
	run --separate-stderr as "$U2" "tmq-get -n 1 big"
	assert_fails_with "tmq-get: big: corrupt big.twc: bad partitions 65537 (1 to 65536)"
	run --separate-stderr as "$U2" "tmq-dump big"
	assert_fails_with "tmq-dump: big: corrupt big.twc: bad partitions 65537 (1 to 65536)"
}
