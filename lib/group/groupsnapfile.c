/* groupsnapfile.c: the snapshot beside a group's log (see
 * groupsnapfile.h): reading it, proving the log it covers unchanged,
 * writing it.
 *
 * What proves the covered log unchanged, cheaply: files are only appended
 * to, so a log that only grew still has the covered files under the same
 * names, the same inodes, at least the covered length (exactly, for a file
 * before the last), with the same bytes.  Re-reading every covered byte
 * would cost what replaying does, so the bytes checked are the first 4 KiB
 * of the first file (its creation commit and first joins, with random
 * tags) and the last 4 KiB before the covered position.  A group deleted and
 * made again, a log restored from a backup, truncated, or replaced by a
 * rename fails one of these, inode numbers reused or not; what passes them
 * all is a log rewritten in place, with the same sizes, by hand: whoever can
 * do that can as well write the log itself.  Middle files are checked by
 * name only, so that a log of many days costs no more to check than a log
 * of one (a stat is a round trip on a network filesystem). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "store/dotdir.h"
#include "store/directread.h"
#include "group/groupsnap.h"
#include "group/groupsnapfile.h"
#include "store/replace.h"

#define SNAP_DIR TMQ_DOT_DIR
#define SNAP_MAX (512u << 20)	/* larger files are not snapshots of ours */

void
tmq_gsnap_name(char *out, size_t n)
{
	snprintf(out, n, TMQ_DOT_SNAP ".%lu", (unsigned long)geteuid());
}

void
tmq_gsnap_path(char *out, size_t n)
{
	snprintf(out, n, SNAP_DIR "/snapshot.%lu", (unsigned long)geteuid());
}

uint64_t
tmq_gsnap_every(void)
{
	const char *v = getenv("TMQ_SNAPSHOT_EVERY");
	unsigned long long n;
	char *end;

	if (v == NULL || *v < '0' || *v > '9')
		return TMQ_GSNAP_EVERY;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0')
		return TMQ_GSNAP_EVERY;
	return n;
}

/* XXH3 of the first (or last) TMQ_GSNAP_BLOCK bytes of the first len bytes
 * of fd, seeded with len. */
static int
hash_block(int fd, int how, uint64_t len, int last, uint64_t *h)
{
	unsigned char buf[TMQ_GSNAP_BLOCK];
	size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
	off_t at = last ? (off_t)(len - n) : 0;
	size_t got = 0;

	while (got < n) {
		ssize_t r = tmq_dr_pread(fd, how, buf + got, n - got,
		    at + (off_t)got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*h = XXH3_64bits_withSeed(buf, n, len);
	return 0;
}

/* Inode and size of an open file; -1 unless it is a regular file. */
static int
ino_size(int fd, uint64_t *ino, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	*ino = (uint64_t)st.st_ino;
	*size = (uint64_t)st.st_size;
	return 0;
}

static int
open_log_file(int logdirfd, const struct tmq_linereader *lr, size_t i,
    int *how)
{
	return tmq_dr_openat(logdirfd, lr->files[i].name, how, NULL);
}

/* Check the covered part of the log against pos, and seek lr to its end
 * (read_to, the offset there). */
static int
verify(int logdirfd, struct tmq_linereader *lr,
    const struct tmq_gsnap_pos *pos, uint64_t read_to, struct tmq_error *e)
{
	uint64_t ino, size, h;
	size_t i, last = pos->nfiles - 1;
	int fd, rc, how;

	if (lr->nfiles < pos->nfiles)
		return tmq_fail(e, "log files gone");
	for (i = 0; i < pos->nfiles; i++)
		if (lr->files[i].first != pos->firsts[i] ||
		    lr->files[i].day != pos->days[i])
			return tmq_fail(e, "log files differ");
	if (last > 0) {
		fd = open_log_file(logdirfd, lr, 0, &how);
		if (fd < 0)
			return tmq_fail_errno(e, "%s", lr->files[0].name);
		rc = ino_size(fd, &ino, &size) < 0 || ino != pos->first_ino ||
		    size != pos->first_len ||
		    hash_block(fd, how, size, 0, &h) < 0 ||
		    h != pos->first_hash;
		close(fd);
		if (rc)
			return tmq_fail(e, "first log file changed");
	}
	/* From here on, the reader's own descriptor: the bytes checked are
	 * those it goes on from. */
	if (tmq_lr_seek_byte(lr, last, pos->last_len, read_to, e) < 0)
		return -1;
	fd = lr->fd;
	if (ino_size(fd, &ino, &size) < 0 || ino != pos->last_ino ||
	    size < pos->last_len)
		return tmq_fail(e, "last log file changed");
	if (last == 0 && (hash_block(fd, lr->how, pos->first_len, 0, &h) < 0 ||
	    h != pos->first_hash))
		return tmq_fail(e, "log file changed");
	if (hash_block(fd, lr->how, pos->last_len, 1, &h) < 0 ||
	    h != pos->last_hash)
		return tmq_fail(e, "log changed");
	return 0;
}

/* The snapshot file, whole; NULL when there is none that could be ours,
 * with *refused set when the one there is not this user's alone (said,
 * and replaced). */
static unsigned char *
read_snapshot(int logdirfd, size_t *n, int *refused, struct tmq_error *e)
{
	struct stat st;
	unsigned char *buf;
	char name[64];
	size_t got = 0;
	int dfd, fd;

	*refused = 0;
	tmq_gsnap_name(name, sizeof name);

	dfd = tmq_dot_open(logdirfd, 0);
	if (dfd < 0) {
		tmq_fail_errno(e, "no snapshot");
		return NULL;
	}
	/* Not following links, not blocking on a FIFO someone put there. */
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK);
	close(dfd);
	if (fd < 0) {
		tmq_fail_errno(e, "no snapshot");
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 20 ||
	    (uint64_t)st.st_size > SNAP_MAX) {
		tmq_fail(e, "not a group snapshot");
		close(fd);
		return NULL;
	}
	/* Only one this user wrote, that no one else may write: a co-user
	 * may write the log, but what they write there is read as it is;
	 * a snapshot of theirs, sealed and plausible, could say what the
	 * log does not (groupsnapfile.h). */
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		tmq_fail(e, st.st_uid != geteuid() ? "not written by this user" :
		    "writable by other users");
		close(fd);
		*refused = 1;
		return NULL;
	}
	buf = malloc((size_t)st.st_size);
	while (buf != NULL && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			buf = NULL;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (buf == NULL)
		tmq_fail(e, "cannot read the snapshot");
	*n = got;
	return buf;
}

int
tmq_gsnap_load(int logdirfd, struct tmq_linereader *lr, struct tmq_gstate *s,
    struct tmq_error *e)
{
	struct tmq_gsnap_pos pos;
	struct tmq_gstate got;
	unsigned char *buf;
	size_t n;
	int rc, refused;

	if (s->read_to != 0 || s->nmembers != 0 || s->ncommitted != 0 ||
	    lr->nfiles == 0)
		return tmq_fail(e, "no snapshot for a state under way"), 0;
	buf = read_snapshot(logdirfd, &n, &refused, e);
	if (buf == NULL)
		return refused ? 2 : 0;
	tmq_gstate_init(&got, s->nparts);
	rc = tmq_gsnap_decode(buf, n, &got, &pos, e);
	free(buf);
	/* Sealed, so no accident, yet no log of ours leaves it. */
	if (rc == -2)
		return 2;
	if (rc < 0)
		return 0;
	if (got.nparts != s->nparts) {
		tmq_fail(e, "read with %u partitions, not %u", got.nparts,
		    s->nparts);
		tmq_gsnap_pos_free(&pos);
		tmq_gstate_free(&got);
		return 0;
	}
	if (verify(logdirfd, lr, &pos, got.read_to, e) < 0) {
		tmq_gsnap_pos_free(&pos);
		tmq_gstate_free(&got);
		/* Back to the start, for the full replay. */
		if (tmq_lr_seek(lr, 0, NULL, e) < 0)
			return -1;
		return 0;
	}
	tmq_gsnap_pos_free(&pos);
	tmq_gstate_free(s);
	*s = got;
	return 1;
}

int
tmq_gsnap_save(int logdirfd, struct tmq_linereader *lr,
    const struct tmq_gstate *s, struct tmq_error *e)
{
	struct tmq_gsnap_pos pos;
	unsigned char *buf = NULL;
	char name[64], shown[64];
	uint64_t size;
	size_t file, n, i;
	int dfd = -1, fd = -1, rc = -1, how = 0;

	memset(&pos, 0, sizeof pos);
	pos.nparts = s->nparts;
	if (tmq_lr_tell(lr, &file, &pos.last_len) < 0)
		return tmq_fail(e, "not at a line's start");
	pos.nfiles = (unsigned)file + 1;
	pos.firsts = malloc(pos.nfiles * sizeof *pos.firsts);
	pos.days = malloc(pos.nfiles * sizeof *pos.days);
	if (pos.firsts == NULL || pos.days == NULL) {
		tmq_fail(e, "out of memory");
		goto out;
	}
	for (i = 0; i < pos.nfiles; i++) {
		pos.firsts[i] = lr->files[i].first;
		pos.days[i] = lr->files[i].day;
	}
	if (ino_size(lr->fd, &pos.last_ino, &size) < 0 ||
	    hash_block(lr->fd, lr->how, pos.last_len, 1,
	    &pos.last_hash) < 0) {
		tmq_fail(e, "cannot read the log");
		goto out;
	}
	if (file == 0) {
		pos.first_ino = pos.last_ino;
		pos.first_len = pos.last_len;
		fd = lr->fd;
		how = lr->how;
	} else {
		fd = open_log_file(logdirfd, lr, 0, &how);
		if (fd < 0 || ino_size(fd, &pos.first_ino, &pos.first_len) < 0) {
			tmq_fail(e, "cannot read the log");
			goto out;
		}
	}
	if (hash_block(fd, how, pos.first_len, 0, &pos.first_hash) < 0) {
		tmq_fail(e, "cannot read the log");
		goto out;
	}
	if (fd != lr->fd)
		close(fd);
	fd = -1;
	if (tmq_gsnap_encode(s, &pos, &buf, &n, e) < 0)
		goto out;
	/* No reader would take it (read_snapshot). */
	if (n > SNAP_MAX) {
		tmq_fail(e, "a snapshot of %zu bytes is too large", n);
		goto out;
	}
	dfd = tmq_dot_open(logdirfd, 1);
	if (dfd < 0) {
		tmq_fail_errno(e, "%s", SNAP_DIR);
		goto out;
	}
	/* No fsync: a snapshot torn by a crash fails its checksum, and costs
	 * one full replay.  Writable by this user only (read_snapshot),
	 * whatever the umask or the directory's modes. */
	tmq_gsnap_name(name, sizeof name);
	tmq_gsnap_path(shown, sizeof shown);
	if (tmq_write_replace_mode(dfd, name, shown, 0644, buf, n, 0, e) < 0)
		goto out;
	rc = 0;
	/* What writers killed before their rename left behind (and those
	 * of the one snapshot of the group's that older tmq kept). */
	tmq_tmp_sweep(dfd, name);
	tmq_tmp_sweep(dfd, TMQ_DOT_SNAP);
out:
	if (fd >= 0 && fd != lr->fd)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(buf);
	tmq_gsnap_pos_free(&pos);
	return rc;
}
