/* fstype.h: telling network and FUSE filesystems from local ones. */
#ifndef TMQ_FSTYPE_H
#define TMQ_FSTYPE_H

/* Is the file open on fd on a network or FUSE filesystem (NFS, SMB/CIFS,
 * Ceph, AFS, Coda, NCP, 9p, FUSE)?  There, O_APPEND is not atomic against
 * other machines' writers and inotify does not see their writes.  When
 * fstatfs fails the answer is yes: the careful way. */
int tmq_fs_is_remote(int fd);

#endif
