/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LRU: evict the resident key whose last access is oldest.  It is the
 * baseline every other policy is compared with and the speed reference of the
 * simulator, so it is kept to one index-linked list and 8 bytes per key.
 */

/*
 * Design
 * ======
 *
 * Least Recently Used is the textbook policy (see POLICIES.md §4.7 and any
 * operating-systems text; the LIRS and ARC papers use it as their baseline,
 * and their published LRU hit ratios are the simulator's first correctness
 * target, POLICIES.md §5).  The resident keys form one queue ordered by the
 * time of their last access:
 *
 *	    head (LRU)                                        tail (MRU)
 *	    +---+    +---+    +---+            +---+    +---+
 *	    | a |<-->| b |<-->| c |<-> ... <-->| y |<-->| z |
 *	    +---+    +---+    +---+            +---+    +---+
 *	      |                                           ^
 *	      v evict()                       insert(), hit() move here
 *
 * How it maps to the hooks (lib/policy.h):
 *
 *   insert()  the new key goes to the tail (most recently used).
 *   hit()     the key moves to the tail: O(1) unlink + link.
 *   evict()   victims come off the head, oldest first; exactly @need of them
 *             (fewer only when fewer are resident).  The incoming key plays
 *             no part in the choice.
 *   remove()  a drop or an agreed PAGEOUT hint unlinks a resident key; a drop
 *             of a key that is not resident is a no-op (LRU keeps no ghosts).
 *   hint()    COLD moves the key to the LRU end (the head): the "eviction
 *             end" of POLICIES.md section 2b is the head, so the next miss
 *             that needs room evicts it, unless it is touched first (a hit
 *             moves it to the tail as usual).  Several COLD keys stand in the
 *             reverse order of their hints, the latest at the head.  PAGEOUT
 *             answers "evict" and leaves the choice to the driver's pageout
 *             mode (lib/sim.h).
 *
 * The list is a struct hs_qlist threaded through the private area of the
 * driver's per-key records (lib/qlist.h): 32-bit key ids instead of pointers,
 * so the whole per-key cost of this policy is one struct hs_qlink.  A key is
 * on the list exactly when the driver marks it HS_FOLIO_RESIDENT; remove()
 * relies on that flag, which the driver clears only after the policy has
 * unlinked the key.  Every operation is O(1); check() walks the list and the
 * key array in O(n).
 *
 * Why a list and not lazy deletion.  Beyond L2 an eviction waits on the
 * list: the key after the head is known only when the head's link arrives,
 * one memory access per eviction (at 76,300 of 763 K zipf keys a quarter of
 * the run).  A ring of every push with per-key stamps (the head is the
 * oldest entry whose key's stamp is its position; a hit appends and
 * restamps) names the next victims far ahead and spares a hit its
 * neighbours, with the same victims in the same order.  It was built and
 * measured (issue 13, bench/README; branch h-lru-lazy) and does not pay:
 * a little faster where the walk waited (763 K keys 39.2 -> 35.9 ns per
 * access, 3.7 M 49.4 -> 48.1), much slower where the records fit in L2
 * (81 K: 28.4 -> 33.7), because every entry a hit leaves behind is read
 * again when the head passes it, a random load where the list's hit wrote
 * its neighbours with stores nothing waits for.  Marking the old entry dead
 * instead (a store into the ring) moved the cost to the ring's own traffic
 * (33.0, 37.9, 55.4).  A ring beside the list, to fetch the next victims only,
 * cost its hits more than it saved (763 K 32.7 -> 35.6, 3.7 M 39.8 -> 46.2;
 * branch h-lru-guide).
 *
 * The hooks above serve every path but the replay's: the driver does lru's
 * hit, insert and evict itself from their description (hs_sim_inline_hooks()),
 * in lib/sim.c's run_list16(), hits and the misses of a full memory alike,
 * with the run's counts in locals (about 100 instructions a miss instead of
 * 190; lru at 8,100 of 81 K zipf keys 27.6 -> 21.3 ns per access).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "policy-util.h"

struct lru_priv {
	struct hs_qlink	link;		/* place on hs_policy.lru; valid only while resident */
};

struct hs_policy {
	struct hs_qctx		q;	/* where the links live (the driver's key array) */
	struct hs_qlist		lru;	/* resident keys, head = least recently used */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static int lru_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		      struct hs_policy **out)
{
	struct hs_policy *p;

	(void)ps;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	hs_q_ctx_init(&p->q, env, offsetof(struct lru_priv, link));
	hs_q_init(&p->lru);
	/* hit, insert and evict are one list operation each: the driver's to do */
	hs_sim_inline_hooks(env->sim, &(struct hs_inline_hooks){
		.hit = HS_INLINE_HIT_MOVE_TAIL, .insert = HS_INLINE_INSERT_PUSH_TAIL,
		.evict = HS_INLINE_EVICT_POP_HEAD, .q = &p->q, .list = &p->lru });
	*out = p;
	return 0;
}

static void lru_destroy(struct hs_policy *p)
{
	free(p);
}

static void lru_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)f;
	hs_q_move_tail(&p->q, &p->lru, a->key);
}

static void lru_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)f;
	hs_q_push_tail(&p->q, &p->lru, a->key);
}

/* Several victims at once (a hint-free driver asks for one at a time): apart, so
 * that the one-victim path of lru_evict() saves no registers. */
static size_t __attribute__((noinline)) lru_evict_heads(struct hs_policy *p, size_t need,
							 struct hs_folio **victims, size_t max)
{
	return hs_q_evict_heads(&p->q, &p->lru, p->env, need, victims, max);
}

static size_t lru_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
			size_t need, struct hs_folio **victims, size_t max)
{
	(void)incoming;
	(void)a;
	/* one miss, one victim: the head, without hs_q_evict_heads()'s loop */
	if (likely(need == 1 && max >= 1 && p->lru.head != HS_NIL)) {
		victims[0] = hs_env_folio(p->env, hs_q_pop_head(&p->q, &p->lru));
		return 1;
	}
	return lru_evict_heads(p, need, victims, max);
}

static void lru_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	(void)why;
	if (hs_folio_is_resident(f))
		hs_q_del(&p->q, &p->lru, hs_folio_id(p->env, f));
}

static enum hs_hint_verdict lru_hint(struct hs_policy *p, struct hs_folio *f,
				     const struct hs_access *a)
{
	(void)f;
	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	if (p->lru.head != a->key) {
		hs_q_del(&p->q, &p->lru, a->key);
		hs_q_push_head(&p->q, &p->lru, a->key);
	}
	return HS_HINT_KEEP;
}

/*
 * A hit unlinks f: its list neighbours' links are written, and they are as
 * random as f.  The tail, where f goes, was written by the previous hit or
 * insert and is in the cache.  A miss evicts the head, which hs_q_pop_head()
 * fetched one eviction ahead.
 */
static void lru_prefetch(struct hs_policy *p, const struct hs_folio *f, uint32_t key)
{
	if (hs_folio_is_resident(f) && key != p->lru.tail)
		hs_q_prefetch_neighbours(&p->q, key);
}

static int lru_check(const struct hs_policy *p)
{
	if (hs_q_check(&p->q, &p->lru, p->env, true))
		return -EUCLEAN;
	return hs_env_count_resident(p->env) == p->lru.nr ? 0 : -EUCLEAN;
}

static void lru_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "lru: %" PRIu64 " resident, LRU to MRU:", p->lru.nr);
	for (id = p->lru.head; id != HS_NIL; id = hs_q_next(&p->q, id))
		fprintf(fp, " %" PRIu32, id);
	fputc('\n', fp);
}

const struct hs_policy_ops hs_policy_lru = {
	.abi		= HS_POLICY_ABI,
	.name		= "lru",
	.summary	= "least recently used",
	.params		= NULL,
	.folio_priv	= sizeof(struct lru_priv),
	.flags		= 0,
	.create		= lru_create,
	.destroy	= lru_destroy,
	.hit		= lru_hit,
	.insert		= lru_insert,
	.evict		= lru_evict,
	.remove		= lru_remove,
	.hint		= lru_hint,
	.check		= lru_check,
	.dump		= lru_dump,
	.prefetch	= lru_prefetch,
};
