/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OPT stack distances: the OPT (Belady's MIN, demand paging) stack distance
 * of every access, from the past alone, in O(log n) per access.  It gives
 * the hit count of the OPT policy (policies/opt.c, demand variant) at every
 * capacity at once: the whole OPT miss-ratio curve from one pass.  It shares
 * no code with policies/opt.c, so tests/t-mrc.c holds each against the
 * other, and against a naive array version of Mattson's next-use stack.
 */

/*
 * Design
 * ======
 *
 * Mattson, Gecsei, Slutz and Traiger ("Evaluation techniques for storage
 * hierarchies", IBM Systems Journal 9(2), 1970) showed that MIN is a stack
 * algorithm: the memory of capacity C holds a subset of what the memory of
 * capacity C + 1 holds, for every stream.  The memories are then the tops
 * of one stack, and an access hits at C exactly when its key sits at a
 * position d <= C (its OPT stack distance) before the access.  Their stack
 * is ordered by next uses: on an access at position d the key goes to the
 * top and, going down, the key needed later is carried on at each slot
 * above d.  That walk is O(d) per access, and on real traces the stack is
 * nearly sorted by next use, so nearly every slot is a carry: the previous
 * version of this file moved runs of carried keys in a balanced tree and
 * still spent 40 s of CPU on the ARC trace P12, against 2 s for one OPT
 * replay.
 *
 * The distance of an access depends on the past only, although MIN looks
 * ahead (a hit at C is decided by the intervals between reuses that end
 * before it).  Bilardi, Ekanadham and Pattnaik ("Optimal on-line
 * computation of stack distances for MIN and OPT", CF 2017) turned this
 * into an O(log n) algorithm that needs no next uses at all: it keeps the
 * LRU stack, plus one "critical marker" per capacity that sits at some
 * position of the LRU stack.  What follows is the method as used here,
 * written in terms of the LRU stack's keys; tests/t-mrc.c checks it against
 * MIN run by the driver at every capacity and against Mattson's next-use
 * stack, access by access.
 *
 * The state.  The LRU stack of the keys seen so far, most recent first.
 * The n-th distinct key (n = 0, 1, ...) brings marker n with it, except the
 * first, which brings none; each marker hangs on one key of the stack, and
 * a key may hold several or none.  Let beta(i), for a position i >= 0 of
 * the LRU stack, be the sum over the top i keys of (markers held - 1): it
 * is never negative.
 *
 * An access to key x:
 *
 *  - New key: it goes on top holding its own marker.
 *  - At the top of the LRU stack: distance 1, nothing changes.
 *  - At LRU position D + 1, D >= 1, with key p just above it (position D):
 *    let z be the largest i in 0 .. D - 1 with beta(i) = 0, and m the
 *    smallest marker held by a key below position z.  The OPT distance is
 *    m + 1.  Then marker m leaves its key, x hands its remaining markers
 *    to p, and x goes to the top of the LRU stack holding m alone.
EXAMPLE_HERE
 *
 * Why p inherits x's markers: a marker stands for a position of the LRU
 * stack, not for a key; when x leaves position D + 1 the key that takes
 * that position is p.  The paper states the update on marker positions
 * ("every marker at a position <= D moves down one, marker m goes to
 * position 1"); hanging markers on keys makes that shift free, as the LRU
 * stack's own shift is free in a Fenwick tree over time.
 *
 * The data structure.  Keys sit in slots of a window ordered by the time of
 * their last access (the newest in the lowest slot; a slot is dead once its
 * key moves on), as in stackdist.c; when the window is full the live slots
 * are packed and the window starts again.  Each slot holds its key's
 * markers - 1 (0 when dead) and its smallest marker.  Over blocks of
 * BLK slots sits a complete binary tree whose nodes keep the sum, the
 * smallest prefix sum and the smallest marker of their range.  Then:
 *
 *  - z: the last slot before p's whose prefix sum is 0 (prefix sums are
 *    never negative, so "contains a 0" is "its smallest prefix is 0"): one
 *    walk up from p's block over the left siblings, one walk down;
 *  - m: the smallest marker after that slot: a walk up over the right
 *    siblings and one down to its slot;
 *  - a key's markers: a pairing heap (Fredman, Sedgewick, Sleator and
 *    Tarjan, 1986) threaded through two arrays indexed by marker, so that
 *    handing x's markers to p is one link and removing m, the smallest of
 *    its key's, is a delete-min;
 *  - p: the LRU stack is also a doubly linked list.
 *
 * Every step is O(log n) (amortized for the heaps), and the four slots that
 * change (m's key, p, x's old and new slot) are pushed up the tree, stopping
 * where a node does not change.
 *
 * Hints and drops are outside the model: PAGEOUT evicts from one memory and
 * not from the others (the memories stop being the prefixes of one stack),
 * and a drop of a key in the middle would leave a hole.  The callers feed
 * pure access streams (cli/cmd-mrc.c falls back to the replay otherwise).
 *
 * Cost: per key, 20 bytes of key state, 8 of heap links, the histogram (8)
 * and a window of 2 to 4 slots of 12 bytes, plus 1/4 byte of tree per slot.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "hs.h"

#define NIL		UINT32_MAX
#define BLK_SHIFT	4
#define BLK		(1u << BLK_SHIFT)	/* slots per leaf of the tree */
#define MIN_SLOTS	(2 * BLK)

/* A tree node: its range's sum, smallest prefix sum and smallest marker. */
struct node {
	int32_t		sum;
	int32_t		min;
	uint32_t	mark;
	uint32_t	pad;
};

struct hs_optstack {
	uint32_t	nr_keys;	/* key ids are below this */
	uint32_t	depth;		/* keys seen: markers handed out + 1 */
	uint32_t	nslots;		/* the window: a power of two >= 2 * nr_keys */
	uint32_t	nblk;		/* nslots / BLK: the tree's leaves */
	uint32_t	low;		/* the newest live slot; the next is low - 1 */
	uint32_t	head;		/* the top of the LRU stack, NIL when empty */
	/* per key */
	uint32_t	*slot;		/* its slot, NIL before its first access */
	uint32_t	*up, *down;	/* LRU neighbours, NIL at the ends */
	uint32_t	*nmark;		/* markers held */
	uint32_t	*heap;		/* smallest marker held, NIL if none */
	/* per marker: pairing-heap links */
	uint32_t	*child, *sib;
	/* per slot */
	int32_t		*w;		/* nmark - 1 of its key, 0 if dead */
	uint32_t	*smark;		/* heap of its key, NIL if dead */
	uint32_t	*owner;		/* its key, NIL if dead */
	struct node	*t;		/* t[1 .. 2 * nblk - 1]; leaves at nblk */
	uint64_t	*hist;		/* hist[d]: accesses of finite distance d */
	uint64_t	accesses;	/* accesses fed */
	uint64_t	cold;		/* first accesses */
	uint64_t	max_dist;	/* largest finite distance seen, 0 if none */
};

static inline struct node combine(struct node l, struct node r)
{
	struct node n;

	n.sum = l.sum + r.sum;
	n.min = HS_MIN(l.min, l.sum + r.min);
	n.mark = HS_MIN(l.mark, r.mark);
	n.pad = 0;
	return n;
}

static struct node leaf_of(const struct hs_optstack *os, uint32_t b)
{
	uint32_t s = b << BLK_SHIFT, i;
	struct node n = { 0, INT32_MAX, NIL, 0 };

	for (i = 0; i < BLK; i++) {
		n.sum += os->w[s + i];
		n.min = HS_MIN(n.min, n.sum);
		n.mark = HS_MIN(n.mark, os->smark[s + i]);
	}
	return n;
}

/* Block @b changed: recompute its leaf and the ancestors that change. */
static void push_up(struct hs_optstack *os, uint32_t b)
{
	uint32_t i = os->nblk + b;
	struct node n = leaf_of(os, b);

	for (;;) {
		if (!memcmp(&os->t[i], &n, sizeof(n)))
			return;
		os->t[i] = n;
		if (i == 1)
			return;
		n = (i & 1) ? combine(os->t[i - 1], n) : combine(n, os->t[i + 1]);
		i >>= 1;
	}
}

static void rebuild(struct hs_optstack *os)
{
	uint32_t b, i;

	for (b = 0; b < os->nblk; b++)
		os->t[os->nblk + b] = leaf_of(os, b);
	for (i = os->nblk - 1; i >= 1; i--)
		os->t[i] = combine(os->t[2 * i], os->t[2 * i + 1]);
}

/*
 * The last slot before @limit whose prefix sum (over slots 0 .. it) is 0,
 * or -1 for none but the empty prefix.  Prefix sums are never negative.
 */
static int64_t last_zero(const struct hs_optstack *os, uint32_t limit)
{
	uint32_t b = limit >> BLK_SHIFT, sibs[40], n = 0, i, s;
	int64_t before = 0, run, found = -1;

	for (i = os->nblk + b; i > 1; i >>= 1)
		if (i & 1) {
			sibs[n++] = i - 1;
			before += os->t[i - 1].sum;
		}
	run = before;
	for (s = b << BLK_SHIFT; s < limit; s++) {
		run += os->w[s];
		if (run == 0)
			found = s;
	}
	if (found >= 0)
		return found;
	for (i = 0; i < n; i++) {
		uint32_t v = sibs[i];

		before -= os->t[v].sum;
		if (before + os->t[v].min != 0)
			continue;
		while (v < os->nblk) {
			int64_t right = before + os->t[2 * v].sum;

			if (right + os->t[2 * v + 1].min == 0) {
				before = right;
				v = 2 * v + 1;
			} else {
				v = 2 * v;
			}
		}
		run = before;
		for (s = (v - os->nblk) << BLK_SHIFT; s < ((v - os->nblk + 1) << BLK_SHIFT); s++) {
			run += os->w[s];
			if (run == 0)
				found = s;
		}
		assert(found >= 0);
		return found;
	}
	return -1;
}

/* The slot holding the smallest marker after slot @after (-1: all). */
static uint32_t min_mark_after(const struct hs_optstack *os, int64_t after)
{
	uint32_t best = NIL, where = NIL, v, s, end;

	if (after < 0) {
		v = 1;
		best = os->t[1].mark;
	} else {
		uint32_t b = (uint32_t)after >> BLK_SHIFT;

		end = (b + 1) << BLK_SHIFT;
		for (s = (uint32_t)after + 1; s < end; s++)
			if (os->smark[s] < best) {
				best = os->smark[s];
				where = s;
			}
		v = NIL;
		for (uint32_t i = os->nblk + b; i > 1; i >>= 1)
			if (!(i & 1) && os->t[i + 1].mark < best) {
				best = os->t[i + 1].mark;
				v = i + 1;
			}
		if (v == NIL)
			return where;
	}
	while (v < os->nblk)
		v = os->t[2 * v].mark == best ? 2 * v : 2 * v + 1;
	for (s = (v - os->nblk) << BLK_SHIFT; os->smark[s] != best; s++)
		;
	return s;
}

static uint32_t meld(struct hs_optstack *os, uint32_t a, uint32_t b)
{
	uint32_t t;

	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (b < a) {
		t = a;
		a = b;
		b = t;
	}
	os->sib[b] = os->child[a];
	os->child[a] = b;
	return a;
}

/* Remove the root @r of a heap; return the new root. */
static uint32_t delete_min(struct hs_optstack *os, uint32_t r)
{
	uint32_t c = os->child[r], pairs = NIL, a, b, m;

	os->child[r] = NIL;
	/* Left to right, meld the children in pairs, stacking the pairs. */
	while (c != NIL) {
		a = c;
		b = os->sib[a];
		if (b == NIL) {
			os->sib[a] = pairs;
			pairs = a;
			break;
		}
		c = os->sib[b];
		os->sib[a] = os->sib[b] = NIL;
		m = meld(os, a, b);
		os->sib[m] = pairs;
		pairs = m;
	}
	/* Then meld the pairs right to left. */
	for (m = NIL; pairs != NIL; pairs = a) {
		a = os->sib[pairs];
		os->sib[pairs] = NIL;
		m = meld(os, m, pairs);
	}
	return m;
}

/* The window is full: pack the live slots at its top end, in order. */
static void compact(struct hs_optstack *os)
{
	uint32_t s = os->nslots, d = os->nslots, k;

	while (s-- > os->low) {
		k = os->owner[s];
		if (k == NIL)
			continue;
		d--;
		os->w[d] = os->w[s];
		os->smark[d] = os->smark[s];
		os->owner[d] = k;
		os->slot[k] = d;
	}
	for (s = 0; s < d; s++) {
		os->w[s] = 0;
		os->smark[s] = NIL;
		os->owner[s] = NIL;
	}
	os->low = d;
	rebuild(os);
}

static void set_slot(struct hs_optstack *os, uint32_t s, uint32_t key)
{
	os->owner[s] = key;
	os->w[s] = key == NIL ? 0 : (int32_t)os->nmark[key] - 1;
	os->smark[s] = key == NIL ? NIL : os->heap[key];
}

int hs_optstack_new(uint32_t nr_keys, struct hs_optstack **out)
{
	struct hs_optstack *os;
	uint32_t n;

	if (!nr_keys || nr_keys > HS_STACKDIST_MAX_KEYS)
		return -EINVAL;
	os = calloc(1, sizeof(*os));
	if (!os)
		return -ENOMEM;
	os->nr_keys = nr_keys;
	for (n = MIN_SLOTS; n < 2 * nr_keys; n *= 2)
		;
	os->nslots = n;
	os->nblk = n / BLK;
	os->low = n;
	os->head = NIL;
	os->slot = malloc((size_t)nr_keys * sizeof(*os->slot));
	os->up = malloc((size_t)nr_keys * sizeof(*os->up));
	os->down = malloc((size_t)nr_keys * sizeof(*os->down));
	os->nmark = malloc((size_t)nr_keys * sizeof(*os->nmark));
	os->heap = malloc((size_t)nr_keys * sizeof(*os->heap));
	os->child = malloc((size_t)nr_keys * sizeof(*os->child));
	os->sib = malloc((size_t)nr_keys * sizeof(*os->sib));
	os->w = calloc(n, sizeof(*os->w));
	os->smark = malloc((size_t)n * sizeof(*os->smark));
	os->owner = malloc((size_t)n * sizeof(*os->owner));
	os->t = calloc(2 * (size_t)os->nblk, sizeof(*os->t));
	os->hist = calloc((size_t)nr_keys + 1, sizeof(*os->hist));
	if (!os->slot || !os->up || !os->down || !os->nmark || !os->heap ||
	    !os->child || !os->sib || !os->w || !os->smark || !os->owner ||
	    !os->t || !os->hist) {
		hs_optstack_free(os);
		return -ENOMEM;
	}
	memset(os->slot, 0xff, (size_t)nr_keys * sizeof(*os->slot));
	memset(os->smark, 0xff, (size_t)n * sizeof(*os->smark));
	memset(os->owner, 0xff, (size_t)n * sizeof(*os->owner));
	rebuild(os);
	*out = os;
	return 0;
}

void hs_optstack_free(struct hs_optstack *os)
{
	if (!os)
		return;
	free(os->hist);
	free(os->t);
	free(os->owner);
	free(os->smark);
	free(os->w);
	free(os->sib);
	free(os->child);
	free(os->heap);
	free(os->nmark);
	free(os->down);
	free(os->up);
	free(os->slot);
	free(os);
}

/* Put @key on top of the LRU stack in a new slot (unlinked before). */
static void push_top(struct hs_optstack *os, uint32_t key)
{
	uint32_t s;

	if (!os->low)
		compact(os);
	s = --os->low;
	os->slot[key] = s;
	set_slot(os, s, key);
	push_up(os, s >> BLK_SHIFT);
	os->up[key] = NIL;
	os->down[key] = os->head;
	if (os->head != NIL)
		os->up[os->head] = key;
	os->head = key;
}

int hs_optstack_access(struct hs_optstack *os, uint32_t key, uint64_t *dist)
{
	uint32_t p, q, m, se, sp, sq;
	uint64_t d;

	if (key >= os->nr_keys)
		return -EINVAL;
	os->accesses++;
	if (os->slot[key] == NIL) {
		os->cold++;
		if (dist)
			*dist = HS_STACKDIST_COLD;
		if (os->depth) {
			m = os->depth;
			os->child[m] = os->sib[m] = NIL;
			os->heap[key] = m;
			os->nmark[key] = 1;
		} else {
			os->heap[key] = NIL;
			os->nmark[key] = 0;
		}
		os->depth++;
		push_top(os, key);
		return 0;
	}
	if (key == os->head) {
		d = 1;
		goto done;
	}
	se = os->slot[key];
	p = os->up[key];
	sp = os->slot[p];
	sq = min_mark_after(os, last_zero(os, sp));
	assert(sq != NIL);
	q = os->owner[sq];
	m = os->heap[q];
	d = (uint64_t)m + 1;

	/* m leaves q; key hands the rest to p. */
	os->heap[q] = delete_min(os, m);
	os->nmark[q]--;
	os->heap[p] = meld(os, os->heap[p], os->heap[key]);
	os->nmark[p] += os->nmark[key];
	set_slot(os, sq, q);
	set_slot(os, sp, p);
	set_slot(os, se, NIL);
	push_up(os, sq >> BLK_SHIFT);
	if ((sp >> BLK_SHIFT) != (sq >> BLK_SHIFT))
		push_up(os, sp >> BLK_SHIFT);
	if ((se >> BLK_SHIFT) != (sq >> BLK_SHIFT) && (se >> BLK_SHIFT) != (sp >> BLK_SHIFT))
		push_up(os, se >> BLK_SHIFT);

	/* key goes on top holding m alone. */
	os->heap[key] = m;
	os->nmark[key] = 1;
	os->down[p] = os->down[key];
	if (os->down[key] != NIL)
		os->up[os->down[key]] = p;
	push_top(os, key);
done:
	os->hist[d]++;
	if (d > os->max_dist)
		os->max_dist = d;
	if (dist)
		*dist = d;
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
