/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a recording into its session: lib/recbuild.c decodes the spool
 * into events, lives and the stream; here the recorder adds what it knows
 * beside the kernel's events, in the same transaction: the /proc/vmstat and
 * memory.stat deltas, its own checks (swap-outs and swap-ins against the
 * machine's counters, the touched file's pages still alive against
 * cachestat(2), reclaim deaths against the *_reclaim_end events), the
 * per-CPU capture counts, the lru_gen snapshots and the task names
 * (lib/recorder-comm.c), then the recording's result row.  A recording
 * whose recorder died is built the same way from what the store kept
 * (status "killed", no counters, no task names).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cgroup.h"
#include "hs.h"
#include "lifecycle.h"
#include "lrugen.h"
#include "recbuild.h"
#include "recorder-int.h"
#include "store.h"
#include "workload.h"

/* kswapd threads, from /proc/<pid>/comm. */
static size_t find_kswapd(int32_t *pids, size_t max)
{
	char path[64], *comm;
	struct dirent *de;
	size_t n = 0, len;
	DIR *d = opendir("/proc");
	long pid;

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (rec_read_text(path, &comm, &len))
			continue;
		if (!strncmp(comm, "kswapd", 6))
			pids[n++] = (int32_t)pid;
		free(comm);
	}
	closedir(d);
	return n;
}

static int add_kv_deltas(struct hs_session_writer *w, const char *file, const char *scope,
			 const struct hs_kvlist *before, const struct hs_kvlist *after)
{
	uint64_t b;
	size_t i;
	int err;

	if (!before || !after)
		return 0;
	for (i = 0; i < after->n; i++) {
		if (hs_kvlist_get(before, after->kv[i].name, &b))
			continue;
		err = hs_rec_add_counter(w, file, scope, after->kv[i].name, b, after->kv[i].value);
		if (err)
			return err;
	}
	return 0;
}

static uint64_t kv_delta(const struct hs_kvlist *before, const struct hs_kvlist *after,
			 const char *name, bool *found)
{
	uint64_t b, a;

	*found = before && after && !hs_kvlist_get(before, name, &b) &&
		 !hs_kvlist_get(after, name, &a);
	return *found && a >= b ? a - b : 0;
}

/*
 * A swap check: @got against the machine's @counter delta.  A zero-filled
 * page is not written to the swap device (6.12+): it counts as @zero
 * (swpout_zero, swpin_zero), not as pswpout/pswpin, so both are added.
 */
static int add_swap_check(struct hs_session_writer *w, const struct rec_build_in *in,
			  const char *name, uint64_t got, const char *counter, const char *zero,
			  const char *what, const char *tail)
{
	bool found, zfound;
	char note[256];
	uint64_t d;

	d = kv_delta(in->vm[0], in->vm[1], counter, &found) +
	    kv_delta(in->vm[0], in->vm[1], zero, &zfound);
	snprintf(note, sizeof(note), "%s vs the machine's %s%s%s delta%s", what, counter,
		 zfound ? " + " : "", zfound ? zero : "", tail);
	return hs_rec_add_check(w, name, !found ? "n/a" : got == d ? "ok" : "differs",
				(double)got, (double)d, note);
}

/* The recorder's own checks, beside the lifecycle builder's. */
static int add_checks(struct hs_session_writer *w, const struct rec_build_in *in,
		      const struct hs_lifecycle_checks *ck, uint64_t file_alive)
{
	char note[256];
	int err;

	err = add_swap_check(w, in, "swap-out", ck->swap_outs, "pswpout", "swpout_zero",
			     "anon lives ended by swap-out (write_folio)", ", which counts every "
			     "process");
	if (!err)
		err = add_swap_check(w, in, "swap-in", ck->swap_ins, "pswpin", "swpin_zero",
				     "inferred swap-ins (faults on swapped-out pages)", "");
	if (err)
		return err;
	if (in->cache_known) {
		snprintf(note, sizeof(note), "pages of the workload's file alive at the end vs "
			 "cachestat(2) nr_cache");
		err = hs_rec_add_check(w, "cachestat", file_alive == in->cache_pages ? "ok"
										      : "differs",
				       (double)file_alive, (double)in->cache_pages, note);
		if (err)
			return err;
	} else if (in->cache_err) {
		snprintf(note, sizeof(note), "cachestat(2) of the workload's file: %s%s",
			 strerror(-in->cache_err),
			 in->cache_err == -ENOSYS ? " (the syscall is Linux 6.5+)" : "");
		err = hs_rec_add_check(w, "cachestat", "n/a", 0, 0, note);
		if (err)
			return err;
	}
	/*
	 * Kernels without mm_vmscan_lru_shrink_inactive (6.1 with MGLRU) still
	 * close every memcg/direct/node reclaim with its nr_reclaimed: the
	 * deaths inside those windows must add up to it (kswapd has no end
	 * event, so its reclaim makes the deaths larger).
	 */
	snprintf(note, sizeof(note), "pages of lives that died by reclaim vs the sum of "
		 "nr_reclaimed of the *_reclaim_end events (kswapd has none)");
	err = hs_rec_add_check(w, "reclaim-end",
			       ck->reclaim_death_pages == ck->reclaim_end_reclaimed ? "ok"
										 : "differs",
			       (double)ck->reclaim_death_pages, (double)ck->reclaim_end_reclaimed,
			       note);
	if (err)
		return err;
	return 0;
}

static int add_cpus(struct hs_session_writer *w, const struct rec_build_in *in)
{
	const struct hs_capture_cpu *c;
	unsigned int i;
	uint64_t ev;
	int err;

	if (!in->cs)
		return 0;
	for (i = 0; i < in->cs->nr_cpus; i++) {
		c = &in->cs->cpu[i];
		/* the kernel's own count of events read from this CPU's buffer */
		ev = c->read_events;
		err = hs_rec_add_cpu(w, (int)i, c->subbufs, c->bytes, ev, c->overrun,
				     c->commit_overrun, c->dropped);
		if (err)
			return err;
	}
	return 0;
}

static int add_lrugen(struct hs_session_writer *w, const struct rec_lrugen_log *lg)
{
	struct hs_lrugen *p;
	char perr[128];
	size_t i;
	int err;

	for (i = 0; lg && i < lg->n; i++) {
		if (hs_lrugen_parse(lg->snap[i].text, lg->snap[i].len, &p, perr, sizeof(perr)))
			continue;	/* an unparsable snapshot is skipped, not fatal */
		err = hs_rec_add_lrugen(w, lg->snap[i].ts_ns, p);
		hs_lrugen_free(p);
		if (err)
			return err;
	}
	return 0;
}

/**
 * rec_build_session() - build a recording, add the recorder's rows, commit
 * @st: the store
 * @in: what is known of the recording; in->res is completed here
 * @sum: receives the summary's build counts (session, status, events, ...)
 * @errbuf: receives a one-line reason on failure
 * @errlen: its size
 *
 * Return: 0 or -errno (nothing of the build is kept).
 */
int rec_build_session(struct hs_store *st, struct rec_build_in *in,
		      struct hs_recorder_summary *sum, char *errbuf, size_t errlen)
{
	struct hs_recbuild_opts o = { 0 };
	struct hs_recbuild_result br = { 0 };
	struct hs_lifecycle_checks ck = { 0 };
	struct hs_session_writer *w = NULL;
	struct hs_session_info si;
	int32_t kswapd[64];
	uint64_t t0 = rec_now_ns();
	int err;

	o.decoder = in->dec;
	o.meta.source = "record";
	o.meta.id = in->session;
	o.meta.status = in->status;
	o.meta.unit = "page";
	if (in->rm) {
		o.meta.name = in->rm->name;
		o.meta.origin = in->rm->origin;
		o.meta.format = in->rm->workload ? in->rm->workload : "command";
		o.meta.kind = in->rm->kind;
		o.meta.channel = in->rm->channel;
		o.meta.params_json = in->rm->params_json;
		o.meta.visibility = in->rm->visibility;
		o.touch_only = in->wl != NULL;
	} else {
		o.meta.format = "recovered";
		o.meta.visibility = "faults";
	}
	o.workload_pid = in->pid;
	o.no_events = in->no_events;
	if (in->wl && hs_workload_file(in->wl, &o.touch_dev, &o.touch_ino))
		o.touch_dev = o.touch_ino = 0;
	o.nr_kswapd = find_kswapd(kswapd, ARRAY_SIZE(kswapd));
	o.kswapd_pids = kswapd;

	err = hs_recbuild(st, &o, &w, &ck, &br, errbuf, errlen);
	if (err)
		return err;
	rec_test_pause(in->pause_at, "build");	/* the build's transaction is open */
	in->res.status = in->status;
	in->res.events = br.events;
	in->res.touches = br.touches;
	in->res.lost_gaps = br.gaps;
	err = add_kv_deltas(w, "vmstat", "machine", in->vm[0], in->vm[1]);
	if (!err)
		err = add_kv_deltas(w, "memory.stat", "cgroup", in->ms[0], in->ms[1]);
	if (!err)
		err = add_checks(w, in, &ck, br.touch_file_alive);
	if (!err)
		err = add_cpus(w, in);
	if (!err)
		err = add_lrugen(w, in->lg);
	/* names for the events' pids; with --no-events there are none to name */
	if (!err && in->comms && !in->no_events)
		err = hs_rec_add_tasks(w, in->comms->seen, in->comms->nr_seen);
	in->res.build_s = (double)(rec_now_ns() - t0) / 1e9;
	if (!err)
		err = hs_rec_finish(w, &in->res);
	if (err) {
		snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
		hs_session_abort(w);
		return err;
	}
	err = hs_session_commit(w, NULL);
	if (err) {
		snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
		return err;
	}

	sum->session = in->session;
	sum->status = in->status;
	sum->events = br.events;
	sum->touches = br.touches;
	sum->lives = br.lives;
	sum->reclaimed = ck.death_pages[HS_DEATH_RECLAIM];
	sum->refaults = ck.refaults;
	sum->life_pages = 0;
	for (int c = 0; c < HS_DEATH_NR; c++)
		sum->life_pages += ck.death_pages[c];
	sum->has_kernel = !hs_store_kernel_row(st, in->session, &sum->kernel);
	sum->build_s = in->res.build_s;
	sum->rows = br.rows;
	if (!hs_session_get(st, in->session, &si))
		sum->accesses = si.accesses;
	return 0;
}

/* A line for the note callback, printf-style. */
static void note(hs_recorder_note_fn fn, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(hs_recorder_note_fn fn, void *arg, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(arg, HS_RECORDER_WARN, msg);
}

/**
 * rec_recover_sessions() - build the sessions of recorders that died
 * @st: the store
 * @dead: sessions whose recorder is known dead (from its undo note), may be NULL
 * @nr_dead: their number
 * @fn: told about every one (a warning), may be NULL
 * @arg: its first argument
 *
 * A session in status 'recording' is built as "killed" (its spool files
 * moved into the store first) and its spool dropped (kept, with a warning, when dropping it fails) when it is in
 * @dead, or when it was recorded on this host by a pid that is gone.
 *
 * Return: the number of sessions built, or -errno of the listing.
 */
int rec_recover_sessions(struct hs_store *st, const int64_t *dead, size_t nr_dead,
			 hs_recorder_note_fn fn, void *arg)
{
	struct hs_stale_recording *sr = NULL;
	struct hs_recorder_summary sum = { 0 };
	char host[64] = "", errbuf[512], *spool;
	size_t i, j, n = 0;
	int err, built = 0;
	bool known;

	err = hs_record_list_open(st, &sr, &n);
	if (err)
		return err;
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	for (i = 0; i < n; i++) {
		struct rec_build_in in = { .session = sr[i].session, .status = "killed" };

		for (j = 0, known = false; j < nr_dead && !known; j++)
			known = dead[j] == sr[i].session;
		if (!known && (strcmp(sr[i].host, host) || sr[i].pid <= 0 ||
			       !(kill(sr[i].pid, 0) && errno == ESRCH)))
			continue;
		in.res.workload_exit = -1;
		/* what it spooled to files first (a recorder dies before it moves them) */
		spool = rec_spool_dir(hs_store_path(st), sr[i].session);
		err = spool ? rec_spool_import(st, sr[i].session, spool, errbuf, sizeof(errbuf))
			    : -ENOMEM;
		if (err == -ENOMEM && !spool)
			snprintf(errbuf, sizeof(errbuf), "%s", strerror(ENOMEM));
		free(spool);
		if (err) {
			note(fn, arg, "session %" PRId64
			     " of a killed recorder (pid %d) could not be built: spool: %s",
			     sr[i].session, (int)sr[i].pid, errbuf);
			continue;
		}
		err = rec_build_session(st, &in, &sum, errbuf, sizeof(errbuf));
		if (err) {
			note(fn, arg, "session %" PRId64
			     " of a killed recorder (pid %d) could not be built: %s",
			     sr[i].session, (int)sr[i].pid, errbuf);
			continue;
		}
		if (hs_spool_drop(st, sr[i].session))
			note(fn, arg, "spool of session %" PRId64 ": %s (kept)", sr[i].session,
			     hs_store_errmsg(st));
		note(fn, arg, "session %" PRId64
		     " of a killed recorder (pid %d) built from its spool: %" PRIu64
		     " events, status killed", sr[i].session, (int)sr[i].pid, sum.events);
		built++;
	}
	free(sr);
	return built;
}

/**
 * hs_recorder_recover_stale() - build the recordings of recorders that died
 * @st: the store
 * @fn: told about every one (a warning), may be NULL
 * @arg: its first argument
 *
 * Same host, pid gone: built as "killed" and the spool dropped.
 *
 * Return: the number of sessions built, or -errno of the listing.
 */
int hs_recorder_recover_stale(struct hs_store *st, hs_recorder_note_fn fn, void *arg)
{
	return rec_recover_sessions(st, NULL, 0, fn, arg);
}
