/* groupfence.c: a member's commits fenced by the group log (see
 * groupfence.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/dotdir.h"
#include "store/filelock.h"
#include "group/groupfence.h"
#include "codec/message.h"
#include "store/modes.h"
#include "codec/names.h"
#include "store/regfile.h"


void
tmq_gfence_init(struct tmq_gfence *f)
{
	memset(f, 0, sizeof *f);
	f->lockfd = -1;
}

/* No lock to be had (a .tmq the member cannot write, or a filesystem
 * without locks): the commits are fenced by the log alone, a look at it
 * just before the commit catching all but a rebalance ended in between.
 * Not said: a .tmq of that kind costs the member its liveness lock too,
 * and that it says. */
static int
no_lock(struct tmq_gfence *f)
{
	f->unlockable = 1;
	return 0;
}

int
tmq_gfence_lock(struct tmq_gfence *f, struct tmq_group *g,
    struct tmq_error *e)
{
	char shown[TMQ_NAME_MAX + 32];
	struct tmq_error why;
	int dfd;

	if (f->unlockable)
		return 0;
	if (f->lockfd < 0) {
		if ((dfd = tmq_dot_open(g->log.dirfd, 1)) < 0)
			return no_lock(f);
		/* Never a FIFO or a link planted there (regfile.h). */
		snprintf(shown, sizeof shown, "%s/" TMQ_DOT_DIR "/" TMQ_DOT_FENCE,
		    g->log.name);
		f->lockfd = tmq_open_regular_as(dfd, TMQ_DOT_FENCE, shown,
		    O_RDWR | O_CREAT, 0666, &why);
		if (f->lockfd >= 0)
			tmq_mode_follow(dfd, f->lockfd);
		close(dfd);
		if (f->lockfd < 0)
			return no_lock(f);
	}
	/* After a wait that ran out, one try a time until the lock comes
	 * again. */
	if (tmq_file_lock_for(f->lockfd, F_WRLCK, f->waited_out ? 0 :
	    TMQ_GFENCE_WAIT_MS) < 0) {
		if (errno == EAGAIN) {
			/* Its holder is stopped or hung mid-commit: no member
			 * waits on it for longer (said once). */
			if (!f->said_wait && g->notice != NULL) {
				char msg[TMQ_NAME_MAX * 2 + 160];

				snprintf(msg, sizeof msg, "group %s: %s/"
				    TMQ_DOT_DIR "/" TMQ_DOT_FENCE " held for over "
				    "%d ms (a member stopped as it committed?): "
				    "going on without it", g->name, g->log.name,
				    TMQ_GFENCE_WAIT_MS);
				g->notice(g->notice_arg, msg);
			}
			f->said_wait = f->waited_out = 1;
			return 0;
		}
		if (errno == EINTR)
			return tmq_fail(e, "group %s: nothing written: told to "
			    "stop while another member held %s/" TMQ_DOT_DIR
			    "/" TMQ_DOT_FENCE, g->name, g->log.name);
		if (errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP ||
		    errno == ENOSYS)
			return no_lock(f);
		return tmq_fail_errno(e, "group %s: cannot lock %s/"
		    TMQ_DOT_DIR "/" TMQ_DOT_FENCE, g->name, g->log.name);
	}
	f->locked = 1;
	f->waited_out = 0;
	return 0;
}

void
tmq_gfence_unlock(struct tmq_gfence *f)
{
	if (f->locked)
		tmq_file_lock(f->lockfd, F_UNLCK);
	f->locked = 0;
}

/* Room for a mark and an offset per partition of the state. */
static int
room(struct tmq_gfence *f, unsigned nparts, struct tmq_error *e)
{
	int64_t *t;
	unsigned char *m;

	if (f->n >= nparts && f->tail != NULL)
		return 0;
	t = realloc(f->tail, (nparts ? nparts : 1) * sizeof *t);
	if (t == NULL)
		return tmq_fail(e, "out of memory");
	f->tail = t;
	m = realloc(f->mine, nparts ? nparts : 1);
	if (m == NULL)
		return tmq_fail(e, "out of memory");
	f->mine = m;
	f->n = nparts;
	return 0;
}

/* Read the log's lines after the state's (to its end now): the latest
 * commit of each partition in them into f->tail, and whether a
 * rebalance closed in them (1). */
static int
read_tail(struct tmq_gfence *f, struct tmq_group *g, struct tmq_error *e)
{
	const struct tmq_gstate *s = &g->state;
	int rebalancing = s->rebalancing, moved = 0, rc;
	struct tmq_line l;
	struct tmq_msg msg;
	struct tmq_gmsg m;
	unsigned i, p;

	for (p = 0; p < s->nparts; p++)
		f->tail[p] = TMQ_NOT_COMMITTED;
	if (!f->lr_open) {
		if (tmq_lr_open(&f->lr, &g->log, 0, 4, e) < 0)
			return tmq_fail_prefix(e, "group %s", g->name);
		f->lr_open = 1;
	}
	if (tmq_lr_offset(&f->lr) != s->read_to &&
	    tmq_lr_seek(&f->lr, s->read_to, NULL, e) < 0)
		return tmq_fail_prefix(e, "group %s", g->name);
	while ((rc = tmq_lr_next(&f->lr, &l, e)) != 0) {
		struct tmq_error skip;

		if (rc < 0)
			return tmq_fail_prefix(e, "group %s", g->name);
		/* What does not decode is no line of the protocol (the
		 * member says so when it reads it). */
		if (l.problem != NULL || tmq_line_decode(&g->codec, 4,
		    g->log.ntypes, l.p, l.n, &msg, &skip) < 0 ||
		    msg.payload.type != TMQ_TYPED)
			continue;
		switch ((enum tmq_gkind)msg.payload.type_index) {
		case TMQ_G_BEGINREBAL:
			rebalancing = 1;
			break;
		case TMQ_G_ENDREBAL:
			if (rebalancing)
				moved = 1;
			rebalancing = 0;
			break;
		case TMQ_G_COMMIT:
			if (tmq_gmsg_parse(&g->parser, TMQ_G_COMMIT,
			    (const char *)msg.payload.data, msg.payload.len, &m,
			    &skip) < 0)
				break;
			for (i = 0; i < m.ncommits; i++)
				if (m.commits[i].partition < s->nparts)
					f->tail[m.commits[i].partition] =
					    m.commits[i].offset;
			tmq_gmsg_clear(&m);
			break;
		default:
			break;
		}
	}
	/* Its descriptor is spared till the next commit (tmq(7): a
	 * member's descriptors are bounded). */
	(void)tmq_lr_park(&f->lr);
	return moved;
}

int
tmq_gfence_check(struct tmq_gfence *f, struct tmq_group *g, uint32_t member,
    struct tmq_poff *po, unsigned *n, struct tmq_error *e)
{
	const struct tmq_gstate *s = &g->state;
	const struct tmq_offer *share;
	unsigned i, j;
	int moved;

	if (room(f, s->nparts, e) < 0 || (moved = read_tail(f, g, e)) < 0)
		return -1;
	if (moved) {
		*n = 0;
		return 1;
	}
	memset(f->mine, 0, s->nparts ? s->nparts : 1);
	share = tmq_gstate_share(s, member);
	if (share != NULL)
		for (i = 0; i < share->ngot; i++)
			if (share->got[i] < s->nparts)
				f->mine[share->got[i]] = 1;
	for (i = j = 0; i < *n; i++) {
		unsigned p = po[i].partition;
		int64_t c;

		if (p >= s->nparts || !f->mine[p])
			continue;
		c = f->tail[p] != TMQ_NOT_COMMITTED ? f->tail[p] :
		    tmq_gstate_committed(s, p);
		/* (-1 is "now", as the TwainMQ library writes it: no
		 * offset to compare with.) */
		if (c >= 0 && po[i].offset < c &&
		    !(p < f->nreset && f->reset_from[p] == c))
			continue;
		po[j++] = po[i];
	}
	*n = j;
	return 0;
}

int
tmq_gfence_reset_from(struct tmq_gfence *f, unsigned p, int64_t from,
    struct tmq_error *e)
{
	if (p >= f->nreset) {
		int64_t *r = realloc(f->reset_from, ((size_t)p + 1) * sizeof *r);
		unsigned i;

		if (r == NULL)
			return tmq_fail(e, "out of memory");
		for (i = f->nreset; i <= p; i++)
			r[i] = TMQ_NOT_COMMITTED;
		f->reset_from = r;
		f->nreset = p + 1;
	}
	f->reset_from[p] = from;
	return 0;
}

void
tmq_gfence_close(struct tmq_gfence *f)
{
	tmq_gfence_unlock(f);
	if (f->lockfd >= 0)
		close(f->lockfd);
	if (f->lr_open)
		tmq_lr_close(&f->lr);
	free(f->tail);
	free(f->mine);
	free(f->reset_from);
	tmq_gfence_init(f);
}
