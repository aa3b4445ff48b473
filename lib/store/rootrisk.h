/* rootrisk.h: is a root safe to share?  Anyone who can write to the root
 * can plant, replace or remove its files, links included; tmq never
 * follows a link inside the root (beneath.h), but a co-user with write
 * access can still remove or rewrite what is there.  The rule (tmq(7),
 * "A shared root"): a root is at risk when
 *   - every user may write to it and it has no sticky bit; or
 *   - it belongs to another user than the invoking one (and than root),
 *     who lets others write to it (group or world); or
 *   - its group may write to it and the invoking user is not in it.
 * A setgid, group-writable root owned by root (or by the invoking user)
 * whose group is the team is the safe shared root. */
#ifndef TMQ_ROOTRISK_H
#define TMQ_ROOTRISK_H

#include <stddef.h>

/* fd is the open root, path how it was named.  Returns 1 and a one-line
 * message naming the path and the risk in msg when the root is at risk,
 * else 0. */
int tmq_root_risk(int fd, const char *path, char *msg, size_t n);

#endif
