/* linereader.c: partition reader (see linereader.h).  One buffer, one
 * memchr per line, no copies: the line handed out points into the buffer.
 * A hole is skipped where it is met (holes.h), its bytes counted to the
 * line it is in: the line is damaged, and said so when it is handed out.
 * Each file's index (partindex.h) says where a seek starts; lines read
 * from an entry (or the start) on carry the largest time before them
 * (mx), so that the entries passed past the index's last can be added. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/directread.h"
#include "util/fdlimit.h"
#include "store/linereader.h"
#include "util/monoclock.h"
#include "codec/message.h"
#include "store/partscan.h"
#include "store/regfile.h"
#include "util/stop.h"
#include "codec/timestamp.h"

/* Lines up to this long are read whole; longer ones are reported and
 * skipped, so memory stays bounded whatever a file holds. */
#define LR_BUFSZ (64 * 1024)
/* A reader starts small and grows to LR_BUFSZ when a line or a read needs
 * it: a follower of 10,000 quiet partitions holds 10,000 buffers.  It
 * has none until it reads, and lets go of it at the end of its partition
 * when nothing is left in it: what a partition that is declared but not
 * read, or read to its end, costs is its reader alone (about 1 KB), so a
 * definition that declares 65,536 partitions costs a reader 70 MB, not
 * the 334 MB of a buffer each. */
#define LR_BUFMIN (4 * 1024)
/* Entries learnt are saved this many at a time, as the reading goes. */
#define SAVE_EVERY 1024

_Static_assert(LR_BUFSZ == TMQ_PIDX_LONG, "the index's long lines are ours");

static int relist(struct tmq_linereader *r, struct tmq_error *e);
static int open_file(struct tmq_linereader *r, size_t i, struct tmq_error *e);
static size_t file_for(const struct tmq_linereader *r, uint64_t offset);

static int
lr_init(struct tmq_linereader *r, int dirfd, const struct tmq_topic *t,
    struct tmq_dirlist *dl, unsigned partition, int key_width,
    struct tmq_error *e)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->dirfd = dirfd;
	r->topic = t->name;
	r->said = t->said;
	r->shared = dl;
	r->partition = partition;
	r->key_width = key_width;
	r->kch = tmq_key_chars(key_width);
	if (relist(r, e) < 0) {
		free(r->files);
		memset(r, 0, sizeof *r);
		r->fd = -1;
		return -1;
	}
	if (r->nfiles > 0)
		r->offset = r->files[0].first;
	return 0;
}

int
tmq_lr_open(struct tmq_linereader *r, const struct tmq_topic *t,
    unsigned partition, int key_width, struct tmq_error *e)
{
	return lr_init(r, t->dirfd, t, NULL, partition, key_width, e);
}

int
tmq_lr_open_shared(struct tmq_linereader *r, struct tmq_dirlist *dl,
    const struct tmq_topic *t, unsigned partition, int key_width,
    struct tmq_error *e)
{
	return lr_init(r, dl->dirfd, t, dl, partition, key_width, e);
}

/* The index of pf, one of r's files. */
static void
ix_init(struct tmq_linereader *r, struct tmq_pidx *x,
    const struct tmq_pfile *pf)
{
	tmq_pidx_init(x, r->dirfd, r->topic, pf, r->key_width, r->said);
}

/* Save what the index of the file read learnt, and let it go. */
static void
drop_ix(struct tmq_linereader *r)
{
	if (r->have_ix) {
		tmq_pidx_save(&r->ix, r->fd, r->how);
		tmq_pidx_free(&r->ix);
		r->have_ix = 0;
	}
}

void
tmq_lr_close(struct tmq_linereader *r)
{
	drop_ix(r);
	if (r->have_ixend)
		tmq_pidx_free(&r->ixend);
	r->have_ixend = 0;
	if (r->fd >= 0)
		close(r->fd);
	free(r->files);
	free(r->buf);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

uint64_t
tmq_lr_offset(const struct tmq_linereader *r)
{
	return r->offset > r->skip_to ? r->offset : r->skip_to;
}

/* Nothing is in the buffer: let go of it (the next read makes one). */
static void
drop_buf(struct tmq_linereader *r)
{
	r->winfrom = r->winfrom > r->start ? r->winfrom - r->start : 0;
	r->start = r->end = 0;
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}

static int
grow(struct tmq_linereader *r)
{
	char *nb = realloc(r->buf, r->cap * 2 > LR_BUFSZ ? LR_BUFSZ :
	    r->cap * 2);

	if (nb == NULL)
		return -1;
	r->buf = nb;
	r->cap = r->cap * 2 > LR_BUFSZ ? LR_BUFSZ : r->cap * 2;
	return 0;
}

/* Open a file of the partition; when no descriptor is left, ask the
 * shared listing's owner to spare one. */
static int
open_name(struct tmq_linereader *r, const char *name, struct tmq_error *e)
{
	int fd;

	while ((fd = tmq_dr_openat(r->dirfd, name, &r->how, e)) < 0 &&
	    tmq_fd_exhausted(errno) && r->shared != NULL &&
	    r->shared->spare_fd != NULL &&
	    r->shared->spare_fd(r->shared->spare_arg) == 0)
		;
	if (fd < 0)
		tmq_fd_hint_append(e, errno);
	return fd;
}

/* r->fd is a new descriptor: its file's holes are still to be found. */
static void
new_fd(struct tmq_linereader *r, int fd)
{
	r->fd = fd;
	r->sparse = 0;
	r->short_read = 0;
}

static int
open_file(struct tmq_linereader *r, size_t i, struct tmq_error *e)
{
	/* The file's index: the one we hold when it is the same file, the
	 * one its end was counted with, or a new one. */
	if (r->have_ix && strcmp(r->ix.pf.name, r->files[i].name) != 0)
		drop_ix(r);
	if (!r->have_ix && r->have_ixend &&
	    strcmp(r->ixend.pf.name, r->files[i].name) == 0) {
		r->ix = r->ixend;
		r->have_ix = 1;
		r->have_ixend = 0;
	}
	if (!r->have_ix) {
		ix_init(r, &r->ix, &r->files[i]);
		r->have_ix = 1;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->parked = 0;
	r->cur = i;
	r->start = r->end = 0;
	r->overlong = 0;
	r->holes.bytes = 0;
	r->rpos = r->lstart = 0;
	r->winfrom = 0;
	r->building = 1;
	r->from0 = 1;
	r->cut = 0;
	tmq_tsmax_init(&r->mx, -INFINITY);
	new_fd(r, open_name(r, r->files[i].name, e));
	if (r->fd < 0)
		return tmq_fail_prefix(e, "partition %u", r->partition);
	r->offset = r->files[i].first;
	return 0;
}

/* Go on reading files[cur] from the index entry at. */
static int
jump(struct tmq_linereader *r, const struct tmq_pidx_ent *at,
    struct tmq_error *e)
{
	const struct tmq_pfile *f = &r->files[r->cur];

	if (at->pos == 0 || at->line > UINT64_MAX - f->first)
		return 0;
	if (lseek(r->fd, (off_t)at->pos, SEEK_SET) < 0)
		return tmq_fail_errno(e, "partition %u: seek", r->partition);
	r->start = r->end = 0;
	r->overlong = 0;
	r->holes.bytes = 0;
	r->rpos = r->lstart = at->pos;
	r->winfrom = 0;
	r->offset = f->first + at->line;
	r->building = 1;
	r->from0 = r->ix.mem_from0;
	tmq_tsmax_init(&r->mx, at->maxts);
	return 0;
}

/* Does files[i] start where the file before it ends?  That one is
 * counted from its index (partscan.h), for a seek that starts in files[i]
 * has not read it.  0 when it does, when there is none before it, or when
 * that one has gone since the listing (pruned); -1 otherwise. */
static int
chained(struct tmq_linereader *r, size_t i, struct tmq_error *e)
{
	const struct tmq_pfile *prev;
	struct tmq_pidx x;
	struct tmq_pscan sc;
	int fd, how, how_was = r->how, rc;

	if (i == 0 || i >= r->nfiles)
		return 0;
	prev = &r->files[i - 1];
	/* (open_name sets how for the file it opens: keep ours.) */
	fd = open_name(r, prev->name, e);
	how = r->how;
	r->how = how_was;
	if (fd < 0)
		return e->sys == ENOENT ? 0 :
		    tmq_fail_prefix(e, "partition %u", r->partition);
	ix_init(r, &x, prev);
	rc = tmq_pscan_file(&x, fd, how, 0, 0, &sc);
	if (rc < 0) {
		if (errno == EINTR && tmq_stop)
			tmq_fail(e, "interrupted");
		else
			tmq_fail_errno(e, "partition %u: %s", r->partition,
			    prev->name);
	}
	tmq_pidx_free(&x);
	close(fd);
	if (rc < 0)
		return -1;
	return tmq_pfiles_chain(prev, sc.lines, sc.partial, &r->files[i], e);
}

/* Open files[i] and start where what is skipped (skip_to, skip_time)
 * ends, as near as its index knows. */
static int
open_at(struct tmq_linereader *r, size_t i, struct tmq_error *e)
{
	const struct tmq_pfile *f = &r->files[i];
	struct tmq_pidx_ent at;
	int known = r->chain_known;

	r->chain_known = 0;
	if (!known && chained(r, i, e) < 0)
		return -1;
	if (open_file(r, i, e) < 0)
		return -1;
	if (r->skip_time)
		tmq_pidx_floor_time(&r->ix, r->fd, r->how, r->skip_ts, 0, &at);
	else if (r->skip_to > f->first)
		tmq_pidx_floor_line(&r->ix, r->fd, r->how, r->skip_to - f->first,
		    &at);
	else
		return 0;
	return jump(r, &at, e);
}

/* Go on to file i of the list, the one that holds the next offset to
 * read.  When it has gone (pruned since the list was read), go on from
 * the first file still there that holds offsets at or after ours, as a
 * reader asked for an offset that is gone starts at the first one left
 * (tmq-topic(1)), and note the offsets jumped (r->jumped) for the caller
 * to say; with no file left, nothing is read until one comes. */
static int
open_next(struct tmq_linereader *r, size_t i, int gone, struct tmq_error *e)
{
	uint64_t want = r->offset > r->skip_to ? r->offset : r->skip_to;
	size_t j = i;

	if (!gone) {
		if (open_at(r, i, e) == 0)
			return 0;
		if (e->sys != ENOENT)
			return -1;
		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
		/* A shared listing is read again only when marked so. */
		if (r->shared != NULL)
			r->shared->stale = 1;
		if (relist(r, e) < 0)
			return -1;
		for (j = 0; j + 1 < r->nfiles && r->files[j + 1].first <= want;
		    j++)
			;
	}
	if (r->nfiles == 0) {
		r->skip_to = want;
		return 0;
	}
	if (r->files[j].first > want) {
		if (!r->jumped)
			r->jumped_from = want;
		r->jumped = 1;
		r->jumped_to = r->files[j].first;
		r->skip_to = r->files[j].first;
	} else
		r->skip_to = want;
	return open_at(r, j, e);
}

int
tmq_lr_park(struct tmq_linereader *r)
{
	off_t pos;

	if (r->fd < 0 || (pos = lseek(r->fd, 0, SEEK_CUR)) < 0)
		return -1;
	memcpy(r->parked_name, r->cur < r->nfiles ? r->files[r->cur].name :
	    "", sizeof r->parked_name);
	if (r->parked_name[0] == '\0')
		return -1;	/* (our file was pruned: keep it open) */
	close(r->fd);
	r->fd = -1;
	r->parked = 1;
	r->pos = pos;
	return 0;
}

/* Reopen a parked file where we left it.  If it went (pruned), go on from
 * the file that holds our offset now. */
static int
unpark(struct tmq_linereader *r, struct tmq_error *e)
{
	int fd = open_name(r, r->parked_name, e);

	if (fd < 0 && errno == ENOENT) {
		r->parked = 0;
		if (r->skip_to < r->offset)
			r->skip_to = r->offset;
		if (relist(r, e) < 0)
			return -1;
		return r->nfiles > 0 ? open_next(r, file_for(r,
		    r->skip_to), 1, e) : 0;
	}
	if (fd < 0)
		return tmq_fail_prefix(e, "partition %u", r->partition);
	if (lseek(fd, r->pos, SEEK_SET) < 0) {
		close(fd);
		return tmq_fail_errno(e, "partition %u: seek", r->partition);
	}
	new_fd(r, fd);
	r->parked = 0;
	return 0;
}

/* Re-read the directory; keep our place in the (possibly longer) list. */
static int
relist(struct tmq_linereader *r, struct tmq_error *e)
{
	struct tmq_pfile *files;
	char cur[sizeof r->files[0].name];
	size_t n, i;

	cur[0] = '\0';
	/* (cur is (size_t)-1 once our file was pruned and none is before
	 * our offset: then there is no name to look for.) */
	if ((r->fd >= 0 || r->parked) && r->cur < r->nfiles)
		memcpy(cur, r->files[r->cur].name, sizeof cur);
	if (r->shared != NULL) {
		const struct tmq_pfile *v;

		if (tmq_dirlist_refresh(r->shared, e) < 0)
			return -1;
		if (r->shared_gen == r->shared->gen)
			return 0;	/* nothing new */
		tmq_dirlist_part(r->shared, r->partition, &v, &n);
		files = NULL;
		if (n > 0 && (files = malloc(n * sizeof *files)) == NULL)
			return tmq_fail(e, "out of memory");
		if (n > 0)
			memcpy(files, v, n * sizeof *files);
		r->shared_gen = r->shared->gen;
	} else if (tmq_pfiles_list(r->dirfd, r->partition, &files, &n, e) < 0)
		return -1;
	free(r->files);
	r->files = files;
	r->nfiles = n;
	if (r->fd < 0 && !r->parked)
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(files[i].name, cur) == 0) {
			r->cur = i;
			return 0;
		}
	/* Our file was pruned under us: carry on with the descriptor we hold
	 * and go on to the first file after our offset when it ends.  A file
	 * that starts at our offset is after us (it is the next one once we
	 * have read ours to its end): cur is the file before it, or
	 * (size_t)-1 when every file is after us. */
	for (i = 0; i < n && files[i].first < r->offset; i++)
		;
	r->cur = i - 1;
	return 0;
}

/* Index of the last file whose FIRST is <= offset (0 when none is). */
static size_t
file_for(const struct tmq_linereader *r, uint64_t offset)
{
	size_t lo = 0, hi = r->nfiles;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->files[mid].first <= offset)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int
tmq_lr_seek(struct tmq_linereader *r, uint64_t offset, uint64_t *gap_to,
    struct tmq_error *e)
{
	size_t i;

	r->skip_time = 0;
	if (gap_to != NULL)
		*gap_to = offset;
	if (relist(r, e) < 0)
		return -1;
	if (r->nfiles == 0) {
		r->skip_to = offset;
		r->offset = 0;
		return 0;
	}
	i = file_for(r, offset);
	if (offset < r->files[i].first && gap_to != NULL)
		*gap_to = r->files[i].first;
	r->skip_to = offset;
	return open_at(r, i, e);
}

int
tmq_lr_seek_end(struct tmq_linereader *r, struct tmq_error *e)
{
	struct tmq_pscan sc;

	r->skip_time = 0;
	r->skip_to = 0;
	if (relist(r, e) < 0)
		return -1;
	if (r->nfiles == 0)
		return 0;
	if (open_file(r, r->nfiles - 1, e) < 0)
		return -1;
	/* Count the complete lines (from the index's last entry) and stop
	 * after the last newline: a partial line there is still being
	 * written and is not skipped. */
	if (tmq_pscan_file(&r->ix, r->fd, r->how, 0, 0, &sc) < 0) {
		if (errno == EINTR && tmq_stop)
			return tmq_fail_code(e, TMQ_ERR_STOPPED, "interrupted");
		return tmq_fail_errno(e, "partition %u: %s", r->partition,
		    r->files[r->cur].name);
	}
	if (lseek(r->fd, (off_t)sc.after_nl, SEEK_SET) < 0)
		return tmq_fail_errno(e, "partition %u: seek", r->partition);
	r->rpos = r->lstart = sc.after_nl;
	r->building = 1;
	r->from0 = r->ix.mem_from0;
	tmq_tsmax_init(&r->mx, sc.maxts);
	return tmq_pfile_end(&r->files[r->cur], sc.lines - (uint64_t)sc.partial,
	    &r->offset, e);
}

int
tmq_lr_end(struct tmq_linereader *r, uint64_t *end, struct tmq_error *e)
{
	const struct tmq_pfile *last;
	struct tmq_pidx *x;
	struct tmq_pscan sc;
	int fd, how, how_was = r->how, rc;

	if (relist(r, e) < 0)
		return -1;
	if (r->nfiles == 0) {
		*end = 0;
		return 0;
	}
	last = &r->files[r->nfiles - 1];
	/* (open_name sets how for the file it opens: keep ours.) */
	fd = open_name(r, last->name, e);
	how = r->how;
	r->how = how_was;
	if (fd < 0)
		return tmq_fail_prefix(e, "partition %u", r->partition);
	/* The index of the file read, or the one kept for the next seek. */
	if (r->have_ix && strcmp(r->ix.pf.name, last->name) == 0)
		x = &r->ix;
	else {
		if (r->have_ixend && strcmp(r->ixend.pf.name, last->name) != 0) {
			tmq_pidx_free(&r->ixend);
			r->have_ixend = 0;
		}
		if (!r->have_ixend) {
			ix_init(r, &r->ixend, last);
			r->have_ixend = 1;
		}
		x = &r->ixend;
	}
	rc = tmq_pscan_file(x, fd, how, 0, 0, &sc);
	if (rc < 0) {
		if (errno == EINTR && tmq_stop)
			tmq_fail_code(e, TMQ_ERR_STOPPED, "interrupted");
		else
			tmq_fail_errno(e, "partition %u: %s", r->partition,
			    last->name);
	}
	close(fd);
	if (rc < 0)
		return -1;
	if (tmq_pfile_end(last, sc.lines, end, e) < 0)
		return -1;
	*end -= (uint64_t)sc.partial;
	return 0;
}

int
tmq_lr_range(struct tmq_linereader *r, uint64_t *first, uint64_t *end,
    struct tmq_error *e)
{
	if (tmq_lr_end(r, end, e) < 0)
		return -1;
	*first = r->nfiles > 0 ? r->files[0].first : 0;
	return 0;
}

int
tmq_lr_seek_time(struct tmq_linereader *r, double t, struct tmq_error *e)
{
	unsigned day = tmq_utc_day(t);
	size_t i = 0, j;

	r->skip_to = 0;
	if (relist(r, e) < 0)
		return -1;
	/* Files are started on the UTC day of their first write, so lines at
	 * or after t are in t's day file or later, bar producers' clock skew;
	 * starting one file earlier covers that. */
	for (j = 0; j < r->nfiles; j++)
		if (r->files[j].day < day)
			i = j;
	r->skip_time = 1;
	r->skip_ts = t;
	if (r->nfiles > 0 && open_at(r, i, e) < 0)
		return -1;
	return 0;
}

int
tmq_lr_tell(const struct tmq_linereader *r, size_t *file, uint64_t *pos)
{
	off_t at;

	if (r->fd < 0 || r->cur >= r->nfiles || r->overlong ||
	    r->holes.bytes > 0 || r->skip_time || r->offset < r->skip_to)
		return -1;
	at = lseek(r->fd, 0, SEEK_CUR);
	if (at < 0 || (uint64_t)at < r->end - r->start)
		return -1;
	*file = r->cur;
	*pos = (uint64_t)at - (r->end - r->start);
	return 0;
}

int
tmq_lr_seek_byte(struct tmq_linereader *r, size_t file, uint64_t pos,
    uint64_t offset, struct tmq_error *e)
{
	if (file >= r->nfiles)
		return tmq_fail(e, "partition %u: no file %zu", r->partition,
		    file);
	r->skip_time = 0;
	r->skip_to = 0;
	if (open_file(r, file, e) < 0)
		return -1;
	if (lseek(r->fd, (off_t)pos, SEEK_SET) < 0)
		return tmq_fail_errno(e, "partition %u: seek", r->partition);
	r->rpos = r->lstart = pos;
	r->building = 0;	/* (the times before pos are not known) */
	r->offset = offset;
	return 0;
}

/* Hand out [start, start+n) as a line; returns 1 if it is to be kept, -1
 * when its offset would run past 2^64-1 (offsets never wrap: the file is
 * corrupt, and said so). */
/* A complete line at lstart, of n bytes: add the entry there when one is
 * due, then fold its time into mx. */
static void
index_line(struct tmq_linereader *r, size_t n, const char *problem)
{
	struct tmq_pidx_ent at;

	if (!r->building || !r->have_ix || r->cur >= r->nfiles ||
	    strcmp(r->files[r->cur].name, r->ix.pf.name) != 0)
		return;
	at.line = r->offset - r->ix.pf.first;
	if (at.line > 0 && tmq_pidx_due(&r->ix, r->lstart)) {
		at.pos = r->lstart;
		at.maxts = tmq_tsmax_get(&r->mx);
		tmq_pidx_add(&r->ix, &at, r->from0, r->start >= r->winfrom +
		    TMQ_PIDX_WIN ? r->buf + r->start - TMQ_PIDX_WIN : NULL);
		if (r->ix.nmem - r->ix.nsaved >= SAVE_EVERY)
			tmq_pidx_save(&r->ix, r->fd, r->how);
	}
	if (problem == NULL && n >= r->kch + TMQ_TS_CHARS && n < LR_BUFSZ)
		tmq_tsmax_fold(&r->mx, r->buf + r->start + r->kch);
}

static int
emit(struct tmq_linereader *r, struct tmq_line *l, size_t n,
    const char *problem, int complete, struct tmq_error *e)
{
	const char *file = r->cur < r->nfiles ? r->files[r->cur].name :
	    "a pruned file";

	if (r->offset == UINT64_MAX)
		return tmq_fail(e, "partition %u: %s: corrupt: offsets run past "
		    "2^64-1", r->partition, file);
	/* A hole says more than any other problem the line has. */
	if (r->holes.bytes > 0) {
		tmq_holes_say(&r->holes, file, r->hole_msg, sizeof r->hole_msg);
		problem = r->hole_msg;
		r->holes.bytes = 0;
	}
	if (complete)
		index_line(r, n, problem);
	l->p = r->buf + r->start;
	l->n = n;
	l->pos = r->lstart;
	l->offset = r->offset++;
	l->problem = problem;
	if (l->offset < r->skip_to)
		return 0;
	if (r->skip_time) {
		double ts;

		if (problem != NULL || tmq_line_ts(r->key_width, l->p, n, &ts) < 0 ||
		    ts < r->skip_ts)
			return 0;
		r->skip_time = 0;
	}
	return 1;
}

int
tmq_lr_next(struct tmq_linereader *r, struct tmq_line *l, struct tmq_error *e)
{
	struct tmq_holes hole;
	ssize_t n;
	size_t want;

	for (;;) {
		/* A file of one endless line is skipped 64 KiB at a time:
		 * a signal must still be heard. */
		if (tmq_stop)
			return 0;
		if (r->start < r->end) {
			char *p = r->buf + r->start;
			char *nl = memchr(p, '\n', r->end - r->start);

			if (nl != NULL) {
				size_t len = (size_t)(nl - p);
				int keep = emit(r, l, len, r->overlong ?
				    "line too long" : NULL, 1, e);

				if (keep < 0)
					return -1;
				r->overlong = 0;
				r->start += len + 1;
				r->lstart = r->rpos - (r->end - r->start);
				if (keep)
					return 1;
				continue;
			}
			if (r->start == 0 && r->end == r->cap &&
			    r->cap < LR_BUFSZ) {
				if (grow(r) < 0)
					return tmq_fail(e, "out of memory");
			} else if (r->start == 0 && r->end == r->cap) {
				r->overlong = 1;	/* drop it, keep going */
				r->start = r->end = 0;
				r->winfrom = 0;
			}
		}
		if (r->fd < 0 && r->parked) {
			if (unpark(r, e) < 0)
				return -1;
			continue;
		}
		if (r->fd < 0) {
			if (r->nfiles == 0 && relist(r, e) < 0)
				return -1;
			if (r->nfiles == 0)
				return 0;
			if (open_next(r, file_for(r, r->skip_to), 0, e) < 0)
				return -1;
		}
		if (r->buf == NULL) {
			if ((r->buf = malloc(LR_BUFMIN)) == NULL)
				return tmq_fail(e, "out of memory");
			r->cap = LR_BUFMIN;
		}
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->winfrom = r->winfrom > r->start ? r->winfrom - r->start :
			    0;
			r->start = 0;
		}
		/* A local file's read that came back short took all there
		 * was: its end is where it stopped, as a read now would say
		 * (one system call fewer a record that comes alone).  What
		 * lands meanwhile is an event the follower's wait hears. */
		if (r->short_read && r->short_at == r->rpos &&
		    (r->how & TMQ_DR_LOCAL) && !r->sparse) {
			r->short_read = 0;
			n = 0;
			hole.at = hole.bytes = 0;
		} else {
			int wait = r->wait_nul &&
			    (r->nul_since == 0 || r->nul_at != r->rpos ||
			    tmq_mono_ms() - r->nul_since < TMQ_LR_NUL_WAIT_MS);
			int unsettled = 0;

			want = r->cap - r->end;
			n = tmq_read_data(r->fd, r->how, &r->sparse,
			    r->buf + r->end, want, &hole,
			    wait ? &unsettled : NULL);
			r->short_read = n > 0 && (size_t)n < want;
			r->short_at = r->rpos + (n > 0 ? (uint64_t)n : 0);
			if (unsettled) {
				/* Not yet the writer's data: take what came
				 * before, and look again at the next turn. */
				if (r->nul_since == 0 || r->nul_at != r->short_at) {
					r->nul_at = r->short_at;
					r->nul_since = tmq_mono_ms();
				}
				if (n > 0) {
					r->rpos += (uint64_t)n;
					r->end += (size_t)n;
					continue;
				}
				return 0;
			}
			if (n != 0)
				r->nul_since = 0;
		}
		if (n == 0 && hole.bytes > 0) {
			tmq_holes_add(&r->holes, &hole);
			r->rpos = hole.at + hole.bytes;
			r->winfrom = r->end;	/* what follows is past it */
			continue;
		}
		if (n > 0) {
			r->rpos += (uint64_t)n;
			/* A read that fills the buffer: more is waiting, take
			 * it in larger reads. */
			if ((size_t)n == r->cap - r->end && r->cap < LR_BUFSZ &&
			    r->end == 0 && grow(r) < 0)
				return tmq_fail(e, "out of memory");
			r->end += (size_t)n;
			continue;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return tmq_fail_errno(e, "partition %u: %s", r->partition,
			    r->files[r->cur].name);
		}
		/* End of this file.  Go on only when a newer one exists. */
		/* (cur is (size_t)-1 when every file is after ours, so
		 * cur + 1 is then the first of them.) */
		if (r->cur + 1 >= r->nfiles) {
			if (relist(r, e) < 0)
				return -1;
			if (r->cur + 1 >= r->nfiles) {
				/* At the end: what was learnt is for the next
				 * reader. */
				if (r->have_ix && r->ix.nsaved < r->ix.nmem)
					tmq_pidx_save(&r->ix, r->fd, r->how);
				if (r->start == r->end && !r->overlong &&
				    r->holes.bytes == 0)
					drop_buf(r);
				return 0;
			}
			/* A writer may have finished the line just before
			 * starting the new file: read once more. */
			continue;
		}
		if (r->end > r->start || r->overlong || r->holes.bytes > 0) {
			size_t len = r->end - r->start;
			int keep = emit(r, l, len, r->overlong ? "line too long" :
			    "unterminated line", 0, e);

			if (keep < 0)
				return -1;
			r->start = r->end;
			r->overlong = 0;
			r->cut = 1;
			if (keep)
				return 1;
			continue;
		}
		/* Read to its end: the next file starts where it ends, or
		 * the offsets cannot be right. */
		if (r->cur < r->nfiles && tmq_pfiles_chain(&r->files[r->cur],
		    r->offset - r->files[r->cur].first, r->cut,
		    &r->files[r->cur + 1], e) < 0)
			return -1;
		r->chain_known = 1;
		if (open_next(r, r->cur + 1, 0, e) < 0)
			return -1;
	}
}

int
tmq_lr_cut_tail(struct tmq_linereader *r, struct tmq_line *l,
    struct tmq_error *e)
{
	off_t size, now;
	int still = 0, last;
	size_t len = r->end - r->start;

	if (r->fd < 0 || (len == 0 && !r->overlong && r->holes.bytes == 0))
		return 0;
	/* Where our reading stopped: the file's end when we saw it.  (On a
	 * shared filesystem fstat's size can be stale: ask the server.) */
	size = lseek(r->fd, 0, SEEK_CUR);
	for (;;) {
		if (size < 0 || tmq_dr_tail(r->fd, r->how, &now, &last) < 0)
			return tmq_fail_errno(e, "partition %u: %s", r->partition,
			    r->files[r->cur].name);
		if (now != size)
			return 2;	/* being written: read on */
		if (++still >= TMQ_CUT_WAIT_MS)
			break;
		poll(NULL, 0, 1);
	}
	/* A newer file may have come meanwhile: then tmq_lr_next hands the
	 * tail out as an unterminated line of its own. */
	if (relist(r, e) < 0)
		return -1;
	if (r->cur + 1 < r->nfiles)
		return 2;
	if (r->overlong)
		snprintf(r->problem, sizeof r->problem, "last line without "
		    "its newline, too long: cut short");
	else
		snprintf(r->problem, sizeof r->problem, "last line without "
		    "its newline (%zu bytes): cut short", len);
	still = emit(r, l, len, r->problem, 0, e);
	if (still < 0)
		return -1;
	r->start = r->end;
	r->overlong = 0;
	r->cut = 1;
	return still;
}
