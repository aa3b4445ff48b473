/* t-timestamp.c: lib/codec/timestamp: the 10-character timestamp on a line
 * (rows of vectors/timestamps.tsv, encoded and decoded exactly), Python's
 * repr of a timestamp, ISO 8601 output, UTC days, and the time syntax the
 * tools accept (tmq_time_parse), good and bad. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "codec/timestamp.h"

/* A row of vectors/timestamps.tsv: the library writes the time text reads
 * as, rounded to microseconds, as enc; held is that rounded time as Python
 * shows it (NULL when it is text itself).  Encode, compare, decode back. */
static void
row(const char *text, const char *enc, const char *held)
{
	char out[TMQ_TS_CHARS], repr[40];
	double t = strtod(text, NULL), back = -12345, want;

	if (held == NULL)
		held = text;
	want = strtod(held, NULL);
	tmq_ts_encode(t, out);
	is_mem(out, TMQ_TS_CHARS, enc, strlen(enc), "%s encodes to %s", text,
	    enc);
	is_int(tmq_ts_decode(enc, &back), 0, "%s decodes", enc);
	ok(memcmp(&back, &want, sizeof want) == 0, "%s decodes to %s exactly",
	    enc, held);
	tmq_ts_repr(back, repr, sizeof repr);
	is_str(repr, held, "repr(%s) is %s", enc, held);
	tmq_ts_encode(back, out);
	is_mem(out, TMQ_TS_CHARS, enc, strlen(enc), "%s encodes to %s again",
	    held, enc);
}

static void
repr_is(double t, const char *want)
{
	char buf[40];
	size_t n = tmq_ts_repr(t, buf, sizeof buf);

	is_str(buf, want, "repr is %s", want);
	is_int(n, strlen(want), "... and its length is returned");
	ok(strcmp(want, "null") == 0 || strtod(buf, NULL) == t,
	    "... which reads back as the same double");
}

/* The oracle for tmq_ts_repr: try 1..17 significant digits until the
 * text reads back as t (the definition of repr, slowly). */
static void
repr_slow(double t, char *buf, size_t bufsz)
{
	int prec, n = 0;

	for (prec = 1; prec <= 17; prec++) {
		n = snprintf(buf, bufsz, "%.*g", prec, t);
		if (strtod(buf, NULL) == t)
			break;
	}
	if (strchr(buf, 'e') != NULL && fabs(t) >= 1e-4 && fabs(t) < 1e16)
		for (prec = 0; prec <= 17; prec++) {
			n = snprintf(buf, bufsz, "%.*f", prec, t);
			if (strtod(buf, NULL) == t)
				break;
		}
	if (strpbrk(buf, ".en") == NULL && (size_t)n + 2 < bufsz)
		strcat(buf, ".0");
}

static unsigned long bad_repr;

static void
repr_agrees(double t)
{
	char fast[40], slow[40];

	tmq_ts_repr(t, fast, sizeof fast);
	repr_slow(t, slow, sizeof slow);
	if (strcmp(fast, slow) != 0 && bad_repr++ < 5)
		diag("repr(%.17g): %s, not %s", t, fast, slow);
}

/* repr over the doubles timestamps are and the edges of its exact path:
 * random bits in [1, 2^53), times of this century to the microsecond (as
 * the library writes them), short decimals, powers of two with their
 * neighbours (a gap below half the one above), integers. */
static void
repr_many(void)
{
	unsigned long i, n = 0;
	double t, p2;
	uint64_t x = 0x9E3779B97F4A7C15u;

	for (i = 0; i < 100000; i++, n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t = ldexp(1.0 + (double)(x >> 12) / 4503599627370496.0,
		    (int)(x % 53));
		repr_agrees(t);
	}
	for (i = 0; i < 100000; i++, n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t = 946684800.0 + (double)(x % 3155760000000000u) / 1e6;
		repr_agrees(t);
	}
	for (i = 0; i < 20000; i++, n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t = (double)(x % 100000000000u) / pow(10, (double)(x % 12));
		repr_agrees(t);
	}
	/* Microseconds on both sides of 2^33 s, where six decimals stop
	 * being more than t's neighbours are apart. */
	for (i = 0; i < 20000; i++, n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t = 8589000000.0 + (double)(x % 2000000000000u) / 1e6;
		repr_agrees(t);
	}
	for (p2 = 0.25; p2 <= 18014398509481984.0; p2 *= 2, n += 5) {
		repr_agrees(p2);
		repr_agrees(nextafter(p2, 0));
		repr_agrees(nextafter(p2, INFINITY));
		repr_agrees(nextafter(nextafter(p2, 0), 0));
		repr_agrees(p2 - 1);
	}
	for (t = 0.5; t < 2e4; t += 0.5, n++)
		repr_agrees(t);
	ok(bad_repr == 0, "repr agrees with the digit-by-digit search on %lu "
	    "doubles (%lu differ)", n, bad_repr);
}

static void
iso_is(double t, const char *want)
{
	char buf[40];

	tmq_ts_iso(t, buf, sizeof buf);
	is_str(buf, want, "ISO of %.17g is %s", t, want);
}

static void
parses(const char *s, double want)
{
	struct tmq_error e = { 0 };
	double t = -1;

	if (!is_int(tmq_time_parse(s, &t, &e), 0, "'%s' parses", s))
		diag("error: %s", e.msg);
	ok(t == want, "'%s' is %.17g (got %.17g)", s, want, t);
}

static void
refused(const char *s, const char *msg)
{
	struct tmq_error e = { 0 };
	char want[200];
	double t;

	if (msg == NULL) {
		snprintf(want, sizeof want, "'%s': bad time (want Unix seconds "
		    "or ISO 8601 such as 2026-11-25T09:00:00Z)", s);
		msg = want;
	}
	is_int(tmq_time_parse(s, &t, &e), -1, "'%s' is refused", s);
	is_str(e.msg, msg, "... with the message");
}

/* Every row of vectors/timestamps.tsv: the encoding, and a decoding that
 * is the time to the microsecond and encodes the same again. */
static void
all_rows(FILE *f)
{
	unsigned long n = 0, bad = 0;
	char line[256];

	if (fgets(line, sizeof line, f) == NULL ||
	    strncmp(line, "unix_seconds\t", 13) != 0) {
		ok(0, "timestamps.tsv starts with its header");
		return;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char *tab = strchr(line, '\t'), out[TMQ_TS_CHARS], again[10];
		char repr[40], *dot;
		double t, back;

		line[strcspn(line, "\n")] = '\0';
		n++;
		if (tab == NULL || strlen(tab + 1) != TMQ_TS_CHARS) {
			bad++;
			diag("bad row: %s", line);
			continue;
		}
		*tab = '\0';
		t = strtod(line, NULL);
		tmq_ts_encode(t, out);
		if (tmq_ts_decode(tab + 1, &back) < 0)
			back = NAN;
		tmq_ts_encode(back, again);
		tmq_ts_repr(back, repr, sizeof repr);
		dot = strchr(line, '.');
		if (memcmp(out, tab + 1, TMQ_TS_CHARS) != 0 ||
		    memcmp(again, tab + 1, TMQ_TS_CHARS) != 0 ||
		    !(fabs(back - t) <= 5e-7 * (1 + 1e-9)) ||
		    (dot != NULL && strlen(dot + 1) <= 6 && strcmp(repr, line) != 0)) {
			if (bad++ < 5)
				diag("row %s %s: encoded %.10s, decoded %s", line,
				    tab + 1, out, repr);
		}
	}
	ok(n >= 300 && bad == 0, "timestamps.tsv: %lu of %lu rows encode and "
	    "decode as the library does", n - bad, n);
}

int
main(void)
{
	double t;
	FILE *f;

	/* Rows from vectors/timestamps.tsv. */
	row("0.0", "0000000000", NULL);
	row("1.5", "KllIu00000", NULL);
	row("1764400000.123456", "LE1{D;0NZk", NULL);
	row("762544911.681978", "LB_ekhu2FE", NULL);
	row("1707553252.6529", "LD_N4c`3;q", NULL);
	row("1750636178.97523", "LE082q`qn^", NULL);
	row("3504684993.059925", "LFyc*_#x`(", NULL);
	row("3942618297.237152", "LG54imnW9M", NULL);
	/* Finer than a microsecond: the library rounds (half to even). */
	row("1766473993.0250323", "LE2J~LP44!", "1766473993.025032");
	row("1788184788.9357839", "LE5EaH9O<u", "1788184788.935784");
	row("29176672.594505515", "L3`6S34<89", "29176672.594506");
	row("2760778249.2902765", "LFAFdK`BY|", "2760778249.290277");
	/* Timestamps of vectors/expected.jsonl (encoded by Python). */
	row("1795867200.0", "LE6HwkN^Mx", NULL);
	row("1795597320.08", "LE6Eo0tFtp", NULL);

	/* More of Python's repr. */
	repr_is(1795867200.0, "1795867200.0");
	repr_is(1795597320.08, "1795597320.08");
	repr_is(123.0, "123.0");
	repr_is(0.1, "0.1");
	repr_is(-1.0, "-1.0");
	repr_is(-0.0, "-0.0");
	repr_is(0.0001, "0.0001");
	repr_is(1e15, "1000000000000000.0");
	repr_is(9007199254740992.0, "9007199254740992.0");
	repr_is(1e16, "1e+16");
	repr_is(1e20, "1e+20");
	repr_is(1.7976931348623157e308, "1.7976931348623157e+308");
	repr_is(1e-05, "1e-05");
	repr_is(1.5e-07, "1.5e-07");
	repr_is(1e-300, "1e-300");
	repr_is(5e-324, "5e-324");
	repr_is(1.0, "1.0");
	repr_is(1.5, "1.5");
	repr_is(1796052492.104842, "1796052492.104842");
	/* A microsecond's path (repr_micros): zeros inside the fraction,
	 * the microsecond below 2^33 and past it. */
	repr_is(1796142677.000005, "1796142677.000005");
	repr_is(1.000001, "1.000001");
	repr_is(8589934591.999999, "8589934591.999999");
	repr_is(8589934592.000002, "8589934592.000002");
	repr_is(9007199254740991.0, "9007199254740991.0");
	repr_is(4503599627370495.5, "4503599627370495.5");
	repr_is(NAN, "null");
	repr_is(INFINITY, "null");
	repr_many();
	/* Decoding the smallest subnormal from its text. */
	is_int(tmq_ts_decode("0000000001", &t), 0, "0000000001 decodes");
	ok(t == 5e-324, "... to the smallest subnormal");
	is_int(tmq_ts_decode("0000 00000", &t), -1,
	    "a timestamp with a space does not decode");
	is_int(tmq_ts_decode("~~~~~00000", &t), -1,
	    "an overflowing timestamp does not decode");

	/* ISO 8601 with milliseconds. */
	iso_is(1795597320.08, "2026-11-25T09:02:00.080Z");
	iso_is(1795867200.0, "2026-11-28T12:00:00.000Z");
	iso_is(0.0, "1970-01-01T00:00:00.000Z");
	iso_is(-0.5, "1969-12-31T23:59:59.500Z");
	iso_is(1795597320.9996, "2026-11-25T09:02:01.000Z");
	iso_is(NAN, "invalid");
	iso_is(INFINITY, "invalid");
	iso_is(1e300, "invalid");

	/* UTC days, as partition file names use them. */
	is_int(tmq_utc_day(1795867200.0), 20261128, "utc day of 2026-11-28 noon");
	is_int(tmq_utc_day(1795564800.0), 20261125, "utc day at midnight");
	is_int(tmq_utc_day(1795564799.999), 20261124,
	    "utc day just before midnight");
	is_int(tmq_utc_day(0.0), 19700101, "utc day of the epoch");
	is_int(tmq_utc_day(-0.5), 19691231, "utc day before the epoch");

	t = tmq_now();
	ok(t > 1.7e9 && t < 1e11, "tmq_now is a plausible time (%.3f)", t);

	/* The time syntax of the tools. */
	parses("1764400000", 1764400000.0);
	parses("1764400000.5", 1764400000.5);
	parses("0", 0.0);
	parses("1795597320.08", 1795597320.08);
	parses("2026-11-25", 1795564800.0);
	parses("2026-11-25T09:00", 1795597200.0);
	parses("2026-11-25T09:00Z", 1795597200.0);
	parses("2026-11-25T09:00:00", 1795597200.0);
	parses("2026-11-25T09:00:00Z", 1795597200.0);
	parses("2026-11-25t09:00:00z", 1795597200.0);
	parses("2026-11-25 09:00:00", 1795597200.0);
	parses("2026-11-25T09:00:00.5Z", 1795597200.5);
	parses("2026-11-25T09:00:00,5Z", 1795597200.5);
	parses("2026-11-25T09:02:00.080Z", 1795597320.08);
	parses("2026-11-25T09:00:00.5+01:00", 1795593600.5);
	parses("2026-11-25T09:00+0100", 1795593600.0);
	parses("2026-11-25T09:00:00-05:30", 1795617000.0);
	parses("2026-11-25+01:00", 1795561200.0);
	parses("1970-01-01T00:00:00Z", 0.0);
	refused("", "empty time");
	refused("abc", NULL);
	refused("1.2.3", "'1.2.3': bad time");
	refused(".", "'.': bad time");
	refused("-5", NULL);
	refused("12e3", NULL);
	refused("2026-13-01", NULL);
	refused("2026-00-10", NULL);
	refused("2026-11-00", NULL);
	refused("2026-11-32", NULL);
	refused("2026-1-5", NULL);
	refused("2026-11-25T24:00", NULL);
	refused("2026-11-25T09:60", NULL);
	refused("2026-11-25T09", NULL);
	refused("2026-11-25T9:00", NULL);
	refused("2026-11-25T09:00:00.", NULL);
	refused("2026-11-25T09:00:00.Z", NULL);
	refused("2026-11-25X", NULL);
	refused("2026-11-25T09:00:00+1", NULL);
	refused("2026-11-25T09:00:00+01:0", NULL);
	refused("2026-11-25T09:00:00Z ", NULL);
	refused(" 2026-11-25", NULL);

	f = vectors_open("timestamps.tsv");
	if (f == NULL)
		ok(0, "vectors: timestamps.tsv not found "
		    "(tests/vectors, or $TMQ_VECTORS)");
	else {
		all_rows(f);
		fclose(f);
	}
	return done_testing();
}
