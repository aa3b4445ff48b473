/* liveness.c: member locks and what they say (see liveness.h).
 *
 * OFD locks, not classic fcntl locks: they belong to the open file, not
 * the process, so a probe in the same process still sees a member's lock
 * (tests and tools run several in one process), and closing some other
 * descriptor of the file does not drop it.
 *
 * The tags are public (in each JOINED) and .tmq is the group's to write,
 * so anyone may put something else under a member's name: every lock
 * file is opened non-blocking, never through a link, and only when it is
 * a regular file (regfile.h).  A FIFO, socket, device, directory or link
 * there is refused, and its member is one we cannot vouch for (unknown),
 * as when its file was removed: never dead, which would hand a living
 * member's partitions to the others at every probe, and never alive,
 * which would make every rebalance wait for a member that may be long
 * gone.  A reader that shows the member says so once (the member by id
 * and the file by name); the sweep leaves such a name alone.  Not every
 * lock is ours to hold: a .tmq that is not a directory leaves every member
 * unvouched, and a member that cannot make its own file goes unvouched.
 *
 * What a co-user cannot forge is what liveness rests on.  A member's file
 * is writable by its owner alone (LIVE_MODE), and only a write lock,
 * which needs the file open for writing, is a member's: a co-user can set
 * neither its time (the beat) nor take that lock once the member dies,
 * and a read lock of theirs (which anyone who may read the file can take)
 * holds no member alive.  A held lock on a file others may write (an
 * older tmq's, in a group-writable root) could be anyone's: its member
 * goes unvouched.  What a co-user can still do, .tmq being theirs to
 * write, is put a file of their own, locked and beating, in place of a
 * member's: a watch that saw the member's file sees that it is another
 * (its inode changed) and counts the member gone for good; a reader that
 * first looks after the swap cannot tell (tmq(7), Sharing a root). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "store/dirlist.h"
#include "store/dotdir.h"
#include "util/escape.h"
#include "util/grow.h"
#include "util/idindex.h"
#include "group/execreport.h"
#include "group/liveness.h"
#include "util/notice.h"
#include "store/modes.h"
#include "util/monoclock.h"
#include "store/regfile.h"
#include "store/replace.h"

/* A lock file's mode: only its owner may write it (see above). */
#define LIVE_MODE 0644
/* The length of a lock file's name before its tag. */
#define LIVE_LEN (sizeof TMQ_DOT_LIVE - 1)

static void
live_name(uint64_t tag, char *buf, size_t sz)
{
	snprintf(buf, sz, TMQ_DOT_LIVE "%016llx", (unsigned long long)tag);
}

static void
whole_file(struct flock *fl, short type)
{
	memset(fl, 0, sizeof *fl);
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
}

static int
same_file(int dfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 &&
	    fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The file is made and locked under a temporary name of its own, which no
 * probe or sweep of members reads and no other contender can take
 * (replace.h), then given its name (live.TAG) by a rename that never
 * replaces what is there: from the moment live.TAG names it, it is
 * locked.  Made under its own name and locked next, it read as a dead
 * member's in between, and with many members joining and sweeping at
 * once the sweeps removed it faster than it could be locked.  A
 * filesystem that can refuse neither way gets a plain rename (which a
 * co-user could only race by guessing a random 64-bit tag). */
int
tmq_live_hold(int logdirfd, uint64_t tag, double session, int *fd,
    struct tmq_error *e)
{
	struct flock fl;
	char name[64], tmp[TMQ_TMP_NAME_MAX], shown[80];
	int dfd, err;

	*fd = -1;
	live_name(tag, name, sizeof name);
	snprintf(shown, sizeof shown, TMQ_DOT_DIR "/%s", name);
	if ((dfd = tmq_dot_open(logdirfd, 1)) < 0)
		return tmq_dot_fail(logdirfd, TMQ_DOT_DIR, e);
	/* Readable by all who probe it, writable by its owner alone: in a
	 * shared root a co-user can then neither take its lock when it dies
	 * nor set its time (see above). */
	if ((*fd = tmq_tmp_create_mode(dfd, name, shown, LIVE_MODE, tmp,
	    e)) < 0) {
		close(dfd);
		return -1;
	}
	whole_file(&fl, F_WRLCK);
	if (fcntl(*fd, F_OFD_SETLK, &fl) < 0) {
		err = errno;
		unlinkat(dfd, tmp, 0);
		close(*fd);
		*fd = -1;
		close(dfd);
		/* No locks here (ENOLCK, EINVAL): an unlocked file would
		 * read as a dead member, so leave none. */
		if (err != EAGAIN && err != EACCES)
			return 0;
		/* Only a co-user who found it in .tmq can hold ours. */
		return tmq_fail(e, "%s: its temporary " TMQ_DOT_DIR "/%s was "
		    "locked by another process", shown, tmp);
	}
	if (session > 0) {
		char t[32];
		int len = snprintf(t, sizeof t, "%.3f\n", session);

		/* Best effort: a file without it takes the watcher's
		 * timeout. */
		if (pwrite(*fd, t, (size_t)len, 0) != len &&
		    ftruncate(*fd, 0) < 0) {
			/* nothing more to undo: the watcher's timeout holds */
		}
	}
	if (tmq_rename_noreplace(dfd, tmp, dfd, name, 1) < 0)
		err = errno;
	else if (same_file(dfd, name, *fd)) {
		close(dfd);
		return 0;
	} else
		err = ENOENT;
	unlinkat(dfd, tmp, 0);		/* (gone already, mostly) */
	close(*fd);
	*fd = -1;
	if (err == EEXIST) {
		/* Something is there under our name: say what. */
		int there = tmq_open_regular_as(dfd, name, shown, O_RDONLY, 0,
		    e);

		if (there >= 0) {
			close(there);
			tmq_fail(e, "%s: exists already", shown);
		}
		close(dfd);
		return -1;
	}
	close(dfd);
	/* Ours removed, or replaced, before or as soon as it got its name. */
	if (err == ENOENT)
		return tmq_fail(e, "%s: removed as soon as made", shown);
	errno = err;
	return tmq_fail_errno(e, "%s", shown);
}

void
tmq_live_release(int logdirfd, uint64_t tag, int fd)
{
	char name[64];
	int dfd;

	if (fd < 0)
		return;
	live_name(tag, name, sizeof name);
	if ((dfd = tmq_dot_open(logdirfd, 0)) >= 0) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
	close(fd);
}

/* What has been said, so that a reader that probes every half second
 * says each planted name once: the tags (a few: past them, no more is
 * said), and whether a .tmq that is not a directory was. */
#define SAID_MAX 16
static uint64_t said[SAID_MAX];
static unsigned nsaid;
static int said_dir;

static int
first_time(uint64_t tag)
{
	unsigned i;

	for (i = 0; i < nsaid; i++)
		if (said[i] == tag)
			return 0;
	if (nsaid == SAID_MAX)
		return 0;
	said[nsaid++] = tag;
	return 1;
}

/* Say, through the group's notice, that member id (all of them, when
 * all) goes unvouched for the reason in why (a file's name and what it
 * is). */
static void
say_unvouched(const struct tmq_live_where *w, uint32_t id, int all,
    const char *why)
{
	char msg[512], gname[128], who[48];

	if (w == NULL || w->notice == NULL || tmq_notice_quiet())
		return;
	if (all)
		snprintf(who, sizeof who, "no member can be vouched for");
	else
		snprintf(who, sizeof who, "member %lu cannot be vouched for",
		    (unsigned long)id);
	snprintf(msg, sizeof msg, "group %s: %s/%s: %s",
	    tmq_escape_name(w->group, gname, sizeof gname), w->logname, why,
	    who);
	w->notice(w->notice_arg, msg);
}

void
tmq_live_beat(int fd)
{
	if (fd >= 0)
		(void)futimens(fd, NULL);
}

void
tmq_live_watch_free(struct tmq_live_watch *w)
{
	free(w->v);
	tmq_idx_clear(&w->ix);
	w->v = NULL;
	w->n = w->cap = 0;
}

/* The timeout written in an open lock file: "SECONDS\n", within the
 * bounds, or 0 (none, or not one we take). */
static double
timeout_in(int fd)
{
	char buf[32], *end, *nl;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	double v;
	ssize_t i;

	/* The first line; a --exec member's report follows it. */
	if (n < 2 || (nl = memchr(buf, '\n', (size_t)n)) == NULL || nl == buf)
		return 0;
	*nl = '\0';
	n = nl - buf + 1;
	for (i = 0; i < n - 1; i++)
		if (!(buf[i] >= '0' && buf[i] <= '9') && buf[i] != '.')
			return 0;
	v = strtod(buf, &end);
	if (*end != '\0' || !(v >= TMQ_SESSION_MIN && v <= TMQ_SESSION_MAX))
		return 0;
	return v;
}

double
tmq_live_timeout_of(int logdirfd, uint64_t tag)
{
	char name[64];
	double v;
	int dfd, fd;

	if ((dfd = tmq_dot_open(logdirfd, 0)) < 0)
		return 0;
	live_name(tag, name, sizeof name);
	fd = tmq_open_regular(dfd, name, O_RDONLY, 0, NULL);
	close(dfd);
	if (fd < 0)
		return 0;
	v = timeout_in(fd);
	close(fd);
	return v;
}

/* Whether the held lock on fd (member id, tag; st its status) has been
 * silent for its holder's session timeout, as far as this watch has seen
 * (liveness.h), or is on another file than the one first seen for tag: a
 * member never replaces its own, so that one is someone else's, for good. */
static int
watch_says_stale(struct tmq_live_watch *w, const struct stat *st, int fd,
    uint64_t tag, uint32_t id)
{
	struct tmq_live_seen *s;
	double now = tmq_mono();
	long at;

	at = tmq_idx_find(&w->ix, id);
	if (at < 0) {
		if (tmq_grow(&w->v, &w->cap, w->n + 1, sizeof *w->v) < 0 ||
		    tmq_idx_put(&w->ix, id, (uint32_t)w->n) < 0)
			return 0;
		at = (long)w->n++;
		memset(&w->v[at], 0, sizeof w->v[at]);
		w->v[at].id = id;
		w->v[at].tag = tag + 1;		/* not seen yet */
	}
	s = &w->v[at];
	if (s->tag == tag && (s->dev != (unsigned long long)st->st_dev ||
	    s->ino != (unsigned long long)st->st_ino))
		s->replaced = 1;
	if (s->replaced)
		return 1;
	if (s->tag != tag || s->mt_sec != (long long)st->st_mtim.tv_sec ||
	    s->mt_nsec != (long long)st->st_mtim.tv_nsec) {
		if (s->tag != tag) {
			s->tag = tag;
			s->dev = (unsigned long long)st->st_dev;
			s->ino = (unsigned long long)st->st_ino;
			s->timeout = timeout_in(fd);
			if (s->timeout == 0)
				s->timeout = w->timeout;
		}
		s->mt_sec = (long long)st->st_mtim.tv_sec;
		s->mt_nsec = (long long)st->st_mtim.tv_nsec;
		s->since = now;
		return 0;
	}
	return s->timeout > 0 && now - s->since >= s->timeout;
}

/* The probe of tag's file in dfd (.tmq); w and id only to say what was
 * refused (w NULL: nothing is said). */
static enum tmq_liveness
probe_in(int dfd, uint64_t tag, const struct tmq_live_where *w, uint32_t id)
{
	struct tmq_error e;
	struct flock fl;
	struct stat st;
	char name[64], shown[80];
	int fd;

	live_name(tag, name, sizeof name);
	snprintf(shown, sizeof shown, TMQ_DOT_DIR "/%s", name);
	fd = tmq_open_regular_as(dfd, name, shown, O_RDONLY, 0, &e);
	if (fd < 0) {
		if (e.code == TMQ_ERR_FILEKIND && w != NULL && first_time(tag))
			say_unvouched(w, id, 0, e.msg);
		return TMQ_LIVE_UNKNOWN;
	}
	whole_file(&fl, F_WRLCK);
	if (fcntl(fd, F_OFD_GETLK, &fl) < 0 || fstat(fd, &st) < 0) {
		close(fd);
		return TMQ_LIVE_UNKNOWN;
	}
	/* A member holds a write lock, which no read lock can share the
	 * file with: a read lock (a sweep's, anyone's) is no member's. */
	if (fl.l_type != F_WRLCK) {
		close(fd);
		return TMQ_LIVE_DEAD;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		close(fd);
		if (w != NULL && first_time(tag)) {
			char why[160];

			snprintf(why, sizeof why, "%s: writable by others than "
			    "its owner, its lock could be theirs", shown);
			say_unvouched(w, id, 0, why);
		}
		return TMQ_LIVE_UNKNOWN;
	}
	if (w != NULL && w->watch != NULL && watch_says_stale(w->watch, &st,
	    fd, tag, id)) {
		close(fd);
		return TMQ_LIVE_STALE;
	}
	close(fd);
	return TMQ_LIVE_YES;
}

static enum tmq_liveness
probe(int logdirfd, uint64_t tag, const struct tmq_live_where *w, uint32_t id)
{
	enum tmq_liveness l;
	struct tmq_error e;
	int dfd;

	if ((dfd = tmq_dot_open(logdirfd, 0)) < 0) {
		if (errno != ENOENT && w != NULL && !said_dir) {
			said_dir = 1;
			tmq_dot_fail(logdirfd, TMQ_DOT_DIR, &e);
			say_unvouched(w, id, 1, e.msg);
		}
		return TMQ_LIVE_UNKNOWN;
	}
	l = probe_in(dfd, tag, w, id);
	close(dfd);
	return l;
}

enum tmq_liveness
tmq_live_probe(int logdirfd, uint64_t tag)
{
	return probe(logdirfd, tag, NULL, 0);
}

/* Remove the file when no one holds its lock: under a lock of our own,
 * so that a member taking it meanwhile waits and then makes a new one
 * (tmq_live_hold), and on the file we locked, not one made since. */
static void
forget_in(int dfd, uint64_t tag)
{
	struct flock fl;
	char name[64];
	int fd;

	live_name(tag, name, sizeof name);
	fd = tmq_open_regular(dfd, name, O_RDONLY, 0, NULL);
	if (fd < 0)
		return;
	whole_file(&fl, F_RDLCK);
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0 && same_file(dfd, name, fd))
		unlinkat(dfd, name, 0);
	close(fd);
}

void
tmq_live_forget(int logdirfd, uint64_t tag)
{
	int dfd;

	if ((dfd = tmq_dot_open(logdirfd, 0)) < 0)
		return;
	forget_in(dfd, tag);
	close(dfd);
}

/* The name under which an older tmq made and locked a lock file: new.TAG,
 * TAG 16 digits of hexadecimal. */
static int
is_old_new(const char *s)
{
	size_t i;

	if (strncmp(s, "new.", 4) != 0 || strlen(s) != 4 + 16)
		return 0;
	for (i = 4; s[i] != '\0'; i++)
		if (strchr("0123456789abcdef", s[i]) == NULL)
			return 0;
	return 1;
}

int
tmq_live_dead(int logdirfd, uint64_t **tags, size_t *n)
{
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;
	int fd, got;

	*tags = NULL;
	*n = 0;
	if ((fd = tmq_dot_open(logdirfd, 0)) < 0)
		return 0;
	dir = fdopendir(fd);
	if (dir == NULL) {
		close(fd);
		return -1;
	}
	while ((got = tmq_dir_next(dir, &d)) > 0) {
		unsigned long long tag;
		char *end;

		/* What killed writers left: the temporaries of .tmq (lock
		 * files on their way in, snapshots, ...), and an older tmq's
		 * new.TAG, once a minute old and unlocked. */
		if (tmq_tmp_is(d->d_name, NULL) || is_old_new(d->d_name)) {
			tmq_tmp_drop_stale(dirfd(dir), d->d_name);
			continue;
		}
		if (strncmp(d->d_name, TMQ_DOT_LIVE, LIVE_LEN) != 0)
			continue;
		errno = 0;
		tag = strtoull(d->d_name + LIVE_LEN, &end, 16);
		if (errno != 0 || *end != '\0' || end == d->d_name + LIVE_LEN ||
		    probe_in(dirfd(dir), (uint64_t)tag, NULL, 0) !=
		    TMQ_LIVE_DEAD)
			continue;
		if (*n == cap) {
			uint64_t *nt;

			cap = cap ? 2 * cap : 16;
			nt = realloc(*tags, cap * sizeof *nt);
			if (nt == NULL) {
				closedir(dir);
				free(*tags);
				*tags = NULL;
				*n = 0;
				return -1;
			}
			*tags = nt;
		}
		(*tags)[(*n)++] = (uint64_t)tag;
	}
	closedir(dir);
	if (got < 0) {
		/* (Those seen are dead all the same; the caller's sweep is
		 * best effort, and this one is cut short.) */
		free(*tags);
		*tags = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* Whether member m may still hold partitions: it holds some, offers in
 * the rebalance under way, or was heard from since the last one ended (it
 * may offer yet, for all the state knows). */
static int
may_hold(const struct tmq_gstate *s, const struct tmq_gmember *m)
{
	const struct tmq_offer *o = tmq_gstate_share(s, m->id);

	if (o != NULL && o->ngot > 0)
		return 1;
	if (s->rebalancing && tmq_gstate_offer(s, m->id) != NULL)
		return 1;
	return !m->left && (!s->have_assignment ||
	    m->last_offset > s->ended_offset);
}

struct tagseen {
	uint64_t tag;
	int seen, hold;
};

static int
cmp_tagseen(const void *a, const void *b)
{
	uint64_t x = ((const struct tagseen *)a)->tag;
	uint64_t y = ((const struct tagseen *)b)->tag;

	return x < y ? -1 : x > y;
}

void
tmq_live_sweep(const struct tmq_live_where *w, const struct tmq_gstate *s,
    const uint64_t *tags, size_t n)
{
	struct tagseen *t, key;
	size_t i;
	int fd;

	if (n == 0 || (fd = tmq_dot_open(w->logdirfd, 0)) < 0)
		return;
	/* The first member claiming a tag decides for it; a tag nobody
	 * claimed is of a member that died before its JOINED.  One pass
	 * over the members, whatever the number of files. */
	t = calloc(n, sizeof *t);
	if (t == NULL) {
		close(fd);
		return;
	}
	for (i = 0; i < n; i++)
		t[i].tag = tags[i];
	qsort(t, n, sizeof *t, cmp_tagseen);
	memset(&key, 0, sizeof key);
	for (i = 0; i < s->nmembers; i++) {
		const struct tmq_gmember *m = &s->members[i];
		struct tagseen *f;

		if (!m->claimed)
			continue;
		key.tag = m->tag;
		f = bsearch(&key, t, n, sizeof *t, cmp_tagseen);
		/* Repeats in tags: the first of them in the sorted array. */
		while (f != NULL && f > t && f[-1].tag == m->tag)
			f--;
		if (f != NULL && !f->seen) {
			f->seen = 1;
			f->hold = may_hold(s, m);
		}
	}
	for (i = 0; i < n; i++)
		if (!t[i].hold && (i == 0 || t[i - 1].tag != t[i].tag ||
		    !t[i - 1].hold))
			forget_in(fd, t[i].tag);
	free(t);
	close(fd);
}

enum tmq_liveness
tmq_live_member(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t id)
{
	const struct tmq_gmember *m = tmq_gstate_find(s, id);

	return m != NULL && m->claimed ? probe(w->logdirfd, m->tag, w, id) :
	    TMQ_LIVE_UNKNOWN;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The tags of the names live.TAG in dfd (.tmq), sorted, in *tags (NULL
 * when none); -1 when the directory could not be read to its end. */
static int
listed_tags(int dfd, uint64_t **tags, size_t *n)
{
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;
	int fd;

	*tags = NULL;
	*n = 0;
	if ((fd = dup(dfd)) < 0)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	rewinddir(dir);
	for (;;) {
		unsigned long long tag;
		char *end;
		int got = tmq_dir_next(dir, &d);

		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		if (strncmp(d->d_name, TMQ_DOT_LIVE, LIVE_LEN) != 0 ||
		    strlen(d->d_name) != LIVE_LEN + 16 ||
		    strspn(d->d_name + LIVE_LEN, "0123456789abcdef") != 16)
			continue;
		tag = strtoull(d->d_name + LIVE_LEN, &end, 16);
		if (*end != '\0')
			continue;
		if (tmq_grow(tags, &cap, *n + 1, sizeof **tags) < 0)
			goto fail;
		(*tags)[(*n)++] = (uint64_t)tag;
	}
	closedir(dir);
	if (*n > 1)	/* (none: *tags is NULL, which qsort may not take) */
		qsort(*tags, *n, sizeof **tags, cmp_u64);
	return 0;
fail:
	closedir(dir);
	free(*tags);
	*tags = NULL;
	*n = 0;
	return -1;
}

/* The members the rebalance under way waits for.  A log may name any
 * number of ids (a co-user's JOINED lines cost them one line each), but
 * only those with a lock file can be vouched alive: .tmq is listed once,
 * and only the members whose files are there are probed, so a poll costs
 * the files there, not the ids of the log.  (A member's file is there
 * before its JOINED, which the state was read to before this.) */
static void
pending(const struct tmq_live_where *w, const struct tmq_gstate *s,
    int has_self, uint32_t self, unsigned *alive, unsigned *unknown,
    uint32_t *ids, unsigned cap)
{
	uint64_t *tags = NULL;
	size_t ntags = 0;
	int dfd = -2, listed = 0;
	unsigned i;

	*alive = *unknown = 0;
	if (!s->rebalancing)
		return;
	for (i = 0; i < s->nmembers; i++) {
		const struct tmq_gmember *m = &s->members[i];
		const struct tmq_offer *last;
		enum tmq_liveness l;
		int heard;

		if (!m->claimed || m->left || (has_self && m->id == self) ||
		    tmq_gstate_offer(s, m->id) != NULL)
			continue;
		/* Only members that may still take part: those holding a
		 * share (that offered to) in the last rebalance, and those
		 * heard from since it ended.  The others were shown gone by
		 * not answering; a group's log keeps every id it ever gave
		 * out, and these need no probe. */
		last = s->have_assignment ? tmq_gstate_share(s, m->id) : NULL;
		heard = !s->have_assignment || m->last_offset > s->ended_offset;
		if (!heard && (last == NULL || last->nparts == 0))
			continue;
		if (dfd == -2) {
			if ((dfd = tmq_dot_open(w->logdirfd, 0)) < 0) {
				struct tmq_error e;

				if (errno != ENOENT && !said_dir) {
					said_dir = 1;
					tmq_dot_fail(w->logdirfd, TMQ_DOT_DIR, &e);
					say_unvouched(w, m->id, 1, e.msg);
				}
			} else
				listed = listed_tags(dfd, &tags, &ntags) == 0;
		}
		if (dfd < 0 || (listed && (ntags == 0 || bsearch(&m->tag, tags,
		    ntags, sizeof *tags, cmp_u64) == NULL)))
			l = TMQ_LIVE_UNKNOWN;
		else
			l = probe_in(dfd, m->tag, w, m->id);
		switch (l) {
		case TMQ_LIVE_YES:
			if (ids != NULL && *alive < cap)
				ids[*alive] = m->id;
			(*alive)++;
			break;
		case TMQ_LIVE_UNKNOWN:
			(*unknown)++;
			break;
		case TMQ_LIVE_DEAD:
		case TMQ_LIVE_STALE:
			break;
		}
	}
	free(tags);
	if (dfd >= 0)
		close(dfd);
}

void
tmq_live_pending(const struct tmq_live_where *w, const struct tmq_gstate *s,
    int has_self, uint32_t self, unsigned *alive, unsigned *unknown)
{
	pending(w, s, has_self, self, alive, unknown, NULL, 0);
}

unsigned
tmq_live_waiting(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t *ids, unsigned cap)
{
	unsigned alive, unknown;

	pending(w, s, 0, 0, &alive, &unknown, ids, cap);
	return alive;
}

/* For observers: member id's lock file, open to read (a regular file
 * only, regfile.h), or -1 when the id was never claimed or has none. */
static int
open_member_file(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t id)
{
	const struct tmq_gmember *m = tmq_gstate_find(s, id);
	char name[64];
	int dfd, fd;

	if (m == NULL || !m->claimed ||
	    (dfd = tmq_dot_open(w->logdirfd, 0)) < 0)
		return -1;
	live_name(m->tag, name, sizeof name);
	fd = tmq_open_regular(dfd, name, O_RDONLY, 0, NULL);
	close(dfd);
	return fd;
}

int
tmq_live_silence(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t id, double now, double *silent, double *timeout)
{
	struct stat st;
	int fd;

	if ((fd = open_member_file(w, s, id)) < 0)
		return -1;
	*timeout = timeout_in(fd);
	if (fstat(fd, &st) < 0 || *timeout == 0) {
		close(fd);
		return -1;
	}
	close(fd);
	*silent = now - ((double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9);
	if (*silent < 0)
		*silent = 0;
	return 0;
}

int
tmq_live_publish(int fd, double session, const char *text, size_t len)
{
	char line[32];
	struct iovec v[2];
	size_t n;

	if (fd < 0 || len > TMQ_XREPORT_MAX_TEXT)
		return -1;
	v[0].iov_base = line;
	v[0].iov_len = (size_t)snprintf(line, sizeof line, "%.3f\n",
	    session > 0 ? session : 0);
	v[1].iov_base = (void *)text;
	v[1].iov_len = len;
	n = v[0].iov_len + len;
	/* The new text first, in one write, then the old one's tail cut: a
	 * reader sees the one or the other whole, with at worst a tail past
	 * its "end" line, which it ignores. */
	if (pwritev(fd, v, 2, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0)
		return -1;
	return 0;
}

int
tmq_live_report(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t id, struct tmq_xreport *r)
{
	size_t cap = 32 + TMQ_XREPORT_MAX_TEXT;
	char *buf, *nl;
	struct stat st;
	ssize_t n;
	int fd, rc;

	memset(r, 0, sizeof *r);
	if ((fd = open_member_file(w, s, id)) < 0)
		return 0;
	/* Only a file its owner alone may write is the member's word. */
	if (fstat(fd, &st) < 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
	    (buf = malloc(cap)) == NULL) {
		close(fd);
		return 0;
	}
	n = pread(fd, buf, cap, 0);
	close(fd);
	rc = 0;
	if (n > 0 && (nl = memchr(buf, '\n', (size_t)n)) != NULL)
		rc = tmq_xreport_parse(nl + 1, (size_t)(buf + n - nl - 1), r);
	free(buf);
	return rc;
}

/* Note in w's watch the file of every member claimed in s->members from
 * *from on (not self's), so that a file put in place of one later is
 * seen for another's (watch_says_stale), however soon after the member
 * dies it comes: a watch that first looked at a holder's file only at its
 * first probe could be shown the swapped file first, and vouch for it.
 * .tmq is listed once a call, and only the files there are opened, so a
 * log of forged JOINED lines costs the files there, not the ids.  A member
 * whose file is not there yet (or who claims an id seen before its
 * JOINED, past *from) is noted at its first probe instead. */
void
tmq_live_note(const struct tmq_live_where *w, const struct tmq_gstate *s,
    uint32_t self, unsigned *from)
{
	uint64_t *tags = NULL;
	size_t ntags = 0;
	unsigned i;
	int dfd;

	if (*from > s->nmembers)
		*from = 0;	/* a state read afresh: those noted are skipped */
	if (w->watch == NULL || *from == s->nmembers)
		return;
	if ((dfd = tmq_dot_open(w->logdirfd, 0)) < 0) {
		*from = s->nmembers;	/* said, if need be, at the probes */
		return;
	}
	if (listed_tags(dfd, &tags, &ntags) < 0)
		ntags = 0;	/* noted at their probes, as those not there */
	for (i = *from; i < s->nmembers && ntags > 0; i++) {
		const struct tmq_gmember *m = &s->members[i];

		if (m->claimed && !m->left && m->id != self &&
		    tmq_idx_find(&w->watch->ix, m->id) < 0 &&
		    bsearch(&m->tag, tags, ntags, sizeof *tags, cmp_u64) != NULL)
			(void)probe_in(dfd, m->tag, w, m->id);
	}
	*from = s->nmembers;
	free(tags);
	close(dfd);
}

int
tmq_live_may_end(const struct tmq_live_where *w, const struct tmq_gstate *s,
    int has_self, uint32_t self, double now, double end)
{
	unsigned alive, unknown;

	if (!s->rebalancing)
		return 0;
	tmq_live_pending(w, s, has_self, self, &alive, &unknown);
	return alive == 0 && (unknown == 0 || now >= end);
}
