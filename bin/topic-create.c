/* topic-create.c: tmq-topic create NAME: a topic made whole, or none (the
 * entry's exec: topic.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/names.h"
#include "cli/metrics.h"
#include "topic.h"

int
topic_create(char **operands, int noperands)
{
	const struct topic_args *a = &topic_args;
	const char *name = operands[0];
	struct tmq_error e;
	char **types = a->types.v;
	unsigned ntypes = a->types.n, i;
	int fd, rc;

	if (tmq_topic_name_check(name, &e) < 0)
		return tmq_report(&topic_cmd, &e);
	if (topic_open_root(a, 1, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (a->max_message > 0) {
		/* The reserved type of blob references, after the user's. */
		types = malloc((a->types.n + 1) * sizeof *types);
		if (types == NULL) {
			close(fd);
			return tmq_warn(&topic_cmd, "out of memory"), TMQ_EXIT_FAIL;
		}
		if (a->types.n > 0)
			memcpy(types, a->types.v, a->types.n * sizeof *types);
		types[a->types.n] = (char *)TMQ_BLOB_TYPE;
		ntypes = a->types.n + 1;
		for (i = 0; i < a->types.n; i++)
			if (strcmp(a->types.v[i], TMQ_BLOB_TYPE) == 0) {
				free(types);
				close(fd);
				tmq_warn(&topic_cmd, "type '%s' is reserved (for tmq's "
				    "blob references: --max-message)",
				    TMQ_BLOB_TYPE);
				return TMQ_EXIT_FAIL;
			}
	}
	rc = tmq_topic_create_max(fd, name, a->width, (unsigned)a->partitions,
	    types, ntypes, (size_t)a->max_message, &e);
	/* --if-not-exists: the same definition there already is what was
	 * asked for; another is an error that names the difference. */
	if (rc < 0 && e.code == TMQ_ERR_EXISTS && a->if_not_exists) {
		struct tmq_topic t;
		char why[600];

		rc = tmq_topic_open(fd, name, &t, &e);
		if (rc == 0) {
			if (t.max_message != a->max_message)
				rc = tmq_fail(&e, "%s exists with another "
				    "definition: max_message %zu, not %llu",
				    name, t.max_message,
				    (unsigned long long)a->max_message);
			else if (!tmq_topic_same(&t, a->width,
			    (unsigned)a->partitions, types, ntypes, why,
			    sizeof why))
				rc = tmq_fail(&e, "%s exists with another "
				    "definition: %s", name, why);
			tmq_topic_close(&t);
		}
	}
	close(fd);
	if (types != a->types.v)
		free(types);
	return rc < 0 ? tmq_report(&topic_cmd, &e) : TMQ_EXIT_OK;
}
