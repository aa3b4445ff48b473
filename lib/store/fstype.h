/* fstype.h: telling network and FUSE filesystems from local ones. */
#ifndef TMQ_FSTYPE_H
#define TMQ_FSTYPE_H

/* Is the file open on fd on a network or FUSE filesystem (NFS, SMB/CIFS,
 * Ceph, AFS, Coda, NCP, 9p, FUSE)?  There, O_APPEND is not atomic against
 * other machines' writers and inotify does not see their writes.  When
 * fstatfs fails the answer is yes: the careful way. */
int tmq_fs_is_remote(int fd);
/* Is errno err, met on fd, a sign that a network filesystem's server is
 * away (ENOTCONN, ESTALE, EBADFD, EIO, a connection's errors) rather
 * than a fault of the file?  Only where fd is on a network or FUSE
 * filesystem: on a local disk EIO is the disk's. */
int tmq_fs_outage(int fd, int err);
/* The same test of err alone, where there is no descriptor to ask (a
 * root that could not be opened). */
int tmq_outage_errno(int err);

#endif
