/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers every hsctl module may use: array sizes, container_of, branch
 * hints and the exit statuses that the CLI documents (see hsctl(1)).
 */
#ifndef HS_HS_H
#define HS_HS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define HS_MIN(a, b)		((a) < (b) ? (a) : (b))
#define HS_MAX(a, b)		((a) > (b) ? (a) : (b))
#define HS_UNUSED		__attribute__((unused))

/* Exit statuses: the contract documented in hsctl(1).  Never 77 (automake's skip). */
enum hs_exit {
	HS_EXIT_OK		= 0,	/* success */
	HS_EXIT_FAILURE		= 1,	/* runtime failure */
	HS_EXIT_USAGE		= 64,	/* usage error (EX_USAGE) */
	HS_EXIT_DATAERR		= 65,	/* malformed or unsupported input data (EX_DATAERR) */
	HS_EXIT_NOINPUT		= 66,	/* cannot open input (EX_NOINPUT) */
	HS_EXIT_UNAVAILABLE	= 69,	/* tracefs or permission unavailable (EX_UNAVAILABLE) */
};

/*
 * hs_huge_alloc() - a zeroed array of @bytes, in 2 MiB huge pages when it is
 * that large (lib/huge.c), else on a 64-byte cache line's bound (structures
 * laid out a line at a time stay so); hs_huge_free() takes the same @bytes
 * (NULL: no-op).  Return: the array, or NULL.
 */
void *hs_huge_alloc(size_t bytes);
void hs_huge_free(void *p, size_t bytes);

/*
 * hs_huge_reserve() - hs_huge_alloc() of @bytes (at least 2 MiB) whose pages
 * are allocated only when touched, for an array that grows in place; freed
 * by hs_huge_free() with the same @bytes.  Return: the array, or NULL.
 */
void *hs_huge_reserve(size_t bytes);

/*
 * Room for @need elements of @size bytes in @arr, which has room for *@cap:
 * the array itself when it has, else @arr reallocated to the first doubling
 * of *@cap (of @first, when empty) that holds @need, *@cap updated.
 * Return: the array, or NULL (out of memory; @arr and *@cap untouched).
 */
static inline void *hs_grow(void *arr, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap : first;
	void *grown;

	if (need <= *cap)
		return arr;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return NULL;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return NULL;
	grown = realloc(arr, ncap * size);
	if (grown)
		*cap = ncap;
	return grown;
}

/*
 * Fetch the cache line of @p (for a write soon).  Not __builtin_prefetch():
 * GCC 12 at -O1 and above deletes some of those as dead code -- two in a
 * row, the second at an address computed from a load, after a bounds test:
 * the driver's fetch of a record's two ends in hs_sim_run() and the second
 * of hs_q_prefetch_neighbours() had vanished from the binary, so the
 * replay had never fetched a record ahead (objdump showed no prefetch
 * instruction in hs_sim_run()).  An asm statement stays where it is put.
 * A prefetch never faults, whatever the address.
 */
static inline void hs_prefetch(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

#endif /* HS_HS_H */
