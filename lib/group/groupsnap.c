/* groupsnap.c: the encoding of a group's state in a snapshot (see
 * groupsnap.h).
 *
 * The file, all integers little-endian, doubles as their IEEE-754 bits:
 *
 *   "TMQGSNAP" u32 version
 *   u64 read_to, u32 nparts (the topic's partitions the state was read with)
 *   u32 nfiles, then per file u64 FIRST, u32 day
 *   u64 first_ino, first_len, first_hash, last_ino, last_len, last_hash
 *   u32 max_key, u32 flags (1 rebalancing, 2 have_assignment)
 *   f64 rebal_end, u64 rebal_offset, u64 ended_offset
 *   u32 nmembers, per member: u32 id, u8 claimed, u8 has_confirmed,
 *       u64 tag, f64 last_seen, u64 last_offset, u8 left,
 *       u32 n, n x u32 confirmed
 *   u32 noffers, then the offers of the rebalance under way, and
 *   u32 nassigned, then those of the last completed one, each:
 *       u32 member, u32 nown, nown x u32, u32 nparts, nparts x u32,
 *       u32 own_extra
 *   u32 ncommitted, ncommitted x i64
 *   u64 XXH3 of all the bytes before it
 *
 * The checksum guards against accidents only: anyone in the group may
 * write a snapshot, and compute its checksum.  So a snapshot is a cache
 * of what the log says, and each of its values is checked as strictly as
 * the log's own lines are, against what a log of the length it covers
 * can produce (see decode_state); one that fails is refused, said once
 * through the group's notice, and the log replayed (and the snapshot
 * replaced).  What a snapshot may hold is bounded the same way: at most
 * one member a line covered, each list a set of the topic's partitions,
 * no file past what groupsnapfile.c reads.  Its accidents (torn, other
 * versions, another log's) cost a replay, silently.
 *
 * The shares (got) of the last rebalance are not stored: they are computed
 * again from its offers, as every reader of the log computes them.  The
 * state depends on the topic's partition count (partitions past it in the
 * log are dropped, groupstate.c), so a snapshot is taken only by a reader
 * that counts the same. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "group/groupsnap.h"
#include "store/topic.h"

#define MAGIC "TMQGSNAP"
#define SNAP_VERSION 3

void
tmq_gsnap_pos_free(struct tmq_gsnap_pos *pos)
{
	free(pos->firsts);
	free(pos->days);
	memset(pos, 0, sizeof *pos);
}

/* --- Writing ---------------------------------------------------------- */

struct out {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

static void
put(struct out *o, const void *v, size_t n)
{
	if (o->oom)
		return;
	if (o->n + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		unsigned char *np;

		while (cap < o->n + n)
			cap *= 2;
		np = realloc(o->p, cap);
		if (np == NULL) {
			o->oom = 1;
			return;
		}
		o->p = np;
		o->cap = cap;
	}
	memcpy(o->p + o->n, v, n);
	o->n += n;
}

static void
put_u8(struct out *o, unsigned v)
{
	unsigned char b = (unsigned char)v;

	put(o, &b, 1);
}

static void
put_u32(struct out *o, uint32_t v)
{
	unsigned char b[4];
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(o, b, 4);
}

static void
put_u64(struct out *o, uint64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(o, b, 8);
}

static void
put_f64(struct out *o, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	put_u64(o, v);
}

static void
put_parts(struct out *o, const unsigned *v, unsigned n)
{
	unsigned i;

	put_u32(o, n);
	for (i = 0; i < n; i++)
		put_u32(o, v[i]);
}

static void
put_offers(struct out *o, const struct tmq_offer *of, unsigned n)
{
	unsigned i;

	put_u32(o, n);
	for (i = 0; i < n; i++) {
		put_u32(o, of[i].member);
		put_parts(o, of[i].own, of[i].nown);
		put_parts(o, of[i].parts, of[i].nparts);
		put_u32(o, of[i].own_extra);
	}
}

int
tmq_gsnap_encode(const struct tmq_gstate *s, const struct tmq_gsnap_pos *pos,
    unsigned char **out, size_t *n, struct tmq_error *e)
{
	struct out o = { NULL, 0, 0, 0 };
	unsigned i;

	put(&o, MAGIC, 8);
	put_u32(&o, SNAP_VERSION);
	put_u64(&o, s->read_to);
	put_u32(&o, pos->nparts);
	put_u32(&o, pos->nfiles);
	for (i = 0; i < pos->nfiles; i++) {
		put_u64(&o, pos->firsts[i]);
		put_u32(&o, pos->days[i]);
	}
	put_u64(&o, pos->first_ino);
	put_u64(&o, pos->first_len);
	put_u64(&o, pos->first_hash);
	put_u64(&o, pos->last_ino);
	put_u64(&o, pos->last_len);
	put_u64(&o, pos->last_hash);
	put_u32(&o, s->max_key);
	put_u32(&o, (s->rebalancing ? 1u : 0u) | (s->have_assignment ? 2u : 0u));
	put_f64(&o, s->rebal_end);
	put_u64(&o, s->rebal_offset);
	put_u64(&o, s->ended_offset);
	put_u32(&o, s->nmembers);
	for (i = 0; i < s->nmembers; i++) {
		const struct tmq_gmember *m = &s->members[i];

		put_u32(&o, m->id);
		put_u8(&o, m->claimed != 0);
		put_u8(&o, m->has_confirmed != 0);
		put_u64(&o, m->tag);
		put_f64(&o, m->last_seen);
		put_u64(&o, m->last_offset);
		put_u8(&o, m->left != 0);
		put_parts(&o, m->confirmed, m->nconfirmed);
	}
	put_offers(&o, s->offers, s->noffers);
	put_offers(&o, s->assigned, s->nassigned);
	put_u32(&o, s->ncommitted);
	for (i = 0; i < s->ncommitted; i++)
		put_u64(&o, (uint64_t)s->committed[i]);
	if (!o.oom)
		put_u64(&o, XXH3_64bits(o.p, o.n));
	if (o.oom) {
		free(o.p);
		return tmq_fail(e, "out of memory");
	}
	*out = o.p;
	*n = o.n;
	return 0;
}

/* --- Reading ---------------------------------------------------------- */

struct in {
	const unsigned char *p;
	size_t n, at;
	int bad;
};

static int
take(struct in *in, void *v, size_t n)
{
	if (in->bad || in->n - in->at < n) {
		if (!in->bad)
			in->bad = 1;
		memset(v, 0, n);
		return -1;
	}
	memcpy(v, in->p + in->at, n);
	in->at += n;
	return 0;
}

static unsigned
get_u8(struct in *in)
{
	unsigned char b;

	take(in, &b, 1);
	return b;
}

static uint32_t
get_u32(struct in *in)
{
	unsigned char b[4];

	take(in, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

static uint64_t
get_u64(struct in *in)
{
	unsigned char b[8];
	uint64_t v = 0;
	int i;

	take(in, b, 8);
	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static double
get_f64(struct in *in)
{
	uint64_t v = get_u64(in);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

/* A count of items of at least min bytes each: no more than the bytes
 * left can hold, so no count can make us allocate what the file is not. */
static uint32_t
get_count(struct in *in, size_t min)
{
	uint32_t n = get_u32(in);

	if (in->bad || n > (in->n - in->at) / min) {
		if (!in->bad)
			in->bad = 1;
		return 0;
	}
	return n;
}

/* A list of partitions, as the log's lines leave them (groupmsg.h): a set
 * of the topic's, ascending (NULL when empty); "what" and id name it in
 * the refusal. */
static unsigned *
get_parts(struct in *in, unsigned *n, unsigned nparts, const char *what,
    uint32_t id, struct tmq_error *e)
{
	unsigned *v;
	uint32_t i, c = get_count(in, 4);

	*n = 0;
	if (in->bad || c == 0)
		return NULL;
	if (c > nparts) {
		tmq_fail(e, "%s %u: %u partitions, of %u", what, (unsigned)id, c,
		    nparts);
		in->bad = 2;
		return NULL;
	}
	v = malloc(c * sizeof *v);
	if (v == NULL) {
		in->bad = 1;
		return NULL;
	}
	for (i = 0; i < c; i++) {
		v[i] = get_u32(in);
		if (!in->bad && (v[i] >= nparts || (i > 0 && v[i] <= v[i - 1]))) {
			tmq_fail(e, "%s %u: partition %u %s", what, (unsigned)id,
			    v[i], v[i] >= nparts ? "does not exist" :
			    "out of order or twice");
			in->bad = 2;
		}
	}
	*n = c;
	return v;
}

/* Whether the ascending lists a and b share a partition. */
static int
meet(const unsigned *a, unsigned na, const unsigned *b, unsigned nb)
{
	unsigned i = 0, j = 0;

	while (i < na && j < nb)
		if (a[i] == b[j])
			return 1;
		else if (a[i] < b[j])
			i++;
		else
			j++;
	return 0;
}

static struct tmq_offer *
get_offers(struct in *in, unsigned *n, unsigned nparts, const char *what,
    struct tmq_error *e)
{
	struct tmq_offer *o;
	uint32_t i, c = get_count(in, 16);

	*n = 0;
	if (in->bad)
		return NULL;
	o = calloc(c ? c : 1, sizeof *o);
	if (o == NULL) {
		in->bad = 1;
		return NULL;
	}
	for (i = 0; i < c && !in->bad; i++) {
		o[i].member = get_u32(in);
		*n = i + 1;
		o[i].own = get_parts(in, &o[i].nown, nparts, what, o[i].member, e);
		o[i].parts = get_parts(in, &o[i].nparts, nparts, what,
		    o[i].member, e);
		o[i].own_extra = get_u32(in);
		/* Repeats are of owned partitions it accepts, each a 2-byte
		 * entry at least of a body no longer than ours can be. */
		if (!in->bad && o[i].own_extra != 0 &&
		    (o[i].own_extra > tmq_gmsg_max_body(nparts) / 2 ||
		    !meet(o[i].own, o[i].nown, o[i].parts, o[i].nparts))) {
			tmq_fail(e, "%s %u: %u repeats of nothing it owns", what,
			    (unsigned)o[i].member, o[i].own_extra);
			in->bad = 2;
		}
	}
	return o;
}

/* Refuse the snapshot: a value no log of this length can leave. */
#define REFUSE(...) do { tmq_fail(e, __VA_ARGS__); return -2; } while (0)

/* The state and position, every value checked against what the log it
 * says it covers can produce (tmq_gstate_apply is the reference): -1 when
 * the bytes are not a snapshot's (or out of memory), -2 when they are
 * one that no log of ours can leave. */
static int
decode_state(struct in *in, struct tmq_gstate *s, struct tmq_gsnap_pos *pos,
    struct tmq_error *e)
{
	uint32_t i, c, flags, max = 0;
	uint64_t last_first;

	s->read_to = get_u64(in);
	pos->nparts = get_u32(in);
	if (pos->nparts == 0 || pos->nparts > TMQ_MAX_PARTITIONS)
		REFUSE("bad partition count %u", pos->nparts);
	c = get_count(in, 12);
	if (in->bad || c == 0)
		REFUSE("bad file list");
	pos->firsts = malloc(c * sizeof *pos->firsts);
	pos->days = malloc(c * sizeof *pos->days);
	if (pos->firsts == NULL || pos->days == NULL)
		return tmq_fail(e, "out of memory");
	pos->nfiles = c;
	for (i = 0; i < c; i++) {
		pos->firsts[i] = get_u64(in);
		pos->days[i] = get_u32(in);
		if (i > 0 && pos->firsts[i] < pos->firsts[i - 1])
			REFUSE("log files out of order");
	}
	pos->first_ino = get_u64(in);
	pos->first_len = get_u64(in);
	pos->first_hash = get_u64(in);
	pos->last_ino = get_u64(in);
	pos->last_len = get_u64(in);
	pos->last_hash = get_u64(in);
	/* The covered part of the last file holds read_to - FIRST lines, a
	 * byte each at least (its newline): read_to cannot go past it. */
	last_first = pos->firsts[c - 1];
	if (pos->last_len > INT64_MAX || pos->first_len > INT64_MAX ||
	    s->read_to < last_first ||
	    s->read_to - last_first > pos->last_len ||
	    (pos->last_len > 0 && s->read_to == last_first) ||
	    (c == 1 && (pos->first_ino != pos->last_ino ||
	    pos->first_len != pos->last_len)))
		REFUSE("position %llu not in the covered log",
		    (unsigned long long)s->read_to);
	s->max_key = get_u32(in);
	flags = get_u32(in);
	if (flags > 3)
		REFUSE("bad flags %u", flags);
	s->rebalancing = (flags & 1) != 0;
	s->have_assignment = (flags & 2) != 0;
	s->rebal_end = get_f64(in);
	s->rebal_offset = get_u64(in);
	s->ended_offset = get_u64(in);
	/* A BEGINREBAL, if any, is the one in force or the one the last
	 * ENDREBAL closed; the ENDREBAL comes after it, the next BEGINREBAL
	 * after that; an END is a finite time. */
	if (!s->rebalancing && !s->have_assignment ?
	    s->rebal_offset != 0 || s->rebal_end != 0 :
	    s->rebal_offset >= s->read_to || !isfinite(s->rebal_end))
		REFUSE("bad rebalance offset %llu",
		    (unsigned long long)s->rebal_offset);
	if (!s->have_assignment ? s->ended_offset != 0 :
	    s->ended_offset >= s->read_to || (s->rebalancing ?
	    s->ended_offset >= s->rebal_offset :
	    s->ended_offset <= s->rebal_offset))
		REFUSE("bad rebalance end %llu",
		    (unsigned long long)s->ended_offset);
	/* Each member was heard on a line of its own: no more of them than
	 * lines. */
	c = get_count(in, 35);
	if (c > s->read_to)
		REFUSE("%u members in %llu lines", c,
		    (unsigned long long)s->read_to);
	s->members = calloc(c ? c : 1, sizeof *s->members);
	if (s->members == NULL)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < c && !in->bad; i++) {
		struct tmq_gmember *m = &s->members[i];
		unsigned claimed, conf, left;

		m->id = get_u32(in);
		claimed = get_u8(in);
		conf = get_u8(in);
		m->claimed = (int)claimed;
		m->has_confirmed = (int)conf;
		m->tag = get_u64(in);
		m->last_seen = get_f64(in);
		m->last_offset = get_u64(in);
		left = get_u8(in);
		m->left = (int)left;
		m->confirmed = get_parts(in, &m->nconfirmed, pos->nparts,
		    "member", m->id, e);
		s->nmembers = i + 1;
		if (m->id > max)
			max = m->id;
		if (in->bad)
			break;
		if (claimed > 1 || conf > 1 || left > 1 ||
		    (!claimed && m->tag != 0) || (!conf && m->nconfirmed != 0))
			REFUSE("member %u: bad flags", (unsigned)m->id);
		if (m->last_offset >= s->read_to)
			REFUSE("member %u: heard at offset %llu, past the covered "
			    "log", (unsigned)m->id,
			    (unsigned long long)m->last_offset);
	}
	if (in->bad == 2)
		return -2;
	/* Every message's key is a member, and max_key the largest of them:
	 * a new member takes max_key + 1, so it must be exact. */
	if (!in->bad && max != s->max_key)
		REFUSE("bad largest member id %u", s->max_key);
	s->offers = get_offers(in, &s->noffers, pos->nparts, "offer of member",
	    e);
	s->assigned = get_offers(in, &s->nassigned, pos->nparts,
	    "share of member", e);
	if (in->bad == 2)
		return -2;
	if (!in->bad && (!s->rebalancing && s->noffers != 0))
		REFUSE("offers outside a rebalance");
	if (!in->bad && !s->have_assignment && s->nassigned != 0)
		REFUSE("shares without a rebalance");
	c = get_count(in, 8);
	if (c > pos->nparts)
		REFUSE("commits of %u partitions, of %u", c, pos->nparts);
	s->committed = malloc((c ? c : 1) * sizeof *s->committed);
	if (s->committed == NULL)
		return tmq_fail(e, "out of memory");
	s->ncommitted = c;
	for (i = 0; i < c; i++) {
		s->committed[i] = (int64_t)get_u64(in);
		/* What a COMMIT can say: an offset of 0 to 2^63-1, or -1
		 * ("now"); never committed (-2) only below the last one. */
		if (!in->bad && (s->committed[i] < TMQ_NOT_COMMITTED ||
		    (s->committed[i] == TMQ_NOT_COMMITTED && i == c - 1)))
			REFUSE("partition %u: committed offset %lld is not one "
			    "a commit can hold", (unsigned)i,
			    (long long)s->committed[i]);
	}
	if (in->bad)
		REFUSE("truncated");
	if (in->at != in->n)
		REFUSE("trailing bytes");
	/* Ids once each in members, offers and shares (the indexes). */
	if (tmq_gstate_reindex(s, e) < 0)
		return -2;
	for (i = 0; i < s->noffers; i++) {
		const struct tmq_offer *o = &s->offers[i];
		const struct tmq_gmember *m = tmq_gstate_find(s,
		    o->member);

		/* An offer under way is its member's latest line of the
		 * kind, after the BEGINREBAL; it left when it took nothing. */
		if (m == NULL || m->last_offset <= s->rebal_offset ||
		    m->left != (o->nparts == 0))
			REFUSE("offer of member %u not its own",
			    (unsigned)o->member);
	}
	for (i = 0; i < s->nassigned; i++)
		if (tmq_gstate_find(s, s->assigned[i].member) == NULL)
			REFUSE("share of member %u, not a member",
			    (unsigned)s->assigned[i].member);
	if (s->have_assignment && tmq_assign(s->assigned, s->nassigned,
	    pos->nparts, e) < 0)
		return -1;
	return 0;
}

#undef REFUSE

int
tmq_gsnap_decode(const unsigned char *p, size_t n, struct tmq_gstate *s,
    struct tmq_gsnap_pos *pos, struct tmq_error *e)
{
	struct in in;
	unsigned char h[8];
	uint64_t sum = 0;
	int i, rc;

	tmq_gstate_free(s);
	memset(pos, 0, sizeof *pos);
	if (n < 8 + 4 + 8 || memcmp(p, MAGIC, 8) != 0)
		return tmq_fail(e, "not a group snapshot");
	memcpy(h, p + n - 8, 8);
	for (i = 7; i >= 0; i--)
		sum = sum << 8 | h[i];
	if (XXH3_64bits(p, n - 8) != sum)
		return tmq_fail(e, "checksum mismatch");
	in.p = p;
	in.n = n - 8;
	in.at = 8;
	in.bad = 0;
	if (get_u32(&in) != SNAP_VERSION)
		return tmq_fail(e, "snapshot version not known");
	rc = decode_state(&in, s, pos, e);
	if (rc < 0) {
		tmq_gstate_free(s);
		tmq_gsnap_pos_free(pos);
		return rc;
	}
	s->nparts = pos->nparts;
	return 0;
}
