#!/usr/bin/env bats
# t0261-follow-shared: tmq-put --follow in a root that a co-user writes
# to.  The state kept in TOPIC/.tmq/follow.HASH steers where in the
# followed file a follower goes on, never which file it reads: a follower
# opens only the path it was given and, by name, its rotated predecessor
# (PATH.1), believes only a state its own user wrote and no one else may
# write, and says when it does not believe one; one follower of a file
# into a topic at a time, whichever user runs it.

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

# Two Unix users in one fresh group (U1 the co-user, U2 the victim, GRP),
# the tools where both reach them, and their root ($SHARED/root, the
# group's, setgid); V, the victim's own directory (its log and its
# private file), which the co-user may look into but not write.
team() {
	shared_users
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
	V=$SHARED/v
	install -d -o "$U2" -m 755 "$V"
}

# as USER COMMAND: run COMMAND (a shell line) as USER, umask 002 (the
# group may write what is made in the root), in the shared root.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env PATH="$SHARED/bin:/usr/bin:/bin" TMQ_ROOT="$SHARED/root" \
	    ASAN_OPTIONS="${ASAN_OPTIONS-}" UBSAN_OPTIONS="${UBSAN_OPTIONS-}" \
	    sh -c "umask 002; cd $V; $*"
}

# victim_follow: the victim follows app.log into logs until all of it is
# taken, then stops it (TERM).
victim_follow() {
	rm -f "$V/f.pid"
	as "$U2" "echo \$\$ >f.pid; exec tmq-put --follow app.log logs" 2>>"$V/f.err" 3>&- &
	local pid=$! fpid
	undo pid "$pid"
	wait_for test -s "$V/f.pid"
	fpid=$(cat "$V/f.pid")
	undo pid "$fpid"
	wait_for taken
	kill -TERM "$fpid"
	wait "$pid"
}

# taken: the victim's state says all of app.log was taken.
taken() {
	local st
	st=$(state)
	[ -n "$st" ] && grep -qx "offset $(stat -c %s "$V/app.log")" "$st"
}

state() {
	local st
	for st in "$SHARED/root/logs/.tmq"/follow.*; do
		case $st in *.lock) ;; *) [ -e "$st" ] && echo "$st" ;; esac
	done
}

# forge FILE: the state the co-user writes to make the victim's follower
# read FILE from its start, as a file of the same directory that the log
# was rotated to (its device and inode, offset 0: the check of no bytes).
forge() {
	printf 'tmq-put --follow 1\nfile %s\ndev %s\nino %s\noffset 0\ncheck 2d06800538d394c2\n' \
	    "$V/app.log" "$(stat -c %d "$1")" "$(stat -c %i "$1")"
}

@test "follow, shared root: a co-user's forged state never makes the victim's follower read another file" {
	team
	as "$U2" "tmq-topic create logs"
	as "$U2" "printf 'line 1\nline 2\n' >app.log; printf 'the secret\n' >secret; chmod 600 secret"
	victim_follow
	local st name
	st=$(state)
	name=logs/.tmq/${st##*/}
	# The co-user cannot read the secret, but sees its inode, and puts a
	# state of their own in the victim's place.
	run as "$U1" "cat secret"
	assert_failure
	forge "$V/secret" >"$SHARED/forged"
	chmod 644 "$SHARED/forged"
	as "$U1" "rm -f '$st'; cp '$SHARED/forged' '$st'"
	[ "$(stat -c %U "$st")" = "$U1" ]
	as "$U2" "printf 'line 3\n' >>app.log"
	: >"$V/f.err"
	victim_follow
	run as "$U1" "tmq-get -F '%s\n' logs"
	refute_output --partial "secret"
	assert_output "line 1
line 2
line 1
line 2
line 3"
	run cat "$V/f.err"
	assert_output "tmq-put: $name: not written by this user: not believed, app.log is read from its start"
	# Written anew, by the victim, and only the victim may write it.
	[ "$(stat -c %U "$st")" = "$U2" ]
	[ "$(stat -c %a "$st")" = 644 ]
	run as "$U1" "printf x >>'$st'"
	assert_failure
}

@test "follow, shared root: a state of the victim's own naming another file of its directory is never used to pick it" {
	team
	as "$U2" "tmq-topic create logs"
	as "$U2" "printf 'line 1\n' >app.log; printf 'the secret\n' >secret; chmod 600 secret"
	victim_follow
	local st name
	st=$(state)
	name=logs/.tmq/${st##*/}
	# A state the victim's own (its modes let the group write it, as an
	# older tmq left them in a group's root), rewritten by the co-user.
	chmod 664 "$st"
	forge "$V/secret" >"$SHARED/forged"
	as "$U1" "cat '$SHARED/forged' >'$st'"
	[ "$(stat -c %U "$st")" = "$U2" ]
	: >"$V/f.err"
	victim_follow
	run cat "$V/f.err"
	assert_output "tmq-put: $name: writable by other users: not believed, app.log is read from its start"
	# Even believed (the victim wrote it so itself), it names a file the
	# follower does not open: only app.log, and app.log.1 by name.
	as "$U2" "cat '$SHARED/forged' >'$st'; chmod 644 '$st'"
	: >"$V/f.err"
	victim_follow
	run cat "$V/f.err"
	assert_output "tmq-put: app.log: replaced since it was last followed, and the old file is not app.log.1: reading the new one from its start"
	run as "$U1" "tmq-get -F '%s\n' logs"
	refute_output --partial "secret"
	assert_output "line 1
line 1
line 1"
}

@test "follow, shared root: another user's follower of the same file keeps the victim's out, naming it; another user's lock file left behind does not" {
	team
	as "$U2" "tmq-topic create logs"
	as "$U2" ": >app.log"
	# The co-user follows the victim's file into the topic first: the
	# victim's follower refuses, naming theirs.
	install -d -o "$U1" -m 755 "$SHARED/u1"
	as "$U1" "echo \$\$ >$SHARED/u1/pid; exec tmq-put --follow $V/app.log logs" 2>"$SHARED/u1.err" 3>&- &
	local u1=$! u1pid st lock
	undo pid "$u1"
	wait_for test -s "$SHARED/u1/pid"
	u1pid=$(cat "$SHARED/u1/pid")
	undo pid "$u1pid"
	wait_for taken
	st=$(state)
	lock=logs/.tmq/${st##*/}.lock
	[ "$(stat -c %U "$SHARED/root/$lock")" = "$U1" ]
	run --separate-stderr as "$U2" "timeout 20 tmq-put --follow app.log logs"
	assert_fails_with "tmq-put: app.log: followed into logs already, by pid $u1pid (which holds $lock)"
	kill -TERM "$u1pid"
	wait "$u1"
	# A lock file of the co-user's that nobody holds: taken over (and the
	# co-user's state not believed).
	as "$U1" "printf '1 elsewhere\n' >$SHARED/root/$lock; chmod 644 $SHARED/root/$lock"
	[ "$(stat -c %U "$SHARED/root/$lock")" = "$U1" ]
	as "$U2" "printf 'line 1\n' >>app.log"
	: >"$V/f.err"
	victim_follow
	run cat "$V/f.err"
	assert_output "tmq-put: logs/.tmq/${st##*/}: not written by this user: not believed, app.log is read from its start"
	[ ! -e "$SHARED/root/$lock" ]
	run as "$U2" "tmq-get -F '%s\n' logs"
	assert_output "line 1"
}
