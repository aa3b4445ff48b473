/* t-groupstate.c: the replayed state of a group at scale
 * (lib/group/groupstate.c, lib/util/idindex.c, lib/group/assignment.c): member
 * ids are found through an index whose probes stay short whatever ids a
 * co-user picks, the arrays grow geometrically, a log of tens of thousands
 * of distinct members replays to the state (and its snapshot restores it,
 * indexes included), offers are replaced per member, and a rebalance of a
 * hundred thousand offers is assigned as the library assigns it.  (Costs are
 * measured by make bench; here, counts.) */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "store/appender.h"
#include "group/group.h"
#include "group/groupsnapfile.h"
#include "util/idindex.h"
#include "codec/message.h"
#include "store/root.h"
#include "tap.h"
#include "codec/timestamp.h"

/* The mean distance of the ids from their home slots. */
static double
mean_displacement(const struct tmq_idindex *x)
{
	size_t i, sum = 0;

	for (i = 0; i < x->cap; i++)
		if (x->slot[i].at1 != 0) {
			uint32_t id = x->slot[i].id;
			size_t home = (size_t)XXH3_64bits_withSeed(&id, sizeof id,
			    x->seed) & (x->cap - 1);

			sum += (i - home) & (x->cap - 1);
		}
	return x->n ? (double)sum / (double)x->n : 0;
}

static void
test_index(void)
{
	/* Ids all alike in their low 14 or 15 bits, as a co-user would pick
	 * to make a plain table collide. */
	static const uint32_t strides[] = { 1, 1u << 14, 1u << 15, 40000 };
	struct tmq_idindex x;
	size_t s;

	for (s = 0; s < sizeof strides / sizeof *strides; s++) {
		uint32_t i, n = 100000, lost = 0;
		double d;

		memset(&x, 0, sizeof x);
		for (i = 0; i < n; i++)
			if (tmq_idx_put(&x, i * strides[s], i) < 0)
				break;
		for (i = 0; i < n; i++)
			lost += tmq_idx_find(&x, i * strides[s]) != (long)i;
		is_int((int)lost, 0, "100,000 ids %u apart: each found where put",
		    strides[s]);
		ok(x.cap <= 4 * (size_t)n && x.cap >= 2 * (size_t)n,
		    "  in a table of %zu slots", x.cap);
		d = mean_displacement(&x);
		ok(d < 2.0, "  %.2f slots from home on average", d);
		is_int((int)tmq_idx_find(&x, 7u * 13u + 5u), strides[s] == 1 ? 96 :
		    -1, "  an id not put is not found");
		tmq_idx_clear(&x);
	}
	memset(&x, 0, sizeof x);
	tmq_idx_put(&x, 5, 1);
	tmq_idx_put(&x, 5, 9);
	ok(tmq_idx_find(&x, 5) == 9 && x.n == 1, "put again: replaced");
	tmq_idx_clear(&x);
	ok(tmq_idx_find(&x, 5) == -1 && x.slot == NULL, "cleared: empty, no memory");
}

/* Append n lines of kind k under keys first, first+1, ... with body. */
static void
append(struct tmq_group *g, enum tmq_gkind k, uint32_t first, uint32_t n,
    const char *body)
{
	struct tmq_appender app;
	struct tmq_payload pl;
	struct tmq_error e;
	char line[TMQ_LINE_MAX];
	uint32_t i;

	if (tmq_appender_open(&app, &g->log, 0, &e) < 0)
		exit(99);
	pl.type = TMQ_TYPED;
	pl.type_index = (unsigned)k;
	pl.data = (const unsigned char *)body;
	pl.len = strlen(body);
	for (i = 0; i < n; i++) {
		unsigned char key[4];
		long len;

		tmq_key_from_u64(4, first + i, key);
		len = tmq_line_encode(&g->codec, 4, key, tmq_now(), &pl, line,
		    sizeof line, &e);
		if (len < 0 || tmq_appender_add(&app, 0, line, (size_t)len,
		    &e) < 0)
			exit(99);
	}
	if (tmq_appender_flush(&app, &e) < 0)
		exit(99);
	tmq_appender_close(&app);
}

static void
test_replay(int rootfd)
{
	struct tmq_group g;
	const struct tmq_gstate *st = &g.state;
	struct tmq_error e;
	struct tmq_topic t;
	uint32_t i, lost = 0;
	const uint32_t n = 30000;

	if (tmq_topic_create(rootfd, "t", 4, 4, NULL, 0, NULL, &e) < 0 ||
	    tmq_topic_open(rootfd, "t", &t, &e) < 0 ||
	    tmq_group_create(rootfd, "g", &t, 0, &e) < 0 ||
	    tmq_group_open(rootfd, "g", "t", &g, &e) < 0) {
		diag("%s", e.msg);
		exit(99);
	}
	/* Commits under n distinct keys, a rebalance in which each of
	 * them offers twice (the second offer replaces the first). */
	append(&g, TMQ_G_COMMIT, 1, n, "{\"partition_offsets\":[[1,3]]}");
	append(&g, TMQ_G_BEGINREBAL, 1, 1, "{\"timestamp\":1795564800.5}");
	append(&g, TMQ_G_REBALOFFER, 1, n, "{\"own\":[],\"partitions\":[0,1,2,3]}");
	append(&g, TMQ_G_REBALOFFER, 1, n, "{\"own\":[],\"partitions\":[2]}");
	append(&g, TMQ_G_ENDREBAL, 1, 1, "{}");
	tmq_group_close(&g);

	tmq_group_open(rootfd, "g", "t", &g, &e);
	g.snap_every = 1;
	if (tmq_group_replay(&g, &e) < 0) {
		diag("%s", e.msg);
		exit(99);
	}
	is_int((int)st->nmembers, (int)n + 1, "%u distinct keys (and 0, the "
	    "creator): as many members", n);
	ok(st->members_cap >= st->nmembers &&
	    st->members_cap <= 2 * (size_t)st->nmembers,
	    "  in an array grown by doubling (%zu)", st->members_cap);
	for (i = 0; i <= n; i++)
		lost += tmq_gstate_find(st, i) == NULL ||
		    tmq_gstate_find(st, i)->id != i;
	is_int((int)lost, 0, "  each found by its id");
	ok(tmq_gstate_find(st, n + 1) == NULL, "  and no other");
	is_int((int)st->max_key, (int)n, "  the largest id");
	is_int((int)st->nassigned, (int)n, "one offer a member, the later one");
	ok(tmq_gstate_share(st, 1) != NULL &&
	    tmq_gstate_share(st, 1)->ngot == 1 &&
	    tmq_gstate_share(st, 1)->got[0] == 2 &&
	    tmq_gstate_share(st, 2)->ngot == 0, "  partition 2 to member 1, "
	    "nothing to 2");
	tmq_group_close(&g);

	/* The snapshot the replay left restores the same, indexes too. */
	tmq_group_open(rootfd, "g", "t", &g, &e);
	g.snap_every = 1;
	is_int(tmq_group_load(&g, &e), 1,
	    "a snapshot of %u members loads", n);
	for (i = 0, lost = 0; i <= n; i++)
		lost += tmq_gstate_find(st, i) == NULL;
	is_int((int)lost, 0, "  each member found by its id");
	ok(tmq_gstate_share(st, 1) != NULL &&
	    tmq_gstate_share(st, 1)->got[0] == 2, "  and each share");
	tmq_group_close(&g);
	tmq_topic_close(&t);
}

/* One member accepting every partition of 1,024, a hundred thousand
 * accepting only 0: the first of those (fewest accepted, lowest id) takes
 * 0, the big one all the rest, one a round. */
static void
test_assign(void)
{
	const unsigned n = 100001, np = 1024;
	struct tmq_offer *o = calloc(n, sizeof *o);
	unsigned *all = malloc(np * sizeof *all), zero = 0, i, wrong = 0;
	struct tmq_error e;

	for (i = 0; i < np; i++)
		all[i] = i;
	for (i = 0; i < n; i++) {
		o[i].member = i + 1;
		o[i].parts = i == 0 ? all : &zero;
		o[i].nparts = i == 0 ? np : 1;
	}
	is_int(tmq_assign(o, n, np, &e), 0, "a rebalance of %u offers", n);
	ok(o[0].ngot == np - 1 && o[0].got[0] == 1 && o[0].got[np - 2] == np - 1,
	    "  the one accepting all takes 1..1023 (%u)", o[0].ngot);
	ok(o[1].ngot == 1 && o[1].got[0] == 0, "  the first of the others 0");
	for (i = 2; i < n; i++)
		wrong += o[i].ngot != 0;
	is_int((int)wrong, 0, "  the rest nothing");
	for (i = 0; i < n; i++)
		free(o[i].got);
	free(o);
	free(all);
}

int
main(void)
{
	char dir[] = "/tmp/t-groupstate.XXXXXX", cmd[64];
	struct tmq_error e;
	int rootfd;

	test_index();
	if (mkdtemp(dir) == NULL || tmq_root_open(dir, 0, &rootfd, &e) < 0) {
		skip("no scratch root");
		return done_testing();
	}
	test_replay(rootfd);
	test_assign();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
