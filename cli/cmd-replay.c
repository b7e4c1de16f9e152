/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: hsctl replay, to be written. */
#include "config.h"
#include "cmd.h"
#include "hs.h"

static int run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	hs_err("replay: not implemented yet");
	return HS_EXIT_FAILURE;
}

const struct hs_cmd hs_cmd_replay = {
	.name = "replay",
	.summary = "(not implemented yet)",
	.run = run,
};
