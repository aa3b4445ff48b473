#!/bin/sh
# layers.sh [SRCDIR]: the check, in `make check`, that lib/ keeps its
# layers (lib/LAYERS), as a TAP test.
#
# lib/LAYERS names the layer folders of lib/, lowest first.  A file in
# lib/LAYER/ may include the headers of its own layer and of the layers
# listed before it, never those of a layer listed after it; and no modules
# (x.c with its x.h) may include each other in a circle, directly or
# through others.  Headers are included with their layer's folder
# ("store/topic.h": only lib/ is on the include path), so that a reader,
# and this check, see the layer at each include; a name is in one layer
# only, and every file of lib/ is in a layer.  Each breach is named in a diagnostic
# line; a check with one fails.  The last check plants breaches in a
# scratch tree and wants each one found, so that this test can fail.
#
# SRCDIR defaults to TMQ_SRCDIR (set by make check), else ".".
set -eu
src=${1:-${TMQ_SRCDIR:-.}}

# breaches SRCDIR: one line per breach, each "KIND<TAB>text", KIND one of
# stray, twice, bare, up, circle.
breaches() {
	lib=$1/lib
	if [ ! -f "$lib/LAYERS" ]; then
		printf 'stray\tlib/LAYERS: missing\n'
		return 0
	fi
	layers=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$lib/LAYERS")
	{
		# L layer rank: the layers, lowest first.
		rank=0
		for l in $layers; do
			rank=$((rank + 1))
			printf 'L %s %d\n' "$l" "$rank"
		done
		# F path folder: every C file under lib/.
		for f in "$lib"/*.[ch] "$lib"/*/*.[ch]; do
			[ -e "$f" ] || continue
			d=${f%/*}
			printf 'F %s %s\n' "${f#"$1"/}" "${d##*/}"
		done
		# I path folder name: each quoted include of a header, with
		# the folder its text names ("-" for none).
		for f in "$lib"/*/*.[ch]; do
			[ -e "$f" ] || continue
			sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' \
			    "$f" | while read -r to; do
				case $to in
				*/*) printf 'I %s %s %s\n' "${f#"$1"/}" "${to%/*}" "${to##*/}" ;;
				*) printf 'I %s - %s\n' "${f#"$1"/}" "$to" ;;
				esac
			done
		done
	} | awk '
	function base(p,   b) { b = p; sub(/.*\//, "", b); sub(/\.[ch]$/, "", b); return b }
	$1 == "L" { rank[$2] = $3; next }
	$1 == "F" {
		if (!($3 in rank)) {
			printf "stray\t%s: not in a layer of lib/LAYERS\n", $2
			next
		}
		m = base($2)
		if ((m in layer) && layer[m] != $3 && !((m SUBSEP $3) in said)) {
			printf "twice\t%s: a module of both %s and %s\n", m, layer[m], $3
			said[m, $3] = 1
		}
		layer[m] = $3
		filelayer[$2] = $3
		next
	}
	$1 == "I" { ni++; ifrom[ni] = $2; idir[ni] = $3; ito[ni] = $4 }
	# Tarjan: the strongly connected components of the include graph.
	function visit(v,   i, w) {
		index_of[v] = low[v] = ++counter
		stack[++sp] = v
		onstack[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in index_of)) {
				visit(w)
				if (low[w] < low[v]) low[v] = low[w]
			} else if (onstack[w] && index_of[w] < low[v])
				low[v] = index_of[w]
		}
		if (low[v] == index_of[v]) {
			ncomp++
			size[ncomp] = 0
			do {
				w = stack[sp--]
				onstack[w] = 0
				comp[w] = ncomp
				size[ncomp]++
			} while (w != v)
		}
	}
	# One circle through v within its component: the shortest path from
	# v back to v (breadth first), as "v -> a -> ... -> v".
	function circle(v,   q, h, t, i, u, w, from, path, seen) {
		h = 1; t = 0
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (comp[w] == comp[v] && !(w in seen)) {
				seen[w] = 1; from[w] = v; q[++t] = w
			}
		}
		while (h <= t) {
			u = q[h++]
			if (u == v) break
			for (i = 1; i <= nout[u]; i++) {
				w = out[u, i]
				if (comp[w] == comp[v] && !(w in seen)) {
					seen[w] = 1; from[w] = u; q[++t] = w
				}
			}
		}
		path = v
		for (u = from[v]; u != v; u = from[u])
			path = u " -> " path
		return v " -> " path
	}
	END {
		for (i = 1; i <= ni; i++) {
			f = ifrom[i]; to = ito[i]; d = idir[i]
			if (!(f in filelayer))
				continue	# a stray file
			if (d == "-") {
				if (!(to in layer))
					continue	# no header of lib/
				printf "bare\t%s includes %s.h without its folder %s/\n", \
				    f, to, layer[to]
			} else if (!(d in rank) || !(to in layer) || layer[to] != d)
				continue	# no header of lib/: the compiler says so
			if (rank[layer[to]] > rank[filelayer[f]])
				printf "up\t%s includes %s.h of %s, a layer above %s\n", \
				    f, to, layer[to], filelayer[f]
			a = base(f)
			if (a != to && !((a SUBSEP to) in edge)) {
				edge[a, to] = 1
				out[a, ++nout[a]] = to
			}
		}
		for (m in layer)
			names[++nn] = m
		# In name order, so that what is said does not depend on awk.
		for (i = 2; i <= nn; i++)
			for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
				t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
			}
		for (i = 1; i <= nn; i++)
			if (!(names[i] in index_of))
				visit(names[i])
		for (i = 1; i <= nn; i++) {
			c = comp[names[i]]
			if (size[c] > 1 && !(c in told)) {
				told[c] = 1
				line = circle(names[i])
				# More modules in the knot than on this circle:
				# name them all, each is on a circle.
				if (split(line, on, / -> /) - 1 < size[c]) {
					line = line " (a knot of"
					for (j = 1; j <= nn; j++)
						if (comp[names[j]] == c)
							line = line " " names[j]
					line = line ")"
				}
				printf "circle\t%s\n", line
			}
		}
	}'
}

. "$(dirname "$0")/tap.sh"

echo 1..6
found=$(breaches "$src")
tap 1 stray "every C file of lib/ is in a layer of lib/LAYERS"
tap 2 twice "each module's name is in one layer only"
tap 3 bare "every include of a header of lib/ names its layer's folder"
tap 4 up "no file includes a header of a layer above its own"
tap 5 circle "no modules include each other in a circle"

# The checker itself: a scratch tree with one breach of each kind.
t=$(mktemp -d "${TMPDIR:-/tmp}/tmq-layers.XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/lib/low" "$t/lib/high"
printf 'low\t# first\nhigh\n' >"$t/lib/LAYERS"
printf '#include "high/top.h"\n' >"$t/lib/low/base.h"	# up
printf '#include "low/base.h"\n' >"$t/lib/high/top.h"
printf '#include "low/b.h"\n' >"$t/lib/low/a.c"	# a -> b -> c -> a
printf '#include "low/c.h"\n' >"$t/lib/low/b.c"
printf '#include "a.h"\n#include <stdio.h>\n' >"$t/lib/low/c.h"	# bare
: >"$t/lib/low/a.h"
: >"$t/lib/high/a.h"					# twice
: >"$t/lib/stray.c"					# stray
want=$(printf '%s\n' \
    'stray	lib/stray.c: not in a layer of lib/LAYERS' \
    'twice	a: a module of both high and low' \
    'bare	lib/low/c.h includes a.h without its folder low/' \
    'up	lib/low/base.h includes top.h of high, a layer above low' \
    'circle	a -> b -> c -> a' \
    'circle	base -> top -> base' | sort)
got=$(breaches "$t" | sort)
if [ "$got" = "$want" ]; then
	echo "ok 6 - a planted breach of each kind is found"
else
	echo "not ok 6 - a planted breach of each kind is found"
	printf '%s\n' "$got" | sed 's/^/# found: /'
	printf '%s\n' "$want" | sed 's/^/# wanted: /'
fi
