/* printer.h: writing messages out: the payload alone, key and payload,
 * a -F format, or one JSON object (shared by tmq-get -J and tmq-dump -J). */
#ifndef TMQ_PRINTER_H
#define TMQ_PRINTER_H

#include <stdio.h>

#include "flow/format.h"
#include "codec/message.h"
#include "store/topic.h"

enum tmq_print_mode { TMQ_PRINT_PAYLOAD, TMQ_PRINT_KEYED, TMQ_PRINT_FORMAT,
	TMQ_PRINT_JSON };

struct tmq_printer {
	enum tmq_print_mode mode;
	const char *keysep;		/* TMQ_PRINT_KEYED */
	size_t keyseplen;		/* (it may hold a NUL) */
	struct tmq_format fmt;		/* TMQ_PRINT_FORMAT */
	char term;			/* '\n', or '\0' with -0 */
	FILE *out;
};

/* The payload type as tools show it: "str", "bytes" or the type name. */
const char *tmq_type_name(const struct tmq_topic *t, const struct tmq_msg *m);
void tmq_print(const struct tmq_printer *p, const struct tmq_topic *t,
    const struct tmq_msg *m);
/* The JSON object alone, no newline. */
void tmq_print_json(FILE *f, const struct tmq_topic *t,
    const struct tmq_msg *m);

#endif
