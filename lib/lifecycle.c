/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder (see lifecycle.h): decoded kernel events in, folio
 * lives, the replay access stream and self-checks out.  This file holds the
 * entry points and the event dispatch, page keys, lives and how they die; the
 * builder's other ideas have a file each (lifecycle-int.h, the shared
 * insides, lists them), with their part of the design beside their code.
 */

/*
 * Design
 * ======
 *
 * Input.  One struct hs_event per kernel event, merged across CPUs into
 * timestamp order by the reader (a later event is never applied before an
 * earlier one; one that comes out of order is used where it stands and
 * counted).  State is kept per page key, per inode, per task and per CPU.
 *
 * Keys and lives.  A page of page cache is (dev, ino, index); a page of
 * anonymous memory is (tgid, virtual page).  A *life* is one stay of one
 * folio in memory: it covers 2^order consecutive page keys, starts at an
 * mm_filemap_add_to_page_cache (file) or a user fault (anon) and ends at a
 * delete, a swap-out, an unmap or the end of the stream.  Every page key
 * remembers the life that covers it now or covered it last, which is how
 * the next life of that key learns that it is a refault.  Block-device page
 * cache (dev 0:3, RECORDER.md section 5: filesystem metadata through
 * buffer heads) gets its own kind, HS_LIFE_BDEV, so it is counted apart from
 * regular files and can be kept out of the stream.  Page keys, inodes and
 * tasks are the records of three key maps (keymap.h, wide keys): a page
 * key's dense id is the key the stream names it by.  With a scope (the
 * recorded workload), a life is the workload's own (hs_folio_life.workload)
 * when a task in scope added it (file) or its process is in scope (anon),
 * or when a streamed access names one of its pages while it lives: the
 * kernel row of a recording counts those lives only.
 *
 * Joining pfn-keyed events.  mm_lru_insertion, mm_lru_activate and
 * mm_vmscan_write_folio carry a pfn and nothing else.  Every live life with
 * a known pfn holds [head, head + pages) in the pfn interval map
 * (pfnmap.c); an event joins the life whose range contains its pfn, so a
 * pfn inside a large folio finds it too.  A delete removes the range before
 * anything else can reuse the frames, so a join never crosses a delete.  An
 * add that lands on frames still held by another life means that life moved
 * (migration and compaction move page-cache folios without an event) or
 * died unseen: its range is dropped as stale (pfn_stale), the life itself
 * goes on without a pfn.
 *
 *	add(ino 7, index 8, pfn 0x1000, order 2)
 *	   map: [0x1000, 0x1004) -> life 5, keys (7, 8..11) -> life 5
 *	lru_activate(pfn 0x1002)      joins life 5 (range lookup)
 *	delete(ino 7, index 8, order 2)  life 5 dies, range removed
 *	lru_insertion(pfn 0x1002)     joins nothing: the frame is free again
 *
 * Death causes.  A delete is decided by the state of the task that emitted
 * it (common_pid), in this order:
 *
 *	inside shrink_slab_start .. end        truncate  (inode-cache shrinking
 *	                                                  evicting inodes)
 *	inside a direct/memcg/softlimit/node   reclaim
 *	reclaim window (per-task depth
 *	counter), or a kswapd between
 *	kswapd_wake and kswapd_sleep
 *	otherwise                              pending
 *
 * A *pending* death is decided by the same task's next event that is not
 * part of a reclaim batch (deletes, write_folio, the pagemap events,
 * lru_isolate, shrink_active and shrink_slab are part of one):
 *
 *	mm_vmscan_reclaim_pages                pageout  (it closes the batch
 *	                                                  of MADV_PAGEOUT/DAMON)
 *	mm_vmscan_lru_shrink_inactive, or a    reclaim  (the window began
 *	reclaim end / kswapd_sleep with no                before the trace or
 *	window open                                       before a gap)
 *	anything else, or the end              its fallback: truncate, or
 *	                                       unknown for a task whose window
 *	                                       state a gap erased and for a
 *	                                       swap-out outside any window
 *
 * Both closers come after their batch (RECORDER.md: shrink_inactive is a
 * closing marker, reclaim_pages follows the batch in the caller's context),
 * which is why deaths are held until the task shows what it was doing.  A
 * new life of a key whose last death is still pending forces that task's
 * pending deaths to their fallback first (a page re-added within the same
 * microseconds-long batch is not worth a deferred decision).  A seeded
 * kswapd (hs_lifecycle_set_kswapd()) is taken as awake until it says
 * otherwise: kswapd frees page cache only by reclaim and slab shrinking.
 * Process exit and exec (of the thread-group leader) and MADV_DONTNEED or
 * MADV_REMOVE end anonymous lives as truncate: the kernel freed the pages
 * for no reclaim reason.
 *
 * Refaults.  A new life is a refault when the last life of any of its
 * pages ended by reclaim or pageout.  Its distance, in the spirit of the
 * kernel's workingset shadow entries (mm/workingset.c), is counted on an
 * eviction clock that advances by a life's pages when its death is decided
 * as reclaim or pageout:
 *
 *	refault_distance = clock at this birth - clock just after the
 *	                   previous life's death was counted
 *
 * i.e. the pages other folios lost to reclaim or pageout in between (the
 * kernel's nonresident age also counts activations; this one does not).
 * When several pages qualify, the most recent death is used.  refault_ns is
 * the wall-clock gap.  A truncate or unknown death makes no refault.
 *
 * Anonymous memory (lc-anon.c).  No event names an anonymous page's address
 * and its pfn at once: user faults are queued per CPU and aligned with the
 * insertions of the folios they allocated when an LRU add batch drains;
 * swap-out is an anon write_folio, swap-in a fault inferred from the page's
 * last death; folios whose insertion went unseen make lost lives.
 *
 * Threads (lc-task.c).  Faults carry thread ids, anonymous keys need the
 * process: clone events (task_newtask, sched_process_fork) group threads
 * into processes; exit and exec end a process's address space.
 *
 * Large folios and splits.  Sizes are 2^order pages.  A delete (or an anon
 * write_folio at a pfn past the head) that covers only part of a live life
 * shows that the folio was split without an event: the life is cut into
 * pieces at the delete's bounds (HS_LIFE_F_SPLIT, same birth), and the
 * covered piece dies.  A delete of pages with no live life (resident before
 * the trace, or added in a gap) gets a life of unseen birth so that every
 * eviction is counted.
 *
 * Lost events.  HS_EV_LOST means any event may be missing across it.  Then
 * every pending death is decided as unknown, every task's window state
 * becomes unknown until its next window event (its deletes go pending with
 * fallback unknown; closers still prove reclaim or pageout), the bursts
 * being collected are applied first and every queued fault is dropped, and
 * an epoch counter moves on.  A life whose key's
 * previous death lies in an earlier epoch is not claimed as a refault
 * (refaults_distrusted), and a life alive across a gap is flagged
 * HS_LIFE_F_GAP.
 *
 * The access stream (lc-stream.c).  Records are (key-table id, meta byte):
 * reads (get_pages ranges, held back until the next batch of the same read
 * tells how far each went), faults, logged touches, madvise hints and the
 * drops of truncated pages.
 *
 * Self-checks.  Reclaim deaths in pages against the sum of shrink_inactive's
 * nr_reclaimed, pageout deaths against reclaim_pages's, joined against
 * unjoined pfn events, and the lost-event count; each is "not available"
 * when its events never came (6.1 with MGLRU emits no shrink_inactive).
 * Structural invariants (hs_lifecycle_check(): the fault queues and bursts,
 * the lists of live, lost and pending lives, the pfn map, the join counters)
 * are checked after every event with HS_LC_PARANOID, as the tests run it;
 * the aligner asserts the cheap ones of its own as it goes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle-int.h"

/* The kind of a page of page cache on @dev. */
uint8_t hs_lc_file_kind(const struct hs_lifecycle *lc, uint64_t dev)
{
	return dev == lc->opts.bdev_dev ? HS_LIFE_BDEV : HS_LIFE_FILE;
}

/*
 * The id of the page key (@kind, @who, @ino, @index), added if new: @who is
 * dev (file, bdev) or tgid (anon), @ino 0 for anon.
 */
int hs_lc_page_key(struct hs_lifecycle *lc, uint8_t kind, uint64_t who, uint64_t ino,
		   uint64_t index, uint32_t *kid)
{
	const uint64_t k[3] = { (uint64_t)kind << 32 | (who & 0xffffffffu), ino, index };
	int ret = hs_keymap_add_key(lc->keys, k, kid);

	if (ret > 0)
		PKEY(lc, *kid)->life = NONE;
	return ret < 0 ? ret : 0;
}

/* hs_lc_page_key() without adding: the id, or NONE. */
uint32_t hs_lc_page_key_find(const struct hs_lifecycle *lc, uint8_t kind, uint64_t who,
			     uint64_t ino, uint64_t index)
{
	const uint64_t k[3] = { (uint64_t)kind << 32 | (who & 0xffffffffu), ino, index };
	uint32_t id;

	return hs_keymap_lookup_key(lc->keys, k, &id) ? id : NONE;
}

/* The id of inode (@kind, @dev, @ino), added if new. */
int hs_lc_inode_get(struct hs_lifecycle *lc, uint8_t kind, uint64_t dev, uint64_t ino,
		    uint32_t *iid)
{
	const uint64_t k[2] = { (uint64_t)kind << 32 | dev, ino };
	int ret = hs_keymap_add_key(lc->inodes, k, iid);

	return ret < 0 ? ret : 0;
}

static void inode_extend(struct hs_lifecycle *lc, uint32_t iid, uint64_t last)
{
	struct inode *in = INODE(lc, iid);

	if (!in->extent_known || last > in->max_index)
		in->max_index = last;
	in->extent_known = true;
}

int hs_lc_life_new(struct hs_lifecycle *lc, uint32_t *id)
{
	if (lc->nr_lives == lc->cap_lives) {
		uint32_t ncap;
		struct hs_folio_life *nl;
		struct lpriv *np;

		if (lc->cap_lives >= NONE / 2)
			return -ENOMEM;
		ncap = lc->cap_lives ? lc->cap_lives * 2 : 256;
		nl = realloc(lc->life, (size_t)ncap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		lc->life = nl;
		np = realloc(lc->lp, (size_t)ncap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		lc->lp = np;
		lc->cap_lives = ncap;
	}
	*id = lc->nr_lives++;
	memset(&lc->life[*id], 0, sizeof(lc->life[*id]));
	lc->lp[*id] = (struct lpriv){ .next_pending = NONE, .anon_prev = NONE,
				      .anon_next = NONE, .pend_task = NONE,
				      .born_epoch = lc->epoch, .state = L_ALIVE,
				      .lost_prev = NONE, .lost_next = NONE,
				      .ra_next = NONE };
	return 0;
}

/* The page key of page @i of life @id (created if new). */
static int life_page_key(struct hs_lifecycle *lc, uint32_t id, uint64_t i, uint32_t *kid)
{
	const struct hs_folio_life *l = &lc->life[id];

	if (l->kind == HS_LIFE_ANON)
		return hs_lc_page_key(lc, HS_LIFE_ANON, (uint32_t)l->tgid, 0, l->first_page + i,
				      kid);
	return hs_lc_page_key(lc, l->kind, l->dev, l->ino, l->first_page + i, kid);
}

/* Point every page key of life @id at it. */
int hs_lc_life_attach(struct hs_lifecycle *lc, uint32_t id)
{
	uint32_t kid;
	uint64_t i;
	int err;

	for (i = 0; i < lc->life[id].pages; i++) {
		err = life_page_key(lc, id, i, &kid);
		if (err)
			return err;
		PKEY(lc, kid)->life = id;
	}
	return 0;
}

static void map_unlink(struct hs_lifecycle *lc, uint32_t id)
{
	if (!lc->lp[id].in_map)
		return;
	hs_pfnmap_remove(lc->pfns, lc->life[id].pfn);
	lc->lp[id].in_map = false;
}

/* Drop every map range overlapping [pfn, pfn + pages): their frames were reused. */
void hs_lc_map_clear(struct hs_lifecycle *lc, uint64_t pfn, uint64_t pages)
{
	struct hs_pfnmap_ent e;

	while (hs_pfnmap_overlap(lc->pfns, pfn, pages, &e)) {
		hs_pfnmap_remove(lc->pfns, e.head);
		lc->lp[e.val].in_map = false;
		lc->ck.pfn_stale++;
	}
}

/* Put life @id's frames in the map (if its pfn is known). */
int hs_lc_map_link(struct hs_lifecycle *lc, uint32_t id)
{
	const struct hs_folio_life *l = &lc->life[id];
	int err;

	if (!l->pfn || lc->lp[id].in_map || l->pages - 1 > UINT64_MAX - l->pfn)
		return 0;
	hs_lc_map_clear(lc, l->pfn, l->pages);
	err = hs_pfnmap_insert(lc->pfns, l->pfn, l->pages, id);
	if (err)
		return err;
	lc->lp[id].in_map = true;
	hs_lc_lost_del(lc, id);
	return 0;
}

/* Decide the death of life @id (dead or pending) as @cause. */
static int life_decide(struct hs_lifecycle *lc, uint32_t id, uint8_t cause)
{
	struct hs_folio_life *l = &lc->life[id];
	uint32_t kid;
	uint64_t i;
	int err = 0;

	lc->lp[id].state = L_DEAD;
	lc->lp[id].pend_task = NONE;
	l->death_cause = cause;
	lc->ck.death_pages[cause] += l->pages;
	if ((l->flags & HS_LIFE_F_READAHEAD) && !l->accesses)
		lc->ck.readahead_only++;
	if (cause == HS_DEATH_RECLAIM || cause == HS_DEATH_PAGEOUT) {
		lc->clock += l->pages;
		lc->lp[id].died_clock = lc->clock;
		if (cause == HS_DEATH_RECLAIM)
			lc->ck.reclaim_death_pages += l->pages;
		else
			lc->ck.pageout_death_pages += l->pages;
	}
	if (cause != HS_DEATH_TRUNCATE)
		return 0;
	/* Drop the streamed pages no later life has taken over. */
	for (i = 0; i < lc->life[id].pages && !err; i++) {
		err = life_page_key(lc, id, i, &kid);
		if (!err && PKEY(lc, kid)->life == id && PKEY(lc, kid)->streamed)
			err = hs_lc_emit(lc, kid, HS_CH_DROP, false);
	}
	return err;
}

/* Decide every pending death of task @tid: as @cause, or each by its fallback (NONE). */
int hs_lc_task_resolve(struct hs_lifecycle *lc, uint32_t tid, uint8_t cause)
{
	uint32_t id = TASK(lc, tid)->pend_head;
	int first = 0;

	TASK(lc, tid)->pend_head = NONE;
	TASK(lc, tid)->pend_tail = NONE;
	while (id != NONE) {
		uint32_t next = lc->lp[id].next_pending;
		int err;

		lc->lp[id].next_pending = NONE;
		err = life_decide(lc, id, cause != HS_DEATH_NONE ? cause : lc->lp[id].fallback);
		if (err && !first)
			first = err;
		id = next;
	}
	return first;
}

/* How a death caused by task @tid now is decided (see the table in the essay). */
struct verdict hs_lc_classify(const struct hs_lifecycle *lc, uint32_t tid, bool swapout)
{
	const struct task *t = TASK(lc, tid);
	bool known = hs_lc_task_known(lc, t);

	if (!swapout && t->slab_depth)
		return (struct verdict){ .cause = HS_DEATH_TRUNCATE };
	if (t->reclaim_depth || t->kswapd == KS_AWAKE || (t->kswapd == KS_SEEDED && known))
		return (struct verdict){ .cause = HS_DEATH_RECLAIM };
	return (struct verdict){ .cause = HS_DEATH_NONE,
				 .fallback = (!known || swapout) ? HS_DEATH_UNKNOWN :
								   HS_DEATH_TRUNCATE };
}

/* Life @id ends at @ts, caused by task @tid; decided now or pending per @v. */
int hs_lc_life_kill(struct hs_lifecycle *lc, uint32_t id, uint64_t ts, uint32_t tid,
		    const struct verdict *v)
{
	struct lpriv *p = &lc->lp[id];
	struct task *t;

	lc->life[id].died_ns = ts;
	p->died_epoch = lc->epoch;
	if (p->born_epoch != lc->epoch)
		lc->life[id].flags |= HS_LIFE_F_GAP;
	if (p->in_map) {
		/* Its frames are free: a folio found there later came in unseen. */
		int err = hs_lc_fstate_set(lc, lc->life[id].pfn, lc->life[id].pages,
					   FS_SEEN | FS_FREED);

		if (err)
			return err;
	}
	map_unlink(lc, id);
	hs_lc_lost_del(lc, id);
	if (lc->life[id].kind == HS_LIFE_ANON)
		hs_lc_anon_unlink(lc, id);
	if (v->cause != HS_DEATH_NONE)
		return life_decide(lc, id, v->cause);
	p->state = L_PENDING;
	p->fallback = v->fallback;
	p->pend_task = tid;
	t = TASK(lc, tid);
	if (t->pend_tail != NONE)
		lc->lp[t->pend_tail].next_pending = id;
	else
		t->pend_head = id;
	t->pend_tail = id;
	return 0;
}

/*
 * Cut live life @id so that [lo, hi) (page numbers within its range) is one
 * life of its own; *@piece receives that life's id.  The other pieces keep
 * living; all are flagged split.
 */
int hs_lc_life_carve(struct hs_lifecycle *lc, uint32_t id, uint64_t lo, uint64_t hi,
		     uint32_t *piece)
{
	uint64_t first = lc->life[id].first_page;
	uint64_t end = first + lc->life[id].pages;
	uint64_t bound[3] = { first, lo, hi };
	uint64_t pfn = lc->life[id].pfn;
	bool mapped = lc->lp[id].in_map;
	int k, err;

	if (lo == first && hi == end) {
		*piece = id;
		return 0;
	}
	lc->ck.splits++;
	map_unlink(lc, id);
	lc->life[id].flags |= HS_LIFE_F_SPLIT;
	*piece = id;
	/* The first non-empty piece keeps @id, the others are new lives. */
	for (k = 0; k < 3; k++) {
		uint64_t a = bound[k], b = k < 2 ? bound[k + 1] : end;
		uint32_t nid;

		if (a == b)
			continue;
		if (a == first) {
			nid = id;
		} else {
			err = hs_lc_life_new(lc, &nid);
			if (err)
				return err;
			lc->life[nid] = lc->life[id];
			lc->life[nid].accesses = 0;
			lc->life[nid].activations = 0;
			lc->lp[nid].born_epoch = lc->lp[id].born_epoch;
			if (lc->life[nid].kind == HS_LIFE_ANON) {
				err = hs_lc_anon_link(lc, nid);
				if (err)
					return err;
			}
		}
		lc->life[nid].first_page = a;
		lc->life[nid].pages = b - a;
		lc->life[nid].pfn = pfn ? pfn + (a - first) : 0;
		if (lc->life[nid].kind == HS_LIFE_ANON)
			lc->life[nid].address = a << HS_LC_PAGE_SHIFT;
		if (nid != id) {
			err = hs_lc_life_attach(lc, nid);
			if (err)
				return err;
		}
		if (mapped) {
			err = hs_lc_map_link(lc, nid);
			if (err)
				return err;
		}
		if (a == lo)
			*piece = nid;
	}
	return 0;
}

/*
 * Look at the pages [first, first + pages) of a coming life: pending deaths
 * are forced, pages still held by a live life end it at @ts (unknown: an add
 * of a present page means events were missed), and the refault is found.
 */
int hs_lc_birth_scan(struct hs_lifecycle *lc, uint8_t kind, uint64_t who, uint64_t ino,
		     uint64_t first, uint64_t pages, uint64_t ts, uint32_t tid, struct birth *b)
{
	static const struct verdict unknown = { .cause = HS_DEATH_UNKNOWN };
	uint64_t i;
	int err;

	b->prev = NONE;
	b->gap = false;
	b->distrusted = false;
	for (i = 0; i < pages; i++) {
		uint32_t kid, l;

		err = hs_lc_page_key(lc, kind, who, ino, first + i, &kid);
		if (err)
			return err;
		l = PKEY(lc, kid)->life;
		if (l == NONE)
			continue;
		if (lc->lp[l].state == L_PENDING) {
			err = hs_lc_task_resolve(lc, lc->lp[l].pend_task, HS_DEATH_NONE);
			if (err)
				return err;
		}
		if (lc->lp[l].state == L_ALIVE) {
			uint64_t lend = lc->life[l].first_page + lc->life[l].pages;
			uint32_t piece;

			lc->ck.anomalies++;
			err = hs_lc_life_carve(lc, l, first + i,
					       lend < first + pages ? lend : first + pages, &piece);
			if (!err)
				err = hs_lc_life_kill(lc, piece, ts, tid, &unknown);
			if (err)
				return err;
			continue;
		}
		if (lc->life[l].death_cause != HS_DEATH_RECLAIM &&
		    lc->life[l].death_cause != HS_DEATH_PAGEOUT) {
			if (lc->lp[l].died_epoch != lc->epoch)
				b->gap = true;
			continue;
		}
		if (lc->lp[l].died_epoch != lc->epoch) {
			b->gap = true;
			b->distrusted = true;
			continue;
		}
		if (b->prev == NONE || lc->lp[l].died_clock > lc->lp[b->prev].died_clock)
			b->prev = l;
	}
	return 0;
}

/* Fill the refault fields of new life @id from @b. */
void hs_lc_birth_apply(struct hs_lifecycle *lc, uint32_t id, const struct birth *b)
{
	struct hs_folio_life *l = &lc->life[id];

	if (b->gap)
		l->flags |= HS_LIFE_F_GAP;
	if (b->prev == NONE) {
		if (b->distrusted)
			lc->ck.refaults_distrusted++;
		return;
	}
	l->refault = true;
	l->refault_distance = lc->clock - lc->lp[b->prev].died_clock;
	l->refault_ns = l->born_ns >= lc->life[b->prev].died_ns ?
			l->born_ns - lc->life[b->prev].died_ns : 0;
	lc->ck.refaults++;
}

/* The folio size of @ev in pages, or 0 for a malformed event. */
static uint64_t ev_pages(const struct hs_event *ev)
{
	uint64_t pages;

	if (ev->order > HS_LC_MAX_ORDER || (ev->dev >> 32))
		return 0;
	pages = (uint64_t)1 << ev->order;
	if (ev->index > UINT64_MAX - pages || ev->pfn > UINT64_MAX - pages)
		return 0;
	return pages;
}

static int on_add(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint64_t pages = ev_pages(ev);
	uint8_t kind = hs_lc_file_kind(lc, ev->dev);
	struct birth b;
	struct task *t;
	uint32_t iid, id;
	uint8_t flags = 0;
	bool ra, demand;
	int err;

	if (!pages) {
		lc->ck.bad_events++;
		return 0;
	}
	err = hs_lc_inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	inode_extend(lc, iid, ev->index + (pages - 1));
	t = TASK(lc, tid);
	/*
	 * The readahead event fires before the kernel sizes its window (its
	 * req_count is the read's request, not what is read ahead), so every
	 * add of the inode from the event's index on, until the task's next
	 * read or fault, belongs to it.  But a synchronous readahead's request,
	 * [index, index + req_count), is what the read or fault waits for: a
	 * folio holding any of those pages is a demand miss, not readahead (its
	 * other pages still enter the stream as readahead insertions).
	 */
	ra = t->ra_valid && t->ra_inode == iid && ev->index >= t->ra_lo;
	demand = ra && ev->index < t->ra_demand_hi;
	if (ra && !demand)
		flags |= HS_LIFE_F_READAHEAD;
	err = hs_lc_birth_scan(lc, kind, ev->dev, ev->ino, ev->index, pages, ev->ts_ns, tid, &b);
	if (err)
		return err;
	err = hs_lc_life_new(lc, &id);
	if (err)
		return err;
	lc->life[id].kind = kind;
	lc->life[id].flags = flags;
	lc->life[id].workload = (lc->opts.flags & HS_LC_SCOPED) && hs_lc_task_scoped(lc, t);
	lc->life[id].dev = ev->dev;
	lc->life[id].ino = ev->ino;
	lc->life[id].first_page = ev->index;
	lc->life[id].pages = pages;
	lc->life[id].pfn = ev->pfn;
	lc->life[id].born_ns = ev->ts_ns;
	hs_lc_birth_apply(lc, id, &b);
	lc->ck.lives[kind]++;
	err = hs_lc_life_attach(lc, id);
	if (!err && ev->pfn)
		err = hs_lc_fstate_set(lc, ev->pfn, pages, FS_SEEN);
	if (!err)
		err = hs_lc_map_link(lc, id);
	if (!err && ra)
		err = hs_lc_emit_readahead(lc, tid, id, t->ra_lo, t->ra_demand_hi);
	if (!err && (lc->opts.flags & HS_LC_INFER_RA) && kind == HS_LIFE_FILE) {
		/* Demand or readahead: the task's next read, fault or touches tell. */
		hs_lc_ra_wait(lc, tid, id);
		t = TASK(lc, tid);
		if (t->ra_fault && t->ra_f_inode == iid && t->ra_f_index >= ev->index &&
		    t->ra_f_index - ev->index < pages) {
			uint32_t kid = hs_lc_page_key_find(lc, kind, ev->dev, ev->ino,
							   t->ra_f_index);

			if (kid != NONE)
				PKEY(lc, kid)->ra_demand = true;
		}
	}
	return err;
}

static int on_delete(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint64_t pages = ev_pages(ev);
	uint8_t kind = hs_lc_file_kind(lc, ev->dev);
	uint64_t p, end;
	struct verdict v;
	uint32_t iid;
	int err;

	if (!pages) {
		lc->ck.bad_events++;
		return 0;
	}
	err = hs_lc_inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	end = ev->index + pages;
	inode_extend(lc, iid, end - 1);
	v = hs_lc_classify(lc, tid, false);
	if (v.cause != HS_DEATH_RECLAIM) {
		/*
		 * Not inside a read(): the task's own held read, and any held
		 * read of this inode, came before this and go first (a drop
		 * must follow the accesses it undoes).
		 */
		err = hs_lc_gp_flush(lc, tid);
		if (!err)
			err = hs_lc_gp_flush_inode(lc, iid);
		if (err)
			return err;
	}
	for (p = ev->index; p < end;) {
		uint32_t kid, l, id;
		uint64_t q;

		err = hs_lc_page_key(lc, kind, ev->dev, ev->ino, p, &kid);
		if (err)
			return err;
		l = PKEY(lc, kid)->life;
		if (l != NONE && lc->lp[l].state == L_ALIVE) {
			uint64_t lend = lc->life[l].first_page + lc->life[l].pages;
			uint64_t hi = lend < end ? lend : end;

			err = hs_lc_life_carve(lc, l, p, hi, &id);
			if (!err)
				err = hs_lc_life_kill(lc, id, ev->ts_ns, tid, &v);
			if (err)
				return err;
			p = hi;
			continue;
		}
		/* A run of pages with no live life: resident before the trace or a gap. */
		for (q = p; q < end; q++) {
			err = hs_lc_page_key(lc, kind, ev->dev, ev->ino, q, &kid);
			if (err)
				return err;
			l = PKEY(lc, kid)->life;
			if (l != NONE && lc->lp[l].state == L_ALIVE)
				break;
			if (l != NONE && lc->lp[l].died_epoch == lc->epoch)
				lc->ck.anomalies++;
		}
		err = hs_lc_life_new(lc, &id);
		if (err)
			return err;
		lc->lp[id].born_epoch = 0;
		lc->life[id].kind = kind;
		lc->life[id].flags = HS_LIFE_F_UNSEEN_BIRTH;
		lc->life[id].dev = ev->dev;
		lc->life[id].ino = ev->ino;
		lc->life[id].first_page = p;
		lc->life[id].pages = q - p;
		lc->life[id].pfn = ev->pfn ? ev->pfn + (p - ev->index) : 0;
		lc->ck.lives[kind]++;
		err = hs_lc_life_attach(lc, id);
		if (!err)
			err = hs_lc_life_kill(lc, id, ev->ts_ns, tid, &v);
		if (err)
			return err;
		p = q;
	}
	/* The folio's frames are free now: nothing may join through them. */
	if (ev->pfn)
		hs_lc_map_clear(lc, ev->pfn, pages);
	return 0;
}

/* A pfn event: the life whose range holds @pfn, or NONE; counts the join. */
uint32_t hs_lc_pfn_join(struct hs_lifecycle *lc, uint64_t pfn, struct hs_pfnmap_ent *e)
{
	uint32_t id;

	lc->ck.pfn_events++;
	if (!pfn || !hs_pfnmap_find(lc->pfns, pfn, e))
		return NONE;
	id = (uint32_t)e->val;
	lc->ck.pfn_joined++;
	if (lc->life[id].kind == HS_LIFE_ANON)
		lc->ck.pfn_joined_anon++;
	else if (lc->life[id].kind == HS_LIFE_BDEV)
		lc->ck.pfn_joined_bdev++;
	return id;
}

/* Window bookkeeping after the pending deaths were settled. */
static void on_window(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t = TASK(lc, tid);

	switch (ev->type) {
	case HS_EV_DIRECT_RECLAIM_BEGIN:
	case HS_EV_MEMCG_RECLAIM_BEGIN:
	case HS_EV_SOFTLIMIT_RECLAIM_BEGIN:
	case HS_EV_NODE_RECLAIM_BEGIN:
		t->known_epoch = lc->epoch;
		if (t->reclaim_depth < UINT16_MAX)
			t->reclaim_depth++;
		if (ev->type == HS_EV_MEMCG_RECLAIM_BEGIN && t->memcg_depth < UINT16_MAX)
			t->memcg_depth++;
		break;
	case HS_EV_DIRECT_RECLAIM_END:
	case HS_EV_MEMCG_RECLAIM_END:
	case HS_EV_SOFTLIMIT_RECLAIM_END:
	case HS_EV_NODE_RECLAIM_END:
		lc->ck.reclaim_end_reclaimed += ev->a;
		if (t->reclaim_depth)
			t->reclaim_depth--;
		if (ev->type == HS_EV_MEMCG_RECLAIM_END && t->memcg_depth)
			t->memcg_depth--;
		t->known_epoch = lc->epoch;
		break;
	case HS_EV_KSWAPD_WAKE:
		t->kswapd = KS_AWAKE;
		t->known_epoch = lc->epoch;
		break;
	case HS_EV_KSWAPD_SLEEP:
		t->kswapd = KS_ASLEEP;
		t->known_epoch = lc->epoch;
		break;
	case HS_EV_SHRINK_SLAB_START:
		if (t->slab_depth < UINT16_MAX)
			t->slab_depth++;
		break;
	case HS_EV_SHRINK_SLAB_END:
		if (t->slab_depth)
			t->slab_depth--;
		break;
	case HS_EV_SHRINK_INACTIVE:
		lc->ck.shrink_inactive_events++;
		lc->ck.shrink_inactive_reclaimed += ev->a;
		break;
	case HS_EV_RECLAIM_PAGES:
		lc->ck.reclaim_pages_events++;
		lc->ck.reclaim_pages_reclaimed += ev->a;
		break;
	default:
		break;
	}
}

/* Settle task @tid's pending deaths as far as @ev tells (see the essay). */
static int pending_step(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	const struct task *t = TASK(lc, tid);

	if (t->pend_head == NONE)
		return 0;
	switch (ev->type) {
	case HS_EV_FILEMAP_DELETE:
	case HS_EV_WRITE_FOLIO:
	case HS_EV_LRU_INSERTION:
	case HS_EV_LRU_ACTIVATE:
	case HS_EV_LRU_ISOLATE:
	case HS_EV_SHRINK_ACTIVE:
	case HS_EV_SHRINK_SLAB_START:
	case HS_EV_SHRINK_SLAB_END:
		return 0;
	case HS_EV_RECLAIM_PAGES:
		return hs_lc_task_resolve(lc, tid, HS_DEATH_PAGEOUT);
	case HS_EV_SHRINK_INACTIVE:
		return hs_lc_task_resolve(lc, tid, HS_DEATH_RECLAIM);
	case HS_EV_DIRECT_RECLAIM_END:
	case HS_EV_MEMCG_RECLAIM_END:
	case HS_EV_SOFTLIMIT_RECLAIM_END:
	case HS_EV_NODE_RECLAIM_END:
		if (!t->reclaim_depth)
			return hs_lc_task_resolve(lc, tid, HS_DEATH_RECLAIM);
		break;
	case HS_EV_KSWAPD_SLEEP:
		if (t->kswapd != KS_AWAKE)
			return hs_lc_task_resolve(lc, tid, HS_DEATH_RECLAIM);
		break;
	default:
		break;
	}
	return hs_lc_task_resolve(lc, tid, HS_DEATH_NONE);
}

static int on_lost(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	uint32_t i;
	int err;

	lc->ck.gaps++;
	if (ev->a == UINT64_MAX)
		lc->ck.gaps_uncounted++;
	else
		lc->ck.lost_events += ev->a;
	for (i = 0; i < hs_keymap_count(lc->tasks); i++) {
		struct task *t;

		err = hs_lc_gp_flush(lc, i);
		if (!err)
			err = hs_lc_task_resolve(lc, i, HS_DEATH_UNKNOWN);
		if (err)
			return err;
		t = TASK(lc, i);
		t->reclaim_depth = 0;
		t->memcg_depth = 0;
		t->slab_depth = 0;
		t->ra_valid = false;
		if (t->kswapd != KS_NO)
			t->kswapd = KS_SEEDED;
	}
	hs_lc_cpuq_clear_all(lc);
	lc->epoch++;
	return 0;
}

/**
 * hs_lifecycle_new() - a builder
 * @opts: options, or NULL for the defaults
 * @out: the builder
 *
 * Return: 0 or -ENOMEM.
 */
int hs_lifecycle_new(const struct hs_lifecycle_opts *opts, struct hs_lifecycle **out)
{
	struct hs_lifecycle *lc = calloc(1, sizeof(*lc));
	int err;

	if (!lc)
		return -ENOMEM;
	if (opts)
		lc->opts = *opts;
	if (!lc->opts.bdev_dev)
		lc->opts.bdev_dev = HS_LC_BDEV_DEV;
	if (!lc->opts.max_range_pages)
		lc->opts.max_range_pages = DEF_MAX_RANGE;
	if (!lc->opts.link_window_ns)
		lc->opts.link_window_ns = DEF_LINK_NS;
	lc->qseq = 1;
	err = hs_keymap_new_rec(3, sizeof(struct pkey), 0, &lc->keys);
	if (!err)
		err = hs_keymap_new_rec(2, sizeof(struct inode), 0, &lc->inodes);
	if (!err)
		err = hs_keymap_new_rec(1, sizeof(struct task), 0, &lc->tasks);
	if (!err)
		err = hs_pfnmap_new(&lc->pfns);
	if (err) {
		hs_lifecycle_free(lc);
		return err;
	}
	*out = lc;
	return 0;
}

/**
 * hs_lifecycle_free() - free a builder, its lives and its key table
 * @lc: the builder, or NULL
 *
 * Return: nothing.
 */
void hs_lifecycle_free(struct hs_lifecycle *lc)
{
	uint32_t c;

	if (!lc)
		return;
	hs_keymap_free(lc->keys);
	hs_keymap_free(lc->inodes);
	hs_keymap_free(lc->tasks);
	hs_pfnmap_free(lc->pfns);
	for (c = 0; c < lc->nr_cpuq; c++) {
		if (lc->cpuq[c])
			free(lc->cpuq[c]->burst);
		free(lc->cpuq[c]);
	}
	for (c = 0; c < lc->nfstate; c++)
		free(lc->fstate[c]);
	free(lc->fstate);
	free(lc->cpuq);
	free(lc->dp);
	free(lc->dpb);
	free(lc->life);
	free(lc->lp);
	free(lc);
}

/* hs_lifecycle_event() without the paranoid check. */
static int event(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	uint32_t tid;
	int err;

	if (!lc || !ev || lc->finished)
		return -EINVAL;
	if (ev->type == HS_EV_NONE || ev->type >= HS_EV_NR ||
	    (ev->pid < 0 && ev->type != HS_EV_LOST)) {
		lc->ck.bad_events++;
		return 0;
	}
	if (ev->ts_ns < lc->last_ts)
		lc->ck.unordered++;
	else
		lc->last_ts = ev->ts_ns;
	lc->idle = 0;
	if (ev->type != HS_EV_TOUCH && ev->type != HS_EV_LOST && ev->cpu < MAX_CPUS) {
		/* How long this CPU was quiet: a pause an untraced task may have filled. */
		struct cpuq *q = hs_lc_cpuq_get(lc, ev->cpu, true, &err);

		if (!q)
			return err;
		lc->idle = ev->ts_ns > q->ev_ts ? ev->ts_ns - q->ev_ts : 0;
		q->ev_ts = ev->ts_ns;
	}
	if (lc->nr_bursts) {
		err = hs_lc_bursts_check(lc, ev);
		if (err)
			return err;
	}
	if (ev->type == HS_EV_LOST)
		return on_lost(lc, ev);
	if (ev->type == HS_EV_TOUCH)
		return hs_lc_on_touch(lc, ev);
	err = hs_lc_task_get(lc, ev->pid, &tid);
	if (!err)
		err = pending_step(lc, tid, ev);
	if (!err && TASK(lc, tid)->ra_run)	/* its last read's touches are over */
		err = hs_lc_ra_settle(lc, tid, TASK(lc, tid)->ra_run_inode);
	if (err)
		return err;
	/* It runs: a later clone event naming it is a new task (a reused pid). */
	TASK(lc, tid)->born = 0;
	if (ev->type != HS_EV_PAGE_FAULT_USER) {
		err = hs_lc_fault_progress(lc, tid, ev);
		if (err)
			return err;
	}
	switch (ev->type) {
	case HS_EV_FILEMAP_ADD:
		return on_add(lc, tid, ev);
	case HS_EV_FILEMAP_DELETE:
		return on_delete(lc, tid, ev);
	case HS_EV_FILEMAP_GET_PAGES:
		return hs_lc_on_get_pages(lc, tid, ev);
	case HS_EV_FILEMAP_FAULT:
	case HS_EV_FILEMAP_MAP_PAGES:
		return hs_lc_on_file_fault(lc, tid, ev);
	case HS_EV_READAHEAD:
		return hs_lc_on_readahead(lc, tid, ev);
	case HS_EV_LRU_INSERTION:
		return hs_lc_burst_add(lc, ev);
	case HS_EV_LRU_ACTIVATE: {
		struct hs_pfnmap_ent e;
		uint32_t id = hs_lc_pfn_join(lc, ev->pfn, &e);

		if (id == NONE)
			lc->ck.pfn_unjoined++;
		else
			lc->life[id].activations++;
		return 0;
	}
	case HS_EV_WRITE_FOLIO:
		return hs_lc_on_write_folio(lc, tid, ev);
	case HS_EV_PAGE_FAULT_USER:
		return hs_lc_on_page_fault(lc, tid, ev);
	case HS_EV_MADVISE:
		return hs_lc_on_madvise(lc, tid, ev);
	case HS_EV_PROCESS_FORK:
	case HS_EV_TASK_NEW:
		err = hs_lc_gp_flush(lc, tid);
		return err ? err : hs_lc_on_clone(lc, tid, ev);
	case HS_EV_PROCESS_EXIT:
	case HS_EV_PROCESS_EXEC:
		return hs_lc_on_exit_exec(lc, tid, ev);
	default:
		on_window(lc, tid, ev);
		return 0;
	}
}

/**
 * hs_lifecycle_event() - consume one event
 * @lc: the builder
 * @ev: the event; events come in timestamp order
 *
 * Malformed events are counted (bad_events) and skipped; an event older
 * than the one before is used and counted (unordered).  After an -ENOMEM or
 * a callback error the event may be half applied: stop and free.
 *
 * Return: 0; -EINVAL for NULL or after hs_lifecycle_finish(); -ENOMEM; the
 * emit callback's error; or -EUCLEAN with HS_LC_PARANOID when the event
 * broke an invariant (hs_lifecycle_check()).
 */
int hs_lifecycle_event(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	int err = event(lc, ev);

	if (!err && (lc->opts.flags & HS_LC_PARANOID))
		err = hs_lifecycle_check(lc);
	return err;
}

/*
 * Where the stream is a built-in workload's touches, the workload's
 * anonymous pages are the ones its touches name: an anonymous life of its
 * process whose pages no touch ever named (its stack, heap, the libraries'
 * data) is not the workload's for the kernel row, which no replay could
 * match otherwise.  Decided at the end: a fault's life is often linked
 * after the touch that follows it (the insertion waits for its CPU's batch).
 */
static void unown_unstreamed_anon(struct hs_lifecycle *lc)
{
	uint32_t i, kid;
	uint64_t p;

	for (i = 0; i < lc->nr_lives; i++) {
		struct hs_folio_life *l = &lc->life[i];
		bool named = false;

		if (l->kind != HS_LIFE_ANON || !l->workload)
			continue;
		for (p = l->first_page; p < l->first_page + l->pages && !named; p++) {
			kid = hs_lc_page_key_find(lc, HS_LIFE_ANON, (uint32_t)l->tgid, 0, p);
			named = kid != NONE && PKEY(lc, kid)->streamed;
		}
		if (!named)
			l->workload = false;
	}
}

/**
 * hs_lifecycle_finish() - the stream ended
 * @lc: the builder
 *
 * Emits what was held back (the last get_pages range of every task, drops
 * of pending truncations), decides every pending death by its fallback
 * rule, and closes the checks.  Lives still alive keep HS_DEATH_NONE.
 *
 * Return: 0, -EINVAL when already finished, -ENOMEM, or the callback's error.
 */
int hs_lifecycle_finish(struct hs_lifecycle *lc)
{
	uint32_t i;
	int err;

	if (!lc || lc->finished)
		return -EINVAL;
	err = hs_lc_bursts_check(lc, NULL);
	if (err)
		return err;
	lc->finished = true;
	for (i = 0; i < hs_keymap_count(lc->tasks); i++) {
		const struct task *t = TASK(lc, i);

		err = hs_lc_ra_settle(lc, i, t->ra_run ? t->ra_run_inode :
					     t->ra_fault ? t->ra_f_inode : NONE);
		if (!err)
			err = hs_lc_gp_flush(lc, i);
		if (!err)
			err = hs_lc_task_resolve(lc, i, HS_DEATH_NONE);
		if (err)
			return err;
	}
	hs_lc_cpuq_clear_all(lc);
	if ((lc->opts.flags & (HS_LC_SCOPED | HS_LC_TOUCH_ONLY)) ==
	    (HS_LC_SCOPED | HS_LC_TOUCH_ONLY))
		unown_unstreamed_anon(lc);
	for (i = 0; i < lc->nr_lives; i++) {
		struct hs_folio_life *l = &lc->life[i];

		if (lc->lp[i].state != L_ALIVE)
			continue;
		if (lc->lp[i].born_epoch != lc->epoch)
			l->flags |= HS_LIFE_F_GAP;
		if ((l->flags & HS_LIFE_F_READAHEAD) && !l->accesses)
			lc->ck.readahead_only++;
		lc->ck.death_pages[HS_DEATH_NONE] += l->pages;
	}
	return 0;
}

/**
 * hs_lifecycle_nr_lives() - lives so far
 * @lc: the builder
 *
 * Return: their number; ids are 0 .. that - 1.
 */
size_t hs_lifecycle_nr_lives(const struct hs_lifecycle *lc)
{
	return lc->nr_lives;
}

/**
 * hs_lifecycle_life() - one life
 * @lc: the builder
 * @id: 0 .. hs_lifecycle_nr_lives() - 1
 *
 * The pointer stays valid until the next hs_lifecycle_event() or
 * hs_lifecycle_finish().  A life whose death is still being decided (see
 * lifecycle.c, "pending deaths") shows HS_DEATH_NONE with died_ns set.
 *
 * Return: the life, or NULL for an id out of range.
 */
const struct hs_folio_life *hs_lifecycle_life(const struct hs_lifecycle *lc, size_t id)
{
	return id < lc->nr_lives ? &lc->life[id] : NULL;
}

/**
 * hs_lifecycle_pfn_page() - the live page a pfn holds now
 * @lc: the builder
 * @pfn: a page frame number
 * @life: receives the id of the live life whose folio contains it
 * @page: receives the page: first_page + (@pfn - head pfn), i.e. the file
 *	  index, or the virtual page for anon
 *
 * Return: 0, or -ENOENT when no live life with a known pfn holds @pfn.
 */
int hs_lifecycle_pfn_page(const struct hs_lifecycle *lc, uint64_t pfn, size_t *life,
			  uint64_t *page)
{
	struct hs_pfnmap_ent e;

	if (!pfn || !hs_pfnmap_find(lc->pfns, pfn, &e))
		return -ENOENT;
	*life = (size_t)e.val;
	*page = lc->life[e.val].first_page + (pfn - e.head);
	return 0;
}

/**
 * hs_lifecycle_nr_keys() - entries in the key table
 * @lc: the builder
 *
 * Return: their number; the stream's keys are below it.
 */
uint64_t hs_lifecycle_nr_keys(const struct hs_lifecycle *lc)
{
	return hs_keymap_count(lc->keys);
}

/**
 * hs_lifecycle_key() - one entry of the key table
 * @lc: the builder
 * @id: a key id from the stream
 * @out: receives the key
 *
 * Return: 0, or -ENOENT for an id out of range.
 */
int hs_lifecycle_key(const struct hs_lifecycle *lc, uint64_t id, struct hs_lc_key *out)
{
	const struct pkey *k;

	if (id >= hs_keymap_count(lc->keys))
		return -ENOENT;
	k = PKEY(lc, id);
	memset(out, 0, sizeof(*out));
	out->kind = (uint8_t)(k->k[0] >> 32);
	out->index = k->k[2];
	if (out->kind == HS_LIFE_ANON) {
		out->tgid = (int32_t)(uint32_t)k->k[0];
		out->address = k->k[2] << HS_LC_PAGE_SHIFT;
	} else {
		out->dev = k->k[0] & 0xffffffffu;
		out->ino = k->k[1];
	}
	return 0;
}

/*
 * Walk task @t's list of pending deaths: each a pending life held by it
 * (@tid).  Return: its length, or -1 when broken.
 */
static long pending_list_check(const struct hs_lifecycle *lc, uint32_t tid)
{
	const struct task *t = TASK(lc, tid);
	uint32_t id = t->pend_head, last = NONE;
	long n = 0;

	while (id != NONE) {
		if (id >= lc->nr_lives || n > (long)lc->nr_lives ||
		    lc->lp[id].state != L_PENDING || lc->lp[id].pend_task != tid)
			return -1;
		last = id;
		id = lc->lp[id].next_pending;
		n++;
	}
	return last == t->pend_tail ? n : -1;
}

/**
 * hs_lifecycle_check() - the builder's structural invariants
 * @lc: the builder
 *
 * See lifecycle.h; the aligner's part is hs_lc_anon_check() (lc-anon.c).
 *
 * Return: 0, or -EUCLEAN when an invariant does not hold.
 */
int hs_lifecycle_check(const struct hs_lifecycle *lc)
{
	long pending = 0, listed = 0;
	size_t mapped = 0;
	uint32_t i;

	if (lc->ck.pfn_joined + lc->ck.pfn_unjoined != lc->ck.pfn_events ||
	    hs_pfnmap_check(lc->pfns))
		return -EUCLEAN;
	for (i = 0; i < lc->nr_lives; i++) {
		const struct lpriv *p = &lc->lp[i];
		struct hs_pfnmap_ent e;

		if (p->state > L_DEAD || !lc->life[i].pages)
			return -EUCLEAN;
		/* Pending iff on a task's list; a decided death is on none. */
		if (p->state == L_PENDING)
			pending++;
		else if (p->pend_task != NONE || p->next_pending != NONE)
			return -EUCLEAN;
		if (p->state == L_DEAD && lc->life[i].death_cause == HS_DEATH_NONE)
			return -EUCLEAN;
		if (p->state == L_ALIVE && (lc->life[i].death_cause != HS_DEATH_NONE ||
					    lc->life[i].died_ns))
			return -EUCLEAN;
		/* Only live lives hold frames, each where its pfn says. */
		if (!p->in_map)
			continue;
		mapped++;
		if (p->state != L_ALIVE || !hs_pfnmap_find(lc->pfns, lc->life[i].pfn, &e) ||
		    e.val != i || e.head != lc->life[i].pfn || e.pages != lc->life[i].pages)
			return -EUCLEAN;
	}
	if (mapped != hs_pfnmap_count(lc->pfns))
		return -EUCLEAN;
	for (i = 0; i < hs_keymap_count(lc->tasks); i++) {
		long n = pending_list_check(lc, i);

		if (n < 0)
			return -EUCLEAN;
		listed += n;
	}
	if (listed != pending)
		return -EUCLEAN;
	return hs_lc_anon_check(lc);
}

/**
 * hs_lifecycle_get_checks() - the self-checks and counters so far
 * @lc: the builder
 * @out: receives them
 *
 * Return: 0.
 */
int hs_lifecycle_get_checks(const struct hs_lifecycle *lc, struct hs_lifecycle_checks *out)
{
	*out = lc->ck;
	if (!out->shrink_inactive_events)
		out->reclaim_status = HS_LC_CHECK_NA;
	else if (out->reclaim_death_pages == out->shrink_inactive_reclaimed)
		out->reclaim_status = HS_LC_CHECK_OK;
	else
		out->reclaim_status = HS_LC_CHECK_DIFF;
	if (!out->reclaim_pages_events)
		out->pageout_status = HS_LC_CHECK_NA;
	else if (out->pageout_death_pages == out->reclaim_pages_reclaimed)
		out->pageout_status = HS_LC_CHECK_OK;
	else
		out->pageout_status = HS_LC_CHECK_DIFF;
	if (!out->pfn_events)
		out->join_status = HS_LC_CHECK_NA;
	else
		out->join_status = out->pfn_unjoined ? HS_LC_CHECK_DIFF : HS_LC_CHECK_OK;
	out->lost_status = out->gaps ? HS_LC_CHECK_DIFF : HS_LC_CHECK_OK;
	return 0;
}

/**
 * hs_lc_check_status_name() - "n/a", "ok", "differs"
 * @status: enum hs_lc_check_status
 *
 * Return: the name, or "?" for a bad value.
 */
const char *hs_lc_check_status_name(enum hs_lc_check_status status)
{
	switch (status) {
	case HS_LC_CHECK_NA:
		return "n/a";
	case HS_LC_CHECK_OK:
		return "ok";
	case HS_LC_CHECK_DIFF:
		return "differs";
	}
	return "?";
}
