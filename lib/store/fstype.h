/* fstype.h: telling network and FUSE filesystems from local ones. */
#ifndef TMQ_FSTYPE_H
#define TMQ_FSTYPE_H

/* Is the file open on fd on a network or FUSE filesystem (NFS, SMB/CIFS,
 * Ceph, AFS, Coda, NCP, 9p, FUSE)?  There, O_APPEND is not atomic against
 * other machines' writers and inotify does not see their writes.  When
 * fstatfs fails the answer is yes: the careful way. */
int tmq_fs_is_remote(int fd);
/* The same answer for a filesystem's magic number (statfs's f_type): the
 * one list.  Every FUSE filesystem has FUSE's number, whatever its
 * subtype: GlusterFS (fuse.glusterfs) and CephFS through ceph-fuse
 * (fuse.ceph-fuse) both; the kernel's CephFS client has its own (ceph,
 * CEPH_SUPER_MAGIC 0x00c36400). */
int tmq_fs_magic_is_remote(unsigned long f_type);
/* Is errno err, met on fd, a sign that a network filesystem's server is
 * away (ENOTCONN, ESTALE, EBADFD, EIO, a connection's errors) rather
 * than a fault of the file?  Only where fd is on a network or FUSE
 * filesystem: on a local disk EIO is the disk's. */
int tmq_fs_outage(int fd, int err);
/* The same test of err alone, where there is no descriptor to ask (a
 * root that could not be opened). */
int tmq_outage_errno(int err);

/* Retries while a server is away start after TMQ_OUTAGE_FIRST_MS and
 * double up to TMQ_OUTAGE_MAX_MS (milliseconds): bounded, and for as long
 * as the reader runs.  tmq_outage_backoff gives the wait after one of
 * ms (the first when ms is 0). */
#define TMQ_OUTAGE_FIRST_MS 100
#define TMQ_OUTAGE_MAX_MS 5000
int tmq_outage_backoff(int ms);

#endif
