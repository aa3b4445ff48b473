# shared.bash: the scenarios of one root on a real shared filesystem,
# mounted twice on this machine to stand for two machines, for each
# engine's bats file to run (t0740-glusterfs.bats, t0741-cephfs.bats set
# ENGINE and load this; each of their tests is one function here).
# Producers and readers on both mounts at once; what the server holds is
# the truth every reader is held to, read once the writers are done:
#
# - gluster: tests/glusterfs.sh brings up a volume on 127.0.0.2, of one
#   brick (or with TMQ_GLUSTER_REPLICA=3 a replica 3 one, three bricks
#   each a whole copy); the truth is the (first) brick's files, read
#   beside the server.
# - ceph: tests/cephfs.sh brings up a one-node Ceph cluster on 127.0.0.1
#   (one mon, mgr, OSD and MDS), CephFS mounted by ceph-fuse as two
#   clients; the truth is read through a third client that no scenario
#   writes or follows through and that has no object cache (cephfs.sh),
#   so that it reads what the OSD holds: a brick's files are not to be had
#   (RADOS holds objects), and the other clients' caches are what is
#   under test.
#
# The engine runs a scenario RUNS times (TMQ_SHARED_RUNS; by default 10 on
# GlusterFS's one brick, 3 on its replica 3 and on CephFS, whose runs are
# slower, to keep CI's time); every run must be clean.  A partition index
# made on one mount serves the other.  Where CephFS cannot behave as
# GlusterFS does (its server away), the scenario says what it holds it to
# instead, and why.

load test_helper

case ${ENGINE-} in
gluster)
	FS=$BATS_TEST_DIRNAME/glusterfs.sh FSNAME=GlusterFS TRUTH_MOUNT=brick/v
	RUNS=${TMQ_SHARED_RUNS:-$([ "${TMQ_GLUSTER_REPLICA:-1}" = 3 ] && echo 3 || echo 10)} ;;
ceph)
	FS=$BATS_TEST_DIRNAME/cephfs.sh FSNAME=CephFS TRUTH_MOUNT=t
	RUNS=${TMQ_SHARED_RUNS:-3} ;;
*) echo "shared.bash: ENGINE='${ENGINE-}', not gluster or ceph" >&2; exit 1 ;;
esac

setup_file() {
	local why
	if why=$("$FS" why); then
		export TMQ_FS=$BATS_FILE_TMPDIR/fs
		"$FS" up "$TMQ_FS" >"$BATS_FILE_TMPDIR/up.log" 2>&1 ||
		    { cat "$BATS_FILE_TMPDIR/up.log" >&2; "$FS" down "$TMQ_FS"; return 1; }
		case $ENGINE in
		gluster) echo "# a GlusterFS volume of ${TMQ_GLUSTER_REPLICA:-1} brick(s)" \
		    "(TMQ_GLUSTER_REPLICA), mounted twice; $RUNS runs a scenario" >&3 ;;
		ceph) echo "# CephFS $(ceph --version | cut -d' ' -f3) on one node," \
		    "mounted twice by ceph-fuse; $RUNS runs a scenario" >&3 ;;
		esac
	else
		export TMQ_FS_SKIP="$FSNAME cannot run here: $why"
	fi
}

teardown_file() {
	[ -z "${TMQ_FS-}" ] || "$FS" down "$TMQ_FS"
}

# roots RUN: R, the root's name for RUN, and where it is on each mount: A,
# B and TRUTH.
roots() {
	R=r$BATS_TEST_NUMBER-$1-$$
	A=$TMQ_FS/a/$R B=$TMQ_FS/b/$R TRUTH=$TMQ_FS/$TRUTH_MOUNT/$R
}

setup() {
	[ -z "${TMQ_FS_SKIP-}" ] || skip "$TMQ_FS_SKIP"
	export TMQ_ROOT=/nonexistent	# every call names its root
	unset XDG_DATA_HOME
	roots "$RANDOM"
	W=$BATS_TEST_TMPDIR
}

teardown() {
	# Nothing of ours may outlive a test, nor a server it killed.
	[ -z "${PIDS-}" ] || kill -9 $PIDS 2>/dev/null || true
	[ -z "${SERVER_KILLED-}" ] || "$FS" start "$TMQ_FS"
	[ -z "${CLIENT_KILLED-}" ] || "$FS" start "$TMQ_FS" "$CLIENT_KILLED"
	[ -z "${DAEMON_KILLED-}" ] || "$FS" start "$TMQ_FS" "$DAEMON_KILLED"
}

# said_waits FILE: FILE says nothing but, at most once each, that the
# file system kept a call waiting and that it answered (fswait.h).
said_waits() {
	local w
	run -1 grep -v -e ': waiting on the file system: no answer for [0-9]* s$' \
	    -e ': the file system answered after [0-9]* s$' "$1"
	w=$(grep -c 'waiting on the file system' "$1" || :)
	[ "$w" -le 1 ] || fail "$1: said $w times: $(cat "$1")"
	assert_equal "$(grep -c 'the file system answered' "$1" || :)" "$w"
}

# fol_is_truth: the follower's output (W/fol), in offset order, is what the
# server holds (W/truth, written), each record exactly once.
fol_is_truth() {
	truth >"$W/truth"
	run -0 sort -k1,1n -k2,2n "$W/fol"
	assert_output "$(cat "$W/truth")"
}

# went_on FOL MEM N: the follower FOL (output W/fol) and the member MEM
# (W/mem), still running, have delivered N records between them: the
# follower each exactly once, where it was, the member each at least once,
# and all of them what the server holds.
went_on() {
	wait_for sh -c "[ \$(wc -l <'$W/fol') -ge $3 ] && [ \$(sort -u '$W/mem' | wc -l) -ge $3 ]"
	kill -0 "$1" && kill -0 "$2"
	fol_is_truth
	run -0 sh -c "sort -u '$W/mem' | sort -k1,1n -k2,2n"
	assert_output "$(cat "$W/truth")"
}

# blocked_in PID: where each thread of PID is (its system call, the
# kernel's wait channel and stack) and, when it is not blocked, what it
# calls for 2 s: for a test that waited in vain.
blocked_in() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)):" \
		    "syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)," \
		    "wchan $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/    /' "$t/stack" 2>/dev/null
	done
	! command -v strace >/dev/null ||
	    timeout 2 strace -qq -f -tt -p "$1" 2>&1 | head -n 40
}

# fol_and_mem: topic t of 2 partitions, 100 records put through mount A,
# and through B a follower (output W/fol) and a member of group G (W/mem)
# that have both read them; sets the caller's fol and mem to their pids.
fol_and_mem() {
	tmq-topic -d "$A" create t -k u32 -p 2
	seq 1 100 | sed 's/$/:before/' | tmq-put -d "$A" -K: t
	tmq-get -d "$B" -f -F '%p %o %s\n' t >"$W/fol" 2>"$W/fol.err" &
	fol=$!
	tmq-get -d "$B" -g G -f -F '%p %o %s\n' t >"$W/mem" 2>"$W/mem.err" &
	mem=$!
	PIDS="$fol $mem"
	wait_for sh -c "[ \$(wc -l <'$W/fol') -ge 100 ] && [ \$(wc -l <'$W/mem') -ge 100 ]"
}

# done_or_waiting PID: PID has ended, or waits for a FUSE request.
done_or_waiting() {
	! kill -0 "$1" 2>/dev/null || grep -qx request_wait_answer "/proc/$1/wchan"
}

# records W N PACE: N text records "K:wW-I-<pad>" with keys 1..N; PACE fast
# writes them at once, slow a few at a time with pauses (many small
# appends), big as 2 KB records.
records() {
	/usr/bin/python3 - "$@" <<'EOF'
import sys, time
w, n, pace = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pad = "x" * (2000 if pace == "big" else 30)
out = sys.stdout
for i in range(1, n + 1):
    out.write("%d:w%s-%d-%s\n" % (i, w, i, pad))
    if pace == "slow" and i % 3 == 0:
        out.flush()
        time.sleep(0.0005)
out.flush()
EOF
}

# produce MOUNTROOT W N PACE: one producer in the background.
produce() {
	records "$2" "$3" "$4" | tmq-put -d "$1" -K: t 2>>"$W/put.err" &
	PIDS="${PIDS-} $!"
	PUTS="${PUTS-} $!"
}

# wait_pids SECONDS PID...: wait for them to end, at most SECONDS.
wait_pids() {
	local limit=$(($1 * 10)) p
	shift
	for p in "$@"; do
		while kill -0 "$p" 2>/dev/null; do
			[ "$limit" -gt 0 ] || return 1
			sleep 0.1
			limit=$((limit - 1))
		done
	done
}

rate() {
	awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%d", n / (b - a) }'
}

# The records, sorted by partition and offset, as the server holds them.
# Whatever reads the truth does so with TMQ_INDEX=off: a reader makes or
# extends a partition index where it reads, and a file written on a
# brick behind the server's back is not the volume's (on replica 3 that
# brick's copy then differs from the others'); through CephFS's third
# client it would be a writer where there should be none.
truth() {
	TMQ_INDEX=off tmq-get -d "$TRUTH" -F '%p %o %s\n' t | sort -k1,1n -k2,2n
}

shared_followers() {
	local run n=1000 total
	total=$((4 * n))
	for run in $(seq "$RUNS"); do
		roots "$run"
		PUTS=
		tmq-topic -d "$A" create t -k u32 -p 2
		timeout 600 tmq-get -d "$A" -f -n $total -F '%p %o %s\n' t >"$W/fa" 2>"$W/fa.err" &
		local fa=$!
		timeout 600 tmq-get -d "$B" -f -n $total -F '%p %o %s\n' t >"$W/fb" 2>"$W/fb.err" &
		local fb=$!
		PIDS="$PIDS $fa $fb"
		produce "$A" 1 $n fast
		produce "$A" 2 $n slow
		produce "$B" 3 $n slow
		produce "$B" 4 $n $([ $((run % 2)) = 0 ] && echo big || echo fast)
		wait_pids 600 $PUTS $fa $fb
		truth >"$W/truth"
		run -0 wc -l <"$W/truth"
		assert_output "$total"
		# Every record of every producer, once.
		run -0 sh -c "cut -d' ' -f3 '$W/truth' | cut -d- -f1,2 | sort -u | wc -l"
		assert_output "$total"
		for f in fa fb; do
			sort -k1,1n -k2,2n "$W/$f" >"$W/$f.sorted"
			if ! cmp -s "$W/$f.sorted" "$W/truth"; then
				echo "run $run: the follower on mount ${f#f} differs from the truth:"
				diff "$W/$f.sorted" "$W/truth" | head -20
				cat "$W/$f.err"
				return 1
			fi
		done
		run -0 env TMQ_INDEX=off tmq-dump -d "$TRUTH" --verify t
	done
	echo "# $RUNS runs of 4 producers x $n records: followers on both mounts equal to the truth" >&3
}

shared_index() {
	local run o m
	for run in 1 2 3; do
		roots "$run"
		tmq-topic -d "$A" create t -k u32 -p 1
		records 1 150000 fast | tmq-put -d "$A" -K: t
		# Made on A; B appends lines A's index has not seen.
		tmq-topic -d "$A" info t >/dev/null
		ls "$TRUTH"/t/.tmq/*.idx >/dev/null
		records 2 3000 fast | tmq-put -d "$B" -K: t
		TMQ_INDEX=off tmq-get -d "$TRUTH" -F '%o %s\n' t >"$W/truth"
		for o in 5 70000 149999 152999; do
			run -0 tmq-get -d "$B" -o "$o" -n 1 -F '%o %s\n' t
			assert_output "$(sed -n "$((o + 1))p" "$W/truth")"
		done
		run -0 tmq-get -d "$B" -o -2 -F '%o %s\n' t
		assert_output "$(tail -n 2 "$W/truth")"
		run -0 tmq-topic -d "$B" info t
		assert_output "$(TMQ_INDEX=off tmq-topic -d "$TRUTH" info t)"
		# Read from the index on: a few blocks, not the file.
		read_at_most $((4 * 1024 * 1024)) tmq-get -d "$A" -o 152990 -n 1 t
		[ "$status" -eq 0 ]
		run -0 env TMQ_INDEX=off tmq-dump -d "$TRUTH" --verify t
		assert_output '1 files, 153000 lines, 0 corrupt'
		# The index, as each mount has it, is right.
		for m in "$A" "$B"; do
			run -0 tmq-dump -d "$m" --verify t
			assert_output '1 files, 153000 lines, 0 corrupt'
		done
	done
}

shared_group() {
	local run n=500 total dups=0 d
	total=$((4 * n))
	for run in $(seq "$RUNS"); do
		roots "$run"
		PUTS=
		tmq-topic -d "$A" create t -k u32 -p 4
		tmq-get -d "$A" -g G -o start -f --commit -F '%p %o %s\n' t >"$W/ma" 2>"$W/ma.err" &
		local ma=$!
		tmq-get -d "$B" -g G -o start -f --commit -F '%p %o %s\n' t >"$W/mb" 2>"$W/mb.err" &
		local mb=$!
		PIDS="$PIDS $ma $mb"
		produce "$A" 1 $n slow
		produce "$A" 2 $n fast
		produce "$B" 3 $n slow
		produce "$B" 4 $n fast
		wait_pids 600 $PUTS
		# Until the two members between them have delivered every record.
		local limit=6000
		while [ "$(cat "$W/ma" "$W/mb" | cut -d' ' -f3 | sort -u | wc -l)" -lt $total ]; do
			if [ $limit -eq 0 ]; then
				echo "run $run: $(cat "$W/ma" "$W/mb" | cut -d' ' -f3 | sort -u | wc -l) of $total delivered"
				cat "$W/ma.err" "$W/mb.err"
				return 1
			fi
			sleep 0.1
			limit=$((limit - 1))
		done
		kill -TERM $ma $mb
		wait_pids 120 $ma $mb
		# What was delivered is what the server holds, offset for offset.
		truth >"$W/truth"
		run -0 sh -c "cat '$W/ma' '$W/mb' | sort -u -k1,1n -k2,2n | diff -u - '$W/truth'"
		d=$(($(cat "$W/ma" "$W/mb" | wc -l) - total))
		dups=$((dups + d))
		echo "# run $run: $total records delivered, $d twice" >&3
		run -0 env TMQ_INDEX=off tmq-dump -d "$TRUTH" --verify t
		# A handover repeats nothing, as on a local disk: a member
		# prints nothing in a rebalance (before, 599 in 10 runs on
		# GlusterFS and 608 on CephFS, from what a member printed after
		# its offer, whose commit the next owner started at).
		[ "$d" -eq 0 ] || fail "run $run: $d records delivered twice"
	done
	echo "# $RUNS runs: every record delivered exactly once" >&3
}

shared_frozen() {
	command -v strace >/dev/null || skip "no strace (Debian's strace)"
	local run file spid tracee f
	for run in $(seq "$RUNS"); do
		roots "$run"
		PUTS=
		tmq-topic -d "$A" create t -k u32 -p 1
		records 0 2000 fast | tmq-put -d "$A" -K: t
		file=$(echo "$A"/t/0-*.tmf)
		# One reader on each mount held inside a read of the file (a
		# pread delayed ten minutes), one stopped while it catches up.
		for m in A B; do
			eval "f=\$$m/t/${file##*/}"
			# (in a subshell: not a job of ours, whose kill bash
			# would report)
			# (fd 3, bats's own, closed: a reader that outlived
			# its strace would hold bats's output open, and bats
			# would wait for it for ever.  The reader writes its
			# own pid, to be killed whatever strace does.)
			(strace -qq -o "$W/trace$m" -P "$f" -e trace=pread64 \
			    -e inject=pread64:delay_enter=600s \
			    sh -c 'echo $$ >"$0"; exec tmq-get -d "$1" -f t' \
			    "$W/reader$m" "${f%/t/*}" >/dev/null 2>"$W/err$m" 3>&- &
			echo $! >"$W/spid")
			spid=$(cat "$W/spid")
			PIDS="$PIDS $spid"
			wait_for test -s "$W/reader$m"
			PIDS="$PIDS $(cat "$W/reader$m")"
			# (On CephFS the first look from the other client at the
			# file just written waits for the writer's client to give
			# up its capabilities: seconds, once more than 120 s in a
			# full run.  What the reader said is shown if it fails.)
			TMQ_TEST_WAIT=300 wait_for grep -q '^pread64(' "$W/trace$m" ||
			    fail "run $run: the reader on mount $m did not reach its read: $(cat "$W/err$m")"
			tracee=$(pgrep -P "$spid")
			PIDS="$PIDS $tracee"
		done
		# (in a subshell too, its kill unreported)
		(tmq-get -d "$B" -f t >"$W/stopped" 2>/dev/null 3>&- &
		echo $! >"$W/spid")
		local stopped
		stopped=$(cat "$W/spid")
		PIDS="$PIDS $stopped"
		wait_for test -s "$W/stopped"
		kill -STOP "$stopped"
		produce "$A" 1 200 slow
		produce "$B" 2 200 slow
		wait_pids 120 $PUTS || fail "run $run: a producer waited on a frozen reader"
		[ ! -s "$W/put.err" ] || fail "run $run: $(cat "$W/put.err")"
		truth >"$W/truth"
		run -0 grep -c ' w[12]-' "$W/truth"
		assert_output 400
		kill -9 $PIDS 2>/dev/null || :
		PIDS=
	done
	echo "# $RUNS runs: producers on both mounts never waited on a reader held inside a read or stopped" >&3
}

shared_server_away() {
	local fol mem put once
	fol_and_mem
	# A topic the other mount has never read, for a reader while the
	# server is away.
	tmq-topic -d "$A" create u -p 1
	seq 1 50 | tmq-put -d "$A" u
	SERVER_KILLED=1
	"$FS" kill "$TMQ_FS"
	if [ "$ENGINE" = gluster ]; then
		# Both find out (a follower there looks every 50 ms).
		wait_for grep -q 'server is away' "$W/fol.err" ||
		    fail "the follower did not notice: $(cat "$W/fol.err"; blocked_in "$fol")"
		wait_for grep -q 'joining again once' "$W/mem.err" ||
		    fail "the member did not notice: $(cat "$W/mem.err"; blocked_in "$mem")"
		# A once-through reader fails, as it always has, and so does a
		# producer, saying what it wrote (nothing).
		run -1 tmq-get -d "$B" t
		assert_output --partial 'Transport endpoint is not connected'
		run -1 sh -c "echo 1:lost | tmq-put -d '$A' -K: t"
		assert_output --partial 'Transport endpoint is not connected'
		"$FS" start "$TMQ_FS"
		SERVER_KILLED=
		# Once the mounts reach the brick again, a producer writes.
		wait_for sh -c "seq 101 200 | sed 's/\$/:after/' | tmq-put -d '$A' -K: t"
	else
		# CephFS's client fails nothing while the OSD is away: it
		# waits for it, and tmq sees no error, so says nothing.  A
		# producer then waits inside the file system (a FUSE request
		# unanswered: its wchan), and none of its records reaches a
		# reader until the OSD is back, when it ends as if nothing had
		# happened.  (A once-through reader waits the same: what it
		# prints depends on when it reads, so it is not run here.)
		seq 101 200 | sed 's/$/:after/' | tmq-put -d "$A" -K: t &
		put=$!
		PIDS="$PIDS $put"
		wait_for grep -qx request_wait_answer "/proc/$put/wchan"
		run -0 wc -l <"$W/fol"
		assert_output 100
		# A once-through reader of data the OSD holds waits inside
		# its read too, and says so after 5 s (fswait.h).
		tmq-get -d "$B" u >"$W/once" 2>"$W/once.err" &
		once=$!
		PIDS="$PIDS $once"
		wait_for grep -q 'waiting on the file system' "$W/once.err"
		"$FS" start "$TMQ_FS"
		SERVER_KILLED=
		wait "$put"
		# It goes on when the OSD is back, and says so, once.
		wait "$once"
		assert_equal "$(cat "$W/once")" "$(seq 1 50)"
		run -0 grep -c 'the file system answered after' "$W/once.err"
		assert_output 1
		run -0 grep -c . "$W/once.err"
		assert_output 2
	fi
	# The member joined again on GlusterFS.
	went_on "$fol" "$mem" 200
	if [ "$ENGINE" = gluster ]; then
		# Said once, and when it was over.
		run -0 grep -c 'server is away' "$W/fol.err"
		assert_output 1
		run -0 grep -c 'the server is back' "$W/fol.err"
		assert_output 1
		run -0 grep -c 'joined again' "$W/mem.err"
		assert_output 1
	else
		# No error reached them; a read that waited for the OSD is said,
		# once, with its answer, and nothing else is.
		said_waits "$W/fol.err"
		said_waits "$W/mem.err"
	fi
	kill $fol $mem
	wait_pids 60 $fol $mem
	PIDS=
}

shared_mds_away() {
	[ "$ENGINE" = ceph ] || skip "GlusterFS has no metadata server: its bricks hold the metadata, and the brick scenario kills them"
	local fol mem put
	fol_and_mem
	DAEMON_KILLED=mds.a
	"$FS" kill "$TMQ_FS" mds.a
	# A producer meanwhile writes, or waits inside the file system.
	seq 101 200 | sed 's/$/:after/' | tmq-put -d "$A" -K: t &
	put=$!
	PIDS="$PIDS $put"
	wait_for done_or_waiting "$put"
	"$FS" start "$TMQ_FS" mds.a
	DAEMON_KILLED=
	wait "$put"
	went_on "$fol" "$mem" 200
	said_waits "$W/fol.err"
	said_waits "$W/mem.err"
	kill $fol $mem
	wait_pids 60 $fol $mem
	PIDS=
}

shared_replica_lost() {
	[ "$ENGINE" = gluster ] && [ "${TMQ_GLUSTER_REPLICA:-1}" = 3 ] ||
	    skip "a replica 3 GlusterFS volume's alone (TMQ_GLUSTER_REPLICA=3): one brick or CephFS's one OSD has no other copy to serve"
	local fol mem p n=20000
	fol_and_mem
	PUTS=
	produce "$A" 1 $n slow
	produce "$B" 2 $n slow
	# One replica lost mid-run, while the other two serve: the third,
	# so that the first, the truth, holds every record.
	wait_for sh -c "[ \$(cat '$TRUTH'/t/*.tmf | wc -l) -gt 2000 ]"
	DAEMON_KILLED=brick.3
	"$FS" kill "$TMQ_FS" brick.3
	for p in $PUTS; do
		kill -0 "$p" 2>/dev/null || fail "a producer had ended before the brick was killed"
	done
	# Nobody notices, beyond a delay: every producer ends well, saying
	# nothing, and the readers go on, saying nothing but that a call
	# waited (fswait.h).
	for p in $PUTS; do
		wait "$p" || fail "a producer failed: $(cat "$W/put.err")"
	done
	[ ! -s "$W/put.err" ] || fail "$(cat "$W/put.err")"
	went_on "$fol" "$mem" $((2 * n + 100))
	said_waits "$W/fol.err"
	said_waits "$W/mem.err"
	# The brick back, the same.
	"$FS" start "$TMQ_FS" brick.3
	DAEMON_KILLED=
	seq 101 200 | sed 's/$/:after/' | tmq-put -d "$A" -K: t
	went_on "$fol" "$mem" $((2 * n + 200))
	said_waits "$W/fol.err"
	said_waits "$W/mem.err"
	kill $fol $mem
	wait_pids 60 $fol $mem
	PIDS=
}

shared_remount() {
	local fol
	tmq-topic -d "$A" create t -k u32 -p 2
	seq 1 100 | sed 's/$/:before/' | tmq-put -d "$A" -K: t
	tmq-get -d "$B" -f -F '%p %o %s\n' t >"$W/fol" 2>"$W/fol.err" &
	fol=$!
	PIDS=$fol
	wait_for lines_in "$W/fol" 100
	# The follower's own mount dies: every call on it fails (ENOTCONN),
	# and keeps failing after it is mounted again, on its descriptors.
	CLIENT_KILLED=client.b
	"$FS" kill "$TMQ_FS" client.b
	wait_for grep -q 'server is away' "$W/fol.err"
	# A once-through reader there fails, with the system's message.
	run -1 tmq-get -d "$B" t
	assert_output --partial 'Transport endpoint is not connected'
	"$FS" start "$TMQ_FS" client.b
	CLIENT_KILLED=
	# Mounted again: the follower opens the root again by its path and
	# goes on where it was.  (On CephFS the killed client's session
	# holds its files until the metadata server lets it go, about a
	# minute: the producer and the follower wait that long.)
	seq 101 200 | sed 's/$/:after/' | tmq-put -d "$A" -K: t
	wait_for lines_in "$W/fol" 200
	kill -0 "$fol"
	fol_is_truth
	run -0 grep -c 'server is away' "$W/fol.err"
	assert_output 1
	run -0 grep -c 'the server is back' "$W/fol.err"
	assert_output 1
	kill "$fol"
	wait_pids 60 "$fol"
	PIDS=
}

shared_eio() {
	command -v strace >/dev/null || skip "no strace (Debian's strace)"
	local spid fol
	tmq-topic -d "$A" create t -k u32 -p 2
	seq 1 100 | sed 's/$/:before/' | tmq-put -d "$A" -K: t
	# The follower's tenth getdents64 of the directory fails, as one
	# does when the server goes away (GlusterFS, CephFS).  (In a
	# subshell: not a job of ours, whose kill bash would report.
	# LeakSanitizer cannot work under ptrace.)
	(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -qq -f -o /dev/null -P "$B/t" -e trace=getdents64 \
	    -e inject=getdents64:error=EIO:when=10 \
	    tmq-get -d "$B" -f -F '%p %o %s\n' t >"$W/fol" 2>"$W/fol.err" &
	echo $! >"$W/spid")
	spid=$(cat "$W/spid")
	PIDS="$spid"
	wait_for grep -q 'server is away' "$W/fol.err"
	wait_for grep -q 'the server is back' "$W/fol.err"
	seq 101 200 | sed 's/$/:after/' | tmq-put -d "$A" -K: t
	wait_for sh -c "[ \$(wc -l <'$W/fol') -ge 200 ]"
	fol=$(pgrep -P "$spid")
	PIDS="$PIDS $fol"
	kill -0 "$fol"
	# Each record once, none lost, none twice.
	fol_is_truth
	run -0 grep -c 'server is away' "$W/fol.err"
	assert_output 1
	assert_equal "$(grep -v 'server is' "$W/fol.err")" ""
	kill $fol
	wait_pids 60 $spid
	PIDS=
}

shared_sigkill() {
	local n=2000 killed lines
	tmq-topic -d "$A" create t -k u32 -p 1
	records 9 100000 slow | tmq-put -d "$B" -K: t &
	killed=$!
	PIDS="$killed"
	produce "$A" 1 $n slow
	produce "$B" 2 $n slow
	produce "$A" 3 $n fast
	# Kill it once it has written some, while the others write.
	local limit=3000
	until [ "$(cat "$TRUTH"/t/*.tmf 2>/dev/null | wc -l)" -gt 500 ]; do
		[ $((limit -= 1)) -gt 0 ] || fail "nothing written"
		sleep 0.1
	done
	kill -KILL $killed
	wait_pids 600 $PUTS
	truth >"$W/truth"
	# Each survivor's records, all of them, once and whole.
	for w in 1 2 3; do
		run -0 sh -c "grep -c ' w$w-[0-9]*-x\{30\}\$' '$W/truth'"
		assert_output "$n"
	done
	# A line is a whole record or a corrupt one (the cut tail of the
	# killed producer's last write): never two records run together.
	run -0 sh -c "grep -v '^[0-9]* [0-9]* w[1239]-[0-9]*-x\{30\}\$' '$W/truth' | wc -l"
	assert_output 0
	# At most the one line the kill cut short is corrupt.
	run env TMQ_INDEX=off tmq-dump -d "$TRUTH" --verify t
	lines=$(echo "$output" | tail -1)
	echo "# killed producer: $lines" >&3
	[[ "$lines" =~ \ ([01])\ corrupt ]] || fail "$output"
}

shared_throughput() {
	local n=20000 t0 t1 local_rate shared_rate
	tmq-topic -d "$A" create t -k u32 -p 4
	tmq-topic -d "$W/local" create t -k u32 -p 4
	records 1 $n fast >"$W/in"
	t0=$(date +%s.%N)
	tmq-put -d "$W/local" -K: t <"$W/in"
	t1=$(date +%s.%N)
	local_rate=$(rate $n $t0 $t1)
	t0=$(date +%s.%N)
	tmq-put -d "$A" -K: t <"$W/in"
	t1=$(date +%s.%N)
	shared_rate=$(rate $n $t0 $t1)
	run -0 tmq-get -d "$B" -n $n t
	assert_equal "${#lines[@]}" "$n"
	t0=$(date +%s.%N)
	tmq-get -d "$B" t >/dev/null
	t1=$(date +%s.%N)
	echo "# tmq-put, one producer, $n records of 40 bytes: local disk $local_rate/s, $FSNAME $shared_rate/s" >&3
	echo "# tmq-get on the other mount: $(rate $n $t0 $t1)/s" >&3
}
