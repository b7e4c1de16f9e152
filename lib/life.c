/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of the life vocabulary (lib/life.h), as the store writes them into its
 * name tables and the commands print them.
 */
#include "config.h"

#include "life.h"

/**
 * hs_death_cause_name() - "alive", "reclaim", "pageout", "truncate", "unknown"
 * @cause: enum hs_death_cause
 *
 * Return: the name, or "?" for a bad value.
 */
const char *hs_death_cause_name(enum hs_death_cause cause)
{
	static const char *const names[HS_DEATH_NR] = {
		[HS_DEATH_NONE] = "alive", [HS_DEATH_RECLAIM] = "reclaim",
		[HS_DEATH_PAGEOUT] = "pageout", [HS_DEATH_TRUNCATE] = "truncate",
		[HS_DEATH_UNKNOWN] = "unknown",
	};

	return (unsigned int)cause < HS_DEATH_NR ? names[cause] : "?";
}

/**
 * hs_life_kind_name() - "file", "anon", "bdev"
 * @kind: enum hs_life_kind
 *
 * Return: the name, or "?" for a bad value.
 */
const char *hs_life_kind_name(enum hs_life_kind kind)
{
	static const char *const names[HS_LIFE_KIND_NR] = {
		[HS_LIFE_FILE] = "file", [HS_LIFE_ANON] = "anon", [HS_LIFE_BDEV] = "bdev",
	};

	return (unsigned int)kind < HS_LIFE_KIND_NR ? names[kind] : "?";
}
