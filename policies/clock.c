/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CLOCK: the second-chance approximation of LRU, with one reference bit per
 * resident key and a hand that sweeps the frames.  A new key starts with its
 * bit clear, the convention that reproduces the CAR paper's CLOCK numbers.
 */

/*
 * Design
 * ======
 *
 * CLOCK (Corbató, "A paging experiment with the Multics system", 1968; the
 * baseline of the CAR paper, Bansal & Modha, FAST 2004) keeps the resident
 * keys on a circle with one reference bit each.  A hit sets the bit.  To make
 * room the hand looks at the key under it: a set bit is cleared and the hand
 * moves on (the key got a second chance); a clear bit makes that key the
 * victim.  The hand stops after at most one full turn plus one step, because
 * it clears every bit it passes.
 *
 * Insertion bit (POLICIES.md §4.7 and §7 item 4): a new key gets reference
 * bit 0.  Textbooks differ (some set it to 1 on the fault); POLICIES.md
 * records that the CAR paper's Table III CLOCK numbers for three of the four
 * available P traces are reproduced with 0, so hsctl fixes 0.  With bit 0 a
 * key that is never hit again is evicted the first time the hand reaches it.
 *
 * The circle is a FIFO queue: its head is the key under the hand, its tail the
 * position just behind the hand, where new keys enter.  Advancing the hand
 * past a key is "pop the head, push it at the tail":
 *
 *	                  hand
 *	                   |
 *	                   v
 *	    head  +------+------+------+------+------+  tail
 *	          | a:1  | b:0  | c:1  | d:0  | e:0  |  <- insert() (bit 0)
 *	          +------+------+------+------+------+
 *	             |
 *	             +--- bit 1: clear it, report a second chance, move a to
 *	                  the tail; b (bit 0) is then the victim.
 *
 * How it maps to the hooks (lib/policy.h):
 *
 *   insert()  push the key at the tail with its bit clear.
 *   hit()     set the bit; the key does not move.
 *   evict()   sweep from the head: each set bit is cleared, the key rotated
 *             to the tail and the spared key reported with
 *             hs_sim_protect(HS_PROT_SECOND_CHANCE); the first clear bit is
 *             a victim.  Exactly @need victims (fewer only when fewer are
 *             resident).  The incoming key plays no part.
 *   remove()  unlink a resident key (drop or agreed PAGEOUT); a drop of a
 *             non-resident key is a no-op: CLOCK keeps no ghosts.
 *   hint()    COLD puts the key under the hand (the head) with its bit
 *             clear: CLOCK's "eviction end" (POLICIES.md section 2b), the
 *             very next victim unless a hit sets the bit first.  The latest
 *             COLD key is under the hand.  PAGEOUT answers "evict" and leaves
 *             the choice to the driver's pageout mode (lib/sim.h).
 *
 * Cost: hit and insert are O(1); an eviction is O(1) amortised, since every
 * rotation consumes a bit that only a hit (O(1)) could have set.  Per key: one
 * struct hs_qlink and the bit.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "policy-util.h"

struct clock_priv {
	struct hs_qlink	link;		/* place on hs_policy.ring; valid only while resident */
	uint32_t	ref;		/* reference bit: 1 after a hit, 0 when inserted or
					 * when the hand last passed */
};

struct hs_policy {
	struct hs_qctx		q;	/* where the links live (the driver's key array) */
	struct hs_qlist		ring;	/* resident keys; head = under the hand */
	uint64_t		scanned; /* keys the hand looked at (rotations + victims) */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static struct clock_priv *clock_priv(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static int clock_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
			struct hs_policy **out)
{
	struct hs_policy *p;

	(void)ps;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	hs_q_ctx_init(&p->q, env, offsetof(struct clock_priv, link));
	hs_q_init(&p->ring);
	*out = p;
	return 0;
}

static void clock_destroy(struct hs_policy *p)
{
	free(p);
}

static void clock_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)p;
	(void)a;
	clock_priv(f)->ref = 1;
}

static void clock_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)a;
	clock_priv(f)->ref = 0;
	hs_q_push_tail(&p->q, &p->ring, a->key);
}

static size_t clock_evict(struct hs_policy *p, struct hs_folio *incoming,
			  const struct hs_access *a, size_t need, struct hs_folio **victims,
			  size_t max)
{
	struct clock_priv *cp;
	struct hs_folio *f;
	size_t n = 0;
	uint32_t id;

	(void)incoming;
	(void)a;
	while (n < need && n < max && !hs_q_empty(&p->ring)) {
		id = p->ring.head;
		f = hs_env_folio(p->env, id);
		cp = clock_priv(f);
		p->scanned++;
		if (cp->ref) {
			cp->ref = 0;
			hs_q_move_tail(&p->q, &p->ring, id);
			hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
			continue;
		}
		hs_q_del(&p->q, &p->ring, id);
		victims[n++] = f;
	}
	return n;
}

static void clock_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	(void)why;
	if (hs_folio_is_resident(f))
		hs_q_del(&p->q, &p->ring, hs_folio_id(p->env, f));
}

static enum hs_hint_verdict clock_hint(struct hs_policy *p, struct hs_folio *f,
				       const struct hs_access *a)
{
	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	clock_priv(f)->ref = 0;
	if (p->ring.head != a->key) {
		hs_q_del(&p->q, &p->ring, a->key);
		hs_q_push_head(&p->q, &p->ring, a->key);
	}
	return HS_HINT_KEEP;
}

static int clock_check(const struct hs_policy *p)
{
	uint32_t id;

	if (hs_q_check(&p->q, &p->ring, p->env, true))
		return -EUCLEAN;
	for (id = p->ring.head; id != HS_NIL; id = hs_q_next(&p->q, id))
		if (clock_priv(hs_env_folio(p->env, id))->ref > 1)
			return -EUCLEAN;
	return hs_env_count_resident(p->env) == p->ring.nr ? 0 : -EUCLEAN;
}

static void clock_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "clock: %" PRIu64 " resident, from the hand (id:bit):", p->ring.nr);
	for (id = p->ring.head; id != HS_NIL; id = hs_q_next(&p->q, id))
		fprintf(fp, " %" PRIu32 ":%" PRIu32, id,
			clock_priv(hs_env_folio(p->env, id))->ref);
	fputc('\n', fp);
}

static void clock_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "clock.scanned", (double)p->scanned);
}

const struct hs_policy_ops hs_policy_clock = {
	.abi		= HS_POLICY_ABI,
	.name		= "clock",
	.summary	= "second chance: new keys start with the reference bit clear",
	.params		= NULL,
	.folio_priv	= sizeof(struct clock_priv),
	.flags		= 0,
	.create		= clock_create,
	.destroy	= clock_destroy,
	.hit		= clock_hit,
	.insert		= clock_insert,
	.evict		= clock_evict,
	.remove		= clock_remove,
	.hint		= clock_hint,
	.check		= clock_check,
	.dump		= clock_dump,
	.report		= clock_report,
};
