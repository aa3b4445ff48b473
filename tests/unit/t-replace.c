/* t-replace.c: a file put in place whole (lib/store/replace.h) and the
 * dot-folder (lib/store/dotdir.h), on a scratch directory: a replacement
 * leaves the new bytes under the name and no temporary beside it; a
 * temporary is a dot name within NAME_MAX for the longest name; a failed
 * rename leaves nothing; a temporary of a set mode has it whatever the
 * umask; a rename without replacing refuses a name that is there, file or
 * directory, and moves onto nothing; the sweep removes only temporaries a
 * minute old that no lock is held on, of the name it is given; .tmq is
 * opened never through a link. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/dotdir.h"
#include "store/replace.h"
#include "tap.h"

static int dfd;
static char dir[] = "/tmp/t-replace.XXXXXX";

static int
there(const char *name)
{
	return faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static char *
slurp(const char *name)
{
	static char buf[256];
	int fd = openat(dfd, name, O_RDONLY);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

static void
spit(const char *name, int old)
{
	struct timespec t[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "x", 1) != 1)
		exit(99);
	close(fd);
	if (old)
		utimensat(dfd, name, t, 0);
}

/* Entries of the directory other than . and ..: how many. */
static int
entries(void)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = 0, c;

	snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
	if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%d", &n) != 1)
		n = -1;
	while (p != NULL && (c = fgetc(p)) != EOF)
		;
	if (p != NULL)
		pclose(p);
	return n;
}

int
main(void)
{
	char tmp[TMQ_TMP_NAME_MAX];
	char longname[256], cmd[64];
	struct tmq_error e;
	struct flock fl;
	int fd, fd2;

	if (mkdtemp(dir) == NULL || (dfd = open(dir, O_RDONLY)) < 0)
		return 99;

	/* Replacing. */
	ok(tmq_write_replace(dfd, "f", "f", "one", 3, 1, &e) == 0 &&
	    strcmp(slurp("f"), "one") == 0, "written in place");
	ok(tmq_write_replace(dfd, "f", "f", "second", 6, 0, &e) == 0 &&
	    strcmp(slurp("f"), "second") == 0, "replaced, whole");
	is_int(entries(), 1, "no temporary left beside it");

	/* The temporary's name. */
	fd = tmq_tmp_create(dfd, "f", "f", tmp, &e);
	ok(fd >= 0 && tmp[0] == '.' && strncmp(tmp, ".f.", 3) == 0 &&
	    strcmp(tmp + strlen(tmp) - 4, ".tmp") == 0, "a temporary: %s", tmp);
	ok(!there("f") || strcmp(slurp("f"), "second") == 0,
	    "  the name untouched meanwhile");
	close(fd);
	unlinkat(dfd, tmp, 0);
	memset(longname, 'n', 250);
	longname[250] = '\0';
	fd = tmq_tmp_create(dfd, longname, "long", tmp, &e);
	ok(fd >= 0 && strlen(tmp) <= NAME_MAX, "a 250-byte name: its "
	    "temporary is %zu bytes", strlen(tmp));
	close(fd);
	ok(tmq_tmp_commit(dfd, tmp, longname, "long", &e) == 0 &&
	    there(longname), "  renamed into place");
	unlinkat(dfd, longname, 0);

	/* A temporary of its own mode. */
	{
		mode_t old = umask(0);
		struct stat st;

		fd = tmq_tmp_create_mode(dfd, "m", "m", 0644, tmp, &e);
		ok(fd >= 0 && fstat(fd, &st) == 0 &&
		    (st.st_mode & 07777) == 0644, "mode 0644 with umask 0");
		close(fd);
		unlinkat(dfd, tmp, 0);
		umask(077);
		fd = tmq_tmp_create_mode(dfd, "m", "m", 0644, tmp, &e);
		ok(fd >= 0 && fstat(fd, &st) == 0 &&
		    (st.st_mode & 07777) == 0644, "  and with umask 077");
		close(fd);
		unlinkat(dfd, tmp, 0);
		umask(old);
	}

	/* Renaming without replacing. */
	spit("from", 0);
	spit("to", 0);
	{
		int fdt = openat(dfd, "to", O_WRONLY | O_TRUNC);

		if (fdt < 0 || write(fdt, "there", 5) != 5)
			return 99;
		close(fdt);
	}
	is_int(tmq_rename_noreplace(dfd, "from", dfd, "to", 0), -1,
	    "rename without replacing: refused onto a file");
	is_int(errno, EEXIST, "  EEXIST");
	ok(there("from") && strcmp(slurp("to"), "there") == 0,
	    "  both as they were");
	is_int(tmq_rename_noreplace(dfd, "from", dfd, "to", 1), -1,
	    "  refused with or_replace too (the filesystem can refuse)");
	is_int(tmq_rename_noreplace(dfd, "from", dfd, "new", 0), 0,
	    "onto nothing: moved");
	ok(!there("from") && strcmp(slurp("new"), "x") == 0, "  whole");
	mkdirat(dfd, "dfrom", 0755);
	mkdirat(dfd, "dto", 0755);
	is_int(tmq_rename_noreplace(dfd, "dfrom", dfd, "dto", 1), -1,
	    "a directory onto an empty one: refused");
	is_int(errno, EEXIST, "  EEXIST");
	is_int(tmq_rename_noreplace(dfd, "dfrom", dfd, "dnew", 1), 0,
	    "a directory onto nothing: moved");
	ok(!there("dfrom") && there("dnew"), "  there");
	unlinkat(dfd, "dnew", AT_REMOVEDIR);
	unlinkat(dfd, "dto", AT_REMOVEDIR);
	unlinkat(dfd, "to", 0);
	unlinkat(dfd, "new", 0);

	/* A rename that fails leaves nothing, and says why. */
	mkdirat(dfd, "d", 0755);
	is_int(tmq_write_replace(dfd, "d", "SHOWN", "x", 1, 0, &e), -1,
	    "onto a directory: refused");
	ok(e.code == TMQ_ERR_SYS && e.sys == EISDIR &&
	    strcmp(e.msg, "SHOWN: Is a directory") == 0, "  %s", e.msg);
	is_int(entries(), 2, "  no temporary left");

	/* The sweep. */
	spit(".f.99.00ab.tmp", 1);		/* old, unlocked: goes */
	spit("f.98.00ab.tmp", 1);		/* an older tmq's: goes */
	spit(".f.97.00ab.tmp", 0);		/* fresh: stays */
	spit(".f.96.00ab.tmp", 1);		/* old, locked: stays */
	spit(".g.95.00ab.tmp", 1);		/* another name's: stays */
	spit(".f.tmp", 1);			/* not a temporary: stays */
	spit(".f.x.00ab.tmp", 1);		/* not one either */
	fd2 = openat(dfd, ".f.96.00ab.tmp", O_RDWR);
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	ok(fd2 >= 0 && fcntl(fd2, F_OFD_SETLK, &fl) == 0, "a temporary locked");
	tmq_tmp_sweep(dfd, "f");
	ok(!there(".f.99.00ab.tmp") && !there("f.98.00ab.tmp"),
	    "old unlocked temporaries of f removed");
	ok(there(".f.97.00ab.tmp"), "a fresh one kept");
	ok(there(".f.96.00ab.tmp"), "a locked one kept");
	ok(there(".g.95.00ab.tmp") && there(".f.tmp") && there(".f.x.00ab.tmp"),
	    "other names kept");
	close(fd2);
	tmq_tmp_sweep(dfd, NULL);
	ok(!there(".f.96.00ab.tmp") && !there(".g.95.00ab.tmp"),
	    "every name's, once unlocked");
	ok(there(".f.97.00ab.tmp") && there(".f.tmp"), "  fresh ones and "
	    "others kept");

	/* .tmq */
	is_int(tmq_dot_open(dfd, 0), -1, ".tmq: none yet");
	is_int(errno, ENOENT, "  ENOENT");
	fd = tmq_dot_open(dfd, 1);
	ok(fd >= 0, "made");
	close(fd);
	fd = tmq_dot_open(dfd, 0);
	ok(fd >= 0, "opened");
	close(fd);
	renameat(dfd, ".tmq", dfd, "real");
	ok(symlinkat("real", dfd, ".tmq") == 0, "a link planted for .tmq");
	is_int(tmq_dot_open(dfd, 1), -1, "a link: not followed");
	tmq_dot_fail(dfd, "G/.tmq", &e);
	is_str(e.msg, "G/.tmq is a symbolic link (not followed)", "  said");
	is_int(e.code, TMQ_ERR_FILEKIND, "  with its code");

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
