/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hitshield: the HitShield RFC patch (Minwoo Jo, linux-mm, 2 Aug 2024,
 * "Hitshield : Something new eviction process for MGLRU") as a delta on the
 * mglru policy, modelled as the patch's code does it, so that its claim can be
 * tested on any trace.
 */

/*
 * Design
 * ======
 *
 * Specification: POLICIES.md section 2.  The patch adds three page flags to a
 * folio: a shield S and a two-bit counter (c1 c0), and three rules:
 *
 *   R1 reset    lru_gen_add_folio() clears c1 c0 (S is kept): every insertion,
 *               put-back after reclaim, folio_activate(), deactivation.
 *   R2 count    folio_update_gen(), after its cmpxchg loop (so also when the
 *               folio is isolated and only gets PG_referenced), while S is
 *               clear: flip c0; if it was 1, flip c1; if that was 1 too, set
 *               S.  Starting from 00 the calls go 01, 10, 11, and the FOURTH
 *               call overflows: S is set and the counter is 00 again.  (The
 *               cover letter's "exceeds 5" is not what the bits do.)
 *   R3 consume  sort_folio(), as its last branch (after promoted, protected,
 *               ineligible and writeback): if S is set, clear it,
 *               folio_inc_gen(reclaiming = true) -- generation min_seq + 1,
 *               clearing refs and PG_referenced (and PG_workingset before
 *               6.14) -- move the folio to the young end of that list and
 *               report it sorted: one more trip through a generation.
 *
 *   aging walk --young--> folio_update_gen() --R2--> c = c + 1 (mod N) --> S
 *   eviction:  oldest gen tail --> sort_folio: promoted? protected? [R3: S?]
 *                                   |-- S set: clear S, to gen min_seq+1 --+
 *                                   +-- else isolate, reclaim              |
 *                                              ^--- later, once more ------+
 *
 * This file holds R1, R2, R3's bookkeeping, the statistics and their
 * invariants, and plugs them into the hook points mglru.c exposes (struct
 * hs_mglru_hooks in mglru.h): R1 into lru_gen_add_folio(), R2 into
 * folio_update_gen() (top or after its early return, per `hook`, and its
 * isolated branch), R3 into sort_folio() (per `consume`), and the useful and
 * wasted counts into the access and departure of a folio carrying S or a
 * spent shield.  mglru.c knows nothing of HitShield; the dependency runs one
 * way, as the patch sits on the kernel.  With threshold=0 no hook is plugged
 * in, so the simulation runs exactly mglru's code and gives its results on
 * every trace (testdata/golden/hitshield-off-*.golden mirrors
 * mglru-*.golden).
 *
 * Knobs (POLICIES.md 2.3-2.5), defaults are the patch's:
 *   threshold   S is set on the Nth counted folio_update_gen() since the last
 *               insertion; 4 is the two-bit counter, 0 turns HitShield off.
 *   hook        after_first_touch (the patch's place: after the function's
 *               early returns) or top.  Only p614 has an early return that
 *               matters (the first young PTE only sets PG_referenced), so on
 *               p614 a fresh folio needs 5 observations with the default and 4
 *               with top; on p61/p68 both are 4.
 *   consume     after_protected (the patch) or before_protected (S may then be
 *               spent on a folio the PID would have protected anyway).
 *   The patch was written on 6.8: profile p68 is the default, p61, p63 and
 *   p614 are forward/back ports of the same three hunks.
 *
 * What counts as a folio_update_gen() call in the simulation: one per aging
 * in which the folio's accessed bit was set (one mapping, one call; several
 * accesses between two agings are one call), plus look-around with an mm_walk
 * (reclaimer=kswapd, or p63) -- including the reclaimed folio's own young PTE,
 * which reaches the isolated branch of folio_update_gen() and so counts.
 * Without a walk (memcg reclaim on 6.8+) look-around calls folio_activate(),
 * an add, which resets the counter instead.  On p61 (6.1-6.2) the reclaimed
 * folio and isolated neighbours are only marked referenced (no count); the
 * other young neighbours are counted when updated in place (a walk, or 15 or
 * more of them) and reset when activated.  Neighbours are real ones only on
 * recorded sessions (mglru.c, lookaround=auto).
 *
 * Statistics (report()): shields set; shields spent; spent and useful (the
 * folio was accessed again before it left); spent and wasted (evicted with
 * no further access); stale (spent four or more agings after it was set: a
 * whole generation cycle); occupancy (resident folios carrying S, as a share
 * of capacity, averaged over accesses).  S is lost when its folio is evicted
 * or dropped; it survives re-insertion, and while S is set R2 stops counting.
 * Each spend is also reported to the driver as HS_PROT_SHIELD.
 *
 * What to expect.  R1 resets the counter on every add, and under MGLRU a
 * folio that is hot through page tables is re-added each time its generation
 * is scanned: the reference check finds its accessed bit and puts it back
 * with PG_active.  With section 1.9's reclaim loop and p68 that comes before
 * the 4th counted call, and no shield is set on a YCSB-F-like anonymous
 * stream.  With reclaim_loop=kernel shields are common (6,296 set, 4,059
 * spent at 30 % of the README's ycsb-f), yet swap-ins fall only 1.3 %: a
 * spend buys one generation, after which the folio is in the oldest one
 * again, and the memory it keeps is another folio's.  threshold=1 (a shield
 * on every counted call) makes swap-ins worse (+1.1 %).  Many mappings per
 * folio, or large folios whose PTEs are walked in several runs, would count
 * faster; the simulation has neither.  On generated streams its aging walk
 * visits every young folio (mglru walk=all), so it counts at least as often
 * as the kernel; recorded sessions get the kernel's Bloom-filtered walk
 * (walk=bloom), which leaves sparse young folios to eviction's reference
 * check: those are re-added, which resets the counter.
 *
 * Not modelled (POLICIES.md 2.5): PG_reclaim from folio_inc_gen(reclaiming)
 * is PG_readahead on file folios (no readahead model); three more page flags
 * could shrink LRU_REFS_WIDTH on crowded configurations (the simulation keeps
 * two refs bits).  Memory per key is mglru's: S, the counter and the aging
 * count at which S was set live in its 16-byte area.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "hs.h"
#include "mglru.h"
#include "param.h"
#include "policy.h"

static const struct hs_param hitshield_params[] = {
	HS_MGLRU_PARAMS,
	{ .name = "threshold", .type = HS_PARAM_U64, .def = "4", .min = 0, .max = 255,
	  .help = "shield on the Nth folio_update_gen() since insertion (patch: 4); 0 = off" },
	{ .name = "hook", .type = HS_PARAM_ENUM, .def = "after_first_touch",
	  .choices = "after_first_touch|top",
	  .help = "where folio_update_gen() counts (matters on p614 only)" },
	{ .name = "consume", .type = HS_PARAM_ENUM, .def = "after_protected",
	  .choices = "after_protected|before_protected",
	  .help = "where sort_folio() spends the shield, relative to tier protection" },
	{ .name = NULL },
};

enum hitshield_hook {
	HS_HOOK_AFTER_FIRST_TOUCH, /* the patch's place: after folio_update_gen's returns */
	HS_HOOK_TOP,		/* at the top of folio_update_gen() */
};

enum hitshield_consume {
	HS_CONSUME_AFTER_PROTECTED,	/* the patch: sort_folio()'s last branch */
	HS_CONSUME_BEFORE_PROTECTED,	/* before the tier-protection branch */
};

/* The patch's state on one lruvec (hs_policy.patch). */
struct hitshield {
	unsigned int	threshold;	/* S is set on this counted call; 0: off */
	uint64_t	set;		/* shields set */
	uint64_t	spent;		/* shields spent by R3 */
	uint64_t	useful;		/* spent, then accessed before leaving */
	uint64_t	wasted;		/* spent, then evicted untouched */
	uint64_t	stale;		/* spent >= 4 agings after being set */
	uint64_t	resident;	/* resident folios carrying a shield now */
	uint64_t	occ_sum;	/* resident summed over accesses, up to occ_mark */
	uint64_t	occ_mark;	/* the lruvec's accesses when resident last changed */
};

static inline struct hitshield *hs_of(const struct hs_policy *p)
{
	return p->patch;
}

/* The number of resident shields changes by @delta: settle occupancy so far. */
static void shields_change(struct hs_policy *p, struct hitshield *h, int delta)
{
	h->occ_sum += h->resident * (p->accesses - h->occ_mark);
	h->occ_mark = p->accesses;
	h->resident += (uint64_t)(int64_t)delta;
}

/* R1 (hooks.add): every add clears the counter; a shield is kept. */
static void hitshield_add(struct hs_policy *p, struct mglru_folio *k)
{
	(void)p;
	if (!(k->more & MX_SHIELD))
		k->stamp = 0;
}

/* R2 (hooks.update_gen*): one counted folio_update_gen() call, on a list or isolated. */
static void hitshield_count(struct hs_policy *p, struct mglru_folio *k)
{
	struct hitshield *h = hs_of(p);

	if (k->more & MX_SHIELD)
		return;		/* frozen while the shield is up */
	if (++k->stamp < h->threshold)
		return;
	/* the carry out of c1 wraps the counter; stamp now dates the shield */
	k->more |= MX_SHIELD;
	k->stamp = (uint32_t)p->agings;
	h->set++;
	shields_change(p, h, 1);
}

/*
 * R3 (hooks.sort_early or sort_last): spend the shield of a folio in the
 * oldest generation under sort_folio().  The base moves it (folio_inc_gen(),
 * young end of min_seq + 1) when this returns true.
 */
static bool hitshield_spend(struct hs_policy *p, struct hs_folio *f, struct mglru_folio *k)
{
	struct hitshield *h = hs_of(p);

	if (!(k->more & MX_SHIELD))
		return false;
	k->more &= (uint8_t)~MX_SHIELD;
	shields_change(p, h, -1);
	h->spent++;
	if ((uint32_t)p->agings - k->stamp >= MAX_NR_GENS)
		h->stale++;
	k->stamp = 0;		/* the counter runs again from 00 */
	k->more |= MX_SPENT;
	hs_sim_protect(p->env->sim, f, HS_PROT_SHIELD);
	return true;
}

/* hooks.access: an access to a folio whose shield was spent. */
static void hitshield_useful(struct hs_policy *p, struct mglru_folio *k)
{
	k->more &= (uint8_t)~MX_SPENT;
	hs_of(p)->useful++;
}

/*
 * hooks.leave: the folio leaves memory and its shield goes with it; a spent
 * shield was wasted if the folio was @evicted (reclaim or a hint), not dropped.
 */
static void hitshield_leave(struct hs_policy *p, struct mglru_folio *k, bool evicted)
{
	struct hitshield *h = hs_of(p);

	if (k->more & MX_SHIELD)
		shields_change(p, h, -1);
	if ((k->more & MX_SPENT) && evicted)
		h->wasted++;
}

static int hitshield_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
			    struct hs_policy **out)
{
	struct hs_mglru_hooks hooks = {
		.add			= hitshield_add,
		.update_gen_isolated	= hitshield_count,
		.access			= hitshield_useful,
		.leave			= hitshield_leave,
	};
	struct hitshield *h;
	struct hs_policy *p;
	int err;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->threshold = (unsigned int)hs_param_u64(ps, "threshold");
	if (hs_param_enum(ps, "hook") == HS_HOOK_TOP)
		hooks.update_gen_top = hitshield_count;
	else
		hooks.update_gen = hitshield_count;
	if (hs_param_enum(ps, "consume") == HS_CONSUME_BEFORE_PROTECTED)
		hooks.sort_early = hitshield_spend;
	else
		hooks.sort_last = hitshield_spend;
	/* threshold 0 turns the patch off: plain mglru, metrics all zero */
	err = hs_mglru_create(env, ps, h->threshold ? &hooks : NULL, &p);
	if (err) {
		free(h);
		return err;
	}
	p->patch = h;
	*out = p;
	return 0;
}

static void hitshield_destroy(struct hs_policy *p)
{
	if (!p)
		return;
	free(p->patch);
	hs_mglru_destroy(p);
}

/*
 * mglru's invariants, then the patch's: the resident shields are counted
 * right, and a resident folio without one has a counter below the threshold.
 */
static int hitshield_check(const struct hs_policy *p)
{
	const struct hitshield *h = hs_of(p);
	uint64_t shields = 0;
	uint32_t i;
	int err;

	err = hs_mglru_check(p);
	if (err)
		return err;
	for (i = 0; i < p->env->nr_keys; i++) {
		const struct hs_folio *f = hs_env_folio(p->env, i);
		const struct mglru_folio *k = mglru_cpriv(f);

		if (!hs_folio_is_resident(f))
			continue;
		shields += mx(k, MX_SHIELD);
		if (h->threshold && !(k->more & MX_SHIELD) && k->stamp >= h->threshold)
			return -EUCLEAN;
	}
	return shields == h->resident ? 0 : -EUCLEAN;
}

static void hitshield_report(const struct hs_policy *p, struct hs_metrics *m)
{
	const struct hitshield *h = hs_of(p);
	double denom = (double)p->accesses * (double)p->env->capacity;
	double occ = (double)(h->occ_sum + h->resident * (p->accesses - h->occ_mark));

	hs_mglru_report(p, m);
	hs_metrics_add(m, "hitshield.shields_set", (double)h->set);
	hs_metrics_add(m, "hitshield.shields_spent", (double)h->spent);
	hs_metrics_add(m, "hitshield.spent_useful", (double)h->useful);
	hs_metrics_add(m, "hitshield.spent_wasted", (double)h->wasted);
	hs_metrics_add(m, "hitshield.stale", (double)h->stale);
	hs_metrics_add(m, "hitshield.shielded", (double)h->resident);
	hs_metrics_add(m, "hitshield.occupancy", denom > 0 ? occ / denom : 0);
}

const struct hs_policy_ops hs_policy_hitshield = {
	.abi		= HS_POLICY_ABI,
	.name		= "hitshield",
	.summary	= "MGLRU plus HitShield (2024): shield on the 4th aging hit",
	.params		= hitshield_params,
	.folio_priv	= sizeof(struct mglru_folio),
	.flags		= HS_POLICY_ACCESSED_BIT | HS_POLICY_OWN_PAGEOUT | HS_POLICY_TLB |
			  HS_POLICY_GEN_SERIES | HS_POLICY_BULK_RECLAIM,
	.create		= hitshield_create,
	.destroy	= hitshield_destroy,
	.hit		= hs_mglru_hit,
	.insert		= hs_mglru_insert,
	.evict		= hs_mglru_evict,
	.remove		= hs_mglru_remove,
	.refault	= hs_mglru_refault,
	.hint		= hs_mglru_hint,
	.check		= hitshield_check,
	.dump		= hs_mglru_dump,
	.report		= hitshield_report,
};
