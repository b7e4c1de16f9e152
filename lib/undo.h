/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo notes: what a recorder changed on the host, written down before (or,
 * where that cannot be known in advance, right after) each change, so that a
 * later process can put it back when the recorder was killed.  A recording
 * mounts tracefs when it is not mounted, turns kernel.numa_balancing on for
 * --sample numa, creates a tracefs instance, a memory cgroup, a data file
 * and a session whose spool is in the database; SIGKILL ends it before it
 * can undo any of that.
 *
 * One note per process, a small text file in HS_UNDO_DIR (/run/hsctl:
 * machine-wide like the state it describes, so a later `hsctl record` or
 * `hsctl db recover` finds it whatever database it opens; root-only, 0700;
 * the place runtime state goes, cleared at boot on most systems; the note
 * also carries the boot id, for systems where /run survives a reboot).  It
 * is an append-only journal: a header (pid, the process's start time from
 * /proc/PID/stat, the boot id), one "+" line per change with what is needed
 * to undo it, one "-" line when the process undid it itself, "end" when it
 * exited with something left.  Every line is written with one write(2),
 * which a SIGKILL cannot take back (the page cache keeps it).  Only a
 * machine crash loses unsynced lines, and a crash also undoes mounts,
 * sysctls, instances and cgroups, and the database keeps its own sessions:
 * so only the line of a created file, which outlives a reboot, is
 * fdatasync'ed (each fdatasync cost 0.1-0.2 s on these loaded machines,
 * before tracing starts).  The note exists only from the first change on
 * and is removed when everything in it was undone.
 *
 * The owner holds an exclusive flock(2) on its note for its whole life (a
 * forked child must close hs_undo_fd()), so a note whose lock can be taken
 * belongs to a dead process, whatever became of its pid; a process alive
 * with the note's pid and start time counts as alive too.  Recovery
 * (hs_undo_recover()) takes the lock of every dead note, hands each pending
 * item to a callback in a fixed order (cgroup, sysctl, instance, mount,
 * file, session) together with the items of the live notes, and removes
 * the note, or rewrites it with the items the callback kept for later.
 * What an item means and how it is put back is the caller's
 * (lib/recorder-undo.c); this file only keeps the journal.  lib/ never
 * prints: errors come back as -errno.
 */
#ifndef HS_UNDO_H
#define HS_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where notes are kept unless the caller says otherwise. */
#define HS_UNDO_DIR	"/run/hsctl"

/* What an item undoes; recovery hands items over in this order. */
enum hs_undo_kind {
	HS_UNDO_CGROUP,		/* a: the cgroup's directory (kill what is inside, rmdir) */
	HS_UNDO_SYSCTL,		/* a: the file, b: its old value, c: the value written
				 * (b == c: not changed, only in use) */
	HS_UNDO_INSTANCE,	/* a: the tracefs instance's name */
	HS_UNDO_MOUNT,		/* a: the tracefs mount point, id: its mount id,
				 * b: "unique" (STATX_MNT_ID_UNIQUE) or "reusable" */
	HS_UNDO_FILE,		/* a: a file the process created */
	HS_UNDO_SESSION,	/* a: the database file, id: the session recorded into it */
	HS_UNDO_NR
};

/**
 * struct hs_undo_item - one change
 */
struct hs_undo_item {
	enum hs_undo_kind kind;		/* what it is */
	int		seq;		/* its number in the note (set by hs_undo_add()) */
	uint64_t	id;		/* mount id, session id */
	char		a[4096];	/* a path or name */
	char		b[64];		/* a value */
	char		c[64];		/* another value */
};

struct hs_undo;

/**
 * hs_undo_new() - this process's note, not created yet
 * @dir: the notes' directory; NULL: HS_UNDO_DIR
 * @out: receives it
 *
 * Nothing is written until the first hs_undo_add().
 *
 * Return: 0, -ENAMETOOLONG, -ENOMEM.
 */
int hs_undo_new(const char *dir, struct hs_undo **out);

/**
 * hs_undo_add() - write one change down (before making it, where possible)
 * @u: the note, or NULL (nothing is written; returns 0)
 * @it: the change; its seq is ignored
 *
 * Creates the directory (0700) and the note on first use, then appends the
 * item (fdatasync'ed for HS_UNDO_FILE).  Not thread-safe: one thread
 * writes the note.
 *
 * Return: the item's number (> 0) for hs_undo_done(), 0 for a NULL @u, or
 * -errno (-EPERM: the directory is not root's own, or a symlink).
 */
int hs_undo_add(struct hs_undo *u, const struct hs_undo_item *it);

/**
 * hs_undo_done() - the process undid (or never made) change @seq itself
 * @u: the note, or NULL
 * @seq: from hs_undo_add(); <= 0: nothing
 *
 * Async-signal-safe: write(2) only.
 *
 * Return: 0 or -errno.
 */
int hs_undo_done(struct hs_undo *u, int seq);

/**
 * hs_undo_fd() - the note's descriptor, for a forked child to close
 * @u: the note, or NULL
 *
 * A child that keeps it keeps the lock, and the note looks alive after the
 * parent was killed.
 *
 * Return: the fd, or -1.
 */
int hs_undo_fd(const struct hs_undo *u);

/**
 * hs_undo_path() - the note's file, for messages
 * @u: the note
 *
 * Return: the path, or the notes' directory before the first hs_undo_add()
 * has made it ("" for a NULL note).
 */
const char *hs_undo_path(const struct hs_undo *u);

/**
 * hs_undo_close() - remove the note when everything in it was undone, free
 * @u: the note, or NULL
 *
 * A note with changes still pending is left (with an "end" line) for a
 * later hs_undo_recover(), and its lock released.
 *
 * Return: nothing.
 */
void hs_undo_close(struct hs_undo *u);

/**
 * struct hs_undo_owner - the process a dead note belongs to
 */
struct hs_undo_owner {
	pid_t		pid;		/* its pid */
	uint64_t	start;		/* its start time (clock ticks after boot) */
	bool		ended;		/* it exited on its own ("end"), not killed */
	bool		other_boot;	/* the note is from before the last boot */
	const char	*note;		/* the note's path */
};

/**
 * struct hs_undo_live - the pending items of the notes of live processes
 */
struct hs_undo_live {
	const struct hs_undo_item *items;
	const pid_t	*pids;		/* the owner of each */
	size_t		n;
};

/**
 * hs_undo_live_find() - a live process's item of that kind (and path)
 * @l: the live items
 * @kind: the kind
 * @a: the path or name to match, or NULL: any of @kind
 *
 * Return: the owner's pid, or 0 when none.
 */
pid_t hs_undo_live_find(const struct hs_undo_live *l, enum hs_undo_kind kind, const char *a);

/*
 * Put one pending item of a dead process back.  Return: 0 done (or nothing
 * to do): the item is dropped; 1: keep it for a later recovery; -errno: kept
 * as well.
 */
typedef int (*hs_undo_fn)(void *arg, const struct hs_undo_owner *o,
			  const struct hs_undo_item *it, const struct hs_undo_live *live);

/**
 * hs_undo_recover() - hand the pending items of dead processes' notes to @fn
 * @dir: the notes' directory; NULL: HS_UNDO_DIR
 * @self: this process's own note (never undone: its items count as in
 *	use, as a live process's do), or NULL
 * @fn: called once per pending item, cgroups first, sessions last
 * @arg: its first argument
 *
 * Each dead note is locked while it is worked on, so two recoveries never
 * undo the same note; a note whose items were all dropped is removed, one
 * with kept items rewritten with just those.  Unreadable or malformed notes
 * are left alone.  No directory: nothing to do.
 *
 * Return: the number of dead notes seen, or -errno when @dir cannot be read
 * (-EACCES when not root).
 */
int hs_undo_recover(const char *dir, const struct hs_undo *self, hs_undo_fn fn, void *arg);

/**
 * hs_proc_start_time() - a process's start time, field 22 of /proc/PID/stat
 * @pid: the process (0: this one)
 * @start: receives it, in clock ticks after boot
 *
 * Return: 0, -ESRCH when there is no such process, -EBADMSG, -errno.
 */
int hs_proc_start_time(pid_t pid, uint64_t *start);

#endif /* HS_UNDO_H */
