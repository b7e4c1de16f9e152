/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mglru policy's internals, for the patches that sit on it: the per-folio
 * state kept in the driver's private area, the lruvec that one simulated memcg
 * owns, the parameter table, the hooks shared by the ops tables, and the hook
 * points a patch plugs into (struct hs_mglru_hooks).  The dependency runs one
 * way, as the HitShield patch sits on the kernel's MGLRU: policies/hitshield.c
 * fills the hook points and calls hs_mglru_create(); mglru.c knows no patch.
 * Nothing here is a public interface; only the ops tables are registered.
 */
#ifndef HS_MGLRU_H
#define HS_MGLRU_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"
#include "qlist.h"

/* include/linux/mmzone.h, swap.h */
#define MIN_NR_GENS	2	/* the two youngest generations count as active */
#define MAX_NR_GENS	4	/* sliding window of generations */
#define MAX_NR_TIERS	4	/* tiers per generation */
#define ANON_AND_FILE	2
#define LRU_GEN_ANON	0	/* kernel type index (hs_type uses the other order) */
#define LRU_GEN_FILE	1
#define LRU_REFS_MASK	3u	/* the 2-bit refs counter saturates at 3 */
#define DEF_PRIORITY	12	/* first reclaim pass */
#define MAX_SWAPPINESS	200

enum mglru_profile {
	MGLRU_P61,		/* v6.1 .. v6.7 (p61: 6.1-6.2's look-around, p63: later) */
	MGLRU_P68,		/* v6.8 .. v6.13: HitShield's base */
	MGLRU_P614,		/* v6.14 .. */
};

enum mglru_pageout {
	MGLRU_PAGEOUT_PROFILE,	/* recheck before 6.10 (p61, p68), ignore-references after */
	MGLRU_PAGEOUT_RECHECK,	/* evict unless touched within recheck_window accesses */
	MGLRU_PAGEOUT_IGNORE_REFS, /* evict every resident page of the hint */
	MGLRU_PAGEOUT_IGNORE,	/* drop the hint */
};

enum mglru_cold {
	MGLRU_COLD_KERNEL,	/* folio_deactivate(): delete and re-add (lru_gen_add_folio) */
	MGLRU_COLD_OLDEST,	/* POLICIES.md 2b literally: eviction end of the oldest gen */
};

enum mglru_lookaround {
	MGLRU_LA_AUTO,		/* the parameter's default: ADDR with addresses, else OFF */
	MGLRU_LA_OFF,		/* only the reclaimed folio's own PTE */
	MGLRU_LA_IDS,		/* key ids taken as page numbers (one address space) */
	MGLRU_LA_ADDR,		/* the keys' real addresses (hs_policy_env.neigh) */
};

enum mglru_reclaimer {
	MGLRU_RECLAIMER_MEMCG,	/* memcg-limit direct reclaim: no mm_walk when evicting */
	MGLRU_RECLAIMER_KSWAPD,	/* kswapd: look-around always has a walk context */
};

/* struct mglru_folio .flags: the page flags MGLRU reads, and the simulator's own */
#define MF_REFERENCED	0x01u	/* PG_referenced */
#define MF_WORKINGSET	0x02u	/* PG_workingset */
#define MF_ACTIVE	0x04u	/* PG_active: set only while off the lists */
#define MF_ABIT		0x08u	/* a PTE accessed bit is set (one mapping per folio) */
#define MF_YOUNG	0x10u	/* the id is on the young vector (maybe stale) */
#define MF_ANON		0x20u	/* type of this life (and of the token): anonymous */
#define MF_SWAPCACHE	0x40u	/* anon, swapped in and not written since */
#define MF_TOKEN	0x80u	/* evicted with a shadow token; live only while
				 * ring[link.prev] is still this folio */

/* struct mglru_folio .more */
#define MX_REFS		0x03u	/* the LRU_REFS counter, 0..3 */
#define MX_TOKEN_REFS	0x0cu	/* the token's max(refs - 1, 0) */
#define MX_TOKEN_SHIFT	2
#define MX_TOKEN_WS	0x10u	/* the token's workingset bit */
/*
 * The patch's page flags (hitshield.c: PG_hitshield, and a shield spent with
 * no access since).  mglru.c never sets them; it tests them only so that the
 * common path skips the hooks that care (struct hs_mglru_hooks).
 */
#define MX_SHIELD	0x20u
#define MX_SPENT	0x40u

/**
 * struct mglru_folio - per-folio state (the driver's private area, 16 bytes)
 *
 * Byte fields mirror folio->flags: the gen field (gen + 1, 0 while the folio
 * is isolated or not resident), the refs counter, PG_referenced,
 * PG_workingset and PG_active.  The physical list a folio sits on (lgen) can
 * differ from its gen field: folio_update_gen() only rewrites the field, and
 * sort_folio() or inc_min_seq() moves the list entry later, as in the kernel.
 */
struct mglru_folio {
	struct hs_qlink	link;		/* resident: on folios[lgen][type]; evicted with a
					 * shadow token: link.prev is its ring slot */
	uint32_t	stamp;		/* evicted with a token: min_seq at eviction (the
					 * token's seq, truncated); resident: the patch's
					 * (hitshield.c: its counter, or the aging count
					 * when the shield was set) */
	uint8_t		gen;		/* gen + 1; 0: not on a list */
	uint8_t		lgen;		/* generation list the entry is on (gen != 0) */
	uint8_t		flags;		/* MF_* */
	uint8_t		more;		/* MX_* */
};

static inline unsigned int fl(const struct mglru_folio *k, unsigned int mask)
{
	return !!(k->flags & mask);
}

static inline unsigned int mx(const struct mglru_folio *k, unsigned int mask)
{
	return !!(k->more & mask);
}

static inline unsigned int refs_of(const struct mglru_folio *k)
{
	return k->more & MX_REFS;
}

static inline void set_refs(struct mglru_folio *k, unsigned int refs)
{
	k->more = (uint8_t)((k->more & ~MX_REFS) | refs);
}

static inline unsigned int token_refs_of(const struct mglru_folio *k)
{
	return (k->more & MX_TOKEN_REFS) >> MX_TOKEN_SHIFT;
}

static inline void set_token_refs(struct mglru_folio *k, unsigned int refs)
{
	k->more = (uint8_t)((k->more & ~MX_TOKEN_REFS) | refs << MX_TOKEN_SHIFT);
}

static inline void set_fl(struct mglru_folio *k, unsigned int mask, bool on)
{
	k->flags = (uint8_t)(on ? k->flags | mask : k->flags & ~mask);
}

/*
 * shadow=kernel: one leaf node of a page cache's xarray (64 consecutive
 * indexes of one file; anonymous keys and keys without an address: 64
 * consecutive key ids).  A node holding shadow entries and no page sits on the
 * shadow LRU (workingset_update_node()), oldest first, for the shrinker.
 */
struct mglru_snode {
	struct hs_qlink	link;		/* on the shadow LRU (lib/qlist.h, by node) */
	uint16_t	pages;		/* resident keys of the node */
	uint16_t	shadows;	/* non-resident keys holding a token */
	uint8_t		on_lru;		/* shadows && !pages */
};

/* The PID controller's view of one type and tier (read_ctrl_pos()). */
struct mglru_ctrl_pos {
	uint64_t	refaulted;	/* EWMA plus the current period */
	uint64_t	total;		/* evicted plus protected, EWMA plus current */
	unsigned int	gain;		/* weight of this side */
};

struct hs_policy;

/**
 * struct hs_mglru_hooks - where a patch plugs into the base
 *
 * Each hook sits where the kernel code a patch changes runs; NULL is the
 * unpatched kernel (plain mglru has every hook NULL).  A patch keeps its state
 * in hs_policy.patch, its per-folio bits in MX_SHIELD, MX_SPENT and, while
 * the folio is resident, stamp.
 */
struct hs_mglru_hooks {
	/* lru_gen_add_folio(): @k joins a generation list (insertion, put-back, activation) */
	void	(*add)(struct hs_policy *p, struct mglru_folio *k);
	/* folio_update_gen() on a folio on the lists: at its top */
	void	(*update_gen_top)(struct hs_policy *p, struct mglru_folio *k);
	/* ...or after its early return (p614's first young PTE only sets PG_referenced) */
	void	(*update_gen)(struct hs_policy *p, struct mglru_folio *k);
	/* folio_update_gen() reaching its isolated branch (look-around with an mm_walk) */
	void	(*update_gen_isolated)(struct hs_policy *p, struct mglru_folio *k);
	/*
	 * sort_folio() on a folio carrying MX_SHIELD, before the tier-protection
	 * branch or as its last branch: true sends the folio to min_seq + 1
	 * (folio_inc_gen(reclaiming), young end) instead of isolating it.
	 */
	bool	(*sort_early)(struct hs_policy *p, struct hs_folio *f, struct mglru_folio *k);
	bool	(*sort_last)(struct hs_policy *p, struct hs_folio *f, struct mglru_folio *k);
	/* an access to a folio carrying MX_SPENT */
	void	(*access)(struct hs_policy *p, struct mglru_folio *k);
	/* a folio carrying MX_SHIELD or MX_SPENT leaves: @evicted (reclaim, hint) or dropped */
	void	(*leave)(struct hs_policy *p, struct mglru_folio *k, bool evicted);
};

/**
 * struct hs_policy - one simulated lruvec (one memcg on one node)
 *
 * Lists are lib/qlist.h lists whose head is the kernel's list tail: the
 * eviction end.  The kernel's list_add() (young end) is hs_q_push_tail(),
 * list_add_tail() (eviction end) is hs_q_push_head().
 */
struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's records, valid until destroy */
	struct hs_qctx	q;			/* where the links live */
	struct hs_qlist	folios[MAX_NR_GENS][ANON_AND_FILE]; /* lrugen->folios, physical */
	uint64_t	nr_pages[MAX_NR_GENS][ANON_AND_FILE]; /* by gen field (logical) */
	uint64_t	max_seq;			/* youngest generation */
	uint64_t	min_seq[ANON_AND_FILE];		/* oldest generation per type */
	uint64_t	avg_refaulted[ANON_AND_FILE][MAX_NR_TIERS]; /* PID EWMA */
	uint64_t	avg_total[ANON_AND_FILE][MAX_NR_TIERS];	/* PID EWMA */
	uint64_t	refaulted[ANON_AND_FILE][MAX_NR_TIERS];	/* this period (hist 0) */
	uint64_t	evicted[ANON_AND_FILE][MAX_NR_TIERS];	/* this period */
	uint64_t	protected[ANON_AND_FILE][MAX_NR_TIERS];	/* this period, by tier (the
							 * kernel's [tier - 1] before 6.14) */
	uint32_t	*ring;			/* shadow token slots, oldest overwritten first:
						 * a token is live while its slot still holds
						 * its folio's id */
	uint64_t	ring_size;		/* slots: shadow_factor * capacity, <= keys */
	uint64_t	ring_pos;		/* slots written so far */
	uint32_t	ring_next;		/* next slot to write */
	bool		shadow_kernel;		/* shadow=kernel: nodes below, no ring */
	uint32_t	*node_of;		/* per key: its node */
	uint32_t	*node_keys;		/* keys by node, node_first[n] .. [n + 1] - 1 */
	uint32_t	*node_first;		/* nr_nodes + 1 entries */
	struct mglru_snode *nodes;
	uint32_t	nr_nodes;
	struct hs_qctx	nq;			/* the nodes' links, for hs_q_*() */
	struct hs_qlist	shadow_lru;		/* shadow-only nodes, oldest at head */
	uint64_t	max_nodes;		/* count_shadow_nodes(): capacity >> 3 */
	uint64_t	shrink_deferred;	/* do_shrink_slab()'s nr_deferred */
	uint64_t	nodes_freed;		/* nodes the shrinker freed */
	uint32_t	*young;			/* ids whose accessed bit was set (may be stale) */
	size_t		nr_young;		/* entries in young */
	size_t		young_cap;		/* allocated entries */
	uint32_t	*iso;			/* ids isolated by the current eviction pass */
	size_t		nr_iso;			/* entries in iso */
	uint32_t	*last_access;		/* per key: seq of the last access (only when
						 * recheck_window > 0), else NULL */

	/* configuration */
	enum mglru_profile profile;		/* kernel version */
	unsigned int	swappiness;		/* 0 .. 200 */
	unsigned int	swap_eff;		/* swappiness of the running reclaim */
	size_t		batch;			/* isolations per pass (MIN_LRU_BATCH) */
	uint64_t	reclaim;		/* reclaim goal (SWAP_CLUSTER_MAX) */
	uint64_t	max_scan;		/* folios scanned per pass (MAX_LRU_BATCH) */
	uint64_t	floor;			/* PID "too few refaults" floor (MIN_LRU_BATCH) */
	enum mglru_lookaround lookaround;	/* resolved: never MGLRU_LA_AUTO */
	bool		la61;			/* profile p61: 6.1-6.2's look-around (before
						 * "simplify lru_gen_look_around()") */
	bool		walk_live;		/* p61 memcg: an aging of this reclaim left
						 * its mm_walk set (until the reclaim ends) */
	bool		kswapd;			/* reclaimer = kswapd */
	bool		active_clears_refs;	/* p68: PG_active add clears refs, referenced */
	bool		tlb;			/* heed hs_access.tlb_hit (param tlb) */
	enum mglru_pageout pageout;		/* resolved: never MGLRU_PAGEOUT_PROFILE */
	uint64_t	recheck_window;		/* accesses; 0: only a concurrent touch */
	enum mglru_cold	cold;			/* COLD hint model */
	bool		kernel_loop;		/* reclaim_loop=kernel (else section 1.9's) */
	bool		bloom;			/* walk=bloom: the walk skips page tables */
	uint32_t	*table_of;		/* walk=bloom, per key: its page table, or
						 * HS_NIL (no address: always walked) */
	uint32_t	nr_tables;		/* page tables: (space, page >> 9) */
	uint8_t		*filter;		/* per table: bit (seq & 1) set when the Bloom
						 * filter of seq holds it */
	bool		filter_live[2];		/* that filter exists (reset_bloom_filter()) */
	uint16_t	*tyoung;		/* per table: young PTEs the running walk found */
	uint32_t	*twalked;		/* tables the running walk found young PTEs in */
	bool		walked;			/* walk=bloom: a walk has run */
	uint64_t	walk_accesses;		/* accesses when it last ran */

	/* a patch on the base (hitshield.c); all NULL for mglru */
	struct hs_mglru_hooks hooks;		/* copied: one load per hook point */
	void		*patch;			/* the patch's state; the patch frees it */

	/* statistics */
	uint64_t	agings;			/* inc_max_seq() calls */
	uint64_t	promotions;		/* folio_update_gen() that changed the gen */
	uint64_t	sort_promoted;		/* sort_folio(): promoted branch */
	uint64_t	tier_protected;		/* sort_folio(): protected branch */
	uint64_t	rejected;		/* kept by the reference check at eviction */
	uint64_t	pgscan;			/* isolated */
	uint64_t	pgrefill;		/* sorted */
	uint64_t	forced;			/* evictions by the no-progress safety net */
	uint64_t	la_young;		/* young neighbours look-around found */
	uint64_t	walk_skipped;		/* young folios an aging walk left (Bloom filter) */
	uint64_t	ws_refault[ANON_AND_FILE];	/* WORKINGSET_REFAULT_{ANON,FILE} */
	uint64_t	ws_activate[ANON_AND_FILE];	/* WORKINGSET_ACTIVATE_* */
	uint64_t	ws_restore[ANON_AND_FILE];	/* WORKINGSET_RESTORE_* */
	uint64_t	accesses;		/* hit() + insert() calls */
	uint64_t	sum_evicted[MAX_NR_TIERS];	/* whole run, both types, by tier: */
	uint64_t	sum_refaulted[MAX_NR_TIERS];	/* the PID's inputs, never reset, */
	uint64_t	sum_protected[MAX_NR_TIERS];	/* to compare with a kernel's */
};

static inline struct mglru_folio *mglru_priv(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static inline const struct mglru_folio *mglru_cpriv(const struct hs_folio *f)
{
	return hs_folio_cpriv(f);
}

/*
 * mglru's parameters; a patch appends its own (hitshield.c).  The defaults
 * are the kernel's (profile p68, the base of the HitShield patch).
 */
#define HS_MGLRU_PARAMS \
	{ .name = "profile", .type = HS_PARAM_ENUM, .def = "p68", .choices = "p61|p63|p68|p614", \
	  .help = "kernel version: p61 = 6.1-6.2, p63 = 6.3-6.7, p68 = 6.8-6.13, p614 = 6.14+" }, \
	{ .name = "swappiness", .type = HS_PARAM_U64, .def = "60", .min = 0, .max = 200, \
	  .help = "anon:file balance (vm.swappiness); 0 keeps anon resident while file exists" }, \
	{ .name = "batch", .type = HS_PARAM_U64, .def = "64", .min = 1, .max = 4096, \
	  .help = "folios isolated per eviction pass (MIN_LRU_BATCH)" }, \
	{ .name = "reclaim", .type = HS_PARAM_U64, .def = "32", .min = 1, .max = 4096, \
	  .help = "pages one reclaim tries to free (SWAP_CLUSTER_MAX)" }, \
	{ .name = "scale", .type = HS_PARAM_ENUM, .def = "auto", .choices = "auto|true|false", \
	  .help = "true: below 32768 pages use reclaim <= capacity/1024, batch <= capacity/512 " \
		  "(>= 1); false: the kernel's 32/64 at any size; auto: false for recorded " \
		  "sessions (real addresses), else true" }, \
	{ .name = "shadow", .type = HS_PARAM_ENUM, .def = "kernel", .choices = "kernel|ring", \
	  .help = "kernel: a token per evicted page, whole 64-page nodes freed past " \
		  "capacity/8 shadow-only nodes (mm/workingset.c); ring: shadow_factor slots" }, \
	{ .name = "shadow_factor", .type = HS_PARAM_DOUBLE, .def = "2", .min = 0, .max = 1e6, \
	  .help = "shadow=ring: token slots, a multiple of capacity (oldest overwritten first)" }, \
	{ .name = "lookaround", .type = HS_PARAM_ENUM, .def = "auto", .choices = "auto|off|ids", \
	  .help = "auto: a reclaimed page's 64 PTE neighbours by real address (recorded " \
		  "sessions), else none; off; ids: key ids as page numbers" }, \
	{ .name = "reclaimer", .type = HS_PARAM_ENUM, .def = "memcg", .choices = "memcg|kswapd", \
	  .help = "memcg: no mm_walk at eviction (6.8+; 6.1-6.2 until it ages); kswapd: one" }, \
	{ .name = "refault_floor", .type = HS_PARAM_U64, .def = "64", .min = 0, .max = 4294967296.0, \
	  .help = "PID controller: refaults below this count never protect (MIN_LRU_BATCH)" }, \
	{ .name = "pageout", .type = HS_PARAM_ENUM, .def = "profile", \
	  .choices = "profile|recheck|ignore-references|ignore", \
	  .help = "PAGEOUT hints: profile = recheck before 6.10, ignore-references after" }, \
	{ .name = "recheck_window", .type = HS_PARAM_U64, .def = "0", .min = 0, \
	  .max = 2147483648.0, \
	  .help = "pageout=recheck keeps a page accessed within this many accesses" }, \
	{ .name = "cold", .type = HS_PARAM_ENUM, .def = "kernel", .choices = "kernel|oldest", \
	  .help = "COLD hints: kernel = folio_deactivate() re-add; oldest = oldest gen tail" }, \
	{ .name = "activate_clears_refs", .type = HS_PARAM_BOOL, .def = "false", \
	  .help = "p68 only: adding a PG_active folio clears refs and PG_referenced (6.13)" }, \
	{ .name = "tlb", .type = HS_PARAM_BOOL, .def = "false", \
	  .help = "a touch through a cached translation sets no accessed bit (recorded sessions " \
		  "with TLB events; others have no cache to hit); off by default" }, \
	{ .name = "reclaim_loop", .type = HS_PARAM_ENUM, .def = "auto", .choices = "auto|spec|kernel", \
	  .help = "spec: reclaim until the goal, priority drops on an empty pass; kernel: priority " \
		  "passes; auto: kernel for recorded sessions (real addresses) unless every " \
		  "memcg reclaim of a recorded MGLRU kernel freed 128 pages or fewer, else spec" }, \
	{ .name = "walk", .type = HS_PARAM_ENUM, .def = "auto", .choices = "auto|all|bloom", \
	  .help = "aging walk: all young folios; bloom: only page tables its Bloom filter holds " \
		  "(real addresses); auto: bloom for recorded sessions, else all" }

/**
 * hs_mglru_create() - set up an lruvec for mglru or a patch on it
 * @env: the driver's description of the run
 * @ps: parameters (HS_MGLRU_PARAMS, and a patch's own, which are not read)
 * @hooks: the patch's hook points (copied), or NULL for plain mglru
 * @out: the new policy; patch is NULL, for the caller to set
 *
 * Return: 0, -ENOMEM, or -EINVAL (a record layout other than lib/sim.c's).
 */
int hs_mglru_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		    const struct hs_mglru_hooks *hooks, struct hs_policy **out);

/* The ops hooks, shared by the ops tables (policy.h documents them). */
void hs_mglru_destroy(struct hs_policy *p);
void hs_mglru_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a);
void hs_mglru_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a);
size_t hs_mglru_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
		      size_t need, struct hs_folio **victims, size_t max);
void hs_mglru_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why);
void hs_mglru_refault(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a,
		      uint64_t distance);
enum hs_hint_verdict hs_mglru_hint(struct hs_policy *p, struct hs_folio *f,
				   const struct hs_access *a);
int hs_mglru_check(const struct hs_policy *p);
void hs_mglru_dump(const struct hs_policy *p, FILE *fp);
void hs_mglru_report(const struct hs_policy *p, struct hs_metrics *m);

#endif /* HS_MGLRU_H */
