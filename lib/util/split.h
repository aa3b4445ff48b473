/* split.h: a list of words written as one argument ("-t A,B,C"). */
#ifndef TMQ_SPLIT_H
#define TMQ_SPLIT_H

#include "util/error.h"

/* Split s at each sep into *n words, every one kept: empty ones too
 * ("A,,B" is "A", "", "B"; "" is one empty word), for the caller to judge.
 * *v is one malloc'd block, the array and the words' text: free(*v). */
int tmq_split(const char *s, int sep, char ***v, unsigned *n,
    struct tmq_error *e);

#endif
