#!/bin/sh
# exec.sh: make bench's figures for a topic as a work queue (tmq-get
# --exec, issue 33):
# - N messages (default 100000) over 8 partitions run through
#   `--exec true --jobs 8`, beside `xargs -P 8 -n 1 true` over N lines on
#   the same machine: the rate of each and their ratio (target: tmq within
#   1.2 times xargs's time: forking is the cost);
# - M messages (default 400) through a handler that takes 10 ms, with
#   --jobs 1 and --jobs 8: how many times one job's rate 8 give (target:
#   at least 4 on any machine, as the handler sleeps rather than works).
# Each figure is the wall time of one run; the group's commits are checked
# so that a run that skipped messages is not counted fast.
set -eu
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
N=${N:-100000}
M=${M:-400}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
export TMQ_ROOT="$work/root"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# committed_all GROUP TOPIC: every partition of TOPIC committed to its end.
committed_all() {
	ends=$("$BIN/tmq-topic" info --ends "$2")
	got=$("$BIN/tmq-group" describe --json "$1" | tr -d ' \n' |
	    sed 's/.*"committed":{\([^}]*\)}.*/\1/; s/"//g; s/:/=/g')
	[ "$ends" = "$got" ] || { echo "exec: group $1 committed $got, not $ends" >&2; exit 1; }
}

"$BIN/tmq-topic" create ev -k u32 -p 8
seq 1 "$N" | awk '{ print $1 ":x" }' | "$BIN/tmq-put" -K: ev
t=$(now)
"$BIN/tmq-get" -g G --exec true --jobs 8 ev
tmq=$(since "$t")
committed_all G ev
t=$(now)
seq 1 "$N" | xargs -P 8 -n 1 true
xa=$(since "$t")
r=$(awk -v a="$tmq" -v b="$xa" 'BEGIN { printf "%.2f", a / b }')
v=$(awk -v r="$r" 'BEGIN { print (r <= 1.2 ? "met" : "NOT MET") }')
echo "--exec true --jobs 8, $N messages: $(awk -v n="$N" -v s="$tmq" 'BEGIN { printf "%.0f", n / s }')/s; xargs -P 8 -n 1 true: $(awk -v n="$N" -v s="$xa" 'BEGIN { printf "%.0f", n / s }')/s; time ratio $r (target: at most 1.2, $v)"

"$BIN/tmq-topic" create slow -k u32 -p 8
seq 1 "$M" | awk '{ print $1 ":x" }' | "$BIN/tmq-put" -K: slow
t=$(now)
"$BIN/tmq-get" -g one --exec 'sleep 0.01' --jobs 1 slow
one=$(since "$t")
committed_all one slow
t=$(now)
"$BIN/tmq-get" -g eight --exec 'sleep 0.01' --jobs 8 slow
eight=$(since "$t")
committed_all eight slow
x=$(awk -v a="$one" -v b="$eight" 'BEGIN { printf "%.1f", a / b }')
v=$(awk -v x="$x" 'BEGIN { print (x >= 4 ? "met" : "NOT MET") }')
echo "a 10 ms handler, $M messages: --jobs 1 $(awk -v n="$M" -v s="$one" 'BEGIN { printf "%.0f", n / s }')/s, --jobs 8 $(awk -v n="$M" -v s="$eight" 'BEGIN { printf "%.0f", n / s }')/s: $x times (target: at least 4, $v)"
