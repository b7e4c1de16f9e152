/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of the access vocabulary (access.h).
 */
#include "config.h"

#include "access.h"

/**
 * hs_channel_name() - the CLI/SQL name of a channel
 * @ch: the channel
 *
 * Return: "fd", "pt", "pageout", "cold", "drop", "readahead", or "?" for a bad
 * value.
 */
const char *hs_channel_name(enum hs_channel ch)
{
	static const char *const names[HS_CH_NR] = {
		[HS_CH_FD] = "fd", [HS_CH_PT] = "pt", [HS_CH_PAGEOUT] = "pageout",
		[HS_CH_COLD] = "cold", [HS_CH_DROP] = "drop",
		[HS_CH_READAHEAD] = "readahead",
	};

	return (unsigned int)ch < HS_CH_NR ? names[ch] : "?";
}
