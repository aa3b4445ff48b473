/* t-topicstat.c: lib/store/topicstat: the sums tmq-topic list and info
 * print, the messages still on disk and the bytes of every partition. */
#include "tap.h"
#include "store/topicstat.h"

int
main(void)
{
	struct tmq_partstat ps[3];
	uint64_t msgs = 1, bytes = 1;

	memset(ps, 0, sizeof ps);
	tmq_topic_stat_sum(ps, 0, &msgs, &bytes);
	ok(msgs == 0 && bytes == 0, "no partitions: nothing");
	ps[0].first = 0, ps[0].end = 10, ps[0].bytes = 300;
	ps[1].first = 7, ps[1].end = 7, ps[1].bytes = 0;
	ps[2].first = 1000, ps[2].end = 1005, ps[2].bytes = 41;
	tmq_topic_stat_sum(ps, 3, &msgs, &bytes);
	is_u64(msgs, 15, "messages: end - first, summed (pruned ones not "
	    "counted)");
	is_u64(bytes, 341, "bytes summed");
	ps[0].end = UINT64_MAX / 2;
	ps[2].end = ps[2].first + UINT64_MAX / 2;
	tmq_topic_stat_sum(ps, 3, &msgs, &bytes);
	is_u64(msgs, UINT64_MAX / 2 * 2, "large counts summed exactly");
	return done_testing();
}
