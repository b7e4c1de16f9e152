/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replaying a stored session through many (policy, capacity) runs at once.
 *
 * The session's access stream is read once, chunk by chunk, and every run
 * steps through each chunk; runs are spread over worker threads that share the
 * decoded chunks (a small ring of them), so N runs cost one read of the trace
 * and use every core.  Offline policies (HS_POLICY_NEEDS_FUTURE) get next-use
 * times from one extra forward pass made before the replay.
 */
#ifndef HS_REPLAY_H
#define HS_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

struct hs_damon_stats;
struct hs_evlog;
struct hs_gen_sample;
struct hs_store;
struct hs_param_set;
struct hs_policy_ops;

struct hs_replay_job {
	const struct hs_policy_ops *ops;	/* in: the policy */
	const struct hs_param_set *params;	/* in: its parameters (NULL: defaults) */
	uint64_t		capacity;	/* in: units */
	struct hs_sim_stats	stats;		/* out: counters (valid when err == 0) */
	struct hs_metrics	metrics;	/* out: the policy's own numbers */
	double			wall_s;		/* out: seconds spent stepping this run */
	int			err;		/* out: 0, or why this run failed (-errno) */
	struct hs_gen_sample	*gens;		/* out: generations over time (malloc'd, the
						 * caller frees), NULL unless the policy
						 * has HS_POLICY_GEN_SERIES and reported */
	size_t			nr_gens;	/* out: entries in gens */
	struct hs_evlog		*evlog;		/* in: when not NULL, every eviction of the
						 * run is logged into it (lib/evlog.h) */
	struct hs_sim		*sim;		/* private to lib/replay.c */
};

#define HS_DAMON_INTERVAL_NS	100000000ull	/* 100 ms: DAMON's aggr_interval default */
#define HS_DAMON_MAX_IDLE	100000u		/* intervals of idleness the model tracks */

struct hs_replay_opts {
	unsigned int	threads;	/* worker threads; 0: one per online CPU */
	bool		paranoid;	/* check() after every hook (slow) */
	size_t		batch_max;	/* passed to hs_sim_config (0: default) */
	bool		override_channel; /* replace the channel of every access... */
	int		channel;	/* ...by this one (HS_CH_FD or HS_CH_PT) */
	int		pageout;	/* enum hs_pageout_mode for policies without
					 * HS_POLICY_OWN_PAGEOUT (0: ignore-references) */
	uint64_t	recheck_window;	/* with HS_PAGEOUT_RECHECK (hs_sim_config) */
	bool		no_readahead;	/* skip READAHEAD records (hs_sim_config) */
	bool		no_tlb;		/* no TLB model, even where the session has its
					 * events (hs_sim_config.tlb; a policy's own
					 * switch is its parameter tlb) */
	uint32_t	tlb_entries;	/* the model's bound: 0 the session's recorded
					 * TLB size (none: no bound), UINT32_MAX none */
	uint32_t	ra_model;	/* the model's own readahead: its window's most
					 * pages, 0 off (hs_sim_config) */
	bool		no_prefetch;	/* step without prefetching keys ahead (hs_sim_config) */
	/*
	 * An offline run over a stream of accesses only, with one meta byte,
	 * steps through the keys its next-use pass decoded instead of reading
	 * the store again: in hs_policy_env.seq_keys where OPT's bitmap keeps
	 * them, else in an array of their own, 4 bytes a record, which hs_plan
	 * counts with the next uses.  With reread_stream the store is read and
	 * decoded again instead: those 4 bytes a record saved, OPT slower.
	 */
	bool		reread_stream;
	/*
	 * Folio mode (lib/sim.c, "Folios"): a recorded session's pages that
	 * were one kernel folio are one entity for the policies.  Where the
	 * session has no folio of two pages or more, nothing changes.
	 */
	bool		folios;
	/*
	 * The DAMON_LRU_SORT model (hs_sim_deactivate()): the chance per second
	 * of trace time that a resident key is deactivated (0: off), applied at
	 * the end of every interval of damon_interval_ns (0: HS_DAMON_INTERVAL_NS,
	 * DAMON's default aggregation interval).  Needs a session with times.
	 */
	double		damon_deprio;
	uint64_t	damon_interval_ns;
	uint64_t	damon_min_age_ns;	/* only pages idle this long (cold_min_age) */
	/*
	 * The region model of DAMON_LRU_SORT instead (lib/damon.h): DAMON's
	 * regions over the session's recorded frames, its sampling and its two
	 * schemes, with each scheme's quota in bytes per reset interval
	 * (0: none); damon_min_age_ns, when not 0, replaces the session's
	 * cold_min_age.  The model's counters go to *damon_stats when not NULL.
	 */
	bool		damon_regions;
	bool		damon_recorded;	/* with damon_regions: the session's recorded
					 * scheme actions instead of the monitoring */
	uint64_t	damon_quota_bytes;
	uint32_t	damon_pace;	/* its intervals this many times longer (0, 1: not) */
	struct hs_damon_stats *damon_stats;
	/* Called from the reading thread after each chunk; may be NULL. */
	void		(*progress)(void *arg, uint64_t records_done, uint64_t records_total);
	void		*progress_arg;
	/*
	 * Read after each chunk; when it points to a non-zero value the replay
	 * stops there and returns -EINTR (a signal handler sets it).  May be NULL.
	 */
	const volatile sig_atomic_t *stop;
};

/**
 * hs_replay_session() - run every job over one stored session
 * @st: the store
 * @session: session id
 * @jobs: the runs; outputs are filled in place
 * @n: number of jobs
 * @opts: options (NULL: defaults)
 *
 * A job that fails (bad parameters, a policy breaking its contract) has its
 * err set and stops; the others go on.
 *
 * All runs share the one pass, so none has finished before the stream's
 * end: a replay stopped through opts->stop has no results at all.
 *
 * When a job's policy reads accessed bits (HS_POLICY_ACCESSED_BIT), the
 * session's key addresses are loaded (hs_session_neigh()) and given to every
 * run as hs_policy_env.neigh: NULL for a session without them.
 *
 * Return: 0 when the stream was read to its end, -EINTR when opts->stop
 * stopped it, -ENOENT (no such session), -EBADMSG (a corrupt stream),
 * -ENOMEM, or another -errno from the store.
 */
int hs_replay_session(struct hs_store *st, int64_t session, struct hs_replay_job *jobs,
		      size_t n, const struct hs_replay_opts *opts);

#endif /* HS_REPLAY_H */
