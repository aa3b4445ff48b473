/* grouptopic.c: a library group's topic, kept (see grouptopic.h).
 *
 * The file is the topic's name and a newline.  Anyone who may write the
 * root may write it too: it is read as strictly as a definition (a name
 * of a topic that exists, nothing else), and the worst a forged one can
 * do is what planting a group's definition can: make prune count a
 * group's commits against another topic, keeping more than it would. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/dotdir.h"
#include "group/grouptopic.h"
#include "codec/names.h"
#include "store/replace.h"
#include "store/smallfile.h"
#include "store/topic.h"

#define DIR_NAME TMQ_DOT_DIR
#define FILE_NAME TMQ_DOT_GTOPIC

int
tmq_group_topic_recall(int rootfd, int logdirfd, char *buf,
    struct tmq_error *e)
{
	char shown[32];
	size_t n;
	int dfd, rc;

	dfd = tmq_dot_open(logdirfd, 0);
	if (dfd < 0)
		return 0;
	snprintf(shown, sizeof shown, "%s/%s", DIR_NAME, FILE_NAME);
	rc = tmq_small_read(dfd, FILE_NAME, shown, buf, TMQ_NAME_MAX + 1, &n,
	    e);
	close(dfd);
	if (rc <= 0)
		return rc;
	if (n < 2 || buf[n - 1] != '\n' || memchr(buf, '\0', n) != NULL)
		return tmq_fail(e, "%s: not a topic's name and a newline",
		    shown);
	buf[n - 1] = '\0';
	if (tmq_topic_name_check(buf, e) < 0)
		return tmq_fail_prefix(e, "%s", shown);
	if (!tmq_topic_exists(rootfd, buf))
		return tmq_fail(e, "%s: no topic %s in the root", shown, buf);
	return 1;
}

void
tmq_group_topic_keep(int logdirfd, const char *topic)
{
	char now[TMQ_NAME_MAX + 2], line[TMQ_NAME_MAX + 2], shown[32];
	struct tmq_error e;
	size_t len;
	int dfd, n;

	n = snprintf(line, sizeof line, "%s\n", topic);
	if (n < 0 || (size_t)n >= sizeof line)
		return;
	dfd = tmq_dot_open(logdirfd, 1);
	if (dfd < 0)
		return;
	snprintf(shown, sizeof shown, "%s/%s", DIR_NAME, FILE_NAME);
	if (tmq_small_read(dfd, FILE_NAME, shown, now, TMQ_NAME_MAX + 1, &len,
	    &e) == 1 && len == (size_t)n && memcmp(now, line, len) == 0) {
		close(dfd);
		return;
	}
	tmq_tmp_sweep(dfd, FILE_NAME);
	(void)tmq_write_replace(dfd, FILE_NAME, shown, line, (size_t)n, 0, &e);
	close(dfd);
}
