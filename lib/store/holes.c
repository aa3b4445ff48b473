/* holes.c: reading partition files past their holes (see holes.h).
 *
 * Honest data holds no NUL byte, so a read of it costs nothing more: only
 * a read that brought NUL bytes asks the filesystem (SEEK_HOLE) whether
 * they were a hole's.  From the first hole on, the descriptor is known to
 * be sparse, and each read asks first, stopping where the data does: what
 * is read is the file's data and the one buffer that found the first
 * hole, whatever the file's size. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "directread.h"
#include "holes.h"

int
tmq_hole_end(int fd, off_t pos, off_t *end)
{
	struct stat st;
	off_t d = lseek(fd, pos, SEEK_DATA);

	if (d >= 0 || errno != ENXIO) {
		*end = d;
		return d > pos;
	}
	/* No data from pos on: the hole runs to the end of the file, or pos
	 * is there.  A writer may append meanwhile: asked again after the
	 * size was taken, no data past pos means none up to that size (a
	 * file only grows), and new data ends the hole where it starts. */
	if (fstat(fd, &st) < 0 || st.st_size <= pos)
		return 0;
	d = lseek(fd, pos, SEEK_DATA);
	if (d >= 0 || errno != ENXIO) {
		*end = d;
		return d > pos;
	}
	*end = st.st_size;
	return 1;
}

/* The first hole in [pos, pos + n), or pos + n when there is none there
 * (or the filesystem cannot tell).  Moves the file offset. */
static off_t
first_hole(int fd, off_t pos, size_t n)
{
	off_t h = lseek(fd, pos, SEEK_HOLE);

	if (h < pos || (uint64_t)(h - pos) >= n)
		return pos + (off_t)n;
	return h;
}

ssize_t
tmq_read_data(int fd, int how, int *sparse, void *dst, size_t n,
    struct tmq_holes *hole)
{
	off_t pos, end, h;
	ssize_t got;

	hole->at = hole->bytes = 0;
	for (;;) {
		if (*sparse) {
			if ((pos = lseek(fd, 0, SEEK_CUR)) < 0)
				return -1;
			if (tmq_hole_end(fd, pos, &end)) {
				if (lseek(fd, end, SEEK_SET) < 0)
					return -1;
				hole->at = (uint64_t)pos;
				hole->bytes = (uint64_t)(end - pos);
				return 0;
			}
			h = first_hole(fd, pos, n);
			if (lseek(fd, pos, SEEK_SET) < 0)
				return -1;
			if (h > pos)
				n = (size_t)(h - pos);
		}
		got = tmq_dr_read(fd, how, dst, n);
		if (got <= 0 || *sparse || memchr(dst, '\0', (size_t)got) == NULL)
			return got;
		/* NUL bytes, which no line holds: a hole's, perhaps. */
		if ((pos = lseek(fd, 0, SEEK_CUR)) < 0)
			return -1;
		pos -= got;
		h = first_hole(fd, pos, (size_t)got);
		if (h == pos + got) {
			if (lseek(fd, h, SEEK_SET) < 0)
				return -1;
			return got;	/* NUL bytes written as data */
		}
		/* What was read from the hole on is dropped: the next read
		 * starts there, and skips it. */
		*sparse = 1;
		if (lseek(fd, h, SEEK_SET) < 0)
			return -1;
		if (h > pos)
			return (ssize_t)(h - pos);
	}
}

void
tmq_holes_add(struct tmq_holes *sum, const struct tmq_holes *h)
{
	if (h->bytes == 0)
		return;
	if (sum->bytes == 0)
		sum->at = h->at;
	sum->bytes += h->bytes;
}

void
tmq_holes_say(const struct tmq_holes *h, const char *file, char *buf,
    size_t n)
{
	snprintf(buf, n, "%s: %" PRIu64 " bytes of holes at byte %" PRIu64
	    " skipped", file, h->bytes, h->at);
}
