/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The prefetching replay is the plain one, counter for counter.
 *
 * hs_sim_run() steps a run of records while it prefetches the records of
 * keys ahead and lets the policy prefetch what its hooks will touch
 * (ops->prefetch); cfg.no_prefetch turns both off.  Prefetches may only read,
 * so for every registered policy, on random streams (uniform and skewed
 * accesses, hints and drops, readahead insertions), at several capacities and
 * pageout modes, three replays must end with the same statistics, every
 * field, and the same policy metrics:
 *
 *   step      hs_sim_step() record by record (the reference);
 *   plain     hs_sim_run() with cfg.no_prefetch, in uneven runs of records;
 *   prefetch  hs_sim_run() with prefetching, the policy's hook included
 *             (cfg.policy_prefetch), in the same uneven runs (runs shorter
 *             and longer than the prefetch distances, so the ends of a run,
 *             where nothing is left to fetch ahead, are crossed);
 *   fast      hs_sim_run() as a replay runs it: these runs' records fit in
 *             L2, so without the policy's hook, and their plain hits through
 *             the driver's fast path (step_hit() in lib/sim.c), which the
 *             recheck pageout mode turns off.
 *
 * And a key out of range fails hs_sim_run() with -EINVAL at that record, as
 * hs_sim_step() does.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "harness.h"
#include "hs.h"
#include "policy.h"
#include "sim.h"

struct stream {
	uint32_t	*keys;
	uint8_t		*meta;
	uint64_t	*next;
	size_t		n;
	uint32_t	nr_keys;
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

enum shape { SH_UNIFORM, SH_SKEWED, SH_MIXED, SH_READAHEAD, SH_NR };

static const char *const shape_names[SH_NR] = { "uniform", "skewed", "hints+drops", "readahead" };

static int make_stream(struct stream *s, enum shape sh, size_t n, uint32_t nr_keys, uint64_t seed)
{
	size_t i;

	s->n = n;
	s->nr_keys = nr_keys;
	s->keys = calloc(n, sizeof(*s->keys));
	s->meta = calloc(n, sizeof(*s->meta));
	s->next = calloc(n, sizeof(*s->next));
	if (!s->keys || !s->meta || !s->next)
		return -ENOMEM;
	rng_state = seed;
	for (i = 0; i < n; i++) {
		enum hs_channel ch = (rng() & 1) ? HS_CH_PT : HS_CH_FD;
		uint32_t k;

		if (sh == SH_UNIFORM)
			k = (uint32_t)(rng() % nr_keys);
		else	/* squares of uniforms: a heavy head, a long tail */
			k = (uint32_t)(((rng() % nr_keys) * (rng() % nr_keys)) / nr_keys);
		if (sh == SH_MIXED) {
			switch (rng() % 16) {
			case 0:
				ch = HS_CH_PAGEOUT;
				break;
			case 1:
				ch = HS_CH_COLD;
				break;
			case 2:
				ch = HS_CH_DROP;
				break;
			}
		} else if (sh == SH_READAHEAD) {
			switch (rng() % 8) {
			case 0:
			case 1:
				ch = HS_CH_READAHEAD;
				break;
			case 2:
				if (rng() % 4 == 0)
					ch = HS_CH_DROP;
				break;
			}
		}
		s->keys[i] = k;
		s->meta[i] = hs_meta_make(ch, (rng() & 3) ? HS_TYPE_FILE : HS_TYPE_ANON, rng() & 1);
	}
	return hs_next_use_fill(s->keys, s->meta, n, nr_keys, s->next);
}

static void free_stream(struct stream *s)
{
	free(s->keys);
	free(s->meta);
	free(s->next);
}

enum mode { M_STEP, M_PLAIN, M_PREFETCH, M_FAST, M_NR };

/* hs_sim_config.time_bits of the replays (0: the default, 32) */
static uint8_t time_bits;

/* Uneven run lengths: 1, 2, 5 and 13 records, then 3000, over and over. */
static size_t run_len(size_t call)
{
	static const size_t lens[] = { 1, 2, 5, 13, 3000 };

	return lens[call % (sizeof(lens) / sizeof(lens[0]))];
}

static int replay(const struct hs_policy_ops *ops, const struct stream *s, uint64_t capacity,
		  uint8_t pageout, enum mode mode, struct hs_sim_stats *st, struct hs_metrics *m)
{
	struct hs_sim_config cfg = {
		.ops = ops, .capacity = capacity, .nr_keys = s->nr_keys,
		.pageout = pageout, .recheck_window = 50,
		.no_prefetch = mode == M_PLAIN, .policy_prefetch = mode == M_PREFETCH,
		.time_bits = time_bits,
	};
	const uint64_t *next = (ops->flags & HS_POLICY_NEEDS_FUTURE) ? s->next : NULL;
	struct hs_sim *sim;
	size_t i = 0, call = 0;
	int ret;

	ret = hs_sim_new(&cfg, &sim);
	if (ret)
		return ret;
	while (i < s->n && ret >= 0) {
		size_t len = HS_MIN(run_len(call++), s->n - i);

		if (mode == M_STEP) {
			for (size_t j = i; j < i + len && ret >= 0; j++)
				ret = hs_sim_step(sim, s->keys[j], s->meta[j],
						  next ? next[j] : HS_NEVER);
		} else {
			ret = hs_sim_run(sim, s->keys + i, s->meta + i, next ? next + i : NULL, len);
		}
		i += len;
	}
	if (ret >= 0) {
		ret = hs_sim_check(sim);
		hs_sim_finish(sim, st, m);
	}
	hs_sim_free(sim);
	return ret < 0 ? ret : 0;
}

/* Every counter of a and b; false (and a message naming the first difference) if any differs. */
static bool same_stats(const struct hs_sim_stats *a, const struct hs_sim_stats *b,
		       const char *what)
{
#define SAME(field) do { \
	if (a->field != b->field) { \
		fprintf(stderr, "  %s: %s %" PRIu64 " != %" PRIu64 "\n", what, #field, \
			(uint64_t)a->field, (uint64_t)b->field); \
		return false; \
	} \
} while (0)
	SAME(capacity); SAME(records); SAME(accesses); SAME(hits); SAME(misses);
	SAME(cold_misses); SAME(evictions); SAME(refaults); SAME(hint_evictions);
	SAME(hint_refaults); SAME(hints); SAME(drops); SAME(pswpout); SAME(pswpin);
	SAME(pingpong_keys); SAME(pingpong_refaults); SAME(distinct_keys); SAME(peak_resident);
	SAME(readahead_pages); SAME(readahead_unused);
	SAME(prot.total); SAME(prot.useful); SAME(prot.wasted);
	for (int k = 0; k < HS_PROT_NR; k++) {
		SAME(prot_kind[k].total); SAME(prot_kind[k].useful); SAME(prot_kind[k].wasted);
	}
	for (int h = 0; h < HS_HIST_BUCKETS; h++)
		SAME(refault_hist[h]);
#undef SAME
	/* the same integer sum over the same count: equal to the last bit */
	if (a->prot_occupancy != b->prot_occupancy) {
		fprintf(stderr, "  %s: prot_occupancy %.17g != %.17g\n", what, a->prot_occupancy,
			b->prot_occupancy);
		return false;
	}
	return true;
}

static bool same_metrics(const struct hs_metrics *a, const struct hs_metrics *b, const char *what)
{
	if (a->n != b->n) {
		fprintf(stderr, "  %s: %zu metrics != %zu\n", what, a->n, b->n);
		return false;
	}
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->m[i].name, b->m[i].name) || a->m[i].value != b->m[i].value) {
			fprintf(stderr, "  %s: metric %s %.17g != %s %.17g\n", what, a->m[i].name,
				a->m[i].value, b->m[i].name, b->m[i].value);
			return false;
		}
	return true;
}

static void same_counters(void)
{
	static const uint32_t nr_keys = 2000;
	static const uint64_t capacities[] = { 1, 37, 400, 2000 };
	size_t runs = 0;

	for (enum shape sh = 0; sh < SH_NR; sh++) {
		struct stream s;

		T_EQ_I64(make_stream(&s, sh, 20000, nr_keys, 1000 + sh), 0);
		for (size_t p = 0; p < hs_policy_count(); p++) {
			const struct hs_policy_ops *ops = hs_policy_at(p);

			for (size_t c = 0; c < sizeof(capacities) / sizeof(capacities[0]); c++) {
				/* the pageout modes matter only where hints are */
				uint8_t modes = sh == SH_MIXED ? HS_PAGEOUT_NR : 1;

				for (uint8_t pm = 0; pm < modes; pm++) {
					struct hs_sim_stats st[M_NR];
					struct hs_metrics m[M_NR];
					char what[128];

					memset(st, 0, sizeof(st));
					snprintf(what, sizeof(what), "%s on %s at %" PRIu64 ", pageout %s",
						 ops->name, shape_names[sh], capacities[c],
						 hs_pageout_mode_name(pm));
					for (enum mode md = M_STEP; md < M_NR; md++)
						if (replay(ops, &s, capacities[c], pm, md, &st[md],
							   &m[md])) {
							t_fail(__FILE__, __LINE__, "%s: mode %d failed",
							       what, md);
							goto next;
						}
					T_ASSERT(same_stats(&st[M_STEP], &st[M_PLAIN], what));
					T_ASSERT(same_stats(&st[M_STEP], &st[M_PREFETCH], what));
					T_ASSERT(same_metrics(&m[M_STEP], &m[M_PLAIN], what));
					T_ASSERT(same_metrics(&m[M_STEP], &m[M_PREFETCH], what));
					T_ASSERT(same_stats(&st[M_STEP], &st[M_FAST], what));
					T_ASSERT(same_metrics(&m[M_STEP], &m[M_FAST], what));
					/* not vacuous: the runs did something */
					T_EQ_U64(st[M_PREFETCH].records, 20000);
					T_EQ_U64(st[M_FAST].records, 20000);
					runs++;
next:
					;
				}
			}
		}
		free_stream(&s);
	}
	/* 14 policies x 4 capacities x (3 shapes + 3 pageout modes) */
	T_EQ_U64(runs, hs_policy_count() * 4 * 6);
}

static void test_same_counters(void)
{
	time_bits = 0;
	same_counters();
}

/*
 * The same with times of 6 bits: ages of 32 accesses and more are ancient,
 * swept every 32, so that the driver's fast paths meet refaults of both
 * kinds (lib/sim.c, list_rec()'s bucket of an ancient distance).
 */
static void test_same_counters_ancient(void)
{
	time_bits = 6;
	same_counters();
	time_bits = 0;
}

/* A bad key stops hs_sim_run() where hs_sim_step() stops, with the same error. */
static void test_bad_key(void)
{
	const struct hs_policy_ops *ops = hs_policy_find("lru");
	struct hs_sim_config cfg = { .ops = ops, .capacity = 4, .nr_keys = 10 };
	uint32_t keys[40];
	uint8_t meta[40];
	struct hs_sim *sim;
	struct hs_sim_stats st;

	for (int i = 0; i < 40; i++) {
		keys[i] = (uint32_t)(i % 7);
		meta[i] = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	}
	keys[30] = 10;		/* out of range: prefetched past, refused when stepped */
	T_EQ_I64(hs_sim_new(&cfg, &sim), 0);
	T_EQ_I64(hs_sim_run(sim, keys, meta, NULL, 40), -EINVAL);
	hs_sim_finish(sim, &st, NULL);
	T_EQ_U64(st.records, 30);	/* records 0..29 were stepped, 30 refused */
	/* LRU with room for 4 misses on every access of a 7-key loop */
	T_EQ_U64(st.misses, 30);
	T_EQ_U64(st.cold_misses, 7);
	T_EQ_U64(st.hits, 0);
	hs_sim_free(sim);

	/* room for all 7: hits from record 7 on, through the fast path, up to the bad key */
	cfg.capacity = 7;
	T_EQ_I64(hs_sim_new(&cfg, &sim), 0);
	T_EQ_I64(hs_sim_run(sim, keys, meta, NULL, 40), -EINVAL);
	hs_sim_finish(sim, &st, NULL);
	T_EQ_U64(st.records, 30);
	T_EQ_U64(st.misses, 7);
	T_EQ_U64(st.hits, 23);
	hs_sim_free(sim);
}

static const struct t_case cases[] = {
	{ "same-counters", test_same_counters },
	{ "same-counters-ancient", test_same_counters_ancient },
	{ "bad-key", test_bad_key },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
