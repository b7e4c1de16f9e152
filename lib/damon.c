/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The region model of DAMON_LRU_SORT: lib/damon.h has what it keeps of the
 * kernel and what not.  Written from the behaviour of mm/damon/ of 6.12 as
 * its documentation and source describe it; the names of the steps follow
 * the kernel's so the two can be read side by side.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "damon.h"
#include "event.h"
#include "hs.h"
#include "keymap.h"
#include "store-int.h"

#define NIL		UINT32_MAX
#define PAGE_BYTES	4096ull		/* DAMON_MIN_REGION on x86 */
#define MAX_SCORE	99		/* DAMOS_MAX_SCORE */
#define MAX_SUBSCORE	100		/* DAMON_MAX_SUBSCORE */
#define MAX_AGE_IN_LOG	32		/* DAMON_MAX_AGE_IN_LOG */

struct region {
	uint64_t	start, end;		/* frames [start, end) */
	uint32_t	nr_accesses;
	uint32_t	last_nr_accesses;
	uint32_t	age;			/* aggregation intervals */
	uint64_t	sample;			/* the frame picked at the last check */
	uint32_t	sample_gen;		/* its life then (0: none) */
};

struct scheme {
	bool		hot;			/* LRU_PRIO; else LRU_DEPRIO */
	uint32_t	min_acc, max_acc;	/* the access pattern */
	uint32_t	min_age;
	uint64_t	charged;		/* bytes charged in this reset interval */
	uint64_t	charged_from;		/* its start (trace clock) */
	bool		started;
	bool		charge_pending;		/* the quota ran out: resume after ... */
	uint64_t	charge_addr;		/* ... this byte address */
	uint32_t	min_score;
};

struct hs_damon {
	struct hs_damon_attrs	a;
	uint32_t		nr_keys;
	uint32_t		max_acc;	/* nr_accesses' most: aggr / sample */
	uint64_t		lo, hi;		/* the frames [lo, hi) */
	uint32_t		*fkey;		/* per frame - lo: its key, or NIL */
	uint32_t		*fgen;		/* its life's serial (1 + page index), 0 free */
	uint64_t		*last;		/* per key: last access time + 1, 0 never */
	struct hs_damon_page	*pg;
	size_t			np;
	uint32_t		*by_birth, *by_death;	/* page indexes in time order */
	size_t			nd, ib, id;
	struct region		*r;
	size_t			nr, cap;
	uint64_t		rng;
	bool			started;
	uint64_t		step_ns;	/* from one check to the next */
	uint64_t		next_ns;	/* the next check */
	uint64_t		prep_ns;	/* the last check (and preparation) */
	uint32_t		samples;	/* checks in this aggregation interval */
	uint32_t		max_seen;	/* the highest nr_accesses in it */
	size_t			last_nr_regions;
	struct scheme		s[2];		/* hot, cold: lru_sort.c's order */
	struct hs_damon_stats	st;
	struct hs_damon_act	*ra;		/* the kernel's actions, or NULL: monitor */
	size_t			nra, ira;	/* their number, the next */
};

void hs_damon_defaults(struct hs_damon_attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->sample_ns = 5000000;
	a->aggr_ns = 100000000;
	a->min_nr_regions = 10;
	a->max_nr_regions = 1000;
	a->hot_thres_permil = 500;
	a->cold_min_age_ns = 120000000000ull;
	a->reset_ns = 1000000000;
	a->seed = 1;
}

/* xorshift64*: reproducible, seeded by the attributes */
static uint64_t rnd(struct hs_damon *dm)
{
	dm->rng ^= dm->rng >> 12;
	dm->rng ^= dm->rng << 25;
	dm->rng ^= dm->rng >> 27;
	return dm->rng * 0x2545f4914f6cdd1dull;
}

/* damon_rand(l, r): [l, r) */
static uint64_t rnd_in(struct hs_damon *dm, uint64_t l, uint64_t r)
{
	return l + (rnd(dm) >> 11) % (r - l);
}

static const struct hs_damon_page *g_pg;	/* for the sorts below only */

static int birth_cmp(const void *x, const void *y)
{
	uint64_t a = g_pg[*(const uint32_t *)x].born_ns, b = g_pg[*(const uint32_t *)y].born_ns;

	return (a > b) - (a < b);
}

static int death_cmp(const void *x, const void *y)
{
	uint64_t a = g_pg[*(const uint32_t *)x].died_ns, b = g_pg[*(const uint32_t *)y].died_ns;

	return (a > b) - (a < b);
}

void hs_damon_free(struct hs_damon *dm)
{
	if (!dm)
		return;
	free(dm->fkey);
	free(dm->fgen);
	free(dm->last);
	free(dm->pg);
	free(dm->by_birth);
	free(dm->by_death);
	free(dm->r);
	free(dm->ra);
	free(dm);
}

void hs_damon_acts_free(struct hs_damon_acts *acts)
{
	free(acts->at);
	free(acts->off);
	free(acts->keys);
	memset(acts, 0, sizeof(*acts));
}

int hs_damon_new(const struct hs_damon_attrs *a, const struct hs_damon_page *pages, size_t n,
		 uint32_t nr_keys, struct hs_damon **out)
{
	struct hs_damon *dm;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	*out = NULL;
	if (!a->sample_ns || a->aggr_ns < a->sample_ns || !a->min_nr_regions ||
	    a->max_nr_regions < 3 || a->min_nr_regions > a->max_nr_regions || !a->reset_ns ||
	    n >= UINT32_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (pages[i].key >= nr_keys)
			continue;
		lo = HS_MIN(lo, pages[i].pfn);
		hi = HS_MAX(hi, pages[i].pfn + 1);
	}
	if (lo >= hi)
		return -EINVAL;
	if (a->mon_end > a->mon_start) {	/* the whole of the monitored range */
		lo = HS_MIN(lo, a->mon_start / PAGE_BYTES);
		hi = HS_MAX(hi, a->mon_end / PAGE_BYTES + 1);
	}
	if (hi - lo >= UINT32_MAX)
		return -EINVAL;
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return -ENOMEM;
	dm->a = *a;
	dm->nr_keys = nr_keys;
	dm->max_acc = (uint32_t)(a->aggr_ns / a->sample_ns);
	/* a slow kdamond: its checks further apart, its ages and scores counted as set */
	dm->step_ns = a->sample_ns * (a->slowdown > 1 ? a->slowdown : 1);
	dm->lo = lo;
	dm->hi = hi;
	dm->rng = a->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	if (!dm->rng)
		dm->rng = 1;
	dm->fkey = malloc((hi - lo) * sizeof(*dm->fkey));
	dm->fgen = calloc(hi - lo, sizeof(*dm->fgen));
	dm->last = calloc(nr_keys ? nr_keys : 1, sizeof(*dm->last));
	dm->pg = malloc((n ? n : 1) * sizeof(*dm->pg));
	dm->by_birth = malloc((n ? n : 1) * sizeof(*dm->by_birth));
	dm->by_death = malloc((n ? n : 1) * sizeof(*dm->by_death));
	dm->cap = a->max_nr_regions * 2 + 8;
	dm->r = calloc(dm->cap, sizeof(*dm->r));
	if (!dm->fkey || !dm->fgen || !dm->last || !dm->pg || !dm->by_birth || !dm->by_death ||
	    !dm->r) {
		hs_damon_free(dm);
		return -ENOMEM;
	}
	memset(dm->fkey, 0xff, (hi - lo) * sizeof(*dm->fkey));
	for (i = 0; i < n; i++) {
		if (pages[i].key >= nr_keys)
			continue;
		dm->pg[dm->np] = pages[i];
		dm->by_birth[dm->np] = (uint32_t)dm->np;
		if (pages[i].died_ns)
			dm->by_death[dm->nd++] = (uint32_t)dm->np;
		dm->np++;
	}
	g_pg = dm->pg;
	qsort(dm->by_birth, dm->np, sizeof(*dm->by_birth), birth_cmp);
	qsort(dm->by_death, dm->nd, sizeof(*dm->by_death), death_cmp);
	g_pg = NULL;
	/* the scheme's access patterns and quotas (lru_sort.c) */
	dm->s[0].hot = true;
	dm->s[0].min_acc = (uint32_t)((uint64_t)a->hot_thres_permil * dm->max_acc / 1000);
	dm->s[0].max_acc = UINT32_MAX;
	dm->s[1].min_acc = 0;
	dm->s[1].max_acc = 0;
	dm->s[1].min_age = (uint32_t)HS_MIN(a->cold_min_age_ns / a->aggr_ns, (uint64_t)UINT32_MAX);
	/* the whole space is one region at first, as damon_set_regions() leaves it */
	dm->nr = 1;
	dm->r[0].start = lo;
	dm->r[0].end = hi;
	dm->st.pfn_lo = lo;
	dm->st.pfn_hi = hi;
	*out = dm;
	return 0;
}

void hs_damon_get_stats(const struct hs_damon *dm, struct hs_damon_stats *st)
{
	*st = dm->st;
	st->nr_regions = (uint32_t)dm->nr;
}

/* The recorded lives that began or ended before @t, in time order (deaths first on a tie). */
static void lives_until(struct hs_damon *dm, uint64_t t)
{
	for (;;) {
		const struct hs_damon_page *b = dm->ib < dm->np ? &dm->pg[dm->by_birth[dm->ib]] : NULL;
		const struct hs_damon_page *d = dm->id < dm->nd ? &dm->pg[dm->by_death[dm->id]] : NULL;

		if (d && d->died_ns < t && (!b || d->died_ns <= b->born_ns)) {
			uint64_t f = d->pfn - dm->lo;

			/* only the life that holds the frame leaves it */
			if (dm->fgen[f] == dm->by_death[dm->id] + 1) {
				dm->fkey[f] = NIL;
				dm->fgen[f] = 0;
			}
			dm->id++;
		} else if (b && b->born_ns < t) {
			uint64_t f = b->pfn - dm->lo;

			dm->fkey[f] = b->key;
			dm->fgen[f] = dm->by_birth[dm->ib] + 1;
			dm->ib++;
		} else {
			return;
		}
	}
}

/* Room for one more region at @i + 1, a copy of region @i cut at @pages into it. */
static void split_at(struct hs_damon *dm, size_t i, uint64_t pages)
{
	struct region *r;

	/* a split never goes past twice max_nr_regions: hs_damon_new() sized it */
	if (dm->nr == dm->cap)
		return;
	memmove(&dm->r[i + 2], &dm->r[i + 1], (dm->nr - i - 1) * sizeof(*dm->r));
	dm->nr++;
	r = &dm->r[i];
	dm->r[i + 1] = *r;
	dm->r[i + 1].start = r->start + pages;
	dm->r[i + 1].sample_gen = 0;
	r->end = r->start + pages;
}

static uint64_t sz_pages(const struct region *r)
{
	return r->end - r->start;
}

/* One pass of damon_merge_regions_of(): ages, then adjacent regions alike merged. */
static void merge_pass(struct hs_damon *dm, uint32_t thres, uint64_t sz_limit)
{
	size_t w = 0;

	for (size_t i = 0; i < dm->nr; i++) {
		struct region r = dm->r[i];
		uint32_t d = r.nr_accesses > r.last_nr_accesses ?
			     r.nr_accesses - r.last_nr_accesses : r.last_nr_accesses - r.nr_accesses;

		if (d > thres)
			r.age = 0;
		else
			r.age++;
		if (w) {
			struct region *p = &dm->r[w - 1];
			uint32_t e = p->nr_accesses > r.nr_accesses ? p->nr_accesses - r.nr_accesses :
				     r.nr_accesses - p->nr_accesses;
			uint64_t sl = sz_pages(p), sr = sz_pages(&r);

			if (p->end == r.start && e <= thres &&
			    (sl + sr) * PAGE_BYTES <= sz_limit) {
				p->nr_accesses = (uint32_t)((p->nr_accesses * sl + r.nr_accesses * sr) /
							    (sl + sr));
				p->age = (uint32_t)((p->age * sl + r.age * sr) / (sl + sr));
				p->end = r.end;
				continue;
			}
		}
		dm->r[w++] = r;
	}
	dm->nr = w;
}

/* kdamond_merge_regions() */
static void merge_regions(struct hs_damon *dm)
{
	uint64_t total = (dm->hi - dm->lo) * PAGE_BYTES;
	uint64_t sz_limit = HS_MAX(total / dm->a.min_nr_regions, PAGE_BYTES);
	uint32_t thres = dm->max_seen / 10;

	do {
		merge_pass(dm, thres, sz_limit);
		thres = HS_MAX(1u, thres * 2);
	} while (dm->nr > dm->a.max_nr_regions && thres / 2 < dm->max_acc);
}

/* kdamond_split_regions() */
static void split_regions(struct hs_damon *dm)
{
	size_t nr = dm->nr, i = 0;
	int subs = 2;

	if (nr > dm->a.max_nr_regions / 2)
		return;
	if (dm->last_nr_regions == nr && nr < dm->a.max_nr_regions / 3)
		subs = 3;
	while (i < dm->nr) {
		uint64_t sz = sz_pages(&dm->r[i]);
		size_t added = 0;

		for (int k = 0; k < subs - 1 && sz > 2; k++) {
			/* the left part is 10 % to 90 % of the region, in pages */
			uint64_t sub = rnd_in(dm, 1, 10) * sz / 10;

			if (!sub || sub >= sz)
				continue;
			split_at(dm, i, sub);
			sz = sub;
			added++;
		}
		i += 1 + added;
	}
	dm->last_nr_regions = nr;
}

/* damon_hot_score() with the scheme's weights: hot counts accesses, cold age */
static uint32_t score(const struct hs_damon *dm, const struct scheme *s, const struct region *r)
{
	int freq = (int)((uint64_t)r->nr_accesses * MAX_SUBSCORE / dm->max_acc);
	uint64_t age_s = (uint64_t)r->age * dm->a.aggr_ns / 1000000000ull;
	int lg = 0, age_sub, hot;

	for (; lg < MAX_AGE_IN_LOG && age_s; lg++)
		age_s >>= 1;
	if (freq == 0)			/* idle: the older, the colder */
		lg = -lg;
	age_sub = (lg + MAX_AGE_IN_LOG) * MAX_SUBSCORE / MAX_AGE_IN_LOG / 2;
	hot = s->hot ? freq : age_sub;	/* weights 1/0 (hot) and 0/1 (cold) */
	hot = hot * MAX_SCORE / MAX_SUBSCORE;
	return (uint32_t)(s->hot ? hot : MAX_SCORE - hot);
}

static bool pattern_ok(const struct scheme *s, const struct region *r)
{
	return r->nr_accesses >= s->min_acc && r->nr_accesses <= s->max_acc &&
	       r->age >= s->min_age;
}

/* damos_adjust_quota(): a new reset interval, and the score that fits the quota */
static void adjust_quota(struct hs_damon *dm, struct scheme *s, uint64_t t)
{
	uint64_t hist[MAX_SCORE + 1] = { 0 }, cum = 0;
	uint32_t max = 0, sc;
	uint64_t esz = dm->a.quota_bytes;

	if (!s->started || t - s->charged_from >= dm->a.reset_ns) {
		if (s->started && esz && s->charged >= esz) {
			if (s->hot)
				dm->st.hot_quota_exceeds++;
			else
				dm->st.cold_quota_exceeds++;
		}
		s->started = true;
		s->charged_from = t;
		s->charged = 0;
	}
	if (!esz)
		return;
	for (size_t i = 0; i < dm->nr; i++) {
		if (!pattern_ok(s, &dm->r[i]))
			continue;
		sc = score(dm, s, &dm->r[i]);
		hist[sc] += sz_pages(&dm->r[i]) * PAGE_BYTES;
		max = HS_MAX(max, sc);
	}
	for (sc = max;; sc--) {
		cum += hist[sc];
		if (cum >= esz || !sc)
			break;
	}
	s->min_score = sc;
}

static int acts_key(struct hs_damon_acts *acts, uint32_t key)
{
	uint32_t *k = hs_grow(acts->keys, &acts->keys_cap, acts->nr_keys + 1, sizeof(*k), 256);

	if (!k)
		return -ENOMEM;
	acts->keys = k;
	k[acts->nr_keys++] = key;
	acts->off[acts->nr] = (uint32_t)acts->nr_keys;
	return 0;
}

/* A group of actions before record @pos (one per position). */
static int acts_at(struct hs_damon_acts *acts, size_t pos)
{
	uint32_t *at, *off;

	if (acts->nr && acts->at[acts->nr - 1] == pos)
		return 0;
	at = hs_grow(acts->at, &acts->cap, acts->nr + 1, sizeof(*at), 16);
	if (!at)
		return -ENOMEM;
	acts->at = at;
	off = realloc(acts->off, (acts->cap + 1) * sizeof(*off));
	if (!off)
		return -ENOMEM;
	acts->off = off;
	if (!acts->nr)
		off[0] = (uint32_t)acts->nr_keys;
	at[acts->nr++] = (uint32_t)pos;
	off[acts->nr] = (uint32_t)acts->nr_keys;
	return 0;
}

/*
 * A scheme's action on frames [@start, @end) of the space, of a region of
 * @bytes: the cold scheme deactivates the recorded pages there, before
 * record @pos; the hot one is counted only.
 */
static int act_frames(struct hs_damon *dm, bool hot, uint64_t start, uint64_t end,
		      uint64_t bytes, struct hs_damon_acts *acts, size_t pos)
{
	uint64_t pages = 0;
	int err = 0;

	if (!hot)
		err = acts_at(acts, pos);
	for (uint64_t f = start; f < end && !err; f++) {
		uint32_t k = dm->fkey[f - dm->lo];

		if (k == NIL)
			continue;
		pages++;
		if (!hot)
			err = acts_key(acts, k);
	}
	if (hot) {
		dm->st.nr_hot_regions++;
		dm->st.bytes_hot += bytes;
		dm->st.hot_pages += pages;
	} else {
		dm->st.nr_cold_regions++;
		dm->st.bytes_cold += bytes;
		dm->st.cold_pages += pages;
	}
	return err;
}

/* The scheme's action on region @i (already cut to the quota) */
static int act(struct hs_damon *dm, const struct scheme *s, size_t i, struct hs_damon_acts *acts,
	       size_t pos)
{
	const struct region *r = &dm->r[i];

	return act_frames(dm, s->hot, r->start, r->end, sz_pages(r) * PAGE_BYTES, acts, pos);
}

/*
 * damon_do_apply_schemes() on region @i: the next region of the pass is
 * returned in *@next (regions a quota split adds are left for the next pass).
 */
static int apply_region(struct hs_damon *dm, size_t i, struct hs_damon_acts *acts, size_t pos,
			size_t *next)
{
	uint64_t esz = dm->a.quota_bytes;
	size_t added = 0;
	int err = 0;

	for (int k = 0; k < 2 && !err; k++) {
		struct scheme *s = &dm->s[k];
		struct region *r = &dm->r[i];
		uint64_t sz;

		if (esz && s->charged >= esz)
			continue;
		if (s->charge_pending) {	/* damos_skip_charged_region() */
			if (i == dm->nr - 1) {
				s->charge_pending = false;
				continue;
			}
			if (r->end * PAGE_BYTES <= s->charge_addr)
				continue;
			if (r->start * PAGE_BYTES < s->charge_addr) {
				uint64_t skip = (s->charge_addr - r->start * PAGE_BYTES) / PAGE_BYTES;

				if (!skip) {
					if (sz_pages(r) <= 1)
						continue;
					skip = 1;
				}
				split_at(dm, i, skip);
				i++;
				r = &dm->r[i];
			}
			s->charge_pending = false;
		}
		if (!pattern_ok(s, r) || (esz && score(dm, s, r) < s->min_score))
			continue;
		sz = sz_pages(r) * PAGE_BYTES;
		if (esz && s->charged + sz > esz) {	/* damos_apply_scheme() */
			uint64_t fit = (esz - s->charged) / PAGE_BYTES;

			if (!fit)
				continue;
			split_at(dm, i, fit);
			added++;
			r = &dm->r[i];
			sz = fit * PAGE_BYTES;
		}
		err = act(dm, s, i, acts, pos);
		/* an action other than DAMOS_STAT starts the region's age over */
		dm->r[i].age = 0;
		s->charged += sz;
		if (esz && s->charged >= esz) {
			s->charge_pending = true;
			s->charge_addr = r->end * PAGE_BYTES + 1;
		}
	}
	*next = i + 1 + added;
	return err;
}

/* The end of an aggregation interval at @t: merge, schemes, reset, split. */
static int aggregate(struct hs_damon *dm, uint64_t t, struct hs_damon_acts *acts, size_t pos)
{
	int err = 0;

	merge_regions(dm);
	for (int k = 0; k < 2; k++)
		adjust_quota(dm, &dm->s[k], t);
	for (size_t i = 0; i < dm->nr && !err;)
		err = apply_region(dm, i, acts, pos, &i);
	for (size_t i = 0; i < dm->nr; i++) {	/* kdamond_reset_aggregated() */
		dm->r[i].last_nr_accesses = dm->r[i].nr_accesses;
		dm->r[i].nr_accesses = 0;
	}
	split_regions(dm);
	dm->st.aggregations++;
	dm->max_seen = 0;
	dm->samples = 0;
	return err;
}

/* damon_pa_prepare_access_checks(): a frame a region, its accessed state cleared */
static void prepare(struct hs_damon *dm, uint64_t t)
{
	for (size_t i = 0; i < dm->nr; i++) {
		struct region *r = &dm->r[i];

		r->sample = rnd_in(dm, r->start, r->end);
		r->sample_gen = dm->fgen[r->sample - dm->lo];
	}
	dm->prep_ns = t;
}

/* damon_pa_check_accesses() at @t, and what ends with it */
static int check(struct hs_damon *dm, uint64_t t, struct hs_damon_acts *acts, size_t pos)
{
	lives_until(dm, t);
	for (size_t i = 0; i < dm->nr; i++) {
		struct region *r = &dm->r[i];
		uint64_t f = r->sample - dm->lo;
		uint32_t k = dm->fkey[f];
		bool young;

		if (k == NIL)
			young = false;		/* no LRU folio the recording sees */
		else if (dm->fgen[f] != r->sample_gen)
			young = true;		/* a folio allocated since: not idle */
		else
			young = dm->last[k] > dm->prep_ns;
		if (young) {
			r->nr_accesses++;
			dm->max_seen = HS_MAX(dm->max_seen, r->nr_accesses);
		}
	}
	if (++dm->samples >= dm->max_acc) {
		int err = aggregate(dm, t, acts, pos);

		if (err)
			return err;
	}
	prepare(dm, t);
	return 0;
}

/* The recorded actions @ra[0 .. @n - 1] become @dm's, from the first: @dm owns @ra. */
static void take_recorded(struct hs_damon *dm, struct hs_damon_act *ra, size_t n)
{
	free(dm->ra);
	dm->ra = ra;
	dm->nra = n;
	dm->ira = 0;
}

int hs_damon_set_recorded(struct hs_damon *dm, const struct hs_damon_act *ra, size_t n)
{
	struct hs_damon_act *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	if (n)
		memcpy(copy, ra, n * sizeof(*copy));
	take_recorded(dm, copy, n);
	return 0;
}

/*
 * hs_damon_feed() with the kernel's actions: each one whose time is at or
 * before a record's goes before it, on the frames of its region that the
 * space holds, with the lives of that moment.
 */
static int feed_recorded(struct hs_damon *dm, const uint64_t *ts, size_t n,
			 struct hs_damon_acts *acts)
{
	int err;

	for (size_t i = 0; i < n; i++) {
		while (dm->ira < dm->nra && dm->ra[dm->ira].ts_ns <= ts[i]) {
			const struct hs_damon_act *x = &dm->ra[dm->ira++];
			uint64_t f0 = HS_MAX(x->start / PAGE_BYTES, dm->lo);
			uint64_t f1 = HS_MIN((x->end + PAGE_BYTES - 1) / PAGE_BYTES, dm->hi);

			if (x->scheme > 1 || x->end <= x->start)
				continue;	/* another context's scheme, or empty */
			lives_until(dm, x->ts_ns);
			err = act_frames(dm, x->scheme == 0, f0, HS_MAX(f0, f1),
					 x->end - x->start, acts, i);
			if (err)
				return err;
		}
	}
	return 0;
}

int hs_damon_feed(struct hs_damon *dm, const uint32_t *keys, const uint8_t *meta,
		  const uint64_t *ts, size_t n, struct hs_damon_acts *acts)
{
	int err;

	acts->nr = 0;
	acts->nr_keys = 0;
	if (dm->ra)
		return feed_recorded(dm, ts, n, acts);
	for (size_t i = 0; i < n; i++) {
		if (unlikely(!dm->started)) {
			dm->started = true;
			lives_until(dm, ts[i] + 1);	/* those born by the first record */
			prepare(dm, ts[i]);
			dm->next_ns = ts[i] + dm->step_ns;
		}
		while (ts[i] >= dm->next_ns) {	/* an idle gap may end several */
			err = check(dm, dm->next_ns, acts, i);
			if (err)
				return err;
			dm->next_ns += dm->step_ns;
		}
		if (hs_channel_is_access(hs_meta_channel(meta[i])) && keys[i] < dm->nr_keys)
			dm->last[keys[i]] = ts[i] + 1;
	}
	return 0;
}

/* One of the session's DAMON_LRU_SORT parameters, or @def when it has none. */
static uint64_t param(sqlite3_stmt *s, int64_t session, const char *name, uint64_t def)
{
	char path[96];
	uint64_t v = def;

	snprintf(path, sizeof(path), "$.damon_lru_sort.%s", name);
	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER &&
	    sqlite3_column_int64(s, 0) > 0)
		v = (uint64_t)sqlite3_column_int64(s, 0);
	return v;
}

/* The session's recorded scheme actions (damos_before_apply) into @dm. */
static int load_recorded(struct hs_store *st, int64_t session, struct hs_damon *dm)
{
	struct hs_damon_act *ra = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, "SELECT ts_ns, c, idx, last FROM events WHERE session = ?1"
				" AND type = ?2 ORDER BY ts_ns, seq", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int(s, 2, HS_EV_DAMOS_APPLY);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct hs_damon_act *g = hs_grow(ra, &cap, n + 1, sizeof(*ra), 1024);

		if (!g) {
			err = -ENOMEM;
			goto out;
		}
		ra = g;
		ra[n].ts_ns = (uint64_t)sqlite3_column_int64(s, 0);
		ra[n].scheme = (uint32_t)sqlite3_column_int64(s, 1);
		ra[n].start = (uint64_t)sqlite3_column_int64(s, 2);
		ra[n].end = (uint64_t)sqlite3_column_int64(s, 3);
		n++;
	}
	if (rc != SQLITE_DONE) {
		err = store_sql_err(st, rc);
		goto out;
	}
	if (!n) {
		err = store_err(st, -ENODATA, "session %lld has no recorded DAMON scheme action"
				" (damon:damos_before_apply, recorded since schema 13 while a"
				" kdamond runs)", (long long)session);
		goto out;
	}
	take_recorded(dm, ra, n);	/* hs_damon_set_recorded() without the copy */
	ra = NULL;
out:
	sqlite3_finalize(s);
	free(ra);
	return err;
}

int hs_damon_load(struct hs_store *st, int64_t session, uint32_t nr_keys,
		  const struct hs_damon_attrs *over, struct hs_damon **out)
{
	struct hs_damon_attrs a;
	struct hs_damon_page *dp = NULL;
	struct hs_rec_page *pg = NULL;
	struct hs_keymap *km = NULL;
	uint64_t *ids = NULL, nid = 0, unkeyed;
	sqlite3_stmt *s = NULL;
	size_t np = 0, n = 0;
	int err, rc;

	*out = NULL;
	hs_damon_defaults(&a);
	rc = sqlite3_prepare_v2(st->db, "SELECT json_extract(params, ?2) FROM sessions"
				" WHERE id = ?1 AND json_valid(params)", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	/* the module's parameters in its units: microseconds, per mille */
	a.sample_ns = param(s, session, "sample_interval", a.sample_ns / 1000) * 1000;
	a.aggr_ns = param(s, session, "aggr_interval", a.aggr_ns / 1000) * 1000;
	a.min_nr_regions = (uint32_t)param(s, session, "min_nr_regions", a.min_nr_regions);
	a.max_nr_regions = (uint32_t)param(s, session, "max_nr_regions", a.max_nr_regions);
	a.hot_thres_permil = (uint32_t)param(s, session, "hot_thres_access_freq",
					     a.hot_thres_permil);
	a.cold_min_age_ns = param(s, session, "cold_min_age", a.cold_min_age_ns / 1000) * 1000;
	a.reset_ns = param(s, session, "quota_reset_interval_ms", a.reset_ns / 1000000) * 1000000;
	a.mon_start = param(s, session, "monitor_region_start", 0);
	a.mon_end = param(s, session, "monitor_region_end", 0);
	sqlite3_finalize(s);
	if (over->cold_min_age_ns)
		a.cold_min_age_ns = over->cold_min_age_ns;
	if (over->seed)
		a.seed = over->seed;
	a.slowdown = over->slowdown;
	a.quota_bytes = over->quota_bytes;

	err = hs_rec_pages(st, session, &pg, &np, &unkeyed);
	if (err == -ENOENT)	/* no key table: no page can be placed at a frame */
		return store_err(st, -ENODATA, "session %lld has no recorded key table, so no"
				 " page frames", (long long)session);
	if (err)
		return err;
	err = hs_session_key_ids(st, session, &ids, &nid);
	if (err)
		goto out;
	err = -ENOMEM;
	dp = malloc((np ? np : 1) * sizeof(*dp));
	if (!dp || hs_keymap_new((size_t)nid, &km))
		goto out;
	for (uint64_t i = 0; i < nid; i++) {
		uint32_t id;

		if (hs_keymap_add(km, ids[i], &id) < 0)
			goto out;
	}
	for (size_t i = 0; i < np; i++) {
		uint32_t id;

		if (pg[i].pfn == UINT64_MAX || !hs_keymap_lookup(km, pg[i].key, &id) ||
		    id >= nr_keys)
			continue;
		dp[n].pfn = pg[i].pfn;
		dp[n].born_ns = pg[i].born_ns;
		dp[n].died_ns = pg[i].died_ns;
		dp[n].key = id;
		n++;
	}
	err = hs_damon_new(&a, dp, n, nr_keys, out);
	if (err == -EINVAL)
		err = store_err(st, -ENODATA, "session %lld: no folio life with a pfn, or"
				" DAMON_LRU_SORT parameters the model cannot take",
				(long long)session);
	if (!err && over->recorded) {
		err = load_recorded(st, session, *out);
		if (err) {
			hs_damon_free(*out);
			*out = NULL;
		}
	}
out:
	hs_keymap_free(km);
	free(dp);
	free(ids);
	free(pg);
	return err;
}
