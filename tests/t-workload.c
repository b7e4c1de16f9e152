/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the built-in workloads (lib/workload.c), no root needed:
 * every option and file error with its message; the created file (size,
 * non-zero bytes, out of the page cache by cachestat(2), identity, unlinked
 * only by the preparing process); the exact touch logs of scan-twice,
 * loop, scan-hot, ycsb-load and shared-map (the pages of gen's with the same
 * options; shared-map's from three forked processes taking turns);
 * zipf-read's and ycsb-f's determinism for a seed and their skew, checked
 * against Zipf(0.99) over 64 ranks computed by hand (H = sum of
 * k^-0.99 for k = 1..64 = 4.8312, so P(rank 1) = 0.2070, P(rank 2) =
 * 0.1041 and P(ranks 1..4) = 0.4334; the bounds are 5 standard deviations
 * of 10,000 draws); the batch sizes on a SOCK_SEQPACKET socket, which keeps
 * write(2) boundaries (300 touches: 4080 + 3120 bytes); a non-blocking
 * pipe; and a reader that goes away (-EPIPE, no SIGPIPE death).  Files live
 * in a private directory under /var/tmp, removed at the end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "access.h"
#include "gen.h"
#include "harness.h"
#include "workload.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC	0x01021994
#endif
#ifndef SYS_cachestat
#define SYS_cachestat	451
#endif

#define PG	4096u
#define FD	HS_TOUCH_FD
#define AW	(HS_TOUCH_ANON | HS_TOUCH_WRITE)

static char tdir[256];		/* the test's own directory */
static char errbuf[512];	/* reason of the last prepare */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tdir/NAME into a static buffer */
static const char *tpath(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", tdir, name);
	return buf;
}

/* Write a file of @bytes 'x' bytes.  Return: 0 or -1. */
static int make_file(const char *path, size_t bytes)
{
	char *buf = malloc(bytes);
	int fd, ok;

	if (!buf)
		return -1;
	memset(buf, 'x', bytes);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ok = fd >= 0 && write(fd, buf, bytes) == (ssize_t)bytes;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok ? 0 : -1;
}

static int prep(const struct hs_workload_opts *o, struct hs_workload **w)
{
	errbuf[0] = '\0';
	return hs_workload_prepare(o, w, errbuf, sizeof(errbuf));
}

/* The "file" of describe(), or "" */
static const char *json_file(const struct hs_workload *w)
{
	static char buf[512];
	const char *p = strstr(hs_workload_describe(w), "\"file\":\"");
	size_t n = 0;

	buf[0] = '\0';
	if (!p)
		return buf;
	for (p += 8; *p && *p != '"' && n < sizeof(buf) - 1; p++)
		buf[n++] = *p;
	buf[n] = '\0';
	return buf;
}

/*
 * Run @w into a memfd and hand back the touches (malloc'ed).  Return: the
 * run's result; *@n is -1 when the log could not be read back.
 */
static int run_collect(struct hs_workload *w, struct hs_touch **t, long *n)
{
	struct stat st;
	int fd, rc;

	*t = NULL;
	*n = -1;
	fd = memfd_create("t-workload", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = hs_workload_run(w, fd);
	if (!fstat(fd, &st) && st.st_size % (off_t)sizeof(**t) == 0) {
		*t = malloc((size_t)st.st_size + 1);
		if (*t && pread(fd, *t, (size_t)st.st_size, 0) == st.st_size)
			*n = (long)(st.st_size / (off_t)sizeof(**t));
	}
	close(fd);
	return rc;
}

static bool same_pages(const struct hs_touch *a, const struct hs_touch *b, long n)
{
	for (long i = 0; i < n; i++)
		if (a[i].page != b[i].page || a[i].flags != b[i].flags)
			return false;
	return true;
}

/* ---- the name list and errors ---- */

static void t_names(void)
{
	const char *const *n = hs_workload_names();

	T_EQ_STR(n[0], "scan-twice");
	T_EQ_STR(n[1], "zipf-read");
	T_EQ_STR(n[2], "ycsb-f");
	T_EQ_STR(n[3], "loop");
	T_EQ_STR(n[4], "scan-hot");
	T_EQ_STR(n[5], "ycsb-load");
	T_EQ_STR(n[6], "shared-map");
	T_ASSERT(n[7] == NULL);
}

static void t_err_unknown(void)
{
	struct hs_workload_opts o = { .name = "x" };
	struct hs_workload *w = (void *)1;

	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_ASSERT(w == NULL);
	T_EQ_STR(errbuf, "unknown workload 'x' (valid: scan-twice, zipf-read, ycsb-f, loop, "
		 "scan-hot, ycsb-load, shared-map)");
	o.name = NULL;
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_EQ_STR(errbuf, "unknown workload '' (valid: scan-twice, zipf-read, ycsb-f, loop, "
		 "scan-hot, ycsb-load, shared-map)");
}

static void t_err_options(void)
{
	static const struct {
		struct hs_workload_opts	o;
		const char		*msg;
	} bad[] = {
		{ { .name = "scan-twice", .size = 4095 },
		  "size 4095: must be between 4096 bytes (one page) and 1 TiB" },
		{ { .name = "zipf-read", .size = (UINT64_C(1) << 40) + 1 },
		  "size 1099511627777: must be between 4096 bytes (one page) and 1 TiB" },
		{ { .name = "zipf-read", .theta = 10.0 },
		  "theta 10: must be greater than 0 and less than 10" },
		{ { .name = "ycsb-f", .theta = -0.5 },
		  "theta -0.5: must be greater than 0 and less than 10" },
		{ { .name = "ycsb-f", .ops = UINT64_C(1000000000001) },
		  "ops 1000000000001: at most 1000000000000" },
		{ { .name = "loop", .passes = 1000001 }, "passes 1000001: at most 1000000" },
		{ { .name = "ycsb-f", .size = 8192, .record_size = 8193 },
		  "record_size 8193: larger than size 8192" },
		{ { .name = "ycsb-f", .file = "/etc/hostname" },
		  "file /etc/hostname: ycsb-f works on anonymous memory, not a file" },
	};
	struct hs_workload_opts nan_theta = { .name = "zipf-read", .theta = NAN };
	struct hs_workload *w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w = (void *)1;
		T_EQ_I64(prep(&bad[i].o, &w), -EINVAL);
		T_ASSERT(w == NULL);
		T_EQ_STR(errbuf, bad[i].msg);
	}
	T_EQ_I64(prep(&nan_theta, &w), -EINVAL);
	T_ASSERT(strstr(errbuf, "theta") == errbuf);
}

static void t_err_tmpfs(void)
{
	struct hs_workload_opts o = { .name = "scan-twice", .dir = "/dev/shm", .size = 8192 };
	struct hs_workload *w = (void *)1;
	struct statfs sf;

	if (statfs("/dev/shm", &sf) || sf.f_type != TMPFS_MAGIC) {
		t_skip("/dev/shm is not a tmpfs here");
		return;
	}
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_ASSERT(w == NULL);
	T_EQ_STR(errbuf, "/dev/shm is a tmpfs: its pages are shmem, not page cache");
	/* a file on a tmpfs is refused too */
	char shm[64];

	snprintf(shm, sizeof(shm), "/dev/shm/hsctl_%ld_t-workload", (long)getpid());
	T_ASSERT(make_file(shm, 2 * PG) == 0);
	o.dir = NULL;
	o.file = shm;
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_ASSERT(strstr(errbuf, "is on a tmpfs") != NULL);
	unlink(shm);
}

static void t_err_files(void)
{
	struct hs_workload_opts o = { .name = "zipf-read", .file = "/nonexistent/hsctl-file" };
	struct hs_workload *w = (void *)1;

	T_EQ_I64(prep(&o, &w), -ENOENT);
	T_ASSERT(w == NULL);
	T_EQ_STR(errbuf, "/nonexistent/hsctl-file: No such file or directory");
	o.file = NULL;
	o.dir = "/nonexistent/hsctl-dir";
	T_EQ_I64(prep(&o, &w), -ENOENT);
	T_EQ_STR(errbuf, "/nonexistent/hsctl-dir: No such file or directory");
	o.dir = NULL;
	o.file = tdir;
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_ASSERT(strstr(errbuf, "not a regular file") != NULL);
	T_ASSERT(make_file(tpath("small"), 100) == 0);
	o.file = tpath("small");
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_ASSERT(strstr(errbuf, ": 100 bytes: a data file must hold between one page") != NULL);
	unlink(tpath("small"));
}

/* ---- the created file ---- */

static void t_created_file(void)
{
	struct hs_workload_opts o = { .name = "scan-twice", .dir = tdir, .size = 40 * PG };
	uint64_t cs[5] = { 0 }, range[2] = { 0, 0 }, kdev, ino;
	struct hs_workload *w;
	char path[512], exp[1024];
	unsigned char *buf;
	struct stat st;
	bool nonzero = true;
	int fd, status;
	pid_t pid;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	snprintf(path, sizeof(path), "%s", json_file(w));
	snprintf(exp, sizeof(exp), "%s/hsctl_%ld_scan-twice_", tdir, (long)getpid());
	T_ASSERT(!strncmp(path, exp, strlen(exp)));
	snprintf(exp, sizeof(exp), "{\"workload\":\"scan-twice\",\"file\":\"%s\",\"created\":true,"
		 "\"size\":163840,\"pages\":40,\"passes\":2,\"seed\":1}", path);
	T_EQ_STR(hs_workload_describe(w), exp);
	T_EQ_U64(hs_workload_pages(w), 40);
	T_ASSERT(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	T_EQ_U64(st.st_size, 163840);
	T_EQ_I64(hs_workload_file(w, &kdev, &ino), 0);
	T_EQ_U64(kdev, ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev));
	T_EQ_U64(ino, st.st_ino);

	/* out of the page cache right after prepare (cachestat, 6.5+) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	if (syscall(SYS_cachestat, fd, range, cs, 0) == 0)
		T_EQ_U64(cs[0], 0);
	else
		T_EQ_I64(errno, ENOSYS);
	buf = malloc(163840);
	T_ASSERT(buf && pread(fd, buf, 163840, 0) == 163840);
	for (size_t i = 0; buf && i < 163840; i++)
		nonzero &= buf[i] != 0;
	T_ASSERT(nonzero);
	free(buf);
	close(fd);

	/* a forked child's free leaves the file; the preparer's unlinks it */
	pid = fork();
	if (pid == 0) {
		hs_workload_free(w);
		_exit(0);
	}
	T_ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	T_EQ_I64(access(path, F_OK), 0);
	hs_workload_free(w);
	T_EQ_I64(access(path, F_OK), -1);
	T_EQ_I64(errno, ENOENT);
}

static void t_default_dir(void)
{
	struct hs_workload_opts o = { .name = "loop", .size = 2 * PG };
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct hs_workload *w;
	char exp[512];
	struct statfs sf;

	setenv("TMPDIR", tdir, 1);
	T_EQ_I64(prep(&o, &w), 0);
	if (!t_case_failed()) {
		snprintf(exp, sizeof(exp), "%s/hsctl_%ld_loop_", tdir, (long)getpid());
		T_ASSERT(!strncmp(json_file(w), exp, strlen(exp)));
		T_ASSERT(strstr(hs_workload_describe(w), "\"passes\":3,") != NULL);
		hs_workload_free(w);
	}
	/* $TMPDIR on a tmpfs: /var/tmp instead */
	if (!statfs("/dev/shm", &sf) && sf.f_type == TMPFS_MAGIC &&
	    !statfs("/var/tmp", &sf) && sf.f_type != TMPFS_MAGIC) {
		setenv("TMPDIR", "/dev/shm", 1);
		T_EQ_I64(prep(&o, &w), 0);
		if (!t_case_failed()) {
			snprintf(exp, sizeof(exp), "/var/tmp/hsctl_%ld_loop_", (long)getpid());
			T_ASSERT(!strncmp(json_file(w), exp, strlen(exp)));
			hs_workload_free(w);
		}
	}
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

static void t_json_escape(void)
{
	const char *name = "q\"b\\s";
	struct hs_workload_opts o = { .name = "zipf-read", .file = tpath(name), .ops = 5,
				      .theta = 1.5, .seed = 9 };
	struct hs_workload *w;
	char exp[1024];

	T_ASSERT(make_file(tpath(name), 3 * PG) == 0);
	o.file = tpath(name);
	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	snprintf(exp, sizeof(exp), "{\"workload\":\"zipf-read\",\"file\":\"%s/q\\\"b\\\\s\","
		 "\"created\":false,\"size\":12288,\"pages\":3,\"ops\":5,\"theta\":1.5,"
		 "\"seed\":9}", tdir);
	T_EQ_STR(hs_workload_describe(w), exp);
	hs_workload_free(w);
	T_EQ_I64(access(tpath(name), F_OK), 0);	/* a given file is never unlinked */
	unlink(tpath(name));
}

/* A given file that is fully cached leaves the cache at prepare. */
static void t_given_file_dropped(void)
{
	struct hs_workload_opts o = { .name = "scan-twice", .file = NULL };
	uint64_t cs[5] = { 0 }, range[2] = { 0, 0 };
	struct hs_workload *w;
	char buf[PG];
	int fd;

	T_ASSERT(make_file(tpath("hot"), 32 * PG) == 0);
	o.file = tpath("hot");
	fd = open(o.file, O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	fsync(fd);
	for (int i = 0; i < 32; i++)
		T_ASSERT(pread(fd, buf, PG, (off_t)i * PG) == PG);
	if (syscall(SYS_cachestat, fd, range, cs, 0)) {
		t_skip("no cachestat(2) on this kernel");
		close(fd);
		unlink(o.file);
		return;
	}
	T_EQ_U64(cs[0], 32);
	T_EQ_I64(prep(&o, &w), 0);
	T_ASSERT(syscall(SYS_cachestat, fd, range, cs, 0) == 0);
	T_EQ_U64(cs[0], 0);
	hs_workload_free(w);
	close(fd);
	unlink(tpath("hot"));
}

/* ---- the scans ---- */

static void check_scan(const char *name, unsigned int passes, long pages_per_pass)
{
	struct hs_workload_opts o = { .name = name, .dir = tdir, .size = 40 * PG,
				      .passes = passes };
	struct hs_touch *t;
	struct hs_workload *w;
	uint64_t before, after;
	long n, i;
	bool order = true, flags = true, ts = true;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	before = mono_ns();
	T_EQ_I64(run_collect(w, &t, &n), 0);
	after = mono_ns();
	T_EQ_I64(n, (long)(passes ? passes : 2) * pages_per_pass);
	for (i = 0; t && i < n; i++) {
		order &= t[i].page == (uint64_t)(i % pages_per_pass);
		flags &= t[i].flags == FD && t[i].pad == 0;
		ts &= t[i].ts_ns >= before && t[i].ts_ns <= after &&
		      (i == 0 || t[i].ts_ns >= t[i - 1].ts_ns);
	}
	T_ASSERT(order);
	T_ASSERT(flags);
	T_ASSERT(ts);
	free(t);
	/* a second run is the same */
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, (long)(passes ? passes : 2) * pages_per_pass);
	free(t);
	T_EQ_I64(hs_workload_run(w, -1), 0);
	hs_workload_free(w);
}

static void t_scan_twice(void)
{
	check_scan("scan-twice", 0, 40);	/* 80 touches: 0..39, 0..39 */
}

static void t_loop(void)
{
	check_scan("loop", 3, 40);		/* 120 touches */
}

/*
 * scan-hot over 48 pages, 8 of them hot: 40 to scan, so 2 whole 64 KiB
 * chunks (pages 8..39; 40..47 are never read).  Per pass and chunk: 16 hot
 * reads, then the chunk's 16 pages; 2 passes = 128 touches, the pages of
 * `hsctl gen scan-hot --keys 40 --hot-keys 8 --accesses 128` (seed 1,
 * alpha 0.5), whose first hot keys are 1 2 2 3 1 6 7 3 0 2 0 0 0 1 2 0.
 */
static void t_scan_hot(void)
{
	static const uint64_t first[16] = { 1, 2, 2, 3, 1, 6, 7, 3, 0, 2, 0, 0, 0, 1, 2, 0 };
	struct hs_workload_opts o = { .name = "scan-hot", .dir = tdir, .size = 48 * PG,
				      .hot_size = 8 * PG, .passes = 2 };
	struct hs_gen_opts go;
	struct hs_workload *w;
	struct hs_gen *g = NULL;
	struct hs_touch *t;
	uint64_t key, scan = 0;
	bool layout = true, same = true, flags = true;
	uint8_t meta;
	long n, i;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_ASSERT(strstr(hs_workload_describe(w), "\"hot_pages\":8,\"scan_pages\":32,"
			"\"passes\":2,\"theta\":0.5,\"seed\":1}") != NULL);
	T_ASSERT(!hs_workload_mapped(w));	/* read(2)s: fd */
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 128);
	hs_gen_opts_init(&go, HS_GEN_SCAN_HOT);
	go.keys = 40;
	go.hot_keys = 8;
	go.accesses = 128;
	T_EQ_I64(hs_gen_new(&go, &g), 0);
	for (i = 0; t && g && i < n; i++) {
		if (i % 32 < 16)
			layout &= t[i].page < 8;
		else
			layout &= t[i].page == 8 + scan++ % 32;
		if (i < 16)
			T_EQ_U64(t[i].page, first[i]);
		flags &= t[i].flags == FD && t[i].pad == 0;
		same &= hs_gen_next(g, &key, &meta) == 1 && key == t[i].page;
	}
	T_ASSERT(layout);
	T_ASSERT(flags);
	T_ASSERT(same);
	T_EQ_U64(scan, 64);
	hs_gen_free(g);
	free(t);
	hs_workload_free(w);

	/* the hot set must leave a 64 KiB chunk to scan */
	o.hot_size = 33 * PG;
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_EQ_STR(errbuf, "hot_size 135168: the hot set must be at least 4096 bytes and leave "
		 "at least 64 KiB of the 196608-byte file to scan");
	o.hot_size = 100;
	T_EQ_I64(prep(&o, &w), -EINVAL);
}

/*
 * shared-map over 48 pages, 8 hot, 2 chunks to scan, 2 passes, 3
 * processes: 4 turns of 32 touches, taken by processes 0, 1, 2, 0, the
 * pages of `hsctl gen shared-map --keys 40 --hot-keys 8 --procs 3
 * --accesses 128`.  Process 0 draws scan-hot's first hot keys (seed 1);
 * process 1 (seed 2) draws 6 1 5 1 1 5 1 5 1 1 4 1 0 0 6 1; turn 3 is
 * process 0 again, its draws going on.  The touches are PT (flags 0), in
 * turn order although three processes wrote them.  Then one process, and
 * 65 refused.
 */
static void t_shared_map(void)
{
	static const uint64_t turn1[16] = { 6, 1, 5, 1, 1, 5, 1, 5, 1, 1, 4, 1, 0, 0, 6, 1 };
	static const uint64_t first[16] = { 1, 2, 2, 3, 1, 6, 7, 3, 0, 2, 0, 0, 0, 1, 2, 0 };
	struct hs_workload_opts o = { .name = "shared-map", .dir = tdir, .size = 48 * PG,
				      .hot_size = 8 * PG, .passes = 2, .procs = 3 };
	struct hs_gen_opts go;
	struct hs_workload *w;
	struct hs_gen *g = NULL;
	struct hs_touch *t;
	uint64_t key, scan = 0;
	bool layout = true, same = true, flags = true;
	uint8_t meta;
	long n, i;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_ASSERT(strstr(hs_workload_describe(w), "\"hot_pages\":8,\"scan_pages\":32,"
			"\"procs\":3,\"passes\":2,\"theta\":0.5,\"seed\":1}") != NULL);
	T_ASSERT(hs_workload_mapped(w));	/* the session's channel: pt */
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 128);
	hs_gen_opts_init(&go, HS_GEN_SHARED_MAP);
	go.keys = 40;
	go.hot_keys = 8;
	go.procs = 3;
	go.accesses = 128;
	T_EQ_I64(hs_gen_new(&go, &g), 0);
	for (i = 0; t && g && i < n; i++) {
		if (i % 32 < 16)
			layout &= t[i].page < 8;
		else
			layout &= t[i].page == 8 + scan++ % 32;
		if (i < 16)
			T_EQ_U64(t[i].page, first[i]);
		else if (i >= 32 && i < 48)
			T_EQ_U64(t[i].page, turn1[i - 32]);
		flags &= t[i].flags == (i % 32 < 16 ? 0 : HS_TOUCH_NORECENCY) && t[i].pad == 0;
		same &= hs_gen_next(g, &key, &meta) == 1 && key == t[i].page &&
			!(meta & HS_META_NORECENCY) == !(t[i].flags & HS_TOUCH_NORECENCY);
	}
	T_ASSERT(layout);
	T_ASSERT(flags);
	T_ASSERT(same);
	T_EQ_U64(scan, 64);
	hs_gen_free(g);
	free(t);
	hs_workload_free(w);

	/* one process: its own draws all along, gen --procs 1's stream */
	o.procs = 1;
	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 128);
	go.procs = 1;
	T_EQ_I64(hs_gen_new(&go, &g), 0);
	for (i = 0, same = true; t && g && i < n; i++)
		same &= hs_gen_next(g, &key, &meta) == 1 && key == t[i].page;
	T_ASSERT(same);
	hs_gen_free(g);
	free(t);
	hs_workload_free(w);

	o.procs = 65;
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_EQ_STR(errbuf, "procs 65: at most 64");
}

/*
 * ycsb-load: 300 inserts in a 128-page arena: 255 of two touches (leaf page
 * 0, record page), the root split (7 touches, t-gen), 44 of four (root
 * read, leaf, record page; none splits) = 510 + 7 + 44 * 3 = 649, the pages
 * of `hsctl gen ycsb-load --accesses 649` relative to the mapping.  Then an
 * arena too small for the inserts ends the run early, as a success.
 */
static void t_ycsb_load(void)
{
	struct hs_workload_opts o = { .name = "ycsb-load", .size = 128 * PG, .ops = 300 };
	const uint32_t aw = HS_TOUCH_ANON | HS_TOUCH_WRITE;
	struct hs_gen_opts go;
	struct hs_workload *w;
	struct hs_gen *g = NULL;
	struct hs_touch *t;
	uint64_t key, base;
	bool same = true;
	uint8_t meta;
	long n, i;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_EQ_STR(hs_workload_describe(w), "{\"workload\":\"ycsb-load\",\"size\":524288,"
		 "\"pages\":128,\"record_size\":1024,\"ops\":300,\"seed\":1}");
	T_ASSERT(hs_workload_path(w) == NULL);
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 649);
	base = t ? t[0].page : 0;
	hs_gen_opts_init(&go, HS_GEN_YCSB_LOAD);
	go.accesses = 649;
	T_EQ_I64(hs_gen_new(&go, &g), 0);
	for (i = 0; t && g && i < n; i++) {
		same &= hs_gen_next(g, &key, &meta) == 1 && t[i].page == base + key &&
			((meta & HS_META_WRITE) ? aw : HS_TOUCH_ANON) == t[i].flags;
	}
	T_ASSERT(same);
	if (t && n > 514) {
		T_EQ_U64(t[514].flags, HS_TOUCH_ANON);	/* the new root, read */
		T_EQ_U64(t[514].page - base, 65);	/* after the 64 record pages */
	}
	hs_gen_free(g);
	free(t);
	hs_workload_free(w);

	/* 16 pages: the leaf and 15 record pages = 60 inserts, then the arena is full */
	o.size = 16 * PG;
	o.ops = 1000;
	T_EQ_I64(prep(&o, &w), 0);
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 120);
	free(t);
	hs_workload_free(w);

	o.record_size = 4097;
	T_EQ_I64(prep(&o, &w), -EINVAL);
	T_EQ_STR(errbuf, "record_size 4097: ycsb-load records are at most 4096 bytes (one page)");
}

/* A partial last page is one more page: 10 pages + 1 byte = 11 per pass. */
static void t_partial_page(void)
{
	struct hs_workload_opts o = { .name = "scan-twice", .dir = tdir, .size = 10 * PG + 1,
				      .passes = 1 };
	struct hs_touch *t;
	struct hs_workload *w;
	long n;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_EQ_U64(hs_workload_pages(w), 11);
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 11);
	if (t && n == 11)
		T_EQ_U64(t[10].page, 10);
	free(t);
	hs_workload_free(w);
}

/* ---- zipf-read ---- */

static void t_zipf_determinism(void)
{
	struct hs_workload_opts o = { .name = "zipf-read", .seed = 7 };
	struct hs_touch *a, *b, *c, *d;
	struct hs_workload *w1, *w2, *w3;
	long na, nb, nc, nd;
	bool range = true;

	T_ASSERT(make_file(tpath("z64"), 64 * PG) == 0);
	o.file = tpath("z64");
	T_EQ_I64(prep(&o, &w1), 0);
	T_EQ_I64(prep(&o, &w2), 0);
	o.seed = 8;
	T_EQ_I64(prep(&o, &w3), 0);
	if (t_case_failed())
		goto out;
	T_ASSERT(strstr(hs_workload_describe(w1), "\"pages\":64,\"ops\":256,\"theta\":0.99,"
			"\"seed\":7}") != NULL);
	T_EQ_I64(run_collect(w1, &a, &na), 0);
	T_EQ_I64(run_collect(w1, &b, &nb), 0);
	T_EQ_I64(run_collect(w2, &c, &nc), 0);
	T_EQ_I64(run_collect(w3, &d, &nd), 0);
	T_EQ_I64(na, 256);		/* default ops: 4 x 64 pages */
	T_EQ_I64(nb, 256);
	T_EQ_I64(nc, 256);
	T_EQ_I64(nd, 256);
	if (na == 256 && nb == 256 && nc == 256 && nd == 256) {
		T_ASSERT(same_pages(a, b, 256));
		T_ASSERT(same_pages(a, c, 256));
		T_ASSERT(!same_pages(a, d, 256));
		for (long i = 0; i < 256; i++)
			range &= a[i].page < 64 && a[i].flags == FD;
		T_ASSERT(range);
	}
	free(a);
	free(b);
	free(c);
	free(d);
out:
	hs_workload_free(w1);
	hs_workload_free(w2);
	hs_workload_free(w3);
	unlink(tpath("z64"));
}

static void t_zipf_skew(void)
{
	struct hs_workload_opts o = { .name = "zipf-read", .ops = 10000, .theta = 0.99 };
	uint64_t cnt[64] = { 0 };
	struct hs_touch *t;
	struct hs_workload *w;
	long n, i;
	bool max = true;

	T_ASSERT(make_file(tpath("z64s"), 64 * PG) == 0);
	o.file = tpath("z64s");
	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		goto out;
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 10000);
	for (i = 0; t && i < n; i++)
		if (t[i].page < 64)
			cnt[t[i].page]++;
	for (i = 1; i < 64; i++)
		max &= cnt[0] > cnt[i];
	T_ASSERT(max);
	/* 2069.9 +- 5 x 40.5 and 1040.8 +- 5 x 30.5 */
	T_ASSERT(cnt[0] >= 1867 && cnt[0] <= 2272);
	T_ASSERT(cnt[1] >= 888 && cnt[1] <= 1194);
	free(t);
	hs_workload_free(w);
out:
	unlink(tpath("z64s"));
}

/* ---- ycsb-f ---- */

static void t_ycsb_f(void)
{
	struct hs_workload_opts o = { .name = "ycsb-f", .size = 64 * 1024, .record_size = 1024,
				      .ops = 100, .seed = 3 };
	struct hs_touch *t, *t2;
	struct hs_workload *w;
	uint64_t base, kdev, ino;
	long n, n2, i, reads = 0, writes = 0;
	bool load = true, run = true, ts = true;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_EQ_STR(hs_workload_describe(w), "{\"workload\":\"ycsb-f\",\"size\":65536,\"pages\":16,"
		 "\"record_size\":1024,\"records\":64,\"ops\":100,\"theta\":0.99,\"seed\":3}");
	T_EQ_U64(hs_workload_pages(w), 16);
	T_EQ_I64(hs_workload_file(w, &kdev, &ino), -ENOENT);
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 16 + 100);		/* one page per 1 KiB record */
	if (!t || n != 116)
		goto out;
	base = t[0].page;
	for (i = 0; i < 16; i++)
		load &= t[i].page == base + (uint64_t)i && t[i].flags == AW;
	T_ASSERT(load);
	for (i = 16; i < n; i++) {
		run &= t[i].page >= base && t[i].page < base + 16;
		if (t[i].flags == HS_TOUCH_ANON)
			reads++;
		else if (t[i].flags == AW)
			writes++;
	}
	for (i = 1; i < n; i++)
		ts &= t[i].ts_ns >= t[i - 1].ts_ns;
	T_ASSERT(run);
	T_ASSERT(ts);
	T_EQ_I64(reads + writes, 100);
	T_ASSERT(reads > 0 && writes > 0);
	/* the same again: same pages relative to the mapping, same flags */
	T_EQ_I64(run_collect(w, &t2, &n2), 0);
	T_EQ_I64(n2, 116);
	if (t2 && n2 == 116) {
		bool same = true;

		for (i = 0; i < n; i++)
			same &= t2[i].page - t2[0].page == t[i].page - base &&
				t2[i].flags == t[i].flags;
		T_ASSERT(same);
	}
	free(t2);
out:
	free(t);
	hs_workload_free(w);
}

static void t_ycsb_skew(void)
{
	struct hs_workload_opts o = { .name = "ycsb-f", .size = 64 * 1024, .ops = 10000 };
	uint64_t cnt[16] = { 0 }, base;
	struct hs_touch *t;
	struct hs_workload *w;
	long n, i;
	bool max = true, in = true;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 16 + 10000);
	if (t && n == 10016) {
		base = t[0].page;
		for (i = 16; i < n; i++) {
			in &= t[i].page - base < 16;
			if (t[i].page - base < 16)
				cnt[t[i].page - base]++;
		}
		T_ASSERT(in);
		for (i = 1; i < 16; i++)
			max &= cnt[0] > cnt[i];
		T_ASSERT(max);
		/* ranks 1..4 are page 0: 4334.3 +- 5 x 49.6 */
		T_ASSERT(cnt[0] >= 4086 && cnt[0] <= 4583);
	}
	free(t);
	hs_workload_free(w);
}

/* 6 KiB records straddle pages: every record covers exactly two. */
static void t_ycsb_big_records(void)
{
	struct hs_workload_opts o = { .name = "ycsb-f", .size = 64 * 1024, .record_size = 6144,
				      .ops = 50 };
	struct hs_touch *t;
	struct hs_workload *w;
	long n, i;
	bool load = true, pairs = true;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	/* 10 records, 61440 bytes: 15 pages */
	T_ASSERT(strstr(hs_workload_describe(w), "\"pages\":15,\"record_size\":6144,"
			"\"records\":10,") != NULL);
	T_EQ_I64(run_collect(w, &t, &n), 0);
	T_EQ_I64(n, 15 + 2 * 50);
	if (t && n == 115) {
		for (i = 0; i < 15; i++)
			load &= t[i].page == t[0].page + (uint64_t)i && t[i].flags == AW;
		for (i = 15; i < n; i += 2)
			pairs &= t[i + 1].page == t[i].page + 1 && t[i + 1].flags == t[i].flags;
		T_ASSERT(load);
		T_ASSERT(pairs);
	}
	free(t);
	hs_workload_free(w);
}

/* ---- the log's batches and its reader ---- */

static void t_batches(void)
{
	struct hs_workload_opts o = { .name = "loop", .dir = tdir, .size = 100 * PG };
	struct hs_touch buf[200];
	struct hs_workload *w;
	ssize_t r1, r2, r3;
	bool order = true;
	int sv[2];

	T_EQ_I64(prep(&o, &w), 0);
	T_ASSERT(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	if (t_case_failed())
		return;
	T_EQ_I64(hs_workload_run(w, sv[0]), 0);
	close(sv[0]);
	r1 = recv(sv[1], buf, sizeof(buf), 0);
	for (long i = 0; r1 > 0 && i < r1 / 24; i++)
		order &= buf[i].page == (uint64_t)(i % 100);
	r2 = recv(sv[1], buf, sizeof(buf), 0);
	for (long i = 0; r2 > 0 && i < r2 / 24; i++)
		order &= buf[i].page == (uint64_t)((170 + i) % 100);
	r3 = recv(sv[1], buf, sizeof(buf), 0);
	T_EQ_I64(r1, 170 * 24);		/* 4080 */
	T_EQ_I64(r2, 130 * 24);		/* 3120 */
	T_EQ_I64(r3, 0);		/* then EOF */
	T_ASSERT(order);
	close(sv[1]);
	hs_workload_free(w);
}

/* A child reads all of a non-blocking pipe slowly: 10,000 touches, 240,000 bytes. */
static void t_nonblocking(void)
{
	struct hs_workload_opts o = { .name = "loop", .dir = tdir, .size = 100 * PG,
				      .passes = 100 };
	struct hs_workload *w;
	int p[2], status;
	pid_t pid;

	T_EQ_I64(prep(&o, &w), 0);
	T_ASSERT(pipe2(p, O_CLOEXEC) == 0);
	if (t_case_failed())
		return;
	pid = fork();
	if (pid == 0) {
		char buf[1000];
		long total = 0;
		ssize_t r;

		close(p[1]);
		usleep(50000);		/* let the pipe fill up */
		while ((r = read(p[0], buf, sizeof(buf))) > 0)
			total += r;
		_exit(total == 240000 ? 0 : 1);
	}
	close(p[0]);
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	T_EQ_I64(hs_workload_run(w, p[1]), 0);
	close(p[1]);
	T_ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	hs_workload_free(w);
}

static bool sigpipe_blocked_or_pending(void)
{
	sigset_t s;

	sigemptyset(&s);
	pthread_sigmask(SIG_BLOCK, NULL, &s);
	if (sigismember(&s, SIGPIPE))
		return true;
	sigemptyset(&s);
	sigpending(&s);
	return sigismember(&s, SIGPIPE);
}

static void t_epipe(void)
{
	struct hs_workload_opts o = { .name = "scan-twice", .dir = tdir, .size = 40 * PG };
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	struct hs_workload *w;
	int p[2], status;
	pid_t pid;

	T_EQ_I64(prep(&o, &w), 0);
	if (t_case_failed())
		return;
	/* SIGPIPE at its default (death) for this test */
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGPIPE, &dfl, &old);

	/* reader gone before the first write */
	T_ASSERT(pipe2(p, O_CLOEXEC) == 0);
	close(p[0]);
	T_EQ_I64(hs_workload_run(w, p[1]), -EPIPE);
	close(p[1]);
	T_ASSERT(!sigpipe_blocked_or_pending());

	/* reader goes away after one batch of a long loop */
	hs_workload_free(w);
	o.name = "loop";
	o.passes = 1000;		/* 40,000 touches */
	T_EQ_I64(prep(&o, &w), 0);
	T_ASSERT(pipe2(p, O_CLOEXEC) == 0);
	pid = fork();
	if (pid == 0) {
		char buf[4080];
		ssize_t r;

		close(p[1]);
		r = read(p[0], buf, sizeof(buf));
		_exit(r == 4080 ? 0 : 1);
	}
	close(p[0]);
	T_EQ_I64(hs_workload_run(w, p[1]), -EPIPE);
	close(p[1]);
	T_ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT(!sigpipe_blocked_or_pending());
	sigaction(SIGPIPE, &old, NULL);
	hs_workload_free(w);
}

static const struct t_case cases[] = {
	{ "names", t_names },
	{ "err_unknown", t_err_unknown },
	{ "err_options", t_err_options },
	{ "err_tmpfs", t_err_tmpfs },
	{ "err_files", t_err_files },
	{ "created_file", t_created_file },
	{ "default_dir", t_default_dir },
	{ "json_escape", t_json_escape },
	{ "given_file_dropped", t_given_file_dropped },
	{ "scan_twice", t_scan_twice },
	{ "loop", t_loop },
	{ "partial_page", t_partial_page },
	{ "scan_hot", t_scan_hot },
	{ "shared_map", t_shared_map },
	{ "ycsb_load", t_ycsb_load },
	{ "zipf_determinism", t_zipf_determinism },
	{ "zipf_skew", t_zipf_skew },
	{ "ycsb_f", t_ycsb_f },
	{ "ycsb_skew", t_ycsb_skew },
	{ "ycsb_big_records", t_ycsb_big_records },
	{ "batches", t_batches },
	{ "nonblocking", t_nonblocking },
	{ "epipe", t_epipe },
};

int main(int argc, char **argv)
{
	struct statfs sf;
	int rc;

	if (statfs("/var/tmp", &sf) || sf.f_type == TMPFS_MAGIC) {
		printf("SKIP: /var/tmp is missing or a tmpfs: no page-cache directory for data\n");
		return 77;
	}
	snprintf(tdir, sizeof(tdir), "/var/tmp/hsctl_%ld_t-workload_XXXXXX", (long)getpid());
	if (!mkdtemp(tdir)) {
		perror("mkdtemp");
		return 99;
	}
	rc = t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
	if (rmdir(tdir)) {
		fprintf(stderr, "%s: %s (a file was left behind)\n", tdir, strerror(errno));
		if (!rc)
			rc = 1;
	}
	return rc;
}
