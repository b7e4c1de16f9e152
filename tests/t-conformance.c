/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conformance suite: every registered policy, run by iterating the registry,
 * on random and adversarial streams at several capacities, with the policy's
 * check() after every hook (paranoid driver) and the driver's full invariant
 * walk after every step.  The driver itself refuses victims that are not
 * resident, the incoming key, or returned twice, and never lets residency pass
 * capacity.  On top of that this suite checks properties every policy must
 * have:
 *
 *   - determinism: the same stream gives the same counters twice (streams
 *     with readahead insertions included);
 *   - accounting: hits + misses = accesses, misses = cold + capacity misses,
 *     evictions = misses - resident at the end (streams without hints/drops),
 *     a capacity at least the number of keys never evicts;
 *   - optimality: no demand policy misses less than Belady's OPT on the same
 *     stream;
 *   - lrfu with lambda = 1 equals lru exactly, step by step.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "harness.h"
#include "hs.h"
#include "param.h"
#include "policy.h"
#include "sim.h"

struct stream {
	const char	*name;
	uint32_t	*keys;
	uint8_t		*meta;
	uint64_t	*next;
	size_t		n;
	uint32_t	nr_keys;
	bool		pure;		/* accesses only: no hints or drops */
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

enum shape { SH_UNIFORM, SH_SKEWED, SH_LOOP, SH_SCAN_HOT, SH_ONE_KEY, SH_PINGPONG, SH_MIXED,
	     SH_READAHEAD };

static const char *const shape_names[] = {
	"uniform", "skewed", "loop", "scan+hot", "one-key", "two-keys", "hints+drops",
	"readahead",
};

static int make_stream(struct stream *s, enum shape sh, size_t n, uint32_t nr_keys,
		       uint64_t seed)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->name = shape_names[sh];
	s->n = n;
	s->nr_keys = nr_keys;
	s->pure = sh < SH_MIXED;
	s->keys = calloc(n, sizeof(*s->keys));
	s->meta = calloc(n, sizeof(*s->meta));
	s->next = calloc(n, sizeof(*s->next));
	if (!s->keys || !s->meta || !s->next)
		return -ENOMEM;
	rng_state = seed;
	for (i = 0; i < n; i++) {
		uint32_t k;
		enum hs_channel ch = (rng() & 1) ? HS_CH_PT : HS_CH_FD;

		switch (sh) {
		case SH_UNIFORM:
			k = (uint32_t)(rng() % nr_keys);
			break;
		case SH_SKEWED:		/* squares of uniforms: a cheap heavy head */
			k = (uint32_t)(((rng() % nr_keys) * (rng() % nr_keys)) / nr_keys);
			break;
		case SH_LOOP:
			k = (uint32_t)(i % nr_keys);
			break;
		case SH_SCAN_HOT:
			k = (i / 50) % 2 ? (uint32_t)(rng() % 8)
					 : (uint32_t)(8 + (i % (nr_keys - 8)));
			break;
		case SH_ONE_KEY:
			k = 0;
			break;
		case SH_PINGPONG:
			k = (uint32_t)(i % 2);
			break;
		case SH_READAHEAD:	/* a quarter readahead insertions, some drops */
			k = (uint32_t)(((rng() % nr_keys) * (rng() % nr_keys)) / nr_keys);
			switch (rng() % 8) {
			case 0:
			case 1:
				ch = HS_CH_READAHEAD;
				break;
			case 2:
				if (rng() % 4 == 0)
					ch = HS_CH_DROP;
				break;
			}
			break;
		default:
			k = (uint32_t)(rng() % nr_keys);
			switch (rng() % 16) {
			case 0:
				ch = HS_CH_PAGEOUT;
				break;
			case 1:
				ch = HS_CH_COLD;
				break;
			case 2:
				ch = HS_CH_DROP;
				break;
			}
			break;
		}
		s->keys[i] = k;
		s->meta[i] = hs_meta_make(ch, (k & 1) ? HS_TYPE_ANON : HS_TYPE_FILE, rng() & 1);
	}
	return hs_next_use_fill(s->keys, s->meta, n, nr_keys, s->next);
}

static void free_stream(struct stream *s)
{
	free(s->keys);
	free(s->meta);
	free(s->next);
}

/* One run; stats out.  paranoid: check() and a full walk after every step. */
static int run(const struct hs_policy_ops *ops, const struct hs_param_set *ps,
	       const struct stream *s, uint64_t capacity, bool paranoid,
	       struct hs_sim_stats *st, int *steps_out)
{
	struct hs_sim_config cfg = {
		.ops = ops, .params = ps, .capacity = capacity, .nr_keys = s->nr_keys,
		.paranoid = paranoid,
	};
	struct hs_sim *sim;
	struct hs_metrics m;
	size_t i;
	int ret;

	ret = hs_sim_new(&cfg, &sim);
	if (ret)
		return ret;
	for (i = 0; i < s->n; i++) {
		ret = hs_sim_step(sim, s->keys[i], s->meta[i], s->next[i]);
		if (ret < 0)
			break;
		if (steps_out)
			steps_out[i] = ret;
		if (hs_sim_used(sim) > capacity) {
			ret = -EOVERFLOW;
			break;
		}
		if (paranoid && hs_sim_check(sim)) {
			ret = -EUCLEAN;
			break;
		}
	}
	if (ret >= 0) {
		hs_sim_finish(sim, st, &m);
		ret = 0;
		if (s->pure && st->evictions != st->misses - hs_sim_used(sim) &&
		    !ops->admit)
			ret = -EBADE;
	} else {
		fprintf(stderr, "  %s on %s at capacity %" PRIu64 ": step %zu: %s\n", ops->name,
			s->name, capacity, i, strerror(-ret));
	}
	hs_sim_free(sim);
	return ret;
}

static bool implemented(const struct hs_policy_ops *ops)
{
	return ops->create != NULL;
}

static const uint64_t capacities[] = { 1, 2, 3, 7, 16, 40 };

static void test_every_policy(void)
{
	enum shape sh;
	size_t p, c;
	int any = 0;

	for (p = 0; p < hs_policy_count(); p++) {
		const struct hs_policy_ops *ops = hs_policy_at(p);

		if (!implemented(ops)) {
			t_fail(__FILE__, __LINE__, "policy %s has no create()", ops->name);
			continue;
		}
		any++;
		for (sh = SH_UNIFORM; sh <= SH_READAHEAD; sh++) {
			struct stream s;

			if (make_stream(&s, sh, 3000, 48, 1000 + sh)) {
				t_fail(__FILE__, __LINE__, "out of memory");
				return;
			}
			for (c = 0; c < sizeof(capacities) / sizeof(capacities[0]); c++) {
				struct hs_sim_stats a, b;
				int r1, r2;

				r1 = run(ops, NULL, &s, capacities[c], true, &a, NULL);
				r2 = run(ops, NULL, &s, capacities[c], false, &b, NULL);
				if (r1 || r2) {
					t_fail(__FILE__, __LINE__, "%s on %s at %" PRIu64 ": %s",
					       ops->name, s.name, capacities[c],
					       strerror(-(r1 ? r1 : r2)));
					continue;
				}
				if (memcmp(&a, &b, sizeof(a)))
					t_fail(__FILE__, __LINE__,
					       "%s on %s at %" PRIu64 ": not deterministic",
					       ops->name, s.name, capacities[c]);
				if (a.hits + a.misses != a.accesses)
					t_fail(__FILE__, __LINE__, "%s: hits + misses != accesses",
					       ops->name);
				if (a.cold_misses > a.misses)
					t_fail(__FILE__, __LINE__, "%s: cold > misses", ops->name);
				if (a.readahead_unused > a.readahead_pages ||
				    (sh == SH_READAHEAD) != (a.readahead_pages > 0))
					t_fail(__FILE__, __LINE__, "%s on %s: readahead %" PRIu64
					       " pages, %" PRIu64 " unused", ops->name, s.name,
					       a.readahead_pages, a.readahead_unused);
			}
			free_stream(&s);
		}
	}
	if (!any)
		t_skip("no policy implemented yet");
}

/* Values worth trying for one parameter besides its default: into vals[], count returned. */
static int param_values(const struct hs_param *pa, char vals[][32], int max)
{
	int n = 0;

	switch (pa->type) {
	case HS_PARAM_BOOL:
		snprintf(vals[n++], 32, "%s", !strcmp(pa->def, "true") || !strcmp(pa->def, "1") ?
					      "false" : "true");
		break;
	case HS_PARAM_ENUM: {
		const char *c = pa->choices;

		while (c && *c && n < max) {
			size_t len = strcspn(c, "|");

			snprintf(vals[n++], 32, "%.*s", (int)len, c);
			c += len + (c[len] == '|');
		}
		break;
	}
	case HS_PARAM_U64:
		snprintf(vals[n++], 32, "%.0f", pa->min);
		if (pa->max <= 4096 && n < max)
			snprintf(vals[n++], 32, "%.0f", pa->max);
		break;
	case HS_PARAM_DOUBLE:
		snprintf(vals[n++], 32, "%.17g", pa->min);
		if (pa->max <= 100 && n < max) {
			snprintf(vals[n++], 32, "%.17g", pa->max);
			if (n < max)
				snprintf(vals[n++], 32, "%.17g", (pa->min + pa->max) / 2);
		}
		break;
	}
	return n;
}

/*
 * Every parameter of every policy at its edge values (one parameter changed at
 * a time): the paranoid run must hold every invariant and be deterministic.
 */
static void test_every_parameter(void)
{
	static const uint64_t caps[] = { 1, 3, 16 };
	struct stream mixed, skewed;
	int tried = 0;

	if (make_stream(&mixed, SH_MIXED, 1500, 40, 4242) ||
	    make_stream(&skewed, SH_SKEWED, 1500, 40, 4243)) {
		t_fail(__FILE__, __LINE__, "out of memory");
		return;
	}
	for (size_t p = 0; p < hs_policy_count(); p++) {
		const struct hs_policy_ops *ops = hs_policy_at(p);

		if (!implemented(ops) || !ops->params)
			continue;
		for (const struct hs_param *pa = ops->params; pa->name; pa++) {
			char vals[8][32];
			int nv = param_values(pa, vals, 8);

			for (int v = 0; v < nv; v++) {
				struct hs_param_set *ps = NULL;
				char err[256];

				if (hs_param_set_new(ops->params, &ps) ||
				    hs_param_set_parse(ps, pa->name, vals[v], err, sizeof(err))) {
					t_fail(__FILE__, __LINE__, "%s.%s=%s refused: %s", ops->name,
					       pa->name, vals[v], err);
					hs_param_set_free(ps);
					continue;
				}
				tried++;
				for (size_t c = 0; c < ARRAY_SIZE(caps); c++) {
					const struct stream *ss[] = { &mixed, &skewed };

					for (size_t k = 0; k < 2; k++) {
						struct hs_sim_stats a, b;
						int r1 = run(ops, ps, ss[k], caps[c], true, &a, NULL);
						int r2 = run(ops, ps, ss[k], caps[c], false, &b, NULL);

						if (r1 || r2)
							t_fail(__FILE__, __LINE__,
							       "%s.%s=%s on %s at %" PRIu64 ": %s",
							       ops->name, pa->name, vals[v],
							       ss[k]->name, caps[c],
							       strerror(-(r1 ? r1 : r2)));
						else if (memcmp(&a, &b, sizeof(a)))
							t_fail(__FILE__, __LINE__,
							       "%s.%s=%s: not deterministic",
							       ops->name, pa->name, vals[v]);
					}
				}
				hs_param_set_free(ps);
			}
		}
	}
	free_stream(&mixed);
	free_stream(&skewed);
	/* lrfu, two-q, opt and lirs alone have more than ten values to try */
	T_ASSERT(tried > 10);
}

/* A capacity holding every key: nothing is ever evicted, misses are cold. */
static void test_big_capacity(void)
{
	struct stream s;
	size_t p;

	if (make_stream(&s, SH_UNIFORM, 2000, 30, 7)) {
		t_fail(__FILE__, __LINE__, "out of memory");
		return;
	}
	for (p = 0; p < hs_policy_count(); p++) {
		const struct hs_policy_ops *ops = hs_policy_at(p);
		struct hs_sim_stats st;

		if (!implemented(ops))
			continue;
		if (run(ops, NULL, &s, 30, true, &st, NULL)) {
			t_fail(__FILE__, __LINE__, "%s failed", ops->name);
			continue;
		}
		T_EQ_U64(st.evictions, 0);
		T_EQ_U64(st.misses, 30);
		T_EQ_U64(st.cold_misses, 30);
	}
	free_stream(&s);
}

/* Belady's OPT is a lower bound on misses for every demand policy. */
static void test_opt_is_lower_bound(void)
{
	const struct hs_policy_ops *opt = hs_policy_find("opt");
	enum shape sh;

	if (!opt || !implemented(opt)) {
		t_skip("opt not implemented yet");
		return;
	}
	for (sh = SH_UNIFORM; sh < SH_MIXED; sh++) {
		struct stream s;

		if (make_stream(&s, sh, 4000, 64, 77 + sh)) {
			t_fail(__FILE__, __LINE__, "out of memory");
			return;
		}
		for (size_t c = 0; c < sizeof(capacities) / sizeof(capacities[0]); c++) {
			struct hs_sim_stats o, st;

			if (run(opt, NULL, &s, capacities[c], false, &o, NULL)) {
				t_fail(__FILE__, __LINE__, "opt failed");
				continue;
			}
			for (size_t p = 0; p < hs_policy_count(); p++) {
				const struct hs_policy_ops *ops = hs_policy_at(p);

				if (!implemented(ops) || ops == opt)
					continue;
				if (run(ops, NULL, &s, capacities[c], false, &st, NULL))
					continue;
				if (st.misses < o.misses)
					t_fail(__FILE__, __LINE__,
					       "%s misses %" PRIu64 " < opt %" PRIu64
					       " on %s at %" PRIu64, ops->name, st.misses,
					       o.misses, s.name, capacities[c]);
			}
		}
		free_stream(&s);
	}
}

/* lrfu at lambda = 1 is LRU: the same hit/miss at every step, every trace. */
static void test_lrfu_lambda1_is_lru(void)
{
	const struct hs_policy_ops *lrfu = hs_policy_find("lrfu");
	const struct hs_policy_ops *lru = hs_policy_find("lru");
	struct hs_param_set *ps = NULL;
	char err[256];
	enum shape sh;

	if (!lrfu || !lru || !implemented(lrfu) || !implemented(lru)) {
		t_skip("lrfu or lru not implemented yet");
		return;
	}
	if (hs_param_set_new(lrfu->params, &ps) ||
	    hs_param_set_parse(ps, "lambda", "1", err, sizeof(err))) {
		hs_param_set_free(ps);
		{ t_fail(__FILE__, __LINE__, "cannot set lrfu.lambda=1"); return; }
	}
	for (sh = SH_UNIFORM; sh < SH_MIXED; sh++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct stream s;
			int *a, *b;

			if (make_stream(&s, sh, 20000, 200, seed * 31 + sh)) {
				t_fail(__FILE__, __LINE__, "out of memory");
				return;
			}
			a = calloc(s.n, sizeof(*a));
			b = calloc(s.n, sizeof(*b));
			for (size_t c = 0; a && b && c < sizeof(capacities) / sizeof(capacities[0]);
			     c++) {
				struct hs_sim_stats x, y;

				if (run(lru, NULL, &s, capacities[c] * 3, false, &x, a) ||
				    run(lrfu, ps, &s, capacities[c] * 3, false, &y, b)) {
					t_fail(__FILE__, __LINE__, "run failed");
					continue;
				}
				for (size_t i = 0; i < s.n; i++)
					if (a[i] != b[i]) {
						t_fail(__FILE__, __LINE__,
						       "lrfu(1) differs from lru on %s seed %" PRIu64
						       " at capacity %" PRIu64 ", step %zu",
						       s.name, seed, capacities[c] * 3, i);
						break;
					}
			}
			free(a);
			free(b);
			free_stream(&s);
		}
	}
	hs_param_set_free(ps);
}

/*
 * HitShield with threshold 0 is MGLRU: the same hit or miss at every step and
 * the same counters, at every profile, on streams with hints and drops too.
 */
static void test_hitshield_off_is_mglru(void)
{
	static const char *const profiles[] = { "p61", "p68", "p614" };
	const struct hs_policy_ops *hs = hs_policy_find("hitshield");
	const struct hs_policy_ops *mg = hs_policy_find("mglru");
	enum shape sh;

	if (!hs || !mg || !implemented(hs) || !implemented(mg)) {
		t_skip("mglru or hitshield not implemented yet");
		return;
	}
	for (size_t pr = 0; pr < ARRAY_SIZE(profiles); pr++) {
		struct hs_param_set *a = NULL, *b = NULL;
		char err[256];

		if (hs_param_set_new(mg->params, &a) || hs_param_set_new(hs->params, &b) ||
		    hs_param_set_parse(a, "profile", profiles[pr], err, sizeof(err)) ||
		    hs_param_set_parse(b, "profile", profiles[pr], err, sizeof(err)) ||
		    hs_param_set_parse(b, "threshold", "0", err, sizeof(err))) {
			t_fail(__FILE__, __LINE__, "cannot set parameters: %s", err);
			hs_param_set_free(a);
			hs_param_set_free(b);
			return;
		}
		for (sh = SH_UNIFORM; sh <= SH_READAHEAD; sh++) {
			struct stream s;
			int *x, *y;

			if (make_stream(&s, sh, 20000, 300, 900 + pr * 10 + sh)) {
				t_fail(__FILE__, __LINE__, "out of memory");
				break;
			}
			x = calloc(s.n, sizeof(*x));
			y = calloc(s.n, sizeof(*y));
			for (size_t c = 0; x && y && c < ARRAY_SIZE(capacities); c++) {
				struct hs_sim_stats u, v;

				if (run(mg, a, &s, capacities[c] * 4, false, &u, x) ||
				    run(hs, b, &s, capacities[c] * 4, false, &v, y)) {
					t_fail(__FILE__, __LINE__, "run failed");
					continue;
				}
				if (memcmp(x, y, s.n * sizeof(*x)) || memcmp(&u, &v, sizeof(u)))
					t_fail(__FILE__, __LINE__,
					       "hitshield(threshold=0) differs from mglru: %s on %s "
					       "at %" PRIu64, profiles[pr], s.name, capacities[c] * 4);
			}
			free(x);
			free(y);
			free_stream(&s);
		}
		hs_param_set_free(a);
		hs_param_set_free(b);
	}
}

/* Bad keys and channels are refused, not followed. */
static void test_bad_input(void)
{
	const struct hs_policy_ops *ops = hs_policy_find("lru");
	struct hs_sim_config cfg = { .ops = ops, .capacity = 4, .nr_keys = 10 };
	struct hs_sim *sim;

	if (!ops || !implemented(ops)) {
		t_skip("lru not implemented yet");
		return;
	}
	T_EQ_I64(hs_sim_new(&cfg, &sim), 0);
	T_EQ_I64(hs_sim_step(sim, 10, 0, HS_NEVER), -EINVAL);
	T_EQ_I64(hs_sim_step(sim, 1, 7, HS_NEVER), -EINVAL);
	T_EQ_I64(hs_sim_step(sim, 1, 0, HS_NEVER), HS_STEP_MISS);
	hs_sim_free(sim);
	cfg.capacity = 0;
	T_EQ_I64(hs_sim_new(&cfg, &sim), -EINVAL);
}

static const struct t_case cases[] = {
	{ "every-policy", test_every_policy },
	{ "every-parameter", test_every_parameter },
	{ "big-capacity", test_big_capacity },
	{ "opt-lower-bound", test_opt_is_lower_bound },
	{ "lrfu-lambda1-is-lru", test_lrfu_lambda1_is_lru },
	{ "hitshield-off-is-mglru", test_hitshield_off_is_mglru },
	{ "bad-input", test_bad_input },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
