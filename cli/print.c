/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Printing SQL-shaped results, the same way in every command: the rows of a
 * query as a table, CSV or a JSON array of objects (hs_cli_print_query(),
 * for `hsctl sql`, `hsctl sessions` and `hsctl db`), one row as a record
 * (hs_cli_print_record()), and a new session's id and counts
 * (hs_cli_print_session(), for import and gen).  All of its JSON is written
 * by lib/json.h, the one JSON writer.  It uses cli/common.c (the
 * global --format, the error reporter) and nothing here calls back into a
 * command, so the commands and common.c depend on this file, never the other
 * way round.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hs.h"
#include "json.h"
#include "output.h"
#include "store.h"

struct rows {
	struct hs_out	*o;		/* list output, made at the first row */
	bool		record;		/* print the first row as a record and stop */
	int		err;		/* -ENOMEM from the output */
};

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

/**
 * hs_cli_json_row() - write a row's cells as members of the open JSON object
 * @j: the writer, inside an object
 * @row: the row
 *
 * Each cell under its column's name, as its own type: integers and reals as
 * numbers, text as a string, NULL as null.
 *
 * Return: 0 or the writer's error.
 */
int hs_cli_json_row(struct hs_json *j, const struct hs_sql_row *row)
{
	size_t i;
	int err = 0;

	for (i = 0; i < row->ncols && !err; i++) {
		err = hs_json_key(j, row->names[i]);
		if (err)
			break;
		switch (row->types[i]) {
		case HS_SQL_NULL:
			err = hs_json_null(j);
			break;
		case HS_SQL_INT:
			err = hs_json_int(j, row->ints[i]);
			break;
		case HS_SQL_REAL:
			err = hs_json_real(j, row->reals[i]);
			break;
		default:
			err = hs_json_str(j, row->texts[i]);
			break;
		}
	}
	return err;
}

/* Finish a writer on stdout and end its line; a write error is reported at exit. */
static int json_done(struct hs_json *j)
{
	int err = hs_json_finish(j);

	putchar('\n');
	return err == -EIO ? 0 : err;
}

/* The record layout: one member per line, two blanks in. */
static int print_record_json(const struct hs_sql_row *row)
{
	struct hs_json j;

	hs_json_init(&j, stdout, HS_JSON_SPACED);
	hs_json_object_lines(&j);
	hs_cli_json_row(&j, row);
	hs_json_end(&j);
	return json_done(&j);
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
		struct hs_json j;

		hs_json_init(&j, stdout, HS_JSON_SPACED);
		hs_json_array_lines(&j);
		hs_json_end(&j);
		err = json_done(&j);	/* [] */
	}
	hs_out_free(r.o);
	return err;
}

/* The CSV of hs_cli_print_session(): a header and one row, as a record.  Return: 0 or -ENOMEM. */
static int print_session_csv(const struct hs_session_info *si)
{
	static const char *const names[] = {
		"session", "accesses", "distinct_keys", "name", "unit",
	};
	static const enum hs_sql_type types[] = {
		HS_SQL_INT, HS_SQL_INT, HS_SQL_INT, HS_SQL_TEXT, HS_SQL_TEXT,
	};
	const int64_t ints[] = { si->id, (int64_t)si->accesses, (int64_t)si->distinct_keys, 0, 0 };
	const char *const texts[] = { NULL, NULL, NULL, si->name, si->unit };
	const double reals[ARRAY_SIZE(names)] = { 0 };
	const struct hs_sql_row row = { ARRAY_SIZE(names), names, types, ints, reals, texts };

	return hs_cli_print_record(&row);
}

/* The JSON of hs_cli_print_session(): one object on one line. */
static int print_session_json(const struct hs_session_info *si)
{
	struct hs_json j;

	hs_json_init(&j, stdout, HS_JSON_SPACED);
	hs_json_object(&j);
	hs_json_key(&j, "session");
	hs_json_int(&j, si->id);
	hs_json_key(&j, "accesses");
	hs_json_uint(&j, si->accesses);
	hs_json_key(&j, "distinct_keys");
	hs_json_uint(&j, si->distinct_keys);
	hs_json_key(&j, "name");
	hs_json_str(&j, si->name);
	hs_json_key(&j, "unit");
	hs_json_str(&j, si->unit);
	hs_json_end(&j);
	return json_done(&j);
}

/**
 * hs_cli_print_session() - print a new session's id and counts
 * @st: the store
 * @id: the session
 *
 * table: "session 3: 914145 accesses, 186880 distinct keys (NAME)"; json: one
 * object {"session", "accesses", "distinct_keys", "name", "unit"}; csv: a
 * header and one row with the same columns.
 *
 * Return: an exit status.
 */
int hs_cli_print_session(struct hs_store *st, int64_t id)
{
	struct hs_session_info si;
	int err;

	err = hs_session_get(st, id, &si);
	if (err) {
		hs_err("session %" PRId64 ": %s", id, hs_store_errmsg(st));
		return hs_exit_from_errno(err);
	}
	switch (hs_global.format) {
	case HS_FMT_JSON:
		err = print_session_json(&si);
		if (err) {
			hs_err("output: %s", strerror(-err));
			return HS_EXIT_FAILURE;
		}
		return HS_EXIT_OK;
	case HS_FMT_CSV:
		if (print_session_csv(&si)) {
			hs_err("output: %s", strerror(ENOMEM));
			return HS_EXIT_FAILURE;
		}
		return HS_EXIT_OK;
	case HS_FMT_TABLE:
	default:
		printf("session %" PRId64 ": %" PRIu64 " accesses, %" PRIu64
		       " distinct keys (%s)\n", si.id, si.accesses, si.distinct_keys, si.name);
		return HS_EXIT_OK;
	}
}
