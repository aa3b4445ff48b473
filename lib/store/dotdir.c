/* dotdir.c: a topic directory's .tmq, and the registry of the files tmq
 * keeps there and beside its topics (see dotdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/dotdir.h"
#include "store/modes.h"
#include "store/regfile.h"

#define G "--group--NAME/" TMQ_DOT_DIR "/"
#define T "TOPIC/" TMQ_DOT_DIR "/"

const struct tmq_dot_file tmq_dot_files[] = {
	{ T TMQ_DOT_BLOB "HASH", "store/blob.c" },
	{ G TMQ_DOT_LIVE "TAG", "group/liveness.c" },
	{ G TMQ_DOT_FENCE, "group/groupfence.c" },
	{ G TMQ_DOT_GLOCK, "group/groupconsumer.c" },
	{ G TMQ_DOT_GTOPIC, "group/grouptopic.c" },
	{ G TMQ_DOT_SNAP ".UID", "group/groupsnapfile.c" },
	{ T "P-YYYYMMDD_FIRST.UID" TMQ_DOT_IDX, "store/partindex.c" },
	{ T TMQ_DOT_FOLLOW "HASH", "flow/follow.c" },
	{ T TMQ_DOT_FOLLOW "HASH" TMQ_DOT_LOCK, "flow/follow.c" },
	{ ".NAME.PID.RANDOM" TMQ_DOT_TMP, "store/replace.c" },
	{ "NAME/" TMQ_DOT_DIR "/" TMQ_DOT_ARCHIVE_LOCK, "store/prune.c" },
	{ "NAME/" TMQ_DOT_DIR "/" TMQ_DOT_ARCHIVE_TMP, "store/prune.c" },
	{ "NAME" TMQ_DOT_WORK "/", "store/topicmake.c" },
};
const unsigned tmq_dot_nfiles = sizeof tmq_dot_files / sizeof tmq_dot_files[0];

int
tmq_dot_open(int dirfd, int create)
{
	int fd;

	if (create && mkdirat(dirfd, TMQ_DOT_DIR, 0777) < 0 && errno != EEXIST)
		return -1;
	fd = openat(dirfd, TMQ_DOT_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	/* (tmq_mode_follow changes only what is ours: one made by another
	 * user stays as it is.) */
	if (fd >= 0 && create)
		tmq_mode_follow(dirfd, fd);
	return fd;
}

int
tmq_dot_fail(int dirfd, const char *shown, struct tmq_error *e)
{
	return tmq_subdir_fail(dirfd, TMQ_DOT_DIR, shown, e);
}
