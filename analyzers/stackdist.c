/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stack distances: Mattson's one-pass LRU stack algorithm with a Fenwick tree
 * over access times.  It gives the LRU stack (reuse) distance of every access
 * and so the LRU hit count at every capacity at once: the whole miss-ratio
 * curve of LRU from one pass, in O(log n) per access.  It shares no code with
 * policies/lru.c, so the test suite uses it as an independent model of LRU.
 */

/*
 * Design
 * ======
 *
 * Mattson, Gecsei, Slutz and Traiger ("Evaluation techniques for storage
 * hierarchies", IBM Systems Journal 9(2), 1970) observed that some policies
 * are *stack algorithms*: for every access stream, the memory of capacity C
 * holds a subset of what the memory of capacity C + 1 holds (the inclusion
 * property).  LRU is one.  Order every key accessed so far by the time of
 * its last access, most recent first: that list is the LRU stack.  An LRU
 * memory of capacity C holds exactly the top C entries of the stack, for
 * every C at once.  By induction over the stream: at the start both are
 * empty; an access to a key at stack position d (1 = top) moves it to the
 * top and shifts positions 1 .. d - 1 down by one.  If d <= C the memory hit
 * and only reordered its C keys, which are still the top C; if d > C (or the
 * key is new) the memory missed, loaded the key and, when full, evicted its
 * least recently used key, which is the one at position C, now pushed to
 * C + 1.  Either way the memory again holds the top C.
 *
 * So an access hits in an LRU memory of capacity C if and only if its key's
 * position before the access, its *stack distance*, is at most C.  The
 * position of a key is 1 + the number of distinct keys accessed since its
 * previous access.  One pass that records a histogram of distances
 * therefore gives, for every C,
 *
 *	hits(C) = sum over d = 1 .. C of hist[d],
 *
 * which is exact, not an estimate: the cross-check in tests/t-stackdist.c
 * demands equality with the simulated LRU policy at every capacity.
 *
 * Walking the stack to find a key's position costs O(distance) per access.
 * The trick (Bennett and Kruskal's "LRU stack processing", IBM J. R&D 19(4),
 * 1975, done here with Fenwick's binary indexed tree, Software: Practice
 * and Experience 24(3), 1994) is to look at time instead of at the stack.
 * Number the accesses 1, 2, 3, ...  and mark, for every key in the stack,
 * the time of its last access: one mark per key.  The keys accessed since
 * key k's previous access at time p are exactly the keys whose mark is
 * after p, so
 *
 *	distance(k) = 1 + (marks after p) = depth - (marks at or before p) + 1
 *
 * where depth is the total number of marks.  A prefix count over a 0/1
 * array is what a Fenwick tree answers in O(log n), and the access then
 * moves k's mark from p to now: two more O(log n) updates.
 *
 *	time:    1   2   3   4   5   6   7
 *	key:     a   b   c   a   b   d   a <- now: a's previous access is at 4
 *	mark:        .   x   .   x   x      marks after 4: b@5, d@6
 *	(a@4 is its own mark)               distance = 1 + 2 = 3
 *
 * Bounding the tree by keys, not by accesses.  A tree with one slot per
 * access grows with the stream (13 million slots for P12).  Only the marked
 * slots matter and there are at most nr_keys of them, so the tree is a
 * window of W = 2 * nr_keys slots (at least 64): when the window is full,
 * the marks are compacted to slots 1 .. depth in their time order (which
 * keeps every count of "marks after p") and the tree is rebuilt in O(W).
 * Every compaction frees at least W - nr_keys >= W / 2 slots, so it costs
 * O(1) amortized per access.  The slot -> key map needed for compaction is
 * owner[]; a slot is marked exactly when its owner's last[] still points at
 * it, so no separate mark array is kept.
 *
 * Records that are not FD or PT accesses:
 *
 *   DROP     the kernel removed the key: it leaves the stack (its mark is
 *            cleared) and its next access is cold.  The LRU policy then
 *            holds fewer keys than its capacity until it refills, so the
 *            inclusion property weakens to: the memory of capacity C holds
 *            the top L entries of the stack for some L <= C (the same
 *            induction, with a drop shrinking L by one when the key was
 *            among them).  hits(C) is then an upper bound on LRU's hits,
 *            and exact when C >= nr_keys (nothing is ever evicted, L = depth).
 *   COLD     ignored: it is not an access.  The LRU policy moves the key to
 *            its eviction end, which a stack of recencies cannot express, so
 *            on a stream with COLD records the curve is not LRU's, in either
 *            direction ("a b ~b c a" at 2: LRU hits once, the curve never).
 *   PAGEOUT  ignored too, but the driver's default evicts the key: on a
 *            stream with PAGEOUT records the curve is not LRU's, in either
 *            direction (the memory stops being a prefix of the stack).
 *
 * Cost: O(log W) per access, W = 2 * nr_keys; memory per key: last[] (4
 * bytes), hist[] (8 bytes) and two window slots of tree[] and owner[] (16
 * bytes): 28 bytes, independent of the stream's length.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "analyzer.h"
#include "hs.h"

#define MIN_WINDOW	64u	/* smallest window: compaction stays rare on tiny key sets */

struct hs_stackdist {
	uint32_t	nr_keys;	/* key ids are below this */
	uint32_t	win;		/* window slots, 1 .. win; >= 2 * nr_keys */
	uint32_t	now;		/* slot of the latest access; 0 before any */
	uint32_t	depth;		/* keys in the stack = marked slots */
	uint32_t	*last;		/* per key: slot of its last access, 0 when not in the
					 * stack (never accessed, or dropped since) */
	uint32_t	*owner;		/* per slot (1 .. win): key accessed there; the slot is
					 * marked only while last[owner[s]] == s */
	uint32_t	*tree;		/* Fenwick tree (1 .. win) over marks: tree[i] counts
					 * the marks in slots (i - lowbit(i)) + 1 .. i */
	uint64_t	*hist;		/* hist[d]: accesses of finite distance d (1 .. nr_keys) */
	uint64_t	accesses;	/* FD and PT records fed */
	uint64_t	cold;		/* accesses of distance HS_STACKDIST_COLD */
	uint64_t	max_dist;	/* largest finite distance seen, 0 if none */
};

static inline uint32_t lowbit(uint32_t i)
{
	return i & (~i + 1);
}

/* Marks in slots 1 .. i. */
static uint32_t tree_prefix(const struct hs_stackdist *sd, uint32_t i)
{
	uint32_t sum = 0;

	for (; i; i -= lowbit(i))
		sum += sd->tree[i];
	return sum;
}

static void tree_inc(struct hs_stackdist *sd, uint32_t i)
{
	for (; i <= sd->win; i += lowbit(i))
		sd->tree[i]++;
}

static void tree_dec(struct hs_stackdist *sd, uint32_t i)
{
	for (; i <= sd->win; i += lowbit(i)) {
		assert(sd->tree[i] > 0);
		sd->tree[i]--;
	}
}

/*
 * The window is full: move the marks to slots 1 .. depth in time order and
 * rebuild the tree in O(win) (each node passes its sum to its parent).
 */
static void compact(struct hs_stackdist *sd)
{
	uint32_t s, k, q = 0;

	for (s = 1; s <= sd->win; s++) {
		k = sd->owner[s];
		if (sd->last[k] != s)
			continue;
		sd->owner[++q] = k;
		sd->last[k] = q;
	}
	assert(q == sd->depth);
	memset(sd->tree, 0, ((size_t)sd->win + 1) * sizeof(*sd->tree));
	for (s = 1; s <= q; s++)
		sd->tree[s] = 1;
	for (s = 1; s <= sd->win; s++) {
		uint32_t up = s + lowbit(s);

		if (up <= sd->win)
			sd->tree[up] += sd->tree[s];
	}
	sd->now = q;
}

int hs_stackdist_new(uint32_t nr_keys, struct hs_stackdist **out)
{
	struct hs_stackdist *sd;
	size_t slots;

	if (!nr_keys || nr_keys > HS_STACKDIST_MAX_KEYS)
		return -EINVAL;
	sd = calloc(1, sizeof(*sd));
	if (!sd)
		return -ENOMEM;
	sd->nr_keys = nr_keys;
	sd->win = HS_MAX(2 * nr_keys, MIN_WINDOW);
	slots = (size_t)sd->win + 1;
	sd->last = hs_huge_alloc((size_t)nr_keys * sizeof(*sd->last));
	if (!sd->last)
		goto out_free_sd;
	/* owner[] needs no zeroing (a slot is read only once it was written): it gets it free */
	sd->owner = hs_huge_alloc(slots * sizeof(*sd->owner));
	if (!sd->owner)
		goto out_free_last;
	sd->tree = hs_huge_alloc(slots * sizeof(*sd->tree));
	if (!sd->tree)
		goto out_free_owner;
	sd->hist = hs_huge_alloc(((size_t)nr_keys + 1) * sizeof(*sd->hist));
	if (!sd->hist)
		goto out_free_tree;
	*out = sd;
	return 0;

out_free_tree:
	hs_huge_free(sd->tree, slots * sizeof(*sd->tree));
out_free_owner:
	hs_huge_free(sd->owner, slots * sizeof(*sd->owner));
out_free_last:
	hs_huge_free(sd->last, (size_t)nr_keys * sizeof(*sd->last));
out_free_sd:
	free(sd);
	return -ENOMEM;
}

void hs_stackdist_free(struct hs_stackdist *sd)
{
	size_t slots;

	if (!sd)
		return;
	slots = (size_t)sd->win + 1;
	hs_huge_free(sd->hist, ((size_t)sd->nr_keys + 1) * sizeof(*sd->hist));
	hs_huge_free(sd->tree, slots * sizeof(*sd->tree));
	hs_huge_free(sd->owner, slots * sizeof(*sd->owner));
	hs_huge_free(sd->last, (size_t)sd->nr_keys * sizeof(*sd->last));
	free(sd);
}

int hs_stackdist_access(struct hs_stackdist *sd, uint32_t key, uint64_t *dist)
{
	uint32_t p, d;

	if (key >= sd->nr_keys)
		return -EINVAL;
	sd->accesses++;
	p = sd->last[key];
	if (p) {
		/* 1 + the marks after p; p itself is key's own mark. */
		d = sd->depth - tree_prefix(sd, p) + 1;
		assert(d >= 1 && d <= sd->depth);
		sd->hist[d]++;
		if (d > sd->max_dist)
			sd->max_dist = d;
		tree_dec(sd, p);
		sd->depth--;
		if (dist)
			*dist = d;
	} else {
		sd->cold++;
		if (dist)
			*dist = HS_STACKDIST_COLD;
	}
	if (sd->now == sd->win) {
		sd->last[key] = 0;	/* its old mark is gone: compaction must skip it */
		compact(sd);
	}
	sd->now++;
	sd->owner[sd->now] = key;
	sd->last[key] = sd->now;
	tree_inc(sd, sd->now);
	sd->depth++;
	return 0;
}

int hs_stackdist_drop(struct hs_stackdist *sd, uint32_t key)
{
	uint32_t p;

	if (key >= sd->nr_keys)
		return -EINVAL;
	p = sd->last[key];
	if (!p)
		return 0;
	tree_dec(sd, p);
	sd->last[key] = 0;
	sd->depth--;
	return 0;
}

int hs_stackdist_step(struct hs_stackdist *sd, uint32_t key, uint8_t meta, uint64_t *dist)
{
	enum hs_channel ch = hs_meta_channel(meta);

	if (key >= sd->nr_keys || ch >= HS_CH_NR)
		return -EINVAL;
	if (hs_channel_is_access(ch))
		return hs_stackdist_access(sd, key, dist);
	if (dist)
		*dist = 0;
	if (ch == HS_CH_DROP)
		return hs_stackdist_drop(sd, key);
	return 0;	/* PAGEOUT, COLD: not accesses, recency unchanged */
}

uint64_t hs_stackdist_hits_at(const struct hs_stackdist *sd, uint64_t capacity)
{
	uint64_t d, top = HS_MIN(capacity, sd->max_dist);
	uint64_t hits = 0;

	for (d = 1; d <= top; d++)
		hits += sd->hist[d];
	return hits;
}

int hs_stackdist_curve(const struct hs_stackdist *sd, uint64_t *hits, size_t n)
{
	uint64_t sum = 0;
	size_t c;

	for (c = 0; c < n; c++) {
		if (c >= 1 && c <= sd->max_dist)
			sum += sd->hist[c];
		hits[c] = sum;
	}
	return 0;
}

uint64_t hs_stackdist_accesses(const struct hs_stackdist *sd)
{
	return sd->accesses;
}

uint64_t hs_stackdist_cold(const struct hs_stackdist *sd)
{
	return sd->cold;
}

uint32_t hs_stackdist_depth(const struct hs_stackdist *sd)
{
	return sd->depth;
}

uint64_t hs_stackdist_max_dist(const struct hs_stackdist *sd)
{
	return sd->max_dist;
}
