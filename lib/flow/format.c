/* format.c: compiling -F formats once, so printing is a walk over ops. */
#include <stdlib.h>
#include <string.h>

#include "flow/format.h"
#include "util/unescape.h"
#include "util/grow.h"

static int
push(struct tmq_format *f, size_t *cap, char field, const char *text,
    size_t len, struct tmq_error *e)
{
	if (field == 0 && len == 0)
		return 0;
	/* Adjacent literals merge. */
	if (field == 0 && f->nops > 0 && f->ops[f->nops - 1].field == 0 &&
	    f->ops[f->nops - 1].text + f->ops[f->nops - 1].len == text) {
		f->ops[f->nops - 1].len += len;
		return 0;
	}
	if (tmq_grow(&f->ops, cap, f->nops + 1, sizeof *f->ops) < 0)
		return tmq_fail(e, "out of memory");
	f->ops[f->nops].field = field;
	f->ops[f->nops].text = text;
	f->ops[f->nops].len = len;
	f->nops++;
	return 0;
}

int
tmq_format_compile(const char *spec, struct tmq_format *f, struct tmq_error *e)
{
	size_t cap = 0, n = strlen(spec), o = 0, i;
	char *lit;

	memset(f, 0, sizeof *f);
	lit = f->lit = malloc(n + 1);
	if (lit == NULL)
		return tmq_fail(e, "out of memory");
	for (i = 0; i < n; i++) {
		char c = spec[i];

		if (c == '%') {
			char d = spec[++i];

			if (d == '%') {
				lit[o] = '%';
				if (push(f, &cap, 0, lit + o, 1, e) < 0)
					goto bad;
				o++;
				continue;
			}
			if (d == '\0' || strchr("skpotTmuSy", d) == NULL) {
				if (d == '\0')
					tmq_fail(e, "bad format: '%%' at the end");
				else
					tmq_fail(e, "bad format: unknown "
					    "directive '%%%c'", d);
				goto bad;
			}
			if (push(f, &cap, d, NULL, 0, e) < 0)
				goto bad;
			continue;
		}
		if (c == '\\') {
			const char *q = spec + i + 1;

			if (tmq_unescape_one(&q, &c, e) < 0) {
				tmq_fail_prefix(e, "bad format");
				goto bad;
			}
			i = (size_t)(q - spec) - 1;
		}
		lit[o] = c;
		if (push(f, &cap, 0, lit + o, 1, e) < 0)
			goto bad;
		o++;
	}
	return 0;
bad:
	tmq_format_free(f);
	return -1;
}

void
tmq_format_free(struct tmq_format *f)
{
	free(f->ops);
	free(f->lit);
	memset(f, 0, sizeof *f);
}
