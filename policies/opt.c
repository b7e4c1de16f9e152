/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OPT: Bélády's offline optimum (MIN).  Knowing every key's next use, evict
 * the resident key needed farthest in the future.  The ceiling every online
 * policy is measured against (DESIGN.md's "OPT gap"); demand paging by
 * default, with a bypass variant that may decline to cache a miss.
 */

/*
 * Design
 * ======
 *
 * Reference: L. A. Bélády, "A study of replacement algorithms for a
 * virtual-storage computer", IBM Systems Journal 5(2), 1966; Mattson et al.
 * 1970 proved MIN optimal for demand paging.  POLICIES.md §4.7 and §5.
 *
 * Offline: ops->flags has HS_POLICY_NEEDS_FUTURE, so every access arrives with
 * a->next_use, the seq of the same key's next access (HS_NEVER if none); the
 * driver or the replay computes it by a pass over the stream.
 *
 * Two queues give the victim, by the number of keys that can be resident
 * (min(capacity, keys)).  Below hs_opt_bitmap_min (128 Ki) a lazy 8-ary
 * max-heap of {next use, id} in 8 bytes ("The heap", below), which stays in
 * cache at that size:
 *
 *	                 heap[0]: {next_use = max, id}  <- evict() pops this
 *	                /        |       ...       \
 *	        heap[1]    heap[2]       ...      heap[8]     (one 64-byte line)
 *	per key (private area): nu = its next use, valid while resident; an
 *	entry whose key is not resident with that nu is stale.
 *
 * From there on, the heap's log2(c) scattered entries per eviction cost the
 * most (at 3.7 M keys OPT took three times LRU's time in it), so a bitmap:
 * the resident keys' next uses are distinct integers below the stream's
 * length (two keys never share a next access), and the largest comes from a
 * hierarchical bitmap over seqs (lib/hbits.h) in one word per level, the
 * top ones in cache.  The bit names the seq; the key accessed at that seq is
 * the key that needs it:
 *
 *	fut     bit s set: some resident key's next use is s
 *	owner   owner[s]: the key of access s -- env->seq_keys when the replay
 *	        supplies it (shared by every offline run of the pass), else a
 *	        copy kept here, written when the bit is set
 *	never   bit i set: resident key i is never used again (an id bitmap)
 *
 *	per key (private area): nu = its next use, valid while resident.
 *
 * The bitmap loses below the threshold (its bit per access and owner[] do
 * not fit in cache: 1.4 times the heap's time at 8,100 of 81 K keys) and
 * wins above (0.65 times at 368,000 of 3.7 M).  Both give the same victims;
 * tests/t-hbits.c moves the threshold to run each against a naive MIN.
 *
 * Order: larger next_use first.  Two resident keys can share a next use only
 * when both are HS_NEVER (an access names one key); those are ordered by key
 * id, lower id first.  Which never-used key goes first cannot change any hit
 * or miss, only the victim names, and the id makes them deterministic
 * (POLICIES.md: "deterministic by page id").
 *
 * Hooks (lib/policy.h):
 *
 *   hit()     the key's next use moves to a->next_use: push a new entry (the
 *             old one is stale); or clear its bit (its next use was now),
 *             set the new one.
 *   insert()  push {a->next_use, id}, or mark live the entry evict()
 *             placed for this access; or set a->next_use's bit.
 *   evict()   take the victim @need times (fewer only when fewer are
 *             resident): the live root, stale roots popped on the way, the
 *             last one's place taken by the incoming key's entry
 *             (heap_replace_top()); or the lowest id in never, else the
 *             largest bit of fut.
 *   remove()  mark its entry stale, or clear its bit (drop or PAGEOUT); a
 *             drop of a non-resident key is a no-op (no ghosts).
 *   admit()   the bypass variant only, below.
 *   hint()    COLD is ignored: it is advice about the future, and OPT knows
 *             the future (a COLD key that is used again soon stays, one that
 *             is not was already first in line).  PAGEOUT is not advice but
 *             a reclaim the kernel carries out, so OPT answers "evict" like
 *             every policy and the driver's pageout mode decides
 *             (lib/sim.h); OPT then stays the optimum over the same hint
 *             evictions, and the OPT gap measures replacement alone.
 *
 * Demand vs bypass (parameter "bypass", default false).  The demand variant
 * caches every miss: it is the OPT of the LIRS authors' opt.c, of cache2k's
 * tests and of the ARC article's MIN column, i.e. of every published number
 * in POLICIES.md §5.  With bypass = true a miss is not cached when the cache
 * is full and the missed key's next use is no sooner than that of every
 * resident key (a->next_use >= the victim's): caching it would evict something
 * needed no later than it.  The driver asks admit() before making room;
 * false serves the miss without eviction or insertion.  Ties can only be
 * HS_NEVER against HS_NEVER, and a key never used again is never worth a
 * slot, so ties bypass.  Bypass never has more misses than demand on the same
 * trace (it is the optimum over a larger set of choices); the golden files
 * opt-demand.golden and opt-bypass.golden show a trace where it has fewer.
 *
 * Cost: O(log c) per access with the heap (amortized: a compaction every
 * c pushes or so), plus room for two 8-byte entries per resident key (16
 * bytes each once wide, in the same memory);
 * O(log64 n) with the bitmap, a few words, plus a bit per key
 * (never) and a bit per access (fut), and 4 bytes per access for owner when
 * the replay does not supply seq_keys.  Per key 8 bytes of private state.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hs.h"
#include "hbits.h"
#include "policy.h"
#include "policy-util.h"

struct opt_priv {
	uint64_t	nu;		/* its next use while resident; OPT_GONE once
					 * evicted or removed (heap: entries naming it
					 * are then stale) */
};

/* No next use at all: not a seq, not HS_NEVER (a stale heap entry never matches it). */
#define OPT_GONE	(HS_NEVER - 1)

/*
 * A heap entry: the key's next use and its id, in one 64-bit key whose
 * order is the heap's, so that a sift compares once per child (two fields
 * took twice the instructions, and their branches mispredicted): narrow,
 * while every next use is below 2^32 - 1, (next use << 32) | ~id, with
 * 2^32 - 1 for HS_NEVER; wide, from the first larger next use on (a stream
 * of 2^32 - 1 accesses or more), the next use alone, ties by id.  The heap
 * holds the narrow key alone (the id is its low half, inverted), 8 bytes
 * where a struct took 16; wide, whole structs (heap_widen()).
 */
struct opt_ent {
	uint64_t	key;		/* as above */
	uint32_t	id;		/* key id */
};

/* min(capacity, keys) from which the bitmap serves; tests move it. */
uint64_t hs_opt_bitmap_min = HS_OPT_BITMAP_MIN;

struct hs_policy {
	bool			bits;	/* the bitmap, not the heap */
	bool			wide;	/* heap entries' keys are wide (struct opt_ent) */
	uint64_t		*nh;	/* 8-ary max-heap, root = victim; lazy (below): keys
					 * alone while narrow (the id is in the key), */
	struct opt_ent		*heap;	/* whole entries once wide; one of the two is set */
	void			*heap_mem; /* its allocation (the heap is aligned within) */
	uint64_t		heap_n;	/* entries, live and stale */
	uint64_t		heap_size; /* room */
	uint64_t		heap_live; /* resident keys (live entries, duplicates apart) */
	struct hs_hbits		fut;	/* next uses (seqs) of resident keys */
	struct hs_hbits		never;	/* ids of resident keys never used again */
	const uint32_t		*owner;	/* owner[s]: the key of access s */
	uint32_t		*own;	/* owner when env->seq_keys is NULL (grown) */
	uint64_t		top_nu;	/* a next use and its key, owner[top_nu] = top_id, */
	uint32_t		top_id;	/* kept so that the usual victim costs no read of owner */
	uint64_t		resident; /* keys in fut or never */
	bool			bypass;	/* admit() may refuse a miss */
	uint64_t		bypassed; /* misses admit() refused */
	bool			exact;	/* heap: the stream kept its word so far (above) */
	bool			placed;	/* heap: evict() put the incoming key's entry in */
	uint32_t		placed_id; /* for the insert() of this key, */
	uint64_t		placed_seq; /* at this seq, */
	uint64_t		placed_nu; /* with this next use */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static const struct hs_param opt_params[] = {
	{ .name = "bypass", .type = HS_PARAM_BOOL, .def = "false",
	  .help = "do not cache a miss whose next use is farther than every resident key's" },
	{ .name = NULL },
};

static struct opt_priv *opt_priv(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

/* Strict "a is evicted before b": farther next use, then lower id. */
static inline bool ent_before(const struct hs_policy *p, const struct opt_ent *a,
			      const struct opt_ent *b)
{
	if (likely(!p->wide))
		return a->key > b->key;
	if (a->key != b->key)
		return a->key > b->key;
	return a->id < b->id;
}

static inline bool nu_narrow(uint64_t nu)
{
	return nu == HS_NEVER || nu < UINT32_MAX;
}

static inline struct opt_ent ent_make(const struct hs_policy *p, uint64_t nu, uint32_t id)
{
	if (unlikely(p->wide))
		return (struct opt_ent){ .key = nu, .id = id };
	return (struct opt_ent){ .key = (nu == HS_NEVER ? (uint64_t)UINT32_MAX << 32 : nu << 32) |
					 (uint32_t)~id,
				 .id = id };
}

static inline uint64_t ent_nu(const struct hs_policy *p, const struct opt_ent *e)
{
	if (unlikely(p->wide))
		return e->key;
	return e->key >> 32 == UINT32_MAX ? HS_NEVER : e->key >> 32;
}

/*
 *		The heap
 *
 * 8-ary: the children of entry i are 8i + 1 .. 8i + 8, and the array is placed
 * so that entry 1 starts a 64-byte line, so the eight 8-byte keys under an
 * entry are one line and a sift-down reads one line per level, a third as
 * many levels as a binary heap.  At 8,100 of 81 K keys (10 M zipf accesses,
 * CPU per access, interleaved rounds, medians) 16-byte entries in a 4-ary
 * heap took 63 ns, 8-byte ones 59 (21 rounds; 74 -> 69 at 76,300 of 763 K,
 * 11 rounds), 8-ary 8-byte ones 2-3 % less again (11 rounds at both).
 * Room for 3c or 4c entries in the same memory as 2c of 16 bytes did not
 * pay: 59 and 64 ns.
 *
 * Lazy: an entry does not move with its key.  A hit does not look for the
 * key's entry -- finding it needs the entry's position in the key's record,
 * rewritten at every move, one random write into the record array per level
 * (the most of OPT's time at 763 K keys) -- it pushes a new entry and leaves
 * the old one stale.  An entry is live while its key is resident with that
 * next use (opt_live()); evict() pops stale roots until it finds a live one.
 * When the array is full, the stale entries are dropped and the rest is
 * re-heaped, O(size) once every size - resident pushes.
 *
 * The compaction reads no key record while the stream keeps its word
 * (p->exact): a stale entry of a hit holds the seq of that hit, in the past,
 * and a live one a next use now or later, so the past ones are exactly the
 * stale ones.  That needs every hit to find its key's next use equal to the
 * hit's seq, and no entry made stale otherwise (a remove()): the first hook
 * that sees otherwise clears p->exact, and so does a compaction that keeps
 * fewer entries than keys are resident (a key that outlived its next use
 * without an access); from then on every entry is checked against its key's
 * record, and a heap that lost a resident key is rebuilt from the records.
 * Below 2^64 - 2 accesses a next use never equals OPT_GONE, so an evicted or
 * removed key's entries are stale, the duplicates of one that came back
 * included.
 */
#define OPT_ARY		8
#define OPT_LINE	64

static bool opt_live(const struct hs_policy *p, const struct opt_ent *e)
{
	const struct hs_folio *f = hs_env_folio(p->env, e->id);

	return hs_folio_is_resident(f) &&
	       ((const struct opt_priv *)hs_folio_cpriv(f))->nu == ent_nu(p, e);
}

/* Heap entry @i, @e into entry @i: either layout. */
static inline struct opt_ent heap_get(const struct hs_policy *p, uint64_t i)
{
	if (likely(!p->wide))
		return (struct opt_ent){ .key = p->nh[i], .id = ~(uint32_t)p->nh[i] };
	return p->heap[i];
}

static inline void heap_put(struct hs_policy *p, uint64_t i, struct opt_ent e)
{
	if (likely(!p->wide))
		p->nh[i] = e.key;
	else
		p->heap[i] = e;
}

/* Put @e at hole @i and sift it toward the leaves. */
static inline __attribute__((always_inline)) void heap_down(struct hs_policy *p, uint64_t i,
							     struct opt_ent e)
{
	uint64_t n = p->heap_n;

	if (likely(!p->wide)) {
		uint64_t *h = p->nh;

		for (;;) {
			uint64_t c = OPT_ARY * i + 1, best = c;

			if (c >= n)
				break;
			if (likely(c + OPT_ARY <= n)) {
				/*
				 * Eight keys in a tournament, pairs first: seven
				 * comparisons and selects, no loop (GCC does not
				 * unroll one at -O2, and its counting was a third
				 * of a pop at 81 K keys).  Keys are distinct.
				 */
				uint64_t k0 = h[c], k1 = h[c + 1], k2 = h[c + 2], k3 = h[c + 3];
				uint64_t k4 = h[c + 4], k5 = h[c + 5], k6 = h[c + 6], k7 = h[c + 7];
				uint64_t b01 = k1 > k0 ? c + 1 : c, m01 = k1 > k0 ? k1 : k0;
				uint64_t b23 = k3 > k2 ? c + 3 : c + 2, m23 = k3 > k2 ? k3 : k2;
				uint64_t b45 = k5 > k4 ? c + 5 : c + 4, m45 = k5 > k4 ? k5 : k4;
				uint64_t b67 = k7 > k6 ? c + 7 : c + 6, m67 = k7 > k6 ? k7 : k6;
				uint64_t b03 = m23 > m01 ? b23 : b01, m03 = m23 > m01 ? m23 : m01;
				uint64_t b47 = m67 > m45 ? b67 : b45, m47 = m67 > m45 ? m67 : m45;
				uint64_t bk = m47 > m03 ? m47 : m03;

				best = m47 > m03 ? b47 : b03;
				if (bk <= e.key)
					break;
			} else {
				for (c++; c < n; c++)
					if (h[c] > h[best])
						best = c;
				if (h[best] <= e.key)
					break;
			}
			h[i] = h[best];
			i = best;
		}
		h[i] = e.key;
		return;
	}
	for (;;) {
		struct opt_ent *h = p->heap;
		uint64_t c = OPT_ARY * i + 1, best = c, end;

		if (c >= n)
			break;
		end = HS_MIN(c + OPT_ARY, n);
		for (c++; c < end; c++)
			if (ent_before(p, &h[c], &h[best]))
				best = c;
		if (!ent_before(p, &h[best], &e))
			break;
		h[i] = h[best];
		i = best;
	}
	p->heap[i] = e;
}

/* Heap order again over entries 0 .. heap_n - 1 (Floyd's, bottom-up). */
static void heap_order(struct hs_policy *p)
{
	uint64_t n = p->heap_n;

	for (uint64_t i = n > 1 ? (n - 2) / OPT_ARY + 1 : 0; i-- > 0;)
		heap_down(p, i, heap_get(p, i));
}

/*
 * Room for @size entries of the present layout, entry 1 at the start of a
 * line; the old ones copied.
 */
static int heap_alloc(struct hs_policy *p, uint64_t size)
{
	size_t w = p->wide ? sizeof(struct opt_ent) : sizeof(uint64_t), bytes;
	void *mem, *h;

	if (size > (SIZE_MAX - 2 * OPT_LINE) / w)
		return -ENOMEM;
	bytes = (size_t)size * w + 2 * OPT_LINE;
	bytes = (bytes + OPT_LINE - 1) & ~(size_t)(OPT_LINE - 1);
	mem = aligned_alloc(OPT_LINE, bytes);
	if (!mem)
		return -ENOMEM;
	h = (char *)mem + OPT_LINE - w;
	if (p->heap_n)
		memcpy(h, p->wide ? (void *)p->heap : (void *)p->nh, (size_t)p->heap_n * w);
	free(p->heap_mem);
	p->heap_mem = mem;
	if (p->wide)
		p->heap = h;
	else
		p->nh = h;
	p->heap_size = size;
	return 0;
}

/*
 * A next use of 2^32 - 1 or more: the entries go wide, 16 bytes each, in the
 * same memory.  The stale ones are dropped first, by the key records (the
 * live ones are at most the resident keys and a placed entry, c + 1, and the
 * room was 4c + 128), and the rest is spread from the last down (entry i
 * moves from byte 8i to 16i - 8 of the narrow array, never over one not
 * moved yet) and put in heap order again.  The order of (next use, id) is
 * the same either way.
 */
static __attribute__((noinline)) void heap_widen(struct hs_policy *p)
{
	uint64_t *nh = p->nh, n = 0, i;
	struct opt_ent *h;

	for (i = 0; i < p->heap_n; i++) {
		struct opt_ent e = heap_get(p, i);

		if (opt_live(p, &e))
			nh[n++] = nh[i];
	}
	h = (struct opt_ent *)(void *)((char *)nh - sizeof(uint64_t));
	for (i = n; i-- > 0;) {
		uint64_t k = nh[i];
		struct opt_ent e = { .key = k >> 32 == UINT32_MAX ? HS_NEVER : k >> 32,
				     .id = ~(uint32_t)k };

		h[i] = e;
	}
	p->nh = NULL;
	p->heap = h;
	p->heap_size /= 2;
	p->heap_n = n;
	p->wide = true;
	heap_order(p);
}

/* Take the root out (the heap is not empty). */
static inline void heap_pop(struct hs_policy *p)
{
	struct opt_ent last = heap_get(p, --p->heap_n);

	if (p->heap_n)
		heap_down(p, 0, last);
}

/* Every entry again from the key records: only after the stream broke its word. */
static __attribute__((noinline)) void heap_rebuild(struct hs_policy *p)
{
	p->heap_n = 0;
	for (uint32_t id = 0; id < p->env->nr_keys && p->heap_n < p->heap_size; id++) {
		struct hs_folio *f = hs_env_folio(p->env, id);

		if (!hs_folio_is_resident(f))
			continue;
		if (unlikely(!p->wide && !nu_narrow(opt_priv(f)->nu)))
			heap_widen(p);	/* keeps the ones put so far: live */
		heap_put(p, p->heap_n++, ent_make(p, opt_priv(f)->nu, id));
	}
	heap_order(p);
	p->exact = false;
}

/* Drop the stale entries and re-heap the rest; grow when that frees too little. */
static __attribute__((noinline)) int heap_compact(struct hs_policy *p, uint64_t now)
{
	uint64_t n = 0, i;

	if (p->exact) {
		/*
		 * ent_nu() >= now: narrow, one comparison of the key.  Every
		 * entry is copied and the count advanced by the comparison: which
		 * entries are stale follows no pattern the branch predictor can
		 * learn, and a branch here mispredicted on half of them (the
		 * compaction took 16 % of OPT's time at 81 K keys, 7 % of its
		 * instructions).
		 */
		if (!p->wide) {
			uint64_t low = now < UINT32_MAX ? now << 32 : (uint64_t)UINT32_MAX << 32;
			uint64_t *h = p->nh;

			for (i = 0; i < p->heap_n; i++) {
				h[n] = h[i];
				n += h[i] >= low;
			}
		} else {
			struct opt_ent *h = p->heap;

			for (i = 0; i < p->heap_n; i++) {
				h[n] = h[i];
				n += h[i].key >= now;
			}
		}
	} else {
		for (i = 0; i < p->heap_n; i++) {
			struct opt_ent e = heap_get(p, i);

			if (i + 16 < p->heap_n)
				hs_prefetch(hs_env_folio(p->env, heap_get(p, i + 16).id));
			if (opt_live(p, &e))
				heap_put(p, n++, e);
		}
	}
	p->heap_n = n;
	/*
	 * Fewer than resident: a key outlived its next use without an access
	 * (a live entry was taken for stale), or one was lost: from the records.
	 */
	if ((p->exact && n != p->resident) || n < p->resident) {
		heap_rebuild(p);
		n = p->heap_n;
	}
	if (n > p->heap_size / 2) {
		int err = heap_alloc(p, p->heap_size * 2);

		if (err)
			return err;
	}
	heap_order(p);
	return 0;
}

/*
 * Room for one more entry at seq @now, compacting when full; false when
 * there is none (the run fails: hs_sim_fail()).
 */
static inline bool heap_room(struct hs_policy *p, uint64_t now)
{
	int err;

	if (likely(p->heap_n < p->heap_size))
		return true;
	err = heap_compact(p, now);
	if (err && p->heap_n == p->heap_size) {
		hs_sim_fail(p->env->sim, err);
		return false;
	}
	return true;
}

/* Add {nu, id}: sift up from a new leaf (heap_room() first). */
static inline void heap_push(struct hs_policy *p, uint64_t nu, uint32_t id)
{
	struct opt_ent e;
	uint64_t i;

	if (unlikely(!p->wide && !nu_narrow(nu)))
		heap_widen(p);
	e = ent_make(p, nu, id);
	i = p->heap_n++;
	if (likely(!p->wide)) {
		uint64_t *h = p->nh;

		while (i > 0) {
			uint64_t up = (i - 1) / OPT_ARY;

			if (e.key <= h[up])
				break;
			h[i] = h[up];
			i = up;
		}
		h[i] = e.key;
		return;
	}
	while (i > 0) {
		uint64_t up = (i - 1) / OPT_ARY;

		if (!ent_before(p, &e, &p->heap[up]))
			break;
		p->heap[i] = p->heap[up];
		i = up;
	}
	p->heap[i] = e;
}

/*
 * The last victim of a miss leaves the root, and the insert() that follows
 * (the driver's order, lib/policy.h) brings the entry of the incoming key,
 * a->key, next used at a->next_use: it takes the root's place and sifts down
 * from there, instead of the heap's last entry sifting down the whole depth
 * and the new one climbing back from a leaf.  A missed key is most often
 * needed late, so it stays near the top: at issue 13's 81 K keys a miss cost
 * a third fewer instructions.  The entry is not live until insert() marks
 * the key's next use (opt_live() wants it resident); an insert() of another
 * access pushes as usual, and the placed entry, never live, is stale.
 */
static void heap_replace_top(struct hs_policy *p, const struct hs_access *a)
{
	if (unlikely(!p->wide && !nu_narrow(a->next_use))) {
		heap_widen(p);	/* the victim's entry is dropped: push, with room */
		heap_push(p, a->next_use, a->key);
	} else {
		heap_down(p, 0, ent_make(p, a->next_use, a->key));
	}
	p->placed = true;
	p->placed_id = a->key;
	p->placed_seq = a->seq;
	p->placed_nu = a->next_use;
}

/* The live root into *@top, stale ones popped on the way; false: nothing resident. */
static bool heap_top(struct hs_policy *p, struct opt_ent *top)
{
	for (;;) {
		if (unlikely(!p->heap_n)) {
			if (!p->resident)
				return false;
			heap_rebuild(p);	/* a key outlived its next use: see above */
			if (!p->heap_n)
				return false;
		}
		*top = heap_get(p, 0);
		if (likely(opt_live(p, top)))
			return true;
		heap_pop(p);
	}
}

static int opt_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		      struct hs_policy **out)
{
	struct hs_param_set *defaults = NULL;
	struct hs_policy *p;
	int err;

	if (!ps) {
		err = hs_param_set_new(opt_params, &defaults);
		if (err)
			return err;
		ps = defaults;
	}
	err = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto out_free_defaults;
	p->env = env;
	p->bypass = hs_param_bool(ps, "bypass");
	p->bits = HS_MIN(env->capacity, (uint64_t)env->nr_keys) >= hs_opt_bitmap_min;
	if (!p->bits) {
		/* twice the resident keys: a compaction every c pushes or so */
		err = heap_alloc(p, 2 * HS_MIN(env->capacity, (uint64_t)env->nr_keys) + 64);
		if (err)
			goto out_free_p;
		p->exact = true;
		goto done;
	}
	hs_sim_want_seq_keys(env->sim);	/* owner: at the first bit (make_room()) */
	p->top_nu = HS_NEVER;
	err = hs_hbits_init(&p->never, env->nr_keys ? env->nr_keys : 1);
	if (!err)
		err = hs_hbits_init(&p->fut, 4096);
	if (err)
		goto out_free_p;
done:
	hs_param_set_free(defaults);
	*out = p;
	return 0;

out_free_p:
	hs_hbits_release(&p->never);
	free(p);
out_free_defaults:
	hs_param_set_free(defaults);
	return err;
}

static void opt_destroy(struct hs_policy *p)
{
	if (!p)
		return;
	free(p->heap_mem);
	hs_hbits_release(&p->fut);
	hs_hbits_release(&p->never);
	free(p->own);
	free(p);
}

/*
 * Room for next use @nu in fut and, kept here, owner.  A next use beyond the
 * supplied seq_keys (a caller's mistake) switches to a copy of our own.
 */
static __attribute__((noinline)) int make_room(struct hs_policy *p, uint64_t nu)
{
	uint64_t bound = HS_MAX(p->fut.bound * 2, nu + 1), s;
	uint32_t *own;

	if (!p->owner && p->env->seq_keys && nu < p->env->nr_seq) {
		p->owner = p->env->seq_keys;	/* supplied after create() */
		return hs_hbits_grow(&p->fut, p->env->nr_seq);
	}
	own = realloc(p->own, bound * sizeof(*own));
	if (!own)
		return -ENOMEM;
	if (p->owner && p->owner != p->own) {
		for (s = 0; s < p->fut.bound; s++)
			if (hs_hbits_test(&p->fut, s))
				own[s] = p->owner[s];
	}
	p->own = own;
	p->owner = own;
	return hs_hbits_grow(&p->fut, bound);
}

/* Record that resident key @f (id @id) is next used at @nu. */
static void set_next_use(struct hs_policy *p, struct hs_folio *f, uint32_t id, uint64_t nu)
{
	opt_priv(f)->nu = nu;
	p->resident++;
	if (nu == HS_NEVER) {
		hs_hbits_set(&p->never, id);
		return;
	}
	if (unlikely(nu >= p->fut.bound || !p->owner)) {
		int err = make_room(p, nu);

		if (err) {
			/* the run ends with err; keep the sets consistent till then */
			hs_sim_fail(p->env->sim, err);
			opt_priv(f)->nu = HS_NEVER;
			hs_hbits_set(&p->never, id);
			return;
		}
	}
	if (p->own)
		p->own[nu] = id;
	if (p->top_nu == HS_NEVER || nu > p->top_nu) {
		p->top_nu = nu;
		p->top_id = id;
	}
	hs_hbits_set(&p->fut, nu);
}

static void clear_next_use(struct hs_policy *p, struct hs_folio *f)
{
	uint64_t nu = opt_priv(f)->nu;

	p->resident--;
	if (nu == HS_NEVER)
		hs_hbits_clear(&p->never, hs_folio_id(p->env, f));
	else
		hs_hbits_clear(&p->fut, nu);
}

/* The next use of the key evict() takes next (the resident set is not empty). */
static uint64_t root_next_use(const struct hs_policy *p)
{
	return hs_hbits_min(&p->never) != HS_HBITS_NONE ? HS_NEVER : hs_hbits_max(&p->fut);
}

/*
 * The key evict() takes next: farther next use first, then lower id.  The
 * largest next use is most often one just set (top_nu); otherwise its key
 * is read from owner, a random place in a large array, which the previous
 * eviction prefetched (next_victim_hint()).
 */
static uint32_t victim(const struct hs_policy *p)
{
	uint64_t id = hs_hbits_min(&p->never), m;

	if (id != HS_HBITS_NONE)
		return (uint32_t)id;
	m = hs_hbits_max(&p->fut);
	return m == p->top_nu ? p->top_id : p->owner[m];
}

static void next_victim_hint(const struct hs_policy *p)
{
	uint64_t m = hs_hbits_max(&p->fut);

	if (m != HS_HBITS_NONE && m != p->top_nu)
		hs_prefetch(&p->owner[m]);
}

static void opt_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	if (p->bits) {
		clear_next_use(p, f);
		set_next_use(p, f, a->key, a->next_use);
		return;
	}
	if (unlikely(opt_priv(f)->nu != a->seq))
		p->exact = false;	/* its entry holds a seq still to come */
	/* room first, while the key's entry is still live */
	if (unlikely(!heap_room(p, a->seq)))
		return;
	opt_priv(f)->nu = a->next_use;
	heap_push(p, a->next_use, a->key);
}

static void opt_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	if (p->bits) {
		set_next_use(p, f, a->key, a->next_use);
		return;
	}
	if (p->placed) {
		p->placed = false;
		if (likely(p->placed_id == a->key && p->placed_seq == a->seq &&
			   p->placed_nu == a->next_use)) {
			opt_priv(f)->nu = a->next_use;	/* its entry is live now */
			p->resident++;
			return;
		}
	}
	if (unlikely(!heap_room(p, a->seq)))
		return;
	opt_priv(f)->nu = a->next_use;
	p->resident++;
	heap_push(p, a->next_use, a->key);
}

static size_t opt_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	size_t n = 0;

	(void)incoming;
	if (!p->bits) {
		struct opt_ent top;

		while (n < need && n < max && heap_top(p, &top)) {
			struct hs_folio *f = hs_env_folio(p->env, top.id);

			opt_priv(f)->nu = OPT_GONE;	/* its other entries: stale */
			p->resident--;
			victims[n++] = f;
			if (n == need)
				heap_replace_top(p, a);
			else
				heap_pop(p);
		}
		/* the next victim's record, most often the new root's */
		if (p->heap_n)
			hs_prefetch(hs_env_folio(p->env, heap_get(p, 0).id));
		return n;
	}
	while (n < need && n < max && p->resident) {
		struct hs_folio *f = hs_env_folio(p->env, victim(p));

		clear_next_use(p, f);
		victims[n++] = f;
	}
	next_victim_hint(p);
	return n;
}

static void opt_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	(void)why;
	if (!hs_folio_is_resident(f))
		return;
	if (p->bits) {
		clear_next_use(p, f);
		return;
	}
	/* its entry stays, stale, with a next use to come: compactions must look */
	opt_priv(f)->nu = OPT_GONE;
	p->resident--;
	p->exact = false;
}

static enum hs_hint_verdict opt_hint(struct hs_policy *p, struct hs_folio *f,
				     const struct hs_access *a)
{
	(void)p;
	(void)f;
	return a->channel == HS_CH_PAGEOUT ? HS_HINT_EVICT : HS_HINT_KEEP;
}

static bool opt_admit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	uint64_t resident = p->resident;

	(void)f;
	if (!p->bypass || resident < p->env->capacity || !resident)
		return true;
	if (p->bits) {
		if (a->next_use < root_next_use(p))
			return true;
	} else {
		struct opt_ent top;

		if (!heap_top(p, &top) || a->next_use < ent_nu(p, &top))
			return true;
	}
	p->bypassed++;
	return false;
}

/*
 * The heap: in order, ids below nr_keys, entries at most the room, every
 * resident key with a live entry and every live entry's key resident (a key
 * may have two, identical, after a remove() and an insert with HS_NEVER).
 */
static int heap_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t found = 0, i;
	uint8_t *seen;
	int ret = 0;

	if (p->heap_n > p->heap_size || hs_env_count_resident(env) != p->resident)
		return -EUCLEAN;
	seen = calloc(env->nr_keys ? env->nr_keys : 1, 1);
	if (!seen)
		return 0;	/* cannot check: not a failure of the heap */
	for (i = 0; i < p->heap_n && !ret; i++) {
		struct opt_ent e = heap_get(p, i), up;

		if (i > 0)
			up = heap_get(p, (i - 1) / OPT_ARY);
		if (e.id >= env->nr_keys || (i > 0 && ent_before(p, &e, &up)))
			ret = -EUCLEAN;
		else if (opt_live(p, &e) && !seen[e.id]++)
			found++;
	}
	free(seen);
	if (!ret && found != p->resident)
		ret = -EUCLEAN;
	return ret;
}

/*
 * Every resident key has its bit, its owner entry names it, and there are as
 * many bits as resident keys: the two sets hold exactly the resident keys.
 */
static int opt_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t found = 0;

	if (!p->bits) {
		return heap_check(p);
	}
	for (uint32_t id = 0; id < env->nr_keys; id++) {
		struct hs_folio *f = hs_env_folio(env, id);
		uint64_t nu;

		if (!hs_folio_is_resident(f))
			continue;
		found++;
		nu = opt_priv(f)->nu;
		if (nu == HS_NEVER) {
			if (!hs_hbits_test(&p->never, id))
				return -EUCLEAN;
		} else if (nu >= p->fut.bound || !hs_hbits_test(&p->fut, nu) ||
			   p->owner[nu] != id) {
			return -EUCLEAN;
		}
	}
	if (found != p->resident ||
	    hs_hbits_count(&p->fut) + hs_hbits_count(&p->never) != p->resident)
		return -EUCLEAN;
	return 0;
}

static void opt_dump(const struct hs_policy *p, FILE *fp)
{
	uint64_t s;

	if (!p->bits) {
		fprintf(fp, "opt: %s, %" PRIu64 " resident, heap order, live entries "
			"(id next_use):\n", p->bypass ? "bypass" : "demand", p->resident);
		for (s = 0; s < p->heap_n; s++) {
			struct opt_ent e = heap_get(p, s);

			if (!opt_live(p, &e))
				continue;
			if (ent_nu(p, &e) == HS_NEVER)
				fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " never\n", s, e.id);
			else
				fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " %" PRIu64 "\n", s, e.id,
					ent_nu(p, &e));
		}
		return;
	}
	fprintf(fp, "opt: %s, %" PRIu64 " resident, eviction order (id next_use):\n",
		p->bypass ? "bypass" : "demand", p->resident);
	for (s = 0; s < p->never.bound; s++)
		if (hs_hbits_test(&p->never, s))
			fprintf(fp, "  %" PRIu64 " never\n", s);
	for (s = p->fut.bound; s--;)
		if (hs_hbits_test(&p->fut, s))
			fprintf(fp, "  %" PRIu32 " %" PRIu64 "\n", p->owner[s], s);
}

static void opt_report(const struct hs_policy *p, struct hs_metrics *m)
{
	if (p->bypass)
		hs_metrics_add(m, "opt.bypassed", (double)p->bypassed);
}

const struct hs_policy_ops hs_policy_opt = {
	.abi		= HS_POLICY_ABI,
	.name		= "opt",
	.summary	= "Belady's MIN, offline: evict the key needed farthest ahead",
	.params		= opt_params,
	.folio_priv	= sizeof(struct opt_priv),
	.flags		= HS_POLICY_NEEDS_FUTURE,
	.create		= opt_create,
	.destroy	= opt_destroy,
	.hit		= opt_hit,
	.insert		= opt_insert,
	.evict		= opt_evict,
	.remove		= opt_remove,
	.hint		= opt_hint,
	.admit		= opt_admit,
	.check		= opt_check,
	.dump		= opt_dump,
	.report		= opt_report,
};
