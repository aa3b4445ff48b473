#!/usr/bin/env bats
# t0250-mirror: exactly-once, resumable copies.  tmq-topic info --ends
# prints a topic's ends as PARTITION=OFFSET pairs; tmq-get --from takes
# such pairs, each named partition starting at its offset (through the
# seek --from OFFSET uses), the others from the start.

load test_helper

# (test_helper: mount_tmpfs)
teardown() {
	end_mounts
}

# A topic ev (u32, 3 partitions): 30 messages, keys 1..30.
make_ev() {
	tmq-topic create "${1:-ev}" -k u32 -p 3
	seq 1 30 | awk '{ print $1 ":m" $1 }' | tmq-put -K: "${1:-ev}"
}

@test "info --ends: every partition's end as P=OFFSET pairs, for --from" {
	make_ev
	tmq-topic create empty -p 4
	run --separate-stderr tmq-topic info --ends ev
	assert_success
	assert_output "0=7,1=14,2=9"
	run --separate-stderr tmq-topic info --ends empty
	assert_success
	assert_output "0=0,1=0,2=0,3=0"
	run --separate-stderr tmq-topic info --ends --json ev
	assert_usage_error tmq-topic "--ends and --json exclude each other"
	run --separate-stderr tmq-topic info --ends nosuch
	assert_fails_with "tmq-topic: nosuch: no such topic"
}

@test "info --ends: a partition that cannot be read prints nothing and fails" {
	make_ev
	local f
	f=$(ls "$TMQ_ROOT"/ev/1-*.tmf)
	rm "$f"
	mkfifo "$f"
	run --separate-stderr timeout 20 tmq-topic info --ends ev
	assert_failure 1
	assert_output ""
	[[ $stderr == "tmq-topic: ev: partition 1: "*"not a regular file (a FIFO)" ]]
}

@test "--from P=OFFSET,...: each named partition from its offset, the others from the start" {
	make_ev
	run --separate-stderr tmq-get -F '%p %o %s\n' --from 0=5,2=8 ev
	assert_success
	run sort <<<"$output"
	assert_output "$({ tmq-get -F '%p %o %s\n' -P 0 --from 5 ev
	    tmq-get -F '%p %o %s\n' -P 1 ev
	    tmq-get -F '%p %o %s\n' -P 2 --from 8 ev; } | sort)"
	[ "${#lines[@]}" -eq 17 ]
	# Its own ends: nothing; what is put after them: only that.
	local ends
	ends=$(tmq-topic info --ends ev)
	run --separate-stderr tmq-get --from "$ends" ev
	assert_success
	assert_output ""
	tmq-put -k 7 ev new
	local p
	p=$(tmq-topic partition ev 7)
	run --separate-stderr tmq-get -F '%p %o %s\n' --from "$ends" ev
	assert_output "$p $(tr , '\n' <<<"$ends" | sed -n "s/^$p=//p") new"
	# An offset past the end has nothing yet; with -f it is waited for.
	run --separate-stderr tmq-get --from 0=100,1=100,2=100 ev
	assert_success
	assert_output ""
	# With -P, the pairs name read partitions only.
	run --separate-stderr tmq-get -P 0 -F '%o\n' --from 0=6 ev
	assert_output 6
}

@test "--from P=OFFSET: an offset pruned away says so and starts at the first left, as --from OFFSET does" {
	local d=$TMQ_ROOT/old
	tmq-topic create old -p 2
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225600 a0
	tmq_write_line "$d" 0-20260101_0.tmf u16 1 1767225601 a1
	tmq_write_line "$d" 0-20260102_2.tmf u16 1 1767312000 b2
	tmq_write_line "$d" 1-20260101_0.tmf u16 2 1767225600 p1
	tmq-topic prune old --before 2026-01-02 2>/dev/null
	run --separate-stderr tmq-get -F '%p %o %s\n' --from 0=1 old
	assert_success
	assert_output "0 2 b2
1 0 p1"
	assert_stderr "tmq-get: old: partition 0: offset 1 is gone, starting at 2"
}

@test "--from P=OFFSET with -f follows each partition from its offset" {
	make_ev
	tmq-get -f -F '%p %o %s\n' --from 0=7,1=14,2=9 ev >"$BATS_TEST_TMPDIR/f.out" 3>&- &
	local pid=$!
	wait_for bash -c 'ls -l /proc/$1/fd | grep -q inotify' _ "$pid"
	tmq-put -k 1 ev late
	wait_for grep -q late "$BATS_TEST_TMPDIR/f.out"
	kill "$pid"
	wait "$pid" || :
	local p
	p=$(tmq-topic partition ev 1)
	run cat "$BATS_TEST_TMPDIR/f.out"
	assert_output "$p $(tr , '\n' <<<"0=7,1=14,2=9" | sed -n "s/^$p=//p") late"
}

@test "--from P=OFFSET: malformed lists, repeats, partitions the topic or -P lacks, and -g are refused" {
	make_ev
	local bad want
	while IFS='|' read -r bad want; do
		run --separate-stderr tmq-get --from "$bad" ev
		assert_usage_error tmq-get "--from: $want"
	done <<'EOF'
0=1,0=2|'0=1,0=2': partition 0 named twice
0=1,|'0=1,': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
0=1,,1=2|'0=1,,1=2': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
=5|'=5': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
0=|'0=': want PARTITION=OFFSET pairs separated by commas (0=1200,1=1180)
x=1|'x=1': no partition x (at most 65535)
65536=1|'65536=1': no partition 65536 (at most 65535)
0=-1|'0=-1': partition 0: '-1' is not an offset
0=1h|'0=1h': partition 0: '1h' is not an offset
0=1=2|'0=1=2': partition 0: '1=2' is not an offset
0=18446744073709551616|'0=18446744073709551616': partition 0: offset too large
EOF
	run --separate-stderr tmq-get --from 3=1 ev
	assert_fails_with "tmq-get: ev: --from: partition 3 does not exist (topic has 3)"
	run --separate-stderr tmq-get -P 1 --from 0=1 ev
	assert_usage_error tmq-get "--from names partition 0, which -P does not read"
	run --separate-stderr tmq-get -g G --from 0=1 ev
	assert_usage_error tmq-get "with -g, --from is start or now (where a new group begins)"
	# The last --from wins, as for every option that is not a list.
	run --separate-stderr tmq-get -F '%p %o\n' --from 0=1 --from now ev
	assert_success
	assert_output ""
	run --separate-stderr tmq-group reset G --to 0=1
	assert_usage_error tmq-group "--to: '0=1': bad position (want start, now, an offset, -N, or a time: ISO 8601, @SECONDS, s@MS, or a duration ago such as 90s, 15m, 1.5h, 1h30m, 7d, 1w or -1h)"
}

# --- tmq-put -J --keep-offsets ------------------------------------------

# The same topic ev in the root $1.
make_copy() {
	tmq-topic -d "$1" create "${2:-ev}" -k u32 -p 3
}

# dump ROOT: every message of ev in ROOT, with its partition, offset, key,
# time, type and payload.
same_as_source() {
	diff <(tmq-dump -J ev) <(tmq-dump -J -d "$1" ev)
}

@test "put -J --keep-offsets: a copy given twice, cut short and given again, or doubled, ends as its source" {
	cd "$BATS_TEST_TMPDIR"
	make_ev
	local dst=$BATS_TEST_TMPDIR/dst
	tmq-get -J ev >all.jsonl
	make_copy "$dst"
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev <all.jsonl
	assert_success
	assert_output ""
	assert_stderr ""
	same_as_source "$dst"
	# Given again: each record is the message stored at its offset.
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev <all.jsonl
	assert_success
	assert_stderr ""
	same_as_source "$dst"
	# Cut short (the first 17 records, every partition part way), then
	# the whole; and the whole backup twice in one input.
	local d2=$BATS_TEST_TMPDIR/d2 d3=$BATS_TEST_TMPDIR/d3
	make_copy "$d2"
	head -n 17 all.jsonl | tmq-put -d "$d2" -J --keep-offsets ev
	[ "$(tmq-topic -d "$d2" info --ends ev)" != "$(tmq-topic info --ends ev)" ]
	tmq-put -d "$d2" -J --keep-offsets ev <all.jsonl
	same_as_source "$d2"
	make_copy "$d3"
	cat all.jsonl all.jsonl | tmq-put -d "$d3" -J --keep-offsets ev
	same_as_source "$d3"
	# Without --keep-offsets the same rerun duplicates everything: what
	# the option is for.
	tmq-put -d "$d3" -J --keep-time ev <all.jsonl
	[ "$(tmq-topic -d "$d3" info --ends ev)" = "0=14,1=28,2=18" ]
}

@test "put -J --keep-offsets: a record below the end that is not the stored message is an error naming both; its partition stops" {
	cd "$BATS_TEST_TMPDIR"
	make_ev
	local dst=$BATS_TEST_TMPDIR/dst
	tmq-get -J ev >all.jsonl
	make_copy "$dst"
	tmq-put -d "$dst" -J --keep-offsets ev <all.jsonl
	# Partition 1 offset 3 with another payload, then with another time.
	local rec n
	rec=$(grep -n '"partition":1,"offset":3,' all.jsonl)
	n=${rec%%:*}
	sed "${n}s/\"payload\":\"m\([0-9]*\)\"/\"payload\":\"X\1\"/" all.jsonl >payload.jsonl
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev <payload.jsonl
	assert_failure 1
	assert_output ""
	local held
	held=$(grep -c '"partition":1,' all.jsonl)
	held=$((held - 4))
	assert_equal "$stderr" "tmq-put: ev: record $n: partition 1 offset 3 holds another message: the payloads differ from byte 0 (2 bytes there, 2 in the record): nothing more is written to it
tmq-put: ev: partition 1: $held more records not written after offset 3"
	sed "${n}s/\"timestamp\":[0-9.]*/\"timestamp\":1000/" all.jsonl >time.jsonl
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev <time.jsonl
	assert_failure 1
	[[ $stderr == "tmq-put: ev: record $n: partition 1 offset 3 holds another message: timestamp "*" there, 1000.0 in the record: nothing more is written to it"* ]]
	same_as_source "$dst"
	# A stopped partition does not stop the others: a new record of
	# partition 0 after the bad one still goes in.
	local p0 ends0
	ends0=$(tmq-topic -d "$dst" info --ends ev | cut -d, -f1)
	{ cat payload.jsonl
	  printf '{"partition":0,"offset":%s,"key":%s,"timestamp":1000,"payload":"new"}\n' \
	      "${ends0#0=}" "$(for k in $(seq 1 60); do [ "$(tmq-topic partition ev $k)" = 0 ] && echo $k && break; done)"
	} | tmq-put -d "$dst" -J --keep-offsets ev 2>/dev/null && false
	p0=$(tmq-get -d "$dst" -P 0 -F '%s\n' --from -1 ev)
	assert_equal "$p0" new
}

@test "put -J --keep-offsets: a gap is refused and nothing after it is written to that partition" {
	cd "$BATS_TEST_TMPDIR"
	make_ev
	local dst=$BATS_TEST_TMPDIR/dst
	tmq-get -J ev >all.jsonl
	make_copy "$dst"
	# Offset 2 of partition 0 lost on the way.
	local n
	n=$(grep -n '"partition":0,"offset":3,' all.jsonl | cut -d: -f1)
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev < <(grep -v '"partition":0,"offset":2,' all.jsonl)
	assert_failure 1
	n=$((n - 1))	# (one line fewer before it)
	assert_equal "$stderr" "tmq-put: ev: record $n: partition 0 offset 3 would leave a gap after its end (2): nothing more is written to it
tmq-put: ev: partition 0: 3 more records not written after offset 3"
	assert_equal "$(tmq-topic -d "$dst" info --ends ev)" "0=2,1=14,2=9"
	# The gap filled, the rerun completes the copy.
	tmq-put -d "$dst" -J --keep-offsets ev <all.jsonl
	same_as_source "$dst"
}

@test "put -J --keep-offsets: a record of another partition than its key's, or without partition, offset or time, is refused" {
	cd "$BATS_TEST_TMPDIR"
	make_ev
	local dst=$BATS_TEST_TMPDIR/dst p
	make_copy "$dst"
	p=$(tmq-topic partition ev 1)
	local other=$(( (p + 1) % 3 ))
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev \
	    "{\"partition\":$other,\"offset\":0,\"key\":1,\"timestamp\":1000,\"payload\":\"a\"}" \
	    '{"offset":0,"key":1,"timestamp":1000,"payload":"a"}' \
	    "{\"partition\":$p,\"key\":1,\"timestamp\":1000,\"payload\":\"a\"}" \
	    "{\"partition\":$p,\"offset\":0,\"key\":1,\"payload\":\"a\"}" \
	    "{\"partition\":$p,\"offset\":-1,\"key\":1,\"timestamp\":1000,\"payload\":\"a\"}" \
	    "{\"partition\":\"$p\",\"offset\":0,\"key\":1,\"timestamp\":1000,\"payload\":\"a\"}" \
	    "{\"partition\":$p,\"offset\":0,\"key\":1,\"timestamp\":1000,\"payload\":\"ok\"}"
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: message 1: partition $other is not the one its key picks in ev ($p of 3)
tmq-put: ev: message 2: no partition (--keep-offsets)
tmq-put: ev: message 3: no offset (--keep-offsets)
tmq-put: ev: message 4: no timestamp (--keep-offsets)
tmq-put: ev: message 5: offset: not an offset
tmq-put: ev: message 6: partition: not a partition number"
	run tmq-get -d "$dst" -F '%p %o %s\n' ev
	assert_output "$p 0 ok"
	run --separate-stderr tmq-put --keep-offsets ev a
	assert_usage_error tmq-put "--keep-offsets needs -J"
}

# A mirror: tmq-get -J -f from the copy's ends, into tmq-put -J
# --keep-offsets, run in its own process group so that a kill takes it
# whole.
start_mirror() {
	setsid bash -c 'exec tmq-get -J -f --from "$(tmq-topic -d "$1" info --ends ev)" ev |
	    tmq-put -d "$1" -J --keep-offsets ev' _ "$1" 2>>mirror.err &
	echo $! >mirror.pid
}

# copied ROOT: how many messages ev has in ROOT.
copied() {
	tmq-topic -d "$1" info --ends ev | tr , '\n' | awk -F= '{ n += $2 } END { print n + 0 }'
}

@test "a mirror killed (KILL) at random moments and restarted ends exactly as its source, offsets included" {
	cd "$BATS_TEST_TMPDIR"
	tmq-topic create ev -k u32 -p 3
	local dst=$BATS_TEST_TMPDIR/dst i th
	make_copy "$dst"
	export -f copied
	# 6000 messages to start with, more put while the mirror runs.
	seq 1 6000 | awk '{ print ($1 % 97) ":m" $1 }' | tmq-put -K: ev
	( for i in $(seq 1 20); do
		seq 1 100 | awk -v b="$i" '{ print ($1 % 89) ":late" b "-" $1 }' | tmq-put -K: ev
	  done ) &
	local writer=$!
	# Five kills, each once the copy has reached a random count.
	for th in $(for i in 1 2 3 4 5; do echo $((RANDOM % 6000 + 1)); done | sort -n); do
		start_mirror "$dst"
		wait_for bash -c '[ "$(copied "$1")" -ge "$2" ]' _ "$dst" "$th"
		kill -KILL -- "-$(cat mirror.pid)"
		wait_for gone "$(cat mirror.pid)"
	done
	wait "$writer"
	# The last run, once (no -f): to the end.
	tmq-get -J --from "$(tmq-topic -d "$dst" info --ends ev)" ev |
	    tmq-put -d "$dst" -J --keep-offsets ev
	run cat mirror.err
	assert_output ""
	assert_equal "$(copied "$dst")" 8000
	same_as_source "$dst"
}

# --- a cut last line in the copy (issue 34.2) ------------------------------

# cut_last FILE N: FILE's last line cut N bytes short, as a kill in the
# middle of its write() leaves it.
cut_last() {
	truncate -s "$(( $(stat -c %s "$1") - $2 ))" "$1"
}

@test "put -J --keep-offsets: a cut last line that is the start of its record (the copy's own write, killed) is cut off, and the rerun ends as its source" {
	cd "$BATS_TEST_TMPDIR"
	make_ev
	local dst=$BATS_TEST_TMPDIR/dst f0 f1 old
	make_copy "$dst"
	tmq-get -J ev | tmq-put -d "$dst" -J --keep-offsets ev
	# Partition 0's file cut in its last line; partition 1's too, and
	# made an older day's, so that the rerun starts a new file after it.
	f0=$(ls "$dst"/ev/0-*.tmf)
	f1=$(ls "$dst"/ev/1-*.tmf)
	cut_last "$f0" 5
	cut_last "$f1" 1
	old=$dst/ev/1-20260101_0.tmf
	mv "$f1" "$old"
	assert_equal "$(tmq-topic -d "$dst" info --ends ev)" "0=6,1=13,2=9"
	run --separate-stderr bash -c 'tmq-get -J --from "$(tmq-topic -d "$1" info --ends ev)" ev |
	    tmq-put -d "$1" -J --keep-offsets ev' _ "$dst"
	assert_success
	assert_stderr ""
	same_as_source "$dst"
	run --separate-stderr tmq-dump --verify -d "$dst" ev
	assert_success
	assert_output "4 files, 30 lines, 0 corrupt"
	# The new day's file starts where the old one's last whole line
	# ended.
	run ls "$dst/ev"
	assert_line "1-$(date -u +%Y%m%d)_13.tmf"
}

@test "put -J --keep-offsets: a cut last line that is not the start of its record stops its partition, naming the file and how to cut it off; nothing is written after it" {
	cd "$BATS_TEST_TMPDIR"
	make_ev
	local dst=$BATS_TEST_TMPDIR/dst f size ends n
	make_copy "$dst"
	tmq-get -J ev | tmq-put -d "$dst" -J --keep-offsets ev
	f=$(ls "$dst"/ev/0-*.tmf)
	size=$(stat -c %s "$f")
	printf 'not a line' >>"$f"
	# Source messages after the copy's ends: two in partition 0, one in
	# partition 1.
	ends=$(tmq-topic -d "$dst" info --ends ev)
	[ "$(tmq-topic partition ev 10)" = 0 ] && [ "$(tmq-topic partition ev 1)" = 1 ]
	tmq-put -k 10 ev more0 again0
	tmq-put -k 1 ev more1
	tmq-get -J --from "$ends" ev >recs.jsonl
	n=$(grep -n '"payload":"more0"' recs.jsonl | cut -d: -f1)
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets ev <recs.jsonl
	assert_failure 1
	assert_equal "$stderr" "tmq-put: ev: record $n: partition 0: ${f##*/} ends in a cut line (10 bytes from byte $size) that is not the start of the record at its offset: nothing more is written to it; if nothing else writes there, cut it off (truncate -s $size ev/${f##*/}, in the root) and run again
tmq-put: ev: partition 0: 1 more record not written after offset 7"
	assert_equal "$(stat -c %s "$f")" "$((size + 10))"
	# The other partitions go on.
	assert_equal "$(tmq-topic -d "$dst" info --ends ev)" "0=7,1=15,2=9"
	# As it says.
	(cd "$dst" && truncate -s "$size" "ev/${f##*/}")
	tmq-put -d "$dst" -J --keep-offsets ev <recs.jsonl
	same_as_source "$dst"
}

@test "a mirror stopped by a full disk, rerun once there is room, ends exactly as its source, offsets included" {
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a small tmpfs)"
	cd "$BATS_TEST_TMPDIR"
	tmq-topic create ev -k u32 -p 3
	awk 'BEGIN { srand(7); for (i = 1; i <= 6000; i++) {
		s = ""; for (j = 0; j < 4; j++) s = s sprintf("%08x", int(rand() * 4294967296))
		print (i % 101) ":m" i "-" s } }' | tmq-put -K: ev
	local size fs dst
	for size in 128k 200k 320k 384k; do
		fs=$BATS_TEST_TMPDIR/fs-$size
		mount_tmpfs "$fs" "$size" || skip "cannot mount a tmpfs here"
		dst=$fs/root
		make_copy "$dst"
		run --separate-stderr bash -c 'tmq-get -J --from "$(tmq-topic -d "$1" info --ends ev)" ev |
		    tmq-put -d "$1" -J --keep-offsets ev' _ "$dst"
		assert_failure 1
		assert_regex "$stderr" '^tmq-put: ev: partition [0-2]: write failed( \(cut line removed\))?: No space left on device; records 1 to [0-9]+ were written, record [0-9]+ and later were not$'
		# What is there is the source's first records, whole.
		run --separate-stderr tmq-dump --verify -d "$dst" ev
		assert_success
		mount -o remount,size=64m "$fs"
		tmq-get -J --from "$(tmq-topic -d "$dst" info --ends ev)" ev |
		    tmq-put -d "$dst" -J --keep-offsets ev
		same_as_source "$dst"
	done
}

# kill_at_cut DIR BYTES MOST PGID: once the .tmf files in DIR hold BYTES,
# kill the process group PGID (KILL) the moment one of them grown since
# ends in a cut line (a write() under way: the kernel stops it between two
# pages), or once they hold MOST.
kill_at_cut() {
	python3 - "$@" "${TMQ_TEST_WAIT:-60}" <<'PY'
import os, signal, sys, time
d, th, most, pg, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
end = time.monotonic() + wait
fds, k = {}, 0
while time.monotonic() < end:
    if k % 256 == 0:    # (files kept open: polled as fast as can be)
        for n in os.listdir(d):
            if n.endswith('.tmf') and n not in fds:
                try:
                    fd = os.open(os.path.join(d, n), os.O_RDONLY | os.O_NONBLOCK)
                    fds[n] = (fd, os.fstat(fd).st_size)
                except OSError:
                    pass
    k += 1
    size, cut = 0, False
    for fd, was in fds.values():
        s = os.fstat(fd).st_size
        size += s
        if s != was and os.pread(fd, 1, s - 1) != b'\n':
            cut = True
    if (size >= th and cut) or size >= most:
        os.killpg(pg, signal.SIGKILL)
        sys.exit(0)
sys.exit('timed out waiting for %s to hold %d bytes' % (d, th))
PY
}

@test "a mirror killed (KILL) in the middle of its writes and restarted ends exactly as its source, offsets included" {
	cd "$BATS_TEST_TMPDIR"
	tmq-topic create ev -k u32 -p 3
	local dst=$BATS_TEST_TMPDIR/dst i f total cuts=0
	# (On a tmpfs, where a write() goes a page at a time and a kill can
	# stop it between any two.)
	if [ "$(id -u)" = 0 ]; then
		mount_tmpfs "$BATS_TEST_TMPDIR/fs" 64m || skip "cannot mount a tmpfs here"
		dst=$BATS_TEST_TMPDIR/fs/dst
	fi
	make_copy "$dst"
	# 3000 lines of some 3 KiB (incompressible payloads): a batch of a
	# partition is one write() over many pages.
	head -c 6750000 /dev/urandom | base64 -w 3000 | awk '{ print NR ":" $0 }' |
	    tmq-put -K: ev
	total=$(cat "$TMQ_ROOT"/ev/*.tmf | wc -c)
	for i in $(seq 1 10); do
		start_mirror "$dst"
		kill_at_cut "$dst/ev" $((total * i / 12)) $((total * (i + 1) / 12)) \
		    "$(cat mirror.pid)"
		wait_for gone "$(cat mirror.pid)"
		# (How many kills left a cut line, for the log.)
		for f in "$dst"/ev/*.tmf; do
			[ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ] &&
			    cuts=$((cuts + 1))
		done
	done
	echo "# $cuts of 10 kills left a cut line" >&3
	tmq-get -J --from "$(tmq-topic -d "$dst" info --ends ev)" ev |
	    tmq-put -d "$dst" -J --keep-offsets ev
	run cat mirror.err
	assert_output ""
	same_as_source "$dst"
	run --separate-stderr tmq-dump --verify -d "$dst" ev
	assert_success
}

@test "a mirror killed by a signal in the middle of a write() (SIGXFSZ, a file size limit) and rerun ends exactly as its source" {
	cd "$BATS_TEST_TMPDIR"
	tmq-topic create ev -k u32 -p 3
	local dst=$BATS_TEST_TMPDIR/dst kb f cut=0
	make_copy "$dst"
	head -c 6750000 /dev/urandom | base64 -w 3000 | awk '{ print NR ":" $0 }' |
	    tmq-put -K: ev
	# Each run is killed where one of its files reaches the limit: the
	# kernel writes up to it, and the write() after is killed.  (Some
	# 2800 KiB a partition.)
	for kb in 300 800 1300 1800 2300; do
		tmq-get -J --from "$(tmq-topic -d "$dst" info --ends ev)" ev >recs.jsonl
		run bash -c 'ulimit -f "$1" && exec tmq-put -d "$2" -J --keep-offsets ev <recs.jsonl' _ "$kb" "$dst"
		assert_equal "$status" $((128 + $(kill -l XFSZ)))
		for f in "$dst"/ev/*.tmf; do
			[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || cut=$((cut + 1))
		done
	done
	# (A line that ends right at the limit leaves none.)
	[ "$cut" -ge 3 ]
	tmq-get -J --from "$(tmq-topic -d "$dst" info --ends ev)" ev |
	    tmq-put -d "$dst" -J --keep-offsets ev
	same_as_source "$dst"
	run --separate-stderr tmq-dump --verify -d "$dst" ev
	assert_success
}

# --- a mirror of a pruned topic (issue 31.3) --------------------------------

@test "put -J --keep-offsets: a mirror of a pruned topic into a new root begins each partition at the source's first offset, saying so; a gap inside a partition is still refused" {
	cd "$BATS_TEST_TMPDIR"
	local d=$TMQ_ROOT/old dst=$BATS_TEST_TMPDIR/dst d2=$BATS_TEST_TMPDIR/d2 today
	today=$(date -u +%Y%m%d)
	tmq-topic create old -p 2
	tmq_write_line "$d" 0-20260101_0.tmf u16 2 1767225600 a0
	tmq_write_line "$d" 0-20260101_0.tmf u16 2 1767225601 a1
	tmq_write_line "$d" 0-20260102_2.tmf u16 2 1767312000 b2
	tmq_write_line "$d" 0-20260102_2.tmf u16 2 1767312001 b3
	tmq_write_line "$d" 1-20260101_0.tmf u16 1 1767225600 p0
	tmq_write_line "$d" 1-20260102_1.tmf u16 1 1767312000 q1
	tmq-topic prune old --before 2026-01-02 2>/dev/null
	assert_equal "$(tmq-topic info --ends old)" "0=4,1=2"
	tmq-topic -d "$dst" create old -p 2
	tmq-get -J --from "$(tmq-topic -d "$dst" info --ends old)" old >recs.jsonl 2>/dev/null
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets old <recs.jsonl
	assert_success
	assert_output ""
	run sort <<<"$stderr"
	assert_output "tmq-put: old: partition 0 held no message: it begins at offset 2, its first record's (exact from there)
tmq-put: old: partition 1 held no message: it begins at offset 1, its first record's (exact from there)"
	diff <(tmq-dump -J old) <(tmq-dump -J -d "$dst" old)
	# Its files begin there (the empty ones that create made are gone).
	run ls "$dst/old"
	assert_output "0-${today}_2.tmf
1-${today}_1.tmf"
	assert_equal "$(tmq-topic -d "$dst" info --ends old)" "0=4,1=2"
	# The rerun, from the copy's ends: nothing to do, nothing said.
	run --separate-stderr bash -c 'tmq-get -J --from "$(tmq-topic -d "$1" info --ends old)" old |
	    tmq-put -d "$1" -J --keep-offsets old' _ "$dst"
	assert_success
	assert_stderr ""
	# A gap inside a partition is refused, as ever: offset 4 lost.
	tmq-put -k 2 old c4 c5
	tmq-get -J --from 0=4 -P 0 old | grep -v '"offset":4,' >gap.jsonl
	run --separate-stderr tmq-put -d "$dst" -J --keep-offsets old <gap.jsonl
	assert_failure 1
	assert_equal "$stderr" "tmq-put: old: record 1: partition 0 offset 5 would leave a gap after its end (4): nothing more is written to it"
	# And into a copy whose partition holds a line already, the pruned
	# source's first offset is a gap.
	tmq-topic -d "$d2" create old -p 2
	tmq-put -d "$d2" -k 2 old own
	run --separate-stderr tmq-put -d "$d2" -J --keep-offsets old <recs.jsonl
	assert_failure 1
	[[ $stderr == *"partition 0 offset 2 would leave a gap after its end (1): nothing more is written to it"* ]]
	assert_equal "$(tmq-topic -d "$d2" info --ends old)" "0=1,1=2"
}
