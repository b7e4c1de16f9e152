/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cleaning up after a killed recorder, completely (hs_recorder_recover()).
 * A recorder writes every change it makes to the host in its undo note
 * (lib/undo.h) before making it: the data file it created, the tracefs
 * instance, tracefs mounted when it was not, the memory cgroup,
 * kernel.numa_balancing for --sample numa, the session whose spool is in the
 * database.  A note whose process died with changes pending is handed, item
 * by item, to undo_item() below, which puts each back and says so in one
 * line, or keeps it for a later recovery:
 *
 *  cgroup    killed what still runs inside (the workload outlives its
 *            recorder), then removed;
 *  sysctl    written back to the old value, but only while it still holds
 *            the value the recorder wrote (someone who changed it since
 *            wins), and not while a live recorder samples with it;
 *  instance  removed from the tracefs mount;
 *  mount     unmounted, but only while the mount on that point is the very
 *            one the recorder made (its mount id; Linux 6.8+ ids are never
 *            reused), not while a live recorder uses tracefs, and not when
 *            it is busy (EBUSY: someone holds a file in it);
 *  file      unlinked (its name starts with hsctl_);
 *  session   built from its spool as status "killed", when it is in the
 *            database being recovered; for another database, a line says
 *            which one holds it.
 *
 * A note from before the last boot only has its file and session undone:
 * mounts, sysctls, instances and cgroups did not survive the reboot.
 * Items that do nothing (already undone) are told at the debug level.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cgroup.h"
#include "fileio.h"
#include "recorder-int.h"
#include "undo.h"

struct rctx {
	hs_recorder_note_fn fn;		/* the caller's lines */
	void		*arg;		/* its first argument */
	bool		have_db;	/* db is the database being recovered */
	struct stat	db;		/* its file */
	int64_t		*dead;		/* its sessions whose recorder is dead */
	size_t		nr_dead;
	int		lines;		/* items restored (warnings) */
};

static void say(struct rctx *x, enum hs_recorder_level level, const struct hs_undo_owner *o,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void say(struct rctx *x, enum hs_recorder_level level, const struct hs_undo_owner *o,
		const char *fmt, ...)
{
	char msg[1024];
	int n;
	va_list ap;

	if (level == HS_RECORDER_WARN)
		x->lines++;
	if (!x->fn)
		return;
	n = snprintf(msg, sizeof(msg), o->ended ? "recorder (pid %d, ended): " :
		     "killed recorder (pid %d): ", (int)o->pid);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	x->fn(x->arg, level, msg);
}

/* "hsctl_<digits>" */
static bool hsctl_name(const char *s)
{
	if (strncmp(s, HS_CAPTURE_PREFIX, strlen(HS_CAPTURE_PREFIX)))
		return false;
	s += strlen(HS_CAPTURE_PREFIX);
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int undo_cgroup(struct rctx *x, const struct hs_undo_owner *o,
		       const struct hs_undo_item *it, const struct hs_undo_live *live)
{
	unsigned int killed = 0;
	pid_t user;
	int err;

	user = hs_undo_live_find(live, HS_UNDO_CGROUP, it->a);
	if (user) {
		say(x, HS_RECORDER_WARN, o, "cgroup %s: in use by hsctl pid %d, left",
		    it->a, (int)user);
		return 1;
	}
	err = hs_cgroup_remove_dir(it->a, &killed);
	if (!err) {
		if (killed)
			say(x, HS_RECORDER_WARN, o, "killed %u process%s left in cgroup %s and "
			    "removed it", killed, killed == 1 ? "" : "es", it->a);
		else
			say(x, HS_RECORDER_WARN, o, "removed cgroup %s", it->a);
		return 0;
	}
	if (err == -ENOENT || err == -EINVAL)
		return 0;
	say(x, HS_RECORDER_WARN, o, "cgroup %s: %s; left for a later recover", it->a,
	    strerror(-err));
	return 1;
}

/* The first line of a small file, without its newline.  Return: 0 or -errno. */
static int read_value(const char *path, char *buf, size_t size)
{
	size_t len;
	char *t;
	int err;

	err = hs_read_file(path, 4096, &t, &len);
	if (err)
		return err;
	snprintf(buf, size, "%.*s", (int)strcspn(t, "\n"), t);
	free(t);
	return 0;
}

static int write_value(const char *path, const char *val)
{
	FILE *f = fopen(path, "we");
	int err = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%s\n", val) < 0)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static int undo_sysctl(struct rctx *x, const struct hs_undo_owner *o,
		       const struct hs_undo_item *it, const struct hs_undo_live *live)
{
	char now[64];
	pid_t user;
	int err;

	if (!strcmp(it->b, it->c))
		return 0;	/* not changed, only used */
	if (strncmp(it->a, "/proc/sys/", 10) && strncmp(it->a, "/sys/kernel/debug/", 18))
		return 0;
	user = hs_undo_live_find(live, HS_UNDO_SYSCTL, it->a);
	if (user) {
		say(x, HS_RECORDER_WARN, o, "%s left at %s while hsctl pid %d samples with it "
		    "(a later recover puts %s back)", it->a, it->c, (int)user, it->b);
		return 1;
	}
	err = read_value(it->a, now, sizeof(now));
	if (err)
		return err == -ENOENT ? 0 : err;
	if (!strcmp(now, it->b))
		return 0;
	if (strcmp(now, it->c)) {
		say(x, HS_RECORDER_WARN, o, "%s is %s, not the %s it set: left as it is",
		    it->a, now, it->c);
		return 0;
	}
	err = write_value(it->a, it->b);
	if (err) {
		say(x, HS_RECORDER_WARN, o, "%s: cannot put %s back: %s", it->a, it->b,
		    strerror(-err));
		return 1;
	}
	say(x, HS_RECORDER_WARN, o, "put %s back from %s to %s", it->a, it->c, it->b);
	return 0;
}

static int undo_instance(struct rctx *x, const struct hs_undo_owner *o,
			 const struct hs_undo_item *it, const struct hs_undo_live *live)
{
	char dir[PATH_MAX], path[PATH_MAX + 4200];
	pid_t user;

	if (!hsctl_name(it->a) || hs_tracefs_find(dir, sizeof(dir)))
		return 0;	/* no tracefs mounted: no instance to be seen */
	user = hs_undo_live_find(live, HS_UNDO_INSTANCE, it->a);
	if (user) {
		say(x, HS_RECORDER_WARN, o, "tracefs instance %s: in use by hsctl pid %d, left",
		    it->a, (int)user);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/instances/%s", dir, it->a);
	if (!rmdir(path)) {
		say(x, HS_RECORDER_WARN, o, "removed tracefs instance %s", path);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	say(x, HS_RECORDER_WARN, o, "tracefs instance %s: %s; left for a later recover", path,
	    strerror(errno));
	return 1;
}

static int undo_mount(struct rctx *x, const struct hs_undo_owner *o,
		      const struct hs_undo_item *it, const struct hs_undo_live *live)
{
	pid_t user;
	int err;

	user = hs_undo_live_find(live, HS_UNDO_INSTANCE, NULL);
	if (!user)
		user = hs_undo_live_find(live, HS_UNDO_MOUNT, NULL);
	if (user) {
		say(x, HS_RECORDER_WARN, o, "tracefs left mounted on %s while hsctl pid %d "
		    "records (a later recover unmounts it)", it->a, (int)user);
		return 1;
	}
	err = hs_tracefs_unmount_if(it->a, it->id, !strcmp(it->b, "unique"));
	if (!err) {
		say(x, HS_RECORDER_WARN, o, "unmounted the tracefs it had mounted on %s", it->a);
		return 0;
	}
	if (err == -ENOENT || err == -ESTALE) {
		say(x, HS_RECORDER_INFO, o, "tracefs on %s: %s", it->a, err == -ENOENT ?
		    "unmounted already" : "another mount now, left alone");
		return 0;
	}
	say(x, HS_RECORDER_WARN, o, "tracefs on %s: %s; left mounted for a later recover",
	    it->a, err == -EBUSY ? "in use" : strerror(-err));
	return 1;
}

static int undo_file(struct rctx *x, const struct hs_undo_owner *o,
		     const struct hs_undo_item *it)
{
	const char *base = strrchr(it->a, '/');

	if (it->a[0] != '/' || !base || strncmp(base + 1, "hsctl_", 6))
		return 0;
	if (!unlink(it->a)) {
		say(x, HS_RECORDER_WARN, o, "removed its data file %s", it->a);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	say(x, HS_RECORDER_WARN, o, "data file %s: %s; left for a later recover", it->a,
	    strerror(errno));
	return 1;
}

static int undo_session(struct rctx *x, const struct hs_undo_owner *o,
			const struct hs_undo_item *it)
{
	struct stat st;
	int64_t *nd;

	if (!it->a[0] || stat(it->a, &st))
		return 0;	/* the database is gone, and its spool with it */
	if (x->have_db && st.st_dev == x->db.st_dev && st.st_ino == x->db.st_ino) {
		nd = realloc(x->dead, (x->nr_dead + 1) * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		x->dead = nd;
		x->dead[x->nr_dead++] = (int64_t)it->id;
		return 0;	/* rec_recover_sessions() builds it and says so */
	}
	say(x, HS_RECORDER_WARN, o, "session %" PRIu64 " of %s keeps its spool: "
	    "'hsctl -d %s db recover' builds it", it->id, it->a, it->a);
	return 0;
}

/* hs_undo_fn */
static int undo_item(void *arg, const struct hs_undo_owner *o, const struct hs_undo_item *it,
		     const struct hs_undo_live *live)
{
	struct rctx *x = arg;

	/* after a reboot only files and databases are still there */
	if (o->other_boot && it->kind != HS_UNDO_FILE && it->kind != HS_UNDO_SESSION)
		return 0;
	switch (it->kind) {
	case HS_UNDO_CGROUP:
		return undo_cgroup(x, o, it, live);
	case HS_UNDO_SYSCTL:
		return undo_sysctl(x, o, it, live);
	case HS_UNDO_INSTANCE:
		return undo_instance(x, o, it, live);
	case HS_UNDO_MOUNT:
		return undo_mount(x, o, it, live);
	case HS_UNDO_FILE:
		return undo_file(x, o, it);
	case HS_UNDO_SESSION:
		return undo_session(x, o, it);
	default:
		return 1;	/* unknown to this hsctl: left */
	}
}

/**
 * hs_recorder_recover() - undo what killed recorders left, and build their sessions
 * @run_dir: the undo notes' directory; NULL: HS_UNDO_DIR
 * @self: the recorder about to start (its own note is not touched), or NULL
 * @st: the database whose killed sessions to build, or NULL
 * @db_path: its file (to tell its sessions in the notes), or NULL
 * @fn: one line per restored item and per built session (warnings), and
 *	per item with nothing to do (debug); may be NULL
 * @arg: its first argument
 *
 * Return: the number of items restored plus sessions built, or -errno when
 * the notes could not be read (-EACCES when not root); the sessions are
 * built even then.
 */
int hs_recorder_recover(const char *run_dir, const struct hs_recorder *self,
			struct hs_store *st, const char *db_path, hs_recorder_note_fn fn,
			void *arg)
{
	struct rctx x = { .fn = fn, .arg = arg };
	int err, built = 0;

	x.have_db = st && db_path && !stat(db_path, &x.db);
	err = hs_undo_recover(run_dir, rec_undo(self), undo_item, &x);
	if (st) {
		built = rec_recover_sessions(st, x.dead, x.nr_dead, fn, arg);
		if (built < 0)
			built = 0;
	}
	free(x.dead);
	if (err < 0)
		return err;
	return x.lines + built;
}
