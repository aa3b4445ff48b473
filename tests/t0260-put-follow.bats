#!/usr/bin/env bats
# t0260-put-follow: tmq-put --follow FILE: each line added to FILE is put,
# FILE followed by name as tail -F follows it (rotated: renamed and made
# anew; truncated), and how far it was taken kept in the topic's .tmq/, so
# that a restart goes on from there: nothing lost after TERM, INT or KILL,
# nothing repeated after TERM or INT, at most one batch (512 lines) after
# KILL.

load test_helper

teardown() {
	end_bg KILL
	end_mounts
}

# start_follow NAME ARGS...: tmq-put --follow in the background, its pid in
# NAME.pid, its stderr appended to NAME.err.
start_follow() {
	local name=$1
	shift
	tmq-put "$@" 2>>"$BATS_TEST_TMPDIR/$name.err" 3>&- &
	echo $! >"$BATS_TEST_TMPDIR/$name.pid"
}

# stop_follow NAME [SIGNAL]
stop_follow() {
	local pid
	pid=$(cat "$BATS_TEST_TMPDIR/$1.pid")
	kill "-${2:-TERM}" "$pid"
	wait_for gone "$pid"
	wait "$pid" 2>/dev/null || :
	rm -f "$BATS_TEST_TMPDIR/$1.pid"
}

# count TOPIC: how many messages it holds
count() {
	tmq-topic info --ends "$1" | tr , '\n' | awk -F= '{ n += $2 } END { print n + 0 }'
}
has_count() { [ "$(count "$1")" -ge "$2" ]; }

@test "follow: lines added are put, -K keys them, and a restart after TERM or INT goes on without repeating" {
	tmq-topic create logs -k u32 -p 2
	cd "$BATS_TEST_TMPDIR"
	printf '1 one\n2 two\n' >app.log
	start_follow f --follow app.log -K ' ' logs
	wait_for has_count logs 2
	printf '3 three\n4 fo' >>app.log
	wait_for has_count logs 3
	# A line without its newline yet is not taken.
	[ "$(count logs)" = 3 ]
	stop_follow f TERM
	printf 'ur\n5 five\n' >>app.log
	start_follow f --follow app.log -K ' ' logs
	wait_for has_count logs 5
	stop_follow f INT
	start_follow f --follow app.log -K ' ' logs
	printf '6 six\n' >>app.log
	wait_for has_count logs 6
	stop_follow f TERM
	run tmq-get -F '%k %s\n' logs
	run sort <<<"$output"
	assert_output "1 one
2 two
3 three
4 four
5 five
6 six"
	run cat f.err
	assert_output ""
	# What it keeps: the file's identity and the byte after the last line.
	local st
	st=$(ls "$TMQ_ROOT"/logs/.tmq/follow.*)
	[ "$(wc -l <"$st")" = 6 ]
	[ "$(sed -n 1p "$st")" = "tmq-put --follow 1" ]
	[ "$(sed -n 2p "$st")" = "file $BATS_TEST_TMPDIR/app.log" ]
	[ "$(sed -n 3p "$st")" = "dev $(stat -c %d app.log)" ]
	[ "$(sed -n 4p "$st")" = "ino $(stat -c %i app.log)" ]
	[ "$(sed -n 5p "$st")" = "offset $(stat -c %s app.log)" ]
	[[ $(sed -n 6p "$st") =~ ^check\ [0-9a-f]{16}$ ]]
	# The library sees no partition file in .tmq/, and tmq-dump none.
	run tmq-dump logs
	assert_success
}

@test "follow: a file rotated (renamed, made anew) is read to its end, its last line too, before the new one" {
	tmq-topic create logs
	cd "$BATS_TEST_TMPDIR"
	printf 'a1\na2\n' >app.log
	start_follow f --follow app.log logs
	wait_for has_count logs 2
	mv app.log app.log.1
	printf 'a3\na4' >>app.log.1	# the writer still had it open
	printf 'b1\n' >app.log
	wait_for has_count logs 5
	printf 'b2\n' >>app.log
	wait_for has_count logs 6
	stop_follow f
	run tmq-get -F '%s\n' logs
	assert_output "a1
a2
a3
a4
b1
b2"
	run cat f.err
	assert_output ""
}

@test "follow: a file copied and truncated is read again from its start" {
	tmq-topic create logs
	cd "$BATS_TEST_TMPDIR"
	printf 'a1\na2\na3\n' >app.log
	start_follow f --follow app.log logs
	wait_for has_count logs 3
	cp app.log app.log.1
	: >app.log
	printf 'b1\n' >>app.log
	wait_for has_count logs 4
	stop_follow f
	run tmq-get -F '%s\n' logs
	assert_output "a1
a2
a3
b1"
	run cat f.err
	assert_output "tmq-put: app.log: file truncated: from its start"
}

@test "follow: rotated while not followed: the old file, still in the directory, is finished first" {
	tmq-topic create logs
	cd "$BATS_TEST_TMPDIR"
	printf 'a1\n' >app.log
	start_follow f --follow app.log logs
	wait_for has_count logs 1
	stop_follow f
	printf 'a2\n' >>app.log
	mv app.log app.log.1
	printf 'b1\n' >app.log
	start_follow f --follow app.log logs
	wait_for has_count logs 3
	stop_follow f
	run tmq-get -F '%s\n' logs
	assert_output "a1
a2
b1"
	run cat f.err
	assert_output "tmq-put: app.log: replaced since it was last followed: the rest of the old file first"
	# The old file gone too: the new one from its start, said.
	rm f.err
	mv app.log app.log.2
	printf 'c1\n' >app.log
	rm app.log.2
	start_follow f --follow app.log logs
	wait_for has_count logs 4
	stop_follow f
	run --separate-stderr tmq-get -F '%o %s\n' --from 3 logs
	assert_output '3 c1'
	run cat f.err
	assert_output "tmq-put: app.log: replaced since it was last followed, and the old file is not app.log.1: reading the new one from its start"
}

@test "follow: a file rewritten in place (its inode the same, its bytes not) is read from its start" {
	tmq-topic create logs
	cd "$BATS_TEST_TMPDIR"
	printf 'aaa\n' >app.log
	start_follow f --follow app.log logs
	wait_for has_count logs 1
	stop_follow f
	local ino
	ino=$(stat -c %i app.log)
	printf 'bbbbcc\n' >app.log
	[ "$(stat -c %i app.log)" = "$ino" ]
	start_follow f --follow app.log logs
	wait_for has_count logs 2
	stop_follow f
	run tmq-get -F '%s\n' logs
	assert_output "aaa
bbbbcc"
	run cat f.err
	assert_output "tmq-put: app.log: replaced since it was last followed, and the old file is not app.log.1: reading the new one from its start"
}

@test "follow: a file not there yet is waited for" {
	tmq-topic create logs
	cd "$BATS_TEST_TMPDIR"
	start_follow f --follow later.log logs
	wait_for grep -q 'waiting for it' f.err
	printf 'x\n' >later.log
	wait_for has_count logs 1
	stop_follow f
	run cat f.err
	assert_output "tmq-put: later.log: no such file: waiting for it
tmq-put: later.log: appeared: following it"
}

@test "follow: a damaged or forged state, a state that is no regular file, and a FIFO to follow are refused" {
	tmq-topic create logs
	cd "$BATS_TEST_TMPDIR"
	printf 'a\n' >app.log
	start_follow f --follow app.log logs
	wait_for has_count logs 1
	stop_follow f
	local st name
	st=$(ls "$TMQ_ROOT"/logs/.tmq/follow.*)
	name=logs/.tmq/${st##*/}
	cp "$st" good
	local bad
	for bad in 's/offset 2/offset 02/' 's/offset 2/offset -2/' 's/^dev /dev  /' \
	    's|^file .*|file /elsewhere/app.log|' '1s/1$/2/' '$a extra' \
	    's/^check \(.*\)./check \1/' 's/^check /check x/' '/^check/d'; do
		sed "$bad" good >"$st"
		run --separate-stderr tmq-put --follow app.log logs
		assert_fails_with "tmq-put: $name: not what tmq-put --follow writes (remove it to read app.log from its start)"
	done
	rm "$st"
	mkfifo "$st"
	run --separate-stderr timeout 20 tmq-put --follow app.log logs
	assert_failure 1
	[[ $stderr == "tmq-put: $name: "*"not a regular file (a FIFO)" ]]
	rm "$st"
	mkfifo pipe.log
	run --separate-stderr timeout 20 tmq-put --follow pipe.log logs
	assert_fails_with "tmq-put: pipe.log: not a regular file"
	[ "$(count logs)" = 1 ]
	run --separate-stderr tmq-put --follow app.log logs extra
	assert_usage_error tmq-put "--follow does not go with -l, -F or MESSAGE operands"
	run --separate-stderr tmq-put -l --follow app.log logs
	assert_usage_error tmq-put "--follow does not go with -l, -F or MESSAGE operands"
	run --separate-stderr tmq-put --follow '' logs
	assert_usage_error tmq-put "--follow: empty file name"
}

# n_gone N PID...: exactly N of the PIDs have ended.
n_gone() {
	local want=$1 p n=0
	shift
	for p; do
		if gone "$p"; then n=$((n + 1)); fi
	done
	[ "$n" = "$want" ]
}

# state_of TOPIC: the path of its one follow state
state_of() {
	local st
	for st in "$TMQ_ROOT/$1"/.tmq/follow.*; do
		case $st in *.lock) ;; *) echo "$st" ;; esac
	done
}
# taken FILE TOPIC: the state of TOPIC says all of FILE was taken
taken() {
	local st
	st=$(state_of "$2")
	[ -n "$st" ] && [ -f "$st" ] && grep -qx "offset $(stat -c %s "$1")" "$st"
}

@test "follow: a second follower of a file into a topic is refused at once, naming the first; one killed with KILL keeps none out" {
	tmq-topic create t
	cd "$BATS_TEST_TMPDIR"
	: >d.log
	# Three at once, as an overlapping restart starts them: one follows,
	# the others refuse.
	local i pids=() alive=()
	for i in 1 2 3; do
		tmq-put --follow d.log t 2>>"race.err" 3>&- &
		pids+=($!)
	done
	wait_for bash -c "[ \$(grep -c 'followed into t already' race.err) = 2 ]"
	# The two refused end (a sanitized build's a while after saying so).
	wait_for n_gone 2 "${pids[@]}"
	for i in "${pids[@]}"; do
		if gone "$i"; then wait "$i" 2>/dev/null && false || [ $? = 1 ]; else alive+=("$i"); fi
	done
	[ "${#alive[@]}" = 1 ]
	seq 1000 >>d.log
	wait_for taken d.log t
	[ "$(count t)" = 1000 ]
	local lock=t/.tmq/$(basename "$(state_of t)").lock
	[ "$(cat "$TMQ_ROOT/$lock")" = "${alive[0]} $(hostname)" ]
	run cat race.err
	assert_output "tmq-put: d.log: followed into t already, by pid ${alive[0]} (which holds $lock)
tmq-put: d.log: followed into t already, by pid ${alive[0]} (which holds $lock)"
	# The same file by another path is the same file.
	run --separate-stderr timeout 20 tmq-put --follow "$BATS_TEST_TMPDIR/./d.log" t
	assert_fails_with "tmq-put: $BATS_TEST_TMPDIR/./d.log: followed into t already, by pid ${alive[0]} (which holds $lock)"
	# Killed, it keeps no one out: the kernel dropped its lock.
	kill -KILL "${alive[0]}"
	# (Reaped: all its threads are gone, its files closed.)
	wait "${alive[0]}" || :
	[ -e "$TMQ_ROOT/$lock" ]
	start_follow g --follow d.log t
	seq 1001 1010 >>d.log
	wait_for taken d.log t
	[ "$(count t)" = 1010 ]
	# Stopped, it leaves no lock behind; what the pid says is only a hint.
	stop_follow g
	[ ! -e "$TMQ_ROOT/$lock" ]
	run cat g.err
	assert_output ""
	printf 'garbage' >"$TMQ_ROOT/$lock"
	start_follow g --follow d.log t
	wait_for bash -c "grep -qx \"\$(cat g.pid) $(hostname)\" '$TMQ_ROOT/$lock'"
	run --separate-stderr timeout 20 tmq-put --follow d.log t
	assert_fails_with "tmq-put: d.log: followed into t already, by pid $(cat g.pid) (which holds $lock)"
	printf '99999999 elsewhere\n' >"$TMQ_ROOT/$lock"
	run --separate-stderr timeout 20 tmq-put --follow d.log t
	assert_fails_with "tmq-put: d.log: followed into t already, by pid 99999999 on elsewhere (which holds $lock)"
	printf 'x\n' >"$TMQ_ROOT/$lock"
	run --separate-stderr timeout 20 tmq-put --follow d.log t
	assert_fails_with "tmq-put: d.log: followed into t already, by another process (which holds $lock)"
	stop_follow g
	run tmq-get -F '%s\n' t
	[ "${#lines[@]}" = 1010 ]
	[ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" = 1010 ]
}

@test "follow: a full disk when the state is to be written: it says what was written, and the rerun repeats nothing" {
	local fs="$BATS_TEST_TMPDIR/fs"
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a small tmpfs)"
	mount_tmpfs "$fs" 1m || skip "cannot mount a tmpfs here"
	export TMQ_ROOT="$fs/root"
	tmq-topic create t
	cd "$BATS_TEST_TMPDIR"
	printf 'a\n' >d.log
	start_follow f --follow d.log t
	wait_for taken d.log t
	stop_follow f
	local st name
	st=$(state_of t)
	name=t/.tmq/${st##*/}
	# Full: the partition file's last page has room for three lines more,
	# a new file (the state's next) has none.
	dd if=/dev/zero of="$fs/filler" bs=4096 2>/dev/null || :
	printf 'b\nc\nd\n' >>d.log
	run --separate-stderr timeout 60 tmq-put --follow d.log t
	assert_fails_with "tmq-put: $name: No space left on device; no line was written"
	rm "$fs/filler"
	start_follow f --follow d.log t
	wait_for taken d.log t
	stop_follow f
	run tmq-get -F '%s\n' t
	assert_output "a
b
c
d"
	run cat f.err
	assert_output ""
	# The disk filling while it runs: it stops, saying what this run
	# wrote, and the rerun goes on from there.
	start_follow g --follow d.log t
	printf 'e\n' >>d.log
	wait_for taken d.log t
	dd if=/dev/zero of="$fs/filler" bs=4096 2>/dev/null || :
	printf 'f\ng\n' >>d.log
	local pid
	pid=$(cat g.pid)
	wait_for gone "$pid"
	run wait "$pid"
	assert_failure 1
	run cat g.err
	assert_output "tmq-put: $name: No space left on device; line 1 was written, line 2 and later were not"
	rm "$fs/filler" g.pid
	start_follow f --follow d.log t
	wait_for taken d.log t
	stop_follow f
	run tmq-get -F '%s\n' t
	assert_output "a
b
c
d
e
f
g"
	run cat f.err
	assert_output ""
}

@test "follow: the state's rename failing once its lines are written: said, kept, and the rerun repeats nothing" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true || skip "strace cannot trace here (ptrace not permitted)"
	tmq-topic create t
	cd "$BATS_TEST_TMPDIR"
	printf 'a\nb\nc\n' >d.log
	# (LeakSanitizer does not work under ptrace.)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    run --separate-stderr timeout 60 strace -f -qq -o /dev/null \
	    -e trace=rename,renameat -e inject=rename,renameat:error=ENOSPC \
	    tmq-put --follow d.log t
	assert_failure 1
	local tmp sname
	tmp=$(cd "$TMQ_ROOT/t/.tmq" && ls -A | grep '^\.follow\..*\.tmp$')
	sname=${tmp#.}
	sname=${sname%.*.*.tmp}
	assert_equal "$stderr" "tmq-put: t/.tmq/$sname: No space left on device (how far the lines got is kept in t/.tmq/$tmp, for the next run); lines 1 to 3 were written, line 4 and later were not"
	[ "$(count t)" = 3 ]
	printf 'd\n' >>d.log
	start_follow f --follow d.log t
	wait_for taken d.log t
	stop_follow f
	run tmq-get -F '%s\n' t
	assert_output "a
b
c
d"
	run cat f.err
	assert_output ""
	run ls -A "$TMQ_ROOT/t/.tmq"
	assert_output "$sname"
}

# kills_at_random SIGNALS...: a writer appends 3000 numbered lines, the
# file rotated (renamed to app.log.1, made anew) every 500 once the
# follower has caught up; the follower is stopped with one of SIGNALS, chosen at random, at
# five random counts, and restarted each time.  Sets dups (lines put more
# than once) and kills (how many were KILL).
kills_at_random() {
	tmq-topic create logs -k u32 -p 3
	cd "$BATS_TEST_TMPDIR"
	: >app.log
	start_follow f --follow app.log -K : logs
	(
		for c in $(seq 0 59); do
			seq $((c * 50 + 1)) $((c * 50 + 50)) | awk '{ print $1 ":line-" $1 }' >>app.log
			if [ $(((c + 1) % 10)) = 0 ]; then
				wait_for has_count logs $(((c + 1) * 50))
				# (logrotate's way: the last one becomes
				# app.log.1, the one before moves on.)
				if [ -e app.log.1 ]; then mv app.log.1 "app.log.$c"; fi
				mv app.log app.log.1
				: >app.log
			fi
		done
	) &
	local writer=$! th sigs=("$@") sig
	kills=0
	for th in $(for i in 1 2 3 4 5; do echo $((RANDOM % 2900 + 1)); done | sort -n); do
		wait_for has_count logs "$th"
		sig=${sigs[RANDOM % ${#sigs[@]}]}
		[ "$sig" = KILL ] && kills=$((kills + 1))
		stop_follow f "$sig"
		start_follow f --follow app.log -K : logs
	done
	wait "$writer"
	wait_for bash -c '[ "$(tmq-get -F "%s\n" logs | sort -u | wc -l)" -ge 3000 ]'
	stop_follow f
	run bash -c 'tmq-get -F "%k %s\n" logs | sort -u'
	[ "${#lines[@]}" = 3000 ]
	# Each line once, under its own key.
	run bash -c 'tmq-get -F "%k %s\n" logs | sort -u | awk "\$2 != \"line-\" \$1" | wc -l'
	assert_output 0
	dups=$(tmq-get -F '%s\n' logs | sort | uniq -d | wc -l)
	# (A stop after a rotation that the state did not see yet: the old
	# file is finished first.)
	run grep -v ': replaced since it was last followed: the rest of the old file first$' f.err
	assert_output ""
}

@test "follow: TERM and INT at random moments, across rotations: every line once" {
	kills_at_random TERM INT
	assert_equal "$dups" 0
}

@test "follow: KILL, TERM and INT at random moments, across rotations: every line, at most a batch repeated a KILL" {
	kills_at_random KILL TERM INT KILL
	[ "$dups" -le $((kills * 512)) ]
}
