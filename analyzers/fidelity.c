/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-page fidelity figures (analyzers/fidelity.h has the definitions).
 *
 * Everything here is sorting and merging.  Both histories are filtered of
 * the events inside lost-event gaps, copied and sorted by (page, position);
 * one walk over the two sorted copies, page by page, then gives the one-to-
 * one matches at each window, the lags, the per-page counts behind the
 * Jaccard overlap and the correlation.  Refaults need the accesses of each
 * page: a compressed index (per page, the positions of its accesses, in
 * order) answers "first access to k at or after p" by binary search.
 *
 * Cost: O((n_ref + n_other) log) time and, for the refaults, 8 bytes per
 * access plus 8 per key; a 13 M access stream takes about 110 MB for the
 * index while a comparison runs.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fidelity.h"
#include "lrugen.h"

static int cmp_key_pos(const void *a, const void *b)
{
	const struct hs_fid_event *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Are @n events sorted by position, with keys and positions in range? */
static bool events_valid(const struct hs_fid_event *ev, size_t n, uint32_t nr_keys,
			 uint64_t length)
{
	for (size_t i = 0; i < n; i++) {
		if (ev[i].key >= nr_keys || ev[i].pos > length)
			return false;
		if (i && ev[i].pos < ev[i - 1].pos)
			return false;
	}
	return true;
}

/* Is @pos inside one of the sorted, disjoint @gaps?  Binary search. */
static bool in_gap(const struct hs_fid_range *gaps, size_t n, uint64_t pos)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gaps[mid].end <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && gaps[lo].start <= pos;
}

/* Copy the events outside the gaps, sorted by (key, position). */
static int filtered_by_key(const struct hs_fid_input *in, const struct hs_fid_event *ev,
			   size_t n, struct hs_fid_event **out, size_t *n_out)
{
	struct hs_fid_event *copy = malloc((n ? n : 1) * sizeof(*copy));
	size_t k = 0;

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!in_gap(in->gaps, in->n_gaps, ev[i].pos))
			copy[k++] = ev[i];
	qsort(copy, k, sizeof(*copy), cmp_key_pos);
	*out = copy;
	*n_out = k;
	return 0;
}

/*
 * Greedy one-to-one matching of one page's reclaims @r (positions ascending)
 * with its evictions @o within +-@w: each reclaim takes the earliest unused
 * eviction at or after its window's start, if that one is inside the window.
 * An eviction before a reclaim's window start is before every later window
 * too, so it is passed for good.  Lags (other - ref) go to @lags if not NULL.
 */
static uint64_t match_page(const struct hs_fid_event *r, size_t nr,
			   const struct hs_fid_event *o, size_t no, uint64_t w,
			   int64_t *lags)
{
	uint64_t matched = 0;
	size_t j = 0;

	for (size_t i = 0; i < nr && j < no; i++) {
		uint64_t lo = r[i].pos > w ? r[i].pos - w : 0;

		while (j < no && o[j].pos < lo)
			j++;
		if (j < no && o[j].pos <= r[i].pos + w) {
			if (lags)
				lags[matched] = (int64_t)(o[j].pos - r[i].pos);
			matched++;
			j++;
		}
	}
	return matched;
}

/* Per key: the positions of its accesses, ascending (a CSR index). */
struct access_index {
	uint64_t	*start;		/* nr_keys + 1 offsets into pos */
	uint64_t	*pos;
};

static int index_build(const struct hs_fid_input *in, struct access_index *ix)
{
	uint64_t *fill;

	ix->start = calloc((size_t)in->nr_keys + 1, sizeof(*ix->start));
	ix->pos = malloc((in->length ? in->length : 1) * sizeof(*ix->pos));
	fill = calloc((size_t)in->nr_keys + 1, sizeof(*fill));
	if (!ix->start || !ix->pos || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < in->length; i++) {
		if (in->stream[i] >= in->nr_keys) {
			free(fill);
			return -EINVAL;
		}
		ix->start[in->stream[i] + 1]++;
	}
	for (uint32_t k = 0; k < in->nr_keys; k++)
		ix->start[k + 1] += ix->start[k];
	memcpy(fill, ix->start, ((size_t)in->nr_keys + 1) * sizeof(*fill));
	for (uint64_t i = 0; i < in->length; i++)
		ix->pos[fill[in->stream[i]]++] = i;
	free(fill);
	return 0;
}

static void index_free(struct access_index *ix)
{
	free(ix->start);
	free(ix->pos);
}

/* The first access to @key at or after @p, or UINT64_MAX. */
static uint64_t next_access(const struct access_index *ix, uint32_t key, uint64_t p)
{
	uint64_t lo = ix->start[key], hi = ix->start[key + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ix->pos[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->start[key + 1] ? ix->pos[lo] : UINT64_MAX;
}

/*
 * The refault positions of a history (sorted by key): for each eviction, the
 * first access of its page at or after it, outside the gaps; sorted, each
 * position once (two evictions of a page before its next access make one
 * refault).
 */
static int refaults(const struct hs_fid_input *in, const struct access_index *ix,
		    const struct hs_fid_event *ev, size_t n, uint64_t **out, size_t *n_out)
{
	uint64_t *r = malloc((n ? n : 1) * sizeof(*r));
	size_t k = 0, u = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = next_access(ix, ev[i].key, ev[i].pos);

		if (a != UINT64_MAX && !in_gap(in->gaps, in->n_gaps, a))
			r[k++] = a;
	}
	qsort(r, k, sizeof(*r), cmp_u64);
	for (size_t i = 0; i < k; i++)
		if (!u || r[u - 1] != r[i])
			r[u++] = r[i];
	*out = r;
	*n_out = u;
	return 0;
}

static uint64_t sorted_common(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	uint64_t both = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		if (a[i] < b[j]) {
			i++;
		} else if (a[i] > b[j]) {
			j++;
		} else {
			both++;
			i++;
			j++;
		}
	}
	return both;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : NAN;
}

/* Count of the run of events of one key starting at @i. */
static size_t key_run(const struct hs_fid_event *ev, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && ev[j].key == ev[i].key)
		j++;
	return j - i;
}

/*
 * The page-by-page walk: matches at every window, lags at the widest, and
 * the sums for Jaccard and Pearson's r over the union of evicted pages.
 */
static void walk_pages(const struct hs_fid_event *r, size_t nr, const struct hs_fid_event *o,
		       size_t no, uint32_t nr_keys, struct hs_fid_result *res, int64_t *lags)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, n = 0;
	size_t i = 0, j = 0;

	while (i < nr || j < no) {
		size_t cr = 0, co = 0;

		if (j >= no || (i < nr && r[i].key < o[j].key))
			cr = key_run(r, nr, i);
		else if (i >= nr || o[j].key < r[i].key)
			co = key_run(o, no, j);
		else {
			cr = key_run(r, nr, i);
			co = key_run(o, no, j);
		}
		if (cr && co) {
			res->both_pages++;
			for (int w = 0; w < HS_FID_WINDOWS; w++) {
				bool widest = w == HS_FID_WINDOWS - 1;
				uint64_t m = match_page(r + i, cr, o + j, co, res->window[w],
							widest ? lags + res->lag_pairs : NULL);

				res->matched[w] += m;
				if (widest)
					res->lag_pairs += m;
			}
		}
		res->ref_pages += cr != 0;
		res->other_pages += co != 0;
		sx += (double)cr;
		sy += (double)co;
		sxx += (double)cr * (double)cr;
		syy += (double)co * (double)co;
		sxy += (double)cr * (double)co;
		n++;
		i += cr;
		j += co;
	}
	n = nr_keys;	/* the pages neither evicted count as (0, 0) */
	if (n > 0) {
		double vx = n * sxx - sx * sx, vy = n * syy - sy * sy;

		res->correlation = vx > 0 && vy > 0 ? (n * sxy - sx * sy) / sqrt(vx * vy) : NAN;
	}
}

int hs_fidelity_compare(const struct hs_fid_input *in, struct hs_fid_result *out)
{
	struct hs_fid_event *r = NULL, *o = NULL;
	struct access_index ix = { 0 };
	uint64_t *rr = NULL, *ro = NULL;
	int64_t *lags = NULL;
	size_t nr = 0, no = 0, nrr = 0, nro = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->correlation = NAN;
	if (!in->capacity || !in->nr_keys ||
	    !events_valid(in->ref, in->n_ref, in->nr_keys, in->length) ||
	    !events_valid(in->other, in->n_other, in->nr_keys, in->length))
		return -EINVAL;
	for (size_t g = 0; g < in->n_gaps; g++)
		if (in->gaps[g].start >= in->gaps[g].end ||
		    (g && in->gaps[g].start < in->gaps[g - 1].end))
			return -EINVAL;
	out->window[0] = in->capacity / 16;
	out->window[1] = in->capacity / 4;
	out->window[2] = in->capacity;

	err = filtered_by_key(in, in->ref, in->n_ref, &r, &nr);
	if (!err)
		err = filtered_by_key(in, in->other, in->n_other, &o, &no);
	if (err)
		goto out;
	out->ref_evictions = nr;
	out->other_evictions = no;
	lags = malloc((nr ? nr : 1) * sizeof(*lags));
	if (!lags) {
		err = -ENOMEM;
		goto out;
	}
	walk_pages(r, nr, o, no, in->nr_keys, out, lags);
	for (int w = 0; w < HS_FID_WINDOWS; w++)
		out->share[w] = ratio(out->matched[w], nr);
	out->jaccard = ratio(out->both_pages, out->ref_pages + out->other_pages -
			     out->both_pages);
	if (out->lag_pairs) {
		qsort(lags, out->lag_pairs, sizeof(*lags), cmp_i64);
		out->median_lag = lags[(out->lag_pairs - 1) / 2];
	}

	err = index_build(in, &ix);
	if (!err)
		err = refaults(in, &ix, r, nr, &rr, &nrr);
	if (!err)
		err = refaults(in, &ix, o, no, &ro, &nro);
	if (err)
		goto out;
	out->ref_refaults = nrr;
	out->other_refaults = nro;
	out->both_refaults = sorted_common(rr, nrr, ro, nro);
	out->refault_recall = ratio(out->both_refaults, nrr);
	out->refault_precision = ratio(out->both_refaults, nro);
out:
	index_free(&ix);
	free(rr);
	free(ro);
	free(lags);
	free(r);
	free(o);
	return err;
}

/* splitmix64: a small, well-mixed generator; the baseline needs no more. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1, by rejection (no modulo bias). */
static uint64_t uniform(uint64_t *s, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = splitmix64(s);
	while (x >= limit);
	return x % n;
}

int hs_fid_random_evictions(const struct hs_fid_event *resident_in, size_t n_in,
			    const struct hs_fid_event *resident_out, size_t n_out,
			    const struct hs_fid_event *reclaims, size_t n_reclaims,
			    uint32_t nr_keys, uint64_t seed,
			    struct hs_fid_event **out, size_t *n_out_events)
{
	uint32_t *members = NULL, *slot = NULL;
	struct hs_fid_event *ev = NULL;
	size_t i = 0, o = 0, c = 0, k = 0, live = 0;
	uint64_t state = seed;

	*out = NULL;
	*n_out_events = 0;
	if (!nr_keys || !events_valid(resident_in, n_in, nr_keys, UINT64_MAX) ||
	    !events_valid(resident_out, n_out, nr_keys, UINT64_MAX) ||
	    !events_valid(reclaims, n_reclaims, nr_keys, UINT64_MAX))
		return -EINVAL;
	members = malloc((size_t)nr_keys * sizeof(*members));
	slot = malloc((size_t)nr_keys * sizeof(*slot));
	ev = malloc((n_reclaims ? n_reclaims : 1) * sizeof(*ev));
	if (!members || !slot || !ev) {
		free(members);
		free(slot);
		free(ev);
		return -ENOMEM;
	}
	memset(slot, 0xff, (size_t)nr_keys * sizeof(*slot));

	while (i < n_in || c < n_reclaims || o < n_out) {
		uint64_t p = UINT64_MAX;

		if (i < n_in)
			p = resident_in[i].pos;
		if (c < n_reclaims && reclaims[c].pos < p)
			p = reclaims[c].pos;
		if (o < n_out && resident_out[o].pos < p)
			p = resident_out[o].pos;
		for (; i < n_in && resident_in[i].pos == p; i++) {
			uint32_t key = resident_in[i].key;

			if (slot[key] == UINT32_MAX) {
				slot[key] = (uint32_t)live;
				members[live++] = key;
			}
		}
		for (; c < n_reclaims && reclaims[c].pos == p; c++) {
			if (!live)
				continue;
			ev[k].pos = p;
			ev[k].key = members[uniform(&state, live)];
			k++;
		}
		for (; o < n_out && resident_out[o].pos == p; o++) {
			uint32_t key = resident_out[o].key, at = slot[key];

			if (at == UINT32_MAX)
				continue;
			members[at] = members[--live];
			slot[members[at]] = at;
			slot[key] = UINT32_MAX;
		}
	}
	free(members);
	free(slot);
	*out = ev;
	*n_out_events = k;
	return 0;
}

int hs_fid_default_policy(const char *release, const char *lru_gen, const char **policy,
			  const char **profile)
{
	unsigned long major, minor;
	unsigned int caps = 0;
	char *end;
	bool mglru;

	major = strtoul(release, &end, 10);
	if (end == release || *end != '.')
		return -EINVAL;
	release = end + 1;
	minor = strtoul(release, &end, 10);
	if (end == release)
		return -EINVAL;
	mglru = lru_gen && !hs_lrugen_parse_enabled(lru_gen, strlen(lru_gen), &caps, NULL, 0) &&
		(caps & HS_LRUGEN_CAP_CORE);
	if (mglru) {
		*policy = "mglru";
		if (major < 6 || (major == 6 && minor < 3))
			*profile = "p61";
		else if (major == 6 && minor < 8)
			*profile = "p63";
		else if (major == 6 && minor < 14)
			*profile = "p68";
		else
			*profile = "p614";
	} else {
		*policy = "linux-2q";
		*profile = major < 6 || (major == 6 && minor < 10) ? "p61" : "p610";
	}
	return 0;
}
