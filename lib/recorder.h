/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder: one recording of a workload under a memory limit, from the
 * tracefs instance to the built session.  `hsctl record` is its command
 * line (options, the progress line, the summary, exit statuses); everything
 * else of a recording lives behind struct hs_recorder:
 *
 *  new      validates the options, needs root, prepares a built-in workload
 *           (its data file);
 *  start    the tracefs capture (lib/capture.c) and its decoder, the memory
 *           cgroup (lib/cgroup.c), the session row in status 'recording'
 *           with the format files, the workload's process (forked before any
 *           thread, held until tracing is on), the spool writer thread and a
 *           built-in workload's touch reader (lib/recorder-spool.c);
 *  wait     runs the recording: lru_gen snapshots, the end of the workload,
 *           --duration, a stop request; then the workload is stopped,
 *           tracing turned off, the spool drained and the counters taken;
 *  stop     asks for that end from a signal handler or another thread;
 *  build    decodes the spool into the session (lib/recbuild.c) with the
 *           recorder's own counters and checks (lib/recorder-build.c);
 *  free     undoes whatever is left: the workload, threads, cgroup, tracefs
 *           instance, data file.
 *
 * Every change to the host (data file, tracefs instance and mount, cgroup,
 * numa_balancing, the session's spool) is written in the recorder's undo
 * note (lib/undo.h) before it is made and marked undone when it was.  A
 * recording whose process was killed is cleaned up and built later, as
 * status "killed", by hs_recorder_recover() (lib/recorder-undo.c).  lib/ never prints: failures come
 * back as -errno with a one-line message in hs_recorder_errmsg(), warnings go
 * to the note callback.  Needs root.
 */
#ifndef HS_RECORDER_H
#define HS_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct hs_recorder;
struct hs_store;
struct hs_workload_opts;

/* How bad a note is: a warning, or a debug line (`hsctl -v`). */
enum hs_recorder_level {
	HS_RECORDER_WARN,
	HS_RECORDER_INFO,
};

/* Called with one line (no newline) the caller may show; may be NULL. */
typedef void (*hs_recorder_note_fn)(void *arg, enum hs_recorder_level level, const char *msg);

/**
 * struct hs_recorder_opts - one recording; zero fields take the defaults
 */
struct hs_recorder_opts {
	uint64_t	limit_bytes;	/* memory cgroup limit; 0: none (the cgroup only scopes),
					 * else at least 1 MiB */
	double		duration;	/* stop after this many seconds (status timeout); 0: none */
	unsigned int	buffer_kb;	/* per-CPU ring buffer, KiB (8 .. 4194304); 0: 8192 */
	const char	*name;		/* session name; NULL: the command or workload */
	const struct hs_workload_opts *workload; /* a built-in workload, or NULL */
	char *const	*cmd;		/* or a command: NULL-terminated argv */
	bool		no_events;	/* no events table rows */
	bool		no_tlb_events;	/* not the workload's TLB flushes, switches and
					 * migrations (recorded by default: lib/recorder.c
					 * tlb_wanted()) */
	bool		keep_spool;	/* keep the raw spool after the build */
	bool		sample_numa;	/* sample a command's accesses (NUMA hinting faults) */
	bool		count;		/* decode while recording for hs_recorder_progress() */
	const char	*db_name;	/* the database's file, in messages and in the undo
					 * note; NULL: "database" */
	const char	*run_dir;	/* where the undo note goes (lib/undo.h); NULL:
					 * HS_UNDO_DIR, /run/hsctl */
	const char	*pause_at;	/* tests only: stop the process (SIGSTOP) at
					 * "workload" (all set up, the workload not yet
					 * released) or "build" (inside the build's
					 * transaction); NULL: never */
	hs_recorder_note_fn note;	/* warnings and debug lines; NULL: dropped */
	void		*note_arg;	/* its first argument */
};

/**
 * struct hs_recorder_summary - what a built recording gave
 */
struct hs_recorder_summary {
	int64_t		session;	/* the new session */
	const char	*status;	/* complete, interrupted, timeout */
	int		wexit;		/* workload exit status, -1 if signalled */
	int		wsig;		/* the signal, or 0 */
	double		runtime_s;	/* workload runtime */
	uint64_t	events;		/* kernel events */
	uint64_t	lost;		/* exact loss */
	uint64_t	touches;	/* workload touches */
	uint64_t	lives;		/* folio lives (folios) */
	uint64_t	life_pages;	/* pages they covered */
	uint64_t	reclaimed;	/* pages that died by reclaim (any process's) */
	uint64_t	refaults;	/* lives that were refaults (folios, not pages) */
	bool		has_kernel;	/* kernel is set */
	struct hs_kernel_row kernel;	/* the kernel row: the workload's pages (v_kernel) */
	uint64_t	accesses;	/* stream accesses */
	uint64_t	limit_pages;	/* memory limit */
	const char	*visibility;	/* exact / sampled / faults */
	double		record_cpu_s;	/* this process's CPU while recording */
	double		build_s;	/* the build */
	uint64_t	rows;		/* rows the build wrote */
};

/**
 * struct hs_recorder_progress - counts while recording (for a progress line)
 */
struct hs_recorder_progress {
	uint64_t	events;		/* records decoded (opts.count only) */
	uint64_t	folios;		/* page cache adds and anon LRU insertions (opts.count) */
	uint64_t	missed;		/* in-band lost events of known count (opts.count) */
	uint64_t	touches;	/* touch records of a built-in workload */
};

/* DAMON_LRU_SORT's module parameters (CONFIG_DAMON_LRU_SORT; the kernel's
 * Documentation/admin-guide/mm/damon/lru_sort.rst) */
#define HS_DAMON_LRU_SORT_DIR	"/sys/module/damon_lru_sort/parameters"

/**
 * hs_recorder_module_params() - a kernel module's parameters as a JSON value
 * @dir: the parameters' directory, such as HS_DAMON_LRU_SORT_DIR
 * @out: receives the text (free it): an object with one member per readable
 *	file, in name order, "Y"/"N" as true/false, a decimal as a number, any
 *	other text as a string (one trailing newline dropped); or the string
 *	"absent" when @dir does not exist (the module is not in the kernel)
 *
 * `hsctl record` stores DAMON_LRU_SORT's as sessions.params "damon_lru_sort",
 * read when the recording starts: its settings, and its statistics counters
 * (nr_lru_sorted_hot_regions ...) as they were then.  A file that cannot be
 * read (a write-only parameter) is left out.
 *
 * Return: 0, -ENOMEM, or -errno of opening @dir (-EACCES ...; *@out NULL).
 */
int hs_recorder_module_params(const char *dir, char **out);

/**
 * hs_recorder_new() - check a recording's options and prepare its workload
 * @o: the options (copied; the strings and @o->workload, @o->cmd must stay
 *	valid until hs_recorder_free())
 * @out: the recorder; on every error but -ENOMEM it is set so that
 *	hs_recorder_errmsg() can be read, and must be freed with hs_recorder_free()
 *
 * Exactly one of a workload and a command; --sample only with a command.  A
 * built-in workload's data file is created here (removed by free), and
 * written in the undo note, created then in opts.run_dir.
 *
 * Return: 0; -EINVAL (bad options; a bad workload option); -EPERM (not
 * root); -ENOMEM; other -errno of the workload's file.
 */
int hs_recorder_new(const struct hs_recorder_opts *o, struct hs_recorder **out);

/**
 * hs_recorder_errmsg() - the reason for the last failure
 * @r: the recorder
 *
 * Return: "what: why" without a newline (as `hsctl record` prints it after
 * "hsctl: "), or "".
 */
const char *hs_recorder_errmsg(const struct hs_recorder *r);

/**
 * hs_recorder_recover_stale() - build the recordings of recorders that died
 * @st: the store
 * @note: told about every one (a warning), may be NULL
 * @arg: its first argument
 *
 * A session still in status 'recording' whose hsctl process (on this host)
 * is gone is built from its spool as status "killed" and its spool dropped;
 * one that cannot be built is left as it is.  The database part of
 * hs_recorder_recover(), which also puts back what the recorder changed on
 * the host; hs_recorder_start() removes stale hsctl_<pid> instances and
 * cgroups too (lib/capture.c, lib/cgroup.c).
 *
 * Return: the number of sessions built, or -errno when the list could not be read.
 */
int hs_recorder_recover_stale(struct hs_store *st, hs_recorder_note_fn note, void *arg);

/**
 * hs_recorder_recover() - undo what killed recorders left, and build their sessions
 * @run_dir: the undo notes' directory; NULL: HS_UNDO_DIR (/run/hsctl)
 * @self: the recorder about to start (its own note is left alone), or NULL
 * @st: the database whose killed recordings to build, or NULL: none
 * @db_path: its file, to tell its sessions in the notes (NULL: none)
 * @note: one warning per item put back (or kept for later, with why) and per
 *	session built, one debug line per item that needed nothing; may be NULL
 * @arg: its first argument
 *
 * The notes of processes that are gone (their lock free; a pid alive with
 * another start time is another process) are undone item by item, in this
 * order: the cgroup (killing what still runs in it), numa_balancing and the
 * scan period (only while they hold what the recorder wrote), the tracefs
 * instance, the tracefs mount (only the very mount it made, not while a
 * live recorder uses tracefs, not while busy), the data file.  Notes of live
 * processes are left alone.  Then the sessions of @st still in status
 * 'recording' whose recorder died are built from their spool as "killed",
 * as hs_recorder_recover_stale() does; a note's session in another database
 * gets a line naming it.  Needs root for the notes.
 *
 * Return: the number of warning lines, or -errno when the notes could not
 * be read (-EACCES when not root); the sessions are built even then.
 */
int hs_recorder_recover(const char *run_dir, const struct hs_recorder *self,
			struct hs_store *st, const char *db_path, hs_recorder_note_fn note,
			void *arg);

/**
 * hs_recorder_start() - set everything up and start the workload under tracing
 * @r: the recorder, fresh from hs_recorder_new()
 * @st: the store the session goes to; used by the recorder's writer thread
 *	until hs_recorder_wait() has returned 0, and by the build
 *
 * Opens the tracefs instance and enables the recorded events, creates the
 * memory cgroup, registers the session (status 'recording') with its format
 * files, forks the workload into the cgroup, starts the spool writer (and
 * the touch reader of a built-in workload) with every signal blocked, turns
 * tracing on and releases the workload.  On failure nothing is left: no
 * session row, no workload (hs_recorder_free() removes the rest).
 *
 * Signals: none is caught or blocked here; the workload gets SIGINT,
 * SIGTERM and SIGPIPE at their defaults and no signal blocked.
 *
 * Return: 0; -ENODEV when this machine cannot record (tracefs missing or
 * refused, no memory controller, no NUMA balancing for sample_numa); other
 * -errno when the recording failed (the workload could not run, the store).
 */
int hs_recorder_start(struct hs_recorder *r, struct hs_store *st);

/**
 * hs_recorder_wait() - run the recording until it ends, or for a while
 * @r: the recorder, started
 * @timeout_s: return 1 after this many seconds if it has not ended; < 0: no limit
 *
 * The recording ends when the workload exits (status "complete"), after
 * opts.duration ("timeout": the workload's cgroup gets SIGTERM, SIGKILL 2 s
 * later) or at hs_recorder_stop() ("interrupted": the same with its
 * signal).  A stop requested while the workload exits still makes the
 * recording "interrupted" (Ctrl-C reaches the whole foreground group).
 * Then tracing is turned off, the spool drained, the counters taken and the
 * cgroup removed.  Takes lru_gen snapshots meanwhile (MGLRU kernels).
 *
 * Return: 0 ended (call hs_recorder_build()), 1 still running, or -errno
 * when the spool could not be written (the session stays in status
 * 'recording' for the next recover).
 */
int hs_recorder_wait(struct hs_recorder *r, double timeout_s);

/**
 * hs_recorder_stop() - ask the recording to end
 * @r: the recorder
 * @signo: the signal to hand the workload (SIGINT, SIGTERM; <= 0: SIGTERM),
 *	also what hs_recorder_stop_signal() reports; the first request counts
 *
 * Async-signal-safe and thread-safe: meant for a SIGINT/SIGTERM handler.
 * A request before hs_recorder_wait() ends the recording at its start.
 *
 * Return: nothing.
 */
void hs_recorder_stop(struct hs_recorder *r, int signo);

/**
 * hs_recorder_stop_signal() - the signal of the stop request that ended it
 * @r: the recorder
 *
 * Return: the signal, or 0 when the recording was not ended by hs_recorder_stop().
 */
int hs_recorder_stop_signal(const struct hs_recorder *r);

/**
 * hs_recorder_lost() - events the ring buffers lost (exact after the wait)
 * @r: the recorder
 *
 * Return: overrun + commit overrun + dropped events, over every CPU.
 */
uint64_t hs_recorder_lost(const struct hs_recorder *r);

/**
 * hs_recorder_progress() - counts so far, for a progress line
 * @r: the recorder
 * @p: receives them
 *
 * Return: nothing.
 */
void hs_recorder_progress(const struct hs_recorder *r, struct hs_recorder_progress *p);

/**
 * hs_recorder_build() - build the ended recording into its session
 * @r: the recorder, after hs_recorder_wait() returned 0
 *
 * Closes the tracefs instance, then decodes the spool into lives, stream
 * and events (lib/recbuild.c) and adds the counters, the recorder's checks,
 * the per-CPU counts and the lru_gen snapshots, in one transaction.  The
 * spool is dropped unless opts.keep_spool.
 *
 * Return: 0, or -errno (the spool is kept; a later recover retries).
 */
int hs_recorder_build(struct hs_recorder *r);

/**
 * hs_recorder_summary() - what the build gave
 * @r: the recorder, built
 *
 * Return: the summary, valid until hs_recorder_free().
 */
const struct hs_recorder_summary *hs_recorder_summary(const struct hs_recorder *r);

/**
 * hs_recorder_session() - the recording's session id
 * @r: the recorder
 *
 * Return: the id, or 0 before hs_recorder_start() registered it.
 */
int64_t hs_recorder_session(const struct hs_recorder *r);

/**
 * hs_recorder_free() - kill what still runs and free everything
 * @r: the recorder, or NULL
 *
 * A workload still running is killed (SIGKILL), the threads joined, the
 * cgroup and the tracefs instance removed, a created data file unlinked.
 * The session is left as it is: a recording never waited for stays in
 * status 'recording' for hs_recorder_recover_stale().  Does not close the store.
 *
 * Return: nothing.
 */
void hs_recorder_free(struct hs_recorder *r);

#endif /* HS_RECORDER_H */
