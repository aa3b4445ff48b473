/* linereader.h: reading one partition line by line across its day files.
 *
 * Every seek (an offset, a time, the end) starts from the nearest entry of
 * the file's index (partindex.h) rather than from its first byte, and
 * every line read past the index's last entry adds to it: whoever reads a
 * file indexes it for the next reader.
 * It never returns a line whose newline has not been written yet: such a
 * tail stays buffered and is returned whole once it is complete.  Only when
 * a newer file exists is an unterminated tail final; it is then returned
 * with a problem set, since it still takes up its offset.  A line that
 * holds a hole (holes.h) is returned with a problem that says the hole's
 * bytes and where they start: the hole itself is never read.
 * A partition whose files do not chain (one starts where the one before it
 * does not end: tmq_pfiles_chain) fails the read that meets it, the files
 * named: its offsets cannot be right, and nothing is read past it. */
#ifndef TMQ_LINEREADER_H
#define TMQ_LINEREADER_H

#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>
#include "store/dirlist.h"
#include "util/error.h"
#include "store/holes.h"
#include "store/partfile.h"
#include "store/partindex.h"
#include "store/topic.h"

struct tmq_line {
	const char *p;		/* not NUL-terminated; valid until next call */
	size_t n;
	uint64_t offset;
	const char *problem;	/* NULL, or why the line is corrupt */
	uint64_t pos;		/* its first byte in its file */
};

struct tmq_linereader {
	int dirfd;
	const char *topic;	/* its topic's name and what its files' */
	struct tmq_pidx_said *said;	/* indexes said (the topic's) */
	unsigned partition;
	int key_width;
	struct tmq_pfile *files;
	size_t nfiles, cur;
	int fd;
	int how;		/* how fd is read (directread.h) */
	char *buf;
	size_t cap, start, end;
	uint64_t offset;	/* offset of the next line */
	int overlong;		/* discarding a line longer than the buffer */
	uint64_t skip_to;	/* discard lines before this offset */
	/* Offsets jumped because their files went (pruned) before they were
	 * read: [jumped_from, jumped_to), when jumped; the caller says so
	 * and clears jumped. */
	int jumped;
	uint64_t jumped_from, jumped_to;
	int skip_time;		/* discard lines older than skip_ts */
	double skip_ts;
	char problem[64];	/* what tmq_lr_cut_tail found */
	int sparse;		/* fd's file has holes (holes.h) */
	/* The last read of fd came back short at rpos short_at (a local
	 * file's end then: linereader.c's tmq_lr_next), when short_read. */
	int short_read;
	uint64_t short_at;
	/* A reader that follows (set by its opener): NUL bytes read from a
	 * network filesystem, where its client may not have the writer's
	 * data yet, are not taken as data until they have stayed at nul_at
	 * for TMQ_LR_NUL_WAIT_MS (since nul_since, ms of tmq_mono_ms; 0:
	 * none waited for): until then the reading stops before them. */
	int wait_nul;
	uint64_t nul_at;
	long long nul_since;
	struct tmq_holes holes;	/* those in the line being read */
	char hole_msg[160];	/* the problem of a line that had some */
	struct tmq_dirlist *shared;	/* the topic's listing, or NULL */
	unsigned shared_gen;	/* the listing's gen that files copies */
	int parked;		/* fd closed to spare it; reopen at pos */
	off_t pos;
	char parked_name[sizeof ((struct tmq_pfile *)0)->name];
	/* The index of files[cur] (ix), and of the last file when its end
	 * was counted while another was read (ixend, taken as ix when that
	 * file is opened: a seek after a count reads nothing twice). */
	struct tmq_pidx ix, ixend;
	int have_ix, have_ixend;
	size_t kch;		/* characters of a key */
	uint64_t rpos;		/* fd's file position after buf[end - 1] */
	uint64_t lstart;	/* the file position of buf[start] */
	size_t winfrom;		/* buf from here on lies across no hole */
	int building;		/* mx holds the times before lstart */
	int from0;		/* counted from the file's first byte */
	struct tmq_tsmax mx;
	/* Each file must start where the one before it ends
	 * (tmq_pfiles_chain): checked as a read goes on from one file to
	 * the next, and, from the index of the file before, when a seek
	 * starts in a file.  chain_known: the next open_at is such a going
	 * on, checked already; cut: files[cur] ended in a line cut short. */
	int chain_known, cut;
};

/* r for a partition of the topic t (open as long as r is: its name is in
 * what its files' indexes are and say, and what they said is kept with
 * it, partindex.h); t itself may move meanwhile. */
int tmq_lr_open(struct tmq_linereader *r, const struct tmq_topic *t,
    unsigned partition, int key_width, struct tmq_error *e);
/* The same, taking the partition's files from a listing shared with the
 * topic's other readers (which must outlive r) instead of listing the
 * directory itself; the listing's spare_fd is asked for a descriptor when
 * none is left. */
int tmq_lr_open_shared(struct tmq_linereader *r, struct tmq_dirlist *dl,
    const struct tmq_topic *t, unsigned partition, int key_width,
    struct tmq_error *e);
void tmq_lr_close(struct tmq_linereader *r);
/* Close the file descriptor, to spare it; the next read reopens the file
 * where it was.  -1 when r holds none. */
int tmq_lr_park(struct tmq_linereader *r);
/* Position at offset.  An offset before the first line that still exists
 * starts at that line (*gap_to is set to it, else to offset); one past the
 * end is waited for. */
int tmq_lr_seek(struct tmq_linereader *r, uint64_t offset, uint64_t *gap_to,
    struct tmq_error *e);
/* Position at the end (the next line to be written). */
int tmq_lr_seek_end(struct tmq_linereader *r, struct tmq_error *e);
/* The offset the partition's next line will have, as tmq_partition_end
 * finds it but from r's listing (shared: not one listing a partition) and
 * with a descriptor spared when none is left; r's position is kept, and
 * what the count learnt serves r's next seek. */
int tmq_lr_end(struct tmq_linereader *r, uint64_t *end, struct tmq_error *e);
/* The same with the first offset still on disk (both 0: no file). */
int tmq_lr_range(struct tmq_linereader *r, uint64_t *first, uint64_t *end,
    struct tmq_error *e);
/* Position at the first line with a timestamp at or after t, reading only
 * the timestamps, from the day before t's onwards (each file from its
 * index's nearest entry whose maxts is below t: partindex.h says why that
 * is where a read from the file's start would stop). */
int tmq_lr_seek_time(struct tmq_linereader *r, double t, struct tmq_error *e);
/* The next line: 1 with *l filled, 0 when there is none yet, -1 on error. */
int tmq_lr_next(struct tmq_linereader *r, struct tmq_line *l,
    struct tmq_error *e);
/* How long a follower waits for NUL bytes read from a network filesystem
 * to become the writer's data (tmq(7)): ceph-fuse gives zeros for what
 * another client wrote and has not yet flushed, which its writeback does
 * within about 5 s.  What stays NUL that long is the file's, and is read as
 * it is (a corrupt line, reported). */
#define TMQ_LR_NUL_WAIT_MS 30000

/* After tmq_lr_next returned 0, for a reader that stops there (tmq-dump):
 * the newest file may end in a line without its newline.  Wait until that
 * tail stays as it is for TMQ_CUT_WAIT_MS: 1 when it does, with *l set to
 * it (problem set: it is a cut line); 2 when the file changed meanwhile
 * (call tmq_lr_next again); 0 when there is no tail; -1 on error. */
int tmq_lr_cut_tail(struct tmq_linereader *r, struct tmq_line *l,
    struct tmq_error *e);
/* The offset the next line will have. */
uint64_t tmq_lr_offset(const struct tmq_linereader *r);
/* Where the next line starts: the index of its file in r->files and the
 * byte in it; -1 when that is not known (no file open, inside a line too
 * long for the buffer, inside a line with a hole, or skipping). */
int tmq_lr_tell(const struct tmq_linereader *r, size_t *file, uint64_t *pos);
/* Position at byte pos of r->files[file], a line's start that a tell gave
 * earlier, whose line has the given offset.  For resuming without reading
 * what comes before (a group snapshot, groupsnapfile.h). */
int tmq_lr_seek_byte(struct tmq_linereader *r, size_t file, uint64_t pos,
    uint64_t offset, struct tmq_error *e);

#endif
