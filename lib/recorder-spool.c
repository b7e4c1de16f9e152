/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's data path while the workload runs (lib/recorder.c owns the
 * threads): one capture reader per CPU (lib/capture.c) splices whole raw
 * sub-buffers into that CPU's spool file, a built-in workload's touch log
 * arrives on a pipe that rec_touch_reader() copies into the touches file,
 * and nothing touches SQLite: the spool files are in the page cache as soon
 * as they are written, so a killed recorder leaves its data behind, and the
 * store's per-row and per-page work (and its WAL's checksums) waits for the
 * end, when rec_spool_import() moves the files into record_spool in one
 * transaction.  Nothing is decoded here except, when asked (a progress
 * line), a count per CPU, which makes the capture read every sub-buffer.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "event.h"
#include "hs.h"
#include "recorder-int.h"
#include "store.h"
#include "workload.h"

#define TOUCH_SIZE	24u			/* bytes of one struct hs_touch */
#define TOUCH_ROW	(2730u * TOUCH_SIZE)	/* touches per record_spool row: 65520 bytes */
#define TOUCH_BUF	(1u << 16)		/* the touch reader's read size */

/**
 * rec_now_ns() - CLOCK_MONOTONIC in ns: the mono trace clock
 *
 * Return: the time.
 */
uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the spool directory ---- */

/**
 * rec_spool_dir() - where a session's spool files go
 * @db: the database's file, or NULL (:memory:)
 * @session: the session
 *
 * Beside the database, so that whoever recovers the database finds them;
 * an in-memory database (tests) has them in $TMPDIR under hsctl_<pid>_.
 *
 * Return: the path (free it), or NULL without memory.
 */
char *rec_spool_dir(const char *db, int64_t session)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;
	int n;

	if (db)
		n = asprintf(&dir, "%s-spool-%" PRId64, db, session);
	else
		n = asprintf(&dir, "%s/hsctl_%d_spool-%" PRId64, tmp && *tmp ? tmp : "/tmp",
			     (int)getpid(), session);
	return n < 0 ? NULL : dir;
}

/* Remove every file of @dir (ours: nothing but spool files), then @dir. */
void rec_spool_remove(const char *dir)
{
	struct dirent *de;
	DIR *d;
	int dfd;

	if (!dir)
		return;
	d = opendir(dir);
	if (d) {
		dfd = dirfd(d);
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dfd, de->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

static int open_file(const char *dir, const char *name, char *errbuf, size_t errlen)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		snprintf(errbuf, errlen, "%.400s/%s: %s", dir, name, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	/* not O_APPEND: splice(2) refuses to write to such a file */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fd = -errno;
		snprintf(errbuf, errlen, "%.400s: %s", path, strerror(-fd));
	}
	return fd;
}

/**
 * rec_spool_create() - the spool directory and its files, before tracing starts
 * @q: the spool (closed)
 * @dir: the directory (rec_spool_dir()); @q keeps its own copy
 * @nr_cpus: configured CPUs: a file each
 * @subbuf: the kernel's sub-buffer size
 * @errbuf: receives the reason of a failure
 * @errlen: its size
 *
 * A directory left by an earlier recording of the same session id (a
 * session removed since, its spool never imported) is emptied first.
 *
 * Return: 0 or -errno.
 */
int rec_spool_create(struct rec_spool *q, const char *dir, unsigned int nr_cpus, size_t subbuf,
		     char *errbuf, size_t errlen)
{
	char name[32];
	unsigned int i;
	ssize_t n;
	int fd, len, err;

	rec_spool_remove(dir);
	if (mkdir(dir, 0700)) {
		fd = -errno;
		snprintf(errbuf, errlen, "%.400s: %s", dir, strerror(-fd));
		return fd;
	}
	q->dir = strdup(dir);
	q->fd = malloc((nr_cpus + 1) * sizeof(*q->fd));
	if (!q->dir || !q->fd) {
		snprintf(errbuf, errlen, "%s", strerror(ENOMEM));
		fd = -ENOMEM;
		goto fail;
	}
	q->nr_cpus = nr_cpus;
	q->subbuf = subbuf;
	for (i = 0; i <= nr_cpus; i++)
		q->fd[i] = -1;
	fd = open_file(dir, "subbuf", errbuf, errlen);
	if (fd < 0)
		goto fail;
	len = snprintf(name, sizeof(name), "%zu\n", subbuf);
	n = write(fd, name, (size_t)len);
	err = n < 0 ? -errno : -EIO;
	close(fd);
	if (n != len) {
		fd = err;
		snprintf(errbuf, errlen, "%.400s/subbuf: %s", dir, strerror(-fd));
		goto fail;
	}
	for (i = 0; i <= nr_cpus; i++) {
		if (i < nr_cpus)
			snprintf(name, sizeof(name), "cpu%u", i);
		else
			snprintf(name, sizeof(name), "touches");
		fd = open_file(dir, name, errbuf, errlen);
		if (fd < 0)
			goto fail;
		q->fd[i] = fd;
	}
	return 0;
fail:
	/* nothing was spooled yet: a half-made directory goes */
	rec_spool_close(q);
	rec_spool_remove(dir);
	return fd;
}

/**
 * rec_spool_close() - close the spool's files (they stay for the import)
 * @q: the spool
 *
 * Return: nothing.
 */
void rec_spool_close(struct rec_spool *q)
{
	unsigned int i;

	for (i = 0; q->fd && i <= q->nr_cpus; i++) {
		if (q->fd[i] >= 0)
			close(q->fd[i]);
		q->fd[i] = -1;
	}
}

/**
 * rec_spool_fd() - hs_capture_spool_fn: a CPU's spool file
 * @arg: the struct rec_io
 * @cpu: the CPU
 *
 * Return: the fd, -EINVAL for a CPU out of range.
 */
int rec_spool_fd(void *arg, int cpu)
{
	struct rec_io *io = arg;

	if (cpu < 0 || (unsigned int)cpu >= io->q.nr_cpus || !io->q.fd)
		return -EINVAL;
	return io->q.fd[cpu];
}

/* ---- the import into record_spool ---- */

struct import {
	struct hs_store	*st;
	int64_t		session;
	unsigned char	*buf;		/* one row */
	size_t		row;		/* its size: STAGE_SUBBUFS sub-buffers */
	size_t		subbuf;		/* the sub-buffer size */
	char		*errbuf;
	size_t		errlen;
};

/* All of the bytes @fd holds into rows of @cpu.  Return: 0 or -errno. */
static int import_file(struct import *im, int fd, int cpu, const char *path)
{
	size_t have, whole, unit = cpu == HS_SPOOL_TOUCHES ? TOUCH_ROW : im->row;
	uint64_t seq = 0;
	ssize_t n;
	int err;

	for (;;) {
		for (have = 0; have < unit; have += (size_t)n) {
			n = read(fd, im->buf + have, unit - have);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n < 0) {
				err = -errno;
				snprintf(im->errbuf, im->errlen, "%.400s: %s", path, strerror(-err));
				return err;
			}
			if (!n)
				break;
		}
		if (!have)
			return 0;
		/*
		 * A file cut short by a kill mid-write: its whole sub-buffers
		 * make one row, the torn rest another, which the build counts
		 * as a bad sub-buffer (touches: as a bad touch).
		 */
		whole = cpu == HS_SPOOL_TOUCHES ? have : have / im->subbuf * im->subbuf;
		if (whole) {
			err = hs_spool_add(im->st, im->session, cpu, seq++, im->buf, whole);
			if (err)
				goto store_err;
		}
		if (have > whole) {
			err = hs_spool_add(im->st, im->session, cpu, seq++, im->buf + whole,
					   have - whole);
			if (err)
				goto store_err;
		}
		if (have < unit)
			return 0;
	}
store_err:
	snprintf(im->errbuf, im->errlen, "%s", hs_store_errmsg(im->st));
	return err;
}

/* The directory's sub-buffer size, 0 when it cannot be read. */
static size_t read_subbuf(const char *dir)
{
	char path[PATH_MAX], *t;
	unsigned long v;
	size_t len;

	snprintf(path, sizeof(path), "%s/subbuf", dir);
	if (rec_read_text(path, &t, &len))
		return 0;
	v = strtoul(t, NULL, 10);
	free(t);
	return v >= 64 && v <= (1u << 24) ? (size_t)v : 0;
}

static int import_dir(struct import *im, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned int cpu;
	int err = 0, fd;
	char tail;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		err = -errno;
		snprintf(im->errbuf, im->errlen, "%.400s: %s", dir, strerror(-err));
		return err;
	}
	while (!err && (de = readdir(d))) {
		if (!strcmp(de->d_name, "touches"))
			cpu = UINT_MAX;
		else if (sscanf(de->d_name, "cpu%u%c", &cpu, &tail) != 1 || cpu > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			snprintf(im->errbuf, im->errlen, "%.400s: %s", path, strerror(-err));
			break;
		}
		err = import_file(im, fd, cpu == UINT_MAX ? HS_SPOOL_TOUCHES : (int)cpu, path);
		close(fd);
	}
	closedir(d);
	return err;
}

int rec_spool_import(struct hs_store *st, int64_t session, const char *dir, char *errbuf,
		     size_t errlen)
{
	struct import im = { .st = st, .session = session, .errbuf = errbuf, .errlen = errlen };
	struct stat sb;
	int *cpus = NULL;
	size_t n = 0;
	int err;

	if (!dir || stat(dir, &sb))
		return 0;	/* nothing was spooled to files (or it was moved already) */
	err = hs_spool_cpus(st, session, &cpus, &n);
	free(cpus);
	if (err) {
		snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
		return err;
	}
	if (n) {
		/* moved in an earlier run that died before removing the files */
		rec_spool_remove(dir);
		return 0;
	}
	im.subbuf = read_subbuf(dir);
	if (!im.subbuf)
		im.subbuf = 4096;	/* killed before it was written: the files are empty */
	im.row = STAGE_SUBBUFS * im.subbuf;
	im.buf = malloc(HS_MAX(im.row, (size_t)TOUCH_ROW));
	if (!im.buf) {
		snprintf(errbuf, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = hs_store_tx_begin(st);
	if (err) {
		snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
	} else {
		err = import_dir(&im, dir);
		if (!err) {
			err = hs_store_tx_commit(st);
			if (err)
				snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
		} else {
			hs_store_tx_rollback(st);
		}
	}
	free(im.buf);
	if (!err)
		rec_spool_remove(dir);
	return err;
}

static int count_event(void *arg, const struct hs_event *ev)
{
	struct rec_cpu_count *c = arg;

	if (ev->type == HS_EV_LOST) {
		if (ev->a != UINT64_MAX)
			atomic_fetch_add_explicit(&c->missed, ev->a, memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&c->events, 1, memory_order_relaxed);
	if (ev->type == HS_EV_FILEMAP_ADD ||
	    (ev->type == HS_EV_LRU_INSERTION && (ev->b & 2)))
		atomic_fetch_add_explicit(&c->folios, 1, memory_order_relaxed);
	return 0;
}

/**
 * rec_on_subbuf() - hs_capture_subbuf_fn: count a sub-buffer for the progress line
 * @arg: the struct rec_io
 * @cpu: the reader's CPU
 * @buf: the sub-buffer
 * @len: its length
 *
 * The capture writes it to the spool file afterwards.
 *
 * Return: 0, -EINVAL for a CPU out of range.
 */
int rec_on_subbuf(void *arg, int cpu, const void *buf, size_t len)
{
	struct rec_io *r = arg;

	if (cpu < 0 || (unsigned int)cpu >= r->nr_cpus)
		return -EINVAL;
	/*
	 * Counting costs a read(2) and a decode per sub-buffer where a splice
	 * would do: only for the progress line.  A corrupt sub-buffer is still
	 * spooled: the build counts and skips it.
	 */
	if (r->count)
		hs_decoder_subbuf(r->cnt[cpu].dec, buf, len, cpu, count_event, &r->cnt[cpu]);
	return 0;
}

/**
 * rec_touch_reader() - the touch log reader: the pipe into the touches file
 * @arg: the struct rec_io (touch_fd: the pipe's read end)
 *
 * Ends at the end of the pipe (the workload and every writer are gone).  A
 * partial record at the end is kept: the build counts it as bad.
 *
 * Return: NULL.
 */
void *rec_touch_reader(void *arg)
{
	struct rec_io *r = arg;
	int out = r->q.fd ? r->q.fd[r->q.nr_cpus] : -1;
	unsigned char *buf = malloc(TOUCH_BUF);
	uint64_t total = 0;
	ssize_t n, w;
	size_t off;

	for (;;) {
		n = buf ? read(r->touch_fd, buf, TOUCH_BUF) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (r->touch_err)
			continue;	/* keep the workload's pipe flowing */
		for (off = 0; off < (size_t)n; off += (size_t)w) {
			w = write(out, buf + off, (size_t)n - off);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0) {
				r->touch_err = w < 0 ? -errno : -EIO;
				break;
			}
		}
		total += (uint64_t)n;
		atomic_store(&r->touches, total / TOUCH_SIZE);
	}
	if (!buf)
		r->touch_err = -ENOMEM;
	free(buf);
	return NULL;
}


/**
 * rec_io_init() - an empty data path: no files, no threads
 * @io: the data path
 *
 * Return: nothing.
 */
void rec_io_init(struct rec_io *io)
{
	memset(io, 0, sizeof(*io));
	io->touch_fd = -1;
}

/**
 * rec_io_free() - close the spool files and free the counters (threads joined)
 * @io: the data path
 *
 * Return: nothing.
 */
void rec_io_free(struct rec_io *io)
{
	unsigned int i;

	if (io->cnt)
		for (i = 0; i < io->nr_cpus; i++)
			hs_decoder_free(io->cnt[i].dec);
	free(io->cnt);
	rec_spool_close(&io->q);
	free(io->q.fd);
	free(io->q.dir);
}
