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
 * This file holds R2, R3's bookkeeping and the statistics; mglru.c calls them
 * from folio_update_gen() and sort_folio() when the policy is hitshield with
 * a non-zero threshold, and clears the counter in lru_gen_add_folio() (R1,
 * a no-op for mglru, whose counter is always zero).  So with threshold=0 the
 * simulation runs exactly mglru's code and gives its results on every trace
 * (testdata/golden/hitshield-off-*.golden mirrors mglru-*.golden).
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
 *   The patch was written on 6.8: profile p68 is the default, p61 and p614
 *   are forward/back ports of the same three hunks.
 *
 * What counts as a folio_update_gen() call in the simulation: one per aging
 * in which the folio's accessed bit was set (one mapping, one call; several
 * accesses between two agings are one call), plus look-around with an mm_walk
 * (reclaimer=kswapd, or p61) -- including the reclaimed folio's own young PTE,
 * which reaches the isolated branch of folio_update_gen() and so counts.
 * Without a walk (memcg reclaim on 6.8+) look-around calls folio_activate(),
 * an add, which resets the counter instead.
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
 * with PG_active.  That happens every two or three agings, so with one
 * mapping per folio the 4th counted call rarely comes before the reset: on a
 * YCSB-F-like anonymous stream the shield is seldom set (never with section
 * 1.9's reclaim loop and p68; a little more with reclaim_loop=kernel, with
 * kswapd's look-around, or on p61, whose look-around counts the reclaimed
 * folio's own young PTE).  Many mappings per folio, or large folios whose
 * PTEs are walked in several runs, would count faster; the simulation has
 * neither.
 *
 * Not modelled (POLICIES.md 2.5): PG_reclaim from folio_inc_gen(reclaiming)
 * is PG_readahead on file folios (no readahead model); three more page flags
 * could shrink LRU_REFS_WIDTH on crowded configurations (the simulation keeps
 * two refs bits).  Memory per key is mglru's: S, the counter and the aging
 * count at which S was set live in its 16-byte area.
 */
#include "config.h"

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

/* The number of resident shields changes by @delta: settle occupancy so far. */
static void shields_change(struct hs_policy *p, int delta)
{
	p->hs_occ_sum += p->hs_resident * (p->accesses - p->hs_occ_mark);
	p->hs_occ_mark = p->accesses;
	p->hs_resident += (uint64_t)(int64_t)delta;
}

/**
 * hs_hitshield_count() - R2: one counted folio_update_gen() call
 * @p: the lruvec
 * @k: the folio (on a list or isolated)
 */
void hs_hitshield_count(struct hs_policy *p, struct mglru_folio *k)
{
	if (k->more & MX_SHIELD)
		return;		/* frozen while the shield is up */
	if (++k->stamp < p->hs_threshold)
		return;
	/* the carry out of c1 wraps the counter; stamp now dates the shield */
	k->more |= MX_SHIELD;
	k->stamp = (uint32_t)p->agings;
	p->hs_set++;
	shields_change(p, 1);
}

/**
 * hs_hitshield_spend() - R3: spend the folio's shield, if it has one
 * @p: the lruvec
 * @f: the folio, in the oldest generation under sort_folio()
 * @k: its state
 *
 * The caller moves the folio (folio_inc_gen(), young end of min_seq + 1).
 *
 * Return: true if a shield was spent.
 */
bool hs_hitshield_spend(struct hs_policy *p, struct hs_folio *f, struct mglru_folio *k)
{
	if (!(k->more & MX_SHIELD))
		return false;
	k->more &= (uint8_t)~MX_SHIELD;
	shields_change(p, -1);
	p->hs_spent++;
	if ((uint32_t)p->agings - k->stamp >= MAX_NR_GENS)
		p->hs_stale++;
	k->stamp = 0;		/* the counter runs again from 00 */
	k->more |= MX_SPENT;
	hs_sim_protect(p->env->sim, f, HS_PROT_SHIELD);
	return true;
}

/**
 * hs_hitshield_useful() - an access to a folio whose shield was spent
 * @p: the lruvec
 * @k: the accessed folio (resident, MX_SPENT set)
 */
void hs_hitshield_useful(struct hs_policy *p, struct mglru_folio *k)
{
	k->more &= (uint8_t)~MX_SPENT;
	p->hs_useful++;
}

/**
 * hs_hitshield_leave() - the folio leaves memory; its shield goes with it
 * @p: the lruvec
 * @k: the folio
 * @evicted: by reclaim or a hint (a spent shield was wasted), not a drop
 */
void hs_hitshield_leave(struct hs_policy *p, struct mglru_folio *k, bool evicted)
{
	if (k->more & MX_SHIELD)
		shields_change(p, -1);
	if ((k->more & MX_SPENT) && evicted)
		p->hs_wasted++;
}

static int hitshield_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
			    struct hs_policy **out)
{
	return hs_mglru_create(env, ps, true, out);
}

static void hitshield_report(const struct hs_policy *p, struct hs_metrics *m)
{
	double denom = (double)p->accesses * (double)p->env->capacity;
	double occ = (double)(p->hs_occ_sum + p->hs_resident * (p->accesses - p->hs_occ_mark));

	hs_mglru_report(p, m);
	hs_metrics_add(m, "hitshield.shields_set", (double)p->hs_set);
	hs_metrics_add(m, "hitshield.shields_spent", (double)p->hs_spent);
	hs_metrics_add(m, "hitshield.spent_useful", (double)p->hs_useful);
	hs_metrics_add(m, "hitshield.spent_wasted", (double)p->hs_wasted);
	hs_metrics_add(m, "hitshield.stale", (double)p->hs_stale);
	hs_metrics_add(m, "hitshield.shielded", (double)p->hs_resident);
	hs_metrics_add(m, "hitshield.occupancy", denom > 0 ? occ / denom : 0);
}

const struct hs_policy_ops hs_policy_hitshield = {
	.abi		= HS_POLICY_ABI,
	.name		= "hitshield",
	.summary	= "MGLRU plus HitShield (2024): shield on the 4th aging hit",
	.params		= hitshield_params,
	.folio_priv	= sizeof(struct mglru_folio),
	.flags		= HS_POLICY_ACCESSED_BIT | HS_POLICY_OWN_PAGEOUT,
	.create		= hitshield_create,
	.destroy	= hs_mglru_destroy,
	.hit		= hs_mglru_hit,
	.insert		= hs_mglru_insert,
	.evict		= hs_mglru_evict,
	.remove		= hs_mglru_remove,
	.refault	= hs_mglru_refault,
	.hint		= hs_mglru_hint,
	.check		= hs_mglru_check,
	.dump		= hs_mglru_dump,
	.report		= hitshield_report,
};
