/* t-topicown.c: lib/store/topicown: which names in a topic directory are its
 * partition files, by the library's rule (Path.stem up to the first '-'
 * is str(partition)), checked against what Python's pathlib says of each;
 * and a directory emptied of its own entries only, its foreign ones named. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "store/topicown.h"

/* name, and whether the library takes it for a partition file: for each,
 * PurePath(name).stem.split("-")[0] == str(int(...)) under Python 3.11. */
static const struct {
	const char *name;
	int own;
} names[] = {
	{ "0-20250101_0.tmf", 1 }, { "3", 1 }, { "3.tmf", 1 }, { "12-x", 1 },
	{ "007-x", 0 }, { "0", 1 }, { "00", 0 }, { "0.", 0 }, { "0.a.b", 0 },
	{ "5.x-1", 1 }, { "-3", 0 }, { ".tmq", 0 }, { "a-1", 0 }, { "3a", 0 },
	{ "3.", 0 }, { "1-", 1 }, { "x.3", 0 }, { ".3", 0 },
	{ "65536-20250101_0.tmf", 1 }, { "3-", 1 }, { "3-.tmf", 1 },
	{ "0x", 0 }, { "1.2.3", 0 },
};

static int
touch(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int
main(void)
{
	char tmpl[] = "/tmp/t-topicown.XXXXXX", text[256];
	struct tmq_foreign f;
	struct tmq_error e;
	struct stat st;
	size_t i;
	int root, dfd;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		is_int(tmq_own_partition_name(names[i].name), names[i].own,
		    "'%s' is %sa partition file's name", names[i].name,
		    names[i].own ? "" : "not ");

	if (mkdtemp(tmpl) == NULL || (root = open(tmpl, O_RDONLY |
	    O_DIRECTORY)) < 0) {
		skip("no temporary directory");
		return done_testing();
	}
	/* Ours: 0-..., 3, a link named 1-...; .tmq and its files.  Not ours:
	 * notes, a directory named as a partition file, .tmq/sub. */
	mkdirat(root, "t", 0777);
	dfd = openat(root, "t", O_RDONLY | O_DIRECTORY);
	touch(dfd, "0-20250101_0.tmf");
	touch(dfd, "3");
	ok(symlinkat("/etc/passwd", dfd, "1-20250101_0.tmf") == 0,
	    "a link planted among the files");
	mkdirat(dfd, ".tmq", 0777);
	touch(dfd, ".tmq/lock");
	touch(dfd, ".tmq/snapshot");
	touch(dfd, "notes");
	mkdirat(dfd, "2-20250101_0.tmf", 0777);
	mkdirat(dfd, ".tmq/sub", 0777);
	is_int(tmq_own_scan(dfd, &f, &e), 0, "scan");
	is_int((int)f.n, 3, "three foreign entries");
	ok(strstr(f.shown, "notes") != NULL &&
	    strstr(f.shown, "2-20250101_0.tmf") != NULL &&
	    strstr(f.shown, ".tmq/sub") != NULL, "named: %s", f.shown);
	ok(fstatat(dfd, "3", &st, 0) == 0, "scan changes nothing");
	is_int(tmq_own_remove(root, "t", "t", &f, &e), 1,
	    "foreign entries keep the directory");
	is_int((int)f.n, 3, "the same three");
	ok(fstatat(dfd, "3", &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    fstatat(dfd, "0-20250101_0.tmf", &st, 0) < 0 &&
	    fstatat(dfd, "1-20250101_0.tmf", &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    fstatat(dfd, ".tmq/lock", &st, 0) < 0, "our entries are gone");
	ok(stat("/etc/passwd", &st) == 0, "the link's target is not");
	ok(fstatat(dfd, "notes", &st, 0) == 0 &&
	    fstatat(dfd, ".tmq/sub", &st, 0) == 0, "foreign ones stay");
	unlinkat(dfd, "notes", 0);
	unlinkat(dfd, "2-20250101_0.tmf", AT_REMOVEDIR);
	unlinkat(dfd, ".tmq/sub", AT_REMOVEDIR);
	is_int(tmq_own_remove(root, "t", "t", &f, &e), 0, "then it goes");
	ok(fstatat(root, "t", &st, 0) < 0 && errno == ENOENT, "gone");
	is_int(tmq_own_remove(root, "t", "t", &f, &e), 0,
	    "removing what is not there is done");
	/* Many foreign entries: the first named, the rest counted. */
	mkdirat(root, "u", 0777);
	close(dfd);
	dfd = openat(root, "u", O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 100; i++) {
		char nm[32];

		snprintf(nm, sizeof nm, "foreign-name-%03zu", i);
		touch(dfd, nm);
	}
	is_int(tmq_own_scan(dfd, &f, &e), 0, "scan of 100");
	tmq_foreign_text(&f, text, sizeof text);
	ok(f.listed > 0 && f.listed < 100 && strstr(text, " more") != NULL,
	    "listed %u, then: %s", f.listed, text + strlen(text) - 12);
	for (i = 0; i < 100; i++) {
		char nm[32];

		snprintf(nm, sizeof nm, "foreign-name-%03zu", i);
		unlinkat(dfd, nm, 0);
	}
	close(dfd);
	unlinkat(root, "u", AT_REMOVEDIR);
	close(root);
	rmdir(tmpl);
	return done_testing();
}
