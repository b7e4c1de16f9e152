/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live tests of the tracefs capture (lib/capture.c): needs root and tracefs,
 * and exits 77 with the reason otherwise.  The whole run holds the machine's
 * live-test lock (/tmp/hsctl-live.lock, t_live_lock(): a bounded wait, then
 * exit 77 naming the holder), because other tests mount and unmount tracefs
 * too.  A 4 MiB file on /var/tmp (ext4, not tmpfs) is written,
 * synced and dropped from the page cache, then read back by a child process
 * while the filemap add/delete events are captured: the decoded adds of that
 * file's (dev, ino) must cover exactly 4 MiB / 4 KiB = 1024 pages, and the
 * child's unlink must delete the same 1024; a 1 MiB file read by the test
 * process itself must not appear at all (set_event_notrace_pid).  No event
 * may be lost, every sub-buffer must decode, and the kernel's "read events"
 * count must equal the records decoded.  Closing must remove the instance and
 * leave tracefs mounted or not as it was found.  Stale instances (a dead pid,
 * a pid recycled by /bin/sleep) are removed, live ones kept.  Loss: with
 * the readers held and 64 KiB buffers, 100,000 syscall events must split
 * exactly into read events + lost.  Error paths: bad options, absent events,
 * a consumer that stops with -ECANCELED.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture.h"
#include "decode.h"
#include "event.h"
#include "harness.h"
#include "hs.h"

#define TRACEFS_MNT	"/sys/kernel/tracing"
#define FILE_A_BYTES	(4u << 20)	/* read back by a child: 1024 pages of 4 KiB */
#define FILE_B_BYTES	(1u << 20)	/* read by the test itself: must stay invisible */
#define CHUNK		(64u << 10)	/* write/read size */

static bool was_mounted;	/* tracefs was mounted when the test began */
static long page_size;		/* sysconf(_SC_PAGESIZE) */

/* ---- files with no page in the cache ---- */

struct cold_file {
	char		path[64];	/* /var/tmp/hsctl-t-capture-XXXXXX */
	struct stat	st;		/* dev and ino to look for */
	size_t		bytes;		/* size */
};

/* cachestat(2), Linux 6.5+; the libc headers of Debian 12 do not have it yet. */
#define NR_CACHESTAT	451

struct cs_range {
	uint64_t	off;		/* first byte */
	uint64_t	len;		/* bytes; 0: to the end */
};

struct cs_stat {
	uint64_t	nr_cache;	/* pages in the page cache */
	uint64_t	nr_dirty;	/* of which dirty */
	uint64_t	nr_writeback;	/* under writeback */
	uint64_t	nr_evicted;	/* evicted */
	uint64_t	nr_recently_evicted;	/* evicted recently */
};

/*
 * Pages of @fd's first @bytes in the page cache, or -1: cachestat(2), else
 * mincore() on a mapping (which valgrind spoils by reading the first page).
 */
static long resident_pages(int fd, size_t bytes)
{
	size_t pages = (bytes + (size_t)page_size - 1) / (size_t)page_size;
	struct cs_range range = { 0, bytes };
	struct cs_stat cs;
	unsigned char *vec;
	long n = 0;
	void *map;

	if (!syscall(NR_CACHESTAT, fd, &range, &cs, 0))
		return (long)cs.nr_cache;
	vec = malloc(pages);
	if (!vec)
		return -1;
	map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		free(vec);
		return -1;
	}
	if (mincore(map, bytes, vec)) {
		n = -1;
	} else {
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
	}
	munmap(map, bytes);
	free(vec);
	return n;
}

/* Write @bytes, fsync, drop them from the page cache; 0 or -errno. */
static int make_cold(struct cold_file *f, size_t bytes)
{
	char buf[CHUNK];
	size_t done = 0;
	long res = -1;
	int fd;

	snprintf(f->path, sizeof(f->path), "/var/tmp/hsctl-t-capture-XXXXXX");
	f->bytes = bytes;
	fd = mkstemp(f->path);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 1);
	while (done < bytes) {
		ssize_t n = write(fd, buf, HS_MIN(sizeof(buf), bytes - done));

		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (fsync(fd) || fstat(fd, &f->st))
		goto fail;
	for (int tries = 0; tries < 20; tries++) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		res = resident_pages(fd, bytes);
		if (res <= 0)
			break;
		usleep(10000);
	}
	close(fd);
	if (res != 0) {
		unlink(f->path);
		return -EBUSY;
	}
	return 0;
fail:
	close(fd);
	unlink(f->path);
	return -EIO;
}

/* Read all of @path; 0 or -errno. */
static int read_all(const char *path)
{
	char buf[CHUNK];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -EIO : 0;
}

/* A child process reads @path in full, then unlinks it if @unlink_it; 0 when it did. */
static int read_in_child(const char *path, bool unlink_it)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (read_all(path))
			_exit(1);
		if (unlink_it && unlink(path))
			_exit(2);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* ---- consumers ---- */

static int nop_subbuf(void *arg, int cpu, const void *buf, size_t len)
{
	(void)arg;
	(void)cpu;
	(void)buf;
	(void)len;
	return 0;
}

struct collect {
	pthread_mutex_t	lock;		/* the decoder serves every reader thread */
	struct hs_decoder *dec;		/* decodes each sub-buffer as it comes */
	uint64_t	kdev;		/* the files' device, kernel encoding */
	uint64_t	ino_a;		/* the file read by the child */
	uint64_t	ino_b;		/* the file read by the test itself */
	uint64_t	add_a;		/* pages added for a (sum of 2^order) */
	uint64_t	del_a;		/* pages deleted for a */
	uint64_t	add_b;		/* pages added for b */
	uint64_t	lost_ev;	/* HS_EV_LOST events */
	int		dec_err;	/* first hs_decoder_subbuf() error */
	unsigned long	calls;		/* on_subbuf calls */
	unsigned long	cancel_at;	/* return -ECANCELED on this call (1-based); 0: never */
};

static int on_event(void *arg, const struct hs_event *ev)
{
	struct collect *col = arg;
	uint64_t pages = 1ull << ev->order;

	if (ev->type == HS_EV_LOST) {
		col->lost_ev++;
		return 0;
	}
	if (ev->dev != col->kdev)
		return 0;
	if (ev->type == HS_EV_FILEMAP_ADD && ev->ino == col->ino_a)
		col->add_a += pages;
	else if (ev->type == HS_EV_FILEMAP_DELETE && ev->ino == col->ino_a)
		col->del_a += pages;
	else if (ev->type == HS_EV_FILEMAP_ADD && ev->ino == col->ino_b)
		col->add_b += pages;
	return 0;
}

static int collect_subbuf(void *arg, int cpu, const void *buf, size_t len)
{
	struct collect *col = arg;
	int ret = 0;
	int err;

	pthread_mutex_lock(&col->lock);
	col->calls++;
	if (col->cancel_at && col->calls == col->cancel_at)
		ret = -ECANCELED;
	if (col->dec) {
		err = hs_decoder_subbuf(col->dec, buf, len, cpu, on_event, col);
		if (err && !col->dec_err)
			col->dec_err = err;
	}
	pthread_mutex_unlock(&col->lock);
	return ret;
}

/* ---- what a capture leaves behind ---- */

static bool instance_exists(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/instances/%s", dir, name);
	return stat(path, &st) == 0;
}

/*
 * After hs_capture_close(): tracefs is mounted iff it was before the test, and
 * instance @name is gone (looked at through a mount of our own when needed).
 */
static void check_nothing_left(const char *name)
{
	char dir[256];
	int err;

	err = hs_tracefs_find(dir, sizeof(dir));
	if (was_mounted) {
		T_EQ_I64(err, 0);
		if (!err)
			T_ASSERT(!instance_exists(dir, name));
		return;
	}
	T_EQ_I64(err, -ENOENT);
	if (err)
		return;
	/* Instances outlive a mount: mount again to see that ours is gone. */
	if (mount("nodev", TRACEFS_MNT, "tracefs", 0, NULL)) {
		t_fail(__FILE__, __LINE__, "mount tracefs: %s", strerror(errno));
		return;
	}
	T_ASSERT(!instance_exists(TRACEFS_MNT, name));
	umount(TRACEFS_MNT);
}

static char *instance_name(char *buf, size_t size, pid_t pid)
{
	snprintf(buf, size, HS_CAPTURE_PREFIX "%d", (int)pid);
	return buf;
}

/* ---- cases ---- */

static void test_open_errors(void)
{
	struct hs_capture_opts o = { .on_subbuf = nop_subbuf };
	struct hs_capture_opts bad = { 0 };
	struct hs_capture *c = NULL, *c2 = NULL;
	char dir[256];

	/* No callback, no options, watermark above 100, a clock that is no name. */
	T_EQ_I64(hs_capture_open(&bad, &c), -EINVAL);
	T_ASSERT(c && *hs_capture_errmsg(c));
	hs_capture_close(c);
	c = NULL;
	T_EQ_I64(hs_capture_open(NULL, &c), -EINVAL);
	hs_capture_close(c);
	c = NULL;
	o.buffer_percent = 101;
	T_EQ_I64(hs_capture_open(&o, &c), -EINVAL);
	T_ASSERT(c && strstr(hs_capture_errmsg(c), "101"));
	hs_capture_close(c);
	c = NULL;
	o.buffer_percent = 0;
	o.clock = "mono; rm";
	T_EQ_I64(hs_capture_open(&o, &c), -EINVAL);
	hs_capture_close(c);
	c = NULL;
	o.clock = "no_such_clock";
	T_EQ_I64(hs_capture_open(&o, &c), -EINVAL);
	T_ASSERT(c && *hs_capture_errmsg(c));
	hs_capture_close(c);
	c = NULL;
	check_nothing_left(instance_name(dir, sizeof(dir), getpid()));

	/* A second capture in one process: -EEXIST, and it must not remove the first's. */
	o.clock = NULL;
	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		return;
	T_EQ_I64(hs_capture_open(&o, &c2), -EEXIST);
	T_ASSERT(c2 && strstr(hs_capture_errmsg(c2), "exists"));
	hs_capture_close(c2);
	T_ASSERT(instance_exists(hs_capture_tracing_dir(c), hs_capture_instance(c)));
	T_EQ_I64(hs_capture_start(c), 0);
	T_EQ_I64(hs_capture_start(c), -EBUSY);
	T_EQ_I64(hs_capture_stop(c), 0);
	T_EQ_I64(hs_capture_stop(c), 0);
	hs_capture_close(c);
	hs_capture_close(NULL);
	check_nothing_left(dir);
}

static void test_enable_errors(void)
{
	struct hs_capture_opts o = { .on_subbuf = nop_subbuf };
	struct hs_capture *c = NULL;

	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		return;
	T_EQ_I64(hs_capture_enable(c, "nosuch", "event"), -ENOENT);
	T_ASSERT(strstr(hs_capture_errmsg(c), "nosuch:event"));
	T_EQ_I64(hs_capture_enable(c, "filemap", "nosuch"), -ENOENT);
	T_EQ_I64(hs_capture_enable(c, "nosuch", "mm_filemap_add_to_page_cache"), -ENOENT);
	/* libtracefs would take these as regular expressions and enable many events */
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_.*"), -EINVAL);
	T_EQ_I64(hs_capture_enable(c, "filemap", ""), -EINVAL);
	T_EQ_I64(hs_capture_enable(c, NULL, "x"), -EINVAL);
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_add_to_page_cache"), 0);
	hs_capture_close(c);
}

/* Options reach the kernel; a capture with no event enabled reads nothing and restarts. */
static void test_options(void)
{
	struct hs_capture_opts o = { .on_subbuf = nop_subbuf, .buffer_kb = 1024,
				     .buffer_percent = 50, .clock = "global" };
	struct tracefs_instance *inst;
	struct hs_capture_stats st;
	struct hs_capture *c = NULL;
	char *pct;

	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		return;
	T_EQ_STR(hs_capture_errmsg(c), "");
	T_EQ_I64(hs_capture_get_stats(c, &st), 0);
	/*
	 * The kernel rounds up to whole sub-buffers of 4080 data bytes (header_page:
	 * data at 16, size 4080) and reports their data in KiB, rounded down:
	 * ceil(1024 * 1024 / 4080) = 258 sub-buffers, 258 * 4080 / 1024 = 1027.97.
	 */
	if (page_size == 4096)
		T_EQ_U64(st.buffer_kb, 1027);
	T_EQ_STR(st.clock, "global");
	T_EQ_U64(st.subbufs, 0);
	T_ASSERT(st.nr_cpus >= 1 && st.cpu);
	inst = tracefs_instance_alloc(hs_capture_tracing_dir(c), hs_capture_instance(c));
	T_ASSERT(inst);
	if (inst) {
		pct = tracefs_instance_file_read(inst, "buffer_percent", NULL);
		T_ASSERT(pct && !strcmp(pct, "50\n"));
		free(pct);
		T_EQ_I64(tracefs_trace_is_on(inst), 0);
	}
	for (int round = 0; round < 2; round++) {
		T_EQ_I64(hs_capture_start(c), 0);
		if (inst)
			T_EQ_I64(tracefs_trace_is_on(inst), 1);
		T_EQ_I64(hs_capture_stop(c), 0);
		if (inst)
			T_EQ_I64(tracefs_trace_is_on(inst), 0);
		T_EQ_I64(hs_capture_get_stats(c, &st), 0);
		T_EQ_U64(st.subbufs, 0);
		T_EQ_U64(st.bytes, 0);
		T_EQ_U64(st.lost, 0);
	}
	tracefs_instance_free(inst);
	hs_capture_close(c);
}

static void test_filemap(void)
{
	struct hs_capture_opts o = { .on_subbuf = collect_subbuf };
	struct collect col = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct cold_file a = { .bytes = 0 }, b = { .bytes = 0 };
	struct hs_decoder_stats ds;
	struct hs_capture_stats st;
	struct hs_capture *c = NULL;
	uint64_t read_events = 0;
	char name[32];
	int err;

	err = make_cold(&a, FILE_A_BYTES);
	if (!err)
		err = make_cold(&b, FILE_B_BYTES);
	if (err) {
		t_fail(__FILE__, __LINE__, "cold file: %s", strerror(-err));
		goto out;
	}
	T_EQ_I64(hs_decoder_dev_to_kdev(a.st.st_dev, &col.kdev), 0);
	col.ino_a = a.st.st_ino;
	col.ino_b = b.st.st_ino;
	o.arg = &col;
	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		goto out;
	snprintf(name, sizeof(name), "%s", hs_capture_instance(c));
	err = hs_decoder_open(hs_capture_tracing_dir(c), HS_DEC_FILEMAP, &col.dec);
	if (err) {
		t_fail(__FILE__, __LINE__, "decoder: %s",
		       col.dec ? hs_decoder_errmsg(col.dec) : strerror(-err));
		goto out;
	}
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_add_to_page_cache"), 0);
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_delete_from_page_cache"), 0);
	T_EQ_I64(hs_capture_start(c), 0);
	T_EQ_I64(read_all(b.path), 0);			/* this process: not traced */
	T_EQ_I64(read_in_child(a.path, true), 0);	/* 1024 pages in, then out */
	T_EQ_I64(hs_capture_stop(c), 0);
	T_EQ_I64(hs_capture_get_stats(c, &st), 0);
	T_EQ_I64(hs_decoder_get_stats(col.dec, &ds), 0);
	for (unsigned int i = 0; i < st.nr_cpus; i++)
		read_events += st.cpu[i].read_events;

	T_EQ_U64(col.add_a, FILE_A_BYTES / page_size);
	T_EQ_U64(col.del_a, FILE_A_BYTES / page_size);
	T_EQ_U64(col.add_b, 0);
	T_EQ_U64(st.lost, 0);
	T_EQ_U64(col.lost_ev, 0);
	T_EQ_I64(col.dec_err, 0);
	T_EQ_U64(ds.bad, 0);
	T_EQ_U64(ds.missed + ds.missed_unknown, 0);
	T_EQ_U64(ds.subbufs, st.subbufs);
	T_EQ_U64(col.calls, st.subbufs);
	T_EQ_U64(ds.records + ds.skipped, read_events);
	T_EQ_U64(ds.skipped, 0);
	T_ASSERT(st.bytes >= st.subbufs * 16);
	/* the default 8192 KiB: ceil(8 MiB / 4080) = 2057, 2057 * 4080 / 1024 = 8195.86 */
	if (page_size == 4096)
		T_EQ_U64(st.buffer_kb, 8195);
	T_EQ_STR(st.clock, "mono");
	hs_capture_close(c);
	c = NULL;
	check_nothing_left(name);
out:
	hs_capture_close(c);
	hs_decoder_free(col.dec);
	if (a.bytes)
		unlink(a.path);		/* normally the child did */
	if (b.bytes)
		unlink(b.path);
}

/*
 * The same reads with a spool and no callback: every CPU's sub-buffers are
 * spliced into its own file, each exactly hs_capture_subbuf_size() bytes, and
 * decoding the files afterwards gives the same pages as test_filemap().
 */
#define SPOOL_CPUS	256

struct spool_files {
	int		fd[SPOOL_CPUS];	/* per CPU, -1: none asked for */
	unsigned int	asked;		/* spool_fd calls */
};

static int spool_fd(void *arg, int cpu)
{
	struct spool_files *sf = arg;
	char path[] = "/tmp/hsctl_t-capture_spool.XXXXXX";
	int fd;

	if (cpu < 0 || cpu >= SPOOL_CPUS)
		return -EINVAL;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	unlink(path);
	sf->fd[cpu] = fd;
	sf->asked++;
	return fd;
}

static void test_spool(void)
{
	struct hs_capture_opts o = { .spool_fd = spool_fd };
	struct collect col = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct cold_file a = { .bytes = 0 }, b = { .bytes = 0 };
	struct spool_files sf;
	struct hs_decoder_stats ds;
	struct hs_capture_stats st;
	struct hs_capture *c = NULL;
	uint64_t file_bytes = 0;
	unsigned char *buf = NULL;
	size_t size = 0;
	unsigned int i;
	off_t end;
	int err;

	for (i = 0; i < SPOOL_CPUS; i++)
		sf.fd[i] = -1;
	sf.asked = 0;
	err = make_cold(&a, FILE_A_BYTES);
	if (!err)
		err = make_cold(&b, FILE_B_BYTES);
	if (err) {
		t_fail(__FILE__, __LINE__, "cold file: %s", strerror(-err));
		goto out;
	}
	T_EQ_I64(hs_decoder_dev_to_kdev(a.st.st_dev, &col.kdev), 0);
	col.ino_a = a.st.st_ino;
	col.ino_b = b.st.st_ino;
	o.arg = &sf;
	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		goto out;
	size = hs_capture_subbuf_size(c);
	T_ASSERT(size >= 4096);
	err = hs_decoder_open(hs_capture_tracing_dir(c), HS_DEC_FILEMAP, &col.dec);
	if (err) {
		t_fail(__FILE__, __LINE__, "decoder: %s",
		       col.dec ? hs_decoder_errmsg(col.dec) : strerror(-err));
		goto out;
	}
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_add_to_page_cache"), 0);
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_delete_from_page_cache"), 0);
	T_EQ_I64(hs_capture_start(c), 0);
	T_ASSERT(sf.asked >= 1);
	T_EQ_I64(read_all(b.path), 0);			/* this process: not traced */
	T_EQ_I64(read_in_child(a.path, true), 0);	/* 1024 pages in, then out */
	T_EQ_I64(hs_capture_stop(c), 0);
	T_EQ_I64(hs_capture_get_stats(c, &st), 0);
	buf = malloc(size ? size : 1);
	for (i = 0; buf && i < SPOOL_CPUS; i++) {
		if (sf.fd[i] < 0)
			continue;
		end = lseek(sf.fd[i], 0, SEEK_END);
		T_ASSERT(end >= 0 && (size_t)end % size == 0);
		T_EQ_U64((uint64_t)end, st.cpu[i].bytes);
		file_bytes += (uint64_t)end;
		for (off_t off = 0; off + (off_t)size <= end; off += (off_t)size) {
			T_EQ_I64(pread(sf.fd[i], buf, size, off), (int64_t)size);
			collect_subbuf(&col, (int)i, buf, size);
		}
	}
	T_EQ_I64(hs_decoder_get_stats(col.dec, &ds), 0);
	T_EQ_U64(col.add_a, FILE_A_BYTES / page_size);
	T_EQ_U64(col.del_a, FILE_A_BYTES / page_size);
	T_EQ_U64(col.add_b, 0);
	T_EQ_U64(st.lost, 0);
	T_EQ_U64(col.lost_ev, 0);
	T_EQ_I64(col.dec_err, 0);
	T_EQ_U64(ds.bad, 0);
	T_EQ_U64(ds.subbufs, st.subbufs);
	T_EQ_U64(file_bytes, st.bytes);
	T_EQ_U64(st.bytes, st.subbufs * size);
out:
	hs_capture_close(c);
	for (i = 0; i < SPOOL_CPUS; i++)
		if (sf.fd[i] >= 0)
			close(sf.fd[i]);
	free(buf);
	hs_decoder_free(col.dec);
	if (a.bytes)
		unlink(a.path);		/* normally the child did */
	if (b.bytes)
		unlink(b.path);
}

static void test_cancel(void)
{
	struct hs_capture_opts o = { .on_subbuf = collect_subbuf };
	struct collect col = { .lock = PTHREAD_MUTEX_INITIALIZER, .cancel_at = 1 };
	struct cold_file f = { .bytes = 0 };
	struct hs_capture_stats st;
	struct hs_capture *c = NULL;
	int err;

	err = make_cold(&f, FILE_B_BYTES);
	if (err) {
		t_fail(__FILE__, __LINE__, "cold file: %s", strerror(-err));
		return;
	}
	o.arg = &col;
	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		goto out;
	T_EQ_I64(hs_capture_enable(c, "filemap", "mm_filemap_add_to_page_cache"), 0);
	T_EQ_I64(hs_capture_start(c), 0);
	T_EQ_I64(read_in_child(f.path, false), 0);
	T_EQ_I64(hs_capture_stop(c), -ECANCELED);
	T_ASSERT(strstr(hs_capture_errmsg(c), "consumer"));
	T_EQ_I64(hs_capture_get_stats(c, &st), 0);
	/* The reader that saw -ECANCELED stopped at once: one call on that CPU. */
	T_ASSERT(col.calls >= 1);
	T_ASSERT(st.subbufs >= 1);
out:
	hs_capture_close(c);
	unlink(f.path);
}

/*
 * Loss accounting.  While a child makes LOSS_CALLS sched_get_priority_min()
 * calls (one sys_enter event each; nothing else on the machine makes that
 * call), the consumer holds every reader, so the 64 KiB per-CPU buffers
 * (about 2,400 of these 28-byte records per CPU) overflow.  In overwrite mode
 * every event is then either read or overwritten: read events + lost must be
 * exactly LOSS_CALLS, and a CPU that lost events must have handed over a
 * sub-buffer whose header says so (commit bit 31, RB_MISSED_EVENTS).
 */
#define LOSS_CALLS	100000
#define MISSED_FLAG	(1ull << 31)
#define MAX_TEST_CPUS	256

struct hold {
	int		held;		/* consumers wait while set; atomic */
	uint64_t	flagged[MAX_TEST_CPUS];	/* sub-buffers flagged "missed events"; atomic */
};

static int hold_subbuf(void *arg, int cpu, const void *buf, size_t len)
{
	struct hold *h = arg;
	uint64_t commit;

	while (__atomic_load_n(&h->held, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (len >= 16 && cpu >= 0 && cpu < MAX_TEST_CPUS) {
		memcpy(&commit, (const char *)buf + 8, sizeof(commit));
		if (commit & MISSED_FLAG)
			__atomic_add_fetch(&h->flagged[cpu], 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static void test_loss(void)
{
	struct hs_capture_opts o = { .on_subbuf = hold_subbuf, .buffer_kb = 64 };
	struct hold h = { .held = 1 };
	struct hs_capture_stats st;
	struct hs_capture *c = NULL;
	uint64_t read_events = 0;
	int status = -1;
	pid_t pid;

	o.arg = &h;
	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		return;
	T_EQ_I64(hs_capture_enable(c, "syscalls", "sys_enter_sched_get_priority_min"), 0);
	T_EQ_I64(hs_capture_start(c), 0);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < LOSS_CALLS; i++)
			sched_get_priority_min(SCHED_OTHER);
		_exit(0);
	}
	T_ASSERT(pid > 0);
	if (pid > 0)
		waitpid(pid, &status, 0);
	T_EQ_I64(status, 0);
	__atomic_store_n(&h.held, 0, __ATOMIC_RELEASE);
	T_EQ_I64(hs_capture_stop(c), 0);
	T_EQ_I64(hs_capture_get_stats(c, &st), 0);
	T_ASSERT(st.lost > 0);
	for (unsigned int i = 0; i < st.nr_cpus; i++) {
		read_events += st.cpu[i].read_events;
		/* overwrite mode: the writer overwrites, it never drops */
		T_EQ_U64(st.cpu[i].lost, st.cpu[i].overrun);
		if (st.cpu[i].lost && i < MAX_TEST_CPUS)
			T_ASSERT(h.flagged[i] >= 1);
	}
	T_EQ_U64(read_events + st.lost, LOSS_CALLS);
	hs_capture_close(c);
}

/* Fork a child that runs @argv (or pauses when NULL); its pid, or -1. */
static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		if (argv)
			execv(argv[0], argv);
		else
			pause();
		_exit(127);
	}
	return pid;
}

static bool comm_is(pid_t pid, const char *comm)
{
	char path[64], buf[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, comm);
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Create instance hsctl_<pid> through libtracefs; true when we made it. */
static bool make_instance(pid_t pid)
{
	struct tracefs_instance *inst;
	char name[32];
	bool made;

	inst = tracefs_instance_create(instance_name(name, sizeof(name), pid));
	made = inst && tracefs_instance_is_new(inst);
	tracefs_instance_free(inst);
	return made;
}

static void drop_instance(const char *dir, pid_t pid)
{
	char path[512], name[32];

	snprintf(path, sizeof(path), "%s/instances/%s", dir,
		 instance_name(name, sizeof(name), pid));
	rmdir(path);
}

static void test_cleanup_stale(void)
{
	struct hs_capture_opts o = { .on_subbuf = nop_subbuf };
	char *sleeper_argv[] = { "/bin/sleep", "30", NULL };
	pid_t dead, sleeper = -1, live = -1;
	struct hs_capture *c = NULL;
	unsigned int removed = 99;
	char dir[256], name[32];

	/* hsctl_<self> of the capture gives libtracefs its tracing dir; it must survive. */
	T_EQ_I64(hs_capture_open(&o, &c), 0);
	if (!c)
		return;
	snprintf(dir, sizeof(dir), "%s", hs_capture_tracing_dir(c));
	/* Whatever other runs left: gone before we count. */
	T_EQ_I64(hs_capture_cleanup_stale(dir, NULL), 0);

	/* A pid that is dead. */
	dead = spawn(NULL);
	T_ASSERT(dead > 0);
	if (dead <= 0)
		goto out;
	reap(dead);
	T_ASSERT(make_instance(dead));
	T_ASSERT(instance_exists(dir, instance_name(name, sizeof(name), dead)));
	T_EQ_I64(hs_capture_cleanup_stale(dir, &removed), 0);
	T_EQ_U64(removed, 1);
	T_ASSERT(!instance_exists(dir, name));
	T_ASSERT(instance_exists(dir, hs_capture_instance(c)));

	/* A live pid that is not hsctl and has no libtracefs: a recycled pid. */
	sleeper = spawn(sleeper_argv);
	T_ASSERT(sleeper > 0);
	for (int i = 0; i < 200 && !comm_is(sleeper, "sleep"); i++)
		usleep(5000);
	T_ASSERT(comm_is(sleeper, "sleep"));
	T_ASSERT(make_instance(sleeper));
	T_EQ_I64(hs_capture_cleanup_stale(dir, &removed), 0);
	T_EQ_U64(removed, 1);
	T_ASSERT(!instance_exists(dir, instance_name(name, sizeof(name), sleeper)));

	/* A live process with libtracefs mapped (a fork of this test): kept. */
	live = spawn(NULL);
	T_ASSERT(live > 0);
	T_ASSERT(make_instance(live));
	T_EQ_I64(hs_capture_cleanup_stale(dir, &removed), 0);
	T_EQ_U64(removed, 0);
	T_ASSERT(instance_exists(dir, instance_name(name, sizeof(name), live)));
	reap(live);
	T_EQ_I64(hs_capture_cleanup_stale(dir, &removed), 0);
	T_EQ_U64(removed, 1);
	T_ASSERT(!instance_exists(dir, name));
	T_ASSERT(instance_exists(dir, hs_capture_instance(c)));

	T_EQ_I64(hs_capture_cleanup_stale("/nonexistent", &removed), -ENOENT);
	T_EQ_U64(removed, 0);
out:
	reap(sleeper);
	reap(live);
	drop_instance(dir, dead);
	drop_instance(dir, sleeper);
	drop_instance(dir, live);
	snprintf(name, sizeof(name), "%s", hs_capture_instance(c));
	hs_capture_close(c);
	check_nothing_left(name);
}

static const struct t_case cases[] = {
	{ "open_errors", test_open_errors },
	{ "enable_errors", test_enable_errors },
	{ "options", test_options },
	{ "filemap", test_filemap },
	{ "spool", test_spool },
	{ "cancel", test_cancel },
	{ "loss", test_loss },
	{ "cleanup_stale", test_cleanup_stale },
};

int main(int argc, char **argv)
{
	struct hs_capture_opts o = { .on_subbuf = nop_subbuf };
	struct hs_capture *c = NULL;
	char dir[256], why[512];
	int lock;
	int err;

	page_size = sysconf(_SC_PAGESIZE);
	if (geteuid() != 0) {
		printf("SKIP: live tracefs test needs root (euid %u)\n", (unsigned int)geteuid());
		return 77;
	}
	/* Other live tests mount and unmount tracefs: one at a time, for the whole run. */
	lock = t_live_lock(why, sizeof(why));
	if (lock < 0) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	was_mounted = hs_tracefs_find(dir, sizeof(dir)) == 0;
	err = hs_capture_open(&o, &c);
	if (err == -EPERM || err == -ENOENT) {
		printf("SKIP: no tracefs: %s\n", hs_capture_errmsg(c));
		hs_capture_close(c);
		return 77;
	}
	hs_capture_close(c);
	return t_main(cases, ARRAY_SIZE(cases), argc, argv);
}
