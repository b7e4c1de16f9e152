/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl export: write a stored session's accesses back out as a trace file
 * in the original keys (lib/trace-out.c), so that libCacheSim's cachesim, the
 * LIRS simulator and hsctl import itself read what hsctl holds.  The stream goes
 * to -o FILE (gzip when FILE ends in ".gz") or to standard output; binary
 * oracle records are never written to a terminal.  Hints and drops of
 * recorded sessions have no place in these formats: they are left out and
 * counted, with a warning.  When the records go to a file, a summary (one
 * record, in --format) is printed on standard output.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "hs.h"
#include "parse.h"
#include "store.h"
#include "trace-out.h"

struct args {
	const char		*session;	/* SESSION argument */
	const char		*output;	/* -o FILE, or NULL (stdout) */
	enum hs_trace_type	type;		/* --type */
	bool			type_set;	/* --type was given */
};

static const struct argp_option options[] = {
	{ "type", 't', "TYPE", 0, "Trace format: text, lirs, csv or oracle (required)", 0 },
	{ "output", 'o', "FILE", 0,
	  "Write to FILE (gzip-compressed if it ends in .gz); '-' or none: standard output", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 't':
		if (hs_trace_type_parse(arg, &a->type) || !hs_trace_out_supported(a->type))
			argp_error(state, "unknown type '%s' (valid: %s)", arg,
				   hs_trace_out_list());
		a->type_set = true;
		break;
	case 'o':
		if (!*arg)
			argp_error(state, "-o: empty file name");
		a->output = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->session)
			argp_error(state, "one SESSION at a time (got '%s' too)", arg);
		a->session = arg;
		break;
	case ARGP_KEY_END:
		if (!a->type_set)
			argp_error(state, "missing --type (valid: %s)", hs_trace_out_list());
		if (!a->session)
			argp_error(state, "missing SESSION (see 'hsctl sessions')");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "--type TYPE SESSION",
	.children = hs_format_children,
	.doc = "Write a session's accesses as a trace file in the original keys.\v"
	       "EXAMPLES:\n"
	       "    hsctl export --type text 1 | head           # one key per line\n"
	       "    hsctl export --type oracle -o s1.oracleGeneral.bin 1\n"
	       "    cachesim s1.oracleGeneral.bin oracleGeneral lru,arc 100 \\\n"
	       "        --ignore-obj-size 1\n"
	       "    hsctl export --type lirs -o s1.trace.gz 1   # gzip\n"
	       "    hsctl export --type csv -o s1.csv 1 && hsctl import -t csv --header s1.csv\n"
	       "\nFormats: text and lirs (one decimal key per line), csv (header\n"
	       "'key,kind,channel,write', then one access per line), oracle (libCacheSim\n"
	       "oracleGeneral: time 0, size = the unit in bytes, next_access_vtime counted\n"
	       "from 1, -1 for never). Hints and drops (recorded sessions) are left out and\n"
	       "counted. Binary oracle is not written to a terminal. See hsctl-export(1).\n"
	       "\nExit status: 0 written, 64 usage error (or oracle to a terminal), 65 corrupt\n"
	       "session, 66 no such session or database, 69 FILE not permitted, 1 other failure\n"
	       "(FILE cannot be created or written).",
};

/* The summary, as one record: session, type, file, records, skipped, distinct_keys. */
static int print_summary(int64_t session, const struct args *a,
			 const struct hs_trace_export_stats *s)
{
	static const char *const names[] = {
		"session", "type", "file", "records", "skipped", "distinct_keys",
	};
	static const enum hs_sql_type types[] = {
		HS_SQL_INT, HS_SQL_TEXT, HS_SQL_TEXT, HS_SQL_INT, HS_SQL_INT, HS_SQL_INT,
	};
	const int64_t ints[] = {
		session, 0, 0, (int64_t)s->records, (int64_t)s->skipped,
		(int64_t)s->distinct_keys,
	};
	const char *const texts[] = {
		NULL, hs_trace_type_name(a->type), a->output, NULL, NULL, NULL,
	};
	const double reals[ARRAY_SIZE(names)] = { 0 };
	const struct hs_sql_row row = { ARRAY_SIZE(names), names, types, ints, reals, texts };

	if (hs_cli_print_record(&row)) {
		hs_err("output: %s", strerror(ENOMEM));
		return HS_EXIT_FAILURE;
	}
	return HS_EXIT_OK;
}

/* Exit status for a writer that could not create or write its file. */
static int write_status(int err)
{
	return err == -EACCES || err == -EPERM ? HS_EXIT_UNAVAILABLE : HS_EXIT_FAILURE;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int run(int argc, char **argv)
{
	struct hs_trace_out_opts o = { 0 };
	struct hs_trace_writer *w = NULL;
	struct hs_trace_export_stats stats;
	struct hs_session_info info;
	struct hs_store *st = NULL;
	struct args a = { 0 };
	struct stat sb;
	bool to_stdout;
	char why[640];
	int64_t session;
	int ret, status;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	status = hs_cli_parse_session(a.session, &session);
	if (status)
		return status;
	to_stdout = !a.output || !strcmp(a.output, "-");
	if (to_stdout && a.type == HS_TRACE_ORACLE && isatty(STDOUT_FILENO)) {
		hs_err("refusing to write binary oracle records to a terminal (use -o FILE or a "
		       "pipe)");
		return HS_EXIT_USAGE;
	}
	o.type = a.type;
	o.gzip = !to_stdout && ends_with(a.output, ".gz");

	status = hs_cli_open_store(HS_STORE_NOCREATE | HS_STORE_RDONLY, &st);
	if (status)
		return status;
	/* The session first: a missing one must not create or truncate FILE. */
	status = hs_cli_get_session(st, session, &info);
	if (status)
		goto out;
	if (strcmp(info.status, "complete"))
		hs_warn("session %" PRId64 " is %s: exporting what was recorded", session,
			info.status);
	o.obj_size = hs_trace_unit_bytes(info.unit);

	ret = hs_trace_writer_open(to_stdout ? "-" : a.output, &o, &w);
	if (ret) {
		hs_err("%s", w ? hs_trace_writer_errmsg(w) : strerror(-ret));
		status = write_status(ret);
		goto out;
	}
	ret = hs_trace_export(st, session, w, &stats, why, sizeof(why));
	if (ret) {
		hs_err("%s", why);
		status = ret == -EBADMSG ? HS_EXIT_DATAERR : write_status(ret);
		goto out_unlink;
	}
	ret = hs_trace_writer_finish(w);
	if (ret) {
		hs_err("%s", hs_trace_writer_errmsg(w));
		status = write_status(ret);
		goto out_unlink;
	}
	if (stats.skipped)
		hs_warn("session %" PRId64 ": skipped %" PRIu64 " hint, drop and readahead records"
			" (%s has no way to express them)", session, stats.skipped,
			hs_trace_type_name(a.type));
	hs_info("exported %" PRIu64 " records of session %" PRId64 " to %s", stats.records,
		session, to_stdout ? "standard output" : a.output);
	status = to_stdout ? HS_EXIT_OK : print_summary(session, &a, &stats);
	goto out;

out_unlink:
	/*
	 * Half a trace would import as a different session: leave none behind.
	 * Only a regular file is removed (never /dev/full or a FIFO).
	 */
	if (!to_stdout && !lstat(a.output, &sb) && S_ISREG(sb.st_mode) && unlink(a.output))
		hs_warn("%s: cannot remove the partial file: %s", a.output, strerror(errno));
out:
	hs_trace_writer_free(w);
	hs_store_close(st);
	return status;
}

const struct hs_cmd hs_cmd_export = {
	.name = "export",
	.summary = "Write a session's accesses as a trace file (text, lirs, csv, oracle)",
	.run = run,
};
