#!/bin/sh
# run.sh: make fuzz.  Builds each libFuzzer target with clang, ASan and
# UBSan over lib/, seeds it from tests/fuzz/seeds/TARGET and the reference vectors
# (tests/vectors, or $TMQ_VECTORS), and runs it for FUZZ_SECONDS (default
# 60).  A crash, leak or sanitizer report fails the run.
set -eu
src=${TMQ_SRCDIR:?}
out=${FUZZ_DIR:-fuzz-work}
secs=${FUZZ_SECONDS:-60}
cc=${CLANG:-clang}
vectors=${TMQ_VECTORS:-$src/tests/vectors}
[ -d "$vectors/root" ] || { echo "run.sh: no reference vectors at $vectors" >&2; exit 1; }
mkdir -p "$out"
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
flags="$flags -include ${CONFIG_H:?} -I$src/lib/util -I$src/lib/codec -I$src/lib/store -I$src/lib/flow -I$src/lib/group -I$src/lib/cli ${DEP_CFLAGS:-}"

seed() {	# seed TARGET: fill $out/seeds-TARGET
	d="$out/seeds-$1"
	rm -rf "$d"
	mkdir -p "$d"
	for f in "$src"/tests/fuzz/seeds/"$1"/*; do
		[ -e "$f" ] && cp "$f" "$d/"
	done
	case $1 in
	line)	# one line of each vector file, behind a width byte
		i=0
		for f in "$vectors"/root/*/*.tmf; do
			i=$((i + 1))
			{ printf '\002'; head -n 1 "$f" | tr -d '\n'; } >"$d/v$i"
		done ;;
	twc)
		for f in "$vectors"/root/*.twc; do cp "$f" "$d/"; done ;;
	esac
}

for t in line twc groupmsg groupsnap format deflate names jsoninput; do
	echo "fuzz-$t: building"
	# shellcheck disable=SC2086
	$cc $flags "$src/tests/fuzz/fuzz-$t.c" "$src"/lib/*/*.c ${DEP_LIBS:-} -lm \
	    -o "$out/fuzz-$t"
	seed "$t"
	mkdir -p "$out/corpus-$t"
	echo "fuzz-$t: running for ${secs}s"
	"$out/fuzz-$t" -max_total_time="$secs" -print_final_stats=1 \
	    -artifact_prefix="$out/crash-$t-" "$out/corpus-$t" "$out/seeds-$t" \
	    2>"$out/fuzz-$t.log" || { tail -n 40 "$out/fuzz-$t.log"; exit 1; }
	grep -E '^stat::number_of_executed_units' "$out/fuzz-$t.log" || :
done
echo "fuzz: no crash, leak or sanitizer report"
