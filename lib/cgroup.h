/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory cgroups for recorded workloads, and the counter files around them.
 * A workload runs in a fresh memory cgroup named hsctl_<pid> with a limit,
 * children included: cgroup v2 (the unified hierarchy with the memory
 * controller) when the machine has it, else v1 (/sys/fs/cgroup/memory).
 * Destroying it kills what is left inside and removes the directory; a
 * later process removes the ones whose creator died.  The counters come as
 * name/value lists: the cgroup's memory.stat and the machine's /proc/vmstat,
 * taken before and after so the recorder can store deltas.  No shell-outs:
 * only the kernel's own files.  lib/ never prints: errors come back as
 * -errno with a reason in the caller's buffer.
 */
#ifndef HS_CGROUP_H
#define HS_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct hs_cgroup;
struct hs_undo;

/**
 * struct hs_kv - one counter of memory.stat, /proc/vmstat or similar
 */
struct hs_kv {
	char		name[64];	/* "pgpgin", "workingset_refault_file", ... */
	uint64_t	value;		/* its value */
};

/**
 * struct hs_kvlist - a counter file read at one moment
 */
struct hs_kvlist {
	struct hs_kv	*kv;		/* entries in file order */
	size_t		n;		/* their number */
};

/**
 * hs_cgroup_create() - create hsctl_<getpid()> with a memory limit
 * @limit_bytes: the memory limit (v1 memory.limit_in_bytes, v2 memory.max);
 *	0: no limit
 * @out: the cgroup
 * @err: receives a one-line reason on failure
 * @errlen: its size
 *
 * Removes stale hsctl_<pid> cgroups of dead processes first.
 *
 * Return: 0; -ENOENT (no memory controller mounted); -EPERM / -EACCES (not
 * root); -EEXIST; -EINVAL (a limit the kernel refused); -ENOMEM; -EIO.
 */
int hs_cgroup_create(uint64_t limit_bytes, struct hs_cgroup **out, char *err, size_t errlen);

/**
 * hs_cgroup_create_undo() - hs_cgroup_create(), written down in an undo note first
 * @limit_bytes: as hs_cgroup_create()
 * @undo: the note (lib/undo.h), or NULL: no note
 * @out: as hs_cgroup_create()
 * @err: as hs_cgroup_create()
 * @errlen: as hs_cgroup_create()
 *
 * The cgroup's directory goes into the note before it is made;
 * hs_cgroup_destroy() marks it undone once removed.
 *
 * Return: as hs_cgroup_create(), or -errno writing the note.
 */
int hs_cgroup_create_undo(uint64_t limit_bytes, struct hs_undo *undo, struct hs_cgroup **out,
			  char *err, size_t errlen);

/**
 * hs_cgroup_remove_dir() - empty and remove a cgroup another process left
 * @path: its directory; its last component must be hsctl_<digits>
 * @killed: receives how many processes were inside (may be NULL)
 *
 * Kills (SIGKILL) what is inside and removes the directory, within a
 * second; v2 is told from v1 by its cgroup.controllers file.
 *
 * Return: 0 removed; -ENOENT gone already; -EINVAL not an hsctl cgroup's
 * name; -EBUSY it would not empty in time; or -errno.
 */
int hs_cgroup_remove_dir(const char *path, unsigned int *killed);

/**
 * hs_cgroup_version() - 1 or 2
 * @cg: the cgroup
 *
 * Return: the hierarchy version it lives in.
 */
int hs_cgroup_version(const struct hs_cgroup *cg);

/**
 * hs_cgroup_path() - its directory
 * @cg: the cgroup
 *
 * Return: e.g. "/sys/fs/cgroup/memory/hsctl_1234".
 */
const char *hs_cgroup_path(const struct hs_cgroup *cg);

/**
 * hs_cgroup_limit() - the limit the kernel reports
 * @cg: the cgroup
 *
 * Return: bytes (rounded by the kernel to pages), 0 when unlimited.
 */
uint64_t hs_cgroup_limit(const struct hs_cgroup *cg);

/**
 * hs_cgroup_attach() - move a process into the cgroup
 * @cg: the cgroup
 * @pid: the process (0: the caller); its later children stay inside
 *
 * Async-signal-safe when @pid is 0 (usable between fork and exec).
 *
 * Return: 0 or -errno.
 */
int hs_cgroup_attach(const struct hs_cgroup *cg, pid_t pid);

/**
 * hs_cgroup_pids() - the processes inside now
 * @cg: the cgroup
 * @pids: receives a malloc'ed array (free it)
 * @n: receives its length
 *
 * Return: 0 or -errno.
 */
int hs_cgroup_pids(const struct hs_cgroup *cg, pid_t **pids, size_t *n);

/**
 * hs_cgroup_stat() - read memory.stat
 * @cg: the cgroup
 * @out: receives the counters (free with hs_kvlist_free())
 *
 * Return: 0 or -errno.
 */
int hs_cgroup_stat(const struct hs_cgroup *cg, struct hs_kvlist *out);

/**
 * hs_cgroup_peak() - the highest usage the cgroup reached
 * @cg: the cgroup
 * @bytes: receives it (v1 memory.max_usage_in_bytes, v2 memory.peak)
 *
 * Return: 0, -ENOENT when the kernel has no such file, or -errno.
 */
int hs_cgroup_peak(const struct hs_cgroup *cg, uint64_t *bytes);

/**
 * hs_cgroup_destroy() - empty and remove the cgroup, then free it
 * @cg: the cgroup, or NULL
 *
 * Kills (SIGKILL) whatever is still inside, waits up to a second for the
 * directory to become removable and removes it.
 *
 * Return: 0, or -errno when the directory could not be removed (it is
 * then left for hs_cgroup_cleanup_stale()); @cg is freed either way.
 */
int hs_cgroup_destroy(struct hs_cgroup *cg);

/**
 * hs_cgroup_cleanup_stale() - remove hsctl_<pid> cgroups of dead processes
 * @removed: receives how many were removed (may be NULL)
 *
 * Return: 0, or -errno of the first failure (the rest are still tried).
 */
int hs_cgroup_cleanup_stale(unsigned int *removed);

/**
 * hs_vmstat_read() - read /proc/vmstat
 * @out: receives the counters (free with hs_kvlist_free())
 *
 * Return: 0 or -errno.
 */
int hs_vmstat_read(struct hs_kvlist *out);

/**
 * hs_kvlist_parse() - parse "name value" lines
 * @text: the file's text
 * @len: its length
 * @out: receives the counters
 *
 * Lines that are not a name, blanks and an unsigned decimal are skipped;
 * so is a name longer than 63 bytes (never truncated).
 *
 * Return: 0, -EBADMSG when no line parsed, -ENOMEM.
 */
int hs_kvlist_parse(const char *text, size_t len, struct hs_kvlist *out);

/**
 * hs_kvlist_get() - look a counter up
 * @l: the list
 * @name: its name
 * @value: receives the value
 *
 * Return: 0 or -ENOENT.
 */
int hs_kvlist_get(const struct hs_kvlist *l, const char *name, uint64_t *value);

/**
 * hs_kvlist_free() - free the entries (not @l itself)
 * @l: the list, or NULL
 *
 * Return: nothing.
 */
void hs_kvlist_free(struct hs_kvlist *l);

#endif /* HS_CGROUP_H */
