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
	struct hs_btload	*bt;		/* ycsb-load: the tree */
	const struct hs_btload_touch *bt_t;	/* ycsb-load: the insert's touches */
	int			bt_n;		/* ... how many */
	int			bt_i;		/* ... the next one */
	struct hs_rng		*prng;		/* shared-map: one PRNG per process */
	unsigned int		turn_proc;	/* shared-map: whose turn it is */
};

static const char *const gen_names[HS_GEN_NR] = {
	[HS_GEN_ZIPF] = "zipf",
	[HS_GEN_LOOP] = "loop",
	[HS_GEN_SCAN_MIX] = "scan-mix",
	[HS_GEN_YCSB_F] = "ycsb-f",
	[HS_GEN_SCAN_HOT] = "scan-hot",
	[HS_GEN_YCSB_LOAD] = "ycsb-load",
	[HS_GEN_SHARED_MAP] = "shared-map",
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
	bool hot = type == HS_GEN_SCAN_HOT || type == HS_GEN_SHARED_MAP;

	memset(o, 0, sizeof(*o));
	o->type = type;
	o->accesses = HS_GEN_DEF_ACCESSES;
	o->keys = HS_GEN_DEF_KEYS;
	o->seed = HS_GEN_DEF_SEED;
	o->alpha = hot ? HS_GEN_HOT_ALPHA : HS_GEN_DEF_ALPHA;
	o->hot_keys = 0;
	o->scan_len = hot ? HS_GEN_HOT_SCAN_LEN : HS_GEN_DEF_SCAN_LEN;
	o->scan_every = hot ? HS_GEN_HOT_SCAN_EVERY : HS_GEN_DEF_SCAN_EVERY;
	o->procs = HS_GEN_DEF_PROCS;
	o->meta = type == HS_GEN_YCSB_F || type == HS_GEN_YCSB_LOAD ?
					    hs_meta_make(HS_CH_PT, HS_TYPE_ANON, false) :
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
	return "zipf, loop, scan-mix, ycsb-f, scan-hot, ycsb-load, shared-map";
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
	unsigned int p;
	bool hot;
	int err;

	*out = NULL;
	if ((unsigned int)o->type >= HS_GEN_NR || !o->accesses || !o->keys)
		return -EINVAL;
	hot = o->type == HS_GEN_SCAN_HOT || o->type == HS_GEN_SHARED_MAP;
	if ((o->type == HS_GEN_SCAN_MIX || hot) && (!o->scan_len || !o->scan_every))
		return -EINVAL;
	/* scan-hot and shared-map need a hot key and a scanned key */
	if (hot && (o->keys < 2 || o->hot_keys >= o->keys))
		return -EINVAL;
	if (o->type == HS_GEN_SHARED_MAP && (!o->procs || o->procs > HS_GEN_MAX_PROCS))
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->o = *o;
	if (!g->o.hot_keys)
		g->o.hot_keys = hot ? (g->o.keys / 8 ? g->o.keys / 8 : 1) : g->o.keys;
	ranks = g->o.type == HS_GEN_SCAN_MIX || hot ? g->o.hot_keys : g->o.keys;
	if (g->o.type == HS_GEN_YCSB_LOAD) {
		err = hs_btload_new(NULL, 0, HS_GEN_LOAD_RECORD, g->o.seed, &g->bt);
		if (err) {
			free(g);
			return err;
		}
	} else if (g->o.type != HS_GEN_LOOP) {
		err = hs_zipf_init(&g->zipf, ranks, g->o.alpha);
		if (err) {
			free(g);
			return err;
		}
	}
	hs_rng_seed(&g->rng, g->o.seed);
	if (g->o.type == HS_GEN_SHARED_MAP) {
		g->prng = calloc(g->o.procs, sizeof(*g->prng));
		if (!g->prng) {
			free(g);
			return -ENOMEM;
		}
		for (p = 0; p < g->o.procs; p++)
			hs_rng_seed(&g->prng[p], g->o.seed + p);
	}
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
	case HS_GEN_SHARED_MAP:
		/* one turn: scan_every hot draws of this process, then its scan_len */
		if (g->phase < g->o.scan_every) {
			*key = hs_zipf_sample(&g->zipf, &g->prng[g->turn_proc]) - 1;
		} else {
			/* the scanned part is advised MADV_RANDOM, as the workload's */
			*key = g->fresh++;
			if (hs_meta_channel(*meta) == HS_CH_PT)
				*meta |= HS_META_NORECENCY;
			if (g->fresh == g->o.keys)
				g->fresh = g->o.hot_keys;
		}
		if (++g->phase == g->o.scan_every + g->o.scan_len) {
			g->phase = 0;
			if (++g->turn_proc == g->o.procs)
				g->turn_proc = 0;
		}
		break;
	case HS_GEN_YCSB_LOAD:
		if (g->bt_i == g->bt_n) {
			uint64_t rec;

			g->bt_n = hs_btload_insert(g->bt, &g->bt_t, &rec);
			g->bt_i = 0;
			if (g->bt_n <= 0) {	/* our own arena is out of memory: stop */
				g->bt_n = 0;
				return 0;
			}
		}
		*key = g->bt_t[g->bt_i].page;
		if (g->bt_t[g->bt_i].write)
			*meta |= HS_META_WRITE;
		g->bt_i++;
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
	if (g) {
		hs_btload_free(g->bt);
		free(g->prng);
	}
	free(g);
}

/* ---- ycsb-load: a B+tree of record pointers over an arena of pages ---- */

#define BT_PAGE		4096u
#define BT_LEAF_MAX	255u	/* (4096 - 8) / 16: key and record pointer */
#define BT_INNER_MAX	339u	/* (4096 - 8 - 4 * 340) / 8 keys, 340 children */

/* One node, one arena page. */
struct bt_node {
	uint32_t	n;			/* keys in use */
	uint32_t	leaf;			/* 1: a leaf */
	union {
		struct {
			uint64_t	key[BT_LEAF_MAX];
			uint64_t	rec[BT_LEAF_MAX];	/* arena byte offset */
		} l;
		struct {
			uint64_t	key[BT_INNER_MAX];
			uint32_t	child[BT_INNER_MAX + 1];	/* arena pages */
		} i;
	};
};

_Static_assert(sizeof(struct bt_node) <= BT_PAGE, "a B+tree node fits a page");

struct hs_btload {
	unsigned char	*arena;		/* pages; the caller's, or ours (@own) */
	uint64_t	cap;		/* arena pages */
	bool		own;		/* realloc'ed by us as it grows */
	uint64_t	used;		/* pages handed out */
	uint32_t	root;		/* the root's page */
	uint64_t	rec_page;	/* page records are appended to; 0: none yet */
	uint32_t	rec_off;	/* bytes used in it */
	uint32_t	record_size;	/* bytes per record, 1 .. 4096 */
	uint64_t	key_state;	/* splitmix64 state: the keys, in insertion order */
	unsigned int	n;		/* touches of the current insert */
	struct hs_btload_touch	t[HS_BTLOAD_MAX_TOUCH];
};

static struct bt_node *bt_node(struct hs_btload *b, uint64_t page)
{
	return (struct bt_node *)(b->arena + page * BT_PAGE);
}

static void bt_touch(struct hs_btload *b, uint64_t page, bool write)
{
	if (b->n < HS_BTLOAD_MAX_TOUCH) {
		b->t[b->n].page = page;
		b->t[b->n].write = write;
		b->n++;
	}
}

/* A fresh page.  Return: its number, or 0 when the arena is full (page 0 is the first root). */
static uint64_t bt_alloc(struct hs_btload *b)
{
	unsigned char *p;
	uint64_t cap;

	if (b->used == b->cap) {
		if (!b->own)
			return 0;
		cap = b->cap ? 2 * b->cap : 64;
		if (cap > UINT32_MAX)
			return 0;
		p = realloc(b->arena, (size_t)(cap * BT_PAGE));
		if (!p)
			return 0;
		b->arena = p;
		b->cap = cap;
	}
	memset(b->arena + b->used * BT_PAGE, 0, BT_PAGE);
	return b->used++;
}

/*
 * Split @x's full child number @ci: the upper half moves to a new page,
 * the separator goes up into @x.  Touches: the child, the new page, @x
 * (all written).  Return: 0 or -ENOSPC.
 */
static int bt_split(struct hs_btload *b, uint64_t xp, unsigned int ci)
{
	struct bt_node *x, *c, *r;
	uint64_t cp, rp, sep;
	unsigned int mid, k;

	rp = bt_alloc(b);
	if (!rp)
		return b->own ? -ENOMEM : -ENOSPC;
	x = bt_node(b, xp);
	cp = x->i.child[ci];
	c = bt_node(b, cp);
	r = bt_node(b, rp);
	r->leaf = c->leaf;
	if (c->leaf) {
		mid = c->n / 2;		/* the left keeps mid, the right the rest */
		r->n = c->n - mid;
		memcpy(r->l.key, c->l.key + mid, r->n * sizeof(uint64_t));
		memcpy(r->l.rec, c->l.rec + mid, r->n * sizeof(uint64_t));
		sep = r->l.key[0];
	} else {
		mid = c->n / 2;		/* key[mid] goes up */
		r->n = c->n - mid - 1;
		memcpy(r->i.key, c->i.key + mid + 1, r->n * sizeof(uint64_t));
		memcpy(r->i.child, c->i.child + mid + 1, (r->n + 1) * sizeof(uint32_t));
		sep = c->i.key[mid];
	}
	c->n = mid;
	for (k = x->n; k > ci; k--) {
		x->i.key[k] = x->i.key[k - 1];
		x->i.child[k + 1] = x->i.child[k];
	}
	x->i.key[ci] = sep;
	x->i.child[ci + 1] = (uint32_t)rp;
	x->n++;
	bt_touch(b, cp, true);
	bt_touch(b, rp, true);
	bt_touch(b, xp, true);
	return 0;
}

static bool bt_full(const struct bt_node *x)
{
	return x->n == (x->leaf ? BT_LEAF_MAX : BT_INNER_MAX);
}

/**
 * hs_btload_new() - an empty B+tree in an arena of pages
 * @arena: the caller's memory (@pages pages, zero-filled or not), or NULL
 *	   for one of our own that grows as needed
 * @pages: its size in pages (ignored with NULL)
 * @record_size: bytes per record, 1 .. 4096
 * @seed: the key sequence's seed
 * @out: the tree
 *
 * Page 0 becomes the (leaf) root; its creation is not a touch.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int hs_btload_new(void *arena, uint64_t pages, uint32_t record_size, uint64_t seed,
		  struct hs_btload **out)
{
	struct hs_btload *b;

	*out = NULL;
	if (!record_size || record_size > BT_PAGE || (arena && (pages < 2 || pages > UINT32_MAX)))
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->arena = arena;
	b->cap = arena ? pages : 0;
	b->own = !arena;
	b->record_size = record_size;
	b->key_state = seed;
	if (bt_alloc(b) != 0) {		/* page 0: the root */
		hs_btload_free(b);
		return -ENOMEM;
	}
	if (!b->arena) {
		hs_btload_free(b);
		return -ENOMEM;
	}
	bt_node(b, 0)->leaf = 1;
	*out = b;
	return 0;
}

/**
 * hs_btload_insert() - insert the next key and append its record
 * @b: the tree
 * @t: receives a pointer to the insert's touches, in order
 * @rec: receives the record's arena byte offset (where the caller may write it)
 *
 * The key is the next splitmix64 output of the seed (YCSB's load inserts
 * hashed, so scattered, keys).  Touches: a full root is split first (the
 * new root, then as bt_split()); then every node from the root down is read,
 * a full child split (child, new page, parent written) before the descent
 * goes on; the leaf is written; the record goes at the end of the record
 * page (written), a new page when it does not fit.
 *
 * Return: the number of touches (>= 2), -ENOSPC when a caller's arena is
 * full, or -ENOMEM when ours cannot grow.
 */
int hs_btload_insert(struct hs_btload *b, const struct hs_btload_touch **t, uint64_t *rec)
{
	uint64_t key = hs_splitmix64(&b->key_state), xp, np;
	struct bt_node *x;
	unsigned int i, k;
	int e;

	b->n = 0;
	if (bt_full(bt_node(b, b->root))) {
		np = bt_alloc(b);
		if (!np)
			return b->own ? -ENOMEM : -ENOSPC;
		x = bt_node(b, np);
		x->leaf = 0;
		x->n = 0;
		x->i.child[0] = b->root;
		b->root = (uint32_t)np;
		bt_touch(b, np, true);
		e = bt_split(b, np, 0);
		if (e)
			return e;
	}
	xp = b->root;
	for (;;) {
		x = bt_node(b, xp);
		if (x->leaf)
			break;
		bt_touch(b, xp, false);
		for (i = 0; i < x->n && key >= x->i.key[i]; i++)
			;
		if (bt_full(bt_node(b, x->i.child[i]))) {
			e = bt_split(b, xp, i);
			if (e)
				return e;
			x = bt_node(b, xp);
			if (key >= x->i.key[i])
				i++;
		}
		xp = x->i.child[i];
	}
	/* the record, then its pointer into the leaf */
	if (!b->rec_page || b->rec_off + b->record_size > BT_PAGE) {
		np = bt_alloc(b);
		if (!np)
			return b->own ? -ENOMEM : -ENOSPC;
		b->rec_page = np;
		b->rec_off = 0;
	}
	*rec = b->rec_page * BT_PAGE + b->rec_off;
	b->rec_off += b->record_size;
	x = bt_node(b, xp);
	for (k = x->n; k > 0 && x->l.key[k - 1] > key; k--) {
		x->l.key[k] = x->l.key[k - 1];
		x->l.rec[k] = x->l.rec[k - 1];
	}
	x->l.key[k] = key;
	x->l.rec[k] = *rec;
	x->n++;
	bt_touch(b, xp, true);
	bt_touch(b, b->rec_page, true);
	*t = b->t;
	return (int)b->n;
}

/**
 * hs_btload_pages() - pages handed out so far
 * @b: the tree
 *
 * Return: the count.
 */
uint64_t hs_btload_pages(const struct hs_btload *b)
{
	return b->used;
}

/**
 * hs_btload_free() - free the tree (not a caller's arena)
 * @b: the tree, or NULL
 *
 * Return: nothing.
 */
void hs_btload_free(struct hs_btload *b)
{
	if (!b)
		return;
	if (b->own)
		free(b->arena);
	free(b);
}
