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
 * are packed at its end and the window fills again.  A slot holds the
 * key's markers - 1 (0 when dead) and the key's smallest marker (8 bytes;
 * its key sits apart, read only by the packing).  Over blocks of BLK = 8
 * slots (one cache line) sits a tree of fan-out FAN = 4 (a sibling group is
 * one line, laid out by field: the four sums, then the four mins, ...)
 * whose nodes keep, for their range, the sum, the smallest prefix sum, the
 * smallest marker and the live slots.  Then:
 *
 *  - p and x's LRU position: the last live slot before x's, and the live
 *    slots before it: p is nearly always in x's block (92% on P12); else
 *    one walk up from x's block and one down to p's slot;
 *  - z: the last slot before p's whose prefix sum is 0 (prefix sums are
 *    never negative there, so "holds a 0" is "its smallest prefix sum is
 *    0"): one walk down from the root to p's block keeps the nearest left
 *    sibling holding a 0 (z is in p's block only 4% of the time), then one
 *    walk down into that sibling;
 *  - m: the smallest marker after that slot, gathered on the same walks
 *    from the siblings after the path; the live slots before p's block
 *    come from the siblings before it on the same walk;
 *  - a key's markers: a pairing heap (Fredman, Sedgewick, Sleator and
 *    Tarjan, 1986) threaded through an array indexed by marker, so that
 *    handing x's markers to p is one link and removing m, the smallest of
 *    its key's, is a delete-min; a heap's root names its key's slot, which
 *    is what the access changes next.
 *
 * Every step is O(log n) (amortized for the heaps), and the blocks of the
 * four slots that change (m's key, p, x's old and new slot) are pushed up
 * the tree in one walk, level by level, so the upper tree that their paths
 * share is recomputed once: x's new slot waits outside the tree (below),
 * and p nearly always shares x's block, so two paths are walked up side by
 * side until they meet.  The LRU distances come free with it, so one pass
 * gives both curves.
 *
 * What an access need not redo.  The update moves little, and three
 * consequences of it (with unrolling the searches for the last 0 and
 * one shift a level on the walk down) took a fifth of the instructions
 * off:
 *
 *  - The walk into the candidate only finds which of its markers lie
 *    after z.  Those are among the markers of the node holding z, so once
 *    that node's smallest is no better than the best found elsewhere (after
 *    p, in p's block, between the candidate and the path) the walk stops:
 *    at once on 22% of P12's accesses.
 *  - Away from the newest block (whose pending slots join the tree when
 *    it is pushed), the live counts of the two pushed leaves are known: x's
 *    slot died, p and m's key stay live.  And when m's key is in another
 *    block than x's, x's block keeps its markers (x's went to p), so until
 *    the two paths meet x's regroups sums and mins only, m's key's all but
 *    the live counts.  For the tree's leaves to be as they were before the
 *    access, the blocks are pushed before x's new slot goes on top.
 *  - From where the paths meet, a weight of 1 and marker m have moved
 *    between the two blocks, so a node often keeps its sum, min and
 *    smallest marker (2 of the 4 levels of the merged path on P12); then
 *    only its live count moved, and each ancestor's by as much: the walk
 *    up adds it, without grouping.  Likewise for the push of the newest
 *    block, whose slots join with weight 0.
 *
 * Where the time goes.  The pass reads its arrays at random: P12 has 150 MB
 * of them, and an access reads a handful of lines anywhere in them.  So the
 * paths of x's block (a few dozen accesses ahead: the stream is known) and
 * of m's block (as soon as m is found, while the heaps work) are
 * prefetched, and the big arrays live on transparent huge pages
 * (hs_huge_alloc()), which took a quarter of the CPU time off: with
 * 4 KB pages nearly every random read also missed the TLB.  The walk down
 * takes a child by data, so a loop up to it mispredicts where it stops:
 * the prefix sums, live counts and smallest markers after each child of a
 * sibling group are computed for all four and the path's picked by index
 * instead (and the search for the last 0 is one mask and one branch a
 * level, the blocks' scans branch-free: see "Mispredicts" below).  What
 * was left before the skipping
 * above, measured with cachegrind on the whole of P12 (its D1 of 48 KB
 * and a last level modelled as 4 MB, this machine's L2): per access,
 * 2,320 instructions, 10 branch mispredicts, 3.0 D1 and 2.4 L2 misses for
 * the whole command: most of what an access reads is in the cache
 * already, and the time goes to instructions and mispredicts.  Of the OPT
 * stack's 2,200 instructions and 10 mispredicts: 940 and 5.9 the walks
 * down for m and z (which child holds the last 0 is data), 920 and 1.3
 * the push-up (two paths of 11 levels that meet near the root: about 10
 * parents and 2 leaves recomputed an access; 0.9 D1 misses), 70 and 1.8
 * the LRU position, 45 and 0.7 the heaps, the rest putting keys on top,
 * prefetching, the histograms and packing the window (0.6 D1 misses of
 * its own).  (Before the side-by-side push-up and the picking by index:
 * 2,680 instructions and 16.3 mispredicts an access, the same misses.)
 * With the skipping, in one cachegrind run beside one of the code before
 * it (whole command, whole of P12, this cachegrind modelling the last
 * level as the 105 MB L3): 1,810 instructions and 8.6 mispredicts an
 * access, from 2,300 and 10.0; 3.0 D1 and 2.4 last-level misses both.
 * On P12's first 1.5 million accesses (callgrind): 1,430 from 1,800.
 * Tried and dropped, as slower in CPU though some ran fewer instructions:
 * keeping in each node the smallest marker after its last min, so that
 * the walk into the candidate goes (the nodes grew to 20 or 32 bytes, or
 * the marker went to arrays of its own: more lines read, and a costlier
 * grouping on every push); choosing that marker, or the candidate on the
 * walk down, by masks; rejoining the walk's sibling groups on the push
 * instead of grouping them; 32-bit histograms.  Fewer,
 * wider levels do not help as they are: on P12's first 1.3 million
 * accesses FAN = 8 or 16, or BLK = 16 with FAN = 8, cost 14, 43 and 22%
 * more instructions (each level reads and recomputes two or four times
 * the children) and more time.
 *
 * Mispredicts.  What the skipping left, in cachegrind on the whole of P12:
 * 8.6 mispredicts an access, 2.6 of them the unrolled search for the last
 * 0 on the walk down (where it stopped), 0.8 the scan of x's block for p,
 * 0.7 the walk up to p when p is outside x's block (9 a call) and 0.6 the
 * scan of p's block for its last 0.  They now branch once or not at all:
 * the three siblings' tests for a 0 make a mask, and one branch on it
 * takes the nearest; a block's live slots make a mask (SSE2: two slots a
 * vector), whose highest bit below x is p and whose popcount below x
 * counts toward the LRU position; p's block's eight prefix sums and markers are computed at
 * once (SSE2); on the walk up to p the siblings' live counts are masked
 * and the nearest live one is picked once.  And the markers between the
 * candidate and the path are not gathered a level at a time any more: the
 * suffix min the walk has at the candidate's level holds them, and those
 * past the path, which count anyway (a nearer candidate below replaces
 * it, and below without one, they are all in the path's child).  That
 * gathering went first; with it, choosing the candidate by masks had cost
 * more than it saved (above).  Cachegrind, the whole command on the whole
 * of P12, against main's build: 1,846 instructions and 4.1 mispredicts
 * an access, from 1,793 and 8.6; the misses unchanged.  CPU time, the
 * curves not stored, on a machine shared with other jobs (so per-round
 * ratios swing): in ten rounds interleaved with main's build, 0.72 to
 * 1.14 times main's, median 0.89, the fastest runs 2.74 s against 3.29;
 * in ten more rounds of the four commands (main's, this, and the LRU and
 * OPT replays at one size), medians of 4.47 s against 4.83, and 0.40 +
 * 0.91 s for the replays: 3.4 times the replays, from 3.7.
 *
 * By field.  The walk down computed the four children's sums, counts and
 * markers as scalars, stored them and read the path's back by index, so
 * each level's prefix sum waited on a store and a load.  With each
 * sibling group laid out by field, a level is one vector per field
 * (SSE2): the sums before the children one prefix sum, the tests for a 0
 * one compare and one mask, and the live counts before the path and the
 * markers after it masked by the path's index from a table and gathered
 * in vectors, reduced once after the walk.  It is not fewer instructions
 * (SSE2's two-operand forms copy registers, and it has no unsigned min):
 * cachegrind, a zipf(1.0) session of 1 M accesses and 146 K keys, 679 M
 * in marker_after against 670 M, 1,791 M for the whole command against
 * 1,733 M.  But it is faster: mrc on P12, 7 interleaved rounds, median
 * 1.92 s of CPU against 2.14 (per-round ratios 0.87 to 0.93, one 1.14),
 * an earlier 5 rounds 2.21 against 2.58; z.db session 2, 5 rounds, 2.87
 * against 2.93; session 1, 3 rounds, 2.26 against 2.44.  The layout alone
 * changed nothing measurable (P12, median 0.94 of the code before, ratios
 * 0.89 to 1.11).  The push-up still groups as scalars: a vector group is
 * no shorter without SSE4.1's mins (with -march=native for this file
 * alone, the whole command took 0.93 of the time, 5 rounds on P12; not
 * worth choosing code at run time for, yet).
 *
 * Also tried and dropped then, neither measurable in 5 interleaved rounds
 * on a loaded machine: prefetching, two accesses ahead, the heap roots of
 * x's slot and of the slot before it (z.db session 2, median 1.02 of the
 * code without); and keeping the roots' slots in an array of their own,
 * 4 bytes a marker, so that the read of m's slot that the rest of the
 * access waits on is in an array a third the size of the links (P12 0.97,
 * z.db session 2 0.99, per-round ratios 0.63 to 1.23).
 *
 * Tried and dropped: a window of 2.5 to 5 slots a key (2^23 on P12,
 * compacted 5 times less often; the tree keeps its 11 levels): 1.5%
 * fewer instructions and 26% fewer D1 misses, 30% more last-level ones
 * and 60 MB more, no gain in CPU time measurable here.
 *
 * Hints and drops are outside the model: PAGEOUT evicts from one memory and
 * not from the others (the memories stop being the prefixes of one stack),
 * and a drop of a key in the middle would leave a hole.  The callers feed
 * pure access streams (cli/cmd-mrc.c falls back to the replay otherwise).
 *
 * Cost: O(log n) per access.  Memory per key: its slot number (4 bytes),
 * heap links (12), two histograms (16), and a window of 1.25 to 2.5 slots
 * of 12 bytes with about 2.7 bytes of tree per slot: 50 to 69 bytes.  On
 * P12 (13.2 million accesses, 3.15 million keys) both curves take about
 * 2.5 times the CPU of an LRU replay plus an OPT replay at one size (2.7
 * before the side-by-side push-up and the picking by index, in the same
 * rounds; 3.6 before the prefetching and huge pages; see hsctl-mrc(1),
 * COST); the previous next-use stack took 18 times.  With the skipping,
 * in five rounds interleaved with the code before it (the medians, the
 * curves stored, on a loaded machine): 5.28 s of CPU against 0.65 + 1.53
 * s for the two replays, 2.4 times, where the code before took 6.25 s,
 * 2.9 times in the same rounds.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "analyzer.h"
#include "hs.h"

#define NIL		UINT32_MAX
#define BLK_SHIFT	3
#define BLK		(1u << BLK_SHIFT)	/* slots per leaf of the tree */
#define FAN_SHIFT	2
#define FAN		(1u << FAN_SHIFT)	/* children per node */
#define MIN_SLOTS	(2 * BLK)	/* the window: a power of two, at least 1.25 keys */
#define MAX_LEVELS	32
#define PREFETCH_LEVELS	4		/* levels of a path to prefetch (lev[3]: 16K per M slots) */
#define LINE		64		/* a cache line: FAN nodes, BLK slots */
#define PEND		32		/* distances counted into the histograms at once */

/* live_mask(), slot_in_block() and block_zero() count on 8 slots a block. */
_Static_assert(BLK == 8, "a block is 8 slots");

/*
 * A tree node: over its range of slots, the sum of the weights, the
 * smallest prefix sum, the smallest marker and the live slots.  The tree
 * keeps them by sibling group (struct grp), this is one read out.
 */
struct node {
	int32_t		sum;
	int32_t		min;
	uint32_t	mark;
	uint32_t	live;
};

/*
 * A sibling group of FAN nodes, one cache line (the levels are allocated
 * on line bounds, so a node's siblings come in with it), field by field:
 * the walk down takes each field of the four siblings as one vector (see
 * marker_after()).  Node i of a level is lane i % FAN of group i / FAN,
 * and the children of node i are group i of the level below.
 */
struct grp {
	int32_t		sum[FAN];
	int32_t		min[FAN];
	uint32_t	mark[FAN];
	uint32_t	live[FAN];
};

_Static_assert(sizeof(struct grp) == LINE || FAN != 4, "a sibling group is a line");

/*
 * A slot of the window: its key's state, kept where the tree reads it.  A
 * live slot holds markers (mark != NIL) or none (w = -1), so a slot is dead
 * exactly when w = 0 and mark = NIL, and the key is not needed to count
 * live slots: it lives apart (skey[]), for compaction and the heaps.
 */
struct slot {
	int32_t		w;		/* markers held - 1; 0 if dead */
	uint32_t	mark;		/* the heap of its markers (its smallest), NIL if none */
};

static inline uint32_t is_live(const struct slot *x)
{
	return ((uint32_t)x->w | (x->mark + 1)) != 0;
}

/*
 * Pairing-heap links of a marker, and for a heap's root the slot of its
 * key: the tree names the marker, and the slot is what the access changes
 * next, so naming the slot, not the key, saves a random read of where[].
 */
struct links {
	uint32_t	child, sib;
	uint32_t	slot;
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
	uint32_t	*skey;		/* per slot: its key, while the slot is live */
	/* the tree: node i of level l has children group i of level l - 1; node 0 of nlev - 1 is the root */
	struct grp	*lev[MAX_LEVELS];
	uint32_t	levn[MAX_LEVELS];	/* nodes per level, padded to FAN */
	uint64_t	*hist;		/* hist[d]: accesses of finite OPT distance d */
	uint64_t	*lru_hist;	/* the same for LRU distances */
	uint32_t	npend;		/* distances not in the histograms yet: count_pending() */
	uint32_t	pend[PEND];	/* their OPT distances */
	uint32_t	lru_pend[PEND];	/* and LRU distances */
	uint64_t	accesses;	/* accesses fed */
	uint64_t	cold;		/* first accesses */
	uint64_t	max_dist;	/* largest finite distance seen, 0 if none */
	uint64_t	lru_max_dist;
};

/* A field of node @i of level @l. */
#define NF(os, l, i, f)	((os)->lev[l][(i) >> FAN_SHIFT].f[(i) & (FAN - 1)])

static inline struct node nget(const struct hs_optstack *os, uint32_t l, uint32_t i)
{
	const struct grp *g = &os->lev[l][i >> FAN_SHIFT];
	uint32_t k = i & (FAN - 1);

	return (struct node){ g->sum[k], g->min[k], g->mark[k], g->live[k] };
}

static inline void nput(struct hs_optstack *os, uint32_t l, uint32_t i, struct node n)
{
	struct grp *g = &os->lev[l][i >> FAN_SHIFT];
	uint32_t k = i & (FAN - 1);

	g->sum[k] = n.sum;
	g->min[k] = n.min;
	g->mark[k] = n.mark;
	g->live[k] = n.live;
}

/* The parent of the FAN nodes @c: prefix sums first, so the mins do not wait on one another. */
static inline struct node group(const struct grp *c)
{
#if FAN_SHIFT == 2
	int32_t s0 = c->sum[0], s1 = s0 + c->sum[1], s2 = s1 + c->sum[2];
	int32_t m01 = HS_MIN(c->min[0], s0 + c->min[1]);
	int32_t m23 = HS_MIN(s1 + c->min[2], s2 + c->min[3]);
	uint32_t k01 = HS_MIN(c->mark[0], c->mark[1]), k23 = HS_MIN(c->mark[2], c->mark[3]);

	return (struct node){ s2 + c->sum[3], HS_MIN(m01, m23), HS_MIN(k01, k23),
			      (c->live[0] + c->live[1]) + (c->live[2] + c->live[3]) };
#else
	struct node n = { c->sum[0], c->min[0], c->mark[0], c->live[0] };

	for (uint32_t k = 1; k < FAN; k++) {
		n.min = HS_MIN(n.min, n.sum + c->min[k]);
		n.sum += c->sum[k];
		n.mark = HS_MIN(n.mark, c->mark[k]);
		n.live += c->live[k];
	}
	return n;
#endif
}

/* Node @i of level @l, whose children changed in their sums and mins only: those. */
static inline void regroup_sums(struct hs_optstack *os, uint32_t l, uint32_t i)
{
	const struct grp *c = &os->lev[l - 1][i];
#if FAN_SHIFT == 2
	int32_t s0 = c->sum[0], s1 = s0 + c->sum[1], s2 = s1 + c->sum[2];
	int32_t m01 = HS_MIN(c->min[0], s0 + c->min[1]);
	int32_t m23 = HS_MIN(s1 + c->min[2], s2 + c->min[3]);

	NF(os, l, i, sum) = s2 + c->sum[3];
	NF(os, l, i, min) = HS_MIN(m01, m23);
#else
	struct node g = group(c);

	NF(os, l, i, sum) = g.sum;
	NF(os, l, i, min) = g.min;
#endif
}

/* Node @i of level @l, whose children kept their live counts: the rest. */
static inline void regroup_marks(struct hs_optstack *os, uint32_t l, uint32_t i)
{
	const struct grp *c = &os->lev[l - 1][i];
#if FAN_SHIFT == 2
	uint32_t k01 = HS_MIN(c->mark[0], c->mark[1]), k23 = HS_MIN(c->mark[2], c->mark[3]);

	regroup_sums(os, l, i);
	NF(os, l, i, mark) = HS_MIN(k01, k23);
#else
	struct node g = group(c);

	NF(os, l, i, sum) = g.sum;
	NF(os, l, i, min) = g.min;
	NF(os, l, i, mark) = g.mark;
#endif
}

static inline struct node leaf_of(const struct hs_optstack *os, uint32_t b)
{
	const struct slot *x = &os->sl[b << BLK_SHIFT], *end = x + BLK;
	int32_t sum = 0, min = INT32_MAX;
	uint32_t mark = NIL, live = 0;

#pragma GCC unroll 8
	for (; x < end; x++) {
		sum += x->w;
		min = HS_MIN(min, sum);
		mark = HS_MIN(mark, x->mark);
		live += is_live(x);
	}
	return (struct node){ sum, min, mark, live };
}

/* leaf_of() of block @b when only its sum and min may have moved: those. */
static inline void leaf_sums(struct hs_optstack *os, uint32_t b)
{
	const struct slot *x = &os->sl[b << BLK_SHIFT], *end = x + BLK;
	int32_t sum = 0, min = INT32_MAX;

#pragma GCC unroll 8
	for (; x < end; x++) {
		sum += x->w;
		min = HS_MIN(min, sum);
	}
	NF(os, 0, b, sum) = sum;
	NF(os, 0, b, min) = min;
}

/* leaf_of() of block @b when its live slots are known to be @live. */
static inline struct node leaf_live(const struct hs_optstack *os, uint32_t b, uint32_t live)
{
	const struct slot *x = &os->sl[b << BLK_SHIFT], *end = x + BLK;
	int32_t sum = 0, min = INT32_MAX;
	uint32_t mark = NIL;

#pragma GCC unroll 8
	for (; x < end; x++) {
		sum += x->w;
		min = HS_MIN(min, sum);
		mark = HS_MIN(mark, x->mark);
	}
	return (struct node){ sum, min, mark, live };
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
		struct node o = nget(os, l, i);

		if (n.sum == o.sum && n.min == o.min && n.mark == o.mark) {
			/* only the live count moved: the ancestors' by as much (see push_two()) */
			uint32_t d = n.live - o.live;

			if (!d)
				return;
			for (; l < os->nlev; l++, i >>= FAN_SHIFT)
				NF(os, l, i, live) += d;
			return;
		}
		nput(os, l, i, n);
		if (l == os->nlev - 1)
			return;
		i >>= FAN_SHIFT;
		n = group(&os->lev[l][i]);
	}
}

/*
 * Blocks @b[0 .. @n - 1] (n <= 4, repeats allowed) changed: push them up
 * the tree in one walk, level by level, so that the nodes their paths
 * share (most of the upper tree) are recomputed once, not once per block.
 * Every node on the way changes (a live count or a sum moves on each path;
 * on P12 fewer than one in a million stays the same), so the walk goes to
 * the root without comparing.
 */
static void push_blocks(struct hs_optstack *os, uint32_t *b, uint32_t n)
{
	uint32_t i, j, k, l, t;

	/* Sort and merge: the parents of a sorted list are sorted. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && b[j - 1] > b[j]; j--) {
			t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	for (i = 0, k = 0; i < n; i++)
		if (!k || b[i] != b[k - 1])
			b[k++] = b[i];
	for (i = 0, n = 0; i < k; i++) {
		struct node nd = leaf_of(os, b[i]), o = nget(os, 0, b[i]);

		if (b[i] == os->low >> BLK_SHIFT)
			os->pending = 0;
		if (!same(&o, &nd)) {
			nput(os, 0, b[i], nd);
			b[n++] = b[i];
		}
	}
	for (l = 1; l < os->nlev && n; l++, n = k) {
		for (i = 0, k = 0; i < n; i++) {
			t = b[i] >> FAN_SHIFT;
			if (!k || t != b[k - 1])
				b[k++] = t;
		}
		for (i = 0; i < k; i++)
			nput(os, l, b[i], group(&os->lev[l - 1][b[i]]));
	}
}

/*
 * The common case of push_blocks(): two blocks, @a (the accessed key's,
 * which p shares 92% of the time on P12) and @b (m's key's), maybe the
 * same.  Their paths are walked up side by side until they meet, then as
 * one: no sorting or merging, and one unpredictable branch (where they
 * meet) instead of one a level.
 */
static void push_two(struct hs_optstack *os, uint32_t a, uint32_t b)
{
	uint32_t l = 0, low = os->low >> BLK_SHIFT;

	if (a == low || b == low) {
		nput(os, 0, a, leaf_of(os, a));
		nput(os, 0, b, leaf_of(os, b));
		os->pending = 0;
		while (++l < os->nlev) {
			a >>= FAN_SHIFT;
			b >>= FAN_SHIFT;
			if (a == b)
				break;
			nput(os, l, a, group(&os->lev[l - 1][a]));
			nput(os, l, b, group(&os->lev[l - 1][b]));
		}
	} else {
		/*
		 * Without the newest block, whose pending slots join the
		 * tree when it is pushed, the live counts are known: x's
		 * slot died, p and m's key stay live.  And when m's key is
		 * in another block, x's block keeps its markers (x's went
		 * to p), so until the paths meet @a's path regroups sums
		 * and mins and counts x's death, and @b's all but live.
		 */
		if (a == b) {
			nput(os, 0, a, leaf_live(os, a, NF(os, 0, a, live) - 1));
		} else {
			leaf_sums(os, a);
			NF(os, 0, a, live)--;
			nput(os, 0, b, leaf_live(os, b, NF(os, 0, b, live)));
		}
		while (++l < os->nlev) {
			a >>= FAN_SHIFT;
			b >>= FAN_SHIFT;
			if (a == b)
				break;
			regroup_sums(os, l, a);
			NF(os, l, a, live)--;
			regroup_marks(os, l, b);
		}
	}
	/*
	 * One path from where they meet.  The access moved a marker and a
	 * weight of 1 between the two blocks, so from there on a node often
	 * keeps its sum, min and smallest marker (from about the middle of
	 * the merged path on P12: 2 of its 4 levels); then only its live
	 * count moved, and its ancestors' by as much: no grouping above.
	 */
	for (; l < os->nlev; l++, a >>= FAN_SHIFT) {
		struct node n = group(&os->lev[l - 1][a]), o = nget(os, l, a);

		if (n.sum == o.sum && n.min == o.min && n.mark == o.mark) {
			uint32_t d = n.live - o.live;

			for (; l < os->nlev; l++, a >>= FAN_SHIFT)
				NF(os, l, a, live) += d;
			return;
		}
		nput(os, l, a, n);
	}
}

static void rebuild(struct hs_optstack *os)
{
	uint32_t b, l, i;

	for (b = 0; b < os->nslots >> BLK_SHIFT; b++)
		nput(os, 0, b, leaf_of(os, b));
	for (l = 1; l < os->nlev; l++)
		for (i = 0; i < os->levn[l - 1] >> FAN_SHIFT; i++)
			nput(os, l, i, group(&os->lev[l - 1][i]));
	os->pending = 0;
}

#ifdef __SSE2__
/* The smaller of each pair of unsigned words (SSE2 has no pminud). */
static inline __m128i min_epu32(__m128i a, __m128i b)
{
	const __m128i sign = _mm_set1_epi32(INT32_MIN);
	__m128i gt = _mm_cmpgt_epi32(_mm_xor_si128(a, sign), _mm_xor_si128(b, sign));

	return _mm_or_si128(_mm_and_si128(gt, b), _mm_andnot_si128(gt, a));
}

/* The smallest of the four unsigned words of @v. */
static inline uint32_t hmin_epu32(__m128i v)
{
	v = min_epu32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
	v = min_epu32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
	return (uint32_t)_mm_cvtsi128_si32(v);
}
#endif

/*
 * In block @b, entered with the prefix sum @before: the last slot before
 * @lim whose prefix sum is 0 (-1 for none), and the smallest of *@best and
 * the markers held after it in the block (in the whole block for none).
 */
static inline int32_t block_zero(const struct hs_optstack *os, uint32_t b, uint32_t lim,
				 int64_t before, uint32_t *best)
{
#ifdef __SSE2__
	/*
	 * Branch-free, the block's 8 prefix sums and markers at once: where
	 * the last 0 lies is data, and the loops mispredicted where they
	 * stopped (0.6 times an access on P12).  Sums fit 32 bits: markers
	 * and keys are below 2^30.
	 */
	const __m128 *x = (const __m128 *)&os->sl[b << BLK_SHIFT];
	__m128 r0 = x[0], r1 = x[1], r2 = x[2], r3 = x[3];
	__m128i lo = _mm_castps_si128(_mm_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0)));
	__m128i hi = _mm_castps_si128(_mm_shuffle_ps(r2, r3, _MM_SHUFFLE(2, 0, 2, 0)));
	__m128i klo = _mm_castps_si128(_mm_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1)));
	__m128i khi = _mm_castps_si128(_mm_shuffle_ps(r2, r3, _MM_SHUFFLE(3, 1, 3, 1)));
	__m128i zl, k;
	uint32_t zero;
	int32_t z;

	lo = _mm_add_epi32(lo, _mm_slli_si128(lo, 4));
	lo = _mm_add_epi32(lo, _mm_slli_si128(lo, 8));
	hi = _mm_add_epi32(hi, _mm_slli_si128(hi, 4));
	hi = _mm_add_epi32(hi, _mm_slli_si128(hi, 8));
	lo = _mm_add_epi32(lo, _mm_set1_epi32((int32_t)before));
	hi = _mm_add_epi32(hi, _mm_shuffle_epi32(lo, _MM_SHUFFLE(3, 3, 3, 3)));
	zero = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(lo, _mm_setzero_si128()))) |
	       (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(hi, _mm_setzero_si128())))
		       << 4;
	zero &= (1u << (lim - (b << BLK_SHIFT))) - 1;
	z = zero ? 31 - __builtin_clz(zero) : -1;
	/* The markers of the slots after z: the others' made NIL. */
	zl = _mm_set1_epi32(z + 1);
	klo = _mm_or_si128(klo, _mm_cmpgt_epi32(zl, _mm_set_epi32(3, 2, 1, 0)));
	khi = _mm_or_si128(khi, _mm_cmpgt_epi32(zl, _mm_set_epi32(7, 6, 5, 4)));
	k = min_epu32(klo, khi);
	k = min_epu32(k, _mm_shuffle_epi32(k, _MM_SHUFFLE(1, 0, 3, 2)));
	k = min_epu32(k, _mm_shuffle_epi32(k, _MM_SHUFFLE(2, 3, 0, 1)));
	*best = HS_MIN(*best, (uint32_t)_mm_cvtsi128_si32(k));
	return z < 0 ? -1 : (int32_t)(b << BLK_SHIFT) + z;
#else
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
#endif
}

/*
 * The access's marker: the smallest marker held in the slots after z, z
 * being the last slot before @sp (p's) whose prefix sum is 0 (none: every
 * slot is after it).  Prefix sums are never negative there, so a range
 * holds a 0 exactly when its smallest prefix sum is 0.
 *
 * One walk down from the root to p's block: at each level the children
 * before the path give the prefix sum, the live slots and the nearest
 * range holding a 0 (a candidate for z's range; a lower level's replaces
 * it, being nearer p), those after it their markers; the markers between
 * the candidate and the path are kept apart, as they count only while the
 * candidate stands.  If p's block has no 0 before p, one walk down into
 * the candidate finds z.  The marker's key is the root's key in its heap.
 * *@live (may be NULL) gets the live slots before p's block.
 */
static uint32_t marker_after(const struct hs_optstack *os, uint32_t sp, uint64_t *live)
{
	uint32_t b = sp >> BLK_SHIFT, l, i, j, k, s, cl = 0, cc = NIL;
	uint32_t right = NIL, mid = NIL, best = NIL, zm;
	int64_t before = 0, cbefore = 0, bf[FAN];
	uint64_t n = 0;
	int32_t zs;
#ifdef __SSE2__
	/*
	 * A level at a time, each field of the four siblings one vector (a
	 * group is laid out by field): the sums before each child are one
	 * prefix sum, the tests for a 0 one compare and one mask, and the
	 * live counts before the path and the markers after it are masked
	 * by where the path goes (below[j], below[j + 1]) and gathered in
	 * vectors, reduced once at the end.  As scalars, each level's
	 * prefix sum waited on a store and a load by index: see "By field"
	 * above for what this gained (time, not instructions).
	 */
	static const int32_t below[FAN + 1][FAN] __attribute__((aligned(16))) = {
		{ 0, 0, 0, 0 }, { -1, 0, 0, 0 }, { -1, -1, 0, 0 }, { -1, -1, -1, 0 },
		{ -1, -1, -1, -1 },
	};
	__m128i vbefore = _mm_setzero_si128(), vn = _mm_setzero_si128();
	__m128i vright = _mm_set1_epi32(-1), exs[MAX_LEVELS], marks[MAX_LEVELS];
	int32_t bfv[FAN] __attribute__((aligned(16)));
	uint32_t zms[MAX_LEVELS], has = 0;

	for (l = os->nlev - 1; l > 0; l--) {
		uint32_t at = b >> (FAN_SHIFT * (l - 1));	/* the path's node of level l - 1 */
		const struct grp *ch = &os->lev[l - 1][at >> FAN_SHIFT];
		__m128i sum = _mm_load_si128((const __m128i *)ch->sum);
		__m128i min = _mm_load_si128((const __m128i *)ch->min);
		__m128i mark = _mm_load_si128((const __m128i *)ch->mark);
		__m128i lt, ex;

		j = at & (FAN - 1);
		lt = _mm_load_si128((const __m128i *)below[j]);
		/* the sums before each child: an exclusive prefix sum */
		ex = _mm_slli_si128(sum, 4);
		ex = _mm_add_epi32(ex, _mm_slli_si128(ex, 4));
		ex = _mm_add_epi32(_mm_add_epi32(ex, _mm_slli_si128(ex, 8)), vbefore);
		vn = _mm_add_epi32(vn, _mm_and_si128(_mm_load_si128((const __m128i *)ch->live), lt));
		vright = min_epu32(vright, _mm_or_si128(mark, _mm_load_si128((const __m128i *)below[j + 1])));
		/*
		 * The nearest sibling before the path holding a 0: one mask,
		 * where a loop from the path down mispredicted where it
		 * stopped, 2.6 times an access on P12 (cachegrind).  The
		 * walk into the candidate still loops, unrolled: its exit is
		 * data too, but it mispredicts 0.3 times an access.
		 */
		zm = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(
			_mm_cmpeq_epi32(_mm_add_epi32(ex, min), _mm_setzero_si128())));
		/*
		 * The deepest level with one holds the candidate: each
		 * level's tests, sums and markers are kept, and the
		 * candidate taken from them after the walk, where a branch
		 * on each level's mask mispredicted 1.6 times an access
		 * (cachegrind, a zipf session of 146 K keys).
		 */
		zms[l - 1] = zm & ((1u << j) - 1);
		exs[l - 1] = ex;
		marks[l - 1] = mark;
		has |= (uint32_t)(zms[l - 1] != 0) << (l - 1);
		/* the sum before the path's child, in every lane */
		sum = _mm_and_si128(sum, lt);
		sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
		sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
		vbefore = _mm_add_epi32(vbefore, sum);
	}
	before = _mm_cvtsi128_si32(vbefore);
	vn = _mm_add_epi32(vn, _mm_shuffle_epi32(vn, _MM_SHUFFLE(1, 0, 3, 2)));
	vn = _mm_add_epi32(vn, _mm_shuffle_epi32(vn, _MM_SHUFFLE(2, 3, 0, 1)));
	n = (uint32_t)_mm_cvtsi128_si32(vn);
	right = hmin_epu32(vright);
	if (has) {		/* the nearest candidate: in the deepest level that has one */
		cl = (uint32_t)__builtin_ctz(has);
		k = 31 - (uint32_t)__builtin_clz(zms[cl]);
		cc = ((b >> (FAN_SHIFT * (cl + 1))) << FAN_SHIFT) + k;
		_mm_store_si128((__m128i *)bfv, exs[cl]);
		cbefore = bfv[k];
		/*
		 * The markers after the candidate: those between it and the
		 * path, and past the path too, which are in right anyway
		 * (all after z).  Below, a nearer candidate would have
		 * replaced them; without one, every marker below is in the
		 * path's child, already among them: nothing is gathered per
		 * level.
		 */
		mid = hmin_epu32(_mm_or_si128(marks[cl], _mm_load_si128((const __m128i *)below[k + 1])));
	}
#else
	uint32_t lv[FAN], sm[FAN];

	for (l = os->nlev - 1; l > 0; l--) {
		uint32_t at = b >> (FAN_SHIFT * (l - 1));	/* the path's node of level l - 1 */
		const struct grp *ch = &os->lev[l - 1][at >> FAN_SHIFT];

		j = at & (FAN - 1);
		/*
		 * Which child the path takes is data: the sums and live
		 * counts before each child and the smallest marker after
		 * each are computed for all, the path's picked by index, as
		 * loops up to the path mispredict their exit (once a level).
		 */
		bf[0] = before;
		lv[0] = 0;
		sm[FAN - 1] = NIL;
#pragma GCC unroll 4
		for (k = 1; k < FAN; k++) {
			bf[k] = bf[k - 1] + ch->sum[k - 1];
			lv[k] = lv[k - 1] + ch->live[k - 1];
			sm[FAN - 1 - k] = HS_MIN(sm[FAN - k], ch->mark[FAN - k]);
		}
		n += lv[j];
		right = HS_MIN(right, sm[j]);
		/* the nearest sibling before the path holding a 0: a mask, one branch */
		zm = 0;
#pragma GCC unroll 4
		for (k = 0; k + 1 < FAN; k++)
			zm |= (uint32_t)(bf[k] + ch->min[k] == 0) << k;
		zm &= (1u << j) - 1;
		if (zm) {		/* a nearer candidate */
			k = 31 - (uint32_t)__builtin_clz(zm);
			cl = l - 1;
			cc = ((b >> (FAN_SHIFT * l)) << FAN_SHIFT) + k;
			cbefore = bf[k];
			mid = sm[k];	/* the markers after it (see the SSE2 walk) */
		}
		before = bf[j];
	}
#endif
	if (live)
		*live = n;
	/* z in block b? */
	zs = block_zero(os, b, sp, before, &best);
	best = HS_MIN(best, right);
	if (zs >= 0 || cc == NIL)
		goto done;	/* z is in p's block, or the empty prefix */
	best = HS_MIN(best, mid);
	/*
	 * Node (cl, cc), entered with the prefix sum before it: find z in it,
	 * but only while the node holding z has a marker below the best so
	 * far: the markers after z in it are among its own, so once its
	 * smallest is no better, where z is no longer matters (the walk
	 * stops at once on 22% of P12's accesses).  The newest slots, not in
	 * the tree yet, are never after z here (see below), so stopping
	 * skips nothing.
	 */
	if (NF(os, cl, cc, mark) >= best)
		return best;
	for (l = cl, i = cc, before = cbefore; l > 0; l--) {
		const struct grp *ch = &os->lev[l - 1][i];

		bf[0] = before;
		for (j = 1; j < FAN; j++)
			bf[j] = bf[j - 1] + ch->sum[j - 1];
#pragma GCC unroll 4
		for (j = FAN; j-- > 0;) {
			if (bf[j] + ch->min[j] == 0)
				break;
			best = HS_MIN(best, ch->mark[j]);
		}
		assert(j < FAN);
		before = bf[j];
		i = (i << FAN_SHIFT) + j;
		if (ch->mark[j] >= best)
			return best;
	}
	zs = block_zero(os, i, (i + 1) << BLK_SHIFT, before, &best);
	assert(zs >= 0);
done:
	/*
	 * The newest slots, not in the tree yet, count when after z: only
	 * when z is among them or there is no z (start the loop after z, so
	 * that it mostly runs no times, which the branch predictor learns).
	 */
	for (s = HS_MAX(os->low, (uint32_t)(zs + 1)); s < os->low + os->pending; s++)
		best = HS_MIN(best, os->sl[s].mark);
	return best;
}

/*
 * Bit i set when slot i of the block at @x is live: where the live slots
 * of a block lie is data, so scans for them branch on nothing.
 */
static inline uint32_t live_mask(const struct slot *x)
{
#ifdef __SSE2__
	/* A slot is dead when both its words match { 0, NIL }: 2 slots a vector. */
	const __m128i dead2 = _mm_set_epi32(-1, 0, -1, 0);
	__m128 d[BLK / 2];
	uint32_t i;

#pragma GCC unroll 4
	for (i = 0; i < BLK / 2; i++) {
		__m128i e = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)&x[2 * i]), dead2);

		/* both words of a slot: lanes 0 and 2 hold its verdict */
		d[i] = _mm_castsi128_ps(_mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1))));
	}
	return ~((uint32_t)_mm_movemask_ps(_mm_shuffle_ps(d[0], d[1], _MM_SHUFFLE(2, 0, 2, 0))) |
		 (uint32_t)_mm_movemask_ps(_mm_shuffle_ps(d[2], d[3], _MM_SHUFFLE(2, 0, 2, 0))) << 4) &
	       0xff;
#else
	uint32_t mask = 0;

#pragma GCC unroll 8
	for (uint32_t i = 0; i < BLK; i++)
		mask |= is_live(&x[i]) << i;
	return mask;
#endif
}

/*
 * The live slot just before @se in @se's block, or NIL; *@pos gets 1 + the
 * live slots before @se in the block.
 */
static inline uint32_t slot_in_block(const struct hs_optstack *os, uint32_t se, uint64_t *pos)
{
	uint32_t mask = live_mask(&os->sl[se & ~(BLK - 1)]) & ((1u << (se & (BLK - 1))) - 1), n;

	n = mask - ((mask >> 1) & 0x55);	/* popcount of 8 bits */
	n = (n & 0x33) + ((n >> 2) & 0x33);
	*pos = 1 + ((n + (n >> 4)) & 0x0f);
	return mask ? (se & ~(BLK - 1)) + 31 - (uint32_t)__builtin_clz(mask) : NIL;
}

/*
 * The live slot just before @se when it is not in @se's block (p's: the
 * key above in the LRU stack; there is one), and in *@left the live slots
 * in the tree before that block.  One walk up, one down to p's slot.
 */
static uint32_t slot_before_block(const struct hs_optstack *os, uint32_t se, uint64_t *left)
{
	uint32_t b = se >> BLK_SHIFT, l, i, c, j, k, v, fl = 0, fc = NIL;
	uint64_t n = 0;

	/*
	 * How many siblings precede the path is data at every level: the
	 * live counts of the three that may are masked, not branched on
	 * (about 9 mispredicts a call as loops).  Groups are padded to FAN,
	 * so all can be read.  The nearest live one is picked once,
	 * at the first level that has one.
	 */
	for (l = 0, i = b; l + 1 < os->nlev; l++, i >>= FAN_SHIFT) {
		const struct grp *lv = &os->lev[l][i >> FAN_SHIFT];

		j = i & (FAN - 1);
#if FAN_SHIFT == 2
		/* spelt out: as a loop, GCC 12 branched on the masks (+8% mispredicts) */
		uint32_t a0 = lv->live[0] & -(uint32_t)(j > 0);
		uint32_t a1 = lv->live[1] & -(uint32_t)(j > 1);
		uint32_t a2 = lv->live[2] & -(uint32_t)(j > 2);

		v = a0 + a1 + a2;
		n += v;
		if (fc == NIL && v) {
			fl = l;
			fc = (i & ~(FAN - 1)) + (a2 ? 2 : a1 ? 1 : 0);
		}
#else
		for (k = j; k-- > 0;) {
			n += lv->live[k];
			if (fc == NIL && lv->live[k]) {
				fl = l;
				fc = (i & ~(FAN - 1)) + k;
			}
		}
#endif
	}
	*left = n;
	if (fc == NIL)		/* p is one of the newest slots, not in the tree yet */
		fc = os->low >> BLK_SHIFT;
	for (l = fl, i = fc; l > 0; l--) {
		const struct grp *ch = &os->lev[l - 1][i];

		c = 0;
#pragma GCC unroll 4
		for (k = 1; k < FAN; k++)
			c = ch->live[k] ? k : c;
		i = (i << FAN_SHIFT) + c;
	}
	return (i << BLK_SHIFT) + 31 - (uint32_t)__builtin_clz(live_mask(&os->sl[i << BLK_SHIFT]));
}

static inline uint32_t meld(struct hs_optstack *os, uint32_t a, uint32_t b)
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

static const struct slot dead = { 0, NIL };

/* The window is full: pack the live slots at its top end, in order. */
static void compact(struct hs_optstack *os)
{
	uint32_t s = os->nslots, d = os->nslots;

	while (s-- > os->low) {
		if (!is_live(&os->sl[s]))
			continue;
		--d;
		os->sl[d] = os->sl[s];
		os->skey[d] = os->skey[s];
		os->where[os->skey[d]] = d;
		if (os->sl[d].mark != NIL)
			os->ln[os->sl[d].mark].slot = d;
	}
	for (s = 0; s < d; s++)
		os->sl[s] = dead;
	os->low = d;
	rebuild(os);
}

/* The bytes of a level of @n nodes: whole groups. */
static size_t grp_bytes(uint32_t n)
{
	return (size_t)((n + FAN - 1) >> FAN_SHIFT) * sizeof(struct grp);
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
		os->lev[l] = hs_huge_alloc(grp_bytes(os->levn[l]));
		if (!os->lev[l])
			goto nomem;
		for (uint32_t i = 0; i < grp_bytes(os->levn[l]) / sizeof(struct grp); i++)
			for (uint32_t k = 0; k < FAN; k++)
				os->lev[l][i].mark[k] = NIL;
		if (m == 1)
			break;
	}
	os->nlev = l + 1;
	os->where = hs_huge_alloc((size_t)nr_keys * sizeof(*os->where));
	os->ln = hs_huge_alloc((size_t)nr_keys * sizeof(*os->ln));
	os->sl = hs_huge_alloc((size_t)n * sizeof(*os->sl));
	os->skey = hs_huge_alloc((size_t)n * sizeof(*os->skey));	/* read only when live */
	os->hist = hs_huge_alloc(((size_t)nr_keys + 1) * sizeof(*os->hist));
	os->lru_hist = hs_huge_alloc(((size_t)nr_keys + 1) * sizeof(*os->lru_hist));
	if (!os->where || !os->ln || !os->sl || !os->skey || !os->hist || !os->lru_hist)
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
	size_t keys, n;

	if (!os)
		return;
	keys = os->nr_keys;
	n = os->nslots;
	for (uint32_t l = 0; l < MAX_LEVELS; l++)
		hs_huge_free(os->lev[l], grp_bytes(os->levn[l]));
	hs_huge_free(os->lru_hist, (keys + 1) * sizeof(*os->lru_hist));
	hs_huge_free(os->hist, (keys + 1) * sizeof(*os->hist));
	hs_huge_free(os->skey, n * sizeof(*os->skey));
	hs_huge_free(os->sl, n * sizeof(*os->sl));
	hs_huge_free(os->ln, keys * sizeof(*os->ln));
	hs_huge_free(os->where, keys * sizeof(*os->where));
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
	os->skey[s] = key;
	if (mark != NIL)
		os->ln[mark].slot = s;
	os->head = key;
	if (w || mark == NIL)
		push_up(os, s >> BLK_SHIFT);
	else
		os->pending++;
}

/*
 * The lower levels of block @b's path up the tree (the upper ones stay in
 * the cache): a walk reads them one after the other, each a likely miss,
 * while their addresses are all known at once.
 */
static inline void prefetch_path(const struct hs_optstack *os, uint32_t b)
{
	if (os->nlev >= PREFETCH_LEVELS) {	/* straight code: no loop exit to mispredict */
#pragma GCC unroll 4
		for (uint32_t l = 0; l < PREFETCH_LEVELS; l++)
			hs_prefetch(&os->lev[l][b >> (FAN_SHIFT * (l + 1))]);
		return;
	}
	for (uint32_t l = 0; l < os->nlev; l++)
		hs_prefetch(&os->lev[l][b >> (FAN_SHIFT * (l + 1))]);
}

/* The block of slot @s: one line (BLK slots of 8 bytes, line-aligned). */
static inline void prefetch_block(const struct hs_optstack *os, uint32_t s)
{
	for (uint32_t i = 0; i < BLK * sizeof(struct slot); i += LINE)
		hs_prefetch((const char *)&os->sl[s & ~(BLK - 1)] + i);
}

void hs_optstack_prefetch(const struct hs_optstack *os, uint32_t far, uint32_t near)
{
	uint32_t s;

	if (far < os->nr_keys)
		hs_prefetch(&os->where[far]);
	if (near < os->nr_keys && (s = os->where[near]) != NIL) {
		prefetch_block(os, s);
		prefetch_path(os, s >> BLK_SHIFT);
	}
}

/*
 * Count the pending distances into the histograms.  The distances are all
 * over the histograms (25 MB each on P12), so each count is a likely miss,
 * and one an access, made where the access ends, held up the next access's
 * work behind it: in perf, 8% of the command's time on a zipf trace of
 * 763 K keys sat on the LRU histogram's count.  Batched, their lines are
 * all fetched at once and the misses overlap.
 */
static void count_pending(struct hs_optstack *os)
{
	uint32_t i, n = os->npend;

	for (i = 0; i < n; i++) {
		__builtin_prefetch(&os->hist[os->pend[i]], 1);
		__builtin_prefetch(&os->lru_hist[os->lru_pend[i]], 1);
	}
	for (i = 0; i < n; i++) {
		os->hist[os->pend[i]]++;
		os->lru_hist[os->lru_pend[i]]++;
	}
	os->npend = 0;
}

int hs_optstack_access(struct hs_optstack *os, uint32_t key, uint64_t *dist)
{
	uint32_t m, r, se, sp, sq, blocks[4];
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
	 * p is usually in the accessed key's block: then one walk down serves
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
	sq = os->ln[m].slot;
	d = (uint64_t)m + 1;
	/* sq's block is anywhere: fetch it and its path while the heaps work. */
	prefetch_block(os, sq);
	prefetch_path(os, sq >> BLK_SHIFT);

	/* m leaves its key; the accessed key hands the rest to p. */
	r = delete_min(os, m);
	os->sl[sq].mark = r;
	if (r != NIL)
		os->ln[r].slot = sq;
	os->sl[sq].w--;
	x = &os->sl[se];
	r = meld(os, os->sl[sp].mark, x->mark);
	os->sl[sp].mark = r;
	if (r != NIL)
		os->ln[r].slot = sp;
	os->sl[sp].w += x->w + 1;
	*x = dead;
	/*
	 * Push the changed blocks up the tree in one walk, before push_top()
	 * (which may push the newest block): push_two() takes the live
	 * counts of the tree's leaves as they were before the access.
	 */
	if ((sp ^ se) >> BLK_SHIFT == 0) {
		push_two(os, se >> BLK_SHIFT, sq >> BLK_SHIFT);
	} else {
		blocks[0] = sq >> BLK_SHIFT;
		blocks[1] = sp >> BLK_SHIFT;
		blocks[2] = se >> BLK_SHIFT;
		push_blocks(os, blocks, 3);
	}
	/* The accessed key goes on top holding m alone. */
	push_top(os, key, 0, m);
done:
	os->pend[os->npend] = (uint32_t)d;
	os->lru_pend[os->npend] = (uint32_t)ld;
	if (d > os->max_dist)
		os->max_dist = d;
	if (ld > os->lru_max_dist)
		os->lru_max_dist = ld;
	if (++os->npend == PEND)
		count_pending(os);
	if (dist)
		*dist = d;
	return 0;
}

/*
 * The curve of @hist and of the @npend distances @pend not counted into it
 * yet (all between 1 and @max_dist).
 */
static void curve_of(const uint64_t *hist, uint64_t max_dist, const uint32_t *pend,
		     uint32_t npend, uint64_t *hits, size_t n)
{
	uint32_t p[PEND], i, j, t;
	uint64_t sum = 0;
	size_t c;

	for (i = 0; i < npend; i++) {	/* sorted, to be merged in */
		for (j = i, t = pend[i]; j > 0 && p[j - 1] > t; j--)
			p[j] = p[j - 1];
		p[j] = t;
	}
	for (c = 0, i = 0; c < n; c++) {
		if (c >= 1 && c <= max_dist) {
			sum += hist[c];
			for (; i < npend && p[i] == c; i++)
				sum++;
		}
		hits[c] = sum;
	}
}

int hs_optstack_curve(const struct hs_optstack *os, uint64_t *hits, size_t n)
{
	curve_of(os->hist, os->max_dist, os->pend, os->npend, hits, n);
	return 0;
}

int hs_optstack_lru_curve(const struct hs_optstack *os, uint64_t *hits, size_t n)
{
	curve_of(os->lru_hist, os->lru_max_dist, os->lru_pend, os->npend, hits, n);
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
