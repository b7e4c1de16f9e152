/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault injection (lib/fault.h), compiled only with --enable-fault-injection.
 * It exists to prove that every failure of an allocation or a write ends a
 * command cleanly: a one-line error, a documented exit status, no leak, no
 * partial session, a database that passes its integrity check.
 *
 * What is counted.  hsctl's own allocations reach it through the linker:
 * configure adds -Wl,--wrap=malloc (and calloc, realloc, strdup, asprintf) to
 * every link, so each call in hsctl's objects goes to __wrap_malloc() here,
 * which counts it and either fails it or calls the real malloc.  That works
 * the same under AddressSanitizer, whose malloc is the "real" one the wrapper
 * calls; allocations inside libc, zlib, libtraceevent are not counted (their
 * calls are not in our objects).  SQLite's allocations are counted through
 * sqlite3_config(SQLITE_CONFIG_MALLOC): its default methods wrapped by ones
 * that ask the same counter first.  Writes are counted in a VFS shim that
 * SQLite uses by default: it delegates every call to the default VFS and
 * fails xWrite with SQLITE_FULL (a full disk, the common case), xSync and
 * xTruncate with SQLITE_IOERR_FSYNC / _TRUNCATE; and in wrappers of fwrite,
 * fflush, fclose, gzwrite and gzclose for the files hsctl writes itself
 * (standard output, export), which fail with ENOSPC.  A wrapped close still
 * closes: only its result is the failure.
 *
 * One counter per kind, from process start (or hs_fault_set(), which a
 * test calls once its set-up is done); HSCTL_FAULT_PERSIST=1 fails every
 * counted call from the Nth on, as real exhaustion does.  With no
 * HSCTL_FAULT_* variable set the module is inactive: each wrapper costs one
 * predictable branch and SQLite runs with its own methods, untouched.
 * HSCTL_FAULT_REPORT=FILE writes "allocs ios fired" there at exit, so a test
 * learns how far to count (HSCTL_FAULT_ALLOC=0 counts without failing).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zlib.h>

#include "fault.h"
#include "hs.h"

static bool active;			/* some HSCTL_FAULT_* variable is set */
static atomic_bool paused;		/* hs_fault_pause() until hs_fault_set() */
static bool persist;			/* fail from the Nth call on */
static uint64_t alloc_at, io_at;	/* the N of each kind; 0: never fail */
static atomic_uint_fast64_t nr_allocs, nr_ios, nr_fired;

/* Count one call of a kind; true when it is to fail. */
static bool fault_hit(atomic_uint_fast64_t *counter, uint64_t at)
{
	uint64_t n;

	if (likely(!active) || atomic_load_explicit(&paused, memory_order_relaxed))
		return false;
	n = atomic_fetch_add_explicit(counter, 1, memory_order_relaxed) + 1;
	if (!at || n < at || (n > at && !persist))
		return false;
	atomic_fetch_add_explicit(&nr_fired, 1, memory_order_relaxed);
	return true;
}

static bool fault_alloc(void)
{
	return fault_hit(&nr_allocs, alloc_at);
}

/* Count a write; true when it is the one (persistent: one of those) to fail. */
static bool fault_io(void)
{
	return fault_hit(&nr_ios, io_at);
}

/**
 * hs_fault_pause() - stop counting and failing until hs_fault_set()
 *
 * For a test's set-up, which must not fail.
 *
 * Return: nothing.
 */
void hs_fault_pause(void)
{
	atomic_store(&paused, true);
}

/**
 * hs_fault_set() - choose the fault anew and count from zero
 * @alloc: fail the @alloc-th allocation from now (0: none)
 * @io: fail the @io-th write from now (0: none)
 * @persist_from: fail every counted call from the chosen one on
 *
 * For a test that loops in one process (tests/t-faults.c); it works only
 * when the module is active, that is some HSCTL_FAULT_* variable was set at
 * start-up (SQLite's hooks go in before anything opens a database).
 *
 * Return: 0, or -ENOSYS when the module is inactive.
 */
int hs_fault_set(uint64_t alloc, uint64_t io, bool persist_from)
{
	if (!active)
		return -ENOSYS;
	atomic_store(&paused, true);
	alloc_at = alloc;
	io_at = io;
	persist = persist_from;
	atomic_store(&nr_allocs, 0);
	atomic_store(&nr_ios, 0);
	atomic_store(&nr_fired, 0);
	atomic_store(&paused, false);
	return 0;
}

/**
 * hs_fault_get_stats() - the counts so far
 * @out: receives them
 *
 * Return: nothing.
 */
void hs_fault_get_stats(struct hs_fault_stats *out)
{
	out->allocs = atomic_load(&nr_allocs);
	out->ios = atomic_load(&nr_ios);
	out->fired = atomic_load(&nr_fired);
}

/* ---- hsctl's own allocations and writes (-Wl,--wrap=SYMBOL) ---- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *ptr, size_t size);
char *__real_strdup(const char *s);
size_t __real_fwrite(const void *ptr, size_t size, size_t nmemb, FILE *fp);
int __real_fflush(FILE *fp);
int __real_fclose(FILE *fp);
int __real_gzwrite(gzFile file, voidpc buf, unsigned int len);
int __real_gzclose(gzFile file);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
char *__wrap_strdup(const char *s);
int __wrap_asprintf(char **strp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t __wrap_fwrite(const void *ptr, size_t size, size_t nmemb, FILE *fp);
int __wrap_fflush(FILE *fp);
int __wrap_fclose(FILE *fp);
int __wrap_gzwrite(gzFile file, voidpc buf, unsigned int len);
int __wrap_gzclose(gzFile file);

void *__wrap_malloc(size_t size)
{
	if (fault_alloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (fault_alloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
	if (fault_alloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(ptr, size);
}

char *__wrap_strdup(const char *s)
{
	if (fault_alloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

int __wrap_asprintf(char **strp, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (fault_alloc()) {
		errno = ENOMEM;
		return -1;
	}
	va_start(ap, fmt);
	n = vasprintf(strp, fmt, ap);
	va_end(ap);
	return n;
}

/* Mark @fp failed as a real write error would, so ferror() sees it. */
static void set_ferror(FILE *fp)
{
#ifdef _IO_ERR_SEEN
	fp->_flags |= _IO_ERR_SEEN;
#else
	(void)fp;
#endif
	errno = ENOSPC;
}

size_t __wrap_fwrite(const void *ptr, size_t size, size_t nmemb, FILE *fp)
{
	if (fault_io()) {
		set_ferror(fp);
		return 0;
	}
	return __real_fwrite(ptr, size, nmemb, fp);
}

int __wrap_fflush(FILE *fp)
{
	if (fp && fault_io()) {
		set_ferror(fp);
		return EOF;
	}
	return __real_fflush(fp);
}

int __wrap_fclose(FILE *fp)
{
	bool fail = fault_io();
	int ret = __real_fclose(fp);

	if (fail) {
		errno = ENOSPC;
		return EOF;
	}
	return ret;
}

int __wrap_gzwrite(gzFile file, voidpc buf, unsigned int len)
{
	if (fault_io()) {
		errno = ENOSPC;
		return 0;
	}
	return __real_gzwrite(file, buf, len);
}

int __wrap_gzclose(gzFile file)
{
	bool fail = fault_io();
	int ret = __real_gzclose(file);

	if (fail) {
		errno = ENOSPC;
		return Z_ERRNO;
	}
	return ret;
}

/* ---- SQLite's allocations ---- */

static sqlite3_mem_methods sqlite_mem;	/* SQLite's defaults */

static void *mem_malloc(int n)
{
	return fault_alloc() ? NULL : sqlite_mem.xMalloc(n);
}

static void *mem_realloc(void *p, int n)
{
	return fault_alloc() ? NULL : sqlite_mem.xRealloc(p, n);
}

static void mem_free(void *p)
{
	sqlite_mem.xFree(p);
}

static int mem_size(void *p)
{
	return sqlite_mem.xSize(p);
}

static int mem_roundup(int n)
{
	return sqlite_mem.xRoundup(n);
}

static int mem_init(void *app)
{
	return sqlite_mem.xInit(app);
}

static void mem_shutdown(void *app)
{
	sqlite_mem.xShutdown(app);
}

/* ---- SQLite's writes: a VFS shim over the default one ---- */

/**
 * struct fault_file - an open file of the shim
 * @base:	what SQLite sees; its pMethods is fault_io_methods
 * @real:	the default VFS's file, allocated right behind this struct
 */
struct fault_file {
	sqlite3_file	base;
	sqlite3_file	*real;
};

static sqlite3_vfs *real_vfs;

static sqlite3_file *real_of(sqlite3_file *f)
{
	return ((struct fault_file *)f)->real;
}

static int f_close(sqlite3_file *f)
{
	return real_of(f)->pMethods->xClose(real_of(f));
}

static int f_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 ofs)
{
	return real_of(f)->pMethods->xRead(real_of(f), buf, amt, ofs);
}

static int f_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 ofs)
{
	if (fault_io())
		return SQLITE_FULL;
	return real_of(f)->pMethods->xWrite(real_of(f), buf, amt, ofs);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	if (fault_io())
		return SQLITE_IOERR_TRUNCATE;
	return real_of(f)->pMethods->xTruncate(real_of(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	if (fault_io())
		return SQLITE_IOERR_FSYNC;
	return real_of(f)->pMethods->xSync(real_of(f), flags);
}

static int f_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return real_of(f)->pMethods->xFileSize(real_of(f), size);
}

static int f_lock(sqlite3_file *f, int lock)
{
	return real_of(f)->pMethods->xLock(real_of(f), lock);
}

static int f_unlock(sqlite3_file *f, int lock)
{
	return real_of(f)->pMethods->xUnlock(real_of(f), lock);
}

static int f_check_reserved_lock(sqlite3_file *f, int *out)
{
	return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}

static int f_file_control(sqlite3_file *f, int op, void *arg)
{
	return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}

static int f_sector_size(sqlite3_file *f)
{
	return real_of(f)->pMethods->xSectorSize(real_of(f));
}

static int f_device_characteristics(sqlite3_file *f)
{
	return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}

static int f_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
	return real_of(f)->pMethods->xShmMap(real_of(f), pg, pgsz, extend, pp);
}

static int f_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	real_of(f)->pMethods->xShmBarrier(real_of(f));
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
	return real_of(f)->pMethods->xShmUnmap(real_of(f), del);
}

static int f_fetch(sqlite3_file *f, sqlite3_int64 ofs, int amt, void **pp)
{
	return real_of(f)->pMethods->xFetch(real_of(f), ofs, amt, pp);
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 ofs, void *p)
{
	return real_of(f)->pMethods->xUnfetch(real_of(f), ofs, p);
}

/* Version 3 methods: the unix VFS's files have all of them (checked at open). */
static const sqlite3_io_methods fault_io_methods = {
	.iVersion = 3,
	.xClose = f_close,
	.xRead = f_read,
	.xWrite = f_write,
	.xTruncate = f_truncate,
	.xSync = f_sync,
	.xFileSize = f_file_size,
	.xLock = f_lock,
	.xUnlock = f_unlock,
	.xCheckReservedLock = f_check_reserved_lock,
	.xFileControl = f_file_control,
	.xSectorSize = f_sector_size,
	.xDeviceCharacteristics = f_device_characteristics,
	.xShmMap = f_shm_map,
	.xShmLock = f_shm_lock,
	.xShmBarrier = f_shm_barrier,
	.xShmUnmap = f_shm_unmap,
	.xFetch = f_fetch,
	.xUnfetch = f_unfetch,
};

static int v_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags,
		  int *out_flags)
{
	struct fault_file *ff = (struct fault_file *)f;
	int rc;

	(void)vfs;
	ff->real = (sqlite3_file *)(ff + 1);
	rc = real_vfs->xOpen(real_vfs, name, ff->real, flags, out_flags);
	if (ff->real->pMethods && ff->real->pMethods->iVersion < 3) {
		/* a file without the methods fault_io_methods forwards: cannot shim it */
		ff->real->pMethods->xClose(ff->real);
		ff->base.pMethods = NULL;
		return SQLITE_CANTOPEN;
	}
	/* SQLite calls xClose whenever pMethods is set, even after a failed xOpen */
	ff->base.pMethods = ff->real->pMethods ? &fault_io_methods : NULL;
	return rc;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	(void)vfs;
	return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int v_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return real_vfs->xFullPathname(real_vfs, name, n, out);
}

static void *v_dl_open(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xDlOpen(real_vfs, name);
}

static void v_dl_error(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	real_vfs->xDlError(real_vfs, n, msg);
}

static void (*v_dl_sym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return real_vfs->xDlSym(real_vfs, h, sym);
}

static void v_dl_close(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	real_vfs->xDlClose(real_vfs, h);
}

static int v_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return real_vfs->xRandomness(real_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return real_vfs->xSleep(real_vfs, us);
}

static int v_current_time(sqlite3_vfs *vfs, double *out)
{
	(void)vfs;
	return real_vfs->xCurrentTime(real_vfs, out);
}

static int v_get_last_error(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	return real_vfs->xGetLastError(real_vfs, n, msg);
}

static int v_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
	(void)vfs;
	return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

static sqlite3_vfs fault_vfs = {
	.iVersion = 2,
	.zName = "hsctl-fault",
	.xOpen = v_open,
	.xDelete = v_delete,
	.xAccess = v_access,
	.xFullPathname = v_full_pathname,
	.xDlOpen = v_dl_open,
	.xDlError = v_dl_error,
	.xDlSym = v_dl_sym,
	.xDlClose = v_dl_close,
	.xRandomness = v_randomness,
	.xSleep = v_sleep,
	.xCurrentTime = v_current_time,
	.xGetLastError = v_get_last_error,
	.xCurrentTimeInt64 = v_current_time_int64,
};

/* ---- start-up and the report ---- */

/* An environment number; 0 when unset or not one. */
static uint64_t env_u64(const char *name, bool *set)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return 0;
	*set = true;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || *end ? 0 : (uint64_t)v;
}

/* Install SQLite's hooks before anything opens a database; a failure leaves it unshimmed. */
static void install_sqlite(void)
{
	static sqlite3_mem_methods mem;

	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_mem) == SQLITE_OK) {
		mem = (sqlite3_mem_methods) {
			.xMalloc = mem_malloc, .xFree = mem_free, .xRealloc = mem_realloc,
			.xSize = mem_size, .xRoundup = mem_roundup, .xInit = mem_init,
			.xShutdown = mem_shutdown, .pAppData = sqlite_mem.pAppData,
		};
		sqlite3_config(SQLITE_CONFIG_MALLOC, &mem);
	}
	real_vfs = sqlite3_vfs_find(NULL);
	if (!real_vfs)
		return;
	fault_vfs.szOsFile = (int)sizeof(struct fault_file) + real_vfs->szOsFile;
	fault_vfs.mxPathname = real_vfs->mxPathname;
	sqlite3_vfs_register(&fault_vfs, 1);
}

__attribute__((constructor)) static void fault_init(void)
{
	bool set = false;

	alloc_at = env_u64("HSCTL_FAULT_ALLOC", &set);
	io_at = env_u64("HSCTL_FAULT_IO", &set);
	persist = env_u64("HSCTL_FAULT_PERSIST", &set) != 0;
	if (getenv("HSCTL_FAULT_REPORT"))
		set = true;
	if (!set)
		return;
	install_sqlite();	/* its own allocations are not counted: active is still false */
	active = true;
}

__attribute__((destructor)) static void fault_report(void)
{
	const char *path = getenv("HSCTL_FAULT_REPORT");
	struct hs_fault_stats s;
	char line[96];
	int fd, n;

	if (!active || !path || !*path)
		return;
	hs_fault_get_stats(&s);
	n = snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s.allocs,
		     s.ios, s.fired);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		n = -1;
	close(fd);
}
