/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulation driver: runs an access stream through one policy at one
 * capacity.  It owns the per-key records, capacity accounting, the metrics
 * shadow table (each evicted key's eviction time, for refault distance), the
 * statistics and the order of calls; the policy only decides (lib/policy.h).
 *
 * Definitions (DESIGN.md "Metrics"): an access is a page touched by an FD or
 * PT record; hints and drops are not accesses.  hit ratio = hits / accesses.
 * A refault is a miss on a key whose last removal was an eviction (by the
 * policy or by a PAGEOUT hint), or a readahead insertion of such a key (the
 * kernel counts a refault at every add that finds a shadow entry); its
 * distance is the number of accesses between that eviction and the refault.
 * A READAHEAD record (recorded streams) inserts a non-resident key without a
 * reference: not a hit, not a miss; an access to it later is a hit.  A
 * readahead page is unused if it leaves memory, or the run ends, before any
 * access to it.  A ping-pong key was evicted and refaulted
 * two or more times.  A protection is a policy sparing a folio it would
 * otherwise have evicted (hs_sim_protect()); it is useful if the folio is
 * accessed again before it leaves, wasted if it leaves untouched, and
 * unresolved if the run ends first.
 */
#ifndef HS_SIM_H
#define HS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"

struct hs_policy_ops;
struct hs_param_set;
struct hs_sim;
struct hs_neigh;

/* struct hs_folio flags */
#define HS_FOLIO_RESIDENT	0x01u	/* in the simulated memory */
#define HS_FOLIO_SEEN		0x02u	/* accessed at least once (a later miss is not cold) */
#define HS_FOLIO_SHADOW		0x04u	/* evicted_at holds a shadow entry */
#define HS_FOLIO_ANON		0x08u	/* last access said anonymous memory */
#define HS_FOLIO_HINTED		0x10u	/* the shadow entry came from a PAGEOUT hint */
#define HS_FOLIO_READAHEAD	0x20u	/* in by a READAHEAD record, not accessed since */
#define HS_FOLIO_ANCIENT	0x40u	/* evicted_at is 2^31 or more accesses old (below) */
#define HS_FOLIO_RA_MARK	0x80u	/* PG_readahead of the model's own readahead
					 * (hs_sim_config.ra_model) */

/**
 * struct hs_folio - the driver's record of one key, followed by the policy's area
 *
 * One per dense key id for the whole run: 8 bytes, because a sweep holds
 * keys x runs of them.  The key id is not stored: it is the record's index
 * in the flat array, hs_folio_id() derives it from the address.  Policies
 * may read everything but write only their private area (hs_folio_priv()).
 *
 * Times are 32 bits: evicted_at holds the low 32 bits of an access seq, and
 * an age (seq now minus evicted_at) is exact below 2^31 accesses.  Every
 * 2^31 accesses the driver sweeps the records and marks the times 2^31 or
 * more accesses old HS_FOLIO_ANCIENT, before they can wrap; an age of 2^31
 * or more, marked or not yet, reads as "ancient" (HS_DIST_ANCIENT): such a
 * refault counts in the last bucket of the distance histogram, and the
 * recheck pageout mode treats such a last access as outside any window but
 * UINT64_MAX.  Streams below 2^31 accesses are exact throughout.
 */
struct hs_folio {
	uint8_t		flags;		/* HS_FOLIO_* */
	uint8_t		prot_pending;	/* protections not yet classified (saturates) */
	uint8_t		prot_kind;	/* enum hs_prot_kind of the newest pending one */
	uint8_t		refaults;	/* refaults so far (saturates at 255) */
	uint32_t	evicted_at;	/* low 32 bits of a seq.  With HS_FOLIO_SHADOW:
					 * the last eviction; while resident: its
					 * insertion, and with the recheck pageout mode
					 * (the only reader) its last access; otherwise
					 * stale */
};

/* An age or refault distance of 2^31 accesses or more (struct hs_folio). */
#define HS_DIST_ANCIENT	UINT64_MAX

/* The policy's private area of f: ops->folio_priv bytes, 8-byte aligned. */
static inline void *hs_folio_priv(struct hs_folio *f)
{
	return (void *)(f + 1);
}

static inline const void *hs_folio_cpriv(const struct hs_folio *f)
{
	return (const void *)(f + 1);
}

static inline bool hs_folio_is_resident(const struct hs_folio *f)
{
	return f->flags & HS_FOLIO_RESIDENT;
}

/**
 * struct hs_policy_env - what a policy gets from the driver at create()
 */
struct hs_policy_env {
	uint64_t	capacity;	/* units (pages, blocks, objects) the memory holds */
	uint32_t	nr_keys;	/* dense key ids are 0 .. nr_keys - 1 */
	char		*folios;	/* the record array: key id i at folios + i * stride */
	size_t		stride;		/* bytes per record */
	size_t		priv_off;	/* offset of the private area within a record */
	/*
	 * hs_folio_id(): stride = odd * 2^id_shift, and id_mul is the inverse
	 * of odd modulo 2^32, so (offset >> id_shift) * id_mul is the index:
	 * a shift and a multiply, not a division.
	 */
	unsigned int	id_shift;
	uint32_t	id_mul;
	struct hs_sim	*sim;		/* for hs_sim_protect() */
	/*
	 * The keys' real addresses (a recorded session's, lib/neigh.h), or
	 * NULL: generated and imported streams have none.  The kernel models'
	 * look-around reads it.
	 */
	const struct hs_neigh *neigh;
	/*
	 * The future by position, for HS_POLICY_NEEDS_FUTURE policies, or NULL:
	 * seq_keys[s] is the key of access s (s < nr_seq), so that a next use
	 * names its key.  A policy asks for it in create()
	 * (hs_sim_want_seq_keys()); the replay then sets it before the first
	 * step (hs_sim_set_seq_keys()), so it is still NULL in create().
	 * OPT keeps its own copy of what it needs when it stays NULL.
	 */
	const uint32_t	*seq_keys;
	uint64_t	nr_seq;
	/*
	 * Folio mode (hs_sim_config.nr_folios), else NULL: folio_pages[id] is
	 * the pages that resident key id stands for (1, or more for the head of
	 * a kernel folio whose other pages joined it; lib/sim.c, "Folios").  A
	 * policy that counts pages, as the kernel's lists do, reads it when it
	 * links or unlinks a folio, and hears of a page joining a linked one
	 * through ops->grow().
	 */
	const uint32_t	*folio_pages;
	/*
	 * The replay delivers the recording's memory cgroup statistics flushes
	 * (hs_sim_memcg_flush() -> ops->stats_flush()) where they happened on
	 * the stream: a policy that models flushed statistics takes these
	 * instead of a clock of its own.
	 */
	bool		memcg_flushes;
	/*
	 * The largest memory cgroup reclaim of the recording, in pages freed
	 * (hs_session_memcg_reclaim_max()), or 0: none recorded, or not a
	 * recording.  The MGLRU models read from it how the kernel's reclaims
	 * ran (reclaim_loop=auto, hsctl-policies(7)).
	 */
	uint64_t	memcg_reclaim_max;
};

/* The pages resident key @id stands for (1 outside folio mode). */
static inline uint32_t hs_env_folio_pages(const struct hs_policy_env *env, uint32_t id)
{
	return env->folio_pages ? env->folio_pages[id] : 1;
}

/*
 * Resident keys (min(capacity, keys)) from which OPT keeps its next uses in
 * a bitmap and asks for seq_keys (policies/opt.c); the sweep planner counts
 * seq_keys for such runs (lib/plan.c).
 */
#define HS_OPT_BITMAP_MIN	(128u * 1024)

static inline struct hs_folio *hs_env_folio(const struct hs_policy_env *env, uint32_t id)
{
	return (struct hs_folio *)(void *)(env->folios + (size_t)id * env->stride);
}

/* The dense key id of f, a record of env's array (its index: no field holds it). */
static inline uint32_t hs_folio_id(const struct hs_policy_env *env, const struct hs_folio *f)
{
	return (uint32_t)((size_t)((const char *)f - env->folios) >> env->id_shift) * env->id_mul;
}

/* Kinds of protection, so kernel policies can split them (issue: MGLRU tiers). */
enum hs_prot_kind {
	HS_PROT_SECOND_CHANCE,	/* a reference bit / list position spared the folio */
	HS_PROT_TIER,		/* MGLRU tier protection (sort_folio, PID controller) */
	HS_PROT_PROMOTE,	/* moved to a younger generation / active list at eviction time */
	HS_PROT_SHIELD,		/* HitShield shield spent */
	HS_PROT_NR
};

const char *hs_prot_kind_name(enum hs_prot_kind k);

/**
 * hs_sim_protect() - report that the policy spared a resident folio
 * @sim: env->sim
 * @f: the folio it would otherwise have evicted
 * @kind: why
 */
void hs_sim_protect(struct hs_sim *sim, struct hs_folio *f, enum hs_prot_kind kind);

/* hs_sim_want_seq_keys() - from create(): the policy would use env->seq_keys. */
void hs_sim_want_seq_keys(struct hs_sim *sim);
bool hs_sim_wants_seq_keys(const struct hs_sim *sim);
/*
 * hs_sim_set_seq_keys() - supply env->seq_keys (valid until hs_sim_free()),
 * before the first step: @keys[s] is the key of access s, s < @n.
 */
void hs_sim_set_seq_keys(struct hs_sim *sim, const uint32_t *keys, uint64_t n);

/**
 * hs_sim_fail() - a hook could not do its work (its memory could not grow)
 * @sim: env->sim
 * @err: negative errno, e.g. -ENOMEM
 *
 * The step returns @err and the run is unusable, as after a contract
 * violation: better than counting on with a policy that lost state.
 */
void hs_sim_fail(struct hs_sim *sim, int err);

#define HS_HIST_BUCKETS	48	/* refault distance histogram: bucket b holds [2^(b-1), 2^b) */

struct hs_prot_stats {
	uint64_t	total;		/* protections granted */
	uint64_t	useful;		/* the folio was accessed again before leaving */
	uint64_t	wasted;		/* the folio left without a further access */
};

/**
 * struct hs_sim_stats - what one run measured
 */
struct hs_sim_stats {
	uint64_t	capacity;	/* units */
	uint64_t	records;	/* stream records processed (accesses + hints + drops +
					 * readahead) */
	uint64_t	accesses;	/* FD + PT records */
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	cold_misses;	/* first access to a key */
	uint64_t	evictions;	/* policy evictions (not hints, not drops) */
	uint64_t	refaults;	/* misses and readahead insertions of keys with a
					 * shadow entry */
	uint64_t	hint_evictions;	/* resident pages evicted for a PAGEOUT hint */
	uint64_t	hint_refaults;	/* refaults whose shadow came from a hint */
	uint64_t	hints;		/* PAGEOUT + COLD records */
	uint64_t	drops;		/* DROP records that removed a resident page */
	uint64_t	pswpout;	/* anonymous evictions (policy and hint) */
	uint64_t	pswpin;		/* anonymous misses on keys evicted before */
	uint64_t	pingpong_keys;	/* keys refaulted >= 2 times */
	uint64_t	pingpong_refaults; /* refaults of those keys: misses ping-pong causes */
	uint64_t	distinct_keys;	/* keys accessed at least once */
	uint64_t	peak_resident;	/* most units resident at once */
	uint64_t	readahead_pages; /* keys READAHEAD records inserted */
	uint64_t	readahead_unused; /* of them, those that left memory (evicted,
					   * hinted out, dropped) or were resident at
					   * the end without an access since */
	struct hs_prot_stats prot;	/* all kinds together */
	struct hs_prot_stats prot_kind[HS_PROT_NR];
	double		prot_occupancy;	/* mean share of capacity held by folios whose
					 * protection is pending, sampled per access */
	uint64_t	refault_hist[HS_HIST_BUCKETS];	/* log2 buckets of refault distance */
};

/* Policy-specific end-of-run numbers (ops->report()). */
#define HS_METRICS_MAX	32
struct hs_metrics {
	size_t		n;
	struct {
		char	name[48];	/* "arc.p", "mglru.agings" */
		double	value;
	} m[HS_METRICS_MAX];
};

void hs_metrics_add(struct hs_metrics *m, const char *name, double value);
/* The value of metric @name, or NAN when the policy did not report it. */
double hs_metrics_get(const struct hs_metrics *m, const char *name);

/*
 * A time series per run: snapshots a policy takes of its own state, when it
 * chooses, as records of one size it chooses (MGLRU: the shape of its lruvec
 * after every aging, a struct hs_gen_sample of lib/lrugen.h, which policies
 * with HS_POLICY_GEN_SERIES report and the store keeps as run_generations).
 * The driver never reads a record's contents.  It stamps each with the time:
 * a record begins with a uint64_t that the driver sets to the accesses so
 * far.  It keeps at most HS_SERIES_MAX per run (then every other one is
 * thinned out and the interval doubles, so a long run keeps an even spread).
 */
#define HS_SERIES_MAX		4096	/* records kept per run */
#define HS_SERIES_REC_MAX	1024	/* bytes per record */

/**
 * hs_sim_series_add() - record one point of the policy's time series
 * @sim: env->sim
 * @rec: the record (copied), beginning with a uint64_t the driver stamps
 * @size: its size in bytes, the same at every call of a run
 *
 * A size below 8 or above HS_SERIES_REC_MAX, or other than the run's first,
 * breaks the run (-EUCLEAN at the next step).  An allocation failure loses the
 * record, never the run.
 */
void hs_sim_series_add(struct hs_sim *sim, const void *rec, size_t size);

/**
 * hs_sim_series() - the records kept so far, oldest first
 * @sim: the run
 * @out: receives the first record (valid until the next step or free)
 * @size: receives the size of one record (0 when there are none)
 *
 * Return: the number of records.
 */
size_t hs_sim_series(const struct hs_sim *sim, const void **out, size_t *size);

/*
 * What the driver does with a PAGEOUT hint on a resident page (POLICIES.md
 * section 2b), for policies without HS_POLICY_OWN_PAGEOUT (lib/policy.h):
 * the policy's verdict (ops->hint(), or "evict" without one) is filtered by
 * the mode.  Policies with the flag (the kernel models) decide alone.  Zero
 * is the default.
 */
enum hs_pageout_mode {
	HS_PAGEOUT_IGNORE_REFS = 0,	/* evict every hinted resident page (Linux 6.10+) */
	HS_PAGEOUT_RECHECK,		/* keep a page accessed within the last
					 * recheck_window accesses (before 6.10) */
	HS_PAGEOUT_IGNORE,		/* drop PAGEOUT hints: nothing is evicted */
	HS_PAGEOUT_NR
};

/* "ignore-references", "recheck", "ignore"; NULL for a bad value. */
const char *hs_pageout_mode_name(enum hs_pageout_mode m);

/**
 * hs_pageout_mode_parse() - a pageout mode from its name
 * @name: "ignore-references", "recheck" or "ignore"
 * @out: receives the mode
 *
 * Return: 0, or -EINVAL for any other word (@out untouched).
 */
int hs_pageout_mode_parse(const char *name, enum hs_pageout_mode *out);

struct hs_sim_config {
	const struct hs_policy_ops *ops;	/* the policy */
	const struct hs_param_set *params;	/* its parameters (NULL: defaults) */
	uint64_t	capacity;		/* units; >= 1 */
	uint32_t	nr_keys;		/* dense key ids are below this */
	size_t		batch_max;		/* most victims one ->evict() may return (0: 64, or
						 * every resident folio for HS_POLICY_BULK_RECLAIM) */
	bool		paranoid;		/* run ops->check() after every hook */
	bool		record_victims;		/* keep the last step's victims (tests) */
	bool		override_channel;	/* replace the channel of every access... */
	uint8_t		channel;		/* ...by this one (HS_CH_FD or HS_CH_PT) */
	uint8_t		pageout;		/* enum hs_pageout_mode (0: ignore-references);
						 * not for HS_POLICY_OWN_PAGEOUT ones */
	uint64_t	recheck_window;		/* HS_PAGEOUT_RECHECK keeps a page whose last
						 * access is among the last this many accesses
						 * (0: none is, in a serial replay) */
	bool		no_readahead;		/* skip READAHEAD records (still counted in
						 * records) */
	/*
	 * The model's own synchronous readahead (lib/sim.c, "Model readahead"):
	 * 0 off; otherwise the window's most pages (the bdi's ra_pages, 32 at
	 * the default read_ahead_kb of 128).  Needs neigh.
	 */
	uint32_t	ra_model;
	uint8_t		time_bits;		/* tests only: keep times modulo 2^time_bits
						 * (2..32; 0: 32), so that the sweep of
						 * struct hs_folio comes every
						 * 2^(time_bits - 1) accesses */
	/*
	 * Folio mode (lib/sim.c, "Folios"): how many kernel folios of two
	 * pages or more the stream's pages belonged to, 0 off.  The records
	 * then come with the id of the folio their page was in at their time
	 * (hs_sim_run_folios(), hs_sim_step_folio()): below nr_folios, or
	 * HS_NIL for a page of its own.  Only for policies with
	 * HS_POLICY_FOLIO_PAGES; for the others hs_sim_new() turns it off and
	 * the folios given are ignored.
	 */
	uint32_t	nr_folios;
	const struct hs_neigh *neigh;		/* the keys' addresses (hs_policy_env.neigh):
						 * NULL, or valid until hs_sim_free() */
	bool		no_prefetch;		/* hs_sim_run() steps without fetching the
						 * records of keys ahead, and without its
						 * fast path for plain hits: every record as
						 * hs_sim_step() takes it (the same counts,
						 * slower: for tests and measurements) */
	bool		policy_prefetch;	/* call ops->prefetch even when the key
						 * records fit in the L2 cache, where
						 * hs_sim_run() skips it (tests) */
	bool		damon;			/* hs_sim_deactivate() will be called: keep
						 * every resident key's last access */
	bool		tlb;			/* model the workload's cached translations
						 * ("TLB model" in lib/sim.c): PT hits through
						 * one set hs_access.tlb_hit;
						 * hs_sim_tlb_flush() empties the set */
	uint32_t	tlb_entries;		/* most translations the set holds (the
						 * CPU's TLB); 0: no bound but the memory */
	bool		memcg_flushes;		/* hs_sim_memcg_flush() will be called where
						 * the recording's cgroup statistics were
						 * flushed (hs_policy_env.memcg_flushes) */
	uint64_t	memcg_reclaim_max;	/* the recording's largest memory cgroup
						 * reclaim, pages (hs_policy_env) */
	/*
	 * Called at every eviction, the policy's or a PAGEOUT hint's (@hinted),
	 * when not NULL: @pos is the number of accesses before the record that
	 * caused it, @key the evicted key.  An error it returns fails the step.
	 */
	int		(*on_evict)(void *arg, uint64_t pos, uint32_t key, bool hinted);
	void		*evict_arg;			/* its first argument */
};

/**
 * hs_sim_new() - set up one run
 * @cfg: configuration (copied)
 * @out: the new run
 *
 * Return: 0, -EINVAL (capacity 0, nr_keys too large, bad ops), -ENOMEM, or the
 * policy's create() error.
 */
int hs_sim_new(const struct hs_sim_config *cfg, struct hs_sim **out);
/* Bytes per distinct key the driver allocates for one run of @ops. */
size_t hs_sim_key_bytes(const struct hs_policy_ops *ops);
void hs_sim_free(struct hs_sim *sim);

/* hs_sim_step() results */
#define HS_STEP_MISS	0
#define HS_STEP_HIT	1
#define HS_STEP_OTHER	2	/* a hint, a drop or a readahead insertion */

/**
 * hs_sim_step() - feed one stream record
 * @sim: the run
 * @key: dense key id (< nr_keys)
 * @meta: channel, type and write bits (access.h)
 * @next_use: seq of the key's next access, or HS_NEVER (used only by policies
 *	      with HS_POLICY_NEEDS_FUTURE; pass HS_NEVER otherwise)
 *
 * Return: HS_STEP_*, or -EINVAL for a bad key or meta, -EUCLEAN when a
 * paranoid check failed (the run is then unusable).
 */
int hs_sim_step(struct hs_sim *sim, uint32_t key, uint8_t meta, uint64_t next_use);

/**
 * hs_sim_run() - feed a run of stream records, fetching future keys' records ahead
 * @sim: the run
 * @keys: dense key ids
 * @meta: their meta bytes
 * @next: their next-use seqs (policies with HS_POLICY_NEEDS_FUTURE), or NULL
 *	  for HS_NEVER
 * @n: records
 *
 * The same as hs_sim_step() on each record in turn, counter for counter, but
 * faster: while stepping record i it prefetches the records of keys a few
 * dozen records ahead, and lets the policy prefetch what its hooks will touch
 * (ops->prefetch) when the key records outgrow the L2 cache (or with
 * cfg.policy_prefetch), unless cfg.no_prefetch.
 *
 * Return: 0, or the first negative hs_sim_step() result (the run is then
 * unusable, as after hs_sim_step()).
 */
int hs_sim_run(struct hs_sim *sim, const uint32_t *keys, const uint8_t *meta,
	       const uint64_t *next, size_t n);

/**
 * hs_sim_step_folio() - hs_sim_step() in folio mode (cfg.nr_folios)
 * @sim: the run
 * @key: dense key id
 * @meta: meta byte
 * @next_use: as for hs_sim_step()
 * @folio: the kernel folio @key's page was in at the record's time (below
 *	   cfg.nr_folios), or HS_NIL
 *
 * Return: as hs_sim_step(); -EINVAL also for a folio out of range.
 */
int hs_sim_step_folio(struct hs_sim *sim, uint32_t key, uint8_t meta, uint64_t next_use,
		      uint32_t folio);

/*
 * hs_sim_run() in folio mode: @folio[i] is record i's folio, as for
 * hs_sim_step_folio().  Both are hs_sim_run() and hs_sim_step() for a run
 * whose folio mode is off (the policy lacks HS_POLICY_FOLIO_PAGES).
 */
int hs_sim_run_folios(struct hs_sim *sim, const uint32_t *keys, const uint8_t *meta,
		      const uint64_t *next, const uint32_t *folio, size_t n);

/* Pages resident as members of another page's folio (folio mode; 0 otherwise). */
uint64_t hs_sim_folio_members(const struct hs_sim *sim);

/* Victims of the last step (record_victims only); valid until the next step. */
size_t hs_sim_victims(const struct hs_sim *sim, const uint32_t **ids);

/* Units resident now. */
uint64_t hs_sim_used(const struct hs_sim *sim);

/* Run the policy's check() now: 0 or -EUCLEAN (also checks the driver's own counts). */
int hs_sim_check(const struct hs_sim *sim);

/*
 * hs_sim_deactivate() - one interval of the DAMON model (cfg.damon): @n draws
 * of a key with replacement (seeded by @seed); each resident one not accessed
 * in the last @idle intervals gets the kernel's folio_deactivate() (->hint()
 * with a COLD access whose deactivate flag is set).  Between records only,
 * once per interval.  Return: 0, -ENOMEM, or the run's error (-EPROTO if a
 * policy evicted for it).
 */
int hs_sim_deactivate(struct hs_sim *sim, uint64_t n, uint64_t seed, uint32_t idle);

/*
 * hs_sim_deactivate_keys() - folio_deactivate() of each of the @n keys that
 * is resident (cfg.damon; the DAMON region model's cold action).  Between
 * records only.  Return: 0, or the run's error (-EPROTO if a policy evicted
 * for it, -EINVAL without cfg.damon).
 */
int hs_sim_deactivate_keys(struct hs_sim *sim, const uint32_t *keys, size_t n);

/*
 * hs_sim_tlb_flush() - the workload's TLB lost every translation (cfg.tlb):
 * a full flush, a switch in from another process, a migration.  Between
 * records only; without cfg.tlb it does nothing.  Return: 0, or the run's
 * error.
 */
int hs_sim_tlb_flush(struct hs_sim *sim);

/**
 * hs_sim_memcg_flush() - the workload's memory cgroup statistics were flushed here
 * @sim: the simulation (cfg.memcg_flushes)
 *
 * The replay calls it before the first record at or after a recorded
 * memcg_flush_stats event's time.  Policies with ops->stats_flush take their
 * snapshot of what the kernel reads from flushed statistics; the others
 * change nothing.  Return: 0, or the run's error if it broke earlier.
 */
int hs_sim_memcg_flush(struct hs_sim *sim);

/* Final statistics (call once, at the end) and the policy's own metrics. */
void hs_sim_finish(struct hs_sim *sim, struct hs_sim_stats *st, struct hs_metrics *m);

/* The policy's dump() into fp, if it has one. */
struct hs_policy_env;
const struct hs_policy_env *hs_sim_env(const struct hs_sim *sim);

/**
 * hs_next_use_fill() - next-use times for an in-memory stream (offline policies)
 * @keys: key ids
 * @meta: meta bytes (hints and drops get HS_NEVER and do not advance seq; a
 *	  READAHEAD record gets its key's next access, and does not advance it)
 * @n: records
 * @nr_keys: key ids are below this
 * @next: receives, per record, the seq of the key's next access or HS_NEVER
 *
 * Return: 0 or -ENOMEM.
 */
int hs_next_use_fill(const uint32_t *keys, const uint8_t *meta, size_t n, uint32_t nr_keys,
		     uint64_t *next);

/*
 * The next-use pass's chains (hs_next_use_fill(), and lib/replay.c's over a
 * stored stream): every key has one chain of the records waiting for its
 * next access (its last access and the READAHEAD records since), linked
 * through next[] itself and ended by HS_WAIT_END.  hs_next_use_settle()
 * gives @seq to every record of the chain from record @w (HS_NEVER: no
 * access came).
 */
#define HS_WAIT_END	UINT64_MAX

static inline void hs_next_use_settle(uint64_t *next, uint64_t w, uint64_t seq)
{
	while (w != HS_WAIT_END) {
		uint64_t up = next[w];

		next[w] = seq;
		w = up;
	}
}

#endif /* HS_SIM_H */
