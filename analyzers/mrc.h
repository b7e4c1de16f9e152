/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Miss-ratio curves of a stored session (hsctl mrc): the grid of sizes a
 * curve is sampled at, and the one-pass curves of the stack algorithms LRU
 * and OPT over a session (analyzers/stackdist.c, analyzers/optstack.c).
 * Other policies are sampled by the shared replay of lib/replay.c; storing
 * the curves is lib/store.c's.
 */
#ifndef HS_MRC_H
#define HS_MRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hs_store;

/* Most sizes one grid may hold. */
#define HS_MRC_MAX_SIZES	100000u

/**
 * hs_mrc_sizes_parse() - the sizes of a --sizes specification
 * @spec: comma-separated items; an item is a size or a range.  A size is a
 *	  count of units ("1000"), a share of the distinct keys ("10%", at
 *	  least 1) or, when @unit_bytes is not 0, a memory size ("64M",
 *	  hs_parse_size()).  A range is "A..B" (every size from A to B),
 *	  "A..B/S" (linear: A, A + S, ... and B; S is a size too) or "A..B:N"
 *	  (N >= 2 log-spaced sizes from A to B, rounded, duplicates merged)
 * @distinct_keys: what 100% is (>= 1)
 * @unit_bytes: bytes per unit for memory sizes, or 0 when the session's
 *		unit is not a memory unit
 * @out: receives a malloc'd array of the sizes, ascending and distinct
 * @n: receives its length (>= 1)
 *
 * Return: 0, -EINVAL (a malformed item, or a range with A > B), -ERANGE (a
 * size outside 1 .. UINT32_MAX), -E2BIG (more than HS_MRC_MAX_SIZES sizes) or
 * -ENOMEM.
 */
int hs_mrc_sizes_parse(const char *spec, uint64_t distinct_keys, uint64_t unit_bytes,
		       uint64_t **out, size_t *n);

/**
 * struct hs_mrc_stack - the one-pass curves of one session
 * @accesses: accesses in the session
 * @cold: first accesses (misses at every size, for both policies)
 * @sampled: accesses the analyzers saw (@accesses unless sampled)
 * @sampled_keys: distinct keys among them
 * @lru_s: seconds spent on the LRU stack distances alone (0 when the OPT
 *	   stack gave them in its pass)
 * @opt_s: seconds spent on the OPT stack (with the LRU curve when asked)
 */
struct hs_mrc_stack {
	uint64_t	accesses;
	uint64_t	cold;
	uint64_t	sampled;
	uint64_t	sampled_keys;
	double		lru_s;
	double		opt_s;
};

/* Smallest --sample rate: the sampling threshold is kept to 1 / 2^24. */
#define HS_MRC_MIN_RATE		1e-6

/**
 * hs_mrc_sample_keep() - whether spatial sampling at @rate keeps @key
 * @key: a session's key id
 * @rate: the sampling rate, HS_MRC_MIN_RATE .. 1
 *
 * A key is kept when a 64-bit mix of its id, taken modulo 2^24, is below
 * rate * 2^24 (rounded): the same keys for the same rate on every run, and
 * every key at rate 1.
 *
 * Return: true to keep the key's accesses.
 */
bool hs_mrc_sample_keep(uint32_t key, double rate);

/**
 * hs_mrc_stack_session() - LRU and OPT hits at every size of a grid, one pass
 * @st: the store
 * @session: session id; its stream must hold accesses only (records ==
 *	     accesses): hints and drops are outside the stack model
 * @sizes: the grid (any order)
 * @n: entries of @sizes
 * @lru_hits: receives LRU's hits at each size, or NULL to skip LRU
 * @opt_hits: receives OPT's (demand variant) hits at each size, or NULL
 * @out: receives the counts and times
 *
 * Reads the stream into memory once (13 bytes per access with OPT, 4
 * without) and runs both analyzers over it.
 *
 * Return: 0, -ENOENT (no such session), -EOPNOTSUPP (the stream has hints or
 * drops), -EOVERFLOW (too many keys), -EBADMSG (a corrupt stream), -ENOMEM,
 * or another -errno from the store.
 */
int hs_mrc_stack_session(struct hs_store *st, int64_t session, const uint64_t *sizes,
			 size_t n, uint64_t *lru_hits, uint64_t *opt_hits,
			 struct hs_mrc_stack *out);

/**
 * hs_mrc_stack_sampled() - hs_mrc_stack_session() on a spatial sample
 * @st: the store
 * @session: session id (accesses only, as for hs_mrc_stack_session())
 * @rate: the sampling rate, HS_MRC_MIN_RATE .. 1; 1 is hs_mrc_stack_session()
 * @sizes: the grid, in the session's units (any order)
 * @n: entries of @sizes
 * @lru_hits: receives LRU's estimated hits at each size, or NULL
 * @opt_hits: receives OPT's estimated hits at each size, or NULL
 * @out: receives the counts (@out->sampled, @out->sampled_keys: the sample's)
 *
 * SHARDS (Waldspurger, Park, Garthwaite and Ahmad, FAST 2015), fixed rate:
 * only the accesses of the keys hs_mrc_sample_keep() keeps are fed to the
 * analyzers, size C is read off the sample's curve at C * rate (rounded;
 * 0 hits below one unit), and the sample's hits are scaled by accesses /
 * sampled accesses, so misses / accesses is the sample's miss ratio.  An
 * estimate: hsctl-mrc(1) gives its measured error.  A sample without
 * accesses gives 0 hits everywhere.
 *
 * Return: as hs_mrc_stack_session(), and -EINVAL for a rate out of range.
 */
int hs_mrc_stack_sampled(struct hs_store *st, int64_t session, double rate,
			 const uint64_t *sizes, size_t n, uint64_t *lru_hits,
			 uint64_t *opt_hits, struct hs_mrc_stack *out);

#endif /* HS_MRC_H */
