/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fault loop of tests/cli/faults.sh for the recorder's offline build,
 * in one process as SQLite's own malloc tests run: hs_recorder_recover_stale()
 * builds the spool a killed recorder left (the path `hsctl record` takes
 * first) with its Nth allocation or write made to fail, N = 1, 2, ... (or a
 * sample, as in faults.sh: N = 1..4, HSCTL_FAULTS_SAMPLES (8) more spread
 * between, the last 8; every N with HSCTL_FAULTS_FULL=1), on a fresh copy of
 * the database each time.  A recording made by a child process that then exits
 * is the killed recorder: its spool is testdata/decode's page 655 (one
 * 6.12 sub-buffer, 106 events) with the 6.12 format files, and with
 * $HSCTL_SHARED the first CAPTURE_SUBBUFS sub-buffers of each CPU of the
 * whole 6.12 capture in fixtures/tracefs.
 *
 * Every run must end cleanly: either the session is built (status
 * "killed", the counts of a good build, the spool dropped or, with a
 * warning, kept) or the failure is a documented
 * errno or a warning, and then nothing of the build is kept (status still
 * "recording", no events, lives, chunks or keys, the spool whole) and a
 * build without fault succeeds with the good counts; PRAGMA integrity_check
 * says ok either way.  Leaks show at exit under LeakSanitizer.  Needs
 * --enable-fault-injection, else exits 77; the module reads HSCTL_FAULT_*
 * at start-up, so the program re-executes itself with HSCTL_FAULT_ALLOC=0.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "harness.h"
#include "hs.h"
#include "recorder.h"
#include "store.h"

#define SUBBUF		4096		/* sub-buffer size of the fixtures */
#define CAPTURE_SUBBUFS	6		/* per CPU, of the 6.12 capture */

static char scratch[64];		/* this run's directory */
static unsigned int samples = 8;	/* HSCTL_FAULTS_SAMPLES */
static bool full;			/* HSCTL_FAULTS_FULL=1 */

/* ---- files and queries ---- */

static void *slurp(const char *path, size_t *len)
{
	struct stat sb;
	char *buf = NULL;
	int fd = open(path, O_RDONLY);

	*len = 0;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &sb) && (buf = malloc((size_t)sb.st_size + 1))) {
		if (read(fd, buf, (size_t)sb.st_size) != sb.st_size) {
			free(buf);
			buf = NULL;
		} else {
			buf[sb.st_size] = '\0';
			*len = (size_t)sb.st_size;
		}
	}
	close(fd);
	return buf;
}

/* @to, without the -wal and -shm files of an earlier run, as a copy of @from */
static int copy_file(const char *from, const char *to)
{
	char side[128];
	size_t len;
	void *p = slurp(from, &len);
	int fd, err = 0;

	if (!p)
		return -errno;
	snprintf(side, sizeof(side), "%s-wal", to);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", to);
	unlink(side);
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, p, len) != (ssize_t)len)
		err = -EIO;
	if (fd >= 0)
		close(fd);
	free(p);
	return err;
}

static int text_cb(const struct hs_sql_row *row, void *arg)
{
	char *out = arg;

	if (row->ncols && row->types[0] == HS_SQL_INT)
		snprintf(out, 128, "%" PRId64, row->ints[0]);
	else if (row->ncols && row->types[0] == HS_SQL_TEXT)
		snprintf(out, 128, "%s", row->texts[0]);
	return 1;
}

/* What the database holds of session 1, and its integrity, as one line. */
static void db_state(const char *path, char *out, size_t len)
{
	static const char *const q[] = {
		"SELECT status FROM sessions WHERE id = 1",
		"SELECT count(*) FROM events WHERE session = 1",
		"SELECT count(*) FROM folio_lives WHERE session = 1",
		"SELECT count(*) FROM access_chunks WHERE session = 1",
		"SELECT count(*) FROM session_keys WHERE session = 1",
		"SELECT count(*) FROM record_keys WHERE session = 1",
		"SELECT count(*) FROM record_spool WHERE session = 1",
		"PRAGMA integrity_check",
	};
	struct hs_store *st = NULL;
	size_t off = 0, i;

	out[0] = '\0';
	if (hs_store_open(path, HS_STORE_RDONLY, &st)) {
		snprintf(out, len, "cannot open: %s", st ? hs_store_errmsg(st) : "no memory");
		hs_store_close(st);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(q) && off < len; i++) {
		char v[128] = "?";

		if (hs_store_query(st, q[i], text_cb, v))
			snprintf(v, sizeof(v), "error: %s", hs_store_errmsg(st));
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? " " : "", v);
	}
	hs_store_close(st);
}

/* ---- the killed recorder ---- */

static int save_file(struct hs_store *st, const char *dir, const char *rel)
{
	char path[600];
	size_t len;
	void *p;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	p = slurp(path, &len);
	if (!p)
		return -ENOENT;
	err = hs_record_save_format(st, 1, rel, p, len);
	free(p);
	return err;
}

static struct {
	struct hs_store	*st;
	const char	*dir;
	size_t		root;
} walk;

static int save_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *rel = path + walk.root + 1;
	size_t len = strlen(rel);

	(void)sb;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (strcmp(rel, "events/header_page") && (len < 7 || strcmp(rel + len - 7, "/format")))
		return 0;
	return save_file(walk.st, walk.dir, rel) ? 1 : 0;
}

/* In a child, which then exits: a recording of session 1 with formats and spool. */
static int make_recording(const char *db, const char *fmt_dir, const char *const *raw,
			  const int *cpus, const size_t *nr_subbufs, size_t nr_raw)
{
	const struct hs_record_meta m = {
		.name = "t-faults", .origin = "tests/t-faults", .kind = "file",
		.channel = "fd", .visibility = "faults", .kernel = "6.12", .lru_gen = "absent",
		.clock = "mono", .instance = "hsctl_test", .page_size = 4096,
		.events_json = "[]",
	};
	struct hs_store *st = NULL;
	char events[600];
	int64_t id = 0;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int err = hs_store_open(db, 0, &st);

		if (!err)
			err = hs_record_create(st, &m, &id);
		if (!err && id != 1)
			err = -EINVAL;
		walk.st = st;
		walk.dir = fmt_dir;
		walk.root = strlen(fmt_dir);
		snprintf(events, sizeof(events), "%s/events", fmt_dir);
		if (!err && nftw(events, save_one, 16, FTW_PHYS))
			err = -EIO;
		if (!err)
			err = hs_store_tx_begin(st);
		for (size_t f = 0; !err && f < nr_raw; f++) {
			size_t len;
			uint8_t *p = slurp(raw[f], &len);

			if (!p || len < nr_subbufs[f] * SUBBUF)
				err = -ENOENT;
			for (size_t i = 0; !err && i < nr_subbufs[f]; i++)
				err = hs_spool_add(st, 1, cpus[f], i, p + i * SUBBUF, SUBBUF);
			free(p);
		}
		if (!err)
			err = hs_store_tx_commit(st);
		if (err)
			fprintf(stderr, "make_recording: %d %s\n", err, st ? hs_store_errmsg(st) : "");
		hs_store_close(st);
		_exit(err ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -EIO;
	return 0;
}

/* ---- the loop ---- */

static int notes;			/* warnings hs_recorder_recover_stale() gave */

static void note_cb(void *arg, enum hs_recorder_level level, const char *msg)
{
	(void)arg;
	(void)level;
	(void)msg;
	notes++;
}

/* Recover the stale recording in @db with a fault chosen; returns its result. */
static int recover(const char *db, uint64_t alloc, uint64_t io, bool persist,
		   struct hs_fault_stats *fs)
{
	struct hs_store *st = NULL;
	int ret;

	hs_fault_pause();
	ret = hs_store_open(db, 0, &st);
	if (ret) {
		t_fail(__FILE__, __LINE__, "open %s: %d", db, ret);
		hs_store_close(st);
		return ret;
	}
	notes = 0;
	hs_fault_set(alloc, io, persist);
	ret = hs_recorder_recover_stale(st, note_cb, NULL);
	hs_store_close(st);
	hs_fault_pause();
	hs_fault_get_stats(fs);
	return ret;
}

/*
 * A good build whose spool could not be dropped (a warning says so): @good
 * with the spool count of @before, the 7th word of db_state().
 */
static void spool_kept(const char *good, const char *before, char *out, size_t len)
{
	const char *g = good, *b = before, *g_end, *b_end;

	for (int i = 0; i < 6 && g && b; i++) {
		g = strchr(g, ' ');
		b = strchr(b, ' ');
		g = g ? g + 1 : NULL;
		b = b ? b + 1 : NULL;
	}
	if (!g || !b || !(g_end = strchr(g, ' ')) || !(b_end = strchr(b, ' '))) {
		snprintf(out, len, "?");
		return;
	}
	snprintf(out, len, "%.*s%.*s%s", (int)(g - good), good, (int)(b_end - b), b, g_end);
}

/* One run with the Nth call of a kind failing; checks what it left. */
static void one(const char *tpl, const char *good, const char *before, bool is_alloc,
		uint64_t n, bool persist, unsigned int *fired, unsigned int *absorbed)
{
	char kept[512];
	char db[96], got[512], again[512];
	struct hs_fault_stats fs;
	const char *what = is_alloc ? "alloc" : "io";
	int ret;

	snprintf(db, sizeof(db), "%s/run.db", scratch);
	if (copy_file(tpl, db)) {
		t_fail(__FILE__, __LINE__, "cannot copy %s", tpl);
		return;
	}
	ret = recover(db, is_alloc ? n : 0, is_alloc ? 0 : n, persist, &fs);
	db_state(db, got, sizeof(got));
	spool_kept(good, before, kept, sizeof(kept));
	if (fs.fired)
		(*fired)++;
	if (ret == 1) {
		if (fs.fired)
			(*absorbed)++;
		if (fs.fired && getenv("T_VERBOSE") && atoi(getenv("T_VERBOSE")) > 1)
			fprintf(stderr, "# %s %" PRIu64 "%s: built all the same, %d warnings\n", what,
				n, persist ? " persistent" : "", notes);
		if (strcmp(got, good) && (notes != 2 || strcmp(got, kept)))
			t_fail(__FILE__, __LINE__, "%s %" PRIu64 "%s: built, but '%s', not '%s'",
			       what, n, persist ? " persistent" : "", got, good);
		return;
	}
	if (!fs.fired) {
		t_fail(__FILE__, __LINE__, "%s %" PRIu64 ": %d without a fault", what, n, ret);
		return;
	}
	if (ret < 0 && ret != -ENOMEM && ret != -ENOSPC && ret != -EIO)
		t_fail(__FILE__, __LINE__, "%s %" PRIu64 "%s: error %d (%s) is not a runtime failure",
		       what, n, persist ? " persistent" : "", ret, strerror(-ret));
	if (ret == 0 && notes != 1)
		t_fail(__FILE__, __LINE__, "%s %" PRIu64 ": not built, %d warnings", what, n, notes);
	if (strcmp(got, before))
		t_fail(__FILE__, __LINE__, "%s %" PRIu64 "%s: not built, but '%s', not '%s'",
		       what, n, persist ? " persistent" : "", got, before);
	/* the spool is whole: a build without fault succeeds */
	ret = recover(db, 0, 0, false, &fs);
	db_state(db, again, sizeof(again));
	if (ret != 1 || strcmp(again, good))
		t_fail(__FILE__, __LINE__, "%s %" PRIu64 "%s: the rebuild gave %d, '%s', not '%s'",
		       what, n, persist ? " persistent" : "", ret, again, good);
}

static void loop(const char *tpl)
{
	char db[96], good[512], before[512];
	struct hs_fault_stats fs;
	unsigned int runs = 0, fired = 0, absorbed = 0;
	int kind;

	db_state(tpl, before, sizeof(before));
	snprintf(db, sizeof(db), "%s/run.db", scratch);
	if (copy_file(tpl, db)) {
		t_fail(__FILE__, __LINE__, "cannot copy %s", tpl);
		return;
	}
	T_EQ_I64(recover(db, 0, 0, false, &fs), 1);
	db_state(db, good, sizeof(good));
	T_ASSERT(!strncmp(good, "killed ", 7));
	T_ASSERT(!strncmp(before, "recording 0 0 0 0 0 ", 20));
	for (kind = 0; kind < 2; kind++) {
		uint64_t total = kind ? fs.ios : fs.allocs, n;
		unsigned int i = 0, k = 0;

		if (full) {
			for (int p = 0; p < 2; p++)
				for (n = 1; n <= total + 1; n++, runs++)
					one(tpl, good, before, !kind, n, p, &fired, &absorbed);
			continue;
		}
		/* as faults.sh: 1..4, @samples spread between, the last 8, one past */
		for (n = 1; n <= total + 1; i++, runs++) {
			one(tpl, good, before, !kind, n, i % 2, &fired, &absorbed);
			if (total <= samples + 12 || n < 4 || n >= total - 8) {
				n++;
				continue;
			}
			for (; k < samples && 4 + (k + 1) * (total - 12) / (samples + 1) <= n; k++)
				;
			n = k < samples ? 4 + (k + 1) * (total - 12) / (samples + 1) : total - 7;
			k++;
		}
	}
	if (getenv("T_VERBOSE") || t_case_failed())
		fprintf(stderr, "# %" PRIu64 " allocations, %" PRIu64 " writes; %u runs, %u reached"
			" the fault, %u built all the same\n", fs.allocs, fs.ios, runs, fired,
			absorbed);
}

static void test_page655(void)
{
	char tpl[96], fmt[512], raw[512];
	const char *raws[] = { raw };
	const int cpus[] = { 1 };
	const size_t nr[] = { 1 };

	snprintf(tpl, sizeof(tpl), "%s/page655.db", scratch);
	snprintf(fmt, sizeof(fmt), "%s/decode/6.12", t_testdata());
	snprintf(raw, sizeof(raw), "%s/decode/6.12-cpu1-page655.bin", t_testdata());
	hs_fault_pause();
	if (make_recording(tpl, fmt, raws, cpus, nr, 1)) {
		t_fail(__FILE__, __LINE__, "cannot make the recording");
		return;
	}
	loop(tpl);
}

static void test_capture(void)
{
	char tpl[96], fmt[512], raw0[600], raw1[600];
	const char *raws[] = { raw0, raw1 };
	const int cpus[] = { 0, 1 };
	const size_t nr[] = { CAPTURE_SUBBUFS, CAPTURE_SUBBUFS };

	if (!t_shared()) {
		t_skip("HSCTL_SHARED is not set");
		return;
	}
	snprintf(tpl, sizeof(tpl), "%s/capture.db", scratch);
	snprintf(fmt, sizeof(fmt), "%s/fixtures/tracefs/6.12", t_shared());
	snprintf(raw0, sizeof(raw0), "%s/raw-cpu0.bin", fmt);
	snprintf(raw1, sizeof(raw1), "%s/raw-cpu1.bin", fmt);
	hs_fault_pause();
	if (make_recording(tpl, fmt, raws, cpus, nr, 2)) {
		t_fail(__FILE__, __LINE__, "cannot make the recording");
		return;
	}
	loop(tpl);
}

static const struct t_case cases[] = {
	{ "page655", test_page655 },
	{ "capture", test_capture },
};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	const char *s;
	int ret;

#ifndef HS_FAULT_INJECTION
	(void)argc;
	(void)argv;
	printf("SKIP: built without fault injection (configure --enable-fault-injection)\n");
	return 77;
#endif
	if (!getenv("HSCTL_FAULT_ALLOC")) {
		/* lib/fault.c installs its hooks at start-up when asked to */
		if (setenv("HSCTL_FAULT_ALLOC", "0", 1) == 0)
			execv("/proc/self/exe", argv);
		perror("re-executing with HSCTL_FAULT_ALLOC=0");
		return 99;
	}
	s = getenv("HSCTL_FAULTS_SAMPLES");
	if (s && *s && strspn(s, "0123456789") == strlen(s))
		samples = (unsigned int)atoi(s);
	s = getenv("HSCTL_FAULTS_FULL");
	full = s && !strcmp(s, "1");
	s = getenv("TMPDIR");
	snprintf(scratch, sizeof(scratch), "%s/t-faults.XXXXXX",
		 s && *s && strlen(s) < sizeof(scratch) - 20 ? s : "/tmp");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 99;
	}
	ret = t_main(cases, ARRAY_SIZE(cases), argc, argv);
	if (nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "cannot remove %s\n", scratch);
	return ret;
}
