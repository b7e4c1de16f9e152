/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `hsctl sessions [list]`, `hsctl sessions show ID` and `hsctl sessions rm
 * ID...`: what the database holds, one session in full, and removing
 * sessions together with their accesses, keys and runs (the foreign keys
 * cascade).  Listings are SQL over the sessions table, printed like `hsctl
 * sql` prints (hs_cli_print_query()), so every format comes out the same way.
 * A recorded session (hsctl record) shows its recording too: kernel, limit,
 * the workload's fate, losses, lives by death cause, and the self-checks,
 * which follow the record as a table, or as a "checks" array in JSON.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hs.h"
#include "json.h"
#include "lifecycle.h"
#include "output.h"
#include "parse.h"
#include "store.h"

#define MAX_IDS	1024	/* sessions rm at once */

enum action { ACT_LIST, ACT_SHOW, ACT_RM };
static const char *const actions[] = { "list", "show", "rm", NULL };	/* by enum action */

struct args {
	enum action	action;		/* what to do */
	bool		action_set;	/* an action word was given */
	char		*ids[MAX_IDS];	/* show/rm: the ID arguments */
	size_t		nr_ids;		/* entries in ids */
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (!a->action_set) {
			a->action = (enum action)hs_cli_argp_choice(state, "action", arg, actions);
			a->action_set = true;
		} else if (a->action == ACT_LIST || (a->action == ACT_SHOW && a->nr_ids)) {
			argp_error(state, "unexpected argument '%s'", arg);
		} else if (a->nr_ids == MAX_IDS) {
			argp_error(state, "at most %d sessions at once", MAX_IDS);
		} else {
			a->ids[a->nr_ids++] = arg;
		}
		break;
	case ARGP_KEY_END:
		if (a->action == ACT_SHOW && !a->nr_ids)
			argp_error(state, "show needs a session ID (see 'hsctl sessions')");
		if (a->action == ACT_RM && !a->nr_ids)
			argp_error(state, "rm needs at least one session ID");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.parser = parse_opt,
	.args_doc = "[list]\nshow ID\nrm ID...",
	.children = hs_format_children,
	.doc = "List the sessions in the database, show one, or remove sessions.\v"
	       "EXAMPLES:\n"
	       "    hsctl sessions                     # id, source, name, status, accesses...\n"
	       "    hsctl sessions show 1              # every column, and the number of runs\n"
	       "    hsctl sessions show 4 -f json      # a recording: its fields, self-checks\n"
	       "    hsctl sessions list --format json\n"
	       "    hsctl sessions rm 2 3              # with their accesses, keys and runs\n"
	       "\nIn a table, names longer than 16 characters are cut to 13 and \"...\";\n"
	       "CSV, JSON and sessions show print them whole.\n"
	       "\nExit status: 0 success, 1 failure, 64 usage error, 65 not an hsctl database,\n"
	       "66 no database file or no such session, 69 the database may not be read or\n"
	       "written.",
};

static const char list_sql[] =
	"SELECT id, source, name, status, accesses, distinct_keys AS keys, unit, started"
	" FROM sessions ORDER BY id";

/*
 * The same for a table that fits 80 columns: names longer than 16 characters
 * cut to 13 and "..." (the --help and hsctl-sessions(1) say so), started to
 * the minute.
 */
static const char list_table_sql[] =
	"SELECT id, source,"
	" CASE WHEN length(name) > 16 THEN substr(name, 1, 13) || '...' ELSE name END AS name,"
	" status, accesses, distinct_keys AS keys, unit,"
	" replace(substr(started, 1, 16), 'T', ' ') AS started"
	" FROM sessions ORDER BY id";

/* Every column of the sessions row, in table order, plus the run count. */
static const char show_sql[] =
	"SELECT s.id, s.source, s.name, s.origin, s.format, s.unit, s.kind, s.channel,"
	" s.visibility, s.params, s.status, s.started, s.ended, s.records, s.accesses,"
	" s.distinct_keys, s.host, s.hsctl_version,"
	" (SELECT count(*) FROM runs WHERE session = s.id) AS runs"
	" FROM sessions AS s WHERE s.id = %" PRId64;

/*
 * A recorded session: the same, then its recording, with lives counted by
 * death cause (the %d are enum hs_death_cause values).
 */
static const char show_rec_sql[] =
	"SELECT s.id, s.source, s.name, s.origin, s.format, s.unit, s.kind, s.channel,"
	" s.visibility, s.params, s.status, s.started, s.ended, s.records, s.accesses,"
	" s.distinct_keys, s.host, s.hsctl_version,"
	" (SELECT count(*) FROM runs WHERE session = s.id) AS runs,"
	" r.workload, r.kernel, r.lru_gen, r.cgroup, r.cgroup_version,"
	" r.memory_limit_pages, r.peak_pages, r.workload_exit, r.workload_signal,"
	" round(r.runtime_ns / 1e9, 3) AS runtime_s, r.lost_events, r.lost_gaps,"
	" r.subbufs, r.bytes, r.events_decoded AS events, r.touches,"
	" l.lives, l.alive, l.died_reclaim, l.died_pageout, l.died_truncate, l.died_unknown,"
	" l.refaults,"
	" round(r.record_cpu_s, 3) AS record_cpu_s, round(r.build_s, 3) AS build_s"
	" FROM sessions AS s LEFT JOIN recordings AS r ON r.session = s.id,"
	" (SELECT count(*) AS lives, total(death_cause = %d) AS alive,"
	"   total(death_cause = %d) AS died_reclaim,"
	"   total(death_cause = %d) AS died_pageout,"
	"   total(death_cause = %d) AS died_truncate, total(death_cause = %d) AS died_unknown,"
	"   total(refault) AS refaults FROM folio_lives WHERE session = %" PRId64 ") AS l"
	" WHERE s.id = %" PRId64;

static const char checks_sql[] =
	"SELECT name, status, got, want, note FROM record_checks"
	" WHERE session = %" PRId64 " ORDER BY rowid";

/* The record of a recorded session: its members, one per line, into the open object. */
static int rec_json_cb(const struct hs_sql_row *row, void *arg)
{
	struct hs_json *j = arg;

	hs_json_object_lines(j);
	hs_cli_json_row(j, row);
	return 1;
}

/* One check as a one-line JSON object in the "checks" array. */
static int check_json_cb(const struct hs_sql_row *row, void *arg)
{
	struct hs_json *j = arg;

	hs_json_object(j);
	hs_cli_json_row(j, row);
	hs_json_end(j);
	return 0;
}

static int count_cb(const struct hs_sql_row *row, void *arg)
{
	*(int64_t *)arg = row->ncols && row->types[0] == HS_SQL_INT ? row->ints[0] : 0;
	return 1;
}

/* sessions show on a recorded session: the record, then the self-checks. */
static int show_recorded(struct hs_store *st, int64_t id)
{
	char sql[sizeof(show_rec_sql) + 128], csql[sizeof(checks_sql) + 24];
	int64_t nchecks = 0;
	struct hs_json j;
	int err;

	snprintf(sql, sizeof(sql), show_rec_sql, HS_DEATH_NONE, HS_DEATH_RECLAIM,
		 HS_DEATH_PAGEOUT, HS_DEATH_TRUNCATE, HS_DEATH_UNKNOWN, id, id);
	snprintf(csql, sizeof(csql), checks_sql, id);
	if (hs_global.format != HS_FMT_JSON) {
		/* CSV: the record only (the checks are in v_record_checks) */
		err = hs_cli_print_query(st, sql, true);
		if (err || hs_global.format != HS_FMT_TABLE)
			return err;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM record_checks"
			 " WHERE session = %" PRId64, id);
		err = hs_store_query(st, sql, count_cb, &nchecks);
		if (err || !nchecks)
			return err;
		fputs("\nself-checks:\n", stdout);
		return hs_cli_print_query(st, csql, false);
	}
	hs_json_init(&j, stdout, HS_JSON_SPACED);
	err = hs_store_query(st, sql, rec_json_cb, &j);
	if (err || !j.depth)
		return err;	/* no row: nothing was written */
	hs_json_key(&j, "checks");
	hs_json_array_lines(&j);
	err = hs_store_query(st, csql, check_json_cb, &j);
	hs_json_end(&j);
	hs_json_end(&j);
	putchar('\n');
	if (err)
		return err;
	err = hs_json_finish(&j);
	return err == -EIO ? 0 : err;	/* a write error is reported at exit */
}

static int parse_id(const char *s, int64_t *id)
{
	if (hs_parse_i64(s, 1, INT64_MAX, id)) {
		hs_err("sessions: '%s' is not a session id", s);
		return HS_EXIT_USAGE;
	}
	return 0;
}

static int do_list(void)
{
	struct hs_store *st = NULL;
	int status, err;

	status = hs_cli_open_store(HS_STORE_RDONLY | HS_STORE_NOCREATE, &st);
	if (status)
		return status;
	err = hs_cli_print_query(st, hs_global.format == HS_FMT_TABLE ? list_table_sql : list_sql,
				 false);
	if (err)
		status = hs_cli_query_err(st, "sessions", err);
	hs_store_close(st);
	return status;
}

static int do_show(const char *arg)
{
	struct hs_session_info info;
	struct hs_store *st = NULL;
	char sql[sizeof(show_sql) + 24];
	int status, err;
	int64_t id;

	status = parse_id(arg, &id);
	if (status)
		return status;
	status = hs_cli_open_store(HS_STORE_RDONLY | HS_STORE_NOCREATE, &st);
	if (status)
		return status;
	err = hs_session_get(st, id, &info);
	if (err == -ENOENT) {
		hs_err("sessions: no session %" PRId64, id);
		status = HS_EXIT_NOINPUT;
		goto out;
	}
	snprintf(sql, sizeof(sql), show_sql, id);
	if (!err && !strcmp(info.source, "record"))
		err = show_recorded(st, id);
	else if (!err)
		err = hs_cli_print_query(st, sql, true);
	if (err)
		status = hs_cli_query_err(st, "sessions", err);
out:
	hs_store_close(st);
	return status;
}

static int do_rm(char **args, size_t n)
{
	struct hs_store *st = NULL;
	int64_t ids[MAX_IDS];
	int status = 0, err;
	size_t i;

	for (i = 0; i < n; i++) {
		status = parse_id(args[i], &ids[i]);
		if (status)
			return status;
	}
	status = hs_cli_open_store(HS_STORE_NOCREATE, &st);
	if (status)
		return status;
	for (i = 0; i < n; i++) {
		err = hs_session_remove(st, ids[i]);
		if (err == -ENOENT) {
			hs_err("sessions: no session %" PRId64, ids[i]);
			status = HS_EXIT_NOINPUT;
		} else if (err) {
			hs_err("sessions: removing session %" PRId64 ": %s", ids[i],
			       hs_store_errmsg(st));
			status = HS_EXIT_FAILURE;
			break;
		} else {
			hs_info("removed session %" PRId64, ids[i]);
		}
	}
	hs_store_close(st);
	return status;
}

static int run(int argc, char **argv)
{
	struct args a = { 0 };

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	switch (a.action) {
	case ACT_SHOW:
		return do_show(a.ids[0]);
	case ACT_RM:
		return do_rm(a.ids, a.nr_ids);
	default:
		return do_list();
	}
}

const struct hs_cmd hs_cmd_sessions = {
	.name = "sessions",
	.summary = "list, show or remove the sessions in the database",
	.run = run,
};
