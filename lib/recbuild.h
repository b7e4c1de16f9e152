/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a recorded session from its spool.  While `hsctl record` runs, the
 * raw per-CPU sub-buffers (and a built-in workload's touch log) go into the
 * store's spool as they are read, committed every second or so, so nothing
 * is decoded on the hot path and a killed recorder leaves its data behind.
 * After the workload, the builder reads each CPU's spool in order, decodes
 * it (lib/decode.c), merges the CPUs and the touch log by timestamp (the
 * mono trace clock is CLOCK_MONOTONIC, which the touches carry), and feeds
 * every event to the lifecycle builder (lib/lifecycle.c).  Out come,
 * inside one session-writer transaction: the events table, the access
 * stream (hs_session_add, keys from the lifecycle key table), the folio
 * lives, the key identities and the lifecycle self-checks.
 */
#ifndef HS_RECBUILD_H
#define HS_RECBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct hs_decoder;

/**
 * struct hs_recbuild_opts - what the builder needs to know about the recording
 */
struct hs_recbuild_opts {
	struct hs_decoder *decoder;	/* decoder for the spool's sub-buffers; NULL: one is
					 * made from the format files saved in the store
					 * (hs_record_formats()) */
	struct hs_session_meta meta;	/* the session writer's meta; meta.id is the session */
	int32_t		workload_pid;	/* the workload's first task: the scope (followed
					 * through forks); 0: every task is in scope */
	bool		touch_only;	/* the stream takes accesses from touches only (exact
					 * sessions of built-in workloads) */
	uint64_t	touch_dev;	/* file touches: the file's kernel dev_t */
	uint64_t	touch_ino;	/* file touches: its inode */
	bool		no_events;	/* do not store kernel events in the events table */
	const int32_t	*kswapd_pids;	/* kswapd threads known from /proc, may be NULL */
	size_t		nr_kswapd;	/* entries in kswapd_pids */
};

/**
 * struct hs_recbuild_result - counts of one build
 */
struct hs_recbuild_result {
	uint64_t	events;		/* kernel events decoded (HS_EV_LOST excluded) */
	uint64_t	touches;	/* touch records read */
	uint64_t	gaps;		/* HS_EV_LOST markers */
	uint64_t	bad_subbufs;	/* sub-buffers the decoder rejected (skipped, counted) */
	uint64_t	bad_touches;	/* malformed touch records (skipped) */
	uint64_t	lives;		/* folio lives stored */
	uint64_t	keys;		/* key identities stored */
	uint64_t	rows;		/* rows written (events, lives, keys) */
	double		seconds;	/* wall time of the build */
	uint64_t	first_ts;	/* first and last event time stamps (trace clock) */
	uint64_t	last_ts;
	uint64_t	touch_file_alive; /* pages of the touched file (touch_dev, touch_ino)
					   * in lives still alive at the end; 0 without one */
};

/**
 * hs_recbuild() - decode, merge and build a recorded session
 * @st: the store holding the session's spool
 * @o: options
 * @w: receives the open session writer on success: the caller adds its own
 *	rows (hs_rec_add_counter(), hs_rec_add_cpu(), hs_rec_finish(), ...) and
 *	commits it with hs_session_commit(); on error nothing is left open
 * @checks: receives the lifecycle builder's self-checks (may be NULL); they
 *	are also stored as check rows
 * @res: receives counts (may be NULL)
 * @err: receives a one-line reason on failure
 * @errlen: its size
 *
 * Return: 0; -ENOENT (no such session or no formats); -EBADMSG (the spool
 * is unreadable as a whole: a bad format file); -ENOMEM; -EIO; other -errno
 * from the store.  A corrupt sub-buffer is skipped and counted, not fatal.
 */
int hs_recbuild(struct hs_store *st, const struct hs_recbuild_opts *o,
		struct hs_session_writer **w, struct hs_lifecycle_checks *checks,
		struct hs_recbuild_result *res, char *err, size_t errlen);

#endif /* HS_RECBUILD_H */
