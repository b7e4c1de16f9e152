/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dense renumbering of keys: a map from a trace's original 64-bit ids to dense
 * ids 0, 1, 2, ... handed out in order of first appearance, plus the reverse
 * array (dense id -> original id) that the store keeps with the session.  An
 * open-addressing table with linear probing that doubles when it is 4/5 full;
 * it sits on the import hot path (millions of lookups per second).
 */
#ifndef HS_KEYMAP_H
#define HS_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hs_keymap;

#define HS_KEYMAP_MAX_KEYS	UINT32_MAX	/* dense ids are below this */

/**
 * hs_keymap_new() - an empty map
 * @expect: keys expected (a sizing hint; 0 is fine)
 * @out: the map
 *
 * Return: 0 or -ENOMEM.
 */
int hs_keymap_new(size_t expect, struct hs_keymap **out);
void hs_keymap_free(struct hs_keymap *km);

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

/* Keys mapped so far (the next dense id). */
uint32_t hs_keymap_count(const struct hs_keymap *km);

/* Original ids in dense-id order: ids[i] is the key of dense id i (count entries). */
const uint64_t *hs_keymap_ids(const struct hs_keymap *km);

#endif /* HS_KEYMAP_H */
