#!/usr/bin/env bats
# t0705-put-written: what a tmq-put that fails, is interrupted or is killed
# has written, and what it says it wrote (tmq-put(1), What a failed put
# wrote): the first records of its input, across partitions, so that a
# rerun with the rest is exact; where a batch was cut short, exactly which
# records after the first one missing are there too.
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

# put_input N: N records KEY:rec-I-HEX, I from 1, keys spread over the
# u32 range (so over every partition, alternating at random).
put_input() {
	awk -v n="$1" 'BEGIN { srand(7); for (i = 1; i <= n; i++)
	    printf "%d:rec-%d-%08x%08x\n", (i * 2654435761) % 4294967296, i,
	    int(rand() * 4294967296), int(rand() * 4294967296) }'
}

# check_said INPUT SAID: the records of INPUT (put_input's) that topic ev
# holds are exactly what SAID (tmq-put's last line on stderr) says: records
# 1 to N, none after, but where it says "but for C of A to B, in
# partitions L": then C records from A to B, the last B, all in the
# partitions L.  And each once, each partition holding the first of the
# records INPUT has for it, in input order.  Prints "ok" (or what is
# wrong), then N.
check_said() {
	local t=$BATS_TEST_TMPDIR
	cut -d: -f1 "$1" | tmq-topic partition ev >"$t/parts"
	tmq-get -F '%p %s\n' ev >"$t/got" 2>"$t/got.err" || :
	python3 - "$1" "$t/parts" "$t/got" "$t/got.err" "$2" <<'EOF'
import re, sys
inp, partsf, gotf, errf, said = sys.argv[1:6]
recs = [l.rstrip("\n").split(":", 1)[1] for l in open(inp)]
parts = [int(l) for l in open(partsf)]
num = {r: i + 1 for i, r in enumerate(recs)}
bad = []
byp, seen = {}, []
for l in open(gotf):
    p, s = l.rstrip("\n").split(" ", 1)
    if s not in num:
        bad.append("not of the input: " + s)
        continue
    byp.setdefault(int(p), []).append(num[s])
    seen.append(num[s])
# A line the full disk cut is one corrupt record, said as such.
errs = [l for l in open(errf) if l.strip()]
if len(errs) > 1 or any(not re.match(r"tmq-get: ev: partition \d+ offset \d+: ", l) for l in errs):
    bad.append("tmq-get said: " + "".join(errs))
if len(set(seen)) != len(seen):
    bad.append("records written twice")
for p, ns in sorted(byp.items()):
    mine = [i + 1 for i, q in enumerate(parts) if q == p]
    if ns != mine[:len(ns)]:
        bad.append("partition %d does not hold the first of its records" % p)
w = set(seen)
if "no record was written" in said:
    n, rest = 0, ""
else:
    m = re.search(r"records? (?:1 to )?(\d+) (?:were|was) written, record (\d+) and later were not(.*)$", said)
    if not m or int(m.group(2)) != int(m.group(1)) + 1:
        print("cannot read: " + said); sys.exit(0)
    n, rest = int(m.group(1)), m.group(3)
missing = [i for i in range(1, n + 1) if i not in w]
if missing:
    bad.append("said written, not there: %s" % missing[:5])
if n + 1 in w:
    bad.append("record %d is there" % (n + 1))
beyond = sorted(i for i in w if i > n)
if rest:
    m = re.fullmatch(r" but for (\d+) of (\d+) to (\d+), in partitions? ([0-9, and]+) \(a batch cut short\)", rest)
    if not m:
        print("cannot read: " + said); sys.exit(0)
    c, a, b = int(m.group(1)), int(m.group(2)), int(m.group(3))
    named = set(int(x) for x in re.split(r", | and ", m.group(4)))
    if len(beyond) != c or (beyond and (beyond[0] < a or beyond[-1] != b)):
        bad.append("said %d of %d to %d; there: %d, %s to %s" % (c, a, b, len(beyond), beyond[:1], beyond[-1:]))
    if set(parts[i - 1] for i in beyond) != named:
        bad.append("said partitions %s; there %s" % (sorted(named), sorted(set(parts[i - 1] for i in beyond))))
elif beyond:
    bad.append("%d records after %d are there, unsaid (first %d)" % (len(beyond), n + 1, beyond[0]))
print("\n".join(bad) or "ok")
print(n)
EOF
}

@test "disk full, 4 partitions: tmq-put says it wrote records 1 to N, and exactly those are there; the rest, put once there is room, makes the topic the input, nothing lost or doubled" {
	local fs=$BATS_TEST_TMPDIR/fs n
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a small tmpfs)"
	mount_tmpfs "$fs" 1m || skip "cannot mount a tmpfs here"
	export TMQ_ROOT=$fs/root
	tmq-topic create ev -k u32 -p 4
	head -c 600000 /dev/zero >"$fs/filler"
	put_input 12000 >in
	run --separate-stderr tmq-put -K: ev <in
	assert_failure 1
	assert_output ''
	assert_regex "$stderr" '^tmq-put: ev: partition [0-3]: write failed( \(cut line terminated\))?: No space left on device; records 1 to [0-9]+ were written, record [0-9]+ and later were not$'
	run check_said in "$stderr"
	assert_line -n 0 ok
	n=${lines[1]}
	[ "$n" -gt 100 ] && [ "$n" -lt 12000 ]
	rm "$fs/filler"
	tail -n +$((n + 1)) in >rest
	run --separate-stderr tmq-put -K: ev <rest
	assert_success
	assert_equal "$stderr" ''
	run check_said in 'records 1 to 12000 were written, record 12001 and later were not'
	assert_output $'ok\n12000'
}

@test "a file size limit cuts a batch short: tmq-put says exactly which records it wrote, those after the first one missing too, by partition" {
	tmq-topic create ev -k u32 -p 4
	put_input 20000 >in
	run --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 256 && exec tmq-put -K: ev' <in
	assert_failure 1
	assert_output ''
	assert_regex "$stderr" '^tmq-put: ev: partition [0-3]: write failed( \(cut line terminated\))?: File too large; records? (1 to )?[0-9]+ (were|was) written, record [0-9]+ and later were not( but for [0-9]+ of [0-9]+ to [0-9]+, in partitions? [0-9, and]+ \(a batch cut short\))?$'
	run check_said in "$stderr"
	assert_line -n 0 ok
}

@test "a failure before a batch is written: no record of it is there, and tmq-put says where the input stopped" {
	local f
	tmq-topic create ev -k u32 -p 4
	put_input 3 >in
	tmq-put -K: ev <in
	# The next batch needs partition 0's file of today: planted, a
	# directory in its place cannot be opened.
	for f in "$TMQ_ROOT"/ev/*.tmf; do
		rm "$f" && mkdir "$f"
	done
	put_input 10 | tail -n 7 >more
	run --separate-stderr tmq-put -K: ev <more
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: ev: partition [0-3]: .+; no record was written$'
}

# _put_default_int CMD...: CMD with SIGINT at its default (a job started
# with & in a shell without job control ignores it, and that would stick).
_put_default_int() {
	exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# held N: topic ev holds N messages.
held() {
	[ "$(tmq-get -F '\n' ev | wc -l)" -eq "$1" ]
}

@test "SIGTERM or SIGINT: tmq-put reads no more, writes what it has read, and says how far it got; exit 1" {
	local sig pid st
	for sig in TERM INT; do
		rm -rf "$TMQ_ROOT" fifo
		tmq-topic create ev -k u32 -p 4
		mkfifo fifo
		_put_default_int tmq-put -K: ev <fifo 2>err 3>&- 5>&- &
		pid=$!
		track "$pid"
		exec 5>fifo
		put_input 3 >&5
		wait_for held 3
		kill -s "$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		exec 5>&-
		assert_equal "$sig $st" "$sig 1"
		assert_equal "$(cat err)" 'tmq-put: ev: interrupted; records 1 to 3 were written, record 4 and later were not'
		held 3
	done
}

# restored: in the topic ev of the root $1, which records of backup.jsonl
# (by their place in it) there are: "prefix N" when they are its first N;
# else "cut N M", N the first missing, M how many are there after it.
# Fails when a record is there twice, or a partition does not hold the
# first of the backup's records for it.
restored() {
	tmq-get -d "$1" -F '%p %s\n' ev | python3 -c '
import json, sys
order, part = {}, {}
for i, l in enumerate(open("backup.jsonl")):
    r = json.loads(l)
    order[r["payload"]] = i
    part.setdefault(r["partition"], []).append(i)
got, byp = [], {}
for l in sys.stdin:
    p, s = l.rstrip("\n").split(" ", 1)
    got.append(order[s])
    byp.setdefault(int(p), []).append(order[s])
if len(set(got)) != len(got):
    sys.exit("a record twice")
for p, xs in byp.items():
    if xs != part[p][:len(xs)]:
        sys.exit("partition %d does not hold the first of its records" % p)
got.sort()
n = next((i for i, x in enumerate(got) if x != i), len(got))
print("prefix %d" % n if n == len(got) else "cut %d %d" % (n, len(got) - n))'
}

# grown ROOT BYTES: the topic ev of ROOT holds more than BYTES.
grown() {
	[ "$(cat "$1"/ev/*.tmf 2>/dev/null | wc -c)" -gt "$2" ]
}

@test "SIGKILL of a tmq-put -J --keep-time restore at random moments, 20 times: it leaves the first records of the backup (but for a kill within a batch's writes), each partition the first of its own" {
	local i d g size r pid state cuts=0 mid=0
	tmq-topic create ev -k u32 -p 4
	put_input 240000 | tmq-put -K: ev
	tmq-get -J ev >backup.jsonl
	size=$(cat "$TMQ_ROOT"/ev/*.tmf | wc -c)
	# Each kill comes once the copy has grown past a point taken at
	# random, and a moment after: anywhere in the run.
	for i in $(seq 20); do
		r=$BATS_TEST_TMPDIR/r$i
		tmq-topic -d "$r" create ev -k u32 -p 4
		tmq-put -d "$r" -J --keep-time ev <backup.jsonl 3>&- &
		pid=$!
		track "$pid"
		# (a look at a time, not wait_for's every 50 ms: -J now restores
		# 60,000 records in about that, hence 240,000)
		g=$(((RANDOM * 32768 + RANDOM) % (size * 8 / 10)))
		until grown "$r" "$g" || gone "$pid"; do :; done
		d=$((RANDOM % 5000))
		sleep "$(printf '0.%06d' "$d")"
		kill -9 "$pid" 2>/dev/null || :
		wait "$pid" 2>/dev/null || :
		state=$(restored "$r") || fail "round $i: $state"
		case $state in
		"prefix 240000") ;;
		prefix*) mid=$((mid + 1)) ;;
		*) cuts=$((cuts + 1)) ;;
		esac
		rm -rf "$r"
	done
	echo "# $mid of 20 kills mid-run, $cuts within a batch's writes" >&3
	# A batch's writes take a small part of a restore's time (for one
	# batch of 4 partitions, 4 write() calls): a kill within them is
	# rare, and more than 2 in 20 is not chance.
	[ "$cuts" -le 2 ] || fail "$cuts of 20 kills left what is not the first records of the backup"
	[ "$mid" -ge 10 ] || fail "only $mid of 20 kills came before the restore was done"
}
