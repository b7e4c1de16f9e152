/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The structural checks shared by the list-based policies' ->check(): walk
 * one index-linked list and verify its links against its counters, and count
 * the keys the driver marks resident.  Run by tests after every hook and by
 * --paranoid, so they favour plain loops over speed.
 */
#include "config.h"

#include <errno.h>

#include "policy-util.h"

/**
 * hs_q_check() - verify one list from its head
 * @c: where the links live
 * @l: the list
 * @env: the run (key count, residency flags)
 * @resident: whether every key on @l must be resident (true) or not (ghosts)
 *
 * Every id on the walk is below env->nr_keys, links back to its predecessor,
 * has the residency @resident asks for; the walk visits exactly l->nr keys and
 * ends at l->tail.  It stops after l->nr keys, so a cycle cannot hang it.
 *
 * Return: 0, or -EUCLEAN.
 */
int hs_q_check(const struct hs_qctx *c, const struct hs_qlist *l,
	       const struct hs_policy_env *env, bool resident)
{
	uint32_t prev = HS_NIL;
	uint64_t n = 0;
	uint32_t id;

	for (id = l->head; id != HS_NIL; id = hs_q_next(c, id)) {
		if (id >= env->nr_keys || n >= l->nr)
			return -EUCLEAN;
		if (hs_folio_is_resident(hs_env_folio(env, id)) != resident)
			return -EUCLEAN;
		if (hs_q_prev(c, id) != prev)
			return -EUCLEAN;
		prev = id;
		n++;
	}
	return n == l->nr && l->tail == prev ? 0 : -EUCLEAN;
}

/**
 * hs_env_count_resident() - keys the driver marks HS_FOLIO_RESIDENT
 * @env: the run
 *
 * Walks every key record: O(nr_keys).
 *
 * Return: the number of resident keys.
 */
uint64_t hs_env_count_resident(const struct hs_policy_env *env)
{
	uint64_t resident = 0;
	uint32_t i;

	for (i = 0; i < env->nr_keys; i++)
		if (hs_folio_is_resident(hs_env_folio(env, i)))
			resident++;
	return resident;
}
