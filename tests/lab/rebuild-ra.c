/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rebuild-ra: rebuild a recorded session's lives and access stream from what
 * its database kept (the events table, and the touches of a built-in
 * workload, read back from the stored stream: in an exact session every FD
 * or PT record is one touch, at its time), with readahead
 *
 *	as-stored   the events as recorded (6.18: the readahead events)
 *	no-ra       readahead events dropped, nothing inferred (how 6.1 and
 *	            6.12 sessions were built before the inference)
 *	inferred    readahead events dropped, inferred (HS_LC_INFER_RA)
 *	inf-61      also get_pages, fault and map_pages dropped, inferred from
 *	            the touches alone (6.1's case)
 *
 * and prints, per build, the kernel-row counts of the workload's pages and
 * the builder's readahead counters; where the session has readahead events,
 * how many of the pages the traced rule flags each inference flags too
 * (lives matched by file, first page and birth time); with OUT_DB, each
 * build's stream as a new session there, to replay:
 *
 *	rebuild-ra DB SESSION [OUT_DB]
 *	hsctl --db OUT_DB replay N --policy mglru --param mglru.profile=p68 --size 16384
 *
 * The sessions it writes are imports (no kernel row, no fidelity).  With
 * --apply instead of OUT_DB it rewrites the recorded session in DB itself
 * as a build with the inference would have made it (run it on a copy): the
 * inferred stream replaces the stored one, the lives take the inferred
 * readahead flags (refused unless the rebuild without inference reproduces
 * every stored life), the lifecycle counters readahead_inferred and
 * readahead_unsettled are added and the session's runs and fidelity rows
 * dropped, so that replay prints the kernel row and fidelity works:
 *
 *	cp lab.db fid.db && rebuild-ra fid.db 4 --apply && hsctl --db fid.db fidelity 4
 *
 * The workload task is the busiest adder and reader of the session
 * (recordings.pid is the recorder's).  Not built by make: from a build tree,
 *
 *	cc -O2 -I. -I$SRC/lib -o rebuild-ra $SRC/tests/lab/rebuild-ra.c lib/libhs.a \
 *		-lsqlite3 -ltracefs -ltraceevent -lm
 *
 * README "Fidelity" has the numbers it gave for the lab's and this host's
 * recordings (issue 9).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "access.h"
#include "event.h"
#include "lifecycle.h"
#include "store.h"

enum { M_STORED, M_NORA, M_INFER, M_INFER61, M_NR };
static const char *const mode_name[M_NR] = { "as-stored", "no-ra", "inferred", "inf-61" };

struct rec {
	uint64_t	key;
	uint64_t	ts;
	uint8_t		meta;
};

struct out {
	struct rec	*r;
	size_t		n;
	size_t		cap;
};

/* A life, for matching across builds (life ids differ when events are dropped). */
struct lk {
	uint64_t	ino;
	uint64_t	first;
	uint64_t	born;
	uint64_t	pages;
	uint8_t		flags;
	bool		wl;
};

struct build {
	struct out	o;		/* the stream */
	struct lk	*byid;		/* lives by id */
	struct lk	*lk;		/* lives, sorted by lk_cmp() */
	size_t		n;
	struct hs_lifecycle_checks ck;
	uint64_t	demand;		/* the workload's pages: seen births not read ahead */
	uint64_t	ra;		/* read ahead */
	uint64_t	ra_unused;	/* of them, never accessed */
	uint64_t	refaults;
	uint64_t	evicted;	/* died by reclaim or pageout */
};

struct keyinfo {
	int		kind;
	uint64_t	dev;
	uint64_t	ino;
	uint64_t	page;
};

static struct hs_event *evs, *touches;
static size_t nevs, ntouches;
static int32_t wpid;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("rebuild-ra: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static int emit(void *arg, uint64_t key, uint8_t meta, uint64_t ts)
{
	struct out *o = arg;

	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 65536;
		o->r = xrealloc(o->r, o->cap * sizeof(*o->r));
	}
	o->r[o->n++] = (struct rec){ .key = key, .ts = ts, .meta = meta };
	return 0;
}

static int lk_cmp(const void *a, const void *b)
{
	const struct lk *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->born != y->born)
		return x->born < y->born ? -1 : 1;
	return 0;
}

static bool dropped(int mode, uint16_t type)
{
	if (mode != M_STORED && type == HS_EV_READAHEAD)
		return true;
	return mode == M_INFER61 && (type == HS_EV_FILEMAP_GET_PAGES ||
				     type == HS_EV_FILEMAP_FAULT ||
				     type == HS_EV_FILEMAP_MAP_PAGES);
}

/* Events and touches merged by time, kernel events first at a tie (as recbuild does). */
static void build(int mode, struct build *b)
{
	struct hs_lifecycle_opts lo = { .emit = emit };
	struct hs_lifecycle *lc;
	size_t i = 0, j = 0;

	memset(b, 0, sizeof(*b));
	lo.emit_arg = &b->o;
	lo.flags = HS_LC_SCOPED | HS_LC_TOUCH_ONLY;
	if (mode == M_INFER || mode == M_INFER61)
		lo.flags |= HS_LC_INFER_RA;
	if (hs_lifecycle_new(&lo, &lc) || hs_lifecycle_add_scope(lc, wpid))
		die("lifecycle builder: out of memory");
	while (i < nevs || j < ntouches) {
		const struct hs_event *e;

		if (j >= ntouches || (i < nevs && evs[i].ts_ns <= touches[j].ts_ns))
			e = &evs[i++];
		else
			e = &touches[j++];
		if (!dropped(mode, e->type) && hs_lifecycle_event(lc, e))
			die("lifecycle builder: event at %" PRIu64 " failed", e->ts_ns);
	}
	if (hs_lifecycle_finish(lc))
		die("lifecycle builder: finish failed");
	hs_lifecycle_get_checks(lc, &b->ck);
	b->n = hs_lifecycle_nr_lives(lc);
	b->lk = xrealloc(NULL, (b->n ? b->n : 1) * sizeof(*b->lk));
	b->byid = xrealloc(NULL, (b->n ? b->n : 1) * sizeof(*b->byid));
	for (i = 0; i < b->n; i++) {
		const struct hs_folio_life *l = hs_lifecycle_life(lc, i);

		b->lk[i] = (struct lk){ l->ino, l->first_page, l->born_ns, l->pages, l->flags,
					l->workload };
		b->byid[i] = b->lk[i];
		if (!l->workload)
			continue;
		if (!(l->flags & (HS_LIFE_F_READAHEAD | HS_LIFE_F_UNSEEN_BIRTH)))
			b->demand += l->pages;
		if (l->flags & HS_LIFE_F_READAHEAD) {
			b->ra += l->pages;
			b->ra_unused += l->accesses ? 0 : l->pages;
		}
		b->refaults += l->refault ? l->pages : 0;
		if (l->death_cause == HS_DEATH_RECLAIM || l->death_cause == HS_DEATH_PAGEOUT)
			b->evicted += l->pages;
	}
	hs_lifecycle_free(lc);
	qsort(b->lk, b->n, sizeof(*b->lk), lk_cmp);
}

/* Pages the traced build @t flags readahead, found, missed and falsely flagged by @b. */
static void agreement(const struct build *t, const struct build *b, const char *name)
{
	uint64_t found = 0, missed = 0, wrong = 0, wfound = 0, wmissed = 0, wwrong = 0;
	size_t i, j = 0;

	for (i = 0; i < t->n; i++) {
		const struct lk *x = &t->lk[i];
		bool a = x->flags & HS_LIFE_F_READAHEAD, c = false;

		while (j < b->n && lk_cmp(&b->lk[j], x) < 0)
			j++;
		if (j < b->n && !lk_cmp(&b->lk[j], x))
			c = b->lk[j].flags & HS_LIFE_F_READAHEAD;
		if (!x->born)
			continue;	/* births not seen: never readahead */
		found += a && c ? x->pages : 0;
		missed += a && !c ? x->pages : 0;
		wrong += !a && c ? x->pages : 0;
		if (x->wl) {
			wfound += a && c ? x->pages : 0;
			wmissed += a && !c ? x->pages : 0;
			wwrong += !a && c ? x->pages : 0;
		}
	}
	printf("%s vs traced, pages: all lives %" PRIu64 " traced, %" PRIu64 " found, %" PRIu64
	       " missed, %" PRIu64 " false; the workload's %" PRIu64 " traced, %" PRIu64
	       " found, %" PRIu64 " missed, %" PRIu64 " false\n", name, found + missed, found,
	       missed, wrong, wfound + wmissed, wfound, wmissed, wwrong);
}

static int64_t write_session(struct hs_store *st, const char *name, const struct out *o)
{
	struct hs_session_meta m = { .source = "import", .name = name, .origin = name,
				     .format = "rebuild-ra", .unit = "page", .kind = "file",
				     .channel = "fd" };
	struct hs_session_writer *w;
	int64_t id = 0;
	size_t i;

	if (hs_session_begin(st, &m, &w))
		die("%s: %s", name, hs_store_errmsg(st));
	for (i = 0; i < o->n; i++)
		if (hs_session_add_ts(w, o->r[i].key, o->r[i].meta, o->r[i].ts))
			die("%s: record %zu: %s", name, i, hs_store_errmsg(st));
	if (hs_session_commit(w, &id))
		die("%s: commit: %s", name, hs_store_errmsg(st));
	return id;
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql, int64_t session)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		die("%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(s, 1, session);
	return s;
}

static void load_events(sqlite3 *db, int64_t session, bool *has_ra)
{
	sqlite3_stmt *s;
	size_t cap = 0;

	/* the recorder's pid is stored; the workload is the busiest adder and reader */
	s = prep(db, "SELECT pid FROM events WHERE session = ?1 AND type IN (1, 3)"
		 " GROUP BY pid ORDER BY count(*) DESC LIMIT 1", session);
	if (sqlite3_step(s) != SQLITE_ROW)
		die("session %" PRId64 ": no filemap adds or reads", session);
	wpid = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	s = prep(db, "SELECT ts_ns, cpu, pid, type, flags, folio_order, pfn, dev, ino, idx, last,"
		 " addr, a, b, c FROM events WHERE session = ?1 ORDER BY seq", session);
	*has_ra = false;
	while (sqlite3_step(s) == SQLITE_ROW) {
		struct hs_event *e;

		if (nevs == cap) {
			cap = cap ? cap * 2 : 65536;
			evs = xrealloc(evs, cap * sizeof(*evs));
		}
		e = &evs[nevs++];
		*e = (struct hs_event){
			.ts_ns = (uint64_t)sqlite3_column_int64(s, 0),
			.cpu = (uint32_t)sqlite3_column_int(s, 1),
			.pid = sqlite3_column_int(s, 2),
			.type = (uint16_t)sqlite3_column_int(s, 3),
			.flags = (uint16_t)sqlite3_column_int(s, 4),
			.order = (uint32_t)sqlite3_column_int(s, 5),
			.pfn = (uint64_t)sqlite3_column_int64(s, 6),
			.dev = (uint64_t)sqlite3_column_int64(s, 7),
			.ino = (uint64_t)sqlite3_column_int64(s, 8),
			.index = (uint64_t)sqlite3_column_int64(s, 9),
			.last = (uint64_t)sqlite3_column_int64(s, 10),
			.addr = (uint64_t)sqlite3_column_int64(s, 11),
			.a = (uint64_t)sqlite3_column_int64(s, 12),
			.b = (uint64_t)sqlite3_column_int64(s, 13),
			.c = (uint64_t)sqlite3_column_int64(s, 14),
		};
		*has_ra |= e->type == HS_EV_READAHEAD;
	}
	sqlite3_finalize(s);
	if (!nevs)
		die("session %" PRId64 " stored no events (recorded with --no-events?)", session);
}

/* The workload's touches: the stored stream's FD and PT records, named by record_keys. */
static void load_touches(sqlite3 *db, struct hs_store *st, int64_t session)
{
	struct hs_session_reader *r = NULL;
	struct keyinfo *ki = NULL;
	uint64_t *ids = NULL, nids = 0, *ts = NULL;
	uint32_t *keys = NULL;
	uint8_t *meta = NULL;
	size_t nki = 0;
	sqlite3_stmt *s;
	int64_t n, i;

	s = prep(db, "SELECT key, kind, coalesce(dev, 0), coalesce(ino, 0), page"
		 " FROM record_keys WHERE session = ?1", session);
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t k = (uint64_t)sqlite3_column_int64(s, 0);

		if (k >= nki) {
			size_t n2 = (size_t)(k + 1) * 2;

			ki = xrealloc(ki, n2 * sizeof(*ki));
			memset(ki + nki, 0, (n2 - nki) * sizeof(*ki));
			nki = n2;
		}
		ki[k] = (struct keyinfo){ sqlite3_column_int(s, 1),
					  (uint64_t)sqlite3_column_int64(s, 2),
					  (uint64_t)sqlite3_column_int64(s, 3),
					  (uint64_t)sqlite3_column_int64(s, 4) };
	}
	sqlite3_finalize(s);
	if (hs_session_read_open(st, session, &r))
		die("session %" PRId64 ": %s", session, hs_store_errmsg(st));
	n = hs_session_read_all_ts(r, &keys, &meta, &ts);
	if (n < 0 || !ts)
		die("session %" PRId64 ": its stream has no times", session);
	if (hs_session_key_ids(st, session, &ids, &nids))
		die("session %" PRId64 ": %s", session, hs_store_errmsg(st));
	touches = xrealloc(NULL, ((size_t)n + 1) * sizeof(*touches));
	for (i = 0; i < n; i++) {
		enum hs_channel ch = hs_meta_channel(meta[i]);
		struct hs_event *e;
		struct keyinfo *k;

		if (ch != HS_CH_FD && ch != HS_CH_PT)
			continue;
		if (keys[i] >= nids || ids[keys[i]] >= nki)
			die("session %" PRId64 ": record %" PRId64 " names no stored key", session, i);
		k = &ki[ids[keys[i]]];
		e = &touches[ntouches++];
		*e = (struct hs_event){ .type = HS_EV_TOUCH, .ts_ns = ts[i], .pid = wpid };
		if (k->kind == HS_LIFE_ANON) {
			e->flags |= HS_EVF_ANON;
			e->addr = k->page << HS_LC_PAGE_SHIFT;
		} else {
			e->flags |= ch == HS_CH_FD ? HS_EVF_FD : 0;
			e->dev = k->dev;
			e->ino = k->ino;
			e->index = k->page;
		}
		if (meta[i] & HS_META_WRITE)
			e->flags |= HS_EVF_WRITE;
	}
	free(keys);
	free(meta);
	free(ts);
	free(ids);
	free(ki);
	hs_session_read_close(r);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		die("%s", err ? err : sqlite3_errmsg(db));
}

/*
 * --apply: the inferred build @inf replaces the stored session's stream and
 * readahead flags, in the database @path.  @plain (no inference) must match
 * every stored life, so that life ids line up.
 */
static void apply(const char *path, int64_t session, const struct build *plain,
		  const struct build *inf)
{
	struct hs_store *st;
	sqlite3_stmt *s;
	size_t stored = 0, bad = 0, i;
	int64_t tmp;
	char sql[2048];
	sqlite3 *db;

	if (hs_store_open(path, 0, &st))
		die("%s: cannot open for writing", path);
	tmp = write_session(st, "rebuild-ra-apply", &inf->o);
	hs_store_close(st);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		die("%s: %s", path, sqlite3_errmsg(db));
	s = prep(db, "SELECT life, coalesce(ino, 0), first_page, coalesce(born_ns, 0), flags"
		 " FROM folio_lives WHERE session = ?1", session);
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t id = (uint64_t)sqlite3_column_int64(s, 0);
		const struct lk *l = id < plain->n ? &plain->byid[id] : NULL;

		stored++;
		bad += !l || l->ino != (uint64_t)sqlite3_column_int64(s, 1) ||
		       l->first != (uint64_t)sqlite3_column_int64(s, 2) ||
		       l->born != (uint64_t)sqlite3_column_int64(s, 3) ||
		       l->flags != (uint8_t)sqlite3_column_int(s, 4);
	}
	sqlite3_finalize(s);
	if (bad || stored != plain->n || plain->n != inf->n) {
		snprintf(sql, sizeof(sql), "DELETE FROM sessions WHERE id = %" PRId64, tmp);
		exec_sql(db, sql);
		die("session %" PRId64 ": the rebuild does not reproduce the stored lives (%zu of"
		    " %zu differ, %zu rebuilt): not applied", session, bad, stored, plain->n);
	}
	exec_sql(db, "PRAGMA foreign_keys = ON; BEGIN");
	s = prep(db, "UPDATE folio_lives SET flags = ?2 WHERE session = ?1 AND life = ?3", session);
	for (i = 0; i < inf->n; i++) {
		sqlite3_bind_int(s, 2, inf->byid[i].flags);
		sqlite3_bind_int64(s, 3, (int64_t)i);
		if (sqlite3_step(s) != SQLITE_DONE)
			die("%s", sqlite3_errmsg(db));
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	snprintf(sql, sizeof(sql),
		 "DELETE FROM access_chunks WHERE session = %1$" PRId64 ";"
		 "UPDATE access_chunks SET session = %1$" PRId64 " WHERE session = %2$" PRId64 ";"
		 "DELETE FROM session_keys WHERE session = %1$" PRId64 ";"
		 "UPDATE session_keys SET session = %1$" PRId64 " WHERE session = %2$" PRId64 ";"
		 "UPDATE sessions SET (records, accesses, distinct_keys) = (SELECT records,"
		 " accesses, distinct_keys FROM sessions WHERE id = %2$" PRId64 ")"
		 " WHERE id = %1$" PRId64 ";"
		 "DELETE FROM sessions WHERE id = %2$" PRId64 ";"
		 "DELETE FROM runs WHERE session = %1$" PRId64 ";"
		 "DELETE FROM fidelity WHERE session = %1$" PRId64 " OR against = %1$" PRId64 ";"
		 "INSERT OR REPLACE INTO record_counters (session, file, scope, name, before, after,"
		 " delta) VALUES (%1$" PRId64 ", 'lifecycle', 'session', 'readahead_inferred', 0,"
		 " %3$" PRIu64 ", %3$" PRIu64 "), (%1$" PRId64 ", 'lifecycle', 'session',"
		 " 'readahead_unsettled', 0, %4$" PRIu64 ", %4$" PRIu64 ");"
		 "COMMIT", session, tmp, inf->ck.readahead_inferred, inf->ck.ra_unsettled);
	exec_sql(db, sql);
	sqlite3_close(db);
	printf("session %" PRId64 ": the inferred build applied\n", session);
}

int main(int argc, char **argv)
{
	static struct build b[M_NR];
	struct hs_store *st, *ost;
	int64_t session;
	bool has_ra;
	sqlite3 *db;
	int m;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: rebuild-ra DB SESSION [OUT_DB | --apply]\n");
		return 64;
	}
	session = atoll(argv[2]);
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die("%s: %s", argv[1], sqlite3_errmsg(db));
	if (hs_store_open(argv[1], HS_STORE_RDONLY, &st))
		die("%s: cannot open as an hsctl database (migrate it first)", argv[1]);
	load_events(db, session, &has_ra);
	load_touches(db, st, session);
	printf("session %" PRId64 ": workload task %d, %zu events (readahead events: %s), %zu"
	       " touches\n", session, wpid, nevs, has_ra ? "yes" : "no", ntouches);
	for (m = 0; m < M_NR; m++) {
		if (m == M_STORED && !has_ra)
			continue;
		build(m, &b[m]);
		printf("%-9s the workload's pages: demand %" PRIu64 ", read ahead %" PRIu64
		       " (unused %" PRIu64 "), refaults %" PRIu64 ", evicted %" PRIu64
		       "; readahead records %" PRIu64 ", inferred %" PRIu64 ", unsettled lives %"
		       PRIu64 "\n", mode_name[m], b[m].demand, b[m].ra, b[m].ra_unused,
		       b[m].refaults, b[m].evicted, b[m].ck.readahead, b[m].ck.readahead_inferred,
		       b[m].ck.ra_unsettled);
	}
	if (has_ra) {
		agreement(&b[M_STORED], &b[M_INFER], mode_name[M_INFER]);
		agreement(&b[M_STORED], &b[M_INFER61], mode_name[M_INFER61]);
	}
	if (argc == 4 && !strcmp(argv[3], "--apply")) {
		if (has_ra)
			die("session %" PRId64 " has readahead events: nothing to infer", session);
		hs_store_close(st);
		sqlite3_close(db);
		apply(argv[1], session, &b[M_NORA], &b[M_INFER]);
		return 0;
	}
	if (argc == 4) {
		if (hs_store_open(argv[3], 0, &ost))
			die("%s: cannot open or create", argv[3]);
		for (m = 0; m < M_NR; m++) {
			char name[64];

			if (m == M_STORED && !has_ra)
				continue;
			snprintf(name, sizeof(name), "s%" PRId64 "-%s", session, mode_name[m]);
			printf("%s: session %" PRId64 "\n", name, write_session(ost, name, &b[m].o));
		}
		hs_store_close(ost);
	}
	hs_store_close(st);
	sqlite3_close(db);
	return 0;
}
