/* t-partitioner.c: lib/codec/partitioner, the library's key -> partition map
 * computed on unbounded integers (tmq-format(5), Keys and partitions): its
 * examples, rows copied from vectors/partitions.tsv, and, when the vectors
 * are there, every row of that file. */
#include <stdlib.h>
#include <string.h>

#include "codec/keys.h"
#include "codec/partitioner.h"
#include "tap.h"

/* The partition of a key given as text; -1 when it does not parse. */
static long
partition_of(const char *type, const char *key, unsigned nparts)
{
	unsigned char raw[TMQ_KEY_MAX_BYTES];
	struct tmq_error e;
	int w;

	if (tmq_keytype_parse(type, &w, &e) < 0 ||
	    tmq_key_parse(w, key, strlen(key), raw, &e) < 0)
		return -1;
	return (long)tmq_partition_of(w, raw, nparts);
}

/* SplitMix64 kept to 64 bits: what the library does NOT do. */
static unsigned
truncated(uint64_t x, unsigned nparts)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return (unsigned)(x % nparts);
}

/* Rows copied from vectors/partitions.tsv: type, key, partitions, want. */
static const struct {
	const char *type, *key;
	unsigned parts, want;
} rows[] = {
	{ "u8", "255", 65536, 28086 },
	{ "u8", "1", 16, 5 },
	{ "u8", "177", 100, 35 },
	{ "u16", "0", 1, 0 },
	{ "u16", "65535", 65536, 39605 },
	{ "u16", "65535", 100, 73 },
	{ "u16", "130", 16, 6 },
	{ "u32", "4294967295", 65536, 31484 },
	{ "u32", "1862438061", 16, 12 },
	{ "u32", "3453119453", 65536, 29843 },
	{ "u64", "18446744073709551615", 65536, 32891 },
	{ "u64", "18446744073709551615", 1000, 451 },
	{ "u64", "18446744073709551615", 8, 3 },
	{ "u64", "14827444238501167555", 7, 2 },
	{ "u64", "16479081416305637135", 3, 1 },
	{ "u64", "2497210174162968714", 4, 1 },
	{ "u64", "45", 1000, 683 },
	{ "u64", "1", 2, 1 },
	{ "u64", "0", 8, 0 },
	{ "char1", "a", 65536, 38553 },
	{ "char1", "b", 65536, 21535 },
	{ "char1", "1", 7, 5 },
	{ "char4", "zz86", 65536, 47121 },
	{ "char4", "_", 16, 10 },
	{ "char8", "X1Y\xc3\xa9_Zc", 65536, 62555 },		/* X1Yé_Zc */
	{ "char8", "\xe6\x97\xa5\xe6\x97\xa5_a", 8, 2 },	/* 日日_a */
	{ "char8", "c_99-", 7, 3 },
	{ "char16", "xxxxxxxxxxxxxxxx", 65536, 239 },
	{ "char16", ".91.1Y", 8, 0 },
	{ "char40", ".X19ab91X1bZ01\xc3\xa9.11\xe6\x97\xa5""911\xc3\xa9\xc3\xa9"
	    "\xe6\x97\xa5" "bY-bYYa.", 65536, 58619 },
	{ "char40", "9\xe6\x97\xa5_cYZb.c01ZY\xc3\xa9" "ac\xc3\xa9_c\xe6\x97\xa5"
	    "-.1a.Xc1Z", 100, 60 },
	{ "char40", "X.aY-X1b", 1000, 237 },
	{ "char40", "\xe6\x97\xa5", 2, 1 },
	{ "char40", "zz", 3, 2 },
	{ "char40", "zz85", 64, 18 },
};

/* Every row of vectors/partitions.tsv, one test per key type. */
static void
all_rows(FILE *f)
{
	static const char *const types[] = { "u8", "u16", "u32", "u64",
	    "char1", "char4", "char8", "char16", "char40" };
	enum { NT = sizeof types / sizeof types[0] };
	unsigned long seen[NT] = { 0 }, bad[NT] = { 0 }, other = 0, total = 0;
	char line[1024];
	size_t t;

	if (fgets(line, sizeof line, f) == NULL ||
	    strncmp(line, "key_type\t", 9) != 0) {
		ok(0, "partitions.tsv starts with its header");
		return;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char *type, *key, *parts, *want, *save = NULL;
		long got;

		line[strcspn(line, "\n")] = '\0';
		type = strtok_r(line, "\t", &save);
		key = strtok_r(NULL, "\t", &save);
		parts = strtok_r(NULL, "\t", &save);
		want = strtok_r(NULL, "\t", &save);
		total++;
		for (t = 0; t < NT; t++)
			if (type != NULL && strcmp(type, types[t]) == 0)
				break;
		if (t == NT || key == NULL || want == NULL) {
			other++;
			diag("unexpected row %lu: %s", total, line);
			continue;
		}
		seen[t]++;
		got = partition_of(type, key, (unsigned)strtoul(parts, NULL, 10));
		if (got != strtol(want, NULL, 10)) {
			if (bad[t]++ < 5)
				diag("%s key '%s' among %s: got %ld, want %s",
				    type, key, parts, got, want);
		}
	}
	for (t = 0; t < NT; t++)
		ok(seen[t] > 0 && bad[t] == 0, "partitions.tsv: %lu of %lu %s "
		    "rows match", seen[t] - bad[t], seen[t], types[t]);
	is_int(other, 0, "partitions.tsv: every row is of a known key type");
	ok(total >= 3000, "partitions.tsv: %lu rows read", total);
}

int
main(void)
{
	unsigned char k[TMQ_KEY_MAX_BYTES];
	unsigned differ = 0, key;
	size_t i;
	FILE *f;

	/* tmq-format(5)'s examples. */
	is_int(partition_of("u16", "42", 4), 2, "u16 key 42 among 4 goes to 2");
	is_int(partition_of("char8", "abc", 3), 1,
	    "char8 key abc among 3 goes to 1");

	/* One partition: always 0. */
	is_int(partition_of("u64", "18446744073709551615", 1), 0,
	    "one partition: u64 max goes to 0");
	is_int(partition_of("char40", "abc", 1), 0,
	    "one partition: char40 goes to 0");

	/* charN keys count their bytes unpadded: the width does not matter. */
	is_int(partition_of("char3", "abc", 3), partition_of("char40", "abc", 3),
	    "char3 'abc' and char40 'abc' share a partition");
	/* Integer keys count their value: the width does not matter. */
	is_int(partition_of("u8", "200", 1000), partition_of("u64", "200", 1000),
	    "u8 200 and u64 200 share a partition");
	/* An empty charN key is the integer 0. */
	is_int(partition_of("char8", "", 100), partition_of("u8", "0", 100),
	    "an empty charN key is 0");

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
		is_int(partition_of(rows[i].type, rows[i].key, rows[i].parts),
		    rows[i].want, "%s key '%s' among %u goes to %u",
		    rows[i].type, rows[i].key, rows[i].parts, rows[i].want);

	/* The widest key the tools allow does not overflow the limbs. */
	memset(k, 0xff, TMQ_KEY_MAX_BYTES);
	ok(tmq_partition_of(-TMQ_KEY_MAX_BYTES, k, 65536) < 65536,
	    "a char%d key of 0xff bytes gets a partition", TMQ_KEY_MAX_BYTES);

	/* tmq-format(5): keeping 64 bits differs for 861 of keys 0..999 among 7. */
	for (key = 0; key < 1000; key++) {
		tmq_key_from_u64(2, key, k);
		if (tmq_partition_of(2, k, 7) != truncated(key, 7))
			differ++;
	}
	is_int(differ, 861, "keys 0..999 among 7: 861 differ from a 64-bit "
	    "SplitMix64");

	f = vectors_open("partitions.tsv");
	if (f == NULL)
		ok(0, "vectors: partitions.tsv not found "
		    "(tests/vectors, or $TMQ_VECTORS)");
	else {
		all_rows(f);
		fclose(f);
	}
	return done_testing();
}
