/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LRFU: the Combined Recency and Frequency policy of Lee et al., a spectrum
 * between LFU (lambda = 0) and LRU (lambda = 1).  Resident keys sit in a
 * min-heap on a time-invariant form of their CRF; this file proves that the
 * two ends are exactly LFU (ties: least recent first) and exactly LRU.
 */

/*
 * Design
 * ======
 *
 * Reference: D. Lee, J. Choi, J.-H. Kim, S. H. Noh, S. L. Min, Y. Cho,
 * C. S. Kim, "LRFU: A Spectrum of Policies that Subsumes the Least Recently
 * Used and Least Frequently Used Policies", IEEE Trans. Computers 50(12),
 * 2001; POLICIES.md §3 restates it (the paper itself was not available).
 *
 * Every key b carries a Combined Recency and Frequency value.  With virtual
 * time t (a->seq: +1 per access) and past references at t_1 < ... < t_k,
 *
 *	CRF_t(b) = sum_i F(t - t_i),	F(x) = 2^(-lambda * x),   lambda in [0, 1].
 *
 * The victim is the resident key with the smallest CRF now.  F is
 * exponential, so the value can be kept incrementally: on a reference at t,
 *
 *	crf(b) <- 1 + 2^(-lambda * (t - t_last(b))) * crf(b),	t_last(b) <- t,
 *
 * where crf(b) is the CRF as of t_last(b) (a new key starts at F(0) = 1).
 * Between references all keys decay by the same factor, so the order of two
 * keys changes only when one is referenced.  Comparing CRF_t(a) and CRF_t(b)
 * is comparing log2 crf(a) - lambda (t - t_last(a)) with the same for b, and t
 * cancels: the time-invariant key is
 *
 *	key(b) = log2 crf(b) + lambda * (t_last(b) - base)
 *
 * for any common base.  A min-heap on key gives the victim in O(log n); a hit
 * raises the key (sift down), a miss pops the root and pushes the newcomer.
 *
 *	  heap[] (array; priv.pos = index while resident)     per-key priv
 *	                 [0] min (key, t_last): the victim     +------------+
 *	                /      \                               | crf        |
 *	             [1]        [2]                            | t_last     |
 *	            /   \      /   \                           | pos, known |
 *	          [3]  [4]   [5]  [6]   entries {key, t_last, id} +----------+
 *
 * Order.  Entries compare by key, then by t_last, smaller first: among equal
 * CRFs the least recently referenced is evicted first (POLICIES.md: "ties:
 * oldest first").  Distinct resident keys never share a t_last (one key per
 * access), so the order is total and the run is deterministic.
 *
 * lambda = 0 is LFU, exactly.  F = 1, so crf is the reference count, an
 * integer held exactly in a double; for lambda = 0 the key is crf itself (no
 * log2, no rounding), so the order is (count, t_last): LFU with ties broken
 * by recency, least recent first.
 *
 * lambda = 1 is LRU, exactly, in floating point too.  Claim: for resident a,
 * b with t_last(a) < t_last(b), (key(a), t_last(a)) < (key(b), t_last(b)).
 * Write d = t_last - base: an integer, exactly representable (|d| < 2^53).
 *  1. crf is in [1, 2] as computed.  It starts at 1; an update is
 *     fl(1 + ldexp(crf, -D)) with D = t - t_last >= 1 (two accesses never
 *     share a seq).  ldexp is exact unless the result is subnormal, and
 *     rounding is monotone, so the product is at most 2 * 2^-1 = 1; then
 *     1 + x <= 2, and since 1 and 2 are representable the rounded sum stays
 *     in [1, 2].  (For lambda = 1 this file uses ldexp, not
 *     exp2(-lambda * D), precisely so that the factor is exact.)
 *  2. The key uses log2 crf clamped to [0, 1].  With any faithful log2 the
 *     clamp never fires (the true value is in [0, 1], and 0 and 1 are
 *     representable); it is there so that the proof does not rest on the
 *     accuracy of the C library.
 *  3. key = fl(log2 crf + d) with d exact (lambda * d = d when lambda = 1)
 *     lies in [d, d + 1], again because rounding is monotone and d, d + 1
 *     are representable.
 *  4. d(a) < d(b) are integers, so key(a) <= d(a) + 1 <= d(b) <= key(b).  If
 *     key(a) < key(b), a is smaller; if they are equal, the t_last tie rule
 *     makes a smaller.  Either way the heap's order is t_last order: LRU.
 * The claim holds for any base, so renormalising (below) keeps it.  The
 * golden files lrfu-lambda1-*.golden replay the LRU golden traces at lambda =
 * 1 with the same expected victims (lrfu-lambda1-tie.golden drives crf to
 * exactly 2.0 so that two keys tie and only the t_last rule decides), and
 * the conformance suite compares lrfu at lambda = 1 against lru on random
 * traces.
 *
 * Renormalising.  lambda * (t_last - base) grows with time and would drown
 * log2 crf in rounding.  When lambda * (t - base) reaches 2^30 the base moves
 * to t, every resident key is recomputed from (crf, t_last) and the heap is
 * rebuilt (O(n), at most once per 2^30 / lambda accesses); near-ties may
 * round differently afterwards, which is why the heap is rebuilt rather than
 * assumed still valid.  With keys below ~2^30 their rounding error is below
 * 2^-22 in log2 CRF units.
 *
 * Non-resident history (parameter "ghost", POLICIES.md §3 leaves it open):
 * false (default): a key's CRF is forgotten when it leaves memory and a
 * refetched key starts again at 1.  true: crf and t_last stay in the private
 * area after an eviction or a PAGEOUT hint (unbounded: the driver keeps a
 * record per key anyway), and a refetch continues the sum.  A drop always
 * forgets.
 *
 * lambda's default is 0.001.  POLICIES.md says the papers picked lambda per
 * trace and size offline, so there is no canonical value, and the paper's own
 * values are an open item (§7 item 3).  0.001 is a middle point of the
 * suggested log grid (1e-6 .. 1): a reference loses half its weight after
 * 1000 accesses, so the order blends frequency over a few thousand accesses
 * with recency beyond that.  It is a convention, not a result: sweep
 * --param lrfu.lambda=... for real comparisons.
 *
 * Hints (POLICIES.md section 2b).  COLD makes the key's CRF the smallest
 * there is: crf = 0, as if it had no reference at all, and its heap key is
 * -infinity (lrfu_key() says so for every lambda, without log2(0)), so it is
 * evicted before every key with a history.  The hint does not evict; a hit
 * before the next eviction starts the CRF again at F(0) = 1 (the old sum is
 * gone: 1 + F(dt) * 0), and so does a refetch with ghost.  Among COLD keys the
 * heap's tie-break is not t_last but a count of COLD hints going down from
 * UINT64_MAX (cold_stamp), so the latest hint is evicted first: at lambda = 1
 * that is exactly where LRU puts a COLD key, at the head of its list, and the
 * "lambda = 1 is LRU" claim holds with hints too (lrfu-lambda1-cold.golden
 * runs lru-cold.golden's steps).  t_last keeps the true last reference.
 * PAGEOUT answers "evict" and leaves the choice to the driver's pageout mode
 * (lib/sim.h).
 *
 * Hooks: hit() updates crf and sifts; insert() starts (or, with ghost,
 * continues) crf and pushes; evict() pops the root @need times; remove()
 * deletes from the middle of the heap; hint() as above.  No protections are
 * reported.  Cost O(log n) per access; per key 24 bytes of private state plus
 * a 24-byte heap entry per resident key.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "hs.h"
#include "iheap.h"
#include "policy.h"
#include "policy-util.h"

#define LRFU_RENORM	1073741824.0	/* 2^30: move the base when lambda * (t - base) gets here */

struct lrfu_priv {
	double		crf;		/* CRF as of t_last; valid while known; 0 after a
					 * COLD hint, else >= 1 */
	uint64_t	t_last;		/* seq of the last reference; valid while known */
	uint32_t	pos;		/* index in hs_policy.heap; valid only while resident */
	uint32_t	known;		/* 1: crf and t_last hold this key's history (always
					 * while resident; after eviction only with ghost) */
};

struct lrfu_ent {
	double		key;		/* log2 crf + lambda * (t_last - base); crf if lambda = 0 */
	uint64_t	t_last;		/* the tie-break: a copy of the key's t_last, or
					 * for a COLD key (crf 0) its cold_stamp */
	uint32_t	id;		/* key id */
};

struct hs_policy {
	struct hs_iheap		heap;	/* min-heap of struct lrfu_ent, one per resident key,
					 * root = victim; size min(capacity, nr_keys) */
	double			lambda;	/* the decay exponent, in [0, 1] */
	bool			ghost;	/* keep crf and t_last after eviction */
	uint64_t		base;	/* time origin of the keys (moves when renormalising) */
	uint64_t		renorms; /* times the base moved */
	uint64_t		reuses;	/* inserts that continued a ghost's crf */
	uint64_t		cold_stamp; /* tie-break of the next COLD key: counts
					     * down from UINT64_MAX */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static const struct hs_param lrfu_params[] = {
	{ .name = "lambda", .type = HS_PARAM_DOUBLE, .def = "0.001", .min = 0, .max = 1,
	  .help = "decay: F(x) = 2^(-lambda*x); 0 = LFU, 1 = LRU" },
	{ .name = "ghost", .type = HS_PARAM_BOOL, .def = "false",
	  .help = "keep the CRF of evicted keys and continue it when they come back" },
	{ .name = NULL },
};

static struct lrfu_priv *lrfu_priv(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static const struct lrfu_priv *lrfu_cpriv(const struct hs_folio *f)
{
	return hs_folio_cpriv(f);
}

/* Strict "a is evicted before b". */
static bool ent_before(const void *va, const void *vb)
{
	const struct lrfu_ent *a = va, *b = vb;

	if (a->key != b->key)
		return a->key < b->key;
	return a->t_last < b->t_last;
}

static const struct hs_iheap_type lrfu_heap = {
	.esize		= sizeof(struct lrfu_ent),
	.id_off		= offsetof(struct lrfu_ent, id),
	.before		= ent_before,
};

static struct lrfu_ent *lrfu_ent(const struct hs_policy *p, uint64_t i)
{
	return hs_iheap_at(&p->heap, &lrfu_heap, i);
}

static double lrfu_key(const struct hs_policy *p, double crf, uint64_t t_last)
{
	double d;

	if (crf == 0.0)
		return -HUGE_VAL;	/* a COLD key: below every key with a history */
	if (p->lambda == 0.0)
		return crf;
	if (t_last >= p->base)
		d = (double)(t_last - p->base);
	else
		d = -(double)(p->base - t_last);
	if (p->lambda == 1.0)
		return HS_MIN(HS_MAX(log2(crf), 0.0), 1.0) + d;	/* proof step 2 */
	return log2(crf) + p->lambda * d;
}

/* crf, last referenced @dt accesses ago, after one more reference now. */
static double lrfu_update(const struct hs_policy *p, double crf, uint64_t dt)
{
	if (p->lambda == 0.0)
		return crf + 1.0;
	if (p->lambda == 1.0)
		return 1.0 + ldexp(crf, -(int)HS_MIN(dt, (uint64_t)4096));
	return 1.0 + exp2(-p->lambda * (double)dt) * crf;
}

/* Move the base to @now if lambda * (now - base) got large; rebuild the heap. */
static void lrfu_renorm(struct hs_policy *p, uint64_t now)
{
	const struct lrfu_priv *lp;
	struct lrfu_ent *e;
	struct lrfu_ent tmp;
	uint64_t i;

	if (now <= p->base || p->lambda * (double)(now - p->base) < LRFU_RENORM)
		return;
	p->base = now;
	p->renorms++;
	for (i = 0; i < p->heap.n; i++) {
		e = lrfu_ent(p, i);
		lp = lrfu_cpriv(hs_env_folio(p->env, e->id));
		e->key = lrfu_key(p, lp->crf, lp->t_last);
	}
	hs_iheap_heapify(&p->heap, &lrfu_heap, &tmp);
}

static int lrfu_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		       struct hs_policy **out)
{
	struct hs_param_set *defaults = NULL;
	struct hs_policy *p;
	int err;

	if (!ps) {
		err = hs_param_set_new(lrfu_params, &defaults);
		if (err)
			return err;
		ps = defaults;
	}
	err = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto out_free_defaults;
	p->env = env;
	p->cold_stamp = UINT64_MAX;
	p->lambda = hs_param_double(ps, "lambda");
	p->ghost = hs_param_bool(ps, "ghost");
	err = -EINVAL;
	if (!(p->lambda >= 0.0 && p->lambda <= 1.0))
		goto out_free_p;
	err = hs_iheap_init(&p->heap, &lrfu_heap, HS_MIN(env->capacity, (uint64_t)env->nr_keys),
			    env->folios, env->stride,
			    env->priv_off + offsetof(struct lrfu_priv, pos));
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

static void lrfu_destroy(struct hs_policy *p)
{
	if (!p)
		return;
	hs_iheap_release(&p->heap);
	free(p);
}

static void lrfu_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct lrfu_priv *lp = lrfu_priv(f);
	struct lrfu_ent tmp;
	struct lrfu_ent *e;

	lrfu_renorm(p, a->seq);
	lp->crf = lrfu_update(p, lp->crf, a->seq - lp->t_last);
	lp->t_last = a->seq;
	e = lrfu_ent(p, lp->pos);
	e->key = lrfu_key(p, lp->crf, lp->t_last);
	e->t_last = lp->t_last;
	/* The key only grows, but rounding is not trusted to know that. */
	hs_iheap_fix(&p->heap, &lrfu_heap, lp->pos, &tmp);
}

static void lrfu_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct lrfu_priv *lp = lrfu_priv(f);
	struct lrfu_ent tmp;
	struct lrfu_ent e;

	lrfu_renorm(p, a->seq);
	if (p->ghost && lp->known && a->seq > lp->t_last) {
		lp->crf = lrfu_update(p, lp->crf, a->seq - lp->t_last);
		p->reuses++;
	} else {
		lp->crf = 1.0;
	}
	lp->t_last = a->seq;
	lp->known = 1;
	e.key = lrfu_key(p, lp->crf, lp->t_last);
	e.t_last = lp->t_last;
	e.id = a->key;
	/* The driver never lets more keys in than the capacity (and size >= that). */
	hs_iheap_push(&p->heap, &lrfu_heap, &e, &tmp);
}

static size_t lrfu_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			 size_t need, struct hs_folio **victims, size_t max)
{
	struct lrfu_ent tmp;
	struct hs_folio *f;
	size_t n = 0;

	(void)incoming;
	(void)a;
	while (n < need && n < max && p->heap.n) {
		f = hs_env_folio(p->env, lrfu_ent(p, 0)->id);
		hs_iheap_del(&p->heap, &lrfu_heap, 0, &tmp);
		lrfu_priv(f)->known = p->ghost;
		victims[n++] = f;
	}
	return n;
}

static void lrfu_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	struct lrfu_priv *lp = lrfu_priv(f);
	struct lrfu_ent tmp;

	if (hs_folio_is_resident(f))
		hs_iheap_del(&p->heap, &lrfu_heap, lp->pos, &tmp);
	lp->known = why == HS_REMOVE_HINT && p->ghost;
}

static enum hs_hint_verdict lrfu_hint(struct hs_policy *p, struct hs_folio *f,
				      const struct hs_access *a)
{
	struct lrfu_priv *lp = lrfu_priv(f);
	struct lrfu_ent tmp;
	struct lrfu_ent *e;

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	lp->crf = 0.0;
	e = lrfu_ent(p, lp->pos);
	e->key = lrfu_key(p, lp->crf, lp->t_last);
	e->t_last = p->cold_stamp--;
	hs_iheap_fix(&p->heap, &lrfu_heap, lp->pos, &tmp);
	return HS_HINT_KEEP;
}

/*
 * Does a stored key agree with the key's history?  Bit for bit at lambda 0 and
 * 1 (no multiplication involved); otherwise within rounding, since a compiler
 * may fuse the multiply-add in one place and not in another.
 */
static bool key_matches(const struct hs_policy *p, double key, const struct lrfu_priv *lp)
{
	double want = lrfu_key(p, lp->crf, lp->t_last);

	if (key == want)
		return true;	/* also -infinity for a COLD key */
	if (p->lambda == 0.0 || p->lambda == 1.0)
		return key == want;
	return fabs(key - want) <= 1e-12 * HS_MAX(fabs(want), 1.0);
}

static int lrfu_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	const struct lrfu_priv *lp;
	const struct lrfu_ent *e;
	const struct hs_folio *f;
	uint64_t i;

	if (hs_iheap_check(&p->heap, &lrfu_heap, env->nr_keys))
		return -EUCLEAN;
	for (i = 0; i < p->heap.n; i++) {
		e = lrfu_ent(p, i);
		f = hs_env_folio(env, e->id);
		lp = lrfu_cpriv(f);
		if (!hs_folio_is_resident(f) || !lp->known)
			return -EUCLEAN;
		if (!key_matches(p, e->key, lp))
			return -EUCLEAN;
		if (lp->crf == 0.0) {
			/* COLD: the tie-break is a stamp handed out below UINT64_MAX */
			if (e->t_last <= p->cold_stamp)
				return -EUCLEAN;
			continue;
		}
		if (e->t_last != lp->t_last || !(lp->crf >= 1.0))
			return -EUCLEAN;
		if (p->lambda == 1.0 && lp->crf > 2.0)
			return -EUCLEAN;
	}
	/*
	 * The heap holds exactly the resident keys: distinct (hs_iheap_check()),
	 * all resident, and as many as the driver marks resident.
	 */
	return hs_env_count_resident(env) == p->heap.n ? 0 : -EUCLEAN;
}

static void lrfu_dump(const struct hs_policy *p, FILE *fp)
{
	const struct lrfu_priv *lp;
	const struct lrfu_ent *e;
	uint64_t i;

	fprintf(fp, "lrfu: lambda %g, %" PRIu64 " resident, base %" PRIu64
		", heap order (id crf t_last key):\n", p->lambda, p->heap.n, p->base);
	for (i = 0; i < p->heap.n; i++) {
		e = lrfu_ent(p, i);
		lp = lrfu_cpriv(hs_env_folio(p->env, e->id));
		fprintf(fp, "  [%" PRIu64 "] %" PRIu32 " %.17g %" PRIu64 " %.17g\n", i, e->id,
			lp->crf, e->t_last, e->key);
	}
}

static void lrfu_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "lrfu.lambda", p->lambda);
	hs_metrics_add(m, "lrfu.renorms", (double)p->renorms);
	if (p->ghost)
		hs_metrics_add(m, "lrfu.ghost_reuses", (double)p->reuses);
}

const struct hs_policy_ops hs_policy_lrfu = {
	.abi		= HS_POLICY_ABI,
	.name		= "lrfu",
	.summary	= "LRFU: smallest combined recency/frequency (0 LFU, 1 LRU)",
	.params		= lrfu_params,
	.folio_priv	= sizeof(struct lrfu_priv),
	.flags		= 0,
	.create		= lrfu_create,
	.destroy	= lrfu_destroy,
	.hit		= lrfu_hit,
	.insert		= lrfu_insert,
	.evict		= lrfu_evict,
	.remove		= lrfu_remove,
	.hint		= lrfu_hint,
	.check		= lrfu_check,
	.dump		= lrfu_dump,
	.report		= lrfu_report,
};
