/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/sampling.c: kernel.numa_balancing and the scanner's scan_period_max_ms
 * saved, set and put back, on copies of the /proc and /sys files under a
 * scratch root with every value written here by hand (0 -> 1, 2 -> 3, 1 left
 * alone, the period lowered to its minimum, files missing, unreadable,
 * unwritable or holding no number).  Live, as root and under
 * /tmp/hsctl-live.lock (t_live_lock(): skipped, naming the holder, when it
 * stays busy): the real sysctl set and restored to the very text it
 * had, and in between a process with two threads re-reading 16 MiB it had
 * touched once takes at least one hinting fault per page (counted as minor
 * faults, which re-reading mapped pages otherwise never causes).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hs.h"
#include "sampling.h"

/* Under ASan the hinting-fault rate is not checked (see test_live()). */
#if defined(__SANITIZE_ADDRESS__)
#define LIVE_RATE_CHECKED	false
#else
#define LIVE_RATE_CHECKED	true
#endif
#define NB	"/proc/sys/kernel/numa_balancing"
#define SCAN	"/sys/kernel/debug/sched/numa_balancing"
#define NODES	"/sys/devices/system/node/online"
#define RO_SYSFS "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size" /* 0444, digits */

static char scratch[64];	/* scratch directory of this run */
static int nroot;		/* roots made so far */

/* A fresh root directory under the scratch one. */
static const char *new_root(void)
{
	static char root[128];

	snprintf(root, sizeof(root), "%s/r%d", scratch, ++nroot);
	mkdir(root, 0755);
	return root;
}

/* Write @text to root/rel, making the directories. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *fp;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp))
		t_fail(__FILE__, __LINE__, "cannot write %s", path);
}

/* The text of root/rel ("<none>" when it cannot be read). */
static const char *get(const char *root, const char *rel)
{
	static char buf[4][64];
	static int k;
	char path[512];
	FILE *fp;
	size_t n;

	k = (k + 1) % 4;
	snprintf(path, sizeof(path), "%s%s", root, rel);
	fp = fopen(path, "r");
	if (!fp)
		return "<none>";
	n = fread(buf[k], 1, sizeof(buf[k]) - 1, fp);
	buf[k][n] = '\0';
	fclose(fp);
	return buf[k];
}

static struct hs_sampling *enable_ok(const char *root)
{
	struct hs_sampling *s = NULL;
	char err[256] = "";
	int e = hs_sampling_numa_enable_at(root, &s, err, sizeof(err));

	if (e || !s) {
		t_fail(__FILE__, __LINE__, "enable under %s: %d: %s", root, e, err);
		hs_sampling_free(s);
		return NULL;
	}
	return s;
}

/* 0 -> 1, no debugfs, one node; restore once, and only once. */
static void test_off_to_on(void)
{
	const char *root = new_root();
	struct hs_sampling *s;
	char want[512];

	put(root, NB, "0\n");
	put(root, NODES, "0\n");
	s = enable_ok(root);
	if (!s)
		return;
	T_EQ_STR(get(root, NB), "1\n");
	snprintf(want, sizeof(want), "numa_balancing 0 -> 1; scan period not tuned (%s"
		 SCAN "/scan_period_min_ms: No such file or directory); 1 NUMA node: hinting "
		 "faults sample private anonymous memory of multi-threaded processes only", root);
	T_EQ_STR(hs_sampling_describe(s), want);
	hs_sampling_restore(s);
	T_EQ_STR(get(root, NB), "0\n");
	strcat(want, " (restored)");
	T_EQ_STR(hs_sampling_describe(s), want);
	/* a second restore writes nothing */
	put(root, NB, "7\n");
	hs_sampling_restore(s);
	T_EQ_STR(get(root, NB), "7\n");
	hs_sampling_free(s);
	T_EQ_STR(get(root, NB), "7\n");
}

/* 2 (tiering alone) -> 3; 1 and 3 are left alone; free restores. */
static void test_modes(void)
{
	const char *root = new_root();
	struct hs_sampling *s;

	put(root, NB, "2\n");
	s = enable_ok(root);
	if (!s)
		return;
	T_EQ_STR(get(root, NB), "3\n");
	T_ASSERT(!strncmp(hs_sampling_describe(s), "numa_balancing 2 -> 3; ", 23));
	/* no node file: "NUMA nodes unknown" */
	T_ASSERT(strstr(hs_sampling_describe(s), "; NUMA nodes unknown") != NULL);
	hs_sampling_free(s);
	T_EQ_STR(get(root, NB), "2\n");

	for (int v = 1; v <= 3; v += 2) {
		char text[8], head[64];

		snprintf(text, sizeof(text), "%d\n", v);
		put(root, NB, text);
		s = enable_ok(root);
		if (!s)
			return;
		snprintf(head, sizeof(head), "numa_balancing %d (already on); ", v);
		T_ASSERT(!strncmp(hs_sampling_describe(s), head, strlen(head)));
		put(root, NB, "5\n");	/* nothing was changed: nothing is put back */
		hs_sampling_free(s);
		T_EQ_STR(get(root, NB), "5\n");
	}
}

/* The scan period where debugfs lets it be written; node lists. */
static void test_scan_period(void)
{
	const char *root = new_root();
	struct hs_sampling *s;

	put(root, NB, "0\n");
	put(root, SCAN "/scan_period_min_ms", "1000\n");
	put(root, SCAN "/scan_period_max_ms", "60000\n");
	put(root, NODES, "0-1\n");
	s = enable_ok(root);
	if (!s)
		return;
	T_EQ_STR(get(root, NB), "1\n");
	T_EQ_STR(get(root, SCAN "/scan_period_max_ms"), "1000\n");
	T_EQ_STR(get(root, SCAN "/scan_period_min_ms"), "1000\n");
	T_EQ_STR(hs_sampling_describe(s), "numa_balancing 0 -> 1; scan_period_max_ms 60000 -> "
		 "1000; 2 NUMA nodes: hinting faults sample private anonymous memory, and "
		 "pages may migrate");
	hs_sampling_restore(s);
	T_EQ_STR(get(root, SCAN "/scan_period_max_ms"), "60000\n");
	T_EQ_STR(get(root, NB), "0\n");
	hs_sampling_free(s);

	/* max not above min: left alone; "0,2-3" is three nodes */
	put(root, SCAN "/scan_period_max_ms", "1000\n");
	put(root, NODES, "0,2-3\n");
	s = enable_ok(root);
	if (!s)
		return;
	T_EQ_STR(hs_sampling_describe(s), "numa_balancing 0 -> 1; scan_period_max_ms 1000 (not "
		 "above the minimum); 3 NUMA nodes: hinting faults sample private anonymous "
		 "memory, and pages may migrate");
	put(root, SCAN "/scan_period_max_ms", "2000\n");
	hs_sampling_free(s);
	T_EQ_STR(get(root, SCAN "/scan_period_max_ms"), "2000\n");
	T_EQ_STR(get(root, NB), "0\n");

	/* a knob that is not a number: not tuned, not an error; a bad node list */
	put(root, SCAN "/scan_period_max_ms", "fast\n");
	put(root, NODES, "0-x\n");
	s = enable_ok(root);
	if (!s)
		return;
	T_ASSERT(strstr(hs_sampling_describe(s), "scan_period_max_ms: Bad message); NUMA nodes "
			"unknown") != NULL);
	hs_sampling_free(s);
	T_EQ_STR(get(root, SCAN "/scan_period_max_ms"), "fast\n");
}

static void expect_err(const char *root, int want, const char *msg)
{
	struct hs_sampling *s = (struct hs_sampling *)(uintptr_t)1;	/* must come back NULL */
	char err[512] = "", full[600];
	int e = hs_sampling_numa_enable_at(root, &s, err, sizeof(err));

	if (e != want || s)
		t_fail(__FILE__, __LINE__, "under %s: %d (want %d), out %p", root, e, want,
		       (void *)s);
	snprintf(full, sizeof(full), "%s" NB ": %s", root, msg);
	if (strcmp(err, full))
		t_fail(__FILE__, __LINE__, "message \"%s\", want \"%s\"", err, full);
}

static void test_errors(void)
{
	const char *root;
	char longroot[PATH_MAX + 8];
	struct hs_sampling *s = NULL;

	/* no sysctl: a kernel without NUMA balancing */
	root = new_root();
	expect_err(root, -ENOENT, "no NUMA balancing in this kernel");
	/* not a number, and one too long for a value */
	put(root, NB, "on\n");
	expect_err(root, -EBADMSG, "not a number");
	put(root, NB, "000000000000000000000000000000000000001\n");
	expect_err(root, -EBADMSG, "not a number");
	put(root, NB, "");
	expect_err(root, -EBADMSG, "not a number");
	/* a directory where the file should be */
	root = new_root();
	put(root, NB "/x", "0\n");
	expect_err(root, -EISDIR, "Is a directory");
	/* readable digits that cannot be written: a read-only sysfs attribute */
	if (access(RO_SYSFS, R_OK) == 0) {
		char path[512], msg[128];
		unsigned long v = strtoul(get("", RO_SYSFS), NULL, 10);

		root = new_root();
		put(root, NB, "");
		snprintf(path, sizeof(path), "%s" NB, root);
		unlink(path);
		T_EQ_I64(symlink(RO_SYSFS, path), 0);
		if (!(v & 1)) {
			snprintf(msg, sizeof(msg), "cannot write %lu: Permission denied", v | 1);
			expect_err(root, -EACCES, msg);
		}
		/* as the scan period maximum: not tuned, numa_balancing still set */
		root = new_root();
		put(root, NB, "0\n");
		put(root, SCAN "/scan_period_min_ms", "1000\n");
		put(root, SCAN "/scan_period_max_ms", "");
		snprintf(path, sizeof(path), "%s" SCAN "/scan_period_max_ms", root);
		unlink(path);
		T_EQ_I64(symlink(RO_SYSFS, path), 0);
		s = enable_ok(root);
		if (s) {
			T_EQ_STR(get(root, NB), "1\n");
			T_ASSERT(strstr(hs_sampling_describe(s), "scan period not tuned "
					"(scan_period_max_ms: Permission denied)") != NULL);
			hs_sampling_free(s);
			T_EQ_STR(get(root, NB), "0\n");
		}
	}
	/* a root too long for a path */
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[0] = '/';
	longroot[sizeof(longroot) - 1] = '\0';
	s = NULL;
	T_EQ_I64(hs_sampling_numa_enable_at(longroot, &s, NULL, 0), -ENAMETOOLONG);
	T_ASSERT(s == NULL);
	/* NULLs */
	T_EQ_I64(hs_sampling_numa_enable_at(root, NULL, NULL, 0), -EINVAL);
	T_EQ_STR(hs_sampling_describe(NULL), "no sampling");
	hs_sampling_restore(NULL);
	hs_sampling_free(NULL);
}

/* ---- live ---- */

#define LIVE_MIB	16
#define LIVE_PAGES	(LIVE_MIB * 256)
#define LIVE_MAX_S	10

static volatile int live_stop;
static volatile unsigned char *live_base;

static unsigned long reread(void)
{
	unsigned long sum = 0;

	for (size_t o = 0; o < (size_t)LIVE_MIB << 20; o += 4096)
		sum += live_base[o];
	return sum;
}

static void *live_reader(void *arg)
{
	while (!live_stop)
		reread();
	return arg;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Re-read the region with two threads until a page's worth of faults came. */
static long live_faults(double *secs)
{
	pthread_t th;
	double t0;
	long f0, f = 0;
	void *p;

	p = mmap(NULL, (size_t)LIVE_MIB << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, (size_t)LIVE_MIB << 20, MADV_NOHUGEPAGE);
	live_base = p;
	for (size_t o = 0; o < (size_t)LIVE_MIB << 20; o += 4096)
		live_base[o] = 1;
	live_stop = 0;
	if (pthread_create(&th, NULL, live_reader, NULL)) {
		munmap(p, (size_t)LIVE_MIB << 20);
		return -1;
	}
	reread();		/* the thread's own stack faults are behind us */
	f0 = minflt();
	t0 = now_s();
	while (now_s() - t0 < LIVE_MAX_S) {
		reread();
		f = minflt() - f0;
		if (f >= LIVE_PAGES)
			break;
	}
	*secs = now_s() - t0;
	live_stop = 1;
	pthread_join(th, NULL);
	munmap(p, (size_t)LIVE_MIB << 20);
	return f;
}

static void test_live(void)
{
	char before[64], after[64], err[256] = "", why[512];
	struct hs_sampling *s = NULL;
	double secs = 0;
	long faults;
	int lock, e;

	if (geteuid() != 0) {
		t_skip("not root");
		return;
	}
	if (access(NB, F_OK)) {
		t_skip("%s: no NUMA balancing in this kernel", NB);
		return;
	}
	lock = t_live_lock(why, sizeof(why));
	if (lock < 0) {
		t_skip("%s", why);
		return;
	}
	snprintf(before, sizeof(before), "%s", get("", NB));
	e = hs_sampling_numa_enable(&s, err, sizeof(err));
	if (e) {
		t_fail(__FILE__, __LINE__, "enable: %d: %s", e, err);
		goto out;
	}
	T_ASSERT(strtoul(get("", NB), NULL, 10) & 1);
	faults = live_faults(&secs);
	hs_sampling_restore(s);
	snprintf(after, sizeof(after), "%s", get("", NB));
	T_EQ_STR(after, before);
	T_ASSERT(strstr(hs_sampling_describe(s), " (restored)") != NULL);
	/*
	 * measured: the first pass 1.0-2.8 s after the touch (sampling.c).
	 * Under ASan the scanner's passes go to the terabytes of shadow
	 * mappings first (task_numa_work walks VMAs in address order, 256 MiB
	 * a pass) and this buffer's turn may not come in 10 s: only the
	 * setting and its restoring are checked there.
	 */
	if (LIVE_RATE_CHECKED && faults < LIVE_PAGES)
		t_fail(__FILE__, __LINE__, "%ld minor faults re-reading %d pages in %.1f s "
		       "(%s)", faults, LIVE_PAGES, secs, hs_sampling_describe(s));
out:
	hs_sampling_free(s);
	if (strcmp(get("", NB), before))
		t_fail(__FILE__, __LINE__, "numa_balancing left at %s", get("", NB));
	flock(lock, LOCK_UN);
	close(lock);
}

static const struct t_case cases[] = {
	{ "off_to_on", test_off_to_on },
	{ "modes", test_modes },
	{ "scan_period", test_scan_period },
	{ "errors", test_errors },
	{ "live", test_live },
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
	int ret;

	snprintf(scratch, sizeof(scratch), "/tmp/t-sampling.XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 99;
	}
	ret = t_main(cases, ARRAY_SIZE(cases), argc, argv);
	if (nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "cannot remove %s\n", scratch);
	return ret;
}
