/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Subcommands.  Each cli/cmd-<name>.c ends with one const struct hs_cmd; the
 * table in cli/hsctl.c lists them.  run() parses its own argv with its argp
 * (argv[0] is "hsctl <name>") and returns the exit status (lib/hs.h).
 */
#ifndef HS_CMD_H
#define HS_CMD_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

#include "access.h"
#include "output.h"

struct hs_cmd {
	const char		*name;		/* "replay" */
	const char		*summary;	/* one line for `hsctl --help` */
	int			(*run)(int argc, char **argv);	/* returns an exit status */
};

/* Global options, parsed by cli/hsctl.c before the command. */
struct hs_global {
	const char	*db;		/* -d/--db, default "hsctl.db" */
	int		verbose;	/* -v count */
	enum hs_format	format;		/* --format, default table */
	bool		format_set;	/* --format was given */
};

extern struct hs_global hs_global;

/* "hsctl: <what>: <why>" on stderr, printf-style.  The one error reporter. */
void hs_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same prefix, "warning: " after it. */
void hs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same prefix, "note: " after it: something the user should know, always shown. */
void hs_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Debug line on stderr when -v was given. */
void hs_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Map a negative errno from lib/ to an exit status (HS_EXIT_*). */
int hs_exit_from_errno(int err);

/* Open the global database; prints the error and returns an exit status on failure (else 0). */
struct hs_store;
int hs_cli_open_store(unsigned int flags, struct hs_store **out);
/* "hsctl: DB: <the store's last error>"; returns @status. */
int hs_cli_store_err(struct hs_store *st, int status);
/* "hsctl: CMD: <out of memory or the store's error>"; returns 64 for -EPERM, else 1. */
int hs_cli_query_err(struct hs_store *st, const char *cmd, int err);

/* The policy @name, or NULL after "hsctl: WHATunknown policy 'NAME' (valid: ...)". */
struct hs_policy_ops;
const struct hs_policy_ops *hs_cli_find_policy(const char *what, const char *name);

/* A SESSION argument (0 or HS_EXIT_USAGE); a stored session (0 or the exit status). */
struct hs_session_info;
int hs_cli_parse_session(const char *arg, int64_t *id);
int hs_cli_get_session(struct hs_store *st, int64_t id, struct hs_session_info *info);
/* The same for a command that reads its accesses: none is an error (65), a session
 * not complete a warning.  0 or the exit status, after printing why. */
int hs_cli_get_stream_session(struct hs_store *st, int64_t id, struct hs_session_info *info);
/* LRU and OPT, whose whole miss-ratio curve one pass computes. */
bool hs_cli_is_stack_policy(const struct hs_policy_ops *ops);

/* The policies of a --policy list (NULL: @def; @def NULL: all); 0 or HS_EXIT_USAGE. */
int hs_cli_pick_policies(char *list, const char *def, const char *what,
			 const struct hs_policy_ops **out, size_t max, size_t *n);

/*
 * The kernel row's one line of text (record's summary, replay's table): in
 * pages; on kernels without readahead events it says that the demand misses
 * include the pages read ahead rather than print a readahead count of 0.
 */
struct hs_kernel_row;
void hs_cli_print_kernel_row(const struct hs_kernel_row *k);

/*
 * The sizes of a --sizes list (analyzers/mrc.h's grammar) for a session, in
 * its units; 0, or the exit status after printing why, the option named @what.
 */
int hs_cli_pick_sizes(const char *spec, const char *what, const struct hs_session_info *info,
		      uint64_t **sizes, size_t *n);

/*
 * The chart style (analyzers/plot.h) of a policy, the same in every chart:
 * opt 0 (solid black, the floor), the most compared policies the most distinct.
 */
unsigned int hs_cli_policy_style(const struct hs_policy_ops *ops);

/* Set hs_global.format from a --format value: 0, or prints the error and returns HS_EXIT_USAGE. */
int hs_cli_set_format(const char *arg);

/*
 * -f/--format FMT, the same in every command and before the command: set
 * .children of an argp to hs_format_children and the option is parsed there
 * (with hs_cli_set_format()) and shown under "Output:" in its --help.
 */
extern const struct argp_child hs_format_children[];

/*
 * In an argp parser: the index of @arg in the NULL-terminated @choices, else
 * argp_error() "unknown WHAT 'ARG' (valid: A, B)" and exit 64.
 */
int hs_cli_argp_choice(struct argp_state *state, const char *what, const char *arg,
		       const char *const *choices);

/*
 * --kind (anon, file) and --channel (pt, fd): parse (0 or -EINVAL), or in an
 * argp parser the value or argp_error() "unknown kind 'X' (valid: anon, file)".
 */
int hs_cli_parse_kind(const char *s, enum hs_type *out);
int hs_cli_parse_channel(const char *s, enum hs_channel *out);
enum hs_type hs_cli_argp_kind(struct argp_state *state, const char *arg);
enum hs_channel hs_cli_argp_channel(struct argp_state *state, const char *arg);

/*
 * A progress line on stderr (import, replay): start the clock, ask whether a
 * line is due (0.25 s after the last one, or @force; *elapsed = seconds since
 * the start) and draw it if so, and blank @width columns at the end if any
 * line was drawn.
 */
struct hs_cli_progress {
	double		start;		/* CLOCK_MONOTONIC seconds at the start */
	double		last;		/* when the last line was drawn */
	bool		shown;		/* a line is on the terminal */
};
void hs_cli_progress_start(struct hs_cli_progress *pr);
bool hs_cli_progress_due(struct hs_cli_progress *pr, bool force, double *elapsed);
void hs_cli_progress_end(struct hs_cli_progress *pr, int width);

/*
 * cli/print.c.  A new session (import, gen): "session N: A accesses, D distinct
 * keys (NAME)", csv, json.
 */
int hs_cli_print_session(struct hs_store *st, int64_t id);	/* returns an exit status */

/*
 * cli/print.c, for cmd-sql.c, cmd-sessions.c and cmd-db.c: print the rows of
 * @sql in hs_global.format (table and CSV through lib/output.h, JSON as an
 * array of objects keyed by column name, with numbers as numbers).  With
 * @record, only the first row is printed, as "name  value" lines in a table
 * and as one JSON object.  Return: 0, or -errno from the store (message in
 * hs_store_errmsg()) or -ENOMEM.
 */
struct hs_sql_row;
int hs_cli_print_query(struct hs_store *st, const char *sql, bool record);
/* Print one row as a record (see above).  Return: 0 or -ENOMEM. */
int hs_cli_print_record(const struct hs_sql_row *row);
/*
 * Write a row's cells as the members of the JSON object open in @j, each
 * under its column name and as its own type.  Return: 0 or the writer's error.
 */
struct hs_json;
int hs_cli_json_row(struct hs_json *j, const struct hs_sql_row *row);

extern const struct hs_cmd hs_cmd_import, hs_cmd_gen, hs_cmd_replay, hs_cmd_sessions,
	hs_cmd_sql, hs_cmd_policy, hs_cmd_db, hs_cmd_record, hs_cmd_mrc, hs_cmd_fidelity;
extern const struct hs_cmd hs_cmd_export;
extern const struct hs_cmd hs_cmd_report;

#endif /* HS_CMD_H */
