#!/usr/bin/env bats
# t0412-forged-liveness: what a co-user of a shared root can do to a
# group's liveness and rebalances (tmq(7), "Sharing a root"), run as a
# second Unix user.  Forged JOINED and BEGINREBAL lines hold no group in a
# rebalance past the group's own window, and however many ids they name, a
# poll or a describe probes only the lock files there are.  A co-user can
# neither set a member's beat nor take its lock when it dies, and a file of
# their own put in its place is seen for what it is: a member killed with
# SIGKILL loses its partitions to the survivor.
#
# Every test has a fresh root; every wait is bounded in time.

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

# The victim U2 and the co-user U1 in one group, their setgid,
# group-writable root, the tools where both reach them, gforge (below) for
# the co-user, and V, a directory of the victim's for what its commands in
# the background print.  G is the group's log directory.
team_root() {
	shared_users
	cat >"$SHARED/bin/gforge" <<-'PY'
	#!/usr/bin/python3
	# gforge FILE KIND BODY N KEY: append N lines of KIND (a type index)
	# with BODY to a group log FILE, under keys KEY, KEY+1, ...; in BODY,
	# TAG stands for a random tag, a new one each line.
	import base64, random, struct, sys, time, zlib
	path, kind, body, n, key = sys.argv[1:6]
	def line(k):
	    b = body.replace("TAG", str(random.getrandbits(64)))
	    z = zlib.compressobj(9, zlib.DEFLATED, -15)
	    enc = base64.b85encode(z.compress(b"\xfb" + int(kind).to_bytes(2, "big") +
	                                      b.encode()) + z.flush())
	    return (base64.b85encode(k.to_bytes(4, "big")) +
	            base64.b85encode(struct.pack(">d", time.time())) + enc + b"\n")
	with open(path, "ab") as f:
	    f.write(b"".join(line(int(key) + i) for i in range(int(n))))
	PY
	chmod 755 "$SHARED"/bin/*
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
	V=$SHARED/v
	install -d -o "$U2" -m 1777 "$V"
	G=$SHARED/root/--group--G
}

# as USER COMMAND: run COMMAND (a shell line) as USER, umask 022, in the
# shared root.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env PATH="$SHARED/bin:/usr/bin:/bin" TMQ_ROOT="$SHARED/root" \
	    ASAN_OPTIONS="${ASAN_OPTIONS-}" UBSAN_OPTIONS="${UBSAN_OPTIONS-}" \
	    sh -c "umask 022; cd /; $*"
}

# user_bg USER NAME WORD...: USER runs the command WORD... (words with
# nothing to quote) in the background: stdout in $V/NAME.out, stderr in
# NAME.err (V is everyone's to write); PID is its pid.
user_bg() {
	local u=$1 name=$2
	shift 2
	as "$u" "sh -c 'echo \$\$ >$V/$name.pid; exec \"\$@\"' sh $* >$V/$name.out 2>$V/$name.err" 3>&- &
	wait_for test -s "$V/$name.pid"
	PID=$(cat "$V/$name.pid")
	undo pid "$PID"
}

# members_bg OPTION...: the victim's members a and b of group G on topic
# ev (4 partitions), following and printing payloads (APID, BPID), with
# --window 1 and OPTION...; back once the group is stable with both.
members_bg() {
	as "$U2" 'tmq-topic create ev -p 4'
	user_bg "$U2" a tmq-get -g G --window 1 "$@" -f ev
	APID=$PID
	user_bg "$U2" b tmq-get -g G --window 1 "$@" -f ev
	BPID=$PID
	wait_for stable_with 2
}

# stable_with N: as the victim sees it, G is stable with N members.
stable_with() {
	local out
	out=$(as "$U2" 'tmq-group describe G') &&
	    grep -qx 'state: *stable' <<<"$out" &&
	    grep -qx "members: *$1" <<<"$out"
}

# lock_of PID: the lock file that member PID holds open.
lock_of() {
	local f
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f") in
		*/.tmq/live.*) readlink "$f"; return 0 ;;
		esac
	done
	return 1
}

# put_forty: the victim puts 40 messages, m1 to m40 (keys 1 to 40: every
# partition gets some); b_read_forty: member b has printed them all.
put_forty() {
	as "$U2" 'for k in $(seq 40); do echo "$k:m$k"; done | tmq-put -K : ev'
}
b_read_forty() {
	[ "$(grep -c '^m[0-9]*$' "$V/b.out")" -ge 40 ]
}

# The log's lines of one kind (REBALOFFER...) after its last BEGINREBAL.
since_begin() {
	as "$U2" 'tmq-dump -J -- --group--G' | python3 -c '
import json, sys
kind, n = sys.argv[1], 0
for line in sys.stdin:
    t = json.loads(line).get("type", "")
    if t.endswith("BEGINREBAL"):
        n = 0
    elif t.endswith(kind):
        n += 1
print(n)' "$1"
}

# polls_in FILE N: the strace in FILE shows N polls or more.
polls_in() {
	[ "$(grep -c '^poll(' "$1")" -ge "$2" ]
}

# offered N: N offers or more in the rebalance under way.
offered() {
	[ "$(since_begin REBALOFFER)" -ge "$1" ]
}

@test "a co-user's JOINED for an id without a lock file and a BEGINREBAL ending in a year: the rebalance ends by the group's window, and the survivor of a member SIGKILLed in it takes its partitions" {
	local end
	team_root
	members_bg
	# The co-user's two lines: an id nobody holds, and a rebalance a
	# year long.
	end=$(($(date +%s) + 365 * 86400))
	run as "$U1" "gforge $G/0-*.tmf 0 '{\"tag\": TAG}' 1 1000 &&
	    gforge $G/0-*.tmf 4 '{\"timestamp\": $end}' 1 1000"
	assert_success
	# Both members offer in it; then one dies.
	wait_for offered 2
	kill -9 "$APID"
	wait_for gone "$APID"
	put_forty
	# The group's window (60 s) after the line, not a year: the
	# survivor ends it, sees the dead member's share, and takes it.
	TMQ_TEST_WAIT=$((TMQ_TEST_WAIT + 60)) wait_for b_read_forty
	wait_for stable_with 1
	run as "$U2" 'tmq-group describe G'
	refute_output --partial 'rebalancing'
	assert_equal "$(cat "$V/b.err")" ''
}

@test "5,000 forged JOINED lines in a rebalance under way: a member's poll and a describe look only at the lock files there are, not one an id" {
	local f n tracer
	team_root
	members_bg
	run as "$U1" "gforge $G/0-*.tmf 0 '{\"tag\": TAG}' 5000 1000 &&
	    gforge $G/0-*.tmf 4 '{\"timestamp\": $(($(date +%s) + 86400))}' 1 6000"
	assert_success
	wait_for offered 2
	n=$(find "$G/.tmq" -name 'live.*' | wc -l)
	[ "$n" -eq 2 ]
	# A member: the lock files it looks at (stat, open) between two of
	# its waits (poll), over several polls of the rebalance.
	f=$BATS_TEST_TMPDIR/member.strace
	strace -q -p "$APID" -e trace=%file,poll -o "$f" &
	tracer=$!
	undo pid "$tracer"
	wait_for polls_in "$f" 6
	kill "$tracer"
	wait_for gone "$tracer"
	run awk 'BEGIN { max = n = 0 } /^poll\(/ { if (n > max) max = n; n = 0 } /live\./ { n++ } END { if (n > max) max = n; print max }' "$f"
	[ "$output" -le $((2 * n)) ] || { echo "a poll looked at lock files $output times ($n there)"; false; }
	# A describe: the lock files it looks at, in all (LeakSanitizer
	# cannot run under ptrace).
	f=$BATS_TEST_TMPDIR/describe.strace
	run strace -q -f -e trace=%file -o "$f" runuser -u "$U2" -- \
	    env TMQ_ROOT="$SHARED/root" \
	    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$SHARED/bin/tmq-group" describe G
	assert_success
	assert_output --partial 'rebalancing until'
	run grep -c 'live\.' "$f"
	[ "$output" -le $((4 * n)) ] || { echo "describe looked at lock files $output times ($n there)"; false; }
}

@test "a member's lock file is writable by its owner alone: a co-user who locks it the instant the member is SIGKILLed and keeps its time fresh keeps no member alive" {
	local lock mode
	team_root
	members_bg --session-timeout 2
	lock=$(lock_of "$APID")
	mode=$(stat -c %A "$lock")
	# The co-user waits on the member's lock (a write lock when they may
	# open the file to write, else a read lock), takes it the instant the
	# member dies, and beats on the file ever after, as well as they can.
	cat >"$SHARED/bin/seize" <<-'PY'
	#!/usr/bin/python3
	import fcntl, os, struct, sys, time
	path, said = sys.argv[1:3]
	try:
	    fd, kind = os.open(path, os.O_RDWR), fcntl.F_WRLCK
	except OSError:
	    fd, kind = os.open(path, os.O_RDONLY), fcntl.F_RDLCK
	fcntl.fcntl(fd, fcntl.F_OFD_SETLKW, struct.pack("hhqqi4x", kind, 0, 0, 0, 0))
	with open(said, "w") as f:
	    f.write("write\n" if kind == fcntl.F_WRLCK else "read\n")
	while True:
	    try:
	        os.utime(fd)
	    except OSError:
	        pass
	    time.sleep(0.1)
	PY
	chmod 755 "$SHARED/bin/seize"
	user_bg "$U1" seize seize "$lock" "$V/seized"
	kill -9 "$APID"
	wait_for gone "$APID"
	wait_for test -s "$V/seized"
	put_forty
	wait_for b_read_forty
	wait_for stable_with 1
	# They could take a read lock only: the file is its owner's to write.
	assert_equal "$(cat "$V/seized")" read
	assert_equal "$mode" -rw-r--r--
	assert_equal "$(cat "$V/b.err")" ''
}

@test "a co-user who puts a file of their own, locked and beating, in place of a member's the instant it is SIGKILLed keeps no member alive for the survivor" {
	local lock
	team_root
	members_bg --session-timeout 2
	lock=$(lock_of "$APID")
	cat >"$SHARED/bin/swap" <<-'PY'
	#!/usr/bin/python3
	import fcntl, os, struct, sys, time
	path, said = sys.argv[1:3]
	fd = os.open(path, os.O_RDONLY)
	# Wait for the member's lock to go (it dies), then swap in our file.
	fcntl.fcntl(fd, fcntl.F_OFD_SETLKW, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 0, 0))
	tmp = path + ".ours"
	ours = os.open(tmp, os.O_RDWR | os.O_CREAT, 0o644)
	os.write(ours, b"2.000\n")
	fcntl.fcntl(ours, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
	os.rename(tmp, path)
	with open(said, "w") as f:
	    f.write("swapped\n")
	while True:
	    os.utime(ours)
	    time.sleep(0.1)
	PY
	chmod 755 "$SHARED/bin/swap"
	user_bg "$U1" swap swap "$lock" "$V/swapped"
	kill -9 "$APID"
	wait_for gone "$APID"
	wait_for test -s "$V/swapped"
	run stat -c %U "$lock"
	assert_output "$U1"
	put_forty
	wait_for b_read_forty
	assert_equal "$(cat "$V/b.err")" ''
}
