/* t-workset.c: lib/group/workset: what may start under --jobs and
 * --order partition or key, retries with their backoff, the dead letter
 * past --retries, and each partition's commit frontier. */
#include <string.h>

#include "tap.h"
#include "group/workset.h"

static struct tmq_witem items[16];

static struct tmq_witem *
add(struct tmq_workset *ws, unsigned p, uint64_t off, const char *key)
{
	static size_t used;
	struct tmq_witem *it = &items[used++ % 16];

	memset(it, 0, sizeof *it);
	it->partition = p;
	it->offset = off;
	it->key = key;
	tmq_ws_add(ws, it);
	return it;
}

int
main(void)
{
	struct tmq_workset ws;
	struct tmq_witem *a, *b, *c, *d, *x;

	/* --order partition: one message of a partition at a time. */
	ok(tmq_ws_init(&ws, TMQ_ORDER_PARTITION, 2, 3, 1, 60, 4) == 0, "init");
	a = add(&ws, 0, 10, "k");
	b = add(&ws, 0, 11, "j");
	c = add(&ws, 1, 5, "k");
	ok(tmq_ws_next(&ws, 0, 0) == a, "the first starts first");
	tmq_ws_started(&ws, a);
	ok(tmq_ws_next(&ws, 0, 0) == c, "another partition's starts beside it");
	ok(tmq_ws_next(&ws, 0, 1) == NULL, "stopping: nothing new starts");
	tmq_ws_started(&ws, c);
	d = add(&ws, 2, 0, "");
	ok(!tmq_ws_room(&ws), "four held: no room");
	ok(tmq_ws_next(&ws, 0, 0) == NULL, "two running: no third (--jobs 2)");
	is_int(tmq_ws_ended(&ws, c, 1, 0), TMQ_WEND_DONE, "c done");
	ok(tmq_ws_next(&ws, 0, 0) == d, "b waits for a, d may start");
	x = tmq_ws_pop(&ws);
	ok(x == c, "c, first of its partition and done, pops");
	ok(tmq_ws_pop(&ws) == NULL, "nothing else is finished");
	ok(tmq_ws_room(&ws), "room again");

	/* A failure: retried after the backoff, the partition waiting. */
	is_int(tmq_ws_ended(&ws, a, 0, 100), TMQ_WEND_RETRY, "a failed once: retry");
	ok(tmq_ws_wake(&ws, 100) == 1, "in the base backoff, 1s");
	ok(tmq_ws_next(&ws, 100.5, 0) == d, "b still waits behind a (d may go)");
	ok(tmq_ws_next(&ws, 101, 0) == a, "a again once the backoff passed");
	ok(tmq_ws_next(&ws, 101, 1) == NULL, "but not when stopping");
	tmq_ws_started(&ws, a);
	is_int(a->attempts, 2, "its second attempt");
	is_int(tmq_ws_ended(&ws, a, 0, 200), TMQ_WEND_RETRY, "second failure");
	ok(tmq_ws_wake(&ws, 200) == 2, "the backoff doubles");
	tmq_ws_started(&ws, a);
	is_int(tmq_ws_ended(&ws, a, 0, 300), TMQ_WEND_RETRY, "third failure");
	tmq_ws_started(&ws, a);
	is_int(tmq_ws_ended(&ws, a, 0, 400), TMQ_WEND_DEAD,
	    "fourth failure with --retries 3: dead, after exactly 4 attempts");
	is_int(a->attempts, 4, "4 attempts");
	ok(tmq_ws_next(&ws, 1000, 0) == d, "a dead item still holds its partition");
	ok(tmq_ws_pop(&ws) == NULL, "nor is it committed past");
	tmq_ws_done(&ws, a);
	ok(tmq_ws_pop(&ws) == a, "dead-lettered: a pops (commit 11)");
	ok(tmq_ws_next(&ws, 1000, 0) == b, "then b starts");
	tmq_ws_started(&ws, b);
	tmq_ws_ended(&ws, b, 1, 0);
	ok(tmq_ws_pop(&ws) == b, "b pops");
	ok(tmq_ws_busy(&ws), "d is still held");
	tmq_ws_remove(&ws, d);
	ok(!tmq_ws_busy(&ws), "removed: nothing held");
	ok(tmq_ws_wake(&ws, 0) < 0, "nothing waiting");
	tmq_ws_free(&ws);

	/* --order key: keys of one partition at once, never one key twice,
	 * and the frontier the first unfinished offset. */
	ok(tmq_ws_init(&ws, TMQ_ORDER_KEY, 8, 0, 1, 60, 8) == 0, "init");
	a = add(&ws, 0, 0, "x");
	b = add(&ws, 0, 1, "y");
	c = add(&ws, 0, 2, "x");
	d = add(&ws, 0, 3, "");
	x = add(&ws, 0, 4, "");
	ok(tmq_ws_next(&ws, 0, 0) == a, "x first");
	tmq_ws_started(&ws, a);
	ok(tmq_ws_next(&ws, 0, 0) == b, "y beside it");
	tmq_ws_started(&ws, b);
	ok(tmq_ws_next(&ws, 0, 0) == d, "not the second x: an unkeyed one");
	tmq_ws_started(&ws, d);
	ok(tmq_ws_next(&ws, 0, 0) == x, "unkeyed messages have no order");
	tmq_ws_started(&ws, x);
	ok(tmq_ws_next(&ws, 0, 0) == NULL, "the second x waits");
	tmq_ws_ended(&ws, b, 1, 0);
	tmq_ws_ended(&ws, x, 1, 0);
	ok(tmq_ws_pop(&ws) == NULL, "b and x done, but a before them is not");
	ok(tmq_ws_next(&ws, 0, 0) == NULL, "still the second x waits");
	is_int(tmq_ws_ended(&ws, a, 1, 0), TMQ_WEND_DONE, "a done");
	ok(tmq_ws_pop(&ws) == a, "a pops");
	ok(tmq_ws_pop(&ws) == b, "then b: the frontier is 2");
	ok(tmq_ws_pop(&ws) == NULL, "c is not done");
	ok(tmq_ws_next(&ws, 0, 0) == c, "the second x starts now");
	tmq_ws_started(&ws, c);
	is_int(tmq_ws_ended(&ws, c, 0, 0), TMQ_WEND_DEAD,
	    "--retries 0: dead at the first failure");
	tmq_ws_done(&ws, c);
	tmq_ws_ended(&ws, d, 1, 0);
	ok(tmq_ws_pop(&ws) == c && tmq_ws_pop(&ws) == d &&
	    tmq_ws_pop(&ws) == x && tmq_ws_pop(&ws) == NULL,
	    "then c, d and x, in order");
	tmq_ws_free(&ws);

	/* The backoff schedule. */
	ok(tmq_ws_backoff(1, 60, 1) == 1, "1s after the first failure");
	ok(tmq_ws_backoff(1, 60, 3) == 4, "4s after the third");
	ok(tmq_ws_backoff(1, 60, 7) == 60, "at most max");
	ok(tmq_ws_backoff(1, 60, 4000) == 60, "however many");
	ok(tmq_ws_backoff(0.5, 0.5, 2) == 0.5, "max equal to base: constant");
	return done_testing();
}
