/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Index-linked doubly linked lists over the driver's folio array.
 *
 * The simulation driver keeps one record per dense key id in a flat array of
 * fixed stride (struct hs_folio followed by the policy's private area).  A
 * policy that keeps queues embeds a struct hs_qlink in its private area and
 * threads lists through it by key id.  Links are 32-bit ids rather than
 * pointers: 8 bytes per key instead of 16, which matters at millions of keys.
 *
 * Orientation: head is the oldest end (the next eviction candidate, the LRU
 * end), tail the newest (MRU).  A key sits on at most one list per link.
 */
#ifndef HS_QLIST_H
#define HS_QLIST_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "hs.h"

#define HS_NIL	UINT32_MAX	/* "no key" in a link or list end */

struct hs_qlink {
	uint32_t	prev;		/* toward head; HS_NIL at the head */
	uint32_t	next;		/* toward tail; HS_NIL at the tail */
};

struct hs_qlist {
	uint32_t	head;		/* oldest key, HS_NIL when empty */
	uint32_t	tail;		/* newest key, HS_NIL when empty */
	uint64_t	nr;		/* number of keys on the list */
};

/* Where the links live: link of id = base + id * stride + off. */
struct hs_qctx {
	char		*base;		/* start of the folio array */
	size_t		stride;		/* bytes per key record */
	size_t		off;		/* offset of the struct hs_qlink within a record */
};

static inline struct hs_qlink *hs_q_link(const struct hs_qctx *c, uint32_t id)
{
	return (struct hs_qlink *)(void *)(c->base + (size_t)id * c->stride + c->off);
}

static inline void hs_q_init(struct hs_qlist *l)
{
	l->head = l->tail = HS_NIL;
	l->nr = 0;
}

static inline bool hs_q_empty(const struct hs_qlist *l)
{
	return l->nr == 0;
}

/*
 * hs_q_link_tail() and hs_q_unlink_head() are hs_q_push_tail() and
 * hs_q_pop_head() without the count, for a caller that counts the keys
 * itself: run_list16() (lib/sim.c) has the list's ends in a local struct
 * hs_qlist and counts its keys with the memory's used count, and the two
 * read-modify-writes of nr it would not read, with the pop's test for an
 * empty list, were 1.6 % of lru's instructions at 8,100 of issue 13's 81 K
 * zipf keys (cachegrind, whole process: 1,004.7 M -> 988.6 M).  l->nr is
 * left as it was.
 */
static inline void hs_q_link_tail(const struct hs_qctx *c, struct hs_qlist *l, uint32_t id)
{
	struct hs_qlink *k = hs_q_link(c, id);

	k->next = HS_NIL;
	k->prev = l->tail;
	if (l->tail != HS_NIL)
		hs_q_link(c, l->tail)->next = id;
	else
		l->head = id;
	l->tail = id;
}

static inline void hs_q_push_tail(const struct hs_qctx *c, struct hs_qlist *l, uint32_t id)
{
	hs_q_link_tail(c, l, id);
	l->nr++;
}

static inline void hs_q_push_head(const struct hs_qctx *c, struct hs_qlist *l, uint32_t id)
{
	struct hs_qlink *k = hs_q_link(c, id);

	k->prev = HS_NIL;
	k->next = l->head;
	if (l->head != HS_NIL)
		hs_q_link(c, l->head)->prev = id;
	else
		l->tail = id;
	l->head = id;
	l->nr++;
}

/* Insert id right after pos (toward the tail); pos must be on l. */
static inline void hs_q_insert_after(const struct hs_qctx *c, struct hs_qlist *l, uint32_t pos,
				     uint32_t id)
{
	struct hs_qlink *p = hs_q_link(c, pos);
	struct hs_qlink *k = hs_q_link(c, id);

	k->prev = pos;
	k->next = p->next;
	if (p->next != HS_NIL)
		hs_q_link(c, p->next)->prev = id;
	else
		l->tail = id;
	p->next = id;
	l->nr++;
}

static inline void hs_q_del(const struct hs_qctx *c, struct hs_qlist *l, uint32_t id)
{
	struct hs_qlink *k = hs_q_link(c, id);

	assert(l->nr > 0);
	if (k->prev != HS_NIL)
		hs_q_link(c, k->prev)->next = k->next;
	else
		l->head = k->next;
	if (k->next != HS_NIL)
		hs_q_link(c, k->next)->prev = k->prev;
	else
		l->tail = k->prev;
	k->prev = k->next = HS_NIL;
	l->nr--;
}

/*
 * Unlink and return the head (oldest) key of l, which is not empty.
 * Unlinking wrote the new head's link, so that one is in the cache; the one
 * after it, which the next pop will write, is fetched now: a run of
 * evictions walks the list a step ahead of itself instead of stalling at
 * every key.  hs_q_del() of the head, without its test of the head's prev,
 * which is HS_NIL.
 */
static inline uint32_t hs_q_unlink_head(const struct hs_qctx *c, struct hs_qlist *l)
{
	uint32_t id = l->head, nx;
	struct hs_qlink *k = hs_q_link(c, id);

	nx = k->next;
	k->prev = k->next = HS_NIL;
	l->head = nx;
	if (nx != HS_NIL) {
		struct hs_qlink *h = hs_q_link(c, nx);
		uint32_t after = h->next;

		h->prev = HS_NIL;
		if (after != HS_NIL)
			hs_prefetch(hs_q_link(c, after));
	} else {
		l->tail = HS_NIL;
	}
	return id;
}

/* Remove and return the head (oldest) key, or HS_NIL when empty (hs_q_unlink_head()). */
static inline uint32_t hs_q_pop_head(const struct hs_qctx *c, struct hs_qlist *l)
{
	uint32_t id;

	if (l->head == HS_NIL)
		return HS_NIL;
	assert(l->nr > 0);
	id = hs_q_unlink_head(c, l);
	l->nr--;
	return id;
}

/*
 * Fetch the links that unlinking id will write: its neighbours'.  For a
 * policy's ->prefetch(), when id's own link is already in the cache; reads
 * only, so a stale answer costs time, never correctness.
 */
static inline void hs_q_prefetch_neighbours(const struct hs_qctx *c, uint32_t id)
{
	const struct hs_qlink *k = hs_q_link(c, id);

	if (k->prev != HS_NIL)
		hs_prefetch(hs_q_link(c, k->prev));
	if (k->next != HS_NIL)
		hs_prefetch(hs_q_link(c, k->next));
}

/*
 * hs_q_prefetch_neighbours() without its two tests, for a key some records
 * ahead of the one being stepped, whose links may still change before its
 * turn (run_list16() in lib/sim.c, which says what the tests cost there):
 * whatever id's links hold is fetched, a resident key's neighbours or
 * HS_NIL's address beyond the array (the head's prev, the tail's next, a
 * key off every list), computed in integers since it is no object's; a
 * prefetch faults on no address.  id itself must be in the array.
 */
static inline void hs_q_prefetch_neighbours_any(const struct hs_qctx *c, uint32_t id)
{
	const struct hs_qlink *k = hs_q_link(c, id);
	uintptr_t links = (uintptr_t)c->base + c->off;

	hs_prefetch((const void *)(links + (uintptr_t)k->prev * c->stride));
	hs_prefetch((const void *)(links + (uintptr_t)k->next * c->stride));
}

/*
 * Move id (already on l) to the tail: the LRU "touch".  hs_q_del() and
 * hs_q_push_tail() in one, without what they test that cannot happen here:
 * id is on l and not its tail, so it has a next, and l keeps its tail and
 * its count.  It is the hit of every list policy, so the few instructions
 * count (issue 13); it neither reads nor writes l->nr (run_list16() in
 * lib/sim.c does not keep it), and its assert that l->nr >= 2 went for
 * that and for its 2 instructions a hit.
 */
static inline void hs_q_move_tail(const struct hs_qctx *c, struct hs_qlist *l, uint32_t id)
{
	uint32_t tail = l->tail, prev, next;
	struct hs_qlink *k;

	if (tail == id)
		return;
	k = hs_q_link(c, id);
	prev = k->prev;
	next = k->next;
	hs_q_link(c, next)->prev = prev;
	if (prev != HS_NIL)
		hs_q_link(c, prev)->next = next;
	else
		l->head = next;
	k->prev = tail;
	k->next = HS_NIL;
	hs_q_link(c, tail)->next = id;
	l->tail = id;
}

static inline uint32_t hs_q_next(const struct hs_qctx *c, uint32_t id)
{
	return hs_q_link(c, id)->next;
}

static inline uint32_t hs_q_prev(const struct hs_qctx *c, uint32_t id)
{
	return hs_q_link(c, id)->prev;
}

#endif /* HS_QLIST_H */
