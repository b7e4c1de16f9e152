/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy registry: one line per policy, sorted by name.  Every list shown
 * to users (`hsctl policy list`, --policy all, error messages) iterates this
 * table; the table also keeps every ops struct alive in a static link.
 */
#include "config.h"

#include <string.h>

#include "hs.h"
#include "policy.h"

extern const struct hs_policy_ops hs_policy_arc, hs_policy_car, hs_policy_cart,
	hs_policy_clock, hs_policy_fifo, hs_policy_lirs, hs_policy_lrfu, hs_policy_lru,
	hs_policy_opt, hs_policy_two_q;
extern const struct hs_policy_ops hs_policy_clock_pro;
extern const struct hs_policy_ops hs_policy_hitshield, hs_policy_mglru;
extern const struct hs_policy_ops hs_policy_linux_2q;

static const struct hs_policy_ops *const policies[] = {
	&hs_policy_arc,
	&hs_policy_car,
	&hs_policy_cart,
	&hs_policy_clock,
	&hs_policy_clock_pro,
	&hs_policy_fifo,
	&hs_policy_hitshield,
	&hs_policy_linux_2q,
	&hs_policy_lirs,
	&hs_policy_lrfu,
	&hs_policy_lru,
	&hs_policy_mglru,
	&hs_policy_opt,
	&hs_policy_two_q,
};

/**
 * hs_policy_find() - look a policy up by its CLI name
 * @name: "lru", "two-q", ...
 *
 * Return: the ops table, or NULL when no policy has that name.
 */
const struct hs_policy_ops *hs_policy_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(policies); i++)
		if (!strcmp(policies[i]->name, name))
			return policies[i];
	return NULL;
}

/**
 * hs_policy_count() - number of registered policies
 *
 * Return: the count.
 */
size_t hs_policy_count(void)
{
	return ARRAY_SIZE(policies);
}

/**
 * hs_policy_at() - the i-th registered policy, in name order
 * @i: index below hs_policy_count()
 *
 * Return: the ops table, or NULL past the end.
 */
const struct hs_policy_ops *hs_policy_at(size_t i)
{
	return i < ARRAY_SIZE(policies) ? policies[i] : NULL;
}
