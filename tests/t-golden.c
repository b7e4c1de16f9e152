/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Golden policy tests: every testdata/golden/NAME.golden file is a tiny access
 * sequence whose outcome was computed by hand (the computation is written in
 * the file's comments).  Each file is one case: it runs through lib/sim.c with
 * the named policy, and every step's hit/miss, victims, hint verdicts, policy
 * metrics and running totals are compared with the file.  The policy's check()
 * and the driver's own invariants run after every step.  The format is
 * described in testdata/README.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "harness.h"
#include "neigh.h"
#include "param.h"
#include "policy.h"
#include "sim.h"

enum step_kind { S_ACCESS, S_HINT, S_DROP, S_REPORT, S_EXPECT };
enum step_want { W_ANY, W_HIT, W_MISS, W_EVICT, W_KEEP };

#define MAX_KEYS	256
#define MAX_VICTIMS	64

struct step {
	enum step_kind	kind;
	int		line;		/* line in the file */
	uint32_t	key;		/* S_ACCESS, S_HINT, S_DROP */
	uint8_t		meta;		/* stream meta byte */
	enum step_want	want;		/* expected outcome */
	bool		check_victims;	/* "evict=" was given */
	size_t		nr_victims;
	uint32_t	victims[MAX_VICTIMS];
	char		text[256];	/* S_REPORT / S_EXPECT: the rest of the line */
};

struct golden {
	char		path[4096];
	char		policy[64];
	uint64_t	capacity;
	char		params[16][128];	/* "key=value" */
	size_t		nr_params;
	enum hs_pageout_mode pageout;		/* "pageout MODE": the driver's mode */
	uint64_t	recheck_window;		/* "recheck_window N" */
	uint32_t	addr_space[MAX_KEYS];	/* "addr KEY SPACE PAGE": 0 = none */
	uint64_t	addr_page[MAX_KEYS];
	bool		has_addr;		/* some key has one: the run gets a neigh */
	char		*keys[MAX_KEYS];	/* token of each dense id */
	uint32_t	nr_keys;
	struct step	*steps;
	size_t		nr_steps;
};

static char **files;
static size_t nr_files;

static int key_id(struct golden *g, const char *tok, uint32_t *id)
{
	uint32_t i;

	for (i = 0; i < g->nr_keys; i++)
		if (!strcmp(g->keys[i], tok)) {
			*id = i;
			return 0;
		}
	if (g->nr_keys == MAX_KEYS)
		return -E2BIG;
	g->keys[g->nr_keys] = strdup(tok);
	if (!g->keys[g->nr_keys])
		return -ENOMEM;
	*id = g->nr_keys++;
	return 0;
}

static void golden_free(struct golden *g)
{
	for (uint32_t i = 0; i < g->nr_keys; i++)
		free(g->keys[i]);
	free(g->steps);
}

/* Parse "evict=a,b" into the step. */
static int parse_victims(struct golden *g, struct step *s, char *list)
{
	char *save = NULL, *tok;

	s->check_victims = true;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->nr_victims == MAX_VICTIMS || key_id(g, tok, &s->victims[s->nr_victims]))
			return -EINVAL;
		s->nr_victims++;
	}
	return 0;
}

static int parse_access(struct golden *g, struct step *s, char *tok, char *rest)
{
	enum hs_type type = HS_TYPE_FILE;
	enum hs_channel ch = HS_CH_FD;
	char *save = NULL, *w;

	for (;;) {
		if (!strncmp(tok, "pt:", 3)) {
			ch = HS_CH_PT;
			tok += 3;
		} else if (!strncmp(tok, "fd:", 3)) {
			ch = HS_CH_FD;
			tok += 3;
		} else if (!strncmp(tok, "anon:", 5)) {
			type = HS_TYPE_ANON;
			tok += 5;
		} else {
			break;
		}
	}
	if (!*tok || key_id(g, tok, &s->key))
		return -EINVAL;
	s->kind = S_ACCESS;
	s->meta = hs_meta_make(ch, type, false);
	w = strtok_r(rest, " \t", &save);
	if (!w)
		return -EINVAL;
	if (!strcmp(w, "hit"))
		s->want = W_HIT;
	else if (!strcmp(w, "miss"))
		s->want = W_MISS;
	else if (!strcmp(w, "-"))
		s->want = W_ANY;
	else
		return -EINVAL;
	while ((w = strtok_r(NULL, " \t", &save))) {
		if (strncmp(w, "evict=", 6) || parse_victims(g, s, w + 6))
			return -EINVAL;
	}
	return 0;
}

static int parse_hint(struct golden *g, struct step *s, const char *cmd, char *rest)
{
	char *save = NULL, *key, *verdict;

	key = strtok_r(rest, " \t", &save);
	if (!key || key_id(g, key, &s->key))
		return -EINVAL;
	verdict = strtok_r(NULL, " \t", &save);
	if (!strcmp(cmd, "!drop")) {
		s->kind = S_DROP;
		s->meta = hs_meta_make(HS_CH_DROP, HS_TYPE_FILE, false);
		return verdict ? -EINVAL : 0;
	}
	s->kind = S_HINT;
	if (!strcmp(cmd, "!readahead")) {
		/* an insertion without a reference; "evict=..." checks its victims */
		s->meta = hs_meta_make(HS_CH_READAHEAD, HS_TYPE_FILE, false);
		if (verdict && !strncmp(verdict, "evict=", 6))
			return parse_victims(g, s, verdict + 6) ||
			       strtok_r(NULL, " \t", &save) ? -EINVAL : 0;
		return verdict ? -EINVAL : 0;
	}
	if (!strcmp(cmd, "!pageout"))
		s->meta = hs_meta_make(HS_CH_PAGEOUT, HS_TYPE_FILE, false);
	else if (!strcmp(cmd, "!cold"))
		s->meta = hs_meta_make(HS_CH_COLD, HS_TYPE_FILE, false);
	else
		return -EINVAL;
	if (!verdict)
		s->want = W_ANY;
	else if (!strcmp(verdict, "evict"))
		s->want = W_EVICT;
	else if (!strcmp(verdict, "keep"))
		s->want = W_KEEP;
	else
		return -EINVAL;
	return 0;
}

static int parse_golden(const char *path, struct golden *g)
{
	char line[1024];
	size_t cap = 0;
	int lineno = 0;
	FILE *fp;

	memset(g, 0, sizeof(*g));
	snprintf(g->path, sizeof(g->path), "%s", path);
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *hash = strchr(line, '#'), *save = NULL, *tok, *rest;
		struct step *s;

		lineno++;
		if (hash)
			*hash = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		rest = strtok_r(NULL, "\r\n", &save);
		if (!rest)
			rest = (char *)"";
		if (!g->policy[0]) {
			if (strcmp(tok, "policy"))
				goto bad;
			tok = strtok_r(rest, " \t", &save);
			if (!tok)
				goto bad;
			snprintf(g->policy, sizeof(g->policy), "%s", tok);
			continue;
		}
		if (!strcmp(tok, "capacity")) {
			g->capacity = strtoull(rest, NULL, 10);
			continue;
		}
		if (!strcmp(tok, "pageout")) {
			tok = strtok_r(rest, " \t", &save);
			if (!tok || hs_pageout_mode_parse(tok, &g->pageout))
				goto bad;
			continue;
		}
		if (!strcmp(tok, "recheck_window")) {
			g->recheck_window = strtoull(rest, NULL, 10);
			continue;
		}
		if (!strcmp(tok, "addr")) {
			char *sp, *pg, *end1, *end2;
			unsigned long space;
			uint32_t id;

			tok = strtok_r(rest, " \t", &save);
			sp = strtok_r(NULL, " \t", &save);
			pg = strtok_r(NULL, " \t", &save);
			if (!tok || !sp || !pg || key_id(g, tok, &id))
				goto bad;
			space = strtoul(sp, &end1, 10);
			g->addr_page[id] = strtoull(pg, &end2, 10);
			if (*end1 || *end2 || !space || space > UINT32_MAX)
				goto bad;
			g->addr_space[id] = (uint32_t)space;
			g->has_addr = true;
			continue;
		}
		if (!strcmp(tok, "param")) {
			if (g->nr_params == 16)
				goto bad;
			tok = strtok_r(rest, " \t", &save);
			if (!tok)
				goto bad;
			snprintf(g->params[g->nr_params++], 128, "%s", tok);
			continue;
		}
		if (g->nr_steps == cap) {
			struct step *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(g->steps, cap * sizeof(*n));
			if (!n)
				goto bad;
			g->steps = n;
		}
		s = &g->steps[g->nr_steps];
		memset(s, 0, sizeof(*s));
		s->line = lineno;
		if (!strcmp(tok, "report") || !strcmp(tok, "expect")) {
			s->kind = tok[0] == 'r' ? S_REPORT : S_EXPECT;
			snprintf(s->text, sizeof(s->text), "%s", rest);
		} else if (tok[0] == '!') {
			if (parse_hint(g, s, tok, rest))
				goto bad;
		} else if (parse_access(g, s, tok, rest)) {
			goto bad;
		}
		g->nr_steps++;
	}
	fclose(fp);
	if (!g->policy[0] || !g->capacity)
		return -EINVAL;
	return 0;
bad:
	fclose(fp);
	t_fail(path, lineno, "cannot parse this line of the golden file");
	return -EINVAL;
}

static uint64_t stat_by_name(const struct hs_sim_stats *st, const char *name, bool *ok)
{
	static const struct {
		const char	*name;
		size_t		off;
	} fields[] = {
#define F(x) { #x, offsetof(struct hs_sim_stats, x) }
		F(accesses), F(hits), F(misses), F(cold_misses), F(evictions), F(refaults),
		F(hint_evictions), F(hint_refaults), F(drops), F(pswpin), F(pswpout),
		F(pingpong_keys), F(pingpong_refaults), F(peak_resident), F(distinct_keys),
		F(readahead_pages), F(readahead_unused),
#undef F
	};

	*ok = true;
	if (!strcmp(name, "protected"))
		return st->prot.total;
	if (!strcmp(name, "protected_useful"))
		return st->prot.useful;
	if (!strcmp(name, "protected_wasted"))
		return st->prot.wasted;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].name, name))
			return *(const uint64_t *)(const void *)((const char *)st + fields[i].off);
	*ok = false;
	return 0;
}

static void check_expect(const struct golden *g, const struct step *s, struct hs_sim *sim)
{
	char buf[256], *save = NULL, *tok;
	struct hs_sim_stats st;
	struct hs_metrics m;

	hs_sim_finish(sim, &st, &m);
	snprintf(buf, sizeof(buf), "%s", s->text);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');
		bool ok = false;

		if (!eq) {
			t_fail(g->path, s->line, "expected NAME=VALUE, got '%s'", tok);
			continue;
		}
		*eq = '\0';
		if (s->kind == S_REPORT) {
			double want = strtod(eq + 1, NULL);
			size_t i;

			for (i = 0; i < m.n; i++)
				if (!strcmp(m.m[i].name, tok))
					break;
			if (i == m.n)
				t_fail(g->path, s->line, "policy reports no metric '%s'", tok);
			else if (m.m[i].value - want > 1e-9 || want - m.m[i].value > 1e-9)
				t_fail(g->path, s->line, "%s = %.12g, expected %.12g", tok,
				       m.m[i].value, want);
		} else {
			uint64_t want = strtoull(eq + 1, NULL, 10);
			uint64_t got = stat_by_name(&st, tok, &ok);

			if (!ok)
				t_fail(g->path, s->line, "unknown counter '%s'", tok);
			else if (got != want)
				t_fail(g->path, s->line, "%s = %" PRIu64 ", expected %" PRIu64, tok,
				       got, want);
		}
	}
}

static void check_victims(const struct golden *g, const struct step *s, struct hs_sim *sim)
{
	const uint32_t *ids;
	size_t n = hs_sim_victims(sim, &ids);
	char got[512] = "", want[512] = "";
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "",
			 ids[i] < g->nr_keys ? g->keys[ids[i]] : "?");
	for (i = 0; i < s->nr_victims; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i ? "," : "",
			 g->keys[s->victims[i]]);
	if (strcmp(got, want))
		t_fail(g->path, s->line, "evicted {%s}, expected {%s}", got, want);
}

static int make_params(const struct golden *g, const struct hs_policy_ops *ops,
		       struct hs_param_set **ps)
{
	char err[256];
	int ret;

	ret = hs_param_set_new(ops->params, ps);
	if (ret)
		return ret;
	for (size_t i = 0; i < g->nr_params; i++) {
		char kv[128], *eq;

		snprintf(kv, sizeof(kv), "%s", g->params[i]);
		eq = strchr(kv, '=');
		if (!eq) {
			t_fail(g->path, 0, "param '%s' is not key=value", kv);
			return -EINVAL;
		}
		*eq = '\0';
		if (hs_param_set_parse(*ps, kv, eq + 1, err, sizeof(err))) {
			t_fail(g->path, 0, "param: %s", err);
			return -EINVAL;
		}
	}
	return 0;
}

static void run_golden(size_t idx)
{
	const struct hs_policy_ops *ops;
	struct hs_param_set *ps = NULL;
	struct hs_neigh *nb = NULL;
	struct hs_sim_config cfg;
	struct hs_sim *sim = NULL;
	uint32_t *rkeys = NULL;
	uint8_t *rmeta = NULL;
	uint64_t *next = NULL;
	size_t i, r = 0;
	struct golden g;
	int ret;

	if (parse_golden(files[idx], &g)) {
		t_fail(files[idx], 0, "bad golden file (policy and capacity are required)");
		golden_free(&g);
		return;
	}
	ops = hs_policy_find(g.policy);
	if (!ops) {
		t_fail(g.path, 0, "unknown policy '%s'", g.policy);
		goto out;
	}
	if (make_params(&g, ops, &ps))
		goto out;

	/* The stream as records, for next-use times (offline policies). */
	rkeys = calloc(g.nr_steps + 1, sizeof(*rkeys));
	rmeta = calloc(g.nr_steps + 1, sizeof(*rmeta));
	next = calloc(g.nr_steps + 1, sizeof(*next));
	if (!rkeys || !rmeta || !next) {
		t_fail(g.path, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < g.nr_steps; i++) {
		if (g.steps[i].kind > S_DROP)
			continue;
		rkeys[r] = g.steps[i].key;
		rmeta[r++] = g.steps[i].meta;
	}
	if (hs_next_use_fill(rkeys, rmeta, r, g.nr_keys, next)) {
		t_fail(g.path, 0, "next-use computation failed");
		goto out;
	}

	if (g.has_addr) {
		if (hs_neigh_new(g.nr_keys, &nb)) {
			t_fail(g.path, 0, "out of memory");
			goto out;
		}
		for (i = 0; i < g.nr_keys; i++)
			if (g.addr_space[i])
				hs_neigh_set(nb, (uint32_t)i, g.addr_space[i], g.addr_page[i]);
		if (hs_neigh_finish(nb)) {
			t_fail(g.path, 0, "out of memory");
			goto out;
		}
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.neigh = nb;
	cfg.ops = ops;
	cfg.params = ps;
	cfg.capacity = g.capacity;
	cfg.nr_keys = g.nr_keys;
	cfg.pageout = (uint8_t)g.pageout;
	cfg.recheck_window = g.recheck_window;
	cfg.paranoid = true;
	cfg.record_victims = true;
	ret = hs_sim_new(&cfg, &sim);
	if (ret) {
		t_fail(g.path, 0, "hs_sim_new: %s", strerror(-ret));
		goto out;
	}
	for (i = 0, r = 0; i < g.nr_steps && !t_case_failed(); i++) {
		const struct step *s = &g.steps[i];
		const uint32_t *ids;
		size_t n;

		if (s->kind == S_REPORT || s->kind == S_EXPECT) {
			check_expect(&g, s, sim);
			continue;
		}
		ret = hs_sim_step(sim, s->key, s->meta, next[r++]);
		if (ret < 0) {
			t_fail(g.path, s->line, "hs_sim_step: %s", strerror(-ret));
			break;
		}
		if (hs_sim_check(sim))
			t_fail(g.path, s->line, "invariants broken after this step");
		if (s->want == W_HIT && ret != HS_STEP_HIT)
			t_fail(g.path, s->line, "miss, expected a hit");
		if (s->want == W_MISS && ret != HS_STEP_MISS)
			t_fail(g.path, s->line, "hit, expected a miss");
		n = hs_sim_victims(sim, &ids);
		if (s->want == W_EVICT && (n != 1 || ids[0] != s->key))
			t_fail(g.path, s->line, "hint did not evict the key");
		if (s->want == W_KEEP && n != 0)
			t_fail(g.path, s->line, "hint evicted the key, expected keep");
		if (s->check_victims)
			check_victims(&g, s, sim);
	}
out:
	hs_sim_free(sim);
	hs_neigh_free(nb);
	hs_param_set_free(ps);
	free(rkeys);
	free(rmeta);
	free(next);
	golden_free(&g);
}

static const char *golden_name(size_t i)
{
	const char *slash = strrchr(files[i], '/');

	return slash ? slash + 1 : files[i];
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char dir[4096];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	int ret;

	snprintf(dir, sizeof(dir), "%s/golden", t_testdata());
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
		return 99;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 8 || strcmp(de->d_name + len - 7, ".golden"))
			continue;
		if (nr_files == cap) {
			char **n;

			cap = cap ? cap * 2 : 32;
			n = realloc(files, cap * sizeof(*n));
			if (!n)
				return 99;
			files = n;
		}
		files[nr_files] = malloc(strlen(dir) + len + 2);
		if (!files[nr_files])
			return 99;
		sprintf(files[nr_files++], "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (nr_files)
		qsort(files, nr_files, sizeof(*files), cmp_str);
	ret = t_main_indexed(nr_files, golden_name, run_golden, argc, argv);
	for (size_t i = 0; i < nr_files; i++)
		free(files[i]);
	free(files);
	return ret;
}
