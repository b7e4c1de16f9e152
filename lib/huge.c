/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Large arrays in transparent huge pages (lib/hs.h: hs_huge_alloc()). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hs.h"

/*
 * Large arrays read at random (the driver's records, one key per step) or
 * written once and read through (the replay's next uses): with 4 KiB pages a
 * few hundred thousand keys outgrow the TLB, and every step would pay a page
 * walk on top of the cache miss (a prefetch cannot hide a walk it waits for),
 * and the first touch of every 4 KiB page is a fault (about 14 us here, so
 * 0.2 s for the next uses of 10 M accesses).
 * A large array is therefore mapped in 2 MiB-aligned whole huge pages and
 * offered to transparent huge pages (madvise: where THP is "madvise" only,
 * as on many distributions, nothing else asks for them).  Zeroed, like
 * calloc().  Small arrays stay on the heap.
 */
#define HUGE_SZ		(2u << 20)
#define LINE		64	/* a cache line */

/* Bytes mapped for an array of @bytes: whole huge pages, 0 below one (the heap). */
static size_t mapped_len(size_t bytes)
{
	return bytes < HUGE_SZ ? 0 : (bytes + HUGE_SZ - 1) & ~(size_t)(HUGE_SZ - 1);
}

/* @len bytes (whole huge pages) mapped 2 MiB-aligned, offered to THP.  Return: NULL on failure. */
static void *map_huge(size_t len, int flags)
{
	char *p;

	p = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* keep the 2 MiB-aligned len bytes inside, give back the rest */
	{
		size_t lead = (HUGE_SZ - ((uintptr_t)p & (HUGE_SZ - 1))) & (HUGE_SZ - 1);

		if (lead)
			munmap(p, lead);
		if (HUGE_SZ - lead)
			munmap(p + lead + len, HUGE_SZ - lead);
		p += lead;
	}
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE);	/* a hint: refused, it is only slower */
#endif
	return p;
}

void *hs_huge_alloc(size_t bytes)
{
	size_t len = mapped_len(bytes);

	if (!len) {
		/* on a line's bound, as the huge pages are: an array laid out by lines */
		size_t n = (bytes + LINE - 1) & ~(size_t)(LINE - 1);
		void *p;

		if (posix_memalign(&p, LINE, n ? n : LINE))
			return NULL;
		return memset(p, 0, n ? n : LINE);
	}
	return map_huge(len, 0);
}

/*
 * Address space for an array that grows at its end to at most @bytes: only
 * the pages it touches are ever allocated (MAP_NORESERVE: not counted
 * against the commit limit), so it grows without a copy.  Where the kernel
 * counts strictly (vm.overcommit_memory=2) a large reservation may be
 * refused: the caller then allocates as it grows.
 */
void *hs_huge_reserve(size_t bytes)
{
	size_t len = mapped_len(bytes);

	return len ? map_huge(len, MAP_NORESERVE) : NULL;
}

void hs_huge_free(void *p, size_t bytes)
{
	size_t len = mapped_len(bytes);

	if (!p)
		return;
	if (len)
		munmap(p, len);
	else
		free(p);
}

