/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compact forms in which the store keeps a session: access chunks (dense
 * key ids with their meta bytes), key chunks (the original 64-bit ids in
 * dense-id order) and the eviction-log chunks of replay --log-evictions
 * (position and key of every eviction of a run).  All are runs of LEB128
 * varints of deltas, so a sequential scan costs one byte per record and a
 * random access over a few million keys three or four.  Every chunk starts
 * from a zero state, so any chunk decodes on its own.  The byte layout is specified in man/hsctl-db.5;
 * changing it means a new encoding number, never a new meaning for an old one.
 *
 * Recorded sessions add each record's trace-clock time (encoding 2).
 * Decoders trust nothing: a truncated varint, a key outside the session, a bad
 * meta byte, too few or too many bytes all give -EBADMSG with a reason.
 */
#ifndef HS_CODEC_H
#define HS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"

#define HS_CHUNK_RECORDS	65536u	/* records per access chunk (the last: 1 to this) */
#define HS_KEY_CHUNK_IDS	65536u	/* original ids per key chunk (the last: 1 to this) */

/* Values of access_chunks.encoding. */
enum hs_chunk_encoding {
	HS_ENC_KEYS_META	= 1,	/* per record: varint(zigzag(key delta) << 1 | meta
					 * changed), then the meta byte if it changed */
	HS_ENC_KEYS_META_TS	= 2,	/* recorded sessions: as 1, then varint(time -
					 * previous time), trace-clock ns from 0; the only
					 * encoding that may hold HS_CH_READAHEAD */
};

/* Values of session_keys.encoding. */
enum hs_ids_encoding {
	HS_IDS_DELTA		= 1,	/* per id: varint(zigzag(id - previous id)) */
};

/* Values of run_evictions.encoding (hsctl replay --log-evictions). */
enum hs_evlog_encoding {
	HS_EVLOG_POS_KEY	= 1,	/* per eviction: varint(position delta << 1 | hinted),
					 * varint(zigzag(key delta)) */
};

#define HS_EVLOG_CHUNK		65536u	/* evictions per log chunk (the last: 1 to this) */

/* Most bytes hs_codec_evict_encode() writes for @n evictions (10 + 5 each). */
static inline size_t hs_codec_evict_bound(size_t n)
{
	return n * 15;
}

/* Meta bits this version defines (access.h); the others must be 0. */
#define HS_META_DEFINED		(HS_META_CHANNEL_MASK | HS_META_ANON | HS_META_WRITE | \
				 HS_META_NORECENCY)

/* Known bits only, and the no-recency bit on a page-table access only. */
static inline bool hs_meta_bits_valid(uint8_t meta)
{
	return !(meta & ~HS_META_DEFINED) &&
	       (!(meta & HS_META_NORECENCY) || (meta & HS_META_CHANNEL_MASK) == HS_CH_PT);
}

/* A meta byte of an untimed chunk: hs_meta_bits_valid(), channel FD to DROP. */
static inline bool hs_meta_is_valid(uint8_t meta)
{
	return hs_meta_bits_valid(meta) && (meta & HS_META_CHANNEL_MASK) <= HS_CH_DROP;
}

/* A meta byte of a timed chunk: hs_meta_bits_valid(), a known channel. */
static inline bool hs_meta_is_valid_ts(uint8_t meta)
{
	return hs_meta_bits_valid(meta) && (meta & HS_META_CHANNEL_MASK) < HS_CH_NR;
}

/* Most bytes hs_codec_encode() writes for @n records (6 per record). */
static inline size_t hs_codec_bound(size_t n)
{
	return n * 6;
}

/* Most bytes hs_codec_encode_ts() writes for @n records (6 + 10 per record). */
static inline size_t hs_codec_ts_bound(size_t n)
{
	return n * 16;
}

/* Most bytes hs_codec_ids_encode() writes for @n ids (10 per id). */
static inline size_t hs_codec_ids_bound(size_t n)
{
	return n * 10;
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
size_t hs_codec_encode(const uint32_t *keys, const uint8_t *meta, size_t n, uint8_t *out);

/**
 * hs_codec_encode_ts() - encode timed records as HS_ENC_KEYS_META_TS
 * @keys: dense key ids
 * @meta: meta bytes, one per key
 * @ts: times, one per key, non-decreasing
 * @n: records
 * @out: at least hs_codec_ts_bound(@n) bytes
 *
 * Return: bytes written.
 */
size_t hs_codec_encode_ts(const uint32_t *keys, const uint8_t *meta, const uint64_t *ts,
			  size_t n, uint8_t *out);

/**
 * hs_codec_decode_ts() - decode and validate one access chunk, with its times
 * @in: encoded bytes
 * @len: their number
 * @encoding: enum hs_chunk_encoding of the chunk
 * @n: records the chunk must hold
 * @nr_keys: every key must be below this
 * @keys: receives @n dense key ids
 * @meta: receives @n meta bytes
 * @ts: receives @n times for HS_ENC_KEYS_META_TS (untouched for
 *	HS_ENC_KEYS_META); may be NULL
 * @accesses: receives the number of FD and PT records (may be NULL)
 * @why: receives a static reason on -EBADMSG (may be NULL)
 *
 * Return: 0, or -EBADMSG (as hs_codec_decode(), and a time beyond 2^64 - 1).
 */
int hs_codec_decode_ts(const uint8_t *in, size_t len, unsigned int encoding, size_t n,
		       uint64_t nr_keys, uint32_t *keys, uint8_t *meta, uint64_t *ts,
		       uint64_t *accesses, const char **why);

/**
 * hs_codec_decode() - decode and validate one access chunk
 * @in: encoded bytes
 * @len: their number
 * @encoding: enum hs_chunk_encoding of the chunk
 * @n: records the chunk must hold
 * @nr_keys: every key must be below this (and below 2^32: keys are 32-bit)
 * @keys: receives @n dense key ids
 * @meta: receives @n meta bytes
 * @accesses: receives the number of FD and PT records (may be NULL)
 * @why: receives a static reason on -EBADMSG (may be NULL)
 *
 * Return: 0, or -EBADMSG (unknown encoding, truncated or overlong varint, key
 * out of range, bad meta byte, bytes left over).
 */
int hs_codec_decode(const uint8_t *in, size_t len, unsigned int encoding, size_t n,
		    uint64_t nr_keys, uint32_t *keys, uint8_t *meta, uint64_t *accesses,
		    const char **why);

/**
 * hs_codec_ids_encode() - encode original ids as HS_IDS_DELTA
 * @ids: the ids
 * @n: their number
 * @out: at least hs_codec_ids_bound(@n) bytes
 *
 * Return: bytes written.
 */
size_t hs_codec_ids_encode(const uint64_t *ids, size_t n, uint8_t *out);

/**
 * hs_codec_pdep() - choose the encoders' form
 * @on: false: the portable form; true: the PDEP form where the CPU has a fast
 *      PDEP (the default)
 *
 * hs_codec_encode() and hs_codec_ids_encode() write the same bytes either
 * way; tests and benchmarks compare the two.
 *
 * Return: whether the PDEP form is in use now.
 */
bool hs_codec_pdep(bool on);

/**
 * hs_codec_simd() - choose the decoder's form
 * @on: false: the portable form; true: the SSSE3 form where the CPU has it
 *      (the default)
 *
 * hs_codec_decode() and hs_codec_decode_ts() give the same keys, meta bytes,
 * return codes and reasons either way; tests and benchmarks compare the two.
 * On -EBADMSG the keys past the refused record may differ.
 *
 * Return: whether the SSSE3 form is in use now.
 */
bool hs_codec_simd(bool on);

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
			uint64_t *ids, const char **why);

/**
 * hs_codec_evict_encode() - encode evictions as HS_EVLOG_POS_KEY
 * @first_pos: the position differences start from (at most @pos[0])
 * @pos: positions, ascending (equal ones allowed)
 * @keys: the evicted dense key ids
 * @hinted: per eviction, nonzero for a PAGEOUT hint's
 * @n: evictions
 * @out: at least hs_codec_evict_bound(@n) bytes
 * Return: bytes written.
 */
size_t hs_codec_evict_encode(uint64_t first_pos, const uint64_t *pos, const uint32_t *keys,
			     const uint8_t *hinted, size_t n, uint8_t *out);

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
 * Return: 0, or -EBADMSG.
 */
int hs_codec_evict_decode(const uint8_t *in, size_t len, unsigned int encoding,
			  uint64_t first_pos, size_t n, uint64_t *pos, uint32_t *keys,
			  uint8_t *hinted, const char **why);

#endif /* HS_CODEC_H */
