/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's threads and processes (lib/lc-task.c):
 * task_newtask's CLONE_THREAD and sched_process_fork in either order or
 * alone, seeded thread groups, the scope followed through clones, and the
 * lives the scope makes the workload's.
 * Expected lives and records are worked out by hand beside each timeline.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lc-harness.h"

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
 * Whose lives are the workload's (hs_folio_life.workload, the kernel row's
 * scope): 100 is in scope, 200 is not.
 *
 *   t   event                                  life  workload
 *   1   readahead 100 ino 7 [0, 2), async
 *   2   add 100 ino 7 page 0 (in its window)   L0    yes (readahead)
 *   3   add 100 ino 7 page 1 (in its window)   L1    yes (readahead)
 *   4   add 200 ino 7 page 2                   L2    no
 *   5   add 200 ino 7 page 3                   L3    no ...
 *   6   fault 100 ino 7 page 3 (streamed)            ... yes: the workload used it
 *  10   fault 100 cpu0 0x7f0000001000 write,
 *  11   insertion cpu0 0x900 anon              L4    yes (process 100)
 *  12   fault 200 cpu1 0x7f0000002000 write,
 *  13   insertion cpu1 0x901 anon              L5    no (process 200)
 *
 * Without a scope no life is marked; the lives are otherwise the same.
 */
/* t 14, not in the table above: a touch of L4's page, for the touch-only case below */
static const struct hs_event workload_ev[] = {
	ARA(1, 100, 7, 0, 2),
	ADD(2, 100, 7, 0, 0x10, 0), ADD(3, 100, 7, 1, 0x11, 0),
	ADD(4, 200, 7, 2, 0x12, 0), ADD(5, 200, 7, 3, 0x13, 0),
	FFAULT(6, 100, 0, 7, 3),
	PF(10, 100, 0, 0x7f0000001000, 0x6), INS(11, 100, 0, 0x900, LRU_ANON_NEW),
	PF(12, 200, 1, 0x7f0000002000, 0x6), INS(13, 200, 1, 0x901, LRU_ANON_NEW),
	{ .ts_ns = 14, .pid = 100, .type = HS_EV_TOUCH, .addr = 0x7f0000001000,
	  .flags = HS_EVF_ANON | HS_EVF_WRITE },
};

static void t_workload_lives(void)
{
	const struct hs_event *ev = workload_ev;
	const size_t nev = N(workload_ev) - 1;	/* without the touch */
	static const bool want[] = { true, true, false, true, true, false };
	struct hs_lifecycle *lc;
	struct sink s;

	for (int scoped = 0; scoped < 2; scoped++) {
		lc = lc_open(scoped ? HS_LC_SCOPED : 0, &s);
		if (!lc)
			return;
		if (scoped)
			T_EQ_I64(hs_lifecycle_add_scope(lc, 100), 0);
		feed_finish(lc, ev, nev);
		T_EQ_U64(hs_lifecycle_nr_lives(lc), 6);
		LIFE(lc, 0, A_F, 7, 0, 1, 2, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
		LIFE(lc, 1, A_F, 7, 1, 1, 3, 0, D_ALIVE, HS_LIFE_F_READAHEAD, false, 0, 0);
		LIFE(lc, 2, A_F, 7, 2, 1, 4, 0, D_ALIVE, 0, false, 0, 0);
		LIFE(lc, 3, A_F, 7, 3, 1, 5, 0, D_ALIVE, 0, false, 0, 0);
		LIFE(lc, 4, A_A, 100, 0x7f0000001, 1, 10, 0, D_ALIVE, 0, false, 0, 0);
		LIFE(lc, 5, A_A, 200, 0x7f0000002, 1, 12, 0, D_ALIVE, 0, false, 0, 0);
		for (size_t i = 0; i < N(want); i++) {
			const struct hs_folio_life *l = hs_lifecycle_life(lc, i);

			T_ASSERT(l != NULL);
			if (l)
				T_EQ_I64(l->workload, scoped && want[i]);
		}
		hs_lifecycle_free(lc);
	}
}

/*
 * The same events where the stream is the workload's touches
 * (HS_LC_TOUCH_ONLY): the readahead lives L0, L1 stay the workload's (its
 * reads added them; they stream as READAHEAD records, keys 0 and 1), the
 * fault at 6 streams nothing, so L3 is not, and process 100's anonymous L4
 * is the workload's only when a touch names it (t 14, the second run): a
 * built-in workload's stack and heap are not in its stream, and the kernel
 * row must not count them.  The touch comes before the fault's insertion is
 * linked, as it often does (the insertion waits for its CPU's batch).
 */
static void t_workload_lives_touch_only(void)
{
	static const bool want[2][6] = {
		{ true, true, false, false, false, false },
		{ true, true, false, false, true, false },
	};
	struct hs_lifecycle *lc;
	struct sink s;

	for (int touched = 0; touched < 2; touched++) {
		lc = lc_open(HS_LC_SCOPED | HS_LC_TOUCH_ONLY, &s);
		if (!lc)
			return;
		T_EQ_I64(hs_lifecycle_add_scope(lc, 100), 0);
		feed_finish(lc, workload_ev, N(workload_ev) - (touched ? 0 : 1));
		T_EQ_U64(hs_lifecycle_nr_lives(lc), 6);
		for (size_t i = 0; i < N(want[0]); i++) {
			const struct hs_folio_life *l = hs_lifecycle_life(lc, i);

			T_ASSERT(l != NULL);
			if (l)
				T_EQ_I64(l->workload, want[touched][i]);
		}
		if (touched)
			STREAM_IS(&s, { 0, M_RA }, { 1, M_RA }, { 4, M_APT_W });
		else
			STREAM_IS(&s, { 0, M_RA }, { 1, M_RA });
		hs_lifecycle_free(lc);
	}
}

static const struct t_case cases[] = {
	{ "threads", t_threads },
	{ "threads-seed", t_threads_seed },
	{ "threads-scope", t_threads_scope },
	{ "workload-lives", t_workload_lives },
	{ "workload-lives-touch-only", t_workload_lives_touch_only },
};

int main(int argc, char **argv)
{
	return t_main(cases, N(cases), argc, argv);
}
