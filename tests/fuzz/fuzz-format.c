/* fuzz-format.c: libFuzzer target for tmq-get's -F format parser and
 * printer. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/printer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	static struct tmq_msg *m;
	struct tmq_printer p;
	struct tmq_topic t;
	struct tmq_error e;
	char *spec;

	if (sink == NULL) {
		sink = fopen("/dev/null", "w");
		m = calloc(1, sizeof *m);
		if (sink == NULL || m == NULL)
			abort();
	}
	spec = malloc(size + 1);
	if (spec == NULL)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	memset(&p, 0, sizeof p);
	if (tmq_format_compile(spec, &p.fmt, &e) == 0) {
		memset(&t, 0, sizeof t);
		t.name = (char *)"fuzz";
		t.key_width = -4;
		memcpy(m->key, "ab", 2);
		m->ts = 1764400000.25;
		m->payload.type = TMQ_TEXT;
		m->payload.data = (const unsigned char *)"payload";
		m->payload.len = 7;
		p.mode = TMQ_PRINT_FORMAT;
		p.out = sink;
		tmq_print(&p, &t, m);
		tmq_format_free(&p.fmt);
	}
	free(spec);
	return 0;
}
