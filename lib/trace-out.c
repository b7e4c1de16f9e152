/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace writers (trace-out.h).  A writer owns a gzFile, opened "wb" for a
 * compressed file and "wbT" (zlib's transparent mode: bytes pass through
 * unchanged) for a plain one, so one code path writes both; records are
 * formatted by hand into a buffer that is handed to gzwrite() when full.
 * Errors are sticky: the first one is kept with its message.
 *
 * hs_trace_export() is the loop from the store to a writer.  The original ids
 * come from the store's documented SQL function hs_key(session, key), asked
 * for every dense id in one query (a recursive CTE counts them), which
 * decodes each key chunk once; next-access times for oracle come from
 * hs_next_use_fill(), the function the OPT policy's replays rely on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "access.h"
#include "hs.h"
#include "sim.h"
#include "store.h"
#include "trace-out.h"

#define OUT_BUF		(64u * 1024)	/* bytes formatted before one gzwrite() */
#define OUT_REC_MAX	96u		/* longest record of any format */
#define ORACLE_REC	24u		/* bytes per oracleGeneral record */

struct hs_trace_writer {
	gzFile			gz;		/* the output; NULL once closed or never opened */
	char			*path;		/* name used in messages */
	struct hs_trace_out_opts o;		/* options */
	unsigned char		*buf;		/* OUT_BUF bytes being filled */
	size_t			len;		/* bytes in buf */
	int			err;		/* sticky negative errno, 0 while fine */
	char			msg[512];	/* message for err */
};

static int fail(struct hs_trace_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error with its message; returns the (sticky) error. */
static int fail(struct hs_trace_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->err)
		return w->err;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	w->err = err;
	return err;
}

/**
 * hs_trace_out_supported() - can a format be written?
 * @type: the format
 *
 * Return: true for text, lirs, csv and oracle.
 */
bool hs_trace_out_supported(enum hs_trace_type type)
{
	return type == HS_TRACE_TEXT || type == HS_TRACE_LIRS || type == HS_TRACE_CSV ||
	       type == HS_TRACE_ORACLE;
}

/**
 * hs_trace_out_list() - the formats that can be written
 *
 * Return: a comma-separated list.
 */
const char *hs_trace_out_list(void)
{
	return "text, lirs, csv, oracle";
}

/**
 * hs_trace_unit_bytes() - the oracle size field for a session's unit
 * @unit: the unit
 *
 * Return: bytes per unit, 1 for objects.
 */
uint32_t hs_trace_unit_bytes(const char *unit)
{
	if (!strcmp(unit, "page"))
		return 4096;
	if (!strcmp(unit, "block"))
		return 512;
	return 1;
}

/* The zlib error of the last call as an errno, with its message. */
static int gz_fail(struct hs_trace_writer *w, const char *what)
{
	int saved = errno, zerr;
	const char *zmsg = gzerror(w->gz, &zerr);

	if (zerr == Z_ERRNO) {
		int e = saved ? saved : EIO;

		return fail(w, -e, "%s: %s: %s", w->path, what, strerror(e));
	}
	if (zerr == Z_MEM_ERROR)
		return fail(w, -ENOMEM, "%s: %s: %s", w->path, what, strerror(ENOMEM));
	return fail(w, -EIO, "%s: %s: %s", w->path, what, zmsg);
}

static int flush_buf(struct hs_trace_writer *w)
{
	if (!w->len)
		return 0;
	errno = 0;
	if (gzwrite(w->gz, w->buf, (unsigned int)w->len) != (int)w->len)
		return gz_fail(w, "write error");
	w->len = 0;
	return 0;
}

/**
 * hs_trace_writer_open() - create a trace file
 * @path: file name, "-" for standard output
 * @opts: format and options
 * @out: the writer
 *
 * Return: 0 or a negative errno; see trace-out.h.
 */
int hs_trace_writer_open(const char *path, const struct hs_trace_out_opts *opts,
			 struct hs_trace_writer **out)
{
	struct hs_trace_writer *w;
	int fd, err;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->o = *opts;
	w->path = strdup(strcmp(path, "-") ? path : "(stdout)");
	w->buf = malloc(OUT_BUF);
	if (!w->path || !w->buf) {
		free(w->buf);
		free(w->path);
		free(w);
		return -ENOMEM;
	}
	*out = w;
	if (!hs_trace_out_supported(w->o.type))
		return fail(w, -EINVAL, "%s: cannot write type %s (valid: %s)", w->path,
			    hs_trace_type_name(w->o.type), hs_trace_out_list());

	if (strcmp(path, "-"))
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	else
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		return fail(w, -err, "%s: %s", w->path, strerror(err));
	}
	w->gz = gzdopen(fd, w->o.gzip ? "wb" : "wbT");
	if (!w->gz) {
		close(fd);
		return fail(w, -ENOMEM, "%s: %s", w->path, strerror(ENOMEM));
	}
	if (w->o.type == HS_TRACE_CSV) {
		static const char header[] = "key,kind,channel,write\n";

		memcpy(w->buf, header, sizeof(header) - 1);
		w->len = sizeof(header) - 1;
	}
	return 0;
}

/* Unsigned decimal into p; returns the bytes written. */
static size_t put_dec(unsigned char *p, uint64_t v)
{
	unsigned char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (unsigned char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

static void put_le(unsigned char *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

/**
 * hs_trace_writer_add() - append one access
 * @w: the writer
 * @key: the original key
 * @meta: its meta byte
 * @next_vtime: oracle: 1-based index of the next access, or -1
 *
 * Return: 0 or a negative errno.
 */
int hs_trace_writer_add(struct hs_trace_writer *w, uint64_t key, uint8_t meta,
			int64_t next_vtime)
{
	unsigned char *p;
	size_t n;
	int ret;

	if (w->err)
		return w->err;
	if (OUT_BUF - w->len < OUT_REC_MAX) {
		ret = flush_buf(w);
		if (ret)
			return ret;
	}
	p = w->buf + w->len;
	switch (w->o.type) {
	case HS_TRACE_ORACLE:
		put_le(p, 0, 4);
		put_le(p + 4, key, 8);
		put_le(p + 12, w->o.obj_size, 4);
		put_le(p + 16, (uint64_t)next_vtime, 8);
		n = ORACLE_REC;
		break;
	case HS_TRACE_CSV: {
		const char *kind = meta & HS_META_ANON ? "anon" : "file";
		const char *ch = hs_channel_name(hs_meta_channel(meta));

		n = put_dec(p, key);
		n += (size_t)snprintf((char *)p + n, OUT_REC_MAX - n, ",%s,%s,%d\n", kind, ch,
				      meta & HS_META_WRITE ? 1 : 0);
		break;
	}
	default:	/* text, lirs */
		n = put_dec(p, key);
		p[n++] = '\n';
		break;
	}
	w->len += n;
	return 0;
}

/**
 * hs_trace_writer_finish() - flush and close the file
 * @w: the writer
 *
 * Return: 0 or a negative errno.
 */
int hs_trace_writer_finish(struct hs_trace_writer *w)
{
	int zerr;

	if (!w->gz)
		return w->err ? w->err : fail(w, -EBADF, "%s: not open", w->path);
	if (!w->err)
		flush_buf(w);
	errno = 0;
	zerr = gzclose(w->gz);
	w->gz = NULL;
	if (zerr != Z_OK) {
		int e = zerr == Z_ERRNO && errno ? errno : EIO;

		return fail(w, -e, "%s: closing: %s", w->path, strerror(e));
	}
	return w->err;
}

/**
 * hs_trace_writer_errmsg() - the reason for the last error
 * @w: the writer
 *
 * Return: the message, or "".
 */
const char *hs_trace_writer_errmsg(const struct hs_trace_writer *w)
{
	return w->err ? w->msg : "";
}

/**
 * hs_trace_writer_free() - close (if still open) and free a writer
 * @w: the writer, or NULL
 *
 * Return: nothing.
 */
void hs_trace_writer_free(struct hs_trace_writer *w)
{
	if (!w)
		return;
	if (w->gz)
		gzclose(w->gz);
	free(w->buf);
	free(w->path);
	free(w);
}

/* ---- from the store ---- */

struct ids_ctx {
	uint64_t	*ids;		/* original id of dense key i */
	uint64_t	n;		/* how many are expected */
	uint64_t	got;		/* how many were delivered */
	bool		missing;	/* hs_key() gave NULL */
};

static int ids_row(const struct hs_sql_row *row, void *arg)
{
	struct ids_ctx *c = arg;

	if (row->ncols != 1 || row->types[0] != HS_SQL_INT || c->got >= c->n) {
		c->missing = true;
		return 1;
	}
	c->ids[c->got++] = (uint64_t)row->ints[0];
	return 0;
}

/* The original ids of dense keys 0 .. n - 1 into a malloc'ed array. */
static int load_ids(struct hs_store *st, int64_t session, uint64_t n, uint64_t **out,
		    char *err, size_t errlen)
{
	struct ids_ctx c = { .n = n };
	char sql[256];
	int ret;

	*out = NULL;
	if (n > SIZE_MAX / sizeof(*c.ids))
		return -ENOMEM;
	c.ids = malloc((size_t)(n ? n : 1) * sizeof(*c.ids));
	if (!c.ids)
		return -ENOMEM;
	if (n) {
		snprintf(sql, sizeof(sql),
			 "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k"
			 " WHERE i + 1 < %" PRIu64 ") SELECT hs_key(%" PRId64 ", i) FROM k",
			 n, session);
		ret = hs_store_query(st, sql, ids_row, &c);
		if (ret) {
			snprintf(err, errlen, "session %" PRId64 ": %s", session,
				 hs_store_errmsg(st));
			free(c.ids);
			return ret;
		}
	}
	if (c.missing || c.got != n) {
		snprintf(err, errlen, "session %" PRId64 ": key table: no original id for key %"
			 PRIu64 " (of %" PRIu64 ")", session, c.got, n);
		free(c.ids);
		return -EBADMSG;
	}
	*out = c.ids;
	return 0;
}

/* One record: skip a hint or a drop, else map the key back and write it. */
static int put_record(struct hs_trace_writer *w, const uint64_t *ids, uint64_t nr_ids,
		      uint32_t key, uint8_t meta, int64_t next_vtime,
		      struct hs_trace_export_stats *stats)
{
	if (!hs_channel_is_access(hs_meta_channel(meta))) {
		stats->skipped++;
		return 0;
	}
	if (key >= nr_ids)
		return -EBADMSG;	/* hs_session_read_chunk() checks keys: not reached */
	stats->records++;
	return hs_trace_writer_add(w, ids[key], meta, next_vtime);
}

/* The message for @ret: the writer's, @why, the store's or errno's. */
static void export_msg(struct hs_store *st, int64_t session, struct hs_trace_writer *w, int ret,
		       const char *why, char *err, size_t errlen)
{
	if (w->err)
		snprintf(err, errlen, "%s", hs_trace_writer_errmsg(w));
	else if (why)
		snprintf(err, errlen, "session %" PRId64 ": corrupt access stream: %s", session,
			 why);
	else if (ret == -ENOMEM)
		snprintf(err, errlen, "session %" PRId64 ": %s", session, strerror(ENOMEM));
	else
		snprintf(err, errlen, "%s", hs_store_errmsg(st));	/* names the session */
}

/**
 * hs_trace_export() - write a stored session's accesses through a writer
 * @st: the store
 * @session: the session
 * @w: the writer
 * @stats: the counts
 * @err: message buffer, or NULL
 * @errlen: its size
 *
 * Return: 0 or a negative errno; see trace-out.h.
 */
int hs_trace_export(struct hs_store *st, int64_t session, struct hs_trace_writer *w,
		    struct hs_trace_export_stats *stats, char *err, size_t errlen)
{
	struct hs_session_reader *r = NULL;
	struct hs_session_info info;
	uint64_t *ids = NULL, *next = NULL;
	uint32_t *keys = NULL;
	uint8_t *meta = NULL;
	const char *why = NULL;
	char dummy[1];
	int ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	memset(stats, 0, sizeof(*stats));
	ret = hs_session_get(st, session, &info);
	if (ret) {
		snprintf(err, errlen, "%s", hs_store_errmsg(st));	/* "no session N" */
		return ret;
	}
	if (info.distinct_keys > UINT32_MAX) {
		snprintf(err, errlen, "session %" PRId64 ": %" PRIu64 " keys: corrupt session row",
			 session, info.distinct_keys);
		return -EBADMSG;
	}
	stats->distinct_keys = info.distinct_keys;
	ret = load_ids(st, session, info.distinct_keys, &ids, err, errlen);
	if (ret)
		return ret;
	ret = hs_session_read_open(st, session, &r);
	if (ret)
		goto out;

	if (w->o.type == HS_TRACE_ORACLE) {
		int64_t got = hs_session_read_all(r, &keys, &meta);
		uint64_t i;

		if (got < 0) {
			ret = (int)got;
			goto out;
		}
		next = malloc((size_t)(info.records ? info.records : 1) * sizeof(*next));
		if (!next) {
			ret = -ENOMEM;
			goto out;
		}
		ret = hs_next_use_fill(keys, meta, (size_t)info.records,
				       (uint32_t)info.distinct_keys, next);
		if (ret == -EINVAL) {
			why = "a key outside the session";
			ret = -EBADMSG;
		}
		for (i = 0; !ret && i < info.records; i++)
			ret = put_record(w, ids, info.distinct_keys, keys[i], meta[i],
					 next[i] == HS_NEVER ? -1 : (int64_t)next[i] + 1, stats);
	} else {
		const uint32_t *k;
		const uint8_t *m;
		size_t n, i;

		while ((ret = hs_session_read_chunk(r, &k, &m, &n)) > 0) {
			for (i = 0; i < n; i++) {
				ret = put_record(w, ids, info.distinct_keys, k[i], m[i], -1,
						 stats);
				if (ret)
					goto out;
			}
		}
	}

out:
	if (ret < 0)
		export_msg(st, session, w, ret, why, err, errlen);
	hs_session_read_close(r);
	free(next);
	free(meta);
	free(keys);
	free(ids);
	return ret < 0 ? ret : 0;
}
