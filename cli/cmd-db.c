/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: hsctl db, to be written. */
#include "config.h"
#include "cmd.h"
#include "hs.h"

static int run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	hs_err("db: not implemented yet");
	return HS_EXIT_FAILURE;
}

const struct hs_cmd hs_cmd_db = {
	.name = "db",
	.summary = "(not implemented yet)",
	.run = run,
};
