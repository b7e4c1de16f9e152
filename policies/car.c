/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: car, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_car = {
	.abi = HS_POLICY_ABI,
	.name = "car",
	.summary = "(not implemented yet)",
};
