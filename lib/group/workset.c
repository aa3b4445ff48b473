/* workset.c: what runs when, and how far a partition is finished
 * (workset.h), pure. */
#include <stdlib.h>
#include <string.h>

#include "group/workset.h"

int
tmq_ws_init(struct tmq_workset *ws, enum tmq_order order, unsigned jobs,
    unsigned retries, double backoff, double backoff_max, size_t cap)
{
	memset(ws, 0, sizeof *ws);
	ws->order = order;
	ws->jobs = jobs > 0 ? jobs : 1;
	ws->retries = retries;
	ws->backoff = backoff;
	ws->backoff_max = backoff_max;
	ws->cap = cap < ws->jobs ? ws->jobs : cap;
	ws->v = calloc(ws->cap, sizeof *ws->v);
	return ws->v == NULL ? -1 : 0;
}

void
tmq_ws_free(struct tmq_workset *ws)
{
	free(ws->v);
	ws->v = NULL;
	ws->n = 0;
}

int
tmq_ws_room(const struct tmq_workset *ws)
{
	return ws->n < ws->cap;
}

void
tmq_ws_add(struct tmq_workset *ws, struct tmq_witem *it)
{
	it->state = TMQ_W_QUEUED;
	it->attempts = 0;
	it->not_before = 0;
	if (it->key == NULL)
		it->key = "";
	ws->v[ws->n++] = it;
}

/* Whether earlier item a keeps item b from starting. */
static int
blocks(const struct tmq_workset *ws, const struct tmq_witem *a,
    const struct tmq_witem *b)
{
	if (a->partition != b->partition || a->state == TMQ_W_DONE)
		return 0;
	if (ws->order == TMQ_ORDER_PARTITION)
		return 1;
	return b->key[0] != '\0' && strcmp(a->key, b->key) == 0;
}

struct tmq_witem *
tmq_ws_next(struct tmq_workset *ws, double now, int stopping)
{
	size_t i, j;

	if (ws->running >= ws->jobs || stopping)
		return NULL;
	for (i = 0; i < ws->n; i++) {
		struct tmq_witem *it = ws->v[i];

		if (it->state != TMQ_W_QUEUED &&
		    (it->state != TMQ_W_WAITING || it->not_before > now))
			continue;
		for (j = 0; j < i; j++)
			if (blocks(ws, ws->v[j], it))
				break;
		if (j == i)
			return it;
	}
	return NULL;
}

void
tmq_ws_started(struct tmq_workset *ws, struct tmq_witem *it)
{
	it->state = TMQ_W_RUNNING;
	it->attempts++;
	ws->running++;
}

double
tmq_ws_backoff(double base, double max, unsigned attempts)
{
	double d = base;

	while (attempts-- > 1 && d < max)
		d *= 2;
	return d > max ? max : d;
}

enum tmq_wend
tmq_ws_ended(struct tmq_workset *ws, struct tmq_witem *it, int ok, double now)
{
	ws->running--;
	if (ok) {
		it->state = TMQ_W_DONE;
		return TMQ_WEND_DONE;
	}
	if (it->attempts > ws->retries) {
		it->state = TMQ_W_DEAD;
		return TMQ_WEND_DEAD;
	}
	it->state = TMQ_W_WAITING;
	it->not_before = now + tmq_ws_backoff(ws->backoff, ws->backoff_max,
	    it->attempts);
	return TMQ_WEND_RETRY;
}

void
tmq_ws_done(struct tmq_workset *ws, struct tmq_witem *it)
{
	(void)ws;
	it->state = TMQ_W_DONE;
}

static void
take(struct tmq_workset *ws, size_t i)
{
	memmove(ws->v + i, ws->v + i + 1, (ws->n - i - 1) * sizeof *ws->v);
	ws->n--;
}

struct tmq_witem *
tmq_ws_pop(struct tmq_workset *ws)
{
	size_t i, j;

	for (i = 0; i < ws->n; i++) {
		struct tmq_witem *it = ws->v[i];

		if (it->state != TMQ_W_DONE)
			continue;
		for (j = 0; j < i; j++)
			if (ws->v[j]->partition == it->partition)
				break;
		if (j == i) {
			take(ws, i);
			return it;
		}
	}
	return NULL;
}

void
tmq_ws_remove(struct tmq_workset *ws, struct tmq_witem *it)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (ws->v[i] == it) {
			take(ws, i);
			return;
		}
}

double
tmq_ws_wake(const struct tmq_workset *ws, double now)
{
	double best = -1;
	size_t i;

	for (i = 0; i < ws->n; i++) {
		const struct tmq_witem *it = ws->v[i];
		double d;

		if (it->state != TMQ_W_WAITING)
			continue;
		d = it->not_before > now ? it->not_before - now : 0;
		if (best < 0 || d < best)
			best = d;
	}
	return best;
}

int
tmq_ws_busy(const struct tmq_workset *ws)
{
	return ws->n > 0;
}
