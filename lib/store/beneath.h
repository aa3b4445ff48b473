/* beneath.h: opening a path inside the root without leaving it.
 *
 * Anyone who may write to a root can plant a symbolic link in it.  Every
 * path tmq opens or creates inside the root is resolved here or is one
 * component opened with O_NOFOLLOW relative to a directory that was itself
 * opened so (the root's topic and group directories, tmq_topic_open);
 * mkdirat, renameat, unlinkat and fstatat(AT_SYMLINK_NOFOLLOW) never follow
 * a link in their last component.  What this adds is the directories on
 * the way: a symbolic link in place of .tmq must not carry the group's
 * lock (or anything else) out of the root. */
#ifndef TMQ_BENEATH_H
#define TMQ_BENEATH_H

#include <sys/types.h>

/* openat(dirfd, path, flags, mode), where path is relative and no
 * component (the last included) may be a symbolic link or "..": openat2
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, else
 * one directory at a time with O_DIRECTORY | O_NOFOLLOW.  A link fails with
 * ELOOP (ENOTDIR on the way, as O_NOFOLLOW says it), ".." or an absolute
 * path with EXDEV. */
int tmq_open_beneath(int dirfd, const char *path, int flags, mode_t mode);
/* The walk alone (the fallback; for the unit test). */
int tmq_open_beneath_walk(int dirfd, const char *path, int flags, mode_t mode);
/* Open the directory name (one component) in dirfd, making it first with
 * mode when create is set; never through a link. */
int tmq_subdir_beneath(int dirfd, const char *name, int create, mode_t mode);

#endif
