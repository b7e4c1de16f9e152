/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NUMA-balancing hinting faults as an access sample (see sampling.h): save,
 * set and restore kernel.numa_balancing and, where debugfs allows it, the
 * scanner's scan_period_max_ms.
 */

/*
 * What the kernel gives: measured
 * ===============================
 *
 * Host: kernel 6.18.44-fc-v782, CONFIG_NUMA_BALANCING=y (not enabled by
 * default), one NUMA node (node0), 2 vCPUs, 24 GiB, transparent huge pages
 * on madvise only (the test regions also had MADV_NOHUGEPAGE), no child
 * cpusets.  kernel.numa_balancing was 0.  /proc/sys/kernel has only
 * numa_balancing and numa_balancing_promote_rate_limit_MBps; the scanner's
 * knobs live in debugfs (/sys/kernel/debug/sched/numa_balancing/:
 * scan_delay_ms, scan_period_min_ms, scan_period_max_ms, scan_size_mb,
 * hot_threshold_ms) and every one of them gave EPERM to root when read
 * (lockdown), so the upstream defaults (1000, 1000, 60000 ms, 256 MB) are
 * assumed, not seen.
 *
 * Method: a program maps 64 MiB of private anonymous memory, writes one
 * byte per page once, then re-reads one byte per page in a loop for S
 * seconds with T reading threads; a private tracefs instance records
 * exceptions:page_fault_user (pid-filtered, event-fork, mono clock; 0 lost
 * in every run) plus sched:sched_skip_vma_numa; /proc/vmstat numa_* before
 * and after.  The first fault per page is the first touch, every later one
 * on the same page is a hinting fault.
 *
 *	numa_balancing  T  S    faults after the first touch, in the region
 *	1               1  5    0
 *	1               1  12   0 (numa_pte_updates +0 machine-wide)
 *	1               1  6    32768 = 2 per page, when the process also has
 *	                        one idle thread (pthread in pause())
 *	1               2  5    42497 over all 16384 pages, in two bursts:
 *	                        22191 at +1.0..1.5 s, 20306 at +4.0..4.5 s
 *	1               2  25   30030 with only the first half re-read: all
 *	                        on its 8192 pages, none on the other half;
 *	                        bursts at +1.2, +4.0, +7.5 s, then none to 25 s
 *	1               2  45   81614: bursts at +2.6, +6.0, +7.6, +30.2 s
 *	2               2  5    0 (numa_pte_updates +0: tiering mode never
 *	                        scans a top-tier node, and node0 is one)
 *	3               2  5    32768: bursts at +1.9..2.5 s and +3.5..4.1 s
 *	1 (1 GiB)       2  10   167477 on 129024 of 262144 pages: at most
 *	                        256 MB (scan_size_mb) are marked per scan
 *
 * So on this machine:
 * - Single-threaded processes get no hinting faults at all.  For a private
 *   VMA of a process whose mm has one user, change_pte_range() leaves alone
 *   every page already on the node the task runs on ("don't mess with PTEs
 *   if page is already on the node a single-threaded process is running
 *   on", mm/mprotect.c), and on one node that is every page; after the
 *   first two passes sched_skip_vma_numa shows the VMA skipped as
 *   pid_inactive (no faults, so no recent accessor).  Any second thread,
 *   even an idle one, lifts that.  Shared anonymous memory (shmem) is
 *   skipped as "unsuitable" (no MPOL_F_MOF policy), read-only file
 *   mappings as "shared_ro".
 * - A pass marks the whole VMA (up to scan_size_mb) within milliseconds;
 *   each page touched afterwards takes one fault (1.3 per page on average
 *   with two threads reading the same page: both trap before the fix-up),
 *   untouched pages none: a pass samples "touched since the pass" per page.
 *   Passes come 1-3 s apart at first (first at +1.0 to +2.8 s after the
 *   touch), then slow down as the scanner finds every fault local: none
 *   between +7.6 and +30.2 s in the 45 s run.  Averaged over a run that is
 *   133 faults/s/MiB over 5 s, 28 over 45 s, 16 over 10 s for 1 GiB.
 * - Hinting faults look exactly like first touches in the event: a
 *   not-present fault, error_code 0x4 for a read (0x6 for a write), the
 *   codes first touches have.  What tells them is the lifecycle builder's
 *   state: the fault's (tgid, page) already has a live anonymous life, so it
 *   is streamed as an access (PT) and not queued for an lru_insertion.  A
 *   hinting fault on a page whose life the trace never saw (resident
 *   before the trace, or file-backed in a writable private mapping) is
 *   queued as a first touch like any unknown fault, and may be linked to
 *   the wrong insertion.
 * - No page moved: numa_pages_migrated stayed 0 (one node).  On a machine
 *   with more nodes, balancing also migrates pages (new pfns, no event).
 *
 * Shortening scan_period_max_ms keeps passes at scan_period_min_ms; that is
 * done where debugfs allows it (not here), never by mounting debugfs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "hs.h"
#include "sampling.h"
#include "undo.h"

#define NUMA_SYSCTL	"/proc/sys/kernel/numa_balancing"
#define SCAN_DIR	"/sys/kernel/debug/sched/numa_balancing"
#define NODES_ONLINE	"/sys/devices/system/node/online"
#define NB_NORMAL	0x1ul		/* NUMA_BALANCING_NORMAL */
#define VAL_MAX		32		/* a sysctl value as text */
#define DESC_MAX	512

enum { K_NUMA = 0, K_SCAN_MAX, NR_KNOBS };
enum { D_SET = 0, D_RESTORED, D_FAILED, NR_DESC };

/* One file the module may change. */
struct knob {
	char		path[PATH_MAX];	/* the file */
	char		old[VAL_MAX];	/* its text before (newline kept) */
	size_t		oldlen;		/* bytes of old */
	bool		changed;	/* written by enable: restore writes old back */
	int		undo_seq;	/* its item in the undo note, or 0 */
};

struct hs_sampling {
	struct knob	k[NR_KNOBS];	/* numa_balancing, scan_period_max_ms */
	struct hs_undo	*undo;		/* the undo note, or NULL */
	volatile sig_atomic_t restored;	/* restore ran (or began) */
	volatile sig_atomic_t failed;	/* values restore could not write back */
	char		desc[NR_DESC][DESC_MAX]; /* set, restored, restore failed */
};

/* snprintf() into @buf (NULL: nothing), quietly cut at @size: messages only. */
/* Text into a caller's buffer: hs_msg() (lib/fileio.h). */
#define textf hs_msg

/* Read a small file whole.  Return: 0 or -errno (-EFBIG when it does not fit). */
static int read_small(const char *path, char *buf, size_t size, size_t *len)
{
	size_t n = 0;
	ssize_t r;
	int fd, e = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			e = -errno;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == size) {
			e = -EFBIG;	/* no room left for the NUL */
			break;
		}
	}
	close(fd);
	if (e)
		return e;
	buf[n] = '\0';
	*len = n;
	return 0;
}

/* Write a whole value (async-signal-safe).  Return: 0 or -errno. */
static int write_value(const char *path, const char *val, size_t len)
{
	size_t off = 0;
	ssize_t w;
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len) {
		w = write(fd, val + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)w;
	}
	if (close(fd) && !e)
		e = -errno;
	return e;
}

/* "123\n" -> 123.  Return: 0, or -EBADMSG for anything but digits and one newline. */
static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EBADMSG;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || (*end && strcmp(end, "\n")))
		return -EBADMSG;
	return 0;
}

static int path_join(char *out, size_t size, const char *root, const char *path)
{
	int n = snprintf(out, size, "%s%s", root, path);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Read a knob and save it.  Return: 0 or -errno; @v its value. */
static int knob_load(struct knob *k, unsigned long *v)
{
	int e = read_small(k->path, k->old, sizeof(k->old), &k->oldlen);

	if (e == -EFBIG)
		return -EBADMSG;
	return e ? e : parse_ulong(k->old, v);
}

/*
 * Write the knob down in the undo note (old value, the one about to be
 * written; equal when it is only in use).  Return: 0 or -errno.
 */
static int knob_note(struct hs_undo *undo, struct knob *k, unsigned long v)
{
	struct hs_undo_item it = { .kind = HS_UNDO_SYSCTL };
	int e;

	if (!undo)
		return 0;
	snprintf(it.a, sizeof(it.a), "%s", k->path);
	snprintf(it.b, sizeof(it.b), "%.*s", (int)strcspn(k->old, "\n"), k->old);
	snprintf(it.c, sizeof(it.c), "%lu", v);
	e = hs_undo_add(undo, &it);
	if (e < 0)
		return e;
	k->undo_seq = e;
	return 0;
}

static int knob_set(struct hs_undo *undo, struct knob *k, unsigned long v)
{
	char buf[VAL_MAX];
	int n = snprintf(buf, sizeof(buf), "%lu\n", v);
	int e = knob_note(undo, k, v);

	if (e)
		return e;
	e = write_value(k->path, buf, (size_t)n);
	if (!e) {
		k->changed = true;
	} else {
		hs_undo_done(undo, k->undo_seq);	/* the write failed: nothing to undo */
		k->undo_seq = 0;
	}
	return e;
}

/* Nodes in "0", "0-3", "0,2-3".  Return: their count, or 0 when unknown. */
static unsigned int count_nodes(const char *root)
{
	char path[PATH_MAX], buf[256], *p, *end;
	unsigned long a, b;
	unsigned int n = 0;
	size_t len;

	if (path_join(path, sizeof(path), root, NODES_ONLINE) ||
	    read_small(path, buf, sizeof(buf), &len))
		return 0;
	for (p = buf; *p && *p != '\n'; p = *end == ',' ? end + 1 : end) {
		a = strtoul(p, &end, 10);
		if (end == p)
			return 0;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a)
				return 0;
		}
		n += (unsigned int)(b - a + 1);
		if (*end && *end != ',' && *end != '\n')
			return 0;
	}
	return n;
}

/*
 * The scan period: lower scan_period_max_ms to scan_period_min_ms when both
 * can be read and max written.  Not being able to is not an error; @note
 * says why.
 */
static void tune_scan(struct hs_sampling *s, const char *root, char *note, size_t size)
{
	struct knob min = { .changed = false };
	struct knob *max = &s->k[K_SCAN_MAX];
	unsigned long vmin, vmax;
	int e;

	if (path_join(min.path, sizeof(min.path), root, SCAN_DIR "/scan_period_min_ms") ||
	    path_join(max->path, sizeof(max->path), root, SCAN_DIR "/scan_period_max_ms")) {
		textf(note, size, "scan period not tuned (path too long)");
		return;
	}
	e = knob_load(&min, &vmin);
	if (e) {
		textf(note, size, "scan period not tuned (%s: %s)", min.path, strerror(-e));
		return;
	}
	e = knob_load(max, &vmax);
	if (e) {
		textf(note, size, "scan period not tuned (%s: %s)", max->path, strerror(-e));
		return;
	}
	if (vmax <= vmin) {
		textf(note, size, "scan_period_max_ms %lu (not above the minimum)", vmax);
		return;
	}
	e = knob_set(s->undo, max, vmin);
	if (e) {
		textf(note, size, "scan period not tuned (scan_period_max_ms: %s)",
			 strerror(-e));
		return;
	}
	textf(note, size, "scan_period_max_ms %lu -> %lu", vmax, vmin);
}

static void describe_all(struct hs_sampling *s, unsigned long old, unsigned long now,
			 const char *scan, unsigned int nodes)
{
	char head[DESC_MAX / 2], tail[DESC_MAX / 2];

	if (old == now)
		textf(head, sizeof(head), "numa_balancing %lu (already on)", old);
	else
		textf(head, sizeof(head), "numa_balancing %lu -> %lu", old, now);
	if (nodes == 1)
		textf(tail, sizeof(tail), "1 NUMA node: hinting faults sample private "
			 "anonymous memory of multi-threaded processes only");
	else if (nodes > 1)
		textf(tail, sizeof(tail), "%u NUMA nodes: hinting faults sample private "
			 "anonymous memory, and pages may migrate", nodes);
	else
		textf(tail, sizeof(tail), "NUMA nodes unknown");
	textf(s->desc[D_SET], DESC_MAX, "%s; %s; %s", head, scan, tail);
	textf(s->desc[D_RESTORED], DESC_MAX, "%s (restored)", s->desc[D_SET]);
	textf(s->desc[D_FAILED], DESC_MAX, "%s (NOT restored: writing back failed)",
		 s->desc[D_SET]);
}

/**
 * hs_sampling_numa_enable_at() - hs_sampling_numa_enable() under another root
 * @root: prefix of the /proc and /sys paths ("" or NULL: the real ones)
 * @out: receives the saved state
 * @err: receives "PATH: reason" on failure (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 or a negative errno (see sampling.h).
 */
int hs_sampling_numa_enable_at(const char *root, struct hs_sampling **out, char *err,
			       size_t errlen)
{
	return hs_sampling_numa_enable_undo(root, NULL, out, err, errlen);
}

/**
 * hs_sampling_numa_enable_undo() - hs_sampling_numa_enable_at(), with an undo note
 * @root: as hs_sampling_numa_enable_at()
 * @undo: the note (lib/undo.h), or NULL
 * @out: as hs_sampling_numa_enable()
 * @err: as hs_sampling_numa_enable()
 * @errlen: as hs_sampling_numa_enable()
 *
 * Return: as hs_sampling_numa_enable(), or -errno writing the note.
 */
int hs_sampling_numa_enable_undo(const char *root, struct hs_undo *undo,
				 struct hs_sampling **out, char *err, size_t errlen)
{
	struct hs_sampling *s;
	struct knob *nb;
	unsigned long old, now;
	char scan[DESC_MAX / 2];
	int e;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!root)
		root = "";
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->undo = undo;
	nb = &s->k[K_NUMA];
	if (path_join(nb->path, sizeof(nb->path), root, NUMA_SYSCTL)) {
		textf(err, errlen, "%s: path too long", root);
		free(s);
		return -ENAMETOOLONG;
	}
	e = knob_load(nb, &old);
	if (e) {
		textf(err, errlen, "%s: %s", nb->path, e == -ENOENT ?
			"no NUMA balancing in this kernel" : e == -EBADMSG ?
			"not a number" : strerror(-e));
		free(s);
		return e;
	}
	now = old | NB_NORMAL;
	if (now != old) {
		e = knob_set(undo, nb, now);
		if (e) {
			textf(err, errlen, "%s: cannot write %lu: %s", nb->path, now,
				strerror(-e));
			free(s);
			return e;
		}
	} else {
		/* not changed, but in use: a recovery must not turn it off under us */
		e = knob_note(undo, nb, now);
		if (e) {
			textf(err, errlen, "undo note %s: %s", hs_undo_path(undo), strerror(-e));
			free(s);
			return e;
		}
	}
	tune_scan(s, root, scan, sizeof(scan));
	describe_all(s, old, now, scan, count_nodes(root));
	*out = s;
	return 0;
}

/**
 * hs_sampling_numa_enable() - turn NUMA-balancing hinting faults on for sampling
 * @out: receives the saved state
 * @err: receives "PATH: reason" on failure (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 or a negative errno (see sampling.h).
 */
int hs_sampling_numa_enable(struct hs_sampling **out, char *err, size_t errlen)
{
	return hs_sampling_numa_enable_at(NULL, out, err, errlen);
}

/**
 * hs_sampling_restore() - put back every value hs_sampling_numa_enable() changed
 * @s: the saved state, or NULL
 *
 * Async-signal-safe: open(), write(), close() only.
 *
 * Return: nothing.
 */
void hs_sampling_restore(struct hs_sampling *s)
{
	int i;

	if (!s || s->restored)
		return;
	s->restored = 1;
	for (i = NR_KNOBS - 1; i >= 0; i--) {
		struct knob *k = &s->k[i];

		if (k->changed && write_value(k->path, k->old, k->oldlen))
			s->failed++;
		else
			hs_undo_done(s->undo, k->undo_seq);
	}
}

/**
 * hs_sampling_free() - restore (if not done yet) and free
 * @s: the saved state, or NULL
 *
 * Return: nothing.
 */
void hs_sampling_free(struct hs_sampling *s)
{
	if (!s)
		return;
	hs_sampling_restore(s);
	free(s);
}

/**
 * hs_sampling_describe() - what was changed and what it can be expected to give
 * @s: the saved state, or NULL
 *
 * Return: one line; "no sampling" for NULL.
 */
const char *hs_sampling_describe(const struct hs_sampling *s)
{
	if (!s)
		return "no sampling";
	if (!s->restored)
		return s->desc[D_SET];
	return s->failed ? s->desc[D_FAILED] : s->desc[D_RESTORED];
}
