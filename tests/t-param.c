/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/param.c: defaults, parsing of every type, exact error
 * messages (they name the valid keys, choices or range), the canonical JSON
 * text, and the empty-table and small-buffer edges.  The table below is made
 * up for the test; expected strings are written out by hand.
 */
#include "config.h"

#include <errno.h>

#include "harness.h"
#include "param.h"

static const struct hs_param table[] = {
	{ .name = "lambda", .type = HS_PARAM_DOUBLE, .def = "0.5", .help = "decay",
	  .min = 0, .max = 1 },
	{ .name = "ghost", .type = HS_PARAM_BOOL, .def = "yes", .help = "keep ghosts" },
	{ .name = "mode", .type = HS_PARAM_ENUM, .def = "demand", .help = "variant",
	  .choices = "demand|bypass|lookahead" },
	{ .name = "depth", .type = HS_PARAM_U64, .def = "10", .help = "levels",
	  .min = 1, .max = 100 },
	{ .name = "limit", .type = HS_PARAM_U64, .def = "0", .help = "no upper bound",
	  .min = 0, .max = 18446744073709551616.0 },
	{ .name = NULL },
};

static const struct hs_param bad_default[] = {
	{ .name = "x", .type = HS_PARAM_U64, .def = "1000", .help = "", .min = 0, .max = 10 },
	{ .name = NULL },
};

static void defaults(void)
{
	struct hs_param_set *ps = NULL;

	T_EQ_I64(hs_param_set_new(table, &ps), 0);
	if (!ps)
		return;
	T_ASSERT(hs_param_double(ps, "lambda") == 0.5);
	T_ASSERT(hs_param_bool(ps, "ghost"));
	T_EQ_U64(hs_param_enum(ps, "mode"), 0);
	T_EQ_U64(hs_param_u64(ps, "depth"), 10);
	T_EQ_U64(hs_param_u64(ps, "limit"), 0);
	T_ASSERT(hs_param_set_table(ps) == table);
	hs_param_set_free(ps);
}

static void parse_values(void)
{
	struct hs_param_set *ps = NULL;
	char err[128];

	T_EQ_I64(hs_param_set_new(table, &ps), 0);
	if (!ps)
		return;
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "1", err, sizeof(err)), 0);
	T_ASSERT(hs_param_double(ps, "lambda") == 1.0);
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "0", err, sizeof(err)), 0);
	T_ASSERT(hs_param_double(ps, "lambda") == 0.0);
	T_EQ_I64(hs_param_set_parse(ps, "mode", "lookahead", err, sizeof(err)), 0);
	T_EQ_U64(hs_param_enum(ps, "mode"), 2);
	T_EQ_I64(hs_param_set_parse(ps, "mode", "bypass", err, sizeof(err)), 0);
	T_EQ_U64(hs_param_enum(ps, "mode"), 1);
	T_EQ_I64(hs_param_set_parse(ps, "depth", "100", err, sizeof(err)), 0);
	T_EQ_U64(hs_param_u64(ps, "depth"), 100);
	T_EQ_I64(hs_param_set_parse(ps, "limit", "18446744073709551615", err, sizeof(err)), 0);
	T_EQ_U64(hs_param_u64(ps, "limit"), UINT64_MAX);
	hs_param_set_free(ps);
}

static void parse_bools(void)
{
	static const char *const yes[] = { "true", "1", "yes", "on", "TRUE", "On" };
	static const char *const no[] = { "false", "0", "no", "off", "False", "OFF" };
	struct hs_param_set *ps = NULL;
	char err[128];
	size_t i;

	T_EQ_I64(hs_param_set_new(table, &ps), 0);
	if (!ps)
		return;
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		T_EQ_I64(hs_param_set_parse(ps, "ghost", no[i], err, sizeof(err)), 0);
		T_ASSERT(!hs_param_bool(ps, "ghost"));
		T_EQ_I64(hs_param_set_parse(ps, "ghost", yes[i], err, sizeof(err)), 0);
		T_ASSERT(hs_param_bool(ps, "ghost"));
	}
	hs_param_set_free(ps);
}

static void errors(void)
{
	struct hs_param_set *ps = NULL;
	char err[160];

	T_EQ_I64(hs_param_set_new(table, &ps), 0);
	if (!ps)
		return;
	T_EQ_I64(hs_param_set_parse(ps, "x", "1", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "unknown parameter 'x' for this policy "
		 "(valid: lambda, ghost, mode, depth, limit)");
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "abc", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value 'abc' for lambda: expected a number in [0, 1]");
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "1.5", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value '1.5' for lambda: expected a number in [0, 1]");
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value '' for lambda: expected a number in [0, 1]");
	T_EQ_I64(hs_param_set_parse(ps, "ghost", "maybe", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value 'maybe' for ghost: expected true/false, 1/0, yes/no or on/off");
	T_EQ_I64(hs_param_set_parse(ps, "mode", "Demand", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value 'Demand' for mode: expected one of: demand, bypass, lookahead");
	T_EQ_I64(hs_param_set_parse(ps, "depth", "0", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value '0' for depth: expected an integer in [1, 100]");
	T_EQ_I64(hs_param_set_parse(ps, "depth", "10abc", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value '10abc' for depth: expected an integer in [1, 100]");
	T_EQ_I64(hs_param_set_parse(ps, "depth", "-1", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "bad value '-1' for depth: expected an integer in [1, 100]");
	T_EQ_I64(hs_param_set_parse(ps, "limit", "18446744073709551616", err, sizeof(err)),
		 -EINVAL);
	T_EQ_STR(err, "bad value '18446744073709551616' for limit: expected an integer >= 0");
	/* a failed parse leaves the old values */
	T_ASSERT(hs_param_double(ps, "lambda") == 0.5);
	T_ASSERT(hs_param_bool(ps, "ghost"));
	T_EQ_U64(hs_param_enum(ps, "mode"), 0);
	T_EQ_U64(hs_param_u64(ps, "depth"), 10);
	/* a short buffer is truncated but terminated */
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "abc", err, 10), -EINVAL);
	T_EQ_STR(err, "bad value");
	/* no buffer at all is fine */
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "abc", NULL, 0), -EINVAL);
	hs_param_set_free(ps);
}

static void json(void)
{
	struct hs_param_set *ps = NULL;
	char err[128];
	char buf[256];
	static const char def_json[] =
		"{\"lambda\":0.5,\"ghost\":true,\"mode\":\"demand\",\"depth\":10,\"limit\":0}";

	T_EQ_I64(hs_param_set_new(table, &ps), 0);
	if (!ps)
		return;
	T_EQ_I64(hs_param_set_json(ps, buf, sizeof(buf)), (int64_t)strlen(def_json));
	T_EQ_STR(buf, def_json);
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "0.1", err, sizeof(err)), 0);
	T_EQ_I64(hs_param_set_parse(ps, "ghost", "off", err, sizeof(err)), 0);
	T_EQ_I64(hs_param_set_parse(ps, "mode", "bypass", err, sizeof(err)), 0);
	T_EQ_I64(hs_param_set_parse(ps, "limit", "18446744073709551615", err, sizeof(err)), 0);
	T_ASSERT(hs_param_set_json(ps, buf, sizeof(buf)) > 0);
	T_EQ_STR(buf, "{\"lambda\":0.1,\"ghost\":false,\"mode\":\"bypass\",\"depth\":10,"
		 "\"limit\":18446744073709551615}");
	/* the same value spelt differently gives the same text */
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "1e-1", err, sizeof(err)), 0);
	T_EQ_I64(hs_param_set_parse(ps, "ghost", "FALSE", err, sizeof(err)), 0);
	T_EQ_I64(hs_param_set_parse(ps, "depth", "0010", err, sizeof(err)), 0);
	T_ASSERT(hs_param_set_json(ps, buf, sizeof(buf)) > 0);
	T_EQ_STR(buf, "{\"lambda\":0.1,\"ghost\":false,\"mode\":\"bypass\",\"depth\":10,"
		 "\"limit\":18446744073709551615}");
	/*
	 * Shortest round trip: the double nearest 1/3 needs 16 digits (as in
	 * Python's repr), the one nearest 0.1 + 0.2 needs 17.
	 */
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "0.33333333333333331", err, sizeof(err)), 0);
	T_EQ_I64(hs_param_set_parse(ps, "limit", "0", err, sizeof(err)), 0);
	T_ASSERT(hs_param_set_json(ps, buf, sizeof(buf)) > 0);
	T_EQ_STR(buf, "{\"lambda\":0.3333333333333333,\"ghost\":false,\"mode\":\"bypass\","
		 "\"depth\":10,\"limit\":0}");
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "0.30000000000000004", err, sizeof(err)), 0);
	T_ASSERT(hs_param_set_json(ps, buf, sizeof(buf)) > 0);
	T_EQ_STR(buf, "{\"lambda\":0.30000000000000004,\"ghost\":false,\"mode\":\"bypass\","
		 "\"depth\":10,\"limit\":0}");
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "1.0", err, sizeof(err)), 0);
	T_ASSERT(hs_param_set_json(ps, buf, sizeof(buf)) > 0);
	T_EQ_STR(buf, "{\"lambda\":1,\"ghost\":false,\"mode\":\"bypass\",\"depth\":10,\"limit\":0}");
	/* the text above is 63 characters: 63 bytes of room is too small, 64 fit */
	T_EQ_I64(hs_param_set_json(ps, buf, 10), -ENOSPC);
	T_EQ_STR(buf, "");
	T_EQ_I64(hs_param_set_json(ps, buf, 63), -ENOSPC);
	T_EQ_I64(hs_param_set_json(ps, buf, 64), 63);
	hs_param_set_free(ps);
}

static void empty(void)
{
	struct hs_param_set *ps = NULL;
	char err[128];
	char buf[8];

	T_EQ_I64(hs_param_set_new(NULL, &ps), 0);
	if (!ps)
		return;
	T_ASSERT(hs_param_set_table(ps) == NULL);
	T_EQ_I64(hs_param_set_json(ps, buf, sizeof(buf)), 2);
	T_EQ_STR(buf, "{}");
	T_EQ_I64(hs_param_set_parse(ps, "lambda", "1", err, sizeof(err)), -EINVAL);
	T_EQ_STR(err, "unknown parameter 'lambda' for this policy (it has no parameters)");
	hs_param_set_free(ps);
	T_EQ_I64(hs_param_set_json(NULL, buf, sizeof(buf)), 2);
	T_EQ_STR(buf, "{}");
	T_EQ_I64(hs_param_set_json(NULL, buf, 2), -ENOSPC);
	hs_param_set_free(NULL);
}

static void bad_table(void)
{
	struct hs_param_set *ps = NULL;

	T_EQ_I64(hs_param_set_new(bad_default, &ps), -EINVAL);
	T_ASSERT(ps == NULL);
}

static const struct t_case cases[] = {
	{ "defaults", defaults },
	{ "parse_values", parse_values },
	{ "parse_bools", parse_bools },
	{ "errors", errors },
	{ "json", json },
	{ "empty", empty },
	{ "bad_table", bad_table },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
