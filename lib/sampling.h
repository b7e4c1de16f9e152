/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sampled access visibility for commands hsctl did not write: faults show
 * only a mapping's first touch, but with automatic NUMA balancing on, the
 * kernel's scanner makes resident anonymous pages inaccessible pass by pass
 * and the next touch of each takes a hinting fault, which
 * exceptions:page_fault_user reports like any other.  This module turns the
 * kernel.numa_balancing sysctl on for a recording (and, where debugfs lets
 * it, keeps the scan period short) and puts every value back afterwards.
 * What it gives, measured on this project's one-node 6.18 machines, is
 * written at the top of sampling.c: multi-threaded processes only.  The
 * setting is machine-wide: every process is scanned while it is on.  lib/
 * never prints: errors come back as -errno with a reason in the caller's
 * buffer.
 */
#ifndef HS_SAMPLING_H
#define HS_SAMPLING_H

#include <stddef.h>

struct hs_sampling;
struct hs_undo;

/**
 * hs_sampling_numa_enable() - turn NUMA-balancing hinting faults on for sampling
 * @out: receives the saved state, for hs_sampling_restore()
 * @err: receives "PATH: reason" on failure (may be NULL)
 * @errlen: size of @err
 *
 * Sets bit 0 (NUMA_BALANCING_NORMAL) of /proc/sys/kernel/numa_balancing:
 * 0 becomes 1, 2 (memory tiering alone, which never scans top-tier nodes)
 * becomes 3; a value that has the bit already is left alone.  Where
 * /sys/kernel/debug/sched/numa_balancing/scan_period_max_ms can be read and
 * written (debugfs mounted, no lockdown) it is lowered to scan_period_min_ms
 * so that passes keep coming every scan_period_min_ms instead of slowing
 * down to the maximum; debugfs is never mounted here.  Every value changed is
 * saved first; on failure whatever was changed is put back.
 *
 * Return: 0; -ENOENT when the kernel has no NUMA balancing (no sysctl file);
 * -EACCES or -EPERM when not allowed to change it; -EBADMSG for a value that
 * is not a number; another -errno from open/read/write; -ENOMEM.
 */
int hs_sampling_numa_enable(struct hs_sampling **out, char *err, size_t errlen);

/**
 * hs_sampling_numa_enable_at() - hs_sampling_numa_enable() under another root
 * @root: prefix of the /proc and /sys paths ("" or NULL: the real ones); for
 *	tests on a copy of those files
 * @out: as hs_sampling_numa_enable()
 * @err: as hs_sampling_numa_enable()
 * @errlen: as hs_sampling_numa_enable()
 *
 * Return: as hs_sampling_numa_enable(); -ENAMETOOLONG for a root too long.
 */
int hs_sampling_numa_enable_at(const char *root, struct hs_sampling **out, char *err,
			       size_t errlen);

/**
 * hs_sampling_numa_enable_undo() - hs_sampling_numa_enable_at(), written down first
 * @root: as hs_sampling_numa_enable_at()
 * @undo: an undo note (lib/undo.h), or NULL
 * @out: as hs_sampling_numa_enable()
 * @err: as hs_sampling_numa_enable()
 * @errlen: as hs_sampling_numa_enable()
 *
 * Every value is written in @undo (file, old value, new value) before it
 * is changed, and marked undone when hs_sampling_restore() put it back; a
 * numa_balancing that was on already is written down as in use (old value
 * = new value), so that a recovery leaves it on while this process samples.
 *
 * Return: as hs_sampling_numa_enable(), or -errno writing the note.
 */
int hs_sampling_numa_enable_undo(const char *root, struct hs_undo *undo,
				 struct hs_sampling **out, char *err, size_t errlen);

/**
 * hs_sampling_restore() - put back every value hs_sampling_numa_enable() changed
 * @s: the saved state, or NULL
 *
 * Writes the saved values back in reverse order, once: later calls do
 * nothing.  It only calls open(), write() and close() on memory it already
 * holds, so a signal handler may call it.  A value that cannot be written
 * back is counted in hs_sampling_describe().
 *
 * Return: nothing.
 */
void hs_sampling_restore(struct hs_sampling *s);

/**
 * hs_sampling_free() - restore (if not done yet) and free
 * @s: the saved state, or NULL
 *
 * Return: nothing.
 */
void hs_sampling_free(struct hs_sampling *s);

/**
 * hs_sampling_describe() - what was changed and what it can be expected to give
 * @s: the saved state, or NULL
 *
 * Return: one line, e.g. "numa_balancing 0 -> 1; scan_period_max_ms not
 * writable (debugfs not mounted or locked down); 1 NUMA node: hinting faults
 * sample private anonymous memory of multi-threaded processes only", with
 * "(restored)" appended once restored; "no sampling" for NULL.  Valid until
 * hs_sampling_free().
 */
const char *hs_sampling_describe(const struct hs_sampling *s);

#endif /* HS_SAMPLING_H */
