/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LD_PRELOAD shim that lets Debian's trace-cmd 3.1.6 record events under a
 * kernel lockdown that forbids the function tracer (bench/record uses it;
 * not part of hsctl).  On such a kernel opening set_ftrace_filter,
 * set_ftrace_pid, ftrace_enabled and their kin fails with EPERM, and
 * trace-cmd either dies ("opening to .../set_ftrace_filter" while it clears
 * the function filters) or, in the forked command's child, dereferences the
 * NULL it got from reading set_ftrace_pid.  Event tracing does not need any
 * of these files, so every open of one of them is answered with /dev/null
 * instead: writes vanish, reads are empty, and trace-cmd goes on with its
 * event-only recording without touching the function tracer at all (so it
 * no longer flips options/function-trace to 0 either).  Interposed: the
 * open family and fopen, including the _FORTIFY_SOURCE entry points
 * (__open_2, __open64_2) that trace-cmd and libtracefs import.  stat() is
 * left alone: the files exist, only opening them is refused.  Set
 * HIDE_FTRACE_LOG=1 to have each redirected path printed on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Path endings of the function-tracer files (tracefs, any instance, and procfs). */
static const char *const hidden[] = {
	"/set_ftrace_filter",
	"/set_ftrace_notrace",
	"/set_ftrace_pid",
	"/set_ftrace_notrace_pid",
	"/set_graph_function",
	"/set_graph_notrace",
	"/options/function-trace",
	"/options/function-fork",
	"/sys/kernel/ftrace_enabled",
	"/sys/kernel/stack_tracer_enabled",
};

static bool is_hidden(const char *path)
{
	size_t len, n;
	unsigned int i;

	if (!path)
		return false;
	len = strlen(path);
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		n = strlen(hidden[i]);
		if (len >= n && !strcmp(path + len - n, hidden[i]))
			return true;
	}
	return false;
}

static void note(const char *path)
{
	const char *v = getenv("HIDE_FTRACE_LOG");
	int saved = errno;

	if (v && *v && strcmp(v, "0"))
		dprintf(2, "hide-ftrace: %s -> /dev/null\n", path);
	errno = saved;
}

/* Open /dev/null in the caller's access mode; creation and truncation flags are dropped. */
static int open_null(const char *path, int flags)
{
	note(path);
	return (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", flags & (O_ACCMODE | O_CLOEXEC));
}

/* The mode argument of open(2), present only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)						\
	do {								\
		va_list ap;						\
									\
		(mode) = 0;						\
		if ((flags) & (O_CREAT | O_TMPFILE)) {			\
			va_start(ap, flags);				\
			(mode) = (mode_t)va_arg(ap, int);		\
			va_end(ap);					\
		}							\
	} while (0)

/* The next definition of @name (libc's), found once. */
static void *next(void **slot, const char *name)
{
	if (!*slot)
		*slot = dlsym(RTLD_NEXT, name);
	if (!*slot) {
		dprintf(2, "hide-ftrace: %s: %s\n", name, dlerror());
		abort();
	}
	return *slot;
}

int open(const char *path, int flags, ...)
{
	static void *real;
	mode_t mode;

	OPEN_MODE(flags, mode);
	if (is_hidden(path))
		return open_null(path, flags);
	return ((int (*)(const char *, int, ...))next(&real, "open"))(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static void *real;
	mode_t mode;

	OPEN_MODE(flags, mode);
	if (is_hidden(path))
		return open_null(path, flags);
	return ((int (*)(const char *, int, ...))next(&real, "open64"))(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static void *real;
	mode_t mode;

	OPEN_MODE(flags, mode);
	if (is_hidden(path))
		return open_null(path, flags);
	return ((int (*)(int, const char *, int, ...))next(&real, "openat"))(dirfd, path, flags,
									   mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	static void *real;
	mode_t mode;

	OPEN_MODE(flags, mode);
	if (is_hidden(path))
		return open_null(path, flags);
	return ((int (*)(int, const char *, int, ...))next(&real, "openat64"))(dirfd, path, flags,
									     mode);
}

/* _FORTIFY_SOURCE's checked open without a mode (glibc's <bits/fcntl2.h>). */
int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	static void *real;

	if (is_hidden(path))
		return open_null(path, flags);
	return ((int (*)(const char *, int))next(&real, "__open_2"))(path, flags);
}

int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags)
{
	static void *real;

	if (is_hidden(path))
		return open_null(path, flags);
	return ((int (*)(const char *, int))next(&real, "__open64_2"))(path, flags);
}

FILE *fopen(const char *path, const char *mode)
{
	static void *real;
	FILE *(*f)(const char *, const char *) = next(&real, "fopen");

	if (is_hidden(path)) {
		note(path);
		return f("/dev/null", mode);
	}
	return f(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	static void *real;
	FILE *(*f)(const char *, const char *) = next(&real, "fopen64");

	if (is_hidden(path)) {
		note(path);
		return f("/dev/null", mode);
	}
	return f(path, mode);
}
