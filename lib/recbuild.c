/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a recorded session from its spool (see recbuild.h).  The spool
 * holds, per CPU, the raw ring-buffer sub-buffers in the order they were
 * read, and under the pseudo-CPU HS_SPOOL_TOUCHES a built-in workload's
 * touch log.  Each of these is a stream; a stream keeps only its current
 * blob decoded (a few hundred events at most), and a binary heap over the
 * streams' head events hands out the next event by time stamp:
 *
 *	spool cpu 0 --decode--> [ev ev ev ...] --\
 *	spool cpu 1 --decode--> [ev ev ...]    ---+-- heap by (ts, stream) --> events table
 *	spool touches --unpack--> [touch ...]  --/                        \--> lifecycle
 *	                                                                        |  emit
 *	                                                         hs_session_add <-+
 *
 * Ties go to the stream with the lower index: the CPUs in ascending order,
 * then the touches, so kernel events come before touches at the same time
 * stamp.  Within one stream the order is the stream's own, even where its
 * time stamps go backwards (the lifecycle builder counts those).  A
 * sub-buffer the decoder rejects is skipped, counted and replaced by an
 * HS_EV_LOST marker of unknown count at the time of that CPU's previous
 * event, so the builder distrusts what it knew across it.  When no decoder
 * is passed in, one is made from the format files saved with the recording,
 * read into memory (hs_decoder_open_formats()); nothing is written to disk.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode.h"
#include "event.h"
#include "lifecycle.h"
#include "recbuild.h"
#include "store.h"
#include "workload.h"

#define TOUCH_SIZE	24u	/* bytes of one struct hs_touch on the pipe and in the spool */
#define TOUCH_FLAGS	(HS_TOUCH_ANON | HS_TOUCH_WRITE | HS_TOUCH_FD | HS_TOUCH_NORECENCY)
#define MIN_EVENTS	64u	/* smallest per-stream event array */

/**
 * struct stream - one spool stream (a CPU or the touch log) being merged
 */
struct stream {
	int		cpu;		/* the CPU, or HS_SPOOL_TOUCHES */
	struct hs_spool_reader *r;	/* its spool reader; NULL once at the end */
	struct hs_event	*ev;		/* the current blob's events */
	size_t		n;		/* events in ev[] */
	size_t		pos;		/* next one to deliver; valid while pos < n */
	size_t		cap;		/* ev[] allocated */
	uint64_t	last_ts;	/* time stamp of this stream's latest decoded event */
};

/**
 * struct build - the state of one hs_recbuild() call
 */
struct build {
	struct hs_store	*st;		/* the store */
	const struct hs_recbuild_opts *o; /* the caller's options */
	struct hs_decoder *dec;		/* the decoder in use */
	bool		own_dec;	/* dec was made here and is freed here */
	struct hs_session_writer *w;	/* the open writer */
	struct hs_lifecycle *lc;	/* the lifecycle builder */
	struct stream	*s;		/* nr_s streams: CPUs ascending, then the touches */
	size_t		nr_s;		/* entries in s[] */
	size_t		*heap;		/* s[] indexes of the streams with events */
	size_t		nr_heap;	/* entries in heap[] */
	struct hs_recbuild_result res;	/* counts so far */
	bool		have_ts;	/* res.first_ts is set */
	bool		infer_ra;	/* the kernel has no readahead events: the builder
					 * infers readahead (HS_LC_INFER_RA) */
	char		*err;		/* the caller's message buffer */
	size_t		errlen;		/* its size */
};

static void set_err(struct build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_err(struct build *b, const char *fmt, ...)
{
	va_list ap;

	if (!b->err || !b->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
}

/* The store's message for @err, or strerror() when it has none. */
static const char *store_why(const struct build *b, int err)
{
	const char *m = hs_store_errmsg(b->st);

	return m && *m ? m : strerror(-err);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- a decoder from the saved format files ---- */

/**
 * struct fmt_set - the saved format files, copied out of the store
 */
struct fmt_set {
	struct hs_decoder_format *f;	/* events/<system>/<name>/format files */
	size_t		n;		/* entries used in f[] */
	size_t		cap;		/* entries allocated */
	char		*header;	/* events/header_page, NULL if not saved */
	size_t		header_len;	/* its bytes */
	size_t		files;		/* files saved, whatever their path */
	char		bad[256];	/* what went wrong, "" if nothing */
};

/* A saved path must be one a tracing dir could hold: relative, no "..", no empty parts. */
static bool path_is_safe(const char *p)
{
	const char *c = p;

	if (!*p || *p == '/')
		return false;
	while (*c) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += len;
		if (*c == '/' && !*++c)
			return false;
	}
	return true;
}

/* Keep an events/<system>/<name>/format file: system, name and text in one block. */
static int add_format(struct fmt_set *f, const char *sys, size_t sys_len, const char *name,
		      size_t name_len, const void *text, size_t len)
{
	struct hs_decoder_format *nf;
	char *p;

	if (f->n == f->cap) {
		size_t ncap = f->cap ? 2 * f->cap : 32;

		nf = realloc(f->f, ncap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		f->f = nf;
		f->cap = ncap;
	}
	p = malloc(sys_len + name_len + 2 + len);
	if (!p)
		return -ENOMEM;
	memcpy(p, sys, sys_len);
	p[sys_len] = '\0';
	memcpy(p + sys_len + 1, name, name_len);
	p[sys_len + 1 + name_len] = '\0';
	if (len)
		memcpy(p + sys_len + name_len + 2, text, len);
	f->f[f->n++] = (struct hs_decoder_format){
		.system = p, .name = p + sys_len + 1, .text = p + sys_len + name_len + 2,
		.len = len,
	};
	return 0;
}

/* hs_record_formats()'s callback: copy header_page and the format files; ignore others. */
static int put_format(void *arg, const char *path, const void *text, size_t len)
{
	struct fmt_set *f = arg;
	const char *sys, *name;
	size_t sys_len, name_len;
	int err = 0;

	if (!path || !path_is_safe(path)) {
		snprintf(f->bad, sizeof(f->bad), "saved format path \"%s\" leaves the tracing dir",
			 path ? path : "(null)");
		return -EBADMSG;
	}
	f->files++;
	if (!strcmp(path, "events/header_page")) {
		free(f->header);
		f->header = malloc(len ? len : 1);
		if (!f->header)
			err = -ENOMEM;
		else if (len)
			memcpy(f->header, text, len);
		f->header_len = len;
	} else if (!strncmp(path, "events/", 7)) {
		/* events/<system>/<name>/format: exactly these four parts */
		sys = path + 7;
		sys_len = strcspn(sys, "/");
		name = sys + sys_len + (sys[sys_len] == '/');
		name_len = strcspn(name, "/");
		if (sys[sys_len] == '/' && !strcmp(name + name_len, "/format"))
			err = add_format(f, sys, sys_len, name, name_len, text, len);
	}
	if (err)
		snprintf(f->bad, sizeof(f->bad), "%s", strerror(-err));
	return err;
}

static void fmt_set_free(struct fmt_set *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free((void *)f->f[i].system);	/* the block of add_format() */
	free(f->f);
	free(f->header);
}

/* The decoder of the saved formats, made from them in memory. */
static int decoder_from_store(struct build *b)
{
	struct fmt_set f = { .n = 0 };
	struct hs_decoder *d = NULL;
	int64_t id = b->o->meta.id;
	int err;

	err = hs_record_formats(b->st, id, put_format, &f);
	if (err == -ENOENT || (!err && !f.files)) {
		set_err(b, "session %" PRId64 ": no saved format files to decode its spool", id);
		err = -ENOENT;
		goto out;
	}
	if (err) {
		if (f.bad[0])
			set_err(b, "session %" PRId64 ": format files: %s", id, f.bad);
		else
			set_err(b, "session %" PRId64 ": format files: %s", id, store_why(b, err));
		goto out;
	}
	err = hs_decoder_open_formats(f.header, f.header_len, f.f, f.n, HS_DEC_ALL, &d);
	if (err) {
		const char *m = d ? hs_decoder_errmsg(d) : "";

		set_err(b, "session %" PRId64 ": saved formats: %s", id, *m ? m : strerror(-err));
		hs_decoder_free(d);
		d = NULL;
		if (err == -ENOENT)
			err = -EBADMSG;	/* formats were saved, but not header_page */
	}
	if (d) {
		b->dec = d;
		b->own_dec = true;
	}
out:
	fmt_set_free(&f);
	return err;
}

/* ---- streams ---- */

static int ev_reserve(struct stream *s, size_t want)
{
	struct hs_event *ne;
	size_t ncap;

	if (want <= s->cap)
		return 0;
	ncap = s->cap ? s->cap : MIN_EVENTS;
	while (ncap < want) {
		if (ncap > SIZE_MAX / 2 / sizeof(*ne))
			return -ENOMEM;
		ncap *= 2;
	}
	ne = realloc(s->ev, ncap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	s->ev = ne;
	s->cap = ncap;
	return 0;
}

static int collect(void *arg, const struct hs_event *ev)
{
	struct stream *s = arg;
	int err = ev_reserve(s, s->n + 1);

	if (err)
		return err;
	s->ev[s->n++] = *ev;
	return 0;
}

/* Append a gap marker of unknown size at the stream's current time. */
static int add_gap(struct build *b, struct stream *s)
{
	int err = ev_reserve(s, s->n + 1);

	if (err)
		return err;
	memset(&s->ev[s->n], 0, sizeof(s->ev[0]));
	s->ev[s->n].type = HS_EV_LOST;
	s->ev[s->n].ts_ns = s->n ? s->ev[s->n - 1].ts_ns : s->last_ts;
	s->ev[s->n].cpu = (uint32_t)s->cpu;
	s->ev[s->n].a = UINT64_MAX;
	s->n++;
	b->res.bad_subbufs++;
	return 0;
}

/*
 * Decode a spool row into s->ev.  A row holds one sub-buffer, or several of
 * exactly the kernel's sub-buffer size each (the recorder batches them); a
 * rejected sub-buffer becomes a gap marker where it stood (the decoder
 * delivers nothing of a sub-buffer it rejects).
 */
static int fill_subbuf(struct build *b, struct stream *s, const void *data, size_t len)
{
	size_t sb = hs_decoder_subbuf_size(b->dec), off, one;
	int err;

	if (!data || !len)
		return add_gap(b, s);
	one = len > sb && !(len % sb) ? sb : len;
	for (off = 0; off < len; off += one) {
		err = hs_decoder_subbuf(b->dec, (const uint8_t *)data + off, one, s->cpu, collect,
					s);
		if (err == -EBADMSG)
			err = add_gap(b, s);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Unpack a touch blob.  Whole 24-byte records are used; a tail shorter than
 * a record counts as one bad touch, and so does a record with unknown flag
 * bits, with both HS_TOUCH_ANON and HS_TOUCH_FD, or with HS_TOUCH_NORECENCY
 * on a read()/write() touch (only a mapping has recency to lose).
 */
static int fill_touches(struct build *b, struct stream *s, const void *data, size_t len)
{
	const struct hs_recbuild_opts *o = b->o;
	size_t i, whole = len / TOUCH_SIZE;
	int err;

	if (len % TOUCH_SIZE)
		b->res.bad_touches++;
	err = ev_reserve(s, whole);
	if (err)
		return err;
	for (i = 0; i < whole; i++) {
		struct hs_event *e = &s->ev[s->n];
		struct hs_touch t;

		memcpy(&t, (const char *)data + i * TOUCH_SIZE, sizeof(t));
		if ((t.flags & ~TOUCH_FLAGS) ||
		    (t.flags & (HS_TOUCH_ANON | HS_TOUCH_FD)) == (HS_TOUCH_ANON | HS_TOUCH_FD) ||
		    (t.flags & (HS_TOUCH_FD | HS_TOUCH_NORECENCY)) ==
		    (HS_TOUCH_FD | HS_TOUCH_NORECENCY)) {
			b->res.bad_touches++;
			continue;
		}
		memset(e, 0, sizeof(*e));
		e->type = HS_EV_TOUCH;
		e->ts_ns = t.ts_ns;
		e->pid = o->workload_pid;
		if (t.flags & HS_TOUCH_ANON) {
			e->flags |= HS_EVF_ANON;
			e->addr = t.page << HS_LC_PAGE_SHIFT;
		} else {
			/* a file page, through read()/write() (FD) or a mapping */
			if (t.flags & HS_TOUCH_FD)
				e->flags |= HS_EVF_FD;
			e->dev = o->touch_dev;
			e->ino = o->touch_ino;
			e->index = t.page;
		}
		if (t.flags & HS_TOUCH_WRITE)
			e->flags |= HS_EVF_WRITE;
		if (t.flags & HS_TOUCH_NORECENCY)
			e->flags |= HS_EVF_NORECENCY;
		s->n++;
	}
	b->res.touches += whole;
	return 0;
}

/* Read blobs until one gives events or the stream ends (s->r closed). */
static int stream_fill(struct build *b, struct stream *s)
{
	const void *data;
	size_t len;
	int ret;

	s->n = 0;
	s->pos = 0;
	while (!s->n) {
		ret = hs_spool_next(s->r, &data, &len);
		if (ret < 0)
			return ret;
		if (!ret) {
			hs_spool_close(s->r);
			s->r = NULL;
			return 0;
		}
		if (s->cpu == HS_SPOOL_TOUCHES)
			ret = fill_touches(b, s, data, len);
		else
			ret = fill_subbuf(b, s, data, len);
		if (ret)
			return ret;
	}
	s->last_ts = s->ev[s->n - 1].ts_ns;
	return 0;
}

static void stream_err(struct build *b, const struct stream *s, const char *what, int err)
{
	int64_t id = b->o->meta.id;
	const char *why = err == -ENOMEM ? strerror(ENOMEM) : store_why(b, err);

	if (s->cpu == HS_SPOOL_TOUCHES)
		set_err(b, "spool of session %" PRId64 ", touches: %s%s", id, what, why);
	else
		set_err(b, "spool of session %" PRId64 ", cpu %d: %s%s", id, s->cpu, what, why);
}

/* ---- the merge heap: stream indexes ordered by (head time stamp, index) ---- */

static bool before(const struct build *b, size_t x, size_t y)
{
	const struct stream *sx = &b->s[x], *sy = &b->s[y];
	uint64_t tx = sx->ev[sx->pos].ts_ns, ty = sy->ev[sy->pos].ts_ns;

	return tx < ty || (tx == ty && x < y);
}

static void heap_down(struct build *b, size_t i)
{
	size_t *h = b->heap, n = b->nr_heap;

	for (;;) {
		size_t l = 2 * i + 1, m = i, t;

		if (l < n && before(b, h[l], h[m]))
			m = l;
		if (l + 1 < n && before(b, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* ---- the build ---- */

static int emit_access(void *arg, uint64_t key, uint8_t meta, uint64_t ts)
{
	return hs_session_add_ts(arg, key, meta, ts);
}

static int open_streams(struct build *b)
{
	int64_t id = b->o->meta.id;
	size_t i, n = 0, k = 0;
	int *cpus = NULL;
	int err;

	err = hs_spool_cpus(b->st, id, &cpus, &n);
	if (err) {
		set_err(b, "spool of session %" PRId64 ": %s", id, store_why(b, err));
		return err;
	}
	b->s = calloc(n ? n : 1, sizeof(*b->s));
	b->heap = calloc(n ? n : 1, sizeof(*b->heap));
	if (!b->s || !b->heap) {
		free(cpus);
		set_err(b, "spool of session %" PRId64 ": %s", id, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* the CPUs in ascending order, then the touches: the tie-break order */
	for (i = 0; i < n; i++)
		if (cpus[i] >= 0)
			b->s[k++].cpu = cpus[i];
	for (i = 0; i < n; i++)
		if (cpus[i] == HS_SPOOL_TOUCHES)
			b->s[k++].cpu = HS_SPOOL_TOUCHES;
	free(cpus);
	b->nr_s = k;
	for (i = 0; i < b->nr_s; i++) {
		struct stream *s = &b->s[i];

		err = hs_spool_open(b->st, id, s->cpu, &s->r);
		if (err) {
			s->r = NULL;
			stream_err(b, s, "", err);
			return err;
		}
		err = stream_fill(b, s);
		if (err) {
			stream_err(b, s, "", err);
			return err;
		}
		if (s->r)
			b->heap[b->nr_heap++] = i;
	}
	for (i = b->nr_heap / 2; i-- > 0;)
		heap_down(b, i);
	return 0;
}

static int deliver(struct build *b, const struct hs_event *ev)
{
	int64_t id = b->o->meta.id;
	int err;

	if (ev->type == HS_EV_LOST) {
		b->res.gaps++;
	} else {
		if (ev->type != HS_EV_TOUCH)
			b->res.events++;
		if (!b->have_ts || ev->ts_ns < b->res.first_ts)
			b->res.first_ts = ev->ts_ns;
		if (!b->have_ts || ev->ts_ns > b->res.last_ts)
			b->res.last_ts = ev->ts_ns;
		b->have_ts = true;
	}
	if (!b->o->no_events && ev->type != HS_EV_TOUCH) {
		err = hs_rec_add_event(b->w, ev);
		if (err) {
			set_err(b, "session %" PRId64 ": events: %s", id, store_why(b, err));
			return err;
		}
		b->res.rows++;
	}
	/*
	 * The workload's TLB events, its cgroup's statistics flushes and DAMON's
	 * regions are the replay's and the user's (the events table), no page's
	 * life.
	 */
	if (ev->type == HS_EV_TLB_FLUSH || ev->type == HS_EV_SCHED_SWITCH ||
	    ev->type == HS_EV_MIGRATE_TASK || ev->type == HS_EV_MEMCG_FLUSH ||
	    ev->type == HS_EV_DAMON_AGGREGATED || ev->type == HS_EV_DAMOS_APPLY)
		return 0;
	err = hs_lifecycle_event(b->lc, ev);
	if (err)
		set_err(b, "session %" PRId64 ": lifecycle at %" PRIu64 " ns: %s", id, ev->ts_ns,
			err == -ENOMEM ? strerror(ENOMEM) : store_why(b, err));
	return err;
}

static int merge(struct build *b)
{
	while (b->nr_heap) {
		struct stream *s = &b->s[b->heap[0]];
		int err = deliver(b, &s->ev[s->pos]);

		if (err)
			return err;
		if (++s->pos == s->n) {
			err = stream_fill(b, s);
			if (err) {
				stream_err(b, s, "", err);
				return err;
			}
			if (!s->r)
				b->heap[0] = b->heap[--b->nr_heap];
		}
		heap_down(b, 0);
	}
	return 0;
}

/**
 * struct counter - a counter of struct hs_lifecycle_checks by name
 */
struct counter {
	const char	*name;		/* the field's name, the counter's name */
	size_t		off;		/* offsetof the uint64_t field */
};

#define CK(f)	{ #f, offsetof(struct hs_lifecycle_checks, f) }

static const struct counter counters[] = {
	CK(reclaim_death_pages), CK(shrink_inactive_events), CK(shrink_inactive_reclaimed),
	CK(pageout_death_pages), CK(reclaim_pages_events), CK(reclaim_pages_reclaimed),
	CK(pfn_events), CK(pfn_joined), CK(pfn_unjoined), CK(pfn_joined_anon),
	CK(pfn_joined_bdev), CK(gaps), CK(lost_events), CK(gaps_uncounted),
	CK(refaults), CK(refaults_distrusted), CK(readahead_only), CK(swap_outs),
	CK(swap_ins), CK(anon_linked), CK(anon_unlinked), CK(faults_unresolved),
	CK(pfn_stale), CK(splits), CK(anomalies), CK(reclaim_end_reclaimed), CK(accesses),
	CK(hints), CK(drops), CK(ranges_cut), CK(bad_events), CK(unordered),
	CK(resident_faults), CK(anon_lost), CK(swapout_guessed), CK(readahead),
};

static int add_counter(struct build *b, const char *name, uint64_t v)
{
	int err = hs_rec_add_counter(b->w, "lifecycle", "session", name, 0, v);

	if (err)
		set_err(b, "session %" PRId64 ": counter %s: %s", b->o->meta.id, name,
			store_why(b, err));
	return err;
}

static int store_counters(struct build *b, const struct hs_lifecycle_checks *ck)
{
	char name[64];
	size_t i;
	int err;

	for (i = 0; i < HS_LIFE_KIND_NR; i++) {
		snprintf(name, sizeof(name), "lives_%s", hs_life_kind_name((enum hs_life_kind)i));
		err = add_counter(b, name, ck->lives[i]);
		if (err)
			return err;
	}
	for (i = 0; i < HS_DEATH_NR; i++) {
		snprintf(name, sizeof(name), "death_pages_%s",
			 hs_death_cause_name((enum hs_death_cause)i));
		err = add_counter(b, name, ck->death_pages[i]);
		if (err)
			return err;
	}
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		uint64_t v;

		memcpy(&v, (const char *)ck + counters[i].off, sizeof(v));
		err = add_counter(b, counters[i].name, v);
		if (err)
			return err;
	}
	/*
	 * Only a build that inferred readahead stores these: their presence is
	 * what tells the kernel row "inferred" from "not traced" (sessions
	 * built before the inference have neither).
	 */
	if (b->infer_ra) {
		err = add_counter(b, "readahead_inferred", ck->readahead_inferred);
		if (!err)
			err = add_counter(b, "readahead_unsettled", ck->ra_unsettled);
	}
	return err;
}

static int add_check(struct build *b, const char *name, uint8_t status, uint64_t got,
		     uint64_t want, const char *note)
{
	int err = hs_rec_add_check(b->w, name,
				   hs_lc_check_status_name((enum hs_lc_check_status)status),
				   (double)got, (double)want, note);

	if (err)
		set_err(b, "session %" PRId64 ": check %s: %s", b->o->meta.id, name,
			store_why(b, err));
	return err;
}

static int store_checks(struct build *b, const struct hs_lifecycle_checks *ck)
{
	char note[256];
	int err;

	if (ck->reclaim_status == HS_LC_CHECK_NA)
		snprintf(note, sizeof(note), "no mm_vmscan_lru_shrink_inactive events (not "
			 "recorded, or not emitted by this kernel); %" PRIu64
			 " pages died by reclaim", ck->reclaim_death_pages);
	else
		snprintf(note, sizeof(note), "pages of lives that died by reclaim vs the sum of "
			 "nr_reclaimed over %" PRIu64 " mm_vmscan_lru_shrink_inactive events",
			 ck->shrink_inactive_events);
	err = add_check(b, "reclaim", ck->reclaim_status, ck->reclaim_death_pages,
			ck->shrink_inactive_reclaimed, note);
	if (err)
		return err;

	if (ck->pageout_status == HS_LC_CHECK_NA)
		snprintf(note, sizeof(note), "no mm_vmscan_reclaim_pages events (not recorded, "
			 "or before 6.18); %" PRIu64 " pages died by pageout",
			 ck->pageout_death_pages);
	else
		snprintf(note, sizeof(note), "pages of lives that died by pageout vs the sum of "
			 "nr_reclaimed over %" PRIu64 " mm_vmscan_reclaim_pages events",
			 ck->reclaim_pages_events);
	err = add_check(b, "pageout", ck->pageout_status, ck->pageout_death_pages,
			ck->reclaim_pages_reclaimed, note);
	if (err)
		return err;

	if (ck->join_status == HS_LC_CHECK_NA)
		snprintf(note, sizeof(note), "no pfn-keyed events (mm_lru_insertion, "
			 "mm_lru_activate, mm_vmscan_write_folio)");
	else
		snprintf(note, sizeof(note), "pfn-keyed events joined to a live folio vs all of "
			 "them; %" PRIu64 " unjoined (%" PRIu64 " anon, %" PRIu64 " bdev joins)",
			 ck->pfn_unjoined, ck->pfn_joined_anon, ck->pfn_joined_bdev);
	err = add_check(b, "pfn-join", ck->join_status, ck->pfn_joined, ck->pfn_events, note);
	if (err)
		return err;

	snprintf(note, sizeof(note), "events lost (known counts) plus gap markers: %" PRIu64
		 " events lost in %" PRIu64 " gaps, %" PRIu64 " of unknown count",
		 ck->lost_events, ck->gaps, ck->gaps_uncounted);
	return add_check(b, "lost", ck->lost_status, ck->lost_events + ck->gaps, 0, note);
}

static int store_results(struct build *b, struct hs_lifecycle_checks *ck)
{
	int64_t id = b->o->meta.id;
	size_t i, nl = hs_lifecycle_nr_lives(b->lc);
	uint64_t k, nk = hs_lifecycle_nr_keys(b->lc);
	int err;

	for (i = 0; i < nl; i++) {
		const struct hs_folio_life *l = hs_lifecycle_life(b->lc, i);

		if (b->o->touch_ino && l->kind == HS_LIFE_FILE && l->dev == b->o->touch_dev &&
		    l->ino == b->o->touch_ino && l->death_cause == HS_DEATH_NONE)
			b->res.touch_file_alive += l->pages;
		err = hs_rec_add_life(b->w, i, l);
		if (err) {
			set_err(b, "session %" PRId64 ": lives: %s", id, store_why(b, err));
			return err;
		}
	}
	b->res.lives = nl;
	b->res.rows += nl;
	for (k = 0; k < nk; k++) {
		struct hs_lc_key key;

		err = hs_lifecycle_key(b->lc, k, &key);
		if (!err)
			err = hs_rec_add_key(b->w, k, &key);
		if (err) {
			set_err(b, "session %" PRId64 ": keys: %s", id, store_why(b, err));
			return err;
		}
	}
	b->res.keys = nk;
	b->res.rows += nk;
	hs_lifecycle_get_checks(b->lc, ck);
	err = store_checks(b, ck);
	if (!err)
		err = store_counters(b, ck);
	return err;
}

static int new_lifecycle(struct build *b)
{
	const struct hs_recbuild_opts *o = b->o;
	struct hs_lifecycle_opts lo = { .emit = emit_access, .emit_arg = b->w };
	int err;

	if (o->workload_pid > 0)
		lo.flags |= HS_LC_SCOPED;
	if (o->touch_only)
		lo.flags |= HS_LC_TOUCH_ONLY;
	/* 6.1 and 6.12 add the pages they read ahead without saying so. */
	b->infer_ra = !hs_decoder_has(b->dec, HS_EV_READAHEAD) &&
		      hs_decoder_has(b->dec, HS_EV_FILEMAP_ADD);
	if (b->infer_ra)
		lo.flags |= HS_LC_INFER_RA;
	err = hs_lifecycle_new(&lo, &b->lc);
	if (!err && o->workload_pid > 0)
		err = hs_lifecycle_add_scope(b->lc, o->workload_pid);
	for (size_t i = 0; !err && o->kswapd_pids && i < o->nr_kswapd; i++)
		err = hs_lifecycle_set_kswapd(b->lc, o->kswapd_pids[i]);
	if (err)
		set_err(b, "session %" PRId64 ": lifecycle builder: %s", o->meta.id,
			strerror(-err));
	return err;
}

static void build_free(struct build *b)
{
	size_t i;

	for (i = 0; i < b->nr_s; i++) {
		hs_spool_close(b->s[i].r);
		free(b->s[i].ev);
	}
	free(b->s);
	free(b->heap);
	hs_lifecycle_free(b->lc);
	if (b->own_dec)
		hs_decoder_free(b->dec);
}

/**
 * hs_recbuild() - decode, merge and build a recorded session
 * @st: the store holding the session's spool
 * @o: options
 * @w: receives the open session writer on success
 * @checks: receives the lifecycle builder's self-checks (may be NULL)
 * @res: receives counts (may be NULL)
 * @err: receives a one-line reason on failure
 * @errlen: its size
 *
 * See recbuild.h.  Only the current blob of each spool stream is held in
 * memory (and the lifecycle builder's lives and keys).
 *
 * Return: 0; -ENOENT (no such session or no formats); -EBADMSG (a bad format
 * file); -ENOMEM; -EIO; other -errno from the store.
 */
int hs_recbuild(struct hs_store *st, const struct hs_recbuild_opts *o,
		struct hs_session_writer **w, struct hs_lifecycle_checks *checks,
		struct hs_recbuild_result *res, char *err, size_t errlen)
{
	struct build b = { .st = st, .o = o, .err = err, .errlen = errlen };
	struct hs_lifecycle_checks ck;
	double t0 = now_s();
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (w)
		*w = NULL;
	if (!st || !o || !w || o->meta.id <= 0) {
		set_err(&b, "recbuild: %s", "no store, options, writer or session id");
		return -EINVAL;
	}
	memset(&ck, 0, sizeof(ck));
	if (o->decoder) {
		b.dec = o->decoder;
	} else {
		ret = decoder_from_store(&b);
		if (ret)
			goto out_free;
	}
	ret = hs_session_begin(st, &o->meta, &b.w);
	if (ret) {
		b.w = NULL;
		set_err(&b, "session %" PRId64 ": %s", o->meta.id, store_why(&b, ret));
		goto out_free;
	}
	ret = new_lifecycle(&b);
	if (!ret)
		ret = open_streams(&b);
	if (!ret)
		ret = merge(&b);
	if (!ret) {
		ret = hs_lifecycle_finish(b.lc);
		if (ret)
			set_err(&b, "session %" PRId64 ": lifecycle finish: %s", o->meta.id,
				ret == -ENOMEM ? strerror(ENOMEM) : store_why(&b, ret));
	}
	if (!ret)
		ret = store_results(&b, &ck);
	if (ret)
		goto out_abort;
	b.res.seconds = now_s() - t0;
	if (checks)
		*checks = ck;
	if (res)
		*res = b.res;
	*w = b.w;
	build_free(&b);
	return 0;
out_abort:
	hs_session_abort(b.w);
out_free:
	build_free(&b);
	return ret;
}
