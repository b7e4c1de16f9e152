/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Chunk encodings of the store (see codec.h and man/hsctl-db.5).  A record of
 * an access chunk is one varint: the zigzag-coded difference from the previous
 * record's key, shifted left once, with the low bit set when the meta byte
 * differs from the previous record's; the new meta byte follows only then.
 * Each chunk starts from key 0 and meta 0.  A timed chunk (encoding 2,
 * recorded sessions) follows every record with the varint of its time minus
 * the previous record's, from 0: times never go back.  Varints are LEB128: seven bits per
 * byte, least significant group first, high bit set on every byte but the last.
 * The encoders are tight loops over arrays; the decoders check every byte.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "codec.h"
#include "hs.h"

#define REC_VARINT_MAX	5	/* (2^33 zigzag range << 1) needs 35 bits: 5 bytes */
#define ID_VARINT_MAX	10	/* 64 bits: 10 bytes */

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * For put_rec_varint_wide(), by the count of leading zero bits of a value:
 * the length of its varint, 1 + (63 - clz) / 7, without a division.
 */
static const uint8_t rec_len[64] = {
	10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7,
	 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5,
	 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3,
	 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};

/* ... and by that length (1 to REC_VARINT_MAX), the continuation bits of every byte but the last. */
static const uint64_t rec_cont[REC_VARINT_MAX + 1] = {
	0, 0, 0x80, 0x8080, 0x808080, 0x80808080,
};

/*
 * put_varint() of a record's value (below 2^35: at most REC_VARINT_MAX
 * bytes) without a branch per byte, which mispredicts on keys whose deltas
 * vary in length: the seven-bit groups are spread over the bytes of a word,
 * the continuation bits set below the last, and the word stored whole.  It
 * writes 8 bytes, of which the varint's are kept: the caller leaves room.
 * The length and the continuation bits come from two small tables: one
 * table of both (the length in the top byte) was 20-25 % slower over a
 * 10 M-record import's chunks (5.8 against 4.7 ns a record on this
 * project's VM), the same bytes.
 */
static inline uint8_t *put_rec_varint_wide(uint8_t *p, uint64_t v)
{
	unsigned int len = rec_len[__builtin_clzll(v | 1)];
	uint64_t x = (v & 0x7f) | (v << 1 & 0x7f00) | (v << 2 & 0x7f0000) |
		     (v << 3 & 0x7f000000) | (v << 4 & 0x7f00000000ull);

	x |= rec_cont[len];
	x = htole64(x);
	memcpy(p, &x, sizeof(x));
	return p + len;
}

/*
 * put_rec_varint_wide() where the CPU has a fast PDEP (BMI2: Intel from
 * Haswell on, AMD from Zen 3 on; Zen 1 and 2 microcode it, dozens of cycles):
 * one instruction deposits the five seven-bit groups into the bytes of a
 * word, and the length is the highest nonzero byte's, from the count of
 * leading zeros, as are the continuation bits -- no table load.  The same
 * bytes.  PDEP is written as inline assembly so that the file builds for
 * any x86-64 (no -mbmi2); it runs only where fast_pdep() said so.  Over the
 * chunks of a 10 M-record zipf import (this project's VM, Sapphire Rapids,
 * best of 7, two runs each), hs_codec_encode() 3.3-3.6 -> 2.2-2.8 ns a record
 * at 3.7 M keys and 3.9-4.8 -> 3.5 at 81 K; hs_codec_ids_encode() 3.1-3.5 ->
 * 2.4-2.6 ns an id at 3.7 M keys; the same bytes (a hash of every chunk).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_PDEP	1
static inline __attribute__((always_inline)) uint8_t *put_rec_varint_pdep(uint8_t *p, uint64_t v)
{
	uint64_t x;
	unsigned int c;

	__asm__("pdep %2, %1, %0" : "=r"(x) : "r"(v), "r"(0x7f7f7f7f7full));
	c = (unsigned int)__builtin_clzll(x | 1) & 56;	/* 8 * (8 - bytes) */
	x |= 0x0080808080808080ull >> c;
	x = htole64(x);
	memcpy(p, &x, sizeof(x));
	return p + 8 - (c >> 3);
}

/*
 * A form of the codec chosen at run time (PDEP here, SSSE3 for the decoder
 * below): *@state is -1 until @probe() has said, then 0 or 1, and
 * hs_codec_pdep() and hs_codec_simd() set it to -1 (ask again) or 0 (off).
 * Racing threads store the same.  Release and acquire, so that a probe that
 * builds tables (simd_init()) has built them for every thread that reads
 * its 1.
 */
static bool cpu_form(int *state, bool (*probe)(void))
{
	int f = __atomic_load_n(state, __ATOMIC_ACQUIRE);

	if (f < 0) {
		f = probe();
		__atomic_store_n(state, f, __ATOMIC_RELEASE);
	}
	return f;
}

static bool cpu_form_set(int *state, bool on, bool (*probe)(void))
{
	__atomic_store_n(state, on ? -1 : 0, __ATOMIC_RELAXED);
	return cpu_form(state, probe);
}

static int pdep_state = -1;	/* cpu_form() of pdep_probe() */

/* Whether PDEP is there and fast (not AMD families 15h and 17h). */
static bool pdep_probe(void)
{
	return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") &&
	       !__builtin_cpu_is("amdfam17h");
}

/* Whether the PDEP form is in use: there, fast, and not turned off. */
static bool fast_pdep(void)
{
	return cpu_form(&pdep_state, pdep_probe);
}

bool hs_codec_pdep(bool on)
{
	return cpu_form_set(&pdep_state, on, pdep_probe);
}
#else
#define HAVE_PDEP	0
#define put_rec_varint_pdep	put_rec_varint_wide
static bool fast_pdep(void)
{
	return false;
}

bool hs_codec_pdep(bool on)
{
	(void)on;
	return false;
}
#endif

/* A record's varint: put_rec_varint_wide(), or its PDEP form when @pdep (a constant). */
static inline __attribute__((always_inline)) uint8_t *put_rec(uint8_t *p, uint64_t v, bool pdep)
{
	return pdep ? put_rec_varint_pdep(p, v) : put_rec_varint_wide(p, v);
}

/*
 * Read a varint of at most @max bytes from [*pp, end).  Rejects truncation,
 * overlong forms (a final zero byte after the first) and bits beyond 64.
 * Return: 0 and the value in *v, or -EBADMSG with *why set.
 */
static inline int get_varint(const uint8_t **pp, const uint8_t *end, unsigned int max,
			     uint64_t *v, const char **why)
{
	const uint8_t *p = *pp;
	uint64_t val = 0;
	unsigned int i;

	for (i = 0; i < max; i++) {
		uint8_t b;

		if (unlikely(p == end)) {
			*why = "truncated varint";
			return -EBADMSG;
		}
		b = *p++;
		if (i == 9 && b > 1) {
			*why = "varint too large";
			return -EBADMSG;
		}
		val |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (unlikely(i && !b)) {
				*why = "overlong varint";
				return -EBADMSG;
			}
			*pp = p;
			*v = val;
			return 0;
		}
	}
	*why = "varint too long";
	return -EBADMSG;
}

/*
 * get_varint() of a record's value (at most REC_VARINT_MAX bytes) from @p,
 * where 8 bytes may be read: one load, the last byte found from the
 * continuation bits, the seven-bit groups gathered with shifts.  The replay
 * decodes every record of the stream, and the deltas of random keys vary in
 * length (2 to 4 bytes at a few hundred thousand keys), so get_varint()'s
 * branch per byte mispredicts at most records.
 * Return: the varint's length, with the value in *v; 0 where get_varint()
 * would refuse it (too long, overlong), so that it says why.
 */
static inline unsigned int get_rec_varint_wide(const uint8_t *p, uint64_t *v)
{
	uint64_t w, stop, last;
	unsigned int len;
	uint32_t lo;

	memcpy(&w, p, sizeof(w));
	w = le64toh(w);
	stop = ~w & 0x8080808080ull;		/* bytes without a continuation bit */
	if (unlikely(!stop))
		return 0;
	last = stop & -stop;
	/*
	 * From stop, not last: the next record's address waits on len, and
	 * through last it waited on two more instructions (the replay's
	 * decoding is bound by that chain, not by its instruction count).
	 */
	len = (unsigned int)__builtin_ctzll(stop) / 8 + 1;
	w &= (last - 1) & 0x7f7f7f7f7full;	/* the varint's seven-bit groups alone */
	/*
	 * A final zero byte after the first: overlong.  The last byte is zero
	 * when nothing is left at or above its lowest bit, last >> 7; one
	 * compare, and the length tested only then (a zero one-byte varint is
	 * a record repeating its key: valid).
	 */
	if (unlikely(w < (last >> 7)) && last != 0x80)
		return 0;
	/*
	 * The groups g0..g3, one a byte of the low word, closed up in two
	 * halvings, each moving the upper of two neighbours down: a lane of
	 * a + b 2^k that should be a + b 2^(k - d) loses b (2^k - 2^(k - d)),
	 * which is (2^d - 1) times the upper part shifted right by d.  Bytes
	 * to 14-bit pairs, pairs to 28 bits; g4, alone in the high word, goes
	 * on top.  Fewer instructions than a shift and a mask per group.
	 */
	lo = (uint32_t)w;
	lo -= (lo & 0x7f007f00u) >> 1;
	lo -= 3 * ((lo & 0x3fff0000u) >> 2);
	*v = lo | (w >> 32) << 28;
	return len;
}

/*
 * Whether all @n bytes at @b are b[0]: eight at a time, where a byte loop
 * (the compiler did not widen it) was a tenth of hs_codec_encode().
 */
static bool same_bytes(const uint8_t *b, size_t n)
{
	uint64_t all = b[0] * 0x0101010101010101ull, diff = 0, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, sizeof(w));
		diff |= w ^ all;
	}
	for (; i < n; i++)
		diff |= b[i] ^ b[0];
	return !diff;
}

/* hs_codec_encode(), with put_rec()'s PDEP form when @pdep (a constant). */
static inline __attribute__((always_inline)) size_t
encode(const uint32_t *keys, const uint8_t *meta, size_t n, uint8_t *out, bool pdep)
{
	uint8_t *p = out;
	uint32_t prev = 0;
	uint8_t pmeta = 0, diff = 0;
	size_t i;

	/*
	 * One meta byte for every record (an import's chunks): only the first
	 * record carries it, and the loop need not look at meta[] at all.
	 */
	if (n >= 2)
		diff = !same_bytes(meta, n);
	i = 0;
	if (!diff && n >= 2) {
		uint64_t v = zigzag((int64_t)keys[0]) << 1;

		prev = keys[0];
		pmeta = meta[0];
		if (pmeta) {
			p = put_rec(p, v | 1, pdep);
			*p++ = pmeta;
		} else {
			p = put_rec(p, v, pdep);
		}
		for (i = 1; i + 2 <= n; i++) {
			p = put_rec(p, zigzag((int64_t)keys[i] - (int64_t)prev) << 1, pdep);
			prev = keys[i];
		}
	}
	/*
	 * Records before the last two may store 8 bytes at once: record i starts
	 * at most 6 i bytes in, and 6 i + 8 <= hs_codec_bound(n) while i <= n - 2.
	 */
	for (; i + 2 <= n; i++) {
		uint64_t v = zigzag((int64_t)keys[i] - (int64_t)prev) << 1;

		prev = keys[i];
		if (meta[i] == pmeta) {
			p = put_rec(p, v, pdep);
		} else {
			p = put_rec(p, v | 1, pdep);
			*p++ = meta[i];
			pmeta = meta[i];
		}
	}
	for (; i < n; i++) {
		uint64_t v = zigzag((int64_t)keys[i] - (int64_t)prev) << 1;

		prev = keys[i];
		if (meta[i] == pmeta) {
			p = put_varint(p, v);
		} else {
			p = put_varint(p, v | 1);
			*p++ = meta[i];
			pmeta = meta[i];
		}
	}
	return (size_t)(p - out);
}

/* encode() in its PDEP form, not inlined: one copy of each loop. */
static __attribute__((noinline)) size_t encode_pdep(const uint32_t *keys, const uint8_t *meta,
						     size_t n, uint8_t *out)
{
	return encode(keys, meta, n, out, true);
}

/**
 * hs_codec_encode() - encode records as HS_ENC_KEYS_META
 * @keys: dense key ids
 * @meta: meta bytes, one per key
 * @n: records
 * @out: at least hs_codec_bound(@n) bytes
 *
 * Return: bytes written.
 */
size_t hs_codec_encode(const uint32_t *keys, const uint8_t *meta, size_t n, uint8_t *out)
{
	if (HAVE_PDEP && fast_pdep())
		return encode_pdep(keys, meta, n, out);
	return encode(keys, meta, n, out, false);
}

/**
 * hs_codec_encode_ts() - encode timed records as HS_ENC_KEYS_META_TS
 * @keys: dense key ids
 * @meta: meta bytes, one per key
 * @ts: times, one per key, non-decreasing
 * @n: records
 * @out: at least hs_codec_ts_bound(@n) bytes
 *
 * Each record is encoded as by hs_codec_encode(), followed by the varint of
 * its time minus the previous record's (the first: minus 0).
 *
 * Return: bytes written.
 */
size_t hs_codec_encode_ts(const uint32_t *keys, const uint8_t *meta, const uint64_t *ts,
			  size_t n, uint8_t *out)
{
	uint8_t *p = out;
	uint64_t pts = 0;
	uint32_t prev = 0;
	uint8_t pmeta = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = zigzag((int64_t)keys[i] - (int64_t)prev) << 1;

		prev = keys[i];
		if (meta[i] == pmeta) {
			p = put_varint(p, v);
		} else {
			p = put_varint(p, v | 1);
			*p++ = meta[i];
			pmeta = meta[i];
		}
		p = put_varint(p, ts[i] - pts);
		pts = ts[i];
	}
	return (size_t)(p - out);
}

/*
 * Two records from one word, for decode_run(): both must end in the 8 bytes
 * at @p, each in at most 4 of them, keep the meta byte, not be overlong, and
 * have keys below @limit -- anything else is left to get_rec_varint_wide()
 * one record at a time, which takes or refuses it as before.  The replay's
 * decoding is bound by the chain from one record's address to the next
 * (load, stop bits, their lowest, its index); here one such step takes two
 * records, and the work per word (the load, the stop bits, gathering the
 * seven-bit groups) is shared by both.  Zipf deltas over about a million keys
 * take 3 bytes, rarely 4, so most pairs fit.
 * Return: the bytes of both records (2 to 8), with their keys in @k; 0 when
 * the pair cannot be taken.
 */
static inline unsigned int get_rec_pair(const uint8_t *p, int64_t prev, uint64_t limit,
					int64_t k[2])
{
	uint64_t w, cont, stop, rest, b1, b2, x, x1, y, d;

	memcpy(&w, p, sizeof(w));
	w = le64toh(w);
	cont = w & 0x8080808080808080ull;
	stop = cont ^ 0x8080808080808080ull;	/* the last bytes of varints */
	rest = stop & (stop - 1);
	b1 = stop ^ rest;			/* the first record's last byte */
	b2 = rest & -rest;			/* the second's */
	/*
	 * One compare for three conditions: the first record ends within 4
	 * bytes (b1 <= 2^31, else b1 << 32 wraps to 0), the second ends in
	 * the word (b2 != 0, else b2 - 1 wraps to the top) and within 4 bytes
	 * of the first (b2 <= b1 << 32).
	 */
	if (unlikely(b2 - 1 >= b1 << 32))
		return 0;
	x = (w ^ cont) & (b2 - 1);		/* both records' seven-bit groups */
	/*
	 * Overlong: a last byte of zero right after a continuation byte (not
	 * the first of its record).  0x80 less a group keeps bit 7 only for
	 * a zero group, and borrows from no other byte.
	 */
	if (unlikely((b1 | b2) & cont << 8 & (0x8080808080808080ull - x)))
		return 0;
	/*
	 * The first record's groups in the low half, the second's moved to
	 * the high half, and both closed up at once by the two halvings of
	 * get_rec_varint_wide(), one per 32-bit lane.
	 */
	x1 = x & (b1 - 1);
	y = x1 | (x ^ x1) << (31 - __builtin_ctzll(b1));
	y -= (y & 0x7f007f007f007f00ull) >> 1;
	y -= 3 * ((y & 0x3fff00003fff0000ull) >> 2);
	if (unlikely(y & 0x100000001ull))	/* a new meta byte */
		return 0;
	/*
	 * unzigzag() in both lanes: y >> 1 holds the zigzag values (the
	 * second's low bit, shifted into the first lane, is the clear meta
	 * bit); halved again, each lane is xored with all ones for an odd one.
	 */
	y >>= 1;
	d = (y >> 1 & 0x7fffffff7fffffffull) ^ (y & 0x100000001ull) * 0xffffffffu;
	k[0] = prev + (int32_t)d;
	k[1] = k[0] + ((int64_t)d >> 32);
	if (unlikely((uint64_t)k[0] >= limit || (uint64_t)k[1] >= limit))	/* negative too */
		return 0;
	return (unsigned int)__builtin_ctzll(rest) / 8 + 1;
}

/*
 * The bulk of an untimed chunk, for hs_codec_decode_ts(): records that keep
 * the meta byte, while 8 bytes remain, with nothing of the general loop's
 * per-record work that they do not need (the meta byte, the time, the access
 * count; the caller fills their meta bytes in one memset).  Two at a time
 * where get_rec_pair() takes them, else one.  It stops before the first
 * record it cannot take whole -- a new meta byte, fewer than 8 bytes left, a
 * varint get_rec_varint_wide() refuses, a key out of range -- which the
 * general loop then decodes, or refuses with its reason.  A record takes at
 * most REC_VARINT_MAX bytes, so from d >= 8 bytes left the next
 * (d - 8) / REC_VARINT_MAX + 1 records all start with 8 bytes left: the
 * inner loop tests the end once per such batch, not per record; a pair
 * reads only the word at its first record.
 * Return: records decoded into @keys (at most @n); *@pp and *@prevp moved
 * past them.
 */
static __attribute__((noinline)) size_t decode_run(const uint8_t **pp, const uint8_t *end,
						   int64_t *prevp, uint64_t limit, uint32_t *keys,
						   size_t n)
{
	const uint8_t *p = *pp;
	int64_t prev = *prevp;
	size_t i = 0;

	while (i < n && end - p >= 8) {
		size_t stop = i + HS_MIN(n - i, (size_t)(end - p - 8) / REC_VARINT_MAX + 1);

		while (i < stop) {
			unsigned int vlen;
			uint64_t v;
			int64_t key, k[2];

			/* pairs while two records remain in the batch (stop > i) */
			while (i < stop - 1 && (vlen = get_rec_pair(p, prev, limit, k))) {
				p += vlen;
				keys[i] = (uint32_t)k[0];
				keys[i + 1] = (uint32_t)k[1];
				prev = k[1];
				i += 2;
			}
			if (i == stop)
				break;
			vlen = get_rec_varint_wide(p, &v);
			if (unlikely(!vlen || (v & 1)))
				goto out;
			key = prev + unzigzag(v >> 1);
			if (unlikely((uint64_t)key >= limit))	/* a negative one too */
				goto out;
			p += vlen;
			keys[i++] = (uint32_t)key;
			prev = key;
		}
	}
out:
	*pp = p;
	*prevp = prev;
	return i;
}

/*
 * decode_run() sixteen bytes at a step, where the CPU has SSSE3 (every
 * x86-64 since Core 2 and Bulldozer): the Masked VByte scheme, written
 * afresh for this format.  PMOVMSKB gathers the continuation bits of 16
 * bytes; the low 12 of them index simd_step[], built once, which says how
 * many of the next varints (up to 4, each of at most 4 bytes, all ending in
 * those 12 bytes) a step takes, their bytes, and which PSHUFB pattern of
 * simd_shuf[] spreads them into the four 32-bit lanes (zero lanes past the
 * last).  PMADDUBSW and PMADDWD then join the seven-bit groups (bytes to
 * 14-bit pairs, pairs to 28 bits), the low bit is the meta bit, the rest
 * unzigzagged and summed across the lanes onto the previous key.  A lane
 * past the last record adds 0, so lane 3 is the last key either way, and
 * the next step's base comes from it without leaving the vector unit.
 *
 * The step is all or nothing: a meta bit, an overlong varint (a zero byte
 * right after a continuation byte) or a key out of range anywhere in it
 * hands one record to decode_run(), which takes it or stops before it as
 * before; so is a step of no record (a first varint of 5 bytes).  Keys are
 * summed in 32-bit lanes: four deltas of at most 2^26 each stay within
 * 2^28 of the base, so a key out of [0, limit) cannot wrap into it while
 * limit <= 2^32 - 2^28 (else decode_run() does it all).  It writes 4 keys
 * a step, some of them past the last record it takes (its successors'
 * places, which are written later, or left so on -EBADMSG): only while 4
 * records remain, and it loads 16 bytes only while 16 remain; the tail
 * goes to decode_run().
 *
 * Over the stored chunks of two 10 M-access zipf sessions (--alpha 1, 81 K
 * and 763 K distinct keys, 2.5 and 2.7 bytes a record), hs_codec_decode()
 * alone went from 5.6-6.8 to 3.0-3.5 ns a record, 0.54 of the time in each
 * of 9 interleaved rounds (this project's VM, both vCPUs busy with another
 * build, so ratios only).  Under cachegrind the floor replay (fifo, room
 * for every key) ran 380 M instructions of decode_run() and 639 M in all
 * at 81 K keys, now 165 M and 428 M (1232 M -> 1024 M at 763 K keys): a
 * step of 4 records is about 66 instructions, but one link of the chain,
 * where get_rec_pair() took 2.  The whole replay's task-clock, 9 rounds
 * side by side with main's build: 0.77 of it at 81 K keys (fifo, 81000),
 * 0.93 with lru at 8100 (the policy's misses dominate), 0.91 and 0.89 at
 * 763 K keys; the process is short (0.1-0.5 s) and the rounds noisy.
 * Carrying p and prev through the fallback's pointers put a store and a
 * load on the chain of every step: decode_run() gets copies (3.2-3.4 ->
 * 3.1-3.2 ns a record at 81 K keys, 7 rounds).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <pthread.h>

#define HAVE_SIMD	1
/* PSHUFB patterns of 1 to 4 varints of 1 to 4 bytes (4 + 16 + 64 + 256), and none */
#define SIMD_SHUF_MAX	341

struct simd_step {
	uint16_t shuf;		/* index in simd_shuf[] */
	uint8_t bytes;		/* taken */
	uint8_t recs;		/* taken: 0 to 4 */
};

static struct simd_step simd_step[1 << 12];
static uint8_t simd_shuf[SIMD_SHUF_MAX][16] __attribute__((aligned(16)));
static pthread_once_t simd_once = PTHREAD_ONCE_INIT;
static int simd_state = -1;	/* cpu_form() of simd_probe() */

/* simd_step[] and simd_shuf[], by walking every 12-bit mask of continuation bits. */
static void simd_init(void)
{
	unsigned int m, nshuf = 0;

	for (m = 0; m < 1u << 12; m++) {
		uint8_t pat[16];
		unsigned int start = 0, rec = 0, s;

		memset(pat, 0x80, sizeof(pat));	/* PSHUFB: a zero byte */
		while (rec < 4) {
			unsigned int len = 0;

			while (start + len < 12 && (m >> (start + len) & 1))
				len++;
			if (start + len >= 12 || len >= 4)	/* not ending in 12 bytes, or 5+ */
				break;
			len++;
			for (unsigned int b = 0; b < len; b++)
				pat[rec * 4 + b] = (uint8_t)(start + b);
			start += len;
			rec++;
		}
		for (s = 0; s < nshuf && memcmp(simd_shuf[s], pat, 16); s++)
			;
		if (s == nshuf)
			memcpy(simd_shuf[nshuf++], pat, 16);
		simd_step[m] = (struct simd_step){ (uint16_t)s, (uint8_t)start, (uint8_t)rec };
	}
}

/* Whether the CPU has SSSE3; the step tables built, once, where it has. */
static bool simd_probe(void)
{
	if (!__builtin_cpu_supports("ssse3"))
		return false;
	pthread_once(&simd_once, simd_init);
	return true;
}

/* Whether the SSSE3 form is in use: there, and not turned off. */
static bool fast_simd(void)
{
	return cpu_form(&simd_state, simd_probe);
}

bool hs_codec_simd(bool on)
{
	return cpu_form_set(&simd_state, on, simd_probe);
}

static __attribute__((noinline, target("ssse3"))) size_t
decode_run_simd(const uint8_t **pp, const uint8_t *end, int64_t *prevp, uint64_t limit,
		uint32_t *keys, size_t n)
{
	const __m128i low7 = _mm_set1_epi8(0x7f), pairs = _mm_set1_epi16((short)0x8001);
	const __m128i quads = _mm_set1_epi32(0x40000001), one = _mm_set1_epi32(1);
	const __m128i sign = _mm_set1_epi32(INT32_MIN);
	const uint8_t *p = *pp;
	int64_t prev = *prevp;
	__m128i base, lim;
	size_t i = 0;

	if (limit > (UINT64_C(1) << 32) - (UINT64_C(1) << 28))
		goto rest;
	lim = _mm_xor_si128(_mm_set1_epi32((int)(uint32_t)limit), sign);
	base = _mm_set1_epi32((int)(uint32_t)prev);
	while (n - i >= 4 && end - p >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)p), x, d, k;
		unsigned int cont = (unsigned int)_mm_movemask_epi8(w);
		unsigned int zero = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_setzero_si128()));
		struct simd_step st = simd_step[cont & 0xfff];
		unsigned int bad;

		x = _mm_shuffle_epi8(w, _mm_load_si128((const __m128i *)simd_shuf[st.shuf]));
		x = _mm_and_si128(x, low7);
		x = _mm_madd_epi16(_mm_maddubs_epi16(pairs, x), quads);	/* the varints' values */
		bad = (unsigned int)_mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(x, 31)));
		x = _mm_srli_epi32(x, 1);
		d = _mm_xor_si128(_mm_srli_epi32(x, 1),
				  _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(x, one)));
		d = _mm_add_epi32(d, _mm_slli_si128(d, 4));
		d = _mm_add_epi32(d, _mm_slli_si128(d, 8));
		k = _mm_add_epi32(d, base);
		bad |= 0xf ^ (unsigned int)_mm_movemask_ps(_mm_castsi128_ps(
				_mm_cmplt_epi32(_mm_xor_si128(k, sign), lim)));
		bad |= zero & cont << 1 & ((1u << st.bytes) - 1);
		if (unlikely(bad || !st.recs)) {
			/*
			 * One record the old way, or the end of the run; through
			 * copies, since p and prev whose addresses are taken went
			 * through the stack on every step (a store and a load on
			 * the chain from one step's address to the next).
			 */
			const uint8_t *q = p;
			int64_t pv = prev;

			if (!decode_run(&q, end, &pv, limit, keys + i, 1))
				goto out;
			p = q;
			prev = pv;
			i++;
			base = _mm_set1_epi32((int)(uint32_t)prev);
			continue;
		}
		_mm_storeu_si128((__m128i *)(keys + i), k);
		base = _mm_shuffle_epi32(k, 0xff);
		prev = (uint32_t)_mm_cvtsi128_si32(base);
		p += st.bytes;
		i += st.recs;
	}
rest:
	*pp = p;
	*prevp = prev;
	return i + decode_run(pp, end, prevp, limit, keys + i, n - i);
out:
	*pp = p;
	*prevp = prev;
	return i;
}
#else
#define HAVE_SIMD	0
#define decode_run_simd	decode_run
static bool fast_simd(void)
{
	return false;
}

bool hs_codec_simd(bool on)
{
	(void)on;
	return false;
}
#endif

/**
 * hs_codec_decode_ts() - decode and validate one access chunk, with its times
 * @in: encoded bytes
 * @len: their number
 * @encoding: enum hs_chunk_encoding of the chunk
 * @n: records the chunk must hold
 * @nr_keys: every key must be below this (and below 2^32: keys are 32-bit)
 * @keys: receives @n dense key ids
 * @meta: receives @n meta bytes
 * @ts: receives @n times for HS_ENC_KEYS_META_TS (untouched for
 *	HS_ENC_KEYS_META, which has none); may be NULL to skip them
 * @accesses: receives the number of FD and PT records (may be NULL)
 * @why: receives a static reason on -EBADMSG (may be NULL)
 *
 * Only a timed chunk may hold HS_CH_READAHEAD records.
 *
 * Return: 0, or -EBADMSG (unknown encoding, truncated or overlong varint, key
 * out of range, bad meta byte, time beyond 2^64 - 1, bytes left over).
 */
int hs_codec_decode_ts(const uint8_t *in, size_t len, unsigned int encoding, size_t n,
		       uint64_t nr_keys, uint32_t *keys, uint8_t *meta, uint64_t *ts,
		       uint64_t *accesses, const char **why)
{
	const uint8_t *p = in, *end = in + len;
	const char *dummy;
	uint64_t nacc = 0, pts = 0, limit;
	int64_t prev = 0;
	uint8_t pmeta = 0;
	bool is_acc = true;	/* meta 0 is an FD access */
	bool timed, simd;
	size_t i;

	if (!why)
		why = &dummy;
	if (encoding != HS_ENC_KEYS_META && encoding != HS_ENC_KEYS_META_TS) {
		*why = "unknown chunk encoding";
		return -EBADMSG;
	}
	timed = encoding == HS_ENC_KEYS_META_TS;
	simd = HAVE_SIMD && !timed && n >= 4 && fast_simd();
	/* A dense id is 32 bits: a larger distinct count (a corrupt row) must not wrap keys. */
	limit = HS_MIN(nr_keys, (uint64_t)UINT32_MAX + 1);
	for (i = 0; i < n; i++) {
		unsigned int vlen;
		uint64_t v;
		int64_t key;

		if (!timed) {
			size_t run = simd ? decode_run_simd(&p, end, &prev, limit, keys + i, n - i) :
					    decode_run(&p, end, &prev, limit, keys + i, n - i);

			memset(meta + i, pmeta, run);
			nacc += is_acc ? run : 0;
			i += run;
			if (i == n)
				break;
		}
		if (likely(end - p >= 8 && (vlen = get_rec_varint_wide(p, &v)))) {
			p += vlen;
		} else if (p < end && *p < 0x80) {
			v = *p++;
		} else if (get_varint(&p, end, REC_VARINT_MAX, &v, why)) {
			return -EBADMSG;
		}
		key = prev + unzigzag(v >> 1);
		if (unlikely(key < 0 || (uint64_t)key >= limit)) {
			*why = "key out of range";
			return -EBADMSG;
		}
		if (v & 1) {
			if (unlikely(p == end)) {
				*why = "truncated meta byte";
				return -EBADMSG;
			}
			pmeta = *p++;
			if (unlikely(timed ? !hs_meta_is_valid_ts(pmeta) :
					     !hs_meta_is_valid(pmeta))) {
				*why = "bad meta byte";
				return -EBADMSG;
			}
			is_acc = hs_channel_is_access(hs_meta_channel(pmeta));
		}
		if (timed) {
			uint64_t d;

			if (likely(p < end && *p < 0x80)) {
				d = *p++;
			} else if (get_varint(&p, end, ID_VARINT_MAX, &d, why)) {
				return -EBADMSG;
			}
			if (unlikely(d > UINT64_MAX - pts)) {
				*why = "time out of range";
				return -EBADMSG;
			}
			pts += d;
			if (ts)
				ts[i] = pts;
		}
		keys[i] = (uint32_t)key;
		meta[i] = pmeta;
		nacc += is_acc;
		prev = key;
	}
	if (p != end) {
		*why = "bytes after the last record";
		return -EBADMSG;
	}
	if (accesses)
		*accesses = nacc;
	return 0;
}

/**
 * hs_codec_decode() - decode and validate one access chunk
 * @in: encoded bytes
 * @len: their number
 * @encoding: enum hs_chunk_encoding of the chunk
 * @n: records the chunk must hold
 * @nr_keys: every key must be below this
 * @keys: receives @n dense key ids
 * @meta: receives @n meta bytes
 * @accesses: receives the number of FD and PT records (may be NULL)
 * @why: receives a static reason on -EBADMSG (may be NULL)
 *
 * hs_codec_decode_ts() without the times.
 *
 * Return: 0, or -EBADMSG (unknown encoding, truncated or overlong varint, key
 * out of range, bad meta byte, bytes left over).
 */
int hs_codec_decode(const uint8_t *in, size_t len, unsigned int encoding, size_t n,
		    uint64_t nr_keys, uint32_t *keys, uint8_t *meta, uint64_t *accesses,
		    const char **why)
{
	return hs_codec_decode_ts(in, len, encoding, n, nr_keys, keys, meta, NULL, accesses,
				  why);
}

/* hs_codec_ids_encode(), with put_rec()'s PDEP form when @pdep (a constant). */
static inline __attribute__((always_inline)) size_t
ids_encode(const uint64_t *ids, size_t n, uint8_t *out, bool pdep)
{
	uint8_t *p = out;
	uint64_t prev = 0;
	size_t i;

	/*
	 * A delta below 2^35 (5 bytes) as a record's varint, one 8-byte store
	 * (put_rec_varint_wide()): the deltas of random ids vary in length, and
	 * put_varint()'s branch per byte mispredicted (3.5 % of a 3.7 M-key
	 * import).  Id i starts at most 10 i bytes in, so its 8 bytes stay
	 * within hs_codec_ids_bound(n) for every i < n.  The same bytes.
	 */
	for (i = 0; i < n; i++) {
		uint64_t v = zigzag((int64_t)(ids[i] - prev));

		if (likely(v >> 35 == 0))
			p = put_rec(p, v, pdep);
		else
			p = put_varint(p, v);
		prev = ids[i];
	}
	return (size_t)(p - out);
}

static __attribute__((noinline)) size_t ids_encode_pdep(const uint64_t *ids, size_t n,
							 uint8_t *out)
{
	return ids_encode(ids, n, out, true);
}

/**
 * hs_codec_ids_encode() - encode original ids as HS_IDS_DELTA
 * @ids: the ids
 * @n: their number
 * @out: at least hs_codec_ids_bound(@n) bytes
 *
 * The difference is taken modulo 2^64 and read as signed, so any id follows
 * any other in at most ten bytes.
 *
 * Return: bytes written.
 */
size_t hs_codec_ids_encode(const uint64_t *ids, size_t n, uint8_t *out)
{
	if (HAVE_PDEP && fast_pdep())
		return ids_encode_pdep(ids, n, out);
	return ids_encode(ids, n, out, false);
}

/**
 * hs_codec_ids_decode() - decode and validate one key chunk
 * @in: encoded bytes
 * @len: their number
 * @encoding: enum hs_ids_encoding of the chunk
 * @n: ids the chunk must hold
 * @ids: receives @n ids
 * @why: receives a static reason on -EBADMSG (may be NULL)
 *
 * Return: 0, or -EBADMSG.
 */
int hs_codec_ids_decode(const uint8_t *in, size_t len, unsigned int encoding, size_t n,
			uint64_t *ids, const char **why)
{
	const uint8_t *p = in, *end = in + len;
	const char *dummy;
	uint64_t prev = 0;
	size_t i;

	if (!why)
		why = &dummy;
	if (encoding != HS_IDS_DELTA) {
		*why = "unknown key chunk encoding";
		return -EBADMSG;
	}
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (get_varint(&p, end, ID_VARINT_MAX, &v, why))
			return -EBADMSG;
		prev += (uint64_t)unzigzag(v);
		ids[i] = prev;
	}
	if (p != end) {
		*why = "bytes after the last id";
		return -EBADMSG;
	}
	return 0;
}

/*
 * Eviction-log chunks (HS_EVLOG_POS_KEY): per eviction, one varint of the
 * position's difference from the previous one (the chunk's first_pos before
 * the first), shifted left once, with the low bit set for a hint eviction;
 * then one varint of the zigzag-coded difference from the previous key (0
 * before the first).
 */

/**
 * hs_codec_evict_encode() - encode evictions as HS_EVLOG_POS_KEY
 * @first_pos: the position the first difference is taken from (the chunk's
 *	       first_pos, at most @pos[0])
 * @pos: positions, in ascending order (equal ones allowed)
 * @keys: the evicted dense key ids
 * @hinted: per eviction, nonzero for one a PAGEOUT hint made
 * @n: evictions
 * @out: at least hs_codec_evict_bound(@n) bytes
 *
 * Return: bytes written.
 */
size_t hs_codec_evict_encode(uint64_t first_pos, const uint64_t *pos, const uint32_t *keys,
			     const uint8_t *hinted, size_t n, uint8_t *out)
{
	uint8_t *p = out;
	uint64_t prev_pos = first_pos;
	int64_t prev_key = 0;

	for (size_t i = 0; i < n; i++) {
		p = put_varint(p, (pos[i] - prev_pos) << 1 | (hinted[i] ? 1 : 0));
		p = put_varint(p, zigzag((int64_t)keys[i] - prev_key));
		prev_pos = pos[i];
		prev_key = keys[i];
	}
	return (size_t)(p - out);
}

/**
 * hs_codec_evict_decode() - decode and validate one eviction-log chunk
 * @in: encoded bytes
 * @len: their number
 * @encoding: enum hs_evlog_encoding of the chunk
 * @first_pos: the chunk's first_pos
 * @n: evictions the chunk must hold
 * @pos: receives @n positions
 * @keys: receives @n dense key ids
 * @hinted: receives @n flags (1: a hint eviction)
 * @why: receives a static reason on -EBADMSG (may be NULL)
 *
 * Return: 0, or -EBADMSG (unknown encoding, truncated or overlong varint, a
 * position past 2^63, a key outside 0 .. 2^32 - 1, bytes left over).
 */
int hs_codec_evict_decode(const uint8_t *in, size_t len, unsigned int encoding,
			  uint64_t first_pos, size_t n, uint64_t *pos, uint32_t *keys,
			  uint8_t *hinted, const char **why)
{
	const uint8_t *p = in, *end = in + len;
	uint64_t prev_pos = first_pos;
	int64_t prev_key = 0;
	const char *dummy;

	if (!why)
		why = &dummy;
	if (encoding != HS_EVLOG_POS_KEY) {
		*why = "unknown eviction chunk encoding";
		return -EBADMSG;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t v, d;
		uint8_t h;
		int64_t k;

		if (get_varint(&p, end, ID_VARINT_MAX, &v, why))
			return -EBADMSG;
		d = v >> 1;
		h = (uint8_t)(v & 1);
		if (d > (UINT64_C(1) << 63) - prev_pos) {
			*why = "eviction position too large";
			return -EBADMSG;
		}
		prev_pos += d;
		if (get_varint(&p, end, ID_VARINT_MAX, &v, why))
			return -EBADMSG;
		k = prev_key + unzigzag(v);
		if (v > UINT64_C(0x1ffffffff) || k < 0 || k > (int64_t)UINT32_MAX) {
			*why = "evicted key out of range";
			return -EBADMSG;
		}
		pos[i] = prev_pos;
		keys[i] = (uint32_t)k;
		hinted[i] = h;
		prev_key = k;
	}
	if (p != end) {
		*why = "bytes after the last eviction";
		return -EBADMSG;
	}
	return 0;
}
