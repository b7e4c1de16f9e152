/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of lib/codec.c: the exact bytes of small hand-encoded chunks
 * (access, key and eviction-log chunks), round trips of large pseudo-random chunks, and every way a chunk can be
 * corrupt or truncated (each must give -EBADMSG, never a crash).
 *
 * Hand encoding of a record (man/hsctl-db.5): v = zigzag(key - previous key)
 * << 1 | (meta changed), as an LEB128 varint, then the meta byte if changed.
 * zigzag(d) = 2d for d >= 0 and -2d - 1 for d < 0.  Each chunk starts at key 0,
 * meta 0.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "harness.h"

#define N_BIG	200000

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, independent of the code under test */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Encode and compare with the expected bytes, then decode and compare back. */
static void check_enc(const uint32_t *keys, const uint8_t *meta, size_t n, uint64_t nr_keys,
		      const uint8_t *want, size_t want_len, uint64_t want_acc)
{
	uint8_t buf[64];
	uint32_t k2[8];
	uint8_t m2[8];
	uint64_t acc = 99;
	size_t len, i;

	T_ASSERT(n <= 8 && hs_codec_bound(n) <= sizeof(buf));
	len = hs_codec_encode(keys, meta, n, buf);
	T_EQ_U64(len, want_len);
	if (len == want_len)
		for (i = 0; i < len; i++)
			T_EQ_U64(buf[i], want[i]);
	T_EQ_I64(hs_codec_decode(want, want_len, HS_ENC_KEYS_META, n, nr_keys, k2, m2, &acc,
				 NULL), 0);
	for (i = 0; i < n; i++) {
		T_EQ_U64(k2[i], keys[i]);
		T_EQ_U64(m2[i], meta[i]);
	}
	T_EQ_U64(acc, want_acc);
}

static void test_hand_small(void)
{
	/* 0,1,2 all meta 0: deltas 0,1,1 -> v 0,4,4 */
	static const uint32_t k1[] = { 0, 1, 2 };
	static const uint8_t m1[] = { 0, 0, 0 };
	static const uint8_t e1[] = { 0x00, 0x04, 0x04 };
	/* 5 with meta 0x01 (PT): zigzag(5) = 10, v = 21 = 0x15, then 0x01 */
	static const uint32_t k2[] = { 5 };
	static const uint8_t m2[] = { 0x01 };
	static const uint8_t e2[] = { 0x15, 0x01 };
	/* 3 then 1: zigzag(3) = 6 -> 12; zigzag(-2) = 3 -> 6 */
	static const uint32_t k3[] = { 3, 1 };
	static const uint8_t m3[] = { 0, 0 };
	static const uint8_t e3[] = { 0x0c, 0x06 };
	/* meta 0x11 (PT, write), 0x11, 0x00: "01 11", "00", "01 00" */
	static const uint32_t k4[] = { 0, 0, 0 };
	static const uint8_t m4[] = { 0x11, 0x11, 0x00 };
	static const uint8_t e4[] = { 0x01, 0x11, 0x00, 0x01, 0x00 };
	/* a PAGEOUT hint (0x02) is not an access: 7 then 7 as a hint, 7 as FD */
	static const uint32_t k5[] = { 7, 7, 7 };
	static const uint8_t m5[] = { 0x00, 0x02, 0x00 };
	/* zigzag(7) = 14 -> 28 = 0x1c; 0 -> "01 02"; 0 -> "01 00" */
	static const uint8_t e5[] = { 0x1c, 0x01, 0x02, 0x01, 0x00 };
	/*
	 * One meta byte (0x01, PT) for all: only the first record carries it.
	 * 5: zigzag 10 -> 21 = "15 01"; -2: 3 -> 6; +297: 594 -> 1188 = "a4 09";
	 * +3999999700: 7999999400 -> 15999998800 = "d0 b6 b2 cd 3b"; -4000000000:
	 * 7999999999 -> 15999999998 = "fe bf b2 cd 3b"; 0: "00".
	 */
	static const uint32_t k6[] = { 5, 3, 300, 4000000000u, 0, 0 };
	static const uint8_t m6[] = { 0x01, 0x01, 0x01, 0x01, 0x01, 0x01 };
	static const uint8_t e6[] = { 0x15, 0x01, 0x06, 0xa4, 0x09, 0xd0, 0xb6, 0xb2, 0xcd, 0x3b,
				      0xfe, 0xbf, 0xb2, 0xcd, 0x3b, 0x00 };

	check_enc(k1, m1, 3, 3, e1, sizeof(e1), 3);
	check_enc(k2, m2, 1, 6, e2, sizeof(e2), 1);
	check_enc(k3, m3, 2, 4, e3, sizeof(e3), 2);
	check_enc(k4, m4, 3, 1, e4, sizeof(e4), 3);
	check_enc(k5, m5, 3, 8, e5, sizeof(e5), 2);
	check_enc(k6, m6, 6, 4000000001u, e6, sizeof(e6), 6);
}

static void test_hand_varint_edges(void)
{
	/* |delta| <= 31 fits one byte: 31 -> zigzag 62 -> v 124 = 0x7c */
	static const uint32_t k31[] = { 31 };
	static const uint8_t e31[] = { 0x7c };
	/* 32 -> zigzag 64 -> v 128 = "80 01" */
	static const uint32_t k32[] = { 32 };
	static const uint8_t e32[] = { 0x80, 0x01 };
	/* 64 -> zigzag 128 -> v 256 = "80 02" */
	static const uint32_t k64[] = { 64 };
	static const uint8_t e64[] = { 0x80, 0x02 };
	/* 2^32 - 1 -> zigzag 2^33 - 2 -> v 2^34 - 4: low group 0x7c, three 0x7f, top 0x3f;
	 * back to 0: delta -(2^32 - 1) -> zigzag 2^33 - 3 -> v 2^34 - 6: low group 0x7a */
	static const uint32_t kmax[] = { 0xffffffffu, 0 };
	static const uint8_t emax[] = { 0xfc, 0xff, 0xff, 0xff, 0x3f,
					0xfa, 0xff, 0xff, 0xff, 0x3f };
	static const uint8_t m0[] = { 0, 0 };

	check_enc(k31, m0, 1, 32, e31, sizeof(e31), 1);
	check_enc(k32, m0, 1, 33, e32, sizeof(e32), 1);
	check_enc(k64, m0, 1, 65, e64, sizeof(e64), 1);
	check_enc(kmax, m0, 2, 1ull << 32, emax, sizeof(emax), 2);
}

static void check_ids(const uint64_t *ids, size_t n, const uint8_t *want, size_t want_len)
{
	uint8_t buf[64];
	uint64_t back[4];
	size_t len, i;

	len = hs_codec_ids_encode(ids, n, buf);
	T_EQ_U64(len, want_len);
	if (len == want_len)
		for (i = 0; i < len; i++)
			T_EQ_U64(buf[i], want[i]);
	T_EQ_I64(hs_codec_ids_decode(want, want_len, HS_IDS_DELTA, n, back, NULL), 0);
	for (i = 0; i < n; i++)
		T_EQ_U64(back[i], ids[i]);
}

static void test_hand_ids(void)
{
	/* deltas 0, 1, 1 -> zigzag 0, 2, 2 */
	static const uint64_t a[] = { 0, 1, 2 };
	static const uint8_t ea[] = { 0x00, 0x02, 0x02 };
	/* 5, 3: zigzag(5) = 10, zigzag(-2) = 3 */
	static const uint64_t b[] = { 5, 3 };
	static const uint8_t eb[] = { 0x0a, 0x03 };
	/* UINT64_MAX: delta -1 mod 2^64 -> zigzag 1 */
	static const uint64_t c[] = { UINT64_MAX };
	static const uint8_t ec[] = { 0x01 };
	/* 2^63: delta INT64_MIN -> zigzag 2^64 - 1: nine 0xff then 0x01 */
	static const uint64_t d[] = { 1ull << 63 };
	static const uint8_t ed[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

	check_ids(a, 3, ea, sizeof(ea));
	check_ids(b, 2, eb, sizeof(eb));
	check_ids(c, 1, ec, sizeof(ec));
	check_ids(d, 1, ed, sizeof(ed));
}

/* Decoding @in as @n records over @nr_keys keys must fail with -EBADMSG and @reason. */
static void bad(const uint8_t *in, size_t len, unsigned int enc, size_t n, uint64_t nr_keys,
		const char *reason)
{
	uint32_t keys[8];
	uint8_t meta[8];
	const char *why = NULL;

	T_ASSERT(n <= 8);
	T_EQ_I64(hs_codec_decode(in, len, enc, n, nr_keys, keys, meta, NULL, &why), -EBADMSG);
	T_EQ_STR(why, reason);
}

static void test_corrupt(void)
{
	static const uint8_t cont[] = { 0x80 };
	static const uint8_t nometa[] = { 0x01 };
	static const uint8_t extra[] = { 0x00, 0x00 };
	static const uint8_t one[] = { 0x04 };		/* key 1 */
	static const uint8_t neg[] = { 0x06 };		/* delta -2 from 0 */
	static const uint8_t overlong[] = { 0x80, 0x00 };
	static const uint8_t toolong[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	static const uint8_t meta40[] = { 0x01, 0x40 };	/* undefined meta bit */
	static const uint8_t meta20[] = { 0x01, 0x20 };	/* no recency on an FD access */
	static const uint8_t meta21[] = { 0x01, 0x21 };	/* no recency on a PT access: good */
	static const uint8_t meta05[] = { 0x01, 0x05 };	/* channel 5 does not exist */
	static const uint8_t three[] = { 0x00, 0x04, 0x04 };

	bad(cont, 0, HS_ENC_KEYS_META, 1, 10, "truncated varint");	/* empty, 1 wanted */
	bad(cont, sizeof(cont), HS_ENC_KEYS_META, 1, 10, "truncated varint");
	bad(nometa, sizeof(nometa), HS_ENC_KEYS_META, 1, 10, "truncated meta byte");
	bad(extra, sizeof(extra), HS_ENC_KEYS_META, 1, 10, "bytes after the last record");
	bad(one, sizeof(one), HS_ENC_KEYS_META, 1, 1, "key out of range");
	bad(neg, sizeof(neg), HS_ENC_KEYS_META, 1, 10, "key out of range");
	bad(overlong, sizeof(overlong), HS_ENC_KEYS_META, 1, 10, "overlong varint");
	{
		/*
		 * The same in the bulk loop (8 bytes or more left): records of
		 * key 0, the overlong one at record 10, more after it; and a
		 * zero byte alone there is key 0 again, not overlong.
		 */
		uint8_t run[24] = { 0 }, m[24];
		uint32_t k[24];
		const char *why = NULL;
		size_t zeros = 0;

		run[10] = 0x80;
		run[11] = 0x00;
		T_EQ_I64(hs_codec_decode(run, sizeof(run), HS_ENC_KEYS_META, 23, 10, k, m, NULL,
					 &why), -EBADMSG);
		T_EQ_STR(why, "overlong varint");
		run[10] = 0x00;
		T_EQ_I64(hs_codec_decode(run, sizeof(run), HS_ENC_KEYS_META, 24, 10, k, m, NULL,
					 NULL), 0);
		for (size_t i = 0; i < 24; i++)
			zeros += k[i] == 0 && m[i] == 0;
		T_EQ_U64(zeros, 24);
	}
	bad(toolong, sizeof(toolong), HS_ENC_KEYS_META, 1, 10, "varint too long");
	bad(meta40, sizeof(meta40), HS_ENC_KEYS_META, 1, 10, "bad meta byte");
	bad(meta20, sizeof(meta20), HS_ENC_KEYS_META, 1, 10, "bad meta byte");
	{
		uint32_t k[1];
		uint8_t m[1];

		T_EQ_I64(hs_codec_decode(meta21, sizeof(meta21), HS_ENC_KEYS_META, 1, 10, k, m,
					 NULL, NULL), 0);
		T_EQ_U64(m[0], 0x21);
	}
	bad(meta05, sizeof(meta05), HS_ENC_KEYS_META, 1, 10, "bad meta byte");
	/*
	 * Key 2^32 + 5 (zigzag 2^33 + 10, times 2: 2^34 + 20 = 94 80 80 80 40) is
	 * below a corrupt distinct count of 2^33 but is no dense id: rejected,
	 * not wrapped to key 5 (found by tests/fuzz/fuzz-codec).
	 */
	{
		static const uint8_t big[] = { 0x94, 0x80, 0x80, 0x80, 0x40 };

		bad(big, sizeof(big), HS_ENC_KEYS_META, 1, UINT64_C(1) << 33,
		    "key out of range");
		bad(big, sizeof(big), HS_ENC_KEYS_META, 1, UINT64_MAX, "key out of range");
	}
	/* record count disagreeing with the bytes */
	bad(three, sizeof(three), HS_ENC_KEYS_META, 2, 10, "bytes after the last record");
	bad(three, sizeof(three), HS_ENC_KEYS_META, 4, 10, "truncated varint");
	/* encoding 2 wants a time after every record; 0 and 3 are never valid */
	bad(three, sizeof(three), HS_ENC_KEYS_META_TS, 3, 10, "truncated varint");
	bad(three, sizeof(three), 0, 3, 10, "unknown chunk encoding");
	bad(three, sizeof(three), 3, 3, 10, "unknown chunk encoding");
	/* an empty chunk of zero records is fine, with zero accesses */
	{
		uint64_t acc = 5;

		T_EQ_I64(hs_codec_decode(three, 0, HS_ENC_KEYS_META, 0, 0, NULL, NULL, &acc,
					 NULL), 0);
		T_EQ_U64(acc, 0);
	}
}

/* Encoding 2: each record as in 1, then varint(time - previous time). */
static void test_hand_ts(void)
{
	/*
	 * (0, FD, t 100), (1, FD, t 100), (2, READAHEAD, t 300):
	 * 00 64 | 04 00 | 05 05 c8 01 (v = 1 << 1 | 1, meta 5, delta 200)
	 */
	static const uint32_t keys[] = { 0, 1, 2 };
	static const uint8_t meta[] = { 0, 0, HS_CH_READAHEAD };
	static const uint64_t ts[] = { 100, 100, 300 };
	static const uint8_t want[] = { 0x00, 0x64, 0x04, 0x00, 0x05, 0x05, 0xc8, 0x01 };
	uint8_t buf[64];
	uint32_t k2[3];
	uint8_t m2[3];
	uint64_t t2[3] = { 0 }, acc = 0;
	size_t len, i;

	len = hs_codec_encode_ts(keys, meta, ts, 3, buf);
	T_EQ_U64(len, sizeof(want));
	T_ASSERT(!memcmp(buf, want, sizeof(want)));
	T_EQ_I64(hs_codec_decode_ts(want, sizeof(want), HS_ENC_KEYS_META_TS, 3, 3, k2, m2, t2,
				    &acc, NULL), 0);
	for (i = 0; i < 3; i++) {
		T_EQ_U64(k2[i], keys[i]);
		T_EQ_U64(m2[i], meta[i]);
		T_EQ_U64(t2[i], ts[i]);
	}
	T_EQ_U64(acc, 2);	/* a readahead record is no access */
	/* without the times, and plain hs_codec_decode() skips them */
	T_EQ_I64(hs_codec_decode(want, sizeof(want), HS_ENC_KEYS_META_TS, 3, 3, k2, m2, &acc,
				 NULL), 0);
	T_EQ_U64(k2[2], 2);
	/* the same bytes are no encoding-1 chunk */
	bad(want, sizeof(want), HS_ENC_KEYS_META, 3, 1000, "bytes after the last record");
	/* channel 5 (readahead) is valid in a timed chunk only */
	{
		static const uint8_t ra1[] = { 0x01, 0x05 };

		bad(ra1, sizeof(ra1), HS_ENC_KEYS_META, 1, 1, "bad meta byte");
	}
}

/* Decoding @in as timed records must fail with -EBADMSG and @reason. */
static void bad_ts(const uint8_t *in, size_t len, size_t n, const char *reason)
{
	uint32_t keys[8];
	uint8_t meta[8];
	uint64_t ts[8];
	const char *why = NULL;

	T_ASSERT(n <= 8);
	T_EQ_I64(hs_codec_decode_ts(in, len, HS_ENC_KEYS_META_TS, n, 10, keys, meta, ts, NULL,
				    &why), -EBADMSG);
	T_EQ_STR(why, reason);
}

static void test_corrupt_ts(void)
{
	static const uint8_t notime[] = { 0x00 };
	static const uint8_t cut[] = { 0x00, 0x80 };
	static const uint8_t overlong[] = { 0x00, 0x80, 0x00 };
	static const uint8_t big[] = { 0x00, 0x80, 0x80, 0x80, 0x80, 0x80,
				       0x80, 0x80, 0x80, 0x80, 0x02 };
	/* 2^64 - 1, then one more */
	static const uint8_t wrap[] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0x01, 0x00, 0x01 };
	static const uint8_t meta06[] = { 0x01, 0x06, 0x00 };
	static const uint8_t extra[] = { 0x00, 0x00, 0x00 };
	uint32_t k[2];
	uint8_t m[2];
	uint64_t t[2];

	bad_ts(notime, sizeof(notime), 1, "truncated varint");
	bad_ts(cut, sizeof(cut), 1, "truncated varint");
	bad_ts(overlong, sizeof(overlong), 1, "overlong varint");
	bad_ts(big, sizeof(big), 1, "varint too large");
	bad_ts(wrap, sizeof(wrap), 2, "time out of range");
	bad_ts(meta06, sizeof(meta06), 1, "bad meta byte");
	bad_ts(extra, sizeof(extra), 1, "bytes after the last record");
	/* the first record of wrap alone is fine: time 2^64 - 1 */
	T_EQ_I64(hs_codec_decode_ts(wrap, 11, HS_ENC_KEYS_META_TS, 1, 10, k, m, t, NULL, NULL),
		 0);
	T_EQ_U64(t[0], UINT64_MAX);
}

static void test_corrupt_ids(void)
{
	static const uint8_t big10[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0x02 };
	static const uint8_t long11[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0x81, 0x00 };
	static const uint8_t trunc[] = { 0x00, 0x81 };
	static const uint8_t extra[] = { 0x00, 0x00 };
	uint64_t ids[4];
	const char *why = NULL;

	T_EQ_I64(hs_codec_ids_decode(big10, sizeof(big10), HS_IDS_DELTA, 1, ids, &why), -EBADMSG);
	T_EQ_STR(why, "varint too large");
	/* a continuation bit on the tenth byte is also past 64 bits */
	T_EQ_I64(hs_codec_ids_decode(long11, sizeof(long11), HS_IDS_DELTA, 1, ids, &why),
		 -EBADMSG);
	T_EQ_STR(why, "varint too large");
	T_EQ_I64(hs_codec_ids_decode(trunc, sizeof(trunc), HS_IDS_DELTA, 2, ids, &why), -EBADMSG);
	T_EQ_STR(why, "truncated varint");
	T_EQ_I64(hs_codec_ids_decode(extra, sizeof(extra), HS_IDS_DELTA, 1, ids, &why), -EBADMSG);
	T_EQ_STR(why, "bytes after the last id");
	T_EQ_I64(hs_codec_ids_decode(extra, sizeof(extra), 2, 2, ids, &why), -EBADMSG);
	T_EQ_STR(why, "unknown key chunk encoding");
}

/* A mix of sequential runs, small jumps and random keys, with meta changes. */
static void fill(uint32_t *keys, uint8_t *meta, size_t n, uint32_t nr_keys, uint64_t *acc)
{
	static const uint8_t metas[] = { 0x00, 0x01, 0x09, 0x11, 0x19, 0x02, 0x03, 0x04, 0x0c };
	uint32_t k = 0;
	uint8_t m = 0;
	size_t i;

	*acc = 0;
	for (i = 0; i < n; i++) {
		uint64_t r = rng();

		switch (r % 4) {
		case 0:
			k = (uint32_t)((r >> 8) % nr_keys);
			break;
		case 1:
			k = (uint32_t)(((uint64_t)k + 1) % nr_keys);
			break;
		case 2:
			k = (uint32_t)(((uint64_t)k + nr_keys - (r >> 8) % 100) % nr_keys);
			break;
		default:
			break;
		}
		if ((r >> 40) % 16 == 0)
			m = metas[(r >> 48) % sizeof(metas)];
		keys[i] = k;
		meta[i] = m;
		*acc += (m & 7) <= 1;
	}
}

static void test_roundtrip(void)
{
	static const uint32_t nks[] = { 1, 2, 1000, 3000000, 0xffffffffu };
	uint32_t *keys = malloc(N_BIG * sizeof(*keys));
	uint32_t *k2 = malloc(N_BIG * sizeof(*k2));
	uint8_t *meta = malloc(N_BIG);
	uint8_t *m2 = malloc(N_BIG);
	uint8_t *buf = malloc(hs_codec_bound(N_BIG));
	size_t t, len, i;

	T_ASSERT(keys && k2 && meta && m2 && buf);
	if (!keys || !k2 || !meta || !m2 || !buf)
		goto out;
	for (t = 0; t < sizeof(nks) / sizeof(nks[0]); t++) {
		uint64_t acc, acc2 = 0;
		size_t diff = 0;

		fill(keys, meta, N_BIG, nks[t], &acc);
		len = hs_codec_encode(keys, meta, N_BIG, buf);
		T_ASSERT(len <= hs_codec_bound(N_BIG));
		T_EQ_I64(hs_codec_decode(buf, len, HS_ENC_KEYS_META, N_BIG, nks[t], k2, m2, &acc2,
					 NULL), 0);
		for (i = 0; i < N_BIG; i++)
			diff += keys[i] != k2[i] || meta[i] != m2[i];
		T_EQ_U64(diff, 0);
		T_EQ_U64(acc2, acc);
		/* the same keys with one meta byte for all (an import's chunk) */
		memset(m2, 0x01, N_BIG);
		len = hs_codec_encode(keys, m2, N_BIG, buf);
		T_ASSERT(len <= hs_codec_bound(N_BIG));
		T_EQ_I64(hs_codec_decode(buf, len, HS_ENC_KEYS_META, N_BIG, nks[t], k2, m2, &acc2,
					 NULL), 0);
		for (i = diff = 0; i < N_BIG; i++)
			diff += keys[i] != k2[i] || m2[i] != 0x01;
		T_EQ_U64(diff, 0);
		T_EQ_U64(acc2, N_BIG);
		len = hs_codec_encode(keys, meta, N_BIG, buf);
		/* every prefix of the bytes is a truncated chunk */
		for (i = 0; i < 64 && i < len; i++)
			T_EQ_I64(hs_codec_decode(buf, len - 1 - i, HS_ENC_KEYS_META, N_BIG, nks[t],
						 k2, m2, NULL, NULL), -EBADMSG);
	}
out:
	free(keys);
	free(k2);
	free(meta);
	free(m2);
	free(buf);
}

/* Random timed records, every channel, times from near 2^63 with deltas up to 2^40. */
static void test_roundtrip_ts(void)
{
	uint32_t *keys = malloc(N_BIG * sizeof(*keys));
	uint32_t *k2 = malloc(N_BIG * sizeof(*k2));
	uint8_t *meta = malloc(N_BIG);
	uint8_t *m2 = malloc(N_BIG);
	uint64_t *ts = malloc(N_BIG * sizeof(*ts));
	uint64_t *t2 = malloc(N_BIG * sizeof(*t2));
	uint8_t *buf = malloc(hs_codec_ts_bound(N_BIG));
	uint64_t acc = 0, acc2 = 0, now = (uint64_t)1 << 63;
	size_t len, i, diff = 0;

	T_ASSERT(keys && k2 && meta && m2 && ts && t2 && buf);
	if (!keys || !k2 || !meta || !m2 || !ts || !t2 || !buf)
		goto out;
	for (i = 0; i < N_BIG; i++) {
		uint64_t r = rng();

		keys[i] = (uint32_t)(r % 5000);
		meta[i] = hs_meta_make((enum hs_channel)((r >> 16) % HS_CH_NR),
				       (r >> 24) & 1 ? HS_TYPE_ANON : HS_TYPE_FILE, (r >> 25) & 1);
		acc += hs_channel_is_access(hs_meta_channel(meta[i]));
		now += (r >> 32) % 4 ? (r >> 40) % 1000 : (r >> 24);
		ts[i] = now;
	}
	len = hs_codec_encode_ts(keys, meta, ts, N_BIG, buf);
	T_ASSERT(len <= hs_codec_ts_bound(N_BIG));
	T_EQ_I64(hs_codec_decode_ts(buf, len, HS_ENC_KEYS_META_TS, N_BIG, 5000, k2, m2, t2, &acc2,
				    NULL), 0);
	for (i = 0; i < N_BIG; i++)
		diff += keys[i] != k2[i] || meta[i] != m2[i] || ts[i] != t2[i];
	T_EQ_U64(diff, 0);
	T_EQ_U64(acc2, acc);
	for (i = 0; i < 64 && i < len; i++)
		T_EQ_I64(hs_codec_decode_ts(buf, len - 1 - i, HS_ENC_KEYS_META_TS, N_BIG, 5000, k2,
					    m2, t2, NULL, NULL), -EBADMSG);
out:
	free(keys);
	free(k2);
	free(meta);
	free(m2);
	free(ts);
	free(t2);
	free(buf);
}

static void test_roundtrip_ids(void)
{
	uint64_t *ids = malloc(N_BIG * sizeof(*ids));
	uint64_t *back = malloc(N_BIG * sizeof(*back));
	uint8_t *buf = malloc(hs_codec_ids_bound(N_BIG));
	size_t len, i, diff = 0;

	T_ASSERT(ids && back && buf);
	if (!ids || !back || !buf)
		goto out;
	for (i = 0; i < N_BIG; i++) {
		uint64_t r = rng();

		ids[i] = r % 3 == 0 ? r : r % 3 == 1 ? (i ? ids[i - 1] + 1 : 0) : r >> 40;
	}
	len = hs_codec_ids_encode(ids, N_BIG, buf);
	T_ASSERT(len <= hs_codec_ids_bound(N_BIG));
	T_EQ_I64(hs_codec_ids_decode(buf, len, HS_IDS_DELTA, N_BIG, back, NULL), 0);
	for (i = 0; i < N_BIG; i++)
		diff += ids[i] != back[i];
	T_EQ_U64(diff, 0);
	T_EQ_I64(hs_codec_ids_decode(buf, len - 1, HS_IDS_DELTA, N_BIG, back, NULL), -EBADMSG);
out:
	free(ids);
	free(back);
	free(buf);
}

/*
 * The reference for test_reference(): man/hsctl-db.5 read one byte at a
 * time, with the reasons and the order of checks hs_codec_decode() promises
 * (a varint's bytes, then the key's range, then the meta byte).
 */
static int ref_decode(const uint8_t *in, size_t len, size_t n, uint64_t nr_keys,
		      uint32_t *keys, uint8_t *meta, uint64_t *acc, const char **why)
{
	uint64_t limit = nr_keys < (UINT64_C(1) << 32) ? nr_keys : UINT64_C(1) << 32;
	int64_t key = 0;
	uint8_t m = 0;
	size_t p = 0, i;

	*acc = 0;
	for (i = 0; i < n; i++) {
		uint64_t v = 0, zz;
		unsigned int b;

		for (b = 0;; b++) {
			if (b == 5) {
				*why = "varint too long";
				return -EBADMSG;
			}
			if (p == len) {
				*why = "truncated varint";
				return -EBADMSG;
			}
			v |= (uint64_t)(in[p] & 0x7f) << (7 * b);
			if (!(in[p++] & 0x80))
				break;
		}
		if (b > 0 && in[p - 1] == 0) {
			*why = "overlong varint";
			return -EBADMSG;
		}
		zz = v >> 1;
		key += (zz & 1) ? -(int64_t)(zz >> 1) - 1 : (int64_t)(zz >> 1);
		if (key < 0 || (uint64_t)key >= limit) {
			*why = "key out of range";
			return -EBADMSG;
		}
		if (v & 1) {
			if (p == len) {
				*why = "truncated meta byte";
				return -EBADMSG;
			}
			m = in[p++];
			if (!hs_meta_is_valid(m)) {
				*why = "bad meta byte";
				return -EBADMSG;
			}
		}
		keys[i] = (uint32_t)key;
		meta[i] = m;
		*acc += (m & HS_META_CHANNEL_MASK) <= HS_CH_PT;
	}
	if (p != len) {
		*why = "bytes after the last record";
		return -EBADMSG;
	}
	return 0;
}

/*
 * Append one record of exactly @blen varint bytes (1 to 5) to @out at *@len,
 * its key delta random within [0, @nr_keys), with a new meta byte @m when
 * @newm.  The encoder is not used: the test must not share its mistakes.
 */
static void put_ref_record(uint8_t *out, size_t *len, int64_t *key, uint64_t nr_keys,
			   unsigned int blen, bool newm, uint8_t m)
{
	uint64_t lo = blen == 1 ? 0 : UINT64_C(1) << (7 * (blen - 1));
	uint64_t hi = UINT64_C(1) << (7 * blen);
	uint64_t v = 0;
	int64_t k = 0;
	int t;

	/* a value of blen bytes whose key stays in range, else the nearest */
	for (t = 0; t < 64; t++) {
		uint64_t zz;

		v = (lo + rng() % (hi - lo)) & ~UINT64_C(1);
		zz = v >> 1;
		k = *key + ((zz & 1) ? -(int64_t)(zz >> 1) - 1 : (int64_t)(zz >> 1));
		if (k >= 0 && (uint64_t)k < nr_keys)
			break;
	}
	if (t == 64) {
		/* delta 0 (v 0) is always in range, one byte */
		v = 0;
		k = *key;
	}
	v |= newm;
	while (v >= 0x80) {
		out[(*len)++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[(*len)++] = (uint8_t)v;
	if (newm)
		out[(*len)++] = m;
	*key = k;
}

/*
 * Random chunks of records of every varint length 1 to 5, mixed and in runs
 * of one length, with and without meta changes, then damaged (a bit flipped,
 * a byte zeroed or set to 0x80, cut short, a record too many or too few, a
 * smaller key range), decoded by hs_codec_decode() and ref_decode(): the same
 * keys, meta bytes and access count, or the same reason.  Chunk lengths run
 * from 1 record to a few hundred, so that the fast paths' ends (8 bytes left,
 * the last record, a record across a word) meet every kind of record.
 */
static void test_reference(void)
{
	static const uint8_t metas[] = { 0x00, 0x01, 0x09, 0x11, 0x19, 0x02, 0x03, 0x04, 0x0c,
					 0x21, 0x40, 0x05, 0x20 };	/* the last 3 are bad */
	enum { NMAX = 400 };
	uint32_t keys[NMAX + 1], k2[NMAX + 1];
	uint8_t meta[NMAX + 1], m2[NMAX + 1];
	uint8_t *buf = malloc(NMAX * 6 + 8);
	size_t t, mism = 0, ok = 0;
	const char *reasons_seen[8] = { NULL };
	size_t nreasons = 0;

	T_ASSERT(buf);
	if (!buf)
		return;
	for (t = 0; t < 60000; t++) {
		uint64_t r = rng(), nr_keys, acc = 0, racc = 0;
		unsigned int mode = r % 4, fixed = 1 + (unsigned int)(r >> 8) % 5;
		size_t n = t % 3 ? 1 + (r >> 16) % 24 : 1 + (r >> 16) % NMAX;
		size_t len = 0, dn = n, i;
		int64_t key = 0;
		const char *why = NULL, *rwhy = NULL;
		uint8_t *in;
		int err, rerr;

		nr_keys = (r >> 24) % 3 == 0 ? UINT64_C(1) << 32 : 1 + (r >> 26) % 3000000;
		for (i = 0; i < n; i++) {
			uint64_t q = rng();
			unsigned int blen;
			bool newm = mode >= 2 && q % 8 == 0;

			/* mode 0 and 2: lengths mixed; 1 and 3: runs of one, mostly */
			blen = mode % 2 == 0 || q % 16 == 0 ? 1 + (unsigned int)(q >> 8) % 5 : fixed;
			put_ref_record(buf, &len, &key, nr_keys, blen, newm,
				       metas[(q >> 16) % (q % 64 ? 10 : sizeof(metas))]);
		}
		switch ((r >> 40) % 8) {
		case 0:		/* a bit flipped */
			buf[(r >> 44) % len] ^= (uint8_t)(1u << ((r >> 56) % 8));
			break;
		case 1:		/* a byte zeroed: an overlong varint where it ends one */
			buf[(r >> 44) % len] = 0;
			break;
		case 2:		/* a byte continued */
			buf[(r >> 44) % len] |= 0x80;
			break;
		case 3:		/* cut short */
			len -= 1 + (r >> 44) % (len < 9 ? len : 9);
			break;
		case 4:		/* a record too many or too few */
			dn = n + ((r >> 44) % 2 ? 1 : -1);
			break;
		case 5:		/* a key range that some keys leave */
			nr_keys = 1 + (r >> 44) % nr_keys;
			break;
		default:	/* intact */
			break;
		}
		/* exactly len bytes, so that a read past them shows under ASan */
		in = malloc(len ? len : 1);
		T_ASSERT(in);
		if (!in)
			break;
		memcpy(in, buf, len);
		err = hs_codec_decode(in, len, HS_ENC_KEYS_META, dn, nr_keys, k2, m2, &acc, &why);
		rerr = ref_decode(in, len, dn, nr_keys, keys, meta, &racc, &rwhy);
		free(in);
		if (err != rerr || (err && strcmp(why, rwhy)) ||
		    (!err && (acc != racc || memcmp(k2, keys, dn * sizeof(*keys)) ||
			      memcmp(m2, meta, dn)))) {
			if (!mism++)
				fprintf(stderr, "reference: case %zu: %d (%s) against %d (%s)\n",
					t, err, err ? why : "", rerr, rerr ? rwhy : "");
		}
		ok += !err;
		if (err) {
			for (i = 0; i < nreasons && strcmp(reasons_seen[i], rwhy); i++)
				;
			if (i == nreasons && nreasons < 8)
				reasons_seen[nreasons++] = rwhy;
		}
	}
	T_EQ_U64(mism, 0);
	/* the cases reach both answers and every reason of an untimed chunk */
	T_ASSERT(ok > 10000);
	T_EQ_U64(nreasons, 7);
	free(buf);
}

/*
 * The encoders' PDEP form and their portable one (hs_codec_pdep()) write the
 * same bytes: random chunks whose deltas take every varint length, with one
 * meta byte (an import's) and several, and ids whose deltas take every
 * length up to ten bytes.  Where the CPU has no fast PDEP both are the
 * portable form.
 */
static void test_pdep_same(void)
{
	enum { N = 3000 };
	uint32_t *keys = malloc(N * sizeof(*keys));
	uint64_t *ids = malloc(N * sizeof(*ids)), acc;
	uint8_t *meta = malloc(N), *one = malloc(N);
	uint8_t *a = malloc(hs_codec_ids_bound(N)), *b = malloc(hs_codec_ids_bound(N));
	size_t t, la, lb, mism = 0;

	T_ASSERT(keys && ids && meta && one && a && b);
	if (!keys || !ids || !meta || !one || !a || !b)
		goto out;
	memset(one, 0x01, N);
	for (t = 0; t < 300; t++) {
		size_t n = 1 + rng() % N, i;
		unsigned int bits = 1 + (unsigned int)(t % 64);

		fill(keys, meta, n, t % 3 ? (uint32_t)(1 + rng() % UINT32_MAX) : 1000, &acc);
		for (i = 0; i < n; i++) {
			uint64_t r = rng();

			ids[i] = bits == 64 ? r : r & ((UINT64_C(1) << bits) - 1);
		}
		hs_codec_pdep(false);
		la = hs_codec_encode(keys, t % 2 ? one : meta, n, a);
		hs_codec_pdep(true);
		lb = hs_codec_encode(keys, t % 2 ? one : meta, n, b);
		mism += la != lb || memcmp(a, b, la);
		hs_codec_pdep(false);
		la = hs_codec_ids_encode(ids, n, a);
		hs_codec_pdep(true);
		lb = hs_codec_ids_encode(ids, n, b);
		mism += la != lb || memcmp(a, b, la);
	}
	T_EQ_U64(mism, 0);
out:
	hs_codec_pdep(true);
	free(keys);
	free(ids);
	free(meta);
	free(one);
	free(a);
	free(b);
}

/* Append varint @v to @out at *@len, plus a zero byte after a continued one when @overlong. */
static void put_raw(uint8_t *out, size_t *len, uint64_t v, bool overlong)
{
	while (v >= 0x80) {
		out[(*len)++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	if (overlong) {
		out[(*len)++] = (uint8_t)(v | 0x80);
		v = 0;
	}
	out[(*len)++] = (uint8_t)v;
}

/*
 * The decoder's SSSE3 form and its portable one (hs_codec_simd()) give the
 * same answers, and both ref_decode()'s: long random chunks (up to 3000
 * records, so that the 16-byte steps run long) of dense and sparse keys,
 * varints of every length in runs and mixed, with meta changes (a bad meta
 * byte among them), overlong varints, keys out of range and too-long
 * varints planted at random records, then cut short or miscounted.  The
 * same return code and reason; on success the same keys, meta bytes and access count, and on -EBADMSG
 * the same keys before the refused record.  Where the CPU has no SSSE3 both
 * are the portable form.
 */
static void test_simd_same(void)
{
	enum { NMAX = 3000 };
	uint32_t *ka = malloc(NMAX * sizeof(*ka)), *kb = malloc(NMAX * sizeof(*kb));
	uint32_t *kr = malloc(NMAX * sizeof(*kr));
	uint8_t *ma = malloc(NMAX), *mb = malloc(NMAX), *mr = malloc(NMAX);
	uint8_t *buf = malloc(NMAX * 8 + 16);
	size_t t, mism = 0, ok = 0;

	T_ASSERT(ka && kb && kr && ma && mb && mr && buf);
	if (!ka || !kb || !kr || !ma || !mb || !mr || !buf)
		goto out;
	for (t = 0; t < 6000; t++) {
		uint64_t r = rng(), nr_keys, acca = 0, accb = 0, accr = 0;
		unsigned int fixed = 1 + (unsigned int)(r >> 8) % 4, plant = (r >> 12) % 8;
		size_t n = t % 4 ? 1 + (r >> 16) % NMAX : 1 + (r >> 16) % 40;
		size_t len = 0, dn = n, i, j;
		int64_t key = 0;
		const char *wa = NULL, *wb = NULL, *wr = NULL;
		uint8_t *in;
		int ea, eb, er;

		/* 81 K keys (zipf-like sessions), 763 K, 2^32 and just below, a handful */
		switch ((r >> 24) % 5) {
		case 0:
			nr_keys = 81000;
			break;
		case 1:
			nr_keys = 763000;
			break;
		case 2:
			nr_keys = UINT64_C(1) << 32;
			break;
		case 3:		/* where a key below 0 would wrap into range */
			nr_keys = (UINT64_C(1) << 32) - 1000;
			break;
		default:
			nr_keys = 1 + (r >> 26) % 200;
			break;
		}
		for (i = 0; i < n; i++) {
			uint64_t q = rng();
			unsigned int blen = t % 2 && q % 32 ? fixed : 1 + (unsigned int)(q >> 8) % 5;
			bool newm = plant == 1 && q % 64 == 0;

			if (plant == 5 && q % 512 == 0) {
				/* 6 bytes: too long */
				put_raw(buf, &len, UINT64_C(1) << 28 | (q >> 30), true);
				continue;
			}
			if (plant >= 2 && plant <= 4 && (q % 512 == 0 || (plant == 3 && i == 3))) {
				int64_t d = plant == 3 ? -key - 1 - (int64_t)(q >> 40) % (key < 1 << 24 ? 1 << 24 : 5) :
					    (int64_t)((q >> 20) % 1000);

				/* overlong, out of range (below 0), or 5+ bytes (a large delta) */
				if (plant == 4)
					d = (int64_t)(nr_keys - (uint64_t)key) + (int64_t)(q >> 40) % 100000;
				put_raw(buf, &len, ((uint64_t)(d < 0 ? -2 * d - 1 : 2 * d)) << 1,
					plant == 2);
				key += d;
				continue;
			}
			put_ref_record(buf, &len, &key, nr_keys, blen, newm,
				       (uint8_t)(q % 4096 == 0 ? 0x20 : (q >> 16) % 2 ? 0x01 : 0x09));
		}
		switch ((r >> 40) % 6) {
		case 0:
			len -= 1 + (r >> 44) % (len < 20 ? len : 20);
			break;
		case 1:
			dn = n + ((r >> 44) % 2 ? 1 : -1);
			break;
		default:
			break;
		}
		if (dn > NMAX)
			dn = NMAX;
		in = malloc(len ? len : 1);
		T_ASSERT(in);
		if (!in)
			break;
		memcpy(in, buf, len);
		memset(ka, 0xff, NMAX * sizeof(*ka));
		memset(kb, 0xff, NMAX * sizeof(*kb));
		hs_codec_simd(false);
		ea = hs_codec_decode(in, len, HS_ENC_KEYS_META, dn, nr_keys, ka, ma, &acca, &wa);
		hs_codec_simd(true);
		eb = hs_codec_decode(in, len, HS_ENC_KEYS_META, dn, nr_keys, kb, mb, &accb, &wb);
		er = ref_decode(in, len, dn, nr_keys, kr, mr, &accr, &wr);
		free(in);
		/* the records before a refused one: the portable form writes no further */
		for (j = 0; ea && j < dn && (ka[j] != UINT32_MAX || nr_keys > UINT32_MAX); j++)
			;
		if (ea != eb || ea != er || (ea && (strcmp(wa, wb) || strcmp(wa, wr) ||
						    memcmp(ka, kb, j * sizeof(*ka)))) ||
		    (!ea && (acca != accb || acca != accr ||
			     memcmp(ka, kb, dn * sizeof(*ka)) || memcmp(ka, kr, dn * sizeof(*ka)) ||
			     memcmp(ma, mb, dn) || memcmp(ma, mr, dn)))) {
			if (!mism++)
				fprintf(stderr, "simd_same: case %zu: %d (%s), %d (%s), ref %d (%s)\n",
					t, ea, ea ? wa : "", eb, eb ? wb : "", er, er ? wr : "");
		}
		ok += !ea;
	}
	T_EQ_U64(mism, 0);
	T_ASSERT(ok > 1000 && ok < 5000);
out:
	hs_codec_simd(true);
	free(ka);
	free(kb);
	free(kr);
	free(ma);
	free(mb);
	free(mr);
	free(buf);
}

/* Random garbage and random single-byte damage: never a crash, never past the buffers. */
static void test_garbage(void)
{
	uint8_t good[600], bytes[600];
	uint32_t keys[100], k2[100];
	uint8_t meta[100], m2[100];
	uint64_t acc;
	uint64_t ids[100];
	size_t len, i, t, rejected = 0;

	fill(keys, meta, 100, 50, &acc);
	len = hs_codec_encode(keys, meta, 100, good);
	for (t = 0; t < 20000; t++) {
		uint64_t r = rng();
		int err;

		if (t % 2) {
			for (i = 0; i < sizeof(bytes); i++)
				bytes[i] = (uint8_t)(rng() >> 56);
			err = hs_codec_decode(bytes, (size_t)(r % sizeof(bytes)), HS_ENC_KEYS_META,
					      100, 50, k2, m2, NULL, NULL);
			T_ASSERT(err == 0 || err == -EBADMSG);
			err = hs_codec_ids_decode(bytes, (size_t)(r % sizeof(bytes)), HS_IDS_DELTA,
						  (size_t)(r >> 32) % 100, ids, NULL);
			T_ASSERT(err == 0 || err == -EBADMSG);
		} else {
			memcpy(bytes, good, len);
			bytes[(r >> 8) % len] ^= (uint8_t)(1u << (r % 8));
			err = hs_codec_decode(bytes, len, HS_ENC_KEYS_META, 100, 50, k2, m2, NULL,
					      NULL);
			T_ASSERT(err == 0 || err == -EBADMSG);
			rejected += err == -EBADMSG;
		}
	}
	/* most single-bit flips break the structure or the key range */
	T_ASSERT(rejected > 1000);
}

/*
 * Eviction-log chunks (HS_EVLOG_POS_KEY): per eviction varint(position delta
 * << 1 | hinted), then varint(zigzag(key delta)); positions from first_pos,
 * keys from 0.  LRU at capacity 2 over a b c a (keys 0 1 2 0) evicts key 0
 * at position 2 and key 1 at 3: from first_pos 2, (0 << 1, zz(0)) (1 << 1,
 * zz(1)) = 00 00 02 02.  A hint eviction of key 300 at position 200 after
 * key 1 at 3: (197 << 1 | 1 = 395 = 0x8b 0x03, zz(299) = 598 = 0xd6 0x04).
 */
static void test_evictions(void)
{
	static const uint8_t want1[] = { 0x00, 0x00, 0x02, 0x02 };
	static const uint8_t want2[] = { 0x00, 0x00, 0x02, 0x02, 0x8b, 0x03, 0xd6, 0x04 };
	const uint64_t pos[] = { 2, 3, 200 };
	const uint32_t keys[] = { 0, 1, 300 };
	const uint8_t hinted[] = { 0, 0, 1 };
	uint64_t dpos[3] = { 0 };
	uint32_t dkeys[3] = { 0 };
	uint8_t dh[3] = { 0 };
	uint8_t buf[64];
	const char *why = NULL;
	size_t len;

	len = hs_codec_evict_encode(2, pos, keys, hinted, 2, buf);
	T_EQ_U64(len, sizeof(want1));
	T_ASSERT(!memcmp(buf, want1, sizeof(want1)));
	len = hs_codec_evict_encode(2, pos, keys, hinted, 3, buf);
	T_EQ_U64(len, sizeof(want2));
	T_ASSERT(!memcmp(buf, want2, sizeof(want2)));
	T_EQ_I64(hs_codec_evict_decode(buf, len, HS_EVLOG_POS_KEY, 2, 3, dpos, dkeys, dh, &why),
		 0);
	for (int i = 0; i < 3; i++) {
		T_EQ_U64(dpos[i], pos[i]);
		T_EQ_U64(dkeys[i], keys[i]);
		T_EQ_U64(dh[i], hinted[i]);
	}
	/* corrupt: truncated, a byte left over, too few, a bad encoding, key < 0 */
	T_EQ_I64(hs_codec_evict_decode(buf, len - 1, HS_EVLOG_POS_KEY, 2, 3, dpos, dkeys, dh,
				       &why), -EBADMSG);
	T_EQ_I64(hs_codec_evict_decode(buf, len, HS_EVLOG_POS_KEY, 2, 2, dpos, dkeys, dh, &why),
		 -EBADMSG);
	T_ASSERT(why && !strcmp(why, "bytes after the last eviction"));
	T_EQ_I64(hs_codec_evict_decode(buf, len, 2, 2, 3, dpos, dkeys, dh, &why), -EBADMSG);
	buf[0] = 0x00;
	buf[1] = 0x01;			/* zigzag 1: key -1 */
	T_EQ_I64(hs_codec_evict_decode(buf, 2, HS_EVLOG_POS_KEY, 0, 1, dpos, dkeys, dh, &why),
		 -EBADMSG);
	T_ASSERT(why && !strcmp(why, "evicted key out of range"));
}

static const struct t_case cases[] = {
	{ "hand_small", test_hand_small },
	{ "hand_varint_edges", test_hand_varint_edges },
	{ "hand_ids", test_hand_ids },
	{ "corrupt", test_corrupt },
	{ "corrupt_ids", test_corrupt_ids },
	{ "hand_ts", test_hand_ts },
	{ "corrupt_ts", test_corrupt_ts },
	{ "roundtrip_ts", test_roundtrip_ts },
	{ "roundtrip", test_roundtrip },
	{ "roundtrip_ids", test_roundtrip_ids },
	{ "reference", test_reference },
	{ "garbage", test_garbage },
	{ "evictions", test_evictions },
	{ "pdep_same", test_pdep_same },
	{ "simd_same", test_simd_same },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
