/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Miss-ratio curves (see mrc.h): the grid of sizes of hsctl mrc --sizes, and
 * the one-pass LRU and OPT curves of a stored session.
 *
 * The grid.  Items are counts, shares of the distinct keys and memory sizes,
 * alone or as the ends of a range; a range is every size, linear with a step
 * ("/S") or log-spaced with a number of points (":N").  Log spacing puts
 * point i of N at A * (B / A)^(i / (N - 1)), rounded to the nearest unit;
 * near A the points can round to the same unit and are merged, so a short
 * range may give fewer than N sizes.  The whole grid is sorted and merged.
 *
 * The curves.  LRU and OPT are stack algorithms, so one pass gives each
 * access's stack distance and the histogram of distances gives the hits at
 * every size at once (stackdist.c, optstack.c).  The stream is read into
 * memory once (keys, 4 bytes per access) and stepped through with the
 * analyzer's records prefetched a few accesses ahead.  The OPT stack keeps
 * the LRU stack as well, so when both curves are asked for, its one pass
 * gives both; stackdist.c serves LRU alone.
 *
 * Sampling (--sample, SHARDS: Waldspurger, Park, Garthwaite and Ahmad,
 * "Efficient MRC construction with SHARDS", FAST 2015).  A spatial sample
 * keeps every access of a subset of the keys: key k is kept when
 * hash(k) mod P < R * P, P = 2^24, so about a share R of the keys (and, for
 * keys alike, of the accesses) is kept, and each kept key keeps its whole
 * reuse pattern.  A memory of C units over the whole stream behaves like one
 * of R * C units over the sample, so size C is read off the sample's exact
 * curve at R * C and the hits are scaled back to the whole stream.  The
 * analyzers run on the sample unchanged, so the cost falls by about 1 / R;
 * the error is measured in hsctl-mrc(1).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "access.h"
#include "analyzer.h"
#include "hs.h"
#include "mrc.h"
#include "parse.h"
#include "sim.h"
#include "store.h"

/* One size: a count, a share of the distinct keys, or a memory size. */
static int parse_one(const char *s, uint64_t distinct, uint64_t unit_bytes, uint64_t *out)
{
	size_t len = strlen(s);

	if (len > 1 && s[len - 1] == '%') {
		char num[64];
		double pct;
		int ret;

		if (len - 1 >= sizeof(num))
			return -EINVAL;
		memcpy(num, s, len - 1);
		num[len - 1] = '\0';
		ret = hs_parse_double(num, 0, 100, &pct);
		if (ret)
			return ret;
		if (pct <= 0)
			return -ERANGE;
		*out = (uint64_t)llround(pct / 100.0 * (double)distinct);
		if (*out == 0)
			*out = 1;
		if (*out > UINT32_MAX)
			return -ERANGE;
		return 0;
	}
	return hs_parse_size(s, unit_bytes, 1, UINT32_MAX, out);
}

struct grid {
	uint64_t	*v;
	size_t		n;
	size_t		cap;
};

static int grid_push(struct grid *g, uint64_t v)
{
	if (g->n == g->cap) {
		size_t nc = g->cap ? g->cap * 2 : 64;
		uint64_t *nv;

		if (g->n >= HS_MRC_MAX_SIZES * 2)	/* merging could still bring it down */
			return -E2BIG;
		nv = realloc(g->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		g->v = nv;
		g->cap = nc;
	}
	g->v[g->n++] = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "A..B", "A..B/S" or "A..B:N": dots points at the "..". */
static int parse_range(char *item, char *dots, uint64_t distinct, uint64_t unit_bytes,
		       struct grid *g)
{
	char *hi = dots + 2, *tail;
	uint64_t a, b, step = 1, pts = 0, i;
	int ret;

	*dots = '\0';
	tail = strpbrk(hi, ":/");
	if (tail) {
		char kind = *tail;

		*tail++ = '\0';
		if (kind == ':')
			ret = hs_parse_u64(tail, 2, HS_MRC_MAX_SIZES, &pts);
		else
			ret = parse_one(tail, distinct, unit_bytes, &step);
		if (ret)
			return ret;
	}
	ret = parse_one(item, distinct, unit_bytes, &a);
	if (!ret)
		ret = parse_one(hi, distinct, unit_bytes, &b);
	if (ret)
		return ret;
	if (a > b)
		return -EINVAL;
	if (pts) {
		double ratio = (double)b / (double)a;

		for (i = 0; i < pts; i++) {
			double x = (double)a * pow(ratio, (double)i / (double)(pts - 1));
			uint64_t v = i == pts - 1 ? b : (uint64_t)llround(x);

			ret = grid_push(g, HS_MIN(HS_MAX(v, a), b));
			if (ret)
				return ret;
		}
		return 0;
	}
	if ((b - a) / step + 2 > HS_MRC_MAX_SIZES)
		return -E2BIG;
	for (i = a; i <= b; i += step) {
		ret = grid_push(g, i);
		if (ret)
			return ret;
	}
	return grid_push(g, b);
}

int hs_mrc_sizes_parse(const char *spec, uint64_t distinct_keys, uint64_t unit_bytes,
		       uint64_t **out, size_t *n)
{
	struct grid g = { 0 };
	char *copy, *item, *end;
	size_t i, k;
	int ret = 0;

	if (!spec || !*spec || !distinct_keys)
		return -EINVAL;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (item = copy; item && !ret; item = end) {
		char *dots;

		end = strchr(item, ',');
		if (end)
			*end++ = '\0';
		if (!*item) {
			ret = -EINVAL;
			break;
		}
		dots = strstr(item, "..");
		if (dots) {
			ret = parse_range(item, dots, distinct_keys, unit_bytes, &g);
		} else {
			uint64_t v;

			ret = parse_one(item, distinct_keys, unit_bytes, &v);
			if (!ret)
				ret = grid_push(&g, v);
		}
	}
	free(copy);
	if (ret) {
		free(g.v);
		return ret;
	}
	qsort(g.v, g.n, sizeof(*g.v), cmp_u64);
	for (i = 0, k = 0; i < g.n; i++)
		if (!k || g.v[i] != g.v[k - 1])
			g.v[k++] = g.v[i];
	if (k > HS_MRC_MAX_SIZES) {
		free(g.v);
		return -E2BIG;
	}
	*out = g.v;
	*n = k;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The whole stream's keys (every record an access, as the caller checked
 * the session's counts and the reader checks each record): @records of them, in *@out (hs_huge_free() it with
 * @records * 4 bytes).  Read into huge pages: hs_session_read_all() copies
 * into malloc()'s 4 KiB pages and keeps the meta bytes too, and on P12
 * (13.2 M accesses) the faults on those 66 MB were about a tenth of the
 * whole command's CPU time.
 */
static int read_keys(struct hs_store *st, int64_t session, uint64_t records, uint32_t **out)
{
	struct hs_session_reader *r = NULL;
	uint32_t *keys;
	int64_t got;
	int ret;

	*out = NULL;
	if (records > SIZE_MAX / sizeof(*keys))
		return -ENOMEM;
	keys = hs_huge_alloc((size_t)records * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	ret = hs_session_read_open(st, session, &r);
	if (ret)
		goto fail;
	got = hs_session_read_keys(r, keys, records);
	hs_session_read_close(r);
	ret = got < 0 ? (int)got : (uint64_t)got != records ? -EBADMSG : 0;
	if (ret)
		goto fail;
	*out = keys;
	return 0;
fail:
	hs_huge_free(keys, (size_t)records * sizeof(*keys));
	return ret;
}

#define SAMPLE_BITS	24	/* the modulus P of the sampling hash is 2^24 */

static uint64_t sample_threshold(double rate)
{
	return (uint64_t)llround(rate * (double)(1u << SAMPLE_BITS));
}

/* splitmix64's finalizer: every bit of the id reaches the low 24 bits. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

bool hs_mrc_sample_keep(uint32_t key, double rate)
{
	return (mix(key) & ((1u << SAMPLE_BITS) - 1)) < sample_threshold(rate);
}

/*
 * Keep the sampled keys' accesses, renumbered 0 .. *nr_keys - 1 in order of
 * first access; *n becomes the sample's length.
 */
static int sample_stream(uint32_t *keys, uint64_t *n, uint32_t *nr_keys, double rate)
{
	uint64_t thr = sample_threshold(rate), j = 0;
	uint32_t *map, m = 0;

	map = malloc((size_t)*nr_keys * sizeof(*map));
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, (size_t)*nr_keys * sizeof(*map));
	for (uint64_t i = 0; i < *n; i++) {
		uint32_t k = keys[i];

		if (k >= *nr_keys) {
			free(map);
			return -EBADMSG;
		}
		if ((mix(k) & ((1u << SAMPLE_BITS) - 1)) >= thr)
			continue;
		if (map[k] == UINT32_MAX)
			map[k] = m++;
		keys[j++] = map[k];
	}
	free(map);
	*n = j;
	*nr_keys = m;
	return 0;
}

/*
 * hits[i] = the curve at sizes[i] * rate (rounded), scaled by scale; the
 * curve is flat from nr_keys on.
 */
static void sample(const uint64_t *curve, uint32_t nr_keys, const uint64_t *sizes, size_t n,
		   double rate, double scale, uint64_t *hits)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t c = sizes[i];

		if (rate < 1)
			c = (uint64_t)llround((double)c * rate);
		c = HS_MIN(c, (uint64_t)nr_keys);
		hits[i] = scale == 1 ? curve[c] : (uint64_t)llround((double)curve[c] * scale);
	}
}

int hs_mrc_stack_session(struct hs_store *st, int64_t session, const uint64_t *sizes,
			 size_t n, uint64_t *lru_hits, uint64_t *opt_hits,
			 struct hs_mrc_stack *out)
{
	return hs_mrc_stack_sampled(st, session, 1, sizes, n, lru_hits, opt_hits, out);
}

int hs_mrc_stack_sampled(struct hs_store *st, int64_t session, double rate,
			 const uint64_t *sizes, size_t n, uint64_t *lru_hits,
			 uint64_t *opt_hits, struct hs_mrc_stack *out)
{
	struct hs_session_info info;
	struct hs_stackdist *sd = NULL;
	struct hs_optstack *os = NULL;
	uint64_t *curve = NULL, records;
	uint32_t *keys = NULL, nr;
	double t0, scale = 1;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!(rate >= HS_MRC_MIN_RATE && rate <= 1))
		return -EINVAL;
	ret = hs_session_get(st, session, &info);
	if (ret)
		return ret;
	if (info.records != info.accesses)
		return -EOPNOTSUPP;
	if (info.distinct_keys > HS_STACKDIST_MAX_KEYS)
		return -EOVERFLOW;
	out->accesses = info.accesses;
	nr = (uint32_t)info.distinct_keys;
	records = info.records;
	if (nr) {
		ret = read_keys(st, session, records, &keys);
		if (ret)
			return ret;
		if (rate < 1) {
			ret = sample_stream(keys, &records, &nr, rate);
			if (ret)
				goto out;
		}
	}
	out->sampled = records;
	out->sampled_keys = nr;
	if (!nr) {	/* an empty session or sample: no hits anywhere */
		for (i = 0; i < n; i++) {
			if (lru_hits)
				lru_hits[i] = 0;
			if (opt_hits)
				opt_hits[i] = 0;
		}
		out->cold = out->accesses;
		ret = 0;
		goto out;
	}
	if (rate < 1)
		scale = (double)info.accesses / (double)records;
	ret = -ENOMEM;
	curve = hs_huge_alloc(((size_t)nr + 1) * sizeof(*curve));	/* 4 KiB faults: see read_keys() */
	if (!curve)
		goto out;

	if (lru_hits && !opt_hits) {
		t0 = now_s();
		ret = hs_stackdist_new(nr, &sd);
		for (i = 0; !ret && i < records; i++)
			ret = hs_stackdist_access(sd, keys[i], NULL);
		if (ret)
			goto out;
		hs_stackdist_curve(sd, curve, (size_t)nr + 1);
		sample(curve, nr, sizes, n, rate, scale, lru_hits);
		out->cold = hs_stackdist_cold(sd);
		out->lru_s = now_s() - t0;
	}
	if (opt_hits) {
		/* The OPT stack keeps the LRU stack too: one pass gives both. */
		t0 = now_s();
		ret = hs_optstack_new(nr, &os);
		for (i = 0; !ret && i < records; i++) {
			hs_optstack_prefetch(os, i + 16 < records ? keys[i + 16] : UINT32_MAX,
					     i + 4 < records ? keys[i + 4] : UINT32_MAX);
			ret = hs_optstack_access(os, keys[i], NULL);
		}
		if (ret)
			goto out;
		hs_optstack_curve(os, curve, (size_t)nr + 1);
		sample(curve, nr, sizes, n, rate, scale, opt_hits);
		if (lru_hits) {
			hs_optstack_lru_curve(os, curve, (size_t)nr + 1);
			sample(curve, nr, sizes, n, rate, scale, lru_hits);
		}
		out->cold = hs_optstack_cold(os);
		out->opt_s = now_s() - t0;
	}
	if (scale != 1)
		out->cold = (uint64_t)llround((double)out->cold * scale);
	ret = 0;
out:
	hs_optstack_free(os);
	hs_stackdist_free(sd);
	hs_huge_free(curve, ((size_t)nr + 1) * sizeof(*curve));
	hs_huge_free(keys, (size_t)info.records * sizeof(*keys));
	return ret;
}
