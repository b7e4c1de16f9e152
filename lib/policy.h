/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replacement-policy interface.  A policy decides *which* folio to evict;
 * lib/sim.c owns the folio array, capacity accounting, statistics and shadow
 * entries, and is the only caller of these hooks.  A policy never touches
 * SQLite, files or the CLI.
 *
 * Per-key state: the driver allocates one record per dense key id for the
 * whole run (resident or not): a struct hs_folio followed by ops->folio_priv
 * bytes for the policy (zeroed at start).  Ghost lists (ARC's B1/B2, LIRS's
 * non-resident HIR blocks, MGLRU's shadow tokens) therefore live in the same
 * private area; link them with lib/qlist.h.
 *
 * Order of calls for one stream record (see lib/sim.c):
 *
 *   access, resident        ->hit()
 *   access, not resident    ->admit() (optional; false: not cached, nothing else)
 *                           while used + 1 > capacity: ->evict() (batch allowed)
 *                           ->refault() if the key has a shadow entry (optional)
 *                           ->insert()
 *   PAGEOUT/COLD, resident  ->hint() (optional; NULL: PAGEOUT evicts, COLD is
 *                           ignored); unless the policy sets
 *                           HS_POLICY_OWN_PAGEOUT, the driver's pageout mode
 *                           may turn a PAGEOUT eviction into a keep
 *                           (lib/sim.h); if the verdict is evict:
 *                           ->remove(HS_REMOVE_HINT)
 *   DROP                    ->remove(HS_REMOVE_DROP), resident or not
 *
 * That is the kernel's order: the memcg charge, and so reclaim, happens before
 * the shadow entry is looked up (workingset_refault()).
 */
#ifndef HS_POLICY_H
#define HS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "access.h"
#include "param.h"
#include "sim.h"

#define HS_POLICY_ABI	1

struct hs_policy;		/* opaque; defined privately in each policies/<name>.c */

enum hs_remove_reason {
	HS_REMOVE_DROP,		/* the trace says the kernel dropped the key (truncate,
				 * invalidate); the key may be resident or only remembered
				 * by the policy (ghost), or unknown to it */
	HS_REMOVE_HINT,		/* a resident folio the policy agreed to evict for a
				 * PAGEOUT hint: unlink it as for an eviction */
};

enum hs_hint_verdict {
	HS_HINT_KEEP	= 0,	/* the folio stays resident (maybe moved) */
	HS_HINT_EVICT	= 1,	/* evict it now; the driver calls ->remove(HS_REMOVE_HINT) */
};

/* ops->flags */
#define HS_POLICY_NEEDS_FUTURE	0x1u	/* offline policy: hs_access.next_use is filled */
#define HS_POLICY_ACCESSED_BIT	0x2u	/* ages on page-table accessed bits (MGLRU family):
					 * a session that saw only faults misleads it */
#define HS_POLICY_OWN_PAGEOUT	0x4u	/* decides PAGEOUT hints alone: the driver's
					 * pageout mode never filters its verdict (the
					 * kernel models, which follow their profile; they
					 * offer the user a "pageout" parameter instead) */
#define HS_POLICY_GEN_SERIES	0x8u	/* its time series (hs_sim_series_add()) is
					 * struct hs_gen_sample of lib/lrugen.h: the
					 * replay keeps it as run_generations */
#define HS_POLICY_TLB		0x10u	/* reads hs_access.tlb_hit: the replay models the
					 * workload's cached translations for it when the
					 * session has its TLB flushes (hs_sim_config.tlb) */
#define HS_POLICY_FOLIO_PAGES	0x20u	/* counts a folio's pages (hs_env_folio_pages(),
					 * ops->grow): the driver's folio mode applies to
					 * it (lib/sim.c, "Folios"); a policy that counts
					 * folios as units would take memory for free */
#define HS_POLICY_BULK_RECLAIM	0x40u	/* one evict() may free far more than it needs,
					 * up to every resident folio (the kernel's memcg
					 * reclaim runs a low-priority pass past its goal):
					 * the driver gives it room for them all, not
					 * 64 (lib/sim.c, hs_sim_new()) */

struct hs_policy_ops {
	unsigned int		abi;		/* must be HS_POLICY_ABI */
	const char		*name;		/* CLI name: "lru", "arc", "two-q" */
	const char		*summary;	/* one line for `hsctl policy list` */
	const struct hs_param	*params;	/* {NULL}-terminated table, or NULL */
	size_t			folio_priv;	/* bytes of per-key state the driver reserves */
	unsigned int		flags;		/* HS_POLICY_* */

	/*
	 * Lifecycle.  create() returns 0 or -errno and leaves *out untouched on
	 * error; env stays valid until destroy().  destroy() accepts NULL.
	 */
	int	(*create)(const struct hs_policy_env *env, const struct hs_param_set *ps,
			  struct hs_policy **out);
	void	(*destroy)(struct hs_policy *p);

	/*
	 * In every hook with an access @a, a->key is the id of the folio it is
	 * about (f, or incoming in evict()): a load, where hs_folio_id() is a
	 * subtraction, a shift and a multiply.
	 */

	/* A hit on a resident folio. */
	void	(*hit)(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a);

	/* A miss: room has been made; link f into the resident set. */
	void	(*insert)(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a);

	/*
	 * Choose victims because the miss on @incoming (not resident; its private
	 * state tells whether it is one of the policy's ghosts) needs @need more
	 * free units.  Unlink each victim from the resident structures (moving it
	 * to ghost lists is the policy's business), store it in victims[] and
	 * return how many: at least 1 while anything is resident, at most @max.
	 * Returning more than @need is a batch eviction (MGLRU).  Protections
	 * granted while searching are reported with hs_sim_protect().
	 */
	size_t	(*evict)(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			 size_t need, struct hs_folio **victims, size_t max);

	/* Unlink f: a drop (resident or not) or an agreed hint eviction. */
	void	(*remove)(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why);

	/* Optional: may be NULL. */

	/*
	 * Should the missed folio be cached at all?  Called before room is made;
	 * false means the miss is served without caching (OPT's bypass variant):
	 * no eviction, no refault(), no insert().  NULL: always admit.
	 */
	bool	(*admit)(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a);

	/*
	 * The miss is a refault: f has a shadow entry; called before insert().
	 * @distance: accesses since the eviction, or HS_DIST_ANCIENT when 2^31
	 * or more (lib/sim.h, struct hs_folio).
	 */
	void	(*refault)(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a,
			   uint64_t distance);
	/*
	 * PAGEOUT or COLD on a resident folio (a->channel tells which).  A
	 * policy without HS_POLICY_OWN_PAGEOUT leaves PAGEOUT to the driver's
	 * mode: it answers HS_HINT_EVICT without changing its state, since the
	 * driver may still keep the folio.
	 */
	enum hs_hint_verdict (*hint)(struct hs_policy *p, struct hs_folio *f,
				     const struct hs_access *a);
	/* Structural invariants: 0 or -EUCLEAN.  Tests call it after every hook. */
	int	(*check)(const struct hs_policy *p);
	/* Human-readable state for debugging. */
	void	(*dump)(const struct hs_policy *p, FILE *fp);
	/* Policy-specific end-of-run numbers: call hs_metrics_add() for each. */
	void	(*report)(const struct hs_policy *p, struct hs_metrics *m);
	/*
	 * f will be stepped a few records from now (hs_sim_run()), and its own
	 * record is in the cache or on its way: hs_prefetch() (lib/hs.h) the other
	 * memory the hooks will touch for it (list neighbours, ghost entries,
	 * heap slots).  It must not change anything, the policy's state
	 * included: with or without it the run is the same.  What it reads may
	 * be stale by the time f is stepped; a wrong prefetch costs only time.
	 * @key is f's id (hs_folio_id()), which the driver has in hand.  The
	 * driver calls it only for runs whose key records outgrow the L2 cache
	 * (lib/sim.c, hs_sim_run()): below, the lines it fetches are there
	 * already and the call only costs.
	 */
	void	(*prefetch)(struct hs_policy *p, const struct hs_folio *f, uint32_t key);
	/*
	 * Folio mode (lib/sim.c, "Folios"): a page joined resident folio f,
	 * which now stands for hs_env_folio_pages() pages, one more than
	 * before.  For policies that count pages; NULL: nothing to do.
	 */
	void	(*grow)(struct hs_policy *p, struct hs_folio *f);
	/*
	 * The recording's memory cgroup statistics were flushed here
	 * (hs_policy_env.memcg_flushes; lib/replay.c places the recorded
	 * memcg_flush_stats events on the stream).  For policies that model
	 * what the kernel reads from flushed statistics; NULL: nothing to do.
	 */
	void	(*stats_flush)(struct hs_policy *p);
};

/**
 * hs_policy_has_pageout() - does the policy decide PAGEOUT hints itself?
 * @ops: the policy
 *
 * Return: true when it sets HS_POLICY_OWN_PAGEOUT; the driver's pageout mode
 * reaches only the policies for which this is false.  Parameter names play no
 * part: a policy may call a parameter "pageout" and still get the driver's mode.
 */
static inline bool hs_policy_has_pageout(const struct hs_policy_ops *ops)
{
	return ops->flags & HS_POLICY_OWN_PAGEOUT;
}

/* Does the driver's folio mode apply to the policy (HS_POLICY_FOLIO_PAGES)? */
static inline bool hs_policy_folio_pages(const struct hs_policy_ops *ops)
{
	return ops->flags & HS_POLICY_FOLIO_PAGES;
}

/*
 * Hooks the driver may do in line.  The hit, insert and evict of the
 * simplest policies are each one list or bit operation, which costs less
 * than the indirect call that runs it: at a few thousand resident keys,
 * where the records stay in the cache, the calls and the struct hs_access
 * built for them were a third of the instructions of an LRU replay
 * (issue 13).  Such a policy describes its hooks from create() with
 * hs_sim_inline_hooks(), and hs_sim_run() then does the operation itself
 * where it can: a hit, or a miss, of an access that needs nothing else
 * (lib/sim.c, run_inline()).  The hooks stay, and must do exactly what
 * their description says: every other path (hs_sim_step(), a run without
 * prefetching, a hit on a folio with a protection pending, a hint) still
 * calls them, and tests/t-prefetch.c compares the two counter by counter.
 */
enum hs_inline_hit {
	HS_INLINE_HIT_CALL = 0,		/* call ops->hit() (the default) */
	HS_INLINE_HIT_NOP,		/* a hit changes nothing (FIFO) */
	HS_INLINE_HIT_MOVE_TAIL,	/* hs_q_move_tail() of the key on @list (LRU) */
	HS_INLINE_HIT_SET_BIT,		/* set the key's bit in @bits (CLOCK) */
	HS_INLINE_HIT_MOVE_TAIL_STAMP,	/* when the 64-bit word at @stamp_off in the
					 * key's record has (word & @stamp_mask) ==
					 * @stamp_want: hs_q_move_tail() of the key on
					 * @list, then word = @stamp_want | (seq &
					 * ~@stamp_mask); any other word: ops->hit() (ARC:
					 * a hit on T2 that is not COLD, the most of its
					 * hits) */
};

enum hs_inline_insert {
	HS_INLINE_INSERT_CALL = 0,	/* call ops->insert() */
	HS_INLINE_INSERT_PUSH_TAIL,	/* clear the key's bit in @bits if there are any,
					 * then hs_q_push_tail() of the key on @list */
};

enum hs_inline_evict {
	HS_INLINE_EVICT_CALL = 0,	/* call ops->evict() */
	HS_INLINE_EVICT_POP_HEAD,	/* the victims are hs_q_pop_head() of @list, one
					 * per unit needed (hs_q_evict_heads()) */
	HS_INLINE_EVICT_SECOND_CHANCE,	/* CLOCK's hand: while the head of @list has its
					 * bit in @bits set, clear it, move the key to the
					 * tail and report HS_PROT_SECOND_CHANCE; then the
					 * head is the victim, unlinked.  Each key looked
					 * at adds one to *@scanned */
};

struct hs_qctx;
struct hs_qlist;

struct hs_inline_hooks {
	enum hs_inline_hit	hit;
	enum hs_inline_insert	insert;
	enum hs_inline_evict	evict;
	const struct hs_qctx	*q;	/* where @list's links live */
	struct hs_qlist		*list;	/* the policy's list of resident keys */
	uint64_t		*bits;	/* one bit per key id, or NULL */
	uint64_t		*scanned; /* SECOND_CHANCE: the policy's count of keys
					 * the hand looked at */
	size_t			stamp_off; /* MOVE_TAIL_STAMP: the word's offset in the
					 * record, 8-byte aligned */
	uint64_t		stamp_mask; /* the word's bits tested */
	uint64_t		stamp_want; /* the value they must have */
};

/*
 * hs_sim_inline_hooks() - from create(): what the policy's hooks do (copied;
 * the pointers must stay valid until destroy())
 */
void hs_sim_inline_hooks(struct hs_sim *sim, const struct hs_inline_hooks *h);

const struct hs_policy_ops *hs_policy_find(const char *name);	/* NULL if unknown */
size_t hs_policy_count(void);
const struct hs_policy_ops *hs_policy_at(size_t i);		/* registry iteration */

#endif /* HS_POLICY_H */
