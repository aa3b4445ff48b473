#!/usr/bin/env bats
# t0701-dirread: a directory read that fails is an error, never the end of
# the directory (strace injects EIO into getdents64, as a GlusterFS or
# CephFS server that goes away fails it); and a partition whose files do
# not chain (a file that starts where no file ends, an empty file among
# them, an older file cut in the middle of a line) is reported by every
# reader and by every command that uses the files' offsets, the file named.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	command -v strace >/dev/null || skip "strace is not installed"
}

teardown() {
	end_bg KILL
}

# eio N DIR COMMAND...: run COMMAND with the Nth getdents64 of DIR failing
# with EIO.  (LeakSanitizer cannot work under ptrace.)
eio() {
	local n=$1 dir=$2
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -o /dev/null -P "$dir" -e trace=getdents64 \
	    -e inject=getdents64:error=EIO:when="$n" "$@"
}

# ahead N COMMAND...: COMMAND with a clock N days ahead (a new day's
# file).  ASan wants to be preloaded first.
ahead() {
	local n=$1
	shift
	command -v faketime >/dev/null || skip "faketime is not installed"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    faketime -f "+${n}d" "$@"
}

tomorrow() {
	ahead 1 "$@"
}

# stderr_matches REGEX: stderr (run --separate-stderr) matches REGEX.
stderr_matches() {
	[[ $stderr =~ $1 ]] || fail "stderr does not match $1: $stderr"
}

# stderr_has LINE: one line of stderr is LINE.
stderr_has() {
	grep -qxF -- "$1" <<<"$stderr" || fail "no line of stderr is $1: $stderr"
}

# two_days: topic ev with 300 messages in today's file and 300 in
# tomorrow's.
two_days() {
	tmq-topic create ev
	seq 0 299 | tmq-put ev
	seq 300 599 | tomorrow tmq-put ev
	run ls "$TMQ_ROOT/ev"
	assert_output --regexp '^0-[0-9]{8}_0\.tmf
0-[0-9]{8}_300\.tmf$'
}

@test "tmq-put: a listing that fails while a new day's file starts writes nothing and starts no file" {
	tmq-topic create ev
	seq 0 299 | tmq-put ev
	before=$(ls "$TMQ_ROOT/ev")
	# Each of the listings before the new file is made.
	for n in 1 2 3 4 5 6; do
		run --separate-stderr tomorrow env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
		    strace -f -o /dev/null -P "$TMQ_ROOT/ev" -e trace=getdents64 \
		    -e inject=getdents64:error=EIO:when="$n" tmq-put ev new
		assert_failure 1
		stderr_matches '^tmq-put: ev: (partition 0: )?cannot list the topic directory: Input/output error; no message was written$'
		run ls "$TMQ_ROOT/ev"
		assert_output "$before"
	done
	# Those after it: the file is made (where the last one ends), nothing
	# written in it.
	for n in 7 8; do
		run --separate-stderr tomorrow env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
		    strace -f -o /dev/null -P "$TMQ_ROOT/ev" -e trace=getdents64 \
		    -e inject=getdents64:error=EIO:when="$n" tmq-put ev new
		assert_failure 1
		assert_stderr 'tmq-put: ev: partition 0: cannot list the topic directory: Input/output error; no message was written'
		run ls "$TMQ_ROOT/ev"
		assert_output --regexp '^0-[0-9]{8}_0\.tmf
0-[0-9]{8}_300\.tmf$'
		run -0 find "$TMQ_ROOT/ev" -name '*_300.tmf' -empty -delete
	done
	tomorrow tmq-put ev new
	run -0 tmq-get -F '%o %s\n' ev
	assert_equal "${#lines[@]}" 301
	assert_line --index 300 '300 new'
	run -0 tmq-dump --verify
	assert_output '2 files, 301 lines, 0 corrupt'
}

@test "tmq-get, tmq-dump, tmq-dump --verify: a listing that fails is an error, the topic named" {
	two_days
	for cmd in 'tmq-get ev' 'tmq-dump ev' 'tmq-get -g g ev'; do
		for n in 1 2; do
			run --separate-stderr eio "$n" "$TMQ_ROOT/ev" $cmd
			assert_failure 1
			assert_stderr "${cmd%% *}: ev: cannot list the topic directory: Input/output error"
		done
	done
	for n in 1 2; do
		run --separate-stderr eio "$n" "$TMQ_ROOT/ev" tmq-dump --verify
		assert_failure 1
		stderr_has 'tmq-dump: ev: cannot list the topic directory: Input/output error'
	done
	# What was read all the while is all there.
	run -0 tmq-get -g g2 ev
	assert_equal "${#lines[@]}" 600
}

@test "tmq-topic info, info --ends, list -l, tmq-group describe: a listing that fails is an error, the topic named" {
	two_days
	tmq-get -g g ev >/dev/null
	for cmd in 'tmq-topic info ev' 'tmq-topic info --ends ev' \
	    'tmq-topic list -l' 'tmq-group describe g'; do
		for n in 1 2; do
			run --separate-stderr eio "$n" "$TMQ_ROOT/ev" $cmd
			assert_failure 1
			stderr_has "${cmd%% *}: ev: cannot list the topic directory: Input/output error"
			refute_output --partial '0=0'
		done
	done
}

@test "tmq-topic list, tmq-group list, tmq-dump --verify: a listing of the root that fails is an error, the root named" {
	two_days
	tmq-get -g g ev >/dev/null
	for cmd in 'tmq-topic list' 'tmq-group list' 'tmq-dump --verify'; do
		for n in 1 2; do
			run --separate-stderr eio "$n" "$TMQ_ROOT" $cmd
			assert_failure 1
			assert_stderr "${cmd%% *}: $TMQ_ROOT: cannot read the root: Input/output error"
			assert_output ''
		done
	done
}

@test "tmq-topic delete: a listing of the topic that fails deletes nothing and says so" {
	tmq-topic create ev
	seq 3 | tmq-put ev
	for n in 1 2; do
		run --separate-stderr eio "$n" "$TMQ_ROOT/ev" \
		    tmq-topic delete --yes ev
		assert_failure 1
		assert_stderr 'tmq-topic: ev: not deleted: ev/: cannot read the directory: Input/output error'
		run -0 tmq-get ev
		assert_output $'1\n2\n3'
	done
}

# --- files that do not chain -------------------------------------------

# damaged KIND: topic ev, 300 messages in day D's file 0-D_0.tmf, read to
# its end by group g; then the partition's files made not to chain:
#   empty  an empty 0-D+1_0.tmf beside them (what a put that took a failed
#          listing for an empty directory made);
#   gap    300 more in 0-D+1_400.tmf: it starts where no file ends;
#   cut    300 more in 0-D+1_300.tmf, and 0-D_0.tmf cut in the middle of
#          its 151st line.
# Sets old and new, the two files' names, and why, the message that says
# so.
damaged() {
	local d t
	tmq-topic create ev
	seq 0 299 | tmq-put ev
	tmq-get -g g ev >/dev/null
	old=$(cd "$TMQ_ROOT/ev" && echo 0-*_0.tmf)
	d=${old#0-}
	d=${d%%_*}
	t=$(date -u -d "$d +1 day" +%Y%m%d)
	case $1 in
	empty)
		new=0-${t}_0.tmf
		: >"$TMQ_ROOT/ev/$new"
		why="ev: partition 0: $new starts at offset 0, but $old before it ends at 300: its files do not chain"
		;;
	gap)
		new=0-${t}_400.tmf
		seq 300 599 | tomorrow tmq-put ev
		mv "$TMQ_ROOT/ev/0-${t}_300.tmf" "$TMQ_ROOT/ev/$new"
		why="ev: partition 0: $new starts at offset 400, but $old before it ends at 300: its files do not chain"
		;;
	cut)
		new=0-${t}_300.tmf
		seq 300 599 | tomorrow tmq-put ev
		truncate -s $(($(head -n 150 "$TMQ_ROOT/ev/$old" | wc -c) + 9)) \
		    "$TMQ_ROOT/ev/$old"
		why="ev: partition 0: $new starts at offset 300, but $old before it ends at 151 (its last line cut short): its files do not chain"
		;;
	esac
	run ls "$TMQ_ROOT/ev"
	assert_output "$old
$new"
}

@test "files that do not chain: tmq-get, from the start, from an offset, as a member, says so and exits 1" {
	for kind in empty gap cut; do
		tmq-topic delete --yes ev 2>/dev/null || :
		damaged $kind
		run --separate-stderr tmq-get -F '%o\n' ev
		assert_failure 1
		stderr_has "tmq-get: $why"
		# Nothing past the break: what precedes it only.
		case $kind in
		empty) assert_output '' ;;
		gap) assert_equal "${lines[-1]}" 299 ;;
		cut) assert_equal "${lines[-1]}" 149 ;;
		esac
		for from in 200 350 450; do
			run --separate-stderr tmq-get --from $from ev
			assert_failure 1
			stderr_has "tmq-get: $why"
		done
		run --separate-stderr tmq-get -g g2 ev
		assert_failure 1
		stderr_has "tmq-get: $why"
	done
}

@test "files that do not chain: tmq-dump and tmq-dump --verify say so and exit 1" {
	for kind in empty gap cut; do
		tmq-topic delete --yes ev 2>/dev/null || :
		damaged $kind
		run --separate-stderr tmq-dump ev
		assert_failure 1
		stderr_has "tmq-dump: $why"
		run --separate-stderr tmq-dump --verify
		assert_failure 1
		stderr_has "tmq-dump: $why"
		run --separate-stderr tmq-dump --verify ev
		assert_failure 1
		stderr_has "tmq-dump: $why"
	done
}

@test "files that do not chain: info, info --ends, list -l, tmq-group describe say so, the files named, and exit 1" {
	for kind in empty gap cut; do
		tmq-topic delete --yes ev 2>/dev/null || :
		damaged $kind
		for cmd in 'tmq-topic info ev' 'tmq-topic info --json ev' \
		    'tmq-topic list -l' 'tmq-topic list --json' \
		    'tmq-group describe g'; do
			run --separate-stderr $cmd
			assert_failure 1
			assert_stderr "${cmd%% *}: $why"
		done
		run --separate-stderr tmq-topic info --ends ev
		assert_failure 1
		assert_stderr "tmq-topic: $why"
		assert_output ''
	done
}

@test "files that do not chain: the metrics leave the partition out and set their scrape error" {
	for kind in empty gap cut; do
		tmq-topic delete --yes ev 2>/dev/null || :
		damaged $kind
		run --separate-stderr tmq-topic list --prometheus
		assert_success
		assert_stderr "tmq-topic: $why"
		assert_line 'tmq_topic_scrape_error{topic="ev"} 1'
		refute_line --partial 'tmq_partition_end_offset{'
		run --separate-stderr tmq-group list --prometheus
		assert_success
		assert_stderr "tmq-group: $why"
		assert_line 'tmq_group_scrape_error{group="g",topic="ev"} 1'
		refute_line --partial 'tmq_group_lag{'
	done
}

@test "files that chain are no damage: an empty older file, a killed writer's cut line before the next day's file" {
	tmq-topic create ev
	seq 0 2 | tmq-put ev
	old=$(cd "$TMQ_ROOT/ev" && echo 0-*_0.tmf)
	d=${old#0-}
	d=${d%%_*}
	# An empty file of an earlier day, where the next one starts (a
	# writer killed before its first line).
	mv "$TMQ_ROOT/ev/$old" "$TMQ_ROOT/ev/0-$(date -u -d "$d +1 day" +%Y%m%d)_0.tmf"
	: >"$TMQ_ROOT/ev/$old"
	# A line cut short at the end: the next day's file starts after it.
	printf 'cut' >>"$TMQ_ROOT/ev/0-$(date -u -d "$d +1 day" +%Y%m%d)_0.tmf"
	seq 3 5 | ahead 2 tmq-put ev
	run ls "$TMQ_ROOT/ev"
	assert_output "$old
0-$(date -u -d "$d +1 day" +%Y%m%d)_0.tmf
0-$(date -u -d "$d +2 day" +%Y%m%d)_4.tmf"
	run -0 tmq-topic info --ends ev
	assert_output '0=7'
	run -0 tmq-topic list -l
	run -0 tmq-get -F '%o %s\n' --from 4 ev
	assert_output $'4 3\n5 4\n6 5'
	run -0 tmq-dump "$TMQ_ROOT"/ev/0-$(date -u -d "$d +2 day" +%Y%m%d)_4.tmf
	run --separate-stderr tmq-get -F '%o %s\n' ev
	assert_failure 1
	assert_stderr 'tmq-get: ev: partition 0 offset 3: unterminated line'
	assert_output $'0 0\n1 1\n2 2\n4 3\n5 4\n6 5'
}
