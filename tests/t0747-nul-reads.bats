#!/usr/bin/env bats
# t0747-nul-reads.bats: NUL bytes that a shared filesystem's client
# returns where its file holds lines are not data (issue 36; CephFS's
# ceph-fuse did it: the size covered the bytes, SEEK_HOLE said data, a
# later read held the lines).  tests/nulshim.so makes it happen once: one
# read of a partition file's tail (or the group log's) has its middle
# lines turned to NULs, and the root is made to look like FUSE's.  Every
# reader (once through, a follower, a group member) reads again and
# prints every record at its right offset.  On a local disk a NUL is the
# file's at once: a corrupt line, as before.

load test_helper

# Built where the tools are (the build tree, which in make distcheck is not
# the source tree).
SHIM=${TMQ_BIN:?}/../tests/nulshim.so

setup() {
	export TMQ_ROOT="$BATS_TEST_TMPDIR/root"
	unset XDG_DATA_HOME
	[ -f "$SHIM" ] || skip "tests/nulshim.so is not built (make tests/nulshim.so)"
	tmq-topic create -p 1 ev
	seq 1 300 | sed 's/^/record-/' | tmq-put ev
	MARK=$BATS_TEST_TMPDIR/mark
}

teardown() {
	end_bg
}

# want FROM TO: the lines "OFFSET record-N" tmq-get -F '%o %s\n' prints
# for offsets FROM to TO - 1, made without tmq.
want() {
	awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i < b; i++)
	    printf "%d record-%d\n", i, i + 1 }'
}

# has_lines FILE N: FILE holds N lines or more.
has_lines() {
	[ "$(wc -l <"$1")" -ge "$2" ]
}

# shimmed FILE COMMAND...: COMMAND with the shim spoiling one read of the
# files whose path holds FILE, on a root taken for FUSE's (NULSHIM_FUSE,
# unless set otherwise).  It execs: run and start_bg call it in a
# subshell of their own, and a follower's signal must reach tmq-get.
shimmed() {
	local file=$1
	shift
	exec env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    LD_PRELOAD="$SHIM" NULSHIM_FILE="$file" NULSHIM_MARK="$MARK" \
	    NULSHIM_FUSE="${NULSHIM_FUSE-1}" "$@"
}

# nul_line_100 FILE: line 101 (offset 100) of FILE made NULs, its newline
# kept.
nul_line_100() {
	/usr/bin/python3 - "$1" <<-'EOF'
	import sys
	p = sys.argv[1]
	b = bytearray(open(p, 'rb').read())
	s = 0
	for _ in range(100):
	    s = b.index(b'\n', s) + 1
	e = b.index(b'\n', s)
	b[s:e] = bytes(e - s)
	open(p, 'r+b').write(b)
	EOF
}

@test "a once-through tmq-get on a shared filesystem reads NULs from its client again: every record, its offset right, nothing said" {
	run --separate-stderr shimmed ev/ tmq-get -F '%o %s\n' ev
	[ -f "$MARK" ]
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$(want 0 300)"
}

@test "the same through the page cache (TMQ_READ=cached): read() brought the NULs, the cache of them is dropped and read again" {
	TMQ_READ=cached run --separate-stderr shimmed ev/ tmq-get -F '%o %s\n' ev
	[ -f "$MARK" ]
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$(want 0 300)"
}

@test "a follower (tmq-get -f) meets NULs in what was just appended: every record at its offset, nothing said" {
	local size
	size=$(cat "$TMQ_ROOT"/ev/*.tmf | wc -c)
	NULSHIM_FROM=$size start_bg f shimmed ev/ tmq-get -f -F '%o %s\n' ev
	wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 300
	seq 301 400 | sed 's/^/record-/' | tmq-put ev
	wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 400
	[ -f "$MARK" ]
	# (The NULs were in the new records: after byte $size.)
	[ "$(cut -d' ' -f1 "$MARK")" -ge "$size" ]
	stop_bg f
	assert_equal "$(cat "$BATS_TEST_TMPDIR/f.out")" "$(want 0 400)"
}

@test "a follower meets NULs that stay for 3 s, past the re-reads (a writer's client that flushes late): it waits for the records, each at its offset, nothing said" {
	local size
	size=$(cat "$TMQ_ROOT"/ev/*.tmf | wc -c)
	NULSHIM_FROM=$size NULSHIM_HOLD_MS=3000 start_bg f shimmed ev/ \
	    tmq-get -f -F '%o %s\n' ev
	wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 300
	seq 301 400 | sed 's/^/record-/' | tmq-put ev
	wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 400
	# It read them as NULs again after the first second of re-reads.
	run grep -c again "$MARK"
	assert_success
	[ "$output" -ge 1 ]
	stop_bg f
	assert_equal "$(cat "$BATS_TEST_TMPDIR/f.out")" "$(want 0 400)"
}

@test "a group member meets NULs in a partition, then in the group log: every record past the commit at its offset, nothing said" {
	tmq-get -g G --commit -n 10 ev >/dev/null
	run --separate-stderr shimmed ev/ tmq-get -g G -F '%o %s\n' ev
	[ -f "$MARK" ]
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$(want 10 300)"
	rm "$MARK"
	[ "$(cat "$TMQ_ROOT"/--group--G/*.tmf | wc -l)" -ge 3 ]
	run --separate-stderr shimmed --group--G/ tmq-get -g G -F '%o %s\n' ev
	[ -f "$MARK" ]
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$(want 10 300)"
}

@test "a following member: NULs in what was appended after it joined; every record at its offset" {
	local size
	size=$(cat "$TMQ_ROOT"/ev/*.tmf | wc -c)
	NULSHIM_FROM=$size start_bg m shimmed ev/ tmq-get -g G --window 1 -f \
	    -F '%o %s\n' ev
	wait_for has_lines "$BATS_TEST_TMPDIR/m.out" 300
	seq 301 400 | sed 's/^/record-/' | tmq-put ev
	wait_for has_lines "$BATS_TEST_TMPDIR/m.out" 400
	[ -f "$MARK" ]
	stop_bg m
	assert_equal "$(cat "$BATS_TEST_TMPDIR/m.out")" "$(want 0 400)"
}

@test "on a local disk NULs are the file's at once: the same read is a corrupt line at its offset, exit 1, as before" {
	local at line
	NULSHIM_FUSE=0 run --separate-stderr shimmed ev/ tmq-get -F '%o %s\n' ev
	[ -f "$MARK" ]
	at=$(cut -d' ' -f1 "$MARK")
	line=$(head -c "$at" "$TMQ_ROOT"/ev/*.tmf | wc -l)
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0 offset $line: bad base85 in the key"
	assert_equal "$output" "$(want 0 "$line")"
}

@test "on a shared filesystem NULs that stay after the re-reads are the file's: a corrupt line at its offset, exit 1, the reader going on past it" {
	local f
	f=$(echo "$TMQ_ROOT"/ev/*.tmf)
	nul_line_100 "$f"
	NULSHIM_FUSE=1 run --separate-stderr shimmed nothing-matches \
	    tmq-get -F '%o %s\n' ev
	[ ! -f "$MARK" ]
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0 offset 100: bad base85 in the key"
	assert_equal "$output" "$(want 0 100; want 101 300)"
}

@test "a follower on a shared filesystem waits 30 s for NULs that stay, then takes them for the file's: a corrupt line at its offset, said once, and it goes on" {
	local f t0 t1
	f=$(echo "$TMQ_ROOT"/ev/*.tmf)
	nul_line_100 "$f"
	t0=$(date +%s)
	NULSHIM_FUSE=1 start_bg f shimmed nothing-matches tmq-get -f -F '%o %s\n' ev
	wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 100
	# Until the bound, nothing past the NULs, nothing said.
	assert_equal "$(cat "$BATS_TEST_TMPDIR/f.err")" ""
	TMQ_TEST_WAIT=150 wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 299
	t1=$(date +%s)
	[ $((t1 - t0)) -ge 29 ] || fail "took the NULs for the file's after $((t1 - t0)) s"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/f.err")" \
	    "tmq-get: ev: partition 0 offset 100: bad base85 in the key"
	# It goes on: what comes next, each at its offset.
	seq 301 310 | sed 's/^/record-/' | tmq-put ev
	wait_for has_lines "$BATS_TEST_TMPDIR/f.out" 309
	stop_bg f KILL
	assert_equal "$(cat "$BATS_TEST_TMPDIR/f.out")" "$(want 0 100; want 101 310)"
	[ ! -f "$MARK" ]
}

@test "a partition's index read on a shared filesystem: its own NUL bytes (binary) are not read again as a client's" {
	require_strace
	local n
	tmq-topic create -p 1 big
	seq 1 20000 | awk '{ printf "%d %0100d\n", $1, $1 }' | tmq-put -K ' ' big
	# The index, made by a first look.
	tmq-topic info big >/dev/null
	ls "$TMQ_ROOT"/big/.tmq/*.idx >/dev/null
	# A seek through it, on a root taken for FUSE's: the index's NUL bytes
	# once cost a second of re-reads (1, 2, 4 ... 512 ms) at each opening
	# of it (13 s for a read of 200,000 records across GlusterFS, 0.4 s
	# without).
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    LD_PRELOAD="$SHIM" NULSHIM_FUSE=1 strace -f -qq -o "$BATS_TEST_TMPDIR/tr" \
	    -e trace=clock_nanosleep,nanosleep tmq-get -P 0 --from 19990 -n 1 -F '%o\n' big
	assert_success
	assert_output 19990
	# (the watch of the reading sleeps a second at a time: one or two)
	n=$(grep -c 'nanosleep' "$BATS_TEST_TMPDIR/tr" || :)
	[ "$n" -le 2 ] || fail "$n sleeps: $(grep nanosleep "$BATS_TEST_TMPDIR/tr" | head -n 5)"
}
