/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's access stream (lib/lc-stream.c): get_pages ranges
 * held back and cut, fault-around pages, the scope, logged touches, block
 * devices and readahead.  Expected records are worked out by hand beside
 * each timeline, from the essay in lc-stream.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lc-harness.h"

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
 * Task 100's readahead of ino 7 asks for page 0 only (req_count 1), and the
 * kernel reads 0..3: the window runs from index 0 until the task's next read,
 * so those four adds belong to it, but page 0 is the read's own request: a
 * demand miss, not flagged.  Pages 1..3 are flagged.  Its read of page 0
 * closes the window, so the add of page 4 is not; task 200's add of page 5
 * is not either.  Pages 1..3 are never accessed: 3 readahead-only lives.
 * Each flagged add streams a READAHEAD record at its time (pages 1..3, keys
 * 1..3, at 3..5: keys are numbered at the adds); the read of page 0 (key 0),
 * held until the end, streams at the latest event's time, 8, as a miss.
 */
static void t_readahead(void)
{
	static const struct hs_event ev[] = {
		RA(1, 100, 7, 0, 1),
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
	LIFE(lc, 0, A_F, 7, 0, 1, 2, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 3, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 5, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 4, 1, 7, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 5, A_F, 7, 5, 1, 8, 0, D_ALIVE, 0, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.readahead_only, 3);
	T_EQ_U64(c.readahead, 3);
	STREAM_IS(&s, { 1, HS_CH_READAHEAD }, { 2, HS_CH_READAHEAD }, { 3, HS_CH_READAHEAD },
		  { 0, M_FD });
	T_EQ_U64(s.ts[0], 3);
	T_EQ_U64(s.ts[2], 5);
	T_EQ_U64(s.ts[3], 8);
	hs_lifecycle_free(lc);
}

/*
 * Readahead inferred from the adds (HS_LC_INFER_RA, kernels without readahead
 * events), settled by get_pages.  Keys are numbered at the adds: pages 0..7
 * of ino 7 are keys 0..7, task 200's page 8 key 8, ino 9's page 0 key 9, ino
 * 7's page 9 key 10.
 *
 *	t=1..4   100 adds 0, 1, 2, 3       wait
 *	t=5      get_pages [0, 0]          0 asked: demand; 1..3 readahead,
 *	                                   READAHEAD 1, 2, 3 (at 5)
 *	t=6      get_pages [2, 2]          a new read: the held [0, 0] streams,
 *	                                   FD 0 (at 6); nothing waits
 *	t=7, 8   100 adds 4-5, 6-7 (order 1)
 *	t=9      get_pages [5, 5]          4-5 asked (page 5): demand, its page 4
 *	                                   READAHEAD; 6-7 readahead, READAHEAD 6, 7;
 *	                                   then the held [2, 2]: FD 2
 *	t=10     200 adds 8                waits on 200's list, which nothing settles
 *	t=11     100 adds ino 9 page 0     waits
 *	t=12     get_pages [0, 0] of ino 7 ino 9's add is another inode's: left a
 *	                                   demand miss (unsettled 1); FD 5
 *	t=13     100 adds 9                waits
 *	t=13+2e9 get_pages [0, 0]          the add of 9 is 2 s old, over
 *	                                   RA_SETTLE_NS: left (unsettled 2); the held
 *	                                   [0, 0] was the same request, FD 0
 *	end      the held [0, 0], FD 0; 200's add of 8 (unsettled 3)
 *
 * Flagged: pages 1, 2, 3 and 6-7: 5 pages inferred, 6 READAHEAD records.
 * Page 2 was read (the held [2, 2], streamed at 9): 3 of the 4 flagged lives
 * were never used.
 */
#define LATE	2000000013ull
static const struct hs_event ra_gp_ev[] = {
	ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0),
	ADD(3, 100, 7, 2, 0x12, 0), ADD(4, 100, 7, 3, 0x13, 0),
	GP(5, 100, 7, 0, 0), GP(6, 100, 7, 2, 2),
	ADD(7, 100, 7, 4, 0x14, 1), ADD(8, 100, 7, 6, 0x16, 1),
	GP(9, 100, 7, 5, 5),
	ADD(10, 200, 7, 8, 0x18, 0), ADD(11, 100, 9, 0, 0x20, 0),
	GP(12, 100, 7, 0, 0), ADD(13, 100, 7, 9, 0x21, 0),
	GP(LATE, 100, 7, 0, 0),
};

static void t_readahead_inferred(void)
{
	const uint8_t R = HS_CH_READAHEAD;
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_INFER_RA, &s);
	if (!lc)
		return;
	feed_finish(lc, ra_gp_ev, N(ra_gp_ev));
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 2, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 2, 1, 3, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 3, A_F, 7, 3, 1, 4, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 4, 2, 7, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 5, A_F, 7, 6, 2, 8, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 6, A_F, 7, 8, 1, 10, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 7, A_F, 9, 0, 1, 11, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 8, A_F, 7, 9, 1, 13, 0, D_ALIVE, 0, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.readahead_inferred, 5);
	T_EQ_U64(c.readahead, 6);
	T_EQ_U64(c.readahead_only, 3);
	T_EQ_U64(c.ra_unsettled, 3);
	STREAM_IS(&s, { 1, R }, { 2, R }, { 3, R }, { 0, M_FD }, { 4, R }, { 6, R }, { 7, R },
		  { 2, M_FD }, { 5, M_FD }, { 0, M_FD }, { 0, M_FD });
	T_EQ_U64(s.ts[0], 5);
	T_EQ_U64(s.ts[3], 6);
	T_EQ_U64(s.ts[4], 9);
	T_EQ_U64(s.ts[10], LATE);
	hs_lifecycle_free(lc);

	/* Without the flag the same events stream no readahead at all. */
	lc = lc_open(0, &s);
	if (!lc)
		return;
	feed_finish(lc, ra_gp_ev, N(ra_gp_ev));
	c = checks(lc);
	T_EQ_U64(c.readahead, 0);
	T_EQ_U64(c.readahead_inferred, 0);
	T_EQ_U64(c.ra_unsettled, 0);
	T_EQ_U64(s.n, 5);
	hs_lifecycle_free(lc);
}

/*
 * 6.1 has no get_pages: a built-in workload's touches settle the adds.  The
 * touches of one read share its time stamp; the run ends at the task's next
 * touch of another time, or its next kernel event.  Task 100 in scope,
 * touch-only stream; keys 0..7 are pages 0..7 (numbered at the adds).
 *
 *	t=1..4   adds 0..3         wait
 *	t=5      touch 0           a run opens; FD 0 (a demand miss)
 *	t=6      touch 1           another time: the run settles, 0 asked,
 *	                           1..3 readahead: READAHEAD 1, 2, 3; then FD 1,
 *	                           a readahead page used
 *	t=7..10  adds 4..7         wait
 *	t=11     touches 4, 5      one run: FD 4, FD 5
 *	t=12     memcg reclaim     100's next event: 6, 7 readahead, READAHEAD 6, 7
 *
 * 5 pages inferred; pages 2, 3, 6, 7 never used.
 */
static void t_readahead_inferred_touches(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0),
		ADD(3, 100, 7, 2, 0x12, 0), ADD(4, 100, 7, 3, 0x13, 0),
		TOUCH(5, 100, 7, 0, HS_EVF_FD), TOUCH(6, 100, 7, 1, HS_EVF_FD),
		ADD(7, 100, 7, 4, 0x14, 0), ADD(8, 100, 7, 5, 0x15, 0),
		ADD(9, 100, 7, 6, 0x16, 0), ADD(10, 100, 7, 7, 0x17, 0),
		TOUCH(11, 100, 7, 4, HS_EVF_FD), TOUCH(11, 100, 7, 5, HS_EVF_FD),
		MBEGIN(12, 100), MEND(13, 100, 0),
	};
	const uint8_t R = HS_CH_READAHEAD;
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_INFER_RA | HS_LC_TOUCH_ONLY | HS_LC_SCOPED, &s);
	if (!lc)
		return;
	T_EQ_I64(hs_lifecycle_add_scope(lc, 100), 0);
	feed_finish(lc, ev, N(ev));
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 2, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 4, A_F, 7, 4, 1, 7, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 5, A_F, 7, 5, 1, 8, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 7, A_F, 7, 7, 1, 10, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.readahead_inferred, 5);
	T_EQ_U64(c.readahead, 5);
	T_EQ_U64(c.readahead_only, 4);
	T_EQ_U64(c.ra_unsettled, 0);
	STREAM_IS(&s, { 0, M_FD }, { 1, R }, { 2, R }, { 3, R }, { 1, M_FD }, { 4, M_FD },
		  { 5, M_FD }, { 6, R }, { 7, R });
	T_EQ_U64(s.ts[1], 6);
	T_EQ_U64(s.ts[7], 12);
	hs_lifecycle_free(lc);
}

/*
 * An inferred readahead life may be gone before its read settles it: memcg
 * reclaim inside the read took page 1 (reclaim death at 4), and page 2 was
 * truncated (a delete outside any window, decided truncate by 100's next
 * event, the get_pages at 9).  Both are read ahead all the same and never
 * used: readahead_only 2.  Page 1 entered memory, so its READAHEAD record
 * streams (at 6); page 2's truncation dropped it for good: no record.  The
 * delete at 8 first streams the held read [0, 0] (FD 0 at 8); the one held
 * at 9 streams at the end.
 */
static void t_readahead_inferred_gone(void)
{
	static const struct hs_event ev[] = {
		ADD(1, 100, 7, 0, 0x10, 0), ADD(2, 100, 7, 1, 0x11, 0),
		MBEGIN(3, 100), DEL(4, 100, 7, 1, 0x11, 0), MEND(5, 100, 1),
		GP(6, 100, 7, 0, 0),
		ADD(7, 100, 7, 2, 0x12, 0), DEL(8, 100, 7, 2, 0x12, 0), GP(9, 100, 7, 0, 0),
	};
	struct hs_lifecycle_checks c;
	struct hs_lifecycle *lc;
	struct sink s;

	lc = lc_open(HS_LC_INFER_RA, &s);
	if (!lc)
		return;
	feed_finish(lc, ev, N(ev));
	LIFE(lc, 0, A_F, 7, 0, 1, 1, 0, D_ALIVE, 0, false, 0, 0);
	LIFE(lc, 1, A_F, 7, 1, 1, 2, 4, D_RECL, HS_LIFE_F_READAHEAD, false, 0, 0);
	LIFE(lc, 2, A_F, 7, 2, 1, 7, 8, D_TRUNC, HS_LIFE_F_READAHEAD, false, 0, 0);
	c = checks(lc);
	T_EQ_U64(c.readahead_inferred, 2);
	T_EQ_U64(c.readahead, 1);
	T_EQ_U64(c.readahead_only, 2);
	T_EQ_U64(c.ra_unsettled, 0);
	STREAM_IS(&s, { 1, HS_CH_READAHEAD }, { 0, M_FD }, { 0, M_FD });
	T_EQ_U64(s.ts[0], 6);
	T_EQ_U64(s.ts[1], 8);
	T_EQ_U64(s.ts[2], 9);
	hs_lifecycle_free(lc);
}

static const struct t_case cases[] = {
	{ "get-pages-chain", t_get_pages_chain },
	{ "get-pages-resident", t_get_pages_resident },
	{ "map-pages", t_map_pages },
	{ "scope", t_scope },
	{ "touch-only", t_touch_only },
	{ "bdev", t_bdev },
	{ "readahead", t_readahead },
	{ "readahead-inferred", t_readahead_inferred },
	{ "readahead-inferred-touches", t_readahead_inferred_touches },
	{ "readahead-inferred-gone", t_readahead_inferred_gone },
};

int main(int argc, char **argv)
{
	return t_main(cases, N(cases), argc, argv);
}
