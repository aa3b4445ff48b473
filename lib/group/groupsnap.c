/* groupsnap.c: group state snapshots (see groupsnap.h).
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
 * no file past SNAP_MAX.  Its accidents (torn, other versions, another
 * log's) cost a replay, silently.
 *
 * The shares (got) of the last rebalance are not stored: they are computed
 * again from its offers, as every reader of the log computes them.  The
 * state depends on the topic's partition count (partitions past it in the
 * log are dropped, group.c), so a snapshot is taken only by a reader that
 * counts the same.
 *
 * What proves the covered log unchanged, cheaply: files are only appended
 * to, so a log that only grew still has the covered files under the same
 * names, the same inodes, at least the covered length (exactly, for a file
 * before the last), with the same bytes.  Re-reading every covered byte
 * would cost what replaying does, so the bytes checked are the first 4 KiB
 * of the first file (its creation commit and first joins, with random
 * tags) and the last 4 KiB before the covered position.  A group deleted and
 * made again, a log restored from a backup, truncated, or replaced by a
 * rename fails one of these, inode numbers reused or not; what passes them
 * all is a log rewritten in place, with the same sizes, by hand: whoever can
 * do that can as well write the log itself.  Middle files are checked by
 * name only, so that a log of many days costs no more to check than a log
 * of one (a stat is a round trip on a network filesystem). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "beneath.h"
#include "group.h"
#include "directread.h"
#include "groupsnap.h"
#include "modes.h"

#define MAGIC "TMQGSNAP"
#define SNAP_VERSION 3
#define SNAP_DIR ".tmq"
#define SNAP_NAME "snapshot"
#define SNAP_MAX (512u << 20)	/* larger files are not snapshots of ours */

/* Every field of the replayed state (group.h) is in the file: one added
 * there without being added here would come back from a snapshot as zero.
 * These stop the build until it is (then raise SNAP_VERSION, and update
 * the sizes here, as an LP64 machine has them). */
#ifdef __LP64__
_Static_assert(sizeof(struct tmq_gmember) == 56,
    "struct tmq_gmember changed: keep its new fields in lib/groupsnap.c");
_Static_assert(offsetof(struct tmq_group, ncommitted) -
    offsetof(struct tmq_group, read_to) == 96,
    "the replayed state of struct tmq_group changed: keep its new fields "
    "in lib/groupsnap.c");
#endif

uint64_t
tmq_gsnap_every(void)
{
	const char *v = getenv("TMQ_SNAPSHOT_EVERY");
	unsigned long long n;
	char *end;

	if (v == NULL || *v < '0' || *v > '9')
		return TMQ_GSNAP_EVERY;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0')
		return TMQ_GSNAP_EVERY;
	return n;
}

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
tmq_gsnap_encode(const struct tmq_group *g, const struct tmq_gsnap_pos *pos,
    unsigned char **out, size_t *n, struct tmq_error *e)
{
	struct out o = { NULL, 0, 0, 0 };
	unsigned i;

	put(&o, MAGIC, 8);
	put_u32(&o, SNAP_VERSION);
	put_u64(&o, g->read_to);
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
	put_u32(&o, g->max_key);
	put_u32(&o, (g->rebalancing ? 1u : 0u) | (g->have_assignment ? 2u : 0u));
	put_f64(&o, g->rebal_end);
	put_u64(&o, g->rebal_offset);
	put_u64(&o, g->ended_offset);
	put_u32(&o, g->nmembers);
	for (i = 0; i < g->nmembers; i++) {
		const struct tmq_gmember *m = &g->members[i];

		put_u32(&o, m->id);
		put_u8(&o, m->claimed != 0);
		put_u8(&o, m->has_confirmed != 0);
		put_u64(&o, m->tag);
		put_f64(&o, m->last_seen);
		put_u64(&o, m->last_offset);
		put_u8(&o, m->left != 0);
		put_parts(&o, m->confirmed, m->nconfirmed);
	}
	put_offers(&o, g->offers, g->noffers);
	put_offers(&o, g->assigned, g->nassigned);
	put_u32(&o, g->ncommitted);
	for (i = 0; i < g->ncommitted; i++)
		put_u64(&o, (uint64_t)g->committed[i]);
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
 * says it covers can produce (group.c's apply is the reference): -1 when
 * the bytes are not a snapshot's (or out of memory), -2 when they are
 * one that no log of ours can leave. */
static int
decode_state(struct in *in, struct tmq_group *g, struct tmq_gsnap_pos *pos,
    struct tmq_error *e)
{
	uint32_t i, c, flags, max = 0;
	uint64_t last_first;

	g->read_to = get_u64(in);
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
	    g->read_to < last_first ||
	    g->read_to - last_first > pos->last_len ||
	    (pos->last_len > 0 && g->read_to == last_first) ||
	    (c == 1 && (pos->first_ino != pos->last_ino ||
	    pos->first_len != pos->last_len)))
		REFUSE("position %llu not in the covered log",
		    (unsigned long long)g->read_to);
	g->max_key = get_u32(in);
	flags = get_u32(in);
	if (flags > 3)
		REFUSE("bad flags %u", flags);
	g->rebalancing = (flags & 1) != 0;
	g->have_assignment = (flags & 2) != 0;
	g->rebal_end = get_f64(in);
	g->rebal_offset = get_u64(in);
	g->ended_offset = get_u64(in);
	/* A BEGINREBAL, if any, is the one in force or the one the last
	 * ENDREBAL closed; the ENDREBAL comes after it, the next BEGINREBAL
	 * after that; an END is a finite time. */
	if (!g->rebalancing && !g->have_assignment ?
	    g->rebal_offset != 0 || g->rebal_end != 0 :
	    g->rebal_offset >= g->read_to || !isfinite(g->rebal_end))
		REFUSE("bad rebalance offset %llu",
		    (unsigned long long)g->rebal_offset);
	if (!g->have_assignment ? g->ended_offset != 0 :
	    g->ended_offset >= g->read_to || (g->rebalancing ?
	    g->ended_offset >= g->rebal_offset :
	    g->ended_offset <= g->rebal_offset))
		REFUSE("bad rebalance end %llu",
		    (unsigned long long)g->ended_offset);
	/* Each member was heard on a line of its own: no more of them than
	 * lines. */
	c = get_count(in, 35);
	if (c > g->read_to)
		REFUSE("%u members in %llu lines", c,
		    (unsigned long long)g->read_to);
	g->members = calloc(c ? c : 1, sizeof *g->members);
	if (g->members == NULL)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < c && !in->bad; i++) {
		struct tmq_gmember *m = &g->members[i];
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
		g->nmembers = i + 1;
		if (m->id > max)
			max = m->id;
		if (in->bad)
			break;
		if (claimed > 1 || conf > 1 || left > 1 ||
		    (!claimed && m->tag != 0) || (!conf && m->nconfirmed != 0))
			REFUSE("member %u: bad flags", (unsigned)m->id);
		if (m->last_offset >= g->read_to)
			REFUSE("member %u: heard at offset %llu, past the covered "
			    "log", (unsigned)m->id,
			    (unsigned long long)m->last_offset);
	}
	if (in->bad == 2)
		return -2;
	/* Every message's key is a member, and max_key the largest of them:
	 * a new member takes max_key + 1, so it must be exact. */
	if (!in->bad && max != g->max_key)
		REFUSE("bad largest member id %u", g->max_key);
	g->offers = get_offers(in, &g->noffers, pos->nparts, "offer of member",
	    e);
	g->assigned = get_offers(in, &g->nassigned, pos->nparts,
	    "share of member", e);
	if (in->bad == 2)
		return -2;
	if (!in->bad && (!g->rebalancing && g->noffers != 0))
		REFUSE("offers outside a rebalance");
	if (!in->bad && !g->have_assignment && g->nassigned != 0)
		REFUSE("shares without a rebalance");
	c = get_count(in, 8);
	if (c > pos->nparts)
		REFUSE("commits of %u partitions, of %u", c, pos->nparts);
	g->committed = malloc((c ? c : 1) * sizeof *g->committed);
	if (g->committed == NULL)
		return tmq_fail(e, "out of memory");
	g->ncommitted = c;
	for (i = 0; i < c; i++) {
		g->committed[i] = (int64_t)get_u64(in);
		/* What a COMMIT can say: an offset of 0 to 2^63-1, or -1
		 * ("now"); never committed (-2) only below the last one. */
		if (!in->bad && (g->committed[i] < TMQ_NOT_COMMITTED ||
		    (g->committed[i] == TMQ_NOT_COMMITTED && i == c - 1)))
			REFUSE("partition %u: committed offset %lld is not one "
			    "a commit can hold", (unsigned)i,
			    (long long)g->committed[i]);
	}
	if (in->bad)
		REFUSE("truncated");
	if (in->at != in->n)
		REFUSE("trailing bytes");
	/* Ids once each in members, offers and shares (the indexes). */
	if (tmq_group_reindex(g, e) < 0)
		return -2;
	for (i = 0; i < g->noffers; i++) {
		const struct tmq_offer *o = &g->offers[i];
		const struct tmq_gmember *m = tmq_group_find_member(g,
		    o->member);

		/* An offer under way is its member's latest line of the
		 * kind, after the BEGINREBAL; it left when it took nothing. */
		if (m == NULL || m->last_offset <= g->rebal_offset ||
		    m->left != (o->nparts == 0))
			REFUSE("offer of member %u not its own",
			    (unsigned)o->member);
	}
	for (i = 0; i < g->nassigned; i++)
		if (tmq_group_find_member(g, g->assigned[i].member) == NULL)
			REFUSE("share of member %u, not a member",
			    (unsigned)g->assigned[i].member);
	if (g->have_assignment && tmq_assign(g->assigned, g->nassigned,
	    pos->nparts, e) < 0)
		return -1;
	return 0;
}

#undef REFUSE

int
tmq_gsnap_decode(const unsigned char *p, size_t n, struct tmq_group *g,
    struct tmq_gsnap_pos *pos, struct tmq_error *e)
{
	struct in in;
	unsigned char h[8];
	uint64_t sum = 0;
	int i, rc;

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
	rc = decode_state(&in, g, pos, e);
	if (rc < 0) {
		tmq_group_state_free(g);
		tmq_gsnap_pos_free(pos);
		return rc;
	}
	return 0;
}

/* --- The log's side --------------------------------------------------- */

/* XXH3 of the first (or last) TMQ_GSNAP_BLOCK bytes of the first len bytes
 * of fd, seeded with len. */
static int
hash_block(int fd, int how, uint64_t len, int last, uint64_t *h)
{
	unsigned char buf[TMQ_GSNAP_BLOCK];
	size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
	off_t at = last ? (off_t)(len - n) : 0;
	size_t got = 0;

	while (got < n) {
		ssize_t r = tmq_dr_pread(fd, how, buf + got, n - got,
		    at + (off_t)got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*h = XXH3_64bits_withSeed(buf, n, len);
	return 0;
}

/* Inode and size of an open file; -1 unless it is a regular file. */
static int
ino_size(int fd, uint64_t *ino, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	*ino = (uint64_t)st.st_ino;
	*size = (uint64_t)st.st_size;
	return 0;
}

static int
open_log_file(const struct tmq_group *g, size_t i, int *how)
{
	return tmq_dr_openat(g->log.dirfd, g->lr.files[i].name, how, NULL);
}

/* Check the covered part of the log against pos. */
static int
verify(struct tmq_group *g, const struct tmq_gsnap_pos *pos,
    struct tmq_error *e)
{
	uint64_t ino, size, h;
	size_t i, last = pos->nfiles - 1;
	int fd, rc, how;

	if (g->lr.nfiles < pos->nfiles)
		return tmq_fail(e, "log files gone");
	for (i = 0; i < pos->nfiles; i++)
		if (g->lr.files[i].first != pos->firsts[i] ||
		    g->lr.files[i].day != pos->days[i])
			return tmq_fail(e, "log files differ");
	if (last > 0) {
		fd = open_log_file(g, 0, &how);
		if (fd < 0)
			return tmq_fail_errno(e, "%s", g->lr.files[0].name);
		rc = ino_size(fd, &ino, &size) < 0 || ino != pos->first_ino ||
		    size != pos->first_len ||
		    hash_block(fd, how, size, 0, &h) < 0 ||
		    h != pos->first_hash;
		close(fd);
		if (rc)
			return tmq_fail(e, "first log file changed");
	}
	/* From here on, the reader's own descriptor: the bytes checked are
	 * those it goes on from. */
	if (tmq_lr_seek_byte(&g->lr, last, pos->last_len, g->read_to, e) < 0)
		return -1;
	fd = g->lr.fd;
	if (ino_size(fd, &ino, &size) < 0 || ino != pos->last_ino ||
	    size < pos->last_len)
		return tmq_fail(e, "last log file changed");
	if (last == 0 && (hash_block(fd, g->lr.how, pos->first_len, 0, &h) < 0 ||
	    h != pos->first_hash))
		return tmq_fail(e, "log file changed");
	if (hash_block(fd, g->lr.how, pos->last_len, 1, &h) < 0 ||
	    h != pos->last_hash)
		return tmq_fail(e, "log changed");
	return 0;
}

/* The log's dot-folder, never through a link (beneath.h). */
static int
open_snapdir(const struct tmq_group *g, int create)
{
	int fd = tmq_subdir_beneath(g->log.dirfd, SNAP_DIR, create, 0777);

	if (fd >= 0 && create)
		tmq_mode_follow(g->log.dirfd, fd);
	return fd;
}

/* Remove what writers killed between writing and renaming left behind:
 * our temporary files, a minute old or more (a writer takes milliseconds;
 * one that stalls that long only loses its rename). */
static void
sweep(int dfd)
{
	struct dirent *de;
	struct stat st;
	time_t now = time(NULL);
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, SNAP_NAME ".", sizeof SNAP_NAME) != 0 ||
		    n < 4 || strcmp(de->d_name + n - 4, ".tmp") != 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_mtime + 60 <= now)
			unlinkat(dfd, de->d_name, 0);
	}
	closedir(d);
}

/* The snapshot file, whole; NULL when there is none that could be ours. */
static unsigned char *
read_snapshot(const struct tmq_group *g, size_t *n, struct tmq_error *e)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0;
	int dfd, fd;

	dfd = open_snapdir(g, 0);
	if (dfd < 0) {
		tmq_fail_errno(e, "no snapshot");
		return NULL;
	}
	/* Not following links, not blocking on a FIFO someone put there. */
	fd = openat(dfd, SNAP_NAME, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK);
	close(dfd);
	if (fd < 0) {
		tmq_fail_errno(e, "no snapshot");
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 20 ||
	    (uint64_t)st.st_size > SNAP_MAX) {
		tmq_fail(e, "not a group snapshot");
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size);
	while (buf != NULL && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			buf = NULL;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (buf == NULL)
		tmq_fail(e, "cannot read the snapshot");
	*n = got;
	return buf;
}

int
tmq_gsnap_load(struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_gsnap_pos pos;
	unsigned char *buf;
	size_t n;
	int rc;

	if (g->read_to != 0 || g->nmembers != 0 || g->ncommitted != 0 ||
	    g->lr.nfiles == 0)
		return tmq_fail(e, "no snapshot for a state under way"), 0;
	buf = read_snapshot(g, &n, e);
	if (buf == NULL)
		return 0;
	rc = tmq_gsnap_decode(buf, n, g, &pos, e);
	free(buf);
	if (rc == -2) {
		/* Sealed, so no accident, yet no log of ours leaves it: said
		 * (once: a reader loads only at its start), and replaced by
		 * this reader once it has read the log. */
		char msg[sizeof e->msg + 128];

		g->snap_refused = 1;
		if (g->notice != NULL) {
			snprintf(msg, sizeof msg, "group %s: %s/%s/%s refused "
			    "(%s): the log is read in full", g->name,
			    g->log.name, SNAP_DIR, SNAP_NAME, e->msg);
			g->notice(g->notice_arg, msg);
		}
	}
	if (rc < 0)
		return 0;
	if (pos.nparts != g->nparts) {
		tmq_fail(e, "read with %u partitions, not %u", pos.nparts,
		    g->nparts);
		tmq_gsnap_pos_free(&pos);
		tmq_group_state_free(g);
		return 0;
	}
	if (verify(g, &pos, e) < 0) {
		tmq_gsnap_pos_free(&pos);
		tmq_group_state_free(g);
		/* Back to the start, for the full replay. */
		if (tmq_lr_seek(&g->lr, 0, NULL, e) < 0)
			return -1;
		return 0;
	}
	tmq_gsnap_pos_free(&pos);
	g->snap_at = g->read_to;
	return 1;
}

int
tmq_gsnap_save(struct tmq_group *g, struct tmq_error *e)
{
	struct tmq_gsnap_pos pos;
	unsigned char *buf = NULL;
	char tmp[64];
	uint64_t rnd, size;
	size_t file, n, i, off;
	int dfd = -1, fd = -1, rc = -1, how = 0;

	memset(&pos, 0, sizeof pos);
	g->snap_at = g->read_to;	/* whatever happens, not again at once */
	g->snap_refused = 0;
	pos.nparts = g->nparts;
	if (tmq_lr_tell(&g->lr, &file, &pos.last_len) < 0)
		return tmq_fail(e, "not at a line's start");
	pos.nfiles = (unsigned)file + 1;
	pos.firsts = malloc(pos.nfiles * sizeof *pos.firsts);
	pos.days = malloc(pos.nfiles * sizeof *pos.days);
	if (pos.firsts == NULL || pos.days == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	for (i = 0; i < pos.nfiles; i++) {
		pos.firsts[i] = g->lr.files[i].first;
		pos.days[i] = g->lr.files[i].day;
	}
	if (ino_size(g->lr.fd, &pos.last_ino, &size) < 0 ||
	    hash_block(g->lr.fd, g->lr.how, pos.last_len, 1,
	    &pos.last_hash) < 0) {
		tmq_fail(e, "cannot read the log");
		goto out;
	}
	if (file == 0) {
		pos.first_ino = pos.last_ino;
		pos.first_len = pos.last_len;
		fd = g->lr.fd;
		how = g->lr.how;
	} else {
		fd = open_log_file(g, 0, &how);
		if (fd < 0 || ino_size(fd, &pos.first_ino, &pos.first_len) < 0) {
			tmq_fail(e, "cannot read the log");
			goto out;
		}
	}
	if (hash_block(fd, how, pos.first_len, 0, &pos.first_hash) < 0) {
		tmq_fail(e, "cannot read the log");
		goto out;
	}
	if (fd != g->lr.fd)
		close(fd);
	fd = -1;
	if (tmq_gsnap_encode(g, &pos, &buf, &n, e) < 0)
		goto out;
	/* No reader would take it (read_snapshot). */
	if (n > SNAP_MAX) {
		tmq_fail(e, "a snapshot of %zu bytes is too large", n);
		goto out;
	}
	dfd = open_snapdir(g, 1);
	if (dfd < 0) {
		tmq_fail_errno(e, "%s", SNAP_DIR);
		goto out;
	}
	if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
		rnd = (uint64_t)getpid() * 2654435761u ^ g->read_to;
	snprintf(tmp, sizeof tmp, "%s.%ld.%016llx.tmp", SNAP_NAME,
	    (long)getpid(), (unsigned long long)rnd);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0666);
	if (fd < 0) {
		tmq_fail_errno(e, "%s/%s", SNAP_DIR, tmp);
		goto out;
	}
	tmq_mode_follow(dfd, fd);
	for (off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	/* No fsync: a snapshot torn by a crash fails its checksum, and costs
	 * one full replay. */
	if (off != n || close(fd) < 0 ||
	    renameat(dfd, tmp, dfd, SNAP_NAME) < 0) {
		tmq_fail_errno(e, "%s/%s", SNAP_DIR, SNAP_NAME);
		if (off != n)
			close(fd);
		unlinkat(dfd, tmp, 0);
		fd = -1;
		goto out;
	}
	fd = -1;
	rc = 0;
	sweep(dfd);
out:
	if (fd >= 0 && fd != g->lr.fd)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(buf);
	tmq_gsnap_pos_free(&pos);
	return rc;
}
