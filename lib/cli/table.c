/* table.c: text tables that fit their cells (see table.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "cli/table.h"

void
tmq_table_init(struct tmq_table *t, const char *align)
{
	memset(t, 0, sizeof *t);
	t->align = align;
	t->ncols = strlen(align);
}

int
tmq_table_add(struct tmq_table *t, struct tmq_error *e, const char *fmt, ...)
{
	va_list ap;
	char *line, *p, *tab;
	size_t i, base;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return tmq_fail(e, "out of memory");
	base = t->nrows * t->ncols;
	if (tmq_grow(&t->cells, &t->cap, base + t->ncols, sizeof *t->cells) < 0) {
		free(line);
		return tmq_fail(e, "out of memory");
	}
	for (i = 0, p = line; i < t->ncols; i++) {
		tab = p != NULL ? strchr(p, '\t') : NULL;
		if (tab != NULL)
			*tab = '\0';
		t->cells[base + i] = strdup(p != NULL ? p : "");
		if (t->cells[base + i] == NULL) {
			while (i-- > 0)
				free(t->cells[base + i]);
			free(line);
			return tmq_fail(e, "out of memory");
		}
		p = tab != NULL ? tab + 1 : NULL;
	}
	free(line);
	t->nrows++;
	return 0;
}

void
tmq_table_print(const struct tmq_table *t, FILE *f)
{
	size_t *w, r, c, len;

	w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
	if (w == NULL)
		return;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			len = strlen(t->cells[r * t->ncols + c]);
			if (len > w[c])
				w[c] = len;
		}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			int last = c + 1 == t->ncols;

			if (c > 0)
				fputs("  ", f);
			if (t->align[c] == 'r')
				fprintf(f, "%*s", (int)w[c], s);
			else if (last)
				fputs(s, f);
			else
				fprintf(f, "%-*s", (int)w[c], s);
		}
		fputc('\n', f);
	}
	free(w);
}

void
tmq_table_free(struct tmq_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof *t);
}
