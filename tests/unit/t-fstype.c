/* t-fstype.c: telling a network filesystem's server gone away from a
 * file's own fault (lib/store/fstype.h).  The errors of an outage are
 * known by errno; on a local disk none of them is an outage (EIO there is
 * the disk's), and a descriptor whose filesystem cannot be asked counts
 * as a network one: the careful way. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "store/fstype.h"
#include "tap.h"

int
main(void)
{
	static const int outage[] = { ENOTCONN, ESTALE, EBADFD, EIO, ETIMEDOUT,
	    ECONNABORTED, ECONNRESET, ECONNREFUSED, EHOSTDOWN, EHOSTUNREACH,
	    ENETDOWN, ENETUNREACH, ENETRESET };
	static const int fault[] = { 0, ENOENT, EACCES, EPERM, ENOSPC, EDQUOT,
	    EINVAL, EISDIR, ELOOP, EROFS, EMFILE, ENOMEM, EINTR, EAGAIN };
	size_t i;
	int fd;

	for (i = 0; i < sizeof outage / sizeof outage[0]; i++)
		ok(tmq_outage_errno(outage[i]), "errno %d is an outage's",
		    outage[i]);
	for (i = 0; i < sizeof fault / sizeof fault[0]; i++)
		ok(!tmq_outage_errno(fault[i]), "errno %d is not an outage's",
		    fault[i]);
	/* The build directory's filesystem: a local one here (skip where
	 * the tree itself sits on a network one). */
	fd = open(".", O_RDONLY | O_DIRECTORY);
	ok(fd >= 0, "the current directory opens");
	if (tmq_fs_is_remote(fd)) {
		skip("the build directory is on a network or FUSE filesystem");
	} else {
		ok(!tmq_fs_outage(fd, EIO), "EIO on a local disk is the disk's");
		ok(!tmq_fs_outage(fd, ENOTCONN), "nor is ENOTCONN an outage there");
		ok(!tmq_fs_outage(fd, ENOENT), "nor ENOENT");
	}
	close(fd);
	/* A descriptor that cannot be asked: taken as a network one. */
	ok(tmq_fs_is_remote(-1), "fstatfs failing: taken as remote");
	ok(tmq_fs_outage(-1, ENOTCONN), "and ENOTCONN there is an outage");
	ok(!tmq_fs_outage(-1, ENOENT), "but ENOENT is not");
	/* The filesystems by their magic numbers (statfs f_type): FUSE's
	 * covers GlusterFS's fuse.glusterfs and Ceph's fuse.ceph-fuse; the
	 * kernel's CephFS client has its own. */
	ok(tmq_fs_magic_is_remote(0x65735546), "FUSE (fuse.glusterfs, "
	    "fuse.ceph-fuse) is remote");
	ok(tmq_fs_magic_is_remote(0x00c36400), "the kernel's ceph is remote");
	ok(tmq_fs_magic_is_remote(0x6969), "NFS is remote");
	ok(tmq_fs_magic_is_remote(0xfe534d42), "SMB2 is remote");
	ok(tmq_fs_magic_is_remote(0x01021997), "9p is remote");
	ok(!tmq_fs_magic_is_remote(0xef53), "ext4 is local");
	ok(!tmq_fs_magic_is_remote(0x58465342), "XFS is local");
	ok(!tmq_fs_magic_is_remote(0x9123683e), "btrfs is local");
	ok(!tmq_fs_magic_is_remote(0x01021994), "tmpfs is local");
	ok(!tmq_fs_magic_is_remote(0x794c7630), "overlayfs is local");
	ok(!tmq_fs_magic_is_remote(0x00c36401), "a number next to ceph's is not");
	/* The retries: 100 ms first, doubling, never past 5 s. */
	is_int(tmq_outage_backoff(0), 100, "the first wait");
	is_int(tmq_outage_backoff(100), 200, "then twice as long");
	is_int(tmq_outage_backoff(1600), 3200, "and again");
	is_int(tmq_outage_backoff(3200), 5000, "up to 5 s");
	is_int(tmq_outage_backoff(5000), 5000, "and no more");
	is_int(tmq_outage_backoff(-7), 100, "a wait below 0 starts over");
	return done_testing();
}
