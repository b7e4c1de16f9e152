/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle tests' shared helpers (see lc-harness.h): the stream sink,
 * builder runs and the comparison of a life with its expected fields.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lc-harness.h"

int sink_emit(void *arg, uint64_t key, uint8_t meta, uint64_t ts)
{
	struct sink *s = arg;

	if (s->fail_at && s->n + 1 == s->fail_at)
		return -EIO;
	if (s->n < N(s->r)) {
		s->r[s->n] = (struct rec){ .key = key, .meta = meta };
		s->ts[s->n] = ts;
	}
	s->n++;
	return 0;
}

void stream_is(int line, const struct sink *s, const struct rec *x, size_t n)
{
	size_t i;

	if (s->n != n) {
		t_fail(__FILE__, line, "stream has %zu records, expected %zu", s->n, n);
		return;
	}
	for (i = 0; i < n; i++) {
		if (s->r[i].key != x[i].key || s->r[i].meta != x[i].meta)
			t_fail(__FILE__, line, "record %zu is (key %llu, meta 0x%02x), expected "
			       "(key %llu, meta 0x%02x)", i, (unsigned long long)s->r[i].key,
			       s->r[i].meta, (unsigned long long)x[i].key, x[i].meta);
	}
}

struct hs_lifecycle *lc_open(unsigned int flags, struct sink *s)
{
	struct hs_lifecycle_opts o = { .flags = flags | HS_LC_PARANOID, .emit = sink_emit,
					 .emit_arg = s };
	struct hs_lifecycle *lc = NULL;

	memset(s, 0, sizeof(*s));
	if (hs_lifecycle_new(&o, &lc))
		t_fail(__FILE__, __LINE__, "hs_lifecycle_new failed");
	return lc;
}

void feed(struct hs_lifecycle *lc, const struct hs_event *ev, size_t n)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = hs_lifecycle_event(lc, &ev[i]);
		if (err)
			t_fail(__FILE__, __LINE__, "event %zu (t=%llu): error %d", i,
			       (unsigned long long)ev[i].ts_ns, err);
	}
}

void feed_finish(struct hs_lifecycle *lc, const struct hs_event *ev, size_t n)
{
	feed(lc, ev, n);
	T_EQ_I64(hs_lifecycle_finish(lc), 0);
	T_EQ_I64(hs_lifecycle_check(lc), 0);
}

struct hs_lifecycle_checks checks(const struct hs_lifecycle *lc)
{
	struct hs_lifecycle_checks c;

	hs_lifecycle_get_checks(lc, &c);
	return c;
}

void life_is(int line, const struct hs_lifecycle *lc, size_t id, struct xl x)
{
	const struct hs_folio_life *l = hs_lifecycle_life(lc, id);
	uint64_t who;

	if (!l) {
		t_fail(__FILE__, line, "life %zu missing (%zu lives)", id,
		       hs_lifecycle_nr_lives(lc));
		return;
	}
	who = l->kind == HS_LIFE_ANON ? (uint64_t)l->tgid : l->ino;
#define CMP(f, v) do { \
	if ((uint64_t)(f) != (uint64_t)(v)) \
		t_fail(__FILE__, line, "life %zu: %s == %llu, expected %llu", id, #f, \
		       (unsigned long long)(f), (unsigned long long)(v)); \
} while (0)
	CMP(l->kind, x.kind);
	CMP(who, x.who);
	CMP(l->first_page, x.first);
	CMP(l->pages, x.pages);
	CMP(l->born_ns, x.born);
	CMP(l->died_ns, x.died);
	CMP(l->death_cause, x.cause);
	CMP(l->flags, x.flags);
	CMP(l->refault, x.refault);
	CMP(l->refault_distance, x.dist);
	CMP(l->refault_ns, x.rns);
	if (l->kind == HS_LIFE_ANON) {
		CMP(l->address, x.first << HS_LC_PAGE_SHIFT);
		CMP(l->dev, 0);
	} else {
		CMP(l->dev, l->kind == HS_LIFE_BDEV ? BDEV : DEV);
		CMP(l->address, 0);
	}
#undef CMP
}
