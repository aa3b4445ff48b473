/* completion.h: what the shell completions ask a tool beyond its option
 * table (cli.c prints that): the type names of a topic, for tmq-put -T. */
#ifndef TMQ_COMPLETION_H
#define TMQ_COMPLETION_H

#include <stdio.h>

#include "util/error.h"

/* Whether a type name may be offered by a completion: one that would do as
 * a topic name (tmq-format(5), Names: [A-Za-z0-9_.-]+, not "." or "..", not
 * beginning with '-').  Such a name needs no quoting in any shell and cannot
 * be read as an option.  tmq takes any non-empty type name; the others are
 * typed by hand. */
int tmq_completable_type(const char *name);

/* Print the offerable type names of TOPIC in the root at path, one a line,
 * in the order of their indexes. */
int tmq_completion_types(const char *root, const char *topic, FILE *out,
    struct tmq_error *e);

#endif
