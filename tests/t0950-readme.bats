#!/usr/bin/env bats
# t0950-readme: every command in README.md runs as written, so the README
# cannot rot.  The tour and cookbook blocks run in order in one bash, in a
# scratch directory whose bin/ is the tools under test; the two set-up
# commands at the top are what .ci/run runs.

load test_helper

@test "README: the tour and the cookbook run as written" {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	cd "$BATS_TEST_TMPDIR"
	ln -s "$TMQ_BIN" bin
	awk -f "$src/tests/readme-blocks.awk" "$src/README.md" >readme.sh
	[ -s readme.sh ]
	TMQ_VECTORS=$VECTORS run bash -e readme.sh
	echo "$output"
	assert_success
	# A few of the results the tour promises.
	assert_output --partial 'A-17 => {"id":17,"item":"pear","qty":3}'
	assert_output --partial 'ERROR disk almost full'
	grep -aq 'handled {"user":"ann","event":"login"}' handled.log
	grep -q '"event":"click"' followed.txt
}

@test "README: the set-up commands are the ones .ci/run runs" {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	run awk '/^```sh$/ { getline; print; n++ } n == 2 { exit }' "$src/README.md"
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	grep -qxF -- "${lines[0]}" "$src/.ci/run"
	grep -qxF -- "${lines[1]}" "$src/.ci/run"
}
