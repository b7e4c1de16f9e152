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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "event.h"
#include "harness.h"
#include "hs.h"
#include "lifecycle.h"
#include "lrugen.h"
#include "param.h"
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
	T_EQ_I64(info.user_version, 13);
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
	/* hs_session_read_all(): the rest after one chunk, then all without meta */
	{
		uint32_t *all = NULL;
		uint8_t *all_meta = NULL;

		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &n), 1);	/* 65536 */
		T_EQ_I64(hs_session_read_all(r, &all, &all_meta), N_REC - 65536);
		for (bad = 0, rec = 65536; all && all_meta && rec < N_REC; rec++)
			bad += all[rec - 65536] != rec % N_KEYS ||
			       all_meta[rec - 65536] != meta_of(rec);
		T_EQ_U64(bad, 0);
		free(all);
		free(all_meta);
		T_EQ_I64(hs_session_read_all(r, &all, NULL), 0);	/* nothing left */
		free(all);
		T_EQ_I64(hs_session_read_rewind(r), 0);
		T_EQ_I64(hs_session_read_all(r, &all, NULL), N_REC);
		for (bad = 0, rec = 0; all && rec < N_REC; rec++)
			bad += all[rec] != rec % N_KEYS;
		T_EQ_U64(bad, 0);
		/*
		 * hs_session_read_keys(), into the caller's array: past its room
		 * -EBADMSG; at a record that is no access (meta_of(9): 0x02)
		 * -EOPNOTSUPP, as hsctl mrc needs.
		 */
		T_EQ_I64(hs_session_read_rewind(r), 0);
		T_EQ_I64(hs_session_read_keys(r, all, 10), -EBADMSG);
		T_EQ_I64(hs_session_read_rewind(r), 0);
		T_EQ_I64(hs_session_read_keys(r, all, N_REC), -EOPNOTSUPP);
		free(all);
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
		 "session|source|name|status|started|ended|accesses|distinct_keys|"
		 "memory_limit_pages|lost_events|kernel|lru_gen|pswpin|pswpout|workload_exit");
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
	/*
	 * channel 5 (readahead) needs a timed session; bit 0x40 is not defined;
	 * 0x20 (no recency) is for a page-table access (0x21) only
	 */
	T_EQ_I64(hs_session_add(w, 1, 0x05), -EINVAL);
	T_EQ_STR(hs_store_errmsg(st), "bad meta byte 0x05");
	T_EQ_I64(hs_session_add(w, 1, 0x40), -EINVAL);
	T_EQ_I64(hs_session_add(w, 1, 0x20), -EINVAL);
	T_EQ_STR(hs_store_errmsg(st), "bad meta byte 0x20");
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

/*
 * A timed session: 2 full chunks of FD records, key i % 1000, time 1000 + 3i,
 * then a readahead record at time 1000000.  Encoding 2, times back exactly,
 * both ways of reading; then chunk 1's bytes replaced by chunk 0's (same
 * counts) go back in time.
 */
static void test_timed(void)
{
	const uint64_t n = 2 * HS_CHUNK_RECORDS;
	struct hs_session_writer *w = NULL;
	struct hs_session_reader *r = NULL;
	struct hs_store *st = NULL;
	const uint32_t *keys;
	const uint8_t *meta;
	const uint64_t *ts;
	uint32_t *all_keys = NULL;
	uint8_t *all_meta = NULL;
	uint64_t *all_ts = NULL, i, bad = 0;
	int64_t id = 0;
	size_t got;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), 0);
	if (!w)
		goto out;
	for (i = 0; i < n; i++)
		bad += hs_session_add_ts(w, i % 1000, 0, 1000 + 3 * i) != 0;
	T_EQ_U64(bad, 0);
	/* times never go back; no untimed record in a timed session */
	T_EQ_I64(hs_session_add_ts(w, 1, 0, 5), -EINVAL);
	T_EQ_STR(hs_store_errmsg(st), "record time 5 before the previous one");
	T_EQ_I64(hs_session_add(w, 1, 0), -EINVAL);
	T_EQ_I64(hs_session_add_ts(w, 7, HS_CH_READAHEAD, 1000000), 0);
	T_EQ_I64(hs_session_add_ts(w, 7, 0x06, 1000000), -EINVAL);
	T_EQ_I64(hs_session_commit(w, &id), 0);
	T_EQ_STR(q(st, "SELECT count(*), min(encoding), max(encoding), sum(nr_accesses)"
		      " FROM access_chunks"), "3|2|2|131072");
	T_EQ_STR(q(st, "SELECT records, accesses, distinct_keys FROM sessions"),
		 "131073|131072|1000");
	T_EQ_I64(hs_session_read_open(st, id, &r), 0);
	if (!r)
		goto out;
	T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &got), 1);
	ts = hs_session_read_times(r);
	T_ASSERT(ts);
	if (ts)
		T_ASSERT(ts[0] == 1000 && ts[65535] == 1000 + 3 * 65535);
	T_EQ_I64(hs_session_read_rewind(r), 0);
	T_EQ_I64(hs_session_read_all_ts(r, &all_keys, &all_meta, &all_ts), (int64_t)n + 1);
	T_ASSERT(all_ts);
	if (all_ts && all_keys && all_meta) {
		for (i = 0, bad = 0; i < n; i++)
			bad += all_ts[i] != 1000 + 3 * i || all_keys[i] != i % 1000;
		T_EQ_U64(bad, 0);
		T_EQ_U64(all_ts[n], 1000000);
		T_EQ_U64(all_meta[n], HS_CH_READAHEAD);
	}
	free(all_keys);
	free(all_meta);
	free(all_ts);
	hs_session_read_close(r);
	r = NULL;
	/* an untimed session reads back without times */
	write_pattern(st, 10);
	T_EQ_I64(hs_session_read_open(st, 2, &r), 0);
	if (r) {
		T_EQ_I64(hs_session_read_all_ts(r, &all_keys, NULL, &all_ts), 10);
		T_ASSERT(!all_ts);
		free(all_keys);
		hs_session_read_close(r);
		r = NULL;
	}
	T_EQ_STR(q(st, "UPDATE access_chunks SET data = (SELECT data FROM access_chunks"
		      " WHERE session = 1 AND chunk_no = 0) WHERE session = 1 AND chunk_no = 1"),
		 "");
	T_EQ_I64(hs_session_read_open(st, id, &r), 0);
	if (r) {
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &got), 1);
		T_EQ_I64(hs_session_read_chunk(r, &keys, &meta, &got), -EBADMSG);
		T_EQ_STR(hs_store_errmsg(st), "session 1: access chunk 1 is corrupt"
			 " (time before the previous chunk's)");
	}
	hs_session_read_close(r);
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

/*
 * A staged writer (meta.staged, as hsctl import uses) holds no lock until
 * its commit: another connection writes a session meanwhile.  The staged
 * session then lands whole, started when it began; an abort leaves nothing.
 */
static void test_staged(void)
{
	struct hs_session_meta m = gen_meta;
	struct hs_session_writer *w = NULL;
	struct hs_store *st = NULL, *other = NULL;
	const char *path = tmp_path("staged.db");
	int64_t id = 0;
	uint64_t i;
	int err = 0;

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	/* the other connection must find the lock free at once */
	hs_store_set_busy_timeout(0);
	T_EQ_I64(hs_store_open(path, 0, &other), 0);
	if (!st || !other)
		goto out;
	m.staged = true;
	m.id = 5;
	T_EQ_I64(hs_session_begin(st, &m, &w), -EINVAL);
	m.id = 0;
	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	if (!w)
		goto out;
	/* 100000 records: one full chunk is staged */
	for (i = 0; i < 100000 && !err; i++)
		err = hs_session_add(w, orig_id(i), meta_of(i));
	T_EQ_I64(err, 0);
	/* staged outside the database: nothing of it in any table yet */
	T_EQ_STR(q(st, "SELECT count(*) FROM access_chunks"), "0");
	/* no lock held: the other connection writes at once */
	T_EQ_I64(write_pattern(other, 10), 1);
	T_EQ_STR(q(st, "SELECT count(*) FROM access_chunks"), "1");
	T_EQ_I64(hs_session_commit(w, &id), 0);
	T_EQ_I64(id, 2);
	T_EQ_STR(q(st, "SELECT records, status, started <= ended FROM sessions WHERE id = 2"),
		 "100000|'complete'|1");
	T_EQ_STR(q(st, "SELECT count(*), sum(nr_records) FROM access_chunks WHERE session = 2"),
		 "2|100000");
	/* an abort drops the stage and writes nothing */
	w = NULL;
	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	for (i = 0; w && i < 100000; i++)
		hs_session_add(w, orig_id(i), meta_of(i));
	hs_session_abort(w);
	T_EQ_STR(q(st, "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM"
		      " access_chunks)"), "2|3");
out:
	hs_store_set_busy_timeout(10000);
	hs_store_close(other);
	hs_store_close(st);
	rm_db(path);
}

/*
 * A staged session of more than 1 MiB of chunks is committed in a rollback
 * journal with the file's writes joined into 64 KiB ones (store.c,
 * coalesce_begin()): it reads back record for record, and the file is
 * whole.  Keys: K new ones in order (dense ids 0 .. K - 1), then ids
 * (i * 7919) % K, three-byte deltas (about 3 MiB of chunks).
 */
static void test_staged_journal(void)
{
	const uint64_t k = 200000, n = 1200000;
	struct hs_session_meta m = gen_meta;
	struct hs_session_writer *w = NULL;
	struct hs_session_reader *r = NULL;
	const char *path = tmp_path("journal.db");
	struct hs_store *st = NULL;
	uint32_t *all = NULL;
	uint64_t i, bad = 0;
	int64_t id = 0;
	int err = 0;

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	m.staged = true;
	T_EQ_STR(q(st, "PRAGMA cache_size = -3000"), "");
	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	for (i = 0; w && i < n && !err; i++)
		err = hs_session_add(w, (i < k ? i : i * 7919 % k) * 1000 + 17, 0);
	T_EQ_I64(err, 0);
	if (w)
		T_EQ_I64(hs_session_commit(w, &id), 0);
	/* the commit's own journal mode and page cache size are undone */
	T_EQ_STR(q(st, "PRAGMA journal_mode"), "'wal'");
	T_EQ_STR(q(st, "PRAGMA cache_size"), "-3000");
	T_ASSERT(atoll(q(st, "SELECT sum(length(data)) FROM access_chunks")) > 2 << 20);
	T_EQ_STR(q(st, "PRAGMA integrity_check"), "'ok'");
	T_EQ_I64(hs_session_read_open(st, id, &r), 0);
	if (r)
		T_EQ_I64(hs_session_read_all(r, &all, NULL), (int64_t)n);
	for (i = 0; all && i < n; i++)
		bad += all[i] != (i < k ? i : i * 7919 % k);
	T_EQ_U64(bad, 0);
	free(all);
	hs_session_read_close(r);
	hs_store_close(st);
	rm_db(path);
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
	T_EQ_I64(reopen_after(path, "PRAGMA user_version = 99", 0, &st), -EPROTO);
	T_EQ_STR(st ? hs_store_errmsg(st) : NULL,
		 "database schema version 99 is newer than this hsctl supports (13);"
		 " upgrade hsctl");
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
		 "database schema version 0 is older than this hsctl's (13);"
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
		 "pswpin|pswpout|cold_misses|opt_gap|peak_resident");
	/*
	 * hit_ratio = hits / accesses: 250 / 1000, 500 / 1000, none for 0 accesses;
	 * opt_gap as in v_policy_compare below
	 */
	T_EQ_STR(q(st, "SELECT * FROM v_runs ORDER BY run"),
		 "1|1|'arc'|'{\"x\":1}'|100|1000|250|750|R0.25|650|150|7|5|3|2|R0.5|40|60|"
		 "600|R1.5|100;"
		 "2|1|'opt'|'{}'|100|1000|500|500|R0.5|650|150|7|0|0|0|R0.25|0|0|600|R1|100;"
		 "3|1|'lru'|'{}'|100|0|0|0|NULL|0|0|0|0|0|0|R0|0|0|0|R0|0");
	/* opt_gap = misses / opt's misses: 750 / 500, 500 / 500, 0 / 500 */
	T_EQ_STR(q_names(st, "SELECT * FROM v_policy_compare"),
		 "session|capacity|policy|hit_ratio|opt_gap|params|run");
	T_EQ_STR(q(st, "SELECT * FROM v_policy_compare ORDER BY policy"),
		 "1|100|'arc'|R0.25|R1.5|'{\"x\":1}'|1;1|100|'lru'|NULL|R0|'{}'|3;"
		 "1|100|'opt'|R0.5|R1|'{}'|2");
	/* buckets: 0 is [0, 1), 3 is [4, 8), 47 is [2^46, 2^47) */
	T_EQ_STR(q_names(st, "SELECT * FROM v_refaults"),
		 "run|policy|capacity|lo|hi|count|session|params");
	T_EQ_STR(q(st, "SELECT * FROM v_refaults ORDER BY run, lo"),
		 "1|'arc'|100|0|1|1|1|'{\"x\":1}';1|'arc'|100|4|8|4|1|'{\"x\":1}';"
		 "1|'arc'|100|70368744177664|140737488355328|2|1|'{\"x\":1}'");
	T_EQ_STR(q(st, "SELECT run, bucket FROM run_refault_hist ORDER BY bucket"),
		 "1|0;1|3;1|47");
	T_EQ_STR(q(st, "SELECT * FROM run_protection"), "1|'second_chance'|5|3|2");
	T_EQ_STR(q(st, "SELECT * FROM run_metrics"), "1|'arc.p'|R1.5");
	T_EQ_STR(q(st, "SELECT records, cold_misses, prot_occupancy, peak_resident,"
		      " created LIKE '____-__-__T__:__:__Z' FROM runs WHERE id = 1"),
		 "1000|600|R0.125|100|1");
	/* v_pingpong: 30 of 750 misses */
	T_EQ_STR(q(st, "SELECT miss_share FROM v_pingpong WHERE run = 1"), "R0.040000000000000001");
	T_EQ_STR(q_names(st, "SELECT * FROM v_pingpong"),
		 "run|session|policy|capacity|pingpong_keys|pingpong_refaults|misses|miss_share|"
		 "params");

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
	corrupt_case("UPDATE access_chunks SET encoding = 3 WHERE chunk_no = 0", 0,
		     "session 1: access chunk 0 is corrupt (unknown chunk encoding)");
	/* a session's chunks all have times or none do */
	corrupt_case("UPDATE access_chunks SET encoding = 2 WHERE chunk_no = 1", 1,
		     "session 1: access chunk 1 is corrupt (encoding differs from chunk 0's)");
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

/* ---- recorded sessions (schema 2) ---- */

static const struct hs_record_meta rec_meta = {
	.name = "rec1", .origin = "workload scan-twice", .workload = "scan-twice",
	.kind = "file", .channel = "pt", .visibility = "exact", .kernel = "6.18.0",
	.lru_gen = "absent", .clock = "mono", .instance = "hsctl_42", .cgroup = "/hsctl_42",
	.cgroup_version = 1, .memory_limit_pages = 16384, .buffer_kb = 4096, .page_size = 4096,
	.events_json = "[\"filemap:mm_filemap_add_to_page_cache\"]",
};

/* One spool blob as the test wrote it. */
struct blob {
	int		cpu;		/* spool CPU */
	uint64_t	seq;		/* its seq */
	const char	*data;		/* bytes */
	size_t		len;		/* their number */
};

/* Added in this order: CPUs 1, 0, -1 interleaved, seqs out of order within a CPU. */
static const struct blob blobs[] = {
	{ 1, 2, "\0\1\2\377x", 5 },
	{ 0, 0, "a0", 2 },
	{ 1, 0, "b10", 3 },
	{ -1, 0, "touches", 7 },
	{ 0, 1, "a1-longer", 9 },
	{ 1, 1, "", 0 },
};

/* Read one CPU's spool and compare it with blobs[] of that CPU in seq order. */
static void check_spool(struct hs_store *st, int64_t session, int cpu, const char *want)
{
	struct hs_spool_reader *r = NULL;
	char got[256] = "";
	const void *data;
	size_t len, i;
	int ret;

	T_EQ_I64(hs_spool_open(st, session, cpu, &r), 0);
	if (!r)
		return;
	/* "len:hex" per blob, ',' between */
	while ((ret = hs_spool_next(r, &data, &len)) == 1) {
		size_t at = strlen(got);

		snprintf(got + at, sizeof(got) - at, "%s%zu:", at ? "," : "", len);
		for (i = 0; i < len; i++) {
			at = strlen(got);
			snprintf(got + at, sizeof(got) - at, "%02x",
				 ((const unsigned char *)data)[i]);
		}
	}
	T_EQ_I64(ret, 0);
	T_EQ_I64(hs_spool_next(r, &data, &len), 0);
	T_EQ_STR(got, want);
	hs_spool_close(r);
}

/* Collects format files as "path=content;" */
static int format_cb(void *arg, const char *path, const void *text, size_t len)
{
	char *buf = arg;
	size_t at = strlen(buf);

	snprintf(buf + at, 512 - at, "%s=%.*s;", path, (int)len, (const char *)text);
	return 0;
}

static int stop_cb(void *arg, const char *path, const void *text, size_t len)
{
	(void)arg;
	(void)path;
	(void)text;
	(void)len;
	return 42;
}

static void test_record_spool(void)
{
	struct hs_stale_recording *open_recs = NULL;
	struct hs_session_writer *w = NULL;
	struct hs_session_info info;
	struct hs_store *st = NULL;
	char want[256], buf[512] = "";
	int64_t id = 0;
	int *cpus = NULL;
	size_t n = 0, i;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(id, 1);
	T_EQ_STR(q(st, "SELECT source, name, origin, format, unit, kind, channel, visibility,"
		      " status, records, ended FROM sessions"),
		 "'record'|'rec1'|'workload scan-twice'|'scan-twice'|'page'|'file'|'pt'|"
		 "'exact'|'recording'|0|NULL");
	snprintf(want, sizeof(want), "1|%d|'scan-twice'|'6.18.0'|'absent'|'mono'|'hsctl_42'|"
		 "'/hsctl_42'|1|16384|4096|4096|'[\"filemap:mm_filemap_add_to_page_cache\"]'|"
		 "NULL|NULL", (int)getpid());
	T_EQ_STR(q(st, "SELECT session, pid, workload, kernel, lru_gen, clock, instance, cgroup,"
		      " cgroup_version, memory_limit_pages, buffer_kb, page_size, events,"
		      " workload_exit, peak_pages FROM recordings"), want);
	T_EQ_STR(q(st, "SELECT recordings.host IS sessions.host FROM recordings, sessions"), "1");
	T_EQ_I64(hs_session_get(st, 1, &info), 0);
	T_EQ_STR(info.status, "recording");
	T_EQ_U64(info.memory_limit_pages, 16384);
	T_EQ_U64(info.peak_pages, 0);

	/* the spool, in one transaction, then read back per CPU in seq order */
	T_EQ_I64(hs_store_tx_begin(st), 0);
	T_EQ_I64(hs_store_tx_begin(st), -EBUSY);
	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), -EBUSY);
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), -EBUSY);
	for (i = 0; i < ARRAY_SIZE(blobs); i++)
		T_EQ_I64(hs_spool_add(st, 1, blobs[i].cpu, blobs[i].seq, blobs[i].data,
				      blobs[i].len), 0);
	T_EQ_I64(hs_store_tx_commit(st), 0);
	T_EQ_I64(hs_store_tx_commit(st), -EINVAL);
	hs_store_tx_rollback(st);		/* none open: nothing happens */
	T_EQ_I64(hs_spool_add(st, 1, 0, 1, "dup", 3), -EINVAL);	/* seq stored already */
	T_EQ_I64(hs_spool_add(st, 7, 0, 0, "x", 1), -EINVAL);	/* no session 7 */
	T_EQ_STR(hs_store_errmsg(st), "FOREIGN KEY constraint failed");
	T_EQ_I64(hs_spool_cpus(st, 1, &cpus, &n), 0);
	T_EQ_U64(n, 3);
	if (n == 3)
		T_ASSERT(cpus[0] == -1 && cpus[1] == 0 && cpus[2] == 1);
	free(cpus);
	T_EQ_I64(hs_spool_cpus(st, 2, &cpus, &n), 0);
	T_EQ_U64(n, 0);
	T_ASSERT(!cpus);
	check_spool(st, 1, 1, "3:623130,0:,5:000102ff78");
	check_spool(st, 1, 0, "2:6130,9:61312d6c6f6e676572");
	check_spool(st, 1, HS_SPOOL_TOUCHES, "7:746f7563686573");
	check_spool(st, 1, 5, "");
	{
		struct hs_spool_reader *r = NULL;

		T_EQ_I64(hs_spool_open(st, 9, 0, &r), -ENOENT);
		T_ASSERT(!r);
	}
	/* a rolled-back batch leaves nothing */
	T_EQ_I64(hs_store_tx_begin(st), 0);
	T_EQ_I64(hs_spool_add(st, 1, 0, 2, "gone", 4), 0);
	hs_store_tx_rollback(st);
	T_EQ_STR(q(st, "SELECT count(*), sum(length(data)) FROM record_spool"), "6|26");

	/* format files: replaced by path, read in path order */
	T_EQ_I64(hs_record_formats(st, 1, format_cb, buf), -ENOENT);
	T_EQ_I64(hs_record_save_format(st, 1, "events/header_page", "old", 3), 0);
	T_EQ_I64(hs_record_save_format(st, 1, "events/filemap/x/format", "name: x\n", 8), 0);
	T_EQ_I64(hs_record_save_format(st, 1, "events/header_page", "field: u64", 10), 0);
	T_EQ_I64(hs_record_save_format(st, 1, "", "x", 1), -EINVAL);
	T_EQ_I64(hs_record_formats(st, 1, format_cb, buf), 0);
	T_EQ_STR(buf, "events/filemap/x/format=name: x\n;events/header_page=field: u64;");
	T_EQ_I64(hs_record_formats(st, 1, stop_cb, NULL), 42);

	/* a second recording; both are open */
	T_EQ_I64(hs_record_create(st, &(struct hs_record_meta){ .origin = "sleep 1" }, &id), 0);
	T_EQ_I64(id, 2);
	T_EQ_STR(q(st, "SELECT name, format, kind, channel, visibility, params FROM sessions"
		      " WHERE id = 2"), "'sleep 1'|'command'|'file'|'pt'|'exact'|'{}'");
	T_EQ_STR(q(st, "SELECT memory_limit_pages, cgroup, events FROM recordings"
		      " WHERE session = 2"), "NULL|NULL|'[]'");
	T_EQ_I64(write_pattern(st, 10), 3);
	T_EQ_I64(hs_record_list_open(st, &open_recs, &n), 0);
	T_EQ_U64(n, 2);
	if (n == 2) {
		T_EQ_I64(open_recs[0].session, 1);
		T_EQ_I64(open_recs[0].pid, getpid());
		T_EQ_I64(open_recs[1].session, 2);
		T_EQ_I64(open_recs[1].pid, getpid());
	}
	free(open_recs);

	T_EQ_I64(hs_spool_drop(st, 1), 0);
	T_EQ_STR(q(st, "SELECT count(*) FROM record_spool"), "0");
	check_spool(st, 1, 0, "");
	hs_store_close(st);
}

/* Three events, two lives, two keys, a counter, a check, a CPU and an lru_gen snapshot. */
static int write_recording(struct hs_store *st, int64_t session, const char *status)
{
	static const struct hs_event ev[3] = {
		{ .ts_ns = 1000, .cpu = 1, .pid = 42, .type = HS_EV_FILEMAP_ADD, .order = 2,
		  .pfn = 4096, .dev = 8u << 20 | 1, .ino = 12, .index = 4 },
		{ .ts_ns = 2000, .cpu = 0, .pid = 42, .type = HS_EV_TOUCH,
		  .flags = HS_EVF_WRITE | HS_EVF_ANON, .addr = 0x7f0000001000ull },
		{ .ts_ns = 3000, .cpu = 0, .pid = -1, .type = HS_EV_LOST, .a = UINT64_MAX },
	};
	static const struct hs_folio_life lives[2] = {
		{ .kind = HS_LIFE_FILE, .death_cause = HS_DEATH_RECLAIM,
		  .flags = HS_LIFE_F_READAHEAD, .dev = 8u << 20 | 1, .ino = 12, .first_page = 4,
		  .pages = 4, .pfn = 4096, .born_ns = 1000, .died_ns = 5000, .accesses = 3,
		  .activations = 1 },
		{ .kind = HS_LIFE_ANON, .death_cause = HS_DEATH_NONE, .flags = HS_LIFE_F_SWAPIN,
		  .refault = true, .tgid = 42, .address = 0x7f0000001000ull,
		  .first_page = 0x7f0000001ull, .pages = 1, .born_ns = 2000,
		  .refault_distance = 7, .refault_ns = 900, .accesses = 1 },
	};
	static const struct hs_lc_key keys[2] = {
		{ .kind = HS_LIFE_FILE, .dev = 8u << 20 | 1, .ino = 12, .index = 4 },
		{ .kind = HS_LIFE_ANON, .tgid = 42, .index = 0x7f0000001ull,
		  .address = 0x7f0000001000ull },
	};
	static const char lrugen_text[] = "memcg 1 /hsctl_42\n node 0\n 5 100 10 20\n"
					  " 6 50 30 40\n";
	const struct hs_session_meta m = { .source = "record", .id = session,
					   .visibility = "exact" };
	const struct hs_record_result res = {
		.status = status, .workload_exit = -1, .workload_signal = 2,
		.runtime_ns = 123456789, .lost_events = 6, .lost_gaps = 1, .subbufs = 10,
		.bytes = 40960, .events = 3, .touches = 1, .peak_pages = 5000,
		.record_cpu_s = 0.25, .build_s = 0.5,
	};
	struct hs_session_writer *w = NULL;
	struct hs_lrugen *lg = NULL;
	int64_t id = 0;
	size_t i;
	int err;

	err = hs_session_begin(st, &m, &w);
	if (err)
		return err;
	T_EQ_I64(hs_session_add(w, 0, 0x00), 0);
	T_EQ_I64(hs_session_add(w, 1, 0x09), 0);
	T_EQ_I64(hs_session_add(w, 0, 0x00), 0);
	for (i = 0; i < 3; i++)
		T_EQ_I64(hs_rec_add_event(w, &ev[i]), 0);
	for (i = 0; i < 2; i++)
		T_EQ_I64(hs_rec_add_life(w, i, &lives[i]), 0);
	for (i = 0; i < 2; i++)
		T_EQ_I64(hs_rec_add_key(w, i, &keys[i]), 0);
	T_EQ_I64(hs_rec_add_counter(w, "vmstat", "machine", "pswpin", 100, 130), 0);
	T_EQ_I64(hs_rec_add_check(w, "reclaim_deaths", "differs", 4, 5, "one lost"), 0);
	T_EQ_I64(hs_rec_add_cpu(w, 0, 10, 40960, 3, 1, 2, 3), 0);
	T_EQ_I64(hs_lrugen_parse(lrugen_text, sizeof(lrugen_text) - 1, &lg, NULL, 0), 0);
	if (lg)
		T_EQ_I64(hs_rec_add_lrugen(w, 2500, lg), 0);
	hs_lrugen_free(lg);
	T_EQ_I64(hs_rec_finish(w, &res), 0);
	T_EQ_I64(hs_session_commit(w, &id), 0);
	T_EQ_I64(id, session);
	return 0;
}

/*
 * Task names (hsctl-db(5) tasks): the recorder's sightings placed between
 * the marks of the events (births, execs, losses), checked event by event.
 *	pid 100: seen at 5000 and 6000, no marks: named up to the loss at 7000
 *	pid 200: exec'd at 2000, seen during (3000, 3001]: named from the exec
 *	pid 300: born at 3000/3001, exited at 4000, saved_cmdlines changed in
 *		 (3200, 6000]: its final name, from its birth
 *	pid 400: an old task (1500), a new one born at 5000 and seen at 6000:
 *		 only the new one is named
 *	pid 500: saved_cmdlines changed across its exec: no name
 *	pid 600: seen as two names with no mark between: no name
 *	pid 700: forked by 200 (hsctl-gen), exec'd and exited between two reads
 *		 of saved_cmdlines that changed to cat2: its pre-exec spans are
 *		 hsctl-gen (inherited), so cat2 is its exec'd span's
 *	pid 800: the same, read as hsctl-gen: it may be from before the exec,
 *		 so no name
 *	pid 900: forked by 200 (hsctl-gen), read in /proc as cat3 before its
 *		 exec is traced (the exec renamed it first): cat3 names the span
 *		 after the exec, not the one the fork began
 */
static void test_task_names(void)
{
	static const struct hs_event ev[] = {
		{ .ts_ns = 1000, .pid = 100, .type = HS_EV_FILEMAP_ADD },	/* 0 kswapd0 */
		{ .ts_ns = 1100, .pid = 200, .type = HS_EV_FILEMAP_ADD },	/* 1 before exec */
		{ .ts_ns = 1200, .pid = 600, .type = HS_EV_FILEMAP_ADD },	/* 2 conflict */
		{ .ts_ns = 1500, .pid = 400, .type = HS_EV_FILEMAP_ADD },	/* 3 old 400 */
		{ .ts_ns = 2000, .pid = 200, .type = HS_EV_PROCESS_EXEC },	/* 4 */
		{ .ts_ns = 2400, .pid = 500, .type = HS_EV_FILEMAP_ADD },	/* 5 */
		{ .ts_ns = 2500, .pid = 200, .type = HS_EV_FILEMAP_ADD },	/* 6 */
		{ .ts_ns = 2500, .pid = 500, .type = HS_EV_PROCESS_EXEC },	/* 7 */
		{ .ts_ns = 2600, .pid = 500, .type = HS_EV_FILEMAP_ADD },	/* 8 */
		{ .ts_ns = 3000, .pid = 200, .type = HS_EV_TASK_NEW, .a = 300 },	/* 9 */
		{ .ts_ns = 3001, .pid = 200, .type = HS_EV_PROCESS_FORK, .a = 300 },	/* 10 */
		{ .ts_ns = 3500, .pid = 300, .type = HS_EV_FILEMAP_ADD },	/* 11 */
		{ .ts_ns = 4000, .pid = 300, .type = HS_EV_PROCESS_EXIT },	/* 12 */
		{ .ts_ns = 5000, .pid = 200, .type = HS_EV_PROCESS_FORK, .a = 400 },	/* 13 */
		{ .ts_ns = 5500, .pid = 400, .type = HS_EV_FILEMAP_ADD },	/* 14 new 400 */
		{ .ts_ns = 7000, .pid = -1, .type = HS_EV_LOST, .a = 3 },	/* 15 */
		{ .ts_ns = 7500, .pid = 100, .type = HS_EV_FILEMAP_ADD },	/* 16 after it */
		{ .ts_ns = 8100, .pid = 200, .type = HS_EV_TASK_NEW, .a = 700 },	/* 17 */
		{ .ts_ns = 8101, .pid = 200, .type = HS_EV_PROCESS_FORK, .a = 700 },	/* 18 */
		{ .ts_ns = 8110, .pid = 200, .type = HS_EV_TASK_NEW, .a = 800 },	/* 19 */
		{ .ts_ns = 8111, .pid = 200, .type = HS_EV_PROCESS_FORK, .a = 800 },	/* 20 */
		{ .ts_ns = 8150, .pid = 700, .type = HS_EV_FILEMAP_FAULT },	/* 21 pre-exec */
		{ .ts_ns = 8200, .pid = 700, .type = HS_EV_PROCESS_EXEC },	/* 22 */
		{ .ts_ns = 8210, .pid = 800, .type = HS_EV_PROCESS_EXEC },	/* 23 */
		{ .ts_ns = 8250, .pid = 700, .type = HS_EV_FILEMAP_ADD },	/* 24 */
		{ .ts_ns = 8260, .pid = 800, .type = HS_EV_FILEMAP_ADD },	/* 25 */
		{ .ts_ns = 8300, .pid = 700, .type = HS_EV_PROCESS_EXIT },	/* 26 */
		{ .ts_ns = 9100, .pid = 200, .type = HS_EV_TASK_NEW, .a = 900 },	/* 27 */
		{ .ts_ns = 9101, .pid = 200, .type = HS_EV_PROCESS_FORK, .a = 900 },	/* 28 */
		{ .ts_ns = 9250, .pid = 900, .type = HS_EV_FILEMAP_FAULT },	/* 29 loader */
		{ .ts_ns = 9300, .pid = 900, .type = HS_EV_PROCESS_EXEC },	/* 30 */
		{ .ts_ns = 9350, .pid = 900, .type = HS_EV_FILEMAP_ADD },	/* 31 */
	};
	static const struct hs_task_seen seen[] = {
		{ .pid = 100, .lo_ns = 5000, .hi_ns = 5000, .comm = "kswapd0" },
		{ .pid = 100, .lo_ns = 6000, .hi_ns = 6000, .comm = "kswapd0" },
		{ .pid = 200, .lo_ns = 3000, .hi_ns = 3001, .comm = "hsctl-gen" },
		{ .pid = 300, .lo_ns = 3200, .hi_ns = 6000, .comm = "worker" },
		{ .pid = 400, .lo_ns = 6000, .hi_ns = 6000, .comm = "cat" },
		{ .pid = 500, .lo_ns = 1000, .hi_ns = 6000, .comm = "sh" },
		{ .pid = 600, .lo_ns = 1200, .hi_ns = 1200, .comm = "a" },
		{ .pid = 600, .lo_ns = 1300, .hi_ns = 1300, .comm = "b" },
		{ .pid = 0, .lo_ns = 1300, .hi_ns = 1300, .comm = "swapper/0" },
		{ .pid = 200, .lo_ns = 9000, .hi_ns = 9000, .comm = "hsctl-gen" },
		{ .pid = 700, .lo_ns = 7600, .hi_ns = 9500, .comm = "cat2" },
		{ .pid = 800, .lo_ns = 7600, .hi_ns = 9500, .comm = "hsctl-gen" },
		{ .pid = 900, .lo_ns = 9200, .hi_ns = 9210, .comm = "cat3" },
	};
	const struct hs_session_meta m = { .source = "record", .id = 1, .visibility = "exact" };
	const struct hs_record_result res = { .status = "complete", .workload_exit = 0 };
	struct hs_session_writer *w = NULL;
	struct hs_store *st = NULL;
	int64_t id = 0;
	size_t i;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(hs_session_begin(st, &m, &w), 0);
	if (!w)
		goto out;
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		T_EQ_I64(hs_rec_add_event(w, &ev[i]), 0);
	T_EQ_I64(hs_rec_add_tasks(w, seen, ARRAY_SIZE(seen)), 0);
	T_EQ_I64(hs_rec_finish(w, &res), 0);
	T_EQ_I64(hs_session_commit(w, NULL), 0);

	T_EQ_STR(q(st, "SELECT pid, comm, from_ns, to_ns FROM tasks ORDER BY pid, from_ns"),
		 "100|'kswapd0'|NULL|7000;200|'hsctl-gen'|2000|7000;200|'hsctl-gen'|7000|NULL;"
		 "300|'worker'|3001|7000;400|'cat'|5000|7000;700|'cat2'|8200|NULL;"
		 "900|'cat3'|9300|NULL");
	T_EQ_STR(q(st, "SELECT group_concat(coalesce(comm, '-'), ',') FROM"
		      " (SELECT comm FROM v_events ORDER BY seq)"),
		 "'kswapd0,-,-,-,hsctl-gen,-,hsctl-gen,-,-,hsctl-gen,hsctl-gen,worker,worker,"
		 "hsctl-gen,cat,-,-,hsctl-gen,hsctl-gen,hsctl-gen,hsctl-gen,-,cat2,-,cat2,-,cat2,"
		 "hsctl-gen,hsctl-gen,-,cat3,cat3'");
	T_EQ_STR(q(st, "SELECT seq, common_pid, comm FROM v_ev_filemap_add ORDER BY seq"),
		 "0|100|'kswapd0';1|200|NULL;2|600|NULL;3|400|NULL;5|500|NULL;6|200|'hsctl-gen';"
		 "8|500|NULL;11|300|'worker';14|400|'cat';16|100|NULL;24|700|'cat2';25|800|NULL;"
		 "31|900|'cat3'");
	/* the fork's comm is the parent's, as trace-cmd report shows it */
	T_EQ_STR(q(st, "SELECT seq, parent_pid, child_pid, comm FROM v_ev_process_fork"
		      " ORDER BY seq"), "10|200|300|'hsctl-gen';13|200|400|'hsctl-gen';"
		 "18|200|700|'hsctl-gen';20|200|800|'hsctl-gen';28|200|900|'hsctl-gen'");
	T_EQ_STR(q(st, "SELECT seq, comm FROM v_ev_process_exit ORDER BY seq"),
		 "12|'worker';26|'cat2'");
	/* the names go with their session */
	T_EQ_I64(hs_session_remove(st, 1), 0);
	T_EQ_STR(q(st, "SELECT count(*) FROM tasks"), "0");
out:
	hs_store_close(st);
}

/*
 * hs_session_memcg_reclaim_max(): the largest nr_reclaimed of the session's
 * memcg reclaims on a recording of MGLRU (lru_gen/enabled bit 0), 0 on a
 * recording of another LRU, without such events, or not a recording; the
 * other reclaim events (direct, node) do not count.
 */
static void test_memcg_reclaim_max(void)
{
	static const char *const lru_gen[] = { "0x0007", "0x0000", "absent", "0x0001" };
	static const uint64_t want[] = { 902, 0, 0, 0 };
	struct hs_store *st = NULL;
	uint64_t max = 1;
	size_t i;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_session_memcg_reclaim_max(st, 7, &max), 0);	/* no such session */
	T_EQ_U64(max, 0);
	for (i = 0; i < ARRAY_SIZE(lru_gen) && !t_case_failed(); i++) {
		struct hs_record_meta meta = rec_meta;
		const struct hs_session_meta m = { .source = "record", .visibility = "exact" };
		const struct hs_record_result res = { .status = "complete" };
		const struct hs_event ev[] = {
			{ .ts_ns = 10, .type = HS_EV_MEMCG_RECLAIM_END, .a = 58 },
			{ .ts_ns = 20, .type = HS_EV_DIRECT_RECLAIM_END, .a = 5000 },
			{ .ts_ns = 30, .type = HS_EV_MEMCG_RECLAIM_END, .a = 902 },
			{ .ts_ns = 40, .type = HS_EV_MEMCG_RECLAIM_END, .a = 64 },
		};
		struct hs_session_meta mm = m;
		struct hs_session_writer *w = NULL;
		int64_t id = 0, sid = 0;
		size_t e;

		meta.lru_gen = lru_gen[i];
		T_EQ_I64(hs_record_create(st, &meta, &id), 0);
		mm.id = id;
		T_EQ_I64(hs_session_begin(st, &mm, &w), 0);
		if (!w)
			break;
		for (e = 0; e < ARRAY_SIZE(ev) && i != 3; e++)	/* the last: no event */
			T_EQ_I64(hs_rec_add_event(w, &ev[e]), 0);
		T_EQ_I64(hs_rec_finish(w, &res), 0);
		T_EQ_I64(hs_session_commit(w, &sid), 0);
		max = 1;
		T_EQ_I64(hs_session_memcg_reclaim_max(st, sid, &max), 0);
		T_EQ_U64(max, want[i]);
	}
	hs_store_close(st);
}

static void test_record_writer(void)
{
	struct hs_session_writer *w = NULL;
	char want[64];
	struct hs_session_info info;
	struct hs_store *st = NULL;
	int64_t id = 0;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(write_pattern(st, 10), 2);
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record", .id = 9 },
				  &w), -ENOENT);
	T_EQ_STR(hs_store_errmsg(st), "no session 9");
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record", .id = 2 },
				  &w), -EINVAL);
	T_EQ_STR(hs_store_errmsg(st), "session 2 is not being recorded (status complete)");
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record", .id = 1,
				  .status = "done" }, &w), -EINVAL);
	T_ASSERT(!w);
	T_EQ_I64(write_recording(st, 1, "interrupted"), 0);

	T_EQ_I64(hs_session_get(st, 1, &info), 0);
	T_EQ_STR(info.source, "record");
	T_EQ_STR(info.name, "rec1");
	T_EQ_STR(info.status, "interrupted");
	T_EQ_U64(info.records, 3);
	T_EQ_U64(info.accesses, 3);
	T_EQ_U64(info.distinct_keys, 2);
	T_EQ_U64(info.memory_limit_pages, 16384);
	T_EQ_U64(info.peak_pages, 5000);
	T_EQ_I64(hs_session_get(st, 2, &info), 0);
	T_EQ_U64(info.memory_limit_pages, 0);
	T_EQ_U64(info.peak_pages, 0);

	/* 0x7f0000001 = 127 * 2^28 + 1 = 34091302913; << 12: 139637976731648 */
	T_EQ_STR(q(st, "SELECT * FROM v_folio_lives ORDER BY life"),
		 "1|'file'|8388609|12|NULL|NULL|4|4|1000|5000|'reclaim'|0|NULL|NULL|1|3|1|4096|0|"
		 "'other';"
		 "1|'anon'|NULL|NULL|42|139637976731648|34091302913|1|2000|NULL|'alive'|1|7|900|"
		 "8|1|0|NULL|1|'other'");
	T_EQ_STR(q_names(st, "SELECT * FROM v_folio_lives"),
		 "session|kind|dev|ino|tgid|address|first_page|pages|born_ns|died_ns|death_cause|"
		 "refault|refault_distance|refault_ns|flags|accesses|activations|pfn|life|scope");
	T_EQ_STR(q(st, "SELECT session, source, name, status, ended >= started, accesses,"
		      " distinct_keys, memory_limit_pages, lost_events, kernel, lru_gen, pswpin,"
		      " pswpout, workload_exit FROM v_sessions ORDER BY session"),
		 "1|'record'|'rec1'|'interrupted'|1|3|2|16384|6|'6.18.0'|'absent'|30|NULL|NULL;"
		 "2|'gen'|'trace.txt'|'complete'|1|9|10|NULL|NULL|NULL|NULL|NULL|NULL|NULL");
	/* comm last: no names were stored, so none is known */
	T_EQ_STR(q(st, "SELECT * FROM v_events ORDER BY seq"),
		 "1|0|1000|1|42|'filemap_add'|0|2|4096|8388609|12|4|0|0|0|0|0|1|NULL;"
		 "1|1|2000|0|42|'touch'|5|0|0|0|0|0|0|139637976731648|0|0|0|32|NULL;"
		 "1|2|3000|0|-1|'lost'|0|0|0|0|0|0|0|0|-1|0|0|31|NULL");
	/* one view per type, the kernel's field names: filemap_add's pfn i_ino index s_dev order */
	T_EQ_STR(q_names(st, "SELECT * FROM v_ev_filemap_add"),
		 "session|seq|ts_ns|cpu|common_pid|pfn|i_ino|index|s_dev|order|comm");
	T_EQ_STR(q(st, "SELECT * FROM v_ev_filemap_add"), "1|0|1000|1|42|4096|12|4|8388609|2|NULL");
	/* every v_ev_* view ends with comm */
	T_EQ_STR(q(st, "SELECT count(*) FROM sqlite_master AS m WHERE m.type = 'view' AND"
		      " m.name LIKE 'v!_ev!_%' ESCAPE '!' AND (SELECT c.name FROM"
		      " pragma_table_info(m.name) AS c ORDER BY c.cid DESC LIMIT 1) <> 'comm'"),
		 "0");
	T_EQ_STR(q(st, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND"
		      " name LIKE 'v!_ev!_%' ESCAPE '!'"), "39");
	/* touch flags 5: HS_EVF_ANON | HS_EVF_WRITE, through a mapping */
	T_EQ_STR(q(st, "SELECT tgid, address, write, anon, fd FROM v_ev_touch"),
		 "42|139637976731648|1|1|0");
	T_EQ_STR(q(st, "SELECT seq, lost FROM v_ev_lost"), "2|-1");
	T_EQ_STR(q(st, "SELECT count(*) FROM v_ev_lru_insertion"), "0");
	/* every type has its view, named as event_types names it */
	T_EQ_STR(q(st, "SELECT count(*) FROM event_types AS t WHERE t.name <> 'none' AND"
		      " NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'view'"
		      " AND name = 'v_ev_' || t.name)"), "0");
	T_EQ_STR(q(st, "SELECT * FROM v_record_checks"),
		 "1|'reclaim_deaths'|'differs'|R4|R5|'one lost'");
	T_EQ_STR(q(st, "SELECT session, key, kind, dev, ino, tgid, page FROM record_keys"
		      " ORDER BY key"),
		 "1|0|0|8388609|12|NULL|4;1|1|1|NULL|NULL|42|34091302913");
	T_EQ_STR(q(st, "SELECT * FROM record_counters"), "1|'vmstat'|'machine'|'pswpin'|100|130|30");
	T_EQ_STR(q(st, "SELECT * FROM record_cpus"), "1|0|10|40960|3|1|2|3|6");
	T_EQ_STR(q(st, "SELECT * FROM lru_gen_snapshots ORDER BY seq"),
		 "1|2500|1|'/hsctl_42'|0|1|5|100|10|20;1|2500|1|'/hsctl_42'|0|2|6|50|30|40");
	T_EQ_STR(q(st, "SELECT workload_exit, workload_signal, runtime_ns, lost_events,"
		      " lost_gaps, subbufs, bytes, events_decoded, touches, peak_pages,"
		      " record_cpu_s, build_s FROM recordings"),
		 "NULL|2|123456789|6|1|10|40960|3|1|5000|R0.25|R0.5");
	snprintf(want, sizeof(want), "%d", (int)HS_EV_NR);
	T_EQ_STR(q(st, "SELECT count(*) FROM event_types"), want);
	T_EQ_STR(q(st, "SELECT group_concat(name, ',') FROM (SELECT name FROM death_causes"
		      " ORDER BY cause)"), "'alive,reclaim,pageout,truncate,unknown'");

	/* committed: not 'recording' any more */
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record", .id = 1 },
				  &w), -EINVAL);
	/* record rows on an ordinary writer fail it */
	T_EQ_I64(hs_session_begin(st, &gen_meta, &w), 0);
	if (w) {
		T_EQ_I64(hs_rec_add_event(w, &(struct hs_event){ .type = HS_EV_TOUCH }), -EINVAL);
		T_EQ_STR(hs_store_errmsg(st), "session 3 is not a recording");
		T_EQ_I64(hs_session_add(w, 5, 0x00), -EINVAL);
		T_EQ_I64(hs_session_commit(w, &id), -EINVAL);
	}
	T_EQ_STR(q(st, "SELECT count(*) FROM sessions"), "2");
	hs_store_close(st);
}

/*
 * 70 events: two full batches of 32 and 6 left for the commit, every field
 * distinct: event i has ts_ns 10 i, cpu i % 2, pid 1000 + i, type i % 5,
 * a = i * i.  Sums: ts 10 * 2415 = 24150, cpu 35, pid 70000 + 2415 = 72415,
 * type 14 * (0+1+2+3+4) = 140, a = 69 * 70 * 139 / 6 = 111895.
 */
static void test_record_events(void)
{
	struct hs_session_writer *w = NULL;
	struct hs_store *st = NULL;
	int64_t id = 0;
	uint64_t i;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record", .id = 1 },
				  &w), 0);
	if (!w)
		goto out;
	for (i = 0; i < 70; i++) {
		struct hs_event ev = { .ts_ns = 10 * i, .cpu = (uint32_t)(i % 2),
				       .pid = (int32_t)(1000 + i), .type = (uint16_t)(i % 5),
				       .a = i * i };

		T_EQ_I64(hs_rec_add_event(w, &ev), 0);
	}
	T_EQ_STR(q(st, "SELECT count(*) FROM events"), "64");
	T_EQ_I64(hs_session_commit(w, &id), 0);
	T_EQ_STR(q(st, "SELECT count(*), min(seq), max(seq), sum(ts_ns), sum(cpu), sum(pid),"
		      " sum(type), sum(a), sum(seq * 10 = ts_ns), sum(a = seq * seq) FROM events"),
		 "70|0|69|24150|35|72415|140|111895|70|70");
out:
	hs_store_close(st);
}

static void test_record_abort_remove(void)
{
	static const char *const tables[] = {
		"sessions", "access_chunks", "session_keys", "recordings", "record_formats",
		"record_spool", "events", "folio_lives", "record_keys", "record_counters",
		"record_checks", "record_cpus", "lru_gen_snapshots",
	};
	struct hs_stale_recording *open_recs = NULL;
	struct hs_session_writer *w = NULL;
	struct hs_store *st = NULL;
	char sql[128];
	int64_t id = 0;
	size_t n = 0, i;

	T_EQ_I64(hs_store_open(":memory:", 0, &st), 0);
	if (!st)
		return;
	T_EQ_STR(q(st, "PRAGMA foreign_keys"), "1");
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(hs_spool_add(st, 1, 0, 0, "raw", 3), 0);
	T_EQ_I64(hs_record_save_format(st, 1, "events/header_page", "hp", 2), 0);
	T_EQ_I64(hs_session_begin(st, &(struct hs_session_meta){ .source = "record", .id = 1,
				  .name = "renamed" }, &w), 0);
	if (!w)
		goto out;
	/* 40 events: the first 32 are inserted as one batch, 8 wait for the commit */
	for (i = 0; i < 40; i++)
		T_EQ_I64(hs_rec_add_event(w, &(struct hs_event){ .type = HS_EV_TOUCH }), 0);
	T_EQ_I64(hs_session_add(w, 1, 0x00), 0);
	T_EQ_STR(q(st, "SELECT name, (SELECT count(*) FROM events) FROM sessions"),
		 "'renamed'|32");
	hs_session_abort(w);
	T_EQ_STR(q(st, "SELECT name, status, records FROM sessions"), "'rec1'|'recording'|0");
	T_EQ_STR(q(st, "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM"
		      " record_spool), (SELECT count(*) FROM record_formats)"), "0|1|1");
	T_EQ_I64(hs_record_list_open(st, &open_recs, &n), 0);
	T_EQ_U64(n, 1);
	free(open_recs);

	/* built again after the abort: seq starts at 0 again */
	T_EQ_I64(write_recording(st, 1, NULL), 0);
	T_EQ_STR(q(st, "SELECT status, name FROM sessions"), "'complete'|'rec1'");
	T_EQ_STR(q(st, "SELECT min(seq), max(seq) FROM events"), "0|2");
	T_EQ_I64(hs_record_list_open(st, &open_recs, &n), 0);
	T_EQ_U64(n, 0);
	free(open_recs);

	T_EQ_I64(hs_session_remove(st, 1), 0);
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		snprintf(sql, sizeof(sql), "SELECT '%s', count(*) FROM %s", tables[i], tables[i]);
		snprintf(sql + 64, 64, "'%s'|0", tables[i]);
		T_EQ_STR(q(st, sql), sql + 64);
	}
out:
	hs_store_close(st);
}

/* What schema 13 added, undone: the views of DAMON's regions and scheme actions. */
#define UNDO_13								\
	"DROP VIEW v_ev_damon_aggregated; DROP VIEW v_ev_damos_apply; PRAGMA user_version = 12;"

/* What schema 12 added, undone: the memcg flushes' view. */
#define UNDO_12								\
	"DROP VIEW v_ev_memcg_flush; PRAGMA user_version = 11;"

/* What schema 11 added, undone: the TLB events' views. */
#define UNDO_11								\
	"DROP VIEW v_ev_tlb_flush; DROP VIEW v_ev_sched_switch; DROP VIEW v_ev_migrate_task;"	\
	" PRAGMA user_version = 10;"

/* What migration 10 added, undone: tasks, and the views as schema 9 defined them (no comm). */
#define UNDO_10								\
	"DROP VIEW v_events; CREATE VIEW v_events AS SELECT e.session AS session, e.seq"	\
	" AS seq, e.ts_ns AS ts_ns, e.cpu AS cpu, e.pid AS pid, t.name AS type, e.flags AS"	\
	" flags, e.folio_order AS folio_order, e.pfn AS pfn, e.dev AS dev, e.ino AS ino,"	\
	" e.idx AS idx, e.last AS last, e.addr AS addr, e.a AS a, e.b AS b, e.c AS c,"	\
	" e.type AS type_id FROM events AS e LEFT JOIN event_types AS t ON t.type ="	\
	" e.type; DROP VIEW v_ev_filemap_add; CREATE VIEW v_ev_filemap_add AS SELECT"	\
	" session, seq, ts_ns, cpu, pid AS common_pid, pfn, ino AS i_ino, idx AS \"index\","	\
	" dev AS s_dev, folio_order AS \"order\" FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'filemap_add'); DROP VIEW v_ev_filemap_delete; CREATE"	\
	" VIEW v_ev_filemap_delete AS SELECT session, seq, ts_ns, cpu, pid AS common_pid,"	\
	" pfn, ino AS i_ino, idx AS \"index\", dev AS s_dev, folio_order AS \"order\" FROM"	\
	" events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'filemap_delete'); DROP VIEW v_ev_filemap_get_pages; CREATE VIEW"	\
	" v_ev_filemap_get_pages AS SELECT session, seq, ts_ns, cpu, pid AS common_pid,"	\
	" ino AS i_ino, dev AS s_dev, idx AS \"index\", last AS last_index FROM events WHERE"	\
	" type = (SELECT type FROM event_types WHERE name = 'filemap_get_pages'); DROP"	\
	" VIEW v_ev_filemap_fault; CREATE VIEW v_ev_filemap_fault AS SELECT session, seq,"	\
	" ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS \"index\" FROM"	\
	" events WHERE type = (SELECT type FROM event_types WHERE name = 'filemap_fault');"	\
	" DROP VIEW v_ev_filemap_map_pages; CREATE VIEW v_ev_filemap_map_pages AS SELECT"	\
	" session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS"	\
	" \"index\", last AS last_index FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'filemap_map_pages'); DROP VIEW v_ev_readahead; CREATE"	\
	" VIEW v_ev_readahead AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino"	\
	" AS i_ino, dev AS s_dev, idx AS \"index\", folio_order AS \"order\", a AS req_count,"	\
	" (flags & 2) != 0 AS async FROM events WHERE type = (SELECT type FROM event_types"	\
	" WHERE name = 'readahead'); DROP VIEW v_ev_lru_insertion; CREATE VIEW"	\
	" v_ev_lru_insertion AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, a"	\
	" AS lru, b AS flags FROM events WHERE type = (SELECT type FROM event_types WHERE"	\
	" name = 'lru_insertion'); DROP VIEW v_ev_lru_activate; CREATE VIEW"	\
	" v_ev_lru_activate AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn"	\
	" FROM events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'lru_activate'); DROP VIEW v_ev_direct_reclaim_begin; CREATE VIEW"	\
	" v_ev_direct_reclaim_begin AS SELECT session, seq, ts_ns, cpu, pid AS common_pid,"	\
	" a AS \"order\", b AS gfp_flags FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'direct_reclaim_begin'); DROP VIEW"	\
	" v_ev_direct_reclaim_end; CREATE VIEW v_ev_direct_reclaim_end AS SELECT session,"	\
	" seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed FROM events WHERE type ="	\
	" (SELECT type FROM event_types WHERE name = 'direct_reclaim_end'); DROP VIEW"	\
	" v_ev_memcg_reclaim_begin; CREATE VIEW v_ev_memcg_reclaim_begin AS SELECT"	\
	" session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS gfp_flags FROM"	\
	" events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'memcg_reclaim_begin'); DROP VIEW v_ev_memcg_reclaim_end; CREATE VIEW"	\
	" v_ev_memcg_reclaim_end AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a"	\
	" AS nr_reclaimed FROM events WHERE type = (SELECT type FROM event_types WHERE"	\
	" name = 'memcg_reclaim_end'); DROP VIEW v_ev_softlimit_reclaim_begin; CREATE VIEW"	\
	" v_ev_softlimit_reclaim_begin AS SELECT session, seq, ts_ns, cpu, pid AS"	\
	" common_pid, a AS \"order\", b AS gfp_flags FROM events WHERE type = (SELECT type"	\
	" FROM event_types WHERE name = 'softlimit_reclaim_begin'); DROP VIEW"	\
	" v_ev_softlimit_reclaim_end; CREATE VIEW v_ev_softlimit_reclaim_end AS SELECT"	\
	" session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed FROM events WHERE"	\
	" type = (SELECT type FROM event_types WHERE name = 'softlimit_reclaim_end'); DROP"	\
	" VIEW v_ev_node_reclaim_begin; CREATE VIEW v_ev_node_reclaim_begin AS SELECT"	\
	" session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS gfp_flags FROM"	\
	" events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'node_reclaim_begin'); DROP VIEW v_ev_node_reclaim_end; CREATE VIEW"	\
	" v_ev_node_reclaim_end AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a"	\
	" AS nr_reclaimed FROM events WHERE type = (SELECT type FROM event_types WHERE"	\
	" name = 'node_reclaim_end'); DROP VIEW v_ev_kswapd_wake; CREATE VIEW"	\
	" v_ev_kswapd_wake AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS"	\
	" nid, b AS \"order\" FROM events WHERE type = (SELECT type FROM event_types WHERE"	\
	" name = 'kswapd_wake'); DROP VIEW v_ev_kswapd_sleep; CREATE VIEW"	\
	" v_ev_kswapd_sleep AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS"	\
	" nid FROM events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'kswapd_sleep'); DROP VIEW v_ev_lru_isolate; CREATE VIEW v_ev_lru_isolate AS"	\
	" SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_taken, b AS"	\
	" nr_scanned, c AS lru FROM events WHERE type = (SELECT type FROM event_types"	\
	" WHERE name = 'lru_isolate'); DROP VIEW v_ev_shrink_inactive; CREATE VIEW"	\
	" v_ev_shrink_inactive AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS"	\
	" nr_reclaimed, b AS nr_scanned, c AS file FROM events WHERE type = (SELECT type"	\
	" FROM event_types WHERE name = 'shrink_inactive'); DROP VIEW v_ev_shrink_active;"	\
	" CREATE VIEW v_ev_shrink_active AS SELECT session, seq, ts_ns, cpu, pid AS"	\
	" common_pid, a AS nr_deactivated, b AS nr_taken, c AS file FROM events WHERE type"	\
	" = (SELECT type FROM event_types WHERE name = 'shrink_active'); DROP VIEW"	\
	" v_ev_reclaim_pages; CREATE VIEW v_ev_reclaim_pages AS SELECT session, seq,"	\
	" ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed, b AS nr_scanned FROM events"	\
	" WHERE type = (SELECT type FROM event_types WHERE name = 'reclaim_pages'); DROP"	\
	" VIEW v_ev_write_folio; CREATE VIEW v_ev_write_folio AS SELECT session, seq,"	\
	" ts_ns, cpu, pid AS common_pid, pfn, (flags & 1) != 0 AS anon FROM events WHERE"	\
	" type = (SELECT type FROM event_types WHERE name = 'write_folio'); DROP VIEW"	\
	" v_ev_shrink_slab_start; CREATE VIEW v_ev_shrink_slab_start AS SELECT session,"	\
	" seq, ts_ns, cpu, pid AS common_pid FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'shrink_slab_start'); DROP VIEW v_ev_shrink_slab_end;"	\
	" CREATE VIEW v_ev_shrink_slab_end AS SELECT session, seq, ts_ns, cpu, pid AS"	\
	" common_pid FROM events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'shrink_slab_end'); DROP VIEW v_ev_page_fault_user; CREATE VIEW"	\
	" v_ev_page_fault_user AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr"	\
	" AS address, a AS error_code FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'page_fault_user'); DROP VIEW v_ev_madvise; CREATE VIEW"	\
	" v_ev_madvise AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS"	\
	" start, a AS len_in, b AS behavior FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'madvise'); DROP VIEW v_ev_process_fork; CREATE VIEW"	\
	" v_ev_process_fork AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid AS"	\
	" parent_pid, a AS child_pid FROM events WHERE type = (SELECT type FROM"	\
	" event_types WHERE name = 'process_fork'); DROP VIEW v_ev_process_exit; CREATE"	\
	" VIEW v_ev_process_exit AS SELECT session, seq, ts_ns, cpu, pid AS common_pid"	\
	" FROM events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'process_exit'); DROP VIEW v_ev_process_exec; CREATE VIEW v_ev_process_exec AS"	\
	" SELECT session, seq, ts_ns, cpu, pid AS common_pid FROM events WHERE type ="	\
	" (SELECT type FROM event_types WHERE name = 'process_exec'); DROP VIEW"	\
	" v_ev_task_new; CREATE VIEW v_ev_task_new AS SELECT session, seq, ts_ns, cpu, pid"	\
	" AS common_pid, a AS pid, b AS clone_flags FROM events WHERE type = (SELECT type"	\
	" FROM event_types WHERE name = 'task_new'); DROP VIEW v_ev_lost; CREATE VIEW"	\
	" v_ev_lost AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS lost FROM"	\
	" events WHERE type = (SELECT type FROM event_types WHERE name = 'lost'); DROP"	\
	" VIEW v_ev_touch; CREATE VIEW v_ev_touch AS SELECT session, seq, ts_ns, cpu, pid"	\
	" AS common_pid, pid AS tgid, addr AS address, dev AS s_dev, ino AS i_ino, idx AS"	\
	" \"index\", (flags & 4) != 0 AS write, (flags & 1) != 0 AS anon, (flags & 8) != 0"	\
	" AS fd FROM events WHERE type = (SELECT type FROM event_types WHERE name ="	\
	" 'touch'); DROP TABLE tasks; PRAGMA user_version = 9;"

/* What migration 9 added, undone: the run views as schema 4 defined them, no v_ev_* views. */
#define UNDO_9								\
	"DROP VIEW v_runs; DROP VIEW v_policy_compare; DROP VIEW v_refaults; DROP VIEW v_pingpong;"	\
	" CREATE VIEW v_runs AS"	\
	"  SELECT id AS run, session, policy, params, capacity, accesses, hits, misses,"	\
	"    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio,"	\
	"    evictions, refaults, pingpong_keys, protected, protected_useful,"	\
	"    protected_wasted, wall_s, pswpin, pswpout"	\
	"  FROM runs;"	\
	" CREATE VIEW v_policy_compare AS"	\
	"  SELECT session, capacity, policy,"	\
	"    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio, opt_gap"	\
	"  FROM runs;"	\
	" CREATE VIEW v_refaults AS"	\
	"  SELECT h.run AS run, r.policy AS policy, r.capacity AS capacity, h.lo AS lo,"	\
	"    h.hi AS hi, h.count AS count"	\
	"  FROM run_refault_hist AS h JOIN runs AS r ON r.id = h.run;"	\
	" CREATE VIEW v_pingpong AS"	\
	"  SELECT id AS run, session, policy, capacity, pingpong_keys, pingpong_refaults, misses,"	\
	"    CASE WHEN misses > 0 THEN pingpong_refaults * 1.0 / misses END AS miss_share"	\
	"  FROM runs;"	\
	" PRAGMA user_version = 8;"	\
	" DROP VIEW v_ev_filemap_add; DROP VIEW v_ev_filemap_delete; DROP VIEW"	\
	" v_ev_filemap_get_pages; DROP VIEW v_ev_filemap_fault; DROP VIEW"	\
	" v_ev_filemap_map_pages; DROP VIEW v_ev_readahead; DROP VIEW v_ev_lru_insertion;"	\
	" DROP VIEW v_ev_lru_activate; DROP VIEW v_ev_direct_reclaim_begin; DROP VIEW"	\
	" v_ev_direct_reclaim_end; DROP VIEW v_ev_memcg_reclaim_begin; DROP VIEW"	\
	" v_ev_memcg_reclaim_end; DROP VIEW v_ev_softlimit_reclaim_begin; DROP VIEW"	\
	" v_ev_softlimit_reclaim_end; DROP VIEW v_ev_node_reclaim_begin; DROP VIEW"	\
	" v_ev_node_reclaim_end; DROP VIEW v_ev_kswapd_wake; DROP VIEW v_ev_kswapd_sleep;"	\
	" DROP VIEW v_ev_lru_isolate; DROP VIEW v_ev_shrink_inactive; DROP VIEW"	\
	" v_ev_shrink_active; DROP VIEW v_ev_reclaim_pages; DROP VIEW v_ev_write_folio;"	\
	" DROP VIEW v_ev_shrink_slab_start; DROP VIEW v_ev_shrink_slab_end; DROP VIEW"	\
	" v_ev_page_fault_user; DROP VIEW v_ev_madvise; DROP VIEW v_ev_process_fork; DROP"	\
	" VIEW v_ev_process_exit; DROP VIEW v_ev_process_exec; DROP VIEW v_ev_task_new;"	\
	" DROP VIEW v_ev_lost; DROP VIEW v_ev_touch;"

/* What migration 8 added, undone: mrc_curves.sample_rate and v_mrc showing it. */
#define UNDO_8								\
	"DROP VIEW v_mrc; ALTER TABLE mrc_curves DROP COLUMN sample_rate;"	\
	" CREATE VIEW v_mrc AS"						\
	"  SELECT c.id AS curve, c.session AS session, c.policy AS policy,"	\
	"    c.params AS params, c.method AS method, p.size AS size,"		\
	"    c.accesses AS accesses, p.hits AS hits, p.misses AS misses,"	\
	"    CASE WHEN c.accesses > 0 THEN p.misses * 1.0 / c.accesses END AS miss_ratio," \
	"    c.created AS created"						\
	"  FROM mrc_points AS p JOIN mrc_curves AS c ON c.id = p.curve;"	\
	" PRAGMA user_version = 7;"

/* What migration 7 added, undone: hsctl fidelity's rows. */
#define UNDO_7 "DROP VIEW v_fidelity; DROP TABLE fidelity; PRAGMA user_version = 6;"

/*
 * What migration 6 added, undone: the eviction logs, the kernel row,
 * folio_lives.workload and v_folio_lives.scope.
 */
#define UNDO_6								\
	"DROP VIEW v_evictions; DROP TABLE run_evictions; DROP VIEW v_kernel;"	\
	" DROP VIEW v_folio_lives; ALTER TABLE folio_lives DROP COLUMN workload;" \
	" CREATE VIEW v_folio_lives AS SELECT l.session AS session, k.name AS kind," \
	" l.dev AS dev, l.ino AS ino, l.tgid AS tgid, l.address AS address,"	\
	" l.first_page AS first_page, l.pages AS pages, l.born_ns AS born_ns,"	\
	" l.died_ns AS died_ns, d.name AS death_cause, l.refault AS refault,"	\
	" l.refault_distance AS refault_distance, l.refault_ns AS refault_ns,"	\
	" l.flags AS flags, l.accesses AS accesses, l.activations AS activations," \
	" l.pfn AS pfn, l.life AS life FROM folio_lives AS l"			\
	" LEFT JOIN life_kinds AS k ON k.kind = l.kind"				\
	" LEFT JOIN death_causes AS d ON d.cause = l.death_cause;"		\
	" PRAGMA user_version = 5;"

/* What migration 5 added, undone: runs.readahead_*. */
#define UNDO_5								\
	"ALTER TABLE runs DROP COLUMN readahead_pages;"			\
	" ALTER TABLE runs DROP COLUMN readahead_unused;"			\
	" PRAGMA user_version = 4;"

/* What migration 4 added, undone: the miss-ratio curves. */
#define UNDO_4								\
	"DROP VIEW v_mrc; DROP TABLE mrc_points; DROP TABLE mrc_curves;"	\
	" PRAGMA user_version = 3;"

/* What migration 3 added, undone: runs.opt_reference and opt_gap, v_policy_compare on them. */
#define UNDO_3								\
	"DROP VIEW v_policy_compare; ALTER TABLE runs DROP COLUMN opt_gap;"	\
	" ALTER TABLE runs DROP COLUMN opt_reference;"				\
	" CREATE VIEW v_policy_compare AS"					\
	"  SELECT r.session AS session, r.capacity AS capacity, r.policy AS policy," \
	"    CASE WHEN r.accesses > 0 THEN r.hits * 1.0 / r.accesses END AS hit_ratio," \
	"    (SELECT r.misses * 1.0 / o.misses FROM runs AS o"		\
	"      WHERE o.session = r.session AND o.capacity = r.capacity AND o.policy = 'opt'" \
	"      ORDER BY o.id DESC LIMIT 1) AS opt_gap"			\
	"  FROM runs AS r; PRAGMA user_version = 2;"

/* OPT with its bypass parameter, as policies/opt.c declares it. */
static const struct hs_param opt_table[] = {
	{ .name = "bypass", .type = HS_PARAM_BOOL, .def = "false" },
	{ .name = NULL },
};

#define GAPS_SQL "SELECT id, policy, capacity, opt_reference, opt_gap FROM runs ORDER BY id"

/*
 * The OPT gap: misses over those of the newest demand-paging OPT run of the
 * session at the same capacity, stored with every run and kept up to date
 * when a later OPT run comes; v_policy_compare, hs_store_run_opt_gaps() and
 * hs_store_opt_gaps() (runs not stored) give the same values; a schema-2
 * file gets them at migration.
 */
static void test_opt_gap(void)
{
	const char *path = tmp_path("gap.db");
	struct hs_sim_stats lru4 = { .capacity = 4, .misses = 100 };
	struct hs_sim_stats opt4 = { .capacity = 4, .misses = 70 };
	struct hs_sim_stats byp4 = { .capacity = 4, .misses = 64 };
	struct hs_sim_stats lru8 = { .capacity = 8, .misses = 50 };
	struct hs_sim_stats fifo4 = { .capacity = 4, .misses = 80 };
	struct hs_sim_stats opt8 = { .capacity = 8, .misses = 25 };
	struct hs_sim_stats new4 = { .capacity = 4, .misses = 50 };
	struct hs_param_set *demand = NULL, *bypass = NULL;
	struct hs_run_record rr[4], one;
	struct hs_store *st = NULL;
	int64_t ids[4], sid;
	double gaps[4];
	char err[64];

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_param_set_new(opt_table, &demand), 0);
	T_EQ_I64(hs_param_set_new(opt_table, &bypass), 0);
	if (!demand || !bypass)
		goto out;
	T_EQ_I64(hs_param_set_parse(bypass, "bypass", "true", err, sizeof(err)), 0);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		goto out;
	sid = write_pattern(st, 10);
	rr[0] = (struct hs_run_record){ .session = sid, .policy = "lru", .stats = &lru4 };
	rr[1] = (struct hs_run_record){ .session = sid, .policy = "opt", .stats = &opt4,
					.params_json = "{\"bypass\":false}", .params = demand };
	rr[2] = (struct hs_run_record){ .session = sid, .policy = "opt", .stats = &byp4,
					.params_json = "{\"bypass\":true}", .params = bypass };
	rr[3] = (struct hs_run_record){ .session = sid, .policy = "lru", .stats = &lru8 };
	T_EQ_I64(hs_store_save_runs(st, rr, 4, ids), 0);
	/* 100 / 70, 70 / 70, 64 / 70 (the bypass OPT is newer, but no reference), none at 8 */
	T_EQ_STR(q(st, GAPS_SQL), "1|'lru'|4|0|R1.4285714285714286;2|'opt'|4|1|R1;"
		 "3|'opt'|4|0|R0.91428571428571426;4|'lru'|8|0|NULL");
	T_EQ_STR(q(st, "SELECT capacity, policy, opt_gap FROM v_policy_compare"
		      " ORDER BY capacity, opt_gap"),
		 "4|'opt'|R0.91428571428571426;4|'opt'|R1;4|'lru'|R1.4285714285714286;"
		 "8|'lru'|NULL");
	T_EQ_I64(hs_store_run_opt_gaps(st, ids, 4, gaps), 0);
	T_ASSERT(gaps[0] == 100.0 / 70);
	T_ASSERT(gaps[1] == 1.0);
	T_ASSERT(gaps[2] == 64.0 / 70);
	T_ASSERT(isnan(gaps[3]));
	ids[0] = 99;
	T_EQ_I64(hs_store_run_opt_gaps(st, ids, 1, gaps), -ENOENT);

	/* not stored: fifo against the stored OPT; an OPT among them is the newest */
	one = (struct hs_run_record){ .session = sid, .policy = "fifo", .stats = &fifo4 };
	T_EQ_I64(hs_store_opt_gaps(st, &one, 1, gaps), 0);
	T_ASSERT(gaps[0] == 80.0 / 70);
	rr[0] = (struct hs_run_record){ .session = sid, .policy = "opt", .stats = &opt8 };
	rr[1] = (struct hs_run_record){ .session = sid, .policy = "lru", .stats = &lru8 };
	rr[2] = (struct hs_run_record){ .session = sid, .policy = "opt", .stats = &new4,
					.params = bypass };
	T_EQ_I64(hs_store_opt_gaps(st, rr, 3, gaps), 0);
	T_ASSERT(gaps[0] == 1.0);
	T_ASSERT(gaps[1] == 2.0);
	T_ASSERT(gaps[2] == 50.0 / 70);
	T_EQ_STR(q(st, "SELECT count(*) FROM runs"), "4");

	/* a later OPT run at 8 gives the earlier lru run its gap: 50 / 25 */
	T_EQ_I64(hs_store_save_runs(st, rr, 1, ids), 0);
	T_EQ_I64(ids[0], 5);
	/* a newer demand OPT at 4 (no typed set: the demand variant) is the reference now */
	one = (struct hs_run_record){ .session = sid, .policy = "opt", .stats = &new4,
				      .params_json = "{}" };
	T_EQ_I64(hs_store_save_runs(st, &one, 1, ids), 0);
	T_EQ_STR(q(st, GAPS_SQL), "1|'lru'|4|0|R2;2|'opt'|4|1|R1.3999999999999999;"
		 "3|'opt'|4|0|R1.28;4|'lru'|8|0|R2;5|'opt'|8|1|R1;6|'opt'|4|1|R1");

	/* schema 2 had neither column: migration 3 computes the same */
	T_EQ_STR(q(st, UNDO_13 " " UNDO_12 " " UNDO_11 " " UNDO_10 " " UNDO_9 " " UNDO_8 " " UNDO_7 " " UNDO_6 " " UNDO_5 " " UNDO_4
		      " " UNDO_3), "");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		goto out;
	T_EQ_I64(hs_store_user_version(st), HS_STORE_SCHEMA_VERSION);
	T_EQ_STR(q(st, GAPS_SQL), "1|'lru'|4|0|R2;2|'opt'|4|1|R1.3999999999999999;"
		 "3|'opt'|4|0|R1.28;4|'lru'|8|0|R2;5|'opt'|8|1|R1;6|'opt'|4|1|R1");
out:
	hs_store_close(st);
	hs_param_set_free(demand);
	hs_param_set_free(bypass);
	rm_db(path);
}

/*
 * A schema-9 file with a recording: migration 10 adds tasks, and the events
 * it had show comm NULL (no names were recorded then).
 */
static void test_migrate_v9(void)
{
	const char *path = tmp_path("v9.db");
	struct hs_store *st = NULL;
	int64_t id = 0;

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_record_create(st, &rec_meta, &id), 0);
	T_EQ_I64(write_recording(st, id, NULL), 0);
	T_EQ_STR(q(st, UNDO_13 " " UNDO_12 " " UNDO_11 " " UNDO_10), "");
	T_EQ_STR(q(st, "SELECT count(*) FROM sqlite_master WHERE name = 'tasks'"), "0");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_STR(q(st, "PRAGMA user_version"), "13");
	T_EQ_STR(q(st, "SELECT seq, type, comm FROM v_events ORDER BY seq"),
		 "0|'filemap_add'|NULL;1|'touch'|NULL;2|'lost'|NULL");
	T_EQ_STR(q(st, "SELECT seq, common_pid, comm FROM v_ev_filemap_add"), "0|42|NULL");
	T_EQ_STR(q(st, "SELECT count(*) FROM tasks"), "0");
	hs_store_close(st);
	rm_db(path);
}

/*
 * A schema-1 file: made from a fresh one by dropping what migrations 5, 4, 3
 * and 2 added and restoring v_sessions as schema 1 defined it.
 */
static void test_migrate_v1(void)
{
	const char *path = tmp_path("v1.db");
	struct hs_session_info info;
	char want[64];
	struct hs_store *st = NULL;

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(write_pattern(st, 10), 1);
	T_EQ_STR(q(st, UNDO_13 " " UNDO_12 " " UNDO_11 " " UNDO_10 " " UNDO_9 " " UNDO_8 " " UNDO_7 " " UNDO_6 " " UNDO_5 " " UNDO_4
		      " " UNDO_3 " DROP VIEW v_folio_lives; DROP VIEW v_events;"
		      " DROP VIEW v_record_checks;"
		      " DROP VIEW v_sessions; CREATE VIEW v_sessions AS SELECT id AS session,"
		      " source, name, status, started, ended, accesses, distinct_keys"
		      " FROM sessions; DROP TABLE lru_gen_snapshots; DROP TABLE record_cpus;"
		      " DROP TABLE record_checks; DROP TABLE record_counters;"
		      " DROP TABLE record_keys; DROP TABLE folio_lives; DROP TABLE events;"
		      " DROP TABLE death_causes; DROP TABLE life_kinds; DROP TABLE event_types;"
		      " DROP TABLE record_spool; DROP TABLE record_formats;"
		      " DROP TABLE recordings; PRAGMA user_version = 1"), "");
	hs_store_close(st);

	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY, &st), -EPROTO);
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY | HS_STORE_NOMIGRATE, &st), 0);
	T_EQ_I64(st ? hs_store_user_version(st) : -1, 1);
	if (st)
		T_EQ_STR(q(st, "SELECT count(*) FROM sqlite_master WHERE name = 'events'"), "0");
	hs_store_close(st);

	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_store_user_version(st), HS_STORE_SCHEMA_VERSION);
	T_EQ_STR(q(st, "PRAGMA user_version"), "13");
	T_EQ_I64(hs_session_get(st, 1, &info), 0);
	T_EQ_STR(info.name, "trace.txt");
	T_EQ_U64(info.records, 10);
	T_EQ_U64(info.memory_limit_pages, 0);
	T_EQ_STR(q(st, "SELECT session, status, accesses, distinct_keys, memory_limit_pages,"
		      " workload_exit FROM v_sessions"), "1|'complete'|9|10|NULL|NULL");
	snprintf(want, sizeof(want), "%d|0|%d", (int)HS_EV_NR, (int)HS_EV_NR - 1);
	T_EQ_STR(q(st, "SELECT count(*), min(type), max(type) FROM event_types"), want);
	/* types a newer build knows are added at open, existing names kept */
	T_EQ_STR(q(st, "DELETE FROM event_types WHERE type >= 30;"
		      " UPDATE event_types SET name = 'old' WHERE type = 0"), "");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	snprintf(want, sizeof(want), "%d|'old'|'touch'", (int)HS_EV_NR);
	if (st)
		T_EQ_STR(q(st, "SELECT count(*), (SELECT name FROM event_types WHERE type = 0),"
			      " (SELECT name FROM event_types WHERE type = 32) FROM event_types"),
			 want);
	hs_store_close(st);
	rm_db(path);
}

/*
 * Curves (hsctl mrc): stored in one transaction, read back through v_mrc,
 * removed with their session, with their sample rate; a schema-4 file
 * (migration 5 undone) migrates with its curves marked exact; and a schema-3
 * file (migration 4 undone too) migrates with its sessions kept and the curve
 * tables made.
 */
static void test_mrc(void)
{
	static const struct hs_mrc_point pts[] = {
		{ .size = 1, .hits = 0, .misses = 10 }, { .size = 3, .hits = 4, .misses = 6 },
	};
	const char *path = tmp_path("mrc.db");
	struct hs_mrc_record c = {
		.session = 1, .policy = "lru", .method = "stack", .accesses = 10,
		.points = pts, .nr_points = ARRAY_SIZE(pts),
	};
	struct hs_store *st = NULL;
	int64_t ids[2] = { 0, 0 };
	struct hs_mrc_record two[2];

	if (!path)
		return;
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(write_pattern(st, 10), 1);
	two[0] = c;
	two[1] = c;
	two[1].policy = "opt";
	two[1].params_json = "{\"bypass\":false}";
	T_EQ_I64(hs_store_save_mrc(st, two, 2, ids), 0);
	T_EQ_I64(ids[0], 1);
	T_EQ_I64(ids[1], 2);
	T_EQ_STR(q(st, "SELECT curve, session, policy, params, method, size, accesses, hits,"
		      " misses, miss_ratio FROM v_mrc ORDER BY curve, size"),
		 "1|1|'lru'|'{}'|'stack'|1|10|0|10|R1;"
		 "1|1|'lru'|'{}'|'stack'|3|10|4|6|R0.59999999999999998;"
		 "2|1|'opt'|'{\"bypass\":false}'|'stack'|1|10|0|10|R1;"
		 "2|1|'opt'|'{\"bypass\":false}'|'stack'|3|10|4|6|R0.59999999999999998");
	/* a bad method rolls the whole call back */
	two[1].method = "guess";
	T_ASSERT(hs_store_save_mrc(st, two, 2, NULL) < 0);
	T_EQ_STR(q(st, "SELECT count(*) FROM mrc_curves"), "2");
	T_EQ_STR(q(st, "SELECT count(*) FROM mrc_points"), "4");
	c.method = NULL;
	T_EQ_I64(hs_store_save_mrc(st, &c, 1, NULL), -EINVAL);
	/* a sampled curve keeps its rate (0 stores 1, an exact curve); > 1 is refused */
	c.method = "stack";
	c.sample_rate = 1.5;
	T_EQ_I64(hs_store_save_mrc(st, &c, 1, NULL), -EINVAL);
	c.sample_rate = 0.25;
	T_EQ_I64(hs_store_save_mrc(st, &c, 1, ids), 0);
	T_EQ_I64(ids[0], 3);
	T_EQ_STR(q(st, "SELECT DISTINCT curve, sample_rate FROM v_mrc ORDER BY curve"),
		 "1|R1;2|R1;3|R0.25");
	c.sample_rate = 0;
	T_EQ_I64(hs_session_remove(st, 1), 0);
	T_EQ_STR(q(st, "SELECT count(*) FROM mrc_curves"), "0");
	T_EQ_STR(q(st, "SELECT count(*) FROM mrc_points"), "0");

	/* a schema-4 file: its curves migrate as exact ones */
	T_EQ_I64(write_pattern(st, 10), 2);
	c.session = 2;
	T_EQ_I64(hs_store_save_mrc(st, &c, 1, ids), 0);
	T_EQ_STR(q(st, UNDO_13 " " UNDO_12 " " UNDO_11 " " UNDO_10 " " UNDO_9 " " UNDO_8), "");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_store_user_version(st), HS_STORE_SCHEMA_VERSION);
	T_EQ_STR(q(st, "SELECT size, hits, sample_rate FROM v_mrc ORDER BY size"),
		 "1|0|R1;3|4|R1");
	T_EQ_STR(q(st, "DELETE FROM mrc_curves"), "");
	T_EQ_STR(q(st, UNDO_13 " " UNDO_12 " " UNDO_11 " " UNDO_10 " " UNDO_9 " " UNDO_8 " " UNDO_7 " " UNDO_6 " " UNDO_5 " " UNDO_4),
		 "");
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, HS_STORE_RDONLY, &st), -EPROTO);
	hs_store_close(st);
	st = NULL;
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st)
		return;
	T_EQ_I64(hs_store_user_version(st), HS_STORE_SCHEMA_VERSION);
	T_EQ_STR(q(st, "SELECT count(*) FROM sessions"), "1");
	T_EQ_STR(q(st, "SELECT count(*) FROM v_mrc"), "0");
	hs_store_close(st);
	rm_db(path);
}


/*
 * A new file's schema is made by one script (store.c's fresh_schema[]), not
 * by the 13 migrations: both must leave the same sqlite_master -- the same
 * objects in the same order with the same SQL text -- and the same version,
 * application id and lookup rows.  A migration added without regenerating
 * the script fails here.
 */
static void test_fresh_schema(void)
{
	static const char row_sql[] = "SELECT type || '|' || name || '|' || tbl_name || '|' ||"
		" coalesce(sql, '') FROM sqlite_master ORDER BY rowid LIMIT 1 OFFSET %d";
	static const char *const same[] = {
		"PRAGMA user_version", "PRAGMA application_id",
		"SELECT count(*) FROM sqlite_master",
		"SELECT group_concat(type || ':' || name) FROM event_types",
		"SELECT group_concat(kind || ':' || name) FROM life_kinds",
		"SELECT group_concat(cause || ':' || name) FROM death_causes",
		"SELECT seq FROM sqlite_sequence", "PRAGMA integrity_check",
	};
	const char *mig_path = tmp_path("fresh-mig.db"), *path;
	struct hs_store *mig = NULL, *st = NULL;
	static char want[4096];
	int objects = 0, k;
	size_t i;

	if (!mig_path)
		return;
	rm_db(mig_path);
	hs_store_set_fresh_script(false);
	T_EQ_I64(hs_store_open(mig_path, 0, &mig), 0);
	hs_store_set_fresh_script(true);
	path = tmp_path("fresh.db");
	if (!path || !mig) {
		hs_store_close(mig);
		return;
	}
	rm_db(path);
	T_EQ_I64(hs_store_open(path, 0, &st), 0);
	if (!st) {
		hs_store_close(mig);
		return;
	}
	objects = atoi(q(mig, "SELECT count(*) FROM sqlite_master"));
	T_ASSERT(objects > 90);
	for (k = 0; k < objects; k++) {
		char sql[256];

		snprintf(sql, sizeof(sql), row_sql, k);
		snprintf(want, sizeof(want), "%s", q(mig, sql));
		T_ASSERT(want[0] != '\0');
		T_EQ_STR(q(st, sql), want);
	}
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		snprintf(want, sizeof(want), "%s", q(mig, same[i]));
		T_EQ_STR(q(st, same[i]), want);
	}
	/* both take a session alike */
	T_EQ_I64(write_pattern(st, 10), 1);
	T_EQ_I64(write_pattern(mig, 10), 1);
	hs_store_close(st);
	hs_store_close(mig);
	rm_db(path);
	rm_db(mig_path);
}

static const struct t_case cases[] = {
	{ "memory_open", test_memory_open },
	{ "memcg_reclaim_max", test_memcg_reclaim_max },
	{ "writer_roundtrip", test_writer_roundtrip },
	{ "empty_and_bad_meta", test_empty_and_bad_meta },
	{ "abort", test_abort },
	{ "staged", test_staged },
	{ "staged_journal", test_staged_journal },
	{ "refuse_files", test_refuse_files },
	{ "readonly", test_readonly },
	{ "query", test_query },
	{ "runs", test_runs },
	{ "generations", test_generations },
	{ "corrupt", test_corrupt },
	{ "timed", test_timed },
	{ "record_spool", test_record_spool },
	{ "record_writer", test_record_writer },
	{ "task_names", test_task_names },
	{ "record_events", test_record_events },
	{ "record_abort_remove", test_record_abort_remove },
	{ "fresh_schema", test_fresh_schema },
	{ "migrate_v1", test_migrate_v1 },
	{ "migrate_v9", test_migrate_v9 },
	{ "opt_gap", test_opt_gap },
	{ "mrc", test_mrc },
};

int main(int argc, char **argv)
{
	int ret = t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);

	cleanup();
	return ret;
}
