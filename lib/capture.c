/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live capture from tracefs (interface and contracts in capture.h).  Open finds
 * tracefs in /proc/mounts or mounts it, points libtracefs at it (so the library
 * never mounts anything behind our back), removes instances of dead hsctl
 * processes and creates hsctl_<pid>, tracing off.  Start opens every online
 * CPU's trace_pipe_raw, starts one reader thread per CPU with every signal
 * blocked, then excludes all of this process's threads (the readers included)
 * through set_event_notrace_pid, snapshots the per-CPU stats and turns tracing
 * on.  A reader sleeps in poll() until the kernel wakes it at buffer_percent,
 * then reads sub-buffers (tracefs_cpu_read) without blocking until the buffer
 * is empty, or, spooling without a callback, splices whole sub-buffers
 * through a pipe into the caller's file (the kernel hands its pages over:
 * no copy to user space, one splice pair per pipeful) and reads the partial
 * last one only when the period elapses.  Stop turns tracing off, wakes the readers through an eventfd, lets
 * each flush what is left (tracefs_cpu_flush, partial pages too), joins them,
 * snapshots the stats again and closes the per-CPU fds, which must all be
 * closed before the instance can be removed (RECORDER.md pitfall 1).  Loss =
 * overrun + commit overrun + dropped events, per CPU: readers consume what
 * they read, so "entries" is not loss.  Nothing here touches the function
 * tracer's files (locked down on these machines).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture.h"
#include "hs.h"
#include "undo.h"

#define READER_PERIOD_MS 500 			/* a reader reads at least this often */
#define SPLICE_PIPE_SZ	(1u << 20)		/* pipe between trace_pipe_raw and a spool */
#define DEF_BUFFER_KB	8192u			/* per-CPU ring buffer when opts say 0 */
#define DEF_PERCENT	25u			/* buffer_percent when opts say 0 */
#define DEF_CLOCK	"mono"			/* lines up with CLOCK_MONOTONIC */
#define TRACEFS_MNT	"/sys/kernel/tracing"	/* where we mount tracefs when it is not */
#define MAX_CPUS	8192			/* sanity bound on the online list */
#define OWNER_COMM	"hsctl"			/* comm of a live instance owner */
#define TRACEFS_MAGIC_NR 0x74726163		/* statfs f_type of tracefs */
#define MNT_ID_UNIQUE	0x4000u			/* STATX_MNT_ID_UNIQUE (Linux 6.8) */
#define MNT_ID_REUSABLE	0x1000u			/* STATX_MNT_ID (Linux 5.8) */
#define STATX_MNT_ID_OFF 144			/* offset of stx_mnt_id in struct statx */

/* One CPU's per_cpu/cpuN/stats counters. */
struct cpu_snap {
	uint64_t	overrun;	/* "overrun:" */
	uint64_t	commit_overrun;	/* "commit overrun:" */
	uint64_t	dropped;	/* "dropped events:" */
	uint64_t	read_events;	/* "read events:" */
};

/* What ended a reader early. */
enum reader_err { RERR_CALLBACK, RERR_READ, RERR_SPOOL };

/* One CPU's reader.  Only rd[cpu].online entries are used. */
struct reader {
	struct hs_capture *c;		/* back pointer */
	int		cpu;		/* CPU number */
	bool		online;		/* CPU was online at open: it gets a reader */
	bool		thread_live;	/* thread created and not yet joined */
	int		fd;		/* trace_pipe_raw (O_NONBLOCK) while started, else -1 */
	struct tracefs_cpu *tcpu;	/* wraps fd; touched only by the reader thread */
	void		*buf;		/* one sub-buffer (subbuf_size() bytes) while started */
	size_t		size;		/* its size */
	int		out;		/* the caller's spool fd, or -1 */
	int		pipe[2];	/* trace_pipe_raw -> pipe -> out while splicing, or -1 */
	size_t		pipe_sz;	/* the pipe's capacity (a multiple of the page size) */
	bool		splice;		/* splice whole sub-buffers (else read every one) */
	pthread_t	thread;		/* valid while thread_live */
	uint64_t	subbufs;	/* handed to on_subbuf; atomic */
	uint64_t	bytes;		/* their length; atomic */
	int		err;		/* why this reader ended early: callback value or -errno */
	enum reader_err	err_from;	/* where err came from */
	struct cpu_snap	before;		/* stats at start */
};

struct hs_capture {
	hs_capture_subbuf_fn on_subbuf;	/* the consumer, or NULL */
	hs_capture_spool_fn spool_fd;	/* the spool files, or NULL */
	void		*arg;		/* their first argument */
	unsigned int	buffer_kb;	/* asked per-CPU size */
	unsigned int	buffer_percent;	/* asked wake-up watermark */
	char		clock_req[16];	/* asked trace clock */
	char		tracing_dir[PATH_MAX];	/* tracefs mount in use */
	char		name[32];	/* "hsctl_<pid>" */
	char		errmsg[512];	/* last error, "what: why" */
	bool		mounted;	/* we mounted tracing_dir: unmount at close */
	struct tracefs_instance *inst;	/* our instance, or NULL */
	bool		inst_new;	/* we created it (only then destroy it) */
	struct hs_undo	*undo;		/* the caller's undo note, or NULL */
	int		undo_inst;	/* its item for the instance, or 0 */
	int		undo_mount;	/* its item for our mount, or 0 */
	unsigned int	nr_cpus;	/* entries of rd[] and cpu[]: highest online CPU + 1 */
	struct reader	*rd;		/* per CPU */
	struct hs_capture_cpu *cpu;	/* per CPU counters handed out by get_stats */
	bool		running;	/* between a successful start and stop */
	int		stop_fd;	/* eventfd: readable = readers must flush and end */
	int		first_err;	/* first reader error of this run, 0 if none; atomic */
	unsigned int	kernel_kb;	/* buffer size the kernel reports */
	char		clock[16];	/* trace clock the kernel reports */
};

static void set_err(struct hs_capture *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct hs_capture *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
}

/*
 * @buf = <tracing_dir>/instances/<name>/ + the formatted rest.
 * Return: 0, or -ENAMETOOLONG when it does not fit.
 */
static int inst_path(const struct hs_capture *c, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int inst_path(const struct hs_capture *c, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, size, "%s/instances/%s/", c->tracing_dir, c->name);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= size - (size_t)n ? -ENAMETOOLONG : 0;
}

/* -errno of a failed libc or libtracefs call (which may leave errno 0). */
static int neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* ---- finding tracefs ---- */

/* Undo /proc/mounts' octal escapes (\040 for a space) in place. */
static void unescape_mount(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

int hs_tracefs_find(char *buf, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;
	int err;

	if (!buf || !size)
		return -EINVAL;
	f = fopen("/proc/mounts", "re");
	if (!f)
		return neg_errno();
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *dev, *dir, *type;
		bool preferred;

		dev = strtok_r(line, " \t\n", &save);
		dir = dev ? strtok_r(NULL, " \t\n", &save) : NULL;
		type = dir ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!type || strcmp(type, "tracefs"))
			continue;
		unescape_mount(dir);
		preferred = !strcmp(dir, TRACEFS_MNT);
		if (found && !preferred)
			continue;
		if (strlen(dir) >= size) {
			err = -ENAMETOOLONG;
			goto out;
		}
		strcpy(buf, dir);
		found = true;
		if (preferred)
			break;
	}
	err = found ? 0 : -ENOENT;
out:
	free(line);
	fclose(f);
	return err;
}

/* ---- stale instances ---- */

/* "hsctl_<decimal pid>" -> pid; false for any other name. */
static bool parse_instance_name(const char *name, pid_t *pid)
{
	size_t plen = strlen(HS_CAPTURE_PREFIX);
	const char *p = name + plen;
	long v = 0;

	if (strncmp(name, HS_CAPTURE_PREFIX, plen) || !*p || strlen(p) > 10)
		return false;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		v = v * 10 + (*p - '0');
	}
	if (v <= 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

/* Does /proc/<pid>/<file> hold a line containing @needle (or, for comm, equal to it)? */
static bool proc_has(pid_t pid, const char *file, const char *needle, bool whole)
{
	char path[64], *line = NULL;
	bool hit = false;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!hit && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		hit = whole ? !strcmp(line, needle) : strstr(line, needle) != NULL;
	}
	free(line);
	fclose(f);
	return hit;
}

/*
 * Is the process that named an instance still its owner?  Dead (ESRCH): no.
 * Alive and called "hsctl": yes.  Alive with libtracefs mapped: yes as well,
 * because such a process may be another user of this code (a test program, a
 * renamed hsctl) and removing a live instance breaks its capture; a recycled
 * pid of an unrelated program has neither.  Anything else: the pid was
 * recycled and the instance is stale.
 */
static bool owner_lives(pid_t pid)
{
	if (kill(pid, 0) == -1 && errno == ESRCH)
		return false;
	if (proc_has(pid, "comm", OWNER_COMM, true))
		return true;
	return proc_has(pid, "maps", "libtracefs", false);
}

int hs_capture_cleanup_stale(const char *tracing_dir, unsigned int *removed)
{
	char path[PATH_MAX], (*names)[32] = NULL;
	size_t n = 0, cap = 0, i;
	unsigned int done = 0;
	struct dirent *de;
	pid_t self = getpid();
	int first = 0;
	DIR *dir;
	pid_t pid;

	if (removed)
		*removed = 0;
	if (!tracing_dir)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/instances", tracing_dir) >= sizeof(path))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return neg_errno();
	/* Collect first: removing entries while readdir() walks them is unspecified. */
	while ((de = readdir(dir))) {
		if (!parse_instance_name(de->d_name, &pid) || pid == self || owner_lives(pid))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			void *nv = realloc(names, ncap * sizeof(*names));

			if (!nv) {
				first = -ENOMEM;
				break;
			}
			names = nv;
			cap = ncap;
		}
		/* parse_instance_name() allowed at most 16 characters */
		memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	}
	closedir(dir);
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/instances/%s", tracing_dir,
				     names[i]) >= sizeof(path)) {
			if (!first)
				first = -ENAMETOOLONG;
			continue;
		}
		if (!rmdir(path))
			done++;
		else if (errno != ENOENT && !first)
			first = -errno;
	}
	free(names);
	if (removed)
		*removed = done;
	return first;
}

/* ---- CPUs and per-CPU stats ---- */

/* Mark the online CPUs; nr_cpus = highest + 1. */
static int find_cpus(struct hs_capture *c)
{
	char buf[4096], *p, *end;
	unsigned long lo, hi, v;
	unsigned int max = 0;
	bool any = false;
	ssize_t n;
	int fd;

	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		if (cpus < 1 || cpus > MAX_CPUS)
			return -EIO;
		snprintf(buf, sizeof(buf), "0-%ld", cpus - 1);
	} else {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EIO;
		buf[n] = '\0';
	}
	/* Two passes over "0-3,5,7-8": the size, then the marks. */
	for (int pass = 0; pass < 2; pass++) {
		for (p = buf; *p && *p != '\n';) {
			errno = 0;
			lo = strtoul(p, &end, 10);
			if (end == p || errno || lo >= MAX_CPUS)
				return -EIO;
			hi = lo;
			p = end;
			if (*p == '-') {
				hi = strtoul(p + 1, &end, 10);
				if (end == p + 1 || errno || hi >= MAX_CPUS || hi < lo)
					return -EIO;
				p = end;
			}
			for (v = lo; v <= hi; v++) {
				if (pass)
					c->rd[v].online = true;
				else if (v + 1 > max)
					max = (unsigned int)v + 1;
				any = true;
			}
			if (*p == ',')
				p++;
			else if (*p && *p != '\n')
				return -EIO;
		}
		if (!pass) {
			if (!any)
				return -EIO;
			c->rd = calloc(max, sizeof(*c->rd));
			c->cpu = calloc(max, sizeof(*c->cpu));
			if (!c->rd || !c->cpu) {
				free(c->rd);
				free(c->cpu);
				c->rd = NULL;
				c->cpu = NULL;
				return -ENOMEM;
			}
			c->nr_cpus = max;
			for (v = 0; v < max; v++) {
				c->rd[v].c = c;
				c->rd[v].cpu = (int)v;
				c->rd[v].fd = -1;
				c->rd[v].out = -1;
				c->rd[v].pipe[0] = c->rd[v].pipe[1] = -1;
			}
		}
	}
	return 0;
}

static int read_snap(struct hs_capture *c, int cpu, struct cpu_snap *s)
{
	static const struct {
		const char	*key;
		size_t		off;
	} keys[] = {
		{ "overrun:", offsetof(struct cpu_snap, overrun) },
		{ "commit overrun:", offsetof(struct cpu_snap, commit_overrun) },
		{ "dropped events:", offsetof(struct cpu_snap, dropped) },
		{ "read events:", offsetof(struct cpu_snap, read_events) },
	};
	char path[PATH_MAX + 64], buf[2048], *line, *save = NULL;
	unsigned int seen = 0;
	size_t len = 0;
	ssize_t n;
	int fd;

	if (inst_path(c, path, sizeof(path), "per_cpu/cpu%d/stats", cpu))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	memset(s, 0, sizeof(*s));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t kl = strlen(keys[k].key);
			char *end;

			if (strncmp(line, keys[k].key, kl))
				continue;
			errno = 0;
			*(uint64_t *)(void *)((char *)s + keys[k].off) =
				strtoull(line + kl, &end, 10);
			if (errno || end == line + kl)
				return -EIO;
			seen |= 1u << k;
		}
	}
	return seen == (1u << ARRAY_SIZE(keys)) - 1 ? 0 : -EIO;
}

static uint64_t delta(uint64_t after, uint64_t before)
{
	return after >= before ? after - before : 0;
}

/* ---- open and close ---- */

static bool clock_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= sizeof(((struct hs_capture *)0)->clock_req))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

/* Everything open() set up, in reverse; leaves @c freeable and inert. */
static void teardown(struct hs_capture *c)
{
	if (c->inst) {
		if (c->inst_new) {
			tracefs_trace_off(c->inst);
			tracefs_event_disable(c->inst, NULL, NULL);
			/* EBUSY while anyone holds a per-CPU fd: a forked child may be exiting */
			for (int tries = 0; tries < 20; tries++) {
				errno = 0;
				if (!tracefs_instance_destroy(c->inst)) {
					hs_undo_done(c->undo, c->undo_inst);
					c->undo_inst = 0;
					break;
				}
				if (errno != EBUSY)
					break;
				usleep(5000);
			}
		}
		tracefs_instance_free(c->inst);
		c->inst = NULL;
		c->inst_new = false;
	}
	/* never created (or not ours): nothing of the note's to undo */
	if (c->undo_inst && !c->inst_new) {
		char path[PATH_MAX + 64];
		struct stat st;

		snprintf(path, sizeof(path), "%s/instances/%s", c->tracing_dir, c->name);
		if (!c->tracing_dir[0] || stat(path, &st)) {
			hs_undo_done(c->undo, c->undo_inst);
			c->undo_inst = 0;
		}
	}
	if (c->mounted) {
		/* EBUSY: someone else uses it now; leave it (the note keeps it for a recovery) */
		if (!umount(c->tracing_dir)) {
			hs_undo_done(c->undo, c->undo_mount);
			c->undo_mount = 0;
		}
		c->mounted = false;
	}
}

int hs_tracefs_mount_id(const char *dir, uint64_t *id, bool *unique)
{
	struct statx sx;
	struct statfs sf;
	uint32_t mask;

	_Static_assert(sizeof(sx) >= STATX_MNT_ID_OFF + sizeof(uint64_t), "struct statx");
	memset(&sx, 0, sizeof(sx));
	if (statx(AT_FDCWD, dir, AT_NO_AUTOMOUNT, MNT_ID_UNIQUE | MNT_ID_REUSABLE, &sx))
		return neg_errno();
	if (statfs(dir, &sf))
		return neg_errno();
	if ((uint64_t)sf.f_type != TRACEFS_MAGIC_NR)
		return -EINVAL;
	mask = sx.stx_mask;
	if (!(mask & (MNT_ID_UNIQUE | MNT_ID_REUSABLE)))
		return -ENOSYS;
	memcpy(id, (const char *)&sx + STATX_MNT_ID_OFF, sizeof(*id));
	*unique = mask & MNT_ID_UNIQUE;
	return 0;
}

int hs_tracefs_unmount_if(const char *dir, uint64_t id, bool unique)
{
	uint64_t now;
	bool u;
	int err;

	err = hs_tracefs_mount_id(dir, &now, &u);
	if (err)
		return err == -EINVAL || err == -ENOENT ? -ENOENT : err;
	if (now != id || u != unique)
		return -ESTALE;
	if (umount(dir))
		return neg_errno();
	return 0;
}

static int find_or_mount(struct hs_capture *c)
{
	struct stat st;
	int err;

	err = hs_tracefs_find(c->tracing_dir, sizeof(c->tracing_dir));
	if (err != -ENOENT) {
		if (err)
			set_err(c, "/proc/mounts: %s", strerror(-err));
		return err;
	}
	snprintf(c->tracing_dir, sizeof(c->tracing_dir), "%s", TRACEFS_MNT);
	if (stat(TRACEFS_MNT, &st) || !S_ISDIR(st.st_mode)) {
		set_err(c, "%s: no tracefs mount point in this kernel", TRACEFS_MNT);
		return -ENOENT;
	}
	if (mount("nodev", TRACEFS_MNT, "tracefs", 0, NULL)) {
		err = neg_errno();
		set_err(c, "mount tracefs on %s: %s", TRACEFS_MNT, strerror(-err));
		return err == -ENODEV ? -ENOENT : err;
	}
	c->mounted = true;
	if (c->undo) {
		/* at once: the mount id can only be known now */
		struct hs_undo_item it = { .kind = HS_UNDO_MOUNT };
		bool unique = false;

		err = hs_tracefs_mount_id(TRACEFS_MNT, &it.id, &unique);
		if (!err) {
			snprintf(it.a, sizeof(it.a), "%s", TRACEFS_MNT);
			snprintf(it.b, sizeof(it.b), "%s", unique ? "unique" : "reusable");
			err = hs_undo_add(c->undo, &it);
		}
		if (err < 0) {
			set_err(c, "undo note for the tracefs mount on %s: %s", TRACEFS_MNT,
				strerror(-err));
			return err == -ENOENT || err == -ENODEV ? -EIO : err;
		}
		c->undo_mount = err;
	}
	return 0;
}

static int setup_instance(struct hs_capture *c)
{
	char num[16], *clk;
	ssize_t kb;
	int first = 0;
	int err;

	for (unsigned int i = 0; i < c->nr_cpus; i++) {
		if (c->rd[i].online) {
			first = (int)i;
			break;
		}
	}
	errno = 0;
	c->inst = tracefs_instance_create(c->name);
	if (!c->inst) {
		err = neg_errno();
		set_err(c, "create instance %s/instances/%s: %s", c->tracing_dir, c->name,
			strerror(-err));
		return err;
	}
	if (!tracefs_instance_is_new(c->inst)) {
		set_err(c, "instance %s: exists already (one capture per process)", c->name);
		return -EEXIST;
	}
	c->inst_new = true;
	errno = 0;
	if (tracefs_trace_off(c->inst) < 0) {
		err = neg_errno();
		set_err(c, "%s: tracing_on: %s", c->name, strerror(-err));
		return err;
	}
	errno = 0;
	if (tracefs_instance_set_buffer_size(c->inst, c->buffer_kb, -1) < 0) {
		err = neg_errno();
		set_err(c, "%s: buffer_size_kb %u: %s", c->name, c->buffer_kb, strerror(-err));
		return err;
	}
	kb = tracefs_instance_get_buffer_size(c->inst, first);
	c->kernel_kb = kb > 0 ? (unsigned int)kb : 0;
	snprintf(num, sizeof(num), "%u", c->buffer_percent);
	errno = 0;
	if (tracefs_instance_file_write(c->inst, "buffer_percent", num) < 0) {
		err = neg_errno();
		set_err(c, "%s: buffer_percent %s: %s", c->name, num, strerror(-err));
		return err;
	}
	errno = 0;
	if (tracefs_instance_file_write(c->inst, "trace_clock", c->clock_req) < 0) {
		err = neg_errno();
		set_err(c, "%s: trace_clock %s: %s", c->name, c->clock_req, strerror(-err));
		return err == -EIO ? -EIO : -EINVAL;
	}
	clk = tracefs_get_clock(c->inst);
	if (!clk) {
		set_err(c, "%s: trace_clock: cannot read it back", c->name);
		return -EIO;
	}
	snprintf(c->clock, sizeof(c->clock), "%s", clk);
	free(clk);
	if (strcmp(c->clock, c->clock_req)) {
		set_err(c, "%s: trace_clock is %s after writing %s", c->name, c->clock,
			c->clock_req);
		return -EINVAL;
	}
	return 0;
}

int hs_capture_open(const struct hs_capture_opts *opts, struct hs_capture **out)
{
	struct hs_capture *c;
	uid_t euid = geteuid();
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->stop_fd = -1;
	snprintf(c->name, sizeof(c->name), HS_CAPTURE_PREFIX "%d", (int)getpid());
	if (!opts || (!opts->on_subbuf && !opts->spool_fd)) {
		set_err(c, "capture: no sub-buffer callback and no spool");
		err = -EINVAL;
		goto out;
	}
	c->on_subbuf = opts->on_subbuf;
	c->spool_fd = opts->spool_fd;
	c->arg = opts->arg;
	c->buffer_kb = opts->buffer_kb ? opts->buffer_kb : DEF_BUFFER_KB;
	c->buffer_percent = opts->buffer_percent ? opts->buffer_percent : DEF_PERCENT;
	if (c->buffer_percent > 100) {
		set_err(c, "capture: buffer_percent %u: not in 1..100", c->buffer_percent);
		err = -EINVAL;
		goto out;
	}
	if (opts->clock && !clock_name_ok(opts->clock)) {
		set_err(c, "capture: trace clock \"%s\": not a clock name", opts->clock);
		err = -EINVAL;
		goto out;
	}
	snprintf(c->clock_req, sizeof(c->clock_req), "%s", opts->clock ? opts->clock : DEF_CLOCK);
	if (euid != 0) {
		set_err(c, "tracefs needs root (euid %u)", (unsigned int)euid);
		err = -EPERM;
		goto out;
	}
	err = find_cpus(c);
	if (err) {
		set_err(c, "/sys/devices/system/cpu/online: %s", strerror(-err));
		goto out;
	}
	c->undo = opts->undo;
	if (c->undo) {
		/* before tracefs is even looked for: a recovery sees it is in use */
		struct hs_undo_item it = { .kind = HS_UNDO_INSTANCE };

		snprintf(it.a, sizeof(it.a), "%s", c->name);
		err = hs_undo_add(c->undo, &it);
		if (err < 0) {
			set_err(c, "undo note %s: %s", hs_undo_path(c->undo), strerror(-err));
			err = err == -ENOENT || err == -ENODEV ? -EIO : err;
			goto out;
		}
		c->undo_inst = err;
		err = 0;
	}
	err = find_or_mount(c);
	if (err)
		goto out;
	/* Always: libtracefs would otherwise look for (and mount) tracefs itself. */
	if (tracefs_set_tracing_dir(c->tracing_dir) < 0) {
		err = -ENOMEM;
		goto out;
	}
	hs_capture_cleanup_stale(c->tracing_dir, NULL);	/* best effort */
	err = setup_instance(c);
out:
	if (err) {
		teardown(c);
		if (err == -ENOMEM) {
			hs_capture_close(c);
			return err;
		}
	}
	*out = c;
	return err;
}

const char *hs_capture_errmsg(const struct hs_capture *c)
{
	return c ? c->errmsg : "";
}

const char *hs_capture_tracing_dir(const struct hs_capture *c)
{
	return c ? c->tracing_dir : "";
}

const char *hs_capture_instance(const struct hs_capture *c)
{
	return c ? c->name : "";
}

static bool event_name_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

int hs_capture_enable(struct hs_capture *c, const char *system, const char *event)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	if (!c || !c->inst)
		return -EINVAL;
	if (!event_name_ok(system) || !event_name_ok(event)) {
		set_err(c, "enable %s:%s: not an event name", system ? system : "(null)",
			event ? event : "(null)");
		return -EINVAL;
	}
	/* libtracefs matches names as regular expressions: check the exact one exists. */
	if (inst_path(c, path, sizeof(path), "events/%s/%s/enable", system, event))
		return -ENOENT;
	if (stat(path, &st)) {
		err = neg_errno();
		set_err(c, "enable %s:%s: %s", system, event,
			err == -ENOENT ? "no such event in this kernel" : strerror(-err));
		return err == -ENOENT ? -ENOENT : -EIO;
	}
	errno = 0;
	if (tracefs_event_enable(c->inst, system, event) < 0) {
		err = neg_errno();
		set_err(c, "enable %s:%s: %s", system, event, strerror(-err));
		return err == -ENOENT ? -ENOENT : -EIO;
	}
	return 0;
}

int hs_capture_filter(struct hs_capture *c, const char *system, const char *event,
		      const char *filter)
{
	char file[256];
	int err;

	if (!c || !c->inst || !filter)
		return -EINVAL;
	if (!event_name_ok(system) || !event_name_ok(event)) {
		set_err(c, "filter %s:%s: not an event name", system ? system : "(null)",
			event ? event : "(null)");
		return -EINVAL;
	}
	snprintf(file, sizeof(file), "events/%s/%s/filter", system, event);
	errno = 0;
	if (tracefs_instance_file_write(c->inst, file, filter) < 0) {
		err = neg_errno();
		set_err(c, "filter %s:%s '%s': %s", system, event, filter,
			err == -EINVAL ? "the kernel refused it" : strerror(-err));
		return err == -ENOENT ? -ENOENT : err == -EINVAL ? -EINVAL : -EIO;
	}
	return 0;
}

/* ---- readers ---- */

/*
 * Bytes one read of trace_pipe_raw can return: the instance's
 * buffer_subbuf_size_kb (kernel 6.8+) or, before that, the data field's end
 * in events/header_page (what tracefs_cpu_open() computes).  A larger buffer
 * is harmless, so take the larger of the two.
 */
static int subbuf_size(struct hs_capture *c, size_t *size)
{
	char path[PATH_MAX + 64], buf[1024], *p;
	unsigned long off, len;
	size_t best = 0;
	ssize_t n;
	int fd;

	fd = -1;
	if (!inst_path(c, path, sizeof(path), "buffer_subbuf_size_kb"))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			best = strtoul(buf, NULL, 10) * 1024;
		}
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/events/header_page", c->tracing_dir) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strstr(buf, " data;");
	if (!p || sscanf(p, " data; offset:%lu; size:%lu;", &off, &len) != 2 || !len)
		return -EIO;
	if (off + len > best)
		best = off + len;
	if (best > (1u << 24))
		return -EIO;
	*size = best;
	return 0;
}

size_t hs_capture_subbuf_size(struct hs_capture *c)
{
	size_t size = 0;

	if (!c || subbuf_size(c, &size))
		return 0;
	return size;
}

static void reader_fail(struct reader *r, int err, enum reader_err from)
{
	int zero = 0;

	r->err = err;
	r->err_from = from;
	__atomic_compare_exchange_n(&r->c->first_err, &zero, err, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
}

/* All of @len bytes to the spool fd.  Return: 0 or -errno. */
static int write_out(struct reader *r, const void *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(r->out, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return neg_errno();
		if (!n)
			return -EIO;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

static void count(struct reader *r, uint64_t subbufs, uint64_t bytes)
{
	__atomic_add_fetch(&r->subbufs, subbufs, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->bytes, bytes, __ATOMIC_RELAXED);
}

/* One sub-buffer read into r->buf: to the callback, then to the spool. */
static int deliver(struct reader *r, int len)
{
	int err;

	count(r, 1, (uint64_t)len);
	if (r->c->on_subbuf) {
		err = r->c->on_subbuf(r->c->arg, r->cpu, r->buf, (size_t)len);
		if (err) {
			reader_fail(r, err, RERR_CALLBACK);
			return err;
		}
	}
	if (r->out >= 0) {
		/* the spool holds whole sub-buffers only: a short read is padded */
		if ((size_t)len < r->size)
			memset((char *)r->buf + len, 0, r->size - (size_t)len);
		err = write_out(r, r->buf, r->size);
		if (err) {
			reader_fail(r, err, RERR_SPOOL);
			return err;
		}
	}
	return 0;
}

/*
 * Empty the pipe into the spool: @len bytes are in it.  A file system that
 * cannot take a splice (EINVAL before anything moved) gets them through
 * r->buf, and the reader reads from then on.
 */
static int pipe_out(struct reader *r, size_t len)
{
	ssize_t n;
	int err;

	while (len) {
		if (r->splice)
			n = splice(r->pipe[0], NULL, r->out, NULL, len, SPLICE_F_MOVE);
		else
			n = read(r->pipe[0], r->buf, HS_MIN(len, r->size));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EINVAL && r->splice) {
			r->splice = false;
			continue;
		}
		if (n <= 0)
			return n < 0 ? neg_errno() : -EIO;
		if (!r->splice) {
			err = write_out(r, r->buf, (size_t)n);
			if (err)
				return err;
		}
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Splice whole sub-buffers into the spool until trace_pipe_raw has none
 * left (the writer's partial one stays).  Return: 0, or the error that
 * ended this reader.
 */
static int splice_drain(struct reader *r)
{
	ssize_t n;
	int err;

	while (r->splice) {
		n = splice(r->fd, NULL, r->pipe[1], NULL, r->pipe_sz,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EINVAL) {
			r->splice = false;	/* this kernel cannot: read instead */
			break;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			err = neg_errno();
			reader_fail(r, err, RERR_READ);
			return err;
		}
		if (!n)
			break;
		count(r, (uint64_t)n / r->size, (uint64_t)n);
		err = pipe_out(r, (size_t)n);
		if (err) {
			reader_fail(r, err, RERR_SPOOL);
			return err;
		}
	}
	return 0;
}

/*
 * Read until trace_pipe_raw is empty (@flush: tracing is off, take the rest).
 * A splicing reader splices the whole sub-buffers first and reads (the
 * partial rest) only when @partial.
 * Return: 0 when empty, or the error that ended this reader.
 */
static int drain(struct reader *r, bool flush, bool partial)
{
	int err;
	int n;

	if (r->splice) {
		err = splice_drain(r);
		if (err || (!partial && r->splice))
			return err;
	}
	for (;;) {
		errno = 0;
		if (flush)
			n = tracefs_cpu_flush(r->tcpu, r->buf);
		else
			n = tracefs_cpu_read(r->tcpu, r->buf, true);
		if (n > 0) {
			err = deliver(r, n);
			if (err)
				return err;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno != EAGAIN) {
			err = neg_errno();
			reader_fail(r, err, RERR_READ);
			return err;
		} else {
			return 0;
		}
	}
}

/*
 * One CPU's reader.  It sleeps in poll() on trace_pipe_raw, which the kernel
 * makes readable at buffer_percent, and on the capture's stop eventfd; once
 * woken it reads (non-blocking) until the buffer is empty, so a wake-up costs
 * one poll() per batch, not one per sub-buffer.  Only this thread touches
 * its tracefs_cpu: the stop request comes through the eventfd, so there is no
 * race with tracefs_cpu_stop() flipping the descriptor's blocking mode under
 * a reader that is between two reads.
 */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd pfd[2] = {
		{ .fd = r->fd, .events = POLLIN },
		{ .fd = r->c->stop_fd, .events = POLLIN },
	};

	for (;;) {
		int n = poll(pfd, 2, READER_PERIOD_MS);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			reader_fail(r, neg_errno(), RERR_READ);
			return NULL;
		}
		if (pfd[1].revents)
			break;
		/*
		 * Woken at buffer_percent, or READER_PERIOD_MS went by: a quiet
		 * CPU's events then still reach the caller within the period (a
		 * read takes partial sub-buffers), for a live progress line and
		 * so that a killed recorder loses little.  A splicing reader
		 * woken at the watermark leaves the partial one to the writer.
		 */
		if (drain(r, false, n == 0))
			return NULL;
	}
	drain(r, true, true);
	return NULL;
}

/* Stop and join every started reader (each flushes first). */
static void stop_readers(struct hs_capture *c)
{
	uint64_t one = 1;
	unsigned int i;

	/* Adding 1 to a fresh eventfd cannot block or fail but for a signal. */
	while (c->stop_fd >= 0 && write(c->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	for (i = 0; i < c->nr_cpus; i++) {
		if (c->rd[i].thread_live) {
			pthread_join(c->rd[i].thread, NULL);
			c->rd[i].thread_live = false;
		}
	}
}

/* Close every per-CPU descriptor (before the instance can go) and the stop eventfd. */
static void close_readers(struct hs_capture *c)
{
	for (unsigned int i = 0; i < c->nr_cpus; i++) {
		struct reader *r = &c->rd[i];

		if (r->tcpu)
			tracefs_cpu_close(r->tcpu);	/* closes r->fd too */
		else if (r->fd >= 0)
			close(r->fd);
		r->tcpu = NULL;
		r->fd = -1;
		free(r->buf);
		r->buf = NULL;
		for (int k = 0; k < 2; k++) {
			if (r->pipe[k] >= 0)
				close(r->pipe[k]);
			r->pipe[k] = -1;
		}
		r->out = -1;	/* the caller's */
		r->splice = false;
	}
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	c->stop_fd = -1;
}

/* "tid tid ..." of every thread of this process. */
static int self_tids(char **out)
{
	size_t len = 0, cap = 256;
	char *s = malloc(cap), *ns;
	struct dirent *de;
	DIR *dir;

	if (!s)
		return -ENOMEM;
	dir = opendir("/proc/self/task");
	if (!dir) {
		free(s);
		return neg_errno();
	}
	while ((de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (len + strlen(de->d_name) + 2 > cap) {
			cap *= 2;
			ns = realloc(s, cap);
			if (!ns) {
				closedir(dir);
				free(s);
				return -ENOMEM;
			}
			s = ns;
		}
		len += (size_t)sprintf(s + len, "%s%s", len ? " " : "", de->d_name);
	}
	closedir(dir);
	if (!len) {
		free(s);
		return -EIO;
	}
	*out = s;
	return 0;
}

/* The caller's spool fd for @r and, without a callback, the pipe to splice through. */
static int spool_open(struct hs_capture *c, struct reader *r)
{
	int sz, err;

	r->out = c->spool_fd(c->arg, r->cpu);
	if (r->out < 0) {
		set_err(c, "%s: cpu%d: no spool file: %s", c->name, r->cpu, strerror(-r->out));
		err = r->out;
		r->out = -1;
		return err;
	}
	if (c->on_subbuf)
		return 0;	/* it reads every sub-buffer anyway */
	if (pipe2(r->pipe, O_CLOEXEC)) {
		err = neg_errno();
		r->pipe[0] = r->pipe[1] = -1;
		set_err(c, "%s: cpu%d: pipe: %s", c->name, r->cpu, strerror(-err));
		return err;
	}
	/* a larger pipe moves more sub-buffers per splice; the default one still works */
	fcntl(r->pipe[1], F_SETPIPE_SZ, (int)SPLICE_PIPE_SZ);
	sz = fcntl(r->pipe[1], F_GETPIPE_SZ);
	/* splice from trace_pipe_raw wants whole sub-buffers */
	r->pipe_sz = sz > 0 ? (size_t)sz / r->size * r->size : 0;
	r->splice = r->pipe_sz > 0;
	return 0;
}

static int start_readers(struct hs_capture *c)
{
	char path[PATH_MAX + 64];
	sigset_t all, old;
	size_t size = 0;
	unsigned int i;
	int err;

	err = subbuf_size(c, &size);
	if (err) {
		set_err(c, "%s/events/header_page: %s", c->tracing_dir, strerror(-err));
		return err;
	}
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (c->stop_fd < 0) {
		err = neg_errno();
		set_err(c, "eventfd: %s", strerror(-err));
		return err;
	}
	for (i = 0; i < c->nr_cpus; i++) {
		struct reader *r = &c->rd[i];

		if (!r->online)
			continue;
		r->fd = -1;
		if (!inst_path(c, path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", r->cpu))
			r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		else
			errno = ENAMETOOLONG;
		if (r->fd < 0) {
			err = neg_errno();
			set_err(c, "%s: %s", path, strerror(-err));
			return err;
		}
		errno = 0;
		r->tcpu = tracefs_cpu_alloc_fd(r->fd, (int)size, true);
		r->buf = malloc(size);
		r->size = size;
		if (!r->tcpu || !r->buf) {
			set_err(c, "%s: cpu%d: out of memory", c->name, r->cpu);
			return -ENOMEM;
		}
		if (c->spool_fd) {
			err = spool_open(c, r);
			if (err)
				return err;
		}
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < c->nr_cpus; i++) {
		struct reader *r = &c->rd[i];

		if (!r->online)
			continue;
		err = -pthread_create(&r->thread, NULL, reader_main, r);
		if (err) {
			set_err(c, "%s: reader thread: %s", c->name, strerror(-err));
			break;
		}
		r->thread_live = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int hs_capture_start(struct hs_capture *c)
{
	char *tids = NULL;
	unsigned int i;
	int err;
	int n;

	if (!c || !c->inst)
		return -EINVAL;
	if (c->running)
		return -EBUSY;
	__atomic_store_n(&c->first_err, 0, __ATOMIC_RELAXED);
	for (i = 0; i < c->nr_cpus; i++) {
		struct reader *r = &c->rd[i];

		__atomic_store_n(&r->subbufs, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&r->bytes, 0, __ATOMIC_RELAXED);
		r->err = 0;
		r->err_from = RERR_CALLBACK;
		memset(&c->cpu[i], 0, sizeof(c->cpu[i]));
	}
	/* Readers first, so that they are among the threads excluded below. */
	err = start_readers(c);
	if (err)
		goto out_undo;
	err = self_tids(&tids);
	if (err) {
		set_err(c, "/proc/self/task: %s", strerror(-err));
		goto out_undo;
	}
	errno = 0;
	n = tracefs_instance_file_write(c->inst, "set_event_notrace_pid", tids);
	if (n < 0 || (size_t)n != strlen(tids)) {
		err = n < 0 ? neg_errno() : -EIO;
		set_err(c, "%s: set_event_notrace_pid: %s", c->name, strerror(-err));
		goto out_undo;
	}
	for (i = 0; i < c->nr_cpus; i++) {
		if (!c->rd[i].online)
			continue;
		err = read_snap(c, (int)i, &c->rd[i].before);
		if (err) {
			set_err(c, "%s: per_cpu/cpu%u/stats: %s", c->name, i, strerror(-err));
			goto out_undo;
		}
	}
	errno = 0;
	if (tracefs_trace_on(c->inst) < 0) {
		err = neg_errno();
		set_err(c, "%s: tracing_on: %s", c->name, strerror(-err));
		goto out_undo;
	}
	free(tids);
	c->running = true;
	return 0;

out_undo:
	free(tids);
	tracefs_trace_off(c->inst);
	stop_readers(c);
	close_readers(c);
	return err;
}

int hs_capture_stop(struct hs_capture *c)
{
	struct cpu_snap after;
	int snap_err = 0;
	unsigned int i;
	int err;

	if (!c || !c->running)
		return 0;
	tracefs_trace_off(c->inst);
	stop_readers(c);
	for (i = 0; i < c->nr_cpus; i++) {
		struct reader *r = &c->rd[i];
		struct hs_capture_cpu *s = &c->cpu[i];

		s->subbufs = __atomic_load_n(&r->subbufs, __ATOMIC_RELAXED);
		s->bytes = __atomic_load_n(&r->bytes, __ATOMIC_RELAXED);
		if (!r->online)
			continue;
		err = read_snap(c, (int)i, &after);
		if (err) {
			if (!snap_err) {
				snap_err = err;
				set_err(c, "%s: per_cpu/cpu%u/stats: %s", c->name, i,
					strerror(-err));
			}
			continue;
		}
		s->overrun = delta(after.overrun, r->before.overrun);
		s->commit_overrun = delta(after.commit_overrun, r->before.commit_overrun);
		s->dropped = delta(after.dropped, r->before.dropped);
		s->read_events = delta(after.read_events, r->before.read_events);
		s->lost = s->overrun + s->commit_overrun + s->dropped;
	}
	close_readers(c);
	c->running = false;
	err = __atomic_load_n(&c->first_err, __ATOMIC_ACQUIRE);
	if (err) {
		for (i = 0; i < c->nr_cpus; i++) {
			if (c->rd[i].err != err)
				continue;
			if (c->rd[i].err_from == RERR_READ)
				set_err(c, "%s: cpu%u trace_pipe_raw: %s", c->name, i,
					strerror(-err));
			else if (c->rd[i].err_from == RERR_SPOOL)
				set_err(c, "%s: cpu%u spool: %s", c->name, i, strerror(-err));
			else
				set_err(c, "%s: cpu%u: the sub-buffer consumer stopped (%d)",
					c->name, i, err);
			break;
		}
		return err;
	}
	return snap_err;
}

int hs_capture_get_stats(const struct hs_capture *c, struct hs_capture_stats *st)
{
	if (!c || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->nr_cpus = c->nr_cpus;
	st->cpu = c->cpu;
	for (unsigned int i = 0; i < c->nr_cpus; i++) {
		struct hs_capture_cpu *s = &c->cpu[i];

		if (c->running) {
			s->subbufs = __atomic_load_n(&c->rd[i].subbufs, __ATOMIC_RELAXED);
			s->bytes = __atomic_load_n(&c->rd[i].bytes, __ATOMIC_RELAXED);
		}
		st->subbufs += s->subbufs;
		st->bytes += s->bytes;
		st->lost += s->lost;
	}
	st->buffer_kb = c->kernel_kb;
	snprintf(st->clock, sizeof(st->clock), "%s", c->clock);
	return 0;
}

void hs_capture_close(struct hs_capture *c)
{
	if (!c)
		return;
	hs_capture_stop(c);
	if (c->rd)
		close_readers(c);
	teardown(c);
	free(c->rd);
	free(c->cpu);
	free(c);
}
