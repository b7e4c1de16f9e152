/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the lifecycle builder's tests share (t-lifecycle.c, t-lc-anon.c,
 * t-lc-task.c, t-lc-stream.c, one per idea of lifecycle.c's essay): event
 * constructors that read as a timeline, the expected meta bytes and lives, a
 * sink that records the access stream, and a builder opened with
 * HS_LC_PARANOID, so that hs_lifecycle_check() runs after every event of
 * every hand-built stream.
 */
#ifndef HS_LC_HARNESS_H
#define HS_LC_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"
#include "event.h"
#include "harness.h"
#include "lifecycle.h"

#define DEV	(((uint64_t)8 << 20) | 1)	/* kernel dev_t of sda1 (8:1) */
#define BDEV	((uint64_t)HS_LC_BDEV_DEV)	/* 0:3, the block-device page cache */

/* Event constructors: (time, pid, ...) */
#define ADD(t, p, i, x, f, o) { .ts_ns = (t), .pid = (p), .type = HS_EV_FILEMAP_ADD, \
	.dev = DEV, .ino = (i), .index = (x), .pfn = (f), .order = (o) }
#define DEL(t, p, i, x, f, o) { .ts_ns = (t), .pid = (p), .type = HS_EV_FILEMAP_DELETE, \
	.dev = DEV, .ino = (i), .index = (x), .pfn = (f), .order = (o) }
#define GP(t, p, i, x, l) { .ts_ns = (t), .pid = (p), .type = HS_EV_FILEMAP_GET_PAGES, \
	.dev = DEV, .ino = (i), .index = (x), .last = (l) }
#define MAPP(t, p, c, i, x, l) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_FILEMAP_MAP_PAGES, .dev = DEV, .ino = (i), .index = (x), .last = (l) }
#define FFAULT(t, p, c, i, x) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_FILEMAP_FAULT, .dev = DEV, .ino = (i), .index = (x) }
#define RA(t, p, i, x, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_READAHEAD, .dev = DEV, \
	.ino = (i), .index = (x), .a = (n) }
/* An asynchronous readahead (page_cache_async_ra): no page of it is a demand miss. */
#define ARA(t, p, i, x, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_READAHEAD, .dev = DEV, \
	.ino = (i), .index = (x), .a = (n), .flags = HS_EVF_ASYNC }
#define MBEGIN(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_MEMCG_RECLAIM_BEGIN }
#define MEND(t, p, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_MEMCG_RECLAIM_END, .a = (n) }
#define SHRINK(t, p, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_SHRINK_INACTIVE, .a = (n), \
	.c = 1 }
#define KWAKE(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_KSWAPD_WAKE }
#define KSLEEP(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_KSWAPD_SLEEP }
#define SLAB_S(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_SHRINK_SLAB_START }
#define SLAB_E(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_SHRINK_SLAB_END }
#define RPAGES(t, p, n) { .ts_ns = (t), .pid = (p), .type = HS_EV_RECLAIM_PAGES, .a = (n), \
	.b = (n) }
#define INS(t, p, c, f, fl) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_LRU_INSERTION, .pfn = (f), .b = (fl) }
#define ACT(t, p, f) { .ts_ns = (t), .pid = (p), .type = HS_EV_LRU_ACTIVATE, .pfn = (f) }
#define WF(t, p, f, fl) { .ts_ns = (t), .pid = (p), .type = HS_EV_WRITE_FOLIO, .pfn = (f), \
	.flags = (fl) }
#define PF(t, p, c, ad, e) { .ts_ns = (t), .pid = (p), .cpu = (c), \
	.type = HS_EV_PAGE_FAULT_USER, .addr = (ad), .a = (e) }
#define MADV(t, p, ad, len, beh) { .ts_ns = (t), .pid = (p), .type = HS_EV_MADVISE, \
	.addr = (ad), .a = (len), .b = (beh) }
#define FORK(t, p, child) { .ts_ns = (t), .pid = (p), .type = HS_EV_PROCESS_FORK, .a = (child) }
#define EXIT(t, p) { .ts_ns = (t), .pid = (p), .type = HS_EV_PROCESS_EXIT }
#define TNEW(t, p, child, fl) { .ts_ns = (t), .pid = (p), .type = HS_EV_TASK_NEW, \
	.a = (child), .b = (fl) }
#define LOST(t, n) { .ts_ns = (t), .type = HS_EV_LOST, .a = (n) }
#define TOUCH(t, p, i, x, fl) { .ts_ns = (t), .pid = (p), .type = HS_EV_TOUCH, .dev = DEV, \
	.ino = (i), .index = (x), .flags = (fl) }

/* clone_flags as this host's task_newtask showed them (testdata/decode/6.18-cpu0-newtask.txt) */
#define CL_THREAD	0x3d0f00	/* pthread_create: CLONE_VM | ... | CLONE_THREAD | ... */
#define CL_FORK		0x1200000	/* fork(): CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID */

/* lru_insertion flags as the kernel prints them */
#define LRU_FILE	0x04	/* file */
#define LRU_ANON_NEW	0x33	/* mapped | anon | swapbacked | mappedtodisk: first touch */
#define LRU_SWAPIN	0x1c	/* file | swapcache | swapbacked: a swap-in */

/* Meta bytes (lib/access.h: channel | 0x08 anon | 0x10 write) */
#define M_FD		0x00
#define M_PT		0x01
#define M_PT_W		0x11
#define M_DROP		0x04
#define M_RA		0x05	/* readahead insertion (file) */
#define M_APT		0x09	/* anon PT */
#define M_APT_W		0x19	/* anon PT, write */
#define M_APAGEOUT	0x0a
#define M_ACOLD		0x0b
#define M_ADROP		0x0c

#define A_F		HS_LIFE_FILE
#define A_A		HS_LIFE_ANON
#define A_B		HS_LIFE_BDEV
#define D_ALIVE		HS_DEATH_NONE
#define D_RECL		HS_DEATH_RECLAIM
#define D_PGOUT		HS_DEATH_PAGEOUT
#define D_TRUNC		HS_DEATH_TRUNCATE
#define D_UNK		HS_DEATH_UNKNOWN

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* The access-stream sink. */
struct rec {
	uint64_t	key;		/* key-table id */
	uint8_t		meta;		/* meta byte */
};

struct sink {
	struct rec	r[64];		/* records, in order */
	uint64_t	ts[64];		/* their times */
	size_t		n;		/* records received (may exceed 64: then lost) */
	size_t		fail_at;	/* fail the record with this number (1-based); 0 never */
};

#define STREAM_IS(s, ...) do { \
	static const struct rec x_[] = { __VA_ARGS__ }; \
	stream_is(__LINE__, (s), x_, N(x_)); \
} while (0)
#define STREAM_EMPTY(s) T_EQ_U64((s)->n, 0)

/* An expected life: who is the inode (file, bdev) or the tgid (anon). */
struct xl {
	uint8_t		kind;		/* enum hs_life_kind */
	uint64_t	who;		/* ino (file, bdev) or tgid (anon) */
	uint64_t	first;		/* first_page */
	uint64_t	pages;		/* pages */
	uint64_t	born;		/* born_ns */
	uint64_t	died;		/* died_ns */
	uint8_t		cause;		/* death_cause */
	uint8_t		flags;		/* HS_LIFE_F_* */
	bool		refault;	/* refault */
	uint64_t	dist;		/* refault_distance */
	uint64_t	rns;		/* refault_ns */
};

#define LIFE(lc, id, ...) life_is(__LINE__, (lc), (id), (struct xl){ __VA_ARGS__ })

int sink_emit(void *arg, uint64_t key, uint8_t meta, uint64_t ts);
void stream_is(int line, const struct sink *s, const struct rec *x, size_t n);
/* A builder with @flags (and HS_LC_PARANOID) streaming into @s, which is reset. */
struct hs_lifecycle *lc_open(unsigned int flags, struct sink *s);
/* Feed @n events; any error fails the case. */
void feed(struct hs_lifecycle *lc, const struct hs_event *ev, size_t n);
/* feed(), then hs_lifecycle_finish() and hs_lifecycle_check(). */
void feed_finish(struct hs_lifecycle *lc, const struct hs_event *ev, size_t n);
struct hs_lifecycle_checks checks(const struct hs_lifecycle *lc);
void life_is(int line, const struct hs_lifecycle *lc, size_t id, struct xl x);

#endif /* HS_LC_HARNESS_H */
