/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl's main(): global options (-d/--db, -v, -f/--format), command lookup and
 * dispatch.  The top-level parser runs with ARGP_IN_ORDER; the first non-option
 * argument names the command, whose own argp parses the rest with argv[0] set
 * to "hsctl <command>".  The command's run() returns the exit status.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "hs.h"

const char *argp_program_version = PACKAGE_STRING;

static const struct hs_cmd *const cmds[] = {
	&hs_cmd_record,
	&hs_cmd_import,
	&hs_cmd_export,
	&hs_cmd_gen,
	&hs_cmd_replay,
	&hs_cmd_mrc,
	&hs_cmd_fidelity,
	&hs_cmd_report,
	&hs_cmd_sessions,
	&hs_cmd_sql,
	&hs_cmd_policy,
	&hs_cmd_db,
};

struct top_state {
	const struct hs_cmd	*cmd;		/* the command found */
	int			cmd_argc;	/* its arguments, argv[0] = its name */
	char			**cmd_argv;
};

static const struct argp_option top_options[] = {
	{ "db", 'd', "FILE", 0, "SQLite database (default: hsctl.db)", 0 },
	{ "verbose", 'v', NULL, 0, "Say more on stderr (repeat for more)", 0 },
	{ 0 }
};

static const struct hs_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top_state *ts = state->input;

	switch (key) {
	case 'd':
		/*
		 * SQLite would take both as a private in-memory database: the
		 * command would succeed and its results vanish at exit.
		 */
		if (!*arg || !strcmp(arg, ":memory:")) {
			hs_err("-d/--db: '%s' is not a file name (SQLite would use a"
			       " throw-away in-memory database)", arg);
			exit(HS_EXIT_USAGE);
		}
		hs_global.db = arg;
		break;
	case 'v':
		hs_global.verbose++;
		break;
	case ARGP_KEY_ARG:
		ts->cmd = find_cmd(arg);
		if (!ts->cmd)
			argp_error(state, "unknown command '%s' (see 'hsctl --help')", arg);
		ts->cmd_argv = &state->argv[state->next - 1];
		ts->cmd_argc = state->argc - state->next + 1;
		state->next = state->argc;	/* the command parses the rest */
		break;
	case ARGP_KEY_END:
		if (!ts->cmd)
			argp_error(state, "no command given (see 'hsctl --help')");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The command list in --help comes from cmds[], never written by hand. */
static char *top_help_filter(int key, const char *text, void *input)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	size_t i;

	(void)input;
	if (key != ARGP_KEY_HELP_PRE_DOC)
		return (char *)text;
	fp = open_memstream(&buf, &len);
	if (!fp)
		return (char *)text;
	fprintf(fp, "%s\n\nCommands:\n", text);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(fp, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(fp, "\nRun 'hsctl COMMAND --help' for a command's options.");
	if (fclose(fp))
		return (char *)text;
	return buf;
}

static const struct argp top_argp = {
	.options = top_options,
	.parser = top_parse,
	.args_doc = "COMMAND [ARG...]",
	.children = hs_format_children,
	.doc = "Record Linux page reclaim and replay it through replacement policies.\v"
	       "EXAMPLES:\n"
	       "    hsctl gen zipf --seed 1          # make a synthetic session\n"
	       "    hsctl replay 1 --policy all --size 1000,5000\n"
	       "    hsctl import --type lirs cpp.trace.gz\n"
	       "    hsctl sql 'SELECT policy, hit_ratio FROM v_runs'\n"
	       "\nExit status: 0 success, 1 failure, 64 usage error, 65 bad input data,\n"
	       "66 input not found, 69 tracefs or permission unavailable.",
	.help_filter = top_help_filter,
};

int main(int argc, char **argv)
{
	struct top_state ts = { 0 };
	char name[64];
	int status;

	argp_err_exit_status = HS_EXIT_USAGE;
	if (argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &ts))
		return HS_EXIT_USAGE;
	/* argp prints argv[0] as the program name: make it "hsctl <command>". */
	snprintf(name, sizeof(name), "hsctl %s", ts.cmd->name);
	ts.cmd_argv[0] = name;
	status = ts.cmd->run(ts.cmd_argc, ts.cmd_argv);
	if (fflush(stdout) || ferror(stdout)) {
		hs_err("writing standard output: %s", strerror(errno ? errno : EIO));
		if (status == HS_EXIT_OK)
			status = HS_EXIT_FAILURE;
	}
	return status;
}
