/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the trace writers (lib/trace-out.c): a session with hints and
 * drops among its accesses (what only a recording makes, so the CLI test
 * cannot) exported in every format, byte for byte, with the skipped count and
 * oracle's next-access times worked out by hand; 64-bit ids; gzip output read
 * back by the importer's reader; and the errors with their messages.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "access.h"
#include "harness.h"
#include "hs.h"
#include "store.h"
#include "trace-in.h"
#include "trace-out.h"

static char dir[64];		/* scratch directory of this run */
static char path[128];		/* the file of the current case */

/* The whole of @file (gunzipped if it is gzip) into @buf; returns its length or -1. */
static long slurp(const char *file, unsigned char *buf, size_t len)
{
	gzFile g = gzopen(file, "rb");
	int n;

	if (!g)
		return -1;
	n = gzread(g, buf, (unsigned int)len);
	gzclose(g);
	return n;
}

/*
 * The session: original key and meta per record.  Accesses are 10 20 30 10 20
 * (records 0, 1, 3, 5, 7); records 2, 4, 6 are a PAGEOUT hint, a COLD hint
 * and a DROP.
 */
static const struct { uint64_t key; uint8_t meta; } recs[] = {
	{ 10, HS_CH_PT },
	{ 20, HS_CH_PT | HS_META_ANON | HS_META_WRITE },
	{ 10, HS_CH_PAGEOUT },
	{ 30, HS_CH_FD },
	{ 20, HS_CH_COLD | HS_META_ANON },
	{ 10, HS_CH_PT },
	{ 30, HS_CH_DROP },
	{ 20, HS_CH_FD },
};

static int64_t make_session(struct hs_store *st)
{
	static const struct hs_session_meta m = {
		.source = "gen", .origin = "t-trace-out", .format = "test",
	};
	struct hs_session_writer *w = NULL;
	int64_t id = -1;
	size_t i;

	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	if (!w)
		return -1;
	for (i = 0; i < ARRAY_SIZE(recs); i++)
		T_EQ_I64(hs_session_add(w, recs[i].key, recs[i].meta), 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);
	return id;
}

/* Export session @id of @st as @type into "dir/name"; return the file's bytes in @buf. */
static long export(struct hs_store *st, int64_t id, enum hs_trace_type type, const char *name,
		   bool gzip, struct hs_trace_export_stats *s, unsigned char *buf, size_t len)
{
	struct hs_trace_out_opts o = { .type = type, .gzip = gzip, .obj_size = 1 };
	struct hs_trace_writer *w = NULL;
	char err[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	T_EQ_I64(hs_trace_writer_open(path, &o, &w), 0);
	if (!w)
		return -1;
	T_EQ_I64(hs_trace_export(st, id, w, s, err, sizeof(err)), 0);
	T_EQ_STR(err, "");
	T_EQ_I64(hs_trace_writer_finish(w), 0);
	hs_trace_writer_free(w);
	return slurp(path, buf, len);
}

static void test_hints_skipped(void)
{
	static const char text[] = "10\n20\n30\n10\n20\n";
	static const char csv[] = "key,kind,channel,write\n10,file,pt,0\n20,anon,pt,1\n"
				  "30,file,fd,0\n10,file,pt,0\n20,file,fd,0\n";
	/* next_access_vtime by hand, counted from 1 over the accesses 10 20 30 10 20 */
	static const int64_t next[] = { 4, 5, -1, -1, -1 };
	static const uint64_t keys[] = { 10, 20, 30, 10, 20 };
	struct hs_trace_export_stats s;
	struct hs_store *st = NULL;
	unsigned char buf[512];
	int64_t id;
	long n;
	size_t i;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	id = make_session(st);

	n = export(st, id, HS_TRACE_TEXT, "s.txt", false, &s, buf, sizeof(buf));
	T_EQ_I64(n, (long)strlen(text));
	T_ASSERT(n > 0 && !memcmp(buf, text, (size_t)n));
	T_EQ_U64(s.records, 5);
	T_EQ_U64(s.skipped, 3);
	T_EQ_U64(s.distinct_keys, 3);

	n = export(st, id, HS_TRACE_LIRS, "s.lirs", false, &s, buf, sizeof(buf));
	T_EQ_I64(n, (long)strlen(text));
	T_ASSERT(n > 0 && !memcmp(buf, text, (size_t)n));

	n = export(st, id, HS_TRACE_CSV, "s.csv", false, &s, buf, sizeof(buf));
	T_EQ_I64(n, (long)strlen(csv));
	T_ASSERT(n > 0 && !memcmp(buf, csv, (size_t)n));
	T_EQ_U64(s.skipped, 3);

	n = export(st, id, HS_TRACE_ORACLE, "s.bin", false, &s, buf, sizeof(buf));
	T_EQ_I64(n, 5 * 24);
	for (i = 0; n == 5 * 24 && i < 5; i++) {
		const unsigned char *r = buf + i * 24;
		uint64_t id64 = 0, nx = 0;
		uint32_t t = 0, sz = 0;
		int b;

		for (b = 3; b >= 0; b--) {
			t = t << 8 | r[b];
			sz = sz << 8 | r[12 + b];
		}
		for (b = 7; b >= 0; b--) {
			id64 = id64 << 8 | r[4 + b];
			nx = nx << 8 | r[16 + b];
		}
		T_EQ_U64(t, 0);
		T_EQ_U64(id64, keys[i]);
		T_EQ_U64(sz, 1);
		T_EQ_I64((int64_t)nx, next[i]);
	}
	T_EQ_U64(s.records, 5);
	T_EQ_U64(s.skipped, 3);
	hs_store_close(st);
}

static void test_wide_ids_gzip(void)
{
	static const uint64_t ids[] = { UINT64_MAX, 1ull << 63, 0, UINT64_MAX };
	static const struct hs_session_meta m = {
		.source = "gen", .origin = "t-trace-out", .format = "test",
	};
	static const char text[] = "18446744073709551615\n9223372036854775808\n0\n"
				   "18446744073709551615\n";
	struct hs_trace_opts in = { .type = HS_TRACE_TEXT };
	struct hs_trace_reader *r = NULL;
	struct hs_session_writer *w = NULL;
	struct hs_trace_export_stats s;
	struct hs_store *st = NULL;
	unsigned char buf[512];
	int64_t id = -1;
	uint64_t key;
	uint8_t meta;
	size_t i;
	long n;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	for (i = 0; w && i < ARRAY_SIZE(ids); i++)
		T_EQ_I64(hs_session_add(w, ids[i], HS_CH_PT), 0);
	if (w)
		T_EQ_I64(hs_session_commit(w, &id), 0);
	n = export(st, id, HS_TRACE_TEXT, "w.txt.gz", true, &s, buf, sizeof(buf));
	T_EQ_I64(n, (long)strlen(text));
	T_ASSERT(n > 0 && !memcmp(buf, text, (size_t)n));
	/* really gzip: the magic bytes, and the importer's reader gets the ids back */
	{
		FILE *fp = fopen(path, "rb");
		unsigned char mg[2] = { 0, 0 };

		T_ASSERT(fp && fread(mg, 1, 2, fp) == 2);
		T_ASSERT(mg[0] == 0x1f && mg[1] == 0x8b);
		if (fp)
			fclose(fp);
	}
	T_EQ_I64(hs_trace_open(path, &in, &r), 0);
	for (i = 0; r && i < ARRAY_SIZE(ids); i++) {
		T_EQ_I64(hs_trace_next(r, &key, &meta), 1);
		T_EQ_U64(key, ids[i]);
	}
	if (r)
		T_EQ_I64(hs_trace_next(r, &key, &meta), 0);
	hs_trace_close(r);
	hs_store_close(st);
}

static void test_errors(void)
{
	struct hs_trace_out_opts o = { .type = HS_TRACE_TEXT };
	struct hs_trace_writer *w = NULL;
	struct hs_trace_export_stats s;
	struct hs_store *st = NULL;
	char want[256], err[256];

	T_ASSERT(hs_trace_out_supported(HS_TRACE_ORACLE));
	T_ASSERT(!hs_trace_out_supported(HS_TRACE_LIS));
	T_ASSERT(!hs_trace_out_supported(HS_TRACE_U32BE));
	T_EQ_U64(hs_trace_unit_bytes("page"), 4096);
	T_EQ_U64(hs_trace_unit_bytes("block"), 512);
	T_EQ_U64(hs_trace_unit_bytes("object"), 1);

	snprintf(path, sizeof(path), "%s/no/such/dir.txt", dir);
	T_EQ_I64(hs_trace_writer_open(path, &o, &w), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	T_EQ_STR(w ? hs_trace_writer_errmsg(w) : NULL, want);
	hs_trace_writer_free(w);
	w = NULL;

	o.type = HS_TRACE_LIS;
	snprintf(path, sizeof(path), "%s/x.lis", dir);
	T_EQ_I64(hs_trace_writer_open(path, &o, &w), -EINVAL);
	snprintf(want, sizeof(want), "%s: cannot write type lis (valid: text, lirs, csv, oracle)",
		 path);
	T_EQ_STR(w ? hs_trace_writer_errmsg(w) : NULL, want);
	hs_trace_writer_free(w);
	w = NULL;
	T_ASSERT(access(path, F_OK) != 0);	/* nothing created */

	/* a session that is not there */
	o.type = HS_TRACE_TEXT;
	snprintf(path, sizeof(path), "%s/none.txt", dir);
	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	T_EQ_I64(hs_trace_writer_open(path, &o, &w), 0);
	if (st && w)
		T_EQ_I64(hs_trace_export(st, 5, w, &s, err, sizeof(err)), -ENOENT);
	T_EQ_STR(err, "no session 5");
	hs_trace_writer_free(w);
	w = NULL;

	/* a full device: the error comes at the latest from finish */
	if (access("/dev/full", W_OK) == 0 && st) {
		int64_t id = make_session(st);
		int ret;

		T_EQ_I64(hs_trace_writer_open("/dev/full", &o, &w), 0);
		if (w) {
			ret = hs_trace_export(st, id, w, &s, err, sizeof(err));
			if (!ret)
				ret = hs_trace_writer_finish(w);
			T_EQ_I64(ret, -ENOSPC);
			T_ASSERT(strstr(hs_trace_writer_errmsg(w), "/dev/full: "));
			T_ASSERT(strstr(hs_trace_writer_errmsg(w), strerror(ENOSPC)));
		}
		hs_trace_writer_free(w);
	}
	hs_store_close(st);
}

static const struct t_case cases[] = {
	{ "hints skipped", test_hints_skipped },
	{ "wide ids, gzip", test_wide_ids_gzip },
	{ "errors", test_errors },
};

int main(int argc, char **argv)
{
	char cmd[128];
	int ret;

	snprintf(dir, sizeof(dir), "/tmp/t-trace-out.XXXXXX");
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
