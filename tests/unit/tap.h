/* tap.h: a tiny TAP producer for the unit tests (Automake's tap-driver.sh
 * reads the output).  Header only; every test program includes it once.
 *
 *   ok(cond, "what %d", n);           is_int(got, want, "what");
 *   is_u64(got, want, "what");        is_str(got, want, "what");
 *   is_mem(got, gotlen, want, wantlen, "what");
 *   skip("why");                      diag("note %s", s);
 *   plan(n);  (optional)              return done_testing();
 *   FILE *f = vectors_open("partitions.tsv");   (NULL: skip)
 * done_testing() prints "1..N" when there was no plan() and returns the exit
 * status: 0, or 1 when a test failed (or the count missed the plan). */
#ifndef TMQ_TAP_H
#define TMQ_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed, tap_planned = -1;

/* Announce the number of tests up front (optional). */
static inline void
plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

__attribute__((format(printf, 1, 2))) static inline void
diag(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void
tap_vresult(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
}

__attribute__((format(printf, 4, 5))) static inline int
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

__attribute__((format(printf, 5, 6))) static inline int
tap_is_int(intmax_t got, intmax_t want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(got == want, file, line, fmt, ap);
	va_end(ap);
	if (got != want) {
		diag("  got:  %jd", got);
		diag("  want: %jd", want);
	}
	return got == want;
}

__attribute__((format(printf, 5, 6))) static inline int
tap_is_u64(uint64_t got, uint64_t want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(got == want, file, line, fmt, ap);
	va_end(ap);
	if (got != want) {
		diag("  got:  %llu", (unsigned long long)got);
		diag("  want: %llu", (unsigned long long)want);
	}
	return got == want;
}

/* Show a buffer in a diagnostic: printable ASCII as is, the rest as \xNN. */
static inline void
tap_show(const char *label, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	printf("#   %s: ", label);
	if (p == NULL) {
		puts("NULL");
		return;
	}
	putchar('"');
	for (i = 0; i < n && i < 400; i++)
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			putchar(s[i]);
		else
			printf("\\x%02x", s[i]);
	printf("\"%s (%zu bytes)\n", i < n ? "..." : "", n);
}

__attribute__((format(printf, 7, 8))) static inline int
tap_is_mem(const void *got, size_t gotlen, const void *want, size_t wantlen,
    const char *file, int line, const char *fmt, ...)
{
	int pass = got != NULL && want != NULL && gotlen == wantlen &&
	    memcmp(got, want, gotlen) == 0;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_show("got", got, gotlen);
		tap_show("want", want, wantlen);
		fflush(stdout);
	}
	return pass;
}

__attribute__((format(printf, 5, 6))) static inline int
tap_is_str(const char *got, const char *want, const char *file, int line,
    const char *fmt, ...)
{
	int pass = got != NULL && want != NULL && strcmp(got, want) == 0;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_show("got", got, got ? strlen(got) : 0);
		tap_show("want", want, want ? strlen(want) : 0);
		fflush(stdout);
	}
	return pass;
}

__attribute__((format(printf, 1, 2))) static inline void
skip(const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("ok %d # SKIP ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Open a file of the reference vectors: $TMQ_VECTORS/name, where
 * TMQ_VECTORS defaults to $TMQ_SRCDIR/tests/vectors (TMQ_SRCDIR to ".").
 * NULL when it is not there; the caller then fails a test: the vectors are
 * part of the source tree. */
static inline FILE *
vectors_open(const char *name)
{
	const char *dir = getenv("TMQ_VECTORS"), *src = getenv("TMQ_SRCDIR");
	char path[4096];

	if (dir != NULL && *dir != '\0')
		snprintf(path, sizeof path, "%s/%s", dir, name);
	else
		snprintf(path, sizeof path, "%s/tests/vectors/%s",
		    src != NULL && *src != '\0' ? src : ".", name);
	return fopen(path, "r");
}

/* Without plan(), the plan goes last, so tests need not count themselves. */
static inline int
done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_count);
	else if (tap_planned != tap_count) {
		diag("planned %d tests but ran %d", tap_planned, tap_count);
		tap_failed++;
	}
	if (tap_failed)
		diag("%d of %d tests failed", tap_failed, tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
	tap_is_int((intmax_t)(got), (intmax_t)(want), __FILE__, __LINE__, \
	    __VA_ARGS__)
#define is_u64(got, want, ...) \
	tap_is_u64((uint64_t)(got), (uint64_t)(want), __FILE__, __LINE__, \
	    __VA_ARGS__)
#define is_mem(got, gotlen, want, wantlen, ...) \
	tap_is_mem((got), (gotlen), (want), (wantlen), __FILE__, __LINE__, \
	    __VA_ARGS__)
#define is_str(got, want, ...) \
	tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

#endif
