/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIFO: evict the key that entered the cache first, whatever happened to it
 * since.  A baseline (and the policy Bélády's anomaly was found with): it
 * shows what recency information is worth to the other policies.
 */

/*
 * Design
 * ======
 *
 * First In, First Out keeps the resident keys in the order they were brought
 * in; hits change nothing.  It is the oldest replacement policy in the
 * literature (Bélády, "A study of replacement algorithms for a virtual-storage
 * computer", IBM Systems Journal 5(2), 1966, where it is the "FIFO" of the
 * anomaly: on 1 2 3 4 1 2 5 1 2 3 4 5 it misses 9 times with 3 frames and 10
 * times with 4; testdata/golden/fifo-belady-*.golden pin both).
 *
 *	    head (oldest insertion)                     tail (newest)
 *	    +---+    +---+    +---+            +---+
 *	    | a |<-->| b |<-->| c |<-> ... <-->| z |
 *	    +---+    +---+    +---+            +---+
 *	      |                                  ^
 *	      v evict()                      insert()
 *
 * How it maps to the hooks (lib/policy.h):
 *
 *   insert()  the new key goes to the tail.
 *   hit()     nothing at all: the order is insertion order.
 *   evict()   victims come off the head, oldest insertion first; exactly
 *             @need of them (fewer only when fewer are resident).
 *   remove()  a drop or an agreed PAGEOUT hint unlinks a resident key; a drop
 *             of a non-resident key is a no-op (FIFO keeps no ghosts).
 *   hint()    COLD moves the key to the head, the place of the oldest
 *             insertion: FIFO's "eviction end" (POLICIES.md section 2b), so
 *             the next miss that needs room evicts it; hits change nothing,
 *             so it goes first even if touched meanwhile.  The latest COLD
 *             key is at the head.  PAGEOUT answers "evict" and leaves the
 *             choice to the driver's pageout mode (lib/sim.h).
 *
 * One struct hs_qlink per key in the driver's private area (lib/qlist.h); a
 * key is on the queue exactly while the driver marks it resident, and the
 * driver clears that flag only after remove() or evict() has unlinked it.
 * Every operation is O(1).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "policy-util.h"

struct fifo_priv {
	struct hs_qlink	link;		/* place on hs_policy.queue; valid only while resident */
};

struct hs_policy {
	struct hs_qctx		q;	/* where the links live (the driver's key array) */
	struct hs_qlist		queue;	/* resident keys, head = inserted longest ago */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static int fifo_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		       struct hs_policy **out)
{
	struct hs_policy *p;

	(void)ps;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	hs_q_ctx_init(&p->q, env, offsetof(struct fifo_priv, link));
	hs_q_init(&p->queue);
	/* a hit is nothing, insert and evict one list operation: the driver's to do */
	hs_sim_inline_hooks(env->sim, &(struct hs_inline_hooks){
		.hit = HS_INLINE_HIT_NOP, .insert = HS_INLINE_INSERT_PUSH_TAIL,
		.evict = HS_INLINE_EVICT_POP_HEAD, .q = &p->q, .list = &p->queue });
	*out = p;
	return 0;
}

static void fifo_destroy(struct hs_policy *p)
{
	free(p);
}

static void fifo_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)p;
	(void)f;
	(void)a;
}

static void fifo_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)f;
	hs_q_push_tail(&p->q, &p->queue, a->key);
}

static size_t fifo_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			 size_t need, struct hs_folio **victims, size_t max)
{
	(void)incoming;
	(void)a;
	return hs_q_evict_heads(&p->q, &p->queue, p->env, need, victims, max);
}

static void fifo_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	(void)why;
	if (hs_folio_is_resident(f))
		hs_q_del(&p->q, &p->queue, hs_folio_id(p->env, f));
}

static enum hs_hint_verdict fifo_hint(struct hs_policy *p, struct hs_folio *f,
				      const struct hs_access *a)
{
	(void)f;
	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	if (p->queue.head != a->key) {
		hs_q_del(&p->q, &p->queue, a->key);
		hs_q_push_head(&p->q, &p->queue, a->key);
	}
	return HS_HINT_KEEP;
}

static int fifo_check(const struct hs_policy *p)
{
	if (hs_q_check(&p->q, &p->queue, p->env, true))
		return -EUCLEAN;
	return hs_env_count_resident(p->env) == p->queue.nr ? 0 : -EUCLEAN;
}

static void fifo_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "fifo: %" PRIu64 " resident, oldest to newest:", p->queue.nr);
	for (id = p->queue.head; id != HS_NIL; id = hs_q_next(&p->q, id))
		fprintf(fp, " %" PRIu32, id);
	fputc('\n', fp);
}

const struct hs_policy_ops hs_policy_fifo = {
	.abi		= HS_POLICY_ABI,
	.name		= "fifo",
	.summary	= "first in, first out: hits change nothing",
	.params		= NULL,
	.folio_priv	= sizeof(struct fifo_priv),
	.flags		= 0,
	.create		= fifo_create,
	.destroy	= fifo_destroy,
	.hit		= fifo_hit,
	.insert		= fifo_insert,
	.evict		= fifo_evict,
	.remove		= fifo_remove,
	.hint		= fifo_hint,
	.check		= fifo_check,
	.dump		= fifo_dump,
};
