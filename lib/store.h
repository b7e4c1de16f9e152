/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite store: one file, many sessions.  lib/store.c and lib/store-rec.c
 * (the recorder's half) are the only files that include <sqlite3.h>;
 * everything else sees this API.  The schema is specified in man/hsctl-db.5.
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

struct hs_evlog;
struct hs_gen_sample;
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
 * A read-only open creates no file that outlives the store and works on
 * read-only media.  Every connection refuses SQL that reaches past the
 * database (fts3_tokenizer(), load_extension()); a read-only one also
 * ATTACH, DETACH and PRAGMAs given a value (-EPERM from hs_store_query()).
 *
 * Return: 0, -ENOENT, -EACCES or -EROFS (the file or its directory may not
 * be used so), -EPROTO (not ours / newer), -EIO, -ENOMEM.  On error *out is
 * still set when a message is available (read it, then close); it is NULL
 * only for -ENOMEM.
 */
int hs_store_open(const char *path, unsigned int flags, struct hs_store **out);
void hs_store_close(struct hs_store *st);
void hs_store_set_busy_timeout(unsigned int ms);
/* For tests: false makes a new file's schema by running every migration. */
void hs_store_set_fresh_script(bool on);
const char *hs_store_errmsg(const struct hs_store *st);
/* The file it was opened with, NULL for :memory:. */
const char *hs_store_path(const struct hs_store *st);
int hs_store_user_version(const struct hs_store *st);	/* schema version of the file */
#define HS_STORE_SCHEMA_VERSION	13			/* the version this build writes */
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
	int64_t		id;		/* 0: a new session; else an existing session in
					 * status 'recording' (hs_record_create()) that this
					 * writer fills: its row is updated, not inserted */
	const char	*status;	/* status set by hs_session_commit(); NULL:
					 * "complete" ("interrupted", "timeout", "killed") */
	bool		staged;		/* new sessions only: keep the stream in a
					 * temporary file and take the database's
					 * write lock only in hs_session_commit() */
};

struct hs_session_writer;

/* Begin a session: opens the transaction (BEGIN IMMEDIATE). */
int hs_session_begin(struct hs_store *st, const struct hs_session_meta *m,
		     struct hs_session_writer **out);
/* Append one record; @key is the original id (renumbered densely here). */
int hs_session_add(struct hs_session_writer *w, uint64_t key, uint8_t meta);
/* hs_session_add() for @n records of one meta byte, with array copies. */
int hs_session_add_many(struct hs_session_writer *w, const uint64_t *keys, size_t n,
			uint8_t meta);
/*
 * The same without the copy: hs_session_room() lends the free part of the
 * chunk being filled (*@keys, *@room > 0 records), the caller writes
 * original ids there, and hs_session_add_room() appends the first @n of
 * them with @meta (n <= room; a full chunk is written then).  Return: as
 * hs_session_add_many().
 */
int hs_session_room(struct hs_session_writer *w, uint64_t **keys, size_t *room);
int hs_session_add_room(struct hs_session_writer *w, size_t n, uint8_t meta);
/* Distinct keys renumbered so far (of the chunks written). */
uint64_t hs_session_keys(const struct hs_session_writer *w);
/* How many of @n keys are not renumbered yet (a sample of those to come). */
uint64_t hs_session_unseen(const struct hs_session_writer *w, const uint64_t *keys, size_t n);
/* Size the key map for about @keys distinct keys in all (a hint: hs_keymap_expect()). */
void hs_session_expect_keys(struct hs_session_writer *w, uint64_t keys);
/*
 * Append one record with its trace-clock time (ns, never before the previous
 * record's); a session's records all have times (recordings: encoding 2, which
 * alone may hold HS_CH_READAHEAD records) or none.  -EINVAL on a mix.
 */
int hs_session_add_ts(struct hs_session_writer *w, uint64_t key, uint8_t meta, uint64_t ts);
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
	uint64_t	memory_limit_pages; /* recorded sessions: the cgroup limit; else 0 */
	uint64_t	peak_pages;	/* recorded sessions: the cgroup's peak usage; else 0 */
};

/*
 * Return: 0, -ENOENT (no such session), -EBADMSG (counts that cannot be:
 * more accesses or distinct keys than records, more distinct keys than the
 * key table holds), or another -errno.
 */
int hs_session_get(struct hs_store *st, int64_t id, struct hs_session_info *out);
/* Remove a session with its accesses, keys and runs.  -ENOENT if absent. */
int hs_session_remove(struct hs_store *st, int64_t id);

struct hs_session_reader;

/*
 * A reader reads in one read transaction, from its open to its close: it sees
 * the session as it was at the open, whatever other processes do meanwhile.
 * Close it before writing through the same store.
 */
int hs_session_read_open(struct hs_store *st, int64_t id, struct hs_session_reader **out);
/*
 * Next chunk of the stream, in order.  Return: 1 with keys, meta and n set (valid
 * until the next call), 0 at the end, or -errno (-EBADMSG: a corrupt chunk).
 */
int hs_session_read_chunk(struct hs_session_reader *r, const uint32_t **keys,
			  const uint8_t **meta, size_t *n);
/*
 * The rest of the stream in memory: *keys (4 bytes a record) and, when @meta
 * is not NULL, *meta; free both.  Counts are the reader's own checks (the
 * session row's records, chunk by chunk).  Return: the records read (0 for
 * none: *keys is then still allocated), -ENOMEM, or the reader's -errno.
 */
int64_t hs_session_read_all(struct hs_session_reader *r, uint32_t **keys, uint8_t **meta);
/* The rest of the keys, all accesses (else -EOPNOTSUPP), into @keys (room for @room); -EBADMSG past it. */
int64_t hs_session_read_keys(struct hs_session_reader *r, uint32_t *keys, uint64_t room);
/*
 * Times (trace clock, ns) of the chunk read last, or NULL: only recorded
 * sessions (encoding 2) have them; they never go back.
 */
const uint64_t *hs_session_read_times(const struct hs_session_reader *r);
/* hs_session_read_all() with the times too: *ts is NULL when there are none. */
int64_t hs_session_read_all_ts(struct hs_session_reader *r, uint32_t **keys, uint8_t **meta,
			       uint64_t **ts);
/* Start again from the first chunk. */
int hs_session_read_rewind(struct hs_session_reader *r);
void hs_session_read_close(struct hs_session_reader *r);

/* ---- runs ---- */

struct hs_param_set;

struct hs_run_record {
	int64_t			session;
	const char		*policy;	/* ops->name */
	const char		*params_json;	/* the params column: a JSON object */
	const struct hs_param_set *params;	/* the policy's typed parameters, may be NULL;
						 * decide runs.opt_reference (opt, bypass false) */
	const struct hs_sim_stats *stats;
	const struct hs_metrics	*metrics;	/* policy-specific, may be NULL */
	const struct hs_gen_sample *gens;	/* generations over time, may be NULL */
	size_t			nr_gens;	/* entries in gens */
	double			wall_s;		/* replay time of this run */
	const struct hs_evlog	*evlog;		/* its eviction log (finished), stored as
						 * run_evictions rows; may be NULL */
};

/*
 * Store runs in one transaction; ids[i] receives run i's id.  ids may be NULL.
 * runs.opt_gap of the sessions' runs is brought up to date (hsctl-db(5)).
 */
int hs_store_save_runs(struct hs_store *st, const struct hs_run_record *runs, size_t n,
		       int64_t *ids);


/*
 * The OPT gap: a run's misses over those of the newest demand-paging OPT run
 * (policy opt, bypass false) of its session at its capacity; NAN where there
 * is none.  hs_store_run_opt_gaps() reads the stored runs.opt_gap of runs;
 * hs_store_opt_gaps() gives what it would be for @runs (one session) if they
 * were stored now.  Return: 0, -ENOENT for a run id not stored, or -errno.
 */
int hs_store_run_opt_gaps(struct hs_store *st, const int64_t *ids, size_t n, double *gaps);
int hs_store_opt_gaps(struct hs_store *st, const struct hs_run_record *runs, size_t n,
		      double *gaps);

/* ---- miss-ratio curves (lib/store-mrc.c) ---- */

struct hs_mrc_point {
	uint64_t		size;		/* units */
	uint64_t		hits;
	uint64_t		misses;
};

struct hs_mrc_record {
	int64_t			session;
	const char		*policy;	/* ops->name */
	const char		*params_json;	/* NULL: "{}" */
	const char		*method;	/* "stack" (one pass) or "replay" */
	uint64_t		accesses;
	double			wall_s;		/* time spent on this curve */
	double			sample_rate;	/* SHARDS rate; 0 or 1: exact */
	const struct hs_mrc_point *points;
	size_t			nr_points;
};

int hs_store_save_mrc(struct hs_store *st, const struct hs_mrc_record *curves, size_t n,
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

/* ---- transactions around many small writes (the recorder's spool) ---- */

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK on @st; -EBUSY while a session writer is open. */
int hs_store_tx_begin(struct hs_store *st);
int hs_store_tx_commit(struct hs_store *st);
void hs_store_tx_rollback(struct hs_store *st);

/* ---- recorded sessions (hsctl record; schema 2, see hsctl-db(5)) ---- */

struct hs_folio_life;		/* lib/life.h */
struct hs_lc_key;		/* lib/life.h */
struct hs_lifecycle_checks;	/* lib/lifecycle.h */
struct hs_lrugen;		/* lib/lrugen.h */
struct hs_event;		/* lib/event.h */

/* The pseudo-CPU of the spool that holds a workload's own touches (struct hs_touch). */
#define HS_SPOOL_TOUCHES	(-1)

/**
 * struct hs_record_meta - what a recording is, known when it starts
 */
struct hs_record_meta {
	const char	*name;		/* user's name; NULL: derived from origin */
	const char	*origin;	/* the command line, or "workload scan-twice" */
	const char	*workload;	/* built-in workload name, NULL for a command */
	const char	*params_json;	/* workload/record options as a JSON object, or NULL */
	const char	*kind;		/* "file" / "anon": the session's default type */
	const char	*channel;	/* "pt" / "fd" */
	const char	*visibility;	/* "exact", "sampled", "faults" */
	const char	*kernel;	/* uname -r */
	const char	*lru_gen;	/* "absent", or /sys/kernel/mm/lru_gen/enabled ("0x0007") */
	const char	*clock;		/* trace clock, "mono" */
	const char	*instance;	/* tracefs instance name */
	const char	*cgroup;	/* cgroup path, or NULL */
	int		cgroup_version;	/* 1, 2, or 0 without a cgroup */
	uint64_t	memory_limit_pages; /* the limit in pages, 0 for none */
	unsigned int	buffer_kb;	/* per-CPU ring buffer */
	unsigned int	page_size;	/* bytes */
	const char	*events_json;	/* enabled events: ["filemap:mm_filemap_add_to_page_cache", ..] */
};

/**
 * hs_record_create() - register a recording that is about to start
 * @st: the store
 * @m: what it is
 * @session: receives the new session's id
 *
 * Inserts and commits a sessions row in status 'recording' (with this
 * process's pid and host in its recordings row) so that the spool can
 * refer to it and a later process can find it if this one dies.
 *
 * Return: 0, -EINVAL, -EPERM (read-only), -EBUSY, -ENOMEM, -EIO.
 */
int hs_record_create(struct hs_store *st, const struct hs_record_meta *m, int64_t *session);

/**
 * hs_record_save_format() - keep one tracefs format file with the recording
 * @st: the store
 * @session: the recording's session
 * @path: relative to the tracing dir: "events/header_page", "events/filemap/x/format"
 * @text: its content
 * @len: its length
 *
 * With them the raw spool can be decoded later by another process (a
 * recording whose hsctl was killed).
 *
 * Return: 0 or -errno.
 */
int hs_record_save_format(struct hs_store *st, int64_t session, const char *path,
			  const void *text, size_t len);

/**
 * hs_record_formats() - the saved format files
 * @st: the store
 * @session: the session
 * @cb: called per file; a non-zero return stops and is returned
 * @arg: passed to @cb
 *
 * Return: 0, -ENOENT (none saved), -errno, or @cb's value.
 */
int hs_record_formats(struct hs_store *st, int64_t session,
		      int (*cb)(void *arg, const char *path, const void *text, size_t len),
		      void *arg);

/**
 * hs_spool_add() - append one raw sub-buffer (or touch batch) to the spool
 * @st: the store (inside hs_store_tx_begin() for speed, or not)
 * @session: the recording's session
 * @cpu: the CPU, or HS_SPOOL_TOUCHES
 * @seq: 0, 1, 2, ... per (session, cpu)
 * @data: the bytes
 * @len: their length
 *
 * Return: 0 or -errno.
 */
int hs_spool_add(struct hs_store *st, int64_t session, int cpu, uint64_t seq, const void *data,
		 size_t len);

/**
 * hs_spool_cpus() - which CPUs the spool holds (HS_SPOOL_TOUCHES included)
 * @st: the store
 * @session: the session
 * @cpus: receives a malloc'ed array, ascending (free it)
 * @n: receives its length
 *
 * Return: 0 or -errno.
 */
int hs_spool_cpus(struct hs_store *st, int64_t session, int **cpus, size_t *n);

struct hs_spool_reader;

/**
 * hs_spool_open() - read one CPU's spool in seq order
 * @st: the store; several readers may be open at once, and a session writer
 *	may write while they read
 * @session: the session
 * @cpu: the CPU or HS_SPOOL_TOUCHES
 * @out: the reader
 *
 * Return: 0 or -errno.
 */
int hs_spool_open(struct hs_store *st, int64_t session, int cpu, struct hs_spool_reader **out);

/* Next blob: 1 with data/len set (valid until the next call), 0 at the end, or -errno. */
int hs_spool_next(struct hs_spool_reader *r, const void **data, size_t *len);
void hs_spool_close(struct hs_spool_reader *r);

/* Delete the session's spool (after a successful build).  Return: 0 or -errno. */
int hs_spool_drop(struct hs_store *st, int64_t session);

/**
 * struct hs_stale_recording - a recording whose process is gone
 */
struct hs_stale_recording {
	int64_t		session;	/* its session */
	int32_t		pid;		/* the hsctl process that recorded it */
	char		host[64];	/* where */
};

/**
 * hs_record_list_open() - sessions still in status 'recording'
 * @st: the store
 * @out: receives a malloc'ed array (free it)
 * @n: receives its length
 *
 * The caller decides which are stale (pid dead on this host).
 *
 * Return: 0 or -errno.
 */
int hs_record_list_open(struct hs_store *st, struct hs_stale_recording **out, size_t *n);

/**
 * struct hs_record_result - what the recording gave, stored by hs_rec_finish()
 */
struct hs_record_result {
	const char	*status;	/* "complete", "interrupted", "timeout", "killed" */
	int		workload_exit;	/* exit status, or -1 when it was killed by a signal
					 * or never ran */
	int		workload_signal; /* the signal that killed it, else 0 */
	uint64_t	runtime_ns;	/* workload runtime */
	uint64_t	lost_events;	/* exact, from the per-CPU stats */
	uint64_t	lost_gaps;	/* gaps flagged in-band (HS_EV_LOST) */
	uint64_t	subbufs;	/* raw sub-buffers read */
	uint64_t	bytes;		/* their bytes */
	uint64_t	events;		/* kernel events decoded */
	uint64_t	touches;	/* workload touches logged */
	uint64_t	peak_pages;	/* the cgroup's peak usage in pages, 0 if unknown */
	double		record_cpu_s;	/* hsctl's CPU time while recording */
	double		build_s;	/* time to build lives and the stream */
};

/**
 * struct hs_task_seen - one sighting of a task's name by the recorder
 *
 * The name was the task's at some instant t with lo_ns < t <= hi_ns (trace
 * clock); lo_ns == hi_ns: at hi_ns exactly (/proc/PID/comm read then).
 * hs_rec_add_tasks() turns sightings into tasks rows.
 */
struct hs_task_seen {
	int32_t		pid;		/* the task (thread id, common_pid) */
	uint64_t	lo_ns;		/* after this ... */
	uint64_t	hi_ns;		/* ... and at or before this */
	char		comm[16];	/* the name, NUL-terminated (TASK_COMM_LEN) */
};

/*
 * The following write into a session writer opened on the recording's
 * session (hs_session_meta.id), inside its transaction.  Return: 0 or -errno
 * (the writer then fails its commit).
 */
int hs_rec_add_event(struct hs_session_writer *w, const struct hs_event *ev);
int hs_rec_add_life(struct hs_session_writer *w, uint64_t life, const struct hs_folio_life *l);
int hs_rec_add_key(struct hs_session_writer *w, uint64_t key, const struct hs_lc_key *k);
/* @file: "memory.stat", "vmstat", "cachestat"; @scope: "cgroup", "machine", "file:<path>" */
int hs_rec_add_counter(struct hs_session_writer *w, const char *file, const char *scope,
		       const char *name, uint64_t before, uint64_t after);
/* @status: "ok", "differs", "n/a"; @got/@want: the two sides; @note: one line or NULL */
int hs_rec_add_check(struct hs_session_writer *w, const char *name, const char *status,
		     double got, double want, const char *note);
int hs_rec_add_cpu(struct hs_session_writer *w, int cpu, uint64_t subbufs, uint64_t bytes,
		   uint64_t events, uint64_t overrun, uint64_t commit_overrun, uint64_t dropped);
/* One lru_gen snapshot taken at @ts_ns (trace clock): a row per (memcg, node, gen). */
int hs_rec_add_lrugen(struct hs_session_writer *w, uint64_t ts_ns, const struct hs_lrugen *lg);
/* Task names from @n sightings, checked against the events stored so far: hsctl-db(5) tasks. */
int hs_rec_add_tasks(struct hs_session_writer *w, const struct hs_task_seen *seen, size_t n);
int hs_rec_finish(struct hs_session_writer *w, const struct hs_record_result *r);

/*
 * The kernel row of a recorded session (view v_kernel, hsctl-db(5)): what the
 * kernel did to the workload's own pages, in pages, beside the policies.
 */
struct hs_kernel_row {
	uint64_t	capacity;		/* the memory limit in pages; 0: none known */
	uint64_t	lives;			/* the workload's folio lives (folios) */
	uint64_t	pages;			/* pages they covered */
	uint64_t	demand_miss_pages;	/* seen births not read ahead */
	uint64_t	readahead_pages;	/* pages of readahead lives */
	uint64_t	readahead_unused_pages;	/* of them, never accessed */
	uint64_t	refault_pages;		/* pages of refault lives */
	uint64_t	evicted_pages;		/* pages that died by reclaim or pageout */
	uint64_t	pswpin_pages;		/* swapped in (pswp_source says how known) */
	uint64_t	pswpout_pages;		/* swapped out */
	char		pswp_source[16];	/* "memory.stat" or "lives" */
	int		readahead_traced;	/* 1: the kernel has readahead events (6.18+);
						 * 2: it has none, and readahead was inferred
						 * from the filemap adds (lib/lc-stream.c);
						 * 0: it has none, and the pages it read ahead
						 * count as demand misses; -1: not known */
};
int hs_store_kernel_row(struct hs_store *st, int64_t session, struct hs_kernel_row *out);
/* ---- what hsctl fidelity reads (lib/store-fid.c) ---- */

/* Original ids of a session's keys in dense order: (*ids)[dense] (malloc'd). */
int hs_session_key_ids(struct hs_store *st, int64_t session, uint64_t **ids, uint64_t *n);

/*
 * The real addresses of a recorded session's keys (lib/neigh.h), for the
 * kernel models' look-around: *out NULL when the session has none.
 */
struct hs_neigh;
int hs_session_neigh(struct hs_store *st, int64_t session, uint32_t nr_keys,
		     struct hs_neigh **out);

/**
 * hs_session_tlb_flushes() - when the workload's TLB lost every translation
 * @st: the store
 * @session: a session
 * @ts: receives the trace-clock times, ascending (malloc'd; NULL when none);
 *	NULL: only whether the session carries them, and @entries (no scan of
 *	the events)
 * @n: receives how many (may be NULL with @ts NULL)
 * @entries: receives the CPU's TLB entries for 4 KiB pages the recording
 *	found (sessions.params tlb_entries), or 0 when it says none
 *
 * A recording's TLB events (lib/recorder.c, kept in the events table): full
 * flushes on the workload's CPU while it ran (tlb:tlb_flush, TLB_FLUSH_ALL),
 * its switches in from another task and its migrations.
 *
 * Return: 0 (also with none: the translations lived all along); -ENODATA
 * when the session does not carry them (not a recording, recorded without
 * them, or a kernel without tlb:tlb_flush); -errno.
 */
int hs_session_tlb_flushes(struct hs_store *st, int64_t session, uint64_t **ts, size_t *n,
			   uint32_t *entries);

/**
 * hs_session_memcg_flushes() - when the workload's memory cgroup statistics were flushed
 * @st: the store
 * @session: a session
 * @ts: receives the trace-clock times, ascending (malloc'd; NULL when none)
 * @n: receives how many
 *
 * A recording's memcg:memcg_flush_stats events (lib/recorder.c, kept in the
 * events table): the flushes that folded the workload's cgroup's statistics
 * in (of it or an ancestor, forced or with updates pending).
 *
 * Return: 0 (also with none in the run); -ENODATA when the session does not
 * carry them (not a recording, recorded with --no-events, or a kernel
 * without the tracepoint: before 6.13); -errno.
 */
int hs_session_memcg_flushes(struct hs_store *st, int64_t session, uint64_t **ts, size_t *n);

/**
 * hs_session_memcg_reclaim_max() - the most pages one memory cgroup reclaim freed
 * @st: the store
 * @session: a session
 * @max: receives it (nr_reclaimed of vmscan:mm_vmscan_memcg_reclaim_end) for a
 *	recording of an MGLRU kernel (lru_gen/enabled's bit 0 set), or 0: none
 *	such (not a recording, another LRU, recorded without events, or no
 *	reclaim ran)
 *
 * How the MGLRU kernel's reclaims ran on this stream (reclaim_loop=auto,
 * hsctl-policies(7)); another LRU's reclaims say nothing of that.
 *
 * Return: 0 or -errno.
 */
int hs_session_memcg_reclaim_max(struct hs_store *st, int64_t session, uint64_t *max);

/**
 * struct hs_rec_page - one page of one folio life of a recorded session
 * @key: the page's original key id (record_keys.key)
 * @born_ns: the life's birth (trace clock); 0 for an unseen birth
 * @died_ns: its death; 0 while alive at the end
 * @cause: enum hs_death_cause
 * @flags: the life's HS_LIFE_F_* flags
 * @pages: the life's pages (its folio's size: 2^folio_order)
 * @life: the life's number (folio_lives.life)
 * @pfn: the page's frame (the life's head pfn plus its place in the folio),
 *	 UINT64_MAX when the life's pfn is unknown
 */
struct hs_rec_page {
	uint64_t	key;
	uint64_t	born_ns;
	uint64_t	died_ns;
	uint8_t		cause;
	uint8_t		flags;
	uint32_t	pages;
	int64_t		life;
	uint64_t	pfn;
};

/* Every life cut into the pages the stream's key table names; see store-fid.c. */
int hs_rec_pages(struct hs_store *st, int64_t session, struct hs_rec_page **out, size_t *n,
		 uint64_t *unkeyed);

/*
 * The lost-event gaps of a recorded session, as trace-clock windows
 * [start_ns, end_ns]: from the last event kept on the CPU that lost events to
 * the marker of the loss.  Sorted by start, possibly overlapping.
 */
struct hs_rec_gap {
	uint64_t	start_ns;
	uint64_t	end_ns;
};
int hs_rec_gaps(struct hs_store *st, int64_t session, struct hs_rec_gap **out, size_t *n);

/* The kernel release and lru_gen state a session was recorded on; -ENOENT if none. */
int hs_rec_kernel(struct hs_store *st, int64_t session, char *release, size_t len_release,
		  char *lru_gen, size_t len_lru_gen);

/*
 * One row of `hsctl fidelity` (table fidelity, view v_fidelity): a model (or
 * "random", the baseline, or "kernel", another recording) against the kernel's reclaims of a session, with
 * the figures of analyzers/fidelity.h.  @have_totals: the model_ and kernel_
 * totals are known (else stored as NULL).
 */
#define HS_FID_NR_WINDOWS	3
struct hs_fid_record {
	int64_t		session;
	int64_t		against;			/* policy "kernel": the other
							 * recording; else 0 (NULL) */
	const char	*policy;
	const char	*params_json;
	uint64_t	capacity;
	uint64_t	window[HS_FID_NR_WINDOWS];	/* capacity/16, /4, /1 */
	uint64_t	matched[HS_FID_NR_WINDOWS];
	uint64_t	kernel_reclaims;
	uint64_t	evictions;
	uint64_t	kernel_pages;
	uint64_t	model_pages;
	uint64_t	both_pages;
	double		jaccard;			/* NaN: NULL */
	double		correlation;			/* NaN: NULL */
	int64_t		median_lag;
	uint64_t	lag_pairs;			/* 0: median_lag NULL */
	uint64_t	kernel_refaults;
	uint64_t	model_refaults;
	uint64_t	both_refaults;
	uint64_t	gap_accesses;
	bool		have_totals;
	uint64_t	model_misses, kernel_misses;
	uint64_t	model_pswpin, kernel_pswpin;
	uint64_t	model_pswpout, kernel_pswpout;
};
/* Store rows in one transaction; ids[i] receives row i's id (may be NULL). */
int hs_store_save_fidelity(struct hs_store *st, const struct hs_fid_record *rows, size_t n,
			   int64_t *ids);

#endif /* HS_STORE_H */
