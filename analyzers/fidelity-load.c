/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's side of a fidelity comparison, read from a recorded session:
 * its access stream with the times the recorder stored (encoding 2), its
 * folio lives cut into pages (lib/store-fid.c), and its lost-event gaps,
 * all placed on the stream's access axis.  A kernel event at time t sits at
 * the position "accesses recorded before t", the same axis the driver's
 * eviction log uses ("accesses before the record that caused it"), so a
 * reclaim and a model's eviction between the same two accesses compare as
 * simultaneous.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "codec.h"
#include "evlog.h"
#include "fidelity.h"
#include "folios.h"
#include "hs.h"
#include "life.h"
#include "replay.h"
#include "store.h"

/* Accesses recorded strictly before @t: lower bound in the sorted times. */
static uint64_t position_of(const uint64_t *ts, uint64_t n, uint64_t t)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_event(const void *a, const void *b)
{
	const struct hs_fid_event *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Original id -> dense id, through a sorted copy of the id table. */
struct id_pair {
	uint64_t	orig;
	uint32_t	dense;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct id_pair *x = a, *y = b;

	return x->orig < y->orig ? -1 : x->orig > y->orig;
}

static bool dense_of(const struct id_pair *p, size_t n, uint64_t orig, uint32_t *dense)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].orig < orig)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && p[lo].orig == orig) {
		*dense = p[lo].dense;
		return true;
	}
	return false;
}

/* The stream's accesses and their times. */
static int load_stream(struct hs_store *st, int64_t session, struct hs_fid_kernel *k,
		       uint64_t **acc_ts, const char **why)
{
	struct hs_session_reader *r = NULL;
	uint32_t *keys = NULL;
	uint8_t *meta = NULL;
	uint64_t *ts = NULL, n = 0;
	int64_t got;
	int err;

	err = hs_session_read_open(st, session, &r);
	if (err)
		return err;
	got = hs_session_read_all_ts(r, &keys, &meta, &ts);
	hs_session_read_close(r);
	if (got < 0)
		return (int)got;
	if (!ts) {
		*why = "its stream has no times (recorded before hsctl stored them): record it again";
		err = -EMEDIUMTYPE;
		goto out;
	}
	for (int64_t i = 0; i < got; i++) {
		if (!hs_channel_is_access(hs_meta_channel(meta[i])))
			continue;
		keys[n] = keys[i];
		ts[n] = ts[i];
		n++;
	}
	k->stream = keys;
	k->length = n;
	*acc_ts = ts;
	keys = NULL;
	ts = NULL;
out:
	free(keys);
	free(meta);
	free(ts);
	return err;
}

static int push(struct hs_fid_event **a, size_t *n, size_t *cap, uint64_t pos, uint32_t key)
{
	struct hs_fid_event *grown = hs_grow(*a, cap, *n + 1, sizeof(**a), 1024);

	if (!grown)
		return -ENOMEM;
	*a = grown;
	(*a)[*n].pos = pos;
	(*a)[*n].key = key;
	(*n)++;
	return 0;
}

/* Lives -> page events on the access axis. */
static int load_pages(struct hs_store *st, int64_t session, struct hs_fid_kernel *k,
		      const uint64_t *acc_ts)
{
	struct hs_rec_page *pg = NULL;
	struct id_pair *pairs = NULL;
	uint64_t *ids = NULL, nids = 0;
	size_t npg = 0, cap_r = 0, cap_i = 0, cap_o = 0;
	int err;

	err = hs_session_key_ids(st, session, &ids, &nids);
	if (err)
		return err;
	if (nids > UINT32_MAX) {
		free(ids);
		return -EBADMSG;
	}
	k->nr_keys = (uint32_t)nids;
	pairs = malloc(nids * sizeof(*pairs));
	if (!pairs) {
		free(ids);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < nids; i++) {
		pairs[i].orig = ids[i];
		pairs[i].dense = (uint32_t)i;
	}
	free(ids);
	qsort(pairs, nids, sizeof(*pairs), cmp_pair);

	err = hs_rec_pages(st, session, &pg, &npg, &k->unkeyed_pages);
	for (size_t i = 0; !err && i < npg; i++) {
		uint32_t key;
		uint64_t in, out;

		if (!dense_of(pairs, nids, pg[i].key, &key)) {
			k->unkeyed_pages++;
			continue;
		}
		in = pg[i].born_ns ? position_of(acc_ts, k->length, pg[i].born_ns) : 0;
		err = push(&k->ins, &k->n_ins, &cap_i, in, key);
		if (err || pg[i].cause == HS_DEATH_NONE)
			continue;
		out = position_of(acc_ts, k->length, pg[i].died_ns);
		err = push(&k->outs, &k->n_outs, &cap_o, out, key);
		if (!err && (pg[i].cause == HS_DEATH_RECLAIM || pg[i].cause == HS_DEATH_PAGEOUT))
			err = push(&k->reclaims, &k->n_reclaims, &cap_r, out, key);
	}
	free(pg);
	free(pairs);
	if (err)
		return err;
	qsort(k->ins, k->n_ins, sizeof(*k->ins), cmp_event);
	qsort(k->outs, k->n_outs, sizeof(*k->outs), cmp_event);
	qsort(k->reclaims, k->n_reclaims, sizeof(*k->reclaims), cmp_event);
	return 0;
}

/* Gaps -> merged position ranges [lower(start), upper(end)). */
static int load_gaps(struct hs_store *st, int64_t session, struct hs_fid_kernel *k,
		     const uint64_t *acc_ts)
{
	struct hs_rec_gap *g = NULL;
	size_t n = 0, m = 0;
	int err;

	err = hs_rec_gaps(st, session, &g, &n);
	if (err || !n)
		return err;
	k->gaps = malloc(n * sizeof(*k->gaps));
	if (!k->gaps) {
		free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t a = position_of(acc_ts, k->length, g[i].start_ns);
		uint64_t b = position_of(acc_ts, k->length, g[i].end_ns + 1);

		if (b <= a)
			b = a + 1;
		if (m && a <= k->gaps[m - 1].end) {
			if (b > k->gaps[m - 1].end)
				k->gaps[m - 1].end = b;
			continue;
		}
		k->gaps[m].start = a;
		k->gaps[m].end = b;
		m++;
	}
	free(g);
	k->n_gaps = m;
	for (size_t i = 0; i < m; i++)
		k->gap_positions += k->gaps[i].end - k->gaps[i].start;
	return 0;
}

int hs_fid_kernel_load(struct hs_store *st, int64_t session, struct hs_fid_kernel *k,
		       const char **why)
{
	struct hs_session_info info;
	uint64_t *acc_ts = NULL;
	int err;

	memset(k, 0, sizeof(*k));
	*why = NULL;
	err = hs_session_get(st, session, &info);
	if (err)
		return err;
	if (strcmp(info.source, "record")) {
		*why = strcmp(info.source, "gen") ? "an imported trace has no kernel truth" :
		       "a generated trace has no kernel truth";
		return -EMEDIUMTYPE;
	}
	k->memory_limit_pages = info.memory_limit_pages;
	err = load_stream(st, session, k, &acc_ts, why);
	if (!err)
		err = load_pages(st, session, k, acc_ts);
	if (!err)
		err = load_gaps(st, session, k, acc_ts);
	free(acc_ts);
	if (err)
		hs_fid_kernel_free(k);
	return err;
}

void hs_fid_kernel_free(struct hs_fid_kernel *k)
{
	free(k->stream);
	free(k->reclaims);
	free(k->ins);
	free(k->outs);
	free(k->gaps);
	memset(k, 0, sizeof(*k));
}

/* A run's log, decoded into events. */
static int decode_log(const struct hs_evlog *log, struct hs_fid_event **out, size_t *n_out)
{
	struct hs_fid_event *ev = malloc((log->total ? log->total : 1) * sizeof(*ev));
	uint64_t *pos = malloc(HS_EVLOG_CHUNK * sizeof(*pos));
	uint32_t *keys = malloc(HS_EVLOG_CHUNK * sizeof(*keys));
	uint8_t *hinted = malloc(HS_EVLOG_CHUNK);
	size_t k = 0;
	int err = 0;

	if (!ev || !pos || !keys || !hinted) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < log->nr_chunks && !err; c++) {
		const struct hs_evlog_chunk *ch = &log->chunks[c];

		if (ch->nr > HS_EVLOG_CHUNK || k + ch->nr > log->total) {
			err = -EBADMSG;
			break;
		}
		err = hs_codec_evict_decode(ch->data, ch->len, ch->encoding, ch->first_pos, ch->nr,
					    pos, keys, hinted, NULL);
		for (uint32_t i = 0; !err && i < ch->nr; i++) {
			ev[k].pos = pos[i];
			ev[k].key = keys[i];
			k++;
		}
	}
out:
	free(pos);
	free(keys);
	free(hinted);
	if (err) {
		free(ev);
		return err;
	}
	*out = ev;
	*n_out = k;
	return 0;
}

int hs_fid_replay_evictions(struct hs_store *st, int64_t session,
			    const struct hs_policy_ops *const *ops,
			    const struct hs_param_set *const *params, size_t n, uint64_t capacity,
			    struct hs_fid_event **ev, size_t *n_ev, struct hs_sim_stats *stats)
{
	struct hs_replay_job *jobs = calloc(n ? n : 1, sizeof(*jobs));
	int err = 0;

	if (!jobs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		ev[i] = NULL;
		n_ev[i] = 0;
		jobs[i].ops = ops[i];
		jobs[i].params = params ? params[i] : NULL;
		jobs[i].capacity = capacity;
		if (!err)
			err = hs_evlog_new(&jobs[i].evlog);
	}
	if (!err) {
		/* as hsctl replay by default: a recorded kernel's large folios are one entity */
		struct hs_replay_opts ro = { .folios = hs_session_large_folios(st, session) > 0 };

		err = hs_replay_session(st, session, jobs, n, &ro);
	}
	for (size_t i = 0; !err && i < n; i++) {
		err = jobs[i].err;
		if (!err)
			err = hs_evlog_finish(jobs[i].evlog);
		if (!err)
			err = decode_log(jobs[i].evlog, &ev[i], &n_ev[i]);
		if (!err && stats)
			stats[i] = jobs[i].stats;
	}
	for (size_t i = 0; i < n; i++) {
		hs_evlog_free(jobs[i].evlog);
		free(jobs[i].gens);
		if (err) {
			free(ev[i]);
			ev[i] = NULL;
			n_ev[i] = 0;
		}
	}
	free(jobs);
	return err;
}
