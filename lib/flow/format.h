/* format.h: the -F output format of tmq-get (kcat's -f, our letters):
 * %s payload, %k key, %p partition, %o offset, %t topic, %T timestamp in
 * ISO 8601 UTC, %u timestamp in Unix seconds, %m timestamp in epoch
 * milliseconds, %S payload size in bytes, %y payload type, %%, and the
 * escapes \n \t \0 \\. */
#ifndef TMQ_FORMAT_H
#define TMQ_FORMAT_H

#include <stddef.h>

#include "util/error.h"

struct tmq_fmt_op {
	char field;		/* 0 for literal text */
	const char *text;	/* literal: points into lit */
	size_t len;
};

struct tmq_format {
	struct tmq_fmt_op *ops;
	size_t nops;
	char *lit;		/* unescaped literal text */
};

int tmq_format_compile(const char *spec, struct tmq_format *f,
    struct tmq_error *e);
void tmq_format_free(struct tmq_format *f);

#endif
