/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: lrfu, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_lrfu = {
	.abi = HS_POLICY_ABI,
	.name = "lrfu",
	.summary = "(not implemented yet)",
};
