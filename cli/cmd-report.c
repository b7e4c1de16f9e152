/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl report: one self-contained HTML page about a session, for a paper
 * draft or a mailing-list reply.  Everything is inline (CSS, the charts as
 * SVG); there is no script and nothing is fetched, so the file reads the
 * same offline, in a mail client's viewer and in ten years.
 *
 * What it computes and what it reads.  The charts of the models are
 * computed here, never read from earlier runs: stored runs may have other
 * parameters, other sizes or an older hsctl, and a report must say exactly
 * what it shows.  The miss-ratio curves are those of hsctl mrc (LRU and OPT
 * in one stack pass where the stream allows it, the other policies replayed
 * at every size of the grid), and every policy is replayed once more at one
 * "detail" size (--at; for a recorded session its memory limit) for the
 * outcome, refault distances, ping-pong, protections and generations.  All
 * replays share one pass over the stream (lib/replay.c).  The kernel's side
 * of a recorded session is read from what the recorder stored: recordings,
 * record_checks, record_counters, folio_lives and lru_gen_snapshots.  The
 * database is opened read-only: a report stores nothing.
 *
 * The output is a function of the session and the options (no date, no
 * timings), so two reports of one session can be diffed.  Charts are drawn
 * by analyzers/plot.c, each policy in its one style (hs_cli_policy_style());
 * --svg-dir writes the same charts as standalone files.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "hs.h"
#include "lrugen.h"
#include "mrc.h"
#include "parse.h"
#include "plot.h"
#include "policy.h"
#include "replay.h"
#include "store.h"
#include "svg.h"

#define MAX_POLICIES		64
#define MAX_RUNS		1024	/* replay runs in one pass: each holds its keys */
#define DEFAULT_SIZES		"1..100%:16"
#define TIME_BINS		40	/* bins of the lives-over-time chart */

enum {
	OPT_SIZES = 0x100,
	OPT_AT,
	OPT_SVG_DIR,
	OPT_THREADS,
};

struct args {
	const char	*session;
	char		*policies;	/* --policy (default all) */
	const char	*sizes;		/* --sizes */
	const char	*at;		/* --at */
	const char	*output;	/* -o, NULL or "-": standard output */
	const char	*svg_dir;	/* --svg-dir */
	unsigned int	threads;
};

/* One policy: its curve and its run at the detail size. */
struct pol {
	const struct hs_policy_ops *ops;
	bool			stack;		/* curve from the stack pass */
	struct hs_mrc_point	*points;	/* one per grid size */
	struct hs_replay_job	*detail;	/* the run at the detail size */
};

/* The text of a page or a table cell being built: a growing buffer. */
struct buf {
	char	*p;
	size_t	len;
	size_t	cap;
	int	err;
};

static const struct argp_option options[] = {
	{ "policy", 'p', "P[,P...]", 0, "Policies, or 'all' (the default)", 0 },
	{ "sizes", OPT_SIZES, "SPEC", 0,
	  "The miss-ratio curves' sizes, as hsctl mrc --sizes (default " DEFAULT_SIZES ")", 0 },
	{ "at", OPT_AT, "SIZE", 0,
	  "The size of the detailed runs: N, N% or 64M (default: a recorded session's memory "
	  "limit or peak usage, else 25% of the distinct keys)", 0 },
	{ "output", 'o', "FILE", 0, "Write the HTML page to FILE (default: standard output)", 0 },
	{ "svg-dir", OPT_SVG_DIR, "DIR", 0,
	  "Also write each chart as a standalone SVG file into DIR (created if missing)", 0 },
	{ "threads", OPT_THREADS, "N", 0, "Replay worker threads (default: one per core)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	uint64_t v;

	switch (key) {
	case 'p':
		a->policies = arg;
		break;
	case OPT_SIZES:
		a->sizes = arg;
		break;
	case OPT_AT:
		a->at = arg;
		break;
	case 'o':
		a->output = arg;
		break;
	case OPT_SVG_DIR:
		a->svg_dir = arg;
		break;
	case OPT_THREADS:
		if (hs_parse_u64(arg, 1, 1024, &v))
			argp_error(state, "--threads '%s': expected a number from 1 to 1024", arg);
		a->threads = (unsigned int)v;
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

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "SESSION",
	.doc = "A self-contained HTML report of a session: the session, miss-ratio curves with "
	       "OPT as the floor, and per policy the outcome, refault distances, ping-pong, "
	       "protections and MGLRU generations; for recorded sessions the kernel beside "
	       "the models.  Inline SVG, no script, nothing fetched.\v"
	       "EXAMPLES:\n"
	       "    hsctl report 1 -o report.html\n"
	       "    hsctl report 1 --policy lru,opt,arc,mglru -o report.html --svg-dir charts\n"
	       "    hsctl report 1 --sizes 10%..100%/10% --at 100 >report.html\n"
	       "\nThe database is only read. Exit status: 0 done, 1 failure, 64 usage, "
	       "65 a session without accesses, 66 no such session or database, 69 FILE or "
	       "DIR not writable (permission). See hsctl-report(1).",
};

/* ---- text buffers ---- */

static void bgrow(struct buf *b, size_t need)
{
	size_t ncap = b->cap ? b->cap : 4096;
	char *np;

	if (b->err || need <= b->cap)
		return;
	while (ncap < need)
		ncap *= 2;
	np = realloc(b->p, ncap);
	if (!np) {
		b->err = -ENOMEM;
		return;
	}
	b->p = np;
	b->cap = ncap;
}

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = -EINVAL;
		return;
	}
	bgrow(b, b->len + (size_t)n + 1);
	if (b->err)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Text, escaped for HTML. */
static void besc(struct buf *b, const char *text)
{
	if (!b->err && hs_xml_escape(&b->p, &b->len, &b->cap, text ? text : ""))
		b->err = -ENOMEM;
}

/* ---- query results as text cells ---- */

struct rows {
	size_t	nrows;
	size_t	ncols;
	char	**cell;		/* nrows * ncols, NULL for SQL NULL */
	int	err;
};

static int rows_cb(const struct hs_sql_row *row, void *arg)
{
	struct rows *r = arg;
	char **nc, num[64];

	if (!r->ncols)
		r->ncols = row->ncols;
	nc = realloc(r->cell, (r->nrows + 1) * r->ncols * sizeof(*nc));
	if (!nc) {
		r->err = -ENOMEM;
		return 1;
	}
	r->cell = nc;
	for (size_t c = 0; c < r->ncols; c++) {
		const char *v = NULL;
		char **slot = &r->cell[r->nrows * r->ncols + c];

		switch (row->types[c]) {
		case HS_SQL_INT:
			snprintf(num, sizeof(num), "%" PRId64, row->ints[c]);
			v = num;
			break;
		case HS_SQL_REAL:
			snprintf(num, sizeof(num), "%.17g", row->reals[c]);
			v = num;
			break;
		case HS_SQL_TEXT:
		case HS_SQL_BLOB:
			v = row->texts[c];
			break;
		default:
			break;
		}
		*slot = v ? strdup(v) : NULL;
		if (v && !*slot)
			r->err = -ENOMEM;
	}
	r->nrows++;
	return r->err ? 1 : 0;
}

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->nrows * r->ncols; i++)
		free(r->cell[i]);
	free(r->cell);
	memset(r, 0, sizeof(*r));
}

/* Run @fmt (a printf format for the SQL) into @r: 0 or -errno. */
static int query(struct hs_store *st, struct rows *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int query(struct hs_store *st, struct rows *r, const char *fmt, ...)
{
	char sql[2048];
	va_list ap;
	int ret;

	memset(r, 0, sizeof(*r));
	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	ret = hs_store_query(st, sql, rows_cb, r);
	if (!ret && r->err)
		ret = r->err;
	if (ret)
		rows_free(r);
	return ret;
}

static const char *cell(const struct rows *r, size_t row, size_t col)
{
	return row < r->nrows && col < r->ncols ? r->cell[row * r->ncols + col] : NULL;
}

static double cell_num(const struct rows *r, size_t row, size_t col)
{
	const char *c = cell(r, row, col);

	return c ? strtod(c, NULL) : NAN;
}

/* ---- the policies' definitions of a protection ---- */

/*
 * What hs_sim_protect() means in each policy, as its file's essay says: the
 * same counter stands for different decisions, and the table must say
 * which.  A policy not listed here is described by its protection kinds.
 */
static const struct {
	const char *policy, *text;
} prot_defs[] = {
	{ "arc", "a T2 page that plain LRU would have evicted first: REPLACE took from "
		 "T1 while T2 held an older page (recency vs frequency split)" },
	{ "car", "the clock hand found the page's reference bit set and spared it "
		 "(moved T1 to T2, or rotated it in T2)" },
	{ "cart", "a hand found the reference bit set and spared the page (T2 head back "
		  "to T1, T1 head rotated)" },
	{ "clock", "second chance: the hand found the reference bit set, cleared it and "
		   "rotated the page instead of evicting it" },
	{ "clock-pro", "HAND_cold spared a referenced cold page (promotion or a new test "
		       "period), or HAND_hot cleared a hot page's bit instead of demoting it" },
	{ "fifo", "none: FIFO spares nothing" },
	{ "hitshield", "MGLRU's protections, plus a shield spent: sort_folio() found the "
		       "shield bit set and moved the folio to min_seq + 1 instead of "
		       "evicting it" },
	{ "linux-2q", "shrink_inactive_list() isolated the folio, then kept or activated "
		      "it because of a reference (folio_check_references), or a PAGEOUT "
		      "re-check kept it" },
	{ "lirs", "a resident HIR block hit while in the stack S was promoted to LIR and "
		  "left Q, the only place victims come from" },
	{ "lrfu", "none: LRFU reports no protections" },
	{ "lru", "none: LRU spares nothing" },
	{ "mglru", "at eviction, sort_folio() moved a folio to a younger generation "
		   "(promoted, or tier-protected by the PID controller), or the reference "
		   "check found its accessed bit set" },
	{ "opt", "none: OPT evicts the page needed furthest in the future" },
	{ "two-q", "none: 2Q spares nothing it had chosen" },
};

static const char *prot_def(const char *policy)
{
	for (size_t i = 0; i < ARRAY_SIZE(prot_defs); i++)
		if (!strcmp(prot_defs[i].policy, policy))
			return prot_defs[i].text;
	return NULL;
}

/* ---- computing the curves and the detailed runs ---- */

static int compute(struct hs_store *st, const struct hs_session_info *info, struct pol *pl,
		   size_t np, const uint64_t *sizes, size_t ns, uint64_t at, unsigned int threads)
{
	struct hs_replay_opts ro = { .threads = threads };
	uint64_t *lru = NULL, *opt = NULL;
	struct hs_replay_job *jobs;
	size_t nr = 0, j = 0;
	struct hs_mrc_stack out;
	int ret = 0;

	for (size_t i = 0; i < np; i++)
		nr += (pl[i].stack ? 0 : ns) + 1;
	jobs = calloc(nr, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	for (size_t i = 0; i < np; i++) {
		for (size_t s = 0; !pl[i].stack && s < ns; s++, j++) {
			jobs[j].ops = pl[i].ops;
			jobs[j].capacity = sizes[s];
		}
		jobs[j].ops = pl[i].ops;
		jobs[j].capacity = at;
		j++;
	}
	hs_info("replaying session %" PRId64 ": %zu runs", info->id, nr);
	ret = hs_replay_session(st, info->id, jobs, nr, &ro);
	for (size_t i = 0, k = 0; !ret && i < np; i++) {
		for (size_t s = 0; s <= (pl[i].stack ? 0 : ns); s++, k++) {
			if (jobs[k].err) {
				hs_err("%s at size %" PRIu64 ": %s", pl[i].ops->name,
				       jobs[k].capacity, jobs[k].err == -EUCLEAN ? "policy bug" :
				       strerror(-jobs[k].err));
				ret = jobs[k].err;
				break;
			}
			if (s < ns && !pl[i].stack) {
				pl[i].points[s].hits = jobs[k].stats.hits;
				pl[i].points[s].misses = jobs[k].stats.misses;
				continue;
			}
			pl[i].detail = malloc(sizeof(*pl[i].detail));
			if (!pl[i].detail) {
				ret = -ENOMEM;
				break;
			}
			*pl[i].detail = jobs[k];
			jobs[k].gens = NULL;	/* moved */
		}
	}
	for (j = 0; j < nr; j++)
		free(jobs[j].gens);
	free(jobs);
	if (ret)
		return ret;

	/* The stack curves. */
	for (size_t i = 0; !ret && i < np; i++) {
		uint64_t **h;

		if (!pl[i].stack)
			continue;
		h = !strcmp(pl[i].ops->name, "lru") ? &lru : &opt;
		*h = calloc(ns, sizeof(**h));
		if (!*h)
			ret = -ENOMEM;
	}
	if (!ret && (lru || opt))
		ret = hs_mrc_stack_session(st, info->id, sizes, ns, lru, opt, &out);
	for (size_t i = 0; !ret && i < np; i++) {
		uint64_t *h = !pl[i].stack ? NULL : !strcmp(pl[i].ops->name, "lru") ? lru : opt;

		for (size_t s = 0; h && s < ns; s++) {
			pl[i].points[s].hits = h[s];
			pl[i].points[s].misses = out.accesses - h[s];
		}
	}
	free(lru);
	free(opt);
	return ret;
}

/* ---- the page ---- */

struct report {
	struct buf		html;
	const char		*svg_dir;
	int			svg_err;	/* first failure writing into svg_dir */
	char			svg_errmsg[4352];
	const struct hs_session_info *info;
	struct pol		*pl;
	size_t			np;
	const uint64_t		*sizes;
	size_t			ns;
	uint64_t		at;
	bool			recorded;
	unsigned int		figure;
};

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fwrite(text, 1, len, f) != len)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err ? err : 0;
}

/* Draw @p into the page as figure N with @caption, and as DIR/NAME.svg. */
static void figure(struct report *r, const struct hs_plot *p, const char *name,
		   const char *caption)
{
	char *svg = NULL, path[4096];
	size_t len;
	int ret;

	ret = hs_plot_svg(p, &svg, &len);
	if (ret) {
		r->html.err = ret;
		return;
	}
	r->figure++;
	bprintf(&r->html, "<figure id=\"%s\">\n%s<figcaption>Figure %u. ", name, svg, r->figure);
	besc(&r->html, caption);
	bprintf(&r->html, "</figcaption>\n</figure>\n");
	if (r->svg_dir && !r->svg_err) {
		snprintf(path, sizeof(path), "%s/%s.svg", r->svg_dir, name);
		ret = write_file(path, svg, len);
		if (ret) {
			r->svg_err = ret;
			snprintf(r->svg_errmsg, sizeof(r->svg_errmsg), "%s: %s", path,
				 strerror(-ret));
		}
	}
	free(svg);
}

static const char css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:1000px;"
	"margin:1.5em auto;padding:0 1em;color:#111;line-height:1.4}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #999}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.92em}"
	"th,td{border:1px solid #bbb;padding:.2em .5em;vertical-align:top}"
	"th{background:#eee;text-align:left}td.n{text-align:right;font-variant-numeric:"
	"tabular-nums}figure{margin:1em 0}figcaption{font-size:.9em;color:#333}"
	"svg{max-width:100%;height:auto}p.note{font-size:.9em;color:#333}"
	"td.p{white-space:nowrap}svg.sw{vertical-align:middle}";

static void kv(struct report *r, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One row of a two-column table: key, value (the value escaped). */
static void kv(struct report *r, const char *k, const char *fmt, ...)
{
	char v[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	bprintf(&r->html, "<tr><th>");
	besc(&r->html, k);
	bprintf(&r->html, "</th><td>");
	besc(&r->html, v);
	bprintf(&r->html, "</td></tr>\n");
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : NAN;
}

/* A policy's name after a sample of its line, as the charts draw it, for tables. */
static void policy_cell(struct report *r, const struct hs_policy_ops *ops)
{
	const struct hs_plot_style *ps = hs_plot_style(hs_cli_policy_style(ops));

	bprintf(&r->html, "<td class=\"p\"><svg class=\"sw\" width=\"34\" height=\"10\" "
		"viewBox=\"0 0 34 10\" aria-hidden=\"true\"><line x1=\"0\" y1=\"5\" "
		"x2=\"34\" y2=\"5\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s/></svg> ",
		ps->color, ps->width, *ps->dash ? " stroke-dasharray=\"" : "", ps->dash,
		*ps->dash ? "\"" : "");
	besc(&r->html, ops->name);
	bprintf(&r->html, "</td>");
}

static void section_session(struct report *r, struct hs_store *st)
{
	const struct hs_session_info *in = r->info;
	struct rows q;

	bprintf(&r->html, "<h2>Session</h2>\n<table>\n");
	kv(r, "session", "%" PRId64, in->id);
	kv(r, "name", "%s", in->name);
	kv(r, "source", "%s", in->source);
	if (!query(st, &q, "SELECT origin FROM sessions WHERE id = %" PRId64, in->id)) {
		if (cell(&q, 0, 0))
			kv(r, "origin", "%s", cell(&q, 0, 0));
		rows_free(&q);
	}
	kv(r, "status", "%s", in->status);
	kv(r, "workload kind, channel", "%s, %s", in->kind, in->channel);
	kv(r, "accesses", "%" PRIu64 " (stream records with hints and drops: %" PRIu64 ")",
	   in->accesses, in->records);
	kv(r, "distinct keys", "%" PRIu64 " %ss", in->distinct_keys, in->unit);
	kv(r, "visibility", "%s", in->visibility);
	if (!r->recorded) {
		bprintf(&r->html, "</table>\n");
		return;
	}
	if (!query(st, &q, "SELECT kernel, lru_gen, coalesce(workload, '(a command)'), "
		   "cgroup, memory_limit_pages, peak_pages, lost_events, lost_gaps, "
		   "events_decoded, runtime_ns, workload_exit FROM recordings WHERE session = %"
		   PRId64, in->id) && q.nrows) {
		kv(r, "kernel", "%s (lru_gen %s)", cell(&q, 0, 0) ? cell(&q, 0, 0) : "?",
		   cell(&q, 0, 1) ? cell(&q, 0, 1) : "?");
		kv(r, "workload", "%s", cell(&q, 0, 2));
		if (cell(&q, 0, 4))
			kv(r, "memory limit", "%s pages (%.1f MiB)", cell(&q, 0, 4),
			   cell_num(&q, 0, 4) * 4096 / 1048576);
		else
			kv(r, "memory limit", "none");
		if (cell(&q, 0, 5))
			kv(r, "peak usage", "%s pages", cell(&q, 0, 5));
		kv(r, "run time", "%.2f s", cell_num(&q, 0, 9) / 1e9);
		kv(r, "events decoded", "%s", cell(&q, 0, 8) ? cell(&q, 0, 8) : "?");
		kv(r, "lost events", "%s (in %s gaps)", cell(&q, 0, 6) ? cell(&q, 0, 6) : "?",
		   cell(&q, 0, 7) ? cell(&q, 0, 7) : "?");
		kv(r, "workload exit", "%s", cell(&q, 0, 10) ? cell(&q, 0, 10) : "(signal)");
	}
	if (q.cell)
		rows_free(&q);
	bprintf(&r->html, "</table>\n");
	if (query(st, &q, "SELECT name, status, got, want, coalesce(note, '') FROM "
		  "record_checks WHERE session = %" PRId64 " ORDER BY name", in->id))
		return;
	bprintf(&r->html, "<p>The lifecycle builder's self-checks (what it joined from "
		"per-folio events against what the kernel counted):</p>\n<table>\n"
		"<tr><th>check</th><th>status</th><th>got</th><th>want</th><th>note</th></tr>\n");
	for (size_t i = 0; i < q.nrows; i++) {
		bprintf(&r->html, "<tr>");
		for (size_t c = 0; c < 5; c++) {
			bprintf(&r->html, c == 2 || c == 3 ? "<td class=\"n\">" : "<td>");
			besc(&r->html, cell(&q, i, c) ? cell(&q, i, c) : "");
			bprintf(&r->html, "</td>");
		}
		bprintf(&r->html, "</tr>\n");
	}
	bprintf(&r->html, "</table>\n");
	rows_free(&q);
}

static void section_mrc(struct report *r)
{
	struct hs_plot_series *sr = calloc(r->np, sizeof(*sr));
	double *x = calloc(r->ns, sizeof(*x)), *y = calloc(r->np * r->ns, sizeof(*y));
	char xlabel[96], mlabel[2][96], cap[512];
	struct hs_plot_mark marks[2];
	unsigned int nstack = 0;
	struct hs_plot p = { .title = "Miss-ratio curves", .xlabel = xlabel,
			     .ylabel = "miss ratio (% of accesses)", .ymin = 0, .ymax = 100,
			     .series = sr, .nr_series = r->np, .marks = marks };

	if (!sr || !x || !y) {
		r->html.err = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < r->ns; s++)
		x[s] = (double)r->sizes[s];
	for (size_t i = 0; i < r->np; i++) {
		for (size_t s = 0; s < r->ns; s++)
			y[i * r->ns + s] = pct(r->pl[i].points[s].misses, r->info->accesses);
		sr[i] = (struct hs_plot_series){ r->pl[i].ops->name,
						 hs_cli_policy_style(r->pl[i].ops), x,
						 y + i * r->ns, r->ns };
	}
	p.xlog = r->ns > 1 && x[r->ns - 1] > 20 * x[0];
	snprintf(xlabel, sizeof(xlabel), "memory size (%ss%s)", r->info->unit,
		 p.xlog ? ", log scale" : "");
	if (r->recorded && r->info->memory_limit_pages) {
		snprintf(mlabel[0], sizeof(mlabel[0]), "recorded limit (%" PRIu64 ")",
			 r->info->memory_limit_pages);
		marks[p.nr_marks++] = (struct hs_plot_mark){ (double)r->info->memory_limit_pages,
							     mlabel[0] };
	}
	if (!p.nr_marks || r->at != r->info->memory_limit_pages) {
		snprintf(mlabel[1], sizeof(mlabel[1]), "detail size (%" PRIu64 ")", r->at);
		marks[p.nr_marks++] = (struct hs_plot_mark){ (double)r->at, mlabel[1] };
	}
	bprintf(&r->html, "<h2>Miss-ratio curves</h2>\n<p>Misses as a share of the %" PRIu64
		" accesses at %zu sizes. OPT (Belady's MIN, demand paging) is the floor no "
		"policy can go below. ", r->info->accesses, r->ns);
	for (size_t i = 0; i < r->np; i++)
		if (r->pl[i].stack)
			bprintf(&r->html, "%s%s", nstack++ ? " and " : "The curves of ",
				r->pl[i].ops->name);
	bprintf(&r->html, "%s curve is one replay per size.</p>\n", nstack ?
		" are exact at every size (one stack pass over the session); every other" :
		"Every");
	snprintf(cap, sizeof(cap), "Miss ratio over memory size, %zu policies; the dashed "
		 "vertical line%s mark%s the size of the detailed runs below.", r->np,
		 p.nr_marks > 1 ? "s" : "", p.nr_marks > 1 ? "" : "s");
	figure(r, &p, "mrc", cap);
out:
	free(sr);
	free(x);
	free(y);
}

/* The kernel's outcome of a recorded session, as one table row. */
static void kernel_row(struct report *r, struct hs_store *st)
{
	int64_t id = r->info->id;
	struct rows q, c;
	const char *scope = NULL;
	double in = NAN, out = NAN;

	/* born: lives that began in the recording; evictions: every reclaim or pageout death */
	if (query(st, &q, "SELECT coalesce(sum(CASE WHEN born_ns IS NOT NULL THEN pages END), 0), "
		  "coalesce(sum(CASE WHEN born_ns IS NOT NULL AND accesses > 0 THEN pages END), "
		  "0), coalesce(sum(CASE WHEN refault THEN pages END), 0), "
		  "coalesce(sum(CASE WHEN death_cause IN (1, 2) THEN pages END), 0) FROM "
		  "folio_lives WHERE session = %" PRId64, id))
		return;
	if (!query(st, &c, "SELECT scope, name, delta FROM record_counters WHERE session = %"
		   PRId64 " AND name IN ('pswpin', 'pswpout') AND file IN ('memory.stat', "
		   "'vmstat') ORDER BY scope = 'cgroup' DESC, name", id)) {
		for (size_t i = 0; i < c.nrows; i++) {
			if (scope && strcmp(scope, cell(&c, i, 0)))
				break;
			scope = cell(&c, i, 0);
			if (!strcmp(cell(&c, i, 1), "pswpin"))
				in = cell_num(&c, i, 2);
			else
				out = cell_num(&c, i, 2);
		}
	}
	bprintf(&r->html, "<tr><td><b>kernel</b> (recorded)</td><td class=\"n\">%.0f pages "
		"born<br>%.0f of them accessed</td><td></td><td class=\"n\">%.0f</td>"
		"<td class=\"n\">%.0f</td><td class=\"n\">", cell_num(&q, 0, 0),
		cell_num(&q, 0, 1), cell_num(&q, 0, 3), cell_num(&q, 0, 2));
	if (isfinite(in))
		bprintf(&r->html, "%.0f", in);
	bprintf(&r->html, "</td><td class=\"n\">");
	if (isfinite(out))
		bprintf(&r->html, "%.0f", out);
	bprintf(&r->html, "</td><td></td></tr>\n");
	bprintf(&r->html, "</table>\n<p class=\"note\">The kernel row counts pages of folio "
		"lives: <i>born</i> is every page brought in during the recording (page cache "
		"insertions, readahead included, and anonymous faults); the second line is the "
		"pages of the lives the workload accessed, the nearest the kernel has to the "
		"models' misses (but a large folio counts all its pages, where a model misses "
		"one page at a time). Its evictions are the pages that died by reclaim or "
		"pageout, its refaults the pages of lives whose previous life ended that way. "
		"pswpin / pswpout are the %s counters%s.</p>\n",
		scope && !strcmp(scope, "cgroup") ? "cgroup's memory.stat" : "machine-wide vmstat",
		scope && !strcmp(scope, "cgroup") ? "" : " (other processes count too)");
	rows_free(&q);
	if (c.cell || c.nrows)
		rows_free(&c);
}

static void section_outcome(struct report *r, struct hs_store *st)
{
	bprintf(&r->html, "<h2>Outcome at %" PRIu64 " %ss</h2>\n<p>Each policy replayed once "
		"at the detail size%s.</p>\n<table>\n<tr><th>policy</th><th>misses</th>"
		"<th>miss ratio</th><th>evictions</th><th>refaults</th><th>pswpin</th>"
		"<th>pswpout</th><th>vs OPT</th></tr>\n", r->at, r->info->unit,
		r->recorded && r->at == r->info->memory_limit_pages ?
		", the recorded memory limit" : "");
	uint64_t opt_misses = 0;
	bool have_opt = false;

	for (size_t i = 0; i < r->np; i++)
		if (!strcmp(r->pl[i].ops->name, "opt")) {
			opt_misses = r->pl[i].detail->stats.misses;
			have_opt = true;
		}
	for (size_t i = 0; i < r->np; i++) {
		const struct hs_sim_stats *s = &r->pl[i].detail->stats;

		bprintf(&r->html, "<tr>");
		policy_cell(r, r->pl[i].ops);
		bprintf(&r->html, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.2f %%</td>"
			"<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">", s->misses, pct(s->misses, s->accesses), s->evictions,
			s->refaults, s->pswpin, s->pswpout);
		if (have_opt && opt_misses)
			bprintf(&r->html, "%.3f&times;", (double)s->misses / (double)opt_misses);
		bprintf(&r->html, "</td></tr>\n");
	}
	if (r->recorded)
		kernel_row(r, st);
	else
		bprintf(&r->html, "</table>\n");
}

static void section_lives(struct report *r, struct hs_store *st)
{
	static const char *const causes[] = { "born", "reclaim", "pageout", "truncate",
					      "unknown" };
	static const unsigned int aux[] = { HS_PLOT_AUX, HS_PLOT_AUX + 1, HS_PLOT_AUX + 4,
					    HS_PLOT_AUX + 2, HS_PLOT_AUX + 3 };
	double x[TIME_BINS], y[ARRAY_SIZE(causes)][TIME_BINS], span;
	struct hs_plot_series sr[ARRAY_SIZE(causes)];
	struct hs_plot p = { .title = "Folio lives: births and deaths by cause",
			     .xlabel = "time since the first event (s)",
			     .ylabel = "lives per interval", .ymin = NAN, .ymax = NAN,
			     .series = sr };
	struct rows q;
	int64_t id = r->info->id;
	char cap[256];

	if (query(st, &q, "WITH t AS (SELECT min(coalesce(born_ns, died_ns)) AS t0, "
		  "max(coalesce(died_ns, born_ns)) AS t1 FROM folio_lives WHERE session = %"
		  PRId64 ") SELECT t0, t1 FROM t", id))
		return;
	if (!q.nrows || !cell(&q, 0, 0)) {
		rows_free(&q);
		return;
	}
	span = cell_num(&q, 0, 1) - cell_num(&q, 0, 0) + 1;
	rows_free(&q);
	if (query(st, &q, "WITH t AS (SELECT min(coalesce(born_ns, died_ns)) AS t0, "
		  "max(coalesce(died_ns, born_ns)) AS t1 FROM folio_lives WHERE session = %"
		  PRId64 ") SELECT 0, (born_ns - t0) * %d / (t1 - t0 + 1), count(*) FROM "
		  "folio_lives, t WHERE session = %" PRId64 " AND born_ns IS NOT NULL GROUP BY 2 "
		  "UNION ALL SELECT death_cause, (died_ns - t0) * %d / (t1 - t0 + 1), count(*) "
		  "FROM folio_lives, t WHERE session = %" PRId64 " AND died_ns IS NOT NULL AND "
		  "death_cause BETWEEN 1 AND 4 GROUP BY 1, 2", id, TIME_BINS, id, TIME_BINS, id))
		return;
	memset(y, 0, sizeof(y));
	for (size_t b = 0; b < TIME_BINS; b++)
		x[b] = ((double)b + 0.5) * span / TIME_BINS / 1e9;
	for (size_t i = 0; i < q.nrows; i++) {
		double c = cell_num(&q, i, 0), b = cell_num(&q, i, 1);

		if (c >= 0 && c < (double)ARRAY_SIZE(causes) && b >= 0 && b < TIME_BINS)
			y[(size_t)c][(size_t)b] = cell_num(&q, i, 2);
	}
	rows_free(&q);
	for (size_t c = 0; c < ARRAY_SIZE(causes); c++) {
		bool any = false;

		for (size_t b = 0; b < TIME_BINS; b++)
			any |= y[c][b] > 0;
		if (!any && c > 1)
			continue;	/* keep born and reclaim, drop empty others */
		sr[p.nr_series++] = (struct hs_plot_series){ causes[c], aux[c], x, y[c],
							     TIME_BINS };
	}
	bprintf(&r->html, "<h2>The kernel: lives over time</h2>\n<p>Folio lives the lifecycle "
		"builder joined from the recorded events: births, and deaths by cause "
		"(reclaim: memcg, direct or kswapd reclaim; pageout: MADV_PAGEOUT or DAMON; "
		"truncate: removed for no reclaim reason), in %d intervals of %.3f s.</p>\n",
		TIME_BINS, span / TIME_BINS / 1e9);
	snprintf(cap, sizeof(cap), "Folio lives born and died per %.3f s interval, by death "
		 "cause (only causes that occur are drawn).", span / TIME_BINS / 1e9);
	figure(r, &p, "lives", cap);
}

static void section_refaults(struct report *r)
{
	struct hs_plot_series *sr = calloc(r->np, sizeof(*sr));
	double x[HS_HIST_BUCKETS], *y = calloc(r->np * HS_HIST_BUCKETS, sizeof(*y));
	struct hs_plot p = { .title = "Refault distances",
			     .xlabel = "refault distance (accesses, log2 bucket's upper end)",
			     .ylabel = "refaults", .xlog = true, .ymin = 0, .ymax = NAN,
			     .series = sr, .nr_series = r->np };
	size_t top = 1;
	char cap[256];

	if (!sr || !y) {
		r->html.err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->np; i++)
		for (size_t b = 0; b < HS_HIST_BUCKETS; b++)
			if (r->pl[i].detail->stats.refault_hist[b])
				top = HS_MAX(top, b + 1);
	for (size_t b = 0; b < top; b++)
		x[b] = ldexp(1, (int)b);	/* bucket b: [2^(b-1), 2^b), bucket 0: 0 */
	for (size_t i = 0; i < r->np; i++) {
		for (size_t b = 0; b < top; b++)
			y[i * HS_HIST_BUCKETS + b] = (double)r->pl[i].detail->stats.refault_hist[b];
		sr[i] = (struct hs_plot_series){ r->pl[i].ops->name,
			hs_cli_policy_style(r->pl[i].ops), x, y + i * HS_HIST_BUCKETS, top };
	}
	bprintf(&r->html, "<h2>Refaults and ping-pong at %" PRIu64 " %ss</h2>\n<p>A refault "
		"is a miss on a key the policy (or a PAGEOUT hint) evicted before; its "
		"distance is the number of accesses between the eviction and the refault. A "
		"ping-pong key was evicted and refaulted two times or more.</p>\n", r->at,
		r->info->unit);
	snprintf(cap, sizeof(cap), "Refaults by distance in log2 buckets (a point at 2^b "
		 "counts distances from 2^(b-1) to 2^b - 1) at %" PRIu64 " %ss.", r->at,
		 r->info->unit);
	figure(r, &p, "refault-distance", cap);
	bprintf(&r->html, "<table>\n<tr><th>policy</th><th>refaults</th><th>ping-pong keys</th>"
		"<th>their refaults</th><th>share of misses</th></tr>\n");
	for (size_t i = 0; i < r->np; i++) {
		const struct hs_sim_stats *s = &r->pl[i].detail->stats;

		bprintf(&r->html, "<tr>");
		policy_cell(r, r->pl[i].ops);
		bprintf(&r->html, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
			"</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.2f %%</td></tr>\n",
			s->refaults, s->pingpong_keys, s->pingpong_refaults,
			s->misses ? pct(s->pingpong_refaults, s->misses) : 0.0);
	}
	bprintf(&r->html, "</table>\n");
out:
	free(sr);
	free(y);
}

static void section_protection(struct report *r)
{
	bprintf(&r->html, "<h2>Protection at %" PRIu64 " %ss</h2>\n<p>A protection is a policy "
		"sparing a page it would otherwise have evicted; it was <i>useful</i> if the "
		"page was accessed again before it left memory, <i>wasted</i> if it left "
		"untouched, and is unresolved if the run ended first. The word covers "
		"different decisions in different policies: each row says what it counts "
		"there, so rows are not comparable as like for like.</p>\n<table>\n<tr><th>"
		"policy</th><th>what a protection is in this policy</th><th>protections</th>"
		"<th>useful</th><th>wasted</th><th>unresolved</th><th>by kind</th></tr>\n",
		r->at, r->info->unit);
	for (size_t i = 0; i < r->np; i++) {
		const struct hs_sim_stats *s = &r->pl[i].detail->stats;
		const char *def = prot_def(r->pl[i].ops->name);

		bprintf(&r->html, "<tr>");
		policy_cell(r, r->pl[i].ops);
		bprintf(&r->html, "<td>");
		besc(&r->html, def ? def : "(not described: see the policy's source)");
		bprintf(&r->html, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
			"</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td><td>",
			s->prot.total, s->prot.useful, s->prot.wasted,
			s->prot.total - s->prot.useful - s->prot.wasted);
		for (int k = 0; k < HS_PROT_NR; k++) {
			const struct hs_prot_stats *pk = &s->prot_kind[k];

			if (pk->total)
				bprintf(&r->html, "%s: %" PRIu64 " (%" PRIu64 " useful, %" PRIu64
					" wasted)<br>", hs_prot_kind_name(k), pk->total, pk->useful,
					pk->wasted);
		}
		bprintf(&r->html, "</td></tr>\n");
	}
	bprintf(&r->html, "</table>\n");
}

/* The kernel's lru_gen snapshots: the busiest memcg's generations over time. */
static void kernel_generations(struct report *r, struct hs_store *st)
{
	struct hs_plot_series sr[2];
	struct hs_plot p = { .title = "The kernel's generations (lru_gen snapshots)",
			     .xlabel = "time since the first snapshot (s)",
			     .ylabel = "generation sequence number", .ymin = NAN, .ymax = NAN,
			     .series = sr, .nr_series = 2 };
	double *x = NULL, *y = NULL;
	struct rows q;
	int64_t id = r->info->id;

	if (query(st, &q, "WITH m AS (SELECT memcg_id FROM lru_gen_snapshots WHERE session = %"
		  PRId64 " GROUP BY memcg_id ORDER BY sum(anon_pages + file_pages) DESC, "
		  "memcg_id LIMIT 1) SELECT ts_ns - (SELECT min(ts_ns) FROM lru_gen_snapshots "
		  "WHERE session = %" PRId64 "), max(seq), min(seq) FROM lru_gen_snapshots "
		  "WHERE session = %" PRId64 " AND memcg_id = (SELECT memcg_id FROM m) AND "
		  "anon_pages + file_pages > 0 GROUP BY ts_ns ORDER BY ts_ns", id, id, id))
		return;
	if (!q.nrows) {
		rows_free(&q);
		bprintf(&r->html, "<p>The session holds no lru_gen snapshots (the kernel had no "
			"multi-gen LRU, or it was off).</p>\n");
		return;
	}
	x = calloc(q.nrows, sizeof(*x));
	y = calloc(2 * q.nrows, sizeof(*y));
	if (!x || !y) {
		r->html.err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < q.nrows; i++) {
		x[i] = cell_num(&q, i, 0) / 1e9;
		y[i] = cell_num(&q, i, 1);
		y[q.nrows + i] = cell_num(&q, i, 2);
	}
	sr[0] = (struct hs_plot_series){ "kernel max_seq", HS_PLOT_AUX, x, y, q.nrows };
	sr[1] = (struct hs_plot_series){ "kernel oldest seq with pages", HS_PLOT_AUX + 1, x,
					 y + q.nrows, q.nrows };
	figure(r, &p, "lru-gen", "The kernel's youngest and oldest populated generation over "
	       "time, from /sys/kernel/debug/lru_gen during the recording (the memcg with "
	       "the most pages).");
out:
	free(x);
	free(y);
	rows_free(&q);
}

static void section_generations(struct report *r, struct hs_store *st)
{
	struct hs_plot_series *sr = calloc(2 * r->np, sizeof(*sr));
	struct hs_plot pmax = { .title = "Generations over time: max_seq",
				.xlabel = "accesses replayed",
				.ylabel = "max_seq (youngest generation)",
				.ymin = NAN, .ymax = NAN, .series = sr };
	struct hs_plot plive = { .title = "Live generations",
				 .xlabel = "accesses replayed",
				 .ylabel = "generations (max_seq - oldest min_seq + 1)",
				 .ymin = 0, .ymax = NAN };
	double **bufs = calloc(r->np, sizeof(*bufs));
	size_t ng = 0;
	bool shields = false;

	if (!sr || !bufs) {
		r->html.err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->np; i++) {
		const struct hs_replay_job *d = r->pl[i].detail;
		size_t n = d->nr_gens;
		double *b;

		if (!(r->pl[i].ops->flags & HS_POLICY_GEN_SERIES))
			continue;
		shields |= !isnan(hs_metrics_get(&d->metrics, "hitshield.shields_set"));
		b = bufs[i] = calloc(3 * (n ? n : 1), sizeof(*b));
		if (!b) {
			r->html.err = -ENOMEM;
			goto out;
		}
		for (size_t k = 0; k < n; k++) {
			const struct hs_gen_sample *g = &d->gens[k];

			b[k] = (double)g->seq;
			b[n + k] = (double)g->max_seq;
			b[2 * n + k] = (double)(g->max_seq + 1 -
						HS_MIN(g->min_seq[0], g->min_seq[1]));
		}
		sr[ng] = (struct hs_plot_series){ r->pl[i].ops->name,
			hs_cli_policy_style(r->pl[i].ops), b, b + n, n };
		sr[r->np + ng] = sr[ng];
		sr[r->np + ng].y = b + 2 * n;
		ng++;
	}
	if (!ng && !r->recorded)
		goto out;
	bprintf(&r->html, "<h2>MGLRU generations</h2>\n");
	if (ng) {
		bprintf(&r->html, "<p>The multi-gen LRU models at %" PRIu64 " %ss: after every "
			"aging the policy reports its youngest generation (max_seq) and the "
			"oldest per type (min_seq); run_generations holds the same series when "
			"hsctl replay stores a run.</p>\n", r->at, r->info->unit);
		pmax.nr_series = ng;
		figure(r, &pmax, "generations", "max_seq over the replay: one step per aging.");
		plive.series = sr + r->np;
		plive.nr_series = ng;
		figure(r, &plive, "generations-live", "Generations between the oldest min_seq "
		       "and max_seq after each aging (MGLRU keeps 2 to 4).");
	}
	if (shields) {
		bprintf(&r->html, "<table>\n<tr><th>policy</th><th>shields set</th><th>spent</th>"
			"<th>spent, useful</th><th>spent, wasted</th><th>stale</th></tr>\n");
		for (size_t i = 0; i < r->np; i++) {
			const struct hs_metrics *m = &r->pl[i].detail->metrics;

			if (isnan(hs_metrics_get(m, "hitshield.shields_set")))
				continue;
			bprintf(&r->html, "<tr>");
			policy_cell(r, r->pl[i].ops);
			bprintf(&r->html, "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
				"<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">"
				"%.0f</td></tr>\n", hs_metrics_get(m, "hitshield.shields_set"),
				hs_metrics_get(m, "hitshield.shields_spent"),
				hs_metrics_get(m, "hitshield.spent_useful"),
				hs_metrics_get(m, "hitshield.spent_wasted"),
				hs_metrics_get(m, "hitshield.stale"));
		}
		bprintf(&r->html, "</table>\n<p class=\"note\">A shield is set when the aging "
			"walk has seen a folio young often enough, and spent when eviction finds "
			"it set and keeps the folio one generation more; spent shields are "
			"useful or wasted as protections are.</p>\n");
	}
	if (r->recorded)
		kernel_generations(r, st);
out:
	for (size_t i = 0; bufs && i < r->np; i++)
		free(bufs[i]);
	free(bufs);
	free(sr);
}

static void page(struct report *r, struct hs_store *st)
{
	bprintf(&r->html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"generator\" content=\"hsctl %s\">\n<title>hsctl report: session %"
		PRId64 " (", PACKAGE_VERSION, r->info->id);
	besc(&r->html, r->info->name);
	bprintf(&r->html, ")</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Session %" PRId64
		": ", css, r->info->id);
	besc(&r->html, r->info->name);
	bprintf(&r->html, "</h1>\n<p>A report by hsctl %s. Policies: ", PACKAGE_VERSION);
	for (size_t i = 0; i < r->np; i++) {
		besc(&r->html, r->pl[i].ops->name);
		bprintf(&r->html, i + 1 < r->np ? ", " : ".");
	}
	bprintf(&r->html, " Each policy keeps one colour and line style in every chart; OPT "
		"is solid black.</p>\n");
	section_session(r, st);
	section_mrc(r);
	section_outcome(r, st);
	if (r->recorded)
		section_lives(r, st);
	section_refaults(r);
	section_protection(r);
	section_generations(r, st);
	bprintf(&r->html, "<p class=\"note\">Made with <code>hsctl report</code>; the numbers "
		"are those of <code>hsctl mrc</code> and <code>hsctl replay</code> at the same "
		"sizes with the policies' default parameters (hsctl-report(1)).</p>\n"
		"</body>\n</html>\n");
}

/* Exit status for a file that could not be created or written. */
static int write_status(int err)
{
	return err == -EACCES || err == -EPERM || err == -EROFS ? HS_EXIT_UNAVAILABLE :
		HS_EXIT_FAILURE;
}

static int run(int argc, char **argv)
{
	const struct hs_policy_ops *ops[MAX_POLICIES];
	struct hs_session_info info;
	struct hs_store *st = NULL;
	struct report r = { 0 };
	struct pol *pl = NULL;
	uint64_t *sizes = NULL, *atv = NULL, at;
	size_t np = 0, ns = 0, nat = 0, runs = 0;
	struct args a = { 0 };
	bool pure, to_stdout;
	FILE *out = NULL;
	int64_t session;
	int status, ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	status = hs_cli_parse_session(a.session, &session);
	if (status)
		return status;
	status = hs_cli_pick_policies(a.policies, NULL, "--policy: ", ops, MAX_POLICIES, &np);
	if (status)
		return status;
	status = hs_cli_open_store(HS_STORE_NOCREATE | HS_STORE_RDONLY, &st);
	if (status)
		return status;
	status = hs_cli_get_stream_session(st, session, &info);
	if (status)
		goto out;
	status = hs_cli_pick_sizes(a.sizes ? a.sizes : DEFAULT_SIZES, "--sizes", &info, &sizes, &ns);
	if (status)
		goto out;
	if (a.at) {
		status = hs_cli_pick_sizes(a.at, "--at", &info, &atv, &nat);
		if (status)
			goto out;
		if (nat != 1) {
			hs_err("--at '%s': expected one size", a.at);
			status = HS_EXIT_USAGE;
			goto out;
		}
		at = atv[0];
	} else if (info.memory_limit_pages) {
		at = info.memory_limit_pages;
	} else if (info.peak_pages) {
		at = info.peak_pages;
	} else {
		at = HS_MAX((uint64_t)1, (info.distinct_keys + 2) / 4);
	}

	pure = info.records == info.accesses;
	pl = calloc(np, sizeof(*pl));
	if (!pl) {
		hs_err("out of memory");
		status = HS_EXIT_FAILURE;
		goto out;
	}
	for (size_t i = 0; i < np; i++) {
		pl[i].ops = ops[i];
		pl[i].stack = pure && hs_cli_is_stack_policy(ops[i]);
		runs += (pl[i].stack ? 0 : ns) + 1;
		pl[i].points = calloc(ns, sizeof(*pl[i].points));
		if (!pl[i].points) {
			hs_err("out of memory");
			status = HS_EXIT_FAILURE;
			goto out;
		}
		for (size_t s = 0; s < ns; s++)
			pl[i].points[s].size = sizes[s];
	}
	if (runs > MAX_RUNS) {
		hs_err("%zu policies at %zu sizes is %zu replay runs, more than %d: give fewer "
		       "--sizes or policies", np, ns, runs, MAX_RUNS);
		status = HS_EXIT_USAGE;
		goto out;
	}

	/* Where it goes, before the long part: a bad FILE or DIR fails at once. */
	to_stdout = !a.output || !strcmp(a.output, "-");
	if (a.svg_dir && mkdir(a.svg_dir, 0777) && errno != EEXIST) {
		ret = -errno;
		hs_err("%s: %s", a.svg_dir, strerror(-ret));
		status = write_status(ret);
		goto out;
	}
	out = to_stdout ? stdout : fopen(a.output, "w");
	if (!out) {
		ret = -errno;
		hs_err("%s: %s", a.output, strerror(-ret));
		status = write_status(ret);
		goto out;
	}

	ret = compute(st, &info, pl, np, sizes, ns, at, a.threads);
	if (ret) {
		if (ret == -EBADMSG)
			hs_err("session %" PRId64 ": the stored access stream is corrupt", session);
		else if (ret == -ENOMEM)
			hs_err("session %" PRId64 ": out of memory", session);
		else if (ret == -EOVERFLOW)
			hs_err("session %" PRId64 ": too many distinct keys for the one-pass "
			       "curves", session);
		else if (ret != -EUCLEAN && ret != -EINVAL && ret != -ENOSYS)
			hs_err("session %" PRId64 ": %s", session, hs_store_errmsg(st));
		status = hs_exit_from_errno(ret);
		goto out_unlink;
	}

	r.info = &info;
	r.pl = pl;
	r.np = np;
	r.sizes = sizes;
	r.ns = ns;
	r.at = at;
	r.recorded = !strcmp(info.source, "record");
	r.svg_dir = a.svg_dir;
	page(&r, st);
	if (r.html.err) {
		hs_err("out of memory");
		status = HS_EXIT_FAILURE;
		goto out_unlink;
	}
	if (r.svg_err) {
		hs_err("%s", r.svg_errmsg);
		status = write_status(r.svg_err);
		goto out_unlink;
	}
	ret = 0;
	if (fwrite(r.html.p, 1, r.html.len, out) != r.html.len || fflush(out))
		ret = errno ? -errno : -EIO;
	if (!to_stdout) {
		if (fclose(out) && !ret)
			ret = errno ? -errno : -EIO;
		out = NULL;
	}
	if (ret) {
		hs_err("%s: %s", to_stdout ? "standard output" : a.output, strerror(-ret));
		status = write_status(ret);
		goto out_unlink;
	}
	hs_info("report of session %" PRId64 ": %zu policies, %zu sizes, details at %" PRIu64,
		session, np, ns, at);
	status = HS_EXIT_OK;
	goto out;

out_unlink:
	/* Half a page is not a report: leave none behind. */
	if (!to_stdout) {
		struct stat sb;

		if (out)
			fclose(out);
		out = NULL;
		if (!lstat(a.output, &sb) && S_ISREG(sb.st_mode))
			unlink(a.output);
	}
out:
	if (out && out != stdout)
		fclose(out);
	for (size_t i = 0; pl && i < np; i++) {
		free(pl[i].points);
		if (pl[i].detail)
			free(pl[i].detail->gens);
		free(pl[i].detail);
	}
	free(pl);
	free(r.html.p);
	free(sizes);
	free(atv);
	hs_store_close(st);
	return status;
}

const struct hs_cmd hs_cmd_report = {
	.name = "report",
	.summary = "A self-contained HTML report of a session, with SVG charts",
	.run = run,
};
