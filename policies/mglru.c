/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mglru: the Linux multi-gen LRU (mm/vmscan.c, mm/workingset.c,
 * include/linux/mm_inline.h) as a page-replacement policy, in three kernel
 * version profiles, for replaying recorded or generated access streams.  It
 * is also the base that hitshield.c patches, through the hook points of
 * struct hs_mglru_hooks (mglru.h): this file calls no patch by name.
 */

/*
 * Design
 * ======
 *
 * Specification: POLICIES.md section 1 (state, insertion, PT and FD access,
 * aging, eviction with tiers and the PID controller, shadow entries) and
 * section 2b (PAGEOUT/COLD hints).  The kernel was read to settle doubts
 * (v6.6-6.8 and v6.14-era mm/vmscan.c, a v6.8-era mm/workingset.c); no line
 * of it is copied.  Profiles: p61 = 6.1-6.2, p63 = 6.3-6.7, p68 = 6.8-6.13
 * (the default: the base HitShield was written on), p614 = 6.14 and later.
 * p61 and p63 differ only in look-around (below); the code calls both
 * MGLRU_P61 and tells them apart by la61.
 *
 * One lruvec.  Folios of each type (anon, file) sit on per-generation lists;
 * a generation is a sequence number, seq, and its list index is seq % 4:
 *
 *         min_seq[t]                                  max_seq
 *             |                                          |
 *   type t:  [gen 0] <- [gen 1] <- [gen 2] <- [gen 3]     (2 to 4 gens live)
 *     tail = evict <- ... <- head = young, per list
 *
 *   list head here (qlist head) = the kernel's list tail = eviction end
 *
 *   access:   PT  -> set the folio's accessed bit (seen at the next aging)
 *             FD  -> folio_mark_accessed(): refs/PG_referenced/PG_workingset
 *   miss:     reclaim (evict()) if memory is full, refault(), then
 *             lru_gen_add_folio() places the folio by its flags
 *   aging:    every folio whose accessed bit is set gets folio_update_gen()
 *             (gen := max_seq); a full window moves its oldest gen up one
 *             (inc_min_seq); max_seq++
 *   eviction: take folios from the eviction end of the oldest gen of the
 *             type the PID controller picks; sort_folio() moves promoted and
 *             tier-protected ones, the rest are isolated; the reference
 *             check (rmap) rejects those whose accessed bit is set; the rest
 *             are evicted, leaving a shadow token
 *
 * Hooks.  hit() and insert() are the access; insert() follows refault(),
 * which is the kernel's lru_gen_refault() (after reclaim, as the memcg charge
 * precedes workingset_refault()).  evict() is one reclaim call: it runs the
 * reclaim loop of POLICIES.md 1.9 until it has freed the reclaim goal and
 * returns every folio it evicted (a batch; at most the driver's max).  hint()
 * handles MADV_PAGEOUT/MADV_COLD, remove() hint evictions and drops.
 *
 * Reclaim loop (POLICIES.md 1.9 "Reclaim"), one per evict():
 *
 *   priority = 12
 *   while freed < goal and something evictable is resident:
 *       n = gens in the evictable window
 *       n <= 2                                  -> age (eviction impossible)
 *       n == 3, priority < 12, and (p614, or p61/p68's young/old test:
 *               youngest gen > 1/2 of the pages, or oldest < 1/4) -> age
 *       otherwise evict_folios(): one pass of up to `batch` isolations;
 *               a pass that frees nothing lowers priority
 *
 * The kernel's memcg reclaim ends a priority pass right after it ages, and
 * lowers the priority whenever a pass falls short of its goal, not only when
 * it frees nothing; section 1.9's loop ages less often.  The kernel's
 * structure is reclaim_loop=kernel (reclaim_kernel(); the default, auto, for
 * recorded sessions): each priority from 12 down is one
 * try_to_shrink_lruvec(), which calls get_nr_to_scan() before every pass (no
 * aging at 12; below, age when 2 gens are left, or 3 and the young/old test
 * says so, and end the pass), and scans (pages in the window >> priority)
 * folios in all without stopping at the goal, as memcg reclaim does.  Where
 * passes keep rejecting young folios the priority falls, and a low priority
 * then scans most of memory in one reclaim: the lab's ycsb-load at 8M (2,048
 * pages) had 8 of 365 reclaims free more than 128 pages (at most 876), and
 * lost most of its hot B-tree pages in them.  The driver takes at most 64
 * victims from one reclaim (lib/sim.c), which cuts those short.  Below 4096
 * pages the first priorities scan nothing and the last ones most of memory,
 * as a tiny memcg would.
 *
 * What the kernel decides per folio is modelled exactly per profile:
 *
 *   placement  p61: PG_active -> max_seq; anon (not swap cache) -> min_seq+1;
 *                   else min_seq.
 *              p68: PG_active -> max_seq; anon -> max_seq-1; 4 gens ->
 *                   min_seq+1, else min_seq.
 *              p614: lru_gen_folio_seq(): max(max_seq - g + 1, min_seq) with
 *                   g = 2 - PG_workingset (active), 2 (anon), 4 - PG_workingset.
 *   FD access  p61/p68: PG_referenced, PG_workingset, then refs 1..3;
 *              p614: PG_referenced, refs 1..3, then PG_workingset.
 *   tiers      p61/p68: refs = counter + PG_workingset, tier = ob2(refs + 1);
 *              p614: refs = PG_referenced ? counter + 1 : 0, tier =
 *                   PG_workingset ? 3 : ob2(refs).
 *   aging      folio_update_gen(): p61/p68 clear refs, PG_referenced and
 *              PG_workingset; p614 needs two observations (the first only
 *              sets PG_referenced) and sets PG_workingset on promotion.
 *              inc_min_seq() moves the oldest gen's folios to min_seq+1
 *              (counted as protected only in p614, as the 6.14 code does;
 *              POLICIES.md 1.6 says every profile counts: the 6.8 code
 *              does not).
 *   sorting    promoted (gen field != oldest) -> young end of its gen;
 *              protected: tier > tier_idx (PID), or p68 refs == 4, or p614
 *              refs + workingset == 5 -> folio_inc_gen(), min_seq+1 (p61/p68
 *              eviction end, p614 young end); otherwise isolate.
 *   PID        get_type_to_scan()/get_tier_idx() per profile (tier 0 of each
 *              type and gains 1:2 before 6.14; all tiers and 2:3 after),
 *              EWMA halving at every min_seq advance; `refault_floor`
 *              replaces both MIN_LRU_BATCHes of positive_ctrl_err() (the
 *              "too few refaults" test and the smoothing term).
 *   rmap       an isolated folio whose accessed bit is set is kept: p61/p68
 *              always re-add it with PG_active (max_seq), p68 clearing refs;
 *              p614 lru_gen_set_refs(): first time KEEP, later ACTIVATE, and
 *              a rejected folio that would land in min_seq gets PG_active.
 *   shadows    token = (min_seq, max(refs - 1, 0), workingset bit); recent:
 *              p61/p68 token seq == min_seq, p614 |max_seq - seq| < 4;
 *              restore per profile (section 1.8), workingset_* counters.
 *   coupling   p61/p68 with swap: anon := min(anon, file), file :=
 *              max(anon, its old value), so both advance together; p614
 *              lets each go alone but clamps the one ahead to max_seq - 2.
 *
 * Approximations (and their consequence):
 *   - one accessed bit per folio, one mapping: shared pages get one
 *     folio_update_gen() per aging instead of one per mapping;
 *   - the aging walk (`walk`): walk=all visits every folio accessed since the
 *     last aging (the young vector).  walk=bloom (the default, auto, where
 *     the session has real addresses) enters a page table (512 pages of one
 *     address space, by the recorded address) only if the Bloom filter of
 *     this max_seq holds it, or in the first round, when no filter exists
 *     yet, as walk_pmd_range() does; a table enters the next round's filter
 *     when the walk found at least an eighth of its PTEs young
 *     (suitable_to_scan(), one per cache line), or this round's when
 *     look-around found an eighth of its window young.  The young folios of
 *     the tables it skips keep their accessed bits, so the reference check at
 *     eviction finds them: a process whose young pages are sparse in its page
 *     tables (a B-tree's leaves among its records, the fresh table of an
 *     append) gets them rejected at eviction in bulk rather than promoted by
 *     aging, and the rejections drive the priority down (above).  Not
 *     modelled: the filter's false positives (2 hashes into 32,768 bits), the
 *     non-leaf PMD accessed bit (a table without one has no young PTE
 *     either), the walk's trylock and VMA skips, the VMA's ends (every table
 *     counts 512 PTEs).  should_skip_mm() skips a process not switched in
 *     since the last walk, and a round without a process resets no filter;
 *     the model knows no context switches and takes "no access since the
 *     last walk" (a second aging in one reclaim) for that, one flag for all
 *     processes;
 *   - look-around (`lookaround`): when the reference check finds a young
 *     PTE, lru_gen_look_around() scans the PTEs around it (its page table,
 *     512 pages, cut to a window of 64 centred on it) and takes the young
 *     ones.  lookaround=auto (the default) does this on real addresses where
 *     the session has them (hs_policy_env.neigh, lib/neigh.h: a recorded
 *     session's anonymous pages by process and virtual page, file pages by
 *     file and index), and not at all where it has none; lookaround=ids
 *     takes key ids as page numbers (fiction for generated and imported
 *     streams).  A neighbour is young when its accessed bit is set (a PT
 *     access since its last scan), so page-cache pages only read(2) are
 *     never taken: they have no PTE.  Not modelled: the window's cut at
 *     the VMA's ends (not recorded), a file mapping whose virtual pages are
 *     not aligned with the file's index, other mappings of a shared page.
 *     What look-around does with a young neighbour depends on the profile
 *     and on whether the reclaimer holds an mm_walk (has_walk()): 6.3 and
 *     later update it in place with one (folio_update_gen()), activate it
 *     without (p614: lru_gen_set_refs() first); 6.1-6.2 (p61) collect the
 *     neighbours not in the youngest gen and activate them one by one only
 *     without a walk and when fewer than PAGEVEC_SIZE, else update them all
 *     in place.  The reclaimed folio's own young PTE is always handled as
 *     the kernel does (p63, and p68 with reclaimer=kswapd, call
 *     folio_update_gen() on it, which HitShield counts; p61 only marks it
 *     referenced);
 *   - no time: aging and eviction are driven by reclaim only (no min_ttl, no
 *     kswapd background aging, no watermarks); `reclaimer` only decides
 *     whether look-around has an mm_walk.  Memcg reclaim (the default) never
 *     has one when it evicts: the mm_walk that aging allocates is freed when
 *     the kernel ends the priority pass, right after aging.  kswapd always
 *     has its node's;
 *   - no dirty/writeback model: dirty file folios are evicted like clean
 *     ones, PG_reclaim (set by folio_inc_gen(reclaiming)) has no effect;
 *   - one zone, one node, one memcg, 4 KiB folios, swap always available;
 *   - shadow tokens (`shadow`): kernel (the default) keeps one per evicted
 *     key, in the key's own slot as the page cache's xarray does, and frees
 *     them only as the shadow shrinker frees xarray nodes: nodes of 64
 *     consecutive file indexes (by the recorded address; anonymous pages,
 *     whose swap slots no recording keeps, and keys without an address: 64
 *     consecutive key ids), at most capacity/8 of them holding only shadows,
 *     the longest such freed whole, 128 at a time, once per reclaim
 *     (count_shadow_nodes(), do_shrink_slab() with seeks 0 at the default
 *     priority; the memcg's other pages, slab included, are not counted).
 *     ring keeps shadow_factor * capacity slots (at most one per key), the
 *     oldest overwritten first, so a page evicted again takes a new slot and
 *     a workload that re-evicts a hot set loses the other pages' tokens: on
 *     scan-hot the scans' refaults then go unseen and the PID controller
 *     protects the hot set for longer than the kernel (README, Fidelity);
 *     p614's generation test makes old tokens useless anyway, p61/p68's
 *     even sooner;
 *   - swap cache: an anonymous folio brought back by a refault is in the swap
 *     cache until written;
 *   - the reclaim goal and batch are the kernel's 32 and 64 at 32768 pages
 *     (128 MiB) and above; below, with scale=true, they shrink with memory
 *     (capacity/1024 and capacity/512, at least 1) so that one reclaim frees
 *     the same share of memory; scale=false keeps 32/64 at any size, which
 *     on tiny memories frees most of memory at every miss.  The kernel does
 *     not scale: a memcg's charge reclaims SWAP_CLUSTER_MAX pages or more,
 *     whatever its limit, and MGLRU isolates MIN_LRU_BATCH folios a pass.  So
 *     scale=auto (the default) is false where the stream was recorded from a
 *     kernel (the session has real addresses: hs_policy_env.neigh) and true
 *     for imported and generated traces, whose sizes are often tiny.  On the
 *     lab's ycsb-load at 8M (2,048 pages, 6.12 MGLRU), the kernel swapped in
 *     604 pages (mean of three boots); with reclaim_loop=spec and walk=all
 *     scale=true replays 29, false 294; with the defaults of a recording
 *     (kernel loop, Bloom-filtered walk) 370 and 330;
 *   - p68 `activate_clears_refs`: POLICIES.md says adding a PG_active folio
 *     clears refs and PG_referenced "by 6.13, first release not pinned"; the
 *     6.8 refault fix sets refs to 3 for faulting folios, which that clearing
 *     would undo at once, so the default models 6.8 without it;
 *   - hints (section 2b): PAGEOUT evicts per `pageout` (recheck keeps a page
 *     accessed within `recheck_window` accesses; 0 = never in a serial
 *     replay); the evicted folio leaves a shadow token.  COLD with
 *     cold=kernel is folio_deactivate(): p61/p68 delete and re-add (anon
 *     lands in min_seq+1 / max_seq-1, file in the oldest or second oldest
 *     gen); p614 first clears refs and workingset and re-adds only if not
 *     already in the oldest gen.  cold=oldest moves it to the eviction end;
 *   - a type change of a key between accesses is ignored while resident.
 *
 * Degenerate memories.  Capacity 1: each miss evicts the only folio (after
 * however many agings it takes to strip its protection), so the policy is
 * FIFO of one.  Capacity 2: as the kernel would, with two folios.  With
 * swappiness 0 and no file folio resident the kernel would OOM; the
 * simulation then reclaims anon as with swappiness 1.  If a reclaim makes no
 * progress in 1000 rounds (it cannot, by construction: protection is
 * stripped by every pass), it evicts the oldest folio outright and counts it
 * in mglru.forced.
 *
 * Cost.  Per key: 8 bytes of the driver's record plus this area (16 bytes),
 * plus 4 bytes per young-vector slot (at most 2 * capacity + 1, or one per
 * key), with shadow=kernel 8 bytes per key and 16 per 64 keys (the nodes),
 * with shadow=ring 4 bytes per ring slot (shadow_factor * capacity, at most
 * one per key), with recheck_window > 0, 4 bytes per key, and with
 * walk=bloom 4 bytes per key and 7 per page table.  A hit is O(1); an aging
 * is O(folios accessed since the last one), plus O(page tables) with
 * walk=bloom (the filter's reset); an eviction pass is O(folios scanned).
 * check() is O(keys).
 *
 * Reporting.  Tier protection and promotion at eviction time (sort_folio's
 * promoted branch and the reference check) go to hs_sim_protect() as
 * HS_PROT_TIER and HS_PROT_PROMOTE; a patch reports its own (HitShield's
 * spent shields: HS_PROT_SHIELD).
 *
 * Hook points (struct hs_mglru_hooks).  A patch on MGLRU changes a few places
 * of the kernel code; the base calls a hook at each such place, and with every
 * hook NULL (plain mglru) runs the unpatched kernel.  The places are
 * lru_gen_add_folio(), folio_update_gen() (top, after its early return, and
 * its isolated branch), two positions in sort_folio(), and every access and
 * every departure of a folio carrying the patch's bits (MX_SHIELD, MX_SPENT),
 * which are tested before the hook is called so that the common path pays a
 * bit test.  The patch's own invariants, metrics and state are its business.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hs.h"
#include "lrugen.h"
#include "mglru.h"
#include "neigh.h"
#include "param.h"
#include "policy.h"
#include "qlist.h"

#define SCALE_PAGES	32768	/* memory at which reclaim uses the kernel's 32/64 */

enum { MGLRU_SCALE_AUTO, MGLRU_SCALE_TRUE, MGLRU_SCALE_FALSE };	/* param "scale" */
#define PMD_PAGES	512	/* pages per PTE table (look-around region) */
#define PMD_SHIFT_PAGES	9	/* log2(PMD_PAGES) */
#define PTES_PER_LINE	8	/* suitable_to_scan(): cache_line_size() / sizeof(pte_t) */
#define LOOKAROUND	64	/* look-around window (MIN_LRU_BATCH) */
#define PAGEVEC_SIZE	15	/* 6.1-6.2: fewer young neighbours are activated */
#define STALL_ROUNDS	1000	/* reclaim rounds without progress before forcing */
#define PREFETCH	32	/* young-vector entries fetched ahead by the aging walk */
#define MAX_RECLAIM_RETRIES 16	/* try_charge()'s reclaim retries before OOM */
#define SHADOW_NODE_SHIFT 6	/* XA_CHUNK_SHIFT: indexes per xarray node, as a shift */
#define SHRINK_BATCH	128	/* do_shrink_slab()'s default batch */

enum { EVICT_END, YOUNG_END };

/* per-folio steps of the hot paths: no call overhead, constants folded */
#define __hot_inline	inline __attribute__((always_inline))

static const struct hs_param mglru_params[] = {
	HS_MGLRU_PARAMS,
	{ .name = NULL },
};

/*
 * The driver's record layout (lib/sim.c): struct hs_folio, then this policy's
 * area, rounded up to 8 bytes.  create() checks it, so hot paths can use a
 * list context with constant stride and offset (shifts, no reloads).
 */
#define MGLRU_STRIDE	((sizeof(struct hs_folio) + sizeof(struct mglru_folio) + 7) & ~(size_t)7)
#define MGLRU_LINK_OFF	(sizeof(struct hs_folio) + offsetof(struct mglru_folio, link))

static inline struct hs_qctx hot_q(const struct hs_policy *p)
{
	return (struct hs_qctx){ .base = p->q.base, .stride = MGLRU_STRIDE,
				 .off = MGLRU_LINK_OFF };
}

/* The record of key id; hot loops pass a local hot_q() (kept in registers). */
static inline struct hs_folio *folio_in(const struct hs_qctx *q, uint32_t id)
{
	return (struct hs_folio *)(void *)(q->base + (size_t)id * q->stride);
}

static inline struct hs_folio *folio_at(const struct hs_policy *p, uint32_t id)
{
	return folio_in(&p->q, id);
}

static inline int folio_type(const struct mglru_folio *k)
{
	/* LRU_GEN_ANON is 0, LRU_GEN_FILE 1 */
	return !(k->flags & MF_ANON);
}

static inline unsigned int gen_from_seq(uint64_t seq)
{
	return (unsigned int)(seq % MAX_NR_GENS);
}

static inline uint64_t nr_gens(const struct hs_policy *p, int type)
{
	return p->max_seq - p->min_seq[type] + 1;
}

static inline bool is_p614(const struct hs_policy *p)
{
	return p->profile == MGLRU_P614;
}

/* order_base_2(): ceil(log2(n)), 0 for n <= 1. */
static inline unsigned int ob2(unsigned int n)
{
	return n <= 1 ? 0 : 32 - (unsigned int)__builtin_clz(n - 1);
}

/* folio_lru_refs() */
static inline unsigned int folio_refs(const struct hs_policy *p, const struct mglru_folio *k)
{
	if (is_p614(p))
		return fl(k, MF_REFERENCED) ? refs_of(k) + 1 : 0;
	return refs_of(k) + fl(k, MF_WORKINGSET);
}

/* lru_tier_from_refs() */
static inline unsigned int refs_tier(const struct hs_policy *p, unsigned int refs, bool ws)
{
	if (is_p614(p))
		return ws ? MAX_NR_TIERS - 1 : ob2(refs);
	return ob2(refs + 1);
}

/* Folios of type t on the lists (none is isolated between eviction passes). */
static uint64_t nr_on_lists(const struct hs_policy *p, int t)
{
	return p->nr_pages[0][t] + p->nr_pages[1][t] + p->nr_pages[2][t] + p->nr_pages[3][t];
}

/* Is this type evictable under the running reclaim's swappiness? */
static inline bool type_evictable(const struct hs_policy *p, int type)
{
	return type == LRU_GEN_FILE || p->swap_eff > 0;
}

/* The oldest generation of the evictable types: the window eviction works in. */
static uint64_t evictable_min_seq(const struct hs_policy *p)
{
	if (!is_p614(p))
		return p->min_seq[p->swap_eff ? LRU_GEN_ANON : LRU_GEN_FILE];
	if (!p->swap_eff)
		return p->min_seq[LRU_GEN_FILE];
	return HS_MIN(p->min_seq[LRU_GEN_ANON], p->min_seq[LRU_GEN_FILE]);
}

/* ---- the generation lists ---- */

/* Move the gen field of k (type t) from its gen to @gen: lru_gen_update_size(). */
static __hot_inline void set_gen(struct hs_policy *p, struct mglru_folio *k, int t,
				  unsigned int gen)
{
	if (k->gen)
		p->nr_pages[k->gen - 1][t]--;
	p->nr_pages[gen][t]++;
	k->gen = gen + 1;
}

/* Move k's list entry to folios[gen][t], at the young or the eviction end. */
static __hot_inline void move_entry(struct hs_policy *p, uint32_t id, struct mglru_folio *k,
				    int t, unsigned int gen, int end)
{
	const struct hs_qctx q = hot_q(p);

	hs_q_del(&q, &p->folios[k->lgen][t], id);
	if (end == YOUNG_END)
		hs_q_push_tail(&q, &p->folios[gen][t], id);
	else
		hs_q_push_head(&q, &p->folios[gen][t], id);
	k->lgen = gen;
}

/* lru_gen_folio_seq() of 6.14, for a non-reclaiming add. */
static __hot_inline uint64_t folio_seq_p614(const struct hs_policy *p, const struct mglru_folio *k)
{
	int t = folio_type(k);
	unsigned int g;

	if (fl(k, MF_ACTIVE))
		g = MIN_NR_GENS - fl(k, MF_WORKINGSET);
	else if (t == LRU_GEN_ANON && !fl(k, MF_SWAPCACHE))
		g = MIN_NR_GENS;
	else
		g = MAX_NR_GENS - fl(k, MF_WORKINGSET);
	return HS_MAX(p->max_seq + 1 - g, p->min_seq[t]);
}

/* lru_gen_add_folio(reclaiming = false), and a patch's add hook. */
static __hot_inline void add_folio(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	const struct hs_qctx q = hot_q(p);
	int t = folio_type(k);
	uint64_t max = p->max_seq, min = p->min_seq[t];
	unsigned int gen;
	uint64_t seq;

	if (p->profile == MGLRU_P68) {
		if (fl(k, MF_ACTIVE)) {
			seq = max;
			if (p->active_clears_refs) {
				set_refs(k, 0);
				k->flags &= (uint8_t)~MF_REFERENCED;
			}
		} else if (t == LRU_GEN_ANON && !fl(k, MF_SWAPCACHE)) {
			seq = max - 1;
		} else if (min + MIN_NR_GENS >= max) {
			seq = min;
		} else {
			seq = min + 1;
		}
	} else if (p->profile == MGLRU_P61) {
		if (fl(k, MF_ACTIVE))
			seq = max;
		else if (t == LRU_GEN_ANON && !fl(k, MF_SWAPCACHE))
			seq = min + 1;
		else
			seq = min;
	} else {
		seq = folio_seq_p614(p, k);
	}
	gen = gen_from_seq(seq);
	k->gen = 0;
	set_gen(p, k, t, gen);
	k->lgen = gen;
	k->flags &= (uint8_t)~MF_ACTIVE;
	if (p->hooks.add)
		p->hooks.add(p, k);
	hs_q_push_tail(&q, &p->folios[gen][t], id);
}

/* lru_gen_del_folio(): off the lists (isolation, eviction, drop). */
static __hot_inline void del_folio(struct hs_policy *p, uint32_t id, struct mglru_folio *k,
				   int t)
{
	const struct hs_qctx q = hot_q(p);

	hs_q_del(&q, &p->folios[k->lgen][t], id);
	p->nr_pages[k->gen - 1][t]--;
	k->gen = 0;
}

/* folio_inc_gen(): the second oldest generation, unless already promoted. */
static __hot_inline unsigned int inc_gen(struct hs_policy *p, struct mglru_folio *k, int t)
{
	unsigned int old = gen_from_seq(p->min_seq[t]);
	unsigned int cur = k->gen - 1;
	unsigned int gen;

	if (cur != old)
		return cur;	/* folio_update_gen() has promoted it */
	gen = (old + 1) % MAX_NR_GENS;
	set_refs(k, 0);
	k->flags &= (uint8_t)~MF_REFERENCED;
	if (!is_p614(p))
		k->flags &= (uint8_t)~MF_WORKINGSET;
	/* reclaiming would set PG_reclaim: without writeback it changes nothing */
	set_gen(p, k, t, gen);
	return gen;
}

/* folio_mark_accessed() -> folio_inc_refs() / lru_gen_inc_refs() */
static __hot_inline void inc_refs(const struct hs_policy *p, struct mglru_folio *k)
{
	if (!fl(k, MF_REFERENCED)) {
		k->flags |= MF_REFERENCED;
		if (is_p614(p))
			set_refs(k, 0);
		return;
	}
	if (is_p614(p)) {
		if (refs_of(k) == LRU_REFS_MASK)
			k->flags |= MF_WORKINGSET;
		else
			set_refs(k, refs_of(k) + 1);
		return;
	}
	if (!fl(k, MF_WORKINGSET))
		k->flags |= MF_WORKINGSET;
	else if (refs_of(k) < LRU_REFS_MASK)
		set_refs(k, refs_of(k) + 1);
}

/* ---- accessed bits and aging ---- */

/* Drop stale entries from the young vector (it has room afterwards). */
static void compact_young(struct hs_policy *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_young; i++) {
		struct hs_folio *f = folio_at(p, p->young[i]);
		struct mglru_folio *k = mglru_priv(f);

		if (hs_folio_is_resident(f) && fl(k, MF_ABIT))
			p->young[n++] = p->young[i];
		else
			k->flags &= (uint8_t)~MF_YOUNG;
	}
	p->nr_young = n;
}

/* A PTE access: the hardware sets the accessed bit. */
static __hot_inline void set_abit(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	k->flags |= MF_ABIT;
	if (fl(k, MF_YOUNG))
		return;
	if (p->nr_young == p->young_cap)
		compact_young(p);
	k->flags |= MF_YOUNG;
	p->young[p->nr_young++] = id;
}

/* folio_update_gen(folio, gen(max_seq)) on a folio on the lists. */
static __hot_inline void update_gen(struct hs_policy *p, struct mglru_folio *k)
{
	unsigned int gen = gen_from_seq(p->max_seq);
	int t = folio_type(k);

	if (p->hooks.update_gen_top)
		p->hooks.update_gen_top(p, k);
	if (is_p614(p) && !fl(k, MF_REFERENCED) && !fl(k, MF_WORKINGSET)) {
		/* the first young PTE is taken to be the fault's own */
		k->flags |= MF_REFERENCED;
		set_refs(k, 0);
		return;
	}
	set_refs(k, 0);
	k->flags &= (uint8_t)~MF_REFERENCED;
	set_fl(k, MF_WORKINGSET, is_p614(p));
	if (k->gen - 1u != gen) {
		set_gen(p, k, t, gen);
		p->promotions++;
	}
	if (p->hooks.update_gen)
		p->hooks.update_gen(p, k);
}

/* reset_ctrl_pos(type, carryover = true): the PID's EWMA (NR_HIST_GENS = 1). */
static void reset_ctrl_pos(struct hs_policy *p, int t)
{
	int tier;

	for (tier = 0; tier < MAX_NR_TIERS; tier++) {
		p->avg_refaulted[t][tier] = (p->avg_refaulted[t][tier] + p->refaulted[t][tier]) / 2;
		p->avg_total[t][tier] = (p->avg_total[t][tier] + p->evicted[t][tier] +
					 p->protected[t][tier]) / 2;
		p->refaulted[t][tier] = 0;
		p->evicted[t][tier] = 0;
		p->protected[t][tier] = 0;
	}
}

/* inc_min_seq(): retire the oldest generation of a full window. */
static void inc_min_seq(struct hs_policy *p, int t)
{
	unsigned int old = gen_from_seq(p->min_seq[t]);
	struct hs_qlist *l = &p->folios[old][t];

	if (!type_evictable(p, t)) {
		/*
		 * The kernel just bumps min_seq: the oldest list becomes the new
		 * youngest.  Folios on it that were promoted while the type was
		 * evictable (a swap_eff fallback) would keep a gen field older
		 * than their list; the simulation moves those to their own gen.
		 */
		uint32_t id = l->head;

		while (id != HS_NIL) {
			uint32_t next = hs_q_next(&p->q, id);
			struct mglru_folio *k = mglru_priv(folio_at(p, id));

			if (k->gen - 1u != old)
				move_entry(p, id, k, t, k->gen - 1u, EVICT_END);
			id = next;
		}
	}
	while (type_evictable(p, t) && l->head != HS_NIL) {
		uint32_t id = l->head;
		struct mglru_folio *k = mglru_priv(folio_at(p, id));
		unsigned int gen;

		if (is_p614(p)) {
			unsigned int refs = folio_refs(p, k);

			/* the workingset being lazily promoted is not counted */
			if (refs + fl(k, MF_WORKINGSET) != MAX_NR_TIERS + 1) {
				unsigned int tier = refs_tier(p, refs, fl(k, MF_WORKINGSET));

				p->protected[t][tier]++;
				p->sum_protected[tier]++;
			}
		}
		gen = inc_gen(p, k, t);
		move_entry(p, id, k, t, gen, EVICT_END);
	}
	reset_ctrl_pos(p, t);
	p->min_seq[t]++;
}

/* The lruvec's shape after an aging: the run's time series (run_generations, debugfs lru_gen). */
static void sample_gens(struct hs_policy *p)
{
	struct hs_gen_sample g = {
		.aging = p->agings,
		.max_seq = p->max_seq,
		.min_seq = { p->min_seq[LRU_GEN_ANON], p->min_seq[LRU_GEN_FILE] },
	};

	_Static_assert(sizeof(g.pages) == sizeof(p->nr_pages), "pages by gen and type");
	memcpy(g.pages, p->nr_pages, sizeof(g.pages));
	hs_sim_series_add(p->env->sim, &g, sizeof(g));
}

/*
 * walk=bloom: may the walk of seq max_seq enter @table?  test_bloom_filter():
 * yes while that filter does not exist (the first round), else if it holds
 * the table.
 */
static inline bool walk_enters(const struct hs_policy *p, uint32_t table)
{
	unsigned int b = (unsigned int)(p->max_seq & 1);

	return table == HS_NIL || !p->filter_live[b] || (p->filter[table] >> b & 1);
}

/*
 * walk=bloom: the walk found @young of a table's PTES young (suitable_to_scan()
 * with the whole table as its range: the VMA's ends are not recorded), or
 * look-around @young of its window of @total: the table goes into the
 * Bloom filter of @seq, if that filter exists (update_bloom_filter()).
 */
static inline void bloom_add(struct hs_policy *p, uint32_t table, uint64_t seq,
			     unsigned int young, unsigned int total)
{
	unsigned int b = (unsigned int)(seq & 1);

	if (table != HS_NIL && p->filter_live[b] && young * PTES_PER_LINE >= total)
		p->filter[table] |= (uint8_t)(1u << b);
}

/*
 * try_to_inc_max_seq(): walk the accessed bits, then inc_max_seq().  With
 * walk=bloom, as walk_pmd_range() does: the round first resets the filter of
 * max_seq + 1 (reset_bloom_filter()), enters only the page tables the filter
 * of max_seq holds, and puts into the new one each table it entered whose
 * young PTEs were at least one per cache line of PTEs (an eighth).  The young
 * folios of the tables it skips keep their accessed bits, to be found by the
 * reference check at eviction (and their neighbours by look-around).
 */
static void age(struct hs_policy *p)
{
	const struct hs_qctx q = hot_q(p);
	size_t i, n = 0, nw = 0;
	int t;

	if (p->bloom) {
		unsigned int nb = (unsigned int)((p->max_seq + 1) & 1);
		uint32_t tb;

		/*
		 * should_skip_mm(): a process not switched in since the last walk
		 * is skipped, and with no mm to walk the round resets no filter.
		 * The model knows no context switches; it takes a process that
		 * made no access since the last walk (two agings of one reclaim)
		 * for one that was not switched in, and one that did for one that
		 * was.  One flag for all processes.
		 */
		if (p->walked && p->accesses == p->walk_accesses)
			goto inc;
		p->walked = true;
		p->walk_accesses = p->accesses;
		for (tb = 0; tb < p->nr_tables; tb++)
			p->filter[tb] &= (uint8_t)~(1u << nb);
		p->filter_live[nb] = true;
	}
	for (i = 0; i < p->nr_young; i++) {
		uint32_t id = p->young[i];
		struct hs_folio *f = folio_in(&q, id);
		struct mglru_folio *k = mglru_priv(f);

		/* a plain array of ids: fetch the records ahead of the walk */
		if (i + PREFETCH < p->nr_young)
			__builtin_prefetch(folio_in(&q, p->young[i + PREFETCH]), 1);
		if (!hs_folio_is_resident(f) || !fl(k, MF_ABIT)) {
			k->flags &= (uint8_t)~MF_YOUNG;
			continue;
		}
		if (fl(k, MF_ANON) && !p->swap_eff) {
			/* should_skip_vma(): anon VMAs are not walked */
			p->young[n++] = id;
			continue;
		}
		if (p->bloom) {
			uint32_t tb = p->table_of[id];

			if (!walk_enters(p, tb)) {
				p->walk_skipped++;
				p->young[n++] = id;
				continue;
			}
			if (tb != HS_NIL && !p->tyoung[tb]++)
				p->twalked[nw++] = tb;
		}
		k->flags &= (uint8_t)~(MF_YOUNG | MF_ABIT);
		update_gen(p, k);
	}
	p->nr_young = n;
	for (i = 0; i < nw; i++) {
		uint32_t tb = p->twalked[i];

		bloom_add(p, tb, p->max_seq + 1, p->tyoung[tb], PMD_PAGES);
		p->tyoung[tb] = 0;
	}
inc:
	for (t = 0; t < ANON_AND_FILE; t++)
		if (nr_gens(p, t) == MAX_NR_GENS)
			inc_min_seq(p, t);
	p->max_seq++;
	p->agings++;
	p->walk_live = true;	/* 6.1-6.2: its mm_walk stays until the reclaim ends */
	sample_gens(p);
}

/* try_to_inc_min_seq(): skip empty oldest generations; couple the types. */
static bool try_to_inc_min_seq(struct hs_policy *p)
{
	bool success = false;
	uint64_t min[ANON_AND_FILE] = { p->min_seq[0], p->min_seq[1] };
	int t;

	for (t = 0; t < ANON_AND_FILE; t++) {
		if (!type_evictable(p, t))
			continue;
		while (min[t] + MIN_NR_GENS <= p->max_seq &&
		       hs_q_empty(&p->folios[gen_from_seq(min[t])][t]))
			min[t]++;
	}
	if (!is_p614(p)) {
		if (p->swap_eff) {
			min[LRU_GEN_ANON] = HS_MIN(min[LRU_GEN_ANON], min[LRU_GEN_FILE]);
			min[LRU_GEN_FILE] = HS_MAX(min[LRU_GEN_ANON], p->min_seq[LRU_GEN_FILE]);
		}
	} else if (p->swap_eff) {
		uint64_t seq = p->max_seq - MIN_NR_GENS;

		if (min[LRU_GEN_ANON] > seq && min[LRU_GEN_FILE] < seq)
			min[LRU_GEN_ANON] = seq;
		else if (min[LRU_GEN_FILE] > seq && min[LRU_GEN_ANON] < seq)
			min[LRU_GEN_FILE] = seq;
	}
	for (t = 0; t < ANON_AND_FILE; t++) {
		if (!type_evictable(p, t) || min[t] <= p->min_seq[t])
			continue;
		reset_ctrl_pos(p, t);
		p->min_seq[t] = min[t];
		success = true;
	}
	return success;
}

/* ---- the PID controller ---- */

/* read_ctrl_pos(); tier == MAX_NR_TIERS sums all tiers (6.14). */
static struct mglru_ctrl_pos read_ctrl_pos(const struct hs_policy *p, int t, int tier,
					   unsigned int gain)
{
	struct mglru_ctrl_pos pos = { .gain = gain };
	int lo = tier % MAX_NR_TIERS, hi = HS_MIN(tier, MAX_NR_TIERS - 1);
	int i;

	for (i = lo; i <= hi; i++) {
		pos.refaulted += p->avg_refaulted[t][i] + p->refaulted[t][i];
		pos.total += p->avg_total[t][i] + p->evicted[t][i] + p->protected[t][i];
	}
	return pos;
}

/* positive_ctrl_err(): pv refaults too little, or no more than sp (by gain). */
static bool positive_ctrl_err(const struct hs_policy *p, const struct mglru_ctrl_pos *sp,
			      const struct mglru_ctrl_pos *pv)
{
	return pv->refaulted < p->floor ||
	       pv->refaulted * (sp->total + p->floor) * sp->gain <=
	       (sp->refaulted + 1) * pv->total * pv->gain;
}

/* get_tier_idx(): tiers above the result are protected. */
static int get_tier_idx(const struct hs_policy *p, int t)
{
	unsigned int g0 = is_p614(p) ? 2 : 1, g1 = is_p614(p) ? 3 : 2;
	struct mglru_ctrl_pos sp = read_ctrl_pos(p, t, 0, g0), pv;
	int tier;

	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		pv = read_ctrl_pos(p, t, tier, g1);
		if (!positive_ctrl_err(p, &sp, &pv))
			break;
	}
	return tier - 1;
}

/* get_type_to_scan() of 6.1-6.13: tier 0 against tier 0; also the tier index. */
static int get_type_to_scan_p61(const struct hs_policy *p, int *tier_idx)
{
	unsigned int gain[ANON_AND_FILE] = { p->swap_eff, MAX_SWAPPINESS - p->swap_eff };
	struct mglru_ctrl_pos sp, pv;
	int type, tier;

	sp = read_ctrl_pos(p, LRU_GEN_ANON, 0, gain[LRU_GEN_ANON]);
	pv = read_ctrl_pos(p, LRU_GEN_FILE, 0, gain[LRU_GEN_FILE]);
	type = positive_ctrl_err(p, &sp, &pv);

	sp = read_ctrl_pos(p, !type, 0, gain[!type]);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		pv = read_ctrl_pos(p, type, tier, gain[type]);
		if (!positive_ctrl_err(p, &sp, &pv))
			break;
	}
	*tier_idx = tier - 1;
	return type;
}

/* get_type_to_scan() of 6.14: all tiers of anon against all tiers of file. */
static int get_type_to_scan_p614(const struct hs_policy *p)
{
	struct mglru_ctrl_pos sp, pv;

	if (p->swap_eff <= 1)
		return LRU_GEN_FILE;
	if (p->swap_eff >= MAX_SWAPPINESS)
		return LRU_GEN_ANON;
	sp = read_ctrl_pos(p, LRU_GEN_ANON, MAX_NR_TIERS, p->swap_eff);
	pv = read_ctrl_pos(p, LRU_GEN_FILE, MAX_NR_TIERS, MAX_SWAPPINESS - p->swap_eff);
	return positive_ctrl_err(p, &sp, &pv);
}

/* ---- eviction ---- */

/*
 * A patch's sort hook (@hook) at its place in sort_folio(): true, and the
 * folio goes to the young end of min_seq + 1, for one more trip.
 */
static bool sort_patch(struct hs_policy *p, uint32_t id, struct hs_folio *f,
		       struct mglru_folio *k, int t,
		       bool (*hook)(struct hs_policy *, struct hs_folio *, struct mglru_folio *))
{
	unsigned int gen;

	if (!hook(p, f, k))
		return false;
	gen = inc_gen(p, k, t);	/* folio_inc_gen(reclaiming = true) */
	move_entry(p, id, k, t, gen, YOUNG_END);
	return true;
}

/* sort_folio(): true if the folio was moved instead of isolated. */
static __hot_inline bool sort_folio(struct hs_policy *p, uint32_t id, int t, int tier_idx)
{
	struct hs_folio *f = folio_at(p, id);
	struct mglru_folio *k = mglru_priv(f);
	unsigned int gen = k->gen - 1;
	unsigned int refs, tier;
	bool lazy;

	/* promoted by folio_update_gen() since it was put here */
	if (gen != gen_from_seq(p->min_seq[t])) {
		move_entry(p, id, k, t, gen, YOUNG_END);
		p->sort_promoted++;
		hs_sim_protect(p->env->sim, f, HS_PROT_PROMOTE);
		return true;
	}

	if ((k->more & MX_SHIELD) && p->hooks.sort_early &&
	    sort_patch(p, id, f, k, t, p->hooks.sort_early))
		return true;

	/* no refs, PG_referenced or PG_workingset: tier 0 in every profile */
	if (!(k->flags & (MF_REFERENCED | MF_WORKINGSET)) && !refs_of(k))
		goto unprotected;

	/* protected by its tier, or by p68/p614's rules for frequent FD access */
	refs = folio_refs(p, k);
	tier = refs_tier(p, refs, fl(k, MF_WORKINGSET));
	lazy = is_p614(p) && refs + fl(k, MF_WORKINGSET) == MAX_NR_TIERS + 1;
	if ((tier_idx < MAX_NR_TIERS - 1 && (int)tier > tier_idx) || lazy ||
	    (p->profile == MGLRU_P68 && refs == MAX_NR_TIERS)) {
		gen = inc_gen(p, k, t);
		move_entry(p, id, k, t, gen, is_p614(p) ? YOUNG_END : EVICT_END);
		if (!lazy) {
			p->protected[t][tier]++;
			p->sum_protected[tier]++;
		}
		if (p->profile == MGLRU_P61)
			p->ws_activate[t]++;
		p->tier_protected++;
		hs_sim_protect(p->env->sim, f, HS_PROT_TIER);
		return true;
	}
unprotected:
	if ((k->more & MX_SHIELD) && p->hooks.sort_last &&
	    sort_patch(p, id, f, k, t, p->hooks.sort_last))
		return true;
	return false;
}

/* isolate_folio() */
static __hot_inline void isolate_folio(struct hs_policy *p, uint32_t id, struct mglru_folio *k,
				       int t)
{
	if (!fl(k, MF_REFERENCED)) {
		set_refs(k, 0);
		if (!is_p614(p))
			k->flags &= (uint8_t)~MF_WORKINGSET;
	}
	if (!is_p614(p))
		k->flags &= (uint8_t)~MF_REFERENCED;
	del_folio(p, id, k, t);
	p->iso[p->nr_iso++] = id;
}

/* scan_folios(): sort or isolate from the eviction end of the oldest gen. */
static uint64_t scan_folios(struct hs_policy *p, int t, int tier_idx, size_t lim)
{
	const struct hs_qctx q = hot_q(p);
	uint64_t scanned = 0, remaining = p->max_scan;
	struct hs_qlist *l;
	size_t isolated = 0;

	if (nr_gens(p, t) == MIN_NR_GENS)
		return 0;
	l = &p->folios[gen_from_seq(p->min_seq[t])][t];
	while (l->head != HS_NIL) {
		uint32_t id = l->head, next = hs_q_next(&q, id);

		if (next != HS_NIL)
			__builtin_prefetch(folio_in(&q, next), 1);
		scanned++;
		if (sort_folio(p, id, t, tier_idx)) {
			p->pgrefill++;
		} else {
			isolate_folio(p, id, mglru_priv(folio_in(&q, id)), t);
			isolated++;
		}
		if (!--remaining || isolated >= lim)
			break;
	}
	p->pgscan += isolated;
	return isolated || !remaining ? scanned : 0;
}

/* isolate_folios(): pick the type and tier, then scan; fall back to the other type. */
static uint64_t isolate_folios(struct hs_policy *p, size_t lim)
{
	int tier = -1, type, i;
	uint64_t scanned;

	if (is_p614(p)) {
		type = get_type_to_scan_p614(p);
		for (i = 0; i < ANON_AND_FILE; i++, type = !type) {
			if (!type_evictable(p, type))
				continue;
			scanned = scan_folios(p, type, get_tier_idx(p, type), lim);
			if (scanned)
				return scanned;
		}
		return 0;
	}
	if (!p->swap_eff)
		type = LRU_GEN_FILE;
	else if (p->min_seq[LRU_GEN_ANON] < p->min_seq[LRU_GEN_FILE])
		type = LRU_GEN_ANON;
	else if (p->swap_eff == 1)
		type = LRU_GEN_FILE;
	else if (p->swap_eff == MAX_SWAPPINESS)
		type = LRU_GEN_ANON;
	else
		type = get_type_to_scan_p61(p, &tier);
	for (i = !p->swap_eff; i < ANON_AND_FILE; i++) {
		if (tier < 0)
			tier = get_tier_idx(p, type);
		scanned = scan_folios(p, type, tier, lim);
		if (scanned)
			return scanned;
		type = !type;
		tier = -1;
	}
	return 0;
}

/*
 * Does this reclaim's look-around run with an mm_walk?  kswapd always has
 * its node's.  Memcg reclaim: 6.3-6.7 (p63) allocate one for the whole
 * lru_gen_shrink_lruvec(); 6.1-6.2 (p61) only once an aging in it allocated
 * one (set_mm_walk(pgdat) leaves a memcg reclaimer without); 6.8 and later
 * free it when aging ends the pass, so eviction has none.
 */
static inline bool has_walk(const struct hs_policy *p)
{
	if (p->kswapd)
		return true;
	if (p->profile != MGLRU_P61)
		return false;
	return !p->la61 || p->walk_live;
}

/*
 * walk_update_folio() for a young neighbour found by look-around (6.3 and
 * later).  Isolated neighbours (gen field 0): p63/p68 mark them referenced
 * (so the reference check keeps them), p614 skips them.
 */
static void lookaround_update(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	bool walk = has_walk(p);
	unsigned int new_gen = gen_from_seq(p->max_seq);

	k->flags &= (uint8_t)~MF_ABIT;
	if (!k->gen) {
		k->flags |= MF_REFERENCED;
		if (walk && p->hooks.update_gen_isolated)
			p->hooks.update_gen_isolated(p, k);	/* its isolated branch */
		return;
	}
	if (walk) {
		update_gen(p, k);
		return;
	}
	if (is_p614(p)) {
		/* lru_gen_set_refs() */
		if (!fl(k, MF_REFERENCED) && !fl(k, MF_WORKINGSET)) {
			k->flags |= MF_REFERENCED;
			set_refs(k, 0);
			return;
		}
		k->flags &= (uint8_t)~MF_REFERENCED;
		set_refs(k, 0);
		k->flags |= MF_WORKINGSET;
	}
	if (k->gen - 1u != new_gen) {
		/* folio_activate(): delete, PG_active, add (at max_seq) */
		del_folio(p, id, k, folio_type(k));
		k->flags |= MF_ACTIVE;
		add_folio(p, id, k);
	}
}

/*
 * 6.1-6.2's lru_gen_look_around() on the young neighbours @ids (address
 * order, their accessed bits still set): clear each bit; an isolated one is
 * only marked referenced; the others not in the youngest gen are collected
 * (its bitmap).  Without an mm_walk, fewer than PAGEVEC_SIZE collected are
 * each folio_activate()d; otherwise folio_update_gen() moves them all.
 */
static void look_around_61(struct hs_policy *p, const uint32_t *ids, size_t n)
{
	uint32_t bits[LOOKAROUND];
	unsigned int new_gen = gen_from_seq(p->max_seq);
	size_t i, nbits = 0;

	for (i = 0; i < n; i++) {
		struct mglru_folio *k = mglru_priv(folio_at(p, ids[i]));

		k->flags &= (uint8_t)~MF_ABIT;
		if (!k->gen)
			k->flags |= MF_REFERENCED;	/* folio_set_referenced() */
		else if (k->gen - 1u != new_gen)
			bits[nbits++] = ids[i];
	}
	if (!has_walk(p) && nbits < PAGEVEC_SIZE) {
		for (i = 0; i < nbits; i++) {
			struct mglru_folio *k = mglru_priv(folio_at(p, bits[i]));

			/* folio_activate(): delete, PG_active, add (at max_seq) */
			del_folio(p, bits[i], k, folio_type(k));
			k->flags |= MF_ACTIVE;
			add_folio(p, bits[i], k);
		}
		return;
	}
	for (i = 0; i < nbits; i++)
		update_gen(p, mglru_priv(folio_at(p, bits[i])));
}

/*
 * The PTEs lru_gen_look_around() scans around page @pg: its page table
 * (PMD_PAGES), cut to LOOKAROUND pages centred on @pg where it is larger.
 * The kernel also cuts at the VMA's ends, which a recording does not keep.
 */
static void lookaround_window(uint64_t pg, uint64_t *start, uint64_t *end)
{
	uint64_t s = pg & ~(uint64_t)(PMD_PAGES - 1), e = s + PMD_PAGES;

	if (e - s > LOOKAROUND) {
		if (pg - s < LOOKAROUND / 2) {
			e = s + LOOKAROUND;
		} else if (e - pg < LOOKAROUND / 2) {
			s = e - LOOKAROUND;
		} else {
			s = pg - LOOKAROUND / 2;
			e = pg + LOOKAROUND / 2;
		}
	}
	*start = s;
	*end = e;
}

/* A neighbour whose PTE look-around finds young and takes (get_pfn_folio()). */
static inline bool lookaround_takes(const struct hs_policy *p, uint32_t nid,
				    const struct mglru_folio *self)
{
	const struct hs_folio *f = folio_at(p, nid);
	const struct mglru_folio *k = mglru_cpriv(f);

	if (!hs_folio_is_resident(f) || !fl(k, MF_ABIT))
		return false;
	/* before 6.14 the walk of a file folio skips anon neighbours */
	if (!is_p614(p) && !fl(self, MF_ANON) && fl(k, MF_ANON))
		return false;
	return !(is_p614(p) && !k->gen);
}

/*
 * The young neighbours of key @id, in address order, into @out (room for
 * LOOKAROUND): by real address (the session's, lib/neigh.h), or with key
 * ids taken as page numbers (lookaround=ids).
 */
static size_t lookaround_find(const struct hs_policy *p, uint32_t id,
			      const struct mglru_folio *self, uint32_t *out)
{
	const struct hs_neigh *nb = p->env->neigh;
	uint64_t start, end, addr;
	uint32_t at, sp, lo, i;
	size_t n = 0;

	if (p->lookaround == MGLRU_LA_IDS) {
		lookaround_window(id, &start, &end);
		end = HS_MIN(end, (uint64_t)p->env->nr_keys);
		for (addr = start; addr < end && n < LOOKAROUND; addr++)
			if (addr != id && lookaround_takes(p, (uint32_t)addr, self))
				out[n++] = (uint32_t)addr;
		return n;
	}
	at = nb->pos[id];
	if (at == HS_NEIGH_NOPOS)
		return 0;		/* no address: no page table to look at */
	sp = nb->space[id];
	lookaround_window(nb->page[id], &start, &end);
	for (lo = at; lo > 0; lo--) {
		uint32_t prev = nb->order[lo - 1];

		if (nb->space[prev] != sp || nb->page[prev] < start)
			break;
	}
	for (i = lo; i < nb->nr_addr && n < LOOKAROUND; i++) {
		uint32_t nid = nb->order[i];

		if (nb->space[nid] != sp || nb->page[nid] >= end)
			break;
		if (nid != id && lookaround_takes(p, nid, self))
			out[n++] = nid;
	}
	return n;
}

/* lru_gen_look_around(): the young neighbours of a reclaimed folio's PTE. */
static void look_around(struct hs_policy *p, uint32_t id, const struct mglru_folio *self)
{
	uint32_t ids[LOOKAROUND];
	size_t n = lookaround_find(p, id, self, ids), i;

	p->la_young += n;
	if (p->bloom && p->lookaround == MGLRU_LA_ADDR) {
		uint64_t start, end;

		/* feedback from rmap walkers to page table walkers */
		lookaround_window(p->env->neigh->page[id], &start, &end);
		bloom_add(p, p->table_of[id], p->max_seq, (unsigned int)n + 1,
			  (unsigned int)(end - start));
	}
	if (p->la61) {
		look_around_61(p, ids, n);
		return;
	}
	for (i = 0; i < n; i++)
		lookaround_update(p, ids[i], mglru_priv(folio_at(p, ids[i])));
}

/*
 * shrink_folio_list()'s reference check on an isolated folio: true if it is
 * kept (rejected).  Its own young PTE is handled as lru_gen_look_around()
 * does; the PG_active it may get is consumed by the put-back.
 */
static __hot_inline bool reference_check(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	if (!fl(k, MF_ABIT)) {
		/* p61/p68: a look-around marked it while isolated: still mapped, young */
		if (is_p614(p) || !fl(k, MF_REFERENCED))
			return false;
		k->flags |= MF_ACTIVE;
		return true;
	}
	k->flags &= (uint8_t)~MF_ABIT;
	if (p->lookaround != MGLRU_LA_OFF)
		look_around(p, id, k);
	if (is_p614(p)) {
		/* lru_gen_set_refs(): first young PTE KEEP, later ACTIVATE */
		if (!fl(k, MF_REFERENCED) && !fl(k, MF_WORKINGSET)) {
			k->flags |= MF_REFERENCED;
			set_refs(k, 0);
		} else {
			k->flags &= (uint8_t)~MF_REFERENCED;
			set_refs(k, 0);
			k->flags |= MF_WORKINGSET | MF_ACTIVE;
		}
		return true;
	}
	/*
	 * p61/p63/p68: look-around's folio_update_gen() (with a walk, 6.3 on)
	 * or folio_set_referenced() (6.1-6.2 always) marks the isolated folio
	 * itself, so folio_check_references() sees PG_referenced and a young
	 * PTE: ACTIVATE.
	 */
	if (p->hooks.update_gen_isolated && !p->la61 && has_walk(p))
		p->hooks.update_gen_isolated(p, k);
	k->flags |= MF_REFERENCED | MF_ACTIVE;
	return true;
}

/* evict_folios()' post-processing of a rejected folio, then the put-back. */
static __hot_inline void putback(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	switch (p->profile) {
	case MGLRU_P61:
		if (fl(k, MF_WORKINGSET))
			k->flags |= MF_REFERENCED;
		k->flags |= MF_ACTIVE;
		break;
	case MGLRU_P68:
		/* rejected mapped folio: clear refs and flags, PG_active */
		set_refs(k, 0);
		k->flags &= (uint8_t)~(MF_REFERENCED | MF_WORKINGSET);
		k->flags |= MF_ACTIVE;
		break;
	default:
		/* don't add rejected folios to the oldest generation */
		if (folio_seq_p614(p, k) == p->min_seq[folio_type(k)]) {
			set_refs(k, 0);
			k->flags &= (uint8_t)~MF_REFERENCED;
			k->flags |= MF_ACTIVE;
		}
		break;
	}
	add_folio(p, id, k);
	hs_sim_protect(p->env->sim, folio_at(p, id), HS_PROT_PROMOTE);
}

/*
 * Shadow entries, shadow=kernel.  The kernel stores a token in the evicted
 * page's own slot of its mapping's xarray (a file's, or the swap cache's),
 * where it stays until the page comes back, the file is truncated, or the
 * shadow shrinker frees the node holding it: count_shadow_nodes() lets a
 * memcg keep (its pages >> 3) nodes that hold only shadow entries, and
 * scan_shadow_nodes() frees such nodes whole, the longest shadow-only first
 * (shadow_lru_isolate()).  A page evicted again overwrites its own token and
 * takes no room from others: a bound by memory, not by evictions.
 */

/* workingset_update_node(): on the shadow LRU while it holds shadows and no page. */
static void node_update(struct hs_policy *p, uint32_t n)
{
	struct mglru_snode *s = &p->nodes[n];
	bool want = s->shadows && !s->pages;

	if (want == !!s->on_lru)
		return;
	if (want)
		hs_q_push_tail(&p->nq, &p->shadow_lru, n);
	else
		hs_q_del(&p->nq, &p->shadow_lru, n);
	s->on_lru = want;
}

/* A page of key id enters (+1) or leaves (-1) memory. */
static __hot_inline void node_page(struct hs_policy *p, uint32_t id, int delta)
{
	uint32_t n;

	if (!p->shadow_kernel)
		return;
	n = p->node_of[id];
	p->nodes[n].pages = (uint16_t)(p->nodes[n].pages + delta);
	node_update(p, n);
}

/* shadow_lru_isolate(): free the oldest shadow-only node and its tokens. */
static void free_oldest_node(struct hs_policy *p)
{
	uint32_t n = p->shadow_lru.head, i;

	for (i = p->node_first[n]; i < p->node_first[n + 1]; i++) {
		struct mglru_folio *k = mglru_priv(folio_at(p, p->node_keys[i]));

		k->flags &= (uint8_t)~MF_TOKEN;	/* not resident: the node has no page */
	}
	p->nodes[n].shadows = 0;
	node_update(p, n);
	p->nodes_freed++;
}

/*
 * do_shrink_slab() on the shadow shrinker (seeks 0), once per reclaim, at
 * the default priority: count_shadow_nodes() reports the shadow-only nodes
 * above capacity >> 3; half of them is the new work, the deferred work adds
 * (deferred >> priority); it runs in batches of SHRINK_BATCH while that much
 * is due (or all of it), and what is left is deferred, capped at twice the
 * freeable count.
 */
static void shrink_shadows(struct hs_policy *p)
{
	uint64_t freeable, delta, total, scanned = 0, next;

	if (p->shadow_lru.nr <= p->max_nodes)
		return;
	freeable = p->shadow_lru.nr - p->max_nodes;
	delta = freeable / 2;
	total = HS_MIN((p->shrink_deferred >> DEF_PRIORITY) + delta, 2 * freeable);
	while (total >= SHRINK_BATCH || total >= freeable) {
		uint64_t n = HS_MIN(total, (uint64_t)SHRINK_BATCH), i;

		for (i = 0; i < n && !hs_q_empty(&p->shadow_lru); i++)
			free_oldest_node(p);
		total -= n;
		scanned += n;
	}
	next = p->shrink_deferred + delta > scanned ? p->shrink_deferred + delta - scanned : 0;
	p->shrink_deferred = HS_MIN(next, 2 * freeable);
}

/*
 * Write a shadow token.  shadow=ring: into the next ring slot; the token it
 * overwrites dies without its folio being touched (a token is live only
 * while its slot holds its folio's id, has_token()).  shadow=kernel: into
 * the key's own slot, counted in its node.
 */
static __hot_inline void push_token(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	uint32_t slot;

	if (p->shadow_kernel) {
		uint32_t n = p->node_of[id];

		k->flags |= MF_TOKEN;
		p->nodes[n].shadows++;
		node_update(p, n);
		return;
	}
	if (!p->ring_size)
		return;
	slot = p->ring_next;
	p->ring_next = slot + 1 == p->ring_size ? 0 : slot + 1;
	p->ring_pos++;
	p->ring[slot] = id;
	k->link.prev = slot;
	k->flags |= MF_TOKEN;
}

static inline bool has_token(const struct hs_policy *p, uint32_t id,
			     const struct mglru_folio *k)
{
	if (p->shadow_kernel)
		return fl(k, MF_TOKEN);
	return fl(k, MF_TOKEN) && p->ring[k->link.prev] == id;
}

/* The token of a non-resident key goes (refault, insert, drop). */
static __hot_inline void drop_token(struct hs_policy *p, uint32_t id, struct mglru_folio *k)
{
	if (p->shadow_kernel && fl(k, MF_TOKEN)) {
		uint32_t n = p->node_of[id];

		p->nodes[n].shadows--;
		node_update(p, n);
	}
	k->flags &= (uint8_t)~MF_TOKEN;
}

/* Live tokens: O(slots) or O(nodes), for check() and report(). */
static uint64_t nr_tokens(const struct hs_policy *p)
{
	uint64_t n = 0, i;

	if (p->shadow_kernel) {
		for (i = 0; i < p->nr_nodes; i++)
			n += p->nodes[i].shadows;
		return n;
	}
	for (i = 0; i < HS_MIN(p->ring_pos, p->ring_size); i++) {
		uint32_t id = p->ring[i];
		const struct mglru_folio *k = mglru_cpriv(hs_env_folio(p->env, id));

		n += fl(k, MF_TOKEN) && k->link.prev == i;
	}
	return n;
}

/* Forget everything of a folio's life but its type and its token. */
static __hot_inline void end_life(struct mglru_folio *k)
{
	k->gen = 0;
	k->lgen = 0;
	k->flags &= MF_ANON | MF_YOUNG | MF_TOKEN;
	k->more &= MX_TOKEN_REFS | MX_TOKEN_WS;
}

/* A folio off the lists leaves memory: lru_gen_eviction() and the shadow token. */
static __hot_inline void evict_folio(struct hs_policy *p, uint32_t id, struct mglru_folio *k,
				     int t)
{
	k->stamp = (uint32_t)p->min_seq[t];
	if (!(k->flags & (MF_REFERENCED | MF_WORKINGSET)) && !refs_of(k)) {
		/* no FD history, no workingset: tier 0, token refs 0 (common) */
		p->evicted[t][0]++;
		p->sum_evicted[0]++;
		k->more &= (uint8_t)~(MX_TOKEN_REFS | MX_TOKEN_WS);
	} else {
		unsigned int refs = folio_refs(p, k);
		unsigned int tier = refs_tier(p, refs, fl(k, MF_WORKINGSET));

		p->evicted[t][tier]++;
		p->sum_evicted[tier]++;
		set_token_refs(k, refs ? refs - 1 : 0);
		if (is_p614(p) ? k->flags & MF_WORKINGSET : refs != 0)
			k->more |= MX_TOKEN_WS;
		else
			k->more &= (uint8_t)~MX_TOKEN_WS;
	}
	if (unlikely(k->more & (MX_SHIELD | MX_SPENT)) && p->hooks.leave)
		p->hooks.leave(p, k, true);
	end_life(k);
	node_page(p, id, -1);
	push_token(p, id, k);
}

/*
 * evict_folios(): one pass; returns how many folios it freed into victims,
 * and in *scanned the kernel's return value (folios scanned, plus one if
 * min_seq moved, or 0 once only two generations are left).
 */
static size_t evict_folios(struct hs_policy *p, struct hs_folio **victims, size_t room,
			   uint64_t *scanned)
{
	const struct hs_qctx q = hot_q(p);
	size_t i, nv = 0, nr_rej = 0;

	p->nr_iso = 0;
	*scanned = isolate_folios(p, HS_MIN(p->batch, room));
	*scanned += try_to_inc_min_seq(p);
	if (p->max_seq - evictable_min_seq(p) + 1 <= MIN_NR_GENS)
		*scanned = 0;

	/* shrink_folio_list(), in isolation order */
	for (i = 0; i < p->nr_iso; i++) {
		uint32_t id = p->iso[i];
		struct hs_folio *f = folio_in(&q, id);
		struct mglru_folio *k = mglru_priv(f);

		if (reference_check(p, id, k)) {
			p->iso[nr_rej++] = id;
			continue;
		}
		evict_folio(p, id, k, folio_type(k));
		victims[nv++] = f;
	}
	/* move_folios_to_lru(), in the same order */
	for (i = 0; i < nr_rej; i++) {
		uint32_t id = p->iso[i];

		p->rejected++;
		putback(p, id, mglru_priv(folio_at(p, id)));
	}
	p->nr_iso = 0;
	return nv;
}

/* should_run_aging() of 6.1-6.13 with exactly three generations. */
static bool young_old_unbalanced(const struct hs_policy *p)
{
	uint64_t young = 0, old = 0, total = 0, seq;
	int t;

	for (t = p->swap_eff ? LRU_GEN_ANON : LRU_GEN_FILE; t < ANON_AND_FILE; t++) {
		for (seq = p->min_seq[t]; seq <= p->max_seq; seq++) {
			uint64_t size = p->nr_pages[gen_from_seq(seq)][t];

			total += size;
			if (seq == p->max_seq)
				young += size;
			else if (seq + MIN_NR_GENS == p->max_seq)
				old += size;
		}
	}
	return young * MIN_NR_GENS > total || old * (MIN_NR_GENS + 2) < total;
}

/* The no-progress safety net: evict the oldest folio of any evictable type. */
static size_t force_evict(struct hs_policy *p, struct hs_folio **victims)
{
	uint64_t seq;
	int t;

	for (seq = evictable_min_seq(p); seq <= p->max_seq; seq++) {
		for (t = 0; t < ANON_AND_FILE; t++) {
			struct hs_qlist *l = &p->folios[gen_from_seq(seq)][t];
			uint32_t id = l->head;
			struct mglru_folio *k;

			if (!type_evictable(p, t) || seq < p->min_seq[t] || id == HS_NIL)
				continue;
			k = mglru_priv(folio_at(p, id));
			del_folio(p, id, k, t);
			evict_folio(p, id, k, t);
			victims[0] = folio_at(p, id);
			p->forced++;
			return 1;
		}
	}
	return 0;
}

/* reclaim_loop=spec: POLICIES.md 1.9's Reclaim(). */
static size_t reclaim_spec(struct hs_policy *p, struct hs_folio **victims, size_t goal,
			   size_t max)
{
	int priority = DEF_PRIORITY;
	unsigned int stall = 0;
	size_t nv = 0;

	while (nv < goal && nr_on_lists(p, LRU_GEN_ANON) + nr_on_lists(p, LRU_GEN_FILE)) {
		uint64_t n = p->max_seq - evictable_min_seq(p) + 1, scanned;
		size_t got;

		if (++stall > STALL_ROUNDS) {
			got = force_evict(p, victims + nv);
			if (!got)
				break;
			nv += got;
			stall = 0;
			continue;
		}
		if (n <= MIN_NR_GENS ||
		    (priority < DEF_PRIORITY && n == MIN_NR_GENS + 1 &&
		     (is_p614(p) || young_old_unbalanced(p)))) {
			age(p);
			continue;
		}
		got = evict_folios(p, victims + nv, max - nv, &scanned);
		nv += got;
		if (got)
			stall = 0;
		else if (priority > 0)
			priority--;
	}
	return nv;
}

/* Pages in the evictable window (lruvec_is_sizable()'s total). */
static uint64_t window_pages(const struct hs_policy *p)
{
	uint64_t size = 0, seq;
	int t;

	for (t = 0; t < ANON_AND_FILE; t++) {
		if (!type_evictable(p, t))
			continue;
		for (seq = p->min_seq[t]; seq <= p->max_seq; seq++)
			size += p->nr_pages[gen_from_seq(seq)][t];
	}
	return size;
}

/*
 * get_nr_to_scan() of 6.1-6.13 for memcg reclaim: the folios to scan at
 * @priority, or 0 after it aged (or found nothing to age or scan): the
 * caller ends its priority pass.  A window that must age (2 gens) or should
 * (3 gens: p614 always, p61/p68 when the youngest gen holds more than half
 * of the pages or the oldest less than a quarter) ages, except at
 * DEF_PRIORITY, which tries to get away without aging.
 */
static uint64_t get_nr_to_scan(struct hs_policy *p, int priority)
{
	uint64_t n = p->max_seq - evictable_min_seq(p) + 1;
	bool must = n <= MIN_NR_GENS;
	bool better = !must && n == MIN_NR_GENS + 1 && (is_p614(p) || young_old_unbalanced(p));

	if (!must && !better)
		return window_pages(p) >> priority;
	if (priority == DEF_PRIORITY)
		return must ? 0 : window_pages(p) >> priority;
	age(p);
	return 0;
}

/*
 * reclaim_loop=auto on a recording: the kernel's loop below, unless none of
 * the recording's memory cgroup reclaims freed more than RECLAIM_BURST pages
 * (four times the goal of a page's charge: try_charge_memcg() in
 * mm/memcontrol.c reclaims nr_pages, which try_to_free_mem_cgroup_pages()
 * in mm/vmscan.c raises to SWAP_CLUSTER_MAX, 32; MGLRU's passes free up to
 * a batch of 64 past it, and the lab's reclaims without a burst stopped at
 * 92), and then spec's, one reclaim of its goal.  The MGLRU kernel runs the same stream
 * both ways from boot to boot: on the lab's ycsb-load at 8M, four reclaims a
 * boot freed more than 256 pages on two boots (710 to 798 pages swapped in;
 * this loop replays 786) and none more than 92 on two others (297 and 448;
 * spec replays 299), with the same rejections by eviction in both (README,
 * the kernel A/B lab, "Every pair again").  What sets the regime is not in
 * the stream, so the recording's reclaim sizes choose.  No reclaim
 * recorded (none traced, or a recording of another LRU, whose reclaims say
 * nothing of MGLRU's: hs_session_memcg_reclaim_max()): the kernel's loop.
 */
#define RECLAIM_BURST	128

/*
 * reclaim_loop=kernel: memcg reclaim as do_try_to_free_pages() and
 * try_to_shrink_lruvec() run it.  Each priority from 12 down is one
 * try_to_shrink_lruvec(): before every eviction pass, get_nr_to_scan() either
 * ages and ends the pass, or says how many folios the pass may scan in all
 * ((pages in the window) >> priority, recomputed each time); passes run
 * until that many were scanned: memcg reclaim does not stop at its goal
 * within a priority (should_abort_scan() is false for it).  The priority
 * drops while the goal is not met; below 0, try_charge() retries from 12
 * (16 times, then the safety net).  A pass at a low priority may free far
 * past the goal (the lab's 6.12 freed up to 902 of a memcg's 2,048 pages in
 * one reclaim on ycsb-load, after passes that found every folio referenced
 * had driven the priority down), so the policy asks the driver for room for
 * every resident folio (HS_POLICY_BULK_RECLAIM); @max only guards the array.
 * Until 2026-12-03 the room was 64, which cut those passes short.
 */
static size_t reclaim_kernel(struct hs_policy *p, struct hs_folio **victims, size_t goal,
			     size_t max)
{
	int priority = DEF_PRIORITY;
	unsigned int retries = 0;
	size_t nv = 0;

	while (nv < goal && nr_on_lists(p, LRU_GEN_ANON) + nr_on_lists(p, LRU_GEN_FILE)) {
		uint64_t scanned = 0;

		p->walk_live = false;	/* each priority is one lru_gen_shrink_lruvec() */
		while (nv < max) {
			uint64_t nr_to_scan = get_nr_to_scan(p, priority), delta;

			if (!nr_to_scan)
				break;
			nv += evict_folios(p, victims + nv, max - nv, &delta);
			if (!delta)
				break;
			scanned += delta;
			if (scanned >= nr_to_scan)
				break;
		}
		if (nv >= goal || nv >= max)
			break;
		if (--priority < 0) {
			priority = DEF_PRIORITY;
			if (++retries > MAX_RECLAIM_RETRIES) {
				nv += force_evict(p, victims + nv);
				retries = 0;
			}
		}
	}
	return nv;
}

/**
 * hs_mglru_evict() - one reclaim: age and evict until the goal is freed
 * @p: the lruvec
 * @incoming: the missed folio (not resident; plays no part)
 * @a: the access
 * @need: units the driver needs
 * @victims: receives the evicted folios, in the order they were freed
 * @max: room in @victims
 *
 * Return: the number of victims, at least 1 while anything is resident.
 */
size_t hs_mglru_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
		      size_t need, struct hs_folio **victims, size_t max)
{
	size_t nv, goal = HS_MIN(HS_MAX(need, (size_t)p->reclaim), max);

	(void)incoming;
	(void)a;
	p->walk_live = false;
	p->swap_eff = p->swappiness;
	if (!p->swap_eff && !nr_on_lists(p, LRU_GEN_FILE))
		p->swap_eff = 1;	/* the kernel would OOM; reclaim anon instead */
	if (p->kernel_loop)
		nv = reclaim_kernel(p, victims, goal, max);
	else
		nv = reclaim_spec(p, victims, goal, max);
	p->swap_eff = p->swappiness;
	if (p->shadow_kernel)
		shrink_shadows(p);	/* shrink_slab() after the lruvec */
	return nv;
}

/* ---- hooks ---- */

/*
 * shadow=kernel: group the keys into xarray leaf nodes.  A key with an
 * address (a recorded session's, lib/neigh.h) is in the node of (its file or
 * process, page >> 6): a file page's mapping index, as the page cache's
 * xarray has it.  Anonymous pages' shadows sit in the swap cache by swap
 * slot, which no recording keeps: those, and keys without an address, go by
 * 64 consecutive key ids instead.  Return: 0 or -ENOMEM.
 */
static int build_nodes(struct hs_policy *p)
{
	const struct hs_neigh *nb = p->env->neigh;
	uint32_t nk = p->env->nr_keys, i, n = 0, at = 0;
	uint64_t last = UINT64_MAX;

	p->node_of = malloc((nk ? nk : 1) * sizeof(*p->node_of));
	p->node_keys = malloc((nk ? nk : 1) * sizeof(*p->node_keys));
	p->node_first = malloc(((size_t)nk + 1) * sizeof(*p->node_first));
	if (!p->node_of || !p->node_keys || !p->node_first)
		return -ENOMEM;
	if (nb && nb->nr_addr) {
		uint32_t sp = HS_NEIGH_NONE;

		for (i = 0; i < nb->nr_addr; i++) {
			uint32_t id = nb->order[i];
			uint64_t idx = nb->page[id] >> SHADOW_NODE_SHIFT;

			if (nb->space[id] != sp || idx != last) {
				p->node_first[n++] = at;
				sp = nb->space[id];
				last = idx;
			}
			p->node_of[id] = n - 1;
			p->node_keys[at++] = id;
		}
		last = UINT64_MAX;
	}
	for (i = 0; i < nk; i++) {
		if (nb && nb->nr_addr && nb->pos[i] != HS_NEIGH_NOPOS)
			continue;
		if (i >> SHADOW_NODE_SHIFT != last) {
			p->node_first[n++] = at;
			last = i >> SHADOW_NODE_SHIFT;
		}
		p->node_of[i] = n - 1;
		p->node_keys[at++] = i;
	}
	p->node_first[n] = at;
	p->nr_nodes = n;
	p->nodes = calloc(n ? n : 1, sizeof(*p->nodes));
	if (!p->nodes)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p->nodes[i].link.prev = p->nodes[i].link.next = HS_NIL;
	p->nq.base = (char *)p->nodes;
	p->nq.stride = sizeof(*p->nodes);
	p->nq.off = offsetof(struct mglru_snode, link);
	hs_q_init(&p->shadow_lru);
	p->max_nodes = p->env->capacity >> (SHADOW_NODE_SHIFT - 3);
	return 0;
}

/*
 * walk=bloom: number the page tables, (space, page >> 9) of the keys with an
 * address; keys without one have none (HS_NIL) and are always walked.
 * Return: 0 or -ENOMEM.
 */
static int build_tables(struct hs_policy *p)
{
	const struct hs_neigh *nb = p->env->neigh;
	uint32_t nk = p->env->nr_keys, i, n = 0, sp = HS_NEIGH_NONE;
	uint64_t last = UINT64_MAX;

	p->table_of = malloc((nk ? nk : 1) * sizeof(*p->table_of));
	if (!p->table_of)
		return -ENOMEM;
	for (i = 0; i < nk; i++)
		p->table_of[i] = HS_NIL;
	for (i = 0; i < nb->nr_addr; i++) {
		uint32_t id = nb->order[i];
		uint64_t tb = nb->page[id] >> PMD_SHIFT_PAGES;

		if (nb->space[id] != sp || tb != last) {
			n++;
			sp = nb->space[id];
			last = tb;
		}
		p->table_of[id] = n - 1;
	}
	p->nr_tables = n;
	p->filter = calloc(n ? n : 1, sizeof(*p->filter));
	p->tyoung = calloc(n ? n : 1, sizeof(*p->tyoung));
	p->twalked = malloc((n ? n : 1) * sizeof(*p->twalked));
	return p->filter && p->tyoung && p->twalked ? 0 : -ENOMEM;
}

static int mglru_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
			struct hs_policy **out)
{
	return hs_mglru_create(env, ps, NULL, out);
}

/**
 * hs_mglru_create() - set up an lruvec for mglru or a patch on it
 * @env: the driver's description of the run
 * @ps: parameters
 * @hooks: the patch's hook points (copied), or NULL for plain mglru
 * @out: the new policy (patch NULL, for the caller to set)
 *
 * Return: 0, -ENOMEM, or -EINVAL if the driver's record layout is not the
 * one lib/sim.c documents.
 */
int hs_mglru_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		    const struct hs_mglru_hooks *hooks, struct hs_policy **out)
{
	uint64_t cap = env->capacity;
	struct hs_policy *p;
	double shadows;
	unsigned int scale, loop;
	bool recorded;
	int t, g;

	if (env->stride != MGLRU_STRIDE || env->priv_off != sizeof(struct hs_folio))
		return -EINVAL;		/* not the layout hot_q() assumes */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	p->q.base = env->folios;
	p->q.stride = env->stride;
	p->q.off = env->priv_off + offsetof(struct mglru_folio, link);
	for (g = 0; g < MAX_NR_GENS; g++)
		for (t = 0; t < ANON_AND_FILE; t++)
			hs_q_init(&p->folios[g][t]);
	p->max_seq = MIN_NR_GENS + 1;	/* lru_gen_init_lruvec() */

	/* p61 and p63 share everything but look-around */
	static const enum mglru_profile profiles[] = { MGLRU_P61, MGLRU_P61, MGLRU_P68,
						       MGLRU_P614 };
	unsigned int prof = hs_param_enum(ps, "profile");

	p->profile = profiles[prof < ARRAY_SIZE(profiles) ? prof : 2];
	p->la61 = prof == 0;
	p->swappiness = (unsigned int)hs_param_u64(ps, "swappiness");
	p->swap_eff = p->swappiness;
	p->batch = (size_t)hs_param_u64(ps, "batch");
	p->reclaim = hs_param_u64(ps, "reclaim");
	scale = hs_param_enum(ps, "scale");
	if (scale == MGLRU_SCALE_AUTO)	/* a memcg's reclaim is SWAP_CLUSTER_MAX at any size */
		scale = env->neigh && env->neigh->nr_addr ? MGLRU_SCALE_FALSE : MGLRU_SCALE_TRUE;
	if (scale == MGLRU_SCALE_TRUE && cap < SCALE_PAGES) {
		p->batch = (size_t)HS_MIN((uint64_t)p->batch, HS_MAX(cap / 512, 1));
		p->reclaim = HS_MIN(p->reclaim, HS_MAX(cap / 1024, 1));
	}
	p->max_scan = (uint64_t)p->batch * 64;	/* MAX_LRU_BATCH = 64 * MIN_LRU_BATCH */
	p->floor = hs_param_u64(ps, "refault_floor");
	p->lookaround = (enum mglru_lookaround)hs_param_enum(ps, "lookaround");
	if (p->lookaround == MGLRU_LA_AUTO)
		p->lookaround = env->neigh && env->neigh->nr_addr ? MGLRU_LA_ADDR : MGLRU_LA_OFF;
	p->kswapd = hs_param_enum(ps, "reclaimer") == MGLRU_RECLAIMER_KSWAPD;
	p->active_clears_refs = hs_param_bool(ps, "activate_clears_refs");
	p->tlb = hs_param_bool(ps, "tlb");
	p->pageout = (enum mglru_pageout)hs_param_enum(ps, "pageout");
	if (p->pageout == MGLRU_PAGEOUT_PROFILE)
		p->pageout = is_p614(p) ? MGLRU_PAGEOUT_IGNORE_REFS : MGLRU_PAGEOUT_RECHECK;
	p->recheck_window = hs_param_u64(ps, "recheck_window");
	p->cold = (enum mglru_cold)hs_param_enum(ps, "cold");
	/*
	 * reclaim_loop and walk: auto (0) follows the kernel where the session
	 * is a recording; the loop, as the recording's reclaims ran
	 * (RECLAIM_BURST).
	 */
	recorded = env->neigh && env->neigh->nr_addr;
	loop = hs_param_enum(ps, "reclaim_loop");
	p->kernel_loop = loop == 2 ||
			 (loop == 0 && recorded && (!env->memcg_reclaim_max ||
						    env->memcg_reclaim_max > RECLAIM_BURST));
	p->bloom = hs_param_enum(ps, "walk") != 1 && recorded;	/* bloom needs addresses */
	p->shadow_kernel = hs_param_enum(ps, "shadow") == 0;
	shadows = hs_param_double(ps, "shadow_factor") * (double)cap;
	p->ring_size = shadows >= (double)env->nr_keys ? env->nr_keys : (uint64_t)shadows;
	if (p->shadow_kernel)
		p->ring_size = 0;
	if (hooks)
		p->hooks = *hooks;

	p->young_cap = (size_t)HS_MIN((uint64_t)env->nr_keys, cap > UINT32_MAX ? UINT32_MAX :
				      2 * cap) + 1;
	p->young = malloc(p->young_cap * sizeof(*p->young));
	p->iso = malloc(p->batch * sizeof(*p->iso));
	p->ring = malloc((p->ring_size ? p->ring_size : 1) * sizeof(*p->ring));
	if (p->recheck_window && p->pageout == MGLRU_PAGEOUT_RECHECK)
		p->last_access = calloc(env->nr_keys ? env->nr_keys : 1,
					sizeof(*p->last_access));
	if ((p->shadow_kernel && build_nodes(p)) || (p->bloom && build_tables(p))) {
		hs_mglru_destroy(p);
		return -ENOMEM;
	}
	if (!p->young || !p->iso || !p->ring ||
	    (p->recheck_window && p->pageout == MGLRU_PAGEOUT_RECHECK && !p->last_access)) {
		hs_mglru_destroy(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

/**
 * hs_mglru_destroy() - free an lruvec
 * @p: the policy, or NULL
 */
void hs_mglru_destroy(struct hs_policy *p)
{
	if (!p)
		return;
	free(p->young);
	free(p->iso);
	free(p->ring);
	free(p->node_of);
	free(p->node_keys);
	free(p->node_first);
	free(p->nodes);
	free(p->last_access);
	free(p->table_of);
	free(p->filter);
	free(p->tyoung);
	free(p->twalked);
	free(p);
}

/* Common to every access: a patch's access hook and the recheck clock. */
static inline void touch(struct hs_policy *p, struct hs_folio *f, struct mglru_folio *k,
			 const struct hs_access *a)
{
	p->accesses++;
	if (unlikely(k->more & MX_SPENT) && p->hooks.access)
		p->hooks.access(p, k);
	if (unlikely(p->last_access != NULL))
		p->last_access[hs_folio_id(p->env, f)] = (uint32_t)a->seq;
	if (a->write)
		k->flags &= (uint8_t)~MF_SWAPCACHE;
}

/**
 * hs_mglru_hit() - an access to a resident folio
 * @p: the lruvec
 * @f: the folio
 * @a: the access: PT sets the accessed bit, FD marks the folio accessed
 */
void hs_mglru_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct mglru_folio *k = mglru_priv(f);

	touch(p, f, k, a);
	if (a->channel == HS_CH_FD)
		inc_refs(p, k);
	/*
	 * No recency: the walk and rmap skip the VMA.  A translation still
	 * cached: the aging walk and rmap cleared the bit without a flush, and
	 * only a page walk sets it again (lib/sim.c, "TLB model").
	 */
	else if (!a->norecency && !(a->tlb_hit && p->tlb))
		set_abit(p, hs_folio_id(p->env, f), k);
}

/**
 * hs_mglru_insert() - a missed folio enters the lruvec
 * @p: the lruvec
 * @f: the folio (after refault(), if it had a shadow entry)
 * @a: the access: PT is a fault (PG_active), FD a page-cache fill, READAHEAD
 *     a readahead add: no access, so neither active nor referenced
 *     (lru_gen_folio_seq() puts it where an FD fill goes, the oldest
 *     generation, or the second oldest if the refault made it workingset)
 */
void hs_mglru_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct mglru_folio *k = mglru_priv(f);
	bool anon = a->type == HS_TYPE_ANON;

	drop_token(p, a->key, k);	/* used by refault(), or none (lib/sim.c always calls it) */
	node_page(p, a->key, 1);
	if (fl(k, MF_ANON) != anon) {
		set_fl(k, MF_ANON, anon);
		k->flags &= (uint8_t)~MF_SWAPCACHE;
	}
	/* folio_add_lru() in a fault of a VMA with recency (lru_gen_enter_fault()) */
	set_fl(k, MF_ACTIVE, a->channel == HS_CH_PT && !a->norecency);
	add_folio(p, hs_folio_id(p->env, f), k);
	if (a->channel == HS_CH_READAHEAD)
		return;				/* nobody touched it yet */
	touch(p, f, k, a);
	if (a->channel == HS_CH_FD)
		inc_refs(p, k);			/* filemap_read() marks it accessed */
	else if (!a->norecency)
		set_abit(p, hs_folio_id(p->env, f), k);		/* the fault's own access */
}

/**
 * hs_mglru_refault() - lru_gen_refault(): a miss on a folio with a shadow entry
 * @p: the lruvec
 * @f: the folio, not resident yet
 * @a: the access (PT: in a fault)
 * @distance: accesses since the eviction (unused: MGLRU measures generations)
 */
void hs_mglru_refault(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a,
		      uint64_t distance)
{
	struct mglru_folio *k = mglru_priv(f);
	int t = a->type == HS_TYPE_ANON ? LRU_GEN_ANON : LRU_GEN_FILE;
	bool fault = a->channel == HS_CH_PT && !a->norecency;	/* lru_gen_in_fault() */
	unsigned int refs, tier;
	bool recent;

	(void)distance;
	if (t == LRU_GEN_ANON && !a->write)
		k->flags |= MF_SWAPCACHE;	/* swapped in, clean */
	if (!has_token(p, a->key, k))
		return;
	drop_token(p, a->key, k);
	if (folio_type(k) != t)
		return;			/* another namespace: no shadow there */
	p->ws_refault[t]++;
	if (is_p614(p)) {
		uint32_t max = (uint32_t)p->max_seq;

		recent = (max >= k->stamp ? max - k->stamp : k->stamp - max) < MAX_NR_GENS;
	} else {
		recent = k->stamp == (uint32_t)p->min_seq[t];
	}
	if (!recent)
		return;

	if (is_p614(p)) {
		refs = token_refs_of(k) + 1u;
		tier = refs_tier(p, refs, mx(k, MX_TOKEN_WS));
		p->refaulted[t][tier]++;
		p->sum_refaulted[tier]++;
		if (fault)
			p->ws_activate[t]++;
		if (mx(k, MX_TOKEN_WS)) {
			k->flags |= MF_WORKINGSET;
			p->ws_restore[t]++;
		} else {
			set_refs(k, refs - 1);
		}
		return;
	}
	refs = token_refs_of(k) + mx(k, MX_TOKEN_WS);
	tier = refs_tier(p, refs, false);
	p->refaulted[t][tier]++;
	p->sum_refaulted[tier]++;
	p->ws_activate[t]++;
	if (p->profile == MGLRU_P61 ? fault || refs == MAX_NR_TIERS :
				      fault || refs >= MAX_NR_TIERS - 1) {
		if (p->profile == MGLRU_P68)
			set_refs(k, LRU_REFS_MASK);
		k->flags |= MF_WORKINGSET;
		p->ws_restore[t]++;
	}
}

/**
 * hs_mglru_hint() - MADV_PAGEOUT or MADV_COLD on a resident folio
 * @p: the lruvec
 * @f: the folio
 * @a: the hint
 *
 * Return: HS_HINT_EVICT for a PAGEOUT the model carries out, else HS_HINT_KEEP.
 */
enum hs_hint_verdict hs_mglru_hint(struct hs_policy *p, struct hs_folio *f,
				   const struct hs_access *a)
{
	struct mglru_folio *k = mglru_priv(f);
	int t = folio_type(k);

	if (a->channel == HS_CH_PAGEOUT) {
		if (p->pageout == MGLRU_PAGEOUT_IGNORE)
			return HS_HINT_KEEP;
		if (p->pageout == MGLRU_PAGEOUT_RECHECK && p->last_access &&
		    (uint32_t)((uint32_t)a->seq - 1u - p->last_access[hs_folio_id(p->env, f)]) <
		    p->recheck_window)
			return HS_HINT_KEEP;
		return HS_HINT_EVICT;
	}
	if (a->channel != HS_CH_COLD)
		return HS_HINT_KEEP;

	/*
	 * madvise_cold_or_pageout_pte_range(): young bit and PG_referenced go.
	 * folio_deactivate() from inside the kernel (a->deactivate: DAMON's
	 * cold action) walks no page table: the young bit stays, and the
	 * generic "eviction end" (cold=oldest) is a madvise() model only.
	 */
	k->flags &= (uint8_t)~(a->deactivate ? MF_REFERENCED : MF_ABIT | MF_REFERENCED);
	if (p->cold == MGLRU_COLD_OLDEST && !a->deactivate) {
		unsigned int gen = gen_from_seq(p->min_seq[t]);

		set_gen(p, k, t, gen);
		move_entry(p, hs_folio_id(p->env, f), k, t, gen, EVICT_END);
		return HS_HINT_KEEP;
	}
	if (is_p614(p)) {
		/* lru_gen_clear_refs(): nothing to move if already the oldest */
		set_refs(k, 0);
		k->flags &= (uint8_t)~MF_WORKINGSET;
		if (k->gen - 1u == gen_from_seq(p->min_seq[t]))
			return HS_HINT_KEEP;
	}
	/* lru_deactivate(): delete, clear PG_active/PG_referenced, add */
	del_folio(p, hs_folio_id(p->env, f), k, t);
	add_folio(p, hs_folio_id(p->env, f), k);
	return HS_HINT_KEEP;
}

/**
 * hs_mglru_remove() - a drop, or the eviction a PAGEOUT hint was granted
 * @p: the lruvec
 * @f: the folio (a drop: resident or not)
 * @why: HS_REMOVE_HINT leaves a shadow token, HS_REMOVE_DROP forgets the key
 */
void hs_mglru_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	struct mglru_folio *k = mglru_priv(f);
	int t = folio_type(k);

	if (hs_folio_is_resident(f)) {
		del_folio(p, hs_folio_id(p->env, f), k, t);
		if (why == HS_REMOVE_HINT) {
			/* reclaim_pages(): folio_isolate_lru() keeps the refs */
			k->flags &= (uint8_t)~(MF_ABIT | MF_REFERENCED);
			evict_folio(p, hs_folio_id(p->env, f), k, t);
			return;
		}
		if ((k->more & (MX_SHIELD | MX_SPENT)) && p->hooks.leave)
			p->hooks.leave(p, k, false);
		end_life(k);
		node_page(p, hs_folio_id(p->env, f), -1);
		return;
	}
	if (why == HS_REMOVE_DROP)
		drop_token(p, hs_folio_id(p->env, f), k);
}

/* ---- invariants, dump, report ---- */

/* Is @gen the list index of a live generation of type t? */
static bool gen_is_live(const struct hs_policy *p, int t, unsigned int gen)
{
	uint64_t seq;

	for (seq = p->min_seq[t]; seq <= p->max_seq; seq++)
		if (gen_from_seq(seq) == gen)
			return true;
	return false;
}

/*
 * shadow=kernel: each node's counts are its keys' (resident; non-resident
 * with a token), and the shadow LRU holds exactly the shadow-only nodes.
 */
static int check_nodes(const struct hs_policy *p)
{
	uint64_t on = 0;
	uint32_t n, i, prev = HS_NIL;

	for (n = 0; n < p->nr_nodes; n++) {
		const struct mglru_snode *s = &p->nodes[n];
		unsigned int pages = 0, shadows = 0;

		for (i = p->node_first[n]; i < p->node_first[n + 1]; i++) {
			uint32_t id = p->node_keys[i];
			const struct hs_folio *f = hs_env_folio(p->env, id);

			if (p->node_of[id] != n)
				return -EUCLEAN;
			if (hs_folio_is_resident(f))
				pages++;
			else
				shadows += fl(mglru_cpriv(f), MF_TOKEN);
		}
		if (s->pages != pages || s->shadows != shadows ||
		    !!s->on_lru != (shadows && !pages))
			return -EUCLEAN;
		on += s->on_lru;
	}
	for (n = p->shadow_lru.head, i = 0; n != HS_NIL; prev = n, n = p->nodes[n].link.next) {
		if (n >= p->nr_nodes || !p->nodes[n].on_lru || p->nodes[n].link.prev != prev ||
		    ++i > on)
			return -EUCLEAN;
	}
	return i != on || on != p->shadow_lru.nr || p->shadow_lru.tail != prev ? -EUCLEAN : 0;
}

/**
 * hs_mglru_check() - POLICIES.md 1.9's invariants and the lists' integrity
 * @p: the lruvec
 *
 * Return: 0 or -EUCLEAN.
 */
int hs_mglru_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t nr[MAX_NR_GENS][ANON_AND_FILE] = { { 0 } };
	uint64_t on_lists = 0, resident = 0, tokens = 0, young = 0;
	uint32_t id, i;
	int g, t;

	for (t = 0; t < ANON_AND_FILE; t++) {
		uint64_t n = nr_gens(p, t);

		if (p->min_seq[t] > p->max_seq || n < MIN_NR_GENS || n > MAX_NR_GENS)
			return -EUCLEAN;
	}
	if (!is_p614(p) && p->min_seq[LRU_GEN_ANON] > p->min_seq[LRU_GEN_FILE])
		return -EUCLEAN;	/* 6.1-6.13 never let anon pass file */
	for (g = 0; g < MAX_NR_GENS; g++) {
		for (t = 0; t < ANON_AND_FILE; t++) {
			uint32_t prev = HS_NIL;
			uint64_t n = 0;

			for (id = p->folios[g][t].head; id != HS_NIL; id = hs_q_next(&p->q, id)) {
				const struct hs_folio *f;
				const struct mglru_folio *k;

				if (id >= env->nr_keys || ++n > p->folios[g][t].nr)
					return -EUCLEAN;
				f = hs_env_folio(env, id);
				k = mglru_cpriv(f);
				if (!hs_folio_is_resident(f) || !k->gen || k->lgen != g ||
				    folio_type(k) != t || hs_q_prev(&p->q, id) != prev)
					return -EUCLEAN;
				prev = id;
			}
			if (n != p->folios[g][t].nr || p->folios[g][t].tail != prev)
				return -EUCLEAN;
			if (n && !gen_is_live(p, t, (unsigned int)g))
				return -EUCLEAN;
			on_lists += n;
		}
	}
	tokens = nr_tokens(p);
	if (p->shadow_kernel ? check_nodes(p) : tokens > p->ring_size)
		return -EUCLEAN;
	for (i = 0; i < p->nr_young; i++) {
		if (p->young[i] >= env->nr_keys ||
		    !fl(mglru_cpriv(hs_env_folio(env, p->young[i])), MF_YOUNG))
			return -EUCLEAN;
	}
	for (i = 0; i < env->nr_keys; i++) {
		const struct hs_folio *f = hs_env_folio(env, i);
		const struct mglru_folio *k = mglru_cpriv(f);

		young += fl(k, MF_YOUNG);
		if (!hs_folio_is_resident(f)) {
			/* the leave hook has had its turn: no patch bit outlives a life */
			if (k->gen || fl(k, MF_ABIT) || mx(k, MX_SHIELD) || mx(k, MX_SPENT) || fl(k, MF_ACTIVE))
				return -EUCLEAN;
			if (!p->shadow_kernel && fl(k, MF_TOKEN) && k->link.prev >= p->ring_size)
				return -EUCLEAN;
			tokens -= has_token(p, i, k);
			continue;
		}
		resident++;
		if (fl(k, MF_TOKEN) || !k->gen || fl(k, MF_ACTIVE) || (fl(k, MF_ABIT) && !fl(k, MF_YOUNG)))
			return -EUCLEAN;
		if (!gen_is_live(p, folio_type(k), k->gen - 1u))
			return -EUCLEAN;	/* min_seq[t] <= seq <= max_seq */
		nr[k->gen - 1][folio_type(k)]++;
	}
	if (tokens || young != p->nr_young || resident != on_lists)
		return -EUCLEAN;
	for (g = 0; g < MAX_NR_GENS; g++)
		for (t = 0; t < ANON_AND_FILE; t++)
			if (nr[g][t] != p->nr_pages[g][t])
				return -EUCLEAN;
	return 0;
}

/**
 * hs_mglru_dump() - the lruvec as the debugfs lru_gen file would show it, and more
 * @p: the lruvec
 * @fp: where to write
 */
void hs_mglru_dump(const struct hs_policy *p, FILE *fp)
{
	static const char *const names[] = { "p61", "p68", "p614" };
	uint64_t seq;
	int t;

	fprintf(fp, "mglru %s: max_seq %" PRIu64 " min_seq anon %" PRIu64 " file %" PRIu64
		" agings %" PRIu64 "\n", names[p->profile], p->max_seq,
		p->min_seq[LRU_GEN_ANON], p->min_seq[LRU_GEN_FILE], p->agings);
	for (seq = HS_MIN(p->min_seq[0], p->min_seq[1]); seq <= p->max_seq; seq++) {
		unsigned int g = gen_from_seq(seq);

		fprintf(fp, "  seq %" PRIu64 " (gen %u):", seq, g);
		for (t = 0; t < ANON_AND_FILE; t++) {
			uint32_t id;

			fprintf(fp, " %s %" PRIu64 " [", t ? "file" : "anon", p->nr_pages[g][t]);
			for (id = p->folios[g][t].head; id != HS_NIL;
			     id = hs_q_next(&p->q, id)) {
				const struct mglru_folio *k =
					mglru_cpriv(hs_env_folio(p->env, id));

				fprintf(fp, " %" PRIu32 "%s/g%u/r%u%s%s%s", id,
					fl(k, MF_ABIT) ? "*" : "", k->gen - 1u, refs_of(k),
					fl(k, MF_REFERENCED) ? "R" : "", fl(k, MF_WORKINGSET) ? "W" : "",
					mx(k, MX_SHIELD) ? "S" : "");
			}
			fprintf(fp, " ]");
		}
		fputc('\n', fp);
	}
}

/**
 * hs_mglru_report() - end-of-run numbers of the lruvec
 * @p: the lruvec
 * @m: the metrics to append to
 */
void hs_mglru_report(const struct hs_policy *p, struct hs_metrics *m)
{
	char name[32];
	int tier;

	hs_metrics_add(m, "mglru.agings", (double)p->agings);
	hs_metrics_add(m, "mglru.max_seq", (double)p->max_seq);
	hs_metrics_add(m, "mglru.min_seq_anon", (double)p->min_seq[LRU_GEN_ANON]);
	hs_metrics_add(m, "mglru.min_seq_file", (double)p->min_seq[LRU_GEN_FILE]);
	hs_metrics_add(m, "mglru.promotions", (double)p->promotions);
	hs_metrics_add(m, "mglru.sort_promoted", (double)p->sort_promoted);
	hs_metrics_add(m, "mglru.tier_protected", (double)p->tier_protected);
	hs_metrics_add(m, "mglru.rejected", (double)p->rejected);
	hs_metrics_add(m, "mglru.pgscan", (double)p->pgscan);
	hs_metrics_add(m, "mglru.pgrefill", (double)p->pgrefill);
	hs_metrics_add(m, "mglru.shadow_tokens", (double)nr_tokens(p));
	hs_metrics_add(m, "mglru.shadow_nodes_freed", (double)p->nodes_freed);
	hs_metrics_add(m, "mglru.forced", (double)p->forced);
	hs_metrics_add(m, "mglru.kernel_loop", p->kernel_loop ? 1.0 : 0.0);
	hs_metrics_add(m, "mglru.lookaround_young", (double)p->la_young);
	hs_metrics_add(m, "mglru.walk_skipped", (double)p->walk_skipped);
	hs_metrics_add(m, "mglru.workingset_refault",
		       (double)(p->ws_refault[0] + p->ws_refault[1]));
	hs_metrics_add(m, "mglru.workingset_activate",
		       (double)(p->ws_activate[0] + p->ws_activate[1]));
	hs_metrics_add(m, "mglru.workingset_restore",
		       (double)(p->ws_restore[0] + p->ws_restore[1]));
	if (p->patch)
		return;	/* HS_METRICS_MAX leaves no room for these and a patch's own */
	for (tier = 0; tier < MAX_NR_TIERS; tier++) {
		/* the PID controller's inputs over the whole run (lru_gen_full's columns) */
		snprintf(name, sizeof(name), "mglru.evicted_tier%d", tier);
		hs_metrics_add(m, name, (double)p->sum_evicted[tier]);
		snprintf(name, sizeof(name), "mglru.refaulted_tier%d", tier);
		hs_metrics_add(m, name, (double)p->sum_refaulted[tier]);
		snprintf(name, sizeof(name), "mglru.protected_tier%d", tier);
		hs_metrics_add(m, name, (double)p->sum_protected[tier]);
	}
}

const struct hs_policy_ops hs_policy_mglru = {
	.abi		= HS_POLICY_ABI,
	.name		= "mglru",
	.summary	= "Linux multi-gen LRU: generations, tiers, PID (6.1 and later)",
	.params		= mglru_params,
	.folio_priv	= sizeof(struct mglru_folio),
	.flags		= HS_POLICY_ACCESSED_BIT | HS_POLICY_OWN_PAGEOUT | HS_POLICY_TLB |
			  HS_POLICY_GEN_SERIES | HS_POLICY_BULK_RECLAIM,
	.create		= mglru_create,
	.destroy	= hs_mglru_destroy,
	.hit		= hs_mglru_hit,
	.insert		= hs_mglru_insert,
	.evict		= hs_mglru_evict,
	.remove		= hs_mglru_remove,
	.refault	= hs_mglru_refault,
	.hint		= hs_mglru_hint,
	.check		= hs_mglru_check,
	.dump		= hs_mglru_dump,
	.report		= hs_mglru_report,
};
