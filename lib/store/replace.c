/* replace.c: a file put in place whole (see replace.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "modes.h"
#include "replace.h"

#define TMP_TRIES 8
#define TMP_AGE 60		/* seconds: a writer takes milliseconds */

int
tmq_tmp_create(int dirfd, const char *name, const char *shown,
    char tmp[TMQ_TMP_NAME_MAX], struct tmq_error *e)
{
	uint64_t rnd;
	int fd = -1, i;

	for (i = 0; i < TMP_TRIES; i++) {
		if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
			rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			    ((uint64_t)i * 2654435761u);
		snprintf(tmp, TMQ_TMP_NAME_MAX, ".%.200s.%ld.%016llx.tmp", name,
		    (long)getpid(), (unsigned long long)rnd);
		fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return tmq_fail_errno(e, "%s", shown);
	tmq_mode_follow(dirfd, fd);
	return fd;
}

int
tmq_tmp_commit(int dirfd, const char *tmp, const char *name,
    const char *shown, struct tmq_error *e)
{
	int err;

	if (renameat(dirfd, tmp, dirfd, name) == 0)
		return 0;
	err = errno;
	unlinkat(dirfd, tmp, 0);
	errno = err;
	return tmq_fail_errno(e, "%s", shown);
}

int
tmq_write_replace(int dirfd, const char *name, const char *shown,
    const void *buf, size_t n, int sync, struct tmq_error *e)
{
	char tmp[TMQ_TMP_NAME_MAX];
	const char *p = buf;
	size_t off = 0;
	int fd, err;

	if ((fd = tmq_tmp_create(dirfd, name, shown, tmp, e)) < 0)
		return -1;
	while (off < n) {
		ssize_t w = write(fd, p + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			break;
		}
		off += (size_t)w;
	}
	if (off != n || (sync && fsync(fd) < 0)) {
		err = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = err;
		return tmq_fail_errno(e, "%s", shown);
	}
	if (close(fd) < 0) {
		err = errno;
		unlinkat(dirfd, tmp, 0);
		errno = err;
		return tmq_fail_errno(e, "%s", shown);
	}
	return tmq_tmp_commit(dirfd, tmp, name, shown, e);
}

/* Is s a temporary of name (of any, when NULL): "[.]NAME.PID.HEX.tmp"?
 * (The dot is optional for those of older tmq versions.) */
static int
is_tmp(const char *s, const char *name)
{
	size_t n = strlen(s), i, hex, pid;

	if (n < 4 || strcmp(s + n - 4, ".tmp") != 0)
		return 0;
	i = n - 4;
	for (hex = 0; i > 0 && strchr("0123456789abcdef", s[i - 1]) != NULL &&
	    s[i - 1] != '\0'; i--)
		hex++;
	if (hex == 0 || i == 0 || s[--i] != '.')
		return 0;
	for (pid = 0; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
		pid++;
	if (pid == 0 || i == 0 || s[--i] != '.')
		return 0;
	/* s[0..i) is the name, with or without its dot. */
	if (s[0] == '.') {
		s++;
		i--;
	}
	if (i == 0)
		return 0;
	return name == NULL || (strlen(name) >= i &&
	    strncmp(s, name, i) == 0 && (name[i] == '\0' || i == 200));
}

void
tmq_tmp_sweep(int dirfd, const char *name)
{
	struct dirent *de;
	struct flock fl;
	struct stat st;
	time_t now = time(NULL);
	DIR *d;
	int fd = dup(dirfd), f;

	if (fd < 0)
		return;
	if (lseek(fd, 0, SEEK_SET) < 0 || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!is_tmp(de->d_name, name))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_mtime + TMP_AGE > now)
			continue;
		/* Not one a writer still holds locked, to rename it (a lock
		 * file on its way in). */
		f = openat(dirfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
		if (f < 0)
			continue;
		memset(&fl, 0, sizeof fl);
		fl.l_type = F_RDLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(f, F_OFD_GETLK, &fl) == 0 ? fl.l_type == F_UNLCK :
		    errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP)
			unlinkat(dirfd, de->d_name, 0);	/* (no locks here) */
		close(f);
	}
	closedir(d);
	/* The dup shared dirfd's offset: give it back at the start. */
	(void)lseek(dirfd, 0, SEEK_SET);
}
