#!/usr/bin/env bats
# t0702-small-faults: the smaller faults of issue 34 (item 8), each
# injected: a delete killed at its very end, then run again; a stop signal
# during a read; a failed fdatasync under tmq-put --sync; ranges of NULs
# inside a partition file.
#
# Every test has a fresh root; background processes are ended in teardown.

load test_helper

# (test_helper: track)
teardown() {
	end_bg KILL
}

# kill_points CMD...: "SYSCALL N" for each call CMD makes (after its
# execve) of the calls that remove, rename or close, or end it: the kill
# points of a delete's end.
kill_points() {
	strace -f -qq -o "$BATS_TEST_TMPDIR/kp.trace" "$@" >/dev/null 2>&1
	awk '/execve\(/ { s = 1; next }
	    s { sub(/^[0-9]+ +/, "") }
	    s && /^(unlinkat|rmdir|unlink|renameat2?|rename|close|exit_group)\(/ {
		sub(/\(.*/, ""); print $0, ++n[$0] }' "$BATS_TEST_TMPDIR/kp.trace"
}

# killed_at SYSCALL N CMD...: run CMD, SIGKILLed as it makes its Nth call
# of SYSCALL.
killed_at() {
	local s=$1 n=$2
	shift 2
	# (strace ends itself with the signal, and so may the shell it
	# runs in: its status is no answer)
	(strace -f -qq -o /dev/null -e "inject=$s:signal=SIGKILL:when=$n" \
	    "$@" >/dev/null 2>&1; :) 2>/dev/null || :
}

root_holds() {
	(cd "$TMQ_ROOT" && LC_ALL=C ls -Ad -- * *+tmq/* 2>/dev/null | tr '\n' ' ')
}

# ------------------------------------------- a delete killed at its end

@test "tmq-topic delete SIGKILLed at each of its removals, renames and closes: a rerun finishes the clean-up, exit 0, quiet; only a kill after all was gone leaves nothing to tell" {
	local s n left out rc points=0 after=0
	require_strace
	tmq-topic create -p 2 ev
	tmq-put ev a b
	kill_points tmq-topic delete -y ev >"$BATS_TEST_TMPDIR/points"
	[ -s "$BATS_TEST_TMPDIR/points" ]
	while read -r s n; do
		rm -rf "$TMQ_ROOT"
		tmq-topic create -p 2 ev
		tmq-put ev a b
		killed_at "$s" "$n" tmq-topic delete -y ev
		points=$((points + 1))
		left=$(root_holds)
		rc=0
		out=$(tmq-topic delete -y ev 2>&1) || rc=$?
		if [ -z "$left" ]; then
			# The killed run had removed everything: its exit
			# status alone was lost, and there is nothing to finish.
			after=$((after + 1))
			[ "$rc" = 1 ] && [ "$out" = "tmq-topic: ev: no such topic" ] ||
			    fail "killed at $s #$n, nothing left, then delete: $rc $out"
			continue
		fi
		[ "$rc" = 0 ] && [ -z "$out" ] ||
		    fail "killed at $s #$n, root holds $left, then delete: $rc $out"
		[ -z "$(root_holds)" ] ||
		    fail "killed at $s #$n, root holds $left, then delete left $(root_holds)"
		[ "$(tmq-topic list)" = "" ]
	done <"$BATS_TEST_TMPDIR/points"
	echo "# $points kill points, $after after all was gone" >&3
	[ "$after" -lt "$points" ]
}

@test "tmq-group delete SIGKILLed at each of its removals, renames and closes: a rerun finishes the clean-up, exit 0, quiet" {
	local s n left out rc points=0
	require_strace
	tmq-topic create -p 2 ev
	tmq-put ev a b
	tmq-get -g G -P 0,1 ev >/dev/null
	kill_points tmq-group delete -y G >"$BATS_TEST_TMPDIR/points"
	[ -s "$BATS_TEST_TMPDIR/points" ]
	while read -r s n; do
		[ -d "$TMQ_ROOT/--group--G" ] || tmq-get -g G -P 0,1 ev >/dev/null
		killed_at "$s" "$n" tmq-group delete -y G
		points=$((points + 1))
		left=$(root_holds)
		rc=0
		out=$(tmq-group delete -y G 2>&1) || rc=$?
		if [ "$left" = "ev ev.twc " ]; then
			[ "$rc" = 1 ] && [ "$out" = "tmq-group: G: no such group" ] ||
			    fail "killed at $s #$n, nothing left, then delete: $rc $out"
			continue
		fi
		[ "$rc" = 0 ] && [ -z "$out" ] ||
		    fail "killed at $s #$n, root holds $left, then delete: $rc $out"
		assert_equal "$(root_holds)" "ev ev.twc "
		[ "$(tmq-group list | awk 'NR > 1')" = "" ]
	done <"$BATS_TEST_TMPDIR/points"
	echo "# $points kill points" >&3
}

# -------------------------------------------------- a stop during a read

messages_are() {	# messages_are N TOPIC
	[ "$(tmq-get "$2" | wc -l)" = "$1" ]
}

lines_are() {	# lines_are N FILE
	[ "$(wc -l <"$2")" = "$1" ]
}

# libfaketime, preloaded by hand (faketime(1) would stand between the
# tool and the signal).
libfaketime() {
	local f
	for f in /usr/lib/*/faketime/libfaketime.so.1 \
	    /usr/lib/faketime/libfaketime.so.1 \
	    /usr/local/lib/faketime/libfaketime.so.1; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

@test "SIGTERM to a member (tmq-get -g) just past midnight: its leave starts the group log's new day file, counting the last one, and the stop is no error: exit 0, the LEFT written" {
	local lib now mid pid rc=0 g=$TMQ_ROOT/--group--G
	lib=$(libfaketime) || skip "libfaketime is not installed"
	tmq-topic create -p 2 ev
	tmq-put ev x y
	# The member's clock: noon, then (once it has joined) just past the
	# next midnight.  A file it rereads at each look at the clock.
	now=$(date +%s)
	mid=$(((now / 86400 + 1) * 86400))
	echo "+$((mid - 43200 - now))" >"$BATS_TEST_TMPDIR/clock"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    LD_PRELOAD=$lib FAKETIME_TIMESTAMP_FILE=$BATS_TEST_TMPDIR/clock \
	    FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1 \
	    tmq-get -g G -f ev >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	track "$pid"
	wait_for lines_are 2 "$BATS_TEST_TMPDIR/out"
	# One day file of the group's log, the day before the rollover.
	run ls "$g"
	assert_output "0-$(date -u -d "@$((mid - 1))" +%Y%m%d)_0.tmf"
	echo "+$((mid + 5 - now))" >"$BATS_TEST_TMPDIR/clock"
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
	assert_equal "$rc" 0
	# The leave is in the new day's file: the group has no member.
	ls "$g" | grep -qx "0-$(date -u -d "@$mid" +%Y%m%d)_[0-9]*\.tmf"
	run tmq-group describe G
	assert_success
	assert_line --regexp '^members: +0$'
}

# ------------------------------------------ --sync, and fdatasync fails

@test "tmq-put --sync whose fdatasync fails: the error says which records were written and which of them may not be durable, exit 1" {
	local pid rc=0
	require_strace
	tmq-topic create -p 1 ev
	# One batch at a time: 1 to 5 (made durable), then 6 to 10, whose
	# fdatasync fails.
	mkfifo "$BATS_TEST_TMPDIR/in"
	strace -f -qq -o /dev/null -e inject=fdatasync:error=EIO:when=2 \
	    tmq-put --sync ev <"$BATS_TEST_TMPDIR/in" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	track "$pid"
	exec 5>"$BATS_TEST_TMPDIR/in"
	seq 1 5 >&5
	wait_for messages_are 5 ev
	seq 6 10 >&5
	exec 5>&-
	wait "$pid" || rc=$?
	assert_equal "$rc" 1
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" "tmq-put: ev: partition 0: fdatasync: Input/output error; records 1 to 10 were written, record 11 and later were not; records 6 to 10 may not be durable (fdatasync failed)"
	assert_equal "$(tmq-get ev | tr '\n' ' ')" "1 2 3 4 5 6 7 8 9 10 "
}

@test "tmq-put --sync, two partitions, the second fdatasync of a batch fails: the records of that partition may not be durable, the first one's are" {
	require_strace
	tmq-topic create -p 2 ev
	# Keys 0 and 1 go to partitions 0 and 1 (as the check below says);
	# a batch's partitions are made durable in the order of their first
	# records: 0, then 1, whose fdatasync fails.
	run --separate-stderr strace -f -qq -o /dev/null \
	    -e inject=fdatasync:error=EIO:when=2 \
	    tmq-put --sync -K: ev 0:a 0:b 1:c 0:d 1:e
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: partition 1: fdatasync: Input/output error; messages 1 to 5 were written, message 6 and later were not; messages 3 to 5 may not be durable (fdatasync failed)"
	assert_equal "$(tmq-get -F '%p %k %s\n' ev | sort | tr '\n' ' ')" "0 0 a 0 0 b 0 0 d 1 1 c 1 1 e "
}

# ------------------------------------------- what the format cannot see

@test "a flipped base85 digit that still decodes gives another key or time, unseen by tmq-dump --verify, as tmq-format(5) and tmq(7) say; one out of the alphabet is found" {
	local f was
	tmq-topic create -p 1 ev
	tmq-put -k 5 ev hello
	f=$(echo "$TMQ_ROOT"/ev/*.tmf)
	cp "$f" "$BATS_TEST_TMPDIR/orig"
	# The key (3 digits for u16): its second digit one up.
	[ "$(head -c 3 "$f")" = 00j ]
	sed -i '1s/^00j/01j/' "$f"
	run tmq-get -F '%k %s\n' ev
	assert_success
	assert_output '14 hello'
	run tmq-dump --verify ev
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt'
	# The time: a digit of its second group.
	cp "$BATS_TEST_TMPDIR/orig" "$f"
	was=$(tmq-dump -J ev)
	sed -i '1s/^\(.\{11\}\)./\1p/' "$f"
	run tmq-dump --verify ev
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt'
	[ "$(tmq-dump -J ev)" != "$was" ]
	[ "$(tmq-get -F '%k %s\n' ev)" = '5 hello' ]
	# A character outside the alphabet is found.
	cp "$BATS_TEST_TMPDIR/orig" "$f"
	sed -i '1s/^00j/00,/' "$f"
	run --separate-stderr tmq-dump --verify ev
	assert_failure 1
	assert_stderr "tmq-dump: ev/${f##*/}:1: partition 0 offset 0: bad base85 in the key"
	# The pages say what the format does not detect, and what --verify
	# cannot find.
	grep -q '^\.Ss What the format does not detect$' "$BATS_TEST_DIRNAME/../man/tmq-format.5"
	grep -q '^It cannot find a line that decodes' "$BATS_TEST_DIRNAME/../man/tmq-format.5"
	grep -q '^No line carries a checksum' "$BATS_TEST_DIRNAME/../man/tmq.7"
	grep -q '^What it cannot find is a line that still decodes' "$BATS_TEST_DIRNAME/../man/tmq-dump.1"
}

# ------------------------------------------------ NUL ranges in a file

@test "a range of a file zeroed after it was indexed (a punched hole over its lines): info, list, the metrics and describe count its lines as tmq-dump reads them, and say the holes" {
	local f size at n out
	tmq-topic create -p 1 ev
	seq 1 50000 | tmq-put ev
	f=$(echo "$TMQ_ROOT"/ev/*.tmf)
	# Counted once: the index beside it has its records.
	tmq-topic info ev >/dev/null
	[ -n "$(ls "$TMQ_ROOT/ev/.tmq/")" ]
	size=$(stat -c %s "$f")
	at=$(((size / 2 + 4095) / 4096 * 4096))
	fallocate --punch-hole --offset "$at" --length 8192 "$f" 2>/dev/null ||
	    skip "the filesystem cannot punch holes"
	[ "$(du -k "$f" | cut -f 1)" -lt $((size / 1024)) ] ||
	    skip "the filesystem keeps no holes"
	# What a reader from the first byte finds: fewer lines, one of
	# them holding the holes.
	run --separate-stderr tmq-dump ev
	assert_failure 1
	n=${#lines[@]}
	# (each line it could not read is said once, by its offset; the
	# index, refused as the file was written to in place, is said too)
	out=$(echo "$stderr" | grep -c ' offset [0-9]*: ') || :
	n=$((n + out))
	[ "$n" -lt 50000 ]
	run --separate-stderr tmq-topic info --json ev
	assert_failure 1
	assert_equal "$(python3 -c 'import json, sys; print(json.load(sys.stdin)["partitions"][0]["end"])' <<<"$output")" "$n"
	assert_stderr "tmq-topic: ev: partition 0: ${f##*/}: 8192 bytes of holes at byte $at skipped"
	run --separate-stderr tmq-topic list -l
	assert_line --regexp "^ev +u16 +1 +$n "
	run --separate-stderr tmq-topic list --prometheus
	assert_line "tmq_partition_end_offset{topic=\"ev\",partition=\"0\"} $n"
	tmq-get -g G ev >/dev/null 2>&1 || :
	run --separate-stderr tmq-group describe G
	assert_line --regexp "^0 +[0-9]+ +$n +[0-9]+ +-$"
}
