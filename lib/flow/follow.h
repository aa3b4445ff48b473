/* follow.h: tmq-put --follow FILE: the records of a growing file, followed
 * by name as tail -F follows it, and how far they were taken, kept across
 * restarts.
 *
 * The file is followed by name: when the name comes to stand for another
 * file (rotated: renamed and made anew), what the old one still holds is
 * read to its end first, its last line even without its newline; when the
 * file shrinks below what was read (truncated: copied and truncated), it is
 * read again from its start.  How far it was taken (the file's device and
 * inode, and the byte after the last record taken) is kept in the topic's
 * .tmq/ directory (tmq-format(5), Files of tmq's own), written whole
 * (temporary name, then rename) around the writing of what was taken
 * (tmq_follow_prepare before, tmq_follow_save after).  A restart goes on
 * from there: in the same file, or, when the name now stands for another,
 * first in the old one if it is FILE.1 (logrotate's).  One follower of a
 * file into a topic at a time: tmq_follow_open refuses a second, naming
 * the first. */
#ifndef TMQ_FOLLOW_H
#define TMQ_FOLLOW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"
#include "store/replace.h"
#include "store/topic.h"
#include "store/watch.h"

enum {
	TMQ_FOLLOW_RECORD = 1,	/* a record: rec, n */
	TMQ_FOLLOW_WAIT = 2,	/* nothing more now: save, then wait */
	TMQ_FOLLOW_TOOLONG = 3	/* a record over the limit was skipped */
};

struct tmq_follow {
	char *path;		/* as given, for messages */
	char *abspath;		/* what the state names */
	char *base;		/* its last component */
	int dirfd;		/* its directory */
	int fd;			/* the file being read, or -1 (not there yet) */
	dev_t dev;
	ino_t ino;
	int old;		/* fd is a rotated file: its end is final */
	uint64_t off;		/* the byte after the last record taken */
	char *buf;		/* read from off on, not yet a whole record */
	size_t len, cap, scan;
	size_t consumed;	/* bytes of the record returned last */
	int delim;		/* '\n' or '\0' */
	size_t max;		/* longest record */
	int skipping;		/* inside a record over max */
	int statedir;		/* the topic's .tmq */
	char statename[48];
	char lockname[56];	/* statename.lock */
	char shown[320];	/* TOPIC/.tmq/statename, for messages */
	int lockfd;		/* held while we follow (pidlock.h) */
	dev_t sdev;		/* as last saved */
	ino_t sino;
	uint64_t soff;
	int saved;
	int pendfd;		/* the next state, written, not yet in place */
	char pendtmp[TMQ_TMP_NAME_MAX];
	dev_t pdev;
	ino_t pino;
	uint64_t poff;
	int said_missing;
	struct tmq_watch w;
	void (*notice)(void *, const char *);
	void *arg;
};

/* Follow path for topic t (delim ends each record; records longer than
 * max are skipped), from where the state kept for it says, else from the
 * file's start.  notice is told of what a user of tail -F is told: the
 * file truncated, replaced, not there yet. */
int tmq_follow_open(struct tmq_follow *f, const struct tmq_topic *t,
    const char *path, int delim, size_t max,
    void (*notice)(void *, const char *), void *arg, struct tmq_error *e);
/* The next record (without its delimiter; valid until the next call), or
 * TMQ_FOLLOW_WAIT when there is none yet, or -1. */
int tmq_follow_next(struct tmq_follow *f, const char **rec, size_t *n,
    struct tmq_error *e);
/* How far the records returned so far were taken is kept in two steps
 * around their writing, so that a rerun after any failure, or a kill,
 * repeats no more than it must: tmq_follow_prepare writes the new state
 * to a temporary (before the records are written: when this fails, for
 * lack of room say, nothing of them was written), tmq_follow_save puts it
 * in place once they are (marking it confirmed first, so that a temporary
 * whose rename failed is put in place by the next run, which then repeats
 * nothing), and tmq_follow_abandon drops it when their writing failed.
 * Nothing is written when nothing changed since the last save. */
int tmq_follow_prepare(struct tmq_follow *f, struct tmq_error *e);
int tmq_follow_save(struct tmq_follow *f, struct tmq_error *e);
void tmq_follow_abandon(struct tmq_follow *f);
/* Sleep until the file or its directory changes, timeout_ms passes or a
 * signal comes. */
int tmq_follow_wait(struct tmq_follow *f, int timeout_ms,
    struct tmq_error *e);
void tmq_follow_close(struct tmq_follow *f);

#endif
