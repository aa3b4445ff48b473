/* topic-delete.c: tmq-topic delete NAME: a topic and its messages deleted, its
 * groups with it on --with-groups (the entry's exec: topic.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "codec/names.h"
#include "cli/confirm.h"
#include "util/escape.h"
#include "group/groupadmin.h"
#include "store/topicgroups.h"
#include "topic.h"

/* "G, H" into buf, cut short with "..." when it is long. */
static const char *
names_text(char **v, size_t n, char *buf, size_t sz)
{
	size_t len = 0, i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int w = snprintf(buf + len, sz - len, "%s%s", i ? ", " : "",
		    v[i]);

		if (w < 0 || (size_t)w >= sz - len) {
			strcpy(buf + (sz > 4 ? sz - 4 : 0), "...");
			break;
		}
		len += (size_t)w;
	}
	return buf;
}

/* Delete the groups that read the deleted topic: their offsets point
 * into messages that are gone. */
static int
delete_groups(int fd, char **groups, size_t n)
{
	struct tmq_error e;
	size_t i;
	int rc = TMQ_EXIT_OK;

	for (i = 0; i < n; i++)
		if (tmq_group_delete(fd, groups[i], &e) != 0)
			rc = tmq_report(&topic_cmd, &e);
	return rc;
}

int
topic_delete(char **operands, int noperands)
{
	const struct topic_args *a = &topic_args;
	const char *name = operands[0];
	struct tmq_error e;
	struct tmq_topic t;
	char q[600], list[300], **groups = NULL;
	size_t ngroups = 0;
	int fd, ok, rc;

	if (tmq_topic_name_check(name, &e) < 0)
		return tmq_report(&topic_cmd, &e);
	if (topic_open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	/* What is left of a topic goes like a topic: a definition the TwainMQ
	 * library's delete_topic left, or what a killed create or delete
	 * left. */
	if (tmq_topic_open(fd, name, &t, &e) == 0)
		tmq_topic_close(&t);
	else if (!tmq_topic_partial(fd, name)) {
		close(fd);
		return tmq_report(&topic_cmd, &e);
	}
	if (tmq_topic_groups(fd, name, &groups, &ngroups, &e) < 0) {
		close(fd);
		return tmq_report(&topic_cmd, &e);
	}
	names_text(groups, ngroups, list, sizeof list);
	if (a->with_groups && ngroups > 0)
		snprintf(q, sizeof q, "delete topic '%s' and all its messages, "
		    "and the group%s that read%s it (%s)?", name,
		    ngroups == 1 ? "" : "s", ngroups == 1 ? "s" : "", list);
	else
		snprintf(q, sizeof q, "delete topic '%s' and all its messages?",
		    name);
	ok = tmq_confirm(q, a->yes, &e);
	if (ok <= 0) {
		rc = ok < 0 ? tmq_report(&topic_cmd, &e) : TMQ_EXIT_FAIL;
		if (ok == 0)
			tmq_warn(&topic_cmd, "%s: not deleted", name);
		goto out;
	}
	switch (tmq_topic_delete(fd, name, &e)) {
	case -1:
		rc = tmq_report(&topic_cmd, &e);
		goto out;
	case 1:		/* deleted, with something left: said, then on */
		rc = tmq_report(&topic_cmd, &e);
		break;
	default:
		rc = TMQ_EXIT_OK;
	}
	if (ngroups == 0)
		goto out;
	/* --yes answers the question asked, about the topic: the groups go
	 * only with --with-groups, or when the user says so here. */
	if (!a->with_groups && !a->yes) {
		snprintf(q, sizeof q, "delete the group%s that read%s it too "
		    "(%s)?", ngroups == 1 ? "" : "s", ngroups == 1 ? "s" : "",
		    list);
		ok = tmq_confirm(q, 0, &e);
	} else
		ok = a->with_groups;
	if (ok > 0) {
		if (delete_groups(fd, groups, ngroups) != TMQ_EXIT_OK)
			rc = TMQ_EXIT_FAIL;
	} else
		tmq_warn(&topic_cmd, "%s: kept the group%s that read%s it: %s "
		    "(--with-groups deletes them too)", name,
		    ngroups == 1 ? "" : "s", ngroups == 1 ? "s" : "", list);
out:
	tmq_names_free(groups, ngroups);
	close(fd);
	return rc;
}
