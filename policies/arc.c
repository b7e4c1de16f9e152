/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ARC, the Adaptive Replacement Cache of Megiddo and Modha, as a policy for
 * the simulation driver: two resident LRU lists, two ghost lists and a
 * self-tuning target that splits the cache between recency and frequency.
 *
 *		The algorithm
 *
 * References: N. Megiddo and D. S. Modha, "ARC: A Self-Tuning, Low Overhead
 * Replacement Cache", FAST 2003, and "Outperforming LRU with an Adaptive
 * Replacement Cache Algorithm", IEEE Computer 37(4), 2004, whose text is the
 * one followed here (POLICIES.md section 4.1).
 *
 * ARC remembers 2c keys for a cache of c pages, on four LRU lists:
 *
 *	T1  resident, seen exactly once since it last entered the directory
 *	T2  resident, seen at least twice
 *	B1  ghosts (keys only) recently evicted from T1
 *	B2  ghosts recently evicted from T2
 *
 *	        L1: |B1| + |T1| <= c                    L2: |T2| + |B2|
 *	  B1: LRU ...... MRU | T1: LRU ...... MRU ! T2: MRU ...... LRU | B2: MRU ...... LRU
 *	  <- dropped      <-- evicted    new key -^- hit,          evicted -->      dropped ->
 *	                                            ghost hit
 *	                     |<----------- c resident ----------->|
 *	  |<------------------------- total <= 2c ------------------------------------->|
 *
 * The "!" is where p points: T1 should hold p pages.  A REPLACE from T1 shifts
 * T1's LRU page across the boundary into B1's MRU end (and likewise T2 into
 * B2); new keys enter T1 and (ghost) hits enter T2 at their MRU ends, next to
 * the "!".
 *
 * A target p in [0, c] is the size ARC wants T1 to have.  On an access to x:
 *
 *  I.   x in T1 or T2 (hit): move x to the MRU end of T2.
 *  II.  x in B1: p = min(c, p + max(|B2| / |B1|, 1)); REPLACE(x); x to MRU of T2.
 *  III. x in B2: p = max(0, p - max(|B1| / |B2|, 1)); REPLACE(x); x to MRU of T2.
 *  IV.  x nowhere:
 *	 if |T1| + |B1| == c: if |T1| < c drop LRU of B1 and REPLACE(x),
 *			      else evict LRU of T1 *without* making it a ghost;
 *	 elif total >= c:     if total == 2c drop LRU of B2; REPLACE(x);
 *	 insert x at MRU of T1.
 *
 *  REPLACE(x): if |T1| >= 1 and (|T1| > p or (x in B2 and |T1| == p)), move
 *  the LRU of T1 to the MRU of B1, else move the LRU of T2 to the MRU of B2.
 *
 * p and the ratios are real numbers here, as in the paper and in libCacheSim's
 * ARC after it was cross-checked against the paper's tables: with integer
 * division the step max(|B2| / |B1|, 1) loses its fractional part and p moves
 * more slowly.  The tie rule "|T1| == p" then compares an integer with a
 * double; it can only hold while p happens to be integral, exactly as in the
 * paper.
 *
 *		Mapping to the driver's hooks
 *
 * On a miss the driver calls ->evict() only when the cache is full, then
 * ->insert().  The steps of cases II to IV are split between the two:
 *
 *  - The adaptation of p (II, III) must precede REPLACE, so ->evict() performs
 *    it when it runs.  When the cache is not full (after DROPs) there is no
 *    ->evict() call and ->insert() adapts instead; the flag "adapted" makes
 *    sure p moves exactly once per miss.
 *  - ->evict() runs REPLACE(x), reading x's ghost membership from its private
 *    area, or, in case IV with |T1| == c, removes the LRU of T1 without a
 *    ghost and returns it as the victim.
 *  - The directory trimming of case IV (drop the LRU of B1 or of B2) is done by
 *    ->insert().  That is equivalent to the paper's order: REPLACE moves a page
 *    from T1 to B1 or from T2 to B2, so it changes neither |T1| + |B1| nor the
 *    total the conditions test, and the ghost it creates goes to the MRU end
 *    while the trim takes the LRU end, which was non-empty before.  After the
 *    ghost-less eviction both sums are one lower, so no trim fires, again as
 *    in the paper.  Trimming in ->insert() also keeps the invariants when DROPs
 *    left the cache part empty, where no ->evict() call happens and REPLACE is
 *    skipped because there is room.
 *  - ->remove(DROP) forgets the key wherever it is (T1, T2, B1, B2); a PAGEOUT
 *    hint eviction (HINT) moves a T1 page to B1 and a T2 page to B2, like
 *    REPLACE, which changes none of the bounded sums.
 *  - When REPLACE cannot take its chosen list because it is empty (possible
 *    only after DROPs), it takes the other one.
 *  - ->hint(): COLD (POLICIES.md section 2b) moves the page to the LRU end of
 *    the list it is on, T1 or T2, and marks it cold; that LRU end is ARC's
 *    "eviction end", the page REPLACE takes when it takes from that list.
 *    Which list REPLACE takes from is still decided by p, so a COLD page in
 *    T2 waits while ARC evicts from T1 (and is then counted as a protection,
 *    below).  Nothing is evicted on the spot and no ghost is made; a hit
 *    moves the page to T2's MRU end and clears the mark, and REPLACE or a
 *    PAGEOUT takes it to B1 or B2 like any page.  The latest COLD page of a
 *    list is at its LRU end.  PAGEOUT answers "evict" and leaves the choice
 *    to the driver's pageout mode (lib/sim.h).
 *
 *		Protection
 *
 * ARC has no reference bits; what it spares is a T2 page that plain LRU would
 * have evicted.  Every key keeps the seq of its last access; within T1 and T2
 * the lists are in that order after a prefix of COLD pages at the LRU end, so
 * the page plain LRU (with the same COLD hints) would evict is the LRU of T1
 * or of T2, a COLD one counting as older than any other.  When REPLACE evicts
 * from T1 while the LRU of T2 is older than the LRU of T1 (two COLD pages are
 * not compared: their hint order across lists is not kept), the frequency
 * split has spared that T2 page relative to LRU, and it is reported as
 * HS_PROT_SECOND_CHANCE: once per
 * episode, that is, not again while the previous reprieve is still pending
 * (untouched), so one page sitting at T2's LRU end through a long scan counts
 * once, and is then judged useful or wasted once.
 *
 * Cost: O(1) per access; the private area is 16 bytes per key (below,
 * struct arc_key).  check() walks the lists and every key record,
 * O(nr_keys), for tests and --paranoid.
 *
 * Speed (issue 13).  Almost every hit of a zipf replay is on T2 and warm
 * (at 8,100 of 81 K keys all but some 9,000 of 7.77 M), and such a hit is
 * LRU's: the move to T2's MRU end and the seq written into the state word.
 * The driver does it in line
 * (HS_INLINE_HIT_MOVE_TAIL_STAMP, described in create()), where through
 * ->hit() it built a struct hs_access and made a call for every hit, about
 * twice LRU's instructions a hit: at 81,000 of 81 K zipf keys (all hits)
 * 32.3 -> 23.9 ns per access.  A hit on T1 or on a COLD key, and every miss,
 * still comes through the hooks.  The miss path's helpers are in line in
 * evict() and insert(), the lists as constants, and the counts convert to
 * double through int64_t (one instruction, where an unsigned conversion is
 * two paths), only for a ghost hit: 2,680 M -> 2,418 M instructions for the
 * whole replay at 8,100 of those keys, together.  bench/run --part zipf
 * against the build before (main's d33b35b), two runs of 5 rounds: 1.15x and
 * 1.10x at 81 K keys, 1.10x and 1.13x at 763 K, 1.03x and 1.08x at 3.7 M.
 * Tried and not kept: pops
 * of the list ends fetching both lines of the record after the new head
 * (a quarter of the 24-byte records straddle two lines, and a pop reads
 * the state word or the driver's part too): 43.7 against 43.4 ns, 9 rounds;
 * following a key 8 behind each list's head from pop to pop and fetching
 * its record (found again from the head every 64 pops): 44.9 against 45.2,
 * 9 rounds; the prefetch hook at 81 K keys, now that hits are in line:
 * 34.5 -> 40.7.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "policy-util.h"

enum arc_list {
	ARC_NONE,		/* the key is on no list */
	ARC_T1,			/* resident, seen once */
	ARC_T2,			/* resident, seen at least twice */
	ARC_B1,			/* ghost of T1 */
	ARC_B2,			/* ghost of T2 */
	ARC_NR
};

static const char *const arc_list_name[ARC_NR] = { "-", "T1", "T2", "B1", "B2" };

/*
 * Per-key state, in the driver's private area (zeroed at start: ARC_NONE).
 * One word holds the list, the COLD mark and the seq of the last access, so
 * that the record is 16 bytes, not 24: with the driver's 8 it is 24 bytes a
 * key, and at issue 13's 81 K keys the records (1.9 MB, not 2.6) stay in a
 * 2 MB L2, where the driver leaves the prefetch hook out (lib/sim.c,
 * hs_sim_new()); a hit or an insertion writes the word once.  The seq has 60
 * bits: 2^60 accesses are 36 years of replay at one a nanosecond.
 */
struct arc_key {
	struct hs_qlink	link;		/* position on lists[list]; valid while list != ARC_NONE */
	uint64_t	state;		/* bits 0-59: seq of the last access, meaningful
					 * while resident; 60-62: enum arc_list; 63: COLD,
					 * moved to its list's LRU end by a COLD hint and
					 * not accessed since (only on T1 and T2) */
};

#define ARC_LAST_BITS	60
#define ARC_LAST_MASK	((UINT64_C(1) << ARC_LAST_BITS) - 1)
#define ARC_COLD	(UINT64_C(1) << 63)

static inline enum arc_list key_list(const struct arc_key *k)
{
	return (enum arc_list)((k->state >> ARC_LAST_BITS) & 7);
}

static inline bool key_cold(const struct arc_key *k)
{
	return k->state & ARC_COLD;
}

static inline uint64_t key_last(const struct arc_key *k)
{
	return k->state & ARC_LAST_MASK;
}

/*
 * On list @l, warm, last accessed at @seq (0 where no one reads it: off T1
 * and T2).  The mask keeps the list tag whole even past 2^60 accesses, for
 * the price of one instruction where a test would cost a branch on every hit.
 */
static inline void key_set(struct arc_key *k, enum arc_list l, uint64_t seq)
{
	k->state = (uint64_t)l << ARC_LAST_BITS | (seq & ARC_LAST_MASK);
}

struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's record array and capacity */
	struct hs_qctx	ctx;			/* where struct arc_key.link lives */
	struct hs_qlist	lists[ARC_NR];		/* T1, T2, B1, B2; lists[ARC_NONE] unused */
	uint64_t	c;			/* capacity in pages */
	double		p;			/* target size of T1, 0 <= p <= c */
	bool		adapted;		/* p already adapted for the miss in progress */
};

/*
 * The record of a key is a struct hs_folio and then struct arc_key, at a
 * stride fixed by the two; create() checks that the driver's layout is that
 * one.  So the hot paths below use a list context with a constant stride and
 * offset, copied into a local (arc_q()): hs_qctx's stride and offset loaded
 * from memory, and reloaded after every store through a byte (which may
 * alias them), cost a multiply and loads per link, a third of ARC's list
 * instructions at 81 K keys (issue 13).
 */
#define ARC_STRIDE	((sizeof(struct hs_folio) + sizeof(struct arc_key) + 7) & ~(size_t)7)
#define ARC_LINK_OFF	(sizeof(struct hs_folio) + offsetof(struct arc_key, link))

static inline struct hs_qctx arc_q(const struct hs_policy *p)
{
	return (struct hs_qctx){ .base = p->ctx.base, .stride = ARC_STRIDE, .off = ARC_LINK_OFF };
}

/* Key id's state, through a context from arc_q(). */
static inline struct arc_key *key_at(const struct hs_qctx *q, uint32_t id)
{
	return (struct arc_key *)(void *)(q->base + (size_t)id * ARC_STRIDE +
					  sizeof(struct hs_folio));
}

static inline struct hs_folio *folio_at(const struct hs_qctx *q, uint32_t id)
{
	return (struct hs_folio *)(void *)(q->base + (size_t)id * ARC_STRIDE);
}

static struct arc_key *arc_key(const struct hs_policy *p, uint32_t id)
{
	struct hs_qctx q = arc_q(p);

	return key_at(&q, id);
}

static uint64_t arc_nr(const struct hs_policy *p, enum arc_list l)
{
	return p->lists[l].nr;
}

/* Take id off its list (if any) and append it, warm, at the MRU end of @to; last = @seq. */
static inline __attribute__((always_inline)) void arc_move(struct hs_policy *p, uint32_t id,
							    enum arc_list to, uint64_t seq)
{
	struct hs_qctx q = arc_q(p);
	struct arc_key *k = key_at(&q, id);

	if (key_list(k) != ARC_NONE)
		hs_q_del(&q, &p->lists[key_list(k)], id);
	hs_q_push_tail(&q, &p->lists[to], id);
	key_set(k, to, seq);
}

/*
 * Move the LRU key of resident list @from (not empty) to the MRU end of its
 * ghost list @to.  Popped with hs_q_pop_head(), which fetches the link the
 * next pop writes: REPLACE walks T1 and T2 from their LRU ends, and without
 * it every eviction stalled on the new head's successor.
 */
static inline __attribute__((always_inline)) void arc_demote(struct hs_policy *p,
							     enum arc_list from,
							     enum arc_list to)
{
	struct hs_qctx q = arc_q(p);
	uint32_t id = hs_q_pop_head(&q, &p->lists[from]);
	struct arc_key *k = key_at(&q, id);

	hs_q_push_tail(&q, &p->lists[to], id);
	key_set(k, to, 0);
}

/* Would LRU with the same COLD hints evict resident @a before resident @b? */
static inline bool arc_older(const struct arc_key *a, const struct arc_key *b)
{
	if (key_cold(a) || key_cold(b))
		return key_cold(a) && !key_cold(b);
	return key_last(a) < key_last(b);
}

/* Forget the LRU key of @l (a ghost list). */
static inline __attribute__((always_inline)) void arc_drop_lru(struct hs_policy *p,
							       enum arc_list l)
{
	struct hs_qctx q = arc_q(p);
	uint32_t id = hs_q_pop_head(&q, &p->lists[l]);

	if (id != HS_NIL)
		key_set(key_at(&q, id), ARC_NONE, 0);
}

/*
 * A count as a double.  Through int64_t, the same value (counts stay far
 * below 2^63): a signed conversion is one instruction, where an unsigned one
 * is a test and two paths (x86-64 has no unsigned conversion before
 * AVX-512), and REPLACE converts |T1| at every miss.
 */
static inline double arc_dbl(uint64_t n)
{
	return (double)(int64_t)n;
}

/* Cases II and III: move p toward the list whose ghost was hit. */
static inline __attribute__((always_inline)) void arc_adapt(struct hs_policy *p,
							    const struct arc_key *x)
{
	double delta, b1, b2;

	if (key_list(x) == ARC_B1) {
		b1 = arc_dbl(arc_nr(p, ARC_B1));
		b2 = arc_dbl(arc_nr(p, ARC_B2));
		delta = b2 / b1 > 1.0 ? b2 / b1 : 1.0;
		p->p = p->p + delta < arc_dbl(p->c) ? p->p + delta : arc_dbl(p->c);
	} else if (key_list(x) == ARC_B2) {
		b1 = arc_dbl(arc_nr(p, ARC_B1));
		b2 = arc_dbl(arc_nr(p, ARC_B2));
		delta = b1 / b2 > 1.0 ? b1 / b2 : 1.0;
		p->p = p->p - delta > 0.0 ? p->p - delta : 0.0;
	}
}

/*
 * REPLACE(x): demote the LRU of T1 or of T2 to its ghost list and return its
 * id (HS_NIL if nothing is resident).
 */
static inline __attribute__((always_inline)) uint32_t arc_replace(struct hs_policy *p,
								   bool x_in_b2)
{
	uint32_t h1 = p->lists[ARC_T1].head;
	uint32_t h2 = p->lists[ARC_T2].head;
	uint64_t t1 = arc_nr(p, ARC_T1);
	struct hs_qctx q = arc_q(p);
	bool from_t1;

	from_t1 = t1 >= 1 && (arc_dbl(t1) > p->p || (x_in_b2 && arc_dbl(t1) == p->p));
	if (h2 == HS_NIL)
		from_t1 = true;
	else if (h1 == HS_NIL)
		from_t1 = false;

	if (from_t1) {
		if (h1 == HS_NIL)
			return HS_NIL;
		/*
		 * Count a T2 page once per stay at T2's LRU end: ARC keeps sparing
		 * it at every T1 eviction until it is touched or leaves, and one
		 * reprieve per episode is what useful/wasted can judge.
		 */
		if (h2 != HS_NIL && arc_older(key_at(&q, h2), key_at(&q, h1)) &&
		    !folio_at(&q, h2)->prot_pending)
			hs_sim_protect(p->env->sim, folio_at(&q, h2), HS_PROT_SECOND_CHANCE);
		arc_demote(p, ARC_T1, ARC_B1);
		return h1;
	}
	arc_demote(p, ARC_T2, ARC_B2);
	return h2;
}

static int arc_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		      struct hs_policy **out)
{
	struct hs_policy *p;
	int i;

	(void)ps;
	if (env->stride != ARC_STRIDE || env->priv_off != sizeof(struct hs_folio))
		return -EINVAL;		/* not the layout arc_q() assumes */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	hs_q_ctx_init(&p->ctx, env, offsetof(struct arc_key, link));
	for (i = 0; i < ARC_NR; i++)
		hs_q_init(&p->lists[i]);
	p->c = env->capacity;
	p->p = 0.0;
	/* a hit on T2, not COLD: arc_hit()'s move and stamp, the driver's to do */
	hs_sim_inline_hooks(env->sim, &(struct hs_inline_hooks){
		.hit = HS_INLINE_HIT_MOVE_TAIL_STAMP, .q = &p->ctx, .list = &p->lists[ARC_T2],
		.stamp_off = sizeof(struct hs_folio) + offsetof(struct arc_key, state),
		.stamp_mask = ~ARC_LAST_MASK, .stamp_want = (uint64_t)ARC_T2 << ARC_LAST_BITS });
	*out = p;
	return 0;
}

static void arc_destroy(struct hs_policy *p)
{
	free(p);
}

/*
 * Case I.  Most hits are on T2 (a key hit once is there from then on), where
 * the move is LRU's touch: hs_q_move_tail(), with no count to change.  The
 * driver does that one in line (HS_INLINE_HIT_MOVE_TAIL_STAMP, described in
 * create(): the move, then the state word of a warm T2 key with the seq):
 * the two must stay the same.  Through this hook, a T2 hit cost about twice
 * an LRU hit's instructions (the struct hs_access, the call, the list's
 * loads); in line, ARC with every key resident (81 K zipf keys) went from
 * 32.3 to 23.9 ns per access.
 */
static void arc_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct arc_key *k = hs_folio_priv(f);
	struct hs_qctx q = arc_q(p);

	assert(key_list(k) == ARC_T1 || key_list(k) == ARC_T2);
	if (likely(key_list(k) == ARC_T2)) {
		hs_q_move_tail(&q, &p->lists[ARC_T2], a->key);
		key_set(k, ARC_T2, a->seq);
	} else {
		arc_move(p, a->key, ARC_T2, a->seq);
	}
}

static size_t arc_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	struct arc_key *x = hs_folio_priv(incoming);
	struct hs_qctx q = arc_q(p);
	size_t n = 0;
	uint32_t id;

	(void)a;
	if (!p->adapted) {
		arc_adapt(p, x);
		p->adapted = true;
		/* Case IV, |T1| + |B1| == c and |T1| == c: evict without a ghost. */
		if (key_list(x) == ARC_NONE && arc_nr(p, ARC_T1) == p->c &&
		    arc_nr(p, ARC_B1) == 0 && n < max) {
			id = hs_q_pop_head(&q, &p->lists[ARC_T1]);
			key_set(key_at(&q, id), ARC_NONE, 0);
			victims[n++] = folio_at(&q, id);
		}
	}
	while (n < need && n < max) {
		id = arc_replace(p, key_list(x) == ARC_B2);
		if (id == HS_NIL)
			break;
		victims[n++] = folio_at(&q, id);
	}
	return n;
}

static void arc_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct arc_key *x = hs_folio_priv(f);
	uint64_t total;

	if (!p->adapted)
		arc_adapt(p, x);
	p->adapted = false;

	switch (key_list(x)) {
	case ARC_B1:
	case ARC_B2:
		arc_move(p, a->key, ARC_T2, a->seq);
		break;
	case ARC_NONE:
		total = arc_nr(p, ARC_T1) + arc_nr(p, ARC_T2) + arc_nr(p, ARC_B1) +
			arc_nr(p, ARC_B2);
		if (arc_nr(p, ARC_T1) + arc_nr(p, ARC_B1) == p->c)
			arc_drop_lru(p, ARC_B1);
		else if (total == 2 * p->c)
			arc_drop_lru(p, ARC_B2);
		arc_move(p, a->key, ARC_T1, a->seq);
		break;
	default:
		assert(!"insert of a resident key");
		return;
	}
}

static void arc_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	uint32_t id = hs_folio_id(p->env, f);
	struct arc_key *k = arc_key(p, id);

	if (key_list(k) == ARC_NONE)
		return;
	if (why == HS_REMOVE_HINT && key_list(k) == ARC_T1) {
		arc_move(p, id, ARC_B1, 0);
	} else if (why == HS_REMOVE_HINT && key_list(k) == ARC_T2) {
		arc_move(p, id, ARC_B2, 0);
	} else {
		hs_q_del(&p->ctx, &p->lists[key_list(k)], id);
		key_set(k, ARC_NONE, 0);
	}
}

static enum hs_hint_verdict arc_hint(struct hs_policy *p, struct hs_folio *f,
				     const struct hs_access *a)
{
	struct arc_key *k = hs_folio_priv(f);
	struct hs_qlist *l = &p->lists[key_list(k)];

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	assert(key_list(k) == ARC_T1 || key_list(k) == ARC_T2);
	if (l->head != a->key) {
		hs_q_del(&p->ctx, l, a->key);
		hs_q_push_head(&p->ctx, l, a->key);
	}
	k->state |= ARC_COLD;
	return HS_HINT_KEEP;
}

/*
 * Every access to a key on a list (a hit in T1 or T2, a miss in B1 or B2)
 * unlinks it, writing its neighbours' links: fetch them.  List heads (LRU
 * ends, ghost drops) are popped through hs_q_pop_head(), which fetches one
 * pop ahead.
 */
static void arc_prefetch(struct hs_policy *p, const struct hs_folio *f, uint32_t key)
{
	const struct arc_key *k = hs_folio_cpriv(f);

	if (key_list(k) != ARC_NONE)
		hs_q_prefetch_neighbours(&p->ctx, key);
}

/*
 * Walk one list: links, membership tags, residency, and for T1/T2 the order:
 * COLD pages first (the LRU end), then the others by last access.
 */
static int arc_check_list(const struct hs_policy *p, enum arc_list l)
{
	bool resident = l == ARC_T1 || l == ARC_T2;
	uint32_t prev = HS_NIL;
	uint32_t id;

	if (hs_q_check(&p->ctx, &p->lists[l], p->env, resident))
		return -EUCLEAN;
	for (id = p->lists[l].head; id != HS_NIL; id = hs_q_next(&p->ctx, id)) {
		const struct arc_key *k = arc_key(p, id);

		if (key_list(k) != l || (key_cold(k) && !resident))
			return -EUCLEAN;
		if (key_cold(k)) {
			if (prev != HS_NIL)
				return -EUCLEAN;	/* a COLD page after a warm one */
			continue;
		}
		/* equal is fine: readahead insertions do not advance seq */
		if (resident && prev != HS_NIL && key_last(k) < key_last(arc_key(p, prev)))
			return -EUCLEAN;
		prev = id;
	}
	return 0;
}

static int arc_check(const struct hs_policy *p)
{
	uint64_t t1 = arc_nr(p, ARC_T1), t2 = arc_nr(p, ARC_T2);
	uint64_t b1 = arc_nr(p, ARC_B1), b2 = arc_nr(p, ARC_B2);
	uint64_t count[ARC_NR] = { 0 };
	uint32_t id;
	int i;

	for (i = ARC_T1; i < ARC_NR; i++)
		if (arc_check_list(p, (enum arc_list)i))
			return -EUCLEAN;
	for (id = 0; id < p->env->nr_keys; id++) {
		enum arc_list l = key_list(arc_key(p, id));

		if (l >= ARC_NR || (l == ARC_NONE && key_cold(arc_key(p, id))))
			return -EUCLEAN;
		count[l]++;
	}
	for (i = ARC_T1; i < ARC_NR; i++)
		if (count[i] != p->lists[i].nr)
			return -EUCLEAN;
	if (t1 + t2 > p->c || t1 + b1 > p->c || t1 + t2 + b1 + b2 > 2 * p->c)
		return -EUCLEAN;
	if (!(p->p >= 0.0 && p->p <= (double)p->c))
		return -EUCLEAN;
	return 0;
}

static void arc_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;
	int i;

	fprintf(fp, "arc: c=%" PRIu64 " p=%.6g\n", p->c, p->p);
	for (i = ARC_T1; i < ARC_NR; i++) {
		fprintf(fp, "  %s (%" PRIu64 ", LRU first, ~ COLD):", arc_list_name[i],
			p->lists[i].nr);
		for (id = p->lists[i].head; id != HS_NIL; id = hs_q_next(&p->ctx, id))
			fprintf(fp, " %" PRIu32 "%s", id, key_cold(arc_key(p, id)) ? "~" : "");
		fputc('\n', fp);
	}
}

static void arc_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "arc.p", p->p);
	hs_metrics_add(m, "arc.t1", (double)arc_nr(p, ARC_T1));
	hs_metrics_add(m, "arc.t2", (double)arc_nr(p, ARC_T2));
	hs_metrics_add(m, "arc.b1", (double)arc_nr(p, ARC_B1));
	hs_metrics_add(m, "arc.b2", (double)arc_nr(p, ARC_B2));
}

const struct hs_policy_ops hs_policy_arc = {
	.abi		= HS_POLICY_ABI,
	.name		= "arc",
	.summary	= "Adaptive Replacement Cache (Megiddo & Modha, FAST'03)",
	.params		= NULL,
	.folio_priv	= sizeof(struct arc_key),
	.flags		= 0,
	.create		= arc_create,
	.destroy	= arc_destroy,
	.hit		= arc_hit,
	.insert		= arc_insert,
	.evict		= arc_evict,
	.remove		= arc_remove,
	.hint		= arc_hint,
	.check		= arc_check,
	.dump		= arc_dump,
	.report		= arc_report,
	.prefetch	= arc_prefetch,
};
