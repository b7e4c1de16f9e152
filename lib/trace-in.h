/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace readers for `hsctl import`: turn a cache trace file into a stream of
 * (original 64-bit key, meta byte) records.  A file may be gzip-compressed
 * (one or more members, nothing after them) or plain.  Formats:
 *
 *   text    one unsigned decimal key per line; blank lines skipped
 *   lirs    like text, and lines holding only "*" are skipped (LIRS traces)
 *   lis     ARC traces: "start n ignored reqno"; expands to the n blocks
 *           start .. start + n - 1, first to last or (reverse) last to first
 *   csv     comma-separated; the key is column N (1-based); a decimal field is
 *           the key itself, any other field is hashed with FNV-1a 64
 *   oracle  libCacheSim oracleGeneral: 24-byte little-endian records
 *           (u32 time, u64 obj_id, u32 size, i64 next_access_vtime)
 *   u32be   raw big-endian 32-bit ids (the cache2k traces)
 *
 * u32be refuses a file whose first 4 KiB (decompressed) are printable
 * ASCII with a line end: that is a text trace given the wrong --type, which
 * would otherwise import as garbage ids (opts.force reads it anyway).  The
 * other formats need no such guess: oracle's next-access check refuses text
 * (ASCII bytes make next_access_vtime point far past the end) and the text
 * parsers refuse binary data on its first line.
 *
 * Text formats accept leading and trailing blanks and CRLF line ends.  The
 * meta byte is the same for every record (hs_meta_make() of the options).
 * Nothing here prints or touches SQLite; errors come back as a negative errno
 * with a one-line message naming the file and the line or byte offset.
 */
#ifndef HS_TRACE_IN_H
#define HS_TRACE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hs_trace_type {
	HS_TRACE_TEXT,		/* one decimal key per line */
	HS_TRACE_LIRS,		/* text, skipping "*" lines */
	HS_TRACE_LIS,		/* ARC .lis block ranges */
	HS_TRACE_CSV,		/* one column of a CSV file */
	HS_TRACE_ORACLE,	/* libCacheSim oracleGeneral binary */
	HS_TRACE_U32BE,		/* raw big-endian 32-bit ids */
	HS_TRACE_NR
};

/* Largest block count one .lis line may ask for; more is rejected as bad data. */
#define HS_TRACE_LIS_MAX_N	(1u << 24)

/* Longest text line accepted (bytes, without the line end). */
#define HS_TRACE_MAX_LINE	(64u * 1024)

struct hs_trace_opts {
	enum hs_trace_type	type;		/* input format */
	bool			lis_reverse;	/* lis: touch start + n - 1 down to start */
	unsigned int		csv_column;	/* csv: 1-based key column (0 means 1) */
	bool			csv_header;	/* csv: the first line is a header */
	uint8_t			meta;		/* meta byte given to every record */
	uint64_t		max_records;	/* refuse a trace of more records than
						 * this (a few bytes of .lis expand to
						 * 2^24 blocks); 0: no limit */
	bool			force;		/* u32be: read the file even when
						 * its first bytes look like text */
};

/**
 * hs_trace_type_parse() - look a format up by name
 * @name: "text", "lirs", "lis", "csv", "oracle" or "u32be"
 * @out: the type
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int hs_trace_type_parse(const char *name, enum hs_trace_type *out);

/**
 * hs_trace_type_name() - a format's name
 * @type: the format
 *
 * Return: its name, or "?" for a bad value.
 */
const char *hs_trace_type_name(enum hs_trace_type type);

/**
 * hs_trace_type_unit() - what one record of a format counts
 * @type: the format
 *
 * Return: "block" for lis, else "object" (the capacity unit of DESIGN.md).
 */
const char *hs_trace_type_unit(enum hs_trace_type type);

/**
 * hs_trace_type_list() - every format name, for messages
 *
 * Return: "text, lirs, lis, csv, oracle, u32be".
 */
const char *hs_trace_type_list(void);

/**
 * hs_trace_hash_str() - the stable hash that turns a non-numeric csv key into a key
 * @s: bytes
 * @len: their count
 *
 * FNV-1a, 64 bits: offset basis 14695981039346656037, prime 1099511628211.
 *
 * Return: the hash.
 */
uint64_t hs_trace_hash_str(const char *s, size_t len);

struct hs_trace_reader;

/**
 * hs_trace_open() - open a trace for reading
 * @path: file name; "-" reads standard input
 * @opts: format and options
 * @out: the reader
 *
 * Return: 0; -ENOENT/-EACCES/-EISDIR/... when the file cannot be opened;
 * -EINVAL for bad options; -ENOMEM.  On error other than -ENOMEM *out is
 * still set so hs_trace_errmsg() can be read; close it afterwards.
 */
int hs_trace_open(const char *path, const struct hs_trace_opts *opts,
		  struct hs_trace_reader **out);

/**
 * hs_trace_next() - the next record
 * @r: the reader
 * @key: receives the original key
 * @meta: receives the meta byte
 *
 * Return: 1 with a record, 0 at the end of the input, or a negative errno:
 * -EBADMSG for malformed data (bad number, wrong field count, truncated
 * record, corrupt or truncated gzip data, text given to u32be without
 * opts.force), -ENODATA when the input ended
 * without a single record, -EFBIG when it holds more than opts.max_records
 * ("FILE:LINE: more than N records"), -EIO for a read error.  After an
 * error the reader keeps returning it.
 */
int hs_trace_next(struct hs_trace_reader *r, uint64_t *key, uint8_t *meta);

/**
 * hs_trace_next_many() - up to @max records at once
 * @r: the reader
 * @keys: receives the keys
 * @max: room in @keys (at least 1)
 * @meta: receives the meta byte (the same for every record)
 *
 * The same records, errors and messages as @max calls of hs_trace_next(),
 * faster: oracle and u32be records are decoded straight from the buffer.
 *
 * Return: records stored (> 0), or 0 at the end, or a negative errno as
 * hs_trace_next() returns them; records read before an error come first,
 * the error with the next call.
 */
long hs_trace_next_many(struct hs_trace_reader *r, uint64_t *keys, size_t max, uint8_t *meta);

/* hs_trace_sample_keys() samples one distinct key in 2^HS_TRACE_SAMPLE_SHIFT. */
#define HS_TRACE_SAMPLE_SHIFT	6

/**
 * hs_trace_sample_keys() - a sample of the distinct keys still to be read
 * @r: the reader
 * @keys: receives a malloc()ed array of them (free() it)
 *
 * For oracle and u32be plain regular files of 1 MiB or more, read with
 * pread(2) without moving the reader: one pass over the rest of the file, which keeps
 * the keys whose hash falls in a 2^-HS_TRACE_SAMPLE_SHIFT share of its
 * range, each once.  Those of them not seen so far, times
 * 2^HS_TRACE_SAMPLE_SHIFT, estimate the new keys to come.
 *
 * Return: how many keys (>= 0), -EOPNOTSUPP for any other input, or -ENOMEM.
 */
long hs_trace_sample_keys(struct hs_trace_reader *r, uint64_t **keys);

/**
 * hs_trace_oracle_keys() - the distinct keys of an oracle file, by its marks
 * @r: the reader
 * @keys: receives the records that say they are their key's last access
 *         (next_access_vtime -1 or 2^63-1), read and still to read: the
 *         distinct keys, if the file is what it claims
 *
 * For plain oracle files of 1 MiB or more (read with pread(2)): one pass
 * over the rest of the file.  For sizing, not for anything that must be exact.
 *
 * Return: 0, or -EOPNOTSUPP for any other input.
 */
int hs_trace_oracle_keys(struct hs_trace_reader *r, uint64_t *keys);

/*
 * hs_trace_oracle_keys() from one slice of 4,096 records in 16 of the rest,
 * scaled up: a sixteenth of the pass, for sizing before the first records.
 */
int hs_trace_oracle_keys_estimate(struct hs_trace_reader *r, uint64_t *keys);

/* oracle: the records read so far that say they are their key's last access. */
uint64_t hs_trace_oracle_lasts(const struct hs_trace_reader *r);

/**
 * hs_trace_errmsg() - the reason for the last error
 * @r: the reader
 *
 * Return: "FILE:LINE: reason" or "FILE: byte N: reason", or "" if none.
 */
const char *hs_trace_errmsg(const struct hs_trace_reader *r);

/**
 * hs_trace_records() - records returned so far
 * @r: the reader
 *
 * Return: their count.
 */
uint64_t hs_trace_records(const struct hs_trace_reader *r);

/**
 * hs_trace_progress() - how far into the file the reader is
 * @r: the reader
 * @done: receives the bytes of the file consumed (compressed bytes for gzip)
 * @total: receives the file size, or 0 when unknown (a pipe)
 *
 * Return: 0.
 */
int hs_trace_progress(const struct hs_trace_reader *r, uint64_t *done, uint64_t *total);

/**
 * hs_trace_lis_requests() - lis: the request lines read so far
 * @r: the reader
 * @requests: receives their count
 * @multi: receives how many of them span more than one block (those whose
 *         order opts.lis_reverse decides)
 *
 * Return: 0, or -EINVAL for a reader of another type.
 */
int hs_trace_lis_requests(const struct hs_trace_reader *r, uint64_t *requests, uint64_t *multi);

/* Close the file and free the reader; accepts NULL. */
void hs_trace_close(struct hs_trace_reader *r);

/**
 * hs_trace_read() - read a whole trace through a callback
 * @path: file name
 * @opts: format and options
 * @cb: called once per record; a non-zero return stops the read and is returned
 * @arg: passed to @cb
 * @err: receives the error message (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 when every record was delivered, a negative errno as for
 * hs_trace_open() and hs_trace_next(), or @cb's non-zero value.
 */
int hs_trace_read(const char *path, const struct hs_trace_opts *opts,
		  int (*cb)(void *arg, uint64_t key, uint8_t meta), void *arg,
		  char *err, size_t errlen);

#endif /* HS_TRACE_IN_H */
