/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder (see lifecycle.h): decoded kernel events in, folio
 * lives, the replay access stream and self-checks out.
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
 * regular files and can be kept out of the stream.
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
 *
 * Threads.  Fault events carry thread ids, anonymous keys need the process.
 * Every clone emits task:task_newtask (from copy_process(), with the new
 * task's pid and clone_flags) and then sched_process_fork (from
 * kernel_clone(), child pid only), both by the creating thread and both
 * before the new task can run.  task_newtask decides: with CLONE_THREAD
 * (0x00010000) the new task joins the creator's thread group (tgid = the
 * creator's tgid), without it it is a new process (tgid = its pid).
 * sched_process_fork alone cannot tell, so a child only forked is a new
 * process, as before task_newtask was decoded, unless hs_lifecycle_set_tgid()
 * seeded it; task_newtask overrides a seed (the pid may be a reused one).
 * Either event starts a new task (its window state, held read and pending
 * deaths cleared) and hands it the creator's scope.  The two are made
 * idempotent by a per-task mark of the clone events applied since the task
 * last emitted an event of its own: the second event of the same clone finds
 * the other's mark and only adds what it knows (task_newtask the tgid, fork
 * nothing), so newtask-then-fork, fork-then-newtask and either alone give the
 * same task; a clone event that finds its own mark already set, or no mark, is
 * a new task on that pid.
 *
 *	task_newtask(pid 10 -> 12, CLONE_THREAD)   12: tgid 10, mark N
 *	sched_process_fork(10 -> 12)               mark N set: tgid stays 10
 *	page_fault_user(tid 12, A)                 12 runs: mark cleared;
 *	                                           key (10, A), the parent's
 *	task_newtask(pid 10 -> 13, no THREAD)      13: tgid 13, its own keys
 *
 * A task created before the trace is its own process unless seeded.  A
 * CLONE_VM child without CLONE_THREAD (vfork, posix_spawn) runs in its
 * parent's address space until it execs, but is keyed as its own process:
 * the few faults it makes there are mis-keyed.
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
 * task inside its last page_cache_*_ra window, before its next read or
 * fault); readahead_only counts those never accessed.  With HS_LC_SCOPED
 * only the tasks in scope stream accesses and hints.
 *
 * Self-checks.  Reclaim deaths in pages against the sum of shrink_inactive's
 * nr_reclaimed, pageout deaths against reclaim_pages's, joined against
 * unjoined pfn events, and the lost-event count; each is "not available"
 * when its events never came (6.1 with MGLRU emits no shrink_inactive).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "event.h"
#include "lifecycle.h"
#include "pfnmap.h"

#define NONE		UINT32_MAX	/* no id */
#define QLEN		256		/* user faults queued per CPU (an LRU batch is 31) */
#define MAX_CPUS	4096		/* CPUs with a fault queue */
#define MAX_BURST	512		/* insertions aligned at once (longer: applied in parts) */
#define BURST_GAP_NS	50000ull	/* a CPU this long without an insertion ended its burst */
#define FS_SHIFT	15		/* frames per frame-state chunk (2 bits each: 8 KiB) */
#define FS_CHUNKS	((uint64_t)1 << 24)	/* frames from 2^39 on are not tracked */

/* Frame states (2 bits per pfn) */
#define FS_SEEN		0x1u	/* a traced add or insertion named the frame */
#define FS_FREED	0x2u	/* and since then the life holding it ended */
#define DEF_MAX_RANGE	((uint64_t)1 << 18)
#define DEF_LINK_NS	1000000000ull

/* mm_lru_insertion flags */
#define LRU_F_MAPPED		0x01u
#define LRU_F_ANON		0x02u
#define LRU_F_SWAPBACKED	0x10u

/* page_fault_user error code (x86) */
#define PF_PROT			0x1u	/* the page was present: a protection fault */
#define PF_WRITE		0x2u	/* a write */
#define PF_INSTR		0x10u	/* an instruction fetch */

/*
 * Alignment costs (see the essay, "Anonymous memory"), in units of COST_UNIT;
 * below a unit, ties are broken by the pause before a candidate (in ns, at
 * most GAP_MAX each, and MAX_BURST of them stay below a unit), then by
 * position.
 */
#define COST_UNIT		((uint64_t)1 << 40)
#define GAP_MAX			((uint64_t)1 << 30)
#define C_DYING			2u	/* an unmapped anon folio of a process still alive */
#define C_GONE			3u	/* a mapped folio of a process whose memory is gone */
#define UNMAP_NS		2000000ull /* exit or exec this long ago has unmapped all */

/* struct qfault.gone: its process's memory at the burst */
enum { GONE_NO = 0, GONE_ENDING, GONE_UNMAPPED };
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

/* madvise behaviours (include/uapi/asm-generic/mman-common.h) */
#define LC_MADV_DONTNEED	4
#define LC_MADV_REMOVE		9
#define LC_MADV_COLD		20
#define LC_MADV_PAGEOUT		21
#define LC_MADV_DONTNEED_LOCKED	24

/* Life states (private). */
enum { L_ALIVE = 0, L_PENDING, L_DEAD };

/* kswapd state of a task. */
enum { KS_NO = 0, KS_ASLEEP, KS_AWAKE, KS_SEEDED };

/* The two events of one clone, as seen on the new task (struct task.born). */
#define BORN_FORK	0x1u	/* sched_process_fork */
#define BORN_NEWTASK	0x2u	/* task_newtask: tgid set from clone_flags */

/* clone_flags (include/uapi/linux/sched.h): the new task joins the creator's group */
#define LC_CLONE_THREAD	0x00010000u

/* A hash-table key: three words (see the entry types for their meaning). */
struct tkey {
	uint64_t	w0;		/* kind << 32 | dev or tgid; or the pid */
	uint64_t	w1;		/* inode, or 0 */
	uint64_t	w2;		/* page index or virtual page, or 0 */
};

/* Open addressing over an entry array whose entries start with a tkey. */
struct ktab {
	uint32_t	*slot;		/* entry id, or NONE for an empty slot */
	size_t		mask;		/* slots - 1 (a power of two minus one) */
	char		*ent;		/* entries of esz bytes, ids 0 .. n - 1 */
	size_t		esz;		/* entry size */
	uint32_t	n;		/* entries */
	uint32_t	cap;		/* entries allocated */
};

/* A page key (table keys). */
struct pkey {
	struct tkey	k;		/* w0 = kind << 32 | dev (file) or tgid (anon) */
	uint32_t	life;		/* the life covering it now or last, or NONE */
	bool		streamed;	/* the stream named it in an access */
};

/* An inode (table inodes). */
struct inode {
	struct tkey	k;		/* w0 = kind << 32 | dev, w1 = ino */
	uint64_t	max_index;	/* highest page index any life of it covered */
	bool		extent_known;	/* max_index is valid */
	uint32_t	gp_holders;	/* tasks holding a get_pages on it */
};

/* A task (table tasks), keyed by pid. */
struct task {
	struct tkey	k;		/* w0 = pid */
	int32_t		pid;		/* thread id */
	int32_t		tgid;		/* its process */
	uint32_t	known_epoch;	/* window state below is valid iff == lc->epoch */
	uint16_t	reclaim_depth;	/* open reclaim windows (direct, memcg, ...) */
	uint16_t	memcg_depth;	/* of them, memcg reclaim (its own cgroup's pages) */
	uint16_t	slab_depth;	/* open shrink_slab windows */
	uint8_t		kswapd;		/* KS_* */
	bool		scope;		/* streams with HS_LC_SCOPED */
	bool		seeded;		/* tgid came from hs_lifecycle_set_tgid() */
	uint8_t		born;		/* BORN_* creation events applied to this task since
					 * it last emitted an event of its own */
	bool		gp_valid;	/* a get_pages is held (gp_*) */
	bool		ra_valid;	/* a readahead window is open (ra_*) */
	uint32_t	pend_head;	/* pending deaths, oldest first, linked through
					 * lpriv.next_pending; NONE when empty */
	uint32_t	pend_tail;	/* the newest pending death */
	uint32_t	gp_inode;	/* held get_pages: inode id */
	uint64_t	gp_ts;		/* its time */
	uint64_t	gp_index;	/* its first index */
	uint64_t	gp_last;	/* its last index */
	uint32_t	ra_inode;	/* readahead window: inode id */
	uint64_t	ra_lo;		/* first index */
	uint64_t	ra_hi;		/* one past the last */
	uint32_t	anon_head;	/* as a tgid: its live anon lives, linked through
					 * lpriv.anon_next; NONE when empty */
	uint64_t	open_seq;	/* its unfinished queued fault (qfault.seq), 0: none */
	uint32_t	open_cpu;	/* the queue holding it */
	uint32_t	lost_head;	/* as a tgid: its lost lives (lpriv.lost), oldest first */
	uint32_t	lost_tail;	/* the newest */
	uint32_t	mm_gen;		/* as a tgid: address spaces ended (exit, exec) */
	bool		swapping;	/* as a tgid: a page of it was swapped out */
	uint64_t	mm_end_ts;	/* as a tgid: when the last one ended */
};

/* Per-life state the public struct does not show. */
struct lpriv {
	uint32_t	next_pending;	/* next in the task's pending list (L_PENDING only) */
	uint32_t	anon_prev;	/* tgid list of live anon lives (L_ALIVE anon only) */
	uint32_t	anon_next;	/* ditto */
	uint32_t	pend_task;	/* task id holding it (L_PENDING only) */
	uint32_t	born_epoch;	/* epoch of its birth (0 for an unseen birth) */
	uint32_t	died_epoch;	/* epoch of its death */
	uint64_t	died_clock;	/* eviction clock just after its death counted
					 * (reclaim and pageout deaths only) */
	uint8_t		state;		/* L_* */
	uint8_t		fallback;	/* cause if nothing decides it (L_PENDING only) */
	bool		in_map;		/* [pfn, pfn + pages) is in the pfn map */
	bool		lost;		/* anon, alive, no pfn: its insertion never came */
	bool		reused;		/* died because another folio took its frame */
	uint32_t	lost_prev;	/* its process's lost lives, oldest first */
	uint32_t	lost_next;	/* ditto */
};

/* A user fault waiting for its lru_insertion. */
struct qfault {
	int32_t		tid;		/* faulting thread */
	int32_t		tgid;		/* its process */
	uint64_t	page;		/* virtual page (address >> HS_LC_PAGE_SHIFT) */
	uint64_t	ts;		/* fault time */
	uint32_t	life;		/* inferred swap-in life waiting for a pfn, or NONE
					 * for a first touch */
	uint64_t	seq;		/* queue order (lc->qseq when queued or moved) */
	uint16_t	ec;		/* the fault's error code (PF_*) */
	bool		write;		/* write fault */
	bool		stream;		/* first touch: stream its PT access when linked */
	bool		done;		/* its task went on: its folio, if any, is added */
	bool		filew;		/* a write the task then served from a file */
	bool		known;		/* its page had a life before (a read is no zero page) */
	bool		maybe;		/* a read of a page taken as resident: a swap-in if an
					 * insertion is found for it */
	bool		held;		/* scratch: its task was reclaiming when the burst began */
	uint8_t		gone;		/* scratch: its process exited or exec'd before the burst
					 * (GONE_*) */
	uint32_t	mm_gen;		/* its process's task.mm_gen at the fault */
	uint64_t	idle;		/* how long its CPU was quiet before it (ns) */
};

struct cpuq {
	struct qfault	e[QLEN];	/* ring: oldest at head, ascending seq */
	uint32_t	head;		/* index of the oldest */
	uint32_t	n;		/* entries queued */
	struct hs_event	*burst;		/* the burst of insertions being collected */
	uint32_t	nburst;		/* insertions in it */
	uint32_t	capburst;	/* burst[] allocated */
	uint64_t	burst_seq;	/* lc->qseq when it began: older entries are its
					 * candidates */
	uint64_t	burst_ts;	/* its latest insertion's time */
	bool		cont;		/* part of the burst was applied early; it goes on */
	uint64_t	burst_idle;	/* how long the CPU was quiet before it (ns) */
	uint64_t	ev_ts;		/* the CPU's latest event */
};

/* How a death is decided: now (cause) or later (cause NONE, fallback). */
struct verdict {
	uint8_t		cause;		/* enum hs_death_cause, HS_DEATH_NONE: pending */
	uint8_t		fallback;	/* pending only */
};

struct hs_lifecycle {
	struct hs_lifecycle_opts opts;	/* with the defaults filled in */
	struct ktab	keys;		/* struct pkey */
	struct ktab	inodes;		/* struct inode */
	struct ktab	tasks;		/* struct task */
	struct hs_folio_life *life;	/* lives, ids 0 .. nr_lives - 1 */
	struct lpriv	*lp;		/* their private state */
	uint32_t	nr_lives;	/* lives */
	uint32_t	cap_lives;	/* entries allocated in life and lp */
	struct hs_pfnmap *pfns;		/* live lives with a pfn: range -> life id */
	struct cpuq	**cpuq;		/* per-CPU fault queues, NULL until used */
	uint32_t	nr_cpuq;	/* entries in cpuq */
	uint64_t	qseq;		/* next qfault.seq (from 1) */
	uint32_t	nr_bursts;	/* CPUs collecting a burst (nburst or cont) */
	uint64_t	idle;		/* the current event's CPU was quiet this long before it */
	uint8_t		**fstate;	/* frame states (FS_*), by chunk, NULL until used */
	size_t		nfstate;	/* chunks in fstate */
	uint64_t	*dp;		/* alignment scratch: costs */
	uint8_t		*dpb;		/* alignment scratch: moves */
	size_t		dpcap;		/* entries allocated in dp and dpb */
	uint32_t	epoch;		/* lost-event gaps so far */
	uint64_t	clock;		/* eviction clock: reclaim + pageout pages */
	uint64_t	last_ts;	/* latest timestamp seen */
	bool		finished;	/* hs_lifecycle_finish() ran */
	struct hs_lifecycle_checks ck;	/* checks and counters */
};

#define PKEY(lc, id)	((struct pkey *)((lc)->keys.ent + (size_t)(id) * sizeof(struct pkey)))
#define INODE(lc, id)	((struct inode *)((lc)->inodes.ent + (size_t)(id) * sizeof(struct inode)))
#define TASK(lc, id)	((struct task *)((lc)->tasks.ent + (size_t)(id) * sizeof(struct task)))

/* ---- hash tables ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static size_t khash(const struct tkey *k)
{
	return (size_t)mix(k->w0 ^ mix(k->w1 ^ mix(k->w2 + 0x9e3779b97f4a7c15ull)));
}

static bool keq(const struct tkey *a, const struct tkey *b)
{
	return a->w0 == b->w0 && a->w1 == b->w1 && a->w2 == b->w2;
}

static struct tkey *kent(const struct ktab *t, uint32_t id)
{
	return (struct tkey *)(t->ent + (size_t)id * t->esz);
}

static int ktab_init(struct ktab *t, size_t esz)
{
	memset(t, 0, sizeof(*t));
	t->esz = esz;
	t->slot = malloc(1024 * sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	memset(t->slot, 0xff, 1024 * sizeof(*t->slot));
	t->mask = 1023;
	return 0;
}

static void ktab_fini(struct ktab *t)
{
	free(t->slot);
	free(t->ent);
}

static uint32_t ktab_find(const struct ktab *t, const struct tkey *k)
{
	size_t i = khash(k) & t->mask;

	while (t->slot[i] != NONE) {
		if (keq(kent(t, t->slot[i]), k))
			return t->slot[i];
		i = (i + 1) & t->mask;
	}
	return NONE;
}

static int ktab_grow_slots(struct ktab *t)
{
	size_t nslots = (t->mask + 1) * 2;
	uint32_t *ns;
	uint32_t id;

	ns = malloc(nslots * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	memset(ns, 0xff, nslots * sizeof(*ns));
	for (id = 0; id < t->n; id++) {
		size_t i = khash(kent(t, id)) & (nslots - 1);

		while (ns[i] != NONE)
			i = (i + 1) & (nslots - 1);
		ns[i] = id;
	}
	free(t->slot);
	t->slot = ns;
	t->mask = nslots - 1;
	return 0;
}

/* The id of @k, adding a zeroed entry for it if new. Return: 0, 1 (added), -ENOMEM. */
static int ktab_add(struct ktab *t, const struct tkey *k, uint32_t *id)
{
	size_t i;
	int err;

	*id = ktab_find(t, k);
	if (*id != NONE)
		return 0;
	if (t->n >= NONE - 1)
		return -ENOMEM;
	if ((size_t)t->n + 1 > (t->mask + 1) / 4 * 3) {
		err = ktab_grow_slots(t);
		if (err)
			return err;
	}
	if (t->n == t->cap) {
		uint32_t ncap = t->cap ? (t->cap > NONE / 2 ? NONE - 1 : t->cap * 2) : 256;
		char *ne = realloc(t->ent, (size_t)ncap * t->esz);

		if (!ne)
			return -ENOMEM;
		memset(ne + (size_t)t->cap * t->esz, 0, (size_t)(ncap - t->cap) * t->esz);
		t->ent = ne;
		t->cap = ncap;
	}
	*kent(t, t->n) = *k;
	i = khash(k) & t->mask;
	while (t->slot[i] != NONE)
		i = (i + 1) & t->mask;
	t->slot[i] = t->n;
	*id = t->n++;
	return 1;
}

/* ---- keys, inodes, tasks ---- */

static uint8_t file_kind(const struct hs_lifecycle *lc, uint64_t dev)
{
	return dev == lc->opts.bdev_dev ? HS_LIFE_BDEV : HS_LIFE_FILE;
}

/* Table key of a page: @who is dev (file, bdev) or tgid (anon). */
static struct tkey page_tkey(uint8_t kind, uint64_t who, uint64_t ino, uint64_t index)
{
	return (struct tkey){ .w0 = (uint64_t)kind << 32 | (who & 0xffffffffu), .w1 = ino,
			      .w2 = index };
}

static int page_key(struct hs_lifecycle *lc, uint8_t kind, uint64_t who, uint64_t ino,
		    uint64_t index, uint32_t *kid)
{
	struct tkey k = page_tkey(kind, who, ino, index);
	int ret = ktab_add(&lc->keys, &k, kid);

	if (ret > 0)
		PKEY(lc, *kid)->life = NONE;
	return ret < 0 ? ret : 0;
}

static uint32_t page_key_find(const struct hs_lifecycle *lc, uint8_t kind, uint64_t who,
			      uint64_t ino, uint64_t index)
{
	struct tkey k = page_tkey(kind, who, ino, index);

	return ktab_find(&lc->keys, &k);
}

static int inode_get(struct hs_lifecycle *lc, uint8_t kind, uint64_t dev, uint64_t ino,
		     uint32_t *iid)
{
	struct tkey k = { .w0 = (uint64_t)kind << 32 | dev, .w1 = ino, .w2 = 0 };
	int ret = ktab_add(&lc->inodes, &k, iid);

	return ret < 0 ? ret : 0;
}

static void inode_extend(struct hs_lifecycle *lc, uint32_t iid, uint64_t last)
{
	struct inode *in = INODE(lc, iid);

	if (!in->extent_known || last > in->max_index)
		in->max_index = last;
	in->extent_known = true;
}

static uint32_t task_find(const struct hs_lifecycle *lc, int32_t pid)
{
	struct tkey k = { .w0 = (uint32_t)pid, .w1 = 0, .w2 = 0 };

	return ktab_find(&lc->tasks, &k);
}

static int task_get(struct hs_lifecycle *lc, int32_t pid, uint32_t *tid)
{
	struct tkey k = { .w0 = (uint32_t)pid, .w1 = 0, .w2 = 0 };
	struct task *t;
	int ret;

	ret = ktab_add(&lc->tasks, &k, tid);
	if (ret <= 0)
		return ret;
	t = TASK(lc, *tid);
	t->pid = pid;
	t->tgid = pid;
	/* Before any gap a new task is outside every window; after one, unknown. */
	t->known_epoch = lc->epoch == 0 ? 0 : NONE;
	t->pend_head = NONE;
	t->pend_tail = NONE;
	t->anon_head = NONE;
	t->lost_head = NONE;
	t->lost_tail = NONE;
	return 0;
}

static bool task_known(const struct hs_lifecycle *lc, const struct task *t)
{
	return t->known_epoch == lc->epoch;
}

/* Is @t in the workload's scope (its own mark, or its process's)? */
static bool task_scoped(const struct hs_lifecycle *lc, const struct task *t)
{
	uint32_t g;

	if (t->scope)
		return true;
	if (t->tgid == t->pid)
		return false;
	g = task_find(lc, t->tgid);
	return g != NONE && TASK(lc, g)->scope;
}

/* Does @t stream (everyone does without HS_LC_SCOPED)? */
static bool task_in_scope(const struct hs_lifecycle *lc, const struct task *t)
{
	return !(lc->opts.flags & HS_LC_SCOPED) || task_scoped(lc, t);
}

/* Kernel events stream from this task? */
static bool kstream(const struct hs_lifecycle *lc, const struct task *t)
{
	return !(lc->opts.flags & HS_LC_TOUCH_ONLY) && task_in_scope(lc, t);
}

/* ---- the stream ---- */

static int emit(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch, bool write)
{
	struct pkey *k = PKEY(lc, kid);
	uint8_t kind = (uint8_t)(k->k.w0 >> 32);

	if (kind == HS_LIFE_BDEV && (lc->opts.flags & HS_LC_NO_BDEV))
		return 0;
	if (hs_channel_is_access(ch)) {
		k->streamed = true;
		lc->ck.accesses++;
	} else if (ch == HS_CH_DROP) {
		lc->ck.drops++;
	} else {
		lc->ck.hints++;
	}
	if (!lc->opts.emit)
		return 0;
	return lc->opts.emit(lc->opts.emit_arg, kid,
			     hs_meta_make(ch, kind == HS_LIFE_ANON ? HS_TYPE_ANON : HS_TYPE_FILE,
					  write));
}

/* An access to page @kid: counted on its live life, streamed if @stream. */
static int access_page(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch, bool write,
		       bool stream)
{
	uint32_t l = PKEY(lc, kid)->life;

	if (l != NONE && lc->lp[l].state == L_ALIVE)
		lc->life[l].accesses++;
	return stream ? emit(lc, kid, ch, write) : 0;
}

/* ---- frame states: was the folio now in a frame named by a traced event? ---- */

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
static int fstate_set(struct hs_lifecycle *lc, uint64_t pfn, uint64_t pages, unsigned int st)
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

/* ---- lives ---- */

static int life_new(struct hs_lifecycle *lc, uint32_t *id)
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
				      .lost_prev = NONE, .lost_next = NONE };
	return 0;
}

/* The page key of page @i of life @id (created if new). */
static int life_page_key(struct hs_lifecycle *lc, uint32_t id, uint64_t i, uint32_t *kid)
{
	const struct hs_folio_life *l = &lc->life[id];

	if (l->kind == HS_LIFE_ANON)
		return page_key(lc, HS_LIFE_ANON, (uint32_t)l->tgid, 0, l->first_page + i, kid);
	return page_key(lc, l->kind, l->dev, l->ino, l->first_page + i, kid);
}

/* Point every page key of life @id at it. */
static int life_attach(struct hs_lifecycle *lc, uint32_t id)
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
static void map_clear(struct hs_lifecycle *lc, uint64_t pfn, uint64_t pages)
{
	struct hs_pfnmap_ent e;

	while (hs_pfnmap_overlap(lc->pfns, pfn, pages, &e)) {
		hs_pfnmap_remove(lc->pfns, e.head);
		lc->lp[e.val].in_map = false;
		lc->ck.pfn_stale++;
	}
}

/* Life @id leaves its process's list of lost lives (if on it). */
static void lost_del(struct hs_lifecycle *lc, uint32_t id)
{
	struct lpriv *p = &lc->lp[id];
	uint32_t g;

	if (!p->lost)
		return;
	p->lost = false;
	g = task_find(lc, lc->life[id].tgid);
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
	err = task_get(lc, lc->life[id].tgid, &g);
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

/* Put life @id's frames in the map (if its pfn is known). */
static int map_link(struct hs_lifecycle *lc, uint32_t id)
{
	const struct hs_folio_life *l = &lc->life[id];
	int err;

	if (!l->pfn || lc->lp[id].in_map || l->pages - 1 > UINT64_MAX - l->pfn)
		return 0;
	map_clear(lc, l->pfn, l->pages);
	err = hs_pfnmap_insert(lc->pfns, l->pfn, l->pages, id);
	if (err)
		return err;
	lc->lp[id].in_map = true;
	lost_del(lc, id);
	return 0;
}

static int anon_link(struct hs_lifecycle *lc, uint32_t id)
{
	uint32_t g;
	int err;

	err = task_get(lc, lc->life[id].tgid, &g);
	if (err)
		return err;
	lc->lp[id].anon_prev = NONE;
	lc->lp[id].anon_next = TASK(lc, g)->anon_head;
	if (TASK(lc, g)->anon_head != NONE)
		lc->lp[TASK(lc, g)->anon_head].anon_prev = id;
	TASK(lc, g)->anon_head = id;
	return 0;
}

static void anon_unlink(struct hs_lifecycle *lc, uint32_t id)
{
	struct lpriv *p = &lc->lp[id];
	uint32_t g;

	if (p->anon_prev != NONE) {
		lc->lp[p->anon_prev].anon_next = p->anon_next;
	} else {
		g = task_find(lc, lc->life[id].tgid);
		if (g != NONE && TASK(lc, g)->anon_head == id)
			TASK(lc, g)->anon_head = p->anon_next;
	}
	if (p->anon_next != NONE)
		lc->lp[p->anon_next].anon_prev = p->anon_prev;
	p->anon_prev = NONE;
	p->anon_next = NONE;
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
			err = emit(lc, kid, HS_CH_DROP, false);
	}
	return err;
}

/* Decide every pending death of task @tid: as @cause, or each by its fallback (NONE). */
static int task_resolve(struct hs_lifecycle *lc, uint32_t tid, uint8_t cause)
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
static struct verdict classify(const struct hs_lifecycle *lc, uint32_t tid, bool swapout)
{
	const struct task *t = TASK(lc, tid);
	bool known = task_known(lc, t);

	if (!swapout && t->slab_depth)
		return (struct verdict){ .cause = HS_DEATH_TRUNCATE };
	if (t->reclaim_depth || t->kswapd == KS_AWAKE || (t->kswapd == KS_SEEDED && known))
		return (struct verdict){ .cause = HS_DEATH_RECLAIM };
	return (struct verdict){ .cause = HS_DEATH_NONE,
				 .fallback = (!known || swapout) ? HS_DEATH_UNKNOWN :
								   HS_DEATH_TRUNCATE };
}

/* Life @id ends at @ts, caused by task @tid; decided now or pending per @v. */
static int life_kill(struct hs_lifecycle *lc, uint32_t id, uint64_t ts, uint32_t tid,
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
		int err = fstate_set(lc, lc->life[id].pfn, lc->life[id].pages,
				     FS_SEEN | FS_FREED);

		if (err)
			return err;
	}
	map_unlink(lc, id);
	lost_del(lc, id);
	if (lc->life[id].kind == HS_LIFE_ANON)
		anon_unlink(lc, id);
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
static int life_carve(struct hs_lifecycle *lc, uint32_t id, uint64_t lo, uint64_t hi,
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
			err = life_new(lc, &nid);
			if (err)
				return err;
			lc->life[nid] = lc->life[id];
			lc->life[nid].accesses = 0;
			lc->life[nid].activations = 0;
			lc->lp[nid].born_epoch = lc->lp[id].born_epoch;
			if (lc->life[nid].kind == HS_LIFE_ANON) {
				err = anon_link(lc, nid);
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
			err = life_attach(lc, nid);
			if (err)
				return err;
		}
		if (mapped) {
			err = map_link(lc, nid);
			if (err)
				return err;
		}
		if (a == lo)
			*piece = nid;
	}
	return 0;
}

/* Facts about the previous lives of the pages of a life about to be born. */
struct birth {
	uint32_t	prev;		/* the most recent reclaim/pageout death, or NONE */
	bool		gap;		/* a previous death lies before a gap */
	bool		distrusted;	/* and it would have been a refault */
};

/*
 * Look at the pages [first, first + pages) of a coming life: pending deaths
 * are forced, pages still held by a live life end it at @ts (unknown: an add
 * of a present page means events were missed), and the refault is found.
 */
static int birth_scan(struct hs_lifecycle *lc, uint8_t kind, uint64_t who, uint64_t ino,
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

		err = page_key(lc, kind, who, ino, first + i, &kid);
		if (err)
			return err;
		l = PKEY(lc, kid)->life;
		if (l == NONE)
			continue;
		if (lc->lp[l].state == L_PENDING) {
			err = task_resolve(lc, lc->lp[l].pend_task, HS_DEATH_NONE);
			if (err)
				return err;
		}
		if (lc->lp[l].state == L_ALIVE) {
			uint64_t lend = lc->life[l].first_page + lc->life[l].pages;
			uint32_t piece;

			lc->ck.anomalies++;
			err = life_carve(lc, l, first + i,
					 lend < first + pages ? lend : first + pages, &piece);
			if (!err)
				err = life_kill(lc, piece, ts, tid, &unknown);
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
static void birth_apply(struct hs_lifecycle *lc, uint32_t id, const struct birth *b)
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

/* ---- per-CPU fault queues ---- */

static struct cpuq *cpuq_get(struct hs_lifecycle *lc, uint32_t cpu, bool create, int *err)
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

static struct qfault *cpuq_at(struct cpuq *q, uint32_t i)
{
	return &q->e[(q->head + i) % QLEN];
}

static void cpuq_remove(struct cpuq *q, uint32_t i)
{
	for (; i + 1 < q->n; i++)
		*cpuq_at(q, i) = *cpuq_at(q, i + 1);
	q->n--;
}

/* Queued fault @f leaves unlinked (a "maybe" was a resident fault, counted so). */
static void unresolved(struct hs_lifecycle *lc, const struct qfault *f)
{
	if (!f->maybe)
		lc->ck.faults_unresolved++;
}

/* The position of the entry numbered @seq in CPU @cpu's queue, or -1. */
static int cpuq_find(struct hs_lifecycle *lc, uint32_t cpu, uint64_t seq)
{
	struct cpuq *q;
	uint32_t i;
	int err;

	q = cpuq_get(lc, cpu, false, &err);
	for (i = 0; q && seq && i < q->n; i++) {
		if (cpuq_at(q, i)->seq == seq)
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
	q = cpuq_get(lc, cpu, true, &err);
	if (!q) {
		if (!err)
			lc->ck.faults_unresolved++;
		return err;
	}
	for (i = 0; i < q->n; i++) {
		const struct qfault *o = cpuq_at(q, i);

		if (o->tgid != f->tgid || o->page != f->page)
			continue;
		if (o->life != NONE || !((!o->write && f->write) || !(f->ec & PF_PROT)))
			return 0;
		unresolved(lc, o);
		cpuq_remove(q, i);
		break;
	}
	if (q->n == QLEN) {
		unresolved(lc, cpuq_at(q, 0));
		q->head = (q->head + 1) % QLEN;
		q->n--;
	}
	f->seq = lc->qseq++;
	*cpuq_at(q, q->n) = *f;
	q->n++;
	*queued = true;
	return 0;
}

/* Task @t has finished its fault: whatever it allocated is in a batch now. */
static void fault_done(struct hs_lifecycle *lc, struct task *t)
{
	int i = cpuq_find(lc, t->open_cpu, t->open_seq);

	if (i >= 0)
		cpuq_at(lc->cpuq[t->open_cpu], (uint32_t)i)->done = true;
	t->open_seq = 0;
}

/*
 * Task @tid shows up on @cpu while its fault is unfinished: the folio, if
 * any, is added there, after what that CPU's batch holds now.
 */
static int fault_move(struct hs_lifecycle *lc, uint32_t tid, uint32_t cpu)
{
	struct task *t = TASK(lc, tid);
	int i = cpuq_find(lc, t->open_cpu, t->open_seq);
	struct qfault f;
	bool queued;
	int err;

	if (i < 0) {
		t->open_seq = 0;
		return 0;
	}
	f = *cpuq_at(lc->cpuq[t->open_cpu], (uint32_t)i);
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
static int fault_progress(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
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
		fault_done(lc, TASK(lc, tid));
	return err;
}

/*
 * Thread @tid's fault was served from a file (mm_filemap_fault or
 * mm_filemap_map_pages): a read allocated nothing and leaves the queue; a
 * write may have copied the page (a private mapping) and stays, marked.
 */
static void fault_file(struct hs_lifecycle *lc, uint32_t tid)
{
	struct task *t = TASK(lc, tid);
	int i = cpuq_find(lc, t->open_cpu, t->open_seq);
	struct cpuq *q;

	if (i < 0)
		return;
	q = lc->cpuq[t->open_cpu];
	if (cpuq_at(q, (uint32_t)i)->write) {
		cpuq_at(q, (uint32_t)i)->filew = true;
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

	err = task_get(lc, f->tgid, &g);
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

static void cpuq_clear_all(struct hs_lifecycle *lc)
{
	uint32_t c;

	for (c = 0; c < lc->nr_cpuq; c++) {
		uint32_t i;

		if (!lc->cpuq[c])
			continue;
		for (i = 0; i < lc->cpuq[c]->n; i++)
			unresolved(lc, cpuq_at(lc->cpuq[c], i));
		lc->cpuq[c]->n = 0;
	}
	for (c = 0; c < lc->tasks.n; c++)
		TASK(lc, c)->open_seq = 0;
}

/* ---- the access stream: ranges ---- */

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
	uint8_t kind = (uint8_t)(INODE(lc, iid)->k.w0 >> 32);
	uint64_t dev = INODE(lc, iid)->k.w0 & 0xffffffffu;
	uint64_t ino = INODE(lc, iid)->k.w1;
	uint64_t p;
	int err;

	if (last - lo >= lc->opts.max_range_pages) {
		last = lo + (lc->opts.max_range_pages - 1);
		lc->ck.ranges_cut++;
	}
	for (p = lo;; p++) {
		uint32_t kid = page_key_find(lc, kind, dev, ino, p);

		if (!resident || page_resident(lc, iid, kid, p, at)) {
			if (kid == NONE) {
				err = page_key(lc, kind, dev, ino, p, &kid);
				if (err)
					return err;
			}
			err = access_page(lc, kid, ch, false, stream);
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
static int gp_flush(struct hs_lifecycle *lc, uint32_t tid)
{
	struct task *t = TASK(lc, tid);

	if (!t->gp_valid)
		return 0;
	gp_release(lc, t);
	return range_access(lc, t->gp_inode, t->gp_index, t->gp_last, HS_CH_FD, true, t->gp_ts,
			    kstream(lc, t));
}

/* Flush every task holding a get_pages on inode @iid (its pages are going away). */
static int gp_flush_inode(struct hs_lifecycle *lc, uint32_t iid)
{
	uint32_t i;
	int err;

	for (i = 0; i < lc->tasks.n && INODE(lc, iid)->gp_holders; i++) {
		if (!TASK(lc, i)->gp_valid || TASK(lc, i)->gp_inode != iid)
			continue;
		err = gp_flush(lc, i);
		if (err)
			return err;
	}
	return 0;
}

/* ---- event handlers ---- */

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
	uint8_t kind = file_kind(lc, ev->dev);
	struct birth b;
	struct task *t;
	uint32_t iid, id;
	uint8_t flags = 0;
	int err;

	if (!pages) {
		lc->ck.bad_events++;
		return 0;
	}
	err = inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	inode_extend(lc, iid, ev->index + (pages - 1));
	t = TASK(lc, tid);
	if (t->ra_valid && t->ra_inode == iid && ev->index >= t->ra_lo && ev->index < t->ra_hi)
		flags |= HS_LIFE_F_READAHEAD;
	err = birth_scan(lc, kind, ev->dev, ev->ino, ev->index, pages, ev->ts_ns, tid, &b);
	if (err)
		return err;
	err = life_new(lc, &id);
	if (err)
		return err;
	lc->life[id].kind = kind;
	lc->life[id].flags = flags;
	lc->life[id].dev = ev->dev;
	lc->life[id].ino = ev->ino;
	lc->life[id].first_page = ev->index;
	lc->life[id].pages = pages;
	lc->life[id].pfn = ev->pfn;
	lc->life[id].born_ns = ev->ts_ns;
	birth_apply(lc, id, &b);
	lc->ck.lives[kind]++;
	err = life_attach(lc, id);
	if (!err && ev->pfn)
		err = fstate_set(lc, ev->pfn, pages, FS_SEEN);
	if (err)
		return err;
	return map_link(lc, id);
}

static int on_delete(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint64_t pages = ev_pages(ev);
	uint8_t kind = file_kind(lc, ev->dev);
	uint64_t p, end;
	struct verdict v;
	uint32_t iid;
	int err;

	if (!pages) {
		lc->ck.bad_events++;
		return 0;
	}
	err = inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	end = ev->index + pages;
	inode_extend(lc, iid, end - 1);
	v = classify(lc, tid, false);
	if (v.cause != HS_DEATH_RECLAIM) {
		/*
		 * Not inside a read(): the task's own held read, and any held
		 * read of this inode, came before this and go first (a drop
		 * must follow the accesses it undoes).
		 */
		err = gp_flush(lc, tid);
		if (!err)
			err = gp_flush_inode(lc, iid);
		if (err)
			return err;
	}
	for (p = ev->index; p < end;) {
		uint32_t kid, l, id;
		uint64_t q;

		err = page_key(lc, kind, ev->dev, ev->ino, p, &kid);
		if (err)
			return err;
		l = PKEY(lc, kid)->life;
		if (l != NONE && lc->lp[l].state == L_ALIVE) {
			uint64_t lend = lc->life[l].first_page + lc->life[l].pages;
			uint64_t hi = lend < end ? lend : end;

			err = life_carve(lc, l, p, hi, &id);
			if (!err)
				err = life_kill(lc, id, ev->ts_ns, tid, &v);
			if (err)
				return err;
			p = hi;
			continue;
		}
		/* A run of pages with no live life: resident before the trace or a gap. */
		for (q = p; q < end; q++) {
			err = page_key(lc, kind, ev->dev, ev->ino, q, &kid);
			if (err)
				return err;
			l = PKEY(lc, kid)->life;
			if (l != NONE && lc->lp[l].state == L_ALIVE)
				break;
			if (l != NONE && lc->lp[l].died_epoch == lc->epoch)
				lc->ck.anomalies++;
		}
		err = life_new(lc, &id);
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
		err = life_attach(lc, id);
		if (!err)
			err = life_kill(lc, id, ev->ts_ns, tid, &v);
		if (err)
			return err;
		p = q;
	}
	/* The folio's frames are free now: nothing may join through them. */
	if (ev->pfn)
		map_clear(lc, ev->pfn, pages);
	return 0;
}

/* A pfn event: the life whose range holds @pfn, or NONE; counts the join. */
static uint32_t pfn_join(struct hs_lifecycle *lc, uint64_t pfn, struct hs_pfnmap_ent *e)
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
	g = task_find(lc, tgid);
	return g != NONE && TASK(lc, g)->swapping;
}

/* An inferred swap-in of page @page of @tgid at @ts: a new life, *@id, without a pfn yet. */
static int swapin_life(struct hs_lifecycle *lc, uint32_t tid, int32_t tgid, uint64_t page,
		       uint64_t ts, uint32_t *id)
{
	struct birth b;
	int err;

	err = birth_scan(lc, HS_LIFE_ANON, (uint32_t)tgid, 0, page, 1, ts, tid, &b);
	if (!err)
		err = life_new(lc, id);
	if (err)
		return err;
	lc->life[*id].kind = HS_LIFE_ANON;
	lc->life[*id].flags = HS_LIFE_F_SWAPIN;
	lc->life[*id].tgid = tgid;
	lc->life[*id].address = page << HS_LC_PAGE_SHIFT;
	lc->life[*id].first_page = page;
	lc->life[*id].pages = 1;
	lc->life[*id].born_ns = ts;
	birth_apply(lc, *id, &b);
	lc->ck.lives[HS_LIFE_ANON]++;
	lc->ck.swap_ins++;
	err = life_attach(lc, *id);
	return err ? err : anon_link(lc, *id);
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
		return map_link(lc, f->life);
	}
	err = page_key(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page, &kid);
	if (err)
		return err;
	l = PKEY(lc, kid)->life;
	if (f->maybe && ev->pfn) {
		/* The read of a page taken as present allocated: it was swapped in. */
		static const struct verdict unknown = { .cause = HS_DEATH_UNKNOWN };

		if (l != NONE && lc->lp[l].state == L_ALIVE) {
			lc->lp[l].reused = true;
			err = life_kill(lc, l, f->ts, tid, &unknown);
		}
		if (!err)
			err = swapin_life(lc, tid, f->tgid, f->page, f->ts, &id);
		if (err)
			return err;
		lc->life[id].pfn = ev->pfn;
		return map_link(lc, id);
	}
	if (f->maybe)
		return 0;
	if (l != NONE && lc->lp[l].state == L_ALIVE) {
		if (!lc->lp[l].in_map) {
			lc->life[l].pfn = ev->pfn;
			err = map_link(lc, l);
		}
		return err;
	}
	/* Pages still held die now, at the insertion, though the life is born at the fault. */
	err = birth_scan(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, first, pages, ev->ts_ns, tid,
			 &b);
	if (err)
		return err;
	err = life_new(lc, &id);
	if (err)
		return err;
	lc->life[id].kind = HS_LIFE_ANON;
	lc->life[id].tgid = f->tgid;
	lc->life[id].address = first << HS_LC_PAGE_SHIFT;
	lc->life[id].first_page = first;
	lc->life[id].pages = pages;
	lc->life[id].pfn = ev->pfn;
	lc->life[id].born_ns = f->ts;
	birth_apply(lc, id, &b);
	lc->ck.lives[HS_LIFE_ANON]++;
	err = life_attach(lc, id);
	if (!err)
		err = anon_link(lc, id);
	if (!err)
		err = map_link(lc, id);
	if (!err)
		err = access_page(lc, kid, HS_CH_PT, f->write, f->stream);
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
	kid = page_key_find(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page);
	l = kid != NONE ? PKEY(lc, kid)->life : NONE;
	return l == NONE || lc->lp[l].state != L_ALIVE || !lc->lp[l].in_map;
}

/* ---- insertion bursts: aligning new anonymous folios with their faults ---- */

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

	if (pfn_join(lc, ev->pfn, &e) == NONE)
		lc->ck.pfn_unjoined++;
	if (!ev->pfn || ev->order > HS_LC_MAX_ORDER)
		return 0;
	return fstate_set(lc, ev->pfn, (uint64_t)1 << ev->order, FS_SEEN);
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
			pfn_join(lc, ev->pfn, &e);
			return 0;
		}
		lc->ck.pfn_events++;
		lc->ck.pfn_unjoined++;
		lc->ck.anon_unlinked++;
		map_clear(lc, ev->pfn, (uint64_t)1 << ev->order);
		return 0;
	}
	/* A new folio: the life that held the frame lost its folio unseen. */
	if (old != NONE && lc->life[old].kind == HS_LIFE_ANON) {
		lc->lp[old].reused = true;
		err = life_kill(lc, old, ev->ts_ns, tid, &unknown);
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
		map_clear(lc, ev->pfn, (uint64_t)1 << ev->order);
		if (f->life != NONE) {
			static const struct verdict gone = { .cause = HS_DEATH_TRUNCATE };

			return lc->lp[f->life].state == L_ALIVE ?
			       life_kill(lc, f->life, ev->ts_ns, tid, &gone) : 0;
		}
		if (!f->stream)
			return 0;
		err = page_key(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page, &kid);
		return err ? err : emit(lc, kid, HS_CH_PT, f->write);
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
	err = task_get(lc, f->tid, &tid);
	if (!err)
		err = fault_link(lc, f, &ev, tid);
	if (err)
		return err;
	kid = page_key_find(lc, HS_LIFE_ANON, (uint32_t)f->tgid, 0, f->page);
	return kid != NONE && PKEY(lc, kid)->life != NONE ? lost_add(lc, PKEY(lc, kid)->life) : 0;
}

/* Apply anon insertion @ev (see ins_anon_link()); its frame was seen then. */
static int ins_anon_apply(struct hs_lifecycle *lc, const struct hs_event *ev,
			  const struct qfault *f, uint32_t tid)
{
	int err = ins_anon_link(lc, ev, f, tid);

	return err ? err : fstate_set(lc, ev->pfn, (uint64_t)1 << ev->order, FS_SEEN);
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

	if (!partial)
		lc->nr_bursts--;
	q->cont = partial;
	/* Candidates: faults queued before the burst, minus expired and settled ones. */
	for (i = 0; i < q->n && cpuq_at(q, i)->seq < q->burst_seq;) {
		const struct qfault *f = cpuq_at(q, i);

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
		gap[j] = j < m ? cpuq_at(q, j)->idle : q->burst_idle;
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
		t = task_find(lc, q->burst[k].pid);
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
			if (i < n && j < m && !cpuq_at(q, j)->held) {
				const struct qfault *f = cpuq_at(q, j);
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
				const struct qfault *f = cpuq_at(q, j);
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
	for (i = n, j = m; i || j;) {
		uint8_t mv = lc->dpb[i * w + j];

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
	for (i = 0; i < n; i++) {
		if (match[i] != NONE)
			mq[i] = *cpuq_at(q, match[i]);
	}
	/* Matched and finished unmatched candidates leave; the others wait on. */
	for (j = 0, k = 0; j < m; j++) {
		const struct qfault *f = cpuq_at(q, j);

		if (out[j] == MV_PASS && !f->held && f->done && !(partial && tail[j]))
			skipped[k++] = *f;
	}
	for (j = m; j-- > 0;) {
		const struct qfault *f = cpuq_at(q, j);

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

		err = task_get(lc, ev->pid, &tid);
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
static int burst_add(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	struct cpuq *q;
	uint32_t i;
	int err;

	q = cpuq_get(lc, ev->cpu, true, &err);
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
			struct qfault *f = cpuq_at(q, i);
			uint32_t t = task_find(lc, f->tid);

			f->held = t != NONE && TASK(lc, t)->reclaim_depth > 0 &&
				  TASK(lc, t)->open_seq == f->seq;
			t = task_find(lc, f->tgid);
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
static int bursts_check(struct hs_lifecycle *lc, const struct hs_event *ev)
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
	g = task_find(lc, TASK(lc, tid)->tgid);
	if (g == NONE || TASK(lc, g)->lost_head == NONE)
		return 0;
	*id = TASK(lc, g)->lost_head;
	lc->life[*id].pfn = pfn;
	err = map_link(lc, *id);
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

	if (!(lc->opts.flags & HS_LC_SCOPED) || !t->memcg_depth || !task_scoped(lc, t))
		return false;
	g = task_find(lc, lc->life[id].tgid);
	return g == NONE || !task_scoped(lc, TASK(lc, g));
}

static int on_write_folio(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct hs_pfnmap_ent e;
	struct verdict v;
	uint32_t id, piece, g;
	uint64_t off, n, first;
	int err;

	id = pfn_join(lc, ev->pfn, &e);
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
		err = life_kill(lc, id, ev->ts_ns, tid, &unknown);
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
		err = life_carve(lc, id, first + off, first + off + n, &piece);
		if (err)
			return err;
	}
	v = classify(lc, tid, true);
	lc->life[piece].flags |= HS_LIFE_F_SWAPOUT;
	lc->ck.swap_outs++;
	g = task_find(lc, lc->life[piece].tgid);
	if (g != NONE)
		TASK(lc, g)->swapping = true;
	return life_kill(lc, piece, ev->ts_ns, tid, &v);
}

static int on_page_fault(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t = TASK(lc, tid);
	uint64_t page = ev->addr >> HS_LC_PAGE_SHIFT;
	bool write = ev->a & PF_WRITE;
	bool stream = kstream(lc, t);
	int32_t tgid = t->tgid;
	struct qfault f = { .tid = t->pid, .tgid = tgid, .page = page, .ts = ev->ts_ns,
			    .life = NONE, .ec = (uint16_t)ev->a, .write = write,
			    .stream = stream };
	uint32_t kid, l, id, g;
	int err;

	/* The thread's previous fault is over: it is running again. */
	fault_done(lc, t);
	err = gp_flush(lc, tid);
	if (err)
		return err;
	kid = page_key_find(lc, HS_LIFE_ANON, (uint32_t)tgid, 0, page);
	l = kid != NONE ? PKEY(lc, kid)->life : NONE;
	f.known = l != NONE;
	if (l != NONE && lc->lp[l].state == L_PENDING) {
		err = task_resolve(lc, lc->lp[l].pend_task, HS_DEATH_NONE);
		if (err)
			return err;
	}
	if (l != NONE && lc->lp[l].state == L_ALIVE) {
		lc->ck.resident_faults++;
		err = access_page(lc, kid, HS_CH_PT, write, stream);
		g = task_find(lc, tgid);
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
		err = access_page(lc, kid, HS_CH_PT, write, stream);
	if (err)
		return err;
	f.life = id;
	f.stream = false;
	return fault_queue(lc, tid, ev->cpu, &f);
}

static int on_file_fault(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint8_t kind = file_kind(lc, ev->dev);
	struct task *t = TASK(lc, tid);
	uint32_t iid, kid;
	int err;

	fault_file(lc, tid);
	t->ra_valid = false;
	if (ev->dev >> 32) {
		lc->ck.bad_events++;
		return 0;
	}
	if (ev->type == HS_EV_FILEMAP_FAULT) {
		err = page_key(lc, kind, ev->dev, ev->ino, ev->index, &kid);
		if (err)
			return err;
		return access_page(lc, kid, HS_CH_PT, false, kstream(lc, TASK(lc, tid)));
	}
	if (ev->last < ev->index) {
		lc->ck.bad_events++;
		return 0;
	}
	err = inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	return range_access(lc, iid, ev->index, ev->last, HS_CH_PT, true, ev->ts_ns,
			    kstream(lc, TASK(lc, tid)));
}

static int on_get_pages(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint8_t kind = file_kind(lc, ev->dev);
	struct task *t;
	uint32_t iid;
	int err;

	if ((ev->dev >> 32) || ev->last < ev->index) {
		lc->ck.bad_events++;
		return 0;
	}
	err = inode_get(lc, kind, ev->dev, ev->ino, &iid);
	if (err)
		return err;
	t = TASK(lc, tid);
	t->ra_valid = false;
	if (t->gp_valid && t->gp_inode == iid && t->gp_last == ev->last &&
	    ev->index > t->gp_index && ev->index <= t->gp_last) {
		/* The same read goes on: the held batch was [gp_index, index - 1]. */
		gp_release(lc, t);
		err = range_access(lc, iid, t->gp_index, ev->index - 1, HS_CH_FD, false, 0,
				   kstream(lc, t));
	} else {
		err = gp_flush(lc, tid);
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

static int on_readahead(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t;
	uint32_t iid;
	int err;

	if (ev->dev >> 32) {
		lc->ck.bad_events++;
		return 0;
	}
	err = inode_get(lc, file_kind(lc, ev->dev), ev->dev, ev->ino, &iid);
	if (err)
		return err;
	t = TASK(lc, tid);
	t->ra_valid = ev->a > 0;
	t->ra_inode = iid;
	t->ra_lo = ev->index;
	t->ra_hi = ev->a > UINT64_MAX - ev->index ? UINT64_MAX : ev->index + ev->a;
	return 0;
}

/* madvise on [addr, addr + len) of the task's process. */
static int on_madvise(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	static const struct verdict truncate = { .cause = HS_DEATH_TRUNCATE };
	struct task *t = TASK(lc, tid);
	int32_t tgid = t->tgid;
	bool stream = task_in_scope(lc, t);
	enum hs_channel ch;
	uint64_t lo, hi, p;
	int err;

	err = gp_flush(lc, tid);
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
		uint32_t kid = page_key_find(lc, HS_LIFE_ANON, (uint32_t)tgid, 0, p);
		uint32_t l = kid != NONE ? PKEY(lc, kid)->life : NONE;
		uint32_t piece;
		uint64_t lend;

		if (l == NONE || lc->lp[l].state != L_ALIVE) {
			p++;
			continue;
		}
		if (ch != HS_CH_DROP) {
			if (stream && PKEY(lc, kid)->streamed) {
				err = emit(lc, kid, ch, false);
				if (err)
					return err;
			}
			p++;
			continue;
		}
		/* MADV_DONTNEED: the pages are unmapped and freed. */
		lend = lc->life[l].first_page + lc->life[l].pages;
		err = life_carve(lc, l, p, lend < hi ? lend : hi, &piece);
		if (!err)
			err = life_kill(lc, piece, ev->ts_ns, tid, &truncate);
		if (err)
			return err;
		p = lend < hi ? lend : hi;
	}
	return 0;
}

/* Process @tgid's address space went away (exit of its leader, exec). */
static int anon_exit(struct hs_lifecycle *lc, uint32_t tid, int32_t tgid, uint64_t ts)
{
	static const struct verdict truncate = { .cause = HS_DEATH_TRUNCATE };
	uint32_t g = task_find(lc, tgid);
	int err;

	if (g != NONE) {
		TASK(lc, g)->mm_gen++;
		TASK(lc, g)->mm_end_ts = ts;
	}
	while (g != NONE && TASK(lc, g)->anon_head != NONE) {
		err = life_kill(lc, TASK(lc, g)->anon_head, ts, tid, &truncate);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A clone: sched_process_fork (pid = creator, a = child) or task_newtask (the
 * same, b = clone_flags).  One clone emits both, task_newtask first; either
 * order gives the same task, and so does either event alone (see the essay,
 * "Threads").
 */
static int on_clone(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	uint8_t bit = ev->type == HS_EV_TASK_NEW ? BORN_NEWTASK : BORN_FORK;
	int32_t ctgid = TASK(lc, tid)->tgid;
	struct task *c;
	uint32_t cid;
	bool scope;
	int err;

	if (ev->a > INT32_MAX || ev->a == (uint64_t)ev->pid) {
		lc->ck.bad_events++;
		return 0;
	}
	scope = task_scoped(lc, TASK(lc, tid));
	err = task_get(lc, (int32_t)ev->a, &cid);
	if (err)
		return err;
	c = TASK(lc, cid);
	if (!c->born || (c->born & bit)) {
		/* A new task (or a reused pid): what the old one held ends here. */
		err = gp_flush(lc, cid);
		if (!err)
			err = task_resolve(lc, cid, HS_DEATH_NONE);
		if (err)
			return err;
		c = TASK(lc, cid);
		c->born = 0;
		if (!c->seeded)
			c->tgid = c->pid;
		c->known_epoch = lc->epoch;
		c->reclaim_depth = 0;
		c->memcg_depth = 0;
		c->slab_depth = 0;
		c->kswapd = KS_NO;
		c->ra_valid = false;
	}
	c->scope = scope;
	if (bit == BORN_NEWTASK) {
		/* The kernel's word: it overrides a seed, which may be a reused pid's. */
		c->tgid = (ev->b & LC_CLONE_THREAD) ? ctgid : c->pid;
		c->seeded = false;
	}
	c->born |= bit;
	return 0;
}

static int on_exit_exec(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t;
	int err;

	err = gp_flush(lc, tid);
	if (err)
		return err;
	t = TASK(lc, tid);
	t->ra_valid = false;
	if (ev->type == HS_EV_PROCESS_EXIT) {
		t->reclaim_depth = 0;
		t->memcg_depth = 0;
		t->slab_depth = 0;
		if (t->tgid != t->pid)
			return 0;
	}
	return anon_exit(lc, tid, t->tgid, ev->ts_ns);
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
		return task_resolve(lc, tid, HS_DEATH_PAGEOUT);
	case HS_EV_SHRINK_INACTIVE:
		return task_resolve(lc, tid, HS_DEATH_RECLAIM);
	case HS_EV_DIRECT_RECLAIM_END:
	case HS_EV_MEMCG_RECLAIM_END:
	case HS_EV_SOFTLIMIT_RECLAIM_END:
	case HS_EV_NODE_RECLAIM_END:
		if (!t->reclaim_depth)
			return task_resolve(lc, tid, HS_DEATH_RECLAIM);
		break;
	case HS_EV_KSWAPD_SLEEP:
		if (t->kswapd != KS_AWAKE)
			return task_resolve(lc, tid, HS_DEATH_RECLAIM);
		break;
	default:
		break;
	}
	return task_resolve(lc, tid, HS_DEATH_NONE);
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
	for (i = 0; i < lc->tasks.n; i++) {
		struct task *t;

		err = gp_flush(lc, i);
		if (!err)
			err = task_resolve(lc, i, HS_DEATH_UNKNOWN);
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
	cpuq_clear_all(lc);
	lc->epoch++;
	return 0;
}

static int on_touch(struct hs_lifecycle *lc, const struct hs_event *ev)
{
	uint32_t g = task_find(lc, ev->pid);
	bool stream = !(lc->opts.flags & HS_LC_SCOPED) ||
		      (g != NONE && task_in_scope(lc, TASK(lc, g)));
	enum hs_channel ch = (ev->flags & HS_EVF_FD) ? HS_CH_FD : HS_CH_PT;
	uint32_t kid;
	int err;

	if (g != NONE && TASK(lc, g)->open_seq) {
		/* The workload logs a touch after making it: an earlier fault is over. */
		struct task *t = TASK(lc, g);
		int i = cpuq_find(lc, t->open_cpu, t->open_seq);

		if (i < 0 || cpuq_at(lc->cpuq[t->open_cpu], (uint32_t)i)->ts < ev->ts_ns)
			fault_done(lc, t);
	}
	if (ev->flags & HS_EVF_ANON) {
		err = page_key(lc, HS_LIFE_ANON, (uint32_t)ev->pid, 0,
			       ev->addr >> HS_LC_PAGE_SHIFT, &kid);
	} else {
		if (ev->dev >> 32) {
			lc->ck.bad_events++;
			return 0;
		}
		err = page_key(lc, file_kind(lc, ev->dev), ev->dev, ev->ino, ev->index, &kid);
	}
	if (err)
		return err;
	return access_page(lc, kid, ch, ev->flags & HS_EVF_WRITE, stream);
}

/* ---- public ---- */

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
	err = ktab_init(&lc->keys, sizeof(struct pkey));
	if (!err)
		err = ktab_init(&lc->inodes, sizeof(struct inode));
	if (!err)
		err = ktab_init(&lc->tasks, sizeof(struct task));
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
	ktab_fini(&lc->keys);
	ktab_fini(&lc->inodes);
	ktab_fini(&lc->tasks);
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

/**
 * hs_lifecycle_set_tgid() - seed the thread -> process map
 * @lc: the builder
 * @tid: a thread id (common_pid of events)
 * @tgid: its process (thread group) id
 *
 * Without a seed or a fork event, a thread is its own process.  A fork
 * event makes its child a new process (sched_process_fork does not tell
 * threads from processes): seed threads from /proc to group them.
 *
 * Return: 0, -EINVAL (a negative id), or -ENOMEM.
 */
int hs_lifecycle_set_tgid(struct hs_lifecycle *lc, int32_t tid, int32_t tgid)
{
	uint32_t id;
	int err;

	if (!lc || tid < 0 || tgid < 0)
		return -EINVAL;
	err = task_get(lc, tid, &id);
	if (err)
		return err;
	TASK(lc, id)->tgid = tgid;
	TASK(lc, id)->seeded = true;
	return 0;
}

/**
 * hs_lifecycle_set_kswapd() - mark @pid as a kswapd thread
 * @lc: the builder
 * @pid: its pid
 *
 * kswapd threads announce themselves by mm_vmscan_kswapd_wake; a seeded one
 * is taken as awake (reclaiming) until its first wake or sleep event, for a
 * trace that begins while kswapd runs.
 *
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int hs_lifecycle_set_kswapd(struct hs_lifecycle *lc, int32_t pid)
{
	uint32_t id;
	int err;

	if (!lc || pid < 0)
		return -EINVAL;
	err = task_get(lc, pid, &id);
	if (err)
		return err;
	TASK(lc, id)->kswapd = KS_SEEDED;
	return 0;
}

/**
 * hs_lifecycle_add_scope() - put task @pid in the streamed scope
 * @lc: the builder
 * @pid: the workload's task; its later forks inherit the scope
 *
 * Matters only with HS_LC_SCOPED.
 *
 * Return: 0, -EINVAL, or -ENOMEM.
 */
int hs_lifecycle_add_scope(struct hs_lifecycle *lc, int32_t pid)
{
	uint32_t id;
	int err;

	if (!lc || pid < 0)
		return -EINVAL;
	err = task_get(lc, pid, &id);
	if (err)
		return err;
	TASK(lc, id)->scope = true;
	return 0;
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
 * Return: 0; -EINVAL for NULL or after hs_lifecycle_finish(); -ENOMEM; or
 * the emit callback's error.
 */
int hs_lifecycle_event(struct hs_lifecycle *lc, const struct hs_event *ev)
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
		struct cpuq *q = cpuq_get(lc, ev->cpu, true, &err);

		if (!q)
			return err;
		lc->idle = ev->ts_ns > q->ev_ts ? ev->ts_ns - q->ev_ts : 0;
		q->ev_ts = ev->ts_ns;
	}
	if (lc->nr_bursts) {
		err = bursts_check(lc, ev);
		if (err)
			return err;
	}
	if (ev->type == HS_EV_LOST)
		return on_lost(lc, ev);
	if (ev->type == HS_EV_TOUCH)
		return on_touch(lc, ev);
	err = task_get(lc, ev->pid, &tid);
	if (!err)
		err = pending_step(lc, tid, ev);
	if (err)
		return err;
	/* It runs: a later clone event naming it is a new task (a reused pid). */
	TASK(lc, tid)->born = 0;
	if (ev->type != HS_EV_PAGE_FAULT_USER) {
		err = fault_progress(lc, tid, ev);
		if (err)
			return err;
	}
	switch (ev->type) {
	case HS_EV_FILEMAP_ADD:
		return on_add(lc, tid, ev);
	case HS_EV_FILEMAP_DELETE:
		return on_delete(lc, tid, ev);
	case HS_EV_FILEMAP_GET_PAGES:
		return on_get_pages(lc, tid, ev);
	case HS_EV_FILEMAP_FAULT:
	case HS_EV_FILEMAP_MAP_PAGES:
		return on_file_fault(lc, tid, ev);
	case HS_EV_READAHEAD:
		return on_readahead(lc, tid, ev);
	case HS_EV_LRU_INSERTION:
		return burst_add(lc, ev);
	case HS_EV_LRU_ACTIVATE: {
		struct hs_pfnmap_ent e;
		uint32_t id = pfn_join(lc, ev->pfn, &e);

		if (id == NONE)
			lc->ck.pfn_unjoined++;
		else
			lc->life[id].activations++;
		return 0;
	}
	case HS_EV_WRITE_FOLIO:
		return on_write_folio(lc, tid, ev);
	case HS_EV_PAGE_FAULT_USER:
		return on_page_fault(lc, tid, ev);
	case HS_EV_MADVISE:
		return on_madvise(lc, tid, ev);
	case HS_EV_PROCESS_FORK:
	case HS_EV_TASK_NEW:
		err = gp_flush(lc, tid);
		return err ? err : on_clone(lc, tid, ev);
	case HS_EV_PROCESS_EXIT:
	case HS_EV_PROCESS_EXEC:
		return on_exit_exec(lc, tid, ev);
	default:
		on_window(lc, tid, ev);
		return 0;
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
	err = bursts_check(lc, NULL);
	if (err)
		return err;
	lc->finished = true;
	for (i = 0; i < lc->tasks.n; i++) {
		err = gp_flush(lc, i);
		if (!err)
			err = task_resolve(lc, i, HS_DEATH_NONE);
		if (err)
			return err;
	}
	cpuq_clear_all(lc);
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
	return lc->keys.n;
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

	if (id >= lc->keys.n)
		return -ENOENT;
	k = PKEY(lc, id);
	memset(out, 0, sizeof(*out));
	out->kind = (uint8_t)(k->k.w0 >> 32);
	out->index = k->k.w2;
	if (out->kind == HS_LIFE_ANON) {
		out->tgid = (int32_t)(uint32_t)k->k.w0;
		out->address = k->k.w2 << HS_LC_PAGE_SHIFT;
	} else {
		out->dev = k->k.w0 & 0xffffffffu;
		out->ino = k->k.w1;
	}
	return 0;
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
