/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `hsctl sql [--write] QUERY`: run SQL on the database and print the result
 * rows as a table, CSV or a JSON array of objects.  Read-only unless --write:
 * the file is opened read-only and any statement that would write is refused
 * before anything runs.  The rows print through hs_cli_print_query()
 * (cli/print.c), as every SQL-shaped listing does.
 */
#include "config.h"

#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hs.h"
#include "store.h"

struct args {
	const char	*query;		/* QUERY */
	bool		write;		/* --write */
};

static const struct argp_option options[] = {
	{ "write", 'w', NULL, 0, "Allow statements that change the database", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'w':
		a->write = true;
		break;
	case ARGP_KEY_ARG:
		if (a->query)
			argp_error(state, "one QUERY only (quote it: hsctl sql 'SELECT ...')");
		a->query = arg;
		break;
	case ARGP_KEY_END:
		if (!a->query)
			argp_error(state, "no QUERY given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "QUERY",
	.children = hs_format_children,
	.doc = "Run SQL on the database (read-only unless --write) and print the rows.\v"
	       "EXAMPLES:\n"
	       "    hsctl sql 'SELECT * FROM v_sessions'\n"
	       "    hsctl sql 'SELECT policy, capacity, hit_ratio FROM v_runs ORDER BY 3'\n"
	       "    hsctl sql --format json 'SELECT * FROM v_policy_compare WHERE session = 1'\n"
	       "    hsctl sql --format csv 'SELECT * FROM v_refaults' > refaults.csv\n"
	       "    hsctl sql --write \"DELETE FROM runs WHERE policy = 'fifo'\"\n"
	       "\nThe tables and views are documented in hsctl-db(5).  Exit status: 0 success,\n"
	       "1 SQL error, 64 usage error or a write without --write, 65 not an hsctl\n"
	       "database, 66 no database file, 69 the database may not be read or written.",
};

static int run(int argc, char **argv)
{
	struct hs_store *st = NULL;
	struct args a = { 0 };
	int status, err;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	if (!a.query[strspn(a.query, " \t\r\n;")]) {
		hs_err("sql: the query is empty");
		return HS_EXIT_USAGE;
	}
	status = hs_cli_open_store(HS_STORE_NOCREATE | (a.write ? 0 : HS_STORE_RDONLY), &st);
	if (status)
		return status;
	err = hs_cli_print_query(st, a.query, false);
	if (err)
		status = hs_cli_query_err(st, "sql", err);
	hs_store_close(st);
	return status;
}

const struct hs_cmd hs_cmd_sql = {
	.name = "sql",
	.summary = "run SQL on the database (read-only unless --write)",
	.run = run,
};
