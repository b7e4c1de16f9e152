/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lib/parse.c: every accepted form, every rejected form the
 * style guide names (empty, trailing text, a sign on unsigned input, blanks),
 * and the exact overflow edges: 2^64-1 and 2^63-1 parse, one more does not.
 * Size suffixes are checked against hand-computed byte counts.
 */
#include "config.h"

#include <errno.h>
#include <float.h>

#include "harness.h"
#include "parse.h"

#define U64_ALL		0, UINT64_MAX
#define I64_ALL		INT64_MIN, INT64_MAX

static void u64_ok(void)
{
	uint64_t v = 7;

	T_EQ_I64(hs_parse_u64("0", U64_ALL, &v), 0);
	T_EQ_U64(v, 0);
	T_EQ_I64(hs_parse_u64("42", U64_ALL, &v), 0);
	T_EQ_U64(v, 42);
	T_EQ_I64(hs_parse_u64("007", U64_ALL, &v), 0);
	T_EQ_U64(v, 7);
	T_EQ_I64(hs_parse_u64("18446744073709551615", U64_ALL, &v), 0);
	T_EQ_U64(v, UINT64_MAX);
	/* both range ends are inclusive */
	T_EQ_I64(hs_parse_u64("1", 1, 10, &v), 0);
	T_EQ_U64(v, 1);
	T_EQ_I64(hs_parse_u64("10", 1, 10, &v), 0);
	T_EQ_U64(v, 10);
}

static void u64_bad(void)
{
	uint64_t v = 7;

	T_EQ_I64(hs_parse_u64("", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64(NULL, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("10abc", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("abc", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("-1", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("-0", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("+1", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64(" 1", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("1 ", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("0x10", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("1.0", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("1e3", U64_ALL, &v), -EINVAL);
	/* 2^64 and beyond overflow */
	T_EQ_I64(hs_parse_u64("18446744073709551616", U64_ALL, &v), -ERANGE);
	T_EQ_I64(hs_parse_u64("99999999999999999999999", U64_ALL, &v), -ERANGE);
	/* ...but a long number with trailing junk is still not a number */
	T_EQ_I64(hs_parse_u64("99999999999999999999999x", U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_u64("0", 1, 10, &v), -ERANGE);
	T_EQ_I64(hs_parse_u64("11", 1, 10, &v), -ERANGE);
	/* failures leave the output alone */
	T_EQ_U64(v, 7);
}

static void i64_ok(void)
{
	int64_t v = 7;

	T_EQ_I64(hs_parse_i64("0", I64_ALL, &v), 0);
	T_EQ_I64(v, 0);
	T_EQ_I64(hs_parse_i64("-0", I64_ALL, &v), 0);
	T_EQ_I64(v, 0);
	T_EQ_I64(hs_parse_i64("-42", I64_ALL, &v), 0);
	T_EQ_I64(v, -42);
	T_EQ_I64(hs_parse_i64("9223372036854775807", I64_ALL, &v), 0);
	T_EQ_I64(v, INT64_MAX);
	T_EQ_I64(hs_parse_i64("-9223372036854775808", I64_ALL, &v), 0);
	T_EQ_I64(v, INT64_MIN);
	T_EQ_I64(hs_parse_i64("-5", -5, 5, &v), 0);
	T_EQ_I64(v, -5);
}

static void i64_bad(void)
{
	int64_t v = 7;

	T_EQ_I64(hs_parse_i64("", I64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_i64("-", I64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_i64("--1", I64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_i64("+1", I64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_i64("10abc", I64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_i64(" -1", I64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_i64("9223372036854775808", I64_ALL, &v), -ERANGE);
	T_EQ_I64(hs_parse_i64("-9223372036854775809", I64_ALL, &v), -ERANGE);
	T_EQ_I64(hs_parse_i64("-99999999999999999999999", I64_ALL, &v), -ERANGE);
	T_EQ_I64(hs_parse_i64("-6", -5, 5, &v), -ERANGE);
	T_EQ_I64(hs_parse_i64("6", -5, 5, &v), -ERANGE);
	T_EQ_I64(v, 7);
}

static void double_ok(void)
{
	double v = 7;

	T_EQ_I64(hs_parse_double("0", 0, 1, &v), 0);
	T_ASSERT(v == 0.0);
	T_EQ_I64(hs_parse_double("0.5", 0, 1, &v), 0);
	T_ASSERT(v == 0.5);
	T_EQ_I64(hs_parse_double(".25", 0, 1, &v), 0);
	T_ASSERT(v == 0.25);
	T_EQ_I64(hs_parse_double("1.", 0, 1, &v), 0);
	T_ASSERT(v == 1.0);
	T_EQ_I64(hs_parse_double("-1.5", -2, 2, &v), 0);
	T_ASSERT(v == -1.5);
	T_EQ_I64(hs_parse_double("+1.5", -2, 2, &v), 0);
	T_ASSERT(v == 1.5);
	T_EQ_I64(hs_parse_double("2.5e-1", 0, 1, &v), 0);
	T_ASSERT(v == 0.25);
	T_EQ_I64(hs_parse_double("1E3", 0, 1e6, &v), 0);
	T_ASSERT(v == 1000.0);
	/* too small to represent: rounds toward zero, not an error */
	T_EQ_I64(hs_parse_double("1e-400", 0, 1, &v), 0);
	T_ASSERT(v >= 0.0 && v < DBL_MIN);
}

static void double_bad(void)
{
	double v = 7;

	T_EQ_I64(hs_parse_double("", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double(".", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("-", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("abc", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("0.5x", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("1e", 0, 10, &v), -EINVAL);
	T_EQ_I64(hs_parse_double(" 0.5", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("0.5 ", 0, 1, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("nan", -1e9, 1e9, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("inf", -1e9, 1e9, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("-infinity", -1e9, 1e9, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("0x1p3", 0, 100, &v), -EINVAL);
	T_EQ_I64(hs_parse_double("1e400", 0, DBL_MAX, &v), -ERANGE);
	T_EQ_I64(hs_parse_double("-1e400", -DBL_MAX, 0, &v), -ERANGE);
	T_EQ_I64(hs_parse_double("1.0000001", 0, 1, &v), -ERANGE);
	T_EQ_I64(hs_parse_double("-0.1", 0, 1, &v), -ERANGE);
	T_ASSERT(v == 7.0);
}

static void size_ok(void)
{
	uint64_t v = 7;

	/* a plain count is units, with or without a unit size */
	T_EQ_I64(hs_parse_size("1000", 0, U64_ALL, &v), 0);
	T_EQ_U64(v, 1000);
	T_EQ_I64(hs_parse_size("1000", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 1000);
	/* 4K = 4096 bytes = 1 page of 4096 */
	T_EQ_I64(hs_parse_size("4K", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 1);
	T_EQ_I64(hs_parse_size("4k", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 1);
	T_EQ_I64(hs_parse_size("4KiB", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 1);
	T_EQ_I64(hs_parse_size("4kib", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 1);
	/* rounded down: 6K / 4K = 1.5 -> 1; 3K / 4K -> 0 */
	T_EQ_I64(hs_parse_size("6K", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 1);
	T_EQ_I64(hs_parse_size("3K", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 0);
	/* 1M = 1048576 bytes = 256 pages; 1G = 262144 pages; 1T = 268435456 pages */
	T_EQ_I64(hs_parse_size("1M", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 256);
	T_EQ_I64(hs_parse_size("1MiB", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 256);
	T_EQ_I64(hs_parse_size("1g", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 262144);
	T_EQ_I64(hs_parse_size("1GiB", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 262144);
	T_EQ_I64(hs_parse_size("1T", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 268435456);
	T_EQ_I64(hs_parse_size("2TIB", 4096, U64_ALL, &v), 0);
	T_EQ_U64(v, 536870912);
	/* one-byte units: 1K = 1024 */
	T_EQ_I64(hs_parse_size("1K", 1, U64_ALL, &v), 0);
	T_EQ_U64(v, 1024);
	/* 16777215T = (2^24 - 1) * 2^40 bytes fits in 64 bits; in bytes that is 18446742974197923840 */
	T_EQ_I64(hs_parse_size("16777215T", 1, U64_ALL, &v), 0);
	T_EQ_U64(v, UINT64_C(18446742974197923840));
}

static void size_bad(void)
{
	uint64_t v = 7;

	T_EQ_I64(hs_parse_size("", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("K", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("-4K", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("4 K", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("4KB", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("4Ki", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("4KiBx", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("4P", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("4X", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("1.5M", 4096, U64_ALL, &v), -EINVAL);
	T_EQ_I64(hs_parse_size("10abc", 4096, U64_ALL, &v), -EINVAL);
	/* a suffix needs a unit size */
	T_EQ_I64(hs_parse_size("4K", 0, U64_ALL, &v), -EINVAL);
	/* 16777216T = 2^64 bytes overflows; so does a 2^64 count */
	T_EQ_I64(hs_parse_size("16777216T", 1, U64_ALL, &v), -ERANGE);
	T_EQ_I64(hs_parse_size("18446744073709551616", 0, U64_ALL, &v), -ERANGE);
	/* range applies to the converted units: 4K of 4096 is 1, below min 2 */
	T_EQ_I64(hs_parse_size("4K", 4096, 2, 100, &v), -ERANGE);
	T_EQ_I64(hs_parse_size("1M", 4096, 2, 100, &v), -ERANGE);
	T_EQ_I64(hs_parse_size("0", 0, 1, 100, &v), -ERANGE);
	T_EQ_U64(v, 7);
}

static void split_ok(void)
{
	char one[] = "lru";
	char three[] = "lru,arc,opt";
	char *items[3];

	T_EQ_I64(hs_split_list(one, items, 3), 1);
	T_EQ_STR(items[0], "lru");
	T_EQ_I64(hs_split_list(three, items, 3), 3);
	T_EQ_STR(items[0], "lru");
	T_EQ_STR(items[1], "arc");
	T_EQ_STR(items[2], "opt");
}

static void split_bad(void)
{
	char empty[] = "";
	char lead[] = ",a";
	char trail[] = "a,";
	char mid[] = "a,,b";
	char four[] = "a,b,c,d";
	char *items[3];

	T_EQ_I64(hs_split_list(empty, items, 3), -EINVAL);
	T_EQ_I64(hs_split_list(lead, items, 3), -EINVAL);
	T_EQ_I64(hs_split_list(trail, items, 3), -EINVAL);
	T_EQ_I64(hs_split_list(mid, items, 3), -EINVAL);
	T_EQ_I64(hs_split_list(four, items, 3), -E2BIG);
}

static const struct t_case cases[] = {
	{ "u64_ok", u64_ok },
	{ "u64_bad", u64_bad },
	{ "i64_ok", i64_ok },
	{ "i64_bad", i64_bad },
	{ "double_ok", double_ok },
	{ "double_bad", double_bad },
	{ "size_ok", size_ok },
	{ "size_bad", size_bad },
	{ "split_ok", split_ok },
	{ "split_bad", split_bad },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
