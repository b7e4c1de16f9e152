/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl record: run a workload under a memory limit while capturing the
 * kernel's mm tracepoints, then build the session: every folio's life, the
 * access stream for replay, the kernel's own counters and self-checks.
 *
 * The recording itself is lib/recorder.c (struct hs_recorder: the capture,
 * the cgroup, the workload's process, the spool and its writer thread, the
 * build, stale-session recovery).  This command parses the options, opens
 * the database, runs the recorder with a progress line on a terminal, turns
 * SIGINT and SIGTERM into hs_recorder_stop(), prints the summary and maps
 * the outcome to the exit status.
 *
 * Stopping: the workload's exit (status "complete"), SIGINT or SIGTERM
 * ("interrupted"; the workload gets the signal too), or --duration
 * ("timeout"; the workload gets SIGTERM, then SIGKILL 2 s later through the
 * cgroup).  Whatever stopped it, the session is built and kept.  A recording
 * whose hsctl was killed (SIGKILL, a crash) is built by the next `hsctl
 * record` on the same database, with status "killed"; before that, every
 * change it made to the host (its undo note, lib/undo.h: the cgroup and
 * what still runs in it, numa_balancing, the tracefs instance, tracefs
 * mounted by it, its data file) is put back, one warning line each
 * (hs_recorder_recover(); `hsctl db recover` does the same on demand).
 *
 * HSCTL_TEST_PAUSE=workload or =build (tests only, tests/cli/recover-live.sh):
 * the process stops itself with SIGSTOP once everything is set up but the
 * workload not released, or inside the build's transaction, for a test to
 * SIGKILL it at exactly that point.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cmd.h"
#include "decode.h"
#include "hs.h"
#include "json.h"
#include "parse.h"
#include "recorder.h"
#include "store.h"
#include "undo.h"
#include "workload.h"

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
	OPT_HOT_SIZE,
	OPT_PROCS,
	OPT_SEED,
	OPT_NO_EVENTS,
	OPT_NO_TLB_EVENTS,
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
	bool			no_tlb_events;	/* --no-tlb-events */
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
	  "Keep lives, stream and counters but not one row per kernel event (and so no "
	  "TLB events)", 0 },
	{ "no-tlb-events", OPT_NO_TLB_EVENTS, NULL, 0,
	  "Do not record the workload's TLB flushes, switches in and migrations (the "
	  "replay's TLB model; recorded by default for a one-process built-in workload)", 0 },
	{ "keep-spool", OPT_KEEP_SPOOL, NULL, 0,
	  "Keep the raw sub-buffers (table record_spool) after the build", 0 },
	{ "sample", OPT_SAMPLE, "HOW", 0,
	  "numa: sample later accesses of a command through NUMA-balancing hinting faults "
	  "(visibility 'sampled'; multi-threaded processes only on one-node machines)", 0 },
	{ "list-events", OPT_LIST_EVENTS, NULL, 0,
	  "Print the tracepoints recorded on this kernel (system:event) and exit", 0 },
	{ 0, 0, 0, 0, "Built-in workloads (instead of a command):", 1 },
	{ "workload", 'w', "NAME", 0,
	  "scan-twice, zipf-read, ycsb-f, loop, scan-hot, ycsb-load or shared-map", 1 },
	{ "file", OPT_FILE, "PATH", 0, "Data file to read (default: one is created)", 1 },
	{ "dir", OPT_DIR, "DIR", 0,
	  "Where to create the data file (default: $TMPDIR, else /var/tmp; not a tmpfs)", 1 },
	{ "size", OPT_SIZE, "SIZE", 0, "File size or anonymous working set (default: 256M)", 1 },
	{ "ops", OPT_OPS, "N", 0,
	  "zipf-read and ycsb-f operations (default: 4 x pages), ycsb-load inserts "
	  "(default: 3 x pages)", 1 },
	{ "passes", OPT_PASSES, "N", 0,
	  "scan-twice, loop, scan-hot and shared-map passes (default: 2, 3, 3 and 3)", 1 },
	{ "hot-size", OPT_HOT_SIZE, "SIZE", 0,
	  "scan-hot and shared-map hot set at the start of the file (default: --size / 8)", 1 },
	{ "procs", OPT_PROCS, "N", 0,
	  "shared-map processes mapping the file, 1 to 64 (default: 4)", 1 },
	{ "record-size", OPT_RECORD_SIZE, "BYTES", 0,
	  "ycsb-f and ycsb-load record size (default: 1024)", 1 },
	{ "theta", OPT_THETA, "X", 0,
	  "Zipf skew (default: 0.99; scan-hot and shared-map: 0.5)", 1 },
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
	case OPT_NO_TLB_EVENTS:
		a->no_tlb_events = true;
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
	case OPT_HOT_SIZE:
		if (hs_parse_size(arg, 1, 4096, 1ull << 40, &a->wopts.hot_size))
			argp_error(state, "--hot-size '%s': expected a size from 4K to 1T", arg);
		a->wopt_set = true;
		break;
	case OPT_PROCS:
		if (hs_parse_u64(arg, 1, 64, &v))
			argp_error(state, "--procs '%s': expected a number from 1 to 64", arg);
		a->wopts.procs = (unsigned int)v;
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
	       "    hsctl record -m 48M --workload scan-hot --size 256M --hot-size 32M\n"
	       "    hsctl record -m 8M --workload ycsb-load --size 256M\n"
	       "    hsctl record -m 48M --workload shared-map --size 256M --hot-size 32M\n"
	       "    hsctl record -m 256M --duration 60 --name build -- make -j2\n"
	       "    hsctl replay 1 --policy all              # capacity: the memory limit\n"
	       "    hsctl sql \"SELECT death_cause, count(*) FROM v_folio_lives GROUP BY 1\"\n"
	       "\nNeeds root: tracefs (mounted for the run when it is not) and a memory cgroup.\n"
	       "Built-in workloads log their own page touches, so their sessions are exact;\n"
	       "a command's accesses are what the kernel shows (faults, reads): visibility\n"
	       "'faults'. A killed record's changes to the host are put back by the next\n"
	       "record or 'hsctl db recover'. See hsctl-record(1) and hsctl-db(5).\n"
	       "\nExit status: 0 recorded (whatever the workload's own status, which is\n"
	       "printed and stored), 130 or 143 stopped by SIGINT or SIGTERM with the session\n"
	       "kept, 64 usage error, 69 no root, tracefs or memory cgroup, 1 the recording\n"
	       "itself failed.",
};

/* ---- printing ---- */

static void print_summary(const struct hs_recorder_summary *s)
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
		hs_json_key(&j, "life_pages");
		hs_json_uint(&j, s->life_pages);
		hs_json_key(&j, "reclaimed_pages");
		hs_json_uint(&j, s->reclaimed);
		hs_json_key(&j, "refault_lives");
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
		hs_json_key(&j, "kernel");
		if (s->has_kernel) {
			const struct hs_kernel_row *k = &s->kernel;

			hs_json_object(&j);
			hs_json_key(&j, "lives");
			hs_json_uint(&j, k->lives);
			hs_json_key(&j, "pages");
			hs_json_uint(&j, k->pages);
			hs_json_key(&j, "demand_miss_pages");
			hs_json_uint(&j, k->demand_miss_pages);
			hs_json_key(&j, "readahead_pages");
			hs_json_uint(&j, k->readahead_pages);
			hs_json_key(&j, "readahead_unused_pages");
			hs_json_uint(&j, k->readahead_unused_pages);
			hs_json_key(&j, "refault_pages");
			hs_json_uint(&j, k->refault_pages);
			hs_json_key(&j, "evicted_pages");
			hs_json_uint(&j, k->evicted_pages);
			hs_json_key(&j, "pswpin_pages");
			hs_json_uint(&j, k->pswpin_pages);
			hs_json_key(&j, "pswpout_pages");
			hs_json_uint(&j, k->pswpout_pages);
			hs_json_key(&j, "pswp_source");
			hs_json_str(&j, k->pswp_source);
			hs_json_end(&j);
		} else {
			hs_json_null(&j);
		}
		hs_json_end(&j);
		putchar('\n');
		return;
	}
	if (hs_global.format == HS_FMT_CSV) {
		const struct hs_kernel_row *k = &s->kernel;

		printf("session,status,workload_exit,workload_signal,runtime_s,events,lost_events,"
		       "touches,lives,life_pages,reclaimed_pages,refault_lives,accesses,"
		       "memory_limit_pages,visibility,demand_miss_pages,readahead_pages,"
		       "readahead_unused_pages,refault_pages,evicted_pages,pswpin_pages,"
		       "pswpout_pages,pswp_source\n");
		printf("%" PRId64 ",%s,%d,%d,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s",
		       s->session,
		       s->status, s->wexit, s->wsig, s->runtime_s, s->events, s->lost, s->touches,
		       s->lives, s->life_pages, s->reclaimed, s->refaults, s->accesses,
		       s->limit_pages, s->visibility);
		if (s->has_kernel)
			printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			       PRIu64 ",%" PRIu64 ",%s\n", k->demand_miss_pages, k->readahead_pages,
			       k->readahead_unused_pages, k->refault_pages, k->evicted_pages,
			       k->pswpin_pages, k->pswpout_pages, k->pswp_source);
		else
			printf(",,,,,,,,\n");
		return;
	}
	printf("session %" PRId64 ": %s, %.1f s; %" PRIu64 " events (%" PRIu64 " lost), %"
	       PRIu64 " folio lives of %" PRIu64 " pages (%" PRIu64 " pages reclaimed, %" PRIu64
	       " lives refaulted), %" PRIu64 " accesses (%s)\n", s->session, s->status,
	       s->runtime_s, s->events, s->lost, s->lives, s->life_pages, s->reclaimed,
	       s->refaults, s->accesses, s->visibility);
	if (s->has_kernel)
		hs_cli_print_kernel_row(&s->kernel);
	if (s->wsig)
		printf("workload killed by signal %d (%s)\n", s->wsig, strsignal(s->wsig));
	else if (s->wexit >= 0)
		printf("workload exited with status %d\n", s->wexit);
	else
		printf("workload did not run\n");
}

static void show_progress(struct hs_cli_progress *pr, const struct hs_recorder *r, bool force)
{
	struct hs_recorder_progress p;
	double el;

	if (!hs_cli_progress_due(pr, force, &el))
		return;
	hs_recorder_progress(r, &p);
	fprintf(stderr, "\rrecord: %6.1fs  %8.0f events/s  %" PRIu64 " events  lost %" PRIu64
		"  folios %" PRIu64 "  touches %" PRIu64 " ", el,
		el > 0 ? (double)p.events / el : 0.0, p.events, p.missed, p.folios, p.touches);
}

/* ---- the command ---- */

/* --list-events reads nothing: tracing never starts. */
static int no_subbuf(void *arg HS_UNUSED, int cpu HS_UNUSED, const void *buf HS_UNUSED,
		     size_t len HS_UNUSED)
{
	return 0;
}

static int list_events(void)
{
	struct hs_capture_opts co = { .on_subbuf = no_subbuf };
	const struct hs_decoder_source *s;
	struct hs_capture *c = NULL;
	struct hs_decoder *d = NULL;
	int err, status = HS_EXIT_OK;
	size_t i;

	/* a mount made for the listing is written down too */
	if (hs_undo_new(NULL, &co.undo)) {
		hs_err("record: out of memory");
		return HS_EXIT_FAILURE;
	}
	err = hs_capture_open(&co, &c);
	if (err) {
		hs_err("%s", c ? hs_capture_errmsg(c) : strerror(-err));
		status = err == -ENOMEM ? HS_EXIT_FAILURE : HS_EXIT_UNAVAILABLE;
		goto out;
	}
	err = hs_decoder_open(hs_capture_tracing_dir(c), HS_DEC_ALL, &d);
	if (err) {
		hs_err("tracefs: %s", d ? hs_decoder_errmsg(d) : strerror(-err));
		status = HS_EXIT_FAILURE;
		goto out;
	}
	for (i = 0; i < hs_decoder_nr_sources(d); i++) {
		s = hs_decoder_source(d, i);
		printf("%s:%s\n", s->system, s->name);
	}
out:
	hs_decoder_free(d);
	hs_capture_close(c);
	hs_undo_close(co.undo);
	return status;
}

/* The recording SIGINT and SIGTERM stop (one per process). */
static struct hs_recorder *volatile stoppable;

static void on_signal(int sig)
{
	struct hs_recorder *rec = stoppable;

	if (rec)
		hs_recorder_stop(rec, sig);
}

/* The recorder's warnings and -v lines; a progress line is blanked first. */
static void note(void *arg, enum hs_recorder_level level, const char *msg)
{
	hs_cli_progress_end(arg, 100);
	if (level == HS_RECORDER_WARN)
		hs_warn("%s", msg);
	else
		hs_info("%s", msg);
}

static int run(int argc, char **argv)
{
	struct hs_recorder_opts ro = { 0 };
	struct sigaction sa = { 0 }, old_int, old_term;
	struct hs_cli_progress pr = { 0 };
	struct hs_recorder *rec = NULL;
	struct hs_store *st = NULL;
	struct args a = { 0 };
	bool tty = isatty(STDERR_FILENO);
	int status, err, signo;
	sigset_t set, old;

	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return HS_EXIT_USAGE;
	/* argp with ARGP_IN_ORDER hands everything after "--" as ARGP_KEY_ARGS. */
	if (a.list_events) {
		if (geteuid()) {
			hs_err("record: tracefs needs root (euid %u)", (unsigned int)geteuid());
			return HS_EXIT_UNAVAILABLE;
		}
		return list_events();
	}

	/*
	 * SIGINT and SIGTERM wait while the recording is set up and built; while
	 * it runs they stop it (a pending one at once); threads inherit nothing.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);

	ro.limit_bytes = a.limit_bytes;
	ro.duration = a.duration;
	ro.buffer_kb = a.buffer_kb;
	ro.name = a.name;
	ro.workload = a.wopts.name ? &a.wopts : NULL;
	ro.cmd = a.wopts.name ? NULL : a.cmd;
	ro.no_events = a.no_events;
	ro.no_tlb_events = a.no_tlb_events;
	ro.keep_spool = a.keep_spool;
	ro.sample_numa = a.sample_numa;
	ro.count = tty;
	ro.db_name = hs_global.db;
	ro.note = note;
	ro.note_arg = &pr;
	ro.pause_at = getenv("HSCTL_TEST_PAUSE");
	err = hs_recorder_new(&ro, &rec);
	if (err) {
		hs_err("%s", rec ? hs_recorder_errmsg(rec) : strerror(-err));
		status = hs_exit_from_errno(err);
		goto out;
	}
	status = hs_cli_open_store(0, &st);
	if (status)
		goto out;
	/* what killed recorders left: on the host (any database's), and in this database */
	err = hs_recorder_recover(NULL, rec, st, hs_global.db, note, &pr);
	if (err < 0)
		hs_warn("%s: cannot read the undo notes of killed recorders: %s", HS_UNDO_DIR,
			strerror(-err));
	err = hs_recorder_start(rec, st);
	if (err) {
		hs_err("%s", hs_recorder_errmsg(rec));
		status = err == -ENODEV ? HS_EXIT_UNAVAILABLE : HS_EXIT_FAILURE;
		goto out;
	}

	stoppable = rec;
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	hs_cli_progress_start(&pr);
	while ((err = hs_recorder_wait(rec, tty ? 0.25 : -1)) == 1)
		show_progress(&pr, rec, false);
	hs_cli_progress_end(&pr, 100);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	stoppable = NULL;
	if (err) {
		hs_err("%s", hs_recorder_errmsg(rec));
		status = HS_EXIT_FAILURE;
		goto out;
	}

	if (hs_recorder_lost(rec))
		hs_warn("%" PRIu64 " events lost (ring buffer overrun); the session marks the gaps;"
			" a larger --buffer-kb helps", hs_recorder_lost(rec));
	err = hs_recorder_build(rec);
	if (err) {
		hs_err("%s", hs_recorder_errmsg(rec));
		status = HS_EXIT_FAILURE;
		goto out;
	}
	print_summary(hs_recorder_summary(rec));
	signo = hs_recorder_stop_signal(rec);
	status = signo ? 128 + signo : HS_EXIT_OK;
out:
	hs_recorder_free(rec);
	hs_store_close(st);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

const struct hs_cmd hs_cmd_record = {
	.name = "record",
	.summary = "Record a workload's page cache and reclaim under a memory limit",
	.run = run,
};
