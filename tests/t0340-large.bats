#!/usr/bin/env bats
# Messages of any size (issue 37): a topic made with --max-message keeps a
# payload too long for a line in a blob file, TOPIC/.tmq/blob-HASH, and its
# line is a tmq.blob reference; readers give the payload back, checked, and
# refuse (or bound) what a co-user plants.

load test_helper

eval "helper_$(declare -f setup)"
setup() {
	helper_setup
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
	end_bg
	end_mounts
	undo_all
}

# The one blob file of topic $1.
blob_of() {
	local f
	f=$(find "$TMQ_ROOT/$1/.tmq" -name 'blob-*' ! -name '*.tmp')
	[ "$(printf '%s\n' "$f" | wc -l)" -eq 1 ] || return 1
	printf '%s\n' "$f"
}

# plant TOPIC JSON: append to partition 0's last file a tmq.blob reference
# with this JSON, as a co-user could (the type's index read from the
# definition).
plant() {
	local f idx
	f=$(find "$TMQ_ROOT/$1" -maxdepth 1 -name '0-*.tmf' | sort -t_ -k2n | tail -n 1)
	idx=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["message_types"]["tmq.blob"])' "$TMQ_ROOT/$1.twc")
	tmq_encode_line u16 0 1796000000 "$2" "typed:$idx" >>"$f"
}

# A reference to a blob of SIZE bytes with hash HASH, of kind bytes.
ref() {
	printf '{"file":".tmq/blob-%s","size":%s,"xxh3_128":"%s","kind":"bytes"}' "$2" "$1" "$2"
}

@test "create --max-message: the limit and the reserved type in the definition, the TwainMQ library's layout kept" {
	run tmq-topic create --max-message 20M big
	assert_success
	assert_output ""
	run cat "$TMQ_ROOT/big.twc"
	assert_output '{
"key_width": 2,
"partitions": 1,
"message_types": {
"tmq.blob": 0
},
"max_message": 20971520
}'
	tmq-topic create -t A,B --max-message 1K two
	run grep -c '"tmq.blob": 2' "$TMQ_ROOT/two.twc"
	assert_output 1
	run tmq-topic create --max-message 1024 --if-not-exists two -t A,B
	assert_success
	run --separate-stderr tmq-topic create --max-message 2K --if-not-exists -t A,B two
	assert_fails_with "tmq-topic: two exists with another definition: max_message 1024, not 2048"
	run --separate-stderr tmq-topic create --if-not-exists -t A,B two
	assert_fails_with "tmq-topic: two exists with another definition: max_message 1024, not 0"
}

@test "create --max-message: bad sizes, the 256 MiB bound, the reserved type" {
	run --separate-stderr tmq-topic create --max-message 257M x
	assert_usage_error tmq-topic "--max-message: '257M': over 268435456 bytes"
	run --separate-stderr tmq-topic create --max-message 12X x
	assert_usage_error tmq-topic "--max-message: '12X': not a size (a number, then nothing, K, M or G)"
	run --separate-stderr tmq-topic create --max-message 0 x
	assert_usage_error tmq-topic "--max-message: '0': under 1 byte"
	run --separate-stderr tmq-topic create --max-message '' x
	assert_usage_error tmq-topic "--max-message: '': not a size"
	run --separate-stderr tmq-topic create -t tmq.blob x
	assert_fails_with "tmq-topic: type 'tmq.blob' is reserved (for tmq's blob references: --max-message)"
	run --separate-stderr tmq-topic create -t A,tmq.blob --max-message 1M x
	assert_fails_with "tmq-topic: type 'tmq.blob' is reserved (for tmq's blob references: --max-message)"
	run tmq-topic create --max-message 256M x
	assert_success
	[ ! -e "$TMQ_ROOT/x" ] || tmq-topic list | grep -qx x
}

@test "a topic without --max-message refuses as before, saying how to allow more" {
	tmq-topic create plain
	head -c 10000 /dev/urandom >f
	run --separate-stderr tmq-put -b -l plain <f
	assert_fails_with "tmq-put: plain: record 1: too large for a message: its line would be over the 4096-byte limit (about 3200 bytes of random data fit; more of text that compresses; a topic made with tmq-topic create --max-message SIZE takes more)"
	run tmq-get plain
	assert_output ""
	[ ! -e "$TMQ_ROOT/plain/.tmq" ] || [ -z "$(ls "$TMQ_ROOT/plain/.tmq")" ]
}

@test "a 10 MB file sent and got back byte for byte: the blob named by its hash, the line a reference" {
	tmq-topic create --max-message 20M big
	head -c 10000000 /dev/urandom >f10
	run tmq-put -b -l -k 7 big <f10
	assert_success
	assert_output ""
	tmq-get -F %s big >got
	cmp f10 got
	blob=$(blob_of big)
	cmp f10 "$blob"
	hash=${blob##*/blob-}
	[[ $hash =~ ^[0-9a-f]{32}$ ]]
	# One line, well under 4096 bytes.
	run wc -l "$TMQ_ROOT"/big/0-*.tmf
	assert_output --regexp '^1 '
	run tmq-get --no-resolve -F '%k %y %s' big
	assert_output "7 tmq.blob {\"file\":\".tmq/blob-$hash\",\"size\":10000000,\"xxh3_128\":\"$hash\",\"kind\":\"bytes\"}"
	run tmq-get -F '%k %y %S' big
	assert_output "7 bytes 10000000"
	# -J: the payload whole, base64.
	tmq-get -J big | python3 -c 'import base64,json,sys; d=json.load(sys.stdin); sys.stdout.buffer.write(base64.b64decode(d["payload"]))' >gotj
	cmp f10 gotj
	# tmq-dump shows the payload's size, and --verify checks the blob.
	run tmq-dump big
	assert_output --regexp "^big/0-[0-9]{8}_0.tmf:1 partition=0 offset=0 key=7 time=[^ ]* type=bytes size=[0-9]+/10000000 payload="
	run tmq-dump --verify big
	assert_success
	run tmq-get --no-resolve -J big
	assert_output --partial "\"type\":\"tmq.blob\",\"payload\":{\"file\":\".tmq/blob-$hash\""
}

@test "text and typed payloads keep their kind; small ones stay lines; the same payload twice is one blob" {
	tmq-topic create -t Doc --max-message 1M t
	python3 -c 'print("x" * 70000, end="")' >text
	python3 -c 'import json; print(json.dumps({"a": "é" * 40000}), end="")' >doc
	tmq-put -l t <text
	tmq-put -l t <text
	tmq-put -l -T Doc t <doc
	tmq-put t small
	run tmq-get -F '%o %y %S\n' t
	assert_output "0 str 70000
1 str 70000
2 Doc $(wc -c <doc)
3 str 5"
	tmq-get -n 1 -F %s t | cmp - text
	tmq-get -o 2 -n 1 -F %s t | cmp - doc
	run find "$TMQ_ROOT/t/.tmq" -name 'blob-*'
	[ "${#lines[@]}" -eq 2 ]
	run tmq-get -o 3 -J t
	assert_output --partial '"type":"str","payload":"small"}'
}

@test "over the topic's limit: refused, nothing written" {
	tmq-topic create --max-message 1M m
	head -c 2000000 /dev/urandom >f2
	head -c 5000000 /dev/urandom >f5
	run --separate-stderr tmq-put -b -l m <f2
	assert_fails_with "tmq-put: m: record 1: payload of 2000000 bytes, over the topic's max_message (1048576 bytes)"
	run --separate-stderr tmq-put -b -l m <f5
	assert_fails_with "tmq-put: m: record 1: longer than the topic's max_message (1048576 bytes)"
	run tmq-get m
	assert_output ""
	[ -z "$(ls "$TMQ_ROOT/m/.tmq" 2>/dev/null | grep blob-)" ]
}

@test "a full disk while a blob is written ends the put: what came before written, it said, no line without its blob" {
	local fs="$BATS_TEST_TMPDIR/fs"
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a small tmpfs)"
	mount_tmpfs "$fs" 1m || skip "cannot mount a tmpfs here"
	export TMQ_ROOT="$fs/root"
	tmq-topic create big --max-message 4M
	head -c 100000 /dev/urandom >"$BATS_TEST_TMPDIR/small"
	head -c 3000000 /dev/urandom >"$BATS_TEST_TMPDIR/huge"
	run --separate-stderr tmq-put -b -l big <"$BATS_TEST_TMPDIR/huge"
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: blob not written: big/\.tmq/blob-[0-9a-f]{32}: No space left on device; no record was written$'
	# The second of three files: the first written, the third not.
	run --separate-stderr tmq-put -b -l -F "$BATS_TEST_TMPDIR/small" \
	    -F "$BATS_TEST_TMPDIR/huge" -F "$BATS_TEST_TMPDIR/small" big
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: blob not written: big/\.tmq/blob-[0-9a-f]{32}: No space left on device; file 1 was written, file 2 and later were not$'
	run tmq-get -F '%o\n' --no-resolve big
	assert_output 0
	tmq-get -o 0 -n 1 -F '%s' big | cmp - "$BATS_TEST_TMPDIR/small"
	# No temporary left, no blob without its line.
	run ls -A "$fs/root/big/.tmq"
	assert_output --regexp '^blob-[0-9a-f]{32}$'
}

# blob_calls TRACE: from an strace -y of a put, its calls on blobs and the
# log, one per line: "write-tmp H", "fsync-tmp H", "rename H", "fsync-dir",
# "append" (H the blob's hash, in the order the put made them; strace
# pads a short pid with spaces).
blob_calls() {
	sed -n -e 's/^[0-9]* *write([0-9]*<[^>]*\/\.blob-\([0-9a-f]*\)\..*/write-tmp \1/p' \
	    -e 's/^[0-9]* *fsync([0-9]*<[^>]*\/\.blob-\([0-9a-f]*\)\..*/fsync-tmp \1/p' \
	    -e 's/^[0-9]* *renameat(.*, "blob-\([0-9a-f]*\)") = 0$/rename \1/p' \
	    -e 's/^[0-9]* *fsync([0-9]*<[^>]*\/\.tmq>) = 0$/fsync-dir/p' \
	    -e 's/^[0-9]* *write([0-9]*<[^>]*\.tmf>.*/append/p' "$1"
}

@test "tmq-put -F of three files: each blob flushed, then each renamed into place, then the folder flushed once, all before the lines" {
	require_strace
	tmq-topic create -p 1 --max-message 1M big
	for i in 1 2 3; do head -c 100000 /dev/urandom >"f$i"; done
	strace -f -y -o trace -e trace=write,fsync,renameat \
	    tmq-put -b -l -F f1 -F f2 -F f3 big
	h1=$(hash_at big 0) h2=$(hash_at big 1) h3=$(hash_at big 2)
	run blob_calls trace
	assert_output "write-tmp $h1
write-tmp $h2
write-tmp $h3
fsync-tmp $h1
fsync-tmp $h2
fsync-tmp $h3
rename $h1
rename $h2
rename $h3
fsync-dir
append"
	for i in 1 2 3; do
		tmq-get -o $((i - 1)) -n 1 -F %s big | cmp - "f$i"
	done
}

@test "tmq-put -F of three files whose second blob's fsync fails: file 1 written, it said, no line of the others, nothing of theirs left" {
	require_strace
	tmq-topic create -p 1 --max-message 1M big
	for i in 1 2 3; do head -c 100000 /dev/urandom >"f$i"; done
	run --separate-stderr strace -f -qq -o /dev/null \
	    -e inject=fsync:error=EIO:when=2 tmq-put -b -l -F f1 -F f2 -F f3 big
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: blob not written: big/\.tmq/blob-[0-9a-f]{32}: Input/output error; file 1 was written, file 2 and later were not$'
	run tmq-get -F '%o\n' big
	assert_output 0
	tmq-get -F %s big | cmp - f1
	run ls -A "$TMQ_ROOT/big/.tmq"
	assert_output "$(basename "$(blob_of big)")"
	[ "$(hash_at big 0)" = "${output#blob-}" ]
}

@test "tmq-put -F of two files whose folder's flush fails: neither line written, it said" {
	require_strace
	tmq-topic create -p 1 --max-message 1M big
	for i in 1 2; do head -c 100000 /dev/urandom >"f$i"; done
	run --separate-stderr strace -f -qq -o /dev/null \
	    -e inject=fsync:error=EIO:when=3 tmq-put -b -l -F f1 -F f2 big
	assert_failure 1
	assert_regex "$stderr" '^tmq-put: blob not written: big/\.tmq/blob-[0-9a-f]{32}: the directory: Input/output error; no file was written$'
	run tmq-get big
	assert_output ""
}

@test "tmq-put -F: a file refused among others is named, in its place among what is said" {
	tmq-topic create -p 1 --max-message 1M big
	head -c 75000 /dev/urandom | base64 -w 0 >ok1
	printf 'bad \377' >bad
	head -c 75000 /dev/urandom | base64 -w 0 >ok2
	run --separate-stderr tmq-put -l -F ok1 -F bad -F missing -F ok2 big
	assert_failure 1
	assert_equal "$stderr" "tmq-put: big: bad 1: text is not valid UTF-8 (use -b for bytes)
tmq-put: missing: No such file or directory"
	tmq-get -o 0 -n 1 -F %s big | cmp - ok1
	tmq-get -o 1 -n 1 -F %s big | cmp - ok2
	run tmq-get -F '%o\n' big
	assert_output "0
1"
}

@test "references are tmq's own: not put with -T, nor copied in with -J" {
	tmq-topic create --max-message 1M m
	run --separate-stderr tmq-put -T tmq.blob m '{}'
	assert_fails_with "tmq-put: m: message 1: type 'tmq.blob' is tmq's own (blob references are made by tmq-put, not given)"
	head -c 100000 /dev/urandom | tmq-put -b -l m
	tmq-topic create --max-message 1M copy
	run --separate-stderr bash -c 'tmq-get --no-resolve -J m | tmq-put -J copy'
	assert_fails_with "tmq-put: copy: record 1: type 'tmq.blob' is tmq's own (blob references are made by tmq-put, not given)"
}

@test "-J out, -J in: the payload whole, its blob made anew at the destination" {
	tmq-topic create --max-message 1M m
	tmq-topic create --max-message 1M copy
	head -c 300000 /dev/urandom >f
	tmq-put -b -l m <f
	tmq-get -J m | tmq-put -J copy
	tmq-get -F %s copy | cmp - f
	cmp "$(blob_of m)" "$(blob_of copy)"
	[ "$(basename "$(blob_of m)")" = "$(basename "$(blob_of copy)")" ]
}

@test "a --keep-offsets mirror makes the same blobs at the same offsets; run again, it skips what it has" {
	tmq-topic create --max-message 1M m
	tmq-topic create --max-message 1M copy
	head -c 300000 /dev/urandom >f
	tmq-put m small
	tmq-put -b -l m <f
	tmq-put m after
	tmq-get -J m | tmq-put -J --keep-offsets copy
	tmq-get -o 1 -n 1 -F %s copy | cmp - f
	[ "$(basename "$(blob_of m)")" = "$(basename "$(blob_of copy)")" ]
	cmp "$(blob_of m)" "$(blob_of copy)"
	run tmq-get -F '%o %s\n' -P 0 -o 0 -n 1 copy
	assert_output '0 small'
	tmq-get -J m | tmq-put -J --keep-offsets copy
	run tmq-topic info --ends copy
	assert_output 0=3
}

# hash_at TOPIC OFFSET: the hash of the blob the line at OFFSET refers to.
hash_at() {
	tmq-get --no-resolve -o "$2" -n 1 -F '%s' "$1" |
	    sed 's/.*"xxh3_128": *"\([0-9a-f]*\)".*/\1/'
}

# two_old_blobs: topic big (d its directory) with the payloads f1 and f4
# (blobs b1 and b4) at offsets 0 and 1, in a day file of 2020-01-01, their
# blobs last written then.
two_old_blobs() {
	d=$TMQ_ROOT/big
	tmq-topic create --max-message 1M big
	head -c 200000 /dev/urandom >f1
	head -c 200000 /dev/urandom >f4
	tmq-put -b -l big <f1
	tmq-put -b -l big <f4
	b1=$(hash_at big 0) b4=$(hash_at big 1)
	mv "$d/$(ls "$d" | grep '^0-')" "$d/0-20200101_0.tmf"
	touch -d '2020-01-01 12:00' "$d/.tmq/blob-$b1" "$d/.tmq/blob-$b4"
}

@test "prune removes the blobs no line left refers to: those of the files pruned, and orphans, not one put again since, not before their time, not in a dry run" {
	local d b1 b4 orphan=0123456789abcdef0123456789abcdef
	two_old_blobs
	# An orphan as a put killed between its blob and its line leaves.
	echo lost >"$d/.tmq/blob-$orphan"
	touch -d '2020-01-01 12:00' "$d/.tmq/blob-$orphan"
	# f1 put again today: its blob is written anew.
	tmq-put -b -l big <f1
	tmq-put big small
	run --separate-stderr tmq-topic prune --before now --dry-run big
	assert_success
	[ -e "$d/.tmq/blob-$b4" ] && [ -e "$d/.tmq/blob-$orphan" ]
	run --separate-stderr tmq-topic prune --before now big
	assert_success
	[ ! -e "$d/0-20200101_0.tmf" ]
	[ ! -e "$d/.tmq/blob-$b4" ]
	[ ! -e "$d/.tmq/blob-$orphan" ]
	[ -e "$d/.tmq/blob-$b1" ]
	tmq-get -o 2 -n 1 -F %s big | cmp - f1
	run tmq-get -o 3 -n 1 big
	assert_output small
	# A blob written just now, its line in no file yet (a put under way),
	# stays however old the files are.
	echo new >"$d/.tmq/blob-$orphan"
	run --separate-stderr tmq-topic prune --before now big
	assert_success
	[ -e "$d/.tmq/blob-$orphan" ]
}

@test "prune --archive carries the blobs of the files it moves: the archive reads them whole; the topic keeps those its lines left need" {
	local d b1 b4
	two_old_blobs
	tmq-put -b -l big <f1
	run --separate-stderr tmq-topic prune --before now --archive "$BATS_TEST_TMPDIR/arch" big
	assert_success
	assert_equal "$stderr" ''
	[ -e "$BATS_TEST_TMPDIR/arch/big/0-20200101_0.tmf" ]
	TMQ_ROOT=$BATS_TEST_TMPDIR/arch tmq-get -o 0 -n 1 -F %s big | cmp - f1
	TMQ_ROOT=$BATS_TEST_TMPDIR/arch tmq-get -o 1 -n 1 -F %s big | cmp - f4
	run --separate-stderr tmq-dump -d "$BATS_TEST_TMPDIR/arch" --verify big
	assert_success
	# The topic: b4 went (in the archive now), b1 stays for its line left.
	[ ! -e "$d/.tmq/blob-$b4" ]
	[ -e "$d/.tmq/blob-$b1" ]
	tmq-get -o 2 -n 1 -F %s big | cmp - f1
}

@test "prune --keep-unread keeps a file a group has not read whole, and its blobs; once the group has read it, both go" {
	local d b1 b4 p
	two_old_blobs
	tmq-put big small
	p=$(tmq-get -o 0 -n 1 -F '%p' big)
	# G has read f1 (offset 0), not f4 (offset 1).
	tmq-get -g G --window 1 -n 1 big >/dev/null
	run --separate-stderr tmq-topic prune --before now --keep-unread big
	assert_success
	[ -e "$d/0-20200101_0.tmf" ]
	[ -e "$d/.tmq/blob-$b1" ] && [ -e "$d/.tmq/blob-$b4" ]
	tmq-get -o 1 -n 1 -F %s big | cmp - f4
	tmq-group reset G -P "$p" --to 2 >/dev/null
	run --separate-stderr tmq-topic prune --before now --keep-unread big
	assert_success
	[ ! -e "$d/0-20200101_0.tmf" ]
	[ ! -e "$d/.tmq/blob-$b1" ] && [ ! -e "$d/.tmq/blob-$b4" ]
	run tmq-get -o 2 -n 1 big
	assert_output small
}

@test "tmq-topic delete takes a topic's blobs with it" {
	tmq-topic create --max-message 1M big
	head -c 200000 /dev/urandom | tmq-put -b -l big
	[ -n "$(blob_of big)" ]
	tmq-topic delete -y big
	[ ! -e "$TMQ_ROOT/big" ]
	tmq-topic create --max-message 1M big
	run tmq-get big
	assert_output ""
}

@test "tmq-dump --verify says the blobs no line refers to (a killed put's), older than a put takes; exit 0, not corrupt" {
	local d=$TMQ_ROOT/big orphan=0123456789abcdef0123456789abcdef
	tmq-topic create --max-message 1M big
	head -c 200000 /dev/urandom >f1
	tmq-put -b -l big <f1
	echo lost >"$d/.tmq/blob-$orphan"
	# Just made: a put may be about to write its line.
	run --separate-stderr tmq-dump --verify big
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt'
	assert_equal "$stderr" ''
	touch -d '1 hour ago' "$d/.tmq/blob-$orphan"
	run --separate-stderr tmq-dump --verify big
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt, 1 orphan blob'
	assert_equal "$stderr" "tmq-dump: big/.tmq/blob-$orphan: no line refers to it (a put killed before its line left it; tmq-dump --verify --repair and tmq-topic prune remove it)"
	# A file alone is not the topic: nothing is said of its blobs.
	run --separate-stderr tmq-dump --verify "$TMQ_ROOT/big/$(ls "$d" | grep '^0-')"
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt'
}

@test "tmq-dump --verify --repair removes the orphans written over 2 days ago, says each, keeps younger ones and every blob a line refers to" {
	local d=$TMQ_ROOT/big old=0123456789abcdef0123456789abcdef \
	    young=fedcba9876543210fedcba9876543210 b1
	tmq-topic create --max-message 1M big
	head -c 200000 /dev/urandom >f1
	tmq-put -b -l big <f1
	b1=$(hash_at big 0)
	touch -d '1 year ago' "$d/.tmq/blob-$b1"
	echo lost >"$d/.tmq/blob-$old"
	touch -d '3 days ago' "$d/.tmq/blob-$old"
	echo lost >"$d/.tmq/blob-$young"
	touch -d '1 day ago' "$d/.tmq/blob-$young"
	run --separate-stderr tmq-dump --verify --repair big
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt, 2 orphan blobs, 1 removed'
	assert_equal "$(sort <<<"$stderr")" "tmq-dump: big/.tmq/blob-$old: no line refers to it: removed
tmq-dump: big/.tmq/blob-$young: no line refers to it; kept, last written less than 2 days ago (a put stopped before its line may yet write it)"
	[ ! -e "$d/.tmq/blob-$old" ] && [ -e "$d/.tmq/blob-$young" ]
	tmq-get -F %s big | cmp - f1
	# Run again: nothing more to remove.
	run --separate-stderr tmq-dump --verify --repair big
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt, 1 orphan blob, 0 removed'
	# A file alone is not the topic: nothing is removed.
	touch -d '3 days ago' "$d/.tmq/blob-$young"
	run --separate-stderr tmq-dump --verify --repair "$d/$(ls "$d" | grep '^0-')"
	assert_success
	assert_output '1 files, 1 lines, 0 corrupt'
	[ -e "$d/.tmq/blob-$young" ]
}

@test "tmq-dump --repair: without --verify a usage error; an orphan this user may not remove said, exit 1" {
	local d=$TMQ_ROOT/big old=0123456789abcdef0123456789abcdef
	run --separate-stderr tmq-dump --repair big
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "tmq-dump: --repair needs --verify"
	shared_users
	export TMQ_ROOT=$SHARED/root d=$SHARED/root/big
	tmq-topic create --max-message 1M big
	tmq-put big small
	mkdir -p "$d/.tmq"
	echo lost >"$d/.tmq/blob-$old"
	touch -d '3 days ago' "$d/.tmq/blob-$old"
	chmod -R a+rX "$TMQ_ROOT"
	run --separate-stderr runuser -u "$U1" -- env \
	    ASAN_OPTIONS="${ASAN_OPTIONS-}" "$SHARED/bin/tmq-dump" \
	    -d "$TMQ_ROOT" --verify --repair big
	assert_failure 1
	assert_output '1 files, 1 lines, 0 corrupt, 1 orphan blob, 0 removed'
	assert_equal "$stderr" "tmq-dump: big/.tmq/blob-$old: no line refers to it; not removed: Permission denied"
	[ -e "$d/.tmq/blob-$old" ]
}

@test "a group member gets the payload itself" {
	tmq-topic create --max-message 1M m
	head -c 300000 /dev/urandom >f
	tmq-put -b -l m <f
	tmq-get -g G --window 1 -n 1 -F %s m >got
	cmp f got
}

@test "the TwainMQ library reads a reference as the typed message it is" {
	require_ref
	tmq-topic create --max-message 1M m
	head -c 300000 /dev/urandom >f
	tmq-put -b -l m <f
	cat >lib.py <<'PY'
import dataclasses, os, sys, twainmq
root = os.environ["TMQ_ROOT"]
try:
    twainmq.Twain(root).consumer("m", start_from="start").poll()
except KeyError as ex:
    print("unregistered:", repr(ex))
@dataclasses.dataclass
class Blob:
    __message_type__ = "tmq.blob"
    file: str
    size: int
    xxh3_128: str
    kind: str
t = twainmq.Twain(root)
t.register_msg_cls(Blob)
m = t.consumer("m", start_from="start").poll()
print(m.message)
with open(os.path.join(root, "m", m.message.file), "rb") as f:
    data = f.read()
print(len(data) == m.message.size)
with open("libgot", "wb") as f:
    f.write(data)
PY
	run python3 lib.py
	assert_success
	hash=$(basename "$(blob_of m)")
	hash=${hash#blob-}
	assert_output "unregistered: KeyError('tmq.blob')
Blob(file='.tmq/blob-$hash', size=300000, xxh3_128='$hash', kind='bytes')
True"
	cmp f libgot
}

# --- hostile references ------------------------------------------------

# A topic with a good blob at offset 0, then the planted reference at 1,
# then a good small message at 2: the reader says 1 and goes on.
hostile() {
	tmq-topic create --max-message 1M h
	head -c 100000 /dev/urandom >good
	tmq-put -b -l h <good
	good=$(basename "$(blob_of h)")
	good=${good#blob-}
	plant h "$1"
	tmq-put h after
}

# The reader's verdict on offset 1: exit 1, this message, and the others.
reads_past() {
	run --separate-stderr timeout 20 tmq-get -F '%o:%S\n' h
	assert_equal "$status" 1
	assert_equal "$stderr" "tmq-get: h: partition 0 offset 1: $1"
	assert_output "0:100000
2:5"
	run --separate-stderr timeout 20 tmq-dump --verify h
	assert_equal "$status" 1
	[[ $stderr == *"h/0-"*":2: partition 0 offset 1: $1"* ]]
}

@test "hostile: a path outside the topic is never opened" {
	hostile "{\"file\":\"../../etc/passwd\",\"size\":10,\"xxh3_128\":\"0123456789abcdef0123456789abcdef\",\"kind\":\"bytes\"}"
	reads_past 'blob reference: "file" is ../../etc/passwd, not .tmq/blob-0123456789abcdef0123456789abcdef'
}

@test "hostile: a hash that is no hash, a size that is not one, a kind unknown, a type not the topic's" {
	hostile '{"file":".tmq/blob-../x","size":1,"xxh3_128":"../x","kind":"bytes"}'
	reads_past 'blob reference: "xxh3_128" is not 32 lowercase hex digits'
	rm -rf "$TMQ_ROOT"/h*
	hostile "$(ref -1 0123456789abcdef0123456789abcdef)"
	reads_past 'blob reference: "size" is not a count of bytes up to 268435456'
	rm -rf "$TMQ_ROOT"/h*
	hostile '{"file":".tmq/blob-0123456789abcdef0123456789abcdef","size":1,"xxh3_128":"0123456789abcdef0123456789abcdef","kind":"shell"}'
	reads_past 'blob reference: "kind" is not text, bytes or typed'
	rm -rf "$TMQ_ROOT"/h*
	hostile "{\"file\":\".tmq/blob-$(printf %032d 0)\",\"size\":1,\"xxh3_128\":\"$(printf %032d 0)\",\"kind\":\"typed\",\"type\":\"tmq.blob\"}"
	reads_past "blob reference: type 'tmq.blob' is not one of the topic's"
	rm -rf "$TMQ_ROOT"/h*
	hostile 'not json at all'
	reads_past "typed payload is not a JSON object"
	rm -rf "$TMQ_ROOT"/h*
	hostile '{"a":1}'
	reads_past 'blob reference: "xxh3_128" is not 32 lowercase hex digits'
}

@test "hostile: a missing blob, a symbolic link, a FIFO" {
	hostile "$(ref 100000 0123456789abcdef0123456789abcdef)"
	reads_past ".tmq/blob-0123456789abcdef0123456789abcdef: No such file or directory"
	ln -s "$(blob_of h)" "$TMQ_ROOT/h/.tmq/blob-0123456789abcdef0123456789abcdef"
	reads_past ".tmq/blob-0123456789abcdef0123456789abcdef: a symbolic link, not followed"
	rm "$TMQ_ROOT/h/.tmq/blob-0123456789abcdef0123456789abcdef"
	mkfifo "$TMQ_ROOT/h/.tmq/blob-0123456789abcdef0123456789abcdef"
	reads_past ".tmq/blob-0123456789abcdef0123456789abcdef: not a regular file (a FIFO)"
}

@test "hostile: a size that lies, a damaged blob, one over the topic's limit, a huge sparse one" {
	hostile "$(ref 99999 "$(printf %032d 0)")"
	cp good "$TMQ_ROOT/h/.tmq/blob-$(printf %032d 0)"
	reads_past ".tmq/blob-$(printf %032d 0): 100000 bytes, not the 99999 its reference says"
	rm -rf "$TMQ_ROOT"/h*
	# The good blob's reference, the blob then damaged: both lines fail.
	hostile "$(ref 5 0123456789abcdef0123456789abcdef)"
	printf 'X' | dd of="$(blob_of h)" bs=1 seek=500 conv=notrunc status=none
	run --separate-stderr tmq-get -F '%o:%S\n' h
	assert_equal "$status" 1
	assert_line --index 0 "2:5"
	[[ $stderr == "tmq-get: h: partition 0 offset 0: .tmq/blob-$good: its contents do not have its hash (damaged or replaced)"* ]]
	rm -rf "$TMQ_ROOT"/h*
	# Over the limit: refused before the file is opened.
	hostile "$(ref 2000000 0123456789abcdef0123456789abcdef)"
	reads_past "blob reference of 2000000 bytes, over the topic's max_message (1048576)"
	rm -rf "$TMQ_ROOT"/h*
	# A sparse file of 200 GB behind a reference that says 1000 bytes:
	# refused by its size, nothing read.
	hostile "$(ref 1000 0123456789abcdef0123456789abcdef)"
	truncate -s 200G "$TMQ_ROOT/h/.tmq/blob-0123456789abcdef0123456789abcdef"
	reads_past ".tmq/blob-0123456789abcdef0123456789abcdef: 214748364800 bytes, not the 1000 its reference says"
}

@test "tmq-get --no-resolve prints a planted reference as it is, and exits 0" {
	hostile "$(ref 100000 0123456789abcdef0123456789abcdef)"
	run --separate-stderr tmq-get --no-resolve -F '%o %y\n' h
	assert_success
	assert_output "0 tmq.blob
1 tmq.blob
2 str"
}
