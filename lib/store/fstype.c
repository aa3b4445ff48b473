/* fstype.c: the one list of filesystems that appenders lock on and
 * followers poll on (see fstype.h). */
#include <errno.h>
#include <sys/statfs.h>

#include "store/fstype.h"

#define NFS_MAGIC 0x6969
#define SMB_MAGIC 0x517b
#define CIFS_MAGIC 0xff534d42
#define SMB2_MAGIC 0xfe534d42
#define FUSE_MAGIC 0x65735546
#define CEPH_MAGIC 0x00c36400
#define AFS_MAGIC 0x5346414f
#define CODA_MAGIC 0x73757245
#define NCP_MAGIC 0x564c
#define V9FS_MAGIC 0x01021997

int
tmq_fs_is_remote(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return 1;
	return tmq_fs_magic_is_remote((unsigned long)sf.f_type);
}

int
tmq_fs_magic_is_remote(unsigned long f_type)
{
	switch (f_type) {
	case NFS_MAGIC: case SMB_MAGIC: case CIFS_MAGIC: case SMB2_MAGIC:
	case FUSE_MAGIC: case CEPH_MAGIC: case AFS_MAGIC: case CODA_MAGIC:
	case NCP_MAGIC: case V9FS_MAGIC:
		return 1;
	default:
		return 0;
	}
}

int
tmq_outage_errno(int err)
{
	switch (err) {
	case ENOTCONN: case ESTALE: case EBADFD: case EIO: case ETIMEDOUT:
	case ECONNABORTED: case ECONNRESET: case ECONNREFUSED: case EHOSTDOWN:
	case EHOSTUNREACH: case ENETDOWN: case ENETUNREACH: case ENETRESET:
		return 1;
	default:
		return 0;
	}
}

int
tmq_fs_outage(int fd, int err)
{
	return tmq_outage_errno(err) && tmq_fs_is_remote(fd);
}

int
tmq_outage_backoff(int ms)
{
	if (ms <= 0)
		return TMQ_OUTAGE_FIRST_MS;
	return ms >= TMQ_OUTAGE_MAX_MS / 2 ? TMQ_OUTAGE_MAX_MS : ms * 2;
}
