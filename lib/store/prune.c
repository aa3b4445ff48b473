/* prune.c: retention (see prune.h).  Readers that hold a pruned file open
 * read on to its end (the inode lives while open); readers that seek to a
 * pruned offset start at the first offset left and say so.
 *
 * An archive is a root of its own, DIR/NAME.twc and DIR/NAME/, made whole
 * at once as any topic (topicmake.c).  Its files are only ever added:
 *   - a file goes over only when the archive's definition is the topic's
 *     (key type, partitions, types: else its lines would read wrongly
 *     there), no file of the archive has its name (a topic of the name
 *     made again, another root's), and its offsets start at or after the
 *     end of what the archive has of its partition; every file is checked
 *     before any moves, so that a refusal moves nothing;
 *   - on one filesystem a file is renamed over (never over another);
 *     across filesystems it is copied to DIR/NAME/.tmq/archive.tmp, made
 *     durable, renamed into place (never over another), and only then
 *     removed from the topic.  A kill at any point leaves the file whole
 *     in the topic, in the archive or in both; a rerun finds the archived
 *     copy equal to the topic's file and removes the latter, or copies
 *     again.  A copy cut short by an older tmq, which wrote in place, is
 *     the start of the topic's file: it is completed the same way;
 *   - the blobs a file's lines refer to are written into the archive
 *     before the file goes (carry_blobs), so that nothing the archive
 *     holds refers to a blob it has not;
 *   - DIR/NAME/.tmq/archive.lock, held by the prune at work, makes
 *     prunes into one archive one at a time (two roots may share it), so
 *     that a temporary copy found there is a killed run's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/blob.h"
#include "store/directread.h"
#include "store/dirlist.h"
#include "store/dotdir.h"
#include "store/filelock.h"
#include "store/holes.h"
#include "store/linereader.h"
#include "codec/message.h"
#include "codec/keys.h"
#include "codec/names.h"
#include "store/partindex.h"
#include "store/partscan.h"
#include "store/modes.h"
#include "store/prune.h"
#include "store/regfile.h"
#include "store/replace.h"
#include "util/grow.h"
#include "util/idindex.h"

#define TMP_NAME TMQ_DOT_ARCHIVE_TMP
#define LOCK_NAME TMQ_DOT_ARCHIVE_LOCK

struct archive {
	const char *dir;	/* as given, for messages */
	int rootfd;		/* DIR */
	struct tmq_topic at;	/* DIR/NAME, opened; at.dirfd -1 when none */
	int dotfd;		/* DIR/NAME/.tmq */
	int lockfd;		/* DIR/NAME/.tmq/archive.lock */
	/* The blobs carried into it by this run (carry_blobs), each once:
	 * their hashes, found by their first 32 bits. */
	char (*carried)[TMQ_BLOB_HASH_HEX + 1];
	size_t ncarried, carried_cap;
	struct tmq_idindex carried_ix;
};

/* The Unix time at which the UTC day YYYYMMDD begins. */
static double
day_start(unsigned day)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = (int)(day / 10000) - 1900;
	tm.tm_mon = (int)(day / 100 % 100) - 1;
	tm.tm_mday = (int)(day % 100);
	return (double)timegm(&tm);
}

/* What the archive holds of a file's name: nothing, the same file, its
 * start (a copy cut short), or other messages. */
enum held { HELD_NONE, HELD_SAME, HELD_PREFIX, HELD_OTHER };

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void
archive_close(struct archive *a)
{
	if (a->lockfd >= 0)
		close(a->lockfd);	/* drops the lock */
	if (a->dotfd >= 0)
		close(a->dotfd);
	if (a->at.dirfd >= 0)
		tmq_topic_close(&a->at);
	if (a->rootfd >= 0)
		close(a->rootfd);
	a->lockfd = a->dotfd = a->at.dirfd = a->rootfd = -1;
	free(a->carried);
	a->carried = NULL;
	a->ncarried = a->carried_cap = 0;
	tmq_idx_clear(&a->carried_ix);
}

/* The archive's definition is the topic's, or e says how it differs. */
static int
same_definition(const struct archive *a, const struct tmq_topic *t,
    struct tmq_error *e)
{
	const struct tmq_topic *x = &a->at;
	char k1[32], k2[32];
	unsigned i, n = x->ntypes > t->ntypes ? x->ntypes : t->ntypes;

	if (x->key_width != t->key_width)
		return tmq_fail(e, "%s: not pruned: the archive %s keys it by "
		    "%s, the topic by %s; nothing moved", t->name, a->dir,
		    tmq_keytype_name(x->key_width, k1, sizeof k1),
		    tmq_keytype_name(t->key_width, k2, sizeof k2));
	if (x->partitions != t->partitions)
		return tmq_fail(e, "%s: not pruned: the archive %s has %u "
		    "partitions of it, the topic %u; nothing moved", t->name,
		    a->dir, x->partitions, t->partitions);
	for (i = 0; i < n; i++) {
		const char *p = i < x->ntypes ? x->types[i] : NULL;
		const char *q = i < t->ntypes ? t->types[i] : NULL;

		if (p == NULL && q == NULL)
			continue;
		if (p != NULL && q != NULL && strcmp(p, q) == 0)
			continue;
		return tmq_fail(e, "%s: not pruned: the archive %s has %s%s%s "
		    "as type %u, the topic %s%s%s; nothing moved", t->name,
		    a->dir, p ? "'" : "", p ? p : "no type", p ? "'" : "", i,
		    q ? "'" : "", q ? q : "none", q ? "'" : "");
	}
	return 0;
}

/* Wait for the archive's lock; a filesystem without such locks (a local
 * one: nothing shares it with another machine) goes without. */
static int
archive_lock(struct archive *a, const struct tmq_topic *t, struct tmq_error *e)
{
	char shown[TMQ_NAME_MAX + 32];

	snprintf(shown, sizeof shown, "%s/" TMQ_DOT_DIR, t->name);
	a->dotfd = tmq_dot_open(a->at.dirfd, 1);
	if (a->dotfd < 0) {
		tmq_dot_fail(a->at.dirfd, shown, e);
		return tmq_fail_prefix(e, "%s", a->dir);
	}
	snprintf(shown, sizeof shown, "%s/" TMQ_DOT_DIR "/" LOCK_NAME, t->name);
	a->lockfd = tmq_open_regular_as(a->dotfd, LOCK_NAME, shown,
	    O_RDWR | O_CREAT, 0666, e);
	if (a->lockfd < 0)
		return tmq_fail_prefix(e, "%s", a->dir);
	tmq_mode_follow(a->dotfd, a->lockfd);
	if (tmq_file_lock(a->lockfd, F_WRLCK) < 0 && errno != ENOLCK &&
	    errno != EINVAL && errno != EOPNOTSUPP && errno != ENOSYS) {
		if (errno == EINTR)
			return tmq_fail(e, "%s: interrupted while waiting for "
			    "%s/%s", t->name, a->dir, shown);
		return tmq_fail_errno(e, "%s: %s/%s", t->name, a->dir, shown);
	}
	/* Under the lock, a temporary copy is a killed run's. */
	if (unlinkat(a->dotfd, TMP_NAME, 0) < 0 && errno != ENOENT)
		return tmq_fail_errno(e, "%s: %s/%s/" TMQ_DOT_DIR "/" TMP_NAME,
		    t->name, a->dir, t->name);
	return 0;
}

/* Open (or, unless dry, make) the archive DIR for topic t.  In a dry run
 * an archive that is not there yet is no error: a->at.dirfd stays -1. */
static int
archive_open(const char *dir, const struct tmq_topic *t, int dry,
    struct archive *a, struct tmq_error *e)
{
	char def[TMQ_NAME_MAX + 8];
	struct stat top, st, dst;
	struct tmq_error oe;
	int has_def, has_dir;

	memset(a, 0, sizeof *a);
	a->dir = dir;
	a->rootfd = a->at.dirfd = a->dotfd = a->lockfd = -1;
	if (!dry && mkdir(dir, 0777) < 0 && errno != EEXIST)
		return tmq_fail_errno(e, "%s", dir);
	a->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->rootfd < 0) {
		if (dry && errno == ENOENT)
			return 0;
		return tmq_fail_errno(e, "%s", dir);
	}
	if (fstat(t->dirfd, &top) < 0)
		return tmq_fail_errno(e, "%s", t->name);
	/* The topic's own directory would get a topic inside it. */
	if (fstat(a->rootfd, &st) == 0 && same_file(&st, &top))
		return tmq_fail(e, "%s: the archive cannot be the topic's "
		    "directory", dir);
	if (tmq_topic_open(a->rootfd, t->name, &a->at, &oe) < 0) {
		a->at.dirfd = -1;
		snprintf(def, sizeof def, "%s.twc", t->name);
		has_def = fstatat(a->rootfd, def, &st, AT_SYMLINK_NOFOLLOW) == 0;
		has_dir = fstatat(a->rootfd, t->name, &dst,
		    AT_SYMLINK_NOFOLLOW) == 0;
		if (has_def && has_dir) {
			*e = oe;	/* there, but it does not open */
			return tmq_fail_prefix(e, "%s", dir);
		}
		if (has_dir && !S_ISDIR(dst.st_mode))
			return tmq_fail(e, "%s: not pruned: %s/%s is not a "
			    "directory; nothing moved", t->name, dir, t->name);
		/* A directory without its definition: an older tmq's making
		 * of the archive, killed between the two, when it is empty;
		 * else nobody can say what reads its files. */
		if (has_dir && !dry && unlinkat(a->rootfd, t->name,
		    AT_REMOVEDIR) < 0)
			return tmq_fail(e, "%s: not pruned: %s/%s/ is there "
			    "without %s/%s, so nothing says how its files read; "
			    "nothing moved", t->name, dir, t->name, dir, def);
		if (dry)
			return 0;
		if (tmq_topic_create_bare(a->rootfd, t, e) < 0 ||
		    tmq_topic_open(a->rootfd, t->name, &a->at, e) < 0) {
			a->at.dirfd = -1;
			return tmq_fail_prefix(e, "%s", dir);
		}
	}
	/* The topic's own root: each file would be moved onto itself, and
	 * prune would say it pruned what is still there. */
	if (fstat(a->at.dirfd, &st) == 0 && same_file(&st, &top))
		return tmq_fail(e, "%s: the archive cannot be the topic's own "
		    "root", dir);
	if (same_definition(a, t, e) < 0)
		return -1;
	return dry ? 0 : archive_lock(a, t, e);
}

/* Compare the archive's file name with the topic's: HELD_SAME, HELD_PREFIX
 * (the archive's is the start of the topic's), HELD_OTHER, or -1 with
 * errno set. */
static int
compare(int tfd, int afd, const char *name)
{
	char x[65536], y[65536];
	struct stat ts, as;
	off_t at = 0;
	ssize_t r, s;
	int fx, fy, rc = -1;

	fx = tmq_open_regular(tfd, name, O_RDONLY, 0, NULL);
	if (fx < 0)
		return -1;
	fy = tmq_open_regular(afd, name, O_RDONLY, 0, NULL);
	if (fy < 0) {
		close(fx);
		return -1;
	}
	if (fstat(fx, &ts) < 0 || fstat(fy, &as) < 0)
		goto out;
	rc = HELD_SAME;
	if (same_file(&ts, &as))
		goto out;	/* a link, from a rerun of a killed one */
	if (as.st_size > ts.st_size) {
		rc = HELD_OTHER;
		goto out;
	}
	while (at < as.st_size) {
		size_t want = sizeof x;

		if ((off_t)want > as.st_size - at)
			want = (size_t)(as.st_size - at);
		r = pread(fx, x, want, at);
		s = pread(fy, y, want, at);
		if (r < 0 || s < 0) {
			rc = -1;
			goto out;
		}
		if (r != s || r == 0 || memcmp(x, y, (size_t)r) != 0) {
			rc = HELD_OTHER;
			goto out;
		}
		at += r;
	}
	rc = as.st_size == ts.st_size ? HELD_SAME : HELD_PREFIX;
out:
	if (rc < 0) {
		int saved = errno;

		close(fx);
		close(fy);
		errno = saved;
		return -1;
	}
	close(fx);
	close(fy);
	return rc;
}

/* May each of the n files in go go to the archive?  held[i] says what the
 * archive holds of each; nothing is changed.  ends[i] is where the topic's
 * next file of the partition starts: where go[i] ends.  A file the archive
 * does not hold must start where the archive's partition ends, or after
 * (files pruned without --archive leave a gap): before it, its offsets
 * would be the archive's twice.  That end costs one count of the lines of
 * the archive's last file of each partition. */
static int
check_all(struct archive *a, const struct tmq_topic *t,
    const struct tmq_pfile *const *go, const uint64_t *ends, size_t n,
    enum held *held, struct tmq_error *e)
{
	struct stat st;
	uint64_t end = 0;
	long part = -1;
	size_t i;
	int c, have_end = 0;

	for (i = 0; i < n; i++) {
		const struct tmq_pfile *pf = go[i];

		if ((long)pf->partition != part) {
			part = pf->partition;
			have_end = 0;
		}
		held[i] = HELD_NONE;
		if (fstatat(a->at.dirfd, pf->name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0) {
			c = S_ISREG(st.st_mode) ? compare(t->dirfd,
			    a->at.dirfd, pf->name) : HELD_OTHER;
			if (c < 0)
				return tmq_fail_errno(e, "%s: not pruned: %s/%s/%s",
				    t->name, a->dir, t->name, pf->name);
			if (c == HELD_OTHER)
				return tmq_fail(e, "%s: not pruned: the archive "
				    "%s has a %s of other messages (another "
				    "root's, or an earlier topic of the name's); "
				    "nothing moved", t->name, a->dir, pf->name);
			held[i] = (enum held)c;
			continue;
		}
		if (!have_end) {
			if (tmq_partition_end(&a->at, pf->partition, &end,
			    e) < 0)
				return tmq_fail_prefix(e, "%s: not pruned: %s",
				    t->name, a->dir);
			have_end = 1;
		}
		if (pf->first < end)
			return tmq_fail(e, "%s: not pruned: %s starts at offset "
			    "%llu, but the archive %s holds partition %u to "
			    "offset %llu (another root's, or an earlier topic of "
			    "the name's); nothing moved", t->name, pf->name,
			    (unsigned long long)pf->first, a->dir,
			    pf->partition, (unsigned long long)end);
		end = ends[i];
	}
	return 0;
}

/* Write all of buf, or say why not: -1 with errno, or with e set where the
 * filesystem took nothing and said no error. */
static int
write_all(int fd, const char *buf, size_t n, struct tmq_error *e)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			tmq_fail(e, "the filesystem took none of %zu bytes, "
			    "and said no error", n);
			return -2;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy the topic's file into the archive's temporary file, durable:
 * holes stay holes (holes.h), so a sparse file costs what its data costs
 * to copy, and its copy what its data takes.  0, -1 with errno, -2 with
 * e set. */
static int
copy_tmp(struct archive *a, const struct tmq_topic *t, const char *name,
    struct tmq_error *e)
{
	char buf[65536];
	struct tmq_holes hole;
	off_t size = 0;
	ssize_t r;
	int in, out, rc = 0, sparse = 0, saved;

	in = tmq_open_regular(t->dirfd, name, O_RDONLY, 0, NULL);
	if (in < 0)
		return -1;
	out = tmq_open_regular(a->dotfd, TMP_NAME, O_WRONLY | O_CREAT | O_EXCL,
	    0666, NULL);
	if (out < 0) {
		saved = errno;
		close(in);
		errno = saved;
		return -1;
	}
	tmq_mode_follow(a->at.dirfd, out);
	while (rc == 0) {
		r = tmq_read_data(in, 0, &sparse, buf, sizeof buf, &hole, NULL);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 0 && hole.bytes == 0)
			break;
		if (r == 0) {
			size += (off_t)hole.bytes;
			if (lseek(out, size, SEEK_SET) < 0)
				rc = -1;
			continue;
		}
		rc = write_all(out, buf, (size_t)r, e);
		size += r;
	}
	if (rc == 0 && (ftruncate(out, size) < 0 || fsync(out) < 0))
		rc = -1;
	saved = errno;
	close(in);
	if (close(out) < 0 && rc == 0) {
		rc = -1;
		saved = errno;
	}
	if (rc < 0)
		unlinkat(a->dotfd, TMP_NAME, 0);
	errno = saved;
	return rc;
}

/* Whether the blob of hash h was carried into the archive by this run
 * already: 1; else 0, and it is taken as carried from now on (a second
 * hash of the same first 32 bits is carried each time, not skipped). */
static int
carried_before(struct archive *a, const char *h)
{
	char first[9];
	uint32_t key;
	long was;
	int rc;

	memcpy(first, h, 8);
	first[8] = '\0';
	key = (uint32_t)strtoul(first, NULL, 16);

	if (tmq_grow(&a->carried, &a->carried_cap, a->ncarried + 1,
	    sizeof *a->carried) < 0)
		return 0;
	rc = tmq_idx_add(&a->carried_ix, key, (uint32_t)a->ncarried, &was);
	if (rc == 1)
		return strcmp(a->carried[was], h) == 0;
	if (rc == 0)
		memcpy(a->carried[a->ncarried++], h, sizeof *a->carried);
	return 0;
}

/* Carry into the archive the blobs (blob.h) that pf's lines, up to end,
 * refer to, before pf goes there: its readers need them.  Read as a reader
 * reads the file, each line decoded: what archiving the file costs.  A
 * blob the topic has lost, or that is damaged, is not carried (its line is
 * as corrupt there as here). */
static int
carry_blobs(struct archive *a, const struct tmq_topic *t,
    const struct tmq_pfile *pf, uint64_t end, struct tmq_error *e)
{
	struct tmq_linereader lr;
	struct tmq_codec c;
	struct tmq_error le;
	struct tmq_line l;
	struct tmq_msg m;
	unsigned char *buf = NULL;
	size_t cap = 0;
	int got, rc = 0;

	if (tmq_topic_type_index(t, TMQ_BLOB_TYPE) < 0)
		return 0;	/* a topic without blobs */
	if (tmq_codec_init(&c, e) < 0)
		return -1;
	if (tmq_lr_open(&lr, t, pf->partition, t->key_width, e) < 0) {
		tmq_codec_free(&c);
		return -1;
	}
	if (tmq_lr_seek(&lr, pf->first, NULL, e) < 0)
		rc = -1;
	while (rc == 0 && (got = tmq_lr_next(&lr, &l, e)) != 0) {
		struct tmq_blobref br;
		struct tmq_payload p;

		if (got < 0) {
			rc = -1;
			break;
		}
		if (l.offset >= end)
			break;
		if (l.problem != NULL || tmq_line_decode(&c, t->key_width,
		    t->ntypes, l.p, l.n, &m, &le) < 0)
			continue;
		p = m.payload;
		if (!tmq_blob_is_ref(t, &p) ||
		    tmq_blob_ref_parse(p.data, p.len, &br, &le) < 0 ||
		    carried_before(a, br.hash) ||
		    tmq_blob_resolve(t, &p, &buf, &cap, &le) != 1)
			continue;
		if (tmq_blob_write(&a->at, &br, p.data, e) < 0)
			rc = -1;
	}
	if (rc < 0)
		tmq_fail_prefix(e, "%s: cannot archive %s", t->name, pf->name);
	free(buf);
	tmq_lr_close(&lr);
	tmq_codec_free(&c);
	return rc;
}

/* Move one file into the archive (see the top of this file). */
static int
archive_one(struct archive *a, const struct tmq_topic *t,
    const struct tmq_pfile *pf, uint64_t end, enum held held,
    struct tmq_error *e)
{
	int rc = 0, saved;

	if (carry_blobs(a, t, pf, end, e) < 0)
		return -1;
	if (held == HELD_NONE &&
	    tmq_rename_noreplace(t->dirfd, pf->name, a->at.dirfd, pf->name,
	    0) == 0) {
		fsync(a->at.dirfd);
		fsync(t->dirfd);
		return 0;
	}
	if (held == HELD_NONE && errno != EXDEV)
		return tmq_fail_errno(e, "%s: cannot archive %s", t->name,
		    pf->name);
	if (held != HELD_SAME) {
		rc = copy_tmp(a, t, pf->name, e);
		/* Over the archive's file only where it is the start of this
		 * one, a copy cut short: then nothing it held is lost. */
		if (rc == 0 && (held == HELD_PREFIX ?
		    renameat(a->dotfd, TMP_NAME, a->at.dirfd, pf->name) :
		    tmq_rename_noreplace(a->dotfd, TMP_NAME, a->at.dirfd,
		    pf->name, 0)) < 0) {
			saved = errno;
			unlinkat(a->dotfd, TMP_NAME, 0);
			errno = saved;
			rc = -1;
		}
		if (rc == -2)
			return tmq_fail_prefix(e, "%s: cannot archive %s",
			    t->name, pf->name);
		if (rc < 0)
			return tmq_fail_errno(e, "%s: cannot archive %s",
			    t->name, pf->name);
		if (fsync(a->at.dirfd) < 0)
			return tmq_fail_errno(e, "%s: cannot archive %s: %s",
			    t->name, pf->name, a->dir);
	}
	/* The archive has it, whole and on disk: now it may go. */
	if (unlinkat(t->dirfd, pf->name, 0) < 0 && errno != ENOENT)
		return tmq_fail_errno(e, "%s: archived %s, but cannot remove "
		    "it from the topic", t->name, pf->name);
	return 0;
}

int
tmq_prune(const struct tmq_topic *t, const struct tmq_prune_opts *o,
    struct tmq_error *e)
{
	struct tmq_pfile *files;
	const struct tmq_pfile **go = NULL;
	uint64_t *ends = NULL;
	enum held *held = NULL;
	unsigned char *gone = NULL;
	struct archive a;
	size_t n, i, ngo = 0;
	unsigned oldest = 0;
	int rc = 0;

	memset(&a, 0, sizeof a);
	a.rootfd = a.at.dirfd = a.dotfd = a.lockfd = -1;
	/* A group's old days hold its commits and members: pruned, the group
	 * would read its topic again from the start. */
	if (tmq_is_group_topic(t->name))
		return tmq_fail(e, "%s: a consumer group's log, not a topic",
		    t->name);
	if (tmq_pfiles_list(t->dirfd, -1, &files, &n, e) < 0)
		return tmq_fail_prefix(e, "%s", t->name);
	go = calloc(n + 1, sizeof *go);
	ends = calloc(n + 1, sizeof *ends);
	held = calloc(n + 1, sizeof *held);
	gone = calloc(n + 1, 1);
	if (go == NULL || ends == NULL || held == NULL || gone == NULL) {
		rc = tmq_fail(e, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		/* The list is sorted by partition then FIRST: the newest
		 * file of a partition is the last before the next one. */
		if (i + 1 == n || files[i + 1].partition != files[i].partition)
			continue;
		if (files[i].day >= o->before_day)
			continue;
		ends[ngo] = files[i + 1].first;
		go[ngo++] = &files[i];
	}
	if (o->archive != NULL) {
		if (archive_open(o->archive, t, o->dry_run, &a, e) < 0 ||
		    (a.at.dirfd >= 0 &&
		    check_all(&a, t, go, ends, ngo, held, e) < 0)) {
			rc = -1;
			goto out;
		}
	}
	/* (keep is asked file by file, each told before the next is asked:
	 * the archive's checks took in the files it keeps too.) */
	for (i = 0; i < ngo; i++) {
		if (o->keep != NULL && o->keep(o->arg, go[i], ends[i]))
			continue;
		if (!o->dry_run) {
			if (o->archive != NULL) {
				if (archive_one(&a, t, go[i], ends[i], held[i],
				    e) < 0) {
					rc = -1;
					break;
				}
			} else if (unlinkat(t->dirfd, go[i]->name, 0) < 0 &&
			    errno != ENOENT) {
				rc = tmq_fail_errno(e, "%s: cannot remove %s",
				    t->name, go[i]->name);
				break;
			}
		}
		gone[go[i] - files] = !o->dry_run;
		if (o->each != NULL)
			o->each(o->arg, go[i]);
	}
	/* The blobs no line left can refer to: those last written well
	 * before the oldest day of the files left (an archive has those its
	 * files refer to: carry_blobs). */
	for (i = 0; i < n; i++)
		if (!gone[i] && (oldest == 0 || files[i].day < oldest))
			oldest = files[i].day;
	if (rc == 0 && !o->dry_run && oldest != 0 &&
	    tmq_blob_sweep(t, day_start(oldest) - TMQ_BLOB_MARGIN, e) < 0)
		rc = -1;
	/* The indexes of the files gone (partindex.h), and of those a
	 * killed run removed: no index is left for a file that is not. */
	if (!o->dry_run && tmq_pidx_sweep(t->dirfd) < 0 && rc == 0)
		rc = tmq_fail_errno(e, "%s: cannot remove the indexes of the "
		    "files pruned", t->name);
out:
	archive_close(&a);
	free(go);
	free(ends);
	free(held);
	free(gone);
	free(files);
	return rc;
}
