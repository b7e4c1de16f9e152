/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the per-page fidelity figures (analyzers/fidelity.c) on histories
 * small enough to work out on paper; each case's comment shows the working.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "fidelity.h"
#include "folios.h"
#include "harness.h"
#include "hs.h"
#include "life.h"
#include "neigh.h"
#include "policy.h"
#include "qlist.h"
#include "replay.h"
#include "store.h"

/*
 * The stream: position 0 1 2 3 4 5 6 7 8 9
 *             key      0 1 2 0 3 1 0 2 3 0
 */
static const uint32_t stream10[] = { 0, 1, 2, 0, 3, 1, 0, 2, 3, 0 };

/* The kernel reclaims k0 at 2 and 8, k1 at 5. */
static const struct hs_fid_event kernel10[] = { { 2, 0 }, { 5, 1 }, { 8, 0 } };

/* The model evicts k0 at 3 and 7, k2 at 8, k1 at 9. */
static const struct hs_fid_event model10[] = { { 3, 0 }, { 7, 0 }, { 8, 2 }, { 9, 1 } };

static struct hs_fid_input input10(void)
{
	struct hs_fid_input in = {
		.stream = stream10, .length = 10, .nr_keys = 4, .capacity = 16,
		.ref = kernel10, .n_ref = ARRAY_SIZE(kernel10),
		.other = model10, .n_other = ARRAY_SIZE(model10),
	};

	return in;
}

/*
 * Capacity 16: windows 1, 4 and 16.
 *  k0: reclaims 2, 8; evictions 3, 7.  w=1: 2 takes 3 (lag +1), 8 takes 7
 *      (lag -1): 2 matches at every window.
 *  k1: reclaim 5; eviction 9: lag 4, so matched at w=4 and w=16 only.
 *  k2: evicted by the model only.
 * Matched 2, 3, 3 of 3.  Lags at w=16: -1, 1, 4; lower median 1.
 * Pages: kernel {0,1}, model {0,1,2}: Jaccard 2/3.
 * Counts over the 4 pages: kernel (2,1,0,0), model (2,1,1,0); means 3/4 and
 * 1; deviations (5/4,1/4,-3/4,-3/4) and (1,0,0,-1): covariance sum 2,
 * variance sums 11/4 and 2: r = 2 / sqrt(11/2).
 * Refaults: kernel 2->3 (k0), 5->5 (k1), 8->9 (k0): {3,5,9}.  Model 3->3,
 * 7->9, 8 (k2: no later access), 9 (k1: none): {3,9}.  Both 2: recall 2/3,
 * precision 1.
 */
static void test_hand(void)
{
	struct hs_fid_input in = input10();
	struct hs_fid_result r;

	T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
	T_EQ_U64(r.window[0], 1);
	T_EQ_U64(r.window[1], 4);
	T_EQ_U64(r.window[2], 16);
	T_EQ_U64(r.matched[0], 2);
	T_EQ_U64(r.matched[1], 3);
	T_EQ_U64(r.matched[2], 3);
	T_NEAR(r.share[0], 2.0 / 3, 1e-12);
	T_NEAR(r.share[2], 1.0, 1e-12);
	T_EQ_U64(r.ref_evictions, 3);
	T_EQ_U64(r.other_evictions, 4);
	T_EQ_U64(r.ref_pages, 2);
	T_EQ_U64(r.other_pages, 3);
	T_EQ_U64(r.both_pages, 2);
	T_NEAR(r.jaccard, 2.0 / 3, 1e-12);
	T_NEAR(r.correlation, 2 / sqrt(5.5), 1e-12);
	T_EQ_U64(r.lag_pairs, 3);
	T_EQ_I64(r.median_lag, 1);
	T_EQ_U64(r.ref_refaults, 3);
	T_EQ_U64(r.other_refaults, 2);
	T_EQ_U64(r.both_refaults, 2);
	T_NEAR(r.refault_recall, 2.0 / 3, 1e-12);
	T_NEAR(r.refault_precision, 1.0, 1e-12);
}

/*
 * A gap over [4, 6) removes the kernel's reclaim of k1 at 5 (and the access
 * at 5).  Kernel {k0: 2, 8}: both matched at every window.  Pages: kernel
 * {0}, model {0,1,2}: Jaccard 1/3.  Refaults: kernel {3,9}, model {3,9}.
 */
static void test_gap(void)
{
	static const struct hs_fid_range gap = { 4, 6 };
	struct hs_fid_input in = input10();
	struct hs_fid_result r;

	in.gaps = &gap;
	in.n_gaps = 1;
	T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
	T_EQ_U64(r.ref_evictions, 2);
	T_EQ_U64(r.other_evictions, 4);
	T_EQ_U64(r.matched[0], 2);
	T_EQ_U64(r.matched[2], 2);
	T_NEAR(r.jaccard, 1.0 / 3, 1e-12);
	T_EQ_U64(r.ref_refaults, 2);
	T_EQ_U64(r.both_refaults, 2);
	T_EQ_I64(r.median_lag, -1);
}

/*
 * One to one: reclaims of k0 at 10 and 12, one eviction at 11, w = 2 (capacity
 * 8): one match, not two.  Greedy order: reclaims 10 and 14, evictions 12 and
 * 15: 10 takes 12 (15 is out of its window), 14 takes 15: two.
 */
static void test_one_to_one(void)
{
	static const uint32_t s[16] = { 0 };
	static const struct hs_fid_event k1[] = { { 10, 0 }, { 12, 0 } };
	static const struct hs_fid_event m1[] = { { 11, 0 } };
	static const struct hs_fid_event k2[] = { { 10, 0 }, { 14, 0 } };
	static const struct hs_fid_event m2[] = { { 12, 0 }, { 15, 0 } };
	struct hs_fid_input in = {
		.stream = s, .length = 16, .nr_keys = 1, .capacity = 8,
		.ref = k1, .n_ref = 2, .other = m1, .n_other = 1,
	};
	struct hs_fid_result r;

	T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
	T_EQ_U64(r.window[1], 2);
	T_EQ_U64(r.matched[1], 1);
	T_ASSERT(isnan(r.correlation));	/* one page: no variance */
	in.ref = k2;
	in.other = m2;
	in.n_other = 2;
	T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
	T_EQ_U64(r.matched[1], 2);
	/* refaults: every position holds k0, so 10->10, 14->14 and 12->12, 15->15 */
	T_EQ_U64(r.ref_refaults, 2);
	T_EQ_U64(r.other_refaults, 2);
	T_EQ_U64(r.both_refaults, 0);
}

/* Identical histories agree completely. */
static void test_identity(void)
{
	struct hs_fid_input in = input10();
	struct hs_fid_result r;

	in.other = kernel10;
	in.n_other = ARRAY_SIZE(kernel10);
	T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
	for (int w = 0; w < HS_FID_WINDOWS; w++)
		T_EQ_U64(r.matched[w], 3);
	T_NEAR(r.jaccard, 1.0, 0);
	T_NEAR(r.correlation, 1.0, 1e-12);
	T_EQ_I64(r.median_lag, 0);
	T_NEAR(r.refault_recall, 1.0, 0);
	T_NEAR(r.refault_precision, 1.0, 0);
}

static void test_errors(void)
{
	static const struct hs_fid_event unsorted[] = { { 5, 0 }, { 2, 1 } };
	static const struct hs_fid_event bad_key[] = { { 1, 4 } };
	static const struct hs_fid_event past_end[] = { { 11, 0 } };
	static const struct hs_fid_range overlap[] = { { 1, 5 }, { 4, 6 } };
	struct hs_fid_input in = input10();
	struct hs_fid_result r;

	in.ref = unsorted;
	in.n_ref = 2;
	T_EQ_I64(hs_fidelity_compare(&in, &r), -EINVAL);
	in.ref = bad_key;
	in.n_ref = 1;
	T_EQ_I64(hs_fidelity_compare(&in, &r), -EINVAL);
	in.ref = past_end;
	T_EQ_I64(hs_fidelity_compare(&in, &r), -EINVAL);
	in = input10();
	in.capacity = 0;
	T_EQ_I64(hs_fidelity_compare(&in, &r), -EINVAL);
	in = input10();
	in.gaps = overlap;
	in.n_gaps = 2;
	T_EQ_I64(hs_fidelity_compare(&in, &r), -EINVAL);
	/* an empty history is not an error: nothing to match */
	in = input10();
	in.n_other = 0;
	T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
	T_EQ_U64(r.matched[2], 0);
	T_NEAR(r.share[2], 0.0, 0);
	T_NEAR(r.jaccard, 0.0, 0);
	T_ASSERT(isnan(r.refault_precision));
}

/*
 * The random baseline picks among the pages resident at each reclaim.
 * Pages 0, 1, 2 enter at 0; the kernel reclaims 1 at 5 and 0 at 6; page 3
 * enters at 6 and is reclaimed at 9.  Picks: at 5 among {0,1,2}; at 6 among
 * {0,2,3} (3 entered at 6, before the pick; 1 left at 5); at 9 among {2,3}.
 * A reclaim at 12 finds memory empty after page 2 leaves at 11: no pick.
 */
static void test_random(void)
{
	static const struct hs_fid_event in[] = { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 6, 3 } };
	static const struct hs_fid_event out[] = {
		{ 5, 1 }, { 6, 0 }, { 9, 3 }, { 11, 2 }, { 12, 2 },
	};
	static const struct hs_fid_event rec[] = { { 5, 1 }, { 6, 0 }, { 9, 3 }, { 12, 2 } };
	unsigned int seen[3][4] = { { 0 } };

	for (uint64_t seed = 0; seed < 3000; seed++) {
		struct hs_fid_event *ev;
		size_t n;

		T_EQ_I64(hs_fid_random_evictions(in, 4, out, 5, rec, 4, 4, seed, &ev, &n), 0);
		T_EQ_U64(n, 3);
		if (n != 3) {
			free(ev);
			return;
		}
		T_EQ_U64(ev[0].pos, 5);
		T_EQ_U64(ev[1].pos, 6);
		T_EQ_U64(ev[2].pos, 9);
		T_ASSERT(ev[0].key <= 2);
		T_ASSERT(ev[1].key == 0 || ev[1].key == 2 || ev[1].key == 3);
		T_ASSERT(ev[2].key == 2 || ev[2].key == 3);
		for (int i = 0; i < 3; i++)
			seen[i][ev[i].key]++;
		free(ev);
	}
	/* uniform: 1000 each at the first pick, 1500 each at the third; the
	 * seeds are fixed, so these bounds (over 5 sigma) cannot flake */
	for (int k = 0; k < 3; k++)
		T_ASSERT(seen[0][k] > 870 && seen[0][k] < 1130);
	T_ASSERT(seen[2][2] > 1360 && seen[2][2] < 1640);
	T_EQ_U64(seen[1][1], 0);

	/* the same seed gives the same picks */
	{
		struct hs_fid_event *a, *b;
		size_t na, nb;

		T_EQ_I64(hs_fid_random_evictions(in, 4, out, 5, rec, 4, 4, 42, &a, &na), 0);
		T_EQ_I64(hs_fid_random_evictions(in, 4, out, 5, rec, 4, 4, 42, &b, &nb), 0);
		T_EQ_U64(na, nb);
		for (size_t i = 0; i < na && i < nb; i++)
			T_EQ_U64(a[i].key, b[i].key);
		free(a);
		free(b);
	}
	/* a key out of range; any sorted lists are taken */
	{
		struct hs_fid_event *ev;
		size_t n;

		T_EQ_I64(hs_fid_random_evictions(in, 4, out, 5, rec, 4, 3, 1, &ev, &n), -EINVAL);
		T_EQ_I64(hs_fid_random_evictions(out, 5, in, 4, rec, 4, 4, 1, &ev, &n), 0);
		free(ev);
		T_EQ_I64(hs_fid_random_evictions(in, 4, out, 5, rec + 1, 3, 4, 1, &ev, &n), 0);
		free(ev);
	}
}

/*
 * The model of the recorded kernel, from its release and lru_gen state.
 */
static void test_default_policy(void)
{
	static const struct {
		const char *release, *lru_gen, *policy, *profile;
	} c[] = {
		{ "6.1.0-27-cloud-amd64", "0x0007", "mglru", "p61" },
		{ "6.2.16", "0x0001", "mglru", "p61" },
		{ "6.3.0", "0x0001", "mglru", "p63" },
		{ "6.7.12", "0x0001", "mglru", "p63" },
		{ "6.8.0-31-generic", "0x0007", "mglru", "p68" },
		{ "6.12.57+deb13-cloud-amd64", "0x0007", "mglru", "p68" },
		{ "6.14.1", "0x0003", "mglru", "p614" },
		{ "6.18.0", "absent", "linux-2q", "p610" },
		{ "6.1.0-27-cloud-amd64", "0x0000", "linux-2q", "p61" },
		{ "6.9.9", "0x0006", "linux-2q", "p61" },
		{ "6.10.0", NULL, "linux-2q", "p610" },
	};
	const char *policy, *profile;

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		policy = profile = NULL;
		T_EQ_I64(hs_fid_default_policy(c[i].release, c[i].lru_gen, &policy, &profile), 0);
		T_EQ_STR(policy, c[i].policy);
		T_EQ_STR(profile, c[i].profile);
	}
	T_EQ_I64(hs_fid_default_policy("linux", "absent", &policy, &profile), -EINVAL);
	T_EQ_I64(hs_fid_default_policy("6", "absent", &policy, &profile), -EINVAL);
}

static const struct hs_record_meta rec_meta = {
	.name = "tiny", .origin = "test", .kind = "file", .channel = "fd",
	.visibility = "exact", .kernel = "6.18.0", .lru_gen = "absent", .clock = "mono",
	.memory_limit_pages = 2, .page_size = 4096,
};

/* One life of page @index of dev 8 ino 1 (file), born @born, dead @died (0: alive). */
static struct hs_folio_life file_life(uint64_t index, uint64_t born, uint64_t died,
				      uint8_t cause)
{
	struct hs_folio_life l = {
		.kind = HS_LIFE_FILE, .death_cause = cause, .dev = 8, .ino = 1,
		.first_page = index, .pages = 1, .born_ns = born, .died_ns = died,
	};

	return l;
}

/*
 * A recorded session built by hand.  Accesses at t = 100 .. 500 (positions 0
 * .. 4) to pages 0 1 2 0 1 of one file, whose keys have the original ids 5,
 * 6, 7 (dense 0, 1, 2).  Lives: page 0 born 100, reclaimed at 250 (position
 * 2: two accesses before it); page 1 born 200, alive; page 2 born 300,
 * reclaimed at 350 (position 3); page 0 again born 400, alive; and page 9,
 * which the stream never names, born 50 and reclaimed at 60 (left out).
 * Capacity 2: windows 0, 0 and 2.
 *
 * LRU at 2 pages evicts page 0 at 2 (the access to page 2), page 1 at 3 and
 * page 2 at 4.  Kernel (2,p0) (3,p2), model (2,p0) (3,p1) (4,p2):
 *  - windows 0: p0 matches exactly, p2 (3 vs 4) does not: 1 of 2;
 *    window 2: both: 2 of 2; lags 0 and 1, lower median 0;
 *  - pages: kernel {0,2}, model {0,1,2}: Jaccard 2/3; counts kernel
 *    (1,0,1), model (1,1,1): the model has no variance, r undefined;
 *  - refaults: kernel 2->3 (p0), 3->none: {3}; model 2->3, 3->4 (p1),
 *    4->none: {3,4}: recall 1, precision 1/2.
 * The random baseline picks at 2 among pages {0,1,2} (page 2 entered at 2)
 * and at 3 among {1,2,0} (page 0 left at 2 and entered again at 3).
 */
static void test_session(void)
{
	static const uint64_t orig[] = { 5, 6, 7, 5, 6 };
	const struct hs_policy_ops *lru = hs_policy_find("lru");
	struct hs_session_writer *w = NULL;
	struct hs_fid_kernel k = { 0 };
	struct hs_store *st = NULL;
	struct hs_fid_event *ev = NULL, *rnd = NULL;
	struct hs_fid_result r;
	struct hs_sim_stats stats;
	struct hs_record_result res = { .status = "complete" };
	const char *why = NULL;
	size_t n_ev = 0, n_rnd = 0;
	int64_t id = 0, gen = 0;
	int err = 0;

	T_ASSERT(lru != NULL);
	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st || !lru)
		goto out;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record",
		 .origin = "test", .unit = "page", .kind = "file", .channel = "fd", .id = id },
		 &w), 0);
	if (!w)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(orig) && !err; i++)
		err = hs_session_add_ts(w, orig[i], hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false),
					100 * (i + 1));
	for (uint64_t key = 5; key <= 7 && !err; key++) {
		struct hs_lc_key lk = { .kind = HS_LIFE_FILE, .dev = 8, .ino = 1,
					.index = key - 5 };

		err = hs_rec_add_key(w, key, &lk);
	}
	{
		struct hs_folio_life lives[] = {
			file_life(0, 100, 250, HS_DEATH_RECLAIM),
			file_life(1, 200, 0, HS_DEATH_NONE),
			file_life(2, 300, 350, HS_DEATH_RECLAIM),
			file_life(0, 400, 0, HS_DEATH_NONE),
			file_life(9, 50, 60, HS_DEATH_RECLAIM),
		};

		for (size_t i = 0; i < ARRAY_SIZE(lives) && !err; i++)
			err = hs_rec_add_life(w, i, &lives[i]);
	}
	if (!err)
		err = hs_rec_finish(w, &res);
	T_EQ_I64(err, 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);

	T_EQ_I64(hs_fid_kernel_load(st, id, &k, &why), 0);
	T_EQ_U64(k.length, 5);
	T_EQ_U64(k.nr_keys, 3);
	T_EQ_U64(k.memory_limit_pages, 2);
	T_EQ_U64(k.unkeyed_pages, 1);
	T_EQ_U64(k.n_reclaims, 2);
	T_EQ_U64(k.n_ins, 4);
	T_EQ_U64(k.n_outs, 2);
	T_EQ_U64(k.n_gaps, 0);
	if (k.n_reclaims == 2) {
		T_EQ_U64(k.reclaims[0].pos, 2);
		T_EQ_U64(k.reclaims[0].key, 0);
		T_EQ_U64(k.reclaims[1].pos, 3);
		T_EQ_U64(k.reclaims[1].key, 2);
	}
	T_EQ_I64(hs_fid_replay_evictions(st, id, &lru, NULL, 1, 2, &ev, &n_ev, &stats), 0);
	T_EQ_U64(n_ev, 3);
	T_EQ_U64(stats.evictions, 3);
	{
		struct hs_fid_input in = {
			.stream = k.stream, .length = k.length, .nr_keys = k.nr_keys,
			.capacity = 2, .ref = k.reclaims, .n_ref = k.n_reclaims,
			.other = ev, .n_other = n_ev,
		};

		T_EQ_I64(hs_fidelity_compare(&in, &r), 0);
		T_EQ_U64(r.matched[0], 1);
		T_EQ_U64(r.matched[1], 1);
		T_EQ_U64(r.matched[2], 2);
		T_EQ_I64(r.median_lag, 0);
		T_NEAR(r.jaccard, 2.0 / 3, 1e-12);
		T_ASSERT(isnan(r.correlation));
		T_EQ_U64(r.ref_refaults, 1);
		T_EQ_U64(r.other_refaults, 2);
		T_NEAR(r.refault_recall, 1.0, 0);
		T_NEAR(r.refault_precision, 0.5, 0);
	}
	T_EQ_I64(hs_fid_random_evictions(k.ins, k.n_ins, k.outs, k.n_outs, k.reclaims,
					 k.n_reclaims, k.nr_keys, 1, &rnd, &n_rnd), 0);
	T_EQ_U64(n_rnd, 2);
	if (n_rnd == 2) {
		T_EQ_U64(rnd[0].pos, 2);
		T_EQ_U64(rnd[1].pos, 3);
		T_ASSERT(rnd[0].key <= 2 && rnd[1].key <= 2);
	}

	/* a generated session has no kernel truth */
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "gen",
		 .origin = "loop", .format = "loop" }, &w), 0);
	if (w) {
		T_EQ_I64(hs_session_add(w, 1, 0), 0);
		T_EQ_I64(hs_session_commit(w, &gen), 0);
		hs_fid_kernel_free(&k);
		T_EQ_I64(hs_fid_kernel_load(st, gen, &k, &why), -EMEDIUMTYPE);
		T_EQ_STR(why, "a generated trace has no kernel truth");
	}
	T_EQ_I64(hs_fid_kernel_load(st, 99, &k, &why), -ENOENT);
out:
	free(ev);
	free(rnd);
	hs_fid_kernel_free(&k);
	hs_store_close(st);
}

/* A metric of a run by name, or -1. */
/*
 * The real neighbourhood of a recorded session (hs_session_neigh()) and
 * mglru's look-around on it.  The stream is testdata/golden/
 * mglru-lookaround.golden's, page-table accesses to file pages: a b c d are
 * pages 0-3 of file (8, 1), e f g h page 0 of files (8, 2) .. (8, 5); their
 * original ids are 10 .. 17.  The key table also names an anonymous page of
 * process 7 (id 30, never in the stream), and the stream's key 40 (one more
 * access, at the end, of b's page-cache sibling i) has no row: no address.
 *
 * Spaces follow the key table's identity order (kind, dev, ino, tgid): file
 * (8,1) = 1 .. (8,5) = 5; the anonymous page is 6 but not in the stream.
 * order[] is a b c d e f g h (ids 0 .. 7); i (id 8) has none.
 *
 * At 4 pages mglru (p68, memcg) evicts a d e c with look-around (the golden
 * file's hand computation; i's miss at the end evicts b, the last of s5), and
 * a d e b then c without: lookaround=auto must be on for this session.
 */
static void test_neigh(void)
{
	static const uint64_t orig[] = { 10, 11, 12, 13, 14, 11, 12, 15, 16, 17, 40 };
	static const char *const want_on = "0 3 4 2 1", *const want_off = "0 3 4 1 2";
	const struct hs_policy_ops *mglru = hs_policy_find("mglru");
	struct hs_session_writer *w = NULL;
	struct hs_record_result res = { .status = "complete" };
	struct hs_param_set *ps[2] = { NULL, NULL };
	const struct hs_policy_ops *ops[2] = { mglru, mglru };
	struct hs_fid_event *ev[2] = { NULL, NULL };
	size_t n_ev[2] = { 0, 0 };
	struct hs_sim_stats stats[2];
	struct hs_replay_job job = { 0 };
	struct hs_store *st = NULL;
	struct hs_neigh *nb = NULL;
	int64_t id = 0;
	int err = 0;

	T_ASSERT(mglru != NULL);
	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st || !mglru)
		goto out;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record",
		 .origin = "test", .unit = "page", .kind = "file", .channel = "pt", .id = id },
		 &w), 0);
	if (!w)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(orig) && !err; i++)
		err = hs_session_add_ts(w, orig[i], hs_meta_make(HS_CH_PT, HS_TYPE_FILE, false),
					100 * (i + 1));
	for (uint64_t key = 10; key <= 17 && !err; key++) {
		struct hs_lc_key lk = { .kind = HS_LIFE_FILE, .dev = 8,
					.ino = key < 14 ? 1 : key - 12,
					.index = key < 14 ? key - 10 : 0 };

		err = hs_rec_add_key(w, key, &lk);
	}
	if (!err)
		err = hs_rec_add_key(w, 30, &(struct hs_lc_key){ .kind = HS_LIFE_ANON, .tgid = 7,
							       .index = 5, .address = 5 << 12 });
	if (!err)
		err = hs_rec_finish(w, &res);
	T_EQ_I64(err, 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);

	T_EQ_I64(hs_session_neigh(st, id, 10, &nb), -EBADMSG);	/* it has 9 keys */
	T_EQ_I64(hs_session_neigh(st, id, 9, &nb), 0);
	T_ASSERT(nb != NULL);
	if (!nb)
		goto out;
	T_EQ_U64(nb->nr_keys, 9);
	T_EQ_U64(nb->nr_addr, 8);
	for (uint32_t k = 0; k < 8; k++) {
		T_EQ_U64(nb->order[k], k);
		T_EQ_U64(nb->pos[k], k);
		T_EQ_U64(nb->space[k], k < 4 ? 1 : k - 2);
		T_EQ_U64(nb->page[k], k < 4 ? k : 0);
	}
	T_EQ_U64(nb->space[8], HS_NEIGH_NONE);
	T_EQ_U64(nb->pos[8], HS_NEIGH_NOPOS);

	/*
	 * The same replay with look-around on (the default) and off, with
	 * scale=true, reclaim_loop=spec and walk=all as mglru-lookaround.golden
	 * counts it (a session with addresses defaults to the kernel's 32/64,
	 * its priority loop and its Bloom-filtered walk).
	 */
	for (int i = 0; i < 2; i++) {
		T_EQ_I64(hs_param_set_new(mglru->params, &ps[i]), 0);
		if (!ps[i])
			goto out;
		T_EQ_I64(hs_param_set_parse(ps[i], "scale", "true", NULL, 0), 0);
		T_EQ_I64(hs_param_set_parse(ps[i], "reclaim_loop", "spec", NULL, 0), 0);
		T_EQ_I64(hs_param_set_parse(ps[i], "walk", "all", NULL, 0), 0);
	}
	T_EQ_I64(hs_param_set_parse(ps[1], "lookaround", "off", NULL, 0), 0);
	T_EQ_I64(hs_fid_replay_evictions(st, id, ops, (const struct hs_param_set *const *)ps, 2,
					 4, ev, n_ev, stats), 0);
	for (int i = 0; i < 2; i++) {
		char got[64] = "";

		T_EQ_U64(stats[i].misses, 9);
		T_EQ_U64(n_ev[i], 5);
		for (size_t e = 0; e < n_ev[i] && e < 5; e++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u",
				 e ? " " : "", (unsigned int)ev[i][e].key);
		T_EQ_STR(got, i ? want_off : want_on);
	}

	/* the run's metric: one young neighbour (c, seen from b) */
	job.ops = mglru;
	job.params = ps[0];
	job.capacity = 4;
	T_EQ_I64(hs_replay_session(st, id, &job, 1, NULL), 0);
	T_EQ_I64(job.err, 0);
	T_NEAR(hs_metrics_get(&job.metrics, "mglru.lookaround_young"), 1, 0);
	free(job.gens);
out:
	for (int i = 0; i < 2; i++) {
		free(ev[i]);
		hs_param_set_free(ps[i]);
	}
	hs_neigh_free(nb);
	hs_store_close(st);
}

/*
 * The kernel's folios of a recorded session (lib/folios.c) and the replay's
 * folio mode.  Pages 0-3 of file (8, 1) have the original ids 5-8 (dense
 * 0-3).  Lives: pages 0-1 one folio (id 0) born 100, reclaimed at 350;
 * page 2 born 200, page 3 born 250, alive; pages 0-1 one folio again (id 1)
 * born 400.  FD accesses, times: p0 50 (a fault traced before its add: the
 * next life's folio, 0), p0 100, p1 100 (folio 0), p2 200, p3 250 (single
 * pages: none), p0 380 (no life alive: the next one's, 1), p1 400 (1).
 *
 * LRU at 3 pages, folio mode: p0 heads folio 0; p0 again is the same read
 * (no hit for the policy, its place stays that of seq 0); p1 joins it; p2;
 * p3 evicts the folio, p0 and p1, at 4; p0 heads folio 1; p1 joins it and
 * evicts p2 at 6.  Page by page, p3 would evict p0 at 4, p0 p1 at 5, p1 p2
 * at 6.
 */
static void test_folios(void)
{
	static const uint64_t orig[] = { 5, 5, 6, 7, 8, 5, 6 };
	static const uint64_t ts[] = { 50, 100, 100, 200, 250, 380, 400 };
	static const uint32_t dense[] = { 0, 0, 1, 2, 3, 0, 1 };
	static const uint32_t want[] = { 0, 0, 0, HS_NIL, HS_NIL, 1, 1 };
	const struct hs_policy_ops *lru = hs_policy_find("lru");
	struct hs_policy_ops lru_pages = lru ? *lru : (struct hs_policy_ops){ 0 };
	const struct hs_policy_ops *lp = &lru_pages;
	struct hs_session_writer *w = NULL;
	struct hs_record_result res = { .status = "complete" };
	struct hs_folio_index *fx = NULL;
	struct hs_store *st = NULL;
	struct hs_fid_event *ev = NULL;
	struct hs_sim_stats stats;
	uint32_t tags[ARRAY_SIZE(orig)];
	size_t n_ev = 0;
	int64_t id = 0;
	int err = 0;

	T_ASSERT(lru != NULL);
	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st || !lru)
		goto out;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record",
		 .origin = "test", .unit = "page", .kind = "file", .channel = "fd", .id = id },
		 &w), 0);
	if (!w)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(orig) && !err; i++)
		err = hs_session_add_ts(w, orig[i], hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false),
					ts[i]);
	for (uint64_t key = 5; key <= 8 && !err; key++) {
		struct hs_lc_key lk = { .kind = HS_LIFE_FILE, .dev = 8, .ino = 1,
					.index = key - 5 };

		err = hs_rec_add_key(w, key, &lk);
	}
	{
		struct hs_folio_life lives[] = {
			file_life(0, 100, 350, HS_DEATH_RECLAIM),
			file_life(2, 200, 0, HS_DEATH_NONE),
			file_life(3, 250, 0, HS_DEATH_NONE),
			file_life(0, 400, 0, HS_DEATH_NONE),
		};

		lives[0].pages = lives[3].pages = 2;
		for (size_t i = 0; i < ARRAY_SIZE(lives) && !err; i++)
			err = hs_rec_add_life(w, i, &lives[i]);
	}
	if (!err)
		err = hs_rec_finish(w, &res);
	T_EQ_I64(err, 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);

	T_EQ_I64(hs_session_large_folios(st, id), 1);
	T_EQ_I64(hs_folio_index_load(st, id, 4, &fx), 0);
	T_ASSERT(fx != NULL);
	if (!fx)
		goto out;
	T_EQ_U64(hs_folio_index_count(fx), 2);
	hs_folio_index_tags(fx, dense, ts, ARRAY_SIZE(orig), tags);
	for (size_t i = 0; i < ARRAY_SIZE(orig); i++)
		if (tags[i] != want[i])
			t_fail(__FILE__, __LINE__, "record %zu: folio %u, want %u", i, tags[i],
			       want[i]);

	/*
	 * hs_fid_replay_evictions() replays as hsctl replay does: folio mode
	 * here for a policy that counts pages (lru does not: as if, here, where
	 * memory never runs short of entities), page by page for lru itself.
	 */
	lru_pages.flags |= HS_POLICY_FOLIO_PAGES;
	T_EQ_I64(hs_fid_replay_evictions(st, id, &lp, NULL, 1, 3, &ev, &n_ev, &stats), 0);
	T_EQ_U64(n_ev, 3);
	if (n_ev == 3) {
		T_EQ_U64(ev[0].pos, 4);
		T_EQ_U64(ev[1].pos, 4);
		T_EQ_U64(ev[2].pos, 6);
		T_EQ_U64(ev[2].key, 2);
		T_ASSERT(ev[0].key + ev[1].key == 1);
	}
	T_EQ_U64(stats.misses, 6);
	T_EQ_U64(stats.hits, 1);
	T_EQ_U64(stats.refaults, 2);
	free(ev);
	ev = NULL;
	T_EQ_I64(hs_fid_replay_evictions(st, id, &lru, NULL, 1, 3, &ev, &n_ev, &stats), 0);
	T_EQ_U64(n_ev, 3);
	if (n_ev == 3) {
		T_EQ_U64(ev[0].pos, 4);
		T_EQ_U64(ev[1].pos, 5);
		T_EQ_U64(ev[2].pos, 6);
	}
out:
	free(ev);
	hs_folio_index_free(fx);
	hs_store_close(st);
}

static const struct t_case cases[] = {
	{ "hand", test_hand },
	{ "gap", test_gap },
	{ "one-to-one", test_one_to_one },
	{ "identity", test_identity },
	{ "errors", test_errors },
	{ "random-baseline", test_random },
	{ "default-policy", test_default_policy },
	{ "hand-built-session", test_session },
	{ "neighbours", test_neigh },
	{ "folios", test_folios },
};

int main(int argc, char **argv)
{
	return t_main(cases, ARRAY_SIZE(cases), argc, argv);
}
