/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's insides, shared by its four files and by no one
 * else (the public face is lifecycle.h).  lifecycle.c's essay says what the
 * builder does; each part explains its own idea:
 *
 *	lifecycle.c	entry points and event dispatch; keys, lives, death
 *			causes, refaults, splits, gaps, the checks
 *	lc-anon.c	anonymous memory: user faults aligned with the
 *			insertions of their folios, swap-out and swap-in,
 *			lost lives and frame states
 *	lc-task.c	threads and processes, clone/exit/exec, scope
 *	lc-stream.c	the access stream: reads held back, ranges, hints
 *
 * Page keys, inodes and tasks live in three key maps (keymap.h) whose
 * records are the structs below, keyed by their leading words; an id is the
 * key's dense id, so the page keys' ids are the stream's keys.  Functions
 * one part calls in another carry the hs_lc_ prefix.
 */
#ifndef HS_LIFECYCLE_INT_H
#define HS_LIFECYCLE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "access.h"
#include "event.h"
#include "keymap.h"
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

/* struct qfault.gone: its process's memory at the burst */
enum { GONE_NO = 0, GONE_ENDING, GONE_UNMAPPED };

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

/* A page key (map keys): its record in the key map, the key first. */
struct pkey {
	uint64_t	k[3];		/* kind << 32 | dev (file) or tgid (anon), inode
					 * (0 for anon), page index or virtual page */
	uint32_t	life;		/* the life covering it now or last, or NONE */
	bool		streamed;	/* the stream named it in an access */
	bool		ra_demand;	/* HS_LC_INFER_RA: a read, fault or touch asked for it
					 * while its life waited to be settled (lpriv.ra_wait) */
};

/* An inode (map inodes). */
struct inode {
	uint64_t	k[2];		/* kind << 32 | dev, ino */
	uint64_t	max_index;	/* highest page index any life of it covered */
	bool		extent_known;	/* max_index is valid */
	uint32_t	gp_holders;	/* tasks holding a get_pages on it */
};

/* A task (map tasks), keyed by pid. */
struct task {
	uint64_t	k;		/* (uint32_t)pid */
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
	uint64_t	ra_demand_hi;	/* a synchronous readahead's request is the pages
					 * [ra_lo, ra_demand_hi) the read or fault waits
					 * for: those are demand misses, not readahead
					 * (ra_lo for an asynchronous one: none are) */
	uint64_t	ra_lo;		/* first index (the window runs on from it) */
	uint32_t	ra_head;	/* HS_LC_INFER_RA: its adds not yet settled as demand
					 * or readahead, oldest first, linked through
					 * lpriv.ra_next; NONE when empty */
	uint32_t	ra_tail;	/* the newest */
	bool		ra_run;		/* a run of its touches is open (same time stamp:
					 * one read's pages), settled when it ends */
	bool		ra_fault;	/* its last file fault (ra_f*) asks for its page */
	uint32_t	ra_run_inode;	/* the run's inode */
	uint64_t	ra_run_ts;	/* the run's time stamp */
	uint32_t	ra_f_inode;	/* the last mm_filemap_fault: inode id */
	uint64_t	ra_f_index;	/* its index */
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
	bool		ra_wait;	/* HS_LC_INFER_RA: on its adder's ra_head list */
	uint32_t	ra_next;	/* next on that list */
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

/* Facts about the previous lives of the pages of a life about to be born. */
struct birth {
	uint32_t	prev;		/* the most recent reclaim/pageout death, or NONE */
	bool		gap;		/* a previous death lies before a gap */
	bool		distrusted;	/* and it would have been a refault */
};

struct hs_lifecycle {
	struct hs_lifecycle_opts opts;	/* with the defaults filled in */
	struct hs_keymap *keys;		/* page keys: struct pkey, ids = stream keys */
	struct hs_keymap *inodes;	/* struct inode */
	struct hs_keymap *tasks;	/* struct task */
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

/* The records of the three maps, by id. */
#define PKEY(lc, id)	((struct pkey *)hs_keymap_rec((lc)->keys, (id)))
#define INODE(lc, id)	((struct inode *)hs_keymap_rec((lc)->inodes, (id)))
#define TASK(lc, id)	((struct task *)hs_keymap_rec((lc)->tasks, (id)))

/* ---- lifecycle.c: keys, lives, deaths, refaults, splits ---- */

uint8_t hs_lc_file_kind(const struct hs_lifecycle *lc, uint64_t dev);
int hs_lc_page_key(struct hs_lifecycle *lc, uint8_t kind, uint64_t who, uint64_t ino,
		   uint64_t index, uint32_t *kid);
uint32_t hs_lc_page_key_find(const struct hs_lifecycle *lc, uint8_t kind, uint64_t who,
			     uint64_t ino, uint64_t index);
int hs_lc_inode_get(struct hs_lifecycle *lc, uint8_t kind, uint64_t dev, uint64_t ino,
		    uint32_t *iid);
int hs_lc_life_new(struct hs_lifecycle *lc, uint32_t *id);
int hs_lc_life_attach(struct hs_lifecycle *lc, uint32_t id);
void hs_lc_map_clear(struct hs_lifecycle *lc, uint64_t pfn, uint64_t pages);
int hs_lc_map_link(struct hs_lifecycle *lc, uint32_t id);
int hs_lc_task_resolve(struct hs_lifecycle *lc, uint32_t tid, uint8_t cause);
struct verdict hs_lc_classify(const struct hs_lifecycle *lc, uint32_t tid, bool swapout);
int hs_lc_life_kill(struct hs_lifecycle *lc, uint32_t id, uint64_t ts, uint32_t tid,
		    const struct verdict *v);
int hs_lc_life_carve(struct hs_lifecycle *lc, uint32_t id, uint64_t lo, uint64_t hi,
		     uint32_t *piece);
int hs_lc_birth_scan(struct hs_lifecycle *lc, uint8_t kind, uint64_t who, uint64_t ino,
		     uint64_t first, uint64_t pages, uint64_t ts, uint32_t tid, struct birth *b);
void hs_lc_birth_apply(struct hs_lifecycle *lc, uint32_t id, const struct birth *b);
uint32_t hs_lc_pfn_join(struct hs_lifecycle *lc, uint64_t pfn, struct hs_pfnmap_ent *e);

/* ---- lc-task.c: threads, processes, scope ---- */

uint32_t hs_lc_task_find(const struct hs_lifecycle *lc, int32_t pid);
int hs_lc_task_get(struct hs_lifecycle *lc, int32_t pid, uint32_t *tid);
bool hs_lc_task_known(const struct hs_lifecycle *lc, const struct task *t);
bool hs_lc_task_scoped(const struct hs_lifecycle *lc, const struct task *t);
bool hs_lc_task_in_scope(const struct hs_lifecycle *lc, const struct task *t);
bool hs_lc_tgid_scoped(const struct hs_lifecycle *lc, int32_t tgid);
bool hs_lc_kstream(const struct hs_lifecycle *lc, const struct task *t);
int hs_lc_on_clone(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_on_exit_exec(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);

/* ---- lc-stream.c: the access stream ---- */

int hs_lc_emit_bits(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch, uint8_t bits);

/* Stream an access or insertion of page @kid; @write: HS_META_WRITE. */
static inline int hs_lc_emit(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch, bool write)
{
	return hs_lc_emit_bits(lc, kid, ch, write ? HS_META_WRITE : 0);
}

int hs_lc_emit_readahead(struct hs_lifecycle *lc, uint32_t tid, uint32_t id, uint64_t skip_lo,
			 uint64_t skip_hi);
int hs_lc_access_page_bits(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch,
			   uint8_t bits, bool stream);

static inline int hs_lc_access_page(struct hs_lifecycle *lc, uint32_t kid, enum hs_channel ch,
				    bool write, bool stream)
{
	return hs_lc_access_page_bits(lc, kid, ch, write ? HS_META_WRITE : 0, stream);
}
int hs_lc_gp_flush(struct hs_lifecycle *lc, uint32_t tid);
int hs_lc_gp_flush_inode(struct hs_lifecycle *lc, uint32_t iid);
int hs_lc_on_file_fault(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_on_get_pages(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_on_readahead(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_on_madvise(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_on_touch(struct hs_lifecycle *lc, const struct hs_event *ev);
void hs_lc_ra_wait(struct hs_lifecycle *lc, uint32_t tid, uint32_t id);
int hs_lc_ra_settle(struct hs_lifecycle *lc, uint32_t tid, uint32_t iid);

/* ---- lc-anon.c: frame states, lost lives, fault queues, insertion bursts ---- */

int hs_lc_fstate_set(struct hs_lifecycle *lc, uint64_t pfn, uint64_t pages, unsigned int st);
void hs_lc_lost_del(struct hs_lifecycle *lc, uint32_t id);
int hs_lc_anon_link(struct hs_lifecycle *lc, uint32_t id);
void hs_lc_anon_unlink(struct hs_lifecycle *lc, uint32_t id);
struct cpuq *hs_lc_cpuq_get(struct hs_lifecycle *lc, uint32_t cpu, bool create, int *err);
struct qfault *hs_lc_cpuq_at(struct cpuq *q, uint32_t i);
int hs_lc_cpuq_find(struct hs_lifecycle *lc, uint32_t cpu, uint64_t seq);
void hs_lc_fault_done(struct hs_lifecycle *lc, struct task *t);
int hs_lc_fault_progress(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
void hs_lc_fault_file(struct hs_lifecycle *lc, uint32_t tid);
void hs_lc_cpuq_clear_all(struct hs_lifecycle *lc);
int hs_lc_burst_add(struct hs_lifecycle *lc, const struct hs_event *ev);
int hs_lc_bursts_check(struct hs_lifecycle *lc, const struct hs_event *ev);
int hs_lc_on_write_folio(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_on_page_fault(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev);
int hs_lc_anon_check(const struct hs_lifecycle *lc);

#endif /* HS_LIFECYCLE_INT_H */
