/* t-groupproto.c: the group protocol (tmq-format(5), Consumer groups) as
 * lib/group/groupstate.c applies it, message by message, with no root on
 * disk: each message is a JSON body read by the log's own parser
 * (groupmsg.h) and applied at a log offset, under a key, at a time; each
 * expectation is worked out by hand from the page.  Every kind of
 * message; the member id rule (the largest key plus one) and the first
 * JOINED's claim; rebalances started afresh by a later BEGINREBAL; a
 * member's later offer replacing its earlier one; the assignment taken
 * once, at the first ENDREBAL of a rebalance; commits, the latest
 * winning; partitions the topic does not have; a member leaving; lines
 * out of order or skipped; and every state met here surviving the
 * snapshot's encoding (groupsnap.c) field for field. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "group/groupmsg.h"
#include "group/groupsnap.h"
#include "group/groupstate.h"
#include "tap.h"

#define NPARTS 4

static struct tmq_gparser parser;

static void
die(const char *what, const struct tmq_error *e)
{
	diag("%s: %s", what, e->msg);
	exit(99);
}

/* The line at offset, under key, at time ts, of kind k with JSON body,
 * applied to s: what tmq_gstate_apply returned. */
static int
line(struct tmq_gstate *s, uint64_t offset, uint32_t key, double ts,
    enum tmq_gkind k, const char *body)
{
	struct tmq_gmsg m;
	struct tmq_error e;
	int rc;

	memset(&m, 0, sizeof m);
	if (tmq_gmsg_parse(&parser, k, body, strlen(body), &m, &e) < 0)
		die(body, &e);
	m.member = key;
	m.offset = offset;
	m.ts = ts;
	rc = tmq_gstate_apply(s, &m, &e);
	if (rc < 0)
		diag("apply: %s", e.msg);
	tmq_gmsg_clear(&m);
	return rc;
}

/* Lines at offsets from s->read_to on, one a call. */
static void
next(struct tmq_gstate *s, uint32_t key, enum tmq_gkind k, const char *body)
{
	if (line(s, s->read_to, key, 1000.0 + (double)s->read_to, k, body) < 0)
		exit(99);
}

static int
same_list(const unsigned *a, unsigned na, const unsigned *b, unsigned nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static int
same_offers(const struct tmq_offer *a, unsigned na, const struct tmq_offer *b,
    unsigned nb, int got)
{
	unsigned i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].member != b[i].member || a[i].own_extra != b[i].own_extra ||
		    !same_list(a[i].own, a[i].nown, b[i].own, b[i].nown) ||
		    !same_list(a[i].parts, a[i].nparts, b[i].parts, b[i].nparts) ||
		    (got && !same_list(a[i].got, a[i].ngot, b[i].got, b[i].ngot)))
			return 0;
	return 1;
}

/* A field added to the state (groupstate.h) must be compared below and
 * carried by the snapshot (groupsnap.c), or it would come back from a
 * snapshot as zero unseen: these stop this test's build until it is (then
 * update the sizes, as an LP64 machine has them).  The guard is here, not
 * in lib/: the state knows nothing of its encoding. */
#ifdef __LP64__
_Static_assert(offsetof(struct tmq_gstate, member_ix) == 112,
    "struct tmq_gstate changed: compare its new field in same() and carry "
    "it in lib/group/groupsnap.c");
_Static_assert(sizeof(struct tmq_gmember) == 56,
    "struct tmq_gmember changed: compare its new field in same() and carry "
    "it in lib/group/groupsnap.c");
#endif

/* Every field of the state (groupstate.h), the indexes too. */
static int
same(const struct tmq_gstate *a, const struct tmq_gstate *b)
{
	unsigned i;

	if (a->nparts != b->nparts || a->read_to != b->read_to ||
	    a->max_key != b->max_key || a->nmembers != b->nmembers ||
	    a->rebalancing != b->rebalancing || a->rebal_end != b->rebal_end ||
	    a->rebal_offset != b->rebal_offset ||
	    a->have_assignment != b->have_assignment ||
	    a->ended_offset != b->ended_offset ||
	    a->ncommitted != b->ncommitted ||
	    (a->ncommitted > 0 && memcmp(a->committed, b->committed,
	    a->ncommitted * sizeof *a->committed) != 0))
		return 0;
	for (i = 0; i < a->nmembers; i++) {
		const struct tmq_gmember *x = &a->members[i], *y = &b->members[i];

		if (x->id != y->id || x->claimed != y->claimed ||
		    x->tag != y->tag || x->last_seen != y->last_seen ||
		    x->last_offset != y->last_offset || x->left != y->left ||
		    x->has_confirmed != y->has_confirmed ||
		    !same_list(x->confirmed, x->nconfirmed, y->confirmed,
		    y->nconfirmed) || tmq_gstate_find(b, x->id) != y)
			return 0;
	}
	for (i = 0; i < b->noffers; i++)
		if (tmq_gstate_offer(b, b->offers[i].member) != &b->offers[i])
			return 0;
	for (i = 0; i < b->nassigned; i++)
		if (tmq_gstate_share(b, b->assigned[i].member) != &b->assigned[i])
			return 0;
	return same_offers(a->offers, a->noffers, b->offers, b->noffers, 0) &&
	    same_offers(a->assigned, a->nassigned, b->assigned, b->nassigned, 1);
}

/* s through the snapshot's encoding and back, as a log of read_to lines
 * of a byte each at least would carry it. */
static void
round_trip(const struct tmq_gstate *s, const char *what)
{
	struct tmq_gsnap_pos pos, got_pos;
	struct tmq_gstate got;
	struct tmq_error e;
	uint64_t first = 0;
	unsigned day = 20261201;
	unsigned char *b;
	size_t n;
	int rc;

	memset(&pos, 0, sizeof pos);
	pos.nparts = s->nparts;
	pos.firsts = &first;
	pos.days = &day;
	pos.nfiles = 1;
	pos.first_len = pos.last_len = 100 * s->read_to;
	pos.first_ino = pos.last_ino = 7;
	if (tmq_gsnap_encode(s, &pos, &b, &n, &e) < 0)
		die("encode", &e);
	tmq_gstate_init(&got, 1);
	rc = tmq_gsnap_decode(b, n, &got, &got_pos, &e);
	if (!is_int(rc, 0, "  %s: through a snapshot", what))
		diag("%s", e.msg);
	else {
		ok(same(s, &got), "  %s: the same state, field for field", what);
		tmq_gsnap_pos_free(&got_pos);
	}
	tmq_gstate_free(&got);
	free(b);
}

static int
is_list(const unsigned *v, unsigned n, const char *want)
{
	char buf[256];
	size_t at = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < n && at < sizeof buf - 16; i++)
		at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%u",
		    i ? "," : "", v[i]);
	if (strcmp(buf, want) != 0)
		diag("list: got '%s', want '%s'", buf, want);
	return strcmp(buf, want) == 0;
}

static const unsigned *
got_of(const struct tmq_gstate *s, uint32_t member, unsigned *n)
{
	const struct tmq_offer *o = tmq_gstate_share(s, member);

	*n = o ? o->ngot : 0;
	return o ? o->got : NULL;
}

#define SHARE(s, m, want) \
	do { unsigned n_; const unsigned *g_ = got_of(s, m, &n_); \
	    ok(tmq_gstate_share(s, m) != NULL && is_list(g_, n_, want), \
	    "  member %u gets {%s}", (unsigned)(m), want); } while (0)

/* Creating and joining: the creator's commit under key 0, members taking
 * the largest key plus one, the first JOINED of an id claiming it. */
static void
test_join(void)
{
	struct tmq_gstate s;
	struct tmq_error e;
	uint32_t id = 0;

	tmq_gstate_init(&s, NPARTS);
	ok(tmq_gstate_new_id(&s, &id) == 0 && id == 1,
	    "an empty log: the first id is 1");
	next(&s, 0, TMQ_G_COMMIT, "{\"partition_offsets\":[[0,0],[1,0],[2,0],"
	    "[3,0]]}");
	ok(tmq_gstate_new_id(&s, &id) == 0 && id == 1,
	    "after the creator's commit under key 0: id 1");
	ok(tmq_gstate_find(&s, 0) != NULL && !tmq_gstate_find(&s, 0)->claimed,
	    "  key 0 is a member by its line, unclaimed");
	is_int(tmq_gstate_claim(&s, 1, 99), 0, "  id 1 claimed by nobody yet");
	next(&s, 1, TMQ_G_JOINED, "{\"tag\":18446744073709551615}");
	is_int(tmq_gstate_claim(&s, 1, UINT64_MAX), 1,
	    "JOINED 1 with tag 2^64-1: the id is that tag's");
	next(&s, 1, TMQ_G_JOINED, "{\"tag\":5}");
	is_int(tmq_gstate_claim(&s, 1, 5), -1,
	    "a second JOINED for 1: the first one's claim stands");
	ok(tmq_gstate_find(&s, 1)->tag == UINT64_MAX, "  its tag kept");
	next(&s, 1, TMQ_G_ABORTJOIN, "{\"tag\":5}");
	is_int(tmq_gstate_claim(&s, 1, UINT64_MAX), 1,
	    "the loser's ABORTJOIN changes no claim");
	ok(tmq_gstate_new_id(&s, &id) == 0 && id == 2, "next id: 2");
	next(&s, 7, TMQ_G_COMMIT, "{\"partition_offsets\":[]}");
	ok(tmq_gstate_new_id(&s, &id) == 0 && id == 8,
	    "a line of any kind under key 7: next id 8");
	is_int((int)s.max_key, 7, "  the largest key 7");
	ok(tmq_gstate_find(&s, 7)->last_offset == 4 &&
	    tmq_gstate_find(&s, 7)->last_seen == 1004.0,
	    "  heard at the line's offset and time");
	next(&s, 3, TMQ_G_JOINED, "{\"tag\":3}");
	ok(tmq_gstate_new_id(&s, &id) == 0 && id == 8,
	    "a smaller key later: still 8");
	is_int((int)s.nmembers, 4, "keys 0, 1, 7, 3: four members");
	ok(s.members[3].id == 3, "  in the order first heard");
	round_trip(&s, "after joins");
	line(&s, s.read_to, UINT32_MAX, 0, TMQ_G_JOINED, "{\"tag\":1}");
	is_int(tmq_gstate_new_id(&s, &id), -1, "key 2^32-1 seen: no id left");
	is_int((int)s.read_to, 7, "seven lines: read to 7");
	/* Out of order: refused, and nothing changes. */
	is_int(line(&s, 3, 9, 0, TMQ_G_JOINED, "{\"tag\":9}"), -1,
	    "a line at an offset already read is refused");
	ok(tmq_gstate_find(&s, 9) == NULL && s.read_to == 7, "  state unchanged");
	tmq_gstate_skip(&s, 9);
	is_int((int)s.read_to, 10, "lines 7 to 9 skipped (not decoded): read to 10");
	is_int(line(&s, 10, 9, 0, TMQ_G_JOINED, "{\"tag\":9}"), 0,
	    "  and the next line applies");
	(void)e;
	tmq_gstate_free(&s);
	ok(s.nmembers == 0 && s.read_to == 0 && s.members == NULL &&
	    s.nparts == NPARTS, "freed: empty, for the same topic");
}

/* Rebalances: offers counted from the latest BEGINREBAL, a member's later
 * offer replacing its earlier one, the assignment by the page's rule. */
static void
test_rebalance(void)
{
	struct tmq_gstate s;
	const struct tmq_gmember *m;

	tmq_gstate_init(&s, NPARTS);
	next(&s, 0, TMQ_G_COMMIT, "{\"partition_offsets\":[[0,0]]}");
	next(&s, 1, TMQ_G_JOINED, "{\"tag\":11}");
	next(&s, 2, TMQ_G_JOINED, "{\"tag\":22}");
	next(&s, 3, TMQ_G_JOINED, "{\"tag\":33}");
	/* An offer outside a rebalance is no offer. */
	next(&s, 1, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[0,1,2,3]}");
	ok(!s.rebalancing && s.noffers == 0 && tmq_gstate_offer(&s, 1) == NULL,
	    "an offer outside a rebalance: no offer");
	next(&s, 1, TMQ_G_ENDREBAL, "{}");
	ok(!s.have_assignment && s.nassigned == 0,
	    "an ENDREBAL outside a rebalance: nothing");
	next(&s, 1, TMQ_G_BEGINREBAL, "{\"timestamp\":1795564800.5}");
	ok(s.rebalancing && s.rebal_end == 1795564800.5 && s.rebal_offset == 6,
	    "BEGINREBAL at 6: a rebalance until its END");
	next(&s, 1, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[0,1,2,3]}");
	next(&s, 2, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[0,1,2,3]}");
	is_int((int)s.noffers, 2, "two offers");
	round_trip(&s, "offers under way");
	/* A later BEGINREBAL starts afresh: the offers before it go. */
	next(&s, 3, TMQ_G_BEGINREBAL, "{\"timestamp\":1795564900.25}");
	ok(s.rebalancing && s.noffers == 0 && s.rebal_offset == 9 &&
	    s.rebal_end == 1795564900.25, "a second BEGINREBAL: no offers, "
	    "its END and offset");
	/* 1 owns 0 and 1 (and names 1 twice: counted as owned), accepts
	 * all; 2 first offers all, then only 1 and 3: the later counts; 3
	 * owns 3, accepts 2 and 3. */
	next(&s, 1, TMQ_G_REBALOFFER, "{\"own\":[0,1,1],\"partitions\":"
	    "[0,1,2,3]}");
	next(&s, 2, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[0,1,2,3]}");
	next(&s, 3, TMQ_G_REBALOFFER, "{\"own\":[3],\"partitions\":[2,3]}");
	next(&s, 2, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[1,3]}");
	is_int((int)s.noffers, 3, "three members, three offers");
	ok(tmq_gstate_offer(&s, 2) != NULL &&
	    is_list(tmq_gstate_offer(&s, 2)->parts,
	    tmq_gstate_offer(&s, 2)->nparts, "1,3"),
	    "  2's later offer replaced its earlier one");
	ok(tmq_gstate_offer(&s, 1)->own_extra == 1, "  1's repeat of 1 counted");
	round_trip(&s, "offers replaced");
	next(&s, 2, TMQ_G_ENDREBAL, "{}");
	/* By hand (tmq-format(5), Assigning): 3 takes 2 partitions, 2 takes
	 * 2, 1 takes 4; 3 and 2 tie at 2, 3 owns one, 2 none: the order is
	 * 3, 2, 1.  Lists: 3 [3, 2]; 2 [1, 3]; 1 [0, 1, 2, 3] (owned first:
	 * 0, 1, with the repeat).  Round one: 3 takes 3, 2 takes 1, 1 takes
	 * 0; round two: 3 takes 2, 2 nothing left of its list, 1 nothing. */
	ok(!s.rebalancing && s.have_assignment && s.ended_offset == 14,
	    "ENDREBAL at 14: the rebalance is over");
	SHARE(&s, 1, "0");
	SHARE(&s, 2, "1");
	SHARE(&s, 3, "2,3");
	ok(s.noffers == 0 && tmq_gstate_offer(&s, 1) == NULL,
	    "  no offers under way");
	round_trip(&s, "assigned");
	/* A second ENDREBAL for the same rebalance changes nothing: the
	 * assignment (and so each confirm) is once per rebalance. */
	next(&s, 3, TMQ_G_ENDREBAL, "{}");
	ok(s.ended_offset == 14 && s.nassigned == 3, "a second ENDREBAL: "
	    "nothing, the first one's assignment stays");
	SHARE(&s, 3, "2,3");
	next(&s, 3, TMQ_G_REBALCONFIRM, "{\"partitions\":[2,3]}");
	next(&s, 3, TMQ_G_REBALCONFIRM, "{\"partitions\":[3]}");
	m = tmq_gstate_find(&s, 3);
	ok(m->has_confirmed && is_list(m->confirmed, m->nconfirmed, "3"),
	    "REBALCONFIRM: the member's latest confirm");
	ok(!tmq_gstate_find(&s, 2)->has_confirmed, "  2 has confirmed nothing");
	/* Leaving: a rebalance in which 2 offers nothing. */
	next(&s, 2, TMQ_G_BEGINREBAL, "{\"timestamp\":1795565000}");
	next(&s, 2, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[]}");
	ok(tmq_gstate_find(&s, 2)->left, "an offer of nothing: 2 left");
	round_trip(&s, "a member leaving");
	next(&s, 1, TMQ_G_REBALOFFER, "{\"own\":[0],\"partitions\":[0,1,2,3]}");
	next(&s, 3, TMQ_G_REBALOFFER, "{\"own\":[3],\"partitions\":[2,3]}");
	next(&s, 1, TMQ_G_ENDREBAL, "{}");
	/* 3 (2 accepted) before 1 (4): 3 [3, 2], 1 [0, 1, 2, 3]; 3 takes
	 * 3, 1 takes 0, 3 takes 2, 1 takes 1. */
	SHARE(&s, 1, "0,1");
	SHARE(&s, 3, "2,3");
	SHARE(&s, 2, "");
	next(&s, 2, TMQ_G_BEGINREBAL, "{\"timestamp\":1795565100}");
	next(&s, 2, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[1]}");
	ok(!tmq_gstate_find(&s, 2)->left, "an offer of something: 2 is back");
	round_trip(&s, "back");
	/* An observer's close (tmq_group_settle): the offers it has. */
	is_int(tmq_gstate_end_rebalance(&s, s.read_to, NULL), 0,
	    "closed by an observer");
	SHARE(&s, 2, "1");
	ok(tmq_gstate_share(&s, 1) == NULL && s.ended_offset == s.read_to &&
	    tmq_gstate_find(&s, 0)->last_offset == 0,
	    "  1 offered nothing in it: no share; nobody's line");
	is_int(tmq_gstate_end_rebalance(&s, s.read_to, NULL), 0,
	    "  again: nothing to close");
	tmq_gstate_free(&s);
}

/* Commits: per partition the latest; "now" (-1) kept as said; never
 * committed below; partitions past the topic ignored. */
static void
test_commits(void)
{
	struct tmq_gstate s;

	tmq_gstate_init(&s, NPARTS);
	is_int((int)tmq_gstate_committed(&s, 0), TMQ_NOT_COMMITTED,
	    "nothing committed yet");
	next(&s, 0, TMQ_G_COMMIT, "{\"partition_offsets\":[[1,5]]}");
	ok(tmq_gstate_committed(&s, 0) == TMQ_NOT_COMMITTED &&
	    tmq_gstate_committed(&s, 1) == 5 &&
	    tmq_gstate_committed(&s, 2) == TMQ_NOT_COMMITTED,
	    "1 at 5; 0 and 2 never");
	is_int((int)s.ncommitted, 2, "  up to the last one committed");
	next(&s, 4, TMQ_G_COMMIT, "{\"partition_offsets\":[[1,3],[2,-1],"
	    "[0,9]]}");
	ok(tmq_gstate_committed(&s, 1) == 3 && tmq_gstate_committed(&s, 2) == -1
	    && tmq_gstate_committed(&s, 0) == 9, "the latest wins, lower or "
	    "not; -1 (now) kept");
	next(&s, 5, TMQ_G_COMMIT, "{\"partition_offsets\":[[1,8],[1,7]]}");
	is_int((int)tmq_gstate_committed(&s, 1), 7,
	    "twice in one commit: its last");
	next(&s, 5, TMQ_G_COMMIT, "{\"partition_offsets\":[[3,"
	    "9223372036854775807],[2,4]]}");
	ok(tmq_gstate_committed(&s, 3) == INT64_MAX &&
	    tmq_gstate_committed(&s, 2) == 4 && s.ncommitted == 4,
	    "2^63-1 kept");
	round_trip(&s, "commits");
	/* Past the topic: the parser drops them, and the state, given them
	 * anyway, ignores them. */
	next(&s, 5, TMQ_G_COMMIT, "{\"partition_offsets\":[[4,1],[70000,2],"
	    "[0,10]]}");
	ok(s.ncommitted == NPARTS && tmq_gstate_committed(&s, 4) ==
	    TMQ_NOT_COMMITTED && tmq_gstate_committed(&s, 0) == 10,
	    "partitions 4 and 70000 of a 4-partition topic ignored, 0 taken");
	{
		struct tmq_poff po[2] = { { 9, 1 }, { 1, 2 } };
		struct tmq_gmsg m;
		struct tmq_error e;

		memset(&m, 0, sizeof m);
		m.kind = TMQ_G_COMMIT;
		m.commits = po;
		m.ncommits = 2;
		m.member = 5;
		m.offset = s.read_to;
		ok(tmq_gstate_apply(&s, &m, &e) == 0 && s.ncommitted == NPARTS &&
		    tmq_gstate_committed(&s, 1) == 2, "a commit of partition 9 "
		    "applied by hand: ignored, the rest taken");
	}
	tmq_gstate_free(&s);
}

/* Offers naming partitions the topic does not have: dropped when read,
 * never shared out. */
static void
test_out_of_range(void)
{
	struct tmq_gstate s;
	struct tmq_gmsg m;
	struct tmq_error e;
	const char *body = "{\"own\":[7],\"partitions\":[0,7,2]}";

	memset(&m, 0, sizeof m);
	ok(tmq_gmsg_parse(&parser, TMQ_G_REBALOFFER, body, strlen(body), &m,
	    &e) == 0 && m.has_absent && m.absent == 7 &&
	    is_list(m.parts, m.nparts, "0,2") && m.nown == 0,
	    "an offer naming partition 7 of 4: read as {0,2}, owning nothing");
	tmq_gmsg_clear(&m);
	tmq_gstate_init(&s, NPARTS);
	next(&s, 1, TMQ_G_BEGINREBAL, "{\"timestamp\":5}");
	next(&s, 1, TMQ_G_REBALOFFER, body);
	next(&s, 2, TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[3]}");
	next(&s, 2, TMQ_G_ENDREBAL, "{}");
	/* 2 accepts 1, 1 accepts 2: 2 takes 3; 1 takes 0, then 2. */
	SHARE(&s, 1, "0,2");
	SHARE(&s, 2, "3");
	next(&s, 1, TMQ_G_REBALCONFIRM, "{\"partitions\":[9,2,0]}");
	ok(is_list(tmq_gstate_find(&s, 1)->confirmed,
	    tmq_gstate_find(&s, 1)->nconfirmed, "0,2"),
	    "a confirm naming 9: read as {0,2}");
	round_trip(&s, "out of range dropped");
	tmq_gstate_free(&s);
}

int
main(void)
{
	struct tmq_error e;

	if (tmq_gparser_init(&parser, NPARTS, &e) < 0)
		die("parser", &e);
	test_join();
	test_rebalance();
	test_commits();
	test_out_of_range();
	tmq_gparser_free(&parser);
	return done_testing();
}
