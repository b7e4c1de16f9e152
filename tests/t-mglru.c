/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the mglru policy's shadow entries (policies/mglru.c,
 * shadow=kernel against shadow=ring).  Streams too long for a golden file
 * (the shadow shrinker acts only past 256 freeable nodes), built here, with
 * every expected number worked out in the comments.
 *
 * The common setting: capacity 8, file pages read once each through a file
 * descriptor, in order, never again until the last steps.  At 8 pages the
 * reclaim goal and batch scale down to 1 (capacity/1024 and /512, at least
 * 1), so each miss past the first 8 evicts exactly one page.  Every page is
 * read once (PG_referenced only: tier 0, never protected) and, after the
 * first reclaim moved min_seq to 1, added to min_seq (3 gens: min_seq + 2 >=
 * max_seq): generation 1 is a FIFO and no aging runs.  Eviction e (from 1)
 * removes the e-th page read.
 *
 * The shadow shrinker (count_shadow_nodes(), do_shrink_slab() with seeks 0):
 * the memcg may keep capacity >> 3 = 1 shadow-only node; each reclaim sees
 * freeable = nodes - 1 and does freeable / 2 of work, run only in batches of
 * 128 (or all of it, which half never is): nothing happens until 257 nodes
 * hold only shadows, then the 128 oldest are freed with their tokens.  The
 * deferred work stays below 2 * freeable < 4096, so its share
 * (deferred >> 12) is 0 throughout.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "access.h"
#include "harness.h"
#include "neigh.h"
#include "param.h"
#include "policy.h"
#include "sim.h"

#define CAP	8

struct run {
	struct hs_param_set	*ps;
	struct hs_neigh		*nb;
	struct hs_sim		*sim;
	struct hs_sim_stats	st;
	struct hs_metrics	m;
};

/*
 * A run of mglru with shadow=@shadow and reclaim_loop=@loop over @nr_keys
 * keys; @nb: addresses or NULL; @reclaim_max: the recording's largest memcg
 * reclaim (hs_policy_env.memcg_reclaim_max).
 */
static int start_with(struct run *r, const char *shadow, uint32_t nr_keys, struct hs_neigh *nb,
		      const char *loop, uint64_t reclaim_max)
{
	const struct hs_policy_ops *ops = hs_policy_find("mglru");
	struct hs_sim_config cfg;

	memset(r, 0, sizeof(*r));
	r->nb = nb;
	if (!ops || hs_param_set_new(ops->params, &r->ps) ||
	    hs_param_set_parse(r->ps, "shadow", shadow, NULL, 0) ||
	    hs_param_set_parse(r->ps, "reclaim_loop", loop, NULL, 0))
		return -EINVAL;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ops = ops;
	cfg.params = r->ps;
	cfg.capacity = CAP;
	cfg.nr_keys = nr_keys;
	cfg.neigh = nb;
	cfg.memcg_reclaim_max = reclaim_max;
	cfg.paranoid = true;	/* check() after every hook: the node counts too */
	return hs_sim_new(&cfg, &r->sim);
}

/* A run of mglru with shadow=@shadow over @nr_keys keys; @nb: addresses or NULL. */
static int start(struct run *r, const char *shadow, uint32_t nr_keys, struct hs_neigh *nb)
{
	return start_with(r, shadow, nr_keys, nb, "auto", 0);
}

static int read_page(struct run *r, uint32_t key)
{
	int ret = hs_sim_step(r->sim, key, hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false),
			      UINT64_MAX);

	return ret < 0 ? ret : 0;
}

static double metric(const struct run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->m.n; i++)
		if (!strcmp(r->m.m[i].name, name))
			return r->m.m[i].value;
	return -1;
}

static void finish(struct run *r)
{
	hs_sim_finish(r->sim, &r->st, &r->m);
}

static void stop(struct run *r)
{
	hs_sim_free(r->sim);
	hs_param_set_free(r->ps);
	hs_neigh_free(r->nb);
}

/*
 * One page per node (keys 64 * j, j = 0 .. 307, by key id), then key 0 and
 * key 64 * 200 again.  308 reads: 300 evictions, pages j = 0 .. 299; at the
 * 257th the shrinker frees the nodes of j = 0 .. 127; 172 tokens are left.
 * Key 0 (token freed) misses without a workingset refault and evicts j = 300;
 * key 64 * 200 (evicted 201st, token kept) misses after evicting j = 301 and
 * finds its token: min_seq is still 1, as at its eviction, so it is recent:
 * workingset_refault 1.  Tokens: 172 + 2 - 1 = 173; evictions 302; the
 * driver's own refault count (every key evicted before) 2.
 *
 * The ring (shadow_factor 2: 16 slots) holds only the last 16 evictions, so
 * neither key finds a token: workingset_refault 0, 16 tokens, no node freed.
 */
static void one_page_per_node(void)
{
	static const struct {
		const char	*shadow;
		double		freed, ws_refault, tokens;
	} want[] = {
		{ "kernel", 128, 1, 173 },
		{ "ring", 0, 0, 16 },
	};
	size_t w;
	uint32_t j;

	for (w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		struct run r;

		T_ASSERT(start(&r, want[w].shadow, 64 * 308, NULL) == 0);
		for (j = 0; j < 308 && !t_case_failed(); j++)
			T_ASSERT(read_page(&r, 64 * j) == 0);
		T_ASSERT(read_page(&r, 0) == 0);
		T_ASSERT(read_page(&r, 64 * 200) == 0);
		finish(&r);
		T_EQ_U64(r.st.evictions, 302);
		T_EQ_U64(r.st.refaults, 2);
		T_EQ_U64(r.st.misses, 310);
		T_ASSERT(metric(&r, "mglru.agings") == 0);
		T_ASSERT(metric(&r, "mglru.shadow_nodes_freed") == want[w].freed);
		T_ASSERT(metric(&r, "mglru.workingset_refault") == want[w].ws_refault);
		T_ASSERT(metric(&r, "mglru.refaulted_tier0") == want[w].ws_refault);
		T_ASSERT(metric(&r, "mglru.shadow_tokens") == want[w].tokens);
		stop(&r);
	}
}

/*
 * Density by address: keys 2i and 2i + 1 (i = 0 .. 307) are pages 64 * i and
 * 64 * i + 1 of one file, so each pair fills one xarray node.  616 reads, 608
 * evictions (keys 0 .. 607).  A node holds only shadows once its second key is
 * evicted: after eviction e, e / 2 nodes (rounded down).  The 257th comes at
 * e = 514, and the 128 oldest nodes (keys 0 .. 255) go: 608 - 256 = 352
 * tokens.  The same stream without addresses groups 64 consecutive key ids
 * per node: 9 nodes hold only shadows at the end (keys 0 .. 575), far below
 * 257, and all 608 tokens stay.
 */
static void density_by_address(void)
{
	uint32_t nk = 616, i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		struct hs_neigh *nb = NULL;
		struct run r;

		if (pass == 0) {
			T_ASSERT(hs_neigh_new(nk, &nb) == 0);
			for (i = 0; i < nk; i++)
				hs_neigh_set(nb, i, 1, 64 * (i / 2) + i % 2);
			T_ASSERT(hs_neigh_finish(nb) == 0);
		}
		T_ASSERT(start(&r, "kernel", nk, nb) == 0);
		for (i = 0; i < nk && !t_case_failed(); i++)
			T_ASSERT(read_page(&r, i) == 0);
		finish(&r);
		T_EQ_U64(r.st.evictions, 608);
		T_ASSERT(metric(&r, "mglru.shadow_nodes_freed") == (pass ? 0 : 128));
		T_ASSERT(metric(&r, "mglru.shadow_tokens") == (pass ? 608 : 352));
		stop(&r);
	}
}

/*
 * reclaim_loop=auto: on a recording (keys with addresses) the kernel's loop
 * unless every recorded memcg reclaim freed 128 pages or fewer (and when
 * none is recorded); without addresses spec's, whatever the reclaims; an
 * explicit choice stands.  mglru.kernel_loop says which ran.
 */
static void loop_from_reclaims(void)
{
	static const struct {
		bool		addr;
		uint64_t	max;
		const char	*loop;
		double		kernel;
	} c[] = {
		{ true, 0, "auto", 1 }, { true, 92, "auto", 0 }, { true, 128, "auto", 0 },
		{ true, 129, "auto", 1 }, { true, 902, "auto", 1 }, { false, 902, "auto", 0 },
		{ false, 0, "auto", 0 }, { true, 92, "kernel", 1 }, { true, 902, "spec", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]) && !t_case_failed(); i++) {
		struct hs_neigh *nb = NULL;
		struct run r;
		uint32_t k;

		if (c[i].addr) {
			T_ASSERT(hs_neigh_new(64, &nb) == 0);
			for (k = 0; k < 64; k++)
				hs_neigh_set(nb, k, 1, k);
			T_ASSERT(hs_neigh_finish(nb) == 0);
		}
		T_ASSERT(start_with(&r, "kernel", 64, nb, c[i].loop, c[i].max) == 0);
		for (k = 0; k < 64 && !t_case_failed(); k++)
			T_ASSERT(read_page(&r, k) == 0);
		finish(&r);
		T_EQ_U64(r.st.evictions, 64 - CAP);
		if (metric(&r, "mglru.kernel_loop") != c[i].kernel)
			t_fail(__FILE__, __LINE__, "case %zu (addresses %d, max %llu, %s): "
			       "kernel_loop %.0f, expected %.0f", i, c[i].addr,
			       (unsigned long long)c[i].max, c[i].loop,
			       metric(&r, "mglru.kernel_loop"), c[i].kernel);
		stop(&r);
	}
}

static const struct t_case cases[] = {
	{ "one_page_per_node", one_page_per_node },
	{ "density_by_address", density_by_address },
	{ "loop_from_reclaims", loop_from_reclaims },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
