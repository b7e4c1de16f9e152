/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unit-test harness (see harness.h): case table runner and reporters,
 * and the live-test lock that live tests share with tests/cli/setup.sh.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const char *cur_case;
static int cur_failed;
static int cur_skipped;
static int verbose;

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: %s:%d: ", cur_case ? cur_case : "?", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed++;
}

void t_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "SKIP %s: ", cur_case ? cur_case : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_skipped = 1;
}

bool t_case_failed(void)
{
	return cur_failed != 0;
}

const char *t_shared(void)
{
	const char *s = getenv("HSCTL_SHARED");

	return s && *s ? s : NULL;
}

const char *t_testdata(void)
{
	const char *s = getenv("TESTDATA");

	return s && *s ? s : "testdata";
}

struct run {
	const struct t_case	*cases;		/* static table, or NULL */
	const char		*(*name)(size_t);	/* indexed form */
	void			(*fn)(size_t);
};

static const char *case_name(const struct run *r, size_t i)
{
	return r->cases ? r->cases[i].name : r->name(i);
}

static int run_all(const struct run *r, size_t n, int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *v = getenv("T_VERBOSE");
	size_t i;

	verbose = v && *v && strcmp(v, "0");
	for (i = 0; i < n; i++) {
		if (argc > 1) {		/* run only the named cases */
			int want = 0;

			for (int a = 1; a < argc; a++)
				want |= !strcmp(argv[a], case_name(r, i));
			if (!want)
				continue;
		}
		cur_case = case_name(r, i);
		cur_failed = 0;
		cur_skipped = 0;
		if (r->cases)
			r->cases[i].fn();
		else
			r->fn(i);
		if (cur_failed)
			failed++;
		else if (cur_skipped)
			skipped++;
		else
			passed++;
		if (verbose)
			fprintf(stderr, "%s %s\n",
				cur_failed ? "FAIL" : cur_skipped ? "SKIP" : "ok  ", cur_case);
	}
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	if (failed)
		return 1;
	if (passed == 0 && skipped > 0)
		return 77;
	return 0;
}

int t_main(const struct t_case *cases, size_t n, int argc, char **argv)
{
	struct run r = { .cases = cases };

	return run_all(&r, n, argc, argv);
}

int t_main_indexed(size_t n, const char *(*name)(size_t), void (*fn)(size_t), int argc,
		   char **argv)
{
	struct run r = { .name = name, .fn = fn };

	return run_all(&r, n, argc, argv);
}

/* ---- the live-test lock ---- */

static const char *live_lock_path(void)
{
	const char *p = getenv("HSCTL_LIVE_LOCK");

	return p && *p ? p : T_LIVE_LOCK;
}

/* $HSCTL_LIVE_LOCK_WAIT: whole seconds, T_LIVE_LOCK_WAIT when unset or not a number. */
static long live_lock_wait(void)
{
	const char *s = getenv("HSCTL_LIVE_LOCK_WAIT");
	char *end;
	long v;

	if (!s || !*s)
		return T_LIVE_LOCK_WAIT;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		return T_LIVE_LOCK_WAIT;
	return v;
}

static bool pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* /proc/PID/cmdline with spaces between the arguments, "?" if unreadable. */
static void pid_cmdline(long pid, char *buf, size_t len)
{
	char path[64];
	size_t n = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	while (n && !buf[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	if (!n)
		snprintf(buf, len, "?");
}

/* The pid /proc/locks shows holding a flock on @fd's file, or 0. */
static long proc_locks_holder(int fd)
{
	char line[256], me[64], dev[64];
	struct stat st;
	long pid = 0, p;
	FILE *f;

	if (fstat(fd, &st))
		return 0;
	snprintf(me, sizeof(me), "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
		 (unsigned long)st.st_ino);
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:123 0 EOF"; waiters have "->" after "1:" */
	while (!pid && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s FLOCK %*s %*s %ld %63s", &p, dev) == 2 && !strcmp(dev, me))
			pid = p;
	fclose(f);
	return pid;
}

/* " (open in PID PID ...)": the other processes with @fd's file open, or "". */
static void lock_openers(int fd, char *buf, size_t len)
{
	char path[600];		/* "/proc/" + two names of up to 255 bytes */
	struct stat me, st;
	struct dirent *p, *f;
	size_t n = 0;
	DIR *proc, *fds;

	buf[0] = '\0';
	if (fstat(fd, &me) || !(proc = opendir("/proc")))
		return;
	while ((p = readdir(proc)) && n + 24 < len) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9' || atol(p->d_name) == (long)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			if (f->d_name[0] != '.' && !stat(path, &st) && st.st_dev == me.st_dev &&
			    st.st_ino == me.st_ino) {
				n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : " (open in ",
						      p->d_name);
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	if (n && n + 1 < len)
		snprintf(buf + n, len - n, ")");
}

/*
 * "PID (COMMAND)" of the holder.  The pid /proc/locks shows, while it lives
 * (a taker of older code records nothing; the file may name the one before
 * it), with the command the file records for it or else its command line;
 * else the live process the file records (a shell's `flock 9` took the lock
 * in a process that has ended); else "an unknown process" and the processes
 * that have the file open, the holder among them.
 */
static void live_lock_holder(int fd, char *buf, size_t len)
{
	char rec[300], cmd[256];
	ssize_t n = pread(fd, rec, sizeof(rec) - 1, 0);
	long pid = 0, lp = proc_locks_holder(fd);
	int off = 0;

	if (n > 0) {
		rec[n] = '\0';
		rec[strcspn(rec, "\n")] = '\0';
		if (sscanf(rec, "%ld %n", &pid, &off) != 1 || off == 0)
			pid = 0;
	}
	if (pid_alive(lp) && lp != pid) {
		pid_cmdline(lp, cmd, sizeof(cmd));
		snprintf(buf, len, "%ld (%s)", lp, cmd);
	} else if (pid_alive(pid)) {
		snprintf(buf, len, "%ld (%s)", pid, rec + off);
	} else {
		lock_openers(fd, cmd, sizeof(cmd));
		snprintf(buf, len, "an unknown process%s", cmd);
	}
}

/* Record "PID COMMAND" in the lock file we now hold. */
static void live_lock_record(int fd)
{
	char cmd[256], rec[300];
	int n;

	pid_cmdline((long)getpid(), cmd, sizeof(cmd));
	n = snprintf(rec, sizeof(rec), "%ld %s\n", (long)getpid(), cmd);
	if (n > (int)sizeof(rec) - 1)
		n = (int)sizeof(rec) - 1;
	if (ftruncate(fd, 0) || pwrite(fd, rec, (size_t)n, 0) != n)
		fprintf(stderr, "%s: cannot record the holder: %s\n", live_lock_path(),
			strerror(errno));
}

int t_live_lock(char *why, size_t len)
{
	const char *path = live_lock_path();
	long wait = live_lock_wait();
	char holder[300];
	struct timespec t0, t;
	bool said = false;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			live_lock_record(fd);
			return fd;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			snprintf(why, len, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (!said) {
			live_lock_holder(fd, holder, sizeof(holder));
			fprintf(stderr, "waiting for %s held by %s\n", path, holder);
			said = true;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 >= (double)wait) {
			live_lock_holder(fd, holder, sizeof(holder));
			snprintf(why, len, "%s held by %s for %ld s (HSCTL_LIVE_LOCK_WAIT)", path,
				 holder, wait);
			close(fd);
			return -1;
		}
		usleep(100000);
	}
}
