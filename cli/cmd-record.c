/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl record: run a workload under a memory limit while capturing the
 * kernel's mm tracepoints, then build the session: every folio's life, the
 * access stream for replay, the kernel's own counters and self-checks.
 *
 * The work is split in two so the traced workload pays as little as possible:
 *
 *  recording  one reader thread per CPU (lib/capture.c) copies raw
 *             sub-buffers; a built-in workload's touch log arrives on a pipe;
 *             one writer thread appends both to the store's spool, committed
 *             about twice a second, so a killed recorder leaves its data
 *             behind.  Nothing is decoded on this path except a count for
 *             the progress line.
 *  building   after the workload, lib/recbuild.c decodes the spool, merges
 *             the CPUs by time stamp and runs the lifecycle builder, in one
 *             transaction with the counters and checks added here.
 *
 * Stopping: the workload's exit (status "complete"), SIGINT or SIGTERM
 * ("interrupted"; the workload gets the signal too), or --duration
 * ("timeout"; the workload gets SIGTERM, then SIGKILL 2 s later through the
 * cgroup).  Whatever stopped it, the session is built and kept.  A recording
 * whose hsctl was killed (SIGKILL, a crash) is built by the next `hsctl
 * record` on the same database, with status "killed"; its tracefs instance
 * and cgroup are removed then too.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "capture.h"
#include "cgroup.h"
#include "cmd.h"
#include "decode.h"
#include "event.h"
#include "fileio.h"
#include "hs.h"
#include "json.h"
#include "lifecycle.h"
#include "lrugen.h"
#include "output.h"
#include "parse.h"
#include "recbuild.h"
#include "sampling.h"
#include "store.h"
#include "workload.h"

#define SPOOL_MAX_BYTES		(512u << 20)	/* queued, not yet in SQLite: readers wait */
#define SPOOL_COMMIT_NS		500000000ull	/* commit the spool at least this often */
#define TOUCH_BLOB		(170 * sizeof(struct hs_touch))	/* 4080 bytes */
#define KILL_GRACE_S		2.0		/* SIGTERM, then SIGKILL after this */
#define LRUGEN_PERIOD_S		1.0		/* debugfs lru_gen snapshots */
#define LRUGEN_MAX_SNAPSHOTS	3600

enum {
	OPT_MEMORY_LIMIT = 0x100,
	OPT_DURATION,
	OPT_BUFFER_KB,
	OPT_NAME,
	OPT_WORKLOAD,
	OPT_FILE,
	OPT_DIR,
	OPT_SIZE,
	OPT_OPS,
	OPT_PASSES,
	OPT_RECORD_SIZE,
	OPT_THETA,
	OPT_SEED,
	OPT_NO_EVENTS,
	OPT_KEEP_SPOOL,
	OPT_LIST_EVENTS,
	OPT_SAMPLE,
};

struct args {
	uint64_t		limit_bytes;	/* --memory-limit, 0: none */
	double			duration;	/* --duration seconds, 0: none */
	unsigned int		buffer_kb;	/* --buffer-kb */
	const char		*name;		/* --name */
	struct hs_workload_opts	wopts;		/* --workload and its options */
	bool			wopt_set;	/* a workload option was given */
	bool			no_events;	/* --no-events */
	bool			keep_spool;	/* --keep-spool */
	bool			list_events;	/* --list-events */
	bool			sample_numa;	/* --sample numa */
	char			**cmd;		/* the command after "--" */
	int			cmd_argc;	/* its length */
};

static const struct argp_option options[] = {
	{ "memory-limit", 'm', "SIZE", 0,
	  "Memory cgroup limit for the workload and its children (K/M/G suffixes; "
	  "default: none, the cgroup only scopes)", 0 },
	{ "duration", OPT_DURATION, "SEC", 0, "Stop after SEC seconds (status timeout)", 0 },
	{ "buffer-kb", OPT_BUFFER_KB, "KB", 0, "Ring buffer per CPU in KiB (default: 8192)", 0 },
	{ "name", OPT_NAME, "NAME", 0, "Session name (default: the command or workload)", 0 },
	{ "no-events", OPT_NO_EVENTS, NULL, 0,
	  "Keep lives, stream and counters but not one row per kernel event", 0 },
	{ "keep-spool", OPT_KEEP_SPOOL, NULL, 0,
	  "Keep the raw sub-buffers (table record_spool) after the build", 0 },
	{ "sample", OPT_SAMPLE, "HOW", 0,
	  "numa: sample later accesses of a command through NUMA-balancing hinting faults "
	  "(visibility 'sampled'; multi-threaded processes only on one-node machines)", 0 },
	{ "list-events", OPT_LIST_EVENTS, NULL, 0,
	  "Print the tracepoints recorded on this kernel (system:event) and exit", 0 },
	{ 0, 0, 0, 0, "Built-in workloads (instead of a command):", 1 },
	{ "workload", 'w', "NAME", 0, "scan-twice, zipf-read, ycsb-f or loop", 1 },
	{ "file", OPT_FILE, "PATH", 0, "Data file to read (default: one is created)", 1 },
	{ "dir", OPT_DIR, "DIR", 0,
	  "Where to create the data file (default: $TMPDIR, else /var/tmp; not a tmpfs)", 1 },
	{ "size", OPT_SIZE, "SIZE", 0, "File size or anonymous working set (default: 256M)", 1 },
	{ "ops", OPT_OPS, "N", 0, "zipf-read and ycsb-f operations (default: 4 x pages)", 1 },
	{ "passes", OPT_PASSES, "N", 0, "scan-twice and loop passes (default: 2 and 3)", 1 },
	{ "record-size", OPT_RECORD_SIZE, "BYTES", 0, "ycsb-f record size (default: 1024)", 1 },
	{ "theta", OPT_THETA, "X", 0, "Zipf skew (default: 0.99)", 1 },
	{ "seed", OPT_SEED, "N", 0, "Random seed (default: 1)", 1 },
	{ 0 }
};

static const char *const sample_names[] = { "numa", NULL };

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	uint64_t v;

	switch (key) {
	case 'm':
		if (hs_parse_size(arg, 1, 0, 1ull << 50, &a->limit_bytes) ||
		    (a->limit_bytes && a->limit_bytes < (1u << 20)))
			argp_error(state, "--memory-limit '%s': expected a size from 1M to 1P "
				   "(K/M/G/T suffixes)", arg);
		break;
	case OPT_DURATION:
		if (hs_parse_double(arg, 0.01, 31536000, &a->duration))
			argp_error(state, "--duration '%s': expected seconds from 0.01 to 31536000",
				   arg);
		break;
	case OPT_BUFFER_KB:
		if (hs_parse_u64(arg, 8, 4u << 20, &v))
			argp_error(state, "--buffer-kb '%s': expected KiB from 8 to 4194304", arg);
		a->buffer_kb = (unsigned int)v;
		break;
	case OPT_NAME:
		a->name = arg;
		break;
	case OPT_NO_EVENTS:
		a->no_events = true;
		break;
	case OPT_KEEP_SPOOL:
		a->keep_spool = true;
		break;
	case OPT_LIST_EVENTS:
		a->list_events = true;
		break;
	case OPT_SAMPLE:
		hs_cli_argp_choice(state, "sampling", arg, sample_names);
		a->sample_numa = true;
		break;
	case 'w':
		a->wopts.name = arg;
		break;
	case OPT_FILE:
		a->wopts.file = arg;
		a->wopt_set = true;
		break;
	case OPT_DIR:
		a->wopts.dir = arg;
		a->wopt_set = true;
		break;
	case OPT_SIZE:
		if (hs_parse_size(arg, 1, 4096, 1ull << 40, &a->wopts.size))
			argp_error(state, "--size '%s': expected a size from 4K to 1T", arg);
		a->wopt_set = true;
		break;
	case OPT_OPS:
		if (hs_parse_u64(arg, 1, 1000000000000ull, &a->wopts.ops))
			argp_error(state, "--ops '%s': expected a number from 1 to 10^12", arg);
		a->wopt_set = true;
		break;
	case OPT_PASSES:
		if (hs_parse_u64(arg, 1, 1000000, &v))
			argp_error(state, "--passes '%s': expected a number from 1 to 1000000", arg);
		a->wopts.passes = (unsigned int)v;
		a->wopt_set = true;
		break;
	case OPT_RECORD_SIZE:
		if (hs_parse_u64(arg, 1, 1u << 30, &v))
			argp_error(state, "--record-size '%s': expected bytes from 1 to 1G", arg);
		a->wopts.record_size = (unsigned int)v;
		a->wopt_set = true;
		break;
	case OPT_THETA:
		if (hs_parse_double(arg, 0.0001, 9.9999, &a->wopts.theta))
			argp_error(state, "--theta '%s': expected a number in (0, 10)", arg);
		a->wopt_set = true;
		break;
	case OPT_SEED:
		if (hs_parse_u64(arg, 0, UINT64_MAX, &a->wopts.seed))
			argp_error(state, "--seed '%s': expected an unsigned number", arg);
		a->wopt_set = true;
		break;
	case ARGP_KEY_ARGS:
		a->cmd = state->argv + state->next;
		a->cmd_argc = state->argc - state->next;
		break;
	case ARGP_KEY_END:
		if (a->list_events)
			break;
		if (a->wopts.name && a->cmd_argc)
			argp_error(state, "give --workload or a command after --, not both");
		if (!a->wopts.name && !a->cmd_argc)
			argp_error(state, "nothing to record: give --workload NAME or -- CMD ARGS...");
		if (a->wopt_set && !a->wopts.name)
			argp_error(state, "workload options need --workload");
		if (a->sample_numa && a->wopts.name)
			argp_error(state, "--sample is for commands: built-in workloads log every "
				   "touch already");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "[-- CMD [ARGS...]]\n--workload NAME [WORKLOAD OPTIONS]",
	.children = hs_format_children,
	.doc = "Run a workload in a memory cgroup while recording the kernel's mm tracepoints;\n"
	       "store every folio's life and the access stream as a new session.\v"
	       "EXAMPLES:\n"
	       "    hsctl record -m 64M --workload scan-twice --size 200M\n"
	       "    hsctl record -m 64M --workload ycsb-f --size 160M --ops 1000000 --seed 11\n"
	       "    hsctl record -m 256M -D 60 --name build -- make -j2\n"
	       "    hsctl replay 1 --policy all              # capacity: the memory limit\n"
	       "    hsctl sql \"SELECT death_cause, count(*) FROM v_folio_lives GROUP BY 1\"\n"
	       "\nNeeds root: tracefs (mounted for the run when it is not) and a memory cgroup.\n"
	       "Built-in workloads log their own page touches, so their sessions are exact;\n"
	       "a command's accesses are what the kernel shows (faults, reads): visibility\n"
	       "'faults'. See hsctl-record(1) and hsctl-db(5).\n"
	       "\nExit status: 0 recorded (whatever the workload's own status, which is\n"
	       "printed and stored), 130 or 143 stopped by SIGINT or SIGTERM with the session\n"
	       "kept, 64 usage error, 69 no root, tracefs or memory cgroup, 1 the recording\n"
	       "itself failed.",
};

/* ---- the spool: raw sub-buffers and touch blobs on their way to SQLite ---- */

#define BLOB_CAP		4096u		/* data bytes of a pooled blob (one sub-buffer) */
#define BLOB_POOL_MAX		4096u		/* free blobs kept for reuse (16 MiB) */

struct blob {
	struct blob	*next;		/* queue or free-list link */
	int		cpu;		/* CPU, or HS_SPOOL_TOUCHES */
	size_t		len;		/* bytes in data */
	size_t		cap;		/* bytes data can hold */
	unsigned char	data[];		/* the sub-buffer or touches */
};

struct spool {
	pthread_mutex_t	lock;		/* protects everything below */
	pthread_cond_t	more;		/* a blob was queued or the queue closed */
	pthread_cond_t	room;		/* bytes fell below SPOOL_MAX_BYTES */
	struct blob	*head;		/* oldest */
	struct blob	*tail;		/* newest */
	struct blob	*pool;		/* free blobs of BLOB_CAP bytes: a malloc/free per
					 * sub-buffer grew and trimmed the heap (page faults
					 * were the recorder's biggest cost) */
	unsigned int	nr_pool;	/* blobs in pool */
	size_t		bytes;		/* queued */
	bool		closed;		/* no more blobs will come */
	int		err;		/* first store error (then blobs are dropped) */
	uint64_t	dropped;	/* blobs dropped after an error */
	struct hs_store	*st;		/* written by the writer thread only */
	int64_t		session;	/* the recording */
	uint64_t	*seq;		/* next seq per CPU; [nr_cpus] is the touch stream */
	unsigned int	nr_cpus;	/* CPUs the seq array covers */
	size_t		subbuf;		/* the kernel's sub-buffer size */
	unsigned char	*stage;		/* per CPU STAGE_SUBBUFS sub-buffers, one spool row */
	size_t		*stage_len;	/* bytes staged per CPU */
	char		errmsg[256];	/* the store's message for err */
};

/*
 * Whole sub-buffers of one CPU go into the spool 16 to a row: a row per
 * sub-buffer cost SQLite's per-row work 16 times (lib/recbuild.c splits
 * rows by the sub-buffer size again).
 */
#define STAGE_SUBBUFS		16u

static int spool_push(struct spool *q, int cpu, const void *data, size_t len)
{
	struct blob *b = NULL;

	if (len <= BLOB_CAP) {
		pthread_mutex_lock(&q->lock);
		b = q->pool;
		if (b) {
			q->pool = b->next;
			q->nr_pool--;
		}
		pthread_mutex_unlock(&q->lock);
	}
	if (!b) {
		size_t cap = HS_MAX(len, (size_t)BLOB_CAP);

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return -ENOMEM;
		b->cap = cap;
	}
	b->next = NULL;
	b->cpu = cpu;
	b->len = len;
	memcpy(b->data, data, len);
	pthread_mutex_lock(&q->lock);
	while (q->bytes > SPOOL_MAX_BYTES && !q->err)
		pthread_cond_wait(&q->room, &q->lock);
	if (q->tail)
		q->tail->next = b;
	else
		q->head = b;
	q->tail = b;
	q->bytes += len;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/*
 * Fill the pool before tracing starts, touching every page: hsctl's own
 * threads are not traced, yet the folios they allocate share the per-CPU
 * LRU batches with the workload's, and an insertion no traced fault
 * explains blurs the builder's pairing of anonymous faults and folios.
 */
#define BLOB_PREFILL		1024u

static int spool_prefill(struct spool *q)
{
	struct blob *b;
	unsigned int i;

	for (i = 0; i < BLOB_PREFILL; i++) {
		b = malloc(sizeof(*b) + BLOB_CAP);
		if (!b)
			return -ENOMEM;
		memset(b, 0, sizeof(*b) + BLOB_CAP);
		b->cap = BLOB_CAP;
		b->next = q->pool;
		q->pool = b;
		q->nr_pool++;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spool_fail(struct spool *q, int err);

/* Write CPU @cpu's staged sub-buffers as one spool row (inside the transaction). */
static void stage_flush(struct spool *q, unsigned int cpu)
{
	int err;

	if (q->stage_len[cpu] && !q->err) {
		err = hs_spool_add(q->st, q->session, (int)cpu, q->seq[cpu]++,
				   q->stage + (size_t)cpu * STAGE_SUBBUFS * q->subbuf,
				   q->stage_len[cpu]);
		if (err)
			spool_fail(q, err);
	}
	q->stage_len[cpu] = 0;
}

static void stage_flush_all(struct spool *q)
{
	unsigned int cpu;

	for (cpu = 0; cpu < q->nr_cpus; cpu++)
		stage_flush(q, cpu);
}

/* One blob into the spool: whole sub-buffers are staged, anything else written. */
static void spool_write(struct spool *q, const struct blob *b)
{
	unsigned int slot = b->cpu < 0 ? q->nr_cpus : (unsigned int)b->cpu;
	size_t *have;
	int err;

	if (slot > q->nr_cpus)
		return;
	if (b->cpu >= 0 && b->len == q->subbuf) {
		have = &q->stage_len[slot];
		memcpy(q->stage + (size_t)slot * STAGE_SUBBUFS * q->subbuf + *have, b->data,
		       b->len);
		*have += b->len;
		if (*have == STAGE_SUBBUFS * q->subbuf)
			stage_flush(q, slot);
		return;
	}
	if (b->cpu >= 0)
		stage_flush(q, slot);	/* keep the CPU's order */
	if (q->err)
		return;
	err = hs_spool_add(q->st, q->session, b->cpu, q->seq[slot]++, b->data, b->len);
	if (err)
		spool_fail(q, err);
}

static void spool_fail(struct spool *q, int err)
{
	if (q->err)
		return;
	q->err = err;
	snprintf(q->errmsg, sizeof(q->errmsg), "%s", hs_store_errmsg(q->st));
	pthread_cond_broadcast(&q->room);
}

/* The writer thread: the only user of the store while recording. */
static void *spool_writer(void *arg)
{
	struct spool *q = arg;
	uint64_t last_commit = now_ns();
	bool in_tx = false;
	struct blob *b;
	int err;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head && !q->closed) {
			struct timespec until;

			if (in_tx) {
				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_nsec += 200000000;
				if (until.tv_nsec >= 1000000000) {
					until.tv_sec++;
					until.tv_nsec -= 1000000000;
				}
				if (pthread_cond_timedwait(&q->more, &q->lock, &until) == ETIMEDOUT)
					break;
			} else {
				pthread_cond_wait(&q->more, &q->lock);
			}
		}
		b = q->head;
		if (b) {
			q->head = b->next;
			if (!q->head)
				q->tail = NULL;
			q->bytes -= b->len;
			pthread_cond_broadcast(&q->room);
		}
		if (!b && q->closed)
			break;
		pthread_mutex_unlock(&q->lock);

		if (b && !q->err) {
			if (!in_tx) {
				err = hs_store_tx_begin(q->st);
				if (err)
					spool_fail(q, err);
				else
					in_tx = true;
			}
			if (!q->err)
				spool_write(q, b);
		} else if (b) {
			q->dropped++;
		}
		if (b && b->cap == BLOB_CAP && q->nr_pool < BLOB_POOL_MAX) {
			pthread_mutex_lock(&q->lock);
			b->next = q->pool;
			q->pool = b;
			q->nr_pool++;
			pthread_mutex_unlock(&q->lock);
		} else {
			free(b);
		}
		if (in_tx && (q->err || !b || now_ns() - last_commit > SPOOL_COMMIT_NS)) {
			if (!q->err)
				stage_flush_all(q);
			if (q->err) {
				hs_store_tx_rollback(q->st);
			} else {
				err = hs_store_tx_commit(q->st);
				if (err)
					spool_fail(q, err);
			}
			in_tx = false;
			last_commit = now_ns();
		}
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	if (in_tx) {
		if (!q->err)
			stage_flush_all(q);
		err = q->err ? 0 : hs_store_tx_commit(q->st);
		if (q->err)
			hs_store_tx_rollback(q->st);
		else if (err)
			spool_fail(q, err);
	}
	return NULL;
}

/* ---- what the readers count for the progress line ---- */

struct cpu_count {
	struct hs_decoder *dec;		/* this CPU's own decoder (they keep stats) */
	_Atomic uint64_t events;	/* records decoded */
	_Atomic uint64_t folios;	/* page cache adds and anon LRU insertions */
	_Atomic uint64_t missed;	/* in-band lost events (known counts) */
};

struct recorder {
	struct spool	q;		/* the spool queue */
	struct cpu_count *cnt;		/* per CPU, [nr_cpus] */
	unsigned int	nr_cpus;	/* configured CPUs */
	int		cb_err;		/* first on_subbuf failure */
	_Atomic uint64_t touches;	/* touch records received */
	int		touch_fd;	/* read end of the touch pipe, or -1 */
	bool		count;		/* decode for the progress line (stderr is a terminal) */
};

static int count_event(void *arg, const struct hs_event *ev)
{
	struct cpu_count *c = arg;

	if (ev->type == HS_EV_LOST) {
		if (ev->a != UINT64_MAX)
			atomic_fetch_add_explicit(&c->missed, ev->a, memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&c->events, 1, memory_order_relaxed);
	if (ev->type == HS_EV_FILEMAP_ADD ||
	    (ev->type == HS_EV_LRU_INSERTION && (ev->b & 2)))
		atomic_fetch_add_explicit(&c->folios, 1, memory_order_relaxed);
	return 0;
}

static int on_subbuf(void *arg, int cpu, const void *buf, size_t len)
{
	struct recorder *r = arg;

	if (cpu < 0 || (unsigned int)cpu >= r->nr_cpus)
		return -EINVAL;
	/*
	 * Counting costs a decode per sub-buffer, the recorder's main CPU cost
	 * on this path: only for the progress line.  A corrupt sub-buffer is
	 * still spooled: the build counts and skips it.
	 */
	if (r->count)
		hs_decoder_subbuf(r->cnt[cpu].dec, buf, len, cpu, count_event, &r->cnt[cpu]);
	return spool_push(&r->q, cpu, buf, len);
}

/* The touch log reader: whole records into blobs of TOUCH_BLOB bytes. */
static void *touch_reader(void *arg)
{
	struct recorder *r = arg;
	unsigned char buf[TOUCH_BLOB];
	size_t have = 0;
	ssize_t n;

	for (;;) {
		n = read(r->touch_fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (have == sizeof(buf)) {
			if (spool_push(&r->q, HS_SPOOL_TOUCHES, buf, have))
				break;
			atomic_fetch_add(&r->touches, have / sizeof(struct hs_touch));
			have = 0;
		}
	}
	if (have) {
		/* A partial record at the end is kept: the build counts it as bad. */
		if (!spool_push(&r->q, HS_SPOOL_TOUCHES, buf, have))
			atomic_fetch_add(&r->touches, have / sizeof(struct hs_touch));
	}
	return NULL;
}

/* ---- small file helpers (the kernel's own files only: no shell-outs) ---- */

/* Kernel files read here are small: 16 MiB is absurd already. */
static int read_text(const char *path, char **out, size_t *len)
{
	return hs_read_file(path, 16u << 20, out, len);
}

/* "0x0007" from /sys/kernel/mm/lru_gen/enabled, or "absent". */
static void lru_gen_state(char *buf, size_t size)
{
	size_t len;
	char *t;

	if (read_text("/sys/kernel/mm/lru_gen/enabled", &t, &len)) {
		snprintf(buf, size, "absent");
		return;
	}
	t[strcspn(t, "\n")] = '\0';
	snprintf(buf, size, "%s", t);
	free(t);
}

/* kswapd threads, from /proc/<pid>/comm. */
static size_t find_kswapd(int32_t *pids, size_t max)
{
	char path[64], *comm;
	struct dirent *de;
	size_t n = 0, len;
	DIR *d = opendir("/proc");
	long pid;

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (read_text(path, &comm, &len))
			continue;
		if (!strncmp(comm, "kswapd", 6))
			pids[n++] = (int32_t)pid;
		free(comm);
	}
	closedir(d);
	return n;
}

/* Keep the format files the decoder read, so another process can decode the spool. */
static int save_formats(struct hs_store *st, int64_t session, const char *tdir,
			const struct hs_decoder *dec, char *errbuf, size_t errlen)
{
	char path[PATH_MAX], rel[512], *text;
	const struct hs_decoder_source *s;
	size_t i, len;
	int err;

	for (i = 0; i <= hs_decoder_nr_sources(dec); i++) {
		if (i == hs_decoder_nr_sources(dec)) {
			snprintf(rel, sizeof(rel), "events/header_page");
		} else {
			s = hs_decoder_source(dec, i);
			snprintf(rel, sizeof(rel), "events/%s/%s/format", s->system, s->name);
		}
		snprintf(path, sizeof(path), "%s/%s", tdir, rel);
		err = read_text(path, &text, &len);
		if (err) {
			snprintf(errbuf, errlen, "%.400s: %s", path, strerror(-err));
			return err;
		}
		err = hs_record_save_format(st, session, rel, text, len);
		free(text);
		if (err) {
			snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
			return err;
		}
	}
	return 0;
}

/* ---- lru_gen snapshots (kernels with MGLRU) ---- */

struct lrugen_snap {
	uint64_t	ts_ns;		/* CLOCK_MONOTONIC = the mono trace clock */
	char		*text;		/* /sys/kernel/debug/lru_gen */
	size_t		len;		/* its length */
};

struct lrugen_log {
	struct lrugen_snap *snap;	/* taken so far */
	size_t		n;		/* their number */
	bool		enabled;	/* debugfs lru_gen is readable */
};

static void lrugen_take(struct lrugen_log *lg)
{
	struct lrugen_snap *ns;
	size_t len;
	char *t;

	if (!lg->enabled || lg->n >= LRUGEN_MAX_SNAPSHOTS)
		return;
	if (read_text("/sys/kernel/debug/lru_gen", &t, &len)) {
		lg->enabled = false;
		return;
	}
	ns = realloc(lg->snap, (lg->n + 1) * sizeof(*ns));
	if (!ns) {
		free(t);
		return;
	}
	lg->snap = ns;
	lg->snap[lg->n++] = (struct lrugen_snap){ now_ns(), t, len };
}

static void lrugen_free(struct lrugen_log *lg)
{
	size_t i;

	for (i = 0; i < lg->n; i++)
		free(lg->snap[i].text);
	free(lg->snap);
}

/* ---- the workload process ---- */

struct child {
	pid_t		pid;		/* the workload's first task */
	int		go_fd;		/* write end: one byte starts it */
	int		err_fd;		/* read end: errno of a failed exec, else EOF */
	int		status;		/* wait status once reaped */
	bool		reaped;		/* status is valid */
	uint64_t	start_ns;	/* released at */
	uint64_t	end_ns;		/* reaped at */
};

static void child_fail(int err_fd, int err)
{
	ssize_t HS_UNUSED n = write(err_fd, &err, sizeof(err));

	_exit(127);
}

/*
 * Fork the workload before any thread exists: the child joins the cgroup,
 * waits for the go byte, then runs the built-in workload or execs the command.
 */
static int start_child(struct child *c, const struct hs_cgroup *cg, struct hs_workload *wl,
		       char **cmd, int touch_wfd, int touch_rfd)
{
	int go[2], ep[2], err;
	sigset_t none;
	char byte;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return err;
	}
	if (!c->pid) {
		close(go[1]);
		close(ep[0]);
		if (touch_rfd >= 0)
			close(touch_rfd);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		err = cg ? hs_cgroup_attach(cg, 0) : 0;
		if (err)
			child_fail(ep[1], -err);
		while (read(go[0], &byte, 1) < 0 && errno == EINTR)
			;
		close(go[0]);
		if (wl) {
			/* No exec to close it: EOF on the error pipe says "running". */
			close(ep[1]);
			signal(SIGPIPE, SIG_IGN);
			err = hs_workload_run(wl, touch_wfd);
			_exit(err ? 1 : 0);
		}
		execvp(cmd[0], cmd);
		child_fail(ep[1], errno);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

/* Release the child; returns 0, or the child's errno when it could not start. */
static int release_child(struct child *c)
{
	ssize_t n;
	int err = 0;

	c->start_ns = now_ns();
	n = write(c->go_fd, "g", 1);
	close(c->go_fd);
	c->go_fd = -1;
	if (n != 1)
		return -EIO;
	/* EOF on the error pipe: exec succeeded (CLOEXEC) or the workload runs. */
	do {
		n = read(c->err_fd, &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == sizeof(err) ? -err : 0;
}

static bool child_reap(struct child *c, int flags)
{
	pid_t p;

	if (c->reaped)
		return true;
	do {
		p = waitpid(c->pid, &c->status, flags);
	} while (p < 0 && errno == EINTR);
	if (p == c->pid) {
		c->reaped = true;
		c->end_ns = now_ns();
	}
	return c->reaped;
}

/* ---- printing ---- */

struct summary {
	int64_t		session;	/* the new session */
	const char	*status;	/* complete, interrupted, timeout */
	int		wexit;		/* workload exit status, -1 if signalled */
	int		wsig;		/* the signal, or 0 */
	double		runtime_s;	/* workload runtime */
	uint64_t	events;		/* kernel events */
	uint64_t	lost;		/* exact loss */
	uint64_t	touches;	/* workload touches */
	uint64_t	lives;		/* folio lives */
	uint64_t	reclaimed;	/* pages that died by reclaim */
	uint64_t	refaults;	/* lives that were refaults */
	uint64_t	accesses;	/* stream accesses */
	uint64_t	limit_pages;	/* memory limit */
	const char	*visibility;	/* exact / faults */
	double		record_cpu_s;	/* hsctl's CPU while recording */
	double		build_s;	/* the build */
	uint64_t	rows;		/* rows the build wrote */
};

static void print_summary(const struct summary *s)
{
	if (hs_global.format == HS_FMT_JSON) {
		struct hs_json j;

		hs_json_init(&j, stdout, HS_JSON_SPACED);
		hs_json_object(&j);
		hs_json_key(&j, "session");
		hs_json_int(&j, s->session);
		hs_json_key(&j, "status");
		hs_json_str(&j, s->status);
		hs_json_key(&j, "workload_exit");
		hs_json_int(&j, s->wexit);
		hs_json_key(&j, "workload_signal");
		hs_json_int(&j, s->wsig);
		hs_json_key(&j, "runtime_s");
		hs_json_fixed(&j, s->runtime_s, 3);
		hs_json_key(&j, "events");
		hs_json_uint(&j, s->events);
		hs_json_key(&j, "lost_events");
		hs_json_uint(&j, s->lost);
		hs_json_key(&j, "touches");
		hs_json_uint(&j, s->touches);
		hs_json_key(&j, "lives");
		hs_json_uint(&j, s->lives);
		hs_json_key(&j, "reclaimed_pages");
		hs_json_uint(&j, s->reclaimed);
		hs_json_key(&j, "refaults");
		hs_json_uint(&j, s->refaults);
		hs_json_key(&j, "accesses");
		hs_json_uint(&j, s->accesses);
		hs_json_key(&j, "memory_limit_pages");
		hs_json_uint(&j, s->limit_pages);
		hs_json_key(&j, "visibility");
		hs_json_str(&j, s->visibility);
		hs_json_key(&j, "record_cpu_s");
		hs_json_fixed(&j, s->record_cpu_s, 3);
		hs_json_key(&j, "build_s");
		hs_json_fixed(&j, s->build_s, 3);
		hs_json_key(&j, "rows");
		hs_json_uint(&j, s->rows);
		hs_json_end(&j);
		putchar('\n');
		return;
	}
	if (hs_global.format == HS_FMT_CSV) {
		printf("session,status,workload_exit,workload_signal,runtime_s,events,lost_events,"
		       "touches,lives,reclaimed_pages,refaults,accesses,memory_limit_pages,"
		       "visibility\n");
		printf("%" PRId64 ",%s,%d,%d,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s\n", s->session,
		       s->status, s->wexit, s->wsig, s->runtime_s, s->events, s->lost, s->touches,
		       s->lives, s->reclaimed, s->refaults, s->accesses, s->limit_pages,
		       s->visibility);
		return;
	}
	printf("session %" PRId64 ": %s, %.1f s; %" PRIu64 " events (%" PRIu64 " lost), %"
	       PRIu64 " folio lives (%" PRIu64 " pages reclaimed, %" PRIu64 " refaults), %"
	       PRIu64 " accesses (%s)\n", s->session, s->status, s->runtime_s, s->events,
	       s->lost, s->lives, s->reclaimed, s->refaults, s->accesses, s->visibility);
	if (s->wsig)
		printf("workload killed by signal %d (%s)\n", s->wsig, strsignal(s->wsig));
	else if (s->wexit >= 0)
		printf("workload exited with status %d\n", s->wexit);
	else
		printf("workload did not run\n");
}

static void show_progress(struct hs_cli_progress *pr, struct recorder *r, bool force)
{
	uint64_t ev = 0, fo = 0, mi = 0;
	double el;
	unsigned int i;

	if (!hs_cli_progress_due(pr, force, &el))
		return;
	for (i = 0; i < r->nr_cpus; i++) {
		ev += atomic_load_explicit(&r->cnt[i].events, memory_order_relaxed);
		fo += atomic_load_explicit(&r->cnt[i].folios, memory_order_relaxed);
		mi += atomic_load_explicit(&r->cnt[i].missed, memory_order_relaxed);
	}
	fprintf(stderr, "\rrecord: %6.1fs  %8.0f events/s  %" PRIu64 " events  lost %" PRIu64
		"  folios %" PRIu64 "  touches %" PRIu64 " ", el, el > 0 ? (double)ev / el : 0.0,
		ev, mi, fo, atomic_load(&r->touches));
}

/* ---- building a session from the spool ---- */

struct build_in {
	int64_t		session;	/* the recording */
	const char	*status;	/* its final status */
	struct hs_decoder *dec;		/* or NULL: from the saved formats */
	const struct hs_record_meta *rm; /* what was recorded (NULL: recovery) */
	struct hs_workload *wl;		/* the built-in workload, or NULL */
	int32_t		pid;		/* the workload's first task, 0: unknown */
	bool		no_events;	/* --no-events */
	const struct hs_kvlist *vm[2];	/* /proc/vmstat before, after (or NULL) */
	const struct hs_kvlist *ms[2];	/* memory.stat before, after (or NULL) */
	const struct hs_capture_stats *cs; /* capture counters (or NULL) */
	const struct recorder *rec;	/* per-CPU event counts (or NULL) */
	const struct lrugen_log *lg;	/* lru_gen snapshots (or NULL) */
	struct hs_record_result res;	/* filled in here: events, build_s, ... */
	uint64_t	cache_pages;	/* file workloads: cachestat nr_cache at the end */
	bool		cache_known;	/* cache_pages is valid */
	int		cache_err;	/* else why not (-ENOSYS before 6.5); 0: no file */
};

static int add_kv_deltas(struct hs_session_writer *w, const char *file, const char *scope,
			 const struct hs_kvlist *before, const struct hs_kvlist *after)
{
	uint64_t b;
	size_t i;
	int err;

	if (!before || !after)
		return 0;
	for (i = 0; i < after->n; i++) {
		if (hs_kvlist_get(before, after->kv[i].name, &b))
			continue;
		err = hs_rec_add_counter(w, file, scope, after->kv[i].name, b, after->kv[i].value);
		if (err)
			return err;
	}
	return 0;
}

static uint64_t kv_delta(const struct hs_kvlist *before, const struct hs_kvlist *after,
			 const char *name, bool *found)
{
	uint64_t b, a;

	*found = before && after && !hs_kvlist_get(before, name, &b) &&
		 !hs_kvlist_get(after, name, &a);
	return *found && a >= b ? a - b : 0;
}

/*
 * A swap check: @got against the machine's @counter delta.  A zero-filled
 * page is not written to the swap device (6.12+): it counts as @zero
 * (swpout_zero, swpin_zero), not as pswpout/pswpin, so both are added.
 */
static int add_swap_check(struct hs_session_writer *w, const struct build_in *in,
			  const char *name, uint64_t got, const char *counter, const char *zero,
			  const char *what, const char *tail)
{
	bool found, zfound;
	char note[256];
	uint64_t d;

	d = kv_delta(in->vm[0], in->vm[1], counter, &found) +
	    kv_delta(in->vm[0], in->vm[1], zero, &zfound);
	snprintf(note, sizeof(note), "%s vs the machine's %s%s%s delta%s", what, counter,
		 zfound ? " + " : "", zfound ? zero : "", tail);
	return hs_rec_add_check(w, name, !found ? "n/a" : got == d ? "ok" : "differs",
				(double)got, (double)d, note);
}

/* The recorder's own checks, beside the lifecycle builder's. */
static int add_checks(struct hs_session_writer *w, const struct build_in *in,
		      const struct hs_lifecycle_checks *ck, uint64_t file_alive)
{
	char note[256];
	int err;

	err = add_swap_check(w, in, "swap-out", ck->swap_outs, "pswpout", "swpout_zero",
			     "anon lives ended by swap-out (write_folio)", ", which counts every "
			     "process");
	if (!err)
		err = add_swap_check(w, in, "swap-in", ck->swap_ins, "pswpin", "swpin_zero",
				     "inferred swap-ins (faults on swapped-out pages)", "");
	if (err)
		return err;
	if (in->cache_known) {
		snprintf(note, sizeof(note), "pages of the workload's file alive at the end vs "
			 "cachestat(2) nr_cache");
		err = hs_rec_add_check(w, "cachestat", file_alive == in->cache_pages ? "ok"
										      : "differs",
				       (double)file_alive, (double)in->cache_pages, note);
		if (err)
			return err;
	} else if (in->cache_err) {
		snprintf(note, sizeof(note), "cachestat(2) of the workload's file: %s%s",
			 strerror(-in->cache_err),
			 in->cache_err == -ENOSYS ? " (the syscall is Linux 6.5+)" : "");
		err = hs_rec_add_check(w, "cachestat", "n/a", 0, 0, note);
		if (err)
			return err;
	}
	/*
	 * Kernels without mm_vmscan_lru_shrink_inactive (6.1 with MGLRU) still
	 * close every memcg/direct/node reclaim with its nr_reclaimed: the
	 * deaths inside those windows must add up to it (kswapd has no end
	 * event, so its reclaim makes the deaths larger).
	 */
	snprintf(note, sizeof(note), "pages of lives that died by reclaim vs the sum of "
		 "nr_reclaimed of the *_reclaim_end events (kswapd has none)");
	err = hs_rec_add_check(w, "reclaim-end",
			       ck->reclaim_death_pages == ck->reclaim_end_reclaimed ? "ok"
										 : "differs",
			       (double)ck->reclaim_death_pages, (double)ck->reclaim_end_reclaimed,
			       note);
	if (err)
		return err;
	return 0;
}

static int add_cpus(struct hs_session_writer *w, const struct build_in *in)
{
	const struct hs_capture_cpu *c;
	unsigned int i;
	uint64_t ev;
	int err;

	if (!in->cs)
		return 0;
	for (i = 0; i < in->cs->nr_cpus; i++) {
		c = &in->cs->cpu[i];
		/* the kernel's own count of events read from this CPU's buffer */
		ev = c->read_events;
		err = hs_rec_add_cpu(w, (int)i, c->subbufs, c->bytes, ev, c->overrun,
				     c->commit_overrun, c->dropped);
		if (err)
			return err;
	}
	return 0;
}

static int add_lrugen(struct hs_session_writer *w, const struct lrugen_log *lg)
{
	struct hs_lrugen *p;
	char perr[128];
	size_t i;
	int err;

	for (i = 0; lg && i < lg->n; i++) {
		if (hs_lrugen_parse(lg->snap[i].text, lg->snap[i].len, &p, perr, sizeof(perr)))
			continue;	/* an unparsable snapshot is skipped, not fatal */
		err = hs_rec_add_lrugen(w, lg->snap[i].ts_ns, p);
		hs_lrugen_free(p);
		if (err)
			return err;
	}
	return 0;
}

static int build_session(struct hs_store *st, struct build_in *in, struct summary *sum,
			 char *errbuf, size_t errlen)
{
	struct hs_recbuild_opts o = { 0 };
	struct hs_recbuild_result br = { 0 };
	struct hs_lifecycle_checks ck = { 0 };
	struct hs_session_writer *w = NULL;
	struct hs_session_info si;
	int32_t kswapd[64];
	uint64_t t0 = now_ns();
	int err;

	o.decoder = in->dec;
	o.meta.source = "record";
	o.meta.id = in->session;
	o.meta.status = in->status;
	o.meta.unit = "page";
	if (in->rm) {
		o.meta.name = in->rm->name;
		o.meta.origin = in->rm->origin;
		o.meta.format = in->rm->workload ? in->rm->workload : "command";
		o.meta.kind = in->rm->kind;
		o.meta.channel = in->rm->channel;
		o.meta.params_json = in->rm->params_json;
		o.meta.visibility = in->rm->visibility;
		o.touch_only = in->wl != NULL;
	} else {
		o.meta.format = "recovered";
		o.meta.visibility = "faults";
	}
	o.workload_pid = in->pid;
	o.no_events = in->no_events;
	if (in->wl && hs_workload_file(in->wl, &o.touch_dev, &o.touch_ino))
		o.touch_dev = o.touch_ino = 0;
	o.nr_kswapd = find_kswapd(kswapd, ARRAY_SIZE(kswapd));
	o.kswapd_pids = kswapd;

	err = hs_recbuild(st, &o, &w, &ck, &br, errbuf, errlen);
	if (err)
		return err;
	in->res.status = in->status;
	in->res.events = br.events;
	in->res.touches = br.touches;
	in->res.lost_gaps = br.gaps;
	err = add_kv_deltas(w, "vmstat", "machine", in->vm[0], in->vm[1]);
	if (!err)
		err = add_kv_deltas(w, "memory.stat", "cgroup", in->ms[0], in->ms[1]);
	if (!err)
		err = add_checks(w, in, &ck, br.touch_file_alive);
	if (!err)
		err = add_cpus(w, in);
	if (!err)
		err = add_lrugen(w, in->lg);
	in->res.build_s = (double)(now_ns() - t0) / 1e9;
	if (!err)
		err = hs_rec_finish(w, &in->res);
	if (err) {
		snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
		hs_session_abort(w);
		return err;
	}
	err = hs_session_commit(w, NULL);
	if (err) {
		snprintf(errbuf, errlen, "%s", hs_store_errmsg(st));
		return err;
	}

	sum->session = in->session;
	sum->status = in->status;
	sum->events = br.events;
	sum->touches = br.touches;
	sum->lives = br.lives;
	sum->reclaimed = ck.death_pages[HS_DEATH_RECLAIM];
	sum->refaults = ck.refaults;
	sum->build_s = in->res.build_s;
	sum->rows = br.rows;
	if (!hs_session_get(st, in->session, &si))
		sum->accesses = si.accesses;
	return 0;
}

/* Build the recordings of recorders that died (same host, pid gone) as "killed". */
static void recover_stale(struct hs_store *st)
{
	struct hs_stale_recording *sr = NULL;
	struct summary sum = { 0 };
	char host[64] = "", errbuf[512];
	size_t i, n = 0;
	int err;

	if (hs_record_list_open(st, &sr, &n))
		return;
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	for (i = 0; i < n; i++) {
		struct build_in in = { .session = sr[i].session, .status = "killed" };

		if (strcmp(sr[i].host, host) || sr[i].pid <= 0 ||
		    !(kill(sr[i].pid, 0) && errno == ESRCH))
			continue;
		in.res.workload_exit = -1;
		err = build_session(st, &in, &sum, errbuf, sizeof(errbuf));
		if (err) {
			hs_warn("session %" PRId64 " of a killed recorder (pid %d) could not be "
				"built: %s", sr[i].session, (int)sr[i].pid, errbuf);
			continue;
		}
		hs_spool_drop(st, sr[i].session);
		hs_warn("session %" PRId64 " of a killed recorder (pid %d) built from its spool: "
			"%" PRIu64 " events, status killed", sr[i].session, (int)sr[i].pid,
			sum.events);
	}
	free(sr);
}

/* ---- the command ---- */

static int list_events(void)
{
	struct hs_capture_opts co = { .on_subbuf = on_subbuf };
	const struct hs_decoder_source *s;
	struct hs_capture *c = NULL;
	struct hs_decoder *d = NULL;
	size_t i;
	int err;

	err = hs_capture_open(&co, &c);
	if (err) {
		hs_err("%s", c ? hs_capture_errmsg(c) : strerror(-err));
		hs_capture_close(c);
		return err == -ENOMEM ? HS_EXIT_FAILURE : HS_EXIT_UNAVAILABLE;
	}
	err = hs_decoder_open(hs_capture_tracing_dir(c), HS_DEC_ALL, &d);
	if (err) {
		hs_err("tracefs: %s", d ? hs_decoder_errmsg(d) : strerror(-err));
		hs_decoder_free(d);
		hs_capture_close(c);
		return HS_EXIT_FAILURE;
	}
	for (i = 0; i < hs_decoder_nr_sources(d); i++) {
		s = hs_decoder_source(d, i);
		printf("%s:%s\n", s->system, s->name);
	}
	hs_decoder_free(d);
	hs_capture_close(c);
	return HS_EXIT_OK;
}

static char *join_argv(char **argv, int argc)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* ["sys:event", ...] of what the decoder enabled, or NULL. */
static char *events_json(const struct hs_decoder *d)
{
	const struct hs_decoder_source *s;
	struct hs_json j;
	char *text = NULL, *name;
	size_t i;

	if (hs_json_init_mem(&j, 0))
		return NULL;
	hs_json_array(&j);
	for (i = 0; i < hs_decoder_nr_sources(d); i++) {
		s = hs_decoder_source(d, i);
		if (asprintf(&name, "%s:%s", s->system, s->name) < 0) {
			hs_json_take(&j, &text);
			free(text);
			return NULL;
		}
		hs_json_str(&j, name);
		free(name);
	}
	hs_json_end(&j);
	if (hs_json_take(&j, &text))
		return NULL;
	return text;
}

/* The recording's options as the session's params (a JSON object), or NULL. */
static char *record_params_json(uint64_t limit, double duration, unsigned int buffer_kb,
				const char *workload_json)
{
	struct hs_json j;
	char *text = NULL;

	if (hs_json_init_mem(&j, 0))
		return NULL;
	hs_json_object(&j);
	hs_json_key(&j, "memory_limit");
	hs_json_uint(&j, limit);
	hs_json_key(&j, "duration");
	hs_json_fixed(&j, duration, 3);
	hs_json_key(&j, "buffer_kb");
	hs_json_uint(&j, buffer_kb);
	hs_json_key(&j, "workload");
	hs_json_raw(&j, workload_json);
	hs_json_end(&j);
	if (hs_json_take(&j, &text))
		return NULL;
	return text;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Pages of @path in the page cache: cachestat(2) (Linux 6.5+), -ENOSYS before. */
static int file_cached_pages(const char *path, uint64_t *pages)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = hs_cachestat(fd, pages);
	close(fd);
	return err;
}

struct rec_state {
	struct args		a;		/* options */
	struct hs_store		*st;		/* the database */
	struct hs_workload	*wl;		/* built-in workload, or NULL */
	struct hs_capture	*cap;		/* the tracefs capture */
	struct hs_decoder	*dec;		/* for the build (and the saved formats) */
	struct hs_cgroup	*cg;		/* the workload's cgroup */
	struct recorder		rec;		/* spool and counters */
	struct child		child;		/* the workload */
	struct hs_record_meta	rm;		/* what is recorded */
	struct hs_kvlist	vm[2];		/* /proc/vmstat before and after */
	struct hs_kvlist	ms[2];		/* memory.stat before and after */
	struct lrugen_log	lg;		/* lru_gen snapshots */
	struct hs_sampling	*smp;		/* --sample numa: what to restore */
	int64_t			session;	/* the recording's session */
	int			touch_pipe[2];	/* workload touches */
	pthread_t		writer;		/* spool writer */
	pthread_t		toucher;	/* touch reader */
	bool			writer_up;	/* writer started */
	bool			toucher_up;	/* touch reader started */
	char			*origin;	/* the command line or workload */
	char			*evjson;	/* enabled events */
	char			*params;	/* options as JSON */
	char			kernel[128];	/* uname -r */
	char			lrugen[32];	/* lru_gen state */
	char			err[512];	/* reason of a failure */
};

static void stop_threads(struct rec_state *s)
{
	if (s->toucher_up) {
		pthread_join(s->toucher, NULL);
		s->toucher_up = false;
	}
	if (s->touch_pipe[0] >= 0) {
		close(s->touch_pipe[0]);
		s->touch_pipe[0] = -1;
	}
	if (s->writer_up) {
		pthread_mutex_lock(&s->rec.q.lock);
		s->rec.q.closed = true;
		pthread_cond_broadcast(&s->rec.q.more);
		pthread_mutex_unlock(&s->rec.q.lock);
		pthread_join(s->writer, NULL);
		s->writer_up = false;
	}
}

static void state_free(struct rec_state *s)
{
	unsigned int i;
	struct blob *b;

	stop_threads(s);
	if (s->child.pid > 0 && !s->child.reaped) {
		kill(s->child.pid, SIGKILL);
		child_reap(&s->child, 0);
	}
	if (s->child.go_fd >= 0)
		close(s->child.go_fd);
	if (s->child.err_fd >= 0)
		close(s->child.err_fd);
	if (s->touch_pipe[1] >= 0)
		close(s->touch_pipe[1]);
	hs_cgroup_destroy(s->cg);
	hs_capture_close(s->cap);
	hs_decoder_free(s->dec);
	if (s->rec.cnt)
		for (i = 0; i < s->rec.nr_cpus; i++)
			hs_decoder_free(s->rec.cnt[i].dec);
	free(s->rec.cnt);
	while ((b = s->rec.q.head)) {
		s->rec.q.head = b->next;
		free(b);
	}
	while ((b = s->rec.q.pool)) {
		s->rec.q.pool = b->next;
		free(b);
	}
	free(s->rec.q.seq);
	free(s->rec.q.stage);
	free(s->rec.q.stage_len);
	pthread_mutex_destroy(&s->rec.q.lock);
	pthread_cond_destroy(&s->rec.q.more);
	pthread_cond_destroy(&s->rec.q.room);
	hs_workload_free(s->wl);
	for (i = 0; i < 2; i++) {
		hs_kvlist_free(&s->vm[i]);
		hs_kvlist_free(&s->ms[i]);
	}
	lrugen_free(&s->lg);
	hs_sampling_free(s->smp);
	free(s->origin);
	free(s->evjson);
	free(s->params);
	hs_store_close(s->st);
}

/* Everything up to the recording's session row.  Return: 0 or an exit status. */
static int setup(struct rec_state *s)
{
	struct hs_capture_opts co = { .buffer_kb = s->a.buffer_kb, .on_subbuf = on_subbuf,
				      .arg = &s->rec };
	const struct hs_decoder_source *src;
	struct utsname un;
	size_t i;
	long ncpu;
	int err;

	if (s->a.wopts.name) {
		err = hs_workload_prepare(&s->a.wopts, &s->wl, s->err, sizeof(s->err));
		if (err) {
			hs_err("workload: %s", s->err);
			return err == -EINVAL ? HS_EXIT_USAGE : hs_exit_from_errno(err);
		}
	}
	err = hs_cli_open_store(0, &s->st);
	if (err)
		return err;
	recover_stale(s->st);

	err = hs_capture_open(&co, &s->cap);
	if (err) {
		hs_err("%s", s->cap ? hs_capture_errmsg(s->cap) : strerror(-err));
		return err == -ENOMEM || err == -EIO ? HS_EXIT_FAILURE : HS_EXIT_UNAVAILABLE;
	}
	err = hs_decoder_open(hs_capture_tracing_dir(s->cap), HS_DEC_ALL, &s->dec);
	if (err) {
		hs_err("tracefs: %s", s->dec ? hs_decoder_errmsg(s->dec) : strerror(-err));
		return HS_EXIT_FAILURE;
	}
	for (i = 0; i < hs_decoder_nr_sources(s->dec); i++) {
		src = hs_decoder_source(s->dec, i);
		err = hs_capture_enable(s->cap, src->system, src->name);
		if (err && err != -ENOENT) {
			hs_err("tracefs: %s", hs_capture_errmsg(s->cap));
			return HS_EXIT_FAILURE;
		}
	}
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	s->rec.nr_cpus = ncpu > 0 ? (unsigned int)ncpu : 1;
	s->rec.cnt = calloc(s->rec.nr_cpus, sizeof(*s->rec.cnt));
	s->rec.q.seq = calloc(s->rec.nr_cpus + 1, sizeof(*s->rec.q.seq));
	s->rec.q.nr_cpus = s->rec.nr_cpus;
	s->rec.q.subbuf = hs_decoder_subbuf_size(s->dec);
	s->rec.q.stage = malloc((size_t)s->rec.nr_cpus * STAGE_SUBBUFS * s->rec.q.subbuf);
	s->rec.q.stage_len = calloc(s->rec.nr_cpus, sizeof(*s->rec.q.stage_len));
	if (!s->rec.cnt || !s->rec.q.seq || !s->rec.q.stage || !s->rec.q.stage_len)
		goto nomem;
	/* touched now, not while the workload runs (see spool_prefill()) */
	memset(s->rec.q.stage, 0, (size_t)s->rec.nr_cpus * STAGE_SUBBUFS * s->rec.q.subbuf);
	/* one decoder per CPU (they keep stats), for the progress line only */
	for (i = 0; s->rec.count && i < s->rec.nr_cpus; i++) {
		err = hs_decoder_open(hs_capture_tracing_dir(s->cap), HS_DEC_ALL,
				      &s->rec.cnt[i].dec);
		if (err) {
			hs_err("tracefs: %s", s->rec.cnt[i].dec ?
			       hs_decoder_errmsg(s->rec.cnt[i].dec) : strerror(-err));
			return HS_EXIT_FAILURE;
		}
	}

	err = hs_cgroup_create(s->a.limit_bytes, &s->cg, s->err, sizeof(s->err));
	if (err) {
		hs_err("memory cgroup: %s", s->err);
		return err == -ENOMEM || err == -EIO ? HS_EXIT_FAILURE : HS_EXIT_UNAVAILABLE;
	}

	s->origin = s->wl ? NULL : join_argv(s->a.cmd, s->a.cmd_argc);
	s->evjson = events_json(s->dec);
	if ((!s->wl && !s->origin) || !s->evjson)
		goto nomem;
	if (uname(&un))
		snprintf(s->kernel, sizeof(s->kernel), "unknown");
	else
		snprintf(s->kernel, sizeof(s->kernel), "%s", un.release);
	lru_gen_state(s->lrugen, sizeof(s->lrugen));
	s->lg.enabled = strcmp(s->lrugen, "absent") && !access("/sys/kernel/debug/lru_gen", R_OK);
	s->params = record_params_json(hs_cgroup_limit(s->cg), s->a.duration,
				       s->a.buffer_kb ? s->a.buffer_kb : 8192,
				       s->wl ? hs_workload_describe(s->wl) : NULL);
	if (!s->params)
		goto nomem;

	s->rm.name = s->a.name;
	s->rm.workload = s->a.wopts.name;
	s->rm.origin = s->wl ? s->a.wopts.name : s->origin;
	s->rm.params_json = s->params;
	if (s->wl && hs_workload_file(s->wl, &(uint64_t){ 0 }, &(uint64_t){ 0 })) {
		s->rm.kind = "anon";
		s->rm.channel = "pt";
	} else {
		s->rm.kind = "file";
		s->rm.channel = s->wl ? "fd" : "pt";
	}
	s->rm.visibility = s->wl ? "exact" : s->a.sample_numa ? "sampled" : "faults";
	s->rm.kernel = s->kernel;
	s->rm.lru_gen = s->lrugen;
	s->rm.clock = "mono";
	s->rm.instance = hs_capture_instance(s->cap);
	s->rm.cgroup = hs_cgroup_path(s->cg);
	s->rm.cgroup_version = hs_cgroup_version(s->cg);
	s->rm.memory_limit_pages = hs_cgroup_limit(s->cg) / 4096;
	s->rm.buffer_kb = s->a.buffer_kb ? s->a.buffer_kb : 8192;
	s->rm.page_size = (unsigned int)sysconf(_SC_PAGESIZE);
	s->rm.events_json = s->evjson;
	err = hs_record_create(s->st, &s->rm, &s->session);
	if (err)
		return hs_cli_store_err(s->st, HS_EXIT_FAILURE);
	err = save_formats(s->st, s->session, hs_capture_tracing_dir(s->cap), s->dec, s->err,
			   sizeof(s->err));
	if (err) {
		hs_err("record: %s", s->err);
		return HS_EXIT_FAILURE;
	}
	s->rec.q.st = s->st;
	s->rec.q.session = s->session;
	if (spool_prefill(&s->rec.q))
		goto nomem;
	return 0;
nomem:
	hs_err("record: %s", strerror(ENOMEM));
	return HS_EXIT_FAILURE;
}

enum stop_reason { STOP_EXIT, STOP_SIGNAL, STOP_TIMEOUT };

/* Wait for the workload, a signal or the deadline; keep the progress line and lru_gen. */
static enum stop_reason wait_workload(struct rec_state *s, const sigset_t *set, int *signo)
{
	struct timespec tick = { 0, 250000000 };
	struct hs_cli_progress pr;
	bool tty = isatty(STDERR_FILENO);
	double next_lg = 0, el;
	siginfo_t si;
	int sig;

	hs_cli_progress_start(&pr);
	for (;;) {
		el = (double)(now_ns() - s->child.start_ns) / 1e9;
		if (s->lg.enabled && el >= next_lg) {
			lrugen_take(&s->lg);
			next_lg = el + LRUGEN_PERIOD_S;
		}
		if (tty)
			show_progress(&pr, &s->rec, false);
		if (child_reap(&s->child, WNOHANG)) {
			hs_cli_progress_end(&pr, 100);
			/*
			 * Ctrl-C reaches the whole foreground group: the workload may
			 * die of it before we look.  A pending SIGINT/SIGTERM still
			 * makes this an interruption.
			 */
			sig = sigtimedwait(set, &si, &(struct timespec){ 0, 0 });
			while (sig == SIGCHLD)
				sig = sigtimedwait(set, &si, &(struct timespec){ 0, 0 });
			if (sig == SIGINT || sig == SIGTERM) {
				*signo = sig;
				return STOP_SIGNAL;
			}
			return STOP_EXIT;
		}
		if (s->a.duration > 0 && el >= s->a.duration) {
			hs_cli_progress_end(&pr, 100);
			return STOP_TIMEOUT;
		}
		sig = sigtimedwait(set, &si, &tick);
		if (sig == SIGINT || sig == SIGTERM) {
			hs_cli_progress_end(&pr, 100);
			*signo = sig;
			return STOP_SIGNAL;
		}
	}
}

/* SIGTERM to the workload's cgroup members, then SIGKILL after the grace time. */
static void stop_workload(struct rec_state *s, int sig)
{
	uint64_t until;
	pid_t *pids = NULL;
	size_t i, n = 0;

	if (s->child.reaped)
		return;
	if (!hs_cgroup_pids(s->cg, &pids, &n)) {
		for (i = 0; i < n; i++)
			kill(pids[i], sig);
		free(pids);
	}
	kill(s->child.pid, sig);
	until = now_ns() + (uint64_t)(KILL_GRACE_S * 1e9);
	while (!child_reap(&s->child, WNOHANG) && now_ns() < until)
		usleep(20000);
	if (!s->child.reaped) {
		kill(s->child.pid, SIGKILL);
		child_reap(&s->child, 0);
	}
}

static int run(int argc, char **argv)
{
	struct rec_state s = { .touch_pipe = { -1, -1 },
			       .child = { .go_fd = -1, .err_fd = -1 } };
	struct hs_capture_stats cs = { 0 };
	struct hs_capture_cpu *cpus = NULL;
	struct summary sum = { 0 };
	struct build_in in = { 0 };
	enum stop_reason why = STOP_EXIT;
	sigset_t set, old;
	double cpu0;
	int status, err, signo = 0;
	uint64_t peak;

	pthread_mutex_init(&s.rec.q.lock, NULL);
	pthread_cond_init(&s.rec.q.more, NULL);
	pthread_cond_init(&s.rec.q.room, NULL);
	s.rec.touch_fd = -1;
	s.rec.count = isatty(STDERR_FILENO);
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &s.a)) {
		state_free(&s);
		return HS_EXIT_USAGE;
	}
	/* argp with ARGP_IN_ORDER hands everything after "--" as ARGP_KEY_ARGS. */
	if (s.a.list_events) {
		state_free(&s);
		if (geteuid()) {
			hs_err("record: tracefs needs root (euid %u)", (unsigned int)geteuid());
			return HS_EXIT_UNAVAILABLE;
		}
		return list_events();
	}
	if (geteuid()) {
		state_free(&s);
		hs_err("record: needs root for tracefs and a memory cgroup (euid %u)",
		       (unsigned int)geteuid());
		return HS_EXIT_UNAVAILABLE;
	}

	/* SIGINT, SIGTERM and SIGCHLD are taken by sigtimedwait() only; threads inherit. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);

	status = setup(&s);
	if (status)
		goto out;
	if (s.wl && pipe2(s.touch_pipe, O_CLOEXEC)) {
		hs_err("record: pipe: %s", strerror(errno));
		status = HS_EXIT_FAILURE;
		goto out_drop;
	}
	/* The child first: no thread exists yet (fork in a threaded process is fragile). */
	err = start_child(&s.child, s.cg, s.wl, s.a.cmd, s.touch_pipe[1], s.touch_pipe[0]);
	if (err) {
		hs_err("record: fork: %s", strerror(-err));
		status = HS_EXIT_FAILURE;
		goto out_drop;
	}
	if (s.touch_pipe[1] >= 0) {
		close(s.touch_pipe[1]);
		s.touch_pipe[1] = -1;
	}
	s.rec.touch_fd = s.touch_pipe[0];
	/*
	 * While the workload runs the spool only appends: no WAL checkpoints
	 * then (they read the log back and write every page a second time, the
	 * writer's largest cost); the first one comes with the build.
	 */
	if (hs_store_query(s.st, "PRAGMA wal_autocheckpoint = 0", NULL, NULL))
		hs_info("%s: cannot defer checkpoints: %s", hs_global.db, hs_store_errmsg(s.st));
	if (pthread_create(&s.writer, NULL, spool_writer, &s.rec.q)) {
		hs_err("record: cannot start a thread");
		status = HS_EXIT_FAILURE;
		goto out_drop;
	}
	s.writer_up = true;
	if (s.wl) {
		if (pthread_create(&s.toucher, NULL, touch_reader, &s.rec)) {
			hs_err("record: cannot start a thread");
			status = HS_EXIT_FAILURE;
			goto out_drop;
		}
		s.toucher_up = true;
	}

	if (hs_vmstat_read(&s.vm[0]))
		memset(&s.vm[0], 0, sizeof(s.vm[0]));
	if (hs_cgroup_stat(s.cg, &s.ms[0]))
		memset(&s.ms[0], 0, sizeof(s.ms[0]));
	cpu0 = cpu_seconds();
	err = hs_capture_start(s.cap);
	if (err) {
		hs_err("tracefs: %s", hs_capture_errmsg(s.cap));
		status = HS_EXIT_FAILURE;
		goto out_drop;
	}
	if (s.a.sample_numa) {
		err = hs_sampling_numa_enable(&s.smp, s.err, sizeof(s.err));
		if (err) {
			hs_err("--sample numa: %s", s.err);
			hs_capture_stop(s.cap);
			status = hs_exit_from_errno(err) == HS_EXIT_UNAVAILABLE ||
				 err == -ENOENT ? HS_EXIT_UNAVAILABLE : HS_EXIT_FAILURE;
			goto out_drop;
		}
		hs_info("sampling: %s", hs_sampling_describe(s.smp));
	}
	err = release_child(&s.child);
	if (err) {
		hs_err("record: cannot run '%s': %s", s.wl ? s.a.wopts.name : s.a.cmd[0],
		       strerror(-err));
		hs_capture_stop(s.cap);
		status = HS_EXIT_FAILURE;
		goto out_drop;
	}

	why = wait_workload(&s, &set, &signo);
	if (why == STOP_SIGNAL)
		stop_workload(&s, signo);
	else if (why == STOP_TIMEOUT)
		stop_workload(&s, SIGTERM);
	lrugen_take(&s.lg);	/* the generations as the workload left them */

	hs_sampling_restore(s.smp);
	err = hs_capture_stop(s.cap);
	if (err)
		hs_warn("tracefs: a reader stopped early: %s", strerror(-err));
	stop_threads(&s);
	hs_store_query(s.st, "PRAGMA wal_autocheckpoint = 1000", NULL, NULL);
	hs_capture_get_stats(s.cap, &cs);
	/* cs.cpu belongs to the capture, which is closed before the build: keep a copy */
	cpus = calloc(cs.nr_cpus ? cs.nr_cpus : 1, sizeof(*cpus));
	if (!cpus) {
		hs_err("record: %s", strerror(ENOMEM));
		status = HS_EXIT_FAILURE;
		goto out;
	}
	memcpy(cpus, cs.cpu, cs.nr_cpus * sizeof(*cpus));
	cs.cpu = cpus;
	in.res.record_cpu_s = cpu_seconds() - cpu0;
	if (s.rec.q.err) {
		hs_err("%s: spool: %s", hs_global.db, s.rec.q.errmsg);
		status = HS_EXIT_FAILURE;
		goto out;
	}
	if (hs_vmstat_read(&s.vm[1]))
		memset(&s.vm[1], 0, sizeof(s.vm[1]));
	if (hs_cgroup_stat(s.cg, &s.ms[1]))
		memset(&s.ms[1], 0, sizeof(s.ms[1]));
	if (!hs_cgroup_peak(s.cg, &peak))
		in.res.peak_pages = peak / 4096;
	if (s.wl && hs_workload_path(s.wl)) {
		in.cache_err = file_cached_pages(hs_workload_path(s.wl), &in.cache_pages);
		in.cache_known = !in.cache_err;
	}
	err = hs_cgroup_destroy(s.cg);
	s.cg = NULL;
	if (err)
		hs_warn("memory cgroup: could not remove it: %s (the next record will)",
			strerror(-err));

	if (cs.lost)
		hs_warn("%" PRIu64 " events lost (ring buffer overrun); the session marks the gaps;"
			" a larger --buffer-kb helps", cs.lost);
	in.session = s.session;
	in.status = why == STOP_EXIT ? "complete" : why == STOP_TIMEOUT ? "timeout"
									: "interrupted";
	in.dec = s.dec;
	in.rm = &s.rm;
	in.wl = s.wl;
	in.pid = s.child.pid;
	in.no_events = s.a.no_events;
	in.vm[0] = &s.vm[0];
	in.vm[1] = &s.vm[1];
	in.ms[0] = &s.ms[0];
	in.ms[1] = &s.ms[1];
	in.cs = &cs;
	in.rec = &s.rec;
	in.lg = &s.lg;
	in.res.workload_exit = WIFEXITED(s.child.status) ? WEXITSTATUS(s.child.status) : -1;
	in.res.workload_signal = WIFSIGNALED(s.child.status) ? WTERMSIG(s.child.status) : 0;
	in.res.runtime_ns = s.child.end_ns - s.child.start_ns;
	in.res.lost_events = cs.lost;
	in.res.subbufs = cs.subbufs;
	in.res.bytes = cs.bytes;
	in.res.touches = atomic_load(&s.rec.touches);

	/* Tear the kernel side down before the build: nothing of ours stays traced. */
	hs_capture_close(s.cap);
	s.cap = NULL;
	err = build_session(s.st, &in, &sum, s.err, sizeof(s.err));
	if (err) {
		hs_err("record: building session %" PRId64 ": %s (its spool is kept; the next "
		       "'hsctl record' retries)", s.session, s.err);
		status = HS_EXIT_FAILURE;
		goto out;
	}
	if (!s.a.keep_spool && hs_spool_drop(s.st, s.session))
		hs_warn("%s: spool of session %" PRId64 ": %s", hs_global.db, s.session,
			hs_store_errmsg(s.st));
	sum.wexit = in.res.workload_exit;
	sum.wsig = in.res.workload_signal;
	sum.runtime_s = (double)in.res.runtime_ns / 1e9;
	sum.lost = cs.lost;
	sum.limit_pages = s.rm.memory_limit_pages;
	sum.visibility = s.rm.visibility;
	sum.record_cpu_s = in.res.record_cpu_s;
	print_summary(&sum);
	status = why == STOP_SIGNAL ? 128 + signo : HS_EXIT_OK;
	goto out;

out_drop:
	/* Nothing worth keeping was recorded: remove the session row and its spool. */
	stop_threads(&s);
	if (s.session && hs_session_remove(s.st, s.session))
		hs_warn("%s: session %" PRId64 " left in status recording: %s", hs_global.db,
			s.session, hs_store_errmsg(s.st));
out:
	free(cpus);
	state_free(&s);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

const struct hs_cmd hs_cmd_record = {
	.name = "record",
	.summary = "Record a workload's page cache and reclaim under a memory limit",
	.run = run,
};
