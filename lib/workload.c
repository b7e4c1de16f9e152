/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in workloads of `hsctl record --workload` (contract and list in
 * workload.h).  hs_workload_prepare() resolves the options, creates the data
 * file of the file workloads (non-zero bytes, so no sparse holes), fsyncs
 * it, drops it with POSIX_FADV_DONTNEED and checks with cachestat(2) (or
 * mincore(2) on kernels before 6.5) that it really left the page cache.
 * hs_workload_run() then makes the accesses and logs every page it touched
 * as a struct hs_touch, stamped with CLOCK_MONOTONIC right after the access,
 * in write(2)s of at most 170 records (4080 bytes <= PIPE_BUF, so each write
 * to a pipe is atomic).  Zipfian choices use lib/gen.c's sampler over ranks
 * 1..n, and rank k is page (zipf-read) or record (ycsb-f) k - 1 with no
 * scrambling: the hot pages sit at the start of the file or mapping, and a
 * reader of the touch log can tell the skew at a glance.  One PRNG seeded
 * with the seed at the start of every run makes the page sequence a
 * function of the options alone.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "fileio.h"
#include "gen.h"
#include "json.h"
#include "undo.h"
#include "workload.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC	0x01021994
#endif

#define WL_PAGE_SHIFT	12
#define WL_PAGE		(UINT64_C(1) << WL_PAGE_SHIFT)
#define WL_DEF_SIZE	(UINT64_C(256) << 20)	/* size 0 */
#define WL_MAX_SIZE	(UINT64_C(1) << 40)	/* 1 TiB */
#define WL_MAX_OPS	UINT64_C(1000000000000)	/* 1e12 */
#define WL_MAX_PASSES	1000000u
#define WL_DEF_RECORD	1024u
#define WL_DEF_THETA	0.99
#define WL_HOT_THETA	0.5			/* scan-hot's default: a flat hot set */
#define WL_HOT_PASSES	3u			/* scan-hot's default passes */
#define WL_DEF_PROCS	4u			/* shared-map's default processes */
#define WL_MAX_PROCS	64u			/* shared-map's processes, at most */
#define WL_CHUNK_PAGES	(WL_READ_CHUNK >> WL_PAGE_SHIFT)	/* 16 */
#define WL_READ_CHUNK	(64u * 1024)		/* scan-twice / loop read(2) size */
#define WL_FILL_CHUNK	(1u << 20)		/* write(2) size when creating the file */
#define WL_FILL_BYTE	0x5a
#define WL_LOG_MAX	(PIPE_BUF / sizeof(struct hs_touch))	/* touches per write(2) */
#define WL_DROP_TRIES	3			/* POSIX_FADV_DONTNEED attempts */

_Static_assert(sizeof(struct hs_touch) == 24, "struct hs_touch is 24 bytes on the pipe");
_Static_assert(PIPE_BUF / sizeof(struct hs_touch) == 170, "170 touches per atomic write");

enum wl_kind {
	WL_SCAN_TWICE,
	WL_ZIPF_READ,
	WL_YCSB_F,
	WL_LOOP,
	WL_SCAN_HOT,
	WL_YCSB_LOAD,
	WL_SHARED_MAP,
	WL_NR
};

static const char *const wl_names[WL_NR + 1] = {
	[WL_SCAN_TWICE] = "scan-twice",
	[WL_ZIPF_READ] = "zipf-read",
	[WL_YCSB_F] = "ycsb-f",
	[WL_LOOP] = "loop",
	[WL_SCAN_HOT] = "scan-hot",
	[WL_YCSB_LOAD] = "ycsb-load",
	[WL_SHARED_MAP] = "shared-map",
	[WL_NR] = NULL,
};

/**
 * struct hs_workload - a prepared workload
 */
struct hs_workload {
	enum wl_kind	kind;		/* which one */
	int		fd;		/* the data file; -1 for ycsb-f */
	char		*path;		/* its path; NULL for ycsb-f */
	bool		created;	/* prepare made @path: hs_workload_free() unlinks it */
	struct hs_undo	*undo;		/* the undo note that has @path, or NULL */
	int		undo_seq;	/* its item there, or 0 */
	pid_t		owner;		/* getpid() of the preparing process */
	uint64_t	kdev;		/* the file's st_dev as major << 20 | minor */
	uint64_t	ino;		/* its inode number */
	uint64_t	size;		/* file size, or the anonymous working set, bytes */
	uint64_t	pages;		/* file pages, or the pages under the records */
	uint64_t	ops;		/* zipf-read / ycsb-f operations */
	uint64_t	records;	/* ycsb-f: size / record_size */
	uint64_t	hot_pages;	/* scan-hot, shared-map: pages 0 .. hot_pages - 1
					 * are hot */
	uint64_t	scan_chunks;	/* scan-hot, shared-map: whole 64 KiB chunks after
					 * them */
	unsigned int	procs;		/* shared-map: processes */
	uint64_t	seed;		/* PRNG seed, never 0 */
	double		theta;		/* zipf exponent, in (0, 10) */
	unsigned int	passes;		/* scan-twice / loop passes */
	unsigned int	record_size;	/* ycsb-f record bytes, 1 .. size */
	char		*json;		/* hs_workload_describe()'s text */
};

/* The touch log of one run: records waiting for their write(2). */
struct touch_log {
	int		fd;			/* the pipe; -1: discard */
	unsigned int	n;			/* records in @buf */
	bool		epipe;			/* a write failed with EPIPE */
	struct hs_touch	buf[WL_LOG_MAX];	/* the next write */
};

/* One-line reasons go through hs_msg() (lib/fileio.h). */
#define set_err hs_msg

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool is_file_kind(enum wl_kind k)
{
	return k != WL_YCSB_F && k != WL_YCSB_LOAD;
}

/* scan-hot and shared-map: a hot set at the start of the file, the rest scanned */
static bool is_hot_kind(enum wl_kind k)
{
	return k == WL_SCAN_HOT || k == WL_SHARED_MAP;
}

/**
 * hs_workload_names() - the built-in workloads
 *
 * Return: a NULL-terminated list of names, in the order of workload.h.
 */
const char *const *hs_workload_names(void)
{
	return wl_names;
}

/* ---- the data file ---- */

/* Pages of @fd (@size bytes) in the page cache, by mincore(2) on a mapping. */
static int cached_by_mincore(int fd, uint64_t size, uint64_t *cached)
{
	const uint64_t chunk = UINT64_C(1) << 30;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	uint64_t off, len, np, i;
	void *map;
	int e = 0;

	if (psz <= 0)
		return -EINVAL;
	vec = malloc(chunk / (uint64_t)psz);
	if (!vec)
		return -ENOMEM;
	*cached = 0;
	for (off = 0; off < size; off += chunk) {
		len = size - off < chunk ? size - off : chunk;
		map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)off);
		if (map == MAP_FAILED) {
			e = -errno;
			break;
		}
		np = (len + (uint64_t)psz - 1) / (uint64_t)psz;
		if (mincore(map, (size_t)len, vec)) {
			e = -errno;
			munmap(map, (size_t)len);
			break;
		}
		for (i = 0; i < np; i++)
			*cached += vec[i] & 1;
		munmap(map, (size_t)len);
	}
	free(vec);
	return e;
}

/* Pages of @fd in the page cache: cachestat(2), else mincore(2). */
static int cached_pages(int fd, uint64_t size, uint64_t *cached)
{
	int e = hs_cachestat(fd, cached);

	if (e != -ENOSYS)
		return e;
	return cached_by_mincore(fd, size, cached);
}

/*
 * Drop @fd's clean pages from the page cache and check that few stay
 * (none are expected: the file was fsynced and nobody maps it).
 */
static int drop_cache(int fd, uint64_t size, const char *path, char *err, size_t errlen)
{
	uint64_t cached = 0, pages = (size + WL_PAGE - 1) >> WL_PAGE_SHIFT;
	uint64_t allowed = 16 + pages / 64;
	int e, i;

	for (i = 0; i < WL_DROP_TRIES; i++) {
		e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (e) {
			set_err(err, errlen, "%s: posix_fadvise(DONTNEED): %s", path, strerror(e));
			return -e;
		}
		e = cached_pages(fd, size, &cached);
		if (e) {
			set_err(err, errlen, "%s: cannot count its cached pages: %s", path,
				strerror(-e));
			return e;
		}
		if (cached <= allowed)
			return 0;
	}
	set_err(err, errlen, "%s: %" PRIu64 " of %" PRIu64 " pages stay in the page cache after "
		"POSIX_FADV_DONTNEED", path, cached, pages);
	return -EIO;
}

/* Refuse a tmpfs: -EINVAL with the reason, 0, or -errno of statfs(2). */
static int check_not_tmpfs(const char *dir, char *err, size_t errlen)
{
	struct statfs sf;

	if (statfs(dir, &sf)) {
		int e = errno;

		set_err(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	if (sf.f_type == TMPFS_MAGIC) {
		set_err(err, errlen, "%s is a tmpfs: its pages are shmem, not page cache", dir);
		return -EINVAL;
	}
	return 0;
}

/* The directory of a created file: @dir, else $TMPDIR unless it is a tmpfs, else /var/tmp. */
static int pick_dir(const char *dir, const char **out, char *err, size_t errlen)
{
	const char *t = getenv("TMPDIR");
	struct statfs sf;
	int e;

	if (dir) {
		e = check_not_tmpfs(dir, err, errlen);
		*out = dir;
		return e;
	}
	if (t && *t && !statfs(t, &sf) && sf.f_type != TMPFS_MAGIC) {
		*out = t;
		return 0;
	}
	*out = "/var/tmp";
	return check_not_tmpfs(*out, err, errlen);
}

/* Write @size non-zero bytes to @fd from offset 0.  Return: 0 or -errno. */
static int fill_file(int fd, uint64_t size)
{
	uint64_t off = 0;
	size_t len;
	ssize_t r;
	char *buf;
	int e = 0;

	buf = malloc(WL_FILL_CHUNK);
	if (!buf)
		return -ENOMEM;
	memset(buf, WL_FILL_BYTE, WL_FILL_CHUNK);
	while (off < size) {
		len = size - off < WL_FILL_CHUNK ? (size_t)(size - off) : WL_FILL_CHUNK;
		r = pwrite(fd, buf, len, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			e = -errno;
			break;
		}
		if (r == 0) {
			e = -ENOSPC;
			break;
		}
		off += (uint64_t)r;
	}
	free(buf);
	return e;
}

/* Create, fill, fsync and drop the data file of @w (w->size bytes). */
static int create_file(struct hs_workload *w, const char *dir, char *err, size_t errlen)
{
	size_t plen = strlen(dir) + 64;
	int e;

	w->path = malloc(plen);
	if (!w->path) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(w->path, plen, "%s/hsctl_%ld_%s_XXXXXX", dir, (long)getpid(), wl_names[w->kind]);
	w->fd = mkostemp(w->path, O_CLOEXEC);
	if (w->fd < 0) {
		e = -errno;
		set_err(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
		return e;
	}
	w->created = true;
	w->owner = getpid();
	if (w->undo) {
		/* right after mkostemp() made the name: a killed recorder's file is found */
		struct hs_undo_item it = { .kind = HS_UNDO_FILE };

		snprintf(it.a, sizeof(it.a), "%s", w->path);
		e = hs_undo_add(w->undo, &it);
		if (e < 0) {
			set_err(err, errlen, "undo note %s: %s", hs_undo_path(w->undo),
				strerror(-e));
			return e;
		}
		w->undo_seq = e;
	}
	e = fill_file(w->fd, w->size);
	if (e) {
		if (e == -ENOSPC || e == -EDQUOT)
			set_err(err, errlen, "%s: no space left for a %" PRIu64 "-byte file", dir,
				w->size);
		else
			set_err(err, errlen, "write %s: %s", w->path, strerror(-e));
		return e;
	}
	if (fsync(w->fd)) {
		e = -errno;
		set_err(err, errlen, "fsync %s: %s", w->path, strerror(errno));
		return e;
	}
	return drop_cache(w->fd, w->size, w->path, err, errlen);
}

/* Open the user's file as it is: a regular file of a sane size, not on a tmpfs. */
static int open_file(struct hs_workload *w, const char *file, char *err, size_t errlen)
{
	struct statfs sf;
	struct stat st;
	int e;

	w->path = strdup(file);
	if (!w->path) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->fd = open(file, O_RDONLY | O_CLOEXEC);
	if (w->fd < 0) {
		e = -errno;
		set_err(err, errlen, "%s: %s", file, strerror(errno));
		return e;
	}
	if (fstat(w->fd, &st) || fstatfs(w->fd, &sf)) {
		e = -errno;
		set_err(err, errlen, "%s: %s", file, strerror(errno));
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(err, errlen, "%s: not a regular file", file);
		return -EINVAL;
	}
	if (sf.f_type == TMPFS_MAGIC) {
		set_err(err, errlen, "%s is on a tmpfs: its pages are shmem, not page cache", file);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size < WL_PAGE || (uint64_t)st.st_size > WL_MAX_SIZE) {
		set_err(err, errlen, "%s: %" PRIu64 " bytes: a data file must hold between one "
			"page (4096 bytes) and 1 TiB", file, (uint64_t)st.st_size);
		return -EINVAL;
	}
	w->size = (uint64_t)st.st_size;
	/*
	 * Make the first pass cold, as for a created file: write dirty pages
	 * out first (a file just written is still dirty, and DONTNEED leaves
	 * dirty pages cached, charged to whoever wrote them, outside the limit).
	 */
	(void)fdatasync(w->fd);	/* best effort: one that cannot be synced is read as it is */
	posix_fadvise(w->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

/* ---- describe ---- */

static int make_json(struct hs_workload *w)
{
	struct hs_json j;
	int err;

	err = hs_json_init_mem(&j, 0);
	if (err)
		return err;
	hs_json_object(&j);
	hs_json_key(&j, "workload");
	hs_json_str(&j, wl_names[w->kind]);
	if (is_file_kind(w->kind)) {
		hs_json_key(&j, "file");
		hs_json_str(&j, w->path);
		hs_json_key(&j, "created");
		hs_json_bool(&j, w->created);
	}
	hs_json_key(&j, "size");
	hs_json_uint(&j, w->size);
	hs_json_key(&j, "pages");
	hs_json_uint(&j, w->pages);
	switch (w->kind) {
	case WL_SCAN_TWICE:
	case WL_LOOP:
		hs_json_key(&j, "passes");
		hs_json_uint(&j, w->passes);
		break;
	case WL_SCAN_HOT:
	case WL_SHARED_MAP:
		hs_json_key(&j, "hot_pages");
		hs_json_uint(&j, w->hot_pages);
		hs_json_key(&j, "scan_pages");
		hs_json_uint(&j, w->scan_chunks * WL_CHUNK_PAGES);
		if (w->kind == WL_SHARED_MAP) {
			hs_json_key(&j, "procs");
			hs_json_uint(&j, w->procs);
		}
		hs_json_key(&j, "passes");
		hs_json_uint(&j, w->passes);
		hs_json_key(&j, "theta");
		hs_json_real(&j, w->theta);
		break;
	case WL_ZIPF_READ:
		hs_json_key(&j, "ops");
		hs_json_uint(&j, w->ops);
		hs_json_key(&j, "theta");
		hs_json_real(&j, w->theta);
		break;
	case WL_YCSB_F:
		hs_json_key(&j, "record_size");
		hs_json_uint(&j, w->record_size);
		hs_json_key(&j, "records");
		hs_json_uint(&j, w->records);
		hs_json_key(&j, "ops");
		hs_json_uint(&j, w->ops);
		hs_json_key(&j, "theta");
		hs_json_real(&j, w->theta);
		break;
	case WL_YCSB_LOAD:
		hs_json_key(&j, "record_size");
		hs_json_uint(&j, w->record_size);
		hs_json_key(&j, "ops");
		hs_json_uint(&j, w->ops);
		break;
	case WL_NR:
		break;
	}
	hs_json_key(&j, "seed");
	hs_json_uint(&j, w->seed);
	hs_json_end(&j);
	return hs_json_take(&j, &w->json);
}

/* ---- prepare ---- */

/* The numeric options into @w, checked.  Return: 0 or -EINVAL with the reason. */
static int resolve(struct hs_workload *w, const struct hs_workload_opts *o, char *err,
		   size_t errlen)
{
	w->size = o->size ? o->size : WL_DEF_SIZE;
	if (w->size < WL_PAGE || w->size > WL_MAX_SIZE) {
		set_err(err, errlen, "size %" PRIu64 ": must be between 4096 bytes (one page) and "
			"1 TiB", o->size);
		return -EINVAL;
	}
	w->theta = o->theta != 0.0 ? o->theta : is_hot_kind(w->kind) ? WL_HOT_THETA :
		   WL_DEF_THETA;
	if (!(w->theta > 0.0 && w->theta < 10.0)) {
		set_err(err, errlen, "theta %g: must be greater than 0 and less than 10", o->theta);
		return -EINVAL;
	}
	if (o->ops > WL_MAX_OPS) {
		set_err(err, errlen, "ops %" PRIu64 ": at most 1000000000000", o->ops);
		return -EINVAL;
	}
	if (o->passes > WL_MAX_PASSES) {
		set_err(err, errlen, "passes %u: at most %u", o->passes, WL_MAX_PASSES);
		return -EINVAL;
	}
	w->passes = o->passes ? o->passes : w->kind == WL_LOOP ? 3 :
		    is_hot_kind(w->kind) ? WL_HOT_PASSES : 2;
	if (o->procs > WL_MAX_PROCS) {
		set_err(err, errlen, "procs %u: at most %u", o->procs, WL_MAX_PROCS);
		return -EINVAL;
	}
	w->procs = o->procs ? o->procs : WL_DEF_PROCS;
	w->record_size = o->record_size ? o->record_size : WL_DEF_RECORD;
	if (w->kind == WL_YCSB_F) {
		if (o->file) {
			set_err(err, errlen,
				"file %s: ycsb-f works on anonymous memory, not a file", o->file);
			return -EINVAL;
		}
		if (w->record_size > w->size) {
			set_err(err, errlen, "record_size %u: larger than size %" PRIu64,
				w->record_size, w->size);
			return -EINVAL;
		}
	}
	if (w->kind == WL_YCSB_LOAD) {
		if (o->file) {
			set_err(err, errlen,
				"file %s: ycsb-load works on anonymous memory, not a file", o->file);
			return -EINVAL;
		}
		if (w->record_size > WL_PAGE) {
			set_err(err, errlen, "record_size %u: ycsb-load records are at most 4096 "
				"bytes (one page)", w->record_size);
			return -EINVAL;
		}
		if (w->size < 2 * WL_PAGE || (w->size >> WL_PAGE_SHIFT) > UINT32_MAX) {
			set_err(err, errlen, "size %" PRIu64 ": ycsb-load's arena must hold 2 "
				"to 2^32 - 1 pages", w->size);
			return -EINVAL;
		}
	}
	w->seed = o->seed ? o->seed : 1;
	return 0;
}

/* scan-hot, shared-map: the hot set and the whole chunks after it.  Return: 0 or -EINVAL. */
static int resolve_hot(struct hs_workload *w, const struct hs_workload_opts *o, char *err,
		       size_t errlen)
{
	uint64_t hot = o->hot_size ? o->hot_size : w->size / 8;

	w->hot_pages = hot >> WL_PAGE_SHIFT;
	if (w->hot_pages < 1 || hot >= w->size ||
	    (w->size >> WL_PAGE_SHIFT) - w->hot_pages < WL_CHUNK_PAGES) {
		set_err(err, errlen, "hot_size %" PRIu64 ": the hot set must be at least 4096 "
			"bytes and leave at least 64 KiB of the %" PRIu64 "-byte file to scan",
			hot, w->size);
		return -EINVAL;
	}
	w->scan_chunks = ((w->size >> WL_PAGE_SHIFT) - w->hot_pages) / WL_CHUNK_PAGES;
	return 0;
}

/**
 * hs_workload_prepare() - validate options and create the data file
 * @o: options
 * @out: the workload
 * @err: receives a one-line reason on failure
 * @errlen: its size
 *
 * Options that do not apply to the workload are ignored (ops for a scan,
 * passes for zipf-read, ...); @o->size is ignored when @o->file is given
 * (the file's own size counts).  Passes above a million are refused as
 * absurd.  A file given is used as it is, but its clean pages are dropped
 * from the page cache too, so the first pass is cold.  A created file is
 * named hsctl_<pid>_<workload>_XXXXXX.
 *
 * Return: 0; -EINVAL (unknown name, absurd option: the reason says which;
 * a tmpfs; a file that is not a regular file); -ENOENT / -EACCES (file or
 * dir); -ENOSPC; -ENOMEM; -EIO (pages that would not leave the cache).
 */
int hs_workload_prepare(const struct hs_workload_opts *o, struct hs_workload **out, char *err,
			size_t errlen)
{
	struct hs_workload *w;
	const char *dir;
	struct stat st;
	int k, e;

	*out = NULL;
	for (k = 0; k < WL_NR; k++)
		if (o->name && !strcmp(o->name, wl_names[k]))
			break;
	if (k == WL_NR) {
		set_err(err, errlen, "unknown workload '%s' (valid: scan-twice, zipf-read, ycsb-f, "
			"loop, scan-hot, ycsb-load, shared-map)", o->name ? o->name : "");
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->kind = (enum wl_kind)k;
	w->fd = -1;
	w->owner = getpid();
	w->undo = o->undo;
	e = resolve(w, o, err, errlen);
	if (e)
		goto out_free;
	if (is_file_kind(w->kind)) {
		if (o->file) {
			e = open_file(w, o->file, err, errlen);
		} else {
			e = pick_dir(o->dir, &dir, err, errlen);
			if (!e)
				e = create_file(w, dir, err, errlen);
		}
		if (e)
			goto out_free;
		if (fstat(w->fd, &st)) {
			e = -errno;
			set_err(err, errlen, "%s: %s", w->path, strerror(errno));
			goto out_free;
		}
		e = hs_decoder_dev_to_kdev(st.st_dev, &w->kdev);
		if (e) {
			set_err(err, errlen, "%s: device number out of the kernel's range",
				w->path);
			goto out_free;
		}
		w->ino = (uint64_t)st.st_ino;
		w->pages = (w->size + WL_PAGE - 1) >> WL_PAGE_SHIFT;
		if (is_hot_kind(w->kind)) {
			e = resolve_hot(w, o, err, errlen);
			if (e)
				goto out_free;
		}
	} else if (w->kind == WL_YCSB_LOAD) {
		w->pages = w->size >> WL_PAGE_SHIFT;	/* the arena */
	} else {
		w->records = w->size / w->record_size;
		w->pages = (w->records * w->record_size + WL_PAGE - 1) >> WL_PAGE_SHIFT;
	}
	w->ops = o->ops ? o->ops : w->kind == WL_YCSB_LOAD ? 3 * w->pages : 4 * w->pages;
	e = make_json(w);
	if (e) {
		set_err(err, errlen, "out of memory");
		goto out_free;
	}
	*out = w;
	return 0;

out_free:
	hs_workload_free(w);
	return e;
}

/**
 * hs_workload_describe() - the resolved options as a JSON object
 * @w: the workload
 *
 * Keys in this order: workload; file and created (file workloads); size,
 * pages; passes (scans), ops and theta (zipf-read), record_size, records,
 * ops and theta (ycsb-f), hot_pages, scan_pages, passes and theta
 * (scan-hot; shared-map with procs before passes), record_size and ops
 * (ycsb-load); seed.
 *
 * Return: e.g. {"workload":"scan-twice","file":"/var/tmp/...","created":true,
 * "size":209715200,"pages":51200,"passes":2,"seed":1}; valid until
 * hs_workload_free().
 */
const char *hs_workload_describe(const struct hs_workload *w)
{
	return w->json;
}

/**
 * hs_workload_file() - the data file's identity for the touch records
 * @w: the workload
 * @kdev: receives the kernel dev_t (major << 20 | minor) as tracepoints show it
 * @ino: receives the inode number
 *
 * Return: 0, or -ENOENT for anonymous workloads (ycsb-f, ycsb-load).
 */
int hs_workload_file(const struct hs_workload *w, uint64_t *kdev, uint64_t *ino)
{
	if (!is_file_kind(w->kind))
		return -ENOENT;
	*kdev = w->kdev;
	*ino = w->ino;
	return 0;
}

/**
 * hs_workload_mapped() - whether the touches go through a mapping
 * @w: the workload
 *
 * Return: true for ycsb-f, ycsb-load and shared-map, false for the others.
 */
bool hs_workload_mapped(const struct hs_workload *w)
{
	return !is_file_kind(w->kind) || w->kind == WL_SHARED_MAP;
}

/**
 * hs_workload_path() - the data file's path
 * @w: the workload
 *
 * Return: the path, or NULL for ycsb-f and ycsb-load.
 */
const char *hs_workload_path(const struct hs_workload *w)
{
	return w->path;
}

/**
 * hs_workload_pages() - pages the workload touches (file or working set)
 * @w: the workload
 *
 * Return: the file's pages (a partial last page counts), or for ycsb-f the
 * pages under its records, or for ycsb-load the arena's pages.
 */
uint64_t hs_workload_pages(const struct hs_workload *w)
{
	return w->pages;
}

/* ---- run ---- */

static int log_flush(struct touch_log *l)
{
	const char *p = (const char *)l->buf;
	size_t left = l->n * sizeof(struct hs_touch);
	struct pollfd pfd;
	ssize_t r;

	l->n = 0;
	while (left) {
		r = write(l->fd, p, left);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {	/* a non-blocking pipe: wait for room */
				pfd.fd = l->fd;
				pfd.events = POLLOUT;
				poll(&pfd, 1, -1);
				continue;
			}
			if (errno == EPIPE)
				l->epipe = true;
			return -errno;
		}
		p += r;
		left -= (size_t)r;
	}
	return 0;
}

static int log_touch(struct touch_log *l, uint64_t ts, uint64_t page, uint32_t flags)
{
	struct hs_touch *t;

	if (l->fd < 0)
		return 0;
	t = &l->buf[l->n++];
	t->ts_ns = ts;
	t->page = page;
	t->flags = flags;
	t->pad = 0;
	return l->n == WL_LOG_MAX ? log_flush(l) : 0;
}

/* Sequential read(2) passes over the file, one touch per page per read. */
static int run_scan(struct hs_workload *w, struct touch_log *l)
{
	uint64_t off, p, ts;
	unsigned int pass;
	ssize_t r;
	char *buf;
	int e = 0;

	buf = malloc(WL_READ_CHUNK);
	if (!buf)
		return -ENOMEM;
	for (pass = 0; pass < w->passes && !e; pass++) {
		if (lseek(w->fd, 0, SEEK_SET) < 0) {
			e = -errno;
			break;
		}
		off = 0;
		for (;;) {
			r = read(w->fd, buf, WL_READ_CHUNK);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				e = -errno;
				break;
			}
			if (r == 0)
				break;
			ts = now_ns();
			for (p = off >> WL_PAGE_SHIFT;
			     p <= (off + (uint64_t)r - 1) >> WL_PAGE_SHIFT && !e; p++)
				e = log_touch(l, ts, p, HS_TOUCH_FD);
			if (e)
				break;
			off += (uint64_t)r;
		}
	}
	free(buf);
	return e;
}

/* @ops pread(2)s of one page at zipfian page indexes (rank k: page k - 1). */
static int run_zipf_read(struct hs_workload *w, struct touch_log *l)
{
	struct hs_zipf z;
	struct hs_rng rng;
	uint64_t i, page;
	ssize_t r;
	char *buf;
	int e;

	e = hs_zipf_init(&z, w->pages, w->theta);
	if (e)
		return e;
	buf = malloc(WL_PAGE);
	if (!buf)
		return -ENOMEM;
	hs_rng_seed(&rng, w->seed);
	for (i = 0; i < w->ops && !e; i++) {
		page = hs_zipf_sample(&z, &rng) - 1;
		do
			r = pread(w->fd, buf, WL_PAGE, (off_t)(page << WL_PAGE_SHIFT));
		while (r < 0 && errno == EINTR);
		if (r < 0)
			e = -errno;
		else if (r == 0)
			e = -EIO;		/* the file shrank under us */
		else
			e = log_touch(l, now_ns(), page, HS_TOUCH_FD);
	}
	free(buf);
	return e;
}

/*
 * scan-hot: per pass, for every 64 KiB chunk after the hot set, 16 pread(2)s
 * of single hot pages (Zipf rank k: page k - 1), then one pread(2) of the
 * chunk.  One Zipf draw per hot read and nothing else from the PRNG, so
 * `hsctl gen scan-hot --keys HOT+SCAN --hot-keys HOT --alpha THETA` makes the
 * same pages.
 */
static int run_scan_hot(struct hs_workload *w, struct touch_log *l)
{
	uint64_t c, i, p, page, ts;
	unsigned int pass;
	struct hs_zipf z;
	struct hs_rng rng;
	ssize_t r;
	char *buf;
	int e;

	e = hs_zipf_init(&z, w->hot_pages, w->theta);
	if (e)
		return e;
	buf = malloc(WL_READ_CHUNK);
	if (!buf)
		return -ENOMEM;
	hs_rng_seed(&rng, w->seed);
	for (pass = 0; pass < w->passes && !e; pass++) {
		for (c = 0; c < w->scan_chunks && !e; c++) {
			for (i = 0; i < WL_CHUNK_PAGES && !e; i++) {
				page = hs_zipf_sample(&z, &rng) - 1;
				do
					r = pread(w->fd, buf, WL_PAGE,
						  (off_t)(page << WL_PAGE_SHIFT));
				while (r < 0 && errno == EINTR);
				if (r < 0)
					e = -errno;
				else if (r == 0)
					e = -EIO;
				else
					e = log_touch(l, now_ns(), page, HS_TOUCH_FD);
			}
			if (e)
				break;
			page = w->hot_pages + c * WL_CHUNK_PAGES;
			do
				r = pread(w->fd, buf, WL_READ_CHUNK,
					  (off_t)(page << WL_PAGE_SHIFT));
			while (r < 0 && errno == EINTR);
			if (r < 0)
				e = -errno;
			else if (r < (ssize_t)WL_READ_CHUNK)
				e = -EIO;	/* the file shrank under us */
			ts = now_ns();
			for (p = 0; p < WL_CHUNK_PAGES && !e; p++)
				e = log_touch(l, ts, page + p, HS_TOUCH_FD);
		}
	}
	free(buf);
	return e;
}

/*
 * ycsb-load: @ops inserts into lib/gen.c's B+tree, its arena an anonymous
 * mapping of @pages pages: the tree reads and writes its nodes there, and
 * each record is written there (bytes of the insert's number).  Every touch
 * the tree reports is logged at base + arena page, after the insert.  A
 * full arena ends the run early, as a success.
 */
static int run_ycsb_load(struct hs_workload *w, struct touch_log *l)
{
	size_t len = (size_t)(w->pages << WL_PAGE_SHIFT);
	const struct hs_btload_touch *t;
	struct hs_btload *b;
	unsigned char *mem;
	uint64_t base, i, rec, ts;
	int n, k, e;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -errno;
	base = (uint64_t)(uintptr_t)mem >> WL_PAGE_SHIFT;
	e = hs_btload_new(mem, w->pages, w->record_size, w->seed, &b);
	for (i = 0; i < w->ops && !e; i++) {
		n = hs_btload_insert(b, &t, &rec);
		if (n == -ENOSPC)
			break;
		if (n < 0) {
			e = n;
			break;
		}
		memset(mem + rec, (int)(1 + i % 251), w->record_size);
		ts = now_ns();
		for (k = 0; k < n && !e; k++)
			e = log_touch(l, ts, base + t[k].page,
				      HS_TOUCH_ANON | (t[k].write ? HS_TOUCH_WRITE : 0));
	}
	hs_btload_free(b);
	munmap(mem, len);
	return e;
}

/*
 * shared-map, one process's part: map the file (MAP_SHARED, read-only) and
 * advise MADV_RANDOM on the scanned part only, which splits the mapping in
 * two: the scan faults read their own page, not a read-around window (8 MiB
 * with a read_ahead_kb of 8192, more than a small limit holds), while the
 * hot part keeps its recency (the kernel's folio_referenced() ignores the
 * young PTEs of a MADV_RANDOM or MADV_SEQUENTIAL mapping, vma_has_recency(),
 * and the hot set's young PTEs are what this workload is about); then for
 * every turn t = @idx, @idx + procs, ... below @turns: wait for
 * the token on @in (turn 0 and a lone process need none), load one byte of
 * 16 hot pages drawn by Zipf from this process's own PRNG (seed + @idx;
 * rank k: page k - 1), then one byte of each page of scan chunk
 * t mod scan_chunks, log the 32 touches (the scan's HS_TOUCH_NORECENCY: its
 * mapping has no recency, so the kernel models take them as unseen), flush
 * the log (so the log keeps the turns' order) and pass the token on @out.  Return: 0, -errno, or
 * -ECONNABORTED when the token's pipe closed (a process before us stopped).
 */
static int shared_map_turns(struct hs_workload *w, struct touch_log *l, unsigned int idx,
			    uint64_t turns, int in, int out)
{
	volatile const unsigned char *map;	/* volatile: every load is made */
	volatile unsigned char sink = 0;
	uint64_t t, i, page;
	struct hs_zipf z;
	struct hs_rng rng;
	void *m;
	char tok = 't';
	ssize_t r;
	int e;

	e = hs_zipf_init(&z, w->hot_pages, w->theta);
	if (e)
		return e;
	m = mmap(NULL, (size_t)w->size, PROT_READ, MAP_SHARED, w->fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	map = m;
	(void)madvise((char *)m + (w->hot_pages << WL_PAGE_SHIFT),	/* advice only */
		      (size_t)(w->size - (w->hot_pages << WL_PAGE_SHIFT)), MADV_RANDOM);
	hs_rng_seed(&rng, w->seed + idx);
	for (t = idx; t < turns && !e; t += w->procs) {
		if (t && w->procs > 1) {
			do
				r = read(in, &tok, 1);
			while (r < 0 && errno == EINTR);
			if (r <= 0) {
				e = r < 0 ? -errno : -ECONNABORTED;
				break;
			}
		}
		for (i = 0; i < WL_CHUNK_PAGES && !e; i++) {
			page = hs_zipf_sample(&z, &rng) - 1;
			sink = (unsigned char)(sink + map[page << WL_PAGE_SHIFT]);
			e = log_touch(l, now_ns(), page, 0);
		}
		page = w->hot_pages + (t % w->scan_chunks) * WL_CHUNK_PAGES;
		for (i = 0; i < WL_CHUNK_PAGES && !e; i++) {
			sink = (unsigned char)(sink + map[(page + i) << WL_PAGE_SHIFT]);
			e = log_touch(l, now_ns(), page + i, HS_TOUCH_NORECENCY);
		}
		if (!e && l->fd >= 0 && l->n)
			e = log_flush(l);
		if (!e && t + 1 < turns && w->procs > 1) {
			do
				r = write(out, &tok, 1);
			while (r < 0 && errno == EINTR);
			if (r < 0)
				e = -errno;
		}
	}
	munmap(m, (size_t)w->size);
	(void)sink;
	return e;
}

/* Close every ring pipe end but process @idx's read end and its successor's write end. */
static void ring_keep(int (*ring)[2], unsigned int n, unsigned int idx)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i != idx)
			close(ring[i][0]);
		if (i != (idx + 1) % n)
			close(ring[i][1]);
	}
}

/*
 * shared-map: @procs processes, this one (number 0) and procs - 1 forked
 * children, each with its own mapping of the file, take turns around a
 * ring of pipes (process i reads the token from pipe i and passes it on
 * pipe i + 1 mod procs), as shared_map_turns() says: the stream is
 * `hsctl gen shared-map`'s with the same sizes, and a hot page is touched
 * through several page tables.  A child ends with _exit(-errno); one that
 * fails closes its ring ends, so the next one sees end of file and stops
 * too, and so on around the ring.  Return: 0, or the first failure, a
 * child's rather than the end of file it caused.
 */
static int run_shared_map(struct hs_workload *w, struct touch_log *l)
{
	uint64_t turns = (uint64_t)w->passes * w->scan_chunks;
	int (*ring)[2] = NULL;
	unsigned int i, made = 0;
	pid_t *pid = NULL;
	int e = 0, ce = 0, st;

	if (w->procs == 1)
		return shared_map_turns(w, l, 0, turns, -1, -1);
	ring = calloc(w->procs, sizeof(*ring));
	pid = calloc(w->procs, sizeof(*pid));
	if (!ring || !pid) {
		e = -ENOMEM;
		goto out;
	}
	for (i = 0; i < w->procs; i++) {
		if (pipe2(ring[i], O_CLOEXEC)) {
			e = -errno;
			while (i--) {
				close(ring[i][0]);
				close(ring[i][1]);
			}
			goto out;
		}
	}
	for (i = 1; i < w->procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			e = -errno;
			break;
		}
		if (!pid[i]) {
			ring_keep(ring, w->procs, i);
			e = shared_map_turns(w, l, i, turns, ring[i][0],
					     ring[(i + 1) % w->procs][1]);
			_exit(e ? (-e & 0xff) : 0);
		}
		made++;
	}
	ring_keep(ring, w->procs, 0);
	if (!e)
		e = shared_map_turns(w, l, 0, turns, ring[0][0], ring[1][1]);
	close(ring[0][0]);	/* a child waiting on us sees end of file */
	close(ring[1][1]);
	for (i = 1; i <= made; i++) {
		while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!ce && WIFEXITED(st) && WEXITSTATUS(st) && WEXITSTATUS(st) != ECONNABORTED)
			ce = -WEXITSTATUS(st);
		else if (!ce && WIFSIGNALED(st))
			ce = -EINTR;
	}
	if (ce && (!e || e == -ECONNABORTED))
		e = ce;
out:
	free(ring);
	free(pid);
	return e;
}

/*
 * YCSB workload F on anonymous memory: load every record in order, then
 * @ops operations on zipfian records (rank k: record k - 1), half reads,
 * half read-modify-writes.
 */
static int run_ycsb_f(struct hs_workload *w, struct touch_log *l)
{
	const uint64_t rs = w->record_size;
	size_t len = (size_t)(w->pages << WL_PAGE_SHIFT);
	uint64_t base, i, r, first, last, pg, logged = 0;
	volatile unsigned char sink = 0;
	unsigned char *mem, *rec, v;
	struct hs_rng rng;
	struct hs_zipf z;
	bool rmw;
	int e;

	e = hs_zipf_init(&z, w->records, w->theta);
	if (e)
		return e;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -errno;
	base = (uint64_t)(uintptr_t)mem >> WL_PAGE_SHIFT;

	/* load: each page is logged once, when the first record on it is written */
	for (r = 0; r < w->records && !e; r++) {
		memset(mem + r * rs, (int)(1 + r % 251), rs);
		first = (r * rs) >> WL_PAGE_SHIFT;
		last = (r * rs + rs - 1) >> WL_PAGE_SHIFT;
		for (pg = first; pg <= last && !e; pg++) {
			if (pg < logged)
				continue;
			e = log_touch(l, now_ns(), base + pg, HS_TOUCH_ANON | HS_TOUCH_WRITE);
			logged = pg + 1;
		}
	}

	/* run: read one byte of every page of the record, and write it back for RMW */
	hs_rng_seed(&rng, w->seed);
	for (i = 0; i < w->ops && !e; i++) {
		r = hs_zipf_sample(&z, &rng) - 1;
		rmw = hs_rng_next(&rng) >> 63;
		rec = mem + r * rs;
		first = (r * rs) >> WL_PAGE_SHIFT;
		last = (r * rs + rs - 1) >> WL_PAGE_SHIFT;
		v = 0;
		for (pg = first; pg <= last; pg++) {
			uint64_t at = pg == first ? r * rs : pg << WL_PAGE_SHIFT;

			v = (unsigned char)(v + mem[at]);
		}
		sink = (unsigned char)(sink + v);
		if (rmw)
			memset(rec, (int)(v | 1), rs);
		for (pg = first; pg <= last && !e; pg++)
			e = log_touch(l, now_ns(), base + pg,
				      HS_TOUCH_ANON | (rmw ? HS_TOUCH_WRITE : 0));
	}
	(void)sink;
	munmap(mem, len);
	return e;
}

/**
 * hs_workload_run() - run it (in the child, after joining the cgroup)
 * @w: the workload
 * @log_fd: where struct hs_touch records go (a pipe), or -1 for none
 *
 * Writes touches in batches of at most 170 records (4080 bytes, within
 * PIPE_BUF), so each write(2) to a pipe is atomic; a batch goes out when it
 * is full and at the end.  A non-blocking @log_fd is waited on with poll(2).
 * SIGPIPE is blocked in the calling thread for the run (and a SIGPIPE the
 * run itself raised is consumed before the old mask comes back), so a log
 * reader going away ends the run with -EPIPE instead of killing the
 * process; no signal disposition is changed.  File workloads move the
 * prepared file descriptor's offset: do not run one prepared workload in
 * two processes at once.
 *
 * Return: 0 on success, or -errno of the first failure (-EPIPE: the log's
 * reader went away, the run stopped early).
 */
int hs_workload_run(struct hs_workload *w, int log_fd)
{
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old, pend;
	struct touch_log *l;
	bool was_pending;
	int e;

	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->fd = log_fd;
	l->n = 0;
	l->epipe = false;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigemptyset(&pend);
	sigpending(&pend);
	was_pending = sigismember(&pend, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);

	switch (w->kind) {
	case WL_SCAN_TWICE:
	case WL_LOOP:
		e = run_scan(w, l);
		break;
	case WL_ZIPF_READ:
		e = run_zipf_read(w, l);
		break;
	case WL_YCSB_F:
		e = run_ycsb_f(w, l);
		break;
	case WL_SCAN_HOT:
		e = run_scan_hot(w, l);
		break;
	case WL_YCSB_LOAD:
		e = run_ycsb_load(w, l);
		break;
	case WL_SHARED_MAP:
		e = run_shared_map(w, l);
		break;
	default:
		e = -EINVAL;
		break;
	}
	if (!e && l->fd >= 0 && l->n)
		e = log_flush(l);

	if (l->epipe && !was_pending)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(l);
	return e;
}

/**
 * hs_workload_free() - unlink a created file and free
 * @w: the workload, or NULL
 *
 * Only the process that prepared @w unlinks (a forked child's copy does not).
 *
 * Return: nothing.
 */
void hs_workload_free(struct hs_workload *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->created && w->owner == getpid() && (!unlink(w->path) || errno == ENOENT))
		hs_undo_done(w->undo, w->undo_seq);
	free(w->path);
	free(w->json);
	free(w);
}
