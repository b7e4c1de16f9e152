/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: two-q, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_two_q = {
	.abi = HS_POLICY_ABI,
	.name = "two-q",
	.summary = "(not implemented yet)",
};
