/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hierarchical bitmap: a set of integers below a bound, with set, clear,
 * test, and the largest and the smallest member each in one word per level
 * (levels = log64 of the bound: 4 for 16 M, 5 for 1 G).  Level 0 holds one
 * bit per member; each word of level k + 1 says which words of level k are
 * not zero, up to a top level of one word.
 *
 *	level 2:  [0000..0101]                  one word
 *	level 1:  [..]  [..]  ...               a bit per level-0 word
 *	level 0:  [64 members] [64 members] ... a bit per member
 *
 * OPT (policies/opt.c) keeps its resident keys' next uses in one: a priority
 * queue whose priorities are distinct integers below the stream's length,
 * where "the largest" costs a few words that stay in cache instead of a heap's
 * log2(n) scattered entries.  Memory: a bit per possible member, plus 1/63.
 */
#ifndef HS_HBITS_H
#define HS_HBITS_H

#include <stdbool.h>
#include <stdint.h>

#define HS_HBITS_LEVELS	8		/* 64^8 = 2^48 members at most */
#define HS_HBITS_NONE	UINT64_MAX	/* hs_hbits_max()/min() of an empty set */

struct hs_hbits {
	uint64_t	*w[HS_HBITS_LEVELS];	/* w[0]: members; w[k + 1]: non-zero words of w[k] */
	uint64_t	bound;			/* members are below this */
	unsigned int	levels;			/* the top, w[levels - 1], is one word */
};

/*
 * hs_hbits_init() - an empty set of integers below @bound (at least 1)
 * Return: 0, -EINVAL (@bound 0 or above 2^48), or -ENOMEM.
 */
int hs_hbits_init(struct hs_hbits *b, uint64_t bound);
/* hs_hbits_grow() - raise the bound to at least @bound, keeping the members. */
int hs_hbits_grow(struct hs_hbits *b, uint64_t bound);
void hs_hbits_release(struct hs_hbits *b);
/* Members, by a pass over level 0 (for checks). */
uint64_t hs_hbits_count(const struct hs_hbits *b);

static inline bool hs_hbits_test(const struct hs_hbits *b, uint64_t i)
{
	return b->w[0][i >> 6] >> (i & 63) & 1;
}

/* Add @i (below the bound). */
static inline void hs_hbits_set(struct hs_hbits *b, uint64_t i)
{
	for (unsigned int l = 0; l < b->levels; l++) {
		uint64_t old = b->w[l][i >> 6];

		b->w[l][i >> 6] = old | 1ull << (i & 63);
		if (old)
			return;		/* the levels above already say so */
		i >>= 6;
	}
}

/* Remove @i (below the bound). */
static inline void hs_hbits_clear(struct hs_hbits *b, uint64_t i)
{
	for (unsigned int l = 0; l < b->levels; l++) {
		uint64_t w = b->w[l][i >> 6] & ~(1ull << (i & 63));

		b->w[l][i >> 6] = w;
		if (w)
			return;		/* the word is still not empty */
		i >>= 6;
	}
}

/* The largest member, or HS_HBITS_NONE. */
static inline uint64_t hs_hbits_max(const struct hs_hbits *b)
{
	uint64_t i = 0;

	if (!b->w[b->levels - 1][0])
		return HS_HBITS_NONE;
	for (unsigned int l = b->levels; l--;)
		i = i << 6 | (uint64_t)(63 - __builtin_clzll(b->w[l][i]));
	return i;
}

/* The smallest member, or HS_HBITS_NONE. */
static inline uint64_t hs_hbits_min(const struct hs_hbits *b)
{
	uint64_t i = 0;

	if (!b->w[b->levels - 1][0])
		return HS_HBITS_NONE;
	for (unsigned int l = b->levels; l--;)
		i = i << 6 | (uint64_t)__builtin_ctzll(b->w[l][i]);
	return i;
}

#endif /* HS_HBITS_H */
