/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace readers (trace-in.h).  One reader object serves every format: it owns
 * the file, zlib's inflate state and a byte buffer of decompressed input (a
 * file that does not start with the gzip magic is passed through as it is).
 * gzip input is inflated member by member here rather than through gzread(),
 * because gzread() ends quietly at anything after a member that is not
 * another gzip header: such trailing garbage is an error, while several valid
 * members (cat a.gz b.gz) are one stream.  Text formats cut the buffer into
 * lines and parse each by hand (no strtoull: strict digits, explicit overflow
 * checks, and speed on tens of millions of lines), binary formats cut it into
 * fixed-size records.  A .lis line becomes a pending block range handed out one block per
 * call.  Errors are sticky: the first one is kept with its message and
 * returned by every later call.
 */
#include "config.h"

#include <errno.h>
#include <endian.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hs.h"
#include "trace-in.h"

#define BUF_SIZE	(256u * 1024)	/* read buffer; must exceed HS_TRACE_MAX_LINE */
#define IN_SIZE		(128u * 1024)	/* raw (compressed) bytes read at once */
#define ORACLE_REC	24u		/* bytes per oracleGeneral record */
#define U32BE_REC	4u		/* bytes per cache2k id */
#define SNIFF_TEXT	4096u		/* u32be: bytes looked at for text */
#define PEEK_MIN	(1u << 20)	/* files from this size on are sampled (hs_trace_sample_keys()) */

struct hs_trace_reader {
	int			fd;		/* the input; -1 once closed or never opened */
	z_stream		zs;		/* inflate state, raw input in in[] */
	unsigned char		*in;		/* IN_SIZE bytes of raw input */
	uint64_t		raw;		/* raw bytes read from fd */
	bool			sniffed;	/* the first bytes were looked at */
	bool			gzip;		/* ... and they were the gzip magic */
	bool			zinit;		/* inflateInit2() done */
	bool			member_end;	/* inflate ended a member: only another
						 * member or the end of the file may follow */
	char			*path;		/* name used in messages */
	struct hs_trace_opts	o;		/* options, csv_column normalised to >= 1 */
	unsigned char		*buf;		/* BUF_SIZE bytes of decompressed input */
	unsigned char		*peek;		/* BUF_SIZE bytes for the estimates' pread(2)s */
	int64_t			start;		/* plain input: the file offset of its byte 0,
						 * -1 unknown (a pipe) */
	size_t			pos;		/* first unconsumed byte in buf */
	size_t			len;		/* bytes valid in buf */
	bool			eof;		/* gzread reported the end; buf holds the rest */
	uint64_t		base;		/* input offset of buf[0] (decompressed bytes) */
	uint64_t		line;		/* number of the last line returned (1-based) */
	uint64_t		records;	/* records returned so far */
	uint64_t		lis_next;	/* lis: next block of the pending range */
	uint64_t		lis_left;	/* lis: blocks of the range still to return */
	uint64_t		lis_requests;	/* lis: request lines read */
	uint64_t		lis_multi;	/* lis: ... of more than one block */
	uint64_t		file_size;	/* size of a regular file, else 0 */
	char			*field;		/* csv: HS_TRACE_MAX_LINE bytes, unquoted field */
	uint64_t		max_next;	/* oracle: largest next_access_vtime seen */
	uint64_t		max_next_rec;	/* oracle: the record that had it */
	uint64_t		lasts;		/* oracle: records read that are their key's
						 * last access (next -1 or INT64_MAX) */
	bool			text_checked;	/* u32be: check_not_text() was run */
	int			err;		/* sticky negative errno, 0 while fine */
	char			msg[512];	/* message for err */
};

static const char *const type_names[HS_TRACE_NR] = {
	[HS_TRACE_TEXT] = "text",
	[HS_TRACE_LIRS] = "lirs",
	[HS_TRACE_LIS] = "lis",
	[HS_TRACE_CSV] = "csv",
	[HS_TRACE_ORACLE] = "oracle",
	[HS_TRACE_U32BE] = "u32be",
};

/**
 * hs_trace_type_parse() - look a format up by name
 * @name: a format name
 * @out: the type
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int hs_trace_type_parse(const char *name, enum hs_trace_type *out)
{
	unsigned int i;

	for (i = 0; i < HS_TRACE_NR; i++) {
		if (!strcmp(name, type_names[i])) {
			*out = (enum hs_trace_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * hs_trace_type_name() - a format's name
 * @type: the format
 *
 * Return: its name, or "?".
 */
const char *hs_trace_type_name(enum hs_trace_type type)
{
	return (unsigned int)type < HS_TRACE_NR ? type_names[type] : "?";
}

/**
 * hs_trace_type_unit() - what one record of a format counts
 * @type: the format
 *
 * Return: "block" for lis, else "object".
 */
const char *hs_trace_type_unit(enum hs_trace_type type)
{
	return type == HS_TRACE_LIS ? "block" : "object";
}

/**
 * hs_trace_type_list() - every format name
 *
 * Return: a comma-separated list.
 */
const char *hs_trace_type_list(void)
{
	return "text, lirs, lis, csv, oracle, u32be";
}

/**
 * hs_trace_hash_str() - FNV-1a 64 of a byte string
 * @s: bytes
 * @len: their count
 *
 * Return: the hash.
 */
uint64_t hs_trace_hash_str(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int fail(struct hs_trace_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error with its message; returns the (sticky) error. */
static int fail(struct hs_trace_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err = err;
	return err;
}

/* A bad-data error at the current line. */
#define line_fail(r, fmt, ...) \
	fail((r), -EBADMSG, "%s:%llu: " fmt, (r)->path, (unsigned long long)(r)->line, \
	     ##__VA_ARGS__)

/* Show up to 24 bytes of s quoted, with anything unprintable as \xNN. */
static const char *show(char *dst, size_t dstlen, const char *s, size_t n)
{
	size_t i, o = 0;

	dst[o++] = '\'';
	for (i = 0; i < n && i < 24 && o + 6 < dstlen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
			dst[o++] = (char)c;
		else
			o += (size_t)snprintf(dst + o, dstlen - o, "\\x%02x", c);
	}
	if (i < n && o + 5 < dstlen) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o++] = '\'';
	dst[o] = '\0';
	return dst;
}

static bool is_text(const struct hs_trace_reader *r)
{
	return r->o.type != HS_TRACE_ORACLE && r->o.type != HS_TRACE_U32BE;
}

/*
 * Bad compressed data: text formats name the line being read (the one after
 * the last line returned), binary formats the decompressed byte offset.
 */
static int gz_fail(struct hs_trace_reader *r, const char *what, const char *why)
{
	if (is_text(r))
		return fail(r, -EBADMSG, "%s:%llu: %s (%s)", r->path,
			    (unsigned long long)r->line + 1, what, why);
	return fail(r, -EBADMSG, "%s: byte %llu: %s (%s)", r->path,
		    (unsigned long long)(r->base + r->len), what, why);
}

/* Read raw bytes into in[].  Return: 1, 0 at the end of the file, or a negative errno. */
static int read_in(struct hs_trace_reader *r)
{
	ssize_t n;

	do
		n = read(r->fd, r->in, IN_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail(r, -EIO, "%s: read error: %s", r->path, strerror(errno));
	r->zs.next_in = r->in;
	r->zs.avail_in = (uInt)n;
	r->raw += (uint64_t)n;
	return n > 0;
}

/*
 * Plain input: read up to @cap bytes into @out without the copy through in[].
 * Return: how many (> 0), 0 at the end of the file, or a negative errno.
 */
static long read_plain(struct hs_trace_reader *r, unsigned char *out, size_t cap)
{
	ssize_t n;

	do
		n = read(r->fd, out, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail(r, -EIO, "%s: read error: %s", r->path, strerror(errno));
	r->raw += (uint64_t)n;
	return (long)n;
}

/*
 * A plain binary trace is read with read(2) into buf, BUF_SIZE bytes at a
 * time, not through a mapping of the file.  It was mapped before: read(2)
 * copies every byte once more, and on the VM of that work the copy was
 * 7-14 % of an oracle import while the mapping's faults were cheap (there
 * MAP_POPULATE, MADV_SEQUENTIAL, MADV_WILLNEED and pread(2) into a 256 KiB
 * buffer all read within 3 % of the plain mapping, or slower).  On the VM
 * this project measures on now (kernel 6.18, a paravirtualized guest) the
 * first touch of a 4 KiB page costs microseconds, fault or not: 64 MiB of
 * anonymous pages touched one by one took 160-180 ms of CPU, and populated
 * first in one madvise(MADV_POPULATE_WRITE) 10 ms plus 72 ms for the
 * touches that then faulted no more.  So the mapping of a 240 MB oracle
 * file, faulted in 64 KiB at a time and unmapped behind the reader, took
 * 97-107 ms of CPU to read (31-44 ms of it the kernel's), where read(2)
 * into a buffer that stays in the L2 cache took 19-27 ms (the kernel's copy
 * runs through its own mapping of memory, at 14 GB/s, and the loop then
 * reads lines that are in the cache).  Reading alone, z81K.oracle, CPU ms,
 * 3 rounds: mapped 97-107, MAP_POPULATE 74-77, MADV_POPULATE_READ 4 MiB at
 * a time 78-81; read(2) of 16 KiB 43-45, 64 KiB 24, 128 KiB 21-22, 256 KiB
 * 19-27, 512 KiB 19-20, 1 MiB 24, 4 MiB 34 (out of the L2 cache).  Whole
 * imports, CPU ns a record, 7 interleaved rounds, mapped -> read(2):
 * oracle 27.7 -> 13.9, 26.0 -> 20.6, 40.7 -> 27.1 at 81 K, 763 K and
 * 3.7 M keys; u32be 13.0 -> 9.9, 16.4 -> 16.0, 26.9 -> 23.3.  The two
 * estimates that look ahead of the reader (hs_trace_sample_keys(),
 * hs_trace_oracle_keys_estimate()) pread(2) the rest of the file into a
 * buffer of their own (peek_at()) for the same reason.
 */

/* Note where plain input starts in its file, for peek_at(): -1 if it cannot be told. */
static void note_start(struct hs_trace_reader *r)
{
	off_t at = lseek(r->fd, 0, SEEK_CUR);

	r->start = at < 0 || (uint64_t)at < r->raw ? -1 : (int64_t)(at - (off_t)r->raw);
}

/* Look at the first bytes: gzip (1f 8b) or plain.  Return: 0 or a negative errno. */
static int sniff(struct hs_trace_reader *r)
{
	int ret;

	r->sniffed = true;
	ret = read_in(r);
	if (ret < 0)
		return ret;
	if (r->zs.avail_in < 2 || r->in[0] != 0x1f || r->in[1] != 0x8b) {
		note_start(r);
		return 0;
	}
	r->gzip = true;
	if (inflateInit2(&r->zs, 15 + 16) != Z_OK)	/* gzip wrapper only */
		return fail(r, -ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
	r->zinit = true;
	return 0;
}

/*
 * Up to @len bytes of plain input at input offset @off (as r->base counts),
 * into r->peek, with pread(2), without moving the reader.  Return: bytes
 * read (0 at the end of the file), or -EOPNOTSUPP where the input cannot be
 * read so (gzip, a pipe, a file of less than PEEK_MIN bytes, the reader
 * failed), -ENOMEM or -EIO.
 */
static long peek_at(struct hs_trace_reader *r, uint64_t off, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (!r->sniffed && !r->err && !is_text(r))
		(void)sniff(r);		/* nothing read yet: gzip or plain? */
	if (r->gzip || r->err || r->start < 0 || r->file_size < PEEK_MIN || is_text(r) ||
	    (uint64_t)r->start > r->file_size)
		return -EOPNOTSUPP;
	if (!r->peek && !(r->peek = malloc(BUF_SIZE)))
		return -ENOMEM;
	len = HS_MIN(len, (size_t)BUF_SIZE);
	while (got < len) {
		n = pread(r->fd, r->peek + got, len - got, (off_t)(r->start + off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -EIO;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}

/*
 * Up to @cap decompressed bytes into @out.  Return: how many (> 0), 0 at the
 * end of the input, or a negative errno.
 */
static long read_some(struct hs_trace_reader *r, unsigned char *out, size_t cap)
{
	int ret, zret;

	if (!r->sniffed && (ret = sniff(r)) < 0)
		return ret;
	if (!r->gzip) {
		/* Plain input: straight into @out, once the sniffed bytes are used. */
		if (!r->zs.avail_in)
			return read_plain(r, out, cap);
		cap = HS_MIN(cap, (size_t)r->zs.avail_in);
		memcpy(out, r->zs.next_in, cap);
		r->zs.next_in += cap;
		r->zs.avail_in -= (uInt)cap;
		return (long)cap;
	}
	r->zs.next_out = out;
	r->zs.avail_out = (uInt)cap;
	while (r->zs.avail_out == cap) {
		if (!r->zs.avail_in) {
			ret = read_in(r);
			if (ret < 0)
				return ret;
			if (ret == 0) {
				if (r->member_end)
					return 0;
				return gz_fail(r, "gzip data truncated", "unexpected end of file");
			}
		}
		if (r->member_end) {
			/* Another member, whose header inflate checks, or garbage. */
			if (r->zs.next_in[0] != 0x1f)
				return fail(r, -EBADMSG, "%s: byte %llu of the file: trailing garbage"
					    " after the gzip data", r->path,
					    (unsigned long long)(r->raw - r->zs.avail_in));
			inflateReset(&r->zs);
			r->member_end = false;
		}
		zret = inflate(&r->zs, Z_NO_FLUSH);
		if (zret == Z_STREAM_END)
			r->member_end = true;
		else if (zret == Z_MEM_ERROR)
			return fail(r, -ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
		else if (zret != Z_OK && zret != Z_BUF_ERROR)
			return gz_fail(r, "corrupt gzip data", r->zs.msg ? r->zs.msg : "bad data");
	}
	return (long)(cap - r->zs.avail_out);
}

/*
 * Move the unconsumed bytes to the front and read more.  Return: 1 if bytes
 * were added, 0 at the end of the input, or a negative errno.
 */
static int refill(struct hs_trace_reader *r)
{
	size_t keep = r->len - r->pos;
	long n;

	if (r->eof)
		return 0;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, keep);
		r->base += r->pos;
		r->pos = 0;
		r->len = keep;
	}
	if (r->len == BUF_SIZE)
		return 1;
	n = read_some(r, r->buf + r->len, BUF_SIZE - r->len);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	r->len += (size_t)n;
	return 1;
}

/*
 * The next line without its line end, in *s and *n (valid until the next
 * call).  Return: 1, 0 at the end, or a negative errno.
 */
static int next_line(struct hs_trace_reader *r, const char **s, size_t *n)
{
	unsigned char *nl;
	size_t len;
	int ret;

	for (;;) {
		nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
		if (nl) {
			len = (size_t)(nl - (r->buf + r->pos));
			break;
		}
		len = r->len - r->pos;
		if (len > HS_TRACE_MAX_LINE)
			break;
		ret = refill(r);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (!len)
				return 0;
			break;	/* a last line without a newline */
		}
	}
	r->line++;
	if (len > HS_TRACE_MAX_LINE)
		return line_fail(r, "line longer than %u bytes", HS_TRACE_MAX_LINE);
	*s = (const char *)r->buf + r->pos;
	*n = len;
	r->pos += nl ? len + 1 : len;
	return 1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Strip blanks and CRs at both ends. */
static void trim(const char **s, size_t *n)
{
	while (*n && is_blank(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_blank((*s)[*n - 1]))
		(*n)--;
}

/* Unsigned decimal, digits only.  Return: 0, -EINVAL (not digits), -ERANGE. */
static int parse_dec(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned int)(unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A key field of a text line: report what is wrong with it. */
static int key_field(struct hs_trace_reader *r, const char *what, const char *s, size_t n,
		     uint64_t *out)
{
	char tok[128];
	int err = parse_dec(s, n, out);

	if (err == -ERANGE)
		return line_fail(r, "%s %s does not fit in 64 bits", what,
				 show(tok, sizeof(tok), s, n));
	if (err)
		return line_fail(r, "expected a decimal %s, got %s", what,
				 show(tok, sizeof(tok), s, n));
	return 0;
}

static int next_text(struct hs_trace_reader *r, uint64_t *key)
{
	const char *s;
	size_t n;
	int ret;

	for (;;) {
		ret = next_line(r, &s, &n);
		if (ret <= 0)
			return ret;
		trim(&s, &n);
		if (!n)
			continue;
		if (r->o.type == HS_TRACE_LIRS && n == 1 && *s == '*')
			continue;
		ret = key_field(r, "key", s, n, key);
		return ret ? ret : 1;
	}
}

/* An integer that .lis files carry but hsctl ignores: optional '-', then digits. */
static bool is_int(const char *s, size_t n)
{
	uint64_t v;

	if (n && *s == '-') {
		s++;
		n--;
	}
	return parse_dec(s, n, &v) != -EINVAL;
}

static int next_lis(struct hs_trace_reader *r, uint64_t *key)
{
	static const char *const names[] = { "start block", "block count" };
	const char *f[4];
	uint64_t v[2];
	size_t fl[4];
	const char *s, *end;
	unsigned int nf, i;
	char tok[128];
	size_t n;
	int ret;

	while (!r->lis_left) {
		ret = next_line(r, &s, &n);
		if (ret <= 0)
			return ret;
		end = s + n;
		nf = 0;
		for (;;) {
			while (s < end && is_blank(*s))
				s++;
			if (s == end)
				break;
			if (nf == 4) {
				nf++;
				break;
			}
			f[nf] = s;
			while (s < end && !is_blank(*s))
				s++;
			fl[nf] = (size_t)(s - f[nf]);
			nf++;
		}
		if (!nf)
			continue;
		if (nf != 4) {
			if (nf > 4)
				return line_fail(r, "expected 4 fields, got more");
			return line_fail(r, "expected 4 fields, got %u", nf);
		}
		for (i = 0; i < 2; i++) {
			ret = key_field(r, names[i], f[i], fl[i], &v[i]);
			if (ret)
				return ret;
		}
		for (i = 2; i < 4; i++)
			if (!is_int(f[i], fl[i]))
				return line_fail(r, "expected an integer in field %u, got %s",
						 i + 1, show(tok, sizeof(tok), f[i], fl[i]));
		if (v[1] == 0)
			return line_fail(r, "block count is 0");
		if (v[1] > HS_TRACE_LIS_MAX_N)
			return line_fail(r, "block count %llu is absurd (more than %u)",
					 (unsigned long long)v[1], HS_TRACE_LIS_MAX_N);
		if (v[0] > UINT64_MAX - (v[1] - 1))
			return line_fail(r, "block range %llu+%llu overflows 64 bits",
					 (unsigned long long)v[0], (unsigned long long)v[1]);
		r->lis_requests++;
		r->lis_multi += v[1] > 1;
		r->lis_left = v[1];
		r->lis_next = r->o.lis_reverse ? v[0] + (v[1] - 1) : v[0];
	}
	*key = r->lis_next;
	r->lis_left--;
	if (r->lis_left) {
		if (r->o.lis_reverse)
			r->lis_next--;
		else
			r->lis_next++;
	}
	return 1;
}

/*
 * Find csv column @col (1-based) of a line, unquoting a "quoted" field into
 * @tmp.  Return: 0 with the field in *f and *fl, or a negative errno.
 */
static int csv_field(struct hs_trace_reader *r, const char *s, size_t n, unsigned int col,
		     char *tmp, const char **f, size_t *fl)
{
	const char *end = s + n;
	unsigned int c = 1;
	size_t tl;

	for (;;) {
		const char *p = s;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '"') {
			tl = 0;
			p++;
			for (;;) {
				if (p == end)
					return line_fail(r, "unterminated quote in field %u", c);
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						tmp[tl++] = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				tmp[tl++] = *p++;
			}
			while (p < end && is_blank(*p))
				p++;
			if (p < end && *p != ',')
				return line_fail(r, "text after the closing quote of field %u", c);
			if (c == col) {
				*f = tmp;
				*fl = tl;
				return 0;
			}
		} else {
			while (p < end && *p != ',')
				p++;
			if (c == col) {
				*f = s;
				*fl = (size_t)(p - s);
				return 0;
			}
		}
		if (p == end)
			return line_fail(r, "expected at least %u fields, got %u", col, c);
		s = p + 1;	/* skip the comma */
		c++;
	}
}

static int next_csv(struct hs_trace_reader *r, uint64_t *key)
{
	char tok[128];
	const char *s, *f;
	size_t n, fl;
	int ret;

	for (;;) {
		ret = next_line(r, &s, &n);
		if (ret <= 0)
			return ret;
		/* Hashing makes any text a key: refuse what is not text at all. */
		if (memchr(s, '\0', n))
			return line_fail(r, "NUL byte: binary data, not csv text");
		if (r->line == 1 && r->o.csv_header)
			continue;
		trim(&s, &n);
		if (!n)
			continue;
		ret = csv_field(r, s, n, r->o.csv_column, r->field, &f, &fl);
		if (ret)
			return ret;
		trim(&f, &fl);
		if (!fl)
			return line_fail(r, "empty key in field %u", r->o.csv_column);
		ret = parse_dec(f, fl, key);
		if (ret == -ERANGE)
			return line_fail(r, "key %s does not fit in 64 bits",
					 show(tok, sizeof(tok), f, fl));
		if (ret)
			*key = hs_trace_hash_str(f, fl);
		return 1;
	}
}

/* Unaligned little-endian and big-endian loads: one instruction each on x86. */
static inline uint64_t get_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint32_t get_be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

/*
 * u32be's first SNIFF_TEXT bytes (or the whole input, if shorter)
 * are all printable ASCII, blanks and line ends, with at least one line end:
 * a text trace given the wrong --type.  Real binary traces have NUL and high
 * bytes in their first records (ids are small numbers, times and sizes
 * fill 32 or 64 bits), so a binary trace is never taken for text.  (Any
 * format could be checked so; oracle needs it not, see trace-in.h.)
 * Return: 0, or -EBADMSG unless opts.force.
 */
static int check_not_text(struct hs_trace_reader *r)
{
	bool line_end = false;
	size_t i, n;
	int ret = 0;

	r->text_checked = true;
	while (r->len - r->pos < SNIFF_TEXT && (ret = refill(r)) == 1)
		;
	if (ret < 0)
		return ret;
	if (r->o.force)
		return 0;
	n = HS_MIN(r->len - r->pos, (size_t)SNIFF_TEXT);
	for (i = 0; i < n; i++) {
		unsigned char c = r->buf[r->pos + i];

		if (c == '\n')
			line_end = true;
		else if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\r')
			return 0;
	}
	if (!line_end)
		return 0;
	return fail(r, -EBADMSG, "%s: byte 0: text (printable ASCII and line ends), not %s "
		    "binary records; is it --type text? (--force reads it anyway)", r->path,
		    hs_trace_type_name(r->o.type));
}

/* Next fixed-size binary record of @size bytes, or 0 at the end. */
static int next_record(struct hs_trace_reader *r, unsigned int size, const unsigned char **rec)
{
	int ret;

	while (r->len - r->pos < size) {
		ret = refill(r);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (r->pos == r->len)
				return 0;
			return fail(r, -EBADMSG,
				    "%s: byte %llu: truncated record (%zu of %u bytes)", r->path,
				    (unsigned long long)(r->base + r->pos), r->len - r->pos,
				    size);
		}
	}
	*rec = r->buf + r->pos;
	r->pos += size;
	return 1;
}

static int next_oracle(struct hs_trace_reader *r, uint64_t *key)
{
	const unsigned char *rec;
	int64_t next;
	int ret;

	ret = next_record(r, ORACLE_REC, &rec);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		/* Next accesses must point inside the trace (vtime counts from 0 or 1). */
		if (r->max_next > r->records)
			return fail(r, -EBADMSG,
				    "%s: byte %llu: record %llu says its next access is %llu, but "
				    "there are only %llu records (not an oracleGeneral trace?)",
				    r->path, (unsigned long long)r->max_next_rec * ORACLE_REC,
				    (unsigned long long)r->max_next_rec,
				    (unsigned long long)r->max_next,
				    (unsigned long long)r->records);
		return 0;
	}
	next = (int64_t)get_le64(rec + 16);
	/*
	 * next_access_vtime is the virtual time (request index) of the object's
	 * next request, or -1 (or INT64_MAX) for none.  Anything else that is
	 * not later than this record means the file is not in this format.
	 */
	if (next != -1 && next != INT64_MAX) {
		if (next < 0 || (uint64_t)next <= r->records)
			return fail(r, -EBADMSG,
				    "%s: byte %llu: record %llu says its next access is %lld, "
				    "which is not later (not an oracleGeneral trace?)", r->path,
				    (unsigned long long)(r->base + r->pos - ORACLE_REC),
				    (unsigned long long)r->records, (long long)next);
		if ((uint64_t)next > r->max_next) {
			r->max_next = (uint64_t)next;
			r->max_next_rec = r->records;
		}
	} else {
		r->lasts++;
	}
	*key = get_le64(rec + 4);
	return 1;
}

static int next_u32be(struct hs_trace_reader *r, uint64_t *key)
{
	const unsigned char *rec;
	int ret;

	if (!r->text_checked && (ret = check_not_text(r)) < 0)
		return ret;
	ret = next_record(r, U32BE_REC, &rec);
	if (ret <= 0)
		return ret;
	*key = get_be32(rec);
	return 1;
}

/**
 * hs_trace_open() - open a trace for reading
 * @path: file name, "-" for standard input
 * @opts: format and options
 * @out: the reader
 *
 * Return: 0 or a negative errno; see trace-in.h.
 */
int hs_trace_open(const char *path, const struct hs_trace_opts *opts,
		  struct hs_trace_reader **out)
{
	struct hs_trace_reader *r;
	struct stat sb;
	int fd, err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->o = *opts;
	if (!r->o.csv_column)
		r->o.csv_column = 1;
	r->path = strdup(strcmp(path, "-") ? path : "(stdin)");
	if (!r->path)
		goto out_nomem;
	r->fd = -1;
	r->start = -1;
	r->buf = malloc(BUF_SIZE);
	r->in = malloc(IN_SIZE);
	if (!r->buf || !r->in)
		goto out_nomem;
	if (r->o.type == HS_TRACE_CSV) {
		r->field = malloc(HS_TRACE_MAX_LINE);
		if (!r->field)
			goto out_nomem;
	}
	*out = r;
	if ((unsigned int)r->o.type >= HS_TRACE_NR)
		return fail(r, -EINVAL, "%s: unknown trace type %d", r->path, (int)r->o.type);

	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	if (fd < 0) {
		err = errno;
		return fail(r, -err, "%s: %s", r->path, strerror(err));
	}
	if (fstat(fd, &sb)) {
		err = errno;
		close(fd);
		return fail(r, -err, "%s: %s", r->path, strerror(err));
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return fail(r, -EISDIR, "%s: %s", r->path, strerror(EISDIR));
	}
	if (S_ISREG(sb.st_mode))
		r->file_size = (uint64_t)sb.st_size;
	r->fd = fd;
	return 0;

out_nomem:
	free(r->in);
	free(r->buf);
	free(r->path);
	free(r);
	return -ENOMEM;
}

/**
 * hs_trace_next() - the next record
 * @r: the reader
 * @key: receives the key
 * @meta: receives the meta byte
 *
 * Return: 1, 0 at the end, or a negative errno; see trace-in.h.
 */
int hs_trace_next(struct hs_trace_reader *r, uint64_t *key, uint8_t *meta)
{
	int ret;

	if (r->err)
		return r->err;
	switch (r->o.type) {
	case HS_TRACE_TEXT:
	case HS_TRACE_LIRS:
		ret = next_text(r, key);
		break;
	case HS_TRACE_LIS:
		ret = next_lis(r, key);
		break;
	case HS_TRACE_CSV:
		ret = next_csv(r, key);
		break;
	case HS_TRACE_ORACLE:
		ret = next_oracle(r, key);
		break;
	case HS_TRACE_U32BE:
		ret = next_u32be(r, key);
		break;
	default:
		ret = fail(r, -EINVAL, "%s: unknown trace type", r->path);
		break;
	}
	if (ret == 1 && r->o.max_records && r->records == r->o.max_records) {
		if (is_text(r))
			ret = fail(r, -EFBIG, "%s:%llu: more than %llu records", r->path,
				   (unsigned long long)r->line,
				   (unsigned long long)r->o.max_records);
		else
			ret = fail(r, -EFBIG, "%s: byte %llu: more than %llu records", r->path,
				   (unsigned long long)(r->base + r->pos -
							(r->o.type == HS_TRACE_ORACLE ?
							 ORACLE_REC : U32BE_REC)),
				   (unsigned long long)r->o.max_records);
	} else if (ret == 1) {
		r->records++;
		*meta = r->o.meta;
	} else if (ret == 0 && !r->records) {
		ret = fail(r, -ENODATA, "%s: no records", r->path);
	}
	return ret;
}

/*
 * The fast path of hs_trace_next_many() for oracle: decode up to @max whole
 * records already in buf with next_oracle()'s check, stopping before any
 * record that fails it, so that hs_trace_next() reports that one with its
 * message.  Return: records decoded (and counted).
 */
static size_t oracle_many(struct hs_trace_reader *r, uint64_t *keys, size_t max)
{
	const unsigned char *p = r->buf + r->pos;
	uint64_t rec = r->records, max_next = r->max_next, max_next_rec = r->max_next_rec;
	uint64_t lasts = r->lasts;
	size_t i, n = HS_MIN(max, (r->len - r->pos) / ORACLE_REC);

	/*
	 * Without a branch on whether a record is its key's last access: past a
	 * few hundred thousand keys a third of the records are, at random, and
	 * the branch mispredicted at every other one (a 3.7 M-key file read at
	 * 11.4 ns a record, one of 81 K keys at 5.3).  A last access counts; it
	 * is checked as next access INT64_MAX, which is later than any record,
	 * and compared with the largest as 0.
	 */
	for (i = 0; i < n; i++, p += ORACLE_REC) {
		/*
		 * (A prefetch a page ahead, every eighth record, paid while
		 * the file was mapped: the hardware's prefetcher stopped at
		 * each 4 KiB page of it.  buf, just written by read(2), is
		 * in the cache.)
		 */
		uint64_t next = get_le64(p + 16);
		uint64_t last = (next == UINT64_MAX) | (next == (uint64_t)INT64_MAX);
		uint64_t at = next & (last - 1);		/* 0 for a last access */
		uint64_t check = at | (0 - last) >> 1;		/* INT64_MAX for one */

		lasts += last;
		if (unlikely((int64_t)check < 0 || check <= rec + i))
			break;
		if (at > max_next) {
			max_next = at;
			max_next_rec = rec + i;
		}
		keys[i] = get_le64(p + 4);
	}
	r->lasts = lasts;
	r->max_next = max_next;
	r->max_next_rec = max_next_rec;
	r->pos += i * ORACLE_REC;
	r->records += i;
	return i;
}

/* The fast path of hs_trace_next_many() for u32be, once check_not_text() ran. */
static size_t u32be_many(struct hs_trace_reader *r, uint64_t *keys, size_t max)
{
	const unsigned char *p = r->buf + r->pos;
	size_t i, n = HS_MIN(max, (r->len - r->pos) / U32BE_REC);

	for (i = 0; i < n; i++)
		keys[i] = get_be32(p + i * U32BE_REC);
	r->pos += n * U32BE_REC;
	r->records += n;
	return n;
}

/**
 * hs_trace_next_many() - up to @max records at once
 * @r: the reader
 * @keys: receives the keys
 * @max: room in @keys (at least 1)
 * @meta: receives the meta byte, the same for every record
 *
 * The binary formats decode the records already in the buffer in one loop;
 * whatever else happens (a refill, the record limit, bad data, the end, the
 * text formats) goes through hs_trace_next(), so the records, errors and
 * messages are exactly those of calling it @max times.
 *
 * Return: records stored (> 0); else 0 at the end or a negative errno, as
 * hs_trace_next() returns them.  Records read before an error are returned
 * first; the error comes with the next call.
 */
long hs_trace_next_many(struct hs_trace_reader *r, uint64_t *keys, size_t max, uint8_t *meta)
{
	size_t got = 0, room;
	int ret;

	*meta = r->o.meta;
	while (got < max) {
		if (!r->err && (r->o.type == HS_TRACE_ORACLE ||
				(r->o.type == HS_TRACE_U32BE && r->text_checked))) {
			room = max - got;
			if (r->o.max_records)
				room = HS_MIN(room, r->o.max_records - r->records);
			if (r->o.type == HS_TRACE_ORACLE)
				got += oracle_many(r, keys + got, room);
			else
				got += u32be_many(r, keys + got, room);
			if (got == max)
				break;
		}
		ret = hs_trace_next(r, &keys[got], meta);
		if (ret != 1)
			return got ? (long)got : ret;
		got++;
	}
	return (long)got;
}

/* hs_trace_sample_keys(): at most SAMPLE_MAX keys (64 M keys' worth) */
#define SAMPLE_MAX	(1u << 20)
#define SAMPLE_MUL	0x9e3779b97f4a7c15ull	/* odd: key * SAMPLE_MUL is one-to-one */
#define SAMPLE_PART	4096u	/* records whose sampled keys are put aside at once */
#define SAMPLE_AHEAD	8	/* sampled keys between a set slot's prefetch and use */

struct sample {
	uint64_t	*set;		/* key * SAMPLE_MUL | 1 << 63 of each, 0: free */
	unsigned int	bits;		/* log2 of the set's slots */
	uint64_t	*keys;		/* the keys, in order of first sight (half the slots) */
	size_t		n;
};

static void sample_put(struct sample *sa, uint64_t v)
{
	size_t mask = ((size_t)1 << sa->bits) - 1, i;

	for (i = (size_t)((v << 1) >> (65 - HS_TRACE_SAMPLE_SHIFT - sa->bits)) & mask;
	     sa->set[i]; i = (i + 1) & mask)
		;
	sa->set[i] = v;
}

/* Put new sampled key @key (@v its slot's value) into free slot @i.  Return: 0 or -ENOMEM. */
static int sample_insert(struct sample *sa, uint64_t key, uint64_t v, size_t i)
{
	size_t old_n = (size_t)1 << sa->bits;
	uint64_t *old = sa->set, *keys;

	sa->set[i] = v;
	sa->keys[sa->n++] = key;
	if (sa->n * 2 < old_n)
		return 0;
	/* half full: double the set and the key array */
	keys = realloc(sa->keys, old_n * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	sa->keys = keys;
	sa->set = calloc(old_n * 2, sizeof(*sa->set));
	if (!sa->set) {
		sa->set = old;
		return -ENOMEM;
	}
	sa->bits++;
	for (i = 0; i < old_n; i++) {
		if (old[i])
			sample_put(sa, old[i]);
	}
	free(old);
	return 0;
}

/*
 * Add sampled key @key (@h its product): a sampled key's product has its top
 * HS_TRACE_SAMPLE_SHIFT bits clear, so the top bit marks a taken slot, and
 * the bits below the sample's pick the slot.  Inlined for the common case,
 * a key sampled before (a popular key is sampled at each of its records).
 * Return: 0 or -ENOMEM.
 */
/* Prefetch the set's slot for a key of product @h. */
static inline void sample_prefetch(const struct sample *sa, uint64_t h)
{
	size_t mask = ((size_t)1 << sa->bits) - 1;

	__builtin_prefetch(&sa->set[(size_t)(h >> (64 - HS_TRACE_SAMPLE_SHIFT - sa->bits)) & mask]);
}

static inline int sample_add(struct sample *sa, uint64_t key, uint64_t h)
{
	size_t mask = ((size_t)1 << sa->bits) - 1, i;
	uint64_t v = h | 1ull << 63;

	for (i = (size_t)(h >> (64 - HS_TRACE_SAMPLE_SHIFT - sa->bits)) & mask; sa->set[i];
	     i = (i + 1) & mask) {
		if (sa->set[i] == v)
			return 0;
	}
	return sample_insert(sa, key, v, i);
}

/**
 * hs_trace_sample_keys() - a sample of the distinct keys not read yet
 * @r: the reader, of a plain binary file (peek_at())
 * @keys: receives a malloc()ed array of the sampled keys
 *
 * The distinct keys, among the records after the reader's position, whose
 * product with an odd constant falls in the lowest 2^-HS_TRACE_SAMPLE_SHIFT
 * of its range: one pass over the rest of the file, read with pread(2)
 * BUF_SIZE bytes at a time, a multiply and a compare a record (the sampled
 * keys' set stays in the cache).  A caller that knows which keys it has
 * seen (a renumbering map) estimates from them how many new keys are to
 * come (hs_session_expect_keys()), and sizes its map once rather than
 * doubling it as they arrive.  Records past a truncated tail or past
 * opts.max_records are looked at too: it is a sample for an estimate, and
 * hs_trace_next() reports them as it would.  At SAMPLE_MAX keys it stops.
 *
 * Return: the number of keys (>= 0); -EOPNOTSUPP when the input is not a
 * plain binary file or the reader failed; -ENOMEM.
 */
long hs_trace_sample_keys(struct hs_trace_reader *r, uint64_t **keys)
{
	size_t rec = r->o.type == HS_TRACE_ORACLE ? ORACLE_REC : U32BE_REC, i, end;
	size_t piece = BUF_SIZE / rec * rec;
	struct sample sa = { .bits = 10 };
	uint64_t *cand = NULL;	/* SAMPLE_PART records' sampled keys */
	uint64_t off = r->base + r->pos;
	long got;
	int ret = 0;

	*keys = NULL;
	got = peek_at(r, off, 0);
	if (got < 0)
		return got;
	sa.set = calloc((size_t)1 << sa.bits, sizeof(*sa.set));
	sa.keys = malloc(((size_t)1 << sa.bits) / 2 * sizeof(*sa.keys));
	cand = malloc(SAMPLE_PART * sizeof(*cand));
	if (!sa.set || !sa.keys || !cand) {
		ret = -ENOMEM;
		goto out;
	}
	while (sa.n < SAMPLE_MAX && ret >= 0) {
		/* a piece of whole records at a time */
		got = peek_at(r, off, piece);
		if (got < 0) {
			ret = (int)got;
			break;
		}
		end = (size_t)got / rec * rec;
		if (!end)
			break;
		off += end;
		for (i = 0; i < end && ret >= 0;) {
			size_t part = HS_MIN(end, i + SAMPLE_PART * rec), c = 0, k;

			/*
			 * A loop per format, a load, a multiply and a compare a
			 * record, that puts the sampled keys aside without a
			 * branch; then those go into the set, its slots
			 * prefetched a few keys ahead.  A branch on each sampled
			 * key in the first loop mispredicted, and each miss then
			 * waited on the set's slot (a 1 MiB set at 3.7 M keys):
			 * 612 K sampled records of a 3.7 M-key u32be file took
			 * 49-56 ms of CPU, 5 ns a record of the whole file, where
			 * the pass without them took 18-20.
			 */
			if (rec == ORACLE_REC) {
				for (; i < part; i += ORACLE_REC) {
					uint64_t key = get_le64(r->peek + i + 4);

					cand[c] = key;
					c += !((key * SAMPLE_MUL) >> (64 - HS_TRACE_SAMPLE_SHIFT));
				}
			} else {
				for (; i < part; i += U32BE_REC) {
					uint64_t key = get_be32(r->peek + i);

					cand[c] = key;
					c += !((key * SAMPLE_MUL) >> (64 - HS_TRACE_SAMPLE_SHIFT));
				}
			}
			for (k = 0; k < c && ret >= 0; k++) {
				if (k + SAMPLE_AHEAD < c)
					sample_prefetch(&sa, cand[k + SAMPLE_AHEAD] * SAMPLE_MUL);
				ret = sample_add(&sa, cand[k], cand[k] * SAMPLE_MUL);
			}
		}
		if (end < piece)
			break;	/* the end of the file */
	}
out:
	free(cand);
	free(sa.set);
	if (ret < 0) {
		free(sa.keys);
		return ret;
	}
	*keys = sa.keys;
	return (long)sa.n;
}

/**
 * hs_trace_oracle_lasts() - oracle: records read so far that were their key's last access
 * @r: the reader
 *
 * Return: their count (0 for other formats).
 */
uint64_t hs_trace_oracle_lasts(const struct hs_trace_reader *r)
{
	return r->lasts;
}

/*
 * hs_trace_oracle_keys_estimate() reads one slice of ORACLE_SLICE records
 * (96 KiB, in order, so the prefetchers keep up) in ORACLE_EVERY.
 */
#define ORACLE_SLICE	4096u
#define ORACLE_EVERY	16u

/*
 * The last-access marks of the rest of a plain oracle file, in one slice of
 * ORACLE_SLICE records in @every (1: all of it), into *@marks, with the
 * records looked at in *@looked and the rest's records in *@rest, read with
 * pread(2) (peek_at()).  Return: 0, or -EOPNOTSUPP when the input is not a
 * plain oracle file or the reader failed, -ENOMEM, -EIO.
 */
static int count_marks(struct hs_trace_reader *r, unsigned int every, uint64_t *marks,
		       uint64_t *looked, uint64_t *rest)
{
	uint64_t lasts = 0, seen = 0, from = r->base + r->pos, off, size;
	size_t slice = (size_t)ORACLE_SLICE * ORACLE_REC, j, n;
	long got;

	if (r->o.type != HS_TRACE_ORACLE)
		return -EOPNOTSUPP;
	got = peek_at(r, from, 0);
	if (got < 0)
		return (int)got;
	size = r->file_size - (uint64_t)r->start;	/* peek_at(): start <= file_size */
	if (size < from)
		size = from;	/* the file shrank: no rest to look at */
	size -= (size - from) % ORACLE_REC;
	for (off = from; off < size; off += (uint64_t)slice * every) {
		got = peek_at(r, off, (size_t)HS_MIN((uint64_t)slice, size - off));
		if (got < 0)
			return (int)got;
		n = (size_t)got / ORACLE_REC * ORACLE_REC;
		for (j = 0; j < n; j += ORACLE_REC) {
			uint64_t next = get_le64(r->peek + j + 16);

			lasts += next == UINT64_MAX || next == (uint64_t)INT64_MAX;
		}
		seen += n / ORACLE_REC;
		if (n < slice)
			break;
	}
	*marks = lasts;
	*looked = seen;
	*rest = (size - from) / ORACLE_REC;
	return 0;
}

/**
 * hs_trace_oracle_keys() - the distinct keys of a whole oracle file, as it says
 * @r: the reader, of a plain oracle file (peek_at())
 * @keys: receives the count
 *
 * In an oracleGeneral trace every key's last access, and only that, has no
 * next access (-1 or INT64_MAX): the records so marked are the distinct
 * keys.  The reader counts them as it goes; one pass over the rest of the
 * file counts the others, reading the field alone (no hash, no set:
 * hs_trace_sample_keys() cost as much as the map's doublings it saved on an
 * oracle file).  A file whose marks are wrong gives a wrong count: a
 * caller that sizes something by it checks it for sense first.
 *
 * Return: 0; -EOPNOTSUPP when the input is not a plain oracle file or the
 * reader failed; -ENOMEM, -EIO.
 */
int hs_trace_oracle_keys(struct hs_trace_reader *r, uint64_t *keys)
{
	uint64_t marks, looked, rest;
	int ret = count_marks(r, 1, &marks, &looked, &rest);

	if (!ret)
		*keys = r->lasts + marks;
	return ret;
}

/**
 * hs_trace_oracle_keys_estimate() - hs_trace_oracle_keys() from a sample of the rest
 * @r: the reader, of a plain oracle file (peek_at())
 * @keys: receives the estimate
 *
 * The marks of one slice of ORACLE_SLICE records in ORACLE_EVERY of the
 * rest, scaled up to the rest: a sixteenth of the pass, so that an import
 * can afford it before its first records (the whole pass cost 0.04 s of a
 * 10 M-record file, 4 ns a record, on this project's VM).  The slices are
 * spread evenly over the file, and the marks, which gather towards its
 * end, vary slowly along it: on bench/run's zipf traces the estimate was
 * 0.06 % low at 3.7 M keys and 0.02 % at 763 K; 3.5 % at 81 K, whose
 * marks crowd into the file's last slices (an import's map starts larger
 * than that anyway).
 *
 * Return: as hs_trace_oracle_keys().
 */
int hs_trace_oracle_keys_estimate(struct hs_trace_reader *r, uint64_t *keys)
{
	uint64_t marks, looked, rest;
	int ret = count_marks(r, ORACLE_EVERY, &marks, &looked, &rest);

	if (!ret)
		*keys = r->lasts + (looked ? (uint64_t)((double)marks * (double)rest /
							 (double)looked) : 0);
	return ret;
}

/**
 * hs_trace_errmsg() - the reason for the last error
 * @r: the reader
 *
 * Return: the message, or "".
 */
const char *hs_trace_errmsg(const struct hs_trace_reader *r)
{
	return r->err ? r->msg : "";
}

/**
 * hs_trace_lis_requests() - lis: the request lines read so far
 * @r: the reader
 * @requests: receives their count
 * @multi: receives how many span more than one block
 *
 * Return: 0, or -EINVAL when @r does not read lis.
 */
int hs_trace_lis_requests(const struct hs_trace_reader *r, uint64_t *requests, uint64_t *multi)
{
	if (r->o.type != HS_TRACE_LIS)
		return -EINVAL;
	*requests = r->lis_requests;
	*multi = r->lis_multi;
	return 0;
}

/**
 * hs_trace_records() - records returned so far
 * @r: the reader
 *
 * Return: their count.
 */
uint64_t hs_trace_records(const struct hs_trace_reader *r)
{
	return r->records;
}

/**
 * hs_trace_progress() - bytes of the file consumed
 * @r: the reader
 * @done: bytes read from the file
 * @total: file size, or 0 if unknown
 *
 * Return: 0.
 */
int hs_trace_progress(const struct hs_trace_reader *r, uint64_t *done, uint64_t *total)
{
	*done = r->raw - r->zs.avail_in;
	*total = r->file_size;
	return 0;
}

/**
 * hs_trace_close() - close and free a reader
 * @r: the reader, or NULL
 *
 * Return: nothing.
 */
void hs_trace_close(struct hs_trace_reader *r)
{
	if (!r)
		return;
	if (r->zinit)
		inflateEnd(&r->zs);
	if (r->fd >= 0)
		close(r->fd);
	free(r->in);
	free(r->field);
	free(r->peek);
	free(r->buf);
	free(r->path);
	free(r);
}

/**
 * hs_trace_read() - read a whole trace through a callback
 * @path: file name
 * @opts: format and options
 * @cb: called per record
 * @arg: for @cb
 * @err: message buffer, or NULL
 * @errlen: its size
 *
 * Return: 0, a negative errno, or @cb's non-zero value.
 */
int hs_trace_read(const char *path, const struct hs_trace_opts *opts,
		  int (*cb)(void *arg, uint64_t key, uint8_t meta), void *arg,
		  char *err, size_t errlen)
{
	struct hs_trace_reader *r;
	uint64_t key;
	uint8_t meta;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	ret = hs_trace_open(path, opts, &r);
	if (!ret) {
		while ((ret = hs_trace_next(r, &key, &meta)) == 1) {
			ret = cb(arg, key, meta);
			if (ret)
				break;
		}
	}
	if (ret < 0 && r && err && errlen)
		snprintf(err, errlen, "%s", hs_trace_errmsg(r));
	hs_trace_close(r);
	return ret;
}
