#!/usr/bin/env bats
# t0970-configure: configure says plainly that tmq needs Linux (inotify,
# openat2, OFD locks), and stops, before it looks at anything else: on a
# host that is not Linux (--host, a cross build for FreeBSD here) it exits
# 1 with that one error, whatever compilers are there.

load test_helper

@test "configure: a host that is not Linux: 'tmq needs Linux', exit 1" {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	[ -x "$src/configure" ] || skip "no configure in $src (run autoreconf -fi)"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "$src/configure" --host=x86_64-unknown-freebsd14.0
	assert_failure 1
	assert_equal "$stderr" "configure: error: tmq needs Linux (inotify, openat2, OFD locks); this host is freebsd14.0"
	[ ! -e config.status ]
	[ ! -e Makefile ]
}
