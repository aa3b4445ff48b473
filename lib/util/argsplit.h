/* argsplit.h: a command line split into words as xargs splits its input
 * (tmq-get --exec CMD): blanks separate words; single or double quotes
 * keep blanks in a word; a backslash outside quotes keeps the character
 * after it.  Nothing else is special: no shell sees the words. */
#ifndef TMQ_ARGSPLIT_H
#define TMQ_ARGSPLIT_H

#include "util/error.h"

/* *argv: a NULL-ended array of *argc (at least 1) words, one malloc'd
 * block (free(*argv)).  An unmatched quote, a trailing backslash or no
 * word at all is an error. */
int tmq_argsplit(const char *s, char ***argv, int *argc, struct tmq_error *e);

#endif
