/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's access stream (lifecycle.c has the whole design):
 * what is emitted for reads, faults, touches and madvise, and the reads held
 * back until it is known how far they went.
 */

/*
 * The access stream.  Records are (key-table id, meta byte):
 *
 *	mm_filemap_get_pages [index, last]   FD, see below
 *	mm_filemap_fault index               PT
 *	mm_filemap_map_pages [index, last]   PT for the resident pages (x86 maps
 *	                                     fault-around pages young)
 *	page_fault_user on anon              PT (write from the error code)
 *	HS_EV_TOUCH                          FD or PT, as the workload logged it
 *	madvise MADV_PAGEOUT / MADV_COLD     hint, for streamed anon pages alive
 *	truncate deaths                      DROP, for streamed pages not re-added
 *
 * One read() emits one get_pages per batch, each with the *whole remaining*
 * request as its range ([pos, end of request]), so ranges overlap.  A
 * thread's get_pages is held; when its next one continues the same request
 * (same inode and last, later index) the held one covered [index, next
 * index - 1]; otherwise the held one was the request's last batch and
 * covered its range up to end of file, i.e. the pages resident at its time.
 * A page was resident at time t when its key's last life was alive at t,
 * or when it never had a life and lies within the inode's known extent (or
 * the inode has none: files cached before the trace).  A delete that is not
 * reclaim first streams the held reads of its inode, so a truncation's drops
 * follow the reads they undo.  Ranges longer than max_range_pages are cut.
 * Readahead adds are flagged on the life (HS_LIFE_F_READAHEAD: added by the
 * task to the inode of its last page_cache_*_ra event, at or after that
 * event's index, before its next read or fault: the event comes before the
 * kernel sizes the window, so its req_count does not bound it; but a
 * synchronous readahead's own request, the req_count pages from its index
 * that the read or fault waits for, is a demand miss and not flagged);
 * readahead_only counts those never accessed.  Each page of such an add,
 * the request excepted, is streamed as a READAHEAD record at the add
 * (hs_lc_emit_readahead()):
 * the page entered memory there without a reference, and the read that
 * follows, if any, finds it resident.  Swap readahead is not streamed: an
 * anonymous page's insertion does not tell a swap-in the task faulted on
 * from one swapin_readahead() brought along.  With HS_LC_SCOPED only the
 * tasks in scope stream accesses, hints and readahead, and a life one of
 * them streams an access to becomes the workload's (hs_folio_life.workload).
 *
 * Readahead without readahead events (HS_LC_INFER_RA: kernels before 6.18).
 * The kernel adds a read's own pages and the pages it reads ahead in the
 * reader's context, before the read returns, and nothing in the add tells
 * them apart; the demand that follows does.  So a file add (not block-device
 * page cache) waits on its adder's list (task.ra_head) and every page a read,
 * fault or touch asks for while it waits is marked (pkey.ra_demand); the
 * list is settled when the task's demand is known:
 *
 *	mm_filemap_get_pages [index, last]   marks the waiting pages in the
 *	                                     range, then settles (it fires
 *	                                     after the adds of its batch)
 *	mm_filemap_fault index               settles what waited, then marks
 *	                                     page index of the adds that
 *	                                     follow it (it fires before them)
 *	a run of touches (one time stamp:    marks the pages touched; settled
 *	one read(2)'s pages, logged after    at the task's next event (6.1:
 *	it returned)                         no get_pages event at all)
 *
 * Settling the list against the demand's inode: a life of that inode none
 * of whose pages was asked for is readahead (HS_LIFE_F_READAHEAD, and all
 * its pages stream as READAHEAD records); a life with some pages asked for
 * is a demand miss whose other pages stream as READAHEAD records, as the
 * traced rule does with a synchronous readahead's request.  A life reclaim
 * or truncation ended before the settling (reclaim inside the read, under a
 * tight limit) is flagged all the same; its records stream unless it was
 * truncated.  Lives of other inodes, lives added more than RA_SETTLE_NS
 * before the settling demand and lives no demand ever settled (writes, the
 * end of the trace) stay demand misses (ra_unsettled counts the lives so
 * left).  The records stream at the settling event instead of at the add:
 * before the read's own access, which is held or comes after anyway.
 * Limits: a page the same read asks for is demand even where an
 * asynchronous readahead brought it (the traced rule calls it readahead:
 * 313 of 409,279 pages on the host's scan-hot); writes followed by a read of
 * the same file within RA_SETTLE_NS make false readahead.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle-int.h"

#define RA_SETTLE_NS	1000000000ull	/* an add this long before the demand settling it
					 * is not that demand's readahead */

/*
 * Stream page @kid's record on channel @ch; @bits: HS_META_WRITE and
 * HS_META_NORECENCY, the meta bits the channel and the key's kind do not give.
 */
int hs_lc_emit_bits(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch, uint8_t bits)
{
	struct pkey *k = PKEY(lc, kid);
	uint8_t kind = (uint8_t)(k->k[0] >> 32);

	if (kind == HS_LIFE_BDEV && (lc->opts.flags & HS_LC_NO_BDEV))
		return 0;
	if (hs_channel_is_access(ch)) {
		k->streamed = true;
		lc->ck.accesses++;
	} else if (ch == HS_CH_DROP) {
		lc->ck.drops++;
	} else if (ch == HS_CH_READAHEAD) {
		lc->ck.readahead++;
	} else {
		lc->ck.hints++;
	}
	if (!lc->opts.emit)
		return 0;
	bits &= HS_META_WRITE | HS_META_NORECENCY;
	return lc->opts.emit(lc->opts.emit_arg, kid,
			     (uint8_t)(hs_meta_make(ch, kind == HS_LIFE_ANON ? HS_TYPE_ANON :
							HS_TYPE_FILE, false) | bits), lc->last_ts);
}

/*
 * Life @id was just born by an add inside a readahead window of task @tid:
 * stream each of its pages outside [@skip_lo, @skip_hi) as a READAHEAD
 * record, if the task is in scope.  The skipped pages are the ones the read
 * or fault waits for (a synchronous readahead's request): they enter as
 * that access's miss.  An insertion is the kernel's fact, not an access the
 * touch log would see: it streams with HS_LC_TOUCH_ONLY too, like hints and
 * drops.
 */
int hs_lc_emit_readahead(struct hs_lifecycle *lc, uint32_t tid, uint32_t id, uint64_t skip_lo,
			 uint64_t skip_hi)
{
	const struct hs_folio_life *l = &lc->life[id];
	uint8_t kind = l->kind;
	uint64_t dev = l->dev, ino = l->ino, first = l->first_page, pages = l->pages, p;
	uint32_t kid;
	int err;

	if (!hs_lc_task_in_scope(lc, TASK(lc, tid)))
		return 0;
	for (p = first; p < first + pages; p++) {
		if (p >= skip_lo && p < skip_hi)
			continue;
		err = hs_lc_page_key(lc, kind, dev, ino, p, &kid);
		if (!err)
			err = hs_lc_emit(lc, kid, HS_CH_READAHEAD, false);
		if (err)
			return err;
	}
	return 0;
}

/* File life @id, just added by task @tid, waits to be settled (HS_LC_INFER_RA). */
void hs_lc_ra_wait(struct hs_lifecycle *lc, uint32_t tid, uint32_t id)
{
	struct task *t = TASK(lc, tid);

	lc->lp[id].ra_wait = true;
	lc->lp[id].ra_next = NONE;
	if (t->ra_tail == NONE)
		t->ra_head = id;
	else
		lc->lp[t->ra_tail].ra_next = id;
	t->ra_tail = id;
}

/* Mark the pages [lo, hi] of task @tid's waiting lives of inode @iid as asked for. */
static void ra_mark(struct hs_lifecycle *lc, uint32_t tid, uint32_t iid, uint64_t lo, uint64_t hi)
{
	const struct inode *in = INODE(lc, iid);
	uint32_t id;

	for (id = TASK(lc, tid)->ra_head; id != NONE; id = lc->lp[id].ra_next) {
		const struct hs_folio_life *l = &lc->life[id];
		uint64_t p;

		if (l->ino != in->k[1] || l->dev != (in->k[0] & 0xffffffffu) ||
		    l->kind != (uint8_t)(in->k[0] >> 32))
			continue;
		for (p = l->first_page > lo ? l->first_page : lo;
		     p < l->first_page + l->pages && p <= hi; p++) {
			uint32_t kid = hs_lc_page_key_find(lc, l->kind, l->dev, l->ino, p);

			if (kid != NONE)
				PKEY(lc, kid)->ra_demand = true;
		}
	}
}

/*
 * Settle task @tid's waiting adds against a demand on inode @iid (NONE: no
 * demand, all stay demand misses): see the essay above.
 */
int hs_lc_ra_settle(struct hs_lifecycle *lc, uint32_t tid, uint32_t iid)
{
	const struct inode *in = iid != NONE ? INODE(lc, iid) : NULL;
	bool scope = hs_lc_task_in_scope(lc, TASK(lc, tid));
	uint32_t id = TASK(lc, tid)->ra_head, next;
	int err = 0;

	TASK(lc, tid)->ra_head = NONE;
	TASK(lc, tid)->ra_tail = NONE;
	TASK(lc, tid)->ra_run = false;
	for (; id != NONE; id = next) {
		struct hs_folio_life *l = &lc->life[id];
		uint8_t state = lc->lp[id].state;
		bool asked = false, ours, stream;
		uint64_t p;

		next = lc->lp[id].ra_next;
		lc->lp[id].ra_wait = false;
		lc->lp[id].ra_next = NONE;
		/* which pages were asked for: clear the marks as they are read */
		for (p = l->first_page; p < l->first_page + l->pages; p++) {
			uint32_t kid = hs_lc_page_key_find(lc, l->kind, l->dev, l->ino, p);

			if (kid != NONE && PKEY(lc, kid)->ra_demand && PKEY(lc, kid)->life == id)
				asked = true;
		}
		ours = in && l->ino == in->k[1] && l->dev == (in->k[0] & 0xffffffffu) &&
		       l->kind == (uint8_t)(in->k[0] >> 32) &&
		       lc->last_ts - l->born_ns <= RA_SETTLE_NS;
		if (!ours && !asked)
			lc->ck.ra_unsettled++;
		if (!err && ours && !asked) {
			/*
			 * Reclaim inside the read may have taken it already (a large
			 * window under a tight limit): read ahead all the same, and
			 * counted unused now if its death is decided.
			 */
			l->flags |= HS_LIFE_F_READAHEAD;
			lc->ck.readahead_inferred += l->pages;
			if (state == L_DEAD && !l->accesses)
				lc->ck.readahead_only++;
		}
		/*
		 * Its pages entered memory, so they stream, unless a truncation
		 * already dropped them for good.
		 */
		stream = ours && scope && (state != L_DEAD || l->death_cause == HS_DEATH_RECLAIM ||
					   l->death_cause == HS_DEATH_PAGEOUT);
		for (p = l->first_page; p < l->first_page + l->pages; p++) {
			uint32_t kid = hs_lc_page_key_find(lc, l->kind, l->dev, l->ino, p);
			bool demand;

			if (kid == NONE)
				continue;
			demand = PKEY(lc, kid)->ra_demand;
			PKEY(lc, kid)->ra_demand = false;
			if (!err && stream && !demand && PKEY(lc, kid)->life == id)
				err = hs_lc_emit(lc, kid, HS_CH_READAHEAD, false);
		}
	}
	return err;
}

/* An access to page @kid: counted on its live life, streamed if @stream (hs_lc_emit_bits()). */
int hs_lc_access_page_bits(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch,
			   uint8_t bits, bool stream)
{
	uint32_t l = PKEY(lc, kid)->life;

	if (l != NONE && lc->lp[l].state == L_ALIVE) {
		if (lc->lp[l].ra_wait)
			PKEY(lc, kid)->ra_demand = true;
		lc->life[l].accesses++;
		if (stream && (lc->opts.flags & HS_LC_SCOPED))
			lc->life[l].workload = true;
	}
	return stream ? hs_lc_emit_bits(lc, kid, ch, bits) : 0;
}

/*
 * Was page @index of inode @iid (key @kid, or NONE) resident at time @at?  Its
 * last life tells (alive then); a page that never had one is resident if it
 * is within the inode's known extent, or the extent is unknown.
 */
static bool page_resident(const struct hs_lifecycle *lc, uint32_t iid, uint32_t kid,
			  uint64_t index, uint64_t at)
{
	const struct inode *in = INODE(lc, iid);

	if (kid != NONE && PKEY(lc, kid)->life != NONE) {
		uint32_t l = PKEY(lc, kid)->life;

		if (lc->life[l].born_ns > at)
			return false;
		return lc->lp[l].state == L_ALIVE || lc->life[l].died_ns > at;
	}
	return !in->extent_known || index <= in->max_index;
}

/*
 * Stream the pages [lo, last] of inode @iid on @ch: all of them, or with
 * @resident only those resident at time @at.
 */
static int range_access(struct hs_lifecycle *lc, uint32_t iid, uint64_t lo, uint64_t last,
			enum hs_channel ch, bool resident, uint64_t at, bool stream)
{
	uint8_t kind = (uint8_t)(INODE(lc, iid)->k[0] >> 32);
	uint64_t dev = INODE(lc, iid)->k[0] & 0xffffffffu;
	uint64_t ino = INODE(lc, iid)->k[1];
	uint64_t p;
	int err;

	if (last - lo >= lc->opts.max_range_pages) {
		last = lo + (lc->opts.max_range_pages - 1);
		lc->ck.ranges_cut++;
	}
	for (p = lo;; p++) {
		uint32_t kid = hs_lc_page_key_find(lc, kind, dev, ino, p);

		if (!resident || page_resident(lc, iid, kid, p, at)) {
			if (kid == NONE) {
				err = hs_lc_page_key(lc, kind, dev, ino, p, &kid);
				if (err)
					return err;
			}
			err = hs_lc_access_page(lc, kid, ch, false, stream);
			if (err)
				return err;
		}
		if (p == last)
			break;
	}
	return 0;
}

/* Task @t no longer holds a get_pages. */
static void gp_release(struct hs_lifecycle *lc, struct task *t)
{
	t->gp_valid = false;
	INODE(lc, t->gp_inode)->gp_holders--;
}

/* Task @tid's held get_pages was the last batch of its read: stream it. */
int hs_lc_gp_flush(struct hs_lifecycle *lc, uint32_t tid)
{
	struct task *t = TASK(lc, tid);

	if (!t->gp_valid)
		return 0;
	gp_release(lc, t);
	return range_access(lc, t->gp_inode, t->gp_index, t->gp_last, HS_CH_FD, true, t->gp_ts,
			    hs_lc_kstream(lc, t));
}

/* Flush every task holding a get_pages on inode @iid (its pages are going away). */
int hs_lc_gp_flush_inode(struct hs_lifecycle *lc, uint32_t iid)
{
	uint32_t i;
	int err;

	for (i = 0; i < hs_keymap_count(lc->tasks) && INODE(lc, iid)->gp_holders; i++) {
		if (!TASK(lc, i)->gp_valid || TASK(lc, i)->gp_inode != iid)
			continue;
		err = hs_lc_gp_flush(lc, i);
		if (err)
			return err;
	}
	return 0;
}

int hs_lc_on_file_fault(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint8_t kind = hs_lc_file_kind(lc, ev->dev);
	struct task *t = TASK(lc, tid);
	uint32_t iid, kid;
	int err;

	hs_lc_fault_file(lc, tid);
	t->ra_valid = false;
	if (ev->dev >> 32) {
		lc->ck.bad_events++;
		return 0;
	}
	if (ev->type == HS_EV_FILEMAP_FAULT && (lc->opts.flags & HS_LC_INFER_RA)) {
		/* It fires before the adds it causes: settle the earlier ones first. */
		err = hs_lc_ra_settle(lc, tid, TASK(lc, tid)->ra_fault ?
					       TASK(lc, tid)->ra_f_inode : NONE);
		if (!err)
			err = hs_lc_inode_get(lc, kind, ev->dev, ev->ino, &iid);
		if (err)
			return err;
		TASK(lc, tid)->ra_fault = true;
		TASK(lc, tid)->ra_f_inode = iid;
		TASK(lc, tid)->ra_f_index = ev->index;
	}
	if (ev->type == HS_EV_FILEMAP_FAULT) {
		err = hs_lc_page_key(lc, kind, ev->dev, ev->ino, ev->index, &kid);
		if (err)
			return err;
		return hs_lc_access_page(lc, kid, HS_CH_PT, false,
					 hs_lc_kstream(lc, TASK(lc, tid)));
	}
	if (ev->last < ev->index) {
		lc->ck.bad_events++;
		return 0;
	}
	err = hs_lc_inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	return range_access(lc, iid, ev->index, ev->last, HS_CH_PT, true, ev->ts_ns,
			    hs_lc_kstream(lc, TASK(lc, tid)));
}

int hs_lc_on_get_pages(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint8_t kind = hs_lc_file_kind(lc, ev->dev);
	struct task *t;
	uint32_t iid;
	int err;

	if ((ev->dev >> 32) || ev->last < ev->index) {
		lc->ck.bad_events++;
		return 0;
	}
	err = hs_lc_inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	if (lc->opts.flags & HS_LC_INFER_RA) {
		/* It fires after the adds of its batch: they were for it or read ahead. */
		ra_mark(lc, tid, iid, ev->index, ev->last);
		TASK(lc, tid)->ra_fault = false;
		err = hs_lc_ra_settle(lc, tid, iid);
		if (err)
			return err;
	}
	t = TASK(lc, tid);
	t->ra_valid = false;
	if (t->gp_valid && t->gp_inode == iid && t->gp_last == ev->last &&
	    ev->index > t->gp_index && ev->index <= t->gp_last) {
		/* The same read goes on: the held batch was [gp_index, index - 1]. */
		gp_release(lc, t);
		err = range_access(lc, iid, t->gp_index, ev->index - 1, HS_CH_FD, false, 0,
				   hs_lc_kstream(lc, t));
	} else {
		err = hs_lc_gp_flush(lc, tid);
	}
	if (err)
		return err;
	t = TASK(lc, tid);
	t->gp_valid = true;
	t->gp_inode = iid;
	t->gp_ts = ev->ts_ns;
	INODE(lc, iid)->gp_holders++;
	t->gp_index = ev->index;
	t->gp_last = ev->last;
	return 0;
}

int hs_lc_on_readahead(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t;
	uint32_t iid;
	int err;

	if (lc->opts.flags & HS_LC_INFER_RA)
		return 0;
	if (ev->dev >> 32) {
		lc->ck.bad_events++;
		return 0;
	}
	err = hs_lc_inode_get(lc, hs_lc_file_kind(lc, ev->dev), ev->dev, ev->ino, &iid);
	if (err)
		return err;
	t = TASK(lc, tid);
	t->ra_valid = ev->a > 0;
	t->ra_inode = iid;
	t->ra_lo = ev->index;
	t->ra_demand_hi = ev->index;
	if (!(ev->flags & HS_EVF_ASYNC) && ev->a <= UINT64_MAX - ev->index)
		t->ra_demand_hi = ev->index + ev->a;
	return 0;
}

/* madvise on [addr, addr + len) of the task's process. */
int hs_lc_on_madvise(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	static const struct verdict truncate = { .cause = HS_DEATH_TRUNCATE };
	struct task *t = TASK(lc, tid);
	int32_t tgid = t->tgid;
	bool stream = hs_lc_task_in_scope(lc, t);
	enum hs_channel ch;
	uint64_t lo, hi, p;
	int err;

	err = hs_lc_gp_flush(lc, tid);
	if (err)
		return err;
	switch (ev->b) {
	case LC_MADV_COLD:
		ch = HS_CH_COLD;
		break;
	case LC_MADV_PAGEOUT:
		ch = HS_CH_PAGEOUT;
		break;
	case LC_MADV_DONTNEED:
	case LC_MADV_DONTNEED_LOCKED:
	case LC_MADV_REMOVE:
		ch = HS_CH_DROP;
		break;
	default:
		return 0;
	}
	if (!ev->a)
		return 0;
	lo = ev->addr >> HS_LC_PAGE_SHIFT;
	hi = ev->a - 1 > UINT64_MAX - ev->addr ? (UINT64_MAX >> HS_LC_PAGE_SHIFT) + 1 :
	     ((ev->addr + (ev->a - 1)) >> HS_LC_PAGE_SHIFT) + 1;
	if (hi - lo > lc->opts.max_range_pages) {
		hi = lo + lc->opts.max_range_pages;
		lc->ck.ranges_cut++;
	}
	for (p = lo; p < hi;) {
		uint32_t kid = hs_lc_page_key_find(lc, HS_LIFE_ANON, (uint32_t)tgid, 0, p);
		uint32_t l = kid != NONE ? PKEY(lc, kid)->life : NONE;
		uint32_t piece;
		uint64_t lend;

		if (l == NONE || lc->lp[l].state != L_ALIVE) {
			p++;
			continue;
		}
		if (ch != HS_CH_DROP) {
			if (stream && PKEY(lc, kid)->streamed) {
				err = hs_lc_emit(lc, kid, ch, false);
				if (err)
					return err;
			}
			p++;
			continue;
		}
		/* MADV_DONTNEED: the pages are unmapped and freed. */
		lend = lc->life[l].first_page + lc->life[l].pages;
		err = hs_lc_life_carve(lc, l, p, lend < hi ? lend : hi, &piece);
		if (!err)
			err = hs_lc_life_kill(lc, piece, ev->ts_ns, tid, &truncate);
		if (err)
			return err;
		p = lend < hi ? lend : hi;
	}
	return 0;
}

int hs_lc_on_touch(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	uint32_t g = hs_lc_task_find(lc, ev->pid);
	bool stream = !(lc->opts.flags & HS_LC_SCOPED) ||
		      (g != NONE && hs_lc_task_in_scope(lc, TASK(lc, g)));
	enum hs_channel ch = (ev->flags & HS_EVF_FD) ? HS_CH_FD : HS_CH_PT;
	uint32_t kid;
	int err;

	if (g != NONE && TASK(lc, g)->open_seq) {
		/* The workload logs a touch after making it: an earlier fault is over. */
		struct task *t = TASK(lc, g);
		int i = hs_lc_cpuq_find(lc, t->open_cpu, t->open_seq);

		if (i < 0 || hs_lc_cpuq_at(lc->cpuq[t->open_cpu], (uint32_t)i)->ts < ev->ts_ns)
			hs_lc_fault_done(lc, t);
	}
	if (g != NONE && TASK(lc, g)->ra_run && TASK(lc, g)->ra_run_ts != ev->ts_ns) {
		/* The touches of the previous read are over. */
		err = hs_lc_ra_settle(lc, g, TASK(lc, g)->ra_run_inode);
		if (err)
			return err;
	}
	if (ev->flags & HS_EVF_ANON) {
		err = hs_lc_page_key(lc, HS_LIFE_ANON, (uint32_t)ev->pid, 0,
				     ev->addr >> HS_LC_PAGE_SHIFT, &kid);
	} else {
		if (ev->dev >> 32) {
			lc->ck.bad_events++;
			return 0;
		}
		err = hs_lc_page_key(lc, hs_lc_file_kind(lc, ev->dev), ev->dev, ev->ino,
				     ev->index, &kid);
		if (!err && g != NONE && TASK(lc, g)->ra_head != NONE && !TASK(lc, g)->ra_run) {
			/* The first touch of a read whose adds wait: a run opens. */
			uint32_t iid;

			err = hs_lc_inode_get(lc, hs_lc_file_kind(lc, ev->dev), ev->dev, ev->ino,
					      &iid);
			if (!err) {
				TASK(lc, g)->ra_run = true;
				TASK(lc, g)->ra_run_ts = ev->ts_ns;
				TASK(lc, g)->ra_run_inode = iid;
			}
		}
	}
	if (err)
		return err;
	return hs_lc_access_page_bits(lc, kid, ch,
				      (uint8_t)((ev->flags & HS_EVF_WRITE ? HS_META_WRITE : 0) |
						(ch == HS_CH_PT && (ev->flags & HS_EVF_NORECENCY) ?
						 HS_META_NORECENCY : 0)), stream);
}
