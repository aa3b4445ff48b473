/* groupwait.c: waiting for a group to commit what its topic held (see
 * groupwait.h).
 *
 * The targets are fixed when the wait begins: what producers add later is
 * not waited for, or a busy topic would keep the barrier shut for ever.
 * A partition is done when the lag tmq-group describe would show against
 * its target is 0: a commit at or past the target, "now" (a group made to
 * start at the end), or a partition with nothing to read.  One whose
 * committed offset was past the end when the wait began (the topic made
 * again) is read from its first offset by the group's next member, so
 * only a commit made since counts.  Waiting is on the group's log: every
 * commit is a line appended to it. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "group/groupinfo.h"
#include "group/groupwait.h"

int
tmq_gwait_begin(struct tmq_gwait *w, int rootfd, struct tmq_group *g,
    const struct tmq_topic *t, struct tmq_error *e)
{
	struct tmq_ginfo gi;
	struct stat st;
	unsigned p;

	memset(w, 0, sizeof *w);
	w->w.ifd = -1;
	if (tmq_ginfo_build(g, t, &gi, e) < 0)
		return -1;
	/* Without a partition's end there is no target to wait for. */
	for (p = 0; p < gi.nparts; p++)
		if (gi.parts[p].problem != NULL) {
			tmq_fail(e, "%s", gi.parts[p].problem);
			tmq_ginfo_free(&gi);
			return -1;
		}
	w->parts = calloc(gi.nparts + 1, sizeof *w->parts);
	if (w->parts == NULL) {
		tmq_ginfo_free(&gi);
		return tmq_fail(e, "out of memory");
	}
	w->g = g;
	w->nparts = gi.nparts;
	for (p = 0; p < gi.nparts; p++) {
		struct tmq_gwpart *wp = &w->parts[p];

		wp->target = gi.parts[p].end;
		wp->first = gi.parts[p].first;
		wp->committed = gi.parts[p].committed;
		wp->stale = gi.parts[p].range == TMQ_PAST_END;
	}
	tmq_ginfo_free(&gi);
	w->rootfd = rootfd;
	if (fstat(g->log.dirfd, &st) < 0) {
		tmq_gwait_free(w);
		return tmq_fail_errno(e, "%s", g->log.name);
	}
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	if (tmq_watch_init(&w->w, e) < 0 ||
	    tmq_watch_add(&w->w, g->log.dirfd, e) < 0 ||
	    tmq_watch_add(&w->w, rootfd, e) < 0) {
		tmq_gwait_free(w);
		return -1;
	}
	return 0;
}

int
tmq_gwait_check(struct tmq_gwait *w, struct tmq_error *e)
{
	struct stat st;
	unsigned p;

	/* Deleted: its directory is moved away first (topicmake.c), and one
	 * that we hold open is still there for us, sending nothing more;
	 * its name in the root is what tells. */
	if (fstatat(w->rootfd, w->g->log.name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != w->dev || st.st_ino != w->ino)
		return tmq_fail(e, "group %s was deleted", w->g->name);
	if (tmq_group_replay(w->g, e) < 0)
		return -1;
	w->total = 0;
	w->behind = 0;
	for (p = 0; p < w->nparts; p++) {
		struct tmq_gwpart *wp = &w->parts[p];
		int64_t c = tmq_gstate_committed(&w->g->state, p);
		uint64_t from;

		wp->now = c;
		if (c == -1) {
			wp->lag = 0;
			continue;
		}
		if (c < 0 || (wp->stale && c == wp->committed))
			from = wp->first;
		else
			from = (uint64_t)c > wp->first ? (uint64_t)c : wp->first;
		wp->lag = wp->target > from ? wp->target - from : 0;
		w->total += wp->lag;
		w->behind += wp->lag > 0;
	}
	return w->behind == 0;
}

int
tmq_gwait_sleep(struct tmq_gwait *w, int timeout_ms, struct tmq_error *e)
{
	return tmq_watch_wait(&w->w, timeout_ms, e) < 0 ? -1 : 0;
}

void
tmq_gwait_free(struct tmq_gwait *w)
{
	free(w->parts);
	tmq_watch_close(&w->w);
	memset(w, 0, sizeof *w);
	w->w.ifd = -1;
}
