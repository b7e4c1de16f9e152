/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real neighbourhood of a recorded session's keys, for the kernel models'
 * look-around (policies/mglru.c).  A key with an address has a space (an
 * anonymous page: its process, as the mm; a file page: its file) and a page
 * number in it (the virtual page, address >> 12; the file index).  The keys
 * with an address are sorted by (space, page), so the keys of one page-table
 * window are neighbours in that order: a look-around around key k walks
 * order[] from pos[k] down and up while the space is k's and the page lies in
 * the window.  Built once per session and shared read-only by every run of a
 * replay (lib/replay.c, lib/sim.c's hs_sim_config.neigh).
 *
 * Cost: 20 bytes per key (space, page, order, pos), O(n log n) to build.
 */
#ifndef HS_NEIGH_H
#define HS_NEIGH_H

#include <stddef.h>
#include <stdint.h>

#define HS_NEIGH_NONE	0	/* space of a key without an address */
#define HS_NEIGH_NOPOS	UINT32_MAX	/* pos[] of a key without an address */

struct hs_neigh {
	uint32_t	nr_keys;	/* dense ids 0 .. nr_keys - 1 */
	uint32_t	nr_addr;	/* keys with an address: order[] entries */
	uint32_t	*space;		/* per key: its space, HS_NEIGH_NONE if none */
	uint64_t	*page;		/* per key: page number in its space */
	uint32_t	*order;		/* keys with an address, by (space, page, id) */
	uint32_t	*pos;		/* per key: its index in order[], or HS_NEIGH_NOPOS */
};

/**
 * hs_neigh_new() - a table for @nr_keys keys, none with an address yet
 * @nr_keys: dense ids are below this
 * @out: receives the table
 *
 * Return: 0 or -ENOMEM.
 */
int hs_neigh_new(uint32_t nr_keys, struct hs_neigh **out);

/*
 * Give key @id the address (@space, @page); @space is not HS_NEIGH_NONE.
 * Only before hs_neigh_finish(); ids out of range are ignored.
 */
void hs_neigh_set(struct hs_neigh *nb, uint32_t id, uint32_t space, uint64_t page);

/**
 * hs_neigh_finish() - sort the keys with an address (order[], pos[])
 * @nb: the table
 *
 * Return: 0 or -ENOMEM.  Two keys with the same address are both kept (one
 * page named twice); the lower id comes first.
 */
int hs_neigh_finish(struct hs_neigh *nb);

void hs_neigh_free(struct hs_neigh *nb);

#endif /* HS_NEIGH_H */
