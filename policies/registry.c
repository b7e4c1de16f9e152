/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy registry.  Every list shown to users (`hsctl policy list`,
 * --policy all, error messages) iterates this table, in the order of
 * POLICY_MODULES in Makefile.am, the one list of policies: the build turns it
 * into policies/registry-gen.h, one HS_POLICY(name) line per module, which is
 * read twice here, once to declare each hs_policy_<name> and once to fill the
 * table.  Referencing every ops struct also keeps it in a static link, and a
 * listed module that does not define its symbol fails the link.
 */
#include "config.h"

#include <string.h>

#include "hs.h"
#include "policy.h"

#define HS_POLICY(name)	extern const struct hs_policy_ops hs_policy_##name;
#include "policies/registry-gen.h"
#undef HS_POLICY

static const struct hs_policy_ops *const policies[] = {
#define HS_POLICY(name)	&hs_policy_##name,
#include "policies/registry-gen.h"
#undef HS_POLICY
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
