/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CART, CAR with Temporal filtering, as a policy for the simulation driver:
 * CAR's two clocks and adaptive target, plus a per-page filter bit that keeps
 * pages re-referenced only within a short window from counting as frequent.
 *
 *		The algorithm
 *
 * Reference: S. Bansal and D. S. Modha, "CAR: Clock with Adaptive
 * Replacement", FAST 2004, Figure 3 (POLICIES.md section 4.3).
 *
 * Each resident page has a reference bit and a filter bit, S (short-term
 * utility) or L (long-term utility).  A page enters as S; it becomes L when
 * it comes back from B1, or when the T1 hand finds it referenced while T1 is
 * at least min(p + 1, |B1|) long ("it survived a long enough stretch of T1").
 * Only S pages are evicted from T1; an L page reaching the T1 hand with ref 0
 * moves to T2.  nS and nL count the resident S and L pages.
 *
 *	T1  clock of S pages and of L pages not yet moved to T2
 *	T2  clock of L pages
 *	B1  LRU ghosts of S pages evicted from T1
 *	B2  LRU ghosts of L pages evicted from T2
 *
 *	         +------------- ref=1: to T1 tail ----------------+
 *	         |                                                |
 *	T2: hand-> head ... tail <-- L, ref=0 --+   T1: hand-> head ... tail
 *	   | ref=0                              |        |  ref=1: rotate (S may become L)
 *	   v                                    +--------+  L, ref=0: to T2 tail
 *	B2: LRU ... MRU                                  |  S, ref=0: to B1 MRU
 *	                                                 v
 *	                                    B1: LRU ... MRU
 *
 * Two targets: p for |T1| (moved by ghost hits, as in CAR, but with the
 * ratios nS/|B1| and nL/|B2|) and q for |B1| (moved by the hands: up when a
 * referenced T2 page comes back to T1 or a B2 ghost returns while the L side
 * is large, |T2| + |B2| + |T1| - nS >= c; down when an L page leaves T1 for T2).
 *
 * Access to x:
 *	hit: ref(x) = 1.
 *	miss: if the cache is full, replace(); then, if x is in no ghost list
 *	      and |B1| + |B2| == c + 1, discard the LRU of B1 if |B1| > max(0, q)
 *	      or B2 is empty, else the LRU of B2.
 *	      x new:   to the tail of T1, ref 0, S, nS++.
 *	      x in B1: p = min(p + max(1, nS / |B1|), c); to the tail of T1, ref 0,
 *		       L, nL++.
 *	      x in B2: p = max(p - max(1, nL / |B2|), 0); to the tail of T1, ref 0,
 *		       (stays L), nL++; if |T2| + |B2| + |T1| - nS >= c then
 *		       q = min(q + 1, 2c - |T1|).
 *	replace():
 *	      while head(T2) has ref 1: move it to the tail of T1, ref 0; if
 *		|T2| + |B2| + |T1| - nS >= c then q = min(q + 1, 2c - |T1|).
 *	      while head(T1) is L or has ref 1:
 *		ref 1: rotate it in T1, ref 0; if |T1| >= min(p + 1, |B1|) and it
 *		       is S, make it L (nS--, nL++);
 *		ref 0 (so L): move it to the tail of T2; q = max(q - 1, c - |T1|).
 *	      if |T1| >= max(1, p): demote head(T1) (S, ref 0) to the MRU of B1, nS--;
 *	      else demote head(T2) (L, ref 0) to the MRU of B2, nL--.
 *
 * Sizes are taken at the moment each formula is evaluated, in the paper's
 * order: the ratios with x still on its ghost list and before nL++; the q
 * tests after the page has moved (so |T1| counts it).  The paper's line "set
 * type of x to L" inside replace() refers to the rotated page, as POLICIES.md
 * reads it.  p is real-valued (the ratios are real); q only moves in steps of
 * one between integer bounds and is an integer.
 *
 * Invariants: |T1| + |T2| <= c, |B1| + |B2| <= c between misses (c + 1
 * between ->evict() and ->insert()), so the total stays <= 2c; everything on
 * T2 and B2 is L, everything on B1 is S; nS + nL = |T1| + |T2|; 0 <= p <= c,
 * 0 <= q <= 2c.
 *
 *		Mapping to the driver's hooks
 *
 *  - ->hit() sets the reference bit.
 *  - ->evict() is replace(), @need times; the driver calls it only when the
 *    cache is full, the paper's "if |T1| + |T2| == c".
 *  - ->insert() runs the history discard for a key with no history, the
 *    adaptation of p (and q) for a ghost, and links x.  The discard is tested
 *    on every miss: without DROPs |B1| + |B2| is 0 until the first eviction, so
 *    that equals the paper's placement inside "if cache full".
 *  - ->remove(DROP) forgets the key.  A PAGEOUT hint eviction (HINT) demotes an
 *    S page of T1 to B1 and an L page (T1 or T2) to B2, keeping the filter
 *    invariants; if the ghosts then exceed c, one is discarded by the rule
 *    above.
 *  - The demotion falls back to the other clock if the chosen one is empty
 *    (possible only after DROPs).
 *  - ->hint(): COLD (POLICIES.md section 2b) puts the page under the hand of
 *    its clock (the head of T1 or T2) with its reference bit clear, CART's
 *    "eviction end"; the filter bit stays.  In T2 the page is then the next
 *    one demoted to B2 whenever replace() demotes from T2.  In T1 an S page
 *    is the next one demoted to B1, while an L page, as always with bit 0
 *    at T1's hand, first moves on to T2 (where it arrives before the pages
 *    the same replace() moves after it).  Which clock gives the victim is
 *    still decided by p.  Nothing is evicted on the spot.  PAGEOUT answers
 *    "evict" and leaves the choice to the driver's pageout mode (lib/sim.h).
 *
 *		Protection
 *
 * Each time a hand finds a page with ref = 1 and spares it (T2 head back to
 * T1, T1 head rotated), the page is reported as HS_PROT_SECOND_CHANCE.
 *
 * Cost: amortized O(1) per access; the private area is 12 bytes per key.  check()
 * walks the lists and every key record, O(nr_keys), for tests and --paranoid.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "policy-util.h"

enum cart_list {
	CART_NONE,		/* the key is on no list */
	CART_T1,		/* resident clock, S and L pages */
	CART_T2,		/* resident clock, L pages */
	CART_B1,		/* ghosts of S pages */
	CART_B2,		/* ghosts of L pages */
	CART_NR
};

static const char *const cart_list_name[CART_NR] = { "-", "T1", "T2", "B1", "B2" };

#define CART_S	0		/* filter bit: short-term utility */
#define CART_L	1		/* filter bit: long-term utility */

/* Per-key state, in the driver's private area (zeroed at start: CART_NONE). */
struct cart_key {
	struct hs_qlink	link;		/* position on lists[list]; valid while list != CART_NONE */
	uint8_t		list;		/* enum cart_list */
	uint8_t		ref;		/* reference bit; 0 unless on T1 or T2 */
	uint8_t		filter;		/* CART_S or CART_L; meaningful while on a list */
};

struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's record array and capacity */
	struct hs_qctx	ctx;			/* where struct cart_key.link lives */
	struct hs_qlist	lists[CART_NR];		/* T1, T2, B1, B2; lists[CART_NONE] unused */
	uint64_t	c;			/* capacity in pages */
	double		p;			/* target size of T1, 0 <= p <= c */
	int64_t		q;			/* target size of B1, 0 <= q <= 2c */
	uint64_t	ns;			/* resident pages marked S */
	uint64_t	nl;			/* resident pages marked L */
	bool		in_miss;		/* between ->evict() and ->insert(): ghosts may
						 * number c + 1 */
};

static struct cart_key *cart_key(const struct hs_policy *p, uint32_t id)
{
	return hs_folio_priv(hs_env_folio(p->env, id));
}

static uint64_t cart_nr(const struct hs_policy *p, enum cart_list l)
{
	return p->lists[l].nr;
}

/* Take id off its list (if any), append it at the tail of @to, clear its bit. */
static void cart_move(struct hs_policy *p, uint32_t id, enum cart_list to)
{
	struct cart_key *k = cart_key(p, id);

	if (k->list != CART_NONE)
		hs_q_del(&p->ctx, &p->lists[k->list], id);
	hs_q_push_tail(&p->ctx, &p->lists[to], id);
	k->list = (uint8_t)to;
	k->ref = 0;
}

/* Forget the LRU key of a ghost list. */
static void cart_drop_lru(struct hs_policy *p, enum cart_list l)
{
	uint32_t id = hs_q_pop_head(&p->ctx, &p->lists[l]);

	if (id != HS_NIL)
		cart_key(p, id)->list = CART_NONE;
}

/* The history discard: B1's LRU if |B1| > max(0, q) or B2 is empty, else B2's. */
static void cart_discard(struct hs_policy *p)
{
	if ((int64_t)cart_nr(p, CART_B1) > (p->q > 0 ? p->q : 0) ||
	    hs_q_empty(&p->lists[CART_B2]))
		cart_drop_lru(p, CART_B1);
	else
		cart_drop_lru(p, CART_B2);
}

/* The q test of the paper: |T2| + |B2| + |T1| - nS >= c gives q = min(q + 1, 2c - |T1|). */
static void cart_raise_q(struct hs_policy *p)
{
	uint64_t t1 = cart_nr(p, CART_T1);
	int64_t cap;

	if (cart_nr(p, CART_T2) + cart_nr(p, CART_B2) + t1 - p->ns < p->c)
		return;
	cap = (int64_t)(2 * p->c - t1);
	p->q = p->q + 1 < cap ? p->q + 1 : cap;
}

/* replace(): run both hands, then demote one page; return it (now a ghost). */
static uint32_t cart_replace(struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	struct cart_key *k;
	int64_t lo;
	uint32_t h;

	while ((h = p->lists[CART_T2].head) != HS_NIL && cart_key(p, h)->ref) {
		hs_sim_protect(env->sim, hs_env_folio(env, h), HS_PROT_SECOND_CHANCE);
		cart_move(p, h, CART_T1);
		cart_raise_q(p);
	}
	while ((h = p->lists[CART_T1].head) != HS_NIL) {
		k = cart_key(p, h);
		if (k->ref) {
			hs_sim_protect(env->sim, hs_env_folio(env, h), HS_PROT_SECOND_CHANCE);
			cart_move(p, h, CART_T1);
			if (k->filter == CART_S) {
				double t1 = (double)cart_nr(p, CART_T1);
				double b1 = (double)cart_nr(p, CART_B1);

				if (t1 >= (p->p + 1.0 < b1 ? p->p + 1.0 : b1)) {
					k->filter = CART_L;
					p->ns--;
					p->nl++;
				}
			}
		} else if (k->filter == CART_L) {
			cart_move(p, h, CART_T2);
			lo = (int64_t)(p->c - cart_nr(p, CART_T1));
			p->q = p->q - 1 > lo ? p->q - 1 : lo;
		} else {
			break;
		}
	}

	if ((double)cart_nr(p, CART_T1) >= (p->p > 1.0 ? p->p : 1.0) ||
	    hs_q_empty(&p->lists[CART_T2])) {
		h = p->lists[CART_T1].head;
		if (h == HS_NIL)
			return HS_NIL;
		assert(cart_key(p, h)->filter == CART_S);
		cart_move(p, h, CART_B1);
		p->ns--;
	} else {
		h = p->lists[CART_T2].head;
		cart_move(p, h, CART_B2);
		p->nl--;
	}
	return h;
}

static int cart_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		       struct hs_policy **out)
{
	struct hs_policy *p;
	int i;

	(void)ps;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	hs_q_ctx_init(&p->ctx, env, offsetof(struct cart_key, link));
	for (i = 0; i < CART_NR; i++)
		hs_q_init(&p->lists[i]);
	p->c = env->capacity;
	*out = p;
	return 0;
}

static void cart_destroy(struct hs_policy *p)
{
	free(p);
}

static void cart_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct cart_key *k = hs_folio_priv(f);

	(void)p;
	(void)a;
	assert(k->list == CART_T1 || k->list == CART_T2);
	k->ref = 1;
}

static size_t cart_evict(struct hs_policy *p, struct hs_folio *incoming,
			 const struct hs_access *a, size_t need, struct hs_folio **victims,
			 size_t max)
{
	size_t n = 0;
	uint32_t id;

	(void)incoming;
	(void)a;
	p->in_miss = true;
	while (n < need && n < max) {
		id = cart_replace(p);
		if (id == HS_NIL)
			break;
		victims[n++] = hs_env_folio(p->env, id);
	}
	return n;
}

static void cart_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct cart_key *x = hs_folio_priv(f);
	double b1 = (double)cart_nr(p, CART_B1);
	double b2 = (double)cart_nr(p, CART_B2);
	double c = (double)p->c;
	double delta;

	(void)a;
	p->in_miss = false;
	switch (x->list) {
	case CART_NONE:
		while (cart_nr(p, CART_B1) + cart_nr(p, CART_B2) > p->c)
			cart_discard(p);
		cart_move(p, a->key, CART_T1);
		x->filter = CART_S;
		p->ns++;
		break;
	case CART_B1:
		delta = (double)p->ns / b1 > 1.0 ? (double)p->ns / b1 : 1.0;
		p->p = p->p + delta < c ? p->p + delta : c;
		cart_move(p, a->key, CART_T1);
		x->filter = CART_L;
		p->nl++;
		break;
	case CART_B2:
		delta = (double)p->nl / b2 > 1.0 ? (double)p->nl / b2 : 1.0;
		p->p = p->p - delta > 0.0 ? p->p - delta : 0.0;
		cart_move(p, a->key, CART_T1);
		p->nl++;
		cart_raise_q(p);
		break;
	default:
		assert(!"insert of a resident key");
		break;
	}
}

static void cart_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	uint32_t id = hs_folio_id(p->env, f);
	struct cart_key *k = cart_key(p, id);
	bool resident;

	if (k->list == CART_NONE)
		return;
	resident = k->list == CART_T1 || k->list == CART_T2;
	if (resident) {
		if (k->filter == CART_S)
			p->ns--;
		else
			p->nl--;
	}
	if (why == HS_REMOVE_HINT && resident) {
		cart_move(p, id, k->filter == CART_S ? CART_B1 : CART_B2);
		while (cart_nr(p, CART_B1) + cart_nr(p, CART_B2) > p->c)
			cart_discard(p);
	} else {
		hs_q_del(&p->ctx, &p->lists[k->list], id);
		k->list = CART_NONE;
		k->ref = 0;
	}
}

static enum hs_hint_verdict cart_hint(struct hs_policy *p, struct hs_folio *f,
				      const struct hs_access *a)
{
	struct cart_key *k = hs_folio_priv(f);
	struct hs_qlist *l = &p->lists[k->list];

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	assert(k->list == CART_T1 || k->list == CART_T2);
	k->ref = 0;
	if (l->head != a->key) {
		hs_q_del(&p->ctx, l, a->key);
		hs_q_push_head(&p->ctx, l, a->key);
	}
	return HS_HINT_KEEP;
}

/* Walk one list: links, tags, residency, filter bits; count the S pages. */
static int cart_check_list(const struct hs_policy *p, enum cart_list l, uint64_t *ns)
{
	bool resident = l == CART_T1 || l == CART_T2;
	uint32_t id;

	if (hs_q_check(&p->ctx, &p->lists[l], p->env, resident))
		return -EUCLEAN;
	for (id = p->lists[l].head; id != HS_NIL; id = hs_q_next(&p->ctx, id)) {
		const struct cart_key *k = cart_key(p, id);

		if (k->list != l || k->ref > 1 || k->filter > CART_L)
			return -EUCLEAN;
		if (!resident && k->ref)
			return -EUCLEAN;
		if ((l == CART_T2 || l == CART_B2) && k->filter != CART_L)
			return -EUCLEAN;
		if (l == CART_B1 && k->filter != CART_S)
			return -EUCLEAN;
		if (resident && k->filter == CART_S)
			(*ns)++;
	}
	return 0;
}

static int cart_check(const struct hs_policy *p)
{
	uint64_t t1 = cart_nr(p, CART_T1), t2 = cart_nr(p, CART_T2);
	uint64_t b1 = cart_nr(p, CART_B1), b2 = cart_nr(p, CART_B2);
	uint64_t count[CART_NR] = { 0 };
	uint64_t ns = 0;
	uint32_t id;
	int i;

	for (i = CART_T1; i < CART_NR; i++)
		if (cart_check_list(p, (enum cart_list)i, &ns))
			return -EUCLEAN;
	for (id = 0; id < p->env->nr_keys; id++) {
		const struct cart_key *k = cart_key(p, id);

		if (k->list >= CART_NR || (k->list == CART_NONE && k->ref))
			return -EUCLEAN;
		count[k->list]++;
	}
	for (i = CART_T1; i < CART_NR; i++)
		if (count[i] != p->lists[i].nr)
			return -EUCLEAN;
	if (ns != p->ns || p->ns + p->nl != t1 + t2)
		return -EUCLEAN;
	if (t1 + t2 > p->c || b1 + b2 > p->c + (p->in_miss ? 1 : 0) ||
	    t1 + t2 + b1 + b2 > 2 * p->c)
		return -EUCLEAN;
	if (!(p->p >= 0.0 && p->p <= (double)p->c))
		return -EUCLEAN;
	if (p->q < 0 || p->q > (int64_t)(2 * p->c))
		return -EUCLEAN;
	return 0;
}

static void cart_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;
	int i;

	fprintf(fp, "cart: c=%" PRIu64 " p=%.6g q=%" PRId64 " nS=%" PRIu64 " nL=%" PRIu64 "\n",
		p->c, p->p, p->q, p->ns, p->nl);
	for (i = CART_T1; i < CART_NR; i++) {
		fprintf(fp, "  %s (%" PRIu64 ", head first):", cart_list_name[i], p->lists[i].nr);
		for (id = p->lists[i].head; id != HS_NIL; id = hs_q_next(&p->ctx, id)) {
			const struct cart_key *k = cart_key(p, id);

			fprintf(fp, " %" PRIu32 "%c%s", id, k->filter == CART_L ? 'L' : 'S',
				k->ref ? "*" : "");
		}
		fputc('\n', fp);
	}
}

static void cart_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "cart.p", p->p);
	hs_metrics_add(m, "cart.q", (double)p->q);
	hs_metrics_add(m, "cart.ns", (double)p->ns);
	hs_metrics_add(m, "cart.nl", (double)p->nl);
	hs_metrics_add(m, "cart.t1", (double)cart_nr(p, CART_T1));
	hs_metrics_add(m, "cart.t2", (double)cart_nr(p, CART_T2));
	hs_metrics_add(m, "cart.b1", (double)cart_nr(p, CART_B1));
	hs_metrics_add(m, "cart.b2", (double)cart_nr(p, CART_B2));
}

const struct hs_policy_ops hs_policy_cart = {
	.abi		= HS_POLICY_ABI,
	.name		= "cart",
	.summary	= "CAR with Temporal filtering (Bansal & Modha, FAST'04)",
	.params		= NULL,
	.folio_priv	= sizeof(struct cart_key),
	.flags		= 0,
	.create		= cart_create,
	.destroy	= cart_destroy,
	.hit		= cart_hit,
	.insert		= cart_insert,
	.evict		= cart_evict,
	.remove		= cart_remove,
	.hint		= cart_hint,
	.check		= cart_check,
	.dump		= cart_dump,
	.report		= cart_report,
};
