/* appender.c: batched, atomic appends (tmq-format(5),
 * Partition files and Offsets).
 *
 * Each flush is one write() of whole lines per partition on a descriptor
 * opened with O_APPEND: on a local filesystem the kernel moves to the end
 * and writes under the inode lock, so another producer's lines land before
 * or after ours, never inside them.  Network and FUSE filesystems give no
 * such promise (NFS computes the end on the client), so there we take an
 * exclusive lock on the file around the write, and write through a
 * descriptor opened O_DSYNC, so that the write returns only once the
 * server has it: GlusterFS's write-behind, which otherwise acknowledges a
 * write the server has not got (so that another client's line overtakes
 * it and ours lands cut in two around it), passes such writes straight
 * to the server.  No client then holds lines the server has not got,
 * which is why readers there need no lock (directread.h), and a reader,
 * stopped or hung, can never hold up a producer.  The locks are open
 * file description locks (F_OFD_SETLKW): they pass between machines like
 * POSIX fcntl locks (NFS, GlusterFS), and unlike those they are not lost
 * when we close another descriptor of the same file.  TMQ_APPEND=lock or
 * =plain forces one way.
 *
 * The day file is chosen at write time.  Starting a new day's file is a
 * read-count-create sequence; tmq processes serialise it with flock on the
 * topic directory, and, since flock on a directory does not exclude between
 * GlusterFS clients, with the file lock on the partition's last file, which
 * also holds off appends to it while we count its lines.  The TwainMQ library
 * neither takes these locks nor minds them.
 *
 * A batch is every line queued since the last one, whatever partitions
 * they go to: no partition's lines are written ahead of the others', so
 * between batches the lines on disk are exactly the first ones queued.
 * Within a batch each partition is one write(), in the order of the
 * partitions' first lines, and the first write that fails ends the batch;
 * a->lost then says, by the caller's numbers, which lines were written.
 * Where the filesystem is nearly full, a batch is written run by run in
 * the order queued (a run: lines in a row for one partition), so that a
 * disk that fills cuts the input at one line, whatever its partitions.
 * One write() a run costs a system call a line where keys alternate; a
 * write() a partition costs one a batch, hence the two ways. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "store/appender.h"
#include "store/directread.h"
#include "store/dirlist.h"
#include "util/fdlimit.h"
#include "store/filelock.h"
#include "store/modes.h"
#include "store/fstype.h"
#include "util/grow.h"
#include "util/monoclock.h"
#include "store/partfile.h"
#include "store/partindex.h"
#include "store/partscan.h"
#include "store/regfile.h"
#include "util/stop.h"
#include "codec/timestamp.h"

/* A batch is written once it holds this much for each partition, at
 * most BATCH_PARTS times as much over all. */
#define BATCH_PER_PART (256 * 1024)
#define BATCH_PARTS 32
/* Below this much room on the filesystem beyond twice the batch, a batch
 * is written run by run (see the top of this file). */
#define ROOM_SLACK (1024 * 1024)
/* Files opened at once by a flush: at most this, and a quarter of the
 * descriptor limit. */
#define OPEN_CHUNK 512

static int spare_fd(void *arg);

int
tmq_appender_open(struct tmq_appender *a, const struct tmq_topic *t, int sync,
    struct tmq_error *e)
{
	const char *env = getenv("TMQ_APPEND");
	struct rlimit rl;
	unsigned i;

	memset(a, 0, sizeof *a);
	a->topic = t;
	a->sync = sync;
	a->lockmode = -1;
	if (env != NULL && strcmp(env, "lock") == 0)
		a->lockmode = 1;
	else if (env != NULL && strcmp(env, "plain") == 0)
		a->lockmode = 0;
	else if (env != NULL && *env != '\0' && strcmp(env, "auto") != 0)
		return tmq_fail(e, "TMQ_APPEND='%s': want auto, lock or plain",
		    env);
	a->parts = calloc(t->partitions, sizeof *a->parts);
	a->toopen = calloc(t->partitions, sizeof *a->toopen);
	a->order = calloc(t->partitions, sizeof *a->order);
	a->seen = calloc(t->partitions, 1);
	if (a->parts == NULL || a->toopen == NULL || a->order == NULL ||
	    a->seen == NULL) {
		free(a->parts);
		free(a->toopen);
		free(a->order);
		free(a->seen);
		a->parts = NULL;
		return tmq_fail(e, "out of memory");
	}
	a->batch_max = (size_t)BATCH_PER_PART * (t->partitions < BATCH_PARTS ?
	    t->partitions : BATCH_PARTS);
	for (i = 0; i < t->partitions; i++) {
		a->parts[i].fd = a->parts[i].tailfd = -1;
		a->parts[i].ours = -1;
	}
	a->open_chunk = OPEN_CHUNK;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < OPEN_CHUNK)
		a->open_chunk = rl.rlim_cur >= 8 ? (unsigned)(rl.rlim_cur / 4) : 1;
	tmq_dirlist_init(&a->dl, t->dirfd);
	a->dl.spare_fd = spare_fd;
	a->dl.spare_arg = a;
	if (tmq_read_mode_check(e) < 0) {
		free(a->parts);
		free(a->toopen);
		free(a->order);
		free(a->seen);
		a->parts = NULL;
		return -1;
	}
	return 0;
}

void
tmq_appender_exact(struct tmq_appender *a)
{
	a->exact = 1;
}

void
tmq_appender_begin_at(struct tmq_appender *a, unsigned p, uint64_t first)
{
	a->parts[p].begin = first;
	a->parts[p].begins = 1;
}

static void
close_part(struct tmq_app_part *ap)
{
	if (ap->fd >= 0)
		close(ap->fd);
	if (ap->tailfd >= 0)
		close(ap->tailfd);
	ap->fd = ap->tailfd = -1;
	ap->ours = -1;
	ap->chose_ok = 0;
}

static int
needs_lock(int lockmode, int fd)
{
	return lockmode >= 0 ? lockmode : tmq_fs_is_remote(fd);
}

/* No descriptor is left: close another partition's file (it is opened
 * again when next written).  Round the partitions, each in turn. */
static int
spare_fd(void *arg)
{
	struct tmq_appender *a = arg;
	unsigned k, q, n = a->topic->partitions;

	for (k = 0; k < n; k++) {
		q = (a->spare_next + k) % n;
		if (a->parts[q].fd >= 0 && !a->parts[q].opening &&
		    !a->parts[q].busy) {
			close_part(&a->parts[q]);
			a->spare_next = (q + 1) % n;
			return 0;
		}
	}
	return -1;
}

static int
open_retry(struct tmq_appender *a, const char *name, int flags, mode_t mode,
    struct tmq_error *e)
{
	int fd;

	while ((fd = tmq_open_regular(a->topic->dirfd, name, flags, mode,
	    e)) < 0 && tmq_fd_exhausted(errno) && spare_fd(a) == 0)
		;
	if (fd < 0)
		tmq_fd_hint_append(e, errno);
	return fd;
}

/* Exact (tmq_appender_exact): partition p's file name, read through rfd
 * (how) and size bytes long, ends in a cut line.  Cut it off through wfd
 * when it is the start of the partition's next line (the copy's own write
 * of it, cut short); else refuse, naming the file and how to cut it off.
 * *endp: where the file now ends. */
static int
own_cut(struct tmq_appender *a, unsigned p, const char *name, int rfd,
    int how, int wfd, off_t size, off_t *endp, struct tmq_error *e)
{
	const struct tmq_topic *t = a->topic;
	struct tmq_app_part *ap = &a->parts[p];
	const char *line = ap->buf + ap->done, *nl;
	size_t n, cut;
	off_t start;
	char *buf;
	ssize_t r;
	int own = 0;

	if (tmq_dr_line_start(rfd, how, size, &start) < 0)
		return tmq_fail_errno(e, "%s: partition %u: %s: cannot read "
		    "its cut last line", t->name, p, name);
	cut = (size_t)(size - start);
	nl = ap->len > ap->done ? memchr(line, '\n', ap->len - ap->done) :
	    NULL;
	n = nl != NULL ? (size_t)(nl - line) + 1 : 0;
	if (cut < n) {
		if ((buf = malloc(cut > 0 ? cut : 1)) == NULL)
			return tmq_fail(e, "out of memory");
		r = tmq_dr_pread(rfd, how, buf, cut, start);
		if (r < 0) {
			free(buf);
			return tmq_fail_errno(e, "%s: partition %u: %s: cannot "
			    "read its cut last line", t->name, p, name);
		}
		own = (size_t)r == cut && memcmp(buf, line, cut) == 0;
		free(buf);
	}
	if (!own)
		return tmq_fail(e, "%s: partition %u: %s ends in a cut line "
		    "(%zu bytes from byte %lld) that is not the start of the "
		    "record at its offset: nothing written to it; if nothing "
		    "else writes there, cut it off (truncate -s %lld %s/%s, "
		    "in the root) and run again", t->name, p, name, cut,
		    (long long)start, (long long)start, t->name, name);
	if (wfd < 0 || ftruncate(wfd, start) < 0)
		return tmq_fail_errno(e, "%s: partition %u: %s: cannot cut off "
		    "its cut last line", t->name, p, name);
	*endp = start;
	return 0;
}

/* Partition p has no file of the day yet: find where its new one starts.
 * Lock the last file (whole-file, as appenders do) and list again until
 * what we locked is still the last file; then count its lines, which no
 * locking appender can add to meanwhile.  *lfd keeps the lock until the
 * new file exists.  Another writer may have started the day's file first:
 * then *found and *pf are that file. */
static int
start_after(struct tmq_appender *a, unsigned p, unsigned day,
    struct tmq_pfile *pf, int *found, int *lfd, struct tmq_error *e)
{
	const struct tmq_topic *t = a->topic;
	struct tmq_pfile *files = NULL;
	char locked[sizeof pf->name] = "";
	struct tmq_pidx ix;
	struct tmq_pscan sc;
	uint64_t lines;
	size_t n;
	int tries, how, fd, rc = -1;

	for (tries = 0; tries < 100; tries++) {
		free(files);
		files = NULL;
		if (tmq_pfiles_list(t->dirfd, p, &files, &n, e) < 0)
			goto out;
		if (n > 0 && files[n - 1].day >= day) {
			*pf = files[n - 1];
			*found = 1;
			rc = 0;
			goto out;
		}
		memset(pf, 0, sizeof *pf);
		if (n == 0) {
			rc = 0;
			goto out;
		}
		if (strcmp(files[n - 1].name, locked) == 0)
			break;
		if (*lfd >= 0)
			close(*lfd);	/* drops its lock */
		*lfd = open_retry(a, files[n - 1].name, O_RDWR, 0, e);
		if (*lfd < 0 && errno != EACCES && errno != EROFS &&
		    errno != EPERM)
			goto out;
		/* A last file we may not write to: no appender of ours
		 * writes there either, and the topic's flock is all. */
		if (*lfd >= 0 && tmq_file_lock(*lfd, F_WRLCK) < 0) {
			if (errno == EINTR)
				tmq_fail(e, "nothing written: told to stop while "
				    "another process held the lock on %s",
				    files[n - 1].name);
			else
				tmq_fail_errno(e, "%s: cannot lock",
				    files[n - 1].name);
			goto out;
		}
		memcpy(locked, files[n - 1].name, sizeof locked);
	}
	if (tries == 100) {
		tmq_fail(e, "its files keep changing");
		goto out;
	}
	fd = tmq_dr_openat(t->dirfd, files[n - 1].name, &how, e);
	if (fd < 0)
		goto out;
	/* Counted from the file's index (partscan.h): a day's file of
	 * gigabytes is not read whole while every producer waits. */
	tmq_pidx_init(&ix, t->dirfd, t->name, &files[n - 1], t->key_width,
	    t->said);
	if (tmq_pscan_file(&ix, fd, how, TMQ_PSCAN_WRITE, 0, &sc) < 0) {
		if (errno == EINTR && tmq_stop)
			tmq_fail(e, "nothing written: told to stop while "
			    "counting the lines of %s", files[n - 1].name);
		else
			tmq_fail_errno(e, "%s", files[n - 1].name);
		tmq_pidx_free(&ix);
		close(fd);
		goto out;
	}
	tmq_pidx_free(&ix);
	lines = sc.lines;
	/* Exact: a cut line would take an offset the copy's ends do not
	 * count (under the lock on the file, no appender of ours is
	 * writing there). */
	if (a->exact && sc.partial) {
		off_t end;

		if (own_cut(a, p, files[n - 1].name, fd, how, *lfd,
		    (off_t)sc.size, &end, e) < 0) {
			close(fd);
			free(files);
			if (*lfd >= 0)
				close(*lfd);
			*lfd = -1;
			return -1;
		}
		lines--;
	}
	close(fd);
	/* Offsets never wrap: a file that ends past 2^64-1 is corrupt, and
	 * nothing is appended after it. */
	if (tmq_pfile_end(&files[n - 1], lines, &pf->first, e) < 0) {
		free(files);
		if (*lfd >= 0)
			close(*lfd);
		*lfd = -1;
		return tmq_fail_prefix(e, "%s", t->name);
	}
	rc = 0;
out:
	free(files);
	if (rc < 0) {
		if (*lfd >= 0)
			close(*lfd);
		*lfd = -1;
		tmq_fail_prefix(e, "%s: partition %u", t->name, p);
	}
	return rc;
}

/* tmq_appender_begin_at: partition p's files (files[0..n), under the
 * topic's lock) must all be empty, as tmq-topic create and the TwainMQ
 * library make them; they are removed, for the partition to begin past
 * 0.  Any other is refused: lines came meanwhile. */
static int
clear_empty(struct tmq_appender *a, unsigned p, const struct tmq_pfile *files,
    size_t n, struct tmq_error *e)
{
	const struct tmq_topic *t = a->topic;
	struct stat st;
	size_t i;

	for (i = 0; i < n; i++) {
		if (fstatat(t->dirfd, files[i].name, &st,
		    AT_SYMLINK_NOFOLLOW) < 0)
			return tmq_fail_errno(e, "%s: partition %u: %s",
			    t->name, p, files[i].name);
		if (!S_ISREG(st.st_mode) || st.st_size != 0)
			return tmq_fail(e, "%s: partition %u: nothing written: "
			    "it was to begin at offset %llu, but %s is not "
			    "empty now", t->name, p,
			    (unsigned long long)a->parts[p].begin,
			    files[i].name);
	}
	for (i = 0; i < n; i++)
		if (unlinkat(t->dirfd, files[i].name, 0) < 0 &&
		    errno != ENOENT)
			return tmq_fail_errno(e, "%s: partition %u: nothing "
			    "written: cannot remove the empty %s", t->name, p,
			    files[i].name);
	return 0;
}

/* Open (or start) partition p's file for day, under the topic's lock,
 * files being p's files in the directory. */
static int
open_locked(struct tmq_appender *a, unsigned p, unsigned day,
    const struct tmq_pfile *files, size_t n, struct tmq_error *e)
{
	const struct tmq_topic *t = a->topic;
	struct tmq_app_part *ap = &a->parts[p];
	struct tmq_pfile pf;
	int fd, sync, found = 0, lfd = -1;

	close_part(ap);
	if (ap->begins) {
		if (clear_empty(a, p, files, n, e) < 0)
			return -1;
		n = 0;
	}
	/* Lines go to the partition's last file, never to an older one: its
	 * successor's name fixed its first offset.  That is the day's file
	 * once started, or a later day's that a writer with a clock ahead
	 * of ours has started. */
	if (n > 0 && files[n - 1].day >= day) {
		pf = files[n - 1];
		found = 1;
	}
	if (!found && n > 0 &&
	    start_after(a, p, day, &pf, &found, &lfd, e) < 0)
		return -1;
	if (!found) {
		if (n == 0) {
			memset(&pf, 0, sizeof pf);
			if (ap->begins)
				pf.first = ap->begin;
		}
		pf.partition = p;
		pf.day = day;
		tmq_pfile_name(&pf);
	}
	/* Read access too, to look at the file's last byte (end_cut_line).
	 * Never anything but a regular file: a FIFO would hang us here with
	 * the topic locked, a device would swallow the messages. */
	ap->opening = 1;
	ap->wronly = 0;
	/* Where appends are locked, each write reaches the server before
	 * it returns (see the top of this file). */
	ap->locked = needs_lock(a->lockmode, t->dirfd);
	sync = ap->locked ? O_DSYNC : 0;
	fd = open_retry(a, pf.name, O_RDWR | O_APPEND | O_CREAT | sync, 0666,
	    e);
	if (fd < 0 && errno == EACCES) {
		fd = open_retry(a, pf.name, O_WRONLY | O_APPEND | O_CREAT | sync,
		    0666, e);
		ap->wronly = 1;
	}
	ap->opening = 0;
	if (lfd >= 0)
		close(lfd);	/* drops its lock: the new file is there */
	if (fd < 0)
		return tmq_fail_prefix(e, "%s: partition %u", t->name, p);
	tmq_mode_follow(t->dirfd, fd);
	ap->begins = 0;		/* (its file is there) */
	ap->fd = fd;
	ap->day = day;
	memcpy(ap->name, pf.name, sizeof ap->name);
	if (ap->locked)
		ap->tailfd = tmq_dr_openat(t->dirfd, pf.name, &ap->tailhow,
		    NULL);
	return 0;
}

/* A directory's mtime is a coarse clock's (a few ms on Linux): a file made
 * in the same tick as the listing we took would leave it as it was.  A
 * listing is trusted for as long as the mtime stays what it was only when
 * the mtime was at least this old as we listed. */
#define SETTLED_NS 50000000LL

static void
pause_ns(long long ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
mtim_eq(const struct timespec *x, const struct timespec *y)
{
	return x->tv_sec == y->tv_sec && x->tv_nsec == y->tv_nsec;
}

/* Open the day files of the partitions ps[0..nps) (none open for day):
 * the topic is locked and its directory listed once for all of them, so
 * that a batch over 10,000 partitions costs one listing, not 10,000.
 * Starting a file is a read-count-create sequence that tmq processes
 * serialise with this lock. */
static int
open_day_files(struct tmq_appender *a, const unsigned *ps, size_t nps,
    unsigned day, struct tmq_error *e)
{
	const struct tmq_topic *t = a->topic;
	struct tmq_dirlist dl;
	const struct tmq_pfile *files;
	struct timespec now;
	struct stat st;
	size_t i, n;
	int rc = 0, settled;

	if (tmq_flock_ex(t->dirfd) < 0) {
		if (errno == EINTR)
			return tmq_fail(e, "%s: nothing written: told to stop "
			    "while another process held the topic's lock",
			    t->name);
		return tmq_fail_errno(e, "%s: cannot lock the topic", t->name);
	}
	tmq_dirlist_init(&dl, t->dirfd);
	dl.spare_fd = spare_fd;
	dl.spare_arg = a;
	/* The directory's mtime before the listing: while it stays as it
	 * is, the file chosen is still the last, and the first write needs
	 * no second listing to know it (still_last).  Only a settled mtime
	 * tells (see SETTLED_NS); a file we start here moves it. */
	settled = fstat(t->dirfd, &st) == 0 &&
	    clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	    (long long)(now.tv_sec - st.st_mtim.tv_sec) * 1000000000LL +
	    (now.tv_nsec - st.st_mtim.tv_nsec) >= SETTLED_NS;
	/* (For one partition, only its files are kept.) */
	if (tmq_dirlist_refresh_part(&dl, nps == 1 ? (long)ps[0] : -1, e) < 0)
		rc = tmq_fail_prefix(e, "%s", t->name);
	for (i = 0; rc == 0 && i < nps; i++) {
		tmq_dirlist_part(&dl, ps[i], &files, &n);
		rc = open_locked(a, ps[i], day, files, n, e);
		if (rc == 0 && settled) {
			a->parts[ps[i]].chose_mtim = st.st_mtim;
			a->parts[ps[i]].chose_ok = 1;
		}
	}
	flock(t->dirfd, LOCK_UN);
	tmq_dirlist_free(&dl);
	return rc;
}

/* Before we append, the file must end with a newline: a line cut short by
 * a writer that was killed, or whose disk filled (when even the newline
 * below could not be written), would otherwise run into our first line and
 * take it down with it.  A line that another writer is still writing ends
 * within moments (the file grows, or gains its newline); a tail that stays
 * as it is for TMQ_CUT_WAIT_MS is cut, and we end it.  (The kernel may pause a
 * writer mid-write for up to 200 ms to throttle dirty pages; were we to end
 * its line early, the cost would be one empty, corrupt line after it.) */
#define STOP_GRACE_MS 100

/* -1 errno set, -2 told to stop, -3 e set (own_cut); *endp: where the
 * file ends once done (-1: not known, the file could not be read). */
static int
end_cut_line(struct tmq_appender *a, unsigned p, struct tmq_app_part *ap,
    off_t *endp, struct tmq_error *e)
{
	/* (A co-user can keep a tail growing for ever, a byte at a time:
	 * told to stop, we write nothing.  The stop is heeded only after
	 * STOP_GRACE_MS of waiting: a member leaving because it was told to
	 * stop must still write its LEFT when it merely meets another's
	 * append under way, which ends in microseconds.) */
	off_t size, last = -1;
	int still = 0, waited = 0, c;
	int fd = ap->tailfd >= 0 ? ap->tailfd : ap->fd;
	int how = ap->tailfd >= 0 ? ap->tailhow : 0;

	*endp = -1;
	/* A file just as long as our last write left it ends in our own
	 * newline: files only grow, and anyone's append would lengthen it.
	 * (One look at the size, not two reads, for a record that comes
	 * alone.) */
	if (!(how & TMQ_DR_DIRECT) && ap->ours >= 0) {
		struct stat st;

		if (fstat(fd, &st) < 0)
			return -1;
		if (st.st_size == ap->ours) {
			*endp = st.st_size;
			return 0;
		}
	}
	for (;;) {
		if (tmq_dr_tail(fd, how, &size, &c) < 0)
			return -1;
		if (size == 0 || c < 0 || c == '\n') {
			if (c >= 0 || size == 0)
				*endp = size;
			return 0;	/* empty, not readable, or whole */
		}
		if (tmq_stop && waited >= STOP_GRACE_MS)
			return -2;
		if (size != last) {
			last = size;
			still = 0;
		} else if (++still >= TMQ_CUT_WAIT_MS)
			break;
		poll(NULL, 0, 1);
		waited++;
	}
	/* Exact: never a newline, which would give the cut line an offset
	 * the copy's ends do not count. */
	if (a->exact)
		return own_cut(a, p, ap->name, fd, how, ap->fd, size, endp,
		    e) < 0 ? -3 : 0;
	while (write(ap->fd, "\n", 1) < 0)
		if (errno != EINTR)
			return -1;
	*endp = size + 1;
	return 0;
}

/* Whether ap's file is still partition p's last file: 1 yes, 0 no (a
 * writer whose clock is ahead has started the next day's file since we
 * opened ours; appending to ours would give two lines one offset), -1
 * error.  Called with the lock on the file that holds off starting a new
 * one (start_after).  On a local filesystem a listing holds until the
 * directory's mtime moves; a shared one may show a stale mtime, so there
 * the partition's files are listed each time. */
static int
still_last(struct tmq_appender *a, unsigned p, struct tmq_app_part *ap,
    struct tmq_error *e)
{
	const struct tmq_pfile *files;
	struct tmq_pfile *own = NULL;
	struct timespec now;
	struct stat st;
	size_t n;
	long long age;
	int last;

	if (ap->locked) {
		if (tmq_pfiles_list(a->topic->dirfd, p, &own, &n, e) < 0)
			return tmq_fail_prefix(e, "%s: partition %u",
			    a->topic->name, p);
		last = n > 0 && strcmp(own[n - 1].name, ap->name) == 0;
		free(own);
		return last;
	}
	if (fstat(a->topic->dirfd, &st) < 0)
		return tmq_fail_errno(e, "%s", a->topic->name);
	/* Nothing made, renamed or removed there since the listing that
	 * chose the file (one partition's, under the topic's lock): it is
	 * still the last, without listing all of them. */
	if (ap->chose_ok && mtim_eq(&st.st_mtim, &ap->chose_mtim))
		return 1;
	ap->chose_ok = 0;
	if (!a->listed_ok || !mtim_eq(&st.st_mtim, &a->listed_mtim)) {
		/* Wait for a fresh mtime to settle (files just made: once
		 * a flush, not once a partition).  A clock behind the
		 * filesystem's (age < 0) cannot tell: list every time. */
		for (;;) {
			clock_gettime(CLOCK_REALTIME, &now);
			age = (long long)(now.tv_sec - st.st_mtim.tv_sec) *
			    1000000000LL + (now.tv_nsec - st.st_mtim.tv_nsec);
			if (age < 0 || age >= SETTLED_NS)
				break;
			pause_ns(SETTLED_NS - age);
			if (fstat(a->topic->dirfd, &st) < 0)
				return tmq_fail_errno(e, "%s", a->topic->name);
		}
		a->dl.stale = 1;
		if (tmq_dirlist_refresh_part(&a->dl, -1, e) < 0)
			return tmq_fail_prefix(e, "%s: partition %u",
			    a->topic->name, p);
		a->listed_ok = age >= 0;
		a->listed_mtim = st.st_mtim;
	}
	tmq_dirlist_part(&a->dl, p, &files, &n);
	return n > 0 && strcmp(files[n - 1].name, ap->name) == 0;
}

/* Append ap->buf from ap->done to to to its file: 0, 1 when the file is
 * no longer the partition's last (nothing written: open the last one and
 * try again), -1 with errno set, -2 with e set, or -3 when the
 * filesystem took no byte of a write yet said no error (e set).
 * ap->done moves past what was written. */
static int
write_all_locked(struct tmq_appender *a, unsigned p, struct tmq_app_part *ap,
    size_t to, int *partial_out, struct tmq_error *e)
{
	size_t done = ap->done, from = ap->done, keep;
	off_t end0, now;
	ssize_t w;
	int rc = 0, saved, last, held = 1, c;

	*partial_out = 0;
	/* Exclusive where the filesystem needs it for the append itself;
	 * elsewhere shared, so that appends run side by side and only the
	 * start of a new file (start_after) waits for them.  A local
	 * filesystem without such locks appends as it did before them. */
	if (tmq_file_lock(ap->fd, ap->locked || ap->wronly || a->exact ?
	    F_WRLCK : F_RDLCK) < 0) {
		if (errno == EINTR)
			return tmq_fail(e, "%s: partition %u: nothing written: "
			    "told to stop while another process held the lock "
			    "on %s", a->topic->name, p, ap->name), -2;
		if (ap->locked || (errno != ENOLCK && errno != EINVAL &&
		    errno != EOPNOTSUPP && errno != ENOSYS))
			return -1;
		held = 0;
	}
	if ((last = still_last(a, p, ap, e)) <= 0) {
		saved = errno;
		if (held)
			tmq_file_lock(ap->fd, F_UNLCK);
		errno = saved;
		return last == 0 ? 1 : -2;
	}
	if ((rc = end_cut_line(a, p, ap, &end0, e)) == -2)
		tmq_fail(e, "%s: partition %u: nothing written: told to stop "
		    "while the last line of %s was still growing",
		    a->topic->name, p, ap->name);
	else if (rc == -3)
		rc = -2;	/* (e says) */
	while (rc == 0 && done < to) {
		w = write(ap->fd, ap->buf + done, to - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		if (w == 0) {
			/* No regular file does this; a FUSE filesystem might.
			 * errno holds whatever came before: say what it is. */
			rc = -3;
			tmq_fail(e, "%s: partition %u: write failed: the "
			    "filesystem took none of %zu bytes, and said no "
			    "error", a->topic->name, p, to - done);
			break;
		}
		done += (size_t)w;
	}
	saved = errno;
	if (rc < 0 && done > from && ap->buf[done - 1] != '\n' &&
	    a->exact) {
		/* Exact: cut back to the last whole line written, when the
		 * file is still as we made it (else a rerun finds the cut
		 * line, the start of its record, and cuts it off). */
		for (keep = done - from; keep > 0 &&
		    ap->buf[from + keep - 1] != '\n'; keep--)
			;
		if (end0 >= 0 && tmq_dr_tail(ap->tailfd >= 0 ? ap->tailfd :
		    ap->fd, ap->tailfd >= 0 ? ap->tailhow : 0, &now, &c) == 0 &&
		    now == end0 + (off_t)(done - from) &&
		    ftruncate(ap->fd, end0 + (off_t)keep) == 0) {
			done = from + keep;
			*partial_out = 2;
		}
	} else if (rc < 0 && done > 0 && ap->buf[done - 1] != '\n') {
		/* A line is cut short (disk full, quota): end it, so that
		 * readers see one corrupt line rather than ours merged with
		 * the next writer's. */
		while ((w = write(ap->fd, "\n", 1)) < 0 && errno == EINTR)
			;
		*partial_out = w == 1;	/* else the next writer ends it */
	}
	/* Where locked, the descriptor is O_DSYNC: the server has every
	 * byte written before the next writer may append. */
	ap->ours = rc == 0 && end0 >= 0 && done > from &&
	    ap->buf[done - 1] == '\n' ? end0 + (off_t)(done - from) : -1;
	ap->done = done;
	if (held)
		tmq_file_lock(ap->fd, F_UNLCK);
	errno = saved;
	return rc;
}

/* Write partition p's lines up to byte to of its batch. */
static int
flush_part(struct tmq_appender *a, unsigned p, unsigned day, size_t to,
    struct tmq_error *e)
{
	struct tmq_app_part *ap = &a->parts[p];
	int partial, rc, tries;

	if (ap->done >= to)
		return 0;
	for (tries = 0;; tries++) {
		if ((ap->fd < 0 || ap->day != day) &&
		    open_day_files(a, &p, 1, day, e) < 0)
			return -1;
		rc = write_all_locked(a, p, ap, to, &partial, e);
		if (rc != 1)
			break;
		close_part(ap);		/* superseded: open the last file */
		if (tries == 100) {
			rc = -2;
			tmq_fail(e, "%s: partition %u: its files keep changing",
			    a->topic->name, p);
			break;
		}
	}
	if (rc == -1)
		tmq_fail_errno(e, "%s: partition %u: write failed%s",
		    a->topic->name, p, partial == 1 ? " (cut line terminated)" :
		    partial == 2 ? " (cut line removed)" : "");
	return rc < 0 ? -1 : 0;
}

/* Little room left on the filesystem: write the batch run by run.  A
 * look costs a system call (and on ext4 a sum over every CPU's counters),
 * a tenth of what a record that comes alone costs.  No writer fills a
 * filesystem faster than ROOM_RATE bytes a millisecond (10 GB/s): the last
 * look's room, less what we have written since, stands for as long as it
 * could not have been filled at that rate, ROOM_MS at most (a second at
 * 10 GB beyond a batch's need).  Near full, every batch looks. */
#define ROOM_RATE 10000000ULL
#define ROOM_MS 1000
static int
near_full(struct tmq_appender *a, size_t nparts)
{
	struct statvfs sv;
	unsigned long long room, need;
	long long now = tmq_mono_ms(), age = now - a->room_ms;

	if (a->room_ok && age >= 0 && age < ROOM_MS && a->room >
	    2ULL * a->pending + ROOM_RATE * (unsigned long long)(age + 1))
		return 0;
	a->room_ok = 0;
	if (fstatvfs(a->topic->dirfd, &sv) < 0 || sv.f_frsize == 0)
		return 0;
	room = (unsigned long long)sv.f_bavail * sv.f_frsize;
	/* Each partition's write may start a block, and a file. */
	need = 2ULL * a->pending + (unsigned long long)nparts * 2 *
	    sv.f_frsize + ROOM_SLACK;
	if (room > need) {
		a->room = room - need;
		a->room_ms = now;
		a->room_ok = 1;
	}
	return room < need;
}

/* Each partition's lines in one write(), in a->order; the files opened
 * a chunk at a time (see open_day_files), each chunk written before the
 * next is opened.  Past the descriptor limit other files are closed to
 * spare, never those of the chunk at hand (busy): each of those, opened
 * again on its own, would list the directory once more. */
static int
write_whole(struct tmq_appender *a, size_t norder, unsigned day,
    struct tmq_error *e)
{
	size_t i, j, k, nopen;
	int rc = 0;

	for (i = 0; rc == 0 && i < norder; i += k) {
		k = norder - i < a->open_chunk ? norder - i : a->open_chunk;
		nopen = 0;
		for (j = i; j < i + k; j++) {
			a->parts[a->order[j]].busy = 1;
			if (a->parts[a->order[j]].fd < 0 ||
			    a->parts[a->order[j]].day != day)
				a->toopen[nopen++] = a->order[j];
		}
		if (nopen > 1 && open_day_files(a, a->toopen, nopen, day,
		    e) < 0)
			rc = -1;
		for (j = i; rc == 0 && j < i + k; j++)
			if (flush_part(a, a->order[j], day,
			    a->parts[a->order[j]].len, e) < 0)
				rc = -1;
		for (j = i; j < i + k; j++)
			a->parts[a->order[j]].busy = 0;
	}
	return rc;
}

/* Each run of lines for one partition in one write(), in the order
 * queued. */
static int
write_runs(struct tmq_appender *a, unsigned day, struct tmq_error *e)
{
	size_t i = 0, to;
	unsigned q;

	while (i < a->nlines) {
		q = a->lines[i].partition;
		to = a->parts[q].done;
		while (i < a->nlines && a->lines[i].partition == q)
			to += a->lines[i++].len;
		if (flush_part(a, q, day, to, e) < 0)
			return -1;
	}
	return 0;
}

/* After a failed flush: which of the lines queued were written. */
static void
account(struct tmq_appender *a)
{
	struct tmq_app_lost *l = &a->lost;
	struct tmq_app_part *ap;
	size_t i;
	unsigned q;

	memset(l, 0, sizeof *l);
	for (i = 0; i < a->nlines; i++) {
		q = a->lines[i].partition;
		ap = &a->parts[q];
		ap->at += a->lines[i].len;
		if (ap->at > ap->done) {
			if (l->lost == 0)
				l->lost = a->lines[i].seq;
			continue;
		}
		if (l->lost == 0)
			continue;
		l->beyond++;
		l->beyond_last = a->lines[i].seq;
		if (!a->seen[q]) {
			a->seen[q] = 1;
			if (l->nbeyond_parts < TMQ_APP_SHOW_PARTS)
				l->beyond_parts[l->nbeyond_parts] = q;
			l->nbeyond_parts++;
		}
	}
	for (i = 0; i < a->nlines; i++) {
		a->seen[a->lines[i].partition] = 0;
		a->parts[a->lines[i].partition].at = 0;
	}
}

/* After a failed fdatasync of the partition a->order[from]: the lines of
 * it and of those after it in the order (not made durable) are written,
 * and may not be on disk. */
static void
undurable(struct tmq_appender *a, size_t from, size_t norder)
{
	struct tmq_app_lost *l = &a->lost;
	size_t i;

	for (i = from; i < norder; i++)
		a->seen[a->order[i]] = 1;
	for (i = 0; i < a->nlines; i++) {
		if (!a->seen[a->lines[i].partition])
			continue;
		if (l->undurable_first == 0)
			l->undurable_first = a->lines[i].seq;
		l->undurable_last = a->lines[i].seq;
	}
	for (i = from; i < norder; i++)
		a->seen[a->order[i]] = 0;
}

int
tmq_appender_add_rec(struct tmq_appender *a, unsigned partition,
    const char *line, size_t n, unsigned long seq, struct tmq_error *e)
{
	struct tmq_app_part *ap = &a->parts[partition];
	struct tmq_app_line *l;

	if (a->pending > 0 && a->pending + n > a->batch_max &&
	    tmq_appender_flush(a, e) < 0)
		return -1;
	if (tmq_grow(&ap->buf, &ap->cap, ap->len + n, 1) < 0 ||
	    tmq_grow(&a->lines, &a->lines_cap, a->nlines + 1,
	    sizeof *a->lines) < 0)
		return tmq_fail(e, "out of memory");
	memcpy(ap->buf + ap->len, line, n);
	ap->len += n;
	a->pending += n;
	l = &a->lines[a->nlines++];
	l->partition = partition;
	l->len = n;
	l->seq = seq;
	return 0;
}

int
tmq_appender_add(struct tmq_appender *a, unsigned partition, const char *line,
    size_t n, struct tmq_error *e)
{
	return tmq_appender_add_rec(a, partition, line, n, ++a->autoseq, e);
}

int
tmq_appender_flush(struct tmq_appender *a, struct tmq_error *e)
{
	struct tmq_app_part *ap;
	size_t norder = 0, i;
	unsigned day, q;
	int rc;

	memset(&a->lost, 0, sizeof a->lost);
	if (a->pending == 0)
		return 0;
	day = tmq_utc_day(tmq_now());
	for (i = 0; i < a->nlines; i++) {
		q = a->lines[i].partition;
		if (!a->seen[q]) {
			a->seen[q] = 1;
			a->order[norder++] = q;
		}
	}
	for (i = 0; i < norder; i++)
		a->seen[a->order[i]] = 0;
	if (near_full(a, norder))
		rc = write_runs(a, day, e);
	else
		rc = write_whole(a, norder, day, e);
	if (rc < 0)
		account(a);
	/* Durable, where asked, before the next batch is read. */
	for (i = 0; rc == 0 && a->sync && i < norder; i++) {
		ap = &a->parts[a->order[i]];
		if (fdatasync(ap->fd) < 0) {
			rc = tmq_fail_errno(e, "%s: partition %u: fdatasync",
			    a->topic->name, a->order[i]);
			undurable(a, i, norder);
		}
	}
	for (i = 0; i < norder; i++) {
		ap = &a->parts[a->order[i]];
		ap->len = ap->done = 0;
	}
	/* What the next look at the room would no longer find. */
	a->room = a->room > 2ULL * a->pending ? a->room - 2ULL * a->pending : 0;
	a->pending = 0;
	a->nlines = 0;
	return rc;
}

size_t
tmq_appender_pending(const struct tmq_appender *a)
{
	return a->pending;
}

void
tmq_appender_close(struct tmq_appender *a)
{
	unsigned p;

	if (a->parts == NULL)
		return;
	for (p = 0; p < a->topic->partitions; p++) {
		close_part(&a->parts[p]);
		free(a->parts[p].buf);
	}
	free(a->parts);
	free(a->toopen);
	free(a->order);
	free(a->seen);
	free(a->lines);
	tmq_dirlist_free(&a->dl);
	memset(a, 0, sizeof *a);
}
