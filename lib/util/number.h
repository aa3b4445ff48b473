/* number.h: whole numbers as the command line gives them (options,
 * tmq-commit's pairs): decimal digits only, no sign, no space. */
#ifndef TMQ_NUMBER_H
#define TMQ_NUMBER_H

#include <stdint.h>

#include "util/error.h"

/* A whole unsigned decimal number within [min, max]: "'S': not a
 * number", "number too large", "out of range (MIN to MAX)" otherwise. */
int tmq_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v,
    struct tmq_error *e);
/* A size in bytes: a whole number, alone or followed by K, M or G (or
 * KiB, MiB, GiB: powers of 1024), within [min, max]: "'S': not a size",
 * "'S': over MAX bytes", "'S': under MIN bytes" otherwise. */
int tmq_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *v,
    struct tmq_error *e);

#endif
