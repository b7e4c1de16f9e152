/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's folios of a recorded session, page by page and in time
 * (lib/folios.h has the rules).  Kept beside lib/store.c through
 * lib/store-int.h for its one query; the pages come from hs_rec_pages().
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "folios.h"
#include "keymap.h"
#include "qlist.h"
#include "store-int.h"

struct fx_life {
	uint64_t	born;		/* birth on the trace clock (0: before the trace) */
	uint64_t	died;		/* death, UINT64_MAX while alive at the end */
	uint32_t	folio;		/* folio id, or HS_NIL for a single page */
};

struct hs_folio_index {
	uint32_t	nr_keys;
	uint32_t	nr_folios;
	uint32_t	*start;		/* key k's lives: life[start[k] .. start[k + 1]) */
	uint32_t	*cur;		/* per key: its first life not dead yet */
	struct fx_life	*life;
};

int hs_session_large_folios(struct hs_store *st, int64_t session)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	/* without a key table no life can be placed on the stream: no folio mode */
	rc = sqlite3_prepare_v2(st->db, "SELECT EXISTS (SELECT 1 FROM folio_lives"
				" WHERE session = ?1 AND pages > 1) AND EXISTS (SELECT 1 FROM"
				" record_keys WHERE session = ?1)", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	ret = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) != 0 : store_sql_err(st, rc);
	sqlite3_finalize(s);
	return ret;
}

void hs_folio_index_free(struct hs_folio_index *fx)
{
	if (!fx)
		return;
	free(fx->start);
	free(fx->cur);
	free(fx->life);
	free(fx);
}

uint32_t hs_folio_index_count(const struct hs_folio_index *fx)
{
	return fx ? fx->nr_folios : 0;
}

static int life_cmp(const void *a, const void *b)
{
	const struct fx_life *x = a, *y = b;

	return (x->born > y->born) - (x->born < y->born);
}

int hs_folio_index_load(struct hs_store *st, int64_t session, uint32_t nr_keys,
			struct hs_folio_index **out)
{
	struct hs_folio_index *fx = NULL;
	struct hs_rec_page *pg = NULL;
	struct hs_keymap *km = NULL;
	uint32_t *dense = NULL;
	uint8_t *large = NULL;
	uint64_t *ids = NULL, nid = 0, unkeyed, folio = 0, nr = 0;
	size_t np = 0, i;
	int err;

	*out = NULL;
	err = hs_rec_pages(st, session, &pg, &np, &unkeyed);
	if (err == -ENOENT)
		return 0;		/* not recorded: no folios */
	if (err)
		return err;
	err = hs_session_key_ids(st, session, &ids, &nid);
	if (err == -ENOENT)
		err = 0;		/* an empty stream */
	if (err || !np || !nid)
		goto out;
	err = -ENOMEM;
	dense = malloc(np * sizeof(*dense));
	large = calloc(nr_keys ? nr_keys : 1, 1);
	if (!dense || !large || hs_keymap_new((size_t)nid, &km))
		goto out;
	for (i = 0; i < nid; i++) {
		uint32_t id;

		if (hs_keymap_add(km, ids[i], &id) < 0)
			goto out;
	}
	/* the dense key of every page, and the keys that were ever in a large folio */
	for (i = 0; i < np; i++) {
		uint32_t id;

		if (!hs_keymap_lookup(km, pg[i].key, &id) || id >= nr_keys)
			id = HS_NIL;
		dense[i] = id;
		if (id != HS_NIL && pg[i].pages > 1)
			large[id] = 1;
	}
	err = -ENOMEM;
	fx = calloc(1, sizeof(*fx));
	if (!fx)
		goto out;
	fx->nr_keys = nr_keys;
	fx->start = calloc((size_t)nr_keys + 1, sizeof(*fx->start));
	fx->cur = malloc((nr_keys ? nr_keys : 1) * sizeof(*fx->cur));
	if (!fx->start || !fx->cur)
		goto out;
	for (i = 0; i < np; i++)
		if (dense[i] != HS_NIL && large[dense[i]])
			nr++;
	err = -EOVERFLOW;
	if (nr >= UINT32_MAX)
		goto out;
	err = -ENOMEM;
	fx->life = malloc((nr ? nr : 1) * sizeof(*fx->life));
	if (!fx->life)
		goto out;
	for (i = 0; i < np; i++)
		if (dense[i] != HS_NIL && large[dense[i]])
			fx->start[dense[i] + 1]++;
	for (i = 0; i < nr_keys; i++)
		fx->start[i + 1] += fx->start[i];
	memcpy(fx->cur, fx->start, (size_t)nr_keys * sizeof(*fx->cur));
	/* one folio id per large life (its pages are consecutive in pg[]) */
	for (i = 0; i < np; i++) {
		bool first = !i || pg[i].life != pg[i - 1].life;
		struct fx_life *l;

		if (first && pg[i].pages > 1)
			folio++;
		if (folio >= UINT32_MAX) {
			err = -EOVERFLOW;
			goto out;
		}
		if (dense[i] == HS_NIL || !large[dense[i]])
			continue;
		l = &fx->life[fx->cur[dense[i]]++];
		l->born = pg[i].born_ns;
		l->died = pg[i].died_ns ? pg[i].died_ns : UINT64_MAX;
		l->folio = pg[i].pages > 1 ? (uint32_t)(folio - 1) : HS_NIL;
	}
	fx->nr_folios = (uint32_t)folio;
	for (i = 0; i < nr_keys; i++) {
		uint32_t b = fx->start[i], e = fx->start[i + 1];

		if (e - b > 1)	/* life order is nearly birth order; make it exact */
			qsort(fx->life + b, e - b, sizeof(*fx->life), life_cmp);
		fx->cur[i] = b;
	}
	err = 0;
	if (fx->nr_folios) {
		*out = fx;
		fx = NULL;
	}
out:
	hs_folio_index_free(fx);
	hs_keymap_free(km);
	free(large);
	free(dense);
	free(ids);
	free(pg);
	return err;
}

void hs_folio_index_tags(struct hs_folio_index *fx, const uint32_t *keys, const uint64_t *ts,
			 size_t n, uint32_t *tags)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t k = keys[i], b, e;

		tags[i] = HS_NIL;
		if (k >= fx->nr_keys)
			continue;
		b = fx->cur[k];
		e = fx->start[k + 1];
		while (b < e && fx->life[b].died <= ts[i])
			b++;
		fx->cur[k] = b;
		if (b < e)
			tags[i] = fx->life[b].folio;
	}
}
