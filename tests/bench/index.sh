#!/bin/sh
# index.sh: what the partition index saves (make bench; tmq(7), "Seeks at
# any size").  One partition of RECORDS records (10,000,000 by default,
# about 1.2 GB in one day file) and a group committed near its end; then,
# for each look the index serves, its time (warm: the best of 3) and the
# bytes it read (rchar, its processes counted), without the index
# (TMQ_INDEX=off, every file counted from its first byte) and with it,
# once a first pass has made it; the first pass's cost against a plain
# scan, and the index's size against the data's.  Then tmq-group describe
# over 16 partitions of WIDE_RECORDS records in all (16,000,000 by
# default).  Targets: each look reads at most 4 MiB and takes under 20 ms;
# describe over 16 partitions under 50 ms; the first pass at most 10%
# above a scan; the index under 0.1% of the data.
set -eu
RECORDS=${RECORDS:-10000000}
WIDE_RECORDS=${WIDE_RECORDS:-16000000}
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
GEN=$(dirname "$0")/gen-records.awk
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
PATH=$BIN:$PATH
TMQ_ROOT=$work/root
export PATH TMQ_ROOT

# once COMMAND...: "SECONDS BYTES" of one run of COMMAND (output discarded).
once() {
	sh -c '
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || :
	t1=$(date +%s.%N)
	r=$(awk "/^rchar:/ { print \$2 }" /proc/$$/io)
	echo "$t0 $t1 $r"' sh "$@" | awk '{ printf "%.6f %.0f\n", $2 - $1, $3 }'
}

# best COMMAND...: the best time of 3 warm runs, and the bytes of the last.
best() {
	for _ in 1 2 3; do once "$@"; done |
	    awk 'NR == 1 || $1 < t { t = $1 } { b = $2 } END { printf "%.6f %.0f\n", t, b }'
}

fmt() {	# fmt "SECONDS BYTES": "  1234.5 ms   12345678 B"
	awk '{ printf "%9.1f ms %14.0f B", $1 * 1000, $2 }'
}

tmq-topic create big -k u32 -p 1
awk -v n="$RECORDS" -f "$GEN" | tmq-put -K : big
bytes=$(cat "$TMQ_ROOT"/big/*.tmf | wc -c)
t=$(TMQ_INDEX=off tmq-get -o $((RECORDS - 5)) -n 1 -F '%u' big)
TMQ_INDEX=off tmq-get -g G -n $((RECORDS - 1000)) --commit big >/dev/null
rm -rf "$TMQ_ROOT/big/.tmq"

# The first pass against a plain scan (warm: the file read once before):
# five pairs in turn, a scan then a first pass, and the median of their
# ratios, which holds when the machine's speed drifts (the best of three
# of each ranged from -1% to +26% on an idle machine).
TMQ_INDEX=off tmq-topic info big >/dev/null
: >"$work/pairs"
for _ in 1 2 3 4 5; do
	rm -rf "$TMQ_ROOT/big/.tmq"
	s=$(once env TMQ_INDEX=off tmq-topic info big)
	f=$(once tmq-topic info big)
	echo "$s $f" >>"$work/pairs"
done
scan=$(sort -n "$work/pairs" | awk '{ t[NR] = $1; b[NR] = $2 } END { print t[3], b[3] }')
first=$(awk '{ print $3, $4 }' "$work/pairs" | sort -n | awk '{ t[NR] = $1; b[NR] = $2 } END { print t[3], b[3] }')
ratio=$(awk '{ print $3 / $1 }' "$work/pairs" | sort -n | sed -n 3p)
ix=$(cat "$TMQ_ROOT"/big/.tmq/*.idx | wc -c)
echo "partition index: $RECORDS records in one day file of $bytes bytes"
echo "  index: $ix bytes, $(awk -v a="$ix" -v b="$bytes" 'BEGIN { printf "%.4f%%", 100 * a / b }') of the data (target < 0.1%)"
echo "  tmq-topic info, plain scan:        $(echo "$scan" | fmt)  (median of 5)"
echo "  tmq-topic info, pass making index: $(echo "$first" | fmt)  ($(echo "$ratio" |
    awk '{ printf "%+.1f%%", 100 * ($1 - 1) }'), the median of 5 pairs; target <= +10%)"
printf '  %-44s %-30s %s\n' "" "without the index" "with it (target <= 4 MiB, < 20 ms)"
for c in "tmq-topic info big" "tmq-topic list -l" "tmq-topic list --prometheus" \
    "tmq-get -P 0 --from $((RECORDS - 10)) -n 1 big" "tmq-get --from -1 big" \
    "tmq-get --from @$t -n 1 big" "tmq-get -g G -n 1 big" \
    "tmq-group describe G" "tmq-group list --prometheus" \
    "tmq-group reset G --to @$t --dry-run"; do
	# shellcheck disable=SC2086
	off=$(best env TMQ_INDEX=off $c | fmt)
	# shellcheck disable=SC2086
	on=$(best $c | fmt)
	printf '  %-44s %s   %s\n' "$c" "$off" "$on"
done
rm -rf "$TMQ_ROOT/big"

# Sixteen partitions: describe's ends, each counted from its index.
tmq-topic create wide -k u32 -p 16
awk -v n="$WIDE_RECORDS" -f "$GEN" | tmq-put -K : wide
TMQ_INDEX=off tmq-get -g W -n $((WIDE_RECORDS - 16000)) --commit wide >/dev/null
rm -rf "$TMQ_ROOT/wide/.tmq"
tmq-topic info wide >/dev/null
echo "  tmq-group describe W, 16 partitions, $WIDE_RECORDS records:" \
    "$(best env TMQ_INDEX=off tmq-group describe W | fmt) without," \
    "$(best tmq-group describe W | fmt) with (target < 50 ms)"
