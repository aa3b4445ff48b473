/* fuzz-names.c: libFuzzer target for the names a co-user can give files in
 * a root.  Input: eight bytes of line count, then a file name.  A name that
 * parses as a partition file must format back to itself, and its end
 * offset must never wrap past 2^64-1; whatever the name, its escaped form
 * for messages holds no control byte and fits its buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "store/partfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmq_pfile pf, pf2;
	struct tmq_error e;
	char name[300], shown[64];
	uint64_t lines = 0, end;
	size_t i, n;

	if (size < 8)
		return 0;
	for (i = 0; i < 8; i++)
		lines = lines << 8 | data[i];
	n = size - 8 < sizeof name - 1 ? size - 8 : sizeof name - 1;
	memcpy(name, data + 8, n);
	name[n] = '\0';
	tmq_escape_name(name, shown, sizeof shown);
	if (strlen(shown) >= sizeof shown)
		abort();
	for (i = 0; shown[i] != '\0'; i++)
		if ((unsigned char)shown[i] < 0x20 || shown[i] == 0x7f)
			abort();
	if (tmq_pfile_parse(name, &pf) < 0)
		return 0;
	pf2 = pf;
	tmq_pfile_name(&pf2);
	if (strcmp(pf2.name, name) != 0)
		abort();
	if (tmq_pfile_end(&pf, lines, &end, &e) == 0 &&
	    (end < pf.first || end - pf.first != lines))
		abort();
	return 0;
}
