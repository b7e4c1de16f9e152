/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulation driver: one policy, one capacity, one access stream.
 *
 * The driver owns everything that is not a decision.  It keeps one record per
 * dense key id (struct hs_folio plus the policy's private area) in a flat
 * array, so a lookup is an index, not a hash: the per-key cost is 8 bytes
 * plus what the policy asks for (the id is the index, times are 32 bits:
 * lib/sim.h, struct hs_folio).  It counts hits, misses and evictions, keeps
 * the metrics shadow table (the eviction time of every evicted key, unbounded:
 * it is a field of the key's record), classifies protections, and calls the
 * policy's hooks in the kernel's order:
 *
 *   access  --resident?--> yes: ->hit()
 *              |
 *              no: ->admit()?  --> make room: ->evict() until it fits
 *                             --> ->refault() when a shadow entry exists
 *                             --> ->insert()
 *   PAGEOUT/COLD on a resident key: ->hint() (default: PAGEOUT evicts,
 *              COLD keeps), then the pageout mode (below) may overrule an
 *              eviction; an eviction calls ->remove(HINT)
 *   DROP: ->remove(DROP)
 *   READAHEAD on a key not resident: as a miss without the access (admit,
 *              room, refault, ->insert() with the READAHEAD channel), but
 *              neither hit nor miss nor seq; the key is marked until its
 *              first access, to count unused readahead
 *   with cfg.ra_model, a miss of a file page read through a file descriptor
 *              then reads ahead as the kernel would on that miss (below)
 *   with cfg.nr_folios, the pages of one kernel folio are one entity for the
 *              policy ("Folios", below)
 *
 * Room is made before the shadow entry is consulted, as in the kernel, where
 * the memcg charge (and so reclaim) precedes workingset_refault().  Every
 * victim a policy returns is verified (resident, not the incoming key, not
 * returned twice) and a violation ends the run with -EUCLEAN rather than
 * corrupting the statistics.  With cfg.paranoid, the policy's check() and the
 * driver's own count check run after every hook.
 *
 * PAGEOUT hints (POLICIES.md section 2b).  A policy that sets
 * HS_POLICY_OWN_PAGEOUT (the kernel models, which follow their profile) has
 * the last word; the flag is the contract, never a parameter's name.  For
 * every other policy the driver applies cfg.pageout to the verdict:
 * ignore-references (the default, Linux 6.10 and later) lets an eviction
 * through; ignore turns every PAGEOUT into a no-op; recheck keeps a page
 * whose last access is among the last cfg.recheck_window accesses, the
 * pre-6.10 kernel finding a young reference that a racing thread set between
 * the hint and reclaim.  In a serial replay nothing can touch a page between
 * the hint and its reclaim, so recheck with window 0 never keeps one.  The
 * touch that saves the page was an access the policy has already seen as a
 * hit, so a kept page stays where that hit put it.  To know the last access
 * without a field more, a resident key's record holds its seq in evicted_at,
 * which otherwise serves only once the key has left (HS_FOLIO_SHADOW): the
 * per-key cost stays 8 bytes.  Only this mode reads it, so only this mode
 * writes it at every hit (sim->last_access); in the others a hit that changes
 * nothing else leaves the record's cache line clean.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hs.h"
#include "neigh.h"
#include "param.h"
#include "policy.h"
#include "qlist.h"
#include "sim.h"

#define DEFAULT_BATCH	64

struct hs_sim {
	struct hs_sim_config	cfg;		/* as given (params may be replaced) */
	const struct hs_policy_ops *ops;	/* cfg.ops */
	struct hs_policy	*pol;		/* the policy instance */
	struct hs_param_set	*own_ps;	/* defaults, when cfg.params was NULL */
	struct hs_policy_env	env;		/* what the policy sees */
	char			*folios;	/* nr_keys records of env.stride bytes */
	uint64_t		used;		/* units resident */
	uint64_t		seq;		/* accesses so far = seq of the next one */
	uint64_t		prot_resident;	/* resident folios with a pending protection */
	uint64_t		prot_sum;	/* sum of prot_resident sampled per access, up
						 * to access prot_mark (prot_flush()) */
	uint64_t		prot_mark;	/* accesses that prot_sum covers */
	uint64_t		ra_resident;	/* resident folios with HS_FOLIO_READAHEAD */
	uint64_t		seen_on_hit;	/* keys first accessed by a hit (readahead) */
	uint32_t		time_mask;	/* ages are modulo time_mask + 1 (2^32) */
	uint64_t		sweep_every;	/* sweep at least this often (2^31 accesses) */
	uint64_t		next_sweep;	/* seq of the next sweep */
	struct hs_sim_stats	st;		/* counters */
	struct folio_groups	*fo;		/* folio mode (cfg.nr_folios), or NULL */
	struct hs_folio		**victims;	/* scratch for ->evict(), batch_max entries */
	uint32_t		*last;		/* victims of the last step (record_victims) */
	size_t			nr_last;	/* entries in last */
	size_t			last_cap;	/* allocated entries in last */
	int			broken;		/* a policy broke the contract: -EUCLEAN */
	bool			wants_seq_keys;	/* hs_sim_want_seq_keys() */
	bool			in_l2;		/* the records fit in L2: no fetch but the
						 * driver's of the record ahead (l2_bytes()) */
	bool			pf_split;	/* a record may straddle two cache lines (its
						 * stride does not divide 64): fetch both */
	bool			driver_pageout;	/* cfg.pageout filters PAGEOUT verdicts */
	bool			last_access;	/* keep a resident key's last access in
						 * evicted_at (the recheck mode and the DAMON
						 * model read it) */
	bool			plain_hits;	/* hs_sim_run() may take step_hit() (below) */
	bool			inline_run;	/* hs_sim_run() may take run_inline() (below) */
	bool			inline_miss;	/* and its misses miss_inline() */
	/* the queue mirror of miss_inline() (below), or NULL */
	uint32_t		*qm;		/* ring: the keys pushed at the list's tail */
	uint32_t		qm_mask;	/* its entries - 1 (a power of two) */
	bool			qm_ok;		/* [qm_head, qm_tail) is the list, head first */
	uint32_t		qm_head;	/* positions, modulo 2^32 (a multiple of */
	uint32_t		qm_tail;	/* the ring's size) */
	uint64_t		qm_wait;	/* pops until the ring may be rebuilt */
	bool			inline16;	/* run_inline() with 16-byte records and the
						 * policy's links right after the driver's */
	bool			list16;		/* hs_sim_run() takes run_list16() */
	struct hs_inline_hooks	inl;		/* the policy's hooks as it described them
						 * (hs_sim_inline_hooks()), or all CALL */
	/* ops->prefetch as hs_sim_run() calls it: NULL where the records fit in L2 */
	void			(*pf)(struct hs_policy *p, const struct hs_folio *f,
				      uint32_t key);
	uint64_t		*dm_seq;	/* DAMON model: seq at the end of each of the
						 * last dm_len intervals (a ring) */
	uint32_t		dm_len;
	uint64_t		dm_ticks;	/* intervals ended */
	uint64_t		*tlb;		/* TLB model: one bit per key, the key's
						 * translation is cached (cfg.tlb), or NULL */
	uint64_t		tlb_flushes;	/* hs_sim_tlb_flush() calls that emptied it */
	uint64_t		memcg_flushes;	/* hs_sim_memcg_flush() calls */
	uint64_t		tlb_hits;	/* PT hits through a cached translation */
	bool			tlb_dirty;	/* a bit may be set since the last flush */
	/* cfg.tlb_entries: the set as a CLOCK over tlb_n slots (0: unbounded) */
	uint64_t		*tlb_ref;	/* per key: hit since the hand passed */
	uint32_t		*tlb_ring;	/* tlb_n slots: the key cached there, or
						 * UINT32_MAX */
	uint32_t		*tlb_slot;	/* per key: its slot (valid while cached) */
	uint32_t		tlb_n;		/* slots */
	uint32_t		tlb_hand;	/* the next slot the hand looks at */
	char			*series;	/* time-series records kept */
	size_t			series_size;	/* bytes per record (0: none yet) */
	size_t			nr_series;	/* records in series */
	uint64_t		series_every;	/* keep one record in series_every */
	uint64_t		series_seen;	/* records offered so far */
};

/*
 * Folios.  A recorded stream names pages, and the kernel's LRU holds folios:
 * on kernels that read files into large folios (6.18 reads a scan in folios
 * of 4 to 256 pages) one list position, one referenced bit and one eviction
 * stand for all the pages of a folio.  In folio mode each record comes with
 * the kernel folio its page was in at the record's time (lib/replay.c finds
 * it in the session's folio lives), and the pages that enter the model while
 * their kernel folio already has pages in it join those pages:
 *
 *   the first page of a folio to enter (miss or readahead) enters as usual,
 *     and heads the folio's group: the policy sees only it;
 *   a later page of the same folio, missing or read ahead while the group is
 *     resident, is counted as usual (a miss, a refault, a readahead page) and
 *     made room for, then joins the group: resident, but not the policy's;
 *   an access to a member is a hit, counted on the page, and the policy sees
 *     a hit on the head (the folio's referenced bit, its young PTE), except
 *     a read(2) access (FD) right after an FD access to the same folio: the
 *     kernel's filemap_read() marks a folio accessed once per read, and not
 *     again when a read starts in the folio where the previous one ended
 *     (pos_same_folio()), so the pages of one read, and of reads in a row,
 *     mark their folio once;
 *   the policy evicting the head evicts every member with it, each page
 *     counted (evictions, shadow entries, refaults later) on its own; a
 *     PAGEOUT or COLD hint, or a DROP, on a member acts on the whole folio.
 *
 * A page that was resident on its own when its folio's group formed stays
 * on its own (the model kept it where the kernel had dropped it).  Only a
 * policy that counts pages (HS_POLICY_FOLIO_PAGES: linux-2q's list sizes,
 * scans and refault distances, through hs_env_folio_pages() and
 * ops->grow()) runs in folio mode; for any other the driver ignores the
 * folios, since one that counts entities would hold a folio of many pages
 * as one unit and find its memory never full (LIRS's invariants break).  Members are not resident in their
 * records' flags, so no policy takes one for its own: the driver keeps them
 * apart (struct folio_groups).  Off, none of this runs: the hit path is the
 * same, the miss and eviction paths test one pointer.
 */
struct folio_groups {
	uint32_t	*head;		/* per key: head of the group it is a resident member
					 * of, or HS_NIL */
	uint32_t	*next;		/* per key: the next member of its group (a head:
					 * its first member), or HS_NIL */
	uint32_t	*tag;		/* per key: the folio of the group it heads, or HS_NIL */
	uint32_t	*grp;		/* per folio: the head of its resident group, or HS_NIL */
	uint32_t	*pages;		/* per key: the pages it stands for, 1 + its members
					 * (hs_policy_env.folio_pages) */
	uint32_t	*last_fd;	/* per head: low 32 bits of the seq of the last FD
					 * access to its folio */
	uint32_t	cur;		/* the folio of the record being stepped, or HS_NIL */
	uint64_t	members;	/* resident members */
};

static void folio_groups_free(struct folio_groups *fo)
{
	if (!fo)
		return;
	free(fo->head);
	free(fo->next);
	free(fo->tag);
	free(fo->grp);
	free(fo->pages);
	free(fo->last_fd);
	free(fo);
}

static struct folio_groups *folio_groups_new(uint32_t nr_keys, uint32_t nr_folios)
{
	struct folio_groups *fo = calloc(1, sizeof(*fo));
	size_t nk = nr_keys ? nr_keys : 1;

	if (!fo)
		return NULL;
	fo->head = malloc(nk * sizeof(uint32_t));
	fo->next = malloc(nk * sizeof(uint32_t));
	fo->tag = malloc(nk * sizeof(uint32_t));
	fo->grp = malloc((size_t)nr_folios * sizeof(uint32_t));
	fo->pages = malloc(nk * sizeof(uint32_t));
	fo->last_fd = calloc(nk, sizeof(uint32_t));
	if (!fo->head || !fo->next || !fo->tag || !fo->grp || !fo->pages || !fo->last_fd) {
		folio_groups_free(fo);
		return NULL;
	}
	/* all bytes 0xff: HS_NIL */
	memset(fo->head, 0xff, nk * sizeof(uint32_t));
	memset(fo->next, 0xff, nk * sizeof(uint32_t));
	memset(fo->tag, 0xff, nk * sizeof(uint32_t));
	memset(fo->grp, 0xff, (size_t)nr_folios * sizeof(uint32_t));
	for (size_t i = 0; i < nk; i++)
		fo->pages[i] = 1;
	fo->cur = HS_NIL;
	return fo;
}

static inline struct hs_folio *folio_at(const struct hs_sim *sim, uint32_t id)
{
	return (struct hs_folio *)(void *)(sim->folios + (size_t)id * sim->env.stride);
}

static inline uint32_t folio_id(const struct hs_sim *sim, const struct hs_folio *f)
{
	return hs_folio_id(&sim->env, f);
}

/*
 * The age of f's time (evicted_at): exact below half the time range (2^31),
 * HS_DIST_ANCIENT from there on, whether or not a sweep has marked it yet
 * (until the sweep, the difference modulo the range is still exact).
 */
static inline uint64_t folio_age(const struct hs_sim *sim, const struct hs_folio *f)
{
	uint32_t age = ((uint32_t)sim->seq - f->evicted_at) & sim->time_mask;

	if (unlikely((f->flags & HS_FOLIO_ANCIENT) || age > sim->time_mask >> 1))
		return HS_DIST_ANCIENT;
	return age;
}

/* f's time is now (evicted_at). */
static inline void folio_stamp(const struct hs_sim *sim, struct hs_folio *f)
{
	f->evicted_at = (uint32_t)sim->seq;
	f->flags &= (uint8_t)~HS_FOLIO_ANCIENT;
}

/*
 * At most every half time range (2^31 accesses): mark the times that are
 * half a range old or more, the only ones the next half could wrap,
 * HS_FOLIO_ANCIENT.  An unmarked time is then always less than a whole range
 * old, so its age modulo the range is exact, and folio_age() calls anything
 * from half a range on ancient, marked or not: when exactly a sweep runs
 * changes no result, only that one runs in time.  A walk over every key once
 * per 2^31 accesses; stale times (neither shadow nor resident) are left
 * alone.
 */
static void __attribute__((noinline)) sweep_times(struct hs_sim *sim)
{
	sim->next_sweep = sim->seq + sim->sweep_every;
	for (uint32_t i = 0; i < sim->cfg.nr_keys; i++) {
		struct hs_folio *f = folio_at(sim, i);

		if ((f->flags & (HS_FOLIO_SHADOW | HS_FOLIO_RESIDENT)) &&
		    !(f->flags & HS_FOLIO_ANCIENT) && folio_age(sim, f) == HS_DIST_ANCIENT)
			f->flags |= HS_FOLIO_ANCIENT;
	}
}

/**
 * hs_prot_kind_name() - the SQL/JSON name of a protection kind
 * @k: the kind
 *
 * Return: "second_chance", "tier", "promote", "shield", or "?".
 */
const char *hs_prot_kind_name(enum hs_prot_kind k)
{
	static const char *const names[HS_PROT_NR] = {
		[HS_PROT_SECOND_CHANCE] = "second_chance",
		[HS_PROT_TIER] = "tier",
		[HS_PROT_PROMOTE] = "promote",
		[HS_PROT_SHIELD] = "shield",
	};

	return (unsigned int)k < HS_PROT_NR ? names[k] : "?";
}

/**
 * hs_metrics_add() - append a policy-specific number
 * @m: the set
 * @name: "policy.what", truncated to fit
 * @value: the number
 *
 * Silently ignores metrics past HS_METRICS_MAX.
 */
void hs_metrics_add(struct hs_metrics *m, const char *name, double value)
{
	if (m->n >= HS_METRICS_MAX)
		return;
	snprintf(m->m[m->n].name, sizeof(m->m[m->n].name), "%s", name);
	m->m[m->n].value = value;
	m->n++;
}

double hs_metrics_get(const struct hs_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->m[i].name, name))
			return m->m[i].value;
	return NAN;
}

static const char *const pageout_names[HS_PAGEOUT_NR] = {
	[HS_PAGEOUT_IGNORE_REFS] = "ignore-references",
	[HS_PAGEOUT_RECHECK] = "recheck",
	[HS_PAGEOUT_IGNORE] = "ignore",
};

/**
 * hs_pageout_mode_name() - the CLI name of a pageout mode
 * @m: the mode
 *
 * Return: "ignore-references", "recheck", "ignore", or NULL for a bad value.
 */
const char *hs_pageout_mode_name(enum hs_pageout_mode m)
{
	return (unsigned int)m < HS_PAGEOUT_NR ? pageout_names[m] : NULL;
}

/**
 * hs_pageout_mode_parse() - a pageout mode from its name
 * @name: "ignore-references", "recheck" or "ignore"
 * @out: receives the mode
 *
 * Return: 0, or -EINVAL for any other word (@out untouched).
 */
int hs_pageout_mode_parse(const char *name, enum hs_pageout_mode *out)
{
	for (unsigned int i = 0; i < HS_PAGEOUT_NR; i++)
		if (!strcmp(name, pageout_names[i])) {
			*out = (enum hs_pageout_mode)i;
			return 0;
		}
	return -EINVAL;
}

/**
 * hs_sim_new() - set up one run
 * @cfg: configuration (copied)
 * @out: the new run
 *
 * Return: 0, -EINVAL, -ENOSYS (a policy without hooks), -ENOMEM, or the
 * policy's create() error.
 */
/*
 * The driver's bytes per distinct key for a run of @ops: the folio record and
 * the policy's private area, rounded up to keep every record 8-byte aligned.
 * A run allocates and touches nr_keys of them when it starts (lib/plan.c
 * plans sweeps with it).
 */
size_t hs_sim_key_bytes(const struct hs_policy_ops *ops)
{
	return (sizeof(struct hs_folio) + ops->folio_priv + 7) & ~(size_t)7;
}

/*
 * Fault the record array in now, in order, as setting every record's id used
 * to: the faults belong to the run's set-up, not to its steps (whose time the
 * replay reports), and in order they come in whole huge pages.
 */
static void hs_sim_touch(char *p, size_t len)
{
	for (size_t off = 0; off < len; off += 4096)
		((volatile char *)p)[off] = 0;
}

/*
 * hs_folio_id() divides by the stride with a shift and a multiply: stride =
 * odd * 2^shift, and mul * odd = 1 modulo 2^32 (Newton's iteration, each
 * step doubling the correct low bits from 3).  Offsets are exact multiples
 * of the stride, so the product modulo 2^32 is the index.
 */
static void id_divisor(size_t stride, unsigned int *shift, uint32_t *mul)
{
	uint32_t odd, x;

	*shift = (unsigned int)__builtin_ctzll(stride);
	odd = (uint32_t)(stride >> *shift);
	x = odd;			/* correct to 3 bits: odd * odd = 1 mod 8 */
	for (int i = 0; i < 4; i++)
		x *= 2 - odd * x;
	*mul = x;
}

/*
 * TLB model (cfg.tlb).  On x86 the hardware sets a PTE's accessed bit when
 * it walks the page table to fill the TLB, not at every access; reclaim's
 * folio_referenced() and MGLRU's walks clear the bit without a flush, so a
 * touch through a translation still cached sets nothing, and reclaim takes
 * the page for unreferenced.  The set of cached translations is one bit per
 * key (an eighth of a byte per key): a PT access sets it (a miss faults the
 * page in, a hit through no cached entry walks the table), and a PT hit
 * that finds it set is a TLB hit (hs_access.tlb_hit).  A page's entry goes
 * at its unmap (eviction, a drop, a madvise hint's flush); every entry goes
 * at hs_sim_tlb_flush(), which the replay calls where the recorded session's
 * full flushes, switches in from other processes and migrations of the
 * workload fall on the stream (lib/replay.c).  Only resident keys hold a
 * bit, so without a bound the set is at most the size of the memory; with
 * cfg.tlb_entries (the CPU's TLB entries, recorded with the session) it
 * holds at most that many, and a page walk for a new entry pushes an old
 * one out (tlb_fill()), so translations also die of capacity.  One set for
 * the workload: its CPUs are not told apart.
 */
static inline size_t tlb_words(uint32_t nr_keys)
{
	return ((size_t)nr_keys + 63) / 64 ? ((size_t)nr_keys + 63) / 64 : 1;
}

static inline bool tlb_bit(const uint64_t *b, uint32_t key)
{
	return b[key / 64] & (1ull << (key % 64));
}

/*
 * A bounded set (cfg.tlb_entries, the CPU's TLB): @key takes a slot, and
 * when every slot is taken the hand evicts the first entry not hit since it
 * last passed (CLOCK, an approximation of the hardware's replacement).  A
 * slot whose key left the set (eviction, a flush) is free.
 */
static void tlb_fill(struct hs_sim *sim, uint32_t key)
{
	for (;;) {
		uint32_t h = sim->tlb_hand, v = sim->tlb_ring[h];
		bool live = v != UINT32_MAX && sim->tlb_slot[v] == h && tlb_bit(sim->tlb, v);

		sim->tlb_hand = (h + 1) % sim->tlb_n;
		if (live && tlb_bit(sim->tlb_ref, v)) {
			sim->tlb_ref[v / 64] &= ~(1ull << (v % 64));
			continue;
		}
		if (live)
			sim->tlb[v / 64] &= ~(1ull << (v % 64));
		sim->tlb_ring[h] = key;
		sim->tlb_slot[key] = h;
		sim->tlb_ref[key / 64] &= ~(1ull << (key % 64));
		return;
	}
}

/* Was key's translation cached?  It is afterwards. */
static inline bool tlb_test_set(struct hs_sim *sim, uint32_t key)
{
	uint64_t *w = &sim->tlb[key / 64], m = 1ull << (key % 64);
	bool was = *w & m;

	if (sim->tlb_n) {
		if (was)
			sim->tlb_ref[key / 64] |= m;
		else
			tlb_fill(sim, key);
	}
	*w |= m;
	sim->tlb_dirty = true;
	return was;
}

/* f's translation goes (its id is computed only with the model: evictions are hot). */
static inline void tlb_drop(struct hs_sim *sim, const struct hs_folio *f)
{
	if (unlikely(sim->tlb)) {
		uint32_t key = folio_id(sim, f);

		sim->tlb[key / 64] &= ~(1ull << (key % 64));
	}
}

/*
 * The L2 cache's bytes (per core), or 256 KiB when the C library cannot say.
 * Below it, the key records of a run stay in L2 once touched, and the
 * policy's prefetch hook (ops->prefetch) fetches lines that are there
 * already: hs_sim_run() skips it.  Measured on issue 13's zipf(1.0) sessions
 * (this project's VM, Xeon, L2 2 MiB; 11 and 15 interleaved rounds, CPU time
 * of the whole process per access, medians): at 81,000 keys (1.3 MB of LRU
 * records) lru at 8,100 took 38.0 ns with the hook and 31.1 without; at
 * 763,102 keys (12 MB) lru at 76,300 took 38.5 with it and 41.7 without.
 * The driver's own fetch of the records ahead (prefetch_folio()) pays at
 * both sizes (81,000 keys: the floor 13.9 ns with it, 18.6 without), so it
 * stays.
 */
static size_t l2_bytes(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE
	long v = sysconf(_SC_LEVEL2_CACHE_SIZE);

	if (v > 0)
		return (size_t)v;
#endif
	return 256 * 1024;
}

int hs_sim_new(const struct hs_sim_config *cfg, struct hs_sim **out)
{
	const struct hs_policy_ops *ops = cfg->ops;
	struct hs_sim *sim;
	unsigned int time_bits;
	size_t batch;
	int err;

	if (!ops || ops->abi != HS_POLICY_ABI || cfg->capacity == 0)
		return -EINVAL;
	if (!ops->create || !ops->hit || !ops->insert || !ops->evict || !ops->remove)
		return -ENOSYS;
	if (cfg->nr_keys == UINT32_MAX)		/* HS_NIL is reserved */
		return -EINVAL;
	if (cfg->override_channel && !hs_channel_is_access(cfg->channel))
		return -EINVAL;
	if (cfg->pageout >= HS_PAGEOUT_NR)
		return -EINVAL;
	if (cfg->neigh && cfg->neigh->nr_keys != cfg->nr_keys)
		return -EINVAL;		/* another session's addresses */
	if (cfg->time_bits == 1 || cfg->time_bits > 32)
		return -EINVAL;
	batch = cfg->batch_max ? cfg->batch_max : DEFAULT_BATCH;
	/*
	 * A policy that reclaims in bulk must never be cut short by the
	 * scratch array: that would change its run.  Resident folios are
	 * fewer than min(capacity, keys); calloc()'s pages are touched only as
	 * far as the largest reclaim reaches, so room costs address space,
	 * not memory.
	 */
	if (!cfg->batch_max && (ops->flags & HS_POLICY_BULK_RECLAIM))
		batch = HS_MAX(batch, (size_t)HS_MIN(cfg->capacity, (uint64_t)cfg->nr_keys));

	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	sim->cfg = *cfg;
	sim->cfg.batch_max = batch;
	if (!cfg->neigh)
		sim->cfg.ra_model = 0;	/* no addresses: no neighbours to read ahead */
	if (!hs_policy_folio_pages(ops))
		sim->cfg.nr_folios = 0;	/* it counts entities: page by page */
	sim->ops = ops;
	sim->env.capacity = cfg->capacity;
	sim->env.nr_keys = cfg->nr_keys;
	sim->env.priv_off = sizeof(struct hs_folio);
	sim->env.stride = hs_sim_key_bytes(ops);
	id_divisor(sim->env.stride, &sim->env.id_shift, &sim->env.id_mul);
	sim->pf_split = 64 % sim->env.stride != 0;	/* the array starts a line */
	time_bits = cfg->time_bits ? cfg->time_bits : 32;
	sim->time_mask = (uint32_t)(UINT32_MAX >> (32 - time_bits));
	sim->sweep_every = (uint64_t)(sim->time_mask >> 1) + 1;
	sim->next_sweep = sim->sweep_every;
	sim->env.sim = sim;
	sim->env.neigh = cfg->neigh;
	sim->env.memcg_flushes = cfg->memcg_flushes;
	sim->env.memcg_reclaim_max = cfg->memcg_reclaim_max;
	sim->st.capacity = cfg->capacity;
	sim->driver_pageout = !hs_policy_has_pageout(ops);
	sim->last_access = (sim->driver_pageout && cfg->pageout == HS_PAGEOUT_RECHECK) ||
			   cfg->damon;
	sim->in_l2 = !cfg->policy_prefetch &&
		     (size_t)cfg->nr_keys * sim->env.stride <= l2_bytes();
	sim->pf = sim->in_l2 ? NULL : ops->prefetch;
	sim->plain_hits = !cfg->override_channel && !sim->last_access && !cfg->tlb &&
			  !cfg->paranoid && !cfg->record_victims;

	err = -ENOMEM;
	sim->victims = calloc(batch, sizeof(*sim->victims));
	if (!sim->victims)
		goto out_free;
	if (sim->cfg.nr_folios) {
		sim->fo = folio_groups_new(cfg->nr_keys, cfg->nr_folios);
		if (!sim->fo)
			goto out_free;
		sim->env.folio_pages = sim->fo->pages;
	}
	/* calloc: the policy's private areas start zeroed, as documented. */
	sim->folios = hs_huge_alloc((size_t)cfg->nr_keys * sim->env.stride);
	if (!sim->folios)
		goto out_free;
	sim->env.folios = sim->folios;
	hs_sim_touch(sim->folios, (size_t)cfg->nr_keys * sim->env.stride);
	if (cfg->tlb) {
		sim->tlb = calloc(tlb_words(cfg->nr_keys), sizeof(*sim->tlb));
		if (!sim->tlb)
			goto out_free;
		/* a bound at or above the keys never fills: unbounded */
		sim->tlb_n = cfg->tlb_entries < cfg->nr_keys ? cfg->tlb_entries : 0;
		if (sim->tlb_n) {
			sim->tlb_ref = calloc(tlb_words(cfg->nr_keys), sizeof(*sim->tlb_ref));
			sim->tlb_ring = malloc(sim->tlb_n * sizeof(*sim->tlb_ring));
			sim->tlb_slot = calloc(cfg->nr_keys ? cfg->nr_keys : 1,
					       sizeof(*sim->tlb_slot));
			if (!sim->tlb_ref || !sim->tlb_ring || !sim->tlb_slot)
				goto out_free;
			memset(sim->tlb_ring, 0xff, sim->tlb_n * sizeof(*sim->tlb_ring));
		}
	}

	if (!cfg->params) {
		err = hs_param_set_new(ops->params, &sim->own_ps);
		if (err)
			goto out_free;
		sim->cfg.params = sim->own_ps;
	}
	err = ops->create(&sim->env, sim->cfg.params, &sim->pol);
	if (err)
		goto out_free;
	/*
	 * run_inline() for the plain hits of a policy that described its hit
	 * (whose records do not straddle two lines: it fetches one line ahead
	 * per key; MOVE_TAIL_STAMP's loop fetches two), and miss_inline() for
	 * the misses that need no hook but insert() and evict(), and nothing
	 * of the driver but its counts (no readahead model, no eviction
	 * callback).
	 */
	sim->inline_run = sim->plain_hits && sim->inl.hit != HS_INLINE_HIT_CALL &&
			  (!sim->pf_split || sim->inl.hit == HS_INLINE_HIT_MOVE_TAIL_STAMP);
	sim->inline_miss = sim->inline_run && !sim->cfg.ra_model && !cfg->on_evict &&
			   !ops->admit && !ops->refault;
	/*
	 * The queue mirror, for a list that is a queue: hits that leave it be,
	 * keys in at the tail and out at the head, all in line; and records
	 * beyond L2, as for the policy's prefetch hook (below, the ring costs
	 * more instructions than it saves waiting).  The ring holds every
	 * resident key (the smaller of the capacity and the keys).  With room
	 * for every key nothing is evicted, and the ring would only be written
	 * (the floor at 3.7 M keys pushed 3.7 M keys into 16 MiB of it).
	 */
	if (!sim->in_l2 && cfg->capacity < cfg->nr_keys && sim->inline_miss &&
	    sim->inl.insert == HS_INLINE_INSERT_PUSH_TAIL &&
	    (sim->inl.hit == HS_INLINE_HIT_NOP || sim->inl.hit == HS_INLINE_HIT_SET_BIT) &&
	    (sim->inl.evict == HS_INLINE_EVICT_POP_HEAD ||
	     sim->inl.evict == HS_INLINE_EVICT_SECOND_CHANCE)) {
		uint64_t need = HS_MIN(cfg->capacity, (uint64_t)cfg->nr_keys), c = 1;

		while (c < need)
			c <<= 1;
		if (c <= (uint64_t)UINT32_MAX + 1)
			sim->qm = calloc(c, sizeof(*sim->qm));
		sim->qm_mask = (uint32_t)(c - 1);
		sim->qm_ok = sim->qm != NULL;	/* the list is empty, and so is the ring */
	}
	/* and every described operation on the list (any but CALLs) finds its links there */
	sim->inline16 = sim->env.stride == 16 &&
			((sim->inl.hit != HS_INLINE_HIT_MOVE_TAIL &&
			  sim->inl.insert == HS_INLINE_INSERT_CALL &&
			  sim->inl.evict == HS_INLINE_EVICT_CALL) ||
			 (sim->inl.q->base == sim->folios && sim->inl.q->stride == 16 &&
			  sim->inl.q->off == sizeof(struct hs_folio)));
	/* lru's and fifo's (in L2: beyond, fifo's queue mirror) loop, below */
	sim->list16 = sim->inline16 && sim->inline_miss && !sim->qm &&
		      sim->inl.insert == HS_INLINE_INSERT_PUSH_TAIL &&
		      ((!sim->inl.bits && sim->inl.evict == HS_INLINE_EVICT_POP_HEAD &&
			(sim->inl.hit == HS_INLINE_HIT_MOVE_TAIL ||
			 (sim->inl.hit == HS_INLINE_HIT_NOP && !sim->pf))) ||
		       (sim->inl.bits && sim->inl.scanned && !sim->pf &&
			sim->inl.evict == HS_INLINE_EVICT_SECOND_CHANCE &&
			sim->inl.hit == HS_INLINE_HIT_SET_BIT));
	*out = sim;
	return 0;

out_free:
	hs_param_set_free(sim->own_ps);
	hs_huge_free(sim->folios, (size_t)sim->cfg.nr_keys * sim->env.stride);
	folio_groups_free(sim->fo);
	free(sim->victims);
	free(sim->tlb);
	free(sim->tlb_ref);
	free(sim->tlb_ring);
	free(sim->tlb_slot);
	free(sim);
	return err;
}

/**
 * hs_sim_free() - tear a run down
 * @sim: the run, or NULL
 */
void hs_sim_free(struct hs_sim *sim)
{
	if (!sim)
		return;
	if (sim->pol)
		sim->ops->destroy(sim->pol);
	hs_param_set_free(sim->own_ps);
	hs_huge_free(sim->folios, (size_t)sim->cfg.nr_keys * sim->env.stride);
	free(sim->victims);
	free(sim->qm);
	free(sim->last);
	free(sim->series);
	free(sim->dm_seq);
	free(sim->tlb);
	free(sim->tlb_ref);
	free(sim->tlb_ring);
	free(sim->tlb_slot);
	folio_groups_free(sim->fo);
	free(sim);
}

/**
 * hs_sim_series_add() - record one point of the policy's time series
 * @sim: env->sim
 * @rec: the record (copied; its first uint64_t is set to the accesses so far)
 * @size: bytes, the same at every call of the run
 *
 * Keeps every series_every-th record; when HS_SERIES_MAX are kept, drops
 * every other one and doubles series_every.  A bad size breaks the run; an
 * allocation failure loses the record, never the run.
 */
void hs_sim_series_add(struct hs_sim *sim, const void *rec, size_t size)
{
	char *slot;

	if (size < sizeof(uint64_t) || size > HS_SERIES_REC_MAX ||
	    (sim->series_size && size != sim->series_size)) {
		sim->broken = -EUCLEAN;
		return;
	}
	sim->series_size = size;
	if (sim->series_every == 0)
		sim->series_every = 1;
	if (sim->series_seen++ % sim->series_every)
		return;
	if (!sim->series) {
		sim->series = malloc(HS_SERIES_MAX * size);
		if (!sim->series)
			return;
	}
	if (sim->nr_series == HS_SERIES_MAX) {
		for (size_t i = 0; i < HS_SERIES_MAX / 2; i++)
			memcpy(sim->series + i * size, sim->series + 2 * i * size, size);
		sim->nr_series = HS_SERIES_MAX / 2;
		sim->series_every *= 2;
		if ((sim->series_seen - 1) % sim->series_every)
			return;
	}
	slot = sim->series + sim->nr_series++ * size;
	memcpy(slot, rec, size);
	memcpy(slot, &sim->seq, sizeof(sim->seq));	/* the driver knows the time */
}

/**
 * hs_sim_series() - the records kept so far, oldest first
 * @sim: the run
 * @out: receives the first record
 * @size: receives the size of one record (0 without any)
 *
 * Return: the number of records.
 */
size_t hs_sim_series(const struct hs_sim *sim, const void **out, size_t *size)
{
	*out = sim->series;
	*size = sim->nr_series ? sim->series_size : 0;
	return sim->nr_series;
}

/*
 * prot_occupancy samples prot_resident at every access.  Rather than add it
 * up per access, the sum is brought up to date whenever the count is about to
 * change (and at the end): the same integer, without a read-modify-write of
 * the driver's state on every step.  hits + misses counts the samples taken so
 * far (an access is sampled as it is counted, before its hooks run).
 */
static inline void prot_flush(struct hs_sim *sim)
{
	uint64_t accesses = sim->st.hits + sim->st.misses;

	sim->prot_sum += sim->prot_resident * (accesses - sim->prot_mark);
	sim->prot_mark = accesses;
}

void hs_sim_want_seq_keys(struct hs_sim *sim)
{
	sim->wants_seq_keys = true;
}

bool hs_sim_wants_seq_keys(const struct hs_sim *sim)
{
	return sim->wants_seq_keys;
}

void hs_sim_set_seq_keys(struct hs_sim *sim, const uint32_t *keys, uint64_t n)
{
	sim->env.seq_keys = keys;
	sim->env.nr_seq = keys ? n : 0;
}

void hs_sim_fail(struct hs_sim *sim, int err)
{
	if (!sim->broken)
		sim->broken = err < 0 ? err : -EUCLEAN;
}

void hs_sim_inline_hooks(struct hs_sim *sim, const struct hs_inline_hooks *h)
{
	sim->inl = *h;
}

/*
 * hs_sim_protect() and settle_protection() are in line where CLOCK's hand
 * and its hits call them (second_chance(), rec_inline()): a call each per
 * second chance given and per second chance used, 1.2 M and 0.8 M of them
 * at 8,100 of issue 13's 81 K zipf keys, 5 % of clock's CPU in the calls.
 */
static inline __attribute__((always_inline)) void protect_inline(struct hs_sim *sim,
								  struct hs_folio *f,
								  enum hs_prot_kind kind)
{
	if ((unsigned int)kind >= HS_PROT_NR || !hs_folio_is_resident(f)) {
		sim->broken = -EUCLEAN;
		return;
	}
	sim->st.prot.total++;
	sim->st.prot_kind[kind].total++;
	if (f->prot_pending == 0) {
		prot_flush(sim);
		sim->prot_resident++;
	}
	if (f->prot_pending < UINT8_MAX)
		f->prot_pending++;
	f->prot_kind = (uint8_t)kind;
}

void hs_sim_protect(struct hs_sim *sim, struct hs_folio *f, enum hs_prot_kind kind)
{
	protect_inline(sim, f, kind);
}

/* Settle f's pending protections as useful (accessed again) or wasted (left). */
static inline __attribute__((always_inline)) void settle_inline(struct hs_sim *sim,
								 struct hs_folio *f, bool useful)
{
	struct hs_prot_stats *k = &sim->st.prot_kind[f->prot_kind];

	if (useful) {
		sim->st.prot.useful += f->prot_pending;
		k->useful += f->prot_pending;
	} else {
		sim->st.prot.wasted += f->prot_pending;
		k->wasted += f->prot_pending;
	}
	f->prot_pending = 0;
	prot_flush(sim);
	sim->prot_resident--;
}

static void settle_protection(struct hs_sim *sim, struct hs_folio *f, bool useful)
{
	settle_inline(sim, f, useful);
}

/* settle_protection() when f has protections pending: the test inline, every eviction makes it */
static inline void resolve_protection(struct hs_sim *sim, struct hs_folio *f, bool useful)
{
	if (f->prot_pending)
		settle_protection(sim, f, useful);
}

static inline int check_now(struct hs_sim *sim)
{
	if (likely(!sim->broken && !sim->cfg.paranoid))
		return 0;
	if (sim->broken)
		return sim->broken;
	if (sim->cfg.paranoid && sim->ops->check && sim->ops->check(sim->pol))
		sim->broken = -EUCLEAN;
	return sim->broken;
}

static int remember_victim(struct hs_sim *sim, uint32_t id)
{
	if (!sim->cfg.record_victims)
		return 0;
	if (sim->nr_last == sim->last_cap) {
		size_t cap = sim->last_cap ? sim->last_cap * 2 : 16;
		uint32_t *p = realloc(sim->last, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sim->last = p;
		sim->last_cap = cap;
	}
	sim->last[sim->nr_last++] = id;
	return 0;
}

/* f leaves memory by eviction (the policy's or a hint's): write its shadow entry. */
/* f leaves memory: an unused readahead page if it was never accessed since. */
static void readahead_leave(struct hs_sim *sim, struct hs_folio *f)
{
	if (f->flags & HS_FOLIO_READAHEAD) {
		f->flags &= (uint8_t)~HS_FOLIO_READAHEAD;
		sim->ra_resident--;
		sim->st.readahead_unused++;
	}
}

/*
 * f leaves memory by eviction, the page's part: its shadow entry, the
 * counts, its protection settled.  miss_inline() stops here: its runs have
 * no TLB model, eviction callback or victims kept.
 */
static inline __attribute__((always_inline)) void page_out(struct hs_sim *sim,
							    struct hs_folio *f, bool hinted)
{
	readahead_leave(sim, f);
	f->flags &= (uint8_t)~(HS_FOLIO_RESIDENT | HS_FOLIO_HINTED | HS_FOLIO_RA_MARK);
	f->flags |= HS_FOLIO_SHADOW | (hinted ? HS_FOLIO_HINTED : 0);
	folio_stamp(sim, f);
	sim->used--;
	if (hinted)
		sim->st.hint_evictions++;
	else
		sim->st.evictions++;
	if (f->flags & HS_FOLIO_ANON)
		sim->st.pswpout++;
	resolve_protection(sim, f, false);
}

static inline __attribute__((always_inline)) int evict_page_inline(struct hs_sim *sim,
								    struct hs_folio *f,
								    bool hinted)
{
	page_out(sim, f, hinted);
	tlb_drop(sim, f);	/* unmapped: its TLB entry is flushed */
	if (sim->cfg.on_evict) {
		int err = sim->cfg.on_evict(sim->cfg.evict_arg, sim->seq, folio_id(sim, f), hinted);

		if (err)
			return err;
	}
	return sim->cfg.record_victims ? remember_victim(sim, folio_id(sim, f)) : 0;
}

static int evict_page(struct hs_sim *sim, struct hs_folio *f, bool hinted)
{
	return evict_page_inline(sim, f, hinted);
}

/* Head @id has left memory (evicted or dropped): its group ends. */
static uint32_t group_end(struct folio_groups *fo, uint32_t id)
{
	uint32_t first = fo->next[id];

	fo->grp[fo->tag[id]] = HS_NIL;
	fo->tag[id] = HS_NIL;
	fo->next[id] = HS_NIL;
	fo->pages[id] = 1;
	return first;
}

/* Unlink member @m, the next of whose is returned. */
static uint32_t member_leave(struct folio_groups *fo, uint32_t m)
{
	uint32_t nx = fo->next[m];

	fo->next[m] = HS_NIL;
	fo->head[m] = HS_NIL;
	fo->members--;
	return nx;
}

/* The head @id was evicted: its members go with it, page by page. */
static int group_evict(struct hs_sim *sim, uint32_t id, bool hinted)
{
	struct folio_groups *fo = sim->fo;
	uint32_t m;
	int err = 0;

	if (fo->tag[id] == HS_NIL)
		return 0;
	for (m = group_end(fo, id); m != HS_NIL;) {
		uint32_t page = m;

		m = member_leave(fo, m);
		if (!err)
			err = evict_page(sim, folio_at(sim, page), hinted);
	}
	return err;
}

static int evict_one(struct hs_sim *sim, struct hs_folio *f, bool hinted)
{
	int err = evict_page(sim, f, hinted);

	if (unlikely(sim->fo) && !err)
		err = group_evict(sim, folio_id(sim, f), hinted);
	return err;
}

/* Folio mode: does the record's page join its folio's resident group? */
static inline bool group_joins(const struct hs_sim *sim)
{
	return unlikely(sim->fo) && sim->fo->cur != HS_NIL && sim->fo->grp[sim->fo->cur] != HS_NIL;
}

/* f, room made, joins the resident group of the record's folio (not the policy's). */
static void group_join(struct hs_sim *sim, struct hs_folio *f, bool readahead)
{
	struct folio_groups *fo = sim->fo;
	uint32_t id = folio_id(sim, f), h = fo->grp[fo->cur];

	f->flags &= (uint8_t)~(HS_FOLIO_SHADOW | HS_FOLIO_HINTED);
	folio_stamp(sim, f);
	if (readahead) {
		f->flags |= HS_FOLIO_READAHEAD;
		sim->ra_resident++;
		sim->st.readahead_pages++;
	}
	fo->head[id] = h;
	fo->next[id] = fo->next[h];
	fo->next[h] = id;
	fo->members++;
	fo->pages[h]++;
	if (!readahead)
		fo->last_fd[h] = (uint32_t)sim->seq;	/* this miss's read marks the folio */
	sim->used++;
	if (sim->used > sim->st.peak_resident)
		sim->st.peak_resident = sim->used;
	if (sim->ops->grow)
		sim->ops->grow(sim->pol, folio_at(sim, h));
}

/* f entered as the policy's: it heads the group of the record's folio, if any. */
static inline void group_start(struct hs_sim *sim, struct hs_folio *f, bool readahead)
{
	struct folio_groups *fo = sim->fo;
	uint32_t id;

	if (likely(!fo) || fo->cur == HS_NIL)
		return;
	id = folio_id(sim, f);
	fo->grp[fo->cur] = id;
	fo->tag[id] = fo->cur;
	fo->next[id] = HS_NIL;
	/* a miss's read has marked it; read ahead, no read has yet */
	fo->last_fd[id] = (uint32_t)sim->seq - (readahead ? 2 : 0);
}

/* Is key @id's page in memory, on its own or as a member of a folio? */
static inline bool page_resident(const struct hs_sim *sim, uint32_t id)
{
	return hs_folio_is_resident(folio_at(sim, id)) ||
	       (unlikely(sim->fo) && sim->fo->head[id] != HS_NIL);
}

static int make_room(struct hs_sim *sim, struct hs_folio *in, const struct hs_access *a)
{
	while (sim->used + 1 > sim->cfg.capacity) {
		uint64_t need = sim->used + 1 - sim->cfg.capacity;
		size_t n, i;
		int err;

		n = sim->ops->evict(sim->pol, in, a, need, sim->victims, sim->cfg.batch_max);
		if (n == 0 || n > sim->cfg.batch_max)
			return -EUCLEAN;
		for (i = 0; i < n; i++) {
			struct hs_folio *v = sim->victims[i];

			if (!v || v == in || !hs_folio_is_resident(v))
				return -EUCLEAN;
			if (likely(!sim->fo)) {
				/* evict_one(), with the page's eviction inline: every miss
				 * of a full memory makes one */
				err = evict_page_inline(sim, v, false);
				if (err)
					return err;
				continue;
			}
			err = evict_one(sim, v, false);
			if (err)
				return err;
		}
		err = check_now(sim);
		if (err)
			return err;
	}
	return 0;
}

/* A miss on f: counted, and a cold one the first time f is seen. */
static inline __attribute__((always_inline)) void count_miss(struct hs_sim *sim, struct hs_folio *f)
{
	sim->st.misses++;
	if (!(f->flags & HS_FOLIO_SEEN)) {
		f->flags |= HS_FOLIO_SEEN;
		sim->st.cold_misses++;
	}
}

/* f enters memory: its shadow entry used up, stamped now (its last access while resident). */
static inline __attribute__((always_inline)) void make_resident(struct hs_sim *sim,
								 struct hs_folio *f)
{
	f->flags &= (uint8_t)~(HS_FOLIO_SHADOW | HS_FOLIO_HINTED);
	folio_stamp(sim, f);
	f->flags |= HS_FOLIO_RESIDENT;
	sim->used++;
	if (sim->used > sim->st.peak_resident)
		sim->st.peak_resident = sim->used;
}

/* f, with a shadow entry, comes back (a miss or a readahead insertion); most misses do. */
static inline __attribute__((always_inline)) void count_refault(struct hs_sim *sim, struct hs_folio *f, uint64_t dist)
{
	unsigned int b = dist ? 64 - (unsigned int)__builtin_clzll(dist) : 0;

	sim->st.refaults++;
	sim->st.refault_hist[HS_MIN(b, HS_HIST_BUCKETS - 1)]++;
	if (f->flags & HS_FOLIO_HINTED)
		sim->st.hint_refaults++;
	if (f->flags & HS_FOLIO_ANON)
		sim->st.pswpin++;
	if (f->refaults < UINT8_MAX)
		f->refaults++;
	if (f->refaults == 2) {
		sim->st.pingpong_keys++;
		sim->st.pingpong_refaults += 2;
	} else if (f->refaults > 2) {
		sim->st.pingpong_refaults++;
	}
}

static int do_miss(struct hs_sim *sim, struct hs_folio *f, const struct hs_access *a)
{
	bool refault = f->flags & HS_FOLIO_SHADOW;
	uint64_t dist = refault ? folio_age(sim, f) : 0;
	int err;

	count_miss(sim, f);
	if (refault)
		count_refault(sim, f, dist);

	if (sim->ops->admit && !sim->ops->admit(sim->pol, f, a)) {
		/* Served without caching: the shadow entry has done its job. */
		f->flags &= (uint8_t)~(HS_FOLIO_SHADOW | HS_FOLIO_HINTED);
		return check_now(sim) ? sim->broken : HS_STEP_MISS;
	}

	err = make_room(sim, f, a);
	if (err)
		return err;
	if (group_joins(sim)) {
		group_join(sim, f, false);
		return check_now(sim) ? sim->broken : HS_STEP_MISS;
	}
	if (refault && sim->ops->refault) {
		sim->ops->refault(sim->pol, f, a, dist);
		if (check_now(sim))
			return sim->broken;
	}
	make_resident(sim, f);
	sim->ops->insert(sim->pol, f, a);
	group_start(sim, f, false);
	if (check_now(sim))
		return sim->broken;
	return HS_STEP_MISS;
}

/*
 * A READAHEAD record: the kernel brought f in without an access.  Resident
 * already: nothing.  Otherwise it enters as a miss would, without counting
 * one or advancing seq, and stays marked until its first access.
 */
static int do_readahead(struct hs_sim *sim, struct hs_folio *f, const struct hs_access *a)
{
	bool refault = f->flags & HS_FOLIO_SHADOW;
	uint64_t dist;
	int err;

	if (hs_folio_is_resident(f) || (unlikely(sim->fo) && sim->fo->head[a->key] != HS_NIL))
		return HS_STEP_OTHER;
	if (sim->ops->admit && !sim->ops->admit(sim->pol, f, a))
		return check_now(sim) ? sim->broken : HS_STEP_OTHER;
	dist = refault ? folio_age(sim, f) : 0;
	if (refault)
		count_refault(sim, f, dist);
	err = make_room(sim, f, a);
	if (err)
		return err;
	if (group_joins(sim)) {
		group_join(sim, f, true);
		return check_now(sim) ? sim->broken : HS_STEP_OTHER;
	}
	if (refault && sim->ops->refault) {
		sim->ops->refault(sim->pol, f, a, dist);
		if (check_now(sim))
			return sim->broken;
	}
	make_resident(sim, f);
	f->flags |= HS_FOLIO_READAHEAD;
	sim->ra_resident++;
	sim->st.readahead_pages++;
	sim->ops->insert(sim->pol, f, a);
	group_start(sim, f, true);
	if (check_now(sim))
		return sim->broken;
	return HS_STEP_OTHER;
}

/*
 * Model readahead.  A recorded stream carries the kernel's readahead as
 * READAHEAD records where the kernel read ahead, i.e. around the kernel's
 * misses.  A model that misses where the kernel hit gets no window, so each
 * neighbour it lacks becomes a demand miss of its own, where the kernel
 * would have read it ahead with the first: the same loads, labelled
 * otherwise.  With cfg.ra_model (ra_pages, the window's most pages) the
 * driver reads ahead on the model's own read(2) accesses of file pages as
 * 6.12's mm/readahead.c does, with the model's memory as the page cache:
 *
 *   a miss at index i (page_cache_sync_ra()): contig = the resident pages
 *     just before i, up to ra_pages (page_cache_prev_miss()); contig <= 1,
 *     the request, is a "standalone, small random read": nothing more.
 *     Otherwise the window is min(contig + 1, ra_pages) pages from i, and
 *     its last page gets PG_readahead (async_size 1);
 *   a hit on a page with PG_readahead (page_cache_async_ra(), the branch
 *     for a marked folio "without valid readahead state"): the mark goes;
 *     start = the first page after i that is not resident, within ra_pages
 *     (page_cache_next_miss()), or nothing; the window is
 *     get_next_ra_size(start - i + 1) pages from start, all of them async,
 *     so start gets the mark.
 *
 * Pages of a window that are resident stay as they are; the others come in
 * as READAHEAD records would, right after the access.  Not modelled: the
 * struct file's history (a miss at 0 or right after the previous read
 * starts an initial window; a mark hit at the expected place moves the
 * window on), pages the stream never names (no key: the kernel would hold
 * them too), and large folios.  Only keys with a file address (cfg.neigh)
 * read ahead.  The recorded READAHEAD records stay: where the kernel read
 * the same window they find it resident.
 */

/* The key of page @page of @space at or after order[] index @i, or HS_NIL. */
static uint32_t ra_key_at(const struct hs_neigh *nb, uint32_t *i, uint32_t space, uint64_t page)
{
	uint32_t k;

	for (; *i < nb->nr_addr; (*i)++) {
		k = nb->order[*i];
		if (nb->space[k] != space || nb->page[k] > page)
			return HS_NIL;
		if (nb->page[k] == page)
			return k;
	}
	return HS_NIL;
}

/* get_next_ra_size() */
static uint64_t ra_next_size(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/*
 * Read pages [@from, @to) of @space ahead, from order[] index @i on, and
 * mark page @mark; the access's seq is the reader's.
 */
static int ra_window(struct hs_sim *sim, uint32_t i, uint32_t space, uint64_t from,
		     uint64_t to, uint64_t mark)
{
	const struct hs_neigh *nb = sim->cfg.neigh;
	struct hs_access ra = { .channel = HS_CH_READAHEAD, .type = HS_TYPE_FILE,
				.seq = sim->seq };
	uint32_t k;
	int ret;

	if (unlikely(sim->fo))
		sim->fo->cur = HS_NIL;	/* the model's window is no kernel folio */
	for (; from < to; from++) {
		k = ra_key_at(nb, &i, space, from);
		if (k == HS_NIL)
			continue;
		ra.key = k;
		ret = do_readahead(sim, folio_at(sim, k), &ra);
		if (ret < 0)
			return ret;
		if (from == mark && hs_folio_is_resident(folio_at(sim, k)))
			folio_at(sim, k)->flags |= HS_FOLIO_RA_MARK;
	}
	return 0;
}

/* page_cache_sync_ra() on the model's miss of @key */
static int ra_sync(struct hs_sim *sim, uint32_t key)
{
	const struct hs_neigh *nb = sim->cfg.neigh;
	uint32_t max = sim->cfg.ra_model, contig = 0, p = nb->pos[key], i, k;
	uint64_t page, size;

	if (p == HS_NEIGH_NOPOS)
		return 0;
	page = nb->page[key];
	for (i = p; i-- > 0 && contig < max;) {
		k = nb->order[i];
		if (nb->space[k] != nb->space[key] || nb->page[k] != page - 1 - contig ||
		    !page_resident(sim, k))
			break;
		contig++;
	}
	if (contig <= 1)
		return 0;
	size = HS_MIN((uint64_t)contig + 1, max);
	return ra_window(sim, p + 1, nb->space[key], page + 1, page + size, page + size - 1);
}

/* page_cache_async_ra() on the model's hit of @key, which had PG_readahead */
static int ra_async(struct hs_sim *sim, uint32_t key)
{
	const struct hs_neigh *nb = sim->cfg.neigh;
	uint32_t max = sim->cfg.ra_model, p = nb->pos[key], i, k;
	uint64_t page = nb->page[key], start = page + 1, size;

	folio_at(sim, key)->flags &= (uint8_t)~HS_FOLIO_RA_MARK;
	for (i = p + 1; start - page <= max; start++) {
		k = ra_key_at(nb, &i, nb->space[key], start);
		if (k == HS_NIL || !page_resident(sim, k))
			break;
	}
	if (start - page > max)
		return 0;
	size = ra_next_size(start - page + 1, max);
	return ra_window(sim, p + 1, nb->space[key], start, start + size, start);
}

/* The pageout mode's word on a PAGEOUT eviction the policy agreed to. */
static enum hs_hint_verdict pageout_filter(const struct hs_sim *sim, const struct hs_folio *f)
{
	switch (sim->cfg.pageout) {
	case HS_PAGEOUT_IGNORE:
		return HS_HINT_KEEP;
	case HS_PAGEOUT_RECHECK:
		/* evicted_at is the last access (< seq): kept if within the window */
		return folio_age(sim, f) <= sim->cfg.recheck_window ? HS_HINT_KEEP :
									     HS_HINT_EVICT;
	default:
		return HS_HINT_EVICT;
	}
}

static int do_hint(struct hs_sim *sim, struct hs_folio *f, const struct hs_access *a)
{
	enum hs_hint_verdict v;

	sim->st.hints++;
	if (!hs_folio_is_resident(f))
		return HS_STEP_OTHER;
	tlb_drop(sim, f);	/* madvise flushes the PTEs it clears */
	if (sim->ops->hint)
		v = sim->ops->hint(sim->pol, f, a);
	else
		v = a->channel == HS_CH_PAGEOUT ? HS_HINT_EVICT : HS_HINT_KEEP;
	if (check_now(sim))
		return sim->broken;
	if (v == HS_HINT_EVICT && a->channel == HS_CH_PAGEOUT && sim->driver_pageout)
		v = pageout_filter(sim, f);
	if (v == HS_HINT_EVICT) {
		int err;

		sim->ops->remove(sim->pol, f, HS_REMOVE_HINT);
		err = evict_one(sim, f, true);
		if (err)
			return err;
		if (check_now(sim))
			return sim->broken;
	}
	return HS_STEP_OTHER;
}

/* The head @id was dropped: the kernel truncated the whole folio. */
static void group_drop(struct hs_sim *sim, uint32_t id)
{
	struct folio_groups *fo = sim->fo;
	uint32_t m;

	for (m = group_end(fo, id); m != HS_NIL;) {
		struct hs_folio *mf = folio_at(sim, m);

		m = member_leave(fo, m);
		/* not resident for the policy: only what it remembers of the key goes */
		sim->ops->remove(sim->pol, mf, HS_REMOVE_DROP);
		readahead_leave(sim, mf);
		sim->st.drops++;
		sim->used--;
		mf->flags &= (uint8_t)~(HS_FOLIO_SHADOW | HS_FOLIO_HINTED | HS_FOLIO_RA_MARK);
	}
}

static int do_drop(struct hs_sim *sim, struct hs_folio *f)
{
	sim->ops->remove(sim->pol, f, HS_REMOVE_DROP);
	tlb_drop(sim, f);
	if (hs_folio_is_resident(f)) {
		readahead_leave(sim, f);
		sim->st.drops++;
		sim->used--;
		/* The kernel chose this removal: a pending protection is neither. */
		if (f->prot_pending) {
			f->prot_pending = 0;
			prot_flush(sim);
			sim->prot_resident--;
		}
	}
	/* Truncation deletes the shadow entries of the mapping too. */
	f->flags &= (uint8_t)~(HS_FOLIO_RESIDENT | HS_FOLIO_SHADOW | HS_FOLIO_HINTED |
			       HS_FOLIO_RA_MARK);
	if (unlikely(sim->fo) && sim->fo->tag[folio_id(sim, f)] != HS_NIL)
		group_drop(sim, folio_id(sim, f));
	if (check_now(sim))
		return sim->broken;
	return HS_STEP_OTHER;
}

/* A hit on a readahead page not accessed since, or on a key never seen. */
static void first_hit(struct hs_sim *sim, struct hs_folio *f)
{
	if (f->flags & HS_FOLIO_READAHEAD) {
		f->flags &= (uint8_t)~HS_FOLIO_READAHEAD;
		sim->ra_resident--;
	}
	if (!(f->flags & HS_FOLIO_SEEN)) {
		f->flags |= HS_FOLIO_SEEN;	/* a readahead page's first access */
		sim->seen_on_hit++;
	}
}

/*
 * The four byte fields of struct hs_access that a meta byte gives (channel,
 * type, write, norecency, in that order), for every meta byte: one load and
 * one store per step instead of a dozen instructions of bit tests.
 */
#define META_FIELDS(m)	{ (m) & HS_META_CHANNEL_MASK,					\
			  ((m) & HS_META_ANON) ? HS_TYPE_ANON : HS_TYPE_FILE,		\
			  !!((m) & HS_META_WRITE),					\
			  ((m) & HS_META_NORECENCY) && ((m) & HS_META_CHANNEL_MASK) == HS_CH_PT }
#define META_FIELDS4(m)		META_FIELDS(m), META_FIELDS((m) + 1), META_FIELDS((m) + 2), \
				META_FIELDS((m) + 3)
#define META_FIELDS16(m)	META_FIELDS4(m), META_FIELDS4((m) + 4), META_FIELDS4((m) + 8), \
				META_FIELDS4((m) + 12)
#define META_FIELDS64(m)	META_FIELDS16(m), META_FIELDS16((m) + 16), \
				META_FIELDS16((m) + 32), META_FIELDS16((m) + 48)

static const uint8_t meta_fields[256][4] = {
	META_FIELDS64(0), META_FIELDS64(64), META_FIELDS64(128), META_FIELDS64(192)
};

_Static_assert(offsetof(struct hs_access, type) == offsetof(struct hs_access, channel) + 1 &&
	       offsetof(struct hs_access, write) == offsetof(struct hs_access, channel) + 2 &&
	       offsetof(struct hs_access, norecency) == offsetof(struct hs_access, channel) + 3,
	       "meta_fields[] fills channel, type, write and norecency with one copy");

/*
 * One record; hs_sim_step() and hs_sim_run() share it, inlined, so the loop of
 * hs_sim_run() pays no call per record.  The hit path is the hot one: it
 * writes the record only when something changed (the anonymous bit, the
 * readahead and seen marks) or the recheck pageout mode needs the time of the
 * last access, so a hit that changes nothing leaves the line clean.  Nor does
 * it count accesses: they are hits + misses, and every sample of
 * prot_flush() and the end of the run adds them up.
 *
 * The caller has checked that the run is not broken: a step that returns
 * zero or more leaves it unbroken (every hook is followed by check_now()), so
 * hs_sim_run() checks once per call, not per record.
 */
static inline __attribute__((always_inline)) int step(struct hs_sim *sim, uint32_t key,
						       uint8_t meta, uint64_t next_use)
{
	enum hs_channel ch = hs_meta_channel(meta);
	struct hs_access a;
	struct hs_folio *f;
	uint8_t anon;
	int ret;

	if (unlikely(key >= sim->cfg.nr_keys || ch >= HS_CH_NR))
		return -EINVAL;
	sim->nr_last = 0;
	sim->st.records++;
	f = folio_at(sim, key);
	a.seq = sim->seq;
	a.next_use = next_use;
	a.key = key;
	memcpy(&a.channel, meta_fields[meta], 4);	/* channel, type, write, norecency */
	a.deactivate = false;
	a.tlb_hit = false;

	if (unlikely(!hs_channel_is_access(ch))) {
		if (ch == HS_CH_DROP)
			ret = do_drop(sim, f);
		else if (ch == HS_CH_READAHEAD)
			ret = sim->cfg.no_readahead ? HS_STEP_OTHER : do_readahead(sim, f, &a);
		else
			ret = do_hint(sim, f, &a);
		if (ret < 0)
			sim->broken = ret;
		return ret;
	}

	if (sim->cfg.override_channel)
		a.channel = sim->cfg.channel;
	anon = (meta & HS_META_ANON) ? HS_FOLIO_ANON : 0;
	if ((f->flags & HS_FOLIO_ANON) != anon)
		f->flags ^= HS_FOLIO_ANON;
	if (hs_folio_is_resident(f)) {
		sim->st.hits++;
		if (sim->last_access)
			folio_stamp(sim, f);	/* while resident: the last access */
		if (unlikely((f->flags & (HS_FOLIO_READAHEAD | HS_FOLIO_SEEN)) != HS_FOLIO_SEEN))
			first_hit(sim, f);
		if (f->prot_pending)
			resolve_protection(sim, f, true);
		if (unlikely(sim->tlb) && a.channel == HS_CH_PT) {
			a.tlb_hit = tlb_test_set(sim, key);
			sim->tlb_hits += a.tlb_hit;
		}
		sim->ops->hit(sim->pol, f, &a);
		ret = check_now(sim) ? sim->broken : HS_STEP_HIT;
		if (unlikely(f->flags & HS_FOLIO_RA_MARK) && ret >= 0 && a.channel == HS_CH_FD) {
			int err = ra_async(sim, key);

			if (err < 0)
				ret = err;
		}
	} else {
		ret = do_miss(sim, f, &a);
		if (unlikely(sim->tlb) && a.channel == HS_CH_PT && ret == HS_STEP_MISS &&
		    hs_folio_is_resident(f))
			tlb_test_set(sim, key);		/* the fault's walk filled it */
		if (unlikely(sim->cfg.ra_model) && ret == HS_STEP_MISS &&
		    a.type == HS_TYPE_FILE && a.channel == HS_CH_FD) {
			int err = ra_sync(sim, key);

			if (err < 0)
				ret = err;
		}
	}
	sim->seq++;
	if (unlikely(ret < 0))
		sim->broken = ret;
	return ret;
}

/*
 * step() of a record that is a plain hit, for hs_sim_run() in a run whose
 * hits need nothing of the driver but the count (sim->plain_hits: no channel
 * override, no recheck time, no TLB model, no paranoid check, no victims
 * kept): an access to a resident key whose record is seen, neither read ahead
 * nor marked for readahead, with no protection pending and the anonymous bit
 * already right.  Every other record, and every miss, goes to step().  The
 * same counts and the same hit() call as step(), with a third of its tests:
 * the floor of a replay is mostly such hits.
 */
#define PLAIN_HIT_FLAGS	(HS_FOLIO_RESIDENT | HS_FOLIO_SEEN | HS_FOLIO_ANON | \
			 HS_FOLIO_READAHEAD | HS_FOLIO_RA_MARK)

static inline __attribute__((always_inline)) int step_hit(struct hs_sim *sim, uint32_t key,
							   uint8_t meta, uint64_t next_use)
{
	struct hs_access a;
	struct hs_folio *f;
	uint8_t want;

	if (unlikely(key >= sim->cfg.nr_keys || !hs_channel_is_access(hs_meta_channel(meta))))
		return step(sim, key, meta, next_use);
	f = folio_at(sim, key);
	want = HS_FOLIO_RESIDENT | HS_FOLIO_SEEN | ((meta & HS_META_ANON) ? HS_FOLIO_ANON : 0);
	if ((f->flags & PLAIN_HIT_FLAGS) != want || f->prot_pending)
		return step(sim, key, meta, next_use);
	sim->st.records++;
	sim->st.hits++;
	a.seq = sim->seq;
	a.next_use = next_use;
	a.key = key;
	memcpy(&a.channel, meta_fields[meta], 4);	/* channel, type, write, norecency */
	a.deactivate = false;
	a.tlb_hit = false;
	sim->ops->hit(sim->pol, f, &a);
	sim->seq++;
	return unlikely(sim->broken) ? sim->broken : HS_STEP_HIT;
}

int hs_sim_step(struct hs_sim *sim, uint32_t key, uint8_t meta, uint64_t next_use)
{
	int ret;

	if (unlikely(sim->broken))
		return sim->broken;
	if (unlikely(sim->fo))
		return hs_sim_step_folio(sim, key, meta, next_use, HS_NIL);
	ret = step(sim, key, meta, next_use);

	if (unlikely(sim->seq >= sim->next_sweep))
		sweep_times(sim);
	return ret;
}

/* An access to @key, a resident member of head @h's folio: a hit on the folio. */
static int member_hit(struct hs_sim *sim, uint32_t key, uint32_t h, uint8_t meta,
		      uint64_t next_use)
{
	struct hs_folio *f = folio_at(sim, key), *hf = folio_at(sim, h);
	uint8_t anon = (meta & HS_META_ANON) ? HS_FOLIO_ANON : 0;
	struct hs_access a;
	int ret;

	a.seq = sim->seq;
	a.next_use = next_use;
	a.key = h;
	memcpy(&a.channel, meta_fields[meta], 4);
	a.deactivate = false;
	if (sim->cfg.override_channel)
		a.channel = sim->cfg.channel;
	if ((f->flags & HS_FOLIO_ANON) != anon)
		f->flags ^= HS_FOLIO_ANON;
	sim->st.hits++;
	if (sim->last_access) {
		folio_stamp(sim, f);
		folio_stamp(sim, hf);	/* a hint acts on the head */
	}
	if ((f->flags & (HS_FOLIO_READAHEAD | HS_FOLIO_SEEN)) != HS_FOLIO_SEEN)
		first_hit(sim, f);
	if (hf->prot_pending)
		resolve_protection(sim, hf, true);
	if (a.channel == HS_CH_FD) {
		bool same_read = sim->seq && sim->fo->last_fd[h] == (uint32_t)(sim->seq - 1);

		sim->fo->last_fd[h] = (uint32_t)sim->seq;
		if (same_read) {
			sim->seq++;
			return HS_STEP_HIT;	/* the read already marked its folio */
		}
	}
	sim->ops->hit(sim->pol, hf, &a);
	ret = check_now(sim) ? sim->broken : HS_STEP_HIT;
	sim->seq++;
	return ret;
}

/* step() in folio mode: members are the driver's, the rest goes to step(). */
static int step_folio(struct hs_sim *sim, uint32_t key, uint8_t meta, uint64_t next_use,
		      uint32_t folio)
{
	struct folio_groups *fo = sim->fo;
	enum hs_channel ch = hs_meta_channel(meta);
	uint32_t h;
	int ret;

	if (unlikely(key >= sim->cfg.nr_keys || ch >= HS_CH_NR ||
		     (folio != HS_NIL && folio >= sim->cfg.nr_folios)))
		return -EINVAL;
	fo->cur = folio;
	h = fo->head[key];
	if (h == HS_NIL && fo->tag[key] != HS_NIL && hs_channel_is_access(ch) &&
	    hs_folio_is_resident(folio_at(sim, key)))
		h = key;				/* the head of a folio: its access, below */
	if (h == HS_NIL)
		return step(sim, key, meta, next_use);
	if (!hs_channel_is_access(ch) && ch != HS_CH_READAHEAD)
		return step(sim, h, meta, next_use);	/* a hint or drop: the whole folio */
	/* an access to a page of a resident folio (its head or a member) */
	sim->nr_last = 0;
	sim->st.records++;
	if (ch == HS_CH_READAHEAD)
		return HS_STEP_OTHER;			/* resident already */
	ret = member_hit(sim, key, h, meta, next_use);
	if (unlikely(ret < 0))
		sim->broken = ret;
	return ret;
}

int hs_sim_step_folio(struct hs_sim *sim, uint32_t key, uint8_t meta, uint64_t next_use,
		      uint32_t folio)
{
	int ret;

	if (unlikely(sim->broken))
		return sim->broken;
	if (!sim->fo)
		return hs_sim_step(sim, key, meta, next_use);	/* no folio mode: pages */
	ret = step_folio(sim, key, meta, next_use, folio);
	if (unlikely(sim->seq >= sim->next_sweep))
		sweep_times(sim);
	return ret;
}

/* Folio mode's loop (@folio NULL: every record's page is on its own), without prefetching. */
static int run_folios(struct hs_sim *sim, const uint32_t *keys, const uint8_t *meta,
		      const uint64_t *next, const uint32_t *folio, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ret = step_folio(sim, keys[i], meta[i], next ? next[i] : HS_NEVER,
				     folio ? folio[i] : HS_NIL);

		if (unlikely(ret < 0))
			return ret;
		if (unlikely(sim->seq >= sim->next_sweep))
			sweep_times(sim);
	}
	return 0;
}

int hs_sim_run_folios(struct hs_sim *sim, const uint32_t *keys, const uint8_t *meta,
		      const uint64_t *next, const uint32_t *folio, size_t n)
{
	if (unlikely(sim->broken))
		return sim->broken;
	if (!sim->fo)
		return hs_sim_run(sim, keys, meta, next, n);	/* no folio mode: pages */
	return run_folios(sim, keys, meta, next, folio, n);
}

uint64_t hs_sim_folio_members(const struct hs_sim *sim)
{
	return sim->fo ? sim->fo->members : 0;
}

/* folio_deactivate() of resident @f (key @id) through the hint hook: 0, or the run broke. */
static int deactivate_one(struct hs_sim *sim, struct hs_folio *f, uint32_t id,
			  struct hs_access *a)
{
	a->key = id;
	a->type = (f->flags & HS_FOLIO_ANON) ? HS_TYPE_ANON : HS_TYPE_FILE;
	if (sim->ops->hint(sim->pol, f, a) != HS_HINT_KEEP) {
		sim->broken = -EPROTO;	/* a deactivation never evicts */
		return sim->broken;
	}
	return check_now(sim);
}

/*
 * hs_sim_deactivate() - the kernel's own folio_deactivate() of resident keys
 *
 * DAMON_LRU_SORT's cold action (mm/damon/paddr.c: every LRU folio of a
 * region found idle for cold_min_age goes through folio_deactivate()) is not
 * in the stream: it is the kernel acting on pages by physical address, blind
 * to which process or file they hold.  The model (hsctl-replay(1),
 * --damon-deprio) gives every resident key the same chance per interval.
 * Keys are drawn @n times with replacement from the whole key space by a
 * xorshift generator seeded from @seed, so a run is reproducible and the
 * chance of a resident key is about n / nr_keys; a draw that falls on a key
 * not in memory does nothing, as DAMON's does on a free page, and so does
 * one that falls on a key accessed in the last @idle intervals: DAMON acts
 * on regions idle for cold_min_age, and a page read within it keeps its
 * region young with some chance, here with certainty (so the model sees
 * idleness per page, which DAMON's sampling of one page per region does
 * not).  The policy sees it as a COLD hint with a->deactivate set; a policy
 * without ->hint() keeps its order (the driver's COLD default).  Not counted
 * as a hint.
 */
int hs_sim_deactivate(struct hs_sim *sim, uint64_t n, uint64_t seed, uint32_t idle)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	struct hs_access a = { .channel = HS_CH_COLD, .deactivate = true,
			       .next_use = HS_NEVER };
	uint64_t min_age;

	if (unlikely(sim->broken))
		return sim->broken;
	if (!sim->cfg.damon)
		return -EINVAL;
	if (sim->dm_len != idle + 1) {
		uint64_t *r = realloc(sim->dm_seq, (idle + 1) * sizeof(*r));

		if (!r)
			return -ENOMEM;
		sim->dm_seq = r;
		sim->dm_len = idle + 1;
		sim->dm_ticks = 0;
	}
	sim->dm_seq[sim->dm_ticks++ % sim->dm_len] = sim->seq;
	if (sim->dm_ticks <= idle || !sim->ops->hint || !sim->cfg.nr_keys)
		return 0;	/* nothing has been idle that long yet */
	/*
	 * Idle: last accessed before the end of the interval @idle intervals
	 * ago, whose seq S the ring holds; last < S is age > seq - S.
	 */
	min_age = sim->seq - sim->dm_seq[(sim->dm_ticks - 1 - idle) % sim->dm_len];
	a.seq = sim->seq;
	while (n--) {
		struct hs_folio *f;
		uint32_t key;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		key = (uint32_t)(((x >> 32) * sim->cfg.nr_keys) >> 32);
		f = folio_at(sim, key);
		if (!hs_folio_is_resident(f) || folio_age(sim, f) <= min_age)
			continue;
		if (deactivate_one(sim, f, key, &a))
			return sim->broken;
	}
	return 0;
}

/*
 * hs_sim_deactivate_keys() - folio_deactivate() of the given keys, as
 * hs_sim_deactivate() does it to the keys it draws: the region model of
 * DAMON_LRU_SORT (lib/damon.h) chose them, every page of a region it found
 * cold; one not in memory is left alone.
 */
int hs_sim_deactivate_keys(struct hs_sim *sim, const uint32_t *keys, size_t n)
{
	struct hs_access a = { .channel = HS_CH_COLD, .deactivate = true,
			       .next_use = HS_NEVER, .seq = sim->seq };
	uint32_t prev = HS_NIL;

	if (unlikely(sim->broken))
		return sim->broken;
	if (!sim->cfg.damon)
		return -EINVAL;
	if (!sim->ops->hint)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = keys[i];
		struct hs_folio *f;

		if (id >= sim->cfg.nr_keys)
			continue;
		if (sim->fo && sim->fo->head[id] != HS_NIL)
			id = sim->fo->head[id];		/* a member: its folio, once */
		if (id == prev)
			continue;
		prev = id;
		f = folio_at(sim, id);
		if (!hs_folio_is_resident(f))
			continue;
		if (deactivate_one(sim, f, id, &a))
			return sim->broken;
	}
	return 0;
}

/* The TLB model's full flush ("TLB model" above): every translation goes. */
int hs_sim_tlb_flush(struct hs_sim *sim)
{
	if (unlikely(sim->broken))
		return sim->broken;
	if (!sim->tlb)
		return 0;		/* no model: no translation to lose */
	if (sim->tlb_dirty) {
		/* the slots die with their keys' bits: tlb_fill() checks both */
		memset(sim->tlb, 0, tlb_words(sim->cfg.nr_keys) * sizeof(*sim->tlb));
		sim->tlb_dirty = false;
		sim->tlb_flushes++;
	}
	return 0;
}

/* The recording's memory cgroup statistics flush: the policy's snapshot. */
int hs_sim_memcg_flush(struct hs_sim *sim)
{
	if (unlikely(sim->broken))
		return sim->broken;
	if (sim->ops->stats_flush)
		sim->ops->stats_flush(sim->pol);
	sim->memcg_flushes++;
	return 0;
}

/* Fetch key's record into the cache, both lines when it straddles two. */
static inline void prefetch_folio(const struct hs_sim *sim, uint32_t key)
{
	const char *p;

	if (unlikely(key >= sim->cfg.nr_keys))
		return;		/* step() will refuse it */
	p = sim->folios + (size_t)key * sim->env.stride;
	hs_prefetch(p);
	if (sim->pf_split)
		hs_prefetch(p + sim->env.stride - 1);
}

/*
 * hs_sim_run() - step n records, fetching the records of future keys ahead
 *
 * The replay is bound by memory latency: every record is one random key,
 * whose record (and, in most policies, its list neighbours) is a cache miss
 * at a few hundred thousand keys.  The stream is known, so the loop asks for
 * the record of the key PF_FOLIO records ahead, and lets the policy
 * (ops->prefetch) ask for what its hooks will touch for the key PF_POLICY
 * records ahead, by which time that key's own record has arrived and can be
 * read without a stall (only when the records outgrow L2: l2_bytes()).
 * Where a run's hits need nothing of the driver but the count, they take
 * step_hit(), the rest step(); where, besides, the policy described its hooks
 * (hs_sim_inline_hooks()), run_inline() does those hits, and the misses that
 * need nothing else, itself (run_list16() for lru, fifo and clock, the
 * commonest misses in its own loop).  Prefetches only read: the steps, and so every
 * counter, are the same as hs_sim_step()'s one by one (tests/t-prefetch.c
 * compares them), and cfg.no_prefetch turns them off.  The first records of
 * each call are fetched before the loop; the distances are in records, not
 * bytes, and were measured once the fetches were really issued (hs_prefetch()):
 * on issue 13's zipf sessions, 7 interleaved rounds, 24 and 8 against 16 and
 * 6 took the floor at 3.7 M keys from 26.0 to 18.0 ns per access, arc at
 * 368,000 of them 53.0 -> 47.0, clock at 76,300 of 763 K 41.1 -> 38.5, lru
 * at 368,000 46.4 -> 43.4; 32 and 12 were within the noise of 24 and 8.
 */
#define PF_FOLIO	24
#define PF_POLICY	8

/*
 * The prefetching loops of hs_sim_run(), with step_hit() for the records
 * when @plain (a constant at both calls: two copies, no test per record).
 */
static inline __attribute__((always_inline)) int run_prefetch(struct hs_sim *sim,
							       const uint32_t *keys,
							       const uint8_t *meta,
							       const uint64_t *next, size_t n,
							       bool plain)
{
	void (*pf)(struct hs_policy *p, const struct hs_folio *f, uint32_t key) = sim->pf;
	size_t i;
	int ret;

#define RUN_STEP(i)	(plain ? step_hit(sim, keys[i], meta[i], next ? next[i] : HS_NEVER) : \
			 step(sim, keys[i], meta[i], next ? next[i] : HS_NEVER))
	for (i = 0; i < n && i < PF_FOLIO; i++)
		prefetch_folio(sim, keys[i]);
	/* The bulk, with no test of the distance ahead and, without ops->prefetch, of pf. */
	i = 0;
	if (pf) {
		for (; i + PF_FOLIO < n; i++) {
			uint32_t k = keys[i + PF_POLICY];

			prefetch_folio(sim, keys[i + PF_FOLIO]);
			if (likely(k < sim->cfg.nr_keys))
				pf(sim->pol, folio_at(sim, k), k);
			ret = RUN_STEP(i);
			if (unlikely(ret < 0))
				return ret;
		}
	} else {
		for (; i + PF_FOLIO < n; i++) {
			prefetch_folio(sim, keys[i + PF_FOLIO]);
			ret = RUN_STEP(i);
			if (unlikely(ret < 0))
				return ret;
		}
	}
	/* The last PF_FOLIO records (or fewer): their records are on their way. */
	for (; i < n; i++) {
		if (pf && i + PF_POLICY < n && keys[i + PF_POLICY] < sim->cfg.nr_keys)
			pf(sim->pol, folio_at(sim, keys[i + PF_POLICY]), keys[i + PF_POLICY]);
		ret = RUN_STEP(i);
		if (unlikely(ret < 0))
			return ret;
	}
#undef RUN_STEP
	return 0;
}

/* step() out of line, for the records run_inline() does not take. */
static __attribute__((noinline)) int step_slow(struct hs_sim *sim, uint32_t key, uint8_t meta,
					       uint64_t next_use)
{
	return step(sim, key, meta, next_use);
}

/* The struct hs_access that step() would give the hooks for this access. */
static inline void access_of(const struct hs_sim *sim, struct hs_access *a, uint32_t key,
			     uint8_t meta, uint64_t next_use)
{
	a->seq = sim->seq;
	a->next_use = next_use;
	a->key = key;
	memcpy(&a->channel, meta_fields[meta], 4);
	a->deactivate = false;
	a->tlb_hit = false;
}

/*
 * The queue mirror.  A list whose hits leave it in place (fifo's, clock's
 * ring) is a queue: keys enter at the tail, in order, and leave at the head,
 * in the same order, so the keys the next evictions will look at are known
 * long before, where the list itself names only the next one.  Walking the
 * list ahead of the hand (hs_q_pop_head(), clock's hand_ahead()) fetches one
 * record per eviction, each only once the last has arrived, and evictions
 * come faster than memory answers: at 76,300 of 763 K keys most of a fifo or
 * clock eviction was spent waiting on that walk.  So miss_inline() copies
 * every push at the tail into a ring and fetches the record of the key
 * QM_AHEAD places behind the head as the head leaves.  The ring is a guess:
 * it decides nothing, and a pop that does not take the ring's oldest key (a
 * hint, a drop or a hook on another path changed the list) turns it off,
 * until the list has turned over once (capacity pops) and the ring is copied
 * from it again.  Only for records beyond L2, like the policy's prefetch hook:
 * below, the victim waits less and the ring's instructions cost as much as
 * they save (issue 13's fifo at 8,100 of 81 K keys: 8 % more instructions,
 * CPU time within the noise).
 */
#define QM_AHEAD	8

/* @id went to the tail */
static inline void qm_push(struct hs_sim *sim, uint32_t id)
{
	if (sim->qm_ok)
		sim->qm[sim->qm_tail++ & sim->qm_mask] = id;
}

static void __attribute__((noinline)) qm_rebuild(struct hs_sim *sim, const struct hs_qctx *q,
						  const struct hs_qlist *l)
{
	uint64_t n = 0;

	if (l->nr > (uint64_t)sim->qm_mask + 1)
		return;
	for (uint32_t id = l->head; id != HS_NIL && n < l->nr; id = hs_q_next(q, id))
		sim->qm[n++] = id;
	sim->qm_head = 0;
	sim->qm_tail = (uint32_t)n;	/* 2^32 is 0: the positions are modulo 2^32 */
	sim->qm_ok = n == l->nr;
}

/*
 * @id left the head of the list (a victim, or a key the hand passed): fetch
 * the record of the key QM_AHEAD behind the new head.  Return whether the
 * ring saw it coming (when not, the caller walks the list instead).
 */
static inline bool qm_pop(struct hs_sim *sim, uint32_t id, const struct hs_qctx *q,
			  const struct hs_qlist *l, size_t stride)
{
	if (unlikely(!sim->qm_ok)) {
		if (sim->qm && --sim->qm_wait == 0)
			qm_rebuild(sim, q, l);
		return false;
	}
	if (unlikely(sim->qm[sim->qm_head & sim->qm_mask] != id)) {
		sim->qm_ok = false;
		sim->qm_wait = sim->cfg.capacity;
		return false;
	}
	sim->qm_head++;
	/* a place not yet pushed holds a stale key, or 0: a wasted fetch */
	hs_prefetch((const void *)((uintptr_t)sim->folios +
				   (uintptr_t)sim->qm[(sim->qm_head + QM_AHEAD) & sim->qm_mask] *
				   stride));
	return true;
}

/*
 * HS_INLINE_EVICT_SECOND_CHANCE: CLOCK's evict() of one victim (policies/
 * clock.c), which is unlinked and returned, or HS_NIL with nothing resident.
 * As the hand passes a key, the next one is the head, whose link the unlink
 * wrote: the one after it, which the hand reads next, is fetched.
 */
static inline void hand_ahead(const struct hs_qctx *q, const struct hs_qlist *l)
{
	uint32_t after;

	if (l->head == HS_NIL)
		return;
	after = hs_q_next(q, l->head);
	if (after != HS_NIL)
		hs_prefetch(hs_q_link(q, after));
}

static inline __attribute__((always_inline)) uint32_t second_chance(struct hs_sim *sim,
								      const struct hs_inline_hooks *inl,
								      const struct hs_qctx *q,
								      size_t stride, bool qm)
{
	struct hs_qlist *l = inl->list;
	uint64_t *bits = inl->bits;

	while (!hs_q_empty(l)) {
		uint32_t id = l->head;
		uint64_t *w = &bits[id / 64], m = (uint64_t)1 << (id % 64);

		(*inl->scanned)++;
		if (*w & m) {
			*w &= ~m;
			hs_q_move_tail(q, l, id);
			if (!qm || !qm_pop(sim, id, q, l, stride))
				hand_ahead(q, l);
			if (qm)
				qm_push(sim, id);
			protect_inline(sim, (struct hs_folio *)(void *)(q->base + (size_t)id * stride),
				       HS_PROT_SECOND_CHANCE);
			continue;
		}
		hs_q_del(q, l, id);
		if (!qm || !qm_pop(sim, id, q, l, stride))
			hand_ahead(q, l);
		return id;
	}
	return HS_NIL;
}

/*
 * step() of an access to key @key, in range and not resident, in a run with
 * sim->inline_miss: do_miss() with the policy's insert() and, when one
 * victim makes the room, evict() in line (struct hs_inline_hooks), without
 * what such a run never has (admission, refault hook, folio groups, TLB and
 * readahead models, eviction callback, victims kept, paranoid checks).  The
 * same counts, in the same order, as step(); make_room() for anything else.
 * Only a hook can break the run: the checks follow the hooks called.  With
 * @rec16, the layout of run_inline()'s (sim->inline16), the addresses of
 * records and links are constant offsets from the array.
 */
static inline __attribute__((always_inline)) int miss_inline(struct hs_sim *sim, uint32_t key,
							      uint8_t meta, uint64_t next_use,
							      bool rec16, bool qm)
{
	const struct hs_inline_hooks *inl = &sim->inl;
	size_t stride = rec16 ? 16 : sim->env.stride;
	struct hs_qctx q16 = { sim->folios, 16, sizeof(struct hs_folio) };
	const struct hs_qctx *q = rec16 ? &q16 : inl->q;
	struct hs_folio *f = (struct hs_folio *)(void *)(sim->folios + (size_t)key * stride);
	struct hs_access a;
	int err;

	sim->st.records++;
	if ((f->flags & HS_FOLIO_ANON) != (meta & HS_META_ANON))
		f->flags ^= HS_FOLIO_ANON;
	count_miss(sim, f);
	if (f->flags & HS_FOLIO_SHADOW)
		count_refault(sim, f, folio_age(sim, f));
	if (sim->used + 1 > sim->cfg.capacity) {
		uint32_t id;
		struct hs_folio *v;

		if (unlikely(inl->evict == HS_INLINE_EVICT_CALL ||
			     sim->used != sim->cfg.capacity)) {
			access_of(sim, &a, key, meta, next_use);
			err = make_room(sim, f, &a);
			if (unlikely(err))
				goto broken;
		} else {
			/* make_room() of one victim: evict_page_inline() */
			if (inl->evict == HS_INLINE_EVICT_SECOND_CHANCE) {
				id = second_chance(sim, inl, q, stride, qm);
			} else if (!qm) {
				id = hs_q_pop_head(q, inl->list);
			} else if ((id = inl->list->head) != HS_NIL) {
				/* hs_q_pop_head(), the ring fetching ahead */
				hs_q_del(q, inl->list, id);
				if (!qm_pop(sim, id, q, inl->list, stride))
					hand_ahead(q, inl->list);
			}
			if (unlikely(id >= sim->cfg.nr_keys))	/* HS_NIL too */
				goto contract;
			v = (struct hs_folio *)(void *)(sim->folios + (size_t)id * stride);
			if (unlikely(!hs_folio_is_resident(v)))	/* nor is it f, not resident */
				goto contract;
			page_out(sim, v, false);
			if (unlikely(sim->broken)) {		/* hs_sim_protect() refused */
				err = sim->broken;
				goto broken;
			}
		}
	}
	make_resident(sim, f);
	if (inl->insert == HS_INLINE_INSERT_PUSH_TAIL) {
		if (inl->bits)
			inl->bits[key / 64] &= ~((uint64_t)1 << (key % 64));
		hs_q_push_tail(q, inl->list, key);
		if (qm)
			qm_push(sim, key);
	} else {
		access_of(sim, &a, key, meta, next_use);
		sim->ops->insert(sim->pol, f, &a);
		err = check_now(sim);
		if (unlikely(err))
			goto broken;
	}
	sim->seq++;
	return HS_STEP_MISS;

contract:
	err = -EUCLEAN;
broken:
	sim->seq++;
	sim->broken = err;
	return err;
}

/*
 * miss_inline() with the layout of run_inline_*16() (16-byte records, the
 * links after the driver's 8 bytes), in line in the loops without the queue
 * mirror (lru's at every size, fifo's and clock's in L2): a call saved and
 * restored six registers and reloaded the run's constants at every miss,
 * about 15 of a miss's 160 instructions, and the loop's hits measured no
 * slower for it (issue 13, lru at 76,300 of 763 K zipf keys: 2.5 % fewer
 * instructions per run, CPU time 0-3 ns per access less in three sets of
 * interleaved rounds, bench/README).  The other variants stay out of line.
 */
static inline __attribute__((always_inline)) int miss_inline16(struct hs_sim *sim, uint32_t key,
							       uint8_t meta, uint64_t next_use)
{
	return miss_inline(sim, key, meta, next_use, true, false);
}

/* and out of line with the queue mirror (sim->qm) */
static __attribute__((noinline)) int miss_inline16_qm(struct hs_sim *sim, uint32_t key,
						      uint8_t meta, uint64_t next_use)
{
	return miss_inline(sim, key, meta, next_use, true, true);
}

static __attribute__((noinline)) int miss_inline_any(struct hs_sim *sim, uint32_t key,
						     uint8_t meta, uint64_t next_use)
{
	return sim->qm ? miss_inline(sim, key, meta, next_use, false, true) :
			 miss_inline(sim, key, meta, next_use, false, false);
}

_Static_assert(HS_META_ANON == HS_FOLIO_ANON, "run_inline() and miss_inline() copy the bit");

/*
 * For rec_inline(): a record's flags (PLAIN_HIT_FLAGS) and prot_pending as
 * flags | prot_pending << 8, one 16-bit load on a little-endian machine,
 * and per meta byte what a plain hit has there (step_hit()'s test): resident,
 * seen, the record's anonymous bit, nothing pending; for a meta byte that is
 * no access (FD or PT), a value no record has.
 */
_Static_assert(offsetof(struct hs_folio, flags) == 0 &&
	       offsetof(struct hs_folio, prot_pending) == 1, "flags, then prot_pending");

static inline unsigned int plain_bits(const struct hs_folio *f)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t v;

	memcpy(&v, f, sizeof(v));
	return v & (PLAIN_HIT_FLAGS | 0xff00u);
#else
	return (f->flags & PLAIN_HIT_FLAGS) | (unsigned int)f->prot_pending << 8;
#endif
}

#define PLAIN_WANT(m)	(((m) & HS_META_CHANNEL_MASK & ~1u) ? 0xffffu :		\
			 HS_FOLIO_RESIDENT | HS_FOLIO_SEEN | ((m) & HS_META_ANON))
#define PLAIN_WANT4(m)	PLAIN_WANT(m), PLAIN_WANT((m) + 1), PLAIN_WANT((m) + 2), PLAIN_WANT((m) + 3)
#define PLAIN_WANT16(m)	PLAIN_WANT4(m), PLAIN_WANT4((m) + 4), PLAIN_WANT4((m) + 8), \
			PLAIN_WANT4((m) + 12)
#define PLAIN_WANT64(m)	PLAIN_WANT16(m), PLAIN_WANT16((m) + 16), PLAIN_WANT16((m) + 32), \
			PLAIN_WANT16((m) + 48)

static const uint16_t plain_want[256] = {
	PLAIN_WANT64(0), PLAIN_WANT64(64), PLAIN_WANT64(128), PLAIN_WANT64(192)
};
_Static_assert((PLAIN_HIT_FLAGS | 0xff00u) != 0xffffu, "0xffff is no record's");

/* The policy's described hit operation @op on @key (HS_INLINE_HIT_NOP: nothing). */
static inline __attribute__((always_inline)) void inline_hit(enum hs_inline_hit op,
							      const struct hs_qctx *qc,
							      struct hs_qlist *l, uint64_t *bits,
							      uint32_t key)
{
	switch (op) {
	case HS_INLINE_HIT_MOVE_TAIL:
		hs_q_move_tail(qc, l, key);
		break;
	case HS_INLINE_HIT_SET_BIT:
		bits[key / 64] |= (uint64_t)1 << (key % 64);
		break;
	default:
		break;
	}
}

/*
 * One record of run_inline(): a plain hit (what step_hit() takes) is done
 * here, with @op the policy's hit, and counts nothing: the caller adds the
 * plain hits since the last other record (*@mark) to records, hits and seq
 * before that record is stepped, and at the end, as step_hit() would have one
 * by one.  Nothing between reads those counters: the inline hit operations
 * do not, and every other record (a hit with a protection pending, a miss
 * for miss_inline(), anything else for step()) is stepped after the
 * catch-up.
 */
static inline __attribute__((always_inline)) int rec_inline(struct hs_sim *sim,
							     const uint32_t *keys,
							     const uint8_t *meta,
							     const uint64_t *next, size_t i,
							     size_t *mark, enum hs_inline_hit op,
							     const char *base, size_t stride,
							     uint32_t nr_keys,
							     const struct hs_qctx *qc,
							     struct hs_qlist *l, uint64_t *bits,
							     bool rec16, bool qm, size_t soff,
							     uint64_t smask, uint64_t swant)
{
	uint32_t key = keys[i];
	uint8_t m = meta[i];
	size_t hits;
	int ret;

	if (likely(key < nr_keys)) {
		const struct hs_folio *f = (const struct hs_folio *)(const void *)
					   (base + (size_t)key * stride);

		if (op == HS_INLINE_HIT_MOVE_TAIL_STAMP) {
			uint64_t *w = (uint64_t *)(void *)((char *)(uintptr_t)f + soff);

			if (likely(plain_bits(f) == plain_want[m] && (*w & smask) == swant)) {
				hs_q_move_tail(qc, l, key);
				/* seq of this record: the plain hits since *mark not yet added */
				*w = swant | ((sim->seq + (i - *mark)) & ~smask);
				return 0;
			}
		} else if (likely(plain_bits(f) == plain_want[m])) {
			inline_hit(op, qc, l, bits, key);
			return 0;
		}
	}
	hits = i - *mark;
	sim->seq += hits;
	sim->st.records += hits;
	sim->st.hits += hits;
	*mark = i + 1;
	if (likely(key < nr_keys)) {
		struct hs_folio *f = (struct hs_folio *)(void *)(sim->folios + (size_t)key * stride);

		if ((plain_bits(f) & 0xffu) == plain_want[m] &&
		    (op != HS_INLINE_HIT_MOVE_TAIL_STAMP ||
		     (*(uint64_t *)(void *)((char *)f + soff) & smask) == swant)) {
			/*
			 * A plain hit but for the protection pending (CLOCK's
			 * second chances): as step(), the hit counted, the
			 * protection settled useful, then the hit's operation.
			 */
			sim->st.records++;
			sim->st.hits++;
			settle_inline(sim, f, true);
			if (op == HS_INLINE_HIT_MOVE_TAIL_STAMP) {
				hs_q_move_tail(qc, l, key);
				*(uint64_t *)(void *)((char *)f + soff) =
					swant | (sim->seq & ~smask);
			} else {
				inline_hit(op, qc, l, bits, key);
			}
			sim->seq++;
			return 0;
		}
		if (sim->inline_miss && hs_channel_is_access(hs_meta_channel(m)) &&
		    !hs_folio_is_resident(f)) {
			ret = (!rec16 ? miss_inline_any : qm ? miss_inline16_qm :
				miss_inline16)(sim, key, m, next ? next[i] : HS_NEVER);
			return ret < 0 ? ret : 0;
		}
	}
	ret = step_slow(sim, key, m, next ? next[i] : HS_NEVER);
	return ret < 0 ? ret : 0;
}

/*
 * HS_INLINE_HIT_MOVE_TAIL_STAMP is ARC's hit on T2 (policies/arc.c): the move
 * of LRU's hit and the seq of the access written into the record, for a
 * record whose word says it is on that list; any other hit goes to step()
 * and the policy's hit().  The seq of a plain hit is sim->seq plus the plain
 * hits before it not yet added (i - *mark).  Its records are 24 bytes, so
 * the loop fetches both lines a record may straddle.  ARC at 8,100 and
 * 81,000 of issue 13's 81 K zipf keys (the second all hits): 43.9 -> 42.4
 * and 32.3 -> 23.9 ns per access, 7 interleaved rounds.
 *
 * hs_sim_run()'s loop for a policy whose hit the driver does in line
 * (sim->inline_run), with @op that hit, a constant at every call: as
 * run_prefetch(), with the same fetches ahead, but a plain hit is one
 * test of the record and the operation, with no call, no struct hs_access
 * and no counter, and the misses that need nothing else go to
 * miss_inline().  The run's constants are held in locals: the byte stores
 * to the records would otherwise have the compiler reload them at every
 * record.  With @rec16, also a constant, the records are 16 bytes and the
 * policy's list links the 8 after the driver's (lru, fifo, clock): the
 * addresses are shifts and constant offsets, with nothing to keep in
 * registers.  The fetch ahead tests no key: a prefetch faults on no address
 * (hs_prefetch()), and the address is computed in integers.
 */
static inline __attribute__((always_inline)) int run_inline(struct hs_sim *sim,
							     const uint32_t *keys,
							     const uint8_t *meta,
							     const uint64_t *next, size_t n,
							     enum hs_inline_hit op, bool rec16,
							     bool qm)
{
	void (*pf)(struct hs_policy *p, const struct hs_folio *f, uint32_t key) = sim->pf;
	const char *base = sim->folios;
	size_t stride = rec16 ? 16 : sim->env.stride, i, mark = 0;
	uint32_t nr_keys = sim->cfg.nr_keys;
	struct hs_qctx qc = { 0 };
	struct hs_qlist *l = sim->inl.list;
	uint64_t *bits = sim->inl.bits;
	size_t soff = sim->inl.stamp_off;
	uint64_t smask = sim->inl.stamp_mask, swant = sim->inl.stamp_want;
	int ret;

	if (op == HS_INLINE_HIT_MOVE_TAIL || op == HS_INLINE_HIT_MOVE_TAIL_STAMP) {
		qc = *sim->inl.q;
		if (rec16) {
			qc.base = sim->folios;
			qc.stride = 16;
			qc.off = sizeof(struct hs_folio);
		}
	}
#define PF_AHEAD(k)	do {								\
		uintptr_t a_ = (uintptr_t)base + (uintptr_t)(k) * stride;		\
										\
		hs_prefetch((const void *)a_);					\
		if (op == HS_INLINE_HIT_MOVE_TAIL_STAMP) /* records across lines */	\
			hs_prefetch((const void *)(a_ + stride - 1));		\
	} while (0)
#define REC(i)	rec_inline(sim, keys, meta, next, (i), &mark, op, base, stride, nr_keys, &qc, \
			   l, bits, rec16, qm, soff, smask, swant)
	/*
	 * The policy's fetch for key k (ops->prefetch; records beyond L2).  A
	 * hit that moves the key to the tail writes its neighbours' links:
	 * those are what lru_prefetch() fetches for a resident key not at the
	 * tail, fetched here without the call.
	 */
#define PF_POLICY_KEY(k)	do {							\
		uint32_t k_ = (k);						\
		const struct hs_folio *f_ = (const struct hs_folio *)(const void *)	\
					    (base + (size_t)k_ * stride);		\
										\
		if (op != HS_INLINE_HIT_MOVE_TAIL)					\
			pf(sim->pol, f_, k_);					\
		else if (hs_folio_is_resident(f_) && k_ != l->tail)		\
			hs_q_prefetch_neighbours(&qc, k_);			\
	} while (0)
	for (i = 0; i < n && i < PF_FOLIO; i++)
		PF_AHEAD(keys[i]);
	i = 0;
	if (pf) {
		for (; i + PF_FOLIO < n; i++) {
			uint32_t k = keys[i + PF_POLICY];

			PF_AHEAD(keys[i + PF_FOLIO]);
			if (likely(k < nr_keys))
				PF_POLICY_KEY(k);
			ret = REC(i);
			if (unlikely(ret < 0))
				return ret;
		}
	} else {
		for (; i + PF_FOLIO < n; i++) {
			PF_AHEAD(keys[i + PF_FOLIO]);
			ret = REC(i);
			if (unlikely(ret < 0))
				return ret;
		}
	}
	for (; i < n; i++) {
		if (pf && i + PF_POLICY < n && keys[i + PF_POLICY] < nr_keys)
			PF_POLICY_KEY(keys[i + PF_POLICY]);
		ret = REC(i);
		if (unlikely(ret < 0))
			return ret;
	}
#undef REC
#undef PF_POLICY_KEY
#undef PF_AHEAD
	sim->seq += n - mark;
	sim->st.records += n - mark;
	sim->st.hits += n - mark;
	return 0;
}

/* run_inline() for each hit, each a function of its own (its registers its own) */
#define RUN_INLINE_FN(name, op, rec16, qm)						\
static __attribute__((noinline)) int name(struct hs_sim *sim, const uint32_t *keys,		\
					  const uint8_t *meta, const uint64_t *next, size_t n)	\
{											\
	return run_inline(sim, keys, meta, next, n, op, rec16, qm);			\
}
RUN_INLINE_FN(run_inline_tail16, HS_INLINE_HIT_MOVE_TAIL, true, false)
RUN_INLINE_FN(run_inline_bit16, HS_INLINE_HIT_SET_BIT, true, false)
RUN_INLINE_FN(run_inline_bit16_qm, HS_INLINE_HIT_SET_BIT, true, true)
RUN_INLINE_FN(run_inline_nop16, HS_INLINE_HIT_NOP, true, false)
RUN_INLINE_FN(run_inline_nop16_qm, HS_INLINE_HIT_NOP, true, true)
RUN_INLINE_FN(run_inline_tail, HS_INLINE_HIT_MOVE_TAIL, false, false)
RUN_INLINE_FN(run_inline_bit, HS_INLINE_HIT_SET_BIT, false, false)
RUN_INLINE_FN(run_inline_nop, HS_INLINE_HIT_NOP, false, false)
RUN_INLINE_FN(run_inline_stamp, HS_INLINE_HIT_MOVE_TAIL_STAMP, false, false)
#undef RUN_INLINE_FN

/*
 * The running counts of run_list16(), in locals: sim's fields are written
 * back (list_sync()) before any record it hands to another path, and at the
 * end.  In locals, nothing aliases them: the byte stores into the records
 * (char-typed, so they may alias anything in memory) made the compiler
 * reload and store sim's fields around every one of them.  The rare counts
 * (cold misses, anonymous and hinted pages) go to sim directly.
 */
struct list_run {
	struct hs_qlist	q;		/* inl.list, but for q.nr, which used counts:
					 * lib/qlist.h's functions that leave nr */
	uint64_t	sb;		/* seq of record i is sb + i */
	size_t		mark;		/* records from mark on are not yet counted in sim */
	uint64_t	misses;		/* misses since mark */
	uint64_t	used, used0;	/* sim->used now, and at mark (a miss with room
					 * evicts nothing: misses - (used - used0) evicted) */
	uint64_t	capacity;
	uint64_t	acc0;		/* hits + misses after record i is acc0 + i + 1 */
	uint64_t	scanned;	/* keys clock's hand looked at since mark */
	/*
	 * refaults since mark by the key's refault count before it: 0, 1, or
	 * 2 and more.  Every one is a refault, a 1 makes a ping-pong key (and
	 * two of its refaults), a 2 one more ping-pong refault: one indexed
	 * increment instead of three counts (count_refault()).
	 */
	uint64_t	rf[3];
};

static inline __attribute__((always_inline)) void list_load(const struct hs_sim *sim,
							     struct list_run *r, size_t i)
{
	r->q = *sim->inl.list;
	r->sb = sim->seq - i;
	r->mark = i;
	r->misses = 0;
	r->used = r->used0 = sim->used;
	r->capacity = sim->cfg.capacity;
	r->rf[0] = r->rf[1] = r->rf[2] = 0;
	r->acc0 = sim->st.hits + sim->st.misses - i;
	r->scanned = 0;
}

/* Count the records [r->mark, i) in sim, as step() would have one by one. */
static inline __attribute__((always_inline)) void list_sync(struct hs_sim *sim,
							     const struct list_run *r, size_t i)
{
	uint64_t done = i - r->mark;

	sim->inl.list->head = r->q.head;
	sim->inl.list->tail = r->q.tail;
	sim->inl.list->nr += r->used - r->used0;
	sim->seq += done;
	sim->st.records += done;
	sim->st.hits += done - r->misses;
	sim->st.misses += r->misses;
	sim->st.evictions += r->misses - (r->used - r->used0);
	sim->used = r->used;
	if (r->used > sim->st.peak_resident)
		sim->st.peak_resident = r->used;
	sim->st.refaults += r->rf[0] + r->rf[1] + r->rf[2];
	sim->st.pingpong_keys += r->rf[1];
	sim->st.pingpong_refaults += 2 * r->rf[1] + r->rf[2];
	if (r->scanned)
		*sim->inl.scanned += r->scanned;
}

/* prot_flush() with hits + misses @acc, which sim's counts are behind */
static inline __attribute__((always_inline)) void prot_flush_at(struct hs_sim *sim, uint64_t acc)
{
	sim->prot_sum += sim->prot_resident * (acc - sim->prot_mark);
	sim->prot_mark = acc;
}

#define LIST_REC(base, id)	((struct hs_folio *)(void *)((base) + (size_t)(id) * 16))

/*
 * One record of run_list16(): 0 when done here, 1 when the caller must step
 * it another way.
 *
 * The miss taken here is miss_inline()'s with one victim: an access
 * (plain_want[] has 0xffff for any other channel), f not resident, the
 * memory full, the head a resident key neither read ahead nor protected
 * (which would need sim's counts).  The same fields and counts as
 * miss_inline(), in its order; the refault distance's bucket from a 32-bit
 * count of leading zeros (a distance below 2^31 has at most 31 bits;
 * HS_DIST_ANCIENT's 64 falls in the last bucket), and the saturating
 * refault count's ping-pong tallies without a branch.
 */
static inline __attribute__((always_inline)) int list_rec(struct hs_sim *sim, struct list_run *r,
							   char *base, uint32_t nr_keys, uint32_t tmask,
							   uint64_t *hist, uint64_t *bits, uint32_t key,
							   uint8_t m, size_t i, enum hs_inline_hit op)
{
	const struct hs_qctx qc = { base, 16, sizeof(struct hs_folio) };
	struct hs_folio *f, *v;
	unsigned int pb, vb, fl;
	uint32_t id, seq;

	if (unlikely(key >= nr_keys))
		return 1;
	f = LIST_REC(base, key);
	pb = plain_bits(f);
	if (likely(pb == plain_want[m])) {
		if (op == HS_INLINE_HIT_MOVE_TAIL)
			hs_q_move_tail(&qc, &r->q, key);
		if (op == HS_INLINE_HIT_SET_BIT)
			bits[key / 64] |= (uint64_t)1 << (key % 64);
		return 0;
	}
	if (op == HS_INLINE_HIT_SET_BIT && (pb & 0xffu) == plain_want[m]) {
		/* a plain hit but for the protection pending: settled useful, as rec_inline() */
		struct hs_prot_stats *k = &sim->st.prot_kind[f->prot_kind];

		sim->st.prot.useful += f->prot_pending;
		k->useful += f->prot_pending;
		f->prot_pending = 0;
		prot_flush_at(sim, r->acc0 + i + 1);
		sim->prot_resident--;
		bits[key / 64] |= (uint64_t)1 << (key % 64);
		return 0;
	}
	if (unlikely((pb & HS_FOLIO_RESIDENT) || plain_want[m] == 0xffffu))
		return 1;
	if (op == HS_INLINE_HIT_SET_BIT && likely(r->used == r->capacity)) {
		id = 0;		/* the hand finds the victim, below */
		v = NULL;
		vb = 0;
	} else if (likely(r->used == r->capacity)) {
		id = r->q.head;
		if (unlikely(id >= nr_keys))
			return 1;
		v = LIST_REC(base, id);
		vb = plain_bits(v);
		if (unlikely((vb & (HS_FOLIO_RESIDENT | HS_FOLIO_READAHEAD | 0xff00u)) !=
			     HS_FOLIO_RESIDENT))
			return 1;
	} else if (r->used < r->capacity) {
		id = HS_NIL;	/* room without an eviction */
		v = NULL;
		vb = 0;
	} else {
		return 1;
	}
	seq = (uint32_t)(r->sb + i);

	/* count_miss(), count_refault() */
	fl = (f->flags & ~HS_FOLIO_ANON) | (m & HS_META_ANON);
	r->misses++;
	if (unlikely(!(fl & HS_FOLIO_SEEN))) {
		fl |= HS_FOLIO_SEEN;
		sim->st.cold_misses++;
	}
	if (fl & HS_FOLIO_SHADOW) {
		uint32_t age = (seq - f->evicted_at) & tmask;
		unsigned int b = 31 - (unsigned int)__builtin_clz((age << 1) | 1);
		unsigned int rf = f->refaults;

		if ((fl & HS_FOLIO_ANCIENT) || age > tmask >> 1)
			b = HS_HIST_BUCKETS - 1;		/* HS_DIST_ANCIENT */
		hist[b]++;
		if (unlikely(fl & (HS_FOLIO_HINTED | HS_FOLIO_ANON))) {
			if (fl & HS_FOLIO_HINTED)
				sim->st.hint_refaults++;
			if (fl & HS_FOLIO_ANON)
				sim->st.pswpin++;
		}
		r->rf[rf < 2 ? rf : 2]++;
		f->refaults = (uint8_t)(rf + (rf < UINT8_MAX));
	}
	if (op == HS_INLINE_HIT_SET_BIT && r->used == r->capacity) {
		/*
		 * second_chance(): the hand passes the keys with their bit set
		 * (cleared, moved to the tail, a second chance each) and
		 * takes the first without.  A key that is not resident breaks
		 * the run, as protect_inline() or the victim's check would.
		 */
		uint64_t acc = r->acc0 + i + 1;

		for (;;) {
			uint64_t *w, mb;

			id = r->q.head;
			if (unlikely(id >= nr_keys))
				goto broken;
			r->scanned++;
			w = &bits[id / 64];
			mb = (uint64_t)1 << (id % 64);
			v = LIST_REC(base, id);
			if (!(*w & mb))
				break;
			*w &= ~mb;
			/*
			 * hs_q_move_tail() of the head, as unlinking it, which
			 * fetches the link after the new head (hand_ahead()),
			 * and linking it at the tail
			 */
			if (id != r->q.tail) {
				hs_q_unlink_head(&qc, &r->q);
				hs_q_link_tail(&qc, &r->q, id);
			}
			if (unlikely(!hs_folio_is_resident(v)))
				goto broken;
			sim->st.prot.total++;
			sim->st.prot_kind[HS_PROT_SECOND_CHANCE].total++;
			if (v->prot_pending == 0) {
				prot_flush_at(sim, acc);
				sim->prot_resident++;
			}
			if (v->prot_pending < UINT8_MAX)
				v->prot_pending++;
			v->prot_kind = HS_PROT_SECOND_CHANCE;
		}
		vb = v->flags;
		if (unlikely(!(vb & HS_FOLIO_RESIDENT)))
			goto broken;
		if (unlikely(vb & HS_FOLIO_READAHEAD)) {	/* readahead_leave() */
			vb &= ~HS_FOLIO_READAHEAD;
			sim->ra_resident--;
			sim->st.readahead_unused++;
		}
		if (v->prot_pending) {				/* settle_inline(), wasted */
			struct hs_prot_stats *k = &sim->st.prot_kind[v->prot_kind];

			sim->st.prot.wasted += v->prot_pending;
			k->wasted += v->prot_pending;
			v->prot_pending = 0;
			prot_flush_at(sim, acc);
			sim->prot_resident--;
		}
	} else if (unlikely(!v)) {
		r->used++;
		goto in;
	}
	hs_q_unlink_head(&qc, &r->q);	/* id, the head: the key after the new head fetched */
	/* page_out() of the victim: no readahead mark, no protection */
	if (unlikely(vb & HS_FOLIO_ANON))
		sim->st.pswpout++;
	v->flags = (uint8_t)((vb & 0xffu & ~(HS_FOLIO_RESIDENT | HS_FOLIO_HINTED |
					     HS_FOLIO_RA_MARK | HS_FOLIO_ANCIENT)) |
			     HS_FOLIO_SHADOW);
	v->evicted_at = seq;
	/* make_resident(), then hs_q_push_tail() (the count is used's) */
in:
	f->flags = (uint8_t)((fl & ~(HS_FOLIO_SHADOW | HS_FOLIO_HINTED | HS_FOLIO_ANCIENT)) |
			     HS_FOLIO_RESIDENT);
	f->evicted_at = seq;
	if (op == HS_INLINE_HIT_SET_BIT)
		bits[key / 64] &= ~((uint64_t)1 << (key % 64));
	hs_q_link_tail(&qc, &r->q, key);
	return 0;

broken:
	sim->broken = -EUCLEAN;
	return 2;
}

/* Record i, which list_rec() did not take: counted, then stepped as run_inline() would. */
static __attribute__((noinline)) int list_slow(struct hs_sim *sim, struct list_run *r,
					       uint32_t key, uint8_t m, const uint64_t *next,
					       size_t i)
{
	int ret;

	list_sync(sim, r, i);
	if (key < sim->cfg.nr_keys && sim->inline_miss && hs_channel_is_access(hs_meta_channel(m)) &&
	    !hs_folio_is_resident(folio_at(sim, key)))
		ret = miss_inline16(sim, key, m, next ? next[i] : HS_NEVER);
	else
		ret = step(sim, key, m, next ? next[i] : HS_NEVER);
	list_load(sim, r, i + 1);
	return ret;
}

/*
 * hs_sim_run()'s loop for lru, fifo and clock (16-byte records, insert
 * HS_INLINE_INSERT_PUSH_TAIL, and no queue mirror: lru at every size, fifo
 * and clock in L2 or with room for every key): run_inline() with the
 * commonest misses in line too (list_rec(): lru's and fifo's
 * HS_INLINE_EVICT_POP_HEAD, clock's HS_INLINE_EVICT_SECOND_CHANCE with its
 * protections), and the counts and the list's ends in locals (struct
 * list_run).  Any other record is stepped as run_inline() steps it, after
 * list_sync().  With @pf (lru beyond L2), the neighbours of the key
 * PF_LIST_NEIGH records ahead are fetched, as run_inline() does PF_POLICY
 * records ahead.
 *
 * Why (issue 13: lru within 2x of the floor).  A miss in run_inline() was
 * about 190 instructions (cachegrind: 1,091.5 M for lru at 8,100 of the
 * 81 K zipf keys, 10 M accesses, 2.67 M misses), much of it the compiler
 * reloading and storing sim's fields around every byte store into a
 * record, which may alias them; the same miss here with the counts in
 * locals is about 100.  Whole process, instructions, c50b0a5 -> this loop:
 * lru at 8,100 of 81 K keys 1,091.5 M -> 823.2 M, fifo at 8,100 996.0 M ->
 * 731.4 M, clock at 8,100 1,184.4 M -> 989.7 M, the floor (fifo at
 * 81,000) 433.9 M -> 421.4 M.  CPU against c50b0a5's build, bench/run
 * side by side (5 interleaved rounds, medians, ns per access): lru 27.6 ->
 * 21.3 at 81 K keys, 40.4 -> 35.9 at 763 K; fifo 27.0 -> 21.2 and clock
 * 34.2 -> 29.7 at 81 K; the floor at 3.7 M keys (fifo with room for every
 * key, its misses all cold) no longer pushes every key into a queue
 * mirror: 27.3 -> 21.4 (5 rounds by hand).
 *
 * What is left beyond L2 is the list's own walk: at 76,300 of 763 K keys
 * 40 % of lru's samples (perf -e cpu-clock) wait for the new head's link,
 * which the pop before fetched; the next victim is known only when the last
 * one's link arrives.  A scout walking the list up to 16 keys ahead of the
 * head, one key every 3 records (a hit on it moved it on), only moved the
 * wait to its own loads: 31.4 -> 31.2 ns at 763 K keys, 38.2 -> 40.9 at
 * 3.7 M (5 rounds); in place of the pop's fetch, 19.6 -> 23.5 at 81 K and
 * 33.7 -> 35.6 at 763 K (5 rounds, the test suite running beside): not
 * kept.  At 8,100 of 81 K keys the same wait is a fifth of lru's samples.
 * A list's walk finds one key per memory latency, however far ahead it
 * starts; the stream does not have to be walked: the next victims are
 * among the keys of the accesses just after the victim's last one.  Fetched
 * from there, at each eviction the records of the keys of the 4 accesses
 * from 12 after the victim's evicted_at (its insertion, its last access
 * unless it was hit since), from a ring of the last 2^16 records' keys
 * (8x the capacity; a victim's insertion was within 2^16 records of its
 * eviction for 85.2 % of them at 8,100 of 81 K keys and within 2^17 for
 * 99.3 %; within 2^20 for 99.0 % at 76,300 of 763 K, 2^21 for 99.1 % at
 * 368,000 of 3.7 M): 6 instructions an access to keep the ring, 169 M more
 * in all, and 12.6 -> 14.6 ns (7 rounds) with lead 12 (4 and 24 no better);
 * 5 rounds against PF_NEIGH() below: 14.0 -> 24.2 at 76,300 of 763 K keys
 * (a 2^20 ring), 24.4 -> 32.9 at 368,000 of 3.7 M (2^22; lead 32: 32.0),
 * and from the largest evicted_at so far (the ring read in order): 11.5 ->
 * 16.2 at 81 K, 24.1 -> 29.9 at 3.7 M.  Without the ring, from the run's
 * own keys[] when the position is in it: 15.6 -> 16.9 at 81 K (7 rounds,
 * busy machine).  None kept.  The head's wait
 * at 8,100 of 81 K keys, after PF_LIST_NEIGH below: a quarter of the
 * loop's samples; a mispredicted hit-or-miss branch another tenth.
 *
 * The neighbours are fetched PF_LIST_NEIGH records ahead, not PF_POLICY's
 * 8: a hit's neighbours are those of a key near the tail (zipf's hot keys),
 * which the hits in between move, so the further ahead, the more of the
 * fetches are of links the hit will not write.  lru, 7 interleaved rounds
 * at 8,100 of 81 K keys (medians, ns of CPU per access): 8 14.1, 6 13.4,
 * 4 12.2, 3 12.0, 2 11.9, and 12 14.4; 5 rounds at 76,300 of 763 K keys: 8
 * 16.6, 6 15.6, 4 14.7, 3 15.1; at 368,000 of 3.7 M: 8 27.8, 6 26.6, 4
 * 25.8, 3 25.6.  PF_FOLIO's 24 against 16 for the records, with 4: 12.2 and
 * 12.2 at 81 K keys.  With PF_NEIGH() as below, 3, 4 and 6 are within the
 * noise: 11.7, 11.6, 11.6 at 81 K keys (7 rounds), 13.4, 13.5, 13.7 at
 * 763 K (5).
 *
 * PF_NEIGH() tests nothing of the key but its range, and
 * hs_q_prefetch_neighbours_any() nothing of its links: whatever they hold
 * is fetched, a resident key's neighbours, HS_NIL's address beyond the
 * array (the tail's next, the head's prev, an evicted key's both), or key
 * 0's record (a key never seen).  hs_q_prefetch_neighbours() and the tests
 * of residence and of the tail cost 6 instructions an access, and the test
 * of residence, a hit or a miss 4 records ahead, mispredicted: lru at
 * 8,100 of 81 K keys 979.4 M -> 918.3 M instructions, 7.02 M -> 3.70 M
 * mispredicted branches (cachegrind --branch-sim=yes), 12.6 -> 11.8 ns of
 * CPU per access, and 26.4 -> 24.2 at 368,000 of 3.7 M (7 interleaved
 * rounds, medians).  Selecting the key itself for HS_NIL (two cmovs), lest
 * a fetch of an unmapped address walk the page tables, took 60 M
 * instructions more and measured 12.1 and 25.8: not kept.
 */
#define PF_LIST_NEIGH	4

static inline __attribute__((always_inline)) int run_list16(struct hs_sim *sim,
							     const uint32_t *keys,
							     const uint8_t *meta,
							     const uint64_t *next, size_t n,
							     enum hs_inline_hit op, bool pf)
{
	char *const base = sim->folios;
	const uint32_t nr_keys = sim->cfg.nr_keys;
	const uint32_t tmask = sim->time_mask;
	uint64_t *const hist = sim->st.refault_hist;
	uint64_t *const bits = sim->inl.bits;
	const struct hs_qctx qc = { base, 16, sizeof(struct hs_folio) };
	struct list_run r;
	size_t i;
	int ret;

#define PF_NEIGH(k)	do {								\
		uint32_t k_ = (k);						\
										\
		if (likely(k_ < nr_keys))					\
			hs_q_prefetch_neighbours_any(&qc, k_);			\
	} while (0)
#define STEP(i)	do {									\
		ret = list_rec(sim, &r, base, nr_keys, tmask, hist, bits, keys[i],	\
			       meta[i], (i), op);					\
		if (unlikely(ret)) {						\
			if (ret == 2) {		/* broken: counted, stopped */	\
				list_sync(sim, &r, (i) + 1);			\
				return sim->broken;				\
			}							\
			ret = list_slow(sim, &r, keys[i], meta[i], next, (i));	\
			if (unlikely(ret < 0))					\
				return ret;					\
		}								\
	} while (0)
	list_load(sim, &r, 0);
	for (i = 0; i < n && i < PF_FOLIO; i++)
		hs_prefetch(LIST_REC(base, keys[i]));
	for (i = 0; i + PF_FOLIO < n; i++) {
		hs_prefetch((const void *)((uintptr_t)base + (uintptr_t)keys[i + PF_FOLIO] * 16));
		if (pf)
			PF_NEIGH(keys[i + PF_LIST_NEIGH]);
		STEP(i);
	}
	for (; i < n; i++) {
		if (pf && i + PF_LIST_NEIGH < n)
			PF_NEIGH(keys[i + PF_LIST_NEIGH]);
		STEP(i);
	}
#undef STEP
#undef PF_NEIGH
	list_sync(sim, &r, n);
	return 0;
}

#define RUN_LIST16_FN(name, op, pf)							\
static __attribute__((noinline)) int name(struct hs_sim *sim, const uint32_t *keys,		\
					  const uint8_t *meta, const uint64_t *next, size_t n)	\
{											\
	return run_list16(sim, keys, meta, next, n, op, pf);				\
}
RUN_LIST16_FN(run_list16_tail, HS_INLINE_HIT_MOVE_TAIL, false)
RUN_LIST16_FN(run_list16_tail_pf, HS_INLINE_HIT_MOVE_TAIL, true)
RUN_LIST16_FN(run_list16_bit, HS_INLINE_HIT_SET_BIT, false)
RUN_LIST16_FN(run_list16_nop, HS_INLINE_HIT_NOP, false)
#undef RUN_LIST16_FN

int hs_sim_run(struct hs_sim *sim, const uint32_t *keys, const uint8_t *meta,
	       const uint64_t *next, size_t n)
{
	size_t i, todo;
	int ret;

	if (unlikely(sim->broken))
		return sim->broken;
	if (unlikely(sim->fo))
		return run_folios(sim, keys, meta, next, NULL, n);
	/*
	 * A step advances seq by one at most: in pieces of at most
	 * next_sweep - seq records, the sweeps come in time without a test per
	 * step.
	 */
	while (n > sim->next_sweep - sim->seq) {
		todo = (size_t)(sim->next_sweep - sim->seq);
		ret = hs_sim_run(sim, keys, meta, next, todo);
		if (ret)
			return ret;
		keys += todo;
		meta += todo;
		if (next)
			next += todo;
		n -= todo;
		if (sim->seq >= sim->next_sweep)
			sweep_times(sim);
	}
	/* step() alone: the reference the fast paths are compared with (tests/t-prefetch.c) */
	if (sim->cfg.no_prefetch) {
		for (i = 0; i < n; i++) {
			ret = step(sim, keys[i], meta[i], next ? next[i] : HS_NEVER);
			if (unlikely(ret < 0))
				return ret;
		}
		return 0;
	}
	if (sim->list16) {
		if (sim->inl.hit == HS_INLINE_HIT_MOVE_TAIL)
			return (sim->pf ? run_list16_tail_pf : run_list16_tail)(sim, keys, meta,
										 next, n);
		if (sim->inl.hit == HS_INLINE_HIT_SET_BIT)
			return run_list16_bit(sim, keys, meta, next, n);
		return run_list16_nop(sim, keys, meta, next, n);
	}
	if (sim->inline_run) {
		switch (sim->inl.hit) {
		case HS_INLINE_HIT_MOVE_TAIL:
			return sim->inline16 ? run_inline_tail16(sim, keys, meta, next, n) :
					       run_inline_tail(sim, keys, meta, next, n);
		case HS_INLINE_HIT_MOVE_TAIL_STAMP:
			return run_inline_stamp(sim, keys, meta, next, n);
		case HS_INLINE_HIT_SET_BIT:
			if (!sim->inline16)
				return run_inline_bit(sim, keys, meta, next, n);
			return sim->qm ? run_inline_bit16_qm(sim, keys, meta, next, n) :
					 run_inline_bit16(sim, keys, meta, next, n);
		default:
			if (!sim->inline16)
				return run_inline_nop(sim, keys, meta, next, n);
			return sim->qm ? run_inline_nop16_qm(sim, keys, meta, next, n) :
					 run_inline_nop16(sim, keys, meta, next, n);
		}
	}
	if (sim->plain_hits)
		return run_prefetch(sim, keys, meta, next, n, true);
	return run_prefetch(sim, keys, meta, next, n, false);
}

size_t hs_sim_victims(const struct hs_sim *sim, const uint32_t **ids)
{
	*ids = sim->last;
	return sim->nr_last;
}

uint64_t hs_sim_used(const struct hs_sim *sim)
{
	return sim->used;
}

const struct hs_policy_env *hs_sim_env(const struct hs_sim *sim)
{
	return &sim->env;
}

/**
 * hs_sim_check() - verify the driver's counts and the policy's invariants
 * @sim: the run
 *
 * Walks every key: O(nr_keys).
 *
 * Return: 0, or -EUCLEAN.
 */
int hs_sim_check(const struct hs_sim *sim)
{
	uint64_t resident = 0, prot = 0, ra = 0, members = 0;
	uint32_t i;

	if (sim->broken)
		return sim->broken;
	for (i = 0; i < sim->cfg.nr_keys; i++) {
		const struct hs_folio *f = folio_at(sim, i);

		if (folio_id(sim, f) != i)
			return -EUCLEAN;
		if (sim->fo && sim->fo->head[i] != HS_NIL) {
			uint32_t h = sim->fo->head[i];

			/* a member: of a resident head that heads a group, not the policy's */
			if (hs_folio_is_resident(f) || f->prot_pending ||
			    (f->flags & HS_FOLIO_SHADOW) || h >= sim->cfg.nr_keys ||
			    !hs_folio_is_resident(folio_at(sim, h)) || sim->fo->tag[h] == HS_NIL)
				return -EUCLEAN;
			resident++;
			members++;
			ra += (f->flags & HS_FOLIO_READAHEAD) != 0;
			continue;
		}
		if (sim->fo && sim->fo->tag[i] != HS_NIL &&
		    (!hs_folio_is_resident(f) || sim->fo->grp[sim->fo->tag[i]] != i))
			return -EUCLEAN;
		if (hs_folio_is_resident(f)) {
			resident++;
			if (f->flags & HS_FOLIO_SHADOW)
				return -EUCLEAN;
			prot += f->prot_pending != 0;
			ra += (f->flags & HS_FOLIO_READAHEAD) != 0;
		} else if (f->prot_pending || (f->flags & HS_FOLIO_READAHEAD)) {
			return -EUCLEAN;
		}
	}
	if (ra != sim->ra_resident || members != hs_sim_folio_members(sim))
		return -EUCLEAN;
	if (resident != sim->used || sim->used > sim->cfg.capacity || prot != sim->prot_resident)
		return -EUCLEAN;
	if (sim->ops->check && sim->ops->check(sim->pol))
		return -EUCLEAN;
	return 0;
}

/**
 * hs_sim_finish() - final statistics of a run
 * @sim: the run
 * @st: receives the counters
 * @m: receives the policy's own metrics (may be NULL)
 */
void hs_sim_finish(struct hs_sim *sim, struct hs_sim_stats *st, struct hs_metrics *m)
{
	prot_flush(sim);
	sim->st.accesses = sim->st.hits + sim->st.misses;
	sim->st.distinct_keys = sim->st.cold_misses + sim->seen_on_hit;
	if (sim->st.accesses)
		sim->st.prot_occupancy = (double)sim->prot_sum /
					 ((double)sim->st.accesses * (double)sim->cfg.capacity);
	*st = sim->st;
	st->readahead_unused += sim->ra_resident;	/* still resident, never accessed */
	if (m) {
		m->n = 0;
		if (sim->ops->report)
			sim->ops->report(sim->pol, m);
		if (sim->tlb) {		/* the TLB model's, with the policy's */
			hs_metrics_add(m, "tlb.flushes", (double)sim->tlb_flushes);
			hs_metrics_add(m, "tlb.hits", (double)sim->tlb_hits);
		}
		if (sim->cfg.memcg_flushes && sim->ops->stats_flush)	/* the recorded ones */
			hs_metrics_add(m, "memcg.flushes", (double)sim->memcg_flushes);
	}
}

/**
 * hs_next_use_fill() - next-use times for an in-memory stream
 * @keys: key ids
 * @meta: meta bytes
 * @n: records
 * @nr_keys: key ids are below this
 * @next: receives, per record, the seq of the key's next access or HS_NEVER
 *
 * A forward pass: each key has one chain of the records waiting for its
 * next access (its last access and the READAHEAD records since), linked
 * through next[] itself, and an access gives its seq to the whole chain
 * (lib/replay.c does the same over a stored stream).  Hints and drops get
 * HS_NEVER and do not advance seq.
 *
 * Return: 0, -EINVAL (a key out of range) or -ENOMEM.
 */
int hs_next_use_fill(const uint32_t *keys, const uint8_t *meta, size_t n, uint32_t nr_keys,
		     uint64_t *next)
{
	uint64_t *wait;
	uint64_t seq = 0;
	size_t i;

	wait = malloc((nr_keys ? nr_keys : 1) * sizeof(*wait));
	if (!wait)
		return -ENOMEM;
	for (i = 0; i < nr_keys; i++)
		wait[i] = HS_WAIT_END;
	for (i = 0; i < n; i++) {
		enum hs_channel ch = hs_meta_channel(meta[i]);

		next[i] = HS_NEVER;
		if (!hs_channel_is_access(ch) && ch != HS_CH_READAHEAD)
			continue;
		if (keys[i] >= nr_keys) {
			free(wait);
			return -EINVAL;
		}
		if (ch == HS_CH_READAHEAD) {
			next[i] = wait[keys[i]];
			wait[keys[i]] = i;
			continue;
		}
		hs_next_use_settle(next, wait[keys[i]], seq);
		next[i] = HS_WAIT_END;
		wait[keys[i]] = i;
		seq++;
	}
	for (i = 0; i < nr_keys; i++)
		hs_next_use_settle(next, wait[i], HS_NEVER);	/* no access followed */
	free(wait);
	return 0;
}
