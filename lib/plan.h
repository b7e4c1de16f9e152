/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Planning a sweep of many (policy, capacity) runs over one session within a
 * memory budget.
 *
 * Every run of lib/replay.c holds its own per-key records for the whole
 * pass, so the memory of a replay grows with keys x runs: 42 runs over
 * P12's 3.2 M keys took 4.4 GB at once.  The plan estimates each run's
 * memory before anything starts and splits the runs into waves that fit the
 * budget; each wave is one hs_replay_session() call, one shared pass over the
 * stored stream, as all the runs took before.  A run's results do not depend
 * on which runs share its pass, so waves change memory and time, never
 * counters.
 *
 *   budget  |  base (SQLite, chunks in flight) + next uses (offline runs) |
 *           |  run  |  run  |  run  | ...                    = wave 0      |
 *           |  run  |  run  | ...                            = wave 1      |
 */
#ifndef HS_PLAN_H
#define HS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hs_policy_ops;

/* One run of the plan. */
struct hs_plan_run {
	const struct hs_policy_ops *ops;	/* in: the policy */
	uint64_t		capacity;	/* in: units */
	uint64_t		bytes;		/* out: this run's own memory (estimate) */
	unsigned int		wave;		/* out: 0-based wave that runs it */
};

/* Bytes per record of the keys an offline pass keeps for its runs (lib/replay.c). */
#define HS_PLAN_KEPT_BYTES	4u

/* The whole plan. */
struct hs_plan {
	uint64_t	keys;		/* in: the session's distinct keys */
	uint64_t	records;	/* in: its records */
	uint64_t	budget;		/* in: bytes a wave may take, base included */
	uint64_t	base;		/* out: bytes of every wave (HS_PLAN_BASE) */
	uint64_t	next_use;	/* out: bytes a wave with an offline run adds for
					 * next uses, hs_plan_next_use_width() per record
					 * and per key, and for the stream's keys kept,
					 * HS_PLAN_KEPT_BYTES per record (0: no offline
					 * run) */
	uint64_t	total;		/* out: estimate of all runs at once */
	uint64_t	peak;		/* out: estimate of the largest wave */
	unsigned int	nr_waves;	/* out: waves (at least 1 when there are runs) */
	size_t		nr_alone;	/* out: runs that do not fit the budget even
					 * alone (each then has a wave of its own) */
	size_t		first_alone;	/* out: the first such run's index (valid when
					 * nr_alone > 0) */
};

/*
 * Offline runs: one next-use seq per record, made by a forward pass
 * (lib/replay.c) that also holds one entry per key (the head of the key's
 * chain of records waiting for its next access) while it runs, after the
 * wave's runs have allocated their records: the peak of such a wave.  Both
 * are hs_plan_next_use_width() bytes an entry; the records' array is in
 * whole 2 MiB pages from 2 MiB on (hs_huge_alloc()).
 */
unsigned int hs_plan_next_use_width(uint64_t records);

/* Bytes of every replay whatever its runs: the binary, SQLite's cache, the chunk ring. */
#define HS_PLAN_BASE	(8ull << 20)

/**
 * hs_plan_run_cost() - the terms of one run's estimate
 * @ops: the policy
 * @per_key: receives bytes per distinct key: the driver's record
 *	(hs_sim_key_bytes()) and what the policy keeps per key beyond it
 * @per_resident: receives bytes per resident key, min(capacity, keys) of them
 *
 * Measured extras; a policy the registry does not know counts as the
 * largest.
 */
void hs_plan_run_cost(const struct hs_policy_ops *ops, uint64_t *per_key,
		      uint64_t *per_resident);

/**
 * hs_plan_run_bytes() - the memory one run takes, estimated
 * @ops: the policy
 * @capacity: the run's size in units
 * @keys: the session's distinct keys
 *
 * Return: bytes, keys x per_key + min(@capacity, @keys) x per_resident
 * (hs_plan_run_cost()), the driver's records (keys x hs_sim_key_bytes())
 * rounded up to whole 2 MiB pages when they take 2 MiB or more.
 */
uint64_t hs_plan_run_bytes(const struct hs_policy_ops *ops, uint64_t capacity, uint64_t keys);

/*
 * hs_plan_uses_seq_keys() - whether a run of @ops at @capacity over @keys
 * keeps its next uses in a bitmap (OPT from HS_OPT_BITMAP_MIN resident keys
 * on): a bit a record more, and the keys by access, which the wave's pass
 * keeps anyway (hs_plan.next_use).
 */
bool hs_plan_uses_seq_keys(const struct hs_policy_ops *ops, uint64_t capacity, uint64_t keys);

/**
 * hs_plan_make() - estimate every run and split them into waves
 * @plan: keys, records and budget in; the rest out
 * @runs: the runs (ops and capacity in; bytes and wave out)
 * @n: number of runs
 *
 * Waves are filled first-fit in decreasing size, offline runs
 * (HS_POLICY_NEEDS_FUTURE) first so that they share as few next-use arrays
 * as possible; the fewest waves found that way are then refilled so that
 * each holds about the same memory (the peak is lower and no wave is left
 * with a lone small run).  A run that alone exceeds the budget gets a wave
 * of its own and is counted in nr_alone: the caller decides whether that is
 * an error.
 *
 * Return: 0, or -ENOMEM.
 */
int hs_plan_make(struct hs_plan *plan, struct hs_plan_run *runs, size_t n);

/**
 * hs_plan_default_budget() - the budget when none is given
 * @meminfo: path of a /proc/meminfo-like file (NULL: /proc/meminfo)
 * @avail: receives MemAvailable in bytes
 * @out: receives the budget in bytes
 *
 * MemAvailable minus a margin of an eighth of it, at least 256 MiB (the
 * reasons are at the definition).
 *
 * Return: 0, -ENOENT (no MemAvailable line) or another -errno from reading.
 */
int hs_plan_default_budget(const char *meminfo, uint64_t *avail, uint64_t *out);

#endif /* HS_PLAN_H */
