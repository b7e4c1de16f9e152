/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder (lib/lifecycle.c) and its pfn interval map
 * (lib/pfnmap.c) on hand-built event streams: file lives and their death
 * causes, refaults, large folios and splits, pfn reuse, gaps, bad input.
 * Every stream is a C array written as a timeline; the lives, death causes,
 * refault distances, stream records and check counters expected from it are
 * worked out by hand in the comments beside it, from the rules in
 * lifecycle.c's essay.  The other ideas of the essay have their own files
 * (t-lc-anon.c, t-lc-task.c, t-lc-stream.c; shared helpers in lc-harness.c).
 * The pfn map is also run against a brute-force list of ranges on a seeded
 * random sequence of operations, and the builder on random streams.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lc-harness.h"
#include "pfnmap.h"

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
	uint64_t	last_ts;	/* the latest record's time */
	bool		bad_ts;		/* a record's time went back */
};

static int rsink_emit(void *arg, uint64_t key, uint8_t meta, uint64_t ts)
{
	struct rsink *r = arg;

	r->records++;
	if (key + 1 > r->max_key)
		r->max_key = key + 1;
	if ((meta & HS_META_CHANNEL_MASK) >= HS_CH_NR || (meta & 0xe0))
		r->bad_meta = true;
	if (ts < r->last_ts)
		r->bad_ts = true;
	r->last_ts = ts;
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
	struct hs_lifecycle_opts o = { .flags = HS_LC_PARANOID, .emit = rsink_emit };
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
	T_EQ_I64(hs_lifecycle_check(lc), 0);
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
	T_ASSERT(!r.bad_ts);
	T_EQ_U64(r.records, c.accesses + c.hints + c.drops + c.readahead);
	hs_lifecycle_free(lc);
}

static const struct t_case cases[] = {
	{ "scan-twice", t_scan_twice },
	{ "reclaim-check-differs", t_reclaim_check_differs },
	{ "large-folios", t_large_folios },
	{ "delete-covers-many", t_delete_covers_many },
	{ "pfn-reuse", t_pfn_reuse },
	{ "truncate", t_truncate },
	{ "shrink-slab", t_shrink_slab },
	{ "kswapd", t_kswapd },
	{ "lost", t_lost },
	{ "lost-uncounted", t_lost_uncounted },
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
