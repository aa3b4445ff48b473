/* groupstate.c: a group's state and the one function that moves it on
 * (see groupstate.h).
 *
 * The rules follow tmq-format(5), Consumer groups.  One choice of ours:
 * the state takes the assignment at the first ENDREBAL applied after the
 * BEGINREBAL in force, from the offers applied before it, so every reader
 * of the log, whoever wrote the ENDREBAL, computes it from the same
 * offers. */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "group/groupstate.h"

void
tmq_gstate_init(struct tmq_gstate *s, unsigned nparts)
{
	memset(s, 0, sizeof *s);
	s->nparts = nparts;
}

void
tmq_gstate_free(struct tmq_gstate *s)
{
	unsigned nparts = s->nparts, i;

	for (i = 0; i < s->nmembers; i++)
		free(s->members[i].confirmed);
	free(s->members);
	tmq_offers_free(s->offers, s->noffers);
	tmq_offers_free(s->assigned, s->nassigned);
	free(s->committed);
	tmq_idx_clear(&s->member_ix);
	tmq_idx_clear(&s->offer_ix);
	tmq_idx_clear(&s->assigned_ix);
	tmq_gstate_init(s, nparts);
}

const struct tmq_gmember *
tmq_gstate_find(const struct tmq_gstate *s, uint32_t id)
{
	long at = tmq_idx_find(&s->member_ix, id);

	return at < 0 ? NULL : &s->members[at];
}

struct tmq_gmember *
tmq_gstate_member(struct tmq_gstate *s, uint32_t id)
{
	struct tmq_gmember *m;
	long at;
	int rc;

	/* Room first (the index cannot take an id back), then one probe
	 * that finds the member or adds it. */
	if (tmq_grow(&s->members, &s->members_cap, (size_t)s->nmembers + 1,
	    sizeof *s->members) < 0 ||
	    (rc = tmq_idx_add(&s->member_ix, id, s->nmembers, &at)) < 0)
		return NULL;
	if (rc == 1)
		return &s->members[at];
	m = &s->members[s->nmembers++];
	memset(m, 0, sizeof *m);
	m->id = id;
	return m;
}

const struct tmq_offer *
tmq_gstate_offer(const struct tmq_gstate *s, uint32_t member)
{
	long at = tmq_idx_find(&s->offer_ix, member);

	return at < 0 ? NULL : &s->offers[at];
}

const struct tmq_offer *
tmq_gstate_share(const struct tmq_gstate *s, uint32_t member)
{
	long at = tmq_idx_find(&s->assigned_ix, member);

	return at < 0 ? NULL : &s->assigned[at];
}

int64_t
tmq_gstate_committed(const struct tmq_gstate *s, unsigned partition)
{
	return partition < s->ncommitted ? s->committed[partition] :
	    TMQ_NOT_COMMITTED;
}

int
tmq_gstate_new_id(const struct tmq_gstate *s, uint32_t *id)
{
	if (s->max_key == UINT32_MAX)
		return -1;
	*id = s->max_key + 1;
	return 0;
}

int
tmq_gstate_claim(const struct tmq_gstate *s, uint32_t id, uint64_t tag)
{
	const struct tmq_gmember *m = tmq_gstate_find(s, id);

	if (m == NULL || !m->claimed)
		return 0;
	return m->tag == tag ? 1 : -1;
}

static int
index_offers(struct tmq_idindex *x, const struct tmq_offer *o, unsigned n)
{
	unsigned i;

	tmq_idx_clear(x);
	if (tmq_idx_reserve(x, n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (tmq_idx_add(x, o[i].member, i, NULL) != 0)
			return -1;
	return 0;
}

int
tmq_gstate_reindex(struct tmq_gstate *s, struct tmq_error *e)
{
	unsigned i;

	tmq_idx_clear(&s->member_ix);
	if (tmq_idx_reserve(&s->member_ix, s->nmembers) < 0)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < s->nmembers; i++)
		if (tmq_idx_add(&s->member_ix, s->members[i].id, i, NULL) != 0)
			return tmq_fail(e, "member %u twice, or out of memory",
			    (unsigned)s->members[i].id);
	if (s->members_cap < s->nmembers)
		s->members_cap = s->nmembers;
	if (s->offers_cap < s->noffers)
		s->offers_cap = s->noffers;
	if (index_offers(&s->offer_ix, s->offers, s->noffers) < 0 ||
	    index_offers(&s->assigned_ix, s->assigned, s->nassigned) < 0)
		return tmq_fail(e, "an offer twice, or out of memory");
	return 0;
}

static unsigned *
dup_parts(const unsigned *v, unsigned n)
{
	unsigned *c = malloc((n ? n : 1) * sizeof *c);

	if (c != NULL && n > 0)
		memcpy(c, v, n * sizeof *c);
	return c;
}

/* The offers of the rebalance under way, dropped. */
static void
drop_offers(struct tmq_gstate *s)
{
	tmq_offers_free(s->offers, s->noffers);
	s->offers = NULL;
	s->noffers = 0;
	s->offers_cap = 0;
	tmq_idx_clear(&s->offer_ix);
}

static int
offered(struct tmq_gstate *s, const struct tmq_gmsg *m, struct tmq_error *e)
{
	struct tmq_offer *o;
	long at;
	int rc;

	/* A member's later offer replaces its earlier one. */
	if (tmq_grow(&s->offers, &s->offers_cap, (size_t)s->noffers + 1,
	    sizeof *s->offers) < 0 || (rc = tmq_idx_add(&s->offer_ix,
	    m->member, s->noffers, &at)) < 0)
		return tmq_fail(e, "out of memory");
	if (rc == 1)
		o = &s->offers[at];
	else {
		o = &s->offers[s->noffers++];
		memset(o, 0, sizeof *o);
		o->member = m->member;
	}
	free(o->own);
	free(o->parts);
	/* The lists are sets of the topic's partitions (groupmsg.h): no
	 * longer than the topic, whatever the line said. */
	o->own = dup_parts(m->own, m->nown);
	o->nown = m->nown;
	o->own_extra = m->own_extra;
	o->parts = dup_parts(m->parts, m->nparts);
	o->nparts = m->nparts;
	if (o->own == NULL || o->parts == NULL)
		return tmq_fail(e, "out of memory");
	return 0;
}

int
tmq_gstate_end_rebalance(struct tmq_gstate *s, uint64_t offset,
    struct tmq_error *e)
{
	if (!s->rebalancing)
		return 0;
	if (tmq_assign(s->offers, s->noffers, s->nparts, e) < 0)
		return -1;
	tmq_offers_free(s->assigned, s->nassigned);
	s->assigned = s->offers;
	s->nassigned = s->noffers;
	tmq_idx_clear(&s->assigned_ix);
	s->assigned_ix = s->offer_ix;
	memset(&s->offer_ix, 0, sizeof s->offer_ix);
	s->offers = NULL;
	s->noffers = 0;
	s->offers_cap = 0;
	s->rebalancing = 0;
	s->have_assignment = 1;
	s->ended_offset = offset;
	return 0;
}

static int
committed(struct tmq_gstate *s, const struct tmq_gmsg *m, struct tmq_error *e)
{
	unsigned i;

	for (i = 0; i < m->ncommits; i++) {
		unsigned p = m->commits[i].partition;

		if (p >= s->nparts)
			continue;	/* a parser of a larger limit kept it */
		if (p >= s->ncommitted) {
			int64_t *nc = realloc(s->committed,
			    ((size_t)p + 1) * sizeof *nc);
			unsigned k;

			if (nc == NULL)
				return tmq_fail(e, "out of memory");
			for (k = s->ncommitted; k <= p; k++)
				nc[k] = TMQ_NOT_COMMITTED;
			s->committed = nc;
			s->ncommitted = p + 1;
		}
		s->committed[p] = m->commits[i].offset;
	}
	return 0;
}

int
tmq_gstate_apply(struct tmq_gstate *s, const struct tmq_gmsg *m,
    struct tmq_error *e)
{
	struct tmq_gmember *mb;

	if (m->offset < s->read_to)
		return tmq_fail(e, "group message at offset %llu applied after "
		    "offset %llu", (unsigned long long)m->offset,
		    (unsigned long long)s->read_to - 1);
	if ((mb = tmq_gstate_member(s, m->member)) == NULL)
		return tmq_fail(e, "out of memory");
	s->read_to = m->offset + 1;
	if (m->member > s->max_key)
		s->max_key = m->member;
	mb->last_seen = m->ts;
	mb->last_offset = m->offset;
	switch (m->kind) {
	case TMQ_G_JOINED:
		if (!mb->claimed) {
			mb->claimed = 1;
			mb->tag = m->tag;
		}
		return 0;
	case TMQ_G_BEGINREBAL:
		/* A new BEGINREBAL starts the rebalance afresh. */
		drop_offers(s);
		s->rebalancing = 1;
		s->rebal_end = m->end;
		s->rebal_offset = m->offset;
		return 0;
	case TMQ_G_REBALOFFER:
		/* An offer to take nothing is how a member leaves. */
		mb->left = m->nparts == 0;
		return s->rebalancing ? offered(s, m, e) : 0;
	case TMQ_G_ENDREBAL:
		return tmq_gstate_end_rebalance(s, m->offset, e);
	case TMQ_G_REBALCONFIRM:
		free(mb->confirmed);
		mb->confirmed = dup_parts(m->parts, m->nparts);
		mb->nconfirmed = m->nparts;
		mb->has_confirmed = 1;
		if (mb->confirmed == NULL) {
			mb->nconfirmed = 0;
			return tmq_fail(e, "out of memory");
		}
		return 0;
	case TMQ_G_COMMIT:
		return committed(s, m, e);
	default:
		return 0;
	}
}

void
tmq_gstate_skip(struct tmq_gstate *s, uint64_t offset)
{
	if (offset >= s->read_to)
		s->read_to = offset + 1;
}
