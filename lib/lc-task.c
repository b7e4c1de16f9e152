/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lifecycle builder's threads and processes (lifecycle.c has the whole
 * design): the task table, clones, exit and exec, the streamed scope and the
 * seeds a caller gives (tgid, kswapd, scope).
 */

/*
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
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle-int.h"

/* The id of task @pid, or NONE. */
uint32_t hs_lc_task_find(const struct hs_lifecycle *lc, int32_t pid)
{
	uint32_t id;

	return hs_keymap_lookup(lc->tasks, (uint32_t)pid, &id) ? id : NONE;
}

/* The id of task @pid, added (its own process, no window open) if new. */
int hs_lc_task_get(struct hs_lifecycle *lc, int32_t pid, uint32_t *tid)
{
	struct task *t;
	int ret;

	ret = hs_keymap_add(lc->tasks, (uint32_t)pid, tid);
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
	t->ra_head = NONE;
	t->ra_tail = NONE;
	return 0;
}

bool hs_lc_task_known(const struct hs_lifecycle *lc, const struct task *t)
{
	return t->known_epoch == lc->epoch;
}

/* Is @t in the workload's scope (its own mark, or its process's)? */
bool hs_lc_task_scoped(const struct hs_lifecycle *lc, const struct task *t)
{
	uint32_t g;

	if (t->scope)
		return true;
	if (t->tgid == t->pid)
		return false;
	g = hs_lc_task_find(lc, t->tgid);
	return g != NONE && TASK(lc, g)->scope;
}

/* Does @t stream (everyone does without HS_LC_SCOPED)? */
bool hs_lc_task_in_scope(const struct hs_lifecycle *lc, const struct task *t)
{
	return !(lc->opts.flags & HS_LC_SCOPED) || hs_lc_task_scoped(lc, t);
}

/* Is process @tgid the workload's (no one is without HS_LC_SCOPED)? */
bool hs_lc_tgid_scoped(const struct hs_lifecycle *lc, int32_t tgid)
{
	uint32_t g;

	if (!(lc->opts.flags & HS_LC_SCOPED))
		return false;
	g = hs_lc_task_find(lc, tgid);
	return g != NONE && hs_lc_task_scoped(lc, TASK(lc, g));
}

/* Kernel events stream from this task? */
bool hs_lc_kstream(const struct hs_lifecycle *lc, const struct task *t)
{
	return !(lc->opts.flags & HS_LC_TOUCH_ONLY) && hs_lc_task_in_scope(lc, t);
}

/* Process @tgid's address space went away (exit of its leader, exec). */
static int anon_exit(struct hs_lifecycle *lc, uint32_t tid, int32_t tgid, uint64_t ts)
{
	static const struct verdict truncate = { .cause = HS_DEATH_TRUNCATE };
	uint32_t g = hs_lc_task_find(lc, tgid);
	int err;

	if (g != NONE) {
		TASK(lc, g)->mm_gen++;
		TASK(lc, g)->mm_end_ts = ts;
	}
	while (g != NONE && TASK(lc, g)->anon_head != NONE) {
		err = hs_lc_life_kill(lc, TASK(lc, g)->anon_head, ts, tid, &truncate);
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
int hs_lc_on_clone(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
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
	scope = hs_lc_task_scoped(lc, TASK(lc, tid));
	err = hs_lc_task_get(lc, (int32_t)ev->a, &cid);
	if (err)
		return err;
	c = TASK(lc, cid);
	if (!c->born || (c->born & bit)) {
		/* A new task (or a reused pid): what the old one held ends here. */
		err = hs_lc_gp_flush(lc, cid);
		if (!err)
			err = hs_lc_task_resolve(lc, cid, HS_DEATH_NONE);
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

int hs_lc_on_exit_exec(struct hs_lifecycle *lc, uint32_t tid, const struct hs_event *ev)
{
	struct task *t;
	int err;

	err = hs_lc_gp_flush(lc, tid);
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
	err = hs_lc_task_get(lc, tid, &id);
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
	err = hs_lc_task_get(lc, pid, &id);
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
	err = hs_lc_task_get(lc, pid, &id);
	if (err)
		return err;
	TASK(lc, id)->scope = true;
	return 0;
}
