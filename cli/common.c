/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every command shares: the global options, the -f/--format option
 * (one child argp that every command's argp includes), the one error
 * reporter, errno-to-exit-status mapping, words chosen from a fixed list
 * (actions, --kind, --channel) or naming a policy, the sizes of a --sizes
 * list, opening the database and reporting its errors and timing the
 * progress line of a long import or replay.  It calls nothing in the command files or cli/print.c.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "hs.h"
#include "mrc.h"
#include "output.h"
#include "parse.h"
#include "policy.h"
#include "store.h"

struct hs_global hs_global = {
	.db = "hsctl.db",
	.format = HS_FMT_TABLE,
};

static void vreport(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "hsctl: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void hs_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void hs_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void hs_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("note: ", fmt, ap);
	va_end(ap);
}

void hs_info(const char *fmt, ...)
{
	va_list ap;

	if (!hs_global.verbose)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

/**
 * hs_exit_from_errno() - the exit status for a lib/ error
 * @err: negative errno
 *
 * Return: HS_EXIT_DATAERR for malformed data, HS_EXIT_NOINPUT for a missing
 * input, HS_EXIT_USAGE for invalid arguments, HS_EXIT_UNAVAILABLE for missing
 * permissions, else HS_EXIT_FAILURE.
 */
int hs_exit_from_errno(int err)
{
	switch (-err) {
	case 0:
		return HS_EXIT_OK;
	case EBADMSG:
	case EPROTO:
	case EILSEQ:
	case ENODATA:
		return HS_EXIT_DATAERR;
	case ENOENT:
	case ENOTDIR:
	case EISDIR:
		return HS_EXIT_NOINPUT;
	case EINVAL:
	case ERANGE:
		return HS_EXIT_USAGE;
	case EPERM:
	case EACCES:
		return HS_EXIT_UNAVAILABLE;
	default:
		return HS_EXIT_FAILURE;
	}
}

/**
 * hs_cli_set_format() - set hs_global.format from a --format value
 * @arg: "table", "csv" or "json"
 *
 * Prints "hsctl: unknown format 'ARG' (valid: table, csv, json)" when @arg is
 * none of them.
 *
 * Return: 0, or HS_EXIT_USAGE.
 */
int hs_cli_set_format(const char *arg)
{
	if (hs_format_parse(arg, &hs_global.format)) {
		hs_err("unknown format '%s' (valid: table, csv, json)", arg);
		return HS_EXIT_USAGE;
	}
	hs_global.format_set = true;
	return 0;
}

static const struct argp_option format_options[] = {
	{ "format", 'f', "FMT", 0, "Output format: table, csv or json (default: table)", 0 },
	{ 0 }
};

static error_t format_parse(int key, char *arg, struct argp_state *state)
{
	(void)state;
	if (key != 'f')
		return ARGP_ERR_UNKNOWN;
	/* Reported on stderr in one line; argp_parse() then returns EINVAL: exit 64. */
	return hs_cli_set_format(arg) ? EINVAL : 0;
}

/* The -f/--format option alone; hs_format_children puts it in each command's argp. */
static const struct argp hs_format_argp = {
	.options = format_options,
	.parser = format_parse,
};

const struct argp_child hs_format_children[] = {
	{ &hs_format_argp, 0, "Output:", 90 },
	{ 0 }
};

/* The index of @arg in the NULL-terminated @choices, or -1. */
static int choice_index(const char *arg, const char *const *choices)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(arg, choices[i]))
			return i;
	return -1;
}

/**
 * hs_cli_argp_choice() - a word from a fixed list, or a usage error
 * @state: the argp state, for argp_error()
 * @what: what the word names, for the message: "action", "kind"
 * @arg: the word given
 * @choices: the valid words, NULL-terminated
 *
 * A word not in @choices is reported through argp_error() as "unknown WHAT
 * 'ARG' (valid: A, B, C)", which exits with status 64.
 *
 * Return: the index of @arg in @choices.
 */
int hs_cli_argp_choice(struct argp_state *state, const char *what, const char *arg,
		       const char *const *choices)
{
	int i = choice_index(arg, choices);
	char valid[256];
	size_t off = 0;

	if (i >= 0)
		return i;
	valid[0] = '\0';
	for (i = 0; choices[i] && off < sizeof(valid); i++)
		off += (size_t)snprintf(valid + off, sizeof(valid) - off, "%s%s", i ? ", " : "",
					choices[i]);
	argp_error(state, "unknown %s '%s' (valid: %s)", what, arg, valid);
	exit(argp_err_exit_status);	/* argp_error() has exited: no parse uses ARGP_NO_EXIT */
}

/* --kind and --channel words, in the order the messages list them, and their values. */
static const char *const kind_names[] = { "anon", "file", NULL };
static const enum hs_type kind_values[] = { HS_TYPE_ANON, HS_TYPE_FILE };
static const char *const channel_names[] = { "pt", "fd", NULL };
static const enum hs_channel channel_values[] = { HS_CH_PT, HS_CH_FD };

/**
 * hs_cli_parse_kind() - parse --kind
 * @s: "anon" or "file"
 * @out: the type
 *
 * Return: 0 or -EINVAL.
 */
int hs_cli_parse_kind(const char *s, enum hs_type *out)
{
	int i = choice_index(s, kind_names);

	if (i < 0)
		return -EINVAL;
	*out = kind_values[i];
	return 0;
}

/**
 * hs_cli_parse_channel() - parse --channel
 * @s: "pt" or "fd"
 * @out: the channel
 *
 * Return: 0 or -EINVAL.
 */
int hs_cli_parse_channel(const char *s, enum hs_channel *out)
{
	int i = choice_index(s, channel_names);

	if (i < 0)
		return -EINVAL;
	*out = channel_values[i];
	return 0;
}

/**
 * hs_cli_argp_kind() - the value of --kind, or a usage error
 * @state: the argp state
 * @arg: "anon" or "file"
 *
 * Return: the type; anything else exits through argp_error() (64).
 */
enum hs_type hs_cli_argp_kind(struct argp_state *state, const char *arg)
{
	return kind_values[hs_cli_argp_choice(state, "kind", arg, kind_names)];
}

/**
 * hs_cli_argp_channel() - the value of --channel, or a usage error
 * @state: the argp state
 * @arg: "pt" or "fd"
 *
 * Return: the channel; anything else exits through argp_error() (64).
 */
enum hs_channel hs_cli_argp_channel(struct argp_state *state, const char *arg)
{
	return channel_values[hs_cli_argp_choice(state, "channel", arg, channel_names)];
}

/**
 * hs_cli_find_policy() - the policy named @name, or report it unknown
 * @what: what the message starts with ("" or "--param: ")
 * @name: the policy name
 *
 * An unknown name is reported as "hsctl: WHATunknown policy 'NAME' (valid:
 * arc, car, ...)", the registry's names in its order.
 *
 * Return: the policy, or NULL.
 */
const struct hs_policy_ops *hs_cli_find_policy(const char *what, const char *name)
{
	const struct hs_policy_ops *ops = hs_policy_find(name);
	char valid[1024];
	size_t i, off = 0;

	if (ops)
		return ops;
	valid[0] = '\0';
	for (i = 0; i < hs_policy_count() && off < sizeof(valid); i++)
		off += (size_t)snprintf(valid + off, sizeof(valid) - off, "%s%s", i ? ", " : "",
					hs_policy_at(i)->name);
	hs_err("%sunknown policy '%s' (valid: %s)", what, name, valid);
	return NULL;
}

/*
 * Chart styles by policy: the policies most often compared first, so that
 * they get seven different colours (analyzers/plot.c cycles seven colours
 * and four dash patterns: every style differs in both from its neighbours).
 */
static const char *const style_order[] = {
	"opt", "lru", "arc", "clock", "mglru", "linux-2q", "hitshield", "lirs", "two-q",
	"car", "cart", "clock-pro", "fifo", "lrfu",
};

/**
 * hs_cli_policy_style() - the chart style of a policy
 * @ops: the policy
 *
 * OPT, the floor every curve is read against, is style 0 (solid black);
 * every policy has its own style, the same in every chart and every
 * report.  A policy added later without a place in style_order[] takes
 * style 14 or 15.
 *
 * Return: a style index below 16 (HS_PLOT_POLICY_STYLES, analyzers/plot.h).
 */
unsigned int hs_cli_policy_style(const struct hs_policy_ops *ops)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(style_order); i++)
		if (!strcmp(ops->name, style_order[i]))
			return (unsigned int)i;
	for (i = 0; i < hs_policy_count() && hs_policy_at(i) != ops; i++)
		;
	return 14 + (unsigned int)(i % 2);
}

void hs_cli_print_kernel_row(const struct hs_kernel_row *k)
{
	printf("kernel, the workload's pages: %" PRIu64 " demand misses, ", k->demand_miss_pages);
	if (k->readahead_traced == 0)
		printf("read ahead: not traced by this kernel (its pages are among the demand"
		       " misses), ");
	else if (k->readahead_traced == 2)
		printf("%" PRIu64 " read ahead (%" PRIu64 " never used; inferred from filemap"
		       " adds, this kernel has no readahead events), ", k->readahead_pages,
		       k->readahead_unused_pages);
	else
		printf("%" PRIu64 " read ahead (%" PRIu64 " never used), ", k->readahead_pages,
		       k->readahead_unused_pages);
	printf("%" PRIu64 " refaults, %" PRIu64 " evicted, pswpin %" PRIu64 ", pswpout %" PRIu64
	       " (from %s)\n", k->refault_pages, k->evicted_pages, k->pswpin_pages,
	       k->pswpout_pages, k->pswp_source);
}

/**
 * hs_cli_pick_sizes() - the sizes of a --sizes (or --at) list
 * @spec: the list, in hs_mrc_sizes_parse()'s grammar
 * @what: the option's name for the messages ("--sizes")
 * @info: the session: its distinct keys give N%, its unit memory sizes
 * @sizes: receives the sorted sizes (free() them)
 * @n: receives their number
 *
 * Memory sizes (64M) count 4096-byte pages in page sessions and 512-byte
 * blocks in block sessions; other units take counts and shares only.
 *
 * Return: 0, HS_EXIT_FAILURE (out of memory) or HS_EXIT_USAGE, after
 * printing why.
 */
int hs_cli_pick_sizes(const char *spec, const char *what, const struct hs_session_info *info,
		      uint64_t **sizes, size_t *n)
{
	uint64_t unit_bytes = 0;
	int ret;

	if (!strcmp(info->unit, "page"))
		unit_bytes = 4096;
	else if (!strcmp(info->unit, "block"))
		unit_bytes = 512;
	ret = hs_mrc_sizes_parse(spec, info->distinct_keys, unit_bytes, sizes, n);
	switch (ret) {
	case 0:
		return 0;
	case -ENOMEM:
		hs_err("out of memory");
		return HS_EXIT_FAILURE;
	case -E2BIG:
		hs_err("%s '%s': more than %u sizes", what, spec, HS_MRC_MAX_SIZES);
		return HS_EXIT_USAGE;
	case -ERANGE:
		hs_err("%s '%s': a size outside 1 .. %u %ss", what, spec, UINT32_MAX, info->unit);
		return HS_EXIT_USAGE;
	default:
		hs_err("%s '%s': expected N, N%%%s, A..B, A..B/STEP or A..B:COUNT, "
		       "comma-separated (A <= B)", what, spec,
		       unit_bytes ? ", a size such as 64M" : "");
		return HS_EXIT_USAGE;
	}
}

/**
 * hs_cli_pick_policies() - the policies of a --policy list
 * @list: "all", or comma-separated names (split in place); NULL takes @def
 * @def: the default list, or NULL for all policies
 * @what: prefix of the unknown-policy message (hs_cli_find_policy())
 * @out: receives the policies, in the order given
 * @max: room in @out
 * @n: receives their number
 *
 * "all" may not be combined with names, and a name may not come twice.
 *
 * Return: 0, or HS_EXIT_USAGE after printing why.
 */
int hs_cli_pick_policies(char *list, const char *def, const char *what,
			 const struct hs_policy_ops **out, size_t max, size_t *n)
{
	char *items[64], buf[256];
	int nr, i;

	*n = 0;
	if (!list && def) {
		snprintf(buf, sizeof(buf), "%s", def);
		list = buf;
	}
	if (!list || !strcmp(list, "all")) {
		for (size_t k = 0; k < hs_policy_count() && k < max; k++)
			out[(*n)++] = hs_policy_at(k);
		return 0;
	}
	nr = hs_split_list(list, items, HS_MIN(max, ARRAY_SIZE(items)));
	if (nr <= 0) {
		hs_err("--policy: expected a comma-separated list of policies");
		return HS_EXIT_USAGE;
	}
	for (i = 0; i < nr; i++) {
		const struct hs_policy_ops *ops;

		if (!strcmp(items[i], "all")) {
			hs_err("--policy: 'all' cannot be combined with other names");
			return HS_EXIT_USAGE;
		}
		ops = hs_cli_find_policy(what, items[i]);
		if (!ops)
			return HS_EXIT_USAGE;
		for (size_t k = 0; k < *n; k++)
			if (out[k] == ops) {
				hs_err("--policy: '%s' given twice", items[i]);
				return HS_EXIT_USAGE;
			}
		out[(*n)++] = ops;
	}
	return 0;
}

/**
 * hs_cli_parse_session() - a SESSION argument
 * @arg: the argument
 * @id: receives the session id
 *
 * Return: 0, or HS_EXIT_USAGE after printing why.
 */
int hs_cli_parse_session(const char *arg, int64_t *id)
{
	if (hs_parse_i64(arg, 1, INT64_MAX, id)) {
		hs_err("'%s' is not a session id (see 'hsctl sessions')", arg);
		return HS_EXIT_USAGE;
	}
	return 0;
}

/**
 * hs_cli_get_session() - a stored session, or the reason there is none
 * @st: the store
 * @id: the session id
 * @info: receives the session
 *
 * Return: 0; HS_EXIT_NOINPUT after "no session N in DB"; or the store's
 * error's exit status after printing it.
 */
int hs_cli_get_session(struct hs_store *st, int64_t id, struct hs_session_info *info)
{
	int ret = hs_session_get(st, id, info);

	if (ret == -ENOENT) {
		hs_err("no session %" PRId64 " in %s (see 'hsctl sessions')", id, hs_global.db);
		return HS_EXIT_NOINPUT;
	}
	return ret ? hs_cli_store_err(st, hs_exit_from_errno(ret)) : 0;
}

/**
 * hs_cli_get_stream_session() - a stored session whose accesses a command reads
 * @st: the store
 * @id: the session
 * @info: receives it
 *
 * hs_cli_get_session(), then: no accesses is an error (exit 65); a session
 * that is not complete gets a warning and is used as recorded.
 *
 * Return: 0 or the exit status, after printing why.
 */
int hs_cli_get_stream_session(struct hs_store *st, int64_t id, struct hs_session_info *info)
{
	int status = hs_cli_get_session(st, id, info);

	if (status)
		return status;
	if (info->accesses == 0) {
		hs_err("session %" PRId64 " has no accesses", id);
		return HS_EXIT_DATAERR;
	}
	if (strcmp(info->status, "complete"))
		hs_warn("session %" PRId64 " is %s: using what was recorded", id, info->status);
	return 0;
}

/* LRU and OPT: the stack policies, whose whole curve one pass computes (mrc.h). */
bool hs_cli_is_stack_policy(const struct hs_policy_ops *ops)
{
	return !strcmp(ops->name, "lru") || !strcmp(ops->name, "opt");
}

/**
 * hs_cli_store_err() - report the store's last error against the database
 * @st: the store
 * @status: the exit status to hand back
 *
 * Prints "hsctl: DB: message", DB the -d/--db file.
 *
 * Return: @status.
 */
int hs_cli_store_err(struct hs_store *st, int status)
{
	hs_err("%s: %s", hs_global.db, hs_store_errmsg(st));
	return status;
}

/**
 * hs_cli_query_err() - report a failed query or listing of a command
 * @st: the store (not used for -ENOMEM)
 * @cmd: the command, for the message: "sql", "sessions"
 * @err: the negative errno from hs_cli_print_query() and friends
 *
 * Prints "hsctl: CMD: out of memory" for -ENOMEM, else "hsctl: CMD: " and the
 * store's message.
 *
 * Return: HS_EXIT_USAGE for -EPERM (a write without --write), else
 * HS_EXIT_FAILURE.
 */
int hs_cli_query_err(struct hs_store *st, const char *cmd, int err)
{
	hs_err("%s: %s", cmd, err == -ENOMEM ? "out of memory" : hs_store_errmsg(st));
	return err == -EPERM ? HS_EXIT_USAGE : HS_EXIT_FAILURE;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * hs_cli_progress_start() - start timing a progress line
 * @pr: the progress state
 *
 * Return: nothing.
 */
void hs_cli_progress_start(struct hs_cli_progress *pr)
{
	pr->start = pr->last = mono_now();
	pr->shown = false;
}

/**
 * hs_cli_progress_due() - whether to draw the progress line now
 * @pr: the progress state
 * @force: draw even if the last line is younger than 0.25 s
 * @elapsed: set to the seconds since hs_cli_progress_start() when due
 *
 * A due line counts as drawn: the caller prints it to stderr.
 *
 * Return: true when the caller should draw the line.
 */
bool hs_cli_progress_due(struct hs_cli_progress *pr, bool force, double *elapsed)
{
	double t = mono_now();

	if (t - pr->last < 0.25 && !force)
		return false;
	pr->last = t;
	pr->shown = true;
	*elapsed = t - pr->start;
	return true;
}

/**
 * hs_cli_progress_end() - blank the progress line, if one was drawn
 * @pr: the progress state
 * @width: how many columns to blank
 *
 * Return: nothing.
 */
void hs_cli_progress_end(struct hs_cli_progress *pr, int width)
{
	if (pr->shown)
		fprintf(stderr, "\r%*s\r", width, "");
	pr->shown = false;
}

/**
 * hs_cli_open_store() - open the database named by -d/--db
 * @flags: HS_STORE_* flags
 * @out: the store
 *
 * Prints "hsctl: FILE: reason" on failure.
 *
 * Return: 0, or the exit status to return: 65 not an hsctl database, 66 no
 * such file, 69 the file or its directory may not be used (permissions,
 * read-only media), else 1.
 */
int hs_cli_open_store(unsigned int flags, struct hs_store **out)
{
	const char *env = getenv("HSCTL_BUSY_TIMEOUT_MS");
	struct hs_store *st = NULL;
	uint64_t ms;
	int err;

	/* hsctl(1) ENVIRONMENT; a value that is not a count is ignored */
	if (env && !hs_parse_u64(env, 0, INT_MAX, &ms))
		hs_store_set_busy_timeout((unsigned int)ms);
	err = hs_store_open(hs_global.db, flags, &st);
	if (err) {
		hs_err("%s: %s", hs_global.db,
		       st ? hs_store_errmsg(st) : strerror(-err));
		hs_store_close(st);
		switch (err) {
		case -EPROTO:
			return HS_EXIT_DATAERR;
		case -ENOENT:
			return HS_EXIT_NOINPUT;
		case -EACCES:
		case -EPERM:
		case -EROFS:
			return HS_EXIT_UNAVAILABLE;	/* "FILE: cannot ...: Permission denied" */
		default:
			return HS_EXIT_FAILURE;
		}
	}
	*out = st;
	return 0;
}
