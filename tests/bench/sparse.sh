#!/bin/sh
# sparse.sh: what a planted sparse partition file costs (make bench).  A
# topic of 4 partitions, one of whose files holds two lines, a hole of
# SIZE (20G by default: `truncate -s`, 8 KB on disk) ended by a newline,
# and two lines more.  Prints, for each reading tool, its time and the
# bytes it read (rchar, its processes counted) there, and on the same
# topic with the hole's line a few NUL bytes instead (what the hole reads
# as).  Holes are not read: both columns should be alike.
set -eu
SIZE=${SIZE:-20G}
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
PATH=$BIN:$PATH
export PATH

# make ROOT KIND: the topic, with the hole (KIND hole) or NUL bytes (dense).
make_root() {
	TMQ_ROOT=$1
	export TMQ_ROOT
	tmq-topic create t -k u32 -p 4
	k=0
	while [ "$(tmq-topic partition t "$k")" != 3 ]; do k=$((k + 1)); done
	tmq-put -k "$k" t a b
	f=$(ls "$1"/t/3-*)
	if [ "$2" = hole ]; then
		truncate -s "+$SIZE" "$f"
	else
		printf '\0\0\0\0' >>"$f"
	fi
	echo >>"$f"
	tmq-put -k "$k" t c d
	tmq-put -k 0 t other
	tmq-get -g G --commit t >/dev/null 2>&1 || :
	# A day file of yesterday, to start today's after (tmq-put).
	tmq-topic create u -k u32 -p 1
	rm -f "$1"/u/0-*
	y=$(date -u -d yesterday +%Y%m%d)
	cp --sparse=always "$f" "$1/u/0-${y}_0.tmf"
}

# cost COMMAND...: "SECONDS BYTES" of COMMAND (its output discarded).
cost() {
	sh -c '
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || :
	t1=$(date +%s.%N)
	r=$(awk "/^rchar:/ { print \$2 }" /proc/$$/io)
	echo "$t0 $t1 $r"' sh "$@" |
	    awk '{ printf "%7.3f s %12.0f bytes", $2 - $1, $3 }'
}

make_root "$work/hole" hole >/dev/null
make_root "$work/dense" dense >/dev/null
echo "sparse partition file: $SIZE of holes, $(du -k "$work"/hole/t/3-* | cut -f 1) KiB on disk"
printf '%-34s %-30s %s\n' "" "with the hole" "dense"
for c in "tmq-get t" "tmq-get --from -1 t" "tmq-get --from now t" \
    "tmq-get -P 3 --from 3 t" "tmq-dump --verify t" "tmq-topic list -l" \
    "tmq-topic info t" "tmq-group describe G" "tmq-put -k 0 u x"; do
	# shellcheck disable=SC2086
	h=$(TMQ_ROOT=$work/hole cost $c)
	# shellcheck disable=SC2086
	d=$(TMQ_ROOT=$work/dense cost $c)
	printf '%-34s %-30s %s\n' "$c" "$h" "$d"
done
