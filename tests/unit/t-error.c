/* t-error.c: errors carry a code (lib/util/error.h), so that callers act
 * on the condition and never on a message's words.  The fillers set the
 * code and the errno behind it, a prefix keeps both, tmq_strerror names
 * each code; and the conditions callers act on come with their codes
 * from where they arise: no such root, topic or group, a name taken, a
 * file of the wrong kind planted in a root, text that is no JSON object. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "group/group.h"
#include "codec/jsontext.h"
#include "store/regfile.h"
#include "store/root.h"
#include "util/stop.h"
#include "tap.h"
#include "store/topic.h"

static void
test_fill(void)
{
	struct tmq_error e;
	int i, named = 1;

	memset(&e, 0, sizeof e);
	is_int(tmq_fail(&e, "plain %d", 1), -1, "tmq_fail returns -1");
	ok(e.code == TMQ_ERR_FAIL && e.sys == 0 && strcmp(e.msg, "plain 1") == 0,
	    "  code TMQ_ERR_FAIL, no errno, the message");
	errno = ENOENT;
	tmq_fail_errno(&e, "f");
	ok(e.code == TMQ_ERR_SYS && e.sys == ENOENT && errno == ENOENT,
	    "tmq_fail_errno: TMQ_ERR_SYS, the errno, errno kept");
	is_str(e.msg, "f: No such file or directory", "  the message");
	tmq_fail_code(&e, TMQ_ERR_NOGROUP, "g: no such group");
	tmq_fail_prefix(&e, "while %s", "joining");
	ok(e.code == TMQ_ERR_NOGROUP && e.sys == 0,
	    "a prefix keeps the code");
	is_str(e.msg, "while joining: g: no such group", "  and prefixes");
	errno = EACCES;
	tmq_fail_errno(&e, "x");
	tmq_fail_prefix(&e, "y");
	ok(e.code == TMQ_ERR_SYS && e.sys == EACCES, "  and the errno");
	errno = EINTR;
	tmq_fail_errno(&e, "r");
	ok(e.code == TMQ_ERR_SYS && e.sys == EINTR,
	    "an EINTR, not told to stop: TMQ_ERR_SYS");
	tmq_stop = 1;
	errno = EINTR;
	tmq_fail_errno(&e, "r");
	tmq_fail_prefix(&e, "p");
	tmq_stop = 0;
	ok(e.code == TMQ_ERR_STOPPED && e.sys == EINTR && errno == EINTR,
	    "an EINTR once told to stop is the stop: TMQ_ERR_STOPPED");
	is_str(e.msg, "p: r: told to stop", "  said so, not \"Interrupted "
	    "system call\"");
	is_int(tmq_fail_code(NULL, TMQ_ERR_EXISTS, "nowhere"), -1,
	    "no struct: still -1");
	for (i = 0; i < TMQ_ERR_NCODES; i++)
		named &= strcmp(tmq_strerror(i), "unknown error") != 0;
	ok(named, "tmq_strerror names every code");
	is_str(tmq_strerror(TMQ_ERR_NOGROUP), "no such group", "  NOGROUP");
	is_str(tmq_strerror(TMQ_ERR_NCODES), "unknown error", "  past them");
	is_str(tmq_strerror(-1), "unknown error", "  below them");
}

static void
test_conditions(const char *dir)
{
	char path[256];
	struct tmq_error e;
	struct tmq_group g;
	struct tmq_topic t;
	int rootfd;

	snprintf(path, sizeof path, "%s/none", dir);
	memset(&e, 0, sizeof e);
	is_int(tmq_root_open(path, 0, &rootfd, &e), -1, "a missing root");
	is_int(e.code, TMQ_ERR_NOROOT, "  TMQ_ERR_NOROOT");
	snprintf(path, sizeof path, "%s/root", dir);
	if (tmq_root_open(path, 1, &rootfd, &e) < 0) {
		diag("%s", e.msg);
		exit(99);
	}
	is_int(tmq_topic_open(rootfd, "t", &t, &e), -1, "a missing topic");
	is_int(e.code, TMQ_ERR_NOTOPIC, "  TMQ_ERR_NOTOPIC");
	is_int(tmq_topic_create(rootfd, "t", 4, 2, NULL, 0, NULL, &e), 0,
	    "made");
	is_int(tmq_topic_create(rootfd, "t", 4, 2, NULL, 0, NULL, &e), -1,
	    "made again");
	is_int(e.code, TMQ_ERR_EXISTS, "  TMQ_ERR_EXISTS: %s", e.msg);
	/* The TwainMQ library's create between its two steps: the
	 * directory, no definition yet. */
	mkdirat(rootfd, "half", 0777);
	is_int(tmq_topic_create(rootfd, "half", 4, 2, NULL, 0, NULL, &e), -1,
	    "a directory without its definition");
	is_int(e.code, TMQ_ERR_EXISTS, "  TMQ_ERR_EXISTS too: %s", e.msg);
	if (tmq_topic_open(rootfd, "t", &t, &e) < 0) {
		diag("%s", e.msg);
		exit(99);
	}
	is_int(tmq_group_open(rootfd, "g", "t", &g, &e), -1, "a missing group");
	is_int(e.code, TMQ_ERR_NOGROUP, "  TMQ_ERR_NOGROUP: %s", e.msg);
	is_int(tmq_group_create(rootfd, "g", &t, 0, &e), 0, "group made");
	is_int(tmq_group_create(rootfd, "g", &t, 0, &e), 0,
	    "made again: no error, another's will do");
	tmq_topic_close(&t);
	/* A FIFO planted where a definition goes. */
	mkfifoat(rootfd, "f.twc", 0666);
	mkdirat(rootfd, "f", 0777);
	is_int(tmq_topic_open(rootfd, "f", &t, &e), -1, "a FIFO for a definition");
	is_int(e.code, TMQ_ERR_FILEKIND, "  TMQ_ERR_FILEKIND: %s", e.msg);
	ok(symlinkat("t.twc", rootfd, "l") == 0, "a link planted");
	is_int(tmq_open_regular(rootfd, "l", O_RDONLY, 0, &e), -1, "a link");
	is_int(e.code, TMQ_ERR_FILEKIND, "  TMQ_ERR_FILEKIND: %s", e.msg);
	is_int(tmq_open_regular(rootfd, "nothing", O_RDONLY, 0, &e), -1,
	    "nothing there");
	ok(e.code == TMQ_ERR_SYS && e.sys == ENOENT, "  TMQ_ERR_SYS, ENOENT");
	close(rootfd);
}

static void
test_json(void)
{
	struct tmq_error e;

	is_int(tmq_json_strict_object((const unsigned char *)"[1]", 3, &e), -1,
	    "an array");
	is_int(e.code, TMQ_ERR_NOTJSON, "  TMQ_ERR_NOTJSON");
	is_int(tmq_json_strict_object((const unsigned char *)"{\"a\":}", 6, &e),
	    -1, "a broken object");
	is_int(e.code, TMQ_ERR_FAIL, "  not TMQ_ERR_NOTJSON: %s", e.msg);
}

int
main(void)
{
	char dir[] = "/tmp/t-error.XXXXXX", cmd[64];

	test_fill();
	test_json();
	if (mkdtemp(dir) == NULL) {
		skip("no scratch directory");
		return done_testing();
	}
	test_conditions(dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
