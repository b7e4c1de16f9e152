/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite store: one file, many sessions.  lib/store.c is the only file that
 * includes <sqlite3.h>; everything else sees this API.  The schema is specified
 * in man/hsctl-db.5.
 *
 * A session's accesses are stored compactly, as chunks of delta-encoded
 * varints (table access_chunks), and read back in one ordered stream, chunk by
 * chunk: a replay never holds more than a chunk of the stream in memory.  Keys
 * are renumbered densely (0 .. distinct_keys - 1) on the way in; the original
 * ids are kept (table session_keys) so results can be mapped back.
 *
 * Errors: functions return 0 or a negative errno; hs_store_errmsg() then holds
 * a one-line reason (SQLite's message where SQLite failed).  -EPROTO: the file
 * is not an hsctl database or comes from a newer hsctl.
 */
#ifndef HS_STORE_H
#define HS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

struct hs_store;

#define HS_STORE_RDONLY		0x1u	/* open read-only (hsctl sql without --write) */
#define HS_STORE_NOCREATE	0x2u	/* fail with -ENOENT if the file does not exist */
#define HS_STORE_NOMIGRATE	0x4u	/* accept an older schema as it is (hsctl db info,
					 * db migrate); only hs_store_query() and
					 * hs_store_get_info() are then safe to use */

/**
 * hs_store_open() - open or create a database, migrating it to this version
 * @path: file name (":memory:" for tests)
 * @flags: HS_STORE_*
 * @out: the store
 *
 * Return: 0, -ENOENT, -EPROTO (not ours / newer), -EIO, -ENOMEM.  On error
 * *out is still set when a message is available (read it, then close); it is
 * NULL only for -ENOMEM.
 */
int hs_store_open(const char *path, unsigned int flags, struct hs_store **out);
void hs_store_close(struct hs_store *st);
const char *hs_store_errmsg(const struct hs_store *st);
int hs_store_user_version(const struct hs_store *st);	/* schema version of the file */
#define HS_STORE_SCHEMA_VERSION	1			/* the version this build writes */
#define HS_STORE_APPLICATION_ID	0x48534354u		/* PRAGMA application_id: "HSCT" */

/* What `hsctl db info` shows. */
struct hs_store_info {
	uint32_t	application_id;	/* PRAGMA application_id (hsctl's: 0x48534354) */
	int		user_version;	/* schema version of the file */
	int64_t		page_size;	/* bytes per page */
	int64_t		page_count;	/* pages in the file */
	int64_t		freelist_count;	/* unused pages */
	int64_t		sessions;	/* rows in sessions, -1 before schema 1 */
	int64_t		runs;		/* rows in runs, -1 before schema 1 */
	char		journal_mode[16]; /* "wal", "delete", ... */
};

/* Return: 0 or -errno. */
int hs_store_get_info(struct hs_store *st, struct hs_store_info *info);

/* ---- writing a session (import, gen, record) ---- */

struct hs_session_meta {
	const char	*source;	/* "import", "gen", "record" */
	const char	*name;		/* user's name; NULL: derived from origin */
	const char	*origin;	/* file path, generator spec or command line */
	const char	*format;	/* import type ("lis", "lirs", ...) or generator name */
	const char	*unit;		/* "page", "block", "object": what capacity counts */
	const char	*kind;		/* default type: "file" or "anon" */
	const char	*channel;	/* default channel: "pt" or "fd" */
	const char	*params_json;	/* import/generator options as a JSON object, or NULL */
	const char	*visibility;	/* what of the accesses the stream holds: "exact"
					 * (every access: traces, generators, workloads that
					 * log their touches), "sampled", "faults"; NULL:
					 * exact */
};

struct hs_session_writer;

/* Begin a session: opens the transaction (BEGIN IMMEDIATE). */
int hs_session_begin(struct hs_store *st, const struct hs_session_meta *m,
		     struct hs_session_writer **out);
/* Append one record; @key is the original id (renumbered densely here). */
int hs_session_add(struct hs_session_writer *w, uint64_t key, uint8_t meta);
/* Flush, store keys and counts, mark complete, COMMIT.  Frees w (even on error). */
int hs_session_commit(struct hs_session_writer *w, int64_t *session);
/* ROLLBACK: nothing of the session remains.  Frees w; accepts NULL. */
void hs_session_abort(struct hs_session_writer *w);

/* ---- reading sessions ---- */

struct hs_session_info {
	int64_t		id;
	char		source[16];
	char		name[256];
	char		kind[8];	/* "file" / "anon" */
	char		channel[8];	/* "pt" / "fd" */
	char		unit[16];
	char		status[16];	/* "complete", ... */
	uint64_t	records;	/* stream records, hints and drops included */
	uint64_t	accesses;	/* FD + PT records */
	uint64_t	distinct_keys;	/* dense ids are below this */
	char		visibility[8];	/* "exact", "sampled", "faults" */
};

/* Return: 0, -ENOENT (no such session), or another -errno. */
int hs_session_get(struct hs_store *st, int64_t id, struct hs_session_info *out);
/* Remove a session with its accesses, keys and runs.  -ENOENT if absent. */
int hs_session_remove(struct hs_store *st, int64_t id);

struct hs_session_reader;

int hs_session_read_open(struct hs_store *st, int64_t id, struct hs_session_reader **out);
/*
 * Next chunk of the stream, in order.  Return: 1 with keys, meta and n set (valid
 * until the next call), 0 at the end, or -errno (-EBADMSG: a corrupt chunk).
 */
int hs_session_read_chunk(struct hs_session_reader *r, const uint32_t **keys,
			  const uint8_t **meta, size_t *n);
/* Start again from the first chunk. */
int hs_session_read_rewind(struct hs_session_reader *r);
void hs_session_read_close(struct hs_session_reader *r);

/* ---- runs ---- */

struct hs_run_record {
	int64_t			session;
	const char		*policy;	/* ops->name */
	const char		*params_json;	/* hs_param_set_json() text */
	const struct hs_sim_stats *stats;
	const struct hs_metrics	*metrics;	/* policy-specific, may be NULL */
	const struct hs_gen_sample *gens;	/* generations over time, may be NULL */
	size_t			nr_gens;	/* entries in gens */
	double			wall_s;		/* replay time of this run */
};

/* Store runs in one transaction; ids[i] receives run i's id.  ids may be NULL. */
int hs_store_save_runs(struct hs_store *st, const struct hs_run_record *runs, size_t n,
		       int64_t *ids);

/* ---- SQL for `hsctl sql` and the listings ---- */

enum hs_sql_type { HS_SQL_NULL, HS_SQL_INT, HS_SQL_REAL, HS_SQL_TEXT, HS_SQL_BLOB };

struct hs_sql_row {
	size_t		ncols;
	const char	*const *names;		/* column names */
	const enum hs_sql_type *types;		/* per column, this row */
	const int64_t	*ints;			/* HS_SQL_INT values */
	const double	*reals;			/* HS_SQL_REAL values */
	const char	*const *texts;		/* TEXT values; BLOBs as "x'..'" hex */
};

/*
 * Run @sql (one or more statements); call @cb for each result row of the last
 * statement that returns rows.  cb returns 0 to go on, non-zero to stop.
 * A read-only store refuses writes with -EPERM.
 */
int hs_store_query(struct hs_store *st, const char *sql,
		   int (*cb)(const struct hs_sql_row *row, void *arg), void *arg);

#endif /* HS_STORE_H */
