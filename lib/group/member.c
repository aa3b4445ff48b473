/* member.c: a group member (see member.h).
 *
 * The member reacts to the log in log order, as the TwainMQ library's members
 * do: it answers each BEGINREBAL with an offer and confirms at the first
 * ENDREBAL after the BEGINREBAL it answered.  It confirms when it *reads* that
 * ENDREBAL, its own included, so its share is computed from exactly the offers
 * that precede the ENDREBAL in the log, as every other member's is.
 *
 * Liveness (liveness.h): the member holds its lock from before its JOINED
 * until it leaves, ends a rebalance as soon as every member that may be
 * alive has offered, and looks at the locks of the members holding
 * partitions every PROBE_PERIOD, starting a rebalance when one has died. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "group/liveness.h"
#include "group/member.h"
#include "util/notice.h"
#include "util/monoclock.h"
#include "util/stop.h"
#include "codec/timestamp.h"

/* Joining (tmq-format(5), "Joining"): the first claim is the largest id
 * plus one, as the TwainMQ library's; a member that loses tries again,
 * for as long as the group is there, with an id drawn at random above the
 * new largest one from a range twice as wide as the number of claims it
 * saw in its round (at least JOIN_SPREAD), after a short random pause.  N
 * members started at once then all join in a few rounds, where with one
 * id per round only one of them won each round; and ids grow by about the
 * number of contenders, so a group's 2^32 ids last. */
#define JOIN_SPREAD 16
#define JOIN_PAUSE_US 20000	/* the longest pause between two rounds */
/* How often a member looks at the others' locks (seconds): a dead
 * member's partitions move this long after it died, plus a rebalance. */
#define PROBE_PERIOD 0.5
/* Beats per session timeout (liveness.h): one late beat is no stall. */
#define BEATS 4

static uint64_t
random64(void)
{
	uint64_t v;

	if (getrandom(&v, sizeof v, 0) != sizeof v)
		v = (uint64_t)time(NULL) * 6364136223846793005ULL ^
		    (uint64_t)getpid();
	return v;
}

static int
offer(struct tmq_member *mb, int nothing, struct tmq_error *e)
{
	struct tmq_gmsg m;
	unsigned *all, p;
	int rc;

	all = malloc((mb->topic_partitions ? mb->topic_partitions : 1) *
	    sizeof *all);
	if (all == NULL)
		return tmq_fail(e, "out of memory");
	for (p = 0; p < mb->topic_partitions; p++)
		all[p] = p;
	memset(&m, 0, sizeof m);
	m.kind = TMQ_G_REBALOFFER;
	m.own = nothing ? NULL : mb->held;
	m.nown = nothing ? 0 : mb->nheld;
	m.parts = all;
	m.nparts = nothing ? 0 : mb->topic_partitions;
	rc = tmq_group_write(&mb->g, mb->id, &m, e);
	free(all);
	return rc;
}

/* Begin a rebalance of window seconds. */
static int
begin_rebalance_of(struct tmq_member *mb, double window, struct tmq_error *e)
{
	struct tmq_gmsg m;

	memset(&m, 0, sizeof m);
	m.kind = TMQ_G_BEGINREBAL;
	m.end = tmq_now() + window;
	return tmq_group_write(&mb->g, mb->id, &m, e);
}

static int
begin_rebalance(struct tmq_member *mb, struct tmq_error *e)
{
	return begin_rebalance_of(mb, mb->window, e);
}

static int
confirm(struct tmq_member *mb, struct tmq_error *e)
{
	const struct tmq_offer *share = tmq_gstate_share(&mb->g.state, mb->id);
	unsigned *parts = NULL, n = 0;
	struct tmq_gmsg m;

	if (share != NULL && share->ngot > 0) {
		parts = malloc(share->ngot * sizeof *parts);
		if (parts == NULL)
			return tmq_fail(e, "out of memory");
		memcpy(parts, share->got, share->ngot * sizeof *parts);
		n = share->ngot;
	}
	if (mb->on_assign != NULL && mb->on_assign(mb->arg, parts, n, e) < 0) {
		free(parts);
		return -1;
	}
	free(mb->held);
	mb->held = parts;
	mb->nheld = n;
	mb->settled = 1;
	memset(&m, 0, sizeof m);
	m.kind = TMQ_G_REBALCONFIRM;
	m.parts = parts;
	m.nparts = n;
	if (tmq_group_write(&mb->g, mb->id, &m, e) < 0)
		return -1;
	/* The files of members whose partitions have moved can go, but
	 * not on this state: it may be far behind the log (see sweep). */
	mb->sweep_due = 1;
	return 0;
}

/* We held partitions in a rebalance that ended without our offer (we were
 * stopped, blocked, or just too late): they are someone else's now.  Drop
 * them without committing (mb->lost tells on_assign): a commit of ours
 * would go after, and could go back over, one of their new owner's.  Then
 * ask for a share again. */
static int
lose(struct tmq_member *mb, struct tmq_error *e)
{
	int rc = 0;

	if (mb->nheld > 0 || mb->settled) {
		mb->lost = 1;
		if (mb->on_assign != NULL)
			rc = mb->on_assign(mb->arg, NULL, 0, e);
		mb->lost = 0;
		free(mb->held);
		mb->held = NULL;
		mb->nheld = 0;
		mb->settled = 0;
	}
	mb->need_rebal = 1;
	return rc;
}

/* React to one message, already applied to the group state.  A
 * BEGINREBAL is answered once the log is read to its end (answer), not
 * when read: a member reading late (stopped, blocked on its output)
 * would otherwise offer, and commit, in a rebalance that the lines after
 * it show over. */
static int
react(struct tmq_member *mb, const struct tmq_gmsg *m, struct tmq_error *e)
{
	if (!mb->has_id)
		return 0;
	switch (m->kind) {
	case TMQ_G_BEGINREBAL:
		mb->to_answer = m->offset + 1;
		return 0;
	case TMQ_G_ENDREBAL:
		if (mb->g.state.ended_offset != m->offset)
			return 0;
		/* The ENDREBAL that closed the rebalance we answered. */
		if (mb->answered == mb->g.state.rebal_offset + 1) {
			mb->answered = 0;
			/* Our offer came after it (we joined the rebalance as
			 * it ended, or answered late): nothing was shared
			 * with us. */
			if (tmq_gstate_share(&mb->g.state, mb->id) == NULL)
				return lose(mb, e);
			return confirm(mb, e);
		}
		/* One that ended before we answered it. */
		if (mb->to_answer == mb->g.state.rebal_offset + 1) {
			mb->to_answer = 0;
			return lose(mb, e);
		}
		return 0;
	default:
		return 0;
	}
}

/* At the end of the log: answer the rebalance in force, or start one when
 * we lost our share. */
static int
answer(struct tmq_member *mb, struct tmq_error *e)
{
	struct tmq_live_where w;

	if (!mb->has_id)
		return 0;
	/* The files of the members new to us, before any offer of ours
	 * can end a rebalance that gives them partitions. */
	tmq_group_where(&mb->g, &w);
	tmq_live_note(&w, &mb->g.state, mb->id, &mb->noted);
	if (mb->to_answer != 0) {
		uint64_t r = mb->to_answer;

		mb->to_answer = 0;
		if (mb->g.state.rebalancing && r == mb->g.state.rebal_offset + 1) {
			mb->answered = r;
			mb->need_rebal = 0;
			if (mb->on_offer != NULL && mb->on_offer(mb->arg, e) < 0)
				return -1;
			return offer(mb, 0, e);
		}
	}
	if (mb->need_rebal) {
		mb->need_rebal = 0;
		if (!(mb->g.state.rebalancing &&
		    mb->answered == mb->g.state.rebal_offset + 1))
			return begin_rebalance(mb, e);
	}
	return 0;
}

static int drain(struct tmq_member *, int, uint64_t, int *, unsigned *,
    struct tmq_error *);

/* A member that has just claimed its id takes part in the rebalance in
 * force, when there is one that ends no later than one of its own would:
 * it offers in it (the others wait for its offer, as its lock is held),
 * where a BEGINREBAL of its own would make every member offer again.  N
 * members joining at once then cost the group a few rebalances, not N,
 * and O(N) offers, not O(N^2).  Otherwise it starts one. */
static int
enter_rebalance(struct tmq_member *mb, struct tmq_error *e)
{
	const struct tmq_gstate *s = &mb->g.state;

	if (drain(mb, 0, 0, NULL, NULL, e) < 0)
		return -1;
	if (s->rebalancing && mb->answered == s->rebal_offset + 1)
		return 0;	/* one began as we read: we offered in it */
	if (s->rebalancing && s->rebal_end <= tmq_now() + mb->window) {
		mb->answered = s->rebal_offset + 1;
		if (mb->on_offer != NULL && mb->on_offer(mb->arg, e) < 0)
			return -1;
		return offer(mb, 0, e);
	}
	return begin_rebalance(mb, e);
}

/* Read and react to everything new; 2-returns (corrupt lines) are skipped,
 * and said. */
static int
drain(struct tmq_member *mb, int stop_at_joined, uint64_t tag,
    int *joined_result, unsigned *claims, struct tmq_error *e)
{
	struct tmq_gmsg m;
	int rc;

	while ((rc = tmq_group_next(&mb->g, &m, e)) != 0) {
		if (rc < 0)
			return -1;
		if (rc == 2) {
			if (mb->notice != NULL && !tmq_notice_quiet())
				mb->notice(mb->notice_arg, e->msg);
			continue;
		}
		if (stop_at_joined && m.kind == TMQ_G_JOINED)
			(*claims)++;
		/* Our claim decided (tmq-format(5), Joining): by the first
		 * JOINED for our id, now in the state. */
		if (stop_at_joined && m.kind == TMQ_G_JOINED &&
		    m.member == mb->id) {
			*joined_result = tmq_gstate_claim(&mb->g.state, mb->id,
			    tag);
			if (*joined_result < 0) {
				/* Someone else's claim came first. */
				struct tmq_gmsg ab;

				memset(&ab, 0, sizeof ab);
				ab.kind = TMQ_G_ABORTJOIN;
				ab.tag = m.tag;
				tmq_gmsg_clear(&m);
				return tmq_group_write(&mb->g, mb->id, &ab, e);
			}
			tmq_gmsg_clear(&m);
			return 0;
		}
		rc = react(mb, &m, e);
		tmq_gmsg_clear(&m);
		if (rc < 0)
			return -1;
	}
	return answer(mb, e);
}

int
tmq_member_join(struct tmq_member *mb, int rootfd, const char *group,
    const struct tmq_topic *t, int from_now, double window,
    struct tmq_error *e)
{
	void (*notice)(void *, const char *) = mb->notice;
	void *notice_arg = mb->notice_arg;
	double session = mb->session;
	unsigned try = 0, claims = 0;
	int result;

	memset(mb, 0, sizeof *mb);
	mb->notice = notice;
	mb->notice_arg = notice_arg;
	mb->session = session;
	mb->watch.timeout = session;
	mb->livefd = -1;
	tmq_gfence_init(&mb->fence);
	mb->topic_partitions = t->partitions;
	mb->window = window;
	if (tmq_group_open(rootfd, group, t->name, &mb->g, e) < 0) {
		/* Only a missing group is made; a group of another topic is
		 * an error (tmq_group_open said which). */
		if (e->code != TMQ_ERR_NOGROUP ||
		    tmq_group_create(rootfd, group, t, from_now, e) < 0 ||
		    tmq_group_open(rootfd, group, t->name, &mb->g, e) < 0)
			return -1;
	}
	mb->g.notice = notice;
	mb->g.notice_arg = notice_arg;
	mb->g.watch = &mb->watch;
	/* A member follows the log: NUL bytes there on a shared filesystem
	 * are waited for, as a follower's (linereader.h). */
	mb->g.lr.wait_nul = 1;
	if (tmq_group_replay(&mb->g, e) < 0)
		goto bad;
	/* A replay cut short by a signal knows too little to claim an id:
	 * write nothing. */
	if (tmq_stop) {
		tmq_fail_code(e, TMQ_ERR_STOPPED, "group %s: interrupted while "
		    "joining", group);
		goto bad;
	}
	for (;;) {
		uint64_t room = (uint64_t)UINT32_MAX - mb->g.state.max_key;
		uint64_t spread = claims * 2 > JOIN_SPREAD ? claims * 2 :
		    JOIN_SPREAD;

		if (room == 0) {
			tmq_fail(e, "group %s: no member ids left", group);
			goto bad;
		}
		if (spread > room)
			spread = room;
		mb->id = mb->g.state.max_key + 1 +
		    (try == 0 ? 0 : (uint32_t)(random64() % spread));
		mb->tag = random64();
		/* Locked before anyone can read our claim, so nobody ever
		 * sees it without the lock. */
		mb->last_beat = tmq_mono();
		if (tmq_live_hold(mb->g.log.dirfd, mb->tag, mb->session,
		    &mb->livefd, e) < 0) {
			/* Not fatal: without its lock the member is one the
			 * others cannot vouch for, as the TwainMQ library's
			 * are, and rebalances wait their window for it. */
			if (mb->notice != NULL && try == 0) {
				char why[sizeof e->msg];

				snprintf(why, sizeof why, "%s", e->msg);
				tmq_fail(e, "group %s: no liveness lock (%s): "
				    "rebalances will wait their window for this "
				    "member", group, why);
				if (!tmq_notice_quiet())
					mb->notice(mb->notice_arg, e->msg);
			}
		}
		{
			struct tmq_gmsg j;

			memset(&j, 0, sizeof j);
			j.kind = TMQ_G_JOINED;
			j.tag = mb->tag;
			if (tmq_group_write(&mb->g, mb->id, &j, e) < 0)
				goto bad;
		}
		/* Our JOINED is in the file: read up to it, counting the
		 * claims on the way (ours included). */
		result = 0;
		claims = 0;
		while (result == 0) {
			if (drain(mb, 1, mb->tag, &result, &claims, e) < 0)
				goto bad;
			if (result == 0 && tmq_stop) {
				tmq_fail_code(e, TMQ_ERR_STOPPED, "group %s: "
				    "interrupted while joining", group);
				goto bad;
			}
			if (result == 0)
				usleep(1000);
		}
		if (result > 0) {
			mb->has_id = 1;
			mb->silence_from = tmq_now();
			if (enter_rebalance(mb, e) < 0)
				goto bad;
			return 0;
		}
		tmq_live_release(mb->g.log.dirfd, mb->tag, mb->livefd);
		mb->livefd = -1;
		if (tmq_stop) {
			tmq_fail_code(e, TMQ_ERR_STOPPED, "group %s: "
			    "interrupted while joining", group);
			goto bad;
		}
		usleep((useconds_t)(random64() % JOIN_PAUSE_US));
		/* What the others claimed meanwhile is above max_key too. */
		if (drain(mb, 0, 0, NULL, NULL, e) < 0)
			goto bad;
		try++;
	}
bad:
	if (mb->livefd >= 0)
		close(mb->livefd);	/* dead, not gone: see tmq_member_close */
	mb->livefd = -1;
	tmq_gfence_close(&mb->fence);
	tmq_group_close(&mb->g);
	return -1;
}

/* Whether a member holding partitions in the last rebalance has died, or
 * gone silent for its session timeout (stale): 1.  2 when one with no lock
 * file (the Python library's, which has none) has said nothing for the
 * library's rebalance window: the library's members learn who is gone by
 * a rebalance now and then, in which the silent do not answer, and so do
 * ours, with a rebalance of the library's window, that a member of its
 * that only polls now and then answers in time. */
static int
holder_gone(struct tmq_member *mb, double now)
{
	const struct tmq_gstate *s = &mb->g.state;
	struct tmq_live_where w;
	unsigned i;
	int silent = 0;

	tmq_group_where(&mb->g, &w);
	for (i = 0; i < s->nassigned; i++) {
		const struct tmq_offer *o = &s->assigned[i];
		const struct tmq_gmember *gm;
		enum tmq_liveness l;

		if (o->member == mb->id || o->ngot == 0)
			continue;
		l = tmq_live_member(&w, s, o->member);
		if (l == TMQ_LIVE_DEAD || l == TMQ_LIVE_STALE)
			return 1;
		if (l == TMQ_LIVE_UNKNOWN &&
		    (gm = tmq_gstate_find(s, o->member)) != NULL &&
		    now - (gm->last_seen > mb->silence_from ? gm->last_seen :
		    mb->silence_from) >= TMQ_REBAL_WINDOW)
			silent = 1;
	}
	return silent ? 2 : 0;
}

/* Remove the lock files of dead members that can hold nothing again
 * (tmq_live_sweep): those found dead first, then the log read to its end,
 * so that every line they wrote before they died is in the state that
 * decides. */
static int
sweep(struct tmq_member *mb, struct tmq_error *e)
{
	uint64_t *dead;
	size_t n;
	int rc = 0;

	mb->sweep_due = 0;
	if (tmq_live_dead(mb->g.log.dirfd, &dead, &n) < 0)
		return 0;	/* best effort: the files only take room */
	if (n > 0 && (rc = drain(mb, 0, 0, NULL, NULL, e)) == 0) {
		struct tmq_live_where w;

		tmq_group_where(&mb->g, &w);
		tmq_live_sweep(&w, &mb->g.state, dead, n);
	}
	free(dead);
	return rc;
}

static int
step(struct tmq_member *mb, struct tmq_error *e)
{
	const struct tmq_gstate *s = &mb->g.state;
	struct tmq_live_where w;
	struct tmq_gmsg m;
	double now;

	if (drain(mb, 0, 0, NULL, NULL, e) < 0)
		return -1;
	if (!mb->has_id)
		return 0;
	now = tmq_now();
	/* In a rebalance we answered: close it once nobody who may be alive
	 * is still to offer.  Whoever writes the first ENDREBAL, everyone
	 * confirms on reading it. */
	tmq_group_where(&mb->g, &w);
	if (s->rebalancing && mb->answered == s->rebal_offset + 1 &&
	    mb->ended != s->rebal_offset + 1 &&
	    tmq_live_may_end(&w, s, 1, mb->id, now,
	    tmq_group_rebal_end(&mb->g, mb->window))) {
		int rc;

		mb->ended = s->rebal_offset + 1;
		memset(&m, 0, sizeof m);
		m.kind = TMQ_G_ENDREBAL;
		/* The line that moves partitions: never between a member's
		 * look at the log and its commit (groupfence.h). */
		if (tmq_gfence_lock(&mb->fence, &mb->g, e) < 0)
			return -1;
		rc = tmq_group_write(&mb->g, mb->id, &m, e);
		tmq_gfence_unlock(&mb->fence);
		if (rc < 0)
			return -1;
		return drain(mb, 0, 0, NULL, NULL, e);
	}
	/* Between rebalances: has a member holding partitions died? */
	if (!s->rebalancing && now >= mb->next_probe) {
		int gone;

		mb->next_probe = now + PROBE_PERIOD;
		if ((gone = holder_gone(mb, now)) != 0) {
			if (gone == 2)
				mb->silence_from = now;
			if (begin_rebalance_of(mb, gone == 1 ? mb->window :
			    mb->window > TMQ_REBAL_WINDOW ? mb->window :
			    TMQ_REBAL_WINDOW, e) < 0)
				return -1;
			return drain(mb, 0, 0, NULL, NULL, e);
		}
	}
	return 0;
}

int
tmq_member_due(const struct tmq_member *mb)
{
	return mb->has_id && mb->session > 0 &&
	    tmq_mono() - mb->last_beat >= mb->session / BEATS;
}

void
tmq_member_beat(struct tmq_member *mb)
{
	if (tmq_member_due(mb)) {
		tmq_live_beat(mb->livefd);
		mb->last_beat = tmq_mono();
	}
}

int
tmq_member_poll(struct tmq_member *mb, struct tmq_error *e)
{
	/* Beat first: after a stop, the others must see us again before
	 * we read what they did meanwhile. */
	tmq_member_beat(mb);
	if (step(mb, e) < 0)
		return -1;
	return mb->has_id && mb->sweep_due ? sweep(mb, e) : 0;
}

int
tmq_member_timeout(const struct tmq_member *mb)
{
	double left;

	if (!mb->has_id)
		return -1;
	left = mb->g.state.rebalancing ? mb->g.state.rebal_end - tmq_now() :
	    PROBE_PERIOD;
	if (left > PROBE_PERIOD)
		left = PROBE_PERIOD;
	if (left <= 0)
		left = PROBE_PERIOD;	/* past the end: waiting for the living */
	if (mb->session > 0) {
		double beat = mb->last_beat + mb->session / BEATS -
		    tmq_mono();

		if (beat < left)
			left = beat > 0 ? beat : 0;
	}
	return (int)ceil(left * 1000);
}

int
tmq_member_commit(struct tmq_member *mb, struct tmq_poff *po, unsigned n,
    struct tmq_error *e)
{
	int rc;

	if (!mb->has_id)
		return 0;
	if (tmq_gfence_lock(&mb->fence, &mb->g, e) < 0)
		return -1;
	rc = tmq_gfence_check(&mb->fence, &mb->g, mb->id, po, &n, e);
	if (rc == 0 && n > 0)
		rc = tmq_group_commit(&mb->g, mb->id, po, n, e);
	tmq_gfence_unlock(&mb->fence);
	return rc;
}

int
tmq_member_leave(struct tmq_member *mb, struct tmq_error *e)
{
	if (!mb->has_id)
		return 0;
	if (begin_rebalance(mb, e) < 0 || offer(mb, 1, e) < 0)
		return -1;
	mb->has_id = 0;
	/* Gone, not dead: nobody need look for us again. */
	tmq_live_release(mb->g.log.dirfd, mb->tag, mb->livefd);
	mb->livefd = -1;
	return 0;
}

void
tmq_member_close(struct tmq_member *mb)
{
	/* Closing without leaving (an error) drops the lock and keeps the
	 * file: the others see a dead member and take its partitions. */
	if (mb->livefd >= 0)
		close(mb->livefd);
	tmq_gfence_close(&mb->fence);
	tmq_group_close(&mb->g);
	free(mb->held);
	tmq_live_watch_free(&mb->watch);
	memset(mb, 0, sizeof *mb);
}
