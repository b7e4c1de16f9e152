/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linux-2q: the kernel's classic active/inactive LRU (what runs when the
 * multi-gen LRU is off) with refault-distance workingset activation, modelled
 * as one memory cgroup whose limit is the simulated capacity.  It is the
 * reference a recorded session from a non-MGLRU kernel is replayed against.
 */

/*
 * Design
 * ======
 *
 * Specification: POLICIES.md §1b (and §2b for the madvise hints).  Kernel
 * references: mm/vmscan.c (do_try_to_free_pages, shrink_lruvec,
 * get_scan_count, shrink_inactive_list, folio_check_references,
 * shrink_active_list, inactive_is_low, lru_note_cost), mm/swap.c
 * (folio_mark_accessed, lru_activate, lru_deactivate), mm/workingset.c
 * (workingset_eviction, workingset_refault, workingset_test_recent,
 * workingset_activation) and mm/rmap.c (folio_referenced).  Only the
 * identifiers and constants come from the kernel; the code is written from
 * the specification.
 *
 *		The four lists
 *
 * One lruvec holds four lists, by type (anon = swap-backed, file = page
 * cache) and by PG_active.  New folios enter at the head of an inactive list;
 * reclaim isolates from the tails.  In the index-linked lists (lib/qlist.h)
 * the kernel's "head" (insertion end) is the qlist tail and the kernel's
 * "tail" (reclaim end) is the qlist head:
 *
 *                   insertion end (head)            reclaim end (tail)
 *   LRU_ACTIVE_ANON   [ newest ... oldest ] --shrink_active_list--.
 *        ^ ACTIVATE, refault activation, 2nd FD touch (shmem)      | deactivate:
 *        |                                                         | PG_workingset
 *   LRU_INACTIVE_ANON [ newest ... oldest ] <----------------------'
 *        ^ do_anonymous_page, swap-in  |
 *        |                             '--shrink_inactive_list--> swap out
 *                                                                 (shadow entry)
 *   LRU_ACTIVE_FILE   [ newest ... oldest ] --shrink_active_list--.
 *        ^ ACTIVATE, refault activation, 2nd FD read               |
 *        |                                                         |
 *   LRU_INACTIVE_FILE [ newest ... oldest ] <----------------------'
 *        ^ filemap_add_folio           |
 *        |                             '--shrink_inactive_list--> evict
 *                                                                 (shadow entry)
 *
 * Profiles: p61 (kernels before 6.10 with the multi-gen LRU off;
 * POLICIES.md calls 6.8-6.9 "C68") and p610 (6.10 and later, "C610", the
 * default).  They differ only in MADV_PAGEOUT (pageout=recheck vs
 * ignore-references).  Both use the v6.2+ cost form, 32 * IO + rotations.
 *
 *		Accesses (hooks ->hit() and ->insert())
 *
 * The two channels see references differently.  A file-descriptor access
 * (read(), and write() to shmem) calls folio_mark_accessed(): the first
 * touch sets PG_referenced, the second moves an inactive folio to the head
 * of its active list (pgactivate, and workingset_activation ages
 * nonresident_age); buffered writes to regular files never mark.  A
 * page-table access only sets the PTE accessed bit ("young"), which nobody
 * looks at until reclaim's folio_referenced() test-and-clears it.  The
 * per-CPU folio batches are drained at once (POLICIES.md §1b.10), so a
 * folio is on its list as soon as it is added and an activation moves it
 * immediately.
 *
 * A miss runs in the kernel's order: the charge reclaims first (->evict(),
 * which the driver calls before ->insert()), then the shadow entry is
 * looked up, then folio_add_lru().  The shadow entries used here are this
 * policy's own, not the driver's metrics table: each evicted folio keeps
 * in its private area the value of nonresident_age read at eviction (before
 * eviction's own increment) and its PG_workingset bit.  On insert,
 * workingset_refault() counts the refault, computes
 *
 *	refault distance = nonresident_age now - nonresident_age at eviction
 *
 * which is at least 1 and includes the evictions made for this very miss,
 * and compares it with the workingset size the folio competes with:
 * |active file| (+ |inactive file| for anon) (+ |active anon| and, for
 * file, |inactive anon| while swap is usable).  A refault within that
 * distance enters the active list (workingset_activate, and the age moves
 * by one); if the shadow had PG_workingset the folio keeps it and counts as
 * workingset_restore, which also charges the refault's IO to that type's
 * cost (lru_note_cost_refault).  Otherwise it enters the inactive list.  A
 * buffered write that allocates a file folio carries __GFP_WRITE: its shadow
 * is overwritten without any refault accounting.  nonresident_age advances
 * at every eviction, refault activation, FD promotion and every folio put
 * back active by reclaim, and nowhere else.
 *
 *		Reclaim (hook ->evict())
 *
 * The driver asks for room; the model is a memcg charge over the limit:
 * do_try_to_free_pages() with nr_to_reclaim = max(need, batch) (batch is
 * SWAP_CLUSTER_MAX = 32 by default), priorities 12 down to 0, and one
 * shrink_lruvec() per priority.  get_scan_count() splits |list| >> priority
 * by the cgroup-reclaim rules (SCAN_FILE without swap or with swappiness 0,
 * SCAN_EQUAL at priority 0, SCAN_FILE in cache_trim_mode, else SCAN_FRACT
 * with the anon_cost/file_cost weights; no file_is_tiny, which is global
 * reclaim only).  Lists are worked SWAP_CLUSTER_MAX at a time in the
 * kernel's order (IA, AA, IF, AF) until the goal is met, then one
 * proportional nudge; active lists are only shrunk when may_deactivate
 * allows (a workingset_activate since the last snapshot_refaults(), or
 * inactive_is_low()), and the anon active list gets its final ageing pass
 * when swap exists.  A reclaim that freed nothing but skipped deactivation
 * is retried with force_deactivate; a charge retries reclaim up to
 * MAX_RECLAIM_RETRIES times.
 *
 *		Flushed statistics (stats_flush)
 *
 * Not everything reclaim reads is the lists as they are.  get_scan_count()
 * and the isolation use the exact list sizes (lruvec_lru_size()), but
 * inactive_is_low(), the refault test of may_deactivate, snapshot_refaults(),
 * cache_trim_mode and workingset_test_recent() read lruvec_page_state():
 * memory-cgroup statistics that rstat folds in only when they are flushed.
 * In 6.12 (mm/memcontrol.c) reclaim and refault only flush "ratelimited", when the
 * periodic flush_memcg_stats_dwork() (every FLUSH_TIME, 2 s) is a full cycle
 * late; so in practice they see the figures of the last periodic flush, and
 * a new cgroup's zeros until the first.  Measured on 6.18 (ycsb-f through
 * zram, a memcg_flush_stats tracepoint beside the recording): no refault was
 * activated before the first periodic flush (11,885 anon refaults), 990 of
 * the 12,906 after it; shrink_active_list ran only right after flushes.
 * The model keeps a snapshot of the four list sizes and the two
 * workingset_activate counts, taken before accesses stats_phase,
 * stats_phase + stats_flush, ...; the readers above use it.  The driver
 * gives policies no clock, so the period is in accesses (2 s were 70,000 to
 * 100,000 ycsb-f accesses on the 6.18 host, about 22,000 in the lab's qemu
 * guests; the default 20,000 sits where both agree with the kernel, see
 * hsctl-policies(7)); stats_flush=0 reads the live sizes and counts.
 *
 * shrink_inactive_list() decides each isolated folio with
 * folio_check_references(): a young PTE with PG_referenced already set
 * activates it, a young PTE alone keeps it for one more trip (setting
 * PG_referenced: "look twice"), and everything else is reclaimed; an
 * unmapped folio is reclaimed even with PG_referenced (RECLAIM_CLEAN: every
 * folio is clean at reclaim time in this model).  Reclaimed folios are the
 * victims handed to the driver; anon victims are zram-style swap-outs.
 * Survivors go back to the heads of their lists, the oldest deepest.
 * shrink_active_list() clears the young bits of the folios it scans and
 * deactivates every one of them with PG_workingset (no VM_EXEC mappings are
 * known, so nothing rotates).
 *
 * Approximations (POLICIES.md §1b.10): one zone and one lruvec; mapcount
 * 0 or 1, so folio_referenced() never returns 2; no VM_EXEC, VM_LOCKED or
 * rmap contention; clean folios; unlimited zram-like swap (or none with
 * swap=false); no readahead or fault-around; no filemap_read prev_pos dedupe.
 * The driver takes at most @max victims from one ->evict() (64 by default):
 * a kernel pass that would free more stops isolating there.
 *
 *		Degenerate memories
 *
 * At capacity 1 or 2 every list is shorter than 1 << priority down to
 * priority 1 or 0, so reclaim only scans at the lowest priorities, where
 * SCAN_EQUAL takes whole lists; a young or active folio may need two or
 * three reclaim attempts (one to clear its bit or deactivate it, the next to
 * reclaim it), which the charge's retries provide.  When nothing can be
 * reclaimed at all (only anon memory with swap=false or swappiness=0) the
 * kernel would OOM-kill; here, after MAX_RECLAIM_RETRIES + 1 fruitless
 * reclaims, the oldest folio of the first non-empty list (IA, AA, IF, AF) is
 * freed without a shadow entry and counted in l2q.oom.
 *
 *		Hints (hook ->hint())
 *
 * MADV_COLD and MADV_PAGEOUT walk present PTEs, so they only reach folios
 * this process has mapped (a PT access during the current residency); any
 * other resident folio is left alone (POLICIES.md §1b.9).  Both clear
 * PG_referenced and give an active folio PG_workingset.  COLD clears the
 * young bit and moves an active folio to the inactive head (lru_deactivate,
 * pgdeactivate); an inactive folio stays where it is.  PAGEOUT reclaims the
 * folio: with pageout=ignore-references (the default of profile p610, Linux
 * 6.10 and later) unconditionally; with pageout=recheck (profile p61, before
 * 6.10) the young bit is cleared first and folio_check_references() runs
 * again, which reclaims unless the folio was touched in the last
 * recheck_window accesses (then it is taken as a PT touch between the walk
 * and the check: KEEP, back to the inactive head with PG_referenced); with
 * pageout=ignore the hint does nothing.  An anon folio with swap=false
 * cannot be swapped out and is activated instead.  POLICIES.md §2b's
 * generic COLD model says "eviction end"; the kernel's lru_deactivate()
 * adds to the inactive head, and that is what is done here (§1b.9).  A
 * PAGEOUT eviction writes a shadow
 * entry and ages nonresident_age like any eviction but counts no pgscan or
 * pgsteal.  A drop (truncation) unlinks the folio or forgets its shadow
 * entry, with no ageing and no counters.
 *
 *		Protections
 *
 * HS_PROT_PROMOTE: every folio shrink_inactive_list() isolated and then
 * kept or activated because of a reference (folio_check_references KEEP or
 * ACTIVATE), and a PAGEOUT re-check KEEP.  Those folios were at the reclaim
 * end and are spared because they were referenced.
 *
 * HS_PROT_SECOND_CHANCE: the second FD touch moves a folio off the inactive
 * list at access time, when no reclaim is running, so it cannot be said to
 * spare anything then.  What it spares shows later: reclaim reaches the
 * place the folio had on its inactive list.  Had the folio stayed there,
 * unmapped or with no young PTE, that pass would have isolated it and
 * reclaimed it (PG_referenced alone gives RECLAIM_CLEAN).  So an activation
 * of a folio without a young PTE leaves a pending record of the folio's
 * place (the stamp of its last inactive insertion).  When
 * shrink_inactive_list() isolates a folio of the same type with a newer
 * stamp, every pending record older than that folio fires, and the
 * protection is reported then, at eviction time.  A record is void if the
 * folio was accessed again, deactivated, evicted or dropped before that
 * pass: an access would have activated it anyway (third touch), and the
 * other cases left the active list.  The records sit in two min-heaps by
 * stamp; a record the heap cannot grow for is lost (counted in dump()).
 *
 * Cost: O(1) per hit and insert (O(log n) to push a second-chance record);
 * reclaim is O(folios scanned), and the scan counts of get_scan_count() keep
 * that near the number freed.  The private area is 32 bytes per key.
 * check() walks every list and key.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "qlist.h"

#define SWAP_CLUSTER_MAX	32	/* most folios one shrink_list() isolates */
#define DEF_PRIORITY		12	/* first reclaim priority: scan |list| >> 12 */
#define MAX_SWAPPINESS		200	/* anon weight swappiness, file 200 - swappiness */
#define MAX_RECLAIM_RETRIES	16	/* charge retries before the OOM fallback */

/* enum lru_list, in the kernel's order (for_each_evictable_lru). */
enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	NR_LRU_LISTS,
	LRU_NONE = 0xff,		/* not on any list: not resident, or isolated */
};

#define LRU_ACTIVE	1		/* enum lru_list: active = inactive + LRU_ACTIVE */
#define LRU_FILE	2		/* enum lru_list: file = anon + LRU_FILE */

/* struct l2q_folio flags */
#define F_ACTIVE	0x01u	/* PG_active; resident only */
#define F_REFERENCED	0x02u	/* PG_referenced; resident only */
#define F_WORKINGSET	0x04u	/* PG_workingset; non-resident with F_SHADOW: the
				 * shadow entry's workingset bit */
#define F_YOUNG		0x08u	/* the PTE accessed bit; only with F_MAPPED */
#define F_MAPPED	0x10u	/* mapped by the traced process (a PT access during
				 * this residency) */
#define F_ANON		0x20u	/* swap-backed (anon, shmem); else page cache */
#define F_SHADOW	0x40u	/* non-resident, and seq holds a shadow entry */
#define F_SC_PENDING	0x80u	/* on an active list with a live second-chance record */

/* The per-key private area. */
struct l2q_folio {
	struct hs_qlink	link;		/* on lists[lru] while resident; on the shadow FIFO
					 * while F_SHADOW and the shadow count is bounded */
	uint64_t	seq;		/* resident: stamp of the last insertion at an
					 * inactive head; with F_SHADOW: nonresident_age at
					 * eviction */
	uint64_t	last;		/* seq of the last access (recheck_window) */
	uint16_t	flags;		/* F_*; 0 when unknown or forgotten */
	uint8_t		lru;		/* enum lru_list, LRU_NONE when not on a list */
};

/* A second-chance record: folio id left the inactive list with stamp seq. */
struct sc_rec {
	uint64_t	seq;		/* the folio's inactive stamp when it was activated */
	uint32_t	id;		/* folio id */
};

/* A binary min-heap of records by seq. */
struct sc_heap {
	struct sc_rec	*r;		/* r[0] holds the smallest seq */
	size_t		nr;		/* records held */
	size_t		cap;		/* records allocated */
};

enum pageout_mode { PAGEOUT_PROFILE, PAGEOUT_RECHECK, PAGEOUT_IGNORE_REFS, PAGEOUT_IGNORE };
enum l2q_profile { PROFILE_P61, PROFILE_P610 };

enum folio_references { FOLIOREF_RECLAIM, FOLIOREF_RECLAIM_CLEAN, FOLIOREF_KEEP,
			FOLIOREF_ACTIVATE };

struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's record array */
	bool		tlb;			/* heed hs_access.tlb_hit (param tlb) */
	struct hs_qctx	q;			/* where the links live */
	struct hs_qlist	lists[NR_LRU_LISTS];	/* qlist head = kernel tail (reclaim end) */
	uint64_t	pages[NR_LRU_LISTS];	/* pages on each list: its folios, or in the
						 * driver's folio mode their pages
						 * (hs_env_folio_pages()), as the kernel's
						 * lru_zone_size counts */
	struct hs_qlist	shadows;		/* shadow entries, oldest first (bounded only) */
	uint64_t	nr_shadows;		/* keys holding F_SHADOW */
	uint64_t	nonresident_age;	/* lruvec->nonresident_age */
	uint64_t	cost[2];		/* lruvec anon_cost [0], file_cost [1] */
	uint64_t	refaults_snap[2];	/* workingset_activate at the last snapshot */
	uint64_t	stat_lru[NR_LRU_LISTS];	/* list sizes at the last stats flush */
	uint64_t	stat_activate[2];	/* ws_activate at the last stats flush */
	uint64_t	next_flush;		/* access seq of the next stats flush */
	uint64_t	ws_refault[2];		/* workingset_refault_{anon,file} */
	uint64_t	ws_activate[2];		/* workingset_activate_{anon,file} */
	uint64_t	ws_restore[2];		/* workingset_restore_{anon,file} */
	uint64_t	pgactivate;		/* lru_activate + reclaim ACTIVATE */
	uint64_t	pgdeactivate;		/* shrink_active_list + lru_deactivate */
	uint64_t	pgrefill;		/* folios scanned by shrink_active_list */
	uint64_t	pgscan;			/* folios isolated by shrink_inactive_list */
	uint64_t	pgsteal;		/* folios it freed */
	uint64_t	age_evict;		/* nonresident_age steps by workingset_eviction */
	uint64_t	age_promote;		/* ... by workingset_activation (FD promotion) */
	uint64_t	age_putback;		/* ... by folios put back active by reclaim */
	uint64_t	reclaims;		/* do_try_to_free_pages() calls */
	uint64_t	oom;			/* fallback frees after fruitless reclaim */
	uint64_t	hint_skipped;		/* hints on resident folios that are not mapped */
	uint64_t	stamp;			/* last stamp handed to an inactive insertion */
	struct sc_heap	sc[2];			/* pending second-chance records per type */
	uint64_t	sc_lost;		/* records not kept for want of memory */
	/* parameters */
	unsigned int	swappiness;		/* vm_swappiness, 0 .. 200 */
	uint64_t	batch;			/* least nr_to_reclaim */
	enum pageout_mode pageout;		/* resolved: never PAGEOUT_PROFILE */
	enum l2q_profile profile;		/* kernel version profile */
	uint64_t	recheck_window;		/* accesses a recheck counts as "just touched" */
	uint64_t	shadow_max;		/* most shadow entries kept; 0: unbounded */
	bool		swap;			/* a swap device with free slots exists */
	uint64_t	stats_flush;		/* accesses between memcg stats flushes; 0: live */
	uint64_t	stats_phase;		/* access seq of the first flush */
	bool		recorded_flushes;	/* the flushes are the recording's
						 * (ops->stats_flush), not the clock's */
	/* the reclaim in progress (->evict()) */
	struct hs_folio	**victims;		/* the driver's array */
	size_t		nr_victims;		/* victims so far */
	size_t		max_victims;		/* its size */
	bool		force_deactivate;	/* sc->force_deactivate */
	bool		skipped_deactivate;	/* sc->skipped_deactivate */
};

static const struct hs_param l2q_params[] = {
	{ .name = "profile", .type = HS_PARAM_ENUM, .def = "p610", .choices = "p61|p610",
	  .help = "kernel version: p61 = before 6.10 (MADV_PAGEOUT re-checks references), "
		  "p610 = 6.10 and later" },
	{ .name = "swappiness", .type = HS_PARAM_U64, .def = "60",
	  .help = "vm.swappiness: anon scan weight (file weight is 200 - swappiness)",
	  .min = 0.0, .max = 200.0 },
	{ .name = "batch", .type = HS_PARAM_U64, .def = "32",
	  .help = "reclaim goal per charge, nr_to_reclaim (SWAP_CLUSTER_MAX)",
	  .min = 1.0, .max = 4096.0 },
	{ .name = "pageout", .type = HS_PARAM_ENUM, .def = "profile",
	  .choices = "profile|recheck|ignore-references|ignore",
	  .help = "MADV_PAGEOUT: re-check references, reclaim regardless, or drop the hint "
		  "(profile: recheck for p61, ignore-references for p610)" },
	{ .name = "recheck_window", .type = HS_PARAM_U64, .def = "0",
	  .help = "pageout=recheck keeps a folio accessed within this many accesses",
	  .min = 0.0, .max = 18446744073709551616.0 },
	{ .name = "shadow", .type = HS_PARAM_U64, .def = "0",
	  .help = "most shadow entries kept, oldest dropped first (0: unbounded)",
	  .min = 0.0, .max = 18446744073709551616.0 },
	{ .name = "stats_flush", .type = HS_PARAM_U64, .def = "20000",
	  .help = "accesses between memcg stats flushes that reclaim's list sizes and "
		  "refault counts lag behind (0: always current)",
	  .min = 0.0, .max = 18446744073709551616.0 },
	{ .name = "stats_phase", .type = HS_PARAM_U64, .def = "0",
	  .help = "access of the first stats flush (stats_flush > 0)",
	  .min = 0.0, .max = 18446744073709551616.0 },
	{ .name = "flushes", .type = HS_PARAM_ENUM, .def = "recorded", .choices = "recorded|clock",
	  .help = "when the stats are flushed (stats_flush > 0): recorded = at the recording's "
		  "memcg_flush_stats events where the session has them (kernels 6.13 and "
		  "later), else by the clock; clock = every stats_flush accesses from "
		  "stats_phase" },
	{ .name = "swap", .type = HS_PARAM_BOOL, .def = "true",
	  .help = "a zram-like swap device exists (false: anon is neither scanned nor aged)" },
	{ .name = "tlb", .type = HS_PARAM_BOOL, .def = "false",
	  .help = "a touch through a cached translation sets no young bit (recorded sessions "
		  "with TLB events; others have no cache to hit); off by default: it fit "
		  "no recording of 2026-12-02 better than without" },
	{ .name = NULL },
};

static inline struct l2q_folio *lf(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static inline struct hs_folio *folio_at(const struct hs_policy *p, uint32_t id)
{
	return hs_env_folio(p->env, id);
}

static inline struct l2q_folio *lf_at(const struct hs_policy *p, uint32_t id)
{
	return hs_folio_priv(hs_env_folio(p->env, id));
}

/* 1 for page cache, 0 for swap-backed: the kernel's folio_is_file_lru(). */
static inline unsigned int folio_is_file_lru(const struct l2q_folio *k)
{
	return (k->flags & F_ANON) ? 0 : 1;
}

static inline enum lru_list folio_lru_list(const struct l2q_folio *k)
{
	return (enum lru_list)(folio_is_file_lru(k) * LRU_FILE +
			       ((k->flags & F_ACTIVE) ? LRU_ACTIVE : 0));
}

static inline bool is_active_lru(unsigned int lru)
{
	return lru & LRU_ACTIVE;
}

static inline uint64_t lru_size(const struct hs_policy *p, unsigned int lru)
{
	return p->pages[lru];
}

/* folio_nr_pages() */
static inline uint32_t folio_nr_pages(const struct hs_policy *p, uint32_t id)
{
	return hs_env_folio_pages(p->env, id);
}

/* lruvec_page_state(NR_LRU_BASE + lru): the flushed memcg statistic. */
static inline uint64_t lru_stat(const struct hs_policy *p, unsigned int lru)
{
	return p->stats_flush ? p->stat_lru[lru] : lru_size(p, lru);
}

/* lruvec_page_state(WORKINGSET_ACTIVATE_*), flushed likewise. */
static inline uint64_t activate_stat(const struct hs_policy *p, unsigned int file)
{
	return p->stats_flush ? p->stat_activate[file] : p->ws_activate[file];
}

/* A flush: the statistics reclaim and refault read become the lists' state now. */
static void stats_snapshot(struct hs_policy *p)
{
	for (unsigned int lru = 0; lru < NR_LRU_LISTS; lru++)
		p->stat_lru[lru] = lru_size(p, lru);
	p->stat_activate[0] = p->ws_activate[0];
	p->stat_activate[1] = p->ws_activate[1];
}

/*
 * The periodic flush (flush_memcg_stats_dwork) due before access @seq, by
 * the access clock; never with the recording's own flushes (next_flush is
 * UINT64_MAX then).
 */
static void stats_tick(struct hs_policy *p, uint64_t seq)
{
	if (!p->stats_flush || seq < p->next_flush)
		return;
	stats_snapshot(p);
	p->next_flush = seq + p->stats_flush - (seq - p->next_flush) % p->stats_flush;
}

/* ops->stats_flush: the recording's memcg_flush_stats event falls here. */
static void l2q_stats_flush(struct hs_policy *p)
{
	if (p->recorded_flushes)
		stats_snapshot(p);
}

/*
 * Second-chance records
 */

static void sc_push(struct hs_policy *p, unsigned int file, uint64_t seq, uint32_t id)
{
	struct sc_heap *h = &p->sc[file];
	size_t i;

	if (h->nr == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct sc_rec *r = realloc(h->r, cap * sizeof(*r));

		if (!r) {
			p->sc_lost++;
			return;
		}
		h->r = r;
		h->cap = cap;
	}
	for (i = h->nr++; i > 0 && h->r[(i - 1) / 2].seq > seq; i = (i - 1) / 2)
		h->r[i] = h->r[(i - 1) / 2];
	h->r[i].seq = seq;
	h->r[i].id = id;
}

static struct sc_rec sc_pop(struct sc_heap *h)
{
	struct sc_rec top = h->r[0], last = h->r[--h->nr];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->nr) {
		if (c + 1 < h->nr && h->r[c + 1].seq < h->r[c].seq)
			c++;
		if (h->r[c].seq >= last.seq)
			break;
		h->r[i] = h->r[c];
		i = c;
	}
	if (h->nr)
		h->r[i] = last;
	return top;
}

/* Reclaim has isolated up to stamp @cursor: report the records it passed. */
static void sc_fire(struct hs_policy *p, unsigned int file, uint64_t cursor)
{
	struct sc_heap *h = &p->sc[file];

	while (h->nr && h->r[0].seq < cursor) {
		struct sc_rec r = sc_pop(h);
		struct hs_folio *f = folio_at(p, r.id);
		struct l2q_folio *k = lf(f);

		if (!(k->flags & F_SC_PENDING) || k->seq != r.seq)
			continue;
		k->flags &= (uint16_t)~F_SC_PENDING;
		hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
	}
}

/*
 * Lists and the workingset
 */

/* lruvec_add_folio(): link k at the head of the list its flags pick. */
static void lruvec_add_folio(struct hs_policy *p, uint32_t id, struct l2q_folio *k)
{
	enum lru_list lru = folio_lru_list(k);

	if (!is_active_lru(lru))
		k->seq = ++p->stamp;
	k->lru = (uint8_t)lru;
	hs_q_push_tail(&p->q, &p->lists[lru], id);
	p->pages[lru] += folio_nr_pages(p, id);
}

static void lruvec_del_folio(struct hs_policy *p, uint32_t id, struct l2q_folio *k)
{
	hs_q_del(&p->q, &p->lists[k->lru], id);
	p->pages[k->lru] -= folio_nr_pages(p, id);
	k->lru = LRU_NONE;
}

/* By @nr pages: a folio's, as the kernel ages and counts by folio_nr_pages(). */
static void workingset_age_nonresident(struct hs_policy *p, uint64_t *why, uint32_t nr)
{
	p->nonresident_age += nr;
	*why += nr;
}

/* lru_note_cost(): charge IO and rotations to a type, decaying both costs. */
static void lru_note_cost(struct hs_policy *p, unsigned int file, uint64_t nr_io,
			  uint64_t nr_rotated)
{
	uint64_t lrusize = 0;
	unsigned int lru;

	p->cost[file] += nr_io * SWAP_CLUSTER_MAX + nr_rotated;
	for (lru = 0; lru < NR_LRU_LISTS; lru++)
		lrusize += lru_size(p, lru);
	if (p->cost[0] + p->cost[1] > lrusize / 4) {
		p->cost[0] /= 2;
		p->cost[1] /= 2;
	}
}

static void shadow_forget(struct hs_policy *p, uint32_t id, struct l2q_folio *k)
{
	if (!(k->flags & F_SHADOW))
		return;
	if (p->shadow_max)
		hs_q_del(&p->q, &p->shadows, id);
	k->flags = 0;
	p->nr_shadows--;
}

/*
 * workingset_eviction() and the free: k (already off its list) leaves memory
 * with a shadow entry {nonresident_age, PG_workingset}.
 */
static void workingset_eviction(struct hs_policy *p, uint32_t id, struct l2q_folio *k)
{
	k->seq = p->nonresident_age;
	workingset_age_nonresident(p, &p->age_evict, folio_nr_pages(p, id));
	k->flags = (uint16_t)(F_SHADOW | (k->flags & (F_WORKINGSET | F_ANON)));
	p->nr_shadows++;
	if (!p->shadow_max)
		return;
	hs_q_push_tail(&p->q, &p->shadows, id);
	if (p->nr_shadows > p->shadow_max)
		shadow_forget(p, p->shadows.head, lf_at(p, p->shadows.head));
}

/* workingset_test_recent(): is a refault at @distance within the workingset? */
static bool workingset_test_recent(const struct hs_policy *p, unsigned int file,
				   uint64_t distance)
{
	uint64_t workingset_size = lru_stat(p, LRU_ACTIVE_FILE);

	if (!file)
		workingset_size += lru_stat(p, LRU_INACTIVE_FILE);
	if (p->swap) {
		workingset_size += lru_stat(p, LRU_ACTIVE_ANON);
		if (file)
			workingset_size += lru_stat(p, LRU_INACTIVE_ANON);
	}
	return distance <= workingset_size;
}

/* workingset_refault(): the new folio k consumes the shadow entry it had. */
static void workingset_refault(struct hs_policy *p, struct l2q_folio *k, uint64_t stamp,
			       bool workingset)
{
	unsigned int file = folio_is_file_lru(k);

	p->ws_refault[file]++;
	if (!workingset_test_recent(p, file, p->nonresident_age - stamp))
		return;
	k->flags |= F_ACTIVE;
	workingset_age_nonresident(p, &p->ws_activate[file], 1);	/* before any page joins */
	if (workingset) {
		k->flags |= F_WORKINGSET;
		lru_note_cost(p, file, 1, 0);	/* lru_note_cost_refault() */
		p->ws_restore[file]++;
	}
}

/* folio_mark_accessed(): the FD channel's two-touch rule. */
static void folio_mark_accessed(struct hs_policy *p, uint32_t id, struct l2q_folio *k)
{
	if (!(k->flags & F_REFERENCED)) {
		k->flags |= F_REFERENCED;
		return;
	}
	if (k->flags & F_ACTIVE)
		return;
	/* folio_activate() -> lru_activate(), drained at once. */
	lruvec_del_folio(p, id, k);
	k->flags |= F_ACTIVE;
	lruvec_add_folio(p, id, k);
	p->pgactivate++;
	k->flags &= (uint16_t)~F_REFERENCED;
	workingset_age_nonresident(p, &p->age_promote, folio_nr_pages(p, id));
	/* ^ workingset_activation() */
	/* Without a young PTE this folio would have been reclaimed where it was. */
	if (!(k->flags & F_YOUNG)) {
		k->flags |= F_SC_PENDING;
		sc_push(p, folio_is_file_lru(k), k->seq, id);
	}
}

/* folio_referenced() for a folio mapped at most once: test-and-clear young. */
static int folio_referenced(struct l2q_folio *k)
{
	int ptes = (k->flags & F_YOUNG) ? 1 : 0;

	k->flags &= (uint16_t)~F_YOUNG;
	return ptes;
}

static enum folio_references folio_check_references(struct l2q_folio *k)
{
	int referenced_ptes = folio_referenced(k);
	bool referenced_folio = k->flags & F_REFERENCED;

	k->flags &= (uint16_t)~F_REFERENCED;
	if (referenced_ptes) {
		k->flags |= F_REFERENCED;
		/* referenced_ptes > 1 needs two mappings: never here; no VM_EXEC either. */
		return referenced_folio ? FOLIOREF_ACTIVATE : FOLIOREF_KEEP;
	}
	if (referenced_folio && folio_is_file_lru(k))
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

/* Unmap and free an isolated folio: it becomes a victim for the driver. */
static void reclaim_folio(struct hs_policy *p, uint32_t id, struct l2q_folio *k)
{
	workingset_eviction(p, id, k);
	p->victims[p->nr_victims++] = folio_at(p, id);
}

/*
 * Reclaim
 */

static unsigned long isqrt(uint64_t x)
{
	uint64_t r = 0, b = (uint64_t)1 << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return (unsigned long)r;
}

/* inactive_is_low(): ratio 1 below 1 GiB of the type (2^18 pages), sqrt(10 * GiB) above. */
static bool inactive_is_low(const struct hs_policy *p, unsigned int inactive_lru)
{
	uint64_t inactive = lru_stat(p, inactive_lru);
	uint64_t active = lru_stat(p, inactive_lru + LRU_ACTIVE);
	uint64_t gb = (inactive + active) >> 18;
	uint64_t ratio = gb ? isqrt(10 * gb) : 1;

	return inactive * ratio < active;
}

static uint64_t shrink_inactive_list(struct hs_policy *p, unsigned int lru, uint64_t nr_to_scan)
{
	unsigned int file = lru / LRU_FILE;
	enum folio_references ref[SWAP_CLUSTER_MAX];
	uint32_t iso[SWAP_CLUSTER_MAX];
	uint64_t nr_reclaimed = 0, nr_pageout = 0, nr_taken = 0, nr_rotated = 0;
	size_t n = 0, i;

	nr_to_scan = HS_MIN(nr_to_scan, (uint64_t)(p->max_victims - p->nr_victims));
	/* isolate_lru_folios(): nr_to_scan pages, a large folio counting all of its */
	while (nr_taken < nr_to_scan && n < SWAP_CLUSTER_MAX && !hs_q_empty(&p->lists[lru])) {
		uint32_t id = p->lists[lru].head;

		nr_taken += folio_nr_pages(p, id);
		lruvec_del_folio(p, id, lf_at(p, id));
		iso[n++] = id;
	}
	if (!n)
		return 0;
	p->pgscan += nr_taken;
	sc_fire(p, file, lf_at(p, iso[n - 1])->seq);

	/* shrink_folio_list(): oldest first. */
	for (i = 0; i < n; i++) {
		struct l2q_folio *k = lf_at(p, iso[i]);

		ref[i] = folio_check_references(k);
		if (ref[i] == FOLIOREF_RECLAIM || ref[i] == FOLIOREF_RECLAIM_CLEAN) {
			if (!file && !p->swap) {
				/* add_to_swap() fails: activate_locked. */
				ref[i] = FOLIOREF_ACTIVATE;
				k->flags |= F_ACTIVE;
				p->pgactivate++;
				continue;
			}
			if (!file)
				nr_pageout += folio_nr_pages(p, iso[i]);
			nr_reclaimed += folio_nr_pages(p, iso[i]);
			reclaim_folio(p, iso[i], k);
			continue;
		}
		hs_sim_protect(p->env->sim, folio_at(p, iso[i]), HS_PROT_PROMOTE);
		if (ref[i] == FOLIOREF_ACTIVATE) {
			k->flags |= F_ACTIVE;
			p->pgactivate++;
		}
	}
	/* move_folios_to_lru(): survivors to their heads, the oldest deepest. */
	for (i = 0; i < n; i++) {
		struct l2q_folio *k = lf_at(p, iso[i]);

		if (ref[i] != FOLIOREF_KEEP && ref[i] != FOLIOREF_ACTIVATE)
			continue;
		lruvec_add_folio(p, iso[i], k);
		if (k->flags & F_ACTIVE)
			workingset_age_nonresident(p, &p->age_putback,
						   folio_nr_pages(p, iso[i]));
	}
	p->pgsteal += nr_reclaimed;
	nr_rotated = nr_taken - nr_reclaimed;
	lru_note_cost(p, file, nr_pageout, nr_rotated);
	return nr_reclaimed;
}

static void shrink_active_list(struct hs_policy *p, unsigned int lru, uint64_t nr_to_scan)
{
	uint32_t iso[SWAP_CLUSTER_MAX];
	uint64_t nr_taken = 0;
	size_t n = 0, i;

	nr_to_scan = HS_MIN(nr_to_scan, SWAP_CLUSTER_MAX);
	while (nr_taken < nr_to_scan && n < SWAP_CLUSTER_MAX && !hs_q_empty(&p->lists[lru])) {
		uint32_t id = p->lists[lru].head;
		struct l2q_folio *k = lf_at(p, id);

		nr_taken += folio_nr_pages(p, id);
		lruvec_del_folio(p, id, k);
		(void)folio_referenced(k);	/* no VM_EXEC: referenced or not, deactivate */
		k->flags &= (uint16_t)~(F_ACTIVE | F_SC_PENDING);
		k->flags |= F_WORKINGSET;
		iso[n++] = id;
	}
	p->pgrefill += nr_taken;
	for (i = 0; i < n; i++)
		lruvec_add_folio(p, iso[i], lf_at(p, iso[i]));
	p->pgdeactivate += nr_taken;
}

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

static void get_scan_count(const struct hs_policy *p, int priority, bool cache_trim_mode,
			   uint64_t nr[NR_LRU_LISTS])
{
	uint64_t fraction[2] = { 0, 0 }, denominator = 0;
	enum scan_balance scan_balance;
	unsigned int lru;

	if (!p->swap || !p->swappiness) {
		scan_balance = SCAN_FILE;	/* no swap; or cgroup reclaim at swappiness 0 */
	} else if (!priority) {
		scan_balance = SCAN_EQUAL;
	} else if (cache_trim_mode) {
		scan_balance = SCAN_FILE;
	} else {
		uint64_t total_cost = p->cost[0] + p->cost[1];
		uint64_t anon_cost = total_cost + p->cost[0];
		uint64_t file_cost = total_cost + p->cost[1];

		total_cost = anon_cost + file_cost;
		fraction[0] = p->swappiness * (total_cost + 1) / (anon_cost + 1);
		fraction[1] = (MAX_SWAPPINESS - p->swappiness) * (total_cost + 1) /
			      (file_cost + 1);
		denominator = fraction[0] + fraction[1];
		scan_balance = SCAN_FRACT;
	}
	for (lru = 0; lru < NR_LRU_LISTS; lru++) {
		unsigned int file = lru / LRU_FILE;
		uint64_t scan = lru_size(p, lru) >> priority;

		switch (scan_balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			scan = scan * fraction[file] / denominator;
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((scan_balance == SCAN_FILE) != (file == 1))
				scan = 0;
			break;
		}
		nr[lru] = scan;
	}
}

/* shrink_list() */
static uint64_t shrink_list(struct hs_policy *p, unsigned int lru, uint64_t nr_to_scan,
			    const bool may_deactivate[2])
{
	if (is_active_lru(lru)) {
		if (may_deactivate[lru / LRU_FILE])
			shrink_active_list(p, lru, nr_to_scan);
		else
			p->skipped_deactivate = true;
		return 0;
	}
	return shrink_inactive_list(p, lru, nr_to_scan);
}

/* prepare_scan_control() + shrink_lruvec() at one priority: folios freed. */
static uint64_t shrink_node(struct hs_policy *p, int priority, uint64_t nr_to_reclaim)
{
	uint64_t nr[NR_LRU_LISTS], targets[NR_LRU_LISTS];
	uint64_t nr_reclaimed = 0;
	bool may_deactivate[2];
	bool cache_trim_mode;
	unsigned int lru, t;

	for (t = 0; t < 2; t++)
		may_deactivate[t] = p->force_deactivate ||
				    activate_stat(p, t) != p->refaults_snap[t] ||
				    inactive_is_low(p, t * LRU_FILE);
	cache_trim_mode = (lru_stat(p, LRU_INACTIVE_FILE) >> priority) && !may_deactivate[1];
	get_scan_count(p, priority, cache_trim_mode, nr);
	for (lru = 0; lru < NR_LRU_LISTS; lru++)
		targets[lru] = nr[lru];

	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		uint64_t nr_anon, nr_file, percentage, nr_scanned;
		unsigned int small;

		for (lru = 0; lru < NR_LRU_LISTS; lru++) {
			uint64_t nr_to_scan;

			if (!nr[lru])
				continue;
			nr_to_scan = HS_MIN(nr[lru], SWAP_CLUSTER_MAX);
			nr[lru] -= nr_to_scan;
			nr_reclaimed += shrink_list(p, lru, nr_to_scan, may_deactivate);
		}
		if (p->nr_victims == p->max_victims)
			break;		/* the driver takes no more from this call */
		if (nr_reclaimed < nr_to_reclaim)
			continue;

		/* Goal met: one nudge towards the proportions get_scan_count() chose. */
		nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
		nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];
		if (!nr_file || !nr_anon)
			break;
		if (nr_file > nr_anon) {
			small = LRU_INACTIVE_ANON;
			percentage = nr_anon * 100 / (targets[LRU_INACTIVE_ANON] +
						      targets[LRU_ACTIVE_ANON] + 1);
		} else {
			small = LRU_INACTIVE_FILE;
			percentage = nr_file * 100 / (targets[LRU_INACTIVE_FILE] +
						      targets[LRU_ACTIVE_FILE] + 1);
		}
		nr[small] = 0;
		nr[small + LRU_ACTIVE] = 0;
		for (lru = LRU_FILE - small; lru <= LRU_FILE - small + LRU_ACTIVE; lru++) {
			nr_scanned = targets[lru] - nr[lru];
			nr[lru] = targets[lru] * (100 - percentage) / 100;
			nr[lru] -= HS_MIN(nr[lru], nr_scanned);
		}
	}
	/* Keep the anon inactive list big enough even when anon was not scanned. */
	if (p->swap && inactive_is_low(p, LRU_INACTIVE_ANON))
		shrink_active_list(p, LRU_ACTIVE_ANON, SWAP_CLUSTER_MAX);
	return nr_reclaimed;
}

/* do_try_to_free_pages() for the memcg: folios freed. */
static uint64_t do_try_to_free_pages(struct hs_policy *p, uint64_t nr_to_reclaim)
{
	uint64_t nr_reclaimed = 0;
	int priority;

	p->reclaims++;
	p->force_deactivate = false;
	p->skipped_deactivate = false;
retry:
	for (priority = DEF_PRIORITY; priority >= 0; priority--) {
		nr_reclaimed += shrink_node(p, priority, nr_to_reclaim);
		if (nr_reclaimed >= nr_to_reclaim || p->nr_victims == p->max_victims)
			break;
	}
	p->refaults_snap[0] = activate_stat(p, 0);	/* snapshot_refaults() */
	p->refaults_snap[1] = activate_stat(p, 1);
	if (!nr_reclaimed && p->skipped_deactivate && !p->force_deactivate) {
		p->force_deactivate = true;
		p->skipped_deactivate = false;
		goto retry;
	}
	return nr_reclaimed;
}

/* The kernel would OOM-kill: free the oldest folio of the first non-empty list. */
static void oom_fallback(struct hs_policy *p)
{
	unsigned int lru;

	for (lru = 0; lru < NR_LRU_LISTS; lru++) {
		uint32_t id = p->lists[lru].head;
		struct l2q_folio *k;

		if (id == HS_NIL)
			continue;
		k = lf_at(p, id);
		lruvec_del_folio(p, id, k);
		k->flags = 0;
		p->victims[p->nr_victims++] = folio_at(p, id);
		p->oom++;
		return;
	}
}

/*
 * Hooks
 */

static int l2q_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		      struct hs_policy **out)
{
	struct hs_policy *p;
	unsigned int lru;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	p->q.base = env->folios;
	p->q.stride = env->stride;
	p->q.off = env->priv_off + offsetof(struct l2q_folio, link);
	for (lru = 0; lru < NR_LRU_LISTS; lru++)
		hs_q_init(&p->lists[lru]);
	hs_q_init(&p->shadows);
	p->profile = hs_param_enum(ps, "profile") == 0 ? PROFILE_P61 : PROFILE_P610;
	p->swappiness = (unsigned int)hs_param_u64(ps, "swappiness");
	p->batch = hs_param_u64(ps, "batch");
	p->pageout = (enum pageout_mode)hs_param_enum(ps, "pageout");
	if (p->pageout == PAGEOUT_PROFILE)
		p->pageout = p->profile == PROFILE_P61 ? PAGEOUT_RECHECK : PAGEOUT_IGNORE_REFS;
	p->recheck_window = hs_param_u64(ps, "recheck_window");
	p->shadow_max = hs_param_u64(ps, "shadow");
	p->swap = hs_param_bool(ps, "swap");
	p->tlb = hs_param_bool(ps, "tlb");
	p->stats_flush = hs_param_u64(ps, "stats_flush");
	p->next_flush = hs_param_u64(ps, "stats_phase");
	p->recorded_flushes = p->stats_flush && env->memcg_flushes &&
			      hs_param_enum(ps, "flushes") == 0;
	if (p->recorded_flushes)
		p->next_flush = UINT64_MAX;	/* no clock: l2q_stats_flush() alone */
	/* The private areas start zeroed: lru 0 would mean LRU_INACTIVE_ANON. */
	for (uint32_t i = 0; i < env->nr_keys; i++)
		lf_at(p, i)->lru = LRU_NONE;
	*out = p;
	return 0;
}

static void l2q_destroy(struct hs_policy *p)
{
	if (!p)
		return;
	free(p->sc[0].r);
	free(p->sc[1].r);
	free(p);
}

static void l2q_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct l2q_folio *k = lf(f);

	stats_tick(p, a->seq);
	k->last = a->seq;
	k->flags &= (uint16_t)~F_SC_PENDING;
	if (a->channel == HS_CH_PT) {
		/*
		 * A load or store through the mapping (or a minor fault): young
		 * PTE, unless folio_referenced() skips the mapping (no recency)
		 * or the translation was still cached: folio_referenced()
		 * clears the bit without a flush, and only a page walk sets it
		 * (lib/sim.c, "TLB model").
		 */
		k->flags |= F_MAPPED;
		if (!a->norecency && !(a->tlb_hit && p->tlb))
			k->flags |= F_YOUNG;
		return;
	}
	/* FD: read() marks; write() marks only shmem (file writes never do). */
	if (!a->write || (k->flags & F_ANON))
		folio_mark_accessed(p, a->key, k);
}

static void l2q_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct l2q_folio *k = lf(f);
	bool had_shadow = k->flags & F_SHADOW;
	bool workingset = k->flags & F_WORKINGSET;
	uint64_t stamp = k->seq;
	bool anon = a->type == HS_TYPE_ANON;
	uint32_t id = a->key;

	stats_tick(p, a->seq);
	shadow_forget(p, id, k);
	k->flags = anon ? F_ANON : 0;
	k->last = a->seq;
	/* A buffered write allocating a file folio carries __GFP_WRITE: no refault. */
	if (had_shadow && !(a->channel == HS_CH_FD && a->write && !anon))
		workingset_refault(p, k, stamp, workingset);
	lruvec_add_folio(p, id, k);		/* folio_add_lru(), drained at once */
	if (a->channel == HS_CH_PT)	/* the fault installs a young PTE */
		k->flags |= F_MAPPED | (a->norecency ? 0 : F_YOUNG);
	else if (a->channel == HS_CH_READAHEAD)
		;				/* readahead: the inactive head, unreferenced */
	else if (!a->write)
		folio_mark_accessed(p, id, k);	/* new: sets PG_referenced */
	else if (anon)
		k->flags |= F_REFERENCED;	/* a shmem folio allocated for write() */
}

static size_t l2q_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	unsigned int tries;

	(void)incoming;
	stats_tick(p, a->seq);
	p->victims = victims;
	p->nr_victims = 0;
	p->max_victims = max;
	/* try_charge_memcg(): reclaim, and retry a fruitless reclaim. */
	for (tries = 0; tries <= MAX_RECLAIM_RETRIES && !p->nr_victims; tries++)
		do_try_to_free_pages(p, HS_MAX((uint64_t)need, p->batch));
	if (!p->nr_victims)
		oom_fallback(p);
	p->victims = NULL;
	return p->nr_victims;
}

static void l2q_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	struct l2q_folio *k = lf(f);
	uint32_t id = hs_folio_id(p->env, f);

	if (!hs_folio_is_resident(f)) {
		/* Truncation deletes the shadow entry at that index too. */
		shadow_forget(p, id, k);
		k->flags = 0;
		return;
	}
	lruvec_del_folio(p, id, k);
	if (why == HS_REMOVE_HINT) {
		workingset_eviction(p, id, k);	/* reclaim_pages() freed it */
		return;
	}
	k->flags = 0;	/* truncation: no shadow, no ageing, no counters */
}

static enum hs_hint_verdict l2q_hint(struct hs_policy *p, struct hs_folio *f,
				     const struct hs_access *a)
{
	struct l2q_folio *k = lf(f);
	uint32_t id = a->key;

	if (a->deactivate) {
		/*
		 * folio_deactivate() from inside the kernel (DAMON_LRU_SORT):
		 * lru_deactivate() moves an active folio to the inactive head
		 * without PG_active and PG_referenced and leaves an inactive one
		 * alone; no page table is walked, so the young bit stays.
		 */
		if (k->flags & F_ACTIVE) {
			lruvec_del_folio(p, id, k);
			k->flags &= (uint16_t)~(F_ACTIVE | F_REFERENCED | F_SC_PENDING);
			lruvec_add_folio(p, id, k);
			p->pgdeactivate++;
		}
		return HS_HINT_KEEP;
	}
	if (a->channel == HS_CH_PAGEOUT && p->pageout == PAGEOUT_IGNORE)
		return HS_HINT_KEEP;
	if (!(k->flags & F_MAPPED)) {
		p->hint_skipped++;	/* no present PTE in the range: not walked */
		return HS_HINT_KEEP;
	}
	k->flags &= (uint16_t)~(F_REFERENCED | F_SC_PENDING);
	if (k->flags & F_ACTIVE)
		k->flags |= F_WORKINGSET;
	if (a->channel == HS_CH_COLD) {
		k->flags &= (uint16_t)~F_YOUNG;
		if (k->flags & F_ACTIVE) {
			/* lru_deactivate(): to the inactive head. */
			lruvec_del_folio(p, id, k);
			k->flags &= (uint16_t)~F_ACTIVE;
			lruvec_add_folio(p, id, k);
			p->pgdeactivate++;
		}
		return HS_HINT_KEEP;
	}
	if (p->pageout == PAGEOUT_RECHECK) {
		/* madvise clears the young bits; reclaim_pages() re-checks references. */
		k->flags &= (uint16_t)~F_YOUNG;
		if (a->seq - k->last <= p->recheck_window) {
			/* Touched between the walk and the check: young again, KEEP. */
			lruvec_del_folio(p, id, k);
			k->flags &= (uint16_t)~F_ACTIVE;
			k->flags |= F_REFERENCED;
			lruvec_add_folio(p, id, k);	/* folio_putback_lru() */
			hs_sim_protect(p->env->sim, f, HS_PROT_PROMOTE);
			return HS_HINT_KEEP;
		}
	}
	if ((k->flags & F_ANON) && !p->swap) {
		/* add_to_swap() fails: activate_locked, folio_putback_lru(); no ageing. */
		lruvec_del_folio(p, id, k);
		k->flags |= F_ACTIVE;
		lruvec_add_folio(p, id, k);
		p->pgactivate++;
		return HS_HINT_KEEP;
	}
	return HS_HINT_EVICT;
}

static int check_list(const struct hs_policy *p, unsigned int lru, uint64_t *total)
{
	const struct hs_policy_env *env = p->env;
	const struct hs_qlist *l = &p->lists[lru];
	uint32_t prev = HS_NIL;
	uint64_t n = 0;
	uint32_t id;

	for (id = l->head; id != HS_NIL; id = hs_q_next(&p->q, id)) {
		const struct l2q_folio *k;

		if (id >= env->nr_keys || n >= l->nr || hs_q_prev(&p->q, id) != prev)
			return -EUCLEAN;
		if (!hs_folio_is_resident(hs_env_folio(env, id)))
			return -EUCLEAN;
		k = hs_folio_cpriv(hs_env_folio(env, id));
		if (k->lru != lru || folio_lru_list(k) != lru || (k->flags & F_SHADOW))
			return -EUCLEAN;
		/* Inactive lists are in stamp order, oldest at the reclaim end. */
		if (!is_active_lru(lru) && prev != HS_NIL &&
		    ((const struct l2q_folio *)hs_folio_cpriv(hs_env_folio(env, prev)))->seq >=
		    k->seq)
			return -EUCLEAN;
		prev = id;
		n++;
	}
	if (n != l->nr || l->tail != prev)
		return -EUCLEAN;
	*total += n;
	return 0;
}

static int l2q_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t listed = 0, resident = 0, shadows = 0;
	unsigned int lru, t;
	uint32_t i;

	for (lru = 0; lru < NR_LRU_LISTS; lru++)
		if (check_list(p, lru, &listed))
			return -EUCLEAN;
	for (i = 0; i < env->nr_keys; i++) {
		const struct hs_folio *f = hs_env_folio(env, i);
		const struct l2q_folio *k = hs_folio_cpriv(f);

		if ((k->flags & F_YOUNG) && !(k->flags & F_MAPPED))
			return -EUCLEAN;
		if (hs_folio_is_resident(f)) {
			resident++;
			if (k->lru == LRU_NONE)
				return -EUCLEAN;
			if ((k->flags & F_SC_PENDING) && !(k->flags & F_ACTIVE))
				return -EUCLEAN;
			continue;
		}
		if (k->lru != LRU_NONE)
			return -EUCLEAN;
		if (k->flags & F_SHADOW) {
			shadows++;
			if (k->seq >= p->nonresident_age)
				return -EUCLEAN;
			if (k->flags & ~(F_SHADOW | F_WORKINGSET | F_ANON))
				return -EUCLEAN;
		} else if (k->flags) {
			return -EUCLEAN;
		}
	}
	if (listed != resident || shadows != p->nr_shadows)
		return -EUCLEAN;
	if (p->shadow_max && (p->shadows.nr != shadows || shadows > p->shadow_max))
		return -EUCLEAN;
	for (t = 0; t < 2; t++)
		if (p->ws_restore[t] > p->ws_activate[t] || p->ws_activate[t] > p->ws_refault[t])
			return -EUCLEAN;
	/* Every step of nonresident_age has one of four causes (POLICIES.md §1b.12). */
	if (p->nonresident_age != p->age_evict + p->ws_activate[0] + p->ws_activate[1] +
				  p->age_promote + p->age_putback)
		return -EUCLEAN;
	return 0;
}

static void dump_list(const struct hs_policy *p, unsigned int lru, const char *name, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "  %s (%" PRIu64 ", reclaim end first):", name, p->lists[lru].nr);
	for (id = p->lists[lru].head; id != HS_NIL; id = hs_q_next(&p->q, id)) {
		const struct l2q_folio *k = lf_at(p, id);

		fprintf(fp, " %" PRIu32 "%s%s%s%s", id, (k->flags & F_REFERENCED) ? "r" : "",
			(k->flags & F_YOUNG) ? "y" : "", (k->flags & F_WORKINGSET) ? "w" : "",
			(k->flags & F_MAPPED) ? "m" : "");
	}
	fputc('\n', fp);
}

static void l2q_dump(const struct hs_policy *p, FILE *fp)
{
	fprintf(fp, "linux-2q: nonresident_age %" PRIu64 ", cost anon %" PRIu64 " file %" PRIu64
		", shadows %" PRIu64 ", second-chance records lost %" PRIu64 "\n",
		p->nonresident_age, p->cost[0], p->cost[1], p->nr_shadows, p->sc_lost);
	dump_list(p, LRU_INACTIVE_ANON, "inactive_anon", fp);
	dump_list(p, LRU_ACTIVE_ANON, "active_anon", fp);
	dump_list(p, LRU_INACTIVE_FILE, "inactive_file", fp);
	dump_list(p, LRU_ACTIVE_FILE, "active_file", fp);
}

static void l2q_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "l2q.active_anon", (double)lru_size(p, LRU_ACTIVE_ANON));
	hs_metrics_add(m, "l2q.inactive_anon", (double)lru_size(p, LRU_INACTIVE_ANON));
	hs_metrics_add(m, "l2q.active_file", (double)lru_size(p, LRU_ACTIVE_FILE));
	hs_metrics_add(m, "l2q.inactive_file", (double)lru_size(p, LRU_INACTIVE_FILE));
	hs_metrics_add(m, "l2q.workingset_refault",
		       (double)(p->ws_refault[0] + p->ws_refault[1]));
	hs_metrics_add(m, "l2q.workingset_activate",
		       (double)(p->ws_activate[0] + p->ws_activate[1]));
	hs_metrics_add(m, "l2q.workingset_restore",
		       (double)(p->ws_restore[0] + p->ws_restore[1]));
	hs_metrics_add(m, "l2q.pgactivate", (double)p->pgactivate);
	hs_metrics_add(m, "l2q.pgdeactivate", (double)p->pgdeactivate);
	hs_metrics_add(m, "l2q.pgscan", (double)p->pgscan);
	hs_metrics_add(m, "l2q.pgsteal", (double)p->pgsteal);
	hs_metrics_add(m, "l2q.pgrefill", (double)p->pgrefill);
	hs_metrics_add(m, "l2q.workingset_refault_anon", (double)p->ws_refault[0]);
	hs_metrics_add(m, "l2q.workingset_refault_file", (double)p->ws_refault[1]);
	hs_metrics_add(m, "l2q.nonresident_age", (double)p->nonresident_age);
	hs_metrics_add(m, "l2q.reclaims", (double)p->reclaims);
	hs_metrics_add(m, "l2q.oom", (double)p->oom);
	hs_metrics_add(m, "l2q.hint_skipped", (double)p->hint_skipped);
}

/* Folio mode: a page joined f (its folio), which counts one page more where it lies. */
static void l2q_grow(struct hs_policy *p, struct hs_folio *f)
{
	struct l2q_folio *k = lf(f);

	if (k->lru != LRU_NONE)
		p->pages[k->lru]++;
}

const struct hs_policy_ops hs_policy_linux_2q = {
	.abi		= HS_POLICY_ABI,
	.name		= "linux-2q",
	.summary	= "Linux active/inactive LRU with workingset refaults",
	.params		= l2q_params,
	.folio_priv	= sizeof(struct l2q_folio),
	.flags		= HS_POLICY_OWN_PAGEOUT | HS_POLICY_TLB | HS_POLICY_FOLIO_PAGES,
	.create		= l2q_create,
	.destroy	= l2q_destroy,
	.hit		= l2q_hit,
	.insert		= l2q_insert,
	.evict		= l2q_evict,
	.remove		= l2q_remove,
	.hint		= l2q_hint,
	.check		= l2q_check,
	.dump		= l2q_dump,
	.report		= l2q_report,
	.grow		= l2q_grow,
	.stats_flush	= l2q_stats_flush,
};
