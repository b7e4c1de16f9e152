/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pfn interval map: a set of disjoint page-frame ranges [head, head +
 * pages), each carrying one 64-bit value (the lifecycle builder stores a
 * folio life id there).  Lookups find the range that contains a pfn, so an
 * event that names any page of a large folio, or a tail page that became a
 * head after a split, still finds its folio.  An ordered tree (a treap over
 * the heads), O(log n) per operation, with nodes in one array.
 */
#ifndef HS_PFNMAP_H
#define HS_PFNMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hs_pfnmap;		/* opaque; defined in lib/pfnmap.c */

/**
 * struct hs_pfnmap_ent - one range of the map
 */
struct hs_pfnmap_ent {
	uint64_t	head;		/* first pfn of the range */
	uint64_t	pages;		/* pfns in the range (>= 1) */
	uint64_t	val;		/* the caller's value */
};

/**
 * hs_pfnmap_new() - an empty map
 * @out: the map
 *
 * Return: 0 or -ENOMEM.
 */
int hs_pfnmap_new(struct hs_pfnmap **out);

/**
 * hs_pfnmap_free() - free a map
 * @m: the map, or NULL
 *
 * Return: nothing.
 */
void hs_pfnmap_free(struct hs_pfnmap *m);

/**
 * hs_pfnmap_insert() - add the range [@head, @head + @pages) with @val
 * @m: the map
 * @head: first pfn
 * @pages: length (>= 1)
 * @val: value stored with the range
 *
 * Ranges never overlap: remove the ones hs_pfnmap_overlap() reports first.
 *
 * Return: 0; -EINVAL when @pages is 0 or the range wraps past UINT64_MAX;
 * -EEXIST when it overlaps a range already in the map; -ENOMEM.  On error the
 * map is unchanged.
 */
int hs_pfnmap_insert(struct hs_pfnmap *m, uint64_t head, uint64_t pages, uint64_t val);

/**
 * hs_pfnmap_find() - the range that contains @pfn
 * @m: the map
 * @pfn: any page frame number
 * @out: receives the range; may be NULL
 *
 * Return: true if one does.
 */
bool hs_pfnmap_find(const struct hs_pfnmap *m, uint64_t pfn, struct hs_pfnmap_ent *out);

/**
 * hs_pfnmap_overlap() - the lowest range that overlaps [@lo, @lo + @pages)
 * @m: the map
 * @lo: first pfn of the query
 * @pages: its length; 0 matches nothing; a query past UINT64_MAX is cut there
 * @out: receives the range; may be NULL
 *
 * Return: true if one does.
 */
bool hs_pfnmap_overlap(const struct hs_pfnmap *m, uint64_t lo, uint64_t pages,
		       struct hs_pfnmap_ent *out);

/**
 * hs_pfnmap_remove() - remove the range whose first pfn is @head
 * @m: the map
 * @head: the range's head, exactly
 *
 * Return: 0, or -ENOENT when no range starts at @head.
 */
int hs_pfnmap_remove(struct hs_pfnmap *m, uint64_t head);

/**
 * hs_pfnmap_count() - ranges in the map
 * @m: the map
 *
 * Return: their number.
 */
size_t hs_pfnmap_count(const struct hs_pfnmap *m);

/**
 * hs_pfnmap_check() - verify the tree (tests)
 * @m: the map
 *
 * Checks the search order, the heap order of priorities, that ranges are
 * disjoint, and the count.
 *
 * Return: 0, or -EFAULT when an invariant is broken.
 */
int hs_pfnmap_check(const struct hs_pfnmap *m);

#endif /* HS_PFNMAP_H */
