/* holes.h: holes in partition files: where they are, how they are told.
 *
 * A hole is a range of a file that the filesystem stores no data for: a
 * sparse file, made by seeking past its end or by `truncate -s 20G`, 8 KB
 * on disk.  It reads as NUL bytes, which no line holds (base85 has none):
 * a hole is damage, never a message.  It holds no newline either, so it
 * lies inside one line, the one around it, as the TwainMQ library (which reads
 * the file and splits it on newlines) numbers lines: offsets are counted
 * across a hole exactly as across the NUL bytes it reads as.  What changes
 * is only the cost: a hole is skipped with lseek(SEEK_DATA) instead of
 * being read, so a file costs what its data costs, however large it says
 * it is.  A filesystem that cannot tell holes apart (no SEEK_DATA) shows a
 * file as all data; its holes are then read as NUL bytes, as before.
 *
 * This file is what holes are and where; reading past them is
 * tmq_read_data (directread.h), which reads a descriptor its own way. */
#ifndef TMQ_HOLES_H
#define TMQ_HOLES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One hole, or a sum of them: the first one's first byte and their
 * length all told (0 when there is none). */
struct tmq_holes {
	uint64_t at;
	uint64_t bytes;
};

/* When pos is in a hole: 1, with *end set to where it ends (the next
 * data, or the file's end); 0 when pos holds data or is at the end, or
 * when the filesystem cannot tell.  Moves the file offset. */
int tmq_hole_end(int fd, off_t pos, off_t *end);
/* The first hole in [pos, pos + n), or pos + n when there is none there
 * (or the filesystem cannot tell).  Moves the file offset. */
off_t tmq_hole_first(int fd, off_t pos, size_t n);
/* Add hole h to the sum. */
void tmq_holes_add(struct tmq_holes *sum, const struct tmq_holes *h);
/* "FILE: N bytes of holes at byte X skipped" into buf. */
void tmq_holes_say(const struct tmq_holes *h, const char *file, char *buf,
    size_t n);

#endif
