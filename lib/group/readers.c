/* readers.c: how far the groups that read a topic have got (see
 * readers.h).
 *
 * A file of a partition holds the offsets [first, end), end being the
 * next file's first offset; it holds something a group has not read when
 * the group's first unread offset is below end.  Files go oldest first,
 * so the files a group holds back are always the newest of those that
 * would go: keeping them keeps every offset the group has still to read,
 * and no offset moves. */
#include <stdlib.h>
#include <string.h>

#include "store/dirlist.h"
#include "group/group.h"
#include "codec/names.h"
#include "store/partscan.h"
#include "group/readers.h"

static void
free_reader(struct tmq_reader *r)
{
	free(r->name);
	free(r->from);
}

/* The group's first unread offset in each partition, from its replayed
 * state; ends[p] is computed (once) only for an offset that may be past
 * the end, which only the newest file's first offset can tell. */
static int
positions(const struct tmq_group *g, const struct tmq_topic *t,
    const uint64_t *newest, uint64_t *ends, int *have_end, uint64_t *from,
    struct tmq_error *e)
{
	unsigned p;

	for (p = 0; p < t->partitions; p++) {
		int64_t c = tmq_gstate_committed(&g->state, p);

		if (c == -1) {
			from[p] = UINT64_MAX;
			continue;
		}
		if (c < 0) {
			from[p] = 0;
			continue;
		}
		from[p] = (uint64_t)c;
		if (from[p] <= newest[p])
			continue;
		if (!have_end[p]) {
			if (tmq_partition_end(t, p, &ends[p], e) < 0)
				return tmq_fail_prefix(e, "%s", t->name);
			have_end[p] = 1;
		}
		if (from[p] > ends[p])
			from[p] = 0;	/* out of range: read from the start */
	}
	return 0;
}

static int
add_name(char ***v, size_t *n, const char *name)
{
	char **nv = realloc(*v, (*n + 1) * sizeof **v);

	if (nv == NULL)
		return -1;
	*v = nv;
	if ((nv[*n] = strdup(name)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

int
tmq_readers_load(int rootfd, const struct tmq_topic *t,
    struct tmq_readers *rs, void (*notice)(void *, const char *), void *arg,
    struct tmq_error *e)
{
	struct tmq_pfile *files = NULL;
	uint64_t *newest = NULL, *ends = NULL;
	int *have_end = NULL, rc = -1;
	char **names = NULL;
	size_t nnames = 0, i, nf;

	memset(rs, 0, sizeof *rs);
	rs->t = t;
	newest = calloc(t->partitions, sizeof *newest);
	ends = calloc(t->partitions, sizeof *ends);
	have_end = calloc(t->partitions, sizeof *have_end);
	rs->holders = calloc(1, sizeof *rs->holders);
	if (newest == NULL || ends == NULL || have_end == NULL ||
	    rs->holders == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	if (tmq_pfiles_list(t->dirfd, -1, &files, &nf, e) < 0) {
		tmq_fail_prefix(e, "%s", t->name);
		goto out;
	}
	for (i = 0; i < nf; i++)
		if (files[i].partition < t->partitions)
			newest[files[i].partition] = files[i].first;
	if (tmq_topic_names(rootfd, 1, &names, &nnames, e) < 0)
		goto out;
	for (i = 0; i < nnames; i++) {
		const char *gname = names[i] + strlen(TMQ_GROUP_PREFIX);
		struct tmq_group g;
		struct tmq_reader *nr;
		struct tmq_error e2;

		/* A group that cannot be opened is no group we can take
		 * part in, nor one anyone reads through (tmq-group list
		 * says why). */
		if (tmq_group_open(rootfd, gname, NULL, &g, &e2) < 0)
			continue;
		if (g.topic == NULL) {
			tmq_group_close(&g);
			if (add_name(&rs->unknown, &rs->nunknown, gname) < 0) {
				tmq_fail(e, "out of memory");
				goto out;
			}
			continue;
		}
		if (strcmp(g.topic, t->name) != 0) {
			tmq_group_close(&g);
			continue;
		}
		g.notice = notice;
		g.notice_arg = arg;
		if (tmq_group_replay(&g, e) < 0) {
			tmq_group_close(&g);
			goto out;
		}
		nr = realloc(rs->r, (rs->n + 1) * sizeof *rs->r);
		if (nr == NULL) {
			tmq_group_close(&g);
			tmq_fail(e, "out of memory");
			goto out;
		}
		rs->r = nr;
		memset(&nr[rs->n], 0, sizeof *nr);
		nr[rs->n].name = strdup(gname);
		nr[rs->n].from = calloc(t->partitions, sizeof *nr->from);
		if (nr[rs->n].name == NULL || nr[rs->n].from == NULL) {
			free_reader(&nr[rs->n]);
			tmq_group_close(&g);
			tmq_fail(e, "out of memory");
			goto out;
		}
		rs->n++;
		if (positions(&g, t, newest, ends, have_end, nr[rs->n - 1].from,
		    e) < 0) {
			tmq_group_close(&g);
			goto out;
		}
		tmq_group_close(&g);
	}
	free(rs->holders);
	rs->holders = calloc(rs->n + 1, sizeof *rs->holders);
	if (rs->holders == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	rc = 0;
out:
	tmq_names_free(names, nnames);
	free(files);
	free(newest);
	free(ends);
	free(have_end);
	if (rc < 0)
		tmq_readers_free(rs);
	return rc;
}

size_t
tmq_readers_hold(struct tmq_readers *rs, const struct tmq_pfile *pf,
    uint64_t end)
{
	size_t i;

	rs->nholders = 0;
	rs->last_first = pf->first;
	rs->last_end = end;
	if (pf->partition >= rs->t->partitions)
		return 0;
	for (i = 0; i < rs->n; i++) {
		uint64_t from = rs->r[i].from[pf->partition];

		if (from < end) {
			rs->holders[rs->nholders].reader = i;
			rs->holders[rs->nholders].from = from;
			rs->nholders++;
		}
	}
	return rs->nholders;
}

void
tmq_readers_gone(struct tmq_readers *rs)
{
	size_t i;

	for (i = 0; i < rs->nholders; i++) {
		uint64_t from = rs->holders[i].from;

		if (from < rs->last_first)
			from = rs->last_first;
		if (from < rs->last_end)
			rs->r[rs->holders[i].reader].lost += rs->last_end - from;
	}
	rs->nholders = 0;
}

void
tmq_readers_free(struct tmq_readers *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		free_reader(&rs->r[i]);
	free(rs->r);
	tmq_names_free(rs->unknown, rs->nunknown);
	free(rs->holders);
	memset(rs, 0, sizeof *rs);
}
