/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `hsctl policy list` and `hsctl policy describe NAME`: what policies exist
 * and which parameters each takes.  Everything printed here is generated from
 * the registry (policies/registry.c) and each policy's ops->params table, so
 * a new policy or parameter shows up without touching this file.  Both
 * actions honour --format (global, or given after the command).
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
#include "json.h"
#include "output.h"
#include "param.h"
#include "policy.h"

enum action { ACT_LIST, ACT_DESCRIBE };
static const char *const actions[] = { "list", "describe", NULL };	/* by enum action */

struct args {
	enum action	action;		/* what to do (default: list) */
	bool		action_set;	/* an action word was given */
	const char	*name;		/* describe: the policy */
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (!a->action_set) {
			a->action = (enum action)hs_cli_argp_choice(state, "action", arg, actions);
			a->action_set = true;
		} else if (a->action == ACT_DESCRIBE && !a->name) {
			a->name = arg;
		} else {
			argp_error(state, "unexpected argument '%s'", arg);
		}
		break;
	case ARGP_KEY_END:
		if (a->action == ACT_DESCRIBE && !a->name)
			argp_error(state, "describe needs a policy NAME (see 'hsctl policy list')");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.parser = parse_opt,
	.args_doc = "[list]\ndescribe NAME",
	.children = hs_format_children,
	.doc = "List the replacement policies, or describe one policy and its parameters.\v"
	       "EXAMPLES:\n"
	       "    hsctl policy list                  # every policy, with a summary\n"
	       "    hsctl policy describe lrfu         # its parameters, defaults and ranges\n"
	       "    hsctl policy describe lirs --format json\n"
	       "    hsctl policy list --format csv\n"
	       "\nParameters are set for a replay with --param POLICY.KEY=VALUE, e.g.\n"
	       "--param lrfu.lambda=0.1.",
};

static size_t param_count(const struct hs_param *p)
{
	size_t n = 0;

	while (p && p[n].name)
		n++;
	return n;
}

static const char *type_name(enum hs_param_type t)
{
	switch (t) {
	case HS_PARAM_U64:
		return "integer";
	case HS_PARAM_DOUBLE:
		return "number";
	case HS_PARAM_BOOL:
		return "boolean";
	case HS_PARAM_ENUM:
		return "choice";
	}
	return "?";
}

/* "[1, 100]", ">= 1", "true|false" or the enum's choices. */
static void range_text(const struct hs_param *p, char *buf, size_t len)
{
	switch (p->type) {
	case HS_PARAM_U64:
		if (p->max >= 18446744073709551615.0)
			snprintf(buf, len, ">= %.0f", p->min > 0 ? p->min : 0);
		else
			snprintf(buf, len, "[%.0f, %.0f]", p->min > 0 ? p->min : 0, p->max);
		break;
	case HS_PARAM_DOUBLE:
		if (isinf(p->max))
			snprintf(buf, len, ">= %g", p->min);
		else
			snprintf(buf, len, "[%g, %g]", p->min, p->max);
		break;
	case HS_PARAM_BOOL:
		snprintf(buf, len, "true|false");
		break;
	case HS_PARAM_ENUM:
		snprintf(buf, len, "%s", p->choices ? p->choices : "");
		break;
	}
}

/*
 * The exit status after writing results.  A write error on stdout (-EIO) is
 * reported once, by main(), which checks stdout before exiting.
 */
static int out_status(int err)
{
	if (!err)
		return HS_EXIT_OK;
	if (err != -EIO)
		hs_err("writing results: %s", strerror(-err));
	return HS_EXIT_FAILURE;
}

/* Finish and free a writer; the exit status for how it went. */
static int out_done(struct hs_out *o, int err)
{
	int ferr = hs_out_finish(o);

	hs_out_free(o);
	return out_status(err ? err : ferr);
}

static int do_list(void)
{
	struct hs_out *o = NULL;
	int err = 0;
	size_t i;

	if (hs_out_new(stdout, hs_global.format, NULL, &o)) {
		hs_err("out of memory");
		return HS_EXIT_FAILURE;
	}
	err = hs_out_column(o, "name", HS_COL_STR, NULL);
	err = err ? err : hs_out_column(o, "params", HS_COL_INT, NULL);
	err = err ? err : hs_out_column(o, "summary", HS_COL_STR, NULL);
	for (i = 0; !err && i < hs_policy_count(); i++) {
		const struct hs_policy_ops *ops = hs_policy_at(i);

		err = hs_out_str(o, ops->name);
		err = err ? err : hs_out_uint(o, param_count(ops->params));
		err = err ? err : hs_out_str(o, ops->summary);
		err = err ? err : hs_out_row_end(o);
	}
	return out_done(o, err);
}

/* The columns of a parameter table, and one parameter's cells in their order. */
static const char *const param_cols[] = { "name", "type", "default", "range", "help" };
#define NR_PARAM_COLS	ARRAY_SIZE(param_cols)

static void param_cells(const struct hs_param *p, char *range, size_t len,
			const char *cells[NR_PARAM_COLS])
{
	range_text(p, range, len);
	cells[0] = p->name;
	cells[1] = type_name(p->type);
	cells[2] = p->def;
	cells[3] = range;
	cells[4] = p->help;
}

/* The parameter table of @ops as a table or CSV, to stdout. */
static int write_params(enum hs_format fmt, const struct hs_policy_ops *ops)
{
	const char *cells[NR_PARAM_COLS];
	struct hs_out *o = NULL;
	char range[256];
	int err = 0, ferr;
	size_t i, c;

	err = hs_out_new(stdout, fmt, NULL, &o);
	if (err)
		return err;
	for (c = 0; !err && c < NR_PARAM_COLS; c++)
		err = hs_out_column(o, param_cols[c], HS_COL_STR, NULL);
	for (i = 0; !err && ops->params && ops->params[i].name; i++) {
		param_cells(&ops->params[i], range, sizeof(range), cells);
		for (c = 0; !err && c < NR_PARAM_COLS; c++)
			err = hs_out_str(o, cells[c]);
		err = err ? err : hs_out_row_end(o);
	}
	ferr = hs_out_finish(o);
	hs_out_free(o);
	return err ? err : ferr;
}

/*
 * JSON: one object with the policy's facts and its parameters as an array,
 * one parameter per line, as --format json prints rows.
 */
static int describe_json(const struct hs_policy_ops *ops)
{
	const char *cells[NR_PARAM_COLS];
	struct hs_json j;
	char range[256];
	size_t i, c;
	int err;

	hs_json_init(&j, stdout, HS_JSON_SPACED);
	hs_json_object(&j);
	hs_json_key(&j, "name");
	hs_json_str(&j, ops->name);
	hs_json_key(&j, "summary");
	hs_json_str(&j, ops->summary);
	hs_json_key(&j, "offline");
	hs_json_bool(&j, (ops->flags & HS_POLICY_NEEDS_FUTURE) != 0);
	hs_json_key(&j, "implemented");
	hs_json_bool(&j, ops->create != NULL);
	hs_json_key(&j, "params");
	hs_json_array_lines(&j);
	for (i = 0; ops->params && ops->params[i].name; i++) {
		param_cells(&ops->params[i], range, sizeof(range), cells);
		hs_json_object(&j);
		for (c = 0; c < NR_PARAM_COLS; c++) {
			hs_json_key(&j, param_cols[c]);
			hs_json_str(&j, cells[c]);
		}
		hs_json_end(&j);
	}
	hs_json_end(&j);
	hs_json_end(&j);
	err = hs_json_finish(&j);
	putchar('\n');
	return err;
}

static int do_describe(const char *name)
{
	const struct hs_policy_ops *ops = hs_cli_find_policy("", name);
	int err;

	if (!ops)
		return HS_EXIT_USAGE;
	switch (hs_global.format) {
	case HS_FMT_JSON:
		err = describe_json(ops);
		break;
	case HS_FMT_CSV:
		err = write_params(HS_FMT_CSV, ops);
		break;
	case HS_FMT_TABLE:
	default:
		printf("%s: %s\n", ops->name, ops->summary);
		if (ops->flags & HS_POLICY_NEEDS_FUTURE)
			printf("flags: offline (needs the future)\n");
		if (!ops->create)
			printf("flags: not implemented yet (cannot be replayed)\n");
		if (!param_count(ops->params)) {
			printf("parameters: none\n");
			err = 0;
			break;
		}
		printf("parameters (set with --param %s.NAME=VALUE):\n\n", ops->name);
		err = write_params(HS_FMT_TABLE, ops);
		break;
	}
	return out_status(err);
}

static int run(int argc, char **argv)
{
	struct args a = { 0 };

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	if (a.action == ACT_DESCRIBE)
		return do_describe(a.name);
	return do_list();
}

const struct hs_cmd hs_cmd_policy = {
	.name = "policy",
	.summary = "list the replacement policies and describe their parameters",
	.run = run,
};
