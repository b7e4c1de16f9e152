/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The eviction log (evlog.h): evictions gather in three arrays the size of
 * one chunk; a full chunk is encoded at once (lib/codec.c) and the arrays
 * start over, so a run of any length holds at most one chunk unencoded.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "evlog.h"

/**
 * hs_evlog_new() - an empty eviction log
 * @out: receives it
 *
 * Return: 0 or -ENOMEM.
 */
int hs_evlog_new(struct hs_evlog **out)
{
	struct hs_evlog *log = calloc(1, sizeof(*log));

	if (!log)
		return -ENOMEM;
	*out = log;
	return 0;
}

/* Encode the pending evictions as one more chunk. */
static int flush(struct hs_evlog *log)
{
	struct hs_evlog_chunk *c;
	uint8_t *buf, *data;
	size_t len;

	if (!log->n)
		return 0;
	if (log->nr_chunks == log->cap_chunks) {
		size_t ncap = log->cap_chunks ? log->cap_chunks * 2 : 8;
		struct hs_evlog_chunk *nc = realloc(log->chunks, ncap * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		log->chunks = nc;
		log->cap_chunks = ncap;
	}
	buf = malloc(hs_codec_evict_bound(log->n));
	if (!buf)
		return -ENOMEM;
	len = hs_codec_evict_encode(log->pos[0], log->pos, log->keys, log->hinted, log->n, buf);
	data = realloc(buf, len ? len : 1);
	if (!data)
		data = buf;
	c = &log->chunks[log->nr_chunks++];
	c->first_pos = log->pos[0];
	c->nr = (uint32_t)log->n;
	c->encoding = HS_EVLOG_POS_KEY;
	c->len = len;
	c->data = data;
	log->n = 0;
	return 0;
}

/**
 * hs_evlog_add() - log one eviction (a struct hs_sim_config on_evict callback)
 * @arg: the log
 * @pos: accesses before the record that caused it
 * @key: the evicted key
 * @hinted: made by a PAGEOUT hint
 *
 * Return: 0 or -ENOMEM (the eviction is not logged).
 */
int hs_evlog_add(void *arg, uint64_t pos, uint32_t key, bool hinted)
{
	struct hs_evlog *log = arg;
	int err;

	if (!log->pos) {
		log->pos = malloc(HS_EVLOG_CHUNK * sizeof(*log->pos));
		log->keys = malloc(HS_EVLOG_CHUNK * sizeof(*log->keys));
		log->hinted = malloc(HS_EVLOG_CHUNK);
		if (!log->pos || !log->keys || !log->hinted) {
			free(log->pos);
			free(log->keys);
			free(log->hinted);
			log->pos = NULL;
			log->keys = NULL;
			log->hinted = NULL;
			return -ENOMEM;
		}
	}
	log->pos[log->n] = pos;
	log->keys[log->n] = key;
	log->hinted[log->n] = hinted;
	log->n++;
	log->total++;
	if (log->n == HS_EVLOG_CHUNK) {
		err = flush(log);
		if (err) {
			log->n--;
			log->total--;
			return err;
		}
	}
	return 0;
}

/**
 * hs_evlog_finish() - encode the chunk being filled, if any
 * @log: the log
 *
 * Return: 0 or -ENOMEM.
 */
int hs_evlog_finish(struct hs_evlog *log)
{
	return flush(log);
}

/**
 * hs_evlog_free() - free a log and its chunks
 * @log: the log, or NULL
 *
 * Return: nothing.
 */
void hs_evlog_free(struct hs_evlog *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->nr_chunks; i++)
		free(log->chunks[i].data);
	free(log->chunks);
	free(log->pos);
	free(log->keys);
	free(log->hinted);
	free(log);
}
