/* t-groupmsg.c: lib/groupmsg, the JSON bodies of the seven group messages
 * (SPEC.md 5): each kind parses to the right fields and encodes back to
 * exactly the bytes the library writes (json.dumps with
 * separators=(",",":")), tags above 2^63 stay exact, the type table is the
 * protocol's, malformed bodies are refused, and, when the vectors are
 * there, every line of the library's --group--workers log round-trips. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groupmsg.h"
#include "message.h"
#include "tap.h"

static int
parse(enum tmq_gkind k, const char *body, struct tmq_gmsg *m,
    struct tmq_error *e)
{
	memset(m, 0, sizeof *m);
	e->msg[0] = '\0';
	return tmq_gmsg_parse(k, body, strlen(body), m, e);
}

/* body parses as kind k and encodes back to want (body itself when NULL).
 * Leaves the parsed message in *m for the caller to inspect and clear. */
static int
round_trip(enum tmq_gkind k, const char *body, const char *want,
    struct tmq_gmsg *m)
{
	struct tmq_error e;
	char *out;
	int pass;

	if (!is_int(parse(k, body, m, &e), 0, "%s %s parses",
	    tmq_gkind_names[k], body)) {
		diag("error: %s", e.msg);
		return 0;
	}
	ok(m->kind == k, "%s %s: kind kept", tmq_gkind_names[k], body);
	out = tmq_gmsg_body(m);
	pass = is_str(out, want ? want : body, "%s %s encodes back%s%s",
	    tmq_gkind_names[k], body, want ? " as " : "", want ? want : "");
	free(out);
	return pass;
}

static void
test_kinds(void)
{
	static const char *const names[] = {
		"~~TWAIN~~JOINED", "~~TWAIN~~ABORTJOIN", "~~TWAIN~~REBALOFFER",
		"~~TWAIN~~REBALCONFIRM", "~~TWAIN~~BEGINREBAL",
		"~~TWAIN~~ENDREBAL", "~~TWAIN~~COMMIT"
	};
	int i;

	is_int(TMQ_G_NKINDS, 7, "seven kinds");
	for (i = 0; i < 7; i++) {
		is_str(tmq_gkind_names[i], names[i], "type index %d is %s", i,
		    names[i]);
		is_int(tmq_gkind_of(names[i]), i, "tmq_gkind_of(%s)", names[i]);
	}
	is_int(tmq_gkind_of("~~TWAIN~~LEAVE"), -1, "unknown type name: -1");
	is_int(tmq_gkind_of("JOINED"), -1, "name without prefix: -1");
	is_int(tmq_gkind_of(""), -1, "empty name: -1");
}

static void
test_tags(void)
{
	struct tmq_gmsg m;

	if (round_trip(TMQ_G_JOINED, "{\"tag\":1}", NULL, &m))
		is_u64(m.tag, 1, "tag 1");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_JOINED, "{\"tag\":0}", NULL, &m))
		is_u64(m.tag, 0, "tag 0");
	tmq_gmsg_clear(&m);
	/* The vectors' two JOINED tags, both above 2^63. */
	if (round_trip(TMQ_G_JOINED, "{\"tag\":12283016145105864836}", NULL,
	    &m))
		is_u64(m.tag, UINT64_C(12283016145105864836),
		    "tag 12283016145105864836 kept exact");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_JOINED, "{\"tag\":10870414539955817808}", NULL,
	    &m))
		is_u64(m.tag, UINT64_C(10870414539955817808),
		    "tag 10870414539955817808 kept exact");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_JOINED, "{\"tag\":9223372036854775808}", NULL, &m))
		is_u64(m.tag, UINT64_C(9223372036854775808), "tag 2^63 exact");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_JOINED, "{\"tag\":9223372036854775807}", NULL, &m))
		is_u64(m.tag, UINT64_C(9223372036854775807),
		    "tag 2^63-1 exact");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_JOINED, "{\"tag\":18446744073709551615}", NULL,
	    &m))
		is_u64(m.tag, UINT64_MAX, "tag 2^64-1 exact");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_ABORTJOIN, "{\"tag\":12283016145105864836}", NULL,
	    &m))
		is_u64(m.tag, UINT64_C(12283016145105864836),
		    "ABORTJOIN tag kept exact");
	tmq_gmsg_clear(&m);

	/* Encoding a tag we drew ourselves. */
	memset(&m, 0, sizeof m);
	m.kind = TMQ_G_JOINED;
	m.tag = UINT64_C(12283016145105864836);
	{
		char *out = tmq_gmsg_body(&m);

		is_str(out, "{\"tag\":12283016145105864836}",
		    "a JOINED built in C encodes its tag exactly");
		free(out);
	}
}

static void
test_begin_end(void)
{
	struct tmq_gmsg m;

	if (round_trip(TMQ_G_BEGINREBAL, "{\"timestamp\":1795867202.0}", NULL,
	    &m))
		ok(m.end == 1795867202.0, "END 1795867202.0");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_BEGINREBAL, "{\"timestamp\":1795942899.6548681}",
	    NULL, &m))
		ok(m.end == 1795942899.6548681, "END 1795942899.6548681");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_BEGINREBAL, "{\"timestamp\":1795867214.25}", NULL,
	    &m))
		ok(m.end == 1795867214.25, "END 1795867214.25");
	tmq_gmsg_clear(&m);
	/* An integer is a float to Python; written back as one. */
	if (round_trip(TMQ_G_BEGINREBAL, "{\"timestamp\":1795867202}",
	    "{\"timestamp\":1795867202.0}", &m))
		ok(m.end == 1795867202.0, "integer END read as a float");
	tmq_gmsg_clear(&m);

	round_trip(TMQ_G_ENDREBAL, "{}", NULL, &m);
	tmq_gmsg_clear(&m);
}

static void
test_offers(void)
{
	struct tmq_gmsg m;

	if (round_trip(TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[0,1]}",
	    NULL, &m)) {
		is_int(m.nown, 0, "no own");
		is_int(m.nparts, 2, "two partitions");
		ok(m.nparts == 2 && m.parts[0] == 0 && m.parts[1] == 1,
		    "partitions 0, 1");
	}
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_REBALOFFER,
	    "{\"own\":[0,2,4],\"partitions\":[0,1,2,3,4]}", NULL, &m)) {
		is_int(m.nown, 3, "own three");
		ok(m.nown == 3 && m.own[0] == 0 && m.own[1] == 2 &&
		    m.own[2] == 4, "own 0, 2, 4");
		is_int(m.nparts, 5, "five partitions");
	}
	tmq_gmsg_clear(&m);
	/* A member leaving offers nothing. */
	if (round_trip(TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[]}", NULL,
	    &m))
		ok(m.nown == 0 && m.nparts == 0, "an empty offer");
	tmq_gmsg_clear(&m);
	/* Order is kept as written, not sorted. */
	round_trip(TMQ_G_REBALOFFER, "{\"own\":[3,1],\"partitions\":[3,1,0]}",
	    NULL, &m);
	tmq_gmsg_clear(&m);
	/* json.dumps' default layout (with spaces) reads the same. */
	round_trip(TMQ_G_REBALOFFER,
	    "{\"own\": [1, 3], \"partitions\": [0, 1, 2, 3]}",
	    "{\"own\":[1,3],\"partitions\":[0,1,2,3]}", &m);
	tmq_gmsg_clear(&m);
	/* Fields in the other order. */
	round_trip(TMQ_G_REBALOFFER, "{\"partitions\":[0],\"own\":[0]}",
	    "{\"own\":[0],\"partitions\":[0]}", &m);
	tmq_gmsg_clear(&m);

	if (round_trip(TMQ_G_REBALCONFIRM, "{\"partitions\":[0,2,4]}", NULL,
	    &m))
		ok(m.nparts == 3 && m.parts[2] == 4, "confirm 0, 2, 4");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_REBALCONFIRM, "{\"partitions\":[]}", NULL, &m))
		is_int(m.nparts, 0, "confirm nothing");
	tmq_gmsg_clear(&m);
}

static void
test_commits(void)
{
	struct tmq_gmsg m;

	if (round_trip(TMQ_G_COMMIT, "{\"partition_offsets\":[[0,21],[2,4]]}",
	    NULL, &m)) {
		is_int(m.ncommits, 2, "two pairs");
		ok(m.ncommits == 2 && m.commits[0].partition == 0 &&
		    m.commits[0].offset == 21 && m.commits[1].partition == 2 &&
		    m.commits[1].offset == 4, "(0, 21), (2, 4)");
	}
	tmq_gmsg_clear(&m);
	round_trip(TMQ_G_COMMIT,
	    "{\"partition_offsets\":[[0,0],[1,0],[2,0],[3,0],[4,0]]}", NULL, &m);
	tmq_gmsg_clear(&m);
	/* -1 is the library's "now". */
	if (round_trip(TMQ_G_COMMIT, "{\"partition_offsets\":[[0,-1],[1,-1]]}",
	    NULL, &m))
		ok(m.ncommits == 2 && m.commits[0].offset == -1 &&
		    m.commits[1].offset == -1, "-1 kept");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_COMMIT,
	    "{\"partition_offsets\":[[7,9007199254740993]]}", NULL, &m))
		ok(m.ncommits == 1 && m.commits[0].offset ==
		    INT64_C(9007199254740993), "offsets past 2^53 kept exact");
	tmq_gmsg_clear(&m);
	if (round_trip(TMQ_G_COMMIT, "{\"partition_offsets\":[]}", NULL, &m))
		is_int(m.ncommits, 0, "no pairs");
	tmq_gmsg_clear(&m);
}

static void
test_malformed(void)
{
	static const struct {
		enum tmq_gkind k;
		const char *body;
	} bad[] = {
		{ TMQ_G_JOINED, "" },
		{ TMQ_G_JOINED, "{" },
		{ TMQ_G_JOINED, "{\"tag\":1" },
		{ TMQ_G_JOINED, "nope" },
		{ TMQ_G_JOINED, "[1]" },
		{ TMQ_G_JOINED, "null" },
		{ TMQ_G_JOINED, "17" },
		{ TMQ_G_JOINED, "{}" },
		{ TMQ_G_JOINED, "{\"tag\":-1}" },
		{ TMQ_G_JOINED, "{\"tag\":1.5}" },
		{ TMQ_G_JOINED, "{\"tag\":\"1\"}" },
		{ TMQ_G_JOINED, "{\"tag\":null}" },
		{ TMQ_G_JOINED, "{\"tag\":true}" },
		{ TMQ_G_JOINED, "{\"tags\":1}" },
		/* json-c would clamp these; the library refuses them. */
		{ TMQ_G_JOINED, "{\"tag\":18446744073709551616}" },
		{ TMQ_G_JOINED, "{\"tag\":99999999999999999999999}" },
		{ TMQ_G_JOINED, "{\"tag\":1}xyz" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[]} {}" },
		{ TMQ_G_ABORTJOIN, "{}" },
		{ TMQ_G_ABORTJOIN, "{\"tag\":[1]}" },
		{ TMQ_G_BEGINREBAL, "{}" },
		{ TMQ_G_BEGINREBAL, "{\"timestamp\":\"1795867202.0\"}" },
		{ TMQ_G_BEGINREBAL, "{\"timestamp\":null}" },
		{ TMQ_G_BEGINREBAL, "{\"end\":1795867202.0}" },
		{ TMQ_G_REBALOFFER, "{}" },
		{ TMQ_G_REBALOFFER, "{\"own\":[]}" },
		{ TMQ_G_REBALOFFER, "{\"partitions\":[0]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[-1]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[1.5]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[\"1\"]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":[],\"partitions\":[4294967296]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":{},\"partitions\":[]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":[null],\"partitions\":[0]}" },
		{ TMQ_G_REBALOFFER, "{\"own\":0,\"partitions\":[0]}" },
		{ TMQ_G_REBALCONFIRM, "{}" },
		{ TMQ_G_REBALCONFIRM, "{\"partitions\":7}" },
		{ TMQ_G_REBALCONFIRM, "{\"partitions\":[[0]]}" },
		{ TMQ_G_ENDREBAL, "[]" },
		{ TMQ_G_ENDREBAL, "" },
		{ TMQ_G_COMMIT, "{}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":{}}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[0,1]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[0]]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[0,1,2]]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[-1,0]]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[0,-2]]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[\"0\",1]]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[0,1.5]]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[0,1],null]}" },
		{ TMQ_G_COMMIT, "{\"partition_offsets\":[[4294967296,0]]}" },
	};
	struct tmq_gmsg m;
	struct tmq_error e;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = parse(bad[i].k, bad[i].body, &m, &e);

		is_int(rc, -1, "%s '%s' is refused", tmq_gkind_names[bad[i].k],
		    bad[i].body);
		ok(e.msg[0] != '\0' && strstr(e.msg, tmq_gkind_names[bad[i].k]) !=
		    NULL, "  with a message naming the type: %s", e.msg);
		ok(m.own == NULL && m.parts == NULL && m.commits == NULL &&
		    m.nown == 0 && m.nparts == 0 && m.ncommits == 0,
		    "  and nothing left allocated");
		tmq_gmsg_clear(&m);
	}
	/* The length counts: a body cut short is not the whole body. */
	memset(&m, 0, sizeof m);
	is_int(tmq_gmsg_parse(TMQ_G_JOINED, "{\"tag\":1}", 8, &m, &e), -1,
	    "a body cut before its last byte is refused");
	tmq_gmsg_clear(&m);
}

/* Every line of the library's group log: decode it, parse its body by its
 * type, and encode the body back to the very bytes the library wrote. */
static void
test_vectors(void)
{
	FILE *f = vectors_open("root/--group--workers/0-20261128_0.tmf");
	struct tmq_codec codec;
	struct tmq_error e;
	struct tmq_msg *msg;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned lines = 0, good = 0, kinds = 0;

	if (f == NULL) {
		ok(0, "vectors: root/--group--workers/0-20261128_0.tmf not found "
		    "(tests/vectors, or $TMQ_VECTORS)");
		return;
	}
	msg = malloc(sizeof *msg);
	if (!ok(msg != NULL && tmq_codec_init(&codec, &e) == 0, "codec")) {
		fclose(f);
		free(msg);
		return;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		struct tmq_gmsg m;
		char *out;
		int pass;

		lines++;
		if (line[n - 1] == '\n')
			n--;
		if (tmq_line_decode(&codec, 4, TMQ_G_NKINDS, line, (size_t)n, msg,
		    &e) < 0 || msg->payload.type != TMQ_TYPED) {
			ok(0, "vectors line %u decodes", lines);
			continue;
		}
		kinds |= 1u << msg->payload.type_index;
		memset(&m, 0, sizeof m);
		if (tmq_gmsg_parse((enum tmq_gkind)msg->payload.type_index,
		    (const char *)msg->payload.data, msg->payload.len, &m,
		    &e) < 0) {
			ok(0, "vectors line %u parses: %s", lines, e.msg);
			continue;
		}
		out = tmq_gmsg_body(&m);
		pass = out != NULL && strlen(out) == msg->payload.len &&
		    memcmp(out, msg->payload.data, msg->payload.len) == 0;
		if (!pass)
			is_mem(out, out ? strlen(out) : 0, msg->payload.data,
			    msg->payload.len, "vectors line %u (%s) round-trips",
			    lines, tmq_gkind_names[msg->payload.type_index]);
		good += pass;
		free(out);
		tmq_gmsg_clear(&m);
	}
	is_int(lines, 19, "the vectors' group log has 19 lines");
	is_int(good, lines, "every one encodes back byte for byte");
	/* JOINED, REBALOFFER, REBALCONFIRM, BEGINREBAL, ENDREBAL, COMMIT */
	is_int(kinds, 0x7d, "six of the seven kinds among them (no ABORTJOIN)");
	free(line);
	free(msg);
	tmq_codec_free(&codec);
	fclose(f);
}

int
main(void)
{
	test_kinds();
	test_tags();
	test_begin_end();
	test_offers();
	test_commits();
	test_malformed();
	test_vectors();
	return done_testing();
}
