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
	: >"$BATS_TEST_TMPDIR/.undo"
}

# Users, groups and directories a test made, undone whatever happened,
# the last made first (as in t0720-shared-root).
teardown() {
	local what name
	tac "$BATS_TEST_TMPDIR/.undo" >"$BATS_TEST_TMPDIR/.undo.rev"
	while read -r what name; do
		case $what in
		user) userdel "$name" 2>/dev/null || : ;;
		group) groupdel "$name" 2>/dev/null || : ;;
		dir) rm -rf "$name" ;;
		esac
	done <"$BATS_TEST_TMPDIR/.undo.rev"
}

undo() {
	echo "$1 $2" >>"$BATS_TEST_TMPDIR/.undo"
}

# Two Unix users in one fresh group (U1, the victim, and U2, the co-user;
# GRP), a directory both reach (SHARED) with the tools in SHARED/bin, and
# a root there of U1's making, setgid to GRP (SHARED/root).
two_users() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to create two users (useradd)"
	command -v useradd >/dev/null && command -v runuser >/dev/null ||
	    skip "useradd or runuser is missing"
	GRP=tmqg$$
	U1=tmqa$$
	U2=tmqb$$
	groupadd "$GRP"
	undo group "$GRP"
	useradd -M -N -g "$GRP" -s /bin/sh "$U1"
	undo user "$U1"
	useradd -M -N -g "$GRP" -s /bin/sh "$U2"
	undo user "$U2"
	SHARED=$(mktemp -d /tmp/tmq-shared.XXXXXX)
	undo dir "$SHARED"
	chmod 755 "$SHARED"
	mkdir -m 755 "$SHARED/bin"
	cp "$TMQ_BIN"/tmq-topic "$TMQ_BIN"/tmq-put "$TMQ_BIN"/tmq-get \
	    "$TMQ_BIN"/tmq-group "$TMQ_BIN"/tmq-commit "$TMQ_BIN"/tmq-dump \
	    "$SHARED/bin/"
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
