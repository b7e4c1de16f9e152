/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: lru, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_lru = {
	.abi = HS_POLICY_ABI,
	.name = "lru",
	.summary = "(not implemented yet)",
};
