/* prune.c: retention (see prune.h).  Readers that hold a pruned file open
 * read on to its end (the inode lives while open); readers that seek to a
 * pruned offset start at the first offset left and say so. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "directread.h"
#include "holes.h"
#include "names.h"
#include "partindex.h"
#include "modes.h"
#include "prune.h"
#include "regfile.h"

/* Copy then unlink, for an archive on another filesystem.  Holes stay
 * holes (holes.h): a sparse file costs what its data costs to copy, and
 * its copy what its data takes. */
static int
copy_file(int fromdir, const char *name, int todir)
{
	char buf[65536];
	struct tmq_holes hole;
	off_t size = 0;
	ssize_t r;
	int in, out, rc = 0, sparse = 0;

	in = tmq_open_regular(fromdir, name, O_RDONLY, 0, NULL);
	if (in < 0)
		return -1;
	out = openat(todir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0666);
	if (out < 0) {
		close(in);
		return -1;
	}
	tmq_mode_follow(todir, out);
	while ((r = tmq_read_data(in, 0, &sparse, buf, sizeof buf, &hole)) > 0 ||
	    (r == 0 && hole.bytes > 0)) {
		if (r == 0) {
			size += (off_t)hole.bytes;
			if (lseek(out, size, SEEK_SET) < 0)
				break;
			continue;
		}
		if (write(out, buf, (size_t)r) != r)
			break;
		size += r;
	}
	if (r != 0 || hole.bytes > 0 || ftruncate(out, size) < 0 ||
	    fsync(out) < 0)
		rc = -1;
	close(in);
	if (close(out) < 0)
		rc = -1;
	if (rc < 0) {
		int saved = errno;

		unlinkat(todir, name, 0);
		errno = saved;
	}
	return rc;
}

/* The archive is a root of its own: DIR/NAME/ for the files and a copy
 * of NAME.twc, so that every tool reads it as it reads the original. */
static int
open_archive(const char *dir, const struct tmq_topic *t, struct tmq_error *e)
{
	char def[TMQ_NAME_MAX + 8];
	struct stat top, st;
	int fd, tfd;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return tmq_fail_errno(e, "%s", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return tmq_fail_errno(e, "%s", dir);
	if (fstat(t->dirfd, &top) < 0) {
		tmq_fail_errno(e, "%s", t->name);
		close(fd);
		return -1;
	}
	/* The topic's own directory would get a topic inside it. */
	if (fstat(fd, &st) == 0 && st.st_dev == top.st_dev &&
	    st.st_ino == top.st_ino) {
		close(fd);
		return tmq_fail(e, "%s: the archive cannot be the topic's "
		    "directory", dir);
	}
	if (tmq_mkdir_follow(fd, t->name) < 0 && errno != EEXIST) {
		tmq_fail_errno(e, "%s/%s", dir, t->name);
		close(fd);
		return -1;
	}
	snprintf(def, sizeof def, "%s.twc", t->name);
	if (faccessat(fd, def, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
	    tmq_topic_write_def(fd, t, e) < 0) {
		close(fd);
		return -1;
	}
	tfd = openat(fd, t->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    O_NOFOLLOW);
	if (tfd < 0)
		tmq_fail_errno(e, "%s/%s", dir, t->name);
	close(fd);
	/* The topic's own root: each file would be moved onto itself, and
	 * prune would say it pruned what is still there. */
	if (tfd >= 0 && fstat(tfd, &st) == 0 && st.st_dev == top.st_dev &&
	    st.st_ino == top.st_ino) {
		close(tfd);
		return tmq_fail(e, "%s: the archive cannot be the topic's own "
		    "root", dir);
	}
	return tfd;
}

int
tmq_prune(const struct tmq_topic *t, const struct tmq_prune_opts *o,
    struct tmq_error *e)
{
	struct tmq_pfile *files;
	size_t n, i;
	int afd = -1, rc = 0;

	/* A group's old days hold its commits and members: pruned, the group
	 * would read its topic again from the start. */
	if (tmq_is_group_topic(t->name))
		return tmq_fail(e, "%s: a consumer group's log, not a topic",
		    t->name);
	if (tmq_pfiles_list(t->dirfd, -1, &files, &n, e) < 0)
		return -1;
	if (o->archive != NULL && !o->dry_run &&
	    (afd = open_archive(o->archive, t, e)) < 0) {
		free(files);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct tmq_pfile *pf = &files[i];

		/* The list is sorted by partition then FIRST: the newest
		 * file of a partition is the last before the next one. */
		if (i + 1 == n || files[i + 1].partition != pf->partition)
			continue;
		if (pf->day >= o->before_day)
			continue;
		if (o->keep != NULL && o->keep(o->arg, pf, files[i + 1].first))
			continue;
		if (!o->dry_run) {
			if (afd >= 0) {
				if (renameat(t->dirfd, pf->name, afd, pf->name) < 0 &&
				    (errno != EXDEV ||
				    copy_file(t->dirfd, pf->name, afd) < 0 ||
				    unlinkat(t->dirfd, pf->name, 0) < 0)) {
					rc = tmq_fail_errno(e, "%s: cannot archive "
					    "%s", t->name, pf->name);
					break;
				}
			} else if (unlinkat(t->dirfd, pf->name, 0) < 0 &&
			    errno != ENOENT) {
				rc = tmq_fail_errno(e, "%s: cannot remove %s",
				    t->name, pf->name);
				break;
			}
		}
		if (o->each != NULL)
			o->each(o->arg, pf);
	}
	/* The indexes of the files gone (partindex.h), and of those a
	 * killed run removed: no index is left for a file that is not. */
	if (!o->dry_run && tmq_pidx_sweep(t->dirfd) < 0 && rc == 0)
		rc = tmq_fail_errno(e, "%s: cannot remove the indexes of the "
		    "files pruned", t->name);
	if (afd >= 0)
		close(afd);
	free(files);
	return rc;
}
