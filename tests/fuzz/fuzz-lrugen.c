/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz harness for the lru_gen parsers (lib/lrugen.c).  The input is the text
 * of a debugfs snapshot (lru_gen or lru_gen_full) and also, for the small
 * parsers, of the sysfs knobs enabled and min_ttl_ms.  hs_lrugen_parse() must
 * answer 0 or -EBADMSG with "line N: why", and what it accepts must be the
 * tree lrugen.h describes: at least one memcg, node and generation each,
 * distinct memcg ids and node ids, consecutive seqs, 'x' marks, tier and
 * walker detail only in lru_gen_full; the look-ups must find what is there,
 * and each lruvec's generation row must keep the pages the snapshot holds.
 * The parse is then repeated with one of its allocations failing (the
 * module's hs_lrugen_fail_alloc() hook), which must give -ENOMEM or the same
 * answer, and leak nothing (LeakSanitizer checks at exit of each input).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hs.h"
#include "lrugen.h"

static void check_node(const struct hs_lrugen *lg, const struct hs_lrugen_memcg *mc,
		       const struct hs_lrugen_node *nd)
{
	uint64_t max_seq, min_seq[HS_LRUGEN_NR_TYPES], v, want[2] = { 0, 0 }, got[2] = { 0, 0 };
	struct hs_gen_sample s;
	bool exact = !lg->full;
	size_t i, j;
	int t, ret;

	FUZZ_CHECK(nd->nr_gens >= 1 && nd->gens, "node %d without generations", nd->nid);
	FUZZ_CHECK(hs_lrugen_find_node(mc, nd->nid) == nd, "node %d not found", nd->nid);
	for (i = 0; i < nd->nr_gens; i++) {
		const struct hs_lrugen_gen *g = &nd->gens[i];
		const struct hs_lrugen_walk *w = &g->walk;

		FUZZ_CHECK(g->seq - nd->gens[0].seq == i && (!i || g->seq > g[-1].seq),
			   "node %d: seq %llu at position %zu", nd->nid,
			   (unsigned long long)g->seq, i);
		FUZZ_CHECK(g->line > nd->line && (!i || g->line > g[-1].line),
			   "generation at line %zu, its node at %zu", g->line, nd->line);
		FUZZ_CHECK(w->n <= HS_LRUGEN_WALK_MAX && w->kind <= HS_LRUGEN_WALK_HIST,
			   "walker line: %u counters, kind %u", w->n, w->kind);
		FUZZ_CHECK(strlen(w->codes) == (w->kind >= HS_LRUGEN_WALK_CURRENT ? w->n : 0),
			   "walker codes \"%s\" for %u counters, kind %u", w->codes, w->n,
			   w->kind);
		for (t = 0; t < HS_LRUGEN_NR_TYPES; t++) {
			FUZZ_CHECK(g->tier_kind[t] <= HS_LRUGEN_TIER_HIST, "tier kind %u",
				   g->tier_kind[t]);
			if (!lg->full)
				FUZZ_CHECK(!g->below_min[t] && g->tier_kind[t] ==
					   HS_LRUGEN_TIER_NONE, "lru_gen with lru_gen_full detail");
		}
		if (!lg->full)
			FUZZ_CHECK(w->kind == HS_LRUGEN_WALK_ABSENT, "lru_gen with a walker line");
		for (j = 0; j < HS_LRUGEN_MM_NR; j++) {
			ret = hs_lrugen_walk_get(w, (enum hs_lrugen_mm_stat)j, &v);
			FUZZ_CHECK(ret == 0 || ret == -ENOENT, "hs_lrugen_walk_get() = %d", ret);
			FUZZ_CHECK(ret || w->kind >= HS_LRUGEN_WALK_CURRENT, "a counter from"
				   " a walker line of kind %u", w->kind);
		}
	}

	exact = hs_lrugen_node_seqs(lg, nd, &max_seq, min_seq);
	FUZZ_CHECK(exact == lg->full, "min_seq exact %d in %s", exact,
		   lg->full ? "lru_gen_full" : "lru_gen");
	FUZZ_CHECK(max_seq == nd->gens[nd->nr_gens - 1].seq, "max_seq %llu",
		   (unsigned long long)max_seq);
	for (t = 0; t < HS_LRUGEN_NR_TYPES; t++) {
		FUZZ_CHECK(min_seq[t] >= nd->gens[0].seq && min_seq[t] <= max_seq,
			   "min_seq[%d] %llu outside %llu..%llu", t,
			   (unsigned long long)min_seq[t], (unsigned long long)nd->gens[0].seq,
			   (unsigned long long)max_seq);
		for (i = 0; i < nd->nr_gens; i++)
			if (nd->gens[i].seq >= min_seq[t])
				want[t] += nd->gens[i].nr_pages[t];
	}

	ret = hs_lrugen_node_sample(lg, nd, &s, &exact);
	if (max_seq - HS_MIN(min_seq[0], min_seq[1]) >= HS_NR_GENS) {
		FUZZ_CHECK(ret == -ERANGE, "%llu..%llu in a sample: %d",
			   (unsigned long long)HS_MIN(min_seq[0], min_seq[1]),
			   (unsigned long long)max_seq, ret);
		return;
	}
	FUZZ_CHECK(ret == 0, "hs_lrugen_node_sample() = %d", ret);
	FUZZ_CHECK(s.max_seq == max_seq && s.min_seq[0] == min_seq[0] &&
		   s.min_seq[1] == min_seq[1] && exact == lg->full, "sample's seqs differ");
	for (i = 0; i < HS_NR_GENS; i++)
		for (t = 0; t < HS_LRUGEN_NR_TYPES; t++)
			got[t] += s.pages[i][t];
	FUZZ_CHECK(got[0] == want[0] && got[1] == want[1], "sample holds %llu+%llu pages,"
		   " the snapshot %llu+%llu", (unsigned long long)got[0],
		   (unsigned long long)got[1], (unsigned long long)want[0],
		   (unsigned long long)want[1]);
}

static void check_tree(const struct hs_lrugen *lg)
{
	size_t i, j, k;

	FUZZ_CHECK(lg->nr_memcgs >= 1 && lg->memcgs, "no memcg");
	FUZZ_CHECK(!lg->nr_unknown == !lg->first_unknown, "%zu unknown lines, first at %zu",
		   lg->nr_unknown, lg->first_unknown);
	for (i = 0; i < lg->nr_memcgs; i++) {
		const struct hs_lrugen_memcg *mc = &lg->memcgs[i];

		FUZZ_CHECK(mc->path && mc->nr_nodes >= 1 && mc->nodes, "memcg %llu: no nodes",
			   (unsigned long long)mc->id);
		FUZZ_CHECK(!i || mc->line > mc[-1].line, "memcg lines out of order");
		FUZZ_CHECK(hs_lrugen_find_memcg(lg, mc->id) == mc, "memcg %llu not found",
			   (unsigned long long)mc->id);
		FUZZ_CHECK(!strcmp(hs_lrugen_find_path(lg, mc->path)->path, mc->path),
			   "memcg path \"%s\" not found", mc->path);
		for (j = 0; j < mc->nr_nodes; j++) {
			for (k = 0; k < j; k++)
				FUZZ_CHECK(mc->nodes[k].nid != mc->nodes[j].nid,
					   "node %d twice", mc->nodes[j].nid);
			check_node(lg, mc, &mc->nodes[j]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct hs_lrugen *lg = NULL, *again = NULL;
	unsigned int caps;
	char err[256], err2[256];
	uint64_t ms;
	int ret, ret2;

	ret = hs_lrugen_parse(text, size, &lg, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG, "hs_lrugen_parse() = %d (%s)", ret, err);
	if (ret) {
		FUZZ_CHECK(!lg && !strncmp(err, "line ", 5), "error %d: \"%s\"", ret, err);
	} else {
		check_tree(lg);
	}

	/* One allocation fails: -ENOMEM, or the same answer when it came after the last. */
	hs_lrugen_fail_alloc(1 + size % 16);
	ret2 = hs_lrugen_parse(text, size, &again, err2, sizeof(err2));
	hs_lrugen_fail_alloc(0);
	FUZZ_CHECK(ret2 == ret || ret2 == -ENOMEM, "%d, then %d with an allocation failing",
		   ret, ret2);
	if (ret2 == -ENOMEM)
		FUZZ_CHECK(!again && !strcmp(err2, "out of memory"), "-ENOMEM: \"%s\"", err2);
	else if (ret2)
		FUZZ_CHECK(!strcmp(err, err2), "\"%s\", then \"%s\"", err, err2);
	else
		FUZZ_CHECK(again->nr_memcgs == lg->nr_memcgs, "a different snapshot");
	hs_lrugen_free(again);
	hs_lrugen_free(lg);

	ret = hs_lrugen_parse_enabled(text, size, &caps, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || (ret == -EBADMSG && err[0]), "enabled: %d", ret);
	ret = hs_lrugen_parse_min_ttl(text, size, &ms, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || (ret == -EBADMSG && err[0]), "min_ttl_ms: %d", ret);
	FUZZ_CHECK(ret || ms <= UINT32_MAX, "min_ttl_ms %llu", (unsigned long long)ms);
	return 0;
}
