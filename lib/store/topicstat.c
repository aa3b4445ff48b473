/* topicstat.c: per-file figures for tmq-topic info/list and group lag.
 * Counting lines reads each file once with memchr; timestamps come from
 * the first and the last complete line only, without inflating anything.
 * Holes are skipped, not read (holes.h): they count as the NUL bytes they
 * read as, and the partition is said to be damaged. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "directread.h"
#include "holes.h"
#include "keys.h"
#include "message.h"
#include "timestamp.h"
#include "regfile.h"
#include "stop.h"
#include "topicstat.h"

/* The head of a line: as much as tmq_line_ts needs. */
#define HEAD_MAX (((TMQ_KEY_MAX_BYTES + 3) / 4) * 5 + TMQ_TS_CHARS)

static int
stat_file(const struct tmq_topic *t, struct tmq_filestat *fs,
    struct tmq_error *e)
{
	char buf[65536], first[HEAD_MAX], heads[2][HEAD_MAX];
	size_t hmax = tmq_key_chars(t->key_width) + TMQ_TS_CHARS;
	size_t firstlen = 0, lastlen = 0, cur = 0;
	int have_first = 0, have_last = 0, fd, c = 0, sparse = 0;
	uint64_t lines = 0;
	struct tmq_holes hole;
	struct stat st;
	ssize_t r;

	fd = tmq_open_regular(t->dirfd, fs->pf.name, O_RDONLY, 0, e);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0) {
			tmq_fail_errno(e, "%s", fs->pf.name);
			close(fd);
		}
		return tmq_fail_prefix(e, "%s: partition %u", t->name,
		    fs->pf.partition);
	}
	fs->bytes = (uint64_t)st.st_size;
	/* Keep the head of the first line, and that of the current line in
	 * heads[c] while heads[!c] holds the last complete one: an unfinished
	 * line at the end (a crash, or a writer at work) must not stand in
	 * for the last line. */
	while ((r = tmq_read_data(fd, 0, &sparse, buf, sizeof buf, &hole)) > 0 ||
	    (r == 0 && hole.bytes > 0)) {
		size_t i = 0;

		if (tmq_stop) {
			close(fd);
			return tmq_fail(e, "interrupted");
		}
		if (r == 0) {
			/* NUL bytes, as far as a line's head goes. */
			size_t take = cur < hmax ? hmax - cur : 0;

			if (take > hole.bytes)
				take = (size_t)hole.bytes;
			memset(heads[c] + cur, 0, take);
			cur += take;
			tmq_holes_add(&fs->holes, &hole);
			continue;
		}
		while (i < (size_t)r) {
			char *nl = memchr(buf + i, '\n', (size_t)r - i);
			size_t seg = nl ? (size_t)(nl - (buf + i)) : (size_t)r - i;
			size_t take = cur < hmax ? hmax - cur : 0;

			if (take > seg)
				take = seg;
			memcpy(heads[c] + cur, buf + i, take);
			cur += take;
			i += seg;
			if (nl != NULL) {
				if (!have_first) {
					memcpy(first, heads[c], cur);
					firstlen = cur;
					have_first = 1;
				}
				lastlen = cur;
				have_last = 1;
				c = !c;
				cur = 0;
				lines++;
				i++;
			}
		}
	}
	close(fd);
	if (r < 0)
		return tmq_fail_errno(e, "%s: %s", t->name, fs->pf.name);
	if (tmq_pfile_end(&fs->pf, lines, &fs->end, e) < 0)
		return tmq_fail_prefix(e, "%s", t->name);
	/* Each time on its own: a corrupt last line leaves the first time. */
	fs->has_first_ts = have_first &&
	    tmq_line_ts(t->key_width, first, firstlen, &fs->first_ts) == 0;
	fs->has_last_ts = have_last &&
	    tmq_line_ts(t->key_width, heads[!c], lastlen, &fs->last_ts) == 0;
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
		return -1;
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
