/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/plan.c: a run's estimate from its terms, and the waves
 * of a sweep under budgets chosen around it.  Budgets are written as the
 * base plus whole runs: R is one LRU run's bytes, keys x the driver's
 * record (hs_sim_key_bytes(), whatever its size today), so every expected
 * wave can be counted by hand.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "plan.h"
#include "policy.h"
#include "sim.h"

#define KEYS	1000u

static struct hs_plan new_plan(uint64_t budget)
{
	struct hs_plan pl = { .keys = KEYS, .records = 5000, .budget = budget };

	return pl;
}

static void costs(void)
{
	const struct hs_policy_ops *lru = hs_policy_find("lru"), *opt = hs_policy_find("opt");
	const struct hs_policy_ops *lrfu = hs_policy_find("lrfu");
	const struct hs_policy_ops *mglru = hs_policy_find("mglru");
	uint64_t k, r;

	hs_plan_run_cost(lru, &k, &r);
	T_EQ_U64(k, hs_sim_key_bytes(lru));
	T_EQ_U64(r, 0);
	/* OPT: its record, and 16 bytes per resident (its heap's room for two 8-byte entries) */
	hs_plan_run_cost(opt, &k, &r);
	T_EQ_U64(k, hs_sim_key_bytes(opt));
	T_EQ_U64(r, 16);
	hs_plan_run_cost(lrfu, &k, &r);
	T_EQ_U64(r, 24);
	/* MGLRU: a shadow slot per key and a node per 64 keys; its young vector */
	hs_plan_run_cost(mglru, &k, &r);
	T_EQ_U64(k, hs_sim_key_bytes(mglru) + 9);
	T_EQ_U64(r, 4);
	/* residents: the capacity, or the keys when it is larger */
	T_EQ_U64(hs_plan_run_bytes(opt, 300, KEYS), KEYS * hs_sim_key_bytes(opt) + 300 * 16);
	T_EQ_U64(hs_plan_run_bytes(opt, 5000, KEYS), KEYS * hs_sim_key_bytes(opt) + KEYS * 16);
	T_EQ_U64(hs_plan_run_bytes(lru, 5000, KEYS), KEYS * hs_sim_key_bytes(lru));
	/*
	 * From 2 MiB on the records are whole 2 MiB pages: P12's 3,153,310 keys
	 * x 16 bytes (48.1 MiB) take 50 MiB; OPT's heap is not rounded.
	 */
	T_EQ_U64(hs_sim_key_bytes(lru), 16);
	T_EQ_U64(hs_plan_run_bytes(lru, 100, 3153310), 50ull << 20);
	T_EQ_U64(hs_plan_run_bytes(opt, 100, 3153310), (50ull << 20) + 1600);
	T_EQ_U64(hs_plan_run_bytes(lru, 100, (2u << 20) / 16 - 1), (2u << 20) - 16);
}

/*
 * OPT from HS_OPT_BITMAP_MIN resident keys on: its bitmap (a bit per record)
 * and the pass's key of every access instead of the heap.  200,000 keys,
 * 1,000,000 records: the records take 3,200,000 bytes, 4 MiB in huge pages;
 * at 150,000 the bitmap run adds 125,000 bytes and no heap, at 100,000 the
 * heap adds 16 bytes a resident key.  The wave's pass: next uses, 4 bytes a
 * record (4 MiB in huge pages) and 4 a key, and the key of every access, 4
 * bytes a record (4 MiB), which the bitmap reads and the heap run steps
 * through.
 */
static void opt_bitmap(void)
{
	const struct hs_policy_ops *opt = hs_policy_find("opt");
	struct hs_plan pl = { .keys = 200000, .records = 1000000, .budget = UINT64_MAX };
	struct hs_plan_run runs[2] = {
		{ .ops = opt, .capacity = 150000 }, { .ops = opt, .capacity = 100000 },
	};

	T_EQ_I64(hs_plan_make(&pl, runs, 2), 0);
	T_EQ_U64(runs[0].bytes, (4u << 20) + 125000);
	T_EQ_U64(runs[1].bytes, (4u << 20) + 100000 * 16);
	T_EQ_U64(pl.next_use, (4u << 20) + 4 * 200000 + (4u << 20));
	/* 8 bytes an entry from 2^32 - 1 records on, as the pass makes them */
	T_EQ_U64(hs_plan_next_use_width(UINT32_MAX - 1), 4);
	T_EQ_U64(hs_plan_next_use_width(UINT32_MAX), 8);
}

static void lru_runs(struct hs_plan_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		runs[i].ops = hs_policy_find("lru");
		runs[i].capacity = 100 * (i + 1);
	}
}

/* Everything fits: one wave, whose estimate is the total. */
static void one_wave(void)
{
	uint64_t R = KEYS * hs_sim_key_bytes(hs_policy_find("lru"));
	struct hs_plan pl = new_plan(UINT64_MAX);
	struct hs_plan_run runs[5];

	lru_runs(runs, 5);
	T_EQ_I64(hs_plan_make(&pl, runs, 5), 0);
	T_EQ_U64(pl.nr_waves, 1);
	T_EQ_U64(pl.nr_alone, 0);
	T_EQ_U64(pl.base, HS_PLAN_BASE);
	T_EQ_U64(pl.next_use, 0);
	T_EQ_U64(pl.total, HS_PLAN_BASE + 5 * R);
	T_EQ_U64(pl.peak, pl.total);
	for (size_t i = 0; i < 5; i++) {
		T_EQ_U64(runs[i].bytes, R);
		T_EQ_U64(runs[i].wave, 0);
	}
	/* exactly the total is still one wave; a byte less is two */
	pl = new_plan(HS_PLAN_BASE + 5 * R);
	T_EQ_I64(hs_plan_make(&pl, runs, 5), 0);
	T_EQ_U64(pl.nr_waves, 1);
	pl = new_plan(HS_PLAN_BASE + 5 * R - 1);
	T_EQ_I64(hs_plan_make(&pl, runs, 5), 0);
	T_EQ_U64(pl.nr_waves, 2);
}

/*
 * Five runs of R within base + 4R: first fit needs two waves (4 + 1), and the
 * two are evened out to 3 + 2, one run in turn to the emptier wave: runs
 * 0, 2, 4 in wave 0, 1 and 3 in wave 1; the peak is base + 3R, not 4R.
 */
static void even_waves(void)
{
	uint64_t R = KEYS * hs_sim_key_bytes(hs_policy_find("lru"));
	struct hs_plan pl = new_plan(HS_PLAN_BASE + 4 * R);
	struct hs_plan_run runs[5];

	lru_runs(runs, 5);
	T_EQ_I64(hs_plan_make(&pl, runs, 5), 0);
	T_EQ_U64(pl.nr_waves, 2);
	T_EQ_U64(pl.peak, HS_PLAN_BASE + 3 * R);
	T_EQ_U64(runs[0].wave, 0);
	T_EQ_U64(runs[1].wave, 1);
	T_EQ_U64(runs[2].wave, 0);
	T_EQ_U64(runs[3].wave, 1);
	T_EQ_U64(runs[4].wave, 0);
	/* one run a wave */
	pl = new_plan(HS_PLAN_BASE + R);
	T_EQ_I64(hs_plan_make(&pl, runs, 5), 0);
	T_EQ_U64(pl.nr_waves, 5);
	T_EQ_U64(pl.nr_alone, 0);
	T_EQ_U64(pl.peak, HS_PLAN_BASE + R);
	for (size_t i = 0; i < 5; i++)
		T_EQ_U64(runs[i].wave, i);
}

/*
 * Offline runs go first and together: the next uses (4 bytes x 5,000
 * records + 4 bytes x 1,000 keys) and the keys kept (4 bytes x 5,000
 * records) are paid once, in wave 0.  Runs: lru, opt, lru, opt at size 100;
 * O is one OPT run, N the next uses.  Budget base + 2 O + N + R: first fit
 * puts both OPT runs and one LRU run in wave 0, the other LRU run in wave 1;
 * evened out, the second OPT run still joins the first (their next uses are
 * shared) and the LRU runs both go to the emptier wave 1.
 */
static void offline_first(void)
{
	const struct hs_policy_ops *lru = hs_policy_find("lru"), *opt = hs_policy_find("opt");
	uint64_t R = KEYS * hs_sim_key_bytes(lru);
	uint64_t O = KEYS * hs_sim_key_bytes(opt) + 100 * 16, N = 4 * 5000 + 4 * KEYS + 4 * 5000;
	struct hs_plan pl = new_plan(HS_PLAN_BASE + 2 * O + N + R);
	struct hs_plan_run runs[4] = {
		{ .ops = lru, .capacity = 100 }, { .ops = opt, .capacity = 100 },
		{ .ops = lru, .capacity = 100 }, { .ops = opt, .capacity = 100 },
	};

	T_EQ_I64(hs_plan_make(&pl, runs, 4), 0);
	T_EQ_U64(pl.next_use, N);
	T_EQ_U64(pl.total, HS_PLAN_BASE + 2 * O + N + 2 * R);
	T_EQ_U64(pl.nr_waves, 2);
	T_EQ_U64(pl.peak, HS_PLAN_BASE + 2 * O + N);
	T_EQ_U64(runs[1].wave, 0);
	T_EQ_U64(runs[3].wave, 0);
	T_EQ_U64(runs[0].wave, 1);
	T_EQ_U64(runs[2].wave, 1);
}

/*
 * Runs over the budget even alone: each gets a wave of its own and is
 * counted; the others still share.  Budget base + 2R: an OPT run (O + N >
 * 2R) cannot fit, the three LRU runs take two waves.
 */
static void alone(void)
{
	const struct hs_policy_ops *lru = hs_policy_find("lru"), *opt = hs_policy_find("opt");
	uint64_t R = KEYS * hs_sim_key_bytes(lru);
	struct hs_plan pl = new_plan(HS_PLAN_BASE + 2 * R);
	struct hs_plan_run runs[4] = {
		{ .ops = lru, .capacity = 100 }, { .ops = lru, .capacity = 100 },
		{ .ops = opt, .capacity = 100 }, { .ops = lru, .capacity = 100 },
	};

	T_EQ_I64(hs_plan_make(&pl, runs, 4), 0);
	T_EQ_U64(pl.nr_alone, 1);
	T_EQ_U64(pl.first_alone, 2);
	T_EQ_U64(pl.nr_waves, 3);
	T_EQ_U64(runs[2].wave, 0);
	T_ASSERT(runs[0].wave != 0 && runs[1].wave != 0 && runs[3].wave != 0);
	T_EQ_U64(pl.peak, HS_PLAN_BASE + runs[2].bytes + 4 * 5000 + 4 * KEYS + 4 * 5000);
	/* a budget below the base: nothing fits, every run alone */
	pl = new_plan(HS_PLAN_BASE - 1);
	T_EQ_I64(hs_plan_make(&pl, runs, 4), 0);
	T_EQ_U64(pl.nr_alone, 4);
	T_EQ_U64(pl.first_alone, 0);
	T_EQ_U64(pl.nr_waves, 4);
	/* no runs: no waves */
	pl = new_plan(0);
	T_EQ_I64(hs_plan_make(&pl, runs, 0), 0);
	T_EQ_U64(pl.nr_waves, 0);
	T_EQ_U64(pl.total, HS_PLAN_BASE);
}

/* MemAvailable less an eighth, at least 256 MiB; below 512 MiB, half. */
static void default_budget(void)
{
	static const struct {
		const char	*text;
		uint64_t	avail;
		uint64_t	budget;
	} cases[] = {
		{ "MemTotal: 9 kB\nMemAvailable:    4194304 kB\n", 4ull << 30, 3584ull << 20 },
		{ "MemAvailable: 1048576 kB\n", 1ull << 30, 768ull << 20 },
		{ "MemAvailable: 524288 kB\n", 512ull << 20, 256ull << 20 },
		{ "MemAvailable: 524284 kB\n", 524284ull << 10, 262142ull << 10 },
		{ "MemAvailable: 0 kB\n", 0, 0 },
	};
	char path[] = "/tmp/t-plan-XXXXXX";
	uint64_t avail, budget;
	FILE *f;
	int fd;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fd = mkstemp(path);
		T_ASSERT(fd >= 0);
		f = fdopen(fd, "w");
		T_ASSERT(f != NULL);
		fputs(cases[i].text, f);
		fclose(f);
		T_EQ_I64(hs_plan_default_budget(path, &avail, &budget), 0);
		T_EQ_U64(avail, cases[i].avail);
		T_EQ_U64(budget, cases[i].budget);
		unlink(path);
		snprintf(path, sizeof(path), "/tmp/t-plan-XXXXXX");
	}
	fd = mkstemp(path);
	T_ASSERT(fd >= 0);
	close(fd);
	T_EQ_I64(hs_plan_default_budget(path, &avail, &budget), -ENOENT);
	unlink(path);
	T_EQ_I64(hs_plan_default_budget("/nonexistent/meminfo", &avail, &budget), -ENOENT);
}

static const struct t_case cases[] = {
	{ "opt-bitmap", opt_bitmap },
	{ "costs", costs },
	{ "one_wave", one_wave },
	{ "even_waves", even_waves },
	{ "offline_first", offline_first },
	{ "alone", alone },
	{ "default_budget", default_budget },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
