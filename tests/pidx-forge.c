/* pidx-forge.c: for the tests, what any co-user of a shared root can do
 * to a partition file's index (lib/store/partindex.h): print its records,
 * or change one field of a record and seal the record again with its
 * checksum, so that only a reader's checks against the file stand between
 * the forgery and the answers.
 *
 *   pidx-forge FILE                  print "K LINE POS MAXTS" a record
 *   pidx-forge FILE K FIELD VALUE    set FIELD (line, pos or maxts) of
 *                                    record K (-1: the last) to VALUE */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define HDR 96	/* the header (64 bytes) and its stamp (32) */
#define REC 32

static uint64_t
get64(const unsigned char *b)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static void
put64(unsigned char *b, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

int
main(int argc, char **argv)
{
	struct stat st;
	unsigned char *b, *r;
	uint32_t seed, sum;
	long long k, n;
	double d;
	int fd, i;

	if (argc != 2 && argc != 5) {
		fprintf(stderr, "usage: pidx-forge FILE [K FIELD VALUE]\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDWR)) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size < HDR || (b = malloc((size_t)st.st_size)) == NULL ||
	    read(fd, b, (size_t)st.st_size) != st.st_size) {
		perror(argv[1]);
		return 1;
	}
	seed = (uint32_t)get64(b + 56);
	n = (st.st_size - HDR) / REC;
	if (argc == 2) {
		for (k = 0; k < n; k++) {
			uint64_t bits = get64(b + HDR + k * REC + 16);

			memcpy(&d, &bits, 8);
			printf("%lld %llu %llu %.6f\n", k, (unsigned long long)
			    get64(b + HDR + k * REC), (unsigned long long)
			    get64(b + HDR + k * REC + 8), d);
		}
		free(b);
		return 0;
	}
	k = atoll(argv[2]);
	if (k < 0)
		k += n;
	if (k < 0 || k >= n) {
		fprintf(stderr, "pidx-forge: no record %s\n", argv[2]);
		free(b);
		return 1;
	}
	r = b + HDR + k * REC;
	if (strcmp(argv[3], "line") == 0)
		put64(r, strtoull(argv[4], NULL, 10));
	else if (strcmp(argv[3], "pos") == 0)
		put64(r + 8, strtoull(argv[4], NULL, 10));
	else if (strcmp(argv[3], "maxts") == 0) {
		uint64_t bits;

		d = strtod(argv[4], NULL);
		memcpy(&bits, &d, 8);
		put64(r + 16, bits);
	} else {
		fprintf(stderr, "pidx-forge: no field %s\n", argv[3]);
		free(b);
		return 2;
	}
	sum = XXH32(r, 28, seed);
	for (i = 0; i < 4; i++)
		r[28 + i] = (unsigned char)(sum >> (8 * i));
	if (pwrite(fd, r, REC, HDR + k * REC) != REC) {
		perror(argv[1]);
		free(b);
		return 1;
	}
	free(b);
	close(fd);
	return 0;
}
