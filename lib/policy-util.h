/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for policies whose resident keys sit on lib/qlist.h lists: point a
 * list context at the driver's key array, take victims off the head of a
 * list, and the structural checks every such policy's ->check() starts with
 * (walk a list, count the keys the driver marks resident).
 */
#ifndef HS_POLICY_UTIL_H
#define HS_POLICY_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qlist.h"
#include "sim.h"

/* Links at @off within the policy's private area of every key record. */
static inline void hs_q_ctx_init(struct hs_qctx *c, const struct hs_policy_env *env, size_t off)
{
	c->base = env->folios;
	c->stride = env->stride;
	c->off = env->priv_off + off;
}

/*
 * Pop keys off the head of @l into victims[] until @need are taken, @max is
 * reached or @l is empty; return how many.  The ->evict() of a policy that
 * evicts in list order (LRU, FIFO).
 */
static inline size_t hs_q_evict_heads(const struct hs_qctx *c, struct hs_qlist *l,
				      const struct hs_policy_env *env, size_t need,
				      struct hs_folio **victims, size_t max)
{
	size_t n = 0;
	uint32_t id;

	while (n < need && n < max) {
		id = hs_q_pop_head(c, l);
		if (id == HS_NIL)
			break;
		victims[n++] = hs_env_folio(env, id);
	}
	return n;
}

int hs_q_check(const struct hs_qctx *c, const struct hs_qlist *l,
	       const struct hs_policy_env *env, bool resident);
uint64_t hs_env_count_resident(const struct hs_policy_env *env);

#endif /* HS_POLICY_UTIL_H */
