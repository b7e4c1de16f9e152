/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder benchmark's workload (bench/record; not part of hsctl): a
 * fixed amount of work that makes the memory-management events hsctl
 * records at a high rate.  One op maps an anonymous region, writes one byte
 * to each of its pages (a user page fault and an LRU insertion per page),
 * unmaps it, then reads a file chunk with pread (filemap get_pages, page
 * cache adds, readahead, LRU insertions) and drops it again with
 * posix_fadvise(POSIX_FADV_DONTNEED) (page cache deletes), so every op
 * misses the page cache and the next one adds the pages anew.  Chunks
 * rotate through the file.  The work is the same on every run: no clock or
 * randomness decides what is done, only how long it takes (with --seconds
 * the number of ops is what varies).  With --procs N, N processes each do
 * the whole work on their own file region.  At exit it prints one JSON line:
 * ops, wall seconds from the first op to the last process's end, ops/s, and
 * CPU seconds (getrusage of itself and its children).
 *
 * usage: loadgen [--ops N | --seconds S] [--procs N] [--anon-kb K]
 *                [--file PATH] [--chunk-kb K] [--random | --write] [--cgroup DIR]
 * --ops counts per process; --random (POSIX_FADV_RANDOM) turns readahead off,
 * so every file page becomes an order-0 folio of its own: one add, one LRU
 * insertion and one delete per page instead of per large folio.  --write
 * makes the page cache without reading a disk: each process creates
 * PATH.<n>, writes the chunk to it 4 KiB at a time (order-0 folios) and
 * truncates it to zero (the deletes), before writeback would ever start; the
 * file is removed at exit.  Reads wait for the disk, which on a VM makes the
 * wall time noisy; --write keeps the workload on the CPU.  --cgroup DIR
 * moves loadgen into that cgroup before it starts (the benchmark gives the
 * untraced and the trace-cmd runs a fresh memory cgroup, as hsctl record
 * gives its workload one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096u

/**
 * struct opts - what to do
 */
struct opts {
	unsigned long	ops;		/* ops per process; 0: run for seconds */
	double		seconds;	/* run time when ops is 0 */
	unsigned int	procs;		/* processes */
	unsigned long	anon_kb;	/* anonymous region per op, KiB */
	const char	*file;		/* file to read, or NULL for anon only */
	unsigned long	chunk_kb;	/* file bytes read per op, KiB */
	bool		random;		/* POSIX_FADV_RANDOM: no readahead, order-0 folios */
	bool		write;		/* write and truncate PATH.<n> instead of reading */
	const char	*cgroup;	/* join this cgroup directory first, or NULL */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void usage(void)
{
	fprintf(stderr, "usage: loadgen [--ops N | --seconds S] [--procs N] [--anon-kb K] "
		"[--file PATH] [--chunk-kb K] [--random | --write] [--cgroup DIR]\n");
	exit(64);
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		usage();
	return v;
}

/* One op: the anonymous round, then the file round at chunk @k of this process's region. */
static int one_op(const struct opts *o, int fd, off_t base, unsigned long nchunks,
		  unsigned long k, char *buf)
{
	size_t len = o->anon_kb * 1024;
	size_t clen = o->chunk_kb * 1024;
	off_t off;
	char *p;
	size_t i;

	if (len) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		/* No transparent huge pages: one fault per 4 KiB page, whatever the setting. */
		madvise(p, len, MADV_NOHUGEPAGE);
		for (i = 0; i < len; i += PAGE)
			p[i] = (char)(i >> 12);
		munmap(p, len);
	}
	if (fd >= 0 && o->write) {
		/* One 4 KiB write per page: each page becomes an order-0 folio of its own. */
		for (off = 0; off < (off_t)clen; off += PAGE)
			if (pwrite(fd, buf, PAGE, off) != (ssize_t)PAGE)
				return -EIO;
		if (ftruncate(fd, 0))
			return -errno;
	} else if (fd >= 0) {
		off = base + (off_t)((k % nchunks) * clen);
		if (pread(fd, buf, clen, off) != (ssize_t)clen)
			return -EIO;
		posix_fadvise(fd, off, (off_t)clen, POSIX_FADV_DONTNEED);
	}
	return 0;
}

/* Move this process (and so its workers) into cgroup directory @dir.  Return: 0 or -1. */
static int join_cgroup(const char *dir)
{
	char path[4096];
	FILE *f;
	int bad;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= sizeof(path)) {
		fprintf(stderr, "loadgen: %s: path too long\n", dir);
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "loadgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "%ld\n", (long)getpid());
	bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "loadgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* One process's share: @me-th region of the file.  Return: ops done, or -errno. */
static long worker(const struct opts *o, unsigned int me, double deadline)
{
	unsigned long nchunks = 1, k = 0;
	char path[4096];
	char *buf = NULL;
	off_t base = 0;
	struct stat st;
	int fd = -1;
	long ret;
	int err;

	if (o->file && o->write) {
		ret = -ENAMETOOLONG;
		if ((size_t)snprintf(path, sizeof(path), "%s.%u", o->file, me) >= sizeof(path))
			return ret;
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			return -errno;
		ret = -ENOMEM;
		buf = calloc(1, PAGE);
		if (!buf)
			goto out;
	} else if (o->file) {
		fd = open(o->file, O_RDONLY);
		if (fd < 0)
			return -errno;
		ret = -errno;
		if (fstat(fd, &st))
			goto out;
		ret = -EINVAL;
		nchunks = (unsigned long)st.st_size / o->procs / (o->chunk_kb * 1024);
		if (!nchunks)
			goto out;
		base = (off_t)(me * nchunks * o->chunk_kb * 1024);
		ret = -ENOMEM;
		buf = malloc(o->chunk_kb * 1024);
		if (!buf)
			goto out;
		/* Start from nothing cached, whatever ran before. */
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (o->random)
			posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	}
	for (k = 0; o->ops ? k < o->ops : now() < deadline; k++) {
		err = one_op(o, fd, base, nchunks, k, buf);
		if (err) {
			ret = err;
			goto out;
		}
	}
	ret = (long)k;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && o->write)
		unlink(path);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { .ops = 0, .seconds = 0, .procs = 1, .anon_kb = 1024,
			  .file = NULL, .chunk_kb = 256, .random = false,
			  .write = false, .cgroup = NULL };
	unsigned long total = 0;
	struct rusage self, kids;
	double t0, wall, user, sys;
	int pfd[2], i, status;
	unsigned int p;
	long n;
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--random")) {
			o.random = true;
			continue;
		}
		if (!strcmp(argv[i], "--write")) {
			o.write = true;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--ops"))
			o.ops = num(argv[++i]);
		else if (!strcmp(argv[i], "--seconds"))
			o.seconds = (double)num(argv[++i]);
		else if (!strcmp(argv[i], "--procs"))
			o.procs = (unsigned int)num(argv[++i]);
		else if (!strcmp(argv[i], "--anon-kb"))
			o.anon_kb = num(argv[++i]);
		else if (!strcmp(argv[i], "--file"))
			o.file = argv[++i];
		else if (!strcmp(argv[i], "--chunk-kb"))
			o.chunk_kb = num(argv[++i]);
		else if (!strcmp(argv[i], "--cgroup"))
			o.cgroup = argv[++i];
		else
			usage();
	}
	if ((!o.ops && o.seconds <= 0) || !o.procs || o.procs > 64 || (o.random && o.write) ||
	    (o.file && !o.chunk_kb) || (!o.file && !o.anon_kb))
		usage();
	if (o.cgroup && join_cgroup(o.cgroup))
		return 1;
	if (pipe(pfd)) {
		perror("loadgen: pipe");
		return 1;
	}
	t0 = now();
	for (p = 0; p < o.procs; p++) {
		pid = fork();
		if (pid < 0) {
			perror("loadgen: fork");
			return 1;
		}
		if (!pid) {
			close(pfd[0]);
			n = worker(&o, p, t0 + o.seconds);
			if (write(pfd[1], &n, sizeof(n)) != (ssize_t)sizeof(n))
				_exit(1);
			_exit(n < 0);
		}
	}
	close(pfd[1]);
	for (p = 0; p < o.procs; p++) {
		if (read(pfd[0], &n, sizeof(n)) != (ssize_t)sizeof(n) || n < 0) {
			fprintf(stderr, "loadgen: worker failed: %s\n",
				n < 0 ? strerror((int)-n) : "no result");
			return 1;
		}
		total += (unsigned long)n;
	}
	while (wait(&status) > 0)
		;
	wall = now() - t0;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	user = tv(self.ru_utime) + tv(kids.ru_utime);
	sys = tv(self.ru_stime) + tv(kids.ru_stime);
	printf("{\"ops\": %lu, \"procs\": %u, \"anon_kb\": %lu, \"chunk_kb\": %lu, "
	       "\"anon_pages\": %lu, \"file_pages\": %lu, \"wall_s\": %.6f, \"ops_per_s\": %.1f, "
	       "\"user_s\": %.6f, \"sys_s\": %.6f, \"cpu_s\": %.6f}\n",
	       total, o.procs, o.anon_kb, o.file ? o.chunk_kb : 0,
	       total * (o.anon_kb * 1024 / PAGE),
	       o.file ? total * (o.chunk_kb * 1024 / PAGE) : 0,
	       wall, wall > 0 ? (double)total / wall : 0.0, user, sys, user + sys);
	return 0;
}
