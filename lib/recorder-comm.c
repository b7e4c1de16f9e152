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
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
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

/* Parse saved_cmdlines ("PID COMM" lines; a comm may hold spaces), sorted by pid. */
static int parse_cmdlines(char *text, struct rec_cmdline **out, size_t *n)
{
	struct rec_cmdline *v = NULL, *nv;
	size_t nr = 0, cap = 0, len;
	char *line, *nl, *end;
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
		if (nr == cap) {
			cap = cap ? 2 * cap : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[nr].pid = (int32_t)pid;
		memcpy(v[nr].comm, end + 1, len + 1);
		nr++;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmdline_cmp);
	*out = v;
	*n = nr;
	return 0;
}

static void add_seen(struct rec_comms *c, int32_t pid, uint64_t lo, uint64_t hi,
		     const char *comm)
{
	struct hs_task_seen *ns;
	size_t len = strlen(comm);

	if (c->failed || !len || len >= sizeof(ns->comm))
		return;
	if (c->nr_seen == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		ns = realloc(c->seen, c->cap * sizeof(*ns));
		if (!ns) {
			c->failed = true;
			return;
		}
		c->seen = ns;
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
	char path[64], *text;
	uint64_t lo = rec_now_ns();
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (rec_read_text(path, &text, &len))
		return;
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	add_seen(c, pid, lo, rec_now_ns(), text);
	free(text);
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
	struct rec_cmdline *v = NULL, *old;
	uint64_t t0 = rec_now_ns(), t1;
	size_t n = 0, i, j = 0, len;
	char *text;

	if (!c->path || c->failed || rec_read_text(c->path, &text, &len))
		return;
	t1 = rec_now_ns();
	if (parse_cmdlines(text, &v, &n)) {
		free(text);
		c->failed = true;
		return;
	}
	free(text);
	for (i = 0; c->have_cur && i < n; i++) {
		while (j < c->nr_cur && c->cur[j].pid < v[i].pid)
			j++;
		old = j < c->nr_cur && c->cur[j].pid == v[i].pid ? &c->cur[j] : NULL;
		if (!old || strcmp(old->comm, v[i].comm))
			add_seen(c, v[i].pid, c->last_ns, t1, v[i].comm);
	}
	free(c->cur);
	c->cur = v;
	c->nr_cur = n;
	c->last_ns = t0;
	c->have_cur = true;
}

/**
 * rec_comms_open() - start collecting task names
 * @c: zeroed
 * @tdir: the tracefs mount (saved_cmdlines lives at its top)
 *
 * Return: nothing; without saved_cmdlines only /proc names are collected.
 */
void rec_comms_open(struct rec_comms *c, const char *tdir)
{
	memset(c, 0, sizeof(*c));
	if (tdir && *tdir && asprintf(&c->path, "%s/saved_cmdlines", tdir) < 0)
		c->path = NULL;
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
	free(c->seen);
	memset(c, 0, sizeof(*c));
}
