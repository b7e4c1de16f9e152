/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result-set writers (see output.h).  Cells arrive one at a time, left to
 * right, row by row.  CSV and JSON stream each cell as it comes; the table
 * format keeps every cell's text until hs_out_finish() so that it can size the
 * columns: a header line of column names, then one line per row, columns two
 * spaces apart, numbers right-aligned and text left-aligned, no trailing
 * blanks.  CSV quotes a field only when RFC 4180 requires it and ends lines
 * with "\n".  JSON writes one object per row, one row per line:
 *
 *	[
 *	  {"a": 1, "b": "x"},
 *	  {"a": 2, "b": null}
 *	]
 *
 * or {"<wrap>": [ ... ]} with the same row lines.  Missing values are empty
 * in a table and in CSV and null in JSON, as are NaN and infinities in JSON.
 * Control characters in table cells show as '?' so that each row stays on
 * one line.  JSON text, escaping and numbers come from the one writer,
 * lib/json.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "output.h"

struct out_col {
	char			*name;		/* column name: header, CSV header, JSON key */
	enum hs_col_type	type;		/* decides table alignment and JSON form */
	char			*fmt;		/* printf format for reals, or NULL for "%g" */
	size_t			width;		/* table only: widest cell, in characters */
};

struct hs_out {
	FILE			*fp;		/* destination */
	enum hs_format		fmt;		/* output format */
	char			*wrap;		/* JSON wrapper key, or NULL for a bare array */
	struct out_col		*cols;		/* the columns, in order */
	size_t			ncols;		/* entries in cols */
	size_t			cur;		/* column of the next cell in this row */
	uint64_t		rows;		/* rows completed */
	bool			started;	/* header / opening bracket written (streams) */
	bool			failed;		/* an allocation failed; finish reports it */
	struct hs_json		json;		/* JSON only: the writer */
	char			**cells;	/* table only: rows * ncols texts (NULL = empty) */
	size_t			ncells;		/* table only: cells in use */
	size_t			cap;		/* table only: cells allocated */
};

/**
 * hs_format_parse() - read an output format name
 * @s: "table", "csv" or "json"
 * @fmt: receives the format
 *
 * Return: 0, or -EINVAL for any other text.
 */
int hs_format_parse(const char *s, enum hs_format *fmt)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "table"))
		*fmt = HS_FMT_TABLE;
	else if (!strcmp(s, "csv"))
		*fmt = HS_FMT_CSV;
	else if (!strcmp(s, "json"))
		*fmt = HS_FMT_JSON;
	else
		return -EINVAL;
	return 0;
}

/**
 * hs_out_new() - start a result set
 * @fp: where to write
 * @fmt: format
 * @json_wrap: NULL for a bare JSON array; else JSON output is {"<json_wrap>": [...]}
 * @out: the writer
 *
 * Return: 0 or -ENOMEM.
 */
int hs_out_new(FILE *fp, enum hs_format fmt, const char *json_wrap, struct hs_out **out)
{
	struct hs_out *o;

	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->fp = fp;
	o->fmt = fmt;
	if (json_wrap) {
		o->wrap = strdup(json_wrap);
		if (!o->wrap) {
			free(o);
			return -ENOMEM;
		}
	}
	*out = o;
	return 0;
}

/**
 * hs_out_column() - declare the next column
 * @o: the writer, before any cell was written
 * @name: column name
 * @type: column type
 * @table_fmt: printf format for HS_COL_REAL in table and CSV, NULL for "%g"
 *
 * Return: 0, -ENOMEM, or -EINVAL once cells have been written.
 */
int hs_out_column(struct hs_out *o, const char *name, enum hs_col_type type,
		  const char *table_fmt)
{
	struct out_col *cols;
	struct out_col *c;

	if (o->started || o->cur || o->ncells || o->rows)
		return -EINVAL;
	cols = realloc(o->cols, (o->ncols + 1) * sizeof(*cols));
	if (!cols)
		return -ENOMEM;
	o->cols = cols;
	c = &cols[o->ncols];
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->name = strdup(name ? name : "");
	if (!c->name)
		return -ENOMEM;
	if (table_fmt) {
		c->fmt = strdup(table_fmt);
		if (!c->fmt) {
			free(c->name);
			return -ENOMEM;
		}
	}
	o->ncols++;
	return 0;
}

/* Characters on screen, counting each UTF-8 sequence once. */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static bool csv_needs_quotes(const char *s)
{
	return strpbrk(s, ",\"\r\n") != NULL;
}

static void csv_field(FILE *fp, const char *s)
{
	if (!csv_needs_quotes(s)) {
		fputs(s, fp);
		return;
	}
	putc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}

/* Streams: write the CSV header line or the JSON opening once. */
static void stream_start(struct hs_out *o)
{
	size_t i;

	if (o->started)
		return;
	o->started = true;
	if (o->fmt == HS_FMT_CSV) {
		for (i = 0; i < o->ncols; i++) {
			if (i)
				putc(',', o->fp);
			csv_field(o->fp, o->cols[i].name);
		}
		putc('\n', o->fp);
	} else if (o->fmt == HS_FMT_JSON) {
		hs_json_init(&o->json, o->fp, HS_JSON_SPACED);
		if (o->wrap) {
			hs_json_object(&o->json);
			hs_json_key(&o->json, o->wrap);
		}
		hs_json_array_lines(&o->json);
	}
}

/* Table: keep a copy of @text (NULL: empty cell) for finish. */
static int table_keep(struct hs_out *o, const char *text)
{
	char *copy = NULL;

	if (o->ncells == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		char **cells = realloc(o->cells, cap * sizeof(*cells));

		if (!cells) {
			o->failed = true;
			return -ENOMEM;
		}
		o->cells = cells;
		o->cap = cap;
	}
	if (text) {
		size_t w;

		char *p;

		copy = strdup(text);
		if (!copy) {
			o->failed = true;
			return -ENOMEM;
		}
		/* a line break or tab would wreck the layout */
		for (p = copy; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		w = text_width(copy);
		if (w > o->cols[o->cur].width)
			o->cols[o->cur].width = w;
	}
	o->cells[o->ncells++] = copy;
	return 0;
}

/* Before a cell: the column must exist; streams open the row. */
static int cell_begin(struct hs_out *o)
{
	if (o->cur >= o->ncols)
		return -EINVAL;
	if (o->fmt == HS_FMT_TABLE)
		return 0;
	stream_start(o);
	if (o->fmt == HS_FMT_CSV) {
		if (o->cur)
			putc(',', o->fp);
	} else {
		if (o->cur == 0)
			hs_json_object(&o->json);
		return hs_json_key(&o->json, o->cols[o->cur].name);
	}
	return 0;
}

/*
 * Emit one cell whose table/CSV text is @text (NULL: empty) and whose JSON
 * form is @json (NULL: @text as a JSON string, or null if @text is NULL).
 */
static int cell_put(struct hs_out *o, const char *text, const char *json)
{
	int err = cell_begin(o);

	if (err)
		return err;
	switch (o->fmt) {
	case HS_FMT_TABLE:
		err = table_keep(o, text);
		if (err)
			return err;
		break;
	case HS_FMT_CSV:
		if (text)
			csv_field(o->fp, text);
		break;
	case HS_FMT_JSON:
		err = json ? hs_json_raw(&o->json, json) : hs_json_str(&o->json, text);
		if (err)
			return err;
		break;
	}
	o->cur++;
	return 0;
}

/**
 * hs_out_str() - write a text cell
 * @o: the writer
 * @s: the text, or NULL for a missing value
 *
 * Return: 0, -ENOMEM, or -EINVAL if the row already has every column.
 */
int hs_out_str(struct hs_out *o, const char *s)
{
	return cell_put(o, s, s ? NULL : "null");
}

/**
 * hs_out_int() - write a signed integer cell
 * @o: the writer
 * @v: the value
 *
 * Return: 0, -ENOMEM, or -EINVAL if the row already has every column.
 */
int hs_out_int(struct hs_out *o, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cell_put(o, buf, buf);
}

/**
 * hs_out_uint() - write an unsigned integer cell
 * @o: the writer
 * @v: the value
 *
 * Return: 0, -ENOMEM, or -EINVAL if the row already has every column.
 */
int hs_out_uint(struct hs_out *o, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cell_put(o, buf, buf);
}

/**
 * hs_out_real() - write a real cell
 * @o: the writer
 * @v: the value; NaN and infinities are null in JSON
 *
 * Table and CSV use the column's format ("%g" by default); JSON uses the
 * shortest text that reads back as @v.
 *
 * Return: 0, -ENOMEM, or -EINVAL if the row already has every column.
 */
int hs_out_real(struct hs_out *o, double v)
{
	const char *fmt;
	char text[64];

	if (o->cur >= o->ncols)
		return -EINVAL;
	fmt = o->cols[o->cur].fmt ? o->cols[o->cur].fmt : "%g";
	if (o->fmt == HS_FMT_JSON) {
		int err = cell_begin(o);

		if (!err)
			err = hs_json_real(&o->json, v);
		if (err)
			return err;
		o->cur++;
		return 0;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(text, sizeof(text), fmt, v);
#pragma GCC diagnostic pop
	return cell_put(o, text, NULL);
}

/**
 * hs_out_json() - write a cell that is already JSON text
 * @o: the writer
 * @raw: JSON text, emitted as is in JSON and as plain text elsewhere
 *	 (NULL for a missing value)
 *
 * Return: 0, -ENOMEM, or -EINVAL if the row already has every column.
 */
int hs_out_json(struct hs_out *o, const char *raw)
{
	return cell_put(o, raw, raw ? raw : "null");
}

/**
 * hs_out_null() - write a missing value
 * @o: the writer
 *
 * Return: 0, -ENOMEM, or -EINVAL if the row already has every column.
 */
int hs_out_null(struct hs_out *o)
{
	return cell_put(o, NULL, "null");
}

/**
 * hs_out_row_end() - finish the current row
 * @o: the writer
 *
 * Return: 0, or -EINVAL if the row does not have exactly one cell per column.
 */
int hs_out_row_end(struct hs_out *o)
{
	if (o->cur != o->ncols)
		return -EINVAL;
	if (o->fmt == HS_FMT_JSON && o->ncols == 0) {
		stream_start(o);
		hs_json_object(&o->json);
	}
	if (o->fmt == HS_FMT_CSV)
		putc('\n', o->fp);
	else if (o->fmt == HS_FMT_JSON && hs_json_end(&o->json))
		return o->json.err;
	o->cur = 0;
	o->rows++;
	return 0;
}

static bool right_aligned(const struct out_col *c)
{
	return c->type == HS_COL_INT || c->type == HS_COL_REAL;
}

/* Print one table line (the header if @cells is NULL); NULL cells are empty. */
static void table_line(struct hs_out *o, char *const *cells)
{
	size_t pending = 0;	/* blanks owed before the next visible text */
	size_t i;

	for (i = 0; i < o->ncols; i++) {
		const struct out_col *c = &o->cols[i];
		const char *s = !cells ? c->name : cells[i] ? cells[i] : "";
		size_t w = text_width(s);
		size_t pad = c->width - w;

		if (i)
			pending += 2;
		if (right_aligned(c))
			pending += pad;
		if (*s) {
			fprintf(o->fp, "%*s%s", (int)pending, "", s);
			pending = 0;
		}
		if (!right_aligned(c))
			pending += pad;
	}
	putc('\n', o->fp);
}

static void table_print(struct hs_out *o)
{
	size_t i, r;

	for (i = 0; i < o->ncols; i++) {
		size_t w = text_width(o->cols[i].name);

		if (w > o->cols[i].width)
			o->cols[i].width = w;
	}
	table_line(o, NULL);
	for (r = 0; r < o->rows; r++)
		table_line(o, o->cells + r * o->ncols);
}

/**
 * hs_out_finish() - write what is pending and flush
 * @o: the writer
 *
 * The table format prints its header and every row now; CSV prints its
 * header if no row was written; JSON closes its array (and wrapper object).
 * A row that was started but not ended is dropped from the table.
 *
 * Return: 0, -ENOMEM if an earlier cell could not be kept, or -EIO if
 * writing failed.
 */
int hs_out_finish(struct hs_out *o)
{
	switch (o->fmt) {
	case HS_FMT_TABLE:
		if (o->ncols)
			table_print(o);
		break;
	case HS_FMT_CSV:
		stream_start(o);
		break;
	case HS_FMT_JSON:
		stream_start(o);
		if (o->cur)
			hs_json_end(&o->json);	/* a row that was not ended */
		hs_json_end(&o->json);
		if (o->wrap)
			hs_json_end(&o->json);
		putc('\n', o->fp);
		break;
	}
	if (fflush(o->fp) || ferror(o->fp))
		return -EIO;
	return o->failed ? -ENOMEM : 0;
}

/**
 * hs_out_free() - release a writer
 * @o: the writer, or NULL
 *
 * Return: nothing.
 */
void hs_out_free(struct hs_out *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->ncells; i++)
		free(o->cells[i]);
	free(o->cells);
	for (i = 0; i < o->ncols; i++) {
		free(o->cols[i].name);
		free(o->cols[i].fmt);
	}
	free(o->cols);
	free(o->wrap);
	free(o);
}
