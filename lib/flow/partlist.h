/* partlist.h: the partition lists of -P ("0,2,5", "1-3"). */
#ifndef TMQ_PARTLIST_H
#define TMQ_PARTLIST_H

#include "util/error.h"

/* Parse a list of partition numbers and ranges into *v (malloc'd): each
 * partition once, in increasing order, whatever order the list names
 * them in.  A malformed list (empty, an empty element, not a number, a
 * range that runs backwards, a number no topic can have) fails with a
 * message that quotes the list: a usage error, found before any topic is
 * opened. */
int tmq_partlist_parse(const char *s, unsigned **v, unsigned *n,
    struct tmq_error *e);

/* Every partition of the list exists in a topic of that many. */
int tmq_partlist_check(const unsigned *v, unsigned n, unsigned partitions,
    struct tmq_error *e);

#endif
