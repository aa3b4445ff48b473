/* modes.h: the modes of the files and directories tmq creates.
 *
 * The rule (tmq(7), "A shared root"): what tmq creates in a directory that
 * has the setgid bit and that its group may write to is readable and
 * writable by that group (and, for a directory, searchable), whatever the
 * umask; setgid already gives it the directory's group, and a new
 * directory the setgid bit.  Elsewhere the umask decides, as for any
 * program (0666 or 0777 less the umask).  So one setgid, group-writable
 * root serves a team, while each member keeps umask 022. */
#ifndef TMQ_MODES_H
#define TMQ_MODES_H

/* fd was opened (perhaps created) in dirfd: when dirfd is setgid and
 * group-writable and fd is ours, make fd group-readable and -writable. */
void tmq_mode_follow(int dirfd, int fd);
/* mkdirat(dirfd, name, 0777), then the rule above on the new directory;
 * returns what mkdirat returned (errno kept). */
int tmq_mkdir_follow(int dirfd, const char *name);

#endif
