/* partfile.c: naming and listing partition files (see partfile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdlimit.h"
#include "partfile.h"
#include "grow.h"
#include "regfile.h"
#include "stop.h"

/* Decimal without sign or leading zeros ("0" itself is fine). */
static int
number(const char **p, char stop, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (*s != stop)
		return -1;
	*p = s + 1;
	*v = x;
	return 0;
}

int
tmq_pfile_parse(const char *name, struct tmq_pfile *pf)
{
	const char *p = name;
	uint64_t part, day, first;
	int i;

	if (number(&p, '-', &part) < 0 || part > 0xffffffffu)
		return -1;
	for (i = 0; i < 8; i++)
		if (p[i] < '0' || p[i] > '9')
			return -1;
	day = strtoul(p, NULL, 10);
	if (p[8] != '_')
		return -1;
	p += 9;
	if (number(&p, '.', &first) < 0 || strcmp(p, "tmf") != 0)
		return -1;
	if (strlen(name) >= sizeof pf->name)
		return -1;
	pf->partition = (unsigned)part;
	pf->day = (unsigned)day;
	pf->first = first;
	strcpy(pf->name, name);
	return 0;
}

void
tmq_pfile_name(struct tmq_pfile *pf)
{
	snprintf(pf->name, sizeof pf->name, "%u-%08u_%llu.tmf", pf->partition,
	    pf->day, (unsigned long long)pf->first);
}

static int
cmp_pfile(const void *a, const void *b)
{
	const struct tmq_pfile *x = a, *y = b;

	if (x->partition != y->partition)
		return x->partition < y->partition ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->day < y->day ? -1 : x->day > y->day;
}

int
tmq_pfiles_list(int dirfd, long partition, struct tmq_pfile **out, size_t *n,
    struct tmq_error *e)
{
	struct tmq_pfile *v = NULL, pf;
	size_t cnt = 0, cap = 0, plen = 0;
	char prefix[24];
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		errno = err;
		return tmq_fail(e, "cannot list the topic directory: %s%s",
		    strerror(err), tmq_fd_hint(err));
	}
	if (partition >= 0)
		plen = (size_t)snprintf(prefix, sizeof prefix, "%ld-", partition);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		/* One partition of thousands: most names differ at once. */
		if (plen > 0 && memcmp(de->d_name, prefix, plen) != 0)
			continue;
		if (tmq_pfile_parse(de->d_name, &pf) < 0)
			continue;
		if (partition >= 0 && pf.partition != (unsigned long)partition)
			continue;
		if (tmq_grow(&v, &cap, cnt + 1, sizeof *v) < 0) {
			free(v);
			closedir(d);
			return tmq_fail(e, "out of memory");
		}
		v[cnt++] = pf;
	}
	closedir(d);
	if (cnt > 1)
		qsort(v, cnt, sizeof *v, cmp_pfile);
	*out = v;
	*n = cnt;
	return 0;
}

int
tmq_pfile_end(const struct tmq_pfile *pf, uint64_t lines, uint64_t *end,
    struct tmq_error *e)
{
	if (lines > UINT64_MAX - pf->first)
		return tmq_fail(e, "partition %u: %s: corrupt: offsets run past "
		    "2^64-1", pf->partition, pf->name);
	*end = pf->first + lines;
	return 0;
}
