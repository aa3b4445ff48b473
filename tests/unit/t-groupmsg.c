/* t-groupmsg.c: lib/group/groupmsg, the JSON bodies of the seven group messages
 * (tmq-format(5)): each kind parses to the right fields and encodes back to
 * exactly the bytes the library writes (json.dumps with
 * separators=(",",":")), tags above 2^63 stay exact, the type table is the
 * protocol's, malformed bodies are refused, and, when the vectors are
 * there, every line of the library's --group--workers log round-trips.
 * Lists are read as sets of the topic's partitions (repeats and
 * partitions past the count dropped, the library's count of owned
 * repeats kept), bodies longer than any honest one are refused, and a
 * body refused half way leaves nothing that changes the next one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/groupmsg.h"
#include "codec/message.h"
#include "tap.h"
#include "store/topic.h"

/* Bodies of a topic of any size, unless a test says otherwise. */
static struct tmq_gparser gp;

static int
parse_by(struct tmq_gparser *p, enum tmq_gkind k, const char *body,
    struct tmq_gmsg *m, struct tmq_error *e)
{
	memset(m, 0, sizeof *m);
	e->msg[0] = '\0';
	return tmq_gmsg_parse(p, k, body, strlen(body), m, e);
}

static int
parse(enum tmq_gkind k, const char *body, struct tmq_gmsg *m,
    struct tmq_error *e)
{
	return parse_by(&gp, k, body, m, e);
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
	/* Lists are sets: read ascending (as the library writes them). */
	round_trip(TMQ_G_REBALOFFER, "{\"own\":[3,1],\"partitions\":[3,1,0]}",
	    "{\"own\":[1,3],\"partitions\":[0,1,3]}", &m);
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
	is_int(tmq_gmsg_parse(&gp, TMQ_G_JOINED, "{\"tag\":1}", 8, &m, &e), -1,
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
		if (tmq_gmsg_parse(&gp, (enum tmq_gkind)msg->payload.type_index,
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

/* A list as text, "[0,1,3]". */
static const char *
list(const unsigned *v, unsigned n, char *buf, size_t sz)
{
	size_t len = (size_t)snprintf(buf, sz, "[");
	unsigned i;

	for (i = 0; i < n && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%u", i ? "," : "",
		    v[i]);
	if (len < sz)
		snprintf(buf + len, sz - len, "]");
	return buf;
}

/* A body of a list of `count` copies of "0", as a hostile line holds
 * them (deflate makes millions of them one 4 KB line). */
static char *
repeated(const char *head, unsigned count, const char *tail)
{
	size_t hl = strlen(head), tl = strlen(tail), n = hl + 2 * (size_t)count + tl;
	char *b = malloc(n + 1), *p = b;
	unsigned i;

	memcpy(p, head, hl);
	p += hl;
	for (i = 0; i < count; i++) {
		*p++ = '0';
		*p++ = ',';
	}
	if (count > 0)
		p--;
	memcpy(p, tail, tl + 1);
	return b;
}

/* Lists as the sets they stand for, bounded by the topic's partitions. */
static void
test_sets(void)
{
	struct tmq_gparser small;
	struct tmq_gmsg m;
	struct tmq_error e;
	char a[256], b[256];
	char *body;

	if (tmq_gparser_init(&small, 4, &e) < 0) {
		ok(0, "parser: %s", e.msg);
		return;
	}
	memset(&m, 0, sizeof m);
	/* Repeats go; the library counts owned repeats it accepts (3 three
	 * times, 1 once: two repeats), not those it does not (9). */
	ok(parse(TMQ_G_REBALOFFER,
	    "{\"own\":[3,1,3,9,3,9],\"partitions\":[3,1,0,1,0]}", &m, &e) == 0,
	    "an offer with repeats parses");
	is_str(list(m.own, m.nown, a, sizeof a), "[1,3,9]", "own as a set");
	is_str(list(m.parts, m.nparts, b, sizeof b), "[0,1,3]",
	    "partitions as a set");
	is_int((int)m.own_extra, 2, "owned repeats it accepts counted: 2");
	ok(!m.has_absent, "nothing past the topic (of 65536)");
	tmq_gmsg_clear(&m);

	/* Past the topic's count: dropped, the first one (own's first)
	 * kept to be said. */
	ok(parse_by(&small, TMQ_G_REBALOFFER,
	    "{\"own\":[2,9,4],\"partitions\":[0,7,1,2]}", &m, &e) == 0,
	    "an offer past a 4-partition topic parses");
	is_str(list(m.own, m.nown, a, sizeof a), "[2]", "own: 9 and 4 dropped");
	is_str(list(m.parts, m.nparts, b, sizeof b), "[0,1,2]",
	    "partitions: 7 dropped");
	ok(m.has_absent && m.absent == 9, "the first one said: 9 (%u)",
	    m.absent);
	tmq_gmsg_clear(&m);
	ok(parse_by(&small, TMQ_G_REBALCONFIRM,
	    "{\"partitions\":[3,3,5,0,3]}", &m, &e) == 0 &&
	    m.has_absent && m.absent == 5, "a confirm past the topic: 5 said");
	is_str(list(m.parts, m.nparts, a, sizeof a), "[0,3]", "confirm as a set");
	tmq_gmsg_clear(&m);
	/* A commit names each partition once, at its last offset. */
	ok(parse_by(&small, TMQ_G_COMMIT,
	    "{\"partition_offsets\":[[1,5],[0,2],[1,9],[7,3],[0,-1]]}", &m,
	    &e) == 0, "a commit with repeats parses");
	ok(m.ncommits == 2 && m.commits[0].partition == 1 &&
	    m.commits[0].offset == 9 && m.commits[1].partition == 0 &&
	    m.commits[1].offset == -1, "each partition once, the last offset "
	    "wins (%u pairs)", m.ncommits);
	ok(m.has_absent && m.absent == 7, "7 past the topic, said");
	tmq_gmsg_clear(&m);

	/* A huge list of one partition: one entry, whatever its length. */
	body = repeated("{\"own\":[],\"partitions\":[", 20000, "]}");
	ok(tmq_gmsg_parse(&gp, TMQ_G_REBALOFFER, body, strlen(body), &m,
	    &e) == 0 && m.nparts == 1 && m.parts[0] == 0,
	    "20,000 repeats of 0: one partition (%u)", m.nparts);
	tmq_gmsg_clear(&m);
	free(body);
	body = repeated("{\"own\":[", 20000, "],\"partitions\":[0]}");
	ok(tmq_gmsg_parse(&gp, TMQ_G_REBALOFFER, body, strlen(body), &m,
	    &e) == 0 && m.nown == 1 && m.own_extra == 19999,
	    "20,000 owned 0s: one owned, 19,999 repeats counted (%u)",
	    m.own_extra);
	tmq_gmsg_clear(&m);
	free(body);
	/* Longer than any body of ours for the topic: refused unread. */
	is_int((int)tmq_gmsg_max_body(4), 48 * 4 + 4096, "the longest body for "
	    "4 partitions");
	body = repeated("{\"own\":[],\"partitions\":[", 2200, "]}");
	is_int(tmq_gmsg_parse(&small, TMQ_G_REBALOFFER, body, strlen(body), &m,
	    &e), -1, "a body of %zu bytes, for 4 partitions, is refused",
	    strlen(body));
	is_str(e.msg, "~~TWAIN~~REBALOFFER: body of 4425 bytes, longer than "
	    "any message for 4 partitions", "  saying so");
	tmq_gmsg_clear(&m);
	free(body);
	body = repeated("{\"own\":[],\"partitions\":[", 2000, "]}");
	ok(tmq_gmsg_parse(&small, TMQ_G_REBALOFFER, body, strlen(body), &m,
	    &e) == 0 && m.nparts == 1, "one of %zu bytes is read", strlen(body));
	tmq_gmsg_clear(&m);
	free(body);

	/* Refused half way: the partitions seen before the bad entry are
	 * not left marked (they would be taken for repeats next time). */
	is_int(parse(TMQ_G_REBALOFFER, "{\"own\":[2,1],\"partitions\":[0,1,\"x\"]}",
	    &m, &e), -1, "a bad entry after good ones is refused");
	tmq_gmsg_clear(&m);
	is_int(parse(TMQ_G_COMMIT, "{\"partition_offsets\":[[0,1],[1,2],[2]]}",
	    &m, &e), -1, "a bad pair after good ones is refused");
	tmq_gmsg_clear(&m);
	ok(parse(TMQ_G_REBALOFFER, "{\"own\":[1,2],\"partitions\":[2,1,0]}", &m,
	    &e) == 0 && m.nparts == 3 && m.nown == 2 && m.own_extra == 0,
	    "the next body reads whole");
	tmq_gmsg_clear(&m);
	ok(parse(TMQ_G_COMMIT, "{\"partition_offsets\":[[1,7],[0,3]]}", &m,
	    &e) == 0 && m.ncommits == 2 && m.commits[0].offset == 7,
	    "and the next commit");
	tmq_gmsg_clear(&m);
	tmq_gparser_free(&small);
}

/* What JSON readers agree on: keys by their meaning, the last of a name,
 * other members skipped, whatever they hold; RFC 8259 and nothing else. */
static void
test_json(void)
{
	static const char *const bad[] = {
		"{\"tag\":1,}", "{\"tag\":NaN}", "{\"tag\":1 /* c */}",
		"{'tag':1}", "{\"tag\":01}", "{\"tag\":1}\xff", "{\"x\":\"\xc3\"}",
		"{\"x\":[1,],\"tag\":1}", "{\"tag\":+1}", "{\"x\":Infinity,\"tag\":1}",
	};
	struct tmq_gmsg m;
	struct tmq_error e;
	size_t i;

	ok(parse(TMQ_G_JOINED, "{\"t\\u0061g\":5}", &m, &e) == 0 && m.tag == 5,
	    "a key spelled with an escape is the key");
	ok(parse(TMQ_G_JOINED, "{\"tag\":1,\"tag\":2}", &m, &e) == 0 &&
	    m.tag == 2, "of two, the last one counts");
	ok(parse(TMQ_G_JOINED, "{\"tag\\u0000\":3,\"tag\":4}", &m, &e) == 0 &&
	    m.tag == 4, "a key with a NUL in it is another key");
	ok(parse(TMQ_G_REBALOFFER, "{\"x\":{\"own\":[5],\"s\":\"]}\\\"[\"},"
	    "\"own\":[],\"partitions\":[2],\"y\":[[{}]]}", &m, &e) == 0 &&
	    m.nparts == 1 && m.parts[0] == 2 && m.nown == 0,
	    "other members are skipped, whatever they hold");
	tmq_gmsg_clear(&m);
	ok(parse(TMQ_G_COMMIT, " {\"partition_offsets\" : [ [ 0 , -0 ] , [1,-1]"
	    " ] }\n", &m, &e) == 0 && m.ncommits == 2 && m.commits[0].offset == 0
	    && m.commits[1].offset == -1, "white space anywhere JSON has it");
	tmq_gmsg_clear(&m);
	ok(parse(TMQ_G_JOINED, "{\"tag\":-0}", &m, &e) == 0 && m.tag == 0,
	    "-0 is 0, as it is to json-c and to the library");
	ok(parse(TMQ_G_BEGINREBAL, "{\"timestamp\":1.5e9}", &m, &e) == 0 &&
	    m.end == 1.5e9, "an END with an exponent");
	is_int(parse(TMQ_G_BEGINREBAL, "{\"timestamp\":1e999}", &m, &e), -1,
	    "an END that is not finite is refused");
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		is_int(parse(TMQ_G_JOINED, bad[i], &m, &e), -1,
		    "not RFC 8259: '%s' is refused", bad[i]);
		ok(strstr(e.msg, "body is not a JSON object") != NULL,
		    "  saying so: %s", e.msg);
	}
}

int
main(void)
{
	struct tmq_error e;

	if (tmq_gparser_init(&gp, TMQ_MAX_PARTITIONS, &e) < 0)
		return 1;
	test_kinds();
	test_tags();
	test_begin_end();
	test_offers();
	test_commits();
	test_malformed();
	test_sets();
	test_json();
	test_vectors();
	tmq_gparser_free(&gp);
	return done_testing();
}
