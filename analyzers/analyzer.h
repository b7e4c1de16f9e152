/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Analyzers: computations over an access stream (or, later, a kernel event
 * stream) that are not replacement policies.  For now this header declares
 * only the stack-distance analyzer of analyzers/stackdist.c: Mattson's one-pass
 * LRU stack algorithm, which gives every access's LRU stack distance and so the
 * LRU hit count at every capacity at once (the miss-ratio curve).  The event
 * analyzers' ops table of DESIGN.md ("Analyzer: analyzers/analyzer.h") joins
 * this header when the event decoder exists; nothing here depends on it.
 * The OPT stack of analyzers/optstack.c is its sibling for Belady's MIN.
 */
#ifndef HS_ANALYZER_H
#define HS_ANALYZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Stack distance of an access to a key that is not in the stack (first access). */
#define HS_STACKDIST_COLD	UINT64_MAX

/* Most keys one analyzer takes: ids and stack positions stay below this. */
#define HS_STACKDIST_MAX_KEYS	(UINT32_MAX / 4)

struct hs_stackdist;		/* opaque; defined in analyzers/stackdist.c */

/**
 * hs_stackdist_new() - an empty LRU stack over keys 0 .. @nr_keys - 1
 * @nr_keys: key ids are below this (>= 1)
 * @out: the analyzer
 *
 * Memory is 28 bytes per key, whatever the length of the stream.
 *
 * Return: 0, -EINVAL (@nr_keys 0 or above HS_STACKDIST_MAX_KEYS), or -ENOMEM.
 */
int hs_stackdist_new(uint32_t nr_keys, struct hs_stackdist **out);

/**
 * hs_stackdist_free() - free an analyzer
 * @sd: the analyzer, or NULL
 *
 * Return: nothing.
 */
void hs_stackdist_free(struct hs_stackdist *sd);

/**
 * hs_stackdist_access() - one access (FD or PT record) to @key
 * @sd: the analyzer
 * @key: dense key id
 * @dist: receives the access's stack distance: 1 + the number of distinct
 *	  keys accessed since the previous access to @key, or HS_STACKDIST_COLD
 *	  when @key is not in the stack (never accessed, or dropped since); may
 *	  be NULL
 *
 * An LRU memory of capacity C hits exactly the accesses whose distance is
 * at most C.  @key moves to the top of the stack.
 *
 * Return: 0, or -EINVAL for a key out of range (nothing changes).
 */
int hs_stackdist_access(struct hs_stackdist *sd, uint32_t key, uint64_t *dist);

/**
 * hs_stackdist_drop() - the kernel removed @key (a DROP record)
 * @sd: the analyzer
 * @key: dense key id
 *
 * @key leaves the stack; its next access is cold.  The keys below it move up
 * one place.  With drops in the stream hs_stackdist_hits_at() is an upper
 * bound on LRU's hits, exact at capacities of at least the number of keys
 * (see the essay in stackdist.c).  Dropping a key not in the stack is a no-op.
 *
 * Return: 0, or -EINVAL for a key out of range.
 */
int hs_stackdist_drop(struct hs_stackdist *sd, uint32_t key);

/**
 * hs_stackdist_step() - feed one stream record, whatever its channel
 * @sd: the analyzer
 * @key: dense key id
 * @meta: meta byte (lib/access.h)
 * @dist: receives the stack distance for an FD or PT access, 0 for any other
 *	  record; may be NULL
 *
 * FD and PT records are accesses; DROP is hs_stackdist_drop(); PAGEOUT and
 * COLD hints change nothing here (they are not accesses); the LRU policy moves a
 * COLD key to its eviction end, so streams with COLD are outside the model.
 *
 * Return: 0, or -EINVAL for a key or channel out of range.
 */
int hs_stackdist_step(struct hs_stackdist *sd, uint32_t key, uint8_t meta, uint64_t *dist);

/**
 * hs_stackdist_hits_at() - LRU hits so far at one capacity
 * @sd: the analyzer
 * @capacity: units (one key is one unit); 0 gives 0
 *
 * Sums the distance histogram up to @capacity: O(min(@capacity, keys)).
 *
 * Return: the number of accesses with stack distance <= @capacity.
 */
uint64_t hs_stackdist_hits_at(const struct hs_stackdist *sd, uint64_t capacity);

/**
 * hs_stackdist_curve() - LRU hits at every capacity 0 .. @n - 1 in one sweep
 * @sd: the analyzer
 * @hits: receives @n counts; hits[c] is hs_stackdist_hits_at(@sd, c)
 * @n: entries of @hits
 *
 * Return: 0.
 */
int hs_stackdist_curve(const struct hs_stackdist *sd, uint64_t *hits, size_t n);

/**
 * hs_stackdist_accesses() - accesses fed so far
 * @sd: the analyzer
 *
 * Return: their count (hints and drops are not accesses).
 */
uint64_t hs_stackdist_accesses(const struct hs_stackdist *sd);

/**
 * hs_stackdist_cold() - accesses with distance HS_STACKDIST_COLD so far
 * @sd: the analyzer
 *
 * Return: their count: the misses of an LRU memory of any size.
 */
uint64_t hs_stackdist_cold(const struct hs_stackdist *sd);

/**
 * hs_stackdist_depth() - keys in the stack now
 * @sd: the analyzer
 *
 * Return: distinct keys accessed and not dropped since their last access.
 */
uint32_t hs_stackdist_depth(const struct hs_stackdist *sd);

/**
 * hs_stackdist_max_dist() - the largest finite distance seen so far
 * @sd: the analyzer
 *
 * Capacities at or above it all give hs_stackdist_accesses() minus
 * hs_stackdist_cold() hits: the curve is flat from there.
 *
 * Return: that distance, or 0 when every access so far was cold.
 */
uint64_t hs_stackdist_max_dist(const struct hs_stackdist *sd);

/*
 * The OPT stack of analyzers/optstack.c: Bilardi, Ekanadham and Pattnaik's
 * critical-marker method for Belady's MIN (demand paging), on the past only.
 * It gives every access's OPT stack distance and so the hit count of the demand
 * variant of policies/opt.c at every capacity at once.  Pure access streams
 * only: no drops and no hints.
 */
struct hs_optstack;		/* opaque; defined in analyzers/optstack.c */

/**
 * hs_optstack_new() - an empty OPT stack over keys 0 .. @nr_keys - 1
 * @nr_keys: key ids are below this (>= 1)
 * @out: the analyzer
 *
 * Memory is 49 to 66 bytes per key (its slot, marker links, two histograms
 * and a window of 1.25 to 2.5 slots per key with its tree).
 *
 * Return: 0, -EINVAL (@nr_keys 0 or above HS_STACKDIST_MAX_KEYS), or -ENOMEM.
 */
int hs_optstack_new(uint32_t nr_keys, struct hs_optstack **out);

/**
 * hs_optstack_free() - free an analyzer
 * @os: the analyzer, or NULL
 *
 * Return: nothing.
 */
void hs_optstack_free(struct hs_optstack *os);

/**
 * hs_optstack_access() - one access to @key
 * @os: the analyzer
 * @key: dense key id
 * @dist: receives the access's OPT stack distance (1 = top), or
 *	  HS_STACKDIST_COLD on a key's first access; may be NULL
 *
 * The demand-paging MIN memory of capacity C hits exactly the accesses whose
 * distance is at most C.  The distance depends on the accesses before this
 * one only: no next uses are needed.
 *
 * Return: 0, or -EINVAL for a key out of range (nothing changes).
 */
int hs_optstack_access(struct hs_optstack *os, uint32_t key, uint64_t *dist);

/**
 * hs_optstack_prefetch() - start loading what two coming accesses will read
 * @os: the analyzer
 * @far: a key accessed some 16 accesses ahead (its slot number is fetched)
 * @near: a key accessed some 4 accesses ahead (its slot's block is fetched)
 *
 * A hint only: out-of-range keys are ignored and nothing changes.
 *
 * Return: nothing.
 */
void hs_optstack_prefetch(const struct hs_optstack *os, uint32_t far, uint32_t near);

/**
 * hs_optstack_curve() - OPT hits at every capacity 0 .. @n - 1 in one sweep
 * @os: the analyzer
 * @hits: receives @n counts; hits[c] is the number of accesses so far with
 *	  distance <= c
 * @n: entries of @hits
 *
 * Return: 0.
 */
int hs_optstack_curve(const struct hs_optstack *os, uint64_t *hits, size_t n);

/**
 * hs_optstack_lru_curve() - LRU hits at every capacity 0 .. @n - 1
 * @os: the analyzer
 * @hits: receives @n counts, as hs_stackdist_curve() would for the same
 *	  accesses (the OPT stack keeps the LRU stack and its distances)
 * @n: entries of @hits
 *
 * Return: 0.
 */
int hs_optstack_lru_curve(const struct hs_optstack *os, uint64_t *hits, size_t n);

/**
 * hs_optstack_accesses() - accesses fed so far
 * @os: the analyzer
 *
 * Return: their count.
 */
uint64_t hs_optstack_accesses(const struct hs_optstack *os);

/**
 * hs_optstack_cold() - first accesses so far
 * @os: the analyzer
 *
 * Return: their count: the misses of an OPT memory of any size.
 */
uint64_t hs_optstack_cold(const struct hs_optstack *os);

/**
 * hs_optstack_max_dist() - the largest finite distance seen so far
 * @os: the analyzer
 *
 * Return: that distance, or 0 when every access so far was cold.
 */
uint64_t hs_optstack_max_dist(const struct hs_optstack *os);

#endif /* HS_ANALYZER_H */
