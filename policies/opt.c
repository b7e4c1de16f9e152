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
 * The resident keys sit in a max-heap on their next use; the root is the key
 * needed farthest ahead (or never), the victim:
 *
 *	                 heap[0]: {next_use = max, id}  <- evict() pops this
 *	                /                      \
 *	        heap[1]                          heap[2]
 *	        /     \                          /     \
 *	     ...       ...                    ...       ...
 *
 *	per key (private area): pos = its index in heap[], valid while resident.
 *
 * Order: larger next_use first.  Two resident keys can share a next use only
 * when both are HS_NEVER (an access names one key); those are ordered by key
 * id, lower id first.  Which never-used key goes first cannot change any hit
 * or miss, only the victim names, and the id makes them deterministic
 * (POLICIES.md: "deterministic by page id").
 *
 * Hooks (lib/policy.h):
 *
 *   hit()     the key's next use moves to a->next_use (later than now): sift
 *             it toward the root.
 *   insert()  push {a->next_use, id}.
 *   evict()   pop the root @need times (fewer only when fewer are resident).
 *   remove()  delete from the middle of the heap (drop or PAGEOUT); a drop of
 *             a non-resident key is a no-op (no ghosts).
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
 * resident key (a->next_use >= the root's): caching it would evict something
 * needed no later than it.  The driver asks admit() before making room;
 * false serves the miss without eviction or insertion.  Ties can only be
 * HS_NEVER against HS_NEVER, and a key never used again is never worth a
 * slot, so ties bypass.  Bypass never has more misses than demand on the same
 * trace (it is the optimum over a larger set of choices); the golden files
 * opt-demand.golden and opt-bypass.golden show a trace where it has fewer.
 *
 * Cost: O(log c) per access; per key 4 bytes of private state, plus a
 * 16-byte heap entry per resident key.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "iheap.h"
#include "policy.h"
#include "policy-util.h"

struct opt_priv {
	uint32_t	pos;		/* index in hs_policy.heap; valid only while resident */
};

struct opt_ent {
	uint64_t	next_use;	/* seq of the key's next access, or HS_NEVER */
	uint32_t	id;		/* key id */
};

struct hs_policy {
	struct hs_iheap		heap;	/* max-heap of struct opt_ent, one per resident key,
					 * root = victim; size min(capacity, nr_keys) */
	bool			bypass;	/* admit() may refuse a miss */
	uint64_t		bypassed; /* misses admit() refused */
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
static bool ent_before(const void *va, const void *vb)
{
	const struct opt_ent *a = va, *b = vb;

	if (a->next_use != b->next_use)
		return a->next_use > b->next_use;
	return a->id < b->id;
}

static const struct hs_iheap_type opt_heap = {
	.esize		= sizeof(struct opt_ent),
	.id_off		= offsetof(struct opt_ent, id),
	.before		= ent_before,
};

static struct opt_ent *opt_ent(const struct hs_policy *p, uint64_t i)
{
	return hs_iheap_at(&p->heap, &opt_heap, i);
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
	err = hs_iheap_init(&p->heap, &opt_heap, HS_MIN(env->capacity, (uint64_t)env->nr_keys),
			    env->folios, env->stride,
			    env->priv_off + offsetof(struct opt_priv, pos));
	if (err)
		goto out_free_p;
	hs_param_set_free(defaults);
	*out = p;
	return 0;

out_free_p:
	free(p);
out_free_defaults:
	hs_param_set_free(defaults);
	return err;
}

static void opt_destroy(struct hs_policy *p)
{
	if (!p)
		return;
	hs_iheap_release(&p->heap);
	free(p);
}

static void opt_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	uint32_t pos = opt_priv(f)->pos;
	struct opt_ent tmp;

	opt_ent(p, pos)->next_use = a->next_use;
	/* The next use only moves later (toward the root), but stay general. */
	hs_iheap_fix(&p->heap, &opt_heap, pos, &tmp);
}

static void opt_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct opt_ent e = { .next_use = a->next_use, .id = f->id };
	struct opt_ent tmp;

	/* The driver never lets more keys in than the capacity (and size >= that). */
	hs_iheap_push(&p->heap, &opt_heap, &e, &tmp);
}

static size_t opt_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	struct opt_ent tmp;
	size_t n = 0;

	(void)incoming;
	(void)a;
	while (n < need && n < max && p->heap.n) {
		victims[n++] = hs_env_folio(p->env, opt_ent(p, 0)->id);
		hs_iheap_del(&p->heap, &opt_heap, 0, &tmp);
	}
	return n;
}

static void opt_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	struct opt_ent tmp;

	(void)why;
	if (hs_folio_is_resident(f))
		hs_iheap_del(&p->heap, &opt_heap, opt_priv(f)->pos, &tmp);
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
	(void)f;
	if (!p->bypass || p->heap.n < p->env->capacity || !p->heap.n)
		return true;
	if (a->next_use < opt_ent(p, 0)->next_use)
		return true;
	p->bypassed++;
	return false;
}

/*
 * The heap's own check makes its ids distinct and their positions right; if
 * every entry is resident and as many keys are resident as there are entries,
 * the heap holds exactly the resident keys.
 */
static int opt_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t i;

	if (hs_iheap_check(&p->heap, &opt_heap, env->nr_keys))
		return -EUCLEAN;
	for (i = 0; i < p->heap.n; i++)
		if (!hs_folio_is_resident(hs_env_folio(env, opt_ent(p, i)->id)))
			return -EUCLEAN;
	return hs_env_count_resident(env) == p->heap.n ? 0 : -EUCLEAN;
}

static void opt_dump(const struct hs_policy *p, FILE *fp)
{
	const struct opt_ent *e;
	uint64_t i;

	fprintf(fp, "opt: %s, %" PRIu64 " resident, heap order (id next_use):\n",
		p->bypass ? "bypass" : "demand", p->heap.n);
	for (i = 0; i < p->heap.n; i++) {
		e = opt_ent(p, i);
		if (e->next_use == HS_NEVER)
			fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " never\n", i, e->id);
		else
			fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " %" PRIu64 "\n", i, e->id,
				e->next_use);
	}
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
