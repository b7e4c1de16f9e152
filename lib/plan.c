/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sweeps that fit: each run's memory estimated, runs split into waves within
 * a budget (see plan.h).
 *
 * The model.  A run allocates, when it starts, one driver record per distinct
 * key of the session (hs_sim_key_bytes(): the 8-byte struct hs_folio and
 * the policy's private area), and touches every one of them by the end of
 * the pass (every key is accessed at least once), so that part is exact.
 * Beyond it a policy may keep its own arrays: some per resident key (OPT's
 * and LRFU's heaps, MGLRU's young list and shadow ring, sized by the
 * capacity), some that grow with the keys it has seen (Linux-2Q's
 * second-chance heap).  Those extras are measured, as peak
 * RSS (/usr/bin/time %M) of one run alone minus the same replay's base, on
 * P12 (3,153,310 keys) at 10,000, 100,000 and 1,000,000 blocks; see
 * hsctl-replay(1) for the measured table against the estimate.  A wave adds
 * the base (the binary, SQLite's page cache, the ring of decoded chunks:
 * HS_PLAN_BASE) and, when it holds an offline run, the next uses shared by
 * its offline runs (hs_plan_next_use_width(), lib/plan.h) and the keys of
 * the stream their pass keeps for them to step through (4 bytes a record,
 * lib/replay.c; OPT's bitmap runs read their seq_keys from the same array).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs.h"
#include "plan.h"
#include "policy.h"
#include "sim.h"

/* What a policy keeps beyond the driver's records. */
static const struct extra_cost {
	const char	*policy;
	unsigned int	per_key;	/* bytes per distinct key */
	unsigned int	per_resident;	/* bytes per resident key: min(capacity, keys) */
} extra_costs[] = {
	{ "opt", 0, 16 },	{ "lrfu", 0, 24 },	{ "mglru", 9, 4 },
	{ "hitshield", 9, 4 },
	{ "clock", 1, 0 },	/* its reference bitmap: a bit a key, counted as a byte */
};

/* A policy not in the table: assume LRFU's heap, the largest extra measured. */
static const struct extra_cost extra_unknown = { NULL, 8, 24 };

static const struct extra_cost *extra_of(const struct hs_policy_ops *ops)
{
	for (size_t k = 0; k < ARRAY_SIZE(extra_costs); k++)
		if (!strcmp(extra_costs[k].policy, ops->name))
			return &extra_costs[k];
	/* every registered policy without an entry keeps nothing beyond its records */
	if (hs_policy_find(ops->name) == ops)
		return NULL;
	return &extra_unknown;
}

void hs_plan_run_cost(const struct hs_policy_ops *ops, uint64_t *per_key,
		      uint64_t *per_resident)
{
	const struct extra_cost *x = extra_of(ops);

	*per_key = hs_sim_key_bytes(ops) + (x ? x->per_key : 0);
	*per_resident = x ? x->per_resident : 0;
}

/*
 * The driver's record array comes from hs_huge_alloc(): from 2 MiB on, in
 * whole 2 MiB huge pages, all of them touched (lib/huge.c).  At 16 bytes a
 * key that rounding is most of the difference between a run's estimate and
 * its peak (P12, fifo: 48.1 MiB of records in 50 MiB of pages).
 */
#define HUGE_PAGE	(2ull << 20)

static uint64_t huge_len(uint64_t bytes)
{
	return bytes < HUGE_PAGE ? bytes : (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

static bool is_offline(const struct hs_policy_ops *ops)
{
	return ops->flags & HS_POLICY_NEEDS_FUTURE;
}

/*
 * An OPT run with HS_OPT_BITMAP_MIN or more resident keys keeps its next
 * uses in a bitmap, a bit per record, and has the pass keep the key of every
 * access (hs_policy_env.seq_keys, 4 bytes a record, in huge pages).  The
 * pass shares those among such runs; the estimate counts them for each (an
 * overestimate when two share a wave).  Such a run has no heap: its bytes
 * per resident key are not counted.
 */
bool hs_plan_uses_seq_keys(const struct hs_policy_ops *ops, uint64_t capacity, uint64_t keys)
{
	return is_offline(ops) && HS_MIN(capacity, keys) >= HS_OPT_BITMAP_MIN;
}

/*
 * OPT's 16 bytes per resident key are its heap's room, two 8-byte entries
 * per resident key (policies/opt.c): allocated at the start, touched as the
 * pushes fill it.  The pass's per-key array (hs_plan.next_use) is freed
 * before the first step, so the two never peak together and counting both
 * errs on the safe side.  Measured on P12 (3,153,310 keys, 13,208,930
 * records, 2026-12-02): fifo alone peaked at 56.9 MiB (estimate 58.0); opt
 * at 10,000 and 100,000 blocks at 120.9 MiB, the pass's peak (estimates
 * 122.3 and 125.1); at 1,000,000 (the bitmap) 173.1 (estimate 175.6).
 */
uint64_t hs_plan_run_bytes(const struct hs_policy_ops *ops, uint64_t capacity, uint64_t keys)
{
	uint64_t per_key, per_resident;

	hs_plan_run_cost(ops, &per_key, &per_resident);
	if (hs_plan_uses_seq_keys(ops, capacity, keys))
		per_resident = 0;	/* the bitmap instead of the heap */
	return huge_len(keys * hs_sim_key_bytes(ops)) + keys * (per_key - hs_sim_key_bytes(ops)) +
	       HS_MIN(capacity, keys) * per_resident;
}

/*
 * Bytes per entry of the replay's next[] and wait[] (lib/replay.c): 4 while
 * every record index and seq fits below UINT32_MAX, which then stands for
 * HS_NEVER and HS_WAIT_END (both UINT64_MAX); else 8.  Half the memory the
 * pass writes at random and the kernel zeroes first (80 MB for 10 M records
 * at 8 bytes).
 */
unsigned int hs_plan_next_use_width(uint64_t records)
{
	return records < UINT32_MAX ? sizeof(uint32_t) : sizeof(uint64_t);
}

static uint64_t offline_extra(const struct hs_plan_run *r, const struct hs_plan *plan)
{
	if (!hs_plan_uses_seq_keys(r->ops, r->capacity, plan->keys))
		return 0;
	/* the key of every access is the wave's kept stream (hs_plan.next_use) */
	return (plan->records + 7) / 8;
}

/* Filling order: offline runs first, then larger first, then plan order. */
static const struct hs_plan_run *sort_runs;

static int by_fill_order(const void *va, const void *vb)
{
	const struct hs_plan_run *a = &sort_runs[*(const size_t *)va];
	const struct hs_plan_run *b = &sort_runs[*(const size_t *)vb];
	size_t ia = *(const size_t *)va, ib = *(const size_t *)vb;

	if (is_offline(a->ops) != is_offline(b->ops))
		return is_offline(a->ops) ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* The waves being filled: memory used beyond the base, and what they hold. */
struct fill {
	uint64_t	*used;		/* bytes of the wave's runs and next uses */
	bool		*offline;	/* the wave holds an offline run (so its next uses) */
	bool		*closed;	/* a run alone over the budget: nothing joins it */
	unsigned int	nr;		/* waves opened */
};

/* Bytes run r adds to wave w, and whether they fit within room. */
static bool fits(const struct fill *f, unsigned int w, const struct hs_plan_run *r,
		 uint64_t next_use, uint64_t room, uint64_t *need)
{
	*need = r->bytes + (is_offline(r->ops) && !f->offline[w] ? next_use : 0);
	return !f->closed[w] && f->used[w] <= room && *need <= room - f->used[w];
}

static void put(struct fill *f, unsigned int w, struct hs_plan_run *r, uint64_t need)
{
	f->used[w] += need;
	f->offline[w] |= is_offline(r->ops);
	r->wave = w;
}

/*
 * One filling in order[]: with max_waves 0, first fit, opening waves as
 * needed; otherwise into max_waves waves, each run into the fitting wave
 * with the least memory (an offline run prefers a wave that already has
 * next uses).  Return: false when a run found no wave (max_waves only).
 */
static bool fill_waves(struct fill *f, struct hs_plan_run *runs, const size_t *order, size_t n,
		       uint64_t next_use, uint64_t room, unsigned int max_waves, size_t *nr_alone)
{
	f->nr = max_waves;
	for (unsigned int w = 0; w < n; w++) {
		f->used[w] = 0;
		f->offline[w] = f->closed[w] = false;
	}
	*nr_alone = 0;
	for (size_t k = 0; k < n; k++) {
		struct hs_plan_run *r = &runs[order[k]];
		unsigned int best = UINT32_MAX;
		uint64_t need, best_need = 0;
		bool better;

		for (unsigned int w = 0; w < f->nr; w++) {
			if (!fits(f, w, r, next_use, room, &need))
				continue;
			if (best == UINT32_MAX) {
				best = w;
				best_need = need;
				if (!max_waves)
					break;		/* first fit */
				continue;
			}
			/* next uses shared where they can be, else the least loaded */
			if (is_offline(r->ops) && f->offline[w] != f->offline[best])
				better = f->offline[w];
			else
				better = f->used[w] < f->used[best];
			if (better) {
				best = w;
				best_need = need;
			}
		}
		if (best != UINT32_MAX) {
			put(f, best, r, best_need);
			continue;
		}
		if (max_waves)
			return false;
		best = f->nr++;
		fits(f, best, r, next_use, room, &need);
		if (need > room) {		/* alone, over the budget */
			f->closed[best] = true;
			++*nr_alone;
		}
		put(f, best, r, need);
	}
	return true;
}

int hs_plan_make(struct hs_plan *plan, struct hs_plan_run *runs, size_t n)
{
	uint64_t room, sum = 0;
	struct fill f = { 0 };
	size_t *order, k;
	bool offline = false;
	int ret = -ENOMEM;

	plan->base = HS_PLAN_BASE;
	plan->nr_waves = 0;
	plan->nr_alone = 0;
	plan->first_alone = 0;
	for (k = 0; k < n; k++) {
		runs[k].bytes = hs_plan_run_bytes(runs[k].ops, runs[k].capacity, plan->keys) +
				offline_extra(&runs[k], plan);
		runs[k].wave = 0;
		sum += runs[k].bytes;
		offline |= is_offline(runs[k].ops);
	}
	plan->next_use = offline ? huge_len(hs_plan_next_use_width(plan->records) * plan->records) +
				   hs_plan_next_use_width(plan->records) * plan->keys +
				   huge_len(HS_PLAN_KEPT_BYTES * plan->records) : 0;
	plan->total = plan->base + sum + plan->next_use;
	plan->peak = plan->base;
	if (!n)
		return 0;

	order = calloc(n, sizeof(*order));
	f.used = calloc(n, sizeof(*f.used));
	f.offline = calloc(n, sizeof(*f.offline));
	f.closed = calloc(n, sizeof(*f.closed));
	if (!order || !f.used || !f.offline || !f.closed)
		goto out_free;
	for (k = 0; k < n; k++)
		order[k] = k;
	sort_runs = runs;
	qsort(order, n, sizeof(*order), by_fill_order);
	room = plan->budget > plan->base ? plan->budget - plan->base : 0;

	fill_waves(&f, runs, order, n, plan->next_use, room, 0, &plan->nr_alone);
	/* the same number of waves, evened out; a run over the budget keeps its own */
	if (f.nr > 1 && !plan->nr_alone &&
	    !fill_waves(&f, runs, order, n, plan->next_use, room, f.nr, &k))
		fill_waves(&f, runs, order, n, plan->next_use, room, 0, &plan->nr_alone);

	plan->nr_waves = f.nr;
	for (unsigned int w = 0; w < f.nr; w++)
		plan->peak = HS_MAX(plan->peak, plan->base + f.used[w]);
	for (k = 0; k < n && plan->nr_alone; k++)
		if (f.closed[runs[k].wave]) {
			plan->first_alone = k;
			break;
		}
	ret = 0;
out_free:
	free(order);
	free(f.used);
	free(f.offline);
	free(f.closed);
	return ret;
}

/*
 * The margin left to the rest of the machine, out of MemAvailable: an
 * eighth, at least 256 MiB.  MemAvailable is the kernel's guess of what can
 * be allocated without swapping, and it counts page cache, some of which the
 * replay itself reads through (the database's stream chunks) and the rest of
 * the machine keeps using while a sweep runs for minutes; the eighth also
 * covers the estimate's error (within a few percent on the measured policies,
 * hsctl-replay(1)) and what the model leaves out (an --log-evictions log,
 * the results being stored).  The floor keeps a small machine's kernel and
 * shell alive.  When MemAvailable is below twice the floor, half of it.
 */
#define MARGIN_FLOOR	(256ull << 20)

int hs_plan_default_budget(const char *meminfo, uint64_t *avail, uint64_t *out)
{
	unsigned long long kb = 0;
	bool found = false;
	char line[256];
	uint64_t a, margin;
	FILE *f;

	f = fopen(meminfo ? meminfo : "/proc/meminfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			found = true;
			break;
		}
	fclose(f);
	if (!found)
		return -ENOENT;
	a = (uint64_t)kb << 10;
	margin = HS_MAX(a / 8, MARGIN_FLOOR);
	*avail = a;
	*out = a >= 2 * MARGIN_FLOOR ? a - margin : a / 2;
	return 0;
}
