/* liveness.c: member locks and what they say (see liveness.h).
 *
 * OFD locks, not classic fcntl locks: they belong to the open file, not
 * the process, so a probe in the same process still sees a member's lock
 * (tests and tools run several in one process), and closing some other
 * descriptor of the file does not drop it. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "group.h"
#include "liveness.h"
#include "modes.h"

static void
live_name(uint64_t tag, char *buf, size_t sz)
{
	snprintf(buf, sz, "live.%016llx", (unsigned long long)tag);
}

/* The log's .tmq, never through a symbolic link (beneath.h). */
static int
dot_dir(int logdirfd, int create)
{
	int fd = tmq_subdir_beneath(logdirfd, ".tmq", create, 0777);

	/* Made with the directory's modes (modes.h). */
	if (fd >= 0 && create)
		tmq_mode_follow(logdirfd, fd);
	return fd;
}

static void
whole_file(struct flock *fl, short type)
{
	memset(fl, 0, sizeof *fl);
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
}

int
tmq_live_hold(int logdirfd, uint64_t tag, int *fd, struct tmq_error *e)
{
	struct flock fl;
	char name[64];
	int dfd;

	*fd = -1;
	live_name(tag, name, sizeof name);
	if ((dfd = dot_dir(logdirfd, 1)) < 0) {
		struct stat st;

		if ((errno == ENOTDIR || errno == ELOOP) &&
		    fstatat(logdirfd, ".tmq", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			return tmq_fail(e, ".tmq is a symbolic link (not "
			    "followed)");
		return tmq_fail_errno(e, ".tmq");
	}
	*fd = openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0666);
	if (*fd < 0) {
		tmq_fail_errno(e, ".tmq/%s", name);
		close(dfd);
		return -1;
	}
	tmq_mode_follow(dfd, *fd);
	whole_file(&fl, F_WRLCK);
	if (fcntl(*fd, F_OFD_SETLK, &fl) < 0) {
		/* No locks here (ENOLCK, EINVAL): an unlocked file would
		 * read as a dead member, so leave none. */
		unlinkat(dfd, name, 0);
		close(*fd);
		*fd = -1;
	}
	close(dfd);
	return 0;
}

void
tmq_live_release(int logdirfd, uint64_t tag, int fd)
{
	char name[64];
	int dfd;

	if (fd < 0)
		return;
	live_name(tag, name, sizeof name);
	if ((dfd = dot_dir(logdirfd, 0)) >= 0) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
	close(fd);
}

static enum tmq_liveness
probe_in(int dfd, uint64_t tag)
{
	struct flock fl;
	char name[64];
	int fd;

	live_name(tag, name, sizeof name);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return TMQ_LIVE_UNKNOWN;
	whole_file(&fl, F_WRLCK);
	if (fcntl(fd, F_OFD_GETLK, &fl) < 0) {
		close(fd);
		return TMQ_LIVE_UNKNOWN;
	}
	close(fd);
	return fl.l_type == F_UNLCK ? TMQ_LIVE_DEAD : TMQ_LIVE_YES;
}

enum tmq_liveness
tmq_live_probe(int logdirfd, uint64_t tag)
{
	enum tmq_liveness l;
	int dfd;

	if ((dfd = dot_dir(logdirfd, 0)) < 0)
		return TMQ_LIVE_UNKNOWN;
	l = probe_in(dfd, tag);
	close(dfd);
	return l;
}

static void
forget_in(int dfd, uint64_t tag)
{
	char name[64];

	live_name(tag, name, sizeof name);
	if (probe_in(dfd, tag) == TMQ_LIVE_DEAD)
		unlinkat(dfd, name, 0);
}

void
tmq_live_forget(int logdirfd, uint64_t tag)
{
	int dfd;

	if ((dfd = dot_dir(logdirfd, 0)) < 0)
		return;
	forget_in(dfd, tag);
	close(dfd);
}

static const struct tmq_offer *
find_offer(const struct tmq_offer *o, unsigned n, uint32_t id)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (o[i].member == id)
			return &o[i];
	return NULL;
}

void
tmq_live_sweep(const struct tmq_group *g)
{
	struct dirent *d;
	DIR *dir;
	int fd;

	if ((fd = dot_dir(g->log.dirfd, 0)) < 0)
		return;
	dir = fdopendir(fd);
	if (dir == NULL) {
		close(fd);
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		unsigned long long tag;
		unsigned i;
		char *end;
		int holds = 0;

		if (strncmp(d->d_name, "live.", 5) != 0)
			continue;
		errno = 0;
		tag = strtoull(d->d_name + 5, &end, 16);
		if (errno != 0 || *end != '\0' || end == d->d_name + 5)
			continue;
		for (i = 0; i < g->nmembers && !holds; i++) {
			const struct tmq_gmember *m = &g->members[i];
			const struct tmq_offer *o;

			if (!m->claimed || m->tag != tag)
				continue;
			o = find_offer(g->assigned, g->nassigned, m->id);
			holds = o != NULL && o->ngot > 0;
		}
		if (!holds)
			forget_in(dirfd(dir), (uint64_t)tag);
	}
	closedir(dir);
}

enum tmq_liveness
tmq_live_member(const struct tmq_group *g, uint32_t id)
{
	unsigned i;

	for (i = 0; i < g->nmembers; i++)
		if (g->members[i].id == id)
			return g->members[i].claimed ?
			    tmq_live_probe(g->log.dirfd, g->members[i].tag) :
			    TMQ_LIVE_UNKNOWN;
	return TMQ_LIVE_UNKNOWN;
}

void
tmq_live_pending(const struct tmq_group *g, int has_self, uint32_t self,
    unsigned *alive, unsigned *unknown)
{
	unsigned i;

	*alive = *unknown = 0;
	if (!g->rebalancing)
		return;
	for (i = 0; i < g->nmembers; i++) {
		const struct tmq_gmember *m = &g->members[i];
		const struct tmq_offer *last;
		int heard;

		if (!m->claimed || m->left || (has_self && m->id == self) ||
		    find_offer(g->offers, g->noffers, m->id) != NULL)
			continue;
		/* Only members that may still take part: those holding a
		 * share (that offered to) in the last rebalance, and those
		 * heard from since it ended.  The others were shown gone by
		 * not answering; a group's log keeps every id it ever gave
		 * out, and these need no probe. */
		last = g->have_assignment ? find_offer(g->assigned,
		    g->nassigned, m->id) : NULL;
		heard = !g->have_assignment || m->last_offset > g->ended_offset;
		if (!heard && (last == NULL || last->nparts == 0))
			continue;
		switch (tmq_live_probe(g->log.dirfd, m->tag)) {
		case TMQ_LIVE_YES:
			(*alive)++;
			break;
		case TMQ_LIVE_UNKNOWN:
			(*unknown)++;
			break;
		case TMQ_LIVE_DEAD:
			break;
		}
	}
}

int
tmq_live_may_end(const struct tmq_group *g, int has_self, uint32_t self,
    double now)
{
	unsigned alive, unknown;

	if (!g->rebalancing)
		return 0;
	tmq_live_pending(g, has_self, self, &alive, &unknown);
	return alive == 0 && (unknown == 0 || now >= g->rebal_end);
}
