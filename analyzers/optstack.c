/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OPT stack distances: Mattson's one-pass stack algorithm for Belady's MIN
 * with demand paging.  It gives every access's OPT stack distance and so the
 * hit count of the OPT policy (policies/opt.c, demand variant) at every
 * capacity at once: the whole OPT miss-ratio curve from one pass, in
 * O((r + 1) log n) per access, where r is the number of keys the access
 * pushes down (see below; small in practice).  It shares no code with
 * policies/opt.c, so tests/t-mrc.c holds each against the other.
 */

/*
 * Design
 * ======
 *
 * Mattson, Gecsei, Slutz and Traiger ("Evaluation techniques for storage
 * hierarchies", IBM Systems Journal 9(2), 1970) showed that a policy which
 * evicts by a priority that does not depend on the capacity is a stack
 * algorithm: the memory of capacity C holds a subset of what the memory of
 * capacity C + 1 holds, for every stream.  MIN is one: its priority is the
 * time of the next use (sooner = more worth keeping).  The whole family of
 * memories is then one stack, the memory of capacity C being its top C
 * entries, and an access hits at C exactly when the accessed key sits at a
 * position d <= C (its OPT stack distance) before the access.
 *
 * The update that keeps this true.  Key x is accessed at position d (or is
 * new: d = depth + 1, a fresh slot at the bottom).  x goes to position 1; the
 * old top is "carried" down: at each position i = 2 .. d - 1 the carried key
 * and the key at i compete, the one needed sooner stays at i and the other
 * is carried on; at position d the carried key takes x's old slot.
 *
 *	before:  pos  1   2   3   4   5 (x)       next uses: a 9, b 7, c 12, e 8
 *	         key  a   b   c   e   x
 *	carried: a(9) vs b(7): b stays, a carried; a(9) vs c(12): a stays at 3,
 *	         c carried; c(12) vs e(8): e stays; c takes slot 5
 *	after:   key  x   b   a   e   c
 *
 * Why the top C is MIN's memory of capacity C, by induction.  If d <= C, the
 * memory hit; positions above d only traded keys among themselves, so the
 * top C is the same set plus nothing: MIN keeps its memory on a hit.  If
 * d > C, the memory missed and x (now at 1) came in; the key that leaves the
 * top C is the one carried past position C, which is the key needed latest
 * among the old top C (the carried key is always the latest-needed of the
 * positions passed so far) -- exactly MIN's victim.  The proof that this
 * is optimal for demand paging is Mattson et al.'s; policies/opt.c evicts the
 * same key (ties are only between keys never used again, which cannot change
 * a hit or a miss).  Histogram the distances and
 *
 *	hits(C) = sum over d = 1 .. C of hist[d],
 *
 * exact at every C; tests/t-mrc.c demands equality with the OPT policy run
 * through the driver at every capacity.
 *
 * Making the update cheap.  Keys that stay where they are are most of them:
 * the carried key changes only at a position whose key is needed later than
 * the carried one (a "record": the next uses of the carried keys increase
 * strictly), and every other slot keeps its key.  So only the records move,
 * each to the next record's slot, the last one to slot d.  A max-tree over
 * the slots' next uses (a segment tree, leaves = stack positions) finds the
 * next record -- the first slot after the current one whose next use exceeds
 * the carried key's -- in O(log n), and each move is one leaf update.  A key
 * never used again (HS_NEVER) can be beaten by nothing, so once one is
 * carried the walk stops at once and that key takes slot d; this is what
 * keeps misses cheap, since a miss walks the whole stack.  pos[] follows the
 * moves, so a key's distance is read in O(1).
 *
 * Hints and drops are outside the model: PAGEOUT evicts from one memory and
 * not from the others (the memories stop being the prefixes of one stack),
 * and a drop of a key in the middle would leave a hole.  The callers feed
 * pure access streams (cli/cmd-mrc.c falls back to the replay otherwise).
 *
 * Cost: O((r + 1) log n) per access for r records; memory per key: the
 * tree's two slots of 8 bytes (rounded up to a power of two), the stack's
 * key (4), pos[] (4) and hist[] (8).
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "analyzer.h"
#include "hs.h"

#define NONE	UINT32_MAX

struct hs_optstack {
	uint32_t	nr_keys;	/* key ids are below this */
	uint32_t	size;		/* tree leaves: a power of two > nr_keys; leaf p
					 * is stack position p (0 unused) */
	uint32_t	depth;		/* keys in the stack: positions 1 .. depth */
	uint64_t	*tree;		/* 2 * size: tree[size + p] = next use of the key
					 * at position p (0 when empty); tree[i] = max of
					 * its two children */
	uint32_t	*stack;		/* stack[p]: key at position p (1 .. depth) */
	uint32_t	*pos;		/* pos[k]: k's position, 0 before its first access */
	uint64_t	*hist;		/* hist[d]: accesses of finite distance d */
	uint64_t	accesses;	/* accesses fed */
	uint64_t	cold;		/* first accesses */
	uint64_t	max_dist;	/* largest finite distance seen, 0 if none */
};

static void tree_set(struct hs_optstack *os, uint32_t p, uint64_t v)
{
	size_t i = (size_t)os->size + p;

	os->tree[i] = v;
	for (i >>= 1; i; i >>= 1) {
		uint64_t l = os->tree[2 * i], r = os->tree[2 * i + 1];

		os->tree[i] = l > r ? l : r;
	}
}

/* The first position >= lo whose next use is above v, or NONE. */
static uint32_t tree_first_above(const struct hs_optstack *os, uint32_t lo, uint64_t v)
{
	size_t i;

	if (lo >= os->size)
		return NONE;
	i = (size_t)os->size + lo;
	/* Climb until a subtree wholly right of lo (or lo's leaf) holds a value above v. */
	while (os->tree[i] <= v) {
		while (i & 1)		/* a right child: its parent's range starts left of it */
			i >>= 1;
		if (!i)			/* climbed past the root */
			return NONE;
		i++;			/* the right sibling: the next range */
	}
	/* Descend to its leftmost leaf above v. */
	while (i < os->size) {
		i *= 2;
		if (os->tree[i] <= v)
			i++;
	}
	return (uint32_t)(i - os->size);
}

int hs_optstack_new(uint32_t nr_keys, struct hs_optstack **out)
{
	struct hs_optstack *os;
	uint32_t size = 2;

	if (!nr_keys || nr_keys > HS_STACKDIST_MAX_KEYS)
		return -EINVAL;
	while (size <= nr_keys)
		size *= 2;
	os = calloc(1, sizeof(*os));
	if (!os)
		return -ENOMEM;
	os->nr_keys = nr_keys;
	os->size = size;
	os->tree = calloc(2 * (size_t)size, sizeof(*os->tree));
	os->stack = calloc((size_t)nr_keys + 1, sizeof(*os->stack));
	os->pos = calloc(nr_keys, sizeof(*os->pos));
	os->hist = calloc((size_t)nr_keys + 1, sizeof(*os->hist));
	if (!os->tree || !os->stack || !os->pos || !os->hist) {
		hs_optstack_free(os);
		return -ENOMEM;
	}
	*out = os;
	return 0;
}

void hs_optstack_free(struct hs_optstack *os)
{
	if (!os)
		return;
	free(os->hist);
	free(os->pos);
	free(os->stack);
	free(os->tree);
	free(os);
}

static void place(struct hs_optstack *os, uint32_t p, uint32_t key, uint64_t next_use)
{
	os->stack[p] = key;
	os->pos[key] = p;
	tree_set(os, p, next_use);
}

int hs_optstack_access(struct hs_optstack *os, uint32_t key, uint64_t next_use,
		       uint64_t *dist)
{
	uint32_t d, r, q, carried, k;
	uint64_t cur, v;

	if (key >= os->nr_keys)
		return -EINVAL;
	os->accesses++;
	d = os->pos[key];
	if (d) {
		os->hist[d]++;
		if (d > os->max_dist)
			os->max_dist = d;
		if (dist)
			*dist = d;
	} else {
		os->cold++;
		d = ++os->depth;	/* a fresh slot at the bottom */
		assert(d <= os->nr_keys);
		if (dist)
			*dist = HS_STACKDIST_COLD;
	}
	if (d > 1) {
		/* Carry the old top down through the records above slot d. */
		carried = os->stack[1];
		cur = os->tree[(size_t)os->size + 1];
		for (r = 1; cur != HS_NEVER; r = q) {
			q = tree_first_above(os, r + 1, cur);
			if (q == NONE || q >= d)
				break;
			k = os->stack[q];
			v = os->tree[(size_t)os->size + q];
			place(os, q, carried, cur);
			carried = k;
			cur = v;
		}
		place(os, d, carried, cur);
	}
	place(os, 1, key, next_use);
	return 0;
}

int hs_optstack_curve(const struct hs_optstack *os, uint64_t *hits, size_t n)
{
	uint64_t sum = 0;
	size_t c;

	for (c = 0; c < n; c++) {
		if (c >= 1 && c <= os->max_dist)
			sum += os->hist[c];
		hits[c] = sum;
	}
	return 0;
}

uint64_t hs_optstack_accesses(const struct hs_optstack *os)
{
	return os->accesses;
}

uint64_t hs_optstack_cold(const struct hs_optstack *os)
{
	return os->cold;
}

uint64_t hs_optstack_max_dist(const struct hs_optstack *os)
{
	return os->max_dist;
}
