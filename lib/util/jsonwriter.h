/* jsonwriter.h: JSON text written as it goes, for every --json output of
 * the tools (tmq-topic list and info, tmq-group list and describe).  The
 * writer places the commas and colons, so a printer says only what it
 * writes; and what it writes is JSON by the letter of RFC 8259 whatever a
 * root holds: every string escaped and valid UTF-8 (a byte that is not
 * becomes U+FFFD), every number in the grammar (a text that is not one,
 * such as a timestamp that is no finite number, becomes null). */
#ifndef TMQ_JSONWRITER_H
#define TMQ_JSONWRITER_H

#include <stdint.h>
#include <stdio.h>

/* How deep objects and arrays may nest: more is the program's bug. */
#define TMQ_JW_DEPTH 32

struct tmq_jw {
	FILE *f;
	unsigned depth;			/* objects and arrays open */
	uint32_t in_array;		/* bit d: depth d+1 is an array */
	uint32_t more;			/* bit d: depth d+1 has a value */
	int after_key;			/* a key was written, not its value */
};

void tmq_jw_init(struct tmq_jw *w, FILE *f);
/* Open an object ({) or an array ([), as a value; close the innermost. */
void tmq_jw_object(struct tmq_jw *w);
void tmq_jw_array(struct tmq_jw *w);
void tmq_jw_end(struct tmq_jw *w);
/* The name of an object's next member; its value comes next. */
void tmq_jw_key(struct tmq_jw *w, const char *name);
/* A member name that is a number ("3": ids and partitions as keys). */
void tmq_jw_key_u64(struct tmq_jw *w, uint64_t v);
/* Values. */
void tmq_jw_str(struct tmq_jw *w, const char *s);
void tmq_jw_strn(struct tmq_jw *w, const unsigned char *s, size_t n);
void tmq_jw_u64(struct tmq_jw *w, uint64_t v);
void tmq_jw_i64(struct tmq_jw *w, int64_t v);
void tmq_jw_bool(struct tmq_jw *w, int v);
void tmq_jw_null(struct tmq_jw *w);
/* A number formatted elsewhere ("1764400000.5", Python's repr of a
 * timestamp); null when it is not a JSON number. */
void tmq_jw_number(struct tmq_jw *w, const char *text);
/* 1 when text is one JSON number (RFC 8259, section 6), else 0. */
int tmq_jw_is_number(const char *text);

#endif
