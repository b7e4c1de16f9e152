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
 * (min(capacity, keys)).  Below hs_opt_bitmap_min (128 Ki) a max-heap of
 * {next use, id}, which stays in cache at that size:
 *
 *	                 heap[0]: {next_use = max, id}  <- evict() pops this
 *	                /                      \
 *	        heap[1]                          heap[2]
 *	per key (private area): pos = its index in heap[], valid while resident.
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
 *   hit()     the key's next use moves to a->next_use: sift it toward the
 *             root; or clear its bit (its next use was now), set the new one.
 *   insert()  push {a->next_use, id}; or set a->next_use's bit.
 *   evict()   take the victim @need times (fewer only when fewer are
 *             resident): the root; or the lowest id in never, else the
 *             largest bit of fut.
 *   remove()  delete it from the middle of the heap, or clear its bit (drop
 *             or PAGEOUT); a drop of a non-resident key is a no-op (no
 *             ghosts).
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
 * Cost: O(log c) per access with the heap, plus a 16-byte entry per
 * resident key; O(log64 n) with the bitmap, a few words, plus a bit per key
 * (never) and a bit per access (fut), and 4 bytes per access for owner when
 * the replay does not supply seq_keys.  Per key 8 bytes of private state.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "hbits.h"
#include "iheap.h"
#include "policy.h"
#include "policy-util.h"

union opt_priv {
	uint32_t	pos;		/* heap: its index in heap[] */
	uint64_t	nu;		/* bitmap: its next use */
};					/* valid only while resident */

struct opt_ent {
	uint64_t	next_use;	/* seq of the key's next access, or HS_NEVER */
	uint32_t	id;		/* key id */
};

/* min(capacity, keys) from which the bitmap serves; tests move it. */
uint64_t hs_opt_bitmap_min = HS_OPT_BITMAP_MIN;

struct hs_policy {
	bool			bits;	/* the bitmap, not the heap */
	struct hs_iheap		heap;	/* max-heap of struct opt_ent, root = victim */
	struct hs_hbits		fut;	/* next uses (seqs) of resident keys */
	struct hs_hbits		never;	/* ids of resident keys never used again */
	const uint32_t		*owner;	/* owner[s]: the key of access s */
	uint32_t		*own;	/* owner when env->seq_keys is NULL (grown) */
	uint64_t		top_nu;	/* a next use and its key, owner[top_nu] = top_id, */
	uint32_t		top_id;	/* kept so that the usual victim costs no read of owner */
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

static union opt_priv *opt_priv(struct hs_folio *f)
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
	p->bits = HS_MIN(env->capacity, (uint64_t)env->nr_keys) >= hs_opt_bitmap_min;
	if (!p->bits) {
		err = hs_iheap_init(&p->heap, &opt_heap,
				    HS_MIN(env->capacity, (uint64_t)env->nr_keys), env->folios,
				    env->stride, env->priv_off + offsetof(union opt_priv, pos));
		if (err)
			goto out_free_p;
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
	hs_iheap_release(&p->heap);
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
		__builtin_prefetch(&p->owner[m]);
}

static void opt_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct opt_ent tmp;
	uint32_t pos;

	if (p->bits) {
		clear_next_use(p, f);
		set_next_use(p, f, a->key, a->next_use);
		return;
	}
	pos = opt_priv(f)->pos;
	opt_ent(p, pos)->next_use = a->next_use;
	/* The next use only moves later (toward the root), but stay general. */
	hs_iheap_fix(&p->heap, &opt_heap, pos, &tmp);
}

static void opt_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct opt_ent e = { .next_use = a->next_use, .id = a->key };
	struct opt_ent tmp;

	if (p->bits) {
		set_next_use(p, f, a->key, a->next_use);
		return;
	}
	/* The driver never lets more keys in than the capacity (and size >= that). */
	hs_iheap_push(&p->heap, &opt_heap, &e, &tmp);
}

static size_t opt_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	size_t n = 0;

	(void)incoming;
	(void)a;
	if (!p->bits) {
		struct opt_ent tmp;

		while (n < need && n < max && p->heap.n) {
			victims[n++] = hs_env_folio(p->env, opt_ent(p, 0)->id);
			hs_iheap_del(&p->heap, &opt_heap, 0, &tmp);
		}
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
	struct opt_ent tmp;

	(void)why;
	if (!hs_folio_is_resident(f))
		return;
	if (p->bits)
		clear_next_use(p, f);
	else
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
	uint64_t resident = p->bits ? p->resident : p->heap.n;

	(void)f;
	if (!p->bypass || resident < p->env->capacity || !resident)
		return true;
	if (a->next_use < (p->bits ? root_next_use(p) : opt_ent(p, 0)->next_use))
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

	if (!p->bits) {
		/*
		 * The heap's own check makes its ids distinct and their positions
		 * right; with every entry resident and as many keys resident as
		 * entries, the heap holds exactly the resident keys.
		 */
		if (hs_iheap_check(&p->heap, &opt_heap, env->nr_keys))
			return -EUCLEAN;
		for (uint64_t i = 0; i < p->heap.n; i++)
			if (!hs_folio_is_resident(hs_env_folio(env, opt_ent(p, i)->id)))
				return -EUCLEAN;
		return hs_env_count_resident(env) == p->heap.n ? 0 : -EUCLEAN;
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
		fprintf(fp, "opt: %s, %" PRIu64 " resident, heap order (id next_use):\n",
			p->bypass ? "bypass" : "demand", p->heap.n);
		for (s = 0; s < p->heap.n; s++) {
			const struct opt_ent *e = opt_ent(p, s);

			if (e->next_use == HS_NEVER)
				fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " never\n", s, e->id);
			else
				fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " %" PRIu64 "\n", s, e->id,
					e->next_use);
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
	.folio_priv	= sizeof(union opt_priv),
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
