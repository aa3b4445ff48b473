/* completion.c: the type names of a topic for the shell completions (see
 * completion.h).  A definition is written by whoever shares the root: it
 * is read by the same parser as every other, and only names that need no
 * quoting come out, so that nothing a co-user put in it reaches a shell's
 * expansion or is offered to be typed. */
#include <string.h>
#include <unistd.h>

#include "cli/completion.h"
#include "codec/names.h"
#include "store/root.h"
#include "store/topic.h"

int
tmq_completable_type(const char *name)
{
	struct tmq_error ignored;

	return tmq_topic_name_check(name, &ignored) == 0;
}

int
tmq_completion_types(const char *root, const char *topic, FILE *out,
    struct tmq_error *e)
{
	struct tmq_topic t;
	unsigned i;
	int fd, rc;

	if (tmq_root_open(root, 0, &fd, e) < 0)
		return -1;
	/* A group's log is a topic too, but its types are the protocol's. */
	if (tmq_is_group_topic(topic)) {
		close(fd);
		return tmq_fail(e, "%s: a group's log, not a topic", topic);
	}
	rc = tmq_topic_open(fd, topic, &t, e);
	close(fd);
	if (rc < 0)
		return -1;
	for (i = 0; i < t.ntypes; i++)
		if (t.types[i] != NULL && tmq_completable_type(t.types[i]))
			fprintf(out, "%s\n", t.types[i]);
	tmq_topic_close(&t);
	return 0;
}
