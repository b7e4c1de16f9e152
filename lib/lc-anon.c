/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's anonymous memory (lifecycle.c has the whole design):
 * user faults linked to the insertions of the folios they allocated, swap-out
 * and the inferred swap-in, and the lives whose insertion never came.
 */

/*
 * Anonymous memory.  No event names an anonymous page's address and its
 * pfn at once.  The link (RECORDER.md section 5) is a user fault
 * (exceptions:page_fault_user: thread, address, error code) and the
 * mm_lru_insertion of the folio it allocated.  folio_add_lru() puts a new
 * folio in its CPU's LRU add batch (31 folios); the batch is drained, one
 * insertion event per folio in the order they were added, when it is full
 * (by the task adding the 31st), by lru_add_drain() (reclaim, exit, munmap,
 * migration, on the local CPU) or by lru_add_drain_all() (a kworker on each
 * CPU).  A drain shows as a *burst*: consecutive insertions of one CPU.  So
 * each CPU keeps a queue of the user faults that may have allocated, and the
 * insertions of a burst are collected until it is over (the CPU emits
 * something else, or is quiet for BURST_GAP_NS; an event of another CPU that
 * looks up lives first applies what was collected) and then *aligned* with
 * the faults queued before it began, keeping both orders:
 *
 *	queue  f1 (read, zero page)  f2 (write)  f3 (write)  f4 (write, reclaiming)
 *	burst  ins(0x500) ins(0x501)
 *	       f2 -> 0x500, f3 -> 0x501; f1 finished and got nothing: dropped;
 *	       f4 waits (its task still reclaims for the charge, then adds)
 *
 * The alignment is a small dynamic program (burst x queue) that minimises
 * the cost of what it must assume (C_* below): passing over a finished fault
 * that should have allocated (a first write 8, an inferred swap-in 8, a read
 * of a page that had a life 6, a copy-on-write 4, a write served from a file
 * 2, a read of a new page, i.e. the zero page, 2), an insertion no fault
 * explains (6, or 5 when a live anon life holds its frame: a putback, which
 * then joins that life), keeping an unfinished fault waiting behind a later
 * one (3), an unmapped anon folio (flags without "mapped") for a process that
 * still has its memory (2), a mapped one for a process whose exit or exec is
 * more than UNMAP_NS old (3).  Ties go to passing over the oldest faults (a
 * batch drained unseen took the oldest) and to putting unexplained
 * insertions where their CPU was quiet longest before a fault (an untraced
 * task ran there).  Which faults count as finished and where they are:
 *
 *	- a task's fault is unfinished until the task shows it went on: another
 *	  fault, a system call, an insertion drained outside reclaim, a logged
 *	  touch; reclaim, write_folio, file-fault and page cache events happen
 *	  inside the fault and do not finish it;
 *	- an unfinished fault of a task reclaiming (memcg charge) when the burst
 *	  began cannot be in it (the folio is added after the charge);
 *	- a task seen on another CPU during its fault moved there: its fault
 *	  moves to the end of that CPU's queue;
 *	- a read fault followed by mm_filemap_fault or mm_filemap_map_pages was
 *	  file-backed and leaves the queue; a write stays (a private mapping
 *	  copies the page into a new anon folio), marked;
 *	- instruction fetches and faults on pages with a live anon life are not
 *	  queued (a write after a read, a NUMA hinting fault: lib/sampling.c; a
 *	  copy-on-write, whose folio's pfn therefore stays unknown, as a reuse
 *	  would leave a stale entry), except a not-present read of such a page
 *	  in a process that swaps, queued as "maybe": if an insertion is
 *	  aligned with it, the page had been swapped out unseen (its write_folio
 *	  went to another life), the old life ends unknown and a swap-in begins;
 *	  a hinting fault is passed over cheaply (1);
 *	- a second fault on a page already queued replaces the queued one when
 *	  that one cannot have allocated (a read now written: the zero page; the
 *	  page still not present: a retry), else is not queued.
 *
 * An anon insertion is a new folio: a live anon life holding its frame lost
 * its folio unseen (freed by munmap, exit of a thread, migration) and ends
 * unknown ("reused"); a file life there is dropped from the map as stale.
 * An unmapped anon insertion (0x32: its process unmapped it before the
 * drain) consumes its fault but makes no life.  A first-touch fault is
 * streamed as PT when linked, so it can trail its place by one batch.
 *
 *	page_fault_user(tid 12 -> tgid 10, 0x7f0000001234)  queue (10, 0x7f0000001)
 *	lru_insertion(pfn 0x900, flags 0x33) ... (burst over)  anon life (10, 0x7f0000001)
 *	write_folio(pfn 0x900, ANON) in a memcg reclaim window: reclaim, swap-out
 *	page_fault_user(tid 12, 0x7f0000001000)  swap-in inferred: new life,
 *	                                         refault, distance from the clock
 *
 * Swap-out is mm_vmscan_write_folio with the anon flag on a joined anon
 * life: the life ends there (the folio is freed after writeback, with no
 * per-folio event), decided by the window rules, flagged HS_LIFE_F_SWAPOUT.
 * Memcg reclaim writes its own cgroup's pages only: with a scope (the
 * workload, followed through forks), a life of a process out of scope that
 * a task in scope writes out in memcg reclaim held a wrong frame; it ends
 * unknown and the swap-out goes as for an unseen frame (below).  Swap-in has
 * no event at all (zram bypasses the swap cache: the folio is inserted
 * looking like a first touch, 0x33, or as file|swapbacked, 0x14, when its
 * own add fills the batch), so it is inferred: a user fault by any thread of
 * tgid T at page A, when (T, A) has no live life and its last life ended by
 * a swap-out decided as reclaim or pageout (or was ended because another
 * folio took its frame, in a process that swaps), is a swap-in.  A new life
 * (HS_LIFE_F_SWAPIN) is born at the fault, a refault with its distance, and
 * it is queued so that the swap-in's own insertion gives it a pfn.
 *
 * Unseen insertions.  Tasks the trace excludes (hsctl's own threads: the
 * recorder writes them to set_event_notrace_pid) still add folios to the
 * same batches and drain them: their adds are insertions no fault explains,
 * and a batch they drain shows no insertions at all.  The faults whose
 * folios went that way are finished and never matched; a first write or an
 * inferred swap-in passed over like that makes a *lost* life (alive, no pfn;
 * anon_lost).  A frame tracked per pfn (FS_*) as never named by a traced add
 * or insertion, or freed since (its life ended), holds a folio that came in
 * unseen: an anon write_folio there, by a task reclaiming, goes to the
 * oldest lost life of that task's process (the LRU evicts oldest first;
 * swapout_guessed).
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle-int.h"

/*
 * Alignment costs (see "Anonymous memory" above), in units of COST_UNIT;
 * below a unit, ties are broken by the pause before a candidate (in ns, at
 * most GAP_MAX each, and MAX_BURST of them stay below a unit), then by
 * position.
 */
#define COST_UNIT		((uint64_t)1 << 40)
#define GAP_MAX			((uint64_t)1 << 30)
#define C_DYING			2u	/* an unmapped anon folio of a process still alive */
#define C_GONE			3u	/* a mapped folio of a process whose memory is gone */
#define UNMAP_NS		2000000ull /* exit or exec this long ago has unmapped all */
#define C_UNMATCHED		6u	/* an anon insertion with no fault */
#define C_REJOIN		5u	/* ... whose frame a live anon life holds: a putback */
#define C_DEFER			3u	/* an unfinished fault kept behind a matched later one */
#define C_SKIP_WRITE		8u	/* a finished write (not present) that allocated nothing */
#define C_SKIP_SWAPIN		8u	/* a finished inferred swap-in */
#define C_SKIP_REREAD		6u	/* a finished read of a page that had a life before */
#define C_SKIP_COW		4u	/* a finished write to a present page (COW or reuse) */
#define C_SKIP_FILEW		2u	/* a finished write that was file-backed */
#define C_SKIP_READ		2u	/* a finished read of a new page (the zero page) */
#define C_SKIP_INSTR		1u	/* a finished instruction fetch */
#define C_SKIP_MAYBE		1u	/* a read of a page taken as resident (a hinting fault) */

/* The FS_* bits of frame @pfn; untracked frames read as seen. */
static unsigned int fstate_get(const struct hs_lifecycle *lc, uint64_t pfn)
{
	uint64_t c = pfn >> FS_SHIFT, i = pfn & (((uint64_t)1 << FS_SHIFT) - 1);

	if (c >= FS_CHUNKS)
		return FS_SEEN;
	if (c >= lc->nfstate || !lc->fstate[c])
		return 0;
	return (lc->fstate[c][i >> 2] >> ((i & 3) * 2)) & 3u;
}

/* Set frames [pfn, pfn + pages) to state @st. */
int hs_lc_fstate_set(struct hs_lifecycle *lc, uint64_t pfn, uint64_t pages, unsigned int st)
{
	uint64_t p;

	for (p = pfn; p - pfn < pages; p++) {
		uint64_t c = p >> FS_SHIFT, i = p & (((uint64_t)1 << FS_SHIFT) - 1);
		uint8_t *b;

		if (c >= FS_CHUNKS)
			return 0;
		if (c >= lc->nfstate) {
			size_t n = (size_t)c + 1;
			uint8_t **nf = realloc(lc->fstate, n * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			memset(nf + lc->nfstate, 0, (n - lc->nfstate) * sizeof(*nf));
			lc->fstate = nf;
			lc->nfstate = n;
		}
		if (!lc->fstate[c]) {
			lc->fstate[c] = calloc((size_t)1 << (FS_SHIFT - 2), 1);
			if (!lc->fstate[c])
				return -ENOMEM;
		}
		b = &lc->fstate[c][i >> 2];
		*b = (uint8_t)((*b & ~(3u << ((i & 3) * 2))) | (st << ((i & 3) * 2)));
	}
	return 0;
}

/* Life @id leaves its process's list of lost lives (if on it). */
void hs_lc_lost_del(struct hs_lifecycle *lc, uint32_t id)
{
	struct lpriv *p = &lc->lp[id];
	uint32_t g;

	if (!p->lost)
		return;
	p->lost = false;
	g = hs_lc_task_find(lc, lc->life[id].tgid);
	if (p->lost_prev != NONE)
		lc->lp[p->lost_prev].lost_next = p->lost_next;
	else if (g != NONE)
		TASK(lc, g)->lost_head = p->lost_next;
	if (p->lost_next != NONE)
		lc->lp[p->lost_next].lost_prev = p->lost_prev;
	else if (g != NONE)
		TASK(lc, g)->lost_tail = p->lost_prev;
	p->lost_prev = NONE;
	p->lost_next = NONE;
}

/* Live anon life @id without a pfn: its insertion never came (see the essay). */
static int lost_add(struct hs_lifecycle *lc, uint32_t id)
{
	struct lpriv *p = &lc->lp[id];
	uint32_t g;
	int err;

	if (p->lost || p->state != L_ALIVE || p->in_map || lc->life[id].kind != HS_LIFE_ANON)
		return 0;
	err = hs_lc_task_get(lc, lc->life[id].tgid, &g);
	if (err)
		return err;
	p = &lc->lp[id];
	p->lost = true;
	p->lost_next = NONE;
	p->lost_prev = TASK(lc, g)->lost_tail;
	if (p->lost_prev != NONE)
		lc->lp[p->lost_prev].lost_next = id;
	else
		TASK(lc, g)->lost_head = id;
	TASK(lc, g)->lost_tail = id;
	lc->ck.anon_lost++;
	return 0;
}

int hs_lc_anon_link(struct hs_lifecycle *lc, uint32_t id)
{
	uint32_t g;
	int err;

	err = hs_lc_task_get(lc, lc->life[id].tgid, &g);
	if (err)
		return err;
	lc->lp[id].anon_prev = NONE;
	lc->lp[id].anon_next = TASK(lc, g)->anon_head;
	if (TASK(lc, g)->anon_head != NONE)
		lc->lp[TASK(lc, g)->anon_head].anon_prev = id;
	TASK(lc, g)->anon_head = id;
	return 0;
}

void hs_lc_anon_unlink(struct hs_lifecycle *lc, uint32_t id)
{
	struct lpriv *p = &lc->lp[id];
	uint32_t g;

	if (p->anon_prev != NONE) {
		lc->lp[p->anon_prev].anon_next = p->anon_next;
	} else {
		g = hs_lc_task_find(lc, lc->life[id].tgid);
		if (g != NONE && TASK(lc, g)->anon_head == id)
			TASK(lc, g)->anon_head = p->anon_next;
	}
	if (p->anon_next != NONE)
		lc->lp[p->anon_next].anon_prev = p->anon_prev;
	p->anon_prev = NONE;
	p->anon_next = NONE;
}

struct cpuq *hs_lc_cpuq_get(struct hs_lifecycle *lc, uint32_t cpu, bool create, int *err)
{
	*err = 0;
	if (cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= lc->nr_cpuq) {
		struct cpuq **nq;
		uint32_t n = cpu + 1;

		if (!create)
			return NULL;
		nq = realloc(lc->cpuq, n * sizeof(*nq));
		if (!nq) {
			*err = -ENOMEM;
			return NULL;
		}
		memset(nq + lc->nr_cpuq, 0, (n - lc->nr_cpuq) * sizeof(*nq));
		lc->cpuq = nq;
		lc->nr_cpuq = n;
	}
	if (!lc->cpuq[cpu] && create) {
		lc->cpuq[cpu] = calloc(1, sizeof(struct cpuq));
		if (!lc->cpuq[cpu])
			*err = -ENOMEM;
	}
	return lc->cpuq[cpu];
}

struct qfault *hs_lc_cpuq_at(struct cpuq *q, uint32_t i)
{
	return &q->e[(q->head + i) % QLEN];
}

static void cpuq_remove(struct cpuq *q, uint32_t i)
{
	for (; i + 1 < q->n; i++)
		*hs_lc_cpuq_at(q, i) = *hs_lc_cpuq_at(q, i + 1);
	q->n--;
}

/* Queued fault @f leaves unlinked (a "maybe" was a resident fault, counted so). */
static void unresolved(struct hs_lifecycle *lc, const struct qfault *f)
{
	if (!f->maybe)
		lc->ck.faults_unresolved++;
}

/* The position of the entry numbered @seq in CPU @cpu's queue, or -1. */
int hs_lc_cpuq_find(struct hs_lifecycle *lc, uint32_t cpu, uint64_t seq)
{
	struct cpuq *q;
	uint32_t i;
	int err;

	q = hs_lc_cpuq_get(lc, cpu, false, &err);
	for (i = 0; q && seq && i < q->n; i++) {
		if (hs_lc_cpuq_at(q, i)->seq == seq)
			return (int)i;
	}
	return -1;
}

/*
 * Queue @f on @cpu (numbering it).  A fault on a page already queued there
 * replaces the queued one when that one cannot have allocated (a read now
 * written: the zero page; or the page was still not present: a retry), and
 * is dropped otherwise (*@queued false).
 */
static int cpuq_push(struct hs_lifecycle *lc, uint32_t cpu, struct qfault *f, bool *queued)
{
	struct cpuq *q;
	uint32_t i;
	int err;

	*queued = false;
	q = hs_lc_cpuq_get(lc, cpu, true, &err);
	if (!q) {
		if (!err)
			lc->ck.faults_unresolved++;
		return err;
	}
	for (i = 0; i < q->n; i++) {
		const struct qfault *o = hs_lc_cpuq_at(q, i);

		if (o->tgid != f->tgid || o->page != f->page)
			continue;
		if (o->life != NONE || !((!o->write && f->write) || !(f->ec & PF_PROT)))
			return 0;
		unresolved(lc, o);
		cpuq_remove(q, i);
		break;
	}
	if (q->n == QLEN) {
		unresolved(lc, hs_lc_cpuq_at(q, 0));
		q->head = (q->head + 1) % QLEN;
		q->n--;
	}
	/* The queue stays in ascending sequence: a new entry is the newest. */
	assert(q->n < QLEN && (!q->n || hs_lc_cpuq_at(q, q->n - 1)->seq < lc->qseq));
	f->seq = lc->qseq++;
	*hs_lc_cpuq_at(q, q->n) = *f;
	q->n++;
	*queued = true;
	return 0;
}

/* Task @t has finished its fault: whatever it allocated is in a batch now. */
void hs_lc_fault_done(struct hs_lifecycle *lc, struct task *t)
{
	int i = hs_lc_cpuq_find(lc, t->open_cpu, t->open_seq);

	if (i >= 0)
		hs_lc_cpuq_at(lc->cpuq[t->open_cpu], (uint32_t)i)->done = true;
	t->open_seq = 0;
}

/*
 * Task @tid shows up on @cpu while its fault is unfinished: the folio, if
 * any, is added there, after what that CPU's batch holds now.
 */
static int fault_move(struct hs_lifecycle *lc, uint32_t tid, uint32_t cpu)
{
	struct task *t = TASK(lc, tid);
	int i = hs_lc_cpuq_find(lc, t->open_cpu, t->open_seq);
	struct qfault f;
	bool queued;
	int err;

	if (i < 0) {
		t->open_seq = 0;
		return 0;
	}
	f = *hs_lc_cpuq_at(lc->cpuq[t->open_cpu], (uint32_t)i);
	cpuq_remove(lc->cpuq[t->open_cpu], (uint32_t)i);
	err = cpuq_push(lc, cpu, &f, &queued);
	t = TASK(lc, tid);
	t->open_seq = queued ? f.seq : 0;
	t->open_cpu = cpu;
	return err;
}

/*
 * What @ev, an event of task @tid, says of its unfinished fault: events of
 * the fault itself (reclaim for its charge, a file fault's page cache, a
 * drain inside reclaim) may move it to another CPU; anything else finishes it.
 */
int hs_lc_fault_progress(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t = TASK(lc, tid);
	bool inside;
	int err = 0;

	if (!t->open_seq)
		return 0;
	switch (ev->type) {
	case HS_EV_DIRECT_RECLAIM_BEGIN:
	case HS_EV_DIRECT_RECLAIM_END:
	case HS_EV_MEMCG_RECLAIM_BEGIN:
	case HS_EV_MEMCG_RECLAIM_END:
	case HS_EV_SOFTLIMIT_RECLAIM_BEGIN:
	case HS_EV_SOFTLIMIT_RECLAIM_END:
	case HS_EV_NODE_RECLAIM_BEGIN:
	case HS_EV_NODE_RECLAIM_END:
	case HS_EV_LRU_ISOLATE:
	case HS_EV_SHRINK_INACTIVE:
	case HS_EV_SHRINK_ACTIVE:
	case HS_EV_SHRINK_SLAB_START:
	case HS_EV_SHRINK_SLAB_END:
	case HS_EV_WRITE_FOLIO:
	case HS_EV_FILEMAP_ADD:
	case HS_EV_FILEMAP_FAULT:
	case HS_EV_FILEMAP_MAP_PAGES:
	case HS_EV_READAHEAD:
	case HS_EV_LRU_ACTIVATE:
		inside = true;
		break;
	case HS_EV_FILEMAP_DELETE:
	case HS_EV_LRU_INSERTION:
		inside = t->reclaim_depth > 0;
		break;
	default:
		inside = false;
		break;
	}
	if (ev->cpu != t->open_cpu)
		err = fault_move(lc, tid, ev->cpu);
	if (!inside)
		hs_lc_fault_done(lc, TASK(lc, tid));
	return err;
}

/*
 * Thread @tid's fault was served from a file (mm_filemap_fault or
 * mm_filemap_map_pages): a read allocated nothing and leaves the queue; a
 * write may have copied the page (a private mapping) and stays, marked.
 */
void hs_lc_fault_file(struct hs_lifecycle *lc, uint32_t tid)
{
	struct task *t = TASK(lc, tid);
	int i = hs_lc_cpuq_find(lc, t->open_cpu, t->open_seq);
	struct cpuq *q;

	if (i < 0)
		return;
	q = lc->cpuq[t->open_cpu];
	if (hs_lc_cpuq_at(q, (uint32_t)i)->write) {
		hs_lc_cpuq_at(q, (uint32_t)i)->filew = true;
		return;
	}
	cpuq_remove(q, (uint32_t)i);
	t->open_seq = 0;
	lc->ck.faults_unresolved++;
}

/* Queue thread @tid's fault @f on @cpu; it stays the thread's open fault until it goes on. */
static int fault_queue(struct hs_lifecycle *lc, uint32_t tid, uint32_t cpu, struct qfault *f)
{
	bool queued;
	uint32_t g;
	int err;

	err = hs_lc_task_get(lc, f->tgid, &g);
	if (err)
		return err;
	f->mm_gen = TASK(lc, g)->mm_gen;
	f->idle = lc->idle;
	err = cpuq_push(lc, cpu, f, &queued);

	if (!err && queued) {
		TASK(lc, tid)->open_seq = f->seq;
		TASK(lc, tid)->open_cpu = cpu;
	}
	return err;
}

void hs_lc_cpuq_clear_all(struct hs_lifecycle *lc)
{
	uint32_t c;

	for (c = 0; c < lc->nr_cpuq; c++) {
		uint32_t i;

		if (!lc->cpuq[c])
			continue;
		for (i = 0; i < lc->cpuq[c]->n; i++)
			unresolved(lc, hs_lc_cpuq_at(lc->cpuq[c], i));
		lc->cpuq[c]->n = 0;
	}
	for (c = 0; c < hs_keymap_count(lc->tasks); c++)
		TASK(lc, c)->open_seq = 0;
}

/*
 * Did the last life @l of a page of process @tgid end by swap-out?  Yes when
 * a write_folio ended it in reclaim or pageout; also when another folio took
 * its frame (its own swap-out went to another life) in a process that swaps.
 */
static bool swapped_out(const struct hs_lifecycle *lc, uint32_t l, int32_t tgid)
{
	uint32_t g;

	if (l == NONE || lc->lp[l].state != L_DEAD)
		return false;
	if (lc->life[l].flags & HS_LIFE_F_SWAPOUT)
		return lc->life[l].death_cause == HS_DEATH_RECLAIM ||
		       lc->life[l].death_cause == HS_DEATH_PAGEOUT;
	if (!lc->lp[l].reused)
		return false;
	g = hs_lc_task_find(lc, tgid);
	return g != NONE && TASK(lc, g)->swapping;
}

/* An inferred swap-in of page @page of @tgid at @ts: a new life, *@id, without a pfn yet. */
static int swapin_life(struct hs_lifecycle *lc, uint32_t tid, int32_t tgid, uint64_t page,
		       uint64_t ts, uint32_t *id)
{
	struct birth b;
	int err;

	err = hs_lc_birth_scan(lc, HS_LIFE_ANON, (uint32_t)tgid, 0, page, 1, ts, tid, &b);
	if (!err)
		err = hs_lc_life_new(lc, id);
	if (err)
		return err;
	lc->life[*id].kind = HS_LIFE_ANON;
	lc->life[*id].flags = HS_LIFE_F_SWAPIN;
	lc->life[*id].workload = hs_lc_tgid_scoped(lc, tgid);
	lc->life[*id].tgid = tgid;
	lc->life[*id].address = page << HS_LC_PAGE_SHIFT;
	lc->life[*id].first_page = page;
	lc->life[*id].pages = 1;
	lc->life[*id].born_ns = ts;
	hs_lc_birth_apply(lc, *id, &b);
	lc->ck.lives[HS_LIFE_ANON]++;
	lc->ck.swap_ins++;
	err = hs_lc_life_attach(lc, *id);
	return err ? err : hs_lc_anon_link(lc, *id);
}

/* Link queued fault @f to a new anon folio at @ev (an lru_insertion). */
static int fault_link(struct hs_lifecycle *lc, const struct qfault *f, const struct hs_event *ev,
		      uint32_t tid)
{
	uint64_t pages = (uint64_t)1 << ev->order;
	uint64_t first = f->page & ~(pages - 1);
	struct birth b;
	uint32_t kid, l, id;
	int err;

	if (f->life != NONE) {
		/* An inferred swap-in gets its pfn, if it still lacks one. */
		if (lc->lp[f->life].state != L_ALIVE || lc->lp[f->life].in_map)
			return 0;
		lc->life[f->life].pfn = ev->pfn;
		return hs_lc_map_link(lc, f->life);
	}
	err = hs_lc_page_key(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page, &kid);
	if (err)
		return err;
	l = PKEY(lc, kid)->life;
	if (f->maybe && ev->pfn) {
		/* The read of a page taken as present allocated: it was swapped in. */
		static const struct verdict unknown = { .cause = HS_DEATH_UNKNOWN };

		if (l != NONE && lc->lp[l].state == L_ALIVE) {
			lc->lp[l].reused = true;
			err = hs_lc_life_kill(lc, l, f->ts, tid, &unknown);
		}
		if (!err)
			err = swapin_life(lc, tid, f->tgid, f->page, f->ts, &id);
		if (err)
			return err;
		lc->life[id].pfn = ev->pfn;
		return hs_lc_map_link(lc, id);
	}
	if (f->maybe)
		return 0;
	if (l != NONE && lc->lp[l].state == L_ALIVE) {
		if (!lc->lp[l].in_map) {
			lc->life[l].pfn = ev->pfn;
			err = hs_lc_map_link(lc, l);
		}
		return err;
	}
	/* Pages still held die now, at the insertion, though the life is born at the fault. */
	err = hs_lc_birth_scan(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, first, pages, ev->ts_ns, tid,
			       &b);
	if (err)
		return err;
	err = hs_lc_life_new(lc, &id);
	if (err)
		return err;
	lc->life[id].kind = HS_LIFE_ANON;
	lc->life[id].workload = hs_lc_tgid_scoped(lc, f->tgid);
	lc->life[id].tgid = f->tgid;
	lc->life[id].address = first << HS_LC_PAGE_SHIFT;
	lc->life[id].first_page = first;
	lc->life[id].pages = pages;
	lc->life[id].pfn = ev->pfn;
	lc->life[id].born_ns = f->ts;
	hs_lc_birth_apply(lc, id, &b);
	lc->ck.lives[HS_LIFE_ANON]++;
	err = hs_lc_life_attach(lc, id);
	if (!err)
		err = hs_lc_anon_link(lc, id);
	if (!err)
		err = hs_lc_map_link(lc, id);
	if (!err)
		err = hs_lc_access_page(lc, kid, HS_CH_PT, f->write, f->stream);
	return err;
}

/*
 * Can queued fault @f still take a pfn?  Not when its swap-in life died or got
 * one meanwhile, nor when its page has a live life with a pfn by now.
 */
static bool fault_linkable(const struct hs_lifecycle *lc, const struct qfault *f)
{
	uint32_t kid, l;

	if (f->maybe)
		return true;
	if (f->life != NONE)
		return lc->lp[f->life].state == L_ALIVE && !lc->lp[f->life].in_map;
	kid = hs_lc_page_key_find(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page);
	l = kid != NONE ? PKEY(lc, kid)->life : NONE;
	return l == NONE || lc->lp[l].state != L_ALIVE || !lc->lp[l].in_map;
}

/* Is @ev an insertion of an anonymous folio, one a fault (or a putback) added? */
static bool ins_anon(const struct hs_event *ev)
{
	return ev->pfn && (ev->b & (LRU_F_ANON | LRU_F_SWAPBACKED)) &&
	       ev->order <= HS_LC_MAX_ORDER && ev->pfn <= UINT64_MAX - ((uint64_t)1 << ev->order);
}

/* What passing over a finished candidate without a match costs (COST_UNIT units). */
static uint32_t skip_cost(const struct qfault *f)
{
	if (f->maybe)
		return C_SKIP_MAYBE;
	if (f->life != NONE)
		return C_SKIP_SWAPIN;
	if (f->ec & PF_INSTR)
		return C_SKIP_INSTR;
	if (f->filew)
		return C_SKIP_FILEW;
	if (f->write)
		return (f->ec & PF_PROT) ? C_SKIP_COW : C_SKIP_WRITE;
	return f->known ? C_SKIP_REREAD : C_SKIP_READ;
}

/* A file (or unnamed) insertion: it joins the life holding its frame, if any. */
static int ins_file(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	struct hs_pfnmap_ent e;

	if (hs_lc_pfn_join(lc, ev->pfn, &e) == NONE)
		lc->ck.pfn_unjoined++;
	if (!ev->pfn || ev->order > HS_LC_MAX_ORDER)
		return 0;
	return hs_lc_fstate_set(lc, ev->pfn, (uint64_t)1 << ev->order, FS_SEEN);
}

/*
 * An anonymous insertion @ev (emitted by task @tid), with the fault the
 * alignment gave it, or none (@f NULL).
 */
static int ins_anon_link(struct hs_lifecycle *lc, const struct hs_event *ev,
			 const struct qfault *f, uint32_t tid)
{
	static const struct verdict unknown = { .cause = HS_DEATH_UNKNOWN };
	struct hs_pfnmap_ent e;
	uint32_t old = NONE, kid;
	int err;

	if (hs_pfnmap_find(lc->pfns, ev->pfn, &e))
		old = (uint32_t)e.val;
	if (!f) {
		if (old != NONE && lc->life[old].kind == HS_LIFE_ANON) {
			/* No fault for it, and a live anon life holds the frame: a putback. */
			hs_lc_pfn_join(lc, ev->pfn, &e);
			return 0;
		}
		lc->ck.pfn_events++;
		lc->ck.pfn_unjoined++;
		lc->ck.anon_unlinked++;
		hs_lc_map_clear(lc, ev->pfn, (uint64_t)1 << ev->order);
		return 0;
	}
	/* A new folio: the life that held the frame lost its folio unseen. */
	if (old != NONE && lc->life[old].kind == HS_LIFE_ANON) {
		lc->lp[old].reused = true;
		err = hs_lc_life_kill(lc, old, ev->ts_ns, tid, &unknown);
		if (err)
			return err;
	}
	lc->ck.pfn_events++;
	lc->ck.pfn_joined++;
	lc->ck.pfn_joined_anon++;
	lc->ck.anon_linked++;
	if ((ev->b & LRU_F_ANON) && !(ev->b & LRU_F_MAPPED)) {
		/*
		 * Anonymous but mapped nowhere when the batch drained: the process
		 * unmapped it (exit, munmap) meanwhile.  No life; the fault was an
		 * access all the same.
		 */
		hs_lc_map_clear(lc, ev->pfn, (uint64_t)1 << ev->order);
		if (f->life != NONE) {
			static const struct verdict gone = { .cause = HS_DEATH_TRUNCATE };

			return lc->lp[f->life].state == L_ALIVE ?
			       hs_lc_life_kill(lc, f->life, ev->ts_ns, tid, &gone) : 0;
		}
		if (!f->stream)
			return 0;
		err = hs_lc_page_key(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page, &kid);
		return err ? err : hs_lc_emit(lc, kid, HS_CH_PT, f->write);
	}
	return fault_link(lc, f, ev, tid);
}

/*
 * Candidate @f, finished, got no insertion.  A fault that surely allocated
 * (a swap-in, a first write) made a folio whose insertion went unseen (a
 * batch drained by a task the trace excludes): its page gets a lost life,
 * born at the fault, without a pfn (lost_take() may give it one).
 */
static int fault_lost(struct hs_lifecycle *lc, const struct qfault *f, uint64_t ts)
{
	struct hs_event ev = { .ts_ns = ts };
	uint32_t kid, tid;
	int err;

	if (f->life != NONE)
		return lost_add(lc, f->life);
	if (!f->write || (f->ec & PF_PROT) || f->filew || f->gone != GONE_NO)
		return 0;
	err = hs_lc_task_get(lc, f->tid, &tid);
	if (!err)
		err = fault_link(lc, f, &ev, tid);
	if (err)
		return err;
	kid = hs_lc_page_key_find(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page);
	return kid != NONE && PKEY(lc, kid)->life != NONE ? lost_add(lc, PKEY(lc, kid)->life) : 0;
}

/* Apply anon insertion @ev (see ins_anon_link()); its frame was seen then. */
static int ins_anon_apply(struct hs_lifecycle *lc, const struct hs_event *ev,
			  const struct qfault *f, uint32_t tid)
{
	int err = ins_anon_link(lc, ev, f, tid);

	return err ? err : hs_lc_fstate_set(lc, ev->pfn, (uint64_t)1 << ev->order, FS_SEEN);
}

/* Grow the alignment scratch to @cells cells. */
static int dp_reserve(struct hs_lifecycle *lc, size_t cells)
{
	uint64_t *d;
	uint8_t *b;

	if (cells <= lc->dpcap)
		return 0;
	d = realloc(lc->dp, cells * sizeof(*d));
	if (!d)
		return -ENOMEM;
	lc->dp = d;
	b = realloc(lc->dpb, cells * sizeof(*b));
	if (!b)
		return -ENOMEM;
	lc->dpb = b;
	lc->dpcap = cells;
	return 0;
}

enum { MV_NONE = 0, MV_MATCH, MV_INS, MV_PASS };

static void relax(struct hs_lifecycle *lc, size_t cell, uint64_t cost, uint8_t mv)
{
	if (cost < lc->dp[cell]) {
		lc->dp[cell] = cost;
		lc->dpb[cell] = mv;
	}
}

/*
 * The burst collected on @cpu is over (see the essay): align its anonymous
 * insertions with the faults queued before it, then apply them in order.
 */
static int burst_flush(struct hs_lifecycle *lc, uint32_t cpu, bool partial)
{
	struct cpuq *q = lc->cpuq[cpu];
	uint32_t n = 0, m = 0, i, j, k, w;
	uint32_t ins[MAX_BURST];	/* burst index of each anonymous insertion */
	uint32_t match[MAX_BURST];	/* its candidate, or NONE */
	bool rejoin[MAX_BURST];		/* a live anon life holds its frame */
	bool tail[QLEN];		/* passed after the last insertion */
	int32_t etgid[MAX_BURST];	/* the process whose context drained it */
	struct qfault *mq = NULL;	/* the matched candidates, by insertion */
	uint8_t out[QLEN];		/* per candidate: MV_MATCH, or MV_PASS (kept or dropped) */
	uint64_t gap[QLEN + 1];		/* before candidate j: how long its CPU was quiet */
	struct qfault skipped[QLEN];	/* finished candidates no insertion came for */
	struct hs_pfnmap_ent e;
	uint64_t t0 = q->nburst ? q->burst[0].ts_ns : q->burst_ts;
	int err = 0;

	assert(q->nburst <= MAX_BURST && (partial || lc->nr_bursts > 0));
	if (!partial)
		lc->nr_bursts--;
	q->cont = partial;
	/* Candidates: faults queued before the burst, minus expired and settled ones. */
	for (i = 0; i < q->n && hs_lc_cpuq_at(q, i)->seq < q->burst_seq;) {
		const struct qfault *f = hs_lc_cpuq_at(q, i);

		if ((t0 > f->ts && t0 - f->ts > lc->opts.link_window_ns) ||
		    !fault_linkable(lc, f)) {
			struct qfault x = *f;

			unresolved(lc, f);
			cpuq_remove(q, i);
			if (fault_linkable(lc, &x)) {
				err = fault_lost(lc, &x, t0);
				if (err) {
					q->nburst = 0;
					return err;
				}
			}
			continue;
		}
		i++;
	}
	m = i;
	/*
	 * An insertion nothing traced explains (an untraced task's folio) most
	 * likely went into the batch while the traced tasks were away: the
	 * longer the CPU was quiet before a candidate, the likelier there.
	 */
	for (j = 0; j <= m; j++) {
		gap[j] = j < m ? hs_lc_cpuq_at(q, j)->idle : q->burst_idle;
		if (gap[j] > GAP_MAX)
			gap[j] = GAP_MAX;
	}
	for (k = 0; k < q->nburst; k++) {
		uint32_t t;

		if (!ins_anon(&q->burst[k]))
			continue;
		ins[n] = k;
		match[n] = NONE;
		rejoin[n] = hs_pfnmap_find(lc->pfns, q->burst[k].pfn, &e) &&
			    lc->life[e.val].kind == HS_LIFE_ANON;
		t = hs_lc_task_find(lc, q->burst[k].pid);
		etgid[n] = t != NONE ? TASK(lc, t)->tgid : q->burst[k].pid;
		n++;
	}
	w = m + 1;
	err = dp_reserve(lc, (size_t)(n + 1) * w);
	if (!err && n)
		mq = malloc(n * sizeof(*mq));
	if (err || (n && !mq)) {
		free(mq);
		q->nburst = 0;
		return -ENOMEM;
	}
	for (i = 0; i < (n + 1) * w; i++)
		lc->dp[i] = UINT64_MAX;
	lc->dp[0] = 0;
	for (i = 0; i <= n; i++) {
		for (j = 0; j <= m; j++) {
			uint64_t c = lc->dp[i * w + j];

			if (c == UINT64_MAX)
				continue;
			if (i < n && j < m && !hs_lc_cpuq_at(q, j)->held) {
				const struct qfault *f = hs_lc_cpuq_at(q, j);
				uint64_t fl = q->burst[ins[i]].b;
				uint64_t x = 0;

				/* An unmapped anon folio: its process unmapped it already. */
				if ((fl & LRU_F_ANON) && !(fl & LRU_F_MAPPED) && f->gone == GONE_NO)
					x = C_DYING;
				/* A mapped one: its process still had its memory. */
				if ((fl & LRU_F_MAPPED) && f->gone == GONE_UNMAPPED &&
				    etgid[i] != f->tgid)
					x = C_GONE;
				relax(lc, (i + 1) * w + j + 1, c + x * COST_UNIT, MV_MATCH);
			}
			if (i < n)
				relax(lc, (i + 1) * w + j,
				      c + (rejoin[i] ? C_REJOIN : C_UNMATCHED) * COST_UNIT - gap[j],
				      MV_INS);
			if (j < m) {
				const struct qfault *f = hs_lc_cpuq_at(q, j);
				uint64_t p = 0;

				if (f->held || (partial && i == n))
					p = 0;
				else if (f->done)
					p = skip_cost(f) * COST_UNIT + j;
				else if (i < n)
					p = C_DEFER * COST_UNIT + j;
				relax(lc, i * w + j + 1, c + p, MV_PASS);
			}
		}
	}
	/* Passing and unexplained insertions are always allowed: the end is reached. */
	assert(lc->dp[(size_t)n * w + m] != UINT64_MAX);
	for (i = n, j = m; i || j;) {
		uint8_t mv = lc->dpb[i * w + j];

		/* Every cell on the way back was reached by a move that fits it. */
		assert(mv == MV_MATCH ? i && j : mv == MV_INS ? i > 0 : mv == MV_PASS && j);
		if (mv == MV_MATCH) {
			match[--i] = --j;
			out[j] = MV_MATCH;
		} else if (mv == MV_INS) {
			match[--i] = NONE;
		} else {
			out[--j] = MV_PASS;
			tail[j] = i == n;
		}
	}
	for (i = 0, k = 0; i < n; i++) {
		if (match[i] == NONE)
			continue;
		/* Both orders kept, and a fault still reclaiming for its charge never matched. */
		assert(match[i] >= k && !hs_lc_cpuq_at(q, match[i])->held);
		k = match[i] + 1;
		mq[i] = *hs_lc_cpuq_at(q, match[i]);
	}
	/* Matched and finished unmatched candidates leave; the others wait on. */
	for (j = 0, k = 0; j < m; j++) {
		const struct qfault *f = hs_lc_cpuq_at(q, j);

		if (out[j] == MV_PASS && !f->held && f->done && !(partial && tail[j]))
			skipped[k++] = *f;
	}
	for (j = m; j-- > 0;) {
		const struct qfault *f = hs_lc_cpuq_at(q, j);

		if (out[j] == MV_MATCH || (!f->held && f->done && !(partial && tail[j])))
			cpuq_remove(q, j);
	}
	for (j = 0; j < k && !err; j++) {
		unresolved(lc, &skipped[j]);
		err = fault_lost(lc, &skipped[j], t0);
	}
	for (k = 0, i = 0; k < q->nburst && !err; k++) {
		const struct hs_event *ev = &q->burst[k];
		uint32_t tid;

		err = hs_lc_task_get(lc, ev->pid, &tid);
		if (err)
			break;
		if (i < n && ins[i] == k) {
			err = ins_anon_apply(lc, ev, match[i] != NONE ? &mq[i] : NULL, tid);
			i++;
		} else {
			err = ins_file(lc, ev);
		}
	}
	free(mq);
	q->nburst = 0;
	return err;
}

/* Collect insertion @ev into its CPU's burst. */
int hs_lc_burst_add(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	struct cpuq *q;
	uint32_t i;
	int err;

	q = hs_lc_cpuq_get(lc, ev->cpu, true, &err);
	if (!q) {
		if (err)
			return err;
		/* A CPU number too large to keep a queue for: nothing to align with. */
		if (ins_anon(ev))
			return ins_anon_apply(lc, ev, NULL, 0);
		return ins_file(lc, ev);
	}
	if (!q->nburst && q->cont) {
		/* The rest of a burst applied in part: same candidates. */
	} else if (!q->nburst) {
		q->burst_seq = lc->qseq;
		lc->nr_bursts++;
		/* A task reclaiming for its fault's charge has not added that folio yet. */
		for (i = 0; i < q->n; i++) {
			struct qfault *f = hs_lc_cpuq_at(q, i);
			uint32_t t = hs_lc_task_find(lc, f->tid);

			f->held = t != NONE && TASK(lc, t)->reclaim_depth > 0 &&
				  TASK(lc, t)->open_seq == f->seq;
			t = hs_lc_task_find(lc, f->tgid);
			f->gone = GONE_NO;
			if (t != NONE && TASK(lc, t)->mm_gen != f->mm_gen)
				f->gone = ev->ts_ns > TASK(lc, t)->mm_end_ts + UNMAP_NS ? GONE_UNMAPPED :
					  GONE_ENDING;
		}
		q->burst_idle = lc->idle;
	}
	if (q->nburst == q->capburst) {
		uint32_t ncap = q->capburst ? q->capburst * 2 : 32;
		struct hs_event *nb = realloc(q->burst, ncap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		q->burst = nb;
		q->capburst = ncap;
	}
	assert(q->nburst < MAX_BURST);	/* a full burst was applied at once */
	q->burst[q->nburst++] = *ev;
	q->burst_ts = ev->ts_ns;
	return q->nburst == MAX_BURST ? burst_flush(lc, ev->cpu, true) : 0;
}

/* Does @ev look up or end lives that a burst being collected may bring? */
static bool ev_needs_lives(const struct hs_event *ev)
{
	switch (ev->type) {
	case HS_EV_FILEMAP_ADD:
	case HS_EV_FILEMAP_DELETE:
	case HS_EV_LRU_ACTIVATE:
	case HS_EV_WRITE_FOLIO:
	case HS_EV_MADVISE:
	case HS_EV_PROCESS_EXIT:
	case HS_EV_PROCESS_EXEC:
		return true;
	default:
		return false;
	}
}

/*
 * Flush the bursts @ev shows to be over: its own CPU's unless it is an
 * insertion, and any whose CPU has been quiet for BURST_GAP_NS.  A gap or
 * the end (@ev NULL) flushes them all.  An event of another CPU that needs
 * the lives a burst brings has what was collected so far applied first (the
 * burst goes on, with the same candidates).
 */
int hs_lc_bursts_check(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	uint32_t c;
	int err;

	for (c = 0; c < lc->nr_cpuq && lc->nr_bursts; c++) {
		const struct cpuq *q = lc->cpuq[c];
		bool over;

		if (!q || (!q->nburst && !q->cont))
			continue;
		if (!ev || ev->type == HS_EV_LOST)
			over = true;
		else if (c == ev->cpu && ev->type != HS_EV_TOUCH)
			over = ev->type != HS_EV_LRU_INSERTION;
		else
			over = ev->ts_ns > q->burst_ts && ev->ts_ns - q->burst_ts > BURST_GAP_NS;
		if (over)
			err = burst_flush(lc, c, false);
		else if (q->nburst && ev_needs_lives(ev))
			err = burst_flush(lc, c, true);
		else
			err = 0;
		if (err)
			return err;
	}
	return 0;
}

/*
 * An anonymous write_folio on frame @pfn that no live life holds.  When no
 * traced event named the frame since it was last freed (its insertion went
 * unseen), and task @tid reclaims for its memory cgroup, the folio is most
 * likely the oldest of its process's lost lives (the LRU evicts oldest
 * first): *@id receives that life, given the frame, or NONE.
 */
static int lost_take(struct hs_lifecycle *lc, uint32_t tid, uint64_t pfn, bool force,
		     uint32_t *id)
{
	unsigned int st = fstate_get(lc, pfn);
	uint32_t g;
	int err;

	*id = NONE;
	if (!pfn || (!force && (st & FS_SEEN) && !(st & FS_FREED)) ||
	    !TASK(lc, tid)->reclaim_depth)
		return 0;
	g = hs_lc_task_find(lc, TASK(lc, tid)->tgid);
	if (g == NONE || TASK(lc, g)->lost_head == NONE)
		return 0;
	*id = TASK(lc, g)->lost_head;
	lc->life[*id].pfn = pfn;
	err = hs_lc_map_link(lc, *id);
	if (err)
		return err;
	lc->ck.swapout_guessed++;
	lc->ck.pfn_joined++;
	lc->ck.pfn_joined_anon++;
	return 0;
}

/*
 * Is anon life @id of a process that memcg reclaim by task @tid cannot
 * write?  With a scope (the workload's cgroup, followed through forks): a
 * task in scope reclaiming its cgroup, a life of a process out of scope.
 */
static bool memcg_foreign(const struct hs_lifecycle *lc, uint32_t tid, uint32_t id)
{
	const struct task *t = TASK(lc, tid);
	uint32_t g;

	if (!(lc->opts.flags & HS_LC_SCOPED) || !t->memcg_depth || !hs_lc_task_scoped(lc, t))
		return false;
	g = hs_lc_task_find(lc, lc->life[id].tgid);
	return g == NONE || !hs_lc_task_scoped(lc, TASK(lc, g));
}

int hs_lc_on_write_folio(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct hs_pfnmap_ent e;
	struct verdict v;
	uint32_t id, piece, g;
	uint64_t off, n, first;
	int err;

	id = hs_lc_pfn_join(lc, ev->pfn, &e);
	if (id == NONE && (ev->flags & HS_EVF_ANON)) {
		err = lost_take(lc, tid, ev->pfn, false, &id);
		if (err)
			return err;
		e = (struct hs_pfnmap_ent){ .head = ev->pfn, .pages = 1, .val = id };
	}
	if (id == NONE) {
		lc->ck.pfn_unjoined++;
		return 0;
	}
	if (!(ev->flags & HS_EVF_ANON) || lc->life[id].kind != HS_LIFE_ANON)
		return 0;
	if (memcg_foreign(lc, tid, id)) {
		/*
		 * Memcg reclaim writes its own cgroup's pages only: the life
		 * holding the frame, of a process outside the workload, was
		 * given a wrong frame.  The folio is one of the workload's.
		 */
		static const struct verdict unknown = { .cause = HS_DEATH_UNKNOWN };

		lc->lp[id].reused = true;
		err = hs_lc_life_kill(lc, id, ev->ts_ns, tid, &unknown);
		if (!err)
			err = lost_take(lc, tid, ev->pfn, true, &id);
		if (err)
			return err;
		if (id == NONE) {
			lc->ck.pfn_joined--;
			lc->ck.pfn_joined_anon--;
			lc->ck.pfn_unjoined++;
			return 0;
		}
		lc->ck.pfn_joined--;
		lc->ck.pfn_joined_anon--;
		e = (struct hs_pfnmap_ent){ .head = ev->pfn, .pages = 1, .val = id };
	}
	/*
	 * At the head: the whole folio goes out (the event has no order).  Past
	 * the head: the folio was split; 2^order pages at that offset go.
	 */
	off = ev->pfn - e.head;
	piece = id;
	if (off) {
		n = ev->order <= HS_LC_MAX_ORDER ? (uint64_t)1 << ev->order : 1;
		if (n > e.pages - off)
			n = e.pages - off;
		first = lc->life[id].first_page;
		err = hs_lc_life_carve(lc, id, first + off, first + off + n, &piece);
		if (err)
			return err;
	}
	v = hs_lc_classify(lc, tid, true);
	lc->life[piece].flags |= HS_LIFE_F_SWAPOUT;
	lc->ck.swap_outs++;
	g = hs_lc_task_find(lc, lc->life[piece].tgid);
	if (g != NONE)
		TASK(lc, g)->swapping = true;
	return hs_lc_life_kill(lc, piece, ev->ts_ns, tid, &v);
}

int hs_lc_on_page_fault(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t = TASK(lc, tid);
	uint64_t page = ev->addr >> HS_LC_PAGE_SHIFT;
	bool write = ev->a & PF_WRITE;
	bool stream = hs_lc_kstream(lc, t);
	int32_t tgid = t->tgid;
	struct qfault f = { .tid = t->pid, .tgid = tgid, .page = page, .ts = ev->ts_ns,
			    .life = NONE, .ec = (uint16_t)ev->a, .write = write,
			    .stream = stream };
	uint32_t kid, l, id, g;
	int err;

	/* The thread's previous fault is over: it is running again. */
	hs_lc_fault_done(lc, t);
	err = hs_lc_gp_flush(lc, tid);
	if (err)
		return err;
	kid = hs_lc_page_key_find(lc, HS_LIFE_ANON, (uint32_t)tgid, 0, page);
	l = kid != NONE ? PKEY(lc, kid)->life : NONE;
	f.known = l != NONE;
	if (l != NONE && lc->lp[l].state == L_PENDING) {
		err = hs_lc_task_resolve(lc, lc->lp[l].pend_task, HS_DEATH_NONE);
		if (err)
			return err;
	}
	if (l != NONE && lc->lp[l].state == L_ALIVE) {
		lc->ck.resident_faults++;
		err = hs_lc_access_page(lc, kid, HS_CH_PT, write, stream);
		g = hs_lc_task_find(lc, tgid);
		if (err || (ev->a & (PF_PROT | PF_WRITE | PF_INSTR)) || g == NONE ||
		    !TASK(lc, g)->swapping)
			return err;
		/*
		 * A read of a page taken as present that was not, in a process
		 * that swaps: a NUMA hinting fault, or a swap-in of a page whose
		 * swap-out went to another life.  An insertion found for it tells
		 * the second.
		 */
		f.maybe = true;
		f.stream = false;
		return fault_queue(lc, tid, ev->cpu, &f);
	}
	if (ev->a & PF_INSTR) {
		/* An instruction fetch: text, from a file; it allocates no anon folio. */
		lc->ck.faults_unresolved++;
		return 0;
	}
	if (!swapped_out(lc, l, tgid))
		return fault_queue(lc, tid, ev->cpu, &f);
	/* A fault on a swapped-out page: the swap-in no event shows. */
	err = swapin_life(lc, tid, tgid, page, ev->ts_ns, &id);
	if (!err)
		err = hs_lc_access_page(lc, kid, HS_CH_PT, write, stream);
	if (err)
		return err;
	f.life = id;
	f.stream = false;
	return fault_queue(lc, tid, ev->cpu, &f);
}

/* ---- invariants (hs_lifecycle_check()) ---- */

/*
 * Walk process @g's list of live anon lives (@lost false) or of lost lives
 * (@lost true), checking each member and the back links.  Return: members,
 * or -1 when the list is broken (a bad member, a bad link, a cycle).
 */
static long anon_list_check(const struct hs_lifecycle *lc, const struct task *g, bool lost)
{
	uint32_t id = lost ? g->lost_head : g->anon_head, prev = NONE;
	long n = 0;

	while (id != NONE) {
		const struct lpriv *p;

		if (id >= lc->nr_lives || n > (long)lc->nr_lives)
			return -1;
		p = &lc->lp[id];
		if (p->state != L_ALIVE || lc->life[id].kind != HS_LIFE_ANON ||
		    lc->life[id].tgid != g->pid || (lost ? p->lost_prev : p->anon_prev) != prev)
			return -1;
		/* A lost life has no frame: it leaves the list when it gets one. */
		if (lost && (!p->lost || p->in_map))
			return -1;
		prev = id;
		id = lost ? p->lost_next : p->anon_next;
		n++;
	}
	if (lost && g->lost_tail != prev)
		return -1;
	return n;
}

/*
 * The aligner's invariants: every CPU's queue holds at most QLEN faults in
 * ascending sequence, numbered below lc->qseq, each of a process, an inferred
 * swap-in's life being a live-or-ended anon life; a burst holds fewer than
 * MAX_BURST insertions (a full one is applied at once), only insertions, of
 * its own CPU, and nr_bursts counts the CPUs collecting one; the live anon
 * lives are exactly those on their process's list, the lost ones exactly
 * those on its list of lost lives.  Return: 0 or -EUCLEAN.
 */
int hs_lc_anon_check(const struct hs_lifecycle *lc)
{
	long alive_anon = 0, lost = 0, listed = 0, listed_lost = 0;
	uint32_t c, i, bursts = 0;

	for (c = 0; c < lc->nr_cpuq; c++) {
		const struct cpuq *q = lc->cpuq[c];
		uint64_t seq = 0;

		if (!q)
			continue;
		if (q->n > QLEN || q->head >= QLEN || q->nburst >= MAX_BURST ||
		    q->nburst > q->capburst || q->burst_seq > lc->qseq)
			return -EUCLEAN;
		for (i = 0; i < q->n; i++) {
			const struct qfault *f = &q->e[(q->head + i) % QLEN];

			if (f->seq <= seq || f->seq >= lc->qseq || f->tgid < 0 || f->tid < 0)
				return -EUCLEAN;
			if (f->life != NONE && (f->life >= lc->nr_lives ||
						lc->life[f->life].kind != HS_LIFE_ANON))
				return -EUCLEAN;
			seq = f->seq;
		}
		for (i = 0; i < q->nburst; i++) {
			if (q->burst[i].type != HS_EV_LRU_INSERTION || q->burst[i].cpu != c)
				return -EUCLEAN;
		}
		if (q->nburst || q->cont)
			bursts++;
	}
	if (bursts != lc->nr_bursts)
		return -EUCLEAN;
	for (i = 0; i < lc->nr_lives; i++) {
		if (lc->lp[i].state != L_ALIVE || lc->life[i].kind != HS_LIFE_ANON) {
			if (lc->lp[i].lost)
				return -EUCLEAN;
			continue;
		}
		alive_anon++;
		lost += lc->lp[i].lost;
	}
	for (i = 0; i < hs_keymap_count(lc->tasks); i++) {
		const struct task *g = TASK(lc, i);
		long n = anon_list_check(lc, g, false), m = anon_list_check(lc, g, true);

		if (n < 0 || m < 0)
			return -EUCLEAN;
		listed += n;
		listed_lost += m;
	}
	if (listed != alive_anon || listed_lost != lost || (uint64_t)lost > lc->ck.anon_lost)
		return -EUCLEAN;
	return 0;
}
