/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl replay: run a stored session's accesses through replacement policies
 * at one or more capacities, print the comparison and store every run.
 *
 * All (policy, parameters, size) combinations are replayed together in one
 * pass over the stream, spread over the cores (lib/replay.c), or, when they
 * would not fit --memory together, in waves of runs that do, one pass each
 * (lib/plan.c; the default budget is MemAvailable less a margin, read from
 * $HSCTL_TEST_MEMINFO instead of /proc/meminfo in tests).  A parameter
 * given as a comma list (--param lrfu.lambda=0.1,0.01) makes one run per value.
 * --pageout sets the driver's PAGEOUT mode for every policy without a
 * "pageout" parameter of its own; a mode other than the default joins those
 * runs' params, so stored runs of different modes stay apart.  Without
 * --size, a recorded session replays at its recorded memory limit (or peak
 * usage), next to what the kernel did at that size.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "damon.h"
#include "evlog.h"
#include "folios.h"
#include "hs.h"
#include "json.h"
#include "param.h"
#include "parse.h"
#include "plan.h"
#include "policy.h"
#include "replay.h"
#include "store.h"

#define MAX_POLICIES	64
#define MAX_SIZES	64
#define MAX_PARAMS	64
#define MAX_VALUES	32

enum {
	OPT_PARAM = 0x100,
	OPT_THREADS,
	OPT_PARANOID,
	OPT_NO_STORE,
	OPT_CHANNEL,
	OPT_PAGEOUT,
	OPT_RECHECK_WINDOW,
	OPT_NO_READAHEAD,
	OPT_READAHEAD_MODEL,
	OPT_TLB_ENTRIES,
	OPT_NO_FOLIOS,
	OPT_LOG_EVICTIONS,
	OPT_MEMORY,
	OPT_DAMON_DEPRIO,
	OPT_DAMON_MIN_AGE,
	OPT_DAMON_MODEL,
	OPT_DAMON_QUOTA,
	OPT_DAMON_PACE,
};

struct param_arg {
	char		*policy;	/* "lrfu" */
	char		*key;		/* "lambda" */
	char		*values[MAX_VALUES];	/* one run per value */
	int		nr_values;
};

struct args {
	const char	*session;	/* SESSION argument */
	char		*policies;	/* --policy list, or NULL (all) */
	char		*sizes;		/* --size list */
	struct param_arg params[MAX_PARAMS];
	int		nr_params;
	unsigned int	threads;	/* --threads, 0 = all cores */
	bool		paranoid;	/* --paranoid */
	bool		no_store;	/* --no-store */
	int		channel;	/* --channel: -1 as stored, else HS_CH_FD/HS_CH_PT */
	int		pageout;	/* --pageout: -1 not given, else enum hs_pageout_mode */
	uint64_t	recheck_window;	/* --recheck-window (0 when not given) */
	bool		window_given;	/* --recheck-window was given */
	bool		no_readahead;	/* --no-readahead */
	bool		tlb_absent;	/* the session has no TLB events: no TLB model */
	uint32_t	tlb_entries;	/* --tlb-entries (UINT32_MAX: 0, no bound), then
					 * the bound in use */
	uint32_t	ra_model;	/* --readahead-model[=PAGES]: 0 off */
	bool		no_folios;	/* --no-folios */
	bool		folios;		/* folio mode: a recorded session with large folios */
	bool		log_evictions;	/* --log-evictions */
	double		damon_deprio;	/* --damon-deprio RATE: 0 off */
	uint64_t	damon_interval_ns; /* its /INTERVAL (0: 100 ms) */
	uint64_t	damon_min_age_ns; /* --damon-min-age */
	bool		damon_regions;	/* --damon-model regions or recorded */
	bool		damon_recorded;	/* --damon-model recorded */
	uint64_t	damon_quota;	/* --damon-quota, bytes a reset interval */
	uint32_t	damon_pace;	/* --damon-pace (0: not given) */
	uint64_t	memory;		/* --memory in bytes (0 when not given) */
};

/* One planned run. */
struct plan {
	const struct hs_policy_ops *ops;
	struct hs_param_set	*ps;		/* owned */
	char			*params_json;	/* owned: ps and the driver's pageout, as JSON */
	char			label[96];	/* "lrfu(lambda=0.1)" */
	uint64_t		capacity;
};

static const struct argp_option options[] = {
	{ "policy", 'p', "P[,P...]", 0,
	  "Policies to replay, or 'all' (default: all); see 'hsctl policy list'", 0 },
	{ "size", 's', "N[,N...]", 0,
	  "Capacities in trace units (pages, blocks or objects); pages and blocks also "
	  "take K/M/G byte sizes; N% is a share of the session's distinct keys; "
	  "default for a recorded session: its memory limit (else its peak usage)", 0 },
	{ "param", OPT_PARAM, "POLICY.KEY=V[,V...]", 0,
	  "Set a policy parameter; a comma list makes one run per value", 0 },
	{ "threads", OPT_THREADS, "N", 0, "Worker threads (default: one per core)", 0 },
	{ "memory", OPT_MEMORY, "SIZE", 0,
	  "Memory the runs may take at once, in bytes or with K/M/G/T (1.5G); runs that do "
	  "not fit together replay in waves, one pass over the stream each (default: "
	  "MemAvailable less an eighth of it or 256M, whichever is more)", 0 },
	{ "paranoid", OPT_PARANOID, NULL, 0,
	  "Check every policy's invariants after every step (slow)", 0 },
	{ "no-store", OPT_NO_STORE, NULL, 0, "Do not store the runs in the database", 0 },
	{ "channel", OPT_CHANNEL, "pt|fd", 0,
	  "Treat every access as page-table (pt) or read()/write() (fd) access, whatever "
	  "the session says (default: as stored)", 0 },
	{ "pageout", OPT_PAGEOUT, "MODE", 0,
	  "PAGEOUT hints for policies without their own pageout parameter: ignore-references "
	  "(evict; the default), recheck (keep a page accessed within --recheck-window "
	  "accesses) or ignore (drop the hint)", 0 },
	{ "recheck-window", OPT_RECHECK_WINDOW, "N", 0,
	  "With --pageout recheck: accesses that count as a touch racing with the hint "
	  "(default 0: none)", 0 },
	{ "no-readahead", OPT_NO_READAHEAD, NULL, 0,
	  "Ignore the readahead records of a recorded session (pages the kernel read ahead)", 0 },
	{ "no-folios", OPT_NO_FOLIOS, NULL, 0,
	  "Replay every page as its own entity, also where the recorded kernel held pages "
	  "in folios of several pages (by default those pages are one entity, as in the "
	  "kernel's LRU)", 0 },
	{ "readahead-model", OPT_READAHEAD_MODEL, "PAGES", OPTION_ARG_OPTIONAL,
	  "On a recorded session, read ahead on each model's own read(2) misses as the "
	  "kernel's page_cache_sync_ra() would, windows of at most PAGES (default 32, "
	  "read_ahead_kb 128)", 0 },
	{ "tlb-entries", OPT_TLB_ENTRIES, "N", 0,
	  "The TLB model's size in translations (default: the CPU's TLB as recorded with "
	  "the session; 0: no bound but the memory)", 0 },
	{ "damon-deprio", OPT_DAMON_DEPRIO, "RATE[/MS]", 0,
	  "On a recorded session, model DAMON_LRU_SORT's cold action: every MS milliseconds "
	  "of the recording (default 100), each resident page is deactivated with chance "
	  "RATE x MS / 1000 (RATE: deactivations per page per second, from 0 to 1000)", 0 },
	{ "damon-min-age", OPT_DAMON_MIN_AGE, "MS", 0,
	  "With --damon-deprio: deactivate only pages not accessed in the last MS "
	  "milliseconds, as if DAMON saw each page's idleness (default 0: every page, as "
	  "its sampling of one page a region mostly does)", 0 },
	{ "damon-model", OPT_DAMON_MODEL, "MODEL", 0,
	  "The DAMON_LRU_SORT model: draws (--damon-deprio's random pages, the default); "
	  "regions: DAMON's regions over the recorded page frames, sampled every 5 ms, its "
	  "hot and cold schemes and quota, with the session's recorded parameters "
	  "(needs no --damon-deprio); or recorded: the kernel's own scheme actions as the "
	  "session recorded them (damon:damos_before_apply), its cold ones carried out on "
	  "the recorded pages of each region", 0 },
	{ "damon-quota", OPT_DAMON_QUOTA, "MIB", 0,
	  "With --damon-model regions: each scheme's quota in MiB of regions a reset "
	  "interval, the kernel's 10 ms a second turned into bytes (default 0: none, as the "
	  "lab's kernels never ran out of theirs)", 0 },
	{ "damon-pace", OPT_DAMON_PACE, "N", 0,
	  "With --damon-model regions: DAMON's checks N times further apart on the trace "
	  "clock than sample_interval, its ages and cold_min_age still counted in "
	  "aggregations of 20 checks, as a kdamond that falls behind (default 1)", 0 },
	{ "log-evictions", OPT_LOG_EVICTIONS, NULL, 0,
	  "Store every eviction of every run (its position and key), read back through "
	  "the view v_evictions", 0 },
	{ 0 }
};

/* --pageout words, in the order messages list them (hs_pageout_mode_name()'s). */
static const char *const pageout_words[] = { "ignore-references", "recheck", "ignore", NULL };

/*
 * A byte size for --memory: digits, a fraction allowed ("1.5G"), and
 * hs_parse_size()'s suffixes; at least one byte.
 */
static int parse_memory(const char *s, uint64_t *out)
{
	size_t len = strspn(s, "0123456789.");
	char num[32], one[16];
	uint64_t unit;
	double v;

	if (!len || len >= sizeof(num) || strlen(s + len) + 2 > sizeof(one))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	snprintf(one, sizeof(one), "1%s", s + len);
	if (hs_parse_size(one, 1, 1, UINT64_MAX, &unit) || hs_parse_double(num, 0, 1e30, &v))
		return -EINVAL;
	v *= (double)unit;
	if (v < 1 || v >= 18446744073709551616.0)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	uint64_t v;

	switch (key) {
	case 'p':
		a->policies = arg;
		break;
	case 's':
		a->sizes = arg;
		break;
	case OPT_PARAM: {
		struct param_arg *pa;
		char *dot, *eq;
		int n;

		if (a->nr_params == MAX_PARAMS)
			argp_error(state, "too many --param options (at most %d)", MAX_PARAMS);
		pa = &a->params[a->nr_params];
		dot = strchr(arg, '.');
		eq = strchr(arg, '=');
		if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1)
			argp_error(state, "--param '%s': expected POLICY.KEY=VALUE", arg);
		*dot = '\0';
		*eq = '\0';
		pa->policy = arg;
		pa->key = dot + 1;
		n = hs_split_list(eq + 1, pa->values, MAX_VALUES);
		if (n <= 0)
			argp_error(state, "--param %s.%s: expected one to %d values", arg, dot + 1,
				   MAX_VALUES);
		pa->nr_values = n;
		a->nr_params++;
		break;
	}
	case OPT_THREADS:
		if (hs_parse_u64(arg, 1, 1024, &v))
			argp_error(state, "--threads '%s': expected a number from 1 to 1024", arg);
		a->threads = (unsigned int)v;
		break;
	case OPT_PARANOID:
		a->paranoid = true;
		break;
	case OPT_NO_STORE:
		a->no_store = true;
		break;
	case OPT_NO_FOLIOS:
		a->no_folios = true;
		break;
	case OPT_NO_READAHEAD:
		a->no_readahead = true;
		break;
	case OPT_DAMON_MIN_AGE:
		if (hs_parse_u64(arg, 0, 3600000, &v))
			argp_error(state, "--damon-min-age '%s': expected milliseconds from 0 to "
				   "3600000", arg);
		a->damon_min_age_ns = v * 1000000;
		break;
	case OPT_DAMON_MODEL:
		a->damon_regions = !strcmp(arg, "regions") || !strcmp(arg, "recorded");
		a->damon_recorded = !strcmp(arg, "recorded");
		if (!a->damon_regions && strcmp(arg, "draws"))
			argp_error(state, "--damon-model '%s': expected draws, regions or recorded",
				   arg);
		break;
	case OPT_DAMON_QUOTA:
		if (hs_parse_u64(arg, 0, 1048576, &v))
			argp_error(state, "--damon-quota '%s': expected MiB from 0 to 1048576", arg);
		a->damon_quota = v << 20;
		break;
	case OPT_DAMON_PACE:
		if (hs_parse_u64(arg, 1, 1000, &v))
			argp_error(state, "--damon-pace '%s': expected a factor from 1 to 1000", arg);
		a->damon_pace = (uint32_t)v;
		break;
	case OPT_DAMON_DEPRIO: {
		char *slash = strchr(arg, '/');

		if (slash)
			*slash = '\0';
		if (hs_parse_double(arg, 0, 1000, &a->damon_deprio) ||
		    (slash && hs_parse_u64(slash + 1, 1, 3600000, &v)))
			argp_error(state, "--damon-deprio '%s%s%s': expected RATE (0 to 1000 a "
				   "second) and optionally /MS (1 to 3600000)", arg,
				   slash ? "/" : "", slash ? slash + 1 : "");
		a->damon_interval_ns = slash ? v * 1000000 : 0;
		break;
	}
	case OPT_TLB_ENTRIES:
		if (hs_parse_u64(arg, 0, UINT32_MAX - 1, &v))
			argp_error(state, "--tlb-entries '%s': expected a count of translations", arg);
		a->tlb_entries = v ? (uint32_t)v : UINT32_MAX;
		break;
	case OPT_READAHEAD_MODEL:
		if (!arg)
			v = 32;
		else if (hs_parse_u64(arg, 2, 65536, &v))
			argp_error(state, "--readahead-model '%s': expected pages from 2 to 65536",
				   arg);
		a->ra_model = (uint32_t)v;
		break;
	case OPT_CHANNEL:
		if (!strcmp(arg, "pt"))
			a->channel = HS_CH_PT;
		else if (!strcmp(arg, "fd"))
			a->channel = HS_CH_FD;
		else
			argp_error(state, "unknown channel '%s' (valid: pt, fd)", arg);
		break;
	case OPT_PAGEOUT: {
		enum hs_pageout_mode m = HS_PAGEOUT_IGNORE_REFS;

		/* The word is one of lib/sim.c's names: parsing it cannot fail. */
		hs_pageout_mode_parse(pageout_words[hs_cli_argp_choice(state, "pageout mode", arg,
									pageout_words)], &m);
		a->pageout = (int)m;
		break;
	}
	case OPT_RECHECK_WINDOW:
		if (hs_parse_u64(arg, 0, UINT64_MAX, &v))
			argp_error(state, "--recheck-window '%s': expected a count of accesses",
				   arg);
		a->recheck_window = v;
		a->window_given = true;
		break;
	case OPT_LOG_EVICTIONS:
		a->log_evictions = true;
		break;
	case OPT_MEMORY:
		if (parse_memory(arg, &a->memory))
			argp_error(state, "--memory '%s': expected a size such as 512M or 1.5G",
				   arg);
		break;
	case ARGP_KEY_ARG:
		if (a->session)
			argp_error(state, "one SESSION at a time (got '%s' too)", arg);
		a->session = arg;
		break;
	case ARGP_KEY_END:
		if (!a->session)
			argp_error(state, "missing SESSION (see 'hsctl sessions')");
		if (a->window_given && a->pageout != HS_PAGEOUT_RECHECK)
			argp_error(state, "--recheck-window needs --pageout recheck");
		if (a->log_evictions && a->no_store)
			argp_error(state, "--log-evictions stores the log: not with --no-store");
		if (a->damon_regions && a->damon_deprio > 0)
			argp_error(state, "--damon-model %s takes no --damon-deprio: its "
				   "deactivations come from its regions",
				   a->damon_recorded ? "recorded" : "regions");
		if (a->damon_recorded && (a->damon_min_age_ns || a->damon_quota || a->damon_pace))
			argp_error(state, "--damon-model recorded takes no --damon-min-age, "
				   "--damon-quota or --damon-pace: the kernel chose its regions");
		if (a->damon_min_age_ns && !(a->damon_deprio > 0) && !a->damon_regions)
			argp_error(state, "--damon-min-age needs --damon-deprio or "
				   "--damon-model regions");
		if ((a->damon_quota || a->damon_pace) && !a->damon_regions)
			argp_error(state, "--damon-quota and --damon-pace need --damon-model "
				   "regions");
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
	.doc = "Replay a session's accesses through replacement policies at one or more "
	       "capacities, print the comparison and store every run.\v"
	       "EXAMPLES:\n"
	       "    hsctl replay 1 --policy all --size 100,500\n"
	       "    hsctl replay 1 --policy lru,arc,opt --size 10%,50%\n"
	       "    hsctl replay 1 --policy all --size 1%,10%,50% --memory 1.5G   # in waves\n"
	       "    hsctl replay 1 --policy lrfu --param lrfu.lambda=1,0.1,0.001 --size 200\n"
	       "    hsctl replay 1 --policy opt --param opt.bypass=true --size 200 -f json\n"
	       "    hsctl replay 4 --policy all          # a recording: at its memory limit\n"
	       "    hsctl replay 1 --policy lru --size 100 --log-evictions\n"
	       "    hsctl sql 'SELECT position, key FROM v_evictions WHERE run = 1'\n"
	       "    hsctl sql 'SELECT policy, capacity, hit_ratio FROM v_runs'\n"
	       "\nhit_ratio is hits / accesses (the table prints it in percent). Runs land in "
	       "the database: see hsctl-db(5), views v_runs and v_policy_compare. A recorded "
	       "session's first row is the kernel's: what it did to the workload's own pages "
	       "(view v_kernel), in pages like the policies' counts.",
};

static int pick_sizes(char *list, const struct hs_session_info *info, uint64_t *out, size_t *n)
{
	uint64_t unit_bytes = 0;
	char *items[MAX_SIZES];
	int nr, i;

	if (!strcmp(info->unit, "page"))
		unit_bytes = 4096;
	else if (!strcmp(info->unit, "block"))
		unit_bytes = 512;
	nr = hs_split_list(list, items, MAX_SIZES);
	if (nr <= 0) {
		hs_err("--size: expected a comma-separated list of at most %d sizes", MAX_SIZES);
		return HS_EXIT_USAGE;
	}
	for (i = 0; i < nr; i++) {
		size_t len = strlen(items[i]);

		if (len > 1 && items[i][len - 1] == '%') {
			double pct;

			items[i][len - 1] = '\0';
			if (hs_parse_double(items[i], 0, 100, &pct) || pct <= 0) {
				hs_err("--size '%s%%': expected a share in (0, 100]%%", items[i]);
				return HS_EXIT_USAGE;
			}
			out[i] = (uint64_t)llround(pct / 100.0 * (double)info->distinct_keys);
			if (out[i] == 0)
				out[i] = 1;
		} else if (hs_parse_size(items[i], unit_bytes, 1, UINT32_MAX, &out[i])) {
			hs_err("--size '%s': expected a count of %ss from 1 to %u%s", items[i],
			       info->unit, UINT32_MAX,
			       unit_bytes ? " or a size such as 64M" : "");
			return HS_EXIT_USAGE;
		}
	}
	*n = (size_t)nr;
	return 0;
}

/*
 * No --size: a recorded session replays at its cgroup's memory limit, or at
 * its peak usage when it ran without one, so that the kernel's truth and the
 * simulation sit side by side.  Other sessions need --size.
 */
static int default_size(const struct hs_session_info *info, uint64_t *out, size_t *n)
{
	uint64_t pages = info->memory_limit_pages ? info->memory_limit_pages : info->peak_pages;

	if (!pages) {
		hs_err("missing --size (e.g. --size 1000,5000): session %" PRId64 " has no"
		       " recorded memory limit", info->id);
		return HS_EXIT_USAGE;
	}
	out[0] = HS_MIN(pages, (uint64_t)UINT32_MAX);
	*n = 1;
	hs_info("no --size: capacity %" PRIu64 " pages, session %" PRId64 "'s %s", out[0],
		info->id, info->memory_limit_pages ? "memory limit" : "peak usage");
	return 0;
}

/* Short "k=v,k=v" of the parameters given on the command line for this run. */
static void make_label(struct plan *p, const struct param_arg *const *set, const int *pick,
		       int nr)
{
	size_t off = (size_t)snprintf(p->label, sizeof(p->label), "%s", p->ops->name);

	for (int i = 0; i < nr && off < sizeof(p->label); i++)
		off += (size_t)snprintf(p->label + off, sizeof(p->label) - off, "%s%s=%s",
					i ? "," : "(", set[i]->key, set[i]->values[pick[i]]);
	if (nr && off < sizeof(p->label))
		snprintf(p->label + off, sizeof(p->label) - off, ")");
}

/* Does the driver's pageout mode reach this run (and so join its params)? */
static bool pageout_applies(const struct plan *p, const struct args *a)
{
	return a->pageout > HS_PAGEOUT_IGNORE_REFS && !hs_policy_has_pageout(p->ops);
}

/*
 * The run's params: its policy's typed parameters, and, when a driver
 * pageout mode other than the default reaches the policy, "pageout" (and
 * "recheck_window" for recheck), so that stored runs of different modes
 * stay apart.
 */
static int make_params_json(struct plan *p, const struct args *a)
{
	struct hs_json j;
	int err;

	/* Without the session's TLB events the model cannot run: its params say so. */
	if (a->tlb_absent && (p->ops->flags & HS_POLICY_TLB)) {
		char why[128];

		err = hs_param_set_parse(p->ps, "tlb", "false", why, sizeof(why));
		if (err)
			return err;
	}
	err = hs_json_init_mem(&j, 0);
	if (err)
		return err;
	hs_json_object(&j);
	hs_param_set_json_members(p->ps, &j);
	if (!a->tlb_absent && (p->ops->flags & HS_POLICY_TLB) && hs_param_bool(p->ps, "tlb")) {
		hs_json_key(&j, "tlb_entries");		/* the model's bound, 0: none */
		hs_json_uint(&j, a->tlb_entries == UINT32_MAX ? 0 : a->tlb_entries);
	}
	if (pageout_applies(p, a)) {
		hs_json_key(&j, "pageout");
		hs_json_str(&j, hs_pageout_mode_name((enum hs_pageout_mode)a->pageout));
		if (a->pageout == HS_PAGEOUT_RECHECK) {
			hs_json_key(&j, "recheck_window");
			hs_json_uint(&j, a->recheck_window);
		}
	}
	if (a->folios && hs_policy_folio_pages(p->ops)) {	/* a folio is one entity */
		hs_json_key(&j, "folios");
		hs_json_bool(&j, true);
	}
	if (a->damon_deprio > 0) {	/* the DAMON model changes every kernel model's run */
		hs_json_key(&j, "damon_deprio");
		hs_json_real(&j, a->damon_deprio);
		hs_json_key(&j, "damon_interval_ms");
		hs_json_uint(&j, (a->damon_interval_ns ?: HS_DAMON_INTERVAL_NS) / 1000000);
	}
	if (a->damon_regions) {
		hs_json_key(&j, "damon_model");
		hs_json_str(&j, a->damon_recorded ? "recorded" : "regions");
		if (!a->damon_recorded) {
			hs_json_key(&j, "damon_quota_mib");
			hs_json_uint(&j, a->damon_quota >> 20);
			hs_json_key(&j, "damon_pace");
			hs_json_uint(&j, a->damon_pace ? a->damon_pace : 1);
		}
	}
	if ((a->damon_deprio > 0 || a->damon_regions) && a->damon_min_age_ns) {
		hs_json_key(&j, "damon_min_age_ms");
		hs_json_uint(&j, a->damon_min_age_ns / 1000000);
	}
	hs_json_end(&j);
	return hs_json_take(&j, &p->params_json);
}

/*
 * The same pageout mode joins the run's label, after the parameters given
 * on the command line (the label ends in ')' or has no parentheses yet).
 */
static void add_pageout_label(struct plan *p, const struct args *a)
{
	size_t ll = strlen(p->label);
	char lab[96];
	bool more;

	if (!pageout_applies(p, a))
		return;
	if (a->pageout == HS_PAGEOUT_RECHECK)
		snprintf(lab, sizeof(lab), "pageout=recheck,recheck_window=%" PRIu64,
			 a->recheck_window);
	else
		snprintf(lab, sizeof(lab), "pageout=%s",
			 hs_pageout_mode_name((enum hs_pageout_mode)a->pageout));
	more = ll && p->label[ll - 1] == ')';
	if (more)
		ll--;
	/* A label too long is cut, as make_label() cuts it. */
	if (snprintf(p->label + ll, sizeof(p->label) - ll, "%c%s)", more ? ',' : '(', lab) < 0)
		p->label[ll] = '\0';
}

/*
 * Every parameter combination for one policy: the cartesian product of the
 * value lists given for it.  Appends to plans (one per combination and size).
 */
static int plan_policy(const struct hs_policy_ops *ops, const struct args *a,
		       const uint64_t *sizes, size_t nr_sizes, struct plan **plans, size_t *nr,
		       size_t *cap)
{
	const struct param_arg *mine[MAX_PARAMS];
	int pick[MAX_PARAMS] = { 0 };
	int nr_mine = 0, i;
	char err[256];

	for (i = 0; i < a->nr_params; i++)
		if (!strcmp(a->params[i].policy, ops->name))
			mine[nr_mine++] = &a->params[i];
	for (;;) {
		struct hs_param_set *ps = NULL;
		int ret = hs_param_set_new(ops->params, &ps);

		if (ret) {
			hs_err("%s: %s", ops->name, strerror(-ret));
			return HS_EXIT_FAILURE;
		}
		for (i = 0; i < nr_mine; i++) {
			if (hs_param_set_parse(ps, mine[i]->key, mine[i]->values[pick[i]], err,
					       sizeof(err))) {
				hs_err("--param %s.%s: %s", ops->name, mine[i]->key, err);
				hs_param_set_free(ps);
				return HS_EXIT_USAGE;
			}
		}
		for (size_t s = 0; s < nr_sizes; s++) {
			struct plan *p;

			if (*nr == *cap) {
				size_t nc = *cap ? *cap * 2 : 32;
				struct plan *np = realloc(*plans, nc * sizeof(*np));

				if (!np) {
					hs_param_set_free(ps);
					hs_err("out of memory");
					return HS_EXIT_FAILURE;
				}
				*plans = np;
				*cap = nc;
			}
			p = &(*plans)[(*nr)++];
			memset(p, 0, sizeof(*p));
			p->ops = ops;
			p->capacity = sizes[s];
			make_label(p, mine, pick, nr_mine);
			add_pageout_label(p, a);
			/* Each plan owns a set; the first size keeps ps, others copy it. */
			if (s == 0) {
				p->ps = ps;
			} else {
				ret = hs_param_set_new(ops->params, &p->ps);
				for (i = 0; !ret && i < nr_mine; i++)
					ret = hs_param_set_parse(p->ps, mine[i]->key,
								 mine[i]->values[pick[i]], err,
								 sizeof(err));
				if (ret) {
					hs_err("%s: cannot copy parameters", ops->name);
					return HS_EXIT_FAILURE;
				}
			}
			if (make_params_json(p, a)) {
				hs_err("out of memory");
				return HS_EXIT_FAILURE;
			}
		}
		/* Next combination (odometer over the value lists). */
		for (i = 0; i < nr_mine; i++) {
			if (++pick[i] < mine[i]->nr_values)
				break;
			pick[i] = 0;
		}
		if (i == nr_mine)
			return 0;
	}
}

static int check_param_policies(const struct args *a, const struct hs_policy_ops *const *pols,
				size_t nr_pols)
{
	for (int i = 0; i < a->nr_params; i++) {
		size_t k;

		if (!hs_cli_find_policy("--param: ", a->params[i].policy))
			return HS_EXIT_USAGE;
		for (k = 0; k < nr_pols; k++)
			if (!strcmp(pols[k]->name, a->params[i].policy))
				break;
		if (k == nr_pols) {
			hs_err("--param %s.%s: policy %s is not being replayed (add it to --policy)",
			       a->params[i].policy, a->params[i].key, a->params[i].policy);
			return HS_EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * --pageout skips policies that decide PAGEOUT hints themselves (HS_POLICY_OWN_PAGEOUT, each
 * with its own pageout parameter): say so (a warning if it reaches none).
 */
static void check_pageout_policies(const struct args *a, const struct hs_policy_ops *const *pols,
				   size_t nr_pols)
{
	static const char msg[] = "--pageout does not apply to %s: it has its own "
		"(--param %s.pageout)";
	size_t reached = 0, k;

	if (a->pageout < 0)
		return;
	for (k = 0; k < nr_pols; k++)
		reached += !hs_policy_has_pageout(pols[k]);
	for (k = 0; k < nr_pols; k++) {
		if (!hs_policy_has_pageout(pols[k]))
			continue;
		if (reached)
			hs_info(msg, pols[k]->name, pols[k]->name);
		else
			hs_warn(msg, pols[k]->name, pols[k]->name);
	}
}

#define COST_LOUD	(256ull << 20)	/* a larger estimate is shown without -v */

static double mib(uint64_t bytes)
{
	return (double)bytes / (1 << 20);
}

/*
 * Before the pass: what the runs together would take at once (lib/plan.c),
 * and the waves they replay in within the budget (--memory, else the
 * machine's available memory less a margin).  The estimate prints with -v
 * always; without it, for several runs when above COST_LOUD (42 runs on
 * P12's 3.2 M keys took 4.4 GB), and the waves whenever there are several,
 * so a sweep's memory is seen before it starts.  A run that does not fit
 * alone is a usage error under --memory (the limit was asked for); under
 * the default, a warning, and it replays in a wave of its own (the budget
 * is a guess of what the machine has, and the estimate may be high).
 */
static int plan_memory(const struct plan *plans, size_t nr, const struct hs_session_info *info,
		       const struct args *a, struct hs_plan *pl, struct hs_plan_run **out)
{
	uint64_t per_key = 0, resident = 0, avail = 0, bitmaps = 0;
	struct hs_plan_run *runs;
	char extra[256] = "";
	int err;

	*out = NULL;
	memset(pl, 0, sizeof(*pl));
	pl->keys = info->distinct_keys;
	pl->records = info->records;
	pl->budget = a->memory;
	if (!a->memory) {
		err = hs_plan_default_budget(getenv("HSCTL_TEST_MEMINFO"), &avail, &pl->budget);
		if (err) {
			hs_info("no MemAvailable in /proc/meminfo (%s): every run in one pass",
				strerror(-err));
			pl->budget = UINT64_MAX;
		} else {
			hs_info("replay: memory for the runs: %.1f MiB (MemAvailable %.1f MiB less"
				" a margin)", mib(pl->budget), mib(avail));
		}
	}
	runs = calloc(nr ? nr : 1, sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		uint64_t k, r;

		runs[i].ops = plans[i].ops;
		runs[i].capacity = plans[i].capacity;
		hs_plan_run_cost(plans[i].ops, &k, &r);
		per_key += k;
		if (hs_plan_uses_seq_keys(plans[i].ops, plans[i].capacity, info->distinct_keys))
			bitmaps++;	/* OPT's bitmap: no heap per resident key */
		else
			resident += r * HS_MIN(plans[i].capacity, info->distinct_keys);
	}
	err = hs_plan_make(pl, runs, nr);
	if (err) {
		free(runs);
		return err;
	}
	*out = runs;

	if (hs_global.verbose || (nr > 1 && pl->total > COST_LOUD)) {
		if (resident)
			snprintf(extra, sizeof(extra), " + %" PRIu64 " bytes for resident keys",
				 resident);
		if (pl->next_use)
			snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				 " + next uses: %u bytes x %" PRIu64 " records + %u bytes x %"
				 PRIu64 " keys + the keys kept: %u bytes x %" PRIu64 " records",
				 hs_plan_next_use_width(info->records), info->records,
				 hs_plan_next_use_width(info->records), info->distinct_keys,
				 HS_PLAN_KEPT_BYTES, info->records);
		if (bitmaps)
			snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				 " + %" PRIu64 " OPT run%s x 1 bit x records", bitmaps,
				 bitmaps == 1 ? "" : "s");
		(hs_global.verbose ? hs_info : hs_note)(
			"replay: %zu run%s over %" PRIu64 " keys: about %.1f MiB of memory"
			" (estimate: %.0f MiB + %" PRIu64 " keys x %" PRIu64 " bytes%s)", nr,
			nr == 1 ? "" : "s", info->distinct_keys, mib(pl->total), mib(pl->base),
			info->distinct_keys, per_key, extra);
	}
	if (pl->nr_alone && a->memory) {
		const struct hs_plan_run *r = &runs[pl->first_alone];

		hs_err("--memory %.1f MiB: %s at size %" PRIu64 " alone needs about %.1f MiB"
		       " (estimate, with the replay's own %.0f MiB%s)", mib(a->memory),
		       plans[pl->first_alone].label, r->capacity,
		       mib(pl->base + r->bytes + ((r->ops->flags & HS_POLICY_NEEDS_FUTURE) ?
						  pl->next_use : 0)),
		       mib(pl->base), (r->ops->flags & HS_POLICY_NEEDS_FUTURE) ?
		       " and the next uses" : "");
		return -E2BIG;
	}
	if (pl->nr_alone)
		hs_warn("%zu run%s not fit alone in the %.1f MiB available (MemAvailable %.1f MiB"
			" less a margin; see --memory), the first %s at size %" PRIu64 ": each"
			" replays in a wave of its own", pl->nr_alone, pl->nr_alone == 1 ? " does" :
			"s do", mib(pl->budget), mib(avail), plans[pl->first_alone].label,
			runs[pl->first_alone].capacity);
	if (pl->nr_waves > 1)
		(hs_global.verbose ? hs_info : hs_note)(
			"replay: %zu runs in %u waves within %.1f MiB%s, largest about %.1f MiB:"
			" one pass over the stream each", nr, pl->nr_waves, mib(pl->budget),
			a->memory ? "" : " (available memory less a margin)", mib(pl->peak));
	return 0;
}

/* What the replay's progress callback keeps: how far it got, and the display. */
struct replay_progress {
	struct hs_cli_progress	pr;
	bool			show;		/* stderr is a terminal */
	uint64_t		done;		/* records stepped so far in this wave */
	unsigned int		wave;		/* the wave being replayed, from 0 */
	unsigned int		nr_waves;	/* waves in the plan */
};

/* SIGINT or SIGTERM during the pass: the replay stops at the next chunk. */
static volatile sig_atomic_t replay_signal;

static void on_signal(int sig)
{
	replay_signal = sig;
}

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
	struct replay_progress *rp = arg;
	double el, rate;

	rp->done = done;
	/* over all the waves: each is one more pass over the stream */
	done += (uint64_t)rp->wave * total;
	total *= rp->nr_waves;
	if (!rp->show || !hs_cli_progress_due(&rp->pr, done >= total, &el))
		return;
	rate = el > 0 ? (double)done / el : 0;
	fprintf(stderr, "\rreplay: %5.1f%%  %.1fM records  %.1fM records/s  ETA %.0fs ",
		total ? 100.0 * (double)done / (double)total : 100.0, (double)done / 1e6,
		rate / 1e6, rate > 0 ? (double)(total - done) / rate : 0.0);
	if (rp->nr_waves > 1)
		fprintf(stderr, " wave %u/%u ", rp->wave + 1, rp->nr_waves);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

/* A count, or null when the kernel row has no capacity. */
static void out_capacity(struct hs_out *o, const struct hs_kernel_row *k)
{
	if (k->capacity)
		hs_out_uint(o, k->capacity);
	else
		hs_out_null(o);
}

static int print_table(const struct plan *plans, const struct hs_replay_job *jobs, size_t nr,
		       const double *gaps, const struct hs_session_info *info,
		       const struct hs_kernel_row *k)
{
	bool ra = false;	/* a run inserted readahead pages: show them */
	struct hs_out *o;
	int ret;

	for (size_t i = 0; i < nr; i++)
		ra |= !jobs[i].err && jobs[i].stats.readahead_pages;
	ra |= k && k->readahead_pages;
	if (hs_out_new(stdout, HS_FMT_TABLE, NULL, &o))
		return -ENOMEM;
	hs_out_column(o, "policy", HS_COL_STR, NULL);
	hs_out_column(o, "size", HS_COL_INT, NULL);
	hs_out_column(o, "hit%", HS_COL_REAL, "%.2f");
	hs_out_column(o, "misses", HS_COL_INT, NULL);
	hs_out_column(o, "refaults", HS_COL_INT, NULL);
	hs_out_column(o, "pingpong", HS_COL_INT, NULL);
	hs_out_column(o, "protected", HS_COL_INT, NULL);
	hs_out_column(o, "useful%", HS_COL_REAL, "%.1f");
	hs_out_column(o, "vs-opt", HS_COL_REAL, "%.3f");
	if (ra) {
		hs_out_column(o, "ra-pages", HS_COL_INT, NULL);
		hs_out_column(o, "ra-unused", HS_COL_INT, NULL);
	}
	if (k) {
		hs_out_str(o, "kernel");
		out_capacity(o, k);
		hs_out_null(o);
		hs_out_uint(o, k->demand_miss_pages);
		hs_out_uint(o, k->refault_pages);
		for (int c = 0; c < 4; c++)
			hs_out_null(o);
		if (ra) {
			hs_out_uint(o, k->readahead_pages);
			hs_out_uint(o, k->readahead_unused_pages);
		}
		hs_out_row_end(o);
	}
	for (size_t i = 0; i < nr; i++) {
		const struct hs_sim_stats *s = &jobs[i].stats;

		if (jobs[i].err)
			continue;
		hs_out_str(o, plans[i].label);
		hs_out_uint(o, plans[i].capacity);
		hs_out_real(o, 100.0 * ratio(s->hits, s->accesses));
		hs_out_uint(o, s->misses);
		hs_out_uint(o, s->refaults);
		hs_out_uint(o, s->pingpong_keys);
		hs_out_uint(o, s->prot.total);
		if (s->prot.useful + s->prot.wasted)
			hs_out_real(o, 100.0 * ratio(s->prot.useful, s->prot.useful + s->prot.wasted));
		else
			hs_out_null(o);
		if (isnan(gaps[i]))
			hs_out_null(o);
		else
			hs_out_real(o, gaps[i]);
		if (ra) {
			hs_out_uint(o, s->readahead_pages);
			hs_out_uint(o, s->readahead_unused);
		}
		hs_out_row_end(o);
	}
	printf("session %" PRId64 " (%s): %" PRIu64 " accesses, %" PRIu64
	       " distinct keys; size in %ss\n", info->id, info->name, info->accesses,
	       info->distinct_keys, info->unit);
	if (k)
		hs_cli_print_kernel_row(k);
	ret = hs_out_finish(o);
	hs_out_free(o);
	return ret;
}

/* Two runs at one size whose outcome no column of the table tells apart. */
static bool same_outcome(const struct plan *pa, const struct hs_replay_job *a,
			 const struct plan *pb, const struct hs_replay_job *b)
{
	const struct hs_sim_stats *x = &a->stats, *y = &b->stats;

	return pa->capacity == pb->capacity && x->accesses == y->accesses &&
	       x->hits == y->hits && x->misses == y->misses &&
	       x->cold_misses == y->cold_misses && x->evictions == y->evictions &&
	       x->refaults == y->refaults && x->hint_evictions == y->hint_evictions &&
	       x->pswpin == y->pswpin && x->pswpout == y->pswpout &&
	       x->pingpong_keys == y->pingpong_keys &&
	       x->pingpong_refaults == y->pingpong_refaults &&
	       x->peak_resident == y->peak_resident &&
	       !memcmp(x->refault_hist, y->refault_hist, sizeof(x->refault_hist));
}

/* The value of the policy's own metric @name, or NAN when it did not report it. */
static double metric(const struct hs_replay_job *job, const char *name)
{
	return hs_metrics_get(&job->metrics, name);
}

/*
 * Why a run of a group of identical rows gave what another policy gives,
 * when the run itself can tell: its state never diverged from its base.
 * Return: the words, in @buf, or NULL.
 */
static const char *same_reason(const struct plan *p, const struct hs_replay_job *job,
			       char *buf, size_t len)
{
	double set = metric(job, "hitshield.shields_set");
	double spent = metric(job, "hitshield.shields_spent");

	if (!strcmp(p->ops->name, "hitshield") && spent == 0) {
		snprintf(buf, len, "%s set %.0f shields and spent 0, so it ran as mglru",
			 p->label, set);
		return buf;
	}
	if (!strcmp(p->ops->name, "lrfu") && p->ps) {
		double lambda = hs_param_double(p->ps, "lambda");

		if (lambda == 1 || lambda == 0) {
			snprintf(buf, len, "%s is exactly %s", p->label,
				 lambda == 1 ? "LRU" : "LFU");
			return buf;
		}
	}
	return NULL;
}

/* Append to a note; a note longer than @len is cut (it only explains). */
static void note_add(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Print @s wrapped at blanks to 80 columns, continuation lines indented by 6. */
static void print_wrapped(const char *s)
{
	size_t col = 0, n;

	while (*s) {
		n = strcspn(s, " ");
		if (col && col + 1 + n > 80) {
			fputs("\n      ", stdout);
			col = 6;
		} else if (col) {
			putchar(' ');
			col++;
		}
		fwrite(s, 1, n, stdout);
		col += n;
		s += n;
		s += strspn(s, " ");
	}
	putchar('\n');
}

/*
 * After the table: one note per group of two or more runs at one size with
 * identical rows, naming them and, where the tool can know, why -- every
 * miss a first access (no eviction choice mattered), a variant whose own
 * mechanism never acted (HitShield with no shield spent), a parameter that
 * makes a policy another (LRFU's lambda of 1 or 0).  Otherwise it says that
 * no counter tells them apart.
 */
static void print_identical(const struct plan *plans, const struct hs_replay_job *jobs,
			    size_t nr)
{
	bool *seen = calloc(nr, sizeof(*seen));
	char why[160], note[4096];

	if (!seen)
		return;
	for (size_t i = 0; i < nr; i++) {
		const struct hs_sim_stats *s = &jobs[i].stats;
		bool any_reason = false;
		size_t n = 1;

		if (seen[i] || jobs[i].err)
			continue;
		for (size_t j = i + 1; j < nr; j++)
			if (!seen[j] && !jobs[j].err &&
			    same_outcome(&plans[i], &jobs[i], &plans[j], &jobs[j]))
				seen[j] = true, n++;
		if (n < 2)
			continue;
		note[0] = '\0';
		note_add(note, sizeof(note), "note: identical rows at size %" PRIu64 ": %s",
			 plans[i].capacity, plans[i].label);
		for (size_t j = i + 1; j < nr; j++)
			if (seen[j] && same_outcome(&plans[i], &jobs[i], &plans[j], &jobs[j]))
				note_add(note, sizeof(note), " = %s", plans[j].label);
		if (s->misses == s->cold_misses) {
			note_add(note, sizeof(note), "; every miss was a key's first access (%"
				 PRIu64 " cold misses): no eviction choice mattered",
				 s->cold_misses);
			any_reason = true;
		} else {
			for (size_t j = i; j < nr; j++) {
				if ((j == i || seen[j]) && !jobs[j].err &&
				    same_outcome(&plans[i], &jobs[i], &plans[j], &jobs[j]) &&
				    same_reason(&plans[j], &jobs[j], why, sizeof(why))) {
					note_add(note, sizeof(note), "; %s", why);
					any_reason = true;
				}
			}
		}
		if (!any_reason)
			note_add(note, sizeof(note), "; no counter tells them apart: they evicted"
				 " alike on this trace");
		print_wrapped(note);
	}
	free(seen);
}

/*
 * The nested per-run numbers as JSON values: protection per kind, the refault
 * distance histogram ([lo, hi) buckets with a count) and the policy's own
 * metrics.  JSON only: a CSV cell holds one value, not a list or a map, so
 * CSV leaves them out (stored, they are rows of run_protection, v_refaults
 * and run_metrics).
 */
static int json_extras(struct hs_out *o, const struct hs_replay_job *job)
{
	const struct hs_sim_stats *s = &job->stats;
	struct hs_json j;
	char *text = NULL;
	int k, err;

	for (int part = 0; part < 3; part++) {
		err = hs_json_init_mem(&j, 0);
		if (err)
			return err;
		if (part == 0) {
			hs_json_object(&j);
			for (k = 0; k < HS_PROT_NR; k++) {
				const struct hs_prot_stats *p = &s->prot_kind[k];

				if (!p->total)
					continue;
				hs_json_key(&j, hs_prot_kind_name((enum hs_prot_kind)k));
				hs_json_object(&j);
				hs_json_key(&j, "total");
				hs_json_uint(&j, p->total);
				hs_json_key(&j, "useful");
				hs_json_uint(&j, p->useful);
				hs_json_key(&j, "wasted");
				hs_json_uint(&j, p->wasted);
				hs_json_end(&j);
			}
		} else if (part == 1) {
			hs_json_array(&j);
			for (k = 0; k < HS_HIST_BUCKETS; k++) {
				if (!s->refault_hist[k])
					continue;
				hs_json_object(&j);
				hs_json_key(&j, "lo");
				hs_json_uint(&j, k ? 1ull << (k - 1) : 0);
				hs_json_key(&j, "hi");
				hs_json_uint(&j, 1ull << k);
				hs_json_key(&j, "count");
				hs_json_uint(&j, s->refault_hist[k]);
				hs_json_end(&j);
			}
		} else {
			hs_json_object(&j);
			for (size_t m = 0; m < job->metrics.n; m++) {
				hs_json_key(&j, job->metrics.m[m].name);
				hs_json_real(&j, job->metrics.m[m].value);
			}
		}
		hs_json_end(&j);
		err = hs_json_take(&j, &text);
		if (err)
			return err;
		hs_out_json(o, text);
		free(text);
		text = NULL;
	}
	return 0;
}

/*
 * The kernel row of the machine formats: the columns of cols[] in print_machine()
 * that apply to the kernel hold its page counts, the others are null.
 */
static void machine_kernel_row(struct hs_out *o, const struct hs_kernel_row *k, int64_t session,
			       bool nested)
{
	hs_out_null(o);				/* run */
	hs_out_int(o, session);
	hs_out_str(o, "kernel");
	hs_out_null(o);				/* params */
	out_capacity(o, k);
	hs_out_null(o);				/* accesses */
	hs_out_null(o);				/* hits */
	hs_out_uint(o, k->demand_miss_pages);	/* misses */
	hs_out_null(o);				/* hit_ratio */
	hs_out_uint(o, k->evicted_pages);	/* evictions */
	hs_out_uint(o, k->refault_pages);	/* refaults */
	for (int c = 0; c < 9; c++)		/* pingpong_keys .. drops */
		hs_out_null(o);
	hs_out_uint(o, k->pswpin_pages);
	hs_out_uint(o, k->pswpout_pages);
	for (int c = 0; c < 4; c++)		/* pingpong_refaults .. opt_gap */
		hs_out_null(o);
	hs_out_uint(o, k->readahead_pages);
	hs_out_uint(o, k->readahead_unused_pages);
	hs_out_str(o, k->pswp_source);
	for (int c = 0; nested && c < 3; c++)	/* protection, refault_hist, metrics */
		hs_out_null(o);
	hs_out_row_end(o);
}

static int print_machine(const struct plan *plans, const struct hs_replay_job *jobs, size_t nr,
			 const double *gaps, const int64_t *ids, int64_t session,
			 const struct hs_kernel_row *k)
{
	static const char *const cols[] = {
		"run", "session", "policy", "params", "capacity", "accesses", "hits", "misses",
		"hit_ratio", "evictions", "refaults", "pingpong_keys", "protected",
		"protected_useful", "protected_wasted", "wall_s", "cold_misses",
		"hint_evictions", "hint_refaults", "drops", "pswpin", "pswpout",
		"pingpong_refaults", "peak_resident", "prot_occupancy", "opt_gap",
		"readahead_pages", "readahead_unused", "pswp_source", "protection", "refault_hist",
		"metrics",
	};
	/* the last NR_NESTED columns are JSON values: JSON output only */
	enum { NR_NESTED = 3 };
	bool nested = hs_global.format == HS_FMT_JSON;
	size_t ncols = ARRAY_SIZE(cols) - (nested ? 0 : NR_NESTED);
	struct hs_out *o;
	int ret = 0;

	if (hs_out_new(stdout, hs_global.format, "runs", &o))
		return -ENOMEM;
	for (size_t c = 0; c < ncols; c++) {
		enum hs_col_type t = HS_COL_INT;

		if (!strcmp(cols[c], "policy") || !strcmp(cols[c], "pswp_source"))
			t = HS_COL_STR;
		else if (!strcmp(cols[c], "params") || !strcmp(cols[c], "protection") ||
			 !strcmp(cols[c], "refault_hist") || !strcmp(cols[c], "metrics"))
			t = HS_COL_JSON;
		else if (!strcmp(cols[c], "hit_ratio") || !strcmp(cols[c], "wall_s") ||
			 !strcmp(cols[c], "prot_occupancy") || !strcmp(cols[c], "opt_gap"))
			t = HS_COL_REAL;
		hs_out_column(o, cols[c], t, t == HS_COL_REAL ? "%.6f" : NULL);
	}
	if (k)
		machine_kernel_row(o, k, session, nested);
	for (size_t i = 0; i < nr; i++) {
		const struct hs_sim_stats *s = &jobs[i].stats;

		if (jobs[i].err)
			continue;
		if (ids)
			hs_out_int(o, ids[i]);
		else
			hs_out_null(o);
		hs_out_int(o, session);
		hs_out_str(o, plans[i].ops->name);
		hs_out_json(o, plans[i].params_json);
		hs_out_uint(o, plans[i].capacity);
		hs_out_uint(o, s->accesses);
		hs_out_uint(o, s->hits);
		hs_out_uint(o, s->misses);
		hs_out_real(o, ratio(s->hits, s->accesses));
		hs_out_uint(o, s->evictions);
		hs_out_uint(o, s->refaults);
		hs_out_uint(o, s->pingpong_keys);
		hs_out_uint(o, s->prot.total);
		hs_out_uint(o, s->prot.useful);
		hs_out_uint(o, s->prot.wasted);
		hs_out_real(o, jobs[i].wall_s);
		hs_out_uint(o, s->cold_misses);
		hs_out_uint(o, s->hint_evictions);
		hs_out_uint(o, s->hint_refaults);
		hs_out_uint(o, s->drops);
		hs_out_uint(o, s->pswpin);
		hs_out_uint(o, s->pswpout);
		hs_out_uint(o, s->pingpong_refaults);
		hs_out_uint(o, s->peak_resident);
		hs_out_real(o, s->prot_occupancy);
		hs_out_real(o, gaps[i]);
		hs_out_uint(o, s->readahead_pages);
		hs_out_uint(o, s->readahead_unused);
		hs_out_null(o);		/* pswp_source: the kernel row's */
		ret = nested ? json_extras(o, &jobs[i]) : 0;
		if (ret)
			break;
		hs_out_row_end(o);
	}
	if (ret) {
		hs_out_free(o);
		return ret;
	}
	ret = hs_out_finish(o);
	hs_out_free(o);
	return ret;
}

/*
 * The kernel row of a recorded session (*@out, or NULL when there is none to
 * print): a session whose lives carry no workload mark was built before
 * hsctl knew the workload's pages, and says so.
 */
static int kernel_row(struct hs_store *st, const struct hs_session_info *info,
		      struct hs_kernel_row *row, struct hs_kernel_row **out)
{
	int err;

	*out = NULL;
	if (strcmp(info->source, "record"))
		return 0;
	err = hs_store_kernel_row(st, info->id, row);
	if (err == -ENOENT)
		return 0;
	if (err) {
		hs_err("%s: the kernel row: %s", hs_global.db,
		       err == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
		return hs_exit_from_errno(err);
	}
	if (!row->lives) {
		hs_warn("session %" PRId64 ": no life is marked as the workload's (built by an "
			"older hsctl?): no kernel row", info->id);
		return 0;
	}
	*out = row;
	return 0;
}

/*
 * kids[] and kgaps[] follow the runs that succeeded (recs[]); spread them
 * back over the plans: ids[i] and gaps[i] for plan i (NAN for a failed run).
 */
static void spread(const struct hs_replay_job *jobs, size_t nr, const int64_t *kids,
		   const double *kgaps, int64_t *ids, double *gaps, size_t k)
{
	for (size_t i = nr; i-- > 0;) {
		gaps[i] = NAN;
		if (jobs[i].err)
			continue;
		k--;
		ids[i] = kids[k];
		gaps[i] = kgaps[k];
	}
}

/*
 * Store the runs (*stored says whether they were); with @gaps, read their
 * stored OPT gaps back.  On failure print "hsctl: DB: runs not stored:
 * REASON" (the results are printed anyway) or the OPT gap's reason, and
 * return -errno.
 */
static int store_runs(struct hs_store *st, const struct hs_run_record *recs, size_t k,
		      int64_t *ids, double *gaps, bool *stored)
{
	int ret = k ? hs_store_save_runs(st, recs, k, ids) : 0;

	if (ret) {
		hs_err("%s: runs not stored: %s", hs_global.db,
		       ret == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
		return ret;
	}
	*stored = true;
	if (gaps) {
		ret = hs_store_run_opt_gaps(st, ids, k, gaps);
		if (ret)
			hs_err("%s: the OPT gap: %s", hs_global.db,
			       ret == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
	}
	return ret;
}

static int run(int argc, char **argv)
{
	const struct hs_policy_ops *pols[MAX_POLICIES];
	struct hs_replay_opts ro = { 0 };
	struct hs_replay_job *jobs = NULL, *wjobs = NULL;
	struct hs_plan_run *pruns = NULL;
	struct hs_run_record *recs = NULL;
	struct hs_plan pl;
	struct hs_session_info info;
	struct hs_kernel_row krow, *kr = NULL;
	struct replay_progress rp = { 0 };
	struct sigaction sa = { 0 }, old_int, old_term;
	struct hs_store *st = NULL;
	struct plan *plans = NULL;
	uint64_t sizes[MAX_SIZES];
	size_t nr_pols, nr_sizes, nr = 0, cap = 0, i, k = 0, *widx = NULL, kept = 0;
	int64_t *ids = NULL, *kids = NULL, session;
	double *gaps = NULL, *kgaps = NULL;
	struct args a = { .channel = -1, .pageout = -1 };
	struct hs_damon_stats dstats = { 0 };
	int status, ret = 0, failed = 0;
	unsigned int waves_done = 0;
	const char *test_raise;
	bool stored = false;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	status = hs_cli_parse_session(a.session, &session);
	if (status)
		return status;
	status = hs_cli_pick_policies(a.policies, NULL, "", pols, MAX_POLICIES,
				      &nr_pols);
	if (status)
		return status;
	status = check_param_policies(&a, pols, nr_pols);
	if (status)
		return status;
	check_pageout_policies(&a, pols, nr_pols);
	status = hs_cli_open_store(HS_STORE_NOCREATE | (a.no_store ? HS_STORE_RDONLY : 0), &st);
	if (status)
		return status;
	status = hs_cli_get_session(st, session, &info);
	if (status)
		goto out;
	if (strcmp(info.status, "complete"))
		hs_warn("session %" PRId64 " is %s: replaying what was recorded", session,
			info.status);
	for (i = 0; !strcmp(info.visibility, "faults") && i < nr_pols; i++) {
		static const char msg[] = "session %" PRId64 " saw faults only: %s ages on "
			"accessed bits, and touches after a page's first fault are invisible";

		if (pols[i]->flags & HS_POLICY_ACCESSED_BIT)
			hs_warn(msg, session, pols[i]->name);
	}
	if (info.accesses == 0) {
		hs_err("session %" PRId64 " has no accesses to replay", session);
		status = HS_EXIT_DATAERR;
		goto out;
	}
	if ((a.damon_deprio > 0 || a.damon_regions) && strcmp(info.source, "record")) {
		/* its intervals are trace-clock time, which only recordings store */
		hs_err("%s: session %" PRId64 " is %s, not recorded: it has no "
		       "trace-clock times", a.damon_recorded ? "--damon-model recorded" :
		       a.damon_regions ? "--damon-model regions" : "--damon-deprio", session,
		       !strcmp(info.source, "gen") ? "generated" : "imported");
		status = HS_EXIT_DATAERR;
		goto out;
	}
	for (i = 0; i < nr_pols && !(pols[i]->flags & HS_POLICY_TLB); i++)
		;
	if (i < nr_pols) {
		uint32_t entries;
		int err = hs_session_tlb_flushes(st, session, NULL, NULL, &entries);

		if (err && err != -ENODATA) {
			hs_err("session %" PRId64 ": TLB events: %s", session, hs_store_errmsg(st));
			status = HS_EXIT_FAILURE;
			goto out;
		}
		a.tlb_absent = err == -ENODATA;
		if (!a.tlb_entries)
			a.tlb_entries = entries ? entries : UINT32_MAX;
	}
	if (!a.no_folios && !strcmp(info.source, "record")) {
		int lf = hs_session_large_folios(st, session);

		if (lf < 0) {
			hs_err("session %" PRId64 ": %s", session, hs_store_errmsg(st));
			status = HS_EXIT_FAILURE;
			goto out;
		}
		a.folios = lf > 0;
	}
	if (a.sizes)
		status = pick_sizes(a.sizes, &info, sizes, &nr_sizes);
	else
		status = default_size(&info, sizes, &nr_sizes);
	if (status)
		goto out;
	for (i = 0; i < nr_pols; i++) {
		status = plan_policy(pols[i], &a, sizes, nr_sizes, &plans, &nr, &cap);
		if (status)
			goto out;
	}

	jobs = calloc(nr, sizeof(*jobs));
	wjobs = calloc(nr, sizeof(*wjobs));
	widx = calloc(nr, sizeof(*widx));
	recs = calloc(nr, sizeof(*recs));
	ids = calloc(nr, sizeof(*ids));
	kids = calloc(nr, sizeof(*kids));
	gaps = calloc(nr, sizeof(*gaps));
	kgaps = calloc(nr, sizeof(*kgaps));
	if (!jobs || !wjobs || !widx || !recs || !ids || !kids || !gaps || !kgaps) {
		hs_err("out of memory");
		status = HS_EXIT_FAILURE;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		jobs[i].ops = plans[i].ops;
		jobs[i].params = plans[i].ps;
		jobs[i].capacity = plans[i].capacity;
		if (a.log_evictions && hs_evlog_new(&jobs[i].evlog)) {
			hs_err("out of memory");
			status = HS_EXIT_FAILURE;
			goto out;
		}
	}
	status = kernel_row(st, &info, &krow, &kr);
	if (status)
		goto out;
	ro.threads = a.threads;
	ro.override_channel = a.channel >= 0;
	ro.channel = a.channel >= 0 ? a.channel : 0;
	ro.pageout = a.pageout >= 0 ? a.pageout : HS_PAGEOUT_IGNORE_REFS;
	ro.recheck_window = a.recheck_window;
	ro.no_readahead = a.no_readahead;
	ro.tlb_entries = a.tlb_entries;
	ro.ra_model = a.ra_model;
	ro.folios = a.folios;
	ro.damon_deprio = a.damon_deprio;
	ro.damon_interval_ns = a.damon_interval_ns;
	ro.damon_min_age_ns = a.damon_min_age_ns;
	ro.damon_regions = a.damon_regions;
	ro.damon_recorded = a.damon_recorded;
	ro.damon_quota_bytes = a.damon_quota;
	ro.damon_pace = a.damon_pace;
	ro.damon_stats = &dstats;
	ro.paranoid = a.paranoid;
	hs_cli_progress_start(&rp.pr);
	rp.show = isatty(STDERR_FILENO);
	ro.progress = show_progress;
	ro.progress_arg = &rp;
	ro.stop = &replay_signal;
	hs_info("replaying session %" PRId64 ": %zu runs", session, nr);
	ret = plan_memory(plans, nr, &info, &a, &pl, &pruns);
	if (ret) {
		if (ret == -ENOMEM)
			hs_err("out of memory");
		status = ret == -E2BIG ? HS_EXIT_USAGE : HS_EXIT_FAILURE;
		goto out;
	}
	rp.nr_waves = pl.nr_waves;
	test_raise = getenv("HSCTL_TEST_RAISE_AFTER_WAVE");
	/*
	 * The runs of a wave share one pass, so a Ctrl-C in the middle of it has
	 * no finished run of that wave to keep; the runs of the waves before
	 * have finished and are kept.  Catch the signal to say so, rather than
	 * die silently.  The store afterwards is one transaction, which a signal
	 * may end as it likes.
	 */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (unsigned int w = 0; w < pl.nr_waves; w++) {
		size_t m = 0;

		if (replay_signal) {		/* between two waves */
			rp.done = 0;
			ret = -EINTR;
			break;
		}
		for (i = 0; i < nr; i++)
			if (pruns[i].wave == w) {
				widx[m] = i;
				wjobs[m++] = jobs[i];
			}
		rp.wave = w;
		ret = hs_replay_session(st, session, wjobs, m, &ro);
		for (size_t j = 0; j < m; j++)
			jobs[widx[j]] = wjobs[j];
		if (ret)
			break;
		waves_done++;
		kept += m;
#ifdef __GLIBC__
		/*
		 * A wave's freed records leave glibc's heap holding memory the next
		 * wave may not reuse (after a large free, glibc raises its mmap
		 * threshold to 32 MiB, so the policies' arrays below that come from
		 * the heap): give it back, or each wave starts above the plan.
		 */
		malloc_trim(0);
#endif
		/* tests only (tests/cli/replay-waves.sh): a Ctrl-C between two waves */
		if (test_raise && strtoul(test_raise, NULL, 10) == waves_done)
			raise(SIGINT);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	hs_cli_progress_end(&rp.pr, 72);
	if (ret == -EINTR && pl.nr_waves == 1) {
		hs_err("replay interrupted by %s after %" PRIu64 " of %" PRIu64 " records (%.1f%%):"
		       " its %zu run%s share one pass over the stream and none had finished;"
		       " nothing was stored", replay_signal == SIGINT ? "SIGINT" : "SIGTERM",
		       rp.done, info.records,
		       info.records ? 100.0 * (double)rp.done / (double)info.records : 0.0,
		       nr, nr == 1 ? "" : "s");
		status = 128 + replay_signal;
		goto out;
	}
	if (ret == -EINTR && !waves_done) {
		hs_err("replay interrupted by %s in wave 1 of %u after %" PRIu64 " of %" PRIu64
		       " records (%.1f%%): no run had finished; nothing was stored",
		       replay_signal == SIGINT ? "SIGINT" : "SIGTERM", pl.nr_waves, rp.done,
		       info.records,
		       info.records ? 100.0 * (double)rp.done / (double)info.records : 0.0);
		status = 128 + replay_signal;
		goto out;
	}
	if (ret == -EINTR) {
		/* the waves not finished: their runs are dropped, not failed */
		for (i = 0; i < nr; i++)
			if (pruns[i].wave >= waves_done)
				jobs[i].err = -EINTR;
		hs_err("replay interrupted by %s in wave %u of %u after %" PRIu64 " of %" PRIu64
		       " records (%.1f%%): kept the %zu run%s of the finished waves, dropped the"
		       " other %zu", replay_signal == SIGINT ? "SIGINT" : "SIGTERM",
		       waves_done + 1, pl.nr_waves, rp.done, info.records,
		       info.records ? 100.0 * (double)rp.done / (double)info.records : 0.0, kept,
		       kept == 1 ? "" : "s", nr - kept);
	} else if (ret) {
		if (ret == -EBADMSG) {
			hs_err("session %" PRId64 ": the stored access stream is corrupt", session);
		} else if (ret == -ENODATA && a.damon_regions) {
			hs_err("--damon-model %s: %s", a.damon_recorded ? "recorded" : "regions",
			       hs_store_errmsg(st));
			status = HS_EXIT_DATAERR;
			goto out;
		} else if (ret == -ENODATA && a.damon_deprio > 0) {
			hs_err("--damon-deprio: session %" PRId64 "'s stream has no trace-clock "
			       "times", session);
			status = HS_EXIT_DATAERR;
			goto out;
		} else
			hs_err("session %" PRId64 ": %s", session,
			       ret == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
		status = hs_exit_from_errno(ret);
		goto out;
	}
	if (a.damon_recorded)	/* in the module's own counters' terms, to set beside them */
		hs_note("DAMON's recorded actions: cold: %" PRIu64 " regions, %.1f MiB, %" PRIu64
			" recorded pages deactivated; hot: %" PRIu64 " regions, %.1f MiB, %" PRIu64
			" recorded pages (not applied)", dstats.nr_cold_regions,
			(double)dstats.bytes_cold / 1048576.0, dstats.cold_pages,
			dstats.nr_hot_regions, (double)dstats.bytes_hot / 1048576.0,
			dstats.hot_pages);
	else if (a.damon_regions)
		hs_note("DAMON regions model: %" PRIu64 " aggregations, %u regions at the end over "
			"frames %#" PRIx64 "..%#" PRIx64 "; cold: %" PRIu64 " regions, %.1f MiB, "
			"%" PRIu64 " recorded pages deactivated, quota exceeded %" PRIu64 " times; "
			"hot: %" PRIu64 " regions, %.1f MiB, %" PRIu64 " recorded pages (not "
			"applied)", dstats.aggregations, dstats.nr_regions, dstats.pfn_lo,
			dstats.pfn_hi, dstats.nr_cold_regions,
			(double)dstats.bytes_cold / 1048576.0, dstats.cold_pages,
			dstats.cold_quota_exceeds, dstats.nr_hot_regions,
			(double)dstats.bytes_hot / 1048576.0, dstats.hot_pages);
	for (i = 0; i < nr; i++) {
		if (!jobs[i].err && jobs[i].evlog)
			jobs[i].err = hs_evlog_finish(jobs[i].evlog);
		if (!jobs[i].err || jobs[i].err == -EINTR)
			continue;
		failed++;
		if (jobs[i].err == -ENOSYS)
			hs_err("%s: not implemented", plans[i].label);
		else if (jobs[i].err == -EUCLEAN)
			hs_err("%s at size %" PRIu64 ": policy bug (rerun with --paranoid)",
			       plans[i].label, plans[i].capacity);
		else
			hs_err("%s at size %" PRIu64 ": %s", plans[i].label, plans[i].capacity,
			       strerror(-jobs[i].err));
	}

	/* recs[] holds the runs that succeeded, in plan order */
	for (i = 0; i < nr; i++) {
		if (jobs[i].err)
			continue;
		recs[k].session = session;
		recs[k].policy = plans[i].ops->name;
		recs[k].params_json = plans[i].params_json;
		recs[k].params = plans[i].ps;
		recs[k].stats = &jobs[i].stats;
		recs[k].metrics = &jobs[i].metrics;
		recs[k].gens = jobs[i].gens;
		recs[k].nr_gens = jobs[i].nr_gens;
		recs[k].wall_s = jobs[i].wall_s;
		recs[k].evlog = jobs[i].evlog;
		k++;
	}
	/*
	 * The OPT gap as the store defines it: what the runs hold once stored
	 * (hs_store_opt_gaps() computes it from the session's stored runs), read
	 * back from the stored runs when the machine formats print run ids.
	 *
	 * The results print whatever happens to the store: the table before the
	 * runs are stored, the machine formats (which name each run's id) after,
	 * with a null id for runs that could not be stored.  A failed store
	 * (database locked by another writer, disk full) says so on stderr and
	 * exits 1, but loses no computed result.
	 */
	ret = hs_store_opt_gaps(st, recs, k, kgaps);
	if (ret) {
		hs_err("%s: the OPT gap: %s", hs_global.db,
		       ret == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
		status = HS_EXIT_FAILURE;
		goto out;
	}
	spread(jobs, nr, kids, kgaps, ids, gaps, k);
	if (hs_global.format == HS_FMT_TABLE) {
		ret = print_table(plans, jobs, nr, gaps, &info, kr);
		if (!ret)
			print_identical(plans, jobs, nr);
		fflush(stdout);
		if (!a.no_store && store_runs(st, recs, k, kids, NULL, &stored))
			failed++;
	} else {
		if (!a.no_store) {
			/* a failed read-back leaves the gaps computed above */
			if (store_runs(st, recs, k, kids, kgaps, &stored))
				failed++;
			if (stored)
				spread(jobs, nr, kids, kgaps, ids, gaps, k);
		}
		ret = print_machine(plans, jobs, nr, gaps, stored ? ids : NULL, session, kr);
	}
	if (ret && ret != -EIO)		/* a write error is reported at exit */
		hs_err("printing the results: %s",
		       ret == -ENOMEM ? "out of memory" : strerror(-ret));
	status = ret ? HS_EXIT_FAILURE : failed ? HS_EXIT_FAILURE : HS_EXIT_OK;
	if (replay_signal && waves_done < pl.nr_waves)
		status = 128 + replay_signal;
out:
	for (i = 0; i < nr; i++) {
		hs_param_set_free(plans[i].ps);
		free(plans[i].params_json);
		if (jobs) {
			free(jobs[i].gens);
			hs_evlog_free(jobs[i].evlog);
		}
	}
	free(plans);
	free(pruns);
	free(jobs);
	free(wjobs);
	free(widx);
	free(recs);
	free(ids);
	free(kids);
	free(gaps);
	free(kgaps);
	hs_store_close(st);
	return status;
}

const struct hs_cmd hs_cmd_replay = {
	.name = "replay",
	.summary = "Replay a session through policies at one or more sizes",
	.run = run,
};
