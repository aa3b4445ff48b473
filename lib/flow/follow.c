/* follow.c: following a growing file by name, and keeping how far it was
 * taken (see follow.h).
 *
 * The state file is .tmq/follow.HASH in the topic's directory, HASH the
 * XXH3 of the followed file's absolute path, in hexadecimal:
 *
 *	tmq-put --follow 1
 *	file ABSOLUTE-PATH
 *	dev DEVICE
 *	ino INODE
 *	offset BYTES
 *	check XXH3
 *
 * XXH3 is the hash, in hexadecimal, of the (at most 4096) bytes before
 * the offset: an inode number is reused once its file is removed, and a
 * file found by it (the name's, or a rotated one in the directory) is
 * taken only when those bytes are still what was read.
 * Anyone who may write the root may write it too.  So it is believed only
 * when this user wrote it and no one else may write it (else said, and
 * the file read from its start, as with none); it is read as strictly as
 * a message (each line exactly so, the path ours), and one that is not is
 * refused, naming it, rather than guessed at: a wrong offset would lose or
 * repeat lines; and it never picks a file: the path given, and that path
 * with ".1" (a rotated file), are the only files opened, each checked
 * against it.  Beside it, follow.HASH.lock is locked by the one follower
 * of the file into the topic (pidlock.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "store/dirlist.h"
#include "store/dotdir.h"
#include "flow/follow.h"
#include "util/notice.h"
#include "store/pidlock.h"
#include "store/regfile.h"
#include "store/replace.h"
#include "store/smallfile.h"

#define STATE_DIR TMQ_DOT_DIR
#define STATE_MAGIC "tmq-put --follow 1\n"
#define STATE_MAX (PATH_MAX + 200)
#define CHUNK 65536
#define CHECK_BYTES 4096
/* A state's temporary is made PEND_WORK, and made PEND_DONE once the lines
 * it counts are written: the one its rename failed is the truth then. */
#define PEND_WORK 0600
#define PEND_DONE 0644

/* The hash of the bytes of fd before off: 0 and *h set, -1 when they
 * cannot all be read (the file is shorter). */
static int
check_hash(int fd, uint64_t off, uint64_t *h)
{
	char b[CHECK_BYTES];
	size_t k = off < CHECK_BYTES ? (size_t)off : CHECK_BYTES, got = 0;

	while (got < k) {
		ssize_t r = pread(fd, b + got, k - got, (off_t)(off - k + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*h = (uint64_t)XXH3_64bits(b, k);
	return 0;
}

/* fd holds what was read up to off, by its check. */
static int
same_file(int fd, uint64_t off, uint64_t want)
{
	uint64_t h;

	return check_hash(fd, off, &h) == 0 && h == want;
}

static void
say(struct tmq_follow *f, const char *what)
{
	char msg[PATH_MAX + 200];

	if (f->notice == NULL || tmq_notice_quiet())
		return;
	snprintf(msg, sizeof msg, "%s: %s", f->path, what);
	f->notice(f->arg, msg);
}

/* Parse a state file; 0 when it is ours and names abspath. */
static int
parse_state(const char *s, const char *abspath, uint64_t *dev, uint64_t *ino,
    uint64_t *off, uint64_t *check)
{
	size_t plen = strlen(abspath);
	const char *p = s;
	char *end;
	const char *names[] = { "dev ", "ino ", "offset " };
	uint64_t *v[] = { dev, ino, off };
	int i;

	if (strncmp(p, STATE_MAGIC, strlen(STATE_MAGIC)) != 0)
		return -1;
	p += strlen(STATE_MAGIC);
	if (strncmp(p, "file ", 5) != 0 || strncmp(p + 5, abspath, plen) != 0 ||
	    p[5 + plen] != '\n')
		return -1;
	p += 5 + plen + 1;
	for (i = 0; i < 3; i++) {
		size_t nl = strlen(names[i]);

		if (strncmp(p, names[i], nl) != 0)
			return -1;
		p += nl;
		if (*p < '0' || *p > '9' || (*p == '0' && p[1] != '\n'))
			return -1;
		errno = 0;
		*v[i] = strtoull(p, &end, 10);
		if (errno != 0 || *end != '\n')
			return -1;
		p = end + 1;
	}
	if (strncmp(p, "check ", 6) != 0 || strspn(p + 6,
	    "0123456789abcdef") != 16 || p[22] != '\n' || p[23] != '\0')
		return -1;
	*check = strtoull(p + 6, NULL, 16);
	return 0;
}

/* Open the file the name stands for now: 1 opened, 0 not there. */
static int
open_current(struct tmq_follow *f, struct tmq_error *e)
{
	struct stat st;
	int fd;

	fd = openat(f->dirfd, f->base, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return tmq_fail_errno(e, "%s", f->path);
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return tmq_fail_errno(e, "%s", f->path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return tmq_fail_code(e, TMQ_ERR_FILEKIND, "%s: not a regular "
		    "file", f->path);
	}
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->old = 0;
	f->off = 0;
	f->len = f->scan = 0;
	f->skipping = 0;
	return 1;
}

/* The file of dev/ino rotated while nobody followed it: looked for under
 * one name only, the path's own with ".1" added (logrotate's), and taken
 * only when it is that file and holds what was read (by its check).  The
 * state says which file it was, never which file to read: a state a
 * co-user forged could otherwise name any file of ours in the directory.
 * Opened into f, 1; 0 when it is not there. */
static int
find_rotated(struct tmq_follow *f, uint64_t dev, uint64_t ino, uint64_t off,
    uint64_t check, struct tmq_error *e)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int fd, n;

	n = snprintf(name, sizeof name, "%s.1", f->base);
	if (n < 0 || (size_t)n >= sizeof name)
		return 0;
	fd = openat(f->dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    O_NOFOLLOW);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino &&
	    same_file(fd, off, check)) {
		f->fd = fd;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->old = 1;
		return 1;
	}
	close(fd);
	return 0;
}

static int
watch_again(struct tmq_follow *f, struct tmq_error *e)
{
	tmq_watch_clear(&f->w);
	if (tmq_watch_add(&f->w, f->dirfd, e) < 0)
		return -1;
	if (f->fd >= 0 && tmq_watch_add(&f->w, f->fd, e) < 0)
		return -1;
	return 0;
}

/* The lock that keeps a second follower of this file into this topic
 * out (pidlock.h): 0 held; -1 (e saying who holds it) otherwise. */
static int
hold_lock(struct tmq_follow *f, const struct tmq_topic *t,
    struct tmq_error *e)
{
	char shown[sizeof f->shown + 8], holder[320];
	int rc;

	snprintf(shown, sizeof shown, "%s" TMQ_DOT_LOCK, f->shown);
	rc = tmq_pidlock_take(f->statedir, f->lockname, shown, &f->lockfd,
	    holder, sizeof holder, e);
	if (rc <= 0)
		return rc;
	return tmq_fail(e, "%s: followed into %s already, by %s (which holds "
	    "%s)", f->path, t->name, holder[0] != '\0' ? holder :
	    "another process", shown);
}

/* Why a state (or a temporary of one) whose fstat is st is not believed:
 * only one this user wrote, that no one else may write, is; NULL then. */
static const char *
distrusted(const struct stat *st)
{
	if (st->st_uid != geteuid())
		return "not written by this user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by other users";
	return NULL;
}

/* A temporary of the state (its name, in f->statedir) that a run filled
 * before its lines, marked confirmed (mode PEND_DONE) once they were
 * written, and could not rename into place: the truth about how far the
 * file was taken, put in place now.  0 (whether there was one or not);
 * -1 when there was and it cannot be put in place. */
static int
adopt_pending(struct tmq_follow *f, struct tmq_error *e)
{
	char state[STATE_MAX + 1], found[TMQ_TMP_NAME_MAX];
	uint64_t dev, ino, off, check;
	struct tmq_error ignored;
	struct dirent *de;
	struct stat st;
	size_t n;
	DIR *d;
	int fd = dup(f->statedir), got = 0;

	found[0] = '\0';
	if (fd < 0)
		return 0;
	if (lseek(fd, 0, SEEK_SET) < 0 || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (found[0] == '\0' && (got = tmq_dir_next(d, &de)) > 0) {
		if (!tmq_tmp_is(de->d_name, f->statename) ||
		    strlen(de->d_name) >= sizeof found)
			continue;
		if (tmq_small_read_st(f->statedir, de->d_name, de->d_name,
		    state, STATE_MAX, &n, &st, &ignored) != 1)
			continue;
		if (distrusted(&st) != NULL || (st.st_mode & 07777) != PEND_DONE ||
		    memchr(state, '\0', n) != NULL ||
		    parse_state(state, f->abspath, &dev, &ino, &off, &check) < 0)
			continue;
		snprintf(found, sizeof found, "%s", de->d_name);
	}
	/* A listing cut short cannot say that no state was kept. */
	if (got < 0) {
		tmq_fail_errno(e, "%s: cannot list the directory of its state",
		    f->shown);
		closedir(d);
		(void)lseek(f->statedir, 0, SEEK_SET);
		return -1;
	}
	closedir(d);
	(void)lseek(f->statedir, 0, SEEK_SET);
	if (found[0] == '\0')
		return 0;
	if (renameat(f->statedir, found, f->statedir, f->statename) < 0)
		return tmq_fail_errno(e, "%s: what the last run kept in %s "
		    "cannot be put in place", f->shown, found);
	return 0;
}

/* Read the state: 1 and its values set, 0 when there is none (or one not
 * believed, said), -1. */
static int
load_state(struct tmq_follow *f, const char *path, uint64_t *dev,
    uint64_t *ino, uint64_t *off, uint64_t *check, struct tmq_error *e)
{
	char state[STATE_MAX + 1], msg[sizeof f->shown + PATH_MAX + 100];
	const char *why;
	struct stat st;
	size_t n;
	int rc;

	rc = tmq_small_read_st(f->statedir, f->statename, f->shown, state,
	    STATE_MAX, &n, &st, e);
	if (rc <= 0)
		return rc;
	if ((why = distrusted(&st)) != NULL) {
		/* Anyone could have written it: as if there were none. */
		if (f->notice != NULL && !tmq_notice_quiet()) {
			snprintf(msg, sizeof msg, "%s: %s: not believed, %s is "
			    "read from its start", f->shown, why, path);
			f->notice(f->arg, msg);
		}
		return 0;
	}
	if (memchr(state, '\0', n) != NULL ||
	    parse_state(state, f->abspath, dev, ino, off, check) < 0)
		return tmq_fail(e, "%s: not what tmq-put --follow writes "
		    "(remove it to read %s from its start)", f->shown, path);
	f->saved = 1;
	f->sdev = (dev_t)*dev;
	f->sino = (ino_t)*ino;
	f->soff = *off;
	return 1;
}

int
tmq_follow_open(struct tmq_follow *f, const struct tmq_topic *t,
    const char *path, int delim, size_t max,
    void (*notice)(void *, const char *), void *arg, struct tmq_error *e)
{
	char *dcopy = NULL, *bcopy = NULL, real[PATH_MAX];
	uint64_t dev = 0, ino = 0, off = 0, check = 0;
	size_t n;
	int rc;

	memset(f, 0, sizeof *f);
	f->fd = f->dirfd = f->statedir = f->lockfd = f->pendfd = -1;
	f->w.ifd = -1;
	f->delim = delim;
	f->max = max;
	f->notice = notice;
	f->arg = arg;
	if ((f->path = strdup(path)) == NULL || (dcopy = strdup(path)) == NULL ||
	    (bcopy = strdup(path)) == NULL) {
		rc = tmq_fail(e, "out of memory");
		goto fail;
	}
	f->base = strdup(basename(bcopy));
	if (f->base == NULL) {
		rc = tmq_fail(e, "out of memory");
		goto fail;
	}
	if (strcmp(f->base, "/") == 0 || strcmp(f->base, ".") == 0 ||
	    strcmp(f->base, "..") == 0) {
		rc = tmq_fail(e, "%s: not a file's name", path);
		goto fail;
	}
	if (realpath(dirname(dcopy), real) == NULL) {
		rc = tmq_fail_errno(e, "%s", path);
		goto fail;
	}
	f->dirfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0) {
		rc = tmq_fail_errno(e, "%s", path);
		goto fail;
	}
	n = strlen(real) + strlen(f->base) + 2;
	if (n > PATH_MAX || (f->abspath = malloc(n)) == NULL) {
		rc = tmq_fail(e, "%s: path too long", path);
		goto fail;
	}
	snprintf(f->abspath, n, "%s%s%s", real, strcmp(real, "/") ? "/" : "",
	    f->base);
	snprintf(f->statename, sizeof f->statename, TMQ_DOT_FOLLOW "%016" PRIx64,
	    (uint64_t)XXH3_64bits(f->abspath, strlen(f->abspath)));
	snprintf(f->lockname, sizeof f->lockname, "%s" TMQ_DOT_LOCK, f->statename);
	snprintf(f->shown, sizeof f->shown, "%s/%s/%s", t->name, STATE_DIR,
	    f->statename);
	f->statedir = tmq_dot_open(t->dirfd, 1);
	if (f->statedir < 0) {
		rc = tmq_fail_errno(e, "%s/%s", t->name, STATE_DIR);
		goto fail;
	}
	/* One follower of a file into a topic at a time. */
	if ((rc = hold_lock(f, t, e)) < 0)
		goto fail;
	/* The state a run could not rename into place, after writing its
	 * lines; then what a run killed before its rename left (replace.h). */
	if (adopt_pending(f, e) < 0) {
		rc = -1;
		goto fail;
	}
	tmq_tmp_sweep(f->statedir, f->statename);
	if ((rc = load_state(f, path, &dev, &ino, &off, &check, e)) < 0)
		goto fail;
	if ((rc = open_current(f, e)) < 0)
		goto fail;
	if (f->saved) {
		if (rc == 1 && (uint64_t)f->dev == dev &&
		    (uint64_t)f->ino == ino && same_file(f->fd, off, check))
			f->off = off;
		else {
			/* Rotated while not followed: the old file first,
			 * when it is still here, as PATH.1. */
			int cur = f->fd;

			f->fd = -1;
			if ((rc = find_rotated(f, dev, ino, off, check,
			    e)) < 0) {
				if (cur >= 0)
					close(cur);
				goto fail;
			}
			if (rc == 1) {
				if (cur >= 0)
					close(cur);
				f->off = off;
				say(f, "replaced since it was last followed: "
				    "the rest of the old file first");
			} else {
				char what[PATH_MAX + 100];

				if (cur >= 0) {
					struct stat st;

					f->fd = cur;
					if (fstat(cur, &st) == 0) {
						f->dev = st.st_dev;
						f->ino = st.st_ino;
					}
				}
				snprintf(what, sizeof what, "replaced since it "
				    "was last followed, and the old file is not "
				    "%s.1: reading the new one from its start",
				    f->path);
				say(f, what);
			}
		}
	}
	if (f->fd < 0) {
		say(f, "no such file: waiting for it");
		f->said_missing = 1;
	}
	free(dcopy);
	free(bcopy);
	if (tmq_watch_init(&f->w, e) < 0 || watch_again(f, e) < 0) {
		tmq_follow_close(f);
		return -1;
	}
	return 0;
fail:
	free(dcopy);
	free(bcopy);
	tmq_follow_close(f);
	return -1;
}

/* A whole record in buf from scan on: return it. */
static int
take(struct tmq_follow *f, const char **rec, size_t *n)
{
	char *d = f->len > f->scan ?
	    memchr(f->buf + f->scan, f->delim, f->len - f->scan) : NULL;
	size_t used;

	if (d == NULL) {
		f->scan = f->len;
		return 0;
	}
	*rec = f->buf;
	*n = (size_t)(d - f->buf);
	used = *n + 1;
	/* (The caller has *rec until the next call, which moves the rest
	 * down first.) */
	f->off += used;
	f->scan = used;		/* consumed: dropped at the next call */
	return 1;
}

/* Move what the last record left to the front. */
static void
compact(struct tmq_follow *f, size_t used)
{
	if (used == 0)
		return;
	memmove(f->buf, f->buf + used, f->len - used);
	f->len -= used;
	f->scan = 0;
}

int
tmq_follow_next(struct tmq_follow *f, const char **rec, size_t *n,
    struct tmq_error *e)
{
	struct stat st, now;
	ssize_t r;
	int rc;

	for (;;) {
		/* Drop the record returned last. */
		if (f->consumed > 0) {
			compact(f, f->consumed);
			f->consumed = 0;
		}
		if (f->fd < 0) {
			if ((rc = open_current(f, e)) < 0)
				return -1;
			if (rc == 0)
				return TMQ_FOLLOW_WAIT;
			if (f->said_missing)
				say(f, "appeared: following it");
			f->said_missing = 0;
			if (watch_again(f, e) < 0)
				return -1;
		}
		if (take(f, rec, n)) {
			f->consumed = f->scan;
			if (f->skipping) {
				f->skipping = 0;
				continue;
			}
			return TMQ_FOLLOW_RECORD;
		}
		if (f->len > f->max) {
			/* Over the limit: dropped as it comes, said once. */
			f->off += f->len;
			f->len = f->scan = 0;
			if (!f->skipping) {
				f->skipping = 1;
				return TMQ_FOLLOW_TOOLONG;
			}
		}
		if (f->cap - f->len < CHUNK) {
			char *nb = realloc(f->buf, f->len + CHUNK);

			if (nb == NULL)
				return tmq_fail(e, "out of memory");
			f->buf = nb;
			f->cap = f->len + CHUNK;
		}
		r = pread(f->fd, f->buf + f->len, CHUNK, (off_t)(f->off + f->len));
		if (r < 0 && errno == EINTR)
			return TMQ_FOLLOW_WAIT;
		if (r < 0)
			return tmq_fail_errno(e, "%s", f->path);
		if (r > 0) {
			f->len += (size_t)r;
			continue;
		}
		/* At its end: truncated, replaced, or only not grown yet. */
		if (fstat(f->fd, &st) < 0)
			return tmq_fail_errno(e, "%s", f->path);
		if ((uint64_t)st.st_size < f->off + f->len) {
			say(f, "file truncated: from its start");
			f->off = 0;
			f->len = f->scan = 0;
			f->skipping = 0;
			continue;
		}
		if (!f->old) {
			/* Removed and not made again: the old one may grow
			 * yet.  Another file under the name: the old one is
			 * read to its end once more, then left. */
			if (fstatat(f->dirfd, f->base, &now, 0) == 0 &&
			    (now.st_dev != f->dev || now.st_ino != f->ino)) {
				f->old = 1;
				continue;
			}
			return TMQ_FOLLOW_WAIT;
		}
		/* A rotated file read to its end: its last line is final,
		 * newline or not. */
		if (f->len > 0 && !f->skipping) {
			*rec = f->buf;
			*n = f->len;
			f->off += f->len;
			f->consumed = f->len;
			return TMQ_FOLLOW_RECORD;
		}
		close(f->fd);
		f->fd = -1;
		f->len = f->scan = 0;
		f->skipping = 0;
		if ((rc = open_current(f, e)) < 0)
			return -1;
		if (watch_again(f, e) < 0)
			return -1;
		if (rc == 0)
			return TMQ_FOLLOW_WAIT;
	}
}

int
tmq_follow_prepare(struct tmq_follow *f, struct tmq_error *e)
{
	char buf[STATE_MAX + 1];
	uint64_t h;
	size_t off = 0;
	int n, fd, err;

	if (f->pendfd >= 0 || f->fd < 0)
		return 0;
	if (f->saved && f->sdev == f->dev && f->sino == f->ino &&
	    f->soff == f->off)
		return 0;
	/* Shorter than what was read: truncated meanwhile, which the next
	 * read finds; the state saved then says where. */
	if (check_hash(f->fd, f->off, &h) < 0)
		return 0;
	n = snprintf(buf, sizeof buf, STATE_MAGIC "file %s\ndev %" PRIu64
	    "\nino %" PRIu64 "\noffset %" PRIu64 "\ncheck %016" PRIx64 "\n",
	    f->abspath, (uint64_t)f->dev, (uint64_t)f->ino, f->off, h);
	if (n < 0 || (size_t)n > STATE_MAX)
		return tmq_fail(e, "%s: path too long", f->path);
	fd = tmq_tmp_create_mode(f->statedir, f->statename, f->shown,
	    PEND_WORK, f->pendtmp, e);
	if (fd < 0)
		return -1;
	while (off < (size_t)n) {
		ssize_t w = write(fd, buf + off, (size_t)n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w == 0 ? EIO : errno;
			close(fd);
			unlinkat(f->statedir, f->pendtmp, 0);
			errno = err;
			return tmq_fail_errno(e, "%s", f->shown);
		}
		off += (size_t)w;
	}
	f->pendfd = fd;
	f->pdev = f->dev;
	f->pino = f->ino;
	f->poff = f->off;
	return 0;
}

void
tmq_follow_abandon(struct tmq_follow *f)
{
	if (f->pendfd < 0)
		return;
	close(f->pendfd);
	unlinkat(f->statedir, f->pendtmp, 0);
	f->pendfd = -1;
}

int
tmq_follow_save(struct tmq_follow *f, struct tmq_error *e)
{
	int fd = f->pendfd, err;

	if (fd < 0)
		return 0;
	f->pendfd = -1;
	/* Confirmed first (a change of its modes needs no room on the
	 * disk), then closed, then put in place. */
	if (fchmod(fd, PEND_DONE) < 0) {
		err = errno;
		close(fd);
		unlinkat(f->statedir, f->pendtmp, 0);
		errno = err;
		return tmq_fail_errno(e, "%s", f->shown);
	}
	if (close(fd) < 0) {
		err = errno;
		unlinkat(f->statedir, f->pendtmp, 0);
		errno = err;
		return tmq_fail_errno(e, "%s", f->shown);
	}
	if (renameat(f->statedir, f->pendtmp, f->statedir, f->statename) < 0) {
		/* Kept, confirmed: the next run puts it in place. */
		size_t len;

		tmq_fail_errno(e, "%s", f->shown);
		len = strlen(e->msg);
		snprintf(e->msg + len, sizeof e->msg - len, " (how far the "
		    "lines got is kept in %.*s%s, for the next run)",
		    (int)(strlen(f->shown) - strlen(f->statename)), f->shown,
		    f->pendtmp);
		return -1;
	}
	f->saved = 1;
	f->sdev = f->pdev;
	f->sino = f->pino;
	f->soff = f->poff;
	return 0;
}

int
tmq_follow_wait(struct tmq_follow *f, int timeout_ms, struct tmq_error *e)
{
	return tmq_watch_wait(&f->w, timeout_ms, e) < 0 ? -1 : 0;
}

void
tmq_follow_close(struct tmq_follow *f)
{
	tmq_follow_abandon(f);
	if (f->lockfd >= 0)
		tmq_pidlock_drop(f->statedir, f->lockname, f->lockfd);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	if (f->statedir >= 0)
		close(f->statedir);
	tmq_watch_close(&f->w);
	free(f->path);
	free(f->abspath);
	free(f->base);
	free(f->buf);
	memset(f, 0, sizeof *f);
	f->fd = f->dirfd = f->statedir = f->lockfd = f->pendfd = -1;
	f->w.ifd = -1;
}
