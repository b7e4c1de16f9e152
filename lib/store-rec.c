/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's side of `hsctl record` (store.h, "recorded sessions"; the
 * tables are schema 2 in lib/store.c and man/hsctl-db.5).  A recording is
 * registered first (hs_record_create(): a sessions row in status
 * 'recording' and its recordings row, committed at once), then its tracefs
 * format files and raw sub-buffers are kept as they come (record_formats,
 * record_spool: blobs, in transactions the recorder batches with
 * hs_store_tx_begin()), so that a recorder killed midway leaves a spool that
 * another process can still decode.  The build then opens a session writer
 * on the same row (hs_session_meta.id) and, inside that one transaction,
 * adds the decoded events, the folio lives, the key identities, counters,
 * checks and per-CPU statistics with hs_rec_add_*(); hs_rec_finish() stores
 * the results and the commit sets the final status.
 *
 * The hot path is hs_rec_add_event(): events are buffered and inserted 32
 * at a time by one prepared multi-row INSERT into a WITHOUT ROWID table
 * keyed by (session, seq) with no other index.  64-bit unsigned values are
 * stored as SQLite's signed 64-bit integers: values above INT64_MAX
 * (HS_EV_LOST's "unknown count") read back as negative numbers, with the
 * same bits.
 *
 * This file uses lib/store.c's internals (lib/store-int.h: statements,
 * errors, transactions) and store.c calls nothing here: the events still
 * buffered at the commit are written through the writer's flush hook,
 * which hs_rec_add_event() sets with its buffer.
 *
 * Spool readers fetch one blob per call with a point query and copy it out,
 * so no statement stays active between calls and a session writer may write
 * (and commit) while readers are open.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "hs.h"
#include "life.h"
#include "lrugen.h"
#include "store-int.h"

struct hs_spool_reader {
	struct hs_store		*st;		/* the store */
	sqlite3_stmt		*stmt;		/* this reader's point query */
	uint64_t		seq;		/* the next blob has a seq >= this */
	bool			end;		/* no blob left */
	void			*buf;		/* the last blob, copied */
	size_t			cap;		/* bytes allocated at buf */
};

static sqlite3_int64 i64(uint64_t v)
{
	return (sqlite3_int64)v;
}

/* ---- transactions ---- */

/**
 * hs_store_tx_begin() - open a transaction for many small writes
 * @st: the store (not read-only)
 *
 * BEGIN IMMEDIATE: the spool's and format files' writes then cost one
 * commit per batch.  No session writer may be opened until it ends.
 *
 * Return: 0, -EPERM (read-only store), -EBUSY (a writer or another
 * transaction is open on @st, or the file is locked), or -errno.
 */
int hs_store_tx_begin(struct hs_store *st)
{
	int err;

	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	if (st->writing)
		return store_err(st, -EBUSY, "another write is in progress");
	err = store_run_id(st, ST_BEGIN);
	if (err)
		return err;
	st->writing = true;
	st->tx = true;
	return 0;
}

/**
 * hs_store_tx_commit() - commit hs_store_tx_begin()'s transaction
 * @st: the store
 *
 * Return: 0, -EINVAL (no such transaction open), or -errno, after which
 * the transaction has been rolled back.
 */
int hs_store_tx_commit(struct hs_store *st)
{
	int err;

	if (!st->tx)
		return store_err(st, -EINVAL, "no transaction is open");
	err = store_run_id(st, ST_COMMIT);
	if (err) {
		store_rollback(st);
		return err;
	}
	st->writing = false;
	st->tx = false;
	return 0;
}

/**
 * hs_store_tx_rollback() - roll back hs_store_tx_begin()'s transaction
 * @st: the store; nothing happens when no such transaction is open
 *
 * Return: nothing.
 */
void hs_store_tx_rollback(struct hs_store *st)
{
	if (st && st->tx)
		store_rollback(st);
}

/* ---- registering a recording ---- */

static int check_writable(struct hs_store *st)
{
	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	return 0;
}

/* Bind @v as text, or NULL when @v is NULL or empty. */
static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* Bind @v, or NULL when it is 0 ("none", "unknown"). */
static void bind_u64_or_null(sqlite3_stmt *s, int i, uint64_t v)
{
	if (v)
		sqlite3_bind_int64(s, i, i64(v));
	else
		sqlite3_bind_null(s, i);
}

static int insert_recording(struct hs_store *st, const struct hs_record_meta *m, int64_t *id)
{
	const char *name = m->name && *m->name ? m->name : m->workload && *m->workload ?
			   m->workload : m->origin && *m->origin ? m->origin : "record";
	sqlite3_stmt *s = NULL;
	char host[256];
	const char *h = store_host(host, sizeof(host));
	int64_t session;
	int err;

	err = store_stmt(st, ST_RECORD_SESSION, &s);
	if (err)
		return err;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	bind_text(s, 2, m->origin);
	sqlite3_bind_text(s, 3, m->workload && *m->workload ? m->workload : "command", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(s, 4, store_or(m->kind, "file"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, store_or(m->channel, "pt"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, store_or(m->params_json, "{}"), -1, SQLITE_STATIC);
	bind_text(s, 7, h);
	sqlite3_bind_text(s, 8, PACKAGE_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, store_or(m->visibility, "exact"), -1, SQLITE_STATIC);
	err = store_run(st, s);
	if (err)
		return err;
	session = sqlite3_last_insert_rowid(st->db);

	err = store_stmt(st, ST_RECORD_INSERT, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)getpid());
	bind_text(s, 3, h);
	bind_text(s, 4, m->workload);
	bind_text(s, 5, m->kernel);
	bind_text(s, 6, m->lru_gen);
	bind_text(s, 7, m->clock);
	bind_text(s, 8, m->instance);
	bind_text(s, 9, m->cgroup);
	sqlite3_bind_int(s, 10, m->cgroup_version);
	bind_u64_or_null(s, 11, m->memory_limit_pages);
	sqlite3_bind_int64(s, 12, (sqlite3_int64)m->buffer_kb);
	sqlite3_bind_int64(s, 13, (sqlite3_int64)m->page_size);
	sqlite3_bind_text(s, 14, store_or(m->events_json, "[]"), -1, SQLITE_STATIC);
	err = store_run(st, s);
	if (!err)
		*id = session;
	return err;
}

/**
 * hs_record_create() - register a recording that is about to start
 * @st: the store
 * @m: what it is; NULL kind/channel/visibility mean "file", "pt", "exact"
 * @session: receives the new session's id
 *
 * Inserts and commits, in a transaction of its own, a sessions row (source
 * 'record', status 'recording', unit 'page', format the workload's name or
 * "command", name @m->name, else the workload's name, else the origin) and
 * its recordings row with this process's pid and host.
 *
 * Return: 0, -EINVAL, -EPERM (read-only), -EBUSY, -ENOMEM, -EIO.
 */
int hs_record_create(struct hs_store *st, const struct hs_record_meta *m, int64_t *session)
{
	int err;

	err = check_writable(st);
	if (err)
		return err;
	if (st->writing)
		return store_err(st, -EBUSY, "another write is in progress");
	if (!m || !session)
		return store_err(st, -EINVAL, "no recording meta");
	if (m->cgroup_version < 0 || m->cgroup_version > 2)
		return store_err(st, -EINVAL, "bad cgroup version %d", m->cgroup_version);
	err = store_run_id(st, ST_BEGIN);
	if (err)
		return err;
	st->writing = true;
	err = insert_recording(st, m, session);
	if (!err)
		err = store_run_id(st, ST_COMMIT);
	if (err) {
		store_rollback(st);
		return err;
	}
	st->writing = false;
	return 0;
}

/**
 * hs_record_save_format() - keep one tracefs format file with the recording
 * @st: the store
 * @session: the recording's session
 * @path: relative to the tracing dir: "events/header_page", "events/filemap/x/format"
 * @text: its content
 * @len: its length
 *
 * Saving a path again replaces its content.
 *
 * Return: 0, -EINVAL (no path, or no such session), -EPERM, or -errno.
 */
int hs_record_save_format(struct hs_store *st, int64_t session, const char *path,
			  const void *text, size_t len)
{
	sqlite3_stmt *s = NULL;
	int err;

	err = check_writable(st);
	if (err)
		return err;
	if (!path || !*path || (!text && len) || len > INT32_MAX)
		return store_err(st, -EINVAL, "bad format file");
	err = store_stmt(st, ST_FORMAT_INSERT, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 3, len ? text : "", (int)len, SQLITE_STATIC);
	return store_run(st, s);
}

/**
 * hs_record_formats() - the saved format files
 * @st: the store
 * @session: the session
 * @cb: called per file, in path order; a non-zero return stops and is returned
 * @arg: passed to @cb
 *
 * @cb must not write to the store.
 *
 * Return: 0, -ENOENT (none saved), -errno, or @cb's value.
 */
int hs_record_formats(struct hs_store *st, int64_t session,
		      int (*cb)(void *arg, const char *path, const void *text, size_t len),
		      void *arg)
{
	sqlite3_stmt *s = NULL;
	size_t n = 0;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(st->db, "SELECT path, content FROM record_formats"
				" WHERE session = ?1 ORDER BY path", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 0);
		const void *text = sqlite3_column_blob(s, 1);
		size_t len = (size_t)sqlite3_column_bytes(s, 1);

		if (!path) {
			ret = store_err(st, -ENOMEM, "out of memory");
			break;
		}
		n++;
		ret = cb(arg, path, text ? text : "", len);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sql_err(st, rc);
	sqlite3_finalize(s);
	if (!ret && !n)
		ret = store_err(st, -ENOENT, "session %lld has no saved format files",
				(long long)session);
	return ret;
}

/* ---- the kernel row ---- */

/*
 * Whether the recorded kernel had readahead events: the stored format files
 * say (page_cache_sync_ra and _async_ra came with 6.18).  Without them, a
 * build that inferred readahead from the adds (lib/lc-stream.c) stored the
 * lifecycle counter readahead_inferred.  *@out: 1 traced, 2 inferred, 0
 * neither, -1 when the session stored no formats at all.
 */
static int readahead_traced(struct hs_store *st, int64_t session, int *out)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*out = -1;
	rc = sqlite3_prepare_v2(st->db, "SELECT count(*), count(CASE WHEN path LIKE"
				" 'events/readahead/%' THEN 1 END), (SELECT count(*) FROM"
				" record_counters WHERE session = ?1 AND file = 'lifecycle'"
				" AND name = 'readahead_inferred') FROM record_formats"
				" WHERE session = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		rc = store_sql_err(st, rc);
		sqlite3_finalize(s);
		return rc;
	}
	if (sqlite3_column_int64(s, 0) > 0)
		*out = sqlite3_column_int64(s, 1) > 0 ? 1 : sqlite3_column_int64(s, 2) > 0 ? 2 : 0;
	sqlite3_finalize(s);
	return 0;
}

/**
 * hs_store_kernel_row() - what the kernel did to the workload's pages
 * @st: the store
 * @session: a recorded session
 * @out: receives the session's v_kernel row
 *
 * Every count is in pages except lives (folios); hsctl-db(5) defines them.
 *
 * Return: 0, -ENOENT (not a recorded session), or -errno from SQLite.
 */
int hs_store_kernel_row(struct hs_store *st, int64_t session, struct hs_kernel_row *out)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(st->db, "SELECT coalesce(capacity, 0), lives, pages,"
				" demand_miss_pages, readahead_pages, readahead_unused_pages,"
				" refault_pages, evicted_pages, pswpin_pages, pswpout_pages,"
				" pswp_source FROM v_kernel WHERE session = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		uint64_t *v[] = {
			&out->capacity, &out->lives, &out->pages, &out->demand_miss_pages,
			&out->readahead_pages, &out->readahead_unused_pages,
			&out->refault_pages, &out->evicted_pages, &out->pswpin_pages,
			&out->pswpout_pages,
		};
		const char *src;

		for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
			int64_t x = sqlite3_column_int64(s, (int)i);

			*v[i] = x > 0 ? (uint64_t)x : 0;
		}
		src = (const char *)sqlite3_column_text(s, (int)ARRAY_SIZE(v));
		snprintf(out->pswp_source, sizeof(out->pswp_source), "%s", src ? src : "lives");
		sqlite3_finalize(s);
		s = NULL;
		ret = readahead_traced(st, session, &out->readahead_traced);
	} else if (rc == SQLITE_DONE) {
		ret = store_err(st, -ENOENT, "session %lld is not a recorded session",
				(long long)session);
	} else {
		ret = store_sql_err(st, rc);
	}
	sqlite3_finalize(s);
	return ret;
}

/* ---- the spool ---- */

/**
 * hs_spool_add() - append one raw sub-buffer (or touch batch) to the spool
 * @st: the store (inside hs_store_tx_begin() for speed, or not)
 * @session: the recording's session
 * @cpu: the CPU, or HS_SPOOL_TOUCHES
 * @seq: 0, 1, 2, ... per (session, cpu)
 * @data: the bytes
 * @len: their length (0 is allowed)
 *
 * Return: 0, -EINVAL (a seq stored already, no such session, a bad
 * argument), -EPERM, or -errno.
 */
int hs_spool_add(struct hs_store *st, int64_t session, int cpu, uint64_t seq, const void *data,
		 size_t len)
{
	sqlite3_stmt *s = NULL;
	int err;

	err = check_writable(st);
	if (err)
		return err;
	if ((!data && len) || len > INT32_MAX || seq > INT64_MAX)
		return store_err(st, -EINVAL, "bad spool blob");
	err = store_stmt(st, ST_SPOOL_INSERT, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int(s, 2, cpu);
	sqlite3_bind_int64(s, 3, i64(seq));
	sqlite3_bind_blob(s, 4, len ? data : "", (int)len, SQLITE_STATIC);
	return store_run(st, s);
}

/**
 * hs_spool_cpus() - which CPUs the spool holds (HS_SPOOL_TOUCHES included)
 * @st: the store
 * @session: the session
 * @cpus: receives a malloc'ed array, ascending (free it); NULL when empty
 * @n: receives its length
 *
 * One index probe per CPU, however large the spool.
 *
 * Return: 0 or -errno.
 */
int hs_spool_cpus(struct hs_store *st, int64_t session, int **cpus, size_t *n)
{
	sqlite3_int64 prev = INT64_MIN;
	sqlite3_stmt *s = NULL;
	size_t cap = 0, nr = 0;
	int *v = NULL;
	int rc, err;

	*cpus = NULL;
	*n = 0;
	err = store_stmt(st, ST_SPOOL_NEXT_CPU, &s);
	if (err)
		return err;
	for (;;) {
		sqlite3_bind_int64(s, 1, session);
		sqlite3_bind_int64(s, 2, prev);
		rc = sqlite3_step(s);
		if (rc != SQLITE_ROW) {
			err = store_sql_err(st, rc);
			break;
		}
		if (sqlite3_column_type(s, 0) == SQLITE_NULL)
			break;
		prev = sqlite3_column_int64(s, 0);
		sqlite3_reset(s);
		if (nr == cap) {
			int *nv = realloc(v, (cap ? 2 * cap : 8) * sizeof(*v));

			if (!nv) {
				err = store_err(st, -ENOMEM, "out of memory");
				break;
			}
			v = nv;
			cap = cap ? 2 * cap : 8;
		}
		v[nr++] = (int)prev;
	}
	sqlite3_reset(s);
	if (err) {
		free(v);
		return err;
	}
	*cpus = v;
	*n = nr;
	return 0;
}

/* Does session @id exist? */
static int session_exists(struct hs_store *st, int64_t id)
{
	sqlite3_stmt *s = NULL;
	int rc, err;

	err = store_stmt(st, ST_SESSION_STATUS, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		err = store_err(st, -ENOENT, "no session %lld", (long long)id);
	else if (rc != SQLITE_ROW)
		err = store_sql_err(st, rc);
	sqlite3_reset(s);
	return err;
}

/**
 * hs_spool_open() - read one CPU's spool in seq order
 * @st: the store; several readers may be open at once, and a session writer
 *	may write while they read
 * @session: the session
 * @cpu: the CPU or HS_SPOOL_TOUCHES
 * @out: the reader
 *
 * Return: 0, -ENOENT (no such session), -ENOMEM, or -errno.
 */
int hs_spool_open(struct hs_store *st, int64_t session, int cpu, struct hs_spool_reader **out)
{
	struct hs_spool_reader *r;
	int rc, err;

	*out = NULL;
	err = session_exists(st, session);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		return store_err(st, -ENOMEM, "out of memory");
	r->st = st;
	rc = sqlite3_prepare_v3(st->db, "SELECT seq, data FROM record_spool"
				" WHERE session = ?1 AND cpu = ?2 AND seq >= ?3"
				" ORDER BY seq LIMIT 1", -1, SQLITE_PREPARE_PERSISTENT,
				&r->stmt, NULL);
	if (rc != SQLITE_OK) {
		err = store_sql_err(st, rc);
		free(r);
		return err;
	}
	sqlite3_bind_int64(r->stmt, 1, session);
	sqlite3_bind_int(r->stmt, 2, cpu);
	*out = r;
	return 0;
}

/**
 * hs_spool_next() - the next blob of a CPU's spool
 * @r: the reader
 * @data: receives the bytes (valid until the next call)
 * @len: receives their length
 *
 * Blobs come in ascending seq; a seq missing in between is skipped.
 *
 * Return: 1 with @data and @len set, 0 at the end, or -errno.
 */
int hs_spool_next(struct hs_spool_reader *r, const void **data, size_t *len)
{
	const void *blob;
	int64_t seq;
	size_t n;
	int rc, err = 0;

	if (r->end)
		return 0;
	sqlite3_bind_int64(r->stmt, 3, i64(r->seq));
	rc = sqlite3_step(r->stmt);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(r->stmt);
		r->end = true;
		return 0;
	}
	if (rc != SQLITE_ROW) {
		err = store_sql_err(r->st, rc);
		sqlite3_reset(r->stmt);
		return err;
	}
	seq = sqlite3_column_int64(r->stmt, 0);
	blob = sqlite3_column_blob(r->stmt, 1);
	n = (size_t)sqlite3_column_bytes(r->stmt, 1);
	if (n > r->cap) {
		void *nb = realloc(r->buf, n);

		if (!nb) {
			sqlite3_reset(r->stmt);
			return store_err(r->st, -ENOMEM, "out of memory");
		}
		r->buf = nb;
		r->cap = n;
	}
	if (n)
		memcpy(r->buf, blob, n);
	sqlite3_reset(r->stmt);
	if (seq < 0 || seq == INT64_MAX)
		r->end = true;
	else
		r->seq = (uint64_t)seq + 1;
	*data = n ? r->buf : "";
	*len = n;
	return 1;
}

/**
 * hs_spool_close() - release a spool reader
 * @r: the reader, or NULL
 *
 * Return: nothing.
 */
void hs_spool_close(struct hs_spool_reader *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->stmt);
	free(r->buf);
	free(r);
}

/**
 * hs_spool_drop() - delete the session's spool (after a successful build)
 * @st: the store
 * @session: the session
 *
 * Return: 0, -EPERM, or -errno.
 */
int hs_spool_drop(struct hs_store *st, int64_t session)
{
	sqlite3_stmt *s = NULL;
	int err;

	err = check_writable(st);
	if (err)
		return err;
	err = store_stmt(st, ST_SPOOL_DROP, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, session);
	return store_run(st, s);
}

/**
 * hs_record_list_open() - sessions still in status 'recording'
 * @st: the store
 * @out: receives a malloc'ed array in session order (free it); NULL when empty
 * @n: receives its length
 *
 * The caller decides which are stale (pid dead on this host).  A session
 * without a recordings row (not made by hs_record_create()) has pid 0.
 *
 * Return: 0 or -errno.
 */
int hs_record_list_open(struct hs_store *st, struct hs_stale_recording **out, size_t *n)
{
	struct hs_stale_recording *v = NULL;
	size_t cap = 0, nr = 0;
	sqlite3_stmt *s = NULL;
	int rc, err;

	*out = NULL;
	*n = 0;
	err = store_stmt(st, ST_RECORD_LIST_OPEN, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (nr == cap) {
			struct hs_stale_recording *nv;

			nv = realloc(v, (cap ? 2 * cap : 4) * sizeof(*v));
			if (!nv) {
				err = store_err(st, -ENOMEM, "out of memory");
				break;
			}
			v = nv;
			cap = cap ? 2 * cap : 4;
		}
		v[nr].session = sqlite3_column_int64(s, 0);
		v[nr].pid = (int32_t)sqlite3_column_int64(s, 1);
		store_copy_col(v[nr].host, sizeof(v[nr].host), s, 2);
		nr++;
	}
	if (!err && rc != SQLITE_DONE)
		err = store_sql_err(st, rc);
	sqlite3_reset(s);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = nr;
	return 0;
}

/* ---- writing a recorded session ---- */

/* May @w take record rows?  Sets and returns its sticky error. */
static int rec_ready(struct hs_session_writer *w)
{
	if (unlikely(w->err))
		return w->err;
	if (unlikely(!w->recorded))
		w->err = store_err(w->st, -EINVAL, "session %lld is not a recording",
				   (long long)w->session);
	return w->err;
}

/* Keep the first error of @w. */
static int rec_done(struct hs_session_writer *w, int err)
{
	if (unlikely(err) && !w->err)
		w->err = err;
	return err;
}

/* Step a fully bound insert; reset it, keep its bindings (all are rebound next time). */
static int step_insert(struct hs_store *st, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return likely(rc == SQLITE_DONE) ? 0 : store_sql_err(st, rc);
}

/* Bind event @ev with seq @seq as row @row of an events insert. */
static void bind_event(sqlite3_stmt *s, int row, int64_t session, uint64_t seq,
		       const struct hs_event *ev)
{
	int i = row * 17;

	sqlite3_bind_int64(s, i + 1, session);
	sqlite3_bind_int64(s, i + 2, i64(seq));
	sqlite3_bind_int64(s, i + 3, i64(ev->ts_ns));
	sqlite3_bind_int64(s, i + 4, ev->cpu);
	sqlite3_bind_int64(s, i + 5, ev->pid);
	sqlite3_bind_int64(s, i + 6, ev->type);
	sqlite3_bind_int64(s, i + 7, ev->flags);
	sqlite3_bind_int64(s, i + 8, ev->order);
	sqlite3_bind_int64(s, i + 9, i64(ev->pfn));
	sqlite3_bind_int64(s, i + 10, i64(ev->dev));
	sqlite3_bind_int64(s, i + 11, i64(ev->ino));
	sqlite3_bind_int64(s, i + 12, i64(ev->index));
	sqlite3_bind_int64(s, i + 13, i64(ev->last));
	sqlite3_bind_int64(s, i + 14, i64(ev->addr));
	sqlite3_bind_int64(s, i + 15, i64(ev->a));
	sqlite3_bind_int64(s, i + 16, i64(ev->b));
	sqlite3_bind_int64(s, i + 17, i64(ev->c));
}

/* Insert the buffered events: a full buffer with one statement, a partial one row by row. */
static int flush_events(struct hs_session_writer *w)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	size_t i;
	int err;

	if (w->ev_n == STORE_EVENT_BATCH) {
		err = store_stmt(st, ST_EVENT_INSERT_BATCH, &s);
		if (err)
			return err;
		for (i = 0; i < STORE_EVENT_BATCH; i++)
			bind_event(s, (int)i, w->session, w->ev_seq + i, &w->evbuf[i]);
		err = step_insert(st, s);
		if (err)
			return err;
	} else if (w->ev_n) {
		err = store_stmt(st, ST_EVENT_INSERT, &s);
		if (err)
			return err;
		for (i = 0; i < w->ev_n; i++) {
			bind_event(s, 0, w->session, w->ev_seq + i, &w->evbuf[i]);
			err = step_insert(st, s);
			if (err)
				return err;
		}
	}
	w->ev_seq += w->ev_n;
	w->ev_n = 0;
	return 0;
}

/*
 * The writer's flush hook (store-int.h), set with the event buffer: write
 * the events still buffered; hs_session_commit() calls it before it
 * commits.  Return: 0 or -errno (kept as the writer's error).
 */
static int rec_flush(struct hs_session_writer *w)
{
	return rec_done(w, flush_events(w));
}

/**
 * hs_rec_add_event() - store one decoded event
 * @w: a writer opened on the recording (hs_session_meta.id)
 * @ev: the event; it gets the next seq (0, 1, 2, ...)
 *
 * Events are buffered and inserted STORE_EVENT_BATCH at a time, with one
 * multi-row statement (about twice as fast as one statement per row); the
 * last ones go in at the commit.  An insert error is returned by the call
 * that flushed, and by every call after it.
 *
 * Return: 0 or -errno (the writer then fails its commit).
 */
int hs_rec_add_event(struct hs_session_writer *w, const struct hs_event *ev)
{
	if (unlikely(w->err || !w->recorded))
		return rec_ready(w);
	if (unlikely(!w->evbuf)) {
		w->evbuf = malloc(STORE_EVENT_BATCH * sizeof(*w->evbuf));
		if (!w->evbuf)
			return rec_done(w, store_err(w->st, -ENOMEM, "out of memory"));
		w->flush = rec_flush;
	}
	w->evbuf[w->ev_n++] = *ev;
	if (unlikely(w->ev_n == STORE_EVENT_BATCH))
		return rec_done(w, flush_events(w));
	return 0;
}

/**
 * hs_rec_add_life() - store one folio life
 * @w: a writer opened on the recording
 * @life: its id (hs_lifecycle_life()'s)
 * @l: the life
 *
 * dev and ino are NULL for anon lives, tgid and address for file and bdev
 * lives; pfn NULL when unknown, born_ns when the birth was not seen,
 * died_ns while alive, refault_distance and refault_ns unless a refault.
 *
 * Return: 0, -EINVAL (bad kind or death cause, or a life stored already),
 * or -errno (the writer then fails its commit).
 */
int hs_rec_add_life(struct hs_session_writer *w, uint64_t life, const struct hs_folio_life *l)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	bool anon;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	if (l->kind >= HS_LIFE_KIND_NR || l->death_cause >= HS_DEATH_NR || life > INT64_MAX)
		return rec_done(w, store_err(st, -EINVAL, "bad folio life %llu",
					     (unsigned long long)life));
	err = store_stmt(st, ST_LIFE_INSERT, &s);
	if (err)
		return rec_done(w, err);
	anon = l->kind == HS_LIFE_ANON;
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_int64(s, 2, i64(life));
	sqlite3_bind_int(s, 3, l->kind);
	if (!anon) {
		sqlite3_bind_int64(s, 4, i64(l->dev));
		sqlite3_bind_int64(s, 5, i64(l->ino));
	} else {
		sqlite3_bind_int64(s, 6, l->tgid);
		sqlite3_bind_int64(s, 7, i64(l->first_page << HS_LC_PAGE_SHIFT));
	}
	sqlite3_bind_int64(s, 8, i64(l->first_page));
	sqlite3_bind_int64(s, 9, i64(l->pages));
	bind_u64_or_null(s, 10, l->pfn);
	if (!(l->flags & HS_LIFE_F_UNSEEN_BIRTH))
		sqlite3_bind_int64(s, 11, i64(l->born_ns));
	if (l->death_cause != HS_DEATH_NONE)
		sqlite3_bind_int64(s, 12, i64(l->died_ns));
	sqlite3_bind_int(s, 13, l->death_cause);
	sqlite3_bind_int(s, 14, l->refault ? 1 : 0);
	if (l->refault) {
		sqlite3_bind_int64(s, 15, i64(l->refault_distance));
		sqlite3_bind_int64(s, 16, i64(l->refault_ns));
	}
	sqlite3_bind_int(s, 17, l->flags);
	sqlite3_bind_int64(s, 18, i64(l->accesses));
	sqlite3_bind_int64(s, 19, i64(l->activations));
	sqlite3_bind_int(s, 20, l->workload ? 1 : 0);
	return rec_done(w, store_run(st, s));
}

/**
 * hs_rec_add_key() - store the identity of one key of the access stream
 * @w: a writer opened on the recording
 * @key: the key's id in the stream (hs_lifecycle_key()'s)
 * @k: what it is
 *
 * dev and ino are NULL for anon keys, tgid for file and bdev keys; page is
 * the file page index or the virtual page (address >> 12).
 *
 * Return: 0, -EINVAL (bad kind, or a key stored already), or -errno (the
 * writer then fails its commit).
 */
int hs_rec_add_key(struct hs_session_writer *w, uint64_t key, const struct hs_lc_key *k)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	if (k->kind >= HS_LIFE_KIND_NR || key > INT64_MAX)
		return rec_done(w, store_err(st, -EINVAL, "bad key %llu",
					     (unsigned long long)key));
	err = store_stmt(st, ST_RKEY_INSERT, &s);
	if (err)
		return rec_done(w, err);
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_int64(s, 2, i64(key));
	sqlite3_bind_int(s, 3, k->kind);
	if (k->kind != HS_LIFE_ANON) {
		sqlite3_bind_int64(s, 4, i64(k->dev));
		sqlite3_bind_int64(s, 5, i64(k->ino));
	} else {
		sqlite3_bind_int64(s, 6, k->tgid);
	}
	sqlite3_bind_int64(s, 7, i64(k->index));
	return rec_done(w, store_run(st, s));
}

/**
 * hs_rec_add_counter() - store one counter's values before and after
 * @w: a writer opened on the recording
 * @file: "memory.stat", "vmstat", "cachestat"
 * @scope: "cgroup", "machine", "file:<path>"
 * @name: the counter
 * @before: its value when the recording started
 * @after: ... and when it ended
 *
 * delta is after - before, signed.
 *
 * Return: 0, -EINVAL (missing names, or the counter stored already), or
 * -errno (the writer then fails its commit).
 */
int hs_rec_add_counter(struct hs_session_writer *w, const char *file, const char *scope,
		       const char *name, uint64_t before, uint64_t after)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	if (!file || !scope || !name)
		return rec_done(w, store_err(st, -EINVAL, "counter without a name"));
	err = store_stmt(st, ST_COUNTER_INSERT, &s);
	if (err)
		return rec_done(w, err);
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_text(s, 2, file, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, i64(before));
	sqlite3_bind_int64(s, 6, i64(after));
	sqlite3_bind_int64(s, 7, i64(after - before));
	return rec_done(w, store_run(st, s));
}

/**
 * hs_rec_add_check() - store one self-check
 * @w: a writer opened on the recording
 * @name: the check
 * @status: "ok", "differs", "n/a"
 * @got: what the recording gave
 * @want: what it is checked against
 * @note: one line, or NULL
 *
 * Return: 0, -EINVAL (bad status, or the check stored already), or -errno
 * (the writer then fails its commit).
 */
int hs_rec_add_check(struct hs_session_writer *w, const char *name, const char *status,
		     double got, double want, const char *note)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	if (!name || !status)
		return rec_done(w, store_err(st, -EINVAL, "check without a name or status"));
	err = store_stmt(st, ST_CHECK_INSERT, &s);
	if (err)
		return rec_done(w, err);
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, status, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 4, got);
	sqlite3_bind_double(s, 5, want);
	bind_text(s, 6, note);
	return rec_done(w, store_run(st, s));
}

/**
 * hs_rec_add_cpu() - store one CPU's capture statistics
 * @w: a writer opened on the recording
 * @cpu: the CPU
 * @subbufs: sub-buffers read
 * @bytes: their bytes
 * @events: events decoded from them
 * @overrun: stats "overrun:" delta
 * @commit_overrun: stats "commit overrun:" delta
 * @dropped: stats "dropped events:" delta
 *
 * lost is stored as overrun + commit_overrun + dropped.
 *
 * Return: 0, -EINVAL (the CPU stored already), or -errno (the writer then
 * fails its commit).
 */
int hs_rec_add_cpu(struct hs_session_writer *w, int cpu, uint64_t subbufs, uint64_t bytes,
		   uint64_t events, uint64_t overrun, uint64_t commit_overrun, uint64_t dropped)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	err = store_stmt(st, ST_CPU_INSERT, &s);
	if (err)
		return rec_done(w, err);
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_int(s, 2, cpu);
	sqlite3_bind_int64(s, 3, i64(subbufs));
	sqlite3_bind_int64(s, 4, i64(bytes));
	sqlite3_bind_int64(s, 5, i64(events));
	sqlite3_bind_int64(s, 6, i64(overrun));
	sqlite3_bind_int64(s, 7, i64(commit_overrun));
	sqlite3_bind_int64(s, 8, i64(dropped));
	sqlite3_bind_int64(s, 9, i64(overrun + commit_overrun + dropped));
	return rec_done(w, store_run(st, s));
}

/**
 * hs_rec_add_lrugen() - store one lru_gen snapshot
 * @w: a writer opened on the recording
 * @ts_ns: when it was taken (trace clock)
 * @lg: the parsed snapshot
 *
 * A row per (memcg, node, generation): gen is the kernel's generation
 * index, seq % 4; a type's page count at a seq below its min_seq (printed
 * with 'x' by lru_gen_full) is stored as 0.
 *
 * Return: 0, -EINVAL (the snapshot stored already at @ts_ns), or -errno
 * (the writer then fails its commit).
 */
int hs_rec_add_lrugen(struct hs_session_writer *w, uint64_t ts_ns, const struct hs_lrugen *lg)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	size_t m, n, g;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	if (!lg)
		return rec_done(w, store_err(st, -EINVAL, "no lru_gen snapshot"));
	err = store_stmt(st, ST_LRUGEN_INSERT, &s);
	if (err)
		return rec_done(w, err);
	for (m = 0; !err && m < lg->nr_memcgs; m++) {
		const struct hs_lrugen_memcg *mc = &lg->memcgs[m];

		for (n = 0; !err && n < mc->nr_nodes; n++) {
			const struct hs_lrugen_node *nd = &mc->nodes[n];

			for (g = 0; !err && g < nd->nr_gens; g++) {
				const struct hs_lrugen_gen *gen = &nd->gens[g];
				uint64_t anon = gen->below_min[HS_LRUGEN_ANON] ? 0 :
						gen->nr_pages[HS_LRUGEN_ANON];
				uint64_t file = gen->below_min[HS_LRUGEN_FILE] ? 0 :
						gen->nr_pages[HS_LRUGEN_FILE];

				sqlite3_bind_int64(s, 1, w->session);
				sqlite3_bind_int64(s, 2, i64(ts_ns));
				sqlite3_bind_int64(s, 3, i64(mc->id));
				sqlite3_bind_text(s, 4, mc->path ? mc->path : "", -1,
						  SQLITE_STATIC);
				sqlite3_bind_int(s, 5, nd->nid);
				sqlite3_bind_int64(s, 6, i64(gen->seq % HS_LRUGEN_MAX_GENS));
				sqlite3_bind_int64(s, 7, i64(gen->seq));
				sqlite3_bind_int64(s, 8, i64(gen->age_ms));
				sqlite3_bind_int64(s, 9, i64(anon));
				sqlite3_bind_int64(s, 10, i64(file));
				err = store_run(st, s);
			}
		}
	}
	return rec_done(w, err);
}

/*
 * Task names (hs_rec_add_tasks()).  A pid's name can change only at marks
 * the events show: a birth (task_newtask, sched_process_fork: a = the
 * child), an exec (sched_process_exec), and, for every pid, a loss (what
 * was lost may have been either).  Between two marks a pid is one task with
 * one name, its span (renames through prctl(PR_SET_NAME) are not traced:
 * hsctl-db(5) says so).
 *
 * A sighting is a name read at some instant of (lo, hi]: /proc at the time
 * of the read, or a saved_cmdlines entry that changed between two reads,
 * which the kernel saved at a context switch of the pid's task then.  The
 * spans of the pid that overlap (lo, hi] are the candidates; one is ruled
 * out when its task was dead all through (a span that a birth ends, with no
 * exit of the pid in the window before that birth).  A span left alone is
 * the one.  Of several, one is also ruled out when its name is known and
 * differs: known from other sightings, or, for a span that starts
 * at a birth, the parent's name at that time (a child starts with its
 * parent's comm).  A single candidate left gets the name.  This is why a
 * short-lived command is named although its fork, exec and exit all fall
 * between two reads: its pre-exec span has its parent's name.  Names found
 * make other spans known, so the deduction runs until nothing changes.  A
 * span given two names gets none.  Inherited names only rule out: they are
 * not stored, as a thread may rename itself right after its creation.
 *
 * An exec renames its task before the trace shows it: begin_new_exec() sets
 * the new comm, and sched_process_exec fires only when the binary is loaded,
 * which on a busy machine can be a millisecond later (the loader's page
 * faults fall in between).  So a sighting whose only span is one that an
 * exec ends, and whose name is not the one that span inherited from its
 * parent, saw the exec's name: it names the span after the exec.
 */
enum mark_kind { MK_LOST, MK_BIRTH, MK_EXEC, MK_EXIT };

struct task_mark {
	int32_t		pid;		/* the task, or INT32_MIN for a loss */
	int32_t		by;		/* MK_BIRTH: the creating task */
	enum mark_kind	kind;		/* MK_EXIT is no mark: the task's last instant */
	uint64_t	ts;		/* trace clock */
};

struct task_span {
	int32_t		pid;
	uint64_t	from;		/* the name holds from here (0: the start) ... */
	uint64_t	to;		/* ... until here (UINT64_MAX: the end) */
	const char	*comm;		/* NULL: two names (a conflict) */
};

struct task_names {
	struct task_mark *m;		/* all marks, by (pid, ts): losses first */
	size_t		nm;
	size_t		nr_lost;	/* m[0 .. nr_lost) */
	struct task_span *sp;		/* names found, by (pid, from) ... */
	size_t		nsp;
	size_t		nsorted;	/* ... up to here; those after came in this pass */
	size_t		cap;
};

static int mark_cmp(const void *a, const void *b)
{
	const struct task_mark *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int span_cmp(const void *a, const void *b)
{
	const struct task_span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return 0;
}

/* The marks of @pid: *own and its number. */
static size_t own_marks(const struct task_names *tn, int32_t pid, const struct task_mark **own)
{
	size_t lo = tn->nr_lost, hi = tn->nm, mid, n;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tn->m[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo + n < tn->nm && tn->m[lo + n].pid == pid; n++)
		;
	*own = tn->m + lo;
	return n;
}

/*
 * The span of @pid around @t: the latest mark at or before @t (0: none) and
 * the first after it (UINT64_MAX: none); *birth_by gets the creator when
 * the span starts at a birth, else 0.
 */
static void span_at(const struct task_names *tn, int32_t pid, uint64_t t, uint64_t *from,
		    uint64_t *to, int32_t *birth_by)
{
	const struct task_mark *own;
	size_t lo = 0, hi = tn->nr_lost, i, n;

	*from = 0;
	*to = UINT64_MAX;
	*birth_by = 0;
	while (lo < hi) {		/* the first loss after t */
		i = lo + (hi - lo) / 2;
		if (tn->m[i].ts <= t)
			lo = i + 1;
		else
			hi = i;
	}
	if (lo > 0)
		*from = tn->m[lo - 1].ts;
	if (lo < tn->nr_lost)
		*to = tn->m[lo].ts;
	n = own_marks(tn, pid, &own);
	for (i = 0; i < n; i++) {
		if (own[i].kind == MK_EXIT)
			continue;
		if (own[i].ts <= t && own[i].ts >= *from) {
			*from = own[i].ts;
			*birth_by = own[i].kind == MK_BIRTH ? own[i].by : 0;
		}
		if (own[i].ts > t && own[i].ts < *to)
			*to = own[i].ts;
	}
}

static struct task_span *find_span(const struct task_names *tn, int32_t pid, uint64_t from)
{
	struct task_span key = { .pid = pid, .from = from }, *s = NULL;
	size_t i;

	if (tn->nsorted)
		s = bsearch(&key, tn->sp, tn->nsorted, sizeof(*tn->sp), span_cmp);
	for (i = tn->nsorted; !s && i < tn->nsp; i++)
		if (tn->sp[i].pid == pid && tn->sp[i].from == from)
			s = &tn->sp[i];
	return s;
}

/* The known name of @pid at @t (depth: how far up to inherit), or NULL. */
static const char *name_at(const struct task_names *tn, int32_t pid, uint64_t t, int depth)
{
	const struct task_span *s;
	uint64_t from, to;
	int32_t by;

	span_at(tn, pid, t, &from, &to, &by);
	s = find_span(tn, pid, from);
	if (s)
		return s->comm;
	if (by > 0 && depth > 0)
		return name_at(tn, by, from, depth - 1);
	return NULL;
}

/* Give span [@from, @to) of @pid the name @comm (unsorted until the pass ends). */
static int name_span(struct task_names *tn, int32_t pid, uint64_t from, uint64_t to,
		     const char *comm, bool *changed)
{
	struct task_span *s = find_span(tn, pid, from), *ns;

	if (s) {
		if (s->comm && strcmp(s->comm, comm)) {
			s->comm = NULL;
			*changed = true;
		}
		return 0;
	}
	if (tn->nsp == tn->cap) {
		tn->cap = tn->cap ? 2 * tn->cap : 64;
		ns = realloc(tn->sp, tn->cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		tn->sp = ns;
	}
	tn->sp[tn->nsp++] = (struct task_span){ pid, from, to, comm };
	*changed = true;
	return 0;
}

/* Is @ts an exec of @pid? */
static bool ends_at_exec(const struct task_names *tn, int32_t pid, uint64_t ts)
{
	const struct task_mark *own;
	size_t i, n = own_marks(tn, pid, &own);

	for (i = 0; i < n; i++)
		if (own[i].kind == MK_EXEC && own[i].ts == ts)
			return true;
	return false;
}

/*
 * The one span of (lo, hi] that @x can name: *from, *to; false when none
 * or more than one is left (see above).  A span alone in the window is the
 * one, whatever the names known (its task may have renamed itself), but for
 * a span an exec ends whose inherited name differs: then the exec's (above).
 */
static bool sighting_span(const struct task_names *tn, const struct hs_task_seen *x,
			  uint64_t *from, uint64_t *to)
{
	uint64_t t = x->lo_ns, f, e, first_birth = 0, only_from = 0, only_to = 0;
	const struct task_mark *own;
	bool exit_before = false;
	size_t i, n, spans = 0, left = 0;
	const char *known;
	int32_t by;

	if (x->lo_ns >= x->hi_ns) {
		span_at(tn, x->pid, x->hi_ns, from, to, &by);
		return true;
	}
	n = own_marks(tn, x->pid, &own);
	for (i = 0; i < n; i++) {	/* the first mark in the window, and exits before it */
		if (own[i].ts <= x->lo_ns || own[i].ts > x->hi_ns)
			continue;
		if (own[i].kind == MK_EXIT) {
			exit_before = true;
			continue;
		}
		if (own[i].kind == MK_BIRTH && !exit_before)
			first_birth = own[i].ts;
		break;
	}
	for (;;) {
		span_at(tn, x->pid, t, &f, &e, &by);
		/* a task dead all through the window saved nothing in it */
		if (!(first_birth && e == first_birth && f <= x->lo_ns)) {
			spans++;
			only_from = f;
			only_to = e;
			known = name_at(tn, x->pid, t, 8);
			if (!known || !strcmp(known, x->comm)) {
				*from = f;
				*to = e;
				left++;
			}
		}
		if (e > x->hi_ns || e == UINT64_MAX)
			break;
		t = e;
	}
	if (spans == 1) {
		*from = only_from;
		*to = only_to;
		known = name_at(tn, x->pid, only_from, 8);
		if (known && strcmp(known, x->comm) && ends_at_exec(tn, x->pid, only_to))
			span_at(tn, x->pid, only_to, from, to, &by);	/* renamed by the exec */
		return true;
	}
	return left == 1;
}

/* Load the marks of the session's events, sorted: losses first. */
static int load_marks(struct hs_session_writer *w, struct task_names *tn)
{
	static const char sql[] = "SELECT type, pid, a, ts_ns FROM events WHERE session = ?1"
				  " AND type IN (?2, ?3, ?4, ?5, ?6)";
	struct hs_store *st = w->st;
	struct task_mark *m = NULL, *nm;
	size_t nr = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc, type;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_int(s, 2, HS_EV_TASK_NEW);
	sqlite3_bind_int(s, 3, HS_EV_PROCESS_FORK);
	sqlite3_bind_int(s, 4, HS_EV_PROCESS_EXEC);
	sqlite3_bind_int(s, 5, HS_EV_PROCESS_EXIT);
	sqlite3_bind_int(s, 6, HS_EV_LOST);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (nr == cap) {
			cap = cap ? 2 * cap : 256;
			nm = realloc(m, cap * sizeof(*m));
			if (!nm) {
				sqlite3_finalize(s);
				free(m);
				return store_err(st, -ENOMEM, "out of memory");
			}
			m = nm;
		}
		type = sqlite3_column_int(s, 0);
		m[nr].ts = (uint64_t)sqlite3_column_int64(s, 3);
		m[nr].by = 0;
		m[nr].pid = sqlite3_column_int(s, 1);
		if (type == HS_EV_LOST) {
			m[nr].kind = MK_LOST;
			m[nr].pid = INT32_MIN;
		} else if (type == HS_EV_TASK_NEW || type == HS_EV_PROCESS_FORK) {
			m[nr].kind = MK_BIRTH;
			m[nr].by = m[nr].pid;
			m[nr].pid = (int32_t)sqlite3_column_int64(s, 2);
		} else {
			m[nr].kind = type == HS_EV_PROCESS_EXEC ? MK_EXEC : MK_EXIT;
		}
		nr++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(m);
		return store_sql_err(st, rc);
	}
	if (nr)
		qsort(m, nr, sizeof(*m), mark_cmp);
	tn->m = m;
	tn->nm = nr;
	for (tn->nr_lost = 0; tn->nr_lost < nr && m[tn->nr_lost].kind == MK_LOST; tn->nr_lost++)
		;
	return 0;
}

/* Insert one named span. */
static int insert_span(struct hs_session_writer *w, sqlite3_stmt *s, const struct task_span *sp)
{
	sqlite3_bind_int64(s, 1, w->session);
	sqlite3_bind_int(s, 2, sp->pid);
	sqlite3_bind_text(s, 3, sp->comm, -1, SQLITE_STATIC);
	if (sp->from)
		sqlite3_bind_int64(s, 4, i64(sp->from));
	else
		sqlite3_bind_null(s, 4);
	if (sp->to != UINT64_MAX)
		sqlite3_bind_int64(s, 5, i64(sp->to));
	else
		sqlite3_bind_null(s, 5);
	return step_insert(w->st, s);
}

/* The passes of the deduction; each finds at least one name or ends it. */
#define TASK_PASSES	16

/**
 * hs_rec_add_tasks() - store the names of the recording's tasks
 * @w: a writer opened on the recording, its events added
 * @seen: the recorder's sightings, in any order
 * @n: their number
 *
 * Each sighting names the one span of its pid it can be from (see above);
 * the rows go to tasks, which the comm column of v_events and the v_ev_*
 * views reads.
 *
 * Return: 0 or -errno (the writer then fails its commit).
 */
int hs_rec_add_tasks(struct hs_session_writer *w, const struct hs_task_seen *seen, size_t n)
{
	static const char sql[] = "INSERT INTO tasks (session, pid, comm, from_ns, to_ns)"
				  " VALUES (?1, ?2, ?3, ?4, ?5)";
	struct task_names tn = { 0 };
	sqlite3_stmt *s = NULL;
	bool changed = true;
	uint64_t from, to;
	int err, rc, pass;
	size_t i;

	err = rec_ready(w);
	if (err || !n)
		return err;
	if (w->flush) {
		err = w->flush(w);	/* the marks come from the events stored */
		if (err)
			return rec_done(w, err);
	}
	err = load_marks(w, &tn);
	for (pass = 0; !err && changed && pass < TASK_PASSES; pass++) {
		changed = false;
		for (i = 0; !err && i < n; i++) {
			const struct hs_task_seen *x = &seen[i];

			if (x->pid <= 0 || !memchr(x->comm, '\0', sizeof(x->comm)) || !x->comm[0])
				continue;
			/* exact reads first: they are what the deduction starts from */
			if (!pass && x->lo_ns < x->hi_ns)
				continue;
			if (sighting_span(&tn, x, &from, &to))
				err = name_span(&tn, x->pid, from, to, x->comm, &changed);
		}
		if (tn.nsp)
			qsort(tn.sp, tn.nsp, sizeof(*tn.sp), span_cmp);
		tn.nsorted = tn.nsp;
		if (!pass)
			changed = true;
	}
	if (err == -ENOMEM)
		err = store_err(w->st, -ENOMEM, "out of memory");
	if (!err) {
		rc = sqlite3_prepare_v2(w->st->db, sql, -1, &s, NULL);
		if (rc != SQLITE_OK)
			err = store_sql_err(w->st, rc);
	}
	for (i = 0; !err && i < tn.nsp; i++)
		if (tn.sp[i].comm)
			err = insert_span(w, s, &tn.sp[i]);
	sqlite3_finalize(s);
	free(tn.sp);
	free(tn.m);
	return rec_done(w, err);
}

/**
 * hs_rec_finish() - store what the recording gave
 * @w: a writer opened on the recording
 * @r: the results; r->status, when set, becomes the status the commit sets
 *
 * workload_exit is stored NULL when negative (killed or never ran),
 * workload_signal and peak_pages NULL when 0.
 *
 * Return: 0, -EINVAL (bad status), -ENOENT (the session has no recordings
 * row), or -errno (the writer then fails its commit).
 */
int hs_rec_finish(struct hs_session_writer *w, const struct hs_record_result *r)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int err;

	err = rec_ready(w);
	if (err)
		return err;
	if (!r || (r->status && !store_status_valid(r->status)))
		return rec_done(w, store_err(st, -EINVAL, "bad session status '%s'",
					     r && r->status ? r->status : "(none)"));
	err = store_stmt(st, ST_RECORD_FINISH, &s);
	if (err)
		return rec_done(w, err);
	sqlite3_bind_int64(s, 1, w->session);
	if (r->workload_exit >= 0)
		sqlite3_bind_int(s, 2, r->workload_exit);
	if (r->workload_signal)
		sqlite3_bind_int(s, 3, r->workload_signal);
	sqlite3_bind_int64(s, 4, i64(r->runtime_ns));
	sqlite3_bind_int64(s, 5, i64(r->lost_events));
	sqlite3_bind_int64(s, 6, i64(r->lost_gaps));
	sqlite3_bind_int64(s, 7, i64(r->subbufs));
	sqlite3_bind_int64(s, 8, i64(r->bytes));
	sqlite3_bind_int64(s, 9, i64(r->events));
	sqlite3_bind_int64(s, 10, i64(r->touches));
	bind_u64_or_null(s, 11, r->peak_pages);
	sqlite3_bind_double(s, 12, r->record_cpu_s);
	sqlite3_bind_double(s, 13, r->build_s);
	err = store_run(st, s);
	if (err)
		return rec_done(w, err);
	if (sqlite3_changes(st->db) == 0)
		return rec_done(w, store_err(st, -ENOENT, "session %lld has no recording row",
					     (long long)w->session));
	if (r->status)
		snprintf(w->status, sizeof(w->status), "%s", r->status);
	return 0;
}

/* ---- the workload's TLB events (hs_session_tlb_flushes()) ---- */

/* Step @s to its end, its first column's values into *@ts (*@n of them); finalizes @s. */
static int collect_times(struct hs_store *st, sqlite3_stmt *s, uint64_t **ts, size_t *n)
{
	uint64_t *v = NULL;
	size_t nr = 0, cap = 0;
	int rc, err = 0;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t *nv = hs_grow(v, &cap, nr + 1, sizeof(*v), 256);

		if (!nv) {
			err = store_err(st, -ENOMEM, "out of memory");
			break;
		}
		v = nv;
		v[nr++] = (uint64_t)sqlite3_column_int64(s, 0);
	}
	if (!err && rc != SQLITE_DONE)
		err = store_sql_err(st, rc);
	sqlite3_finalize(s);
	if (err) {
		free(v);
		return err;
	}
	*ts = v;
	*n = nr;
	return 0;
}

int hs_session_tlb_flushes(struct hs_store *st, int64_t session, uint64_t **ts, size_t *n,
			   uint32_t *entries)
{
	sqlite3_stmt *s = NULL;
	bool has = false;
	int rc, err = 0;

	if (ts) {
		*ts = NULL;
		*n = 0;
	}
	*entries = 0;
	/* the recording says which events it had: tlb_flush among them, or none */
	rc = sqlite3_prepare_v2(st->db, "SELECT instr(r.events, '\"tlb:tlb_flush\"') > 0,"
				" ifnull(json_extract(s.params, '$.tlb_entries'), 0)"
				" FROM recordings AS r JOIN sessions AS s ON s.id = r.session"
				" WHERE r.session = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		sqlite3_int64 e = sqlite3_column_int64(s, 1);

		has = sqlite3_column_int(s, 0) != 0;
		*entries = e > 0 && e < UINT32_MAX ? (uint32_t)e : 0;
	}
	else if (rc != SQLITE_DONE)
		err = store_sql_err(st, rc);
	sqlite3_finalize(s);
	if (err)
		return err;
	if (!has)
		return -ENODATA;
	if (!ts)
		return 0;

	/* TLB_FLUSH_ALL is (unsigned long)-1: -1 as SQLite's int64, or 2^32 - 1 */
	rc = sqlite3_prepare_v2(st->db, "SELECT ts_ns FROM events WHERE session = ?1 AND"
				" ((type = ?2 AND (a < 0 OR a >= 4294967295)) OR type IN (?3, ?4))"
				" ORDER BY ts_ns", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int(s, 2, HS_EV_TLB_FLUSH);
	sqlite3_bind_int(s, 3, HS_EV_SCHED_SWITCH);
	sqlite3_bind_int(s, 4, HS_EV_MIGRATE_TASK);
	return collect_times(st, s, ts, n);
}

/* ---- the largest memory cgroup reclaim (hs_session_memcg_reclaim_max()) ---- */

int hs_session_memcg_reclaim_max(struct hs_store *st, int64_t session, uint64_t *max)
{
	char release[128], lru_gen[64];
	sqlite3_stmt *s = NULL;
	unsigned int caps = 0;
	int rc, err;

	*max = 0;
	/* the kernel's LRU first: another LRU's recording is not scanned */
	err = hs_rec_kernel(st, session, release, sizeof(release), lru_gen, sizeof(lru_gen));
	if (err)
		return err == -ENOENT ? 0 : err;	/* not a recording */
	if (hs_lrugen_parse_enabled(lru_gen, strlen(lru_gen), &caps, NULL, 0) ||
	    !(caps & HS_LRUGEN_CAP_CORE))
		return 0;

	rc = sqlite3_prepare_v2(st->db, "SELECT max(a) FROM events WHERE session = ?1 AND"
				" type = ?2", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int(s, 2, HS_EV_MEMCG_RECLAIM_END);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		sqlite3_int64 v = sqlite3_column_int64(s, 0);	/* NULL (none): 0 */

		*max = v > 0 ? (uint64_t)v : 0;
	} else if (rc != SQLITE_DONE) {
		err = store_sql_err(st, rc);
	}
	sqlite3_finalize(s);
	return err;
}

/* ---- the memory cgroup's statistics flushes (hs_session_memcg_flushes()) ---- */

int hs_session_memcg_flushes(struct hs_store *st, int64_t session, uint64_t **ts, size_t *n)
{
	sqlite3_stmt *s = NULL;
	bool has = false;
	int rc, err = 0;

	*ts = NULL;
	*n = 0;
	/* the recording says whether it traced them (the filter kept only the cgroup's) */
	rc = sqlite3_prepare_v2(st->db, "SELECT instr(events, '\"memcg:memcg_flush_stats\"') > 0"
				" FROM recordings WHERE session = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		has = sqlite3_column_int(s, 0) != 0;
	else if (rc != SQLITE_DONE)
		err = store_sql_err(st, rc);
	sqlite3_finalize(s);
	if (err)
		return err;
	if (!has)
		return -ENODATA;

	rc = sqlite3_prepare_v2(st->db, "SELECT ts_ns FROM events WHERE session = ?1 AND"
				" type = ?2 AND (c & 3) != 0 ORDER BY ts_ns", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int(s, 2, HS_EV_MEMCG_FLUSH);
	return collect_times(st, s, ts, n);
}
