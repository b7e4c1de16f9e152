/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: arc, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_arc = {
	.abi = HS_POLICY_ABI,
	.name = "arc",
	.summary = "(not implemented yet)",
};
