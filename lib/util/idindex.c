/* idindex.c: member id tables (see idindex.h): open addressing, linear
 * probing, at most half full, doubling. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "util/idindex.h"

static size_t
home(const struct tmq_idindex *x, uint32_t id)
{
	return (size_t)XXH3_64bits_withSeed(&id, sizeof id, x->seed) &
	    (x->cap - 1);
}

long
tmq_idx_find(const struct tmq_idindex *x, uint32_t id)
{
	size_t i;

	if (x->cap == 0)
		return -1;
	for (i = home(x, id); x->slot[i].at1 != 0; i = (i + 1) & (x->cap - 1))
		if (x->slot[i].id == id)
			return (long)x->slot[i].at1 - 1;
	return -1;
}

/* Put id at at1 (position + 1), or replace what it had when replace;
 * 1 when it was there (at what, into *was). */
static int
place(struct tmq_idindex *x, uint32_t id, uint32_t at1, int replace,
    long *was)
{
	size_t i;

	for (i = home(x, id); x->slot[i].at1 != 0; i = (i + 1) & (x->cap - 1))
		if (x->slot[i].id == id) {
			if (was != NULL)
				*was = (long)x->slot[i].at1 - 1;
			if (replace)
				x->slot[i].at1 = at1;
			return 1;
		}
	x->slot[i].id = id;
	x->slot[i].at1 = at1;
	x->n++;
	return 0;
}

int
tmq_idx_reserve(struct tmq_idindex *x, size_t n)
{
	struct tmq_idindex nx = *x;
	size_t i;

	if (n * 2 <= x->cap)
		return 0;
	nx.cap = x->cap ? x->cap : 64;
	while (nx.cap < n * 2) {
		if (nx.cap > SIZE_MAX / sizeof *nx.slot / 4)
			return -1;
		nx.cap *= 2;
	}
	nx.slot = calloc(nx.cap, sizeof *nx.slot);
	if (nx.slot == NULL)
		return -1;
	nx.n = 0;
	if (x->cap == 0 && getrandom(&nx.seed, sizeof nx.seed,
	    GRND_NONBLOCK) != sizeof nx.seed)
		nx.seed = (uint64_t)time(NULL) * 6364136223846793005ULL ^
		    (uint64_t)getpid() ^ (uint64_t)(uintptr_t)x;
	for (i = 0; i < x->cap; i++)
		if (x->slot[i].at1 != 0)
			place(&nx, x->slot[i].id, x->slot[i].at1, 0, NULL);
	free(x->slot);
	*x = nx;
	return 0;
}

static int
put(struct tmq_idindex *x, uint32_t id, uint32_t at, int replace, long *was)
{
	if (at >= UINT32_MAX - 1 || tmq_idx_reserve(x, x->n + 1) < 0)
		return -1;
	return place(x, id, at + 1, replace, was);
}

int
tmq_idx_put(struct tmq_idindex *x, uint32_t id, uint32_t at)
{
	return put(x, id, at, 1, NULL) < 0 ? -1 : 0;
}

int
tmq_idx_add(struct tmq_idindex *x, uint32_t id, uint32_t at, long *was)
{
	return put(x, id, at, 0, was);
}

void
tmq_idx_clear(struct tmq_idindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
	x->n = 0;
}
