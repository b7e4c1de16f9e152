/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: lirs, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_lirs = {
	.abi = HS_POLICY_ABI,
	.name = "lirs",
	.summary = "(not implemented yet)",
};
