/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every command shares: the global options, the one error reporter,
 * errno-to-exit-status mapping and opening the database.
 */
#include "config.h"

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

int hs_cli_set_format(const char *arg)
{
	if (hs_format_parse(arg, &hs_global.format)) {
		hs_err("unknown format '%s' (valid: table, csv, json)", arg);
		return HS_EXIT_USAGE;
	}
	hs_global.format_set = true;
	return 0;
}

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
