/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The eviction log of one replay run (hsctl replay --log-evictions): every
 * eviction the driver made, as (position, key, hinted), gathered while the
 * run steps and cut into chunks of HS_EVLOG_CHUNK evictions encoded by
 * lib/codec.c (HS_EVLOG_POS_KEY), which the store keeps as run_evictions
 * rows and SQL reads back through hs_evictions() (v_evictions, hsctl-db(5)).
 * A position is the number of accesses before the record that caused the
 * eviction, so with capacity 2 the accesses a b c a evict a at 2 and b at 3.
 */
#ifndef HS_EVLOG_H
#define HS_EVLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One encoded chunk: what one run_evictions row holds. */
struct hs_evlog_chunk {
	uint64_t	first_pos;	/* the position the first delta starts from: the
					 * position of its first eviction */
	uint32_t	nr;		/* evictions in it (1 to HS_EVLOG_CHUNK) */
	uint32_t	encoding;	/* enum hs_evlog_encoding */
	size_t		len;		/* bytes of data */
	uint8_t		*data;		/* the encoded evictions */
};

struct hs_evlog {
	struct hs_evlog_chunk *chunks;	/* the encoded chunks, in order */
	size_t		nr_chunks;	/* their number */
	size_t		cap_chunks;	/* chunks[] allocated */
	uint64_t	total;		/* evictions logged */
	uint64_t	*pos;		/* the chunk being filled: positions */
	uint32_t	*keys;		/* its keys */
	uint8_t		*hinted;	/* its hint flags */
	size_t		n;		/* evictions in it */
};

/**
 * hs_evlog_new() - an empty eviction log
 * @out: receives it
 *
 * Return: 0 or -ENOMEM.
 */
int hs_evlog_new(struct hs_evlog **out);

/**
 * hs_evlog_add() - log one eviction (a struct hs_sim_config on_evict callback)
 * @arg: the log
 * @pos: accesses before the record that caused it
 * @key: the evicted key
 * @hinted: made by a PAGEOUT hint
 *
 * Return: 0 or -ENOMEM.
 */
int hs_evlog_add(void *arg, uint64_t pos, uint32_t key, bool hinted);

/**
 * hs_evlog_finish() - encode the chunk being filled, if any
 * @log: the log
 *
 * Call once after the run and before the store reads the chunks.
 *
 * Return: 0 or -ENOMEM.
 */
int hs_evlog_finish(struct hs_evlog *log);

/**
 * hs_evlog_free() - free a log and its chunks
 * @log: the log, or NULL
 *
 * Return: nothing.
 */
void hs_evlog_free(struct hs_evlog *log);

#endif /* HS_EVLOG_H */
