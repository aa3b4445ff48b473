#!/usr/bin/env bats
# t0720-shared-root: a root that several users (and a hostile co-user)
# write to.  Symbolic links planted anywhere in the root never carry a
# file that tmq opens or creates out of it; the modes of what tmq creates
# follow the directory it is created in; a root that others can write to
# is warned about; delete removes only what is the topic's, and what a
# co-user plants where create and delete work is never followed, recursed
# into or removed.
#
# Every test has a fresh root; every wait is bounded in time.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	OUT=$BATS_TEST_TMPDIR/outside
	mkdir "$OUT"
}

# What a test made, undone whatever happened (test_helper's undo_all).
teardown() {
	undo_all
}

# Two Unix users in one fresh group (names in U1, U2, GRP), and a
# directory all users can reach (SHARED) for their root.
two_users() {
	shared_users
}

# as USER COMMAND: run COMMAND (a shell line) as USER, umask 022, in the
# shared root.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env PATH="$SHARED/bin:/usr/bin:/bin" TMQ_ROOT="$SHARED/root" \
	    ASAN_OPTIONS="${ASAN_OPTIONS-}" TMQ_SANITIZED="$TMQ_SANITIZED" \
	    sh -c "umask 022; cd /; $*"
}

# The day file tmq-put starts today for partition $1 (default 0).
today_file() {
	printf '%s-%s_0.tmf' "${1:-0}" "$(date -u +%Y%m%d)"
}

# ---------------------------------------------------------------- links

@test "a .tmq beside a group's log that links out of the root: tmq-get -g G -P N creates nothing there" {
	tmq-topic create ev
	tmq-put ev x
	tmq-get -g G -P 0 ev >/dev/null
	rm -r "$TMQ_ROOT/--group--G/.tmq"
	ln -s "$OUT" "$TMQ_ROOT/--group--G/.tmq"
	run --separate-stderr tmq-get -g G -P 0 ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: group G: --group--G/.tmq is a symbolic link (not followed)'
	run ls -A "$OUT"
	assert_output ''
	# A link as the lock itself is not followed either.
	rm "$TMQ_ROOT/--group--G/.tmq"
	mkdir "$TMQ_ROOT/--group--G/.tmq"
	ln -s "$OUT/lock" "$TMQ_ROOT/--group--G/.tmq/lock"
	run --separate-stderr tmq-get -g G -P 0 ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: group G: --group--G/.tmq/lock: a symbolic link, not followed'
	run ls -A "$OUT"
	assert_output ''
}

@test "a .tmq beside a group's log that links out of the root: a member (tmq-get -g G) makes nothing there" {
	tmq-topic create ev
	tmq-put ev x
	tmq-get -g G -P 0 ev >/dev/null
	rm -r "$TMQ_ROOT/--group--G/.tmq"
	ln -s "$OUT" "$TMQ_ROOT/--group--G/.tmq"
	# (a member without its live file goes on, unvouched, and says so)
	run --separate-stderr tmq-get -g G --window 1 ev
	assert_success
	assert_output x
	assert_equal "$stderr" 'tmq-get: group G: no liveness lock (.tmq is a symbolic link (not followed)): rebalances will wait their window for this member'
	run ls -A "$OUT"
	assert_output ''
}

@test "a group's log directory that links out of the root is refused by every tool, and nothing is made there" {
	tmq-topic create ev
	tmq-put ev x
	tmq-get -g G -P 0 ev >/dev/null
	mv "$TMQ_ROOT/--group--G" "$OUT/log"
	ln -s "$OUT/log" "$TMQ_ROOT/--group--G"
	local before
	before=$(cd "$OUT" && find . -printf '%p %s\n' | sort)
	run --separate-stderr tmq-get -g G -P 0 ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: --group--G: the topic directory is a symbolic link (not followed)'
	run --separate-stderr tmq-get -g G ev
	assert_failure 1
	run --separate-stderr tmq-commit G 0 1
	assert_failure 1
	run --separate-stderr tmq-group describe G
	assert_failure 1
	assert_equal "$stderr" 'tmq-group: --group--G: the topic directory is a symbolic link (not followed)'
	run --separate-stderr tmq-group reset G --to start --force
	assert_failure 1
	run bash -c "cd '$OUT' && find . -printf '%p %s\n' | sort"
	assert_output "$before"
}

@test "a dangling link in place of today's partition file: tmq-put creates nothing where it points" {
	tmq-topic create ev
	rm "$TMQ_ROOT/ev/$(today_file)"	# the empty file create made
	ln -s "$OUT/made" "$TMQ_ROOT/ev/$(today_file)"
	run --separate-stderr tmq-put ev x
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: partition 0: $(today_file): a symbolic link, not followed; no message was written"
	run ls -A "$OUT"
	assert_output ''
}

@test "dangling links in place of a topic's directory or definition: tmq-topic create makes nothing where they point" {
	ln -s "$OUT/dir" "$TMQ_ROOT/ev" 2>/dev/null || { mkdir -p "$TMQ_ROOT"; ln -s "$OUT/dir" "$TMQ_ROOT/ev"; }
	run --separate-stderr tmq-topic create ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-topic: ev: topic exists'
	ln -s "$OUT/def" "$TMQ_ROOT/ev2.twc"
	run --separate-stderr tmq-topic create ev2
	assert_failure 1
	assert_equal "$stderr" 'tmq-topic: ev2: topic exists'
	run ls -A "$OUT"
	assert_output ''
}

@test "tmq-topic delete and tmq-group delete remove links planted in the directory, never what they point to" {
	printf 'precious\n' >"$OUT/file"
	mkdir "$OUT/dir"
	printf 'precious\n' >"$OUT/dir/file"
	tmq-topic create ev
	tmq-put ev x
	tmq-get -g G -P 0 ev >/dev/null
	ln -s "$OUT/file" "$TMQ_ROOT/ev/0-20260101_0.tmf"
	ln -s "$OUT/dir" "$TMQ_ROOT/ev/.tmq"
	rm -r "$TMQ_ROOT/--group--G/.tmq"
	ln -s "$OUT/dir" "$TMQ_ROOT/--group--G/.tmq"
	run tmq-group delete -y G
	assert_success
	run tmq-topic delete -y ev
	assert_success
	run ls -A "$TMQ_ROOT"
	assert_output ''
	run cat "$OUT/file" "$OUT/dir/file"
	assert_output $'precious\nprecious'
}

@test "tmq-topic prune --archive: a link planted in the archive in place of the topic's directory is not followed" {
	tmq-topic create ev
	tmq_write_line "$TMQ_ROOT/ev" 0-20260101_0.tmf 2 0 1767225600 old
	tmq-put ev new
	mkdir "$BATS_TEST_TMPDIR/arch"
	ln -s "$OUT" "$BATS_TEST_TMPDIR/arch/ev"
	run --separate-stderr tmq-topic prune ev --before 2026-06-01 --archive "$BATS_TEST_TMPDIR/arch"
	assert_failure 1
	run ls -A "$OUT"
	assert_output ''
	run ls "$TMQ_ROOT/ev"
	assert_line 0-20260101_0.tmf
}

# ---------------------------------------------------------------- modes

@test "a setgid, group-writable root shared by two users with umask 022: both produce, consume and share groups" {
	two_users
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
	run --separate-stderr as "$U1" 'tmq-topic create ev -p 2 && tmq-put -k 1 ev a1 && tmq-put -k 2 ev a2'
	assert_success
	assert_equal "$stderr" ''
	# The other user appends to the day files the first one started.
	run --separate-stderr as "$U2" 'tmq-put -k 1 ev b1 && tmq-put -k 2 ev b2'
	assert_success
	assert_equal "$stderr" ''
	# The second user creates a group; the first reads and commits in it.
	run --separate-stderr as "$U2" 'tmq-get -g G --window 1 --commit -n 1 -F "%s\n" ev'
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr as "$U1" 'tmq-get -g G --window 1 --commit -F "%s\n" ev'
	assert_success
	assert_equal "$stderr" ''
	assert_equal "$(echo "$output" | wc -l)" 3
	run --separate-stderr as "$U2" 'tmq-group describe G'
	assert_success
	# Fixed partitions: the lock one user made, the other takes.
	run --separate-stderr as "$U1" 'tmq-get -g F -P 0 -F "%s\n" ev'
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr as "$U2" 'tmq-get -g F -P 0 -F "%s\n" ev && tmq-commit F 0 1'
	assert_success
	assert_equal "$stderr" ''
	# What was made is the group's to write, directories setgid.
	run find "$SHARED/root" -mindepth 1 \( -type f ! -perm -0660 \) -o \( -type d ! -perm -2770 \)
	assert_output ''
	run find "$SHARED/root" -mindepth 1 ! -group "$GRP"
	assert_output ''
}

@test "without setgid on the directory, the umask decides" {
	export TMQ_ROOT="$BATS_TEST_TMPDIR/r"
	mkdir -m 0775 "$TMQ_ROOT"
	(
		umask 022
		tmq-topic create ev
		tmq-put ev x
	)
	run stat -c %a "$TMQ_ROOT/ev" "$TMQ_ROOT/ev.twc" "$TMQ_ROOT"/ev/*.tmf
	assert_output $'755\n644\n644'
	chmod 2775 "$TMQ_ROOT"
	(
		umask 077
		tmq-topic create ev2
		tmq-put ev2 x
		tmq-get -g G -P 0 ev2 >/dev/null
	)
	run stat -c %a "$TMQ_ROOT/ev2" "$TMQ_ROOT/ev2.twc" "$TMQ_ROOT"/ev2/*.tmf \
	    "$TMQ_ROOT/--group--G" "$TMQ_ROOT/--group--G/.tmq" "$TMQ_ROOT/--group--G/.tmq/lock"
	assert_output $'2770\n660\n660\n2770\n2770\n660'
}

# ---------------------------------------------------------------- risk

@test "a world-writable root without the sticky bit is warned about once, naming the path" {
	tmq-topic create ev
	chmod 0777 "$TMQ_ROOT"
	run --separate-stderr tmq-put ev x
	assert_success
	assert_equal "$stderr" "tmq-put: $TMQ_ROOT: the root is open to others: every user can write to it, so they can plant, change or remove its files (see tmq(7), A shared root)"
	run --separate-stderr tmq-get ev
	assert_success
	assert_equal "$(echo "$stderr" | wc -l)" 1
	# Sticky and ours, as /tmp is: no warning.
	chmod 1777 "$TMQ_ROOT"
	run --separate-stderr tmq-get ev
	assert_success
	assert_equal "$stderr" ''
	chmod 0755 "$TMQ_ROOT"
	run --separate-stderr tmq-get ev
	assert_equal "$stderr" ''
}

@test "a root that another user owns and lets others write to is warned about, also through a symbolic link" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give the root to another user"
	tmq-topic create ev
	chown nobody "$TMQ_ROOT"
	chmod 0775 "$TMQ_ROOT"
	ln -s "$TMQ_ROOT" "$BATS_TEST_TMPDIR/link"
	run --separate-stderr tmq-get -d "$BATS_TEST_TMPDIR/link" ev
	assert_success
	assert_equal "$stderr" "tmq-get: $BATS_TEST_TMPDIR/link: the root is open to others: it belongs to user nobody, and its group can write to it, so they can plant, change or remove its files (see tmq(7), A shared root)"
	chmod 1777 "$TMQ_ROOT"
	run --separate-stderr tmq-topic list
	assert_equal "$stderr" "tmq-topic: $TMQ_ROOT: the root is open to others: it belongs to user nobody, and every user can write to it, so they can plant, change or remove its files (see tmq(7), A shared root)"
	# Owned by another user who alone may write: nothing to say.
	chmod 0755 "$TMQ_ROOT"
	run --separate-stderr tmq-get ev
	assert_equal "$stderr" ''
}

# ---------------------------------------------------------------- planted files
#
# The attacker (U1) plants, the victim (U2) runs, in a setgid root both may
# write to, as a team's is.  Every command of the victim runs under a
# timeout or in the background with its end waited for (bounded): a hang
# fails the test, it does not hang the suite.

# team_root: two users (two_users) and their root; V, a directory of the
# victim's for what its commands in the background print.
team_root() {
	two_users
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
	V=$SHARED/v
	install -d -o "$U2" -m 755 "$V"
	G=$SHARED/root/--group--G
}

# victim_bg NAME WORD...: the victim runs the command WORD... (words with
# nothing to quote) in the background: stdout in $V/NAME.out, stderr in
# NAME.err, and once it ends its exit status in NAME.rc; PID is its pid.
victim_bg() {
	local name=$1
	shift
	as "$U2" "sh -c 'echo \$\$ >$V/$name.pid; exec \"\$@\"' sh $* >$V/$name.out 2>$V/$name.err; echo \$? >$V/$name.rc" 3>&- &
	wait_for test -s "$V/$name.pid"
	PID=$(cat "$V/$name.pid")
	undo pid "$PID"
}

# ended NAME: NAME (victim_bg) has ended; RC is its exit status.
ended() {
	[ -s "$V/$1.rc" ] && RC=$(cat "$V/$1.rc")
}

# holds N: as the victim sees it, group G is stable with N members owning
# the 4 partitions between them, each once, and every member has confirmed
# its share after the ENDREBAL that closed the last rebalance (so no
# partition is read by two).
holds() {
	as "$U2" "tmq-group describe --json G 2>/dev/null >$V/describe.json &&
	    tmq-dump -J -- --group--G >$V/log.jsonl" &&
	    python3 "$BATS_TEST_DIRNAME/group-settled.py" "$1" 4 "$V/describe.json" \
		"$V/log.jsonl" >/dev/null
}

# lines_of PREFIX N FILE...: the files hold N lines or more that begin
# with PREFIX, between them.
lines_of() {
	local prefix=$1 n=$2
	shift 2
	[ "$(cat "$@" | grep -c "^$prefix")" -ge "$n" ]
}

# plant KIND NAME: the shell line that puts a KIND (fifo, socket, link,
# dir) at NAME, for the attacker to run in the directory.
plant() {
	case $1 in
	fifo) echo "mkfifo $2" ;;
	socket) echo "/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' $2" ;;
	link) echo ": >decoy; ln -s decoy $2" ;;	# to a file no lock holds
	dir) echo "mkdir $2" ;;
	esac
}

# what_is KIND: how tmq says what it found.
what_is() {
	case $1 in
	fifo) echo "not a regular file (a FIFO)" ;;
	socket) echo "not a regular file (a socket)" ;;
	link) echo "a symbolic link, not followed" ;;
	dir) echo "not a regular file (a directory)" ;;
	esac
}

@test "a FIFO, socket, link or directory in place of a running member's lock file: describe, list, a joiner and the member go on, the member unvouched, never dead" {
	team_root
	as "$U2" 'tmq-topic create ev -p 4'
	victim_bg m1 tmq-get -g G --window 1 -f --commit ev
	m1=$PID
	wait_for holds 1
	live=$(cd "$G/.tmq" && echo live.*)
	[ -f "$G/.tmq/$live" ]
	for kind in fifo socket link dir; do
		# The attacker swaps the member's file (its name is in the
		# member's JOINED) for one of these.
		as "$U1" "cd $G/.tmq && rm -rf $live decoy && $(plant "$kind" "$live")"
		notice="group G: --group--G/.tmq/$live: $(what_is "$kind"): member 1 cannot be vouched for"
		run --separate-stderr as "$U2" 'timeout 20 tmq-group describe --json G'
		assert_success
		assert_output --partial '"members":{"1":[0,1,2,3]}'
		assert_output --partial '"alive":{"1":null}'
		assert_equal "$stderr" "tmq-group: $notice"
		run --separate-stderr as "$U2" 'timeout 20 tmq-group list'
		assert_success
		assert_line --regexp '^G +ev +1 '
		assert_equal "$stderr" "tmq-group: $notice"
		# A member joins: the running one answers the rebalance and
		# they share the partitions (had it been taken for dead, or
		# were it hung, the joiner would take them all, or hang).
		victim_bg "j-$kind" tmq-get -g G --window 1 -f --commit ev
		j=$PID
		wait_for holds 2
		as "$U2" "tmq-put -K: ev 1:$kind-1 2:$kind-2 3:$kind-3 4:$kind-4 5:$kind-5 6:$kind-6 7:$kind-7 8:$kind-8"
		wait_for lines_of "$kind-" 8 "$V/m1.out" "$V/j-$kind.out"
		run bash -c "cat '$V/m1.out' '$V/j-$kind.out' | grep '^$kind-' | sort"
		assert_output "$(printf '%s\n' "$kind"-{1..8})"
		[ -s "$V/j-$kind.out" ]	# each read its share
		# SIGTERM: the joiner leaves at once, and the running member
		# takes the partitions back.
		kill -TERM "$j"
		wait_for ended "j-$kind"
		assert_equal "$RC" 0
		assert_equal "$(cat "$V/j-$kind.err")" "tmq-get: $notice"
		wait_for holds 1
	done
	kill -TERM "$m1"
	wait_for ended m1
	assert_equal "$RC" 0
	assert_equal "$(cat "$V/m1.err")" ""
}

@test "a FIFO or socket in place of a group's .tmq, its lock or its snapshot: members go on unvouched, fixed partitions are refused naming it, nothing hangs" {
	team_root
	as "$U2" 'tmq-topic create ev -p 4 && tmq-put -K: ev 1:a 2:b 3:c &&
	    tmq-get -g G --window 1 ev >/dev/null && tmq-get -g G -P 0 ev >/dev/null'
	[ -f "$G/.tmq/lock" ]
	# .tmq itself: the member goes on without its lock, said once.
	as "$U1" "cd $G && rm -rf .tmq && mkfifo .tmq"
	run --separate-stderr as "$U2" 'timeout 20 tmq-get -g G --window 1 --from start ev'
	assert_success
	assert_equal "$(sort <<<"$output")" $'a\nb\nc'
	assert_equal "$stderr" 'tmq-get: group G: no liveness lock (.tmq: not a directory (a FIFO)): rebalances will wait their window for this member'
	run --separate-stderr as "$U2" 'timeout 20 tmq-get -g G -P 0 ev'
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: group G: --group--G/.tmq: not a directory (a FIFO)'
	run --separate-stderr as "$U2" 'TMQ_SNAPSHOT_EVERY=1 timeout 20 tmq-group describe G'
	assert_success
	assert_line --regexp '^state: +empty'
	# The group's lock, for fixed partitions.
	as "$U1" "cd $G && rm .tmq && mkdir -m 2770 .tmq && mkfifo .tmq/lock"
	run --separate-stderr as "$U2" 'timeout 20 tmq-get -g G -P 0 ev'
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'tmq-get: group G: --group--G/.tmq/lock: not a regular file (a FIFO)'
	as "$U1" "cd $G/.tmq && rm lock && $(plant socket lock)"
	run --separate-stderr as "$U2" 'timeout 20 tmq-get -g G -P 0 ev'
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: group G: --group--G/.tmq/lock: not a regular file (a socket)'
	# The snapshot: not read, and replaced by the next one written.
	as "$U1" "cd $G/.tmq && rm lock && mkfifo snapshot.$(id -u "$U2")"
	run --separate-stderr as "$U2" 'TMQ_SNAPSHOT_EVERY=1 timeout 20 tmq-group describe G'
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr as "$U2" 'TMQ_SNAPSHOT_EVERY=1 timeout 20 tmq-get -g G -P 1,2,3 ev'
	assert_success
	assert_equal "$stderr" ''
	[ -f "$G/.tmq/snapshot.$(id -u "$U2")" ]
}

# attacker_bg NAME WORD...: as victim_bg, for the attacker.
attacker_bg() {
	local name=$1
	shift
	as "$U1" "sh -c 'echo \$\$ >$SHARED/a/$name.pid; exec \"\$@\"' sh $* >/dev/null 2>&1" 3>&- &
	wait_for test -s "$SHARED/a/$name.pid"
	PID=$(cat "$SHARED/a/$name.pid")
	undo pid "$PID"
}

# in_locks TYPE INODE: /proc/locks has a lock of TYPE (POSIX, FLOCK,
# "-> OFDLCK" for a waiter...) on the file with that inode.
in_locks() {
	grep -Eq "^[0-9]+: $1 .* [0-9a-f]+:[0-9a-f]+:$2 " /proc/locks
}

# new_live N: the group's .tmq holds N lock files or more.
new_live() {
	[ "$(find "$G/.tmq" -name 'live.*' | wc -l)" -ge "$1" ]
}

@test "SIGTERM ends a member waiting on a lock a co-user holds on the group's log, or its directory, or on a last line they keep growing" {
	team_root
	install -d -o "$U1" -m 755 "$SHARED/a"
	# lock.py FILE: a POSIX write lock on FILE; lock.py -d DIR: flock.
	cat >"$SHARED/a/lock.py" <<-'PY'
	import fcntl, os, sys, time
	if sys.argv[1] == "-d":
	    fd = os.open(sys.argv[2], os.O_RDONLY)
	    fcntl.flock(fd, fcntl.LOCK_EX)
	else:
	    fd = os.open(sys.argv[1], os.O_RDWR)
	    fcntl.lockf(fd, fcntl.LOCK_EX)
	time.sleep(3600)
	PY
	cat >"$SHARED/a/grow.py" <<-'PY'
	import sys, time
	f = open(sys.argv[1], "ab", buffering=0)
	while True:
	    f.write(b"x")
	    time.sleep(0.002)
	PY
	as "$U2" 'tmq-topic create ev -p 4 && tmq-put ev x && tmq-get -g G --window 1 ev >/dev/null'
	log=$(echo "$G"/*.tmf)
	[ -f "$log" ]
	ino=$(stat -c %i "$log")
	joined() { as "$U2" 'tmq-dump -J -- --group--G' | grep -c JOINED; }
	before=$(joined)

	# The log's file, locked: a joiner waits to write its JOINED, and a
	# signal ends the wait; it wrote nothing, and says nothing.
	attacker_bg lock /usr/bin/python3 "$SHARED/a/lock.py" "$log"
	locker=$PID
	wait_for in_locks 'POSIX +ADVISORY +WRITE' "$ino"
	victim_bg j1 tmq-get -g G --window 1 -f ev
	wait_for in_locks '-> OFDLCK' "$ino"
	kill -TERM "$PID"
	wait_for ended j1
	assert_equal "$RC $(cat "$V/j1.err")" "0 "
	assert_equal "$(joined)" "$before"

	# A running member, told to stop while the log is locked: it cannot
	# leave, says so, and exits (its lock gone: the others see it dead).
	kill "$locker"
	wait_for gone "$locker"
	victim_bg m tmq-get -g G --window 1 -f ev
	m=$PID
	wait_for holds 1
	attacker_bg lock2 /usr/bin/python3 "$SHARED/a/lock.py" "$log"
	locker=$PID
	wait_for in_locks 'POSIX +ADVISORY +WRITE' "$ino"
	kill -TERM "$m"
	wait_for ended m
	assert_equal "$RC" 1
	assert_equal "$(cat "$V/m.err")" "tmq-get: --group--G: partition 0: nothing written: told to stop while another process held the lock on ${log##*/}"
	kill "$locker"
	wait_for gone "$locker"
	run --separate-stderr as "$U2" 'timeout 20 tmq-group describe --json G'
	assert_success
	assert_output --partial '"alive":{"2":false}'

	# The log's directory, locked (flock): the same.
	dino=$(stat -c %i "$G")
	attacker_bg flock /usr/bin/python3 "$SHARED/a/lock.py" -d "$G"
	locker=$PID
	wait_for in_locks 'FLOCK +ADVISORY +WRITE' "$dino"
	before=$(joined)
	victim_bg j2 tmq-get -g G --window 1 -f ev
	wait_for in_locks '-> FLOCK' "$dino"
	kill -TERM "$PID"
	wait_for ended j2
	assert_equal "$RC $(cat "$V/j2.err")" "0 "
	assert_equal "$(joined)" "$before"
	kill "$locker"
	wait_for gone "$locker"

	# A last line without its newline that keeps growing, a byte at a
	# time: a writer waits for it to end (or to stay as it is, then cuts
	# it), and a signal ends that wait.
	n=$(find "$G/.tmq" -name 'live.*' | wc -l)
	attacker_bg grow /usr/bin/python3 "$SHARED/a/grow.py" "$log"
	victim_bg j3 tmq-get -g G --window 1 -f ev
	wait_for new_live $((n + 1))	# it has read the log, and writes
	kill -TERM "$PID"
	wait_for ended j3
	# (Had the tail stood still long enough to be cut, the member
	# joined, and then could not leave.)
	if [ "$RC" != 0 ]; then
		assert_equal "$RC $(cat "$V/j3.err")" "1 tmq-get: --group--G: partition 0: nothing written: told to stop while the last line of ${log##*/} was still growing"
	else
		assert_equal "$(cat "$V/j3.err")" ""
	fi
}

# ---------------------------------------------------- create and delete

# chain DIR N: a chain of N directories, DIR/d/d/..., made one level at a
# time, as no path could name its bottom; chain -r DIR removes it so.
chain() {
	python3 - "$@" <<'EOF2'
import os, sys
remove = sys.argv[1] == "-r"
top = sys.argv[1 + remove]
os.chdir(top)
if not remove:
    for i in range(int(sys.argv[2])):
        os.mkdir("d")
        os.chdir("d")
else:
    depth = 0
    while os.path.isdir("d"):
        os.chdir("d")
        depth += 1
    for i in range(depth):
        os.chdir("..")
        os.rmdir("d")
EOF2
}

@test "tmq-topic delete of a topic holding a 30,000-deep chain of directories: refused, naming it, nothing changed; once it is gone, deleted" {
	local fs=$BATS_TEST_TMPDIR/fs
	command -v python3 >/dev/null || skip "python3 not found"
	# On a tmpfs when we may mount one (a deep chain is slow to remove
	# from some disks); the chain is as deep as the issue's either way.
	mkdir "$fs"
	if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256m tmpfs "$fs" 2>/dev/null; then
		undo mount "$fs"
	fi
	export TMQ_ROOT=$fs/root
	tmq-topic create -p 2 ev
	tmq-put ev x
	mkdir "$TMQ_ROOT/ev/chain"
	chain "$TMQ_ROOT/ev/chain" 30000
	run --separate-stderr tmq-topic delete -y ev
	assert_fails_with "tmq-topic: ev: not deleted: ev/ holds entries that are not the topic's: chain (remove them, then delete again)"
	run --separate-stderr tmq-topic list
	assert_output ev
	run --separate-stderr tmq-get ev
	assert_success
	assert_output x
	run ls -A "$TMQ_ROOT"
	assert_output $'ev\nev.twc'
	chain -r "$TMQ_ROOT/ev/chain"
	rmdir "$TMQ_ROOT/ev/chain"
	run --separate-stderr tmq-topic delete -y ev
	assert_success
	assert_stderr ''
	run ls -A "$TMQ_ROOT"
	assert_output ''
}

@test "a co-user's 755 directories in a topic and its .tmq: delete refuses, naming them, and the topic stays whole for both users" {
	two_users
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
	run --separate-stderr as "$U1" 'tmq-topic create ev -p 2 && tmq-put ev a && tmq-get -g G -P 0 ev'
	assert_success
	# The other user's own directories (umask 022), with their files.
	run --separate-stderr as "$U2" 'mkdir $TMQ_ROOT/ev/mine && echo theirs >$TMQ_ROOT/ev/mine/f &&
	    mkdir $TMQ_ROOT/--group--G/.tmq/mine && echo theirs >$TMQ_ROOT/--group--G/.tmq/mine/f'
	assert_success
	run --separate-stderr as "$U1" 'tmq-topic delete -y ev'
	assert_fails_with "tmq-topic: ev: not deleted: ev/ holds entries that are not the topic's: mine (remove them, then delete again)"
	run --separate-stderr as "$U1" 'tmq-group delete -y G'
	assert_fails_with "tmq-group: G: not deleted: --group--G/ holds entries that are not the group's: .tmq/mine (remove them, then delete again)"
	run --separate-stderr as "$U2" 'tmq-topic list && tmq-get ev && tmq-group list'
	assert_success
	assert_output --partial $'ev\na\nGROUP'
	assert_line --regexp '^G +ev '
	run cat "$SHARED/root/ev/mine/f" "$SHARED/root/--group--G/.tmq/mine/f"
	assert_output $'theirs\ntheirs'
	# A .tmq of the co-user's that we may not empty stops a delete too,
	# before anything is changed.
	run --separate-stderr as "$U2" 'rm -r $TMQ_ROOT/ev/mine && mkdir $TMQ_ROOT/ev/.tmq && : >$TMQ_ROOT/ev/.tmq/lock'
	assert_success
	run --separate-stderr as "$U1" 'tmq-topic delete -y ev'
	assert_fails_with "tmq-topic: ev: not deleted: ev/.tmq: Permission denied"
	run --separate-stderr as "$U1" 'tmq-topic list'
	assert_output ev
	# Gone, and both deletes go through.
	run --separate-stderr as "$U2" 'rm -r $TMQ_ROOT/ev/.tmq $TMQ_ROOT/--group--G/.tmq/mine'
	assert_success
	run --separate-stderr as "$U1" 'tmq-group delete -y G && tmq-topic delete -y ev'
	assert_success
	assert_equal "$stderr" ''
	run ls -A "$SHARED/root"
	assert_output ''
}

@test "what a co-user plants in a name's work directory (NAME+tmq) is never followed, recursed into or removed, and is said" {
	printf 'precious\n' >"$OUT/file"
	mkdir -p "$TMQ_ROOT"
	# A link in its place: nothing is made where it points.
	ln -s "$OUT" "$TMQ_ROOT/ev+tmq"
	run --separate-stderr tmq-topic create ev
	assert_fails_with "tmq-topic: ev: cannot create the topic directory: ev+tmq is not a directory (not ours)"
	rm "$TMQ_ROOT/ev+tmq"
	# A FIFO for its lock: refused at once, never opened.
	mkdir "$TMQ_ROOT/ev+tmq"
	mkfifo "$TMQ_ROOT/ev+tmq/lock"
	run --separate-stderr timeout 60 tmq-topic create ev
	assert_fails_with "tmq-topic: ev: cannot create the topic directory: ev+tmq: lock: not a regular file (a FIFO)"
	rm "$TMQ_ROOT/ev+tmq/lock"
	rmdir "$TMQ_ROOT/ev+tmq"
	tmq-topic create ev
	tmq-put ev x
	# Links named as partition files where a create builds: unlinked,
	# never followed; the create goes on.
	mkdir -p "$TMQ_ROOT/ev2+tmq/new"
	ln -s "$OUT/file" "$TMQ_ROOT/ev2+tmq/new/0-20250101_0.tmf"
	ln -s "$OUT" "$TMQ_ROOT/ev2+tmq/new/.tmq"
	run --separate-stderr tmq-topic create ev2
	assert_success
	run cat "$OUT/file"
	assert_output precious
	# Foreign entries (a deep chain, a file of another name) where a
	# create builds, or a delete empties: each stops its command, named,
	# before anything is changed.
	mkdir -p "$TMQ_ROOT/ev3+tmq/new/deep/deep/deep" "$TMQ_ROOT/ev+tmq/old/deep/deep/deep"
	: >"$TMQ_ROOT/ev+tmq/old/notes"
	run --separate-stderr tmq-topic create ev3
	assert_fails_with "tmq-topic: ev3: not created: ev3+tmq/new holds entries that are not a topic's: deep"
	run --separate-stderr tmq-topic delete -y ev
	assert_failure 1
	assert_equal "$stderr" "tmq-topic: ev: not deleted: ev+tmq/old holds entries that are not a topic's: $(ls -U "$TMQ_ROOT/ev+tmq/old" | paste -sd, | sed 's/,/, /g')"
	run --separate-stderr tmq-get ev
	assert_output x
	run ls -A "$TMQ_ROOT/ev+tmq/old" "$TMQ_ROOT/ev3+tmq/new"
	assert_output $'/'"${TMQ_ROOT#/}"$'/ev+tmq/old:\ndeep\nnotes\n\n/'"${TMQ_ROOT#/}"$'/ev3+tmq/new:\ndeep'
	run ls -A "$OUT"
	assert_output file
}

# stopped PID: the process is stopped (by a signal or its tracer).
stopped() {
	case $(ps -o stat= -p "$1") in
	[tT]*) return 0 ;;
	esac
	return 1
}

@test "an entry planted in the moment a delete has moved the directory away: the topic is deleted, the entry kept and said where; it stops the next delete, never a create" {
	local spid tpid st
	command -v strace >/dev/null || skip "strace not found"
	tmq-topic create -p 2 ev
	tmq-put ev x
	# The delete is stopped right after its first rename (the directory
	# moved away), the co-user plants, the delete goes on.
	# (LeakSanitizer cannot work under ptrace.)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -o /dev/null -e trace=renameat,renameat2 \
	    -e inject=renameat,renameat2:signal=SIGSTOP:when=1 \
	    tmq-topic delete -y ev 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	spid=$!
	undo pid "$spid"
	wait_for pgrep -P "$spid"
	tpid=$(pgrep -P "$spid")
	# The move first: a tracee is stopped a moment at each of its system
	# calls too (CI once saw it so before the rename); once the directory
	# has moved, the SIGSTOP comes before it runs on.
	wait_for test -d "$TMQ_ROOT/ev+tmq"
	wait_for stopped "$tpid"
	run ls -A "$TMQ_ROOT" "$TMQ_ROOT/ev+tmq"
	assert_output $'/'"${TMQ_ROOT#/}"$':\nev+tmq\nev.twc\n\n/'"${TMQ_ROOT#/}"$'/ev+tmq:\nlock\nold'
	run tmq-topic info ev
	assert_output "tmq-topic: ev: no such topic"
	mkdir "$TMQ_ROOT/ev+tmq/old/evil"
	kill -CONT "$tpid"
	st=0
	wait "$spid" || st=$?
	assert_equal "$st" 1
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output "tmq-topic: ev: deleted, but ev+tmq/old holds entries that are not a topic's: evil"
	run ls -A "$TMQ_ROOT" "$TMQ_ROOT/ev+tmq" "$TMQ_ROOT/ev+tmq/old"
	assert_output $'/'"${TMQ_ROOT#/}"$':\nev+tmq\n\n/'"${TMQ_ROOT#/}"$'/ev+tmq:\nold\n\n/'"${TMQ_ROOT#/}"$'/ev+tmq/old:\nevil'
	# Not a create's business: it goes through.
	run --separate-stderr tmq-topic create ev
	assert_success
	assert_stderr ''
	tmq-put ev y
	# A delete needs the place: it says what is in the way, and changes
	# nothing.
	run --separate-stderr tmq-topic delete -y ev
	assert_fails_with "tmq-topic: ev: not deleted: ev+tmq/old holds entries that are not a topic's: evil"
	run tmq-get ev
	assert_output y
	rmdir "$TMQ_ROOT/ev+tmq/old/evil"
	run --separate-stderr tmq-topic delete -y ev
	assert_success
	run ls -A "$TMQ_ROOT"
	assert_output ''
}

# ------------------------------------------------- group logs and snapshots

# A root of U1's making, setgid to GRP: U1 owns topic ev (2 partitions,
# messages a, b, c at offsets 0 to 2 of partition 0) and group G, which
# resumes partition 0 at 2.  The co-user's tools go in $SHARED/bin: gsnap-seal
# (tests/gsnap-seal.c: a checksum for a snapshot edited by hand) and
# glines (lines of any body appended to a group's log).
hostile_setup() {
	two_users
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
	local seal=${TMQ_BIN:?}/../tests/gsnap-seal
	[ -x "$seal" ] || { echo "build $seal first (make check builds it)" >&2; return 1; }
	cp "$seal" "$SHARED/bin/"
	cat >"$SHARED/bin/glines" <<-'PY'
	#!/usr/bin/python3
	# glines FILE KIND BODY N KEY: append N lines of KIND (a type index)
	# with BODY to a group log FILE, under keys KEY, KEY+1, ...; in BODY,
	# ZEROS(k) stands for k zeros separated by commas.
	import base64, re, struct, sys, time, zlib
	path, kind, body, n, key = sys.argv[1:6]
	body = re.sub(r"ZEROS\((\d+)\)", lambda m: ",".join(["0"] * int(m[1])), body)
	raw = b"\xfb" + int(kind).to_bytes(2, "big") + body.encode()
	z = zlib.compressobj(9, zlib.DEFLATED, -15)
	enc = base64.b85encode(z.compress(raw) + z.flush())
	ts = base64.b85encode(struct.pack(">d", time.time()))
	with open(path, "ab") as f:
	    f.write(b"".join(base64.b85encode((int(key) + i).to_bytes(4, "big")) +
	                     ts + enc + b"\n" for i in range(int(n))))
	PY
	chmod 755 "$SHARED"/bin/*
	as "$U1" 'tmq-topic create ev -p 2 && tmq-put -k 0 ev a b c && tmq-get -g G -P 0 -n 1 ev >/dev/null && tmq-commit G 0 1'
}

# The group's log file.
glog() {
	echo "$SHARED"/root/--group--G/0-*.tmf
}

# peak KIB COMMAND...: run COMMAND, failing (and saying so) when its peak
# resident memory passes KIB KiB in a plain build (under sanitizers a
# resident set says nothing of tmq's own: test_helper's TMQ_SANITIZED).
# (For as: sh, and a file of its own.)
peak() {
	local max=$1 st=0 rss f
	shift
	f=$(mktemp)
	/usr/bin/time -f %M -o "$f" "$@" || st=$?
	rss=$(tail -n 1 "$f")
	rm -f "$f"
	if [ "$rss" -gt "$max" ] && [ -z "${TMQ_SANITIZED-}" ]; then
		echo "peak: $* used $rss KiB (more than $max)" >&2
		return 99
	fi
	return "$st"
}

@test "a forged snapshot (committed offsets -5 and -2^63, checksum recomputed) is refused, said once, the log read in full and the snapshot replaced: the co-user's as not the reader's, the reader's own as holding what no log leaves" {
	local want d forge snap
	hostile_setup
	d=$SHARED/root/--group--G/.tmq
	snap=snapshot.$(id -u "$U1")
	run --separate-stderr as "$U1" 'TMQ_SNAPSHOT_EVERY=1 tmq-group describe G'
	assert_success
	[ -f "$d/$snap" ]
	want=$output
	# The edit: committed[0] = -5, committed[1] = -2^63 (the last two
	# 8-byte values before the checksum), then a new checksum.
	forge="cd $d && cp $snap f.tmp && n=\$(stat -c %s f.tmp) &&
	    printf '\\373\\377\\377\\377\\377\\377\\377\\377' | dd of=f.tmp bs=1 seek=\$((n - 24)) conv=notrunc 2>/dev/null &&
	    printf '\\000\\000\\000\\000\\000\\000\\000\\200' | dd of=f.tmp bs=1 seek=\$((n - 16)) conv=notrunc 2>/dev/null &&
	    gsnap-seal f.tmp && mv -f f.tmp $snap"
	run as "$U2" "$forge"
	assert_success
	cp "$d/$snap" "$BATS_TEST_TMPDIR/forged"
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_output "$want"
	assert_equal "$stderr" "tmq-group: group G: --group--G/.tmq/$snap refused (not written by this user): the log is read in full"
	# The reader put a true one in its place, which the next one uses.
	run cmp -s "$BATS_TEST_TMPDIR/forged" "$d/$snap"
	assert_failure
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_output "$want"
	assert_equal "$stderr" ''
	# The reader's own, so edited (a bug, or its own hand): its values
	# are checked all the same.  A member resumes at the committed
	# offset, not past the end.
	run as "$U1" "umask 022; $forge"
	assert_success
	run --separate-stderr as "$U1" 'tmq-get -g G -P 0 -n 1 -F "%o %s\n" ev'
	assert_success
	assert_output '2 c'
	assert_equal "$stderr" "tmq-get: group G: --group--G/.tmq/$snap refused (partition 0: committed offset -5 is not one a commit can hold): the log is read in full"
}

@test "a co-user's group lines with lists of millions of entries cost readers no more than the topic's partitions allow, and their snapshot stays small" {
	local f end
	hostile_setup
	f=$(glog)
	end=$(($(date +%s) + 1))
	# A rebalance whose 40 offers each repeat partition 0 1.58 million
	# times (deflate makes each a 4 KB line), then 1,000 commits.
	run as "$U2" "glines $f 4 '{\"timestamp\":$end}' 1 100 &&
	    glines $f 2 '{\"own\":[],\"partitions\":[ZEROS(1580000)]}' 40 100 &&
	    glines $f 6 '{\"partition_offsets\":[[1,1]]}' 1000 100"
	assert_success
	[ "$(wc -l <"$f")" -gt 1040 ]
	# Refused unread (no body of ours is that long), each said once.
	run --separate-stderr as "$U1" "$(declare -f peak); peak 65536 tmq-group describe G"
	assert_success
	assert_equal "$(grep -c 'payload inflates beyond 4195 bytes$' <<<"$stderr")" 40
	assert_equal "$(wc -l <<<"$stderr")" 40
	# Repeats that fit in a body of ours are dropped as it is read: 60
	# offers of 1,000 zeros leave 60 offers of partitions 0 and 1, in
	# memory and in the snapshot.
	run as "$U2" "glines $f 4 '{\"timestamp\":$end}' 1 200 &&
	    glines $f 2 '{\"own\":[ZEROS(1000)],\"partitions\":[ZEROS(1000),1]}' 60 200 &&
	    glines $f 5 '{}' 1 200 && glines $f 6 '{\"partition_offsets\":[[1,1]]}' 1000 200"
	assert_success
	run --separate-stderr as "$U1" "$(declare -f peak); TMQ_SNAPSHOT_EVERY=1 peak 65536 tmq-group describe --json G"
	assert_success
	assert_equal "$stderr" ''	# (from the first reader's snapshot)
	assert_output --partial '"owner":200},{"partition":1,'
	assert_output --partial '"owner":201}]'
	run stat -c %s "$SHARED/root/--group--G/.tmq/snapshot.$(id -u "$U1")"
	[ "$output" -lt 100000 ] || { echo "snapshot of $output bytes"; false; }
	# A member joins past them all, in bounded memory.
	run --separate-stderr as "$U1" "$(declare -f peak); peak 65536 timeout 120 tmq-get -g G --window 1 -n 1 -F '%p %o\n' ev"
	assert_success
	assert_output '0 2'
}
