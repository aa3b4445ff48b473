/* topicmake.c: creating and deleting topics (and groups' logs), so that
 * every other process sees the whole topic or none, and a rerun of a
 * killed create or delete, or of its opposite, finishes the job.
 *
 * A topic is two entries of the root: NAME.twc and NAME/.  Two renames
 * cannot be one step, so the order matters, and it is the TwainMQ library's
 * own idea of a deleted topic that makes it work: the TwainMQ library's
 * delete_topic removes NAME/ and keeps NAME.twc; for it (and for us,
 * tmq_topic_leftover) a definition without its directory is no topic: not
 * listed, not opened, created over.  A directory without its definition is
 * worse: the TwainMQ library says it exists and cannot open it.  So:
 *   create: build NAME/ and NAME.twc under a work directory, publish the
 *           definition (still no topic: no directory), then rename the
 *           directory into place: the topic is there, whole, at once;
 *   delete: rename NAME/ away (from then on no topic: a definition alone),
 *           remove NAME.twc, then the directory's own entries.
 * NAME/ never exists without NAME.twc, whenever a kill comes.
 *
 * The work directory is NAME+tmq: '+' is outside the name rule, so it is
 * never a topic's name nor its directory's, nor listed (names.h).  It
 * holds
 *   lock  held (an open file description lock, which holds between the
 *         machines of a shared filesystem, unlike flock on GlusterFS) by
 *         the one create or delete of NAME at work; the others wait;
 *   new   the directory being built by a create;
 *   twc   its definition being written;
 *   old   the directory being emptied by a delete.
 * Whoever holds the lock first clears what a killed run left there (only
 * the topic's own entries: topicown.h), and removes the work directory
 * when done. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "store/dotdir.h"
#include "util/escape.h"
#include "store/filelock.h"
#include "codec/keys.h"
#include "store/modes.h"
#include "codec/names.h"
#include "store/partfile.h"
#include "store/regfile.h"
#include "store/replace.h"
#include "codec/timestamp.h"
#include "store/topic.h"
#include "store/topicown.h"

#define WORK_SUFFIX TMQ_DOT_WORK
#define WORK_MAX (TMQ_NAME_MAX + 8)
/* Times the work directory may be found replaced under us before we give
 * up (each time, its holder finished and removed it). */
#define LOCK_TRIES 1000

struct work {
	int rootfd;
	int wfd;		/* NAME+tmq */
	int lfd;		/* NAME+tmq/lock */
	char name[WORK_MAX];	/* NAME+tmq */
	char shown[WORK_MAX + 8];	/* for messages, escaped */
};

/* What it is: "topic" or "group". */
static const char *
kind(const char *name)
{
	return tmq_is_group_topic(name) ? "group" : "topic";
}

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Wait for the lock on fd (filelock.h: a wait that SIGINT and SIGTERM
 * end, where a tool catches them): 0, 1 where the filesystem has no such
 * locks (a local one without them: nothing to share it with another
 * machine, and we go on as tmq did before them), -1 with errno set. */
static int
lock_wait(int fd)
{
	if (tmq_file_lock(fd, F_WRLCK) == 0)
		return 0;
	if (errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP ||
	    errno == ENOSYS)
		return 1;
	return -1;
}

static void
work_close(struct work *w)
{
	if (w->lfd >= 0)
		close(w->lfd);
	if (w->wfd >= 0)
		close(w->wfd);
	w->lfd = w->wfd = -1;
}

/* Make (or find) NAME+tmq and hold its lock.  what says what we cannot do
 * when it fails ("create the topic directory", "delete"). */
static int
work_lock(int rootfd, const char *name, const char *what, struct work *w,
    struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	struct stat a, b;
	int tries, r;

	memset(w, 0, sizeof *w);
	w->rootfd = rootfd;
	w->wfd = w->lfd = -1;
	snprintf(w->name, sizeof w->name, "%s" WORK_SUFFIX, name);
	tmq_escape_name(w->name, w->shown, sizeof w->shown);
	for (tries = 0; tries < LOCK_TRIES; tries++) {
		if (tmq_mkdir_follow(rootfd, w->name) < 0 && errno != EEXIST)
			return tmq_fail_errno(e, "%s: cannot %s", sj, what);
		w->wfd = openat(rootfd, w->name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (w->wfd < 0) {
			if (errno == ENOENT)
				continue;	/* its holder removed it */
			if (errno == ENOTDIR || errno == ELOOP)
				return tmq_fail(e, "%s: cannot %s: %s is not a "
				    "directory (not ours)", sj, what, w->shown);
			return tmq_fail_errno(e, "%s: cannot %s: %s", sj,
			    what, w->shown);
		}
		w->lfd = tmq_open_regular(w->wfd, "lock", O_RDWR | O_CREAT,
		    0666, e);
		if (w->lfd < 0) {
			if (errno == ENOENT) {	/* W removed meanwhile */
				work_close(w);
				continue;
			}
			work_close(w);
			return tmq_fail_prefix(e, "%s: cannot %s: %s", sj,
			    what, w->shown);
		}
		tmq_mode_follow(w->wfd, w->lfd);
		if ((r = lock_wait(w->lfd)) < 0) {
			work_close(w);
			if (errno == EINTR)
				return tmq_fail(e, "%s: interrupted while "
				    "waiting for %s/lock", sj, w->shown);
			return tmq_fail_errno(e, "%s: cannot %s: %s/lock", sj,
			    what, w->shown);
		}
		/* Ours only if both are still where we found them: the last
		 * holder removes them before it lets go. */
		if (fstat(w->wfd, &a) == 0 && fstatat(rootfd, w->name, &b,
		    AT_SYMLINK_NOFOLLOW) == 0 && same_file(&a, &b) &&
		    fstat(w->lfd, &a) == 0 && fstatat(w->wfd, "lock", &b,
		    AT_SYMLINK_NOFOLLOW) == 0 && same_file(&a, &b))
			return 0;
		work_close(w);
	}
	return tmq_fail(e, "%s: cannot %s: %s keeps being replaced", sj,
	    what, w->shown);
}

/* Remove the lock and the work directory (when nothing is left in it),
 * then let go: a waiter finds them gone and starts again. */
static void
work_unlock(struct work *w)
{
	unlinkat(w->wfd, "lock", 0);
	unlinkat(w->rootfd, w->name, AT_REMOVEDIR);
	work_close(w);
}

/* Write a definition to fd, whole and on disk.  types[i] is the type of
 * index i (NULL where none).  The TwainMQ library's layout, one field a
 * line. */
static int
def_write(int fd, const char *name, int key_width, unsigned partitions,
    char *const *types, unsigned ntypes, const char *group_topic,
    size_t max_message, struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	struct json_object *js;
	unsigned i, shown = 0;
	FILE *f;
	int d = dup(fd);

	if (d < 0 || (f = fdopen(d, "w")) == NULL) {
		tmq_fail_errno(e, "%s: cannot write the definition", sj);
		if (d >= 0)
			close(d);
		return -1;
	}
	fprintf(f, "{\n\"key_width\": %d,\n\"partitions\": %u,\n"
	    "\"message_types\": {", key_width, partitions);
	for (i = 0; i < ntypes; i++) {
		if (types[i] == NULL)
			continue;
		fputs(shown++ ? ",\n" : "\n", f);
		js = json_object_new_string(types[i]);
		fputs(json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN),
		    f);
		json_object_put(js);
		fprintf(f, ": %u", i);
	}
	fputs(shown ? "\n}" : "}", f);
	if (max_message > 0)
		fprintf(f, ",\n\"max_message\": %zu", max_message);
	if (group_topic != NULL) {
		fputs(",\n\"topic\": ", f);
		js = json_object_new_string(group_topic);
		fputs(json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN),
		    f);
		json_object_put(js);
	}
	fputs("\n}", f);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		tmq_fail_errno(e, "%s: cannot write the definition", sj);
		fclose(f);
		return -1;
	}
	if (fclose(f) != 0)
		return tmq_fail_errno(e, "%s: cannot write the definition", sj);
	return 0;
}

/* Write a definition as dirfd/file (a new name, in a work directory),
 * with the mode a file made in modefd gets. */
static int
write_def_file(int dirfd, const char *file, int modefd, const char *name,
    int key_width, unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, size_t max_message, struct tmq_error *e)
{
	int fd;

	fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666);
	if (fd < 0)
		return tmq_fail_errno(e, "%s: cannot write the definition",
		    tmq_group_of_log(name));
	tmq_mode_follow(modefd, fd);
	if (def_write(fd, name, key_width, partitions, types, ntypes,
	    group_topic, max_message, e) < 0) {
		close(fd);
		unlinkat(dirfd, file, 0);
		return -1;
	}
	close(fd);
	return 0;
}

/* An empty file of the day for each partition of a new topic, as the TwainMQ
 * library's producer makes them when it starts.  The TwainMQ library's
 * consumer depends on them: started on a partition that has no file, it takes
 * "from the start" as "from the end of the first file that appears", and
 * skips what was in it by then (all of tmq-put's first batch). */
static int
start_files(int dfd, const char *name, unsigned partitions,
    struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	struct tmq_pfile pf;
	unsigned p, day = tmq_utc_day(tmq_now());
	int fd;

	for (p = 0; p < partitions; p++) {
		memset(&pf, 0, sizeof pf);
		pf.partition = p;
		pf.day = day;
		tmq_pfile_name(&pf);
		fd = openat(dfd, pf.name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0)
			return tmq_fail_errno(e, "%s: cannot create %s", sj,
			    pf.name);
		tmq_mode_follow(dfd, fd);
		close(fd);
	}
	return 0;
}

/* What of NAME is in the root. */
struct state {
	int def;		/* NAME.twc is there */
	int def_reg;		/* and a regular file */
	int dir;		/* NAME is there */
	int dir_dir;		/* and a directory */
};

static void
look(int rootfd, const char *name, struct state *s)
{
	char def[TMQ_NAME_MAX + 8];
	struct stat st;

	memset(s, 0, sizeof *s);
	snprintf(def, sizeof def, "%s.twc", name);
	if (fstatat(rootfd, def, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		s->def = 1;
		s->def_reg = S_ISREG(st.st_mode) != 0;
	}
	if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		s->dir = 1;
		s->dir_dir = S_ISDIR(st.st_mode) != 0;
	}
}

int
tmq_topic_partial(int rootfd, const char *name)
{
	char work[WORK_MAX];
	struct state s;
	struct stat st;

	if (*name == '\0' || strchr(name, '/') != NULL ||
	    strlen(name) > TMQ_NAME_MAX - 4)
		return 0;
	look(rootfd, name, &s);
	if (s.def || s.dir)
		return !(s.def && s.dir);
	snprintf(work, sizeof work, "%s" WORK_SUFFIX, name);
	return fstatat(rootfd, work, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Empty w's entry sub ("new" or "old") of the topic's own entries and
 * remove it: 0 gone, 1 foreign entries keep it (text in why), -1 e set. */
static int
clear_work(struct work *w, const char *sub, char *why, size_t sz,
    struct tmq_error *e)
{
	struct tmq_foreign f;
	char shown[WORK_MAX + 16], list[256];
	int rc;

	snprintf(shown, sizeof shown, "%s/%s", w->shown, sub);
	rc = tmq_own_remove(w->wfd, sub, shown, &f, e);
	if (rc == 1)
		snprintf(why, sz, "%s holds entries that are not a topic's: %s",
		    shown, tmq_foreign_text(&f, list, sizeof list));
	return rc;
}

static int
create_locked(struct work *w, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, tmq_topic_fill fill, void *arg, int bare,
    size_t max_message, struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	char def[TMQ_NAME_MAX + 8], why[400];
	struct tmq_topic t;
	struct state s;
	struct stat st, pub;
	int rc, dfd;

	/* What a killed create left; a killed delete's leftovers go too
	 * when they can, and are not in our way when they cannot. */
	rc = clear_work(w, "new", why, sizeof why, e);
	if (rc > 0)
		return tmq_fail(e, "%s: not created: %s", sj, why);
	if (rc < 0)
		return tmq_fail_prefix(e, "%s: not created", sj);
	if (unlinkat(w->wfd, "twc", 0) < 0 && errno != ENOENT)
		return tmq_fail_errno(e, "%s: cannot remove %s/twc", sj,
		    w->shown);
	{
		struct tmq_error ignored;

		clear_work(w, "old", why, sizeof why, &ignored);
	}
	look(w->rootfd, name, &s);
	if (s.dir && (s.def || !s.dir_dir))
		return tmq_fail_code(e, TMQ_ERR_EXISTS, "%s: topic exists", sj);
	if (s.def && !s.def_reg)
		return tmq_fail_code(e, TMQ_ERR_EXISTS, "%s: topic exists", sj);
	/* Never ours (ours is renamed in whole, after its definition): the
	 * TwainMQ library's create between its two steps, or the remains of
	 * one killed there, or of an older tmq's.  Taking it over could pair
	 * our directory with the TwainMQ library's definition, written after;
	 * the user's delete removes it. */
	if (s.dir)
		return tmq_fail_code(e, TMQ_ERR_EXISTS,
		    "%s: not created: %s/ exists without a "
		    "definition (delete removes it)", sj, name);
	if (tmq_mkdir_follow(w->wfd, "new") < 0)
		return tmq_fail_errno(e, "%s: cannot create the topic directory",
		    sj);
	dfd = openat(w->wfd, "new", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd < 0)
		return tmq_fail_errno(e, "%s: cannot open the topic directory",
		    sj);
	tmq_mode_follow(w->rootfd, dfd);
	rc = bare ? 0 : start_files(dfd, name, partitions, e);
	if (rc == 0 && fill != NULL) {
		memset(&t, 0, sizeof t);
		t.name = (char *)name;
		t.dirfd = dfd;
		t.key_width = key_width;
		t.partitions = partitions;
		t.types = (char **)types;
		t.ntypes = ntypes;
		t.group_topic = (char *)group_topic;
		t.max_message = max_message;
		rc = fill(&t, arg, e);
	}
	close(dfd);
	if (rc < 0 || write_def_file(w->wfd, "twc", w->rootfd, name, key_width,
	    partitions, types, ntypes, group_topic, max_message, e) < 0)
		return -1;
	/* The definition first: alone it is no topic (a leftover, as the
	 * TwainMQ library's delete_topic leaves them), and one that is there
	 * is replaced (as the TwainMQ library's create_topic replaces it). */
	snprintf(def, sizeof def, "%s.twc", name);
	if (fstatat(w->wfd, "twc", &pub, AT_SYMLINK_NOFOLLOW) < 0 ||
	    renameat(w->wfd, "twc", w->rootfd, def) < 0)
		return tmq_fail_errno(e, "%s: cannot write the definition",
		    sj);
	/* Then the directory, whole: from here the topic is there. */
	/* (Where the filesystem cannot refuse, a plain rename, which still
	 * puts a directory over nothing but an empty one.) */
	if (tmq_rename_noreplace(w->wfd, "new", w->rootfd, name, 1) == 0)
		return 0;
	rc = errno;
	/* Made meanwhile by someone who does not take our lock (the TwainMQ
	 * library, or a co-user by hand): theirs stays, our definition goes
	 * if it is still ours. */
	if (fstatat(w->rootfd, def, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_file(&st, &pub))
		unlinkat(w->rootfd, def, 0);
	errno = rc;
	if (rc == EEXIST || rc == ENOTEMPTY || rc == ENOTDIR)
		return tmq_fail_code(e, TMQ_ERR_EXISTS, "%s: topic exists", sj);
	return tmq_fail_errno(e, "%s: cannot create the topic directory", sj);
}

static int
create(int rootfd, const char *name, int key_width, unsigned partitions,
    char *const *types, unsigned ntypes, const char *group_topic,
    tmq_topic_fill fill, void *arg, int bare, size_t max_message,
    struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	char work[WORK_MAX];
	struct work w;
	struct state s;
	struct stat st;
	unsigned i, j;
	size_t n = strlen(name);
	int rc;

	if (tmq_any_name_check(name, e) < 0)
		return -1;
	/* NAME.twc would be the directory of this one and the definition of
	 * another (NAME): the root would list a topic that is not, and
	 * refuse to create it. */
	if (n > 4 && strcmp(name + n - 4, ".twc") == 0)
		return tmq_is_group_topic(name) ?
		    tmq_fail(e, "'%s': bad group name (must not end in '.twc')",
		    tmq_group_of_log(name)) :
		    tmq_fail(e, "'%s': bad topic name (must not end in '.twc')",
		    name);
	if (partitions < 1 || partitions > TMQ_MAX_PARTITIONS)
		return tmq_fail(e, "bad partition count %u (1 to %d)",
		    partitions, TMQ_MAX_PARTITIONS);
	if (!tmq_keytype_valid(key_width))
		return tmq_fail(e, "bad key width %d", key_width);
	if (max_message > TMQ_MAX_MESSAGE_LIMIT)
		return tmq_fail(e, "--max-message %zu: over the %u-byte bound",
		    max_message, TMQ_MAX_MESSAGE_LIMIT);
	/* A blob reference is a message of the type tmq reserves: a topic
	 * that may hold them has it, and one that may not never does (a
	 * message of it there is no user's). */
	for (i = 0; i < ntypes; i++)
		if (types[i] != NULL && strcmp(types[i], TMQ_BLOB_TYPE) == 0)
			break;
	if (max_message > 0 && i == ntypes)
		return tmq_fail(e, "a topic with --max-message needs the "
		    "type '%s'", TMQ_BLOB_TYPE);
	if (max_message == 0 && i < ntypes && !tmq_is_group_topic(name))
		return tmq_fail(e, "type '%s' is reserved (for tmq's blob "
		    "references: --max-message)", TMQ_BLOB_TYPE);
	/* (An index may have no type: an archive's copy of a definition
	 * that skips some.) */
	for (i = 0; i < ntypes; i++) {
		if (types[i] == NULL)
			continue;
		if (tmq_type_name_check(types[i], e) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (types[j] != NULL && strcmp(types[i], types[j]) == 0)
				return tmq_fail(e, "type '%s' given twice",
				    types[i]);
	}
	/* A whole topic is not undone by a create: say so without making
	 * anything (in a read-only root too), unless a killed run left its
	 * work directory: that is cleared under the lock first. */
	look(rootfd, name, &s);
	snprintf(work, sizeof work, "%s" WORK_SUFFIX, name);
	if (s.dir && fstatat(rootfd, work, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (s.def || !s.dir_dir)
			return tmq_fail_code(e, TMQ_ERR_EXISTS,
			    "%s: topic exists", sj);
		return tmq_fail_code(e, TMQ_ERR_EXISTS,
		    "%s: not created: %s/ exists without a "
		    "definition (delete removes it)", sj, name);
	}
	if (work_lock(rootfd, name, "create the topic directory", &w, e) < 0)
		return -1;
	rc = create_locked(&w, name, key_width, partitions, types, ntypes,
	    group_topic, fill, arg, bare, max_message, e);
	work_unlock(&w);
	return rc;
}

int
tmq_topic_create_filled(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, tmq_topic_fill fill, void *arg,
    struct tmq_error *e)
{
	return create(rootfd, name, key_width, partitions, types, ntypes,
	    group_topic, fill, arg, 0, 0, e);
}

int
tmq_topic_create_bare(int rootfd, const struct tmq_topic *t,
    struct tmq_error *e)
{
	return create(rootfd, t->name, t->key_width, t->partitions, t->types,
	    t->ntypes, NULL, NULL, NULL, 1, t->max_message, e);
}

int
tmq_topic_create_max(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    size_t max_message, struct tmq_error *e)
{
	return create(rootfd, name, key_width, partitions, types, ntypes,
	    NULL, NULL, NULL, 0, max_message, e);
}

int
tmq_topic_create(int rootfd, const char *name, int key_width,
    unsigned partitions, char *const *types, unsigned ntypes,
    const char *group_topic, struct tmq_error *e)
{
	return tmq_topic_create_filled(rootfd, name, key_width, partitions,
	    types, ntypes, group_topic, NULL, NULL, e);
}

/* Under the lock: may the directory go?  Nothing foreign in it, and its
 * entries ours to remove; else nothing is changed. */
static int
deletable(int rootfd, const char *name, struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	struct tmq_foreign f;
	struct stat st;
	char list[256];
	int fd, rc = 0;

	fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return tmq_fail_errno(e, "%s: not deleted: cannot open %s/", sj,
		    name);
	if (tmq_own_scan(fd, &f, e) < 0)
		rc = tmq_fail_prefix(e, "%s: not deleted: %s/", sj, name);
	else if (f.n > 0)
		rc = tmq_fail(e, "%s: not deleted: %s/ holds entries that are "
		    "not the %s's: %s (remove them, then delete again)",
		    sj, name, kind(name),
		    tmq_foreign_text(&f, list, sizeof list));
	else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) < 0)
		rc = tmq_fail_errno(e, "%s: not deleted: %s/", sj, name);
	else if (fstatat(fd, TMQ_DOT_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && faccessat(fd, TMQ_DOT_DIR, W_OK | X_OK,
	    AT_EACCESS | AT_SYMLINK_NOFOLLOW) < 0)
		rc = tmq_fail_errno(e, "%s: not deleted: %s/" TMQ_DOT_DIR, sj,
		    name);
	close(fd);
	return rc;
}

/* found: the work directory was there, without the topic, before we
 * took its lock: the remains of a killed run (at the very end of a
 * delete, its lock alone, or not even that), or of one at work that has
 * finished by now.  Clearing them is the job, and a success. */
static int
delete_locked(struct work *w, const char *name, int found,
    struct tmq_error *e)
{
	const char *sj = tmq_group_of_log(name);
	char def[TMQ_NAME_MAX + 8], why[400], why_new[400];
	struct tmq_error ignored;
	struct state s;
	struct stat st;
	int left = 0, rc, rc_new;

	/* What a killed create or delete left is cleared first: then a
	 * delete after a killed create finds no topic and nothing left.
	 * What a killed create left is in no delete's way. */
	if (fstatat(w->wfd, "new", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    fstatat(w->wfd, "twc", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    fstatat(w->wfd, "old", &st, AT_SYMLINK_NOFOLLOW) == 0)
		left = 1;
	rc_new = clear_work(w, "new", why_new, sizeof why_new, &ignored);
	unlinkat(w->wfd, "twc", 0);
	rc = clear_work(w, "old", why, sizeof why, e);
	look(w->rootfd, name, &s);
	snprintf(def, sizeof def, "%s.twc", name);
	if (s.dir && !s.dir_dir)
		return tmq_fail(e, "%s: not deleted: %s is not a directory",
		    sj, name);
	if (s.dir) {
		if (rc != 0)
			return rc > 0 ? tmq_fail(e, "%s: not deleted: %s", sj,
			    why) : tmq_fail_prefix(e, "%s: not deleted", sj);
		if (deletable(w->rootfd, name, e) < 0)
			return -1;
		/* From here there is no topic: a definition alone. */
		if (renameat(w->rootfd, name, w->wfd, "old") < 0)
			return tmq_fail_errno(e, "%s: not deleted: cannot move "
			    "%s/ to %s/old", sj, name, w->shown);
	} else if (!s.def) {
		/* Nothing but the remains of killed runs: gone is done, what
		 * is foreign is said. */
		if (rc > 0)
			return tmq_fail(e, "%s: %s", sj, why);
		if (rc < 0)
			return tmq_fail_prefix(e, "%s", sj);
		if (rc_new > 0)
			return tmq_fail(e, "%s: %s", sj, why_new);
		if (rc_new < 0) {
			*e = ignored;
			return tmq_fail_prefix(e, "%s", sj);
		}
		return left || found ? 0 : tmq_topic_no_such(name, e);
	}
	if (s.def && unlinkat(w->rootfd, def, 0) < 0 && errno != ENOENT) {
		if (!s.dir)
			return tmq_fail_errno(e, "%s: cannot remove %s", sj,
			    def);
		tmq_fail_errno(e, "%s: deleted, but cannot remove %s", sj,
		    def);
		return 1;
	}
	if (!s.dir)
		return 0;
	rc = clear_work(w, "old", why, sizeof why, e);
	if (rc > 0)
		tmq_fail(e, "%s: deleted, but %s", sj, why);
	else if (rc < 0)
		tmq_fail_prefix(e, "%s: deleted, but", sj);
	return rc != 0;
}

int
tmq_topic_delete(int rootfd, const char *name, struct tmq_error *e)
{
	struct work w;
	struct state s;
	int rc, found;

	if (tmq_any_name_check(name, e) < 0)
		return -1;
	look(rootfd, name, &s);
	found = !s.def && !s.dir && tmq_topic_partial(rootfd, name);
	if (!s.def && !s.dir && !found)
		return tmq_topic_no_such(name, e);
	if (work_lock(rootfd, name, "delete", &w, e) < 0)
		return -1;
	rc = delete_locked(&w, name, found, e);
	work_unlock(&w);
	return rc;
}
