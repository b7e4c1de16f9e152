/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The region model of DAMON_LRU_SORT (hsctl-replay(1), --damon-model
 * regions): DAMON's monitoring of physical addresses, run over a recorded
 * session's page frames as the kernel filled them, and the module's two
 * schemes, whose actions the replay hands to every kernel model.
 *
 * What the kernel does (mm/damon/core.c, paddr.c, ops-common.c, lru_sort.c
 * of 6.12), and what the model keeps of it:
 *
 *  - The monitored space is physical memory, cut into regions (at first
 *    one).  Every sampling interval (5 ms) DAMON checks one page of every
 *    region: a page picked at random in the region at the previous check,
 *    whose accessed state it cleared then; if the page was accessed since,
 *    or is a folio allocated since (its idle flag is clear), the region's
 *    nr_accesses goes up by one.  A frame holding no LRU folio counts as
 *    not accessed.  The model's space is the recorded frames' range; a
 *    frame holds the key of the recorded folio life alive there at the
 *    time (folio_lives.pfn, born_ns, died_ns), and a frame no recorded life
 *    holds (free memory, the kernel's, other cgroups') is never accessed.
 *  - Every aggregation interval (100 ms): adjacent regions whose
 *    nr_accesses differ by at most a tenth of the highest are merged (sizes
 *    weighted, up to the space over min_nr_regions), with the threshold
 *    doubled until there are at most max_nr_regions; a region whose
 *    nr_accesses moved by more than the threshold gets age 0, the others
 *    age + 1 (once per merge pass, as the kernel does).  Then the schemes
 *    act, then nr_accesses restart from 0 and, while there are at most
 *    max_nr_regions / 2 regions, each is split in two (three when the count
 *    did not change since the last split and is below a third of the most)
 *    at random tenths.
 *  - The schemes: hot (nr_accesses at least hot_thres_access_freq of the
 *    most a region can have, 50 % by default: 10 of 20) marks the region's
 *    folios accessed; cold (nr_accesses 0 for cold_min_age) deactivates
 *    them.  Each has a quota of bytes per reset interval (the kernel's time
 *    quota of 10 ms a second turned into bytes by its measured throughput;
 *    here an input), reset every quota_reset_interval_ms; regions are
 *    prioritised by score (hot: nr_accesses; cold: age, older first, on
 *    DAMON's log scale) through a minimum score set from the histogram of
 *    the candidates' bytes, the last region split to fit the quota, and
 *    the next interval starting after the region where the quota ran out.
 *    A region a scheme acted on starts its age over (damos_apply_scheme()),
 *    so a cold region is deactivated again only after another cold_min_age.
 *
 * Or the kernel's own actions instead (--damon-model recorded): a session
 * recorded with damon:damos_before_apply (hsctl-record(1)) holds every region
 * each scheme acted on, when, as the quota cut it; the model then skips the
 * monitoring and, at each recorded cold action, deactivates the recorded
 * pages alive in the region's frames at that moment.  What DAMON chose is
 * then the kernel's, and what is left to the replay is how each LRU model
 * answers it.
 *
 * Not modelled: the hot scheme's folio_mark_accessed() is counted but not
 * carried out (no kernel model has a hook for it; the lab's kernels marked
 * hot 0.2 % of the bytes they deactivated); large folios are checked page by
 * page; DAMON's own regions before the recording started (the model starts
 * with one region at the first record).  The model depends on the recording
 * only, not on the policy replayed: every run sees the same actions.
 */
#ifndef HS_DAMON_H
#define HS_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DAMON_LRU_SORT's parameters the model reads (its defaults in lru_sort.c) */
struct hs_damon_attrs {
	uint64_t	sample_ns;		/* sample_interval: 5 ms */
	uint64_t	aggr_ns;		/* aggr_interval: 100 ms */
	uint32_t	min_nr_regions;		/* 10 */
	uint32_t	max_nr_regions;		/* 1000 */
	uint32_t	hot_thres_permil;	/* hot_thres_access_freq: 500 */
	uint64_t	cold_min_age_ns;	/* cold_min_age: 120 s */
	uint64_t	quota_bytes;		/* each scheme's bytes per reset interval
						 * (0: no quota) */
	uint64_t	reset_ns;		/* quota_reset_interval_ms: 1 s */
	uint64_t	seed;			/* the sampling's and splits' generator */
	uint64_t	mon_start, mon_end;	/* the monitored physical addresses
						 * [start, end] (monitor_region_start,
						 * _end; 0, 0: the recorded frames') */
	uint32_t	slowdown;		/* kdamond's pace: its checks this many
						 * times further apart than sample_ns
						 * (0, 1: as set), while its ages,
						 * cold_min_age and scores still count
						 * aggregations of the set length, as a
						 * kdamond that falls behind does */
	bool		recorded;		/* hs_damon_load(): the session's recorded
						 * scheme actions instead of the monitoring */
};

/* One recorded scheme action (damon:damos_before_apply) */
struct hs_damon_act {
	uint64_t	ts_ns;			/* trace clock */
	uint64_t	start, end;		/* physical addresses [start, end) */
	uint32_t	scheme;			/* DAMON_LRU_SORT: 0 hot, 1 cold */
};

/* One page of one recorded folio life */
struct hs_damon_page {
	uint64_t	pfn;
	uint64_t	born_ns;	/* 0: resident before the recording */
	uint64_t	died_ns;	/* 0: alive at its end */
	uint32_t	key;		/* the stream's dense key */
};

/* What the model did, in DAMON_LRU_SORT's own counters' terms */
struct hs_damon_stats {
	uint64_t	aggregations;		/* aggregation intervals ended */
	uint64_t	nr_hot_regions;		/* regions the hot scheme acted on */
	uint64_t	bytes_hot;		/* their bytes */
	uint64_t	nr_cold_regions;	/* regions the cold scheme acted on */
	uint64_t	bytes_cold;		/* their bytes (frames, recorded or not) */
	uint64_t	cold_pages;		/* recorded pages in them: deactivations asked */
	uint64_t	hot_pages;		/* recorded pages in the hot ones (not applied) */
	uint64_t	hot_quota_exceeds;	/* reset intervals whose quota ran out */
	uint64_t	cold_quota_exceeds;
	uint32_t	nr_regions;		/* regions now */
	uint64_t	pfn_lo, pfn_hi;		/* the monitored frames [lo, hi) */
};

/*
 * The actions of one chunk of records: before record at[i], deactivate the
 * keys keys[off[i] .. off[i + 1]) (off has nr + 1 entries).
 */
struct hs_damon_acts {
	uint32_t	*at;
	uint32_t	*off;
	size_t		nr;
	size_t		cap;
	uint32_t	*keys;
	size_t		nr_keys;
	size_t		keys_cap;
};

struct hs_damon;

/* Fill @a with DAMON_LRU_SORT's defaults (lru_sort.c of 6.12), no quota in bytes. */
void hs_damon_defaults(struct hs_damon_attrs *a);

/*
 * hs_damon_new() - the model over @n recorded pages (any order), keys below
 * @nr_keys.  Return: 0, -EINVAL (bad attributes, or no page with a frame),
 * -ENOMEM.
 */
int hs_damon_new(const struct hs_damon_attrs *a, const struct hs_damon_page *pages, size_t n,
		 uint32_t nr_keys, struct hs_damon **out);

/*
 * hs_damon_feed() - run the model through the next @n records of the stream
 * (in order; @ts their trace-clock times, never going back): every
 * sampling interval that ends at or before a record's time is checked
 * before it, and the actions of the aggregation intervals that end there go
 * into @acts (emptied first), positioned by record index in the chunk.
 * Return: 0 or -ENOMEM.
 */
int hs_damon_feed(struct hs_damon *dm, const uint32_t *keys, const uint8_t *meta,
		  const uint64_t *ts, size_t n, struct hs_damon_acts *acts);

/*
 * hs_damon_load() - the model over recorded session @session: its pages by
 * frame (folio_lives.pfn through hs_rec_pages(); a life without a pfn is left
 * out), and DAMON_LRU_SORT's parameters as the session recorded them
 * (sessions.params "damon_lru_sort"; the module's defaults where it has
 * none), then @over's cold_min_age_ns and seed where not 0, and its
 * quota_bytes and slowdown.  With @over->recorded, the session's recorded
 * scheme actions (v_ev_damos_apply) instead of the monitoring.  Return: 0,
 * -ENODATA (no key table, no life with a frame, parameters the model cannot
 * take, or, recorded, no recorded action), -ENOMEM, or another -errno of the
 * store.
 */
struct hs_store;
int hs_damon_load(struct hs_store *st, int64_t session, uint32_t nr_keys,
		  const struct hs_damon_attrs *over, struct hs_damon **out);

/*
 * hs_damon_set_recorded() - act as the kernel did instead of monitoring: the
 * @n actions in time order (copied), hot ones counted only.  Return: 0 or
 * -ENOMEM.
 */
int hs_damon_set_recorded(struct hs_damon *dm, const struct hs_damon_act *ra, size_t n);

void hs_damon_get_stats(const struct hs_damon *dm, struct hs_damon_stats *st);
void hs_damon_acts_free(struct hs_damon_acts *acts);
void hs_damon_free(struct hs_damon *dm);

#endif /* HS_DAMON_H */
