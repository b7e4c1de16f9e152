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
 * struct hs_qlink in the record (16 bytes with the driver's) and the bit, in a
 * bitmap by key id beside it.
 *
 * Memory: the replay is bound by cache misses on the key records, random
 * keys among hundreds of thousands.  With the bit in the record, a record was
 * 24 bytes and one in four straddled two cache lines, the link in one and the
 * bit in the other; in a bitmap (96 KB at 763 K keys, 460 KB at 3.7 M: it
 * stays in the cache) every record is one line and the hand reads no line for
 * the bit.  The hand itself walks the ring: each key it passes makes the next
 * one the head, whose record the hand reads next, so it fetches the record
 * after that one as it moves (clock_advance()), as hs_q_pop_head() does.
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
};

struct hs_policy {
	struct hs_qctx		q;	/* where the links live (the driver's key array) */
	struct hs_qlist		ring;	/* resident keys; head = under the hand */
	uint64_t		*ref;	/* reference bits by key id: 1 after a hit, 0 when
					 * inserted or when the hand last passed */
	uint64_t		scanned; /* keys the hand looked at (rotations + victims) */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static inline bool ref_test(const struct hs_policy *p, uint32_t id)
{
	return (p->ref[id / 64] >> (id % 64)) & 1;
}

static inline void ref_set(struct hs_policy *p, uint32_t id)
{
	p->ref[id / 64] |= (uint64_t)1 << (id % 64);
}

static inline void ref_clear(struct hs_policy *p, uint32_t id)
{
	p->ref[id / 64] &= ~((uint64_t)1 << (id % 64));
}

static int clock_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
			struct hs_policy **out)
{
	struct hs_policy *p;

	(void)ps;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ref = calloc(((size_t)env->nr_keys + 63) / 64 + 1, sizeof(*p->ref));
	if (!p->ref) {
		free(p);
		return -ENOMEM;
	}
	p->env = env;
	hs_q_ctx_init(&p->q, env, offsetof(struct clock_priv, link));
	hs_q_init(&p->ring);
	/* hit, insert and the hand are bit and list operations: the driver's to do */
	hs_sim_inline_hooks(env->sim, &(struct hs_inline_hooks){
		.hit = HS_INLINE_HIT_SET_BIT, .insert = HS_INLINE_INSERT_PUSH_TAIL,
		.evict = HS_INLINE_EVICT_SECOND_CHANCE, .q = &p->q, .list = &p->ring,
		.bits = p->ref, .scanned = &p->scanned });
	*out = p;
	return 0;
}

static void clock_destroy(struct hs_policy *p)
{
	free(p->ref);
	free(p);
}

static void clock_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)f;
	ref_set(p, a->key);
}

static void clock_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)f;
	ref_clear(p, a->key);
	hs_q_push_tail(&p->q, &p->ring, a->key);
}

/*
 * The hand has passed the head (unlinked, or moved to the tail): the new
 * head's record came into the cache with the unlink, which wrote its link;
 * fetch its successor's, the record the hand reads after it.
 */
static inline void clock_advance(const struct hs_policy *p)
{
	uint32_t after;

	if (p->ring.head == HS_NIL)
		return;
	after = hs_q_next(&p->q, p->ring.head);
	if (after != HS_NIL)
		hs_prefetch(hs_q_link(&p->q, after));
}

/*
 * The driver's in-line loop runs this hand itself for a miss that needs one
 * victim (HS_INLINE_EVICT_SECOND_CHANCE, lib/sim.c second_chance()): the
 * two must stay the same walk.
 */
static size_t clock_evict(struct hs_policy *p, struct hs_folio *incoming,
			  const struct hs_access *a, size_t need, struct hs_folio **victims,
			  size_t max)
{
	struct hs_folio *f;
	size_t n = 0;
	uint32_t id;

	(void)incoming;
	(void)a;
	while (n < need && n < max && !hs_q_empty(&p->ring)) {
		id = p->ring.head;
		f = hs_env_folio(p->env, id);
		p->scanned++;
		if (ref_test(p, id)) {
			ref_clear(p, id);
			hs_q_move_tail(&p->q, &p->ring, id);
			clock_advance(p);
			hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
			continue;
		}
		hs_q_del(&p->q, &p->ring, id);
		clock_advance(p);
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
	(void)f;
	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	ref_clear(p, a->key);
	if (p->ring.head != a->key) {
		hs_q_del(&p->q, &p->ring, a->key);
		hs_q_push_head(&p->q, &p->ring, a->key);
	}
	return HS_HINT_KEEP;
}

static int clock_check(const struct hs_policy *p)
{
	if (hs_q_check(&p->q, &p->ring, p->env, true))
		return -EUCLEAN;
	return hs_env_count_resident(p->env) == p->ring.nr ? 0 : -EUCLEAN;
}

static void clock_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "clock: %" PRIu64 " resident, from the hand (id:bit):", p->ring.nr);
	for (id = p->ring.head; id != HS_NIL; id = hs_q_next(&p->q, id))
		fprintf(fp, " %" PRIu32 ":%d", id, ref_test(p, id));
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
