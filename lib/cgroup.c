/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory cgroups for recorded workloads (contract in cgroup.h).  The
 * hierarchy is found in /proc/mounts: a cgroup2 mount whose
 * cgroup.controllers lists "memory" wins (the memory controller is then
 * enabled in the mount root's cgroup.subtree_control when it is not yet);
 * otherwise a v1 "cgroup" mount with the memory option.  The group is
 * hsctl_<pid> directly under the mount root, and it stays a leaf: the
 * workload's processes live in it and nowhere below it, so neither v1's
 * memory.use_hierarchy nor v2's no-internal-process rule changes what its
 * limit means.  Swap limits (memory.memsw.*, memory.swap.max) are never
 * touched.  Emptying a group is SIGKILL to every member listed in
 * cgroup.procs (v2 also writes cgroup.kill), polled every 10 ms until the
 * list is empty and rmdir(2) stops failing with EBUSY (v1 may take a moment
 * after the last task exits), for at most a second.  The counter files are
 * "name value" lines, parsed by hs_kvlist_parse().
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <mntent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "fileio.h"
#include "undo.h"

#define READ_MAX	(16u << 20)		/* largest counter file read */
#define EMPTY_WAIT_NS	1000000000ll		/* hs_cgroup_destroy(): at most a second */
#define POLL_NS		10000000l		/* between two looks at cgroup.procs */
#define V1_UNLIMITED	(UINT64_C(1) << 62)	/* v1 limits from here up mean "none" */

/**
 * struct hs_cgroup - one memory cgroup made by hs_cgroup_create()
 */
struct hs_cgroup {
	int		version;		/* 1 or 2 */
	uint64_t	limit;			/* limit read back at creation, 0: none */
	char		path[PATH_MAX];		/* the directory */
	char		procs[PATH_MAX];	/* path/cgroup.procs, ready for the forked
						 * child of hs_cgroup_attach() */
	struct hs_undo	*undo;			/* the creator's undo note, or NULL */
	int		undo_seq;		/* its item, or 0 */
};

/* ---- small helpers ---- */

/* One-line reasons go through hs_msg() (lib/fileio.h). */
#define set_err hs_msg

/* @dir/@name into @buf; -ENAMETOOLONG when it does not fit. */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void nap(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = POLL_NS };

	nanosleep(&ts, NULL);
}

/* A whole kernel file, NUL-terminated.  Return: 0 or -errno. */
static int read_text(const char *path, char **text, size_t *len)
{
	return hs_read_file(path, READ_MAX, text, len);
}

/* Write @s to a kernel file in one write(2).  Return: 0 or -errno. */
static int write_text(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t r;
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		r = write(fd, s, len);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		e = -errno;
	else if ((size_t)r != len)
		e = -EIO;
	if (close(fd) < 0 && !e && errno != EINTR)
		e = -errno;
	return e;
}

/* Is @word one of the blank-separated words of @text? */
static bool has_word(const char *text, const char *word)
{
	size_t wl = strlen(word);
	const char *p = text;

	while (*p) {
		size_t n;

		while (*p && isspace((unsigned char)*p))
			p++;
		n = 0;
		while (p[n] && !isspace((unsigned char)p[n]))
			n++;
		if (n == wl && !memcmp(p, word, n))
			return true;
		p += n;
	}
	return false;
}

/*
 * A file holding one number, or "max" (v2's none): *@v = UINT64_MAX for
 * "max".  Return: 0, -EBADMSG for other text, or -errno.
 */
static int read_u64(const char *path, uint64_t *v)
{
	char *text, *end;
	size_t len;
	int e;

	e = read_text(path, &text, &len);
	if (e)
		return e;
	while (len && isspace((unsigned char)text[len - 1]))
		text[--len] = '\0';
	if (!strcmp(text, "max")) {
		*v = UINT64_MAX;
	} else {
		errno = 0;
		*v = strtoull(text, &end, 10);
		if (!len || !isdigit((unsigned char)text[0]) || *end || errno)
			e = -EBADMSG;
	}
	free(text);
	return e;
}

/* ---- where the hierarchy is ---- */

/*
 * The memory hierarchy's mount root into @base and its version into *@ver.
 * Return: 0, -ENOENT when there is none, or -errno reading /proc/mounts.
 */
static int find_base(char *base, size_t len, int *ver)
{
	char line[4 * PATH_MAX], path[PATH_MAX], *ctl;
	char v1[PATH_MAX] = "";
	struct mntent m;
	size_t clen;
	FILE *f;

	f = setmntent("/proc/mounts", "re");
	if (!f)
		return -errno;
	while (getmntent_r(f, &m, line, sizeof(line))) {
		if (!strcmp(m.mnt_type, "cgroup2")) {
			if (join(path, sizeof(path), m.mnt_dir, "cgroup.controllers"))
				continue;
			if (read_text(path, &ctl, &clen))
				continue;
			if (has_word(ctl, "memory") && strlen(m.mnt_dir) < len) {
				free(ctl);
				strcpy(base, m.mnt_dir);
				*ver = 2;
				endmntent(f);
				return 0;
			}
			free(ctl);
		} else if (!strcmp(m.mnt_type, "cgroup") && !v1[0] && hasmntopt(&m, "memory") &&
			   strlen(m.mnt_dir) < sizeof(v1)) {
			strcpy(v1, m.mnt_dir);
		}
	}
	endmntent(f);
	if (!v1[0] || strlen(v1) >= len)
		return -ENOENT;
	strcpy(base, v1);
	*ver = 1;
	return 0;
}

/* v2: make sure the mount root hands the memory controller to its children. */
static int enable_memory_v2(const char *base, char *err, size_t errlen)
{
	char path[PATH_MAX], *text;
	size_t len;
	bool on;
	int e;

	e = join(path, sizeof(path), base, "cgroup.subtree_control");
	if (!e)
		e = read_text(path, &text, &len);
	if (e) {
		set_err(err, errlen, "%s: %s", path, strerror(-e));
		return e;
	}
	on = has_word(text, "memory");
	free(text);
	if (on)
		return 0;
	e = write_text(path, "+memory");
	if (e)
		set_err(err, errlen, "%s: cannot enable the memory controller: %s", path,
			strerror(-e));
	return e;
}

/* ---- emptying and removing a group ---- */

/* Parse cgroup.procs text into a malloc'ed array.  Return: 0 or -errno. */
static int parse_pids(const char *text, pid_t **pids, size_t *n)
{
	size_t cap = 0, cnt = 0;
	pid_t *arr = NULL, *na;
	const char *p = text;

	while (*p) {
		unsigned long v = 0;
		bool digits = false;

		while (*p && isspace((unsigned char)*p))
			p++;
		while (isdigit((unsigned char)*p)) {
			v = v * 10 + (unsigned long)(*p++ - '0');
			digits = true;
			if (v > INT_MAX)
				break;
		}
		if (!digits || v > INT_MAX || (*p && !isspace((unsigned char)*p))) {
			while (*p && *p != '\n')	/* not a pid: skip the line */
				p++;
			continue;
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			na = realloc(arr, cap * sizeof(*arr));
			if (!na) {
				free(arr);
				return -ENOMEM;
			}
			arr = na;
		}
		arr[cnt++] = (pid_t)v;
	}
	*pids = arr;
	*n = cnt;
	return 0;
}

static int read_pids(const char *dir, pid_t **pids, size_t *n)
{
	char path[PATH_MAX], *text;
	size_t len;
	int e;

	*pids = NULL;
	*n = 0;
	e = join(path, sizeof(path), dir, "cgroup.procs");
	if (!e)
		e = read_text(path, &text, &len);
	if (e)
		return e;
	e = parse_pids(text, pids, n);
	free(text);
	return e;
}

/*
 * SIGKILL every member of @dir except the caller (*@self_inside tells
 * whether it is one).  Return: how many members there were (the caller
 * counted), or -errno reading the list.
 */
static int kill_members(const char *dir, bool *self_inside)
{
	pid_t self = getpid();
	pid_t *pids;
	size_t n, i;
	int e;

	*self_inside = false;
	e = read_pids(dir, &pids, &n);
	if (e)
		return e;
	for (i = 0; i < n; i++) {
		if (pids[i] == self)
			*self_inside = true;
		else
			kill(pids[i], SIGKILL);
	}
	free(pids);
	return n > INT_MAX ? INT_MAX : (int)n;
}

/*
 * Kill what is in @dir and rmdir it, within EMPTY_WAIT_NS.  Return: 0 when
 * this call removed it, -ENOENT when it was gone already, -EBUSY when it
 * would not empty in time, or -errno.
 */
static int empty_and_remove(const char *dir, int ver, unsigned int *killed)
{
	int64_t deadline = now_ns() + EMPTY_WAIT_NS;
	bool self_inside, killed_all = false;
	char path[PATH_MAX];
	int n;

	for (;;) {
		n = kill_members(dir, &self_inside);
		if (n == -ENOENT)
			return -ENOENT;
		if (killed && n > 0 && !*killed)
			*killed = (unsigned int)n;	/* the first look: what was running */
		/* v2 (5.14+): cgroup.kill also gets what forks meanwhile; never with us inside */
		if (ver == 2 && n > 0 && !self_inside && !killed_all &&
		    !join(path, sizeof(path), dir, "cgroup.kill")) {
			write_text(path, "1");
			killed_all = true;
		}
		if (n == 0) {
			if (!rmdir(dir))
				return 0;
			if (errno == ENOENT)
				return -ENOENT;
			if (errno != EBUSY)
				return -errno;
		}
		if (now_ns() >= deadline)
			return n < 0 ? n : -EBUSY;
		nap();
	}
}

/* "hsctl_<digits>" with a pid that fits: the pid, else 0. */
static pid_t stale_pid(const char *name)
{
	const char *p;
	long v = 0;

	if (strncmp(name, "hsctl_", 6))
		return 0;
	p = name + 6;
	if (!*p)
		return 0;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return 0;
	}
	return (pid_t)v;
}

/**
 * hs_cgroup_cleanup_stale() - remove hsctl_<pid> cgroups of dead processes
 * @removed: receives how many this call removed (may be NULL)
 *
 * A group is stale when kill(pid, 0) fails with ESRCH; its remaining tasks
 * are killed first.  A group whose pid was reused by an unrelated process
 * waits for that process to end; one another process removes at the same
 * moment is not counted.  No memory hierarchy at all: nothing to do.
 *
 * Return: 0, or -errno of the first failure (the rest are still tried).
 */
int hs_cgroup_cleanup_stale(unsigned int *removed)
{
	char base[PATH_MAX], path[PATH_MAX];
	unsigned int cnt = 0;
	struct dirent *de;
	struct stat st;
	int ver, e, first = 0;
	DIR *d;
	pid_t pid;

	if (removed)
		*removed = 0;
	e = find_base(base, sizeof(base), &ver);
	if (e)
		return e == -ENOENT ? 0 : e;
	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid = stale_pid(de->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		if (!kill(pid, 0) || errno != ESRCH)
			continue;
		if (join(path, sizeof(path), base, de->d_name))
			continue;
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		e = empty_and_remove(path, ver, NULL);
		if (!e)
			cnt++;
		else if (e != -ENOENT && !first)
			first = e;
	}
	closedir(d);
	if (removed)
		*removed = cnt;
	return first;
}

/* ---- the group's life ---- */

static const char *limit_file(int ver)
{
	return ver == 2 ? "memory.max" : "memory.limit_in_bytes";
}

/* The limit file's value as hs_cgroup_limit() reports it.  Return: 0 or -errno. */
static int read_limit(const struct hs_cgroup *cg, uint64_t *bytes)
{
	char path[PATH_MAX];
	uint64_t v;
	int e;

	e = join(path, sizeof(path), cg->path, limit_file(cg->version));
	if (!e)
		e = read_u64(path, &v);
	if (e)
		return e;
	*bytes = v == UINT64_MAX || (cg->version == 1 && v >= V1_UNLIMITED) ? 0 : v;
	return 0;
}

/**
 * hs_cgroup_create() - create hsctl_<getpid()> with a memory limit
 * @limit_bytes: the memory limit; 0: no limit (the file is left as the
 *	kernel made it)
 * @out: the cgroup
 * @err: receives a one-line reason on failure
 * @errlen: its size
 *
 * Return: 0; -ENOENT (no memory controller mounted); -EPERM / -EACCES (not
 * root); -EEXIST; -EINVAL (a limit the kernel refused, or one below a page,
 * which the kernel would round down to none); -ENOMEM; -EIO; or another
 * -errno of mkdir(2) or the limit's write(2), with the reason.
 */
int hs_cgroup_create(uint64_t limit_bytes, struct hs_cgroup **out, char *err, size_t errlen)
{
	return hs_cgroup_create_undo(limit_bytes, NULL, out, err, errlen);
}

/**
 * hs_cgroup_create_undo() - hs_cgroup_create(), written down in an undo note first
 * @limit_bytes: as hs_cgroup_create()
 * @undo: the note (lib/undo.h), or NULL
 * @out: as hs_cgroup_create()
 * @err: as hs_cgroup_create()
 * @errlen: as hs_cgroup_create()
 *
 * Return: as hs_cgroup_create(), or -errno of the note.
 */
int hs_cgroup_create_undo(uint64_t limit_bytes, struct hs_undo *undo, struct hs_cgroup **out,
			  char *err, size_t errlen)
{
	char base[PATH_MAX], name[32], file[PATH_MAX], num[32];
	struct hs_cgroup *cg;
	int ver, e;

	*out = NULL;
	if (limit_bytes && limit_bytes < (uint64_t)sysconf(_SC_PAGESIZE)) {
		/* the kernel would round it down to 0 pages, which reads as no limit */
		set_err(err, errlen, "a memory limit of %" PRIu64 " bytes is less than one page",
			limit_bytes);
		return -EINVAL;
	}
	e = find_base(base, sizeof(base), &ver);
	if (e == -ENOENT) {
		set_err(err, errlen, "no memory cgroup: /proc/mounts has neither a cgroup2 mount "
			"with the memory controller nor a v1 memory hierarchy");
		return e;
	}
	if (e) {
		set_err(err, errlen, "/proc/mounts: %s", strerror(-e));
		return e;
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	cg->version = ver;
	hs_cgroup_cleanup_stale(NULL);	/* best effort: a failure there is not ours */
	if (cg->version == 2) {
		e = enable_memory_v2(base, err, errlen);
		if (e)
			goto out_free;
	}
	snprintf(name, sizeof(name), "hsctl_%ld", (long)getpid());
	e = join(cg->path, sizeof(cg->path), base, name);
	if (!e)
		e = join(cg->procs, sizeof(cg->procs), cg->path, "cgroup.procs");
	if (e) {
		set_err(err, errlen, "%s/%s: %s", base, name, strerror(-e));
		goto out_free;
	}
	if (undo) {
		struct hs_undo_item it = { .kind = HS_UNDO_CGROUP };

		snprintf(it.a, sizeof(it.a), "%s", cg->path);
		e = hs_undo_add(undo, &it);
		if (e < 0) {
			set_err(err, errlen, "undo note %s: %s", hs_undo_path(undo), strerror(-e));
			goto out_free;
		}
		cg->undo = undo;
		cg->undo_seq = e;
	}
	if (mkdir(cg->path, 0755)) {
		e = -errno;
		set_err(err, errlen, "mkdir %s: %s", cg->path, strerror(errno));
		hs_undo_done(undo, cg->undo_seq);	/* not made (EEXIST: not ours) */
		goto out_free;
	}
	if (limit_bytes) {
		snprintf(num, sizeof(num), "%" PRIu64, limit_bytes);
		e = join(file, sizeof(file), cg->path, limit_file(cg->version));
		if (!e)
			e = write_text(file, num);
		if (e) {
			set_err(err, errlen, "%s: the kernel refused a limit of %s bytes: %s", file,
				num, strerror(-e));
			goto out_rmdir;
		}
	}
	e = read_limit(cg, &cg->limit);
	if (e) {
		set_err(err, errlen, "%s/%s: %s", cg->path, limit_file(cg->version),
			strerror(-e));
		goto out_rmdir;
	}
	*out = cg;
	return 0;

out_rmdir:
	if (!rmdir(cg->path))
		hs_undo_done(undo, cg->undo_seq);
out_free:
	free(cg);
	return e;
}

/**
 * hs_cgroup_version() - 1 or 2
 * @cg: the cgroup
 *
 * Return: the hierarchy version it lives in.
 */
int hs_cgroup_version(const struct hs_cgroup *cg)
{
	return cg->version;
}

/**
 * hs_cgroup_path() - its directory
 * @cg: the cgroup
 *
 * Return: e.g. "/sys/fs/cgroup/memory/hsctl_1234".
 */
const char *hs_cgroup_path(const struct hs_cgroup *cg)
{
	return cg->path;
}

/**
 * hs_cgroup_limit() - the limit the kernel reports
 * @cg: the cgroup
 *
 * Read from the limit file now; when that fails, the value read at
 * creation.  v1's "unlimited" (PAGE_COUNTER_MAX pages) and v2's "max" are 0.
 *
 * Return: bytes (rounded by the kernel to pages), 0 when unlimited.
 */
uint64_t hs_cgroup_limit(const struct hs_cgroup *cg)
{
	uint64_t v;

	return read_limit(cg, &v) ? cg->limit : v;
}

/**
 * hs_cgroup_attach() - move a process into the cgroup
 * @cg: the cgroup
 * @pid: the process (0: the caller); its later children stay inside
 *
 * Only open(2), write(2), close(2) and getpid(2) on a path made at creation,
 * with the number formatted here: async-signal-safe for any @pid.
 *
 * Return: 0, -EINVAL for a negative @pid, or -errno.
 */
int hs_cgroup_attach(const struct hs_cgroup *cg, pid_t pid)
{
	char num[24];
	size_t i = sizeof(num);
	unsigned long v;
	ssize_t r;
	int fd, e = 0;

	if (pid < 0)
		return -EINVAL;
	v = (unsigned long)(pid ? pid : getpid());
	do
		num[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	fd = open(cg->procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		r = write(fd, num + i, sizeof(num) - i);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		e = -errno;
	else if ((size_t)r != sizeof(num) - i)
		e = -EIO;
	close(fd);
	return e;
}

/**
 * hs_cgroup_pids() - the processes inside now
 * @cg: the cgroup
 * @pids: receives a malloc'ed array (free it; NULL when empty)
 * @n: receives its length
 *
 * Return: 0 or -errno.
 */
int hs_cgroup_pids(const struct hs_cgroup *cg, pid_t **pids, size_t *n)
{
	return read_pids(cg->path, pids, n);
}

/**
 * hs_cgroup_stat() - read memory.stat
 * @cg: the cgroup
 * @out: receives the counters (free with hs_kvlist_free())
 *
 * Return: 0 or -errno (-EBADMSG when no line parsed).
 */
int hs_cgroup_stat(const struct hs_cgroup *cg, struct hs_kvlist *out)
{
	char path[PATH_MAX], *text;
	size_t len;
	int e;

	out->kv = NULL;
	out->n = 0;
	e = join(path, sizeof(path), cg->path, "memory.stat");
	if (!e)
		e = read_text(path, &text, &len);
	if (e)
		return e;
	e = hs_kvlist_parse(text, len, out);
	free(text);
	return e;
}

/**
 * hs_cgroup_peak() - the highest usage the cgroup reached
 * @cg: the cgroup
 * @bytes: receives it (v1 memory.max_usage_in_bytes, v2 memory.peak)
 *
 * Return: 0, -ENOENT when the kernel has no such file (v2 before 5.19), or
 * -errno.
 */
int hs_cgroup_peak(const struct hs_cgroup *cg, uint64_t *bytes)
{
	char path[PATH_MAX];
	uint64_t v;
	int e;

	e = join(path, sizeof(path), cg->path,
		 cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes");
	if (!e)
		e = read_u64(path, &v);
	if (e)
		return e;
	*bytes = v;
	return 0;
}

/**
 * hs_cgroup_destroy() - empty and remove the cgroup, then free it
 * @cg: the cgroup, or NULL
 *
 * Kills (SIGKILL) whatever is still inside except the caller itself (a
 * caller inside its own group gets -EBUSY after the second), waits up to a
 * second for the directory to become removable and removes it.  A
 * directory someone else removed already counts as removed.
 *
 * Return: 0, or -errno when the directory could not be removed (it is
 * then left for hs_cgroup_cleanup_stale()); @cg is freed either way.
 */
int hs_cgroup_destroy(struct hs_cgroup *cg)
{
	int e;

	if (!cg)
		return 0;
	e = empty_and_remove(cg->path, cg->version, NULL);
	if (!e || e == -ENOENT)
		hs_undo_done(cg->undo, cg->undo_seq);
	free(cg);
	return e == -ENOENT ? 0 : e;
}

/**
 * hs_cgroup_remove_dir() - empty and remove a cgroup another process left
 * @path: its directory; its last component must be hsctl_<digits>
 * @killed: receives how many processes were inside (may be NULL)
 *
 * Return: 0 removed; -ENOENT gone already; -EINVAL not an hsctl cgroup's
 * name; -EBUSY it would not empty within a second; or -errno.
 */
int hs_cgroup_remove_dir(const char *path, unsigned int *killed)
{
	char file[PATH_MAX];
	const char *base = strrchr(path, '/');
	struct stat st;

	if (killed)
		*killed = 0;
	if (!base || path[0] != '/' || stale_pid(base + 1) <= 0)
		return -EINVAL;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -EINVAL;
	if (join(file, sizeof(file), path, "cgroup.controllers"))
		return -ENAMETOOLONG;
	return empty_and_remove(path, access(file, F_OK) ? 1 : 2, killed);
}

/* ---- counter lists ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * One line [p, end) as a counter into @kv.  Return: true when it is a name
 * (printable ASCII, no blanks, at most 63 bytes), blanks, and an unsigned
 * decimal that fits 64 bits, then nothing but blanks (and a '\r').
 */
static bool parse_line(const char *p, const char *end, struct hs_kv *kv)
{
	const char *name = p;
	uint64_t v = 0;
	size_t nl;

	while (p < end && *p > ' ' && *p < 0x7f)
		p++;
	nl = (size_t)(p - name);
	if (!nl || nl >= sizeof(kv->name))
		return false;
	if (p == end || !is_blank(*p))
		return false;
	while (p < end && is_blank(*p))
		p++;
	if (p == end || !isdigit((unsigned char)*p))
		return false;
	while (p < end && isdigit((unsigned char)*p)) {
		unsigned int d = (unsigned int)(*p++ - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	while (p < end && (is_blank(*p) || *p == '\r'))
		p++;
	if (p != end)
		return false;
	memcpy(kv->name, name, nl);
	kv->name[nl] = '\0';
	kv->value = v;
	return true;
}

/**
 * hs_kvlist_parse() - parse "name value" lines
 * @text: the file's text (need not be NUL-terminated)
 * @len: its length
 * @out: receives the counters, in file order (empty on failure)
 *
 * A line counts when it is a name (printable ASCII without blanks), one or
 * more blanks (spaces, tabs) and an unsigned decimal that fits 64 bits,
 * optionally followed by blanks.  Every other line is skipped: leading
 * blanks, a sign, a third field, an overflowing number, and a name longer
 * than 63 bytes (skipped rather than truncated, so that two long names can
 * never meet under one truncated name).
 *
 * Return: 0, -EBADMSG when no line parsed, -ENOMEM.
 */
int hs_kvlist_parse(const char *text, size_t len, struct hs_kvlist *out)
{
	const char *p = text, *end = text + len, *eol;
	size_t cap = 0;
	struct hs_kv kv, *nkv;

	out->kv = NULL;
	out->n = 0;
	while (p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (parse_line(p, eol, &kv)) {
			if (out->n == cap) {
				cap = cap ? cap * 2 : 64;
				nkv = realloc(out->kv, cap * sizeof(*nkv));
				if (!nkv) {
					hs_kvlist_free(out);
					return -ENOMEM;
				}
				out->kv = nkv;
			}
			out->kv[out->n++] = kv;
		}
		p = eol + 1;
	}
	return out->n ? 0 : -EBADMSG;
}

/**
 * hs_kvlist_get() - look a counter up
 * @l: the list
 * @name: its name
 * @value: receives the value (of the first entry with that name)
 *
 * Return: 0 or -ENOENT.
 */
int hs_kvlist_get(const struct hs_kvlist *l, const char *name, uint64_t *value)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->kv[i].name, name)) {
			*value = l->kv[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * hs_kvlist_free() - free the entries (not @l itself)
 * @l: the list, or NULL; left empty
 *
 * Return: nothing.
 */
void hs_kvlist_free(struct hs_kvlist *l)
{
	if (!l)
		return;
	free(l->kv);
	l->kv = NULL;
	l->n = 0;
}

/**
 * hs_vmstat_read() - read /proc/vmstat
 * @out: receives the counters (free with hs_kvlist_free())
 *
 * Return: 0 or -errno.
 */
int hs_vmstat_read(struct hs_kvlist *out)
{
	size_t len;
	char *text;
	int e;

	out->kv = NULL;
	out->n = 0;
	e = read_text("/proc/vmstat", &text, &len);
	if (e)
		return e;
	e = hs_kvlist_parse(text, len, out);
	free(text);
	return e;
}
