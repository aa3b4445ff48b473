#!/bin/sh
# large.sh: make bench's figures for messages too long for a line, kept
# in blobs (issue 37): N1 messages of 1 MiB (default 1000) and N2 of 64 KiB
# (default 10000), each distinct (its index, then the same random bytes),
# put from N files by one tmq-put (-b -l -F FILE...) and got back by one
# tmq-get; beside the same files copied by one cp -r and read back by one
# cat, on the same file system.  Target: tmq within 2 times their time,
# both ways, the copy made as durable as the put makes its blobs: tmq-put
# flushes each blob to disk (fsync) before its line, so the put is held to
# cp -r followed by coreutils' sync of each file copied (an fsync each).
# cp -r alone, which makes nothing durable, is shown beside it: a put that
# keeps its promise cannot be held to it, for the disk cannot (on ext4 on
# this kind of machine an fsync of a 64 KiB file costs about 3 times cp's
# copy of it).  Needs about 3 times the bytes of disk, under TMPDIR
# (default /var/tmp).
set -eu
BIN=${TMQ_BIN:-$(dirname "$0")/../../bin}
N1=${N1:-1000}
N2=${N2:-10000}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/tmq-large.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
export TMQ_ROOT="$work/root"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# one KIB N: the figures for N messages of KIB KiB.
one() {
	size=$1 n=$2
	head -c $((size * 1024 - 8)) /dev/urandom >"$work/r"
	mkdir "$work/in"
	i=0
	while [ "$i" -lt "$n" ]; do
		{ printf '%08d' "$i"; cat "$work/r"; } >"$work/in/$i"
		i=$((i + 1))
	done
	"$BIN/tmq-topic" create "b$size" --max-message $((size + 1))K
	sync
	t=$(now)
	(cd "$work/in" && ls | sed 's/^/-F\n/' |
	    xargs -d '\n' "$BIN/tmq-put" -b -l "b$size")
	put=$(since "$t")
	t=$(now)
	cp -r "$work/in" "$work/out"
	cpput=$(since "$t")
	rm -rf "$work/out"
	sync
	t=$(now)
	cp -r "$work/in" "$work/out"
	(cd "$work/out" && ls | xargs sync)
	cpsync=$(since "$t")
	sync
	t=$(now)
	got=$("$BIN/tmq-get" -F '%s' "b$size" | wc -c)
	get=$(since "$t")
	t=$(now)
	cat "$work/out"/* | wc -c >/dev/null
	catget=$(since "$t")
	[ "$got" -eq $((n * size * 1024)) ] ||
	    { echo "large: got $got bytes, not $((n * size * 1024))" >&2; exit 1; }
	awk -v s="$size" -v n="$n" -v p="$put" -v cp="$cpput" -v cs="$cpsync" \
	    -v g="$get" -v cg="$catget" 'BEGIN {
		rp = p / cs; rg = g / cg
		printf "%d messages of %d KiB: put %.2fs (cp -r and sync of each file %.2fs: %.2f times; cp -r alone %.2fs: %.2f times), get %.2fs (cat %.2fs: %.2f times) (target: at most 2 times the durable copy and cat, %s)\n",
		    n, s, p, cs, rp, cp, p / cp, g, cg, rg, (rp <= 2 && rg <= 2 ? "met" : "NOT MET")
	}'
	rm -rf "$work/in" "$work/out" "$TMQ_ROOT/b$size" "$TMQ_ROOT/b$size.twc"
}

one 1024 "$N1"
one 64 "$N2"
