/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The access vocabulary shared by the store, the importers, the generators and
 * the simulation driver.  A stored session is a stream of page-sized accesses,
 * each naming a dense key id (0 .. distinct_keys - 1) and one "meta" byte that
 * packs the channel, the key's type and a write flag.
 *
 * Channels are the kernel's: FD accesses go through read()/write() and the page
 * cache (folio_mark_accessed), PT accesses go through a mapping and are seen by
 * the hardware accessed bit.  PAGEOUT and COLD are madvise() hints, DROP is a
 * removal that no policy chose (truncate, invalidate).  READAHEAD is a page the
 * kernel inserted without a demand access (readahead), at the position it
 * entered: an insertion without a reference.  Hints, drops and readahead
 * insertions are not accesses: they never count as hits or misses.
 */
#ifndef HS_ACCESS_H
#define HS_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

enum hs_channel {
	HS_CH_FD	= 0,	/* read()/write() through the page cache */
	HS_CH_PT	= 1,	/* load/store through a page table (fault, accessed bit) */
	HS_CH_PAGEOUT	= 2,	/* MADV_PAGEOUT / DAMON pageout hint: reclaim this page */
	HS_CH_COLD	= 3,	/* MADV_COLD hint: move this page to the eviction end */
	HS_CH_DROP	= 4,	/* the kernel removed the page (truncate, invalidate) */
	HS_CH_READAHEAD	= 5,	/* the kernel brought the page in without a demand access
				 * (readahead); recorded (timed) streams only */
	HS_CH_NR
};

enum hs_type {
	HS_TYPE_FILE	= 0,	/* page cache (kernel LRU_GEN_FILE) */
	HS_TYPE_ANON	= 1,	/* anonymous memory (kernel LRU_GEN_ANON) */
};

/* Layout of the meta byte stored with every access. */
#define HS_META_CHANNEL_MASK	0x07u	/* enum hs_channel */
#define HS_META_ANON		0x08u	/* key is anonymous memory (else page cache) */
#define HS_META_WRITE		0x10u	/* the access wrote the page */
/*
 * PT only: the mapping ignores recency (MADV_RANDOM or MADV_SEQUENTIAL,
 * vma_has_recency() false): the kernel's folio_referenced() skips the
 * mapping's young PTEs, MGLRU's aging walk skips the VMA, and a fault there
 * adds the folio without PG_active (lru_gen_enter_fault()).  The kernel
 * models take such an access as seen by nobody: it brings the page in and
 * leaves no reference.  Set by workloads that advise their mappings so.
 */
#define HS_META_NORECENCY	0x20u

static inline uint8_t hs_meta_make(enum hs_channel ch, enum hs_type type, bool write)
{
	return (uint8_t)(ch | (type == HS_TYPE_ANON ? HS_META_ANON : 0) |
			 (write ? HS_META_WRITE : 0));
}

static inline enum hs_channel hs_meta_channel(uint8_t meta)
{
	return (enum hs_channel)(meta & HS_META_CHANNEL_MASK);
}

static inline bool hs_channel_is_access(enum hs_channel ch)
{
	return ch == HS_CH_FD || ch == HS_CH_PT;
}

/* "pt"/"fd"/"pageout"/"cold"/"drop"/"readahead"; "?" for a bad value. */
const char *hs_channel_name(enum hs_channel ch);

/**
 * struct hs_access - one page access as the driver hands it to a policy
 *
 * Valid only during the hook call it is passed to.
 */
struct hs_access {
	uint64_t	seq;		/* virtual time: index of this access among accesses
					 * (hints, drops and readahead insertions do not
					 * advance it) */
	uint64_t	next_use;	/* seq of the next access to the same key, or
					 * HS_NEVER; filled only for HS_POLICY_NEEDS_FUTURE */
	uint32_t	key;		/* dense key id */
	uint8_t		channel;	/* enum hs_channel */
	uint8_t		type;		/* enum hs_type */
	bool		write;		/* the access wrote the page */
	bool		norecency;	/* PT through a mapping without recency
					 * (HS_META_NORECENCY) */
	bool		deactivate;	/* COLD only: not a madvise() but the kernel's own
					 * folio_deactivate() (DAMON_LRU_SORT's cold action,
					 * hs_sim_deactivate()): no page-table walk, no
					 * young bit cleared; never in a stream */
	bool		tlb_hit;	/* PT only: the page's translation was cached
					 * (hs_sim_config.tlb, a recorded session's TLB
					 * flushes): the hardware walked no page table
					 * and set no accessed bit.  False without the
					 * model */
};

#define HS_NEVER	UINT64_MAX

#endif /* HS_ACCESS_H */
