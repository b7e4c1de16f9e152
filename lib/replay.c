/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Many runs over one stored session, in one pass (see replay.h).
 *
 * The calling thread reads chunks from the store and copies each into a slot
 * of a small ring; worker w steps the jobs j with j % workers == w through
 * every chunk in order, then releases the slot.  A slot is refilled only when
 * every worker has released it, so the memory in flight is RING chunks,
 * whatever the session's length:
 *
 *   store --read--> [slot 0][slot 1][slot 2][slot 3] --> worker 0: jobs 0, 2, ...
 *                                                   \--> worker 1: jobs 1, 3, ...
 *
 * Offline policies need each access's next-use time; that takes the whole
 * future, so one forward pass fills an array of next-use seqs (4 bytes per
 * record below 2^32 - 1 records, else 8) before the replay starts, shared by
 * every offline job.
 *
 * That pass decodes the whole stream, and the replay used to read and decode
 * it again.  Where the pass keeps the keys anyway -- OPT's bitmap asks for the
 * key of every access (seq_keys), and in a stream of accesses only the
 * accesses are the records -- the replay steps through them instead, when
 * every record has one meta byte and no model reads the records' times
 * (struct kept): OPT at 368,000 of 3.7 M keys (10 M zipf accesses) took 78
 * -> 69 ns of CPU per access.  Elsewhere the keys go to an array of their
 * own, 4 bytes a record that the memory plan counts with the next uses
 * (hs_replay_opts.reread_stream reads the store again instead): at 8,100 of
 * 81 K keys 69 -> 60 ns when first measured, and 49.6 -> 90.6 MB; with OPT's
 * 8-ary heap 60 -> 52 ns at 81 K and 62 -> 56 at 763 K (7 rounds); against
 * main's d33b35b in bench/run's rounds (5), 1.26x, 1.27x and 1.16x at 81 K,
 * 763 K and 3.7 M keys with the array, 1.10x, 1.15x and 1.11x without.
 *
 * The rest of the pass and the step, at 8,100 of 81 K keys (perf, cpu-clock):
 * the test of every chunk for a stream of accesses only was 3 % of OPT's
 * CPU a byte at a time (now eight meta bytes a word and the largest key),
 * the backward pass 2-3 %, the widening of next uses for hs_sim_run() 2 %
 * (now SSE2, four at a time); 61 -> 59 ns for the two (9 rounds, noisy).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "damon.h"
#include "evlog.h"
#include "folios.h"
#include "hs.h"
#include "lrugen.h"
#include "neigh.h"
#include "plan.h"
#include "policy.h"
#include "replay.h"
#include "codec.h"
#include "store.h"

#define RING	4

struct slot {
	uint32_t	*keys;		/* copy of the chunk's keys */
	uint8_t		*meta;		/* copy of its meta bytes */
	uint32_t	*folio;		/* folio mode: each record's kernel folio, or NULL */
	size_t		folio_cap;	/* allocated entries in folio */
	size_t		n;		/* records in the chunk */
	size_t		cap;		/* allocated records */
	uint64_t	base;		/* record index of the chunk's first record */
	int		pending;	/* workers still to process it; 0 = free */
	/* DAMON intervals that end in the chunk: before record tick_at[i], tick first_tick + i */
	uint32_t	*tick_at;
	size_t		nr_ticks;
	size_t		tick_cap;
	uint64_t	first_tick;
	/* the DAMON region model's actions in the chunk (lib/damon.h) */
	struct hs_damon_acts acts;
	/* The TLB model's full flushes in the chunk: before record flush_at[i] */
	uint32_t	*flush_at;
	size_t		nr_flushes;
	size_t		flush_cap;
	/* The memory cgroup's statistics flushes in the chunk: before record stats_at[i] */
	uint32_t	*stats_at;
	size_t		nr_stats;
	size_t		stats_cap;
};

struct pipeline {
	pthread_mutex_t		mu;		/* protects produced, eof, slot.pending */
	pthread_cond_t		filled;		/* a chunk was produced, or eof */
	pthread_cond_t		drained;	/* a slot became free */
	struct slot		slots[RING];
	uint64_t		produced;	/* chunks published so far */
	bool			eof;		/* no more chunks */
	double			damon_draws;	/* keys drawn per DAMON interval, on average
						 * (0: off) */
	uint64_t		damon_interval_ns; /* the DAMON model's interval */
	uint32_t		damon_idle;	/* intervals a page must be idle for it */
	struct hs_damon		*dm;		/* the region model instead, or NULL */
	const uint64_t		*tlb_ts;	/* the session's TLB flush times, ascending
						 * (hs_session_tlb_flushes()), or NULL */
	size_t			nr_tlb;		/* entries in tlb_ts */
	bool			tlb;		/* the TLB model runs (with no flush, maybe) */
	const uint64_t		*memcg_ts;	/* the cgroup's statistics flush times,
						 * ascending (hs_session_memcg_flushes()),
						 * or NULL: the session has none */
	size_t			nr_memcg;	/* entries in memcg_ts */
	bool			memcg;		/* the session has them (maybe none in the run) */
	const void		*next;		/* next-use per record, or NULL */
	bool			next_wide;	/* its entries are uint64_t, not uint32_t */
	struct hs_folio_index	*fx;		/* folio mode: the session's folios, or NULL */
	struct hs_replay_job	*jobs;
	size_t			nr_jobs;
	unsigned int		workers;
};

struct worker {
	struct pipeline		*pl;
	unsigned int		index;		/* handles jobs j with j % workers == index */
	pthread_t		tid;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Records per hs_sim_run() call when next[] is narrow: widened into a buffer in L1/L2. */
#define NU_SLICE	2048

/* buf[i] = next use nx[i] in 64 bits (UINT32_MAX: HS_NEVER), i < @m. */
static void nu_widen(uint64_t *buf, const uint32_t *nx, size_t m)
{
	size_t i = 0;

#ifdef __SSE2__
	/* four at a time: each next use beside its all-ones-or-zero high half */
	const __m128i ones = _mm_set1_epi32(-1);

	for (; i + 4 <= m; i += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(nx + i));
		__m128i hi = _mm_cmpeq_epi32(v, ones);

		_mm_storeu_si128((__m128i *)(void *)(buf + i), _mm_unpacklo_epi32(v, hi));
		_mm_storeu_si128((__m128i *)(void *)(buf + i + 2), _mm_unpackhi_epi32(v, hi));
	}
#endif
	for (; i < m; i++)
		buf[i] = nx[i] == UINT32_MAX ? HS_NEVER : nx[i];
}

/* step_range() in folio mode: hs_sim_run_folios() with each record's folio. */
static int __attribute__((noinline)) step_folios(struct hs_sim *sim, const struct slot *s,
						 const void *next, bool wide, size_t from,
						 size_t to)
{
	uint64_t buf[NU_SLICE];
	int ret = 0;

	if (!next || wide)
		return hs_sim_run_folios(sim, s->keys + from, s->meta + from,
					 next ? (const uint64_t *)next + s->base + from : NULL,
					 s->folio + from, to - from);
	for (size_t o = from; o < to && ret >= 0; o += NU_SLICE) {
		const uint32_t *nx = (const uint32_t *)next + s->base + o;
		size_t m = HS_MIN(to - o, (size_t)NU_SLICE);

		nu_widen(buf, nx, m);
		ret = hs_sim_run_folios(sim, s->keys + o, s->meta + o, buf, s->folio + o, m);
	}
	return ret;
}

/* Step records from .. to - 1 of a chunk (hs_sim_run() prefetches the keys ahead). */
static int step_range(struct hs_sim *sim, const struct slot *s, const void *next, bool wide,
		      size_t from, size_t to)
{
	uint64_t buf[NU_SLICE];
	int ret = 0;

	if (s->folio)
		return step_folios(sim, s, next, wide, from, to);
	if (!next || wide)
		return hs_sim_run(sim, s->keys + from, s->meta + from,
				  next ? (const uint64_t *)next + s->base + from : NULL, to - from);
	for (size_t o = from; o < to && ret >= 0; o += NU_SLICE) {
		const uint32_t *nx = (const uint32_t *)next + s->base + o;
		size_t m = HS_MIN(to - o, (size_t)NU_SLICE);

		nu_widen(buf, nx, m);
		ret = hs_sim_run(sim, s->keys + o, s->meta + o, buf, m);
	}
	return ret;
}

/* Step one job through one chunk, with the DAMON intervals that end in it. */
static void step_chunk(struct hs_replay_job *job, const struct slot *s, const void *next,
		       bool wide, double damon_draws, uint32_t damon_idle)
{
	struct hs_sim *sim = job->sim;
	/* the DAMON ticks: the region model's actions, or the draws' intervals */
	bool regions = s->acts.nr > 0;
	size_t nr_ticks = regions ? s->acts.nr : s->nr_ticks;
	const uint32_t *tick_at = regions ? s->acts.at : s->tick_at;
	size_t from = 0;
	double t0;
	int ret = 0;

	if (!sim || job->err)
		return;
	t0 = now_s();
	for (size_t i = 0, f = 0, m = 0;
	     (i < nr_ticks || f < s->nr_flushes || m < s->nr_stats) && ret >= 0;) {
		/*
		 * The DAMON ticks, the TLB flushes and the memcg statistics flushes
		 * in the chunk, by position (at one position in that order).
		 */
		size_t ti = i < nr_ticks ? tick_at[i] : SIZE_MAX;
		size_t tf = f < s->nr_flushes ? s->flush_at[f] : SIZE_MAX;
		size_t tm = m < s->nr_stats ? s->stats_at[m] : SIZE_MAX;
		bool tick = ti <= tf && ti <= tm;
		size_t at = tick ? ti : tf <= tm ? tf : tm;

		ret = step_range(sim, s, next, wide, from, at);
		from = at;
		if (ret >= 0 && !tick && tf <= tm) {
			ret = hs_sim_tlb_flush(sim);
			f++;
		} else if (ret >= 0 && !tick) {
			ret = hs_sim_memcg_flush(sim);
			m++;
		} else if (ret >= 0 && regions) {
			ret = hs_sim_deactivate_keys(sim, s->acts.keys + s->acts.off[i],
						     s->acts.off[i + 1] - s->acts.off[i]);
			i++;
		} else if (ret >= 0) {
			/* interval t draws floor((t + 1) x) - floor(t x): x on average */
			uint64_t t = s->first_tick + i;
			uint64_t d = (uint64_t)((double)(t + 1) * damon_draws) -
				     (uint64_t)((double)t * damon_draws);

			ret = hs_sim_deactivate(sim, d, t, damon_idle);
			i++;
		}
	}
	if (ret >= 0)
		ret = step_range(sim, s, next, wide, from, s->n);
	if (unlikely(ret < 0))
		job->err = ret;
	job->wall_s += now_s() - t0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pipeline *pl = w->pl;
	uint64_t c;

	for (c = 0;; c++) {
		struct slot *s = &pl->slots[c % RING];

		pthread_mutex_lock(&pl->mu);
		while (pl->produced <= c && !pl->eof)
			pthread_cond_wait(&pl->filled, &pl->mu);
		if (pl->produced <= c) {
			pthread_mutex_unlock(&pl->mu);
			break;
		}
		pthread_mutex_unlock(&pl->mu);

		for (size_t j = w->index; j < pl->nr_jobs; j += pl->workers)
			step_chunk(&pl->jobs[j], s, pl->next, pl->next_wide, pl->damon_draws,
				   pl->damon_idle);

		pthread_mutex_lock(&pl->mu);
		if (--s->pending == 0)
			pthread_cond_broadcast(&pl->drained);
		pthread_mutex_unlock(&pl->mu);
	}
	return NULL;
}

static int slot_fill(struct slot *s, const uint32_t *keys, const uint8_t *meta, size_t n,
		     uint64_t base)
{
	if (n > s->cap) {
		uint32_t *k = realloc(s->keys, n * sizeof(*k));
		uint8_t *m;

		if (!k)
			return -ENOMEM;
		s->keys = k;
		m = realloc(s->meta, n);
		if (!m)
			return -ENOMEM;
		s->meta = m;
		s->cap = n;
	}
	memcpy(s->keys, keys, n * sizeof(*keys));
	memcpy(s->meta, meta, n);
	s->n = n;
	s->base = base;
	return 0;
}

/* Folio mode: tag the chunk's records with their folios (lib/folios.h), into s->folio. */
static int slot_folios(struct slot *s, struct hs_folio_index *fx, const uint64_t *ts)
{
	if (!fx)
		return 0;
	if (!ts)
		return -ENODATA;	/* a recorded session's chunks all have times */
	if (s->n > s->folio_cap) {
		uint32_t *f = realloc(s->folio, s->n * sizeof(*f));

		if (!f)
			return -ENOMEM;
		s->folio = f;
		s->folio_cap = s->n;
	}
	hs_folio_index_tags(fx, s->keys, ts, s->n, s->folio);
	return 0;
}

/* Bytes of a per-record array of @size-byte entries (one at least). */
static size_t next_use_bytes(uint64_t records, size_t size)
{
	return (size_t)(records ? records : 1) * size;
}

/* Bytes per entry of next[] and wait[]: hs_plan_next_use_width(), which the plan counts. */
static size_t next_use_width(uint64_t records)
{
	return hs_plan_next_use_width(records);
}

#define NU_INLINE	static inline __attribute__((always_inline))

NU_INLINE uint64_t nu_get(const void *a, bool wide, uint64_t i)
{
	uint32_t v;

	if (wide)
		return ((const uint64_t *)a)[i];
	v = ((const uint32_t *)a)[i];
	return v == UINT32_MAX ? UINT64_MAX : v;
}

/* (uint32_t)UINT64_MAX is UINT32_MAX: HS_NEVER and HS_WAIT_END narrow by themselves. */
NU_INLINE void nu_set(void *a, bool wide, uint64_t i, uint64_t v)
{
	if (wide)
		((uint64_t *)a)[i] = v;
	else
		((uint32_t *)a)[i] = (uint32_t)v;
}

/* hs_next_use_settle() (sim.h) for either width. */
NU_INLINE void nu_settle(void *next, bool wide, uint64_t w, uint64_t seq)
{
	while (w != HS_WAIT_END) {
		uint64_t up = nu_get(next, wide, w);

		nu_set(next, wide, w, seq);
		w = up;
	}
}

/* fill_next_use()'s prefetch distances, in records (wait[] first, then next[]) */
#define NU_WAIT		24
#define NU_SETTLE	10

/*
 * One forward pass: next[r] = seq of the next access to record r's key.
 * Every key has one chain of the records waiting for its next access (its
 * last access, and the READAHEAD records since), linked through next[]
 * itself: wait[key] is the newest, and one entry per key is all the pass
 * holds besides next[].  An access gives its seq to its key's whole chain
 * and starts a new one.  seq_keys[s] = the key of access s
 * (hs_policy_env.seq_keys), room for @records of them, when not NULL.
 * Entries of next_use_width(@records) bytes; the caller allocates both.
 */
NU_INLINE int fill_pass(struct hs_session_reader *r, uint64_t records, uint32_t nr_keys,
			uint32_t *seq_keys, void *next, void *wait, bool wide)
{
	uint64_t rec = 0, seq = 0;
	const uint32_t *keys;
	const uint8_t *meta;
	size_t n, i;
	int ret;

	for (i = 0; i < nr_keys; i++)
		nu_set(wait, wide, i, HS_WAIT_END);
	while ((ret = hs_session_read_chunk(r, &keys, &meta, &n)) > 0) {
		if (rec + n > records)
			return -EBADMSG;
		for (i = 0; i < n; i++, rec++) {
			enum hs_channel ch = hs_meta_channel(meta[i]);
			uint32_t k = keys[i];

			/*
			 * Two random places per record: wait[k], and the record
			 * it names, whose next[] the access settles.  Fetch
			 * wait[] NU_WAIT records ahead, and when it has come,
			 * NU_SETTLE ahead, the next[] it names (a hint: a key
			 * seen again in between only makes it stale).
			 */
			if (i + NU_WAIT < n && keys[i + NU_WAIT] < nr_keys)
				__builtin_prefetch((const char *)wait + keys[i + NU_WAIT] *
						   (wide ? 8 : 4), 0, 3);
			if (i + NU_SETTLE < n && keys[i + NU_SETTLE] < nr_keys) {
				uint64_t w = nu_get(wait, wide, keys[i + NU_SETTLE]);

				if (w < records)
					__builtin_prefetch((char *)next + w * (wide ? 8 : 4),
							   1, 3);
			}
			nu_set(next, wide, rec, HS_NEVER);
			if (!hs_channel_is_access(ch) && ch != HS_CH_READAHEAD)
				continue;
			if (k >= nr_keys)
				return -EBADMSG;
			if (ch == HS_CH_READAHEAD) {
				nu_set(next, wide, rec, nu_get(wait, wide, k));
				nu_set(wait, wide, k, rec);
				continue;
			}
			nu_settle(next, wide, nu_get(wait, wide, k), seq);
			nu_set(next, wide, rec, HS_WAIT_END);
			nu_set(wait, wide, k, rec);
			if (seq_keys)
				seq_keys[seq] = k;
			seq++;
		}
	}
	if (ret < 0)
		return ret;
	if (rec != records)
		return -EBADMSG;
	for (i = 0; i < nr_keys; i++)
		nu_settle(next, wide, nu_get(wait, wide, i), HS_NEVER);
	return 0;
}

/* fill_plain()'s prefetch distance into last[], in records */
#define NU_LAST		16

/*
 * The same next[] for a stream of accesses only (generated and imported
 * sessions: no READAHEAD, hint or drop records), narrow entries, without
 * the chains' random write per record into next[] (40 MB at 10 M records,
 * and the record it settles is anywhere in the key's reuse distance): a
 * forward pass stores each record's key in @kb (next[] itself, or the kept
 * stream: struct kept), then a backward pass turns them into the next uses,
 * next[r] = last[key], last[key] = r (record r is access r), in order.  Its
 * one random place per record is last[], an entry per key (@last, the
 * chains' wait[]).  *@meta0 is the first record's meta byte, and *@same
 * says whether every record has it.  Return: 0 done; 1 the stream has
 * another kind of record (next[] and @kb hold garbage: rewind and run
 * fill_pass()); or a negative errno.
 */
static int fill_plain(struct hs_session_reader *r, uint64_t records, uint32_t nr_keys,
		      uint32_t *kb, uint32_t *next, uint32_t *last, uint8_t *meta0, bool *same)
{
	uint64_t rec = 0, i;
	const uint32_t *keys;
	const uint8_t *meta;
	uint8_t m0 = 0;
	bool diff = false;
	size_t n;
	int ret;

	while ((ret = hs_session_read_chunk(r, &keys, &meta, &n)) > 0) {
		uint64_t d = 0, m8;
		uint32_t kmax = 0;
		size_t j;

		if (rec + n > records)
			return -EBADMSG;
		if (!rec)
			m0 = meta[0];
		/*
		 * The usual chunk in two loops without a branch: its meta bytes
		 * against the first record's, eight at a time, and its largest
		 * key (a byte at a time with the channel test took 3 % of OPT's
		 * time at 81 K keys).  Only a chunk where they differ, or out of
		 * range, or not accesses, is looked at record by record.
		 */
		m8 = 0x0101010101010101ull * m0;
		for (j = 0; j + 8 <= n; j += 8) {
			uint64_t w;

			memcpy(&w, meta + j, sizeof(w));
			d |= w ^ m8;
		}
		for (; j < n; j++)
			d |= (uint8_t)(meta[j] ^ m0);
		for (j = 0; j < n; j++)
			kmax = keys[j] > kmax ? keys[j] : kmax;
		if (unlikely(d || kmax >= nr_keys || !hs_channel_is_access(hs_meta_channel(m0)))) {
			uint8_t any = 0;

			for (j = 0; j < n; j++) {
				any |= (uint8_t)!hs_channel_is_access(hs_meta_channel(meta[j]));
				any |= (uint8_t)(keys[j] >= nr_keys);
			}
			if (any) {
				for (j = 0; j < n; j++)
					if (hs_channel_is_access(hs_meta_channel(meta[j])) &&
					    keys[j] >= nr_keys)
						return -EBADMSG;
				return 1;
			}
		}
		diff |= d != 0;
		memcpy(kb + rec, keys, n * sizeof(*keys));
		rec += n;
	}
	if (ret < 0)
		return ret;
	if (rec != records)
		return -EBADMSG;
	*meta0 = m0;
	*same = !diff;
	/* (uint32_t)HS_NEVER: no access follows */
	memset(last, 0xff, (size_t)(nr_keys ? nr_keys : 1) * sizeof(*last));
	for (i = records; i-- > 0;) {
		uint32_t k = kb[i];

		if (i >= NU_LAST)
			__builtin_prefetch(&last[kb[i - NU_LAST]], 1, 3);
		next[i] = last[k];
		last[k] = (uint32_t)i;
	}
	return 0;
}

/*
 * The stream the next-use pass kept, for the replay to step through instead
 * of reading and decoding every chunk a second time (decode_run() was 17 %
 * of OPT's CPU at 81 K keys, half of it the second pass): a stream of
 * accesses only, every record with one meta byte, whose keys are in
 * seq_keys anyway (a plain stream's seqs are its records) or else in an
 * array of their own, unless hs_replay_opts.reread_stream.
 */
struct kept {
	uint32_t	*keys;		/* every record's key, or NULL: read the store again */
	bool		own;		/* keys is ours, not seq_keys */
	uint8_t		meta;		/* every record's meta byte */
};

static void kept_free(struct kept *k, uint64_t records)
{
	if (k->own)
		hs_huge_free(k->keys, next_use_bytes(records, sizeof(*k->keys)));
	k->keys = NULL;
	k->own = false;
}

/*
 * *@out: next[] in huge pages (next_use_bytes() of next_use_width()): written
 * once, read through.  With @keep (none of the models that read the
 * records' times), the stream in *@kept when it is one to keep, else
 * kept->keys NULL; with @own, in an array of its own when there is no
 * seq_keys (and the room for it).
 */
static int fill_next_use(struct hs_session_reader *r, uint64_t records, uint32_t nr_keys,
			 uint32_t *seq_keys, bool keep, bool own, void **out, struct kept *kept)
{
	size_t width = next_use_width(records);
	void *next, *wait;
	uint8_t meta0 = 0;
	bool same = false;
	int ret;

	next = hs_huge_alloc(next_use_bytes(records, width));
	wait = malloc((nr_keys ? nr_keys : 1) * width);
	if (!next || !wait) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (width == sizeof(uint64_t)) {
		ret = fill_pass(r, records, nr_keys, seq_keys, next, wait, true);
	} else {
		kept->keys = seq_keys;
		if (!seq_keys && keep && own && records) {
			kept->keys = hs_huge_alloc(next_use_bytes(records, sizeof(*kept->keys)));
			kept->own = kept->keys != NULL;	/* without it: read again */
		}
		ret = fill_plain(r, records, nr_keys, kept->keys ? kept->keys : next, next, wait,
				 &meta0, &same);
		if (ret == 1) {
			ret = hs_session_read_rewind(r);
			if (!ret)
				ret = fill_pass(r, records, nr_keys, seq_keys, next, wait,
						false);
			same = false;
		}
		if (!ret && keep && same && kept->keys)
			kept->meta = meta0;
		else
			kept_free(kept, records);
	}
	if (!ret && !kept->keys)
		ret = hs_session_read_rewind(r);
	if (ret)
		goto out_free;
	free(wait);
	*out = next;
	return 0;

out_free:
	kept_free(kept, records);
	free(wait);
	hs_huge_free(next, next_use_bytes(records, width));
	return ret;
}

static unsigned int pick_workers(const struct hs_replay_opts *o, size_t live)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t = o->threads ? o->threads : (unsigned int)(cpus > 0 ? cpus : 1);

	if (t > live)
		t = (unsigned int)live;
	return t ? t : 1;
}

/* The DAMON model's clock: intervals of the trace clock, from the first record's time. */
struct damon_clock {
	uint64_t	interval_ns;	/* 0: no DAMON model */
	uint64_t	next_ns;	/* end of the current interval */
	uint64_t	tick;		/* intervals ended so far */
	bool		started;
};

/* Does @job's policy model flushed memcg statistics (ops->stats_flush)? */
static bool memcg_asked(const struct hs_replay_job *job)
{
	return job->ops && job->ops->stats_flush;
}

/* Does @job's run ask for the TLB model?  It costs memory and steps only there. */
static bool tlb_asked(const struct hs_replay_job *job)
{
	return job->ops && (job->ops->flags & HS_POLICY_TLB) && job->params &&
	       hs_param_bool(job->params, "tlb");
}

/* Append record index @i to a chunk's grown array @at (*@n used, *@cap allocated). */
static int push_at(uint32_t **at, size_t *n, size_t *cap, size_t i)
{
	uint32_t *t = hs_grow(*at, cap, *n + 1, sizeof(*t), 64);

	if (!t)
		return -ENOMEM;
	*at = t;
	t[(*n)++] = (uint32_t)i;
	return 0;
}

/* Where in a chunk of times ts[0 .. n - 1] DAMON intervals end, into s->tick_at. */
static int chunk_ticks(struct damon_clock *dc, const uint64_t *ts, size_t n, struct slot *s)
{
	s->nr_ticks = 0;
	s->first_tick = dc->tick;
	if (!dc->interval_ns || !n)
		return 0;
	if (!ts)
		return -ENODATA;	/* a recorded session's chunks all have times */
	if (!dc->started) {
		dc->next_ns = ts[0] + dc->interval_ns;
		dc->started = true;
	}
	for (size_t i = 0; i < n; i++) {
		while (ts[i] >= dc->next_ns) {	/* an idle gap may end several */
			if (push_at(&s->tick_at, &s->nr_ticks, &s->tick_cap, i))
				return -ENOMEM;
			dc->next_ns += dc->interval_ns;
			dc->tick++;
		}
	}
	return 0;
}

/* The DAMON region model through a chunk: its actions into s->acts. */
static int chunk_damon(struct pipeline *pl, const uint32_t *keys, const uint8_t *meta,
		       const uint64_t *ts, size_t n, struct slot *s)
{
	s->acts.nr = 0;
	if (!pl->dm || !n)
		return 0;
	if (!ts)
		return -ENODATA;	/* a recorded session's chunks all have times */
	return hs_damon_feed(pl->dm, keys, meta, ts, n, &s->acts);
}

/*
 * Where in a chunk of times ts[0 .. n - 1] the events at times ev[0 .. nr - 1]
 * (ascending: TLB flushes, memcg statistics flushes) fall, into *@at: before
 * the first record at or after each one's time (one entry per record however
 * many fall there; those after the last record change nothing).  *@next is
 * the first event not placed yet.
 */
static int chunk_events(const uint64_t *ev, size_t nr, size_t *next, const uint64_t *ts,
			size_t n, uint32_t **at, size_t *nr_at, size_t *cap)
{
	*nr_at = 0;
	if (!ev || !n)
		return 0;
	if (!ts)
		return -ENODATA;	/* a recorded session's chunks all have times */
	for (size_t i = 0; i < n && *next < nr; i++) {
		if (ev[*next] > ts[i])
			continue;
		while (*next < nr && ev[*next] <= ts[i])
			(*next)++;
		if (push_at(at, nr_at, cap, i))
			return -ENOMEM;
	}
	return 0;
}

/* The chunk's TLB flushes and memcg statistics flushes (chunk_events()). */
static int chunk_flushes(const struct pipeline *pl, size_t next[2], const uint64_t *ts, size_t n,
			 struct slot *s)
{
	int ret = chunk_events(pl->tlb_ts, pl->nr_tlb, &next[0], ts, n, &s->flush_at,
			       &s->nr_flushes, &s->flush_cap);

	if (!ret)
		ret = chunk_events(pl->memcg_ts, pl->nr_memcg, &next[1], ts, n, &s->stats_at,
				   &s->nr_stats, &s->stats_cap);
	return ret;
}

/*
 * The next chunk: from the store, or the next HS_CHUNK_RECORDS records of the
 * stream the pass kept (@kp, with @kmeta a chunk of its meta byte); as
 * hs_session_read_chunk().
 */
static int next_chunk(struct hs_session_reader *r, const struct kept *kp, const uint8_t *kmeta,
		      uint64_t base, uint64_t records, const uint32_t **keys,
		      const uint8_t **meta, size_t *n)
{
	if (!kp->keys)
		return hs_session_read_chunk(r, keys, meta, n);
	if (base >= records)
		return 0;
	*keys = kp->keys + base;
	*meta = kmeta;
	*n = (size_t)HS_MIN(records - base, (uint64_t)HS_CHUNK_RECORDS);
	return 1;
}

/* Read every chunk and hand it to the workers (or step inline with one worker). */
static int pump(struct hs_session_reader *r, const struct kept *kp, struct pipeline *pl,
		struct worker *ws, const struct hs_replay_opts *o, uint64_t records)
{
	struct damon_clock dc = { .interval_ns = pl->damon_draws > 0 ? pl->damon_interval_ns : 0 };
	struct slot inline_slot = { 0 };
	uint64_t c = 0, base = 0;
	size_t next_flush[2] = { 0, 0 };
	const uint32_t *keys;
	const uint8_t *meta;
	uint8_t *kmeta = NULL;
	size_t n;
	int ret;

	if (kp->keys) {
		kmeta = malloc(HS_CHUNK_RECORDS);
		if (!kmeta)
			return -ENOMEM;
		memset(kmeta, kp->meta, HS_CHUNK_RECORDS);
	}
	while ((ret = next_chunk(r, kp, kmeta, base, records, &keys, &meta, &n)) > 0) {
		struct slot *s = &pl->slots[c % RING];
		/* none for a kept stream: no model that reads them runs */
		const uint64_t *ts = kp->keys ? NULL : hs_session_read_times(r);

		if (base + n > records) {
			ret = -EBADMSG;
			break;
		}
		if (!ws) {		/* one worker: no threads, no copies */
			inline_slot.keys = (uint32_t *)keys;
			inline_slot.meta = (uint8_t *)meta;
			inline_slot.n = n;
			inline_slot.base = base;
			ret = chunk_ticks(&dc, ts, n, &inline_slot);
			if (!ret)
				ret = chunk_damon(pl, keys, meta, ts, n, &inline_slot);
			if (!ret)
				ret = chunk_flushes(pl, next_flush, ts, n, &inline_slot);
			if (!ret)
				ret = slot_folios(&inline_slot, pl->fx, ts);
			if (ret)
				break;
			for (size_t j = 0; j < pl->nr_jobs; j++)
				step_chunk(&pl->jobs[j], &inline_slot, pl->next, pl->next_wide,
					   pl->damon_draws, pl->damon_idle);
		} else {
			pthread_mutex_lock(&pl->mu);
			while (s->pending > 0)
				pthread_cond_wait(&pl->drained, &pl->mu);
			pthread_mutex_unlock(&pl->mu);
			ret = slot_fill(s, keys, meta, n, base);
			if (!ret)
				ret = chunk_ticks(&dc, ts, n, s);
			if (!ret)
				ret = chunk_damon(pl, keys, meta, ts, n, s);
			if (!ret)
				ret = chunk_flushes(pl, next_flush, ts, n, s);
			if (!ret)
				ret = slot_folios(s, pl->fx, ts);
			if (ret)
				break;
			pthread_mutex_lock(&pl->mu);
			s->pending = (int)pl->workers;
			pl->produced = c + 1;
			pthread_cond_broadcast(&pl->filled);
			pthread_mutex_unlock(&pl->mu);
		}
		c++;
		base += n;
		if (o->progress)
			o->progress(o->progress_arg, base, records);
		if (o->stop && *o->stop) {
			ret = -EINTR;
			break;
		}
	}
	if (ret == 0 && base != records)
		ret = -EBADMSG;
	free(kmeta);
	free(inline_slot.tick_at);
	hs_damon_acts_free(&inline_slot.acts);
	free(inline_slot.flush_at);
	free(inline_slot.stats_at);
	free(inline_slot.folio);
	return ret;
}

int hs_replay_session(struct hs_store *st, int64_t session, struct hs_replay_job *jobs,
		      size_t n, const struct hs_replay_opts *opts)
{
	static const struct hs_replay_opts defaults;
	const struct hs_replay_opts *o = opts ? opts : &defaults;
	struct hs_session_reader *r = NULL;
	struct hs_neigh *neigh = NULL;
	uint64_t reclaim_max = 0;
	struct hs_session_info info;
	struct pipeline pl = { 0 };
	struct worker *ws = NULL;
	void *next = NULL;
	uint64_t *tlb_ts = NULL, *memcg_ts = NULL;
	uint32_t tlb_entries = 0;
	uint32_t *seq_keys = NULL;
	struct kept kept = { 0 };
	bool need_future = false;
	unsigned int started = 0;
	size_t live = 0, j;
	int ret;

	ret = hs_session_get(st, session, &info);
	if (ret)
		return ret;
	if (info.distinct_keys >= UINT32_MAX)
		return -EOVERFLOW;

	/*
	 * The keys' real addresses, for the kernel models' look-around: loaded
	 * only when a model that reads accessed bits runs (a recorded session
	 * has them; others have none and get NULL).
	 */
	for (j = 0; j < n; j++)
		if (jobs[j].ops && (jobs[j].ops->flags & HS_POLICY_ACCESSED_BIT))
			break;
	if (j < n || o->ra_model) {	/* and the model's readahead: its file neighbours */
		ret = hs_session_neigh(st, session, (uint32_t)info.distinct_keys, &neigh);
		if (ret)
			return ret;
	}
	/*
	 * How an MGLRU kernel's reclaims ran (hs_policy_env.memcg_reclaim_max),
	 * for the models whose one reclaim may free far more than it needs:
	 * the MGLRU ones, which read from it which loop to run.
	 */
	for (j = 0; j < n; j++)
		if (jobs[j].ops && (jobs[j].ops->flags & HS_POLICY_BULK_RECLAIM))
			break;
	if (j < n) {
		ret = hs_session_memcg_reclaim_max(st, session, &reclaim_max);
		if (ret) {
			hs_neigh_free(neigh);
			return ret;
		}
	}
	for (j = 0; o->folios && j < n; j++)	/* only the policies that count pages use it */
		if (jobs[j].ops && hs_policy_folio_pages(jobs[j].ops))
			break;
	if (o->folios && j < n) {
		ret = hs_folio_index_load(st, session, (uint32_t)info.distinct_keys, &pl.fx);
		if (ret) {
			hs_neigh_free(neigh);
			return ret;
		}
	}

	/*
	 * The TLB model (lib/sim.c): for the runs that ask for it (a policy that
	 * reads it, its tlb parameter on), when the session carries the
	 * workload's TLB events and the caller wants it.
	 */
	for (j = 0; j < n; j++)
		if (tlb_asked(&jobs[j]))
			break;
	if (j < n && !o->no_tlb) {
		ret = hs_session_tlb_flushes(st, session, &tlb_ts, &pl.nr_tlb, &tlb_entries);
		if (ret && ret != -ENODATA) {
			hs_neigh_free(neigh);
			hs_folio_index_free(pl.fx);
			return ret;
		}
		pl.tlb = !ret;
		pl.tlb_ts = tlb_ts;
		if (o->tlb_entries)
			tlb_entries = o->tlb_entries;
		ret = 0;
	}

	/*
	 * The memory cgroup's statistics flushes, for the policies that model
	 * them (linux-2q), where the recording has them (6.13 and later).
	 */
	for (j = 0; j < n; j++)
		if (memcg_asked(&jobs[j]))
			break;
	if (j < n) {
		ret = hs_session_memcg_flushes(st, session, &memcg_ts, &pl.nr_memcg);
		if (ret && ret != -ENODATA) {
			hs_neigh_free(neigh);
			hs_folio_index_free(pl.fx);
			free(tlb_ts);
			return ret;
		}
		pl.memcg = !ret;
		pl.memcg_ts = memcg_ts;
		ret = 0;
	}

	for (j = 0; j < n; j++) {
		struct hs_sim_config cfg = {
			.ops = jobs[j].ops, .params = jobs[j].params,
			.capacity = jobs[j].capacity, .nr_keys = (uint32_t)info.distinct_keys,
			.batch_max = o->batch_max, .paranoid = o->paranoid,
			.override_channel = o->override_channel,
			.channel = (uint8_t)o->channel,
			/* out of range: UINT8_MAX, which hs_sim_new() refuses */
			.pageout = o->pageout >= 0 && o->pageout < HS_PAGEOUT_NR ?
				   (uint8_t)o->pageout : UINT8_MAX,
			.recheck_window = o->recheck_window,
			.no_readahead = o->no_readahead,
			.ra_model = o->ra_model,
			.nr_folios = hs_folio_index_count(pl.fx),
			.neigh = neigh,
			.no_prefetch = o->no_prefetch,
			.damon = o->damon_deprio > 0 || o->damon_regions,
			.tlb = pl.tlb && tlb_asked(&jobs[j]),
			.tlb_entries = tlb_entries == UINT32_MAX ? 0 : tlb_entries,
			.memcg_flushes = pl.memcg && memcg_asked(&jobs[j]),
			.memcg_reclaim_max = reclaim_max,
			.on_evict = jobs[j].evlog ? hs_evlog_add : NULL,
			.evict_arg = jobs[j].evlog,
		};

		jobs[j].sim = NULL;
		jobs[j].wall_s = 0;
		jobs[j].gens = NULL;
		jobs[j].nr_gens = 0;
		jobs[j].err = hs_sim_new(&cfg, &jobs[j].sim);
		if (jobs[j].err)
			continue;
		live++;
		if (jobs[j].ops->flags & HS_POLICY_NEEDS_FUTURE)
			need_future = true;
	}

	/* the keys by access, for the offline runs that asked (filled before any step) */
	for (j = 0; j < n; j++)
		if (jobs[j].sim && !jobs[j].err && hs_sim_wants_seq_keys(jobs[j].sim))
			break;
	if (j < n) {
		seq_keys = hs_huge_alloc(next_use_bytes(info.records, sizeof(*seq_keys)));
		if (!seq_keys) {
			ret = -ENOMEM;
			goto out;
		}
		for (; j < n; j++)
			if (jobs[j].sim && !jobs[j].err && hs_sim_wants_seq_keys(jobs[j].sim))
				hs_sim_set_seq_keys(jobs[j].sim, seq_keys, info.records);
	}

	ret = hs_session_read_open(st, session, &r);
	if (ret)
		goto out;
	if (need_future) {
		/* the models that read the records' times read the store again */
		bool keep = !o->damon_regions && !(o->damon_deprio > 0) && !pl.tlb_ts &&
			    !pl.memcg_ts && !pl.fx;

		ret = fill_next_use(r, info.records, (uint32_t)info.distinct_keys, seq_keys,
				    keep, !o->reread_stream, &next, &kept);
		if (ret)
			goto out;
	}

	if (o->damon_regions) {
		struct hs_damon_attrs over = { .cold_min_age_ns = o->damon_min_age_ns,
					       .quota_bytes = o->damon_quota_bytes,
					       .slowdown = o->damon_pace,
					       .recorded = o->damon_recorded };

		ret = hs_damon_load(st, session, (uint32_t)info.distinct_keys, &over, &pl.dm);
		if (ret)
			goto out;
	} else if (o->damon_deprio > 0) {
		uint64_t iv = o->damon_interval_ns ?: HS_DAMON_INTERVAL_NS;

		pl.damon_interval_ns = iv;
		/* draws per interval: the chance per resident key times the key space */
		pl.damon_draws = o->damon_deprio * (double)iv / 1e9 * (double)info.distinct_keys;
		pl.damon_idle = (uint32_t)HS_MIN((o->damon_min_age_ns + iv - 1) / iv,
						 (uint64_t)HS_DAMON_MAX_IDLE);
	}
	pl.next = next;
	pl.next_wide = next_use_width(info.records) == sizeof(uint64_t);
	pl.jobs = jobs;
	pl.nr_jobs = n;
	pl.workers = pick_workers(o, live);
	if (pl.workers > 1) {
		ws = calloc(pl.workers, sizeof(*ws));
		if (!ws) {
			ret = -ENOMEM;
			goto out;
		}
		pthread_mutex_init(&pl.mu, NULL);
		pthread_cond_init(&pl.filled, NULL);
		pthread_cond_init(&pl.drained, NULL);
		for (started = 0; started < pl.workers; started++) {
			ws[started].pl = &pl;
			ws[started].index = started;
			if (pthread_create(&ws[started].tid, NULL, worker_main, &ws[started]))
				break;
		}
		if (started < pl.workers) {
			/* Fewer threads than planned: let the started ones see eof at once. */
			pthread_mutex_lock(&pl.mu);
			pl.eof = true;
			pthread_cond_broadcast(&pl.filled);
			pthread_mutex_unlock(&pl.mu);
			ret = -EAGAIN;
		}
	}

	if (ret == 0)
		ret = pump(r, &kept, &pl, ws, o, info.records);

	if (ws) {
		pthread_mutex_lock(&pl.mu);
		pl.eof = true;
		pthread_cond_broadcast(&pl.filled);
		pthread_mutex_unlock(&pl.mu);
		for (unsigned int w = 0; w < started; w++)
			pthread_join(ws[w].tid, NULL);
		pthread_cond_destroy(&pl.filled);
		pthread_cond_destroy(&pl.drained);
		pthread_mutex_destroy(&pl.mu);
		for (unsigned int s = 0; s < RING; s++) {
			free(pl.slots[s].keys);
			free(pl.slots[s].meta);
			free(pl.slots[s].tick_at);
			hs_damon_acts_free(&pl.slots[s].acts);
			free(pl.slots[s].flush_at);
			free(pl.slots[s].stats_at);
			free(pl.slots[s].folio);
		}
	}

	if (pl.dm && o->damon_stats && ret == 0)
		hs_damon_get_stats(pl.dm, o->damon_stats);
	for (j = 0; j < n && ret == 0; j++) {
		const void *g;
		size_t ng, size;

		if (!jobs[j].sim || jobs[j].err)
			continue;
		hs_sim_finish(jobs[j].sim, &jobs[j].stats, &jobs[j].metrics);
		ng = hs_sim_series(jobs[j].sim, &g, &size);
		/* the only series the store keeps: generations, by the policy's word */
		if (ng && (jobs[j].ops->flags & HS_POLICY_GEN_SERIES)) {
			if (size != sizeof(*jobs[j].gens)) {
				jobs[j].err = -EUCLEAN;
				continue;
			}
			jobs[j].gens = malloc(ng * size);
			if (!jobs[j].gens) {
				jobs[j].err = -ENOMEM;
				continue;
			}
			memcpy(jobs[j].gens, g, ng * size);
			jobs[j].nr_gens = ng;
		}
	}
out:
	for (j = 0; j < n; j++) {
		hs_sim_free(jobs[j].sim);
		jobs[j].sim = NULL;
	}
	free(ws);
	hs_huge_free(next, next_use_bytes(info.records, next_use_width(info.records)));
	kept_free(&kept, info.records);
	hs_huge_free(seq_keys, next_use_bytes(info.records, sizeof(*seq_keys)));
	hs_session_read_close(r);
	hs_neigh_free(neigh);
	free(tlb_ts);
	free(memcg_ts);
	hs_folio_index_free(pl.fx);
	hs_damon_free(pl.dm);
	return ret;
}
