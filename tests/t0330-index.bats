#!/usr/bin/env bats
# t0330-index: the sparse index beside each partition file (tmq-format(5),
# "Files of tmq's own").  Every answer with the index is the one a full
# scan gives (TMQ_INDEX=off, and the lines counted from a full read):
# offsets, the last N, times with producers' clocks skewed, --until, the
# ends behind info, list, describe and both metrics outputs, a member's
# resume, reset --to, over several day files, a partition without a file,
# a file appended to after it was indexed.  Once a pass has made the
# index, each of those looks reads at most 4 MiB of a root of 13 MB.
# Indexes planted by a co-user (random bytes, a FIFO, a symbolic link,
# another user's with every line number shifted, one its group may write)
# change no answer, hang nothing and are said once; a reader that cannot
# write the root reads correctly without one; tmq-dump --verify finds a
# wrong index and makes it again; prune and delete leave no index behind
# for a file that is gone.

load test_helper

teardown() {
	if [ -f "$BATS_TEST_TMPDIR/.shared" ]; then
		rm -rf "$(cat "$BATS_TEST_TMPDIR/.shared")"
	fi
}

# A clock for a producer (faketime; ASan wants to be preloaded first).
clocked() {	# clocked 'YYYY-MM-DD HH:MM:SS' COMMAND...
	local at=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    TZ=UTC faketime "$at" "$@"
}

# gen FROM COUNT T0: COUNT records of about 100 bytes as JSON, keys
# spread over the partitions, timestamps from T0 on, 0.7 s apart, every
# other 5000 of them from a producer whose clock is 30 minutes behind.
gen() {
	awk -v from="$1" -v n="$2" -v t0="$3" 'BEGIN {
		for (i = from; i < from + n; i++) {
			sk = (int(i / 5000) % 2) ? -1800 : 0
			printf "{\"key\":%d,\"timestamp\":%.6f,\"payload\":\"message %08d abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\"}\n", i % 65536, t0 + i * 0.7 + sk, i
		}
	}'
}

# big: topic big, 2 partitions, 150,000 records (13 MB): 50,000 on a
# day file of 2026-11-20 when faketime is there, the rest on today's.
big() {
	if command -v faketime >/dev/null; then
		clocked '2026-11-20 12:00:00' tmq-topic create -p 2 big
		gen 0 50000 1795600000 | clocked '2026-11-20 12:00:00' \
		    tmq-put -J --keep-time big
	else
		tmq-topic create -p 2 big
		gen 0 50000 1795600000 | tmq-put -J --keep-time big
	fi
	gen 50000 100000 1795600000 | tmq-put -J --keep-time big
}

# same COMMAND...: what COMMAND prints, and its status, with the index
# are what it prints without one (TMQ_INDEX=off: a scan from each file's
# first byte).
same() {
	local a b sa=0 sb=0
	# (but for the time of a --prometheus scrape)
	a=$("$@" 2>&1 | sed '/^tmq_scrape_timestamp_seconds/d'; exit "${PIPESTATUS[0]}") || sa=$?
	b=$(TMQ_INDEX=off "$@" 2>&1 | sed '/^tmq_scrape_timestamp_seconds/d'; exit "${PIPESTATUS[0]}") || sb=$?
	if [ "$a" != "$b" ] || [ "$sa" != "$sb" ]; then
		echo "with the index ($sa) and without ($sb), $* differ:" >&2
		diff <(echo "$b") <(echo "$a") | head -5 >&2
		return 1
	fi
}

idx() {	# idx P: the index of partition P's newest file
	local f
	f=$(cd "$TMQ_ROOT/big" && ls [0-9]*.tmf | grep "^$1-" | tail -1)
	echo "$TMQ_ROOT/big/.tmq/${f%.tmf}.$(id -u).idx"
}

@test "index: made by the first pass, under 0.1% of the data, writable by its user only" {
	big
	[ ! -e "$TMQ_ROOT/big/.tmq" ] || ls -la "$TMQ_ROOT/big/.tmq"
	tmq-topic info big >/dev/null
	run ls "$TMQ_ROOT/big/.tmq"
	assert_success
	[ "${#lines[@]}" -ge 2 ]
	data=$(cat "$TMQ_ROOT"/big/*.tmf | wc -c)
	ix=$(cat "$TMQ_ROOT"/big/.tmq/*.idx | wc -c)
	[ $((ix * 1000)) -lt "$data" ]
	for f in "$TMQ_ROOT"/big/.tmq/*.idx; do
		[ "$(stat -c %a "$f")" = 644 ]
	done
}

@test "index: seeks by offset and the last N land where a full read counts them, on every day file" {
	big
	tmq-get -F '%p %o %u %s\n' big >"$BATS_TEST_TMPDIR/all"
	tmq-topic info big >/dev/null		# makes the index
	for p in 0 1; do
		grep "^$p " "$BATS_TEST_TMPDIR/all" >"$BATS_TEST_TMPDIR/p$p"
		n=$(wc -l <"$BATS_TEST_TMPDIR/p$p")
		for o in 0 1 4999 25000 49000 60001 $((n - 2)) $((n - 1)) \
		    $((RANDOM * 2)) $((RANDOM * 2)); do
			[ "$o" -lt "$n" ] || continue
			run tmq-get -P "$p" -o "$o" -n 2 -F '%p %o %u %s\n' big
			assert_success
			assert_output "$(sed -n "$((o + 1)),$((o + 2))p" "$BATS_TEST_TMPDIR/p$p")"
		done
		for k in 1 3 1000 70000; do
			run tmq-get -P "$p" -o "-$k" -F '%p %o %u %s\n' big
			assert_success
			assert_output "$(tail -n "$k" "$BATS_TEST_TMPDIR/p$p")"
		done
		run tmq-get -P "$p" -o "$n" -n 1 big
		assert_success
		assert_output ''
	done
	[ "$(ls "$TMQ_ROOT"/big/*.tmf | wc -l)" -ge 2 ] ||
	    command -v faketime >/dev/null || skip "one day file only: faketime is not installed"
	[ "$(ls "$TMQ_ROOT"/big/*.tmf | wc -l)" -ge 4 ]
}

@test "index: seeks by time (clocks 30 minutes apart) and --until find what a full scan finds" {
	big
	tmq-topic info big >/dev/null
	for t in 1795600000 1795600000.7 1795610000.35 1795630001 1795650000 \
	    1795660000 1795669999.3 1795670000 1795700000; do
		same tmq-get -o "@$t" -n 3 -F '%p %o %u\n' big
		same tmq-get -P 1 -o "@$t" -n 1 -F '%p %o %u\n' big
		same tmq-get -P 0 -o 40000 --until "@$t" -F '%p %o\n' big
	done
}

@test "index: info, list -l, describe, --max-lag and both --prometheus outputs are a full scan's" {
	big
	tmq-topic create -p 2 small
	tmq-put small x			# a partition with no file yet
	tmq-get -g G -n 120000 --commit big >/dev/null
	tmq-topic info big >/dev/null
	same tmq-topic info big
	same tmq-topic info small
	same tmq-topic list -l
	same tmq-topic list --prometheus
	same tmq-group describe G
	same tmq-group describe G --max-lag 10
	same tmq-group list --prometheus
}

@test "index: once made, each look reads at most 4 MiB of 13 MB (and a full scan reads more)" {
	big
	tmq-get -g G -n 149000 --commit big >/dev/null
	t=$(tmq-get -P 0 -o -1 -F '%u' big)
	tmq-topic info big >/dev/null
	lim=$((4 * 1024 * 1024))
	read_at_most $lim tmq-topic info big
	[ "$status" -eq 0 ]
	read_at_most $lim tmq-topic list -l
	read_at_most $lim tmq-topic list --prometheus
	read_at_most $lim tmq-get -P 0 -o 70000 -n 1 big
	[ "$status" -eq 0 ] && [ -s "$BATS_TEST_TMPDIR/out" ]
	read_at_most $lim tmq-get -o -1 big
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq 2 ]
	read_at_most $lim tmq-get -P 0 -o "@$t" -n 1 big
	[ -s "$BATS_TEST_TMPDIR/out" ]
	read_at_most $lim tmq-get -g G -n 10 big
	[ "$status" -eq 0 ] && [ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq 10 ]
	read_at_most $lim tmq-group describe G
	read_at_most $lim tmq-group list --prometheus
	read_at_most $lim tmq-group reset G --to "@$t" --dry-run
	[ "$status" -eq 0 ]
	# The bound means something: without the index it is passed.
	export TMQ_INDEX=off
	! read_at_most $lim tmq-topic info big 2>/dev/null
	! read_at_most $lim tmq-get -o -1 big 2>/dev/null
}

@test "index: a group member resumes and reset --to finds the offsets a full scan finds" {
	big
	tmq-get -g G -n 100000 --commit big >/dev/null
	tmq-topic info big >/dev/null
	run tmq-get -g G -n 5 -F '%p %o\n' big
	assert_success
	first=$output
	run env TMQ_INDEX=off tmq-get -g G -n 5 -F '%p %o\n' big
	assert_output "$first"
	for t in 1795600000.7 1795650000 1795669999.3; do
		same tmq-group reset G --to "@$t" --dry-run
	done
}

@test "index: a file appended to after it was indexed" {
	big
	tmq-topic info big >/dev/null
	gen 150000 20000 1795700000 | tmq-put -J --keep-time big
	same tmq-topic info big
	same tmq-get -o -5 -F '%p %o %s\n' big
	same tmq-get -o @1795705000 -n 4 -F '%p %o %s\n' big
	same tmq-get -P 1 -o 80000 -n 4 -F '%p %o %s\n' big
}

# plant WHAT: put a hostile index in partition 0's slot.
plant() {
	local f
	f=$(idx 0)
	rm -f "$f"
	case $1 in
	random) head -c 5000 /dev/urandom >"$f" ;;
	fifo) mkfifo "$f" ;;
	symlink) ln -s "../$(basename "${f%.*.idx}").tmf" "$f" ;;
	group) cp "$BATS_TEST_TMPDIR/good" "$f"; chmod 664 "$f" ;;
	shifted)
		# Every line number one more, each record sealed again:
		# consistent, and false.
		cp "$BATS_TEST_TMPDIR/good" "$f"
		"$TMQ_BIN"/../tests/pidx-forge "$f" | while read -r k line _; do
			"$TMQ_BIN"/../tests/pidx-forge "$f" "$k" line $((line + 1))
		done
		chown 65534 "$f" ;;
	esac
}

@test "index: planted indexes change no answer, hang nothing, and are said once" {
	[ -x "$TMQ_BIN/../tests/pidx-forge" ] || skip "tests/pidx-forge is not built"
	big
	tmq-topic info big >/dev/null
	cp "$(idx 0)" "$BATS_TEST_TMPDIR/good"
	name=$(basename "$(idx 0)")
	for what in random fifo symlink group shifted; do
		[ "$what" != shifted ] || [ "$(id -u)" -eq 0 ] || continue
		plant "$what"
		run --separate-stderr timeout 60 tmq-get -P 0 -o 70000 -n 2 -F '%o %s\n' big
		assert_success
		assert_output "$(TMQ_INDEX=off tmq-get -P 0 -o 70000 -n 2 -F '%o %s\n' big)"
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "tmq-get: big: .tmq/$name refused ("*"): the file is read without it" ]]
		plant "$what"
		run --separate-stderr timeout 60 tmq-get -P 0 -o @1795660000 -n 2 -F '%o\n' big
		assert_success
		assert_output "$(TMQ_INDEX=off tmq-get -P 0 -o @1795660000 -n 2 -F '%o\n' big)"
		plant "$what"
		run --separate-stderr timeout 60 tmq-topic info big
		assert_success
		[ "${#stderr_lines[@]}" -eq 1 ]
		assert_output "$(TMQ_INDEX=off tmq-topic info big)"
	done
	# Made again, this user's, and right.
	[ "$(stat -c %u "$(idx 0)")" -eq "$(id -u)" ]
	run --separate-stderr tmq-dump --verify big
	assert_success
	assert_output --regexp '^[0-9]+ files, 150000 lines, 0 corrupt$'
	assert_equal "$stderr" ''
}

@test "index: a reader that cannot write the root reads correctly without one, saying nothing" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run as another user"
	command -v runuser >/dev/null || skip "runuser is missing"
	# A root and the tools where another user can reach them (the
	# test's directory may be its owner's only).
	SHARED=$(mktemp -d /tmp/tmq-index.XXXXXX)
	echo "$SHARED" >"$BATS_TEST_TMPDIR/.shared"
	chmod 755 "$SHARED"
	TMQ_ROOT=$SHARED/root
	big
	cp "$TMQ_BIN"/tmq-get "$TMQ_BIN"/tmq-topic "$SHARED/"
	chmod 755 "$SHARED"/tmq-*
	as_nobody() {
		runuser -u nobody -- env TMQ_ROOT="$TMQ_ROOT" \
		    ASAN_OPTIONS="${ASAN_OPTIONS-}" "$@"
	}
	run --separate-stderr as_nobody "$SHARED/tmq-get" -P 1 -o 70000 -n 2 -F '%o %s\n' big
	assert_success
	assert_output "$(tmq-get -P 1 -o 70000 -n 2 -F '%o %s\n' big)"
	assert_equal "$stderr" ''
	run --separate-stderr as_nobody "$SHARED/tmq-topic" info big
	assert_success
	assert_output "$(TMQ_INDEX=off tmq-topic info big)"
	assert_equal "$stderr" ''
	run ls "$TMQ_ROOT/big/.tmq"
	refute_output --partial ".$(id -u nobody).idx"
}

@test "index: tmq-dump --verify reports a wrong index and makes it again" {
	[ -x "$TMQ_BIN/../tests/pidx-forge" ] || skip "tests/pidx-forge is not built"
	big
	tmq-topic info big >/dev/null
	f=$(idx 1)
	# A latest time that is not the file's, sealed again: every check
	# a reader makes on use passes.
	# (record 2's: still in order)
	m=$("$TMQ_BIN"/../tests/pidx-forge "$f" | awk '$1 == 2 { print $4 }')
	"$TMQ_BIN"/../tests/pidx-forge "$f" 3 maxts "$m"
	run --separate-stderr tmq-dump --verify big
	assert_failure
	assert_output --regexp ', [0-9]+ indexes, 1 wrong$'
	[[ $stderr == *"tmq-dump: big/.tmq/$(basename "$f"): wrong index: record 3 says "*"(made again)" ]]
	run --separate-stderr tmq-dump --verify big
	assert_success
	assert_output --regexp '^[0-9]+ files, 150000 lines, 0 corrupt$'
	assert_equal "$stderr" ''
}

@test "index: prune removes the indexes of the files it removes, delete all of them" {
	command -v faketime >/dev/null || skip "faketime is not installed"
	big
	tmq-topic info big >/dev/null
	run ls "$TMQ_ROOT/big/.tmq"
	assert_output --partial "0-20261120_0.$(id -u).idx"
	tmq-topic prune big --before 2026-11-21
	run ls "$TMQ_ROOT/big/.tmq"
	refute_output --partial 20261120
	[ "${#lines[@]}" -eq 2 ]
	same tmq-topic info big
	same tmq-get -o 60000 -n 2 -F '%p %o\n' big
	tmq-topic delete -y big
	[ ! -e "$TMQ_ROOT/big" ]
}

@test "index: the TwainMQ library reads a root with indexes as before" {
	require_ref
	big
	tmq-get -o -1 big >/dev/null
	ls "$TMQ_ROOT"/big/.tmq/*.idx >/dev/null
	run python3 - "$TMQ_ROOT" big <<'EOF2'
import sys, twainmq
c = twainmq.Twain(sys.argv[1]).consumer(sys.argv[2], start_from="start")
n = 0
while c.poll() is not None:
    n += 1
print(n)
EOF2
	assert_success
	assert_output 150000
}
