/* names.c: name rules (see names.h).  Names become file names in the root,
 * so the checks here are what keeps a name from escaping it. */
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "names.h"

/* Names come from the command line and from the root's directory: a name
 * that breaks the rules is shown escaped, 64 bytes at most, so that a file
 * a co-user named with terminal escapes or a newline shows as text. */
static int
check(const char *what, const char *name, size_t extra, struct tmq_error *e)
{
	size_t n = strlen(name);
	char shown[68];

	if (n == 0)
		return tmq_fail(e, "empty %s name", what);
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") != n)
		return tmq_fail(e, "'%s': bad %s name (use letters, digits, "
		    "'_', '.' and '-')", tmq_escape_name(name, shown,
		    sizeof shown), what);
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return tmq_fail(e, "'%s': bad %s name", name, what);
	if (name[0] == '-')
		return tmq_fail(e, "'%.64s%s': bad %s name (must not begin with "
		    "'-')", name, n > 64 ? "..." : "", what);
	if (n + extra > TMQ_NAME_MAX)
		return tmq_fail(e, "'%.64s...': %s name too long (%zu bytes, at "
		    "most %zu)", name, what, n, TMQ_NAME_MAX - extra);
	return 0;
}

int
tmq_topic_name_check(const char *name, struct tmq_error *e)
{
	return check("topic", name, 4, e);
}

int
tmq_group_name_check(const char *name, struct tmq_error *e)
{
	return check("group", name, 4 + strlen(TMQ_GROUP_PREFIX), e);
}

int
tmq_is_group_topic(const char *name)
{
	return strncmp(name, TMQ_GROUP_PREFIX, strlen(TMQ_GROUP_PREFIX)) == 0;
}

char *
tmq_group_log_name(const char *group, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s", TMQ_GROUP_PREFIX, group);
	return buf;
}

const char *
tmq_group_of_log(const char *name)
{
	return tmq_is_group_topic(name) ? name + strlen(TMQ_GROUP_PREFIX) :
	    name;
}

int
tmq_any_name_check(const char *name, struct tmq_error *e)
{
	if (tmq_is_group_topic(name))
		return tmq_group_name_check(tmq_group_of_log(name), e);
	return tmq_topic_name_check(name, e);
}

