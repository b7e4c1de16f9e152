/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic access streams for `hsctl gen`: deterministic for a seed, made
 * with hsctl's own PRNG (xoshiro256** seeded through splitmix64, never rand())
 * and an exact Zipf sampler (rejection-inversion, Hörmann and Derflinger 1996),
 * valid for every exponent alpha >= 0, including alpha = 1.  Generators:
 *
 *   zipf      key = rank - 1 of a Zipf(alpha) draw over @keys keys
 *   loop      0, 1, ..., keys - 1, 0, 1, ... (a cyclic scan)
 *   scan-mix  Zipf(alpha) over a hot set of @hot_keys keys (0 .. hot_keys - 1);
 *             after every @scan_every hot accesses, a scan of @scan_len fresh
 *             keys (hot_keys, hot_keys + 1, ... never reused)
 *   scan-hot  a hot set read all along while a scan streams, again and again,
 *             through a region several times larger: @scan_every Zipf(alpha)
 *             accesses to the hot keys 0 .. hot_keys - 1 (hot_keys 0 means
 *             keys / 8), then the next @scan_len keys of the cyclic scan over
 *             hot_keys .. keys - 1, and so on.  A hot key's reuse distance is
 *             stretched by the scan keys between its uses, so recency alone
 *             (LRU) evicts it for scan keys that are never used again within
 *             a pass; a policy that keeps once-used keys apart (2Q, MGLRU's
 *             generations, CAR, HitShield) keeps the hot set.  The same
 *             stream as `hsctl record --workload scan-hot` (lib/workload.h),
 *             whose reads are read(2)s: FD accesses by default
 *   shared-map scan-hot's pattern from @procs processes that each map the
 *             same file (MAP_SHARED) and take turns: in turn t, process
 *             t mod procs makes @scan_every Zipf(alpha) accesses to the hot
 *             keys 0 .. hot_keys - 1 (hot_keys 0 means keys / 8), drawn from
 *             its own PRNG (seeded with seed + its number), then touches the
 *             next @scan_len keys of the one cyclic scan over hot_keys ..
 *             keys - 1 that all of them share.  A hot page is thus touched
 *             through every process's page table between two agings (several
 *             young PTEs per folio; the kernel's classic LRU activates such a
 *             folio at its first inactive scan, folio_check_references'
 *             referenced_ptes > 1), a scanned page through one.  The stream
 *             itself names no process: a replay sees @procs touches of a hot
 *             key, not @procs young PTEs.  PT accesses to file pages; the
 *             same stream as `hsctl record --workload shared-map`
 *   ycsb-f    YCSB workload F: each operation draws a record by Zipf(alpha)
 *             over @keys records (record = page = rank - 1); half the
 *             operations read it (one access), half read-modify-write it (a
 *             read, then a write of the same page with HS_META_WRITE)
 *
 *   ycsb-load YCSB's load phase: inserts of scattered keys (splitmix64 of the
 *             seed) into a B+tree whose nodes are pages of one anonymous
 *             arena, each insert appending its 1024-byte record to the
 *             arena too (hs_btload_*() below).  Per insert: the path from
 *             the root read (hot: the few internal nodes), the leaf written
 *             (warm: any of hundreds or thousands, reused once per about as
 *             many inserts), the record page written (used four times, then
 *             never again), and on a split the halves and the parent written.
 *             The footprint grows all along.  Pages are arena page numbers,
 *             anonymous PT accesses; the same stream as `hsctl record
 *             --workload ycsb-load`
 *
 * Every stream is exactly @accesses long (ycsb-f's last read-modify-write is
 * cut to its read when one access is left).  Nothing here prints.
 */
#ifndef HS_GEN_H
#define HS_GEN_H

#include <stdbool.h>
#include <stdint.h>

/* ---- the PRNG ---- */

struct hs_rng {
	uint64_t	s[4];		/* xoshiro256** state, never all zero */
};

/**
 * hs_rng_seed() - seed the generator
 * @r: the generator
 * @seed: any value; the state is four successive splitmix64 outputs from it
 */
void hs_rng_seed(struct hs_rng *r, uint64_t seed);

/**
 * hs_splitmix64() - one step of splitmix64
 * @state: advanced by 0x9e3779b97f4a7c15
 *
 * Return: the next output.
 */
uint64_t hs_splitmix64(uint64_t *state);

/**
 * hs_rng_next() - next 64 random bits (xoshiro256**)
 * @r: the generator
 *
 * Return: the bits.
 */
uint64_t hs_rng_next(struct hs_rng *r);

/**
 * hs_rng_double() - uniform double in [0, 1) with 53 random bits
 * @r: the generator
 *
 * Return: the number.
 */
double hs_rng_double(struct hs_rng *r);

/* ---- Zipf sampling ---- */

struct hs_zipf {
	uint64_t	n;		/* ranks 1 .. n */
	double		alpha;		/* P(k) proportional to k^-alpha */
	double		h_lo;		/* H(1.5) - 1: lower end of the sampled area */
	double		h_hi;		/* H(n + 0.5): upper end */
};

/**
 * hs_zipf_init() - prepare a sampler
 * @z: the sampler
 * @n: number of ranks, >= 1
 * @alpha: exponent, 0 <= alpha <= 100 (0 is uniform)
 *
 * Return: 0, or -EINVAL for an argument out of range.
 */
int hs_zipf_init(struct hs_zipf *z, uint64_t n, double alpha);

/**
 * hs_zipf_sample() - draw a rank
 * @z: the sampler
 * @r: the random source
 *
 * Return: a rank in 1 .. n.
 */
uint64_t hs_zipf_sample(const struct hs_zipf *z, struct hs_rng *r);

/* ---- generators ---- */

enum hs_gen_type {
	HS_GEN_ZIPF,		/* Zipf over keys */
	HS_GEN_LOOP,		/* cyclic scan */
	HS_GEN_SCAN_MIX,	/* Zipf hot set plus periodic one-time scans */
	HS_GEN_YCSB_F,		/* YCSB workload F */
	HS_GEN_SCAN_HOT,	/* Zipf hot set plus a cyclic scan several times larger */
	HS_GEN_YCSB_LOAD,	/* B+tree inserts with appended records */
	HS_GEN_SHARED_MAP,	/* scan-hot's pattern from several processes mapping one file */
	HS_GEN_NR
};

#define HS_GEN_DEF_ACCESSES	100000	/* --accesses */
#define HS_GEN_DEF_KEYS		10000	/* --keys */
#define HS_GEN_DEF_SEED		1	/* --seed */
#define HS_GEN_DEF_ALPHA	0.99	/* --alpha (YCSB's zipfian constant) */
#define HS_GEN_DEF_SCAN_LEN	5000	/* --scan-len */
#define HS_GEN_DEF_SCAN_EVERY	20000	/* --scan-every */
#define HS_GEN_HOT_SCAN_LEN	16	/* scan-hot --scan-len: one 64 KiB read(2) */
#define HS_GEN_HOT_SCAN_EVERY	16	/* scan-hot --scan-every */
#define HS_GEN_LOAD_RECORD	1024	/* ycsb-load record bytes (YCSB's 10 x 100 B) */
#define HS_GEN_HOT_ALPHA	0.5	/* scan-hot --alpha: a flat hot set, not a few keys */
#define HS_GEN_DEF_PROCS	4	/* shared-map --procs */
#define HS_GEN_MAX_PROCS	64	/* shared-map --procs, at most */

struct hs_gen_opts {
	enum hs_gen_type	type;		/* which generator */
	uint64_t		accesses;	/* stream length, >= 1 */
	uint64_t		keys;		/* zipf/loop/ycsb-f: key space, >= 1 */
	uint64_t		seed;		/* PRNG seed */
	double			alpha;		/* zipf/scan-mix/ycsb-f: Zipf exponent */
	uint64_t		hot_keys;	/* scan-mix: hot set size, 0 means @keys;
						 * scan-hot: 0 means @keys / 8, < @keys */
	uint64_t		scan_len;	/* scan-mix/scan-hot: keys per scan, >= 1 */
	uint64_t		scan_every;	/* scan-mix/scan-hot: hot accesses between
						 * scans, >= 1 */
	unsigned int		procs;		/* shared-map: processes taking turns,
						 * 1 .. HS_GEN_MAX_PROCS */
	uint8_t			meta;		/* meta byte of every access (write bit added
						 * by ycsb-f's writes) */
};

/**
 * hs_gen_opts_init() - the defaults of a generator
 * @o: filled with the defaults (hot_keys 0; scan_len and scan_every 5000 and 20000,
 *     16 and 16 for scan-hot and shared-map; alpha 0.99, 0.5 for scan-hot and
 *     shared-map; procs 4; meta file/pt, ycsb-f and ycsb-load anon/pt, scan-hot
 *     file/fd)
 * @type: the generator
 */
void hs_gen_opts_init(struct hs_gen_opts *o, enum hs_gen_type type);

/**
 * hs_gen_type_parse() - look a generator up by name
 * @name: "zipf", "loop", "scan-mix", "ycsb-f", "scan-hot", "ycsb-load" or "shared-map"
 * @out: the type
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int hs_gen_type_parse(const char *name, enum hs_gen_type *out);

/**
 * hs_gen_type_name() - a generator's name
 * @type: the generator
 *
 * Return: its name, or "?".
 */
const char *hs_gen_type_name(enum hs_gen_type type);

/**
 * hs_gen_type_list() - every generator name, for messages
 *
 * Return: "zipf, loop, scan-mix, ycsb-f, scan-hot, ycsb-load, shared-map".
 */
const char *hs_gen_type_list(void);

struct hs_gen;

/**
 * hs_gen_new() - start a stream
 * @o: options
 * @out: the generator
 *
 * Return: 0, -EINVAL for an option out of range, or -ENOMEM.
 */
int hs_gen_new(const struct hs_gen_opts *o, struct hs_gen **out);

/**
 * hs_gen_next() - the next access
 * @g: the generator
 * @key: receives the key
 * @meta: receives the meta byte
 *
 * Return: 1 with an access, or 0 after the last.
 */
int hs_gen_next(struct hs_gen *g, uint64_t *key, uint8_t *meta);

/* Free a generator; accepts NULL. */
void hs_gen_free(struct hs_gen *g);

/* ---- ycsb-load's B+tree (also run by `hsctl record --workload ycsb-load`) ---- */

#define HS_BTLOAD_MAX_TOUCH	64	/* touches of one insert, at most */

struct hs_btload_touch {
	uint64_t	page;		/* arena page */
	bool		write;		/* written, else read */
};

struct hs_btload;

/**
 * hs_btload_new() - an empty B+tree (a leaf root at page 0) in an arena of pages
 * @arena: the caller's memory of @pages pages, or NULL for a growing one of ours
 * @pages: the caller's arena size in pages, 2 .. 2^32 - 1
 * @record_size: bytes per record, 1 .. 4096 (a record never straddles pages)
 * @seed: the keys are the splitmix64 outputs of this state
 * @out: the tree
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int hs_btload_new(void *arena, uint64_t pages, uint32_t record_size, uint64_t seed,
		  struct hs_btload **out);

/**
 * hs_btload_insert() - insert the next key, append its record
 * @b: the tree
 * @t: receives the insert's page touches, in order (valid until the next call)
 * @rec: receives the record's byte offset in the arena
 *
 * Return: the number of touches, or -ENOSPC (a caller's arena is full) or
 * -ENOMEM (ours cannot grow).
 */
int hs_btload_insert(struct hs_btload *b, const struct hs_btload_touch **t, uint64_t *rec);

/**
 * hs_btload_pages() - arena pages handed out so far
 * @b: the tree
 *
 * Return: the count.
 */
uint64_t hs_btload_pages(const struct hs_btload *b);

/* Free a tree (not a caller's arena); accepts NULL. */
void hs_btload_free(struct hs_btload *b);

#endif /* HS_GEN_H */
