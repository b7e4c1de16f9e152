/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Undo notes (see undo.h): the journal of one process's changes to the
 * host, and the scan that hands a dead process's pending changes to the
 * code that puts them back.
 *
 * A note, /run/hsctl/<pid>-<start>.note:
 *
 *	hsctl-undo 1
 *	pid 4242
 *	start 1234567
 *	boot 6c1f...-...
 *	+ 1 file 0 - - /var/tmp/hsctl_4242_loop_Ab12Cd
 *	+ 2 instance 0 - - hsctl_4242
 *	+ 3 mount 2147483767 unique - /sys/kernel/tracing
 *	- 3
 *	end
 *
 * Item lines: "+ SEQ KIND ID B C A", where B and C are "-" when empty and
 * every field is escaped (%XX for '%', blanks, control and non-ASCII
 * bytes), so a line always splits on spaces.  The note appears under its
 * name only once its header is written and its lock taken (written as a
 * dot file, then linked), so a scan never sees a live note half-made.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "undo.h"

#define NOTE_MAGIC	"hsctl-undo 1"
#define NOTE_SUFFIX	".note"
#define BOOT_ID		"/proc/sys/kernel/random/boot_id"

static const char *const kind_names[HS_UNDO_NR] = {
	[HS_UNDO_CGROUP] = "cgroup", [HS_UNDO_SYSCTL] = "sysctl",
	[HS_UNDO_INSTANCE] = "instance", [HS_UNDO_MOUNT] = "mount",
	[HS_UNDO_FILE] = "file", [HS_UNDO_SESSION] = "session",
};

struct hs_undo {
	char		dir[PATH_MAX - 128];	/* the notes' directory (room for a name) */
	char		path[PATH_MAX];	/* the note, "" until created */
	int		fd;		/* open and locked, or -1 */
	int		seq;		/* the last item's number */
	int		pending;	/* items added and not done */
	bool		failed;		/* a write failed: the note may be incomplete */
};

/* ---- small helpers ---- */

int hs_proc_start_time(pid_t pid, uint64_t *start)
{
	char path[64], *text, *p;
	size_t len;
	int field, err;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	err = hs_read_file(path, 4096, &text, &len);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	/* the command (field 2) may hold anything: fields start after its last ')' */
	p = strrchr(text, ')');
	err = -EBADMSG;
	for (field = 2; p && *p; p++) {
		if (*p != ' ')
			continue;
		if (++field == 22) {
			char *end;

			errno = 0;
			*start = strtoull(p + 1, &end, 10);
			if (!errno && end != p + 1)
				err = 0;
			break;
		}
	}
	free(text);
	return err;
}

/* The boot id (36 characters) into @buf, or "" when it cannot be read. */
static void boot_id(char *buf, size_t size)
{
	size_t len;
	char *t;

	buf[0] = '\0';
	if (hs_read_file(BOOT_ID, 256, &t, &len))
		return;
	t[strcspn(t, "\n")] = '\0';
	snprintf(buf, size, "%s", t);
	free(t);
}

/* @s escaped into @out (size @size).  Return: 0, or -ENAMETOOLONG. */
static int escape(const char *s, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	if (!*s)
		s = "-";
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch <= ' ' || ch >= 0x7f || ch == '%') {
			if (n + 3 >= size)
				return -ENAMETOOLONG;
			out[n++] = '%';
			out[n++] = hex[ch >> 4];
			out[n++] = hex[ch & 15];
		} else {
			if (n + 1 >= size)
				return -ENAMETOOLONG;
			out[n++] = (char)ch;
		}
	}
	out[n] = '\0';
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Undo escape() from @s into @out ("-" is the empty string).  Return: 0 or -EBADMSG. */
static int unescape(const char *s, char *out, size_t size)
{
	size_t n = 0;
	int hi, lo;

	if (!strcmp(s, "-")) {
		out[0] = '\0';
		return 0;
	}
	for (; *s; s++) {
		char ch = *s;

		if (ch == '%') {
			hi = hexval(s[1]);
			lo = hi < 0 ? -1 : hexval(s[2]);
			if (lo < 0)
				return -EBADMSG;
			ch = (char)(hi * 16 + lo);
			s += 2;
		}
		if (n + 1 >= size || !ch)
			return -EBADMSG;
		out[n++] = ch;
	}
	out[n] = '\0';
	return 0;
}

/* write(2) all of @buf (async-signal-safe).  Return: 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t w;

	while (len) {
		w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* One item as its "+" line (newline included).  Return: 0 or -ENAMETOOLONG. */
static int format_item(const struct hs_undo_item *it, int seq, char *line, size_t size)
{
	char a[3 * sizeof(it->a)], b[3 * sizeof(it->b)], c[3 * sizeof(it->c)];
	int n;

	if ((unsigned int)it->kind >= HS_UNDO_NR)
		return -EINVAL;
	if (escape(it->a, a, sizeof(a)) || escape(it->b, b, sizeof(b)) ||
	    escape(it->c, c, sizeof(c)))
		return -ENAMETOOLONG;
	n = snprintf(line, size, "+ %d %s %" PRIu64 " %s %s %s\n", seq, kind_names[it->kind],
		     it->id, b, c, a);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* ---- writing this process's note ---- */

int hs_undo_new(const char *dir, struct hs_undo **out)
{
	struct hs_undo *u;

	*out = NULL;
	if (!dir)
		dir = HS_UNDO_DIR;
	if (strlen(dir) >= sizeof(((struct hs_undo *)0)->dir))
		return -ENAMETOOLONG;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	snprintf(u->dir, sizeof(u->dir), "%s", dir);
	u->fd = -1;
	*out = u;
	return 0;
}

/*
 * The directory exists, is a directory, not a symlink, and is ours alone.
 * Its parent is made too when missing: a minimal system (an initramfs, a
 * container) may have no /run at all.
 */
static int check_dir(const char *dir)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;
	int made;

	made = mkdir(dir, 0700) ? errno : 0;
	if (made == ENOENT) {
		snprintf(parent, sizeof(parent), "%s", dir);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			if (mkdir(parent, 0755) && errno != EEXIST)
				return -errno;
		}
		made = mkdir(dir, 0700) ? errno : 0;
	}
	if (made && made != EEXIST)
		return -made;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

/* Write the header to a dot file, lock it, and link it under its name. */
static int create_note(struct hs_undo *u)
{
	char tmp[PATH_MAX], head[256], boot[64];
	uint64_t start = 0;
	int fd, err, n, i;

	err = check_dir(u->dir);
	if (err)
		return err;
	hs_proc_start_time(0, &start);
	boot_id(boot, sizeof(boot));
	snprintf(tmp, sizeof(tmp), "%s/.%d-%" PRIu64 ".tmp", u->dir, (int)getpid(), start);
	unlink(tmp);	/* only this process makes that name */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		goto fail;
	}
	n = snprintf(head, sizeof(head), NOTE_MAGIC "\npid %d\nstart %" PRIu64 "\nboot %s\n",
		     (int)getpid(), start, boot[0] ? boot : "-");
	err = write_all(fd, head, (size_t)n);
	if (err)
		goto fail;
	for (i = 0; i < 100; i++) {
		if (i)
			snprintf(u->path, sizeof(u->path), "%s/%d-%" PRIu64 "-%d" NOTE_SUFFIX,
				 u->dir, (int)getpid(), start, i);
		else
			snprintf(u->path, sizeof(u->path), "%s/%d-%" PRIu64 NOTE_SUFFIX, u->dir,
				 (int)getpid(), start);
		if (!link(tmp, u->path))
			break;
		if (errno != EEXIST) {
			err = -errno;
			goto fail;
		}
	}
	if (i == 100) {
		err = -EEXIST;
		goto fail;
	}
	unlink(tmp);
	u->fd = fd;
	return 0;
fail:
	u->path[0] = '\0';
	unlink(tmp);
	close(fd);
	return err;
}

int hs_undo_add(struct hs_undo *u, const struct hs_undo_item *it)
{
	char line[3 * sizeof(it->a) + 512];
	int err;

	if (!u)
		return 0;
	if (u->fd < 0) {
		err = create_note(u);
		if (err)
			return err;
	}
	err = format_item(it, u->seq + 1, line, sizeof(line));
	if (err)
		return err;
	err = write_all(u->fd, line, strlen(line));
	/* a file outlives a crash: its line (and the header) must too; see undo.h */
	if (!err && it->kind == HS_UNDO_FILE && fdatasync(u->fd))
		err = -errno;
	if (err) {
		u->failed = true;
		return err;
	}
	u->pending++;
	return ++u->seq;
}

int hs_undo_done(struct hs_undo *u, int seq)
{
	char line[32], digits[16];
	size_t n = 0, d = 0;
	unsigned int v;
	int err;

	if (!u || u->fd < 0 || seq <= 0)
		return 0;
	/* no snprintf(): this may run in a signal handler; no fdatasync(): see undo.h */
	for (v = (unsigned int)seq; v; v /= 10)
		digits[d++] = (char)('0' + v % 10);
	line[n++] = '-';
	line[n++] = ' ';
	while (d)
		line[n++] = digits[--d];
	line[n++] = '\n';
	err = write_all(u->fd, line, n);
	if (err) {
		u->failed = true;
		return err;
	}
	u->pending--;
	return 0;
}

int hs_undo_fd(const struct hs_undo *u)
{
	return u ? u->fd : -1;
}

const char *hs_undo_path(const struct hs_undo *u)
{
	if (!u)
		return "";
	return u->path[0] ? u->path : u->dir;	/* the directory, before the note is made */
}

void hs_undo_close(struct hs_undo *u)
{
	if (!u)
		return;
	if (u->fd >= 0) {
		if (u->pending > 0 || u->failed) {
			write_all(u->fd, "end\n", 4);
		} else {
			unlink(u->path);
		}
		close(u->fd);	/* releases the lock */
	}
	free(u);
}

/* ---- reading notes ---- */

struct note {
	char		path[PATH_MAX];
	int		fd;		/* locked (dead notes) or -1 */
	struct hs_undo_owner owner;
	char		boot[64];
	struct hs_undo_item *items;	/* pending, in file order */
	size_t		n;
	bool		ok;		/* parsed */
};

static int parse_item(char *line, struct hs_undo_item *it)
{
	char *f[7], *save = NULL;
	int i, k;

	for (i = 0; i < 7; i++) {
		f[i] = strtok_r(i ? NULL : line, " ", &save);
		if (!f[i])
			return -EBADMSG;
	}
	memset(it, 0, sizeof(*it));
	it->seq = atoi(f[1]);
	for (k = 0; k < HS_UNDO_NR && strcmp(f[2], kind_names[k]); k++)
		;
	if (k == HS_UNDO_NR || it->seq <= 0)
		return -EBADMSG;
	it->kind = (enum hs_undo_kind)k;
	it->id = strtoull(f[3], NULL, 10);
	if (unescape(f[4], it->b, sizeof(it->b)) || unescape(f[5], it->c, sizeof(it->c)) ||
	    unescape(f[6], it->a, sizeof(it->a)))
		return -EBADMSG;
	return 0;
}

/* Read @fd's note into @nt: header and the items not done.  A torn last line is ignored. */
static int parse_note(int fd, struct note *nt)
{
	char *text = NULL, *line, *save = NULL;
	struct hs_undo_item it;
	size_t cap = 0, len = 0, i;
	ssize_t r;
	bool magic = false;
	int err = 0;

	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nt2 = realloc(text, cap = cap ? cap * 2 : 16384);

			if (!nt2) {
				free(text);
				return -ENOMEM;
			}
			text = nt2;
		}
		r = pread(fd, text + len, cap - len - 1, (off_t)len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(text);
			return -errno;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	text[len] = '\0';
	/* a line without its newline was being written when the owner died */
	while (len && text[len - 1] != '\n')
		text[--len] = '\0';
	for (line = strtok_r(text, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!magic) {
			magic = !strcmp(line, NOTE_MAGIC);
			if (!magic)
				err = -EBADMSG;
		} else if (!strncmp(line, "pid ", 4)) {
			nt->owner.pid = (pid_t)atoi(line + 4);
		} else if (!strncmp(line, "start ", 6)) {
			nt->owner.start = strtoull(line + 6, NULL, 10);
		} else if (!strncmp(line, "boot ", 5)) {
			snprintf(nt->boot, sizeof(nt->boot), "%s", line + 5);
		} else if (!strcmp(line, "end")) {
			nt->owner.ended = true;
		} else if (!strncmp(line, "+ ", 2)) {
			struct hs_undo_item *ni;

			if (parse_item(line, &it))
				continue;	/* an item this hsctl does not know: left */
			ni = realloc(nt->items, (nt->n + 1) * sizeof(*ni));
			if (!ni) {
				err = -ENOMEM;
				break;
			}
			nt->items = ni;
			nt->items[nt->n++] = it;
		} else if (!strncmp(line, "- ", 2)) {
			int seq = atoi(line + 2);

			for (i = 0; i < nt->n; i++) {
				if (nt->items[i].seq == seq) {
					memmove(&nt->items[i], &nt->items[i + 1],
						(nt->n - i - 1) * sizeof(*nt->items));
					nt->n--;
					break;
				}
			}
		}
	}
	free(text);
	if (!err && (!magic || nt->owner.pid <= 0))
		err = -EBADMSG;
	nt->ok = !err;
	return err;
}

pid_t hs_undo_live_find(const struct hs_undo_live *l, enum hs_undo_kind kind, const char *a)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (l->items[i].kind == kind && (!a || !strcmp(l->items[i].a, a)))
			return l->pids[i];
	return 0;
}

/* Is the process that wrote @nt alive (same pid, same start time)? */
static bool owner_alive(const struct note *nt)
{
	uint64_t start;

	return !hs_proc_start_time(nt->owner.pid, &start) && start == nt->owner.start;
}

/* Rewrite @nt's file with @keep (its kept items) only, atomically.  Return: 0 or -errno. */
static int rewrite_note(const struct note *nt, const struct hs_undo_item *keep, size_t n)
{
	char tmp[PATH_MAX + 8], head[256], line[3 * sizeof(keep->a) + 512];
	size_t i;
	int fd, err, len;

	snprintf(tmp, sizeof(tmp), "%s.new", nt->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	len = snprintf(head, sizeof(head), NOTE_MAGIC "\npid %d\nstart %" PRIu64 "\nboot %s\n",
		       (int)nt->owner.pid, nt->owner.start, nt->boot[0] ? nt->boot : "-");
	err = write_all(fd, head, (size_t)len);
	for (i = 0; !err && i < n; i++) {
		err = format_item(&keep[i], keep[i].seq, line, sizeof(line));
		if (!err)
			err = write_all(fd, line, strlen(line));
	}
	if (!err && nt->owner.ended)
		err = write_all(fd, "end\n", 4);
	if (!err && fdatasync(fd))
		err = -errno;
	close(fd);
	if (!err && rename(tmp, nt->path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int cmp_kind(const void *x, const void *y)
{
	const struct hs_undo_item *a = x, *b = y;

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	return b->seq - a->seq;		/* the later change first */
}

static bool is_note_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > strlen(NOTE_SUFFIX) &&
	       !strcmp(name + len - strlen(NOTE_SUFFIX), NOTE_SUFFIX);
}

/* A dot file whose owner died before linking it: nothing was changed yet. */
static void drop_stale_tmp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (name[0] != '.' || !strstr(name, ".tmp"))
		return;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		unlink(path);
	close(fd);
}

int hs_undo_recover(const char *dir, const struct hs_undo *self, hs_undo_fn fn, void *arg)
{
	struct hs_undo_item *litems = NULL, *keep;
	struct note *notes = NULL;
	pid_t *lpids = NULL;
	size_t nn = 0, nl = 0, i, j, nk;
	struct hs_undo_live live;
	struct dirent *de;
	struct stat a, b;
	char boot[64];
	int err = 0, dead = 0, r;
	DIR *d;

	if (!dir)
		dir = HS_UNDO_DIR;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	boot_id(boot, sizeof(boot));
	while ((de = readdir(d))) {
		struct note *nt, *nv;
		int fd;

		if (!is_note_name(de->d_name)) {
			drop_stale_tmp(dir, de->d_name);
			continue;
		}
		nv = realloc(notes, (nn + 1) * sizeof(*notes));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		notes = nv;
		nt = &notes[nn];
		memset(nt, 0, sizeof(*nt));
		nt->fd = -1;
		if ((size_t)snprintf(nt->path, sizeof(nt->path), "%s/%s", dir, de->d_name) >=
		    sizeof(nt->path))
			continue;
		fd = open(nt->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		/* this process's own note is alive (its lock would say so too) */
		if ((self && !strcmp(nt->path, self->path)) || flock(fd, LOCK_EX | LOCK_NB)) {
			/* alive: its items only tell what is in use */
			parse_note(fd, nt);
			close(fd);
		} else if (fstat(fd, &a) || stat(nt->path, &b) || a.st_ino != b.st_ino ||
			   a.st_dev != b.st_dev) {
			close(fd);	/* removed or replaced meanwhile by another recovery */
			continue;
		} else {
			nt->fd = fd;	/* dead, unless its process lives without the lock */
			if (parse_note(fd, nt) || owner_alive(nt)) {
				close(fd);
				nt->fd = -1;
			}
		}
		if (!nt->ok) {
			free(nt->items);
			continue;
		}
		nn++;
	}
	closedir(d);

	/* the live notes' items */
	for (i = 0; !err && i < nn; i++) {
		if (notes[i].fd >= 0)
			continue;
		for (j = 0; j < notes[i].n; j++) {
			struct hs_undo_item *ni = realloc(litems, (nl + 1) * sizeof(*ni));
			pid_t *np = realloc(lpids, (nl + 1) * sizeof(*np));

			if (ni)
				litems = ni;
			if (np)
				lpids = np;
			if (!ni || !np) {
				err = -ENOMEM;
				break;
			}
			litems[nl] = notes[i].items[j];
			lpids[nl++] = notes[i].owner.pid;
		}
	}
	live = (struct hs_undo_live){ litems, lpids, nl };

	for (i = 0; !err && i < nn; i++) {
		struct note *nt = &notes[i];

		if (nt->fd < 0)
			continue;
		dead++;
		nt->owner.note = nt->path;
		nt->owner.other_boot = boot[0] && nt->boot[0] && strcmp(boot, nt->boot);
		qsort(nt->items, nt->n, sizeof(*nt->items), cmp_kind);
		keep = nt->items;	/* kept items are compacted in place */
		for (j = 0, nk = 0; j < nt->n; j++) {
			r = fn(arg, &nt->owner, &nt->items[j], &live);
			if (r != 0)
				keep[nk++] = nt->items[j];
		}
		if (!nk)
			unlink(nt->path);
		else if (nk < nt->n)
			rewrite_note(nt, keep, nk);
	}
	for (i = 0; i < nn; i++) {
		if (notes[i].fd >= 0)
			close(notes[i].fd);
		free(notes[i].items);
	}
	free(notes);
	free(litems);
	free(lpids);
	return err ? err : dead;
}
