/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the recorder: what lib/recorder.c (the object, the workload's
 * process, the run), lib/recorder-spool.c (the spool queue, its writer
 * thread, the touch reader, the progress counts) and lib/recorder-build.c
 * (the build with the recorder's counters and checks, stale recovery)
 * share.  Nothing else may include this header.
 */
#ifndef HS_RECORDER_INT_H
#define HS_RECORDER_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fileio.h"
#include "recorder.h"
#include "store.h"

struct hs_capture_stats;
struct hs_decoder;
struct hs_kvlist;
struct hs_undo;
struct hs_workload;

uint64_t rec_now_ns(void);

/*
 * ---- the spool: raw sub-buffers and touches in files while the workload runs ----
 *
 * <database>-spool-<session>/ holds one file per CPU ("cpu<N>": whole
 * sub-buffers, spliced in by lib/capture.c), the workload's touch log
 * ("touches": struct hs_touch records) and the sub-buffer size ("subbuf",
 * decimal), for a recovery.  After the workload rec_spool_import() moves it
 * into the store's spool (record_spool) in one transaction and removes it;
 * a recovery does the same for a recorder that died first.
 */
struct rec_spool {
	char		*dir;		/* the directory, or NULL */
	int		*fd;		/* [nr_cpus + 1]: per CPU, then the touches; -1: none */
	unsigned int	nr_cpus;	/* CPUs fd[] covers */
	size_t		subbuf;		/* the kernel's sub-buffer size */
};

/* ---- what the readers count for the progress line ---- */

struct rec_cpu_count {
	struct hs_decoder *dec;		/* this CPU's own decoder (they keep stats) */
	_Atomic uint64_t events;	/* records decoded */
	_Atomic uint64_t folios;	/* page cache adds and anon LRU insertions */
	_Atomic uint64_t missed;	/* in-band lost events (known counts) */
};

/* The data path of a recording: what the capture's readers and the touch reader share. */
struct rec_io {
	struct rec_spool q;		/* the spool files */
	struct rec_cpu_count *cnt;	/* per CPU, [nr_cpus] */
	unsigned int	nr_cpus;	/* configured CPUs */
	_Atomic uint64_t touches;	/* touch records received */
	int		touch_fd;	/* read end of the touch pipe, or -1 */
	int		touch_err;	/* the touch reader's error writing the spool, or 0 */
	bool		count;		/* decode for the progress line */
};

/*
 * Whole sub-buffers of one CPU go into record_spool 16 to a row: a row per
 * sub-buffer cost SQLite's per-row work 16 times (lib/recbuild.c splits
 * rows by the sub-buffer size again).
 */
#define STAGE_SUBBUFS		16u

void rec_io_init(struct rec_io *io);
void rec_io_free(struct rec_io *io);
/* The spool directory of @session of database @db (NULL: :memory:), malloc'ed, or NULL. */
char *rec_spool_dir(const char *db, int64_t session);
/* Create the spool's directory and files (a stale one is emptied).  Return: 0 or -errno. */
int rec_spool_create(struct rec_spool *q, const char *dir, unsigned int nr_cpus, size_t subbuf,
		     char *errbuf, size_t errlen);
/* Close the spool's files (they stay). */
void rec_spool_close(struct rec_spool *q);
/*
 * Move the spool directory @dir (may be absent) into @session's record_spool
 * in one transaction, then remove it; already moved (the store has rows for
 * @session): only remove it.  Return: 0 or -errno, with the reason in @errbuf.
 */
int rec_spool_import(struct hs_store *st, int64_t session, const char *dir, char *errbuf,
		     size_t errlen);
/* Remove the spool directory @dir and its files. */
void rec_spool_remove(const char *dir);
/* hs_capture_spool_fn (arg: struct rec_io). */
int rec_spool_fd(void *arg, int cpu);
/* The touch reader thread (arg: struct rec_io). */
void *rec_touch_reader(void *arg);
/* hs_capture_subbuf_fn (arg: struct rec_io): counts for the progress line. */
int rec_on_subbuf(void *arg, int cpu, const void *buf, size_t len);

/* ---- lru_gen snapshots (kernels with MGLRU) ---- */

struct rec_lrugen_snap {
	uint64_t	ts_ns;		/* CLOCK_MONOTONIC = the mono trace clock */
	char		*text;		/* /sys/kernel/debug/lru_gen */
	size_t		len;		/* its length */
};

struct rec_lrugen_log {
	struct rec_lrugen_snap *snap;	/* taken so far */
	size_t		n;		/* their number */
	bool		enabled;	/* debugfs lru_gen is readable */
};

/* ---- task names (lib/recorder-comm.c) ---- */

#define REC_COMM_PERIOD_S	1.0	/* saved_cmdlines and the workload's /proc comm */

struct rec_cmdline;
struct hs_cgroup;

struct rec_comms {
	char		*path;		/* <tracefs>/saved_cmdlines, or NULL */
	struct rec_cmdline *cur;	/* its entries at the last read, by pid */
	size_t		nr_cur;
	size_t		cur_cap;	/* room in cur */
	struct rec_cmdline *next;	/* the next read parses here (swapped with cur) */
	size_t		next_cap;	/* room in next */
	char		*text;		/* the file's text */
	size_t		text_cap;	/* room in text */
	bool		have_cur;	/* read once */
	uint64_t	last_ns;	/* when the last read began */
	struct hs_task_seen *seen;	/* the sightings so far */
	size_t		nr_seen;
	size_t		cap;
	bool		failed;		/* out of memory: no more sightings */
};

void rec_comms_open(struct rec_comms *c, const char *tdir);
void rec_comms_take(struct rec_comms *c, const struct hs_cgroup *cg, bool last);
void rec_comms_free(struct rec_comms *c);

/* ---- building a session from the spool (lib/recorder-build.c) ---- */

struct rec_build_in {
	int64_t		session;	/* the recording */
	const char	*status;	/* its final status */
	struct hs_decoder *dec;		/* or NULL: from the saved formats */
	const struct hs_record_meta *rm; /* what was recorded (NULL: recovery) */
	struct hs_workload *wl;		/* the built-in workload, or NULL */
	int32_t		pid;		/* the workload's first task, 0: unknown */
	bool		no_events;	/* --no-events */
	const struct hs_kvlist *vm[2];	/* /proc/vmstat before, after (or NULL) */
	const struct hs_kvlist *ms[2];	/* memory.stat before, after (or NULL) */
	const struct hs_capture_stats *cs; /* capture counters (or NULL) */
	const struct rec_lrugen_log *lg; /* lru_gen snapshots (or NULL) */
	const struct rec_comms *comms;	/* task names (or NULL: none known) */
	struct hs_record_result res;	/* filled in here: events, build_s, ... */
	uint64_t	cache_pages;	/* file workloads: cachestat nr_cache at the end */
	bool		cache_known;	/* cache_pages is valid */
	int		cache_err;	/* else why not (-ENOSYS before 6.5); 0: no file */
	const char	*pause_at;	/* opts.pause_at (a test's stop point), or NULL */
};

int rec_build_session(struct hs_store *st, struct rec_build_in *in,
		      struct hs_recorder_summary *sum, char *errbuf, size_t errlen);
/* Build the 'recording' sessions of dead recorders, and those in @dead.  Return: built or -errno. */
int rec_recover_sessions(struct hs_store *st, const int64_t *dead, size_t nr_dead,
			 hs_recorder_note_fn fn, void *arg);
/* The recorder's undo note (lib/undo.h), or NULL. */
struct hs_undo *rec_undo(const struct hs_recorder *r);

/*
 * A test's stop point (hs_recorder_opts.pause_at): the whole process stops
 * itself with SIGSTOP at @here, so a test can SIGKILL it at exactly that
 * point.
 */
static inline void rec_test_pause(const char *want, const char *here)
{
	if (want && !strcmp(want, here))
		raise(SIGSTOP);
}

/*
 * Read a small kernel file whole (NUL-terminated, free it): 0 or -errno.
 * Kernel files read here are small: 16 MiB is absurd already.
 */
static inline int rec_read_text(const char *path, char **out, size_t *len)
{
	return hs_read_file(path, 16u << 20, out, len);
}

#endif /* HS_RECORDER_INT_H */
