/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of the decoded event types (lib/event.h): short, stable, lower-case
 * words that messages, tests and stored sessions use for enum hs_event_type.
 * The table is indexed by the enum, so a type added to the enum without a
 * name here fails the build.
 */
#include "config.h"

#include "event.h"
#include "hs.h"

static const char *const type_names[] = {
	[HS_EV_NONE]			= "none",
	[HS_EV_FILEMAP_ADD]		= "filemap_add",
	[HS_EV_FILEMAP_DELETE]		= "filemap_delete",
	[HS_EV_FILEMAP_GET_PAGES]	= "filemap_get_pages",
	[HS_EV_FILEMAP_FAULT]		= "filemap_fault",
	[HS_EV_FILEMAP_MAP_PAGES]	= "filemap_map_pages",
	[HS_EV_READAHEAD]		= "readahead",
	[HS_EV_LRU_INSERTION]		= "lru_insertion",
	[HS_EV_LRU_ACTIVATE]		= "lru_activate",
	[HS_EV_DIRECT_RECLAIM_BEGIN]	= "direct_reclaim_begin",
	[HS_EV_DIRECT_RECLAIM_END]	= "direct_reclaim_end",
	[HS_EV_MEMCG_RECLAIM_BEGIN]	= "memcg_reclaim_begin",
	[HS_EV_MEMCG_RECLAIM_END]	= "memcg_reclaim_end",
	[HS_EV_SOFTLIMIT_RECLAIM_BEGIN]	= "softlimit_reclaim_begin",
	[HS_EV_SOFTLIMIT_RECLAIM_END]	= "softlimit_reclaim_end",
	[HS_EV_NODE_RECLAIM_BEGIN]	= "node_reclaim_begin",
	[HS_EV_NODE_RECLAIM_END]	= "node_reclaim_end",
	[HS_EV_KSWAPD_WAKE]		= "kswapd_wake",
	[HS_EV_KSWAPD_SLEEP]		= "kswapd_sleep",
	[HS_EV_LRU_ISOLATE]		= "lru_isolate",
	[HS_EV_SHRINK_INACTIVE]		= "shrink_inactive",
	[HS_EV_SHRINK_ACTIVE]		= "shrink_active",
	[HS_EV_RECLAIM_PAGES]		= "reclaim_pages",
	[HS_EV_WRITE_FOLIO]		= "write_folio",
	[HS_EV_SHRINK_SLAB_START]	= "shrink_slab_start",
	[HS_EV_SHRINK_SLAB_END]		= "shrink_slab_end",
	[HS_EV_PAGE_FAULT_USER]		= "page_fault_user",
	[HS_EV_MADVISE]			= "madvise",
	[HS_EV_PROCESS_FORK]		= "process_fork",
	[HS_EV_PROCESS_EXIT]		= "process_exit",
	[HS_EV_PROCESS_EXEC]		= "process_exec",
	[HS_EV_LOST]			= "lost",
	[HS_EV_TOUCH]			= "touch",
	[HS_EV_TASK_NEW]		= "task_new",
	[HS_EV_TLB_FLUSH]		= "tlb_flush",
	[HS_EV_SCHED_SWITCH]		= "sched_switch",
	[HS_EV_MIGRATE_TASK]		= "migrate_task",
	[HS_EV_MEMCG_FLUSH]		= "memcg_flush",
	[HS_EV_DAMON_AGGREGATED]	= "damon_aggregated",
	[HS_EV_DAMOS_APPLY]		= "damos_apply",
};

_Static_assert(ARRAY_SIZE(type_names) == HS_EV_NR, "a name for every enum hs_event_type");

/**
 * hs_event_type_name() - the name of an event type
 * @t: the type
 *
 * Return: "filemap_add", "lru_insertion", ... ("none" for HS_EV_NONE), or "?"
 * for a value outside the enum.
 */
const char *hs_event_type_name(enum hs_event_type t)
{
	if ((unsigned int)t >= ARRAY_SIZE(type_names) || !type_names[t])
		return "?";
	return type_names[t];
}
