/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers for reading the kernel's own files (tracefs, cgroupfs, /proc,
 * sysfs, debugfs), whose sizes show as 0 or 4096 whatever they hold, and for
 * the one-line error messages lib/ hands back in a caller's buffer.  No
 * shell-outs, no stdio: the recorder must run as a static binary in a
 * minimal guest.
 */
#ifndef HS_FILEIO_H
#define HS_FILEIO_H

#include <stddef.h>
#include <stdint.h>

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
int hs_read_file(const char *path, size_t max, char **text, size_t *len);

/**
 * hs_cachestat() - pages of an open file in the page cache, by cachestat(2)
 * @fd: the file
 * @nr_cache: receives the count (the whole file)
 *
 * Return: 0; -ENOSYS before Linux 6.5 (no cachestat); another -errno.
 */
int hs_cachestat(int fd, uint64_t *nr_cache);

/**
 * hs_msg() - format a message into a caller's buffer
 * @buf: the buffer, or NULL
 * @size: its size (nothing is written when 0)
 * @fmt: printf format
 *
 * Return: nothing.
 */
void hs_msg(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* HS_FILEIO_H */
