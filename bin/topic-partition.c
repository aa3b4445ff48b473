/* topic-partition.c: tmq-topic partition NAME [KEY...]: the partition of
 * each key, one answer a key (the entry's exec: topic.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/metrics.h"
#include "codec/partitioner.h"
#include "topic.h"

/* One answer a key, so that the output lines up with the keys (paste):
 * the partition, or "-" for a bad key, whose message goes to stderr.
 * what/recno name a key read from stdin ("line 3"); recno 0 for operands. */
static int
partition_one(const struct tmq_topic *t, const char *key, size_t n,
    const char *what, unsigned long recno)
{
	unsigned char kb[TMQ_KEY_MAX_BYTES];
	struct tmq_error e;

	if (tmq_key_parse(t->key_width, key, n, kb, &e) < 0) {
		tmq_flush_stdout();
		if (recno)
			tmq_warn(&topic_cmd, "%s: %s %lu: %s", t->name, what, recno,
			    e.msg);
		else
			tmq_warn(&topic_cmd, "%s: %s", t->name, e.msg);
		puts("-");
		return -1;
	}
	printf("%u\n", tmq_partition_of(t->key_width, kb, t->partitions));
	return 0;
}

int
topic_partition(char **operands, int noperands)
{
	const struct topic_args *a = &topic_args;
	const char *name = operands[0];
	int nkeys = noperands - 1;
	char **keys = operands + 1;
	struct tmq_error e;
	struct tmq_topic t;
	int fd, i, rc = TMQ_EXIT_OK;

	if (topic_open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_topic_open(fd, name, &t, &e) < 0) {
		close(fd);
		return tmq_report(&topic_cmd, &e);
	}
	close(fd);
	if (nkeys > 0) {
		for (i = 0; i < nkeys; i++)
			if (partition_one(&t, keys[i], strlen(keys[i]), NULL,
			    0) < 0)
				rc = TMQ_EXIT_FAIL;
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		unsigned long recno = 0;

		while ((len = getdelim(&line, &cap, a->null ? '\0' : '\n',
		    stdin)) >= 0) {
			recno++;
			if (len > 0 && line[len - 1] == (a->null ? '\0' : '\n'))
				len--;
			if (partition_one(&t, line, (size_t)len,
			    a->null ? "record" : "line", recno) < 0)
				rc = TMQ_EXIT_FAIL;
		}
		if (ferror(stdin)) {
			tmq_fail_errno(&e, errno == EBADF ?
			    "not open for reading" : "read error");
			tmq_warn(&topic_cmd, "standard input: %s", e.msg);
			rc = TMQ_EXIT_FAIL;
		}
		free(line);
	}
	tmq_topic_close(&t);
	return rc;
}
