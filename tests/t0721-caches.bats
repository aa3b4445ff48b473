#!/usr/bin/env bats
# t0721-caches: what a co-user of a shared root can do to the files a
# reader keeps or trusts beside the log (the group's snapshot, the
# partition indexes) and to the paths it is given: a reader believes only
# the caches its own user wrote, checks what the log can check cheaply,
# and follows no topic directory that is a link, whichever way it is named.
#
# Every test has a fresh root and users of its own; every wait is bounded.

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

# Two Unix users in one fresh group (U1, the victim, and U2, the co-user;
# GRP), a directory both reach (SHARED) with the tools in SHARED/bin, and
# a root there of U1's making, setgid to GRP (SHARED/root).
two_users() {
	shared_users
	local t
	for t in gsnap-seal pidx-forge; do
		[ -x "$TMQ_BIN/../tests/$t" ] ||
		    { echo "build tests/$t first (make check builds it)" >&2; return 1; }
		cp "$TMQ_BIN/../tests/$t" "$SHARED/bin/"
	done
	chmod 755 "$SHARED"/bin/*
	install -d -o root -g "$GRP" -m 2770 "$SHARED/root"
}

# as USER COMMAND: run COMMAND (a shell line) as USER, umask 022, with the
# shared root as TMQ_ROOT.
as() {
	local u=$1
	shift
	runuser -u "$u" -- env PATH="$SHARED/bin:/usr/bin:/bin" TMQ_ROOT="$SHARED/root" \
	    ASAN_OPTIONS="${ASAN_OPTIONS-}" UBSAN_OPTIONS="${UBSAN_OPTIONS-}" \
	    sh -c "umask 022; cd /; $*"
}

# ------------------------------------------------------------ tmq-dump

@test "tmq-dump ROOT/TOPIC, ROOT/TOPIC/, ROOT/TOPIC/. and ROOT/TOPIC/FILE refuse a topic directory a co-user replaced by a link into another root, as tmq-dump TOPIC does: nothing read or written there" {
	two_users
	as "$U1" 'tmq-topic create ev && tmq-put ev mine'
	# The co-user's own root, which the victim can write to too, with a
	# topic of the same name big enough for an index.
	install -d -o "$U2" -g "$GRP" -m 2770 "$SHARED/other"
	as "$U2" "export TMQ_ROOT=$SHARED/other && tmq-topic create ev &&
	    seq 1 3000 | sed 's/\$/ theirs................................/' | tmq-put ev"
	as "$U2" "cd $SHARED/root && mv ev ev.old && ln -s $SHARED/other/ev ev"
	local f before
	f=$(cd "$SHARED/other/ev" && echo 0-*.tmf)
	before=$(cd "$SHARED/other" && find . -printf '%p %s %T@\n' | sort)
	for op in "$SHARED/root/ev" "$SHARED/root/ev/" "$SHARED/root/ev/." \
	    "$SHARED/root//ev//" "$SHARED/root/ev/$f"; do
		run --separate-stderr as "$U1" "tmq-dump --verify '$op'"
		assert_failure 1
		assert_output '0 files, 0 lines, 0 corrupt'
		assert_equal "$stderr" 'tmq-dump: ev: the topic directory is a symbolic link (not followed)'
		run --separate-stderr as "$U1" "tmq-dump '$op'"
		assert_failure 1
		assert_output ''
		assert_equal "$stderr" 'tmq-dump: ev: the topic directory is a symbolic link (not followed)'
	done
	# From within the root, as for the operand TOPIC.
	run --separate-stderr as "$U1" "cd $SHARED/root && tmq-dump -d . ev && tmq-dump ev/"
	assert_failure 1
	assert_equal "$stderr" 'tmq-dump: ev: the topic directory is a symbolic link (not followed)'
	run --separate-stderr as "$U1" "cd $SHARED/root && tmq-dump ./ev"
	assert_failure 1
	assert_equal "$stderr" 'tmq-dump: ev: the topic directory is a symbolic link (not followed)'
	[ "$(cd "$SHARED/other" && find . -printf '%p %s %T@\n' | sort)" = "$before" ]
	# The other root named as itself is read, and the victim's own
	# topic through its own name.
	run --separate-stderr as "$U1" "tmq-dump --verify $SHARED/other/ev"
	assert_success
	assert_output '1 files, 3000 lines, 0 corrupt'
	as "$U2" "cd $SHARED/root && rm ev && mv ev.old ev"
	run --separate-stderr as "$U1" "cd $SHARED/root/ev && tmq-dump -J ./0-*.tmf && tmq-dump -J $SHARED/root/ev/."
	assert_success
	assert_line --index 0 --partial '"payload":"mine"'
	assert_line --index 1 --partial '"payload":"mine"'
}

# ------------------------------------------------------ group snapshots

# A group G of U1's on topic ev (2 partitions; partition 0: a, b in
# 0-20260101_0.tmf, c in 0-20260102_2.tmf), which resumes partition 0 at
# 1 (a read), with U1's snapshot of it.
snap_setup() {
	two_users
	as "$U1" 'tmq-topic create ev -p 2'
	local d=$SHARED/root/ev
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225600 a
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225601 b
	tmq_write_line "$d" 0-20260102_2.tmf u16 1 1767312000 c
	chown "$U1:$GRP" "$d"/*.tmf
	chmod 660 "$d"/*.tmf
	as "$U1" 'tmq-get -g G -P 0 -n 1 ev >/dev/null && tmq-commit G 0 0 &&
	    TMQ_SNAPSHOT_EVERY=1 tmq-group describe G >/dev/null'
	GD=$SHARED/root/--group--G/.tmq
}

# What the co-user does to every snapshot in the group's .tmq, whoever's:
# partition 0's committed offset made 3 (the last 16 bytes before the
# checksum are partitions 0 and 1), sealed again, put in its place.
forge_snapshots() {
	as "$U2" "cd $GD && for f in snapshot*; do cp \$f f.tmp &&
	    n=\$(stat -c %s f.tmp) &&
	    printf '\\003\\000\\000\\000\\000\\000\\000\\000' | dd of=f.tmp bs=1 seek=\$((n - 24)) conv=notrunc 2>/dev/null &&
	    gsnap-seal f.tmp && mv -f f.tmp \$f; done"
}

@test "a snapshot a co-user sealed again with plausible false committed offsets is not believed: describe, a member and prune go by the log, say it once and replace it" {
	local want said u1
	snap_setup
	u1=$(id -u "$U1")
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_equal "$stderr" ''
	want=$output
	[[ $want == *$'\n''0                      1              3            2  -'* ]]
	forge_snapshots
	said="tmq-group: group G: --group--G/.tmq/snapshot.$u1 refused (not written by this user): the log is read in full"
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_output "$want"
	assert_equal "$stderr" "$said"
	# Replaced by the victim's own, which the next reader takes silently.
	[ "$(stat -c %U "$GD/snapshot.$u1")" = "$U1" ]
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_output "$want"
	assert_equal "$stderr" ''
	# Which the co-user cannot write in place.
	run as "$U2" "printf x >>$GD/snapshot.$u1"
	assert_failure
	# A member resumes at the log's commit, not at the forged one.
	forge_snapshots
	run --separate-stderr as "$U1" 'tmq-get -g G -P 0 -n 1 -F "%o %s\n" ev'
	assert_success
	assert_output '1 b'
	assert_equal "$stderr" "tmq-get: group G: --group--G/.tmq/snapshot.$u1 refused (not written by this user): the log is read in full"
	# Prune keeps the file the group has not read all of.
	forge_snapshots
	run --separate-stderr as "$U1" 'tmq-topic prune ev --before 2026-01-02 --keep-unread --dry-run'
	assert_success
	assert_output ''
	assert_equal "$stderr" "tmq-topic: group G: --group--G/.tmq/snapshot.$u1 refused (not written by this user): the log is read in full
tmq-topic: ev: would keep 0-20260101_0.tmf: unread by group G (from offset 1)"
	# A snapshot of the victim's own that others may write is refused too.
	as "$U1" "chmod g+w $GD/snapshot.$u1"
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_output "$want"
	assert_equal "$stderr" "tmq-group: group G: --group--G/.tmq/snapshot.$u1 refused (writable by other users): the log is read in full"
	# Each user keeps their own: the co-user's reads make one of theirs,
	# and the victim's stays.
	run --separate-stderr as "$U2" 'TMQ_SNAPSHOT_EVERY=1 tmq-group describe G'
	assert_success
	assert_output "$want"
	[ "$(stat -c %U "$GD/snapshot.$(id -u "$U2")")" = "$U2" ]
	run --separate-stderr as "$U1" 'tmq-group describe G'
	assert_success
	assert_equal "$stderr" ''
}

# ------------------------------------------------------ partition indexes

@test "the victim's own index after a co-user rewrote the partition file in place (two lines merged into one of the same length, between records): refused, said once, every answer a full read's" {
	two_users
	as "$U1" "tmq-topic create ev &&
	    seq 1 20000 | sed 's/\$/ message......................................................................./' | tmq-put ev &&
	    tmq-topic info ev >/dev/null && tmq-get -o 15000 -n 1 ev >/dev/null"
	local f idx u1 recs at edit want_get want_info want_last
	u1=$(id -u "$U1")
	f=$(cd "$SHARED/root/ev" && echo 0-*.tmf)
	idx=$SHARED/root/ev/.tmq/${f%.tmf}.$u1.idx
	[ -f "$idx" ]
	recs=$(pidx-forge "$idx" 2>/dev/null || "$SHARED/bin/pidx-forge" "$idx")
	[ "$(wc -l <<<"$recs")" -ge 4 ]
	at=$(awk '$1 == 1 { print $3 + 1000 }' <<<"$recs")
	# The co-user's edit, in place: the newline 1000 bytes or so past
	# record 1 becomes a byte of the line, so that line and the next are
	# one, the file's size and every byte around the records as they were.
	edit="python3 -c '
import sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, \"r+b\") as f:
    f.seek(at)
    b = f.read(4096)
    f.seek(at + b.index(b\"\\n\"))
    f.write(b\"x\")
'"
	run as "$U2" "$edit $SHARED/root/ev/$f $at"
	assert_success
	want_get=$(as "$U1" 'TMQ_INDEX=off tmq-get -o 15000 -n 1 -F "%o %s\n" ev' 2>/dev/null)
	want_info=$(as "$U1" 'TMQ_INDEX=off tmq-topic info ev' 2>/dev/null)
	want_last=$(as "$U1" 'TMQ_INDEX=off tmq-get -o -1 -F "%o %s\n" ev' 2>/dev/null)
	[ "$want_get" = '15000 15002 message.......................................................................' ]
	run --separate-stderr as "$U1" 'tmq-get -o 15000 -n 1 -F "%o %s\n" ev'
	assert_success
	assert_output "$want_get"
	assert_equal "$stderr" "tmq-get: ev: .tmq/${f%.tmf}.$u1.idx refused (the file was written to in place since it was indexed): the file is read without it"
	# Made again by that reader, from what it counted: the next ones
	# use it, silently, and answer as a full read.
	run --separate-stderr as "$U1" 'tmq-topic info ev'
	assert_success
	assert_output "$want_info"
	assert_equal "$stderr" ''
	run --separate-stderr as "$U1" 'tmq-get -o -1 -F "%o %s\n" ev'
	assert_success
	assert_output "$want_last"
	assert_equal "$stderr" ''
	run --separate-stderr as "$U1" 'tmq-get -o 15000 -n 1 -F "%o %s\n" ev'
	assert_output "$want_get"
	assert_equal "$stderr" ''
	# Appends since change nothing: the index goes on being used.
	as "$U2" 'seq 1 3 | tmq-put ev'
	run --separate-stderr as "$U1" 'tmq-get -o -1 -F "%o %s\n" ev'
	assert_success
	assert_output '20001 3'
	assert_equal "$stderr" ''
	# (the merged line is the one corrupt; the index is right)
	run --separate-stderr as "$U1" 'tmq-dump --verify ev'
	assert_failure 1
	assert_output '1 files, 20002 lines, 1 corrupt'
	assert_equal "$(wc -l <<<"$stderr")" 1
	# Merged again, further on: tmq-dump --verify, which reads every
	# line, says which record is now wrong, and makes the index again.
	run as "$U2" "$edit $SHARED/root/ev/$f $(awk '$1 == 3 { print $3 + 1000 }' <<<"$recs")"
	assert_success
	run --separate-stderr as "$U1" 'tmq-dump --verify ev'
	assert_failure 1
	assert_output '1 files, 20001 lines, 2 corrupt, 1 index, 1 wrong'
	assert_line --index 0 '1 files, 20001 lines, 2 corrupt, 1 index, 1 wrong'
	[[ $stderr == *"tmq-dump: ev/.tmq/${f%.tmf}.$u1.idx: wrong index: record 4 says line "*" (made again)"* ]]
	run --separate-stderr as "$U1" 'tmq-get -o -1 -F "%o %s\n" ev'
	assert_success
	assert_output '20000 3'
	assert_equal "$stderr" ''
}
