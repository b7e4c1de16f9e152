/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LIRS: Low Inter-reference Recency Set replacement, as the authors' own
 * simulator (lirs.c, Song Jiang, 2002) runs it.
 *
 * Reference: S. Jiang and X. Zhang, "LIRS: An Efficient Low Inter-reference
 * Recency Set Replacement Policy to Improve Buffer Cache Performance",
 * SIGMETRICS 2002; POLICIES.md section 4.5.  The reference numbers of
 * POLICIES.md section 5.1 come from the authors' program, so where the paper
 * leaves room this file does what that program does (sizes, warm-up, the
 * stack bound, immediate repeats).  No line of it is copied.
 *
 * A block's inter-reference recency (IRR) is the number of other distinct
 * blocks touched between its last two references.  Blocks with a low IRR are
 * LIR blocks and are always resident; the rest are HIR blocks, and only a
 * few of them (L_hirs frames, 1% of memory and at least 2) are resident.
 * Memory m = L_lirs + L_hirs.  LIRS never measures an IRR: it keeps every
 * recently seen block in a recency stack S whose bottom is always the least
 * recent LIR block, so "the block is still in S" means "its new IRR is below
 * the recency of the oldest LIR block", which is exactly when it deserves a
 * LIR slot more than that block does.
 *
 *              top (MRU)                                bottom
 *        S:  [ x  LIR  hir  HIR'  LIR  hir'  LIR ... LIR ]   LIR, HIR, HIR' (non-resident)
 *                                                   ^ always LIR ("pruned")
 *        Q:  [ resident HIR blocks, LRU order ]  --> evict from the LRU end
 *
 * A block is on S, on Q, on both (a resident HIR block seen recently) or on
 * neither (forgotten).  Both are qlists threaded through the private area,
 * so each key carries two links.  qlist heads are the old ends: S.head is
 * the stack bottom, Q.head the next victim.
 *
 * Reference to block x (after the immediate-repeat rule below):
 *
 *   hit, x LIR          move x to the top of S; if x was the bottom, prune S.
 *   hit, x HIR, in S    x becomes LIR (its IRR beats the bottom LIR's
 *                       recency) and leaves Q; the bottom LIR of S is
 *                       demoted to HIR, goes to the MRU end of Q and leaves
 *                       S; S is pruned.
 *   hit, x HIR, not S   x goes to the top of S and to the MRU end of Q.
 *   miss                the driver has already called evict() if memory was
 *                       full: Q's LRU end leaves memory but keeps its place
 *                       in S, now a non-resident HIR block (forgotten if it
 *                       was not in S).  Then:
 *                       - warm-up: while free memory exceeds L_hirs, x
 *                         becomes LIR directly (so the first L_lirs misses
 *                         of a cold run fill the LIR set);
 *                       - x HIR in S (a non-resident HIR block): as for the
 *                         hit, x becomes LIR and the bottom LIR is demoted;
 *                       - otherwise x is a resident HIR block: top of S, MRU
 *                         end of Q.
 *
 * "Pruning" pops HIR blocks off the bottom of S until a LIR block is there;
 * resident ones stay on Q, non-resident ones are forgotten.  When no block is
 * LIR (possible only after drops, or with L_lirs = 0) S is pruned empty.
 *
 * Rules taken from the authors' program:
 *   - L_hirs = floor(hir_percent / 100 * m), at least hir_min (defaults 1.0
 *     and 2, the program's HIR_RATE and LOWEST_HG_NUM), at most m; with
 *     L_hirs = m no block is ever LIR and LIRS is LRU over Q.
 *   - Immediate repeats: a reference to the block referenced just before is
 *     skipped without touching any state (the driver still counts the hit).
 *     Parameter skip_repeats (default true) turns this off.
 *   - The stack bound: when S holds more than stack_factor * m blocks
 *     (program: 2500 * m), the HIR block nearest the bottom of S is taken
 *     off S (resident: it stays on Q; non-resident: forgotten).  At most one
 *     block enters S per reference, so S never exceeds the bound after a
 *     step.  At 2500 * m the bound never triggers on the traces in
 *     POLICIES.md section 5.1.
 *   - When a promotion finds fewer than L_lirs LIR blocks (after drops or
 *     hint evictions) nothing is demoted.
 *
 * Hooks beyond the paper: a PAGEOUT hint (remove(HINT)) evicts a resident
 * HIR block as evict() would; a LIR block so evicted becomes a non-resident
 * HIR block at its place in S (pruned if it was the bottom).  A drop forgets
 * the block wherever it is.
 *
 * A COLD hint (POLICIES.md section 2b) demotes the block to a resident HIR
 * block at Q's LRU end, LIRS's eviction end, so the next miss that needs room
 * evicts it unless it is referenced first.  It leaves S as a demoted bottom
 * LIR block does: a LIR block loses its status (pruning S if it was the
 * bottom), and a resident HIR block loses its place in S too, so that a
 * reference soon after the hint finds it "seen too long ago" and does not
 * promote it; if the hint is the last word, it is forgotten when evicted.
 * Demoting a LIR block leaves a LIR slot free: the next promotion demotes no
 * one (as after a hint eviction).  The demotion counts in lirs.demotions.
 * The immediate-repeat rule does not carry across a hint: a reference to the
 * block right after its COLD hint is processed.  PAGEOUT answers "evict" and
 * leaves the choice to the driver's pageout mode (lib/sim.h).
 *
 * Protection: a resident HIR block that is hit while in S and promoted to
 * LIR leaves Q, the only place victims come from, where it would otherwise
 * have been evicted after L_hirs more misses without another reference; it
 * is reported as HS_PROT_SECOND_CHANCE.  It is useful if the block is
 * referenced again before it leaves memory, wasted if it is demoted and
 * evicted untouched.  A promotion on a miss is an admission of a block that
 * was not resident, not a spared folio, and a demotion spares nothing, so
 * neither is reported.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "qlist.h"

/* struct lirs_key flags */
#define K_LIR	0x01u	/* a LIR block: resident, on S, never on Q */
#define K_IN_S	0x02u	/* on the stack S (any status) */
#define K_IN_Q	0x04u	/* on Q: exactly the resident HIR blocks */

/* The per-key private area. */
struct lirs_key {
	struct hs_qlink	s;		/* link on S; valid only with K_IN_S */
	struct hs_qlink	q;		/* link on Q; valid only with K_IN_Q */
	uint8_t		flags;		/* K_*; 0: unknown or forgotten */
};

struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's record array */
	struct hs_qctx	sctx;		/* where the S links live */
	struct hs_qctx	qctx;		/* where the Q links live */
	struct hs_qlist	s;		/* stack S: head = bottom (a LIR block), tail = top */
	struct hs_qlist	q;		/* queue Q: head = LRU end (next victim), tail = MRU */
	uint64_t	l_lirs;		/* LIR slots: m - l_hirs */
	uint64_t	l_hirs;		/* frames for resident HIR blocks, 1 .. m */
	uint64_t	nr_lir;		/* LIR blocks now, <= l_lirs */
	uint64_t	s_max;		/* most blocks S may hold (stack_factor * m, saturated) */
	uint64_t	promotions;	/* HIR blocks that became LIR */
	uint64_t	demotions;	/* LIR blocks demoted to HIR (by the stack or COLD) */
	uint64_t	repeats;	/* immediate repeats skipped */
	uint32_t	last;		/* key of the previous access, HS_NIL at first */
	bool		skip_repeats;	/* skip immediate repeats, as the authors' program */
};

static const struct hs_param lirs_params[] = {
	{ .name = "hir_percent", .type = HS_PARAM_DOUBLE, .def = "1.0",
	  .help = "share of memory for resident HIR blocks, in percent (lirs.c HIR_RATE)",
	  .min = 0.0, .max = 100.0 },
	{ .name = "hir_min", .type = HS_PARAM_U64, .def = "2",
	  .help = "fewest frames for resident HIR blocks (lirs.c LOWEST_HG_NUM)",
	  .min = 1.0, .max = 18446744073709551616.0 },
	{ .name = "skip_repeats", .type = HS_PARAM_BOOL, .def = "true",
	  .help = "ignore a reference to the block referenced just before, as lirs.c" },
	{ .name = "stack_factor", .type = HS_PARAM_U64, .def = "2500",
	  .help = "stack S holds at most this many times the capacity (lirs.c MAX_S_LEN)",
	  .min = 1.0, .max = 18446744073709551616.0 },
	{ .name = NULL },
};

static inline struct lirs_key *key_of(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static inline struct lirs_key *key_at(const struct hs_policy *p, uint32_t id)
{
	return hs_folio_priv(hs_env_folio(p->env, id));
}

/* Pop HIR blocks off the bottom of S until a LIR block (or nothing) is there. */
static void prune(struct hs_policy *p)
{
	while (p->s.head != HS_NIL) {
		struct lirs_key *k = key_at(p, p->s.head);

		if (k->flags & K_LIR)
			break;
		hs_q_del(&p->sctx, &p->s, p->s.head);
		k->flags &= (uint8_t)~K_IN_S;
	}
}

/* The bottom LIR block of S becomes a resident HIR block at Q's MRU end. */
static void demote_bottom(struct hs_policy *p)
{
	uint32_t id = p->s.head;
	struct lirs_key *k = key_at(p, id);

	hs_q_del(&p->sctx, &p->s, id);
	k->flags = K_IN_Q;
	hs_q_push_tail(&p->qctx, &p->q, id);
	p->nr_lir--;
	p->demotions++;
	prune(p);
}

/* x (a HIR block on S, already moved to the top) becomes LIR. */
static void promote(struct hs_policy *p, struct lirs_key *k)
{
	k->flags |= K_LIR;
	p->nr_lir++;
	p->promotions++;
	if (p->nr_lir > p->l_lirs)
		demote_bottom(p);
}

/* Keep S within its bound: take the HIR block nearest the bottom off S. */
static void bound_stack(struct hs_policy *p)
{
	uint32_t id;

	if (p->s.nr <= p->s_max)
		return;
	/* S holds more than s_max >= m >= nr_lir blocks, so a HIR block exists. */
	for (id = p->s.head; id != HS_NIL; id = hs_q_next(&p->sctx, id)) {
		struct lirs_key *k = key_at(p, id);

		if (!(k->flags & K_LIR)) {
			hs_q_del(&p->sctx, &p->s, id);
			k->flags &= (uint8_t)~K_IN_S;
			return;
		}
	}
}

/* Put x on top of S, whether or not it is there already. */
static void to_top(struct hs_policy *p, uint32_t id, struct lirs_key *k)
{
	if (k->flags & K_IN_S) {
		hs_q_move_tail(&p->sctx, &p->s, id);
	} else {
		hs_q_push_tail(&p->sctx, &p->s, id);
		k->flags |= K_IN_S;
	}
}

static int lirs_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		       struct hs_policy **out)
{
	uint64_t m = env->capacity;
	uint64_t factor;
	struct hs_policy *p;
	double share;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	p->sctx.base = env->folios;
	p->sctx.stride = env->stride;
	p->sctx.off = env->priv_off + offsetof(struct lirs_key, s);
	p->qctx = p->sctx;
	p->qctx.off = env->priv_off + offsetof(struct lirs_key, q);
	hs_q_init(&p->s);
	hs_q_init(&p->q);

	/* The program's expression, truncated: HIR_RATE / 100.0 * mem_size. */
	share = hs_param_double(ps, "hir_percent") / 100.0 * (double)m;
	p->l_hirs = share >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)share;
	p->l_hirs = HS_MAX(p->l_hirs, hs_param_u64(ps, "hir_min"));
	p->l_hirs = HS_MIN(p->l_hirs, m);
	p->l_lirs = m - p->l_hirs;

	factor = hs_param_u64(ps, "stack_factor");
	p->s_max = factor > UINT64_MAX / m ? UINT64_MAX : factor * m;
	p->skip_repeats = hs_param_bool(ps, "skip_repeats");
	p->last = HS_NIL;
	*out = p;
	return 0;
}

static void lirs_destroy(struct hs_policy *p)
{
	free(p);
}

static void lirs_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct lirs_key *k = key_of(f);
	uint32_t id = a->key;

	(void)a;
	if (p->skip_repeats && id == p->last) {
		p->repeats++;
		return;
	}
	p->last = id;

	if (k->flags & K_LIR) {
		/* Moving the bottom LIR block up exposes HIR blocks to pruning. */
		to_top(p, id, k);
		prune(p);
	} else if (k->flags & K_IN_S) {
		/* A resident HIR block whose new IRR beats the bottom LIR's recency. */
		hs_q_del(&p->qctx, &p->q, id);
		k->flags &= (uint8_t)~K_IN_Q;
		to_top(p, id, k);
		hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
		promote(p, k);
		prune(p);
	} else {
		/* A resident HIR block seen too long ago: it stays HIR. */
		hs_q_move_tail(&p->qctx, &p->q, id);
		to_top(p, id, k);
		prune(p);
	}
	bound_stack(p);
}

static void lirs_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	uint64_t resident = p->nr_lir + p->q.nr;	/* before f */
	struct lirs_key *k = key_of(f);
	bool was_in_s = k->flags & K_IN_S;
	uint32_t id = a->key;

	(void)a;
	p->last = id;
	to_top(p, id, k);
	if (p->env->capacity - resident > p->l_hirs) {
		/* Warm-up: free memory beyond the HIR frames goes to LIR blocks. */
		k->flags |= K_LIR;
		p->nr_lir++;
	} else if (was_in_s) {
		/* A non-resident HIR block still in S: its IRR earns a LIR slot. */
		promote(p, k);
	} else {
		/* A new or forgotten block: a resident HIR block. */
		hs_q_push_tail(&p->qctx, &p->q, id);
		k->flags |= K_IN_Q;
	}
	prune(p);
	bound_stack(p);
}

static size_t lirs_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			 size_t need, struct hs_folio **victims, size_t max)
{
	struct lirs_key *k;
	uint32_t id;

	(void)incoming;
	(void)a;
	(void)need;
	(void)max;
	/*
	 * Memory is full and nr_lir <= l_lirs = m - l_hirs, so Q holds at least
	 * l_hirs >= 1 blocks; an empty Q means broken invariants, and returning
	 * nothing makes the driver say so.
	 */
	id = hs_q_pop_head(&p->qctx, &p->q);
	if (id == HS_NIL)
		return 0;
	k = key_at(p, id);
	k->flags &= (uint8_t)~K_IN_Q;	/* still on S if it was: now non-resident */
	victims[0] = hs_env_folio(p->env, id);
	return 1;
}

static void lirs_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	struct lirs_key *k = key_of(f);
	uint32_t id = hs_folio_id(p->env, f);

	if (k->flags & K_IN_Q) {
		hs_q_del(&p->qctx, &p->q, id);
		k->flags &= (uint8_t)~K_IN_Q;
	}
	if (k->flags & K_LIR) {
		/* Evicted by a hint: a non-resident HIR block at its place in S. */
		k->flags &= (uint8_t)~K_LIR;
		p->nr_lir--;
	}
	if (why == HS_REMOVE_DROP && (k->flags & K_IN_S)) {
		hs_q_del(&p->sctx, &p->s, id);
		k->flags &= (uint8_t)~K_IN_S;
	}
	prune(p);
}

static enum hs_hint_verdict lirs_hint(struct hs_policy *p, struct hs_folio *f,
				      const struct hs_access *a)
{
	struct lirs_key *k = key_of(f);
	uint32_t id = a->key;

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	if (p->last == id)
		p->last = HS_NIL;
	if (k->flags & K_LIR) {
		p->nr_lir--;
		p->demotions++;
	} else {
		hs_q_del(&p->qctx, &p->q, id);
	}
	if (k->flags & K_IN_S)
		hs_q_del(&p->sctx, &p->s, id);
	k->flags = K_IN_Q;
	hs_q_push_head(&p->qctx, &p->q, id);
	prune(p);
	return HS_HINT_KEEP;
}

static int lirs_check(const struct hs_policy *p)
{
	uint64_t in_s = 0, in_q = 0, lir = 0, lir_on_s = 0, nr;
	const struct hs_policy_env *env = p->env;
	uint32_t id, i;

	if (p->nr_lir > p->l_lirs || p->s.nr > p->s_max ||
	    p->nr_lir + p->q.nr > env->capacity)
		return -EUCLEAN;
	if (p->s.head != HS_NIL && !(key_at(p, p->s.head)->flags & K_LIR))
		return -EUCLEAN;	/* the bottom of S must be LIR */

	nr = 0;
	for (id = p->s.head; id != HS_NIL; id = hs_q_next(&p->sctx, id)) {
		if (++nr > p->s.nr || !(key_at(p, id)->flags & K_IN_S))
			return -EUCLEAN;
		lir_on_s += (key_at(p, id)->flags & K_LIR) != 0;
	}
	if (nr != p->s.nr || lir_on_s != p->nr_lir)
		return -EUCLEAN;
	nr = 0;
	for (id = p->q.head; id != HS_NIL; id = hs_q_next(&p->qctx, id))
		if (++nr > p->q.nr || !(key_at(p, id)->flags & K_IN_Q))
			return -EUCLEAN;
	if (nr != p->q.nr)
		return -EUCLEAN;

	for (i = 0; i < env->nr_keys; i++) {
		const struct hs_folio *f = hs_env_folio(env, i);
		uint8_t fl = ((const struct lirs_key *)hs_folio_cpriv(f))->flags;
		bool mine = fl & (K_LIR | K_IN_Q);

		if ((fl & K_LIR) && (fl & K_IN_Q))
			return -EUCLEAN;	/* Q holds HIR blocks only */
		if (mine != hs_folio_is_resident(f))
			return -EUCLEAN;	/* resident = LIR or on Q */
		in_s += (fl & K_IN_S) != 0;
		in_q += (fl & K_IN_Q) != 0;
		lir += (fl & K_LIR) != 0;
	}
	if (in_s != p->s.nr || in_q != p->q.nr || lir != p->nr_lir)
		return -EUCLEAN;
	return 0;
}

static void lirs_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "lirs: m=%" PRIu64 " l_lirs=%" PRIu64 " l_hirs=%" PRIu64 " lir=%" PRIu64
		" hir_resident=%" PRIu64 " stack=%" PRIu64 "\n", p->env->capacity, p->l_lirs,
		p->l_hirs, p->nr_lir, p->q.nr, p->s.nr);
	fprintf(fp, "S (top first):");
	for (id = p->s.tail; id != HS_NIL; id = hs_q_prev(&p->sctx, id)) {
		uint8_t fl = key_at(p, id)->flags;

		fprintf(fp, " %" PRIu32 "%s", id,
			(fl & K_LIR) ? "L" : (fl & K_IN_Q) ? "H" : "h");
	}
	fprintf(fp, "\nQ (MRU first):");
	for (id = p->q.tail; id != HS_NIL; id = hs_q_prev(&p->qctx, id))
		fprintf(fp, " %" PRIu32, id);
	fprintf(fp, "\n");
}

static void lirs_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "lirs.lir", (double)p->nr_lir);
	hs_metrics_add(m, "lirs.hir_resident", (double)p->q.nr);
	hs_metrics_add(m, "lirs.stack", (double)p->s.nr);
	hs_metrics_add(m, "lirs.l_hirs", (double)p->l_hirs);
	hs_metrics_add(m, "lirs.promotions", (double)p->promotions);
	hs_metrics_add(m, "lirs.demotions", (double)p->demotions);
	hs_metrics_add(m, "lirs.repeats", (double)p->repeats);
}

const struct hs_policy_ops hs_policy_lirs = {
	.abi = HS_POLICY_ABI,
	.name = "lirs",
	.summary = "LIRS (Jiang & Zhang 2002) as the authors' lirs.c",
	.params = lirs_params,
	.folio_priv = sizeof(struct lirs_key),
	.create = lirs_create,
	.destroy = lirs_destroy,
	.hit = lirs_hit,
	.insert = lirs_insert,
	.evict = lirs_evict,
	.remove = lirs_remove,
	.hint = lirs_hint,
	.check = lirs_check,
	.dump = lirs_dump,
	.report = lirs_report,
};
