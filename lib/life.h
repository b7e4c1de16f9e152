/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vocabulary of folio lives, shared by the lifecycle builder
 * (lib/lifecycle.c), the store (lib/store.c, lib/store-rec.c), the recorder
 * and every analysis of a recorded session: kinds of folio, causes of death,
 * one life, one key of the recorded stream, and their names.  Nothing here
 * computes; the builder that produces lives is lib/lifecycle.h.
 */
#ifndef HS_LIFE_H
#define HS_LIFE_H

#include <stdbool.h>
#include <stdint.h>

/* The block-device page cache (filesystem metadata): kernel dev_t 0:3. */
#define HS_LC_BDEV_DEV		3u

/* Page size the keys are in: addresses map to pages by >> this. */
#define HS_LC_PAGE_SHIFT	12

/* Largest folio order taken from an event; larger ones are bad data. */
#define HS_LC_MAX_ORDER		12

enum hs_life_kind {
	HS_LIFE_FILE	= 0,	/* page cache of a regular file: (dev, ino, index) */
	HS_LIFE_ANON	= 1,	/* anonymous memory: (tgid, page address) */
	HS_LIFE_BDEV	= 2,	/* block-device page cache (metadata): dev HS_LC_BDEV_DEV,
				 * ino = the block device, index = device offset / 4 KiB */
	HS_LIFE_KIND_NR
};

enum hs_death_cause {
	HS_DEATH_NONE		= 0,	/* still alive when the stream ended */
	HS_DEATH_RECLAIM	= 1,	/* LRU reclaim: memcg/direct/node reclaim or kswapd */
	HS_DEATH_PAGEOUT	= 2,	/* proactive reclaim: mm_vmscan_reclaim_pages
					 * (MADV_PAGEOUT, DAMON) */
	HS_DEATH_TRUNCATE	= 3,	/* removed for no reclaim reason: truncate, invalidate,
					 * inode shrinking, unmap, process exit */
	HS_DEATH_UNKNOWN	= 4,	/* the events that would tell were lost or are missing */
	HS_DEATH_NR
};

/* struct hs_folio_life flags */
#define HS_LIFE_F_READAHEAD	0x01u	/* added inside a readahead window of the adding task,
					 * not the pages its read or fault waits for */
#define HS_LIFE_F_UNSEEN_BIRTH	0x02u	/* no add was seen (resident before the trace, or
					 * added in a gap): born_ns is 0 */
#define HS_LIFE_F_GAP		0x04u	/* a lost-events gap fell inside this life, or between
					 * its key's previous death and this birth */
#define HS_LIFE_F_SWAPIN	0x08u	/* anon: inferred swap-in (a fault on a swapped-out page) */
#define HS_LIFE_F_SWAPOUT	0x10u	/* anon: ended by swap-out (mm_vmscan_write_folio) */
#define HS_LIFE_F_SPLIT		0x20u	/* a piece of a larger folio split without an event */

/**
 * struct hs_folio_life - one stay of one folio in memory
 *
 * Lives are numbered in the order they are created (pieces of a split folio
 * are created when the split is found), which is birth order except for
 * those pieces and for lives of unseen birth.
 */
struct hs_folio_life {
	uint8_t		kind;		/* enum hs_life_kind */
	uint8_t		death_cause;	/* enum hs_death_cause; HS_DEATH_NONE while alive */
	uint8_t		flags;		/* HS_LIFE_F_* */
	bool		refault;	/* its key's previous life ended by reclaim or pageout */
	bool		workload;	/* the workload's own: brought in by a task in its scope
					 * (file: the adding task; anon: the faulting process),
					 * or named by a streamed access while alive; set only
					 * by a build with a scope (HS_LC_SCOPED) */
	int32_t		tgid;		/* anon: the process; else 0 */
	uint64_t	dev;		/* file/bdev: kernel dev_t (major << 20 | minor); else 0 */
	uint64_t	ino;		/* file/bdev: inode number; else 0 */
	uint64_t	address;	/* anon: virtual address of the first page; else 0 */
	uint64_t	first_page;	/* file/bdev: index of the first page; anon: address
					 * >> HS_LC_PAGE_SHIFT */
	uint64_t	pages;		/* pages covered (2^order, less after a split) */
	uint64_t	pfn;		/* head pfn when known, else 0 */
	uint64_t	born_ns;	/* add (file) or fault (anon) time; 0 with UNSEEN_BIRTH */
	uint64_t	died_ns;	/* the death event's time; 0 while alive */
	uint64_t	refault_distance; /* refault only: pages that died by reclaim or pageout
					   * (any key) after the previous life's death and
					   * before this birth; 0 otherwise */
	uint64_t	refault_ns;	/* refault only: born_ns - the previous life's died_ns */
	uint64_t	accesses;	/* access events (FD, PT, touches) on its pages while
					 * alive, streamed or not */
	uint64_t	activations;	/* mm_lru_activate events joined to it */
};

/**
 * struct hs_lc_key - one entry of the key table (a page, not a folio)
 *
 * The access stream names pages by their id in this table (0, 1, 2, ... in
 * order of first use); the store's session writer takes that id as the
 * original 64-bit key.
 */
struct hs_lc_key {
	uint8_t		kind;		/* enum hs_life_kind */
	int32_t		tgid;		/* anon: the process; else 0 */
	uint64_t	dev;		/* file/bdev: kernel dev_t; else 0 */
	uint64_t	ino;		/* file/bdev: inode; else 0 */
	uint64_t	index;		/* file/bdev: page index; anon: the virtual page,
					 * address >> HS_LC_PAGE_SHIFT */
	uint64_t	address;	/* anon: the page's virtual address; else 0 */
};

/**
 * hs_death_cause_name() - "alive", "reclaim", "pageout", "truncate", "unknown"
 * @cause: enum hs_death_cause
 *
 * Return: the name, or "?" for a bad value.
 */
const char *hs_death_cause_name(enum hs_death_cause cause);

/**
 * hs_life_kind_name() - "file", "anon", "bdev"
 * @kind: enum hs_life_kind
 *
 * Return: the name, or "?" for a bad value.
 */
const char *hs_life_kind_name(enum hs_life_kind kind);

#endif /* HS_LIFE_H */
