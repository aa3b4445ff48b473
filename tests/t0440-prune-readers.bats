#!/usr/bin/env bats
# t0440-prune-readers: readers that meet retention (tmq-topic prune)
# before they reach a file.  A reader whose next day file is pruned while
# it is still in an older one (here: blocked writing to a pipe nobody
# reads) goes on from the first offset left, says once on stderr how many
# offsets it jumped, and keeps going: a once-through reader, a follower of
# one or several partitions, and a group member.

load test_helper

teardown() {
	end_bg
}

# key_for TOPIC P: a u8 key that goes to partition P.
key_for() {
	local k
	for k in $(seq 0 255); do
		if [ "$(tmq-topic partition "$1" "$k" | awk '{ print $NF }')" = "$2" ]; then
			echo "$k"
			return 0
		fi
	done
	return 1
}

# put_n TOPIC KEY FROM TO: put "m-N" for N in FROM..TO under KEY.
put_n() {
	seq "$3" "$4" | sed "s/^/$2 m-/" | tmq-put -K ' ' "$1"
}

# days TOPIC P KEY: partition P gets 300,000 messages in a file of
# 2026-11-24 (offsets 0-299999, far more than a pipe holds: tmq-get asks
# for 1 MiB) and 10 in one of 2026-11-25 (300000-300009), both put and
# then renamed to those days, and 5 in today's file (300010-300014).
days() {
	local d="$TMQ_ROOT/$1" f
	put_n "$1" "$3" 0 299999
	f=$(cd "$d" && ls "$2"-*_0.tmf)
	mv "$d/$f" "$d/$2-20261124_0.tmf"
	put_n "$1" "$3" 300000 300009
	f=$(cd "$d" && ls "$2"-*_300000.tmf | grep -v 20261124)
	mv "$d/$f" "$d/$2-20261125_300000.tmf"
	put_n "$1" "$3" 300010 300014
}

# blocked NAME COMMAND...: COMMAND with its output into a FIFO nobody
# reads yet; waits until it is blocked writing there.
blocked() {
	local name=$1
	shift
	mkfifo "$BATS_TEST_TMPDIR/$name.fifo"
	exec 4<>"$BATS_TEST_TMPDIR/$name.fifo"
	"$@" >"$BATS_TEST_TMPDIR/$name.fifo" 2>"$BATS_TEST_TMPDIR/$name.err" 3>&- 4>&- &
	echo $! >"$BATS_TEST_TMPDIR/$name.pid"
	wait_for grep -q pipe_write "/proc/$!/wchan"
}

# drain NAME: read NAME's FIFO to NAME.out from now on.  Our own end of
# the FIFO is closed only once cat has it open: the writer must never see
# a FIFO without a reader (EPIPE).
drain() {
	local f="$BATS_TEST_TMPDIR/$1.fifo"
	cat <"$f" >"$BATS_TEST_TMPDIR/$1.out" 3>&- 4>&- &
	echo $! >"$BATS_TEST_TMPDIR/$1.cat.pid"
	wait_for reads_from "$!" "$f"
	exec 4>&-
}

# reads_from PID FILE: PID's standard input is FILE.
reads_from() {
	[ "$(readlink "/proc/$1/fd/0" 2>/dev/null)" = "$2" ]
}

# has N NAME: NAME.out has N lines.
has() {
	[ "$(wc -l <"$BATS_TEST_TMPDIR/$2.out")" -ge "$1" ]
}

@test "a once-through reader whose next day file is pruned goes on at the first offset left, says so once, exit 0" {
	local k t=$BATS_TEST_TMPDIR
	tmq-topic create -k u8 -p 1 pt
	k=$(key_for pt 0)
	days pt 0 "$k"
	# Its reader starts reading once the prune is over.
	{
		tmq-get pt 2>"$t/r.err" &
		echo $! >"$t/r.pid"
		wait $!
		echo $? >"$t/r.rc"
	} 3>&- | {
		until [ -e "$t/go" ]; do sleep 0.05; done
		cat >"$t/r.out"
	} 3>&- &
	wait_for test -s "$t/r.pid"
	wait_for grep -q pipe_write "/proc/$(cat "$t/r.pid")/wchan"
	run tmq-topic prune pt --before 2026-11-26
	assert_success
	touch "$t/go"
	wait_for test -s "$t/r.rc"
	rm -f "$t/r.pid"
	run cat "$t/r.rc"
	assert_output 0
	wait_for has 300005 r
	run tail -n 6 "$t/r.out"
	assert_output $'m-299999\nm-300010\nm-300011\nm-300012\nm-300013\nm-300014'
	run cat "$t/r.err"
	assert_output "tmq-get: pt: partition 0: offsets 300000 to 300009 were pruned before they were read: going on at 300010 (10 offsets skipped)"
}

@test "a follower of several partitions whose next day file is pruned goes on, and reads what is put after the prune" {
	local k0 k1
	tmq-topic create -k u8 -p 3 pt
	k0=$(key_for pt 0)
	k1=$(key_for pt 1)
	days pt 0 "$k0"
	put_n pt "$k1" 1 3
	blocked f tmq-get -f pt
	tmq-topic prune pt --before 2026-11-26 >/dev/null
	drain f
	wait_for has 300008 f
	put_n pt "$k0" 400000 400001
	put_n pt "$k1" 500000 500000
	wait_for has 300011 f
	run grep -c -- '^m-40000[01]$\|^m-500000$' "$BATS_TEST_TMPDIR/f.out"
	assert_output 3
	kill -0 "$(cat "$BATS_TEST_TMPDIR/f.pid")"
	run cat "$BATS_TEST_TMPDIR/f.err"
	assert_output "tmq-get: pt: partition 0: offsets 300000 to 300009 were pruned before they were read: going on at 300010 (10 offsets skipped)"
}

@test "a group member whose next day file is pruned goes on with its partition; describe shows no lag out of range" {
	local k
	tmq-topic create -k u8 -p 1 pt
	k=$(key_for pt 0)
	days pt 0 "$k"
	blocked g tmq-get -g G --window 1 --commit -f pt
	tmq-topic prune pt --before 2026-11-26 >/dev/null
	drain g
	wait_for has 300005 g
	put_n pt "$k" 40000 40001
	wait_for has 300007 g
	run tail -n 2 "$BATS_TEST_TMPDIR/g.out"
	assert_output $'m-40000\nm-40001'
	run cat "$BATS_TEST_TMPDIR/g.err"
	assert_output "tmq-get: pt: partition 0: offsets 300000 to 300009 were pruned before they were read: going on at 300010 (10 offsets skipped)"
	# It commits where it is: in range, lag 0 once it has taken all.
	wait_for bash -c "tmq-group describe G | grep -q '^0 .* 300017 .* 0  '"
	run tmq-group describe G
	refute_output --partial out-of-range
}
