/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoded event vocabulary: what lib/decode.c makes of raw tracefs
 * records, whatever the kernel version, and what the lifecycle builder and
 * every other analyzer consume.  Kernel churn (field renames such as page ->
 * folio, event ids, layouts) stops at the decoder; nothing past it sees a
 * tep_record.
 *
 * One struct for every type keeps the stream a flat array; the fields each
 * type fills are listed beside the enum.  Unused fields are 0.
 */
#ifndef HS_EVENT_H
#define HS_EVENT_H

#include <stdint.h>

enum hs_event_type {
	HS_EV_NONE = 0,

	/* filemap: page cache (dev, ino, index, pfn, order) */
	HS_EV_FILEMAP_ADD,		/* mm_filemap_add_to_page_cache: dev ino index pfn order */
	HS_EV_FILEMAP_DELETE,		/* mm_filemap_delete_from_page_cache: same fields */
	HS_EV_FILEMAP_GET_PAGES,	/* mm_filemap_get_pages: dev ino index..last (read path) */
	HS_EV_FILEMAP_FAULT,		/* mm_filemap_fault: dev ino index */
	HS_EV_FILEMAP_MAP_PAGES,	/* mm_filemap_map_pages: dev ino index..last (fault-around) */
	HS_EV_READAHEAD,		/* page_cache_{sync,async}_ra: dev ino index, a = pages
					 * asked for, flags HS_EVF_ASYNC */

	/* pagemap: keyed by head pfn */
	HS_EV_LRU_INSERTION,		/* mm_lru_insertion: pfn, a = lru, b = kernel flags
					 * (1 mapped, 2 anon, 4 file, 8 swapcache, 0x10
					 * swapbacked, ...) */
	HS_EV_LRU_ACTIVATE,		/* mm_lru_activate: pfn */

	/* vmscan: reclaim windows (per pid; kswapd between wake and sleep) */
	HS_EV_DIRECT_RECLAIM_BEGIN,	/* a = order, b = gfp flags */
	HS_EV_DIRECT_RECLAIM_END,	/* a = nr_reclaimed */
	HS_EV_MEMCG_RECLAIM_BEGIN,	/* a = order, b = gfp flags */
	HS_EV_MEMCG_RECLAIM_END,	/* a = nr_reclaimed */
	HS_EV_SOFTLIMIT_RECLAIM_BEGIN,	/* memcg soft limit reclaim */
	HS_EV_SOFTLIMIT_RECLAIM_END,	/* a = nr_reclaimed */
	HS_EV_NODE_RECLAIM_BEGIN,	/* node reclaim (zone_reclaim_mode) */
	HS_EV_NODE_RECLAIM_END,		/* a = nr_reclaimed */
	HS_EV_KSWAPD_WAKE,		/* a = node id, b = order */
	HS_EV_KSWAPD_SLEEP,		/* a = node id */
	HS_EV_LRU_ISOLATE,		/* a = nr_taken, b = nr_scanned, c = lru */
	HS_EV_SHRINK_INACTIVE,		/* a = nr_reclaimed, b = nr_scanned, c = file (0/1) */
	HS_EV_SHRINK_ACTIVE,		/* a = nr_deactivated, b = nr_taken, c = file */
	HS_EV_RECLAIM_PAGES,		/* mm_vmscan_reclaim_pages (MADV_PAGEOUT, DAMON):
					 * a = nr_reclaimed, b = nr_scanned */
	HS_EV_WRITE_FOLIO,		/* mm_vmscan_write_folio: pfn, flags HS_EVF_ANON
					 * (swap-out) or file pageout */
	HS_EV_SHRINK_SLAB_START,	/* inode-cache shrinking brackets */
	HS_EV_SHRINK_SLAB_END,

	/* faults and system calls */
	HS_EV_PAGE_FAULT_USER,		/* exceptions:page_fault_user: addr, a = error_code */
	HS_EV_MADVISE,			/* syscalls:sys_enter_madvise: addr = start, a = len,
					 * b = behavior (MADV_*) */

	/* processes: to follow the workload through forks, map tids to tgids */
	HS_EV_PROCESS_FORK,		/* sched_process_fork: pid = parent, a = child pid
					 * (threads too: see HS_EV_TASK_NEW to tell them) */
	HS_EV_PROCESS_EXIT,		/* sched_process_exit: pid */
	HS_EV_PROCESS_EXEC,		/* sched_process_exec: pid */

	/* made by hsctl, not by the kernel */
	HS_EV_LOST,			/* a gap: a = events lost on cpu (UINT64_MAX: unknown
					 * count); distrust state across it */
	HS_EV_TOUCH,			/* a built-in workload's own page touch: tgid in pid,
					 * addr (anon) or dev ino index (file), flags
					 * HS_EVF_WRITE / HS_EVF_ANON / HS_EVF_FD /
					 * HS_EVF_NORECENCY */

	/* appended: values above are stored in sessions and never renumbered */
	HS_EV_TASK_NEW,			/* task:task_newtask: pid = the creating task, a = the
					 * new task's pid, b = clone_flags (CLONE_THREAD
					 * 0x00010000: it joins the creator's thread group) */

	/*
	 * The workload's TLB (recorded with filters on the workload's process,
	 * lib/recorder.c; read by the replay's TLB model, lib/sim.c)
	 */
	HS_EV_TLB_FLUSH,		/* tlb:tlb_flush: a = pages (UINT64_MAX: TLB_FLUSH_ALL),
					 * b = reason (enum tlb_flush_reason) */
	HS_EV_SCHED_SWITCH,		/* sched:sched_switch: a = prev_pid, b = next_pid */
	HS_EV_MIGRATE_TASK,		/* sched:sched_migrate_task: a = pid, b = orig_cpu,
					 * c = dest_cpu */

	/*
	 * Memory-cgroup statistics flushes (lib/recorder.c filters them on the
	 * workload's memory cgroup and its ancestors; read by linux-2q, whose
	 * reclaim and refault tests see the statistics of the last flush)
	 */
	HS_EV_MEMCG_FLUSH,		/* memcg:memcg_flush_stats: a = memcg id (the cgroup's
					 * id), b = stats_updates, c = force | needs_flush << 1 */

	/*
	 * DAMON's view of memory (kdamond; what DAMON_LRU_SORT and DAMON_RECLAIM
	 * act on): every region of every target at each aggregation
	 */
	HS_EV_DAMON_AGGREGATED,		/* damon:damon_aggregated: index = start, last = end
					 * (the region [start, end): physical or virtual
					 * addresses, bytes), a = nr_accesses (samples that
					 * found it accessed in the aggregation), b = age
					 * (aggregations its access count held), c =
					 * nr_regions (of its target), addr = target_id */
	HS_EV_DAMOS_APPLY,		/* damon:damos_before_apply: a scheme acts on a
					 * region (after its quota cut it): index = start,
					 * last = end, a = nr_accesses (the scheme's view:
					 * nr_accesses_bp / 10000), b = age, c = scheme_idx
					 * (in its context's order: DAMON_LRU_SORT's hot
					 * scheme 0, cold 1), addr = nr_regions */
	HS_EV_NR
};

/* struct hs_event flags */
#define HS_EVF_ANON	0x0001u	/* anonymous memory (write_folio, touch) */
#define HS_EVF_ASYNC	0x0002u	/* asynchronous readahead */
#define HS_EVF_WRITE	0x0004u	/* the touch wrote the page */
#define HS_EVF_FD	0x0008u	/* the touch went through read()/write(), not a mapping */
#define HS_EVF_NORECENCY 0x0010u	/* the touch's mapping has no recency (MADV_RANDOM...) */

/**
 * struct hs_event - one decoded trace event
 */
struct hs_event {
	uint64_t	ts_ns;		/* trace clock (mono), nanoseconds */
	uint32_t	cpu;		/* the CPU whose buffer held it */
	int32_t		pid;		/* common_pid: the thread that emitted it */
	uint16_t	type;		/* enum hs_event_type */
	uint16_t	flags;		/* HS_EVF_* */
	uint32_t	order;		/* folio order: the folio spans 2^order pages */
	uint64_t	pfn;		/* head pfn, or 0 */
	uint64_t	dev;		/* kernel dev_t (major << 20 | minor) */
	uint64_t	ino;		/* inode number */
	uint64_t	index;		/* page index in the file, or a range's first */
	uint64_t	last;		/* a range's last index (inclusive) */
	uint64_t	addr;		/* user virtual address */
	uint64_t	a;		/* type-specific, see enum hs_event_type */
	uint64_t	b;		/* type-specific */
	uint64_t	c;		/* type-specific */
};

/* "filemap_add", "lru_insertion", ...; "?" for a bad value. */
const char *hs_event_type_name(enum hs_event_type t);

#endif /* HS_EVENT_H */
