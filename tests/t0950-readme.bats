#!/usr/bin/env bats
# t0950-readme: every command in README.md runs as written, so the README
# cannot rot.  The tour and cookbook blocks run in order in one bash, in a
# scratch directory whose bin/ is the tools under test; the two set-up
# commands at the top are what .ci/run runs.  The kcat block reaches a
# Kafka broker only when TMQ_TEST_KAFKA_BROKER names one.

load test_helper

@test "README: the tour and the cookbook run as written" {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	cd "$BATS_TEST_TMPDIR"
	ln -s "$TMQ_BIN" bin
	# The cookbook reads the reference root as tests/vectors/root.
	mkdir tests
	ln -s "$VECTORS" tests/vectors
	awk -f "$src/tests/readme-blocks.awk" "$src/README.md" >readme.sh
	[ -s readme.sh ]
	# The kcat block talks to a Kafka broker only when the test is given
	# one (TMQ_TEST_KAFKA_BROKER); a KAFKA_BROKER from the caller's shell
	# is not the test's to use.
	if [ -n "${TMQ_TEST_KAFKA_BROKER:-}" ]; then
		KAFKA_BROKER=$TMQ_TEST_KAFKA_BROKER run bash -e readme.sh
	else
		run env -u KAFKA_BROKER bash -e readme.sh
	fi
	echo "$output"
	assert_success
	if [ -n "${TMQ_TEST_KAFKA_BROKER:-}" ]; then
		refute_output --partial 'kcat example skipped'
	else
		assert_output --partial 'kcat example skipped: KAFKA_BROKER is not set'
	fi
	# A few of the results the tour promises.
	assert_output --partial 'A-17 => {"id":17,"item":"pear","qty":3}'
	assert_output --partial 'ERROR disk almost full'
	assert_output --partial 'restored exactly'
	assert_output --partial 'copied exactly'
	assert_output --partial 'mirrored exactly'
	assert_output --partial 'followed: GET /a,GET /b,GET /c,GET /d'
	assert_output --partial 'the loaders have the batch'
	assert_output --partial '{"topic":"u32t","partition":0,"offset":0,"key":0,"timestamp":1795597235.271,"type":"str","payload":"{\"json\": [1,2,3]} 748175"}'
	grep -aq 'handled {"user":"ann","event":"login"}' handled.log
	grep -q '"event":"click"' followed.txt
	# The monitoring block's metrics, and the alert rules name metrics
	# that it printed.
	grep -q '^tmq_partition_end_offset{topic="events",partition="0"} ' tmq-topics.prom
	run awk '/^```yaml$/, /^```$/' "$src/README.md"
	names=$(grep -o 'tmq_[a-z_]*' <<<"$output" | sort -u)
	[ "$(wc -w <<<"$names")" -ge 2 ]
	for m in $names; do
		grep -q "^$m{" tmq.prom
	done
}

@test "README: the kcat block runs against a broker only when one is given" {
	if [ -z "${TMQ_TEST_KAFKA_BROKER:-}" ]; then
		skip "no Kafka broker: set TMQ_TEST_KAFKA_BROKER=host:port to run the README's kcat block against one"
	fi
	command -v kcat >/dev/null || fail "TMQ_TEST_KAFKA_BROKER is set but kcat is not installed"
	# The broker answers; the tour's test above ran the block against it.
	run kcat -L -b "$TMQ_TEST_KAFKA_BROKER" -t events-copy
	assert_success
}

@test "README: the set-up commands are the ones .ci/run runs" {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	run awk '/^```sh$/ { getline; print; n++ } n == 2 { exit }' "$src/README.md"
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	grep -qxF -- "${lines[0]}" "$src/.ci/run"
	grep -qxF -- "${lines[1]}" "$src/.ci/run"
}

@test "README's build: aclocal (the first step of autoreconf -fi) warns of nothing in configure.ac" {
	command -v aclocal >/dev/null || skip "aclocal (automake) is not installed"
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	cd "$BATS_TEST_TMPDIR"
	cp "$src/configure.ac" .
	run aclocal -Wall
	assert_success
	assert_output ''
}
