/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: fifo, not implemented yet. */
#include "config.h"
#include "policy.h"

const struct hs_policy_ops hs_policy_fifo = {
	.abi = HS_POLICY_ABI,
	.name = "fifo",
	.summary = "(not implemented yet)",
};
