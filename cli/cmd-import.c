/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl import: read a cache trace file (lib/trace-in.c) and store it as a new
 * session.  The stream is staged (meta.staged: encoded into a temporary
 * table) while the input is read, and written in one short transaction at
 * the end, so a slow input (a pipe) does not hold the database's write lock
 * and other commands may store their work meanwhile.  Any reader error drops
 * what was staged, so a malformed trace leaves no partial session (exit 65
 * with the file, line or byte offset and the reason; a text file given
 * --type u32be is refused so, unless --force), and a database file
 * that the import created, or found empty, is removed or emptied again
 * rather than left with the schema alone (close_failed()).  The new session is printed with
 * hs_cli_print_session(), as `hsctl gen` prints its own.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "codec.h"
#include "cmd.h"
#include "hs.h"
#include "json.h"
#include "output.h"
#include "parse.h"
#include "store.h"
#include "trace-in.h"

enum {
	OPT_NAME = 0x100,
	OPT_KIND,
	OPT_CHANNEL,
	OPT_BLOCK_ORDER,
	OPT_COLUMN,
	OPT_HEADER,
	OPT_MAX_ACCESSES,
	OPT_FORCE,
};

/* --max-accesses by default: a short .lis file can ask for billions of blocks. */
#define DEFAULT_MAX_ACCESSES	1000000000ull

struct args {
	const char		*file;		/* FILE argument */
	const char		*name;		/* --name, or NULL */
	struct hs_trace_opts	topts;		/* reader options */
	bool			type_set;	/* --type was given */
	bool			order_set;	/* --block-order was given */
	bool			column_set;	/* --column was given */
	enum hs_type		kind;		/* --kind */
	enum hs_channel		channel;	/* --channel */
};

static const struct argp_option options[] = {
	{ "type", 't', "TYPE", 0,
	  "Trace format: text, lirs, lis, csv, oracle or u32be (required)", 0 },
	{ "name", OPT_NAME, "NAME", 0, "Session name (default: derived from FILE)", 0 },
	{ "kind", OPT_KIND, "KIND", 0, "Key type: anon or file (default: file)", 0 },
	{ "channel", OPT_CHANNEL, "CH", 0, "Access channel: pt or fd (default: pt)", 0 },
	{ "max-accesses", OPT_MAX_ACCESSES, "N", 0,
	  "Refuse a trace of more than N accesses, 0 for no limit (default: 1000000000)", 0 },
	{ "force", OPT_FORCE, NULL, 0,
	  "u32be: import a file even though it looks like text", 0 },
	{ 0, 0, 0, 0, "lis options:", 1 },
	{ "block-order", OPT_BLOCK_ORDER, "ORDER", 0,
	  "Order of a request's blocks: forward or reverse (default: forward, with a note "
	  "when a request spans several blocks; the ARC and CAR papers' numbers need "
	  "reverse)", 1 },
	{ 0, 0, 0, 0, "csv options:", 2 },
	{ "column", OPT_COLUMN, "N", 0, "Key column, 1-based (default: 1)", 2 },
	{ "header", OPT_HEADER, NULL, 0, "Skip the first line", 2 },
	{ 0 }
};

static const char *const block_orders[] = { "forward", "reverse", NULL };

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	uint64_t v;

	switch (key) {
	case 't':
		if (hs_trace_type_parse(arg, &a->topts.type))
			argp_error(state, "unknown type '%s' (valid: %s)", arg,
				   hs_trace_type_list());
		a->type_set = true;
		break;
	case OPT_NAME:
		a->name = arg;
		break;
	case OPT_KIND:
		a->kind = hs_cli_argp_kind(state, arg);
		break;
	case OPT_CHANNEL:
		a->channel = hs_cli_argp_channel(state, arg);
		break;
	case OPT_BLOCK_ORDER:
		a->topts.lis_reverse =
			hs_cli_argp_choice(state, "block order", arg, block_orders) == 1;
		a->order_set = true;
		break;
	case OPT_COLUMN:
		if (hs_parse_u64(arg, 1, 65536, &v))
			argp_error(state, "--column '%s': expected a number from 1 to 65536", arg);
		a->topts.csv_column = (unsigned int)v;
		a->column_set = true;
		break;
	case OPT_HEADER:
		a->topts.csv_header = true;
		a->column_set = true;
		break;
	case OPT_MAX_ACCESSES:
		if (hs_parse_u64(arg, 0, UINT64_MAX, &v))
			argp_error(state, "--max-accesses '%s': expected a number", arg);
		a->topts.max_records = v;
		break;
	case OPT_FORCE:
		a->topts.force = true;
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "one FILE at a time (got '%s' too)", arg);
		a->file = arg;
		break;
	case ARGP_KEY_END:
		if (!a->type_set)
			argp_error(state, "missing --type (valid: %s)", hs_trace_type_list());
		if (!a->file)
			argp_error(state, "missing FILE");
		if (a->order_set && a->topts.type != HS_TRACE_LIS)
			argp_error(state, "--block-order applies to --type lis only");
		if (a->column_set && a->topts.type != HS_TRACE_CSV)
			argp_error(state, "--column and --header apply to --type csv only");
		if (a->topts.force && a->topts.type != HS_TRACE_U32BE)
			argp_error(state, "--force applies to --type u32be only");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "--type TYPE FILE",
	.children = hs_format_children,
	.doc = "Import a cache trace file as a new session (gzip or plain).\v"
	       "EXAMPLES:\n"
	       "    hsctl import --type lirs testdata/demo.trace      # one key per line\n"
	       "    hsctl import --type lis --block-order reverse OLTP.lis.gz\n"
	       "    hsctl import --type csv --column 2 --header requests.csv\n"
	       "    hsctl import --type oracle cloudPhysicsIO.oracleGeneral.bin.gz\n"
	       "    hsctl import --type u32be --kind anon trace.trc.bin.gz\n"
	       "\nFormats: text (one decimal key per line), lirs (text; '*' lines skipped),\n"
	       "lis (ARC 'start n ignored reqno' lines, n blocks each), csv (a column; non-\n"
	       "numeric keys are hashed with FNV-1a 64), oracle (libCacheSim oracleGeneral,\n"
	       "24-byte records), u32be (big-endian 32-bit ids). Capacity of a replay counts\n"
	       "blocks for lis, objects otherwise. u32be refuses a file that starts as\n"
	       "text (digits and line ends) unless --force. See hsctl-import(1).\n"
	       "\nExit status: 0 imported, 64 usage error, 65 malformed trace (no session is\n"
	       "left behind), 66 FILE cannot be opened, 69 the database may not be written,\n"
	       "1 other failure.",
};

static void show_progress(struct hs_cli_progress *pr, const struct hs_trace_reader *r)
{
	uint64_t done, total, n = hs_trace_records(r);
	double el, rate, share;

	if (!hs_cli_progress_due(pr, false, &el))
		return;
	hs_trace_progress(r, &done, &total);
	rate = el > 0 ? (double)n / el : 0;
	if (total && done <= total && done) {
		share = (double)done / (double)total;
		fprintf(stderr, "\rimport: %5.1f%%  %.1fM records  %.1fM records/s  ETA %.0fs ",
			100.0 * share, (double)n / 1e6, rate / 1e6, el / share - el);
	} else {
		fprintf(stderr, "\rimport: %.1fM records  %.1fM records/s ", (double)n / 1e6,
			rate / 1e6);
	}
}

/*
 * The session's params: the trace type and the reader options that shaped
 * the keys, e.g. {"type":"csv","column":1,"header":false,"key_hash":"fnv1a64"}.
 * @out receives the malloc()ed text.  Return: 0 or -ENOMEM.
 */
static int import_params(const struct hs_trace_opts *o, char **out)
{
	struct hs_json j;

	if (hs_json_init_mem(&j, 0))
		return -ENOMEM;
	hs_json_object(&j);
	hs_json_key(&j, "type");
	hs_json_str(&j, hs_trace_type_name(o->type));
	if (o->type == HS_TRACE_LIS) {
		hs_json_key(&j, "block_order");
		hs_json_str(&j, o->lis_reverse ? "reverse" : "forward");
	} else if (o->type == HS_TRACE_CSV) {
		hs_json_key(&j, "column");
		hs_json_uint(&j, o->csv_column ? o->csv_column : 1);
		hs_json_key(&j, "header");
		hs_json_bool(&j, o->csv_header);
		hs_json_key(&j, "key_hash");
		hs_json_str(&j, "fnv1a64");
	}
	hs_json_end(&j);
	return hs_json_take(&j, out);
}

/* Records moved from the reader to the writer at most at once. */
#define COPY_BATCH	4096

/*
 * Keys renumbered before the import estimates how many the whole file holds
 * and sizes the key map for them at once (presize()).  The map's doublings
 * move every key and fault in the new half; the estimate's pass over the
 * rest of the file (hs_trace_sample_keys()) costs 2-3 ns a record once the
 * sampled keys no longer branch (21-28 ms of CPU for a 10 M-record u32be
 * file, faulting its mapping in included).  At 200,000 keys, before the
 * map's first doubling (an import's map starts at 262,144 slots, 209,715
 * keys at 4/5), a file of millions of keys is sized before any doubling:
 * 9 alternating rounds of whole imports, CPU per record, against 800,000
 * keys (the threshold when the pass cost 5 ns a record): z3.7M.u32be 47.5
 * -> 41.5 ns, z763K.u32be 29.2 -> 30.1 (its two doublings against the
 * pass: within the noise).  Files of fewer keys never pay for the pass.
 * An oracle file's estimate reads a sixteenth of the file and costs less
 * than one doubling: it is taken after the first chunk (ORACLE_AFTER), so
 * the map is sized once from the start, and its marks are checked against
 * a chunk's keys first.
 */
#define ESTIMATE_AFTER	200000
#define ORACLE_AFTER	1

/*
 * The estimate of an oracle file's keys errs either way by a fraction of
 * a percent; this much more is asked for, so that a file whose count is
 * just above it does not double the map near its end.
 */
#define ORACLE_MARGIN(keys)	((keys) + (keys) / 64)

/*
 * Size the session's key map for the keys of the whole file, where the
 * reader can tell cheaply: u32be from a sample of the rest's keys
 * (hs_trace_sample_keys(): those not seen yet, scaled up, are the new keys
 * to come); oracle from its last-access marks in a sample of the rest
 * (hs_trace_oracle_keys_estimate(): a sample of keys would hash a record
 * in 64 of a file six times longer, and on P12 cost as much as the
 * doubling it saved), believed only when the marks read so far are no more
 * than the keys seen plus the records of the chunk still being filled (not
 * renumbered yet).  Right after the first chunk, as an oracle file's
 * estimate is taken, none are: a file that marks every record as a last
 * access (a tool that writes -1 throughout) is caught by its first chunk's
 * repeated keys, not sized for a key a record.  Other inputs grow the map
 * as before.
 */
static void presize(struct hs_trace_reader *r, struct hs_session_writer *w)
{
	uint64_t *sample = NULL, seen = hs_session_keys(w), total, *room_keys;
	size_t room;
	long n;

	if (!hs_trace_oracle_keys_estimate(r, &total)) {
		if (!hs_session_room(w, &room_keys, &room) &&
		    hs_trace_oracle_lasts(r) <= seen + (HS_CHUNK_RECORDS - room))
			hs_session_expect_keys(w, ORACLE_MARGIN(total));
		return;
	}
	n = hs_trace_sample_keys(r, &sample);
	if (n > 0)
		hs_session_expect_keys(w, seen + (hs_session_unseen(w, sample, (size_t)n) <<
						   HS_TRACE_SAMPLE_SHIFT));
	free(sample);
}

/*
 * Read every record into the open session: the reader writes the keys
 * straight into the writer's chunk (hs_session_room()), and the key map is
 * sized for the file's keys once it holds @estimate_after.  Return: 0 or a
 * negative errno, with *why the message and *bad_data set when the trace
 * was at fault.
 */
static int copy_records(struct hs_trace_reader *r, struct hs_session_writer *w,
			struct hs_store *st, uint64_t estimate_after, const char **why,
			bool *bad_data)
{
	struct hs_cli_progress pr;
	bool tty = isatty(STDERR_FILENO);
	uint64_t *keys, before;
	bool estimated = false;
	uint8_t meta;
	size_t room;
	long n;
	int ret = 0;

	hs_cli_progress_start(&pr);
	for (;;) {
		ret = hs_session_room(w, &keys, &room);
		if (ret) {
			*why = hs_store_errmsg(st);
			break;
		}
		before = hs_trace_records(r);
		n = hs_trace_next_many(r, keys, room < COPY_BATCH ? room : COPY_BATCH, &meta);
		if (n <= 0) {
			ret = (int)n;
			break;
		}
		ret = hs_session_add_room(w, (size_t)n, meta);
		if (ret) {
			*why = hs_store_errmsg(st);
			break;
		}
		if (!estimated && hs_session_keys(w) >= estimate_after) {
			estimated = true;
			presize(r, w);
		}
		/* about every 2^20 records, as the count passes a multiple of it */
		if (tty && (before ^ hs_trace_records(r)) >> 20)
			show_progress(&pr, r);
	}
	hs_cli_progress_end(&pr, 60);
	if (ret < 0 && !*why) {
		*why = hs_trace_errmsg(r);
		*bad_data = ret == -EBADMSG || ret == -ENODATA || ret == -EFBIG;
	}
	return ret < 0 ? ret : 0;
}

/* What the database file was before the import: a failed import leaves it so. */
enum db_before { DB_EXISTED, DB_ABSENT, DB_EMPTY };

static enum db_before db_before(const char *path)
{
	struct stat sb;

	if (stat(path, &sb))
		return errno == ENOENT ? DB_ABSENT : DB_EXISTED;
	return S_ISREG(sb.st_mode) && sb.st_size == 0 ? DB_EMPTY : DB_EXISTED;
}

static int count_cb(const struct hs_sql_row *row, void *arg)
{
	*(int64_t *)arg = row->ncols && row->types[0] == HS_SQL_INT ? row->ints[0] : -1;
	return 1;
}

static bool exists_with(const char *path, const char *suffix)
{
	char name[4096];
	struct stat sb;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	return !stat(name, &sb);
}

/*
 * Close the store of a failed import.  Opening the file gave it the schema;
 * a file the import created goes again, one it found empty is emptied again
 * -- unless it holds a session or another connection still uses it (its
 * -wal file outlived this one), which means another process is at work.
 */
static void close_failed(struct hs_store *st, enum db_before before)
{
	const char *db = hs_global.db;
	int64_t n = -1;

	if (before != DB_EXISTED)
		hs_store_query(st, "SELECT count(*) FROM sessions", count_cb, &n);
	hs_store_close(st);
	if (before == DB_EXISTED || n != 0 || exists_with(db, "-wal") || exists_with(db, "-shm"))
		return;
	if (before == DB_ABSENT ? unlink(db) : truncate(db, 0))
		hs_warn("%s: cannot undo its creation: %s", db, strerror(errno));
}

/*
 * The ARC and CAR papers touch a multi-block request's blocks last to
 * first, and a .lis file cannot say so: --block-order forward, the default,
 * gives other numbers on traces such as P12.  Say so when it mattered (some
 * request spans several blocks) and the order was not chosen.
 */
static void note_block_order(const struct hs_trace_reader *r, const struct args *a)
{
	uint64_t requests, multi;

	if (a->order_set || hs_trace_lis_requests(r, &requests, &multi) || !multi)
		return;
	hs_note("%" PRIu64 " of %" PRIu64 " requests span several blocks, touched first to last"
		" (--block-order forward, the default); the ARC and CAR papers' figures need"
		" --block-order reverse", multi, requests);
}

static int run(int argc, char **argv)
{
	struct args a = {
		.kind = HS_TYPE_FILE, .channel = HS_CH_PT,
		.topts.max_records = DEFAULT_MAX_ACCESSES,
	};
	struct hs_session_writer *w = NULL;
	struct hs_session_meta m = { 0 };
	struct hs_trace_reader *r = NULL;
	struct hs_store *st = NULL;
	enum db_before before;
	const char *why = NULL;
	bool bad_data = false;
	char *params = NULL;
	int64_t id = 0;
	int ret, status;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	a.topts.meta = hs_meta_make(a.channel, a.kind, false);

	/* Open the input first: a missing file must not create or touch the database. */
	ret = hs_trace_open(a.file, &a.topts, &r);
	if (ret) {
		hs_err("%s", r ? hs_trace_errmsg(r) : strerror(-ret));
		hs_trace_close(r);
		return ret == -ENOMEM ? HS_EXIT_FAILURE : HS_EXIT_NOINPUT;
	}
	if (import_params(&a.topts, &params)) {
		hs_err("out of memory");
		status = HS_EXIT_FAILURE;
		goto out_close_trace;
	}
	before = db_before(hs_global.db);
	status = hs_cli_open_store(0, &st);
	if (status)
		goto out_close_trace;

	m.source = "import";
	m.name = a.name;
	m.origin = a.file;
	m.format = hs_trace_type_name(a.topts.type);
	m.unit = hs_trace_type_unit(a.topts.type);
	m.kind = a.kind == HS_TYPE_ANON ? "anon" : "file";
	m.channel = hs_channel_name(a.channel);
	m.params_json = params;
	m.staged = true;

	ret = hs_session_begin(st, &m, &w);
	if (ret) {
		status = hs_cli_store_err(st, hs_exit_from_errno(ret));
		goto out_close_store;
	}
	ret = copy_records(r, w, st, a.topts.type == HS_TRACE_ORACLE ? ORACLE_AFTER :
			   ESTIMATE_AFTER, &why, &bad_data);
	if (ret == -EFBIG && why && *why) {
		hs_err("%s; raise --max-accesses (0: no limit)", why);
		hs_session_abort(w);
		status = HS_EXIT_DATAERR;
		goto out_close_store;
	} else if (ret) {
		hs_err("%s", why && *why ? why : strerror(-ret));
		hs_session_abort(w);
		status = bad_data ? HS_EXIT_DATAERR : HS_EXIT_FAILURE;
		goto out_close_store;
	}
	ret = hs_session_commit(w, &id);
	if (ret) {
		status = hs_cli_store_err(st, HS_EXIT_FAILURE);
		goto out_close_store;
	}
	hs_info("imported %" PRIu64 " records from %s", hs_trace_records(r), a.file);
	status = hs_cli_print_session(st, id);
	note_block_order(r, &a);

out_close_store:
	if (id)
		hs_store_close(st);
	else
		close_failed(st, before);
out_close_trace:
	hs_trace_close(r);
	free(params);
	return status;
}

const struct hs_cmd hs_cmd_import = {
	.name = "import",
	.summary = "Import a trace file (text, lirs, lis, csv, oracle, u32be) as a session",
	.run = run,
};
