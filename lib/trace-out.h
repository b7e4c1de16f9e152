/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace writers for `hsctl export`: the way back from a stored session to a
 * trace file that hsctl import, libCacheSim's cachesim and other tools read.
 * A stored stream holds dense key ids; the export maps them back to the
 * original 64-bit ids the store keeps (session_keys, through the store's
 * hs_key() SQL function) and writes one record per access:
 *
 *   text    one unsigned decimal key per line
 *   lirs    the same (the LIRS traces are one block id per line; no "*"
 *           checkpoint markers are written)
 *   csv     a header line "key,kind,channel,write", then per access the key,
 *           "file"/"anon", "pt"/"fd" and 0/1: `hsctl import --type csv
 *           --header` reads it back (key column 1)
 *   oracle  libCacheSim oracleGeneral: 24-byte little-endian records
 *           (u32 time, u64 obj_id, u32 size, i64 next_access_vtime) with
 *           time 0, size the session's unit in bytes (page 4096, block 512,
 *           object 1), and next_access_vtime the 1-based index of the key's
 *           next access, -1 for none (libCacheSim's traceConv convention)
 *
 * Hints and drops (PAGEOUT, COLD, DROP records of recorded sessions) are not
 * accesses and none of these formats can say them: they are skipped and
 * counted.  Everything is written through zlib, compressed or transparent.
 * Nothing here prints; errors come back as a negative errno with a one-line
 * message.
 */
#ifndef HS_TRACE_OUT_H
#define HS_TRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-in.h"

struct hs_store;
struct hs_trace_writer;

struct hs_trace_out_opts {
	enum hs_trace_type	type;		/* text, lirs, csv or oracle */
	bool			gzip;		/* gzip-compress the output */
	uint32_t		obj_size;	/* oracle: the size field of every record */
};

/**
 * hs_trace_out_supported() - can a format be written?
 * @type: the format
 *
 * Return: true for text, lirs, csv and oracle.
 */
bool hs_trace_out_supported(enum hs_trace_type type);

/**
 * hs_trace_out_list() - the formats that can be written, for messages
 *
 * Return: "text, lirs, csv, oracle".
 */
const char *hs_trace_out_list(void);

/**
 * hs_trace_unit_bytes() - the oracle size field for a session's unit
 * @unit: "page", "block" or "object" (hs_session_info.unit)
 *
 * Return: 4096, 512, or 1 for "object" and anything else.
 */
uint32_t hs_trace_unit_bytes(const char *unit);

/**
 * hs_trace_writer_open() - create a trace file
 * @path: file name (created or truncated, mode 0666 before umask); "-" writes
 *	  to standard output
 * @opts: format and options
 * @out: the writer
 *
 * Return: 0; -EINVAL for a format that cannot be written; -EACCES, -ENOENT,
 * -EISDIR, ... when the file cannot be created; -ENOMEM.  On error other than
 * -ENOMEM *out is still set so hs_trace_writer_errmsg() can be read; free it
 * afterwards.
 */
int hs_trace_writer_open(const char *path, const struct hs_trace_out_opts *opts,
			 struct hs_trace_writer **out);

/**
 * hs_trace_writer_add() - append one access
 * @w: the writer
 * @key: the original key
 * @meta: its meta byte (csv writes kind, channel and write from it)
 * @next_vtime: oracle: 1-based index of the key's next access, or -1
 *
 * Return: 0 or a negative errno (-EIO, -ENOSPC, ...: a write failed).  After
 * an error the writer keeps returning it.
 */
int hs_trace_writer_add(struct hs_trace_writer *w, uint64_t key, uint8_t meta,
			int64_t next_vtime);

/**
 * hs_trace_writer_finish() - flush and close the file
 * @w: the writer
 *
 * Return: 0, or a negative errno when anything written was lost (the first
 * error of hs_trace_writer_add() included).
 */
int hs_trace_writer_finish(struct hs_trace_writer *w);

/**
 * hs_trace_writer_errmsg() - the reason for the last error
 * @w: the writer
 *
 * Return: "FILE: reason", or "" if none.
 */
const char *hs_trace_writer_errmsg(const struct hs_trace_writer *w);

/* Free a writer (closing the file if hs_trace_writer_finish() was not called); accepts NULL. */
void hs_trace_writer_free(struct hs_trace_writer *w);

/**
 * struct hs_trace_export_stats - what hs_trace_export() wrote
 */
struct hs_trace_export_stats {
	uint64_t	records;	/* accesses written */
	uint64_t	skipped;	/* hints and drops left out */
	uint64_t	distinct_keys;	/* the session's keys */
};

/**
 * hs_trace_export() - write a stored session's accesses through a writer
 * @st: the store
 * @session: the session
 * @w: an open writer (not finished here)
 * @stats: receives the counts
 * @err: receives the error message (may be NULL)
 * @errlen: size of @err
 *
 * The stream is read chunk by chunk; for oracle it is held in memory
 * (13 bytes per record) so that hs_next_use_fill() can compute the next
 * accesses.  The original ids take 8 bytes per distinct key.
 *
 * Return: 0, -ENOENT (no such session), -EBADMSG (a corrupt stream or key
 * table), -ENOMEM, or the writer's or the store's negative errno.
 */
int hs_trace_export(struct hs_store *st, int64_t session, struct hs_trace_writer *w,
		    struct hs_trace_export_stats *stats, char *err, size_t errlen);

#endif /* HS_TRACE_OUT_H */
