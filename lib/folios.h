/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's folios of a recorded session, for the replay's folio mode
 * (lib/sim.c, "Folios"): which folio of two pages or more each stream
 * record's page was in at the record's time.
 *
 * Built from the session's folio lives (hs_rec_pages()): every life of two
 * pages or more is one folio id, 0, 1, 2, ... in life order; a key with such
 * a life keeps all its lives, sorted by birth, and a cursor.  The records
 * are then tagged in stream order (their times never go back): the folio of
 * a record is that of the key's life alive at its time, or, when none is
 * (the kernel did not hold the page: the record is what brings it in, or a
 * fault traced before its add), the key's next life; HS_NIL when that life
 * is a single page or the key has no large life at all.
 *
 * Cost: 20 bytes per page of every life of a key with a large life, 8 per
 * key; built once per replay.
 */
#ifndef HS_FOLIOS_H
#define HS_FOLIOS_H

#include <stddef.h>
#include <stdint.h>

struct hs_store;
struct hs_folio_index;

/**
 * hs_session_large_folios() - does a recorded session have folios of two pages or more?
 * @st: the store
 * @session: the session
 *
 * Return: 1 when one of its folio lives spans two pages or more and it has
 * a key table (record_keys) to place them on the stream, 0 otherwise
 * (generated, imported), or a negative errno.
 */
int hs_session_large_folios(struct hs_store *st, int64_t session);

/**
 * hs_folio_index_load() - the folio index of a recorded session
 * @st: the store
 * @session: the session
 * @nr_keys: its distinct keys (dense ids are below this)
 * @out: receives the index, or NULL when no key's page was ever in a folio
 *	 of two pages or more
 *
 * Return: 0, -ENOMEM, -EOVERFLOW (more than 2^32 - 2 folios or pages), or
 * another -errno of the store.
 */
int hs_folio_index_load(struct hs_store *st, int64_t session, uint32_t nr_keys,
			struct hs_folio_index **out);

/* Folio ids are below this. */
uint32_t hs_folio_index_count(const struct hs_folio_index *fx);

/*
 * Tag the next @n records of the stream (called in stream order, once per
 * record): @tags[i] = the folio of record i (key @keys[i], time @ts[i]), or
 * HS_NIL.
 */
void hs_folio_index_tags(struct hs_folio_index *fx, const uint32_t *keys, const uint64_t *ts,
			 size_t n, uint32_t *tags);

void hs_folio_index_free(struct hs_folio_index *fx);

#endif /* HS_FOLIOS_H */
