/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of lib/store.c on :memory: and temporary-file databases: a
 * session written and read back exactly across chunk boundaries, abort,
 * refusing newer, foreign, garbage and missing files, read-only refusal,
 * stored runs read back through the documented views, cascading removal and
 * corrupt chunks.  Only lib/store.c includes <sqlite3.h>; the test changes the
 * file behind the store's back with hs_store_query() on a writable store.
 *
 * The writer test's stream: record i has original id (i * 7919 mod 50000) *
 * 1000 + 17.  7919 is prime to 50000, so records 0 .. 49999 are 50000
 * distinct keys and record i gets dense id i mod 50000.  Meta: a PAGEOUT hint
 * (0x02) when i mod 10 = 9, else anonymous PT (0x09) when i mod 7 = 0, else
 * FD (0x00); so 200000 records hold 180000 accesses and span four chunks of
 * 65536, 65536, 65536 and 3392 records.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "harness.h"
#include "store.h"

#define N_REC	200000
#define N_KEYS	50000

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char path[4][512];
	static int slot;
	char *p = path[slot++ % 4];

	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR");

		if (!base || !*base)
			base = "/tmp";
		snprintf(tmpdir, sizeof(tmpdir), "%s/t-store.XXXXXX", base);
		if (!mkdtemp(tmpdir)) {
			tmpdir[0] = '\0';
			return NULL;
		}
	}
	snprintf(p, 512, "%s/%s", tmpdir, name);
	return p;
}

static void rm_db(const char *path)
{
	char buf[600];

	unlink(path);
	snprintf(buf, sizeof(buf), "%s-wal", path);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", path);
	unlink(buf);
}

static uint64_t orig_id(uint64_t i)
{
	return (i * 7919 % N_KEYS) * 1000 + 17;
}

static uint8_t meta_of(uint64_t i)
{
	if (i % 10 == 9)
		return 0x02;
	return i % 7 == 0 ? 0x09 : 0x00;
}

static const struct hs_session_meta gen_meta = {
	.source = "gen", .origin = "/some/dir/trace.txt", .format = "text",
};

/* Write the pattern session of @n records; return its id or -1. */
static int64_t write_pattern(struct hs_store *st, uint64_t n)
{
	struct hs_session_writer *w = NULL;
	int64_t id = -1;
	uint64_t i;
	int err = 0;

	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), 0);
	if (!w)
		return -1;
	for (i = 0; i < n && !err; i++)
		err = hs_session_add(w, orig_id(i), meta_of(i));
	T_EQ_I64(err, 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);
	return id;
}

/* Query result collector: every cell as text ("NULL" for null), rows joined by ';'. */
struct collect {
	char	buf[4096];	/* "a|b;c|d" */
	char	names[512];	/* column names of the last row, '|'-joined */
	int	rows;		/* rows seen */
	int	stop_after;	/* return non-zero after this many rows (0: never) */
};

static int collect_cb(const struct hs_sql_row *row, void *arg)
{
	struct collect *c = arg;
	size_t i, len;

	c->names[0] = '\0';
	len = strlen(c->buf);
	if (c->rows)
		len += (size_t)snprintf(c->buf + len, sizeof(c->buf) - len, ";");
	for (i = 0; i < row->ncols && len < sizeof(c->buf); i++) {
		const char *sep = i ? "|" : "";

		switch (row->types[i]) {
		case HS_SQL_NULL:
			len += (size_t)snprintf(c->buf + len, sizeof(c->buf) - len, "%sNULL", sep);
			break;
		case HS_SQL_INT:
			len += (size_t)snprintf(c->buf + len, sizeof(c->buf) - len, "%s%lld", sep,
						(long long)row->ints[i]);
			break;
		case HS_SQL_REAL:
			len += (size_t)snprintf(c->buf + len, sizeof(c->buf) - len, "%sR%.17g", sep,
						row->reals[i]);
			break;
		default:
			len += (size_t)snprintf(c->buf + len, sizeof(c->buf) - len, "%s'%s'", sep,
						row->texts[i]);
			break;
		}
		snprintf(c->names + strlen(c->names), sizeof(c->names) - strlen(c->names),
			 "%s%s", sep, row->names[i]);
	}
	c->rows++;
	return c->stop_after && c->rows >= c->stop_after;
}

/* Run @sql and return the collected text (static buffer), or "ERR <msg>". */
static const char *q(struct hs_store *st, const char *sql)
{
	static struct collect c;
	int err;

	memset(&c, 0, sizeof(c));
	err = hs_store_query(st, sql, collect_cb, &c);
	if (err)
		snprintf(c.buf, sizeof(c.buf), "ERR %d %s", err, hs_store_errmsg(st));
	return c.buf;
}

static const char *q_names(struct hs_store *st, const char *sql)
{
	static char names[512];
	struct collect c;

	memset(&c, 0, sizeof(c));
	if (hs_store_query(st, sql, collect_cb, &c))
		return hs_store_errmsg(st);
	snprintf(names, sizeof(names), "%s", c.names);
	return names;
}

static void test_memory_open(void)
{
	struct hs_store *st = NULL;
	struct hs_store_info info;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_store_user_version(st), HS_STORE_SCHEMA_VERSION);
	T_EQ_I64(hs_store_get_info(st, &info), 0);
	T_EQ_U64(info.application_id, 0x48534354);
	T_EQ_I64(info.user_version, 1);
	T_EQ_I64(info.sessions, 0);
	T_EQ_I64(info.runs, 0);
	T_EQ_STR(info.journal_mode, "memory");
	T_EQ_STR(q(st, "PRAGMA foreign_keys"), "1");
	T_EQ_STR(q_names(st, "SELECT * FROM v_sessions"),
		 "");	/* no rows: the callback never ran */
	hs_store_close(st);
	hs_store_close(NULL);
}

static void check_read_back(struct hs_store *st, int64_t id)
{
	static const size_t want_n[] = { 65536, 65536, 65536, 3392 };
	struct hs_session_reader *r = NULL;
	const uint32_t *keys;
	const uint8_t *meta;
	uint64_t rec = 0, bad = 0;
	size_t n, c, i;
	int pass;

	T_EQ_I64(hs_session_read_open(st, id, &r), 0);
	if (!r)
		return;
	for (pass = 0; pass < 2; pass++) {
		rec = 0;
		for (c = 0; c < 4; c++) {
			T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), 1);
			T_EQ_U64(n, want_n[c]);
			if (t_case_failed())
				break;
			for (i = 0; i < n; i++, rec++)
				bad += keys[i] != rec % N_KEYS || meta[i] != meta_of(rec);
		}
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), 0);
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), 0);
		T_EQ_U64(rec, N_REC);
		T_EQ_U64(bad, 0);
		T_EQ_I64(hs_session_read_rewind(r), 0);
	}
	hs_session_read_close(r);
}

static void test_writer_roundtrip(void)
{
	const char *path = tmp_path("rt.db");
	struct hs_session_info info;
	struct hs_store_info sinfo;
	struct hs_store *st = NULL;
	int64_t id;

	T_ASSERT(path);
	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	id = write_pattern(st, N_REC);
	T_EQ_I64(id, 1);
	T_EQ_I64(hs_session_get(st, id, &info), 0);
	T_EQ_I64(info.id, 1);
	T_EQ_STR(info.source, "gen");
	T_EQ_STR(info.name, "trace.txt");
	T_EQ_STR(info.kind, "file");
	T_EQ_STR(info.channel, "pt");
	T_EQ_STR(info.unit, "page");
	T_EQ_STR(info.status, "complete");
	T_EQ_U64(info.records, N_REC);
	T_EQ_U64(info.accesses, 180000);
	T_EQ_U64(info.distinct_keys, N_KEYS);
	check_read_back(st, id);
	T_EQ_STR(q(st, "SELECT count(*), sum(nr_records), sum(nr_accesses), min(encoding),"
		      " max(encoding) FROM access_chunks WHERE session = 1"),
		 "4|200000|180000|1|1");
	T_EQ_STR(q(st, "SELECT chunk_no, first_seq, nr_records FROM access_chunks"
		      " ORDER BY chunk_no"),
		 "0|0|65536;1|65536|65536;2|131072|65536;3|196608|3392");
	T_EQ_STR(q(st, "SELECT count(*), sum(nr_keys), min(first_key) FROM session_keys"),
		 "1|50000|0");
	/* original ids back through hs_key(): 0 -> 17, 1 -> 7919017, 49999 -> 42081017
	 * (49999 * 7919 = 395942081 = 7918 * 50000 + 42081) */
	T_EQ_STR(q(st, "SELECT hs_key(1, 0), hs_key(1, 1), hs_key(1, 49999), hs_key(1, 50000),"
		      " hs_key(2, 0), hs_key(1, NULL)"),
		 "17|7919017|42081017|NULL|NULL|NULL");
	T_EQ_STR(q_names(st, "SELECT * FROM v_sessions"),
		 "session|source|name|status|started|ended|accesses|distinct_keys");
	T_EQ_STR(q(st, "SELECT session, source, name, status, accesses, distinct_keys,"
		      " started LIKE '____-__-__T__:__:__Z', ended >= started FROM v_sessions"),
		 "1|'gen'|'trace.txt'|'complete'|180000|50000|1|1");
	T_EQ_STR(q(st, "SELECT origin, format, params, hsctl_version = '" PACKAGE_VERSION "'"
		      " FROM sessions"),
		 "'/some/dir/trace.txt'|'text'|'{}'|1");
	T_EQ_I64(hs_store_get_info(st, &sinfo), 0);
	T_EQ_STR(sinfo.journal_mode, "wal");
	T_EQ_I64(sinfo.sessions, 1);
	hs_store_close(st);

	/* the same, read-only, from a fresh connection */
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY | HS_STORE_NOCREATE, &st), 0);
	if (st)
		check_read_back(st, 1);
	hs_store_close(st);
	rm_db(path);
}

static void test_empty_and_bad_meta(void)
{
	struct hs_session_writer *w = NULL;
	struct hs_session_reader *r = NULL;
	struct hs_session_info info;
	struct hs_store *st = NULL;
	const uint32_t *keys;
	const uint8_t *meta;
	int64_t id = 0;
	size_t n;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), 0);
	if (!w)
		goto out;
	/* channel 5 does not exist; bit 0x20 is not defined */
	T_EQ_I64(hs_session_add(w, 1, 0x05), -EINVAL);
	T_EQ_STR(hs_store_errmsg(st), "bad meta byte 0x05");
	T_EQ_I64(hs_session_add(w, 1, 0x20), -EINVAL);
	/* a second writer on the same store must wait its turn */
	{
		struct hs_session_writer *w2 = NULL;

		T_EQ_I64(hs_session_begin(st, &gen_meta, &w2), -EBUSY);
		T_ASSERT(!w2);
	}
	T_EQ_I64(hs_session_commit(w, &id), 0);
	T_EQ_I64(hs_session_get(st, id, &info), 0);
	T_EQ_U64(info.records, 0);
	T_EQ_U64(info.accesses, 0);
	T_EQ_U64(info.distinct_keys, 0);
	T_EQ_I64(hs_session_read_open(st, id, &r), 0);
	if (r)
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), 0);
	hs_session_read_close(r);
	T_EQ_I64(hs_session_get(st, 99, &info), -ENOENT);
	T_EQ_STR(hs_store_errmsg(st), "no session 99");
	T_EQ_I64(hs_session_read_open(st, 99, &r), -ENOENT);
out:
	hs_store_close(st);
}

static void test_abort(void)
{
	struct hs_session_writer *w = NULL;
	struct hs_store *st = NULL;
	uint64_t i;
	int err = 0;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), 0);
	if (!w)
		goto out;
	/* 100000 records: one full chunk has been written before the abort */
	for (i = 0; i < 100000 && !err; i++)
		err = hs_session_add(w, orig_id(i), meta_of(i));
	T_EQ_I64(err, 0);
	T_EQ_STR(q(st, "SELECT count(*) FROM access_chunks"), "1");
	hs_session_abort(w);
	hs_session_abort(NULL);
	T_EQ_STR(q(st, "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM"
		      " access_chunks), (SELECT count(*) FROM session_keys)"), "0|0|0");
	/* the store is usable again */
	T_EQ_I64(write_pattern(st, 10) > 0, 1);
	T_EQ_STR(q(st, "SELECT records, accesses, distinct_keys FROM sessions"), "10|9|10");
out:
	hs_store_close(st);
}

/* Set up a file, change it with @sql through a writable store, and reopen it with @flags. */
static int reopen_after(const char *path, const char *sql, unsigned int flags,
			struct hs_store **out)
{
	struct hs_store *st = NULL;

	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return -1;
	if (sql)
		T_EQ_I64(hs_store_query(st, sql, NULL, NULL), 0);
	hs_store_close(st);
	return hs_store_open(path, flags, out);
}

static void test_refuse_files(void)
{
	const char *path = tmp_path("refuse.db");
	struct hs_store *st = NULL;
	FILE *fp;
	int i;

	if (!path)
		return;
	T_EQ_I64(reopen_after(path, "PRAGMA user_version = 7", 0, &st), -EPROTO);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL,
		 "database schema version 7 is newer than this hsctl supports (1); upgrade hsctl");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY, &st), -EPROTO);
	hs_store_close(st);

	st = NULL;
	T_EQ_I64(reopen_after(path, "PRAGMA application_id = 1234", 0, &st), -EPROTO);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL, "not an hsctl database");
	hs_store_close(st);

	/* tables but no application_id: someone else's database */
	st = NULL;
	T_EQ_I64(reopen_after(path, "PRAGMA application_id = 0", HS_STORE_RDONLY, &st),
		 -EPROTO);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL, "not an hsctl database");
	hs_store_close(st);

	/* an older schema: read-only refuses, NOMIGRATE accepts it as it is */
	st = NULL;
	T_EQ_I64(reopen_after(path, "PRAGMA user_version = 0", HS_STORE_RDONLY, &st), -EPROTO);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL,
		 "database schema version 0 is older than this hsctl's (1);"
		 " run 'hsctl db migrate'");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY | HS_STORE_NOMIGRATE, &st), 0);
	T_EQ_I64(st ? hs_store_user_version(st) : -1, 0);
	hs_store_close(st);
	rm_db(path);

	/* not SQLite at all */
	fp = fopen(path, "w");
	T_ASSERT(fp);
	if (!fp)
		return;
	for (i = 0; i < 200; i++)
		fputs("this is not a database\n", fp);
	fclose(fp);
	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), -EPROTO);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL, "file is not a database");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY, &st), -EPROTO);
	hs_store_close(st);
	rm_db(path);

	/* missing */
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_NOCREATE, &st), -ENOENT);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL, "No such file or directory");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY, &st), -ENOENT);
	hs_store_close(st);
	T_ASSERT(access(path, F_OK) != 0);
}

static void test_readonly(void)
{
	const char *path = tmp_path("ro.db");
	struct hs_session_writer *w = NULL;
	struct hs_run_record rr = { 0 };
	struct hs_sim_stats stats = { 0 };
	struct hs_store *st = NULL;
	int64_t id;

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	id = write_pattern(st, 100);
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY, &st), 0);
	if (!st)
		return;
	T_EQ_STR(q(st, "SELECT count(*) FROM sessions"), "1");
	T_EQ_STR(q(st, "DELETE FROM sessions"),
		 "ERR -1 statement writes to the database; use --write");
	/* nothing runs when any statement would write */
	T_EQ_STR(q(st, "SELECT 1; DROP TABLE runs"),
		 "ERR -1 statement writes to the database; use --write");
	T_EQ_STR(q(st, "PRAGMA user_version = 3"),
		 "ERR -1 statement writes to the database; use --write");
	T_EQ_STR(q(st, "SELECT count(*) FROM runs"), "0");
	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), -EPERM);
	T_ASSERT(!w);
	T_EQ_I64(hs_session_remove(st, id), -EPERM);
	rr.session = id;
	rr.policy = "lru";
	rr.stats = &stats;
	T_EQ_I64(hs_store_save_runs(st, &rr, 1, NULL), -EPERM);
	hs_store_close(st);
	rm_db(path);
}

static void test_query(void)
{
	struct hs_store *st = NULL;
	struct collect c = { .stop_after = 2 };

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_STR(q(st, "SELECT * FROM foo"), "ERR -5 no such table: foo");
	T_EQ_STR(q(st, "SELEC 1"), "ERR -5 near \"SELEC\": syntax error");
	T_EQ_STR(q(st, "SELECT 1, 2.5, 'a', NULL, x'00ff', -9223372036854775808"),
		 "1|R2.5|'a'|NULL|'x'00ff''|-9223372036854775808");
	T_EQ_STR(q_names(st, "SELECT 1 AS one, 2 AS \"two words\""), "one|two words");
	/* only the last statement that returns rows reports them */
	T_EQ_STR(q(st, "SELECT 1; SELECT 2; -- a comment"), "2");
	T_EQ_STR(q(st, "CREATE TEMP TABLE t (x); INSERT INTO t VALUES (1), (2), (3);"
		      " SELECT x FROM t ORDER BY x; DROP TABLE t"), "1;2;3");
	T_EQ_STR(q(st, ""), "");
	T_EQ_STR(q(st, "  ;  "), "");
	/* the callback may stop early */
	T_EQ_I64(hs_store_query(st, "VALUES (1), (2), (3), (4)", collect_cb, &c), 0);
	T_EQ_I64(c.rows, 2);
	T_EQ_STR(c.buf, "1;2");
	/* a constraint failure is an error too */
	T_EQ_STR(q(st, "INSERT INTO runs (session) VALUES (1)"),
		 "ERR -22 NOT NULL constraint failed: runs.policy");
	hs_store_close(st);
}

static void test_runs(void)
{
	struct hs_sim_stats a = { 0 }, b = { 0 }, z = { 0 };
	struct hs_run_record rr[3] = { { 0 } };
	struct hs_store *st = NULL;
	struct hs_metrics m = { 0 };
	int64_t ids[3] = { 0 }, sid;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	sid = write_pattern(st, 1000);
	a.capacity = 100;
	a.records = 1000;
	a.accesses = 1000;
	a.hits = 250;
	a.misses = 750;
	a.cold_misses = 600;
	a.evictions = 650;
	a.refaults = 150;
	a.pingpong_keys = 7;
	a.pingpong_refaults = 30;
	a.prot.total = 5;
	a.prot.useful = 3;
	a.prot.wasted = 2;
	a.prot_kind[HS_PROT_SECOND_CHANCE] = a.prot;
	a.prot_occupancy = 0.125;
	a.peak_resident = 100;
	a.refault_hist[0] = 1;
	a.refault_hist[3] = 4;
	a.refault_hist[47] = 2;
	a.pswpin = 40;
	a.pswpout = 60;
	b = a;
	b.hits = 500;
	b.misses = 500;
	b.prot = z.prot;
	b.pswpin = 0;
	b.pswpout = 0;
	memset(b.prot_kind, 0, sizeof(b.prot_kind));
	memset(b.refault_hist, 0, sizeof(b.refault_hist));
	z.capacity = 100;
	hs_metrics_add(&m, "arc.p", 1.5);
	rr[0] = (struct hs_run_record){ .session = sid, .policy = "arc",
					.params_json = "{\"x\":1}", .stats = &a, .metrics = &m,
					.wall_s = 0.5 };
	rr[1] = (struct hs_run_record){ .session = sid, .policy = "opt", .stats = &b,
					.wall_s = 0.25 };
	rr[2] = (struct hs_run_record){ .session = sid, .policy = "lru", .stats = &z };
	T_EQ_I64(hs_store_save_runs(st, rr, 3, ids), 0);
	T_EQ_I64(ids[0], 1);
	T_EQ_I64(ids[1], 2);
	T_EQ_I64(ids[2], 3);
	T_EQ_STR(q_names(st, "SELECT * FROM v_runs"),
		 "run|session|policy|params|capacity|accesses|hits|misses|hit_ratio|evictions|"
		 "refaults|pingpong_keys|protected|protected_useful|protected_wasted|wall_s|"
		 "pswpin|pswpout");
	/* hit_ratio = hits / accesses: 250 / 1000, 500 / 1000, none for 0 accesses */
	T_EQ_STR(q(st, "SELECT * FROM v_runs ORDER BY run"),
		 "1|1|'arc'|'{\"x\":1}'|100|1000|250|750|R0.25|650|150|7|5|3|2|R0.5|40|60;"
		 "2|1|'opt'|'{}'|100|1000|500|500|R0.5|650|150|7|0|0|0|R0.25|0|0;"
		 "3|1|'lru'|'{}'|100|0|0|0|NULL|0|0|0|0|0|0|R0|0|0");
	/* opt_gap = misses / opt's misses: 750 / 500, 500 / 500, 0 / 500 */
	T_EQ_STR(q_names(st, "SELECT * FROM v_policy_compare"),
		 "session|capacity|policy|hit_ratio|opt_gap");
	T_EQ_STR(q(st, "SELECT * FROM v_policy_compare ORDER BY policy"),
		 "1|100|'arc'|R0.25|R1.5;1|100|'lru'|NULL|R0;1|100|'opt'|R0.5|R1");
	/* buckets: 0 is [0, 1), 3 is [4, 8), 47 is [2^46, 2^47) */
	T_EQ_STR(q_names(st, "SELECT * FROM v_refaults"), "run|policy|capacity|lo|hi|count");
	T_EQ_STR(q(st, "SELECT * FROM v_refaults ORDER BY run, lo"),
		 "1|'arc'|100|0|1|1;1|'arc'|100|4|8|4;"
		 "1|'arc'|100|70368744177664|140737488355328|2");
	T_EQ_STR(q(st, "SELECT run, bucket FROM run_refault_hist ORDER BY bucket"),
		 "1|0;1|3;1|47");
	T_EQ_STR(q(st, "SELECT * FROM run_protection"), "1|'second_chance'|5|3|2");
	T_EQ_STR(q(st, "SELECT * FROM run_metrics"), "1|'arc.p'|R1.5");
	T_EQ_STR(q(st, "SELECT records, cold_misses, prot_occupancy, peak_resident,"
		      " created LIKE '____-__-__T__:__:__Z' FROM runs WHERE id = 1"),
		 "1000|600|R0.125|100|1");
	/* v_pingpong: 30 of 750 misses */
	T_EQ_STR(q(st, "SELECT miss_share FROM v_pingpong WHERE run = 1"), "R0.040000000000000001");

	/* a run of a missing session fails and stores nothing */
	rr[0].session = 42;
	T_EQ_I64(hs_store_save_runs(st, rr, 2, NULL), -EINVAL);
	T_EQ_STR(hs_store_errmsg(st), "FOREIGN KEY constraint failed");
	T_EQ_STR(q(st, "SELECT count(*) FROM runs"), "3");

	/* cascade: the session takes its runs and their rows along */
	T_EQ_I64(hs_session_remove(st, sid), 0);
	T_EQ_STR(q(st, "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM runs),"
		      " (SELECT count(*) FROM run_protection), (SELECT count(*) FROM"
		      " run_refault_hist), (SELECT count(*) FROM run_metrics), (SELECT count(*)"
		      " FROM access_chunks), (SELECT count(*) FROM session_keys)"),
		 "0|0|0|0|0|0|0");
	T_EQ_I64(hs_session_remove(st, sid), -ENOENT);
	T_EQ_STR(hs_store_errmsg(st), "no session 1");
	/* ids are never reused */
	T_EQ_I64(write_pattern(st, 5), 2);
	hs_store_close(st);
}

/* Damage the pattern session with @sql; chunk @bad must then fail with @why in the message. */
static void corrupt_case(const char *sql, size_t bad, const char *msg)
{
	struct hs_session_reader *r = NULL;
	struct hs_store *st = NULL;
	const uint32_t *keys;
	const uint8_t *meta;
	size_t n, c;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	write_pattern(st, N_REC);
	T_EQ_STR(q(st, sql), "");
	T_EQ_I64(hs_session_read_open(st, 1, &r), 0);
	for (c = 0; r && c < bad; c++)
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), 1);
	if (r) {
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), -EBADMSG);
		T_EQ_STR(hs_store_errmsg(st), msg);
	}
	hs_session_read_close(r);
	hs_store_close(st);
}

static void test_corrupt(void)
{
	corrupt_case("UPDATE access_chunks SET data = x'80' WHERE chunk_no = 1", 1,
		     "session 1: access chunk 1 is corrupt (truncated varint)");
	/* the last record (199999, a hint after an FD access) ends with its meta byte */
	corrupt_case("UPDATE access_chunks SET data = substr(data, 1, length(data) - 1)"
		     " WHERE chunk_no = 3", 3,
		     "session 1: access chunk 3 is corrupt (truncated meta byte)");
	corrupt_case("DELETE FROM access_chunks WHERE chunk_no = 2", 2,
		     "session 1: access chunk 2 is corrupt (missing)");
	corrupt_case("UPDATE access_chunks SET nr_accesses = 1 WHERE chunk_no = 0", 0,
		     "session 1: access chunk 0 is corrupt (wrong nr_accesses)");
	corrupt_case("UPDATE access_chunks SET encoding = 2 WHERE chunk_no = 0", 0,
		     "session 1: access chunk 0 is corrupt (unknown chunk encoding)");
	corrupt_case("UPDATE access_chunks SET first_seq = 5 WHERE chunk_no = 1", 1,
		     "session 1: access chunk 1 is corrupt (wrong first_seq)");
	corrupt_case("UPDATE sessions SET distinct_keys = 10", 0,
		     "session 1: access chunk 0 is corrupt (key out of range)");
	corrupt_case("UPDATE sessions SET accesses = 5", 3,
		     "session 1: 180000 accesses stored, 5 expected");
	/* "text": 't' (v 116: key 29), 'e' (v 101: key 54, meta follows), 'x' = 0x78 */
	corrupt_case("UPDATE access_chunks SET data = 'text' WHERE chunk_no = 0", 0,
		     "session 1: access chunk 0 is corrupt (bad meta byte)");
}

static void cleanup(void)
{
	if (tmpdir[0])
		rmdir(tmpdir);
}

/*
 * Generation samples become one row per live generation, like the lines of
 * debugfs lru_gen.  Sample 1: max_seq 3, min_seq anon 0, file 1; pages by
 * gen % 4 and type.  Gen 0 holds anon pages only (file's oldest is 1).
 * Sample 2: max_seq 5, min_seq 3 and 2: gens 2..5; gen 5 lives in slot 1,
 * gen 2 in slot 2 (anon 0: below anon's min_seq 3).
 */
static void test_generations(void)
{
	struct hs_gen_sample g[2] = {
		{ .seq = 100, .aging = 1, .max_seq = 3, .min_seq = { 0, 1 },
		  .pages = { { 5, 9 }, { 6, 7 }, { 1, 2 }, { 3, 4 } } },
		{ .seq = 250, .aging = 2, .max_seq = 5, .min_seq = { 3, 2 },
		  .pages = { { 10, 11 }, { 12, 13 }, { 14, 15 }, { 16, 17 } } },
	};
	struct hs_sim_stats a = { .capacity = 8, .accesses = 10 };
	struct hs_run_record rr = { 0 };
	struct hs_store *st = NULL;
	int64_t id = 0;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	rr = (struct hs_run_record){ .session = write_pattern(st, 10), .policy = "mglru",
				     .stats = &a, .gens = g, .nr_gens = 2 };
	T_EQ_I64(hs_store_save_runs(st, &rr, 1, &id), 0);
	T_EQ_STR(q(st, "SELECT aging, seq, max_seq, min_seq_anon, min_seq_file, gen, anon_pages,"
		       " file_pages FROM run_generations ORDER BY aging, gen"),
		 "1|100|3|0|1|0|5|0;1|100|3|0|1|1|6|7;1|100|3|0|1|2|1|2;1|100|3|0|1|3|3|4;"
		 "2|250|5|3|2|2|0|15;2|250|5|3|2|3|16|17;2|250|5|3|2|4|10|11;"
		 "2|250|5|3|2|5|12|13");
	T_EQ_I64(hs_session_remove(st, rr.session), 0);
	T_EQ_STR(q(st, "SELECT count(*) FROM run_generations"), "0");
	hs_store_close(st);
}

static const struct t_case cases[] = {
	{ "memory_open", test_memory_open },
	{ "writer_roundtrip", test_writer_roundtrip },
	{ "empty_and_bad_meta", test_empty_and_bad_meta },
	{ "abort", test_abort },
	{ "refuse_files", test_refuse_files },
	{ "readonly", test_readonly },
	{ "query", test_query },
	{ "runs", test_runs },
	{ "generations", test_generations },
	{ "corrupt", test_corrupt },
};

int main(int argc, char **argv)
{
	int ret = t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);

	cleanup();
	return ret;
}
