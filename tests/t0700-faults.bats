#!/usr/bin/env bats
# t0700-faults: what the tools do when things go wrong around them:
# concurrent producers in the locked append mode, producers killed with
# SIGKILL under a follower, a line cut short in the middle of a file, a
# full disk, a read-only root, permissions, a topic directory removed under
# a follower, symbolic links, the umask, terminal escapes in dumps, and
# tmq-topic create and delete and tmq-group delete killed at random moments.
#
# Every test has a fresh root; every wait is bounded in time.  Mounts (the
# disk-full and read-only tests, as root only) and background processes
# are undone in teardown, whatever happened.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
	: >"$BATS_TEST_TMPDIR/.dirs"
}

# (test_helper: track, mount_tmpfs)
teardown() {
	local d
	end_bg KILL
	end_mounts
	while read -r d; do
		rm -rf "$d"
	done <"$BATS_TEST_TMPDIR/.dirs"
	# (a test may have taken write permission away)
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || :
}

# cpu_ticks PID: user + system CPU time of PID, in clock ticks.
cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# The name of today's file for partition 0, as tmq-put names it now.
today_file() {
	tmq-topic create probe >/dev/null 2>&1 || :
	tmq-put probe x
	(cd "$TMQ_ROOT/probe" && ls)
}

# The tail of FILE is a newline (or FILE is empty).
ends_with_newline() {
	[ ! -s "$1" ] || [ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 0a ]
}

# ---------------------------------------------------------------- producers

@test "TMQ_APPEND=lock: 4 producers x 20000 records into one file: none lost, none corrupt, each producer's order kept" {
	local p pids=()
	tmq-topic create ev
	for p in 1 2 3 4; do
		awk -v p="$p" 'BEGIN { for (i = 0; i < 20000; i++)
		    printf "%d:P%d-%d\n", p, p, i }' 3>&- |
		    TMQ_APPEND=lock tmq-put -K : ev 3>&- &
		pids+=($!)
		track $!
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	run --separate-stderr tmq-dump --verify
	assert_success
	assert_output '1 files, 80000 lines, 0 corrupt'
	assert_equal "$stderr" ''
	# Per key (= producer): P<key>-0, P<key>-1, ... P<key>-19999 in order.
	tmq-get -F '%k %s\n' ev >out
	run awk '{ n = split($2, a, "-")
		if (n != 2 || a[1] != "P" $1 || a[2] != seen[$1]++) {
			if (++bad <= 5) print "line " NR ": " $0
		}
	    } END { for (k in seen) if (seen[k] != 20000) print "key " k ": " seen[k]
		print "bad " bad + 0 }' out
	assert_output 'bad 0'
	run awk '{ k[$1] } END { n = 0; for (x in k) n++; print n }' out
	assert_output 4
}

# merged_lines DIR REPORT: of the lines tmq-dump names as corrupt in
# REPORT (its stderr), print those that are merged, that is, that end with
# a whole good line (u16 key, text payload [PR]N-N-x{40}): the mark of a
# writer that appended to a cut line.  Then "checked C merged M".
# whole_tail FILE: what follows FILE's last newline is a whole line of the
# test's (a cut that fell just before its newline), good once ended.
whole_tail() {
	python3 - "$1" <<'EOF'
import base64, re, struct, sys, zlib
l = open(sys.argv[1], "rb").read().rsplit(b"\n", 1)[-1].decode("ascii", "replace")
try:
    base64.b85decode(l[:3])
    struct.unpack(">d", base64.b85decode(l[3:13]))
    d = zlib.decompressobj(-15)
    raw = d.decompress(base64.b85decode(l[13:]))
    ok = d.eof and not d.unused_data and re.fullmatch(r"[PR][0-9]+-[0-9]+-x{40}", raw.decode("utf-8")) is not None
except Exception:
    ok = False
sys.exit(0 if ok else 1)
EOF
}

merged_lines() {
	python3 - "$1" "$2" <<'EOF'
import base64, re, struct, sys, zlib
pat = re.compile(r"[PR][0-9]+-[0-9]+-x{40}")
def good(l):
    if len(l) < 14:
        return False
    try:
        base64.b85decode(l[:3])
        struct.unpack(">d", base64.b85decode(l[3:13]))
        d = zlib.decompressobj(-15)
        raw = d.decompress(base64.b85decode(l[13:]))
        if not d.eof or d.unused_data:
            return False
        return pat.fullmatch(raw.decode("utf-8")) is not None
    except Exception:
        return False
top, report = sys.argv[1:3]
files = {}
checked = merged = 0
for r in open(report):
    m = re.match(r"tmq-dump: ev/([^:]+):([0-9]+): partition", r)
    if not m:
        print("unexpected: " + r.rstrip())
        continue
    name, n = m.group(1), int(m.group(2))
    if name not in files:
        files[name] = open(top + "/" + name, "rb").read().split(b"\n")
    l = files[name][n - 1]
    checked += 1
    if good(l):
        print("%s:%d is not corrupt" % (name, n))
    elif any(good(l[k:]) for k in range(1, len(l) - 13)):
        merged += 1
        print("merged: %s:%d: %r" % (name, n, l[:80]))
print("checked %d merged %d" % (checked, merged))
EOF
}

@test "SIGKILL: 30 rounds of 2 producers killed at random moments under a follower: no merged line, every record printed is intact, readers agree" {
	local pad r pids fpid torn=0 f p key0 key1 good total corrupt st
	command -v python3 >/dev/null || skip "python3 not found"
	pad=$(printf '%040d' 0 | tr 0 x)
	tmq-topic create -p 2 ev
	# A key for each partition, to end a cut line in the partition it is in.
	for p in 1 2 3 4 5 6 7 8; do
		case $(tmq-topic partition ev "$p") in
		0) key0=$p ;;
		1) key1=$p ;;
		esac
	done
	[ -n "$key0" ] && [ -n "$key1" ]
	# One producer of each round reads a pipe from a generator (small
	# batches, as input comes), the other a file (batches of 256 KiB, whose
	# write() a kill can cut).
	awk -v pad="$pad" 'BEGIN { for (i = 0; i < 100000; i++)
	    printf "%d:P1-%d-%s\n", i % 8, i, pad }' >in.file
	tmq-get -f -F '%p %o %s\n' ev >follow.out 2>follow.err 3>&- &
	fpid=$!
	track $fpid
	for r in $(seq 0 29); do
		p=$((2 * r))
		awk -v p="$p" -v pad="$pad" 'BEGIN { for (i = 0; i < 200000; i++)
		    printf "%d:P%d-%d-%s\n", i % 8, p, i, pad }' 2>/dev/null 3>&- |
		    tmq-put -K : ev 3>&- 2>/dev/null &
		pids=($!)
		track $!
		tmq-put -K : ev <in.file 3>&- 2>/dev/null &
		pids+=($!)
		track $!
		sleep "0.00$((RANDOM % 9 + 1))"
		kill -9 "${pids[@]}" 2>/dev/null || :
		wait "${pids[@]}" 2>/dev/null || :
		# A kill that lands inside a write() of several pages leaves a
		# cut line (Linux stops such a write between pages).  The next
		# producer ends it before it appends: put one record there now,
		# so that each cut line becomes exactly one corrupt line.
		# (A cut that fell just before a line's newline left the line
		# whole: ended, it is a good one, and no cut line.)
		for f in "$TMQ_ROOT"/ev/*.tmf; do
			ends_with_newline "$f" && continue
			whole_tail "$f" || torn=$((torn + 1))
			case ${f##*/} in
			0-*) tmq-put -K : ev "$key0:R$r-0-$pad" ;;
			*) tmq-put -K : ev "$key1:R$r-1-$pad" ;;
			esac
		done
	done
	for f in "$TMQ_ROOT"/ev/*.tmf; do
		ends_with_newline "$f"
	done

	tmq-dump --verify ev >dump.out 2>dump.err || :
	output=$(cat dump.out)
	[[ $output =~ ^[0-9]+\ files,\ ([0-9]+)\ lines,\ ([0-9]+)\ corrupt$ ]]
	total=${BASH_REMATCH[1]} corrupt=${BASH_REMATCH[2]}
	echo "# $total lines, $torn cut by SIGKILL, $corrupt corrupt" >&3
	# On a local filesystem the only corrupt lines are the cut ones, each
	# ended on its own: none is merged with the line after it.
	assert_equal "$corrupt" "$torn"
	run merged_lines "$TMQ_ROOT/ev" dump.err
	assert_output "checked $torn merged 0"

	# The follower prints every good line, each intact, then is stopped.
	good=$((total - corrupt))
	wait_for lines_in follow.out "$good"
	kill -TERM "$fpid"
	wait_for gone "$fpid"
	run wc -l <follow.out
	assert_output "$good"
	run grep -Evc '^[01] [0-9]+ [PR][0-9]+-[0-9]+-x{40}$' follow.out
	assert_output 0
	# ... and reports the cut lines, by partition and offset, as tmq-dump does.
	run grep -Evc '^tmq-get: ev: partition [01] offset [0-9]+: .+$' follow.err
	assert_output 0
	run wc -l <follow.err
	assert_output "$corrupt"

	# Two readers agree with the follower on every offset.
	LC_ALL=C sort follow.out >follow.sorted
	st=0
	tmq-get -F '%p %o %s\n' ev >get.out 2>/dev/null || st=$?
	assert_equal "$st" $(( corrupt > 0 ? 1 : 0 ))
	LC_ALL=C sort get.out | diff -u - follow.sorted
	# ({"topic":"ev","partition":P,"offset":O,...,"payload":"S"})
	tmq-dump -J ev 2>/dev/null | awk -F '"' '{ p = $7; o = $9
		gsub(/[:,]/, "", p); gsub(/[:,]/, "", o); print p, o, $(NF - 1) }' |
	    LC_ALL=C sort | diff -u - follow.sorted
}

# ------------------------------------------------- killed administration

# kill_within US CMD...: run CMD in the background and SIGKILL it at a
# random moment within US microseconds (it may have ended by then).
kill_within() {
	local us=$1 d pid
	shift
	d=$(((RANDOM * 32768 + RANDOM) % (us + 1)))
	"$@" >/dev/null 2>&1 3>&- &
	pid=$!
	track "$pid"
	sleep "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))"
	kill -9 "$pid" 2>/dev/null || :
	wait "$pid" 2>/dev/null || :
}

# topic_state NAME PARTS: "whole" when list, info and get all see topic
# NAME, with PARTS partitions and a file for each; "none" when none of them
# sees it.  Anything else (a directory without its definition among it) is
# said, and fails.
topic_state() {
	local name=$1 parts=$2 listed=0 info get irc=0 grc=0
	if [ -d "$TMQ_ROOT/$name" ] && [ ! -e "$TMQ_ROOT/$name.twc" ]; then
		echo "$name/ is there without $name.twc"
		return 1
	fi
	if tmq-topic list | grep -qxF "$name"; then
		listed=1
	fi
	info=$(tmq-topic info "$name" 2>&1) || irc=$?
	get=$(tmq-get "$name" 2>&1) || grc=$?
	if [ "$listed$irc$grc" = 100 ] &&
	    grep -qx "partitions: $parts" <<<"$info" &&
	    [ "$(ls "$TMQ_ROOT/$name" | wc -l)" -eq "$parts" ]; then
		echo whole
	elif [ "$listed" = 0 ] && [ "$info" = "tmq-topic: $name: no such topic" ] &&
	    [ "$get" = "tmq-get: $name: no such topic" ]; then
		echo none
	else
		echo "neither whole nor none: listed $listed, info $irc ($info), get $grc ($get)"
		return 1
	fi
}

# group_state GROUP: "whole" when list and describe see GROUP, with an
# offset committed for each of its topic's partitions; "none" when neither
# sees it.  Anything else is said, and fails.
group_state() {
	local g=$1 gt=--group--$1 listed=0 desc drc=0
	if [ -d "$TMQ_ROOT/$gt" ] && [ ! -e "$TMQ_ROOT/$gt.twc" ]; then
		echo "$gt/ is there without $gt.twc"
		return 1
	fi
	if tmq-group list | awk 'NR > 1 { print $1 }' | grep -qxF "$g"; then
		listed=1
	fi
	desc=$(tmq-group describe "$g" 2>&1) || drc=$?
	if [ "$listed$drc" = 10 ] && [ "$(awk '/^PARTITION/ { t = 1; next }
	    t && $2 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' <<<"$desc")" = 2 ]; then
		echo whole
	elif [ "$listed" = 0 ] && [ "$desc" = "tmq-group: $g: no such group" ]; then
		echo none
	else
		echo "neither whole nor none: listed $listed, describe $drc ($desc)"
		return 1
	fi
}

# old_days DIR: empty files of 100 past days for partition 0 in DIR, as
# the library's producers leave them, one a day they start.
old_days() {
	touch "$1"/0-2025{01..04}{01..25}_0.tmf
}

@test "SIGKILL of tmq-topic create and delete at random moments: every tool sees the whole topic or none, and a rerun or the opposite command finishes the job" {
	local p=128 t0 t1 t2 dc dd state=none after left i kind fin want out rc
	# Kills are spread over each command's own run, as measured here.
	t0=${EPOCHREALTIME/./}
	tmq-topic create -p "$p" ev
	t1=${EPOCHREALTIME/./}
	tmq-topic delete -y ev
	t2=${EPOCHREALTIME/./}
	dc=$(((t1 - t0) * 12 / 10)) dd=$(((t2 - t1) * 12 / 10))
	for i in $(seq 20); do
		if [ "$state" = none ]; then
			kind=create
			kill_within "$dc" tmq-topic create -p "$p" ev
		else
			kind=delete
			kill_within "$dd" tmq-topic delete -y ev
		fi
		after=$(topic_state ev "$p") || fail "round $i: $kind killed: $after"
		left=$(cd "$TMQ_ROOT" && LC_ALL=C ls -Ad -- * .* ev+tmq/* 2>/dev/null | grep -v '^\.\.\?$' | tr '\n' ' ')
		# Finish with the killed command (two rounds of four) or its
		# opposite.
		fin=$kind
		if [ $((i % 4)) -ge 2 ]; then
			[ "$kind" = create ] && fin=delete || fin=create
		fi
		rc=0
		if [ "$fin" = create ]; then
			out=$(tmq-topic create -p "$p" ev 2>&1) || rc=$?
			want=whole
		else
			out=$(tmq-topic delete -y ev 2>&1) || rc=$?
			want=none
		fi
		# It fails only when there was nothing for it to do.
		if [ "$rc" != 0 ]; then
			case "$fin $after $out" in
			"create whole tmq-topic: ev: topic exists") ;;
			"delete none tmq-topic: ev: no such topic")
				# (only where nothing was left: a work directory
				# with nothing in it but its lock is a killed run's,
				# and clearing it is a success)
				[ -z "$left" ] || fail "round $i: $kind killed, root holds $left, then delete: $out" ;;
			*) fail "round $i: $kind killed ($after, root holds $left), then $fin: $out" ;;
			esac
		fi
		state=$(topic_state ev "$p") || fail "round $i: $kind killed ($after, root holds $left), then $fin: $state"
		[ "$state" = "$want" ] || fail "round $i: $kind killed ($after, root holds $left), then $fin: $state"
		# ... and leaves nothing else behind.
		left=$(LC_ALL=C ls -A "$TMQ_ROOT" | tr '\n' ' ')
		if [ "$want" = whole ]; then
			assert_equal "$left" "ev ev.twc "
		else
			assert_equal "$left" ""
		fi
	done
}

@test "SIGKILL of a group's making (tmq-get -g -P) and of tmq-group delete at random moments: every tool sees the whole group or none, and a rerun or the opposite finishes the job" {
	local g=$TMQ_ROOT/--group--G t0 t1 t2 dc dd state=none after left i kind fin want out rc
	tmq-topic create -p 2 ev
	tmq-put ev a b
	t0=${EPOCHREALTIME/./}
	tmq-get -g G -P 0,1 ev >/dev/null
	t1=${EPOCHREALTIME/./}
	# A group a few months old: a day file for each day a member started.
	old_days "$g"
	t2=${EPOCHREALTIME/./}
	tmq-group delete -y G
	t2=$((${EPOCHREALTIME/./} - t2 + t1))
	dc=$(((t1 - t0) * 12 / 10)) dd=$(((t2 - t1) * 12 / 10))
	for i in $(seq 20); do
		if [ "$state" = none ]; then
			kind=create
			kill_within "$dc" tmq-get -g G -P 0,1 ev
		else
			kind=delete
			[ -e "$g/0-20250101_0.tmf" ] || old_days "$g"
			kill_within "$dd" tmq-group delete -y G
		fi
		after=$(group_state G) || fail "round $i: $kind killed: $after"
		left=$(cd "$TMQ_ROOT" && LC_ALL=C ls -Ad -- * .* --group--G+tmq/* 2>/dev/null | grep -v '^\.\.\?$' | tr '\n' ' ')
		fin=$kind
		if [ $((i % 4)) -ge 2 ]; then
			[ "$kind" = create ] && fin=delete || fin=create
		fi
		rc=0
		if [ "$fin" = create ]; then
			out=$(tmq-get -g G -P 0,1 ev 2>&1 >/dev/null) || rc=$?
			want=whole
		else
			out=$(tmq-group delete -y G 2>&1) || rc=$?
			want=none
		fi
		if [ "$rc" != 0 ]; then
			case "$fin $after $out" in
			"delete none tmq-group: G: no such group")
				[ "$left" = "ev ev.twc " ] || fail "round $i: $kind killed, root holds $left, then delete: $out" ;;
			*) fail "round $i: $kind killed ($after, root holds $left), then $fin: $out" ;;
			esac
		fi
		state=$(group_state G) || fail "round $i: $kind killed ($after, root holds $left), then $fin: $state"
		[ "$state" = "$want" ] || fail "round $i: $kind killed ($after, root holds $left), then $fin: $state"
		left=$(cd "$TMQ_ROOT" && LC_ALL=C ls -Ad -- * .* --group--G+tmq/* 2>/dev/null | grep -v '^\.\.\?$' | tr '\n' ' ')
		if [ "$want" = whole ] && [ "$after" = whole ] &&
		    { [ "$left" = "--group--G --group--G+tmq --group--G+tmq/lock --group--G.twc ev ev.twc " ] ||
		    [ "$left" = "--group--G --group--G+tmq --group--G.twc ev ev.twc " ]; }; then
			# A delete killed before it began, or a make killed as
			# it ended, left its work directory with at most its
			# lock; reading a whole group makes nothing, and the
			# next make or delete of the group clears it (as the
			# next rounds check).
			:
		elif [ "$want" = whole ]; then
			assert_equal "$left" "--group--G --group--G.twc ev ev.twc "
		else
			assert_equal "$left" "ev ev.twc "
		fi
	done
}

@test "a line cut short, then more puts: exactly that offset is corrupt, named by topic, partition and offset; every record put after it is read" {
	local f line
	tmq-topic create ev
	tmq-put ev one two
	f=$(cd "$TMQ_ROOT/ev" && ls)
	line=$(tmq_encode_line 2 0 1795597320 'a line cut in two by a crash')
	printf '%s' "${line:0:$(( ${#line} / 2 ))}" >>"$TMQ_ROOT/ev/$f"
	# Until something follows it, the cut line is a line still being
	# written: not a message yet, and not corrupt either.
	run --separate-stderr tmq-get -F '%o %s\n' ev
	assert_success
	assert_output $'0 one\n1 two'
	run tmq-put ev three four
	assert_success
	tmq-put ev five
	run --separate-stderr tmq-get -F '%o %s\n' ev
	assert_failure 1
	assert_output $'0 one\n1 two\n3 three\n4 four\n5 five'
	assert_regex "$stderr" '^tmq-get: ev: partition 0 offset 2: [^'$'\n'']+$'
	run --separate-stderr tmq-dump --verify ev
	assert_failure 1
	assert_output '1 files, 6 lines, 1 corrupt'
	assert_regex "$stderr" "^tmq-dump: ev/$f:3: partition 0 offset 2: [^"$'\n'"]+\$"
	# Reading on from just after it is clean.
	run --separate-stderr tmq-get -o 3 -F '%o %s\n' ev
	assert_success
	assert_output $'3 three\n4 four\n5 five'
}

@test "a line cut short at the end of an older day file takes one offset; the next file starts after it" {
	local d="$TMQ_ROOT/ev" line
	tmq-topic create ev
	tmq_write_line "$d" 0-20261125_0.tmf 2 0 1795597320 a
	tmq_write_line "$d" 0-20261125_0.tmf 2 0 1795597321 b
	line=$(tmq_encode_line 2 0 1795597322 'cut')
	printf '%s' "${line:0:9}" >>"$d/0-20261125_0.tmf"
	tmq-put ev today
	run ls "$d"
	assert_output --regexp '^0-20261125_0\.tmf'$'\n''0-[0-9]{8}_3\.tmf$'
	run --separate-stderr tmq-get -F '%o %s\n' ev
	assert_failure 1
	assert_output $'0 a\n1 b\n3 today'
	assert_equal "$stderr" 'tmq-get: ev: partition 0 offset 2: unterminated line'
}

# ---------------------------------------------------------------- the disk

@test "disk full: tmq-put fails with one clear line; at most one corrupt record; once there is room a put lands intact" {
	local fs="$BATS_TEST_TMPDIR/fs"
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a small tmpfs)"
	mount_tmpfs "$fs" 256k || skip "cannot mount a tmpfs here"
	export TMQ_ROOT="$fs/root"
	tmq-topic create ev
	head -c 65536 /dev/zero >"$fs/filler"
	awk 'BEGIN { srand(1); for (i = 0; i < 100000; i++) {
		s = ""; for (j = 0; j < 8; j++) s = s sprintf("%08x", int(rand() * 4294967296))
		printf "record-%d-%s\n", i, s } }' >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr tmq-put ev <"$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_output ''
	assert_regex "$stderr" '^tmq-put: ev: partition 0: write failed( \(cut line terminated\))?: No space left on device; records 1 to [0-9]+ were written, record [0-9]+ and later were not$'
	# Another put on the full disk fails the same way.
	run --separate-stderr tmq-put ev more
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: ev: partition 0: write failed( \(cut line terminated\))?: No space left on device; no message was written$'
	run --separate-stderr tmq-dump --verify
	assert_regex "$output" '^1 files, [0-9]+ lines, [01] corrupt$'

	rm "$fs/filler"
	run --separate-stderr tmq-put ev 'after the disk was full'
	assert_success
	assert_equal "$stderr" ''
	run --separate-stderr tmq-dump --verify
	assert_regex "$output" '^1 files, [0-9]+ lines, [01] corrupt$'
	# What reads back is the input's first records, in order, then ours.
	tmq-get -F '%s\n' ev >out 2>err || :
	[ "$(wc -l <out)" -gt 1000 ]
	run tail -n 1 out
	assert_output 'after the disk was full'
	head -n -1 out >got
	head -n "$(wc -l <got)" "$BATS_TEST_TMPDIR/in" | cmp - got ||
	    { grep -c . err; diff got "$BATS_TEST_TMPDIR/in" | head -5; false; }
	run grep -Evc '^tmq-get: ev: partition 0 offset [0-9]+: .+$' err
	assert_output 0
}

@test "read-only root: tmq-put and tmq-topic create fail with one clear line, exit 1; reading still works" {
	local fs="$BATS_TEST_TMPDIR/fs" how f
	if mount_tmpfs "$fs" 1m; then
		export TMQ_ROOT="$fs/root"
		tmq-topic create ev
		tmq-put ev before
		f=$(cd "$TMQ_ROOT/ev" && ls)
		mount -o remount,ro "$fs" || skip "cannot remount the tmpfs read-only"
		how=ro
	elif [ "$(id -u)" != 0 ]; then
		tmq-topic create ev
		tmq-put ev before
		f=$(cd "$TMQ_ROOT/ev" && ls)
		chmod -R a-w "$TMQ_ROOT"
		how=chmod
	else
		skip "root, and no read-only mount: cannot make a read-only root"
	fi
	run --separate-stderr tmq-put ev after
	assert_failure 1
	if [ "$how" = ro ]; then
		assert_equal "$stderr" "tmq-put: ev: partition 0: $f: Read-only file system; no message was written"
	else
		assert_equal "$stderr" "tmq-put: ev: partition 0: $f: Permission denied; no message was written"
	fi
	run --separate-stderr tmq-topic create ev2
	assert_failure 1
	if [ "$how" = ro ]; then
		assert_equal "$stderr" 'tmq-topic: ev2: cannot create the topic directory: Read-only file system'
	else
		assert_equal "$stderr" 'tmq-topic: ev2: cannot create the topic directory: Permission denied'
	fi
	run --separate-stderr tmq-get ev
	assert_success
	assert_output before
	[ "$how" = ro ] || chmod -R u+w "$TMQ_ROOT"
}

@test "read-only root: tmq-group reset says nothing was reset and prints no table as if done" {
	local fs="$BATS_TEST_TMPDIR/fs" how before
	if mount_tmpfs "$fs" 1m; then
		export TMQ_ROOT="$fs/root"
		how=ro
	elif [ "$(id -u)" != 0 ]; then
		how=chmod
	else
		skip "root, and no read-only mount: cannot make a read-only root"
	fi
	tmq-topic create -p 2 ev
	tmq-put ev a b c
	tmq-get -g G -n 1 ev >/dev/null
	before=$(tmq-group describe --json G)
	f=$(cd "$TMQ_ROOT/--group--G" && ls)
	if [ "$how" = ro ]; then
		mount -o remount,ro "$fs" || skip "cannot remount the tmpfs read-only"
		why="Read-only file system"
	else
		chmod -R a-w "$TMQ_ROOT"
		why="Permission denied"
	fi
	# It printed the whole OLD/NEW table, then failed: the table read
	# as done.
	run --separate-stderr tmq-group reset G --shift-by 1
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "tmq-group: G: nothing reset: cannot write --group--G/$f: $why"
	# A dry run writes nothing, and prints its table.
	run --separate-stderr tmq-group reset G --shift-by 1 --dry-run
	assert_success
	assert_line --index 0 --regexp '^PARTITION +OLD-OFFSET +NEW-OFFSET$'
	run tmq-group describe --json G
	assert_output "$before"
	[ "$how" = ro ] || chmod -R u+w "$TMQ_ROOT"
}

@test "permission denied on a topic's files, for a user who is not root" {
	local base f run_as
	[ "$(id -u)" = 0 ] || skip "needs root (to run the tools as nobody)"
	if command -v setpriv >/dev/null; then
		run_as() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups -- "$@"; }
	elif command -v runuser >/dev/null; then
		run_as() { runuser -u nobody -- "$@"; }
	else
		skip "neither setpriv nor runuser is available"
	fi
	# Under /tmp: nobody cannot get through the test's own 0700 directories.
	base=$(mktemp -d "${TMPDIR:-/tmp}/tmq-t0700.XXXXXX")
	echo "$base" >>"$BATS_TEST_TMPDIR/.dirs"
	chmod 755 "$base"
	export TMQ_ROOT="$base/root"
	tmq-topic create ev
	tmq-put ev mine
	f=$(cd "$TMQ_ROOT/ev" && ls)
	run_as true || skip "cannot run as nobody here"
	run --separate-stderr run_as env PATH="$PATH" TMQ_ROOT="$TMQ_ROOT" tmq-put ev theirs
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: partition 0: $f: Permission denied; no message was written"
	chmod 600 "$TMQ_ROOT/ev/$f"
	run --separate-stderr run_as env PATH="$PATH" TMQ_ROOT="$TMQ_ROOT" tmq-get ev
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0: $f: Permission denied"
	assert_output ''
	chmod 600 "$TMQ_ROOT/ev.twc"
	run --separate-stderr run_as env PATH="$PATH" TMQ_ROOT="$TMQ_ROOT" tmq-get ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: ev: cannot read ev.twc: Permission denied'
	run tmq-get ev
	assert_output mine
}

# ---------------------------------------------------------------- followers

@test "topic directory removed under a follower: it exits 1 with a clear error, soon, without spinning" {
	local mode pid t0 t1 st
	tmq-topic create ev
	for mode in inotify poll; do
		[ -d "$TMQ_ROOT/ev" ] || tmq-topic create ev
		tmq-put ev hello
		if [ "$mode" = poll ]; then
			TMQ_FOLLOW=poll tmq-get -f ev >out 2>err 3>&- &
		else
			tmq-get -f ev >out 2>err 3>&- &
		fi
		pid=$!
		track $pid
		wait_for lines_in out 1
		# Following an idle topic costs next to nothing.
		t0=$(cpu_ticks "$pid")
		sleep 1
		t1=$(cpu_ticks "$pid")
		[ $((t1 - t0)) -le 10 ] ||
		    { echo "$mode: $((t1 - t0)) ticks of CPU in 1 s idle"; false; }
		rm -rf "$TMQ_ROOT/ev"
		SECONDS=0
		# Until it ends, watch its CPU time: no busy loop.
		while ! gone "$pid" && [ "$SECONDS" -lt "$TMQ_TEST_WAIT" ]; do
			t1=$(cpu_ticks "$pid" 2>/dev/null) || break
			sleep 0.05
		done
		gone "$pid" || { echo "$mode: still running $TMQ_TEST_WAIT s after"; false; }
		[ $((t1 - t0)) -le 20 ] ||
		    { echo "$mode: $((t1 - t0)) ticks of CPU"; false; }
		st=0
		wait "$pid" || st=$?
		assert_equal "$mode $st" "$mode 1"
		run cat err
		assert_output 'tmq-get: ev: the topic directory was removed'
		run cat out
		assert_output hello
		rm -f "$TMQ_ROOT/ev.twc"
	done
}

@test "a follower whose file is pruned under it goes on to the next file" {
	local d="$TMQ_ROOT/ev" pid
	tmq-topic create ev
	tmq_write_line "$d" 0-20261125_0.tmf 2 0 1795597320 a
	tmq_write_line "$d" 0-20261125_0.tmf 2 0 1795597321 b
	tmq-get -f -F '%o %s\n' ev >out 2>err 3>&- &
	pid=$!
	track $pid
	wait_for lines_in out 2
	rm "$d/0-20261125_0.tmf"
	sleep 1.2	# (the follower looks again every second)
	tmq_write_line "$d" 0-20261126_2.tmf 2 0 1795683720 c
	wait_for lines_in out 3
	kill -TERM "$pid"
	wait_for gone "$pid"
	run cat out
	assert_output $'0 a\n1 b\n2 c'
	run cat err
	assert_output ''
}

# ---------------------------------------------------------------- links

@test "a topic directory that is a symbolic link out of the root is refused, and nothing is made outside" {
	local out="$BATS_TEST_TMPDIR/outside"
	mkdir "$out"
	tmq-topic create ev
	rm -r "$TMQ_ROOT/ev"
	ln -s "$out" "$TMQ_ROOT/ev"
	run --separate-stderr tmq-put ev x
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: the topic directory is a symbolic link (not followed)'
	run --separate-stderr tmq-get ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-get: ev: the topic directory is a symbolic link (not followed)'
	run --separate-stderr tmq-dump ev
	assert_failure 1
	assert_equal "$stderr" 'tmq-dump: ev: the topic directory is a symbolic link (not followed)'
	run ls -A "$out"
	assert_output ''
	# A definition that is a symbolic link is not read either.
	rm "$TMQ_ROOT/ev"
	mkdir "$TMQ_ROOT/ev"
	mv "$TMQ_ROOT/ev.twc" "$out/ev.twc"
	ln -s "$out/ev.twc" "$TMQ_ROOT/ev.twc"
	run --separate-stderr tmq-put ev x
	assert_failure 1
	assert_equal "$stderr" 'tmq-put: ev: ev.twc: a symbolic link, not followed'
	run ls -A "$TMQ_ROOT/ev"
	assert_output ''
}

@test "a partition file that is a symbolic link out of the root is not followed by tmq-put, nor read" {
	local out="$BATS_TEST_TMPDIR/outside" f
	mkdir "$out"
	printf 'precious\n' >"$out/target"
	f=$(today_file)
	tmq-topic create ev
	rm "$TMQ_ROOT/ev/$f"	# the empty file create made
	ln -s "$out/target" "$TMQ_ROOT/ev/$f"
	run --separate-stderr tmq-put ev x
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: partition 0: $f: a symbolic link, not followed; no message was written"
	run cat "$out/target"
	assert_output precious
	run --separate-stderr tmq-get ev
	assert_failure 1
	assert_equal "$stderr" "tmq-get: ev: partition 0: $f: a symbolic link, not followed"
}

@test "a partition file of one endless line: tmq-get still hears SIGTERM and SIGINT while it skips it" {
	local sig pid i
	tmq-topic create ev
	rm "$TMQ_ROOT"/ev/*.tmf	# the empty file create made
	# 1 GiB and no newline.  (Not a sparse file: its holes would not be
	# read, and cost nothing to skip.)
	head -c 1073741824 /dev/zero | tr '\0' x >"$TMQ_ROOT/ev/0-20261125_0.tmf"
	for sig in TERM INT; do
		tmq-get -f ev >/dev/null 2>&1 &
		pid=$!
		track "$pid"
		# Into the skipping: it has read 64 MiB.
		wait_for read_past "$pid" 67108864
		kill -s "$sig" "$pid"
		# (a bound of its own: the file takes longer than the usual)
		TMQ_TEST_WAIT=30 wait_for gone "$pid"
	done
}

@test "a read that blocks without failing (a network filesystem's client waiting for its server): the reader says once that it waits, and once that it was answered" {
	require_strace
	local f root
	root=$(realpath "$TMQ_ROOT")
	tmq-topic create ev -p 1
	seq 1 5 | tmq-put ev
	f=$(echo "$TMQ_ROOT"/ev/0-*.tmf)
	# TMQ_READ=direct: read as on a shared filesystem, whose reads are
	# watched (a local disk's are not).  The file's second read takes 9
	# s; the watch speaks after 5.
	run --separate-stderr env TMQ_READ=direct strace -f -qq -o /dev/null \
	    -P "$f" -e trace=pread64,read \
	    -e inject=pread64,read:delay_enter=9000000:when=2 tmq-get ev
	assert_success
	assert_output "$(seq 1 5)"
	assert_equal "$(grep -c . <<<"$stderr")" 2
	assert_equal "$(sed -n 1p <<<"$stderr")" \
	    "tmq-get: $root: waiting on the file system: no answer for 5 s"
	[[ "$(sed -n 2p <<<"$stderr")" =~ ^"tmq-get: $root: the file system answered after "(8|9|[1-9][0-9])" s"$ ]]
	# A follower waiting for more is not waiting on the file system.
	TMQ_READ=direct tmq-get -f ev >"$BATS_TEST_TMPDIR/fol" 2>"$BATS_TEST_TMPDIR/fol.err" &
	local fol=$!
	track "$fol"
	wait_for lines_in "$BATS_TEST_TMPDIR/fol" 5
	sleep 7	# (the silence of a wait longer than the watch's 5 s)
	kill "$fol"
	wait "$fol" || :
	assert_equal "$(cat "$BATS_TEST_TMPDIR/fol.err")" ""
	# A read of 2 s is not said.
	run --separate-stderr env TMQ_READ=direct strace -f -qq -o /dev/null \
	    -P "$f" -e trace=pread64,read \
	    -e inject=pread64,read:delay_enter=2000000:when=2 tmq-get ev
	assert_success
	assert_output "$(seq 1 5)"
	assert_equal "$stderr" ""
}

# opens_once ENV...: tmq-get ev under env ENV... reads the topic's 40
# records opening each of its 4 partition files once, O_DIRECT.
opens_once() {
	run --separate-stderr env "$@" strace -f -qq \
	    -o "$BATS_TEST_TMPDIR/trace" -e trace=openat tmq-get ev
	assert_success
	assert_equal "${#lines[@]}" 40
	run -0 grep -c 'tmf"' "$BATS_TEST_TMPDIR/trace"
	assert_output 4
	run -0 grep -c 'tmf", O_RDONLY|O_NONBLOCK|O_DIRECT|' "$BATS_TEST_TMPDIR/trace"
	assert_output 4
}

@test "a reader on a shared filesystem opens each partition file once, for reading past its client's cache (O_DIRECT) at once: not a plain open, then a direct one" {
	require_strace
	local shim=${TMQ_BIN:?}/../tests/nulshim.so
	tmq-topic create ev -p 4
	seq 1 40 | tmq-put ev
	opens_once TMQ_READ=direct
	# A root that says it is FUSE's (tests/nulshim.so, which spoils
	# nothing here).
	[ -f "$shim" ] || skip "tests/nulshim.so is not built (make tests/nulshim.so)"
	opens_once ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    LD_PRELOAD="$shim" NULSHIM_FILE=nothing-matches NULSHIM_FUSE=1
}

@test "a shared filesystem that refuses O_DIRECT for a partition file: the reader fails, naming the file and TMQ_READ=cached; TMQ_READ=direct reads it through the cache" {
	require_strace
	local shim=${TMQ_BIN:?}/../tests/nulshim.so name
	[ -f "$shim" ] || skip "tests/nulshim.so is not built (make tests/nulshim.so)"
	tmq-topic create ev -p 1
	seq 1 5 | tmq-put ev
	name=$(basename "$TMQ_ROOT"/ev/0-*.tmf)
	# (strace -P matches an openat's name as given: from here, where no
	# such file is, it is the partition file's open under its topic.)
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr env \
	    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    LD_PRELOAD="$shim" NULSHIM_FILE=nothing-matches NULSHIM_FUSE=1 \
	    strace -f -qq -o /dev/null -P "$name" \
	    -e inject=openat:error=EINVAL:when=1 tmq-get ev
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "tmq-get: ev: partition 0: $name: this filesystem cannot read past its client's cache (no O_DIRECT); TMQ_READ=cached reads anyway"
	run --separate-stderr env TMQ_READ=direct strace -f -qq -o /dev/null \
	    -P "$name" -e inject=openat:error=EINVAL:when=1 tmq-get ev
	assert_success
	assert_output "$(seq 1 5)"
	assert_equal "$stderr" ""
}

# ---------------------------------------------------------------- modes

@test "umask 002: the root, topic directories, definitions and partition files are group-writable" {
	export TMQ_ROOT="$BATS_TEST_TMPDIR/new/root"
	(
		umask 002
		tmq-topic create ev
		tmq-put ev x
	)
	run stat -c %a "$TMQ_ROOT" "$TMQ_ROOT/ev" "$TMQ_ROOT/ev.twc" "$TMQ_ROOT"/ev/*.tmf
	assert_output $'775\n775\n664\n664'
	# and umask 022 gives what it gives
	(
		umask 022
		tmq-topic create ev2
		tmq-put ev2 x
	)
	run stat -c %a "$TMQ_ROOT/ev2" "$TMQ_ROOT/ev2.twc" "$TMQ_ROOT"/ev2/*.tmf
	assert_output $'755\n644\n644'
}

# ---------------------------------------------------------------- terminals

@test "tmq-dump never puts terminal escapes on the terminal: C0, DEL and C1 controls are shown escaped" {
	tmq-topic create -k char8 ev
	tmq-put -k $'k\e[1m' ev $'a\e[2Jb\x07c\x7f\xc2\x9bd\xc2\x85e\tf\ng\rh'
	printf 'z\033\233\000z' | tmq-put -b -l -k k ev
	tmq-dump ev >out
	# No control byte but the newlines that end the two lines.
	run env LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]' out
	assert_output 0
	run env LC_ALL=C grep -c $'\xc2[\x80-\x9f]' out
	assert_output 0
	run wc -l <out
	assert_output 2
	run grep -F -c 'key=k\x1b[1m ' out
	assert_output 1
	run grep -F -c 'payload=a\x1b[2Jb\x07c\x7f\xc2\x9bd\xc2\x85e\tf\ng\rh' out
	assert_output 1
	run grep -F -c 'payload=z\x1b\x9b\x00z' out
	assert_output 1
}
