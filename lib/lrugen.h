/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for the multi-gen LRU's user interface: the debugfs snapshots
 * /sys/kernel/debug/lru_gen and lru_gen_full (mm/vmscan.c, lru_gen_seq_show()),
 * and the sysfs knobs /sys/kernel/mm/lru_gen/enabled and min_ttl_ms.  The
 * recorder snapshots lru_gen during a session; this module turns one snapshot
 * into memcgs -> nodes -> generations, and one lruvec of it into the struct
 * hs_gen_sample rows that the simulated MGLRU reports, so kernel truth and
 * simulation can be compared row for row.  Nothing here prints or touches
 * SQLite.
 *
 * The format, as printed by 6.1 to 6.18 (every line may have any amount of
 * blanks around and between its fields; CRLF is accepted):
 *
 *   memcg ID PATH                    once per memcg, on its first memory node
 *    node NID                        once per memory node
 *    SEQ AGE_MS ANON FILE            one per generation, oldest first
 *
 * lru_gen prints the generations from the oldest evictable one to max_seq.
 * lru_gen_full prints the last four (MAX_NR_GENS) seqs, marks a page count
 * with 'x' when the seq is below that type's min_seq, and after each
 * generation line adds
 *
 *    TIER  N1 N2 N3  N1 N2 N3        four lines (tiers 0-3), three counters
 *                                    per type (anon, then file), each with a
 *                                    letter: "R T" (+ ' ' or 'x') at max_seq =
 *                                    avg_refaulted, avg_total; "r e p" =
 *                                    refaulted, evicted, protected (at a
 *                                    type's min_seq, or at every seq but
 *                                    max_seq with CONFIG_LRU_GEN_STATS);
 *                                    elsewhere placeholders ("0 " in 6.1, "0x"
 *                                    later)
 *    V1 V2 ...                       the page table walker's stats (absent
 *                                    without CONFIG_LRU_GEN_WALKS_MMU): 6.1
 *                                    prints six, L O Y N F A (leaf total, old,
 *                                    young; non-leaf total, found in and added
 *                                    to the Bloom filter), later kernels four,
 *                                    T Y F A; upper case at max_seq, lower case
 *                                    at older seqs with CONFIG_LRU_GEN_STATS,
 *                                    placeholders otherwise
 *
 * Lines whose first field is neither a number nor "memcg"/"node" are skipped
 * and counted (struct hs_lrugen nr_unknown), so text a newer kernel appends
 * does not break the parse.  Everything else must fit the grammar: a bad
 * number, a field too many or too few, a generation out of order, a
 * generation without its four tier lines (lru_gen_full), a node without
 * generations, a memcg or node printed twice (a torn read: read the file with
 * one large read) is -EBADMSG with the line number.
 *
 * min_seq.  The kernel's min_seq[type] is the oldest generation of that type
 * still live in the lruvec; it need not hold pages (the eviction walks past
 * empty generations lazily, and never beyond max_seq - 1).  lru_gen_full shows
 * it exactly: min_seq[type] is the first printed seq whose count of that type
 * carries no 'x'.  lru_gen does not: it starts at min_seq[anon] (6.1-6.13,
 * which keep min_seq[anon] <= min_seq[file] whenever anon is evictable) or at
 * min(min_seq[anon], min_seq[file]) (6.14 on), so hs_lrugen_node_seqs() takes
 * both as the first printed seq and says the value is not exact.  On the real
 * 6.1 and 6.12 samples (lru_gen and lru_gen_full read moments apart) that
 * agrees with lru_gen_full for every memcg; "the oldest generation with pages
 * of the type" does not (the root memcg's anon pages start two generations
 * above its min_seq).
 */
#ifndef HS_LRUGEN_H
#define HS_LRUGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HS_LRUGEN_ANON		0	/* LRU_GEN_ANON: index of anon in per-type arrays */
#define HS_LRUGEN_FILE		1	/* LRU_GEN_FILE */
#define HS_LRUGEN_NR_TYPES	2	/* ANON_AND_FILE */
#define HS_LRUGEN_NR_TIERS	4	/* MAX_NR_TIERS: tier lines per generation */
#define HS_LRUGEN_MAX_GENS	4	/* MAX_NR_GENS: generations lru_gen_full shows */
#define HS_LRUGEN_GENS_LIMIT	64	/* most generations accepted per node (lru_gen) */
#define HS_LRUGEN_WALK_MAX	8	/* most walker counters kept per line */

/*
 * One lruvec's generations at one moment, what a node of lru_gen shows: the
 * row both sides of the comparison produce.  The simulated MGLRU reports one
 * after every aging (its time series, lib/sim.h, flag HS_POLICY_GEN_SERIES);
 * hs_lrugen_node_sample() makes one from a kernel snapshot; lib/store.c keeps
 * them as run_generations.
 */
#define HS_NR_GENS		HS_LRUGEN_MAX_GENS	/* MAX_NR_GENS */

struct hs_gen_sample {
	uint64_t	seq;		/* accesses so far when the aging happened (first:
					 * the driver stamps it, lib/sim.h) */
	uint64_t	aging;		/* agings so far in the run (1 = the first) */
	uint64_t	max_seq;	/* youngest generation */
	uint64_t	min_seq[2];	/* oldest generation per type (anon, file) */
	uint64_t	pages[HS_NR_GENS][2];	/* pages per generation, indexed by
						 * seq % HS_NR_GENS, per type */
};

/* /sys/kernel/mm/lru_gen/enabled bits (enum lru_gen_caps) */
#define HS_LRUGEN_CAP_CORE		0x1u	/* the multi-gen LRU is on */
#define HS_LRUGEN_CAP_MM_WALK		0x2u	/* page table walks clear accessed bits */
#define HS_LRUGEN_CAP_NONLEAF_YOUNG	0x4u	/* non-leaf PMD accessed bits cleared too */

/* What the three counters of one type on a tier line are. */
enum hs_lrugen_tier_kind {
	HS_LRUGEN_TIER_NONE = 0,	/* placeholders: the kernel keeps no counters here */
	HS_LRUGEN_TIER_AVG,		/* "R T": PID controller averages, shown at max_seq */
	HS_LRUGEN_TIER_HIST,		/* "r e p": this generation's own counters */
};

/* What the walker stats line of one generation is. */
enum hs_lrugen_walk_kind {
	HS_LRUGEN_WALK_ABSENT = 0,	/* no such line (lru_gen, or no mm walker) */
	HS_LRUGEN_WALK_EMPTY,		/* placeholders only */
	HS_LRUGEN_WALK_CURRENT,		/* upper-case codes: the walk producing max_seq + 1 */
	HS_LRUGEN_WALK_HIST,		/* lower-case codes: kept stats of an older generation */
};

/* Walker counters by meaning, whatever letter a kernel prints them with. */
enum hs_lrugen_mm_stat {
	HS_LRUGEN_MM_LEAF_TOTAL,	/* 'l' (6.1) or 't' (6.6 on): leaf entries scanned */
	HS_LRUGEN_MM_LEAF_OLD,		/* 'o' (6.1 only): old leaf entries */
	HS_LRUGEN_MM_LEAF_YOUNG,	/* 'y': young leaf entries */
	HS_LRUGEN_MM_NONLEAF_TOTAL,	/* 'n' (6.1 only): non-leaf entries */
	HS_LRUGEN_MM_NONLEAF_FOUND,	/* 'f': non-leaf entries found in the Bloom filter */
	HS_LRUGEN_MM_NONLEAF_ADDED,	/* 'a': non-leaf entries added to the Bloom filter */
	HS_LRUGEN_MM_NR
};

/**
 * struct hs_lrugen_tier - one type's counters on one tier line
 *
 * Which fields are meaningful depends on the kind (enum hs_lrugen_tier_kind)
 * recorded beside it; the others are 0.
 */
struct hs_lrugen_tier {
	uint64_t	refaulted;	/* 'r': refaults of folios evicted from this tier */
	uint64_t	evicted;	/* 'e': folios evicted from this tier */
	uint64_t	protected;	/* 'p': folios this tier protected (moved up) */
	uint64_t	avg_refaulted;	/* 'R': PID controller average of refaulted */
	uint64_t	avg_total;	/* 'T': PID controller average of evicted + protected */
};

/**
 * struct hs_lrugen_walk - the page table walker stats line of a generation
 */
struct hs_lrugen_walk {
	uint8_t		kind;				/* enum hs_lrugen_walk_kind */
	uint8_t		n;				/* counters on the line */
	char		codes[HS_LRUGEN_WALK_MAX + 1];	/* their letters, lower case, NUL-
							 * terminated; "" for placeholders */
	uint64_t	v[HS_LRUGEN_WALK_MAX];		/* their values, in line order */
};

/**
 * struct hs_lrugen_gen - one generation line (and, for lru_gen_full, its detail)
 */
struct hs_lrugen_gen {
	uint64_t	seq;				/* sequence number */
	uint64_t	age_ms;				/* ms since the generation was made */
	uint64_t	nr_pages[HS_LRUGEN_NR_TYPES];	/* pages per type (as printed) */
	bool		below_min[HS_LRUGEN_NR_TYPES];	/* 'x': seq < min_seq[type] (full) */
	uint8_t		tier_kind[HS_LRUGEN_NR_TYPES];	/* enum hs_lrugen_tier_kind (full) */
	struct hs_lrugen_tier tiers[HS_LRUGEN_NR_TYPES][HS_LRUGEN_NR_TIERS];
							/* per type, per tier (full) */
	struct hs_lrugen_walk walk;			/* walker stats (full, if printed) */
	size_t		line;				/* 1-based line of the generation */
};

/**
 * struct hs_lrugen_node - one lruvec: a memcg on a memory node
 */
struct hs_lrugen_node {
	int		nid;		/* node id */
	size_t		line;		/* 1-based line of the "node" line */
	size_t		nr_gens;	/* >= 1; seqs consecutive */
	struct hs_lrugen_gen *gens;	/* oldest first; the last is max_seq */
};

/**
 * struct hs_lrugen_memcg - one memory cgroup of the snapshot
 */
struct hs_lrugen_memcg {
	uint64_t	id;		/* mem_cgroup_id() (the id lru_gen's commands take,
					 * not the cgroup inode); 0 without memcgs */
	char		*path;		/* cgroup path, "/" for the root; "" without memcgs */
	size_t		line;		/* 1-based line of the "memcg" line */
	size_t		nr_nodes;	/* >= 1 */
	struct hs_lrugen_node *nodes;	/* in file order, node ids distinct */
};

/**
 * struct hs_lrugen - one parsed snapshot (read-only for users)
 */
struct hs_lrugen {
	bool		full;		/* lru_gen_full (tier lines present) */
	size_t		nr_memcgs;	/* >= 1 */
	struct hs_lrugen_memcg *memcgs;	/* in file order, ids distinct */
	size_t		nr_unknown;	/* unknown lines skipped */
	size_t		first_unknown;	/* line of the first one, 0 if none */
};

/**
 * hs_lrugen_parse() - parse the text of lru_gen or lru_gen_full
 * @text: the file's contents (need not be NUL-terminated)
 * @len: bytes in @text
 * @out: the snapshot, freed with hs_lrugen_free()
 * @err: receives "line N: why" on failure (may be NULL)
 * @errlen: size of @err
 *
 * Which of the two files it is comes from the text (tier lines after the
 * first generation mean lru_gen_full).
 *
 * Return: 0, -EBADMSG for text that is not a snapshot (message with the line),
 * -EINVAL for NULL arguments, -ENOMEM.
 */
int hs_lrugen_parse(const char *text, size_t len, struct hs_lrugen **out, char *err,
		    size_t errlen);

/**
 * hs_lrugen_load() - read a snapshot file in one go and parse it
 * @path: /sys/kernel/debug/lru_gen, lru_gen_full, or a saved copy
 * @out: the snapshot, freed with hs_lrugen_free()
 * @err: receives "PATH: why" or "PATH: line N: why" on failure (may be NULL)
 * @errlen: size of @err
 *
 * The file is read to its end with large reads (debugfs reports size 0), so
 * that the kernel prints every lruvec in one pass.
 *
 * Return: 0, -errno of open() or read() (-ENOENT, -EACCES, ...), -EFBIG for
 * more than 256 MiB, or hs_lrugen_parse()'s errors.
 */
int hs_lrugen_load(const char *path, struct hs_lrugen **out, char *err, size_t errlen);

/* Free a snapshot; accepts NULL. */
void hs_lrugen_free(struct hs_lrugen *lg);

/**
 * hs_lrugen_find_memcg() - a memcg by its id
 * @lg: the snapshot
 * @id: the id printed on its "memcg" line
 *
 * Return: the memcg, or NULL if the snapshot has none with that id.
 */
const struct hs_lrugen_memcg *hs_lrugen_find_memcg(const struct hs_lrugen *lg, uint64_t id);

/**
 * hs_lrugen_find_path() - a memcg by its cgroup path
 * @lg: the snapshot
 * @path: e.g. "/hsctl-42" (what the recorder knows of the cgroup it made)
 *
 * Return: the first memcg with that path, or NULL.
 */
const struct hs_lrugen_memcg *hs_lrugen_find_path(const struct hs_lrugen *lg, const char *path);

/**
 * hs_lrugen_find_node() - a memcg's lruvec on one node
 * @mc: the memcg
 * @nid: node id
 *
 * Return: the node, or NULL.
 */
const struct hs_lrugen_node *hs_lrugen_find_node(const struct hs_lrugen_memcg *mc, int nid);

/**
 * hs_lrugen_node_seqs() - max_seq and min_seq of one lruvec
 * @lg: the snapshot the node belongs to
 * @node: the lruvec
 * @max_seq: receives the youngest seq
 * @min_seq: receives the oldest live seq per type (HS_LRUGEN_ANON, _FILE)
 *
 * From lru_gen_full, min_seq is exact (the first seq without 'x'); from
 * lru_gen, both types get the first printed seq (see the file comment).
 *
 * Return: true when min_seq is exact, false when it is the lru_gen estimate.
 */
bool hs_lrugen_node_seqs(const struct hs_lrugen *lg, const struct hs_lrugen_node *node,
			 uint64_t *max_seq, uint64_t min_seq[HS_LRUGEN_NR_TYPES]);

/**
 * hs_lrugen_node_sample() - one lruvec as the replay side's generation row
 * @lg: the snapshot
 * @node: the lruvec
 * @out: receives max_seq, min_seq per type and pages[seq % 4][type]; a type's
 *	 count at a seq below its min_seq is stored as 0 (the kernel marks it
 *	 'x'; lib/store.c stores 0 there too), slots of unprinted seqs are 0;
 *	 seq and aging (simulation time) are set to 0 for the caller to fill
 * @exact: receives whether min_seq is exact (may be NULL)
 *
 * Return: 0, -EINVAL for NULL arguments, -ERANGE when the lruvec spans more
 * than HS_NR_GENS generations (no kernel prints that).
 */
int hs_lrugen_node_sample(const struct hs_lrugen *lg, const struct hs_lrugen_node *node,
			  struct hs_gen_sample *out, bool *exact);

/**
 * hs_lrugen_walk_get() - a walker counter by meaning
 * @w: a generation's walker line
 * @stat: which counter
 * @out: receives its value
 *
 * Return: 0, or -ENOENT when the line is absent, holds placeholders, or this
 * kernel does not print that counter (LEAF_OLD and NONLEAF_TOTAL left in 6.6).
 */
int hs_lrugen_walk_get(const struct hs_lrugen_walk *w, enum hs_lrugen_mm_stat stat,
		       uint64_t *out);

/**
 * hs_lrugen_parse_enabled() - parse /sys/kernel/mm/lru_gen/enabled
 * @text: the file's contents, e.g. "0x0007\n" (need not be NUL-terminated)
 * @len: bytes in @text
 * @caps: receives the mask (HS_LRUGEN_CAP_*; unknown bits are kept)
 * @err: receives the reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * Accepts what the kernel prints ("0x%04x") and what its parser takes for a
 * number (0x hex, 0 octal, decimal), with blanks around.
 *
 * Return: 0, -EBADMSG, or -EINVAL for NULL arguments.
 */
int hs_lrugen_parse_enabled(const char *text, size_t len, unsigned int *caps, char *err,
			    size_t errlen);

/**
 * hs_lrugen_parse_min_ttl() - parse /sys/kernel/mm/lru_gen/min_ttl_ms
 * @text: the file's contents, e.g. "1000\n"
 * @len: bytes in @text
 * @ms: receives the value in milliseconds (0 = off)
 * @err: receives the reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0, -EBADMSG (not an unsigned 32-bit decimal), or -EINVAL.
 */
int hs_lrugen_parse_min_ttl(const char *text, size_t len, uint64_t *ms, char *err,
			    size_t errlen);

/*
 * Tests only: make the Nth allocation from now on fail (1 = the next), 0 to
 * stop failing.  Drives every -ENOMEM path of this module.
 */
void hs_lrugen_fail_alloc(unsigned long nth);

#endif /* HS_LRUGEN_H */
