/* topicown.c: a topic directory's own entries, and removing only those
 * (see topicown.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/dirlist.h"
#include "store/dotdir.h"
#include "util/escape.h"
#include "store/topicown.h"

#define DOT TMQ_DOT_DIR
/* Passes over a directory before giving up on emptying it: a listing
 * taken while its entries go may miss some (then the next pass sees
 * them); a co-user who keeps adding our kind of name only costs passes. */
#define PASSES 4

int
tmq_own_partition_name(const char *name)
{
	size_t n = strlen(name), stem = n, i;
	const char *dot = strrchr(name, '.');

	/* Path.stem: the name less its last suffix, where the dot is neither
	 * the first nor the last character. */
	if (dot != NULL && dot > name && (size_t)(dot - name) < n - 1)
		stem = (size_t)(dot - name);
	for (i = 0; i < stem && name[i] != '-'; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	/* str(partition): digits, no leading zero. */
	return i > 0 && (name[0] != '0' || i == 1);
}

static void
add(struct tmq_foreign *f, const char *prefix, const char *name)
{
	char shown[68];
	size_t len = strlen(f->shown);
	int w;

	f->n++;
	if (f->full)
		return;
	tmq_escape_name(name, shown, sizeof shown);
	w = snprintf(f->shown + len, sizeof f->shown - len, "%s%s%s",
	    len > 0 ? ", " : "", prefix, shown);
	if (w >= 0 && (size_t)w < sizeof f->shown - len) {
		f->listed++;
		return;
	}
	/* No room for this one: the list ends before it. */
	f->shown[len] = '\0';
	f->full = 1;
}

const char *
tmq_foreign_text(const struct tmq_foreign *f, char *buf, size_t sz)
{
	if (f->listed >= f->n)
		snprintf(buf, sz, "%s", f->shown);
	else if (f->listed == 0)
		snprintf(buf, sz, "%u entries", f->n);
	else
		snprintf(buf, sz, "%s and %u more", f->shown,
		    f->n - f->listed);
	return buf;
}

/* 1 when the entry is a directory, 0 when not, -1 when it is gone. */
static int
is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? -1 : 0;
	return S_ISDIR(st.st_mode) != 0;
}

static DIR *
list(int dirfd)
{
	int fd = dup(dirfd);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return NULL;
	}
	rewinddir(d);
	return d;
}

static int
dot(const struct dirent *de)
{
	return strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
}

/* The entries of .tmq (a directory, open as fd) that are not ours. */
static int
scan_dot(int fd, struct tmq_foreign *f, struct tmq_error *e)
{
	struct dirent *de;
	DIR *d = list(fd);
	int got;

	if (d == NULL)
		return tmq_fail_errno(e, "cannot read " DOT);
	while ((got = tmq_dir_next(d, &de)) > 0) {
		if (dot(de))
			continue;
		if (is_dir(fd, de) == 1)
			add(f, DOT "/", de->d_name);
	}
	if (got < 0)
		tmq_fail_errno(e, "cannot read " DOT);
	closedir(d);
	return got < 0 ? -1 : 0;
}

int
tmq_own_scan(int dirfd, struct tmq_foreign *f, struct tmq_error *e)
{
	struct dirent *de;
	DIR *d = list(dirfd);
	int fd, rc = 0, got = 0;

	memset(f, 0, sizeof *f);
	if (d == NULL)
		return tmq_fail_errno(e, "cannot read the directory");
	while (rc == 0 && (got = tmq_dir_next(d, &de)) > 0) {
		if (dot(de))
			continue;
		if (strcmp(de->d_name, DOT) == 0) {
			if (is_dir(dirfd, de) != 1)
				continue;	/* a file or link: ours */
			fd = tmq_dot_open(dirfd, 0);
			if (fd < 0) {
				if (errno != ENOENT && errno != ENOTDIR &&
				    errno != ELOOP)
					rc = tmq_fail_errno(e,
					    "cannot open " DOT);
				continue;
			}
			rc = scan_dot(fd, f, e);
			close(fd);
			continue;
		}
		if (!tmq_own_partition_name(de->d_name) ||
		    is_dir(dirfd, de) == 1)
			add(f, "", de->d_name);
	}
	if (rc == 0 && got < 0)
		rc = tmq_fail_errno(e, "cannot read the directory");
	closedir(d);
	return rc;
}

/* Say which name could not be removed: "SHOWN/NAME: strerror". */
static int
cannot(struct tmq_error *e, const char *shown, const char *prefix,
    const char *name)
{
	char nm[68];

	return tmq_fail_errno(e, "cannot remove %s/%s%s", shown, prefix,
	    tmq_escape_name(name, nm, sizeof nm));
}

/* Unlink name in dirfd, never a directory: 1 removed (or already gone),
 * 0 a directory (foreign), -1 error. */
static int
unlink_file(int dirfd, const char *name)
{
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 1;
	/* Linux says EISDIR for a directory, POSIX allows EPERM. */
	return errno == EISDIR || errno == EPERM ? 0 : -1;
}

/* Empty .tmq of our files and remove it; foreign entries keep it. */
static int
remove_dot(int topicfd, const char *shown, struct tmq_foreign *f,
    unsigned *removed, struct tmq_error *e)
{
	struct dirent *de;
	unsigned before = f->n;
	DIR *d;
	int fd, r, rc = 0, got = 0;

	fd = tmq_dot_open(topicfd, 0);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		/* Swapped for a file or a link since: unlink that. */
		if (errno == ENOTDIR || errno == ELOOP) {
			r = unlink_file(topicfd, DOT);
			if (r < 0)
				return cannot(e, shown, "", DOT);
			*removed += r;
			return 0;
		}
		return cannot(e, shown, "", DOT);
	}
	d = list(fd);
	if (d == NULL) {
		rc = cannot(e, shown, "", DOT);
		close(fd);
		return rc;
	}
	while (rc == 0 && (got = tmq_dir_next(d, &de)) > 0) {
		if (dot(de))
			continue;
		r = unlink_file(fd, de->d_name);
		if (r < 0)
			rc = cannot(e, shown, DOT "/", de->d_name);
		else if (r == 0)
			add(f, DOT "/", de->d_name);
		else
			(*removed)++;
	}
	if (rc == 0 && got < 0)
		rc = tmq_fail_errno(e, "cannot read %s/" DOT, shown);
	closedir(d);
	close(fd);
	if (rc == 0 && f->n == before) {
		if (unlinkat(topicfd, DOT, AT_REMOVEDIR) == 0)
			(*removed)++;
		else if (errno != ENOENT && errno != ENOTEMPTY &&
		    errno != EEXIST)
			rc = cannot(e, shown, "", DOT);
	}
	return rc;
}

/* One pass over the topic directory fd: remove our entries, count the
 * foreign ones into f. */
static int
remove_pass(int fd, const char *shown, struct tmq_foreign *f,
    unsigned *removed, struct tmq_error *e)
{
	struct dirent *de;
	DIR *d = list(fd);
	int r, rc = 0, got = 0;

	if (d == NULL)
		return tmq_fail_errno(e, "cannot read %s", shown);
	while (rc == 0 && (got = tmq_dir_next(d, &de)) > 0) {
		if (dot(de))
			continue;
		if (strcmp(de->d_name, DOT) == 0) {
			r = unlink_file(fd, DOT);
			if (r < 0)
				rc = cannot(e, shown, "", DOT);
			else if (r == 0)
				rc = remove_dot(fd, shown, f, removed, e);
			else
				(*removed)++;
			continue;
		}
		if (!tmq_own_partition_name(de->d_name)) {
			add(f, "", de->d_name);
			continue;
		}
		r = unlink_file(fd, de->d_name);
		if (r < 0)
			rc = cannot(e, shown, "", de->d_name);
		else if (r == 0)
			add(f, "", de->d_name);
		else
			(*removed)++;
	}
	if (rc == 0 && got < 0)
		rc = tmq_fail_errno(e, "cannot read %s", shown);
	closedir(d);
	return rc;
}

int
tmq_own_remove(int parentfd, const char *name, const char *shown,
    struct tmq_foreign *f, struct tmq_error *e)
{
	unsigned pass, removed;
	int fd, rc = 0;

	memset(f, 0, sizeof *f);
	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return tmq_fail_errno(e, "cannot open %s", shown);
	}
	for (pass = 0; pass < PASSES; pass++) {
		memset(f, 0, sizeof *f);
		removed = 0;
		if (remove_pass(fd, shown, f, &removed, e) < 0) {
			rc = -1;
			break;
		}
		if (unlinkat(parentfd, name, AT_REMOVEDIR) == 0 ||
		    errno == ENOENT)
			break;
		if (errno != ENOTEMPTY && errno != EEXIST) {
			rc = tmq_fail_errno(e, "cannot remove %s", shown);
			break;
		}
		if (f->n > 0) {
			rc = 1;
			break;
		}
		if (pass + 1 == PASSES) {
			errno = ENOTEMPTY;
			rc = tmq_fail_errno(e, "cannot remove %s", shown);
		}
	}
	close(fd);
	return rc;
}
