/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hierarchical bitmap (lib/hbits.h) against a plain array of flags, and
 * OPT (policies/opt.c), which keeps its next uses in one from 128 Ki
 * resident keys on and in a heap below, against a naive MIN written here:
 * every victim of every step, on random streams, both queues (the threshold
 * moved), with the keys by access supplied (as the replay does), not
 * supplied (OPT keeps its own), and supplied too short (OPT must switch to
 * its own copy).  Then OPT through the replay of a stored session, which
 * steps through the stream its next-use pass kept or reads the store again.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "hs.h"
#include "harness.h"
#include "hbits.h"
#include "policy.h"
#include "replay.h"
#include "sim.h"
#include "store.h"

/* policies/opt.c: min(capacity, keys) from which OPT uses the bitmap, not the heap */
extern uint64_t hs_opt_bitmap_min;

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Random set/clear against flags; max, min, test and count after every step. */
static void test_hbits_random(void)
{
	static const uint64_t bounds[] = { 1, 63, 64, 65, 4095, 4096, 4097, 300000 };

	for (size_t k = 0; k < ARRAY_SIZE(bounds); k++) {
		uint64_t bound = bounds[k], steps = bound < 5000 ? 20000 : 200000, n = 0;
		bool *flag = calloc(bound + 1, sizeof(*flag));
		struct hs_hbits b;

		if (!flag || hs_hbits_init(&b, bound)) {
			t_fail(__FILE__, __LINE__, "no memory");
			free(flag);
			return;
		}
		for (uint64_t s = 0; s < steps; s++) {
			/* mostly near one end, so that max/min move and words empty */
			uint64_t i = rnd(4) ? rnd(bound) : bound - 1 - rnd(bound < 70 ? bound : 70);
			uint64_t mx = HS_HBITS_NONE, mn = HS_HBITS_NONE;

			if (flag[i])
				hs_hbits_clear(&b, i);
			else
				hs_hbits_set(&b, i);
			flag[i] = !flag[i];
			n += flag[i] ? 1 : (uint64_t)-1;
			if (s % 97)
				continue;
			for (uint64_t j = 0; j < bound; j++)
				if (flag[j]) {
					mx = j;
					if (mn == HS_HBITS_NONE)
						mn = j;
				}
			T_EQ_U64(hs_hbits_max(&b), mx);
			T_EQ_U64(hs_hbits_min(&b), mn);
			T_EQ_U64(hs_hbits_count(&b), n);
			T_EQ_U64(hs_hbits_test(&b, i), flag[i]);
		}
		hs_hbits_release(&b);
		free(flag);
	}
}

/* Growth keeps the members and the levels above them. */
static void test_hbits_grow(void)
{
	struct hs_hbits b;

	T_EQ_I64(hs_hbits_init(&b, 0), -EINVAL);
	T_EQ_I64(hs_hbits_init(&b, 100), 0);
	hs_hbits_set(&b, 3);
	hs_hbits_set(&b, 99);
	T_EQ_I64(hs_hbits_grow(&b, 50), 0);		/* smaller: nothing to do */
	T_EQ_U64(b.bound, 100);
	T_EQ_I64(hs_hbits_grow(&b, 1000000), 0);
	T_EQ_U64(b.levels, 4);				/* 15,625 / 245 / 4 / 1 words */
	T_EQ_U64(hs_hbits_max(&b), 99);
	T_EQ_U64(hs_hbits_min(&b), 3);
	hs_hbits_set(&b, 999999);
	T_EQ_U64(hs_hbits_max(&b), 999999);
	hs_hbits_clear(&b, 999999);
	hs_hbits_clear(&b, 99);
	T_EQ_U64(hs_hbits_max(&b), 3);
	hs_hbits_clear(&b, 3);
	T_EQ_U64(hs_hbits_max(&b), HS_HBITS_NONE);
	T_EQ_U64(hs_hbits_min(&b), HS_HBITS_NONE);
	T_EQ_U64(hs_hbits_count(&b), 0);
	hs_hbits_release(&b);
}

/*
 * Naive MIN: resident keys with their next uses in a flat array; the victim
 * is the farthest next use, lower id first among keys never used again.
 * Bypass refuses a miss when full and its next use is no sooner than every
 * resident key's.  Returns the victim, UINT32_MAX for none.
 */
struct naive {
	uint32_t	*id;
	uint64_t	*nu;
	size_t		n, cap;
	bool		bypass;
};

static uint32_t naive_step(struct naive *m, uint32_t key, uint64_t nu, bool *hit)
{
	size_t i, v = 0;
	uint32_t out;

	for (i = 0; i < m->n; i++)
		if (m->id[i] == key) {
			m->nu[i] = nu;
			*hit = true;
			return UINT32_MAX;
		}
	*hit = false;
	if (m->n < m->cap) {
		m->id[m->n] = key;
		m->nu[m->n++] = nu;
		return UINT32_MAX;
	}
	for (i = 1; i < m->n; i++)
		if (m->nu[i] > m->nu[v] || (m->nu[i] == m->nu[v] && m->id[i] < m->id[v]))
			v = i;
	if (m->bypass && nu >= m->nu[v])
		return UINT32_MAX;
	out = m->id[v];
	m->id[v] = key;
	m->nu[v] = nu;
	return out;
}

/* One stream through OPT three ways (keys by access: none, all, too few) and naive MIN. */
static void opt_vs_naive(const uint32_t *keys, size_t n, uint32_t nr_keys, uint64_t capacity,
			 bool bypass, const uint64_t *given)
{
	uint8_t *meta = calloc(n, 1);
	uint64_t *next = calloc(n, sizeof(*next));
	struct hs_param_set *ps = NULL;
	const struct hs_policy_ops *opt = hs_policy_find("opt");

	if (!meta || !next || hs_param_set_new(opt->params, &ps) ||
	    hs_param_set_parse(ps, "bypass", bypass ? "true" : "false", NULL, 0) ||
	    hs_next_use_fill(keys, meta, n, nr_keys, next)) {
		t_fail(__FILE__, __LINE__, "setup");
		goto out;
	}
	if (given)
		memcpy(next, given, n * sizeof(*next));
	for (int way = 0; way < (given ? 1 : 3); way++) {
		struct hs_sim_config cfg = {
			.ops = opt, .params = ps, .capacity = capacity, .nr_keys = nr_keys,
			.paranoid = true, .record_victims = true,
		};
		struct naive m = { .cap = capacity, .bypass = bypass };
		struct hs_sim *sim;

		m.id = calloc(capacity, sizeof(*m.id));
		m.nu = calloc(capacity, sizeof(*m.nu));
		if (!m.id || !m.nu || hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			free(m.id);
			free(m.nu);
			goto out;
		}
		/* as the replay does, after create(), for the runs that asked */
		if (way && hs_sim_wants_seq_keys(sim))
			hs_sim_set_seq_keys(sim, keys, way == 2 ? n / 3 + 1 : n);
		for (size_t i = 0; i < n; i++) {
			bool hit;
			uint32_t want = naive_step(&m, keys[i], next[i], &hit);
			const uint32_t *ids;
			int ret = hs_sim_step(sim, keys[i], 0, next[i]);
			size_t nv;

			T_EQ_I64(ret, hit ? HS_STEP_HIT : HS_STEP_MISS);
			nv = hs_sim_victims(sim, &ids);
			T_EQ_U64(nv, want == UINT32_MAX ? 0 : 1);
			if (nv == 1 && want != UINT32_MAX && ids[0] != want) {
				t_fail(__FILE__, __LINE__, "way %d step %zu: victim %u, naive MIN %u",
				       way, i, ids[0], want);
				break;
			}
			if (ret < 0)
				break;
		}
		T_EQ_I64(hs_sim_check(sim), 0);
		hs_sim_free(sim);
		free(m.id);
		free(m.nu);
	}
out:
	hs_param_set_free(ps);
	free(meta);
	free(next);
}

static void test_opt_random(void)
{
	uint64_t saved = hs_opt_bitmap_min;

	for (int t = 0; t < 400; t++) {
		uint32_t nr_keys = 1 + (uint32_t)rnd(40);
		size_t n = 1 + rnd(t < 300 ? 300 : 5000);
		uint32_t *keys = malloc(n * sizeof(*keys));

		if (!keys) {
			t_fail(__FILE__, __LINE__, "no memory");
			return;
		}
		for (size_t i = 0; i < n; i++)	/* skewed: low ids often */
			keys[i] = (uint32_t)(rnd(2) ? rnd(1 + rnd(nr_keys)) : rnd(nr_keys));
		hs_opt_bitmap_min = t & 2 ? 0 : UINT64_MAX;
		opt_vs_naive(keys, n, nr_keys, 1 + rnd(nr_keys), t & 1, NULL);
		free(keys);
	}
	hs_opt_bitmap_min = saved;
}

/*
 * Next uses that are not the stream's (in the past, shared, HS_NEVER at
 * random): the heap's lazy entries lean on true next uses to drop stale
 * ones unseen, and must notice when they are not and still take the
 * farthest stated next use, as the naive MIN does.  With @wide, next uses
 * from 2^32 - 1 on come among the small ones: the heap's keys go wide
 * (policies/opt.c, struct opt_ent) at the first, mid-run.
 */
static void opt_heap_next(bool wide)
{
	uint64_t saved = hs_opt_bitmap_min;

	hs_opt_bitmap_min = UINT64_MAX;
	for (int t = 0; t < 200; t++) {
		uint32_t nr_keys = 1 + (uint32_t)rnd(40);
		size_t n = 1 + rnd(3000);
		uint32_t *keys = malloc(n * sizeof(*keys));
		uint64_t *next = malloc(n * sizeof(*next));

		if (!keys || !next) {
			t_fail(__FILE__, __LINE__, "no memory");
			free(keys);
			free(next);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			keys[i] = (uint32_t)(rnd(2) ? rnd(1 + rnd(nr_keys)) : rnd(nr_keys));
			next[i] = rnd(8) ? rnd(2 * n) : HS_NEVER;
			if (wide && next[i] != HS_NEVER && i > n / 2 && rnd(4) == 0)
				next[i] += UINT32_MAX - 2;
		}
		opt_vs_naive(keys, n, nr_keys, 1 + rnd(nr_keys), t & 1, next);
		free(keys);
		free(next);
	}
	hs_opt_bitmap_min = saved;
}

static void test_opt_heap_any_next(void)
{
	opt_heap_next(false);
}

static void test_opt_heap_wide_next(void)
{
	opt_heap_next(true);
}

/*
 * OPT through hs_replay_session() over a stored session of three chunks and
 * more, with lru beside it, against naive MIN's misses and lru's alone: the
 * stream kept in seq_keys (the bitmap), in an array of its own
 * (the default), or read again (the heap with reread_stream; a meta byte
 * that varies; a hint record, which takes the chains' pass), on one thread
 * and two.  Writes change no hit or miss; the hint's run is checked against
 * the same run with every way of reading.
 */
static void test_opt_replay(void)
{
	enum { N = 3 * 65536 + 1234, KEYS = 3000, CAP = 50 };
	static const struct hs_session_meta gen = { .source = "gen", .format = "text" };
	const uint8_t rd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint8_t wr = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, true);
	const uint8_t hint = hs_meta_make(HS_CH_PAGEOUT, HS_TYPE_FILE, false);
	uint64_t saved = hs_opt_bitmap_min, want = 0, lru_misses = 0, hint_misses = 0;
	uint32_t *keys = malloc(N * sizeof(*keys)), *last = malloc(KEYS * sizeof(*last));
	uint64_t *next = malloc(N * sizeof(*next));
	struct naive m = { .cap = CAP };
	struct hs_store *st = NULL;
	int64_t id[3] = { 0, 0, 0 };

	m.id = calloc(CAP, sizeof(*m.id));
	m.nu = calloc(CAP, sizeof(*m.nu));
	if (!keys || !last || !next || !m.id || !m.nu) {
		t_fail(__FILE__, __LINE__, "no memory");
		goto out;
	}
	for (size_t i = 0; i < N; i++)
		keys[i] = (uint32_t)(rnd(2) ? rnd(1 + rnd(KEYS)) : rnd(KEYS));
	for (size_t i = 0; i < KEYS; i++)
		last[i] = UINT32_MAX;
	for (size_t i = N; i-- > 0;) {
		next[i] = last[keys[i]] == UINT32_MAX ? HS_NEVER : last[keys[i]];
		last[keys[i]] = (uint32_t)i;
	}
	for (size_t i = 0; i < N; i++) {
		bool hit;

		naive_step(&m, keys[i], next[i], &hit);
		want += !hit;
	}

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		goto out;
	/* 0: reads; 1: every fifth a write; 2: reads and a hint in the second chunk */
	for (int v = 0; v < 3; v++) {
		struct hs_session_writer *w = NULL;

		T_EQ_I64(hs_session_begin(st, &gen, &w), 0);
		if (!w)
			goto out;
		for (size_t i = 0; i < N; i++) {
			T_EQ_I64(hs_session_add(w, keys[i], v == 1 && i % 5 == 0 ? wr : rd), 0);
			if (v == 2 && i == 70000)
				T_EQ_I64(hs_session_add(w, keys[i], hint), 0);
		}
		T_EQ_I64(hs_session_commit(w, &id[v]), 0);
	}
	for (int t = 0; t < 24; t++) {
		int v = t % 3;
		bool bitmap = t / 3 % 2, keep = t / 6 % 2;
		struct hs_replay_opts o = { .threads = 1 + (unsigned int)(t / 12),
					    .reread_stream = !keep };
		struct hs_replay_job job[2] = {
			{ .ops = hs_policy_find("opt"), .capacity = CAP },
			{ .ops = hs_policy_find("lru"), .capacity = CAP },
		};

		hs_opt_bitmap_min = bitmap ? 0 : UINT64_MAX;
		T_EQ_I64(hs_replay_session(st, id[v], job, 2, &o), 0);
		T_EQ_I64(job[0].err, 0);
		T_EQ_I64(job[1].err, 0);
		if (v == 2) {
			if (!hint_misses)
				hint_misses = job[0].stats.misses;
			T_EQ_U64(job[0].stats.misses, hint_misses);
		} else {
			T_EQ_U64(job[0].stats.misses, want);
			if (!lru_misses)
				lru_misses = job[1].stats.misses;
			T_EQ_U64(job[1].stats.misses, lru_misses);
		}
		free(job[0].gens);
		free(job[1].gens);
	}
	T_EQ_I64(hint_misses > 0, 1);
	T_EQ_I64(lru_misses > want, 1);
out:
	hs_opt_bitmap_min = saved;
	hs_store_close(st);
	free(keys);
	free(last);
	free(next);
	free(m.id);
	free(m.nu);
}

static const struct t_case cases[] = {
	{ "hbits-random", test_hbits_random },
	{ "hbits-grow", test_hbits_grow },
	{ "opt-random", test_opt_random },
	{ "opt-heap-any-next", test_opt_heap_any_next },
	{ "opt-heap-wide-next", test_opt_heap_wide_next },
	{ "opt-replay", test_opt_replay },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
