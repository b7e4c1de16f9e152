/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of lib/undo.c, the undo notes, in a private directory (no root
 * needed): a note written by a child process that then dies of SIGKILL is
 * handed back item by item, cgroups first and sessions last, with its
 * fields exact (a path with a space and a '%' in it) and the items it
 * marked done left out, and is removed; items the callback keeps are all
 * that a rewritten note holds; a live process's note (this one's, locked)
 * is never handed over but its items are shown as in use; a process that
 * closes its note with everything done leaves no file, one with an item
 * pending leaves it marked "ended"; a note naming a pid that lives with
 * another start time is dead (a reused pid), one naming this very process
 * is not; a torn last line is ignored.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "undo.h"

static char dir[64];

/* What a recovery handed over. */
struct seen {
	struct hs_undo_item it[16];
	struct hs_undo_owner o[16];
	pid_t		live_inst;	/* hs_undo_live_find(INSTANCE) at the first call */
	size_t		n;
	int		keep_kind;	/* return 1 for this kind; -1: none */
};

static int record_item(void *arg, const struct hs_undo_owner *o, const struct hs_undo_item *it,
		       const struct hs_undo_live *live)
{
	struct seen *s = arg;

	if (!s->n)
		s->live_inst = hs_undo_live_find(live, HS_UNDO_INSTANCE, NULL);
	if (s->n < 16) {
		s->it[s->n] = *it;
		s->o[s->n] = *o;
		s->o[s->n].note = NULL;
		s->n++;
	}
	return (int)it->kind == s->keep_kind;
}

static void item(struct hs_undo_item *it, enum hs_undo_kind kind, const char *a,
		 const char *b, const char *c, uint64_t id)
{
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->id = id;
	snprintf(it->a, sizeof(it->a), "%s", a);
	snprintf(it->b, sizeof(it->b), "%s", b);
	snprintf(it->c, sizeof(it->c), "%s", c);
}

/* A child writes a note with four items, marks the second done, and is SIGKILLed. */
static pid_t dead_writer(bool close_it)
{
	struct hs_undo_item it;
	struct hs_undo *u;
	pid_t pid = fork();

	if (pid)
		return pid;
	if (hs_undo_new(dir, &u))
		_exit(2);
	item(&it, HS_UNDO_FILE, "/var/tmp/a b%c/hsctl_1_loop", "", "", 0);
	if (hs_undo_add(u, &it) != 1)
		_exit(3);
	item(&it, HS_UNDO_INSTANCE, "hsctl_77", "", "", 0);
	if (hs_undo_add(u, &it) != 2)
		_exit(3);
	item(&it, HS_UNDO_MOUNT, "/sys/kernel/tracing", "unique", "", UINT64_C(2147483767));
	if (hs_undo_add(u, &it) != 3)
		_exit(3);
	item(&it, HS_UNDO_SYSCTL, "/proc/sys/kernel/numa_balancing", "0", "1", 0);
	if (hs_undo_add(u, &it) != 4)
		_exit(3);
	if (hs_undo_done(u, 2))
		_exit(4);
	if (close_it) {
		hs_undo_close(u);
		_exit(0);
	}
	raise(SIGKILL);
	_exit(5);
}

static int nr_files(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static void t_dead_note(void)
{
	struct seen s = { .keep_kind = -1 };
	int status;
	pid_t pid = dead_writer(false);

	T_EQ_I64(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	T_EQ_I64(nr_files(), 1);
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 1);
	/* the instance was done; the rest in kind order: sysctl, mount, file */
	T_EQ_U64(s.n, 3);
	T_EQ_I64(s.it[0].kind, HS_UNDO_SYSCTL);
	T_EQ_STR(s.it[0].a, "/proc/sys/kernel/numa_balancing");
	T_EQ_STR(s.it[0].b, "0");
	T_EQ_STR(s.it[0].c, "1");
	T_EQ_I64(s.it[0].seq, 4);
	T_EQ_I64(s.it[1].kind, HS_UNDO_MOUNT);
	T_EQ_U64(s.it[1].id, UINT64_C(2147483767));
	T_EQ_STR(s.it[1].b, "unique");
	T_EQ_I64(s.it[2].kind, HS_UNDO_FILE);
	T_EQ_STR(s.it[2].a, "/var/tmp/a b%c/hsctl_1_loop");
	T_EQ_STR(s.it[2].b, "");
	T_EQ_I64(s.o[0].pid, pid);
	T_ASSERT(!s.o[0].ended);
	T_ASSERT(!s.o[0].other_boot);
	T_EQ_I64(s.live_inst, 0);
	/* all dropped: the note is gone, and a second recovery finds nothing */
	T_EQ_I64(nr_files(), 0);
	s.n = 0;
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 0);
	T_EQ_U64(s.n, 0);
}

static void t_kept_items(void)
{
	struct seen s = { .keep_kind = HS_UNDO_MOUNT };
	int status;
	pid_t pid = dead_writer(false);

	T_EQ_I64(waitpid(pid, &status, 0), pid);
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 1);
	T_EQ_U64(s.n, 3);
	T_EQ_I64(nr_files(), 1);
	/* the rewritten note holds the mount only, with its fields and owner */
	s = (struct seen){ .keep_kind = -1 };
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 1);
	T_EQ_U64(s.n, 1);
	T_EQ_I64(s.it[0].kind, HS_UNDO_MOUNT);
	T_EQ_U64(s.it[0].id, UINT64_C(2147483767));
	T_EQ_STR(s.it[0].a, "/sys/kernel/tracing");
	T_EQ_I64(s.o[0].pid, pid);
	T_EQ_I64(nr_files(), 0);
}

static void t_live_note(void)
{
	struct seen s = { .keep_kind = -1 };
	struct hs_undo_item it;
	struct hs_undo *u = NULL;
	int status;
	pid_t pid;

	T_EQ_I64(hs_undo_new(dir, &u), 0);
	T_EQ_STR(hs_undo_path(u), dir);	/* the directory, for messages, until the note exists */
	item(&it, HS_UNDO_INSTANCE, "hsctl_1", "", "", 0);
	T_EQ_I64(hs_undo_add(u, &it), 1);
	T_ASSERT(hs_undo_fd(u) >= 0);
	/* this process's own note, locked: never handed over, even without @self */
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 0);
	T_EQ_U64(s.n, 0);
	/* beside a dead note, its instance shows as in use by this process */
	pid = dead_writer(false);
	T_EQ_I64(waitpid(pid, &status, 0), pid);
	T_EQ_I64(hs_undo_recover(dir, u, record_item, &s), 1);
	T_EQ_U64(s.n, 3);
	T_EQ_I64(s.live_inst, getpid());
	T_EQ_I64(nr_files(), 1);
	/* everything done: closing removes it */
	T_EQ_I64(hs_undo_done(u, 1), 0);
	hs_undo_close(u);
	T_EQ_I64(nr_files(), 0);
	/* NULL notes write nothing */
	T_EQ_I64(hs_undo_add(NULL, &it), 0);
	T_EQ_I64(hs_undo_done(NULL, 1), 0);
	hs_undo_close(NULL);
}

/* A system without /run (the lab's initramfs): the notes' parent is made too. */
static void t_missing_parent(void)
{
	char sub[PATH_MAX], notes[PATH_MAX + 8];
	struct hs_undo_item it;
	struct hs_undo *u = NULL;
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/run", dir);
	snprintf(notes, sizeof(notes), "%s/hsctl", sub);
	T_EQ_I64(hs_undo_new(notes, &u), 0);
	item(&it, HS_UNDO_INSTANCE, "hsctl_2", "", "", 0);
	T_EQ_I64(hs_undo_add(u, &it), 1);
	T_ASSERT(!lstat(notes, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	T_ASSERT(!strncmp(hs_undo_path(u), notes, strlen(notes)));
	T_EQ_I64(hs_undo_done(u, 1), 0);
	hs_undo_close(u);
	T_EQ_I64(rmdir(notes), 0);
	T_EQ_I64(rmdir(sub), 0);
}

static void t_ended(void)
{
	struct seen s = { .keep_kind = -1 };
	int status;
	pid_t pid = dead_writer(true);

	T_EQ_I64(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 1);
	T_EQ_U64(s.n, 3);
	T_ASSERT(s.o[0].ended);
	T_EQ_I64(nr_files(), 0);
}

/* Write a note by hand. */
static void hand_note(const char *name, pid_t pid, uint64_t start, const char *body)
{
	char path[192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	T_ASSERT(f != NULL);
	if (!f)
		return;
	fprintf(f, "hsctl-undo 1\npid %d\nstart %" PRIu64 "\nboot -\n%s", (int)pid, start, body);
	fclose(f);
}

static void t_pid_reuse_and_torn(void)
{
	struct seen s = { .keep_kind = -1 };
	uint64_t start = 0;

	T_EQ_I64(hs_proc_start_time(0, &start), 0);
	T_ASSERT(start > 0);
	T_EQ_I64(hs_proc_start_time(getpid(), &start), 0);
	/* this process, its start time: alive (no lock held on it, but it lives) */
	hand_note("a.note", getpid(), start, "+ 1 file 0 - - /tmp/hsctl_a\n");
	/* this pid with another start time: a dead process whose pid was reused */
	hand_note("b.note", getpid(), start + 1, "+ 1 file 0 - - /tmp/hsctl_b\n"
		  "+ 2 cgroup 0 - - /x/hsctl_2\n+ 3 file 0 - - /tmp/hsctl_torn");
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 1);
	T_EQ_U64(s.n, 2);
	T_EQ_I64(s.it[0].kind, HS_UNDO_CGROUP);
	T_EQ_STR(s.it[0].a, "/x/hsctl_2");
	T_EQ_STR(s.it[1].a, "/tmp/hsctl_b");
	T_EQ_I64(nr_files(), 1);	/* a.note */
	T_EQ_I64(hs_proc_start_time(-5, &start), -ESRCH);
	/* not a note: left alone */
	hand_note("c.note", 0, 0, "");
	T_EQ_I64(hs_undo_recover(dir, NULL, record_item, &s), 0);
	T_EQ_I64(nr_files(), 2);
}

static const struct t_case cases[] = {
	{ "dead_note", t_dead_note },
	{ "kept_items", t_kept_items },
	{ "live_note", t_live_note },
	{ "ended", t_ended },
	{ "missing_parent", t_missing_parent },
	{ "pid_reuse_and_torn", t_pid_reuse_and_torn },
};

int main(int argc, char **argv)
{
	char cmd[128];
	int rc;

	snprintf(dir, sizeof(dir), "%s", "/tmp/hsctl-t-undo.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	rc = t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "t-undo: could not remove %s\n", dir);
	return rc;
}
