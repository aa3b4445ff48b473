/* grow.c: the one array-growing routine every buffer uses (see grow.h). */
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

int
tmq_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp, *np;
	size_t nc = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elem)
			return -1;
		nc *= 2;
	}
	np = realloc(*p, nc * elem);
	if (np == NULL)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}
