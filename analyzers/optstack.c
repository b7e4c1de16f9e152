/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OPT stack distances: Mattson's one-pass stack algorithm for Belady's MIN
 * with demand paging.  It gives every access's OPT stack distance and so the
 * hit count of the OPT policy (policies/opt.c, demand variant) at every
 * capacity at once: the whole OPT miss-ratio curve from one pass, in
 * O((b + 1) log n) expected time per access, where b is the number of
 * blocks of keys the access moves (see below; few in practice).  It shares
 * no code with policies/opt.c, so tests/t-mrc.c holds each against the
 * other, and against a naive array version of the same update.
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
 * Making the update cheap.  The carried key changes only at a position
 * whose key is needed strictly later than the carried one (a "record": the
 * next uses of the carried keys increase), and every other slot keeps its
 * key, so only the records move, each to the next record's slot, the last
 * one to slot d.  On real traces the stack is nearly sorted by next use, so
 * most keys above d are records and a miss would move most of the stack
 * (walking the records one by one took 180 s of CPU on the first million
 * accesses of the ARC trace P12).  Look at the sequence instead of the
 * slots.  Above d the keys form runs of records, each followed by a block
 * of non-records (keys needed no later than the run's last key):
 *
 *	before:  R1 B1 R2 B2 ... Rk Bk x        (Bk may be empty)
 *	after:   x R1' B1 r1 R2' B2 r2 ... Rk' Bk rk
 *
 * where ri is the last key of run Ri and Ri' the rest of it: each run's
 * last key moves behind its block, all else keeps its order.  (Check on
 * the example: a(9) is a run, b(7) its block, c(12) a run, e(8) its block:
 * x, b, a, e, c.)  The stack is therefore an implicit treap -- a balanced
 * tree in stack order, one node per key, positions given by subtree sizes
 * -- whose nodes also keep their subtree's largest next use, its first and
 * last next use, and its number of "drops" (adjacent keys where the second
 * is not needed strictly later than the first).  The start of the next
 * block is the first drop, the end of the block the first key needed later
 * than the run's last: two O(log n) descents; then a few splits and merges
 * move the run's last key.  A key's position comes from walking its
 * parents.  A key never used again (HS_NEVER) ends every run it is in, so
 * the keys never used again gather at the bottom.
 *
 * Hints and drops are outside the model: PAGEOUT evicts from one memory and
 * not from the others (the memories stop being the prefixes of one stack),
 * and a drop of a key in the middle would leave a hole.  The callers feed
 * pure access streams (cli/cmd-mrc.c falls back to the replay otherwise).
 *
 * A view from the past.  The OPT distance of an access depends only on the
 * accesses before it (Bilardi, Ekanadham and Pattnaik, "Optimal on-line
 * computation of stack distances for MIN and OPT", CF 2017), though MIN
 * itself looks ahead.  Derived here and checked by brute force against
 * policies/opt.c at every capacity (tests/t-mrc.c, "crit-model", keeps it as
 * an independent model); not used for speed yet, see the end.
 *
 *   1. Intervals.  A reuse of key x at time t, x last accessed at p, is the
 *      open interval (p, t) of time points.  Taking the intervals in the
 *      order of their ends and accepting one when every point it covers has
 *      fewer than C - 1 accepted intervals over it (an immediate reuse
 *      covers nothing) accepts exactly MIN's hits at capacity C: C - 1
 *      slots besides the one the access at a point needs (Hawkeye's
 *      OPTgen; the greedy is the classic optimum for packing intervals).
 *   2. Per capacity, a set of time points.  At capacity k = C - 1 let S_k
 *      hold, for each load j = 0 .. k, the latest point before t with at
 *      least j intervals over it (paddings -1, -2, ... stand in while there
 *      is none).  Interval (p, t) is accepted iff S_k has a point <= p (the
 *      latest point at load k is no later than p).  Accepting it adds one
 *      to the load of (p, t): the points of S_k above p move up one load,
 *      so S_k loses its largest point <= p and gains t; rejecting it only
 *      replaces the top point t - 1 by t.  With p below everything on a
 *      first access: in both cases S_k loses the point that goes first in
 *      the order "points <= p before points > p, larger before smaller"
 *      and gains t.
 *   3. One stack.  The order of step 2 does not depend on k, so Mattson's
 *      argument applies: S_0, S_1, ... are the tops of one stack of time
 *      points, updated by putting t on top and carrying the old top down,
 *      the point that goes first carried on at each slot.  The distance is
 *      1 + the slot (from 0) of the topmost point <= p, so
 *      D = 1 + #{k : L[k] > p} where L[k] = min S_k is non-increasing: a
 *      rank query over time, as for LRU.
 *
 * Example, a b c a b d a (times 0 .. 6), top first: after the three cold
 * accesses 2 -2 -3 ..; a at 3 (p = 0): the topmost point <= 0 is -2 at slot
 * 1, distance 2 (MIN hits it from 2 slots on); and so on in tests/t-mrc.c.
 *
 * The catch is the update of L[].  The carry leaves every point above the
 * topmost old one (<= p, at slot d) in place and moves the old points below
 * that are larger than every old point above them, each to the next one's
 * slot: on P12's first 300,000 accesses 547 million moves (1,800 per
 * access), though in only 0.43 "blocks" of adjacent slots per reuse, so a
 * tree that moves blocks (as the carry below does for the next-use stack)
 * would do about 0.65 block moves per access where the next-use stack does
 * 1.65: a constant factor, not the O(log n) of the paper.  L[] itself
 * changes little (about one new mark per access, and only at the slots from
 * d to the next point <= p, where points hidden under the old mark
 * surface), but finding those points needs the order of the points that
 * are not marks: "remove the largest mark <= p and push t" is not enough
 * (d d b b d b a d c b a: before the last access the stack is 9 6 8 -4 ..,
 * L = 9 6 6 -4; after it 10 9 8 -4, not 10 9 6 -4).  An O(log n) update of
 * the marks is the open step.  A lead, checked by brute force too: with
 * d_i = D_i - 1 for each interval i processed so far and, for each time
 * point y, z(y) the largest k with exactly k intervals over y of d_i <= k,
 * a reuse has D = 2 + max z(y) over y in (p, t): a range maximum over time,
 * if z can be kept up to date under "d joins every point of (p, t)".  It
 * can, naively: z(y) is the smallest element of a set H(y) (at first all of
 * 0, 1, 2, ...), and interval (p, t) removes from H(y), for each y in
 * (p, t), its largest element below d = D - 1.  Every such update is on a
 * suffix of the time points (t is now), which a faster structure may use.
 *
 * Cost: O((b + 1) log n) expected per access for b blocks; memory per key:
 * a 56-byte tree node and hist[] (8 bytes).  On P12 (13.2 million accesses,
 * 3.15 million keys) about 40 s of CPU, most of it in the carry.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "analyzer.h"
#include "hs.h"

#define NIL	UINT32_MAX

/*
 * The stack is an implicit treap (a randomized balanced tree ordered by
 * stack position, positions implied by subtree sizes), one node per key,
 * indexed by key id.  Each node keeps aggregates of its subtree: its size,
 * the largest next use, the first and last next use in stack order, and the
 * number of adjacent pairs (u, v) in it where v is not needed strictly later
 * than u (a "drop": v cannot be a record after u).
 */
struct hs_optstack {
	uint32_t	nr_keys;	/* key ids are below this */
	uint32_t	depth;		/* keys in the stack */
	uint32_t	root;		/* the treap's root, NIL when empty */
	uint64_t	rng;		/* xorshift state for the priorities */
	struct node {
		uint32_t	l, r, p;	/* children and parent, NIL if none */
		uint32_t	pri;		/* heap priority (random) */
		uint32_t	sz;		/* nodes in the subtree; 0: not in the stack */
		uint32_t	drops;		/* pairs (u, v) in order with nu(v) <= nu(u) */
		uint64_t	nu;		/* the key's next use */
		uint64_t	mx;		/* largest nu in the subtree */
		uint64_t	fnu, lnu;	/* nu of its first and last node */
	}		*n;
	uint64_t	*hist;		/* hist[d]: accesses of finite distance d */
	uint64_t	accesses;	/* accesses fed */
	uint64_t	cold;		/* first accesses */
	uint64_t	max_dist;	/* largest finite distance seen, 0 if none */
};

_Static_assert(sizeof(struct node) == 56, "the essay and analyzer.h say 56 bytes per node");

static inline uint32_t sz(const struct hs_optstack *os, uint32_t t)
{
	return t == NIL ? 0 : os->n[t].sz;
}

static void pull(struct hs_optstack *os, uint32_t t)
{
	struct node *x = &os->n[t];
	uint32_t drops = 0;

	x->sz = 1;
	x->mx = x->nu;
	x->fnu = x->nu;
	x->lnu = x->nu;
	if (x->l != NIL) {
		const struct node *a = &os->n[x->l];

		x->sz += a->sz;
		x->mx = HS_MAX(x->mx, a->mx);
		x->fnu = a->fnu;
		drops += a->drops + (x->nu <= a->lnu);
		os->n[x->l].p = t;
	}
	if (x->r != NIL) {
		const struct node *b = &os->n[x->r];

		x->sz += b->sz;
		x->mx = HS_MAX(x->mx, b->mx);
		x->lnu = b->lnu;
		drops += b->drops + (b->fnu <= x->nu);
		os->n[x->r].p = t;
	}
	x->drops = drops;
}

static uint32_t merge(struct hs_optstack *os, uint32_t a, uint32_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (os->n[a].pri > os->n[b].pri) {
		os->n[a].r = merge(os, os->n[a].r, b);
		pull(os, a);
		return a;
	}
	os->n[b].l = merge(os, a, os->n[b].l);
	pull(os, b);
	return b;
}

/* The first k nodes of t into *a, the rest into *b (their parents are stale). */
static void split(struct hs_optstack *os, uint32_t t, uint32_t k, uint32_t *a, uint32_t *b)
{
	if (t == NIL) {
		*a = *b = NIL;
		return;
	}
	if (sz(os, os->n[t].l) >= k) {
		split(os, os->n[t].l, k, a, &os->n[t].l);
		pull(os, t);
		*b = t;
	} else {
		split(os, os->n[t].r, k - sz(os, os->n[t].l) - 1, &os->n[t].r, b);
		pull(os, t);
		*a = t;
	}
}

/* 1-based position of node t in its tree. */
static uint32_t rank_of(const struct hs_optstack *os, uint32_t t)
{
	uint32_t pos = sz(os, os->n[t].l) + 1;

	for (; os->n[t].p != NIL; t = os->n[t].p) {
		uint32_t up = os->n[t].p;

		if (os->n[up].r == t)
			pos += sz(os, os->n[up].l) + 1;
	}
	return pos;
}

/* Position of the first node (>= 2) not needed strictly later than the one before, or 0. */
static uint32_t first_drop(const struct hs_optstack *os, uint32_t t)
{
	uint32_t base = 0;
	bool have_prev = false;
	uint64_t prev = 0;

	if (t == NIL || !os->n[t].drops)
		return 0;
	while (t != NIL) {
		const struct node *x = &os->n[t];
		uint32_t l = x->l;

		if (l != NIL && (os->n[l].drops || (have_prev && os->n[l].fnu <= prev))) {
			t = l;
			continue;
		}
		if (l != NIL) {
			prev = os->n[l].lnu;
			have_prev = true;
		}
		if (have_prev && x->nu <= prev)
			return base + sz(os, l) + 1;
		base += sz(os, l) + 1;
		prev = x->nu;
		have_prev = true;
		t = x->r;
	}
	return 0;
}

/* Position of the first node needed strictly later than v, or 0. */
static uint32_t first_above(const struct hs_optstack *os, uint32_t t, uint64_t v)
{
	uint32_t base = 0;

	if (t == NIL || os->n[t].mx <= v)
		return 0;
	while (t != NIL) {
		const struct node *x = &os->n[t];

		if (x->l != NIL && os->n[x->l].mx > v) {
			t = x->l;
			continue;
		}
		if (x->nu > v)
			return base + sz(os, x->l) + 1;
		base += sz(os, x->l) + 1;
		t = x->r;
	}
	return 0;
}

/*
 * The carry of Mattson's update over the keys above the accessed one (a,
 * in stack order, the accessed key already taken out): each maximal run of
 * records ends with the key that the following block of non-records lets
 * through, so that key moves behind the block.  Returns the new order.
 */
static uint32_t carry(struct hs_optstack *os, uint32_t a)
{
	uint32_t out = NIL, run, rest, block, last, lead;

	for (;;) {
		uint32_t i = first_drop(os, a), j;
		uint64_t v;

		if (!i)			/* records to the end: nothing moves */
			return merge(os, out, a);
		split(os, a, i - 1, &run, &rest);
		v = os->n[run].lnu;	/* the carried key's next use */
		j = first_above(os, rest, v);
		if (j) {
			split(os, rest, j - 1, &block, &a);
		} else {
			block = rest;
			a = NIL;
		}
		split(os, run, os->n[run].sz - 1, &lead, &last);
		out = merge(os, out, lead);
		out = merge(os, out, block);
		out = merge(os, out, last);
		if (a == NIL)
			return out;
		os->n[a].p = NIL;
	}
}

int hs_optstack_new(uint32_t nr_keys, struct hs_optstack **out)
{
	struct hs_optstack *os;

	if (!nr_keys || nr_keys > HS_STACKDIST_MAX_KEYS)
		return -EINVAL;
	os = calloc(1, sizeof(*os));
	if (!os)
		return -ENOMEM;
	os->nr_keys = nr_keys;
	os->root = NIL;
	os->rng = 0x9e3779b97f4a7c15ull;
	os->n = calloc(nr_keys, sizeof(*os->n));
	os->hist = calloc((size_t)nr_keys + 1, sizeof(*os->hist));
	if (!os->n || !os->hist) {
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
	free(os->n);
	free(os);
}

static uint32_t next_pri(struct hs_optstack *os)
{
	os->rng ^= os->rng << 13;
	os->rng ^= os->rng >> 7;
	os->rng ^= os->rng << 17;
	return (uint32_t)(os->rng >> 32);
}

int hs_optstack_access(struct hs_optstack *os, uint32_t key, uint64_t next_use,
		       uint64_t *dist)
{
	struct node *x;
	uint32_t d, above, rest, self;

	if (key >= os->nr_keys)
		return -EINVAL;
	x = &os->n[key];
	os->accesses++;
	if (x->sz) {
		d = rank_of(os, key);
		os->hist[d]++;
		if (d > os->max_dist)
			os->max_dist = d;
		if (dist)
			*dist = d;
		split(os, os->root, d - 1, &above, &rest);
		split(os, rest, 1, &self, &rest);
	} else {
		os->cold++;
		os->depth++;
		if (dist)
			*dist = HS_STACKDIST_COLD;
		above = os->root;
		rest = NIL;
		x->pri = next_pri(os);
	}
	if (above != NIL) {
		os->n[above].p = NIL;
		above = carry(os, above);
	}
	x->l = x->r = x->p = NIL;
	x->nu = next_use;
	pull(os, key);
	os->root = merge(os, merge(os, key, above), rest);
	os->n[os->root].p = NIL;
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
