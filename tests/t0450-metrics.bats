#!/usr/bin/env bats
# t0450-metrics: tmq-topic list --prometheus and tmq-group list --prometheus
# print Prometheus' text exposition format, as node_exporter's textfile
# collector reads it.  Every output is read by a real parser (Debian's
# python3-prometheus-client, under /usr/bin/python3: the python3 on PATH
# may be another) and checked by value against what the test set up:
# offsets, bytes and times of partitions written with known timestamps;
# commits, lag, owners, members and a rebalance of groups.

load test_helper

teardown() {
	end_bg
}

require_parser() {
	/usr/bin/python3 -c 'import prometheus_client.parser' 2>/dev/null ||
	    skip "Debian's python3-prometheus-client is not installed (apt-get install -y python3-prometheus-client)"
}

# prom_parse: parse stdin with prometheus_client; print per family
# "# NAME TYPE HELP", then per sample "NAME{k="v",...} VALUE" (labels
# sorted, integral values as integers).  Also checks what the parser lets
# pass: every sample has HELP and TYPE before it, each family appears in
# one block, names and labels are well formed.  The scrape's own families
# (tmq_scrape_*, tmq_*_scrape_error) are left out unless PROM_SCRAPE=1,
# the time of the scrape shown as "T" unless PROM_SCRAPE_TIME is set.
prom_parse() {
	PROM_SCRAPE=${PROM_SCRAPE-} PROM_SCRAPE_TIME=${PROM_SCRAPE_TIME-} /usr/bin/python3 -c '
import os, re, sys
from prometheus_client.parser import text_string_to_metric_families
text = sys.stdin.read()
seen, last = set(), None
for line in text.splitlines():
    if line.startswith("# HELP ") or line.startswith("# TYPE "):
        continue
    assert not line.startswith("#") or line.startswith("# "), line
    if line.startswith("#"):
        continue
    name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0)
    assert name.startswith("tmq_"), name
    if name != last:
        assert name not in seen, "family %s in two blocks" % name
        assert ("# TYPE %s gauge" % name) in text or (
            ("# TYPE %s counter" % name) in text and name.endswith("_total")), name
        seen.add(name)
        last = name
for fam in text_string_to_metric_families(text):
    scrape = fam.name.startswith("tmq_scrape_") or fam.name.endswith("_scrape_error")
    if scrape and not os.environ["PROM_SCRAPE"]:
        continue
    print("# %s %s %s" % (fam.name, fam.type, fam.documentation))
    for s in fam.samples:
        v = int(s.value) if s.value == int(s.value) else s.value
        if s.name == "tmq_scrape_timestamp_seconds" and not os.environ["PROM_SCRAPE_TIME"]:
            v = "T"
        labels = ",".join("%s=\"%s\"" % kv for kv in sorted(s.labels.items()))
        print("%s{%s} %s" % (s.name, labels, v))
'
}

# --- topics -------------------------------------------------------------

@test "tmq-topic list --prometheus: per partition end and first offsets, bytes, newest message time" {
	require_parser
	local d=$TMQ_ROOT/ev
	tmq-topic create ev -k u8 -p 3
	tmq-topic create empty -k u32
	# Partition 0: two day files, the first from offset 0, the second
	# (after a prune) from offset 5.  Partition 1: one file.  Partition 2:
	# nothing.
	tmq_write_line "$d" 0-20261125_5.tmf u8 0 1795597200.25 a5
	tmq_write_line "$d" 0-20261125_5.tmf u8 0 1795597201 a6
	tmq_write_line "$d" 0-20261126_7.tmf u8 0 1795683600.5 a7
	tmq_write_line "$d" 1-20261125_0.tmf u8 1 1795597300 b0
	b0=$(wc -c <"$d/0-20261125_5.tmf") b1=$(wc -c <"$d/0-20261126_7.tmf")
	b2=$(wc -c <"$d/1-20261125_0.tmf")
	run --separate-stderr tmq-topic list --prometheus
	assert_success
	assert_stderr ""
	run prom_parse <<<"$output"
	assert_success
	assert_output "# tmq_partition_end_offset gauge Offset the next message put to the partition will take.
tmq_partition_end_offset{partition=\"0\",topic=\"empty\"} 0
tmq_partition_end_offset{partition=\"0\",topic=\"ev\"} 8
tmq_partition_end_offset{partition=\"1\",topic=\"ev\"} 1
tmq_partition_end_offset{partition=\"2\",topic=\"ev\"} 0
# tmq_partition_first_offset gauge Offset of the oldest message still on disk (pruning raises it).
tmq_partition_first_offset{partition=\"0\",topic=\"empty\"} 0
tmq_partition_first_offset{partition=\"0\",topic=\"ev\"} 5
tmq_partition_first_offset{partition=\"1\",topic=\"ev\"} 0
tmq_partition_first_offset{partition=\"2\",topic=\"ev\"} 0
# tmq_partition_size_bytes gauge Bytes in the partition's files.
tmq_partition_size_bytes{partition=\"0\",topic=\"empty\"} 0
tmq_partition_size_bytes{partition=\"0\",topic=\"ev\"} $((b0 + b1))
tmq_partition_size_bytes{partition=\"1\",topic=\"ev\"} $b2
tmq_partition_size_bytes{partition=\"2\",topic=\"ev\"} 0
# tmq_partition_newest_message_timestamp_seconds gauge Time of the partition's newest message, in Unix seconds.
tmq_partition_newest_message_timestamp_seconds{partition=\"0\",topic=\"ev\"} 1795683600.5
tmq_partition_newest_message_timestamp_seconds{partition=\"1\",topic=\"ev\"} 1795597300"
}

@test "tmq-topic list --prometheus: the exposition text as node_exporter reads it" {
	tmq-topic create ev -k u8
	tmq-put ev one
	run --separate-stderr tmq-topic list --prometheus
	assert_success
	assert_line --index 0 '# HELP tmq_partition_end_offset Offset the next message put to the partition will take.'
	assert_line --index 1 '# TYPE tmq_partition_end_offset gauge'
	assert_line --index 2 'tmq_partition_end_offset{topic="ev",partition="0"} 1'
	# Every line is a HELP, a TYPE or a sample; the last ends with a newline.
	run grep -cEv '^(# (HELP|TYPE) tmq_[a-z_]+ .+|tmq_[a-z_]+\{[a-z]+="[^"]*"(,[a-z]+="[^"]*")*\} [0-9.]+)$' \
	    <(tmq-topic list --prometheus)
	assert_output 0
	[ "$(tmq-topic list --prometheus | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ]
}

@test "tmq-topic list --prometheus on an empty root prints only the scrape's own metrics: no error, and when" {
	require_parser
	mkdir -p "$TMQ_ROOT"
	run --separate-stderr tmq-topic list --prometheus
	assert_success
	assert_stderr ""
	PROM_SCRAPE=1 run prom_parse <<<"$output"
	assert_output "# tmq_scrape_errors gauge Topics or groups this scrape could not measure, or not all of.
tmq_scrape_errors{scrape=\"topics\"} 0
# tmq_scrape_timestamp_seconds gauge Time this scrape was taken, in Unix seconds.
tmq_scrape_timestamp_seconds{scrape=\"topics\"} T"
}

@test "--prometheus excludes -l and --json, and belongs to list only" {
	tmq-topic create ev
	run --separate-stderr tmq-topic list --prometheus --json
	assert_usage_error tmq-topic "--prometheus and --json exclude each other"
	run --separate-stderr tmq-topic list -l --prometheus
	assert_usage_error tmq-topic "--prometheus and -l exclude each other"
	run --separate-stderr tmq-group list --json --prometheus
	assert_usage_error tmq-group "--prometheus and --json exclude each other"
	run --separate-stderr tmq-topic info ev --prometheus
	assert_equal "$status" 2
	[[ $stderr == *"--prometheus"* ]]
	run --separate-stderr tmq-group describe G --prometheus
	assert_equal "$status" 2
	[[ $stderr == *"--prometheus"* ]]
}

@test "--prometheus reports a failed write to standard output" {
	tmq-topic create ev
	tmq-put ev one
	tmq-get -g G -P 0 -n 1 ev >/dev/null
	run --separate-stderr bash -c 'tmq-topic list --prometheus >/dev/full'
	assert_failure 1
	assert_stderr "tmq-topic: write error on standard output: No space left on device"
	run --separate-stderr bash -c 'tmq-group list --prometheus >/dev/full'
	assert_failure 1
	assert_stderr "tmq-group: write error on standard output: No space left on device"
}

# --- groups ---------------------------------------------------------------

# one_owns_all: group G is stable, member 1 owning partitions 0, 1, 2.
one_owns_all() {
	tmq-group describe --json G | grep -q "\"state\":\"stable\",.*\"members\":{\"1\":\[0,1,2\]}"
}

@test "tmq-group list --prometheus: committed offsets, lag and owners per partition; members and rebalancing per group" {
	require_parser
	tmq-topic create ev -k u32 -p 3
	# Keys 1..30 spread over the three partitions.
	seq 1 30 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	ends=$(tmq-topic info --json ev | /usr/bin/python3 -c '
import json, sys
print(" ".join(str(p["end"]) for p in json.load(sys.stdin)["partitions"]))')
	read -r e0 e1 e2 <<<"$ends"
	# Group C: at 2 on partition 0, 0 on partition 1 (where a new group
	# starts) and 1 on partition 2, no members.
	tmq-get -g C -P 0 -n 1 ev >/dev/null
	tmq-commit --next C 0 2 2 1
	# Group G: one member that owns every partition.
	tmq-get -g G --window 1 -f ev >/dev/null 2>"$BATS_TEST_TMPDIR/member.err" 3>&- &
	STOP_PIDS=$!
	track "$STOP_PIDS"
	wait_for one_owns_all

	run --separate-stderr tmq-group list --prometheus
	assert_success
	assert_stderr ""
	run prom_parse <<<"$output"
	assert_success
	assert_output "# tmq_group_members gauge Members holding a share of the group's partitions.
tmq_group_members{group=\"C\",topic=\"ev\"} 0
tmq_group_members{group=\"G\",topic=\"ev\"} 1
# tmq_group_rebalancing gauge 1 while a rebalance of the group is in progress, else 0.
tmq_group_rebalancing{group=\"C\",topic=\"ev\"} 0
tmq_group_rebalancing{group=\"G\",topic=\"ev\"} 0
# tmq_group_committed_offset gauge Offset the group has committed for the partition (where it has).
tmq_group_committed_offset{group=\"C\",partition=\"0\",topic=\"ev\"} 2
tmq_group_committed_offset{group=\"C\",partition=\"1\",topic=\"ev\"} 0
tmq_group_committed_offset{group=\"C\",partition=\"2\",topic=\"ev\"} 1
tmq_group_committed_offset{group=\"G\",partition=\"0\",topic=\"ev\"} 0
tmq_group_committed_offset{group=\"G\",partition=\"1\",topic=\"ev\"} 0
tmq_group_committed_offset{group=\"G\",partition=\"2\",topic=\"ev\"} 0
# tmq_group_lag gauge Messages of the partition after the group's committed offset.
tmq_group_lag{group=\"C\",partition=\"0\",topic=\"ev\"} $((e0 - 2))
tmq_group_lag{group=\"C\",partition=\"1\",topic=\"ev\"} $e1
tmq_group_lag{group=\"C\",partition=\"2\",topic=\"ev\"} $((e2 - 1))
tmq_group_lag{group=\"G\",partition=\"0\",topic=\"ev\"} $e0
tmq_group_lag{group=\"G\",partition=\"1\",topic=\"ev\"} $e1
tmq_group_lag{group=\"G\",partition=\"2\",topic=\"ev\"} $e2
# tmq_group_partition_owned gauge 1 when a member of the group not known dead owns the partition, else 0.
tmq_group_partition_owned{group=\"C\",partition=\"0\",topic=\"ev\"} 0
tmq_group_partition_owned{group=\"C\",partition=\"1\",topic=\"ev\"} 0
tmq_group_partition_owned{group=\"C\",partition=\"2\",topic=\"ev\"} 0
tmq_group_partition_owned{group=\"G\",partition=\"0\",topic=\"ev\"} 1
tmq_group_partition_owned{group=\"G\",partition=\"1\",topic=\"ev\"} 1
tmq_group_partition_owned{group=\"G\",partition=\"2\",topic=\"ev\"} 1"

	# A rebalance that the member cannot answer (it is stopped) is in
	# progress, with an hour's window: no clock to race.
	kill -STOP "$STOP_PIDS"
	tmq-group rebalance G --window 3600
	run --separate-stderr tmq-group list --prometheus
	assert_success
	assert_line 'tmq_group_rebalancing{group="G",topic="ev"} 1'
	assert_line 'tmq_group_rebalancing{group="C",topic="ev"} 0'
	kill -CONT "$STOP_PIDS"
}

@test "tmq-group list --prometheus: the library's group, whose topic is not recorded, says so in a comment" {
	require_vectors
	run --separate-stderr tmq-group list --prometheus -d "$VECTORS/root"
	assert_success
	assert_line --regexp '^# group "workers": '
	assert_line 'tmq_group_rebalancing{group="workers",topic=""} 0'
	refute_line --regexp '^tmq_group_lag\{group="workers"'
}

@test "tmq-group list --prometheus on a root with no group prints only the scrape's own metrics" {
	require_parser
	tmq-topic create ev
	run --separate-stderr tmq-group list --prometheus
	assert_success
	assert_stderr ""
	PROM_SCRAPE=1 run prom_parse <<<"$output"
	assert_output "# tmq_scrape_errors gauge Topics or groups this scrape could not measure, or not all of.
tmq_scrape_errors{scrape=\"groups\"} 0
# tmq_scrape_timestamp_seconds gauge Time this scrape was taken, in Unix seconds.
tmq_scrape_timestamp_seconds{scrape=\"groups\"} T"
}

# --- what a scrape could not measure ----------------------------------------

# scrape_time_between T0 T1: the scrape's time in $output (prom_parse's,
# with PROM_SCRAPE_TIME) is within [T0, T1].
scrape_time_between() {
	local t
	t=$(sed -n 's/^tmq_scrape_timestamp_seconds{[^}]*} //p' <<<"$output")
	[ -n "$t" ] || { echo "no tmq_scrape_timestamp_seconds in: $output"; return 1; }
	awk -v t="$t" -v a="$1" -v b="$2" 'BEGIN { exit !(t >= a && t <= b + 1) }' ||
	    { echo "scrape time $t not within [$1, $2]"; return 1; }
}

@test "tmq-group list --prometheus with a group whose topic was deleted: every other group published, the failed one said in the metrics, exit 0; the README's recipe moves the file" {
	require_parser
	local t0 t1 recipe
	tmq-topic create a
	tmq-topic create x -p 2
	tmq-put a m1 m2
	tmq-put x n1
	tmq-get -g ga -n 1 a >/dev/null
	tmq-get -g gx -n 1 x >/dev/null
	# (It keeps gx: tmq-topic delete keeps a topic's groups.)
	tmq-topic delete x -y 2>/dev/null
	t0=$(date +%s)
	run --separate-stderr tmq-group list --prometheus
	t1=$(date +%s)
	# It was exit 1, so "... > tmq.prom.tmp && mv ..." never moved the
	# file again and every group's metrics froze without a word.
	assert_success
	assert_stderr "tmq-group: x: no such topic"
	assert_line '# group "gx": its topic cannot be read: no partition metrics'
	PROM_SCRAPE=1 PROM_SCRAPE_TIME=1 run prom_parse <<<"$output"
	assert_success
	assert_output --partial "tmq_group_lag{group=\"ga\",partition=\"0\",topic=\"a\"} 2
# tmq_group_partition_owned"
	assert_output --partial "# tmq_group_scrape_error gauge 1 when this scrape could not measure the group, or some of its partitions, else 0.
tmq_group_scrape_error{group=\"ga\",topic=\"a\"} 0
tmq_group_scrape_error{group=\"gx\",topic=\"x\"} 1
# tmq_scrape_errors gauge Topics or groups this scrape could not measure, or not all of.
tmq_scrape_errors{scrape=\"groups\"} 1
# tmq_scrape_timestamp_seconds gauge Time this scrape was taken, in Unix seconds."
	scrape_time_between "$t0" "$t1"
	refute_output --partial 'tmq_group_lag{group="gx"'
	# The README's recipe, as it is written there.
	cd "$BATS_TEST_TMPDIR"
	recipe=$(grep -m1 '^tmq-group list --prometheus > tmq.prom.tmp' "$TMQ_SRCDIR/README.md")
	[ -n "$recipe" ]
	run --separate-stderr bash -c "$recipe"
	assert_success
	[ -s tmq.prom ] && [ ! -e tmq.prom.tmp ]
	grep -qx 'tmq_group_scrape_error{group="gx",topic="x"} 1' tmq.prom
}

@test "tmq-topic list --prometheus with a topic that cannot be read: the others published, it said in the metrics, exit 0" {
	require_parser
	tmq-topic create a
	tmq-put a m1
	# A definition that is no JSON: the topic cannot be opened.
	mkdir "$TMQ_ROOT/bad"
	echo 'not json' >"$TMQ_ROOT/bad.twc"
	run --separate-stderr tmq-topic list --prometheus
	assert_success
	[[ $stderr == "tmq-topic: bad"* ]]
	PROM_SCRAPE=1 run prom_parse <<<"$output"
	assert_success
	assert_output --partial "tmq_partition_end_offset{partition=\"0\",topic=\"a\"} 1"
	assert_output --partial "# tmq_topic_scrape_error gauge 1 when this scrape could not measure the topic, or some of its partitions, else 0.
tmq_topic_scrape_error{topic=\"a\"} 0
tmq_topic_scrape_error{topic=\"bad\"} 1
# tmq_scrape_errors gauge Topics or groups this scrape could not measure, or not all of.
tmq_scrape_errors{scrape=\"topics\"} 1"
	refute_output --partial 'topic="bad",'
}

# dead_member: group G's member 1 is known dead.
dead_member() {
	tmq-group describe --json G | grep -q '"alive":{"1":false}'
}

@test "tmq-group list --prometheus: a member killed with SIGKILL owns nothing, and is no member" {
	require_parser
	local pid
	tmq-topic create ev -k u32 -p 3
	seq 1 30 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	tmq-get -g G --window 1 -f ev >/dev/null 2>"$BATS_TEST_TMPDIR/member.err" 3>&- &
	pid=$!
	STOP_PIDS=$pid
	wait_for one_owns_all
	run --separate-stderr tmq-group list --prometheus
	assert_line 'tmq_group_partition_owned{group="G",topic="ev",partition="1"} 1'
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || :
	wait_for dead_member
	# It was 0 members but partitions owned, for ever: an alert on
	# ownership never fired, one on members fired for every cron group.
	run --separate-stderr tmq-group list --prometheus
	assert_success
	run prom_parse <<<"$output"
	assert_success
	assert_output --partial "tmq_group_members{group=\"G\",topic=\"ev\"} 0"
	assert_output --partial "tmq_group_partition_owned{group=\"G\",partition=\"0\",topic=\"ev\"} 0
tmq_group_partition_owned{group=\"G\",partition=\"1\",topic=\"ev\"} 0
tmq_group_partition_owned{group=\"G\",partition=\"2\",topic=\"ev\"} 0"
}

@test "tmq-group list --prometheus: a --exec member's counters, typed counter, and the messages it runs" {
	require_parser
	tmq-topic create ev -k u32 -p 2
	seq 1 4 | awk '{ print $1 ":m" $1 }' | tmq-put -K: ev
	cd "$BATS_TEST_TMPDIR"
	printf '#!/bin/sh\ntouch "ran.$TMQ_PARTITION.$TMQ_OFFSET"\nwhile [ ! -e release ]; do sleep 0.05; done\n' >h
	chmod +x h
	tmq-get -g G -f --exec "$BATS_TEST_TMPDIR/h" ev >/dev/null 2>member.err 3>&- &
	STOP_PIDS=$!
	track "$STOP_PIDS"
	wait_for test -e ran.0.0 -a -e ran.1.0
	wait_for exec_running 2
	run --separate-stderr tmq-group list --prometheus
	assert_success
	run prom_parse <<<"$output"
	assert_success
	assert_output --partial '# tmq_group_exec_commands counter Commands a member running one per message (tmq-get --exec) has started, retries included, since it started.
tmq_group_exec_commands_total{group="G",member="1",topic="ev"} 2'
	assert_output --partial 'tmq_group_exec_retries_total{group="G",member="1",topic="ev"} 0'
	assert_output --partial 'tmq_group_exec_dead_letters_total{group="G",member="1",topic="ev"} 0'
	assert_output --partial '# tmq_group_exec_running gauge'
	assert_output --partial 'tmq_group_exec_running{group="G",member="1",topic="ev"} 2'
	touch release
}

# exec_running N: the scrape says G's member 1 runs N messages.
exec_running() {
	tmq-group list --prometheus |
	    grep -qx "tmq_group_exec_running{group=\"G\",topic=\"ev\",member=\"1\"} $1"
}

@test "the README's alert rules are well-formed YAML and name only metrics and labels the scrapes print" {
	require_parser
	/usr/bin/python3 -c 'import yaml' 2>/dev/null ||
	    skip "Debian's python3-yaml is not installed"
	cd "$BATS_TEST_TMPDIR"
	tmq-topic create ev
	tmq-put ev one two
	tmq-get -g G -n 1 ev >/dev/null
	{ tmq-topic list --prometheus; tmq-group list --prometheus; } >all.prom
	awk '/^```yaml$/ { on = 1; next } on && /^```$/ { exit } on' "$TMQ_SRCDIR/README.md" >rules.yml
	run /usr/bin/python3 - rules.yml all.prom <<'EOF'
import re, sys, yaml
from prometheus_client.parser import text_string_to_metric_families
rules = yaml.safe_load(open(sys.argv[1]))["groups"][0]["rules"]
have = {}
for fam in text_string_to_metric_families(open(sys.argv[2]).read()):
    for s in fam.samples:
        have.setdefault(s.name, set()).update(s.labels)
bad = []
for r in rules:
    assert r["alert"] and r["expr"] and r["annotations"]["summary"], r
    names = re.findall(r"\btmq_[a-z_]+", r["expr"])
    for name in names:
        if name not in have:
            bad.append("%s: %s is not printed" % (r["alert"], name))
    for by in re.findall(r"(?:by|on) \(([^)]*)\)", r["expr"]):
        for l in by.split(","):
            if not all(l.strip() in have.get(n, ()) for n in names):
                bad.append("%s: not every metric has label %s" % (r["alert"], l.strip()))
    for l in re.findall(r"\$labels\.([a-z_]+)", r["annotations"]["summary"]):
        if not any(l in have.get(n, ()) for n in names):
            bad.append("%s: summary uses %s, which its metrics lack" % (r["alert"], l))
print("\n".join(bad) or "ok %d" % len(rules))
EOF
	assert_output "ok 4"
}

