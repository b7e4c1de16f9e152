/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of lib/recorder.c, the recorder object, driven directly as `hsctl
 * record` drives it.  Everywhere: options that hs_recorder_new() refuses,
 * each with its message, and a user who is not root (a child that drops
 * its euid to 65534).  Live, as root with tracefs and a memory controller,
 * under the shared lock /tmp/hsctl-live.lock (t_live_lock(): one live test
 * at a time on this machine, a bounded wait, then a skip naming the holder):
 *
 *  - scan-twice of a 32 MiB file under a 16 MiB limit: the file's first
 *    lives cover exactly its 8192 pages, 16384 touches and accesses, 4096
 *    pages of limit, nothing lost, the cachestat, reclaim, reclaim-end and
 *    lost checks "ok", the pages reclaimed at least the file's;
 *  - hs_recorder_stop() from a SIGALRM handler in the middle of a long loop
 *    workload: wait ends, the workload dies of SIGTERM, the session is
 *    built as "interrupted" with lives;
 *  - a command that cannot run: start fails with its errno and the message
 *    `hsctl record` prints, and no session is left;
 *  - a recorder process that dies in the middle (a child that _exit()s):
 *    hs_recorder_recover_stale() builds its session as "killed", with events,
 *    and hs_recorder_recover() removes the undo note it left.
 *
 * After every live case nothing of this process is left: no tracefs
 * instance or cgroup hsctl_<pid>, the temporary files removed.  When the
 * live part cannot run, each live case says why and the program exits 77
 * after the others passed (1 when one of them failed).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cgroup.h"
#include "harness.h"
#include "recorder.h"
#include "store.h"
#include "undo.h"
#include "workload.h"

#define MIB		(UINT64_C(1) << 20)
#define FILE_MIB	32				/* the data file */
#define FILE_PAGES	(FILE_MIB * MIB / 4096)		/* 8192 */
#define LIMIT		(16 * MIB)			/* 4096 pages */

static bool live_skipped;	/* a live case could not run */
static int live_lock = -1;	/* /tmp/hsctl-live.lock, taken once */
static char dir[64];		/* the live cases' directory, "" before */
static char data[128];		/* the data file in it */
static char db[128];		/* the database in it */
static char notes[4096];	/* the recorder's notes so far */

/* hs_recorder_note_fn: collect, one line each. */
static void note(void *arg, enum hs_recorder_level level, const char *msg)
{
	size_t len = strlen(notes);

	(void)arg;
	snprintf(notes + len, sizeof(notes) - len, "%s%s\n",
		 level == HS_RECORDER_WARN ? "warning: " : "", msg);
}

/* ---- options refused by hs_recorder_new() ---- */

/* new() with @o must fail with @err and a message containing @msg. */
static void refused(const struct hs_recorder_opts *o, int err, const char *msg)
{
	struct hs_recorder *r = NULL;

	T_EQ_I64(hs_recorder_new(o, &r), err);
	T_ASSERT(r != NULL);
	if (r && !strstr(hs_recorder_errmsg(r), msg))
		t_fail(__FILE__, __LINE__, "message \"%s\", expected it to contain \"%s\"",
		       hs_recorder_errmsg(r), msg);
	hs_recorder_free(r);
}

static void t_new_bad_options(void)
{
	static char *const cmd[] = { "true", NULL };
	static char *const empty[] = { NULL };
	struct hs_workload_opts w = { .name = "scan-twice" };
	struct hs_recorder_opts o;

	o = (struct hs_recorder_opts){ .workload = &w, .cmd = cmd };
	refused(&o, -EINVAL, "record: give a workload or a command, not both");
	o = (struct hs_recorder_opts){ 0 };
	refused(&o, -EINVAL, "record: nothing to record");
	o = (struct hs_recorder_opts){ .cmd = empty };
	refused(&o, -EINVAL, "record: nothing to record");
	o = (struct hs_recorder_opts){ .workload = &w, .sample_numa = true };
	refused(&o, -EINVAL, "sampling is for commands: built-in workloads log every touch");
	o = (struct hs_recorder_opts){ .cmd = cmd, .limit_bytes = MIB - 1 };
	refused(&o, -EINVAL, "a memory limit of 1048575 bytes: expected none or 1M+");
	o = (struct hs_recorder_opts){ .cmd = cmd, .duration = -1 };
	refused(&o, -EINVAL, "a duration of -1 s: expected 0 to 31536000");
	o = (struct hs_recorder_opts){ .cmd = cmd, .buffer_kb = 4 };
	refused(&o, -EINVAL, "a buffer of 4 KiB: expected 8 to 4194304");
	o = (struct hs_recorder_opts){ .cmd = cmd, .buffer_kb = (4u << 20) + 1 };
	refused(&o, -EINVAL, "a buffer of 4194305 KiB");
	hs_recorder_free(NULL);
}

/* A bad workload option is the workload's message (root only: the euid comes first). */
static void t_new_bad_workload(void)
{
	struct hs_workload_opts w = { .name = "scan-thrice" };
	struct hs_recorder_opts o = { .workload = &w };

	if (geteuid()) {
		t_skip("not root: hs_recorder_new() refuses before the workload");
		return;
	}
	refused(&o, -EINVAL, "workload: ");
	w = (struct hs_workload_opts){ .name = "scan-twice", .file = "/nonexistent/data" };
	refused(&o, -ENOENT, "workload: ");
}

/* Not root: -EPERM and the reason, from a child with euid 65534 when we are root. */
static void t_new_not_root(void)
{
	static char *const cmd[] = { "true", NULL };
	struct hs_recorder_opts o = { .cmd = cmd };
	struct hs_recorder *r = NULL;
	int err, status = 0;
	pid_t pid;

	if (geteuid()) {
		T_EQ_I64(hs_recorder_new(&o, &r), -EPERM);
		T_ASSERT(r && strstr(hs_recorder_errmsg(r), "record: needs root for tracefs"));
		hs_recorder_free(r);
		return;
	}
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		if (seteuid(65534))
			_exit(3);
		err = hs_recorder_new(&o, &r);
		if (err != -EPERM)
			_exit(1);
		if (strcmp(hs_recorder_errmsg(r), "record: needs root for tracefs and a "
			   "memory cgroup (euid 65534)"))
			_exit(2);
		hs_recorder_free(r);
		_exit(0);
	}
	T_EQ_I64(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status));
	T_EQ_I64(WEXITSTATUS(status), 0);	/* 1: not -EPERM, 2: the message, 3: seteuid */
}

/* The steps in order only: wait and build before start are refused. */
static void t_steps_in_order(void)
{
	static char *const cmd[] = { "true", NULL };
	struct hs_recorder_opts o = { .cmd = cmd };
	struct hs_recorder *r = NULL;

	if (geteuid()) {
		t_skip("not root: no recorder can be made");
		return;
	}
	T_EQ_I64(hs_recorder_new(&o, &r), 0);
	T_EQ_I64(hs_recorder_wait(r, 0), -EINVAL);
	T_EQ_I64(hs_recorder_build(r), -EINVAL);
	T_EQ_STR(hs_recorder_errmsg(r), "record: the recording has not ended");
	T_EQ_I64(hs_recorder_session(r), 0);
	T_EQ_I64(hs_recorder_stop_signal(r), 0);
	hs_recorder_free(r);
}

/* ---- live ---- */

/* Write @mib MiB of zeros to @path and flush them.  Return: 0 or -errno. */
static int write_file(const char *path, unsigned int mib)
{
	static char buf[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err = 0;

	if (fd < 0)
		return -errno;
	for (unsigned int i = 0; i < mib && !err; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			err = -EIO;
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Ready for a live case: root, the lock, a directory on a disk with the
 * data file, no database yet.  Otherwise t_skip() with the reason.
 */
static bool live_ready(void)
{
	const char *tmp;
	struct stat sb;
	int err;

	if (geteuid()) {
		t_skip("not root: tracefs and memory cgroups need it");
		live_skipped = true;
		return false;
	}
	if (live_lock < 0) {
		char why[256];

		live_lock = t_live_lock(why, sizeof(why));
		if (live_lock < 0) {
			t_skip("%s", why);
			live_skipped = true;
			return false;
		}
	}
	if (!dir[0]) {
		/* the workload refuses a tmpfs: /var/tmp, as it would choose */
		tmp = "/var/tmp";
		snprintf(dir, sizeof(dir), "%s/t-recorder.XXXXXX", tmp);
		if (!mkdtemp(dir)) {
			t_skip("%s: cannot make a directory: %s", tmp, strerror(errno));
			dir[0] = '\0';
			live_skipped = true;
			return false;
		}
		snprintf(data, sizeof(data), "%s/data", dir);
		snprintf(db, sizeof(db), "%s/t.db", dir);
		err = write_file(data, FILE_MIB);
		if (err) {
			t_fail(__FILE__, __LINE__, "%s: %s", data, strerror(-err));
			return false;
		}
	}
	T_ASSERT(stat(data, &sb) == 0);
	return true;
}

/* Nothing of this process is left in tracefs or the cgroup tree. */
static void nothing_left(void)
{
	char tdir[256], path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s%d", HS_CAPTURE_PREFIX, (int)getpid());
	T_ASSERT(stat(path, &sb) && errno == ENOENT);
	snprintf(path, sizeof(path), "/sys/fs/cgroup/memory/%s%d", HS_CAPTURE_PREFIX,
		 (int)getpid());
	T_ASSERT(stat(path, &sb) && errno == ENOENT);
	if (!hs_tracefs_find(tdir, sizeof(tdir))) {
		snprintf(path, sizeof(path), "%s/instances/%s%d", tdir, HS_CAPTURE_PREFIX,
			 (int)getpid());
		T_ASSERT(stat(path, &sb) && errno == ENOENT);
	}
}

static int int_cb(const struct hs_sql_row *row, void *arg)
{
	int64_t *v = arg;

	*v = row->ncols && row->types[0] == HS_SQL_INT ? row->ints[0] : -2;
	return 1;
}

/* The first column of the first row of @sql: an integer, -1 none, -2 not an integer. */
static int64_t sql_int(struct hs_store *st, const char *sql)
{
	int64_t v = -1;
	int err = hs_store_query(st, sql, int_cb, &v);

	if (err && err != 1)
		t_fail(__FILE__, __LINE__, "%s: %s", sql, hs_store_errmsg(st));
	return v;
}

static int text_cb(const struct hs_sql_row *row, void *arg)
{
	char *buf = arg;

	snprintf(buf, 64, "%s", row->ncols && row->types[0] == HS_SQL_TEXT ? row->texts[0]
									   : "(not text)");
	return 1;
}

/* The first column of the first row of @sql as text into @buf (64 bytes), "" none. */
static const char *sql_text(struct hs_store *st, const char *sql, char *buf)
{
	int err;

	buf[0] = '\0';
	err = hs_store_query(st, sql, text_cb, buf);
	if (err && err != 1)
		t_fail(__FILE__, __LINE__, "%s: %s", sql, hs_store_errmsg(st));
	return buf;
}

static struct hs_store *open_db(void)
{
	struct hs_store *st = NULL;

	if (hs_store_open(db, 0, &st)) {
		t_fail(__FILE__, __LINE__, "%s: %s", db, st ? hs_store_errmsg(st) : "no memory");
		hs_store_close(st);
		return NULL;
	}
	return st;
}

/*
 * new() and start() for a live case; a machine that cannot record skips.
 * Return: the started recorder, or NULL (freed; failed or skipped).
 */
static struct hs_recorder *live_start(const struct hs_recorder_opts *o, struct hs_store *st)
{
	struct hs_recorder *r = NULL;
	int err;

	err = hs_recorder_new(o, &r);
	if (err) {
		t_fail(__FILE__, __LINE__, "new: %d %s", err, r ? hs_recorder_errmsg(r) : "");
		hs_recorder_free(r);
		return NULL;
	}
	err = hs_recorder_start(r, st);
	if (err == -ENODEV) {
		t_skip("this machine cannot record: %s", hs_recorder_errmsg(r));
		live_skipped = true;
	} else if (err) {
		t_fail(__FILE__, __LINE__, "start: %d %s", err, hs_recorder_errmsg(r));
	}
	if (err) {
		hs_recorder_free(r);
		return NULL;
	}
	return r;
}

static void t_live_scan_twice(void)
{
	struct hs_workload_opts w = { .name = "scan-twice", .file = data };
	struct hs_recorder_opts o = { .limit_bytes = LIMIT, .workload = &w, .name = "scan",
				      .note = note };
	const struct hs_recorder_summary *s;
	struct hs_recorder *r;
	struct hs_store *st;
	char sql[512], buf[64];
	struct stat sb;
	int64_t id;

	if (!live_ready() || !(st = open_db()))
		return;
	r = live_start(&o, st);
	if (!r)
		goto out;
	id = hs_recorder_session(r);
	T_ASSERT(id > 0);
	T_EQ_STR(sql_text(st, "SELECT status FROM sessions ORDER BY id DESC LIMIT 1", buf),
		 "recording");
	T_EQ_I64(hs_recorder_wait(r, -1), 0);
	T_EQ_I64(hs_recorder_wait(r, -1), 0);	/* ended stays ended */
	T_EQ_I64(hs_recorder_stop_signal(r), 0);
	T_EQ_U64(hs_recorder_lost(r), 0);
	T_EQ_I64(hs_recorder_build(r), 0);
	s = hs_recorder_summary(r);
	T_EQ_I64(s->session, id);
	T_EQ_STR(s->status, "complete");
	T_EQ_I64(s->wexit, 0);
	T_EQ_I64(s->wsig, 0);
	T_EQ_U64(s->lost, 0);
	T_EQ_U64(s->touches, 2 * FILE_PAGES);
	T_EQ_U64(s->accesses, 2 * FILE_PAGES);
	T_EQ_U64(s->limit_pages, LIMIT / 4096);
	T_EQ_STR(s->visibility, "exact");
	T_ASSERT(s->reclaimed >= FILE_PAGES);
	T_ASSERT(s->refaults > 0);
	T_ASSERT(s->events > s->lives && s->lives > 0);
	T_ASSERT(stat(data, &sb) == 0);
	/* every page of the file came in once before any of it came back */
	snprintf(sql, sizeof(sql), "SELECT sum(pages) FROM v_folio_lives WHERE session = %"
		 PRId64 " AND kind = 'file' AND ino = %" PRIu64 " AND NOT refault", id,
		 (uint64_t)sb.st_ino);
	T_EQ_I64(sql_int(st, sql), FILE_PAGES);
	snprintf(sql, sizeof(sql), "SELECT status || ' ' || name FROM sessions WHERE id = %"
		 PRId64, id);
	T_EQ_STR(sql_text(st, sql, buf), "complete scan");
	snprintf(sql, sizeof(sql), "SELECT group_concat(name || '=' || status, ' ') FROM "
		 "(SELECT name, status FROM record_checks WHERE session = %" PRId64 " AND name "
		 "IN ('cachestat', 'reclaim', 'reclaim-end', 'lost') ORDER BY name)", id);
	T_EQ_STR(sql_text(st, sql, buf), "cachestat=ok lost=ok reclaim=ok reclaim-end=ok");
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM record_spool WHERE session = %" PRId64,
		 id);
	T_EQ_I64(sql_int(st, sql), 0);
	T_EQ_STR(notes, "");
	hs_recorder_free(r);
out:
	nothing_left();
	hs_store_close(st);
}

static struct hs_recorder *alarmed;	/* stopped by on_alarm() */

static void on_alarm(int sig)
{
	(void)sig;
	hs_recorder_stop(alarmed, SIGTERM);
}

static void t_live_stop(void)
{
	struct hs_workload_opts w = { .name = "loop", .file = data, .passes = 100000 };
	struct hs_recorder_opts o = { .limit_bytes = LIMIT, .workload = &w, .note = note };
	struct itimerval it = { .it_value = { 1, 0 } };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	const struct hs_recorder_summary *s;
	struct hs_recorder *r;
	struct hs_store *st;
	char sql[256], buf[64];
	struct timespec t0, t1;
	double secs;
	int err;

	if (!live_ready() || !(st = open_db()))
		return;
	r = live_start(&o, st);
	if (!r)
		goto out;
	/* still running after 0.3 s: 100000 passes over 8192 pages take minutes */
	T_EQ_I64(hs_recorder_wait(r, 0.3), 1);
	alarmed = r;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setitimer(ITIMER_REAL, &it, NULL);
	err = hs_recorder_wait(r, -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sigaction(SIGALRM, &old, NULL);
	T_EQ_I64(err, 0);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* ended by the alarm at 1 s (the spool drained after it), not by the workload */
	T_ASSERT(secs >= 0.9 && secs < 30);
	T_EQ_I64(hs_recorder_stop_signal(r), SIGTERM);
	T_EQ_I64(hs_recorder_build(r), 0);
	s = hs_recorder_summary(r);
	T_EQ_STR(s->status, "interrupted");
	T_EQ_I64(s->wexit, -1);
	T_EQ_I64(s->wsig, SIGTERM);
	T_ASSERT(s->lives > 0 && s->touches > 0);
	snprintf(sql, sizeof(sql), "SELECT status FROM sessions WHERE id = %" PRId64, s->session);
	T_EQ_STR(sql_text(st, sql, buf), "interrupted");
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM v_folio_lives WHERE session = %" PRId64,
		 s->session);
	T_EQ_U64(sql_int(st, sql), s->lives);
	T_EQ_STR(sql_text(st, "PRAGMA integrity_check", buf), "ok");
	hs_recorder_free(r);
out:
	nothing_left();
	hs_store_close(st);
}

static void t_live_cannot_run(void)
{
	static char *const cmd[] = { "/nonexistent/cmd", "x", NULL };
	struct hs_recorder_opts o = { .cmd = cmd, .note = note };
	struct hs_recorder *r = NULL;
	struct hs_store *st;
	int64_t before;
	int err;

	if (!live_ready() || !(st = open_db()))
		return;
	before = sql_int(st, "SELECT count(*) FROM sessions");
	T_EQ_I64(hs_recorder_new(&o, &r), 0);
	err = hs_recorder_start(r, st);
	if (err == -ENODEV) {
		t_skip("this machine cannot record: %s", hs_recorder_errmsg(r));
		live_skipped = true;
	} else {
		T_EQ_I64(err, -ENOENT);
		T_EQ_STR(hs_recorder_errmsg(r), "record: cannot run '/nonexistent/cmd': No such "
			 "file or directory");
		T_EQ_I64(sql_int(st, "SELECT count(*) FROM sessions"), before);
		T_EQ_I64(sql_int(st, "SELECT count(*) FROM record_spool"), 0);
		T_EQ_I64(hs_recorder_wait(r, 0), -EINVAL);
	}
	hs_recorder_free(r);
	nothing_left();
	hs_store_close(st);
}

/* Undo notes of process @pid in /run/hsctl (lib/undo.h). */
static int notes_of(pid_t pid)
{
	char prefix[32];
	struct dirent *de;
	DIR *d = opendir(HS_UNDO_DIR);
	int n = 0;

	if (!d)
		return 0;
	snprintf(prefix, sizeof(prefix), "%d-", (int)pid);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* A recorder process killed in the middle; the next one's recovery builds it. */
static void t_live_recover(void)
{
	struct hs_workload_opts w = { .name = "loop", .file = data, .passes = 100000 };
	/* a small buffer: the readers wake at 16 KiB, the spool has events soon */
	struct hs_recorder_opts o = { .limit_bytes = LIMIT, .workload = &w, .buffer_kb = 64 };
	struct hs_recorder *r = NULL;
	struct hs_store *st;
	char sql[256], buf[64], spool[256];
	char tdir[256] = "";
	unsigned int removed = 0;
	int status = 0, err;
	bool mounted;
	int64_t id;
	pid_t pid;

	if (!live_ready() || !(st = open_db()))
		return;
	mounted = !hs_tracefs_find(tdir, sizeof(tdir));
	T_EQ_I64(sql_int(st, "SELECT count(*) FROM sessions WHERE status = 'recording'"), 0);
	hs_store_close(st);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		/* the recorder to kill: its own store, started, then gone mid-run */
		if (hs_store_open(db, 0, &st) || hs_recorder_new(&o, &r))
			_exit(3);
		err = hs_recorder_start(r, st);
		if (err) {
			hs_recorder_free(r);
			_exit(err == -ENODEV ? 4 : 3);
		}
		hs_recorder_wait(r, 1.5);
		_exit(0);
	}
	T_EQ_I64(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
		t_skip("this machine cannot record");
		live_skipped = true;
		return;
	}
	T_EQ_I64(WEXITSTATUS(status), 0);
	/*
	 * What a dead recorder leaves: its workload in its cgroup, its tracefs
	 * instance, tracefs mounted if it mounted it.  (Others' leftovers may
	 * be removed too: at least one each.)
	 */
	T_EQ_I64(hs_cgroup_cleanup_stale(&removed), 0);
	T_ASSERT(removed >= 1);
	if (!hs_tracefs_find(tdir, sizeof(tdir))) {
		removed = 0;
		T_EQ_I64(hs_capture_cleanup_stale(tdir, &removed), 0);
		T_ASSERT(removed >= 1);
		if (!mounted && umount2(tdir, 0))
			t_fail(__FILE__, __LINE__, "umount %s: %s", tdir, strerror(errno));
	}
	if (!(st = open_db()))
		return;
	/* the one it left, still 'recording' */
	T_EQ_I64(sql_int(st, "SELECT count(*) FROM sessions WHERE status = 'recording'"), 1);
	id = sql_int(st, "SELECT id FROM sessions WHERE status = 'recording'");
	snprintf(sql, sizeof(sql), "SELECT status FROM sessions WHERE id = %" PRId64, id);
	/* its spool is still in files beside the database, none of it in record_spool */
	snprintf(spool, sizeof(spool), "%s-spool-%" PRId64 "/cpu0", db, id);
	T_EQ_I64(access(spool, F_OK), 0);
	T_EQ_I64(sql_int(st, "SELECT count(*) FROM record_spool"), 0);
	notes[0] = '\0';
	T_EQ_I64(hs_recorder_recover_stale(st, note, NULL), 1);
	T_EQ_STR(sql_text(st, sql, buf), "killed");
	/* moved into the store, built, and the files removed */
	T_ASSERT(access(spool, F_OK) && errno == ENOENT);
	*strrchr(spool, '/') = '\0';
	T_ASSERT(access(spool, F_OK) && errno == ENOENT);
	snprintf(sql, sizeof(sql), "SELECT count(*) > 0 FROM events WHERE session = %" PRId64, id);
	T_EQ_I64(sql_int(st, sql), 1);
	T_EQ_I64(sql_int(st, "SELECT count(*) FROM record_spool"), 0);
	snprintf(sql, sizeof(sql), "warning: session %" PRId64 " of a killed recorder (pid %d) "
		 "built from its spool: ", id, (int)pid);
	T_ASSERT(!strncmp(notes, sql, strlen(sql)));
	/* built once: nothing left to recover */
	T_EQ_I64(hs_recorder_recover_stale(st, note, NULL), 0);
	/* its undo note, whose items were all cleaned up by hand above, is removed */
	T_ASSERT(hs_recorder_recover(NULL, NULL, st, NULL, note, NULL) >= 0);
	T_EQ_I64(notes_of(pid), 0);
	hs_store_close(st);
	nothing_left();
}

/* put(DIR, NAME, TEXT): a file as a module parameter; 0 or -1 (a failure is reported). */
static int put(const char *d, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		t_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * hs_recorder_module_params() on a fake /sys/module/damon_lru_sort/parameters: the
 * members in name order, Y/N as booleans, decimals as numbers (kdamond_pid's -1 too),
 * other text as a string; an unreadable file left out; a missing directory "absent".
 */
static void t_module_params(void)
{
	static const char *const files[] = { "enabled", "hot_thres_access_freq", "kdamond_pid",
					     "cold_min_age", "commit_inputs", "odd", "secret",
					     "bytes_lru_sorted_hot_regions" };
	char d[] = "/tmp/hsctl-t-params.XXXXXX", path[256], missing[300], *out = NULL;

	if (!mkdtemp(d)) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	if (put(d, "enabled", "Y\n") || put(d, "commit_inputs", "N\n") ||
	    put(d, "hot_thres_access_freq", "500\n") || put(d, "cold_min_age", "1000000\n") ||
	    put(d, "kdamond_pid", "-1\n") || put(d, "odd", "12ab\n") ||
	    put(d, "bytes_lru_sorted_hot_regions", "18446744073709551615\n") ||
	    put(d, "secret", "1\n"))
		goto out;
	snprintf(path, sizeof(path), "%s/secret", d);
	chmod(path, 0200);	/* unreadable, but root reads anyway: then it stays in */
	T_EQ_I64(hs_recorder_module_params(d, &out), 0);
	if (geteuid() == 0)
		T_EQ_STR(out, "{\"bytes_lru_sorted_hot_regions\":18446744073709551615,"
			 "\"cold_min_age\":1000000,\"commit_inputs\":false,\"enabled\":true,"
			 "\"hot_thres_access_freq\":500,\"kdamond_pid\":-1,\"odd\":\"12ab\","
			 "\"secret\":1}");
	else
		T_EQ_STR(out, "{\"bytes_lru_sorted_hot_regions\":18446744073709551615,"
			 "\"cold_min_age\":1000000,\"commit_inputs\":false,\"enabled\":true,"
			 "\"hot_thres_access_freq\":500,\"kdamond_pid\":-1,\"odd\":\"12ab\"}");
	free(out);
	out = NULL;
	snprintf(missing, sizeof(missing), "%s/no-such-module", d);
	T_EQ_I64(hs_recorder_module_params(missing, &out), 0);
	T_EQ_STR(out, "\"absent\"");
	free(out);
	out = NULL;
	/* a file where the directory should be: absent too */
	snprintf(missing, sizeof(missing), "%s/enabled/parameters", d);
	T_EQ_I64(hs_recorder_module_params(missing, &out), 0);
	T_EQ_STR(out, "\"absent\"");
	free(out);
out:
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", d, files[i]);
		unlink(path);
	}
	if (rmdir(d))
		t_fail(__FILE__, __LINE__, "rmdir %s: %s", d, strerror(errno));
}

static const struct t_case cases[] = {
	{ "new_bad_options", t_new_bad_options },
	{ "new_bad_workload", t_new_bad_workload },
	{ "new_not_root", t_new_not_root },
	{ "steps_in_order", t_steps_in_order },
	{ "module_params", t_module_params },
	{ "live_scan_twice", t_live_scan_twice },
	{ "live_stop", t_live_stop },
	{ "live_cannot_run", t_live_cannot_run },
	{ "live_recover", t_live_recover },
};

/* Remove the live cases' directory: the data file and the database with its WAL. */
static void remove_dir(void)
{
	static const char *const names[] = { "data", "t.db", "t.db-wal", "t.db-shm" };
	char path[192];

	if (!dir[0])
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	if (rmdir(dir))
		fprintf(stderr, "t-recorder: %s: %s\n", dir, strerror(errno));
}

int main(int argc, char **argv)
{
	int rc = t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);

	remove_dir();
	if (live_lock >= 0)
		close(live_lock);
	if (rc == 0 && live_skipped) {
		printf("SKIP: the live part did not run (reasons above)\n");
		return 77;
	}
	return rc;
}
