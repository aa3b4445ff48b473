#!/usr/bin/env bats
# t0730-many-partitions: topics of hundreds of partitions.  A follower
# wakes for the partition that changed (inotify names it) and lists the
# directory once for all; descriptors are raised to the hard limit, spared
# when they run out all the same, and named as the cause when none is
# left; a group is refused at creation on a topic too large for its
# offers to fit in a line.  A once-through read does work in proportion
# to the partitions: strace counts what would grow faster (tests count,
# never time: the speed itself is in tests/bench/many.sh).
#
# Every test has a fresh root; every wait is bounded in time.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
	end_bg KILL
}

# wait_until SECONDS COMMAND...: run COMMAND every 20 ms until it
# succeeds; fail after SECONDS.
wait_until() {
	local limit=$(( $1 * 50 )) i=0
	shift
	until "$@"; do
		i=$((i + 1))
		if [ "$i" -ge "$limit" ]; then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		sleep 0.02
	done
}

# raised PID: the soft limit on open files of PID is its hard limit.
raised() {
	[ "$(basename "$(readlink "/proc/$1/exe")")" = tmq-get ] &&
	    awk '/^Max open files/ { ok = ($4 == $5) } END { exit !ok }' "/proc/$1/limits"
}

# A key of partition $2 of topic $1 (u32 keys).
key_of() {
	local k=0
	while [ "$(tmq-topic partition "$1" "$k")" != "$2" ]; do
		k=$((k + 1))
	done
	echo "$k"
}

@test "a follower of 300 partitions wakes for the one written, for a new day file and for a file renamed in" {
	tmq-topic create ev -k u32 -p 300
	seq 0 899 | sed 's/$/:x/' | tmq-put -K: ev
	tmq-get -f -F '%p %s\n' ev >out 2>err &
	track $!
	wait_until 20 lines_in out 900
	local k
	k=$(key_of ev 299)
	tmq-put -k "$k" ev last
	wait_until 10 lines_in out 901
	# A day file that appears (as tomorrow's would), then one renamed in,
	# each where its partition ends (else its files would not chain).
	local ends e7 e8
	ends=$(tmq-topic info --ends ev | tr , '\n')
	e7=$(sed -n 's/^7=//p' <<<"$ends")
	e8=$(sed -n 's/^8=//p' <<<"$ends")
	tmq_write_line "$TMQ_ROOT/ev" "7-20991231_$e7.tmf" u32 1 4102444000 newday
	wait_until 10 lines_in out 902
	tmq_write_line "$BATS_TEST_TMPDIR" "8-20991231_$e8.tmf" u32 1 4102444000 renamed
	mv "$BATS_TEST_TMPDIR/8-20991231_$e8.tmf" "$TMQ_ROOT/ev/"
	wait_until 10 lines_in out 903
	run tail -n 3 out
	assert_output $'299 last\n7 newday\n8 renamed'
	run cat err
	assert_output ''
}

@test "the soft limit on open files is raised to the hard one" {
	[ "$(ulimit -H -n)" != unlimited ] && [ "$(ulimit -H -n)" -gt 64 ] ||
	    skip "the hard limit on open files is $(ulimit -H -n)"
	tmq-topic create ev
	(
		ulimit -S -n 64
		exec tmq-get -f ev >/dev/null
	) &
	local pid=$!
	track "$pid"
	# (it raises the limit as it opens the root, just after it starts)
	wait_until 10 raised "$pid"
	run awk '/^Max open files/ { print ($4 == $5) ? "raised" : $4 " of " $5 }' "/proc/$pid/limits"
	assert_output raised
}

@test "with 64 descriptors, tmq-put writes 2,000 keys over 500 partitions and tmq-get reads them all, following too" {
	tmq-topic create ev -k u32 -p 500
	(
		ulimit -n 64
		seq 0 1999 | sed 's/$/:x/' | tmq-put -K: ev
	)
	# (nearly every partition has a file open while the batch is written)
	[ "$(ls "$TMQ_ROOT/ev" | wc -l)" -gt 450 ]
	run bash -c "ulimit -n 64 && tmq-get ev | wc -l"
	assert_success
	assert_output 2000
	(
		ulimit -n 64
		exec tmq-get -f -n 2002 -F '%p %s\n' ev >out 2>err
	) &
	track $!
	wait_until 20 lines_in out 2000
	tmq-put -k "$(key_of ev 0)" ev first
	tmq-put -k "$(key_of ev 499)" ev last
	wait_until 20 lines_in out 2002
	run tail -n 2 out
	assert_output $'0 first\n499 last'
	run cat err
	assert_output ''
}

@test "when no descriptor is left, the message says so and names the limit" {
	tmq-topic create ev -p 4
	tmq-put ev x
	run --separate-stderr bash -c 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; ulimit -n 5; exec tmq-get ev'
	assert_failure 1
	[[ $stderr =~ ^tmq-get:\ ev:\ .*Too\ many\ open\ files\ \(this\ process\ may\ open\ 5\ files\ at\ once\;\ raise\ the\ limit\ with\ ulimit\ -n\)$ ]] ||
	    fail "stderr: $stderr"
}

# traced_get P ARGS...: make topic tP of P partitions (u32 keys, P/8
# messages), read it once through with 64
# descriptors under strace, and print two counts: the directories opened
# (listings) and the calls that unmap, move or give back memory (munmap,
# mremap, madvise: an array of readers copied for each partition added
# shows there, whichever allocator is linked).
traced_get() {
	local p=$1
	shift
	tmq-topic create "t$p" -k u32 -p "$p"
	seq 0 8 $((p - 1)) | sed 's/$/:x/' | tmq-put -K: "t$p"
	(
		ulimit -n 64
		# (LeakSanitizer cannot run under ptrace)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    exec strace -f -qq --seccomp-bpf -o "trace$p" \
		    -e trace=openat,munmap,mremap,madvise tmq-get "$@" "t$p"
	) >"out$p" 2>"err$p" || { cat "err$p" >&2; return 1; }
	[ ! -s "err$p" ] || { cat "err$p" >&2; return 1; }
	# (all that is there is read, with 64 descriptors and traced)
	tmq-get "$@" "t$p" >"want$p"
	cmp -s "want$p" "out$p" || { echo "t$p: not all read" >&2; return 1; }
	echo "$(grep -c 'O_DIRECTORY' "trace$p") $(grep -cE '^[0-9]+ +(munmap|mremap|madvise)\(' "trace$p")"
}

@test "reading 4,096 partitions once through lists the directory as often as reading 512, and does not copy its readers per partition" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true ||
	    skip "strace cannot trace here (ptrace not permitted)"
	local small big
	# A count, not a time: each of these grew with the number of
	# partitions (a listing of the directory per partition; the array of
	# readers grown by one, so copied, each time), and a read took 8.9 s
	# where it takes 0.14 (8,192 partitions, sanitizer build).
	for args in "" "--from -1"; do
		rm -rf "$TMQ_ROOT"/t512 "$TMQ_ROOT"/t4096
		small=($(traced_get 512 $args))
		big=($(traced_get 4096 $args))
		[ "${big[0]}" -eq "${small[0]}" ] ||
		    fail "tmq-get $args: ${small[0]} directories opened for 512 partitions, ${big[0]} for 4,096"
		[ $(( big[1] - small[1] )) -lt $(( (4096 - 512) / 64 )) ] ||
		    fail "tmq-get $args: ${small[1]} munmap/mremap/madvise for 512 partitions, ${big[1]} for 4,096"
	done
}

@test "a group on a topic of more than 1,024 partitions is refused at creation, saying why" {
	tmq-topic create big -p 1025
	run --separate-stderr tmq-get -g G -P 0 big
	assert_failure 1
	assert_equal "$stderr" "tmq-get: group G: topic big has 1025 partitions, more than a group can share (1024: a member's offer of them all must fit in one 4096-byte line)"
	run --separate-stderr tmq-get -g G big
	assert_failure 1
	assert_equal "$stderr" "tmq-get: group G: topic big has 1025 partitions, more than a group can share (1024: a member's offer of them all must fit in one 4096-byte line)"
	run ls "$TMQ_ROOT"
	assert_output $'big\nbig.twc'
	# 1,024 is fine, and a member's offer of all of them is written.
	tmq-topic create ok -p 1024
	run tmq-get -g G2 ok
	assert_success
	run tmq-group describe G2
	assert_success
}

# traced_put P: make topic pP of P partitions (u32 keys) and put one
# message into each of half of them with 64 descriptors under strace;
# print the directories opened (listings).
traced_put() {
	local p=$1
	tmq-topic create "p$p" -k u32 -p "$p"
	seq 0 2 $((p - 1)) | sed 's/$/:x/' >"in$p"
	(
		ulimit -n 64
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    exec strace -f -qq --seccomp-bpf -o "ptrace$p" \
		    -e trace=openat tmq-put -K: "p$p" <"in$p"
	) 2>"perr$p" || { cat "perr$p" >&2; return 1; }
	[ ! -s "perr$p" ] || { cat "perr$p" >&2; return 1; }
	[ "$(tmq-get "p$p" | wc -l)" -eq $((p / 2)) ] ||
	    { echo "p$p: not all put" >&2; return 1; }
	grep -c 'O_DIRECTORY' "ptrace$p"
}

@test "putting into 512 or 4,096 partitions with 64 descriptors lists the directory far less than once a file" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true ||
	    skip "strace cannot trace here (ptrace not permitted)"
	local small big
	# A count, not a time: with every file opened first, those opened
	# earliest were closed to spare descriptors and each opened again
	# alone, a listing of the directory apiece (32,768 messages into
	# 65,536 partitions took 8 minutes; now 2 s).  A flush opens a
	# quarter of the descriptor limit at a time (16 here), under one
	# listing; before, 256 files took 418 listings and 2,048 took 3,082.
	small=$(traced_put 512)
	big=$(traced_put 4096)
	[ "$small" -le $(( 256 / 8 )) ] && [ "$big" -le $(( 2048 / 8 )) ] ||
	    fail "tmq-put: $small directories opened for 256 files, $big for 2,048"
}
