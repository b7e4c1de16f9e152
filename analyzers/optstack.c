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
 * position of the LRU stack.  The proof is theirs; what follows is the
 * method as used here, written in terms of the LRU stack's keys, and
 * tests/t-mrc.c checks it against MIN run by the driver at every capacity
 * and against Mattson's next-use stack, access by access.
 *
 * The state.  The LRU stack of the keys seen so far, most recent first.
 * The n-th distinct key (n = 0, 1, ...) brings marker n with it, except the
 * first, which brings none; each marker hangs on one key of the stack, and
 * a key may hold several or none.  Let beta(i), for a position i >= 0 of
 * the LRU stack, be the sum over the top i keys of (markers held - 1): it
 * is never negative above the bottom key.
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
 *
 * Example, b d c b c b (markers in braces, the LRU stack after each access):
 *
 *	b  cold                                b{}
 *	d  cold                                d{1} b{}
 *	c  cold                                c{2} d{1} b{}
 *	b  D + 1 = 3; beta(1) = 0: z = 1;      b{1} c{2} d{}
 *	   below c: 1 (d's): distance 2
 *	c  D + 1 = 2: z = 0; the smallest      c{1} b{2} d{}
 *	   marker is b's 1: distance 2; c
 *	   hands its 2 to b
 *	b  as c before: distance 2             b{1} c{2} d{}
 *
 * MIN with 2 slots hits all three reuses (at the c it drops d, never used
 * again); LRU with 2 slots misses the first b (LRU distance 3).
 *
 * Why p inherits x's markers: a marker stands for a position of the LRU
 * stack, not for a key.  Stated on positions, the update moves every marker
 * at a position <= D down one, leaves those below D + 1 where they are and
 * puts m at position 1; when x leaves position D + 1 the key that takes
 * that position is p, so hanging markers on keys makes the shift free, as
 * the LRU stack's own shift is free in a tree over time.
 *
 * The data structure.  Keys sit in slots of a window ordered by the time of
 * their last access (the newest in the lowest slot; a slot is dead once its
 * key moves on), as in stackdist.c; when the window is full the live slots
 * are packed at its end and the window fills again.  A slot holds its key,
 * the key's markers - 1 (0 when dead) and the key's smallest marker.  Over
 * blocks of BLK slots sits a tree of fan-out FAN whose nodes keep, for
 * their range, the sum, the smallest prefix sum, the smallest marker and
 * the live slots.  Then:
 *
 *  - p and x's LRU position: the last live slot before x's, and the live
 *    slots before it: one walk up from x's block (and one down to p's slot
 *    when it is in another block);
 *  - z: the last slot before p's whose prefix sum is 0 (prefix sums are
 *    never negative there, so "holds a 0" is "its smallest prefix sum is
 *    0"): one walk up from p's block over the left siblings, nearest first,
 *    one walk down;
 *  - m: the smallest marker after that slot, gathered on the same walks
 *    from the right siblings; its key is the one its heap's root names;
 *  - a key's markers: a pairing heap (Fredman, Sedgewick, Sleator and
 *    Tarjan, 1986) threaded through an array indexed by marker, so that
 *    handing x's markers to p is one link and removing m, the smallest of
 *    its key's, is a delete-min.
 *
 * Every step is O(log n) (amortized for the heaps), and the blocks of the
 * four slots that change (m's key, p, x's old and new slot) are pushed up
 * the tree, stopping where a node does not change.  The LRU distances come
 * free with it, so one pass gives both curves.
 *
 * Hints and drops are outside the model: PAGEOUT evicts from one memory and
 * not from the others (the memories stop being the prefixes of one stack),
 * and a drop of a key in the middle would leave a hole.  The callers feed
 * pure access streams (cli/cmd-mrc.c falls back to the replay otherwise).
 *
 * Cost: O(log n) per access.  Memory per key: its slot number (4 bytes),
 * heap links (12), two histograms (16), and a window of 1.25 to 2.5 slots
 * of 12 bytes with about 1.3 bytes of tree per slot: 49 to 66 bytes.  On P12
 * (13.2 million accesses, 3.15 million keys) both curves take about 2.1
 * times the CPU of an LRU replay plus an OPT replay at one size (see
 * hsctl-mrc(1)); the previous next-use stack took 18 times.
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
#define FAN_SHIFT	2
#define FAN		(1u << FAN_SHIFT)	/* children per node */
#define MIN_SLOTS	(2 * BLK)	/* the window: a power of two, at least 1.25 keys */
#define MAX_LEVELS	32

/*
 * A tree node: over its range of slots, the sum of the weights, the
 * smallest prefix sum, the smallest marker and the live slots.
 */
struct node {
	int32_t		sum;
	int32_t		min;
	uint32_t	mark;
	uint32_t	live;
};

/* A slot of the window: its key's state, kept where the tree reads it. */
struct slot {
	int32_t		w;		/* markers held - 1; 0 if dead */
	uint32_t	mark;		/* the heap of its markers (its smallest), NIL if none */
	uint32_t	key;		/* NIL if dead */
};

/* Pairing-heap links of a marker, and for a heap's root its key. */
struct links {
	uint32_t	child, sib;
	uint32_t	key;
};

struct hs_optstack {
	uint32_t	nr_keys;	/* key ids are below this */
	uint32_t	depth;		/* keys seen: markers handed out + 1 */
	uint32_t	nslots;		/* the window: a power of two > 1.25 * nr_keys */
	uint32_t	low;		/* the newest live slot; the next is low - 1 */
	uint32_t	pending;	/* slots low .. low + pending - 1: not in the tree yet */
	uint32_t	head;		/* the top of the LRU stack, NIL when empty */
	uint32_t	nlev;		/* tree levels; level 0 has a leaf per block */
	uint32_t	*where;		/* per key: its slot, NIL before its first access */
	struct links	*ln;		/* per marker */
	struct slot	*sl;		/* per slot */
	/* the tree: lev[l][i] has children lev[l - 1][FAN * i ..]; lev[nlev - 1][0] is the root */
	struct node	*lev[MAX_LEVELS];
	uint32_t	levn[MAX_LEVELS];	/* nodes per level, padded to FAN */
	uint64_t	*hist;		/* hist[d]: accesses of finite OPT distance d */
	uint64_t	*lru_hist;	/* the same for LRU distances */
	uint64_t	accesses;	/* accesses fed */
	uint64_t	cold;		/* first accesses */
	uint64_t	max_dist;	/* largest finite distance seen, 0 if none */
	uint64_t	lru_max_dist;
};

static inline void add(struct node *n, const struct node *r)
{
	n->min = HS_MIN(n->min, n->sum + r->min);
	n->sum += r->sum;
	n->mark = HS_MIN(n->mark, r->mark);
	n->live += r->live;
}

static inline struct node group(const struct node *c)
{
	struct node n = c[0];

	for (uint32_t i = 1; i < FAN; i++)
		add(&n, &c[i]);
	return n;
}

static struct node leaf_of(const struct hs_optstack *os, uint32_t b)
{
	uint32_t s = b << BLK_SHIFT, i;
	struct node n = { 0, INT32_MAX, NIL, 0 };

	for (i = 0; i < BLK; i++) {
		const struct slot *x = &os->sl[s + i];

		n.sum += x->w;
		n.min = HS_MIN(n.min, n.sum);
		n.mark = HS_MIN(n.mark, x->mark);
		n.live += x->key != NIL;
	}
	return n;
}

static inline int same(const struct node *a, const struct node *b)
{
	return a->sum == b->sum && a->min == b->min && a->mark == b->mark && a->live == b->live;
}

/* Block @b changed: recompute its leaf and the ancestors that change. */
static void push_up(struct hs_optstack *os, uint32_t b)
{
	struct node n = leaf_of(os, b);
	uint32_t l, i = b;

	if (b == os->low >> BLK_SHIFT)
		os->pending = 0;

	for (l = 0;; l++) {
		if (same(&os->lev[l][i], &n))
			return;
		os->lev[l][i] = n;
		if (l == os->nlev - 1)
			return;
		i >>= FAN_SHIFT;
		n = group(&os->lev[l][i << FAN_SHIFT]);
	}
}

static void rebuild(struct hs_optstack *os)
{
	uint32_t b, l, i;

	for (b = 0; b < os->nslots >> BLK_SHIFT; b++)
		os->lev[0][b] = leaf_of(os, b);
	for (l = 1; l < os->nlev; l++)
		for (i = 0; i < os->levn[l - 1] >> FAN_SHIFT; i++)
			os->lev[l][i] = group(&os->lev[l - 1][i << FAN_SHIFT]);
	os->pending = 0;
}

/*
 * In block @b, entered with the prefix sum @before: the last slot before
 * @lim whose prefix sum is 0 (-1 for none), and the smallest of *@best and
 * the markers held after it in the block (in the whole block for none).
 */
static int32_t block_zero(const struct hs_optstack *os, uint32_t b, uint32_t lim,
			  int64_t before, uint32_t *best)
{
	uint32_t s = b << BLK_SHIFT, end = s + BLK;
	int32_t zs = -1;

	for (; s < lim; s++) {
		before += os->sl[s].w;
		if (before == 0)
			zs = (int32_t)s;
	}
	for (s = zs >= 0 ? (uint32_t)zs + 1 : b << BLK_SHIFT; s < end; s++)
		*best = HS_MIN(*best, os->sl[s].mark);
	return zs;
}

/*
 * The access's marker: the smallest marker held in the slots after z, z being the last slot before @sp (p's) whose prefix
 * sum is 0 (none: every slot is after it).  Prefix sums are never negative,
 * so a range holds a 0 exactly when its smallest prefix sum is 0.  One walk
 * up from p's block: the right siblings are all after z; the left siblings,
 * nearest first, until one holds a 0; one walk down into it for z.  The
 * marker's key is the root's key in its heap.  *@live (may be NULL) gets
 * the live slots before p's block, which the same walk passes.
 */
static uint32_t marker_after(const struct hs_optstack *os, uint32_t sp, uint64_t *live)
{
	uint32_t b = sp >> BLK_SHIFT, path[MAX_LEVELS], l, i, c, g, s;
	uint32_t best = NIL;
	int64_t before = 0;
	uint64_t n = 0;
	int32_t zs;

	/* The prefix before block b; the right siblings' markers; the live slots before b. */
	for (l = 0, i = b; l + 1 < os->nlev; l++, i >>= FAN_SHIFT) {
		const struct node *lv = os->lev[l];

		path[l] = i;
		g = i & ~(FAN - 1);
		for (c = g; c < i; c++) {
			before += lv[c].sum;
			n += lv[c].live;
		}
		for (c = i + 1; c < g + FAN; c++)
			best = HS_MIN(best, lv[c].mark);
	}
	if (live)
		*live = n;
	/* z in block b? */
	zs = block_zero(os, b, sp, before, &best);
	if (zs >= 0)
		goto done;
	/* The left siblings, nearest first, until one holds a 0. */
	for (l = 0; l + 1 < os->nlev; l++) {
		const struct node *lv = os->lev[l];

		g = path[l] & ~(FAN - 1);
		for (c = path[l]; c-- > g;) {
			before -= lv[c].sum;
			if (before + lv[c].min == 0)
				goto down;
			best = HS_MIN(best, lv[c].mark);
		}
	}
	goto done;	/* z is the empty prefix */
down:
	/* Node (l, c), entered with the prefix sum before it: find z in it. */
	while (l > 0) {
		const struct node *ch = &os->lev[l - 1][c << FAN_SHIFT];
		int64_t bf[FAN];
		uint32_t j;

		bf[0] = before;
		for (j = 1; j < FAN; j++)
			bf[j] = bf[j - 1] + ch[j - 1].sum;
		for (j = FAN; j-- > 0;) {
			if (bf[j] + ch[j].min == 0)
				break;
			best = HS_MIN(best, ch[j].mark);
		}
		assert(j < FAN);
		before = bf[j];
		c = (c << FAN_SHIFT) + j;
		l--;
	}
	zs = block_zero(os, c, (c + 1) << BLK_SHIFT, before, &best);
	assert(zs >= 0);
done:
	/* The newest slots, not in the tree yet, are after z when above it. */
	for (s = os->low; s < os->low + os->pending; s++)
		if ((int64_t)s > zs && os->sl[s].mark < best)
			best = os->sl[s].mark;
	return best;
}

/*
 * The live slot just before @se in @se's block, or NIL; *@pos gets 1 + the
 * live slots before @se in the block.
 */
static uint32_t slot_in_block(const struct hs_optstack *os, uint32_t se, uint64_t *pos)
{
	uint32_t c, sp = NIL;
	uint64_t n = 1;

	for (c = se; c-- > (se & ~(BLK - 1));)
		if (os->sl[c].key != NIL) {
			if (sp == NIL)
				sp = c;
			n++;
		}
	*pos = n;
	return sp;
}

/*
 * The live slot just before @se when it is not in @se's block (p's: the
 * key above in the LRU stack; there is one), and in *@left the live slots
 * in the tree before that block.  One walk up, one down to p's slot.
 */
static uint32_t slot_before_block(const struct hs_optstack *os, uint32_t se, uint64_t *left)
{
	uint32_t b = se >> BLK_SHIFT, l, i, c, g, fl = 0, fc = NIL;
	uint64_t n = 0;

	for (l = 0, i = b; l + 1 < os->nlev; l++, i >>= FAN_SHIFT) {
		const struct node *lv = os->lev[l];

		g = i & ~(FAN - 1);
		for (c = i; c-- > g;) {
			n += lv[c].live;
			if (fc == NIL && lv[c].live) {
				fl = l;
				fc = c;
			}
		}
	}
	*left = n;
	if (fc == NIL)		/* p is one of the newest slots, not in the tree yet */
		fc = os->low >> BLK_SHIFT;
	for (l = fl, i = fc; l > 0; l--) {
		const struct node *ch = &os->lev[l - 1][i << FAN_SHIFT];

		for (c = FAN; !ch[--c].live;)
			;
		i = (i << FAN_SHIFT) + c;
	}
	for (c = (i + 1) << BLK_SHIFT; os->sl[--c].key == NIL;)
		;
	return c;
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
	os->ln[b].sib = os->ln[a].child;
	os->ln[a].child = b;
	return a;
}

/* Remove the root @r of a heap; return the new root. */
static uint32_t delete_min(struct hs_optstack *os, uint32_t r)
{
	uint32_t c = os->ln[r].child, pairs = NIL, a, b, m;

	os->ln[r].child = NIL;
	/* Left to right, meld the children in pairs, stacking the pairs. */
	while (c != NIL) {
		a = c;
		b = os->ln[a].sib;
		if (b == NIL) {
			os->ln[a].sib = pairs;
			pairs = a;
			break;
		}
		c = os->ln[b].sib;
		os->ln[a].sib = os->ln[b].sib = NIL;
		m = meld(os, a, b);
		os->ln[m].sib = pairs;
		pairs = m;
	}
	/* Then meld the pairs right to left. */
	for (m = NIL; pairs != NIL; pairs = a) {
		a = os->ln[pairs].sib;
		os->ln[pairs].sib = NIL;
		m = meld(os, m, pairs);
	}
	return m;
}

static const struct slot dead = { 0, NIL, NIL };

/* The window is full: pack the live slots at its top end, in order. */
static void compact(struct hs_optstack *os)
{
	uint32_t s = os->nslots, d = os->nslots;

	while (s-- > os->low) {
		if (os->sl[s].key == NIL)
			continue;
		os->sl[--d] = os->sl[s];
		os->where[os->sl[d].key] = d;
	}
	for (s = 0; s < d; s++)
		os->sl[s] = dead;
	os->low = d;
	rebuild(os);
}

int hs_optstack_new(uint32_t nr_keys, struct hs_optstack **out)
{
	struct hs_optstack *os;
	uint32_t n, l, m;

	if (!nr_keys || nr_keys > HS_STACKDIST_MAX_KEYS)
		return -EINVAL;
	os = calloc(1, sizeof(*os));
	if (!os)
		return -ENOMEM;
	os->nr_keys = nr_keys;
	for (n = MIN_SLOTS; n < nr_keys + nr_keys / 4 + 1; n *= 2)
		;
	os->nslots = n;
	os->low = n;
	os->head = NIL;
	/* Level sizes: each padded to FAN with empty (dead) nodes. */
	for (l = 0, m = n >> BLK_SHIFT;; l++, m = (m + FAN - 1) >> FAN_SHIFT) {
		os->levn[l] = m == 1 ? 1 : (m + FAN - 1) & ~(FAN - 1);
		os->lev[l] = calloc(os->levn[l], sizeof(struct node));
		if (!os->lev[l])
			goto nomem;
		for (uint32_t i = 0; i < os->levn[l]; i++)
			os->lev[l][i].mark = NIL;
		if (m == 1)
			break;
	}
	os->nlev = l + 1;
	os->where = malloc((size_t)nr_keys * sizeof(*os->where));
	os->ln = malloc((size_t)nr_keys * sizeof(*os->ln));
	os->sl = malloc((size_t)n * sizeof(*os->sl));
	os->hist = calloc((size_t)nr_keys + 1, sizeof(*os->hist));
	os->lru_hist = calloc((size_t)nr_keys + 1, sizeof(*os->lru_hist));
	if (!os->where || !os->ln || !os->sl || !os->hist || !os->lru_hist)
		goto nomem;
	memset(os->where, 0xff, (size_t)nr_keys * sizeof(*os->where));
	for (m = 0; m < n; m++)
		os->sl[m] = dead;
	rebuild(os);
	*out = os;
	return 0;
nomem:
	hs_optstack_free(os);
	return -ENOMEM;
}

void hs_optstack_free(struct hs_optstack *os)
{
	if (!os)
		return;
	for (uint32_t l = 0; l < MAX_LEVELS; l++)
		free(os->lev[l]);
	free(os->lru_hist);
	free(os->hist);
	free(os->sl);
	free(os->ln);
	free(os->where);
	free(os);
}

/*
 * Put @key on top of the LRU stack in a new slot, holding @w + 1 markers,
 * @mark the least.  A new slot holding one marker changes its block's live
 * slots and markers but no sum, so it waits outside the tree ("pending")
 * until its block is pushed for another reason or the window moves on to
 * the next block: the walks add the pending slots themselves.  That saves
 * a walk up the tree on most accesses.
 */
static void push_top(struct hs_optstack *os, uint32_t key, int32_t w, uint32_t mark)
{
	uint32_t s;

	if (!os->low)
		compact(os);
	if (os->pending && !(os->low & (BLK - 1)))
		push_up(os, os->low >> BLK_SHIFT);
	s = --os->low;
	os->where[key] = s;
	os->sl[s].w = w;
	os->sl[s].mark = mark;
	os->sl[s].key = key;
	os->head = key;
	if (w || mark == NIL)
		push_up(os, s >> BLK_SHIFT);
	else
		os->pending++;
}

void hs_optstack_prefetch(const struct hs_optstack *os, uint32_t far, uint32_t near)
{
	uint32_t s;

	if (far < os->nr_keys)
		__builtin_prefetch(&os->where[far]);
	if (near < os->nr_keys && (s = os->where[near]) != NIL) {
		const struct slot *b = &os->sl[s & ~(BLK - 1)];

		__builtin_prefetch(b);
		__builtin_prefetch((const char *)b + 64);
		__builtin_prefetch((const char *)b + 128);
		__builtin_prefetch(&os->lev[0][s >> BLK_SHIFT]);
	}
}

int hs_optstack_access(struct hs_optstack *os, uint32_t key, uint64_t *dist)
{
	uint32_t m, r, se, sp, sq, bq, bp, be;
	uint64_t left;
	struct slot *x;
	uint64_t d, ld;

	if (key >= os->nr_keys)
		return -EINVAL;
	os->accesses++;
	se = os->where[key];
	if (se == NIL) {
		os->cold++;
		if (dist)
			*dist = HS_STACKDIST_COLD;
		if (os->depth) {	/* the first key brings no marker */
			m = os->depth;
			os->ln[m].child = os->ln[m].sib = NIL;
			os->ln[m].key = key;
			push_top(os, key, 0, m);
		} else {
			push_top(os, key, -1, NIL);
		}
		os->depth++;
		return 0;
	}
	if (key == os->head) {
		d = ld = 1;
		goto done;
	}
	if (!os->low) {
		compact(os);
		se = os->where[key];
	}
	/*
	 * p is usually in the accessed key's block: then one walk up serves
	 * both the LRU position and the marker.
	 */
	sp = slot_in_block(os, se, &ld);
	if (sp != NIL) {
		m = marker_after(os, sp, &left);
	} else {
		sp = slot_before_block(os, se, &left);
		m = marker_after(os, sp, NULL);
	}
	ld += left;
	/* The newest slots, not in the tree yet, are in the first live block. */
	if ((se >> BLK_SHIFT) != os->low >> BLK_SHIFT)
		ld += os->pending;
	assert(m != NIL);
	sq = os->where[os->ln[m].key];
	d = (uint64_t)m + 1;

	/* m leaves its key; the accessed key hands the rest to p. */
	r = delete_min(os, m);
	os->sl[sq].mark = r;
	if (r != NIL)
		os->ln[r].key = os->sl[sq].key;
	os->sl[sq].w--;
	x = &os->sl[se];
	r = meld(os, os->sl[sp].mark, x->mark);
	os->sl[sp].mark = r;
	if (r != NIL)
		os->ln[r].key = os->sl[sp].key;
	os->sl[sp].w += x->w + 1;
	*x = dead;
	/* The accessed key goes on top holding m alone. */
	os->ln[m].key = key;
	push_top(os, key, 0, m);
	/* Push the changed blocks up the tree, each once. */
	bq = sq >> BLK_SHIFT;
	bp = sp >> BLK_SHIFT;
	be = se >> BLK_SHIFT;
	push_up(os, bq);
	if (bp != bq)
		push_up(os, bp);
	if (be != bq && be != bp)
		push_up(os, be);
done:
	os->hist[d]++;
	if (d > os->max_dist)
		os->max_dist = d;
	os->lru_hist[ld]++;
	if (ld > os->lru_max_dist)
		os->lru_max_dist = ld;
	if (dist)
		*dist = d;
	return 0;
}

static void curve_of(const uint64_t *hist, uint64_t max_dist, uint64_t *hits, size_t n)
{
	uint64_t sum = 0;
	size_t c;

	for (c = 0; c < n; c++) {
		if (c >= 1 && c <= max_dist)
			sum += hist[c];
		hits[c] = sum;
	}
}

int hs_optstack_curve(const struct hs_optstack *os, uint64_t *hits, size_t n)
{
	curve_of(os->hist, os->max_dist, hits, n);
	return 0;
}

int hs_optstack_lru_curve(const struct hs_optstack *os, uint64_t *hits, size_t n)
{
	curve_of(os->lru_hist, os->lru_max_dist, hits, n);
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
