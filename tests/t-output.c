/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/output.c: the exact text of the table, CSV and JSON
 * writers on small result sets written into an open_memstream() buffer, JSON
 * string escaping, misuse (too many or too few cells) and a write error
 * turning into -EIO.  Expected texts are written out by hand; the table
 * comments mark each column's width.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "json.h"
#include "output.h"

/* Run @fill on a writer for @fmt and return everything written (free it). */
static char *render(enum hs_format fmt, const char *wrap, void (*fill)(struct hs_out *o))
{
	struct hs_out *o = NULL;
	size_t len = 0;
	char *text = NULL;
	FILE *fp;

	fp = open_memstream(&text, &len);
	if (!fp) {
		t_fail(__FILE__, __LINE__, "open_memstream failed");
		return NULL;
	}
	T_EQ_I64(hs_out_new(fp, fmt, wrap, &o), 0);
	if (o) {
		fill(o);
		T_EQ_I64(hs_out_finish(o), 0);
		hs_out_free(o);
	}
	fclose(fp);
	return text;
}

static void check(enum hs_format fmt, const char *wrap, void (*fill)(struct hs_out *o),
		  const char *want)
{
	char *got = render(fmt, wrap, fill);

	T_EQ_STR(got, want);
	free(got);
}

/* Columns name STR, hits INT, ratio REAL "%.4f", note STR. */
static void cols4(struct hs_out *o)
{
	T_EQ_I64(hs_out_column(o, "name", HS_COL_STR, NULL), 0);
	T_EQ_I64(hs_out_column(o, "hits", HS_COL_INT, NULL), 0);
	T_EQ_I64(hs_out_column(o, "ratio", HS_COL_REAL, "%.4f"), 0);
	T_EQ_I64(hs_out_column(o, "note", HS_COL_STR, NULL), 0);
}

static void fill_plain(struct hs_out *o)
{
	cols4(o);
	hs_out_str(o, "lru");
	hs_out_uint(o, 12345);
	hs_out_real(o, 0.25);
	hs_out_str(o, "x");
	T_EQ_I64(hs_out_row_end(o), 0);
	hs_out_str(o, "arc");
	hs_out_int(o, 7);
	hs_out_real(o, 0.5);
	hs_out_str(o, NULL);
	T_EQ_I64(hs_out_row_end(o), 0);
	hs_out_str(o, "two-q");
	hs_out_int(o, -3);
	hs_out_null(o);
	hs_out_str(o, "tab\there");
	T_EQ_I64(hs_out_row_end(o), 0);
}

static void table_basic(void)
{
	/*
	 * Widths: name 5 ("two-q"), hits 5 ("12345"), ratio 6 ("0.2500"),
	 * note 8 ("tab?here").  Columns start at 0, 7, 14 and 22.  Numbers
	 * and their headers are right-aligned; no line has trailing blanks.
	 */
	check(HS_FMT_TABLE, NULL, fill_plain,
	      "name    hits   ratio  note\n"
	      "lru    12345  0.2500  x\n"
	      "arc        7  0.5000\n"
	      "two-q     -3          tab?here\n");
}

static void csv_basic(void)
{
	/* a tab needs no quotes in RFC 4180; missing values are empty */
	check(HS_FMT_CSV, NULL, fill_plain,
	      "name,hits,ratio,note\n"
	      "lru,12345,0.2500,x\n"
	      "arc,7,0.5000,\n"
	      "two-q,-3,,tab\there\n");
}

static void json_basic(void)
{
	/* JSON ignores the table format: 0.25, not 0.2500 */
	check(HS_FMT_JSON, NULL, fill_plain,
	      "[\n"
	      "  {\"name\": \"lru\", \"hits\": 12345, \"ratio\": 0.25, \"note\": \"x\"},\n"
	      "  {\"name\": \"arc\", \"hits\": 7, \"ratio\": 0.5, \"note\": null},\n"
	      "  {\"name\": \"two-q\", \"hits\": -3, \"ratio\": null, \"note\": \"tab\\there\"}\n"
	      "]\n");
	check(HS_FMT_JSON, "runs", fill_plain,
	      "{\"runs\": [\n"
	      "  {\"name\": \"lru\", \"hits\": 12345, \"ratio\": 0.25, \"note\": \"x\"},\n"
	      "  {\"name\": \"arc\", \"hits\": 7, \"ratio\": 0.5, \"note\": null},\n"
	      "  {\"name\": \"two-q\", \"hits\": -3, \"ratio\": null, \"note\": \"tab\\there\"}\n"
	      "]}\n");
}

/* Text that needs quoting or escaping, and a JSON column. */
static void fill_awkward(struct hs_out *o)
{
	T_EQ_I64(hs_out_column(o, "key", HS_COL_STR, NULL), 0);
	T_EQ_I64(hs_out_column(o, "params", HS_COL_JSON, NULL), 0);
	hs_out_str(o, "a,\"b\"");
	hs_out_json(o, "{\"lambda\":0.5}");
	T_EQ_I64(hs_out_row_end(o), 0);
	hs_out_str(o, "line\nbreak\r\x01");
	hs_out_json(o, NULL);
	T_EQ_I64(hs_out_row_end(o), 0);
}

static void quoting(void)
{
	check(HS_FMT_CSV, NULL, fill_awkward,
	      "key,params\n"
	      "\"a,\"\"b\"\"\",\"{\"\"lambda\"\":0.5}\"\n"
	      "\"line\nbreak\r\x01\",\n");
	check(HS_FMT_JSON, NULL, fill_awkward,
	      "[\n"
	      "  {\"key\": \"a,\\\"b\\\"\", \"params\": {\"lambda\":0.5}},\n"
	      "  {\"key\": \"line\\nbreak\\r\\u0001\", \"params\": null}\n"
	      "]\n");
	/* widths: key 12 ("line?break??"; "a,\"b\"" is 5), params 14; params starts at 14 */
	check(HS_FMT_TABLE, NULL, fill_awkward,
	      "key           params\n"
	      "a,\"b\"         {\"lambda\":0.5}\n"
	      "line?break??\n");
}

/* Reals with the default "%g" and extreme integers. */
static void fill_numbers(struct hs_out *o)
{
	static const double v[] = { 0.1, 1e-5, 123456789.0, 1e300 };
	size_t i;

	T_EQ_I64(hs_out_column(o, "v", HS_COL_REAL, NULL), 0);
	T_EQ_I64(hs_out_column(o, "n", HS_COL_INT, NULL), 0);
	for (i = 0; i < 4; i++) {
		hs_out_real(o, v[i]);
		if (i == 0)
			hs_out_uint(o, UINT64_MAX);
		else if (i == 1)
			hs_out_int(o, INT64_MIN);
		else
			hs_out_int(o, (int64_t)i);
		T_EQ_I64(hs_out_row_end(o), 0);
	}
	hs_out_real(o, INFINITY);
	hs_out_real(o, -INFINITY);
	T_EQ_I64(hs_out_row_end(o), 0);
}

static void numbers(void)
{
	/* widths: v 11 ("1.23457e+08"), n 20 ("18446744073709551615", "-9223372036854775808") */
	check(HS_FMT_TABLE, NULL, fill_numbers,
	      "          v                     n\n"
	      "        0.1  18446744073709551615\n"
	      "      1e-05  -9223372036854775808\n"
	      "1.23457e+08                     2\n"
	      "     1e+300                     3\n"
	      "        inf                  -inf\n");
	check(HS_FMT_CSV, NULL, fill_numbers,
	      "v,n\n"
	      "0.1,18446744073709551615\n"
	      "1e-05,-9223372036854775808\n"
	      "1.23457e+08,2\n"
	      "1e+300,3\n"
	      "inf,-inf\n");
	/* JSON: the shortest text that reads back exactly; infinities are null */
	check(HS_FMT_JSON, NULL, fill_numbers,
	      "[\n"
	      "  {\"v\": 0.1, \"n\": 18446744073709551615},\n"
	      "  {\"v\": 1e-05, \"n\": -9223372036854775808},\n"
	      "  {\"v\": 123456789, \"n\": 2},\n"
	      "  {\"v\": 1e+300, \"n\": 3},\n"
	      "  {\"v\": null, \"n\": null}\n"
	      "]\n");
}

static void fill_empty(struct hs_out *o)
{
	T_EQ_I64(hs_out_column(o, "policy", HS_COL_STR, NULL), 0);
	T_EQ_I64(hs_out_column(o, "hits", HS_COL_INT, NULL), 0);
}

static void no_rows(void)
{
	check(HS_FMT_TABLE, NULL, fill_empty, "policy  hits\n");
	check(HS_FMT_CSV, NULL, fill_empty, "policy,hits\n");
	check(HS_FMT_JSON, NULL, fill_empty, "[]\n");
	check(HS_FMT_JSON, "runs", fill_empty, "{\"runs\": []}\n");
}

static void fill_misuse(struct hs_out *o)
{
	fill_empty(o);
	T_EQ_I64(hs_out_str(o, "lru"), 0);
	/* a row must have every column */
	T_EQ_I64(hs_out_row_end(o), -EINVAL);
	T_EQ_I64(hs_out_int(o, 1), 0);
	/* and no more */
	T_EQ_I64(hs_out_int(o, 2), -EINVAL);
	T_EQ_I64(hs_out_real(o, 2), -EINVAL);
	T_EQ_I64(hs_out_null(o), -EINVAL);
	T_EQ_I64(hs_out_row_end(o), 0);
	/* columns cannot be added once cells were written */
	T_EQ_I64(hs_out_column(o, "late", HS_COL_STR, NULL), -EINVAL);
}

static void misuse(void)
{
	check(HS_FMT_TABLE, NULL, fill_misuse, "policy  hits\nlru        1\n");
	check(HS_FMT_CSV, NULL, fill_misuse, "policy,hits\nlru,1\n");
	check(HS_FMT_JSON, NULL, fill_misuse, "[\n  {\"policy\": \"lru\", \"hits\": 1}\n]\n");
}

static void write_error(void)
{
	struct hs_out *o = NULL;
	FILE *fp = fopen("/dev/null", "r");	/* every write fails */

	if (!fp) {
		t_skip("cannot open /dev/null");
		return;
	}
	T_EQ_I64(hs_out_new(fp, HS_FMT_CSV, NULL, &o), 0);
	if (o) {
		fill_plain(o);
		T_EQ_I64(hs_out_finish(o), -EIO);
		hs_out_free(o);
	}
	fclose(fp);
}

static void json_string(void)
{
	size_t len = 0;
	char *text = NULL;
	FILE *fp = open_memstream(&text, &len);

	if (!fp) {
		t_fail(__FILE__, __LINE__, "open_memstream failed");
		return;
	}
	hs_json_quote(fp, "plain/text");
	putc(' ', fp);
	hs_json_quote(fp, "\"\\\b\f\n\r\t\x1f\x7f");
	putc(' ', fp);
	hs_json_quote(fp, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");	/* é € U+1F600 */
	putc(' ', fp);
	/* not UTF-8: a lone byte, a truncated sequence, an overlong '/', a surrogate */
	hs_json_quote(fp, "\xff|\xc3|\xc0\xaf|\xed\xa0\x80");
	putc(' ', fp);
	hs_json_quote(fp, "");
	putc(' ', fp);
	hs_json_quote(fp, NULL);
	fclose(fp);
	T_EQ_STR(text, "\"plain/text\" "
		 "\"\\\"\\\\\\b\\f\\n\\r\\t\\u001f\\u007f\" "
		 "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" "
		 "\"\\ufffd|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\" "
		 "\"\" null");
	free(text);
}

static void format_names(void)
{
	enum hs_format f = HS_FMT_JSON;

	T_EQ_I64(hs_format_parse("table", &f), 0);
	T_EQ_I64(f, HS_FMT_TABLE);
	T_EQ_I64(hs_format_parse("csv", &f), 0);
	T_EQ_I64(f, HS_FMT_CSV);
	T_EQ_I64(hs_format_parse("json", &f), 0);
	T_EQ_I64(f, HS_FMT_JSON);
	T_EQ_I64(hs_format_parse("JSON", &f), -EINVAL);
	T_EQ_I64(hs_format_parse("", &f), -EINVAL);
	T_EQ_I64(hs_format_parse(NULL, &f), -EINVAL);
	T_EQ_I64(f, HS_FMT_JSON);
	hs_out_free(NULL);
}

static const struct t_case cases[] = {
	{ "table_basic", table_basic },
	{ "csv_basic", csv_basic },
	{ "json_basic", json_basic },
	{ "quoting", quoting },
	{ "numbers", numbers },
	{ "no_rows", no_rows },
	{ "misuse", misuse },
	{ "write_error", write_error },
	{ "json_string", json_string },
	{ "format_names", format_names },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
