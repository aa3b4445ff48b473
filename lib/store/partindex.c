/* partindex.c: the files of the sparse index beside each partition file
 * (partindex.h says who writes it and why it is safe; lib/codec/partidx.c
 * encodes and decodes it, and does the checks that need no file).
 *
 * A lookup opens the index, checks its header against the partition file
 * (the file's identity is hashed once per object), and searches the
 * records by halving, each record read checked as it is read; the one
 * chosen is checked against the partition file's bytes before it is
 * returned.  Entries learnt by this reader are kept in memory (bounded,
 * thinned when they cannot be written) and appended under the index's
 * lock; an index that is absent, or was refused, is written anew from
 * them, under a temporary name renamed into place, so that no reader
 * ever sees half of one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "store/directread.h"
#include "store/dirlist.h"
#include "store/dotdir.h"
#include "util/escape.h"
#include "store/fstype.h"
#include "util/notice.h"
#include "store/partindex.h"
#include "store/regfile.h"
#include "store/replace.h"

#define DOT TMQ_DOT_DIR
/* Entries kept in memory at most (24 bytes each): past it, those on disk
 * are dropped, or, when none could be written, every other one. */
#define MEMCAP 4096
/* How long a reader tries for the shared lock on an index (a network
 * filesystem's), and a writer for the exclusive one: an honest writer
 * holds it for a moment; a lock held longer costs the speed-up only. */
#define READ_LOCK_MS 200
#define WRITE_LOCK_MS 20

enum { ST_UNKNOWN, ST_OK, ST_ABSENT, ST_BAD };

/* The stamp of a partition file as it is now. */
static void
stamp_of(const struct stat *st, struct tmq_pidx_stamp *s)
{
	s->size = (uint64_t)st->st_size;
	s->ctime_sec = (int64_t)st->st_ctim.tv_sec;
	s->ctime_nsec = (uint32_t)st->st_ctim.tv_nsec;
}

/* What x's index's header must say. */
static void
id_of(const struct tmq_pidx *x, struct tmq_pidx_id *id)
{
	id->partition = x->pf.partition;
	id->day = x->pf.day;
	id->first = x->pf.first;
	id->key_width = x->key_width;
	id->topic_hash = x->topic_hash;
}

/* --- Saying ----------------------------------------------------------- */

static int quiet;

void
tmq_pidx_quiet(int on)
{
	quiet = on;
}

struct tmq_pidx_said *
tmq_pidx_said_new(void)
{
	return calloc(1, sizeof (struct tmq_pidx_said));
}

void
tmq_pidx_said_free(struct tmq_pidx_said *s)
{
	if (s == NULL)
		return;
	free(s->h);
	free(s);
}

/* Whether s had said what key says (and now it has): 1 when it had, or
 * when it cannot be kept (then nothing is said: as before, at most
 * once). */
static int
said_before(struct tmq_pidx_said *s, const char *key)
{
	uint64_t h = XXH3_64bits(key, strlen(key));
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return 1;
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		uint64_t *nh = realloc(s->h, nc * sizeof *nh);

		if (nh == NULL)
			return 1;
		s->h = nh;
		s->cap = nc;
	}
	s->h[s->n++] = h;
	return 0;
}

/* Say that x's index is refused, and why: once for x, and once for the
 * set of what was said its caller gave (a reader's, for all the indexes
 * of its partition it looks at). */
static void
refuse(struct tmq_pidx *x, const char *why)
{
	char topic[160], name[80], key[160];

	x->state = ST_BAD;
	x->have_last = 0;
	if (x->said)
		return;
	x->said = 1;
	if (x->saidset != NULL) {
		snprintf(key, sizeof key, "%s %s", x->pf.name, why);
		if (said_before(x->saidset, key))
			return;
	}
	if (quiet)
		return;
	if (x->topic != NULL)
		tmq_escape_name(x->topic, topic, sizeof topic);
	else
		snprintf(topic, sizeof topic, "a topic");
	tmq_pidx_name(x->pf.name, name, sizeof name);
	tmq_notice("%s: " DOT "/%s refused (%s): the file is read without it",
	    topic, name, why);
}

/* --- Files ------------------------------------------------------------ */

void
tmq_pidx_name(const char *pfname, char *out, size_t n)
{
	size_t len = strlen(pfname);

	/* P-YYYYMMDD_FIRST.tmf -> P-YYYYMMDD_FIRST.UID.idx: each user's
	 * own (partindex.h, "Never trusted blindly"). */
	if (len > 4 && strcmp(pfname + len - 4, ".tmf") == 0)
		len -= 4;
	snprintf(out, n, "%.*s.%lu" TMQ_DOT_IDX, (int)len, pfname,
	    (unsigned long)geteuid());
}

void
tmq_pidx_init(struct tmq_pidx *x, int dirfd, const char *topic,
    const struct tmq_pfile *pf, int key_width, struct tmq_pidx_said *said)
{
	memset(x, 0, sizeof *x);
	x->dirfd = dirfd;
	x->topic = topic;
	x->saidset = said;
	x->pf = *pf;
	x->key_width = key_width;
	x->state = ST_UNKNOWN;
	x->due = TMQ_PIDX_STEP;
	/* The topic's name is in the index's identity: the index of a
	 * file of the same name in another topic is not this one's. */
	if (topic != NULL)
		x->topic_hash = tmq_pidx_topic_hash(topic);
	if (topic == NULL || (getenv("TMQ_INDEX") != NULL &&
	    strcmp(getenv("TMQ_INDEX"), "off") == 0)) {
		x->state = ST_ABSENT;
		x->nowrite = 1;
		x->due = UINT64_MAX;
	}
}

/* The partition file's identity: XXH3 of its first TMQ_PIDX_HEAD bytes;
 * -1 when it is shorter (no index is made for such a file). */
static int
head_hash(struct tmq_pidx *x, int fd, int how)
{
	char *buf;
	size_t got = 0;
	ssize_t r;

	if (x->head_known)
		return 0;
	if ((buf = malloc(TMQ_PIDX_HEAD)) == NULL)
		return -1;
	while (got < TMQ_PIDX_HEAD && (r = tmq_dr_pread(fd, how, buf + got,
	    TMQ_PIDX_HEAD - got, (off_t)got)) > 0)
		got += (size_t)r;
	if (got == TMQ_PIDX_HEAD) {
		x->head_hash = XXH3_64bits(buf, TMQ_PIDX_HEAD);
		x->head_known = 1;
	}
	free(buf);
	return x->head_known ? 0 : -1;
}

/* The shared (or exclusive) lock on an index, tried for at most ms
 * milliseconds: 0, or -1 when another holds it that long. */
static int
try_lock(int fd, short type, int ms)
{
	struct flock fl;
	int waited = 0, step = 1;

	memset(&fl, 0, sizeof fl);
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	for (;;) {
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			return -1;
		if (waited >= ms)
			return -1;
		poll(NULL, 0, step);
		waited += step;
		if (step < 16)
			step *= 2;
	}
}

static void
unlock(int fd)
{
	struct flock fl;

	memset(&fl, 0, sizeof fl);
	fl.l_type = F_UNLCK;
	fl.l_whence = SEEK_SET;
	(void)fcntl(fd, F_OFD_SETLK, &fl);
}

/* Read exactly n bytes at pos: 0, or -1 (short or failed). */
static int
read_at(int fd, int how, void *dst, size_t n, uint64_t pos)
{
	size_t got = 0;
	ssize_t r;

	while (got < n && (r = tmq_dr_pread(fd, how, (char *)dst + got,
	    n - got, (off_t)(pos + got))) > 0)
		got += (size_t)r;
	return got == n ? 0 : -1;
}

/* The 32 bytes of the partition file before pos hash to win, and the
 * last of them is a newline: 0, or -1. */
static int
window_ok(int fd, int how, uint64_t pos, uint32_t win)
{
	unsigned char b[TMQ_PIDX_WIN];
	size_t n = pos < TMQ_PIDX_WIN ? (size_t)pos : TMQ_PIDX_WIN;

	uint32_t h;

	if (n == 0 || read_at(fd, how, b, n, pos - n) < 0 ||
	    tmq_pidx_window(b, n, &h) < 0)
		return -1;
	return h == win ? 0 : -1;
}

static uint32_t
window_of(int fd, int how, uint64_t pos, int *ok)
{
	unsigned char b[TMQ_PIDX_WIN];
	size_t n = pos < TMQ_PIDX_WIN ? (size_t)pos : TMQ_PIDX_WIN;

	uint32_t h = 0;

	*ok = n > 0 && read_at(fd, how, b, n, pos - n) == 0 &&
	    tmq_pidx_window(b, n, &h) == 0;
	return h;
}

/* An open index, for one lookup. */
struct open_ix {
	int fd, how, locked;
	uint64_t nrec;
};

static void
close_ix(struct open_ix *o)
{
	if (o->fd >= 0) {
		if (o->locked)
			unlock(o->fd);
		close(o->fd);
	}
	o->fd = -1;
}

/* Open x's index and check its header: 0, or -1 when there is none to
 * use (absent, refused: x->state says which; or for now only, when its
 * lock is held too long or no descriptor is left). */
static int
open_ix(struct tmq_pidx *x, int fd, int how, struct open_ix *o)
{
	unsigned char hdr[TMQ_PIDX_START];
	struct tmq_pidx_stamp was, now;
	struct tmq_pidx_id id;
	int tries, cmp;
	char name[80];
	struct tmq_error e;
	struct stat st;
	const char *why;
	uint64_t hh, size;
	uint32_t seed;
	int dfd, err;

	o->fd = -1;
	o->locked = 0;
	if (x->state == ST_BAD || x->state == ST_ABSENT)
		return -1;
	/* No index is made for a file shorter than a step: not even .tmq
	 * is looked at (a reader of 4,096 small partitions opens no more
	 * directories than one of 512). */
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < TMQ_PIDX_STEP)
		return -1;
	tmq_pidx_name(x->pf.name, name, sizeof name);
	dfd = tmq_dot_open(x->dirfd, 0);
	if (dfd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EACCES)
			x->state = ST_ABSENT;
		return -1;
	}
	o->fd = tmq_open_regular(dfd, name, O_RDONLY, 0, &e);
	err = errno;
	if (o->fd < 0) {
		if (e.code == TMQ_ERR_FILEKIND) {	/* not a regular file */
			struct stat ls;
			char kind[64];

			if (fstatat(dfd, name, &ls, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISLNK(ls.st_mode))
				snprintf(kind, sizeof kind, "not a regular file "
				    "(%s)", tmq_file_kind(ls.st_mode));
			else
				snprintf(kind, sizeof kind, "a symbolic link, "
				    "not followed");
			close(dfd);
			refuse(x, kind);
		} else {
			close(dfd);
			if (err == ENOENT || err == EACCES || err == EPERM)
				x->state = ST_ABSENT;
		}
		return -1;
	}
	/* Only an index this user wrote, that no one else may write: its
	 * line numbers are the one thing a use cannot check against the
	 * file (partindex.h).  Its link count is no test: GlusterFS keeps a
	 * second link of every file on its bricks, and a link to another
	 * index of ours names another file or topic in its header. */
	why = NULL;
	if (fstat(o->fd, &st) < 0)
		why = "cannot be read";
	else if (st.st_uid != geteuid())
		why = "not written by this user";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "writable by other users";
	if (why != NULL) {
		close(dfd);
		close_ix(o);
		refuse(x, why);
		return -1;
	}
	if (tmq_dr_reopen(dfd, name, &o->fd, &o->how, &e) < 0) {
		close(dfd);
		o->fd = -1;
		return -1;
	}
	o->how |= TMQ_DR_BINARY;
	close(dfd);
	if (o->how & TMQ_DR_DIRECT) {
		if (try_lock(o->fd, F_RDLCK, READ_LOCK_MS) < 0) {
			close_ix(o);
			return -1;
		}
		o->locked = 1;
	}
	if (fstat(o->fd, &st) < 0) {
		close_ix(o);
		return -1;
	}
	size = (uint64_t)st.st_size;
	if (o->how & TMQ_DR_DIRECT) {
		off_t sz;
		int last;

		/* (a client's size may be stale: the server's) */
		if (tmq_dr_tail(o->fd, o->how, &sz, &last) == 0)
			size = (uint64_t)sz;
	}
	if (size < TMQ_PIDX_HDR || read_at(o->fd, o->how, hdr, TMQ_PIDX_HDR,
	    0) < 0) {
		close_ix(o);
		refuse(x, "damaged");
		return -1;
	}
	id_of(x, &id);
	if (tmq_pidx_header_decode(hdr, sizeof hdr, &id, &hh, &seed,
	    &why) < 0) {
		close_ix(o);
		x->stale = strcmp(why, "not this file's index") == 0;
		/* (one of an older tmq: replaced without a word) */
		if (strcmp(why, "of an older version") == 0)
			x->said = 1;
		refuse(x, why);
		return -1;
	}
	if (head_hash(x, fd, how) < 0 || hh != x->head_hash) {
		close_ix(o);
		x->stale = 1;
		refuse(x, "not this file's index: its first bytes differ");
		return -1;
	}
	/* The stamp, rewritten in place by writers: one read torn by a
	 * write is read again. */
	for (tries = 0; tries < 3; tries++)
		if (size >= TMQ_PIDX_START && read_at(o->fd, o->how,
		    hdr + TMQ_PIDX_HDR, TMQ_PIDX_STAMP, TMQ_PIDX_HDR) == 0 &&
		    tmq_pidx_stamp_decode(hdr + TMQ_PIDX_HDR, seed, &was) == 0)
			break;
	if (tries == 3) {
		close_ix(o);
		refuse(x, "damaged");
		return -1;
	}
	x->seed = seed;
	o->nrec = (size - TMQ_PIDX_START) / TMQ_PIDX_REC;
	if (fstat(fd, &st) < 0) {
		close_ix(o);
		return -1;
	}
	/* Written to since this user's readers last saw it, and not only
	 * appended to: the line numbers of the records may be false now
	 * (partindex.h, "A file rewritten in place"). */
	stamp_of(&st, &now);
	if ((cmp = tmq_pidx_stamp_cmp(&was, &now)) != TMQ_PIDX_SAME) {
		/* (A check reads every line against every record: it says
		 * which is wrong, if any, and stamps the index it finds
		 * right.) */
		/* An append under way moves the times before the size (the
		 * kernel updates them first): look again, for up to 50 ms,
		 * before a file that did not grow is taken for rewritten. */
		for (tries = 0; tries < 5 && now.size == was.size &&
		    !x->checking; tries++) {
			poll(NULL, 0, 10);
			if (fstat(fd, &st) < 0) {
				close_ix(o);
				return -1;
			}
			stamp_of(&st, &now);
			cmp = tmq_pidx_stamp_cmp(&was, &now);
		}
		if (cmp != TMQ_PIDX_GROWN && !x->checking) {
			close_ix(o);
			refuse(x, cmp == TMQ_PIDX_SHORTER ?
			    "the file is shorter than when it was indexed" :
			    "the file was written to in place since it was "
			    "indexed");
			return -1;
		}
		x->restamp = 1;
	}
	if (o->nrec > tmq_pidx_max_records(now.size)) {
		close_ix(o);
		refuse(x, "too large");
		return -1;
	}
	x->state = ST_OK;
	return 0;
}

/* Record k of an open index: 0, or -1 (the index refused). */
static int
record(struct tmq_pidx *x, struct open_ix *o, uint64_t k,
    struct tmq_pidx_ent *at, uint32_t *win)
{
	unsigned char b[TMQ_PIDX_REC];
	char why[64];

	if (read_at(o->fd, o->how, b, sizeof b, TMQ_PIDX_START +
	    k * TMQ_PIDX_REC) < 0 || tmq_pidx_record_decode(b, x->seed, at,
	    win) < 0) {
		snprintf(why, sizeof why, "record %" PRIu64 " damaged", k);
		refuse(x, why);
		return -1;
	}
	return 0;
}

/* The last record that comes before what is looked for, checked against
 * the file: 1 with *at set, 0 when none does, -1 when none can be used. */
static int
search(struct tmq_pidx *x, int fd, int how, int by, uint64_t line,
    double t, struct tmq_pidx_ent *at)
{
	struct open_ix o;
	struct tmq_pidx_ent lo = { 0, 0, -INFINITY }, hi = lo, mid;
	uint64_t l = 0, h, m;	/* records [l, h) unknown; lo is l - 1 */
	uint32_t lowin = 0, win;
	int have_lo = 0, have_hi = 0, rc = -1;
	char why[96];

	if (open_ix(x, fd, how, &o) < 0)
		return -1;
	h = o.nrec;
	if (by == TMQ_PIDX_LAST && h > 0)
		l = h - 1;
	while (l < h) {
		m = by == TMQ_PIDX_LAST ? l : l + (h - l) / 2;
		if (record(x, &o, m, &mid, &win) < 0)
			goto out;
		if ((have_lo && !tmq_pidx_ordered(&lo, &mid)) ||
		    (have_hi && !tmq_pidx_ordered(&mid, &hi))) {
			snprintf(why, sizeof why, "record %" PRIu64 " out of "
			    "order", m);
			refuse(x, why);
			goto out;
		}
		if (tmq_pidx_before(&mid, by, line, t)) {
			lo = mid;
			lowin = win;
			have_lo = 1;
			l = m + 1;
		} else {
			hi = mid;
			have_hi = 1;
			h = m;
		}
	}
	rc = 0;
	if (have_lo) {
		if (window_ok(fd, how, lo.pos, lowin) < 0) {
			snprintf(why, sizeof why, "record %" PRIu64 " does not "
			    "match the file at byte %" PRIu64, l - 1, lo.pos);
			refuse(x, why);
			rc = -1;
			goto out;
		}
		*at = lo;
		rc = 1;
		if (by == TMQ_PIDX_LAST || l == o.nrec) {
			x->last = lo;
			x->have_last = 1;
			if (x->due < lo.pos + TMQ_PIDX_STEP)
				x->due = lo.pos + TMQ_PIDX_STEP;
		}
	}
out:
	close_ix(&o);
	return rc;
}

/* The last entry learnt here that comes before what is looked for. */
static int
search_mem(const struct tmq_pidx *x, int by, uint64_t line, double t,
    struct tmq_pidx_ent *at)
{
	size_t l = 0, h = x->nmem;

	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (tmq_pidx_before(&x->mem[m].at, by, line, t))
			l = m + 1;
		else
			h = m;
	}
	if (l == 0)
		return 0;
	*at = x->mem[l - 1].at;
	return 1;
}

static void
lookup(struct tmq_pidx *x, int fd, int how, int by, uint64_t line,
    double t, struct tmq_pidx_ent *at)
{
	struct tmq_pidx_ent d, m;
	int hd, hm;

	at->line = at->pos = 0;
	at->maxts = -INFINITY;
	hd = search(x, fd, how, by, line, t, &d) == 1;
	hm = search_mem(x, by, line, t, &m);
	if (hd && (!hm || d.line >= m.line))
		*at = d;
	else if (hm)
		*at = m;
	/* An index read for the first time said where its records end:
	 * entries are wanted past them only.  One that is absent or
	 * refused wants them from the start (x->due as it was). */
	if (x->state == ST_OK && !x->have_last && x->nmem == 0 && by != TMQ_PIDX_LAST) {
		struct tmq_pidx_ent l;

		(void)search(x, fd, how, TMQ_PIDX_LAST, 0, 0, &l);
	}
}

void
tmq_pidx_floor_line(struct tmq_pidx *x, int fd, int how, uint64_t line,
    struct tmq_pidx_ent *at)
{
	lookup(x, fd, how, TMQ_PIDX_BY_LINE, line, 0, at);
}

void
tmq_pidx_floor_time(struct tmq_pidx *x, int fd, int how, double t,
    int strict, struct tmq_pidx_ent *at)
{
	lookup(x, fd, how, strict ? TMQ_PIDX_BY_TIME_STRICT : TMQ_PIDX_BY_TIME, 0, t, at);
}

void
tmq_pidx_last(struct tmq_pidx *x, int fd, int how, struct tmq_pidx_ent *at)
{
	lookup(x, fd, how, TMQ_PIDX_LAST, 0, 0, at);
}

/* --- Building --------------------------------------------------------- */

void
tmq_pidx_add(struct tmq_pidx *x, const struct tmq_pidx_ent *at, int from0,
    const void *before)
{
	struct tmq_pidx_mem *m;
	size_t i;

	if (at->pos < x->due || at->line == 0 || at->line > at->pos)
		return;
	if (x->nmem == 0)
		x->mem_from0 = from0;
	else if (!from0)
		x->mem_from0 = 0;
	if (x->nmem == x->memcap && x->memcap < MEMCAP) {
		size_t nc = x->memcap ? 2 * x->memcap : 64;
		struct tmq_pidx_mem *nm = realloc(x->mem, nc * sizeof *nm);

		if (nm == NULL)
			return;
		x->mem = nm;
		x->memcap = nc;
	}
	if (x->nmem == x->memcap) {
		if (x->nsaved > 0) {
			/* On disk already: found there. */
			memmove(x->mem, x->mem + x->nsaved, (x->nmem -
			    x->nsaved) * sizeof *x->mem);
			x->nmem -= x->nsaved;
			x->nsaved = 0;
			x->mem_from0 = 0;
		} else {
			for (i = 0; 2 * i + 1 < x->nmem; i++)
				x->mem[i] = x->mem[2 * i + 1];
			x->nmem = i;
		}
	}
	m = &x->mem[x->nmem++];
	m->at = *at;
	m->have_win = before != NULL;
	m->win = before != NULL ? XXH32(before, TMQ_PIDX_WIN, 0) : 0;
	x->due = at->pos + TMQ_PIDX_STEP;
}

/* Write n records of mem from i into fd, each with its window read from
 * the partition file: the count written, -1 on a failed write. */
static long
write_records(struct tmq_pidx *x, int wfd, int fd, int how, size_t i,
    size_t n, unsigned char *head, size_t headlen)
{
	unsigned char buf[64 * TMQ_PIDX_REC + TMQ_PIDX_START];
	size_t k = 0, used = headlen, done = 0;
	ssize_t w;
	int ok;

	if (headlen > 0)
		memcpy(buf, head, headlen);
	while (k < n || used > 0) {
		while (k < n && used + TMQ_PIDX_REC <= sizeof buf) {
			const struct tmq_pidx_mem *m = &x->mem[i + k];
			uint32_t win = m->win;

			if (!m->have_win || m->at.pos < TMQ_PIDX_WIN) {
				win = window_of(fd, how, m->at.pos, &ok);
				if (!ok)
					return -1;	/* not this file's */
			}
			tmq_pidx_record_encode(buf + used, x->seed, &m->at, win);
			used += TMQ_PIDX_REC;
			k++;
		}
		w = write(wfd, buf, used);
		if (w != (ssize_t)used)
			return -1;
		done = k;
		used = 0;
	}
	return (long)done;
}

/* A new index from the entries learnt (counted from the file's start):
 * written under a temporary name, then renamed into place; over the old
 * one only when it was refused. */
static void
save_new(struct tmq_pidx *x, int fd, int how)
{
	unsigned char hdr[TMQ_PIDX_START];
	struct tmq_pidx_stamp now;
	struct tmq_pidx_id id;
	struct stat st;
	char name[80], tmp[TMQ_TMP_NAME_MAX];
	struct tmq_error e;
	int dfd, wfd, rc;

	if (!x->mem_from0 || head_hash(x, fd, how) < 0)
		return;
	tmq_pidx_name(x->pf.name, name, sizeof name);
	dfd = tmq_dot_open(x->dirfd, 1);
	if (dfd < 0) {
		x->nowrite = 1;
		return;
	}
	/* Writable by its user only (partindex.h: any other index is
	 * refused), whatever the umask or the directory's modes. */
	wfd = tmq_tmp_create_mode(dfd, name, name, 0644, tmp, &e);
	if (wfd < 0) {
		if (errno == EACCES || errno == EROFS || errno == EPERM ||
		    errno == ENOSPC || errno == EDQUOT)
			x->nowrite = 1;
		close(dfd);
		return;
	}
	id_of(x, &id);
	tmq_pidx_header_encode(hdr, &id, x->head_hash, &x->seed);
	if (fstat(fd, &st) < 0) {
		close(wfd);
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return;
	}
	stamp_of(&st, &now);
	tmq_pidx_stamp_encode(hdr + TMQ_PIDX_HDR, x->seed, &now);
	rc = write_records(x, wfd, fd, how, 0, x->nmem, hdr, sizeof hdr) ==
	    (long)x->nmem ? 0 : -1;
	if (rc == 0 && tmq_fs_is_remote(wfd) && fdatasync(wfd) < 0)
		rc = -1;
	if (close(wfd) < 0)
		rc = -1;
	/* Over the old one only when it was refused.  Where the filesystem
	 * can refuse neither way (tmq_rename_noreplace), replace: ours is as
	 * right as one made meanwhile; only entries appended to that one are
	 * lost, and made again by later readers. */
	if (rc == 0)
		rc = x->state == ST_BAD ? renameat(dfd, tmp, dfd, name) :
		    tmq_rename_noreplace(dfd, tmp, dfd, name, 1);
	if (rc < 0) {
		/* Another made one meanwhile (the next save appends to it),
		 * or what is there cannot be replaced (a directory). */
		if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST)
			x->nowrite = errno != EEXIST;
		else if (errno == EINVAL || errno == ENOSYS)
			x->nowrite = 1;
		unlinkat(dfd, tmp, 0);
		x->state = ST_UNKNOWN;
		close(dfd);
		return;
	}
	close(dfd);
	x->state = ST_OK;
	x->restamp = 0;
	x->nsaved = x->nmem;
	x->last = x->mem[x->nmem - 1].at;
	x->have_last = 1;
}

/* Append the entries learnt past the index's last record, under its
 * lock, read again there, and stamp the index with the file as it is. */
static void
save_append(struct tmq_pidx *x, int fd, int how)
{
	unsigned char hdr[TMQ_PIDX_START], stamp[TMQ_PIDX_STAMP];
	struct tmq_pidx_stamp now;
	struct tmq_pidx_id id;
	struct stat pst;
	struct tmq_pidx_ent last = { 0, 0, -INFINITY };
	struct open_ix o;
	struct tmq_error e;
	struct stat st;
	char name[80];
	const char *why;
	uint64_t size, hh;
	uint32_t win, seed;
	off_t sz;
	size_t i;
	int dfd, wfd, remote, lastc, ok = 0;

	if (open_ix(x, fd, how, &o) < 0)
		return;
	close_ix(&o);
	id_of(x, &id);
	tmq_pidx_name(x->pf.name, name, sizeof name);
	dfd = tmq_dot_open(x->dirfd, 0);
	if (dfd < 0)
		return;
	/* (not O_APPEND: the stamp is rewritten in place; records go at
	 * the end, found under the lock) */
	wfd = tmq_open_regular(dfd, name, O_RDWR, 0, &e);
	if (wfd < 0) {
		if (errno == EACCES || errno == EROFS || errno == EPERM)
			x->nowrite = 1;
		close(dfd);
		return;
	}
	remote = tmq_fs_is_remote(wfd);
	if (try_lock(wfd, F_WRLCK, WRITE_LOCK_MS) < 0) {
		close(wfd);
		close(dfd);
		return;
	}
	/* Under the lock, what the index holds now: on a network
	 * filesystem read past the client's cache, without a lock of its
	 * own (ours is the exclusive one). */
	o.fd = wfd;
	o.how = 0;
	o.locked = 0;
	if (remote)
		o.fd = tmq_dr_openat(dfd, name, &o.how, &e);
	o.how |= TMQ_DR_BINARY;
	if (o.fd < 0 || fstat(o.fd, &st) < 0)
		goto out;
	size = (uint64_t)st.st_size;
	if ((o.how & TMQ_DR_DIRECT) && tmq_dr_tail(o.fd, o.how, &sz,
	    &lastc) == 0)
		size = (uint64_t)sz;
	/* Replaced meanwhile by one of another header: next time. */
	if (size < TMQ_PIDX_START || read_at(o.fd, o.how, hdr,
	    TMQ_PIDX_HDR, 0) < 0 || tmq_pidx_header_decode(hdr, TMQ_PIDX_HDR,
	    &id, &hh, &seed, &why) < 0 || seed != x->seed)
		goto out;
	o.nrec = (size - TMQ_PIDX_START) / TMQ_PIDX_REC;
	if (o.nrec > 0 && record(x, &o, o.nrec - 1, &last, &win) < 0)
		goto out;
	/* A tail cut by a writer that died: records go after whole ones. */
	if (size != TMQ_PIDX_START + o.nrec * TMQ_PIDX_REC &&
	    ftruncate(wfd, (off_t)(TMQ_PIDX_START + o.nrec * TMQ_PIDX_REC)) < 0)
		goto out;
	if (lseek(wfd, (off_t)(TMQ_PIDX_START + o.nrec * TMQ_PIDX_REC),
	    SEEK_SET) < 0)
		goto out;
	for (i = x->nsaved; i < x->nmem; i++)
		if (x->mem[i].at.line > last.line && x->mem[i].at.pos > last.pos)
			break;
	if (i < x->nmem && write_records(x, wfd, fd, how, i, x->nmem - i,
	    NULL, 0) != (long)(x->nmem - i))
		goto out;
	/* The file as it is now: open_ix found it unchanged since the
	 * stamp, or only grown. */
	if (fstat(fd, &pst) < 0)
		goto out;
	stamp_of(&pst, &now);
	tmq_pidx_stamp_encode(stamp, x->seed, &now);
	if (pwrite(wfd, stamp, sizeof stamp, TMQ_PIDX_HDR) != sizeof stamp)
		goto out;
	if (remote && fdatasync(wfd) < 0)
		goto out;
	ok = 1;
	x->restamp = 0;
	if (i < x->nmem)
		last = x->mem[x->nmem - 1].at;
out:
	if (o.fd >= 0 && o.fd != wfd)
		close(o.fd);
	unlock(wfd);
	close(wfd);
	close(dfd);
	if (!ok)
		return;
	x->nsaved = x->nmem;
	if (last.line > 0) {
		x->last = last;
		x->have_last = 1;
	}
}

void
tmq_pidx_save(struct tmq_pidx *x, int fd, int how)
{
	struct tmq_error e;
	int own = 0;

	if (x->nowrite || (x->nsaved >= x->nmem && !x->restamp))
		return;
	if (fd < 0) {
		fd = tmq_dr_openat(x->dirfd, x->pf.name, &how, &e);
		if (fd < 0)
			return;
		own = 1;
	}
	if (x->state == ST_UNKNOWN) {
		struct open_ix o;

		if (open_ix(x, fd, how, &o) == 0)
			close_ix(&o);
	}
	if (x->state == ST_OK)
		save_append(x, fd, how);
	else if (x->state == ST_ABSENT || x->state == ST_BAD)
		save_new(x, fd, how);
	if (own)
		close(fd);
}

void
tmq_pidx_free(struct tmq_pidx *x)
{
	tmq_pidx_save(x, -1, 0);
	free(x->mem);
	x->mem = NULL;
	x->nmem = x->memcap = x->nsaved = 0;
}

int
tmq_pidx_remove(int dirfd, const char *pfname)
{
	char name[80];
	int dfd, rc;

	tmq_pidx_name(pfname, name, sizeof name);
	dfd = tmq_dot_open(dirfd, 0);
	if (dfd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ?
		    0 : -1;
	rc = unlinkat(dfd, name, 0);
	if (rc < 0 && errno == ENOENT)
		rc = 0;
	close(dfd);
	return rc;
}

int
tmq_pidx_sweep(int dirfd)
{
	struct dirent *de;
	struct stat st;
	char pf[80];
	DIR *d;
	int dfd, fd, rc = 0, got;

	dfd = tmq_dot_open(dirfd, 0);
	if (dfd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ?
		    0 : -1;
	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		close(dfd);
		return -1;
	}
	while ((got = tmq_dir_next(d, &de)) > 0) {
		const char *s = de->d_name;
		size_t n, u;
		int tmp;

		/* P-DAY_FIRST.UID.idx, of any user (and, left by a killed
		 * writer, its temporary, .P-DAY_FIRST.UID.idx.PID.RANDOM.tmp,
		 * or an older tmq's, without the dot: replace.h) */
		tmp = tmq_tmp_is(s, NULL);
		if (tmp && s[0] == '.')
			s++;
		n = strlen(s);
		if (n < 5 || n >= sizeof pf || s[0] < '0' || s[0] > '9')
			continue;
		if (tmp && strstr(s, TMQ_DOT_IDX ".") != NULL)
			n = (size_t)(strstr(s, TMQ_DOT_IDX ".") - s) + 4;
		if (strncmp(s + n - 4, TMQ_DOT_IDX, 4) != 0)
			continue;
		for (u = n - 4; u > 0 && s[u - 1] >= '0' && s[u - 1] <= '9'; u--)
			;
		if (u == 0 || u == n - 4 || s[u - 1] != '.')
			continue;
		snprintf(pf, sizeof pf, "%.*s.tmf", (int)(u - 1), s);
		if (fstatat(dirfd, pf, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    errno != ENOENT)
			continue;
		/* (a directory in its place is not ours: left, and named by
		 * a delete) */
		if (unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT &&
		    errno != EISDIR && errno != EPERM)
			rc = -1;
	}
	if (got < 0)
		rc = -1;	/* (a sweep cut short: the rest waits) */
	closedir(d);
	close(dfd);
	return rc;
}

/* --- Checking --------------------------------------------------------- */

static void
check_wrong(struct tmq_pidx_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
check_wrong(struct tmq_pidx_check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->wrong[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(c->wrong, sizeof c->wrong, fmt, ap);
	va_end(ap);
}

/* The next record, into c->rec (have_rec 0 past the last). */
static void
check_next_rec(struct tmq_pidx_check *c)
{
	struct open_ix o;
	uint32_t win;
	struct tmq_pidx_ent prev = c->rec;
	int had = c->have_rec;

	c->have_rec = 0;
	if (c->wrong[0] != '\0' || c->next >= c->nrec)
		return;
	o.fd = c->ifd;
	o.how = c->ihow;
	o.locked = 0;
	if (record(&c->x, &o, c->next, &c->rec, &win) < 0) {
		check_wrong(c, "record %" PRIu64 " damaged", c->next);
		return;
	}
	if (had && !tmq_pidx_ordered(&prev, &c->rec)) {
		check_wrong(c, "record %" PRIu64 " out of order", c->next);
		return;
	}
	if (window_ok(c->fd, c->how, c->rec.pos, win) < 0) {
		check_wrong(c, "record %" PRIu64 " does not match the file at "
		    "byte %" PRIu64, c->next, c->rec.pos);
		return;
	}
	c->next++;
	c->have_rec = 1;
}

int
tmq_pidx_check_begin(struct tmq_pidx_check *c, int dirfd, const char *topic,
    const struct tmq_pfile *pf, int key_width, int fd, int how)
{
	struct open_ix o;
	char name[80];
	int dfd;

	memset(c, 0, sizeof *c);
	c->ifd = -1;
	c->fd = fd;
	c->how = how;
	c->maxts = -INFINITY;
	tmq_pidx_init(&c->x, dirfd, topic, pf, key_width, NULL);
	if (c->x.state == ST_ABSENT)
		return 0;	/* TMQ_INDEX=off */
	tmq_pidx_name(pf->name, name, sizeof name);
	dfd = tmq_dot_open(dirfd, 0);
	if (dfd < 0)
		return 0;
	if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		close(dfd);
		return 0;
	}
	close(dfd);
	c->present = 1;
	c->x.said = 1;		/* the check says it */
	c->x.checking = 1;
	if (open_ix(&c->x, fd, how, &o) < 0) {
		struct stat st;

		/* Another file's (this name's before; or one beside a file
		 * too short to have any): replaced, not wrong. */
		if (!c->x.stale && c->x.state != ST_BAD && fstat(fd, &st) == 0 &&
		    (uint64_t)st.st_size < TMQ_PIDX_STEP)
			c->x.stale = 1;
		if (c->x.stale)
			c->present = 0;
		check_wrong(c, "%s", c->x.state == ST_BAD ? "refused" :
		    "cannot be read");
		c->x.state = ST_BAD;
		return 1;
	}
	c->ifd = o.fd;
	c->ihow = o.how;
	c->locked = o.locked;
	c->nrec = o.nrec;
	c->x.state = ST_OK;
	check_next_rec(c);
	return 1;
}

void
tmq_pidx_check_line(struct tmq_pidx_check *c, uint64_t pos, size_t n,
    int problem, int has_ts, double ts)
{
	struct tmq_pidx_ent at;

	while (c->have_rec && c->rec.pos <= pos) {
		if (c->rec.pos < pos)
			check_wrong(c, "record %" PRIu64 ": byte %" PRIu64
			    " is inside line %" PRIu64, c->next - 1,
			    c->rec.pos, c->line - 1);
		else if (c->rec.line != c->line)
			check_wrong(c, "record %" PRIu64 " says line %" PRIu64
			    " at byte %" PRIu64 ", the file has line %" PRIu64,
			    c->next - 1, c->rec.line, pos, c->line);
		else if (memcmp(&c->rec.maxts, &c->maxts, sizeof c->maxts) !=
		    0)
			check_wrong(c, "record %" PRIu64 " says %.6f for the "
			    "latest time before line %" PRIu64 ", the file has "
			    "%.6f", c->next - 1, c->rec.maxts, c->line,
			    c->maxts);
		check_next_rec(c);
	}
	/* The check's own entries, to replace a wrong index with. */
	if (c->line > 0 && tmq_pidx_due(&c->x, pos)) {
		at.line = c->line;
		at.pos = pos;
		at.maxts = c->maxts;
		tmq_pidx_add(&c->x, &at, 1, NULL);
	}
	c->line++;
	if (!problem && has_ts && n < TMQ_PIDX_LONG)
		c->maxts = tmq_pidx_ts(c->maxts, ts);
}

int
tmq_pidx_check_end(struct tmq_pidx_check *c)
{
	int wrong;

	/* Records past the last line read: of lines written since, when
	 * they match the file's bytes (check_next_rec checks that). */
	while (c->have_rec && c->wrong[0] == '\0')
		check_next_rec(c);
	if (c->ifd >= 0) {
		if (c->locked)
			unlock(c->ifd);
		close(c->ifd);
	}
	c->ifd = -1;
	wrong = c->present && c->wrong[0] != '\0';
	if (wrong || c->x.stale) {
		c->x.state = ST_BAD;
		c->x.nsaved = 0;
		if (c->x.nmem > 0)
			save_new(&c->x, c->fd, c->how);
		else if (tmq_pidx_remove(c->x.dirfd, c->x.pf.name) == 0)
			c->x.state = ST_OK;
		if (c->x.state != ST_OK && wrong)
			wrong = 2;
	}
	c->x.nsaved = c->x.nmem;	/* nothing more to save */
	tmq_pidx_free(&c->x);
	return wrong;
}
