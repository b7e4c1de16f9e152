/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz harness for the store's chunk codec (lib/codec.c).  Each input is
 * used four ways:
 *
 *   1. as an access chunk: an 8-byte header gives the record count, the
 *      session's distinct-key count and the encoding, the rest is the chunk.
 *      hs_codec_decode_ts() must agree with the small reference decoder below,
 *      written from the byte layout in man/hsctl-db.5 for encodings 1 and 2
 *      (accept or reject alike, the same keys, meta bytes, times and access
 *      count), and what it accepts must re-encode to the same bytes less one
 *      byte per redundant meta change;
 *   2. as a key chunk: hs_codec_ids_decode() must agree with its reference,
 *      and since that encoding has one form per id sequence, what it accepts
 *      must re-encode to exactly the input;
 *   3. as records (4 bytes of key, 1 of meta, made valid for encoding 1):
 *      encode, then decode with the largest key + 1 as distinct count, must
 *      give them back within hs_codec_bound() bytes;
 *   4. as original ids (8 bytes each): the same round trip for key chunks.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "hs.h"
#include "fuzz.h"

#define MAX_N	4096	/* records or ids per decoded chunk */

struct ref_rec {
	int64_t		key;
	uint8_t		meta;
	uint64_t	t;	/* encoding 2: the record's time */
};

/* A varint of at most @max bytes, as man/hsctl-db.5 specifies one.  Return: true if valid. */
static bool ref_varint(const uint8_t **pp, const uint8_t *end, unsigned int max, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t val = 0;
	unsigned int i;

	for (i = 0; i < max; i++) {
		if (p == end)
			return false;
		/* the tenth byte of a 64-bit value holds its one top bit */
		if (i == 9 && *p > 1)
			return false;
		val |= (uint64_t)(*p & 0x7f) << (7 * i);
		if (!(*p++ & 0x80)) {
			if (i && !p[-1])
				return false;	/* redundant trailing zero byte */
			*pp = p;
			*v = val;
			return true;
		}
	}
	return false;
}

static int64_t unz(uint64_t v)
{
	return v & 1 ? -(int64_t)(v >> 1) - 1 : (int64_t)(v >> 1);
}

/*
 * Encodings 1 and 2 of an access chunk, straight from the man page: 2 is 1
 * with a time delta (a varint of at most ten bytes, the sum within 64 bits)
 * after each record, and channel 5 (READAHEAD) valid.
 */
static bool ref_decode(const uint8_t *p, size_t len, unsigned int enc, size_t n,
		       uint64_t nr_keys, struct ref_rec *out, uint64_t *acc, size_t *redundant)
{
	const uint8_t *end = p + len;
	bool timed = enc == HS_ENC_KEYS_META_TS;
	uint64_t t = 0;
	int64_t key = 0;
	uint8_t meta = 0;
	size_t i;

	*acc = 0;
	*redundant = 0;
	if (enc != HS_ENC_KEYS_META && !timed)
		return false;
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (!ref_varint(&p, end, 5, &v))
			return false;
		key += unz(v >> 1);
		/* dense ids are 32-bit: no session has more keys than that */
		if (key < 0 || (uint64_t)key >= nr_keys || key > UINT32_MAX)
			return false;
		if (v & 1) {
			if (p == end)
				return false;
			if (*p == meta)
				(*redundant)++;
			meta = *p++;
			/* bits 6-7 zero, bit 5 (no recency) with channel 1 (PT) only */
			if ((meta & 0xc0) || ((meta & 0x20) && (meta & 7) != 1) ||
			    (meta & 7) > (timed ? 5 : 4))
				return false;
		}
		if (timed) {
			uint64_t d;

			if (!ref_varint(&p, end, 10, &d) || d > UINT64_MAX - t)
				return false;
			t += d;
			out[i].t = t;
		}
		out[i].key = key;
		out[i].meta = meta;
		*acc += (meta & 7) <= 1;
	}
	return p == end;
}

static bool ref_ids_decode(const uint8_t *p, size_t len, unsigned int enc, size_t n,
			   uint64_t *out)
{
	const uint8_t *end = p + len;
	uint64_t id = 0;
	size_t i;

	if (enc != HS_IDS_DELTA)
		return false;
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (!ref_varint(&p, end, 10, &v))
			return false;
		id += (uint64_t)unz(v);
		out[i] = id;
	}
	return p == end;
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* 1: the input as an access chunk behind an 8-byte header. */
static void check_decode(const uint8_t *data, size_t size)
{
	static uint32_t keys[MAX_N];
	static uint8_t meta[MAX_N], again[MAX_N * 16];
	static uint64_t ts[MAX_N];
	static struct ref_rec ref[MAX_N];
	uint64_t nr_keys, acc = 0, racc;
	unsigned int enc;
	const char *why = NULL;
	size_t n, i, red, len;
	bool ok, timed;
	int ret;

	if (size < 8)
		return;
	n = get_le(data, 2) % (MAX_N + 1);
	/* byte 6's top bits reach past 32 bits: a corrupt distinct_keys */
	nr_keys = get_le(data + 2, 4) | (get_le(data + 6, 1) >> 4) << 32;
	enc = data[7] < 0xf0 ? HS_ENC_KEYS_META : data[7] & 0xf;
	data += 8;
	size -= 8;

	timed = enc == HS_ENC_KEYS_META_TS;
	ret = hs_codec_decode_ts(data, size, enc, n, nr_keys, keys, meta, ts, &acc, &why);
	ok = ref_decode(data, size, enc, n, nr_keys, ref, &racc, &red);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG, "hs_codec_decode() = %d", ret);
	FUZZ_CHECK((ret == 0) == ok, "hs_codec_decode() = %d (%s), the reference %s", ret,
		   ret ? why : "", ok ? "accepts" : "rejects");
	if (ret) {
		FUZZ_CHECK(why && *why, "no reason given for -EBADMSG");
		return;
	}
	FUZZ_CHECK(acc == racc, "%llu accesses, the reference counts %llu",
		   (unsigned long long)acc, (unsigned long long)racc);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(keys[i] < nr_keys, "record %zu: key %u >= %llu", i, keys[i],
			   (unsigned long long)nr_keys);
		FUZZ_CHECK(keys[i] == ref[i].key && meta[i] == ref[i].meta,
			   "record %zu: (%u, %#x), the reference (%lld, %#x)", i, keys[i],
			   meta[i], (long long)ref[i].key, ref[i].meta);
		FUZZ_CHECK(timed ? hs_meta_is_valid_ts(meta[i]) : hs_meta_is_valid(meta[i]),
			   "record %zu: bad meta %#x", i, meta[i]);
		FUZZ_CHECK(!timed || ts[i] == ref[i].t, "record %zu: time %llu, the reference %llu",
			   i, (unsigned long long)ts[i], (unsigned long long)ref[i].t);
	}
	len = timed ? hs_codec_encode_ts(keys, meta, ts, n, again) :
		      hs_codec_encode(keys, meta, n, again);
	FUZZ_CHECK(len + red == size, "re-encoded in %zu bytes, %zu redundant meta changes,"
		   " from %zu", len, red, size);
	if (!red)
		FUZZ_CHECK(!memcmp(again, data, size), "re-encoded bytes differ");
}

/* 2: the input as a key chunk behind a 3-byte header. */
static void check_ids_decode(const uint8_t *data, size_t size)
{
	static uint64_t ids[MAX_N], ref[MAX_N];
	static uint8_t again[MAX_N * 10];
	const char *why = NULL;
	unsigned int enc;
	size_t n, len;
	bool ok;
	int ret;

	if (size < 3)
		return;
	n = get_le(data, 2) % (MAX_N + 1);
	enc = data[2] < 0xf0 ? HS_IDS_DELTA : data[2] & 0xf;
	data += 3;
	size -= 3;

	ret = hs_codec_ids_decode(data, size, enc, n, ids, &why);
	ok = ref_ids_decode(data, size, enc, n, ref);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG, "hs_codec_ids_decode() = %d", ret);
	FUZZ_CHECK((ret == 0) == ok, "hs_codec_ids_decode() = %d (%s), the reference %s",
		   ret, ret ? why : "", ok ? "accepts" : "rejects");
	if (ret) {
		FUZZ_CHECK(why && *why, "no reason given for -EBADMSG");
		return;
	}
	FUZZ_CHECK(!memcmp(ids, ref, n * sizeof(*ids)), "ids differ from the reference's");
	len = hs_codec_ids_encode(ids, n, again);
	FUZZ_CHECK(len == size && !memcmp(again, data, size),
		   "re-encoded ids differ (%zu bytes from %zu)", len, size);
}

/* 3: the input as records, encoded and decoded back. */
static void check_round_trip(const uint8_t *data, size_t size)
{
	static uint32_t keys[MAX_N], back[MAX_N];
	static uint8_t meta[MAX_N], mback[MAX_N], enc[MAX_N * 6];
	uint64_t nr_keys = 0, acc = 0, want = 0;
	const char *why = "";
	size_t n = HS_MIN(size / 5, (size_t)MAX_N), i, len;
	int ret;

	for (i = 0; i < n; i++) {
		uint8_t m = data[5 * i + 4] & HS_META_DEFINED;

		keys[i] = (uint32_t)get_le(data + 5 * i, 4);
		/* channels 5-7 are not in an untimed chunk (5, READAHEAD, only in
		 * encoding 2; 6 and 7 nowhere): fold them onto 0-2 */
		if ((m & HS_META_CHANNEL_MASK) >= HS_CH_READAHEAD)
			m = (uint8_t)(m - HS_CH_READAHEAD);
		/* the no-recency bit goes with a page-table access only */
		if ((m & HS_META_NORECENCY) && hs_meta_channel(m) != HS_CH_PT)
			m &= (uint8_t)~HS_META_NORECENCY;
		meta[i] = m;
		want += hs_channel_is_access(hs_meta_channel(m));
		nr_keys = HS_MAX(nr_keys, (uint64_t)keys[i] + 1);
	}
	len = hs_codec_encode(keys, meta, n, enc);
	FUZZ_CHECK(len <= hs_codec_bound(n), "%zu bytes for %zu records", len, n);
	ret = hs_codec_decode(enc, len, HS_ENC_KEYS_META, n, nr_keys, back, mback, &acc, &why);
	FUZZ_CHECK(ret == 0, "own encoding of %zu records rejected: %s", n, why);
	FUZZ_CHECK(!memcmp(keys, back, n * sizeof(*keys)) && !memcmp(meta, mback, n),
		   "records changed in the round trip");
	FUZZ_CHECK(acc == want, "%llu accesses, %llu expected", (unsigned long long)acc,
		   (unsigned long long)want);
	if (n) {
		/* one key fewer in the session: the largest key is out of range */
		ret = hs_codec_decode(enc, len, HS_ENC_KEYS_META, n, nr_keys - 1, back, mback,
				      NULL, NULL);
		FUZZ_CHECK(ret == -EBADMSG, "a key >= distinct_keys accepted (%d)", ret);
	}
}

/* 4: the input as original ids, encoded and decoded back. */
static void check_ids_round_trip(const uint8_t *data, size_t size)
{
	static uint64_t ids[MAX_N], back[MAX_N];
	static uint8_t enc[MAX_N * 10];
	const char *why = "";
	size_t n = HS_MIN(size / 8, (size_t)MAX_N), i, len;
	int ret;

	for (i = 0; i < n; i++)
		ids[i] = get_le(data + 8 * i, 8);
	len = hs_codec_ids_encode(ids, n, enc);
	FUZZ_CHECK(len <= hs_codec_ids_bound(n), "%zu bytes for %zu ids", len, n);
	ret = hs_codec_ids_decode(enc, len, HS_IDS_DELTA, n, back, &why);
	FUZZ_CHECK(ret == 0, "own encoding of %zu ids rejected: %s", n, why);
	FUZZ_CHECK(!memcmp(ids, back, n * sizeof(*ids)), "ids changed in the round trip");
	if (len) {
		ret = hs_codec_ids_decode(enc, len - 1, HS_IDS_DELTA, n, back, NULL);
		FUZZ_CHECK(ret == -EBADMSG, "a truncated key chunk accepted");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_decode(data, size);
	check_ids_decode(data, size);
	check_round_trip(data, size);
	check_ids_round_trip(data, size);
	return 0;
}
