/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's data path while the workload runs (lib/recorder.c owns the
 * threads): one capture reader per CPU (lib/capture.c) hands each raw
 * sub-buffer to rec_on_subbuf(), a built-in workload's touch log arrives on
 * a pipe read by rec_touch_reader(), and both queue blobs for one writer
 * thread, rec_spool_writer(), the only user of the store while recording.
 * It appends them to the store's spool, a CPU's whole sub-buffers 16 to a
 * row, and commits about twice a second, so a killed recorder leaves its
 * data behind.  Readers wait when 512 MiB are queued.  Nothing is decoded
 * here except, when asked (a progress line), a count per CPU.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>

#include "decode.h"
#include "event.h"
#include "hs.h"
#include "recorder-int.h"
#include "store.h"
#include "workload.h"

#define SPOOL_MAX_BYTES		(512u << 20)	/* queued, not yet in SQLite: readers wait */
#define SPOOL_COMMIT_NS		500000000ull	/* commit the spool at least this often */
#define TOUCH_BLOB		(170 * sizeof(struct hs_touch))	/* 4080 bytes */

#define BLOB_CAP		4096u		/* data bytes of a pooled blob (one sub-buffer) */
#define BLOB_POOL_MAX		4096u		/* free blobs kept for reuse (16 MiB) */

struct rec_blob {
	struct rec_blob	*next;		/* queue or free-list link */
	int		cpu;		/* CPU, or HS_SPOOL_TOUCHES */
	size_t		len;		/* bytes in data */
	size_t		cap;		/* bytes data can hold */
	unsigned char	data[];		/* the sub-buffer or touches */
};

/**
 * rec_now_ns() - CLOCK_MONOTONIC in ns: the mono trace clock
 *
 * Return: the time.
 */
uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int spool_push(struct rec_spool *q, int cpu, const void *data, size_t len)
{
	struct rec_blob *b = NULL;

	if (len <= BLOB_CAP) {
		pthread_mutex_lock(&q->lock);
		b = q->pool;
		if (b) {
			q->pool = b->next;
			q->nr_pool--;
		}
		pthread_mutex_unlock(&q->lock);
	}
	if (!b) {
		size_t cap = HS_MAX(len, (size_t)BLOB_CAP);

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return -ENOMEM;
		b->cap = cap;
	}
	b->next = NULL;
	b->cpu = cpu;
	b->len = len;
	memcpy(b->data, data, len);
	pthread_mutex_lock(&q->lock);
	while (q->bytes > SPOOL_MAX_BYTES && !q->err)
		pthread_cond_wait(&q->room, &q->lock);
	if (q->tail)
		q->tail->next = b;
	else
		q->head = b;
	q->tail = b;
	q->bytes += len;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/*
 * Fill the pool before tracing starts, touching every page: hsctl's own
 * threads are not traced, yet the folios they allocate share the per-CPU
 * LRU batches with the workload's, and an insertion no traced fault
 * explains blurs the builder's pairing of anonymous faults and folios.
 */
#define BLOB_PREFILL		1024u

/**
 * rec_spool_prefill() - fill the blob pool before tracing starts
 * @q: the spool
 *
 * Return: 0 or -ENOMEM.
 */
int rec_spool_prefill(struct rec_spool *q)
{
	struct rec_blob *b;
	unsigned int i;

	for (i = 0; i < BLOB_PREFILL; i++) {
		b = malloc(sizeof(*b) + BLOB_CAP);
		if (!b)
			return -ENOMEM;
		memset(b, 0, sizeof(*b) + BLOB_CAP);
		b->cap = BLOB_CAP;
		b->next = q->pool;
		q->pool = b;
		q->nr_pool++;
	}
	return 0;
}


static void spool_fail(struct rec_spool *q, int err);

/* Write CPU @cpu's staged sub-buffers as one spool row (inside the transaction). */
static void stage_flush(struct rec_spool *q, unsigned int cpu)
{
	int err;

	if (q->stage_len[cpu] && !q->err) {
		err = hs_spool_add(q->st, q->session, (int)cpu, q->seq[cpu]++,
				   q->stage + (size_t)cpu * STAGE_SUBBUFS * q->subbuf,
				   q->stage_len[cpu]);
		if (err)
			spool_fail(q, err);
	}
	q->stage_len[cpu] = 0;
}

static void stage_flush_all(struct rec_spool *q)
{
	unsigned int cpu;

	for (cpu = 0; cpu < q->nr_cpus; cpu++)
		stage_flush(q, cpu);
}

/* One blob into the spool: whole sub-buffers are staged, anything else written. */
static void spool_write(struct rec_spool *q, const struct rec_blob *b)
{
	unsigned int slot = b->cpu < 0 ? q->nr_cpus : (unsigned int)b->cpu;
	size_t *have;
	int err;

	if (slot > q->nr_cpus)
		return;
	if (b->cpu >= 0 && b->len == q->subbuf) {
		have = &q->stage_len[slot];
		memcpy(q->stage + (size_t)slot * STAGE_SUBBUFS * q->subbuf + *have, b->data,
		       b->len);
		*have += b->len;
		if (*have == STAGE_SUBBUFS * q->subbuf)
			stage_flush(q, slot);
		return;
	}
	if (b->cpu >= 0)
		stage_flush(q, slot);	/* keep the CPU's order */
	if (q->err)
		return;
	err = hs_spool_add(q->st, q->session, b->cpu, q->seq[slot]++, b->data, b->len);
	if (err)
		spool_fail(q, err);
}

static void spool_fail(struct rec_spool *q, int err)
{
	if (q->err)
		return;
	q->err = err;
	snprintf(q->errmsg, sizeof(q->errmsg), "%s", hs_store_errmsg(q->st));
	pthread_cond_broadcast(&q->room);
}

/**
 * rec_spool_writer() - the writer thread: the only user of the store while recording
 * @arg: the struct rec_spool
 *
 * Ends once rec_spool_close() was called and the queue is empty.
 *
 * Return: NULL.
 */
void *rec_spool_writer(void *arg)
{
	struct rec_spool *q = arg;
	uint64_t last_commit = rec_now_ns();
	bool in_tx = false;
	struct rec_blob *b;
	int err;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head && !q->closed) {
			struct timespec until;

			if (in_tx) {
				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_nsec += 200000000;
				if (until.tv_nsec >= 1000000000) {
					until.tv_sec++;
					until.tv_nsec -= 1000000000;
				}
				if (pthread_cond_timedwait(&q->more, &q->lock, &until) == ETIMEDOUT)
					break;
			} else {
				pthread_cond_wait(&q->more, &q->lock);
			}
		}
		b = q->head;
		if (b) {
			q->head = b->next;
			if (!q->head)
				q->tail = NULL;
			q->bytes -= b->len;
			pthread_cond_broadcast(&q->room);
		}
		if (!b && q->closed)
			break;
		pthread_mutex_unlock(&q->lock);

		if (b && !q->err) {
			if (!in_tx) {
				err = hs_store_tx_begin(q->st);
				if (err)
					spool_fail(q, err);
				else
					in_tx = true;
			}
			if (!q->err)
				spool_write(q, b);
		} else if (b) {
			q->dropped++;
		}
		if (b && b->cap == BLOB_CAP && q->nr_pool < BLOB_POOL_MAX) {
			pthread_mutex_lock(&q->lock);
			b->next = q->pool;
			q->pool = b;
			q->nr_pool++;
			pthread_mutex_unlock(&q->lock);
		} else {
			free(b);
		}
		if (in_tx && (q->err || !b || rec_now_ns() - last_commit > SPOOL_COMMIT_NS)) {
			if (!q->err)
				stage_flush_all(q);
			if (q->err) {
				hs_store_tx_rollback(q->st);
			} else {
				err = hs_store_tx_commit(q->st);
				if (err)
					spool_fail(q, err);
			}
			in_tx = false;
			last_commit = rec_now_ns();
		}
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	if (in_tx) {
		if (!q->err)
			stage_flush_all(q);
		err = q->err ? 0 : hs_store_tx_commit(q->st);
		if (q->err)
			hs_store_tx_rollback(q->st);
		else if (err)
			spool_fail(q, err);
	}
	return NULL;
}


static int count_event(void *arg, const struct hs_event *ev)
{
	struct rec_cpu_count *c = arg;

	if (ev->type == HS_EV_LOST) {
		if (ev->a != UINT64_MAX)
			atomic_fetch_add_explicit(&c->missed, ev->a, memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&c->events, 1, memory_order_relaxed);
	if (ev->type == HS_EV_FILEMAP_ADD ||
	    (ev->type == HS_EV_LRU_INSERTION && (ev->b & 2)))
		atomic_fetch_add_explicit(&c->folios, 1, memory_order_relaxed);
	return 0;
}

/**
 * rec_on_subbuf() - hs_capture_subbuf_fn: count (when asked) and queue a sub-buffer
 * @arg: the struct rec_io
 * @cpu: the reader's CPU
 * @buf: the sub-buffer
 * @len: its length
 *
 * Return: 0, -EINVAL for a CPU out of range, -ENOMEM.
 */
int rec_on_subbuf(void *arg, int cpu, const void *buf, size_t len)
{
	struct rec_io *r = arg;

	if (cpu < 0 || (unsigned int)cpu >= r->nr_cpus)
		return -EINVAL;
	/*
	 * Counting costs a decode per sub-buffer, the recorder's main CPU cost
	 * on this path: only for the progress line.  A corrupt sub-buffer is
	 * still spooled: the build counts and skips it.
	 */
	if (r->count)
		hs_decoder_subbuf(r->cnt[cpu].dec, buf, len, cpu, count_event, &r->cnt[cpu]);
	return spool_push(&r->q, cpu, buf, len);
}

/**
 * rec_touch_reader() - the touch log reader: whole records into blobs of TOUCH_BLOB bytes
 * @arg: the struct rec_io (touch_fd: the pipe's read end)
 *
 * Ends at the end of the pipe (the workload and every writer are gone).
 *
 * Return: NULL.
 */
void *rec_touch_reader(void *arg)
{
	struct rec_io *r = arg;
	unsigned char buf[TOUCH_BLOB];
	size_t have = 0;
	ssize_t n;

	for (;;) {
		n = read(r->touch_fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (have == sizeof(buf)) {
			if (spool_push(&r->q, HS_SPOOL_TOUCHES, buf, have))
				break;
			atomic_fetch_add(&r->touches, have / sizeof(struct hs_touch));
			have = 0;
		}
	}
	if (have) {
		/* A partial record at the end is kept: the build counts it as bad. */
		if (!spool_push(&r->q, HS_SPOOL_TOUCHES, buf, have))
			atomic_fetch_add(&r->touches, have / sizeof(struct hs_touch));
	}
	return NULL;
}


/**
 * rec_io_init() - an empty data path: no blobs, no threads
 * @io: the data path
 *
 * Return: nothing.
 */
void rec_io_init(struct rec_io *io)
{
	memset(io, 0, sizeof(*io));
	pthread_mutex_init(&io->q.lock, NULL);
	pthread_cond_init(&io->q.more, NULL);
	pthread_cond_init(&io->q.room, NULL);
	io->touch_fd = -1;
}

/**
 * rec_spool_close() - no more blobs will come: the writer drains the queue and ends
 * @q: the spool
 *
 * Return: nothing.
 */
void rec_spool_close(struct rec_spool *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->lock);
}

/**
 * rec_io_free() - free the queue, the pool and the counters (threads joined)
 * @io: the data path
 *
 * Return: nothing.
 */
void rec_io_free(struct rec_io *io)
{
	struct rec_blob *b;
	unsigned int i;

	if (io->cnt)
		for (i = 0; i < io->nr_cpus; i++)
			hs_decoder_free(io->cnt[i].dec);
	free(io->cnt);
	while ((b = io->q.head)) {
		io->q.head = b->next;
		free(b);
	}
	while ((b = io->q.pool)) {
		io->q.pool = b->next;
		free(b);
	}
	free(io->q.seq);
	free(io->q.stage);
	free(io->q.stage_len);
	pthread_mutex_destroy(&io->q.lock);
	pthread_cond_destroy(&io->q.more);
	pthread_cond_destroy(&io->q.room);
}
