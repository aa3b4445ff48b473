/* topicgroups.c: the groups that read a topic (see topicgroups.h). */
#include <stdlib.h>
#include <string.h>

#include "codec/names.h"
#include "store/topic.h"
#include "store/topicgroups.h"

int
tmq_topic_groups(int rootfd, const char *topic, char ***names, size_t *n,
    struct tmq_error *e)
{
	char **all;
	size_t nall, i, k = 0;

	if (tmq_topic_names(rootfd, 1, &all, &nall, e) < 0)
		return -1;
	for (i = 0; i < nall; i++) {
		struct tmq_topic t;
		struct tmq_error e2;
		int match;

		/* A group whose definition cannot be read is not known to
		 * read the topic: it is left alone. */
		if (tmq_topic_open(rootfd, all[i], &t, &e2) < 0)
			match = 0;
		else {
			match = t.group_topic != NULL &&
			    strcmp(t.group_topic, topic) == 0;
			tmq_topic_close(&t);
		}
		if (match)
			memmove(all[i], tmq_group_of_log(all[i]),
			    strlen(tmq_group_of_log(all[i])) + 1);
		else {
			free(all[i]);
			all[i] = NULL;
		}
	}
	for (i = 0; i < nall; i++)
		if (all[i] != NULL)
			all[k++] = all[i];
	*names = all;
	*n = k;
	return 0;
}
