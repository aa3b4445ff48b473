/* replace.h: a file put in place whole: written (or locked) under a
 * temporary name beside it, then renamed onto its name, so that nobody
 * who opens the name ever finds it half written, or unlocked (nq's habit
 * for lock files).  The one way tmq puts a file in place in a root: a
 * group's snapshot and recorded topic, a member's lock file, a partition
 * index, tmq-put --follow's state; and the one rename that never replaces
 * (a new topic's directory, an archived file, a lock file, an index).
 *
 * A temporary is ".NAME.PID.RANDOM.tmp" in the same directory: a dot
 * name, which no topic, partition file or lock of ours is, and which the
 * TwainMQ library never lists.  One left by a writer killed before its
 * rename is removed by tmq_tmp_sweep once it is a minute old and nobody
 * holds a lock on it. */
#ifndef TMQ_REPLACE_H
#define TMQ_REPLACE_H

#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

/* Room for a temporary name (the name is cut to 200 bytes in it, so that
 * it stays within NAME_MAX for every name allowed). */
#define TMQ_TMP_NAME_MAX 256

/* Create a temporary for name in dirfd (O_EXCL, never through a link),
 * with the modes a file made in dirfd gets (modes.h): its descriptor,
 * open for writing (and reading), with its name in tmp; -1 with e set
 * ("SHOWN: " and the system's message; shown names name for messages). */
int tmq_tmp_create(int dirfd, const char *name, const char *shown,
    char tmp[TMQ_TMP_NAME_MAX], struct tmq_error *e);
/* The same, with the modes mode exactly, whatever the umask and the
 * directory's (a file that must be writable by its user only). */
int tmq_tmp_create_mode(int dirfd, const char *name, const char *shown,
    mode_t mode, char tmp[TMQ_TMP_NAME_MAX], struct tmq_error *e);
/* Rename tmp onto name in dirfd, replacing what is there (no directory).
 * On failure tmp is removed, and e says so. */
int tmq_tmp_commit(int dirfd, const char *tmp, const char *name,
    const char *shown, struct tmq_error *e);
/* Rename from in fromfd to to in tofd only where nothing is under to: 0,
 * or -1 with errno (EEXIST: something is).  renameat2's RENAME_NOREPLACE;
 * where the filesystem has none (FUSE, some network filesystems), a hard
 * link, then from removed (a kill between the two leaves one file under
 * both names).  Where neither can be done (a directory takes no hard
 * link; some filesystems have none), a plain rename when or_replace is
 * set, which replaces a file or an empty directory, never one with
 * entries; else -1. */
int tmq_rename_noreplace(int fromfd, const char *from, int tofd,
    const char *to, int or_replace);
/* Write buf[0..n) as name in dirfd: to a temporary, flushed to disk first
 * when sync is set (and the directory after the rename), then renamed into
 * place.  On failure nothing is left but what was there, and e says why
 * ("SHOWN: the directory: ..." when only the directory's flush failed,
 * the file in place). */
int tmq_write_replace(int dirfd, const char *name, const char *shown,
    const void *buf, size_t n, int sync, struct tmq_error *e);
/* The same, the file with the modes mode exactly (tmq_tmp_create_mode):
 * a cache only its own user may write. */
int tmq_write_replace_mode(int dirfd, const char *name, const char *shown,
    mode_t mode, const void *buf, size_t n, int sync, struct tmq_error *e);
/* Remove the temporaries of name (of every name, when NULL) in dirfd
 * that are a minute old or more and that no lock is held on: those of
 * writers killed before their rename.  Best effort. */
void tmq_tmp_sweep(int dirfd, const char *name);
/* For a caller that lists dirfd itself: whether entry is a temporary of
 * name (of any, when NULL), and the sweep's removal of one (when it is a
 * regular file a minute old or more that no lock is held on). */
int tmq_tmp_is(const char *entry, const char *name);
void tmq_tmp_drop_stale(int dirfd, const char *entry);

#endif
