/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: clock, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_clock = {
	.abi = HS_POLICY_ABI,
	.name = "clock",
	.summary = "(not implemented yet)",
};
