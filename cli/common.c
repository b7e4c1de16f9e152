/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every command shares: the global options, the -f/--format option
 * (one child argp that every command's argp includes), the one error
 * reporter, errno-to-exit-status mapping and opening the database.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "hs.h"
#include "store.h"

struct hs_global hs_global = {
	.db = "hsctl.db",
	.format = HS_FMT_TABLE,
};

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "hsctl: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void hs_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void hs_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void hs_info(const char *fmt, ...)
{
	va_list ap;

	if (!hs_global.verbose)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

/**
 * hs_exit_from_errno() - the exit status for a lib/ error
 * @err: negative errno
 *
 * Return: HS_EXIT_DATAERR for malformed data, HS_EXIT_NOINPUT for a missing
 * input, HS_EXIT_USAGE for invalid arguments, HS_EXIT_UNAVAILABLE for missing
 * permissions, else HS_EXIT_FAILURE.
 */
int hs_exit_from_errno(int err)
{
	switch (-err) {
	case 0:
		return HS_EXIT_OK;
	case EBADMSG:
	case EPROTO:
	case EILSEQ:
	case ENODATA:
		return HS_EXIT_DATAERR;
	case ENOENT:
	case ENOTDIR:
	case EISDIR:
		return HS_EXIT_NOINPUT;
	case EINVAL:
	case ERANGE:
		return HS_EXIT_USAGE;
	case EPERM:
	case EACCES:
		return HS_EXIT_UNAVAILABLE;
	default:
		return HS_EXIT_FAILURE;
	}
}

/**
 * hs_cli_set_format() - set hs_global.format from a --format value
 * @arg: "table", "csv" or "json"
 *
 * Prints "hsctl: unknown format 'ARG' (valid: table, csv, json)" when @arg is
 * none of them.
 *
 * Return: 0, or HS_EXIT_USAGE.
 */
int hs_cli_set_format(const char *arg)
{
	if (hs_format_parse(arg, &hs_global.format)) {
		hs_err("unknown format '%s' (valid: table, csv, json)", arg);
		return HS_EXIT_USAGE;
	}
	hs_global.format_set = true;
	return 0;
}

static const struct argp_option format_options[] = {
	{ "format", 'f', "FMT", 0, "Output format: table, csv or json (default: table)", 0 },
	{ 0 }
};

static error_t format_parse(int key, char *arg, struct argp_state *state)
{
	(void)state;
	if (key != 'f')
		return ARGP_ERR_UNKNOWN;
	/* Reported on stderr in one line; argp_parse() then returns EINVAL: exit 64. */
	return hs_cli_set_format(arg) ? EINVAL : 0;
}

/* The -f/--format option alone; hs_format_children puts it in each command's argp. */
static const struct argp hs_format_argp = {
	.options = format_options,
	.parser = format_parse,
};

const struct argp_child hs_format_children[] = {
	{ &hs_format_argp, 0, "Output:", 90 },
	{ 0 }
};

/**
 * hs_cli_open_store() - open the database named by -d/--db
 * @flags: HS_STORE_* flags
 * @out: the store
 *
 * Prints "hsctl: FILE: reason" on failure.
 *
 * Return: 0, or the exit status to return.
 */
int hs_cli_open_store(unsigned int flags, struct hs_store **out)
{
	struct hs_store *st = NULL;
	int err;

	err = hs_store_open(hs_global.db, flags, &st);
	if (err) {
		hs_err("%s: %s", hs_global.db,
		       st ? hs_store_errmsg(st) : strerror(-err));
		hs_store_close(st);
		return err == -EPROTO ? HS_EXIT_DATAERR : err == -ENOENT ? HS_EXIT_NOINPUT
									 : HS_EXIT_FAILURE;
	}
	*out = st;
	return 0;
}
