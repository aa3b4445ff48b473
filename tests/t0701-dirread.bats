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
# with EIO.
eio() {
	local n=$1 dir=$2
	shift 2
	strace -f -o /dev/null -P "$dir" -e trace=getdents64 \
	    -e inject=getdents64:error=EIO:when="$n" "$@"
}

# tomorrow COMMAND...: COMMAND with a clock one day ahead (a new day's
# file).  ASan wants to be preloaded first.
tomorrow() {
	command -v faketime >/dev/null || skip "faketime is not installed"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    faketime -f +1d "$@"
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
		run --separate-stderr tomorrow strace -f -o /dev/null \
		    -P "$TMQ_ROOT/ev" -e trace=getdents64 \
		    -e inject=getdents64:error=EIO:when="$n" tmq-put ev new
		assert_failure 1
		stderr_matches '^tmq-put: ev: (partition 0: )?cannot list the topic directory: Input/output error; no message was written$'
		run ls "$TMQ_ROOT/ev"
		assert_output "$before"
	done
	# Those after it: the file is made (where the last one ends), nothing
	# written in it.
	for n in 7 8; do
		run --separate-stderr tomorrow strace -f -o /dev/null \
		    -P "$TMQ_ROOT/ev" -e trace=getdents64 \
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
