/* topicstat.c: per-file figures for tmq-topic info/list and group lag.
 * Each file is counted from its index (partscan.h): what lies past the
 * index's last entry is read, once, with memchr; timestamps come from the
 * first and the last complete line only, without inflating anything.
 * Holes are skipped, not read (holes.h): they count as the NUL bytes they
 * read as, and the partition is said to be damaged. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/directread.h"
#include "store/dirlist.h"
#include "store/holes.h"
#include "store/partindex.h"
#include "store/partscan.h"
#include "store/topicstat.h"

static int
stat_file(const struct tmq_topic *t, struct tmq_filestat *fs,
    struct tmq_error *e)
{
	struct tmq_pidx x;
	struct tmq_pscan sc;
	struct stat st;
	int fd, how, rc;

	fd = tmq_dr_openat(t->dirfd, fs->pf.name, &how, e);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0) {
			tmq_fail_errno(e, "%s", fs->pf.name);
			close(fd);
		}
		return tmq_fail_prefix(e, "%s: partition %u", t->name,
		    fs->pf.partition);
	}
	fs->bytes = (uint64_t)st.st_size;
	tmq_pidx_init(&x, t->dirfd, t->name, &fs->pf, t->key_width,
	    t->said);
	rc = tmq_pscan_file(&x, fd, how, TMQ_PSCAN_TIMES | TMQ_PSCAN_HOLES, 0,
	    &sc);
	if (rc < 0)
		tmq_fail_errno(e, "%s: %s", t->name, fs->pf.name);
	tmq_pidx_free(&x);
	close(fd);
	if (rc < 0)
		return -1;
	/* Complete lines only: an unfinished line at the end (a crash, or
	 * a writer at work) is not counted, nor its time taken. */
	if (tmq_pfile_end(&fs->pf, sc.lines - (uint64_t)sc.partial, &fs->end,
	    e) < 0)
		return tmq_fail_prefix(e, "%s", t->name);
	fs->partial = sc.partial;
	fs->holes = sc.holes;
	fs->has_first_ts = sc.has_first_ts;
	fs->first_ts = sc.first_ts;
	fs->has_last_ts = sc.has_last_ts;
	fs->last_ts = sc.last_ts;
	return 0;
}

/* A partition with holes in its files is said to be damaged, once: the
 * first such file, and how many more there are. */
static int
say_holes(const struct tmq_topic *t, struct tmq_partstat *s,
    struct tmq_error *e)
{
	const struct tmq_filestat *first = NULL;
	char what[160], more[48];
	size_t k, others = 0;
	int n;

	for (k = 0; k < s->nfiles; k++)
		if (s->files[k].holes.bytes > 0 && first == NULL)
			first = &s->files[k];
		else if (s->files[k].holes.bytes > 0)
			others++;
	if (first == NULL)
		return 0;
	tmq_holes_say(&first->holes, first->pf.name, what, sizeof what);
	more[0] = '\0';
	if (others > 0)
		snprintf(more, sizeof more, " (and holes in %zu more file%s)",
		    others, others > 1 ? "s" : "");
	n = snprintf(NULL, 0, "%s: partition %u: %s%s", t->name, s->partition,
	    what, more);
	if ((s->damage = malloc((size_t)n + 1)) == NULL)
		return tmq_fail(e, "out of memory");
	snprintf(s->damage, (size_t)n + 1, "%s: partition %u: %s%s", t->name,
	    s->partition, what, more);
	return 0;
}

static int
stat_all(const struct tmq_topic *t, int each, struct tmq_partstat **out,
    struct tmq_error *e)
{
	int nbad = 0;
	struct tmq_partstat *ps;
	struct tmq_pfile *files;
	size_t n, i, j;
	unsigned p;

	ps = calloc(t->partitions, sizeof *ps);
	if (ps == NULL)
		return tmq_fail(e, "out of memory");
	if (tmq_pfiles_list(t->dirfd, -1, &files, &n, e) < 0) {
		free(ps);
		return tmq_fail_prefix(e, "%s", t->name);
	}
	for (p = 0; p < t->partitions; p++)
		ps[p].partition = p;
	for (i = 0; i < n; i = j) {
		struct tmq_partstat *s;

		for (j = i; j < n && files[j].partition == files[i].partition;
		    j++)
			;
		if (files[i].partition >= t->partitions)
			continue;	/* a stray file beyond the partitions */
		s = &ps[files[i].partition];
		s->files = calloc(j - i, sizeof *s->files);
		if (s->files == NULL) {
			tmq_fail(e, "out of memory");
			goto bad;
		}
		s->nfiles = j - i;
		for (size_t k = 0; k < s->nfiles; k++) {
			s->files[k].pf = files[i + k];
			if (stat_file(t, &s->files[k], e) < 0) {
				if (!each)
					goto bad;
				/* Said by the caller; the others count. */
				s->problem = strdup(e->msg);
				if (s->problem == NULL) {
					tmq_fail(e, "out of memory");
					goto bad;
				}
				free(s->files);
				s->files = NULL;
				s->nfiles = 0;
				s->bytes = 0;
				nbad++;
				break;
			}
			s->bytes += s->files[k].bytes;
			/* Each file starts where the one before it ends. */
			if (k > 0 && tmq_pfiles_chain(&s->files[k - 1].pf,
			    s->files[k - 1].end - s->files[k - 1].pf.first +
			    (uint64_t)s->files[k - 1].partial,
			    s->files[k - 1].partial, &s->files[k].pf, e) < 0) {
				tmq_fail_prefix(e, "%s", t->name);
				if (!each)
					goto bad;
				if ((s->problem = strdup(e->msg)) == NULL) {
					tmq_fail(e, "out of memory");
					goto bad;
				}
				free(s->files);
				s->files = NULL;
				s->nfiles = 0;
				s->bytes = 0;
				nbad++;
				break;
			}
		}
		if (s->nfiles == 0)
			continue;
		s->first = s->files[0].pf.first;
		s->end = s->files[s->nfiles - 1].end;
		if (say_holes(t, s, e) < 0)
			goto bad;
	}
	free(files);
	*out = ps;
	return nbad;
bad:
	free(files);
	tmq_topic_stat_free(ps, t->partitions);
	return -1;
}

int
tmq_topic_stat(const struct tmq_topic *t, struct tmq_partstat **out,
    struct tmq_error *e)
{
	return stat_all(t, 0, out, e);
}

int
tmq_topic_stat_each(const struct tmq_topic *t, struct tmq_partstat **out,
    struct tmq_error *e)
{
	return stat_all(t, 1, out, e);
}

void
tmq_topic_stat_free(struct tmq_partstat *ps, unsigned n)
{
	unsigned p;

	if (ps == NULL)
		return;
	for (p = 0; p < n; p++) {
		free(ps[p].files);
		free(ps[p].problem);
		free(ps[p].damage);
	}
	free(ps);
}

void
tmq_topic_stat_sum(const struct tmq_partstat *ps, unsigned n,
    uint64_t *msgs, uint64_t *bytes)
{
	unsigned p;

	*msgs = *bytes = 0;
	for (p = 0; p < n; p++) {
		*msgs += ps[p].end - ps[p].first;
		*bytes += ps[p].bytes;
	}
}
