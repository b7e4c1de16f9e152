/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result-set writers for every command that prints results: an aligned table
 * (default, meant to fit in 80 columns), CSV (RFC 4180 quoting) or JSON (an
 * array of objects keyed by column name, or {"<wrap>": [...], ...}).
 *
 * Use: hs_out_new(); hs_out_column() for each column; then for each row
 * hs_out_*() once per column in order and hs_out_row_end(); hs_out_finish().
 * The table format buffers rows to size its columns; the others stream.
 */
#ifndef HS_OUTPUT_H
#define HS_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

enum hs_format { HS_FMT_TABLE, HS_FMT_CSV, HS_FMT_JSON };

/* "table"/"csv"/"json" -> 0 and *fmt, else -EINVAL. */
int hs_format_parse(const char *s, enum hs_format *fmt);

enum hs_col_type {
	HS_COL_STR,	/* JSON string */
	HS_COL_INT,	/* JSON number */
	HS_COL_REAL,	/* JSON number; table/csv use the column's printf format */
	HS_COL_JSON,	/* already-JSON text, emitted raw in JSON, as text elsewhere */
};

struct hs_out;

/**
 * hs_out_new() - start a result set
 * @fp: where to write
 * @fmt: format
 * @json_wrap: NULL for a bare JSON array; else JSON output is {"<json_wrap>": [...]}
 * @out: the writer
 *
 * Return: 0 or -ENOMEM.
 */
int hs_out_new(FILE *fp, enum hs_format fmt, const char *json_wrap, struct hs_out **out);

/* @table_fmt: printf format for HS_COL_REAL in table/csv ("%.4f"); NULL: "%g". */
int hs_out_column(struct hs_out *o, const char *name, enum hs_col_type type,
		  const char *table_fmt);
int hs_out_str(struct hs_out *o, const char *s);	/* NULL prints null / empty */
int hs_out_int(struct hs_out *o, int64_t v);
int hs_out_uint(struct hs_out *o, uint64_t v);
int hs_out_real(struct hs_out *o, double v);		/* NaN/inf print null in JSON */
int hs_out_json(struct hs_out *o, const char *raw);	/* for HS_COL_JSON */
int hs_out_null(struct hs_out *o);
int hs_out_row_end(struct hs_out *o);
/* Flush; JSON closes its array/object.  Return: 0 or -EIO if writing failed. */
int hs_out_finish(struct hs_out *o);
void hs_out_free(struct hs_out *o);

#endif /* HS_OUTPUT_H */
