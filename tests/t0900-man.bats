#!/usr/bin/env bats
# t0900-man.bats: the manual pages.  mandoc -Tlint -Wwarning finds nothing
# in any of them; each tool's page documents every option that the tool's
# --completion-helper lists, and its SYNOPSIS is the tool's usage (-h),
# word for word; man(1) renders them.

load test_helper

MANDIR=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}/man
TOOLS="tmq-topic tmq-put tmq-get tmq-group tmq-commit tmq-dump"

need_mandoc() {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
}

# render PAGE: the page as plain text, too wide to wrap, no overstrike.
render() {
	mandoc -T ascii -O width=1000 "$1" | sed 's/.\x08//g'
}

# check_options TOOL: every option that TOOL lists for completion is the
# tag of an item in TOOL's page ("-k, --key-type TYPE", "--json").
check_options() {
	local tool=$1 page=$MANDIR/$1.1 text opt missing=""
	need_mandoc
	run --separate-stderr "$tool" --completion-helper
	assert_success
	[ -n "$output" ]
	text=$(render "$page")
	while read -r opt _; do
		case $opt in
		operands) continue ;;
		--*)
			grep -Eq -- "^ +(-[^ ], )?$opt( |,|\$)" <<<"$text" ||
			    missing+=" $opt" ;;
		-?)
			grep -Eq -- "^ +$opt(, | |\$)" <<<"$text" ||
			    missing+=" $opt" ;;
		esac
	done <<<"$output"
	assert_equal "undocumented in $tool.1:$missing" "undocumented in $tool.1:"
}

# check_synopsis TOOL: the SYNOPSIS of TOOL's page is its usage lines.
check_synopsis() {
	local tool=$1 page=$MANDIR/$1.1 usage synopsis
	need_mandoc
	run --separate-stderr "$tool" -h
	assert_success
	usage=$(sed -e '/^$/,$d' -e 's/^usage://' <<<"$output" | tr -s ' \n' '  ' |
	    sed 's/^ //; s/ $//')
	synopsis=$(render "$page" |
	    sed -n '/^SYNOPSIS$/,/^[A-Z]/{/^[A-Z]/d;p;}' | tr -s ' \n' '  ' |
	    sed 's/^ //; s/ $//')
	[ -n "$usage" ]
	assert_equal "$synopsis" "$usage"
}

@test "there is a page for every tool, tmq-format.5 and tmq.7" {
	local t
	for t in $TOOLS; do
		[ -f "$MANDIR/$t.1" ] || fail "missing $MANDIR/$t.1"
	done
	[ -f "$MANDIR/tmq.7" ] || fail "missing $MANDIR/tmq.7"
	[ -f "$MANDIR/tmq-format.5" ] || fail "missing $MANDIR/tmq-format.5"
}

@test "mandoc -Tlint -Wwarning finds nothing in any page" {
	need_mandoc
	local page bad=""
	for page in "$MANDIR"/*.1 "$MANDIR"/*.5 "$MANDIR"/*.7; do
		run mandoc -T lint -W warning "$page"
		if [ "$status" -ne 0 ] || [ -n "$output" ]; then
			bad+="$output (exit $status)"$'\n'
		fi
	done
	assert_equal "$bad" ""
}

@test "man renders every page" {
	command -v man >/dev/null || skip "man is not installed"
	local page
	for page in "$MANDIR"/*.1 "$MANDIR"/*.5 "$MANDIR"/*.7; do
		run env MANPAGER=cat MANWIDTH=80 man -l "$page"
		assert_success
		assert_line --regexp '^NAME'
		assert_line --regexp '^SYNOPSIS|^DESCRIPTION'
	done
}

@test "tmq-topic.1 documents every option" { check_options tmq-topic; }
@test "tmq-put.1 documents every option" { check_options tmq-put; }
@test "tmq-get.1 documents every option" { check_options tmq-get; }
@test "tmq-group.1 documents every option" { check_options tmq-group; }
@test "tmq-commit.1 documents every option" { check_options tmq-commit; }
@test "tmq-dump.1 documents every option" { check_options tmq-dump; }

@test "tmq-topic.1 SYNOPSIS is the usage" { check_synopsis tmq-topic; }
@test "tmq-put.1 SYNOPSIS is the usage" { check_synopsis tmq-put; }
@test "tmq-get.1 SYNOPSIS is the usage" { check_synopsis tmq-get; }
@test "tmq-group.1 SYNOPSIS is the usage" { check_synopsis tmq-group; }
@test "tmq-commit.1 SYNOPSIS is the usage" { check_synopsis tmq-commit; }
@test "tmq-dump.1 SYNOPSIS is the usage" { check_synopsis tmq-dump; }

@test "TMQ_FOLLOW=poll: every page that says how often a follower looks says the interval lib/flow/consumer.c polls at" {
	need_mandoc
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..} ms said page
	ms=$(sed -n 's/^#define POLL_INTERVAL_MS \([0-9]*\)$/\1/p' "$src/lib/flow/consumer.c")
	[ -n "$ms" ]
	# (tmq-get(1) under -f and tmq(7) ENVIRONMENT said every second.)
	said=$(for page in "$MANDIR"/*.[157]; do
		render "$page" | tr -s ' \n' '  ' |
		    grep -oE '(looks? (again|for new (messages|lines))|polls?) every ([0-9]+ )?[a-z]+' || :
	done | sort | uniq -c)
	[ -n "$said" ]
	run grep -v " every $ms milliseconds\$" <<<"$said"
	assert_output ''
	[ "$(wc -l <<<"$said")" -ge 3 ]
}
