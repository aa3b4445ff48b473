/* t-assignment.c: lib/group/assignment, who gets which partition after a
 * rebalance (tmq-format(5), Consumer groups, Assigning).  Each case is
 * worked by hand from the rules and
 * was checked against the library's own RebalInProgress.get_assignments:
 * owners keep what they own where they can, members go in order of
 * (accepted ascending, owned descending, id ascending), a member offering
 * nothing gets nothing, `own` entries not accepted are dropped, and the
 * vectors' two rebalances give 1:[0,2,4] 2:[1,3]; partitions past the
 * topic's count are ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/assignment.h"
#include "tap.h"

#define MAXM 4
#define MAXP 8
#define END 99u			/* ends a partition list */

/* One member's offer and the share it must get, lists ended by END. */
struct member_case {
	uint32_t id;
	unsigned own[MAXP + 2], parts[MAXP + 2], want[MAXP + 2];
};

struct acase {
	const char *name;
	unsigned n;
	struct member_case m[MAXM];
};

static unsigned
count(const unsigned *v)
{
	unsigned n = 0;

	while (v[n] != END)
		n++;
	return n;
}

/* "[0,2,4]" */
static const char *
show(const unsigned *v, unsigned n, char *buf, size_t sz)
{
	size_t len = 0;
	unsigned i;

	len += (size_t)snprintf(buf, sz, "[");
	for (i = 0; i < n && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%u", i ? "," : "",
		    v[i]);
	if (len < sz)
		snprintf(buf + len, sz - len, "]");
	return buf;
}

static void
run_case(const struct acase *c)
{
	struct tmq_offer o[MAXM];
	struct tmq_error e;
	unsigned i;
	int rc;

	memset(o, 0, sizeof o);
	for (i = 0; i < c->n; i++) {
		o[i].member = c->m[i].id;
		o[i].own = (unsigned *)c->m[i].own;
		o[i].nown = count(c->m[i].own);
		o[i].parts = (unsigned *)c->m[i].parts;
		o[i].nparts = count(c->m[i].parts);
	}
	rc = tmq_assign(o, c->n, 16, &e);
	if (!is_int(rc, 0, "%s: tmq_assign succeeds", c->name))
		return;
	for (i = 0; i < c->n; i++) {
		const unsigned *want = c->m[i].want;
		char got_s[128], want_s[128];

		show(o[i].got, o[i].ngot, got_s, sizeof got_s);
		show(want, count(want), want_s, sizeof want_s);
		is_str(got_s, want_s, "%s: member %u gets %s", c->name,
		    (unsigned)c->m[i].id, want_s);
		free(o[i].got);
	}
}

#define L(...) { __VA_ARGS__, END }
#define NONE { END }

static const struct acase cases[] = {
	/* vectors/root/--group--workers: the offers in force at each of
	 * its two ENDREBALs (offsets 6, 7 and 14, 15). */
	{ "vectors, first rebalance", 2, {
	    { 2, NONE, L(0, 1, 2, 3, 4), L(1, 3) },
	    { 1, NONE, L(0, 1, 2, 3, 4), L(0, 2, 4) } } },
	{ "vectors, second rebalance", 2, {
	    { 1, L(0, 2, 4), L(0, 1, 2, 3, 4), L(0, 2, 4) },
	    { 2, L(1, 3), L(0, 1, 2, 3, 4), L(1, 3) } } },
	/* Owners keep their partitions, even against the id order. */
	{ "owners keep theirs", 2, {
	    { 1, L(1, 3), L(0, 1, 2, 3), L(1, 3) },
	    { 2, L(0, 2), L(0, 1, 2, 3), L(0, 2) } } },
	/* A newcomer takes turns with the owner, who goes first. */
	{ "newcomer beside an owner", 2, {
	    { 1, L(0, 1, 2, 3), L(0, 1, 2, 3), L(0, 2) },
	    { 2, NONE, L(0, 1, 2, 3), L(1, 3) } } },
	{ "two newcomers beside an owner of all", 3, {
	    { 1, L(0, 1, 2, 3, 4, 5), L(0, 1, 2, 3, 4, 5), L(0, 3) },
	    { 2, NONE, L(0, 1, 2, 3, 4, 5), L(1, 4) },
	    { 3, NONE, L(0, 1, 2, 3, 4, 5), L(2, 5) } } },
	/* Fewer accepted goes first, whatever the id. */
	{ "order: accepted ascending", 2, {
	    { 1, NONE, L(0, 1, 2, 3), L(1, 2, 3) },
	    { 5, NONE, L(0, 1), L(0) } } },
	/* Same accepted: more owned goes first (by id, 1 would get 1,2). */
	{ "order: owned descending", 2, {
	    { 1, L(2), L(0, 1, 2, 3), L(2, 3) },
	    { 2, L(0, 1), L(0, 1, 2, 3), L(0, 1) } } },
	{ "order: id ascending", 2, {
	    { 7, NONE, L(0, 1, 2), L(1) },
	    { 3, NONE, L(0, 1, 2), L(0, 2) } } },
	/* The library counts `own` as listed, repeats included. */
	{ "owned counted with repeats", 2, {
	    { 1, L(3, 3, 3), L(0, 1, 2, 3), L(1, 3) },
	    { 2, L(0, 1), L(0, 1, 2, 3), L(0, 2) } } },
	/* ...but accepted partitions as a set. */
	{ "accepted counted without repeats", 2, {
	    { 1, NONE, L(0, 0, 0, 1), L(0) },
	    { 2, NONE, L(0, 1, 2), L(1, 2) } } },
	/* Offering nothing (a member leaving) gets nothing, even with an
	 * `own` list. */
	{ "a member offering nothing gets nothing", 3, {
	    { 1, NONE, NONE, NONE },
	    { 2, NONE, L(0, 1, 2), L(0, 1, 2) },
	    { 3, L(1), NONE, NONE } } },
	{ "a leaver's partitions go to the others", 3, {
	    { 1, L(0, 2, 4), L(0, 1, 2, 3, 4, 5), L(0, 2, 4) },
	    { 2, NONE, NONE, NONE },
	    { 3, L(1, 3, 5), L(0, 1, 2, 3, 4, 5), L(1, 3, 5) } } },
	/* `own` entries not accepted are dropped: 0 is neither kept nor
	 * counted (counted, member 1 would hold 0 and 2 would go first). */
	{ "own not accepted is dropped", 2, {
	    { 1, L(0, 1), L(1, 2, 3), L(1, 2) },
	    { 2, NONE, L(0, 1, 2, 3), L(0, 3) } } },
	/* ...nor counted as owned: else 1 (own 9) would tie with 2 (own 0)
	 * and go first by id, taking 0. */
	{ "own not accepted is not counted", 2, {
	    { 1, L(9), L(0, 1, 2, 3), L(1, 3) },
	    { 2, L(0), L(0, 1, 2, 3), L(0, 2) } } },
	/* Only offered partitions are handed out. */
	{ "partitions nobody offers stay unassigned", 2, {
	    { 1, NONE, L(0, 2), L(0) },
	    { 2, NONE, L(2, 4), L(2, 4) } } },
	{ "a lone member takes all", 1, {
	    { 4, NONE, L(3, 1, 2, 0), L(0, 1, 2, 3) } } },
};

int
main(void)
{
	struct tmq_offer none[1];
	struct tmq_error e;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i]);
	memset(none, 0, sizeof none);
	is_int(tmq_assign(none, 0, 4, &e), 0, "no offers: nothing to do");
	{
		/* A hostile line: partition 2^32-1 once wrapped the bound
		 * to 0 and indexed a 1-byte array at it. */
		unsigned own[] = { 4294967295u }, parts[] = { 4294967295u,
		    4294967294u, 3, 1, 4 };
		struct tmq_offer one[1];
		char got_s[64];

		memset(one, 0, sizeof one);
		one[0].member = 1;
		one[0].own = own;
		one[0].nown = 1;
		one[0].parts = parts;
		one[0].nparts = 5;
		is_int(tmq_assign(one, 1, 4, &e), 0,
		    "partitions past the topic: no crash");
		show(one[0].got, one[0].ngot, got_s, sizeof got_s);
		is_str(got_s, "[1,3]", "partitions past the topic are ignored");
		free(one[0].got);
	}
	return done_testing();
}
