/* names.c: name rules (see names.h).  Names become file names in the root,
 * so the checks here are what keeps a name from escaping it. */
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "codec/names.h"
#include "util/utf8.h"

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


/* The code point that begins s (valid UTF-8), its length into *len. */
static unsigned long
code_point(const unsigned char *s, size_t *len)
{
	if (s[0] < 0x80) {
		*len = 1;
		return s[0];
	}
	if (s[0] < 0xE0) {
		*len = 2;
		return (unsigned long)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
	}
	if (s[0] < 0xF0) {
		*len = 3;
		return (unsigned long)(s[0] & 0x0F) << 12 |
		    (unsigned long)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
	}
	*len = 4;
	return (unsigned long)(s[0] & 0x07) << 18 |
	    (unsigned long)(s[1] & 0x3F) << 12 |
	    (unsigned long)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
}

int
tmq_type_name_check(const char *name, struct tmq_error *e)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), i, len;
	char shown[68];

	if (n == 0)
		return tmq_fail(e, "empty type name");
	if (n > TMQ_TYPE_NAME_MAX)
		return tmq_fail(e, "'%s': type name too long (%zu bytes, at "
		    "most %d)", tmq_escape_name(name, shown, sizeof shown), n,
		    TMQ_TYPE_NAME_MAX);
	if (!tmq_utf8_valid(s, n))
		return tmq_fail(e, "'%s': bad type name (not valid UTF-8)",
		    tmq_escape_name(name, shown, sizeof shown));
	for (i = 0; i < n; i += len) {
		unsigned long c = code_point(s + i, &len);

		if (c < 0x20 || (c >= 0x7F && c < 0xA0) || c == 0x200E ||
		    c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
		    (c >= 0x2066 && c <= 0x2069))
			return tmq_fail(e, "'%s': bad type name (control "
			    "character U+%04lX)", tmq_escape_name(name, shown,
			    sizeof shown), c);
	}
	return 0;
}
