/* topic.c: topic definitions.  A .twc is JSON with key_width, partitions
 * and message_types; readers accept any layout and ignore unknown fields
 * (tmq-format(5)).  We write the TwainMQ library's own layout (one field a
 * line) so a diff against a library-made root stays quiet. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "store/dirlist.h"
#include "util/escape.h"
#include "codec/jsontext.h"
#include "codec/keys.h"
#include "store/modes.h"
#include "util/grow.h"
#include "codec/names.h"
#include "store/partfile.h"
#include "store/partindex.h"
#include "codec/timestamp.h"
#include "store/regfile.h"
#include "store/topic.h"

#define TWC_MAX (1 << 20)

void
tmq_topic_close(struct tmq_topic *t)
{
	unsigned i;

	if (t->dirfd >= 0)
		close(t->dirfd);
	for (i = 0; i < t->ntypes; i++)
		free(t->types[i]);
	free(t->types);
	free(t->name);
	free(t->group_topic);
	tmq_pidx_said_free(t->said);
	memset(t, 0, sizeof *t);
	t->dirfd = -1;
}

static int
get_int(struct json_object *root, const char *field, long long *v,
    struct tmq_error *e)
{
	struct json_object *o;

	if (!json_object_object_get_ex(root, field, &o))
		return tmq_fail(e, "missing \"%s\"", field);
	if (!json_object_is_type(o, json_type_int))
		return tmq_fail(e, "\"%s\" is not an integer", field);
	errno = 0;
	*v = json_object_get_int64(o);
	if (errno != 0)
		return tmq_fail(e, "\"%s\" out of range", field);
	return 0;
}

/* "partitions" as the TwainMQ library reads it: it takes int() of whatever the
 * definition holds, and its create_topic writes what it was given, so a
 * count passed as 3.0 (a float) or "3" (from an environment variable or a
 * command line) makes a topic its producers and consumers use.  We take
 * the same: an integer, a number with an integral value, or a string of
 * one as Python's int() reads it (ASCII digits, single underscores between
 * them, an optional sign, surrounding white space).  A fraction, which
 * int() would cut, is refused rather than guessed at. */
static int
get_count(struct json_object *root, const char *field, long long *v,
    struct tmq_error *e)
{
	struct json_object *o;
	const char *s, *end;
	long long x = 0;
	int neg = 0, digits = 0;
	double d;

	if (!json_object_object_get_ex(root, field, &o))
		return tmq_fail(e, "missing \"%s\"", field);
	if (json_object_is_type(o, json_type_double)) {
		d = json_object_get_double(o);
		if (!(d >= -1e15 && d <= 1e15) || d != (double)(long long)d)
			return tmq_fail(e, "\"%s\" is not an integer", field);
		*v = (long long)d;
		return 0;
	}
	if (!json_object_is_type(o, json_type_string))
		return get_int(root, field, v, e);
	s = json_object_get_string(o);
	end = s + json_object_get_string_len(o);
	while (s < end && strchr(" \t\n\r\v\f", *s) != NULL && *s != '\0')
		s++;
	while (end > s && strchr(" \t\n\r\v\f", end[-1]) != NULL &&
	    end[-1] != '\0')
		end--;
	if (s < end && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	for (; s < end; s++) {
		if (*s == '_' && digits > 0 && s + 1 < end && s[1] >= '0' &&
		    s[1] <= '9')
			continue;
		if (*s < '0' || *s > '9')
			return tmq_fail(e, "\"%s\" is not an integer", field);
		if (x > (1LL << 40))
			return tmq_fail(e, "\"%s\" out of range", field);
		x = x * 10 + (*s - '0');
		digits++;
	}
	if (digits == 0)
		return tmq_fail(e, "\"%s\" is not an integer", field);
	*v = neg ? -x : x;
	return 0;
}

int
tmq_topic_parse(const char *json, size_t n, struct tmq_topic *t,
    struct tmq_error *e)
{
	struct json_tokener *tok;
	struct json_object *root = NULL, *types, *o;
	long long width, parts;
	size_t at;
	int rc = -1;

	memset(t, 0, sizeof *t);
	t->dirfd = -1;
	if (n > TWC_MAX)
		return tmq_fail(e, "definition too large");
	tok = json_tokener_new();
	if (tok == NULL)
		return tmq_fail(e, "out of memory");
	root = json_tokener_parse_ex(tok, json, (int)n);
	if (root == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    !tmq_json_only_space(json + tok->char_offset,
	    n - (size_t)tok->char_offset)) {
		tmq_fail(e, "definition is not valid JSON");
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		tmq_fail(e, "definition is not a JSON object");
		goto out;
	}
	/* Type names (and every other name) would come back cut at a NUL:
	 * two types could share one, or a field pass for another. */
	if (tmq_json_has_nul(json, n, &at)) {
		tmq_fail(e, "\\u0000 at byte %zu: a name cannot hold NUL", at);
		goto out;
	}
	if (get_int(root, "key_width", &width, e) < 0 ||
	    get_count(root, "partitions", &parts, e) < 0)
		goto out;
	if (width < -TMQ_KEY_MAX_BYTES || width > 8 ||
	    !tmq_keytype_valid((int)width)) {
		tmq_fail(e, "bad key_width %lld", width);
		goto out;
	}
	if (parts < 1 || parts > TMQ_MAX_PARTITIONS) {
		tmq_fail(e, "bad partitions %lld (1 to %d)", parts,
		    TMQ_MAX_PARTITIONS);
		goto out;
	}
	t->key_width = (int)width;
	t->partitions = (unsigned)parts;
	if (json_object_object_get_ex(root, "message_types", &types)) {
		if (!json_object_is_type(types, json_type_object)) {
			tmq_fail(e, "\"message_types\" is not an object");
			goto out;
		}
		json_object_object_foreach(types, name, idx) {
			long long i;

			/* Printed as it is (tmq-get -F %y, -J): checked as
			 * strictly as the names of topics. */
			if (tmq_type_name_check(name, e) < 0)
				goto out;
			if (!json_object_is_type(idx, json_type_int) ||
			    (i = json_object_get_int64(idx)) < 0 ||
			    i >= TMQ_MAX_TYPES) {
				char shown[68];

				tmq_fail(e, "bad index for type \"%s\"",
				    tmq_escape_name(name, shown, sizeof shown));
				goto out;
			}
			if ((unsigned)i >= t->ntypes) {
				char **nt = realloc(t->types,
				    ((size_t)i + 1) * sizeof *nt);

				if (nt == NULL) {
					tmq_fail(e, "out of memory");
					goto out;
				}
				memset(nt + t->ntypes, 0,
				    ((size_t)i + 1 - t->ntypes) * sizeof *nt);
				t->types = nt;
				t->ntypes = (unsigned)i + 1;
			}
			if (t->types[i] != NULL) {
				tmq_fail(e, "two types share index %lld", i);
				goto out;
			}
			t->types[i] = strdup(name);
			if (t->types[i] == NULL) {
				tmq_fail(e, "out of memory");
				goto out;
			}
		}
	}
	if (json_object_object_get_ex(root, "max_message", &o)) {
		long long mm;

		if (get_int(root, "max_message", &mm, e) < 0)
			goto out;
		if (mm < 1 || mm > TMQ_MAX_MESSAGE_LIMIT) {
			tmq_fail(e, "bad max_message %lld (1 to %u)", mm,
			    TMQ_MAX_MESSAGE_LIMIT);
			goto out;
		}
		t->max_message = (size_t)mm;
	}
	if (json_object_object_get_ex(root, "topic", &o) &&
	    json_object_is_type(o, json_type_string)) {
		/* Shown and used as a name: it must be one. */
		if (tmq_topic_name_check(json_object_get_string(o), e) < 0) {
			tmq_fail_prefix(e, "\"topic\"");
			goto out;
		}
		t->group_topic = strdup(json_object_get_string(o));
	}
	rc = 0;
out:
	json_object_put(root);
	json_tokener_free(tok);
	if (rc < 0)
		tmq_topic_close(t);
	return rc;
}

/* Read a whole small file relative to dirfd: 0, or -1 with e set (a
 * TMQ_ERR_SYS of ENOENT when there is none). */
static int
slurp(int dirfd, const char *path, char **buf, size_t *n, struct tmq_error *e)
{
	struct stat st;
	ssize_t r;
	size_t got = 0;
	int fd;

	fd = tmq_open_regular(dirfd, path, O_RDONLY, 0, e);
	if (fd < 0) {
		if (e->code != TMQ_ERR_FILEKIND)	/* that says what it is */
			tmq_fail_errno(e, "cannot read %s", path);
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_size > TWC_MAX) {
		close(fd);
		errno = EFBIG;
		return tmq_fail_errno(e, "cannot read %s", path);
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (*buf == NULL) {
		close(fd);
		return tmq_fail(e, "out of memory");
	}
	while ((r = read(fd, *buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	if (r < 0) {
		free(*buf);
		return tmq_fail_errno(e, "cannot read %s", path);
	}
	(*buf)[got] = '\0';
	*n = got;
	return 0;
}

int
tmq_topic_no_such(const char *name, struct tmq_error *e)
{
	if (tmq_is_group_topic(name))
		return tmq_fail_code(e, TMQ_ERR_NOGROUP, "%s: no such group",
		    tmq_group_of_log(name));
	return tmq_fail_code(e, TMQ_ERR_NOTOPIC, "%s: no such topic", name);
}

int
tmq_topic_open(int rootfd, const char *name, struct tmq_topic *t,
    struct tmq_error *e)
{
	char path[TMQ_NAME_MAX + 8], *json = NULL;
	struct tmq_error own;
	struct stat st;
	size_t n = 0;
	int rc;

	if (e == NULL)
		e = &own;
	memset(t, 0, sizeof *t);
	t->dirfd = -1;
	if (tmq_any_name_check(name, e) < 0)
		return -1;
	snprintf(path, sizeof path, "%s.twc", name);
	if (slurp(rootfd, path, &json, &n, e) < 0) {
		if (e->code == TMQ_ERR_SYS && e->sys == ENOENT)
			return tmq_topic_no_such(name, e);
		return tmq_fail_prefix(e, "%s", name);
	}
	rc = tmq_topic_parse(json, n, t, e);
	free(json);
	if (rc < 0)
		return tmq_fail_prefix(e, "%s: corrupt %s", name, path);
	t->name = strdup(name);
	t->dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (t->dirfd < 0) {
		rc = errno;
		tmq_topic_close(t);
		errno = rc;
		/* A definition without its directory is no topic: what the
		 * TwainMQ library's delete_topic leaves, and what a create or
		 * delete shows between its two steps (topicmake.c). */
		if (errno == ENOENT)
			return tmq_topic_no_such(name, e);
		/* O_NOFOLLOW says ENOTDIR (or ELOOP) for a symbolic link. */
		if ((errno == ENOTDIR || errno == ELOOP) &&
		    fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			return tmq_fail(e, "%s: the topic directory is a symbolic "
			    "link (not followed)", name);
		errno = rc;
		return tmq_fail_errno(e, "%s: cannot open the topic directory",
		    name);
	}
	if (t->name == NULL || (t->said = tmq_pidx_said_new()) == NULL) {
		tmq_topic_close(t);
		return tmq_fail(e, "out of memory");
	}
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
tmq_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
tmq_topic_names(int rootfd, int groups, char ***names, size_t *n,
    struct tmq_error *e)
{
	struct dirent *de;
	char **v = NULL;
	size_t len, cnt = 0, cap = 0;
	DIR *d;
	int fd, got;

	fd = dup(rootfd);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return tmq_fail_errno(e, "cannot read the root");
	}
	rewinddir(d);
	while ((got = tmq_dir_next(d, &de)) > 0) {
		char *nm;
		int isg;

		/* Names that begin with '.' are topics too: the TwainMQ
		 * library allows and lists them (tmq-format(5)).  Our own
		 * temporary definitions end in .twc.PID, not .twc. */
		len = strlen(de->d_name);
		if (len <= 4 || strcmp(de->d_name + len - 4, ".twc") != 0)
			continue;
		isg = tmq_is_group_topic(de->d_name);
		if ((groups == 0 && isg) || (groups == 1 && !isg))
			continue;
		if (tmq_grow(&v, &cap, cnt + 1, sizeof *v) < 0)
			goto oom;
		nm = strndup(de->d_name, len - 4);
		if (nm == NULL)
			goto oom;
		/* Deleted by the TwainMQ library: its definition is all that
		 * is left. */
		if (tmq_topic_leftover(fd, nm)) {
			free(nm);
			continue;
		}
		v[cnt++] = nm;
	}
	if (got < 0) {
		int err = errno;

		closedir(d);
		tmq_names_free(v, cnt);
		errno = err;
		return tmq_fail_errno(e, "cannot read the root");
	}
	closedir(d);
	if (cnt > 1)
		qsort(v, cnt, sizeof *v, cmp_names);
	*names = v;
	*n = cnt;
	return 0;
oom:
	closedir(d);
	tmq_names_free(v, cnt);
	return tmq_fail(e, "out of memory");
}

int
tmq_topic_type_index(const struct tmq_topic *t, const char *type)
{
	unsigned i;

	for (i = 0; i < t->ntypes; i++)
		if (t->types[i] != NULL && strcmp(t->types[i], type) == 0)
			return (int)i;
	return -1;
}

#define DEF_MAX (TMQ_NAME_MAX + 8)

/* NAME.twc into def; -1 when name cannot be a topic's. */
static int
def_name(const char *name, char def[DEF_MAX])
{
	if (*name == '\0' || strchr(name, '/') != NULL ||
	    strlen(name) > TMQ_NAME_MAX)
		return -1;
	snprintf(def, DEF_MAX, "%s.twc", name);
	return 0;
}

int
tmq_topic_exists(int rootfd, const char *name)
{
	char def[DEF_MAX];
	struct stat st;

	return def_name(name, def) == 0 && fstatat(rootfd, def, &st, 0) == 0 &&
	    S_ISREG(st.st_mode);
}

int
tmq_topic_leftover(int rootfd, const char *name)
{
	char def[DEF_MAX];
	struct stat st;

	if (def_name(name, def) < 0 ||
	    fstatat(rootfd, def, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT;
}

/* Type i of a list of n, "" where none. */
static const char *
type_at(char *const *types, unsigned n, unsigned i)
{
	return i < n && types[i] != NULL ? types[i] : "";
}

/* The types as "A,B" (escaped), into buf. */
static const char *
types_list(char *const *types, unsigned n, char *buf, size_t sz)
{
	char one[128];
	size_t len = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < n && len + 1 < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%s", i ? "," : "",
		    tmq_escape_name(type_at(types, n, i), one, sizeof one));
	return n == 0 ? "none" : buf;
}

int
tmq_topic_same(const struct tmq_topic *t, int key_width, unsigned partitions,
    char *const *types, unsigned ntypes, char *why, size_t whysz)
{
	char a[32], b[32], la[256], lb[256];
	unsigned i, n = t->ntypes > ntypes ? t->ntypes : ntypes;

	if (t->key_width != key_width) {
		snprintf(why, whysz, "key type %s, not %s",
		    tmq_keytype_name(t->key_width, a, sizeof a),
		    tmq_keytype_name(key_width, b, sizeof b));
		return 0;
	}
	if (t->partitions != partitions) {
		snprintf(why, whysz, "%u partition%s, not %u", t->partitions,
		    t->partitions == 1 ? "" : "s", partitions);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (strcmp(type_at(t->types, t->ntypes, i),
		    type_at(types, ntypes, i)) != 0) {
			snprintf(why, whysz, "types %s, not %s",
			    types_list(t->types, t->ntypes, la, sizeof la),
			    types_list(types, ntypes, lb, sizeof lb));
			return 0;
		}
	return 1;
}
