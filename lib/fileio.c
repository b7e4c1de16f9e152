/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the kernel's own files whole, cachestat(2), and one-line messages
 * into a caller's buffer: what lib/decode.c, lib/cgroup.c, lib/workload.c,
 * lib/lrugen.c and `hsctl record` had each written for themselves.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fileio.h"

#define FIRST_CHUNK	4096u	/* the first buffer: most kernel files fit */

#ifndef SYS_cachestat
#define SYS_cachestat	451	/* on every architecture but alpha */
#endif

/**
 * hs_read_file() - read a whole file to EOF into a NUL-terminated buffer
 * @path: the file
 * @max: the largest size accepted, bytes
 * @text: receives the malloc'ed buffer (free it); NULL on error
 * @len: receives its length (without the NUL)
 *
 * Return: 0; -EFBIG when the file holds more than @max bytes; -ENOMEM; the
 * errno of open() or read().
 */
int hs_read_file(const char *path, size_t max, char **text, size_t *len)
{
	size_t cap = FIRST_CHUNK, n = 0;
	char *buf, *nb;
	ssize_t r;
	int fd, err;

	*text = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				err = -EFBIG;
				goto out_free;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				goto out_free;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out_free;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;

out_free:
	free(buf);
	close(fd);
	return err;
}

/**
 * hs_cachestat() - pages of an open file in the page cache, by cachestat(2)
 * @fd: the file
 * @nr_cache: receives the count (the whole file)
 *
 * Return: 0; -ENOSYS before Linux 6.5 (no cachestat); another -errno.
 */
int hs_cachestat(int fd, uint64_t *nr_cache)
{
	struct {
		uint64_t off, len;	/* 0, 0: the whole file */
	} range = { 0, 0 };
	struct {
		uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
	} cs;

	if (syscall(SYS_cachestat, fd, &range, &cs, 0))
		return -errno;
	*nr_cache = cs.nr_cache;
	return 0;
}

/**
 * hs_msg() - format a message into a caller's buffer
 * @buf: the buffer, or NULL
 * @size: its size (nothing is written when 0)
 * @fmt: printf format
 *
 * Return: nothing.
 */
void hs_msg(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}
