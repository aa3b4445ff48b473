/* replay.c: a fuzz target's seeds, run by make check.  Linked with one
 * tests/fuzz/fuzz-TARGET.c in place of libFuzzer, it hands the target
 * every regular file of $TMQ_SRCDIR/tests/fuzz/seeds/TARGET (and of
 * FUZZ_EXTRA, another folder of the tree, when set), one input each, in
 * name order, as libFuzzer would, and says one TAP line per input.  An
 * input that crashes the target (or, in a build with sanitizers, makes
 * them report) fails the test.  make fuzz (run.sh) fuzzes from the same
 * seeds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET: the target's name, as in tests/fuzz/fuzz-NAME.c"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each regular file of dir (under the source tree), one input; how many. */
static int
replay(const char *src, const char *dir)
{
	struct dirent **ents;
	char path[4096];
	int n, i, count = 0;

	snprintf(path, sizeof path, "%s/%s", src, dir);
	if ((n = scandir(path, &ents, NULL, alphasort)) < 0) {
		ok(0, "%s: %s", path, strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct stat st;
		unsigned char *buf;
		ssize_t got = 0;
		int fd;

		snprintf(path, sizeof path, "%s/%s/%s", src, dir,
		    ents[i]->d_name);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			if (fd >= 0)
				close(fd);
			free(ents[i]);
			continue;
		}
		/* One byte more than the file: the target gets exactly it. */
		buf = malloc((size_t)st.st_size + 1);
		if (buf == NULL ||
		    (got = read(fd, buf, (size_t)st.st_size + 1)) !=
		    (ssize_t)st.st_size) {
			ok(0, "%s/%s: could not be read", dir, ents[i]->d_name);
		} else {
			LLVMFuzzerTestOneInput(buf, (size_t)got);
			ok(1, "%s/%s (%zd bytes)", dir, ents[i]->d_name, got);
		}
		count++;
		free(buf);
		close(fd);
		free(ents[i]);
	}
	free(ents);
	return count;
}

int
main(void)
{
	const char *src = getenv("TMQ_SRCDIR");

	if (src == NULL || *src == '\0')
		src = ".";
	if (replay(src, "tests/fuzz/seeds/" FUZZ_TARGET) == 0)
		ok(0, "tests/fuzz/seeds/%s holds no seed", FUZZ_TARGET);
#ifdef FUZZ_EXTRA
	replay(src, FUZZ_EXTRA);
#endif
	return done_testing();
}
