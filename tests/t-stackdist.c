/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stack distances (analyzers/stackdist.c), and through them an independent
 * model of LRU.  Hand-computed distances on tiny sequences (the computation
 * is written beside each); a naive move-to-front stack kept in this file as a
 * second model for random streams with drops and hints; then the cross-check
 * that matters: the LRU policy run through the driver hits exactly
 * hs_stackdist_hits_at(C) times at every capacity C tried, on random streams
 * and, when $HSCTL_SHARED is set, on every LIRS trace and on OLTP; and the
 * published LRU numbers of POLICIES.md 5.1 and 5.2 come out of the
 * miss-ratio curve alone.  The shared-trace cases skip when it is unset.
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "analyzer.h"
#include "harness.h"
#include "hs.h"
#include "keymap.h"
#include "policy.h"
#include "sim.h"
#include "trace-in.h"

#define COLD	HS_STACKDIST_COLD

/* Meta bytes (file pages, no write): the channel is the whole byte. */
#define M_FD		((uint8_t)HS_CH_FD)
#define M_PT		((uint8_t)HS_CH_PT)
#define M_PAGEOUT	((uint8_t)HS_CH_PAGEOUT)
#define M_COLD		((uint8_t)HS_CH_COLD)
#define M_DROP		((uint8_t)HS_CH_DROP)

/* An in-memory stream of records. */
struct recs {
	uint32_t	*keys;		/* dense key ids */
	uint8_t		*meta;		/* meta bytes */
	size_t		n;		/* records */
	size_t		cap;		/* allocated entries */
	uint32_t	nr_keys;	/* ids are below this */
	struct hs_keymap *km;		/* original id -> dense id (traces only) */
};

static int recs_push(struct recs *r, uint32_t key, uint8_t meta)
{
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 1024;
		uint32_t *k = realloc(r->keys, nc * sizeof(*k));
		uint8_t *m;

		if (!k)
			return -ENOMEM;
		r->keys = k;
		m = realloc(r->meta, nc);
		if (!m)
			return -ENOMEM;
		r->meta = m;
		r->cap = nc;
	}
	r->keys[r->n] = key;
	r->meta[r->n++] = meta;
	return 0;
}

static void recs_free(struct recs *r)
{
	free(r->keys);
	free(r->meta);
	hs_keymap_free(r->km);
	memset(r, 0, sizeof(*r));
}

/*
 * Tiny sequences as strings: 'a'..'z' access key 0..25 (PT), 'A'..'Z' drop
 * it, '!x' is a PAGEOUT hint on x, '~x' a COLD hint on x, blanks are ignored.
 */
static void recs_parse(struct recs *r, const char *s)
{
	uint8_t hint = 0;

	memset(r, 0, sizeof(*r));
	r->nr_keys = 26;
	for (; *s; s++) {
		int ret = 0;

		if (*s == '!' || *s == '~') {
			hint = *s == '!' ? M_PAGEOUT : M_COLD;
			continue;
		}
		if (*s >= 'a' && *s <= 'z')
			ret = recs_push(r, (uint32_t)(*s - 'a'), hint ? hint : M_PT);
		else if (*s >= 'A' && *s <= 'Z')
			ret = recs_push(r, (uint32_t)(*s - 'A'), M_DROP);
		hint = 0;
		if (ret)
			t_fail(__FILE__, __LINE__, "out of memory");
	}
}

/* Feed every record; dists[i] receives record i's distance (NULL: not kept). */
static struct hs_stackdist *sd_run(const struct recs *r, uint64_t *dists)
{
	struct hs_stackdist *sd;
	uint64_t d;
	size_t i;
	int ret;

	ret = hs_stackdist_new(r->nr_keys, &sd);
	if (ret) {
		t_fail(__FILE__, __LINE__, "hs_stackdist_new: %s", strerror(-ret));
		return NULL;
	}
	for (i = 0; i < r->n; i++) {
		ret = hs_stackdist_step(sd, r->keys[i], r->meta[i], &d);
		if (ret) {
			t_fail(__FILE__, __LINE__, "record %zu: %s", i, strerror(-ret));
			hs_stackdist_free(sd);
			return NULL;
		}
		if (dists)
			dists[i] = d;
	}
	return sd;
}

/* The distances of a tiny sequence must be want[0 .. n-1] (0 for non-accesses). */
static void expect_dists(const char *seq, const uint64_t *want, size_t n)
{
	struct hs_stackdist *sd;
	uint64_t got[64];
	struct recs r;
	size_t i;

	recs_parse(&r, seq);
	if (r.n != n || n > ARRAY_SIZE(got)) {
		t_fail(__FILE__, __LINE__, "\"%s\": %zu records, the test lists %zu", seq, r.n, n);
		recs_free(&r);
		return;
	}
	sd = sd_run(&r, got);
	for (i = 0; sd && i < n; i++)
		if (got[i] != want[i])
			t_fail(__FILE__, __LINE__, "\"%s\" record %zu: distance %" PRIu64
			       ", expected %" PRIu64, seq, i, got[i], want[i]);
	hs_stackdist_free(sd);
	recs_free(&r);
}

/* Hits of the LRU policy through the driver (UINT64_MAX on failure). */
static uint64_t lru_hits(const struct recs *r, uint64_t capacity)
{
	struct hs_sim_config cfg = {
		.ops = hs_policy_find("lru"), .capacity = capacity, .nr_keys = r->nr_keys,
	};
	struct hs_sim_stats st;
	struct hs_sim *sim;
	size_t i;
	int ret;

	if (!cfg.ops || hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "cannot run lru at %" PRIu64, capacity);
		return UINT64_MAX;
	}
	for (i = 0; i < r->n; i++) {
		ret = hs_sim_step(sim, r->keys[i], r->meta[i], HS_NEVER);
		if (ret < 0) {
			t_fail(__FILE__, __LINE__, "lru at %" PRIu64 ": record %zu: %s", capacity,
			       i, strerror(-ret));
			hs_sim_free(sim);
			return UINT64_MAX;
		}
	}
	hs_sim_finish(sim, &st, NULL);
	hs_sim_free(sim);
	return st.hits;
}

/*
 * a b c a b d a, by hand.  Stack written most recent first; a distance is the
 * accessed key's position before the access (1 = top):
 *   a  cold          stack a
 *   b  cold          stack b a
 *   c  cold          stack c b a
 *   a  position 3    (since a: b, c)     stack a c b
 *   b  position 3    (since b: c, a)     stack b a c
 *   d  cold          stack d b a c
 *   a  position 3    (since a: b, d)     stack a d b c
 * Histogram: three accesses at distance 3, four cold.  LRU by hand at 3:
 * m m m h h m(evicts c) h = 3 hits; at 2: every access misses (a is evicted
 * by c, b by a, c by b, a by d).
 */
static void test_hand_abcabda(void)
{
	static const uint64_t want[] = { COLD, COLD, COLD, 3, 3, COLD, 3 };
	struct hs_stackdist *sd;
	uint64_t curve[5];
	struct recs r;

	expect_dists("abcabda", want, ARRAY_SIZE(want));
	recs_parse(&r, "abcabda");
	sd = sd_run(&r, NULL);
	if (sd) {
		T_EQ_U64(hs_stackdist_accesses(sd), 7);
		T_EQ_U64(hs_stackdist_cold(sd), 4);
		T_EQ_U64(hs_stackdist_depth(sd), 4);
		T_EQ_U64(hs_stackdist_max_dist(sd), 3);
		T_EQ_U64(hs_stackdist_hits_at(sd, 0), 0);
		T_EQ_U64(hs_stackdist_hits_at(sd, 1), 0);
		T_EQ_U64(hs_stackdist_hits_at(sd, 2), 0);
		T_EQ_U64(hs_stackdist_hits_at(sd, 3), 3);
		T_EQ_U64(hs_stackdist_hits_at(sd, 4), 3);
		T_EQ_U64(hs_stackdist_hits_at(sd, UINT64_MAX), 3);
		T_EQ_I64(hs_stackdist_curve(sd, curve, ARRAY_SIZE(curve)), 0);
		T_EQ_U64(curve[0], 0);
		T_EQ_U64(curve[2], 0);
		T_EQ_U64(curve[3], 3);
		T_EQ_U64(curve[4], 3);
	}
	T_EQ_U64(lru_hits(&r, 3), 3);
	T_EQ_U64(lru_hits(&r, 2), 0);
	hs_stackdist_free(sd);
	recs_free(&r);
}

/*
 * More sequences by hand.
 *   a b a b c c a:  a cold, b cold, a 2 (since a: b), b 2 (since b: a),
 *                   c cold, c 1 (nothing since), a 3 (since a: b, c).
 *     hits at 1: 1; at 2: 3; at 3: 4.  LRU at 2 by hand: m m h h m(evicts a)
 *     h m = 3 hits.
 *   a a a a:        cold, 1, 1, 1.
 *   a b c d e a:    a is at position 5 after b c d e.
 */
static void test_hand_more(void)
{
	static const uint64_t w1[] = { COLD, COLD, 2, 2, COLD, 1, 3 };
	static const uint64_t w2[] = { COLD, 1, 1, 1 };
	static const uint64_t w3[] = { COLD, COLD, COLD, COLD, COLD, 5 };
	struct hs_stackdist *sd;
	struct recs r;

	expect_dists("ababcca", w1, ARRAY_SIZE(w1));
	expect_dists("aaaa", w2, ARRAY_SIZE(w2));
	expect_dists("abcdea", w3, ARRAY_SIZE(w3));
	recs_parse(&r, "ababcca");
	sd = sd_run(&r, NULL);
	if (sd) {
		T_EQ_U64(hs_stackdist_hits_at(sd, 1), 1);
		T_EQ_U64(hs_stackdist_hits_at(sd, 2), 3);
		T_EQ_U64(hs_stackdist_hits_at(sd, 3), 4);
	}
	T_EQ_U64(lru_hits(&r, 2), 3);
	hs_stackdist_free(sd);
	recs_free(&r);
}

/*
 * Drops and hints, by hand.
 *   a b c B a b:  B drops b; a's previous access was the first record and
 *                 only c is still in the stack above it: distance 2; b was
 *                 dropped, so its access is cold.
 *   a b A a:      a dropped: its next access is cold.
 *   A a:          dropping a key never seen is a no-op: a is cold.
 *   a b !a ~b a:  hints are not accesses and do not reorder: a is at 2.
 */
static void test_hand_drops_hints(void)
{
	static const uint64_t w1[] = { COLD, COLD, COLD, 0, 2, COLD };
	static const uint64_t w2[] = { COLD, COLD, 0, COLD };
	static const uint64_t w3[] = { 0, COLD };
	static const uint64_t w4[] = { COLD, COLD, 0, 0, 2 };
	struct hs_stackdist *sd;
	struct recs r;

	expect_dists("abcBab", w1, ARRAY_SIZE(w1));
	expect_dists("abAa", w2, ARRAY_SIZE(w2));
	expect_dists("Aa", w3, ARRAY_SIZE(w3));
	expect_dists("ab!a~ba", w4, ARRAY_SIZE(w4));

	/* Depth after "abcB": a and c; dropping b again changes nothing. */
	recs_parse(&r, "abcBB");
	sd = sd_run(&r, NULL);
	if (sd) {
		T_EQ_U64(hs_stackdist_depth(sd), 2);
		T_EQ_U64(hs_stackdist_accesses(sd), 3);
	}
	hs_stackdist_free(sd);
	recs_free(&r);
}

/*
 * Where the model and LRU part, as the essay in stackdist.c says.
 *
 * d c b a B d, capacity 3.  LRU: d c b miss, a misses and evicts d, leaving
 * {c b a}; B drops b, leaving {c a}; d misses: 0 hits.  Stack: d's previous
 * access is the first record; since then c, b, a, but b was dropped: distance
 * 3, a hit at capacity 3.  So hits_at(3) = 1 > 0: an upper bound.  At 4 (all
 * four keys fit) LRU never evicts, d is still resident: 1 hit, equal.
 *
 * b a !a c b, capacity 2.  LRU: b a miss, the PAGEOUT evicts a, leaving {b};
 * c misses into the free frame; b hits: 1.  Stack: the hint changes nothing,
 * b is under c and a: distance 3, so hits_at(2) = 0 < 1.  PAGEOUT streams
 * are outside the model in both directions.
 */
static void test_model_limits(void)
{
	struct hs_stackdist *sd;
	struct recs r;

	recs_parse(&r, "dcbaBd");
	r.nr_keys = 4;
	sd = sd_run(&r, NULL);
	if (sd) {
		T_EQ_U64(hs_stackdist_hits_at(sd, 3), 1);
		T_EQ_U64(hs_stackdist_hits_at(sd, 4), 1);
	}
	T_EQ_U64(lru_hits(&r, 3), 0);
	T_EQ_U64(lru_hits(&r, 4), 1);
	hs_stackdist_free(sd);
	recs_free(&r);

	recs_parse(&r, "ba!acb");
	sd = sd_run(&r, NULL);
	if (sd)
		T_EQ_U64(hs_stackdist_hits_at(sd, 2), 0);
	T_EQ_U64(lru_hits(&r, 2), 1);
	hs_stackdist_free(sd);
	recs_free(&r);
}

/*
 * Long streams over few keys force many window compactions (the window is
 * 64 slots for up to 32 keys, 2 * nr_keys above).
 *   (a b c) x 1000:         3 cold, then 2997 accesses at distance 3.
 *   (a a b b c c) x 500:    3 cold; the second of each pair is at 1 (1500);
 *                           the first of each pair after the first round is
 *                           at 3 (the other two keys since): 3 * 499 = 1497.
 *   keys 0..39 cyclic, 100 rounds, 40 keys (window 80): 40 cold, then 3960
 *                           accesses all at distance exactly 40.
 */
static void test_compaction(void)
{
	struct hs_stackdist *sd;
	uint32_t k, i;

	T_EQ_I64(hs_stackdist_new(3, &sd), 0);
	for (i = 0; i < 3000; i++)
		T_EQ_I64(hs_stackdist_access(sd, i % 3, NULL), 0);
	T_EQ_U64(hs_stackdist_cold(sd), 3);
	T_EQ_U64(hs_stackdist_hits_at(sd, 2), 0);
	T_EQ_U64(hs_stackdist_hits_at(sd, 3), 2997);
	T_EQ_U64(hs_stackdist_depth(sd), 3);
	hs_stackdist_free(sd);

	T_EQ_I64(hs_stackdist_new(3, &sd), 0);
	for (i = 0; i < 3000; i++)
		T_EQ_I64(hs_stackdist_access(sd, (i / 2) % 3, NULL), 0);
	T_EQ_U64(hs_stackdist_cold(sd), 3);
	T_EQ_U64(hs_stackdist_hits_at(sd, 1), 1500);
	T_EQ_U64(hs_stackdist_hits_at(sd, 2), 1500);
	T_EQ_U64(hs_stackdist_hits_at(sd, 3), 2997);
	hs_stackdist_free(sd);

	T_EQ_I64(hs_stackdist_new(40, &sd), 0);
	for (i = 0; i < 4000; i++) {
		uint64_t d;

		k = i % 40;
		T_EQ_I64(hs_stackdist_access(sd, k, &d), 0);
		if (d != (i < 40 ? COLD : 40)) {
			t_fail(__FILE__, __LINE__, "access %u: distance %" PRIu64, i, d);
			break;
		}
	}
	T_EQ_U64(hs_stackdist_hits_at(sd, 39), 0);
	T_EQ_U64(hs_stackdist_hits_at(sd, 40), 3960);
	T_EQ_U64(hs_stackdist_max_dist(sd), 40);
	hs_stackdist_free(sd);
}

static void test_errors(void)
{
	struct hs_stackdist *sd = NULL;
	uint64_t d = 7;

	T_EQ_I64(hs_stackdist_new(0, &sd), -EINVAL);
	T_EQ_I64(hs_stackdist_new(HS_STACKDIST_MAX_KEYS + 1u, &sd), -EINVAL);
	T_ASSERT(sd == NULL);
	hs_stackdist_free(NULL);
	T_EQ_I64(hs_stackdist_new(2, &sd), 0);
	if (!sd)
		return;
	T_EQ_I64(hs_stackdist_access(sd, 2, &d), -EINVAL);
	T_EQ_U64(d, 7);
	T_EQ_I64(hs_stackdist_drop(sd, 2), -EINVAL);
	T_EQ_I64(hs_stackdist_step(sd, 2, M_PT, &d), -EINVAL);
	T_EQ_I64(hs_stackdist_step(sd, 0, (uint8_t)HS_CH_NR, &d), -EINVAL);
	T_EQ_I64(hs_stackdist_step(sd, 0, 7, &d), -EINVAL);
	T_EQ_U64(hs_stackdist_accesses(sd), 0);
	T_EQ_U64(hs_stackdist_depth(sd), 0);
	/* FD counts like PT; an anonymous written access is still an access. */
	T_EQ_I64(hs_stackdist_step(sd, 0, M_FD, &d), 0);
	T_EQ_U64(d, COLD);
	T_EQ_I64(hs_stackdist_step(sd, 0, hs_meta_make(HS_CH_PT, HS_TYPE_ANON, true), &d), 0);
	T_EQ_U64(d, 1);
	T_EQ_U64(hs_stackdist_accesses(sd), 2);
	hs_stackdist_free(sd);
}

/* splitmix64: the test's own generator, so streams do not depend on lib/gen.c. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rnd(s) % n);
}

enum shape { UNIFORM, SKEWED, LOOP, MIXED };

/*
 * n accesses over nr keys.  UNIFORM: every key alike.  SKEWED: 80% of the
 * accesses go to the first nr/10 keys.  LOOP: a cyclic scan over 85% of the
 * keys, one access in 16 replaced by a uniform one.  MIXED: SKEWED plus, per
 * record, 4% drops (FD and PT accesses alternate).  No COLD hints: LRU moves
 * a hinted key to its eviction end, which the stack model does not follow,
 * so with them the curve is neither LRU's nor a bound on it.
 */
static int make_stream(struct recs *r, enum shape shape, uint32_t nr, size_t n, uint64_t seed)
{
	uint32_t hot = HS_MAX(nr / 10, 1), loop = HS_MAX(nr * 85 / 100, 1), pos = 0;
	uint64_t s = seed;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->nr_keys = nr;
	for (i = 0; i < n; i++) {
		uint8_t meta = (i & 1) ? M_FD : M_PT;
		uint32_t k, roll = rnd_below(&s, 100);

		switch (shape) {
		case UNIFORM:
			k = rnd_below(&s, nr);
			break;
		case LOOP:
			if (rnd_below(&s, 16) == 0) {
				k = rnd_below(&s, nr);
			} else {
				k = pos;
				pos = (pos + 1) % loop;
			}
			break;
		case MIXED:
			if (roll < 4)
				meta = M_DROP;
			/* fall through */
		case SKEWED:
		default:
			k = rnd_below(&s, 100) < 80 ? rnd_below(&s, hot) : rnd_below(&s, nr);
			break;
		}
		if (recs_push(r, k, meta))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The second model: the stack itself, most recent first, searched linearly.
 * Every record's distance must equal the analyzer's.
 */
static void check_against_naive(const struct recs *r)
{
	uint32_t *stack = malloc(((size_t)r->nr_keys + 1) * sizeof(*stack));
	uint64_t *dists = malloc(r->n * sizeof(*dists));
	struct hs_stackdist *sd = NULL;
	uint32_t depth = 0, j;
	size_t i;

	if (!stack || !dists) {
		t_fail(__FILE__, __LINE__, "out of memory");
		goto out;
	}
	sd = sd_run(r, dists);
	if (!sd)
		goto out;
	for (i = 0; i < r->n; i++) {
		enum hs_channel ch = hs_meta_channel(r->meta[i]);
		uint64_t want = 0;

		for (j = 0; j < depth && stack[j] != r->keys[i]; j++)
			;
		if (ch == HS_CH_DROP && j < depth) {
			memmove(stack + j, stack + j + 1, (depth - j - 1) * sizeof(*stack));
			depth--;
		} else if (hs_channel_is_access(ch)) {
			want = j < depth ? j + 1 : COLD;
			if (j == depth)
				depth++;
			memmove(stack + 1, stack, j * sizeof(*stack));
			stack[0] = r->keys[i];
		}
		if (dists[i] != want) {
			t_fail(__FILE__, __LINE__, "record %zu (key %u): distance %" PRIu64
			       ", the naive stack says %" PRIu64, i, r->keys[i], dists[i], want);
			break;
		}
	}
	T_EQ_U64(hs_stackdist_depth(sd), depth);
out:
	hs_stackdist_free(sd);
	free(dists);
	free(stack);
}

static void test_naive_model(void)
{
	static const struct {
		enum shape	shape;
		uint32_t	keys;
		size_t		n;
	} runs[] = {
		{ MIXED, 50, 20000 }, { MIXED, 1, 500 }, { UNIFORM, 1000, 20000 },
		{ LOOP, 300, 20000 }, { MIXED, 700, 20000 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct recs r;

		if (make_stream(&r, runs[i].shape, runs[i].keys, runs[i].n, 42 + i))
			t_fail(__FILE__, __LINE__, "out of memory");
		else
			check_against_naive(&r);
		recs_free(&r);
	}
}

/*
 * The cross-check: LRU through the driver against the curve at every
 * capacity in caps.  exact: equality; else (streams with drops) LRU's hits
 * must not exceed the curve's, with equality from nr_keys up.
 */
static void cross_check(const char *name, const struct recs *r, const uint64_t *caps,
			size_t ncaps, bool exact)
{
	struct hs_stackdist *sd = sd_run(r, NULL);

	if (!sd)
		return;
	for (size_t i = 0; i < ncaps; i++) {
		uint64_t want = hs_stackdist_hits_at(sd, caps[i]);
		uint64_t got = lru_hits(r, caps[i]);

		if (got == UINT64_MAX)
			break;
		if (exact || caps[i] >= r->nr_keys ? got != want : got > want)
			t_fail(__FILE__, __LINE__, "%s at %" PRIu64 ": lru %" PRIu64
			       " hits, stack distances %" PRIu64, name, caps[i], got, want);
	}
	hs_stackdist_free(sd);
}

static void test_random_vs_lru(void)
{
	static const struct {
		const char	*name;
		enum shape	shape;
		bool		exact;
	} runs[] = {
		{ "uniform", UNIFORM, true }, { "skewed", SKEWED, true },
		{ "loop", LOOP, true }, { "mixed", MIXED, false },
	};
	const uint32_t nr = 2000;
	uint64_t caps[64];
	size_t nc = 0;
	uint64_t c;

	for (c = 1; c <= nr && nc < ARRAY_SIZE(caps) - 2; c += 37)
		caps[nc++] = c;
	caps[nc++] = nr;		/* everything fits: only cold misses */
	caps[nc++] = nr + 100;
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct recs r;

		if (make_stream(&r, runs[i].shape, nr, 50000, 1000 + i))
			t_fail(__FILE__, __LINE__, "out of memory");
		else
			cross_check(runs[i].name, &r, caps, nc, runs[i].exact);
		recs_free(&r);
	}
}

/* Public traces ($HSCTL_SHARED/traces). */

static int add_record(void *arg, uint64_t key, uint8_t meta)
{
	struct recs *r = arg;
	uint32_t id;
	int ret;

	ret = hs_keymap_add(r->km, key, &id);
	if (ret < 0)
		return ret;
	return recs_push(r, id, meta);
}

/* Load a trace by full path; 0, or fails the case and returns -1. */
static int load(const char *path, enum hs_trace_type type, struct recs *r)
{
	struct hs_trace_opts o = { .type = type, .lis_reverse = true };
	char err[512];
	int ret;

	memset(r, 0, sizeof(*r));
	if (hs_keymap_new(1 << 16, &r->km)) {
		t_fail(__FILE__, __LINE__, "out of memory");
		return -1;
	}
	ret = hs_trace_read(path, &o, add_record, r, err, sizeof(err));
	if (ret) {
		t_fail(__FILE__, __LINE__, "reading %s: %s", path, err);
		recs_free(r);
		return -1;
	}
	r->nr_keys = hs_keymap_count(r->km);
	return 0;
}

/* POLICIES.md 5.1: the LIRS authors' lru.c at three (two) sizes, percent. */
static const struct {
	const char	*file;
	uint64_t	caps[3];
	double		lru[3];
	int		n;
} lirs_pub[] = {
	{ "cpp.trace.gz", { 20, 100, 500 }, { 0.6, 69.7, 84.8 }, 3 },
	{ "gli.trace.gz", { 300, 1100, 1900 }, { 0.9, 11.2, 57.4 }, 3 },
	{ "sprite.trace.gz", { 100, 500, 900 }, { 21.6, 78.3, 89.8 }, 3 },
	{ "multi2.trace.gz", { 200, 1000, 1800 }, { 17.7, 47.8, 48.5 }, 3 },
	{ "2_pools.trace.gz", { 60, 250 }, { 14.0, 41.7 }, 2 },
};

/* The ARC article's Table 1, LRU column (OLTP). */
static const struct {
	uint64_t	c;
	double		lru;
} oltp_pub[] = {
	{ 1000, 32.83 }, { 2000, 42.47 }, { 5000, 53.65 }, { 10000, 60.70 }, { 15000, 64.63 },
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* hits / accesses in percent, rounded to digits decimals, must print as want. */
static void expect_printed(const char *name, uint64_t c, uint64_t hits, uint64_t accesses,
			   double want, int digits)
{
	double pct = 100.0 * (double)hits / (double)accesses, scale = pow(10, digits);

	if (fabs(round(pct * scale) / scale - want) > 1e-9)
		t_fail(__FILE__, __LINE__, "%s at %" PRIu64 ": MRC %.4f%%, published LRU %.*f%%",
		       name, c, pct, digits, want);
}

/* Run fn on every LIRS trace; skips without $HSCTL_SHARED. */
static void each_lirs_trace(void (*fn)(const char *name, const struct recs *r))
{
	const char *shared = t_shared();
	char pat[4096];
	glob_t g;

	if (!shared) {
		t_skip("HSCTL_SHARED is not set: no public traces here");
		return;
	}
	snprintf(pat, sizeof(pat), "%s/traces/lirs/*.trace.gz", shared);
	if (glob(pat, 0, NULL, &g)) {
		t_fail(__FILE__, __LINE__, "no LIRS traces match %s", pat);
		return;
	}
	/* The five traces of POLICIES.md 5.1 must be among them. */
	for (size_t i = 0; i < ARRAY_SIZE(lirs_pub); i++) {
		bool found = false;

		for (size_t j = 0; j < g.gl_pathc; j++)
			found |= !strcmp(base_name(g.gl_pathv[j]), lirs_pub[i].file);
		if (!found)
			t_fail(__FILE__, __LINE__, "%s is missing", lirs_pub[i].file);
	}
	for (size_t j = 0; j < g.gl_pathc; j++) {
		struct recs r;

		if (load(g.gl_pathv[j], HS_TRACE_LIRS, &r))
			break;
		fn(base_name(g.gl_pathv[j]), &r);
		recs_free(&r);
	}
	globfree(&g);
}

/*
 * A trace's capacities: its POLICIES.md 5.1 sizes, if any, and a dozen
 * spread geometrically from 1 to its number of distinct keys.
 */
static void lirs_cross(const char *name, const struct recs *r)
{
	uint64_t caps[16];
	size_t nc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(lirs_pub); i++)
		if (!strcmp(name, lirs_pub[i].file))
			for (int k = 0; k < lirs_pub[i].n; k++)
				caps[nc++] = lirs_pub[i].caps[k];
	for (int k = 0; k < 12; k++)
		caps[nc++] = (uint64_t)ceil(pow((double)r->nr_keys, k / 11.0));
	cross_check(name, r, caps, nc, true);
}

static void test_lirs_traces_vs_lru(void)
{
	each_lirs_trace(lirs_cross);
}

static void lirs_published(const char *name, const struct recs *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(lirs_pub); i++) {
		struct hs_stackdist *sd;

		if (strcmp(name, lirs_pub[i].file))
			continue;
		sd = sd_run(r, NULL);
		if (!sd)
			return;
		T_EQ_U64(hs_stackdist_accesses(sd), r->n);
		for (int k = 0; k < lirs_pub[i].n; k++)
			expect_printed(name, lirs_pub[i].caps[k],
				       hs_stackdist_hits_at(sd, lirs_pub[i].caps[k]), r->n,
				       lirs_pub[i].lru[k], 1);
		hs_stackdist_free(sd);
	}
}

static void test_lirs_published_from_mrc(void)
{
	each_lirs_trace(lirs_published);
}

static int load_oltp(struct recs *r)
{
	const char *shared = t_shared();
	char path[4096];

	if (!shared) {
		t_skip("HSCTL_SHARED is not set: no public traces here");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/traces/arc/OLTP.lis.gz", shared);
	if (load(path, HS_TRACE_LIS, r))
		return -1;
	/* POLICIES.md 5.3 */
	T_EQ_U64(r->n, 914145);
	T_EQ_U64(r->nr_keys, 186880);
	return 0;
}

static void test_oltp_vs_lru(void)
{
	uint64_t caps[15];
	struct recs r;

	if (load_oltp(&r))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
		caps[i] = 1000 * (i + 1);
	cross_check("OLTP", &r, caps, ARRAY_SIZE(caps), true);
	recs_free(&r);
}

/* The whole curve in one sweep must agree with hits_at at every capacity. */
static void test_oltp_published_from_mrc(void)
{
	struct hs_stackdist *sd;
	uint64_t *curve;
	struct recs r;
	size_t n;

	if (load_oltp(&r))
		return;
	sd = sd_run(&r, NULL);
	n = (size_t)r.nr_keys + 2;
	curve = malloc(n * sizeof(*curve));
	if (sd && curve) {
		T_EQ_I64(hs_stackdist_curve(sd, curve, n), 0);
		for (size_t i = 0; i < ARRAY_SIZE(oltp_pub); i++) {
			T_EQ_U64(curve[oltp_pub[i].c], hs_stackdist_hits_at(sd, oltp_pub[i].c));
			expect_printed("OLTP", oltp_pub[i].c, curve[oltp_pub[i].c], r.n,
				       oltp_pub[i].lru, 2);
		}
		/* Infinite memory misses only the first access to each key. */
		T_EQ_U64(curve[n - 1], r.n - r.nr_keys);
		T_EQ_U64(hs_stackdist_cold(sd), r.nr_keys);
	} else {
		t_fail(__FILE__, __LINE__, "out of memory");
	}
	free(curve);
	hs_stackdist_free(sd);
	recs_free(&r);
}

static const struct t_case cases[] = {
	{ "hand-abcabda", test_hand_abcabda },
	{ "hand-more", test_hand_more },
	{ "hand-drops-hints", test_hand_drops_hints },
	{ "model-limits", test_model_limits },
	{ "compaction", test_compaction },
	{ "errors", test_errors },
	{ "naive-model", test_naive_model },
	{ "random-vs-lru", test_random_vs_lru },
	{ "lirs-traces-vs-lru", test_lirs_traces_vs_lru },
	{ "lirs-published-from-mrc", test_lirs_published_from_mrc },
	{ "oltp-vs-lru", test_oltp_vs_lru },
	{ "oltp-published-from-mrc", test_oltp_published_from_mrc },
};

int main(int argc, char **argv)
{
	return t_main(cases, ARRAY_SIZE(cases), argc, argv);
}
