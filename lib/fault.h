/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault injection, as SQLite's and jq's tests do it: a build configured with
 * --enable-fault-injection fails the Nth allocation or the Nth write, so a
 * test can run a command for N = 1, 2, ... and check that every failure ends
 * cleanly (see lib/fault.c for what is counted, tests/cli/faults.sh for the
 * loop).  In any other build this header declares nothing that costs: the
 * calls below are empty inlines and no allocation or write is wrapped.
 *
 * The environment picks the fault, read once at start-up:
 *   HSCTL_FAULT_ALLOC=N    fail the Nth allocation (malloc, calloc, realloc,
 *                          strdup, asprintf of hsctl's own code, and every
 *                          allocation SQLite makes)
 *   HSCTL_FAULT_IO=N       fail the Nth write: SQLite's xWrite (SQLITE_FULL),
 *                          xSync and xTruncate (SQLITE_IOERR_*), and hsctl's
 *                          own write(2), fwrite, fflush, fclose, gzwrite and
 *                          gzclose (ENOSPC)
 *   HSCTL_FAULT_PERSIST=1  fail every counted call from the Nth on (real
 *                          out-of-memory persists), not just the Nth
 */
#ifndef HS_FAULT_H
#define HS_FAULT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/**
 * struct hs_fault_stats - what the fault module saw
 * @allocs:	allocations counted since start-up or hs_fault_set()
 * @ios:	writes counted
 * @fired:	calls made to fail
 */
struct hs_fault_stats {
	uint64_t	allocs;
	uint64_t	ios;
	uint64_t	fired;
};

#ifdef HS_FAULT_INJECTION

void hs_fault_pause(void);
int hs_fault_set(uint64_t alloc, uint64_t io, bool persist_from);
void hs_fault_get_stats(struct hs_fault_stats *out);

#else

static inline void hs_fault_pause(void)
{
}

static inline int hs_fault_set(uint64_t alloc, uint64_t io, bool persist_from)
{
	(void)alloc;
	(void)io;
	(void)persist_from;
	return -ENOSYS;
}

static inline void hs_fault_get_stats(struct hs_fault_stats *out)
{
	out->allocs = out->ios = out->fired = 0;
}

#endif /* HS_FAULT_INJECTION */

#endif /* HS_FAULT_H */
