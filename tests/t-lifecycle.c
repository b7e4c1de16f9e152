/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder (lib/lifecycle.c) and its pfn interval map
 * (lib/pfnmap.c) on hand-built event streams.  Every stream is a C
 * array written as a timeline; the lives, death causes, refault distances,
 * stream records and check counters expected from it are worked out by hand
 * in the comments beside it, from the rules in lifecycle.c's essay.  The pfn
 * map is also run against a brute-force list of ranges on a seeded random
 * sequence of operations.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "event.h"
#include "harness.h"
#include "lifecycle.h"
#include "pfnmap.h"

#define DEV	(((uint64_t)8 << 20) | 1)	/* kernel dev_t of sda1 (8:1) */
#define BDEV	((uint64_t)HS_LC_BDEV_DEV)	/* 0:3, the block-device page cache */

/* Event constructors: (time, pid, ...) */
#define ADD(t, p, i, x, f, o) { .ts_ns = (t), .pid = (p), .type = HS_EV_FILEMAP_ADD, \
	.dev = DEV, .ino = (i), .index = (x), .pfn = (f), .order = (o) }
#define DEL(t, p, i, x, f, o) { .ts_ns = (t), .pid = (p), .type = HS_EV_FILEMAP_DELETE, \
	.dev = DEV, .ino = (i), .index = (x), .pfn = (f), .order = (o) }
#define GP(t, p, i, x, l) { .ts_ns = (t), .pid = (p), .type = HS_EV_FILEMAP_GET_PAGES, \
	.dev = DEV, .ino = (i), .index = (x), .last = (l) }
#define MAPP(t, p, c, i, x, l) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_FILEMAP_MAP_PAGES, .dev = DEV, .ino = (i), .index = (x), .last = (l) }
#define FFAULT(t, p, c, i, x) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_FILEMAP_FAULT, .dev = DEV, .ino = (i), .index = (x) }
#define RA(t, p, i, x, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_READAHEAD, .dev = DEV, \
	.ino = (i), .index = (x), .a = (n) }
#define MBEGIN(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_MEMCG_RECLAIM_BEGIN }
#define MEND(t, p, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_MEMCG_RECLAIM_END, .a = (n) }
#define SHRINK(t, p, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_SHRINK_INACTIVE, .a = (n), \
	.c = 1 }
#define KWAKE(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_KSWAPD_WAKE }
#define KSLEEP(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_KSWAPD_SLEEP }
#define SLAB_S(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_SHRINK_SLAB_START }
#define SLAB_E(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_SHRINK_SLAB_END }
#define RPAGES(t, p, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_RECLAIM_PAGES, .a = (n), \
	.b = (n) }
#define INS(t, p, c, f, fl) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_LRU_INSERTION, .pfn = (f), .b = (fl) }
#define ACT(t, p, f) { .ts_ns = (t), .pid = (p), .type = HS_EV_LRU_ACTIVATE, .pfn = (f) }
#define WF(t, p, f, fl) { .ts_ns = (t), .pid = (p), .type = HS_EV_WRITE_FOLIO, .pfn = (f), \
	.flags = (fl) }
#define PF(t, p, c, ad, e) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_PAGE_FAULT_USER, .addr = (ad), .a = (e) }
#define MADV(t, p, ad, len, beh) { .ts_ns = (t), .pid = (p), .type = HS_EV_MADVISE, \
	.addr = (ad), .a = (len), .b = (beh) }
#define FORK(t, p, child) { .ts_ns = (t), .pid = (p), .type = HS_EV_PROCESS_FORK, .a = (child) }
#define EXIT(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_PROCESS_EXIT }
#define TNEW(t, p, child, fl) { .ts_ns = (t), .pid = (p), .type = HS_EV_TASK_NEW, \
	.a = (child), .b = (fl) }
#define LOST(t, n) { .ts_ns = (t), .type = HS_EV_LOST, .a = (n) }
#define TOUCH(t, p, i, x, fl) { .ts_ns = (t), .pid = (p), .type = HS_EV_TOUCH, .dev = DEV, \
	.ino = (i), .index = (x), .flags = (fl) }

/* clone_flags as this host's task_newtask showed them (testdata/decode/6.18-cpu0-newtask.txt) */
#define CL_THREAD	0x3d0f00	/* pthread_create: CLONE_VM | ... | CLONE_THREAD | ... */
#define CL_FORK		0x1200000	/* fork(): CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID */

/* lru_insertion flags as the kernel prints them */
#define LRU_FILE	0x04	/* file */
#define LRU_ANON_NEW	0x33	/* mapped | anon | swapbacked | mappedtodisk: first touch */
#define LRU_SWAPIN	0x1c	/* file | swapcache | swapbacked: a swap-in */

/* Meta bytes (lib/access.h: channel | 0x08 anon | 0x10 write) */
#define M_FD		0x00
#define M_PT		0x01
#define M_PT_W		0x11
#define M_DROP		0x04
#define M_APT		0x09	/* anon PT */
#define M_APT_W		0x19	/* anon PT, write */
#define M_APAGEOUT	0x0a
#define M_ACOLD		0x0b
#define M_ADROP		0x0c

#define A_F		HS_LIFE_FILE
#define A_A		HS_LIFE_ANON
#define A_B		HS_LIFE_BDEV
#define D_ALIVE		HS_DEATH_NONE
#define D_RECL		HS_DEATH_RECLAIM
#define D_PGOUT		HS_DEATH_PAGEOUT
#define D_TRUNC		HS_DEATH_TRUNCATE
#define D_UNK		HS_DEATH_UNKNOWN

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- the access-stream sink ---- */

struct rec {
	uint64_t	key;		/* key-table id */
	uint8_t		meta;		/* meta byte */
};

struct sink {
	struct rec	r[64];		/* records, in order */
	size_t		n;		/* records received (may exceed 64: then lost) */
	size_t		fail_at;	/* fail the record with this number (1-based); 0 never */
};

static int sink_emit(void *arg, uint64_t key, uint8_t meta)
{
	struct sink *s = arg;

	if (s->fail_at && s->n + 1 == s->fail_at)
		return -EIO;
	if (s->n < N(s->r))
		s->r[s->n] = (struct rec){ .key = key, .meta = meta };
	s->n++;
	return 0;
}

static void stream_is(int line, const struct sink *s, const struct rec *x, size_t n)
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

#define STREAM_IS(s, ...) do { \
	static const struct rec x_[] = { __VA_ARGS__ }; \
	stream_is(__LINE__, (s), x_, N(x_)); \
} while (0)
#define STREAM_EMPTY(s) T_EQ_U64((s)->n, 0)

/* ---- builder runs ---- */

static struct hs_lifecycle *lc_open(unsigned int flags, struct sink *s)
{
	struct hs_lifecycle_opts o = { .flags = flags, .emit = sink_emit, .emit_arg = s };
	struct hs_lifecycle *lc = NULL;

	memset(s, 0, sizeof(*s));
	if (hs_lifecycle_new(&o, &lc))
		t_fail(__FILE__, __LINE__, "hs_lifecycle_new failed");
	return lc;
}

static void feed(struct hs_lifecycle *lc, const struct hs_event *ev, size_t n)
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

static void feed_finish(struct hs_lifecycle *lc, const struct hs_event *ev, size_t n)
{
	feed(lc, ev, n);
	T_EQ_I64(hs_lifecycle_finish(lc), 0);
}

static struct hs_lifecycle_checks checks(const struct hs_lifecycle *lc)
{
	struct hs_lifecycle_checks c;

	hs_lifecycle_get_checks(lc, &c);
	return c;
}

/* An expected life: who is the inode (file, bdev) or the tgid (anon). */
struct xl {
	uint8_t		kind;		/* enum hs_life_kind */
	uint64_t	who;		/* ino (file, bdev) or tgid (anon) */
	uint64_t	first;		/* first_page */
	uint64_t	pages;		/* pages */
	uint64_t	born;		/* born_ns */
	uint64_t	died;		/* died_ns */
	uint8_t		cause;		/* death_cause */
	uint8_t		flags;		/* HS_LIFE_F_* */
	bool		refault;	/* refault */
	uint64_t	dist;		/* refault_distance */
	uint64_t	rns;		/* refault_ns */
};

static void life_is(int line, const struct hs_lifecycle *lc, size_t id, struct xl x)
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

#define LIFE(lc, id, ...) life_is(__LINE__, (lc), (id), (struct xl){ __VA_ARGS__ })

/* ---- 1. a file read twice under a memcg limit ---- */

/*
 * Task 100 reads ino 7 (4 pages) twice, one read() per page, in a memcg that
 * holds 2 of them: every add from the third on first reclaims the oldest
 * page inside a memcg window, closed by shrink_inactive (nr_reclaimed 1).
 * Frames are reused as soon as they are freed.
 *
 *   t   event                          life
 *  10   add p0 pfn 0x100               L0 born
 *  20   add p1 pfn 0x101               L1 born
 *  31   del p0 (in window)             L0 dies reclaim, clock 1
 *  34   add p2 pfn 0x100               L2 born
 *  41   del p1                         L1 dies, clock 2
 *  44   add p3 pfn 0x101               L3
 *  51   del p2                         L2 dies, clock 3
 *  54   add p0 pfn 0x102               L4: refault of L0 (died_clock 1):
 *                                      distance 3 - 1 = 2, 54 - 31 = 23 ns
 *  61   del p3                         L3 dies, clock 4
 *  64   add p1 pfn 0x100               L5: refault of L1: 4 - 2 = 2, 23 ns
 *  71   del p0                         L4 dies, clock 5
 *  74   add p2 pfn 0x101               L6: refault of L2: 5 - 3 = 2, 23 ns
 *  81   del p1                         L5 dies, clock 6
 *  84   add p3 pfn 0x102               L7: refault of L3: 6 - 4 = 2, 23 ns
 */
static const struct hs_event scan_twice[] = {
	ADD(10, 100, 7, 0, 0x100, 0), GP(11, 100, 7, 0, 0),
	ADD(20, 100, 7, 1, 0x101, 0), GP(21, 100, 7, 1, 1),
	MBEGIN(30, 100), DEL(31, 100, 7, 0, 0x100, 0), SHRINK(32, 100, 1), MEND(33, 100, 1),
	ADD(34, 100, 7, 2, 0x100, 0), GP(35, 100, 7, 2, 2),
	MBEGIN(40, 100), DEL(41, 100, 7, 1, 0x101, 0), SHRINK(42, 100, 1), MEND(43, 100, 1),
	ADD(44, 100, 7, 3, 0x101, 0), GP(45, 100, 7, 3, 3),
	MBEGIN(50, 100), DEL(51, 100, 7, 2, 0x100, 0), SHRINK(52, 100, 1), MEND(53, 100, 1),
	ADD(54, 100, 7, 0, 0x102, 0), GP(55, 100, 7, 0, 0),
	MBEGIN(60, 100), DEL(61, 100, 7, 3, 0x101, 0), SHRINK(62, 100, 1), MEND(63, 100, 1),
	ADD(64, 100, 7, 1, 0x100, 0), GP(65, 100, 7, 1, 1),
	MBEGIN(70, 100), DEL(71, 100, 7, 0, 0x102, 0), SHRINK(72, 100, 1), MEND(73, 100, 1),
	ADD(74, 100, 7, 2, 0x101, 0), GP(75, 100, 7, 2, 2),
	MBEGIN(80, 100), DEL(81, 100, 7, 1, 0x100, 0), SHRINK(82, 100, 1), MEND(83, 100, 1),
	ADD(84, 100, 7, 3, 0x102, 0), GP(85, 100, 7, 3, 3),
};

static void t_scan_twice(void)
{
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct hs_lc_key k;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, scan_twice, N(scan_twice));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 8);
	LIFE(lc, 0, A_F, 7, 0, 1, 10, 31, D_RECL, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 20, 41, D_RECL, 0, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 2, 1, 34, 51, D_RECL, 0, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 44, 61, D_RECL, 0, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 0, 1, 54, 71, D_RECL, 0, true, 2, 23);
	LIFE(lc, 5, A_F, 7, 1, 1, 64, 81, D_RECL, 0, true, 2, 23);
	LIFE(lc, 6, A_F, 7, 2, 1, 74, 0, D_ALIVE, 0, true, 2, 23);
	LIFE(lc, 7, A_F, 7, 3, 1, 84, 0, D_ALIVE, 0, true, 2, 23);
	/* Each read is held until the next one, while its page is still alive. */
	T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 1);
	T_EQ_U64(hs_lifecycle_life(lc, 7)->accesses, 1);
	/* Keys are numbered by first use: page i is key i. */
	STREAM_IS(&s, { 0, M_FD }, { 1, M_FD }, { 2, M_FD }, { 3, M_FD },
		  { 0, M_FD }, { 1, M_FD }, { 2, M_FD }, { 3, M_FD });
	T_EQ_U64(hs_lifecycle_nr_keys(lc), 4);
	T_EQ_I64(hs_lifecycle_key(lc, 2, &k), 0);
	T_EQ_U64(k.kind, HS_LIFE_FILE);
	T_EQ_U64(k.dev, DEV);
	T_EQ_U64(k.ino, 7);
	T_EQ_U64(k.index, 2);
	T_EQ_I64(hs_lifecycle_key(lc, 4, &k), -ENOENT);

	c = checks(lc);
	/* 6 reclaim deaths, 6 shrink_inactive events of nr_reclaimed 1 */
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_OK);
	T_EQ_U64(c.reclaim_death_pages, 6);
	T_EQ_U64(c.shrink_inactive_events, 6);
	T_EQ_U64(c.shrink_inactive_reclaimed, 6);
	T_EQ_U64(c.reclaim_end_reclaimed, 6);
	T_EQ_U64(c.pageout_status, HS_LC_CHECK_NA);
	T_EQ_U64(c.join_status, HS_LC_CHECK_NA);
	T_EQ_U64(c.lost_status, HS_LC_CHECK_OK);
	T_EQ_U64(c.death_pages[HS_DEATH_RECLAIM], 6);
	T_EQ_U64(c.death_pages[HS_DEATH_NONE], 2);
	T_EQ_U64(c.refaults, 4);
	T_EQ_U64(c.lives[HS_LIFE_FILE], 8);
	T_EQ_U64(c.accesses, 8);
	T_EQ_U64(c.anomalies, 0);
	T_EQ_U64(c.pfn_stale, 0);
	hs_lifecycle_free(lc);
}

/* A shrink_inactive that claims more than the deaths seen: the check differs. */
static void t_reclaim_check_differs(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0),
		MBEGIN(2, 100), DEL(3, 100, 7, 0, 0x10, 0), SHRINK(4, 100, 3), MEND(5, 100, 3),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	c = checks(lc);
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_DIFF);
	T_EQ_U64(c.reclaim_death_pages, 1);
	T_EQ_U64(c.shrink_inactive_reclaimed, 3);
	hs_lifecycle_free(lc);
}

/* ---- 2. get_pages ranges ---- */

/*
 * One read() of pages 0..7 served in two batches: get_pages [0, 7] then
 * [4, 7].  The second continues the first (same inode, same last, later
 * index), so the first covered 0..3; the second, the read's last batch,
 * covers 4..7.  8 FD records, not 12.
 */
static void t_get_pages_chain(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 2), ADD(2, 100, 7, 4, 0x14, 2),
		GP(3, 100, 7, 0, 7), GP(4, 100, 7, 4, 7),
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	/* keys 0..7 are pages 0..7 (made by the two order-2 adds) */
	STREAM_IS(&s, { 0, M_FD }, { 1, M_FD }, { 2, M_FD }, { 3, M_FD },
		  { 4, M_FD }, { 5, M_FD }, { 6, M_FD }, { 7, M_FD });
	/* Accesses count per folio: 4 on each. */
	T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 4);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->accesses, 4);
	hs_lifecycle_free(lc);
}

/*
 * A read past end of file: ino 7 has pages 0..2 (its extent is known from the
 * adds), the read asks for [0, 31]: only 0..2 were resident.  ino 9 was
 * cached before the trace (no add ever seen): all of [0, 3] is taken as
 * resident.  Then a read of ino 7 whose pages are deleted by reclaim before
 * the read's hold ends still streams them (they were alive at its time), and
 * a page added after it does not.
 */
static void t_get_pages_resident(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0), ADD(3, 100, 7, 2, 0x12, 0),
		GP(4, 100, 7, 0, 31),		/* -> keys 0, 1, 2 */
		GP(5, 100, 9, 0, 3),		/* -> keys 3..6 (ino 9, pages 0..3) */
		GP(6, 100, 7, 1, 5),		/* held; streams [1, 2] at its time */
		MBEGIN(7, 200), DEL(8, 200, 7, 1, 0x11, 0), MEND(9, 200, 1),
		ADD(10, 200, 7, 3, 0x13, 0),	/* added after the read: not read */
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	STREAM_IS(&s, { 0, M_FD }, { 1, M_FD }, { 2, M_FD },
		  { 3, M_FD }, { 4, M_FD }, { 5, M_FD }, { 6, M_FD },
		  { 1, M_FD }, { 2, M_FD });
	hs_lifecycle_free(lc);
}

/* Fault-around maps the resident pages of its range; a file fault is one page. */
static void t_map_pages(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 2, 0x12, 0), ADD(3, 100, 7, 5, 0x15, 0),
		MAPP(4, 100, 0, 7, 0, 15),	/* resident: 0, 2, 5; 1, 3, 4 had no life but
						 * lie within the extent (5): taken as cached
						 * before the trace; 6..15 past it */
		FFAULT(5, 100, 0, 7, 9),	/* one page, resident or not */
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	/* keys: 0 = p0, 1 = p2, 2 = p5 (adds), then p1 = 3, p3 = 4, p4 = 5, p9 = 6 */
	STREAM_IS(&s, { 0, M_PT }, { 3, M_PT }, { 1, M_PT }, { 4, M_PT }, { 5, M_PT },
		  { 2, M_PT }, { 6, M_PT });
	hs_lifecycle_free(lc);
}

/* ---- 3. large folios ---- */

/*
 * An order-9 folio (ino 8, pages 0..511, pfns 0x2000..0x21ff) and an order-2
 * one (pages 512..515, pfns 0x3004..0x3007).  pfn events inside a range join
 * it; one past either end does not.  Then a delete of page 5 alone shows the
 * order-9 folio was split: L0 keeps [0, 5), L2 = [5, 6) dies, L3 = [6, 512)
 * lives on, each piece with its frames.  The order-2 folio is truncated by
 * task 200 (no window; the stream ends, so the fallback decides).
 *
 *   pfn events          joins        life
 *   act 0x212c          yes          L0 (page 300)
 *   act 0x3007          yes          L1 (its last frame)
 *   act 0x3008          no           (one past)
 *   ins 0x3003 file     no           (one before)
 *   ins 0x2000 file     yes          L0
 *   write 0x21ff file   yes          L0 (a dirty pageout: nothing dies)
 *   act 0x2005          no           (freed by the delete)
 *   act 0x2006          yes          L3
 *   act 0x2004          yes          L0
 *   => 9 events, 6 joined, 3 not
 */
static const struct hs_event large[] = {
	ADD(10, 100, 8, 0, 0x2000, 9), ADD(11, 100, 8, 512, 0x3004, 2),
	ACT(12, 100, 0x212c), ACT(13, 100, 0x3007), ACT(14, 100, 0x3008),
	INS(15, 100, 0, 0x3003, LRU_FILE), INS(16, 100, 0, 0x2000, LRU_FILE),
	WF(17, 100, 0x21ff, 0),
	MBEGIN(19, 100), DEL(20, 100, 8, 5, 0x2005, 0), MEND(21, 100, 1),
	ACT(22, 100, 0x2005), ACT(23, 100, 0x2006), ACT(24, 100, 0x2004),
	DEL(30, 200, 8, 512, 0x3004, 2),
};

static void t_large_folios(void)
{
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;
	uint64_t page;
	size_t id;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	/* Before the split: the page a pfn holds is base + (pfn - head). */
	feed(lc, large, 2);
	T_EQ_I64(hs_lifecycle_pfn_page(lc, 0x212c, &id, &page), 0);
	T_EQ_U64(id, 0);
	T_EQ_U64(page, 300);
	T_EQ_I64(hs_lifecycle_pfn_page(lc, 0x3007, &id, &page), 0);
	T_EQ_U64(id, 1);
	T_EQ_U64(page, 515);
	T_EQ_I64(hs_lifecycle_pfn_page(lc, 0x3008, &id, &page), -ENOENT);
	T_EQ_I64(hs_lifecycle_pfn_page(lc, 0x1fff, &id, &page), -ENOENT);
	feed_finish(lc, large + 2, N(large) - 2);

	T_EQ_U64(hs_lifecycle_nr_lives(lc), 4);
	LIFE(lc, 0, A_F, 8, 0, 5, 10, 0, D_ALIVE, HS_LIFE_F_SPLIT, false, 0, 0);
	LIFE(lc, 1, A_F, 8, 512, 4, 11, 30, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 2, A_F, 8, 5, 1, 10, 20, D_RECL, HS_LIFE_F_SPLIT, false, 0, 0);
	LIFE(lc, 3, A_F, 8, 6, 506, 10, 0, D_ALIVE, HS_LIFE_F_SPLIT, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->pfn, 0x2005);
	T_EQ_U64(hs_lifecycle_life(lc, 3)->pfn, 0x2006);
	/* L0 had act 0x212c before the split (kept by the piece that kept its id)
	 * and act 0x2004 after; L3 act 0x2006; L1 act 0x3007. */
	T_EQ_U64(hs_lifecycle_life(lc, 0)->activations, 2);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->activations, 1);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->activations, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 3)->activations, 1);
	/* After the split, page 300 is in L3, its frame 0x212c: 6 + (0x212c - 0x2006). */
	T_EQ_I64(hs_lifecycle_pfn_page(lc, 0x212c, &id, &page), 0);
	T_EQ_U64(id, 3);
	T_EQ_U64(page, 300);
	T_EQ_I64(hs_lifecycle_pfn_page(lc, 0x2005, &id, &page), -ENOENT);

	c = checks(lc);
	T_EQ_U64(c.pfn_events, 9);
	T_EQ_U64(c.pfn_joined, 6);
	T_EQ_U64(c.pfn_unjoined, 3);
	T_EQ_U64(c.join_status, HS_LC_CHECK_DIFF);
	T_EQ_U64(c.splits, 1);
	T_EQ_U64(c.death_pages[HS_DEATH_RECLAIM], 1);
	T_EQ_U64(c.death_pages[HS_DEATH_TRUNCATE], 4);
	T_EQ_U64(c.death_pages[HS_DEATH_NONE], 511);	/* 5 + 506 */
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_NA);	/* no shrink_inactive */
	STREAM_EMPTY(&s);
	hs_lifecycle_free(lc);
}

/*
 * An order-2 delete over pages that were four order-0 lives: each dies.  An
 * order-2 delete at 4..7 where only page 5 had a life: page 5's life dies and
 * the runs 4 and 6..7 get lives of unseen birth (resident before the trace).
 */
static void t_delete_covers_many(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0),
		ADD(3, 100, 7, 2, 0x12, 0), ADD(4, 100, 7, 3, 0x13, 0),
		ADD(5, 100, 7, 5, 0x25, 0),
		MBEGIN(10, 100), DEL(11, 100, 7, 0, 0x10, 2), DEL(12, 100, 7, 4, 0x24, 2),
		MEND(13, 100, 8),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 7);
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 11, D_RECL, 0, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 4, 11, D_RECL, 0, false, 0, 0);
	LIFE(lc, 5, A_F, 7, 4, 1, 0, 12, D_RECL, HS_LIFE_F_UNSEEN_BIRTH, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 5, 1, 5, 12, D_RECL, 0, false, 0, 0);
	LIFE(lc, 6, A_F, 7, 6, 2, 0, 12, D_RECL, HS_LIFE_F_UNSEEN_BIRTH, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 6)->pfn, 0x26);
	c = checks(lc);
	T_EQ_U64(c.death_pages[HS_DEATH_RECLAIM], 8);
	T_EQ_U64(c.anomalies, 0);
	hs_lifecycle_free(lc);
}

/* ---- 4. pfn reuse ---- */

/*
 * Frame 0x500 holds ino 7 page 0 (L0) until its delete at 20; activations on
 * it after that join nothing, then it holds ino 9 page 4 (L1) and joins
 * that.  Frame 0x600 is added for ino 9 page 5 (L2) and then, with no delete
 * seen (migration, or a lost event), for ino 10 page 0 (L3): L2's range is
 * dropped as stale and the frame joins L3; L2 lives on without a range.
 */
static void t_pfn_reuse(void)
{
	static const struct hs_event ev[] = {
		ADD(10, 100, 7, 0, 0x500, 0),
		MBEGIN(19, 100), DEL(20, 100, 7, 0, 0x500, 0), MEND(21, 100, 1),
		ACT(22, 100, 0x500),		/* unjoined */
		ADD(30, 100, 9, 4, 0x500, 0),
		ACT(31, 100, 0x500),		/* L1 */
		INS(32, 100, 0, 0x500, LRU_FILE),	/* L1 */
		ADD(40, 100, 9, 5, 0x600, 0),
		ADD(41, 100, 10, 0, 0x600, 0),
		ACT(42, 100, 0x600),		/* L3 */
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 4);
	LIFE(lc, 0, A_F, 7, 0, 1, 10, 20, D_RECL, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 9, 4, 1, 30, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 2, A_F, 9, 5, 1, 40, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 3, A_F, 10, 0, 1, 41, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->activations, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->activations, 1);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->activations, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 3)->activations, 1);
	c = checks(lc);
	T_EQ_U64(c.pfn_events, 4);
	T_EQ_U64(c.pfn_joined, 3);
	T_EQ_U64(c.pfn_unjoined, 1);
	T_EQ_U64(c.pfn_stale, 1);
	hs_lifecycle_free(lc);
}

/* ---- 5. truncate inside the run ---- */

/*
 * Task 100 reads ino 7 pages 0 and 1; task 300 truncates the file (deletes
 * outside any window, pending until 300's next event, its exit, which
 * decides them as truncate); task 100 reads page 0 again: a new life, not a
 * refault.  The truncation's first delete streams 100's held read of page 1
 * before anything else, so the drops follow both reads.
 *
 *   t    stream
 *   13   FD k0 (100's held read of p0, flushed by its read of p1)
 *   20   FD k1 (100's held read of p1, flushed by the delete on ino 7)
 *   22   DROP k0, DROP k1 (300 exits: truncate decided)
 *   end  FD k0 (100's last read)
 */
static void t_truncate(void)
{
	static const struct hs_event ev[] = {
		ADD(10, 100, 7, 0, 0x100, 0), GP(11, 100, 7, 0, 0),
		ADD(12, 100, 7, 1, 0x101, 0), GP(13, 100, 7, 1, 1),
		DEL(20, 300, 7, 0, 0x100, 0), DEL(21, 300, 7, 1, 0x101, 0),
		EXIT(22, 300),
		ADD(30, 100, 7, 0, 0x200, 0), GP(31, 100, 7, 0, 0),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed(lc, ev, 6);
	/* Pending: the deaths have a time but no cause yet. */
	T_EQ_U64(hs_lifecycle_life(lc, 0)->death_cause, HS_DEATH_NONE);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->died_ns, 20);
	feed_finish(lc, ev + 6, N(ev) - 6);
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_F, 7, 0, 1, 10, 20, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 12, 21, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 0, 1, 30, 0, D_ALIVE, 0, false, 0, 0);
	STREAM_IS(&s, { 0, M_FD }, { 1, M_FD }, { 0, M_DROP }, { 1, M_DROP }, { 0, M_FD });
	c = checks(lc);
	T_EQ_U64(c.refaults, 0);
	T_EQ_U64(c.death_pages[HS_DEATH_TRUNCATE], 2);
	T_EQ_U64(c.drops, 2);
	T_EQ_U64(c.accesses, 3);
	hs_lifecycle_free(lc);
}

/* ---- 6. shrink_slab ---- */

/*
 * Inside a memcg window task 100 deletes page a (reclaim), then inside
 * shrink_slab_start..end page b (inode shrinking: truncate), then page c
 * (reclaim again).  Nothing was streamed, so no drop.
 */
static void t_shrink_slab(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 50, 7, 0, 0x10, 0), ADD(2, 50, 7, 1, 0x11, 0), ADD(3, 50, 7, 2, 0x12, 0),
		MBEGIN(10, 100), DEL(11, 100, 7, 0, 0x10, 0),
		SLAB_S(12, 100), DEL(13, 100, 7, 1, 0x11, 0), SLAB_E(14, 100),
		DEL(15, 100, 7, 2, 0x12, 0), MEND(16, 100, 2),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 11, D_RECL, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 2, 13, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 2, 1, 3, 15, D_RECL, 0, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.death_pages[HS_DEATH_RECLAIM], 2);
	T_EQ_U64(c.death_pages[HS_DEATH_TRUNCATE], 1);
	T_EQ_U64(c.drops, 0);
	STREAM_EMPTY(&s);
	hs_lifecycle_free(lc);
}

/* ---- 7. kswapd ---- */

/*
 * kswapd 40 wakes (t=10), deletes p0 (reclaim), sleeps, deletes p1 while
 * asleep (pending, truncate by fallback when it next wakes at 14).  kswapd 41
 * is seeded: taken as awake, its delete of p2 is reclaim; after its sleep a
 * delete of p3 is pending and the stream's end decides truncate.  kswapd 42,
 * never seen to wake (the trace began while it ran), deletes p4: pending,
 * and its sleep proves the window: reclaim.
 */
static void t_kswapd(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0), ADD(3, 100, 7, 2, 0x12, 0),
		ADD(4, 100, 7, 3, 0x13, 0), ADD(5, 100, 7, 4, 0x14, 0),
		KWAKE(10, 40), DEL(11, 40, 7, 0, 0x10, 0), KSLEEP(12, 40),
		DEL(13, 40, 7, 1, 0x11, 0), KWAKE(14, 40),
		DEL(15, 41, 7, 2, 0x12, 0), KSLEEP(16, 41), DEL(17, 41, 7, 3, 0x13, 0),
		DEL(18, 42, 7, 4, 0x14, 0), KSLEEP(19, 42),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_set_kswapd(lc, 41), 0);
	feed_finish(lc, ev, N(ev));
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 11, D_RECL, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 2, 13, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 2, 1, 3, 15, D_RECL, 0, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 4, 17, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 4, 1, 5, 18, D_RECL, 0, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.death_pages[HS_DEATH_RECLAIM], 3);
	T_EQ_U64(c.death_pages[HS_DEATH_TRUNCATE], 2);
	hs_lifecycle_free(lc);
}

/* ---- 8. lost events ---- */

/*
 *   t    event                        effect
 *  1-5   add p0..p4 (task 100)        L0..L4, epoch 0
 *  10    memcg begin (100)
 *  11    del p0 (100, in window)      L0 reclaim, clock 1 (died_clock 1)
 *  12    del p3 (300, no window)      L3 pending, fallback truncate
 *  13    LOST 5                       L3 -> unknown; 100's window forgotten;
 *                                     epoch 1
 *  14    del p1 (100: state unknown)  L1 pending, fallback unknown
 *  15    memcg end (100, depth 0)     a closer: L1 reclaim, clock 2
 *  16    del p2 (200: first seen      L2 pending, fallback unknown
 *        after the gap: unknown)
 *  17    exit 200                     L2 -> unknown
 *  20    add p0                       L5: L0's reclaim death is before the
 *                                     gap: not claimed (distrusted), GAP
 *  21    add p1                       L6: refault of L1 (epoch 1):
 *                                     distance 2 - 2 = 0, 21 - 14 = 7 ns
 *  end                                L4 alive across the gap: GAP
 */
static void t_lost(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0), ADD(3, 100, 7, 2, 0x12, 0),
		ADD(4, 100, 7, 3, 0x13, 0), ADD(5, 100, 7, 4, 0x14, 0),
		MBEGIN(10, 100), DEL(11, 100, 7, 0, 0x10, 0), DEL(12, 300, 7, 3, 0x13, 0),
		LOST(13, 5),
		DEL(14, 100, 7, 1, 0x11, 0), MEND(15, 100, 2),
		DEL(16, 200, 7, 2, 0x12, 0), EXIT(17, 200),
		ADD(20, 100, 7, 0, 0x20, 0), ADD(21, 100, 7, 1, 0x21, 0),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 7);
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 11, D_RECL, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 2, 14, D_RECL, HS_LIFE_F_GAP, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 2, 1, 3, 16, D_UNK, HS_LIFE_F_GAP, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 4, 12, D_UNK, 0, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 4, 1, 5, 0, D_ALIVE, HS_LIFE_F_GAP, false, 0, 0);
	LIFE(lc, 5, A_F, 7, 0, 1, 20, 0, D_ALIVE, HS_LIFE_F_GAP, false, 0, 0);
	LIFE(lc, 6, A_F, 7, 1, 1, 21, 0, D_ALIVE, 0, true, 0, 7);
	c = checks(lc);
	T_EQ_U64(c.lost_status, HS_LC_CHECK_DIFF);
	T_EQ_U64(c.gaps, 1);
	T_EQ_U64(c.lost_events, 5);
	T_EQ_U64(c.gaps_uncounted, 0);
	T_EQ_U64(c.death_pages[HS_DEATH_RECLAIM], 2);
	T_EQ_U64(c.death_pages[HS_DEATH_UNKNOWN], 2);
	T_EQ_U64(c.death_pages[HS_DEATH_NONE], 3);
	T_EQ_U64(c.refaults, 1);
	T_EQ_U64(c.refaults_distrusted, 1);
	hs_lifecycle_free(lc);
}

/* A gap of unknown size is counted apart. */
static void t_lost_uncounted(void)
{
	static const struct hs_event ev[] = { LOST(1, UINT64_MAX), LOST(2, 3) };
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	c = checks(lc);
	T_EQ_U64(c.gaps, 2);
	T_EQ_U64(c.gaps_uncounted, 1);
	T_EQ_U64(c.lost_events, 3);
	hs_lifecycle_free(lc);
}

/* ---- 9. anonymous memory ---- */

/*
 * Process 500 forks 501 (a new process); thread 502 is seeded into 501.
 *
 *   t   event                                  effect
 *  20   fault 501 cpu0 0x7f0000001234 (write)  queued (501, 0x7f0000001)
 *  21   fault 502 cpu0 0x7f0000002000 (read)   queued (501, 0x7f0000002)
 *  22   lru_insertion cpu0 0x900 anon          links the oldest: L0 born 20,
 *                                              stream PT-write k0
 *  23   lru_insertion cpu0 0x901 anon          L1 born 21, PT k1
 *  24   fault 502 0x7f0000001008 (write)       L0 is alive: PT-write k0
 *  30-33 memcg window of 501: write_folio      L0 swapped out: reclaim, clock 1
 *       0x900 ANON, shrink_inactive 1
 *  40   fault 501 cpu1 0x7f0000001ff0          swap-in: L2 born 40, refault,
 *                                              distance 1 - 1 = 0, 40 - 31 = 9 ns;
 *                                              PT k0; queued for its pfn
 *  41   lru_insertion cpu1 0x950 swapin        gives L2 its pfn
 *  42   lru_activate 0x950                     joins L2
 *  60   exit 501 (the leader)                  L2 and L1 die truncate: drops
 *                                              (newest life first)
 *
 * pfn events: 22, 23, 31, 41, 42, all joined (3 of them by linking).
 */
static const struct hs_event anon[] = {
	FORK(10, 500, 501),
	PF(20, 501, 0, 0x7f0000001234, 0x6), PF(21, 502, 0, 0x7f0000002000, 0x4),
	INS(22, 501, 0, 0x900, LRU_ANON_NEW), INS(23, 501, 0, 0x901, LRU_ANON_NEW),
	PF(24, 502, 0, 0x7f0000001008, 0x7),
	MBEGIN(30, 501), WF(31, 501, 0x900, HS_EVF_ANON), SHRINK(32, 501, 1), MEND(33, 501, 1),
	PF(40, 501, 1, 0x7f0000001ff0, 0x4),
	INS(41, 501, 1, 0x950, LRU_SWAPIN), ACT(42, 501, 0x950),
	EXIT(60, 501),
};

static void t_anon(void)
{
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct hs_lc_key k;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_set_tgid(lc, 502, 501), 0);
	feed_finish(lc, anon, N(anon));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 501, 0x7f0000001, 1, 20, 31, D_RECL, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 1, A_A, 501, 0x7f0000002, 1, 21, 60, D_TRUNC, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 501, 0x7f0000001, 1, 40, 60, D_TRUNC, HS_LIFE_F_SWAPIN, true, 0, 9);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0x900);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->pfn, 0x901);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->pfn, 0x950);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->activations, 1);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 2);
	STREAM_IS(&s, { 0, M_APT_W }, { 1, M_APT }, { 0, M_APT_W }, { 0, M_APT },
		  { 0, M_ADROP }, { 1, M_ADROP });
	T_EQ_I64(hs_lifecycle_key(lc, 1, &k), 0);
	T_EQ_U64(k.kind, HS_LIFE_ANON);
	T_EQ_U64(k.tgid, 501);
	T_EQ_U64(k.index, 0x7f0000002);
	T_EQ_U64(k.address, 0x7f0000002000);
	T_EQ_U64(k.dev, 0);
	c = checks(lc);
	T_EQ_U64(c.swap_outs, 1);
	T_EQ_U64(c.swap_ins, 1);
	T_EQ_U64(c.anon_linked, 3);
	T_EQ_U64(c.anon_unlinked, 0);
	T_EQ_U64(c.pfn_events, 5);
	T_EQ_U64(c.pfn_joined, 5);
	T_EQ_U64(c.pfn_joined_anon, 5);
	T_EQ_U64(c.join_status, HS_LC_CHECK_OK);
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_OK);
	T_EQ_U64(c.lives[HS_LIFE_ANON], 3);
	T_EQ_U64(c.faults_unresolved, 0);
	T_EQ_U64(c.refaults, 1);
	hs_lifecycle_free(lc);
}

/*
 * Faults that allocate nothing stay out of the queue or leave it: a file-backed
 * read (the thread's mm_filemap_fault follows) is dropped; a write to a page
 * whose read is queued (the zero page, then a copy of it) replaces the read,
 * at its own place and time.  The burst (over at the finish) has two
 * insertions for one fault; the one no fault explains goes where CPU 0 was
 * quiet longest before a fault: before the write 1 ns (12 -> 13), before the
 * burst 7 ns (13 -> 20).  So 0x700 links (600, page 2) born 13, a write, and
 * 0x701 stays unlinked.  A thread never forked nor seeded is its own process
 * (tgid 600).
 */
static void t_anon_fault_filter(void)
{
	static const struct hs_event ev[] = {
		PF(10, 600, 0, 0x1000, 0x4), FFAULT(11, 600, 0, 7, 3),
		PF(12, 600, 0, 0x2000, 0x4), PF(13, 600, 0, 0x2000, 0x6),
		INS(20, 600, 0, 0x700, LRU_ANON_NEW), INS(21, 600, 0, 0x701, LRU_ANON_NEW),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 1);
	LIFE(lc, 0, A_A, 600, 2, 1, 13, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0x700);
	/* k0 = ino 7 page 3 (the file fault), k1 = (600, page 2), the write */
	STREAM_IS(&s, { 0, M_PT }, { 1, M_APT_W });
	c = checks(lc);
	T_EQ_U64(c.anon_linked, 1);
	T_EQ_U64(c.anon_unlinked, 1);
	T_EQ_U64(c.faults_unresolved, 2);	/* the file-backed read, the replaced read */
	T_EQ_U64(c.pfn_unjoined, 1);
	hs_lifecycle_free(lc);
}

/* ---- anon insertions aligned with faults, burst by burst ---- */

#define MEND_C(t, p, c, n) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_MEMCG_RECLAIM_END, .a = (n) }
#define LRU_ANON_GONE	0x32	/* anon | swapbacked | exclusive, not mapped: unmapped */

/*
 * The queue of CPU 0 when the burst of 701 begins (701 drains inside its
 * memcg reclaim, for the charge of its own fault):
 *
 *   700 read 0x1000 (finished: 700 faulted again)   a zero page
 *   700 write 0x2000 (finished)
 *   700 write 0x3000 (finished by 700's fault at 13)
 *   [700 read 0x4000 left at 14: file-backed]
 *   701 write 0x9000 (701 reclaiming: held)
 *
 * Two insertions: passing over the read costs 2, over a write 8, so the
 * writes take 0x800 and 0x801 and the read is dropped; 701's fault waits.
 * After the window 701 adds its folio (its insertion at 20, outside
 * reclaim, finishes its fault): 0x802.  700's last fault is still queued
 * at the end.  Keys: k0 the file page, k1 (700, 2), k2 (700, 3), k3 (701, 9).
 */
static void t_anon_burst(void)
{
	static const struct hs_event ev[] = {
		PF(10, 700, 0, 0x1000, 0x4), PF(11, 700, 0, 0x2000, 0x6),
		PF(12, 700, 0, 0x3000, 0x6), PF(13, 700, 0, 0x4000, 0x4),
		FFAULT(14, 700, 0, 7, 3), PF(15, 701, 0, 0x9000, 0x6), MBEGIN(16, 701),
		INS(17, 701, 0, 0x800, LRU_ANON_NEW), INS(18, 701, 0, 0x801, LRU_ANON_NEW),
		MEND(19, 701, 0), INS(20, 701, 0, 0x802, LRU_ANON_NEW),
		PF(21, 700, 0, 0x5000, 0x6),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 700, 2, 1, 11, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_A, 700, 3, 1, 12, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 701, 9, 1, 15, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0x800);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->pfn, 0x801);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->pfn, 0x802);
	STREAM_IS(&s, { 0, M_PT }, { 1, M_APT_W }, { 2, M_APT_W }, { 3, M_APT_W });
	c = checks(lc);
	T_EQ_U64(c.anon_linked, 3);
	T_EQ_U64(c.anon_unlinked, 0);
	T_EQ_U64(c.faults_unresolved, 3);	/* the zero page, the file read, 0x5000 */
	T_EQ_U64(c.anon_lost, 0);
	T_EQ_U64(c.join_status, HS_LC_CHECK_OK);
	hs_lifecycle_free(lc);
}

/*
 * 710 faults on CPU 0, reclaims, and its reclaim ends on CPU 1: its folio
 * goes into CPU 1's batch, so its fault moves to CPU 1's queue.  711's burst
 * on CPU 0 (two insertions) takes 711's two faults; 710's own insertion on
 * CPU 1 takes 710's.  (Queued per CPU without the move, 0x900 would have gone
 * to 710.)  711's and 710's next faults are still queued at the end.
 */
static void t_anon_migrate(void)
{
	static const struct hs_event ev[] = {
		PF(10, 710, 0, 0x1000, 0x6), MBEGIN(11, 710), MEND_C(12, 710, 1, 0),
		PF(13, 711, 0, 0x7000, 0x6), PF(14, 711, 0, 0x8000, 0x6),
		INS(15, 711, 0, 0x900, LRU_ANON_NEW), INS(16, 711, 0, 0x901, LRU_ANON_NEW),
		INS(17, 710, 1, 0x950, LRU_ANON_NEW),
		PF(18, 711, 0, 0x9000, 0x6), PF(19, 710, 1, 0x2000, 0x6),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 711, 7, 1, 13, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_A, 711, 8, 1, 14, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 710, 1, 1, 10, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0x900);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->pfn, 0x901);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->pfn, 0x950);
	c = checks(lc);
	T_EQ_U64(c.anon_linked, 3);
	T_EQ_U64(c.faults_unresolved, 2);
	hs_lifecycle_free(lc);
}

/*
 * Five insertions for four faults of 720: an untraced task added a folio to
 * CPU 0's batch.  It went in where CPU 0 was quiet longest before a fault:
 * 1000 ns before the first (from time 0), 10 before the second, 3990 before
 * the third, 10 before the fourth, 10 before the burst.  So the third
 * insertion (0xa02) is the untraced one.
 */
static void t_anon_unseen_add(void)
{
	static const struct hs_event ev[] = {
		PF(1000, 720, 0, 0x1000, 0x6), PF(1010, 720, 0, 0x2000, 0x6),
		PF(5000, 720, 0, 0x3000, 0x6), PF(5010, 720, 0, 0x4000, 0x6),
		INS(5020, 720, 0, 0xa00, LRU_ANON_NEW), INS(5021, 720, 0, 0xa01, LRU_ANON_NEW),
		INS(5022, 720, 0, 0xa02, LRU_ANON_NEW), INS(5023, 720, 0, 0xa03, LRU_ANON_NEW),
		INS(5024, 720, 0, 0xa04, LRU_ANON_NEW),
	};
	static const uint64_t pfn[] = { 0xa00, 0xa01, 0xa03, 0xa04 };
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;
	size_t i;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 4);
	for (i = 0; i < 4; i++) {
		LIFE(lc, i, A_A, 720, i + 1, 1, ev[i].ts_ns, 0, D_ALIVE, 0, false, 0, 0);
		T_EQ_U64(hs_lifecycle_life(lc, i)->pfn, pfn[i]);
	}
	c = checks(lc);
	T_EQ_U64(c.anon_linked, 4);
	T_EQ_U64(c.anon_unlinked, 1);
	T_EQ_U64(c.pfn_unjoined, 1);
	hs_lifecycle_free(lc);
}

/*
 * A batch drained by an untraced task shows no insertions: 730's first two
 * folios went that way.  The burst at 14 has two insertions for four
 * finished faults: the two oldest are passed over (8 each, ties to the
 * oldest) and become lost lives L0 (730, 1) and L1 (730, 2), born at their
 * faults, without a pfn; L2 (730, 3) takes 0xa0, L3 (730, 4) 0xa1.  In
 * 730's memcg reclaim:
 *
 *   21  write_folio 0xb7: no traced event ever named that frame: the
 *       oldest lost life, L0, is the folio: swap-out, reclaim, clock 1
 *   22  write_folio 0xa0: L2, clock 2 (its frame is free again)
 *   23  write_folio 0xa0: no insertion since L2 died: L1, clock 3
 *   30  730 faults 0x1000: swap-in L4, refault of L0: distance 3 - 1 = 2,
 *       30 - 21 = 9 ns
 *
 * Keys: k0..k3 pages 1..4 (lost lives stream their fault too).
 */
static void t_anon_unseen_drain(void)
{
	static const struct hs_event ev[] = {
		PF(10, 730, 0, 0x1000, 0x6), PF(11, 730, 0, 0x2000, 0x6),
		PF(12, 730, 0, 0x3000, 0x6), PF(13, 730, 0, 0x4000, 0x6),
		INS(14, 730, 0, 0xa0, LRU_ANON_NEW), INS(15, 730, 0, 0xa1, LRU_ANON_NEW),
		MBEGIN(20, 730), WF(21, 730, 0xb7, HS_EVF_ANON), WF(22, 730, 0xa0, HS_EVF_ANON),
		WF(23, 730, 0xa0, HS_EVF_ANON), SHRINK(24, 730, 3), MEND(25, 730, 3),
		PF(30, 730, 0, 0x1000, 0x4),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 5);
	LIFE(lc, 0, A_A, 730, 1, 1, 10, 21, D_RECL, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 1, A_A, 730, 2, 1, 11, 23, D_RECL, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 2, A_A, 730, 3, 1, 12, 22, D_RECL, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 3, A_A, 730, 4, 1, 13, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 4, A_A, 730, 1, 1, 30, 0, D_ALIVE, HS_LIFE_F_SWAPIN, true, 2, 9);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0xb7);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->pfn, 0xa0);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->pfn, 0xa0);
	T_EQ_U64(hs_lifecycle_life(lc, 3)->pfn, 0xa1);
	STREAM_IS(&s, { 0, M_APT_W }, { 1, M_APT_W }, { 2, M_APT_W }, { 3, M_APT_W },
		  { 0, M_APT });
	c = checks(lc);
	T_EQ_U64(c.anon_lost, 2);
	T_EQ_U64(c.swapout_guessed, 2);
	T_EQ_U64(c.swap_outs, 3);
	T_EQ_U64(c.swap_ins, 1);
	T_EQ_U64(c.anon_linked, 2);
	T_EQ_U64(c.pfn_events, 5);
	T_EQ_U64(c.pfn_joined, 5);
	T_EQ_U64(c.faults_unresolved, 3);	/* two passed over, the swap-in's at the end */
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_OK);
	hs_lifecycle_free(lc);
}

/*
 * 740 faults, then exits; 741 faults 3 ms later (past UNMAP_NS: 740's memory
 * is unmapped by then).  One mapped insertion: matching it to 740 costs 3 (a
 * mapped folio of a process without memory) and passing over 741's write
 * 8; passing over 740 (8) and matching 741 is cheaper.  740's fault makes no
 * lost life (its process is gone).  Then an unmapped anon insertion (0x32)
 * for 741's next fault: its process unmapped it already (cost 2, cheaper than
 * no fault, 6): no life, but the fault streams.
 */
static void t_anon_gone(void)
{
	static const struct hs_event ev[] = {
		PF(10, 740, 0, 0x1000, 0x6), EXIT(11, 740),
		PF(3000000, 741, 0, 0x2000, 0x6), INS(3000001, 741, 0, 0xc0, LRU_ANON_NEW),
		PF(3000002, 741, 0, 0x3000, 0x6), INS(3000003, 741, 0, 0xc1, LRU_ANON_GONE),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 1);
	LIFE(lc, 0, A_A, 741, 2, 1, 3000000, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0xc0);
	STREAM_IS(&s, { 0, M_APT_W }, { 1, M_APT_W });
	c = checks(lc);
	T_EQ_U64(c.anon_linked, 2);
	T_EQ_U64(c.anon_lost, 0);
	T_EQ_U64(c.faults_unresolved, 1);
	hs_lifecycle_free(lc);
}

/*
 * A read of a page taken as present that allocates was a swap-in whose
 * swap-out went to another life; a frame taken by another folio ends its
 * life, and in a process that swaps a later fault on that page is a swap-in.
 *
 *   10-15  750's three faults: L0 (750,1) 0xd0, L1 (750,2) 0xd1, L2 (750,3) 0xd2
 *   21     write_folio 0xd2 in 750's memcg window: L2 swapped out; 750 swaps
 *   30     750 reads page 1 (not present) though L0 is alive: a resident
 *          fault (PT), queued as "maybe"
 *   31     an insertion aligns with it: L0 ends unknown at 30, swap-in L3
 *          (750,1) born 30 with 0xd7 (no refault: L0 did not die by reclaim)
 *   33     751's insertion takes 0xd1, L1's frame: L1 ends unknown; L4 (751, 9)
 *   34     750 faults page 2: L1's frame was taken, 750 swaps: swap-in L5
 */
static void t_anon_maybe_swapin(void)
{
	static const struct hs_event ev[] = {
		PF(10, 750, 0, 0x1000, 0x6), PF(11, 750, 0, 0x2000, 0x6),
		PF(12, 750, 0, 0x3000, 0x6), INS(13, 750, 0, 0xd0, LRU_ANON_NEW),
		INS(14, 750, 0, 0xd1, LRU_ANON_NEW), INS(15, 750, 0, 0xd2, LRU_ANON_NEW),
		MBEGIN(20, 750), WF(21, 750, 0xd2, HS_EVF_ANON), SHRINK(22, 750, 1),
		MEND(23, 750, 1), PF(30, 750, 0, 0x1000, 0x4),
		INS(31, 750, 0, 0xd7, LRU_ANON_NEW), PF(32, 751, 0, 0x9000, 0x6),
		INS(33, 751, 0, 0xd1, LRU_ANON_NEW), PF(34, 750, 0, 0x2000, 0x4),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 6);
	LIFE(lc, 0, A_A, 750, 1, 1, 10, 30, D_UNK, 0, false, 0, 0);
	LIFE(lc, 1, A_A, 750, 2, 1, 11, 33, D_UNK, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 750, 3, 1, 12, 21, D_RECL, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 3, A_A, 750, 1, 1, 30, 0, D_ALIVE, HS_LIFE_F_SWAPIN, false, 0, 0);
	LIFE(lc, 4, A_A, 751, 9, 1, 32, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 5, A_A, 750, 2, 1, 34, 0, D_ALIVE, HS_LIFE_F_SWAPIN, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 3)->pfn, 0xd7);
	T_EQ_U64(hs_lifecycle_life(lc, 4)->pfn, 0xd1);
	c = checks(lc);
	T_EQ_U64(c.swap_ins, 2);
	T_EQ_U64(c.swap_outs, 1);
	T_EQ_U64(c.resident_faults, 1);
	T_EQ_U64(c.anon_linked, 5);
	T_EQ_U64(c.death_pages[HS_DEATH_UNKNOWN], 2);
	hs_lifecycle_free(lc);
}

/*
 * With the workload (760) in scope: its memcg reclaim writes out 0xe5, which
 * 761 (out of scope) holds.  Memcg reclaim writes its own cgroup's pages only:
 * 761's life had a wrong frame and ends unknown, and the folio is 760's
 * oldest lost life, L0 (its insertion went unseen: one insertion at 12 for
 * two finished faults).  761's burst on CPU 1 is applied before the
 * write_folio looks its frame up.
 */
static void t_anon_memcg_foreign(void)
{
	static const struct hs_event ev[] = {
		PF(10, 760, 0, 0x1000, 0x6), PF(11, 760, 0, 0x2000, 0x6),
		INS(12, 760, 0, 0xe0, LRU_ANON_NEW), PF(13, 761, 1, 0x7000, 0x6),
		INS(14, 761, 1, 0xe5, LRU_ANON_NEW), MBEGIN(20, 760),
		WF(21, 760, 0xe5, HS_EVF_ANON), SHRINK(22, 760, 1), MEND(23, 760, 1),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_SCOPED, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_add_scope(lc, 760), 0);
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 760, 1, 1, 10, 21, D_RECL, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 1, A_A, 760, 2, 1, 11, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 761, 7, 1, 13, 21, D_UNK, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0xe5);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->pfn, 0xe0);
	c = checks(lc);
	T_EQ_U64(c.swap_outs, 1);
	T_EQ_U64(c.swapout_guessed, 1);
	T_EQ_U64(c.anon_lost, 1);
	T_EQ_U64(c.pfn_events, 3);
	T_EQ_U64(c.pfn_joined, 3);
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_OK);
	hs_lifecycle_free(lc);
}

/*
 * A write fault served from a file (a private mapping: the page is copied
 * into a new anon folio) stays queued; a read served by fault-around leaves.
 * An insertion no fault explains, at a frame a live anon life holds, is a
 * putback and joins that life.
 */
static void t_anon_file_fault(void)
{
	static const struct hs_event ev[] = {
		PF(10, 770, 0, 0x1000, 0x6), FFAULT(11, 770, 0, 9, 0),
		PF(12, 770, 0, 0x2000, 0x4), MAPP(13, 770, 0, 9, 1, 1),
		INS(14, 770, 0, 0xf0, LRU_ANON_NEW), PF(15, 770, 0, 0x3000, 0x6),
		INS(20, 771, 1, 0xf0, LRU_ANON_NEW),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 1);
	LIFE(lc, 0, A_A, 770, 1, 1, 10, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->pfn, 0xf0);
	/* k0 (ino 9, 0) the file fault, k1 (ino 9, 1) mapped around, k2 (770, 1) */
	STREAM_IS(&s, { 0, M_PT }, { 1, M_PT }, { 2, M_APT_W });
	c = checks(lc);
	T_EQ_U64(c.anon_linked, 1);
	T_EQ_U64(c.anon_unlinked, 0);
	T_EQ_U64(c.pfn_events, 2);
	T_EQ_U64(c.pfn_joined, 2);
	T_EQ_U64(c.faults_unresolved, 2);	/* the read, 0x3000 at the end */
	hs_lifecycle_free(lc);
}

/*
 * MADV_PAGEOUT, then the swap-out with no reclaim window: pending until the
 * mm_vmscan_reclaim_pages that closes the batch, which makes it pageout.  The
 * next fault is a swap-in.  MADV_COLD gives a hint, MADV_DONTNEED ends the
 * life as truncate.  A second page swapped out with neither a window nor a
 * closer (the task's next event is a fault) ends unknown and its fault is no
 * swap-in (it is queued, and never linked).
 *
 *   t   event                                 effect
 *  10   fault 600 0x1000 (write)              queued
 *  11   insertion 0x700                       L0 born 10, PT-write k0
 *  20   madvise PAGEOUT [0x1000, 0x2000)      PAGEOUT hint k0
 *  21   write_folio 0x700 ANON                L0 pending (fallback unknown)
 *  22   reclaim_pages nr 1                    L0 pageout, clock 1
 *  30   fault 600 0x1000 (read)               swap-in L1, refault, distance
 *                                             1 - 1 = 0, 30 - 21 = 9 ns; PT k0
 *  31   madvise COLD                          COLD hint k0
 *  32   madvise DONTNEED [0, 0x3000)          L1 truncate: DROP k0
 *  40   fault 600 0x5000 (write)              queued behind L1's entry (30),
 *                                             which never got an insertion
 *  41   insertion 0x710                       L1's entry is dead: skipped
 *                                             (unresolved); L2 born 40, PT-write k1
 *  42   write_folio 0x710 ANON                L2 pending (fallback unknown)
 *  43   fault 600 0x5000                      decides L2 unknown; not a swap-in
 */
static void t_pageout(void)
{
	static const struct hs_event ev[] = {
		PF(10, 600, 0, 0x1000, 0x6), INS(11, 600, 0, 0x700, LRU_ANON_NEW),
		MADV(20, 600, 0x1000, 4096, 21), WF(21, 600, 0x700, HS_EVF_ANON),
		RPAGES(22, 600, 1),
		PF(30, 600, 0, 0x1000, 0x4),
		MADV(31, 600, 0x1000, 4096, 20), MADV(32, 600, 0, 0x3000, 4),
		PF(40, 600, 0, 0x5000, 0x6), INS(41, 600, 0, 0x710, LRU_ANON_NEW),
		WF(42, 600, 0x710, HS_EVF_ANON), PF(43, 600, 0, 0x5000, 0x4),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 600, 1, 1, 10, 21, D_PGOUT, HS_LIFE_F_SWAPOUT, false, 0, 0);
	LIFE(lc, 1, A_A, 600, 1, 1, 30, 32, D_TRUNC, HS_LIFE_F_SWAPIN, true, 0, 9);
	LIFE(lc, 2, A_A, 600, 5, 1, 40, 42, D_UNK, HS_LIFE_F_SWAPOUT, false, 0, 0);
	STREAM_IS(&s, { 0, M_APT_W }, { 0, M_APAGEOUT }, { 0, M_APT }, { 0, M_ACOLD },
		  { 0, M_ADROP }, { 1, M_APT_W });
	c = checks(lc);
	T_EQ_U64(c.pageout_status, HS_LC_CHECK_OK);
	T_EQ_U64(c.pageout_death_pages, 1);
	T_EQ_U64(c.reclaim_pages_reclaimed, 1);
	T_EQ_U64(c.reclaim_status, HS_LC_CHECK_NA);
	T_EQ_U64(c.swap_outs, 2);
	T_EQ_U64(c.swap_ins, 1);
	T_EQ_U64(c.hints, 2);
	T_EQ_U64(c.drops, 1);
	T_EQ_U64(c.faults_unresolved, 2);	/* L1's entry, and the fault at 43 */
	T_EQ_U64(c.death_pages[HS_DEATH_UNKNOWN], 1);
	hs_lifecycle_free(lc);
}

/* ---- 9b. threads and processes: task_newtask's CLONE_THREAD ---- */

/*
 * Process 100 makes thread 101 and process 102; all three fault the same
 * address.  The clone events come in the order named by @order; the lives,
 * keys and stream must be the same for every order that has task_newtask.
 *
 *   t   event                                  effect
 *  10/11 clone 100 -> 101, CLONE_THREAD         101: tgid 100
 *  12/13 clone 100 -> 102, fork()               102: tgid 102
 *  20   fault 100 cpu0 0x7f0000001000 (write)  queued (100, 0x7f0000001)
 *  21   insertion cpu0 0x900 anon              L0 (100, 0x7f0000001) born 20,
 *                                              PT-write k0
 *  30   fault 101 cpu0 0x7f0000001abc (read)   the thread: (100, page) has L0
 *                                              alive: PT k0, the parent's key
 *  31   fault 102 cpu1 0x7f0000001000 (write)  the process: (102, page) has no
 *                                              life: queued on cpu1
 *  32   insertion cpu1 0x901 anon              L1 (102, 0x7f0000001) born 31,
 *                                              PT-write k1, a key of its own
 *  40   exit 101                               a thread: nothing dies
 *  50   exit 102                               its process: L1 truncate, DROP k1
 *  60   clone 100 -> 102, CLONE_THREAD         102 ran (exit): a new task on a
 *                                              reused pid, now a thread of 100
 *  61   fault 102 cpu0 0x7f0000001000 (read)   PT k0: L0's third access
 */
enum clone_order { NEWTASK_FORK, FORK_NEWTASK, NEWTASK_ONLY, FORK_ONLY };

static size_t thread_stream(enum clone_order order, struct hs_event *ev)
{
	const struct hs_event tn1 = TNEW(10, 100, 101, CL_THREAD), fk1 = FORK(10, 100, 101);
	const struct hs_event tn2 = TNEW(12, 100, 102, CL_FORK), fk2 = FORK(12, 100, 102);
	static const struct hs_event body[] = {
		PF(20, 100, 0, 0x7f0000001000, 0x6), INS(21, 100, 0, 0x900, LRU_ANON_NEW),
		PF(30, 101, 0, 0x7f0000001abc, 0x4), PF(31, 102, 1, 0x7f0000001000, 0x6),
		INS(32, 102, 1, 0x901, LRU_ANON_NEW), EXIT(40, 101), EXIT(50, 102),
		TNEW(60, 100, 102, CL_THREAD), PF(61, 102, 0, 0x7f0000001000, 0x4),
	};
	size_t n = 0;

	for (int c = 0; c < 2; c++) {
		struct hs_event tn = c ? tn2 : tn1, fk = c ? fk2 : fk1;

		fk.ts_ns++;
		if (order == FORK_NEWTASK) {
			tn.ts_ns++;
			fk.ts_ns--;
		}
		if (order != FORK_ONLY && order != FORK_NEWTASK)
			ev[n++] = tn;
		if (order != NEWTASK_ONLY)
			ev[n++] = fk;
		if (order == FORK_NEWTASK)
			ev[n++] = tn;
	}
	memcpy(ev + n, body, sizeof(body));
	return n + N(body);
}

static void t_threads(void)
{
	static const enum clone_order orders[] = { NEWTASK_FORK, FORK_NEWTASK, NEWTASK_ONLY };
	struct hs_lifecycle_checks c;
	struct hs_event ev[16];
	struct hs_lifecycle *lc;
	struct hs_lc_key k;
	struct sink s;
	size_t n;

	for (size_t o = 0; o < N(orders); o++) {
		n = thread_stream(orders[o], ev);
		T_EQ_U64(n, orders[o] == NEWTASK_ONLY ? 11 : 13);
		lc = lc_open(0, &s);
		if (!lc)
			return;
		feed_finish(lc, ev, n);
		T_EQ_U64(hs_lifecycle_nr_lives(lc), 2);
		LIFE(lc, 0, A_A, 100, 0x7f0000001, 1, 20, 0, D_ALIVE, 0, false, 0, 0);
		LIFE(lc, 1, A_A, 102, 0x7f0000001, 1, 31, 50, D_TRUNC, 0, false, 0, 0);
		T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 3);
		T_EQ_U64(hs_lifecycle_life(lc, 1)->accesses, 1);
		STREAM_IS(&s, { 0, M_APT_W }, { 0, M_APT }, { 1, M_APT_W }, { 1, M_ADROP },
			  { 0, M_APT });
		T_EQ_U64(hs_lifecycle_nr_keys(lc), 2);
		T_EQ_I64(hs_lifecycle_key(lc, 0, &k), 0);
		T_EQ_U64(k.tgid, 100);
		T_EQ_U64(k.address, 0x7f0000001000);
		T_EQ_I64(hs_lifecycle_key(lc, 1, &k), 0);
		T_EQ_U64(k.tgid, 102);
		T_EQ_U64(k.address, 0x7f0000001000);
		c = checks(lc);
		T_EQ_U64(c.anon_linked, 2);
		T_EQ_U64(c.resident_faults, 2);		/* at 30 and 61 */
		T_EQ_U64(c.faults_unresolved, 0);
		T_EQ_U64(c.bad_events, 0);
		hs_lifecycle_free(lc);
		if (t_case_failed()) {
			t_fail(__FILE__, __LINE__, "with clone order %d", (int)orders[o]);
			return;
		}
	}

	/*
	 * sched_process_fork alone cannot tell the thread: 101 is taken as a
	 * process, so its fault at 30 is a first touch of (101, page) that no
	 * insertion links (faults_unresolved; a queued fault makes no key), and
	 * its exit at 40 ends nothing.  The reused pid 102 at 60 is a new task,
	 * but without task_newtask it is a process again: the fault at 61 is
	 * queued too.  Keys: k0 (100, page), k1 (102, page).
	 */
	n = thread_stream(FORK_ONLY, ev);
	T_EQ_U64(n, 11);
	ev[9].type = HS_EV_PROCESS_FORK;	/* the clone at 60 */
	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, n);
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 2);
	LIFE(lc, 0, A_A, 100, 0x7f0000001, 1, 20, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_A, 102, 0x7f0000001, 1, 31, 50, D_TRUNC, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 1);
	STREAM_IS(&s, { 0, M_APT_W }, { 1, M_APT_W }, { 1, M_ADROP });
	T_EQ_U64(hs_lifecycle_nr_keys(lc), 2);
	c = checks(lc);
	T_EQ_U64(c.faults_unresolved, 2);	/* the faults at 30 and 61 */
	T_EQ_U64(c.resident_faults, 0);
	hs_lifecycle_free(lc);

	/* ... and a seed puts it right, as before task_newtask was decoded */
	n = thread_stream(FORK_ONLY, ev);
	lc = lc_open(0, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_set_tgid(lc, 101, 100), 0);
	feed_finish(lc, ev, n);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 3);
	STREAM_IS(&s, { 0, M_APT_W }, { 0, M_APT }, { 1, M_APT_W }, { 1, M_ADROP },
		  { 0, M_APT });
	hs_lifecycle_free(lc);
}

/*
 * A seed is the builder's guess; task_newtask is the kernel's word.  A stale
 * seed (101 -> 100, say from a pid since reused) loses to a clone of 101 by
 * 300 without CLONE_THREAD.  And the same clone event twice with no event
 * of the new task between them is two tasks on one pid: the second
 * task_newtask (CLONE_THREAD by 300 now) wins.  Thread 104 of 300 runs and
 * exits; its pid comes back by a fork event alone (its task_newtask lost,
 * say): 104 is a process again, the old clone's mark having gone when it ran.
 */
static void t_threads_seed(void)
{
	static const struct hs_event ev[] = {
		TNEW(10, 300, 101, CL_FORK), FORK(11, 300, 101),
		PF(20, 101, 0, 0x5000, 0x6), INS(21, 101, 0, 0x700, LRU_ANON_NEW),
		TNEW(30, 300, 103, CL_FORK), TNEW(31, 300, 103, CL_THREAD),
		PF(40, 103, 0, 0x6000, 0x6), INS(41, 103, 0, 0x701, LRU_ANON_NEW),
		TNEW(50, 300, 104, CL_THREAD), EXIT(51, 104),
		FORK(60, 300, 104), PF(61, 104, 0, 0x7000, 0x6),
		INS(62, 104, 0, 0x702, LRU_ANON_NEW),
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_set_tgid(lc, 101, 100), 0);
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 101, 5, 1, 20, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_A, 300, 6, 1, 40, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 104, 7, 1, 61, 0, D_ALIVE, 0, false, 0, 0);
	hs_lifecycle_free(lc);
}

/*
 * Scope follows both kinds of clone, in either event order: with 100 in
 * scope, its thread 101 and the process 103 that thread forks stream; 200's
 * thread 201 does not.  Keys are made in event order whether streamed or not:
 * k0 page 0, k1 page 1, k2 page 2.
 */
static void t_threads_scope(void)
{
	static const struct hs_event ev[] = {
		TNEW(1, 100, 101, CL_THREAD), FORK(2, 100, 101),
		TNEW(3, 200, 201, CL_THREAD), FORK(4, 200, 201),
		FFAULT(5, 101, 0, 7, 0), FFAULT(6, 201, 0, 7, 1),
		FORK(7, 101, 103), TNEW(8, 101, 103, CL_FORK), FFAULT(9, 103, 0, 7, 2),
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_SCOPED, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_add_scope(lc, 100), 0);
	feed_finish(lc, ev, N(ev));
	STREAM_IS(&s, { 0, M_PT }, { 2, M_PT });
	hs_lifecycle_free(lc);
}

/*
 * NUMA hinting faults (lib/sampling.c: kernel.numa_balancing=1 on this
 * one-node host): a second, read fault on a page a thread group already has
 * resident, about a second after its first touch.  Each is an access (PT) on
 * the page's key and stays out of the insertion queue, so the next first
 * touch still links to its own insertion.
 *
 *   t            event                                 effect
 *  10/11         clone 200 -> 201, CLONE_THREAD
 *  20, 21        faults 200 cpu0 0x10000, 0x11000 (write)   queued
 *  22, 23        insertions cpu0 0x800, 0x801          L0 (200, 0x10), L1
 *                                                      (200, 0x11): PT-write
 *                                                      k0, k1
 *  1000000022    fault 201 cpu1 0x10008 (read)         hinting: PT k0
 *  1000000023    fault 200 cpu0 0x10010 (read)         the other thread on the
 *                                                      same pte: PT k0
 *  1000000024    fault 201 cpu1 0x11000 (read)         PT k1
 *  1000000030    fault 201 cpu1 0x12000 (write)        first touch: queued
 *  1000000031    insertion cpu1 0x802                  links it: L2 (200, 0x12)
 *                                                      born 1000000030, PT-write k2
 */
static void t_hinting_faults(void)
{
	static const struct hs_event ev[] = {
		TNEW(10, 200, 201, CL_THREAD), FORK(11, 200, 201),
		PF(20, 200, 0, 0x10000, 0x6), PF(21, 200, 0, 0x11000, 0x6),
		INS(22, 200, 0, 0x800, LRU_ANON_NEW), INS(23, 200, 0, 0x801, LRU_ANON_NEW),
		PF(1000000022, 201, 1, 0x10008, 0x4), PF(1000000023, 200, 0, 0x10010, 0x4),
		PF(1000000024, 201, 1, 0x11000, 0x4),
		PF(1000000030, 201, 1, 0x12000, 0x6), INS(1000000031, 201, 1, 0x802, LRU_ANON_NEW),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 3);
	LIFE(lc, 0, A_A, 200, 0x10, 1, 20, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_A, 200, 0x11, 1, 21, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 2, A_A, 200, 0x12, 1, 1000000030, 0, D_ALIVE, 0, false, 0, 0);
	T_EQ_U64(hs_lifecycle_life(lc, 0)->accesses, 3);
	T_EQ_U64(hs_lifecycle_life(lc, 1)->accesses, 2);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->accesses, 1);
	T_EQ_U64(hs_lifecycle_life(lc, 2)->pfn, 0x802);
	STREAM_IS(&s, { 0, M_APT_W }, { 1, M_APT_W }, { 0, M_APT }, { 0, M_APT }, { 1, M_APT },
		  { 2, M_APT_W });
	c = checks(lc);
	T_EQ_U64(c.accesses, 6);
	T_EQ_U64(c.resident_faults, 3);
	T_EQ_U64(c.anon_linked, 3);
	T_EQ_U64(c.anon_unlinked, 0);
	T_EQ_U64(c.faults_unresolved, 0);
	hs_lifecycle_free(lc);
}

/* ---- 10. scope, touches, block devices, readahead ---- */

/*
 * With HS_LC_SCOPED and task 100 in scope: 100's reads stream, so do those of
 * its fork 101, not those of 200.  Touches stream for a process in scope.
 */
static void t_scope(void)
{
	static const struct hs_event ev[] = {
		FFAULT(1, 100, 0, 7, 0), FFAULT(2, 200, 0, 7, 1),
		FORK(3, 100, 101), FFAULT(4, 101, 0, 7, 2),
		TOUCH(5, 100, 7, 3, HS_EVF_FD | HS_EVF_WRITE), TOUCH(6, 200, 7, 4, HS_EVF_FD),
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_SCOPED, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_add_scope(lc, 100), 0);
	feed_finish(lc, ev, N(ev));
	/* keys 0..4 = pages 0..4 in event order; FD write = 0x10 */
	STREAM_IS(&s, { 0, M_PT }, { 2, M_PT }, { 3, 0x10 });
	hs_lifecycle_free(lc);
}

/* HS_LC_TOUCH_ONLY: the workload's own touches stream, kernel accesses do not. */
static void t_touch_only(void)
{
	static const struct hs_event ev[] = {
		FFAULT(1, 100, 0, 7, 0), TOUCH(2, 100, 7, 0, 0),
		{ .ts_ns = 3, .pid = 100, .type = HS_EV_TOUCH, .addr = 0x4321,
		  .flags = HS_EVF_ANON | HS_EVF_WRITE },
	};
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_TOUCH_ONLY, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	STREAM_IS(&s, { 0, M_PT }, { 1, M_APT_W });
	hs_lifecycle_free(lc);
}

/* dev 0:3 is the block-device page cache: its own kind, and out of the stream on request. */
static void t_bdev(void)
{
	static const struct hs_event ev[] = {
		{ .ts_ns = 1, .pid = 100, .type = HS_EV_FILEMAP_ADD, .dev = BDEV, .ino = DEV,
		  .index = 40, .pfn = 0x80 },
		{ .ts_ns = 2, .pid = 100, .type = HS_EV_FILEMAP_FAULT, .dev = BDEV, .ino = DEV,
		  .index = 40 },
		ACT(3, 100, 0x80),
		FFAULT(4, 100, 0, 7, 0),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_NO_BDEV, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	LIFE(lc, 0, A_B, DEV, 40, 1, 1, 0, D_ALIVE, 0, false, 0, 0);
	STREAM_IS(&s, { 1, M_PT });
	c = checks(lc);
	T_EQ_U64(c.lives[HS_LIFE_BDEV], 1);
	T_EQ_U64(c.lives[HS_LIFE_FILE], 0);
	T_EQ_U64(c.pfn_joined_bdev, 1);
	hs_lifecycle_free(lc);
}

/*
 * Task 100's readahead window covers pages 0..3 of ino 7: those adds are
 * flagged.  Its read of page 0 closes the window, so the add of page 4 is
 * not.  Pages 1..3 are never accessed: 3 readahead-only lives.
 */
static void t_readahead(void)
{
	static const struct hs_event ev[] = {
		RA(1, 100, 7, 0, 4),
		ADD(2, 100, 7, 0, 0x10, 0), ADD(3, 100, 7, 1, 0x11, 0),
		ADD(4, 100, 7, 2, 0x12, 0), ADD(5, 100, 7, 3, 0x13, 0),
		GP(6, 100, 7, 0, 0), ADD(7, 100, 7, 4, 0x14, 0),
		ADD(8, 200, 7, 5, 0x15, 0),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	LIFE(lc, 0, A_F, 7, 0, 1, 2, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 5, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 4, 1, 7, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 5, A_F, 7, 5, 1, 8, 0, D_ALIVE, 0, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.readahead_only, 3);
	hs_lifecycle_free(lc);
}

/* ---- 11. bad input and API edges ---- */

static void t_bad_input(void)
{
	static const struct hs_event ev[] = {
		{ .ts_ns = 5, .pid = 1, .type = HS_EV_NONE },
		{ .ts_ns = 6, .pid = 1, .type = 999 },
		ADD(7, 1, 7, 0, 0x10, 13),			/* order too large */
		ADD(8, 1, 7, UINT64_MAX, 0x10, 0),		/* index + pages wraps */
		GP(9, 1, 7, 5, 4),				/* last < index */
		{ .ts_ns = 10, .pid = -1, .type = HS_EV_FILEMAP_FAULT },
		{ .ts_ns = 11, .pid = 1, .type = HS_EV_FILEMAP_ADD, .dev = (uint64_t)1 << 32 },
		ADD(3, 1, 7, 0, 0x10, 0),			/* older: used, counted */
		GP(12, 1, 7, 0, UINT64_MAX),			/* cut to max_range_pages */
		MADV(13, 1, UINT64_MAX - 10, 100, 21),		/* wraps: ends at the top */
		MADV(14, 1, 0, UINT64_MAX, 21),			/* cut to max_range_pages */
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct hs_event e = { 0 };
	struct sink s;

	T_EQ_I64(hs_lifecycle_event(NULL, &e), -EINVAL);
	lc = lc_open(0, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_event(lc, NULL), -EINVAL);
	T_EQ_I64(hs_lifecycle_set_tgid(lc, -1, 5), -EINVAL);
	T_EQ_I64(hs_lifecycle_set_kswapd(lc, -1), -EINVAL);
	T_EQ_I64(hs_lifecycle_add_scope(lc, -1), -EINVAL);
	feed_finish(lc, ev, N(ev));
	c = checks(lc);
	T_EQ_U64(c.bad_events, 7);
	T_EQ_U64(c.unordered, 1);
	T_EQ_U64(c.ranges_cut, 2);
	T_EQ_U64(hs_lifecycle_nr_lives(lc), 1);
	T_ASSERT(hs_lifecycle_life(lc, 1) == NULL);
	/* the cut read: page 0 (alive) and pages 1 .. 262143, past the extent of
	 * ino 7 (page 0): only page 0 streams */
	T_EQ_U64(s.n, 1);
	T_EQ_I64(hs_lifecycle_event(lc, &ev[2]), -EINVAL);	/* after finish */
	T_EQ_I64(hs_lifecycle_finish(lc), -EINVAL);
	hs_lifecycle_free(lc);
	hs_lifecycle_free(NULL);
}

/* A callback error stops the event and comes back to the caller. */
static void t_emit_error(void)
{
	static const struct hs_event ev[] = { FFAULT(1, 100, 0, 7, 0), FFAULT(2, 100, 0, 7, 1) };
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(0, &s);
	if (!lc)
		return;
	s.fail_at = 2;
	T_EQ_I64(hs_lifecycle_event(lc, &ev[0]), 0);
	T_EQ_I64(hs_lifecycle_event(lc, &ev[1]), -EIO);
	hs_lifecycle_free(lc);
}

static void t_names(void)
{
	T_EQ_STR(hs_death_cause_name(HS_DEATH_NONE), "alive");
	T_EQ_STR(hs_death_cause_name(HS_DEATH_PAGEOUT), "pageout");
	T_EQ_STR(hs_death_cause_name(HS_DEATH_UNKNOWN), "unknown");
	T_EQ_STR(hs_death_cause_name((enum hs_death_cause)9), "?");
	T_EQ_STR(hs_life_kind_name(HS_LIFE_BDEV), "bdev");
	T_EQ_STR(hs_life_kind_name((enum hs_life_kind)3), "?");
	T_EQ_STR(hs_lc_check_status_name(HS_LC_CHECK_NA), "n/a");
	T_EQ_STR(hs_lc_check_status_name(HS_LC_CHECK_DIFF), "differs");
}

/* ---- the pfn map ---- */

static void t_pfnmap_hand(void)
{
	struct hs_pfnmap_ent e;
	struct hs_pfnmap *m;

	T_EQ_I64(hs_pfnmap_new(&m), 0);
	T_EQ_I64(hs_pfnmap_insert(m, 100, 4, 1), 0);		/* [100, 104) */
	T_EQ_I64(hs_pfnmap_insert(m, 104, 1, 2), 0);		/* [104, 105) */
	T_EQ_I64(hs_pfnmap_insert(m, 200, 512, 3), 0);		/* [200, 712) */
	T_EQ_I64(hs_pfnmap_insert(m, 103, 1, 9), -EEXIST);	/* inside the first */
	T_EQ_I64(hs_pfnmap_insert(m, 190, 20, 9), -EEXIST);	/* straddles 200 */
	T_EQ_I64(hs_pfnmap_insert(m, 5, 0, 9), -EINVAL);
	T_EQ_I64(hs_pfnmap_insert(m, UINT64_MAX, 2, 9), -EINVAL);
	T_EQ_I64(hs_pfnmap_insert(m, UINT64_MAX, 1, 4), 0);	/* the very last pfn */
	T_EQ_U64(hs_pfnmap_count(m), 4);
	T_ASSERT(hs_pfnmap_find(m, 300, &e));
	T_EQ_U64(e.head, 200);
	T_EQ_U64(e.pages, 512);
	T_EQ_U64(e.val, 3);
	T_ASSERT(hs_pfnmap_find(m, 711, &e) && e.val == 3);
	T_ASSERT(!hs_pfnmap_find(m, 712, NULL));
	T_ASSERT(!hs_pfnmap_find(m, 150, NULL));
	T_ASSERT(!hs_pfnmap_find(m, 99, NULL));
	T_ASSERT(hs_pfnmap_find(m, 104, &e) && e.val == 2);
	T_ASSERT(hs_pfnmap_find(m, UINT64_MAX, &e) && e.val == 4);
	/* overlap queries: the lowest range meeting [lo, lo + n) */
	T_ASSERT(hs_pfnmap_overlap(m, 102, 10, &e) && e.head == 100);
	T_ASSERT(hs_pfnmap_overlap(m, 105, 96, &e) && e.head == 200);	/* [105, 201) */
	T_ASSERT(!hs_pfnmap_overlap(m, 105, 95, NULL));			/* [105, 200) */
	T_ASSERT(!hs_pfnmap_overlap(m, 100, 0, NULL));
	T_ASSERT(hs_pfnmap_overlap(m, 1000, UINT64_MAX, &e) && e.val == 4);
	T_EQ_I64(hs_pfnmap_remove(m, 101), -ENOENT);
	T_EQ_I64(hs_pfnmap_remove(m, 100), 0);
	T_ASSERT(!hs_pfnmap_find(m, 101, NULL));
	T_EQ_I64(hs_pfnmap_insert(m, 101, 2, 5), 0);		/* the freed hole */
	T_EQ_U64(hs_pfnmap_count(m), 4);
	T_EQ_I64(hs_pfnmap_check(m), 0);
	hs_pfnmap_free(m);
	hs_pfnmap_free(NULL);
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * 20000 random inserts, removes and lookups over pfns 0..4095, ranges of
 * 1..16 frames, against a brute-force owner array (owner[pfn] = head + 1 of
 * the range holding it, 0 for none).
 */
static void t_pfnmap_random(void)
{
	static uint64_t owner[4096 + 16];
	static uint64_t len[4096 + 16];
	struct hs_pfnmap_ent e;
	struct hs_pfnmap *m;
	uint64_t x = 12345;
	size_t count = 0;
	int i;

	memset(owner, 0, sizeof(owner));
	T_EQ_I64(hs_pfnmap_new(&m), 0);
	for (i = 0; i < 20000 && !t_case_failed(); i++) {
		uint64_t op = rng_next(&x) % 3;
		uint64_t pfn = rng_next(&x) % 4096;
		uint64_t n = 1 + rng_next(&x) % 16;
		bool free_run = true;
		uint64_t j;

		if (op == 0) {
			for (j = 0; j < n; j++)
				free_run = free_run && !owner[pfn + j];
			T_EQ_I64(hs_pfnmap_insert(m, pfn, n, pfn * 7), free_run ? 0 : -EEXIST);
			if (free_run) {
				for (j = 0; j < n; j++)
					owner[pfn + j] = pfn + 1;
				len[pfn] = n;
				count++;
			}
		} else if (op == 1) {
			bool is_head = owner[pfn] == pfn + 1;

			T_EQ_I64(hs_pfnmap_remove(m, pfn), is_head ? 0 : -ENOENT);
			if (is_head) {
				for (j = 0; j < len[pfn]; j++)
					owner[pfn + j] = 0;
				count--;
			}
		} else {
			bool hit = hs_pfnmap_find(m, pfn, &e);

			T_EQ_U64(hit, owner[pfn] != 0);
			if (hit && owner[pfn]) {
				T_EQ_U64(e.head, owner[pfn] - 1);
				T_EQ_U64(e.pages, len[e.head]);
				T_EQ_U64(e.val, e.head * 7);
			}
		}
		T_EQ_U64(hs_pfnmap_count(m), count);
		if (i % 500 == 0)
			T_EQ_I64(hs_pfnmap_check(m), 0);
	}
	T_EQ_I64(hs_pfnmap_check(m), 0);
	hs_pfnmap_free(m);
}

/* ---- robustness: random streams, invariants only ---- */

struct rsink {
	uint64_t	records;	/* records received */
	uint64_t	max_key;	/* largest key seen + 1 */
	bool		bad_meta;	/* a meta byte with a bad channel or stray bits */
};

static int rsink_emit(void *arg, uint64_t key, uint8_t meta)
{
	struct rsink *r = arg;

	r->records++;
	if (key + 1 > r->max_key)
		r->max_key = key + 1;
	if ((meta & HS_META_CHANNEL_MASK) >= HS_CH_NR || (meta & 0xe0))
		r->bad_meta = true;
	return 0;
}

static bool lives_overlap(const struct hs_folio_life *a, const struct hs_folio_life *b)
{
	if (a->kind != b->kind || a->dev != b->dev || a->ino != b->ino || a->tgid != b->tgid)
		return false;
	return a->first_page < b->first_page + b->pages &&
	       b->first_page < a->first_page + a->pages;
}

/*
 * 30000 events drawn from every type over 2 files of 32 pages, 128 frames,
 * 6 tasks, 2 CPUs and 16 anon pages: adds over live pages, deletes of absent
 * ones, splits, frame reuse, gaps and unmatched windows all happen.  After
 * finish: no error, every pfn event joined or not, the death-cause page
 * counts add up to the lives' pages, dead lives have a time and alive ones
 * none, no two live lives share a page, stream keys are in the key table.
 */
static void t_random_streams(void)
{
	static const uint16_t types[] = {
		HS_EV_FILEMAP_ADD, HS_EV_FILEMAP_ADD, HS_EV_FILEMAP_ADD, HS_EV_FILEMAP_DELETE,
		HS_EV_FILEMAP_DELETE, HS_EV_FILEMAP_GET_PAGES, HS_EV_FILEMAP_FAULT,
		HS_EV_FILEMAP_MAP_PAGES, HS_EV_READAHEAD, HS_EV_LRU_INSERTION,
		HS_EV_LRU_ACTIVATE, HS_EV_DIRECT_RECLAIM_BEGIN, HS_EV_DIRECT_RECLAIM_END,
		HS_EV_MEMCG_RECLAIM_BEGIN, HS_EV_MEMCG_RECLAIM_END, HS_EV_KSWAPD_WAKE,
		HS_EV_KSWAPD_SLEEP, HS_EV_SHRINK_INACTIVE, HS_EV_RECLAIM_PAGES,
		HS_EV_WRITE_FOLIO, HS_EV_SHRINK_SLAB_START, HS_EV_SHRINK_SLAB_END,
		HS_EV_PAGE_FAULT_USER, HS_EV_PAGE_FAULT_USER, HS_EV_MADVISE,
		HS_EV_PROCESS_FORK, HS_EV_PROCESS_EXIT, HS_EV_PROCESS_EXEC, HS_EV_LOST,
		HS_EV_TOUCH, HS_EV_LRU_ISOLATE, HS_EV_TASK_NEW,
	};
	struct hs_lifecycle_opts o = { .emit = rsink_emit };
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct rsink r = { 0 };
	uint64_t x = 777, ts = 1, pages = 0, dead_pages = 0;
	size_t i, j, n;
	int err = 0;

	o.emit_arg = &r;
	T_EQ_I64(hs_lifecycle_new(&o, &lc), 0);
	T_EQ_I64(hs_lifecycle_set_kswapd(lc, 6), 0);
	for (i = 0; i < 30000 && !err; i++) {
		struct hs_event e = { 0 };
		uint64_t v = rng_next(&x);

		e.type = types[v % N(types)];
		if (e.type == HS_EV_LOST && rng_next(&x) % 8)
			e.type = HS_EV_LRU_ACTIVATE;	/* gaps stay rare */
		ts += rng_next(&x) % 3;
		e.ts_ns = ts;
		e.pid = 1 + (int32_t)(rng_next(&x) % 6);
		e.cpu = (uint32_t)(rng_next(&x) % 2);
		e.dev = DEV;
		e.ino = 7 + rng_next(&x) % 2;
		e.order = (uint32_t)((rng_next(&x) % 4 == 0) ? rng_next(&x) % 3 : 0);
		e.index = (rng_next(&x) % 32) & ~(((uint64_t)1 << e.order) - 1);
		e.last = e.index + rng_next(&x) % 8;
		e.pfn = 1 + rng_next(&x) % 128;
		e.addr = (rng_next(&x) % 16) << HS_LC_PAGE_SHIFT | (rng_next(&x) % 4096);
		e.a = rng_next(&x) % 8;
		e.b = rng_next(&x) % 2 ? LRU_ANON_NEW : (rng_next(&x) % 2 ? LRU_SWAPIN : LRU_FILE);
		if (e.type == HS_EV_MADVISE) {
			static const uint64_t beh[] = { 4, 20, 21, 9, 0 };

			e.a = (1 + rng_next(&x) % 4) << HS_LC_PAGE_SHIFT;
			e.b = beh[rng_next(&x) % N(beh)];
		}
		if (e.type == HS_EV_PROCESS_FORK || e.type == HS_EV_TASK_NEW) {
			/* a task never clones itself */
			e.a = 1 + ((uint64_t)e.pid + rng_next(&x) % 5) % 6;
			e.b = rng_next(&x) % 2 ? CL_THREAD : CL_FORK;
		}
		e.flags = (uint16_t)(rng_next(&x) % 16);
		err = hs_lifecycle_event(lc, &e);
	}
	T_EQ_I64(err, 0);
	T_EQ_I64(hs_lifecycle_finish(lc), 0);
	hs_lifecycle_get_checks(lc, &c);
	T_EQ_U64(c.pfn_joined + c.pfn_unjoined, c.pfn_events);
	T_EQ_U64(c.bad_events, 0);
	T_EQ_U64(c.unordered, 0);
	T_ASSERT(c.gaps > 0 && c.splits > 0 && c.pfn_stale > 0 && c.refaults > 0);
	T_ASSERT(c.swap_outs > 0 && c.swap_ins > 0 && c.anomalies > 0);
	n = hs_lifecycle_nr_lives(lc);
	for (i = 0; i < n; i++) {
		const struct hs_folio_life *l = hs_lifecycle_life(lc, i);

		pages += l->pages;
		T_ASSERT(l->pages >= 1 && l->death_cause < HS_DEATH_NR);
		if (l->death_cause == HS_DEATH_NONE) {
			T_EQ_U64(l->died_ns, 0);
			for (j = i + 1; j < n; j++) {
				const struct hs_folio_life *m = hs_lifecycle_life(lc, j);

				if (m->death_cause == HS_DEATH_NONE && lives_overlap(l, m))
					t_fail(__FILE__, __LINE__, "lives %zu, %zu overlap", i, j);
			}
		} else {
			dead_pages += l->pages;
			T_ASSERT(l->died_ns >= 1 && l->died_ns >= l->born_ns);
		}
		if (t_case_failed()) {
			hs_lifecycle_free(lc);
			return;
		}
	}
	for (i = 0, j = 0; i < HS_DEATH_NR; i++)
		j += c.death_pages[i];
	T_EQ_U64(j, pages);
	T_EQ_U64(j - c.death_pages[HS_DEATH_NONE], dead_pages);
	T_ASSERT(r.max_key <= hs_lifecycle_nr_keys(lc));
	T_ASSERT(!r.bad_meta);
	T_EQ_U64(r.records, c.accesses + c.hints + c.drops);
	hs_lifecycle_free(lc);
}

static const struct t_case cases[] = {
	{ "scan-twice", t_scan_twice },
	{ "reclaim-check-differs", t_reclaim_check_differs },
	{ "get-pages-chain", t_get_pages_chain },
	{ "get-pages-resident", t_get_pages_resident },
	{ "map-pages", t_map_pages },
	{ "large-folios", t_large_folios },
	{ "delete-covers-many", t_delete_covers_many },
	{ "pfn-reuse", t_pfn_reuse },
	{ "truncate", t_truncate },
	{ "shrink-slab", t_shrink_slab },
	{ "kswapd", t_kswapd },
	{ "lost", t_lost },
	{ "lost-uncounted", t_lost_uncounted },
	{ "anon", t_anon },
	{ "anon-fault-filter", t_anon_fault_filter },
	{ "anon-burst", t_anon_burst },
	{ "anon-migrate", t_anon_migrate },
	{ "anon-unseen-add", t_anon_unseen_add },
	{ "anon-unseen-drain", t_anon_unseen_drain },
	{ "anon-gone", t_anon_gone },
	{ "anon-maybe-swapin", t_anon_maybe_swapin },
	{ "anon-memcg-foreign", t_anon_memcg_foreign },
	{ "anon-file-fault", t_anon_file_fault },
	{ "pageout", t_pageout },
	{ "threads", t_threads },
	{ "threads-seed", t_threads_seed },
	{ "threads-scope", t_threads_scope },
	{ "hinting-faults", t_hinting_faults },
	{ "scope", t_scope },
	{ "touch-only", t_touch_only },
	{ "bdev", t_bdev },
	{ "readahead", t_readahead },
	{ "bad-input", t_bad_input },
	{ "emit-error", t_emit_error },
	{ "names", t_names },
	{ "pfnmap-hand", t_pfnmap_hand },
	{ "pfnmap-random", t_pfnmap_random },
	{ "random-streams", t_random_streams },
};

int main(int argc, char **argv)
{
	return t_main(cases, N(cases), argc, argv);
}
