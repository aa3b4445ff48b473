/* root.c: locating and opening the root (see root.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fdlimit.h"
#include "util/notice.h"
#include "store/root.h"
#include "store/rootrisk.h"

int
tmq_root_path(const char *opt, char **path, struct tmq_error *e)
{
	const char *env, *home;
	char *p;

	if (opt != NULL && *opt != '\0')
		p = strdup(opt);
	else if ((env = getenv("TMQ_ROOT")) != NULL && *env != '\0')
		p = strdup(env);
	else if ((env = getenv("XDG_DATA_HOME")) != NULL && *env == '/') {
		if (asprintf(&p, "%s/tmq", env) < 0)
			p = NULL;
	} else if ((home = getenv("HOME")) != NULL && *home != '\0') {
		if (asprintf(&p, "%s/.local/share/tmq", home) < 0)
			p = NULL;
	} else
		return tmq_fail(e, "no root: use -d DIR or set TMQ_ROOT");
	if (p == NULL)
		return tmq_fail(e, "out of memory");
	*path = p;
	return 0;
}

/* mkdir -p, for the default root under $HOME. */
static int
mkdirs(const char *path)
{
	char buf[4096], *s;

	if (strlen(path) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path);
	for (s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int
tmq_root_open(const char *path, int create, int *fd, struct tmq_error *e)
{
	static int warned;
	char risk[1024];
	int d;

	/* Every tool opens its root first: a reader of many partitions holds
	 * a descriptor for each, so the soft limit goes up to the hard one
	 * here, once, before any is needed. */
	tmq_fdlimit_raise();
	d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0 && errno == ENOENT && create) {
		if (mkdirs(path) < 0)
			return tmq_fail_errno(e, "%s: cannot create root", path);
		d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (d < 0) {
		if (errno == ENOENT)
			return tmq_fail_code(e, TMQ_ERR_NOROOT, "%s: no such "
			    "root (create a topic first, or use -d DIR)", path);
		return tmq_fail_errno(e, "%s", path);
	}
	/* Once a process (tmq-dump may open several). */
	if (!warned && tmq_root_risk(d, path, risk, sizeof risk)) {
		warned = 1;
		tmq_notice("%s", risk);
	}
	*fd = d;
	return 0;
}

int
tmq_root_fail_prefix(const char *opt, struct tmq_error *e)
{
	struct tmq_error pe;
	char *path;

	if (tmq_root_path(opt, &path, &pe) < 0)
		return -1;
	tmq_fail_prefix(e, "%s", path);
	free(path);
	return -1;
}

int
tmq_root_open_opt(const char *opt, int create, int *fd, struct tmq_error *e)
{
	char *path;
	int rc;

	if (tmq_root_path(opt, &path, e) < 0)
		return -1;
	rc = tmq_root_open(path, create, fd, e);
	free(path);
	return rc;
}
