/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `hsctl db [info]`, `hsctl db migrate` and `hsctl db recover`: facts about
 * the database file (whose it is, its schema version, how much it holds and
 * how it is stored), bringing an older file up to this hsctl's schema, and
 * cleaning up after killed recorders.  info never changes the file, even an
 * old one; migrate applies the pending migrations in one transaction and
 * says from which version to which; recover puts back what killed
 * recorders changed on the host (their undo notes, lib/undo.h) and builds
 * their sessions in this database, one line per thing it restored
 * (hs_recorder_recover(), what every `hsctl record` does first).
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

#include "cmd.h"
#include "hs.h"
#include "json.h"
#include "recorder.h"
#include "store.h"
#include "undo.h"

enum action { ACT_INFO, ACT_MIGRATE, ACT_RECOVER };
static const char *const actions[] = { "info", "migrate", "recover", NULL }; /* by enum action */

struct args {
	enum action	action;		/* what to do (default: info) */
	bool		action_set;	/* an action word was given */
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (a->action_set)
			argp_error(state, "unexpected argument '%s'", arg);
		a->action = (enum action)hs_cli_argp_choice(state, "action", arg, actions);
		a->action_set = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.parser = parse_opt,
	.args_doc = "[info]\nmigrate\nrecover",
	.children = hs_format_children,
	.doc = "Show facts about the database file, migrate it to this hsctl's schema, or\n"
	       "clean up after killed recorders.\v"
	       "EXAMPLES:\n"
	       "    hsctl db                           # same as hsctl db info\n"
	       "    hsctl -d old.db db info --format json\n"
	       "    hsctl -d old.db db migrate         # e.g. \"schema version 0 -> 1\"\n"
	       "    hsctl db recover                   # as root: what a killed record left\n"
	       "\nrecover unmounts the tracefs a killed recorder mounted, puts numa_balancing\n"
	       "back, removes its tracefs instance, cgroup (killing what still runs there) and\n"
	       "data file (undo notes in " HS_UNDO_DIR "; needs root), then builds its\n"
	       "sessions in this database as status killed; one line per thing restored.\n"
	       "\nThe schema is documented in hsctl-db(5).  Exit status: 0 success, 1 failure,\n"
	       "64 usage error, 65 not an hsctl database or a newer one, 66 no database file,\n"
	       "69 the database may not be read or written, or (recover) not root.",
};

enum info_col {
	IC_PATH, IC_APP_ID, IC_HSCTL, IC_VERSION, IC_SUPPORTED, IC_SESSIONS, IC_RUNS,
	IC_FILE_SIZE, IC_PAGE_SIZE, IC_PAGES, IC_FREE_PAGES, IC_JOURNAL, IC_NR
};

static const char *const info_names[IC_NR] = {
	[IC_PATH] = "path", [IC_APP_ID] = "application_id", [IC_HSCTL] = "hsctl_database",
	[IC_VERSION] = "schema_version", [IC_SUPPORTED] = "supported_version",
	[IC_SESSIONS] = "sessions", [IC_RUNS] = "runs", [IC_FILE_SIZE] = "file_size",
	[IC_PAGE_SIZE] = "page_size", [IC_PAGES] = "pages", [IC_FREE_PAGES] = "free_pages",
	[IC_JOURNAL] = "journal_mode",
};

/* Print @row as a record (hs_cli_print_record()); the exit status. */
static int print_row(const struct hs_sql_row *row)
{
	if (hs_cli_print_record(row)) {
		hs_err("db: out of memory");
		return HS_EXIT_FAILURE;
	}
	return HS_EXIT_OK;
}

static int do_info(void)
{
	enum hs_sql_type types[IC_NR];
	const char *texts[IC_NR] = { 0 };
	struct hs_store_info info;
	struct hs_store *st = NULL;
	int64_t ints[IC_NR] = { 0 };
	double reals[IC_NR] = { 0 };
	const struct hs_sql_row row = { IC_NR, info_names, types, ints, reals, texts };
	char app_id[16];
	struct stat sb;
	int status, err;
	size_t i;

	status = hs_cli_open_store(HS_STORE_RDONLY | HS_STORE_NOCREATE | HS_STORE_NOMIGRATE, &st);
	if (status)
		return status;
	err = hs_store_get_info(st, &info);
	if (err)
		status = hs_cli_store_err(st, HS_EXIT_FAILURE);
	hs_store_close(st);
	if (status)
		return status;

	for (i = 0; i < IC_NR; i++)
		types[i] = HS_SQL_INT;
	snprintf(app_id, sizeof(app_id), "0x%08" PRIx32, info.application_id);
	types[IC_PATH] = HS_SQL_TEXT;
	texts[IC_PATH] = hs_global.db;
	types[IC_APP_ID] = HS_SQL_TEXT;
	texts[IC_APP_ID] = app_id;
	types[IC_HSCTL] = HS_SQL_TEXT;
	texts[IC_HSCTL] = info.application_id == HS_STORE_APPLICATION_ID ? "yes" : "no (empty)";
	ints[IC_VERSION] = info.user_version;
	ints[IC_SUPPORTED] = HS_STORE_SCHEMA_VERSION;
	ints[IC_SESSIONS] = info.sessions;
	ints[IC_RUNS] = info.runs;
	if (info.sessions < 0)
		types[IC_SESSIONS] = types[IC_RUNS] = HS_SQL_NULL;
	ints[IC_FILE_SIZE] = stat(hs_global.db, &sb) ? 0 : (int64_t)sb.st_size;
	ints[IC_PAGE_SIZE] = info.page_size;
	ints[IC_PAGES] = info.page_count;
	ints[IC_FREE_PAGES] = info.freelist_count;
	types[IC_JOURNAL] = HS_SQL_TEXT;
	texts[IC_JOURNAL] = info.journal_mode;
	return print_row(&row);
}

static int do_migrate(void)
{
	static const char *const names[] = { "path", "from_version", "to_version" };
	const enum hs_sql_type types[] = { HS_SQL_TEXT, HS_SQL_INT, HS_SQL_INT };
	const char *texts[3] = { hs_global.db, NULL, NULL };
	struct hs_store *st = NULL;
	const double reals[3] = { 0 };
	int64_t ints[3] = { 0 };
	const struct hs_sql_row row = { 3, names, types, ints, reals, texts };
	int status;

	/* the version before, without touching the file */
	status = hs_cli_open_store(HS_STORE_RDONLY | HS_STORE_NOCREATE | HS_STORE_NOMIGRATE, &st);
	if (status)
		return status;
	ints[1] = hs_store_user_version(st);
	hs_store_close(st);
	ints[2] = ints[1];
	if (ints[1] < HS_STORE_SCHEMA_VERSION) {
		status = hs_cli_open_store(HS_STORE_NOCREATE, &st);	/* migrates */
		if (status)
			return status;
		ints[2] = hs_store_user_version(st);
		hs_store_close(st);
	}
	if (hs_global.format == HS_FMT_TABLE) {
		if (ints[1] == ints[2])
			printf("%s: schema version %" PRId64 " (up to date)\n", hs_global.db,
			       ints[2]);
		else
			printf("%s: schema version %" PRId64 " -> %" PRId64 "\n", hs_global.db,
			       ints[1], ints[2]);
		return HS_EXIT_OK;
	}
	return print_row(&row);
}

/* What recover restored: lines collected, printed at the end in the chosen format. */
struct recovered {
	char		**line;
	size_t		n;
	bool		nomem;
};

static void collect(void *arg, enum hs_recorder_level level, const char *msg)
{
	struct recovered *rc = arg;
	char **nl;

	if (level != HS_RECORDER_WARN) {
		hs_info("%s", msg);
		return;
	}
	nl = realloc(rc->line, (rc->n + 1) * sizeof(*nl));
	if (nl) {
		rc->line = nl;
		rc->line[rc->n] = strdup(msg);
	}
	if (!nl || !rc->line[rc->n])
		rc->nomem = true;
	else
		rc->n++;
}

static void print_recovered(const struct recovered *rc)
{
	struct hs_json j;
	const char *p;
	size_t i;

	if (hs_global.format == HS_FMT_JSON) {
		hs_json_init(&j, stdout, HS_JSON_SPACED);
		hs_json_object(&j);
		hs_json_key(&j, "recovered");
		hs_json_array(&j);
		for (i = 0; i < rc->n; i++)
			hs_json_str(&j, rc->line[i]);
		hs_json_end(&j);
		hs_json_end(&j);
		putchar('\n');
	} else if (hs_global.format == HS_FMT_CSV) {
		printf("recovered\n");
		for (i = 0; i < rc->n; i++) {
			putchar('"');
			for (p = rc->line[i]; *p; p++) {
				if (*p == '"')
					putchar('"');
				putchar(*p);
			}
			printf("\"\n");
		}
	} else if (!rc->n) {
		printf("nothing to recover\n");
	} else {
		for (i = 0; i < rc->n; i++)
			printf("%s\n", rc->line[i]);
	}
}

static int do_recover(void)
{
	struct recovered rc = { 0 };
	struct hs_store *st = NULL;
	int status = HS_EXIT_OK, err;
	size_t i;

	/* no database file: only the host is cleaned up */
	if (!access(hs_global.db, F_OK)) {
		status = hs_cli_open_store(HS_STORE_NOCREATE, &st);
		if (status)
			return status;
	}
	err = hs_recorder_recover(NULL, NULL, st, hs_global.db, collect, &rc);
	hs_store_close(st);
	if (rc.nomem) {
		hs_err("db recover: out of memory");
		status = HS_EXIT_FAILURE;
	} else if (err < 0) {
		hs_err("db recover: %s: %s%s", HS_UNDO_DIR, strerror(-err),
		       err == -EACCES || err == -EPERM ? " (undoing what a killed recorder "
		       "changed needs root)" : "");
		status = err == -EACCES || err == -EPERM ? HS_EXIT_UNAVAILABLE : HS_EXIT_FAILURE;
	}
	if (!status || rc.n)
		print_recovered(&rc);
	for (i = 0; i < rc.n; i++)
		free(rc.line[i]);
	free(rc.line);
	return status;
}

static int run(int argc, char **argv)
{
	struct args a = { 0 };

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	if (a.action == ACT_MIGRATE)
		return do_migrate();
	if (a.action == ACT_RECOVER)
		return do_recover();
	return do_info();
}

const struct hs_cmd hs_cmd_db = {
	.name = "db",
	.summary = "show facts about the database file, migrate it, or recover killed recordings",
	.run = run,
};
