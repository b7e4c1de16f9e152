/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl mrc: miss-ratio curves of a stored session, printed and stored.
 *
 * LRU and OPT are stack algorithms: their whole curve comes from one pass
 * over the session (analyzers/mrc.c), exact at every size, and is then read
 * at the sizes of --sizes.  Every other policy is replayed at each of those
 * sizes, all of them in one shared pass (lib/replay.c), so a curve of such a
 * policy costs one run per size.  A session with hints or drops is outside
 * the stack model: there LRU and OPT are replayed too (and the command says
 * so).  Both methods give what `hsctl replay` gives at the same size; the
 * curves land in mrc_curves / mrc_points (view v_mrc, hsctl-db(5)).  With
 * --sample R the one-pass curves are estimates from a spatial sample of the
 * keys (SHARDS, analyzers/mrc.c), stored with their rate; replayed policies
 * are not sampled, so asking for both is a usage error.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hs.h"
#include "mrc.h"
#include "param.h"
#include "parse.h"
#include "plot.h"
#include "policy.h"
#include "replay.h"
#include "store.h"

#define MAX_POLICIES		64
#define MAX_REPLAY_RUNS		1024	/* replayed policies x sizes: each run holds its keys */
#define DEFAULT_SIZES		"1..100%:40"

enum {
	OPT_SIZES = 0x100,
	OPT_THREADS,
	OPT_NO_STORE,
	OPT_SAMPLE,
};

struct args {
	const char	*session;	/* SESSION argument */
	char		*policies;	/* --policy list (default lru,opt) */
	const char	*sizes;		/* --sizes spec */
	unsigned int	threads;	/* --threads, 0 = all cores */
	double		sample;		/* --sample rate, 1 = exact */
	bool		no_store;	/* --no-store */
	bool		svg;		/* --format svg */
};

/* One curve: a policy and its points, by either method. */
struct curve {
	const struct hs_policy_ops *ops;
	char			params_json[1024];	/* the policy's defaults */
	bool			stack;		/* one pass; else replayed per size */
	struct hs_mrc_point	*points;	/* one per size */
	double			wall_s;
	int64_t			id;		/* stored curve id, or 0 */
};

static const struct argp_option options[] = {
	{ "policy", 'p', "P[,P...]", 0,
	  "Policies, or 'all' (default: lru,opt); lru and opt take one pass, the others "
	  "one replay run per size", 0 },
	{ "sizes", OPT_SIZES, "SPEC", 0,
	  "Sizes, comma-separated: N, N% of the distinct keys, or a memory size such as 64M "
	  "(pages and blocks); ranges A..B (every size), A..B/STEP (linear) or A..B:N "
	  "(N log-spaced sizes); default " DEFAULT_SIZES, 0 },
	{ "sample", OPT_SAMPLE, "R", 0,
	  "Spatial sampling (SHARDS) for lru and opt: keep the keys of a share R of the "
	  "hash space (0.000001 .. 1) and scale sizes by 1/R; an estimate (default: 1, exact)",
	  0 },
	{ "threads", OPT_THREADS, "N", 0, "Replay worker threads (default: one per core)", 0 },
	{ "no-store", OPT_NO_STORE, NULL, 0, "Do not store the curves in the database", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	uint64_t v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = a;	/* mrc_format_parse() sets a->svg */
		break;
	case 'p':
		a->policies = arg;
		break;
	case OPT_SIZES:
		a->sizes = arg;
		break;
	case OPT_THREADS:
		if (hs_parse_u64(arg, 1, 1024, &v))
			argp_error(state, "--threads '%s': expected a number from 1 to 1024", arg);
		a->threads = (unsigned int)v;
		break;
	case OPT_NO_STORE:
		a->no_store = true;
		break;
	case OPT_SAMPLE:
		if (hs_parse_double(arg, HS_MRC_MIN_RATE, 1, &a->sample))
			argp_error(state, "--sample '%s': expected a rate from 0.000001 to 1", arg);
		break;
	case ARGP_KEY_ARG:
		if (a->session)
			argp_error(state, "one SESSION at a time (got '%s' too)", arg);
		a->session = arg;
		break;
	case ARGP_KEY_END:
		if (!a->session)
			argp_error(state, "missing SESSION (see 'hsctl sessions')");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * -f/--format of mrc: the common formats, and svg, a chart of the curves,
 * which no other command draws.  It replaces hs_format_children here.
 */
static const struct argp_option mrc_format_options[] = {
	{ "format", 'f', "FMT", 0,
	  "Output format: table, csv, json or svg (a chart; default: table)", 0 },
	{ 0 }
};

static error_t mrc_format_parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	if (key != 'f')
		return ARGP_ERR_UNKNOWN;
	a->svg = !strcmp(arg, "svg");
	if (a->svg)
		return 0;
	if (hs_format_parse(arg, &hs_global.format)) {
		hs_err("unknown format '%s' (valid: table, csv, json, svg)", arg);
		return EINVAL;	/* argp_parse() fails: exit 64 */
	}
	hs_global.format_set = true;
	return 0;
}

static const struct argp mrc_format_argp = {
	.options = mrc_format_options,
	.parser = mrc_format_parse,
};

static const struct argp_child mrc_children[] = {
	{ &mrc_format_argp, 0, "Output:", 90 },
	{ 0 }
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "SESSION",
	.children = mrc_children,
	.doc = "Miss-ratio curves of a session: LRU and OPT exact at every size from one pass, "
	       "other policies replayed at each size; print them and store them.\v"
	       "EXAMPLES:\n"
	       "    hsctl mrc 1                                 # lru and opt, 40 sizes\n"
	       "    hsctl mrc 1 --sizes 1..100%:1000            # 1,000 log-spaced sizes\n"
	       "    hsctl mrc 1 --policy lru,opt,arc --sizes 10%..100%/10%\n"
	       "    hsctl mrc 1 --sizes 16M..1G:20 --format csv # page sessions: memory sizes\n"
	       "    hsctl mrc 1 --sample 0.01 --sizes 1..100%:100  # SHARDS, 1% of the keys\n"
	       "    hsctl mrc 1 --policy lru,opt,arc --format svg >mrc.svg  # a chart\n"
	       "    hsctl sql 'SELECT policy, size, miss_ratio FROM v_mrc WHERE curve = 1'\n"
	       "\nmiss_ratio is misses / accesses (the table prints it in percent). See "
	       "hsctl-mrc(1) and hsctl-db(5).",
};

/* The one-pass curves of the stack policies among curves[]. */
static int stack_curves(struct hs_store *st, int64_t session, struct curve *cv, size_t nc,
			const uint64_t *sizes, size_t ns, double rate)
{
	uint64_t *lru = NULL, *opt = NULL;
	struct curve *cl = NULL, *co = NULL;
	struct hs_mrc_stack out;
	int ret = -ENOMEM;

	for (size_t i = 0; i < nc; i++) {
		if (!cv[i].stack)
			continue;
		if (!strcmp(cv[i].ops->name, "lru"))
			cl = &cv[i];
		else
			co = &cv[i];
	}
	if (!cl && !co)
		return 0;
	if (cl && !(lru = calloc(ns, sizeof(*lru))))
		goto out;
	if (co && !(opt = calloc(ns, sizeof(*opt))))
		goto out;
	ret = hs_mrc_stack_sampled(st, session, rate, sizes, ns, lru, opt, &out);
	if (ret)
		goto out;
	if (rate < 1)
		hs_info("sample at %g: %" PRIu64 " accesses, %" PRIu64 " distinct keys", rate,
			out.sampled, out.sampled_keys);
	hs_info("stack pass: lru %.3fs, opt %.3fs", out.lru_s, out.opt_s);
	for (size_t s = 0; s < ns; s++) {
		if (cl) {
			cl->points[s].hits = lru[s];
			cl->points[s].misses = out.accesses - lru[s];
		}
		if (co) {
			co->points[s].hits = opt[s];
			co->points[s].misses = out.accesses - opt[s];
		}
	}
	if (cl)
		cl->wall_s = out.lru_s;
	if (co)
		co->wall_s = out.opt_s;
out:
	free(lru);
	free(opt);
	return ret;
}

/* The replayed curves: every (policy, size) run in one shared pass. */
static int replay_curves(struct hs_store *st, int64_t session, struct curve *cv, size_t nc,
			 const uint64_t *sizes, size_t ns, unsigned int threads)
{
	struct hs_replay_opts ro = { .threads = threads };
	struct hs_replay_job *jobs;
	size_t nr = 0, j = 0;
	int ret;

	for (size_t i = 0; i < nc; i++)
		nr += cv[i].stack ? 0 : ns;
	if (!nr)
		return 0;
	jobs = calloc(nr, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	for (size_t i = 0; i < nc; i++) {
		for (size_t s = 0; !cv[i].stack && s < ns; s++, j++) {
			jobs[j].ops = cv[i].ops;
			jobs[j].capacity = sizes[s];
		}
	}
	hs_info("replaying session %" PRId64 ": %zu runs", session, nr);
	ret = hs_replay_session(st, session, jobs, nr, &ro);
	for (size_t i = 0, k = 0; !ret && i < nc; i++) {
		for (size_t s = 0; !cv[i].stack && s < ns; s++, k++) {
			if (jobs[k].err) {
				hs_err("%s at size %" PRIu64 ": %s", cv[i].ops->name, sizes[s],
				       jobs[k].err == -EUCLEAN ? "policy bug" :
				       strerror(-jobs[k].err));
				ret = jobs[k].err;
				break;
			}
			cv[i].points[s].hits = jobs[k].stats.hits;
			cv[i].points[s].misses = jobs[k].stats.misses;
			cv[i].wall_s += jobs[k].wall_s;
		}
	}
	for (j = 0; j < nr; j++)
		free(jobs[j].gens);
	free(jobs);
	return ret;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static int print_curves(const struct curve *cv, size_t nc, size_t ns,
			const struct hs_session_info *info, double rate)
{
	bool table = hs_global.format == HS_FMT_TABLE;
	struct hs_out *o;
	int ret;

	if (hs_out_new(stdout, hs_global.format, "points", &o))
		return -ENOMEM;
	if (!table) {
		hs_out_column(o, "curve", HS_COL_INT, NULL);
		hs_out_column(o, "session", HS_COL_INT, NULL);
	}
	hs_out_column(o, "policy", HS_COL_STR, NULL);
	hs_out_column(o, "method", HS_COL_STR, NULL);
	hs_out_column(o, "size", HS_COL_INT, NULL);
	if (table) {
		hs_out_column(o, "miss%", HS_COL_REAL, "%.2f");
	} else {
		hs_out_column(o, "accesses", HS_COL_INT, NULL);
	}
	hs_out_column(o, "hits", HS_COL_INT, NULL);
	hs_out_column(o, "misses", HS_COL_INT, NULL);
	if (!table)
		hs_out_column(o, "miss_ratio", HS_COL_REAL, "%.6f");
	for (size_t i = 0; i < nc; i++) {
		for (size_t s = 0; s < ns; s++) {
			const struct hs_mrc_point *p = &cv[i].points[s];

			if (!table) {
				if (cv[i].id)
					hs_out_int(o, cv[i].id);
				else
					hs_out_null(o);
				hs_out_int(o, info->id);
			}
			hs_out_str(o, cv[i].ops->name);
			hs_out_str(o, cv[i].stack ? "stack" : "replay");
			hs_out_uint(o, p->size);
			if (table)
				hs_out_real(o, 100.0 * ratio(p->misses, info->accesses));
			else
				hs_out_uint(o, info->accesses);
			hs_out_uint(o, p->hits);
			hs_out_uint(o, p->misses);
			if (!table)
				hs_out_real(o, ratio(p->misses, info->accesses));
			hs_out_row_end(o);
		}
	}
	if (table)
		printf("session %" PRId64 " (%s): %" PRIu64 " accesses, %" PRIu64
		       " distinct keys; size in %ss\n", info->id, info->name, info->accesses,
		       info->distinct_keys, info->unit);
	if (table && rate < 1)
		printf("lru and opt estimated from a spatial sample of %g of the keys (SHARDS)\n",
		       rate);
	ret = hs_out_finish(o);
	hs_out_free(o);
	return ret;
}

/*
 * --format svg: the curves as one chart, miss ratio in percent over the
 * size, OPT solid black, each policy in its style (hs_cli_policy_style()),
 * a recorded session's memory limit marked.  The x axis is logarithmic when
 * the sizes span more than a factor of 20.
 */
static int print_svg(const struct curve *cv, size_t nc, size_t ns,
		     const struct hs_session_info *info)
{
	struct hs_plot_series *sr = calloc(nc, sizeof(*sr));
	double *x = calloc(ns, sizeof(*x)), *y = calloc(nc * ns, sizeof(*y));
	char title[384], xlabel[64], mlabel[64];
	struct hs_plot_mark mark;
	struct hs_plot p = { .title = title, .xlabel = xlabel, .ylabel = "miss ratio (%)",
			     .ymin = 0, .ymax = 100, .series = sr, .nr_series = nc };
	char *svg = NULL;
	size_t len = 0;
	int ret = -ENOMEM;

	if (!sr || !x || !y)
		goto out;
	for (size_t s = 0; s < ns; s++)
		x[s] = (double)cv[0].points[s].size;
	for (size_t i = 0; i < nc; i++) {
		for (size_t s = 0; s < ns; s++)
			y[i * ns + s] = 100.0 * ratio(cv[i].points[s].misses, info->accesses);
		sr[i] = (struct hs_plot_series){ cv[i].ops->name, hs_cli_policy_style(cv[i].ops),
						 x, y + i * ns, ns };
	}
	p.xlog = ns > 1 && x[ns - 1] > 20 * x[0];
	snprintf(title, sizeof(title), "Miss-ratio curves, session %" PRId64 " (%s)", info->id,
		 info->name);
	snprintf(xlabel, sizeof(xlabel), "cache size (%ss%s)", info->unit,
		 p.xlog ? ", log scale" : "");
	if (info->memory_limit_pages && !strcmp(info->unit, "page")) {
		snprintf(mlabel, sizeof(mlabel), "recorded limit %" PRIu64,
			 info->memory_limit_pages);
		mark = (struct hs_plot_mark){ (double)info->memory_limit_pages, mlabel };
		p.marks = &mark;
		p.nr_marks = 1;
	}
	ret = hs_plot_svg(&p, &svg, &len);
	if (!ret && (fwrite(svg, 1, len, stdout) != len || fflush(stdout)))
		ret = -EIO;
out:
	free(svg);
	free(sr);
	free(x);
	free(y);
	return ret;
}

static int store_curves(struct hs_store *st, struct curve *cv, size_t nc, size_t ns,
			const struct hs_session_info *info, double rate)
{
	struct hs_mrc_record *recs = calloc(nc, sizeof(*recs));
	int64_t *ids = calloc(nc, sizeof(*ids));
	int ret = -ENOMEM;

	if (!recs || !ids)
		goto out;
	for (size_t i = 0; i < nc; i++) {
		recs[i].session = info->id;
		recs[i].policy = cv[i].ops->name;
		recs[i].params_json = cv[i].params_json;
		recs[i].method = cv[i].stack ? "stack" : "replay";
		recs[i].accesses = info->accesses;
		recs[i].wall_s = cv[i].wall_s;
		recs[i].sample_rate = cv[i].stack ? rate : 1;
		recs[i].points = cv[i].points;
		recs[i].nr_points = ns;
	}
	ret = hs_store_save_mrc(st, recs, nc, ids);
	for (size_t i = 0; !ret && i < nc; i++)
		cv[i].id = ids[i];
out:
	free(recs);
	free(ids);
	return ret;
}

static int run(int argc, char **argv)
{
	const struct hs_policy_ops *pols[MAX_POLICIES];
	struct hs_session_info info;
	struct hs_store *st = NULL;
	struct curve *cv = NULL;
	uint64_t *sizes = NULL;
	size_t nr_pols = 0, ns = 0, replayed = 0, i;
	struct args a = { .sample = 1 };
	int64_t session;
	bool pure;
	int status, ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	status = hs_cli_parse_session(a.session, &session);
	if (status)
		return status;
	status = hs_cli_pick_policies(a.policies, "lru,opt", "--policy: ", pols, MAX_POLICIES,
				      &nr_pols);
	if (status)
		return status;
	status = hs_cli_open_store(HS_STORE_NOCREATE | (a.no_store ? HS_STORE_RDONLY : 0), &st);
	if (status)
		return status;
	status = hs_cli_get_stream_session(st, session, &info);
	if (status)
		goto out;
	status = hs_cli_pick_sizes(a.sizes ? a.sizes : DEFAULT_SIZES, "--sizes", &info, &sizes, &ns);
	if (status)
		goto out;

	pure = info.records == info.accesses;
	cv = calloc(nr_pols, sizeof(*cv));
	if (!cv) {
		hs_err("out of memory");
		status = HS_EXIT_FAILURE;
		goto out;
	}
	for (i = 0; i < nr_pols; i++) {
		struct hs_param_set *ps = NULL;

		cv[i].ops = pols[i];
		cv[i].stack = pure && hs_cli_is_stack_policy(pols[i]);
		if (!pure && hs_cli_is_stack_policy(pols[i]))
			hs_warn("session %" PRId64 " has hints or drops, outside the stack model:"
				" %s is replayed at each size", session, pols[i]->name);
		replayed += cv[i].stack ? 0 : 1;
		snprintf(cv[i].params_json, sizeof(cv[i].params_json), "{}");
		if (!hs_param_set_new(pols[i]->params, &ps) &&
		    hs_param_set_json(ps, cv[i].params_json, sizeof(cv[i].params_json)) < 0)
			snprintf(cv[i].params_json, sizeof(cv[i].params_json), "{}");
		hs_param_set_free(ps);
		cv[i].points = calloc(ns, sizeof(*cv[i].points));
		if (!cv[i].points) {
			hs_err("out of memory");
			status = HS_EXIT_FAILURE;
			goto out;
		}
		for (size_t s = 0; s < ns; s++)
			cv[i].points[s].size = sizes[s];
	}
	if (a.sample < 1 && replayed) {
		hs_err("--sample: only the one-pass curves (lru and opt, on a session without "
		       "hints or drops) can be sampled");
		status = HS_EXIT_USAGE;
		goto out;
	}
	if (replayed * ns > MAX_REPLAY_RUNS) {
		hs_err("%zu replayed policies at %zu sizes is %zu runs, more than %d: give fewer "
		       "--sizes (or only lru and opt, which take one pass)", replayed, ns,
		       replayed * ns, MAX_REPLAY_RUNS);
		status = HS_EXIT_USAGE;
		goto out;
	}

	ret = stack_curves(st, session, cv, nr_pols, sizes, ns, a.sample);
	if (!ret)
		ret = replay_curves(st, session, cv, nr_pols, sizes, ns, a.threads);
	if (ret) {
		if (ret == -EBADMSG)
			hs_err("session %" PRId64 ": the stored access stream is corrupt", session);
		else if (ret == -ENOMEM)
			hs_err("session %" PRId64 ": out of memory", session);
		else if (ret == -EOVERFLOW)
			hs_err("session %" PRId64 ": too many distinct keys for the one-pass curves",
			       session);
		else if (ret != -EUCLEAN && ret != -EINVAL && ret != -ENOSYS)
			hs_err("session %" PRId64 ": %s", session, hs_store_errmsg(st));
		status = hs_exit_from_errno(ret);
		goto out;
	}
	if (!a.no_store) {
		ret = store_curves(st, cv, nr_pols, ns, &info, a.sample);
		if (ret) {
			hs_err("%s: storing the curves: %s", hs_global.db,
			       ret == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
			status = HS_EXIT_FAILURE;
			goto out;
		}
	}
	if (a.svg)
		status = print_svg(cv, nr_pols, ns, &info) ? HS_EXIT_FAILURE : HS_EXIT_OK;
	else
		status = print_curves(cv, nr_pols, ns, &info, a.sample) ? HS_EXIT_FAILURE :
			 HS_EXIT_OK;
out:
	for (i = 0; cv && i < nr_pols; i++)
		free(cv[i].points);
	free(cv);
	free(sizes);
	hs_store_close(st);
	return status;
}

const struct hs_cmd hs_cmd_mrc = {
	.name = "mrc",
	.summary = "Miss-ratio curves: LRU and OPT in one pass, other policies replayed",
	.run = run,
};
