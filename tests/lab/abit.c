/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Does the CPU set a page-table entry's accessed bit again after the kernel
 * cleared it without flushing the TLB?  Run by tests/lab/abit.sh in a guest
 * with MGLRU on, as root, statically linked (busybox is all there is).
 *
 * x86's ptep_clear_flush_young() never flushes (arch/x86/mm/pgtable.c says
 * why), and MGLRU's aging walk clears with ptep_test_and_clear_young().  A
 * CPU sets the bit only when it walks the page tables, i.e. on a TLB miss,
 * so a translation that stays cached hides every later access from reclaim.
 * Real TLBs are small and lose entries soon; qemu's TCG keeps one until the
 * guest flushes.  Here a thread pinned to CPU 1 touches 256 anonymous pages
 * in a loop, in a memory cgroup of its own, while CPU 0 forces MGLRU aging
 * of that cgroup through debugfs five times; before each aging the pages'
 * accessed bits are read from /proc/self/smaps ("Referenced").  With "flush"
 * the thread also maps and unmaps 64 pages every 64 rounds: more than
 * tlb_single_page_flush_ceiling, so the kernel flushes the whole TLB.
 *
 * Prints one line per aging and a last one:
 *	abit MODE: accessed bits set again before K of 5 agings (pages promoted: P)
 * K = 5 is what the kernel assumes; K = 0 means the touches were invisible.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGES	256
#define PG	4096
#define AGINGS	5

static volatile char *buf;
static int flush_mode;
static volatile unsigned long rounds;

static void *toucher(void *arg)
{
	(void)arg;
	for (;;) {
		for (int i = 0; i < PAGES; i++)
			buf[i * PG] += 1;
		if (flush_mode && ++rounds % 64 == 0) {
			char *d = mmap(NULL, 64 * PG, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (d == MAP_FAILED)
				continue;
			for (int i = 0; i < 64; i++)
				d[i * PG] = 1;
			munmap(d, 64 * PG);
		} else if (!flush_mode) {
			rounds++;
		}
	}
	return NULL;
}

static void put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0) {
		fprintf(stderr, "abit: %s: %m\n", path);
		exit(1);
	}
	close(fd);
}

/* The cgroup's memcg id, its max_seq, and the seq holding most anon pages. */
static void lru_gen(int *id, unsigned long *max_seq, unsigned long *mode_seq)
{
	FILE *f = fopen("/sys/kernel/debug/lru_gen", "r");
	unsigned long seq, age, anon, file, most = 0;
	char line[256], path[128];
	int in = 0, mid;

	if (!f) {
		fprintf(stderr, "abit: /sys/kernel/debug/lru_gen: %m\n");
		exit(1);
	}
	*id = -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "memcg %d %127s", &mid, path) == 2) {
			in = !strcmp(path, "/abit");
			if (in)
				*id = mid;
		} else if (in && sscanf(line, " %lu %lu %lu %lu", &seq, &age, &anon, &file) == 4) {
			*max_seq = seq;
			if (anon > most) {
				most = anon;
				*mode_seq = seq;
			}
		}
	}
	fclose(f);
	if (*id < 0) {
		fprintf(stderr, "abit: no memcg /abit in lru_gen\n");
		exit(1);
	}
}

/* smaps "Referenced" of buf's mapping, in pages. */
static long referenced(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long lo, hi, a = (unsigned long)buf;
	char line[256];
	long kb = -1;
	int in = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = lo <= a && a < hi;
		else if (in && sscanf(line, "Referenced: %ld kB", &kb) == 1)
			in = 0;
	}
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb / 4;
}

int main(int argc, char **argv)
{
	unsigned long max_seq = 0, seq = 0, prev_max = 0;
	int id, again = 0, promoted = 0;
	pthread_t t;
	cpu_set_t c;
	char s[128];

	setvbuf(stdout, NULL, _IOLBF, 0);	/* each aging shows, even if the guest dies */
	flush_mode = argc > 1 && !strcmp(argv[1], "flush");
	mkdir("/sys/fs/cgroup/abit", 0755);
	snprintf(s, sizeof(s), "%d", getpid());
	put("/sys/fs/cgroup/abit/cgroup.procs", s);
	buf = mmap(NULL, PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	for (int i = 0; i < PAGES; i++)
		buf[i * PG] = 1;
	CPU_ZERO(&c);
	CPU_SET(0, &c);
	sched_setaffinity(0, sizeof(c), &c);
	if (pthread_create(&t, NULL, toucher, NULL))
		return 1;
	CPU_ZERO(&c);
	CPU_SET(1, &c);
	if (pthread_setaffinity_np(t, sizeof(c), &c)) {
		fprintf(stderr, "abit: cannot pin the toucher to CPU 1\n");
		return 1;
	}
	/* The first aging clears the bits the faults set. */
	usleep(300000);
	lru_gen(&id, &max_seq, &seq);
	snprintf(s, sizeof(s), "+ %d 0 %lu 1 1", id, max_seq);
	put("/sys/kernel/debug/lru_gen", s);
	for (int r = 0; r < AGINGS; r++) {
		long ref;

		usleep(300000);
		ref = referenced();
		lru_gen(&id, &max_seq, &seq);
		/* promoted by the previous aging: in the then youngest generation */
		if (r && seq == prev_max)
			promoted++;
		again += ref >= PAGES * 9 / 10;
		printf("abit %s: before aging %d: %ld of %d pages referenced, most in seq %lu of %lu, %lu rounds\n",
		       argv[1] ? argv[1] : "plain", r + 1, ref, PAGES, seq, max_seq, rounds);
		prev_max = max_seq;
		snprintf(s, sizeof(s), "+ %d 0 %lu 1 1", id, max_seq);
		put("/sys/kernel/debug/lru_gen", s);
	}
	usleep(300000);
	lru_gen(&id, &max_seq, &seq);
	if (seq == prev_max)
		promoted++;
	printf("abit %s: accessed bits set again before %d of %d agings (pages promoted: %d)\n",
	       flush_mode ? "flush" : "plain", again, AGINGS, promoted);
	return 0;
}
