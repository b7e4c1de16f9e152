/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Task names for the recording (the comm column of v_events and v_ev_*),
 * as trace-cmd gets them: the events carry pids only, and the kernel keeps
 * the pid -> comm of traced tasks in tracefs saved_cmdlines (it saves a
 * task's comm at a context switch after it traced an event, so also at a
 * task's last switch, after its sched_process_exit).  That table is global
 * and fixed in size (saved_cmdlines_size, 6552 entries on 6.18) and keeps
 * entries from before the recording, so it is read as it changes, not only
 * at the end:
 *
 *  - at the start, once: what it holds then says nothing about this
 *    recording (a pid there may be a task long gone);
 *  - every REC_COMM_PERIOD_S while the workload runs, and at the end: an
 *    entry new or changed since the last read was saved in between, so the
 *    name was the task's at some instant of that interval;
 *  - /proc/PID/task/TID/comm of the workload's tasks at every read, and at
 *    the end of every pid saved_cmdlines names that still lives: the name
 *    during the read.  The last read comes before tracing stops, so that a
 *    fork that reuses a pid meanwhile is in the trace.
 *
 * Each is a struct hs_task_seen; hs_rec_add_tasks() places them between the
 * forks, execs and losses the events show, so that a name is never given to
 * an event of another task that had the same pid.  Names are best effort:
 * a failed read or allocation only leaves names unknown (NULL).
 *
 * While the workload runs nothing large is allocated here: the buffers are
 * sized from saved_cmdlines_size and touched when the recording starts.  A
 * fresh (mmap'd) buffer every second would fault new anonymous folios into
 * the recorder, which shares the per-CPU LRU batches with the workload and
 * blurs the pairing of the workload's faults with LRU insertions (a first
 * version that did so saw record-live.sh's swap-out check 0.43 % off, 0.2 %
 * allowed; the machine was busy too).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "recorder-int.h"

struct rec_cmdline {
	int32_t		pid;
	char		comm[16];
};

static int cmdline_cmp(const void *a, const void *b)
{
	const struct rec_cmdline *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Parse saved_cmdlines ("PID COMM" lines; a comm may hold spaces) into *out
 * (*cap entries, grown when short), sorted by pid.
 */
static int parse_cmdlines(char *text, struct rec_cmdline **out, size_t *cap, size_t *n)
{
	struct rec_cmdline *v = *out, *nv;
	char *line, *nl, *end;
	size_t nr = 0, len;
	long pid;

	for (line = text; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		errno = 0;
		pid = strtol(line, &end, 10);
		if (errno || end == line || *end != ' ' || pid <= 0 || pid > INT32_MAX)
			continue;
		len = strlen(end + 1);
		if (!len || len >= sizeof(v->comm))
			continue;
		if (nr == *cap) {
			nv = realloc(v, (*cap ? 2 * *cap : 1024) * sizeof(*v));
			if (!nv)
				return -ENOMEM;
			*out = v = nv;
			*cap = *cap ? 2 * *cap : 1024;
		}
		v[nr].pid = (int32_t)pid;
		memcpy(v[nr].comm, end + 1, len + 1);
		nr++;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmdline_cmp);
	*n = nr;
	return 0;
}

/* Read @path whole into c->text (grown when short): its length, or -errno. */
static ssize_t read_into(struct rec_comms *c, const char *path)
{
	size_t len = 0;
	ssize_t r;
	char *nt;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 1 >= c->text_cap) {
			nt = realloc(c->text, c->text_cap ? 2 * c->text_cap : 65536);
			if (!nt) {
				close(fd);
				return -ENOMEM;
			}
			c->text = nt;
			c->text_cap = c->text_cap ? 2 * c->text_cap : 65536;
		}
		r = read(fd, c->text + len, c->text_cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (r < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	c->text[len] = '\0';
	return (ssize_t)len;
}

static void add_seen(struct rec_comms *c, int32_t pid, uint64_t lo, uint64_t hi,
		     const char *comm)
{
	struct hs_task_seen *ns;
	size_t len = strlen(comm);

	if (c->failed || !len || len >= sizeof(ns->comm))
		return;
	if (c->nr_seen == c->cap) {
		ns = realloc(c->seen, (c->cap ? 2 * c->cap : 256) * sizeof(*ns));
		if (!ns) {
			c->failed = true;
			return;
		}
		c->seen = ns;
		c->cap = c->cap ? 2 * c->cap : 256;
	}
	ns = &c->seen[c->nr_seen++];
	memset(ns, 0, sizeof(*ns));
	ns->pid = pid;
	ns->lo_ns = lo;
	ns->hi_ns = hi;
	memcpy(ns->comm, comm, len + 1);
}

/*
 * /proc/@pid/comm (a thread id works too): the name at some instant of the
 * read, which a fork of a new task with that pid may precede.
 */
static void read_proc_comm(struct rec_comms *c, int32_t pid)
{
	char path[64], comm[32];
	uint64_t lo = rec_now_ns();
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	do {
		n = read(fd, comm, sizeof(comm) - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = '\0';
	if (comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	add_seen(c, pid, lo, rec_now_ns(), comm);
}

/* Every thread of process @pid. */
static void read_proc_threads(struct rec_comms *c, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	long tid;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		tid = strtol(de->d_name, NULL, 10);
		if (tid > 0 && tid <= INT32_MAX)
			read_proc_comm(c, (int32_t)tid);
	}
	closedir(d);
}

/*
 * Read saved_cmdlines; a sighting for each entry new or changed since the
 * last read (none the first time): saved after that read began and before
 * this one ended.
 */
static void read_cmdlines(struct rec_comms *c)
{
	uint64_t t0 = rec_now_ns(), t1;
	struct rec_cmdline *v, *old;
	size_t n = 0, i, j = 0, cap;

	if (!c->path || c->failed || read_into(c, c->path) < 0)
		return;
	t1 = rec_now_ns();
	if (parse_cmdlines(c->text, &c->next, &c->next_cap, &n)) {
		c->failed = true;
		return;
	}
	v = c->next;
	for (i = 0; c->have_cur && i < n; i++) {
		while (j < c->nr_cur && c->cur[j].pid < v[i].pid)
			j++;
		old = j < c->nr_cur && c->cur[j].pid == v[i].pid ? &c->cur[j] : NULL;
		if (!old || strcmp(old->comm, v[i].comm))
			add_seen(c, v[i].pid, c->last_ns, t1, v[i].comm);
	}
	/* the two arrays swap: the next read parses into this one's */
	c->next = c->cur;
	cap = c->next_cap;
	c->next_cap = c->cur_cap;
	c->cur = v;
	c->cur_cap = cap;
	c->nr_cur = n;
	c->last_ns = t0;
	c->have_cur = true;
}

/**
 * rec_comms_open() - start collecting task names
 * @c: the collection (its old contents are not looked at)
 * @tdir: the tracefs mount (saved_cmdlines lives at its top)
 *
 * Call it before tracing starts: the buffers are touched here.
 *
 * Return: nothing; without saved_cmdlines only /proc names are collected.
 */
void rec_comms_open(struct rec_comms *c, const char *tdir)
{
	unsigned long entries = 8192;
	char *size_path = NULL, *end;

	memset(c, 0, sizeof(*c));
	if (!tdir || !*tdir || asprintf(&c->path, "%s/saved_cmdlines", tdir) < 0) {
		c->path = NULL;
		return;
	}
	if (asprintf(&size_path, "%s/saved_cmdlines_size", tdir) >= 0 &&
	    read_into(c, size_path) > 0) {
		entries = strtoul(c->text, &end, 10);
		if (end == c->text || !entries || entries > 1ul << 20)
			entries = 8192;
	}
	free(size_path);
	free(c->text);
	/* "PID COMM\n" is at most 7 + 1 + 15 + 1 bytes */
	c->text_cap = entries * 32 + 4096;
	c->cur_cap = c->next_cap = entries + 256;
	c->cap = 4096;
	c->text = malloc(c->text_cap);
	c->cur = malloc(c->cur_cap * sizeof(*c->cur));
	c->next = malloc(c->next_cap * sizeof(*c->next));
	c->seen = malloc(c->cap * sizeof(*c->seen));
	if (!c->text || !c->cur || !c->next || !c->seen) {
		c->failed = true;
		return;
	}
	memset(c->text, 0, c->text_cap);
	memset(c->cur, 0, c->cur_cap * sizeof(*c->cur));
	memset(c->next, 0, c->next_cap * sizeof(*c->next));
	memset(c->seen, 0, c->cap * sizeof(*c->seen));
	read_cmdlines(c);
}

/**
 * rec_comms_take() - read the names now
 * @c: the collection
 * @cg: the workload's cgroup (its tasks' /proc comm), or NULL
 * @last: the end of the recording: also /proc of every pid saved_cmdlines names
 *	(call it while tracing is still on)
 *
 * Return: nothing.
 */
void rec_comms_take(struct rec_comms *c, const struct hs_cgroup *cg, bool last)
{
	pid_t *pids = NULL;
	size_t i, n = 0;

	if (cg && !hs_cgroup_pids(cg, &pids, &n)) {
		for (i = 0; i < n; i++)
			read_proc_threads(c, pids[i]);
		free(pids);
	}
	read_cmdlines(c);
	for (i = 0; last && i < c->nr_cur; i++)
		read_proc_comm(c, c->cur[i].pid);
}

void rec_comms_free(struct rec_comms *c)
{
	free(c->path);
	free(c->cur);
	free(c->next);
	free(c->text);
	free(c->seen);
	memset(c, 0, sizeof(*c));
}
