/* holes.c: where a file's holes are, and how they are told (see
 * holes.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/holes.h"

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

off_t
tmq_hole_first(int fd, off_t pos, size_t n)
{
	off_t h = lseek(fd, pos, SEEK_HOLE);

	if (h < pos || (uint64_t)(h - pos) >= n)
		return pos + (off_t)n;
	return h;
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
