/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Miss-ratio curves from one pass (analyzers/optstack.c, analyzers/stackdist.c
 * and the size grids of analyzers/mrc.c).  The OPT stack's distances by hand
 * on tiny sequences (the stack written beside each step), against a naive
 * array version of Mattson's update kept in this file, and the check that
 * matters: the OPT policy (demand variant) and the LRU policy run through
 * the driver hit exactly as often as the one-pass curves say at EVERY
 * capacity from 1 to past the number of keys, on random streams of several
 * shapes; and against a second model that reads only the past (a stack of
 * time points, the essay's "view from the past").  Then the size grids:
 * counts, percentages, memory sizes, linear and log-spaced ranges, with
 * their numbers written out; and the one-pass curves of a stored session.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "analyzer.h"
#include "harness.h"
#include "hs.h"
#include "mrc.h"
#include "policy.h"
#include "sim.h"
#include "store.h"

#define COLD	HS_STACKDIST_COLD

/* An in-memory access stream (every record a PT access). */
struct stream {
	uint32_t	*keys;
	uint8_t		*meta;
	uint64_t	*next;		/* hs_next_use_fill() */
	size_t		n;
	uint32_t	nr_keys;
};

static void stream_free(struct stream *s)
{
	free(s->keys);
	free(s->meta);
	free(s->next);
	memset(s, 0, sizeof(*s));
}

static int stream_alloc(struct stream *s, size_t n, uint32_t nr_keys)
{
	memset(s, 0, sizeof(*s));
	s->keys = calloc(n ? n : 1, sizeof(*s->keys));
	s->meta = calloc(n ? n : 1, 1);
	s->next = calloc(n ? n : 1, sizeof(*s->next));
	s->n = n;
	s->nr_keys = nr_keys;
	if (!s->keys || !s->meta || !s->next) {
		stream_free(s);
		return -ENOMEM;
	}
	memset(s->meta, HS_CH_PT, n);
	return 0;
}

static int stream_finish(struct stream *s)
{
	return hs_next_use_fill(s->keys, s->meta, s->n, s->nr_keys, s->next);
}

/* 'a'..'z' are keys 0..25. */
static int stream_parse(struct stream *s, const char *seq)
{
	size_t i, n = strlen(seq);

	if (stream_alloc(s, n, 26))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->keys[i] = (uint32_t)(seq[i] - 'a');
	return stream_finish(s);
}

/* Feed the OPT stack; dists (may be NULL) receives every access's distance. */
static struct hs_optstack *opt_run(const struct stream *s, uint64_t *dists)
{
	struct hs_optstack *os;
	uint64_t d;
	int ret;

	ret = hs_optstack_new(s->nr_keys, &os);
	if (ret) {
		t_fail(__FILE__, __LINE__, "hs_optstack_new: %s", strerror(-ret));
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		ret = hs_optstack_access(os, s->keys[i], &d);
		if (ret) {
			t_fail(__FILE__, __LINE__, "access %zu: %s", i, strerror(-ret));
			hs_optstack_free(os);
			return NULL;
		}
		if (dists)
			dists[i] = d;
	}
	return os;
}

/* Hits of a policy through the driver (UINT64_MAX on failure). */
static uint64_t policy_hits(const char *name, const struct stream *s, uint64_t capacity)
{
	struct hs_sim_config cfg = {
		.ops = hs_policy_find(name), .capacity = capacity, .nr_keys = s->nr_keys,
	};
	struct hs_sim_stats st;
	struct hs_sim *sim;
	int ret;

	if (!cfg.ops || hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "cannot run %s at %" PRIu64, name, capacity);
		return UINT64_MAX;
	}
	for (size_t i = 0; i < s->n; i++) {
		ret = hs_sim_step(sim, s->keys[i], s->meta[i], s->next[i]);
		if (ret < 0) {
			t_fail(__FILE__, __LINE__, "%s at %" PRIu64 ": record %zu: %s", name,
			       capacity, i, strerror(-ret));
			hs_sim_free(sim);
			return UINT64_MAX;
		}
	}
	hs_sim_finish(sim, &st, NULL);
	hs_sim_free(sim);
	return st.hits;
}

/*
 * a b c a b d a, by hand.  Next uses: a@0 -> 3, b@1 -> 4, c never, a@3 -> 6,
 * b@4 never, d never, a@6 never.  Stack top first, next use in brackets:
 *   a  cold   a(3)
 *   b  cold   b(4) a(3)             carried a(3): nothing later above slot 2
 *   c  cold   c(-) a(3) b(4)        carried b(4) passes a(3), takes slot 3
 *   a  2      a(6) c(-) b(4)        carried c(never) stops at once
 *   b  3      b(-) a(6) c(-)        carried a(6) meets c(never) at 2: c moves on
 *   d  cold   d(-) a(6) c(-) b(-)
 *   a  2
 * MIN by hand at 2: m m m(evict b, needed at 4 after a at 3) h m(evict c)
 * m(evict b) h = 2 hits; at 3: m m m h h m h = 3; at 1: 0 (no key repeats at
 * once).  LRU has 0 hits at 2.
 */
static void test_hand_abcabda(void)
{
	static const uint64_t want[] = { COLD, COLD, COLD, 2, 3, COLD, 2 };
	uint64_t got[ARRAY_SIZE(want)], curve[5];
	struct hs_optstack *os;
	struct stream s;

	if (stream_parse(&s, "abcabda")) {
		t_fail(__FILE__, __LINE__, "setup");
		return;
	}
	os = opt_run(&s, got);
	if (os) {
		for (size_t i = 0; i < ARRAY_SIZE(want); i++)
			T_EQ_U64(got[i], want[i]);
		T_EQ_U64(hs_optstack_accesses(os), 7);
		T_EQ_U64(hs_optstack_cold(os), 4);
		T_EQ_U64(hs_optstack_max_dist(os), 3);
		T_EQ_I64(hs_optstack_curve(os, curve, ARRAY_SIZE(curve)), 0);
		T_EQ_U64(curve[0], 0);
		T_EQ_U64(curve[1], 0);
		T_EQ_U64(curve[2], 2);
		T_EQ_U64(curve[3], 3);
		T_EQ_U64(curve[4], 3);
	}
	T_EQ_U64(policy_hits("opt", &s, 1), 0);
	T_EQ_U64(policy_hits("opt", &s, 2), 2);
	T_EQ_U64(policy_hits("opt", &s, 3), 3);
	hs_optstack_free(os);
	stream_free(&s);
}

/*
 * x e c b a x b e a c, where one access carries two keys down.  Next uses
 * (seqs from 0): x0 -> 5, e1 -> 7, c2 -> 9, b3 -> 6, a4 -> 8, the rest never.
 *   x e c b cold:   b(6) x(5) e(7) c(9)
 *   a4 cold, d = 5: carried b(6) keeps x(5) at 2, passes e(7) at 3 (b stays,
 *                   e carried), e(7) passes c(9) at 4 (e stays, c carried),
 *                   c takes slot 5:   a(8) x(5) b(6) e(7) c(9)
 *   x5 at 2:        x(-) a(8) b(6) e(7) c(9)
 *   b6 at 3, e7 at 4, a8 at 2, c9 at 5 (each carries a never-used key,
 *   which stops at once).
 * Curve: hits at 1: 0, 2: 2, 3: 3, 4: 4, 5: 5.  MIN by hand at 2: x e c(evict
 * e) b(evict c) a(evict b) x-hit b(evict x) e(evict b) a-hit c = 2 hits; at 3:
 * hits x, b, a = 3; at 4: a evicts c, then x b e a hit = 4.
 */
static void test_hand_records(void)
{
	static const uint64_t want[] = { COLD, COLD, COLD, COLD, COLD, 2, 3, 4, 2, 5 };
	static const uint64_t want_curve[] = { 0, 0, 2, 3, 4, 5, 5 };
	uint64_t got[ARRAY_SIZE(want)], curve[ARRAY_SIZE(want_curve)];
	struct hs_optstack *os;
	struct stream s;

	if (stream_parse(&s, "xecbaxbeac")) {
		t_fail(__FILE__, __LINE__, "setup");
		return;
	}
	os = opt_run(&s, got);
	if (os) {
		for (size_t i = 0; i < ARRAY_SIZE(want); i++)
			T_EQ_U64(got[i], want[i]);
		hs_optstack_curve(os, curve, ARRAY_SIZE(curve));
		for (size_t c = 0; c < ARRAY_SIZE(want_curve); c++)
			T_EQ_U64(curve[c], want_curve[c]);
	}
	T_EQ_U64(policy_hits("opt", &s, 2), 2);
	T_EQ_U64(policy_hits("opt", &s, 3), 3);
	T_EQ_U64(policy_hits("opt", &s, 4), 4);
	hs_optstack_free(os);
	stream_free(&s);
}

/* The naive model: Mattson's update on a plain array, O(depth) per access. */
static void check_against_naive(const struct stream *s)
{
	uint32_t *stack = malloc(((size_t)s->nr_keys + 1) * sizeof(*stack));
	uint64_t *nu = malloc(((size_t)s->nr_keys + 1) * sizeof(*nu));
	uint64_t *dists = malloc(s->n * sizeof(*dists));
	struct hs_optstack *os = NULL;
	uint32_t depth = 0, j;

	if (!stack || !nu || !dists) {
		t_fail(__FILE__, __LINE__, "out of memory");
		goto out;
	}
	os = opt_run(s, dists);
	if (!os)
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t carried;
		uint64_t want, cn;

		for (j = 0; j < depth && stack[j] != s->keys[i]; j++)
			;
		want = j < depth ? j + 1 : COLD;
		if (j == depth)
			depth++;
		if (j > 0) {
			carried = stack[0];
			cn = nu[0];
			for (uint32_t q = 1; q < j; q++) {
				if (nu[q] > cn) {
					uint32_t k = stack[q];
					uint64_t v = nu[q];

					stack[q] = carried;
					nu[q] = cn;
					carried = k;
					cn = v;
				}
			}
			stack[j] = carried;
			nu[j] = cn;
		}
		stack[0] = s->keys[i];
		nu[0] = s->next[i];
		if (dists[i] != want) {
			t_fail(__FILE__, __LINE__, "access %zu (key %u): distance %" PRIu64
			       ", the naive stack says %" PRIu64, i, s->keys[i], dists[i], want);
			break;
		}
	}
out:
	hs_optstack_free(os);
	free(dists);
	free(nu);
	free(stack);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rnd(s) % n);
}

enum shape { UNIFORM, SKEWED, LOOP, PHASES };

/*
 * n accesses over nr keys.  UNIFORM: every key alike.  SKEWED: 80% of the
 * accesses to the first nr/10 keys.  LOOP: a cyclic scan over 85% of the keys,
 * one access in 16 uniform.  PHASES: a working set of nr/4 keys that moves
 * every n/8 accesses, with runs of repeated keys (distance 1).
 */
static int make_stream(struct stream *s, enum shape shape, uint32_t nr, size_t n, uint64_t seed)
{
	uint32_t hot = HS_MAX(nr / 10, 1), loop = HS_MAX(nr * 85 / 100, 1), pos = 0;
	uint32_t ws = HS_MAX(nr / 4, 1);
	uint64_t r = seed;

	if (stream_alloc(s, n, nr))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t k;

		switch (shape) {
		case UNIFORM:
			k = rnd_below(&r, nr);
			break;
		case LOOP:
			if (rnd_below(&r, 16) == 0) {
				k = rnd_below(&r, nr);
			} else {
				k = pos;
				pos = (pos + 1) % loop;
			}
			break;
		case PHASES:
			if (i && rnd_below(&r, 4) == 0) {
				k = s->keys[i - 1];
			} else {
				uint32_t base = (uint32_t)((i / HS_MAX(n / 8, 1)) * ws / 2);

				k = (base + rnd_below(&r, ws)) % nr;
			}
			break;
		case SKEWED:
		default:
			k = rnd_below(&r, 100) < 80 ? rnd_below(&r, hot) : rnd_below(&r, nr);
			break;
		}
		s->keys[i] = k;
	}
	return stream_finish(s);
}

static const struct {
	const char	*name;
	enum shape	shape;
	uint32_t	keys;
	size_t		n;
} runs[] = {
	{ "uniform-60", UNIFORM, 60, 6000 }, { "skewed-300", SKEWED, 300, 20000 },
	{ "loop-200", LOOP, 200, 20000 }, { "phases-400", PHASES, 400, 20000 },
	{ "one-key", UNIFORM, 1, 100 }, { "uniform-1000", UNIFORM, 1000, 8000 },
};

static void test_naive_model(void)
{
	struct stream big;

	/* A deeper tree too: 3,000 keys in a loop with noise, 60,000 accesses. */
	if (make_stream(&big, LOOP, 3000, 60000, 5)) {
		t_fail(__FILE__, __LINE__, "out of memory");
	} else {
		check_against_naive(&big);
		stream_free(&big);
	}
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct stream s;

		if (make_stream(&s, runs[i].shape, runs[i].keys, runs[i].n, 7 + i)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			continue;
		}
		check_against_naive(&s);
		stream_free(&s);
	}
}

/*
 * The one-pass curves against the driver at every capacity 1 .. keys + 1:
 * OPT (demand) from the OPT stack, LRU from the LRU stack distances.
 */
static void test_every_capacity(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		uint32_t nr = runs[i].keys;
		uint64_t *opt = calloc((size_t)nr + 2, sizeof(*opt));
		uint64_t *lru = calloc((size_t)nr + 2, sizeof(*lru));
		struct hs_stackdist *sd = NULL;
		struct hs_optstack *os = NULL;
		struct stream s;

		if (!opt || !lru || make_stream(&s, runs[i].shape, nr, runs[i].n, 99 + i)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			free(opt);
			free(lru);
			continue;
		}
		os = opt_run(&s, NULL);
		if (hs_stackdist_new(nr, &sd))
			sd = NULL;
		for (size_t j = 0; sd && j < s.n; j++)
			hs_stackdist_access(sd, s.keys[j], NULL);
		if (os && sd) {
			hs_optstack_curve(os, opt, (size_t)nr + 2);
			hs_stackdist_curve(sd, lru, (size_t)nr + 2);
			for (uint64_t c = 1; c <= (uint64_t)nr + 1; c++) {
				uint64_t o = policy_hits("opt", &s, c);
				uint64_t l = policy_hits("lru", &s, c);

				if (o != opt[c] || l != lru[c]) {
					t_fail(__FILE__, __LINE__, "%s at %" PRIu64 ": opt %" PRIu64
					       " (curve %" PRIu64 "), lru %" PRIu64 " (curve %"
					       PRIu64 ")", runs[i].name, c, o, opt[c], l, lru[c]);
					break;
				}
				if (opt[c] < lru[c])
					t_fail(__FILE__, __LINE__, "%s at %" PRIu64 ": OPT below LRU",
					       runs[i].name, c);
			}
			/* Everything fits from nr keys on: only the cold misses remain. */
			T_EQ_U64(opt[nr], s.n - hs_optstack_cold(os));
		}
		hs_optstack_free(os);
		hs_stackdist_free(sd);
		stream_free(&s);
		free(opt);
		free(lru);
	}
}

/*
 * Many small random streams (1 .. 12 keys, 10 .. 99 accesses, 300 seeds,
 * every shape), where every capacity is a corner case: the OPT stack's
 * curve against the OPT policy at every capacity 1 .. keys + 1, and its
 * distances against the naive array stack; and long streams over 50 keys
 * (50,000 accesses), where the tree is churned for long.
 */
/*
 * The LRU curve the OPT stack keeps on the side (it holds the LRU stack)
 * against stackdist.c's, which shares no code with it, at every capacity.
 */
static void check_lru_curve(const struct hs_optstack *os, const struct stream *s,
			    const char *name, uint64_t seed)
{
	size_t n = (size_t)s->nr_keys + 2;
	uint64_t *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
	struct hs_stackdist *sd = NULL;

	if (!a || !b || hs_stackdist_new(s->nr_keys, &sd)) {
		t_fail(__FILE__, __LINE__, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->n; i++)
		hs_stackdist_access(sd, s->keys[i], NULL);
	hs_optstack_lru_curve(os, a, n);
	hs_stackdist_curve(sd, b, n);
	for (size_t c = 0; c < n; c++)
		if (a[c] != b[c]) {
			t_fail(__FILE__, __LINE__, "%s seed %" PRIu64 " at %zu: LRU hits %"
			       PRIu64 " from the OPT stack, %" PRIu64 " from stackdist",
			       name, seed, c, a[c], b[c]);
			break;
		}
out:
	hs_stackdist_free(sd);
	free(b);
	free(a);
}

static void check_curve(const struct stream *s, const char *name, uint64_t seed)
{
	uint64_t *curve = calloc((size_t)s->nr_keys + 2, sizeof(*curve));
	struct hs_optstack *os = curve ? opt_run(s, NULL) : NULL;

	if (!os) {
		t_fail(__FILE__, __LINE__, "%s: no OPT stack", name);
		free(curve);
		return;
	}
	hs_optstack_curve(os, curve, (size_t)s->nr_keys + 2);
	for (uint64_t c = 1; c <= (uint64_t)s->nr_keys + 1; c++) {
		uint64_t o = policy_hits("opt", s, c);

		if (o != curve[c]) {
			t_fail(__FILE__, __LINE__, "%s seed %" PRIu64 " at %" PRIu64 ": opt %"
			       PRIu64 ", curve %" PRIu64, name, seed, c, o, curve[c]);
			break;
		}
	}
	check_lru_curve(os, s, name, seed);
	hs_optstack_free(os);
	free(curve);
}

static void test_random_small(void)
{
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct stream s;
		uint32_t nr = 1 + (uint32_t)(seed % 12);

		if (make_stream(&s, (enum shape)(seed % 4), nr, 10 + seed % 90, seed)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			continue;
		}
		check_curve(&s, "small", seed);
		check_against_naive(&s);
		stream_free(&s);
	}
	for (enum shape sh = UNIFORM; sh <= PHASES; sh++) {
		struct stream s;

		if (make_stream(&s, sh, 50, 50000, 77 + sh)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			continue;
		}
		check_curve(&s, "long", 77 + sh);
		stream_free(&s);
	}
}

static void test_errors(void)
{
	struct hs_optstack *os = NULL;
	uint64_t d = 0;

	T_EQ_I64(hs_optstack_new(0, &os), -EINVAL);
	T_EQ_I64(hs_optstack_new(HS_STACKDIST_MAX_KEYS + 1, &os), -EINVAL);
	T_EQ_I64(hs_optstack_new(3, &os), 0);
	if (!os)
		return;
	T_EQ_I64(hs_optstack_access(os, 3, &d), -EINVAL);
	T_EQ_U64(hs_optstack_accesses(os), 0);
	/* a prefetch is a hint: keys out of range and keys never seen are fine */
	hs_optstack_prefetch(os, UINT32_MAX, 3);
	hs_optstack_prefetch(os, 2, 1);
	T_EQ_I64(hs_optstack_access(os, 2, &d), 0);
	T_EQ_U64(d, COLD);
	T_EQ_I64(hs_optstack_access(os, 2, &d), 0);
	T_EQ_U64(d, 1);
	hs_optstack_free(os);
	hs_optstack_free(NULL);
}

/* A --sizes spec must give exactly want[0 .. n-1]. */
static void expect_sizes(const char *spec, uint64_t distinct, uint64_t unit_bytes,
			 const uint64_t *want, size_t n)
{
	uint64_t *got = NULL;
	size_t ng = 0;
	int ret = hs_mrc_sizes_parse(spec, distinct, unit_bytes, &got, &ng);

	if (ret) {
		t_fail(__FILE__, __LINE__, "\"%s\": %s", spec, strerror(-ret));
		return;
	}
	if (ng != n)
		t_fail(__FILE__, __LINE__, "\"%s\": %zu sizes, expected %zu", spec, ng, n);
	for (size_t i = 0; i < ng && i < n; i++)
		if (got[i] != want[i])
			t_fail(__FILE__, __LINE__, "\"%s\" size %zu: %" PRIu64 ", expected %"
			       PRIu64, spec, i, got[i], want[i]);
	free(got);
}

/*
 * Log spacing, 1..1000:4: 1000^(i/3) = 1, 10, 100, 1000.  2..50:3: 2, 2 *
 * 25^(1/2) = 10, 50.  1..3:5: 1, 3^(1/4) = 1.32 -> 1, 1.73 -> 2, 2.28 -> 2,
 * 3: merged to 1 2 3.  Shares of 200 keys: 0.1% is 0.2, at least 1; 12.5% is
 * 25.  Memory: 1M of 4096-byte pages is 256, of 512-byte blocks 2048.
 * Every kind of size at the ends of every kind of range: 10%..100%:3 of
 * 1,000 keys is 100, 100 * 10^(1/2) = 316.2 -> 316, 1000; 64K..1M:5 of pages
 * is 16..256:5, doubling; 4K..16K/4K of pages is 1 2 3 4; 1K..1M/256K of
 * blocks is 2..2048/512; 10..50%/20% of 100 keys is 10 30 50.  Memory sizes
 * round down to whole units (6K of pages is 1 page; 2K is 0, refused).
 */
static void test_sizes(void)
{
	static const uint64_t w1[] = { 1, 10, 100, 1000 };
	static const uint64_t w2[] = { 2, 10, 50 };
	static const uint64_t w3[] = { 1, 2, 3 };
	static const uint64_t w4[] = { 1, 25, 200 };
	static const uint64_t w5[] = { 256 };
	static const uint64_t w6[] = { 2048 };
	static const uint64_t w7[] = { 10, 13, 16, 19, 20 };
	static const uint64_t w8[] = { 3, 4, 5, 7 };
	static const uint64_t w9[] = { 100, 316, 1000 };
	static const uint64_t w10[] = { 16, 32, 64, 128, 256 };
	static const uint64_t w11[] = { 1, 2, 3, 4 };
	static const uint64_t w12[] = { 2, 514, 1026, 1538, 2048 };
	static const uint64_t w13[] = { 10, 30, 50 };
	static const uint64_t w14[] = { 1 };
	uint64_t *got = NULL;
	size_t n = 0;

	expect_sizes("1..1000:4", 5000, 0, w1, ARRAY_SIZE(w1));
	expect_sizes("2..50:3", 5000, 0, w2, ARRAY_SIZE(w2));
	expect_sizes("1..3:5", 5000, 0, w3, ARRAY_SIZE(w3));
	expect_sizes("0.1%,12.5%,100%", 200, 0, w4, ARRAY_SIZE(w4));
	expect_sizes("1M", 5000, 4096, w5, ARRAY_SIZE(w5));
	expect_sizes("1M", 5000, 512, w6, ARRAY_SIZE(w6));
	expect_sizes("10..20/3", 5000, 0, w7, ARRAY_SIZE(w7));
	expect_sizes("7,3..5,4", 5000, 0, w8, ARRAY_SIZE(w8));
	expect_sizes("10%..100%:3", 1000, 0, w9, ARRAY_SIZE(w9));
	expect_sizes("64K..1M:5", 5000, 4096, w10, ARRAY_SIZE(w10));
	expect_sizes("4K..16K/4K", 5000, 4096, w11, ARRAY_SIZE(w11));
	expect_sizes("1K..1M/256K", 5000, 512, w12, ARRAY_SIZE(w12));
	expect_sizes("10..50%/20%", 100, 0, w13, ARRAY_SIZE(w13));
	expect_sizes("6K", 5000, 4096, w14, ARRAY_SIZE(w14));

	T_EQ_I64(hs_mrc_sizes_parse("5..1", 100, 0, &got, &n), -EINVAL);
	T_EQ_I64(hs_mrc_sizes_parse("1..5:1", 100, 0, &got, &n), -ERANGE);
	T_EQ_I64(hs_mrc_sizes_parse("1,,2", 100, 0, &got, &n), -EINVAL);
	T_EQ_I64(hs_mrc_sizes_parse("", 100, 0, &got, &n), -EINVAL);
	T_EQ_I64(hs_mrc_sizes_parse("1M", 100, 0, &got, &n), -EINVAL);
	T_EQ_I64(hs_mrc_sizes_parse("0", 100, 0, &got, &n), -ERANGE);
	T_EQ_I64(hs_mrc_sizes_parse("0%", 100, 0, &got, &n), -ERANGE);
	T_EQ_I64(hs_mrc_sizes_parse("101%", 100, 0, &got, &n), -ERANGE);
	T_EQ_I64(hs_mrc_sizes_parse("1..200000", 100, 0, &got, &n), -E2BIG);
	T_EQ_I64(hs_mrc_sizes_parse("1..x", 100, 0, &got, &n), -EINVAL);
	T_EQ_I64(hs_mrc_sizes_parse("2K", 100, 4096, &got, &n), -ERANGE);
	T_EQ_I64(hs_mrc_sizes_parse("1..4K", 100, 0, &got, &n), -EINVAL);
	T_ASSERT(got == NULL);
}

/* Store keys[] as a session (meta PT, or DROP at index drop_at); return its id or -1. */
static int64_t store_session(struct hs_store *st, const uint64_t *keys, size_t n, size_t drop_at)
{
	static const struct hs_session_meta m = { .source = "gen", .format = "text" };
	struct hs_session_writer *w = NULL;
	int64_t id = -1;
	int err = 0;

	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	if (!w)
		return -1;
	for (size_t i = 0; i < n && !err; i++)
		err = hs_session_add(w, keys[i], i == drop_at ? HS_CH_DROP : HS_CH_PT);
	T_EQ_I64(err, 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);
	return id;
}

/*
 * hs_mrc_stack_session() over a stored session: 1 2 3 1 2 4 1 2 3 4 (the
 * curves of tests/cli/mrc.sh: LRU 0 0 4 6, OPT 0 3 5 6 at 1 .. 4), sizes in
 * any order and past the keys; a session with a drop is refused.
 */
static void test_session(void)
{
	static const uint64_t keys[] = { 1, 2, 3, 1, 2, 4, 1, 2, 3, 4 };
	static const uint64_t sizes[] = { 3, 2, 100, 1 };
	uint64_t lru[ARRAY_SIZE(sizes)], opt[ARRAY_SIZE(sizes)];
	struct hs_store *st = NULL;
	struct hs_mrc_stack out;
	int64_t pure, dropped;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	pure = store_session(st, keys, ARRAY_SIZE(keys), SIZE_MAX);
	dropped = store_session(st, keys, ARRAY_SIZE(keys), 4);
	T_EQ_I64(hs_mrc_stack_session(st, pure, sizes, ARRAY_SIZE(sizes), lru, opt, &out), 0);
	T_EQ_U64(out.accesses, 10);
	T_EQ_U64(out.cold, 4);
	T_EQ_U64(lru[0], 4);
	T_EQ_U64(lru[1], 0);
	T_EQ_U64(lru[2], 6);
	T_EQ_U64(lru[3], 0);
	T_EQ_U64(opt[0], 5);
	T_EQ_U64(opt[1], 3);
	T_EQ_U64(opt[2], 6);
	T_EQ_U64(opt[3], 0);
	/* OPT alone gives the same */
	opt[0] = 0;
	T_EQ_I64(hs_mrc_stack_session(st, pure, sizes, 1, NULL, opt, &out), 0);
	T_EQ_U64(opt[0], 5);
	T_EQ_I64(hs_mrc_stack_session(st, dropped, sizes, 1, lru, opt, &out), -EOPNOTSUPP);
	T_EQ_I64(hs_mrc_stack_session(st, 99, sizes, 1, lru, opt, &out), -ENOENT);
	hs_store_close(st);
}

/*
 * SHARDS (hs_mrc_stack_sampled()).  Rate 1 is the exact pass, number for
 * number.  A cyclic stream of K keys, L rounds: a sample of m keys is a
 * cycle of m keys, whose LRU curve is 0 hits below m and m (L - 1) from m
 * on; scaled by accesses / sampled accesses = K L / (m L) that is K (L - 1)
 * hits from the size whose R-th part rounds to m on, and none below.  The
 * hash is fixed, so m is a fixed number (237 of 1,000 keys at R = 0.25).
 */
static void test_sample(void)
{
	static const uint64_t hand[] = { 1, 2, 3, 1, 2, 4, 1, 2, 3, 4 };
	static const uint64_t sizes[] = { 3, 2, 100, 1 };
	enum { K = 1000, L = 3 };
	const double r = 0.25;
	uint64_t lru[ARRAY_SIZE(sizes)], opt[ARRAY_SIZE(sizes)];
	uint64_t *cyc, grid[4], glru[4], gopt[4];
	struct hs_store *st = NULL;
	struct hs_mrc_stack out;
	uint32_t m = 0, k;
	int64_t pure, cyclic;

	for (k = 0; k < K; k++) {
		T_ASSERT(hs_mrc_sample_keep(k, 1));
		m += hs_mrc_sample_keep(k, r);
	}
	T_EQ_U64(m, 237);

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	pure = store_session(st, hand, ARRAY_SIZE(hand), SIZE_MAX);
	T_EQ_I64(hs_mrc_stack_sampled(st, pure, 1, sizes, ARRAY_SIZE(sizes), lru, opt, &out), 0);
	T_EQ_U64(out.sampled, 10);
	T_EQ_U64(out.sampled_keys, 4);
	T_EQ_U64(out.cold, 4);
	T_EQ_U64(lru[0], 4);
	T_EQ_U64(lru[1], 0);
	T_EQ_U64(lru[2], 6);
	T_EQ_U64(opt[0], 5);
	T_EQ_U64(opt[1], 3);
	T_EQ_U64(opt[2], 6);
	T_EQ_I64(hs_mrc_stack_sampled(st, pure, 0, sizes, 1, lru, opt, &out), -EINVAL);
	T_EQ_I64(hs_mrc_stack_sampled(st, pure, 1.5, sizes, 1, lru, opt, &out), -EINVAL);

	cyc = calloc((size_t)K * L, sizeof(*cyc));
	T_ASSERT(cyc != NULL);
	if (!cyc) {
		hs_store_close(st);
		return;
	}
	for (size_t i = 0; i < (size_t)K * L; i++)
		cyc[i] = i % K;
	cyclic = store_session(st, cyc, (size_t)K * L, SIZE_MAX);
	/* 946 * 0.25 = 236.5 rounds to 237 = m, 945 * 0.25 to 236. */
	grid[0] = 945;
	grid[1] = 946;
	grid[2] = 100;
	grid[3] = 5000;
	T_EQ_I64(hs_mrc_stack_sampled(st, cyclic, r, grid, 4, glru, gopt, &out), 0);
	T_EQ_U64(out.accesses, (uint64_t)K * L);
	T_EQ_U64(out.sampled, (uint64_t)m * L);
	T_EQ_U64(out.sampled_keys, m);
	T_EQ_U64(out.cold, K);
	T_EQ_U64(glru[0], 0);
	T_EQ_U64(glru[1], (uint64_t)K * (L - 1));
	T_EQ_U64(glru[2], 0);
	T_EQ_U64(glru[3], (uint64_t)K * (L - 1));
	/* OPT keeps everything from m on too, and at 1 sampled unit (size 4) */
	T_EQ_U64(gopt[1], (uint64_t)K * (L - 1));
	T_EQ_U64(gopt[3], (uint64_t)K * (L - 1));
	free(cyc);
	hs_store_close(st);
}

/*
 * A second, independent model of the OPT distances that reads only the
 * past: the stack of time points of the essay in analyzers/optstack.c ("A
 * view from the past"), naive, O(depth) per access.  Slot j (0 = top) holds
 * a time point; at first nr_keys + 1 paddings -1, -2, ... (older than any
 * access).
 * An access at time t whose key was last accessed at p (or never: p below
 * every point) has distance 1 + the slot of the topmost point <= p; then t
 * goes on top and the old top is carried down Mattson's way, the carried
 * point and the one in the slot trading places when the slot's point goes
 * first: points <= p go before points > p, and among either the larger goes
 * first.  The point carried past the bottom leaves.
 */
static bool crit_first(int64_t a, int64_t b, int64_t p)
{
	if ((a <= p) != (b <= p))
		return a <= p;
	return a > b;
}

static void crit_run(const struct stream *s, uint64_t *dists)
{
	size_t slots = (size_t)s->nr_keys + 1;
	int64_t *st = malloc(slots * sizeof(*st));
	int64_t *last = malloc((size_t)s->nr_keys * sizeof(*last));

	if (!st || !last) {
		t_fail(__FILE__, __LINE__, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < slots; j++)
		st[j] = -(int64_t)j - 1;
	for (uint32_t k = 0; k < s->nr_keys; k++)
		last[k] = INT64_MIN;
	for (size_t t = 0; t < s->n; t++) {
		int64_t p = last[s->keys[t]], c = st[0];
		size_t d;

		for (d = 0; d < slots && st[d] > p; d++)
			;
		dists[t] = p == INT64_MIN ? COLD : (d < slots ? d + 1 : 0);
		st[0] = (int64_t)t;
		for (size_t j = 1; j < slots; j++) {
			if (crit_first(st[j], c, p)) {
				int64_t e = st[j];

				st[j] = c;
				c = e;
			}
		}
		last[s->keys[t]] = (int64_t)t;
	}
out:
	free(last);
	free(st);
}

static void check_against_crit(const struct stream *s, const char *name, uint64_t seed)
{
	uint64_t *want = malloc((s->n ? s->n : 1) * sizeof(*want));
	uint64_t *got = malloc((s->n ? s->n : 1) * sizeof(*got));
	struct hs_optstack *os = NULL;

	if (!want || !got) {
		t_fail(__FILE__, __LINE__, "out of memory");
		goto out;
	}
	crit_run(s, want);
	os = opt_run(s, got);
	for (size_t i = 0; os && i < s->n; i++) {
		if (got[i] != want[i]) {
			t_fail(__FILE__, __LINE__, "%s seed %" PRIu64 " access %zu: distance %"
			       PRIu64 ", the stack of time points says %" PRIu64, name, seed, i,
			       got[i], want[i]);
			break;
		}
	}
out:
	hs_optstack_free(os);
	free(got);
	free(want);
}

/*
 * The stack of time points by hand on a b c a b d a (times 0 .. 6), top
 * first, paddings -1, -2, ... below:
 *   0 a cold        0 -2 -3 ..     (the top, -1, is the victim)
 *   1 b cold        1 -2 -3 ..
 *   2 c cold        2 -2 -3 ..
 *   3 a, p = 0: the topmost point <= 0 is -2, in slot 1: distance 2; the
 *               carried 2 is left there, -2 carried on: nothing in (-2, 0]
 *               below, so it leaves      3  2 -3 -4 ..
 *   4 b, p = 1: -3 in slot 2: distance 3;     4  2  3 -4 ..
 *   5 d cold                                  5  2  3 -4 ..
 *   6 a, p = 3: 2 in slot 1: distance 2.
 * The same distances as the OPT stack's (test_hand_abcabda); then random
 * streams of every shape, small (every corner) and long.
 */
static void test_crit_model(void)
{
	static const uint64_t want[] = { COLD, COLD, COLD, 2, 3, COLD, 2 };
	uint64_t got[ARRAY_SIZE(want)];
	struct stream s;

	if (stream_parse(&s, "abcabda")) {
		t_fail(__FILE__, __LINE__, "setup");
		return;
	}
	crit_run(&s, got);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		T_EQ_U64(got[i], want[i]);
	stream_free(&s);
	for (uint64_t seed = 1; seed <= 400; seed++) {
		uint32_t nr = 1 + (uint32_t)(seed % 13);

		if (make_stream(&s, (enum shape)(seed % 4), nr, 5 + seed % 120, 1000 + seed)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			continue;
		}
		check_against_crit(&s, "small", seed);
		stream_free(&s);
	}
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		if (make_stream(&s, runs[i].shape, runs[i].keys, runs[i].n, 300 + i)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			continue;
		}
		check_against_crit(&s, runs[i].name, 300 + i);
		stream_free(&s);
	}
}

/*
 * hs_huge_alloc(), which the analyzers' arrays come from: they count on
 * zeroed histograms and on line-aligned blocks and sibling groups.  Sizes
 * below and above the huge page (2 MB), each allocated, dirtied and freed
 * first, so that a reused chunk would show a missing memset.
 */
static void test_alloc(void)
{
	static const size_t sizes[] = { 24, 64, 1000, 100000, (2u << 20) + 8, 5u << 20 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t n = sizes[i], bad = 0;
		unsigned char *p = hs_huge_alloc(n);

		if (!p) {
			t_fail(__FILE__, __LINE__, "hs_huge_alloc(%zu): out of memory", n);
			continue;
		}
		memset(p, 0xaa, n);
		hs_huge_free(p, n);
		p = hs_huge_alloc(n);
		if (!p) {
			t_fail(__FILE__, __LINE__, "hs_huge_alloc(%zu): out of memory", n);
			continue;
		}
		T_EQ_U64((uintptr_t)p % 64, 0);
		if (n >= (2u << 20))
			T_EQ_U64((uintptr_t)p % (2u << 20), 0);
		for (size_t j = 0; j < n; j++)
			bad += p[j] != 0;
		T_EQ_U64(bad, 0);
		hs_huge_free(p, n);
	}
}

static const struct t_case cases[] = {
	{ "hand-abcabda", test_hand_abcabda },
	{ "hand-records", test_hand_records },
	{ "naive-model", test_naive_model },
	{ "every-capacity", test_every_capacity },
	{ "random-small", test_random_small },
	{ "crit-model", test_crit_model },
	{ "errors", test_errors },
	{ "sizes", test_sizes },
	{ "session", test_session },
	{ "sample", test_sample },
	{ "alloc", test_alloc },
};

int main(int argc, char **argv)
{
	return t_main(cases, ARRAY_SIZE(cases), argc, argv);
}
