/* table.h: text tables whose columns fit their widest cell (tmq-topic list
 * -l, tmq-group list), so that a long name shifts a column instead of
 * breaking it. */
#ifndef TMQ_TABLE_H
#define TMQ_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

struct tmq_table {
	const char *align;	/* per column: 'l' left, 'r' right */
	size_t ncols, nrows, cap;
	char **cells;		/* nrows * ncols, row by row */
};

/* A table with one column a letter of align; the first row added is the
 * header. */
void tmq_table_init(struct tmq_table *t, const char *align);
/* Add a row of printf-formatted cells: fmt holds one conversion a cell,
 * separated by '\t' ("%s\t%u\t%llu"). */
int tmq_table_add(struct tmq_table *t, struct tmq_error *e, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
/* The rows, columns two spaces apart, no space at the end of a line. */
void tmq_table_print(const struct tmq_table *t, FILE *f);
void tmq_table_free(struct tmq_table *t);

#endif
