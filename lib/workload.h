/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Built-in workloads for `hsctl record --workload NAME`: small programs with
 * known access patterns that log every page they touch, with a timestamp on
 * CLOCK_MONOTONIC (the "mono" trace clock), so a recording of them is exact:
 * the lifecycle builder sees every access, not only the first fault.
 *
 *   scan-twice  read a file sequentially, twice (read(2), FD)
 *   zipf-read   zipfian pread(2) of single pages over a file (FD)
 *   ycsb-f      anonymous memory: load N records, then zipfian operations,
 *               half reads and half read-modify-writes (YCSB workload F; PT)
 *   loop        read a file sequentially, again and again (FD): a cyclic
 *               scan slightly larger than memory
 *   scan-hot    a hot set at the start of a file read all along (16 pread(2)s
 *               of single Zipf-chosen pages) while one-time scans stream
 *               through the rest, several times larger than memory (one
 *               64 KiB pread(2) after every 16 hot reads), pass after pass
 *               (FD); the same stream as `hsctl gen scan-hot`
 *   ycsb-load   anonymous memory: YCSB's load phase, @ops inserts into a
 *               B+tree whose nodes are pages of one mapping, each appending
 *               its record there too (PT; one thread); the same stream as
 *               `hsctl gen ycsb-load`
 *   shared-map  scan-hot's pattern through mappings: @procs processes (this
 *               one and forked children) each map the file MAP_SHARED
 *               (MADV_RANDOM on the scanned part only: no read-around there,
 *               and the hot part keeps the recency the kernel denies to a
 *               MADV_RANDOM mapping) and take turns around a ring of pipes; a turn loads 16 Zipf-chosen hot pages (each process
 *               its own PRNG, seed + its number) and then the next 64 KiB
 *               chunk of the one scan they share (PT).  A hot page is young
 *               in several page tables at once.  The same stream as
 *               `hsctl gen shared-map`
 *
 * The parent prepares the workload (creates the data file outside the
 * cgroup, writes it out and drops it from the page cache so the first pass
 * is cold), then forks; the child joins the cgroup and calls
 * hs_workload_run() with the write end of a pipe, on which it writes struct
 * hs_touch records in batches.  Deterministic for a given seed.
 */
#ifndef HS_WORKLOAD_H
#define HS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct hs_workload;
struct hs_undo;

/* struct hs_touch flags (the same bits as HS_EVF_* in lib/event.h) */
#define HS_TOUCH_ANON	0x0001u	/* anonymous memory: page is address >> 12 */
#define HS_TOUCH_WRITE	0x0004u	/* the touch wrote the page */
#define HS_TOUCH_FD	0x0008u	/* through read()/write(), not a mapping: page is the
				 * file's page index */
#define HS_TOUCH_NORECENCY 0x0010u	/* through a mapping advised MADV_RANDOM or
					 * MADV_SEQUENTIAL: the kernel sees no recency */

/**
 * struct hs_touch - one page touch logged by a workload (24 bytes on the pipe)
 */
struct hs_touch {
	uint64_t	ts_ns;		/* CLOCK_MONOTONIC after the access */
	uint64_t	page;		/* file page index, or virtual address >> 12 */
	uint32_t	flags;		/* HS_TOUCH_* */
	uint32_t	pad;		/* 0 */
};

/**
 * struct hs_workload_opts - a workload and its options; 0 or NULL: defaults
 */
struct hs_workload_opts {
	const char	*name;		/* "scan-twice", "zipf-read", "ycsb-f", "loop",
					 * "scan-hot", "ycsb-load", "shared-map" */
	const char	*file;		/* data file to use as it is (file workloads); NULL:
					 * create one of @size bytes in @dir */
	const char	*dir;		/* where to create it; NULL: $TMPDIR, else /var/tmp.
					 * A tmpfs is refused (its pages are shmem, not file
					 * cache) */
	uint64_t	size;		/* file size or anon working set, bytes; 0: 256 MiB */
	uint64_t	ops;		/* zipf-read / ycsb-f operations; 0: 4 x pages;
					 * ycsb-load inserts; 0: 3 x pages */
	unsigned int	passes;		/* 0 means: scan-twice 2, loop 3, scan-hot and
					 * shared-map 3 */
	uint64_t	hot_size;	/* scan-hot, shared-map hot set, bytes, < size;
					 * 0: size / 8 */
	unsigned int	procs;		/* shared-map processes, 1 .. 64; 0: 4 */
	unsigned int	record_size;	/* ycsb-f / ycsb-load record bytes; 0: 1024
					 * (ycsb-load: at most 4096) */
	double		theta;		/* zipf skew; 0: 0.99 (scan-hot, shared-map:
					 * 0.5) */
	uint64_t	seed;		/* random seed; 0: 1 */
	struct hs_undo	*undo;		/* write a created data file down in this undo
					 * note (lib/undo.h); NULL: none */
};

/**
 * hs_workload_names() - the built-in workloads
 *
 * Return: a NULL-terminated list of names.
 */
const char *const *hs_workload_names(void);

/**
 * hs_workload_prepare() - validate options and create the data file
 * @o: options
 * @out: the workload
 * @err: receives a one-line reason on failure
 * @errlen: its size
 *
 * Creates the file (if needed, unlinked again by hs_workload_free()),
 * fsyncs it and drops its pages from the page cache.
 *
 * Return: 0; -EINVAL (unknown name, absurd option: the reason says which);
 * -ENOENT / -EACCES (file or dir); -ENOSPC; -ENOMEM; -EIO.
 */
int hs_workload_prepare(const struct hs_workload_opts *o, struct hs_workload **out, char *err,
			size_t errlen);

/**
 * hs_workload_describe() - the resolved options as a JSON object
 * @w: the workload
 *
 * Return: e.g. {"workload":"scan-twice","file":"/var/tmp/...","size":209715200,
 * "passes":2,"seed":1}; valid until hs_workload_free().
 */
const char *hs_workload_describe(const struct hs_workload *w);

/**
 * hs_workload_file() - the data file's identity for the touch records
 * @w: the workload
 * @kdev: receives the kernel dev_t (major << 20 | minor) as tracepoints show it
 * @ino: receives the inode number
 *
 * Return: 0, or -ENOENT for anonymous workloads (ycsb-f, ycsb-load).
 */
int hs_workload_file(const struct hs_workload *w, uint64_t *kdev, uint64_t *ino);

/**
 * hs_workload_mapped() - whether the touches go through a mapping
 * @w: the workload
 *
 * Return: true for ycsb-f, ycsb-load (anonymous) and shared-map (a shared file
 * mapping): PT accesses; false for the read(2) workloads: FD accesses.
 */
bool hs_workload_mapped(const struct hs_workload *w);

/**
 * hs_workload_path() - the data file's path
 * @w: the workload
 *
 * Return: the path (valid until hs_workload_free()), or NULL for anonymous
 * workloads (ycsb-f).
 */
const char *hs_workload_path(const struct hs_workload *w);

/**
 * hs_workload_pages() - pages the workload touches (file or working set)
 * @w: the workload
 *
 * Return: the count.
 */
uint64_t hs_workload_pages(const struct hs_workload *w);

/**
 * hs_workload_run() - run it (in the child, after joining the cgroup)
 * @w: the workload
 * @log_fd: where struct hs_touch records go (a pipe), or -1 for none
 *
 * Writes touches in batches of at most PIPE_BUF bytes, so each write(2) is
 * atomic.  Stops early when the log's reader goes away (EPIPE).  SIGPIPE
 * is blocked in the calling thread for the duration of the run (and a
 * SIGPIPE the run raised is consumed), so the caller need not ignore it.
 *
 * Return: 0 on success, or -errno of the first failure.
 */
int hs_workload_run(struct hs_workload *w, int log_fd);

/**
 * hs_workload_free() - unlink a created file and free
 * @w: the workload, or NULL
 *
 * Only the process that prepared @w unlinks (a forked child's copy does not).
 *
 * Return: nothing.
 */
void hs_workload_free(struct hs_workload *w);

#endif /* HS_WORKLOAD_H */
