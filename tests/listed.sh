#!/bin/sh
# listed.sh [SRCDIR]: the check, in `make check`, that every test in the
# tree runs, as a TAP test.  A test that no target runs does not exist:
# make check, distcheck and CI run what Makefile.am lists, nothing else.
#
# - every tests/tNNNN-*.bats is in BATS_TESTS, or in the TESTS='...' of a
#   target of its own (make check-shared's);
# - every unit test tests/unit/t-X.c is in UNIT_TESTS as tests/unit/t-X;
# - every fuzz target tests/fuzz/fuzz-X.c and every seed folder
#   tests/fuzz/seeds/X has its seed test tests/fuzz/seed-X in
#   FUZZ_SEED_TESTS;
# - everything those lists name is in the tree;
# - no two bats files share a number (tNNNN).
# Each breach is named in a diagnostic line; a check with one fails.  The
# last check plants a breach of each kind in a scratch tree and wants each
# one found, so that this test can fail.
#
# SRCDIR defaults to TMQ_SRCDIR (set by make check), else ".".
set -eu
src=${1:-${TMQ_SRCDIR:-.}}

# words SRCDIR VAR: the words of Makefile.am's VAR (its = and every +=,
# continuation lines joined).
words() {
	awk -v var="$2" '
	{ line = line $0 }
	/\\$/ { sub(/\\$/, " ", line); next }
	{
		if (line ~ ("^" var "[ \t]*\\+?=")) {
			sub(/^[^=]*=/, "", line)
			n = split(line, w, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (w[i] != "")
					print w[i]
		}
		line = ""
	}' "$1/Makefile.am"
}

# targets SRCDIR: the bats files a target of its own runs, from its
# recipe's TESTS='...' (make check-shared's).
targets() {
	sed -n "s/.*[[:space:]]TESTS='\\([^']*\\)'.*/\\1/p" "$1/Makefile.am" | tr ' ' '\n' |
	    sed '/^$/d'
}

# breaches SRCDIR: one line per breach, "KIND<TAB>text", KIND one of
# unlisted, missing, number.
breaches() {
	s=$1
	bats=$( { words "$s" BATS_TESTS; targets "$s"; } | sort -u)
	unit=$(words "$s" UNIT_TESTS | sort -u)
	seed=$(words "$s" FUZZ_SEED_TESTS | sort -u)
	for f in "$s"/tests/t[0-9]*.bats; do
		[ -e "$f" ] || continue
		r=${f#"$s"/}
		printf '%s\n' "$bats" | grep -qxF "$r" ||
		    printf 'unlisted\t%s: in no list of Makefile.am (BATS_TESTS)\n' "$r"
	done
	for f in "$s"/tests/unit/t-*.c; do
		[ -e "$f" ] || continue
		r=${f#"$s"/}
		printf '%s\n' "$unit" | grep -qxF "${r%.c}" ||
		    printf 'unlisted\t%s: %s is not in UNIT_TESTS\n' "$r" "${r%.c}"
	done
	for f in "$s"/tests/fuzz/fuzz-*.c; do
		[ -e "$f" ] || continue
		r=${f#"$s"/}
		x=${r#tests/fuzz/fuzz-}
		x=${x%.c}
		printf '%s\n' "$seed" | grep -qxF "tests/fuzz/seed-$x" ||
		    printf 'unlisted\t%s: tests/fuzz/seed-%s is not in FUZZ_SEED_TESTS\n' "$r" "$x"
	done
	for d in "$s"/tests/fuzz/seeds/*; do
		[ -d "$d" ] || continue
		x=${d##*/}
		printf '%s\n' "$seed" | grep -qxF "tests/fuzz/seed-$x" ||
		    printf 'unlisted\ttests/fuzz/seeds/%s: tests/fuzz/seed-%s is not in FUZZ_SEED_TESTS\n' "$x" "$x"
	done
	for r in $bats; do
		[ -f "$s/$r" ] || printf 'missing\t%s: listed, not in the tree\n' "$r"
	done
	for r in $unit; do
		[ -f "$s/$r.c" ] || printf 'missing\t%s: listed, but %s.c is not in the tree\n' "$r" "$r"
	done
	for r in $seed; do
		x=${r#tests/fuzz/seed-}
		[ -f "$s/tests/fuzz/fuzz-$x.c" ] ||
		    printf 'missing\t%s: listed, but tests/fuzz/fuzz-%s.c is not in the tree\n' "$r" "$x"
		[ -d "$s/tests/fuzz/seeds/$x" ] ||
		    printf 'missing\t%s: listed, but tests/fuzz/seeds/%s is not in the tree\n' "$r" "$x"
	done
	for f in "$s"/tests/t[0-9]*.bats; do
		[ -e "$f" ] || continue
		r=${f#"$s"/tests/}
		printf '%s %s\n' "${r%%-*}" "tests/$r"
	done | awk '
	{ n[$1]++; w[$1] = w[$1] " " $2 }
	END {
		for (k in n)
			if (n[k] > 1)
				printf "number\t%s: used by%s\n", k, w[k]
	}' | sort
}

. "$(dirname "$0")/tap.sh"

echo 1..4
found=$(breaches "$src")
tap 1 unlisted "every bats file, unit test and fuzz target of the tree is in a list of Makefile.am"
tap 2 missing "everything the lists name is in the tree"
tap 3 number "no two bats files share a number"

# The checker itself: a scratch tree with one breach of each kind.
t=$(mktemp -d "${TMPDIR:-/tmp}/tmq-listed.XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/tests/unit" "$t/tests/fuzz/seeds/a" "$t/tests/fuzz/seeds/b"
cat >"$t/Makefile.am" <<'EOF'
UNIT_TESTS = \
	tests/unit/t-one \
	tests/unit/t-gone
FUZZ_SEED_TESTS = tests/fuzz/seed-a
BATS_TESTS = \
	tests/t0100-a.bats \
	tests/t0200-b.bats
BATS_TESTS += tests/t0300-c.bats
check-shared: all
	$(MAKE) check TESTS='tests/t0900-shared.bats'
EOF
for f in t0100-a t0200-b t0300-c t0900-shared t0100-twin t0400-stray; do
	: >"$t/tests/$f.bats"
done
: >"$t/tests/unit/t-one.c"
: >"$t/tests/unit/t-two.c"
: >"$t/tests/fuzz/fuzz-a.c"
: >"$t/tests/fuzz/fuzz-c.c"
want=$(printf '%s\n' \
    'unlisted	tests/t0100-twin.bats: in no list of Makefile.am (BATS_TESTS)' \
    'unlisted	tests/t0400-stray.bats: in no list of Makefile.am (BATS_TESTS)' \
    'unlisted	tests/unit/t-two.c: tests/unit/t-two is not in UNIT_TESTS' \
    'unlisted	tests/fuzz/fuzz-c.c: tests/fuzz/seed-c is not in FUZZ_SEED_TESTS' \
    'unlisted	tests/fuzz/seeds/b: tests/fuzz/seed-b is not in FUZZ_SEED_TESTS' \
    'missing	tests/unit/t-gone: listed, but tests/unit/t-gone.c is not in the tree' \
    'number	t0100: used by tests/t0100-a.bats tests/t0100-twin.bats' | sort)
got=$(breaches "$t" | sort)
if [ "$got" = "$want" ]; then
	echo "ok 4 - a planted breach of each kind is found"
else
	echo "not ok 4 - a planted breach of each kind is found"
	printf '%s\n' "$got" | sed 's/^/# found: /'
	printf '%s\n' "$want" | sed 's/^/# wanted: /'
fi
