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

#include "store/dirlist.h"
#include "store/modes.h"
#include "store/dotdir.h"
#include "store/replace.h"

#define TMP_TRIES 8
#define TMP_AGE 60		/* seconds: a writer takes milliseconds */

/* mode 0: 0666 and the directory's rule (modes.h). */
static int
tmp_create(int dirfd, const char *name, const char *shown, mode_t mode,
    char tmp[TMQ_TMP_NAME_MAX], struct tmq_error *e)
{
	uint64_t rnd;
	int fd = -1, i;

	for (i = 0; i < TMP_TRIES; i++) {
		if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
			rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			    ((uint64_t)i * 2654435761u);
		snprintf(tmp, TMQ_TMP_NAME_MAX, ".%.200s.%ld.%016llx" TMQ_DOT_TMP, name,
		    (long)getpid(), (unsigned long long)rnd);
		fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode ? mode : 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return tmq_fail_errno(e, "%s", shown);
	if (mode)
		(void)fchmod(fd, mode);
	else
		tmq_mode_follow(dirfd, fd);
	return fd;
}

int
tmq_tmp_create(int dirfd, const char *name, const char *shown,
    char tmp[TMQ_TMP_NAME_MAX], struct tmq_error *e)
{
	return tmp_create(dirfd, name, shown, 0, tmp, e);
}

int
tmq_tmp_create_mode(int dirfd, const char *name, const char *shown,
    mode_t mode, char tmp[TMQ_TMP_NAME_MAX], struct tmq_error *e)
{
	return tmp_create(dirfd, name, shown, mode, tmp, e);
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
tmq_rename_noreplace(int fromfd, const char *from, int tofd, const char *to,
    int or_replace)
{
	if (renameat2(fromfd, from, tofd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -1;
	if (linkat(fromfd, from, tofd, to, 0) == 0)
		return unlinkat(fromfd, from, 0) < 0 && errno != ENOENT ? -1 : 0;
	if (!or_replace || (errno != EPERM && errno != EOPNOTSUPP &&
	    errno != ENOSYS && errno != EMLINK))
		return -1;
	return renameat(fromfd, from, tofd, to);
}

int
tmq_write_replace(int dirfd, const char *name, const char *shown,
    const void *buf, size_t n, int sync, struct tmq_error *e)
{
	return tmq_write_replace_mode(dirfd, name, shown, (mode_t)-1, buf, n,
	    sync, e);
}

int
tmq_write_replace_mode(int dirfd, const char *name, const char *shown,
    mode_t mode, const void *buf, size_t n, int sync, struct tmq_error *e)
{
	char tmp[TMQ_TMP_NAME_MAX];
	const char *p = buf;
	size_t off = 0;
	int fd, err;

	fd = mode == (mode_t)-1 ? tmq_tmp_create(dirfd, name, shown, tmp, e) :
	    tmq_tmp_create_mode(dirfd, name, shown, mode, tmp, e);
	if (fd < 0)
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
	if (tmq_tmp_commit(dirfd, tmp, name, shown, e) < 0)
		return -1;
	if (sync && fsync(dirfd) < 0)
		return tmq_fail_errno(e, "%s: the directory", shown);
	return 0;
}

/* Is s a temporary of name (of any, when NULL): "[.]NAME.PID.HEX.tmp"?
 * (The dot is optional for those of older tmq versions.) */
int
tmq_tmp_is(const char *s, const char *name)
{
	size_t n = strlen(s), i, hex, pid;

	if (n < 4 || strcmp(s + n - 4, TMQ_DOT_TMP) != 0)
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
tmq_tmp_drop_stale(int dirfd, const char *entry)
{
	struct flock fl;
	struct stat st;
	int f;

	if (fstatat(dirfd, entry, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_mtime + TMP_AGE > time(NULL))
		return;
	/* Not one a writer still holds locked, to rename it (a lock file on
	 * its way in). */
	f = openat(dirfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (f < 0)
		return;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(f, F_OFD_GETLK, &fl) == 0 ? fl.l_type == F_UNLCK :
	    errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP)
		unlinkat(dirfd, entry, 0);	/* (no locks here) */
	close(f);
}

void
tmq_tmp_sweep(int dirfd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd = dup(dirfd);

	if (fd < 0)
		return;
	if (lseek(fd, 0, SEEK_SET) < 0 || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	/* (A read that fails ends the sweep: what it did not see stays,
	 * for the next one; nothing is concluded from its absence.) */
	while (tmq_dir_next(d, &de) > 0)
		if (tmq_tmp_is(de->d_name, name))
			tmq_tmp_drop_stale(dirfd, de->d_name);
	closedir(d);
	/* The dup shared dirfd's offset: give it back at the start. */
	(void)lseek(dirfd, 0, SEEK_SET);
}
