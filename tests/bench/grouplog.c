/* grouplog.c: for make bench: append N COMMIT lines to a consumer group's
 * log, as a pipeline committing for a long time would have written them,
 * in batches so that a million lines take seconds rather than minutes.
 *
 *   grouplog [-k] ROOT GROUP TOPIC N
 *
 * The group is made (committed at start) when it does not exist.  Line i
 * commits partition i % P at offset i / P % (the partition's end + 1), so
 * the commits stay within what the topic holds.  Lines are written under
 * key 0, or with -k each under a key of its own (i + 1): a log of N
 * distinct members, the worst a replay meets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group/group.h"
#include "store/partfile.h"
#include "store/partscan.h"
#include "store/root.h"
#include "codec/timestamp.h"

int
main(int argc, char **argv)
{
	struct tmq_error e;
	struct tmq_topic t;
	struct tmq_group g;
	struct tmq_appender app;
	uint64_t *ends, i, n;
	unsigned char key[4] = { 0, 0, 0, 0 };
	int rootfd, keys = 0;

	if (argc == 6 && strcmp(argv[1], "-k") == 0) {
		keys = 1;
		argc--;
		argv++;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: grouplog [-k] ROOT GROUP TOPIC N\n");
		return 2;
	}
	n = strtoull(argv[4], NULL, 10);
	if (tmq_root_open(argv[1], 0, &rootfd, &e) < 0 ||
	    tmq_topic_open(rootfd, argv[3], &t, &e) < 0)
		goto fail;
	if (tmq_group_open(rootfd, argv[2], argv[3], &g, &e) < 0 &&
	    (tmq_group_create(rootfd, argv[2], &t, 0, &e) < 0 ||
	    tmq_group_open(rootfd, argv[2], argv[3], &g, &e) < 0))
		goto fail;
	ends = calloc(t.partitions, sizeof *ends);
	if (ends == NULL)
		return 1;
	for (i = 0; i < t.partitions; i++)
		if (tmq_partition_end(&t, (unsigned)i, &ends[i], &e) < 0)
			goto fail;
	if (tmq_appender_open(&app, &g.log, 0, &e) < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		struct tmq_poff po;
		struct tmq_gmsg m;
		struct tmq_payload pl;
		char line[TMQ_LINE_MAX], *body;
		long len;

		po.partition = (unsigned)(i % t.partitions);
		po.offset = (int64_t)(i / t.partitions % (ends[po.partition] + 1));
		memset(&m, 0, sizeof m);
		m.kind = TMQ_G_COMMIT;
		m.commits = &po;
		m.ncommits = 1;
		body = tmq_gmsg_body(&m);
		if (body == NULL)
			return 1;
		if (keys)
			tmq_key_from_u64(4, i + 1, key);
		pl.type = TMQ_TYPED;
		pl.type_index = TMQ_G_COMMIT;
		pl.data = (const unsigned char *)body;
		pl.len = strlen(body);
		len = tmq_line_encode(&g.codec, 4, key, tmq_now(), &pl, line,
		    sizeof line, &e);
		free(body);
		if (len < 0 || tmq_appender_add(&app, 0, line, (size_t)len,
		    &e) < 0)
			goto fail;
	}
	if (tmq_appender_flush(&app, &e) < 0)
		goto fail;
	tmq_appender_close(&app);
	tmq_group_close(&g);
	tmq_topic_close(&t);
	free(ends);
	return 0;
fail:
	fprintf(stderr, "grouplog: %s\n", e.msg);
	return 1;
}
