/* pidlock.c: a lock file held for a process's life (see pidlock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/pidlock.h"
#include "store/regfile.h"
#include "store/replace.h"

#define TRIES 8
#define HOLDER_MAX 300

static void
whole_file(struct flock *fl, short type)
{
	memset(fl, 0, sizeof *fl);	/* l_pid must be 0 for OFD locks */
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
}

/* 0 locked, 1 another holds it, -1 with errno. */
static int
try_lock(int fd)
{
	struct flock fl;

	whole_file(&fl, F_WRLCK);
	while (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EACCES ? 1 : -1;
	}
	return 0;
}

/* Held by another (fd open for reading only): 1 held, 0 not, -1. */
static int
held(int fd)
{
	struct flock fl;

	whole_file(&fl, F_WRLCK);
	if (fcntl(fd, F_OFD_GETLK, &fl) < 0)
		return -1;
	return fl.l_type != F_UNLCK;
}

static int
same_file(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 &&
	    fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void
host_name(char *h, size_t sz)
{
	size_t i;

	if (gethostname(h, sz) < 0)
		h[0] = '\0';
	h[sz - 1] = '\0';
	for (i = 0; h[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789.-_", h[i]) == NULL)
			h[i] = '_';
	if (h[0] == '\0')
		snprintf(h, sz, "-");
}

/* "PID HOST\n" into the file we hold (best effort: it is a hint). */
static void
write_holder(int fd)
{
	char host[256], b[HOLDER_MAX];
	int n;

	host_name(host, sizeof host);
	n = snprintf(b, sizeof b, "%ld %s\n", (long)getpid(), host);
	if (ftruncate(fd, 0) == 0 && pwrite(fd, b, (size_t)n, 0) != n &&
	    ftruncate(fd, 0) < 0) {
		/* nothing more to undo: a holder unsaid is a hint lost */
	}
}

/* Who the file says holds it, checked strictly: "" when it does not say
 * so plainly. */
static void
read_holder(int fd, char *holder, size_t sz)
{
	char b[HOLDER_MAX + 1], host[256];
	ssize_t r;
	size_t i, d, h;

	holder[0] = '\0';
	r = pread(fd, b, HOLDER_MAX, 0);
	if (r <= 0)
		return;
	b[r] = '\0';
	for (d = 0; b[d] >= '0' && b[d] <= '9'; d++)
		;
	if (d == 0 || d > 10 || b[0] == '0' || b[d] != ' ')
		return;
	for (i = d + 1, h = 0; b[i] != '\0' && strchr("abcdefghijklmnopqrstuvw"
	    "xyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", b[i]) != NULL; i++)
		h++;
	if (h == 0 || h > 253 || b[i] != '\n' || b[i + 1] != '\0')
		return;
	b[i] = '\0';
	b[d] = '\0';
	host_name(host, sizeof host);
	if (strcmp(host, b + d + 1) == 0)
		snprintf(holder, sz, "pid %s", b);
	else
		snprintf(holder, sz, "pid %s on %s", b, b + d + 1);
}

static int
give_up(int dirfd, const char *tmp, int mine, int err, const char *shown,
    struct tmq_error *e)
{
	unlinkat(dirfd, tmp, 0);
	close(mine);
	errno = err;
	return tmq_fail_errno(e, "%s", shown);
}

int
tmq_pidlock_take(int dirfd, const char *name, const char *shown, int *fd,
    char *holder, size_t holdersz, struct tmq_error *e)
{
	char tmp[TMQ_TMP_NAME_MAX];
	int mine, there, r, i, err;

	*fd = -1;
	holder[0] = '\0';
	/* What a process killed before its rename left. */
	tmq_tmp_sweep(dirfd, name);
	if ((mine = tmq_tmp_create_mode(dirfd, name, shown, 0644, tmp, e)) < 0)
		return -1;
	if ((r = try_lock(mine)) != 0) {
		err = errno;
		unlinkat(dirfd, tmp, 0);
		close(mine);
		if (r > 0)
			return tmq_fail(e, "%s: its temporary %s was locked by "
			    "another process", shown, tmp);
		errno = err;
		return tmq_fail_errno(e, "%s: cannot be locked", shown);
	}
	write_holder(mine);
	for (i = 0; i < TRIES; i++) {
		if (tmq_rename_noreplace(dirfd, tmp, dirfd, name, 0) == 0) {
			if (same_file(dirfd, name, mine)) {
				*fd = mine;
				return 0;
			}
			close(mine);
			return tmq_fail(e, "%s: removed or replaced as soon as "
			    "made", shown);
		}
		if (errno != EEXIST)
			return give_up(dirfd, tmp, mine, errno, shown, e);
		/* One is there: held (by a live process), or left. */
		there = tmq_open_regular_as(dirfd, name, shown, O_RDWR, 0, e);
		if (there < 0 && e->code == TMQ_ERR_SYS && e->sys == ENOENT)
			continue;	/* gone meanwhile */
		if (there < 0 && e->code == TMQ_ERR_SYS && e->sys == EACCES) {
			/* Another user's: looked at, and replaced when it is
			 * nobody's any more. */
			there = tmq_open_regular_as(dirfd, name, shown,
			    O_RDONLY, 0, e);
			if (there < 0)
				goto failed;
			r = held(there);
			err = errno;
			if (r != 0) {
				if (r > 0)
					read_holder(there, holder, holdersz);
				close(there);
				unlinkat(dirfd, tmp, 0);
				close(mine);
				if (r > 0)
					return 1;
				errno = err;
				return tmq_fail_errno(e, "%s: cannot be locked",
				    shown);
			}
			close(there);
			if (renameat(dirfd, tmp, dirfd, name) < 0)
				return give_up(dirfd, tmp, mine, errno, shown, e);
			if (same_file(dirfd, name, mine)) {
				*fd = mine;
				return 0;
			}
			close(mine);
			return tmq_fail(e, "%s: removed or replaced as soon as "
			    "made", shown);
		}
		if (there < 0)
			goto failed;
		r = try_lock(there);
		if (r == 1) {
			read_holder(there, holder, holdersz);
			close(there);
			unlinkat(dirfd, tmp, 0);
			close(mine);
			return 1;
		}
		if (r < 0) {
			err = errno;
			close(there);
			return give_up(dirfd, tmp, mine, err, shown, e);
		}
		/* Left by a process that is gone: ours now, if it is still
		 * the one under the name. */
		if (same_file(dirfd, name, there)) {
			write_holder(there);
			unlinkat(dirfd, tmp, 0);
			close(mine);
			*fd = there;
			return 0;
		}
		close(there);
	}
	unlinkat(dirfd, tmp, 0);
	close(mine);
	return tmq_fail(e, "%s: replaced again and again while being locked",
	    shown);
failed:
	unlinkat(dirfd, tmp, 0);
	close(mine);
	return -1;
}

void
tmq_pidlock_drop(int dirfd, const char *name, int fd)
{
	if (fd < 0)
		return;
	if (same_file(dirfd, name, fd))
		unlinkat(dirfd, name, 0);
	close(fd);
}
