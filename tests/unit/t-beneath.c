/* t-beneath.c: lib/store/beneath, in a scratch directory with planted links:
 * a link as a directory on the way or as the last component, "..", an
 * absolute path and a plain path, through openat2 and through the walk
 * that stands in for it; nothing is ever created where a link points. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/beneath.h"
#include "tap.h"

typedef int (*opener)(int, const char *, int, mode_t);

static void
check(opener f, const char *how, int dfd, const char *outside)
{
	char made[4096];
	int fd;

	fd = f(dfd, "real/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	ok(fd >= 0, "%s: a plain path opens", how);
	if (fd >= 0)
		close(fd);
	fd = f(dfd, "real/lock", O_RDONLY | O_CLOEXEC, 0);
	ok(fd >= 0, "%s: and opens again without O_CREAT", how);
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = f(dfd, "link/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	ok(fd < 0 && errno == ELOOP, "%s: a linked directory on the way: "
	    "ELOOP (%s)", how, strerror(errno));
	snprintf(made, sizeof made, "%s/lock", outside);
	ok(access(made, F_OK) < 0, "%s: nothing made where it points", how);
	errno = 0;
	fd = f(dfd, "real/last", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	ok(fd < 0 && errno == ELOOP, "%s: a dangling link as the last "
	    "component: ELOOP (%s)", how, strerror(errno));
	snprintf(made, sizeof made, "%s/last", outside);
	ok(access(made, F_OK) < 0, "%s: nothing made where it points", how);
	errno = 0;
	fd = f(dfd, "../in/real/lock", O_RDONLY | O_CLOEXEC, 0);
	ok(fd < 0 && errno == EXDEV, "%s: \"..\" above the directory is refused (%s)", how,
	    strerror(errno));
	errno = 0;
	fd = f(dfd, "/etc/passwd", O_RDONLY | O_CLOEXEC, 0);
	ok(fd < 0 && errno == EXDEV, "%s: an absolute path is refused (%s)",
	    how, strerror(errno));
}

int
main(void)
{
	char tmpl[] = "/tmp/t-beneath.XXXXXX", outside[4096], path[4096];
	int dfd, fd;

	if (mkdtemp(tmpl) == NULL)
		return perror("mkdtemp"), 99;
	snprintf(outside, sizeof outside, "%s/outside", tmpl);
	snprintf(path, sizeof path, "%s/in", tmpl);
	if (mkdir(outside, 0700) < 0 || mkdir(path, 0700) < 0)
		return perror("mkdir"), 99;
	dfd = open(path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || mkdirat(dfd, "real", 0700) < 0 ||
	    symlinkat(outside, dfd, "link") < 0)
		return perror("setup"), 99;
	if (snprintf(path, sizeof path, "%s/last", outside) >=
	    (int)sizeof path || symlinkat(path, dfd, "real/last") < 0)
		return perror("symlinkat"), 99;

	check(tmq_open_beneath, "openat2 or walk", dfd, outside);
	if (unlinkat(dfd, "real/lock", 0) < 0)
		return perror("unlink"), 99;
	check(tmq_open_beneath_walk, "walk", dfd, outside);

	fd = tmq_subdir_beneath(dfd, "made", 1, 0700);
	ok(fd >= 0, "tmq_subdir_beneath makes a directory");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = tmq_subdir_beneath(dfd, "link", 1, 0700);
	ok(fd < 0 && (errno == ELOOP || errno == ENOTDIR),
	    "tmq_subdir_beneath does not open a link (%s)", strerror(errno));

	snprintf(path, sizeof path, "rm -rf '%s'", tmpl);
	if (system(path) != 0)
		diag("could not remove %s", tmpl);
	return done_testing();
}
