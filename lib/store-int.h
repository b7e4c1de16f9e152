/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the store: what lib/store.c (schema, statements, sessions, runs,
 * SQL) and lib/store-rec.c (the recorder's spool, format files and record
 * tables) share.  Only these two files and this header include <sqlite3.h>;
 * nothing else may include this header.  All SQL text, the schema's included,
 * lives in store.c so that one file shows what the database holds.
 *
 * The dependency points one way: store-rec.c calls the store_*() helpers
 * declared here, and store.c calls no function of store-rec.c.  The
 * recorder's tables need nothing else from store.c's code: their schema and
 * migration are SQL text in store.c's migrations[], and removing a session
 * removes their rows by ON DELETE CASCADE.  The one thing the commit must
 * do for them, insert the events hs_rec_add_event() still buffers, goes
 * through the writer's flush hook, which store-rec.c sets when it starts
 * buffering.
 */
#ifndef HS_STORE_INT_H
#define HS_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store.h"

/* Statements prepared once (on first use) and reused; SQL in store.c's stmt_sql[]. */
enum stmt_id {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_SESSION_INSERT,
	ST_SESSION_FINISH,
	ST_CHUNK_INSERT,
	ST_KEYS_INSERT,
	ST_KEYS_GET,
	ST_SESSION_GET,
	ST_SESSION_DELETE,
	ST_RUN_INSERT,
	ST_PROT_INSERT,
	ST_HIST_INSERT,
	ST_METRIC_INSERT,
	ST_GEN_INSERT,
	/* recorded sessions (schema 2) */
	ST_SESSION_STATUS,	/* the status of a session row */
	ST_SESSION_REOPEN,	/* a writer on an existing 'recording' row updates it */
	ST_RECORD_SESSION,	/* hs_record_create(): the sessions row */
	ST_RECORD_INSERT,	/* ... and its recordings row */
	ST_FORMAT_INSERT,
	ST_SPOOL_INSERT,
	ST_SPOOL_NEXT_CPU,
	ST_SPOOL_DROP,
	ST_RECORD_LIST_OPEN,
	ST_EVENT_INSERT,
	ST_EVENT_INSERT_BATCH,	/* STORE_EVENT_BATCH rows at once */
	ST_LIFE_INSERT,
	ST_RKEY_INSERT,
	ST_COUNTER_INSERT,
	ST_CHECK_INSERT,
	ST_CPU_INSERT,
	ST_LRUGEN_INSERT,
	ST_RECORD_FINISH,
	/* replay --log-evictions (schema 5) */
	ST_EVLOG_INSERT,
	ST_NR
};

struct hs_store {
	sqlite3		*db;			/* the connection */
	unsigned int	flags;			/* HS_STORE_* given to open */
	int		user_version;		/* schema version of the file */
	bool		writing;		/* a writer, save_runs or tx_begin is in a
						 * transaction */
	bool		tx;			/* ... and it is hs_store_tx_begin()'s */
	sqlite3_stmt	*stmts[ST_NR];		/* NULL until first used */
	char		errmsg[512];		/* last error, one line */
	int64_t		kc_session;		/* hs_key() cache: session of kc_ids */
	int64_t		kc_chunk;		/* ... its key chunk, -1: empty */
	size_t		kc_n;			/* ... ids in kc_ids */
	uint64_t	*kc_ids;		/* ... original ids (HS_KEY_CHUNK_IDS) */
	char		*path;			/* the file, NULL for :memory: */
	bool		wal_cleanup;		/* read-only open that made -wal and -shm:
						 * remove them at close (store_open_ro()) */
	bool		immutable;		/* read-only media: opened immutable=1 */
	char		denied[160];		/* why the authorizer refused, or "" */
	int64_t		read_session;		/* last session a reader opened, 0: none */
};

struct hs_keymap;
struct hs_event;

/* Events hs_rec_add_event() buffers and inserts with one statement. */
#define STORE_EVENT_BATCH	32

struct stage_chunk;		/* store.c: a staged chunk's place in memory or the file */

struct hs_session_writer {
	struct hs_store		*st;		/* in a transaction until commit/abort */
	struct hs_keymap	*km;		/* original id -> dense id */
	int64_t			session;	/* sessions.id of the row being written */
	uint64_t		*raw;		/* the chunk being filled: original ids */
	uint8_t			*meta;		/* ... and meta bytes */
	size_t			n;		/* records in the chunk being filled */
	uint32_t		*keys;		/* dense ids of raw[], filled at flush */
	uint64_t		*ts;		/* times of raw[] (timed sessions), or NULL */
	uint8_t			*enc;		/* encoding buffer for either chunk */
	int			timed;		/* 0: none yet, 1: timed, -1: untimed */
	uint64_t		last_ts;	/* time of the latest timed record */
	uint64_t		records;	/* records in chunks already written */
	uint64_t		accesses;	/* FD + PT records in those chunks */
	uint64_t		chunk_no;	/* number of the next chunk */
	int			err;		/* first write error, returned ever after */
	bool			recorded;	/* opened on a 'recording' row (meta.id) */
	uint64_t		ev_seq;		/* seq of evbuf[0] (hs_rec_add_event) */
	struct hs_event		*evbuf;		/* events not inserted yet, STORE_EVENT_BATCH */
	size_t			ev_n;		/* ... how many */
	/* Set by store-rec.c when it buffers: write what it buffers, called by
	 * hs_session_commit() first; NULL: nothing buffered.  0 or -errno. */
	int			(*flush)(struct hs_session_writer *w);
	char			status[16];	/* the status the commit sets */
	/* meta.staged: the chunks go to an unnamed file until the commit */
	bool			staged;
	struct hs_session_meta	sm;		/* ... a copy of the meta, which */
	char			*owned[9];	/* ... owns these strings */
	int			stage_fd;	/* ... the file (-1: none) */
	uint64_t		stage_off;	/* ... bytes staged, memory and file */
	uint8_t			*stage_mem;	/* ... the first chunks' memory, or NULL */
	uint64_t		stage_mem_len;	/* ... bytes of it used */
	int64_t			cache_kept;	/* the cache_size a journaled commit changed, 0: none */
	uint64_t		stage_file_off;	/* ... the file's length */
	struct stage_chunk	*stage;		/* ... the chunks in it */
	size_t			stage_n;	/* ... how many */
	size_t			stage_cap;	/* ... room in stage[] */
	char			started[24];	/* ... when hs_session_begin() ran */
	bool			journal;	/* ... committing in journal_mode DELETE */
	bool			coalesced;	/* ... its writes joined (coalesce_begin()) */
};

/* Names of the statuses a session may be committed with; NULL-terminated. */
extern const char *const store_statuses[];

int store_err(struct hs_store *st, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int store_sql_err(struct hs_store *st, int rc);
int store_stmt(struct hs_store *st, enum stmt_id id, sqlite3_stmt **out);
int store_run(struct hs_store *st, sqlite3_stmt *s);
int store_run_id(struct hs_store *st, enum stmt_id id);
int store_exec(struct hs_store *st, const char *sql);
int store_query_int(struct hs_store *st, const char *sql, int64_t *out);
void store_rollback(struct hs_store *st);
const char *store_or(const char *s, const char *def);
void store_copy_col(char *dst, size_t len, sqlite3_stmt *s, int col);
bool store_status_valid(const char *status);
const char *store_host(char *buf, size_t len);

#endif /* HS_STORE_INT_H */
