/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl fidelity: does a model evict what the kernel reclaimed, page by page?
 *
 * For a recorded session: the kernel's reclaims are placed on the stream's
 * access axis by the times the recorder stored (analyzers/fidelity-load.c),
 * each model is replayed at the recorded limit with its eviction log, and
 * analyzers/fidelity.c compares the two histories (matched share within
 * capacity/16, /4 and capacity, Jaccard, correlation, lag, refault
 * agreement).  A random baseline that reclaims at the kernel's moments among
 * the pages then resident says what chance gives.  Totals are set beside the
 * kernel's row.  Rows are printed and stored (table fidelity, view
 * v_fidelity, hsctl-db(5)).
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
#include "fidelity.h"
#include "hs.h"
#include "param.h"
#include "parse.h"
#include "policy.h"
#include "sim.h"
#include "store.h"

#define MAX_POLICIES	32
#define MAX_PARAMS	32
#define DEFAULT_SEED	1

enum {
	OPT_SIZE = 's',
	OPT_PARAM = 0x100,
	OPT_SEED,
	OPT_AGAINST,
	OPT_NO_STORE,
};

struct args {
	const char	*session;
	char		*policies;		/* --policy, NULL: the kernel's model */
	const char	*params[MAX_PARAMS];	/* --param POLICY.KEY=V */
	size_t		nr_params;
	uint64_t	size;			/* --size, 0: the recorded limit */
	const char	*size_arg;
	uint64_t	seed;
	const char	*against;		/* --against SESSION */
	bool		no_store;
};

static const struct argp_option options[] = {
	{ "policy", 'p', "P[,P...]", 0,
	  "Models to compare with the kernel (default: the one matching the recorded "
	  "kernel: mglru with its version's profile where MGLRU was on, else linux-2q)", 0 },
	{ "param", OPT_PARAM, "POLICY.KEY=V", 0, "Set a model's parameter (repeatable)", 0 },
	{ "size", OPT_SIZE, "N", 0,
	  "Capacity in pages, or a memory size such as 64M (default: the recorded memory "
	  "limit)", 0 },
	{ "seed", OPT_SEED, "N", 0, "Seed of the random baseline (default 1)", 0 },
	{ "against", OPT_AGAINST, "SESSION", 0,
	  "Also compare with another recording of the same workload and seed: the "
	  "kernel's own reproducibility, the ceiling of any model", 0 },
	{ "no-store", OPT_NO_STORE, NULL, 0, "Do not store the rows in the database", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'p':
		a->policies = arg;
		break;
	case OPT_PARAM:
		if (a->nr_params == MAX_PARAMS)
			argp_error(state, "--param: at most %d", MAX_PARAMS);
		a->params[a->nr_params++] = arg;
		break;
	case OPT_SIZE:
		a->size_arg = arg;
		break;
	case OPT_SEED:
		if (hs_parse_u64(arg, 0, UINT64_MAX, &a->seed))
			argp_error(state, "--seed '%s': expected a number", arg);
		break;
	case OPT_AGAINST:
		a->against = arg;
		break;
	case OPT_NO_STORE:
		a->no_store = true;
		break;
	case ARGP_KEY_ARG:
		if (a->session)
			argp_error(state, "one SESSION at a time (got '%s' too)", arg);
		a->session = arg;
		break;
	case ARGP_KEY_END:
		if (!a->session)
			argp_error(state, "missing SESSION (a recorded session: see 'hsctl sessions')");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "SESSION",
	.children = hs_format_children,
	.doc = "Per-page fidelity of a recorded session: does each model evict the pages the "
	       "kernel reclaimed, and when?  Beside a random baseline; printed and stored.\v"
	       "EXAMPLES:\n"
	       "    hsctl fidelity 3                        # the kernel's own model\n"
	       "    hsctl fidelity 3 --policy mglru,lru,linux-2q\n"
	       "    hsctl fidelity 3 --param mglru.profile=p61 -p mglru\n"
	       "    hsctl fidelity 3 --against 4            # two kernel runs\n"
	       "    hsctl sql 'SELECT policy, share_c4, jaccard FROM v_fidelity'\n"
	       "\nshare_cN: the kernel's reclaims the model also evicted within capacity/N "
	       "accesses either side.  See hsctl-fidelity(1).",
};

/* One row: a model, the random baseline, or another recording (--against). */
struct row {
	const char			*name;		/* "random", "kernel" */
	const struct hs_policy_ops	*ops;
	struct hs_param_set		*ps;
	char				params_json[1024];
	struct hs_fid_event		*ev;
	size_t				n_ev;
	struct hs_sim_stats		stats;
	struct hs_fid_result		res;
	int64_t				against;	/* the other session, or 0 */
	int64_t				id;
};

/* Apply the --param values meant for @name to @ps: 0 or an exit status. */
static int apply_params(const struct args *a, const char *name, struct hs_param_set *ps,
			bool *used)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < a->nr_params; i++) {
		const char *p = a->params[i], *eq = strchr(p, '=');
		char key[64], why[256] = "";

		if (strncmp(p, name, len) || p[len] != '.' || !eq || eq < p + len + 1)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - p - (ptrdiff_t)len - 1), p + len + 1);
		if (hs_param_set_parse(ps, key, eq + 1, why, sizeof(why))) {
			hs_err("--param %s: %s", p, why[0] ? why : "invalid");
			return HS_EXIT_USAGE;
		}
		used[i] = true;
	}
	return 0;
}

static int pick_models(struct hs_store *st, int64_t session, const struct args *a,
		       struct row *rows, size_t *nr)
{
	const struct hs_policy_ops *pols[MAX_POLICIES];
	const char *policy = NULL, *profile = NULL;
	char release[128], lru_gen[64], list[64];
	bool used[MAX_PARAMS] = { false };
	size_t n = 0;
	int status, err;

	if (a->policies) {
		status = hs_cli_pick_policies(a->policies, NULL, "--policy: ", pols, MAX_POLICIES,
					      &n);
		if (status)
			return status;
	} else {
		err = hs_rec_kernel(st, session, release, sizeof(release), lru_gen,
				    sizeof(lru_gen));
		if (err)
			return hs_cli_store_err(st, hs_exit_from_errno(err));
		if (hs_fid_default_policy(release, lru_gen, &policy, &profile)) {
			hs_err("session %" PRId64 ": kernel release '%s' has no version: "
			       "give --policy", session, release);
			return HS_EXIT_DATAERR;
		}
		snprintf(list, sizeof(list), "%s", policy);
		status = hs_cli_pick_policies(list, NULL, "", pols, MAX_POLICIES, &n);
		if (status)
			return status;
		hs_info("session %" PRId64 " was recorded on %s, lru_gen %s: %s profile=%s",
			session, release, lru_gen, policy, profile);
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].ops = pols[i];
		if (hs_param_set_new(pols[i]->params, &rows[i].ps)) {
			hs_err("out of memory");
			return HS_EXIT_FAILURE;
		}
		if (profile && hs_param_set_parse(rows[i].ps, "profile", profile, NULL, 0)) {
			hs_err("%s has no profile %s", pols[i]->name, profile);
			return HS_EXIT_FAILURE;
		}
		status = apply_params(a, pols[i]->name, rows[i].ps, used);
		if (status)
			return status;
		hs_param_set_json(rows[i].ps, rows[i].params_json, sizeof(rows[i].params_json));
	}
	for (size_t i = 0; i < a->nr_params; i++) {
		if (!used[i]) {
			hs_err("--param %s: names no model compared here", a->params[i]);
			return HS_EXIT_USAGE;
		}
	}
	*nr = n;
	return 0;
}

static double rel_err(uint64_t model, uint64_t kernel)
{
	return kernel ? ((double)model - (double)kernel) / (double)kernel : NAN;
}

/* A ratio, or an empty cell (null) where it is undefined. */
static void out_ratio(struct hs_out *o, double v)
{
	if (isnan(v))
		hs_out_null(o);
	else
		hs_out_real(o, v);
}

static int print_rows(const struct row *rows, size_t n, const struct hs_fid_kernel *k,
		      const struct hs_kernel_row *kr, bool have_kr, uint64_t capacity,
		      int64_t session)
{
	bool table = hs_global.format == HS_FMT_TABLE;
	struct hs_out *o;
	int ret;

	if (hs_out_new(stdout, hs_global.format, "fidelity", &o))
		return -ENOMEM;
	if (!table) {
		hs_out_column(o, "id", HS_COL_INT, NULL);
		hs_out_column(o, "session", HS_COL_INT, NULL);
	}
	hs_out_column(o, "policy", HS_COL_STR, NULL);
	if (!table) {
		hs_out_column(o, "against", HS_COL_INT, NULL);
		hs_out_column(o, "params", HS_COL_JSON, NULL);
		hs_out_column(o, "capacity", HS_COL_INT, NULL);
		hs_out_column(o, "kernel_reclaims", HS_COL_INT, NULL);
	}
	hs_out_column(o, "evictions", HS_COL_INT, NULL);
	hs_out_column(o, table ? "c/16%" : "share_c16", HS_COL_REAL, table ? "%.1f" : "%.6f");
	hs_out_column(o, table ? "c/4%" : "share_c4", HS_COL_REAL, table ? "%.1f" : "%.6f");
	hs_out_column(o, table ? "c%" : "share_c1", HS_COL_REAL, table ? "%.1f" : "%.6f");
	hs_out_column(o, "jaccard", HS_COL_REAL, table ? "%.3f" : "%.6f");
	hs_out_column(o, table ? "r" : "correlation", HS_COL_REAL, table ? "%.3f" : "%.6f");
	hs_out_column(o, table ? "lag" : "median_lag", HS_COL_INT, NULL);
	hs_out_column(o, table ? "rf-recall%" : "refault_recall", HS_COL_REAL,
		      table ? "%.1f" : "%.6f");
	hs_out_column(o, table ? "rf-prec%" : "refault_precision", HS_COL_REAL,
		      table ? "%.1f" : "%.6f");
	hs_out_column(o, table ? "miss-err%" : "misses_error", HS_COL_REAL,
		      table ? "%+.1f" : "%.6f");
	hs_out_column(o, table ? "evict-err%" : "evictions_error", HS_COL_REAL,
		      table ? "%+.1f" : "%.6f");
	hs_out_column(o, table ? "refault-err%" : "refaults_error", HS_COL_REAL,
		      table ? "%+.1f" : "%.6f");
	hs_out_column(o, table ? "swpin-err%" : "pswpin_error", HS_COL_REAL,
		      table ? "%+.1f" : "%.6f");
	hs_out_column(o, table ? "swpout-err%" : "pswpout_error", HS_COL_REAL,
		      table ? "%+.1f" : "%.6f");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		double pct = table ? 100.0 : 1.0;

		if (!table) {
			if (r->id)
				hs_out_int(o, r->id);
			else
				hs_out_null(o);
			hs_out_int(o, session);
		}
		hs_out_str(o, r->ops ? r->ops->name : r->name);
		if (!table) {
			if (r->against)
				hs_out_int(o, r->against);
			else
				hs_out_null(o);
			hs_out_json(o, r->ops ? r->params_json : "{}");
			hs_out_uint(o, capacity);
			hs_out_uint(o, r->res.ref_evictions);
		}
		hs_out_uint(o, r->res.other_evictions);
		for (int w = 0; w < HS_FID_WINDOWS; w++)
			out_ratio(o, pct * r->res.share[w]);
		out_ratio(o, r->res.jaccard);
		out_ratio(o, r->res.correlation);
		if (r->res.lag_pairs)
			hs_out_int(o, r->res.median_lag);
		else
			hs_out_null(o);
		out_ratio(o, pct * r->res.refault_recall);
		out_ratio(o, pct * r->res.refault_precision);
		if (r->ops && have_kr) {
			out_ratio(o, pct * rel_err(r->stats.misses, kr->demand_miss_pages));
		} else {
			hs_out_null(o);
		}
		out_ratio(o, pct * rel_err(r->res.other_evictions, r->res.ref_evictions));
		out_ratio(o, pct * rel_err(r->res.other_refaults, r->res.ref_refaults));
		if (r->ops && have_kr) {
			out_ratio(o, pct * rel_err(r->stats.pswpin, kr->pswpin_pages));
			out_ratio(o, pct * rel_err(r->stats.pswpout, kr->pswpout_pages));
		} else {
			hs_out_null(o);
			hs_out_null(o);
		}
		hs_out_row_end(o);
	}
	if (table) {
		printf("session %" PRId64 ": %" PRIu64 " accesses, capacity %" PRIu64
		       " pages; the kernel reclaimed %zu pages the stream names (%" PRIu64
		       " pages of lives it does not name left out)\n", session, k->length,
		       capacity, k->n_reclaims, k->unkeyed_pages);
		printf("c/N%%: kernel reclaims the model also evicted within capacity/N accesses "
		       "(%" PRIu64 ", %" PRIu64 ", %" PRIu64 "); lag: median model - kernel "
		       "position; errors: model vs kernel totals, pages\n",
		       n ? rows[0].res.window[0] : 0, n ? rows[0].res.window[1] : 0,
		       n ? rows[0].res.window[2] : 0);
	}
	ret = hs_out_finish(o);
	hs_out_free(o);
	return ret;
}

/* The store takes plain numbers: lib/ does not know analyzers' structs. */
static void fill_record(struct hs_fid_record *rec, const struct hs_fid_result *r)
{
	for (int w = 0; w < HS_FID_WINDOWS; w++) {
		rec->window[w] = r->window[w];
		rec->matched[w] = r->matched[w];
	}
	rec->kernel_reclaims = r->ref_evictions;
	rec->evictions = r->other_evictions;
	rec->kernel_pages = r->ref_pages;
	rec->model_pages = r->other_pages;
	rec->both_pages = r->both_pages;
	rec->jaccard = r->jaccard;
	rec->correlation = r->correlation;
	rec->median_lag = r->median_lag;
	rec->lag_pairs = r->lag_pairs;
	rec->kernel_refaults = r->ref_refaults;
	rec->model_refaults = r->other_refaults;
	rec->both_refaults = r->both_refaults;
}

static int store_rows(struct hs_store *st, struct row *rows, size_t n,
		      const struct hs_fid_kernel *k, const struct hs_kernel_row *kr, bool have_kr,
		      uint64_t capacity, int64_t session)
{
	struct hs_fid_record *recs = calloc(n, sizeof(*recs));
	int64_t *ids = calloc(n, sizeof(*ids));
	int err = -ENOMEM;

	if (!recs || !ids)
		goto out;
	for (size_t i = 0; i < n; i++) {
		recs[i].session = session;
		recs[i].policy = rows[i].ops ? rows[i].ops->name : rows[i].name;
		recs[i].against = rows[i].against;
		recs[i].params_json = rows[i].ops ? rows[i].params_json : "{}";
		recs[i].capacity = capacity;
		fill_record(&recs[i], &rows[i].res);
		recs[i].gap_accesses = k->gap_positions;
		recs[i].have_totals = rows[i].ops && have_kr;
		recs[i].model_misses = rows[i].stats.misses;
		recs[i].model_pswpin = rows[i].stats.pswpin;
		recs[i].model_pswpout = rows[i].stats.pswpout;
		recs[i].kernel_misses = kr->demand_miss_pages;
		recs[i].kernel_pswpin = kr->pswpin_pages;
		recs[i].kernel_pswpout = kr->pswpout_pages;
	}
	err = hs_store_save_fidelity(st, recs, n, ids);
	for (size_t i = 0; !err && i < n; i++)
		rows[i].id = ids[i];
out:
	free(recs);
	free(ids);
	return err;
}

/*
 * Another recording's reclaims on this session's axis.  Keys correspond by
 * order of first use (dense ids), which holds for one workload and seed;
 * positions scale by the ratio of the streams' lengths.
 */
static int against_row(struct hs_store *st, const struct args *a, const struct hs_fid_kernel *k,
		       struct row *row)
{
	struct hs_fid_kernel b = { 0 };
	const char *why = NULL;
	int64_t other;
	size_t n = 0;
	int status, err;

	status = hs_cli_parse_session(a->against, &other);
	if (status)
		return status;
	err = hs_fid_kernel_load(st, other, &b, &why);
	if (err == -EMEDIUMTYPE) {
		hs_err("--against %" PRId64 ": %s", other, why);
		return HS_EXIT_DATAERR;
	}
	if (err) {
		if (err == -ENOENT) {
			hs_err("--against: no session %" PRId64, other);
			return HS_EXIT_NOINPUT;
		}
		return hs_cli_store_err(st, hs_exit_from_errno(err));
	}
	if (b.nr_keys != k->nr_keys || b.length != k->length)
		hs_warn("--against %" PRId64 ": %u keys and %" PRIu64 " accesses against %u and %"
			PRIu64 ": pages are matched by order of first use, positions by the "
			"ratio of the lengths", other, b.nr_keys, b.length, k->nr_keys, k->length);
	row->ev = malloc((b.n_reclaims ? b.n_reclaims : 1) * sizeof(*row->ev));
	if (!row->ev) {
		hs_fid_kernel_free(&b);
		hs_err("out of memory");
		return HS_EXIT_FAILURE;
	}
	for (size_t i = 0; i < b.n_reclaims; i++) {
		long double scaled = b.length ? (long double)b.reclaims[i].pos * k->length /
						b.length : 0;

		if (b.reclaims[i].key >= k->nr_keys)
			continue;
		row->ev[n].pos = (uint64_t)(scaled + 0.5L);
		if (row->ev[n].pos > k->length)
			row->ev[n].pos = k->length;
		row->ev[n].key = b.reclaims[i].key;
		n++;
	}
	row->n_ev = n;
	row->name = "kernel";
	row->against = other;
	hs_fid_kernel_free(&b);
	return 0;
}

static int run(int argc, char **argv)
{
	struct row rows[MAX_POLICIES + 2];
	const struct hs_policy_ops *ops[MAX_POLICIES];
	const struct hs_param_set *pss[MAX_POLICIES];
	struct hs_fid_event *evs[MAX_POLICIES];
	struct hs_sim_stats stats[MAX_POLICIES];
	size_t n_evs[MAX_POLICIES];
	struct hs_fid_kernel k = { 0 };
	struct hs_kernel_row kr = { 0 };
	struct hs_store *st = NULL;
	struct args a = { .seed = DEFAULT_SEED };
	const char *why = NULL;
	size_t nm = 0, n;
	uint64_t capacity;
	bool have_kr;
	int64_t session;
	int status, err;

	memset(rows, 0, sizeof(rows));
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	status = hs_cli_parse_session(a.session, &session);
	if (status)
		return status;
	if (a.size_arg && (hs_parse_size(a.size_arg, 4096, 1, UINT32_MAX, &a.size))) {
		hs_err("--size '%s': expected pages or a memory size such as 64M", a.size_arg);
		return HS_EXIT_USAGE;
	}
	status = hs_cli_open_store(HS_STORE_NOCREATE | (a.no_store ? HS_STORE_RDONLY : 0), &st);
	if (status)
		return status;
	err = hs_fid_kernel_load(st, session, &k, &why);
	if (err == -EMEDIUMTYPE) {
		hs_err("session %" PRId64 ": %s", session, why);
		status = HS_EXIT_DATAERR;
		goto out;
	}
	if (err) {
		status = err == -ENOENT ? HS_EXIT_NOINPUT : hs_cli_store_err(st,
							     hs_exit_from_errno(err));
		if (err == -ENOENT)
			hs_err("no session %" PRId64 " (see 'hsctl sessions')", session);
		goto out;
	}
	if (k.n_gaps)
		hs_warn("session %" PRId64 " lost events: %zu gaps over %" PRIu64 " of %" PRIu64
			" accesses are left out", session, k.n_gaps, k.gap_positions, k.length);
	capacity = a.size ? a.size : k.memory_limit_pages;
	if (!capacity) {
		hs_err("session %" PRId64 " has no recorded memory limit: give --size", session);
		status = HS_EXIT_USAGE;
		goto out;
	}
	status = pick_models(st, session, &a, rows, &nm);
	if (status)
		goto out;
	for (size_t i = 0; i < nm; i++) {
		ops[i] = rows[i].ops;
		pss[i] = rows[i].ps;
	}
	err = hs_fid_replay_evictions(st, session, ops, pss, nm, capacity, evs, n_evs, stats);
	if (err) {
		hs_err("replay: %s", err == -EUCLEAN ? "a policy broke its contract" :
		       strerror(-err));
		status = hs_exit_from_errno(err);
		goto out;
	}
	for (size_t i = 0; i < nm; i++) {
		rows[i].ev = evs[i];
		rows[i].n_ev = n_evs[i];
		rows[i].stats = stats[i];
	}
	n = nm;
	if (a.against) {
		status = against_row(st, &a, &k, &rows[n]);
		if (status)
			goto out;
		n++;
	}
	rows[n].name = "random";
	err = hs_fid_random_evictions(k.ins, k.n_ins, k.outs, k.n_outs, k.reclaims,
				      k.n_reclaims, k.nr_keys, a.seed, &rows[n].ev,
				      &rows[n].n_ev);
	n++;
	for (size_t i = 0; !err && i < n; i++) {
		struct hs_fid_input in = {
			.stream = k.stream, .length = k.length, .nr_keys = k.nr_keys,
			.capacity = capacity, .ref = k.reclaims, .n_ref = k.n_reclaims,
			.other = rows[i].ev, .n_other = rows[i].n_ev,
			.gaps = k.gaps, .n_gaps = k.n_gaps,
		};

		err = hs_fidelity_compare(&in, &rows[i].res);
	}
	if (err) {
		hs_err("session %" PRId64 ": %s", session, err == -EINVAL ?
		       "the kernel's or a model's history is inconsistent" : strerror(-err));
		status = err == -EINVAL ? HS_EXIT_DATAERR : hs_exit_from_errno(err);
		goto out;
	}
	have_kr = !hs_store_kernel_row(st, session, &kr);
	if (!a.no_store) {
		err = store_rows(st, rows, n, &k, &kr, have_kr, capacity, session);
		if (err) {
			print_rows(rows, n, &k, &kr, have_kr, capacity, session);
			hs_err("%s: rows not stored: %s", hs_global.db, hs_store_errmsg(st));
			status = HS_EXIT_FAILURE;
			goto out;
		}
	}
	if (print_rows(rows, n, &k, &kr, have_kr, capacity, session))
		status = HS_EXIT_FAILURE;
out:
	for (size_t i = 0; i < MAX_POLICIES + 2; i++) {
		free(rows[i].ev);
		hs_param_set_free(rows[i].ps);
	}
	hs_fid_kernel_free(&k);
	hs_store_close(st);
	return status;
}

const struct hs_cmd hs_cmd_fidelity = {
	.name = "fidelity",
	.summary = "Per-page agreement of models with the kernel's reclaims",
	.run = run,
};
