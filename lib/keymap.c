/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dense-id map (see keymap.h).  Slots hold a tag (the key itself for a
 * one-word key -- its low word while all keys fit in 32 bits, struct
 * km_nslot -- its hash for a wider one) and the dense id plus one, so that a
 * zeroed slot is empty and freshly mapped (zero) pages need no
 * initialization.  Keys are hashed with the MurmurHash3 finalizer (sequential
 * block numbers and strided addresses spread as well as random ids; a wide
 * key chains it over its words) and probed linearly.  The table doubles when
 * it would pass 4/5 full; the new table is filled by a scan of the old one
 * in slot order, which writes the new one in ascending runs (rebuild()).
 * One probe loop serves every width; it is inlined with a constant width
 * into the one-word entry points, which therefore run as they did before
 * wide keys existed.
 *
 * At 3.7 M keys (a 64 MiB table) an import's map is at the memory's floor on
 * this project's VM: random 8-byte reads of a 64 MiB array, prefetched 32
 * ahead, take 12.7 ns each (8 MiB: 7.6, 2 MiB: 4.2), and
 * add_many_narrow() takes 19-21 ns a key over z3.7M's 10 M keys (14-15 with
 * every key known).  Tried on it and not kept (micro-benchmark, the table
 * sized, best of 7): a second prefetch of the next line when the home slot
 * is in a line's last 2-3 slots (19.0-19.6 -> 20-25 ns); prefetches to L2
 * only (T1, T2: 21-27); the new-key store without a branch, written to a
 * dummy slot when the key was found (20 -> 24 ns; "again" 14 -> 19.5); a
 * direct-mapped cache of early keys (2^15-2^17 slots) looked up before the
 * table's prefetch, so that a hit skips the table (2-3 times slower: the
 * cache's load is a miss that the table's prefetch then waits on, and
 * prefetching the cache a stage earlier still 30-54 ns); for an oracle
 * trace, a ring in which each record leaves its key and id at the position
 * of its next access (2^18 slots, 2 MiB), so that 76 % of z763K's records
 * find their id there without the table: 12.5 -> 30.7 ns, the ring's random
 * stores and their prefetches costing more than the lookups they saved.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hs.h"
#include "keymap.h"

#define MIN_BITS	10	/* smallest table: 1024 slots */
#define HUGE_BYTES	(2u << 20)	/* hs_huge_alloc()'s huge page */
/*
 * hs_keymap_add_many(): keys between prefetch and use.  32 rather than 16:
 * with 16, lookups in a 64 MiB table (3.7 M keys) waited on the slot they
 * had prefetched; a micro-benchmark of the map alone on the zipf traces,
 * 16 against 32 (ns a key, table sized at the start): 12.5-15 -> 9.9-12.9 at
 * 3.7 M keys, 9.9-11.5 -> 7.3-10.5 at 763 K, 5.0-6.9 -> 4.4-4.7 at 81 K;
 * 64 was no better.
 */
#define PREFETCH_AHEAD	32
#define RUNS_AHEAD	16	/* add_many_runs(): its bit ring (a uint32_t) of keys ahead */
#define RUN_AHEAD	64	/* hs_keymap_add_many(): a run's records prefetched */
#define RECS_RESERVED	((size_t)HS_KEYMAP_MAX_KEYS + 1)	/* records a reserved array holds */
/* A reserved narrow table: 2^33 slots (64 GiB of address space), HS_KEYMAP_MAX_KEYS at 4/5 */
#define SLOTS_RESERVED_BITS	33
#define KM_INLINE	static inline __attribute__((always_inline))	/* width a constant */

/*
 * A slot holds a tag and the dense id plus one.  For a one-word key the tag is
 * the key itself, so a probe never leaves the slot array; for a wider key it
 * is the key's 64-bit hash, and a matching tag is confirmed against the key
 * at the head of the record.
 */
struct km_slot {
	uint64_t	tag;		/* key or hash; meaningful only when id1 != 0 */
	uint32_t	id1;		/* dense id + 1; 0 marks an empty slot */
	uint32_t	pad;		/* keeps slots 16 bytes, four per cache line */
};

/*
 * A one-word map starts narrow: while every key is below 2^32, as block
 * numbers and cache2k ids are, a slot holds the key's low word and the id,
 * 8 bytes, eight per cache line.  Half the table means half the huge pages
 * to zero as it doubles (on this project's VM the kernel's zeroing of the
 * tables of a P12 import, 124 MiB, was a fifth of its time) and more of it
 * in the cache.  The first key of 2^32 or more widens the table (widen()).
 */
struct km_nslot {
	uint32_t	key;		/* the key, below 2^32 */
	uint32_t	id1;		/* dense id + 1; 0 marks an empty slot */
};

#define NARROW_SHIFT	3	/* log2 sizeof(struct km_nslot) */
#define WIDE_SHIFT	4	/* log2 sizeof(struct km_slot) */

static inline bool is_narrow(const struct hs_keymap *km)
{
	return km->slot_shift == NARROW_SHIFT;
}

static inline struct km_slot *wslot(const struct hs_keymap *km, size_t i)
{
	return &km->slots[i];
}

static inline struct km_nslot *nslot(const struct hs_keymap *km, size_t i)
{
	return &((struct km_nslot *)(void *)km->slots)[i];
}

/* The address of slot @i, either width (for a prefetch). */
static inline const void *slot_addr(const struct hs_keymap *km, size_t i)
{
	return (const char *)km->slots + (i << km->slot_shift);
}

/* Whether slot @i of a one-word (@words 1) or wider map is taken. */
static inline bool slot_taken(const struct hs_keymap *km, unsigned int words, size_t i)
{
	return words == 1 && is_narrow(km) ? nslot(km, i)->id1 : wslot(km, i)->id1;
}

/* Fill slot @i with @tag (the key, below 2^32 in a narrow table) and id @id. */
static inline void slot_put(struct hs_keymap *km, unsigned int words, size_t i, uint64_t tag,
			    uint32_t id)
{
	if (words == 1 && is_narrow(km)) {
		nslot(km, i)->key = (uint32_t)tag;
		nslot(km, i)->id1 = id + 1;
	} else {
		wslot(km, i)->tag = tag;
		wslot(km, i)->id1 = id + 1;
	}
}

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
 * The hash of a key of @words words (always inlined with a constant @words
 * on the one-word paths) and its tag.
 */
KM_INLINE uint64_t key_hash(const uint64_t *key, unsigned int words)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	if (words == 1)
		return hash(key[0]);
	for (i = words; i-- > 0;)
		h = hash(key[i] ^ h);
	return h;
}

KM_INLINE uint64_t key_tag(const uint64_t *key, unsigned int words, uint64_t h)
{
	return words == 1 ? key[0] : h;
}

KM_INLINE bool key_eq(const struct hs_keymap *km, const struct km_slot *s,
			  const uint64_t *key, unsigned int words, uint64_t tag)
{
	const uint64_t *k;
	unsigned int i;

	if (s->tag != tag)
		return false;
	if (words == 1)
		return true;
	k = hs_keymap_rec(km, s->id1 - 1);
	for (i = 0; i < words; i++) {
		if (k[i] != key[i])
			return false;
	}
	return true;
}

/*
 * Big tables in huge pages (hs_huge_alloc()): lookups are random, and with
 * 4 KiB pages nearly every one would also miss the TLB and the first touch of
 * every page would fault.
 */
static struct km_slot *slots_alloc(size_t n, unsigned int shift)
{
	return hs_huge_alloc(n << shift);
}

static void slots_free(struct km_slot *slots, size_t n, unsigned int shift)
{
	hs_huge_free(slots, n << shift);
}

/*
 * The record array too: it is only appended to, but its first touch of every
 * 4 KiB page was a fault, and on this project's VM 8,192 of them (a 32 MiB
 * array, P12's 3.15 M keys) cost more than a third of the map's time.  It
 * doubles by a copy into a new mapping (a few ms at that size) instead of
 * realloc().
 */
static char *recs_alloc(size_t n, size_t rec_size)
{
	return hs_huge_alloc(n * rec_size);
}

static void recs_free(char *recs, size_t n, size_t rec_size)
{
	hs_huge_free(recs, n * rec_size);
}

/* Free the slot array, the whole reserved range if it is one. */
static void table_free(struct km_slot *slots, size_t n, unsigned int shift, size_t res)
{
	if (res)
		hs_huge_free(slots, res);
	else
		slots_free(slots, n, shift);
}

/* A table of 2^@bits slots: its mask, and the count it may hold (4/5 full). */
static void table_size(struct hs_keymap *km, unsigned int bits)
{
	km->bits = bits;
	km->mask = ((size_t)1 << bits) - 1;
	km->limit = ((size_t)1 << bits) / 5 * 4;
}

static int table_alloc(struct hs_keymap *km, unsigned int bits, unsigned int shift)
{
	struct km_slot *slots = slots_alloc((size_t)1 << bits, shift);

	if (!slots)
		return -ENOMEM;
	km->slots = slots;
	km->slot_shift = shift;
	table_size(km, bits);
	return 0;
}

/*
 * Make the table anew with 2^@bits slots of 2^@shift bytes and place every
 * key again, scanning the old table in slot order.  A key's home in the new
 * table is its old home or, when the table doubles, that plus the old size:
 * the scan writes two ascending runs of slots and reads one, where placing
 * the keys in id order (from the record array) wrote one random slot per key
 * -- cache misses that prefetching only overlapped, 11 % of a 3.7 M-key
 * import on this project's VM.  The order of insertion does not matter to
 * linear probing's lookups, and ids stay as they are.  A one-word key is
 * its tag and is hashed again; a wider key's tag is its hash.
 */
static int rebuild(struct hs_keymap *km, unsigned int bits, unsigned int shift)
{
	struct hs_keymap old = *km;
	size_t i, j, old_n = km->mask + 1;
	bool narrow = is_narrow(km);

	if (bits >= sizeof(size_t) * 8 - 5)
		return -ENOMEM;
	if (table_alloc(km, bits, shift))
		return -ENOMEM;		/* the old table is unchanged and still usable */
	km->slots_res = 0;
	for (i = 0; i < old_n; i++) {
		uint64_t tag;
		uint32_t id1;

		if (narrow) {
			id1 = nslot(&old, i)->id1;
			tag = nslot(&old, i)->key;
		} else {
			id1 = wslot(&old, i)->id1;
			tag = wslot(&old, i)->tag;
		}
		if (!id1)
			continue;
		j = (km->words == 1 ? hash(tag) : tag) & km->mask;
		while (slot_taken(km, km->words, j))
			j = (j + 1) & km->mask;
		slot_put(km, km->words, j, tag, id1 - 1);
	}
	table_free(old.slots, old_n, old.slot_shift, old.slots_res);
	return 0;
}

/* Slot @j of a narrow table taken, probing on from @j with @mask: the first free one. */
static inline size_t narrow_free(const struct hs_keymap *km, size_t j, size_t mask)
{
	while (nslot(km, j)->id1)
		j = (j + 1) & mask;
	return j;
}

/*
 * Double a narrow table inside its reserved address space: the old slots
 * stay where they are and the new upper half is fresh zero pages.  A
 * rebuild into a new table (rebuild()) has the kernel zero twice the
 * table's final size over an import, the old tables included, and on this
 * project's VM first touches of fresh pages cost up to a third of a 3.7 M-key
 * import; growing in place, they cost the final size once.
 *
 * A key's new home is its old home h or h + N (N the old size).  The old
 * slots are taken out one by one in ascending order and placed again,
 * starting after an empty slot s so that no cluster is entered in its
 * middle; the cluster at the start, which may hold keys wrapped around from
 * the end, is set aside first and placed last.  Then every slot a key is
 * placed into is one already visited (at most the one it left: its chain
 * from h was all taken) or in the upper half, and a probe that wraps from
 * the top comes to the bottom's visited slots: no key is placed beyond a
 * slot that will be emptied later, so every chain stays whole.
 * Return: 0, or -ENOMEM (the table unchanged).
 */
static int grow_in_place(struct hs_keymap *km)
{
	size_t i, j, s, n = km->mask + 1, mask = 2 * n - 1;
	struct km_nslot *aside;

	for (s = 0; nslot(km, s)->id1; s++)
		;
	aside = malloc(HS_MAX(s, (size_t)1) * sizeof(*aside));
	if (!aside)
		return -ENOMEM;
	for (i = 0; i < s; i++) {
		aside[i] = *nslot(km, i);
		nslot(km, i)->id1 = 0;
	}
	for (i = s + 1; i < n; i++) {
		struct km_nslot e = *nslot(km, i);

		if (!e.id1)
			continue;
		nslot(km, i)->id1 = 0;
		j = narrow_free(km, hash(e.key) & mask, mask);
		*nslot(km, j) = e;
	}
	for (i = 0; i < s; i++) {
		j = narrow_free(km, hash(aside[i].key) & mask, mask);
		*nslot(km, j) = aside[i];
	}
	free(aside);
	table_size(km, km->bits + 1);
	return 0;
}

/* Double the table. */
static int grow(struct hs_keymap *km)
{
	if (km->slots_res && km->words == 1 && is_narrow(km) &&
	    (size_t)2 << km->bits << NARROW_SHIFT <= km->slots_res)
		return grow_in_place(km);
	return rebuild(km, km->bits + 1, km->slot_shift);
}

/* A narrow table of the same size, wide: a key of 2^32 or more is coming. */
static int widen(struct hs_keymap *km)
{
	return rebuild(km, km->bits, WIDE_SHIFT);
}

/**
 * hs_keymap_new_rec() - an empty map of wide keys with a record per key
 * @words: key width in 64-bit words, 1 .. HS_KEYMAP_MAX_WORDS
 * @rec_size: bytes per record, at least the key's; a multiple of 8
 * @expect: keys expected (a sizing hint; 0 is fine)
 * @out: the map
 *
 * Return: 0, -EINVAL for a bad width or size, or -ENOMEM.
 */
int hs_keymap_new_rec(unsigned int words, size_t rec_size, size_t expect,
		      struct hs_keymap **out)
{
	struct hs_keymap *km;
	unsigned int bits = MIN_BITS;

	if (!words || words > HS_KEYMAP_MAX_WORDS || rec_size < words * sizeof(uint64_t) ||
	    rec_size % sizeof(uint64_t))
		return -EINVAL;
	km = calloc(1, sizeof(*km));
	if (!km)
		return -ENOMEM;
	while (bits < 40 && ((size_t)1 << bits) / 5 * 4 < expect)
		bits++;
	/*
	 * A narrow table of huge pages gets address space for the largest
	 * narrow table there can be, and doubles inside it (grow_in_place()).
	 */
	if (words == 1 && ((size_t)1 << bits << NARROW_SHIFT) >= HUGE_BYTES &&
	    bits < SLOTS_RESERVED_BITS) {
		km->slots = hs_huge_reserve((size_t)1 << SLOTS_RESERVED_BITS << NARROW_SHIFT);
		if (km->slots) {
			km->slots_res = (size_t)1 << SLOTS_RESERVED_BITS << NARROW_SHIFT;
			km->slot_shift = NARROW_SHIFT;
			table_size(km, bits);
		}
	}
	if (!km->slots && table_alloc(km, bits, words == 1 ? NARROW_SHIFT : WIDE_SHIFT)) {
		free(km);
		return -ENOMEM;
	}
	km->words = words;
	km->rec_size = rec_size;
	km->recs_cap = (size_t)1 << (bits - 1);
	/*
	 * A table of huge pages gets its records in whole huge pages from the
	 * start, in address space for every id there can be: the array then
	 * grows in place, where doubling it copied every record into new pages
	 * (on P12, 3.15 M keys, 30 MiB copied and 62 MiB of pages zeroed for
	 * 25 MiB of records).
	 */
	if (((size_t)1 << bits << km->slot_shift) >= HUGE_BYTES) {
		km->recs = hs_huge_reserve(RECS_RESERVED * rec_size);
		if (km->recs)
			km->recs_cap = RECS_RESERVED;
		else
			km->recs_cap = HS_MAX(km->recs_cap, HUGE_BYTES / rec_size);
	}
	if (!km->recs)
		km->recs = recs_alloc(km->recs_cap, rec_size);
	if (!km->recs) {
		table_free(km->slots, km->mask + 1, km->slot_shift, km->slots_res);
		free(km);
		return -ENOMEM;
	}
	*out = km;
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
	return hs_keymap_new_rec(1, sizeof(uint64_t), expect, out);
}

/*
 * hs_keymap_expect() of a narrow table in reserved address space: the new
 * size's pages are faulted in at once where the kernel can
 * (MADV_POPULATE_WRITE: one call instead of a fault per huge page, and the
 * prefetches of the first lookups then land), and the keys already mapped
 * -- a few, early in an import -- are taken out and placed again, in one
 * step rather than in a doubling per power of two (grow_in_place() would
 * scan each larger table once more).  Return: 0 or -ENOMEM (unchanged).
 */
static int expect_in_place(struct hs_keymap *km, unsigned int bits)
{
	size_t i, j, k = 0, n = km->mask + 1, mask = ((size_t)1 << bits) - 1;
	struct km_nslot *keep = NULL;

	if (km->count) {
		keep = malloc(km->count * sizeof(*keep));
		if (!keep)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			if (nslot(km, i)->id1) {
				keep[k++] = *nslot(km, i);
				nslot(km, i)->id1 = 0;
			}
		}
	}
#ifdef MADV_POPULATE_WRITE
	(void)madvise(km->slots, (mask + 1) << NARROW_SHIFT, MADV_POPULATE_WRITE);
#endif
	table_size(km, bits);
	for (i = 0; i < k; i++) {
		if (i + PREFETCH_AHEAD < k)	/* homes at random in the larger table */
			__builtin_prefetch(nslot(km, hash(keep[i + PREFETCH_AHEAD].key) & mask), 1);
		j = narrow_free(km, hash(keep[i].key) & mask, mask);
		*nslot(km, j) = keep[i];
	}
	free(keep);
	return 0;
}

/**
 * hs_keymap_expect() - make room for @keys keys now rather than as they come
 * @km: the map
 * @keys: keys expected in all (an estimate)
 *
 * Doubling the table as keys arrive cost more than the lookups themselves
 * on an import of millions of keys: a 3.7 M-key import moved 6.5 M keys in
 * five doublings and faulted in each new half on this project's VM, 0.11-0.12
 * s of its map's 0.25-0.29 s, and the keys went into a table at 40-80 %
 * load instead of below 45 %.  A table sized early from an estimate (an
 * import's: hs_session_expect_keys()) skips both.  An in-place table (grow_in_place())
 * takes the size in place (expect_in_place()), another is rebuilt at it.
 * The estimate is only a hint: more keys grow the table as before.
 *
 * An estimate sizes the table to at most 5/8 full, not 4/5 as growth does:
 * above that, linear probing's clusters make a lookup run past the line
 * its slot's prefetch brought in, a second miss it waits on, and the keys
 * new to the table probe further still.  z763K's 775 K estimated keys put
 * 74 % in 2^20 slots (8 MiB) and 37 % in 2^21 (16 MiB); whole imports,
 * CPU per record, medians of 11-15 interleaved rounds (a busy VM):
 * oracle 29.6 -> 27.8 ns, 28.7 -> 26.0, u32be 27.2 -> 25.0, 26.1 -> 24.4,
 * the larger table's 8 MiB more of zeroed pages included.  Doubling
 * z3.7M's table, 45 % full in 64 MiB, did not pay: 0.8 ns a record less
 * user time, 1.6 more of the kernel's zeroing; 5/8 stays clear of that.
 *
 * Return: 0, or -ENOMEM (the map unchanged and still usable).
 */
int hs_keymap_expect(struct hs_keymap *km, size_t keys)
{
	unsigned int bits = km->bits;

	while (bits < SLOTS_RESERVED_BITS && ((size_t)1 << bits) / 8 * 5 < keys)
		bits++;
	if (bits <= km->bits)
		return 0;
	if (!km->slots_res || !is_narrow(km) || km->words != 1 ||
	    (size_t)1 << bits << NARROW_SHIFT > km->slots_res)
		return rebuild(km, bits, km->slot_shift);
	return expect_in_place(km, bits);
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
	table_free(km->slots, km->mask + 1, km->slot_shift, km->slots_res);
	recs_free(km->recs, km->recs_cap, km->rec_size);
	free(km);
}

/*
 * The slow part of an insertion: room in the record array and the table,
 * and a wide table for a @wide key (2^32 or more, one word).
 */
static int make_room(struct hs_keymap *km, bool wide)
{
	int err;

	if (km->count == HS_KEYMAP_MAX_KEYS)
		return -EOVERFLOW;
	if (wide && is_narrow(km)) {
		err = widen(km);
		if (err)
			return err;
	}
	if (km->count == km->recs_cap) {
		size_t cap = km->recs_cap * 2;
		char *recs = recs_alloc(cap, km->rec_size);

		if (!recs)
			return -ENOMEM;
		memcpy(recs, km->recs, km->recs_cap * km->rec_size);
		recs_free(km->recs, km->recs_cap, km->rec_size);
		km->recs = recs;
		km->recs_cap = cap;
	}
	if (km->count >= km->limit)
		return grow(km);
	return 0;
}

/*
 * The one probe loop: look @key (@words words, the map's width) up.  Inlined
 * into each caller, so the one-word paths compile to a scan of the slot array
 * alone.  Return: true and *@id if known; else false, with *@h its hash and
 * *@slot the empty slot that ends its probe.
 */
KM_INLINE bool find_h(const struct hs_keymap *km, const uint64_t *key, unsigned int words,
			  uint64_t h, size_t *slot, uint32_t *id)
{
	uint64_t tag = key_tag(key, words, h);
	size_t i;

	if (words == 1 && is_narrow(km)) {
		/* no key of 2^32 or more is in a narrow table (*slot: none to take) */
		if (unlikely(key[0] >> 32)) {
			*slot = SIZE_MAX;
			return false;
		}
		for (i = h & km->mask;; i = (i + 1) & km->mask) {
			const struct km_nslot *s = nslot(km, i);

			if (!s->id1)
				break;
			if (s->key == (uint32_t)key[0]) {
				*id = s->id1 - 1;
				return true;
			}
		}
		*slot = i;
		return false;
	}
	for (i = h & km->mask;; i = (i + 1) & km->mask) {
		const struct km_slot *s = wslot(km, i);

		if (!s->id1)
			break;
		if (key_eq(km, s, key, words, tag)) {
			*id = s->id1 - 1;
			return true;
		}
	}
	*slot = i;
	return false;
}

/* find_h() of a key whose hash is not known yet, which goes to *@h. */
KM_INLINE bool find(const struct hs_keymap *km, const uint64_t *key, unsigned int words,
			uint64_t *h, size_t *slot, uint32_t *id)
{
	*h = key_hash(key, words);
	return find_h(km, key, words, *h, slot, id);
}

/*
 * Find @key, adding it with the next dense id and a zeroed record if new.
 * Return: 0 (known), 1 (added), -ENOMEM or -EOVERFLOW.
 */
KM_INLINE int find_add_h(struct hs_keymap *km, const uint64_t *key, unsigned int words,
			     uint64_t h, uint32_t *id)
{
	size_t i, kb = words * sizeof(uint64_t);
	char *rec;
	int err;

	if (find_h(km, key, words, h, &i, id))
		return 0;
	if (unlikely(km->count >= km->limit || km->count == km->recs_cap ||
		     km->count == HS_KEYMAP_MAX_KEYS || i == SIZE_MAX)) {
		err = make_room(km, i == SIZE_MAX);
		if (err)
			return err;
		/* the table may have been rebuilt: find the free slot again */
		i = h & km->mask;
		while (slot_taken(km, words, i))
			i = (i + 1) & km->mask;
	}
	rec = hs_keymap_rec(km, km->count);
	memcpy(rec, key, kb);
	if (km->rec_size > kb)
		memset(rec + kb, 0, km->rec_size - kb);
	slot_put(km, words, i, key_tag(key, words, h), km->count);
	*id = km->count++;
	return 1;
}

/* find_add_h() with the key's hash computed here. */
KM_INLINE int find_add(struct hs_keymap *km, const uint64_t *key, unsigned int words,
			   uint32_t *id)
{
	return find_add_h(km, key, words, key_hash(key, words), id);
}

/**
 * hs_keymap_add() - the dense id of @key, assigning the next one if it is new
 * @km: the map (of one-word keys)
 * @key: original id (any value)
 * @id: receives the dense id
 *
 * Return: 0 if @key was known, 1 if it was added, -ENOMEM, or -EOVERFLOW
 * when HS_KEYMAP_MAX_KEYS keys are mapped already.
 */
int hs_keymap_add(struct hs_keymap *km, uint64_t key, uint32_t *id)
{
	return find_add(km, &key, 1, id);
}

/*
 * hs_keymap_add_many() of keys in no particular order: the table slot of the
 * key a few places ahead is prefetched, so several cache misses are in
 * flight at once rather than one per key.
 */
static long add_many_plain(struct hs_keymap *km, const uint64_t *keys, size_t n, uint32_t *ids)
{
	uint64_t ring[PREFETCH_AHEAD];	/* hashes of the prefetched keys, at i % PREFETCH_AHEAD */
	long added = 0;
	size_t i;
	int ret;

	/* each key is hashed once, when its slot is prefetched */
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++) {
		ring[i] = hash(keys[i]);
		__builtin_prefetch(slot_addr(km, ring[i] & km->mask));
	}
	for (i = 0; i < n; i++) {
		uint64_t h = ring[i % PREFETCH_AHEAD];

		if (i + PREFETCH_AHEAD < n) {
			uint64_t ha = hash(keys[i + PREFETCH_AHEAD]);

			ring[i % PREFETCH_AHEAD] = ha;
			__builtin_prefetch(slot_addr(km, ha & km->mask));
		}
		ret = find_add_h(km, &keys[i], 1, h, &ids[i]);
		if (unlikely(ret < 0))
			return ret;
		added += ret;
	}
	return added;
}

/* The first count at which an insertion must make room (make_room()). */
static inline uint32_t room_stop(const struct hs_keymap *km)
{
	size_t stop = HS_MIN(km->limit, km->recs_cap);

	return (uint32_t)HS_MIN(stop, (size_t)HS_KEYMAP_MAX_KEYS);
}

/*
 * add_many_plain() for the common case of an import, a narrow table of
 * one-word keys whose record is the key: the table's address, mask and
 * count live in registers for the whole batch (the generic loop reloads
 * them from *km after every store, which may alias them), and a slot is
 * read as one word.  It stops before a key of 2^32 or more, which needs
 * the table widened.  Return: keys handled, with *@added the new ones; or
 * -ENOMEM / -EOVERFLOW.
 */
static long add_many_narrow(struct hs_keymap *km, const uint64_t *keys, size_t n,
			    uint32_t *ids, long *added)
{
	uint64_t ring[PREFETCH_AHEAD];	/* hashes of the keys ahead, at i % PREFETCH_AHEAD */
	struct km_nslot *slots = (struct km_nslot *)(void *)km->slots;
	uint64_t *recs = (uint64_t *)(void *)km->recs;
	size_t i, j, mask = km->mask;
	uint32_t count = km->count, stop = room_stop(km);
	int err;

	for (i = 0; i < n && i < PREFETCH_AHEAD; i++) {
		ring[i] = hash(keys[i]);
		__builtin_prefetch(&slots[ring[i] & mask]);
	}
	for (i = 0; i < n; i++) {
		uint64_t h = ring[i % PREFETCH_AHEAD], key = keys[i];
		struct km_nslot sl;

		if (i + PREFETCH_AHEAD < n) {
			uint64_t ha = hash(keys[i + PREFETCH_AHEAD]);

			ring[i % PREFETCH_AHEAD] = ha;
			__builtin_prefetch(&slots[ha & mask]);
		}
		if (unlikely(key >> 32))
			break;
		for (j = h & mask;; j = (j + 1) & mask) {
			sl = slots[j];
			if (!sl.id1 || sl.key == (uint32_t)key)
				break;
		}
		if (sl.id1) {
			ids[i] = sl.id1 - 1;
			continue;
		}
		if (unlikely(count >= stop)) {
			km->count = count;
			err = make_room(km, false);
			if (err)
				return err;
			/* the table may be new: its address and size, and the free slot */
			slots = (struct km_nslot *)(void *)km->slots;
			recs = (uint64_t *)(void *)km->recs;
			mask = km->mask;
			stop = room_stop(km);
			for (j = h & mask; slots[j].id1; j = (j + 1) & mask)
				;
			/* the prefetches in flight were of the old table: issue them again */
			for (size_t k = i + 1; k < n && k <= i + PREFETCH_AHEAD; k++)
				__builtin_prefetch(&slots[ring[k % PREFETCH_AHEAD] & mask]);
		}
		recs[count] = key;
		slots[j].key = (uint32_t)key;
		slots[j].id1 = count + 1;
		ids[i] = count++;
		(*added)++;
	}
	km->count = count;
	return (long)i;
}

/*
 * Whether record @i of @keys continues a run of consecutive keys: it is its
 * predecessor plus (or minus) one, as the predecessor was the record's
 * before.  Block traces are mostly such runs (P12: 92 % of its records, a
 * request's blocks in a row), and a run's keys, added in the order first
 * seen, have consecutive dense ids.
 */
static inline bool in_run(const uint64_t *keys, size_t i)
{
	uint64_t d;

	if (i < 2)
		return false;
	d = keys[i] - keys[i - 1];
	return ((d + 1) & ~(uint64_t)2) == 0 && keys[i - 1] - keys[i - 2] == d;
}

/*
 * hs_keymap_add_many() of keys that come mostly in runs (in_run()).  A key
 * of a run is first compared with the key of its predecessor's id plus one,
 * which the record array holds next to the predecessor's: when they match,
 * that is its id (keys are unique), found in memory that the run reads in
 * order, and its table slot is not read at all.  So a run's keys get no
 * prefetch of their slots -- the fill buffers stay free for the keys that
 * need them -- unless keys are being added: a run seen for the first time
 * must probe to add its keys, so from a new key on the run's keys are
 * prefetched too, until a key is found again.  A run that follows a key
 * found in the table has its records prefetched then.  The other keys are
 * prefetched as by add_many_plain().
 */
static long add_many_runs(struct hs_keymap *km, const uint64_t *keys, size_t n, uint32_t *ids)
{
	uint64_t ring[RUNS_AHEAD];	/* hashes of the keys ahead, at i % RUNS_AHEAD */
	uint32_t runs = 0;		/* bit i % RUNS_AHEAD: in_run(keys, i) */
	bool fresh = false;		/* the last probe added its key */
	uint32_t pid = 0;		/* the previous record's id */
	uint32_t step = (uint32_t)HS_MAX(64 / km->rec_size, 1);	/* records a cache line */
	long added = 0;
	size_t i, j;
	int ret;

	for (i = 0; i < n && i < RUNS_AHEAD; i++) {
		ring[i] = hash(keys[i]);
		if (in_run(keys, i))
			runs |= 1u << i;
		else
			__builtin_prefetch(slot_addr(km, ring[i] & km->mask));
	}
	for (i = 0; i < n; i++) {
		unsigned int r = i % RUNS_AHEAD;
		uint64_t h = ring[r];
		bool run = runs >> r & 1;

		if (i + RUNS_AHEAD < n) {
			uint64_t ha = hash(keys[i + RUNS_AHEAD]);
			bool ra = in_run(keys, i + RUNS_AHEAD);

			ring[r] = ha;
			runs = (runs & ~(1u << r)) | (uint32_t)ra << r;
			if (!ra || fresh)
				__builtin_prefetch(slot_addr(km, ha & km->mask));
		}
		if (run && pid + 1 < km->count &&
		    *(const uint64_t *)hs_keymap_rec(km, pid + 1) == keys[i]) {
			ids[i] = ++pid;
			fresh = false;
			continue;
		}
		ret = find_add_h(km, &keys[i], 1, h, &ids[i]);
		if (unlikely(ret < 0))
			return ret;
		added += ret;
		pid = ids[i];
		if (ret && !fresh) {
			/* keys are new: the run's keys already passed over need their slots */
			for (j = i + 1; j < n && j < i + RUNS_AHEAD; j++) {
				if (runs >> (j % RUNS_AHEAD) & 1)
					__builtin_prefetch(slot_addr(km, ring[j % RUNS_AHEAD] &
								     km->mask));
			}
		} else if (!ret && i + 2 < n && runs >> ((i + 2) % RUNS_AHEAD) & 1) {
			/* a run follows: it reads the records after this key's */
			for (j = 1; j < RUN_AHEAD && pid + j < km->count; j += step)
				__builtin_prefetch(hs_keymap_rec(km, pid + (uint32_t)j));
		}
		fresh = ret;
	}
	return added;
}

/**
 * hs_keymap_add_many() - hs_keymap_add() for an array of keys
 * @km: the map (of one-word keys)
 * @keys: original ids
 * @n: their number
 * @ids: receives the dense ids
 *
 * Faster than one call per key on large maps: several cache misses are in
 * flight at once (add_many_plain()), and when the keys come mostly in runs of
 * consecutive values, as a block trace's do, a run's keys are found without
 * their table slots (add_many_runs()).  Every 16th key tells which: a
 * quarter of them in runs picks the second.  The ids are those of one
 * hs_keymap_add() per key.
 *
 * Return: keys added (new), -ENOMEM or -EOVERFLOW (then @ids is valid only
 * for the keys before the failing one).
 */
long hs_keymap_add_many(struct hs_keymap *km, const uint64_t *keys, size_t n, uint32_t *ids)
{
	size_t i, sampled = 0, runs = 0;

	for (i = 2; i < n; i += 16) {
		sampled++;
		runs += in_run(keys, i);
	}
	if (runs && runs >= sampled / 4)
		return add_many_runs(km, keys, n, ids);
	if (km->words == 1 && km->rec_size == sizeof(uint64_t) && is_narrow(km)) {
		long added = 0, done = add_many_narrow(km, keys, n, ids, &added), rest;

		if (done < 0 || (size_t)done == n)
			return done < 0 ? done : added;
		/* a key of 2^32 or more: the generic loop widens the table */
		rest = add_many_plain(km, keys + done, n - (size_t)done, ids + done);
		return rest < 0 ? rest : added + rest;
	}
	return add_many_plain(km, keys, n, ids);
}

/**
 * hs_keymap_lookup() - the dense id of a known key
 * @km: the map (of one-word keys)
 * @key: original id
 * @id: receives the dense id
 *
 * Return: true if @key is mapped.
 */
bool hs_keymap_lookup(const struct hs_keymap *km, uint64_t key, uint32_t *id)
{
	uint64_t h;
	size_t i;

	return find(km, &key, 1, &h, &i, id);
}

/**
 * hs_keymap_add_key() - hs_keymap_add() for a key of the map's width
 * @km: the map
 * @key: the key's words (as many as the map was made with)
 * @id: receives the dense id
 *
 * A new key's record is zeroed after the key.
 *
 * Return: 0 if @key was known, 1 if it was added, -ENOMEM, or -EOVERFLOW.
 */
int hs_keymap_add_key(struct hs_keymap *km, const uint64_t *key, uint32_t *id)
{
	switch (km->words) {	/* a constant width for each inlined copy */
	case 1:
		return find_add(km, key, 1, id);
	case 2:
		return find_add(km, key, 2, id);
	case 3:
		return find_add(km, key, 3, id);
	default:
		return find_add(km, key, HS_KEYMAP_MAX_WORDS, id);
	}
}

/**
 * hs_keymap_lookup_key() - hs_keymap_lookup() for a key of the map's width
 * @km: the map
 * @key: the key's words
 * @id: receives the dense id
 *
 * Return: true if @key is mapped.
 */
bool hs_keymap_lookup_key(const struct hs_keymap *km, const uint64_t *key, uint32_t *id)
{
	uint64_t h;
	size_t i;

	switch (km->words) {
	case 1:
		return find(km, key, 1, &h, &i, id);
	case 2:
		return find(km, key, 2, &h, &i, id);
	case 3:
		return find(km, key, 3, &h, &i, id);
	default:
		return find(km, key, HS_KEYMAP_MAX_WORDS, &h, &i, id);
	}
}

/**
 * hs_keymap_ids() - the reverse array
 * @km: the map (of one-word keys without further state)
 *
 * Return: original ids in dense-id order (hs_keymap_count() entries), valid
 * until the next hs_keymap_add().
 */
const uint64_t *hs_keymap_ids(const struct hs_keymap *km)
{
	return (const uint64_t *)km->recs;
}
