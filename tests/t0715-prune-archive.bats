#!/usr/bin/env bats
# t0715-prune-archive: tmq-topic prune --archive never loses, damages,
# doubles or overwrites what it moves (tmq-topic(1), --archive): killed at
# random moments while copying to another file system, a rerun finishes
# the job; a full archive says so; an archive that already has a file of
# the name with other messages, offsets of the partition already, or
# another definition is refused with nothing moved.
#
# Every test has a fresh root; mounts (as root only) and background
# processes are undone in teardown, whatever happened.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

# (test_helper: track, mount_tmpfs, other_fs)
teardown() {
	end_bg KILL
	end_mounts
}

# lay_out TOPIC PARTS LINES: topic TOPIC (u16) of PARTS partitions, each
# with files of 2026-01-01, -02 and -03 of LINES messages each and a
# newest one, of 2026-01-04, of 3; every payload TOPIC-P-OFFSET.  A copy of
# the old files goes to orig/.
lay_out() {
	tmq-topic create -p "$2" "$1"
	rm -f "$TMQ_ROOT/$1"/*.tmf
	python3 - "$TMQ_ROOT/$1" "$1" "$2" "$3" <<'EOF'
import base64, struct, sys, zlib
d, name, parts, lines = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def line(key, ts, text):
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = z.compress(text.encode()) + z.flush()
    return (base64.b85encode(key.to_bytes(2, "big"))
            + base64.b85encode(struct.pack(">d", ts))
            + base64.b85encode(body) + b"\n")
for p in range(parts):
    off = 0
    for day, n in ((1, lines), (2, lines), (3, lines), (4, 3)):
        ts = 1767225600 + (day - 1) * 86400
        with open("%s/%d-202601%02d_%d.tmf" % (d, p, day, off), "wb") as f:
            f.write(b"".join(line(p, ts + i / 1000, "%s-%d-%d" % (name, p, off + i))
                             for i in range(n)))
        off += n
EOF
	mkdir -p "$BATS_TEST_TMPDIR/orig"
	cp -p "$TMQ_ROOT/$1"/*-2026010[123]_*.tmf "$BATS_TEST_TMPDIR/orig/"
}

# each_whole TOPIC DIR: every file of orig/ is, whole, in the topic or in
# the archive DIR (or both); the archive's topic holds nothing else but
# .tmq/ (its lock, and a killed run's temporary copy); the topic holds
# nothing of orig/ that is not whole.  Says what is wrong.
each_whole() {
	local o f n a=$2/$1 ok=0
	for o in "$BATS_TEST_TMPDIR"/orig/*; do
		n=${o##*/}
		if [ -e "$TMQ_ROOT/$1/$n" ]; then
			cmp -s "$o" "$TMQ_ROOT/$1/$n" || { echo "$n in the topic is not whole"; ok=1; }
		elif [ ! -e "$a/$n" ]; then
			echo "$n is neither in the topic nor in the archive"; ok=1
		fi
		if [ -e "$a/$n" ]; then
			cmp -s "$o" "$a/$n" || { echo "$n in the archive is not whole ($(wc -c <"$a/$n") of $(wc -c <"$o") bytes)"; ok=1; }
		fi
	done
	if [ -d "$a" ]; then
		for f in "$a"/* "$a"/.[!.]*; do
			[ -e "$f" ] || continue
			n=${f##*/}
			[ "$n" = .tmq ] || [ -e "$BATS_TEST_TMPDIR/orig/$n" ] ||
			    { echo "the archive holds $n"; ok=1; }
		done
	fi
	return $ok
}

# pruned_whole TOPIC DIR: the prune is done: the archive holds exactly the
# files of orig/, each whole, the topic only its newest files, the
# archive's .tmq/ its lock (and its readers' indexes), no copy left.
pruned_whole() {
	local a=$2/$1
	each_whole "$1" "$2" || return 1
	[ -z "$(cd "$TMQ_ROOT/$1" && ls -A | grep -v -- '-20260104_')" ] ||
	    { echo "the topic still holds $(cd "$TMQ_ROOT/$1" && ls -A | grep -v -- '-20260104_' | tr '\n' ' ')"; return 1; }
	# (its lock, and the indexes its readers made: no copy left)
	[ -e "$a/.tmq/archive.lock" ] && [ ! -e "$a/.tmq/archive.tmp" ] &&
	    [ -z "$(ls -A "$a/.tmq" | grep -Ev '^(archive\.lock|.*\.[0-9]+\.idx)$')" ] ||
	    { echo "the archive's .tmq/ holds $(ls -A "$a/.tmq" | tr '\n' ' ')"; return 1; }
	[ "$(ls "$a" | wc -l)" = "$(ls "$BATS_TEST_TMPDIR/orig" | wc -l)" ] ||
	    { echo "the archive holds $(ls "$a" | wc -l) files"; return 1; }
}

@test "prune --archive to another file system, SIGKILLed at random moments, 20 times: each file whole in the topic or the archive, and a rerun finishes the job" {
	local arch=$BATS_TEST_TMPDIR/arch t0 t1 us i d pid said mid=0
	other_fs "$arch"
	lay_out ev 4 40000
	# Kills are spread over the prune's own run, as measured here.
	cp -a "$TMQ_ROOT/ev" "$BATS_TEST_TMPDIR/saved"
	t0=${EPOCHREALTIME/./}
	tmq-topic prune ev --before 2026-01-04 --archive "$arch"
	t1=${EPOCHREALTIME/./}
	pruned_whole ev "$arch"
	us=$(((t1 - t0) * 12 / 10))
	for i in $(seq 20); do
		rm -rf "$TMQ_ROOT/ev" "$arch"/* "$arch"/.[!.]*
		cp -a "$BATS_TEST_TMPDIR/saved" "$TMQ_ROOT/ev"
		# Half the rounds start with the archive there already.
		[ $((i % 2)) = 0 ] || tmq-topic prune ev --before 2026-01-01 --archive "$arch"
		d=$(((RANDOM * 32768 + RANDOM) % (us + 1)))
		tmq-topic prune ev --before 2026-01-04 --archive "$arch" >/dev/null 2>&1 3>&- &
		pid=$!
		track "$pid"
		if [ $((i % 4)) -lt 2 ]; then
			sleep "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))"
			d="$d us"
		else
			# As soon as a copy is under way (or the prune is done).
			d=copying
			until [ -e "$arch/ev/.tmq/archive.tmp" ] || gone "$pid"; do :; done
		fi
		kill -9 "$pid" 2>/dev/null || :
		wait "$pid" 2>/dev/null || :
		[ ! -e "$arch/ev/.tmq/archive.tmp" ] || mid=$((mid + 1))
		said=$(each_whole ev "$arch") || fail "round $i, killed after $d: $said"
		# Readers of the archive and of the topic see whole messages.
		if [ -e "$arch/ev.twc" ]; then
			run --separate-stderr tmq-dump -d "$arch" --verify
			assert_success
			assert_regex "$output" ' 0 corrupt$'
		fi
		run --separate-stderr tmq-topic prune ev --before 2026-01-04 --archive "$arch"
		assert_success
		assert_equal "$stderr" ''
		said=$(pruned_whole ev "$arch") || fail "round $i, killed after $d, then rerun: $said"
	done
	echo "# $mid of 20 kills mid-copy" >&3
	# The archive and the topic read every message once, in order.
	{ tmq-get -d "$arch" -F '%p %o %s\n' ev; tmq-get -F '%p %o %s\n' ev; } | sort -k1,1n -k2,2n >got
	awk '{ print $1, $2, "ev-" $1 "-" $2 }' got >want
	cmp got want
	[ "$(wc -l <got)" = $((4 * 120003)) ]
}

@test "prune --archive: a copy cut short by an earlier tmq (written in place) is completed, not refused" {
	local arch=$BATS_TEST_TMPDIR/arch
	other_fs "$arch"
	lay_out ev 2 2000
	tmq-topic prune ev --before 2026-01-01 --archive "$arch"
	# What tmq before this change left when killed mid-copy: the start of
	# the file under its own name; every later prune then failed with
	# "cannot archive 0-20260101_0.tmf: File exists".
	head -c 5000 "$TMQ_ROOT/ev/0-20260101_0.tmf" >"$arch/ev/0-20260101_0.tmf"
	run --separate-stderr tmq-topic prune ev --before 2026-01-04 --archive "$arch"
	assert_success
	assert_equal "$stderr" ''
	run pruned_whole ev "$arch"
	assert_success
}

@test "prune --archive to a full file system: 'No space left on device', nothing moved or left; with room, a rerun moves it all" {
	local arch=$BATS_TEST_TMPDIR/arch
	other_fs "$arch" 512k
	lay_out ev 2 20000
	cp -a "$TMQ_ROOT/ev" saved
	# (It was "Invalid cross-device link": the EXDEV of the rename before
	# the copy, left in errno by a short write.)
	run --separate-stderr tmq-topic prune ev --before 2026-01-04 --archive "$arch"
	assert_fails_with "tmq-topic: ev: cannot archive 0-20260101_0.tmf: No space left on device"
	diff -r saved "$TMQ_ROOT/ev"
	run ls -A "$arch/ev" "$arch/ev/.tmq"
	assert_output "$arch/ev:
.tmq

$arch/ev/.tmq:
archive.lock"
	mount -o remount,size=64m "$arch"
	run --separate-stderr tmq-topic prune ev --before 2026-01-04 --archive "$arch"
	assert_success
	run pruned_whole ev "$arch"
	assert_success
}

# Two roots, a and b, each with a topic ev laid out alike (u16, 2
# partitions) but for their payloads; their old files have the same names.
two_roots() {
	export TMQ_ROOT=$BATS_TEST_TMPDIR/a
	lay_out ev 2 3
	mv "$BATS_TEST_TMPDIR/orig" "$BATS_TEST_TMPDIR/orig-a"
	export TMQ_ROOT=$BATS_TEST_TMPDIR/b
	lay_out ev 2 3
	python3 - "$TMQ_ROOT/ev" <<'EOF'
import glob, sys
# Other messages under the same names: the lines of b's files reversed.
for f in glob.glob(sys.argv[1] + "/*.tmf"):
    ls = open(f, "rb").readlines()
    open(f, "wb").write(b"".join(reversed(ls)))
EOF
	rm -rf "$BATS_TEST_TMPDIR/orig"
}

@test "prune --archive never replaces a file of the archive: another root's file of the name is refused, nothing moved" {
	local arch=$BATS_TEST_TMPDIR/arch
	two_roots
	TMQ_ROOT=$BATS_TEST_TMPDIR/a tmq-topic prune ev --before 2026-01-02 --archive "$arch"
	cp -a "$arch" arch-before
	cp -a "$TMQ_ROOT/ev" b-before
	# Same file system: a rename used to replace the archive's file and
	# exit 0, a's messages lost.
	for dry in '' --dry-run; do
		run --separate-stderr tmq-topic prune ev --before 2026-01-04 --archive "$arch" $dry
		assert_fails_with "tmq-topic: ev: not pruned: the archive $arch has a 0-20260101_0.tmf of other messages (another root's, or an earlier topic of the name's); nothing moved"
		assert_output ''
		diff -r arch-before "$arch"
		diff -r b-before "$TMQ_ROOT/ev"
	done
	# The same file, whole (a rerun after a kill between the copy and the
	# removal), is taken as archived: it goes from the topic.
	export TMQ_ROOT=$BATS_TEST_TMPDIR/a
	cp -p "$arch/ev/0-20260101_0.tmf" "$TMQ_ROOT/ev/"
	run --separate-stderr tmq-topic prune ev --before 2026-01-03 --archive "$arch"
	assert_success
	run ls "$arch/ev"
	assert_output "0-20260101_0.tmf
0-20260102_3.tmf
1-20260101_0.tmf
1-20260102_3.tmf"
	run ls "$TMQ_ROOT/ev"
	assert_output "0-20260103_6.tmf
0-20260104_9.tmf
1-20260103_6.tmf
1-20260104_9.tmf"
	run sh -c "tmq-get -d '$arch' -F '%p %o %s\n' ev | sort -k1,1n -k2,2n"
	assert_output "0 0 ev-0-0
0 1 ev-0-1
0 2 ev-0-2
0 3 ev-0-3
0 4 ev-0-4
0 5 ev-0-5
1 0 ev-1-0
1 1 ev-1-1
1 2 ev-1-2
1 3 ev-1-3
1 4 ev-1-4
1 5 ev-1-5"
}

@test "prune --archive never puts offsets the archive has already into it: a topic of the name made again is refused, nothing moved" {
	local arch=$BATS_TEST_TMPDIR/arch
	lay_out ev 2 3
	tmq-topic prune ev --before 2026-01-03 --archive "$arch"
	cp -a "$arch" arch-before
	# Made again: its files start at offset 0 again, under other names.
	tmq-topic delete -y ev
	tmq-topic create -p 2 ev
	rm -f "$TMQ_ROOT/ev"/*.tmf
	tmq_write_line "$TMQ_ROOT/ev" 0-20260110_0.tmf u16 0 1768003200 new0
	tmq_write_line "$TMQ_ROOT/ev" 0-20260111_1.tmf u16 0 1768089600 new1
	tmq_write_line "$TMQ_ROOT/ev" 1-20260110_0.tmf u16 1 1768003200 new2
	cp -a "$TMQ_ROOT/ev" before
	run --separate-stderr tmq-topic prune ev --before 2026-01-11 --archive "$arch"
	assert_fails_with "tmq-topic: ev: not pruned: 0-20260110_0.tmf starts at offset 0, but the archive $arch holds partition 0 to offset 6 (another root's, or an earlier topic of the name's); nothing moved"
	diff -r arch-before "$arch"
	diff -r before "$TMQ_ROOT/ev"
	# A gap in the offsets (files pruned without --archive) is fine: the
	# archive takes the files after it.
	lay_out gap 1 3
	tmq-topic prune gap --before 2026-01-02 --archive "$arch"
	tmq-topic prune gap --before 2026-01-03
	run --separate-stderr tmq-topic prune gap --before 2026-01-04 --archive "$arch"
	assert_success
	run ls "$arch/gap"
	assert_output "0-20260101_0.tmf
0-20260103_6.tmf"
}

@test "prune --archive into an archive of another definition (partitions, key type, types) is refused, nothing moved" {
	local arch=$BATS_TEST_TMPDIR/arch def want
	lay_out ev 2 3
	cp -a "$TMQ_ROOT/ev" before
	for def in '-p 3' '-p 2 -k u32' '-p 2 -t Ev' '-p 2 -k char4'; do
		rm -rf "$arch"
		tmq-topic -d "$arch" create $def ev
		cp -a "$arch" arch-before
		case $def in
		'-p 3') want="has 3 partitions of it, the topic 2" ;;
		'-p 2 -k u32') want="keys it by u32, the topic by u16" ;;
		'-p 2 -t Ev') want="has 'Ev' as type 0, the topic none" ;;
		'-p 2 -k char4') want="keys it by char4, the topic by u16" ;;
		esac
		for dry in '' --dry-run; do
			run --separate-stderr tmq-topic prune ev --before 2026-01-04 --archive "$arch" $dry
			assert_fails_with "tmq-topic: ev: not pruned: the archive $arch $want; nothing moved"
			diff -r arch-before "$arch"
			diff -r before "$TMQ_ROOT/ev"
		done
		rm -rf arch-before
	done
}

@test "prune --archive: a directory in the archive without its definition, when empty, is an earlier archive's making and is made whole; else it is refused" {
	local arch=$BATS_TEST_TMPDIR/arch
	lay_out ev 2 3
	mkdir -p "$arch/ev"
	run --separate-stderr tmq-topic prune ev --before 2026-01-02 --archive "$arch"
	assert_success
	run sh -c "tmq-get -d '$arch' -F '%p %o %s\n' ev | sort -k1,1n -k2,2n"
	assert_output "0 0 ev-0-0
0 1 ev-0-1
0 2 ev-0-2
1 0 ev-1-0
1 1 ev-1-1
1 2 ev-1-2"
	rm "$arch/ev.twc"
	cp -a "$TMQ_ROOT/ev" before
	run --separate-stderr tmq-topic prune ev --before 2026-01-03 --archive "$arch"
	assert_fails_with "tmq-topic: ev: not pruned: $arch/ev/ is there without $arch/ev.twc, so nothing says how its files read; nothing moved"
	diff -r before "$TMQ_ROOT/ev"
}
