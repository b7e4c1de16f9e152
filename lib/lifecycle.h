/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder: it consumes a time-ordered stream of decoded kernel
 * events (struct hs_event, lib/event.h) and produces folio lives (one per
 * stay of a folio in memory, with how it began and why it ended: reclaim,
 * pageout, truncate or unknown, and whether it was a kernel refault), the
 * access stream for replay (FD, PT, hints and drops, through a callback, on
 * a key table the builder owns), and self-checks of its own joins.  The
 * rules, and the heuristics where the kernel's events do not say enough,
 * are written out in the essay at the top of lifecycle.c and, for
 * anonymous memory, threads and the access stream, at the top of lc-anon.c,
 * lc-task.c and lc-stream.c.  No SQLite here: the store persists what this
 * produces.
 */
#ifndef HS_LIFECYCLE_H
#define HS_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "life.h"

struct hs_lifecycle;		/* opaque; defined in lib/lifecycle-int.h */

/*
 * An access-stream record: @key is a key-table id, @meta lib/access.h's meta
 * byte (channel, anon bit, write bit), @ts the time of the event that emitted
 * it (the latest event time seen: never goes back).  Return 0 or a negative
 * errno, which hs_lifecycle_event() then returns.
 */
typedef int (*hs_lc_emit_fn)(void *arg, uint64_t key, uint8_t meta, uint64_t ts);

/* struct hs_lifecycle_opts flags */
#define HS_LC_SCOPED		0x1u	/* stream only the accesses and hints of tasks in scope
					 * (hs_lifecycle_add_scope(), followed through forks) */
#define HS_LC_TOUCH_ONLY	0x2u	/* stream accesses from HS_EV_TOUCH only, not from kernel
					 * events (exact sessions); hints and drops still go */
#define HS_LC_NO_BDEV		0x4u	/* keep block-device page cache out of the stream */
#define HS_LC_PARANOID		0x8u	/* run hs_lifecycle_check() after every event; a
					 * failure makes it return -EUCLEAN (tests) */
#define HS_LC_INFER_RA		0x10u	/* the kernel has no readahead events: infer readahead
					 * from the adds no read, fault or touch asked for
					 * (lc-stream.c); HS_EV_READAHEAD events are ignored */

/**
 * struct hs_lifecycle_opts - builder options; all zero gives the defaults
 */
struct hs_lifecycle_opts {
	unsigned int	flags;		/* HS_LC_* */
	uint64_t	bdev_dev;	/* dev of the block-device page cache; 0: HS_LC_BDEV_DEV */
	uint64_t	max_range_pages; /* longest range taken from one event (get_pages,
					  * map_pages, madvise); longer ones are cut and
					  * counted; 0: 262144 (1 GiB) */
	uint64_t	link_window_ns;	/* oldest user fault an anon lru_insertion may be
					 * linked to; 0: 1 s */
	hs_lc_emit_fn	emit;		/* access-stream callback, or NULL for none */
	void		*emit_arg;	/* its first argument */
};

enum hs_lc_check_status {
	HS_LC_CHECK_NA		= 0,	/* not available: the events it needs are missing */
	HS_LC_CHECK_OK		= 1,	/* the two sides agree */
	HS_LC_CHECK_DIFF	= 2,	/* they differ (see the counts) */
};

/**
 * struct hs_lifecycle_checks - self-checks and counters
 *
 * The four checks each carry a status; the counters after them explain
 * where the builder had to guess or skip.  Page counts are in pages, event
 * counts in events.
 */
struct hs_lifecycle_checks {
	/* 1. reclaim deaths against mm_vmscan_lru_shrink_inactive's nr_reclaimed */
	uint8_t		reclaim_status;	/* NA without shrink_inactive events (6.1 MGLRU) */
	uint64_t	reclaim_death_pages; /* pages of lives that died by reclaim */
	uint64_t	shrink_inactive_events; /* mm_vmscan_lru_shrink_inactive seen */
	uint64_t	shrink_inactive_reclaimed; /* the sum of their nr_reclaimed */
	/* 2. pageout deaths against mm_vmscan_reclaim_pages's nr_reclaimed */
	uint8_t		pageout_status;	/* NA without reclaim_pages events (before 6.18) */
	uint64_t	pageout_death_pages; /* pages of lives that died by pageout */
	uint64_t	reclaim_pages_events; /* mm_vmscan_reclaim_pages seen */
	uint64_t	reclaim_pages_reclaimed; /* the sum of their nr_reclaimed */
	/* 3. pfn-keyed events (lru_insertion, lru_activate, write_folio) joined to a life */
	uint8_t		join_status;	/* NA without pfn events; DIFF when some did not join */
	uint64_t	pfn_events;	/* pfn-keyed events seen */
	uint64_t	pfn_joined;	/* of them, joined to a live life (any kind) */
	uint64_t	pfn_unjoined;	/* not joined: pfn unknown, migrated, or before the trace */
	uint64_t	pfn_joined_anon; /* joined to anon lives (linking insertions included) */
	uint64_t	pfn_joined_bdev; /* joined to block-device lives */
	/* 4. lost events */
	uint8_t		lost_status;	/* OK without gaps, DIFF with any */
	uint64_t	gaps;		/* HS_EV_LOST markers */
	uint64_t	lost_events;	/* events they say were lost (known counts) */
	uint64_t	gaps_uncounted;	/* markers whose count was unknown */
	/* lives */
	uint64_t	lives[HS_LIFE_KIND_NR]; /* lives by kind */
	uint64_t	death_pages[HS_DEATH_NR]; /* pages by death cause (NONE: alive) */
	uint64_t	refaults;	/* lives that are refaults */
	uint64_t	refaults_distrusted; /* would-be refaults not claimed across a gap */
	uint64_t	readahead_only;	/* readahead lives that died or ended unaccessed */
	uint64_t	swap_outs;	/* anon lives ended by write_folio (any cause) */
	uint64_t	swap_ins;	/* inferred swap-ins */
	uint64_t	anon_linked;	/* anon lru_insertions linked to a user fault */
	uint64_t	anon_unlinked;	/* anon lru_insertions with no fault to link to */
	uint64_t	faults_unresolved; /* user faults never linked (file-backed, zero page,
					    * swap-cache hits, expired, gap) */
	uint64_t	pfn_stale;	/* map ranges dropped because an add reused their frames */
	uint64_t	splits;		/* folios found split (a delete or write inside one) */
	uint64_t	anomalies;	/* deletes of pages known absent, adds of pages known
					 * present: lost or misordered events */
	/* stream and input */
	uint64_t	reclaim_end_reclaimed; /* sum of nr_reclaimed of the *_reclaim_end events */
	uint64_t	accesses;	/* FD/PT records streamed */
	uint64_t	hints;		/* PAGEOUT/COLD records streamed */
	uint64_t	drops;		/* DROP records streamed */
	uint64_t	readahead;	/* READAHEAD records streamed (pages of readahead adds) */
	uint64_t	readahead_inferred; /* HS_LC_INFER_RA: pages of the lives it flagged
					     * readahead */
	uint64_t	ra_unsettled;	/* HS_LC_INFER_RA: lives left unflagged because no
					 * read of their inode followed their add in time */
	uint64_t	ranges_cut;	/* ranges longer than max_range_pages */
	uint64_t	bad_events;	/* malformed events skipped (bad type, order, range) */
	uint64_t	unordered;	/* events older than the one before */
	uint64_t	resident_faults; /* user faults on anon pages with a live life (NUMA
					  * hinting faults, see lib/sampling.c; writes after
					  * reads): streamed as PT accesses */
	uint64_t	anon_lost;	/* anon lives left without a pfn: their fault allocated
					 * but no traced insertion came (drained by a task the
					 * trace excludes, or lost) */
	uint64_t	swapout_guessed; /* anon write_folio on frames no traced insertion
					  * named since they were last freed, given to the
					  * reclaiming process's oldest lost life */
};

/**
 * hs_lifecycle_new() - a builder
 * @opts: options, or NULL for the defaults
 * @out: the builder
 *
 * Return: 0 or -ENOMEM.
 */
int hs_lifecycle_new(const struct hs_lifecycle_opts *opts, struct hs_lifecycle **out);

/**
 * hs_lifecycle_free() - free a builder, its lives and its key table
 * @lc: the builder, or NULL
 *
 * Return: nothing.
 */
void hs_lifecycle_free(struct hs_lifecycle *lc);

/**
 * hs_lifecycle_set_tgid() - seed the thread -> process map
 * @lc: the builder
 * @tid: a thread id (common_pid of events)
 * @tgid: its process (thread group) id
 *
 * Without a seed or a clone event, a thread is its own process.  An
 * HS_EV_TASK_NEW event gives the new task its process from clone_flags
 * (CLONE_THREAD) and overrides a seed; a fork event alone makes its child a
 * new process (sched_process_fork does not tell threads from processes), so
 * seed threads from /proc to group those created before the trace, or on
 * kernels without task:task_newtask.
 *
 * Return: 0, -EINVAL (a negative id), or -ENOMEM.
 */
int hs_lifecycle_set_tgid(struct hs_lifecycle *lc, int32_t tid, int32_t tgid);

/**
 * hs_lifecycle_set_kswapd() - mark @pid as a kswapd thread
 * @lc: the builder
 * @pid: its pid
 *
 * kswapd threads announce themselves by mm_vmscan_kswapd_wake; a seeded one
 * is taken as awake (reclaiming) until its first wake or sleep event, for a
 * trace that begins while kswapd runs.
 *
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int hs_lifecycle_set_kswapd(struct hs_lifecycle *lc, int32_t pid);

/**
 * hs_lifecycle_add_scope() - put task @pid in the streamed scope
 * @lc: the builder
 * @pid: the workload's task; its later forks inherit the scope
 *
 * Matters only with HS_LC_SCOPED.
 *
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int hs_lifecycle_add_scope(struct hs_lifecycle *lc, int32_t pid);

/**
 * hs_lifecycle_event() - consume one event
 * @lc: the builder
 * @ev: the event; events come in timestamp order
 *
 * Malformed events are counted (bad_events) and skipped; an event older
 * than the one before is used and counted (unordered).  After an -ENOMEM or
 * a callback error the event may be half applied: stop and free.
 *
 * Return: 0; -EINVAL for NULL or after hs_lifecycle_finish(); -ENOMEM; or
 * the emit callback's error.
 */
int hs_lifecycle_event(struct hs_lifecycle *lc, const struct hs_event *ev);

/**
 * hs_lifecycle_finish() - the stream ended
 * @lc: the builder
 *
 * Emits what was held back (the last get_pages range of every task, drops
 * of pending truncations), decides every pending death by its fallback
 * rule, and closes the checks.  Lives still alive keep HS_DEATH_NONE.
 *
 * Return: 0, -EINVAL when already finished, -ENOMEM, or the callback's error.
 */
int hs_lifecycle_finish(struct hs_lifecycle *lc);

/**
 * hs_lifecycle_nr_lives() - lives so far
 * @lc: the builder
 *
 * Return: their number; ids are 0 .. that - 1.
 */
size_t hs_lifecycle_nr_lives(const struct hs_lifecycle *lc);

/**
 * hs_lifecycle_life() - one life
 * @lc: the builder
 * @id: 0 .. hs_lifecycle_nr_lives() - 1
 *
 * The pointer stays valid until the next hs_lifecycle_event() or
 * hs_lifecycle_finish().  A life whose death is still being decided (see
 * lifecycle.c, "Death causes") shows HS_DEATH_NONE with died_ns set.
 *
 * Return: the life, or NULL for an id out of range.
 */
const struct hs_folio_life *hs_lifecycle_life(const struct hs_lifecycle *lc, size_t id);

/**
 * hs_lifecycle_pfn_page() - the live page a pfn holds now
 * @lc: the builder
 * @pfn: a page frame number
 * @life: receives the id of the live life whose folio contains it
 * @page: receives the page: first_page + (@pfn - head pfn), i.e. the file
 *	  index, or the virtual page for anon
 *
 * Return: 0, or -ENOENT when no live life with a known pfn holds @pfn.
 */
int hs_lifecycle_pfn_page(const struct hs_lifecycle *lc, uint64_t pfn, size_t *life,
			  uint64_t *page);

/**
 * hs_lifecycle_nr_keys() - entries in the key table
 * @lc: the builder
 *
 * Return: their number; the stream's keys are below it.
 */
uint64_t hs_lifecycle_nr_keys(const struct hs_lifecycle *lc);

/**
 * hs_lifecycle_key() - one entry of the key table
 * @lc: the builder
 * @id: a key id from the stream
 * @out: receives the key
 *
 * Return: 0, or -ENOENT for an id out of range.
 */
int hs_lifecycle_key(const struct hs_lifecycle *lc, uint64_t id, struct hs_lc_key *out);

/**
 * hs_lifecycle_get_checks() - the self-checks and counters so far
 * @lc: the builder
 * @out: receives them
 *
 * Return: 0.
 */
int hs_lifecycle_get_checks(const struct hs_lifecycle *lc, struct hs_lifecycle_checks *out);

/**
 * hs_lifecycle_check() - the builder's structural invariants
 * @lc: the builder
 *
 * The per-CPU fault queues and insertion bursts of the anonymous aligner
 * (ordered, bounded, counted), the per-process lists of live and of lost
 * anon lives, the per-task lists of pending deaths (a life is pending iff it
 * is on exactly one, and never both pending and dead), the pfn map (only
 * live lives, each where its pfn says) and the join counters.  It walks
 * every life: for tests and debugging (HS_LC_PARANOID), not for every event
 * of a real build.
 *
 * Return: 0, or -EUCLEAN when an invariant does not hold.
 */
int hs_lifecycle_check(const struct hs_lifecycle *lc);

/**
 * hs_lc_check_status_name() - "n/a", "ok", "differs"
 * @status: enum hs_lc_check_status
 *
 * Return: the name, or "?" for a bad value.
 */
const char *hs_lc_check_status_name(enum hs_lc_check_status status);

#endif /* HS_LIFECYCLE_H */
