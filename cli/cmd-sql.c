/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `hsctl sql [--write] QUERY`: run SQL on the database and print the result
 * rows as a table, CSV or a JSON array of objects.  Read-only unless --write:
 * the file is opened read-only and any statement that would write is refused
 * before anything runs.  Also home of hs_cli_print_query() and
 * hs_cli_print_record(), which `hsctl sessions` and `hsctl db` share so that
 * every SQL-shaped listing prints the same way.
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
#include "output.h"
#include "store.h"

struct args {
	const char	*query;		/* QUERY */
	bool		write;		/* --write */
};

struct rows {
	struct hs_out	*o;		/* list output, made at the first row */
	bool		record;		/* print the first row as a record and stop */
	int		err;		/* -ENOMEM from the output */
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
	       "    hsctl sql 'SELECT policy, capacity, hit_ratio FROM v_runs ORDER BY hit_ratio'\n"
	       "    hsctl sql --format json 'SELECT * FROM v_policy_compare WHERE session = 1'\n"
	       "    hsctl sql --format csv 'SELECT * FROM v_refaults' > refaults.csv\n"
	       "    hsctl sql --write \"DELETE FROM runs WHERE policy = 'fifo'\"\n"
	       "\nThe tables and views are documented in hsctl-db(5).  Exit status: 0 success,\n"
	       "1 SQL error, 64 usage error or a write without --write, 65 not an hsctl\n"
	       "database, 66 no database file, 69 the database may not be read or written.",
};

/* The shortest text that reads back as v, as a JSON number (null if not finite). */
static void json_number(FILE *fp, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v)) {
		fputs("null", fp);
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, fp);
}

/* One cell of a table record: control characters would break the line. */
static void table_text(FILE *fp, const char *s)
{
	for (; *s; s++)
		putc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, fp);
}

static int print_record_table(const struct hs_sql_row *row)
{
	size_t i, w = 0;

	for (i = 0; i < row->ncols; i++)
		w = HS_MAX(w, strlen(row->names[i]));
	for (i = 0; i < row->ncols; i++) {
		if (row->types[i] == HS_SQL_NULL) {
			printf("%s\n", row->names[i]);	/* no trailing blanks */
			continue;
		}
		printf("%-*s", (int)w, row->names[i]);
		switch (row->types[i]) {
		case HS_SQL_NULL:
			break;
		case HS_SQL_INT:
			printf("  %" PRId64, row->ints[i]);
			break;
		case HS_SQL_REAL:
			printf("  %g", row->reals[i]);
			break;
		default:
			fputs("  ", stdout);
			table_text(stdout, row->texts[i]);
			break;
		}
		putchar('\n');
	}
	return 0;
}

static int print_record_json(const struct hs_sql_row *row)
{
	size_t i;

	fputs("{", stdout);
	for (i = 0; i < row->ncols; i++) {
		fputs(i ? ",\n  " : "\n  ", stdout);
		hs_json_string(stdout, row->names[i]);
		fputs(": ", stdout);
		switch (row->types[i]) {
		case HS_SQL_NULL:
			fputs("null", stdout);
			break;
		case HS_SQL_INT:
			printf("%" PRId64, row->ints[i]);
			break;
		case HS_SQL_REAL:
			json_number(stdout, row->reals[i]);
			break;
		default:
			hs_json_string(stdout, row->texts[i]);
			break;
		}
	}
	fputs(row->ncols ? "\n}\n" : "}\n", stdout);
	return 0;
}

/* Declare the columns from the first row: numbers right-aligned in a table. */
static int declare_columns(struct hs_out *o, const struct hs_sql_row *row)
{
	size_t i;
	int err;

	for (i = 0; i < row->ncols; i++) {
		enum hs_col_type t = row->types[i] == HS_SQL_INT ? HS_COL_INT :
				     row->types[i] == HS_SQL_REAL ? HS_COL_REAL : HS_COL_STR;

		err = hs_out_column(o, row->names[i], t, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* Write one row through lib/output.h; each cell as its own type. */
static int out_row(struct hs_out *o, const struct hs_sql_row *row)
{
	size_t i;
	int err = 0;

	for (i = 0; i < row->ncols && !err; i++) {
		switch (row->types[i]) {
		case HS_SQL_NULL:
			err = hs_out_null(o);
			break;
		case HS_SQL_INT:
			err = hs_out_int(o, row->ints[i]);
			break;
		case HS_SQL_REAL:
			err = hs_out_real(o, row->reals[i]);
			break;
		default:
			err = hs_out_str(o, row->texts[i]);
			break;
		}
	}
	return err ? err : hs_out_row_end(o);
}

/**
 * hs_cli_print_record() - print one row as a record
 * @row: the row
 *
 * Table: one "name  value" line per column.  CSV: a header and the row.
 * JSON: one object.
 *
 * Return: 0 or -ENOMEM.
 */
int hs_cli_print_record(const struct hs_sql_row *row)
{
	struct hs_out *o = NULL;
	int err;

	if (hs_global.format == HS_FMT_TABLE)
		return print_record_table(row);
	if (hs_global.format == HS_FMT_JSON)
		return print_record_json(row);
	err = hs_out_new(stdout, HS_FMT_CSV, NULL, &o);
	if (!err)
		err = declare_columns(o, row);
	if (!err)
		err = out_row(o, row);
	if (!err)
		err = hs_out_finish(o);
	hs_out_free(o);
	return err == -EIO ? 0 : err;	/* a write error is reported at exit */
}

static int rows_cb(const struct hs_sql_row *row, void *arg)
{
	struct rows *r = arg;
	int err;

	if (r->record) {
		r->err = hs_cli_print_record(row);
		return 1;	/* one row only */
	}
	if (!r->o) {
		err = hs_out_new(stdout, hs_global.format, NULL, &r->o);
		if (!err)
			err = declare_columns(r->o, row);
		if (err) {
			r->err = err;
			return 1;
		}
	}
	err = out_row(r->o, row);
	if (err) {
		r->err = err;
		return 1;
	}
	return 0;
}

/**
 * hs_cli_print_query() - print the result rows of SQL
 * @st: the store
 * @sql: the statements
 * @record: print only the first row, as a record (hs_cli_print_record())
 *
 * A list prints nothing in a table or CSV when there are no rows, "[]" in JSON.
 *
 * Return: 0, -ENOMEM, or the store's -errno (message in hs_store_errmsg()).
 */
int hs_cli_print_query(struct hs_store *st, const char *sql, bool record)
{
	struct rows r = { .record = record };
	int err;

	err = hs_store_query(st, sql, rows_cb, &r);
	if (!err)
		err = r.err;
	if (!err && r.o) {
		err = hs_out_finish(r.o);
		if (err == -EIO)
			err = 0;	/* a write error is reported at exit */
	} else if (!err && !record && hs_global.format == HS_FMT_JSON) {
		fputs("[]\n", stdout);
	}
	hs_out_free(r.o);
	return err;
}

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
