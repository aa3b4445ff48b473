#!/usr/bin/env bats
# t0905-man-examples: every command of every page's EXAMPLES runs as
# written, in order, page by page, so the pages cannot rot (t0950 does the
# same for the README).  Each page runs in bash -e -o pipefail in a scratch
# directory of its own, which is also HOME, with TMQ_ROOT a fresh root in
# it.  Three stand-ins, as the README's tests have: ssh HOST COMMAND runs
# COMMAND here (the other machine); kcat, without TMQ_TEST_KAFKA_BROKER,
# reads nothing from Kafka; and a follower that runs until interrupted
# (tmq-get -f, tmq-put --follow, in the foreground or under ssh) is
# interrupted (SIGINT) after two seconds, the backgrounded ones when the
# page is done.

load test_helper

MANDIR=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}/man

# run_examples PAGE: run PAGE's examples; $output and $status are
# bash's, stderr included.
run_examples() {
	local page=$MANDIR/$1 dir=$BATS_TEST_TMPDIR/$1 shims
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	mkdir -p "$dir/.shims"
	shims=$dir/.shims
	cat >"$shims/ssh" <<'SH'
#!/bin/sh
# ssh HOST COMMAND...: the other machine is this one; a follower there is
# interrupted after two seconds, as below.
shift
case " $* " in
*" -f "*|*" --follow "*)
	timeout -s INT 2 sh -c "$*"
	rc=$?
	[ "$rc" = 124 ] && exit 0
	exit "$rc" ;;
esac
exec sh -c "$*"
SH
	if [ -z "${TMQ_TEST_KAFKA_BROKER:-}" ]; then
		cat >"$shims/kcat" <<'SH'
#!/bin/sh
# No Kafka broker: a consumer reads nothing, a producer takes it all.
echo "kcat $*: no broker (TMQ_TEST_KAFKA_BROKER), nothing read" >>"$HOME/.kcat-skipped"
case " $* " in *" -P "*) cat >/dev/null ;; esac
exit 0
SH
	fi
	chmod +x "$shims"/*
	mandoc -T ascii -O width=1000 "$page" | sed 's/.\x08//g' |
	    awk -f "$BATS_TEST_DIRNAME/man-examples.awk" >"$dir/examples.txt"
	[ -s "$dir/examples.txt" ] || fail "$1: no examples found"
	# Nothing outside the scratch directory: no absolute path but
	# /dev/null (a page names its own directories relative, or under
	# $TMQ_ROOT or $HOME).
	! grep -nE '(^|[ =<>])["'\'']?/[a-z]' "$dir/examples.txt" | grep -v '/dev/null' ||
	    fail "$1: an example names an absolute path"
	# A follower (tmq-get -f, tmq-put --follow) in the foreground is
	# stopped after two seconds as a user would stop it (SIGINT); those
	# in the background when the page is done.
	{
		cat <<'SH'
trap 'kill $(jobs -p) 2>/dev/null || :' EXIT
follower() {
	local tool=$1
	shift
	case " $* " in
	*" -f "*|*" --follow "*)
		timeout -s INT 2 "$tool" "$@" || [ $? = 124 ] ;;
	*) command "$tool" "$@" ;;
	esac
}
tmq-get() { follower tmq-get "$@"; }
tmq-put() { follower tmq-put "$@"; }
SH
		cat "$dir/examples.txt"
	} >"$dir/examples.sh"
	cd "$dir"
	run env -u TMQ_ROOT HOME="$dir" TMQ_ROOT="$dir/root" \
	    PATH="$shims:$TMQ_BIN:$PATH" bash -e -o pipefail examples.sh
	echo "$output"
	[ ! -e "$dir/.kcat-skipped" ] || sed 's/^/# /' "$dir/.kcat-skipped" >&3
}

@test "tmq-topic(1)'s examples run as written" {
	run_examples tmq-topic.1
	assert_success
}

@test "tmq-put(1)'s examples run as written" {
	run_examples tmq-put.1
	assert_success
}

@test "tmq-get(1)'s examples run as written" {
	run_examples tmq-get.1
	assert_success
}

@test "tmq-group(1)'s examples run as written" {
	run_examples tmq-group.1
	assert_success
}

@test "tmq-commit(1)'s examples run as written" {
	run_examples tmq-commit.1
	assert_success
}

@test "tmq-dump(1)'s examples run as written" {
	run_examples tmq-dump.1
	assert_success
}

@test "tmq(7)'s examples run as written" {
	run_examples tmq.7
	assert_success
}

@test "every page but tmq-format(5) has examples, and each is run above" {
	local p n
	for p in "$MANDIR"/*.[157]; do
		n=${p##*/}
		[ "$n" = tmq-format.5 ] && continue
		grep -q '^\.Sh EXAMPLES' "$p" || fail "$n has no EXAMPLES"
		grep -qF "run_examples $n" "$BATS_TEST_FILENAME" || fail "$n's examples are not run"
	done
}
