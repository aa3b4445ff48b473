/* t-groupsnap.c: lib/group/groupsnap and groupsnapfile, snapshots of a
 * group's replayed state, in a scratch root: a snapshot restores exactly the state a full replay
 * computes (also mid-rebalance, and with lines written after it); a log
 * that was replaced, truncated or rewritten is caught, and so is every
 * corrupt or hostile snapshot (each truncation, each flipped byte, counts
 * too large for the file, fields that contradict each other, a FIFO, a
 * link or a directory in its place): the reader then replays in full.
 * A sealed snapshot (a co-user can compute its checksum) holding a value
 * no log can leave - a committed offset of -5, a position past the
 * covered log, a member heard past it, a list out of order, an id twice,
 * an offer of no member - is refused, said once through the group's
 * notice, and replaced by the reader once it has read the log. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "group/group.h"
#include "group/groupsnap.h"
#include "group/groupsnapfile.h"
#include "store/root.h"
#include "tap.h"

static int rootfd;
static struct tmq_topic topic;

static void
die(const char *what, const struct tmq_error *e)
{
	diag("%s: %s", what, e->msg);
	exit(99);
}

static void
gopen(struct tmq_group *g, uint64_t every)
{
	struct tmq_error e;

	if (tmq_group_open(rootfd, "g", "t", g, &e) < 0)
		die("open", &e);
	g->snap_every = every;
}

static void
gwrite(struct tmq_group *g, enum tmq_gkind k, uint32_t member,
    const unsigned *parts, unsigned n)
{
	struct tmq_gmsg m;
	struct tmq_poff po[2] = { { 0, 5 }, { 2, 7 } };
	struct tmq_error e;

	memset(&m, 0, sizeof m);
	m.kind = k;
	m.tag = 0xfedcba9876543210ULL + member;
	m.end = 1795564800.5;
	m.own = (unsigned *)parts;
	m.nown = n ? n - 1 : 0;
	m.parts = (unsigned *)parts;
	m.nparts = n;
	m.commits = po;
	m.ncommits = 2;
	if (tmq_group_write(g, member, &m, &e) < 0)
		die("write", &e);
}

/* The state's bytes, to compare two states (the position is left out). */
static unsigned char *
state(const struct tmq_group *g, size_t *n)
{
	struct tmq_gsnap_pos pos;
	uint64_t first = 0;
	unsigned day = 0;
	unsigned char *b;
	struct tmq_error e;

	memset(&pos, 0, sizeof pos);
	pos.firsts = &first;
	pos.days = &day;
	pos.nfiles = 1;
	if (tmq_gsnap_encode(&g->state, &pos, &b, n, &e) < 0)
		die("encode", &e);
	return b;
}

/* The state a full replay computes, as bytes. */
static unsigned char *
truth(size_t *n)
{
	struct tmq_group g;
	struct tmq_error e;
	unsigned char *b;

	gopen(&g, 0);
	if (tmq_group_replay(&g, &e) < 0)
		die("replay", &e);
	b = state(&g, n);
	tmq_group_close(&g);
	return b;
}

/* The group's snapshot loaded, as its replay does. */
static int
load(struct tmq_group *g, struct tmq_error *e)
{
	return tmq_group_load(g, e);
}

/* Replay with snapshots on (every line); the state must be the truth. */
static void
replay_is_truth(uint64_t every, int want_loaded, const char *what)
{
	struct tmq_group g;
	struct tmq_error e;
	unsigned char *want, *got;
	size_t wn, gn;
	int loaded;

	want = truth(&wn);
	gopen(&g, every);
	loaded = load(&g, &e);
	is_int(loaded, want_loaded, "%s: snapshot %s", what,
	    want_loaded ? "used" : "not used");
	if (loaded == 0 && want_loaded)
		diag("why: %s", e.msg);
	if (tmq_group_replay(&g, &e) < 0)
		die("replay", &e);
	got = state(&g, &gn);
	is_mem(got, gn, want, wn, "%s: state as a full replay has it", what);
	tmq_group_close(&g);
	free(want);
	free(got);
}

static unsigned char *
slurp(const char *path, size_t *n)
{
	struct stat st;
	unsigned char *b;
	int fd = openat(rootfd, path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	b = malloc((size_t)st.st_size + 1);
	*n = (size_t)read(fd, b, (size_t)st.st_size);
	close(fd);
	return b;
}

static void
spit(const char *path, const void *b, size_t n)
{
	int fd = openat(rootfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, b, n) != (ssize_t)n) {
		diag("cannot write %s", path);
		exit(99);
	}
	close(fd);
}

/* This user's snapshot of group g (groupsnapfile.h: one a user). */
static const char *
snap_path(void)
{
	static char p[80];

	snprintf(p, sizeof p, "--group--g/.tmq/snapshot.%lu",
	    (unsigned long)geteuid());
	return p;
}
#define SNAP snap_path()

/* --- hostile values, well sealed ------------------------------------- */

/* The snapshot s decoded, one value changed (case k of change()), and
 * encoded again, sealed: what a co-user writes.  NULL when case k does not
 * apply to s. */
static int change(struct tmq_gstate *d, struct tmq_gsnap_pos *pos, int k,
    const char **what);

static unsigned char *
forged(const unsigned char *s, size_t n, int k, const char **what,
    size_t *fn)
{
	struct tmq_gstate d;
	struct tmq_gsnap_pos pos;
	struct tmq_error e;
	unsigned char *b = NULL;

	tmq_gstate_init(&d, 1);
	if (tmq_gsnap_decode(s, n, &d, &pos, &e) < 0)
		die("decode", &e);
	if (change(&d, &pos, k, what) == 0 &&
	    tmq_gsnap_encode(&d, &pos, &b, fn, &e) < 0)
		die("encode", &e);
	tmq_gsnap_pos_free(&pos);
	tmq_gstate_free(&d);
	return b;
}

#define NCHANGES 17

static int
change(struct tmq_gstate *d, struct tmq_gsnap_pos *pos, int k, const char **what)
{
	switch (k) {
	case 0:
		*what = "a committed offset of -5";
		d->committed[0] = -5;
		return 0;
	case 1:
		*what = "a committed offset of -2^63";
		d->committed[d->ncommitted - 1] = INT64_MIN;
		return 0;
	case 2:
		*what = "never committed (-2) as the last partition";
		d->committed[d->ncommitted - 1] = -2;
		return 0;
	case 3:
		*what = "a position past the covered log";
		d->read_to = pos->firsts[pos->nfiles - 1] + pos->last_len + 1;
		return 0;
	case 4:
		*what = "a member heard at the position (past the log read)";
		d->members[1].last_offset = d->read_to;
		return 0;
	case 5:
		*what = "a member id twice";
		d->members[2].id = d->members[1].id;
		return 0;
	case 6:
		*what = "a confirmed list out of order";
		d->members[1].confirmed[0] = 1;
		d->members[1].confirmed[1] = 0;
		return 0;
	case 7:
		*what = "a confirmed partition past the topic";
		d->members[1].confirmed[1] = pos->nparts;
		return 0;
	case 8:
		*what = "an offer of no member";
		d->offers[0].member = 77;
		return 0;
	case 9:
		*what = "a member's share twice";
		d->assigned[1].member = d->assigned[0].member;
		return 0;
	case 10:
		*what = "a rebalance that ends at NaN";
		d->rebal_end = NAN;
		return 0;
	case 11:
		*what = "a tag on an id never claimed";
		d->members[0].tag = 5;
		return 0;
	case 12:
		*what = "the last rebalance ended after the one under way began";
		d->ended_offset = d->rebal_offset + 1;
		return 0;
	case 13:
		*what = "an offer from before the rebalance began";
		d->members[3].last_offset = d->rebal_offset;
		return 0;
	case 14:
		*what = "an offer of partitions by a member that left";
		d->members[3].left = 1;
		return 0;
	case 15:
		*what = "a member heard on no line (more than the lines)";
		d->read_to = pos->firsts[pos->nfiles - 1] + 1;
		return 0;
	case 16:
		*what = "no rebalance, yet a rebalance offset";
		d->rebalancing = 0;
		d->have_assignment = 0;
		tmq_offers_free(d->offers, d->noffers);
		tmq_offers_free(d->assigned, d->nassigned);
		d->offers = d->assigned = NULL;
		d->noffers = d->nassigned = 0;
		d->ended_offset = 0;
		return 0;
	}
	return -1;
}

static int notices;
static char last_notice[1024];

static void
count_notice(void *arg, const char *msg)
{
	(void)arg;
	notices++;
	snprintf(last_notice, sizeof last_notice, "%s", msg);
}

/* Decode must refuse b; with a state and pos left empty. */
static int
refused(const unsigned char *b, size_t n)
{
	struct tmq_gstate g;
	struct tmq_gsnap_pos pos;
	struct tmq_error e;
	int rc;

	tmq_gstate_init(&g, 1);
	rc = tmq_gsnap_decode(b, n, &g, &pos, &e);
	if (rc == 0) {
		tmq_gsnap_pos_free(&pos);
		tmq_gstate_free(&g);
		return 0;
	}
	return g.members == NULL && g.committed == NULL && g.offers == NULL &&
	    g.assigned == NULL && pos.firsts == NULL && g.read_to == 0;
}

/* Put a fresh checksum on b. */
static void
reseal(unsigned char *b, size_t n)
{
	uint64_t h = XXH3_64bits(b, n - 8);
	int i;

	for (i = 0; i < 8; i++)
		b[n - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void
set_u32(unsigned char *b, size_t at, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		b[at + i] = (unsigned char)(v >> (8 * i));
}

int
main(void)
{
	char dir[] = "/tmp/t-groupsnap.XXXXXX", cmd[64];
	unsigned all[3] = { 0, 1, 2 }, one[1] = { 1 };
	struct tmq_error e;
	struct tmq_group g;
	unsigned char *snap, *b;
	size_t n, i, bad;
	int fd;

	if (mkdtemp(dir) == NULL || tmq_root_open(dir, 0, &rootfd, &e) < 0 ||
	    tmq_topic_create(rootfd, "t", 4, 3, NULL, 0, NULL, &e) < 0 ||
	    tmq_topic_open(rootfd, "t", &topic, &e) < 0 ||
	    tmq_group_create(rootfd, "g", &topic, 0, &e) < 0)
		die("setup", &e);

	/* A rebalance that completed, with shares, confirms and commits. */
	gopen(&g, 0);
	gwrite(&g, TMQ_G_JOINED, 1, NULL, 0);
	gwrite(&g, TMQ_G_JOINED, 2, NULL, 0);
	gwrite(&g, TMQ_G_JOINED, 2, NULL, 0);	/* a second claim: ignored */
	gwrite(&g, TMQ_G_BEGINREBAL, 1, NULL, 0);
	gwrite(&g, TMQ_G_REBALOFFER, 1, all, 3);
	gwrite(&g, TMQ_G_REBALOFFER, 2, one, 1);
	gwrite(&g, TMQ_G_ENDREBAL, 1, NULL, 0);
	gwrite(&g, TMQ_G_REBALCONFIRM, 1, all, 2);
	gwrite(&g, TMQ_G_REBALCONFIRM, 2, one, 1);
	gwrite(&g, TMQ_G_COMMIT, 1, NULL, 0);
	tmq_group_close(&g);

	/* Without snapshots, none is written. */
	replay_is_truth(0, 0, "snapshots off");
	ok(faccessat(rootfd, SNAP, F_OK, 0) != 0, "snapshots off: none written");
	/* The first reader replays in full and leaves one; the next uses it. */
	replay_is_truth(1, 0, "first reader");
	ok(faccessat(rootfd, SNAP, F_OK, 0) == 0, "first reader: snapshot written");
	replay_is_truth(1, 1, "second reader");

	/* Lines after the snapshot, ending mid-rebalance: the snapshot plus
	 * those lines is the full replay. */
	gopen(&g, 0);
	gwrite(&g, TMQ_G_JOINED, 3, NULL, 0);
	gwrite(&g, TMQ_G_BEGINREBAL, 3, NULL, 0);
	gwrite(&g, TMQ_G_REBALOFFER, 3, one, 1);
	gwrite(&g, TMQ_G_COMMIT, 3, NULL, 0);
	tmq_group_close(&g);
	replay_is_truth(1000, 1, "lines past the snapshot");
	/* The snapshot mid-rebalance, offers under way, restores too. */
	replay_is_truth(1, 1, "write one mid-rebalance");
	replay_is_truth(1, 1, "read one mid-rebalance");
	gopen(&g, 1);
	is_int(load(&g, &e), 1, "mid-rebalance: loaded");
	ok(g.state.rebalancing && g.state.noffers == 1 &&
	    g.state.have_assignment && g.state.nassigned == 2 &&
	    g.state.max_key == 3, "mid-rebalance: the state is there");
	is_u64(tmq_lr_offset(&g.lr), g.state.read_to, "reader goes on after it");
	tmq_group_close(&g);
	/* Read with another partition count (the topic made again with
	 * more), the state would differ: not used. */
	gopen(&g, 1);
	g.state.nparts = 4;
	is_int(load(&g, &e), 0, "another partition count: not used");
	ok(g.state.nmembers == 0 && g.state.read_to == 0,
	    "... and the state left empty");
	tmq_group_close(&g);

	/* Decode(encode(s)) is s. */
	snap = slurp(SNAP, &n);
	ok(snap != NULL && n > 100, "snapshot read (%zu bytes)", n);
	{
		struct tmq_gstate d;
		struct tmq_gsnap_pos pos;
		unsigned char *again;
		size_t an;

		tmq_gstate_init(&d, 1);
		ok(tmq_gsnap_decode(snap, n, &d, &pos, &e) == 0, "decodes");
		is_int((int)d.nparts, 3, "  for the topic's 3 partitions");
		if (tmq_gsnap_encode(&d, &pos, &again, &an, &e) < 0)
			die("encode", &e);
		is_mem(again, an, snap, n, "encodes back to the same bytes");
		free(again);
		tmq_gsnap_pos_free(&pos);
		tmq_gstate_free(&d);
	}

	/* Well sealed, each value checked as the log's lines are: decode
	 * refuses every one of these with -2 (no accident: a forgery). */
	{
		const char *what = NULL;
		size_t fn;
		int k, rc;

		for (k = 0; k < NCHANGES; k++) {
			struct tmq_gstate d;
			struct tmq_gsnap_pos pos;

			b = forged(snap, n, k, &what, &fn);
			if (!ok(b != NULL, "forged: %s", what))
				continue;
			tmq_gstate_init(&d, 1);
			rc = tmq_gsnap_decode(b, fn, &d, &pos, &e);
			if (!is_int(rc, -2, "  refused as impossible: %s", what))
				diag("%s", rc == 0 ? "taken" : e.msg);
			if (rc == 0) {
				tmq_gsnap_pos_free(&pos);
				tmq_gstate_free(&d);
			}
			ok(refused(b, fn), "  and nothing left of it");
			free(b);
		}
		/* On disk: refused, said once, the log replayed, and the
		 * snapshot replaced by the reader. */
		b = forged(snap, n, 0, &what, &fn);
		spit(SNAP, b, fn);
		free(b);
		gopen(&g, 1000);
		is_int(load(&g, &e), 2, "forged on disk: the load says refused");
		ok(g.state.read_to == 0 && g.state.nmembers == 0 &&
		    tmq_lr_offset(&g.lr) == 0, "  the state empty, the reader "
		    "at the start");
		tmq_group_close(&g);
		notices = 0;
		{
			unsigned char *want, *got, *now;
			size_t wn, gn, nn;
			struct tmq_gstate d;
			struct tmq_gsnap_pos pos;

			want = truth(&wn);
			gopen(&g, 1000);
			g.notice = count_notice;
			if (tmq_group_replay(&g, &e) < 0)
				die("replay", &e);
			got = state(&g, &gn);
			is_mem(got, gn, want, wn, "forged on disk: the state is the "
			    "log's");
			is_int(notices, 1, "  said once");
			{
				char w[256];

				snprintf(w, sizeof w, "group g: %s refused "
				    "(partition 0: committed offset -5 is not "
				    "one a commit can hold): the log is read in "
				    "full", SNAP);
				is_str(last_notice, w, "  naming what is wrong");
			}
			tmq_group_close(&g);
			now = slurp(SNAP, &nn);
			tmq_gstate_init(&d, 1);
			ok(now != NULL && tmq_gsnap_decode(now, nn, &d, &pos, &e) ==
			    0 && d.ncommitted > 0 && d.committed[0] == 5,
			    "  and replaced by the reader");
			if (now != NULL && d.committed != NULL) {
				tmq_gsnap_pos_free(&pos);
				tmq_gstate_free(&d);
			}
			free(now);
			free(want);
			free(got);
			notices = 0;
			gopen(&g, 1000);
			g.notice = count_notice;
			ok(tmq_group_replay(&g, &e) == 0 && g.snap_at != 0 &&
			    notices == 0, "  the replacement is used, without a "
			    "word");
			tmq_group_close(&g);
		}
		spit(SNAP, snap, n);
	}

	/* Every truncation and every flipped bit of a byte is refused. */
	for (bad = 0, i = 0; i < n; i++)
		bad += !refused(snap, i);
	is_int((int)bad, 0, "every truncation refused");
	b = malloc(n);
	for (bad = 0, i = 0; i < n * 8; i++) {
		memcpy(b, snap, n);
		b[i / 8] ^= (unsigned char)(1u << (i % 8));
		bad += !refused(b, n);
	}
	is_int((int)bad, 0, "every flipped bit refused");

	/* Well sealed but hostile: counts past the file's end, a file list
	 * out of order, a largest id that is not, flags not known, a trailing
	 * byte.  (After the magic, version, read_to and partition count,
	 * the file count is at byte 24; the member count after 1 file, the
	 * six checks, max_key, flags and three 8-byte fields: byte 120.) */
	memcpy(b, snap, n);
	set_u32(b, 24, 0xffffffffu);
	reseal(b, n);
	ok(refused(b, n), "hostile: file count past the end");
	memcpy(b, snap, n);
	set_u32(b, 120, 0x7fffffffu);
	reseal(b, n);
	ok(refused(b, n), "hostile: member count past the end");
	memcpy(b, snap, n);
	set_u32(b, 88, 99);
	reseal(b, n);
	ok(refused(b, n), "hostile: max_key not the largest id");
	memcpy(b, snap, n);
	set_u32(b, 92, 7);
	reseal(b, n);
	ok(refused(b, n), "hostile: unknown flags");
	memcpy(b, snap, n);
	set_u32(b, 8, 99);
	reseal(b, n);
	ok(refused(b, n), "hostile: unknown version");
	memcpy(b, snap, n);
	set_u32(b, 20, 0);
	reseal(b, n);
	ok(refused(b, n), "hostile: no partitions");
	memcpy(b, snap, n);
	set_u32(b, 20, 2);
	reseal(b, n);
	ok(refused(b, n), "hostile: partitions offered past the count");
	{
		unsigned char *longer = malloc(n + 1);

		memcpy(longer, snap, n - 8);
		longer[n - 8] = 0;
		reseal(longer, n + 1);
		ok(refused(longer, n + 1), "hostile: a trailing byte");
		free(longer);
	}
	free(b);

	/* A corrupt snapshot on disk: the reader replays in full. */
	b = malloc(n);
	memcpy(b, snap, n);
	b[n / 2] ^= 0x20;
	spit(SNAP, b, n);
	free(b);
	replay_is_truth(1000, 0, "corrupt snapshot");
	/* Things that are not files where the snapshot goes. */
	unlinkat(rootfd, SNAP, 0);
	mkfifoat(rootfd, SNAP, 0644);
	replay_is_truth(1000, 0, "a FIFO for a snapshot (no hang)");
	unlinkat(rootfd, SNAP, 0);
	ok(symlinkat("../0-20261125_0.tmf", rootfd, SNAP) == 0,
	    "a symlink planted for a snapshot");
	replay_is_truth(1000, 0, "a symlink for a snapshot");
	unlinkat(rootfd, SNAP, 0);
	mkdirat(rootfd, SNAP, 0755);
	replay_is_truth(1000, 0, "a directory for a snapshot");
	unlinkat(rootfd, SNAP, AT_REMOVEDIR);

	/* The log replaced by another of the same name (rename over it):
	 * another inode and other bytes. */
	spit(SNAP, snap, n);
	replay_is_truth(1000, 1, "snapshot put back");
	{
		char path[128], tmp[160];
		unsigned char *log;
		size_t ln;

		gopen(&g, 0);
		snprintf(path, sizeof path, "--group--g/%s", g.lr.files[0].name);
		tmq_group_close(&g);
		log = slurp(path, &ln);
		/* Same bytes, new inode: not proved unchanged. */
		snprintf(tmp, sizeof tmp, "%s.new", path);
		spit(tmp, log, ln);
		renameat(rootfd, tmp, rootfd, path);
		replay_is_truth(1000, 0, "log copied over (new inode)");
		/* Rewritten in place, same inode and size, other bytes near the
		 * covered end: caught. */
		replay_is_truth(1, 0, "new snapshot");
		replay_is_truth(1, 1, "new snapshot used");
		memcpy(log + ln - 40, "0000000000", 10);
		fd = openat(rootfd, path, O_WRONLY);
		ok(fd >= 0 && pwrite(fd, log, ln, 0) == (ssize_t)ln,
		    "log rewritten in place");
		close(fd);
		replay_is_truth(1000, 0, "log rewritten in place");
		/* Truncated (a log rolled back). */
		replay_is_truth(1, 0, "new snapshot");
		fd = openat(rootfd, path, O_WRONLY);
		ok(fd >= 0 && ftruncate(fd, (off_t)(ln / 2)) == 0, "log truncated");
		close(fd);
		replay_is_truth(1000, 0, "log truncated");
		/* Back to whole, then a second day file: the snapshot covers
		 * two files and survives lines added to the second. */
		spit(path, log, ln);
		free(log);
		{
			char old[128];

			snprintf(old, sizeof old, "--group--g/0-20261125_0.tmf");
			renameat(rootfd, path, rootfd, old);
		}
		gopen(&g, 0);
		gwrite(&g, TMQ_G_COMMIT, 3, NULL, 0);
		tmq_group_close(&g);
		gopen(&g, 0);
		is_int((int)g.lr.nfiles, 2, "log of two files");
		tmq_group_close(&g);
		replay_is_truth(1, 0, "two files, first reader");
		replay_is_truth(1, 1, "two files");
		gopen(&g, 0);
		gwrite(&g, TMQ_G_COMMIT, 2, NULL, 0);
		tmq_group_close(&g);
		replay_is_truth(1000, 1, "two files, lines past the snapshot");
		/* The first file rewritten in place at its start. */
		log = slurp("--group--g/0-20261125_0.tmf", &ln);
		log[30] ^= 1;
		fd = openat(rootfd, "--group--g/0-20261125_0.tmf", O_WRONLY);
		ok(fd >= 0 && pwrite(fd, log, ln, 0) == (ssize_t)ln,
		    "first file rewritten");
		close(fd);
		free(log);
		replay_is_truth(1000, 0, "first file rewritten");
		/* A file before the covered one removed. */
		replay_is_truth(1, 0, "new snapshot");
		unlinkat(rootfd, "--group--g/0-20261125_0.tmf", 0);
		replay_is_truth(1000, 0, "first file removed");
	}
	free(snap);

	/* A snapshot is only written once every lines were read past it. */
	replay_is_truth(1, 0, "new snapshot");
	{
		struct stat a, c;

		fstatat(rootfd, SNAP, &a, 0);
		gopen(&g, 0);
		gwrite(&g, TMQ_G_COMMIT, 2, NULL, 0);
		tmq_group_close(&g);
		replay_is_truth(2, 1, "one line past, every 2");
		fstatat(rootfd, SNAP, &c, 0);
		ok(a.st_ino == c.st_ino, "not rewritten one line past it");
		replay_is_truth(1, 1, "every line");
		fstatat(rootfd, SNAP, &c, 0);
		ok(a.st_ino != c.st_ino, "rewritten (renamed into place)");
	}
	/* Temporary files of writers killed before their rename go at the
	 * next write, once a minute old; nothing else in .tmq does. */
	{
		struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
		char path[64], tmp[128];

		spit("--group--g/.tmq/snapshot.99.0123.tmp", "x", 1);
		utimensat(rootfd, "--group--g/.tmq/snapshot.99.0123.tmp", old, 0);
		spit("--group--g/.tmq/snapshot.98.0123.tmp", "x", 1);
		snprintf(path, sizeof path, ".snapshot.%lu.77.0abc.tmp",
		    (unsigned long)geteuid());
		snprintf(tmp, sizeof tmp, "--group--g/.tmq/%s", path);
		spit(tmp, "x", 1);
		utimensat(rootfd, tmp, old, 0);
		spit("--group--g/.tmq/other.tmp", "x", 1);
		utimensat(rootfd, "--group--g/.tmq/other.tmp", old, 0);
		gopen(&g, 0);
		gwrite(&g, TMQ_G_COMMIT, 2, NULL, 0);
		tmq_group_close(&g);
		replay_is_truth(1, 1, "a write with leftovers about");
		ok(faccessat(rootfd, "--group--g/.tmq/snapshot.99.0123.tmp", F_OK,
		    0) != 0, "an old temporary file removed");
		ok(faccessat(rootfd, tmp, F_OK, 0) != 0,
		    "an old temporary file of this user's snapshot removed");
		ok(faccessat(rootfd, "--group--g/.tmq/snapshot.98.0123.tmp", F_OK,
		    0) == 0, "a fresh one kept");
		ok(faccessat(rootfd, "--group--g/.tmq/other.tmp", F_OK, 0) == 0,
		    "other files kept");
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	tmq_topic_close(&topic);
	return done_testing();
}
