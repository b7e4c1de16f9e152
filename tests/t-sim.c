/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the simulation driver (lib/sim.c) with a mock policy defined
 * here, so the driver's accounting is pinned independently of the real
 * policies: refault distances and their histogram, ping-pong keys, protection
 * classification and occupancy, hints, drops, the driver's pageout modes,
 * the swap analogs, the admit hook, next-use times, and the refusal of
 * policies that break the contract.
 *
 * The mock is CLOCK with a FIFO queue: a hit sets a reference bit; eviction
 * pops the head, and a head with the bit set is spared (bit cleared,
 * hs_sim_protect(), moved to the tail).  Modes make it misbehave on purpose.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "event.h"
#include "harness.h"
#include "hs.h"
#include "neigh.h"
#include "policy.h"
#include "qlist.h"
#include "replay.h"
#include "sim.h"
#include "store.h"

enum mock_mode { MOCK_OK, MOCK_NO_VICTIM, MOCK_NONRESIDENT, MOCK_REFUSE_ODD, MOCK_ALL };

static enum mock_mode mode;
static uint64_t refault_calls;
static uint64_t last_refault_distance;
static uint64_t norecency_seen;		/* hits and inserts told a->norecency */
static char tlb_seen[16];		/* a->tlb_hit of each hit, '0'/'1' (test_tlb) */
static size_t nr_tlb_seen;

struct mock_priv {
	struct hs_qlink	link;		/* on the queue while resident */
	bool		ref;		/* hit since it was last passed */
};

struct hs_policy {
	const struct hs_policy_env *env;
	struct hs_qctx	q;
	struct hs_qlist	fifo;		/* resident keys, head = oldest */
};

static struct mock_priv *mp(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static int mock_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		       struct hs_policy **out)
{
	struct hs_policy *p = calloc(1, sizeof(*p));

	(void)ps;
	if (!p)
		return -ENOMEM;
	p->env = env;
	p->q.base = env->folios;
	p->q.stride = env->stride;
	p->q.off = env->priv_off + offsetof(struct mock_priv, link);
	hs_q_init(&p->fifo);
	*out = p;
	return 0;
}

static void mock_destroy(struct hs_policy *p)
{
	free(p);
}

static void mock_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)p;
	norecency_seen += a->norecency;
	if (nr_tlb_seen < sizeof(tlb_seen) - 1)
		tlb_seen[nr_tlb_seen++] = a->tlb_hit ? '1' : '0';
	mp(f)->ref = true;
}

static void mock_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	norecency_seen += a->norecency;
	mp(f)->ref = false;
	hs_q_push_tail(&p->q, &p->fifo, hs_folio_id(p->env, f));
}

static size_t mock_evict(struct hs_policy *p, struct hs_folio *in, const struct hs_access *a,
			 size_t need, struct hs_folio **victims, size_t max)
{
	(void)in;
	(void)a;
	(void)need;
	(void)max;
	if (mode == MOCK_NO_VICTIM)
		return 0;
	if (mode == MOCK_NONRESIDENT) {
		victims[0] = in;
		return 1;
	}
	if (mode == MOCK_ALL) {		/* a reclaim far past its goal: all it may */
		size_t n = 0;

		while (n < max && p->fifo.nr)
			victims[n++] = hs_env_folio(p->env, hs_q_pop_head(&p->q, &p->fifo));
		return n;
	}
	for (;;) {
		uint32_t id = hs_q_pop_head(&p->q, &p->fifo);
		struct hs_folio *f = hs_env_folio(p->env, id);

		if (mp(f)->ref) {
			mp(f)->ref = false;
			hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
			hs_q_push_tail(&p->q, &p->fifo, id);
			continue;
		}
		victims[0] = f;
		return 1;
	}
}

static void mock_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	(void)why;
	if (hs_folio_is_resident(f))
		hs_q_del(&p->q, &p->fifo, hs_folio_id(p->env, f));
}

static void mock_refault(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a,
			 uint64_t distance)
{
	(void)p;
	(void)f;
	(void)a;
	refault_calls++;
	last_refault_distance = distance;
}

static bool mock_admit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)p;
	(void)a;
	return mode != MOCK_REFUSE_ODD || !(hs_folio_id(p->env, f) & 1);
}

static int mock_check(const struct hs_policy *p)
{
	uint64_t n = 0;

	for (uint32_t id = p->fifo.head; id != HS_NIL; id = hs_q_next(&p->q, id)) {
		if (!hs_folio_is_resident(hs_env_folio(p->env, id)))
			return -EUCLEAN;
		n++;
	}
	return n == p->fifo.nr ? 0 : -EUCLEAN;
}

static const struct hs_policy_ops mock_ops = {
	.abi = HS_POLICY_ABI,
	.name = "mock-clock",
	.summary = "test double",
	.folio_priv = sizeof(struct mock_priv),
	.flags = HS_POLICY_FOLIO_PAGES,	/* as if: in the folio tests memory never runs short */
	.create = mock_create,
	.destroy = mock_destroy,
	.hit = mock_hit,
	.insert = mock_insert,
	.evict = mock_evict,
	.remove = mock_remove,
	.refault = mock_refault,
	.admit = mock_admit,
	.check = mock_check,
};

/* Run a stream written as letters ('a' = key 0); uppercase = anonymous PT access. */
static struct hs_sim *run_letters(uint64_t cap, const char *s, int *ret_out)
{
	struct hs_sim_config cfg = {
		.ops = &mock_ops, .capacity = cap, .nr_keys = 26, .paranoid = true,
		.record_victims = true,
	};
	struct hs_sim *sim;
	int ret = 0;

	refault_calls = 0;
	if (hs_sim_new(&cfg, &sim))
		return NULL;
	for (; *s; s++) {
		uint8_t meta;
		uint32_t key;

		if (*s == ' ')
			continue;
		if (*s >= 'A' && *s <= 'Z') {
			key = (uint32_t)(*s - 'A');
			meta = hs_meta_make(HS_CH_PT, HS_TYPE_ANON, false);
		} else {
			key = (uint32_t)(*s - 'a');
			meta = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
		}
		ret = hs_sim_step(sim, key, meta, HS_NEVER);
		if (ret < 0)
			break;
		if (hs_sim_check(sim)) {
			t_fail(__FILE__, __LINE__, "invariants broken at '%c'", *s);
			break;
		}
	}
	if (ret_out)
		*ret_out = ret;
	return sim;
}

static void finish(struct hs_sim *sim, struct hs_sim_stats *st)
{
	hs_sim_finish(sim, st, NULL);
	hs_sim_free(sim);
}

/*
 * capacity 2, "abca": a, b miss; c evicts a (head, ref 0) at seq 2; a misses
 * at seq 3: refault distance 3 - 2 = 1, histogram bucket 1 = [1, 2).
 */
static void test_refault_distance(void)
{
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_OK;
	sim = run_letters(2, "abca", NULL);
	T_ASSERT(sim);
	if (!sim)
		return;
	T_EQ_U64(refault_calls, 1);
	T_EQ_U64(last_refault_distance, 1);
	finish(sim, &st);
	T_EQ_U64(st.accesses, 4);
	T_EQ_U64(st.misses, 4);
	T_EQ_U64(st.cold_misses, 3);
	T_EQ_U64(st.evictions, 2);		/* a at c, b at the second a */
	T_EQ_U64(st.refaults, 1);
	T_EQ_U64(st.refault_hist[1], 1);
	T_EQ_U64(st.distinct_keys, 3);
	T_EQ_U64(st.peak_resident, 2);
}

/*
 * capacity 1, "ababa": every access misses.  Refaults: a@2 (a's 1st), b@3
 * (b's 1st), a@4 (a's 2nd): a is the one ping-pong key, with 2 refaults.
 * Distances: a evicted at seq 1 (by b), back at 2: 1; b evicted at 2, back at
 * 3: 1; a evicted at 3, back at 4: 1.  All three in bucket 1.
 */
static void test_pingpong(void)
{
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_OK;
	sim = run_letters(1, "ababa", NULL);
	if (!sim) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	finish(sim, &st);
	T_EQ_U64(st.misses, 5);
	T_EQ_U64(st.evictions, 4);
	T_EQ_U64(st.refaults, 3);
	T_EQ_U64(st.refault_hist[1], 3);
	T_EQ_U64(st.pingpong_keys, 1);
	T_EQ_U64(st.pingpong_refaults, 2);
}

/*
 * capacity 2, "abaca":
 *   a miss [a]; b miss [a b]; a hit, a.ref=1;
 *   c miss: head a has ref -> spared (protect #1, pending on a), [b a];
 *           head b ref 0 -> evicted; [a c]
 *   a hit: a's pending protection was useful.
 * Then "d": head a (ref 1 again from the hit) spared (protect #2), c evicted:
 * [a d]; "e": head a ref 0 -> evicted with protection #2 pending: wasted.
 */
static void test_protection(void)
{
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_OK;
	sim = run_letters(2, "abaca de", NULL);
	if (!sim) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	finish(sim, &st);
	T_EQ_U64(st.prot.total, 2);
	T_EQ_U64(st.prot.useful, 1);
	T_EQ_U64(st.prot.wasted, 1);
	T_EQ_U64(st.prot_kind[HS_PROT_SECOND_CHANCE].total, 2);
	T_EQ_U64(st.prot_kind[HS_PROT_SECOND_CHANCE].useful, 1);
	/*
	 * Occupancy samples prot_resident before each access: a b a c -> 0,0,0,0;
	 * a -> 1 (pending since c); d -> 0; e -> 1 (pending since d).  Sum 2 over
	 * 7 accesses at capacity 2: 2 / 14.
	 */
	T_NEAR(st.prot_occupancy, 2.0 / 14.0, 1e-12);
}

/* PAGEOUT evicts by default, COLD keeps, DROP forgets the shadow entry. */
static void test_hints_and_drops(void)
{
	struct hs_sim_config cfg = {
		.ops = &mock_ops, .capacity = 4, .nr_keys = 4, .paranoid = true,
		.record_victims = true,
	};
	uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	uint8_t po = hs_meta_make(HS_CH_PAGEOUT, HS_TYPE_FILE, false);
	uint8_t cold = hs_meta_make(HS_CH_COLD, HS_TYPE_FILE, false);
	uint8_t drop = hs_meta_make(HS_CH_DROP, HS_TYPE_FILE, false);
	struct hs_sim_stats st;
	const uint32_t *ids;
	struct hs_sim *sim;

	mode = MOCK_OK;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_MISS);
	T_EQ_I64(hs_sim_step(sim, 1, fd, HS_NEVER), HS_STEP_MISS);
	T_EQ_I64(hs_sim_step(sim, 0, po, HS_NEVER), HS_STEP_OTHER);	/* evicts 0 */
	T_EQ_U64(hs_sim_victims(sim, &ids), 1);
	T_EQ_U64(ids[0], 0);
	T_EQ_I64(hs_sim_step(sim, 1, cold, HS_NEVER), HS_STEP_OTHER);	/* keeps 1 */
	T_EQ_U64(hs_sim_victims(sim, &ids), 0);
	T_EQ_I64(hs_sim_step(sim, 2, po, HS_NEVER), HS_STEP_OTHER);	/* not resident */
	T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_MISS);	/* hint refault */
	T_EQ_I64(hs_sim_step(sim, 1, drop, HS_NEVER), HS_STEP_OTHER);	/* drops 1 */
	T_EQ_U64(hs_sim_used(sim), 1);
	T_EQ_I64(hs_sim_step(sim, 1, fd, HS_NEVER), HS_STEP_MISS);	/* not a refault */
	T_EQ_I64(hs_sim_check(sim), 0);
	hs_sim_finish(sim, &st, NULL);
	hs_sim_free(sim);
	T_EQ_U64(st.records, 8);
	T_EQ_U64(st.accesses, 4);
	T_EQ_U64(st.hints, 3);
	T_EQ_U64(st.hint_evictions, 1);
	T_EQ_U64(st.hint_refaults, 1);
	T_EQ_U64(st.refaults, 1);
	T_EQ_U64(st.drops, 1);
	T_EQ_U64(st.evictions, 0);
	T_EQ_U64(st.misses, 4);
	T_EQ_U64(st.cold_misses, 2);
}

/*
 * A "pageout" parameter for the test doubles.  Only HS_POLICY_OWN_PAGEOUT
 * makes the driver's mode skip a policy; the parameter's name does not.
 */
static const struct hs_param own_pageout_params[] = {
	{ .name = "pageout", .type = HS_PARAM_ENUM, .def = "evict", .choices = "evict|keep",
	  .help = "test double" },
	{ .name = NULL },
};

/*
 * Feed keys[i] with meta[i] ('a'.. 'z' as key ids 0..25; meta by letter:
 * 'f' FD access, 'p' PAGEOUT, 'c' COLD) and expect ret[i] ('m' miss, 'h'
 * hit, 'o' other) and, for hints, the number of victims in vic[i] ('0'/'1',
 * '.' for accesses).
 */
static void feed(struct hs_sim *sim, const char *keys, const char *meta, const char *ret,
		 const char *vic, int line)
{
	for (size_t i = 0; keys[i]; i++) {
		enum hs_channel ch = meta[i] == 'p' ? HS_CH_PAGEOUT :
				     meta[i] == 'c' ? HS_CH_COLD : HS_CH_FD;
		int want = ret[i] == 'm' ? HS_STEP_MISS : ret[i] == 'h' ? HS_STEP_HIT :
			   HS_STEP_OTHER;
		const uint32_t *ids;
		int got;

		got = hs_sim_step(sim, (uint32_t)(keys[i] - 'a'),
				  hs_meta_make(ch, HS_TYPE_FILE, false), HS_NEVER);
		if (got != want)
			t_fail(__FILE__, line, "step %zu ('%c' %c): %d, expected %d", i, keys[i],
			       meta[i], got, want);
		if (vic[i] != '.' && hs_sim_victims(sim, &ids) != (size_t)(vic[i] - '0'))
			t_fail(__FILE__, line, "step %zu ('%c' %c): %zu victims, expected %c", i,
			       keys[i], meta[i], hs_sim_victims(sim, &ids), vic[i]);
		if (hs_sim_check(sim))
			t_fail(__FILE__, line, "invariants broken at step %zu", i);
	}
}

/*
 * The mock has no hint hook, so the driver's mode decides every PAGEOUT.
 *
 * ignore: capacity 4; a b miss; PAGEOUT a, PAGEOUT b, COLD a: nothing leaves.
 *
 * recheck, window 2 (a page is kept when seq - its last access <= 2, seq
 * being the number of accesses so far):
 *   a b c d miss (seqs 0-3; seq is now 4)
 *   PAGEOUT d: 4 - 3 = 1 -> keep;  PAGEOUT c: 4 - 2 = 2 -> keep;
 *   PAGEOUT b: 4 - 1 = 3 -> evict (shadow at seq 4)
 *   a hit (seq 4, now 5)
 *   PAGEOUT a: 5 - 4 = 1 -> keep;  PAGEOUT d: 5 - 3 = 2 -> keep;
 *   PAGEOUT c: 5 - 2 = 3 -> evict
 *   b miss (seq 5, now 6): a hint refault, distance 5 - 4 = 1
 *   PAGEOUT b: its last access is the refault at 5: 6 - 5 = 1 -> keep
 *   Totals: 6 accesses, 1 hit, 5 misses, 7 hints, 2 hint evictions (b, c),
 *   1 (hint) refault, resident a d b.
 *
 * recheck, window 0: a miss (seq 0, now 1); PAGEOUT a: 1 - 0 = 1 > 0 ->
 * evict.  In a serial replay window 0 keeps nothing.
 *
 * A policy with HS_POLICY_OWN_PAGEOUT (and a "pageout" parameter): the
 * driver's ignore does not reach it, so the hookless default (evict) stands.
 *
 * A policy with a parameter named "pageout" but without the flag gets the
 * driver's mode like any other: ignore keeps a (miss, PAGEOUT a: 0 victims,
 * no hint eviction, a still resident).
 */
static void test_pageout_modes(void)
{
	struct hs_sim_config cfg = {
		.ops = &mock_ops, .capacity = 4, .nr_keys = 26, .paranoid = true,
		.record_victims = true,
	};
	struct hs_policy_ops own = mock_ops, named = mock_ops;
	enum hs_pageout_mode m = HS_PAGEOUT_NR;
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_OK;
	own.params = own_pageout_params;
	own.flags |= HS_POLICY_OWN_PAGEOUT;
	named.params = own_pageout_params;
	T_ASSERT(!hs_policy_has_pageout(&mock_ops));
	T_ASSERT(hs_policy_has_pageout(&own));
	T_ASSERT(!hs_policy_has_pageout(&named));
	T_EQ_STR(hs_pageout_mode_name(HS_PAGEOUT_IGNORE_REFS), "ignore-references");
	T_EQ_STR(hs_pageout_mode_name(HS_PAGEOUT_RECHECK), "recheck");
	T_EQ_STR(hs_pageout_mode_name(HS_PAGEOUT_IGNORE), "ignore");
	T_ASSERT(hs_pageout_mode_name(HS_PAGEOUT_NR) == NULL);
	T_EQ_I64(hs_pageout_mode_parse("recheck", &m), 0);
	T_EQ_U64(m, HS_PAGEOUT_RECHECK);
	T_EQ_I64(hs_pageout_mode_parse("evict", &m), -EINVAL);
	T_EQ_U64(m, HS_PAGEOUT_RECHECK);

	cfg.pageout = HS_PAGEOUT_NR;
	T_EQ_I64(hs_sim_new(&cfg, &sim), -EINVAL);

	cfg.pageout = HS_PAGEOUT_IGNORE;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	feed(sim, "abaab", "ffppc", "mmooo", "..000", __LINE__);
	hs_sim_finish(sim, &st, NULL);
	T_EQ_U64(hs_sim_used(sim), 2);
	hs_sim_free(sim);
	T_EQ_U64(st.hints, 3);
	T_EQ_U64(st.hint_evictions, 0);

	cfg.pageout = HS_PAGEOUT_RECHECK;
	cfg.recheck_window = 2;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	feed(sim, "abcddcbaadcbb", "ffffppp" "fpppfp", "mmmmooo" "hooomo",
	     "....001" ".001.0", __LINE__);
	hs_sim_finish(sim, &st, NULL);
	T_EQ_U64(hs_sim_used(sim), 3);
	hs_sim_free(sim);
	T_EQ_U64(st.accesses, 6);
	T_EQ_U64(st.hits, 1);
	T_EQ_U64(st.misses, 5);
	T_EQ_U64(st.hints, 7);
	T_EQ_U64(st.hint_evictions, 2);
	T_EQ_U64(st.refaults, 1);
	T_EQ_U64(st.hint_refaults, 1);
	T_EQ_U64(st.refault_hist[1], 1);	/* distance 1 */
	T_EQ_U64(st.evictions, 0);

	cfg.recheck_window = 0;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	feed(sim, "aa", "fp", "mo", ".1", __LINE__);
	hs_sim_finish(sim, &st, NULL);
	hs_sim_free(sim);
	T_EQ_U64(st.hint_evictions, 1);

	cfg.ops = &own;
	cfg.pageout = HS_PAGEOUT_IGNORE;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	feed(sim, "aa", "fp", "mo", ".1", __LINE__);
	hs_sim_finish(sim, &st, NULL);
	hs_sim_free(sim);
	T_EQ_U64(st.hint_evictions, 1);

	cfg.ops = &named;
	cfg.pageout = HS_PAGEOUT_IGNORE;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	feed(sim, "aa", "fp", "mo", ".0", __LINE__);
	hs_sim_finish(sim, &st, NULL);
	T_EQ_U64(hs_sim_used(sim), 1);
	hs_sim_free(sim);
	T_EQ_U64(st.hints, 1);
	T_EQ_U64(st.hint_evictions, 0);
}

/*
 * The driver's time series keeps opaque records, stamped with the accesses so
 * far.  After 2 accesses, 4097 records (v = 0..4096): the 4097th finds 4096
 * kept, thins them to 2048 (v = 0, 2, .., 4094), keeps one in 2 from then on
 * and is itself kept: 2049 records, the last v = 4096.  The 4098th is skipped
 * (one in 2), the 4099th kept (v = 4098): 2050.  A record of another size
 * breaks the run.
 */
struct series_rec {
	uint64_t	seq;		/* the driver's */
	uint64_t	v;
};

static void test_series(void)
{
	struct hs_sim_config cfg = { .ops = &mock_ops, .capacity = 4, .nr_keys = 4 };
	uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const struct series_rec *r;
	struct series_rec rec;
	const void *out;
	struct hs_sim *sim;
	size_t size = 99;

	mode = MOCK_OK;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_U64(hs_sim_series(sim, &out, &size), 0);
	T_EQ_U64(size, 0);
	T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_MISS);
	T_EQ_I64(hs_sim_step(sim, 1, fd, HS_NEVER), HS_STEP_MISS);
	for (rec.v = 0; rec.v <= 4096; rec.v++) {
		rec.seq = 77;
		hs_sim_series_add(sim, &rec, sizeof(rec));
	}
	T_EQ_U64(hs_sim_series(sim, &out, &size), 2049);
	T_EQ_U64(size, sizeof(rec));
	r = out;
	T_EQ_U64(r[0].seq, 2);
	T_EQ_U64(r[0].v, 0);
	T_EQ_U64(r[1].v, 2);
	T_EQ_U64(r[2047].v, 4094);
	T_EQ_U64(r[2048].v, 4096);
	hs_sim_series_add(sim, &rec, sizeof(rec));	/* v 4097: skipped */
	rec.v++;
	hs_sim_series_add(sim, &rec, sizeof(rec));	/* v 4098: kept */
	T_EQ_U64(hs_sim_series(sim, &out, &size), 2050);
	r = out;
	T_EQ_U64(r[2049].v, 4098);
	T_EQ_I64(hs_sim_step(sim, 2, fd, HS_NEVER), HS_STEP_MISS);
	hs_sim_series_add(sim, &rec, sizeof(rec) - 1);
	T_EQ_I64(hs_sim_step(sim, 3, fd, HS_NEVER), -EUCLEAN);
	hs_sim_free(sim);
}

/*
 * Swap analogs: uppercase letters are anonymous.  capacity 1, "ABA": B evicts
 * A (pswpout 1), A evicts B (pswpout 2) and is a miss on an evicted anon key
 * (pswpin 1).  File keys never count: "abA" adds nothing to pswpin.
 */
static void test_swap_analogs(void)
{
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_OK;
	sim = run_letters(1, "ABA", NULL);
	if (!sim) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	finish(sim, &st);
	T_EQ_U64(st.pswpout, 2);
	T_EQ_U64(st.pswpin, 1);
	sim = run_letters(1, "cdc", NULL);
	if (!sim) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	finish(sim, &st);
	T_EQ_U64(st.pswpout, 0);
	T_EQ_U64(st.pswpin, 0);
}

/* A policy that returns no victim, or a non-resident one, is stopped. */
static void test_contract_violations(void)
{
	int ret = 0;
	struct hs_sim *sim;

	mode = MOCK_NO_VICTIM;
	sim = run_letters(1, "ab", &ret);
	T_EQ_I64(ret, -EUCLEAN);
	if (sim)
		T_EQ_I64(hs_sim_step(sim, 0, 0, HS_NEVER), -EUCLEAN);	/* stays broken */
	hs_sim_free(sim);
	mode = MOCK_NONRESIDENT;
	sim = run_letters(1, "ab", &ret);
	T_EQ_I64(ret, -EUCLEAN);
	hs_sim_free(sim);
	mode = MOCK_OK;
}

/*
 * One reclaim that frees everything: a full memory of 150 keys and a miss.
 * A policy with HS_POLICY_BULK_RECLAIM (MGLRU's memcg reclaim at a low
 * priority) gets room for all 150 victims; any other gets the driver's 64,
 * and the rest stay resident.
 */
static void test_bulk_reclaim(void)
{
	struct hs_policy_ops bulk_ops = mock_ops;
	const struct hs_policy_ops *ops[2] = { &mock_ops, &bulk_ops };
	const uint64_t want[2] = { 64, 150 };

	bulk_ops.flags |= HS_POLICY_BULK_RECLAIM;
	mode = MOCK_ALL;
	for (int k = 0; k < 2; k++) {
		struct hs_sim_config cfg = {
			.ops = ops[k], .capacity = 150, .nr_keys = 200, .paranoid = true,
		};
		uint8_t meta = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
		struct hs_sim_stats st;
		struct hs_sim *sim;

		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "hs_sim_new");
			break;
		}
		for (uint32_t key = 0; key <= 150; key++)
			T_EQ_I64(hs_sim_step(sim, key, meta, HS_NEVER), 0);
		finish(sim, &st);
		T_EQ_U64(st.evictions, want[k]);
		T_EQ_U64(st.misses, 151);
	}
	mode = MOCK_OK;
}

/* admit() false: the miss is counted, nothing is cached or evicted. */
static void test_admit(void)
{
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_REFUSE_ODD;		/* b, d, ... never cached */
	sim = run_letters(1, "abab", NULL);
	mode = MOCK_OK;
	if (!sim) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	finish(sim, &st);
	T_EQ_U64(st.hits, 1);		/* the second a */
	T_EQ_U64(st.misses, 3);
	T_EQ_U64(st.evictions, 0);
}

/*
 * HS_META_NORECENCY reaches the policy as a->norecency on page-table
 * accesses only: key 0 PT|NORECENCY (insert), PT|NORECENCY (hit), PT (hit),
 * FD|NORECENCY (hit; a read() has no mapping, so no recency to lose), and
 * key 1 PT|NORECENCY|ANON (insert): 3 of the 5 calls say so.
 */
static void test_norecency(void)
{
	struct hs_sim_config cfg = { .ops = &mock_ops, .capacity = 4, .nr_keys = 2,
				     .paranoid = true };
	const uint8_t pt = hs_meta_make(HS_CH_PT, HS_TYPE_FILE, false);
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint8_t anon = hs_meta_make(HS_CH_PT, HS_TYPE_ANON, false);
	struct hs_sim_stats st;
	struct hs_sim *sim;

	norecency_seen = 0;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_I64(hs_sim_step(sim, 0, pt | HS_META_NORECENCY, HS_NEVER), HS_STEP_MISS);
	T_EQ_I64(hs_sim_step(sim, 0, pt | HS_META_NORECENCY, HS_NEVER), HS_STEP_HIT);
	T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
	T_EQ_I64(hs_sim_step(sim, 0, fd | HS_META_NORECENCY, HS_NEVER), HS_STEP_HIT);
	T_EQ_I64(hs_sim_step(sim, 1, anon | HS_META_NORECENCY, HS_NEVER), HS_STEP_MISS);
	finish(sim, &st);
	T_EQ_U64(norecency_seen, 3);
	T_EQ_U64(st.hits, 3);
	T_EQ_U64(st.misses, 2);
}

/*
 * The DAMON model on linux-2q, one key (every draw is key 0).  Two reads
 * activate it (PG_referenced, then PG_active).  With idle 0, an interval's
 * end deactivates it (pgdeactivate 1) and the next one finds it inactive
 * (lru_deactivate() leaves an inactive folio alone: still 1).  With idle 1,
 * seqs at the interval ends are 2, 3, 3: at the second end the read at
 * seq 2 is within the last interval (age 1 <= 3 - 2), so it is kept; at the
 * third it is idle (age 1 > 3 - 3) and deactivated.  A draw of a key not in
 * memory does nothing, and a sim not made for the model refuses the call.
 */
static void test_damon(void)
{
	struct hs_sim_config cfg = { .ops = hs_policy_find("linux-2q"), .capacity = 4,
				     .nr_keys = 1, .paranoid = true, .damon = true };
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	struct hs_sim_stats st;
	struct hs_metrics m;
	struct hs_sim *sim;

	for (uint32_t idle = 0; idle < 2; idle++) {
		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			return;
		}
		T_EQ_I64(hs_sim_deactivate(sim, 100, 1, idle), 0);	/* nothing resident */
		T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_MISS);
		T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_HIT);
		if (idle) {
			T_EQ_I64(hs_sim_deactivate(sim, 4, 2, idle), 0);
			T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_HIT);
		}
		T_EQ_I64(hs_sim_deactivate(sim, 4, 3, idle), 0);
		hs_sim_finish(sim, &st, &m);
		T_NEAR(hs_metrics_get(&m, "l2q.pgdeactivate"), idle ? 0 : 1, 0);
		T_EQ_I64(hs_sim_deactivate(sim, 4, 4, idle), 0);
		hs_sim_finish(sim, &st, &m);
		T_NEAR(hs_metrics_get(&m, "l2q.pgdeactivate"), 1, 0);
		T_EQ_U64(st.hints, 0);
		hs_sim_free(sim);
	}
	cfg.damon = false;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_I64(hs_sim_deactivate(sim, 4, 1, 0), -EINVAL);
	hs_sim_free(sim);
}

/*
 * hs_sim_deactivate_keys() (the region model's cold action) on linux-2q,
 * capacity 4: keys 0 and 1 read twice (active), key 2 once (inactive), key
 * 3 never.  Deactivating 0, 0, 2, 3, 1 moves keys 0 and 1 (the repeated 0
 * counts once: a folio is deactivated once a pass), leaves the inactive
 * key 2 alone and ignores key 3 and a key out of range: pgdeactivate 2.
 */
static void test_damon_keys(void)
{
	struct hs_sim_config cfg = { .ops = hs_policy_find("linux-2q"), .capacity = 4,
				     .nr_keys = 4, .paranoid = true, .damon = true };
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	const uint32_t keys[] = { 0, 0, 2, 3, 1, 9 };
	struct hs_sim_stats st;
	struct hs_metrics m;
	struct hs_sim *sim;

	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	for (uint32_t k = 0; k < 2; k++) {
		T_EQ_I64(hs_sim_step(sim, k, fd, HS_NEVER), HS_STEP_MISS);
		T_EQ_I64(hs_sim_step(sim, k, fd, HS_NEVER), HS_STEP_HIT);
	}
	T_EQ_I64(hs_sim_step(sim, 2, fd, HS_NEVER), HS_STEP_MISS);
	T_EQ_I64(hs_sim_deactivate_keys(sim, keys, 6), 0);
	hs_sim_finish(sim, &st, &m);
	T_NEAR(hs_metrics_get(&m, "l2q.pgdeactivate"), 2, 0);
	T_EQ_U64(st.hints, 0);
	hs_sim_free(sim);
	cfg.damon = false;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_I64(hs_sim_deactivate_keys(sim, keys, 1), -EINVAL);
	hs_sim_free(sim);
}

/*
 * The DAMON model through a replay of a timed session (linux-2q, capacity 4):
 * key 0 read at 0 and 1 ms (active), key 1 at 250 ms.  Intervals of 100 ms
 * end at 100 and 200 ms, both before the third record: the first
 * deactivates key 0 (RATE 100 a second: 20 draws of 2 keys an interval),
 * the second finds it inactive: pgdeactivate 1.  With a minimum idleness of
 * 300 ms (3 intervals) neither interval may act yet: 0.  A session without
 * times (generated) cannot be replayed with it: -ENODATA.
 */
static void test_damon_replay(void)
{
	static const struct hs_session_meta rec = { .source = "record", .format = "text" };
	static const uint64_t min_age[] = { 0, 300000000 }, want[] = { 1, 0 };
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	struct hs_session_writer *w = NULL;
	struct hs_store *st = NULL;
	int64_t id = 0, gen = 0;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_session_begin(st, &rec, &w), 0);
	if (!w)
		goto out;
	T_EQ_I64(hs_session_add_ts(w, 0, fd, 0), 0);
	T_EQ_I64(hs_session_add_ts(w, 0, fd, 1000000), 0);
	T_EQ_I64(hs_session_add_ts(w, 1, fd, 250000000), 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);
	for (int i = 0; i < 2; i++) {
		struct hs_replay_opts o = { .threads = 1, .paranoid = true, .damon_deprio = 100,
					    .damon_min_age_ns = min_age[i] };
		struct hs_replay_job job = { .ops = hs_policy_find("linux-2q"), .capacity = 4 };

		T_EQ_I64(hs_replay_session(st, id, &job, 1, &o), 0);
		T_EQ_I64(job.err, 0);
		T_NEAR(hs_metrics_get(&job.metrics, "l2q.pgdeactivate"), (double)want[i], 0);
		T_EQ_U64(job.stats.misses, 2);
		free(job.gens);
	}
	T_EQ_I64(hs_session_begin(st, &rec, &w), 0);
	if (!w)
		goto out;
	T_EQ_I64(hs_session_add(w, 0, fd), 0);
	T_EQ_I64(hs_session_commit(w, &gen), 0);
	{
		struct hs_replay_opts o = { .threads = 1, .damon_deprio = 1 };
		struct hs_replay_job job = { .ops = hs_policy_find("linux-2q"), .capacity = 4 };

		T_EQ_I64(hs_replay_session(st, gen, &job, 1, &o), -ENODATA);
		free(job.gens);
	}
out:
	hs_store_close(st);
}

/*
 * The TLB model in the driver (mock policy, capacity 2, key 0): a PT fault
 * caches the translation, so the next PT hit is a TLB hit (1); after
 * hs_sim_tlb_flush() the next is a miss that walks the table (0) and caches
 * it again; an FD read uses no mapping (0); then 1; a COLD hint (madvise
 * flushes the PTEs it clears) drops the entry (0, then 1).  Seen by the
 * hits: 1 0 0 1 0 1.  tlb.flushes counts the flush that emptied something
 * (a second one in a row does not), tlb.hits the three PT hits through the
 * cache.  Without cfg.tlb every hit says 0, the flush does nothing, and no
 * tlb.* metric is reported.
 */
static void test_tlb(void)
{
	struct hs_sim_config cfg = { .ops = &mock_ops, .capacity = 2, .nr_keys = 1,
				     .paranoid = true, .tlb = true };
	const uint8_t pt = hs_meta_make(HS_CH_PT, HS_TYPE_ANON, false);
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_ANON, false);
	const uint8_t cold = hs_meta_make(HS_CH_COLD, HS_TYPE_ANON, false);
	struct hs_sim_stats st;
	struct hs_metrics m;
	struct hs_sim *sim;

	for (int on = 1; on >= 0; on--) {
		cfg.tlb = on;
		nr_tlb_seen = 0;
		memset(tlb_seen, 0, sizeof(tlb_seen));
		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			return;
		}
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_MISS);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_tlb_flush(sim), 0);
		T_EQ_I64(hs_sim_tlb_flush(sim), 0);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 0, cold, HS_NEVER), HS_STEP_OTHER);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		hs_sim_finish(sim, &st, &m);
		T_EQ_STR(tlb_seen, on ? "100101" : "000000");
		if (on) {
			T_NEAR(hs_metrics_get(&m, "tlb.flushes"), 1, 0);
			T_NEAR(hs_metrics_get(&m, "tlb.hits"), 3, 0);
		} else {
			T_EQ_I64(isnan(hs_metrics_get(&m, "tlb.flushes")), 1);
		}
		hs_sim_free(sim);
	}
}

/*
 * A bounded TLB (tlb_entries 2, CLOCK; mock policy, capacity 4): faults of
 * a, b, c (keys 0 1 2) fill slot 0 with a, slot 1 with b, then the hand
 * finds a unreferenced in slot 0 and puts c there.  a's hit misses (0) and
 * pushes b out of slot 1; c hits (1, referenced); b misses (0): the hand
 * spares c (clearing its reference) and pushes a out of slot 1; c hits (1);
 * a misses (0).  Seen: 0 1 0 1 0.
 */
static void test_tlb_bounded(void)
{
	struct hs_sim_config cfg = { .ops = &mock_ops, .capacity = 4, .nr_keys = 4,
				     .paranoid = true, .tlb = true, .tlb_entries = 2 };
	const uint8_t pt = hs_meta_make(HS_CH_PT, HS_TYPE_ANON, false);
	static const uint32_t hits[] = { 0, 2, 1, 2, 0 };
	struct hs_sim *sim;

	nr_tlb_seen = 0;
	memset(tlb_seen, 0, sizeof(tlb_seen));
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	for (uint32_t k = 0; k < 3; k++)
		T_EQ_I64(hs_sim_step(sim, k, pt, HS_NEVER), HS_STEP_MISS);
	for (size_t i = 0; i < ARRAY_SIZE(hits); i++)
		T_EQ_I64(hs_sim_step(sim, hits[i], pt, HS_NEVER), HS_STEP_HIT);
	T_EQ_STR(tlb_seen, "01010");
	hs_sim_free(sim);
}

/*
 * linux-2q-pt-keep.golden with the TLB model (capacity 4, batch=1,
 * stats_flush=0; b..h are FD reads, a is mapped: PT).  Up to f it is the
 * golden: e's reclaim isolates a, finds its PTE young (the fault's), clears
 * the bit without a flush and keeps it with PG_referenced; b and c go.
 * IF[d(r) a(r) e(r) f(r)].  Then a is touched twice through its mapping.
 * Its translation is still cached since the fault: neither touch walks the
 * page table, the bit stays clear.  g evicts d; h's reclaim isolates a with
 * no young PTE and PG_referenced: RECLAIM_CLEAN, a is evicted -- the hot
 * page the kernel took on this host.  With a flush between f and the
 * touches (or no model, or tlb=false) the first touch walks the table, a
 * is young again and h activates it and evicts e, as in the golden.
 */
static void test_tlb_l2q(void)
{
	const uint8_t pt = hs_meta_make(HS_CH_PT, HS_TYPE_FILE, false);
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	/* model, flush before the touches, param tlb, key h evicts */
	static const struct { bool model, flush, param; uint32_t victim; } v[] = {
		{ true, false, true, 0 },	/* a */
		{ true, true, true, 4 },	/* e */
		{ false, false, true, 4 },
		{ true, false, false, 4 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		struct hs_sim_config cfg = { .ops = hs_policy_find("linux-2q"), .capacity = 4,
					     .nr_keys = 8, .paranoid = true,
					     .record_victims = true, .tlb = v[i].model };
		struct hs_param_set *ps = NULL;
		const uint32_t *ids;
		struct hs_sim *sim;
		char why[128];

		T_EQ_I64(hs_param_set_new(cfg.ops->params, &ps), 0);
		T_EQ_I64(hs_param_set_parse(ps, "stats_flush", "0", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "batch", "1", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "tlb", v[i].param ? "true" : "false", why,
					    sizeof(why)), 0);
		cfg.params = ps;
		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			hs_param_set_free(ps);
			return;
		}
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_MISS);
		for (uint32_t k = 1; k <= 5; k++)		/* b c d e f */
			T_EQ_I64(hs_sim_step(sim, k, fd, HS_NEVER), HS_STEP_MISS);
		if (v[i].flush)
			T_EQ_I64(hs_sim_tlb_flush(sim), 0);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 0, pt, HS_NEVER), HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 6, fd, HS_NEVER), HS_STEP_MISS);	/* g */
		T_EQ_U64(hs_sim_victims(sim, &ids), 1);
		T_EQ_U64(ids[0], 3);						/* d */
		T_EQ_I64(hs_sim_step(sim, 7, fd, HS_NEVER), HS_STEP_MISS);	/* h */
		T_EQ_U64(hs_sim_victims(sim, &ids), 1);
		T_EQ_U64(ids[0], v[i].victim);
		hs_sim_free(sim);
		hs_param_set_free(ps);
	}
}

/*
 * test_tlb_l2q's stream as a recorded session, replayed (linux-2q,
 * capacity 4, batch=1, stats_flush=0): a b c d e f at 100 .. 600 ns, a a at
 * 700 and 800, g h at 900 and 1000, a at 1100 (a PT, the rest FD).  With a
 * full flush recorded at 650 (before the record at 700), a is young again
 * and kept: the last a hits (8 misses).  With the events but no flush, a
 * goes at h and the last a misses (9).  A session recorded without the
 * events (no tlb:tlb_flush in recordings.events) gets no model: 8, as the
 * same session with tlb=false does.
 */
static void test_tlb_replay(void)
{
	static const struct { const char *events; bool flush, param; uint64_t misses; } c[] = {
		{ "[\"tlb:tlb_flush\"]", true, true, 8 },
		{ "[\"tlb:tlb_flush\"]", false, true, 9 },
		{ "[\"tlb:tlb_flush\"]", false, false, 8 },
		{ "[]", false, true, 8 },
	};
	static const uint32_t keys[] = { 0, 1, 2, 3, 4, 5, 0, 0, 6, 7, 0 };
	const uint8_t pt = hs_meta_make(HS_CH_PT, HS_TYPE_FILE, false);
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	struct hs_store *st = NULL;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct hs_record_meta rm = {
			.name = "tlb", .origin = "test", .kind = "file", .channel = "pt",
			.visibility = "exact", .kernel = "6.18.0", .lru_gen = "absent",
			.clock = "mono", .memory_limit_pages = 4, .page_size = 4096,
			.events_json = c[i].events,
		};
		struct hs_event flush = { .ts_ns = 650, .type = HS_EV_TLB_FLUSH, .a = UINT64_MAX };
		struct hs_record_result res = { .status = "complete" };
		struct hs_replay_job job = { .ops = hs_policy_find("linux-2q"), .capacity = 4 };
		struct hs_replay_opts o = { .threads = 1, .paranoid = true };
		struct hs_session_writer *w = NULL;
		struct hs_param_set *ps = NULL;
		char why[128];
		int64_t id = 0;
		int err = 0;

		T_EQ_I64(hs_record_create(st, &rm, &id), 0);
		T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record",
			 .origin = "test", .unit = "page", .kind = "file", .channel = "pt",
			 .id = id }, &w), 0);
		if (!w)
			break;
		for (size_t r = 0; r < ARRAY_SIZE(keys) && !err; r++)
			err = hs_session_add_ts(w, keys[r], keys[r] ? fd : pt, 100 * (r + 1));
		if (c[i].flush && !err)
			err = hs_rec_add_event(w, &flush);
		if (!err)
			err = hs_rec_finish(w, &res);
		T_EQ_I64(err, 0);
		T_EQ_I64(hs_session_commit(w, &id), 0);

		T_EQ_I64(hs_param_set_new(job.ops->params, &ps), 0);
		T_EQ_I64(hs_param_set_parse(ps, "stats_flush", "0", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "batch", "1", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "tlb", c[i].param ? "true" : "false", why,
					    sizeof(why)), 0);
		job.params = ps;
		T_EQ_I64(hs_replay_session(st, id, &job, 1, &o), 0);
		T_EQ_I64(job.err, 0);
		T_EQ_U64(job.stats.misses, c[i].misses);
		T_EQ_U64(job.stats.evictions, c[i].misses - 4);	/* all but 4 leave */
		free(job.gens);
		hs_param_set_free(ps);
	}
	hs_store_close(st);
}

/*
 * Recorded memcg statistics flushes in linux-2q (capacity 4, batch=1,
 * swap=false, FD reads of a file): a a b b c d e c f g.  a and b are read
 * twice and go active; c and d fill the inactive list; e evicts c (PG_referenced
 * alone: RECLAIM_CLEAN), c's refault evicts d at distance 2 (the evictions of
 * c and d).  What reclaim and the refault test read is the statistics of the
 * last flush:
 *  - no flush, or the clock's (stats_flush 20000: one at access 0), or a
 *    recorded one the run was not told of (cfg.memcg_flushes false): a new
 *    cgroup's zeros.  inactive_is_low(0, 0) is false and no refault is
 *    counted, so no deactivation; the workingset is 0 < 2, so c comes back
 *    inactive: f evicts e, g evicts c;
 *  - a recorded flush after b's activation (AF 2, IF 0): inactive_is_low
 *    lets reclaim deactivate a and b (without PG_referenced, which their
 *    activation cleared), and c's distance 2 is within the workingset (2):
 *    c comes back active; f evicts a, g evicts e;
 *  - a recorded flush before b's second read (AF 1, IF 1): inactive is not
 *    low and the workingset is 1 < 2: as with no flush.
 */
static void test_memcg_flush_l2q(void)
{
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	static const uint32_t keys[] = { 0, 0, 1, 1, 2, 3, 4, 2, 5, 6 };
	/*
	 * The run told of recorded flushes; a flush before record at (99: none);
	 * the victims of e, c, f, g; workingset activations, deactivations and
	 * the flushes delivered.
	 */
	static const struct {
		bool recorded; size_t at; const char *flushes; uint32_t victim[4];
		unsigned int activate, deactivate, flushed;
	} v[] = {
		{ true, 99, "recorded", { 2, 3, 4, 2 }, 0, 0, 0 },
		{ true, 4, "recorded", { 2, 3, 0, 4 }, 1, 2, 1 },
		{ true, 3, "recorded", { 2, 3, 4, 2 }, 0, 0, 1 },
		{ true, 4, "clock", { 2, 3, 4, 2 }, 0, 0, 1 },
		{ false, 4, "recorded", { 2, 3, 4, 2 }, 0, 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		struct hs_sim_config cfg = { .ops = hs_policy_find("linux-2q"), .capacity = 4,
					     .nr_keys = 8, .paranoid = true,
					     .record_victims = true, .memcg_flushes = v[i].recorded };
		struct hs_param_set *ps = NULL;
		struct hs_metrics m = { 0 };
		struct hs_sim_stats st;
		const uint32_t *ids;
		struct hs_sim *sim;
		char why[128];

		T_EQ_I64(hs_param_set_new(cfg.ops->params, &ps), 0);
		T_EQ_I64(hs_param_set_parse(ps, "batch", "1", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "swap", "false", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "flushes", v[i].flushes, why, sizeof(why)), 0);
		cfg.params = ps;
		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			hs_param_set_free(ps);
			return;
		}
		for (size_t r = 0; r < ARRAY_SIZE(keys); r++) {
			if (r == v[i].at)
				T_EQ_I64(hs_sim_memcg_flush(sim), 0);
			T_EQ_I64(hs_sim_step(sim, keys[r], fd, HS_NEVER),
				 r == 1 || r == 3 ? HS_STEP_HIT : HS_STEP_MISS);
			if (r < 6) {
				T_EQ_U64(hs_sim_victims(sim, &ids), 0);
			} else if (hs_sim_victims(sim, &ids) == 1) {
				T_EQ_U64(ids[0], v[i].victim[r - 6]);
			} else {
				t_fail(__FILE__, __LINE__, "not one victim");
			}
		}
		hs_sim_finish(sim, &st, &m);
		T_EQ_U64(st.refaults, 1);
		T_EQ_U64((uint64_t)hs_metrics_get(&m, "l2q.workingset_activate"), v[i].activate);
		T_EQ_U64((uint64_t)hs_metrics_get(&m, "l2q.pgdeactivate"), v[i].deactivate);
		/* the recorded flushes delivered: a metric only of runs told of them */
		if (v[i].recorded)
			T_EQ_U64((uint64_t)hs_metrics_get(&m, "memcg.flushes"), v[i].flushed);
		else
			T_ASSERT(isnan(hs_metrics_get(&m, "memcg.flushes")));
		hs_sim_free(sim);
		hs_param_set_free(ps);
	}
}

/*
 * test_memcg_flush_l2q's stream as a recorded session, replayed (linux-2q,
 * capacity 4, batch=1, swap=false), one record every 100 ns from 100, with a
 * read of a after g: a a b b c d e c f g a.  A memcg_flush_stats event at
 * 450 ns (forced: the periodic flush of the root) falls before c, the record
 * at 500: c comes back active, f evicts a and the last a misses (9 misses,
 * 2 refaults).  The same event neither forced nor with updates pending
 * (c = 0: the kernel returned without flushing), or a session recorded
 * without the tracepoint, or flushes=clock: no flush, a stays active and
 * hits (8 misses, 1 refault).  With the clock at every 4 accesses
 * (stats_flush=4: flushes before records 0, 4 and 8) a session without the
 * tracepoint flushes where the event fell (9, 2), but one recorded with it
 * and no flush in the run reads a new cgroup's zeros all along (8, 1): no
 * clock runs where the recording could have seen a flush and saw none.
 */
static void test_memcg_flush_replay(void)
{
	static const struct {
		const char *events; bool flush; uint64_t c; const char *flushes, *every;
		uint64_t misses, refaults;
	} v[] = {
		{ "[\"memcg:memcg_flush_stats\"]", true, 1, "recorded", "20000", 9, 2 },
		{ "[\"memcg:memcg_flush_stats\"]", true, 2, "recorded", "20000", 9, 2 },
		{ "[\"memcg:memcg_flush_stats\"]", true, 0, "recorded", "20000", 8, 1 },
		{ "[\"memcg:memcg_flush_stats\"]", false, 1, "recorded", "20000", 8, 1 },
		{ "[\"memcg:memcg_flush_stats\"]", true, 1, "clock", "20000", 8, 1 },
		{ "[]", true, 1, "recorded", "20000", 8, 1 },
		{ "[\"memcg:memcg_flush_stats\"]", false, 1, "recorded", "4", 8, 1 },
		{ "[]", true, 1, "recorded", "4", 9, 2 },
	};
	static const uint32_t keys[] = { 0, 0, 1, 1, 2, 3, 4, 2, 5, 6, 0 };
	const uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	struct hs_store *st = NULL;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		struct hs_record_meta rm = {
			.name = "flush", .origin = "test", .kind = "file", .channel = "fd",
			.visibility = "exact", .kernel = "6.18.0", .lru_gen = "absent",
			.clock = "mono", .memory_limit_pages = 4, .page_size = 4096,
			.events_json = v[i].events,
		};
		struct hs_event flush = { .ts_ns = 450, .type = HS_EV_MEMCG_FLUSH, .a = 1,
					  .c = v[i].c };
		struct hs_record_result res = { .status = "complete" };
		struct hs_replay_job job = { .ops = hs_policy_find("linux-2q"), .capacity = 4 };
		struct hs_replay_opts o = { .threads = 1, .paranoid = true };
		struct hs_session_writer *w = NULL;
		struct hs_param_set *ps = NULL;
		char why[128];
		int64_t id = 0;
		int err = 0;

		T_EQ_I64(hs_record_create(st, &rm, &id), 0);
		T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record",
			 .origin = "test", .unit = "page", .kind = "file", .channel = "fd",
			 .id = id }, &w), 0);
		if (!w)
			break;
		for (size_t r = 0; r < ARRAY_SIZE(keys) && !err; r++)
			err = hs_session_add_ts(w, keys[r], fd, 100 * (r + 1));
		if (v[i].flush && !err)
			err = hs_rec_add_event(w, &flush);
		if (!err)
			err = hs_rec_finish(w, &res);
		T_EQ_I64(err, 0);
		T_EQ_I64(hs_session_commit(w, &id), 0);

		T_EQ_I64(hs_param_set_new(job.ops->params, &ps), 0);
		T_EQ_I64(hs_param_set_parse(ps, "batch", "1", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "swap", "false", why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "flushes", v[i].flushes, why, sizeof(why)), 0);
		T_EQ_I64(hs_param_set_parse(ps, "stats_flush", v[i].every, why, sizeof(why)), 0);
		job.params = ps;
		T_EQ_I64(hs_replay_session(st, id, &job, 1, &o), 0);
		T_EQ_I64(job.err, 0);
		T_EQ_U64(job.stats.misses, v[i].misses);
		T_EQ_U64(job.stats.refaults, v[i].refaults);
		free(job.gens);
		hs_param_set_free(ps);
	}
	hs_store_close(st);
}

/*
 * next-use: stream a b [pageout a] a b c (keys 0 1 0 0 1 2; record 2 is a
 * hint).  Access seqs: a=0 b=1 a=2 b=3 c=4.  next: a@0 -> 2, b@1 -> 3,
 * hint -> never, a@2 -> never, b@3 -> never, c@4 -> never.
 */
static void test_next_use(void)
{
	const uint32_t keys[] = { 0, 1, 0, 0, 1, 2 };
	const uint8_t meta[] = { 0, 0, HS_CH_PAGEOUT, 0, 0, 0 };
	uint64_t next[6];

	T_EQ_I64(hs_next_use_fill(keys, meta, 6, 3, next), 0);
	T_EQ_U64(next[0], 2);
	T_EQ_U64(next[1], 3);
	T_EQ_U64(next[2], HS_NEVER);
	T_EQ_U64(next[3], HS_NEVER);
	T_EQ_U64(next[4], HS_NEVER);
	T_EQ_U64(next[5], HS_NEVER);
	T_EQ_I64(hs_next_use_fill(keys, meta, 6, 2, next), -EINVAL);
}

/*
 * Readahead records through lru at capacity 2: RA 0, RA 1, FD 0 (hit: 0's
 * first access), RA 2 (evicts 1, never accessed: unused), FD 1 (a cold miss
 * with a shadow: a refault; evicts 0), end (2 resident, never accessed:
 * unused).  Then RA 1 on the resident 1: nothing.  With no_readahead the
 * two accesses are cold misses and nothing else happens.
 */
static void test_readahead(void)
{
	struct hs_sim_config cfg = {
		.ops = hs_policy_find("lru"), .capacity = 2, .nr_keys = 3, .paranoid = true,
	};
	uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	uint8_t ra = hs_meta_make(HS_CH_READAHEAD, HS_TYPE_FILE, false);
	struct hs_sim_stats st;
	struct hs_sim *sim;

	for (int pass = 0; pass < 2; pass++) {
		cfg.no_readahead = pass;
		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			return;
		}
		T_EQ_I64(hs_sim_step(sim, 0, ra, HS_NEVER), HS_STEP_OTHER);
		T_EQ_I64(hs_sim_step(sim, 1, ra, HS_NEVER), HS_STEP_OTHER);
		T_EQ_I64(hs_sim_step(sim, 0, fd, HS_NEVER), pass ? HS_STEP_MISS : HS_STEP_HIT);
		T_EQ_I64(hs_sim_step(sim, 2, ra, HS_NEVER), HS_STEP_OTHER);
		T_EQ_I64(hs_sim_step(sim, 1, fd, HS_NEVER), HS_STEP_MISS);
		T_EQ_I64(hs_sim_step(sim, 1, ra, HS_NEVER), HS_STEP_OTHER);
		T_EQ_I64(hs_sim_check(sim), 0);
		T_EQ_U64(hs_sim_used(sim), 2);
		hs_sim_finish(sim, &st, NULL);
		T_EQ_U64(st.records, 6);
		T_EQ_U64(st.accesses, 2);
		T_EQ_U64(st.hits, pass ? 0 : 1);
		T_EQ_U64(st.misses, pass ? 2 : 1);
		T_EQ_U64(st.cold_misses, pass ? 2 : 1);
		T_EQ_U64(st.distinct_keys, 2);
		T_EQ_U64(st.evictions, pass ? 0 : 2);
		T_EQ_U64(st.refaults, pass ? 0 : 1);
		T_EQ_U64(st.readahead_pages, pass ? 0 : 3);
		T_EQ_U64(st.readahead_unused, pass ? 0 : 2);
		hs_sim_free(sim);
	}
}

/*
 * Times are 32 bits (lib/sim.h, struct hs_folio): ages of half the range or
 * more read as HS_DIST_ANCIENT, and a sweep every half range marks them
 * before they wrap.  With time_bits 4 the range is 16 accesses and the sweep
 * comes every 8.  Capacity 1, keys a and b, so each miss evicts the other:
 *   seq 0 a miss; seq 1 b miss, a evicted at 1; seqs 2-7 b hits;
 *   seq 8 a refault, distance 7: exact (bucket 3); b evicted at 8;
 *   seqs 9-16 a hits; seq 17 b refault, distance 9 >= 8: ancient, though
 *   not swept yet (bucket 47; with 32 bits bucket 4); a evicted at 17;
 *   seqs 18-51 b hits; seq 52 a refault, distance 35: 35 mod 16 = 3 would
 *   pass for recent, but the sweep at 32 marked it (bucket 47; with 32 bits
 *   bucket 6).
 * Every other counter is the same with 32 bits.  hs_sim_run() sweeps between
 * pieces of the records it is given, not after every step: the same counts.
 */
static void run_ab(uint8_t time_bits, bool whole, struct hs_sim_stats *st, uint64_t *dist)
{
	struct hs_sim_config cfg = {
		.ops = &mock_ops, .capacity = 1, .nr_keys = 2, .paranoid = true,
		.time_bits = time_bits,
	};
	uint8_t meta = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	struct hs_sim *sim;
	uint32_t seqkey[53];
	uint8_t metas[53];
	size_t i, r = 0;

	for (i = 0; i < 53; i++) {
		seqkey[i] = i == 0 || i == 8 || (i >= 9 && i <= 16) || i == 52 ? 0 : 1;
		metas[i] = meta;
	}
	memset(st, 0, sizeof(*st));
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	if (whole) {
		if (hs_sim_run(sim, seqkey, metas, NULL, 53))
			t_fail(__FILE__, __LINE__, "run failed");
		dist[0] = last_refault_distance;
	}
	for (i = 0; !whole && i < 53; i++) {
		if (hs_sim_step(sim, seqkey[i], meta, HS_NEVER) < 0)
			t_fail(__FILE__, __LINE__, "step %zu failed", i);
		if (i == 8 || i == 17 || i == 52)
			dist[r++] = last_refault_distance;
	}
	finish(sim, st);
}

static void test_time_wrap(void)
{
	struct hs_sim_config bad = { .ops = &mock_ops, .capacity = 1, .nr_keys = 2 };
	struct hs_sim_stats st4, st32, st4run;
	uint64_t d4[3] = { 0 }, d32[3] = { 0 }, d4run[3] = { 0 };
	struct hs_sim *sim;

	mode = MOCK_OK;
	bad.time_bits = 1;
	T_EQ_I64(hs_sim_new(&bad, &sim), -EINVAL);
	bad.time_bits = 33;
	T_EQ_I64(hs_sim_new(&bad, &sim), -EINVAL);
	run_ab(4, false, &st4, d4);
	run_ab(4, true, &st4run, d4run);
	run_ab(0, false, &st32, d32);
	T_EQ_U64(d4run[0], HS_DIST_ANCIENT);
	T_ASSERT(!memcmp(&st4, &st4run, sizeof(st4)));
	T_EQ_U64(d4[0], 7);
	T_EQ_U64(d4[1], HS_DIST_ANCIENT);
	T_EQ_U64(d4[2], HS_DIST_ANCIENT);
	T_EQ_U64(d32[0], 7);
	T_EQ_U64(d32[1], 9);
	T_EQ_U64(d32[2], 35);
	T_EQ_U64(st4.refault_hist[3], 1);
	T_EQ_U64(st4.refault_hist[HS_HIST_BUCKETS - 1], 2);
	T_EQ_U64(st32.refault_hist[3], 1);
	T_EQ_U64(st32.refault_hist[4], 1);
	T_EQ_U64(st32.refault_hist[6], 1);
	T_EQ_U64(st32.refault_hist[HS_HIST_BUCKETS - 1], 0);
	memcpy(st4.refault_hist, st32.refault_hist, sizeof(st4.refault_hist));
	T_ASSERT(!memcmp(&st4, &st32, sizeof(st4)));
	T_EQ_U64(st32.accesses, 53);
	T_EQ_U64(st32.refaults, 3);
	T_EQ_U64(st32.evictions, 4);
}

/*
 * The id is not stored: hs_folio_id() gets it back from the address with a
 * shift and a multiply by the inverse of the stride's odd part.  Every stride
 * a private area of 0 to 120 bytes gives (8 to 128 bytes), every key of 5,000.
 */
static void test_folio_id(void)
{
	for (size_t priv = 0; priv <= 120; priv += 4) {
		struct hs_policy_ops ops = mock_ops;
		struct hs_sim_config cfg = { .ops = &ops, .capacity = 1, .nr_keys = 5000 };
		const struct hs_policy_env *env;
		struct hs_sim *sim;
		uint32_t bad = 0;

		ops.folio_priv = HS_MAX(priv, sizeof(struct mock_priv));
		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			return;
		}
		env = hs_sim_env(sim);
		T_EQ_U64(env->stride, (sizeof(struct hs_folio) + ops.folio_priv + 7) & ~7ul);
		for (uint32_t i = 0; i < cfg.nr_keys; i++)
			bad += hs_folio_id(env, hs_env_folio(env, i)) != i;
		T_EQ_U64(bad, 0);
		hs_sim_free(sim);
	}
	T_EQ_U64(sizeof(struct hs_folio), 8);
}

/*
 * The model's readahead (hs_sim_config.ra_model, lib/sim.c): pages 0-19 of
 * one file are keys 0-19 (key 20 has no address), windows of at most 8
 * pages, room for everything.  Counted by hand:
 *   0 miss: nothing cached before it;  1 miss: one page before it, the
 *   request itself: a small random read;  2 miss: 0 and 1 before it: a
 *   window of min(2 + 1, 8) = 3 from 2: 3 and 4 read ahead, 4 marked;
 *   4 hit, marked: 5 is the first page not cached; the window is
 *   get_next_ra_size(5 - 4 + 1 = 2) = 4 pages from 5: 5-8, 5 marked;
 *   3 hit;  10 miss: 9 is not cached;  20 miss: no address;
 *   5 hit, marked: 6-8 cached, 9 is not; get_next_ra_size(9 - 5 + 1 = 5)
 *   = 8 (above half of 8): 9-16, 10 already cached: 7 pages, 9 marked.
 * 13 pages read ahead, 3 of them read (3, 4, 5).
 */
static void test_readahead_model(void)
{
	static const struct { uint32_t key; int ret; } steps[] = {
		{ 0, HS_STEP_MISS }, { 1, HS_STEP_MISS }, { 2, HS_STEP_MISS },
		{ 4, HS_STEP_HIT }, { 3, HS_STEP_HIT }, { 10, HS_STEP_MISS },
		{ 20, HS_STEP_MISS }, { 5, HS_STEP_HIT },
	};
	uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	struct hs_neigh *nb = NULL;
	struct hs_sim_stats st;
	struct hs_sim *sim;

	mode = MOCK_OK;
	if (hs_neigh_new(21, &nb)) {
		t_fail(__FILE__, __LINE__, "no neigh");
		return;
	}
	for (uint32_t k = 0; k < 20; k++)
		hs_neigh_set(nb, k, 1, k);
	T_EQ_I64(hs_neigh_finish(nb), 0);
	for (int on = 0; on < 2; on++) {
		struct hs_sim_config cfg = {
			.ops = &mock_ops, .capacity = 64, .nr_keys = 21, .paranoid = true,
			.neigh = nb, .ra_model = on ? 8 : 0,
		};

		if (hs_sim_new(&cfg, &sim)) {
			t_fail(__FILE__, __LINE__, "no sim");
			break;
		}
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			T_EQ_I64(hs_sim_step(sim, steps[i].key, fd, HS_NEVER),
				 on ? steps[i].ret : HS_STEP_MISS);
		T_EQ_I64(hs_sim_check(sim), 0);
		hs_sim_finish(sim, &st, NULL);
		hs_sim_free(sim);
		T_EQ_U64(st.misses, on ? 5 : 8);
		T_EQ_U64(st.hits, on ? 3 : 0);
		T_EQ_U64(st.readahead_pages, on ? 13 : 0);
		T_EQ_U64(st.readahead_unused, on ? 10 : 0);
		T_EQ_U64(st.peak_resident, on ? 18 : 8);
	}
	/* no addresses: nothing to read ahead */
	{
		struct hs_sim_config cfg = {
			.ops = &mock_ops, .capacity = 64, .nr_keys = 21, .ra_model = 8,
		};

		if (!hs_sim_new(&cfg, &sim)) {
			for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
				T_EQ_I64(hs_sim_step(sim, steps[i].key, fd, HS_NEVER),
					 HS_STEP_MISS);
			hs_sim_finish(sim, &st, NULL);
			hs_sim_free(sim);
			T_EQ_U64(st.readahead_pages, 0);
		}
	}
	hs_neigh_free(nb);
}

/*
 * Folio mode (lib/sim.c, "Folios"), with the mock CLOCK at capacity 4.
 * Keys 0, 1, 2 are the pages of kernel folio 0 whenever a record names it;
 * keys 3, 4, 5 are pages of their own.  seq counts accesses only.
 *
 *   1 a FD  seq 0  miss, cold; heads folio 0 (the mock's only entry for it)
 *   2 b RA         joins folio 0, a readahead page
 *   3 c RA         joins folio 0
 *   4 b FD  seq 1  hit on b; the read that missed a at seq 0 goes on in the
 *                  same folio: no hit for the policy, a stays unreferenced
 *   5 d FD  seq 2  miss, cold; used 4
 *   6 e FD  seq 3  miss, cold: the mock evicts a, unreferenced, and with it
 *                  c and b (victims a c b, 3 evictions; c was never used)
 *   7 c FD  seq 4  miss, cold (c was only read ahead), refault at distance
 *                  1: heads folio 0 anew (the mock's refault hook: once)
 *   8 b RA         refault at distance 2 (5 - 3), joins c
 *   9 c FD  seq 5  hit; c's own miss at seq 4 was the last read: no mark
 *  10 f FD  seq 6  miss, cold: the mock evicts d (4 evictions)
 *  11 b FD  seq 7  hit; marks folio 0 (its head c referenced)
 *  12 a FD  seq 8  miss, refault at distance 5, joins folio 0: room for it
 *                  evicts e (5 evictions), not c, which b's hit protects
 *  13 d DROP       d is not resident: its shadow entry goes
 *  14 b PAGEOUT    on the whole folio: c, a, b leave (3 hint evictions)
 *
 * A break of the read rule (every FD hit marking the folio) spares a at
 * record 6 and evicts d instead.
 */
static void test_folios(void)
{
	static const struct {
		uint32_t	key;
		int		ch;
		uint32_t	folio;
		int		ret;
		const char	*victims;
	} rec[] = {
		{ 0, HS_CH_FD, 0, HS_STEP_MISS, "" },
		{ 1, HS_CH_READAHEAD, 0, HS_STEP_OTHER, "" },
		{ 2, HS_CH_READAHEAD, 0, HS_STEP_OTHER, "" },
		{ 1, HS_CH_FD, 0, HS_STEP_HIT, "" },
		{ 3, HS_CH_FD, HS_NIL, HS_STEP_MISS, "" },
		{ 4, HS_CH_FD, HS_NIL, HS_STEP_MISS, "acb" },
		{ 2, HS_CH_FD, 0, HS_STEP_MISS, "" },
		{ 1, HS_CH_READAHEAD, 0, HS_STEP_OTHER, "" },
		{ 2, HS_CH_FD, 0, HS_STEP_HIT, "" },
		{ 5, HS_CH_FD, HS_NIL, HS_STEP_MISS, "d" },
		{ 1, HS_CH_FD, 0, HS_STEP_HIT, "" },
		{ 0, HS_CH_FD, 0, HS_STEP_MISS, "e" },
		{ 3, HS_CH_DROP, HS_NIL, HS_STEP_OTHER, "" },
		{ 1, HS_CH_PAGEOUT, 0, HS_STEP_OTHER, "cab" },
	};
	static const uint64_t used[] = { 1, 2, 3, 3, 4, 2, 3, 4, 4, 4, 4, 4, 4, 1 };
	struct hs_sim_config cfg = {
		.ops = &mock_ops, .capacity = 4, .nr_keys = 6, .paranoid = true,
		.record_victims = true, .nr_folios = 1,
	};
	struct hs_sim_stats st;
	struct hs_sim *sim;

	refault_calls = 0;
	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		const uint32_t *v;
		char got[8] = "";
		size_t nv;

		T_EQ_I64(hs_sim_step_folio(sim, rec[i].key,
					   hs_meta_make((enum hs_channel)rec[i].ch, HS_TYPE_FILE,
							false),
					   HS_NEVER, rec[i].folio),
			 rec[i].ret);
		nv = hs_sim_victims(sim, &v);
		for (size_t j = 0; j < nv && j < sizeof(got) - 1; j++)
			got[j] = (char)('a' + v[j]);
		if (strcmp(got, rec[i].victims))
			t_fail(__FILE__, __LINE__, "record %zu: victims '%s', want '%s'", i + 1,
			       got, rec[i].victims);
		T_EQ_U64(hs_sim_used(sim), used[i]);
		T_EQ_I64(hs_sim_check(sim), 0);
	}
	T_EQ_U64(hs_sim_folio_members(sim), 0);
	T_EQ_U64(refault_calls, 1);
	/* a folio id out of range */
	T_EQ_I64(hs_sim_step_folio(sim, 0, hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false), HS_NEVER,
				   1), -EINVAL);
	finish(sim, &st);
	T_EQ_U64(st.records, 14);
	T_EQ_U64(st.accesses, 9);
	T_EQ_U64(st.hits, 3);
	T_EQ_U64(st.misses, 6);
	T_EQ_U64(st.cold_misses, 5);
	T_EQ_U64(st.distinct_keys, 6);
	T_EQ_U64(st.evictions, 5);
	T_EQ_U64(st.hint_evictions, 3);
	T_EQ_U64(st.hints, 1);
	T_EQ_U64(st.drops, 0);
	T_EQ_U64(st.refaults, 3);
	T_EQ_U64(st.refault_hist[1], 1);
	T_EQ_U64(st.refault_hist[2], 1);
	T_EQ_U64(st.refault_hist[3], 1);
	T_EQ_U64(st.readahead_pages, 3);
	T_EQ_U64(st.readahead_unused, 1);
	T_EQ_U64(st.prot.total, 0);
	T_EQ_U64(st.peak_resident, 4);
}

/*
 * A DROP on a member drops the whole folio, each page counted; a folio
 * whose head is evicted while a page waits to join is started anew by it.
 * Capacity 2: a (folio 0) miss; b (folio 0) joins: used 2; c (own) miss:
 * the mock evicts a with b (2 evictions); a RA (folio 0): in, heads folio 0
 * again, and b RA joins it after the mock evicts c (3 evictions); DROP b:
 * a and b dropped (2 drops), used 0.
 */
static void test_folio_drop(void)
{
	struct hs_sim_config cfg = {
		.ops = &mock_ops, .capacity = 2, .nr_keys = 3, .paranoid = true, .nr_folios = 2,
	};
	uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	uint8_t ra = hs_meta_make(HS_CH_READAHEAD, HS_TYPE_FILE, false);
	uint8_t drop = hs_meta_make(HS_CH_DROP, HS_TYPE_FILE, false);
	struct hs_sim_stats st;
	struct hs_sim *sim;

	if (hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_I64(hs_sim_step_folio(sim, 0, fd, HS_NEVER, 0), HS_STEP_MISS);
	T_EQ_I64(hs_sim_step_folio(sim, 1, fd, HS_NEVER, 0), HS_STEP_MISS);
	T_EQ_U64(hs_sim_folio_members(sim), 1);
	T_EQ_I64(hs_sim_step_folio(sim, 2, fd, HS_NEVER, HS_NIL), HS_STEP_MISS);
	T_EQ_U64(hs_sim_used(sim), 1);
	T_EQ_I64(hs_sim_step_folio(sim, 0, ra, HS_NEVER, 1), HS_STEP_OTHER);
	T_EQ_I64(hs_sim_step_folio(sim, 1, ra, HS_NEVER, 1), HS_STEP_OTHER);
	T_EQ_U64(hs_sim_used(sim), 2);
	T_EQ_U64(hs_sim_folio_members(sim), 1);
	T_EQ_I64(hs_sim_step_folio(sim, 1, drop, HS_NEVER, HS_NIL), HS_STEP_OTHER);
	T_EQ_U64(hs_sim_used(sim), 0);
	T_EQ_I64(hs_sim_check(sim), 0);
	finish(sim, &st);
	T_EQ_U64(st.misses, 3);
	T_EQ_U64(st.evictions, 3);
	T_EQ_U64(st.refaults, 2);
	T_EQ_U64(st.drops, 2);
	T_EQ_U64(st.readahead_pages, 2);
	T_EQ_U64(st.readahead_unused, 2);
}

/*
 * Folio mode with no record in a folio changes nothing: every counter of
 * every policy is that of the run without it (hs_sim_run() and
 * hs_sim_run_folios() over a random stream with hints, drops and readahead).
 */
static void test_folio_off(void)
{
	enum { N = 20000, KEYS = 500 };
	uint32_t *keys = malloc(N * sizeof(*keys)), *nil = malloc(N * sizeof(*nil));
	uint8_t *meta = malloc(N);
	uint64_t x = 88172645463325252ull;

	if (!keys || !nil || !meta) {
		t_fail(__FILE__, __LINE__, "no memory");
		goto out;
	}
	for (size_t i = 0; i < N; i++) {
		unsigned int r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		keys[i] = (uint32_t)((x >> 20) % (x & 1 ? KEYS / 10 : KEYS));
		r = (unsigned int)(x >> 50) % 100;
		meta[i] = hs_meta_make(r < 60 ? HS_CH_FD : r < 85 ? HS_CH_PT : r < 95 ?
				       HS_CH_READAHEAD : r < 98 ? HS_CH_PAGEOUT : HS_CH_DROP,
				       HS_TYPE_FILE, false);
		nil[i] = HS_NIL;
	}
	for (size_t p = 0; p < hs_policy_count(); p++) {
		const struct hs_policy_ops *ops = hs_policy_at(p);
		struct hs_sim_stats a, b;
		struct hs_sim *s1, *s2;
		struct hs_sim_config cfg = { .ops = ops, .capacity = 64, .nr_keys = KEYS };

		if (ops->flags & HS_POLICY_NEEDS_FUTURE)
			continue;
		if (hs_sim_new(&cfg, &s1)) {
			t_fail(__FILE__, __LINE__, "%s: no sim", ops->name);
			continue;
		}
		cfg.nr_folios = 3;
		if (hs_sim_new(&cfg, &s2)) {
			hs_sim_free(s1);
			t_fail(__FILE__, __LINE__, "%s: no sim", ops->name);
			continue;
		}
		T_EQ_I64(hs_sim_run(s1, keys, meta, NULL, N), 0);
		T_EQ_I64(hs_sim_run_folios(s2, keys, meta, NULL, nil, N), 0);
		hs_sim_finish(s1, &a, NULL);
		hs_sim_finish(s2, &b, NULL);
		a.prot_occupancy = b.prot_occupancy = 0;
		if (memcmp(&a, &b, sizeof(a)))
			t_fail(__FILE__, __LINE__, "%s: folio mode without folios changed a count",
			       ops->name);
		hs_sim_free(s1);
		hs_sim_free(s2);
	}
out:
	free(keys);
	free(nil);
	free(meta);
}

/*
 * linux-2q counts its lists in pages, as the kernel's lru sizes do: a folio
 * of three pages (a miss, then two pages read ahead into it) and a page of
 * its own are four pages on the file lists, two entries.
 */
static void test_folio_pages(void)
{
	struct hs_sim_config cfg = {
		.ops = hs_policy_find("linux-2q"), .capacity = 8, .nr_keys = 4,
		.paranoid = true, .nr_folios = 1,
	};
	uint8_t fd = hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false);
	uint8_t ra = hs_meta_make(HS_CH_READAHEAD, HS_TYPE_FILE, false);
	struct hs_metrics m;
	struct hs_sim_stats st;
	struct hs_sim *sim;

	if (!cfg.ops || hs_sim_new(&cfg, &sim)) {
		t_fail(__FILE__, __LINE__, "no sim");
		return;
	}
	T_EQ_I64(hs_sim_step_folio(sim, 0, fd, HS_NEVER, 0), HS_STEP_MISS);
	T_EQ_I64(hs_sim_step_folio(sim, 1, ra, HS_NEVER, 0), HS_STEP_OTHER);
	T_EQ_I64(hs_sim_step_folio(sim, 2, ra, HS_NEVER, 0), HS_STEP_OTHER);
	T_EQ_I64(hs_sim_step_folio(sim, 3, fd, HS_NEVER, HS_NIL), HS_STEP_MISS);
	T_EQ_U64(hs_env_folio_pages(hs_sim_env(sim), 0), 3);
	T_EQ_U64(hs_env_folio_pages(hs_sim_env(sim), 3), 1);
	hs_sim_finish(sim, &st, &m);
	T_EQ_U64((uint64_t)(hs_metrics_get(&m, "l2q.active_file") +
			    hs_metrics_get(&m, "l2q.inactive_file")), 4);
	hs_sim_free(sim);
}

static const struct t_case cases[] = {
	{ "folios", test_folios },
	{ "folio-drop", test_folio_drop },
	{ "folio-off", test_folio_off },
	{ "folio-pages", test_folio_pages },
	{ "readahead-model", test_readahead_model },
	{ "time-wrap", test_time_wrap },
	{ "folio-id", test_folio_id },
	{ "readahead", test_readahead },
	{ "refault-distance", test_refault_distance },
	{ "pingpong", test_pingpong },
	{ "protection", test_protection },
	{ "hints-and-drops", test_hints_and_drops },
	{ "pageout-modes", test_pageout_modes },
	{ "series", test_series },
	{ "swap-analogs", test_swap_analogs },
	{ "contract-violations", test_contract_violations },
	{ "bulk-reclaim", test_bulk_reclaim },
	{ "admit", test_admit },
	{ "next-use", test_next_use },
	{ "norecency", test_norecency },
	{ "damon", test_damon },
	{ "damon-replay", test_damon_replay },
	{ "damon-keys", test_damon_keys },
	{ "tlb", test_tlb },
	{ "tlb-bounded", test_tlb_bounded },
	{ "tlb-linux-2q", test_tlb_l2q },
	{ "tlb-replay", test_tlb_replay },
	{ "memcg-flush-l2q", test_memcg_flush_l2q },
	{ "memcg-flush-replay", test_memcg_flush_replay },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
