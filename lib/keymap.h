/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dense renumbering of keys: a map from a trace's original 64-bit ids to dense
 * ids 0, 1, 2, ... handed out in order of first appearance, plus the reverse
 * array (dense id -> original id) that the store keeps with the session.  An
 * open-addressing table with linear probing that doubles when it is 4/5 full;
 * it sits on the import hot path (millions of lookups per second).
 *
 * The same table serves wider keys with a record per id: a key of 1 to
 * HS_KEYMAP_MAX_WORDS 64-bit words, and a record of a fixed size that begins
 * with the key, zeroed when the key is added (hs_keymap_new_rec()).  The
 * lifecycle builder keeps its page keys, inodes and tasks this way: the
 * dense id is the entry's id, the record its state.  A plain map is the case
 * of one word and a record that is the key alone: the reverse array.
 */
#ifndef HS_KEYMAP_H
#define HS_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct km_slot;

/*
 * Defined here only so that hs_keymap_rec() and hs_keymap_count() inline on
 * hot paths; the fields belong to keymap.c.
 */
struct hs_keymap {
	struct km_slot	*slots;		/* 2^bits slots */
	unsigned int	bits;		/* log2 of the slot count */
	unsigned int	words;		/* key words (1 .. HS_KEYMAP_MAX_WORDS) */
	unsigned int	slot_shift;	/* log2 of a slot's bytes: 3 narrow, 4 wide */
	size_t		mask;		/* slot count - 1 */
	size_t		limit;		/* grow before count passes this (4/5 full) */
	uint32_t	count;		/* keys mapped = next dense id */
	char		*recs;		/* dense id i's record at i * rec_size */
	size_t		rec_size;	/* bytes per record, the key first */
	size_t		recs_cap;	/* records allocated */
	size_t		slots_res;	/* bytes of address space reserved for the
					 * slots (grow_in_place()), 0: none */
};

#define HS_KEYMAP_MAX_KEYS	UINT32_MAX	/* dense ids are below this */
#define HS_KEYMAP_MAX_WORDS	4		/* widest key, in 64-bit words */

/**
 * hs_keymap_new() - an empty map
 * @expect: keys expected (a sizing hint; 0 is fine)
 * @out: the map
 *
 * Return: 0 or -ENOMEM.
 */
int hs_keymap_new(size_t expect, struct hs_keymap **out);
int hs_keymap_new_rec(unsigned int words, size_t rec_size, size_t expect,
		      struct hs_keymap **out);
void hs_keymap_free(struct hs_keymap *km);

/*
 * Size the table for @keys keys now (an estimate; more still fit).
 * Return: 0 or -ENOMEM (the map unchanged).
 */
int hs_keymap_expect(struct hs_keymap *km, size_t keys);

/**
 * hs_keymap_add() - the dense id of @key, assigning the next one if it is new
 * @km: the map
 * @key: original id (any value)
 * @id: receives the dense id
 *
 * Return: 0 if @key was known, 1 if it was added, -ENOMEM, or -EOVERFLOW
 * when HS_KEYMAP_MAX_KEYS keys are mapped already.
 */
int hs_keymap_add(struct hs_keymap *km, uint64_t key, uint32_t *id);

/*
 * hs_keymap_add() for @n keys, prefetching ahead (faster on large maps).
 * Return: keys that were new, or -ENOMEM / -EOVERFLOW.
 */
long hs_keymap_add_many(struct hs_keymap *km, const uint64_t *keys, size_t n, uint32_t *ids);

/* Look @key up without adding it.  Return: true and *id if known. */
bool hs_keymap_lookup(const struct hs_keymap *km, uint64_t key, uint32_t *id);

/* hs_keymap_add() and hs_keymap_lookup() for a key of the map's width (words). */
int hs_keymap_add_key(struct hs_keymap *km, const uint64_t *key, uint32_t *id);
bool hs_keymap_lookup_key(const struct hs_keymap *km, const uint64_t *key, uint32_t *id);

/* Keys mapped so far (the next dense id). */
static inline uint32_t hs_keymap_count(const struct hs_keymap *km)
{
	return km->count;
}

/*
 * The record of dense id @id (below hs_keymap_count()): its key's words, then
 * the caller's state.  Valid until the next add.
 */
static inline void *hs_keymap_rec(const struct hs_keymap *km, uint32_t id)
{
	return km->recs + (size_t)id * km->rec_size;
}

/* Original ids in dense-id order: ids[i] is the key of dense id i (count entries). */
const uint64_t *hs_keymap_ids(const struct hs_keymap *km);

#endif /* HS_KEYMAP_H */
