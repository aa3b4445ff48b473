/* gsnap-seal.c: for the tests, what any co-user of a shared root can do:
 * put a fresh checksum on a group snapshot (lib/group/groupsnap.c) edited by
 * hand, so that only the checks of its values stand between the edit and
 * the readers.
 *
 *   gsnap-seal FILE     rewrite FILE's last 8 bytes: the XXH3 of the rest */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

int
main(int argc, char **argv)
{
	struct stat st;
	unsigned char *b, h[8];
	uint64_t sum;
	int fd, i;

	if (argc != 2) {
		fprintf(stderr, "usage: gsnap-seal FILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDWR)) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size < 8 || (b = malloc((size_t)st.st_size)) == NULL ||
	    read(fd, b, (size_t)st.st_size) != st.st_size) {
		perror(argv[1]);
		return 1;
	}
	sum = XXH3_64bits(b, (size_t)st.st_size - 8);
	for (i = 0; i < 8; i++)
		h[i] = (unsigned char)(sum >> (8 * i));
	if (pwrite(fd, h, 8, st.st_size - 8) != 8 || close(fd) < 0) {
		perror(argv[1]);
		return 1;
	}
	free(b);
	return 0;
}
