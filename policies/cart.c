/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: cart, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_cart = {
	.abi = HS_POLICY_ABI,
	.name = "cart",
	.summary = "(not implemented yet)",
};
