/* dotdir.h: the dot-folder of a topic's directory, where tmq keeps the
 * files of its own (tmq-format(5), Files of tmq's own): a group's member
 * locks, its fixed-partition lock, its snapshots and its recorded topic; a
 * topic's partition indexes and tmq-put --follow's state; an archive's
 * lock.  The TwainMQ library never looks there for partition files.
 * Opened here, one way, by all. */
#ifndef TMQ_DOTDIR_H
#define TMQ_DOTDIR_H

#include "util/error.h"

#define TMQ_DOT_DIR ".tmq"

/* The registry of tmq's own files: every name tmq gives a file of its own,
 * here and nowhere else, each beside the entry of tmq-format(5), "Files of
 * tmq's own", that says what it holds (tests/unit/t-dotdir.c checks that
 * the page documents every entry of tmq_dot_files and no other).  A kind
 * named by a pattern has its fixed part here; the code that makes the
 * name adds the rest (a hash, a tag, a uid), as its entry's pattern says. */
#define TMQ_DOT_BLOB "blob-"		/* TOPIC/.tmq/blob-HASH */
#define TMQ_DOT_LIVE "live."		/* --group--NAME/.tmq/live.TAG */
#define TMQ_DOT_FENCE "fence"		/* --group--NAME/.tmq/fence */
#define TMQ_DOT_GLOCK "lock"		/* --group--NAME/.tmq/lock */
#define TMQ_DOT_GTOPIC "topic"		/* --group--NAME/.tmq/topic */
#define TMQ_DOT_SNAP "snapshot"		/* --group--NAME/.tmq/snapshot.UID */
#define TMQ_DOT_IDX ".idx"		/* TOPIC/.tmq/PARTFILE.UID.idx */
#define TMQ_DOT_FOLLOW "follow."	/* TOPIC/.tmq/follow.HASH */
#define TMQ_DOT_LOCK ".lock"		/* TOPIC/.tmq/follow.HASH.lock */
#define TMQ_DOT_TMP ".tmp"		/* .NAME.PID.RANDOM.tmp */
#define TMQ_DOT_ARCHIVE_LOCK "archive.lock"	/* NAME/.tmq/archive.lock */
#define TMQ_DOT_ARCHIVE_TMP "archive.tmp"	/* NAME/.tmq/archive.tmp */
#define TMQ_DOT_WORK "+tmq"		/* NAME+tmq/, in the root */

/* One kind of file of tmq's own: its name as tmq-format(5) gives it
 * (upper-case words for the parts that vary), and which module makes it. */
struct tmq_dot_file {
	const char *doc;
	const char *maker;
};
extern const struct tmq_dot_file tmq_dot_files[];
extern const unsigned tmq_dot_nfiles;

/* Open dirfd's .tmq, never through a symbolic link (beneath.h), making it
 * first when create is set, with the modes a directory made in dirfd gets
 * (modes.h): the descriptor, or -1 (errno kept: ENOENT when there is
 * none). */
int tmq_dot_open(int dirfd, int create);
/* After tmq_dot_open failed: -1 with e saying why, naming the folder
 * shown ("SHOWN is a symbolic link (not followed)", ...: regfile.h). */
int tmq_dot_fail(int dirfd, const char *shown, struct tmq_error *e);

#endif
