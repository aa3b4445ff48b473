/* grow.h: growing a heap array to hold at least `need` elements. */
#ifndef TMQ_GROW_H
#define TMQ_GROW_H

#include <stddef.h>

/* *pp points to an array of *cap elements of elem bytes (or NULL, 0).
 * Make room for need, doubling; 0, or -1 when out of memory (*pp is then
 * unchanged). */
int tmq_grow(void *pp, size_t *cap, size_t need, size_t elem);

#endif
