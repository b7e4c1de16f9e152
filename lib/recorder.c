/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder object (lib/recorder.h): one recording from the tracefs
 * instance to the built session.  The work is split in two so the traced
 * workload pays as little as possible:
 *
 *  recording  one reader thread per CPU (lib/capture.c) splices raw
 *             sub-buffers into that CPU's spool file beside the database; a
 *             built-in workload's touch log arrives on a pipe and goes to a
 *             file too, so a killed recorder leaves its data behind
 *             (lib/recorder-spool.c).  Nothing is decoded and nothing goes
 *             to SQLite on this path (except, when asked, a count for a
 *             progress line).
 *  building   after the workload, the spool files move into the store's
 *             spool in one transaction; lib/recbuild.c decodes it, merges
 *             the CPUs by time stamp and runs the lifecycle builder, in one
 *             transaction with the counters and checks lib/recorder-build.c
 *             adds.
 *
 * This file owns the rest: the setup (capture, decoder, cgroup, the session
 * row and its format files), the workload's process (forked before any
 * thread exists, joined to the cgroup, held on a pipe until tracing is on),
 * the threads, the run and its end.  Stopping: the workload's exit (status
 * "complete"), hs_recorder_stop() ("interrupted"; the workload gets the
 * signal too), or the duration ("timeout"; the workload gets SIGTERM, then
 * SIGKILL 2 s later through the cgroup).  Whatever stopped it, the session
 * is built and kept.  The wait sleeps in poll(2) on the workload's pidfd and
 * a self-pipe that hs_recorder_stop() writes, so it sees either at once.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cgroup.h"
#include "decode.h"
#include "fileio.h"
#include "hs.h"
#include "json.h"
#include "recorder-int.h"
#include "sampling.h"
#include "store.h"
#include "undo.h"
#include "workload.h"

#define KILL_GRACE_S		2.0		/* SIGTERM, then SIGKILL after this */
#define LRUGEN_PERIOD_S		1.0		/* debugfs lru_gen snapshots */
#define LRUGEN_MAX_SNAPSHOTS	3600
#define POLL_TICK_MS		10		/* without a pidfd (Linux < 5.3) */

/* ---- small file helpers (the kernel's own files only: no shell-outs) ---- */

/* "0x0007" from /sys/kernel/mm/lru_gen/enabled, or "absent". */
static void lru_gen_state(char *buf, size_t size)
{
	size_t len;
	char *t;

	if (rec_read_text("/sys/kernel/mm/lru_gen/enabled", &t, &len)) {
		snprintf(buf, size, "absent");
		return;
	}
	t[strcspn(t, "\n")] = '\0';
	snprintf(buf, size, "%s", t);
	free(t);
}

/*
 * Whether the kernel has the HitShield RFC's page flags (the hsctl kernel lab's patched
 * arm): "present" or "absent" from the page-flag names in a page_ref event's print format,
 * or NULL when there is none to read.  The names show there only with CONFIG_DEBUG_PAGE_REF;
 * the vmscan/pagemap/filemap events print no flag names, so a kernel without page_ref events
 * leaves the question open rather than answering "absent".
 */
static const char *hitshield_flags(const char *tdir)
{
	char path[PATH_MAX], *t;
	const char *ans;
	size_t len;

	snprintf(path, sizeof(path), "%s/events/page_ref/page_ref_set/format", tdir);
	if (rec_read_text(path, &t, &len))
		return NULL;
	ans = strstr(t, "\"hitshield\"") ? "present" : "absent";
	free(t);
	return ans;
}

/* One module parameter's text as JSON: Y/N a boolean, a decimal an integer, else a string. */
static void param_value(struct hs_json *j, char *t)
{
	char *end;

	t[strcspn(t, "\n")] = '\0';
	if (!strcmp(t, "Y") || !strcmp(t, "N")) {
		hs_json_bool(j, t[0] == 'Y');
		return;
	}
	errno = 0;
	if (t[0] == '-') {
		long long v = strtoll(t, &end, 10);

		if (!errno && end != t + 1 && !*end) {
			hs_json_int(j, v);
			return;
		}
	} else if (t[0] >= '0' && t[0] <= '9') {
		unsigned long long v = strtoull(t, &end, 10);

		if (!errno && !*end) {
			hs_json_uint(j, v);
			return;
		}
	}
	hs_json_str(j, t);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int hs_recorder_module_params(const char *dir, char **out)
{
	char path[PATH_MAX], **names = NULL, **grown, *t;
	size_t n = 0, cap = 0, len, i;
	struct dirent *de;
	struct hs_json j;
	int err = 0;
	DIR *d;

	*out = NULL;
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		*out = strdup("\"absent\"");
		return *out ? 0 : -ENOMEM;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	/* readdir's order is the file system's: sorted, the same kernel gives the same text */
	if (!err)
		qsort(names, n, sizeof(*names), name_cmp);
	if (!err && hs_json_init_mem(&j, 0))
		err = -ENOMEM;
	if (!err) {
		hs_json_object(&j);
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			/* a write-only or vanished parameter says nothing: left out */
			if (rec_read_text(path, &t, &len))
				continue;
			hs_json_key(&j, names[i]);
			param_value(&j, t);
			free(t);
		}
		hs_json_end(&j);
		if (hs_json_take(&j, out))
			err = -ENOMEM;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

/* Keep the format files the decoder read, so another process can decode the spool. */
static int save_formats(struct hs_store *st, int64_t session, const char *tdir,
			const struct hs_decoder *dec, char *errbuf, size_t errlen)
{
	char path[PATH_MAX], rel[512], *text;
	const struct hs_decoder_source *s;
	size_t i, len;
	int err;

	for (i = 0; i <= hs_decoder_nr_sources(dec); i++) {
		if (i == hs_decoder_nr_sources(dec)) {
			snprintf(rel, sizeof(rel), "events/header_page");
		} else {
			s = hs_decoder_source(dec, i);
			snprintf(rel, sizeof(rel), "events/%s/%s/format", s->system, s->name);
		}
		snprintf(path, sizeof(path), "%s/%s", tdir, rel);
		err = rec_read_text(path, &text, &len);
		if (err) {
			snprintf(errbuf, errlen, "%.400s: %s", path, strerror(-err));
			return err;
		}
		err = hs_record_save_format(st, session, rel, text, len);
		free(text);
		if (err) {
			snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
			return err;
		}
	}
	return 0;
}


/* ---- lru_gen snapshots (kernels with MGLRU) ---- */

static void lrugen_take(struct rec_lrugen_log *lg)
{
	struct rec_lrugen_snap *ns;
	size_t len;
	char *t;

	if (!lg->enabled || lg->n >= LRUGEN_MAX_SNAPSHOTS)
		return;
	if (rec_read_text("/sys/kernel/debug/lru_gen", &t, &len)) {
		lg->enabled = false;
		return;
	}
	ns = realloc(lg->snap, (lg->n + 1) * sizeof(*ns));
	if (!ns) {
		free(t);
		return;
	}
	lg->snap = ns;
	lg->snap[lg->n++] = (struct rec_lrugen_snap){ rec_now_ns(), t, len };
}

static void lrugen_free(struct rec_lrugen_log *lg)
{
	size_t i;

	for (i = 0; i < lg->n; i++)
		free(lg->snap[i].text);
	free(lg->snap);
}

/* ---- the workload process ---- */

struct rec_child {
	pid_t		pid;		/* the workload's first task */
	int		go_fd;		/* write end: one byte starts it */
	int		err_fd;		/* read end: errno of a failed exec, else EOF */
	int		status;		/* wait status once reaped */
	bool		reaped;		/* status is valid */
	uint64_t	start_ns;	/* released at */
	uint64_t	end_ns;		/* reaped at */
};

static void child_fail(int err_fd, int err)
{
	ssize_t HS_UNUSED n = write(err_fd, &err, sizeof(err));

	_exit(127);
}

/*
 * Fork the workload before any thread exists: the child joins the cgroup,
 * waits for the go byte, then runs the built-in workload or execs the command.
 */
static int start_child(struct rec_child *c, const struct hs_cgroup *cg, struct hs_workload *wl,
		       char *const *cmd, int touch_wfd, int touch_rfd, int note_fd)
{
	int go[2], ep[2], err;
	sigset_t none;
	ssize_t n;
	char byte;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return err;
	}
	if (!c->pid) {
		close(go[1]);
		close(ep[0]);
		if (touch_rfd >= 0)
			close(touch_rfd);
		/* the undo note's lock says "the recorder lives": not the workload's to hold */
		if (note_fd >= 0)
			close(note_fd);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		err = cg ? hs_cgroup_attach(cg, 0) : 0;
		if (err)
			child_fail(ep[1], -err);
		do {
			n = read(go[0], &byte, 1);
		} while (n < 0 && errno == EINTR);
		/* EOF: the recorder died before tracing was on; nothing to run for */
		if (n != 1)
			_exit(127);
		close(go[0]);
		if (wl) {
			/* No exec to close it: EOF on the error pipe says "running". */
			close(ep[1]);
			signal(SIGPIPE, SIG_IGN);
			err = hs_workload_run(wl, touch_wfd);
			_exit(err ? 1 : 0);
		}
		execvp(cmd[0], cmd);
		child_fail(ep[1], errno);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

/*
 * write(2) without dying of SIGPIPE (a child that failed before reading its
 * go byte): the signal is blocked in this thread and, when this write
 * raised it, taken back.  lib/ leaves the process's dispositions alone.
 */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
	sigset_t pipe_set, old, pending;
	bool was_pending;
	ssize_t n;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, buf, len);
	if (n < 0 && errno == EPIPE && !was_pending) {
		e = errno;
		sigtimedwait(&pipe_set, NULL, &(struct timespec){ 0, 0 });
		errno = e;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n;
}

/* Release the child; returns 0, or the child's errno when it could not start. */
static int release_child(struct rec_child *c)
{
	ssize_t n;
	int err = 0;

	c->start_ns = rec_now_ns();
	n = write_nosigpipe(c->go_fd, "g", 1);
	close(c->go_fd);
	c->go_fd = -1;
	if (n != 1)
		return -EIO;
	/* EOF on the error pipe: exec succeeded (CLOEXEC) or the workload runs. */
	do {
		n = read(c->err_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == sizeof(err) ? -err : 0;
}

static bool child_reap(struct rec_child *c, int flags)
{
	pid_t p;

	if (c->reaped)
		return true;
	do {
		p = waitpid(c->pid, &c->status, flags);
	} while (p < 0 && errno == EINTR);
	if (p == c->pid) {
		c->reaped = true;
		c->end_ns = rec_now_ns();
	}
	return c->reaped;
}


static char *join_argv(char *const *argv, int argc)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* ["sys:event", ...] of what the decoder enabled, or NULL. */
static char *events_json(const struct hs_decoder *d)
{
	const struct hs_decoder_source *s;
	struct hs_json j;
	char *text = NULL, *name;
	size_t i;

	if (hs_json_init_mem(&j, 0))
		return NULL;
	hs_json_array(&j);
	for (i = 0; i < hs_decoder_nr_sources(d); i++) {
		s = hs_decoder_source(d, i);
		if (asprintf(&name, "%s:%s", s->system, s->name) < 0) {
			hs_json_take(&j, &text);
			free(text);
			return NULL;
		}
		hs_json_str(&j, name);
		free(name);
	}
	hs_json_end(&j);
	if (hs_json_take(&j, &text))
		return NULL;
	return text;
}

/* The recording's options as the session's params (a JSON object), or NULL. */
static char *record_params_json(uint64_t limit, double duration, unsigned int buffer_kb,
				const char *workload_json, const char *hitshield,
				const char *damon_json, uint32_t tlb_entries)
{
	struct hs_json j;
	char *text = NULL;

	if (hs_json_init_mem(&j, 0))
		return NULL;
	hs_json_object(&j);
	hs_json_key(&j, "memory_limit");
	hs_json_uint(&j, limit);
	hs_json_key(&j, "duration");
	hs_json_fixed(&j, duration, 3);
	hs_json_key(&j, "buffer_kb");
	hs_json_uint(&j, buffer_kb);
	hs_json_key(&j, "workload");
	hs_json_raw(&j, workload_json);
	if (hitshield) {	/* only where the kernel shows its page-flag names */
		hs_json_key(&j, "hitshield_flags");
		hs_json_str(&j, hitshield);
	}
	if (damon_json) {	/* DAMON_LRU_SORT's parameters, or "absent" */
		hs_json_key(&j, "damon_lru_sort");
		hs_json_raw(&j, damon_json);
	}
	if (tlb_entries) {	/* the replay's TLB model bounds its set by it */
		hs_json_key(&j, "tlb_entries");
		hs_json_uint(&j, tlb_entries);
	}
	hs_json_end(&j);
	if (hs_json_take(&j, &text))
		return NULL;
	return text;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Pages of @path in the page cache: cachestat(2) (Linux 6.5+), -ENOSYS before. */
static int file_cached_pages(const char *path, uint64_t *pages)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = hs_cachestat(fd, pages);
	close(fd);
	return err;
}


/* ---- the recorder ---- */

enum rec_state {
	REC_NEW,		/* options checked, workload prepared */
	REC_STARTED,		/* the workload runs under tracing */
	REC_ENDED,		/* tracing off, counters taken: ready to build */
	REC_BUILT,		/* the session is complete */
	REC_FAILED,		/* a step failed: only free() is left */
};

enum stop_reason { STOP_EXIT, STOP_SIGNAL, STOP_TIMEOUT };

struct hs_recorder {
	struct hs_recorder_opts	o;		/* options */
	enum rec_state		state;		/* how far it got */
	struct hs_store		*st;		/* the database (the caller's) */
	struct hs_workload	*wl;		/* built-in workload, or NULL */
	struct hs_capture	*cap;		/* the tracefs capture */
	struct hs_decoder	*dec;		/* for the build (and the saved formats) */
	bool			tlb;		/* record the workload's TLB events */
	bool			memcg_flush;	/* record its memory cgroup's statistics flushes */
	struct hs_cgroup	*cg;		/* the workload's cgroup */
	struct rec_io		io;		/* spool and counters */
	struct rec_child	child;		/* the workload */
	struct hs_record_meta	rm;		/* what is recorded */
	struct hs_kvlist	vm[2];		/* /proc/vmstat before and after */
	struct hs_kvlist	ms[2];		/* memory.stat before and after */
	struct rec_lrugen_log	lg;		/* lru_gen snapshots */
	struct rec_comms	comms;		/* task names (lib/recorder-comm.c) */
	double			next_comm;	/* workload seconds of the next names read */
	struct hs_sampling	*smp;		/* sample_numa: what to restore */
	struct hs_undo		*undo;		/* what this recording changed (lib/undo.h) */
	struct hs_workload_opts	wopts;		/* o.workload, with the undo note */
	int			undo_session;	/* the session's item in the note, or 0 */
	int64_t			session;	/* the recording's session */
	int			touch_pipe[2];	/* workload touches */
	int			wake[2];	/* hs_recorder_stop() wakes the wait */
	int			pidfd;		/* the workload's, or -1 */
	atomic_int		stop_req;	/* the first stop request's signal, or 0 */
	int			stop_signal;	/* the signal that ended it, or 0 */
	pthread_t		toucher;	/* touch reader */
	bool			toucher_up;	/* touch reader started */
	double			cpu0;		/* CPU seconds when tracing started */
	double			next_lg;	/* workload seconds of the next lru_gen snapshot */
	struct hs_capture_stats	cs;		/* the capture's counters, at the end */
	struct hs_capture_cpu	*cpus;		/* ... its per-CPU part, kept past the close */
	struct rec_build_in	in;		/* what the build needs */
	struct hs_recorder_summary sum;		/* what the build gave */
	char			*origin;	/* the command line or workload */
	char			*evjson;	/* enabled events */
	char			*params;	/* options as JSON */
	char			kernel[128];	/* uname -r */
	char			lrugen[32];	/* lru_gen state */
	char			err[512];	/* a callee's reason */
	char			errmsg[1024];	/* the reason of the last failure */
};

static int fail(struct hs_recorder *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Set the failure message; return @err. */
static int fail(struct hs_recorder *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

static void note(struct hs_recorder *r, enum hs_recorder_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct hs_recorder *r, enum hs_recorder_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!r->o.note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->o.note(r->o.note_arg, level, msg);
}

static const char *db_name(const struct hs_recorder *r)
{
	return r->o.db_name ? r->o.db_name : "database";
}

/* A thread with every signal blocked: signals are the caller's main thread's. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}

static void stop_threads(struct hs_recorder *r)
{
	if (r->toucher_up) {
		pthread_join(r->toucher, NULL);
		r->toucher_up = false;
	}
	if (r->touch_pipe[0] >= 0) {
		close(r->touch_pipe[0]);
		r->touch_pipe[0] = -1;
	}
}

static void kill_child(struct hs_recorder *r)
{
	if (r->child.pid > 0 && !r->child.reaped) {
		kill(r->child.pid, SIGKILL);
		child_reap(&r->child, 0);
	}
}

/**
 * hs_recorder_free() - kill what still runs and free everything
 * @r: the recorder, or NULL
 *
 * Return: nothing.
 */
void hs_recorder_free(struct hs_recorder *r)
{
	unsigned int i;

	if (!r)
		return;
	/* a workload never released holds the touch pipe: it goes first */
	kill_child(r);
	stop_threads(r);
	if (r->child.go_fd >= 0)
		close(r->child.go_fd);
	if (r->child.err_fd >= 0)
		close(r->child.err_fd);
	if (r->touch_pipe[1] >= 0)
		close(r->touch_pipe[1]);
	for (i = 0; i < 2; i++)
		if (r->wake[i] >= 0)
			close(r->wake[i]);
	if (r->pidfd >= 0)
		close(r->pidfd);
	hs_sampling_restore(r->smp);
	hs_cgroup_destroy(r->cg);
	hs_capture_close(r->cap);
	hs_decoder_free(r->dec);
	rec_io_free(&r->io);
	hs_workload_free(r->wl);
	for (i = 0; i < 2; i++) {
		hs_kvlist_free(&r->vm[i]);
		hs_kvlist_free(&r->ms[i]);
	}
	lrugen_free(&r->lg);
	rec_comms_free(&r->comms);
	hs_sampling_free(r->smp);
	free(r->cpus);
	free(r->origin);
	free(r->evjson);
	free(r->params);
	/* last: removed when everything in it was undone, else left for a recovery */
	hs_undo_close(r->undo);
	free(r);
}

/* The recorder's undo note (recorder-int.h). */
struct hs_undo *rec_undo(const struct hs_recorder *r)
{
	return r ? r->undo : NULL;
}

/**
 * hs_recorder_new() - check a recording's options and prepare its workload
 * @o: the options
 * @out: the recorder
 *
 * Return: 0 or -errno (see lib/recorder.h).
 */
int hs_recorder_new(const struct hs_recorder_opts *o, struct hs_recorder **out)
{
	struct hs_recorder *r = calloc(1, sizeof(*r));
	int err;

	*out = r;
	if (!r)
		return -ENOMEM;
	r->o = *o;
	r->touch_pipe[0] = r->touch_pipe[1] = -1;
	r->wake[0] = r->wake[1] = -1;
	r->pidfd = -1;
	r->child.go_fd = r->child.err_fd = -1;
	rec_io_init(&r->io);
	r->io.count = o->count;
	atomic_init(&r->stop_req, 0);
	r->state = REC_FAILED;

	if (o->workload && o->cmd)
		return fail(r, -EINVAL, "record: give a workload or a command, not both");
	if (!o->workload && (!o->cmd || !o->cmd[0]))
		return fail(r, -EINVAL, "record: nothing to record: give a workload or a command");
	if (o->sample_numa && o->workload)
		return fail(r, -EINVAL,
			    "record: sampling is for commands: built-in workloads log every touch");
	if (o->limit_bytes && o->limit_bytes < (1u << 20))
		return fail(r, -EINVAL,
			    "record: a memory limit of %" PRIu64 " bytes: expected none or 1M+",
			    o->limit_bytes);
	if (!(o->duration >= 0 && o->duration <= 31536000))
		return fail(r, -EINVAL, "record: a duration of %g s: expected 0 to 31536000",
			    o->duration);
	if (o->buffer_kb && (o->buffer_kb < 8 || o->buffer_kb > (4u << 20)))
		return fail(r, -EINVAL, "record: a buffer of %u KiB: expected 8 to 4194304",
			    o->buffer_kb);
	if (geteuid())
		return fail(r, -EPERM,
			    "record: needs root for tracefs and a memory cgroup (euid %u)",
			    (unsigned int)geteuid());
	if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK))
		return fail(r, -errno, "record: pipe: %s", strerror(errno));
	err = hs_undo_new(o->run_dir, &r->undo);
	if (err)
		return fail(r, err, "record: undo note in %s: %s", o->run_dir ? o->run_dir :
			    HS_UNDO_DIR, strerror(-err));
	if (o->workload) {
		r->wopts = *o->workload;
		r->wopts.undo = r->undo;
		err = hs_workload_prepare(&r->wopts, &r->wl, r->err, sizeof(r->err));
		if (err)
			return fail(r, err, "workload: %s", r->err);
	}
	r->state = REC_NEW;
	return 0;
}

/**
 * hs_recorder_errmsg() - the reason for the last failure
 * @r: the recorder
 *
 * Return: the message, or "".
 */
const char *hs_recorder_errmsg(const struct hs_recorder *r)
{
	return r->errmsg;
}

/* -ENODEV for what this machine lacks; any other error may not look like it. */
static int failed(int err)
{
	return err == -ENODEV ? -EIO : err;
}

/*
 * The session goes into the undo note too: its spool is what a recovery
 * builds, and the note tells which database holds it.
 */
static int note_session(struct hs_recorder *r)
{
	struct hs_undo_item it = { .kind = HS_UNDO_SESSION, .id = (uint64_t)r->session };
	char *abs = r->o.db_name ? realpath(r->o.db_name, NULL) : NULL;
	int err;

	snprintf(it.a, sizeof(it.a), "%s", abs ? abs : r->o.db_name ? r->o.db_name : "");
	free(abs);
	err = hs_undo_add(r->undo, &it);
	if (err < 0)
		return fail(r, failed(err), "record: undo note %s: %s", hs_undo_path(r->undo),
			    strerror(-err));
	r->undo_session = err;
	return 0;
}

/*
 * The workload's TLB events (hsctl-record(1), --no-tlb-events): full TLB
 * flushes on the workload's CPU while it runs, its switches in from another
 * task and its migrations, which the replay's TLB model reads (lib/sim.c).
 * Filtered in tracefs on the workload's pid, so they stay a few thousand at
 * most: a built-in workload of one process only (a command may fork others
 * whose pids no filter can name beforehand; shared-map runs several), and
 * never with --no-events, which keeps no rows for the replay to read.
 */
static bool tlb_wanted(const struct hs_recorder *r)
{
	return !r->o.no_tlb_events && !r->o.no_events && r->wl &&
	       strcmp(r->o.workload->name, "shared-map");
}

static bool is_tlb_event(enum hs_event_type t)
{
	return t == HS_EV_TLB_FLUSH || t == HS_EV_SCHED_SWITCH || t == HS_EV_MIGRATE_TASK;
}

/*
 * The CPU's TLB entries for 4 KiB pages, the bound of the replay's TLB
 * model: /proc/cpuinfo's "TLB size : 3584 4K pages" (x86 AMD; the first
 * CPU's), or 0 when it does not say (Intel's cpuinfo has no such line).
 */
static uint32_t tlb_entries(void)
{
	unsigned long v = 0;
	char *t, *p;
	size_t len;

	if (rec_read_text("/proc/cpuinfo", &t, &len))
		return 0;
	p = strstr(t, "\nTLB size");
	if (p && (p = strchr(p, ':')) && sscanf(p + 1, "%lu 4K pages", &v) != 1)
		v = 0;
	free(t);
	return v < UINT32_MAX ? (uint32_t)v : 0;
}

/* Filter and enable the TLB events on the workload's pid (before tracing is on). */
static int tlb_enable(struct hs_recorder *r)
{
	const struct hs_decoder_source *src;
	int pid = (int)r->child.pid;
	char filter[160];
	int err;

	for (size_t i = 0; r->tlb && i < hs_decoder_nr_sources(r->dec); i++) {
		src = hs_decoder_source(r->dec, i);
		switch (src->type) {
		case HS_EV_TLB_FLUSH:
			/* TLB_FLUSH_ALL is (unsigned long)-1, whatever the long's size */
			snprintf(filter, sizeof(filter),
				 "pages >= 0xffffffff && common_pid == %d", pid);
			break;
		case HS_EV_SCHED_SWITCH:
			snprintf(filter, sizeof(filter), "next_pid == %d && prev_pid != %d", pid,
				 pid);
			break;
		case HS_EV_MIGRATE_TASK:
			snprintf(filter, sizeof(filter), "pid == %d", pid);
			break;
		default:
			continue;
		}
		err = hs_capture_filter(r->cap, src->system, src->name, filter);
		if (!err)
			err = hs_capture_enable(r->cap, src->system, src->name);
		if (err && err != -ENOENT)
			return fail(r, failed(err), "tracefs: %s (--no-tlb-events records without)",
				    hs_capture_errmsg(r->cap));
	}
	return 0;
}

/*
 * The memory cgroup's statistics flushes (memcg:memcg_flush_stats, 6.13 and
 * later).  linux-2q's reclaim and refault tests read the statistics as of the
 * last flush (policies/linux-2q.c, "Flushed statistics"): the periodic flush
 * of the root every 2 s, and whatever other flush reaches the workload's
 * cgroup (a reader of memory.stat, a ratelimited flush in reclaim that found
 * the periodic one late).  A flush of a cgroup folds in its whole subtree, so
 * the ones that count are those of the workload's cgroup and its ancestors,
 * forced or with updates pending (the others return at once): the filter names
 * those ids (a cgroup's id is its directory's inode number; the root's is 1),
 * which keeps them to one every two seconds or so.
 */
static bool memcg_flush_wanted(const struct hs_recorder *r)
{
	return !r->o.no_events;
}

static bool is_memcg_event(enum hs_event_type t)
{
	return t == HS_EV_MEMCG_FLUSH;
}

/* Filter and enable memcg_flush_stats on the cgroup's ids (before tracing is on). */
static int memcg_flush_enable(struct hs_recorder *r)
{
	const struct hs_decoder_source *src;
	char path[PATH_MAX], filter[512], *slash;
	size_t len = 0;
	struct stat sb;
	dev_t dev = 0;
	int err;

	if (!r->memcg_flush)
		return 0;
	snprintf(path, sizeof(path), "%s", hs_cgroup_path(r->cg));
	len = (size_t)snprintf(filter, sizeof(filter), "(force != 0 || needs_flush != 0) && (");
	for (int depth = 0; depth < 16 && !stat(path, &sb) && S_ISDIR(sb.st_mode); depth++) {
		if (depth && sb.st_dev != dev)
			break;		/* above the hierarchy's root */
		dev = sb.st_dev;
		len += (size_t)snprintf(filter + len, sizeof(filter) - len, "%sid == %llu",
					depth ? " || " : "", (unsigned long long)sb.st_ino);
		if (len >= sizeof(filter) - 32 || sb.st_ino == 1)
			break;		/* the root: nothing above flushes it */
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			break;
		*slash = '\0';
	}
	if (!dev || len >= sizeof(filter) - 2) {
		note(r, HS_RECORDER_INFO, "memcg flushes: cannot name the cgroup's ids");
		r->memcg_flush = false;
		return 0;
	}
	snprintf(filter + len, sizeof(filter) - len, ")");
	for (size_t i = 0; i < hs_decoder_nr_sources(r->dec); i++) {
		src = hs_decoder_source(r->dec, i);
		if (!is_memcg_event(src->type))
			continue;
		err = hs_capture_filter(r->cap, src->system, src->name, filter);
		if (!err)
			err = hs_capture_enable(r->cap, src->system, src->name);
		if (err && err != -ENOENT)
			return fail(r, failed(err), "tracefs: %s", hs_capture_errmsg(r->cap));
	}
	return 0;
}

/* Everything up to the recording's session row.  Return: 0 or -errno. */
static int setup(struct hs_recorder *r)
{
	/* counting for a progress line makes the readers read every sub-buffer: on a tty only */
	struct hs_capture_opts co = { .buffer_kb = r->o.buffer_kb,
				      .on_subbuf = r->io.count ? rec_on_subbuf : NULL,
				      .spool_fd = rec_spool_fd, .arg = &r->io, .undo = r->undo };
	const struct hs_decoder_source *src;
	struct utsname un;
	char *damon = NULL;
	size_t i;
	long ncpu;
	int err, argc;

	err = hs_capture_open(&co, &r->cap);
	if (err) {
		fail(r, 0, "%s", r->cap ? hs_capture_errmsg(r->cap) : strerror(-err));
		return err == -ENOMEM || err == -EIO ? err : -ENODEV;
	}
	r->tlb = tlb_wanted(r);
	r->memcg_flush = memcg_flush_wanted(r);
	err = hs_decoder_open(hs_capture_tracing_dir(r->cap),
			      HS_DEC_ALL & ~(r->tlb ? 0 : HS_DEC_TLB) &
			      ~(r->memcg_flush ? 0 : HS_DEC_MEMCG), &r->dec);
	if (!err && r->tlb && !hs_decoder_has(r->dec, HS_EV_TLB_FLUSH)) {
		/* switches alone tell nothing of the TLB: none of them (x86 has tlb_flush) */
		note(r, HS_RECORDER_INFO, "TLB events: the kernel has no tlb:tlb_flush");
		r->tlb = false;
		hs_decoder_free(r->dec);
		r->dec = NULL;
		err = hs_decoder_open(hs_capture_tracing_dir(r->cap), HS_DEC_ALL & ~HS_DEC_TLB &
				      ~(r->memcg_flush ? 0 : HS_DEC_MEMCG), &r->dec);
	}
	if (err)
		return fail(r, failed(err), "tracefs: %s",
			    r->dec ? hs_decoder_errmsg(r->dec) : strerror(-err));
	for (i = 0; i < hs_decoder_nr_sources(r->dec); i++) {
		src = hs_decoder_source(r->dec, i);
		if (is_tlb_event(src->type) || is_memcg_event(src->type))
			continue;	/* enabled with filters: the workload's pid, its cgroup */
		err = hs_capture_enable(r->cap, src->system, src->name);
		if (err && err != -ENOENT)
			return fail(r, failed(err), "tracefs: %s", hs_capture_errmsg(r->cap));
	}
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	r->io.nr_cpus = ncpu > 0 ? (unsigned int)ncpu : 1;
	r->io.cnt = calloc(r->io.nr_cpus, sizeof(*r->io.cnt));
	if (!r->io.cnt)
		goto nomem;
	/* one decoder per CPU (they keep stats), for the progress line only */
	for (i = 0; r->io.count && i < r->io.nr_cpus; i++) {
		err = hs_decoder_open(hs_capture_tracing_dir(r->cap), HS_DEC_ALL,
				      &r->io.cnt[i].dec);
		if (err)
			return fail(r, failed(err), "tracefs: %s", r->io.cnt[i].dec ?
				    hs_decoder_errmsg(r->io.cnt[i].dec) : strerror(-err));
	}

	err = hs_cgroup_create_undo(r->o.limit_bytes, r->undo, &r->cg, r->err, sizeof(r->err));
	if (err) {
		fail(r, 0, "memory cgroup: %s", r->err);
		return err == -ENOMEM || err == -EIO ? err : -ENODEV;
	}
	err = memcg_flush_enable(r);
	if (err)
		return err;

	for (argc = 0; r->o.cmd && r->o.cmd[argc]; argc++)
		;
	r->origin = r->wl ? NULL : join_argv(r->o.cmd, argc);
	r->evjson = events_json(r->dec);
	if ((!r->wl && !r->origin) || !r->evjson)
		goto nomem;
	if (uname(&un))
		snprintf(r->kernel, sizeof(r->kernel), "unknown");
	else
		snprintf(r->kernel, sizeof(r->kernel), "%s", un.release);
	lru_gen_state(r->lrugen, sizeof(r->lrugen));
	r->lg.enabled = strcmp(r->lrugen, "absent") && !access("/sys/kernel/debug/lru_gen", R_OK);
	/* unreadable (not -ENOENT: that is "absent"): no key rather than a wrong answer */
	err = hs_recorder_module_params(HS_DAMON_LRU_SORT_DIR, &damon);
	if (err == -ENOMEM)
		goto nomem;
	r->params = record_params_json(hs_cgroup_limit(r->cg), r->o.duration,
				       r->o.buffer_kb ? r->o.buffer_kb : 8192,
				       r->wl ? hs_workload_describe(r->wl) : NULL,
				       hitshield_flags(hs_capture_tracing_dir(r->cap)), damon,
				       r->tlb ? tlb_entries() : 0);
	free(damon);
	if (!r->params)
		goto nomem;

	r->rm.name = r->o.name;
	r->rm.workload = r->wl ? r->o.workload->name : NULL;
	r->rm.origin = r->wl ? r->o.workload->name : r->origin;
	r->rm.params_json = r->params;
	if (r->wl && hs_workload_file(r->wl, &(uint64_t){ 0 }, &(uint64_t){ 0 })) {
		r->rm.kind = "anon";
		r->rm.channel = "pt";
	} else {
		r->rm.kind = "file";
		r->rm.channel = r->wl && !hs_workload_mapped(r->wl) ? "fd" : "pt";
	}
	r->rm.visibility = r->wl ? "exact" : r->o.sample_numa ? "sampled" : "faults";
	r->rm.kernel = r->kernel;
	r->rm.lru_gen = r->lrugen;
	r->rm.clock = "mono";
	r->rm.instance = hs_capture_instance(r->cap);
	r->rm.cgroup = hs_cgroup_path(r->cg);
	r->rm.cgroup_version = hs_cgroup_version(r->cg);
	r->rm.memory_limit_pages = hs_cgroup_limit(r->cg) / 4096;
	r->rm.buffer_kb = r->o.buffer_kb ? r->o.buffer_kb : 8192;
	r->rm.page_size = (unsigned int)sysconf(_SC_PAGESIZE);
	r->rm.events_json = r->evjson;
	err = hs_record_create(r->st, &r->rm, &r->session);
	if (err)
		return fail(r, failed(err), "%s: %s", db_name(r), hs_store_errmsg(r->st));
	err = note_session(r);
	if (err)
		return err;
	err = save_formats(r->st, r->session, hs_capture_tracing_dir(r->cap), r->dec, r->err,
			   sizeof(r->err));
	if (err)
		return fail(r, failed(err), "record: %s", r->err);
	return 0;
nomem:
	return fail(r, -ENOMEM, "record: %s", strerror(ENOMEM));
}

/* The rest of the start; on failure the caller drops the session.  Return: 0 or -errno. */
static int launch(struct hs_recorder *r)
{
	size_t subbuf;
	char *dir;
	int err;

	dir = rec_spool_dir(hs_store_path(r->st), r->session);
	if (!dir)
		return fail(r, -ENOMEM, "record: %s", strerror(ENOMEM));
	subbuf = hs_capture_subbuf_size(r->cap);
	err = rec_spool_create(&r->io.q, dir, r->io.nr_cpus,
			       subbuf ? subbuf : hs_decoder_subbuf_size(r->dec), r->err,
			       sizeof(r->err));
	free(dir);
	if (err)
		return fail(r, failed(err), "record: spool: %s", r->err);
	if (r->wl && pipe2(r->touch_pipe, O_CLOEXEC))
		return fail(r, failed(-errno), "record: pipe: %s", strerror(errno));
	/* The child first: no thread exists yet (fork in a threaded process is fragile). */
	err = start_child(&r->child, r->cg, r->wl, r->o.cmd, r->touch_pipe[1], r->touch_pipe[0],
			  hs_undo_fd(r->undo));
	if (err)
		return fail(r, failed(err), "record: fork: %s", strerror(-err));
#ifdef SYS_pidfd_open
	r->pidfd = (int)syscall(SYS_pidfd_open, r->child.pid, 0);
	if (r->pidfd >= 0)
		fcntl(r->pidfd, F_SETFD, FD_CLOEXEC);
#endif
	err = tlb_enable(r);
	if (err)
		return err;
	if (r->touch_pipe[1] >= 0) {
		close(r->touch_pipe[1]);
		r->touch_pipe[1] = -1;
	}
	r->io.touch_fd = r->touch_pipe[0];
	if (r->wl) {
		if (start_thread(&r->toucher, rec_touch_reader, &r->io))
			return fail(r, -EAGAIN, "record: cannot start a thread");
		r->toucher_up = true;
	}

	if (hs_vmstat_read(&r->vm[0]))
		memset(&r->vm[0], 0, sizeof(r->vm[0]));
	if (hs_cgroup_stat(r->cg, &r->ms[0]))
		memset(&r->ms[0], 0, sizeof(r->ms[0]));
	r->cpu0 = cpu_seconds();
	rec_comms_open(&r->comms, hs_capture_tracing_dir(r->cap));	/* before: not ours */
	err = hs_capture_start(r->cap);
	if (err)
		return fail(r, failed(err), "tracefs: %s", hs_capture_errmsg(r->cap));
	if (r->o.sample_numa) {
		err = hs_sampling_numa_enable_undo(NULL, r->undo, &r->smp, r->err,
						   sizeof(r->err));
		if (err) {
			fail(r, 0, "--sample numa: %s", r->err);
			hs_capture_stop(r->cap);
			return err == -EPERM || err == -EACCES || err == -ENOENT ? -ENODEV
										 : failed(err);
		}
		note(r, HS_RECORDER_INFO, "sampling: %s", hs_sampling_describe(r->smp));
	}
	rec_test_pause(r->o.pause_at, "workload");	/* all set up, the workload not run */
	err = release_child(&r->child);
	if (err) {
		fail(r, failed(err), "record: cannot run '%s': %s",
		     r->wl ? r->o.workload->name : r->o.cmd[0], strerror(-err));
		hs_capture_stop(r->cap);
		return failed(err);
	}
	return 0;
}

/**
 * hs_recorder_start() - set everything up and start the workload under tracing
 * @r: the recorder
 * @st: the store
 *
 * Return: 0 or -errno (see lib/recorder.h).
 */
int hs_recorder_start(struct hs_recorder *r, struct hs_store *st)
{
	int err;

	if (r->state != REC_NEW)
		return fail(r, -EINVAL, "record: the recorder is not new");
	r->state = REC_FAILED;
	r->st = st;
	err = setup(r);
	if (err)
		return err;
	err = launch(r);
	if (err) {
		/* Nothing worth keeping was recorded: remove the session row and its spool. */
		kill_child(r);
		stop_threads(r);
		if (hs_session_remove(r->st, r->session)) {
			note(r, HS_RECORDER_WARN, "%s: session %" PRId64
			     " left in status recording: %s", db_name(r), r->session,
			     hs_store_errmsg(r->st));
		} else {
			rec_spool_close(&r->io.q);
			rec_spool_remove(r->io.q.dir);
			hs_undo_done(r->undo, r->undo_session);
		}
		return err;
	}
	r->state = REC_STARTED;
	return 0;
}

/**
 * hs_recorder_stop() - ask the recording to end (async-signal-safe)
 * @r: the recorder
 * @signo: the signal for the workload
 *
 * Return: nothing.
 */
void hs_recorder_stop(struct hs_recorder *r, int signo)
{
	int e = errno, none = 0;
	ssize_t HS_UNUSED n;

	if (signo <= 0)
		signo = SIGTERM;
	atomic_compare_exchange_strong(&r->stop_req, &none, signo);
	if (r->wake[1] >= 0)
		n = write(r->wake[1], "s", 1);
	errno = e;
}

/* SIGTERM to the workload's cgroup members, then SIGKILL after the grace time. */
static void stop_workload(struct hs_recorder *r, int sig)
{
	uint64_t until;
	pid_t *pids = NULL;
	size_t i, n = 0;

	if (r->child.reaped)
		return;
	if (!hs_cgroup_pids(r->cg, &pids, &n)) {
		for (i = 0; i < n; i++)
			kill(pids[i], sig);
		free(pids);
	}
	kill(r->child.pid, sig);
	until = rec_now_ns() + (uint64_t)(KILL_GRACE_S * 1e9);
	while (!child_reap(&r->child, WNOHANG) && rec_now_ns() < until)
		usleep(20000);
	if (!r->child.reaped) {
		kill(r->child.pid, SIGKILL);
		child_reap(&r->child, 0);
	}
}

/* Milliseconds for poll(2) from now to @until_ns, rounded up; at most @cap (-1: none). */
static int ms_until(uint64_t now, uint64_t until_ns, int cap)
{
	uint64_t ms;

	ms = until_ns > now ? (until_ns - now + 999999) / 1000000 : 0;
	if (cap >= 0 && ms > (uint64_t)cap)
		return cap;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Whatever stopped it: tracing off, the spool drained, the counters taken. */
static int finish(struct hs_recorder *r, enum stop_reason why)
{
	uint64_t peak;
	int err;

	r->stop_signal = why == STOP_SIGNAL ? atomic_load(&r->stop_req) : 0;
	if (why == STOP_SIGNAL)
		stop_workload(r, r->stop_signal);
	else if (why == STOP_TIMEOUT)
		stop_workload(r, SIGTERM);
	lrugen_take(&r->lg);	/* the generations as the workload left them */
	rec_comms_take(&r->comms, r->cg, true);	/* while forks are still traced */

	hs_sampling_restore(r->smp);
	err = hs_capture_stop(r->cap);
	if (err)
		note(r, HS_RECORDER_WARN, "tracefs: %s", hs_capture_errmsg(r->cap));
	stop_threads(r);
	rec_spool_close(&r->io.q);
	hs_capture_get_stats(r->cap, &r->cs);
	/* cs.cpu belongs to the capture, which is closed before the build: keep a copy */
	r->cpus = calloc(r->cs.nr_cpus ? r->cs.nr_cpus : 1, sizeof(*r->cpus));
	if (!r->cpus)
		return fail(r, -ENOMEM, "record: %s", strerror(ENOMEM));
	memcpy(r->cpus, r->cs.cpu, r->cs.nr_cpus * sizeof(*r->cpus));
	r->cs.cpu = r->cpus;
	r->in.res.record_cpu_s = cpu_seconds() - r->cpu0;
	if (r->io.touch_err)
		return fail(r, r->io.touch_err, "record: spool: %s/touches: %s", r->io.q.dir,
			    strerror(-r->io.touch_err));
	if (hs_vmstat_read(&r->vm[1]))
		memset(&r->vm[1], 0, sizeof(r->vm[1]));
	if (hs_cgroup_stat(r->cg, &r->ms[1]))
		memset(&r->ms[1], 0, sizeof(r->ms[1]));
	if (!hs_cgroup_peak(r->cg, &peak))
		r->in.res.peak_pages = peak / 4096;
	if (r->wl && hs_workload_path(r->wl)) {
		r->in.cache_err = file_cached_pages(hs_workload_path(r->wl), &r->in.cache_pages);
		r->in.cache_known = !r->in.cache_err;
	}
	err = hs_cgroup_destroy(r->cg);
	r->cg = NULL;
	if (err)
		note(r, HS_RECORDER_WARN,
		     "memory cgroup: could not remove it: %s (the next record will)",
		     strerror(-err));
	/*
	 * The spool files into the store, in one transaction.  No WAL
	 * checkpoint meanwhile (it would read the log back and write every
	 * page a second time); the first one comes with the build.
	 */
	hs_store_query(r->st, "PRAGMA wal_autocheckpoint = 0", NULL, NULL);
	err = rec_spool_import(r->st, r->session, r->io.q.dir, r->err, sizeof(r->err));
	hs_store_query(r->st, "PRAGMA wal_autocheckpoint = 1000", NULL, NULL);
	if (err)
		return fail(r, err, "%s: spool of session %" PRId64 ": %s (its files are kept; "
			    "the next 'hsctl record' retries)", db_name(r), r->session, r->err);

	r->in.session = r->session;
	r->in.status = why == STOP_EXIT ? "complete" : why == STOP_TIMEOUT ? "timeout"
									  : "interrupted";
	r->in.dec = r->dec;
	r->in.rm = &r->rm;
	r->in.wl = r->wl;
	r->in.pid = r->child.pid;
	r->in.no_events = r->o.no_events;
	r->in.vm[0] = &r->vm[0];
	r->in.vm[1] = &r->vm[1];
	r->in.ms[0] = &r->ms[0];
	r->in.ms[1] = &r->ms[1];
	r->in.cs = &r->cs;
	r->in.lg = &r->lg;
	r->in.comms = &r->comms;
	r->in.pause_at = r->o.pause_at;
	r->in.res.workload_exit = WIFEXITED(r->child.status) ? WEXITSTATUS(r->child.status) : -1;
	r->in.res.workload_signal = WIFSIGNALED(r->child.status) ? WTERMSIG(r->child.status) : 0;
	r->in.res.runtime_ns = r->child.end_ns - r->child.start_ns;
	r->in.res.lost_events = r->cs.lost;
	r->in.res.subbufs = r->cs.subbufs;
	r->in.res.bytes = r->cs.bytes;
	r->in.res.touches = atomic_load(&r->io.touches);
	return 0;
}

/**
 * hs_recorder_wait() - run the recording until it ends, or for a while
 * @r: the recorder
 * @timeout_s: seconds before returning 1; < 0: no limit
 *
 * Return: 0 ended, 1 still running, or -errno.
 */
int hs_recorder_wait(struct hs_recorder *r, double timeout_s)
{
	uint64_t t0 = rec_now_ns(), now, start;
	struct pollfd pfd[2];
	enum stop_reason why;
	char drain[16];
	int ms, nfds, err;
	double el;

	if (r->state == REC_ENDED || r->state == REC_BUILT)
		return 0;
	if (r->state != REC_STARTED)
		return fail(r, -EINVAL, "record: the recording is not running");
	start = r->child.start_ns;
	for (;;) {
		now = rec_now_ns();
		el = (double)(now - start) / 1e9;
		if (r->lg.enabled && el >= r->next_lg) {
			lrugen_take(&r->lg);
			r->next_lg = el + LRUGEN_PERIOD_S;
		}
		if (el >= r->next_comm) {
			rec_comms_take(&r->comms, r->cg, false);
			r->next_comm = el + REC_COMM_PERIOD_S;
		}
		if (child_reap(&r->child, WNOHANG)) {
			/*
			 * Ctrl-C reaches the whole foreground group: the workload may
			 * die of it before we look.  A stop request still makes this
			 * an interruption.
			 */
			why = atomic_load(&r->stop_req) ? STOP_SIGNAL : STOP_EXIT;
			break;
		}
		if (r->o.duration > 0 && el >= r->o.duration) {
			why = STOP_TIMEOUT;
			break;
		}
		if (atomic_load(&r->stop_req)) {
			why = STOP_SIGNAL;
			break;
		}
		if (timeout_s >= 0 && (double)(now - t0) / 1e9 >= timeout_s)
			return 1;

		ms = r->pidfd >= 0 ? -1 : POLL_TICK_MS;
		if (timeout_s >= 0)
			ms = ms_until(now, t0 + (uint64_t)(timeout_s * 1e9), ms);
		if (r->lg.enabled)
			ms = ms_until(now, start + (uint64_t)(r->next_lg * 1e9), ms);
		ms = ms_until(now, start + (uint64_t)(r->next_comm * 1e9), ms);
		if (r->o.duration > 0)
			ms = ms_until(now, start + (uint64_t)(r->o.duration * 1e9), ms);
		pfd[0] = (struct pollfd){ .fd = r->wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = r->pidfd, .events = POLLIN };
		nfds = r->pidfd >= 0 ? 2 : 1;
		if (poll(pfd, (nfds_t)nfds, ms) > 0 && (pfd[0].revents & POLLIN))
			while (read(r->wake[0], drain, sizeof(drain)) > 0)
				;
	}
	r->state = REC_FAILED;
	err = finish(r, why);
	if (err)
		return err;
	r->state = REC_ENDED;
	return 0;
}

/**
 * hs_recorder_build() - build the ended recording into its session
 * @r: the recorder
 *
 * Return: 0 or -errno.
 */
int hs_recorder_build(struct hs_recorder *r)
{
	int err;

	if (r->state != REC_ENDED)
		return fail(r, -EINVAL, "record: the recording has not ended");
	/* Tear the kernel side down before the build: nothing of ours stays traced. */
	hs_capture_close(r->cap);
	r->cap = NULL;
	r->state = REC_FAILED;
	err = rec_build_session(r->st, &r->in, &r->sum, r->err, sizeof(r->err));
	if (err)
		return fail(r, err, "record: building session %" PRId64 ": %s (its spool is kept; "
			    "the next 'hsctl record' retries)", r->session, r->err);
	if (!r->o.keep_spool && hs_spool_drop(r->st, r->session))
		note(r, HS_RECORDER_WARN, "%s: spool of session %" PRId64 ": %s", db_name(r),
		     r->session, hs_store_errmsg(r->st));
	hs_undo_done(r->undo, r->undo_session);	/* built: nothing left to recover */
	r->sum.wexit = r->in.res.workload_exit;
	r->sum.wsig = r->in.res.workload_signal;
	r->sum.runtime_s = (double)r->in.res.runtime_ns / 1e9;
	r->sum.lost = r->cs.lost;
	r->sum.limit_pages = r->rm.memory_limit_pages;
	r->sum.visibility = r->rm.visibility;
	r->sum.record_cpu_s = r->in.res.record_cpu_s;
	r->state = REC_BUILT;
	return 0;
}

/**
 * hs_recorder_summary() - what the build gave
 * @r: the recorder
 *
 * Return: the summary (zeros before the build).
 */
const struct hs_recorder_summary *hs_recorder_summary(const struct hs_recorder *r)
{
	return &r->sum;
}

/**
 * hs_recorder_stop_signal() - the signal of the stop request that ended it
 * @r: the recorder
 *
 * Return: the signal or 0.
 */
int hs_recorder_stop_signal(const struct hs_recorder *r)
{
	return r->stop_signal;
}

/**
 * hs_recorder_lost() - events the ring buffers lost
 * @r: the recorder
 *
 * Return: the count (0 before the end).
 */
uint64_t hs_recorder_lost(const struct hs_recorder *r)
{
	return r->cs.lost;
}

/**
 * hs_recorder_session() - the recording's session id
 * @r: the recorder
 *
 * Return: the id, or 0.
 */
int64_t hs_recorder_session(const struct hs_recorder *r)
{
	return r->session;
}

/**
 * hs_recorder_progress() - counts so far, for a progress line
 * @r: the recorder
 * @p: receives them
 *
 * Return: nothing.
 */
void hs_recorder_progress(const struct hs_recorder *r, struct hs_recorder_progress *p)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; r->io.cnt && i < r->io.nr_cpus; i++) {
		p->events += atomic_load_explicit(&r->io.cnt[i].events, memory_order_relaxed);
		p->folios += atomic_load_explicit(&r->io.cnt[i].folios, memory_order_relaxed);
		p->missed += atomic_load_explicit(&r->io.cnt[i].missed, memory_order_relaxed);
	}
	p->touches = atomic_load(&r->io.touches);
}
