/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's anonymous memory (lib/lc-anon.c) on hand-built
 * event streams: user faults aligned with the insertions of their folios,
 * burst by burst, swap-out and the inferred swap-in, unseen insertions and
 * lost lives, madvise pageout.  Expected lives and records are worked out by
 * hand beside each timeline, from the essay in lc-anon.c; every event is
 * followed by hs_lifecycle_check(), the aligner's invariants (lc-harness.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lc-harness.h"

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

static const struct t_case cases[] = {
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
	{ "hinting-faults", t_hinting_faults },
};

int main(int argc, char **argv)
{
	return t_main(cases, N(cases), argc, argv);
}
