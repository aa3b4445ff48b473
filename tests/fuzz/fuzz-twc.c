/* fuzz-twc.c: libFuzzer target for the topic definition parser. */
#include <stddef.h>
#include <stdint.h>

#include "store/topic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmq_topic t;
	struct tmq_error e;

	if (tmq_topic_parse((const char *)data, size, &t, &e) == 0)
		tmq_topic_close(&t);
	return 0;
}
