/* partitioner.h: the TwainMQ-compatible key -> partition map
 * (tmq-format(5), Keys and partitions). */
#ifndef TMQ_PARTITIONER_H
#define TMQ_PARTITIONER_H

#include <stddef.h>

/* The partition of a key (raw key bytes as in keys.h) among nparts. */
unsigned tmq_partition_of(int width, const unsigned char *key, unsigned nparts);

#endif
