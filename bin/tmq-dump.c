/* tmq-dump: decode and verify partition files, for debugging. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/blob.h"
#include "cli/cli.h"
#include "store/dotdir.h"
#include "util/escape.h"
#include "util/grow.h"
#include "store/linereader.h"
#include "codec/message.h"
#include "codec/names.h"
#include "store/partindex.h"
#include "flow/printer.h"
#include "util/progress.h"
#include "store/root.h"
#include "codec/timestamp.h"
#include "store/topic.h"

struct dump {
	int json, verify, repair;
	struct tmq_codec codec;
	unsigned long files, lines, corrupt, indexes, wrong;
	unsigned char *blob;		/* the last blob read (blob.h) */
	size_t blob_cap;
	/* --verify of a whole topic: the hashes its lines refer to, to find
	 * the blobs none does (orphans) */
	char (*refs)[TMQ_BLOB_HASH_HEX + 1];
	size_t nrefs, refs_cap;
	int refs_lost;			/* out of memory: no orphan said */
	unsigned long orphans, removed;
	int unrepaired;			/* --repair: an orphan kept by an error */
	const struct tmq_topic *topic;	/* the one being verified */
};

/* A blob a put left without its line (killed between the two), older than
 * a put takes: said, not corrupt. */
#define ORPHAN_AGE 60

/* What the options set, and the counts of the run. */
static struct dump run;
static const char *rootopt;

static const struct tmq_option options[] = {
	{ .lng = "json", .shrt = 'J', .help = "one JSON object a message",
	    .flag = &run.json },
	{ .lng = "verify", .shrt = 'v',
	    .help = "read everything, print only problems and a summary",
	    .flag = &run.verify },
	{ .lng = "repair",
	    .help = "with --verify: remove the blobs no line refers to, last "
	    "written over 2 days ago",
	    .flag = &run.repair },
	TMQ_COMMON_OPTIONS(&rootopt),
	{ 0 }
};

static const struct tmq_cmd cmd = {
	.name = "tmq-dump",
	.usage = "[-J | --verify [--repair]] [TOPIC | FILE]...",
	.summary = "Decode partition files line by line (every topic and "
	    "group of the root when no operand is given).",
	.operands = "topic grouplog file",
	.opts = options,
};

/* Decode and show one line; returns 0, or 1 when it is corrupt. */
static int
dump_line(struct dump *d, const struct tmq_topic *t, unsigned p,
    const char *file, const struct tmq_line *l, uint64_t lineno)
{
	struct tmq_error e;
	struct tmq_msg m;
	char buf[48], key[TMQ_KEY_MAX_BYTES];
	const char *why = l->problem, *ty;
	size_t n;

	m.offset = l->offset;
	m.partition = p;
	if (why == NULL && tmq_line_decode(&d->codec, t->key_width, t->ntypes,
	    l->p, l->n, &m, &e) < 0)
		why = e.msg;
	/* A blob reference: its payload, checked (--verify too). */
	if (why == NULL && d->verify && tmq_blob_is_ref(t, &m.payload)) {
		struct tmq_blobref br;

		if (tmq_blob_ref_parse(m.payload.data, m.payload.len, &br,
		    &e) == 0) {
			if (tmq_grow(&d->refs, &d->refs_cap, d->nrefs + 1,
			    sizeof *d->refs) < 0)
				d->refs_lost = 1;
			else
				memcpy(d->refs[d->nrefs++], br.hash,
				    sizeof *d->refs);
		}
	}
	if (why == NULL && tmq_blob_resolve(t, &m.payload, &d->blob,
	    &d->blob_cap, &e) < 0)
		why = e.msg;
	d->lines++;
	if (d->verify && (d->lines & 4095) == 0)
		tmq_progress("%lu files, %lu lines, %lu corrupt", d->files,
		    d->lines, d->corrupt);
	if (why != NULL) {
		d->corrupt++;
		tmq_flush_stdout();
		tmq_progress_done();
		fprintf(stderr, "%s: %s/%s:%llu: partition %u offset %llu: "
		    "%s\n", cmd.name, t->name, file, (unsigned long long)lineno,
		    p, (unsigned long long)l->offset, why);
		return 1;
	}
	if (d->verify)
		return 0;
	if (d->json) {
		tmq_print_json(stdout, t, &m);
		putchar('\n');
		return 0;
	}
	printf("%s/%s:%llu partition=%u offset=%llu key=", t->name, file,
	    (unsigned long long)lineno, p, (unsigned long long)l->offset);
	n = tmq_key_format(t->key_width, m.key, key);
	tmq_escape_word(stdout, (const unsigned char *)key, n);
	tmq_ts_iso(m.ts, buf, sizeof buf);
	printf(" time=%s type=", buf);
	ty = tmq_type_name(t, &m);
	tmq_escape_word(stdout, (const unsigned char *)ty, strlen(ty));
	printf(" size=%zu/%zu payload=", l->n + 1, m.payload.len);
	tmq_escape_terminal(stdout, m.payload.data, m.payload.len);
	putchar('\n');
	return 0;
}

/* An orphan: said, and with --repair removed (1) once it is older than
 * a put stopped between its blob and its line could be (blob.h). */
static int
say_orphan(void *arg, const char *hash, double mtime)
{
	struct dump *d = arg;

	d->orphans++;
	tmq_flush_stdout();
	tmq_progress_done();
	if (d->repair && mtime < tmq_now() - TMQ_BLOB_MARGIN)
		return 1;
	if (d->repair)
		tmq_warn(&cmd, "%s/%s/%s%s: no line refers to it; kept, last "
		    "written less than 2 days ago (a put stopped before its "
		    "line may yet write it)", d->topic->name, TMQ_DOT_DIR,
		    TMQ_DOT_BLOB, hash);
	else
		tmq_warn(&cmd, "%s/%s/%s%s: no line refers to it (a put "
		    "killed before its line left it; tmq-dump --verify "
		    "--repair and tmq-topic prune remove it)", d->topic->name,
		    TMQ_DOT_DIR, TMQ_DOT_BLOB, hash);
	return 0;
}

static void
say_removed(void *arg, const char *hash, int err)
{
	struct dump *d = arg;

	if (err == 0 || err == ENOENT) {
		d->removed += err == 0;
		tmq_warn(&cmd, "%s/%s/%s%s: no line refers to it: %s",
		    d->topic->name, TMQ_DOT_DIR, TMQ_DOT_BLOB, hash, err == 0 ?
		    "removed" : "gone already");
		return;
	}
	d->unrepaired = 1;
	tmq_warn(&cmd, "%s/%s/%s%s: no line refers to it; not removed: %s",
	    d->topic->name, TMQ_DOT_DIR, TMQ_DOT_BLOB, hash, strerror(err));
}

/* "TOPIC: what went wrong" on stderr; returns -1. */
static int
report_topic(const struct tmq_topic *t, struct tmq_error *e)
{
	tmq_fail_prefix(e, "%s", t->name);
	tmq_report(&cmd, e);
	return -1;
}

/* The index of a file checked (--verify): say when it was wrong; 1 then,
 * else 0. */
static int
check_end(struct dump *d, const struct tmq_topic *t, struct tmq_pidx_check *c)
{
	char name[80];
	int wrong;

	d->indexes++;
	tmq_pidx_name(c->x.pf.name, name, sizeof name);
	wrong = tmq_pidx_check_end(c);
	if (wrong == 0)
		return 0;
	d->wrong++;
	tmq_flush_stdout();
	tmq_progress_done();
	fprintf(stderr, "%s: %s/" TMQ_DOT_DIR "/%s: wrong index: %s (%s)\n",
	    cmd.name, t->name, name, c->wrong, wrong == 1 ? "made again" :
	    "left as it is: .tmq cannot be written");
	return 1;
}

/* Dump partition p of t; only the file named only_file when set. */
static int
dump_partition(struct dump *d, const struct tmq_topic *t,
    struct tmq_dirlist *dl, unsigned p, const char *only_file)
{
	struct tmq_linereader r;
	struct tmq_line l;
	struct tmq_error e;
	struct tmq_pfile cur;
	struct tmq_pidx_check chk;
	int rc = 0, got, checking;

	if (tmq_lr_open_shared(&r, dl, t, p, t->key_width, &e) < 0)
		return report_topic(t, &e);
	/* Every file counts, an empty one too, as tmq-topic info counts
	 * them. */
	d->files += only_file != NULL ? 1 : r.nfiles;
	checking = 0;
	if (only_file != NULL) {
		struct tmq_pfile pf;

		tmq_pfile_parse(only_file, &pf);
		if (tmq_lr_seek(&r, pf.first, NULL, &e) < 0) {
			tmq_lr_close(&r);
			return report_topic(t, &e);
		}
	}
	cur.name[0] = '\0';
	for (;;) {
		const struct tmq_pfile *f;

		got = tmq_lr_next(&r, &l, &e);
		/* At the end, a last line without its newline is reported
		 * once it is seen to stay so (a crash cut it). */
		if (got == 0)
			got = tmq_lr_cut_tail(&r, &l, &e);
		if (got == 2)
			continue;
		if (got <= 0)
			break;
		f = &r.files[r.cur];
		if (strcmp(cur.name, f->name) != 0) {
			if (only_file != NULL && cur.name[0] != '\0')
				break;
			if (checking)
				rc |= check_end(d, t, &chk);
			cur = *f;
			/* --verify checks the file's index as it reads it. */
			checking = d->verify && tmq_pidx_check_begin(&chk, t->dirfd,
			    t->name, f, t->key_width, r.fd, r.how);
		}
		if (only_file != NULL && strcmp(f->name, only_file) != 0)
			break;
		if (checking) {
			double ts;
			int has = tmq_line_ts(t->key_width, l.p, l.n, &ts) == 0;

			tmq_pidx_check_line(&chk, l.pos, l.n, l.problem != NULL,
			    has, ts);
		}
		rc |= dump_line(d, t, p, cur.name, &l, l.offset - cur.first + 1);
		/* A write that failed ends the dump at once, as cat's does
		 * (said at exit, closing standard output). */
		if (ferror(stdout)) {
			rc = -1;
			break;
		}
	}
	if (checking)
		rc |= check_end(d, t, &chk);
	if (got < 0)
		rc = report_topic(t, &e);
	tmq_lr_close(&r);
	return rc;
}

static int
dump_topic(struct dump *d, int rootfd, const char *name, const char *file)
{
	struct tmq_error e;
	struct tmq_topic t;
	struct tmq_dirlist dl;
	unsigned p;
	int rc = 0, r;

	if (tmq_topic_open(rootfd, name, &t, &e) < 0)
		return tmq_report(&cmd, &e), -1;
	/* One listing of the directory for all the partitions. */
	tmq_dirlist_init(&dl, t.dirfd);
	if (file != NULL) {
		struct tmq_pfile pf;

		if (tmq_pfile_parse(file, &pf) < 0 || pf.partition >= t.partitions) {
			tmq_warn(&cmd, "%s/%s: not a partition file of the topic",
			    name, file);
			tmq_topic_close(&t);
			return -1;
		}
		rc = dump_partition(d, &t, &dl, pf.partition, file);
	} else {
		d->nrefs = 0;
		d->refs_lost = 0;
		for (p = 0; p < t.partitions && !ferror(stdout); p++) {
			r = dump_partition(d, &t, &dl, p, NULL);
			if (r < 0 || rc < 0)
				rc = -1;
			else
				rc |= r;
		}
		/* The whole topic read: the blobs none of its lines refers
		 * to, older than a put under way takes. */
		if (d->verify && rc >= 0 && !d->refs_lost) {
			d->topic = &t;
			d->unrepaired = 0;
			if (tmq_blob_orphans(&t, d->refs, d->nrefs,
			    tmq_now() - ORPHAN_AGE, say_orphan, say_removed, d,
			    &e) < 0)
				rc = report_topic(&t, &e);
			else if (d->unrepaired)
				rc = -1;
		}
	}
	tmq_dirlist_free(&dl);
	tmq_topic_close(&t);
	return rc;
}

/* Drop a path's trailing slashes and "/." components, in place (not
 * below "/"). */
static void
trim_dir(char *p)
{
	size_t n = strlen(p);

	for (;;) {
		while (n > 1 && p[n - 1] == '/')
			p[--n] = '\0';
		if (n >= 2 && p[n - 1] == '.' && p[n - 2] == '/')
			p[--n] = '\0';
		else
			break;
	}
}

/* The root (resolved) and topic name of the topic directory dir, which
 * is not resolved: ROOT/TOPIC names TOPIC in ROOT even when it is a link,
 * which the topic's open then refuses, as for the operand TOPIC.  Only a
 * directory named "." or ".." (the working directory's own, never a link)
 * is resolved.  Returns 0, or -1 with errno set. */
static int
split_topic(const char *dir, char **root, char **topic)
{
	char *d, *slash, *r;
	const char *last;

	*root = *topic = NULL;
	if ((d = strdup(dir)) == NULL)
		return -1;
	trim_dir(d);
	slash = strrchr(d, '/');
	last = slash != NULL ? slash + 1 : d;
	if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0 ||
	    strcmp(d, "/") == 0) {
		/* The working directory, or one above it: what it is. */
		if ((r = realpath(d, NULL)) == NULL)
			goto fail;
		free(d);
		d = r;
		slash = strrchr(d, '/');
		last = slash + 1;
	}
	if ((*topic = strdup(last)) == NULL)
		goto fail;
	if (slash == NULL)
		*root = realpath(".", NULL);
	else if (slash == d)
		*root = strdup("/");
	else {
		*slash = '\0';
		*root = realpath(d, NULL);
	}
	if (*root == NULL)
		goto fail;
	free(d);
	return 0;
fail:
	free(d);
	free(*topic);
	*topic = NULL;
	return -1;
}

/* An operand is a file when it names an existing regular file. */
static int
dump_operand(struct dump *d, int rootfd, const char *arg)
{
	struct tmq_pfile pf;
	struct stat st;
	char *c1, *dir, *topic, *root;
	int fd, rc;
	struct tmq_error e;

	if (strchr(arg, '/') == NULL)
		return dump_topic(d, rootfd, arg, NULL);
	if (stat(arg, &st) < 0) {
		tmq_warn(&cmd, "%s: %s", arg, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		tmq_warn(&cmd, "%s: not a partition file or topic directory", arg);
		return -1;
	}
	/* ROOT/TOPIC, its root resolved, so that "./FILE" names its topic
	 * too; a directory operand is a topic directory, ROOT/TOPIC itself.
	 * The topic directory itself is never resolved: a link there is
	 * refused when the topic is opened, never followed to another root. */
	c1 = strdup(arg);
	dir = c1 != NULL ? (S_ISDIR(st.st_mode) ? c1 : dirname(c1)) : NULL;
	if (dir == NULL || split_topic(dir, &root, &topic) < 0) {
		tmq_warn(&cmd, "%s: %s", arg, strerror(errno));
		free(c1);
		return -1;
	}
	rc = -1;
	if (!S_ISDIR(st.st_mode) &&
	    tmq_pfile_parse(strrchr(arg, '/') + 1, &pf) < 0)
		tmq_warn(&cmd, "%s: not a partition file (named "
		    "PARTITION-YYYYMMDD_OFFSET.tmf)", arg);
	else if (tmq_root_open(root, 0, &fd, &e) < 0)
		tmq_report(&cmd, &e);
	else if (tmq_topic_exists(fd, topic) <= 0) {
		/* Say what the operand is not, rather than "no such topic"
		 * about a directory name the user never gave. */
		tmq_warn(&cmd, "%s: not %s of a tmq root (no %s/%s.twc)", arg,
		    S_ISDIR(st.st_mode) ? "a topic directory" :
		    "in a topic directory", strcmp(root, "/") == 0 ? "" : root,
		    topic);
		close(fd);
	} else {
		char *base = strrchr(arg, '/') + 1;

		rc = dump_topic(d, fd, topic, S_ISDIR(st.st_mode) ? NULL : base);
		close(fd);
	}
	free(c1);
	free(root);
	free(topic);
	return rc;
}

int
main(int argc, char **argv)
{
	struct tmq_error e;
	char *path, **names;
	size_t n, i;
	int fd, rc = 0, bad = 0;

	tmq_start(&cmd);
	if ((rc = tmq_options(&cmd, argc, argv)) >= 0)
		return rc;
	rc = 0;
	if (run.json && run.verify)
		return tmq_usage_error(&cmd, "-J and --verify do not go together");
	if (run.repair && !run.verify)
		return tmq_usage_error(&cmd, "--repair needs --verify");
	/* (each wrong index is said as a result of the check) */
	if (run.verify)
		tmq_pidx_quiet(1);
	if (tmq_root_path(rootopt, &path, &e) < 0)
		return tmq_report(&cmd, &e);
	fd = -1;
	if (tmq_root_open(path, 0, &fd, &e) < 0 && optind == argc) {
		free(path);
		return tmq_report(&cmd, &e);
	}
	/* After the early returns above, which would leak it. */
	if (tmq_codec_init(&run.codec, &e) < 0) {
		free(path);
		return tmq_report(&cmd, &e);
	}
	if (optind == argc) {
		if (tmq_topic_names(fd, 2, &names, &n, &e) < 0) {
			tmq_fail_prefix(&e, "%s", path);
			free(path);
			return tmq_report(&cmd, &e);
		}
		for (i = 0; i < n && !ferror(stdout); i++) {
			rc = dump_topic(&run, fd, names[i], NULL);
			if (rc < 0)
				bad = 1;
			else if (rc > 0)
				bad |= 2;
		}
		tmq_names_free(names, n);
	} else
		for (; optind < argc && !ferror(stdout); optind++) {
			if (fd < 0 && strchr(argv[optind], '/') == NULL) {
				tmq_report(&cmd, &e);
				bad = 1;
				continue;
			}
			rc = dump_operand(&run, fd, argv[optind]);
			if (rc < 0)
				bad = 1;
			else if (rc > 0)
				bad |= 2;
		}
	if (run.verify) {
		tmq_progress_done();
		printf("%lu files, %lu lines, %lu corrupt", run.files,
		    run.lines, run.corrupt);
		/* (only when one was wrong: the summary is as it was for a
		 * root whose indexes are right) */
		if (run.wrong > 0)
			printf(", %lu index%s, %lu wrong", run.indexes,
			    run.indexes == 1 ? "" : "es", run.wrong);
		if (run.orphans > 0)
			printf(", %lu orphan blob%s", run.orphans,
			    run.orphans == 1 ? "" : "s");
		if (run.orphans > 0 && run.repair)
			printf(", %lu removed", run.removed);
		putchar('\n');
	}
	if (fd >= 0)
		close(fd);
	free(path);
	tmq_codec_free(&run.codec);
	free(run.blob);
	free(run.refs);
	if (tmq_close_stdout(&cmd) < 0)
		return TMQ_EXIT_FAIL;
	return bad ? TMQ_EXIT_FAIL : TMQ_EXIT_OK;
}
