/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the trace readers (lib/trace-in.c): every format on small
 * files written here, with the exact record sequence expected; CRLF, blanks,
 * gzip input, buffer boundaries; and every error with its exact message.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "access.h"
#include "harness.h"
#include "hs.h"
#include "trace-in.h"

#define MAX_KEYS	64

static char dir[64];		/* scratch directory of this run */
static char path[128];		/* the file the current case wrote */

/* Write @n bytes to a scratch file called @name (gzip-compressed if @gz). */
static const char *put(const char *name, const void *data, size_t n, bool gz)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (gz) {
		gzFile g = gzopen(path, "wb");

		if (!g || (n && gzwrite(g, data, (unsigned int)n) != (int)n) || gzclose(g) != Z_OK)
			t_fail(__FILE__, __LINE__, "cannot write %s", path);
	} else {
		FILE *fp = fopen(path, "wb");

		if (!fp || fwrite(data, 1, n, fp) != n || fclose(fp))
			t_fail(__FILE__, __LINE__, "cannot write %s", path);
	}
	return path;
}

static const char *puts_file(const char *name, const char *text)
{
	return put(name, text, strlen(text), false);
}

struct result {
	int		ret;			/* last hs_trace_next() value, or open's error */
	size_t		n;			/* records read */
	uint64_t	keys[MAX_KEYS];		/* the first MAX_KEYS of them */
	uint8_t		meta;			/* meta of the last record */
	char		msg[512];		/* error message */
};

static struct hs_trace_opts opts(enum hs_trace_type type)
{
	struct hs_trace_opts o = { .type = type, .meta = 0 };

	return o;
}

/* Read the whole file; stop at the first error. */
static struct result run(const char *file, const struct hs_trace_opts *o)
{
	struct hs_trace_reader *r;
	struct result res = { 0 };
	uint64_t key;
	uint8_t meta;

	res.ret = hs_trace_open(file, o, &r);
	if (!res.ret) {
		while ((res.ret = hs_trace_next(r, &key, &meta)) == 1) {
			if (res.n < MAX_KEYS)
				res.keys[res.n] = key;
			res.n++;
			res.meta = meta;
		}
		T_EQ_U64(hs_trace_records(r), res.n);
	}
	if (r)
		snprintf(res.msg, sizeof(res.msg), "%s", hs_trace_errmsg(r));
	hs_trace_close(r);
	return res;
}

static void expect_keys(const struct result *res, const uint64_t *want, size_t n)
{
	size_t i;

	T_EQ_I64(res->ret, 0);
	T_EQ_U64(res->n, n);
	for (i = 0; i < n && i < res->n; i++)
		T_EQ_U64(res->keys[i], want[i]);
}

/* Expect an error, and a message equal to "<path><suffix>". */
static void expect_err(const struct result *res, int err, const char *suffix)
{
	char want[512];

	T_EQ_I64(res->ret, err);
	snprintf(want, sizeof(want), "%s%s", path, suffix);
	T_EQ_STR(res->msg, want);
}

static void test_types(void)
{
	enum hs_trace_type t;

	T_EQ_I64(hs_trace_type_parse("lis", &t), 0);
	T_EQ_I64(t, HS_TRACE_LIS);
	T_EQ_I64(hs_trace_type_parse("u32be", &t), 0);
	T_EQ_I64(t, HS_TRACE_U32BE);
	T_EQ_I64(hs_trace_type_parse("LIS", &t), -EINVAL);
	T_EQ_I64(hs_trace_type_parse("", &t), -EINVAL);
	T_EQ_STR(hs_trace_type_name(HS_TRACE_ORACLE), "oracle");
	T_EQ_STR(hs_trace_type_name(HS_TRACE_NR), "?");
	T_EQ_STR(hs_trace_type_unit(HS_TRACE_LIS), "block");
	T_EQ_STR(hs_trace_type_unit(HS_TRACE_LIRS), "object");
	T_EQ_STR(hs_trace_type_list(), "text, lirs, lis, csv, oracle, u32be");
}

static void test_fnv(void)
{
	/* Published FNV-1a 64 test vectors. */
	T_EQ_U64(hs_trace_hash_str("", 0), 0xcbf29ce484222325ull);
	T_EQ_U64(hs_trace_hash_str("a", 1), 0xaf63dc4c8601ec8cull);
	T_EQ_U64(hs_trace_hash_str("foobar", 6), 0x85944171f73967e8ull);
}

static void test_text(void)
{
	static const uint64_t want[] = { 1, 2, 3, 7, UINT64_MAX };
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	struct result res;

	o.meta = hs_meta_make(HS_CH_FD, HS_TYPE_ANON, false);
	res = run(puts_file("a.txt", "1\n 2 \r\n\n  3\t\n\r\n007\n18446744073709551615"), &o);
	expect_keys(&res, want, 5);
	T_EQ_U64(res.meta, HS_CH_FD | HS_META_ANON);
}

static void test_text_errors(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	struct result res;

	res = run(puts_file("b1.txt", "1\nabc\n3\n"), &o);
	expect_err(&res, -EBADMSG, ":2: expected a decimal key, got 'abc'");
	T_EQ_U64(res.n, 1);

	res = run(puts_file("b2.txt", "18446744073709551616\n"), &o);
	expect_err(&res, -EBADMSG, ":1: key '18446744073709551616' does not fit in 64 bits");

	/* "*" is a key error in text, skipped in lirs. */
	res = run(puts_file("b3.txt", "5\n*\n"), &o);
	expect_err(&res, -EBADMSG, ":2: expected a decimal key, got '*'");

	res = run(puts_file("b4.txt", "-1\n"), &o);
	expect_err(&res, -EBADMSG, ":1: expected a decimal key, got '-1'");

	res = run(puts_file("b5.txt", "1 2\n"), &o);
	expect_err(&res, -EBADMSG, ":1: expected a decimal key, got '1 2'");

	res = run(put("b6.txt", "\x01\x02\xff\0z\n", 6, false), &o);
	expect_err(&res, -EBADMSG, ":1: expected a decimal key, got '\\x01\\x02\\xff\\x00z'");

	res = run(puts_file("b7.txt", "12345678901234567890123456789\n"), &o);
	expect_err(&res, -EBADMSG,
		   ":1: key '123456789012345678901234...' does not fit in 64 bits");
}

static void test_text_long_line(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	size_t n = HS_TRACE_MAX_LINE + 10;
	char *buf = malloc(n + 4);
	struct result res;
	char want[128];

	T_ASSERT(buf);
	if (!buf)
		return;
	memcpy(buf, "42\n", 3);
	memset(buf + 3, '7', n);
	res = run(put("long.txt", buf, n + 3, false), &o);
	snprintf(want, sizeof(want), ":2: line longer than %u bytes", HS_TRACE_MAX_LINE);
	expect_err(&res, -EBADMSG, want);
	T_EQ_U64(res.n, 1);
	free(buf);
}

static void test_empty(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	struct result res;

	res = run(put("empty", "", 0, false), &o);
	expect_err(&res, -ENODATA, ": no records");
	res = run(puts_file("blank", "\n  \r\n\n"), &o);
	expect_err(&res, -ENODATA, ": no records");
	o = opts(HS_TRACE_LIRS);
	res = run(puts_file("stars", "*\n*\r\n\n"), &o);
	expect_err(&res, -ENODATA, ": no records");
	o = opts(HS_TRACE_U32BE);
	res = run(put("empty.bin", "", 0, false), &o);
	expect_err(&res, -ENODATA, ": no records");
	o = opts(HS_TRACE_ORACLE);
	res = run(put("empty.gz", "", 0, true), &o);
	expect_err(&res, -ENODATA, ": no records");
	o = opts(HS_TRACE_CSV);
	o.csv_header = true;
	res = run(puts_file("header-only.csv", "key,size\n"), &o);
	expect_err(&res, -ENODATA, ": no records");
}

static void test_missing(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	struct result res;

	snprintf(path, sizeof(path), "%s/does-not-exist", dir);
	res = run(path, &o);
	expect_err(&res, -ENOENT, ": No such file or directory");
	snprintf(path, sizeof(path), "%s", dir);
	res = run(path, &o);
	expect_err(&res, -EISDIR, ": Is a directory");
}

static void test_lirs(void)
{
	static const uint64_t want[] = { 5, 6, 0 };
	struct hs_trace_opts o = opts(HS_TRACE_LIRS);
	struct result res;

	res = run(puts_file("a.lirs", "*\r\n5\r\n\r\n *\r\n6\r\n0\r\n*\r\n"), &o);
	expect_keys(&res, want, 3);
	res = run(puts_file("b.lirs", "5\n**\n"), &o);
	expect_err(&res, -EBADMSG, ":2: expected a decimal key, got '**'");
}

static void test_lis(void)
{
	static const uint64_t fwd[] = { 10, 11, 12, 20, 7, 8 };
	static const uint64_t rev[] = { 12, 11, 10, 20, 8, 7 };
	static const uint64_t top[] = { UINT64_MAX - 1, UINT64_MAX };
	const char *text = "10 3 0 0\n20\t1 0  1\r\n\n7 2 -1 2\n";
	struct hs_trace_opts o = opts(HS_TRACE_LIS);
	struct result res;

	res = run(puts_file("a.lis", text), &o);
	expect_keys(&res, fwd, 6);
	o.lis_reverse = true;
	res = run(path, &o);
	expect_keys(&res, rev, 6);
	o.lis_reverse = false;
	res = run(puts_file("top.lis", "18446744073709551614 2 0 0\n"), &o);
	expect_keys(&res, top, 2);
	o.lis_reverse = true;
	res = run(path, &o);
	T_EQ_U64(res.keys[0], UINT64_MAX);
	T_EQ_U64(res.keys[1], UINT64_MAX - 1);
}

static void test_lis_errors(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_LIS);
	struct result res;

	res = run(puts_file("e1.lis", "1 1 0 0\n2 1 0\n"), &o);
	expect_err(&res, -EBADMSG, ":2: expected 4 fields, got 3");
	T_EQ_U64(res.n, 1);
	res = run(puts_file("e2.lis", "1 1 0 0 9\n"), &o);
	expect_err(&res, -EBADMSG, ":1: expected 4 fields, got more");
	res = run(puts_file("e3.lis", "1 0 0 0\n"), &o);
	expect_err(&res, -EBADMSG, ":1: block count is 0");
	res = run(puts_file("e4.lis", "1 16777217 0 0\n"), &o);
	expect_err(&res, -EBADMSG, ":1: block count 16777217 is absurd (more than 16777216)");
	res = run(puts_file("e5.lis", "18446744073709551615 2 0 0\n"), &o);
	expect_err(&res, -EBADMSG, ":1: block range 18446744073709551615+2 overflows 64 bits");
	res = run(puts_file("e6.lis", "x 1 0 0\n"), &o);
	expect_err(&res, -EBADMSG, ":1: expected a decimal start block, got 'x'");
	res = run(puts_file("e7.lis", "1 1 zero 0\n"), &o);
	expect_err(&res, -EBADMSG, ":1: expected an integer in field 3, got 'zero'");
	res = run(puts_file("e8.lis", "1 -1 0 0\n"), &o);
	expect_err(&res, -EBADMSG, ":1: expected a decimal block count, got '-1'");
}

static void test_csv(void)
{
	const char *text = "id,key,size\n"
			   "1,100,4\r\n"
			   "\n"
			   "2, \"200\" ,4\n"
			   "3,a,4\n"
			   "4,\"foo\"\"bar\",4\n"
			   "5,\"x,y\",4\n"
			   "6,007\n";
	struct hs_trace_opts o = opts(HS_TRACE_CSV);
	uint64_t want[6];
	struct result res;

	want[0] = 100;
	want[1] = 200;
	want[2] = 0xaf63dc4c8601ec8cull;	/* FNV-1a("a") */
	want[3] = hs_trace_hash_str("foo\"bar", 7);
	want[4] = hs_trace_hash_str("x,y", 3);
	want[5] = 7;
	o.csv_column = 2;
	o.csv_header = true;
	res = run(puts_file("a.csv", text), &o);
	expect_keys(&res, want, 6);

	/* Column 1, no header: the header line's "id" is a string key. */
	o.csv_column = 0;
	o.csv_header = false;
	res = run(path, &o);
	T_EQ_I64(res.ret, 0);
	T_EQ_U64(res.n, 7);
	T_EQ_U64(res.keys[0], hs_trace_hash_str("id", 2));
	T_EQ_U64(res.keys[6], 6);

	/* Column 3 is missing on the last line. */
	o.csv_column = 3;
	o.csv_header = true;
	res = run(path, &o);
	expect_err(&res, -EBADMSG, ":8: expected at least 3 fields, got 2");
	T_EQ_U64(res.n, 5);
}

static void test_csv_errors(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_CSV);
	struct result res;

	res = run(puts_file("e1.csv", "1\n,2\n"), &o);
	expect_err(&res, -EBADMSG, ":2: empty key in field 1");
	res = run(puts_file("e2.csv", "\"abc\n"), &o);
	expect_err(&res, -EBADMSG, ":1: unterminated quote in field 1");
	res = run(puts_file("e3.csv", "\"abc\"d,1\n"), &o);
	expect_err(&res, -EBADMSG, ":1: text after the closing quote of field 1");
	res = run(put("e5.csv", "a,b\nc\0d,e\n", 10, false), &o);
	expect_err(&res, -EBADMSG, ":2: NUL byte: binary data, not csv text");
	res = run(puts_file("e4.csv", "99999999999999999999,1\n"), &o);
	expect_err(&res, -EBADMSG, ":1: key '99999999999999999999' does not fit in 64 bits");
}

static void put_le(unsigned char *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void oracle_rec(unsigned char *p, uint32_t t, uint64_t id, uint32_t size, int64_t next)
{
	put_le(p, t, 4);
	put_le(p + 4, id, 8);
	put_le(p + 12, size, 4);
	put_le(p + 16, (uint64_t)next, 8);
}

static void test_oracle(void)
{
	static const uint64_t want[] = { 0x0102030405060708ull, 7, 0x0102030405060708ull };
	struct hs_trace_opts o = opts(HS_TRACE_ORACLE);
	unsigned char buf[4 * 24];
	struct result res;

	oracle_rec(buf, 1, 0x0102030405060708ull, 4096, 2);
	oracle_rec(buf + 24, 1, 7, 512, -1);
	oracle_rec(buf + 48, 2, 0x0102030405060708ull, 4096, INT64_MAX);
	res = run(put("a.oracle", buf, 72, false), &o);
	expect_keys(&res, want, 3);
	res = run(put("a.oracle.gz", buf, 72, true), &o);
	expect_keys(&res, want, 3);

	res = run(put("t.oracle", buf, 58, false), &o);
	expect_err(&res, -EBADMSG, ": byte 48: truncated record (10 of 24 bytes)");
	T_EQ_U64(res.n, 2);

	/* Record 1 claims its next access is record 1 itself: not this format. */
	oracle_rec(buf + 24, 1, 7, 512, 1);
	res = run(put("n.oracle", buf, 72, false), &o);
	expect_err(&res, -EBADMSG, ": byte 24: record 1 says its next access is 1, "
		   "which is not later (not an oracleGeneral trace?)");
	oracle_rec(buf + 24, 1, 7, 512, -2);
	res = run(put("m.oracle", buf, 72, false), &o);
	T_EQ_I64(res.ret, -EBADMSG);

	/* Next accesses counted from 1 are fine; one past the end is not. */
	oracle_rec(buf, 1, 5, 1, 3);
	oracle_rec(buf + 24, 1, 6, 1, -1);
	oracle_rec(buf + 48, 1, 5, 1, -1);
	res = run(put("one.oracle", buf, 72, false), &o);
	T_EQ_I64(res.ret, 0);
	oracle_rec(buf + 24, 1, 6, 1, 4);
	res = run(put("past.oracle", buf, 72, false), &o);
	expect_err(&res, -EBADMSG, ": byte 24: record 1 says its next access is 4, but there "
		   "are only 3 records (not an oracleGeneral trace?)");
	T_EQ_U64(res.n, 3);
}

static void test_u32be(void)
{
	static const unsigned char bytes[] = {
		0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x12, 0x34, 0x56, 0x78, 0xab, 0xcd, 0xef,
	};
	static const uint64_t want[] = { 1, 0xffffffffull, 0x12345678 };
	struct hs_trace_opts o = opts(HS_TRACE_U32BE);
	struct result res;

	res = run(put("a.u32", bytes, 12, false), &o);
	expect_keys(&res, want, 3);
	res = run(put("t.u32", bytes, 15, false), &o);
	expect_err(&res, -EBADMSG, ": byte 12: truncated record (3 of 4 bytes)");
	T_EQ_U64(res.n, 3);
	res = run(put("t.u32.gz", bytes, 15, true), &o);
	expect_err(&res, -EBADMSG, ": byte 12: truncated record (3 of 4 bytes)");
}

/* Many lines: records cross the 256 KiB buffer and gzip block boundaries. */
static void test_big_gz(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_LIRS);
	const unsigned int n = 300000;
	struct hs_trace_reader *r;
	unsigned int i, bad = 0;
	size_t len = 0;
	uint64_t key;
	uint8_t meta;
	char *buf;
	int ret;

	buf = malloc((size_t)n * 12);
	T_ASSERT(buf);
	if (!buf)
		return;
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(buf + len, i % 3 ? "%u\r\n" : "%u\n*\n", i * 7);
	put("big.gz", buf, len, true);
	T_EQ_I64(hs_trace_open(path, &o, &r), 0);
	for (i = 0; (ret = hs_trace_next(r, &key, &meta)) == 1; i++)
		bad += key != (uint64_t)i * 7;
	T_EQ_I64(ret, 0);
	T_EQ_U64(i, n);
	T_EQ_U64(bad, 0);
	hs_trace_close(r);

	/* The same stream cut in the middle: an error naming a line, after some records. */
	{
		char name[160];
		FILE *fp;
		long size;
		char *gz;

		snprintf(name, sizeof(name), "%s", path);
		fp = fopen(name, "rb");
		T_ASSERT(fp);
		if (!fp)
			goto out;
		fseek(fp, 0, SEEK_END);
		size = ftell(fp);
		rewind(fp);
		gz = malloc((size_t)size);
		T_ASSERT(gz && fread(gz, 1, (size_t)size, fp) == (size_t)size);
		fclose(fp);
		put("cut.gz", gz, (size_t)size / 2, false);
		free(gz);
		T_EQ_I64(hs_trace_open(path, &o, &r), 0);
		for (i = 0; (ret = hs_trace_next(r, &key, &meta)) == 1; i++)
			;
		T_EQ_I64(ret, -EBADMSG);
		T_ASSERT(i > 1000 && i < n);
		T_ASSERT(strstr(hs_trace_errmsg(r),
				"gzip data truncated (unexpected end of file)"));
		T_ASSERT(!strncmp(hs_trace_errmsg(r), path, strlen(path)));
		/* Sticky. */
		T_EQ_I64(hs_trace_next(r, &key, &meta), -EBADMSG);
		hs_trace_close(r);
	}
out:
	free(buf);
}

/* A corrupt (not truncated) gzip stream. */
static void test_corrupt_gz(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_U32BE);
	unsigned char bytes[4000];
	struct result res;
	FILE *fp;
	long size;
	unsigned char gz[8192];
	size_t i;

	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i * 31 + i / 7);
	put("c.gz", bytes, sizeof(bytes), true);
	fp = fopen(path, "rb");
	T_ASSERT(fp);
	if (!fp)
		return;
	size = (long)fread(gz, 1, sizeof(gz), fp);
	fclose(fp);
	gz[size - 6] ^= 0xff;	/* break the CRC */
	res = run(put("c2.gz", gz, (size_t)size, false), &o);
	T_EQ_I64(res.ret, -EBADMSG);
	T_ASSERT(strstr(res.msg, "corrupt gzip data"));
}

/* Append @text to the scratch file @path: a new gzip member if @gz, else raw bytes. */
static long append(const char *text, bool gz)
{
	long size = -1;
	FILE *fp;

	if (gz) {
		gzFile g = gzopen(path, "ab");

		if (!g || gzputs(g, text) != (int)strlen(text) || gzclose(g) != Z_OK)
			t_fail(__FILE__, __LINE__, "cannot append to %s", path);
	} else {
		fp = fopen(path, "ab");
		if (!fp || fputs(text, fp) < 0 || fclose(fp))
			t_fail(__FILE__, __LINE__, "cannot append to %s", path);
	}
	fp = fopen(path, "rb");
	if (fp && !fseek(fp, 0, SEEK_END))
		size = ftell(fp);
	if (fp)
		fclose(fp);
	return size;
}

/* Several gzip members are one stream; anything else after a member is an error. */
static void test_gz_members(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	struct result res;
	char want[512];
	long size;

	put("m.gz", "1\n2\n", 4, true);
	append("3\n", true);
	size = append("4\n", true);
	res = run(path, &o);
	T_EQ_I64(res.ret, 0);
	T_EQ_U64(res.n, 4);
	T_EQ_U64(res.keys[0], 1);
	T_EQ_U64(res.keys[3], 4);

	/* The same, then bytes that are not a gzip header: nothing of it is good. */
	T_ASSERT(append("5\n", false) == size + 2);
	res = run(path, &o);
	T_EQ_I64(res.ret, -EBADMSG);
	T_EQ_U64(res.n, 4);
	snprintf(want, sizeof(want), "%s: byte %ld of the file: trailing garbage after the gzip"
		 " data", path, size);
	T_EQ_STR(res.msg, want);

	/* A second member that starts like one but is damaged is corrupt data. */
	put("m2.gz", "1\n", 2, true);
	append("\x1f\x8b\x08\x01", false);	/* a gzip header: deflate, FTEXT, */
	append("\x01\x01\x01\x01\x01\x03\xff\xff", false);	/* then block type 3 */
	res = run(path, &o);
	T_EQ_I64(res.ret, -EBADMSG);
	T_EQ_U64(res.n, 1);
	T_ASSERT(strstr(res.msg, "m2.gz:2: corrupt gzip data (invalid block type)"));
}

/* opts.max_records: a trace of more records is refused where it goes over. */
static void test_max_records(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_LIS);
	static const uint64_t two[] = { 7, 8 };
	struct result res;

	o.max_records = 2;
	res = run(puts_file("m.lis", "7 2 0 0\n"), &o);
	expect_keys(&res, two, 2);
	res = run(puts_file("m.lis", "7 2 0 0\n9 1 0 0\n"), &o);
	expect_err(&res, -EFBIG, ":2: more than 2 records");
	T_EQ_U64(res.n, 2);
	/* 15 bytes that ask for 2^24 blocks stop at the limit, not at the end */
	o.max_records = 1000;
	res = run(puts_file("m.lis", "0 16777216 0 0\n"), &o);
	expect_err(&res, -EFBIG, ":1: more than 1000 records");
	T_EQ_U64(res.n, 1000);
	o = opts(HS_TRACE_U32BE);
	o.max_records = 1;
	res = run(put("m.u32", "\0\0\0\1\0\0\0\2", 8, false), &o);
	expect_err(&res, -EFBIG, ": byte 4: more than 1 records");
}

static int count_cb(void *arg, uint64_t key, uint8_t meta)
{
	uint64_t *sum = arg;

	(void)meta;
	*sum += key;
	return key == 99 ? 5 : 0;
}

static void test_read_cb(void)
{
	struct hs_trace_opts o = opts(HS_TRACE_TEXT);
	uint64_t sum = 0;
	char err[256];

	T_EQ_I64(hs_trace_read(puts_file("cb.txt", "1\n2\n3\n"), &o, count_cb, &sum, err,
			       sizeof(err)), 0);
	T_EQ_U64(sum, 6);
	T_EQ_STR(err, "");
	sum = 0;
	T_EQ_I64(hs_trace_read(puts_file("cb2.txt", "1\n99\n3\n"), &o, count_cb, &sum, err,
			       sizeof(err)), 5);
	T_EQ_U64(sum, 100);
	T_EQ_I64(hs_trace_read(puts_file("cb3.txt", "1\nx\n"), &o, count_cb, &sum, err,
			       sizeof(err)), -EBADMSG);
	T_ASSERT(strstr(err, "cb3.txt:2: expected a decimal key, got 'x'"));
}

/*
 * What one way of reading a file gave: the record count, an FNV-1a style
 * digest of the keys in order, the final return value and message.
 */
struct digest {
	uint64_t	n;
	uint64_t	hash;
	long		ret;
	char		msg[512];
};

/* Read @file with hs_trace_next_many(@batch at a time), or hs_trace_next() if @batch is 0. */
static struct digest read_digest(const char *file, const struct hs_trace_opts *o, size_t batch)
{
	static uint64_t keys[5000];
	struct digest d = { .hash = 14695981039346656037ull };
	struct hs_trace_reader *r;
	uint8_t meta;
	long i;

	d.ret = hs_trace_open(file, o, &r);
	while (!d.ret) {
		if (batch)
			d.ret = hs_trace_next_many(r, keys, batch, &meta);
		else
			d.ret = hs_trace_next(r, keys, &meta);
		if (d.ret <= 0)
			break;
		T_EQ_U64(meta, o->meta);
		for (i = 0; i < d.ret; i++)
			d.hash = (d.hash ^ keys[i]) * 1099511628211ull;
		d.n += (uint64_t)d.ret;
		d.ret = 0;
	}
	if (r) {
		T_EQ_U64(hs_trace_records(r), d.n);
		snprintf(d.msg, sizeof(d.msg), "%s", hs_trace_errmsg(r));
	}
	hs_trace_close(r);
	return d;
}

/* hs_trace_next_many() at several batch sizes reads @file exactly as hs_trace_next(). */
static void expect_same_many(const char *file, const struct hs_trace_opts *o, uint64_t want_n,
			     long want_ret)
{
	static const size_t batches[] = { 1, 2, 7, 4096, 5000 };
	struct digest one = read_digest(file, o, 0), many;
	size_t i;

	T_EQ_U64(one.n, want_n);
	T_EQ_I64(one.ret, want_ret);
	for (i = 0; i < ARRAY_SIZE(batches); i++) {
		many = read_digest(file, o, batches[i]);
		T_EQ_U64(many.n, one.n);
		T_EQ_U64(many.hash, one.hash);
		T_EQ_I64(many.ret, one.ret);
		T_EQ_STR(many.msg, one.msg);
	}
}

/*
 * The batch reader on files of many records (several 256 KiB buffers, so
 * the fast path stops at refills), plain and gzip: clean, with a bad
 * next-access time deep inside, truncated, and against --max-accesses.
 */
static void test_many(void)
{
	const unsigned int n = 30000;	/* 720000 bytes of oracle records */
	struct hs_trace_opts o = opts(HS_TRACE_ORACLE);
	unsigned char *buf = malloc((size_t)n * 24);
	unsigned int i;
	int gz;

	T_ASSERT(buf);
	if (!buf)
		return;
	o.meta = hs_meta_make(HS_CH_FD, HS_TYPE_ANON, false);
	for (i = 0; i < n; i++)	/* key i % 1000; next access 1000 later, or none */
		oracle_rec(buf + (size_t)i * 24, i, i % 1000, 4096,
			   i + 1000 < n ? (int64_t)i + 1000 : -1);
	for (gz = 0; gz < 2; gz++) {
		o.max_records = 0;
		expect_same_many(put("many.oracle", buf, (size_t)n * 24, gz), &o, n, 0);
		expect_same_many(put("many.oracle", buf, (size_t)n * 24 - 5, gz), &o, n - 1,
				 -EBADMSG);
		o.max_records = 12345;
		expect_same_many(put("many.oracle", buf, (size_t)n * 24, gz), &o, 12345, -EFBIG);
		o.max_records = n;
		expect_same_many(put("many.oracle", buf, (size_t)n * 24, gz), &o, n, 0);
	}
	o.max_records = 0;
	oracle_rec(buf + 20000 * 24, 20000, 0, 4096, 19999);	/* next access in the past */
	expect_same_many(put("many.oracle", buf, (size_t)n * 24, false), &o, 20000, -EBADMSG);
	oracle_rec(buf + 20000 * 24, 20000, 0, 4096, (int64_t)n + 1);	/* past the end */
	expect_same_many(put("many.oracle", buf, (size_t)n * 24, false), &o, n, -EBADMSG);

	/* u32be: the same bytes as 180000 ids; a text file is refused before any */
	o = opts(HS_TRACE_U32BE);
	expect_same_many(put("many.u32", buf, (size_t)n * 24, false), &o, n * 6, 0);
	expect_same_many(put("many.u32", buf, (size_t)n * 24 - 1, true), &o, n * 6 - 1,
			 -EBADMSG);
	o.max_records = 100000;
	expect_same_many(put("many.u32", buf, (size_t)n * 24, true), &o, 100000, -EFBIG);
	o.max_records = 0;
	expect_same_many(puts_file("many.txt", "1\n2\n3\n"), &o, 0, -EBADMSG);

	/* a text format goes through hs_trace_next() */
	o = opts(HS_TRACE_TEXT);
	expect_same_many(puts_file("many.txt", "1\n2\n3\nx\n"), &o, 3, -EBADMSG);
	expect_same_many(puts_file("empty.txt", ""), &o, 0, -ENODATA);
	free(buf);
}

/* The digest of @file read in batches of 4096, plain and again gzip-compressed. */
static void expect_plain_as_gz(const void *data, size_t len, const struct hs_trace_opts *o,
			       uint64_t want_n, long want_ret)
{
	struct digest plain, gz;

	plain = read_digest(put("m.bin", data, len, false), o, 4096);
	gz = read_digest(put("m.bin", data, len, true), o, 4096);
	T_EQ_U64(plain.n, want_n);
	T_EQ_I64(plain.ret, want_ret);
	T_EQ_U64(gz.n, plain.n);
	T_EQ_U64(gz.hash, plain.hash);
	T_EQ_I64(gz.ret, plain.ret);
	T_EQ_STR(gz.msg, plain.msg);
}

/* hs_trace_sample_keys() on @file after @skip records: its keys * 64 near @want. */
static void expect_sample(const char *file, const struct hs_trace_opts *o, size_t skip,
			  long want, long want_ret)
{
	static uint64_t keys[4096];
	struct hs_trace_reader *r;
	uint64_t *sample = NULL;
	size_t done = 0;
	uint8_t meta;
	long n = 0;

	T_EQ_I64(hs_trace_open(file, o, &r), 0);
	while (done < skip && (n = hs_trace_next_many(r, keys, HS_MIN(skip - done, 4096ul),
						      &meta)) > 0)
		done += (size_t)n;
	n = hs_trace_sample_keys(r, &sample);
	if (want_ret) {
		T_EQ_I64(n, want_ret);
	} else {
		T_ASSERT(n << HS_TRACE_SAMPLE_SHIFT > want * 85 / 100);
		T_ASSERT(n << HS_TRACE_SAMPLE_SHIFT < want * 115 / 100);
	}
	free(sample);
	/* the reader goes on as if nothing happened */
	while ((n = hs_trace_next_many(r, keys, 4096, &meta)) > 0)
		done += (size_t)n;
	T_EQ_I64(n, 0);
	T_EQ_U64(hs_trace_records(r), done);
	hs_trace_close(r);
}

/*
 * @count (hs_trace_oracle_keys() or its estimate) on @file after @skip
 * records: @want (or @want_ret).
 */
static void expect_oracle_count(int (*count)(struct hs_trace_reader *r, uint64_t *keys),
				const char *file, const struct hs_trace_opts *o, size_t skip,
				uint64_t want, int want_ret)
{
	static uint64_t keys[4096];
	struct hs_trace_reader *r;
	uint64_t total = 0;
	size_t done = 0;
	uint8_t meta;
	long n = 0;

	T_EQ_I64(hs_trace_open(file, o, &r), 0);
	while (done < skip && (n = hs_trace_next_many(r, keys, HS_MIN(skip - done, 4096ul),
						      &meta)) > 0)
		done += (size_t)n;
	T_EQ_I64(count(r, &total), want_ret);
	if (!want_ret)
		T_EQ_U64(total, want);
	while ((n = hs_trace_next_many(r, keys, 4096, &meta)) > 0)
		done += (size_t)n;
	T_EQ_I64(n, 0);
	if (o->type == HS_TRACE_ORACLE)
		T_EQ_U64(hs_trace_oracle_lasts(r), want_ret ? hs_trace_oracle_lasts(r) : want);
	hs_trace_close(r);
}

static void expect_oracle_keys(const char *file, const struct hs_trace_opts *o, size_t skip,
			       uint64_t want, int want_ret)
{
	expect_oracle_count(hs_trace_oracle_keys, file, o, skip, want, want_ret);
}

/*
 * Plain files of 1 MiB and more, read BUF_SIZE bytes at a time (records
 * cut across the refills): the same records, errors and messages as the
 * same bytes gzip-compressed; and hs_trace_sample_keys() and
 * hs_trace_oracle_keys(), which pread(2) the rest of a plain file only, on
 * them.
 */
static void test_large_plain(void)
{
	const unsigned int n = 1500000;		/* 36 MB of oracle records */
	const unsigned int keys = 50000;
	struct hs_trace_opts o = opts(HS_TRACE_ORACLE);
	unsigned char *buf = malloc((size_t)n * 24);
	unsigned int i;

	T_ASSERT(buf);
	if (!buf)
		return;
	for (i = 0; i < n; i++)	/* key i % keys; next access keys later, or none */
		oracle_rec(buf + (size_t)i * 24, i, i % keys, 4096,
			   i + keys < n ? (int64_t)i + keys : -1);
	expect_plain_as_gz(buf, (size_t)n * 24, &o, n, 0);
	expect_plain_as_gz(buf, (size_t)n * 24 - 5, &o, n - 1, -EBADMSG);
	o.max_records = 1400000;
	expect_plain_as_gz(buf, (size_t)n * 24, &o, 1400000, -EFBIG);
	o.max_records = 0;
	oracle_rec(buf + (size_t)1450000 * 24, 1450000, 0, 4096, 7);	/* next in the past */
	expect_plain_as_gz(buf, (size_t)n * 24, &o, 1450000, -EBADMSG);
	oracle_rec(buf + (size_t)1450000 * 24, 1450000, 1450000 % keys, 4096, -1);

	put("s.oracle", buf, (size_t)n * 24, false);
	expect_sample(path, &o, 0, keys, 0);
	expect_sample(path, &o, 1400000, keys, 0);	/* the rest holds every key again */
	expect_oracle_keys(path, &o, 0, keys, 0);		/* the last keys records */
	expect_oracle_keys(path, &o, 1460000, keys, 0);	/* 10,000 of them read */
	put("s.oracle.gz", buf, (size_t)n * 24, true);
	expect_sample(path, &o, 0, 0, -EOPNOTSUPP);	/* not plain */
	expect_oracle_keys(path, &o, 0, 0, -EOPNOTSUPP);
	/*
	 * The import's estimate reads one slice of 4,096 records in 16: with a
	 * key's last access at every other record (pairs i, i + 1 of one key),
	 * each slice holds half its records' marks, so the estimate is exact,
	 * from the start and after 10,000 records read (5,000 marks).
	 */
	for (i = 0; i < n; i++)
		oracle_rec(buf + (size_t)i * 24, i, i / 2, 4096, i % 2 ? -1 : (int64_t)i + 1);
	put("pairs.oracle", buf, (size_t)n * 24, false);
	expect_oracle_keys(path, &o, 0, n / 2, 0);
	expect_oracle_count(hs_trace_oracle_keys_estimate, path, &o, 0, n / 2, 0);
	expect_oracle_count(hs_trace_oracle_keys_estimate, path, &o, 10000, n / 2, 0);
	put("pairs.oracle.gz", buf, (size_t)n * 24, true);
	expect_oracle_count(hs_trace_oracle_keys_estimate, path, &o, 0, 0, -EOPNOTSUPP);
	for (i = 0; i < 1000; i++)
		oracle_rec(buf + (size_t)i * 24, i, i, 4096, -1);
	put("small.oracle", buf, 24 * 1000, false);
	expect_sample(path, &o, 0, 0, -EOPNOTSUPP);	/* too small to be sampled */

	/* u32be: the same bytes as 9 M ids, of which half are zero */
	o = opts(HS_TRACE_U32BE);
	expect_plain_as_gz(buf, (size_t)n * 24, &o, (uint64_t)n * 6, 0);
	expect_oracle_keys(put("s.u32", buf, (size_t)n * 24, false), &o, 0, 0, -EOPNOTSUPP);
	expect_plain_as_gz(buf, (size_t)n * 24 - 1, &o, (uint64_t)n * 6 - 1, -EBADMSG);
	memset(buf, '1', (size_t)n * 24);
	for (i = 0; i < n; i++)
		buf[(size_t)i * 24 + 23] = '\n';
	expect_plain_as_gz(buf, (size_t)n * 24, &o, 0, -EBADMSG);	/* text */
	free(buf);
}

static const struct t_case cases[] = {
	{ "types", test_types },
	{ "fnv", test_fnv },
	{ "text", test_text },
	{ "text_errors", test_text_errors },
	{ "text_long_line", test_text_long_line },
	{ "empty", test_empty },
	{ "missing", test_missing },
	{ "lirs", test_lirs },
	{ "lis", test_lis },
	{ "lis_errors", test_lis_errors },
	{ "csv", test_csv },
	{ "csv_errors", test_csv_errors },
	{ "oracle", test_oracle },
	{ "u32be", test_u32be },
	{ "big_gz", test_big_gz },
	{ "corrupt_gz", test_corrupt_gz },
	{ "gz_members", test_gz_members },
	{ "max_records", test_max_records },
	{ "read_cb", test_read_cb },
	{ "many", test_many },
	{ "large_plain", test_large_plain },
};

int main(int argc, char **argv)
{
	char cmd[128];
	int ret;

	snprintf(dir, sizeof(dir), "/tmp/t-trace-in.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	ret = t_main(cases, ARRAY_SIZE(cases), argc, argv);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	return ret;
}
