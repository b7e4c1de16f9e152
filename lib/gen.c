/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic access streams (gen.h).
 *
 * The Zipf sampler is rejection-inversion (W. Hörmann and G. Derflinger,
 * "Rejection-inversion to generate variates from monotone discrete
 * distributions", ACM TOMACS 6(3), 1996).  With h(x) = x^-alpha and its
 * integral H(x) = (x^(1-alpha) - 1) / (1 - alpha)  (ln x when alpha = 1), a
 * uniform u in [H(1.5) - 1, H(n + 0.5)] is inverted to x = H^-1(u) and rounded
 * to the rank k nearest x.  Rank k >= 2 owns the interval
 * [H(k - 0.5), H(k + 0.5)], longer than h(k) because h is convex; accepting
 * only its top h(k) gives k exactly the weight h(k).  Rank 1 owns
 * [H(1.5) - 1, H(1.5)], of length h(1) = 1, all accepted.  So every rank is
 * drawn with probability h(k) / sum h: exact, O(1) memory, any n.  (The
 * paper's squeeze test, which only saves time, is left out.)  H and H^-1 are
 * written with expm1/log1p so that alpha near 1 loses no precision:
 *
 *	H(x)    = ln x * E((1 - alpha) ln x),	E(y) = (e^y - 1) / y,  E(0) = 1
 *	H^-1(u) = exp(u * L((1 - alpha) u)),	L(t) = ln(1 + t) / t,  L(0) = 1
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "gen.h"
#include "hs.h"

struct hs_gen {
	struct hs_gen_opts	o;		/* options, hot_keys resolved */
	struct hs_rng		rng;		/* the random source */
	struct hs_zipf		zipf;		/* zipf, scan-mix and ycsb-f draws */
	uint64_t		emitted;	/* accesses returned so far */
	uint64_t		phase;		/* scan-mix: position in hot + scan cycle */
	uint64_t		fresh;		/* scan-mix: next never-used key; scan-hot:
						 * next key of the cyclic scan */
	uint64_t		pending_key;	/* ycsb-f: page whose write comes next */
	bool			pending;	/* ycsb-f: a write is due */
};

static const char *const gen_names[HS_GEN_NR] = {
	[HS_GEN_ZIPF] = "zipf",
	[HS_GEN_LOOP] = "loop",
	[HS_GEN_SCAN_MIX] = "scan-mix",
	[HS_GEN_YCSB_F] = "ycsb-f",
	[HS_GEN_SCAN_HOT] = "scan-hot",
};

/**
 * hs_splitmix64() - one step of splitmix64
 * @state: the state
 *
 * Return: the next output.
 */
uint64_t hs_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/**
 * hs_rng_seed() - seed xoshiro256** from splitmix64
 * @r: the generator
 * @seed: the seed
 *
 * Return: nothing.
 */
void hs_rng_seed(struct hs_rng *r, uint64_t seed)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		r->s[i] = hs_splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, unsigned int k)
{
	return (x << k) | (x >> (64 - k));
}

/**
 * hs_rng_next() - xoshiro256** step
 * @r: the generator
 *
 * Return: 64 random bits.
 */
uint64_t hs_rng_next(struct hs_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/**
 * hs_rng_double() - uniform in [0, 1)
 * @r: the generator
 *
 * Return: the top 53 bits of the next output, scaled by 2^-53.
 */
double hs_rng_double(struct hs_rng *r)
{
	return (double)(hs_rng_next(r) >> 11) * 0x1.0p-53;
}

/* (e^y - 1) / y, continuous at 0. */
static double expm1_over(double y)
{
	return y == 0.0 ? 1.0 : expm1(y) / y;
}

/* ln(1 + t) / t, continuous at 0. */
static double log1p_over(double t)
{
	return t == 0.0 ? 1.0 : log1p(t) / t;
}

static double zipf_h(const struct hs_zipf *z, double x)
{
	return exp(-z->alpha * log(x));
}

static double zipf_hint(const struct hs_zipf *z, double x)
{
	double lx = log(x);

	return lx * expm1_over((1.0 - z->alpha) * lx);
}

static double zipf_hinv(const struct hs_zipf *z, double u)
{
	double t = (1.0 - z->alpha) * u;

	/* alpha > 1 and huge n: t nears -1 at the top end; keep rounding off it. */
	if (t < -1.0 + 1e-15)
		t = -1.0 + 1e-15;
	return exp(u * log1p_over(t));
}

/**
 * hs_zipf_init() - prepare a Zipf sampler
 * @z: the sampler
 * @n: ranks
 * @alpha: exponent
 *
 * Return: 0 or -EINVAL.
 */
int hs_zipf_init(struct hs_zipf *z, uint64_t n, double alpha)
{
	if (n < 1 || n > (1ull << 53) || !(alpha >= 0.0 && alpha <= 100.0))
		return -EINVAL;
	z->n = n;
	z->alpha = alpha;
	z->h_lo = zipf_hint(z, 1.5) - 1.0;
	z->h_hi = zipf_hint(z, (double)n + 0.5);
	return 0;
}

/**
 * hs_zipf_sample() - draw a rank by rejection-inversion
 * @z: the sampler
 * @r: the random source
 *
 * Return: a rank in 1 .. n.
 */
uint64_t hs_zipf_sample(const struct hs_zipf *z, struct hs_rng *r)
{
	double u, x, kd;
	uint64_t k;

	if (z->n == 1)
		return 1;
	for (;;) {
		u = z->h_hi + hs_rng_double(r) * (z->h_lo - z->h_hi);
		x = zipf_hinv(z, u);
		kd = floor(x + 0.5);
		if (kd < 1.0)
			k = 1;
		else if (kd > (double)z->n)
			k = z->n;
		else
			k = (uint64_t)kd;
		if (k == 1 || u >= zipf_hint(z, (double)k + 0.5) - zipf_h(z, (double)k))
			return k;
	}
}

/**
 * hs_gen_opts_init() - defaults
 * @o: the options
 * @type: the generator
 *
 * Return: nothing.
 */
void hs_gen_opts_init(struct hs_gen_opts *o, enum hs_gen_type type)
{
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->accesses = HS_GEN_DEF_ACCESSES;
	o->keys = HS_GEN_DEF_KEYS;
	o->seed = HS_GEN_DEF_SEED;
	o->alpha = type == HS_GEN_SCAN_HOT ? HS_GEN_HOT_ALPHA : HS_GEN_DEF_ALPHA;
	o->hot_keys = 0;
	o->scan_len = type == HS_GEN_SCAN_HOT ? HS_GEN_HOT_SCAN_LEN : HS_GEN_DEF_SCAN_LEN;
	o->scan_every = type == HS_GEN_SCAN_HOT ? HS_GEN_HOT_SCAN_EVERY : HS_GEN_DEF_SCAN_EVERY;
	o->meta = type == HS_GEN_YCSB_F ? hs_meta_make(HS_CH_PT, HS_TYPE_ANON, false) :
		  type == HS_GEN_SCAN_HOT ? hs_meta_make(HS_CH_FD, HS_TYPE_FILE, false) :
					    hs_meta_make(HS_CH_PT, HS_TYPE_FILE, false);
}

/**
 * hs_gen_type_parse() - look a generator up
 * @name: its name
 * @out: the type
 *
 * Return: 0 or -EINVAL.
 */
int hs_gen_type_parse(const char *name, enum hs_gen_type *out)
{
	unsigned int i;

	for (i = 0; i < HS_GEN_NR; i++) {
		if (!strcmp(name, gen_names[i])) {
			*out = (enum hs_gen_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * hs_gen_type_name() - a generator's name
 * @type: the generator
 *
 * Return: the name or "?".
 */
const char *hs_gen_type_name(enum hs_gen_type type)
{
	return (unsigned int)type < HS_GEN_NR ? gen_names[type] : "?";
}

/**
 * hs_gen_type_list() - every generator name
 *
 * Return: a comma-separated list.
 */
const char *hs_gen_type_list(void)
{
	return "zipf, loop, scan-mix, ycsb-f, scan-hot";
}

/**
 * hs_gen_new() - start a stream
 * @o: options
 * @out: the generator
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int hs_gen_new(const struct hs_gen_opts *o, struct hs_gen **out)
{
	struct hs_gen *g;
	uint64_t ranks;
	int err;

	*out = NULL;
	if ((unsigned int)o->type >= HS_GEN_NR || !o->accesses || !o->keys)
		return -EINVAL;
	if ((o->type == HS_GEN_SCAN_MIX || o->type == HS_GEN_SCAN_HOT) &&
	    (!o->scan_len || !o->scan_every))
		return -EINVAL;
	/* scan-hot needs a hot key and a scanned key */
	if (o->type == HS_GEN_SCAN_HOT && (o->keys < 2 || o->hot_keys >= o->keys))
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->o = *o;
	if (!g->o.hot_keys)
		g->o.hot_keys = g->o.type == HS_GEN_SCAN_HOT ?
				(g->o.keys / 8 ? g->o.keys / 8 : 1) : g->o.keys;
	ranks = g->o.type == HS_GEN_SCAN_MIX || g->o.type == HS_GEN_SCAN_HOT ?
		g->o.hot_keys : g->o.keys;
	if (g->o.type != HS_GEN_LOOP) {
		err = hs_zipf_init(&g->zipf, ranks, g->o.alpha);
		if (err) {
			free(g);
			return err;
		}
	}
	hs_rng_seed(&g->rng, g->o.seed);
	g->fresh = g->o.hot_keys;
	*out = g;
	return 0;
}

/**
 * hs_gen_next() - the next access
 * @g: the generator
 * @key: the key
 * @meta: the meta byte
 *
 * Return: 1, or 0 after the last access.
 */
int hs_gen_next(struct hs_gen *g, uint64_t *key, uint8_t *meta)
{
	if (g->emitted == g->o.accesses)
		return 0;
	*meta = g->o.meta;
	switch (g->o.type) {
	case HS_GEN_ZIPF:
		*key = hs_zipf_sample(&g->zipf, &g->rng) - 1;
		break;
	case HS_GEN_LOOP:
		*key = g->emitted % g->o.keys;
		break;
	case HS_GEN_SCAN_MIX:
		if (g->phase < g->o.scan_every)
			*key = hs_zipf_sample(&g->zipf, &g->rng) - 1;
		else
			*key = g->fresh++;
		if (++g->phase == g->o.scan_every + g->o.scan_len)
			g->phase = 0;
		break;
	case HS_GEN_SCAN_HOT:
		if (g->phase < g->o.scan_every) {
			*key = hs_zipf_sample(&g->zipf, &g->rng) - 1;
		} else {
			*key = g->fresh++;
			if (g->fresh == g->o.keys)
				g->fresh = g->o.hot_keys;
		}
		if (++g->phase == g->o.scan_every + g->o.scan_len)
			g->phase = 0;
		break;
	case HS_GEN_YCSB_F:
	default:
		if (g->pending) {
			g->pending = false;
			*key = g->pending_key;
			*meta |= HS_META_WRITE;
			break;
		}
		*key = hs_zipf_sample(&g->zipf, &g->rng) - 1;
		/* Read-modify-write half the time: the write is the next access. */
		if (hs_rng_next(&g->rng) >> 63) {
			g->pending = true;
			g->pending_key = *key;
		}
		break;
	}
	g->emitted++;
	return 1;
}

/**
 * hs_gen_free() - free a generator
 * @g: the generator, or NULL
 *
 * Return: nothing.
 */
void hs_gen_free(struct hs_gen *g)
{
	free(g);
}
