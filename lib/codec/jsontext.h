/* jsontext.h: checks on JSON text, and reading its strings, without a
 * document tree: one pass over the text, a fixed stack, nothing allocated,
 * whatever the text holds (a typed payload inflated from a hostile line
 * may be megabytes of nested arrays).  One checker serves every JSON text
 * tmq reads: typed payloads, -J lines, group message bodies. */
#ifndef TMQ_JSONTEXT_H
#define TMQ_JSONTEXT_H

#include <stddef.h>

#include "util/error.h"

/* Nesting deeper than this is refused (deeper than anyone's messages,
 * shallow enough for a fixed stack; Python's json.loads stops near it). */
#define TMQ_JSON_DEPTH_MAX 1024
/* A typed payload nests no deeper than this: as deep as tmq has always
 * taken one (json-c's default depth, which checked them before). */
#define TMQ_JSON_PAYLOAD_DEPTH 32

/* Which JSON a check takes. */
enum tmq_json_grammar {
	/* RFC 8259 to the letter, as every JSON tool reads it. */
	TMQ_JSON_RFC8259,
	/* That, and what the TwainMQ library's json.dumps writes and its
	 * json.loads reads back: NaN, Infinity and -Infinity as numbers,
	 * and a surrogate escape that is not half of a pair (\ud800). */
	TMQ_JSON_LIBRARY
};

/* How a check failed (tmq_json_check's result). */
enum tmq_json_fault {
	TMQ_JSON_NOT_OBJECT = -1,	/* the text does not begin an object
					 * (e->code TMQ_ERR_NOTJSON) */
	TMQ_JSON_CUT = -2,		/* it ends inside one, or goes on after */
	TMQ_JSON_FLAWED = -3		/* something inside it is wrong */
};

/* One member of the outermost object, as the check passes it: the name's
 * text between its quotes, as written, and the value's text.  A visitor
 * is told of each in order; it is told nothing reliable when the check
 * then fails. */
struct tmq_json_member {
	size_t name_at, name_len;
	int name_escaped;		/* the name's text holds a backslash */
	size_t at, len;
	int escaped;			/* a string value holding a backslash */
};

struct tmq_json_visit {
	void (*member)(void *arg, const unsigned char *s,
	    const struct tmq_json_member *mb);
	void *arg;
};

/* Is s[0..n) one JSON object of grammar g in valid UTF-8, nested at most
 * depth deep (up to TMQ_JSON_DEPTH_MAX), with only JSON white space around
 * it?  0, or an enum tmq_json_fault with *e saying what and where (byte
 * from 1).  With a visitor v (or NULL), the outermost object is an
 * envelope: its members' values may each nest as deep as a whole object
 * may. */
int tmq_json_check(const unsigned char *s, size_t n, enum tmq_json_grammar g,
    int depth, const struct tmq_json_visit *v, struct tmq_error *e);
/* A typed payload as the TwainMQ library reads it (TMQ_JSON_LIBRARY,
 * TMQ_JSON_PAYLOAD_DEPTH): every typed payload tmq stores or reads back
 * must be one. */
int tmq_json_is_object(const unsigned char *s, size_t n);
/* tmq_json_check(s, n, TMQ_JSON_RFC8259, TMQ_JSON_DEPTH_MAX, NULL, e), as
 * 0 or -1. */
int tmq_json_strict_object(const unsigned char *s, size_t n,
    struct tmq_error *e);
/* One value of a text, checked as tmq_json_check checks it there, for a
 * reader that knows the shape of what it reads (tmq-get -J's lines:
 * jsoninput.c) and leaves the check's state machine the rest: the index
 * past the string at s[i] (its opening quote), or past the number there,
 * or 0 when there is none or it is not good JSON of grammar g (a bad
 * escape, a control, bad UTF-8, cut short).  *escaped says whether the
 * string holds a backslash.  Neither says what is wrong: a caller that
 * gets 0 runs the whole check, which does. */
size_t tmq_json_string_end(const unsigned char *s, size_t i, size_t n,
    enum tmq_json_grammar g, int *escaped);
size_t tmq_json_number_end(const unsigned char *s, size_t i, size_t n,
    enum tmq_json_grammar g);
/* The text of a string a check passed (s[0..n): between its quotes),
 * escapes decoded, into out (room for n bytes: never longer); returns
 * its length.  A lone surrogate escape (TMQ_JSON_LIBRARY) becomes its
 * three-byte form. */
size_t tmq_json_unescape(const unsigned char *s, size_t n, unsigned char *out);
/* Nothing but JSON white space: what may follow a document, as Python's
 * json.loads allows. */
int tmq_json_only_space(const char *s, size_t n);
/* Does JSON text s[0..n) spell U+0000 (the escape \u0000) in a string?
 * json-c keeps the names of an object's members as C strings, cut at the
 * first NUL, so "a\u0000b" and "a\u0000c" both come back as "a": text
 * that holds one cannot be read as it was written.  *at is then the
 * escape's byte (from 1).  Looked for in the text, whatever its grammar:
 * the escape is a backslash that no backslash before it escapes, then
 * u0000. */
int tmq_json_has_nul(const char *s, size_t n, size_t *at);

#endif
