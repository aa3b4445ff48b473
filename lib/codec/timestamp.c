/* timestamp.c: timestamps and time parsing (see timestamp.h). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/base85.h"
#include "util/decimal.h"
#include "codec/timestamp.h"

double
tmq_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
tmq_ts_encode(double t, char out[TMQ_TS_CHARS])
{
	unsigned char b[8];
	uint64_t u;
	int i;

	/* The TwainMQ library passes timestamps through a datetime, so what it
	 * writes is t rounded to microseconds (half to even), as
	 * vectors/timestamps.tsv shows.  Exact while sec * 1e6 fits in 53 bits
	 * (until the year 2255); later times are written as they are. */
	if (fabs(t) < 9007199254.0) {
		double sec, us = nearbyint(modf(t, &sec) * 1e6);

		t = (sec * 1e6 + us) / 1e6;
	}
	memcpy(&u, &t, 8);
	for (i = 7; i >= 0; i--, u >>= 8)
		b[i] = (unsigned char)u;
	tmq_b85_encode(b, 8, out);
}

int
tmq_ts_decode(const char in[TMQ_TS_CHARS], double *t)
{
	uint64_t u;

	if (tmq_b85_decode64(in, &u) < 0)
		return -1;
	memcpy(t, &u, 8);
	return 0;
}

/* t as whole seconds and milliseconds, rounded to the nearest
 * millisecond: one rounding for %T and %m, so that they agree. */
static void
split_ms(double t, double *sec, long *ms)
{
	*sec = floor(t);
	*ms = lround((t - *sec) * 1000);
	if (*ms == 1000) {
		*sec += 1;
		*ms = 0;
	}
}

size_t
tmq_ts_millis(double t, char *buf, size_t bufsz)
{
	double fl;
	long ms;
	int n;

	if (!isfinite(t) || t > 253402300799.0 || t < -62135596800.0)
		return (size_t)snprintf(buf, bufsz, "invalid");
	split_ms(t, &fl, &ms);
	n = snprintf(buf, bufsz, "%lld", (long long)fl * 1000 + ms);
	return n < 0 ? 0 : (size_t)n;
}

size_t
tmq_ts_iso(double t, char *buf, size_t bufsz)
{
	struct tm tm;
	double fl;
	time_t s;
	long ms;
	int n;

	if (!isfinite(t) || t > 253402300799.0 || t < -62135596800.0)
		return (size_t)snprintf(buf, bufsz, "invalid");
	split_ms(t, &fl, &ms);
	s = (time_t)fl;
	gmtime_r(&s, &tm);
	n = snprintf(buf, bufsz, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ms);
	return n < 0 ? 0 : (size_t)n;
}

/* Python's repr of t in [1, 2^53), exactly, in integer arithmetic: the
 * general way below costs up to 17 snprintf/strtod pairs, about 5 us a
 * message, which made tmq-get -J ten times slower than plain tmq-get.
 *
 * t = M / 2^e with M in [2^52, 2^53), so its neighbours are 2^-e away,
 * and strtod takes a decimal D back to t when D is nearer to t than
 * 2^-(e+1).  With k decimals the nearest D is I + q/10^k, q = round(F *
 * 10^k); the first k whose D reads back is the shortest such decimal and
 * the nearest of that length, which is what repr gives.  Neither edge of
 * strtod's rounding comes first: a D exactly half way has e+1 decimals,
 * but t's own expansion has e and reads back; and a power of two here is
 * an integer (its smaller gap below never matters).  F * 10^k < 2^52 *
 * 10^17 fits in 128 bits, so every step is exact.  0 when t is out of
 * range. */
static size_t
repr_fixed(double t, char *buf, size_t bufsz)
{
	typedef unsigned __int128 u128;
	static const unsigned char start[53] = { 0, 0, 0, 0, 1, 1, 1, 2, 2, 2,
	    3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9,
	    9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14,
	    15, 15, 15 };
	uint64_t m, ip, fm, p10 = 1;
	int ex, e, k, k0, n;

	if (!(t >= 1 && t < 9007199254740992.0))
		return 0;
	memcpy(&m, &t, 8);			/* t = m * 2^(ex-53) */
	ex = (int)(m >> 52 & 0x7ff) - 1022;
	m = (m & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
	e = 53 - ex;				/* 0..52 */
	ip = m >> e;
	fm = e > 0 ? m & ((UINT64_C(1) << e) - 1) : 0;
	/* Decimals of k0 = start[e] digits, 10^k0 < 2^e, are further apart
	 * than t's neighbours: at most one of them (and of any shorter ones,
	 * which are such decimals too) reads back, the nearest.  So no D of
	 * fewer than k0 decimals reads back unless the nearest of k0 does and
	 * ends in zeros; start there (tmq's own times, in microseconds, then
	 * take one step, not seven). */
	k0 = start[e];
	for (k = 0; k < k0; k++)
		p10 *= 10;
	for (k = k0; k <= 17; k++, p10 *= 10) {
		u128 num = (u128)fm * p10, q = num >> e, r, half, d;

		if (e > 0) {
			r = num & (((u128)1 << e) - 1);
			half = (u128)1 << (e - 1);
			if (r > half || (r == half && (q & 1)))
				q++;
		}
		/* d = |D - t| 10^k 2^e: D reads back when d < 10^k / 2. */
		d = (q << e) < num ? num - (q << e) : (q << e) - num;
		if (2 * d < p10) {
			uint64_t ipart = ip, frac = (uint64_t)q;
			char tmp[48];
			int w = 48, dg;

			if (frac == p10) {	/* rounded up to the next integer */
				ipart++;
				frac = 0;
				k = 0;
			}
			while (k > 0 && frac % 10 == 0) {	/* the shortest */
				frac /= 10;
				k--;
			}
			/* ipart.frac, frac in k digits (tmq-get -J writes one
			 * a message: no snprintf). */
			if (k == 0)
				tmp[--w] = '0';
			for (dg = k; dg >= 2; dg -= 2, frac /= 100) {
				w -= 2;
				memcpy(tmp + w, tmq_dec_two + 2 * (frac % 100), 2);
			}
			if (dg == 1)
				tmp[--w] = (char)('0' + frac % 10);
			tmp[--w] = '.';
			for (; ipart >= 10; ipart /= 100) {
				w -= 2;
				memcpy(tmp + w, tmq_dec_two + 2 * (ipart % 100), 2);
			}
			if (ipart > 0)		/* an odd digit left */
				tmp[--w] = (char)('0' + ipart);
			n = 48 - w;
			if ((size_t)n >= bufsz)
				return 0;
			memcpy(buf, tmp + w, (size_t)n);
			buf[n] = '\0';
			return (size_t)n;
		}
	}
	return 0;
}

/* Python's repr of t when t is a whole number of microseconds (every
 * time tmq writes is: tmq_ts_encode), from 1 s to 2^33 s (the year 2242),
 * with one multiplication and one division: repr_fixed's 128-bit steps
 * were a fifth of what tmq-get -J adds to tmq-get.  Below 2^33 t's
 * neighbours are nearer than 10^-6, so at most one decimal of six places
 * reads back as t, and any shorter decimal that does is that one with
 * zeros off its end: when the nearest of six places, u / 10^6, reads back
 * ((double)u / 1e6 is strtod's reading of it, both roundings correct), it
 * without its trailing zeros is the shortest, so repr.  0 otherwise (then
 * repr_fixed). */
static size_t
repr_micros(double t, char *buf, size_t bufsz)
{
	uint64_t u, ip;
	uint32_t f;
	int k = 6, n;
	char *o;

	if (!(t >= 1 && t < 8589934592.0))
		return 0;
	u = (uint64_t)nearbyint(t * 1e6);
	if ((double)u / 1e6 != t)
		return 0;
	ip = u / 1000000;
	f = (uint32_t)(u % 1000000);
	if (f == 0)
		k = 1;			/* "I.0" */
	else
		while (f % 10 == 0) {
			f /= 10;
			k--;
		}
	n = tmq_dec_len(ip) + 1 + k;
	if ((size_t)n >= bufsz)
		return 0;
	o = tmq_dec_put(buf, ip);
	*o++ = '.';
	tmq_dec_fixed(o, f, k);
	buf[n] = '\0';
	return (size_t)n;
}

size_t
tmq_ts_repr(double t, char *buf, size_t bufsz)
{
	int prec, n = 0;
	size_t fast;

	if (!isfinite(t))
		return (size_t)snprintf(buf, bufsz, "null");
	if ((fast = repr_micros(t, buf, bufsz)) > 0 ||
	    (fast = repr_fixed(t, buf, bufsz)) > 0)
		return fast;
	for (prec = 1; prec <= 17; prec++) {
		n = snprintf(buf, bufsz, "%.*g", prec, t);
		if (strtod(buf, NULL) == t)
			break;
	}
	/* %g may choose an exponent or drop the point; Python's repr keeps
	 * plain digits and a ".0" from 1e-4 up to 1e16, as %g does below. */
	if (strchr(buf, 'e') != NULL && fabs(t) >= 1e-4 && fabs(t) < 1e16) {
		for (prec = 0; prec <= 17; prec++) {
			n = snprintf(buf, bufsz, "%.*f", prec, t);
			if (strtod(buf, NULL) == t)
				break;
		}
	}
	if (strpbrk(buf, ".en") == NULL && (size_t)n + 2 < bufsz) {
		buf[n++] = '.';
		buf[n++] = '0';
		buf[n] = '\0';
	}
	return (size_t)n;
}

unsigned
tmq_utc_day(double t)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	gmtime_r(&s, &tm);
	return (unsigned)((tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 +
	    tm.tm_mday);
}

/* Read exactly n digits. */
static int
digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

int
tmq_time_parse(const char *s, double *t, struct tmq_error *e)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, sec = 0, zh, zm;
	double frac = 0;
	struct tm tm;
	char *end;

	if (*s == '\0')
		return tmq_fail(e, "empty time");
	/* Plain Unix seconds: all digits, with an optional fraction. */
	if (strspn(s, "0123456789.") == strlen(s) && strchr(s, '-') == NULL) {
		*t = strtod(s, &end);
		if (*end != '\0' || end == s)
			return tmq_fail(e, "'%s': bad time", s);
		return 0;
	}
	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d))
		goto bad;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			goto bad;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &sec))
				goto bad;
			if (*p == '.' || *p == ',') {
				double scale = 0.1;

				p++;
				if (!isdigit((unsigned char)*p))
					goto bad;
				while (isdigit((unsigned char)*p)) {
					frac += (*p++ - '0') * scale;
					scale /= 10;
				}
			}
		}
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60)
		goto bad;
	/* No February 30th: timegm would take it for March 2nd. */
	if (d > mdays[mo - 1] + (mo == 2 && y % 4 == 0 && (y % 100 != 0 ||
	    y % 400 == 0)))
		goto bad;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*t = (double)timegm(&tm) + frac;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		int sign = *p++ == '+' ? 1 : -1;

		if (digits(&p, 2, &zh))
			goto bad;
		if (*p == ':')
			p++;
		if (digits(&p, 2, &zm))
			goto bad;
		*t -= sign * (zh * 3600 + zm * 60);
	}
	if (*p != '\0')
		goto bad;
	return 0;
bad:
	return tmq_fail(e, "'%s': bad time (want Unix seconds or ISO 8601 such "
	    "as 2026-11-25T09:00:00Z)", s);
}
