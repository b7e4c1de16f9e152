/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dense-id map (see keymap.h).  Slots hold the original key and its dense
 * id plus one, so that a zeroed slot is empty and freshly mapped (zero) pages
 * need no initialization.  Keys are hashed with the MurmurHash3
 * finalizer (sequential block numbers and strided addresses spread as well as
 * random ids) and probed linearly.  The table doubles when it would pass 4/5
 * full; the new table is filled from the reverse array, which lists every key
 * once in a sequential scan, rather than from the old table.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "hs.h"
#include "keymap.h"

#define MIN_BITS	10	/* smallest table: 1024 slots */
#define MMAP_MIN	((size_t)4 << 20)	/* tables this large: mmap, huge pages */
#define PREFETCH_AHEAD	16	/* hs_keymap_add_many(): keys between prefetch and use */

struct km_slot {
	uint64_t	key;		/* original id; meaningful only when id1 != 0 */
	uint32_t	id1;		/* dense id + 1; 0 marks an empty slot */
	uint32_t	pad;		/* keeps slots 16 bytes, four per cache line */
};

struct hs_keymap {
	struct km_slot	*slots;		/* 2^bits slots */
	unsigned int	bits;		/* log2 of the slot count */
	size_t		mask;		/* slot count - 1 */
	size_t		limit;		/* grow before count passes this (4/5 full) */
	uint32_t	count;		/* keys mapped = next dense id */
	uint64_t	*ids;		/* ids[i]: original key of dense id i, count valid */
	size_t		ids_cap;	/* entries allocated in ids */
};

static inline size_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

/*
 * Big tables come straight from mmap() with transparent huge pages requested:
 * lookups are random, and with 4 KiB pages nearly every one would also miss
 * the TLB and the first touch of every page would fault.
 */
static struct km_slot *slots_alloc(size_t n)
{
	size_t bytes = n * sizeof(struct km_slot);
	void *p;

	if (bytes < MMAP_MIN)
		return calloc(n, sizeof(struct km_slot));
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);	/* a hint: failure is harmless */
#endif
	return p;
}

static void slots_free(struct km_slot *slots, size_t n)
{
	size_t bytes = n * sizeof(struct km_slot);

	if (!slots)
		return;
	if (bytes < MMAP_MIN)
		free(slots);
	else
		munmap(slots, bytes);
}

static int table_alloc(struct hs_keymap *km, unsigned int bits)
{
	size_t n = (size_t)1 << bits;
	struct km_slot *slots = slots_alloc(n);

	if (!slots)
		return -ENOMEM;
	km->slots = slots;
	km->bits = bits;
	km->mask = n - 1;
	km->limit = n / 5 * 4;
	return 0;
}

/* Put a key known to be absent into the table (rebuilds). */
static void place(struct hs_keymap *km, uint64_t key, uint32_t id)
{
	size_t i = hash(key) & km->mask;

	while (km->slots[i].id1)
		i = (i + 1) & km->mask;
	km->slots[i].key = key;
	km->slots[i].id1 = id + 1;
}

static int grow(struct hs_keymap *km)
{
	struct km_slot *old = km->slots;
	size_t old_n = km->mask + 1;
	uint32_t i;

	if (km->bits + 1 >= sizeof(size_t) * 8 - 5)
		return -ENOMEM;
	if (table_alloc(km, km->bits + 1))
		return -ENOMEM;		/* the old table is unchanged and still usable */
	slots_free(old, old_n);
	for (i = 0; i < km->count; i++)
		place(km, km->ids[i], i);
	return 0;
}

/**
 * hs_keymap_new() - an empty map
 * @expect: keys expected (a sizing hint; 0 is fine)
 * @out: the map
 *
 * Return: 0 or -ENOMEM.
 */
int hs_keymap_new(size_t expect, struct hs_keymap **out)
{
	struct hs_keymap *km;
	unsigned int bits = MIN_BITS;

	km = calloc(1, sizeof(*km));
	if (!km)
		return -ENOMEM;
	while (bits < 40 && ((size_t)1 << bits) / 5 * 4 < expect)
		bits++;
	if (table_alloc(km, bits)) {
		free(km);
		return -ENOMEM;
	}
	km->ids_cap = (size_t)1 << (bits - 1);
	km->ids = malloc(km->ids_cap * sizeof(*km->ids));
	if (!km->ids) {
		slots_free(km->slots, km->mask + 1);
		free(km);
		return -ENOMEM;
	}
	*out = km;
	return 0;
}

/**
 * hs_keymap_free() - release a map
 * @km: the map, or NULL
 *
 * Return: nothing.
 */
void hs_keymap_free(struct hs_keymap *km)
{
	if (!km)
		return;
	slots_free(km->slots, km->mask + 1);
	free(km->ids);
	free(km);
}

/* The slow part of an insertion: room in the reverse array and the table. */
static int make_room(struct hs_keymap *km)
{
	if (km->count == HS_KEYMAP_MAX_KEYS)
		return -EOVERFLOW;
	if (km->count == km->ids_cap) {
		size_t cap = km->ids_cap * 2;
		uint64_t *ids = realloc(km->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		km->ids = ids;
		km->ids_cap = cap;
	}
	if (km->count >= km->limit)
		return grow(km);
	return 0;
}

/**
 * hs_keymap_add() - the dense id of @key, assigning the next one if it is new
 * @km: the map
 * @key: original id (any value)
 * @id: receives the dense id
 *
 * Return: 0 if @key was known, 1 if it was added, -ENOMEM, or -EOVERFLOW
 * when HS_KEYMAP_MAX_KEYS keys are mapped already.
 */
int hs_keymap_add(struct hs_keymap *km, uint64_t key, uint32_t *id)
{
	size_t i = hash(key) & km->mask;
	int err;

	for (;;) {
		struct km_slot *s = &km->slots[i];

		if (!s->id1)
			break;
		if (s->key == key) {
			*id = s->id1 - 1;
			return 0;
		}
		i = (i + 1) & km->mask;
	}
	if (unlikely(km->count >= km->limit || km->count == km->ids_cap ||
		     km->count == HS_KEYMAP_MAX_KEYS)) {
		err = make_room(km);
		if (err)
			return err;
		/* the table may have been rebuilt: find the free slot again */
		i = hash(key) & km->mask;
		while (km->slots[i].id1)
			i = (i + 1) & km->mask;
	}
	km->slots[i].key = key;
	km->slots[i].id1 = km->count + 1;
	km->ids[km->count] = key;
	*id = km->count++;
	return 1;
}

/**
 * hs_keymap_add_many() - hs_keymap_add() for an array of keys
 * @km: the map
 * @keys: original ids
 * @n: their number
 * @ids: receives the dense ids
 *
 * Faster than one call per key on large maps: the table slot of the key a few
 * places ahead is prefetched, so several cache misses are in flight at once.
 *
 * Return: keys added (new), -ENOMEM or -EOVERFLOW (then @ids is valid only
 * for the keys before the failing one).
 */
long hs_keymap_add_many(struct hs_keymap *km, const uint64_t *keys, size_t n, uint32_t *ids)
{
	long added = 0;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			__builtin_prefetch(&km->slots[hash(keys[i + PREFETCH_AHEAD]) & km->mask]);
		ret = hs_keymap_add(km, keys[i], &ids[i]);
		if (unlikely(ret < 0))
			return ret;
		added += ret;
	}
	return added;
}

/**
 * hs_keymap_lookup() - the dense id of a known key
 * @km: the map
 * @key: original id
 * @id: receives the dense id
 *
 * Return: true if @key is mapped.
 */
bool hs_keymap_lookup(const struct hs_keymap *km, uint64_t key, uint32_t *id)
{
	size_t i = hash(key) & km->mask;

	for (;;) {
		const struct km_slot *s = &km->slots[i];

		if (!s->id1)
			return false;
		if (s->key == key) {
			*id = s->id1 - 1;
			return true;
		}
		i = (i + 1) & km->mask;
	}
}

/**
 * hs_keymap_count() - keys mapped so far
 * @km: the map
 *
 * Return: the number of keys, which is also the next dense id.
 */
uint32_t hs_keymap_count(const struct hs_keymap *km)
{
	return km->count;
}

/**
 * hs_keymap_ids() - the reverse array
 * @km: the map
 *
 * Return: original ids in dense-id order (hs_keymap_count() entries), valid
 * until the next hs_keymap_add().
 */
const uint64_t *hs_keymap_ids(const struct hs_keymap *km)
{
	return km->ids;
}
