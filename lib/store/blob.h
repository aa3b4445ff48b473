/* blob.h: payloads too long for a line, kept whole in a file beside the
 * log (issue 37, tmq-format(5) "Blobs").  On a topic made with
 * --max-message, such a payload is written to TOPIC/.tmq/blob-HASH (HASH:
 * the payload's xxh3-128, 32 lowercase hex digits), durably, before the
 * line that refers to it is appended; that line is a typed message of the
 * reserved type tmq.blob whose JSON is
 *   {"file": ".tmq/blob-HASH", "size": N, "xxh3_128": "HASH",
 *    "kind": "text" | "bytes" | "typed"[, "type": "NAME"]}
 * Readers take a reference as untrusted: the file is named by the hash,
 * never by the path given (which must be that name exactly); it is opened
 * without following a link, without blocking, a regular file only; no
 * more than the stated size, itself no more than the topic's limit, is
 * read; and what was read must have the hash.  xxh3-128 finds damage, not
 * forgery: whoever may plant a blob may as well write the line. */
#ifndef TMQ_BLOB_H
#define TMQ_BLOB_H

#include <stddef.h>

#include "util/error.h"
#include "codec/names.h"
#include "codec/payload.h"
#include "store/replace.h"
#include "store/topic.h"

#define TMQ_BLOB_HASH_HEX 32
/* Room for a reference's JSON. */
#define TMQ_BLOB_REF_MAX (160 + 6 * TMQ_TYPE_NAME_MAX)
/* On a topic with --max-message, a payload longer than this goes to a blob
 * at once, without trying a line first (deflating a megabyte only to
 * find it too long would cost more than the blob). */
#define TMQ_BLOB_DIRECT (64u << 10)

struct tmq_blobref {
	char hash[TMQ_BLOB_HASH_HEX + 1];
	size_t size;
	enum tmq_ptype kind;
	char type[TMQ_TYPE_NAME_MAX + 1];	/* kind TMQ_TYPED: its name */
};

/* The payload's hash, as hex. */
void tmq_blob_hash(const void *data, size_t n,
    char hex[TMQ_BLOB_HASH_HEX + 1]);
/* The reference's JSON into out (of TMQ_BLOB_REF_MAX bytes): its length. */
size_t tmq_blob_ref_json(const struct tmq_blobref *r, char *out);
/* Read a reference's JSON strictly (every field there, of its kind, the
 * file named by the hash): 0, or -1 with e saying what is wrong. */
int tmq_blob_ref_parse(const unsigned char *json, size_t n,
    struct tmq_blobref *r, struct tmq_error *e);
/* Write data (r->size bytes, hash r->hash) as t's blob: to a temporary
 * (O_EXCL), flushed to disk, renamed into place, the folder flushed.  0,
 * or -1 with e set (nothing left but what was there). */
int tmq_blob_write(const struct tmq_topic *t, const struct tmq_blobref *r,
    const void *data, struct tmq_error *e);

/* A batch's blobs on their way in (tmq-put), made durable together: each
 * is written to a temporary as its record is encoded (tmq_blob_stage);
 * tmq_blobs_land then starts the writeback of them all, waits for each,
 * renames each into place and flushes the folder once, before any line
 * of the batch that refers to them is written.  One flush of the folder
 * and, mostly, one commit of the file system's journal for the batch, not
 * two of each per blob.  More than TMQ_BLOB_STAGE_MAX land early. */
#define TMQ_BLOB_STAGE_MAX 64
struct tmq_blobstage {
	const struct tmq_topic *t;
	int dfd;			/* t's .tmq while blobs are held */
	unsigned n;			/* held */
	int failed;			/* one failed: nothing more is staged */
	size_t failed_tag;		/* its tag */
	struct tmq_error err;		/* and why */
	struct {
		int fd;
		size_t tag;
		char hash[TMQ_BLOB_HASH_HEX + 1];
		char tmp[TMQ_TMP_NAME_MAX];
	} v[TMQ_BLOB_STAGE_MAX];
};

void tmq_blobstage_init(struct tmq_blobstage *s, const struct tmq_topic *t);
/* Write data as a blob of s's topic under a temporary name, tagged tag
 * (its record): 0, or -1 with e set (and s failed, when it is the disk's
 * failure: nothing more is staged, nothing held is landed). */
int tmq_blob_stage(struct tmq_blobstage *s, const struct tmq_blobref *r,
    const void *data, size_t tag, struct tmq_error *e);
/* Make durable and put in place what s holds, in order: 0, or -1 with
 * s->failed_tag and s->err saying which failed and why (those before it
 * in place, it and those after it not, their temporaries removed).  s
 * holds nothing after. */
int tmq_blobs_land(struct tmq_blobstage *s);
/* Remove what s holds, landing nothing. */
void tmq_blobs_drop(struct tmq_blobstage *s);
/* p a message of t: when it is a blob reference, read the blob into *buf
 * (grown, of *cap bytes) and make p the payload it refers to: 1; 0 when p
 * is no reference (left as it is); -1 with e saying what is wrong with the
 * reference or its file. */
int tmq_blob_resolve(const struct tmq_topic *t, struct tmq_payload *p,
    unsigned char **buf, size_t *cap, struct tmq_error *e);
/* Remove t's blobs last written before `before` (Unix seconds, by their
 * modification time: a put writes its blob anew each time, just before
 * the line that refers to it).  Only names of blobs that are regular
 * files are taken; one this user may not remove is left.  For prune
 * (prune.c says when no line left can refer to them). */
int tmq_blob_sweep(const struct tmq_topic *t, double before,
    struct tmq_error *e);
/* How much older than what is kept a blob must be, by its last write, to
 * be removed (seconds): a put writes its blob just before the line that
 * refers to it; the margin takes in the clocks of other machines, and a
 * day's file begun just after (prune.c), or a put stopped between the
 * two (tmq-dump --verify --repair). */
#define TMQ_BLOB_MARGIN (2 * 86400.0)

/* For each of t's blobs (a regular file) last written before `before`
 * whose hash is not in refs (n hashes, in any order: sorted here), call
 * orphan with its hash and the time of its last write: a blob no line
 * refers to (tmq-dump --verify).  When orphan returns 1, the blob is
 * removed, and removed called with 0, or with the errno that kept it
 * (ENOENT: gone already; EACCES, EPERM: this user may not).  -1 when .tmq
 * could not be read to its end, or a blob could not be removed for
 * another reason (e says which). */
int tmq_blob_orphans(const struct tmq_topic *t,
    char (*refs)[TMQ_BLOB_HASH_HEX + 1], size_t n, double before,
    int (*orphan)(void *arg, const char *hash, double mtime),
    void (*removed)(void *arg, const char *hash, int err), void *arg,
    struct tmq_error *e);
/* 1 when p is a blob reference of t (a message of the type tmq.blob). */
int tmq_blob_is_ref(const struct tmq_topic *t, const struct tmq_payload *p);

#endif
