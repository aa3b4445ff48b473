/* t-linereader.c: lib/store/linereader, reading a partition across its day
 * files in a scratch topic directory: offsets across files, a last line
 * that is still being written (never returned half), an unterminated tail
 * in an older file (returned with a problem; it takes its offset), seeking
 * by offset (also before the first file), to the end and by time, a cut
 * last line for a reader that stops there (tmq_lr_cut_tail), lines over the
 * 64 KiB buffer (reported, with memory staying bounded), and holes (a
 * sparse file): each inside the line around it, that line reported with the
 * hole's bytes, offsets as a dense file has them, and the hole itself never
 * read (what the process read is counted), read as cached or direct. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/directread.h"
#include "store/linereader.h"
#include "codec/message.h"
#include "tap.h"

#define D25 1795564800.0	/* 2026-11-25T00:00:00Z */
#define D26 (D25 + 86400)
#define D27 (D26 + 86400)
#define LR_BUFSZ (64 * 1024)	/* linereader.c's buffer */

static struct tmq_codec codec;
static int dirfd_;
/* The topic's name, as callers give it: the scratch directory's. */
static const char *topic_;
static struct tmq_topic top;

/* Append bytes to a file of the topic directory. */
static void
put(const char *name, const void *data, size_t n)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0 || write(fd, data, n) != (ssize_t)n) {
		perror(name);
		exit(99);
	}
	close(fd);
}

/* A real line (u16 key, newline included) with this timestamp. */
static const char *
mkline(unsigned key, double ts, const char *text)
{
	static char lines[64][128];
	static int next;
	struct tmq_payload p = { TMQ_TEXT, 0, (const unsigned char *)text,
	    strlen(text) };
	unsigned char k[2] = { (unsigned char)(key >> 8), (unsigned char)key };
	struct tmq_error e;
	char *out = lines[next++ % 64];
	long n;

	n = tmq_line_encode(&codec, 2, k, ts, &p, out, 127, &e);
	if (n < 0) {
		diag("encode: %s", e.msg);
		exit(99);
	}
	out[n] = '\0';
	return out;
}

static void
putline(const char *name, const char *line)
{
	put(name, line, strlen(line));
}

static void
open_reader(struct tmq_linereader *r, unsigned partition)
{
	struct tmq_error e;

	if (tmq_lr_open(r, &top, partition, 2, &e) < 0) {
		diag("open: %s", e.msg);
		exit(99);
	}
}

/* The next line must be this one (without its newline), at this offset. */
static void
next_is(struct tmq_linereader *r, const char *want, uint64_t offset,
    const char *problem, const char *what)
{
	struct tmq_error e = { 0 };
	struct tmq_line l;
	int rc;

	rc = tmq_lr_next(r, &l, &e);
	if (!is_int(rc, 1, "%s: a line", what)) {
		if (rc < 0)
			diag("error: %s", e.msg);
		return;
	}
	is_u64(l.offset, offset, "%s: offset %llu", what,
	    (unsigned long long)offset);
	if (want != NULL)
		is_mem(l.p, l.n, want, strlen(want) - (want[0] &&
		    want[strlen(want) - 1] == '\n'), "%s: its text", what);
	if (problem == NULL)
		ok(l.problem == NULL, "%s: no problem (%s)", what,
		    l.problem ? l.problem : "none");
	else
		is_str(l.problem, problem, "%s: problem", what);
}

static void
next_none(struct tmq_linereader *r, const char *what)
{
	struct tmq_error e = { 0 };
	struct tmq_line l;

	is_int(tmq_lr_next(r, &l, &e), 0, "%s: no line yet", what);
}

static void
seek(struct tmq_linereader *r, uint64_t offset, uint64_t want_gap)
{
	struct tmq_error e = { 0 };
	uint64_t gap = 12345;

	if (!is_int(tmq_lr_seek(r, offset, &gap, &e), 0, "seek to %llu",
	    (unsigned long long)offset))
		diag("error: %s", e.msg);
	is_u64(gap, want_gap, "... gap_to is %llu", (unsigned long long)want_gap);
}

static void
seek_time(struct tmq_linereader *r, double t)
{
	struct tmq_error e = { 0 };

	if (!is_int(tmq_lr_seek_time(r, t, &e), 0, "seek to time %.1f", t))
		diag("error: %s", e.msg);
}

static void
seek_end(struct tmq_linereader *r)
{
	struct tmq_error e = { 0 };

	if (!is_int(tmq_lr_seek_end(r, &e), 0, "seek to the end"))
		diag("error: %s", e.msg);
}

/* Make a file of the topic directory longer by a hole of n bytes. */
static void
hole(const char *name, off_t n)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT, 0644);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || ftruncate(fd, st.st_size + n) < 0) {
		perror(name);
		exit(99);
	}
	close(fd);
}

/* The holes of a file from byte pos, as the filesystem says: the first
 * one's start and the bytes up to the data after it (or the end). */
static void
hole_at(const char *name, off_t pos, uint64_t *at, uint64_t *bytes)
{
	int fd = openat(dirfd_, name, O_RDONLY);
	off_t h, d;

	h = lseek(fd, pos, SEEK_HOLE);
	d = lseek(fd, h, SEEK_DATA);
	if (d < 0)
		d = lseek(fd, 0, SEEK_END);
	close(fd);
	*at = (uint64_t)h;
	*bytes = (uint64_t)(d - h);
}

/* The problem a line with that hole has. */
static const char *
hole_problem(const char *name, off_t pos)
{
	static char buf[4][160];
	static int next;
	uint64_t at, bytes;
	char *out = buf[next++ % 4];

	hole_at(name, pos, &at, &bytes);
	snprintf(out, sizeof buf[0], "%s: %llu bytes of holes at byte %llu "
	    "skipped", name, (unsigned long long)bytes, (unsigned long long)at);
	return out;
}

/* What this process has read so far (rchar). */
static uint64_t
bytes_read(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	unsigned long long v = 0;
	char key[32];

	while (f != NULL && fscanf(f, "%31s %llu", key, &v) == 2 &&
	    strcmp(key, "rchar:") != 0)
		;
	if (f != NULL)
		fclose(f);
	return v;
}

#define GIB ((off_t)1 << 30)

/* Partitions 13 to 17: files with holes of 1 GiB, read as TMQ_READ says. */
static void
sparse_files(const char **L, const char *how)
{
	struct tmq_linereader r;
	struct tmq_error e = { 0 };
	struct tmq_line l;
	struct tmq_holes hs;
	uint64_t before, end, lines;
	char what[64];
	int fd, partial, rc;

	/* p13: a line that is all hole, ended by its newline, between
	 * good lines; then a newer file. */
	before = bytes_read();
	open_reader(&r, 13);
	snprintf(what, sizeof what, "p13 (%s): the line before", how);
	next_is(&r, L[0], 0, NULL, what);
	snprintf(what, sizeof what, "p13 (%s): the hole's line", how);
	next_is(&r, NULL, 1, hole_problem("13-20261125_0.tmf", 0), what);
	snprintf(what, sizeof what, "p13 (%s): the lines after", how);
	next_is(&r, L[2], 2, NULL, what);
	next_is(&r, L[3], 3, NULL, what);
	snprintf(what, sizeof what, "p13 (%s): the newer file", how);
	next_is(&r, L[4], 4, NULL, what);
	next_none(&r, what);
	end = 0;
	rc = tmq_lr_end(&r, &end, &e);
	ok(rc == 0 && end == 5, "p13 (%s): the end is 5 (%llu)", how,
	    (unsigned long long)end);
	seek(&r, 3, 3);
	snprintf(what, sizeof what, "p13 (%s): seek past the hole", how);
	next_is(&r, L[3], 3, NULL, what);
	seek_end(&r);
	is_u64(tmq_lr_offset(&r), 5, "p13 (%s): seek_end: 5", how);
	tmq_lr_close(&r);
	fd = openat(dirfd_, "13-20261125_0.tmf", O_RDONLY);
	memset(&hs, 0, sizeof hs);
	rc = tmq_dr_count_lines(fd, 0, &lines, &partial, &hs);
	ok(rc == 0 && lines == 4 && !partial && hs.bytes > GIB - 8192 &&
	    hs.bytes <= GIB, "p13 (%s): 4 lines counted, the hole summed "
	    "(%llu bytes)", how, (unsigned long long)hs.bytes);
	close(fd);
	ok(bytes_read() - before < 1024 * 1024, "p13 (%s): the hole passed 5 "
	    "times, %llu bytes read", how,
	    (unsigned long long)(bytes_read() - before));

	/* p14: a file that starts with a hole. */
	open_reader(&r, 14);
	snprintf(what, sizeof what, "p14 (%s): a hole from byte 0", how);
	next_is(&r, NULL, 0, hole_problem("14-20261125_0.tmf", 0), what);
	snprintf(what, sizeof what, "p14 (%s): the line after", how);
	next_is(&r, L[1], 1, NULL, what);
	tmq_lr_close(&r);

	/* p15: a hole of one block inside a short line: still the line's,
	 * whose bytes (with the hole's NULs) are within the buffer. */
	open_reader(&r, 15);
	snprintf(what, sizeof what, "p15 (%s): a short line with a hole", how);
	next_is(&r, NULL, 0, hole_problem("15-20261125_0.tmf", 0), what);
	snprintf(what, sizeof what, "p15 (%s): the line after", how);
	next_is(&r, L[1], 1, NULL, what);
	tmq_lr_close(&r);

	/* p16: the newest file ends in a hole: a last line without its
	 * newline, reported with its hole once it stays so. */
	before = bytes_read();
	open_reader(&r, 16);
	snprintf(what, sizeof what, "p16 (%s): the line before", how);
	next_is(&r, L[0], 0, NULL, what);
	snprintf(what, sizeof what, "p16 (%s): a hole at the end", how);
	next_none(&r, what);
	l.problem = NULL;
	rc = tmq_lr_cut_tail(&r, &l, &e);
	ok(rc == 1 && l.offset == 1 && l.problem != NULL &&
	    strcmp(l.problem, hole_problem("16-20261125_0.tmf", 0)) == 0,
	    "p16 (%s): the cut tail is the hole's line: %s", how,
	    rc == 1 && l.problem ? l.problem : e.msg);
	end = 0;
	rc = tmq_lr_end(&r, &end, &e);
	ok(rc == 0 && end == 1, "p16 (%s): the end is 1 (%llu: a line being "
	    "written)", how, (unsigned long long)end);
	tmq_lr_close(&r);
	ok(bytes_read() - before < 1024 * 1024, "p16 (%s): the hole passed 3 "
	    "times, %llu bytes read", how,
	    (unsigned long long)(bytes_read() - before));

	/* p17: an older file that ends in a hole: an unterminated line. */
	open_reader(&r, 17);
	snprintf(what, sizeof what, "p17 (%s): an older file's hole", how);
	next_is(&r, NULL, 0, hole_problem("17-20261125_0.tmf", 0), what);
	snprintf(what, sizeof what, "p17 (%s): the newer file", how);
	next_is(&r, L[1], 1, NULL, what);
	tmq_lr_close(&r);
}

/* Remove the scratch directory (flat, plus one subdirectory). */
static void
cleanup(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    unlinkat(dirfd(d), de->d_name, 0) < 0)
			unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	closedir(d);
	rmdir(dir);
}

int
main(void)
{
	struct tmq_linereader r;
	struct tmq_error e;
	const char *tmp = getenv("TMPDIR"), *L[8], *line;
	char dir[4096];
	static char big[1536 * 1024];
	size_t i;

	if (tmq_codec_init(&codec, &e) < 0)
		return 99;
	snprintf(dir, sizeof dir, "%s/t-linereader.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL || (dirfd_ = open(dir, O_RDONLY |
	    O_DIRECTORY)) < 0) {
		perror(dir);
		return 99;
	}
	topic_ = strrchr(dir, '/') + 1;
	top.name = (char *)topic_;
	top.dirfd = dirfd_;
	top.key_width = 2;

	/* Partition 0: two day files, and names that are not partition files. */
	for (i = 0; i < 8; i++)
		L[i] = mkline((unsigned)i, D25 + (double)i, i % 2 ? "odd" : "even");
	putline("0-20261125_0.tmf", L[0]);
	putline("0-20261125_0.tmf", L[1]);
	putline("0-20261125_0.tmf", L[2]);
	putline("0-20261126_3.tmf", L[3]);
	putline("0-20261126_3.tmf", L[4]);
	put("0-junk", "x\n", 2);
	put("0-20261127_9.tmf.tmp", "x\n", 2);
	mkdirat(dirfd_, ".tmq", 0755);

	open_reader(&r, 0);
	is_int(r.nfiles, 2, "partition 0 has two files");
	is_u64(tmq_lr_offset(&r), 0, "a new reader starts at offset 0");
	next_is(&r, L[0], 0, NULL, "first line");
	next_is(&r, L[1], 1, NULL, "second line");
	next_is(&r, L[2], 2, NULL, "last line of the first file");
	next_is(&r, L[3], 3, NULL, "first line of the second file");
	next_is(&r, L[4], 4, NULL, "last line");
	next_none(&r, "at the end");
	is_u64(tmq_lr_offset(&r), 5, "the next offset is 5");

	/* A last line with no newline yet is not a message yet. */
	line = L[5];
	put("0-20261126_3.tmf", line, 10);
	next_none(&r, "first part of a line written");
	put("0-20261126_3.tmf", line + 10, strlen(line) - 11);
	next_none(&r, "all but the newline written");
	is_u64(tmq_lr_offset(&r), 5, "the partial line took no offset");
	put("0-20261126_3.tmf", "\n", 1);
	next_is(&r, line, 5, NULL, "the line, once its newline is written");
	next_none(&r, "after it");
	tmq_lr_close(&r);

	/* Partition 1: an unterminated tail in an older file is final. */
	putline("1-20261125_0.tmf", L[0]);
	putline("1-20261125_0.tmf", L[1]);
	put("1-20261125_0.tmf", "tail", 4);
	putline("1-20261126_3.tmf", L[3]);
	open_reader(&r, 1);
	next_is(&r, L[0], 0, NULL, "p1: first line");
	next_is(&r, L[1], 1, NULL, "p1: second line");
	next_is(&r, "tail", 2, "unterminated line", "p1: unterminated tail");
	next_is(&r, L[3], 3, NULL, "p1: the newer file goes on at 3");
	next_none(&r, "p1: at the end");
	tmq_lr_close(&r);

	/* Partition 2: a tail completed just before a newer file appeared. */
	putline("2-20261125_0.tmf", L[0]);
	put("2-20261125_0.tmf", L[1], 7);
	open_reader(&r, 2);
	next_is(&r, L[0], 0, NULL, "p2: first line");
	next_none(&r, "p2: partial line");
	put("2-20261125_0.tmf", L[1] + 7, strlen(L[1]) - 7);
	putline("2-20261126_2.tmf", L[2]);
	next_is(&r, L[1], 1, NULL, "p2: the line completed before the new file");
	next_is(&r, L[2], 2, NULL, "p2: then the new file");
	tmq_lr_close(&r);

	/* Partition 3: a partial line stays partial, then a newer file. */
	putline("3-20261125_0.tmf", L[0]);
	put("3-20261125_0.tmf", L[1], 7);
	open_reader(&r, 3);
	next_is(&r, L[0], 0, NULL, "p3: first line");
	next_none(&r, "p3: partial line, no newer file");
	putline("3-20261126_2.tmf", L[2]);
	{
		char head[8];

		memcpy(head, L[1], 7);
		head[7] = '\0';
		next_is(&r, head, 1, "unterminated line",
		    "p3: the partial line, once a newer file exists");
	}
	next_is(&r, L[2], 2, NULL, "p3: then the new file's line");
	tmq_lr_close(&r);

	/* Partition 12: a last line without its newline, for a reader that
	 * stops there (tmq-dump): one that grew since it was read is read on;
	 * one that stays so is handed out as cut. */
	putline("12-20261125_0.tmf", L[0]);
	put("12-20261125_0.tmf", L[1], 7);
	open_reader(&r, 12);
	next_is(&r, L[0], 0, NULL, "p12: first line");
	next_none(&r, "p12: partial line");
	put("12-20261125_0.tmf", L[1] + 7, 3);
	{
		struct tmq_line l;
		char head[11];

		is_int(tmq_lr_cut_tail(&r, &l, &e), 2,
		    "p12: a tail that grew since it was read: read on");
		next_none(&r, "p12: still partial");
		is_int(tmq_lr_cut_tail(&r, &l, &e), 1,
		    "p12: a tail that stays as it is: cut");
		memcpy(head, L[1], 10);
		head[10] = '\0';
		is_int((int)l.n, 10, "p12: the cut line is all of the tail");
		ok(memcmp(l.p, head, 10) == 0, "p12: ... as it is in the file");
		is_u64(l.offset, 1, "p12: ... at the next offset");
		is_str(l.problem, "last line without its newline (10 bytes): "
		    "cut short", "p12: ... with its problem");
		next_none(&r, "p12: then nothing");
		is_int(tmq_lr_cut_tail(&r, &l, &e), 0, "p12: and no tail");
	}
	tmq_lr_close(&r);
	/* Partition 0 has no tail at its end. */
	open_reader(&r, 0);
	seek_end(&r);
	{
		struct tmq_line l;

		is_int(tmq_lr_cut_tail(&r, &l, &e), 0,
		    "p0: no tail at the end: nothing to wait for");
	}
	tmq_lr_close(&r);

	/* Seeking by offset in partition 0 (offsets 0..5). */
	open_reader(&r, 0);
	seek(&r, 4, 4);
	next_is(&r, L[4], 4, NULL, "seek 4");
	seek(&r, 1, 1);
	next_is(&r, L[1], 1, NULL, "seek back to 1");
	next_is(&r, L[2], 2, NULL, "and on to 2");
	seek(&r, 3, 3);
	next_is(&r, L[3], 3, NULL, "seek to a file's first line");
	seek(&r, 0, 0);
	next_is(&r, L[0], 0, NULL, "seek 0");
	seek(&r, 6, 6);
	next_none(&r, "seek to the end");
	is_u64(tmq_lr_offset(&r), 6, "offset after seeking to the end");
	putline("0-20261126_3.tmf", L[6]);
	next_is(&r, L[6], 6, NULL, "the line written after seeking to the end");
	ok(tmq_lr_seek(&r, 2, NULL, &e) == 0, "seek without gap_to");
	next_is(&r, L[2], 2, NULL, "seek 2");
	tmq_lr_close(&r);

	/* Partition 4: its first lines are gone; the first file starts at 10. */
	putline("4-20261125_10.tmf", L[0]);
	putline("4-20261125_10.tmf", L[1]);
	putline("4-20261126_12.tmf", L[2]);
	open_reader(&r, 4);
	is_u64(tmq_lr_offset(&r), 10, "p4: a new reader starts at 10");
	seek(&r, 3, 10);
	next_is(&r, L[0], 10, NULL, "p4: seek before the first file");
	seek(&r, 0, 10);
	next_is(&r, L[0], 10, NULL, "p4: seek 0");
	seek(&r, 11, 11);
	next_is(&r, L[1], 11, NULL, "p4: seek 11");
	seek(&r, 12, 12);
	next_is(&r, L[2], 12, NULL, "p4: seek 12, in the second file");
	tmq_lr_close(&r);

	/* Partition 5: no files yet. */
	open_reader(&r, 5);
	next_none(&r, "p5: no files");
	seek(&r, 7, 7);
	next_none(&r, "p5: seek in an empty partition");
	is_u64(tmq_lr_offset(&r), 7, "p5: offset after the seek");
	putline("5-20261127_7.tmf", L[7]);
	next_is(&r, L[7], 7, NULL, "p5: the first line once written");
	tmq_lr_close(&r);

	/* Seeking to the end of partition 0 (offsets 0..6). */
	open_reader(&r, 0);
	seek_end(&r);
	is_u64(tmq_lr_offset(&r), 7, "seek_end: the next offset is 7");
	next_none(&r, "seek_end");
	putline("0-20261126_3.tmf", L[7]);
	next_is(&r, L[7], 7, NULL, "seek_end: the next line written");
	tmq_lr_close(&r);
	/* ... with a partial line at the end: it is not skipped. */
	put("0-20261126_3.tmf", L[0], 5);
	open_reader(&r, 0);
	seek_end(&r);
	is_u64(tmq_lr_offset(&r), 8, "seek_end over a partial line: offset 8");
	next_none(&r, "seek_end over a partial line");
	put("0-20261126_3.tmf", L[0] + 5, strlen(L[0]) - 5);
	next_is(&r, L[0], 8, NULL, "seek_end: the partial line, completed");
	tmq_lr_close(&r);

	/* Partition 6: seeking by time over three day files. */
	putline("6-20261125_0.tmf", mkline(0, D25 + 100, "a"));
	putline("6-20261125_0.tmf", mkline(1, D25 + 200, "b"));
	putline("6-20261126_2.tmf", mkline(2, D26 + 100, "c"));
	putline("6-20261126_2.tmf", mkline(3, D26 + 200, "d"));
	putline("6-20261127_4.tmf", mkline(4, D27 + 100, "e"));
	putline("6-20261127_4.tmf", mkline(5, D27 + 200, "f"));
	open_reader(&r, 6);
	seek_time(&r, D26 + 150);
	next_is(&r, NULL, 3, NULL, "time between two lines: the later one");
	next_is(&r, NULL, 4, NULL, "and on");
	seek_time(&r, D26 + 100);
	next_is(&r, NULL, 2, NULL, "time of a line: that line");
	seek_time(&r, D25 + 150);
	next_is(&r, NULL, 1, NULL, "time in the first file");
	seek_time(&r, 0);
	next_is(&r, NULL, 0, NULL, "time before everything: offset 0");
	seek_time(&r, D27 + 200);
	next_is(&r, NULL, 5, NULL, "time of the last line");
	next_none(&r, "then nothing");
	seek_time(&r, D27 + 1000);
	next_none(&r, "time after everything");
	putline("6-20261127_4.tmf", mkline(6, D27 + 900, "g"));
	next_none(&r, "a later line still older than the time");
	putline("6-20261127_4.tmf", mkline(7, D27 + 2000, "h"));
	next_is(&r, NULL, 7, NULL, "the first line at or after the time");
	tmq_lr_close(&r);

	/* Partition 7: a producer's clock ahead put a day-27 time in the
	 * day-26 file; seeking to day 27 still finds it. */
	putline("7-20261126_0.tmf", mkline(0, D26 + 100, "a"));
	putline("7-20261126_0.tmf", mkline(1, D27 + 50, "skewed"));
	putline("7-20261127_2.tmf", mkline(2, D27 + 100, "b"));
	open_reader(&r, 7);
	seek_time(&r, D27 + 10);
	next_is(&r, NULL, 1, NULL, "skewed clock: the line in the older file");
	next_is(&r, NULL, 2, NULL, "skewed clock: then the newer file");
	tmq_lr_close(&r);

	/* Partition 8: a line far over 64 KiB among ordinary ones. */
	memset(big, 'x', sizeof big);
	putline("8-20261125_0.tmf", L[0]);
	put("8-20261125_0.tmf", big, sizeof big);
	put("8-20261125_0.tmf", "\n", 1);
	putline("8-20261125_0.tmf", L[2]);
	open_reader(&r, 8);
	next_is(&r, L[0], 0, NULL, "p8: the line before");
	next_is(&r, NULL, 1, "line too long", "p8: a 1.5 MiB line");
	next_is(&r, L[2], 2, NULL, "p8: the line after");
	is_int(r.cap, LR_BUFSZ, "p8: the buffer stayed at 64 KiB");
	next_none(&r, "p8: at the end");
	ok(r.buf == NULL && r.cap == 0, "p8: at the end, with nothing in it, "
	    "the buffer is let go");
	putline("8-20261125_0.tmf", L[3]);
	next_is(&r, L[3], 3, NULL, "p8: a line written later, in a new one");
	tmq_lr_close(&r);

	/* Partition 9: the longest line that fits, and one byte more. */
	putline("9-20261125_0.tmf", L[0]);
	memset(big, 'y', LR_BUFSZ - 1);
	big[LR_BUFSZ - 1] = '\n';
	put("9-20261125_0.tmf", big, LR_BUFSZ);
	memset(big, 'z', LR_BUFSZ);
	big[LR_BUFSZ] = '\n';
	put("9-20261125_0.tmf", big, LR_BUFSZ + 1);
	putline("9-20261125_0.tmf", L[3]);
	open_reader(&r, 9);
	next_is(&r, L[0], 0, NULL, "p9: a short line");
	{
		struct tmq_line l;

		ok(tmq_lr_next(&r, &l, &e) == 1 && l.offset == 1 &&
		    l.problem == NULL && l.n == LR_BUFSZ - 1 &&
		    l.p[0] == 'y' && l.p[l.n - 1] == 'y',
		    "p9: a line of 64 KiB - 1 bytes is read whole");
	}
	next_is(&r, NULL, 2, "line too long", "p9: a line of 64 KiB is too long");
	next_is(&r, L[3], 3, NULL, "p9: the line after");
	tmq_lr_close(&r);

	/* Partition 10: an overlong line still being written. */
	putline("10-20261125_0.tmf", L[0]);
	memset(big, 'w', sizeof big);
	put("10-20261125_0.tmf", big, 70000);
	open_reader(&r, 10);
	next_is(&r, L[0], 0, NULL, "p10: the line before");
	next_none(&r, "p10: an overlong line without its newline");
	put("10-20261125_0.tmf", big, 70000);
	next_none(&r, "p10: still without its newline");
	put("10-20261125_0.tmf", "\n", 1);
	putline("10-20261125_0.tmf", L[2]);
	next_is(&r, NULL, 1, "line too long", "p10: the overlong line, ended");
	next_is(&r, L[2], 2, NULL, "p10: the line after");
	is_int(r.cap, LR_BUFSZ, "p10: the buffer stayed at 64 KiB");
	tmq_lr_close(&r);

	/* Partition 11: an overlong unterminated tail in an older file. */
	put("11-20261125_0.tmf", big, 70000);
	putline("11-20261126_1.tmf", L[1]);
	open_reader(&r, 11);
	next_is(&r, NULL, 0, "line too long", "p11: the overlong tail");
	next_is(&r, L[1], 1, NULL, "p11: the newer file");
	next_none(&r, "p11: at the end");
	tmq_lr_close(&r);

	/* Partitions 13 to 17: holes. */
	putline("13-20261125_0.tmf", L[0]);
	hole("13-20261125_0.tmf", GIB);
	put("13-20261125_0.tmf", "\n", 1);
	putline("13-20261125_0.tmf", L[2]);
	putline("13-20261125_0.tmf", L[3]);
	putline("13-20261126_4.tmf", L[4]);
	hole("14-20261125_0.tmf", GIB);
	put("14-20261125_0.tmf", "\n", 1);
	putline("14-20261125_0.tmf", L[1]);
	put("15-20261125_0.tmf", "abc", 3);
	hole("15-20261125_0.tmf", 8192 - 3);
	put("15-20261125_0.tmf", "def\n", 4);
	putline("15-20261125_0.tmf", L[1]);
	putline("16-20261125_0.tmf", L[0]);
	hole("16-20261125_0.tmf", GIB);
	hole("17-20261125_0.tmf", GIB);
	putline("17-20261126_1.tmf", L[1]);
	{
		struct stat st;

		if (fstatat(dirfd_, "13-20261125_0.tmf", &st, 0) == 0 &&
		    (off_t)st.st_blocks * 512 < GIB / 2) {
			sparse_files(L, "cached");
			setenv("TMQ_READ", "direct", 1);
			sparse_files(L, "direct");
			unsetenv("TMQ_READ");
		} else
			skip("the filesystem of %s keeps no holes", dir);
	}

	/* tmq_dr_line_start: where a file's last line begins, read back a
	 * block at a time (appender.c and offsetcopy.c, for a cut line). */
	{
		static char blk[200 * 1024];
		off_t st = -1;
		int fd;

		memset(blk, 'a', sizeof blk);
		blk[100] = '\n';
		blk[70000] = '\n';	/* past the first 64 KiB block back */
		put("ls.bin", blk, sizeof blk);
		fd = openat(dirfd_, "ls.bin", O_RDONLY);
		ok(fd >= 0 && tmq_dr_line_start(fd, 0, (off_t)sizeof blk,
		    &st) == 0 && st == 70001, "a last line longer than two "
		    "64 KiB blocks begins after its newline");
		ok(tmq_dr_line_start(fd, 0, 70001, &st) == 0 && st == 70001,
		    "a file that ends in a newline: its last line begins at "
		    "its end");
		ok(tmq_dr_line_start(fd, 0, 70000, &st) == 0 && st == 101,
		    "the newline before");
		ok(tmq_dr_line_start(fd, 0, 100, &st) == 0 && st == 0,
		    "no newline: at 0");
		ok(tmq_dr_line_start(fd, 0, 0, &st) == 0 && st == 0,
		    "an empty file: at 0");
		close(fd);
		unlinkat(dirfd_, "ls.bin", 0);
	}

	close(dirfd_);
	cleanup(dir);
	tmq_codec_free(&codec);
	return done_testing();
}
