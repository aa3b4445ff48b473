/* partindex.h: the sparse index beside each partition file.
 *
 * A partition's offsets are line numbers, so every look at a partition
 * that is not "from the start" (an offset, the last N, a time, its end)
 * would count the lines of a day file from its first byte: a busy day file
 * of gigabytes made every seek, resume, describe and metrics scrape read
 * all of it.  The index maps line numbers to byte positions, one entry
 * about every TMQ_PIDX_STEP bytes of the file, with what a seek by time
 * needs, so that each of those looks reads what is near where it looks.
 *
 * Where: TOPIC/.tmq/P-YYYYMMDD_FIRST.UID.idx beside TOPIC/P-YYYYMMDD_FIRST.tmf,
 * one index a partition file and user (UID, in decimal: below): files are
 * appended to and pruned one by one, and so is each index (prune removes
 * a file's with it); .tmq is the
 * dot-folder where the TwainMQ library never looks (tmq-format(5), "Files
 * of tmq's own"), and whose files a topic's delete removes.
 *
 * The file: a header naming the partition file, the topic and a hash of
 * the file's first bytes; a stamp of the file's size and change time; then
 * fixed-size records, each a line number, a byte position, a maxts and a
 * hash of the 32 bytes before the position, each sealed with a checksum.
 * Its encoding, and the checks that need no file, are lib/codec/partidx.h
 * (pure, unit-tested alone: t-partidx); this file does the files.
 *
 * Why so.  Fixed-size records are appended with one write(2) each batch,
 * so a reader sees whole records or a short tail it leaves aside, and a
 * record is found by its number (binary search: a lookup reads about
 * log2(records) of them, whatever the file's size).  One record every 64
 * KiB is 32 bytes per 65,536: 0.05% of the data, and a lookup then reads
 * at most about 64 KiB of the partition file past the record it starts
 * from.  The file's identity is what a network filesystem keeps: device
 * and inode numbers are not stable there (nor across a restore), so it is
 * the name (partition, day, FIRST), the topic's name and key width
 * (an index moved from another topic's .tmq is not this one's), and a hash of
 * the file's first 4 KiB, which holds its first lines with their times
 * to the microsecond; each record also carries a hash of the 32 bytes
 * before its position, so that a record is checked against the very
 * bytes it describes when it is used.  One index a user: the line numbers
 * of a record are the one thing a use cannot check against the file (an
 * index with all of them shifted by one, each record sealed again, passes
 * every other check), so a reader uses only an index that no one but its
 * own user (and root) could have written: owned by it, writable by no
 * other; every user's readers index for that user.
 *
 * Who writes it: whoever reads.  The TwainMQ library's producers never
 * will, and a producer appending with O_APPEND does not learn where its
 * lines land; a reader that counts lines knows exactly.  So every reader
 * of a partition file (tmq-get, a group member, tmq-dump, and what counts
 * ends: tmq-topic info and list, tmq-group describe, the metrics, a
 * producer starting a new day file) notes the entries it passes beyond
 * the index's last record and appends them: under an exclusive file lock
 * on the index (an open file description lock, taken without waiting, so
 * that a lock held by anyone delays no reader), after reading the last
 * record again, so that records stay in order; on a network or FUSE
 * filesystem, with fdatasync(2) before the lock is let go, and read there
 * with O_DIRECT (as partition files are: tmq(7), Shared file systems)
 * under a shared lock, tried for 200 ms at most: a writer tries for its
 * own for 20 ms, and a lock held longer only costs the index's records.  An index is made only for a file of at least one
 * step, the first time a reader passes its first entry.
 *
 * Never trusted blindly.  Files are only appended to, so a record once
 * true stays true for the file it was made for.  Before a record is used
 * its file is checked to be this file (the header's identity) and the
 * record itself to be whole (its checksum), in order with those around it
 * in the search, and to describe this file's bytes: the byte before its
 * position is a newline, its position is within the file, and the 32
 * bytes before it hash as it says.  An index that fails any of that, is
 * not a regular file, is larger than any index of a file that size, or
 * is not this user's alone (above), is ignored as absent: said once
 * (through notice.h, naming the topic by the name its caller gave, once
 * for each set of what was said the caller keeps: a line reader's), and
 * replaced by a reader that may
 * write .tmq, from what that reader counted itself.  A reader that may
 * not write reads correctly, only without the speed-up (what it learnt is
 * kept in memory while it runs).  What the checks cannot see is an index
 * of this user's own with consistent but false line numbers (a bug, or
 * the user's own hand): tmq-dump --verify checks every record against the
 * file and replaces an index that is wrong.
 *
 * A file rewritten in place.  Anyone who may append to a partition file
 * may also rewrite it in place (two lines merged into one of the same
 * length, between records, shift every line number after them), and no
 * check of a record's own bytes sees that.  What does: the file's change
 * time, which no user can set, and its size.  The stamp holds both as
 * this user's reader last saw them; each writer of the index rewrites it
 * under the index's lock, and a reader that finds the file grown rewrites
 * it too (a file's honest writes only append).  A file whose change time
 * is not the stamp's while its size is not larger was written to in place
 * (or truncated, or had its modes changed): its index is refused, said
 * once, and made again by counting.  What this cannot see is a rewrite in
 * place together with an append before this user's next look; that is
 * what tmq-dump --verify, which reads every line, is for.  An index of
 * version 1 (no stamp) is replaced without a word.
 *
 * Seeking by time with maxts, exactly as a full scan.  tmq_lr_seek_time
 * (linereader.h) reads a file from its start and stops at the first line
 * that has no problem (no hole, not too long, ended by its newline), whose
 * time decodes, and whose time is not below T (a NaN is not below T).
 * Let E be a record of that file with maxts(E) < T.  Every line before E's
 * position with no problem and a decodable time has a time at most
 * maxts(E) (NaN taken as +inf), so below T: the scan stops at none of
 * them, and reading from E's position finds the same line.  maxts only
 * grows along the file, so the records with maxts < T are a prefix of the
 * records, and the last of them (the nearest) is found by binary search.
 * Producers whose clocks disagree only make maxts larger than the times
 * around it, which moves the record found earlier: slower, never wrong.
 * The same holds file after file, and for the first line after T (strictly
 * above) with "not above T" in place of "below T". */
#ifndef TMQ_PARTINDEX_H
#define TMQ_PARTINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "store/partfile.h"
#include "codec/partidx.h"

/* What was said of indexes: each refusal (a file's name and why) once for
 * as long as whoever keeps the set (a line reader, for all the indexes
 * of its partition it looks at: tmq_pidx_init's said). */
struct tmq_pidx_said {
	uint64_t *h;
	size_t n, cap;
};
/* A new empty set (NULL when out of memory), and its end. */
struct tmq_pidx_said *tmq_pidx_said_new(void);
void tmq_pidx_said_free(struct tmq_pidx_said *s);

/* An entry learnt by a reader, with the hash of the 32 bytes before it
 * when the reader had them at hand (else they are read when it is
 * saved). */
struct tmq_pidx_mem {
	struct tmq_pidx_ent at;
	uint32_t win;
	int have_win;
};

/* One partition file's index as one reader knows it.  It holds no file
 * open between calls: a follower of thousands of partitions keeps its
 * descriptors for the partition files. */
struct tmq_pidx {
	int dirfd;			/* the topic directory (not owned) */
	const char *topic;		/* its name (not owned) */
	struct tmq_pidx_said *saidset;	/* what was said, or NULL */
	struct tmq_pfile pf;
	int key_width;
	int state;			/* partindex.c */
	int head_known;			/* head_hash holds the file's */
	uint64_t head_hash;		/* identity: XXH3 of its first 4 KiB */
	uint64_t topic_hash;		/* and of the topic's name */
	uint32_t seed;			/* the header's checksum, for records */
	struct tmq_pidx_ent last;	/* the index's last record, checked */
	int have_last;
	/* Entries learnt here beyond the index's records, in order; the
	 * first nsaved of them are on disk.  mem_from0: they were counted
	 * from the file's start, so that they can make an index anew. */
	struct tmq_pidx_mem *mem;
	size_t nmem, memcap, nsaved;
	int mem_from0;
	uint64_t due;			/* the next entry wanted at this byte */
	int nowrite;			/* .tmq cannot be written: stop trying */
	int said;			/* a refusal said (also in saidset) */
	int restamp;			/* the file grew since the stamp */
	int checking;			/* tmq-dump --verify's: every record
					 * is checked, whatever the stamp */
	int stale;			/* refused as another file's */
};

/* x for the partition file pf of the topic named topic (its directory
 * dirfd), both the caller's and kept as long as x: the name is in the
 * index's identity (an index moved from another topic's .tmq is not this
 * one's) and in what is said of it; NULL: no index.  said: the set of
 * what was said that x adds to (not owned), or NULL (x says each thing
 * once). */
void tmq_pidx_init(struct tmq_pidx *x, int dirfd, const char *topic,
    const struct tmq_pfile *pf, int key_width, struct tmq_pidx_said *said);
/* Save what was learnt (tmq_pidx_save with the file closed), then free. */
void tmq_pidx_free(struct tmq_pidx *x);

/* Where to start reading, fd being the partition file open for reading
 * as how says (directread.h); each never fails (an index that cannot be
 * used is absent), and gives {0, 0, -inf} when nothing nearer is known:
 *   floor_line: the nearest entry at or before line `line`;
 *   floor_time: the nearest entry whose maxts is below t (strict 0) or
 *     not above t (strict 1): where a seek to the first line at or after
 *     t (or after t, strict) starts;
 *   last: the last entry known, where a count to the end starts. */
void tmq_pidx_floor_line(struct tmq_pidx *x, int fd, int how, uint64_t line,
    struct tmq_pidx_ent *at);
void tmq_pidx_floor_time(struct tmq_pidx *x, int fd, int how, double t,
    int strict, struct tmq_pidx_ent *at);
void tmq_pidx_last(struct tmq_pidx *x, int fd, int how,
    struct tmq_pidx_ent *at);

/* Building.  A reader that counts from an entry (or the start) reports
 * the lines it passes: tmq_pidx_due says whether one at pos is wanted,
 * tmq_pidx_add takes it (a complete line at at->pos, after at->line
 * lines whose maxts is at->maxts; from0 when the count began at the
 * file's start; before: the 32 bytes of the file before at->pos, or NULL
 * when the reader has them no longer).  tmq_pidx_ts folds a line's time
 * into a running maxts. */
static inline int
tmq_pidx_due(const struct tmq_pidx *x, uint64_t pos)
{
	return pos >= x->due;
}
void tmq_pidx_add(struct tmq_pidx *x, const struct tmq_pidx_ent *at,
    int from0, const void *before);
/* Write what was learnt (best effort: nothing is said when it cannot
 * be); fd/how: the partition file, or -1 to open it. */
void tmq_pidx_save(struct tmq_pidx *x, int fd, int how);

/* The index file's name in .tmq for a partition file's name. */
void tmq_pidx_name(const char *pfname, char *out, size_t n);
/* Remove the index of the partition file pfname from the topic directory
 * dirfd (prune): 0, or -1 with errno (ENOENT is 0). */
int tmq_pidx_remove(int dirfd, const char *pfname);
/* Remove the indexes in dirfd's .tmq whose partition files are gone
 * (prune, after it removed or archived them; a rerun after a kill): 0, or
 * -1 with errno. */
int tmq_pidx_sweep(int dirfd);

/* Checking an index against its file, as tmq-dump --verify reads it: fed
 * every line of the file in order (its first byte pos, its length n
 * without the newline, whether it has a problem, its time when it has
 * one), it compares each record with what the lines are, and at the end
 * says what is wrong.  A wrong index is replaced by the entries the check
 * counted itself (when .tmq may be written); so is an index of another
 * file (of this name before, or another topic's), which is not counted
 * as wrong: no reader uses it. */
struct tmq_pidx_check {
	struct tmq_pidx x;
	int fd, how;			/* the partition file (not owned) */
	int present;			/* an index exists */
	int ifd, ihow, locked;		/* it, while checked */
	uint64_t nrec, next;		/* its records; the next to compare */
	struct tmq_pidx_ent rec;	/* record next, decoded */
	int have_rec;
	uint64_t line;			/* lines fed so far */
	double maxts;
	char wrong[200];		/* what is wrong, or "" */
};
/* 1 when there is an index to check (pf open as fd/how), 0 when none. */
int tmq_pidx_check_begin(struct tmq_pidx_check *c, int dirfd,
    const char *topic, const struct tmq_pfile *pf, int key_width, int fd,
    int how);
void tmq_pidx_check_line(struct tmq_pidx_check *c, uint64_t pos, size_t n,
    int problem, int has_ts, double ts);
/* Done: 0 when the index is right (or there is none), 1 when it was
 * wrong (c->wrong says how) and was replaced, 2 when wrong and left as it
 * is (.tmq cannot be written). */
int tmq_pidx_check_end(struct tmq_pidx_check *c);

/* tmq-dump --verify says what is wrong with each index itself: no
 * "refused" notice then. */
void tmq_pidx_quiet(int on);

#endif
