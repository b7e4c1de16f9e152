/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the synthetic generators (lib/gen.c): the PRNG against
 * published/hand-computed outputs, determinism for a seed, exact stream
 * lengths and sequences, key ranges, and the Zipf sampler's frequencies
 * against the theoretical shares 1/k^alpha / sum_j 1/j^alpha, with a
 * tolerance of five binomial standard deviations.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "access.h"
#include "gen.h"
#include "harness.h"
#include "hs.h"

static void test_splitmix(void)
{
	uint64_t st = 0;

	/* splitmix64 from state 0: the commonly published first output. */
	T_EQ_U64(hs_splitmix64(&st), 0xe220a8397b1dcdafull);
	T_EQ_U64(st, 0x9e3779b97f4a7c15ull);
}

static void test_xoshiro(void)
{
	struct hs_rng r = { .s = { 1, 2, 3, 4 } };

	/*
	 * By hand: out = rotl(s1 * 5, 7) * 9.
	 * 1st: s1 = 2 -> rotl(10, 7) * 9 = 1280 * 9 = 11520; then s = {7, 0, 262146, 6 << 45}.
	 * 2nd: s1 = 0 -> 0; then s1 = 0 ^ (262146 ^ 7) = 262149.
	 * 3rd: rotl(262149 * 5, 7) * 9 = 1310745 * 128 * 9 = 1509978240.
	 */
	T_EQ_U64(hs_rng_next(&r), 11520);
	T_EQ_U64(hs_rng_next(&r), 0);
	T_EQ_U64(hs_rng_next(&r), 1509978240);
}

static void test_double_range(void)
{
	struct hs_rng r;
	double lo = 1, hi = 0, sum = 0, x;
	int i;

	hs_rng_seed(&r, 42);
	for (i = 0; i < 100000; i++) {
		x = hs_rng_double(&r);
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		sum += x;
	}
	T_ASSERT(lo >= 0.0 && lo < 0.001);
	T_ASSERT(hi < 1.0 && hi > 0.999);
	/* Mean 1/2, sd of the mean sqrt(1/12 / 1e5) = 0.000913. */
	T_NEAR(sum / 100000, 0.5, 5 * 0.000913);
}

static uint64_t *stream(const struct hs_gen_opts *o, uint8_t **meta_out, uint64_t *n)
{
	struct hs_gen *g;
	uint64_t *keys, key;
	uint8_t *meta, m;
	uint64_t i = 0;

	*n = 0;
	keys = calloc(o->accesses + 1, sizeof(*keys));
	meta = calloc(o->accesses + 1, 1);
	T_ASSERT(keys && meta);
	T_EQ_I64(hs_gen_new(o, &g), 0);
	if (!keys || !meta || !g) {
		free(keys);
		free(meta);
		hs_gen_free(g);
		return NULL;
	}
	while (hs_gen_next(g, &key, &m) == 1) {
		if (i <= o->accesses) {
			keys[i] = key;
			meta[i] = m;
		}
		i++;
	}
	T_EQ_I64(hs_gen_next(g, &key, &m), 0);
	hs_gen_free(g);
	*n = i;
	if (meta_out)
		*meta_out = meta;
	else
		free(meta);
	return keys;
}

static void test_determinism(void)
{
	enum hs_gen_type t;

	for (t = 0; t < HS_GEN_NR; t++) {
		struct hs_gen_opts o;
		uint64_t *a, *b, *c, na, nb, nc, i, same = 0, diff = 0;
		uint8_t *ma, *mb, *mc;

		if (t == HS_GEN_LOOP)
			continue;	/* no randomness */
		hs_gen_opts_init(&o, t);
		o.accesses = 20000;
		o.keys = 1000;
		o.scan_every = 100;
		o.scan_len = 10;
		o.seed = 7;
		a = stream(&o, &ma, &na);
		b = stream(&o, &mb, &nb);
		o.seed = 8;
		c = stream(&o, &mc, &nc);
		if (!a || !b || !c)
			goto next;
		for (i = 0; i < o.accesses; i++) {
			same += a[i] == b[i] && ma[i] == mb[i];
			diff += a[i] != c[i];
		}
		T_EQ_U64(same, o.accesses);
		/*
		 * Another seed: most draws differ (scan keys of scan-mix do not).
		 * ycsb-load's seed picks the keys, so only the leaf each insert
		 * writes and where splits fall: record pages and the root agree.
		 */
		if (t == HS_GEN_YCSB_LOAD)
			T_ASSERT(diff > 0);
		else
			T_ASSERT(diff > o.accesses / 2);
next:
		free(a);
		free(b);
		free(c);
		free(ma);
		free(mb);
		free(mc);
	}
}

static void test_counts(void)
{
	static const uint64_t lens[] = { 1, 2, 3, 999, 12345 };
	enum hs_gen_type t;
	size_t i;

	for (t = 0; t < HS_GEN_NR; t++) {
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			struct hs_gen_opts o;
			uint64_t *k, n;

			hs_gen_opts_init(&o, t);
			o.accesses = lens[i];
			o.keys = 50;
			k = stream(&o, NULL, &n);
			T_EQ_U64(n, lens[i]);
			free(k);
		}
	}
}

static void test_loop(void)
{
	static const uint64_t want[] = { 0, 1, 2, 0, 1, 2, 0 };
	struct hs_gen_opts o;
	uint64_t *k, n, i;
	uint8_t *m;

	hs_gen_opts_init(&o, HS_GEN_LOOP);
	o.keys = 3;
	o.accesses = 7;
	k = stream(&o, &m, &n);
	T_EQ_U64(n, 7);
	for (i = 0; k && i < n; i++) {
		T_EQ_U64(k[i], want[i]);
		T_EQ_U64(m[i], HS_CH_PT);	/* default file/pt */
	}
	free(k);
	free(m);
}

static void test_scan_mix(void)
{
	struct hs_gen_opts o;
	uint64_t *k, n, i, fresh = 4, bad = 0;

	hs_gen_opts_init(&o, HS_GEN_SCAN_MIX);
	o.hot_keys = 4;
	o.keys = 1000;		/* ignored: the hot set is hot_keys */
	o.scan_every = 5;
	o.scan_len = 3;
	o.accesses = 8 * 1000 + 6;
	k = stream(&o, NULL, &n);
	T_EQ_U64(n, o.accesses);
	/* Cycle of 8: five hot keys (< 4), then three fresh keys 4, 5, 6, then 7, 8, 9, ... */
	for (i = 0; k && i < n; i++) {
		if (i % 8 < 5)
			bad += k[i] >= 4;
		else
			bad += k[i] != fresh++;
	}
	T_EQ_U64(bad, 0);
	T_EQ_U64(fresh, 4 + 3 * 1000 + 1);
	free(k);

	/* hot_keys 0 means keys. */
	o.hot_keys = 0;
	o.keys = 10;
	o.accesses = 5;
	k = stream(&o, NULL, &n);
	for (i = 0; k && i < n; i++)
		T_ASSERT(k[i] < 10);
	free(k);
}

static void test_scan_hot(void)
{
	/* seed 1, alpha 0.5 over 8 hot keys: `hsctl gen scan-hot --keys 48 --hot-keys 8` */
	static const uint64_t first[16] = { 1, 2, 2, 3, 1, 6, 7, 3, 0, 2, 0, 0, 0, 1, 2, 0 };
	struct hs_gen_opts o;
	uint64_t *k, n, i, scan = 0, bad = 0, hot_cnt[8] = { 0 };
	struct hs_gen *g;
	uint8_t *m;

	hs_gen_opts_init(&o, HS_GEN_SCAN_HOT);
	T_EQ_U64(o.scan_len, 16);
	T_EQ_U64(o.scan_every, 16);
	T_NEAR(o.alpha, 0.5, 0);
	T_EQ_U64(o.meta, HS_CH_FD);	/* file pages read(2) like the workload's */
	T_EQ_U64(o.hot_keys, 0);
	o.keys = 48;		/* hot_keys 0: 48 / 8 = 6 hot keys */
	o.accesses = 32;
	k = stream(&o, NULL, &n);
	for (i = 0; k && i < n; i++)
		T_ASSERT(i < 16 ? k[i] < 6 : k[i] == 6 + (i - 16));
	free(k);

	o.hot_keys = 8;		/* scan keys 8 .. 47: 40 of them */
	o.accesses = 32 * 5 + 3;
	k = stream(&o, &m, &n);
	T_EQ_U64(n, 163);
	for (i = 0; k && i < 16; i++)
		T_EQ_U64(k[i], first[i]);
	/* Cycle of 32: 16 hot keys (< 8), then 16 keys of the scan 8, 9, .. 47, 8, ... */
	for (i = 0; k && i < n; i++) {
		bad += m[i] != HS_CH_FD;
		if (i % 32 < 16) {
			bad += k[i] >= 8;
			hot_cnt[k[i] < 8 ? k[i] : 0]++;
		} else {
			bad += k[i] != 8 + scan++ % 40;
		}
	}
	T_EQ_U64(bad, 0);
	T_EQ_U64(scan, 5 * 16);		/* 80 scan keys: two passes over the 40 */
	T_EQ_U64(k ? k[127] : 0, 31);	/* access 127: scan index 63, key 8 + 63 % 40 */
	T_EQ_U64(k ? k[159] : 0, 47);	/* the 80th scan key ends the second pass */
	/* 83 hot accesses */
	T_EQ_U64(hot_cnt[0] + hot_cnt[1] + hot_cnt[2] + hot_cnt[3] + hot_cnt[4] + hot_cnt[5] +
		 hot_cnt[6] + hot_cnt[7], 83);
	free(k);
	free(m);

	/* a hot set as large as the keys leaves nothing to scan */
	o.hot_keys = 48;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
	T_ASSERT(!g);
	o.hot_keys = 0;
	o.keys = 1;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
}

/*
 * shared-map: scan-hot's turns, taken in rotation by --procs processes with
 * PRNGs of their own (seed + process): with keys 40, hot_keys 8 and 3
 * processes, turn 0 (process 0, seed 1) draws scan-hot's first hot keys,
 * turn 1 (process 1, seed 2) 6 1 5 1 1 5 1 5 1 1 4 1 0 0 6 1, turn 2
 * (process 2, seed 3) 1 1 5 2 3 3 5 1 0 5 0 1 1 1 1 6, and turn 3 is
 * process 0 again, going on with its own draws: its first hot keys are
 * then those of scan-hot's second turn (7 2 7 7 ..).  The scan is one,
 * shared: turn t scans keys 8 + 16 t (mod 32).  PT accesses to file pages.
 */
static void test_shared_map(void)
{
	static const uint64_t turn[4][4] = {
		{ 1, 2, 2, 3 }, { 6, 1, 5, 1 }, { 1, 1, 5, 2 }, { 7, 2, 7, 7 },
	};
	struct hs_gen_opts o, h;
	uint64_t *k, *kh, n, nh, i, bad = 0;
	struct hs_gen *g;
	uint8_t *m;

	hs_gen_opts_init(&o, HS_GEN_SHARED_MAP);
	T_EQ_U64(o.scan_len, 16);
	T_EQ_U64(o.scan_every, 16);
	T_EQ_U64(o.procs, 4);
	T_NEAR(o.alpha, 0.5, 0);
	T_EQ_U64(o.meta, HS_CH_PT);	/* file pages through a mapping */
	o.keys = 40;
	o.hot_keys = 8;
	o.procs = 3;
	o.accesses = 32 * 4;
	k = stream(&o, &m, &n);
	T_EQ_U64(n, 128);
	for (i = 0; k && i < n; i++) {
		/* the scan's mapping is advised MADV_RANDOM: no recency */
		bad += m[i] != (i % 32 < 16 ? HS_CH_PT : HS_CH_PT | HS_META_NORECENCY);
		if (i % 32 < 16)
			bad += k[i] >= 8;
		else
			bad += k[i] != 8 + ((i / 32) * 16 + i % 32 - 16) % 32;
		if (i % 32 < 4)
			T_EQ_U64(k[i], turn[i / 32][i % 32]);
	}
	T_EQ_U64(bad, 0);
	free(k);
	free(m);

	/* one process is scan-hot over the same keys, but for the channel */
	o.procs = 1;
	o.accesses = 32 * 5 + 7;
	hs_gen_opts_init(&h, HS_GEN_SCAN_HOT);
	h.keys = 40;
	h.hot_keys = 8;
	h.accesses = o.accesses;
	k = stream(&o, NULL, &n);
	kh = stream(&h, NULL, &nh);
	T_EQ_U64(n, nh);
	T_ASSERT(k && kh && !memcmp(k, kh, (size_t)n * sizeof(*k)));
	free(k);
	free(kh);

	o.procs = 0;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
	T_ASSERT(!g);
	o.procs = HS_GEN_MAX_PROCS + 1;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
	o.procs = HS_GEN_MAX_PROCS;
	T_EQ_I64(hs_gen_new(&o, &g), 0);
	hs_gen_free(g);
	o.hot_keys = 40;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
}

/*
 * ycsb-load by hand: the root leaf is page 0 and records go to page 1 (four
 * 1024-byte records a page), so inserts 1..255 are "0 written, record page
 * written" with record pages 1..64 (insert 255 is page 64's third record).
 * Insert 256 finds the root leaf full (255 keys): a new root (page 65,
 * written), the split (page 0, new page 66, the root 65: written), the
 * descent (65 read), the leaf (written) and page 64's fourth record.
 */
static void test_ycsb_load(void)
{
	const uint8_t w = HS_CH_PT | HS_META_ANON | HS_META_WRITE, r = HS_CH_PT | HS_META_ANON;
	static const uint64_t split[7] = { 65, 0, 66, 65, 65, 0, 64 };
	struct hs_gen_opts o;
	uint64_t *k, n, i, bad = 0, top = 0;
	uint8_t *m;

	hs_gen_opts_init(&o, HS_GEN_YCSB_LOAD);
	T_EQ_U64(o.meta, r);
	o.accesses = 2000;
	k = stream(&o, &m, &n);
	T_EQ_U64(n, 2000);
	for (i = 0; k && i < 510; i++)
		bad += k[i] != (i % 2 ? 1 + (i / 2) / 4 : 0) || m[i] != w;
	T_EQ_U64(bad, 0);
	for (i = 0; k && i < 7; i++) {
		T_EQ_U64(k[510 + i], split[i]);
		T_EQ_U64(m[510 + i], i == 4 ? r : w);
	}
	for (i = 0; k && i < n; i++)
		top = k[i] > top ? k[i] : top;
	T_EQ_U64(top, 191);	/* 192 pages: `hsctl gen ycsb-load --accesses 2000` */
	free(k);
	free(m);
}

static double harmonic(uint64_t n, double alpha)
{
	double s = 0;
	uint64_t j;

	for (j = n; j >= 1; j--)	/* small terms first */
		s += pow((double)j, -alpha);
	return s;
}

/* Rank shares of @samples draws against theory, for ranks 1, 2 and 10. */
static void check_zipf(uint64_t n, double alpha, uint64_t samples)
{
	static const uint64_t ranks[] = { 1, 2, 10 };
	uint64_t cnt[3] = { 0 }, k, i, out = 0;
	double hsum = harmonic(n, alpha);
	struct hs_zipf z;
	struct hs_rng r;
	size_t j;

	T_EQ_I64(hs_zipf_init(&z, n, alpha), 0);
	hs_rng_seed(&r, 12345);
	for (i = 0; i < samples; i++) {
		k = hs_zipf_sample(&z, &r);
		out += k < 1 || k > n;
		for (j = 0; j < 3; j++)
			cnt[j] += k == ranks[j];
	}
	T_EQ_U64(out, 0);
	for (j = 0; j < 3; j++) {
		double p = pow((double)ranks[j], -alpha) / hsum;
		double sd = sqrt(p * (1 - p) / (double)samples);
		double got = (double)cnt[j] / (double)samples;

		if (fabs(got - p) > 5 * sd)
			t_fail(__FILE__, __LINE__, "n=%" PRIu64 " alpha=%g rank %" PRIu64
			       ": share %.5f, theory %.5f (sd %.5f)", n, alpha, ranks[j], got, p,
			       sd);
	}
}

static void test_zipf_shares(void)
{
	check_zipf(1000, 0.5, 400000);
	check_zipf(1000, 0.99, 400000);
	check_zipf(1000, 1.0, 400000);
	check_zipf(1000, 1.2, 400000);
	check_zipf(1000, 2.0, 400000);
	check_zipf(10, 0.0, 400000);	/* uniform: 1/10 each */
	check_zipf(100000, 0.99, 400000);
	check_zipf(20, 3.5, 400000);
}

/* Every rank of a small Zipf: chi-square with 7 degrees of freedom. */
static void test_zipf_chi2(void)
{
	static const double alphas[] = { 0.3, 1.0, 1.7 };
	const uint64_t n = 8, samples = 200000;
	size_t a;

	for (a = 0; a < ARRAY_SIZE(alphas); a++) {
		uint64_t cnt[9] = { 0 }, i;
		double hsum = harmonic(n, alphas[a]), chi2 = 0;
		struct hs_zipf z;
		struct hs_rng r;

		T_EQ_I64(hs_zipf_init(&z, n, alphas[a]), 0);
		hs_rng_seed(&r, 99);
		for (i = 0; i < samples; i++)
			cnt[hs_zipf_sample(&z, &r)]++;
		T_EQ_U64(cnt[0], 0);
		for (i = 1; i <= n; i++) {
			double e = (double)samples * pow((double)i, -alphas[a]) / hsum;

			chi2 += ((double)cnt[i] - e) * ((double)cnt[i] - e) / e;
		}
		/* P(chi2_7 > 29.9) = 1e-4. */
		if (chi2 > 29.9)
			t_fail(__FILE__, __LINE__, "alpha %g: chi-square %.1f", alphas[a], chi2);
	}
}

static void test_zipf_edges(void)
{
	struct hs_zipf z;
	struct hs_rng r;
	int i, bad = 0;

	T_EQ_I64(hs_zipf_init(&z, 0, 1.0), -EINVAL);
	T_EQ_I64(hs_zipf_init(&z, 10, -0.1), -EINVAL);
	T_EQ_I64(hs_zipf_init(&z, 10, NAN), -EINVAL);
	T_EQ_I64(hs_zipf_init(&z, 10, 101), -EINVAL);
	T_EQ_I64(hs_zipf_init(&z, 1, 0.99), 0);
	hs_rng_seed(&r, 1);
	for (i = 0; i < 1000; i++)
		bad += hs_zipf_sample(&z, &r) != 1;
	T_EQ_U64(bad, 0);
	/* A huge key space: draws stay in range. */
	T_EQ_I64(hs_zipf_init(&z, 1ull << 40, 0.99), 0);
	for (i = 0; i < 10000; i++) {
		uint64_t k = hs_zipf_sample(&z, &r);

		bad += k < 1 || k > (1ull << 40);
	}
	T_EQ_U64(bad, 0);
}

static void test_zipf_keys(void)
{
	struct hs_gen_opts o;
	uint64_t *k, n, i, bad = 0, zero = 0;
	uint8_t *m;

	hs_gen_opts_init(&o, HS_GEN_ZIPF);
	o.keys = 100;
	o.alpha = 1.0;
	o.accesses = 100000;
	k = stream(&o, &m, &n);
	for (i = 0; k && i < n; i++) {
		bad += k[i] >= 100 || m[i] != HS_CH_PT;
		zero += k[i] == 0;
	}
	T_EQ_U64(bad, 0);
	/* key 0 is rank 1: share 1/H(100, 1) = 1/5.18738 = 0.19277, sd 0.00125. */
	T_NEAR((double)zero / 100000, 0.192776, 5 * 0.00125);
	free(k);
	free(m);
}

static void test_ycsb_f(void)
{
	struct hs_gen_opts o;
	uint64_t *k, n, i, reads = 0, writes = 0, bad = 0;
	uint8_t *m;
	const uint8_t rd = HS_CH_PT | HS_META_ANON;

	hs_gen_opts_init(&o, HS_GEN_YCSB_F);
	T_EQ_U64(o.meta, rd);
	T_NEAR(o.alpha, 0.99, 0);
	o.keys = 500;
	o.accesses = 150001;
	k = stream(&o, &m, &n);
	T_EQ_U64(n, 150001);
	for (i = 0; k && i < n; i++) {
		bad += k[i] >= 500;
		if (m[i] == rd) {
			reads++;
		} else if (m[i] == (rd | HS_META_WRITE)) {
			writes++;
			/* A write follows the read of the same record. */
			bad += i == 0 || k[i - 1] != k[i] || m[i - 1] != rd;
		} else {
			bad++;
		}
	}
	T_EQ_U64(bad, 0);
	/*
	 * ops = reads; each is an RMW with probability 1/2, so writes ~ reads / 2:
	 * 100000 ops, sd of the write count sqrt(1e5 / 4) = 158.
	 */
	T_EQ_U64(reads + writes, 150001);
	T_ASSERT(fabs((double)writes - (double)reads / 2) < 5 * 158);
	free(k);
	free(m);
}

static void test_names(void)
{
	enum hs_gen_type t;
	struct hs_gen_opts o;
	struct hs_gen *g;

	T_EQ_I64(hs_gen_type_parse("scan-mix", &t), 0);
	T_EQ_I64(t, HS_GEN_SCAN_MIX);
	T_EQ_I64(hs_gen_type_parse("ycsb-f", &t), 0);
	T_EQ_I64(t, HS_GEN_YCSB_F);
	T_EQ_I64(hs_gen_type_parse("ycsb", &t), -EINVAL);
	T_EQ_STR(hs_gen_type_name(HS_GEN_LOOP), "loop");
	T_EQ_STR(hs_gen_type_name(HS_GEN_NR), "?");
	T_EQ_STR(hs_gen_type_list(),
		 "zipf, loop, scan-mix, ycsb-f, scan-hot, ycsb-load, shared-map");
	T_EQ_I64(hs_gen_type_parse("scan-hot", &t), 0);
	T_EQ_I64(t, HS_GEN_SCAN_HOT);
	T_EQ_I64(hs_gen_type_parse("shared-map", &t), 0);
	T_EQ_I64(t, HS_GEN_SHARED_MAP);

	hs_gen_opts_init(&o, HS_GEN_ZIPF);
	T_EQ_U64(o.accesses, 100000);
	T_EQ_U64(o.keys, 10000);
	T_EQ_U64(o.seed, 1);
	o.keys = 0;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
	T_ASSERT(!g);
	o.keys = 5;
	o.accesses = 0;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
	o.accesses = 5;
	o.alpha = -1;
	T_EQ_I64(hs_gen_new(&o, &g), -EINVAL);
	hs_gen_free(NULL);
}

static const struct t_case cases[] = {
	{ "splitmix", test_splitmix },
	{ "xoshiro", test_xoshiro },
	{ "double_range", test_double_range },
	{ "determinism", test_determinism },
	{ "counts", test_counts },
	{ "loop", test_loop },
	{ "scan_mix", test_scan_mix },
	{ "scan_hot", test_scan_hot },
	{ "shared_map", test_shared_map },
	{ "ycsb_load", test_ycsb_load },
	{ "zipf_shares", test_zipf_shares },
	{ "zipf_chi2", test_zipf_chi2 },
	{ "zipf_edges", test_zipf_edges },
	{ "zipf_keys", test_zipf_keys },
	{ "ycsb_f", test_ycsb_f },
	{ "names", test_names },
};

int main(int argc, char **argv)
{
	return t_main(cases, ARRAY_SIZE(cases), argc, argv);
}
