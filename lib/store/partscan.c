/* partscan.c: counting a partition file from its index (see partscan.h).
 *
 * One buffer, one memchr a line, as a count from the first byte; what is
 * added is a line's time (ten base85 characters at its head), decoded for
 * the entries' maxts and the last line's time.  A line's head is looked
 * at where it lies in the buffer, and copied only when it straddles two
 * reads.  Holes are skipped (holes.h), counted as the NUL bytes they read
 * as; those before the entry the count starts from are found with
 * SEEK_HOLE, without reading. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/directread.h"
#include "store/dirlist.h"
#include "store/holes.h"
#include "codec/keys.h"
#include "util/monoclock.h"
#include "store/partfile.h"
#include "store/partscan.h"
#include "util/stop.h"
#include "codec/timestamp.h"

#define BUFSZ (64 * 1024)
/* Entries learnt are saved this many at a time, as the count goes. */
#define SAVE_EVERY 1024
/* The head of a line: as much as its time needs. */
#define HEAD_MAX (((TMQ_KEY_MAX_BYTES + 3) / 4) * 5 + TMQ_TS_CHARS)

/* The holes of [0, to), without reading: added to sum. */
static void
holes_before(int fd, uint64_t to, struct tmq_holes *sum)
{
	off_t pos = 0, h, d;

	while ((uint64_t)pos < to) {
		h = lseek(fd, pos, SEEK_HOLE);
		if (h < 0 || (uint64_t)h >= to)
			break;
		d = lseek(fd, h, SEEK_DATA);
		if (d < 0 || (uint64_t)d > to)
			d = (off_t)to;	/* (to is after a newline: data) */
		if (d <= h)
			break;
		struct tmq_holes one = { (uint64_t)h, (uint64_t)(d - h) };
		tmq_holes_add(sum, &one);
		pos = d;
	}
}

/* The time of the file's first line, from its head alone: a file with an
 * entry past its start has a newline, so its first line is complete. */
static void
first_time(int fd, int how, size_t hmax, size_t kch, struct tmq_pscan *s)
{
	char head[HEAD_MAX];
	size_t got = 0;
	ssize_t r;

	while (got < hmax && (r = tmq_dr_pread(fd, how, head + got, hmax - got,
	    (off_t)got)) > 0)
		got += (size_t)r;
	/* (a hole reads as NUL bytes, which do not decode) */
	if (got == hmax && memchr(head, '\n', hmax) == NULL &&
	    tmq_ts_decode(head + kch, &s->first_ts) == 0)
		s->has_first_ts = 1;
}

/* Told to stop, and heeding it now: at once, or for TMQ_PSCAN_WRITE once
 * its grace from *since (0: the stop not seen yet) is over. */
static int
stopped(unsigned flags, long long *since)
{
	if (!tmq_stop)
		return 0;
	if (!(flags & TMQ_PSCAN_WRITE))
		return 1;
	if (*since == 0)
		*since = tmq_mono_ms();
	return tmq_mono_ms() - *since >= TMQ_PSCAN_GRACE_MS;
}

/* Count from entry start (a line's first byte) to the end. */
static int
scan_from(struct tmq_pidx *x, int fd, int how, unsigned flags,
    const struct tmq_pidx_ent *startp, struct tmq_pscan *s)
{
	size_t kch = tmq_key_chars(x->key_width), hmax = kch + TMQ_TS_CHARS;
	struct tmq_pidx_ent at, start = *startp;
	struct tmq_tsmax mx;
	struct tmq_holes hole;
	char *buf, head[HEAD_MAX], lasthead[HEAD_MAX];
	size_t headlen = 0, lastlen = 0;
	uint64_t line, lstart, pos;
	int sparse = 0, holed = 0, from0, err, have_last = 0;
	long long since = 0;
	ssize_t n;

	memset(s, 0, sizeof *s);
	if ((buf = malloc(BUFSZ)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	from0 = start.pos == 0 || x->mem_from0;
	line = start.line;
	lstart = pos = start.pos;
	tmq_tsmax_init(&mx, start.maxts);
	if ((flags & TMQ_PSCAN_HOLES) && start.pos > 0)
		holes_before(fd, start.pos, &s->holes);
	if ((flags & TMQ_PSCAN_TIMES) && start.pos > 0)
		first_time(fd, how, hmax, kch, s);
	if (lseek(fd, (off_t)pos, SEEK_SET) < 0)
		goto fail;
	while ((n = tmq_read_data(fd, how, &sparse, buf, BUFSZ, &hole, NULL)) > 0 ||
	    (n == 0 && hole.bytes > 0)) {
		const char *p = buf, *end, *nl, *lh = NULL;
		size_t ll = 0;

		if (stopped(flags, &since)) {
			errno = EINTR;
			goto fail;
		}
		if (n == 0) {
			/* A hole: NUL bytes inside the line being read. */
			size_t take = headlen < hmax ? hmax - headlen : 0;

			if (take > hole.bytes)
				take = (size_t)hole.bytes;
			memset(head + headlen, 0, take);
			headlen += take;
			holed = 1;
			tmq_holes_add(&s->holes, &hole);
			pos = hole.at + hole.bytes;
			continue;
		}
		end = buf + n;
		while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			uint64_t nlpos = pos + (uint64_t)(nl - buf);
			uint64_t len = nlpos - lstart;
			const char *h = p;

			/* The line's head: in the buffer, or begun in an
			 * earlier read (then completed from this one). */
			if (lstart < pos) {
				size_t take = headlen < hmax ? hmax - headlen : 0;

				if (take > (size_t)(nl - buf))
					take = (size_t)(nl - buf);
				memcpy(head + headlen, buf, take);
				headlen += take;
				h = head;
			}
			if (line > 0 && tmq_pidx_due(x, lstart)) {
				at.line = line;
				at.pos = lstart;
				at.maxts = tmq_tsmax_get(&mx);
				tmq_pidx_add(x, &at, from0, lstart >= pos +
				    TMQ_PIDX_WIN ? buf + (lstart - pos) -
				    TMQ_PIDX_WIN : NULL);
				if (x->nmem - x->nsaved >= SAVE_EVERY)
					tmq_pidx_save(x, fd, how);
			}
			if (len >= hmax && !holed && len < TMQ_PIDX_LONG)
				tmq_tsmax_fold(&mx, h + kch);
			if (line == 0 && (flags & TMQ_PSCAN_TIMES))
				s->has_first_ts = len >= hmax &&
				    tmq_ts_decode(h + kch, &s->first_ts) == 0;
			lh = h;
			ll = len < hmax ? (size_t)len : hmax;
			line++;
			lstart = nlpos + 1;
			headlen = 0;
			holed = 0;
			p = nl + 1;
		}
		/* The last complete line's head, before the buffer goes. */
		if (lh != NULL) {
			memcpy(lasthead, lh, ll);
			lastlen = ll;
			have_last = 1;
		}
		/* The line that goes on past this read: its head so far. */
		if (p < end && headlen < hmax) {
			size_t take = hmax - headlen;

			if (take > (size_t)(end - p))
				take = (size_t)(end - p);
			memcpy(head + headlen, p, take);
			headlen += take;
		}
		pos += (uint64_t)n;
	}
	if (n < 0)
		goto fail;
	free(buf);
	s->size = pos;
	s->after_nl = lstart;
	s->partial = pos > lstart;
	s->lines = line + (uint64_t)s->partial;
	s->complete = line - start.line;
	s->maxts = tmq_tsmax_get(&mx);
	if (!(flags & TMQ_PSCAN_HOLES))
		s->holes.at = s->holes.bytes = 0;
	s->has_last_ts = have_last && lastlen >= hmax &&
	    tmq_ts_decode(lasthead + kch, &s->last_ts) == 0;
	return 0;
fail:
	err = errno;
	free(buf);
	errno = err;
	return -1;
}

int
tmq_pscan_file(struct tmq_pidx *x, int fd, int how, unsigned flags,
    int nosave, struct tmq_pscan *s)
{
	struct tmq_pidx_ent start;
	off_t h;

	tmq_pidx_last(x, fd, how, &start);
	/* A hole before the index's last record: the file was not only
	 * appended to (a crash's zeroed blocks, a punched range), and the
	 * lines the index counted there may be joined now.  The counts that
	 * report holes count as a reader from the first byte does (as
	 * tmq-dump): from the start, the holes skipped, not read. */
	if ((flags & TMQ_PSCAN_HOLES) && start.pos > 0 &&
	    (h = lseek(fd, 0, SEEK_HOLE)) >= 0 && (uint64_t)h < start.pos) {
		start.line = start.pos = 0;
		start.maxts = -INFINITY;
	}
	for (;;) {
		if (scan_from(x, fd, how, flags, &start, s) < 0)
			return -1;
		/* The last complete line is before where the count began
		 * only when an entry was put at a line still being written
		 * (no reader of ours does): start at the one before it. */
		if (!(flags & TMQ_PSCAN_TIMES) || s->complete > 0 ||
		    start.pos == 0)
			break;
		tmq_pidx_floor_line(x, fd, how, start.line - 1, &start);
	}
	if (!nosave)
		tmq_pidx_save(x, fd, how);
	return 0;
}

/* The end of a partition's last file, counted from its index; where it
 * ends in a cut line, when tail is not NULL. */
static int
count_last(const struct tmq_topic *t, const struct tmq_pfile *pf,
    uint64_t *end, struct tmq_ptail *tail, struct tmq_error *e)
{
	struct tmq_pidx x;
	struct tmq_pscan s;
	int fd, how, rc;

	fd = tmq_dr_openat(t->dirfd, pf->name, &how, e);
	if (fd < 0)
		return tmq_fail_prefix(e, "partition %u", pf->partition);
	tmq_pidx_init(&x, t->dirfd, t->name, pf, t->key_width, t->said);
	rc = tmq_pscan_file(&x, fd, how, 0, 0, &s);
	if (rc < 0)
		tmq_fail_errno(e, "partition %u: %s", pf->partition, pf->name);
	tmq_pidx_free(&x);
	close(fd);
	if (rc < 0)
		return -1;
	if (tmq_pfile_end(pf, s.lines, end, e) < 0)
		return -1;
	*end -= (uint64_t)s.partial;
	if (tail != NULL && s.partial) {
		tail->cut = 1;
		memcpy(tail->name, pf->name, sizeof tail->name);
		tail->size = s.size;
	}
	return 0;
}

static int
range_tail(const struct tmq_topic *t, unsigned partition, uint64_t *first,
    uint64_t *end, struct tmq_ptail *tail, struct tmq_error *e)
{
	struct tmq_pfile *files;
	size_t n;
	int rc;

	if (tmq_pfiles_list(t->dirfd, partition, &files, &n, e) < 0)
		return tmq_fail_prefix(e, "partition %u", partition);
	if (n == 0) {
		*first = *end = 0;
		return 0;
	}
	*first = files[0].first;
	rc = count_last(t, &files[n - 1], end, tail, e);
	free(files);
	return rc;
}

int
tmq_partition_range(const struct tmq_topic *t, unsigned partition,
    uint64_t *first, uint64_t *end, struct tmq_error *e)
{
	return range_tail(t, partition, first, end, NULL, e);
}

int
tmq_partition_tail(const struct tmq_topic *t, unsigned partition,
    uint64_t *end, struct tmq_ptail *tail, struct tmq_error *e)
{
	uint64_t first;

	memset(tail, 0, sizeof *tail);
	return range_tail(t, partition, &first, end, tail, e);
}

int
tmq_partition_end(const struct tmq_topic *t, unsigned partition,
    uint64_t *end, struct tmq_error *e)
{
	uint64_t first;

	return tmq_partition_range(t, partition, &first, end, e);
}
