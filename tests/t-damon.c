/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The region model of DAMON_LRU_SORT (lib/damon.h) on frames and streams
 * small enough to follow on paper: where a region cannot be split (two
 * pages or fewer) its sampling does not depend on the generator, so every
 * check, age, scheme and quota step below is computed by hand.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "access.h"
#include "damon.h"
#include "harness.h"

#define MS	1000000ull

/* 5 ms checks, 20 ms aggregations (4 checks: the hot threshold is 2), 1 to 3 regions */
static void small_attrs(struct hs_damon_attrs *a)
{
	hs_damon_defaults(a);
	a->sample_ns = 5 * MS;
	a->aggr_ns = 20 * MS;
	a->min_nr_regions = 1;
	a->max_nr_regions = 3;
}

/*
 * One frame, key 0 resident from the start, read at 0, 7 and 12 ms, then
 * nothing until a record at 200 ms; cold_min_age 40 ms (2 aggregations).
 * The checks at 5, 10 and 15 ms see the reads (an access at the check that
 * prepared the frame counts), the one at 20 ms not: nr_accesses 3, age 0,
 * hot (3 >= 2).  At 40 ms nr_accesses 0 moved by 3: age 0.  At 60 ms age
 * 1, at 80 ms age 2: cold, and the action starts the age over (0), so 1 at
 * 100 ms, 2 and cold at 120 ms, and so at 160 and 200 ms (the check at 200
 * ms comes before the record at 200 ms): four deactivations of key 0, all
 * before record 3 (the gap held them).
 */
static void test_one_frame(void)
{
	const struct hs_damon_page pg = { .pfn = 100, .key = 0 };
	const uint32_t keys[] = { 0, 0, 0, 0 };
	const uint8_t m = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint8_t meta[] = { m, m, m, m };
	const uint64_t ts[] = { 0, 7 * MS, 12 * MS, 200 * MS };
	struct hs_damon_acts acts = { 0 };
	struct hs_damon_attrs a;
	struct hs_damon_stats st;
	struct hs_damon *dm;

	small_attrs(&a);
	a.cold_min_age_ns = 40 * MS;
	T_EQ_I64(hs_damon_new(&a, &pg, 1, 1, &dm), 0);
	T_EQ_I64(hs_damon_feed(dm, keys, meta, ts, 4, &acts), 0);
	T_EQ_U64(acts.nr, 1);
	T_EQ_U64(acts.at[0], 3);
	T_EQ_U64(acts.off[0], 0);
	T_EQ_U64(acts.off[1], 4);
	for (size_t i = 0; i < acts.nr_keys; i++)
		T_EQ_U64(acts.keys[i], 0);
	hs_damon_get_stats(dm, &st);
	T_EQ_U64(st.aggregations, 10);
	T_EQ_U64(st.nr_hot_regions, 1);
	T_EQ_U64(st.hot_pages, 1);
	T_EQ_U64(st.nr_cold_regions, 4);
	T_EQ_U64(st.cold_pages, 4);
	T_EQ_U64(st.bytes_cold, 4 * 4096);
	T_EQ_U64(st.nr_regions, 1);
	T_EQ_U64(st.pfn_lo, 100);
	T_EQ_U64(st.pfn_hi, 101);
	hs_damon_free(dm);

	/*
	 * The same frame with reads of a key no frame holds: age 1 at 20 ms,
	 * 2 at 40 ms: cold at 40, 80, 120, 160 and 200 ms.
	 */
	T_EQ_I64(hs_damon_new(&a, &pg, 1, 2, &dm), 0);
	T_EQ_I64(hs_damon_feed(dm, (const uint32_t[]){ 1, 1 }, meta,
			       (const uint64_t[]){ 0, 200 * MS }, 2, &acts), 0);
	hs_damon_get_stats(dm, &st);
	T_EQ_U64(st.nr_hot_regions, 0);
	T_EQ_U64(st.nr_cold_regions, 5);
	T_EQ_U64(acts.nr, 1);
	T_EQ_U64(acts.at[0], 1);
	hs_damon_free(dm);
	hs_damon_acts_free(&acts);
}

/*
 * Two idle frames (keys 0 and 1), cold_min_age 0, a quota of one page a
 * second.  At 20 ms the region [100, 102) is cold and twice the quota: it
 * is split at one page and key 0 deactivated (its age starts over: 0, the
 * other half's stays 1); the quota is spent and the next pass is to resume
 * after frame 100.  Two regions are more than
 * max_nr_regions / 2: no split; at 40 ms the halves merge again (both idle,
 * 8 KiB within the limit; ages 1 and 2 make 1).  Nothing more until the quota's reset at 1020 ms,
 * which counts it exceeded once; there the one region is the last, which
 * only ends the resumption (the kernel's damos_skip_charged_region()); at
 * 1040 ms the region is split and key 0 deactivated again.  The records: a
 * key no frame holds, at 0, 100 and 1100 ms.
 */
static void test_quota(void)
{
	const struct hs_damon_page pg[] = { { .pfn = 101, .key = 1 }, { .pfn = 100, .key = 0 } };
	const uint32_t keys[] = { 2, 2, 2 };
	const uint8_t m = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint8_t meta[] = { m, m, m };
	const uint64_t ts[] = { 0, 100 * MS, 1100 * MS };
	struct hs_damon_acts acts = { 0 };
	struct hs_damon_attrs a;
	struct hs_damon_stats st;
	struct hs_damon *dm;

	small_attrs(&a);
	a.cold_min_age_ns = 0;
	a.quota_bytes = 4096;
	T_EQ_I64(hs_damon_new(&a, pg, 2, 3, &dm), 0);
	T_EQ_I64(hs_damon_feed(dm, keys, meta, ts, 3, &acts), 0);
	T_EQ_U64(acts.nr, 2);
	T_EQ_U64(acts.at[0], 1);
	T_EQ_U64(acts.at[1], 2);
	T_EQ_U64(acts.nr_keys, 2);
	T_EQ_U64(acts.keys[0], 0);
	T_EQ_U64(acts.keys[1], 0);
	hs_damon_get_stats(dm, &st);
	T_EQ_U64(st.aggregations, 55);
	T_EQ_U64(st.nr_cold_regions, 2);
	T_EQ_U64(st.bytes_cold, 2 * 4096);
	T_EQ_U64(st.cold_quota_exceeds, 1);
	T_EQ_U64(st.nr_regions, 1);
	hs_damon_free(dm);
	hs_damon_acts_free(&acts);
}

/*
 * Births and deaths: key 0 at frame 100 until 12 ms, key 1 born there at
 * 12 ms.  The check at 15 ms finds a folio allocated since the last one
 * (its idle flag clear): young, though nothing read it; the others see
 * key 0 unread (5, 10 ms) and key 1 unread (20 ms): nr_accesses 1.  And a
 * frame nobody holds reads idle: with key 1 dead at 30 ms the checks at
 * 35 and 40 ms see nothing.
 */
static void test_births(void)
{
	const struct hs_damon_page pg[] = {
		{ .pfn = 100, .key = 0, .died_ns = 12 * MS },
		{ .pfn = 100, .key = 1, .born_ns = 12 * MS, .died_ns = 30 * MS },
	};
	const uint32_t keys[] = { 2, 2 };
	const uint8_t m = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint8_t meta[] = { m, m };
	const uint64_t ts[] = { 0, 41 * MS };
	struct hs_damon_acts acts = { 0 };
	struct hs_damon_attrs a;
	struct hs_damon_stats st;
	struct hs_damon *dm;

	small_attrs(&a);
	/* hot at 1 of 4: the first aggregation's one access makes it hot */
	a.hot_thres_permil = 250;
	a.cold_min_age_ns = 1000 * MS;
	T_EQ_I64(hs_damon_new(&a, pg, 2, 3, &dm), 0);
	T_EQ_I64(hs_damon_feed(dm, keys, meta, ts, 2, &acts), 0);
	hs_damon_get_stats(dm, &st);
	T_EQ_U64(st.aggregations, 2);
	T_EQ_U64(st.nr_hot_regions, 1);		/* 20 ms: nr_accesses 1 */
	T_EQ_U64(st.hot_pages, 1);		/* key 1 */
	T_EQ_U64(st.nr_cold_regions, 0);
	hs_damon_free(dm);
	hs_damon_acts_free(&acts);
}

static void test_refusals(void)
{
	const struct hs_damon_page pg = { .pfn = 100, .key = 5 };
	struct hs_damon_attrs a;
	struct hs_damon *dm = (struct hs_damon *)&a;

	small_attrs(&a);
	T_EQ_I64(hs_damon_new(&a, &pg, 1, 5, &dm), -EINVAL);	/* no page with a key */
	T_ASSERT(dm == NULL);
	a.max_nr_regions = 2;
	T_EQ_I64(hs_damon_new(&a, &pg, 1, 6, &dm), -EINVAL);
	small_attrs(&a);
	a.aggr_ns = a.sample_ns - 1;
	T_EQ_I64(hs_damon_new(&a, &pg, 1, 6, &dm), -EINVAL);
}

/*
 * The kernel's own actions (--damon-model recorded): four pages at frames
 * 10..13 (keys 0..3), key 1's life ends at 120 ms and key 4 is born in its
 * frame 11 at 130 ms.  Records at 100, 200 and 300 ms.  Actions, in time
 * order: cold on frames 10..11 at 90 ms (keys 0 and 1, before record 0);
 * cold on the same bytes at 150 ms (keys 0 and 4 now: 1 died, 4 was born
 * in its frame; before record 1); hot on frames 12..13 at 160 ms (counted,
 * not applied); a third context's scheme (index 2) at 170 ms and an empty
 * region at 180 ms (ignored); cold on 13..15 at 250 ms, beyond the space
 * after frame 13 (key 3 alone; before record 2); cold at 400 ms, after the
 * last record (not reached).
 */
static void test_recorded(void)
{
	const struct hs_damon_page pg[] = {
		{ .pfn = 10, .key = 0 },
		{ .pfn = 11, .key = 1, .died_ns = 120 * MS },
		{ .pfn = 12, .key = 2 },
		{ .pfn = 13, .key = 3 },
		{ .pfn = 11, .key = 4, .born_ns = 130 * MS },
	};
	const struct hs_damon_act ra[] = {
		{ .ts_ns = 90 * MS, .start = 10 * 4096, .end = 12 * 4096, .scheme = 1 },
		{ .ts_ns = 150 * MS, .start = 10 * 4096, .end = 12 * 4096, .scheme = 1 },
		{ .ts_ns = 160 * MS, .start = 12 * 4096, .end = 14 * 4096, .scheme = 0 },
		{ .ts_ns = 170 * MS, .start = 10 * 4096, .end = 14 * 4096, .scheme = 2 },
		{ .ts_ns = 180 * MS, .start = 12 * 4096, .end = 12 * 4096, .scheme = 1 },
		{ .ts_ns = 250 * MS, .start = 13 * 4096, .end = 16 * 4096, .scheme = 1 },
		{ .ts_ns = 400 * MS, .start = 10 * 4096, .end = 14 * 4096, .scheme = 1 },
	};
	const uint32_t keys[] = { 0, 2, 3 };
	const uint8_t m = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint8_t meta[] = { m, m, m };
	const uint64_t ts[] = { 100 * MS, 200 * MS, 300 * MS };
	struct hs_damon_acts acts = { 0 };
	struct hs_damon_attrs a;
	struct hs_damon_stats st;
	struct hs_damon *dm;

	small_attrs(&a);
	T_EQ_I64(hs_damon_new(&a, pg, sizeof(pg) / sizeof(pg[0]), 5, &dm), 0);
	if (!dm)
		return;
	T_EQ_I64(hs_damon_set_recorded(dm, ra, sizeof(ra) / sizeof(ra[0])), 0);
	T_EQ_I64(hs_damon_feed(dm, keys, meta, ts, 3, &acts), 0);
	T_EQ_U64(acts.nr, 3);
	if (acts.nr == 3) {
		T_EQ_U64(acts.at[0], 0);
		T_EQ_U64(acts.at[1], 1);
		T_EQ_U64(acts.at[2], 2);
		T_EQ_U64(acts.off[0], 0);
		T_EQ_U64(acts.off[1], 2);
		T_EQ_U64(acts.off[2], 4);
		T_EQ_U64(acts.off[3], 5);
		T_EQ_U64(acts.keys[0], 0);
		T_EQ_U64(acts.keys[1], 1);
		T_EQ_U64(acts.keys[2], 0);
		T_EQ_U64(acts.keys[3], 4);
		T_EQ_U64(acts.keys[4], 3);
	}
	hs_damon_get_stats(dm, &st);
	T_EQ_U64(st.aggregations, 0);
	T_EQ_U64(st.nr_cold_regions, 3);
	T_EQ_U64(st.bytes_cold, (2 + 2 + 3) * 4096);
	T_EQ_U64(st.cold_pages, 5);
	T_EQ_U64(st.nr_hot_regions, 1);
	T_EQ_U64(st.bytes_hot, 2 * 4096);
	T_EQ_U64(st.hot_pages, 2);
	hs_damon_free(dm);
	hs_damon_acts_free(&acts);
}

static const struct t_case cases[] = {
	{ "recorded", test_recorded },
	{ "one-frame", test_one_frame },
	{ "quota", test_quota },
	{ "births", test_births },
	{ "refusals", test_refusals },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
