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
 * The resident keys' next uses are a set of distinct integers below the
 * stream's length (two keys never share a next access), so the victim, the
 * largest, comes from a hierarchical bitmap over seqs (lib/hbits.h) in one
 * word per level, the top ones always in cache; a max-heap needs log2(c)
 * scattered entries per eviction, and at 3.7 M keys OPT took three times
 * LRU's time in it.  The bit names the seq; the key accessed at that seq is
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
 * Order: larger next_use first.  Two resident keys can share a next use only
 * when both are HS_NEVER (an access names one key); those are ordered by key
 * id, lower id first.  Which never-used key goes first cannot change any hit
 * or miss, only the victim names, and the id makes them deterministic
 * (POLICIES.md: "deterministic by page id").
 *
 * Hooks (lib/policy.h):
 *
 *   hit()     clear the key's bit (its next use was now), set a->next_use's.
 *   insert()  set a->next_use's bit.
 *   evict()   take the victim @need times (fewer only when fewer are
 *             resident): the lowest id in never, else the largest bit of fut.
 *   remove()  clear the key's bit (drop or PAGEOUT); a drop of a
 *             non-resident key is a no-op (no ghosts).
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
 * Cost: O(log64 n) per access, a few words; per key 8 bytes of private
 * state, a bit per key (never) and a bit per access (fut); and 4 bytes per
 * access for owner when the replay does not supply seq_keys.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "hbits.h"
#include "policy.h"
#include "policy-util.h"

struct opt_priv {
	uint64_t	nu;		/* the key's next use; valid only while resident */
};

struct hs_policy {
	struct hs_hbits		fut;	/* next uses (seqs) of resident keys */
	struct hs_hbits		never;	/* ids of resident keys never used again */
	const uint32_t		*owner;	/* owner[s]: the key of access s */
	uint32_t		*own;	/* owner when env->seq_keys is NULL (grown) */
	uint64_t		resident; /* keys in fut or never */
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
	p->owner = env->seq_keys;
	err = hs_hbits_init(&p->never, env->nr_keys ? env->nr_keys : 1);
	if (!err)
		err = hs_hbits_init(&p->fut, p->owner && env->nr_seq ? env->nr_seq : 4096);
	if (err)
		goto out_free_p;
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

/* Record that resident key @f is next used at @nu. */
static void set_next_use(struct hs_policy *p, struct hs_folio *f, uint64_t nu)
{
	opt_priv(f)->nu = nu;
	p->resident++;
	if (nu == HS_NEVER) {
		hs_hbits_set(&p->never, f->id);
		return;
	}
	if (unlikely(nu >= p->fut.bound || !p->owner)) {
		int err = make_room(p, nu);

		if (err) {
			/* the run ends with err; keep the sets consistent till then */
			hs_sim_fail(p->env->sim, err);
			opt_priv(f)->nu = HS_NEVER;
			hs_hbits_set(&p->never, f->id);
			return;
		}
	}
	if (p->own)
		p->own[nu] = f->id;
	hs_hbits_set(&p->fut, nu);
}

static void clear_next_use(struct hs_policy *p, struct hs_folio *f)
{
	uint64_t nu = opt_priv(f)->nu;

	p->resident--;
	if (nu == HS_NEVER)
		hs_hbits_clear(&p->never, f->id);
	else
		hs_hbits_clear(&p->fut, nu);
}

/* The next use of the key evict() takes next (the resident set is not empty). */
static uint64_t root_next_use(const struct hs_policy *p)
{
	return hs_hbits_min(&p->never) != HS_HBITS_NONE ? HS_NEVER : hs_hbits_max(&p->fut);
}

/* The key evict() takes next: farther next use first, then lower id. */
static uint32_t victim(const struct hs_policy *p)
{
	uint64_t id = hs_hbits_min(&p->never);

	return id != HS_HBITS_NONE ? (uint32_t)id : p->owner[hs_hbits_max(&p->fut)];
}

static void opt_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	clear_next_use(p, f);
	set_next_use(p, f, a->next_use);
}

static void opt_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	set_next_use(p, f, a->next_use);
}

static size_t opt_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	size_t n = 0;

	(void)incoming;
	(void)a;
	while (n < need && n < max && p->resident) {
		struct hs_folio *f = hs_env_folio(p->env, victim(p));

		clear_next_use(p, f);
		victims[n++] = f;
	}
	return n;
}

static void opt_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	(void)why;
	if (hs_folio_is_resident(f))
		clear_next_use(p, f);
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
	if (!p->bypass || p->resident < p->env->capacity || !p->resident)
		return true;
	if (a->next_use < root_next_use(p))
		return true;
	p->bypassed++;
	return false;
}

/*
 * Every resident key has its bit, its owner entry names it, and there are as
 * many bits as resident keys: the two sets hold exactly the resident keys.
 */
static int opt_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t found = 0;

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
