/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CAR, Clock with Adaptive Replacement, as a policy for the simulation
 * driver: ARC's adaptive split between recency and frequency, with the two
 * resident LRU lists replaced by CLOCKs so that a hit only sets a bit.
 *
 *		The algorithm
 *
 * Reference: S. Bansal and D. S. Modha, "CAR: Clock with Adaptive
 * Replacement", FAST 2004, Figure 2 (POLICIES.md section 4.2).
 *
 * Four lists, as in ARC (policies/arc.c), but T1 and T2 are CLOCKs whose pages
 * carry a reference bit; B1 and B2 are LRU lists of ghost keys.
 *
 *	T1  resident pages that entered on a miss with no history (CLOCK)
 *	T2  resident pages that were found with ref = 1 in T1, or came back
 *	    from a ghost list (CLOCK)
 *	B1  ghosts of pages evicted from T1 (LRU)
 *	B2  ghosts of pages evicted from T2 (LRU)
 *
 * A CLOCK is kept as a FIFO queue: the head is the page under the hand, the
 * tail the position just behind it; "rotate" is pop head, push tail.
 *
 *	              T1 (clock)                      T2 (clock)
 *	  hand -> head [r] [r] [r] ... tail   hand -> head [r] [r] ... tail
 *	           |  ref=1: to T2 tail -------------------------------^ |
 *	           |  ref=0: to B1 MRU              ref=1: rotate -------'
 *	           v                                ref=0: to B2 MRU
 *	   B1: LRU ... MRU                        B2: LRU ... MRU
 *
 *	  |T1| + |T2| <= c,  |T1| + |B1| <= c,  |T1| + |T2| + |B1| + |B2| <= 2c
 *
 * Access to x:
 *	hit (x in T1 or T2): ref(x) = 1, nothing moves.
 *	miss: if the cache is full, replace(); then, if x is in no ghost list,
 *	      discard the LRU of B1 when |T1| + |B1| == c, else the LRU of B2 when
 *	      the total is 2c.
 *	      x new:   to the tail of T1, ref 0.
 *	      x in B1: p = min(p + max(1, |B2| / |B1|), c); x to the tail of T2, ref 0.
 *	      x in B2: p = max(p - max(1, |B1| / |B2|), 0); x to the tail of T2, ref 0.
 *	replace(): loop: if |T1| >= max(1, p), look at head(T1): ref 0 demotes it
 *	      to the MRU of B1 and ends; ref 1 clears the bit and moves it to the
 *	      tail of T2.  Otherwise look at head(T2): ref 0 demotes it to the MRU
 *	      of B2 and ends; ref 1 clears the bit and rotates it.
 *
 * p is real-valued, as in the paper (and as in policies/arc.c); the ratios are
 * computed with x still on its ghost list.  Unlike ARC, CAR adapts p after
 * replace(), so the adaptation sits naturally in ->insert().
 *
 *		Mapping to the driver's hooks
 *
 *  - ->hit() sets the reference bit.
 *  - ->evict() is replace(), repeated @need times; it does not depend on the
 *    incoming key.  The driver calls it only when the cache is full, which is
 *    the paper's "if |T1| + |T2| == c".
 *  - ->insert() runs the history discard for a key with no history, then the
 *    adaptation for a ghost, and links x.  The paper discards only when the
 *    cache was full; here the discard rule is applied on every miss.  Without
 *    DROPs that is the same thing (while the cache is not yet full, B1 and B2
 *    are empty and |T1| < c, so neither condition can hold), and after DROPs
 *    it keeps |T1| + |B1| <= c and the total <= 2c, which the paper's order
 *    would break when a page enters T1 of a cache that a DROP made non-full.
 *  - ->remove(DROP) forgets the key wherever it is; a PAGEOUT hint eviction
 *    (HINT) demotes a T1 page to B1 and a T2 page to B2 as replace() would.
 *  - replace() falls back to the other CLOCK if the chosen one is empty
 *    (possible only after DROPs).
 *  - ->hint(): COLD (POLICIES.md section 2b) puts the page under the hand of
 *    its clock (the head of T1 or T2) with its reference bit clear: CAR's
 *    "eviction end", the page that clock gives up next.  Which clock
 *    replace() turns is still decided by p, so a COLD page in T2 waits while
 *    CAR evicts from T1.  Nothing is evicted on the spot; a hit sets the bit
 *    again, and the hand then spares the page as usual.  The latest COLD
 *    page of a clock is under its hand.  PAGEOUT answers "evict" and leaves
 *    the choice to the driver's pageout mode (lib/sim.h).
 *
 *		Protection
 *
 * Every time the hand finds a page with ref = 1 and spares it (moves it from
 * T1 to T2, or rotates it in T2), the page is reported as
 * HS_PROT_SECOND_CHANCE.
 *
 * Cost: amortized O(1) per access (each spared page has used up a reference
 * bit set by a hit); the private area is 12 bytes per key.  check()
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

enum car_list {
	CAR_NONE,		/* the key is on no list */
	CAR_T1,			/* resident clock of recency */
	CAR_T2,			/* resident clock of frequency */
	CAR_B1,			/* ghosts of T1 */
	CAR_B2,			/* ghosts of T2 */
	CAR_NR
};

static const char *const car_list_name[CAR_NR] = { "-", "T1", "T2", "B1", "B2" };

/* Per-key state, in the driver's private area (zeroed at start: CAR_NONE). */
struct car_key {
	struct hs_qlink	link;		/* position on lists[list]; valid while list != CAR_NONE */
	uint8_t		list;		/* enum car_list */
	uint8_t		ref;		/* reference bit; always 0 on B1, B2 and no list */
};

struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's record array and capacity */
	struct hs_qctx	ctx;			/* where struct car_key.link lives */
	struct hs_qlist	lists[CAR_NR];		/* T1, T2, B1, B2; lists[CAR_NONE] unused */
	uint64_t	c;			/* capacity in pages */
	double		p;			/* target size of T1, 0 <= p <= c */
};

static struct car_key *car_key(const struct hs_policy *p, uint32_t id)
{
	return hs_folio_priv(hs_env_folio(p->env, id));
}

static uint64_t car_nr(const struct hs_policy *p, enum car_list l)
{
	return p->lists[l].nr;
}

/* Take id off its list (if any), append it at the tail of @to, clear its bit. */
static void car_move(struct hs_policy *p, uint32_t id, enum car_list to)
{
	struct car_key *k = car_key(p, id);

	if (k->list != CAR_NONE)
		hs_q_del(&p->ctx, &p->lists[k->list], id);
	hs_q_push_tail(&p->ctx, &p->lists[to], id);
	k->list = (uint8_t)to;
	k->ref = 0;
}

/* Forget the LRU key of a ghost list. */
static void car_drop_lru(struct hs_policy *p, enum car_list l)
{
	uint32_t id = hs_q_pop_head(&p->ctx, &p->lists[l]);

	if (id != HS_NIL)
		car_key(p, id)->list = CAR_NONE;
}

/* replace(): run the hands until a page with ref = 0 is found; return it (now a ghost). */
static uint32_t car_replace(struct hs_policy *p)
{
	struct car_key *k;
	bool from_t1;
	uint32_t h;

	for (;;) {
		uint64_t t1 = car_nr(p, CAR_T1);

		from_t1 = (double)t1 >= (p->p > 1.0 ? p->p : 1.0);
		if (hs_q_empty(&p->lists[CAR_T2]))
			from_t1 = true;
		else if (t1 == 0)
			from_t1 = false;
		h = p->lists[from_t1 ? CAR_T1 : CAR_T2].head;
		if (h == HS_NIL)
			return HS_NIL;
		k = car_key(p, h);
		if (!k->ref) {
			car_move(p, h, from_t1 ? CAR_B1 : CAR_B2);
			return h;
		}
		/* Second chance: T1 -> tail of T2, or rotate within T2. */
		hs_sim_protect(p->env->sim, hs_env_folio(p->env, h), HS_PROT_SECOND_CHANCE);
		car_move(p, h, CAR_T2);
	}
}

static int car_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		      struct hs_policy **out)
{
	struct hs_policy *p;
	int i;

	(void)ps;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	hs_q_ctx_init(&p->ctx, env, offsetof(struct car_key, link));
	for (i = 0; i < CAR_NR; i++)
		hs_q_init(&p->lists[i]);
	p->c = env->capacity;
	p->p = 0.0;
	*out = p;
	return 0;
}

static void car_destroy(struct hs_policy *p)
{
	free(p);
}

static void car_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct car_key *k = hs_folio_priv(f);

	(void)p;
	(void)a;
	assert(k->list == CAR_T1 || k->list == CAR_T2);
	k->ref = 1;
}

static size_t car_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	size_t n = 0;
	uint32_t id;

	(void)incoming;
	(void)a;
	while (n < need && n < max) {
		id = car_replace(p);
		if (id == HS_NIL)
			break;
		victims[n++] = hs_env_folio(p->env, id);
	}
	return n;
}

static void car_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct car_key *x = hs_folio_priv(f);
	double b1 = (double)car_nr(p, CAR_B1);
	double b2 = (double)car_nr(p, CAR_B2);
	double c = (double)p->c;
	double delta;

	(void)a;
	switch (x->list) {
	case CAR_NONE:
		if (car_nr(p, CAR_T1) + car_nr(p, CAR_B1) == p->c)
			car_drop_lru(p, CAR_B1);
		else if (car_nr(p, CAR_T1) + car_nr(p, CAR_T2) + car_nr(p, CAR_B1) +
			 car_nr(p, CAR_B2) == 2 * p->c)
			car_drop_lru(p, CAR_B2);
		car_move(p, a->key, CAR_T1);
		break;
	case CAR_B1:
		delta = b2 / b1 > 1.0 ? b2 / b1 : 1.0;
		p->p = p->p + delta < c ? p->p + delta : c;
		car_move(p, a->key, CAR_T2);
		break;
	case CAR_B2:
		delta = b1 / b2 > 1.0 ? b1 / b2 : 1.0;
		p->p = p->p - delta > 0.0 ? p->p - delta : 0.0;
		car_move(p, a->key, CAR_T2);
		break;
	default:
		assert(!"insert of a resident key");
		break;
	}
}

static void car_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	uint32_t id = hs_folio_id(p->env, f);
	struct car_key *k = car_key(p, id);

	if (k->list == CAR_NONE)
		return;
	if (why == HS_REMOVE_HINT && k->list == CAR_T1) {
		car_move(p, id, CAR_B1);
	} else if (why == HS_REMOVE_HINT && k->list == CAR_T2) {
		car_move(p, id, CAR_B2);
	} else {
		hs_q_del(&p->ctx, &p->lists[k->list], id);
		k->list = CAR_NONE;
		k->ref = 0;
	}
}

static enum hs_hint_verdict car_hint(struct hs_policy *p, struct hs_folio *f,
				     const struct hs_access *a)
{
	struct car_key *k = hs_folio_priv(f);
	struct hs_qlist *l = &p->lists[k->list];

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	assert(k->list == CAR_T1 || k->list == CAR_T2);
	k->ref = 0;
	if (l->head != a->key) {
		hs_q_del(&p->ctx, l, a->key);
		hs_q_push_head(&p->ctx, l, a->key);
	}
	return HS_HINT_KEEP;
}

/* Walk one list: links, membership tags, residency, ghost reference bits. */
static int car_check_list(const struct hs_policy *p, enum car_list l)
{
	bool resident = l == CAR_T1 || l == CAR_T2;
	uint32_t id;

	if (hs_q_check(&p->ctx, &p->lists[l], p->env, resident))
		return -EUCLEAN;
	for (id = p->lists[l].head; id != HS_NIL; id = hs_q_next(&p->ctx, id)) {
		const struct car_key *k = car_key(p, id);

		if (k->list != l || k->ref > 1 || (!resident && k->ref))
			return -EUCLEAN;
	}
	return 0;
}

static int car_check(const struct hs_policy *p)
{
	uint64_t t1 = car_nr(p, CAR_T1), t2 = car_nr(p, CAR_T2);
	uint64_t b1 = car_nr(p, CAR_B1), b2 = car_nr(p, CAR_B2);
	uint64_t count[CAR_NR] = { 0 };
	uint32_t id;
	int i;

	for (i = CAR_T1; i < CAR_NR; i++)
		if (car_check_list(p, (enum car_list)i))
			return -EUCLEAN;
	for (id = 0; id < p->env->nr_keys; id++) {
		const struct car_key *k = car_key(p, id);

		if (k->list >= CAR_NR || (k->list == CAR_NONE && k->ref))
			return -EUCLEAN;
		count[k->list]++;
	}
	for (i = CAR_T1; i < CAR_NR; i++)
		if (count[i] != p->lists[i].nr)
			return -EUCLEAN;
	if (t1 + t2 > p->c || t1 + b1 > p->c || t1 + t2 + b1 + b2 > 2 * p->c)
		return -EUCLEAN;
	if (!(p->p >= 0.0 && p->p <= (double)p->c))
		return -EUCLEAN;
	return 0;
}

static void car_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;
	int i;

	fprintf(fp, "car: c=%" PRIu64 " p=%.6g\n", p->c, p->p);
	for (i = CAR_T1; i < CAR_NR; i++) {
		fprintf(fp, "  %s (%" PRIu64 ", head first):", car_list_name[i], p->lists[i].nr);
		for (id = p->lists[i].head; id != HS_NIL; id = hs_q_next(&p->ctx, id))
			fprintf(fp, " %" PRIu32 "%s", id, car_key(p, id)->ref ? "*" : "");
		fputc('\n', fp);
	}
}

static void car_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "car.p", p->p);
	hs_metrics_add(m, "car.t1", (double)car_nr(p, CAR_T1));
	hs_metrics_add(m, "car.t2", (double)car_nr(p, CAR_T2));
	hs_metrics_add(m, "car.b1", (double)car_nr(p, CAR_B1));
	hs_metrics_add(m, "car.b2", (double)car_nr(p, CAR_B2));
}

const struct hs_policy_ops hs_policy_car = {
	.abi		= HS_POLICY_ABI,
	.name		= "car",
	.summary	= "Clock with Adaptive Replacement (Bansal & Modha, FAST'04)",
	.params		= NULL,
	.folio_priv	= sizeof(struct car_key),
	.flags		= 0,
	.create		= car_create,
	.destroy	= car_destroy,
	.hit		= car_hit,
	.insert		= car_insert,
	.evict		= car_evict,
	.remove		= car_remove,
	.hint		= car_hint,
	.check		= car_check,
	.dump		= car_dump,
	.report		= car_report,
};
