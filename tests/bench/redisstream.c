/* redisstream.c: for make bench, Redis Streams in the shape of tmq-put and
 * tmq-get -f, so that lone.sh can set Redis's latency beside tmq's by the
 * same clock (issue 38 item 2): trickle.c's lines in, latency.c's stamps
 * out, one client process at each end as with tmq.
 *   redisstream put PORT STREAM     each line of standard input "KEY:TEXT"
 *                                   becomes XADD STREAM * p TEXT, alone
 *   redisstream follow PORT STREAM N
 *                                   XREAD BLOCK 0 from the stream's end,
 *                                   TEXT of N entries to standard output,
 *                                   written as each reply comes
 * Built only where hiredis is (configure's HIREDIS); the server is
 * lone.sh's, on 127.0.0.1. */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static redisContext *
connect_to(const char *port)
{
	redisContext *c = redisConnect("127.0.0.1", atoi(port));

	if (c == NULL || c->err) {
		fprintf(stderr, "redisstream: 127.0.0.1:%s: %s\n", port,
		    c != NULL ? c->errstr : "cannot connect");
		exit(1);
	}
	return c;
}

static int
put(redisContext *c, const char *stream)
{
	char *line = NULL, *text;
	size_t cap = 0;
	ssize_t len;
	redisReply *r;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		text = strchr(line, ':');
		text = text != NULL ? text + 1 : line;
		r = redisCommand(c, "XADD %s * p %s", stream, text);
		if (r == NULL || r->type == REDIS_REPLY_ERROR) {
			fprintf(stderr, "redisstream: XADD: %s\n",
			    r != NULL ? r->str : c->errstr);
			return 1;
		}
		freeReplyObject(r);
	}
	free(line);
	return 0;
}

static int
follow(redisContext *c, const char *stream, long n)
{
	char last[64] = "$";
	redisReply *r, *entries, *e, *fields;
	size_t i, j;

	while (n > 0) {
		r = redisCommand(c, "XREAD BLOCK 0 STREAMS %s %s", stream, last);
		if (r == NULL || r->type != REDIS_REPLY_ARRAY) {
			fprintf(stderr, "redisstream: XREAD: %s\n",
			    r == NULL ? c->errstr : r->type == REDIS_REPLY_ERROR ?
			    r->str : "not an array");
			return 1;
		}
		entries = r->element[0]->element[1];
		for (i = 0; i < entries->elements && n > 0; i++, n--) {
			e = entries->element[i];
			snprintf(last, sizeof last, "%s", e->element[0]->str);
			fields = e->element[1];
			for (j = 0; j + 1 < fields->elements; j += 2)
				if (strcmp(fields->element[j]->str, "p") == 0)
					printf("%s\n", fields->element[j + 1]->str);
		}
		fflush(stdout);
		freeReplyObject(r);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	redisContext *c;

	if (argc == 4 && strcmp(argv[1], "put") == 0) {
		c = connect_to(argv[2]);
		return put(c, argv[3]);
	}
	if (argc == 5 && strcmp(argv[1], "follow") == 0) {
		c = connect_to(argv[2]);
		return follow(c, argv[3], atol(argv[4]));
	}
	fprintf(stderr, "usage: redisstream put PORT STREAM | "
	    "follow PORT STREAM N\n");
	return 2;
}
