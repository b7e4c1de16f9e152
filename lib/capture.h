/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live capture from tracefs: finds (or mounts) tracefs, removes instances
 * left by earlier hsctl processes that died, creates a private instance
 * "hsctl_<pid>", configures it (per-CPU buffer size, buffer_percent, the mono
 * trace clock so events line up with CLOCK_MONOTONIC), enables the events it
 * is told to, and runs one reader thread per CPU that hands every raw
 * sub-buffer (tracefs_cpu_read) to a callback, or splices it into a file
 * the caller gives for that CPU, or both.  It does not decode: the
 * caller owns lib/decode.c and what happens to the bytes.  Loss is counted
 * from the per-CPU stats files (overrun, commit overrun, dropped events)
 * before and after, so it is exact whatever the buffer mode.  Closing
 * closes every per-CPU fd before destroying the instance (RECORDER.md
 * pitfall 1) and unmounts tracefs when this capture mounted it.
 *
 * Needs root.  lib/ never prints: errors come back as -errno with a
 * one-line reason in hs_capture_errmsg().
 */
#ifndef HS_CAPTURE_H
#define HS_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct hs_capture;
struct hs_undo;

/* Instances and cgroups hsctl creates are named HS_CAPTURE_PREFIX "<pid>". */
#define HS_CAPTURE_PREFIX	"hsctl_"

/*
 * Called from reader thread @cpu for every sub-buffer read, header included
 * (@len bytes, valid only during the call).  Calls for different CPUs run
 * concurrently; calls for one CPU are in ring-buffer order.  A non-zero
 * return stops that CPU's reader and is reported by hs_capture_stop().
 */
typedef int (*hs_capture_subbuf_fn)(void *arg, int cpu, const void *buf, size_t len);

/*
 * Called once per online CPU by hs_capture_start(), before its reader
 * starts: the file descriptor (a regular file, not O_APPEND, owned by the
 * caller) that CPU's raw sub-buffers are appended to, each exactly
 * hs_capture_subbuf_size() bytes (the header's commit field says how many
 * hold events), or -errno to fail the start.  Without on_subbuf, whole
 * sub-buffers are spliced into it (splice(2): no copy through user space, a
 * few system calls per wake-up rather than one per sub-buffer); partial ones
 * are read and written only when the reader's period elapses and at the
 * stop, so a killed process loses at most the period's events.
 */
typedef int (*hs_capture_spool_fn)(void *arg, int cpu);

/**
 * struct hs_capture_opts - how to capture; zero fields take the defaults
 */
struct hs_capture_opts {
	unsigned int	buffer_kb;	/* per-CPU ring buffer, KiB; 0: 8192 */
	unsigned int	buffer_percent;	/* wake readers at this fill; 0: 25 (1..100) */
	const char	*clock;		/* trace_clock; NULL: "mono" */
	hs_capture_subbuf_fn on_subbuf;	/* or NULL; one of on_subbuf, spool_fd needed */
	hs_capture_spool_fn spool_fd;	/* or NULL; with on_subbuf, each sub-buffer is
					 * read, handed to it, then written to the fd */
	void		*arg;		/* first argument of on_subbuf and spool_fd */
	struct hs_undo	*undo;		/* note the instance and a mount here (lib/undo.h),
					 * or NULL */
};

/**
 * struct hs_capture_cpu - one CPU's counters (deltas over the capture)
 */
struct hs_capture_cpu {
	uint64_t	subbufs;	/* sub-buffers handed to on_subbuf or spooled */
	uint64_t	bytes;		/* their total length */
	uint64_t	overrun;	/* stats "overrun:" delta (overwritten events) */
	uint64_t	commit_overrun;	/* stats "commit overrun:" delta */
	uint64_t	dropped;	/* stats "dropped events:" delta */
	uint64_t	read_events;	/* stats "read events:" delta */
	uint64_t	lost;		/* overrun + commit_overrun + dropped */
};

/**
 * struct hs_capture_stats - counters of the whole capture
 */
struct hs_capture_stats {
	unsigned int	nr_cpus;	/* entries in cpu[] */
	struct hs_capture_cpu *cpu;	/* per CPU, owned by the capture */
	uint64_t	subbufs;	/* sums over the CPUs */
	uint64_t	bytes;
	uint64_t	lost;
	unsigned int	buffer_kb;	/* per-CPU buffer size the kernel reports */
	char		clock[16];	/* the trace clock in use */
};

/**
 * hs_capture_open() - prepare a private tracefs instance
 * @opts: options (on_subbuf or spool_fd required)
 * @out: the capture; on error other than -ENOMEM it is set so that
 *	hs_capture_errmsg() can be read, and must be freed with hs_capture_close()
 *
 * Mounts tracefs at /sys/kernel/tracing when no tracefs is mounted (and
 * remembers to unmount it), removes stale hsctl_<pid> instances whose
 * process is gone, creates hsctl_<getpid()> (fails with -EEXIST if it
 * exists and its process lives), sets buffer size, buffer_percent and the
 * clock.  No event is enabled yet and tracing is off in the instance.
 * With opts->undo, the instance is written in the note before tracefs is
 * looked for, and a mount right after it was made (with its mount id);
 * closing marks each undone.
 *
 * Return: 0; -EPERM (not root, or tracefs refused); -ENOENT (no tracefs in
 * this kernel); -EEXIST; -EINVAL (bad options); -ENOMEM; -EIO.
 */
int hs_capture_open(const struct hs_capture_opts *opts, struct hs_capture **out);

/**
 * hs_capture_errmsg() - the reason for the last error
 * @c: the capture
 *
 * Return: "what: why" without a newline, or "".
 */
const char *hs_capture_errmsg(const struct hs_capture *c);

/**
 * hs_capture_tracing_dir() - the tracefs mount point in use
 * @c: the capture
 *
 * Return: e.g. "/sys/kernel/tracing" (events/ lives there: give it to
 * hs_decoder_open()).
 */
const char *hs_capture_tracing_dir(const struct hs_capture *c);

/**
 * hs_capture_instance() - the instance's name
 * @c: the capture
 *
 * Return: "hsctl_<pid>".
 */
const char *hs_capture_instance(const struct hs_capture *c);

/**
 * hs_capture_subbuf_size() - bytes of one sub-buffer as read or spooled
 * @c: the capture
 *
 * Return: the size (the instance's buffer_subbuf_size_kb, else the end of
 * the data field in events/header_page), or 0 when it cannot be read.
 */
size_t hs_capture_subbuf_size(struct hs_capture *c);

/**
 * hs_capture_enable() - enable one event in the instance
 * @c: the capture (before hs_capture_start())
 * @system: "filemap"
 * @event: "mm_filemap_add_to_page_cache"
 *
 * The names are taken literally (libtracefs would read them as regular
 * expressions): anything but letters, digits, '_' and '-' is refused.
 *
 * Return: 0, -ENOENT when the kernel has no such event, -EINVAL for a NULL
 * or malformed name, -EIO.
 */
int hs_capture_enable(struct hs_capture *c, const char *system, const char *event);

/**
 * hs_capture_filter() - set one event's filter in the instance
 * @c: the capture (before hs_capture_start(); before hs_capture_enable() of
 *	the event, so that nothing unfiltered is recorded)
 * @system: "tlb"
 * @event: "tlb_flush"
 * @filter: tracefs filter syntax, "pages == 0xffffffffffffffff && common_pid == 42"
 *
 * Return: 0, -ENOENT when the kernel has no such event, -EINVAL for a bad
 * name or a filter the kernel refuses, -EIO.
 */
int hs_capture_filter(struct hs_capture *c, const char *system, const char *event,
		      const char *filter);

/**
 * hs_capture_start() - start reading and tracing
 * @c: the capture
 *
 * Writes every thread of this process (from /proc/self/task) to the
 * instance's set_event_notrace_pid, so hsctl's own I/O is not traced
 * (create your other threads before calling this), opens every CPU's
 * trace_pipe_raw, starts one reader per CPU, snapshots the per-CPU stats
 * and turns tracing on.  Signals: the reader threads block every signal.
 * The readers are started before the thread list is written, so they are
 * excluded too.  A stopped capture may be started again (counters restart).
 *
 * Return: 0, -EBUSY when already started, or -errno (everything started is
 * undone).
 */
int hs_capture_start(struct hs_capture *c);

/**
 * hs_capture_stop() - stop tracing and drain
 * @c: the capture
 *
 * Turns tracing off, wakes and stops the readers, hands every remaining
 * (also partial) sub-buffer to on_subbuf and/or the spool fd, joins the
 * readers and takes the stats deltas.  Safe to call when not started (does nothing).
 *
 * Return: 0, the first non-zero on_subbuf or spool_fd return, or -errno of a
 * reader (reading trace_pipe_raw or writing the spool fd).
 */
int hs_capture_stop(struct hs_capture *c);

/**
 * hs_capture_get_stats() - counters so far (exact after hs_capture_stop())
 * @c: the capture
 * @st: receives them (cpu[] is owned by @c)
 *
 * Before stop, subbufs and bytes are live (read atomically) and the loss
 * fields are 0.
 *
 * Return: 0.
 */
int hs_capture_get_stats(const struct hs_capture *c, struct hs_capture_stats *st);

/**
 * hs_capture_close() - stop if needed, close every fd, destroy the instance
 * @c: the capture, or NULL
 *
 * Disables the events, closes every per-CPU fd, destroys the instance
 * (only if this capture created it) and unmounts tracefs if it mounted it
 * (EBUSY, another user, is ignored).  Frees @c.
 *
 * Return: nothing.
 */
void hs_capture_close(struct hs_capture *c);

/**
 * hs_capture_cleanup_stale() - remove hsctl_<pid> instances of dead processes
 * @tracing_dir: the tracefs mount
 * @removed: receives how many were removed (may be NULL)
 *
 * An instance is stale when its pid is gone, or when the pid now belongs to
 * a process that is neither called "hsctl" nor has libtracefs mapped (a
 * recycled pid).  A live process with libtracefs mapped may be another user
 * of this code under another name (a test program), so its instance stays.
 * This process's own instance is never removed.
 *
 * Return: 0 or -errno of the first failure (the rest are still tried).
 */
int hs_capture_cleanup_stale(const char *tracing_dir, unsigned int *removed);

/**
 * hs_tracefs_find() - where tracefs is mounted
 * @buf: receives the mount point
 * @size: its size
 *
 * When tracefs is mounted in several places, /sys/kernel/tracing wins.
 *
 * Return: 0, or -ENOENT when /proc/mounts lists no tracefs, -ENAMETOOLONG
 * when @size is too small, -errno when /proc/mounts cannot be read.
 */
int hs_tracefs_find(char *buf, size_t size);

/**
 * hs_tracefs_mount_id() - the mount id of the mount on @dir, if it is tracefs
 * @dir: the mount point
 * @id: receives the id
 * @unique: receives true for a 64-bit id the kernel never hands out again
 *	(STATX_MNT_ID_UNIQUE, Linux 6.8+), false for the older, reusable one
 *
 * Return: 0 when the file system on @dir is tracefs, -EINVAL when it is
 * another one, -ENOSYS when the kernel tells no mount id, or -errno.
 */
int hs_tracefs_mount_id(const char *dir, uint64_t *id, bool *unique);

/**
 * hs_tracefs_unmount_if() - unmount tracefs from @dir if it is still that mount
 * @dir: the mount point
 * @id: the mount id it had when it was mounted
 * @unique: the kind of @id (see hs_tracefs_mount_id())
 *
 * Return: 0 unmounted; -ENOENT no tracefs there any more; -ESTALE another
 * mount is there now (left alone); -EBUSY in use (left); or -errno.
 */
int hs_tracefs_unmount_if(const char *dir, uint64_t id, bool unique);

#endif /* HS_CAPTURE_H */
