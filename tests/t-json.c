/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/json.c, the one JSON writer: the exact text of the
 * compact, spaced and one-item-per-line layouts, the number rules (shortest
 * exact text, whole numbers without an exponent, fixed decimals, null for
 * NaN and infinities), string escaping of keys and values, and misuse that
 * must not produce JSON (a value without its key, a key in an array, an end
 * with nothing open, a second value, an unfinished one) coming back as a
 * sticky -EINVAL.  String escaping in detail is t-output's json_string.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "json.h"

/* End a memory writer and compare its text with @want (NULL: expect @err). */
static void expect_text(struct hs_json *j, int err, const char *want)
{
	char *text = NULL;

	T_EQ_I64(hs_json_take(j, &text), err);
	if (want)
		T_EQ_STR(text, want);
	free(text);
}

static void layouts(void)
{
	struct hs_json j;

	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_object(&j);
	hs_json_key(&j, "a");
	hs_json_int(&j, -1);
	hs_json_key(&j, "b");
	hs_json_array(&j);
	hs_json_uint(&j, 18446744073709551615ull);
	hs_json_bool(&j, true);
	hs_json_null(&j);
	hs_json_object(&j);
	hs_json_end(&j);
	hs_json_array(&j);
	hs_json_end(&j);
	hs_json_end(&j);
	hs_json_key(&j, "c");
	hs_json_raw(&j, "{\"x\":[1]}");
	hs_json_end(&j);
	expect_text(&j, 0, "{\"a\":-1,\"b\":[18446744073709551615,true,null,{},[]],"
		    "\"c\":{\"x\":[1]}}");

	T_EQ_I64(hs_json_init_mem(&j, HS_JSON_SPACED), 0);
	hs_json_object(&j);
	hs_json_key(&j, "a");
	hs_json_str(&j, "x");
	hs_json_key(&j, "b");
	hs_json_array(&j);
	hs_json_int(&j, 1);
	hs_json_int(&j, 2);
	hs_json_end(&j);
	hs_json_end(&j);
	expect_text(&j, 0, "{\"a\": \"x\", \"b\": [1, 2]}");

	/* the row layout of --format json: items on lines, two blanks in */
	T_EQ_I64(hs_json_init_mem(&j, HS_JSON_SPACED), 0);
	hs_json_object(&j);
	hs_json_key(&j, "runs");
	hs_json_array_lines(&j);
	hs_json_object(&j);
	hs_json_key(&j, "a");
	hs_json_int(&j, 1);
	hs_json_end(&j);
	hs_json_object(&j);
	hs_json_end(&j);
	hs_json_end(&j);
	hs_json_end(&j);
	expect_text(&j, 0, "{\"runs\": [\n  {\"a\": 1},\n  {}\n]}");
	T_EQ_I64(hs_json_init_mem(&j, HS_JSON_SPACED), 0);
	hs_json_array_lines(&j);
	hs_json_end(&j);
	expect_text(&j, 0, "[]");

	/*
	 * The record layout (hsctl sessions show): members on lines, and a
	 * container with lines inside it two blanks further in; its inline
	 * items stay on one line each.
	 */
	T_EQ_I64(hs_json_init_mem(&j, HS_JSON_SPACED), 0);
	hs_json_object_lines(&j);
	hs_json_key(&j, "id");
	hs_json_int(&j, 1);
	hs_json_key(&j, "checks");
	hs_json_array_lines(&j);
	hs_json_object(&j);
	hs_json_key(&j, "a");
	hs_json_int(&j, 1);
	hs_json_key(&j, "b");
	hs_json_null(&j);
	hs_json_end(&j);
	hs_json_array(&j);
	hs_json_end(&j);
	hs_json_end(&j);
	hs_json_key(&j, "empty");
	hs_json_array_lines(&j);
	hs_json_end(&j);
	hs_json_end(&j);
	expect_text(&j, 0, "{\n  \"id\": 1,\n  \"checks\": [\n    {\"a\": 1, \"b\": null},"
		    "\n    []\n  ],\n  \"empty\": []\n}");
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_object_lines(&j);
	hs_json_key(&j, "a");
	hs_json_object_lines(&j);
	hs_json_end(&j);
	hs_json_key(&j, "b");
	hs_json_bool(&j, true);
	hs_json_end(&j);
	expect_text(&j, 0, "{\n  \"a\":{},\n  \"b\":true\n}");

	/* a bare scalar is a document too */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_str(&j, NULL);
	expect_text(&j, 0, "null");
}

static void numbers(void)
{
	struct hs_json j;

	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_array(&j);
	hs_json_real(&j, 0.1);
	hs_json_real(&j, 100);
	hs_json_real(&j, -0.5);
	hs_json_real(&j, 1.0 / 3);
	hs_json_real(&j, 1e15);
	hs_json_real(&j, 123456789012345.0);
	hs_json_real(&j, 1e-7);
	hs_json_real(&j, NAN);
	hs_json_real(&j, INFINITY);
	hs_json_fixed(&j, 1.5, 3);
	hs_json_fixed(&j, 2.0004, 3);
	hs_json_fixed(&j, -INFINITY, 3);
	hs_json_end(&j);
	expect_text(&j, 0, "[0.1,100,-0.5,0.3333333333333333,1e+15,123456789012345,1e-07,"
		    "null,null,1.500,2.000,null]");
}

static void strings(void)
{
	struct hs_json j;

	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_object(&j);
	hs_json_key(&j, "k\"\n");
	hs_json_str(&j, "a\\b\t\x01\xff");
	hs_json_key(&j, "n");
	hs_json_str_len(&j, "abcdef", 3);
	hs_json_end(&j);
	expect_text(&j, 0, "{\"k\\\"\\n\":\"a\\\\b\\t\\u0001\\ufffd\",\"n\":\"abc\"}");
}

static void misuse(void)
{
	struct hs_json j;

	/* a value in an object without its key; the error sticks */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_object(&j);
	T_EQ_I64(hs_json_int(&j, 1), -EINVAL);
	T_EQ_I64(hs_json_key(&j, "a"), -EINVAL);
	T_EQ_I64(hs_json_end(&j), -EINVAL);
	expect_text(&j, -EINVAL, NULL);

	/* a key in an array */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_array(&j);
	T_EQ_I64(hs_json_key(&j, "a"), -EINVAL);
	expect_text(&j, -EINVAL, NULL);

	/* a key without its value at the end */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_object(&j);
	hs_json_key(&j, "a");
	T_EQ_I64(hs_json_end(&j), -EINVAL);
	expect_text(&j, -EINVAL, NULL);

	/* an end with nothing open, a second top-level value */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	T_EQ_I64(hs_json_end(&j), -EINVAL);
	expect_text(&j, -EINVAL, NULL);
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	T_EQ_I64(hs_json_int(&j, 1), 0);
	T_EQ_I64(hs_json_int(&j, 2), -EINVAL);
	expect_text(&j, -EINVAL, NULL);

	/* unfinished, or nothing at all */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	hs_json_array(&j);
	expect_text(&j, -EINVAL, NULL);
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	expect_text(&j, -EINVAL, NULL);

	/* too deep */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	for (int i = 0; i < HS_JSON_MAX_DEPTH; i++)
		T_EQ_I64(hs_json_array(&j), 0);
	T_EQ_I64(hs_json_array(&j), -E2BIG);
	expect_text(&j, -E2BIG, NULL);

	/* a bad number of decimals */
	T_EQ_I64(hs_json_init_mem(&j, 0), 0);
	T_EQ_I64(hs_json_fixed(&j, 1, 18), -EINVAL);
	expect_text(&j, -EINVAL, NULL);
}

static void stream(void)
{
	size_t len = 0;
	char *text = NULL;
	FILE *fp = open_memstream(&text, &len);
	struct hs_json j;

	if (!fp) {
		t_fail(__FILE__, __LINE__, "open_memstream failed");
		return;
	}
	hs_json_init(&j, fp, HS_JSON_SPACED);
	T_EQ_I64(hs_json_finish(&j), -EINVAL);
	hs_json_object(&j);
	hs_json_key(&j, "x");
	hs_json_fixed(&j, 0.25, 1);
	hs_json_end(&j);
	T_EQ_I64(hs_json_finish(&j), 0);
	fclose(fp);
	T_EQ_STR(text, "{\"x\": 0.2}");
	free(text);
}

static const struct t_case cases[] = {
	{ "layouts", layouts },
	{ "numbers", numbers },
	{ "strings", strings },
	{ "misuse", misuse },
	{ "stream", stream },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
