# test_helper.bash: what every tests/t*.bats file loads first.
#
# - bats-support and bats-assert (from $BATS_LIB_PATH, /usr/lib/bats, ...);
# - the tools under test first on PATH: $TMQ_BIN (make check sets it),
#   else the bin/ beside tests/;
# - a fresh, empty root for each test: $TMQ_ROOT under $BATS_TEST_TMPDIR;
# - VECTORS, the reference vectors: the root the TwainMQ library wrote
#   and what it reads back (tests/vectors/, see its README; $TMQ_VECTORS
#   names another copy), and require_vectors, which fails a test when they
#   are not there;
# - require_ref, for the interop tests: the TwainMQ Python library
#   (0.1.9; TWAINMQ_REF, a checkout, or an installation) importable by
#   python3, with tests/refshim's stand-ins, or the test skipped saying why;
# - tmq_encode_line / tmq_write_line, which write message lines with Python
#   exactly as tmq-format(5) describes, independently of the tools;
# - assert_stderr and assert_usage_error for the tools' messages;
# - wait_for and gone: waiting for a condition, never for a time;
# - start_bg, track, stop_bg and end_bg: background processes, ended
#   after each test;
# - mount_tmpfs, other_fs and end_mounts: small file systems (as root),
#   unmounted after each test;
# - read_past and read_at_most: bounding what a command reads;
# - undo, undo_all and shared_users: two Unix users for a co-user's
#   attacks, undone after each test;
# - TMQ_SANITIZED, peak_kib and assert_peak_below: bounding what a command
#   holds in memory, where a resident set means something;
# - committed, log_length and settled: a consumer group's commits, log and
#   members.

bats_require_minimum_version 1.5.0

_tmq_load_lib() {
	local name=$1 dir
	local IFS=:
	for dir in ${BATS_LIB_PATH-} /usr/lib/bats /usr/local/lib/bats \
	    /usr/share/bats "$BATS_TEST_DIRNAME/test_helper"; do
		if [ -f "$dir/$name/load.bash" ]; then
			load "$dir/$name/load"
			return 0
		fi
	done
	printf '%s not found (install bats-support and bats-assert, or set BATS_LIB_PATH)\n' \
	    "$name" >&2
	return 1
}
_tmq_load_lib bats-support || exit 1
_tmq_load_lib bats-assert || exit 1

TMQ_BIN=${TMQ_BIN:-$BATS_TEST_DIRNAME/../bin}
PATH=$TMQ_BIN:$PATH
export TMQ_BIN PATH

VECTORS=${TMQ_VECTORS:-$BATS_TEST_DIRNAME/vectors}

setup() {
	export TMQ_ROOT="$BATS_TEST_TMPDIR/root"
	unset XDG_DATA_HOME
}

require_vectors() {
	if [ ! -f "$VECTORS/expected.jsonl" ] || [ ! -d "$VECTORS/root" ]; then
		fail "reference vectors not found at $VECTORS (they are in the source tree, tests/vectors; TMQ_VECTORS names another copy)"
	fi
}

# A copy of the vectors' root that a test may change.
copy_vectors_root() {
	require_vectors
	cp -R "$VECTORS/root" "$1"
	chmod -R u+w "$1"
}

# tmq_encode_line KEYWIDTH KEY TS PAYLOAD [KIND]
# Print one message line, newline included.  KEYWIDTH is the .twc's
# key_width (1, 2, 4, 8, -N) or a key type (u16, char8).  KIND is text (the
# default; PAYLOAD is the text), bytes (PAYLOAD in hex) or typed:INDEX
# (PAYLOAD is the JSON).
tmq_encode_line() {
	python3 - "$@" <<'EOF'
import base64, struct, sys, zlib

width, key, ts, payload = sys.argv[1:5]
kind = sys.argv[5] if len(sys.argv) > 5 else "text"
named = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}
if width in named:
    width = named[width]
elif width.startswith("char"):
    width = -int(width[4:])
else:
    width = int(width)
if width > 0:
    kb = int(key).to_bytes(width, "big")
else:
    kb = key.encode("utf-8")
    assert len(kb) <= -width, "key wider than the key type"
    kb = kb.ljust(-width, b"\0")
if kind == "text":
    raw = payload.encode("utf-8", "surrogateescape")
elif kind == "bytes":
    raw = b"\xfc" + bytes.fromhex(payload)
elif kind.startswith("typed:"):
    raw = b"\xfb" + int(kind[6:]).to_bytes(2, "big") + payload.encode("utf-8")
else:
    sys.exit("tmq_encode_line: unknown kind " + kind)
z = zlib.compressobj(9, zlib.DEFLATED, -15)
body = z.compress(raw) + z.flush()
line = (base64.b85encode(kb) + base64.b85encode(struct.pack(">d", float(ts)))
        + base64.b85encode(body) + b"\n")
sys.stdout.buffer.write(line)
EOF
}

# tmq_write_line TOPICDIR FILE KEYWIDTH KEY TS PAYLOAD [KIND]
# Append a valid message line to TOPICDIR/FILE (made when missing).  The
# files of a topic laid out by hand are all the test's own: the empty files
# of the day that tmq-topic create made (P-TODAY_0.tmf) go, else they
# would overlap files of earlier days that start at offset 0.
tmq_write_line() {
	local dir=$1 file=$2 f
	shift 2
	mkdir -p "$dir"
	for f in "$dir"/*-"$(date -u +%Y%m%d)"_0.tmf; do
		if [ -f "$f" ] && [ ! -s "$f" ] && [ "${f##*/}" != "$file" ]; then
			rm -f "$f"
		fi
	done
	tmq_encode_line "$@" >>"$dir/$file"
}

# assert_stderr TEXT: stderr (from run --separate-stderr) is exactly TEXT.
if ! declare -F assert_stderr >/dev/null; then
	assert_stderr() {
		assert_equal "$stderr" "$1"
	}
fi

# assert_usage_error TOOL MESSAGE: the last run was a usage error: exit 2,
# "TOOL: MESSAGE" and the --help hint on stderr, nothing on stdout.
assert_usage_error() {
	assert_equal "$status" 2
	assert_equal "$stderr" "$1: $2
Try '$1 --help' for more information."
	assert_equal "$output" ""
}

# assert_fails_with MESSAGE: the last run failed with exit 1 and exactly
# this one line on stderr.
assert_fails_with() {
	assert_equal "$status" 1
	assert_equal "$stderr" "$1"
}

# --- waiting ----------------------------------------------------------

# Tests wait for the condition they need, never for a span of time: a wait
# ends as soon as its condition holds, so its bound can be generous, and the
# suite holds on a machine whose cores are busy with other work (sanitizer
# builds run several times slower again).  TMQ_TEST_WAIT is that bound, in
# seconds (default 120).
TMQ_TEST_WAIT=${TMQ_TEST_WAIT:-120}

# wait_for COMMAND...: run COMMAND (its output discarded) every 50 ms
# until it succeeds; after $TMQ_TEST_WAIT seconds, show what it says and
# fail.
wait_for() {
	local end=$(($(date +%s) + TMQ_TEST_WAIT))
	until "$@" >/dev/null 2>&1; do
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "timed out after ${TMQ_TEST_WAIT} s waiting for: $*" >&2
			"$@" >&2 || :
			return 1
		fi
		sleep 0.05
	done
}

# aged_topic TOPIC: create TOPIC and put "old", stamped two hours ago, and
# "new", stamped now (-J --keep-time); sets now to that time, in seconds.
aged_topic() {
	tmq-topic create "$1"
	now=$(date +%s)
	tmq-put -J --keep-time "$1" \
	    "{\"timestamp\":$((now - 7200)),\"payload\":\"old\"}" \
	    "{\"timestamp\":$now,\"payload\":\"new\"}"
}

# gone PID: the process has exited (a zombie of ours counts as exited).
gone() {
	! kill -0 "$1" 2>/dev/null ||
	    [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# --- processes in the background ---------------------------------------
# A test's background processes are ended after it, whatever happened:
# each file's teardown calls end_bg.  Each is known by a file NAME.pid in
# $BATS_TEST_TMPDIR.

# start_bg NAME COMMAND...: run COMMAND in the background, stdout to
# $BATS_TEST_TMPDIR/NAME.out, stderr to NAME.err, its pid in NAME.pid.
start_bg() {
	local name=$1
	shift
	"$@" >"$BATS_TEST_TMPDIR/$name.out" 2>"$BATS_TEST_TMPDIR/$name.err" 3>&- &
	echo $! >"$BATS_TEST_TMPDIR/$name.pid"
}

# lines_in FILE N: FILE is there and has at least N lines.
lines_in() {
	[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]
}

# start_member NAME [TMQ-GET OPTIONS...]: a following member of group G on
# topic ev (--window 1), printing payloads; as start_bg NAME.
start_member() {
	local name=$1
	shift
	start_bg "$name" tmq-get -g G --window 1 -f "$@" ev
}

# track PID: a process started otherwise, ended with the others.
track() {
	echo "$1" >"$BATS_TEST_TMPDIR/track-$1.pid"
}

# stop_bg NAME [SIGNAL]: signal NAME (TERM by default; one that has
# exited already, told so before, is no error), wait for it, and for TERM
# check that it exited 0 with nothing on stderr.
stop_bg() {
	local name=$1 sig=${2:-TERM} pid rc=0
	pid=$(cat "$BATS_TEST_TMPDIR/$name.pid")
	kill "-$sig" "$pid" 2>/dev/null || :
	wait "$pid" || rc=$?
	rm -f "$BATS_TEST_TMPDIR/$name.pid"
	if [ "$sig" = TERM ]; then
		assert_equal "$rc" 0
		assert_equal "$(cat "$BATS_TEST_TMPDIR/$name.err")" ""
	fi
}

# end_bg [SIGNAL]: in teardown, end every process still running: SIGNAL
# (TERM by default; a stopped one is continued first), up to 3 s to go,
# then KILL.  With KILL, at once.
end_bg() {
	local sig=${1:-TERM} f pid i
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		kill -CONT "$pid" 2>/dev/null || :
		kill "-$sig" "$pid" 2>/dev/null || :
	done
	for f in "$BATS_TEST_TMPDIR"/*.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f")
		for ((i = 0; i < 30; i++)); do
			gone "$pid" && break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || :
		rm -f "$f"
	done
}

# --- mounts (as root only) --------------------------------------------
# A test's mounts are undone after it, whatever happened: the teardown of
# each file that mounts calls end_mounts (after end_bg: nothing may still
# hold them).

# mount_tmpfs DIR SIZE: a tmpfs of SIZE on DIR, unmounted by end_mounts.
# Fails (without a word) when we cannot mount.
mount_tmpfs() {
	mkdir -p "$1"
	[ "$(id -u)" = 0 ] || return 1
	mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || return 1
	echo "$1" >>"$BATS_TEST_TMPDIR/.mounts"
}

# other_fs DIR [SIZE]: DIR is a new tmpfs (another file system than the
# root's) of SIZE (64m by default), or the test is skipped.
other_fs() {
	[ "$(id -u)" = 0 ] || skip "needs root (to mount a tmpfs for the archive)"
	mount_tmpfs "$1" "${2:-64m}" || skip "cannot mount a tmpfs here"
}

# end_mounts: in teardown, unmount what mount_tmpfs mounted (lazily when
# it is still busy).
end_mounts() {
	local m
	[ -e "$BATS_TEST_TMPDIR/.mounts" ] || return 0
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || :
	done <"$BATS_TEST_TMPDIR/.mounts"
}

# --- what a command reads ---------------------------------------------

# read_past PID BYTES: process PID has read more than BYTES (rchar).
read_past() {
	local r
	r=$(awk '/^rchar:/ { print $2 }' "/proc/$1/io" 2>/dev/null) || return 1
	[ "${r:-0}" -gt "$2" ]
}

# read_at_most LIMIT COMMAND...: run COMMAND (stdout and stderr into the
# files out and err of the test's directory, its status into $status, what
# it read, all its processes counted, into $read_bytes), and fail saying so
# when it read more than LIMIT bytes.  A command that reads past LIMIT is
# stopped there: a cost bound cannot take minutes to fail.
read_at_most() {
	local limit=$1 t=$BATS_TEST_TMPDIR sub st
	shift
	rm -f "$t/.rpid" "$t/.rstatus" "$t/.rtotal"
	(
		"$@" >"$t/out" 2>"$t/err" &
		echo "$!" >"$t/.rpid"
		st=0
		wait "$!" || st=$?
		echo "$st" >"$t/.rstatus"
		# (what a child read counts to the shell that waited for it)
		awk '/^rchar:/ { print $2 }' "/proc/$BASHPID/io" >"$t/.rtotal"
	) &
	sub=$!
	wait_for _read_stopped "$sub" "$limit"
	wait "$sub" || :
	status=$(cat "$t/.rstatus")
	read_bytes=$(cat "$t/.rtotal")
	if [ "$read_bytes" -gt "$limit" ]; then
		echo "$*: read $read_bytes bytes, more than $limit" >&2
		return 1
	fi
}

# _read_stopped SUBSHELL LIMIT: read_at_most's subshell has ended; its
# command is killed once it has read past LIMIT.
_read_stopped() {
	local pid
	gone "$1" && return 0
	pid=$(cat "$BATS_TEST_TMPDIR/.rpid" 2>/dev/null) || return 1
	! read_past "$pid" "$2" || kill "$pid" 2>/dev/null
	return 1
}

# --- two Unix users: a co-user's attacks -----------------------------

# undo WHAT NAME: note what a test made (a user, group, directory, pid or
# mount) for undo_all, its teardown, to undo whatever happened.
undo() {
	echo "$1 $2" >>"$BATS_TEST_TMPDIR/.undo"
}

# undo_all: undo what undo noted, the last made first (a user goes once
# its processes have).
undo_all() {
	local what name
	[ -f "$BATS_TEST_TMPDIR/.undo" ] || return 0
	tac "$BATS_TEST_TMPDIR/.undo" >"$BATS_TEST_TMPDIR/.undo.rev"
	while read -r what name; do
		case $what in
		user) userdel "$name" 2>/dev/null || : ;;
		group) groupdel "$name" 2>/dev/null || : ;;
		dir) rm -rf "$name" ;;
		pid)
			kill -9 "$name" 2>/dev/null || :
			for _ in $(seq 100); do
				gone "$name" && break
				sleep 0.05
			done ;;
		mount) umount "$name" 2>/dev/null || umount -l "$name" 2>/dev/null || : ;;
		esac
	done <"$BATS_TEST_TMPDIR/.undo.rev"
}

# shared_users: two Unix users in one fresh group (U1, U2, GRP), undone
# by undo_all; SHARED, a fresh directory under /tmp that every user
# reaches; and the six tools in SHARED/bin, where both reach them (the
# build may sit in a directory only its owner can enter).  The test is
# skipped, saying why, without root or useradd and runuser.
shared_users() {
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
	chmod 755 "$SHARED"/bin/*
}

# --- what a command holds in memory -----------------------------------

# A resident set measures what tmq holds only in a build without
# sanitizers: AddressSanitizer's shadow memory and quarantine (freed blocks
# kept from reuse) inflate it by a factor that depends on what the process
# freed, not on what it held.  TMQ_SANITIZED is 1 when the tools under test
# are such a build (ldd finds libasan), else empty; memory bounds are then
# noted, not asserted, and make distcheck (a plain build) asserts them.
if ldd "$TMQ_BIN/tmq-get" 2>/dev/null | grep -q 'libasan'; then
	TMQ_SANITIZED=1
else
	TMQ_SANITIZED=
fi
export TMQ_SANITIZED

# peak_kib COMMAND...: run COMMAND (stdout and stderr into the files out
# and err of the current directory), its peak resident set in KiB into
# $peak, its status into $status.
peak_kib() {
	status=0
	/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/.rss" "$@" >out 2>err ||
	    status=$?
	peak=$(tail -n 1 "$BATS_TEST_TMPDIR/.rss")
}

# assert_peak_below KIB WHAT: $peak (from peak_kib) is below KIB, in a
# plain build; under sanitizers, a note of it on the TAP stream instead.
assert_peak_below() {
	if [ -n "$TMQ_SANITIZED" ]; then
		echo "# $2: $peak KiB under sanitizers (bound of $1 KiB not asserted)" >&3
		return 0
	fi
	[ "$peak" -lt "$1" ] || fail "$2: $peak KiB, not below $1 KiB"
}

# assert_write_error [-i FILE] COMMAND...: COMMAND with standard output on
# /dev/full (and standard input from FILE, else /dev/null) fails with exit
# 1, and its last word on stderr is the write error (the tool's name is
# COMMAND's basename).
assert_write_error() {
	local in=/dev/null
	if [ "$1" = -i ]; then
		in=$2
		shift 2
	fi
	[ -w /dev/full ] || skip "no /dev/full"
	run --separate-stderr bash -c '"$@" <"$0" >/dev/full' "$in" "$@"
	if [ "$status" != 1 ] ||
	    [ "${stderr##*$'\n'}" != "${1##*/}: write error on standard output: No space left on device" ]; then
		fail "$* >/dev/full: exit $status, stderr: $stderr"
	fi
}

# --- option tables (t0100, t0400) -------------------------------------

# _arg_for KIND: an argument that every option of that kind accepts.
_arg_for() {
	case $1 in
	keytype) echo u8 ;;
	dir) echo "$BATS_TEST_TMPDIR" ;;
	file) echo /dev/null ;;
	topic) echo ev ;;
	group) echo G ;;
	from | reset) echo start ;;
	time) echo 1d ;;
	*) echo 1 ;;
	esac
}

# _and_list A,B,C: "A, B and C".
_and_list() {
	local -a w
	IFS=, read -r -a w <<<"$1"
	local n=${#w[@]} i out=""
	for ((i = 0; i < n; i++)); do
		out+=${w[i]}
		if ((i < n - 2)); then
			out+=", "
		elif ((i == n - 2)); then
			out+=" and "
		fi
	done
	printf '%s\n' "$out"
}

# check_option_table TOOL: for every subcommand of TOOL and every option in
# its table (as --completion-helper lists them, both spellings), an option
# that the subcommand does not take is refused, before or after it: exit 2,
# "TOOL: OPT is for SUBS, not SUB", nothing on stdout; one it takes is not.
# Prints every case that went wrong.
check_option_table() {
	local tool=$1 helper subs sub opt kind takers want bad="" n=0 first
	local -a args
	helper=$("$tool" --completion-helper) || fail "$tool --completion-helper failed"
	subs=$(sed -n 's/^operands //p' <<<"$helper")
	[ -n "$subs" ] || fail "$tool: no subcommands"
	while read -r opt kind takers; do
		[[ $opt == -* ]] || continue
		args=("$opt")
		[ "$kind" = none ] || args+=("$(_arg_for "$kind")")
		for sub in $subs; do
			n=$((n + 1))
			if [ -z "$takers" ] || [[ ,$takers, == *",$sub,"* ]]; then
				run --separate-stderr "$tool" "$sub" "${args[@]}"
				if [[ $stderr == *" is for "* ]]; then
					bad+="$tool $sub ${args[*]}: refused: $stderr"$'\n'
				fi
				continue
			fi
			want="$tool: $opt is for $(_and_list "$takers"), not $sub"
			run --separate-stderr "$tool" "$sub" "${args[@]}"
			first=${stderr%%$'\n'*}
			if [ "$status" != 2 ] || [ "$first" != "$want" ] ||
			    [ -n "$output" ]; then
				bad+="$tool $sub ${args[*]}: exit $status: $stderr"$'\n'
			fi
			run --separate-stderr "$tool" "${args[@]}" "$sub"
			first=${stderr%%$'\n'*}
			if [ "$status" != 2 ] || [ "$first" != "$want" ] ||
			    [ -n "$output" ]; then
				bad+="$tool ${args[*]} $sub: exit $status: $stderr"$'\n'
			fi
		done
	done <<<"$helper"
	echo "# $tool: $n option x subcommand cases" >&3
	[ "$n" -gt 0 ] || fail "$tool: no options"
	assert_equal "$bad" ""
}

# --- consumer groups (t0400, t0430, t0500) ----------------------------

# committed [GROUP [ARGS...]]: "P=OFFSET" per committed partition, in order.
committed() {
	tmq-group describe --json "${@:-G}" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%s=%s" % (p, o) for p, o in
    sorted(d["committed"].items(), key=lambda kv: int(kv[0]))))'
}

# log_length [GROUP]: lines in the group's log.
log_length() {
	tmq-dump -J -- "--group--${1:-G}" | wc -l
}

# settled N NPARTS [GROUP [DESCRIBE-OPTIONS...]]: the group is stable with
# N members owning NPARTS partitions between them, each exactly once (by
# describe --json), and each member's last REBALCONFIRM, written after the
# ENDREBAL that closed the last rebalance, holds what describe says
# (tests/group-settled.py, make bench's rule too).  Prints "ID:P,P ID:P,P".
settled() {
	local n=$1 nparts=$2 group=${3:-G}
	shift 3 2>/dev/null || shift $#
	tmq-group describe --json "$group" "$@" >"$BATS_TEST_TMPDIR/describe.json" &&
	    tmq-dump -J -- "--group--$group" >"$BATS_TEST_TMPDIR/log.jsonl" &&
	    python3 "$BATS_TEST_DIRNAME/group-settled.py" "$n" "$nparts" \
		"$BATS_TEST_TMPDIR/describe.json" "$BATS_TEST_TMPDIR/log.jsonl"
}

# require_ref: make the TwainMQ Python library (0.1.9) importable for the
# rest of the test, as `python3 ... import twainmq`, or skip the test
# saying why.  The library comes from TWAINMQ_REF, a checkout of its
# repository (its src/ goes on PYTHONPATH; a checkout that does not import
# fails the test), else from an installation for python3 on PATH or for
# /usr/bin/python3 (which then becomes python3 on PATH).  tests/refshim
# goes on PYTHONPATH too: the two stand-ins the library needs to import on
# Linux.  A library of another version is skipped: tmq is checked against
# 0.1.9 only.
TMQ_REF_VERSION=0.1.9
require_ref() {
	local shim=$BATS_TEST_DIRNAME/refshim py="" out
	# No __pycache__ in the source tree (read-only under distcheck).
	export PYTHONDONTWRITEBYTECODE=1
	# Prints the imported library's version and directory: a checkout's
	# version is in its pyproject.toml, an installation's in its metadata.
	local probe='
import os, re, twainmq
d = os.path.dirname(os.path.abspath(twainmq.__file__))
pp = os.path.join(d, os.pardir, os.pardir, "pyproject.toml")
m = None
if os.path.isfile(pp):
    with open(pp, encoding="utf-8") as f:
        m = re.search(r"^version\s*=\s*\"([^\"]*)\"", f.read(), re.M)
if m:
    v = m.group(1)
else:
    try:
        import importlib.metadata
        v = importlib.metadata.version("twainmq")
    except Exception:
        v = "of an unknown version"
print(v, d)'
	if [ -n "${TWAINMQ_REF-}" ]; then
		export PYTHONPATH="$TWAINMQ_REF/src:$shim${PYTHONPATH:+:$PYTHONPATH}"
		out=$(python3 -c "$probe" 2>&1) ||
		    fail "TWAINMQ_REF=$TWAINMQ_REF: the library does not import: ${out##*$'\n'}"
		[[ ${out#* } == "$(cd "$TWAINMQ_REF" && pwd -P)/src/twainmq" ]] ||
		    fail "TWAINMQ_REF=$TWAINMQ_REF is not a checkout of the TwainMQ library (python3 imported ${out#* })"
	else
		export PYTHONPATH="$shim${PYTHONPATH:+:$PYTHONPATH}"
		for py in python3 /usr/bin/python3; do
			out=$("$py" -c "$probe" 2>/dev/null) && break
			py=""
		done
		[ -n "$py" ] || skip "TWAINMQ_REF (a checkout of the TwainMQ library) is not set and the library is not installed for python3 or /usr/bin/python3: library interop not tested"
		if [ "$py" != python3 ]; then
			mkdir -p "$BATS_TEST_TMPDIR/refpy"
			ln -sf "$py" "$BATS_TEST_TMPDIR/refpy/python3"
			PATH=$BATS_TEST_TMPDIR/refpy:$PATH
		fi
	fi
	[ "${out%% *}" = "$TMQ_REF_VERSION" ] ||
	    skip "the TwainMQ library at ${out#* } is ${out%% *}: the interop tests are checked against $TMQ_REF_VERSION only"
}

# assert_strict_jsonl FILE: every line of FILE is one JSON value by the
# letter of RFC 8259, as Debian's python3 reads it with NaN and Infinity
# refused and every string checked for lone surrogates (json.loads lets
# both through); and, when jq is installed, jq reads every line too.
assert_strict_jsonl() {
	local py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	run "$py" - "$1" <<'EOF'
import json, sys

def no_constant(name):
    raise ValueError("not JSON: " + name)

def walk(v):
    if isinstance(v, str):
        v.encode("utf-8")   # a lone surrogate cannot be encoded
    elif isinstance(v, list):
        for x in v:
            walk(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(k)
            walk(x)

bad = n = 0
for n, line in enumerate(open(sys.argv[1], "rb"), 1):
    try:
        walk(json.loads(line.decode("utf-8"), parse_constant=no_constant))
    except (ValueError, UnicodeError) as e:
        print("line %d: %s" % (n, e))
        bad += 1
print("%d lines, %d not strict JSON" % (n, bad))
sys.exit(1 if bad else 0)
EOF
	assert_success
	if command -v jq >/dev/null; then
		run jq -c . "$1"
		assert_success
		[ "${#lines[@]}" -eq "$(wc -l <"$1")" ] ||
		    fail "jq read ${#lines[@]} values from $(wc -l <"$1") lines"
	fi
}

# require_strace: skip unless strace is here and may trace; LeakSanitizer
# (which cannot run under ptrace) off for the test's tools.
require_strace() {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -o /dev/null true ||
	    skip "strace cannot trace here (ptrace not permitted)"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}
