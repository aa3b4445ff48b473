/* t-partindex.c: lib/store/partindex and partscan, the sparse index beside
 * each partition file, in a scratch topic directory.  The running maxts
 * kept from encoded times (tmq_tsmax) against the decoded times folded one
 * by one, for times of every kind; records and headers encoded and
 * decoded, a flipped bit refused; an index built by a count from the
 * start, each of its records checked against the file line by line; the
 * lookups by line and by time against a full scan, for every line and
 * many times, clocks skewed included; a count that starts at the last
 * entry; a second reader appending past the first; and hostile indexes
 * (cut, random bytes, a record in the middle of a line or past the end,
 * another file's, huge, a FIFO, a symbolic link, a directory, writable by
 * all): each is refused (said once) or ignored, no answer changes, and a
 * reader that may write makes it again. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "codec/base85.h"
#include "store/linereader.h"
#include "codec/message.h"
#include "util/notice.h"
#include "store/partindex.h"
#include "store/partscan.h"
#include "tap.h"
#include "codec/timestamp.h"

#define T0 1795564800.0		/* 2026-11-25T00:00:00Z */
#define NLINES 20000
#define FILE0 "0-20261125_0.tmf"
/* The indexes' names: each user's own (.tmq/P-DAY_FIRST.UID.idx). */
static char idx0[64], idx1[64];
#define IDX0 idx0
/* The topic's name, as a caller gives it (the scratch directory's), and
 * its hash in every header. */
static const char *topic;
static uint64_t th;
/* The topic as the tools open it: its name, directory, key width, and
 * (when a test gives it one) its set of what its indexes said. */
static struct tmq_topic top;

/* What a header of pf's index says (key width 2, this topic). */
static const struct tmq_pidx_id *
id_of(const struct tmq_pfile *pf)
{
	static struct tmq_pidx_id id;

	id.partition = pf->partition;
	id.day = pf->day;
	id.first = pf->first;
	id.key_width = 2;
	id.topic_hash = th;
	return &id;
}

static struct tmq_codec codec;
static int dirfd_;
static char said[8][512];
static int nsaid;

static void
sink(void *arg, const char *msg)
{
	(void)arg;
	if (nsaid < 8)
		snprintf(said[nsaid], sizeof said[0], "%s", msg);
	nsaid++;
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A real line (u16 key, newline included) with this timestamp. */
static size_t
mkline(char *out, size_t cap, unsigned key, double ts, size_t len)
{
	static char text[4096];
	struct tmq_payload p = { TMQ_TEXT, 0, (const unsigned char *)text, len };
	unsigned char k[2] = { (unsigned char)(key >> 8), (unsigned char)key };
	struct tmq_error e;
	size_t i;
	long n;

	for (i = 0; i < len; i++)
		text[i] = (char)('a' + rnd() % 26);	/* (deflates little) */
	n = tmq_line_encode(&codec, 2, k, ts, &p, out, cap, &e);
	if (n < 0) {
		diag("encode: %s", e.msg);
		exit(99);
	}
	return (size_t)n;
}

/* The file as written: each line's first byte and time. */
static uint64_t starts[NLINES + 1];
static double times[NLINES];
static size_t nlines;

static void
append(const char *name, const char *buf, size_t n)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0 || write(fd, buf, n) != (ssize_t)n) {
		perror(name);
		exit(99);
	}
	close(fd);
}

/* Write lines [from, to) of the file: times mostly rising, one line in
 * 50 from a producer an hour ahead, one in 70 an hour behind. */
static void
write_lines(size_t from, size_t to)
{
	static char buf[1 << 20];
	size_t used = 0, i;
	uint64_t pos = starts[from];

	for (i = from; i < to; i++) {
		char line[8192];
		double ts = T0 + (double)i * 0.25;
		size_t n;

		if (i % 50 == 7)
			ts += 3600;
		else if (i % 70 == 3)
			ts -= 3600;
		times[i] = ts;
		n = mkline(line, sizeof line, (unsigned)i, ts, 20 + rnd() % 60);
		if (used + n > sizeof buf) {
			append(FILE0, buf, used);
			used = 0;
		}
		memcpy(buf + used, line, n);
		used += n;
		starts[i] = pos;
		pos += n;
	}
	append(FILE0, buf, used);
	starts[to] = pos;
	nlines = to;
}

/* What a scan from the first byte finds: the first line at or after
 * from whose time is at or past t (strict: past t); nlines when none. */
static size_t
scan_time(size_t from, double t, int strict)
{
	size_t i;

	for (i = from; i < nlines; i++)
		if (strict ? !(times[i] <= t) : !(times[i] < t))
			return i;
	return nlines;
}

/* The line starting at byte pos, or -1. */
static long
line_at(uint64_t pos)
{
	size_t lo = 0, hi = nlines + 1;

	while (hi - lo > 1) {
		size_t m = (lo + hi) / 2;

		if (starts[m] <= pos)
			lo = m;
		else
			hi = m;
	}
	return starts[lo] == pos ? (long)lo : -1;
}

static double
maxts_before(size_t line)
{
	double m = -INFINITY;
	size_t i;

	for (i = 0; i < line; i++)
		m = tmq_pidx_ts(m, times[i]);
	return m;
}

static int
open_pf(const char *name, struct tmq_pfile *pf)
{
	int fd;

	if (tmq_pfile_parse(name, pf) < 0)
		exit(99);
	fd = openat(dirfd_, name, O_RDONLY);
	if (fd < 0)
		exit(99);
	return fd;
}

/* Count the file through its index, as a fresh reader does, adding to
 * the set of what was said ss (NULL: its own). */
static int
count_said(struct tmq_pscan *s, struct tmq_pidx_said *ss)
{
	struct tmq_pidx x;
	struct tmq_pfile pf;
	int fd = open_pf(FILE0, &pf), rc;

	tmq_pidx_init(&x, dirfd_, topic, &pf, 2, ss);
	rc = tmq_pscan_file(&x, fd, 0, TMQ_PSCAN_TIMES | TMQ_PSCAN_HOLES, 0, s);
	tmq_pidx_free(&x);
	close(fd);
	return rc;
}

static int
count(struct tmq_pscan *s)
{
	return count_said(s, NULL);
}

static off_t
size_of(const char *name)
{
	struct stat st;

	return fstatat(dirfd_, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
	    st.st_size : -1;
}

/* Every record of the index on disk, checked against the file. */
static void
check_records(const char *what, size_t *nrec)
{
	unsigned char hdr[TMQ_PIDX_HDR], b[TMQ_PIDX_REC], stamp[TMQ_PIDX_STAMP];
	struct tmq_pidx_stamp sv;
	struct tmq_pfile pf;
	struct tmq_pidx_ent at;
	uint64_t hh;
	uint32_t seed, win;
	const char *why = "";
	int fd = openat(dirfd_, IDX0, O_RDONLY), good = 1;
	size_t k = 0;
	uint64_t prev = 0;

	*nrec = 0;
	tmq_pfile_parse(FILE0, &pf);
	if (!ok(fd >= 0 && read(fd, hdr, sizeof hdr) == sizeof hdr &&
	    tmq_pidx_header_decode(hdr, sizeof hdr, id_of(&pf), &hh, &seed,
	    &why) == 0, "%s: the header is this file's (%s)", what, why))
		return;
	if (!ok(read(fd, stamp, sizeof stamp) == sizeof stamp &&
	    tmq_pidx_stamp_decode(stamp, seed, &sv) == 0, "%s: its stamp "
	    "decodes", what))
		return;
	while (read(fd, b, sizeof b) == sizeof b) {
		long l;

		if (tmq_pidx_record_decode(b, seed, &at, &win) < 0) {
			good = 0;
			diag("record %zu does not decode", k);
			break;
		}
		l = line_at(at.pos);
		if (l < 0 || (uint64_t)l != at.line || at.pos < prev +
		    TMQ_PIDX_STEP || memcmp(&at.maxts, &(double){
		    maxts_before((size_t)l) }, 8) != 0) {
			good = 0;
			diag("record %zu: line %llu at %llu, maxts %f", k,
			    (unsigned long long)at.line,
			    (unsigned long long)at.pos, at.maxts);
			break;
		}
		prev = at.pos;
		k++;
	}
	close(fd);
	ok(good, "%s: each of %zu records is a line's start, its line and "
	    "maxts as the file has them, 64 KiB or more apart", what, k);
	*nrec = k;
}

/* Seeks by a line reader, each against the full scan. */
static void
check_seeks(const char *what, int times_too)
{
	struct tmq_linereader r;
	struct tmq_error e;
	struct tmq_line l;
	int bad = 0, i;

	for (i = 0; i < 200 && !bad; i++) {
		uint64_t o = i < 3 ? (uint64_t)(i == 0 ? 0 : nlines - i) :
		    rnd() % nlines;

		if (tmq_lr_open(&r, &top, 0, 2, &e) < 0 ||
		    tmq_lr_seek(&r, o, NULL, &e) < 0 ||
		    tmq_lr_next(&r, &l, &e) != 1 || l.offset != o ||
		    l.pos != starts[o]) {
			diag("seek to %llu: %s", (unsigned long long)o, e.msg);
			bad = 1;
		}
		tmq_lr_close(&r);
	}
	ok(!bad, "%s: 200 seeks to an offset land on its line", what);
	if (!times_too)
		return;
	for (i = 0; i < 300 && !bad; i++) {
		double t = T0 - 4000 + (double)(rnd() % (uint64_t)(nlines / 4 +
		    8000));
		size_t want = scan_time(0, t, 0);
		int rc;

		if (i % 3 == 0)
			t += 0.25 * (double)(rnd() % 4);
		want = scan_time(0, t, 0);
		if (tmq_lr_open(&r, &top, 0, 2, &e) < 0 ||
		    tmq_lr_seek_time(&r, t, &e) < 0)
			bad = 1;
		rc = bad ? -1 : tmq_lr_next(&r, &l, &e);
		if (want == nlines ? rc != 0 : rc != 1 || l.offset != want) {
			diag("time %.2f: want %zu, got rc %d offset %llu", t,
			    want, rc, (unsigned long long)l.offset);
			bad = 1;
		}
		tmq_lr_close(&r);
	}
	ok(!bad, "%s: 300 seeks by time (clocks an hour apart) find the line "
	    "a full scan finds", what);
}

/* The index refused is said once, naming it; nsaid then reset. */
static void
said_once(const char *what, const char *why)
{
	char want[256];

	snprintf(want, sizeof want, "%s: %s refused (%s)", topic, IDX0, why);
	if (!is_int(nsaid, 1, "%s: said once", what))
		diag("said: %s", nsaid ? said[0] : "nothing");
	else
		ok(strstr(said[0], want) != NULL, "%s: %s", what, said[0]);
	nsaid = 0;
}

/* Answers with the index as planted: those of a full scan. */
static void
answers_hold(const char *what)
{
	struct tmq_pscan s;
	struct tmq_linereader r;
	struct tmq_error e;
	struct tmq_line l;
	uint64_t o = nlines - 3 - rnd() % 100;
	size_t want;
	double t = times[o];
	int rc;

	/* (one set of what was said, as one tool's run has) */
	top.said = tmq_pidx_said_new();
	rc = count_said(&s, top.said);

	if (rc < 0)
		diag("count: %s", strerror(errno));
	ok(rc == 0 && s.lines == nlines + 1 && s.partial &&
	    s.has_last_ts && s.last_ts == times[nlines - 1] &&
	    s.has_first_ts && s.first_ts == times[0], "%s: the count is the "
	    "file's (%llu lines)", what, (unsigned long long)s.lines);
	ok(tmq_lr_open(&r, &top, 0, 2, &e) == 0 &&
	    tmq_lr_seek(&r, o, NULL, &e) == 0 && tmq_lr_next(&r, &l, &e) == 1 &&
	    l.offset == o, "%s: a seek to an offset", what);
	tmq_lr_close(&r);
	want = scan_time(0, t, 0);
	ok(tmq_lr_open(&r, &top, 0, 2, &e) == 0 &&
	    tmq_lr_seek_time(&r, t, &e) == 0 && tmq_lr_next(&r, &l, &e) == 1 &&
	    l.offset == want, "%s: a seek by time", what);
	tmq_lr_close(&r);
	tmq_pidx_said_free(top.said);
	top.said = NULL;
}

static void
rewrite_index(const unsigned char *buf, size_t n)
{
	int fd;

	unlinkat(dirfd_, IDX0, 0);
	fd = openat(dirfd_, IDX0, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n)
		exit(99);
	close(fd);
}

static unsigned char *
read_index(size_t *n)
{
	off_t sz = size_of(IDX0);
	unsigned char *b = malloc(sz > 0 ? (size_t)sz : 1);
	int fd = openat(dirfd_, IDX0, O_RDONLY);

	if (b == NULL || fd < 0 || read(fd, b, (size_t)sz) != sz)
		exit(99);
	close(fd);
	*n = (size_t)sz;
	return b;
}

/* Record k of good, with new fields, sealed as a writer would. */
static void
forge(unsigned char *buf, size_t k, uint64_t line, uint64_t pos,
    int keep_win)
{
	struct tmq_pfile pf;
	struct tmq_pidx_ent at;
	uint64_t hh;
	uint32_t seed, win;
	const char *why;
	unsigned char *b = buf + TMQ_PIDX_START + k * TMQ_PIDX_REC;

	tmq_pfile_parse(FILE0, &pf);
	tmq_pidx_header_decode(buf, TMQ_PIDX_HDR, id_of(&pf), &hh, &seed,
	    &why);
	tmq_pidx_record_decode(b, seed, &at, &win);
	at.line = line;
	at.pos = pos;
	(void)keep_win;
	tmq_pidx_record_encode(b, seed, &at, win);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct tmq_pscan s;
	struct tmq_error e;
	unsigned char *good, *bad;
	size_t n, nrec, nrec2, k;
	char dir[4096], cmd[4200];
	int fd;

	if (tmq_codec_init(&codec, &e) < 0)
		return 99;
	tmq_notice_sink(sink, NULL);
	snprintf(dir, sizeof dir, "%s/t-partindex.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL || (dirfd_ = open(dir, O_RDONLY |
	    O_DIRECTORY)) < 0) {
		perror(dir);
		return 99;
	}
	snprintf(idx0, sizeof idx0, ".tmq/0-20261125_0.%lu.idx",
	    (unsigned long)geteuid());
	snprintf(idx1, sizeof idx1, ".tmq/1-20261125_0.%lu.idx",
	    (unsigned long)geteuid());
	topic = strrchr(dir, '/') + 1;
	th = tmq_pidx_topic_hash(topic);
	top.name = (char *)topic;
	top.dirfd = dirfd_;
	top.key_width = 2;

	/* A file of about 1.3 MB: a count from the start makes its index. */
	write_lines(0, NLINES / 2);
	k = (size_t)count(&s);
	ok(k == 0 && s.lines == nlines, "a count from the start: %llu "
	    "lines", (unsigned long long)s.lines);
	ok(size_of(IDX0) > TMQ_PIDX_HDR, "it made the index (%lld bytes)",
	    (long long)size_of(IDX0));
	check_records("made by a count", &nrec);
	ok(nrec >= (size_t)(starts[nlines] / TMQ_PIDX_STEP) - 1 &&
	    nrec <= (size_t)(starts[nlines] / TMQ_PIDX_STEP),
	    "one record a step (%zu for %llu bytes)", nrec,
	    (unsigned long long)starts[nlines]);
	ok(s.has_first_ts && s.first_ts == times[0] && s.has_last_ts &&
	    s.last_ts == times[nlines - 1], "with the first and last times");
	ok(count(&s) == 0 && s.lines == nlines && s.size == starts[nlines] &&
	    s.complete < 1000, "a second count: the same, from the last entry "
	    "(%llu lines read)", (unsigned long long)s.complete);
	check_seeks("the index of the first half", 1);
	is_int(nsaid, 0, "nothing said");

	/* Lines added: a reader past the last record appends, in order. */
	write_lines(NLINES / 2, NLINES);
	check_seeks("half the file indexed", 1);
	ok(count(&s) == 0 && s.lines == nlines, "a count of the grown file");
	check_records("appended to", &nrec2);
	ok(nrec2 > nrec && nrec2 >= (size_t)(starts[nlines] / TMQ_PIDX_STEP) -
	    1, "the records of the new lines added (%zu, were %zu)", nrec2,
	    nrec);
	check_seeks("the whole file indexed", 1);

	/* A cut last line: counted as the library does, not indexed. */
	append(FILE0, "0123456789ABC", 13);
	ok(count(&s) == 0 && s.lines == nlines + 1 && s.partial &&
	    s.after_nl == starts[nlines] && s.last_ts == times[nlines - 1],
	    "a cut last line: counted, its time not taken");

	good = read_index(&n);
	/* Hostile indexes: each refused or ignored; answers unchanged; a
	 * reader that may write makes it again. */
	rewrite_index(good, n - 13);
	answers_hold("an index cut in its last record");
	is_int(nsaid, 0, "  nothing said (a writer killed mid-record)");
	ok(size_of(IDX0) > 0 && (size_of(IDX0) - TMQ_PIDX_START) %
	    TMQ_PIDX_REC == 0, "  the cut record dropped by the next writer");

	bad = malloc(n);
	for (k = 0; k < n; k++)
		bad[k] = (unsigned char)rnd();
	rewrite_index(bad, n);
	answers_hold("random bytes");
	said_once("random bytes", "not an index");
	check_records("random bytes, made again", &nrec);

	memcpy(bad, good, n);
	memcpy(bad + TMQ_PIDX_START + 5 * TMQ_PIDX_REC,
	    good + TMQ_PIDX_START + 2 * TMQ_PIDX_REC, TMQ_PIDX_REC);
	rewrite_index(bad, n);
	answers_hold("a record copied from another place");
	ok(nsaid <= 1, "  said at most once (%d)", nsaid);
	nsaid = 0;

	memcpy(bad, good, n);
	forge(bad, nrec2 - 1, nlines - 5, starts[nlines - 5] + 3, 1);
	rewrite_index(bad, n);
	answers_hold("the last record in the middle of a line");
	ok(nsaid == 1 && strstr(said[0], "does not match the file") != NULL,
	    "  said once: %s", nsaid ? said[0] : "nothing");
	nsaid = 0;

	memcpy(bad, good, n);
	forge(bad, nrec2 - 1, nlines + 3, starts[nlines] + 5000, 1);
	rewrite_index(bad, n);
	answers_hold("the last record past the end");
	ok(nsaid == 1, "  said once: %s", nsaid ? said[0] : "nothing");
	nsaid = 0;

	/* Another file's: its header names partition 1 (sealed as a
	 * writer would); then this file's name but another file's bytes. */
	{
		struct tmq_pfile p1;
		uint64_t hh;
		uint32_t seed;
		const char *why;

		memcpy(bad, good, n);
		tmq_pfile_parse(FILE0, &p1);
		tmq_pidx_header_decode(good, TMQ_PIDX_HDR, id_of(&p1), &hh,
		    &seed, &why);
		p1.partition = 1;
		tmq_pidx_header_encode(bad, id_of(&p1), hh, &seed);
		rewrite_index(bad, n);
		answers_hold("another partition's index");
		said_once("another partition's", "not this file's index");
		tmq_pfile_parse(FILE0, &p1);
		tmq_pidx_header_encode(bad, id_of(&p1), hh ^ 1, &seed);
		rewrite_index(bad, n);
		answers_hold("the index of another file of this name");
		said_once("another file of this name", "not this file's index: "
		    "its first bytes differ");
		memcpy(bad, good, n);
		bad[9] ^= 1;
		rewrite_index(bad, n);
		answers_hold("a header that fails its checksum");
		said_once("a header that fails its checksum", "damaged");
	}

	/* Huge: a sparse index of 1 GiB behind a good header. */
	rewrite_index(good, n);
	{
		char path[4200];

		snprintf(path, sizeof path, "%s/%s", dir, IDX0);
		if (truncate(path, (off_t)1 << 30) < 0)
			diag("truncate: %s", strerror(errno));
	}
	answers_hold("an index of 1 GiB");
	said_once("an index of 1 GiB", "too large");

	unlinkat(dirfd_, IDX0, 0);
	mkfifoat(dirfd_, IDX0, 0644);
	answers_hold("a FIFO for an index (no hang)");
	said_once("a FIFO", "not a regular file (a FIFO)");

	unlinkat(dirfd_, IDX0, 0);
	ok(symlinkat("../" FILE0, dirfd_, IDX0) == 0, "a link planted");
	answers_hold("a symbolic link for an index");
	said_once("a symbolic link", "a symbolic link, not followed");

	unlinkat(dirfd_, IDX0, 0);
	mkdirat(dirfd_, IDX0, 0755);
	answers_hold("a directory for an index");
	said_once("a directory", "not a regular file (a directory)");
	ok(size_of(IDX0) >= 0 && unlinkat(dirfd_, IDX0, AT_REMOVEDIR) == 0,
	    "  the directory left as it was");

	/* Whoever else may have written an index could have given it line
	 * numbers that are consistent but false: only this user's own. */
	rewrite_index(good, n);
	ok(fchmodat(dirfd_, IDX0, 0666, 0) == 0, "made writable by all");
	answers_hold("an index every user may write");
	said_once("writable by all", "writable by other users");
	{
		struct stat st;

		ok(fstatat(dirfd_, IDX0, &st, 0) == 0 &&
		    (st.st_mode & 0777) == 0644, "  made again, writable by its "
		    "user only");
	}
	rewrite_index(good, n);
	ok(fchmodat(dirfd_, IDX0, 0664, 0) == 0, "made writable by its group");
	answers_hold("an index its group may write");
	said_once("writable by its group", "writable by other users");
	{
		/* Once for each set of what was said (a line reader's, for
		 * all the indexes it looks at): a second count adding to
		 * the same set says nothing of the same refusal. */
		struct tmq_pidx_said *ss = tmq_pidx_said_new();
		struct tmq_pscan s2;

		rewrite_index(good, n);
		if (fchmodat(dirfd_, IDX0, 0664, 0) < 0)
			perror("chmod"), exit(99);
		ok(ss != NULL && count_said(&s2, ss) == 0 && nsaid == 1,
		    "  a count with a set of what was said says it (%d)",
		    nsaid);
		rewrite_index(good, n);
		if (fchmodat(dirfd_, IDX0, 0664, 0) < 0)
			perror("chmod"), exit(99);
		ok(count_said(&s2, ss) == 0 && nsaid == 1 &&
		    s2.lines == nlines + 1, "  a second with the same set: "
		    "refused for the same reason, not said again");
		rewrite_index(good, n);
		if (fchmodat(dirfd_, IDX0, 0664, 0) < 0)
			perror("chmod"), exit(99);
		ok(count(&s2) == 0 && nsaid == 2, "  one without it says it "
		    "again");
		nsaid = 0;
		tmq_pidx_said_free(ss);
	}
	{
		/* One line reader of a topic with its set says a refusal
		 * once, however many of its looks meet the index, each with
		 * an index object of its own: a seek into the file, one into the next file (which
		 * counts this one's end from its index, to check that the
		 * two chain), one back.  A directory in the index's place:
		 * refused each time, never replaced. */
		struct tmq_linereader r;
		struct tmq_line l;
		char f1[64], line[8192];
		size_t ln;
		int looks_ok;

		snprintf(f1, sizeof f1, "0-20261126_%zu.tmf", nlines + 1);
		ln = mkline(line, sizeof line, 1, T0 + 86400, 30);
		append(f1, line, ln);
		append(f1, line, ln);
		unlinkat(dirfd_, IDX0, 0);
		mkdirat(dirfd_, IDX0, 0755);
		nsaid = 0;
		e.msg[0] = '\0';
		top.said = tmq_pidx_said_new();
		looks_ok = tmq_lr_open(&r, &top, 0, 2, &e) == 0 &&
		    tmq_lr_seek(&r, 5, NULL, &e) == 0 &&
		    tmq_lr_next(&r, &l, &e) == 1 && l.offset == 5 &&
		    tmq_lr_seek(&r, nlines + 2, NULL, &e) == 0 &&
		    tmq_lr_next(&r, &l, &e) == 1 && l.offset == nlines + 2 &&
		    tmq_lr_seek(&r, 7, NULL, &e) == 0 &&
		    tmq_lr_next(&r, &l, &e) == 1 && l.offset == 7;
		if (!looks_ok)
			diag("%s", e.msg);
		tmq_lr_close(&r);
		tmq_pidx_said_free(top.said);
		top.said = NULL;
		ok(looks_ok, "a line reader's three seeks, across two files, "
		    "land right");
		said_once("  a line reader's", "not a regular file (a "
		    "directory)");
		unlinkat(dirfd_, f1, 0);
		unlinkat(dirfd_, IDX0, AT_REMOVEDIR);
	}
	rewrite_index(good, n);
	if (linkat(dirfd_, IDX0, dirfd_, ".tmq/elsewhere", 0) == 0) {
		/* (as GlusterFS's bricks have every file: used) */
		nsaid = 0;
		answers_hold("an index with a second link");
		ok(nsaid == 0, "  nothing said");
		unlinkat(dirfd_, ".tmq/elsewhere", 0);
	}
	rewrite_index(good, n);
	if (geteuid() == 0 && fchownat(dirfd_, IDX0, 4242, 4242, 0) == 0) {
		struct stat st;

		answers_hold("another user's index");
		said_once("another user's", "not written by this user");
		ok(fstatat(dirfd_, IDX0, &st, 0) == 0 && st.st_uid == 0,
		    "  made again, this user's");
	} else
		skip("another user's index: needs root to make one");

	/* Without the index at all: the same answers (TMQ_INDEX=off is the
	 * tests' full scan). */
	setenv("TMQ_INDEX", "off", 1);
	answers_hold("TMQ_INDEX=off");
	unsetenv("TMQ_INDEX");

	/* Removed with its file (prune). */
	ok(tmq_pidx_remove(dirfd_, FILE0) == 0 && size_of(IDX0) < 0,
	    "tmq_pidx_remove removes a file's index");
	ok(tmq_pidx_remove(dirfd_, FILE0) == 0, "and is fine when it is gone");
	ok(count(&s) == 0 && size_of(IDX0) > 0, "a count makes it again");
	unlinkat(dirfd_, "1-20261125_0.tmf", 0);
	fd = openat(dirfd_, idx1, O_WRONLY | O_CREAT, 0644);
	close(fd);
	{
		/* Temporaries (replace.h), and an older tmq's without the
		 * dot: of the file gone, and of the one there. */
		char t1[96], t1old[96], t0[96];

		snprintf(t1, sizeof t1, ".tmq/.%s.12.00ab.tmp", idx1 + 5);
		snprintf(t1old, sizeof t1old, ".tmq/%s.12.00ab.tmp", idx1 + 5);
		snprintf(t0, sizeof t0, ".tmq/.%s.12.00ab.tmp", IDX0 + 5);
		close(openat(dirfd_, t1, O_WRONLY | O_CREAT, 0644));
		close(openat(dirfd_, t1old, O_WRONLY | O_CREAT, 0644));
		close(openat(dirfd_, t0, O_WRONLY | O_CREAT, 0644));
		ok(tmq_pidx_sweep(dirfd_) == 0 && size_of(idx1) < 0 &&
		    size_of(IDX0) > 0, "a sweep removes the index of a file "
		    "gone, and only that");
		ok(size_of(t1) < 0 && size_of(t1old) < 0,
		    "  and its temporaries");
		ok(size_of(t0) == 0, "  not those of a file there");
		unlinkat(dirfd_, t0, 0);
	}

	free(good);
	free(bad);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	tmq_codec_free(&codec);
	return done_testing();
}
