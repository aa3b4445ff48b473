/* tmq-topic: create, list, describe, locate keys in, prune and delete topics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "codec/names.h"
#include "util/number.h"
#include "cli/confirm.h"
#include "util/escape.h"
#include "group/groupadmin.h"
#include "util/jsonwriter.h"
#include "codec/keys.h"
#include "cli/metrics.h"
#include "codec/partitioner.h"
#include "util/progress.h"
#include "store/prune.h"
#include "group/readers.h"
#include "store/root.h"
#include "cli/table.h"
#include "flow/timespec.h"
#include "codec/timestamp.h"
#include "store/topic.h"
#include "store/topicgroups.h"
#include "store/topicstat.h"

enum { CREATE, LIST, INFO, PARTITION, PRUNE, DELETE };

static const struct tmq_subcmd subs[] = {
	[CREATE] = { .name = "create", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "create the topic NAME (and the root)" },
	[LIST] = { .name = "list", .operands = "",
	    .help = "list the topics of the root" },
	[INFO] = { .name = "info", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "describe a topic: its partitions, files, offsets and "
	    "times" },
	[PARTITION] = { .name = "partition", .operands = "NAME [KEY...]",
	    .min = 1, .max = -1, .missing = "topic name",
	    .help = "print the partition of each KEY (or line of stdin)" },
	[PRUNE] = { .name = "prune", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "remove (or archive) the day files older than a date" },
	[DELETE] = { .name = "delete", .operands = "NAME", .min = 1, .max = 1,
	    .missing = "topic name",
	    .help = "delete a topic and all its messages" },
	{ 0 }
};

struct args {
	const char *root, *before, *archive;
	struct tmq_words types;	/* -t */
	int width;		/* -k, u16 by default as in TwainMQ */
	int dry;
	uint64_t partitions;
	int lng, yes, json, prom, null, with_groups, ends, keep_unread, sub;
	int if_not_exists;	/* create --if-not-exists */
	uint64_t max_message;	/* create --max-message, 0 when not given */
};

/* What the options set. */
static struct args args = { .partitions = 1, .width = 2 };

static int
set_keytype(const char *arg, struct tmq_error *e)
{
	return tmq_keytype_parse(arg, &args.width, e);
}

static int
set_max_message(const char *arg, struct tmq_error *e)
{
	return tmq_parse_size(arg, 1, TMQ_MAX_MESSAGE_LIMIT, &args.max_message,
	    e);
}

/* The order here is the order of the usage lines' options. */
static const struct tmq_option options[] = {
	{ .lng = "key-type", .shrt = 'k', .arg = "TYPE",
	    .kind = TMQ_ARG_KEYTYPE, .help = "u8, u16 (default), u32, u64 or "
	    "charN", .on = TMQ_ON(CREATE), .call = set_keytype },
	{ .lng = "partitions", .shrt = 'p', .arg = "N", .kind = TMQ_ARG_WORD,
	    .help = "number of partitions (default 1)", .on = TMQ_ON(CREATE),
	    .num = &args.partitions, .min = 1, .max = TMQ_MAX_PARTITIONS },
	{ .lng = "types", .shrt = 't', .arg = "A,B,...", .kind = TMQ_ARG_WORD,
	    .help = "names of the typed messages the topic carries",
	    .on = TMQ_ON(CREATE), .words = &args.types },
	{ .lng = "max-message", .arg = "SIZE", .kind = TMQ_ARG_WORD,
	    .help = "take payloads up to SIZE (K, M; at most 256M), those too "
	    "long for a line kept in blob files", .on = TMQ_ON(CREATE),
	    .call = set_max_message },
	{ .lng = "if-not-exists",
	    .help = "a topic of the same definition there already is no error",
	    .on = TMQ_ON(CREATE), .flag = &args.if_not_exists },
	{ .lng = "long", .shrt = 'l',
	    .help = "add key type, partitions, messages and bytes",
	    .on = TMQ_ON(LIST), .flag = &args.lng },
	{ .lng = "json", .help = "print JSON", .on = TMQ_ON(LIST) | TMQ_ON(INFO),
	    .flag = &args.json },
	{ .lng = "ends",
	    .help = "print only the end offsets, as P=OFFSET,... (tmq-get "
	    "--from)", .on = TMQ_ON(INFO), .flag = &args.ends },
	{ .lng = "prometheus",
	    .help = "print Prometheus metrics (node_exporter's textfile format)",
	    .on = TMQ_ON(LIST), .flag = &args.prom },
	{ .lng = "null", .shrt = '0',
	    .help = "keys on stdin end with NUL, not newline",
	    .on = TMQ_ON(PARTITION), .flag = &args.null },
	/* Read when prune runs: a usage error before it is about the
	 * command line as a whole. */
	{ .lng = "before", .arg = "DATE", .kind = TMQ_ARG_TIME, .whole = 1,
	    .help = "day files older than the day of DATE go (a TIME, tmq(7): "
	    "ISO 8601, @SECONDS, 7d ago)", .on = TMQ_ON(PRUNE),
	    .needs = TMQ_ON(PRUNE), .str = &args.before },
	{ .lng = "archive", .arg = "DIR", .kind = TMQ_ARG_DIR,
	    .help = "move the files to the root DIR (DIR/NAME/) instead",
	    .on = TMQ_ON(PRUNE), .str = &args.archive },
	{ .lng = "dry-run", .help = "print what would go, change nothing",
	    .on = TMQ_ON(PRUNE), .flag = &args.dry },
	{ .lng = "keep-unread",
	    .help = "keep the files that hold messages a group of the topic "
	    "has not read", .on = TMQ_ON(PRUNE), .flag = &args.keep_unread },
	{ .lng = "yes", .shrt = 'y', .whole = 1, .help = "do not ask",
	    .on = TMQ_ON(DELETE), .flag = &args.yes },
	{ .lng = "with-groups", .whole = 1,
	    .help = "delete the groups that read the topic too",
	    .on = TMQ_ON(DELETE), .flag = &args.with_groups },
	TMQ_COMMON_OPTIONS(&args.root),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-topic",
	.summary = "Create, list, describe, locate keys in, prune and delete "
	    "the topics of a tmq root.",
	.opts = options,
	.subs = subs,
	.sub = &args.sub,
};

static int
open_root(const struct args *a, int create, int *fd)
{
	struct tmq_error e;

	if (tmq_root_open_opt(a->root, create, fd, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	return 0;
}

static int
do_create(const struct args *a, const char *name)
{
	struct tmq_error e;
	char **types = a->types.v;
	unsigned ntypes = a->types.n, i;
	int fd, rc;

	if (tmq_topic_name_check(name, &e) < 0)
		return tmq_report(&cmd, &e);
	if (open_root(a, 1, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (a->max_message > 0) {
		/* The reserved type of blob references, after the user's. */
		types = malloc((a->types.n + 1) * sizeof *types);
		if (types == NULL) {
			close(fd);
			return tmq_warn(&cmd, "out of memory"), TMQ_EXIT_FAIL;
		}
		if (a->types.n > 0)
			memcpy(types, a->types.v, a->types.n * sizeof *types);
		types[a->types.n] = (char *)TMQ_BLOB_TYPE;
		ntypes = a->types.n + 1;
		for (i = 0; i < a->types.n; i++)
			if (strcmp(a->types.v[i], TMQ_BLOB_TYPE) == 0) {
				free(types);
				close(fd);
				tmq_warn(&cmd, "type '%s' is reserved (for tmq's "
				    "blob references: --max-message)",
				    TMQ_BLOB_TYPE);
				return TMQ_EXIT_FAIL;
			}
	}
	rc = tmq_topic_create_max(fd, name, a->width, (unsigned)a->partitions,
	    types, ntypes, (size_t)a->max_message, &e);
	/* --if-not-exists: the same definition there already is what was
	 * asked for; another is an error that names the difference. */
	if (rc < 0 && e.code == TMQ_ERR_EXISTS && a->if_not_exists) {
		struct tmq_topic t;
		char why[600];

		rc = tmq_topic_open(fd, name, &t, &e);
		if (rc == 0) {
			if (t.max_message != a->max_message)
				rc = tmq_fail(&e, "%s exists with another "
				    "definition: max_message %zu, not %llu",
				    name, t.max_message,
				    (unsigned long long)a->max_message);
			else if (!tmq_topic_same(&t, a->width,
			    (unsigned)a->partitions, types, ntypes, why,
			    sizeof why))
				rc = tmq_fail(&e, "%s exists with another "
				    "definition: %s", name, why);
			tmq_topic_close(&t);
		}
	}
	close(fd);
	if (types != a->types.v)
		free(types);
	return rc < 0 ? tmq_report(&cmd, &e) : TMQ_EXIT_OK;
}

/* Say the partitions that could not be read, and those with holes in
 * their files (counted all the same); how many. */
static unsigned
say_problems(const struct tmq_partstat *ps, unsigned n)
{
	unsigned p, bad = 0;

	for (p = 0; p < n; p++) {
		const char *why = ps[p].problem != NULL ? ps[p].problem :
		    ps[p].damage;

		if (why != NULL) {
			if (bad++ == 0)
				fflush(stdout);
			tmq_warn(&cmd, "%s", why);
		}
	}
	return bad;
}

static int
do_list(const struct args *a)
{
	struct tmq_metrics m;
	struct tmq_table tab;
	struct tmq_error e;
	char **names, kt[16];
	struct tmq_jw w;
	size_t n, i;
	int fd, rc = TMQ_EXIT_OK;

	if (open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_topic_names(fd, 0, &names, &n, &e) < 0) {
		close(fd);
		tmq_root_fail_prefix(a->root, &e);
		return tmq_report(&cmd, &e);
	}
	tmq_metrics_init(&m);
	tmq_jw_init(&w, stdout);
	if (a->json)
		tmq_jw_array(&w);
	/* The long form is a table, printed once its widths are known. */
	tmq_table_init(&tab, "llrrr");
	if (a->lng && !a->json && !a->prom &&
	    tmq_table_add(&tab, &e, "%s\t%s\t%s\t%s\t%s", "TOPIC", "KEY-TYPE",
	    "PARTITIONS", "MESSAGES", "BYTES") < 0) {
		tmq_names_free(names, n);
		tmq_metrics_free(&m);
		close(fd);
		return tmq_report(&cmd, &e);
	}
	for (i = 0; i < n; i++) {
		struct tmq_topic t;
		struct tmq_partstat *ps;
		uint64_t msgs, bytes;

		if (!a->lng && !a->json && !a->prom) {
			/* A name that is no name (a co-user's file named with
			 * escapes or a newline) is said, escaped, not listed. */
			if (tmq_topic_name_check(names[i], &e) < 0) {
				tmq_report(&cmd, &e);
				rc = TMQ_EXIT_FAIL;
			} else
				puts(names[i]);
			continue;
		}
		if (tmq_topic_open(fd, names[i], &t, &e) < 0 ||
		    tmq_topic_stat_each(&t, &ps, &e) < 0) {
			tmq_report(&cmd, &e);
			if (t.name)
				tmq_topic_close(&t);
			/* With --prometheus, said in the metrics too; the
			 * scrape goes on, and is no failure of the command. */
			if (!a->prom)
				rc = TMQ_EXIT_FAIL;
			else if (tmq_metrics_add_error(&m, NULL, names[i], 1,
			    &e) < 0) {
				tmq_report(&cmd, &e);
				rc = TMQ_EXIT_FAIL;
			}
			continue;
		}
		tmq_topic_stat_sum(ps, t.partitions, &msgs, &bytes);
		tmq_keytype_name(t.key_width, kt, sizeof kt);
		if (a->prom) {
			int failed = 0;
			unsigned p;

			if (tmq_metrics_add_topic(&m, &t, ps, &e) < 0) {
				tmq_report(&cmd, &e);
				failed = 1;
			}
			/* (Damage is said below; its figures stand.) */
			for (p = 0; p < t.partitions; p++)
				if (ps[p].problem != NULL)
					failed = 1;
			if (tmq_metrics_add_error(&m, NULL, t.name, failed,
			    &e) < 0) {
				tmq_report(&cmd, &e);
				rc = TMQ_EXIT_FAIL;
			}
		} else if (a->json) {
			tmq_jw_object(&w);
			tmq_jw_key(&w, "name");
			tmq_jw_str(&w, t.name);
			tmq_jw_key(&w, "key_type");
			tmq_jw_str(&w, kt);
			tmq_jw_key(&w, "partitions");
			tmq_jw_u64(&w, t.partitions);
			tmq_jw_key(&w, "messages");
			tmq_jw_u64(&w, msgs);
			tmq_jw_key(&w, "bytes");
			tmq_jw_u64(&w, bytes);
			tmq_jw_end(&w);
		} else if (tmq_table_add(&tab, &e, "%s\t%s\t%u\t%llu\t%llu", t.name,
		    kt, t.partitions, (unsigned long long)msgs,
		    (unsigned long long)bytes) < 0) {
			tmq_report(&cmd, &e);
			rc = TMQ_EXIT_FAIL;
		}
		/* The other partitions were counted; this one is said (with
		 * --prometheus, in the metrics too). */
		if (say_problems(ps, t.partitions) > 0 && !a->prom)
			rc = TMQ_EXIT_FAIL;
		tmq_topic_stat_free(ps, t.partitions);
		tmq_topic_close(&t);
	}
	if (a->json) {
		tmq_jw_end(&w);
		putchar('\n');
	} else if (a->lng && tab.nrows > 1)
		tmq_table_print(&tab, stdout);
	tmq_table_free(&tab);
	if (a->prom && tmq_metrics_add_scrape(&m, "topics", &e) < 0) {
		tmq_report(&cmd, &e);
		rc = TMQ_EXIT_FAIL;
	}
	tmq_metrics_print(&m, stdout);
	tmq_metrics_free(&m);
	tmq_names_free(names, n);
	close(fd);
	return rc;
}

static void
info_text(const struct tmq_topic *t, const struct tmq_partstat *ps)
{
	char kt[16], t1[40], t2[40];
	uint64_t msgs, bytes;
	unsigned p, i, shown = 0;
	size_t k;

	tmq_topic_stat_sum(ps, t->partitions, &msgs, &bytes);
	printf("topic:      %s\n", t->name);
	printf("key type:   %s\n", tmq_keytype_name(t->key_width, kt, sizeof kt));
	printf("partitions: %u\n", t->partitions);
	printf("types:      ");
	for (i = 0; i < t->ntypes; i++)
		if (t->types[i]) {
			fputs(shown++ ? "," : "", stdout);
			tmq_escape_terminal(stdout,
			    (const unsigned char *)t->types[i],
			    strlen(t->types[i]));
		}
	printf("%s\n", shown ? "" : "-");
	printf("messages:   %llu\nbytes:      %llu\n\n",
	    (unsigned long long)msgs, (unsigned long long)bytes);
	printf("%-9s %-28s %12s %12s %12s  %-24s  %s\n", "PARTITION", "FILE",
	    "FIRST", "END", "BYTES", "FIRST-TIME", "LAST-TIME");
	for (p = 0; p < t->partitions; p++) {
		if (ps[p].nfiles == 0)
			printf("%-9u %-28s %12s %12s %12s  %-24s  %s\n", p, "-",
			    "-", "-", "-", "-", "-");
		for (k = 0; k < ps[p].nfiles; k++) {
			const struct tmq_filestat *f = &ps[p].files[k];

			strcpy(t1, "-");
			strcpy(t2, "-");
			if (f->has_first_ts)
				tmq_ts_iso(f->first_ts, t1, sizeof t1);
			if (f->has_last_ts)
				tmq_ts_iso(f->last_ts, t2, sizeof t2);
			printf("%-9u %-28s %12llu %12llu %12llu  %-24s  %s\n", p,
			    f->pf.name, (unsigned long long)f->pf.first,
			    (unsigned long long)f->end,
			    (unsigned long long)f->bytes, t1, t2);
		}
	}
}

static void
info_json(const struct tmq_topic *t, const struct tmq_partstat *ps)
{
	struct tmq_jw w;
	char kt[16], num[40];
	unsigned p, i;
	size_t k;

	tmq_jw_init(&w, stdout);
	tmq_jw_object(&w);
	tmq_jw_key(&w, "name");
	tmq_jw_str(&w, t->name);
	tmq_jw_key(&w, "key_type");
	tmq_jw_str(&w, tmq_keytype_name(t->key_width, kt, sizeof kt));
	tmq_jw_key(&w, "key_width");
	tmq_jw_i64(&w, t->key_width);
	tmq_jw_key(&w, "partitions");
	tmq_jw_array(&w);
	for (p = 0; p < t->partitions; p++) {
		tmq_jw_object(&w);
		tmq_jw_key(&w, "partition");
		tmq_jw_u64(&w, p);
		tmq_jw_key(&w, "first");
		tmq_jw_u64(&w, ps[p].first);
		tmq_jw_key(&w, "end");
		tmq_jw_u64(&w, ps[p].end);
		tmq_jw_key(&w, "bytes");
		tmq_jw_u64(&w, ps[p].bytes);
		tmq_jw_key(&w, "files");
		tmq_jw_array(&w);
		for (k = 0; k < ps[p].nfiles; k++) {
			const struct tmq_filestat *f = &ps[p].files[k];

			tmq_jw_object(&w);
			tmq_jw_key(&w, "name");
			tmq_jw_str(&w, f->pf.name);
			tmq_jw_key(&w, "first");
			tmq_jw_u64(&w, f->pf.first);
			tmq_jw_key(&w, "end");
			tmq_jw_u64(&w, f->end);
			tmq_jw_key(&w, "bytes");
			tmq_jw_u64(&w, f->bytes);
			tmq_jw_key(&w, "first_timestamp");
			if (f->has_first_ts) {
				tmq_ts_repr(f->first_ts, num, sizeof num);
				tmq_jw_number(&w, num);
			} else
				tmq_jw_null(&w);
			tmq_jw_key(&w, "last_timestamp");
			if (f->has_last_ts) {
				tmq_ts_repr(f->last_ts, num, sizeof num);
				tmq_jw_number(&w, num);
			} else
				tmq_jw_null(&w);
			tmq_jw_end(&w);
		}
		tmq_jw_end(&w);
		tmq_jw_end(&w);
	}
	tmq_jw_end(&w);
	tmq_jw_key(&w, "types");
	tmq_jw_array(&w);
	for (i = 0; i < t->ntypes; i++)
		if (t->types[i])
			tmq_jw_str(&w, t->types[i]);
	tmq_jw_end(&w);
	tmq_jw_end(&w);
	putchar('\n');
}

/* --ends: "0=1200,1=1180,...", every partition, for tmq-get --from.  An
 * end that cannot be known prints nothing: a wrong one would make a copy
 * resume in the wrong place. */
static int
info_ends(struct tmq_topic *t)
{
	struct tmq_partstat *ps;
	struct tmq_error e;
	unsigned p;

	if (tmq_topic_stat(t, &ps, &e) < 0) {
		tmq_topic_close(t);
		return tmq_report(&cmd, &e);
	}
	for (p = 0; p < t->partitions; p++)
		printf("%s%u=%llu", p ? "," : "", p,
		    (unsigned long long)ps[p].end);
	putchar('\n');
	tmq_topic_stat_free(ps, t->partitions);
	tmq_topic_close(t);
	return TMQ_EXIT_OK;
}

static int
do_info(const struct args *a, const char *name)
{
	struct tmq_error e;
	struct tmq_topic t;
	struct tmq_partstat *ps;
	int fd, rc;

	if (open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_topic_open(fd, name, &t, &e) < 0) {
		close(fd);
		return tmq_report(&cmd, &e);
	}
	close(fd);
	if (a->ends)
		return info_ends(&t);
	if (tmq_topic_stat_each(&t, &ps, &e) < 0) {
		tmq_topic_close(&t);
		return tmq_report(&cmd, &e);
	}
	if (a->json)
		info_json(&t, ps);
	else
		info_text(&t, ps);
	rc = say_problems(ps, t.partitions) > 0 ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
	tmq_topic_stat_free(ps, t.partitions);
	tmq_topic_close(&t);
	return rc;
}

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
		fflush(stdout);
		if (recno)
			tmq_warn(&cmd, "%s: %s %lu: %s", t->name, what, recno,
			    e.msg);
		else
			tmq_warn(&cmd, "%s: %s", t->name, e.msg);
		puts("-");
		return -1;
	}
	printf("%u\n", tmq_partition_of(t->key_width, kb, t->partitions));
	return 0;
}

static int
do_partition(const struct args *a, const char *name, int nkeys, char **keys)
{
	struct tmq_error e;
	struct tmq_topic t;
	int fd, i, rc = TMQ_EXIT_OK;

	if (open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	if (tmq_topic_open(fd, name, &t, &e) < 0) {
		close(fd);
		return tmq_report(&cmd, &e);
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
			tmq_warn(&cmd, "standard input: %s", e.msg);
			rc = TMQ_EXIT_FAIL;
		}
		free(line);
	}
	tmq_topic_close(&t);
	return rc;
}

struct prune_report {
	const char *topic;
	int dry, keep_unread;
	unsigned long n;
	struct tmq_readers rs;	/* the groups that read the topic */
	int have_rs;
};

static void
print_notice(void *arg, const char *msg)
{
	(void)arg;
	tmq_warn(&cmd, "%s", msg);
}

/* Before a file goes: with --keep-unread, keep it when a group of the
 * topic has not read all of it, and say which. */
static int
keep_unread(void *arg, const struct tmq_pfile *pf, uint64_t end)
{
	struct prune_report *r = arg;
	size_t n, i;

	if (!r->have_rs || (n = tmq_readers_hold(&r->rs, pf, end)) == 0 ||
	    !r->keep_unread)
		return 0;
	fflush(stdout);
	tmq_progress_done();
	fprintf(stderr, "%s: %s: %s %s: unread by group%s ", cmd.name,
	    r->topic, r->dry ? "would keep" : "kept", pf->name,
	    n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s (from offset %llu)", i ? ", " : "",
		    r->rs.r[r->rs.holders[i].reader].name,
		    (unsigned long long)r->rs.holders[i].from);
	fputc('\n', stderr);
	return 1;
}

static void
pruned(void *arg, const struct tmq_pfile *pf)
{
	struct prune_report *r = arg;

	r->n++;
	if (r->have_rs)
		tmq_readers_gone(&r->rs);
	if (r->dry)
		printf("%s\n", pf->name);
	else
		tmq_progress("pruned %lu files", r->n);
}

/* What each group lost (or would lose) that it had not read. */
static void
say_losses(const struct prune_report *r)
{
	size_t i;

	fflush(stdout);
	for (i = 0; i < r->rs.n; i++)
		if (r->rs.r[i].lost > 0)
			tmq_warn(&cmd, "%s: group %s %s %llu unread message%s "
			    "(--keep-unread keeps them)", r->topic,
			    r->rs.r[i].name, r->dry ? "would lose" : "lost",
			    (unsigned long long)r->rs.r[i].lost,
			    r->rs.r[i].lost == 1 ? "" : "s");
}

/* --before: a time (tmq(7) TIMES); whole days go, so its UTC day. */
static int
before_day(const char *s, unsigned *day, struct tmq_error *e)
{
	double t;

	if (tmq_timespec_parse(s, tmq_now(), &t, e) < 0)
		return -1;
	*day = tmq_utc_day(t);
	return 0;
}

static int
do_prune(const struct args *a, const char *name)
{
	struct prune_report r;
	struct tmq_prune_opts po = { 0 };
	struct tmq_error e;
	struct tmq_topic t;
	size_t i;
	int fd, rc;

	memset(&r, 0, sizeof r);
	r.topic = name;
	r.dry = a->dry;
	r.keep_unread = a->keep_unread;
	if (before_day(a->before, &po.before_day, &e) < 0)
		return tmq_usage_error(&cmd, "--before: %s", e.msg);
	if (open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	rc = tmq_topic_open(fd, name, &t, &e);
	if (rc < 0) {
		close(fd);
		return tmq_report(&cmd, &e);
	}
	/* The groups that read the topic, and how far: without them prune
	 * still prunes, as it always has, only without saying what groups
	 * lose; --keep-unread cannot keep what it cannot know. */
	if (tmq_readers_load(fd, &t, &r.rs, print_notice, NULL, &e) == 0)
		r.have_rs = 1;
	else if (a->keep_unread) {
		tmq_warn(&cmd, "%s: nothing pruned: %s", name, e.msg);
		close(fd);
		tmq_topic_close(&t);
		return TMQ_EXIT_FAIL;
	} else
		tmq_warn(&cmd, "%s: what groups lose is not known: %s", name,
		    e.msg);
	close(fd);
	for (i = 0; a->keep_unread && i < r.rs.nunknown; i++)
		tmq_warn(&cmd, "%s: group %s: its topic is not recorded (the "
		    "TwainMQ library made it): not counted", name,
		    r.rs.unknown[i]);
	po.archive = a->archive;
	po.dry_run = a->dry;
	po.keep = keep_unread;
	po.each = pruned;
	po.arg = &r;
	rc = tmq_prune(&t, &po, &e);
	tmq_progress_done();
	if (r.have_rs)
		say_losses(&r);
	tmq_readers_free(&r.rs);
	tmq_topic_close(&t);
	return rc < 0 ? tmq_report(&cmd, &e) : TMQ_EXIT_OK;
}

/* "G, H" into buf, cut short with "..." when it is long. */
static const char *
names_text(char **v, size_t n, char *buf, size_t sz)
{
	size_t len = 0, i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int w = snprintf(buf + len, sz - len, "%s%s", i ? ", " : "",
		    v[i]);

		if (w < 0 || (size_t)w >= sz - len) {
			strcpy(buf + (sz > 4 ? sz - 4 : 0), "...");
			break;
		}
		len += (size_t)w;
	}
	return buf;
}

/* Delete the groups that read the deleted topic: their offsets point
 * into messages that are gone. */
static int
delete_groups(int fd, char **groups, size_t n)
{
	struct tmq_error e;
	size_t i;
	int rc = TMQ_EXIT_OK;

	for (i = 0; i < n; i++)
		if (tmq_group_delete(fd, groups[i], &e) != 0)
			rc = tmq_report(&cmd, &e);
	return rc;
}

static int
do_delete(const struct args *a, const char *name)
{
	struct tmq_error e;
	struct tmq_topic t;
	char q[600], list[300], **groups = NULL;
	size_t ngroups = 0;
	int fd, ok, rc;

	if (tmq_topic_name_check(name, &e) < 0)
		return tmq_report(&cmd, &e);
	if (open_root(a, 0, &fd) < 0)
		return TMQ_EXIT_FAIL;
	/* What is left of a topic goes like a topic: a definition the TwainMQ
	 * library's delete_topic left, or what a killed create or delete
	 * left. */
	if (tmq_topic_open(fd, name, &t, &e) == 0)
		tmq_topic_close(&t);
	else if (!tmq_topic_partial(fd, name)) {
		close(fd);
		return tmq_report(&cmd, &e);
	}
	if (tmq_topic_groups(fd, name, &groups, &ngroups, &e) < 0) {
		close(fd);
		return tmq_report(&cmd, &e);
	}
	names_text(groups, ngroups, list, sizeof list);
	if (a->with_groups && ngroups > 0)
		snprintf(q, sizeof q, "delete topic '%s' and all its messages, "
		    "and the group%s that read%s it (%s)?", name,
		    ngroups == 1 ? "" : "s", ngroups == 1 ? "s" : "", list);
	else
		snprintf(q, sizeof q, "delete topic '%s' and all its messages?",
		    name);
	ok = tmq_confirm(q, a->yes, &e);
	if (ok <= 0) {
		rc = ok < 0 ? tmq_report(&cmd, &e) : TMQ_EXIT_FAIL;
		if (ok == 0)
			tmq_warn(&cmd, "%s: not deleted", name);
		goto out;
	}
	switch (tmq_topic_delete(fd, name, &e)) {
	case -1:
		rc = tmq_report(&cmd, &e);
		goto out;
	case 1:		/* deleted, with something left: said, then on */
		rc = tmq_report(&cmd, &e);
		break;
	default:
		rc = TMQ_EXIT_OK;
	}
	if (ngroups == 0)
		goto out;
	/* --yes answers the question asked, about the topic: the groups go
	 * only with --with-groups, or when the user says so here. */
	if (!a->with_groups && !a->yes) {
		snprintf(q, sizeof q, "delete the group%s that read%s it too "
		    "(%s)?", ngroups == 1 ? "" : "s", ngroups == 1 ? "s" : "",
		    list);
		ok = tmq_confirm(q, 0, &e);
	} else
		ok = a->with_groups;
	if (ok > 0) {
		if (delete_groups(fd, groups, ngroups) != TMQ_EXIT_OK)
			rc = TMQ_EXIT_FAIL;
	} else
		tmq_warn(&cmd, "%s: kept the group%s that read%s it: %s "
		    "(--with-groups deletes them too)", name,
		    ngroups == 1 ? "" : "s", ngroups == 1 ? "s" : "", list);
out:
	tmq_names_free(groups, ngroups);
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	int rc;

	tmq_start(&cmd);
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0)
		goto out;
	if (args.ends && args.json) {
		rc = tmq_usage_error(&cmd, "--ends and --json exclude each "
		    "other");
		goto out;
	}
	if (args.prom && (args.json || args.lng)) {
		rc = tmq_usage_error(&cmd, "--prometheus and %s exclude each "
		    "other", args.json ? "--json" : "-l");
		goto out;
	}
	switch (args.sub) {
	case CREATE: rc = do_create(&args, argv[optind]); break;
	case LIST: rc = do_list(&args); break;
	case INFO: rc = do_info(&args, argv[optind]); break;
	case PARTITION:
		rc = do_partition(&args, argv[optind], argc - optind - 1,
		    argv + optind + 1);
		break;
	case PRUNE: rc = do_prune(&args, argv[optind]); break;
	default: rc = do_delete(&args, argv[optind]); break;
	}
out:
	free(args.types.v);
	return rc;
}
