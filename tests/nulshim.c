/* nulshim.c: for the bats tests (t0745), an LD_PRELOAD library that makes
 * a network filesystem's client return NUL bytes where its file holds
 * lines, once, as CephFS's ceph-fuse was seen to (tmq(7), Shared file
 * systems): the file's size covers the bytes, SEEK_HOLE calls them data,
 * and a later read of them returns the lines.
 *
 * NULSHIM_FILE=S: the first read (read, pread, pread64) of a partition
 * file (a name ending in .tmf) whose path holds S, that reaches the file's
 * end and returns at least three newlines, has what lies between its first
 * newline and the start of its last line replaced by NUL bytes (newlines
 * included: the lines there run into one); every other read is left
 * alone.  Once a
 * process.  NULSHIM_FROM=B: only from the first newline at or after byte
 * B of the file on, in a read that returns bytes past B (data appended
 * after B).  NULSHIM_MARK=PATH: that file is made when it happens, for the
 * test to know that it did, holding the first byte made NUL and the one
 * after the last.  NULSHIM_HOLD_MS=T: those bytes stay NUL in every read
 * of that file for T ms after the first (a writer's client that flushes
 * them late), each read after that one made so being counted in
 * NULSHIM_MARK's file as a line "again".  NULSHIM_FUSE=1: every statfs and fstatfs
 * says FUSE (FUSE_SUPER_MAGIC), so that tmq takes the root for a shared
 * filesystem's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546

ssize_t read(int fd, void *buf, size_t n);
ssize_t pread(int fd, void *buf, size_t n, off_t pos);
ssize_t pread64(int fd, void *buf, size_t n, off64_t pos);
int fstatfs(int fd, struct statfs *sf);
int fstatfs64(int fd, struct statfs64 *sf);
int statfs(const char *path, struct statfs *sf);
int statfs64(const char *path, struct statfs64 *sf);

static int fired;
/* What the first spoiling made NUL (NULSHIM_HOLD_MS): the file, the
 * range of its bytes, and when (ms of CLOCK_MONOTONIC). */
static dev_t held_dev;
static ino_t held_ino;
static long long held_from, held_to, held_at;

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A read of got bytes into buf, ending at byte end of fd's file, while
 * NULSHIM_HOLD_MS holds the range spoiled first. */
static void
hold(int fd, char *buf, ssize_t got, off_t end)
{
	const char *v = getenv("NULSHIM_HOLD_MS"), *mark;
	long long at = (long long)end - got, a, b;
	struct stat st;

	if (v == NULL || !__atomic_load_n(&fired, __ATOMIC_SEQ_CST) ||
	    now_ms() - held_at >= atoll(v) || fstat(fd, &st) < 0 ||
	    st.st_dev != held_dev || st.st_ino != held_ino)
		return;
	a = at > held_from ? at : held_from;
	b = (long long)end < held_to ? (long long)end : held_to;
	if (a >= b)
		return;
	memset(buf + (a - at), 0, (size_t)(b - a));
	if ((mark = getenv("NULSHIM_MARK")) != NULL) {
		int m = open(mark, O_WRONLY | O_APPEND | O_CLOEXEC);

		if (m >= 0) {
			dprintf(m, "again\n");
			close(m);
		}
	}
}

static void *
next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL) {
		fprintf(stderr, "nulshim: no %s\n", name);
		abort();
	}
	return f;
}

static int
fuse(void)
{
	const char *v = getenv("NULSHIM_FUSE");

	return v != NULL && strcmp(v, "1") == 0;
}

/* fd's read of got bytes into buf ended at byte end of its file: the
 * one to spoil? */
static void
spoil1(int fd, char *buf, ssize_t got, off_t end)
{
	const char *want = getenv("NULSHIM_FILE"), *mark, *from;
	char link[64], path[4096];
	struct stat st;
	ssize_t k;
	char *nl, *last;
	size_t len;

	if (want == NULL || got <= 0)
		return;
	if (__atomic_load_n(&fired, __ATOMIC_SEQ_CST)) {
		hold(fd, buf, got, end);
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || end < st.st_size)
		return;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((k = readlink(link, path, sizeof path - 1)) <= 0)
		return;
	path[k] = '\0';
	len = (size_t)k;
	if (len < 4 || strcmp(path + len - 4, ".tmf") != 0 ||
	    strstr(path, want) == NULL)
		return;
	if ((from = getenv("NULSHIM_FROM")) != NULL) {
		long long b = atoll(from), at = (long long)end - got;

		if (b >= (long long)end)
			return;
		if (b > at) {
			buf += b - at;
			got -= (ssize_t)(b - at);
		}
	}
	if ((nl = memchr(buf, '\n', (size_t)got)) == NULL ||
	    (last = memrchr(buf, '\n', (size_t)got)) == nl ||
	    (last = memrchr(nl + 1, '\n', (size_t)(last - nl - 1))) == NULL)
		return;
	if (__atomic_exchange_n(&fired, 1, __ATOMIC_SEQ_CST))
		return;
	memset(nl + 1, 0, (size_t)(last - nl));
	held_dev = st.st_dev;
	held_ino = st.st_ino;
	held_from = (long long)(end - got + (nl + 1 - buf));
	held_to = (long long)(end - got + (last + 1 - buf));
	held_at = now_ms();
	if ((mark = getenv("NULSHIM_MARK")) != NULL) {
		int m = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (m >= 0) {
			dprintf(m, "%lld %lld\n", (long long)(end - got +
			    (nl + 1 - buf)), (long long)(end - got +
			    (last + 1 - buf)));
			close(m);
		}
	}
}

/* (errno as the read left it) */
static void
spoil(int fd, char *buf, ssize_t got, off_t end)
{
	int saved = errno;

	spoil1(fd, buf, got, end);
	errno = saved;
}

ssize_t
read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	ssize_t got;

	if (real == NULL)
		real = (ssize_t (*)(int, void *, size_t))next("read");
	got = real(fd, buf, n);
	if (got > 0 && getenv("NULSHIM_FILE") != NULL) {
		int saved = errno;
		off_t end = lseek(fd, 0, SEEK_CUR);

		errno = saved;
		spoil(fd, buf, got, end);
	}
	return got;
}

ssize_t
pread(int fd, void *buf, size_t n, off_t pos)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	ssize_t got;

	if (real == NULL)
		real = (ssize_t (*)(int, void *, size_t, off_t))next("pread");
	got = real(fd, buf, n, pos);
	if (got > 0)
		spoil(fd, buf, got, pos + got);
	return got;
}

ssize_t
pread64(int fd, void *buf, size_t n, off64_t pos)
{
	static ssize_t (*real)(int, void *, size_t, off64_t);
	ssize_t got;

	if (real == NULL)
		real = (ssize_t (*)(int, void *, size_t, off64_t))next("pread64");
	got = real(fd, buf, n, pos);
	if (got > 0)
		spoil(fd, buf, got, (off_t)(pos + got));
	return got;
}

int
fstatfs(int fd, struct statfs *sf)
{
	static int (*real)(int, struct statfs *);
	int rc;

	if (real == NULL)
		real = (int (*)(int, struct statfs *))next("fstatfs");
	if ((rc = real(fd, sf)) == 0 && fuse())
		sf->f_type = FUSE_SUPER_MAGIC;
	return rc;
}

int
fstatfs64(int fd, struct statfs64 *sf)
{
	static int (*real)(int, struct statfs64 *);
	int rc;

	if (real == NULL)
		real = (int (*)(int, struct statfs64 *))next("fstatfs64");
	if ((rc = real(fd, sf)) == 0 && fuse())
		sf->f_type = FUSE_SUPER_MAGIC;
	return rc;
}

int
statfs(const char *path, struct statfs *sf)
{
	static int (*real)(const char *, struct statfs *);
	int rc;

	if (real == NULL)
		real = (int (*)(const char *, struct statfs *))next("statfs");
	if ((rc = real(path, sf)) == 0 && fuse())
		sf->f_type = FUSE_SUPER_MAGIC;
	return rc;
}

int
statfs64(const char *path, struct statfs64 *sf)
{
	static int (*real)(const char *, struct statfs64 *);
	int rc;

	if (real == NULL)
		real = (int (*)(const char *, struct statfs64 *))next("statfs64");
	if ((rc = real(path, sf)) == 0 && fuse())
		sf->f_type = FUSE_SUPER_MAGIC;
	return rc;
}
