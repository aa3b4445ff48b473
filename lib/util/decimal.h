/* decimal.h: whole numbers written as decimal digits, with no stdio and
 * no copy of a length known only at the end: tmq-get -J writes three
 * numbers and a time a message, and snprintf, or a digit at a time into a
 * scratch buffer and a memcpy, cost as much as the rest of its line. */
#ifndef TMQ_DECIMAL_H
#define TMQ_DECIMAL_H

#include <stdint.h>

/* "00" to "99": two digits a step (tmq_dec_two + 2 * n for n < 100). */
extern const char tmq_dec_two[201];
/* How many digits v has (1 for 0). */
int tmq_dec_len(uint64_t v);
/* v's digits at o (no NUL): the end. */
char *tmq_dec_put(char *o, uint64_t v);
/* The k lowest digits of v, leading zeros and all, at o (no NUL). */
void tmq_dec_fixed(char *o, uint64_t v, int k);

#endif
