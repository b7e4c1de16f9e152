/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Indexed binary heap for policies that order their resident keys by a
 * computed priority (LRFU's CRF, OPT's next use).  Entries are small structs
 * holding the sort key(s) and a key id; each key's index in the heap lives in
 * the policy's private area of the driver's per-key array, found through an
 * offset as lib/qlist.h finds links, so that a key can be raised, lowered or
 * taken out of the middle in O(log n).
 *
 * The entry layout and the order come in a const struct hs_iheap_type.  Every
 * function here is static inline and always inlined, so with a type defined
 * as a static const object the compiler folds the entry size into fixed-size
 * moves and calls the order function directly (and inlines it): no function
 * pointer is followed at run time.  The functions that move entries take @tmp,
 * room for one entry: pass a local variable of the entry type, which the
 * compiler keeps in registers.  (A scratch slot in the entry array instead
 * made OPT 1.5 times slower on the cache2k trace, most likely from reloading
 * an entry as a whole right after storing one of its fields.)
 *
 *	ent[] (n used, size allocated)                          per key (priv)
 *	               [0] root: before() every other entry     +-----------+
 *	              /    \                                    | pos = i   |
 *	           [1]      [2]     entry i = {sort keys, id} ->|           |
 *	          /   \    /   \                                +-----------+
 */
#ifndef HS_IHEAP_H
#define HS_IHEAP_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HS_IHEAP_INLINE	static inline __attribute__((always_inline))

/* What an entry is and how two compare; define one per policy, static const. */
struct hs_iheap_type {
	size_t		esize;		/* bytes per entry */
	size_t		id_off;		/* offset of the entry's uint32_t key id */
	bool		(*before)(const void *a, const void *b); /* a strictly nearer the root */
};

struct hs_iheap {
	char		*ent;		/* size entries; [0] is the root */
	uint64_t	n;		/* entries in use: ent[0 .. n - 1] */
	uint64_t	size;		/* most entries the heap holds */
	char		*base;		/* the driver's key array */
	size_t		stride;		/* bytes per key record */
	size_t		pos_off;	/* offset of a key's uint32_t heap index in its record;
					 * valid only while the key is in the heap */
};

/*
 * hs_iheap_init() - allocate room for @size entries (at least one)
 * @h: the heap, any contents
 * @t: entry type
 * @size: most entries the heap will hold
 * @base, @stride, @pos_off: where key id's index lives: base + id * stride + pos_off
 *
 * Return: 0, or -ENOMEM (h->ent is then NULL).
 */
static inline int hs_iheap_init(struct hs_iheap *h, const struct hs_iheap_type *t,
				uint64_t size, char *base, size_t stride, size_t pos_off)
{
	h->ent = NULL;
	h->n = 0;
	h->size = size ? size : 1;
	h->base = base;
	h->stride = stride;
	h->pos_off = pos_off;
	if (h->size > SIZE_MAX / t->esize)
		return -ENOMEM;
	h->ent = calloc((size_t)h->size, t->esize);
	return h->ent ? 0 : -ENOMEM;
}

/* Free the entries; accepts a heap whose init failed or never ran (zeroed). */
static inline void hs_iheap_release(struct hs_iheap *h)
{
	free(h->ent);
	h->ent = NULL;
	h->n = 0;
}

HS_IHEAP_INLINE void *hs_iheap_at(const struct hs_iheap *h, const struct hs_iheap_type *t,
				  uint64_t i)
{
	return h->ent + (size_t)i * t->esize;
}

HS_IHEAP_INLINE uint32_t hs_iheap_id(const struct hs_iheap_type *t, const void *e)
{
	uint32_t id;

	memcpy(&id, (const char *)e + t->id_off, sizeof(id));
	return id;
}

/* Where key @id's heap index lives. */
HS_IHEAP_INLINE uint32_t *hs_iheap_pos(const struct hs_iheap *h, uint32_t id)
{
	return (uint32_t *)(void *)(h->base + (size_t)id * h->stride + h->pos_off);
}

/* Copy entry @src into slot @i and record the position. */
HS_IHEAP_INLINE void hs_iheap_put(struct hs_iheap *h, const struct hs_iheap_type *t, uint64_t i,
				  const void *src)
{
	memcpy(hs_iheap_at(h, t, i), src, t->esize);
	*hs_iheap_pos(h, hs_iheap_id(t, src)) = (uint32_t)i;
}

/* Move entry @i toward the root while it goes before its parent; @tmp: one entry. */
HS_IHEAP_INLINE void hs_iheap_sift_up(struct hs_iheap *h, const struct hs_iheap_type *t,
				      uint64_t i, void *tmp)
{
	uint64_t parent;

	memcpy(tmp, hs_iheap_at(h, t, i), t->esize);
	while (i > 0) {
		parent = (i - 1) / 2;
		if (!t->before(tmp, hs_iheap_at(h, t, parent)))
			break;
		hs_iheap_put(h, t, i, hs_iheap_at(h, t, parent));
		i = parent;
	}
	hs_iheap_put(h, t, i, tmp);
}

/* Move entry @i away from the root while a child goes before it; @tmp: one entry. */
HS_IHEAP_INLINE void hs_iheap_sift_down(struct hs_iheap *h, const struct hs_iheap_type *t,
					uint64_t i, void *tmp)
{
	uint64_t child;

	memcpy(tmp, hs_iheap_at(h, t, i), t->esize);
	for (;;) {
		child = 2 * i + 1;
		if (child >= h->n)
			break;
		if (child + 1 < h->n &&
		    t->before(hs_iheap_at(h, t, child + 1), hs_iheap_at(h, t, child)))
			child++;
		if (!t->before(hs_iheap_at(h, t, child), tmp))
			break;
		hs_iheap_put(h, t, i, hs_iheap_at(h, t, child));
		i = child;
	}
	hs_iheap_put(h, t, i, tmp);
}

/* Entry @i's sort keys changed in place: restore the order around it. */
HS_IHEAP_INLINE void hs_iheap_fix(struct hs_iheap *h, const struct hs_iheap_type *t, uint64_t i,
				  void *tmp)
{
	uint32_t id = hs_iheap_id(t, hs_iheap_at(h, t, i));

	hs_iheap_sift_up(h, t, i, tmp);
	hs_iheap_sift_down(h, t, *hs_iheap_pos(h, id), tmp);
}

/* Add a copy of @e; the caller makes sure n < size. */
HS_IHEAP_INLINE void hs_iheap_push(struct hs_iheap *h, const struct hs_iheap_type *t,
				   const void *e, void *tmp)
{
	assert(h->n < h->size);
	memcpy(hs_iheap_at(h, t, h->n), e, t->esize);
	h->n++;
	hs_iheap_sift_up(h, t, h->n - 1, tmp);
}

/* Take entry @i out of the heap (its key's index becomes meaningless). */
HS_IHEAP_INLINE void hs_iheap_del(struct hs_iheap *h, const struct hs_iheap_type *t, uint64_t i,
				  void *tmp)
{
	assert(i < h->n);
	h->n--;
	if (i == h->n)
		return;
	hs_iheap_put(h, t, i, hs_iheap_at(h, t, h->n));
	if (i > 0 && t->before(hs_iheap_at(h, t, i), hs_iheap_at(h, t, (i - 1) / 2)))
		hs_iheap_sift_up(h, t, i, tmp);
	else
		hs_iheap_sift_down(h, t, i, tmp);
}

/* Every entry's sort keys changed: rebuild the order in O(n). */
HS_IHEAP_INLINE void hs_iheap_heapify(struct hs_iheap *h, const struct hs_iheap_type *t,
				      void *tmp)
{
	uint64_t i;

	for (i = h->n / 2; i-- > 0;)
		hs_iheap_sift_down(h, t, i, tmp);
}

/*
 * hs_iheap_check() - structural invariants, for a policy's ->check()
 * @h: the heap
 * @t: entry type
 * @nr_keys: key ids must be below this
 *
 * n <= size, every entry's id is below @nr_keys and its key's index points
 * back at it (so no id is in the heap twice), and no entry goes before its
 * parent.
 *
 * Return: 0 or -EUCLEAN.
 */
static inline int hs_iheap_check(const struct hs_iheap *h, const struct hs_iheap_type *t,
				 uint32_t nr_keys)
{
	const void *e;
	uint32_t id;
	uint64_t i;

	if (h->n > h->size)
		return -EUCLEAN;
	for (i = 0; i < h->n; i++) {
		e = hs_iheap_at(h, t, i);
		id = hs_iheap_id(t, e);
		if (id >= nr_keys || *hs_iheap_pos(h, id) != i)
			return -EUCLEAN;
		if (i > 0 && t->before(e, hs_iheap_at(h, t, (i - 1) / 2)))
			return -EUCLEAN;
	}
	return 0;
}

#endif /* HS_IHEAP_H */
