/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-page fidelity: does a model evict what the kernel reclaimed, and when?
 *
 * Totals cannot tell a faithful model from a wrong one: on most workloads
 * every LRU-like policy lands within a few percent of the kernel's misses.
 * This analysis compares two eviction histories of one access stream page by
 * page, on the stream's position axis (the index of an access among accesses):
 * the kernel's reclaims, placed on that axis by the recorded stream's times,
 * and a model's evictions from `replay --log-evictions`; or two kernel
 * recordings of one workload (`hsctl fidelity --against`), which measures the
 * kernel's own reproducibility, the ceiling any model can reach.
 *
 * The figures (all over the positions outside excluded windows):
 *
 *  - matched share at window w: the share of the reference's evictions
 *    (the kernel's) that the other history also made, of the same page,
 *    within w positions either side.  Matching is one to one: one model
 *    eviction answers at most one kernel reclaim.  Per page both histories
 *    are sorted by position and each reclaim takes the earliest unmatched
 *    eviction inside its window; intervals of equal width in sorted order
 *    make that greedy choice a maximum matching.  Three windows: capacity/16,
 *    capacity/4 and capacity.
 *  - Jaccard overlap of the two sets of pages evicted at least once.
 *  - Pearson correlation of per-page eviction counts over every page of the
 *    stream, a page neither evicted counting 0 on both sides (NaN when one
 *    side has no variance).
 *  - median lag: other minus reference position over the pairs matched at
 *    the widest window (the lower median; negative: the model evicts early).
 *  - refault agreement: a refault here is the first access to a page after
 *    an eviction of it, at that access's position, by the same rule for both
 *    histories (a kernel refault brought back by readahead counts at its
 *    next demand access).  Both sides' refault positions are compared
 *    exactly: recall = shared / reference's, precision = shared / other's.
 *
 * A baseline gives the figures meaning: hs_fid_random_evictions() builds the
 * evictions of a policy that reclaims at the kernel's moments, as many
 * pages, each chosen uniformly among the pages then resident.  Its agreement
 * is what chance and the kernel's timing alone give.
 *
 * Pure computation: no store, no I/O; the command (cli/cmd-fidelity.c) reads
 * the session, the eviction logs and the lives and fills the inputs.
 */
#ifndef HS_FIDELITY_H
#define HS_FIDELITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Windows of the matched share, as divisors of the capacity: c/16, c/4, c. */
#define HS_FID_WINDOWS	3

/**
 * struct hs_fid_event - one page leaving (or entering) memory
 * @pos: stream position: the number of accesses before it
 * @key: the page's dense key id
 */
struct hs_fid_event {
	uint64_t	pos;
	uint32_t	key;
};

/**
 * struct hs_fid_range - an excluded window of positions [@start, @end)
 * @start: first position excluded
 * @end: first position included again
 */
struct hs_fid_range {
	uint64_t	start;
	uint64_t	end;
};

/**
 * struct hs_fid_input - what to compare
 * @stream: the key of every access, in order (hints, drops and insertions
 *	    left out: the position axis counts accesses)
 * @length: accesses in @stream
 * @nr_keys: key ids are below this
 * @capacity: the memory size in pages the windows are fractions of (>= 1)
 * @ref: the reference history (the kernel's reclaims), sorted by position
 * @n_ref: its length
 * @other: the compared history (a model's evictions, or another kernel run),
 *	   sorted by position
 * @n_other: its length
 * @gaps: excluded windows (lost events), sorted and disjoint, or NULL
 * @n_gaps: their number
 *
 * Positions are at most @length (an eviction after the last access sits at
 * @length).
 */
struct hs_fid_input {
	const uint32_t			*stream;
	uint64_t			length;
	uint32_t			nr_keys;
	uint64_t			capacity;
	const struct hs_fid_event	*ref;
	size_t				n_ref;
	const struct hs_fid_event	*other;
	size_t				n_other;
	const struct hs_fid_range	*gaps;
	size_t				n_gaps;
};

/**
 * struct hs_fid_result - the figures of one comparison
 * @window: the windows, in positions (capacity/16, capacity/4, capacity)
 * @matched: reference evictions matched within each window
 * @share: @matched / @ref_evictions (NaN when there are none)
 * @ref_evictions: reference evictions counted (outside gaps)
 * @other_evictions: compared evictions counted (outside gaps)
 * @ref_pages: distinct pages the reference evicted
 * @other_pages: distinct pages the other history evicted
 * @both_pages: distinct pages both evicted
 * @jaccard: @both_pages / pages either evicted (NaN when none did)
 * @correlation: Pearson's r of per-page eviction counts over all @nr_keys
 *		 pages (NaN if undefined)
 * @median_lag: lower median of other - reference position over the pairs
 *		matched at the widest window; 0 when @lag_pairs is 0
 * @lag_pairs: pairs the median is over (@matched[HS_FID_WINDOWS - 1])
 * @ref_refaults: reference refaults (first access after an eviction)
 * @other_refaults: the other history's refaults
 * @both_refaults: refaults at the same position in both
 * @refault_recall: @both_refaults / @ref_refaults (NaN when 0)
 * @refault_precision: @both_refaults / @other_refaults (NaN when 0)
 */
struct hs_fid_result {
	uint64_t	window[HS_FID_WINDOWS];
	uint64_t	matched[HS_FID_WINDOWS];
	double		share[HS_FID_WINDOWS];
	uint64_t	ref_evictions;
	uint64_t	other_evictions;
	uint64_t	ref_pages;
	uint64_t	other_pages;
	uint64_t	both_pages;
	double		jaccard;
	double		correlation;
	int64_t		median_lag;
	uint64_t	lag_pairs;
	uint64_t	ref_refaults;
	uint64_t	other_refaults;
	uint64_t	both_refaults;
	double		refault_recall;
	double		refault_precision;
};

/**
 * hs_fidelity_compare() - compare two eviction histories of one stream
 * @in: the inputs; see struct hs_fid_input
 * @out: receives the figures
 *
 * Events inside a gap are left out of every figure, on both sides; so are
 * refaults whose access lies in a gap.
 *
 * Return: 0, -EINVAL (a key out of range, a position past @length, a
 * history not sorted, capacity 0) or -ENOMEM.
 */
int hs_fidelity_compare(const struct hs_fid_input *in, struct hs_fid_result *out);

/**
 * hs_fid_random_evictions() - the random baseline's evictions
 * @resident_in: pages entering memory (sorted by position)
 * @n_in: their number
 * @resident_out: pages leaving memory for any reason (sorted by position)
 * @n_out: their number
 * @reclaims: the reference's reclaims (sorted by position): one baseline
 *	      eviction is made at each of their positions
 * @n_reclaims: their number
 * @nr_keys: key ids are below this
 * @seed: seed of the generator; the same seed gives the same evictions
 * @out: receives a malloc'd array of @n_reclaims events (fewer when memory
 *	 was empty at a reclaim), sorted by position
 * @n_out_events: receives its length
 *
 * Residency is the reference's own: a page is resident from an entering
 * event to its next leaving event.  At one position, the entries apply
 * first, then the baseline picks one page per reclaim there, then the
 * leavings apply: a pick is made among the pages resident just before the
 * kernel's own reclaims took effect.  The baseline changes no residency, and
 * two picks at one position may name the same page.
 *
 * Return: 0, -EINVAL (a key out of range, unsorted input) or -ENOMEM.
 */
int hs_fid_random_evictions(const struct hs_fid_event *resident_in, size_t n_in,
			    const struct hs_fid_event *resident_out, size_t n_out,
			    const struct hs_fid_event *reclaims, size_t n_reclaims,
			    uint32_t nr_keys, uint64_t seed,
			    struct hs_fid_event **out, size_t *n_out_events);

struct hs_store;
struct hs_policy_ops;
struct hs_param_set;

/**
 * struct hs_fid_kernel - the kernel's side of a recorded session, on the
 * access axis
 * @stream: the key of every access, in order
 * @length: accesses
 * @nr_keys: the session's distinct keys
 * @reclaims: the pages the kernel reclaimed (death by reclaim or pageout),
 *	      at the position of the death: the accesses recorded before it
 * @n_reclaims: their number
 * @ins: pages entering memory (a life's birth; position 0 when unseen)
 * @n_ins: their number
 * @outs: pages leaving memory, for any cause
 * @n_outs: their number
 * @gaps: positions inside lost-event gaps, merged
 * @n_gaps: their number
 * @gap_positions: positions the gaps cover
 * @unkeyed_pages: pages of lives that no key of the stream names (left out)
 * @memory_limit_pages: the recorded memory limit in pages (0: none)
 */
struct hs_fid_kernel {
	uint32_t		*stream;
	uint64_t		length;
	uint32_t		nr_keys;
	struct hs_fid_event	*reclaims;
	size_t			n_reclaims;
	struct hs_fid_event	*ins;
	size_t			n_ins;
	struct hs_fid_event	*outs;
	size_t			n_outs;
	struct hs_fid_range	*gaps;
	size_t			n_gaps;
	uint64_t		gap_positions;
	uint64_t		unkeyed_pages;
	uint64_t		memory_limit_pages;
};

/**
 * hs_fid_kernel_load() - the kernel's side of a recorded session
 * @st: the store
 * @session: the session
 * @k: receives it; free with hs_fid_kernel_free()
 * @why: receives a one-line reason for -EMEDIUMTYPE
 *
 * Return: 0, -ENOENT (no such session), -EMEDIUMTYPE (no kernel truth: an
 * imported or generated session, or one recorded before streams had times),
 * -EBADMSG (corrupt data), -ENOMEM or another -errno from the store.
 */
int hs_fid_kernel_load(struct hs_store *st, int64_t session, struct hs_fid_kernel *k,
		       const char **why);

/**
 * hs_fid_kernel_free() - free what hs_fid_kernel_load() allocated
 * @k: the kernel side (its fields are zeroed)
 *
 * Return: nothing.
 */
void hs_fid_kernel_free(struct hs_fid_kernel *k);

/**
 * hs_fid_default_policy() - the model that matches a recorded kernel
 * @release: the recorded uname -r ("6.12.57+deb13-cloud-amd64")
 * @lru_gen: the recorded /sys/kernel/mm/lru_gen/enabled ("0x0007"), or
 *	     "absent"; MGLRU is on when its lowest bit is set
 * @policy: receives "mglru" (MGLRU on) or "linux-2q" (off)
 * @profile: receives the profile of that version: mglru p61 (6.1 .. 6.2), p63 (6.3 .. 6.7),
 *	     p68 (6.8 .. 6.13) or p614 (6.14 ..); linux-2q p61 (before 6.10) or
 *	     p610
 *
 * Return: 0, or -EINVAL when @release does not start with MAJOR.MINOR.
 */
int hs_fid_default_policy(const char *release, const char *lru_gen, const char **policy,
			  const char **profile);

/**
 * hs_fid_replay_evictions() - replay a session and keep every eviction
 * @st: the store
 * @session: the session
 * @ops: the policies, one run each
 * @params: their parameters (entries may be NULL: defaults)
 * @n: runs
 * @capacity: pages
 * @ev: receives, per run, a malloc'd array of its evictions (the policy's and
 *	PAGEOUT hints'), sorted by position
 * @n_ev: receives their numbers
 * @stats: receives each run's counters (may be NULL)
 *
 * Return: 0, a run's -errno (-EUCLEAN: a policy broke its contract), or the
 * replay's.
 */
struct hs_sim_stats;
int hs_fid_replay_evictions(struct hs_store *st, int64_t session,
			    const struct hs_policy_ops *const *ops,
			    const struct hs_param_set *const *params, size_t n, uint64_t capacity,
			    struct hs_fid_event **ev, size_t *n_ev, struct hs_sim_stats *stats);

#endif /* HS_FIDELITY_H */
