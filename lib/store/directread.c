/* directread.c: reads that bypass a shared filesystem's client cache (see
 * directread.h).  O_DIRECT wants the file offset, the length and the
 * buffer aligned to the logical block size; we read whole aligned blocks
 * into a bounce buffer and copy out the part asked for.  The copy costs
 * little next to the round trip to the server that each read now is.  The
 * bounce buffer is one per thread, made on first use: a follower of
 * thousands of partitions must not hold a megabyte for each. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/directread.h"
#include "util/escape.h"
#include "store/fstype.h"
#include "store/regfile.h"
#include "util/stop.h"

/* 4096 covers the logical block size of every filesystem we meet; reads
 * of 1 MiB keep the round trips few when a follower catches up. */
#define DR_ALIGN 4096
#define DR_BOUNCE (1024 * 1024)

enum { MODE_AUTO, MODE_DIRECT, MODE_CACHED, MODE_BAD };

static _Thread_local char *bounce;

static int
read_mode(void)
{
	const char *env = getenv("TMQ_READ");

	if (env == NULL || *env == '\0' || strcmp(env, "auto") == 0)
		return MODE_AUTO;
	if (strcmp(env, "direct") == 0)
		return MODE_DIRECT;
	if (strcmp(env, "cached") == 0)
		return MODE_CACHED;
	return MODE_BAD;
}

int
tmq_read_mode_check(struct tmq_error *e)
{
	if (read_mode() == MODE_BAD)
		return tmq_fail(e, "TMQ_READ='%s': want auto, direct or cached",
		    getenv("TMQ_READ"));
	return 0;
}

int
tmq_read_as_shared(int fd)
{
	return read_mode() == MODE_DIRECT || tmq_fs_is_remote(fd);
}

/* The bounce buffer of this thread, made once. */
static int
need_bounce(void)
{
	if (bounce == NULL && posix_memalign((void **)&bounce, DR_ALIGN,
	    DR_BOUNCE) != 0) {
		bounce = NULL;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* A filesystem that refused O_DIRECT for name: what we would read there
 * could be the client's cache, not the server's file. */
static int
no_direct(const char *name, struct tmq_error *e)
{
	char shown[128];

	tmq_escape_name(name, shown, sizeof shown);
	tmq_fail(e, "%s: this filesystem cannot read past its client's cache "
	    "(no O_DIRECT); TMQ_READ=cached reads anyway", shown);
	errno = EINVAL;
	return -1;
}

/* How the files on fd's filesystem are read (TMQ_DR_*): through the cache
 * (0, TMQ_READ=cached), as a local file's, or past the client's cache (a
 * shared filesystem, or TMQ_READ=direct). */
static int
how_for(int mode, int fd)
{
	if (mode == MODE_CACHED)
		return 0;
	if (mode != MODE_DIRECT && !tmq_fs_is_remote(fd))
		return TMQ_DR_LOCAL;
	return TMQ_DR_DIRECT;
}

/* name under dirfd opened O_DIRECT.  -1 with errno EINVAL where the
 * filesystem has none: an error (e set), except under TMQ_READ=direct,
 * which then reads through the cache (tmpfs). */
static int
open_direct(int dirfd, const char *name, int mode, struct tmq_error *e)
{
	int fd;

	if (need_bounce() < 0) {
		tmq_fail(e, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	fd = tmq_open_regular(dirfd, name, O_RDONLY | O_DIRECT, 0, e);
	if (fd < 0 && errno == EINVAL && mode != MODE_DIRECT)
		return no_direct(name, e);
	return fd;
}

int
tmq_dr_reopen(int dirfd, const char *name, int *fd, int *how,
    struct tmq_error *e)
{
	int mode = read_mode(), dfd, err;
	off_t pos;

	*how = how_for(mode, *fd);
	if (*how != TMQ_DR_DIRECT)
		return 0;
	dfd = open_direct(dirfd, name, mode, e);
	if (dfd < 0 && errno == EINVAL && mode == MODE_DIRECT) {
		*how = 0;	/* asked for, where there is none */
		return 0;
	}
	if (dfd < 0) {
		err = errno;
		close(*fd);
		*fd = -1;
		errno = err;
		return -1;
	}
	pos = lseek(*fd, 0, SEEK_CUR);
	if (pos > 0)
		lseek(dfd, pos, SEEK_SET);
	close(*fd);
	*fd = dfd;
	return 0;
}

int
tmq_dr_openat(int dirfd, const char *name, int *how, struct tmq_error *e)
{
	/* The directory's filesystem says how to read its files: one open,
	 * not a plain one and then a direct one, each a round trip to the
	 * server of a shared filesystem. */
	int mode = read_mode(), h = how_for(mode, dirfd), fd = -1;

	if (h == TMQ_DR_DIRECT) {
		fd = open_direct(dirfd, name, mode, e);
		if (fd < 0 && errno == EINVAL && mode == MODE_DIRECT)
			h = 0;	/* asked for, where there is none */
	}
	if (h != TMQ_DR_DIRECT)
		fd = tmq_open_regular(dirfd, name, O_RDONLY, 0, e);
	*how = fd >= 0 ? h : 0;
	return fd;
}

/* One direct pread of whole blocks into the bounce buffer. */
static ssize_t
bounce_read(int fd, size_t want, off_t base)
{
	ssize_t got;

	while ((got = pread(fd, bounce, want, base)) < 0 && errno == EINTR)
		;
	return got;
}

ssize_t
tmq_dr_pread(int fd, int how, void *dst, size_t n, off_t pos)
{
	off_t base;
	size_t skip, want;
	ssize_t got;

	if (!(how & TMQ_DR_DIRECT)) {
		while ((got = pread(fd, dst, n, pos)) < 0 && errno == EINTR)
			;
		return got;
	}
	base = pos & ~(off_t)(DR_ALIGN - 1);
	skip = (size_t)(pos - base);
	if (n > DR_BOUNCE - skip)
		n = DR_BOUNCE - skip;
	want = (skip + n + DR_ALIGN - 1) & ~(size_t)(DR_ALIGN - 1);
	if ((got = bounce_read(fd, want, base)) < 0)
		return -1;
	if ((size_t)got <= skip)
		return 0;
	got -= (ssize_t)skip;
	if ((size_t)got > n)
		got = (ssize_t)n;
	memcpy(dst, bounce + skip, (size_t)got);
	return got;
}

ssize_t
tmq_dr_read(int fd, int how, void *dst, size_t n)
{
	off_t pos;
	ssize_t got;

	if (!(how & TMQ_DR_DIRECT))
		return read(fd, dst, n);
	if ((pos = lseek(fd, 0, SEEK_CUR)) < 0)
		return -1;
	got = tmq_dr_pread(fd, how, dst, n, pos);
	if (got > 0 && lseek(fd, pos + got, SEEK_SET) < 0)
		return -1;
	return got;
}

int
tmq_dr_count_lines(int fd, int how, uint64_t *lines, int *partial,
    struct tmq_holes *holes)
{
	char buf[65536];
	struct tmq_holes h;
	uint64_t cnt = 0;
	ssize_t r;
	char last = '\n';
	int sparse = 0;

	if (holes != NULL)
		holes->at = holes->bytes = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((r = tmq_read_data(fd, how, &sparse, buf, sizeof buf, &h, NULL)) > 0 ||
	    (r == 0 && h.bytes > 0)) {
		const char *p = buf, *end = buf + r;

		if (tmq_stop) {
			errno = EINTR;
			return -1;
		}
		if (r == 0) {
			/* A hole: NUL bytes, inside a line. */
			if (holes != NULL)
				tmq_holes_add(holes, &h);
			last = '\0';
			continue;
		}
		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			cnt++;
			p++;
		}
		last = buf[r - 1];
	}
	if (r < 0)
		return -1;
	*partial = last != '\n';
	*lines = cnt + (uint64_t)*partial;
	return 0;
}

int
tmq_dr_tail(int fd, int how, off_t *size, int *last)
{
	char buf[65536];
	struct tmq_holes hole;
	struct stat st;
	char c;
	off_t pos, at;
	ssize_t r;
	int sparse;

	if (fstat(fd, &st) < 0)
		return -1;
	*size = st.st_size;
	*last = -1;
	if (!(how & TMQ_DR_DIRECT)) {
		if (st.st_size > 0 && pread(fd, &c, 1, st.st_size - 1) == 1)
			*last = (unsigned char)c;
		return 0;
	}
	/* The cached size is a hint: start at the block before it and read
	 * on to the server's end of file.  (A file never shrinks under
	 * appenders; were it shorter than the hint, start over from 0.)
	 * Holes on the way are skipped, not read (holes.h): a file that
	 * ends in one ends in a NUL byte. */
	pos = st.st_size > 0 ? (st.st_size - 1) & ~(off_t)(DR_ALIGN - 1) : 0;
	for (;;) {
		if (lseek(fd, pos, SEEK_SET) < 0)
			return -1;
		*size = 0;
		at = pos;
		sparse = 0;
		while ((r = tmq_read_data(fd, how, &sparse, buf, sizeof buf,
		    &hole, NULL)) > 0 || (r == 0 && hole.bytes > 0)) {
			if (r == 0) {
				at = (off_t)(hole.at + hole.bytes);
				*last = 0;
			} else {
				at += r;
				*last = (unsigned char)buf[r - 1];
			}
			*size = at;
			/* A short direct read is the end of the file (unless
			 * it stopped at a hole). */
			if (r > 0 && !sparse && (size_t)r < sizeof buf)
				break;
		}
		if (r < 0)
			return -1;
		if (*last >= 0 || pos == 0)
			return 0;
		pos = 0;
	}
}

/* NUL bytes that are no hole's, read from a network or FUSE filesystem:
 * perhaps not data but what its client had not got yet.  CephFS through
 * ceph-fuse was seen to return zeros for bytes that the file's size
 * covered, SEEK_HOLE called data and a later read of the same bytes held
 * as lines (tmq(7), Shared file systems).  No honest line holds a NUL, so
 * such bytes are taken as not yet arrived, as a line without its newline
 * is: read again after 1, 2, 4 ... ms, up to NUL_TRIES times (about a
 * second all told), the client's cache of them dropped first.  What still
 * holds a NUL then is the file's (damage, which the reader reports as on
 * a local disk).  There a NUL is the file's at once: a local disk's page
 * cache does not hold what its file does not.  got bytes read from pos
 * are in dst; returns the bytes to take from there, the descriptor's
 * offset after them.  With unsettled (tmq_read_data: a follower, which
 * looks again at its next turn), nothing is read again nor waited for
 * here: what comes before the first NUL is taken, *unsettled is set, and
 * the client's cache of the rest dropped, for the next look to ask again
 * (a second of re-reads here would hold up the follower's other
 * partitions, and each record that comes alone, for that second). */
#define NUL_TRIES 10

static ssize_t
nul_reread(int fd, int how, void *dst, ssize_t got, off_t pos,
    int *unsettled)
{
	const char *nul;
	struct timespec ts;
	ssize_t r;
	int i;

	if (unsettled != NULL) {
		if (!(how & TMQ_DR_DIRECT))
			(void)posix_fadvise(fd, pos, (off_t)got,
			    POSIX_FADV_DONTNEED);
		if ((nul = memchr(dst, '\0', (size_t)got)) != NULL) {
			*unsettled = 1;
			got = nul - (const char *)dst;
		}
		return lseek(fd, pos + got, SEEK_SET) < 0 ? -1 : got;
	}
	for (i = 0; i < NUL_TRIES && !tmq_stop; i++) {
		ts.tv_sec = 0;
		ts.tv_nsec = (1L << i) * 1000000L;
		nanosleep(&ts, NULL);
		if (!(how & TMQ_DR_DIRECT))
			(void)posix_fadvise(fd, pos, (off_t)got,
			    POSIX_FADV_DONTNEED);
		if ((r = tmq_dr_pread(fd, how, dst, (size_t)got, pos)) < 0)
			return -1;
		if (r == 0)
			continue;	/* (dst as it was) */
		got = r;
		if (memchr(dst, '\0', (size_t)got) == NULL)
			break;
	}
	if (lseek(fd, pos + got, SEEK_SET) < 0)
		return -1;
	return got;
}

/* Reading past holes (holes.h).  Honest data holds no NUL byte, so a read
 * of it costs nothing more: only a read that brought NUL bytes asks the
 * filesystem (SEEK_HOLE) whether they were a hole's.  From the first hole
 * on, the descriptor is known to be sparse, and each read asks first,
 * stopping where the data does: what is read is the file's data and the
 * one buffer that found the first hole, whatever the file's size. */
ssize_t
tmq_read_data(int fd, int how, int *sparse, void *dst, size_t n,
    struct tmq_holes *hole, int *unsettled)
{
	off_t pos, end, h;
	ssize_t got;

	if (unsettled != NULL)
		*unsettled = 0;
	hole->at = hole->bytes = 0;
	for (;;) {
		if (*sparse) {
			if ((pos = lseek(fd, 0, SEEK_CUR)) < 0)
				return -1;
			if (tmq_hole_end(fd, pos, &end)) {
				if (lseek(fd, end, SEEK_SET) < 0)
					return -1;
				hole->at = (uint64_t)pos;
				hole->bytes = (uint64_t)(end - pos);
				return 0;
			}
			h = tmq_hole_first(fd, pos, n);
			if (lseek(fd, pos, SEEK_SET) < 0)
				return -1;
			if (h > pos)
				n = (size_t)(h - pos);
		}
		got = tmq_dr_read(fd, how, dst, n);
		if (got <= 0 || *sparse || memchr(dst, '\0', (size_t)got) == NULL)
			return got;
		/* NUL bytes, which no line holds: a hole's, perhaps. */
		if ((pos = lseek(fd, 0, SEEK_CUR)) < 0)
			return -1;
		pos -= got;
		h = tmq_hole_first(fd, pos, (size_t)got);
		if (h == pos + got) {
			if (!(how & TMQ_DR_BINARY) && tmq_fs_is_remote(fd))
				return nul_reread(fd, how, dst, got, pos,
				    unsettled);
			if (lseek(fd, h, SEEK_SET) < 0)
				return -1;
			return got;	/* NUL bytes written as data */
		}
		/* What was read from the hole on is dropped: the next read
		 * starts there, and skips it. */
		*sparse = 1;
		if (lseek(fd, h, SEEK_SET) < 0)
			return -1;
		if (h > pos)
			return (ssize_t)(h - pos);
	}
}

/* (directread.h) */
int
tmq_dr_line_start(int fd, int how, off_t size, off_t *start)
{
	char buf[65536];
	off_t at = size;
	size_t k;
	ssize_t r;

	while (at > 0) {
		k = at < (off_t)sizeof buf ? (size_t)at : sizeof buf;
		r = tmq_dr_pread(fd, how, buf, k, at - (off_t)k);
		if (r < 0)
			return -1;
		if ((size_t)r != k) {
			errno = EIO;	/* (shorter than it said) */
			return -1;
		}
		for (; k > 0; k--, at--)
			if (buf[k - 1] == '\n') {
				*start = at;
				return 0;
			}
	}
	*start = 0;
	return 0;
}
