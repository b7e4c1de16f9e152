/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Storing miss-ratio curves (hsctl mrc): a curve is one mrc_curves row and
 * one mrc_points row per size, written in one transaction with the others
 * of the same command, so SQL sees whole curves or none (v_mrc joins them;
 * man/hsctl-db.5).  Kept beside lib/store.c through lib/store-int.h, as the
 * recorder's tables are in lib/store-rec.c; the schema is store.c's.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "hs.h"
#include "store-int.h"

static int save_curve(struct hs_store *st, sqlite3_stmt *ci, sqlite3_stmt *pi,
		      const struct hs_mrc_record *c, int64_t *id)
{
	int64_t curve;
	int err;

	sqlite3_bind_int64(ci, 1, c->session);
	sqlite3_bind_text(ci, 2, c->policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(ci, 3, store_or(c->params_json, "{}"), -1, SQLITE_STATIC);
	sqlite3_bind_text(ci, 4, c->method, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ci, 5, (int64_t)c->accesses);
	sqlite3_bind_int64(ci, 6, (int64_t)c->nr_points);
	sqlite3_bind_double(ci, 7, c->wall_s);
	sqlite3_bind_double(ci, 8, c->sample_rate > 0 ? c->sample_rate : 1);
	err = store_run(st, ci);
	if (err)
		return err;
	curve = sqlite3_last_insert_rowid(st->db);
	for (size_t i = 0; i < c->nr_points && !err; i++) {
		sqlite3_bind_int64(pi, 1, curve);
		sqlite3_bind_int64(pi, 2, (int64_t)c->points[i].size);
		sqlite3_bind_int64(pi, 3, (int64_t)c->points[i].hits);
		sqlite3_bind_int64(pi, 4, (int64_t)c->points[i].misses);
		err = store_run(st, pi);
	}
	if (!err && id)
		*id = curve;
	return err;
}

/**
 * hs_store_save_mrc() - store miss-ratio curves in one transaction
 * @st: the store (not read-only)
 * @curves: the curves
 * @n: their number
 * @ids: receives curve i's id in ids[i] (may be NULL)
 *
 * Return: 0, or -errno with nothing stored (-EINVAL for a curve without a
 * policy or a method, -EPERM on a read-only store, -EBUSY inside another
 * write).
 */
int hs_store_save_mrc(struct hs_store *st, const struct hs_mrc_record *curves, size_t n,
		      int64_t *ids)
{
	sqlite3_stmt *ci = NULL, *pi = NULL;
	int err, rc;

	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	if (st->writing)
		return store_err(st, -EBUSY, "another write is in progress");
	for (size_t i = 0; i < n; i++)
		if (!curves[i].policy || !curves[i].method || (curves[i].nr_points &&
							      !curves[i].points) ||
		    !(curves[i].sample_rate >= 0 && curves[i].sample_rate <= 1))
			return store_err(st, -EINVAL, "curve %zu has no policy, method or points,"
					 " or a sample rate outside 0 .. 1", i);
	rc = sqlite3_prepare_v2(st->db, "INSERT INTO mrc_curves (session, policy, params, method,"
				" accesses, points, wall_s, sample_rate, created) VALUES (?1, ?2, ?3,"
				" ?4, ?5, ?6, ?7, ?8, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))", -1, &ci, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(st->db, "INSERT INTO mrc_points (curve, size, hits, misses)"
					" VALUES (?1, ?2, ?3, ?4)", -1, &pi, NULL);
	if (rc != SQLITE_OK) {
		err = store_sql_err(st, rc);
		goto out;
	}
	err = store_run_id(st, ST_BEGIN);
	if (err)
		goto out;
	st->writing = true;
	for (size_t i = 0; i < n && !err; i++)
		err = save_curve(st, ci, pi, &curves[i], ids ? &ids[i] : NULL);
	if (!err)
		err = store_run_id(st, ST_COMMIT);
	if (err)
		store_rollback(st);
	st->writing = false;
out:
	sqlite3_finalize(pi);
	sqlite3_finalize(ci);
	return err;
}
