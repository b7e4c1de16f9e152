/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: opt, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_opt = {
	.abi = HS_POLICY_ABI,
	.name = "opt",
	.summary = "(not implemented yet)",
};
