/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of lib/keymap.c: dense ids in order of first appearance on a
 * hand-checked sequence, extreme key values, growth through many doublings,
 * and a large pseudo-random stream cross-checked against a direct-indexed
 * model (pool index -> first-seen id) that shares no code with the map.
 * hs_keymap_add_many() against one call per key, on random keys and on keys
 * in runs (its second path).  Narrow tables (keys below 2^32) widening.
 * Wide keys with records (the lifecycle builder's tables): keys that differ
 * in one word only, zeroed records that keep their state through growth.
 * Tables sized ahead (hs_keymap_expect()) give the same ids.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hs.h"
#include "keymap.h"

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A bijection on 64-bit values (odd multiply, xor-shift), so distinct i give distinct keys. */
static uint64_t pool_key(uint64_t i)
{
	i *= 0xd6e8feb86659fd93ULL;
	i ^= i >> 32;
	return i;
}

static void test_exact(void)
{
	static const uint64_t in[] = { 10, 20, 10, 0, UINT64_MAX, 20, 0, 1ull << 63 };
	static const uint32_t want_id[] = { 0, 1, 0, 2, 3, 1, 2, 4 };
	static const int want_ret[] = { 1, 1, 0, 1, 1, 0, 0, 1 };
	static const uint64_t want_ids[] = { 10, 20, 0, UINT64_MAX, 1ull << 63 };
	struct hs_keymap *km = NULL;
	uint32_t id = 77;
	size_t i;

	T_EQ_I64(hs_keymap_new(0, &km), 0);
	if (!km)
		return;
	T_EQ_U64(hs_keymap_count(km), 0);
	T_ASSERT(!hs_keymap_lookup(km, 10, &id));
	T_EQ_U64(id, 77);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		T_EQ_I64(hs_keymap_add(km, in[i], &id), want_ret[i]);
		T_EQ_U64(id, want_id[i]);
	}
	T_EQ_U64(hs_keymap_count(km), 5);
	for (i = 0; i < 5; i++) {
		T_EQ_U64(hs_keymap_ids(km)[i], want_ids[i]);
		T_ASSERT(hs_keymap_lookup(km, want_ids[i], &id));
		T_EQ_U64(id, i);
	}
	T_ASSERT(!hs_keymap_lookup(km, 11, &id));
	T_ASSERT(!hs_keymap_lookup(km, UINT64_MAX - 1, &id));
	hs_keymap_free(km);
	hs_keymap_free(NULL);
}

/* Sequential, strided and high-bit keys through many doublings from the smallest table. */
static void test_growth(void)
{
	static const uint64_t strides[] = { 1, 4096, 1ull << 32, 1ull << 40 };
	size_t s;

	for (s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
		struct hs_keymap *km = NULL;
		uint64_t i, bad = 0;
		uint32_t id;

		T_EQ_I64(hs_keymap_new(0, &km), 0);
		if (!km)
			return;
		for (i = 0; i < 300000; i++)
			bad += hs_keymap_add(km, i * strides[s], &id) != 1 || id != i;
		/* second pass: all known, same ids */
		for (i = 0; i < 300000; i++)
			bad += hs_keymap_add(km, i * strides[s], &id) != 0 || id != i;
		for (i = 0; i < 300000; i++)
			bad += hs_keymap_ids(km)[i] != i * strides[s];
		T_EQ_U64(bad, 0);
		T_EQ_U64(hs_keymap_count(km), 300000);
		hs_keymap_free(km);
	}
}

/* The key of pool entry @i: any 64-bit value, or (@narrow) a distinct one below 2^32. */
static uint64_t model_key(uint64_t i, bool narrow)
{
	return narrow ? (uint32_t)(i * 2654435761u) : pool_key(i);
}

/*
 * @picks picks from a pool of 2^@pool_bits keys, some never picked, against a
 * direct array, in a map made with @expect.  A map of 209,715 or more
 * (a table of 2 MiB) grows in place while its keys are @narrow
 * (grow_in_place()); then a key of 2^32 or more widens it, and every key
 * must still be found.
 */
static void random_model_case(size_t expect, bool narrow, unsigned int pool_bits,
			      uint64_t picks)
{
	const uint32_t pool = 1u << pool_bits;
	const uint32_t none = UINT32_MAX;
	struct hs_keymap *km = NULL;
	uint32_t *first = malloc(pool * sizeof(*first));
	uint32_t next = 0, id, j;
	uint64_t i, bad = 0;

	T_ASSERT(first);
	if (!first)
		return;
	for (j = 0; j < pool; j++)
		first[j] = none;
	T_EQ_I64(hs_keymap_new(expect, &km), 0);
	if (!km)
		goto out;
	for (i = 0; i < picks; i++) {
		uint64_t r = rng();
		/* skewed: half the picks from the first 1/16 of the pool */
		uint32_t pick = (uint32_t)(r & 1 ? (r >> 8) % (pool / 16) : (r >> 8) % pool);
		int ret = hs_keymap_add(km, model_key(pick, narrow), &id);

		if (first[pick] == none) {
			first[pick] = next++;
			bad += ret != 1;
		} else {
			bad += ret != 0;
		}
		bad += id != first[pick];
	}
	T_EQ_U64(bad, 0);
	T_EQ_U64(hs_keymap_count(km), next);
	if (narrow) {
		T_EQ_I64(hs_keymap_add(km, 1ull << 40, &id), 1);
		T_EQ_U64(id, next);
	}
	for (j = 0; j < pool; j++) {
		bool found = hs_keymap_lookup(km, model_key(j, narrow), &id);

		if (first[j] == none) {
			bad += found;
		} else {
			bad += !found || id != first[j];
			bad += hs_keymap_ids(km)[first[j]] != model_key(j, narrow);
		}
	}
	T_EQ_U64(bad, 0);
	hs_keymap_free(km);
out:
	free(first);
}

static void test_random_model(void)
{
	random_model_case(1000, false, 20, 4000000);
	/* from 2^18 narrow slots, in place to 2^22: 2.6 M keys of 2^22 */
	random_model_case(209715, true, 22, 8000000);
}

/*
 * The batch call gives the same ids and counts as one call per key.  @wide:
 * 0 keys below 2^32 throughout (the narrow table's own loop, through six
 * doublings from 1,024 slots), 1 any 64-bit keys (the table is widened by
 * the first), 2 keys below 2^32 until the middle of a batch, then any (the
 * narrow loop stops there and the generic one widens the table).
 */
static void add_many_case(int wide)
{
	enum { N = 1000000, BLOCK = 4096 };
	struct hs_keymap *one = NULL, *many = NULL;
	uint64_t *keys = malloc(N * sizeof(*keys));
	uint32_t *ids = malloc(N * sizeof(*ids));
	uint64_t bad = 0, new_one = 0, new_many = 0;
	size_t i;

	T_ASSERT(keys && ids);
	if (!keys || !ids)
		goto out;
	T_EQ_I64(hs_keymap_new(0, &one), 0);
	T_EQ_I64(hs_keymap_new(0, &many), 0);
	if (!one || !many)
		goto out;
	for (i = 0; i < N; i++) {
		keys[i] = pool_key(rng() % 300000);
		if (wide == 0 || (wide == 2 && i < N / 2 + BLOCK / 2))
			keys[i] &= UINT32_MAX;
	}
	for (i = 0; i < N; i += BLOCK) {
		size_t n = N - i < BLOCK ? N - i : BLOCK;
		long ret = hs_keymap_add_many(many, keys + i, n, ids + i);

		T_ASSERT(ret >= 0);
		new_many += (uint64_t)ret;
	}
	for (i = 0; i < N; i++) {
		uint32_t id;
		int ret = hs_keymap_add(one, keys[i], &id);

		new_one += ret == 1;
		bad += id != ids[i];
	}
	T_EQ_U64(bad, 0);
	T_EQ_U64(new_many, new_one);
	T_EQ_U64(hs_keymap_count(many), new_one);
	T_EQ_I64(hs_keymap_add_many(many, keys, 0, ids), 0);
out:
	hs_keymap_free(one);
	hs_keymap_free(many);
	free(keys);
	free(ids);
}

static void test_add_many(void)
{
	add_many_case(0);
	add_many_case(1);
	add_many_case(2);
}

/*
 * Keys in runs (hs_keymap_add_many() finds a run's keys next to the
 * predecessor's record): a run seen again in the same order, in the other
 * order, shifted by one, and a run over the top of the 64-bit range.
 */
static void test_runs_exact(void)
{
	static const uint64_t keys[] = {
		10, 11, 12, 20, 19, 18, 10, 11, 12, 18, 19, 20, 11, 12, 13,
		UINT64_MAX - 1, UINT64_MAX, 0, 1, 12, 11, 10,
	};
	static const uint32_t want[] = {
		0, 1, 2, 3, 4, 5, 0, 1, 2, 5, 4, 3, 1, 2, 6,
		7, 8, 9, 10, 2, 1, 0,
	};
	enum { N = sizeof(keys) / sizeof(keys[0]) };
	struct hs_keymap *km = NULL;
	uint32_t ids[N];
	size_t i;

	T_EQ_I64(hs_keymap_new(0, &km), 0);
	if (!km)
		return;
	T_EQ_I64(hs_keymap_add_many(km, keys, N, ids), 11);
	for (i = 0; i < N; i++)
		T_EQ_U64(ids[i], want[i]);
	T_EQ_U64(hs_keymap_count(km), 11);
	hs_keymap_free(km);
}

/*
 * Block-trace-like keys -- requests of 1 to 40 consecutive blocks, either
 * way, some repeating an earlier request or overlapping it, some single
 * random keys, in the second half a few of 2^32 or more (both maps widen)
 * -- in batches of 1 to 5000 keys, through several doublings
 * of the table: the batch call gives the ids of one call per key.  The
 * batch map is sized as an import's (a table of one huge page, its records
 * in address space reserved for all ids), the other grows from 1024 slots.
 */
static void test_add_many_runs(void)
{
	enum { N = 1000000, REQS = 4096 };
	struct hs_keymap *one = NULL, *many = NULL;
	uint64_t *keys = malloc(N * sizeof(*keys));
	uint32_t *ids = malloc(N * sizeof(*ids));
	uint64_t start[REQS], bad = 0, new_one = 0, new_many = 0;
	unsigned int len[REQS];
	size_t i = 0, nreq = 0;

	T_ASSERT(keys && ids);
	if (!keys || !ids)
		goto out;
	T_EQ_I64(hs_keymap_new(0, &one), 0);
	T_EQ_I64(hs_keymap_new(131072 / 5 * 4, &many), 0);
	if (!one || !many)
		goto out;
	while (i < N) {
		uint64_t r = rng() % 100, s;
		unsigned int l, k;
		bool down = rng() & 1;

		if (r < 10) {
			keys[i++] = rng() % 500000;	/* a single key */
			if (i > N / 2 && r == 0)	/* the second half: some of 2^32 or more */
				keys[i - 1] += (uint64_t)1 << 32;
			continue;
		}
		if (r < 60 && nreq) {			/* an earlier request again */
			k = (unsigned int)(rng() % nreq);
			s = start[k] + (r < 50 ? 0 : rng() % 3);	/* or shifted */
			l = len[k];
		} else {
			s = rng() % 500000;
			l = 1 + (unsigned int)(rng() % 40);
			if (nreq < REQS) {
				start[nreq] = s;
				len[nreq++] = l;
			} else {
				start[rng() % REQS] = s;
			}
		}
		for (k = 0; k < l && i < N; k++)
			keys[i++] = down ? s + l - 1 - k : s + k;
	}
	for (i = 0; i < N;) {
		size_t n = 1 + rng() % 5000;
		long ret;

		n = n < N - i ? n : N - i;
		ret = hs_keymap_add_many(many, keys + i, n, ids + i);
		T_ASSERT(ret >= 0);
		new_many += ret > 0 ? (uint64_t)ret : 0;
		i += n;
	}
	for (i = 0; i < N; i++) {
		uint32_t id;
		int ret = hs_keymap_add(one, keys[i], &id);

		new_one += ret == 1;
		bad += id != ids[i];
	}
	T_EQ_U64(bad, 0);
	T_EQ_U64(new_many, new_one);
	T_EQ_U64(hs_keymap_count(many), new_one);
	T_ASSERT(new_one > 2 * 131072);	/* both maps double */
out:
	hs_keymap_free(one);
	hs_keymap_free(many);
	free(keys);
	free(ids);
}

/*
 * A one-word map keeps keys below 2^32 in narrow slots and widens its table
 * at the first key of 2^32 or more: 100,000 keys 7 k (through seven
 * doublings, narrow), then 2^32 + 7, whose low word is key 7's, gets a new
 * id; every key keeps its id across the widening and the doubling after it.
 */
static void test_narrow_widen(void)
{
	const uint64_t big = (uint64_t)1 << 32;
	struct hs_keymap *km = NULL;
	uint64_t k, bad = 0;
	uint32_t id = 0;

	T_EQ_I64(hs_keymap_new(0, &km), 0);
	if (!km)
		return;
	for (k = 0; k < 100000; k++)
		bad += hs_keymap_add(km, 7 * k, &id) != 1 || id != k;
	T_EQ_U64(bad, 0);
	T_EQ_I64(hs_keymap_lookup(km, big + 7, &id), false);
	T_EQ_I64(hs_keymap_add(km, big + 7, &id), 1);
	T_EQ_U64(id, 100000);
	T_EQ_I64(hs_keymap_add(km, 7, &id), 0);
	T_EQ_U64(id, 1);
	T_EQ_I64(hs_keymap_lookup(km, big + 14, &id), false);
	for (k = 0; k < 100000; k++)	/* 200,000 keys: one more doubling, wide */
		bad += hs_keymap_add(km, big + 7 * k + 1, &id) != 1 || id != 100001 + k;
	for (k = 0; k < 100000; k++)
		bad += !hs_keymap_lookup(km, 7 * k, &id) || id != k;
	T_EQ_U64(bad, 0);
	T_EQ_I64(hs_keymap_lookup(km, big + 7, &id), true);
	T_EQ_U64(id, 100000);
	T_EQ_U64(hs_keymap_count(km), 200001);
	hs_keymap_free(km);
}

/* A record as the lifecycle builder keeps one: three key words, then state. */
struct wrec {
	uint64_t	k[3];
	uint32_t	val;
	uint32_t	pad;
};

/*
 * Keys (a, b, c) that differ in one word only get their own ids; a new
 * record is zeroed after its key; 5000 keys (through three doublings from
 * 1024 slots) keep their records; the argument checks.
 */
static void test_wide(void)
{
	static const uint64_t in[][3] = {
		{ 1, 2, 3 }, { 1, 2, 4 }, { 1, 3, 3 }, { 2, 2, 3 }, { 1, 2, 3 }, { 0, 0, 0 },
		{ 2, 2, 3 },
	};
	static const uint32_t want_id[] = { 0, 1, 2, 3, 0, 4, 3 };
	static const int want_ret[] = { 1, 1, 1, 1, 0, 1, 0 };
	struct hs_keymap *km = NULL;
	const uint64_t miss[3] = { 3, 2, 1 };
	struct wrec *r;
	uint32_t id = 77, i;

	T_EQ_I64(hs_keymap_new_rec(0, 8, 0, &km), -EINVAL);
	T_EQ_I64(hs_keymap_new_rec(HS_KEYMAP_MAX_WORDS + 1, 64, 0, &km), -EINVAL);
	T_EQ_I64(hs_keymap_new_rec(3, 16, 0, &km), -EINVAL);
	T_EQ_I64(hs_keymap_new_rec(3, sizeof(struct wrec), 0, &km), 0);
	if (!km)
		return;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		T_EQ_I64(hs_keymap_add_key(km, in[i], &id), want_ret[i]);
		T_EQ_U64(id, want_id[i]);
		r = hs_keymap_rec(km, id);
		T_EQ_U64(r->k[0], in[i][0]);
		T_EQ_U64(r->k[2], in[i][2]);
		if (want_ret[i])
			T_EQ_U64(r->val, 0);
		r->val = 100 + id;
	}
	T_EQ_U64(hs_keymap_count(km), 5);
	T_ASSERT(!hs_keymap_lookup_key(km, miss, &id));
	T_ASSERT(hs_keymap_lookup_key(km, in[3], &id));
	T_EQ_U64(id, 3);
	for (i = 0; i < 5000; i++) {
		const uint64_t k[3] = { 7, i, i % 3 };

		T_EQ_I64(hs_keymap_add_key(km, k, &id), 1);
		T_EQ_U64(id, 5 + i);
		((struct wrec *)hs_keymap_rec(km, id))->val = i;
	}
	for (i = 0; i < 5000; i++) {
		const uint64_t k[3] = { 7, i, i % 3 };

		if (!hs_keymap_lookup_key(km, k, &id) || id != 5 + i ||
		    ((struct wrec *)hs_keymap_rec(km, id))->val != i) {
			t_fail(__FILE__, __LINE__, "wide key %u lost", i);
			break;
		}
	}
	T_ASSERT(hs_keymap_lookup_key(km, in[1], &id));
	T_EQ_U64(((struct wrec *)hs_keymap_rec(km, id))->val, 101);
	T_EQ_U64(hs_keymap_count(km), 5005);
	hs_keymap_free(km);
}

/*
 * hs_keymap_expect() early, late, too high and too low changes no id: an
 * import-sized map (reserved, narrow: sized in place) and a small one
 * (rebuilt), with keys below 2^32 and then wider ones (the table widens
 * after it was sized).
 */
static void test_expect(void)
{
	const size_t n = 400000, step = 4096;
	static const size_t hint[] = { 0, 262144 / 5 * 4 };
	static const size_t expect[] = { 1000, 150000, 3000000 };
	uint64_t *keys = malloc(n * sizeof(*keys));
	uint32_t *want = malloc(n * sizeof(*want)), *got = malloc(n * sizeof(*got));
	struct hs_keymap *ref = NULL, *km = NULL;
	size_t h, e, i, at;

	T_ASSERT(keys && want && got);
	if (!keys || !want || !got)
		goto out;
	for (i = 0; i < n; i++)	/* about 100,000 keys; the last tenth 2^32 and up */
		keys[i] = (rng() % 100000) + (i >= n / 10 * 9 ? 1ull << 40 : 0);
	T_EQ_I64(hs_keymap_new(0, &ref), 0);
	T_EQ_I64(hs_keymap_add_many(ref, keys, n, want) >= 0, 1);
	for (h = 0; h < ARRAY_SIZE(hint); h++) {
		for (e = 0; e < ARRAY_SIZE(expect); e++) {
			for (at = 0; at <= n / 2; at += n / 2) {
				T_EQ_I64(hs_keymap_new(hint[h], &km), 0);
				for (i = 0; i < n; i += step) {
					if (i == at)
						T_EQ_I64(hs_keymap_expect(km, expect[e]), 0);
					T_EQ_I64(hs_keymap_add_many(km, keys + i,
								    HS_MIN(step, n - i),
								    got + i) >= 0, 1);
				}
				T_EQ_U64(hs_keymap_count(km), hs_keymap_count(ref));
				T_ASSERT(!memcmp(got, want, n * sizeof(*got)));
				T_ASSERT(!memcmp(hs_keymap_ids(km), hs_keymap_ids(ref),
						 hs_keymap_count(ref) * sizeof(uint64_t)));
				hs_keymap_free(km);
			}
		}
	}
out:
	hs_keymap_free(ref);
	free(keys);
	free(want);
	free(got);
}

static const struct t_case cases[] = {
	{ "exact", test_exact },
	{ "growth", test_growth },
	{ "random_model", test_random_model },
	{ "add_many", test_add_many },
	{ "runs_exact", test_runs_exact },
	{ "add_many_runs", test_add_many_runs },
	{ "narrow_widen", test_narrow_widen },
	{ "wide", test_wide },
	{ "expect", test_expect },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
