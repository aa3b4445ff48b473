/* blob.c: blob files and the references to them (see blob.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <xxhash.h>

#include "store/blob.h"
#include "store/dirlist.h"
#include "store/dotdir.h"
#include "util/escape.h"
#include "util/grow.h"
#include "codec/jsontext.h"
#include "store/regfile.h"
#include "store/replace.h"
#include "util/utf8.h"


void
tmq_blob_hash(const void *data, size_t n, char hex[TMQ_BLOB_HASH_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";
	XXH128_canonical_t c;
	int i;

	XXH128_canonicalFromHash(&c, XXH3_128bits(data, n));
	for (i = 0; i < 16; i++) {
		hex[2 * i] = digits[c.digest[i] >> 4];
		hex[2 * i + 1] = digits[c.digest[i] & 15];
	}
	hex[TMQ_BLOB_HASH_HEX] = '\0';
}

static const char *
kind_name(enum tmq_ptype k)
{
	return k == TMQ_TEXT ? "text" : k == TMQ_BYTES ? "bytes" : "typed";
}

size_t
tmq_blob_ref_json(const struct tmq_blobref *r, char *out)
{
	int n = snprintf(out, TMQ_BLOB_REF_MAX, "{\"file\":\"%s/" TMQ_DOT_BLOB
	    "%s\",\"size\":%zu,\"xxh3_128\":\"%s\",\"kind\":\"%s\"",
	    TMQ_DOT_DIR, r->hash, r->size, r->hash, kind_name(r->kind));

	if (r->kind == TMQ_TYPED) {
		struct json_object *js = json_object_new_string(r->type);

		n += snprintf(out + n, TMQ_BLOB_REF_MAX - (size_t)n,
		    ",\"type\":%s", js != NULL ? json_object_to_json_string_ext(
		    js, JSON_C_TO_STRING_PLAIN) : "\"\"");
		json_object_put(js);
	}
	n += snprintf(out + n, TMQ_BLOB_REF_MAX - (size_t)n, "}");
	return (size_t)n;
}

static int
hex_hash(const char *s)
{
	size_t i;

	if (strlen(s) != TMQ_BLOB_HASH_HEX)
		return 0;
	for (i = 0; i < TMQ_BLOB_HASH_HEX; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'f')))
			return 0;
	return 1;
}

static const char *
get_str(struct json_object *root, const char *field)
{
	struct json_object *o;

	if (!json_object_object_get_ex(root, field, &o) ||
	    !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

int
tmq_blob_ref_parse(const unsigned char *json, size_t n,
    struct tmq_blobref *r, struct tmq_error *e)
{
	struct json_tokener *tok;
	struct json_object *root = NULL, *o;
	const char *s, *kind;
	char want[64];
	int64_t size;
	int rc = -1;

	memset(r, 0, sizeof *r);
	if (n > TMQ_BLOB_REF_MAX)
		return tmq_fail(e, "blob reference of %zu bytes (at most %d)", n,
		    TMQ_BLOB_REF_MAX);
	if (tmq_json_check(json, n, TMQ_JSON_RFC8259, 2, NULL, e) < 0)
		return tmq_fail_prefix(e, "blob reference");
	tok = json_tokener_new();
	if (tok == NULL)
		return tmq_fail(e, "out of memory");
	root = json_tokener_parse_ex(tok, (const char *)json, (int)n);
	if (root == NULL || !json_object_is_type(root, json_type_object)) {
		tmq_fail(e, "blob reference: not a JSON object");
		goto out;
	}
	s = get_str(root, "xxh3_128");
	if (s == NULL || !hex_hash(s)) {
		tmq_fail(e, "blob reference: \"xxh3_128\" is not 32 lowercase "
		    "hex digits");
		goto out;
	}
	memcpy(r->hash, s, TMQ_BLOB_HASH_HEX + 1);
	/* The file is named by the hash, and by nothing else: not a path
	 * of the reference's choosing. */
	snprintf(want, sizeof want, "%s/" TMQ_DOT_BLOB "%s", TMQ_DOT_DIR,
	    r->hash);
	s = get_str(root, "file");
	if (s == NULL || strcmp(s, want) != 0) {
		char shown[68];

		tmq_fail(e, "blob reference: \"file\" is %s, not %s", s == NULL ?
		    "missing" : tmq_escape_name(s, shown, sizeof shown), want);
		goto out;
	}
	if (!json_object_object_get_ex(root, "size", &o) ||
	    !json_object_is_type(o, json_type_int) ||
	    (size = json_object_get_int64(o)) < 0 ||
	    size > TMQ_MAX_MESSAGE_LIMIT) {
		tmq_fail(e, "blob reference: \"size\" is not a count of bytes "
		    "up to %u", TMQ_MAX_MESSAGE_LIMIT);
		goto out;
	}
	r->size = (size_t)size;
	kind = get_str(root, "kind");
	if (kind != NULL && strcmp(kind, "text") == 0)
		r->kind = TMQ_TEXT;
	else if (kind != NULL && strcmp(kind, "bytes") == 0)
		r->kind = TMQ_BYTES;
	else if (kind != NULL && strcmp(kind, "typed") == 0)
		r->kind = TMQ_TYPED;
	else {
		tmq_fail(e, "blob reference: \"kind\" is not text, bytes or "
		    "typed");
		goto out;
	}
	if (r->kind == TMQ_TYPED) {
		s = get_str(root, "type");
		if (s == NULL || tmq_type_name_check(s, e) < 0) {
			if (s == NULL)
				tmq_fail(e, "blob reference: no \"type\"");
			else
				tmq_fail_prefix(e, "blob reference");
			goto out;
		}
		snprintf(r->type, sizeof r->type, "%s", s);
	}
	rc = 0;
out:
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

void
tmq_blobstage_init(struct tmq_blobstage *s, const struct tmq_topic *t)
{
	s->t = t;
	s->dfd = -1;
	s->n = 0;
	s->failed = 0;
	s->failed_tag = 0;
	s->err.msg[0] = '\0';
}

static void
blob_names(const struct tmq_topic *t, const char *hash, char name[64],
    char shown[TMQ_NAME_MAX + 80])
{
	snprintf(name, 64, TMQ_DOT_BLOB "%s", hash);
	snprintf(shown, TMQ_NAME_MAX + 80, "%s/%s/%s", t->name, TMQ_DOT_DIR,
	    name);
}

/* s fails at the blob tagged tag, for the reason e gives ("SHOWN: why"),
 * which becomes "blob not written: SHOWN: why", in e and in s.  -1. */
static int
failed_at(struct tmq_blobstage *s, size_t tag, struct tmq_error *e)
{
	s->failed = 1;
	s->failed_tag = tag;
	tmq_fail_prefix(e, "blob not written");
	s->err = *e;
	return -1;
}

int
tmq_blobs_land(struct tmq_blobstage *s)
{
	char name[64], shown[TMQ_NAME_MAX + 80];
	struct tmq_error e;
	unsigned i, k;
	int rc = 0;

	if (s->n == 0)
		return 0;
	/* All their writeback under way before waiting for any: the first
	 * fsync then mostly commits the journal for them all. */
	for (i = 0; i < s->n; i++)
		(void)sync_file_range(s->v[i].fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	/* The first k on disk, then the first k in place, each renamed onto
	 * its name, replacing whatever is there: it may be damaged, or
	 * planted. */
	for (k = 0; k < s->n; k++)
		if (fsync(s->v[k].fd) < 0) {
			int err = errno;

			blob_names(s->t, s->v[k].hash, name, shown);
			errno = err;
			tmq_fail_errno(&e, "%s", shown);
			rc = failed_at(s, s->v[k].tag, &e);
			break;
		}
	for (i = 0; i < s->n; i++)
		close(s->v[i].fd);
	for (i = 0; i < k; i++) {
		blob_names(s->t, s->v[i].hash, name, shown);
		if (tmq_tmp_commit(s->dfd, s->v[i].tmp, name, shown, &e) < 0) {
			rc = failed_at(s, s->v[i].tag, &e);
			k = i + 1;	/* (its temporary is gone) */
			break;
		}
	}
	for (i = k; i < s->n; i++)
		unlinkat(s->dfd, s->v[i].tmp, 0);
	if (rc == 0 && fsync(s->dfd) < 0) {
		int err = errno;

		blob_names(s->t, s->v[0].hash, name, shown);
		errno = err;
		tmq_fail_errno(&e, "%s: the directory", shown);
		rc = failed_at(s, s->v[0].tag, &e);
	}
	s->n = 0;
	close(s->dfd);
	s->dfd = -1;
	return rc;
}

void
tmq_blobs_drop(struct tmq_blobstage *s)
{
	unsigned i;

	for (i = 0; i < s->n; i++) {
		close(s->v[i].fd);
		unlinkat(s->dfd, s->v[i].tmp, 0);
	}
	s->n = 0;
	if (s->dfd >= 0)
		close(s->dfd);
	s->dfd = -1;
}

int
tmq_blob_stage(struct tmq_blobstage *s, const struct tmq_blobref *r,
    const void *data, size_t tag, struct tmq_error *e)
{
	char name[64], shown[TMQ_NAME_MAX + 80];
	const unsigned char *p = data;
	size_t off = 0;
	int fd;

	if (s->failed)
		return tmq_fail(e, "blob not written: an earlier one failed");
	if (s->n == TMQ_BLOB_STAGE_MAX && tmq_blobs_land(s) < 0)
		return tmq_fail(e, "blob not written: an earlier one failed");
	blob_names(s->t, r->hash, name, shown);
	if (s->dfd < 0 && (s->dfd = tmq_dot_open(s->t->dirfd, 1)) < 0) {
		char dshown[TMQ_NAME_MAX + 8];

		snprintf(dshown, sizeof dshown, "%s/%s", s->t->name,
		    TMQ_DOT_DIR);
		tmq_dot_fail(s->t->dirfd, dshown, e);
		return failed_at(s, tag, e);
	}
	fd = tmq_tmp_create(s->dfd, name, shown, s->v[s->n].tmp, e);
	while (fd >= 0 && off < r->size) {
		ssize_t w = write(fd, p + off, r->size - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w == 0 ? EIO : errno;

			close(fd);
			unlinkat(s->dfd, s->v[s->n].tmp, 0);
			errno = err;
			tmq_fail_errno(e, "%s", shown);
			fd = -1;
			break;
		}
		off += (size_t)w;
	}
	if (fd < 0)
		return failed_at(s, tag, e);
	s->v[s->n].fd = fd;
	s->v[s->n].tag = tag;
	memcpy(s->v[s->n].hash, r->hash, sizeof s->v[s->n].hash);
	s->n++;
	return 0;
}

int
tmq_blob_write(const struct tmq_topic *t, const struct tmq_blobref *r,
    const void *data, struct tmq_error *e)
{
	struct tmq_blobstage *s = malloc(sizeof *s);
	int rc;

	if (s == NULL)
		return tmq_fail(e, "out of memory");
	tmq_blobstage_init(s, t);
	rc = tmq_blob_stage(s, r, data, 0, e);
	if (rc == 0 && (rc = tmq_blobs_land(s)) < 0)
		*e = s->err;
	tmq_blobs_drop(s);
	free(s);
	return rc;
}

int
tmq_blob_is_ref(const struct tmq_topic *t, const struct tmq_payload *p)
{
	return p->type == TMQ_TYPED && p->type_index < t->ntypes &&
	    t->types[p->type_index] != NULL &&
	    strcmp(t->types[p->type_index], TMQ_BLOB_TYPE) == 0;
}

/* Read exactly r->size bytes of the blob into buf; 0, or -1. */
static int
read_blob(const struct tmq_topic *t, const struct tmq_blobref *r,
    unsigned char *buf, struct tmq_error *e)
{
	char name[64], shown[TMQ_NAME_MAX + 80];
	struct stat st;
	size_t got = 0;
	int dfd, fd;

	snprintf(name, sizeof name, TMQ_DOT_BLOB "%s", r->hash);
	snprintf(shown, sizeof shown, "%s/%s", TMQ_DOT_DIR, name);
	dfd = tmq_dot_open(t->dirfd, 0);
	if (dfd < 0)
		return tmq_dot_fail(t->dirfd, TMQ_DOT_DIR, e);
	fd = tmq_open_regular_as(dfd, name, shown, O_RDONLY, 0, e);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		tmq_fail_errno(e, "%s", shown);
		close(fd);
		return -1;
	}
	if ((uintmax_t)st.st_size != r->size) {
		tmq_fail(e, "%s: %jd bytes, not the %zu its reference says",
		    shown, (intmax_t)st.st_size, r->size);
		close(fd);
		return -1;
	}
	while (got < r->size) {
		ssize_t k = read(fd, buf + got, r->size - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			tmq_fail_errno(e, "%s", shown);
			close(fd);
			return -1;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (got != r->size)
		return tmq_fail(e, "%s: ends after %zu bytes, not the %zu its "
		    "reference says", shown, got, r->size);
	return 0;
}

int
tmq_blob_resolve(const struct tmq_topic *t, struct tmq_payload *p,
    unsigned char **buf, size_t *cap, struct tmq_error *e)
{
	struct tmq_blobref r;
	char hash[TMQ_BLOB_HASH_HEX + 1];
	int ti = -1;

	if (!tmq_blob_is_ref(t, p))
		return 0;
	if (tmq_blob_ref_parse(p->data, p->len, &r, e) < 0)
		return -1;
	if (t->max_message == 0)
		return tmq_fail(e, "a blob reference, on a topic that takes "
		    "none (no max_message)");
	if (r.size > t->max_message)
		return tmq_fail(e, "blob reference of %zu bytes, over the "
		    "topic's max_message (%zu)", r.size, t->max_message);
	if (r.kind == TMQ_TYPED) {
		ti = tmq_topic_type_index(t, r.type);
		if (ti < 0 || strcmp(r.type, TMQ_BLOB_TYPE) == 0) {
			char shown[68];

			return tmq_fail(e, "blob reference: type '%s' is not "
			    "one of the topic's", tmq_escape_name(r.type, shown,
			    sizeof shown));
		}
	}
	if (tmq_grow(buf, cap, r.size + 1, 1) < 0)
		return tmq_fail(e, "out of memory");
	if (read_blob(t, &r, *buf, e) < 0)
		return -1;
	tmq_blob_hash(*buf, r.size, hash);
	if (strcmp(hash, r.hash) != 0)
		return tmq_fail(e, "%s/" TMQ_DOT_BLOB "%s: its contents do not "
		    "have its hash (damaged or replaced)", TMQ_DOT_DIR, r.hash);
	if (r.kind == TMQ_TEXT && !tmq_utf8_valid(*buf, r.size))
		return tmq_fail(e, "%s/" TMQ_DOT_BLOB "%s: text that is not "
		    "valid UTF-8", TMQ_DOT_DIR, r.hash);
	if (r.kind == TMQ_TYPED && tmq_json_check(*buf, r.size,
	    TMQ_JSON_LIBRARY, TMQ_JSON_PAYLOAD_DEPTH, NULL, e) < 0)
		return tmq_fail_prefix(e, "%s/" TMQ_DOT_BLOB "%s", TMQ_DOT_DIR,
		    r.hash);
	p->type = r.kind;
	p->type_index = ti < 0 ? 0 : (unsigned)ti;
	p->data = *buf;
	p->len = r.size;
	return 1;
}

/* Call fn for each of t's blobs (a regular file of a blob's name) last
 * written before `before`, with .tmq's descriptor, the name, the hash in
 * it and the time of its last write; fn returns 0 to go on, -1 (e set) to
 * stop.  0, or -1 (e set, when
 * .tmq could not be read to its end or fn stopped). */
static int
each_old_blob(const struct tmq_topic *t, double before,
    int (*fn)(void *arg, int dfd, const char *name, const char *hash,
    double mtime, struct tmq_error *e), void *arg, struct tmq_error *e)
{
	size_t pre = sizeof TMQ_DOT_BLOB - 1;
	struct dirent *d;
	DIR *dir;
	int dfd, got, rc = 0;

	if ((dfd = tmq_dot_open(t->dirfd, 0)) < 0)
		return errno == ENOENT ? 0 : tmq_fail_errno(e, "%s/%s", t->name,
		    TMQ_DOT_DIR);
	if ((dir = fdopendir(dfd)) == NULL) {
		close(dfd);
		return tmq_fail_errno(e, "%s/%s", t->name, TMQ_DOT_DIR);
	}
	while ((got = tmq_dir_next(dir, &d)) > 0) {
		const char *h = d->d_name + pre;
		struct stat st;
		double mt;

		if (strncmp(d->d_name, TMQ_DOT_BLOB, pre) != 0 ||
		    strlen(h) != TMQ_BLOB_HASH_HEX ||
		    strspn(h, "0123456789abcdef") != TMQ_BLOB_HASH_HEX ||
		    fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		mt = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
		if (mt >= before)
			continue;
		if ((rc = fn(arg, dirfd(dir), d->d_name, h, mt, e)) < 0)
			break;
	}
	if (got < 0 && rc == 0)
		rc = tmq_fail_errno(e, "%s/%s", t->name, TMQ_DOT_DIR);
	closedir(dir);
	return rc;
}

/* Remove the blob name of t (in dfd): 1, or 0 when it is gone already
 * or this user may not remove it, or -1 (e set). */
static int
remove_blob(const struct tmq_topic *t, int dfd, const char *name,
    struct tmq_error *e)
{
	if (unlinkat(dfd, name, 0) == 0)
		return 1;
	if (errno == ENOENT || errno == EACCES || errno == EPERM)
		return 0;
	return tmq_fail_errno(e, "%s/%s/%s: cannot remove it", t->name,
	    TMQ_DOT_DIR, name);
}

static int
sweep_one(void *arg, int dfd, const char *name, const char *hash,
    double mtime, struct tmq_error *e)
{
	(void)hash;
	(void)mtime;
	return remove_blob(arg, dfd, name, e) < 0 ? -1 : 0;
}

int
tmq_blob_sweep(const struct tmq_topic *t, double before,
    struct tmq_error *e)
{
	return each_old_blob(t, before, sweep_one, (void *)t, e);
}

static int
cmp_hash(const void *a, const void *b)
{
	return strcmp(a, b);
}

struct orphans {
	const struct tmq_topic *t;
	char (*refs)[TMQ_BLOB_HASH_HEX + 1];
	size_t n;
	int (*orphan)(void *arg, const char *hash, double mtime);
	void (*removed)(void *arg, const char *hash, int err);
	void *arg;
};

static int
orphan_one(void *arg, int dfd, const char *name, const char *hash,
    double mtime, struct tmq_error *e)
{
	struct orphans *o = arg;
	int rc;

	if (o->n > 0 && bsearch(hash, o->refs, o->n, sizeof *o->refs,
	    cmp_hash) != NULL)
		return 0;
	if (o->orphan(o->arg, hash, mtime) != 1)
		return 0;
	if ((rc = remove_blob(o->t, dfd, name, e)) < 0)
		return -1;
	o->removed(o->arg, hash, rc == 1 ? 0 : errno);
	return 0;
}

int
tmq_blob_orphans(const struct tmq_topic *t,
    char (*refs)[TMQ_BLOB_HASH_HEX + 1], size_t n, double before,
    int (*orphan)(void *arg, const char *hash, double mtime),
    void (*removed)(void *arg, const char *hash, int err), void *arg,
    struct tmq_error *e)
{
	struct orphans o = { .t = t, .refs = refs, .n = n, .orphan = orphan,
	    .removed = removed, .arg = arg };

	if (n > 1)
		qsort(refs, n, sizeof *refs, cmp_hash);
	return each_old_blob(t, before, orphan_one, &o, e);
}
