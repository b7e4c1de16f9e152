/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `hsctl fidelity` reads of a session beyond its stream, and stores:
 * the original ids of its keys in dense order, the kernel's truth page by
 * page (every life of the recorded folios, cut into the pages the stream
 * names, with its birth, death and cause), and the fidelity rows.
 *
 * Lives name folios (kind, dev, ino, tgid, first page, pages); the stream
 * names pages by the key table record_keys.  The join is done here in C, by
 * binary search in the key table sorted by identity: SQL would need an
 * index it does not have and a range join per life.  Kept beside lib/store.c
 * through lib/store-int.h, as lib/store-rec.c and lib/store-mrc.c are.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "event.h"
#include "hs.h"
#include "keymap.h"
#include "life.h"
#include "neigh.h"
#include "store-int.h"

/**
 * hs_session_key_ids() - the original ids of a session's keys, dense order
 * @st: the store
 * @session: session id
 * @ids: receives a malloc'd array: (*ids)[dense id] is the original id
 * @n: receives its length (the session's distinct keys)
 *
 * Return: 0, -ENOENT (no keys stored for it), -EBADMSG (a corrupt or
 * missing key chunk), -ENOMEM or another -errno.
 */
int hs_session_key_ids(struct hs_store *st, int64_t session, uint64_t **ids, uint64_t *n)
{
	sqlite3_stmt *s = NULL;
	uint64_t *out = NULL, *grown;
	size_t have = 0, cap = 0;
	const char *why = NULL;
	int err = 0, rc;

	*ids = NULL;
	*n = 0;
	rc = sqlite3_prepare_v2(st->db, "SELECT chunk_no, first_key, nr_keys, encoding, data"
				" FROM session_keys WHERE session = ?1 ORDER BY chunk_no",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(s, 1), nr = sqlite3_column_int64(s, 2);
		int64_t enc = sqlite3_column_int64(s, 3);

		if (first != (int64_t)have || nr <= 0 || nr > (int64_t)HS_KEY_CHUNK_IDS ||
		    enc < 0 || enc > 255) {
			err = store_err(st, -EBADMSG, "session %lld: key chunk %lld is corrupt",
					(long long)session, (long long)sqlite3_column_int64(s, 0));
			goto out;
		}
		grown = hs_grow(out, &cap, have + (size_t)nr, sizeof(*out), HS_KEY_CHUNK_IDS);
		if (!grown) {
			err = store_err(st, -ENOMEM, "out of memory");
			goto out;
		}
		out = grown;
		if (hs_codec_ids_decode(sqlite3_column_blob(s, 4),
					(size_t)sqlite3_column_bytes(s, 4), (unsigned int)enc,
					(size_t)nr, out + have, &why)) {
			err = store_err(st, -EBADMSG, "session %lld: key chunk %lld: %s",
					(long long)session, (long long)sqlite3_column_int64(s, 0),
					why ? why : "corrupt");
			goto out;
		}
		have += (size_t)nr;
	}
	if (rc != SQLITE_DONE) {
		err = store_sql_err(st, rc);
		goto out;
	}
	if (!have) {
		err = store_err(st, -ENOENT, "session %lld has no keys", (long long)session);
		goto out;
	}
	*ids = out;
	*n = have;
	out = NULL;
out:
	sqlite3_finalize(s);
	free(out);
	return err;
}

/* One record_keys row, by identity. */
struct rkey {
	uint64_t	kind, dev, ino, tgid, page;
	uint64_t	key;
};

static int rkey_cmp(const struct rkey *a, const struct rkey *b)
{
	const uint64_t x[5] = { a->kind, a->dev, a->ino, a->tgid, a->page };
	const uint64_t y[5] = { b->kind, b->dev, b->ino, b->tgid, b->page };

	for (int i = 0; i < 5; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static int rkey_qsort(const void *a, const void *b)
{
	return rkey_cmp(a, b);
}

static bool same_object(const struct rkey *a, const struct rkey *b)
{
	return a->kind == b->kind && a->dev == b->dev && a->ino == b->ino && a->tgid == b->tgid;
}

/* The key table of @session, sorted by identity. */
static int load_rkeys(struct hs_store *st, int64_t session, struct rkey **out, size_t *n)
{
	sqlite3_stmt *s = NULL;
	struct rkey *k = NULL;
	size_t have = 0, cap = 0;
	int err = 0, rc;

	rc = sqlite3_prepare_v2(st->db, "SELECT key, kind, ifnull(dev, 0), ifnull(ino, 0),"
				" ifnull(tgid, 0), page FROM record_keys WHERE session = ?1",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct rkey *grown = hs_grow(k, &cap, have + 1, sizeof(*k), 4096);

		if (!grown) {
			err = store_err(st, -ENOMEM, "out of memory");
			goto out;
		}
		k = grown;
		k[have].key = (uint64_t)sqlite3_column_int64(s, 0);
		k[have].kind = (uint64_t)sqlite3_column_int64(s, 1);
		k[have].dev = (uint64_t)sqlite3_column_int64(s, 2);
		k[have].ino = (uint64_t)sqlite3_column_int64(s, 3);
		k[have].tgid = (uint64_t)sqlite3_column_int64(s, 4);
		k[have].page = (uint64_t)sqlite3_column_int64(s, 5);
		have++;
	}
	if (rc != SQLITE_DONE)
		err = store_sql_err(st, rc);
out:
	sqlite3_finalize(s);
	if (err) {
		free(k);
		return err;
	}
	if (have)
		qsort(k, have, sizeof(*k), rkey_qsort);
	*out = k;
	*n = have;
	return 0;
}

/* Index of the first entry not less than @x. */
static size_t rkey_lower(const struct rkey *k, size_t n, const struct rkey *x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rkey_cmp(&k[mid], x) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * hs_session_neigh() - the real addresses of a recorded session's keys
 * @st: the store
 * @session: session id
 * @nr_keys: the session's distinct keys (dense ids are below this)
 * @out: receives the neighbour index (lib/neigh.h), or NULL when the session
 *	 has no key table (generated, imported, or recorded before record_keys)
 *
 * An anonymous page's space is its process (tgid: one mm per process), a file
 * or block-device page's its file (kind, dev, ino); the page number is the
 * virtual page or the file index.  Keys of the stream that the key table
 * does not name have no address.
 *
 * Return: 0, -EBADMSG (a key chunk is corrupt, or the key chunks name other
 * than @nr_keys keys), -ENOMEM or another -errno.
 */
int hs_session_neigh(struct hs_store *st, int64_t session, uint32_t nr_keys,
		     struct hs_neigh **out)
{
	struct hs_keymap *km = NULL;
	struct hs_neigh *nb = NULL;
	struct rkey *k = NULL;
	uint64_t *ids = NULL, n = 0;
	uint32_t space = HS_NEIGH_NONE;
	size_t have = 0, i;
	int err;

	*out = NULL;
	err = load_rkeys(st, session, &k, &have);
	if (err || !have)
		return err;
	err = hs_session_key_ids(st, session, &ids, &n);
	if (err == -ENOENT) {
		err = 0;		/* an empty stream: nothing to place */
		goto out;
	}
	if (err)
		goto out;
	if (n != nr_keys) {
		err = store_err(st, -EBADMSG, "session %lld: %llu keys in its key chunks, %lu in"
				" its stream", (long long)session, (unsigned long long)n,
				(unsigned long)nr_keys);
		goto out;
	}
	err = hs_keymap_new((size_t)n, &km);
	if (!err)
		err = hs_neigh_new(nr_keys, &nb);
	if (err) {
		err = store_err(st, err, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint32_t id;

		if (hs_keymap_add(km, ids[i], &id) < 0) {
			err = store_err(st, -ENOMEM, "out of memory");
			goto out;
		}
	}
	/* sorted by identity: one space per run of the same object */
	for (i = 0; i < have; i++) {
		uint32_t id;

		if (!i || !same_object(&k[i - 1], &k[i]))
			space++;
		if (hs_keymap_lookup(km, k[i].key, &id) && id < nr_keys)
			hs_neigh_set(nb, id, space, k[i].page);
	}
	if (hs_neigh_finish(nb)) {
		err = store_err(st, -ENOMEM, "out of memory");
		goto out;
	}
	*out = nb;
	nb = NULL;
out:
	hs_neigh_free(nb);
	hs_keymap_free(km);
	free(ids);
	free(k);
	return err;
}

/**
 * hs_rec_pages() - the kernel's truth page by page: every life cut into pages
 * @st: the store
 * @session: a recorded session
 * @out: receives a malloc'd array, in life order and page order within a life
 * @n: receives its length
 * @unkeyed: receives the pages of lives that no key of the stream names (a
 *	     page the workload never accessed, not even by readahead), which
 *	     are left out
 *
 * Return: 0, -ENOENT (not a recorded session: no lives and no keys),
 * -EBADMSG (a life of more than 2^HS_LC_MAX_ORDER pages), -ENOMEM or
 * another -errno.
 */
int hs_rec_pages(struct hs_store *st, int64_t session, struct hs_rec_page **out, size_t *n,
		 uint64_t *unkeyed)
{
	struct hs_rec_page *pg = NULL;
	struct rkey *keys = NULL;
	sqlite3_stmt *s = NULL;
	size_t nk = 0, have = 0, cap = 0;
	int err, rc;

	*out = NULL;
	*n = 0;
	*unkeyed = 0;
	err = load_rkeys(st, session, &keys, &nk);
	if (err)
		return err;
	if (!nk) {
		free(keys);
		return store_err(st, -ENOENT, "session %lld has no recorded key table",
				 (long long)session);
	}
	rc = sqlite3_prepare_v2(st->db, "SELECT kind, ifnull(dev, 0), ifnull(ino, 0),"
				" ifnull(tgid, 0), first_page, pages, ifnull(born_ns, 0),"
				" ifnull(died_ns, 0), death_cause, flags, life, pfn"
				" FROM folio_lives WHERE session = ?1 ORDER BY life", -1, &s, NULL);
	if (rc != SQLITE_OK) {
		err = store_sql_err(st, rc);
		goto out;
	}
	sqlite3_bind_int64(s, 1, session);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct rkey want = {
			.kind = (uint64_t)sqlite3_column_int64(s, 0),
			.dev = (uint64_t)sqlite3_column_int64(s, 1),
			.ino = (uint64_t)sqlite3_column_int64(s, 2),
			.tgid = (uint64_t)sqlite3_column_int64(s, 3),
			.page = (uint64_t)sqlite3_column_int64(s, 4),
		};
		int64_t pages = sqlite3_column_int64(s, 5);
		uint64_t end = want.page + (uint64_t)pages, found = 0;
		size_t i;

		if (pages <= 0 || pages > (1 << HS_LC_MAX_ORDER) || end < want.page) {
			err = store_err(st, -EBADMSG, "session %lld: a life of %lld pages",
					(long long)session, (long long)pages);
			goto out;
		}
		for (i = rkey_lower(keys, nk, &want);
		     i < nk && same_object(&keys[i], &want) && keys[i].page < end; i++) {
			struct hs_rec_page *grown = hs_grow(pg, &cap, have + 1, sizeof(*pg), 4096);

			if (!grown) {
				err = store_err(st, -ENOMEM, "out of memory");
				goto out;
			}
			pg = grown;
			pg[have].key = keys[i].key;
			pg[have].born_ns = (uint64_t)sqlite3_column_int64(s, 6);
			pg[have].died_ns = (uint64_t)sqlite3_column_int64(s, 7);
			pg[have].cause = (uint8_t)sqlite3_column_int(s, 8);
			pg[have].flags = (uint8_t)sqlite3_column_int(s, 9);
			pg[have].pages = (uint32_t)pages;
			pg[have].life = sqlite3_column_int64(s, 10);
			pg[have].pfn = sqlite3_column_type(s, 11) == SQLITE_NULL ? UINT64_MAX :
				       (uint64_t)sqlite3_column_int64(s, 11) +
				       (keys[i].page - want.page);
			have++;
			found++;
		}
		*unkeyed += (uint64_t)pages - found;
	}
	if (rc != SQLITE_DONE) {
		err = store_sql_err(st, rc);
		goto out;
	}
	*out = pg;
	*n = have;
	pg = NULL;
out:
	sqlite3_finalize(s);
	free(keys);
	free(pg);
	return err;
}

/**
 * hs_rec_gaps() - the lost-event gaps of a recorded session
 * @st: the store
 * @session: the session
 * @out: receives a malloc'd array (NULL when there are none)
 * @n: receives its length
 *
 * A loss marker (HS_EV_LOST) says events were lost on its CPU since the
 * previous event kept there; the gap runs from that event (or from the
 * session's first event) to the marker.
 *
 * Return: 0, -ENOMEM or another -errno.
 */
int hs_rec_gaps(struct hs_store *st, int64_t session, struct hs_rec_gap **out, size_t *n)
{
	sqlite3_stmt *s = NULL;
	struct hs_rec_gap *g = NULL;
	size_t have = 0, cap = 0;
	int err = 0, rc;

	*out = NULL;
	*n = 0;
	rc = sqlite3_prepare_v2(st->db,
				"SELECT ifnull((SELECT max(p.ts_ns) FROM events p WHERE"
				" p.session = e.session AND p.cpu = e.cpu AND p.seq < e.seq AND"
				" p.type != ?2), (SELECT min(f.ts_ns) FROM events f WHERE"
				" f.session = e.session)), e.ts_ns FROM events e"
				" WHERE e.session = ?1 AND e.type = ?2 ORDER BY 1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	sqlite3_bind_int(s, 2, HS_EV_LOST);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct hs_rec_gap *grown = hs_grow(g, &cap, have + 1, sizeof(*g), 16);

		if (!grown) {
			err = store_err(st, -ENOMEM, "out of memory");
			goto out;
		}
		g = grown;
		g[have].start_ns = (uint64_t)sqlite3_column_int64(s, 0);
		g[have].end_ns = (uint64_t)sqlite3_column_int64(s, 1);
		if (g[have].start_ns > g[have].end_ns)
			g[have].start_ns = g[have].end_ns;
		have++;
	}
	if (rc != SQLITE_DONE)
		err = store_sql_err(st, rc);
out:
	sqlite3_finalize(s);
	if (err) {
		free(g);
		return err;
	}
	*out = g;
	*n = have;
	return 0;
}

/**
 * hs_rec_kernel() - the kernel a session was recorded on
 * @st: the store
 * @session: the session
 * @release: receives uname -r ("" when unknown)
 * @len_release: its size
 * @lru_gen: receives /sys/kernel/mm/lru_gen/enabled as recorded, or "absent"
 * @len_lru_gen: its size
 *
 * Return: 0, -ENOENT (not a recorded session) or another -errno.
 */
int hs_rec_kernel(struct hs_store *st, int64_t session, char *release, size_t len_release,
		  char *lru_gen, size_t len_lru_gen)
{
	sqlite3_stmt *s = NULL;
	int err = 0, rc;

	rc = sqlite3_prepare_v2(st->db, "SELECT ifnull(kernel, ''), ifnull(lru_gen, 'absent')"
				" FROM recordings WHERE session = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(release, len_release, "%s", (const char *)sqlite3_column_text(s, 0));
		snprintf(lru_gen, len_lru_gen, "%s", (const char *)sqlite3_column_text(s, 1));
	} else if (rc == SQLITE_DONE) {
		err = store_err(st, -ENOENT, "session %lld is not a recording", (long long)session);
	} else {
		err = store_sql_err(st, rc);
	}
	sqlite3_finalize(s);
	return err;
}

static void bind_real(sqlite3_stmt *s, int col, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, col);
	else
		sqlite3_bind_double(s, col, v);
}

static void bind_total(sqlite3_stmt *s, int col, bool known, uint64_t v)
{
	if (known)
		sqlite3_bind_int64(s, col, (int64_t)v);
	else
		sqlite3_bind_null(s, col);
}

/**
 * hs_store_save_fidelity() - store fidelity rows in one transaction
 * @st: the store (not read-only)
 * @rows: the rows
 * @n: their number
 * @ids: receives row i's id in ids[i] (may be NULL)
 *
 * Return: 0, or -errno with nothing stored (-EPERM on a read-only store,
 * -EBUSY inside another write, -EINVAL for a row without a policy).
 */
int hs_store_save_fidelity(struct hs_store *st, const struct hs_fid_record *rows, size_t n,
			   int64_t *ids)
{
	sqlite3_stmt *s = NULL;
	int err = 0, rc;

	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	if (st->writing)
		return store_err(st, -EBUSY, "another write is in progress");
	for (size_t i = 0; i < n; i++)
		if (!rows[i].policy)
			return store_err(st, -EINVAL, "fidelity row %zu has no policy", i);
	rc = sqlite3_prepare_v2(st->db,
		"INSERT INTO fidelity (session, against, policy, params, capacity, window_c16, window_c4,"
		" window_c1, matched_c16, matched_c4, matched_c1, kernel_reclaims, evictions,"
		" kernel_pages, model_pages, both_pages, jaccard, correlation, median_lag,"
		" lag_pairs, kernel_refaults, model_refaults, both_refaults, gap_accesses,"
		" model_misses, kernel_misses, model_pswpin, kernel_pswpin, model_pswpout,"
		" kernel_pswpout, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
		" ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27,"
		" ?28, ?29, ?30, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	err = store_run_id(st, ST_BEGIN);
	if (err)
		goto out;
	st->writing = true;
	for (size_t i = 0; i < n && !err; i++) {
		const struct hs_fid_record *r = &rows[i];
		int c = 1;

		sqlite3_bind_int64(s, c++, r->session);
		if (r->against)
			sqlite3_bind_int64(s, c++, r->against);
		else
			sqlite3_bind_null(s, c++);
		sqlite3_bind_text(s, c++, r->policy, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, c++, store_or(r->params_json, "{}"), -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, c++, (int64_t)r->capacity);
		for (int w = 0; w < HS_FID_NR_WINDOWS; w++)
			sqlite3_bind_int64(s, c++, (int64_t)r->window[w]);
		for (int w = 0; w < HS_FID_NR_WINDOWS; w++)
			sqlite3_bind_int64(s, c++, (int64_t)r->matched[w]);
		sqlite3_bind_int64(s, c++, (int64_t)r->kernel_reclaims);
		sqlite3_bind_int64(s, c++, (int64_t)r->evictions);
		sqlite3_bind_int64(s, c++, (int64_t)r->kernel_pages);
		sqlite3_bind_int64(s, c++, (int64_t)r->model_pages);
		sqlite3_bind_int64(s, c++, (int64_t)r->both_pages);
		bind_real(s, c++, r->jaccard);
		bind_real(s, c++, r->correlation);
		if (r->lag_pairs)
			sqlite3_bind_int64(s, c++, r->median_lag);
		else
			sqlite3_bind_null(s, c++);
		sqlite3_bind_int64(s, c++, (int64_t)r->lag_pairs);
		sqlite3_bind_int64(s, c++, (int64_t)r->kernel_refaults);
		sqlite3_bind_int64(s, c++, (int64_t)r->model_refaults);
		sqlite3_bind_int64(s, c++, (int64_t)r->both_refaults);
		sqlite3_bind_int64(s, c++, (int64_t)r->gap_accesses);
		bind_total(s, c++, r->have_totals, r->model_misses);
		bind_total(s, c++, r->have_totals, r->kernel_misses);
		bind_total(s, c++, r->have_totals, r->model_pswpin);
		bind_total(s, c++, r->have_totals, r->kernel_pswpin);
		bind_total(s, c++, r->have_totals, r->model_pswpout);
		bind_total(s, c++, r->have_totals, r->kernel_pswpout);
		err = store_run(st, s);
		if (!err && ids)
			ids[i] = sqlite3_last_insert_rowid(st->db);
	}
	if (!err)
		err = store_run_id(st, ST_COMMIT);
	if (err)
		store_rollback(st);
	st->writing = false;
out:
	sqlite3_finalize(s);
	return err;
}
