/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The JSON writer (see json.h).  It keeps a small stack of the open
 * containers, so that it knows where commas, blanks and line breaks go and
 * can refuse what would not be JSON: a value in an object without its key, a
 * key in an array, an end with nothing open, a second top-level value.  It
 * writes straight to the stream: nothing is buffered beyond stdio.
 *
 * Strings: '"', '\\' and the control characters are escaped (the short forms
 * \b \f \n \r \t where JSON has them, \u00XX otherwise, DEL too), and a byte
 * that does not start a valid UTF-8 sequence becomes U+FFFD, so the result is
 * valid JSON whatever the input.  Reals: the first of %.1g ... %.17g that
 * reads back as the same double, except that whole numbers below 1e15 print
 * as integers; hs_json_fixed() prints "%.*f" for values a caller rounds on
 * purpose (seconds to the millisecond).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/**
 * hs_json_init() - start writing one JSON value to a stream
 * @j: the writer
 * @fp: where to write
 * @flags: 0 or HS_JSON_SPACED
 */
void hs_json_init(struct hs_json *j, FILE *fp, unsigned int flags)
{
	memset(j, 0, sizeof(*j));
	j->fp = fp;
	j->flags = flags;
}

/**
 * hs_json_init_mem() - start writing one JSON value into a string
 * @j: the writer
 * @flags: 0 or HS_JSON_SPACED
 *
 * Return: 0 or -ENOMEM.
 */
int hs_json_init_mem(struct hs_json *j, unsigned int flags)
{
	FILE *fp;

	memset(j, 0, sizeof(*j));
	fp = open_memstream(&j->mem, &j->mem_len);
	if (!fp)
		return -ENOMEM;
	hs_json_init(j, fp, flags);
	return 0;
}

/**
 * hs_json_finish() - check that the value written to a stream is complete
 * @j: the writer
 *
 * Return: 0, the writer's first error, -EINVAL if a container is still open
 * or nothing was written, or -EIO if the stream has an error.
 */
int hs_json_finish(struct hs_json *j)
{
	if (j->err)
		return j->err;
	if (j->depth || !j->done)
		return -EINVAL;
	return ferror(j->fp) ? -EIO : 0;
}

/**
 * hs_json_take() - end a hs_json_init_mem() writer and take its text
 * @j: the writer
 * @out: receives the malloc()ed text (the caller frees it)
 *
 * Return: 0, the writer's first error, -EINVAL if the value is not complete,
 * or -ENOMEM.
 */
int hs_json_take(struct hs_json *j, char **out)
{
	int err = hs_json_finish(j);

	if (fclose(j->fp) && !err)
		err = -ENOMEM;
	j->fp = NULL;
	if (!err && !j->mem)
		err = -ENOMEM;
	if (err) {
		free(j->mem);
		j->mem = NULL;
		return err;
	}
	*out = j->mem;
	j->mem = NULL;
	return 0;
}

static int fail(struct hs_json *j, int err)
{
	if (!j->err)
		j->err = err;
	return j->err;
}

/* Line break and indent: two blanks for each container up to @depth open with lines. */
static void newline(struct hs_json *j, int depth)
{
	int i;

	putc('\n', j->fp);
	for (i = 0; i < depth; i++)
		if (j->level[i].lines)
			fputs("  ", j->fp);
}

/* What goes before a member or item of @l, the innermost container. */
static void separate(struct hs_json *j, struct hs_json_level *l)
{
	if (l->n)
		putc(',', j->fp);
	if (l->lines)
		newline(j, j->depth);
	else if (l->n && (j->flags & HS_JSON_SPACED))
		putc(' ', j->fp);
}

/* Before any value: check that one may come here and write what separates it. */
static int value_begin(struct hs_json *j)
{
	struct hs_json_level *l;

	if (j->err)
		return j->err;
	if (!j->depth) {
		if (j->done)
			return fail(j, -EINVAL);
		return 0;
	}
	l = &j->level[j->depth - 1];
	if (l->object) {
		if (!l->keyed)
			return fail(j, -EINVAL);
		l->keyed = false;
		return 0;
	}
	separate(j, l);
	l->n++;
	return 0;
}

/* After a value: at the top level, the document is complete. */
static int value_end(struct hs_json *j)
{
	if (!j->depth)
		j->done = true;
	return 0;
}

static int open_level(struct hs_json *j, bool object, bool lines)
{
	int err = value_begin(j);

	if (err)
		return err;
	if (j->depth == HS_JSON_MAX_DEPTH)
		return fail(j, -E2BIG);
	j->level[j->depth++] = (struct hs_json_level){ .object = object, .lines = lines };
	putc(object ? '{' : '[', j->fp);
	return 0;
}

/**
 * hs_json_object() - open an object
 * @j: the writer
 *
 * Return: 0, -EINVAL where no value may come, or -E2BIG when nested too deep.
 */
int hs_json_object(struct hs_json *j)
{
	return open_level(j, true, false);
}

/**
 * hs_json_array() - open an array
 * @j: the writer
 *
 * Return: 0, -EINVAL where no value may come, or -E2BIG when nested too deep.
 */
int hs_json_array(struct hs_json *j)
{
	return open_level(j, false, false);
}

/**
 * hs_json_array_lines() - open an array whose items go on lines of their own
 * @j: the writer
 *
 * Each item starts a line two blanks further in than the
 * line the array opens on (two blanks for each open container that has its
 * own lines, this one included); a non-empty array closes on a line of its
 * own, indented as the line it opened on.
 *
 * Return: 0, -EINVAL where no value may come, or -E2BIG when nested too deep.
 */
int hs_json_array_lines(struct hs_json *j)
{
	return open_level(j, false, true);
}

/**
 * hs_json_object_lines() - open an object whose members go on lines of their own
 * @j: the writer
 *
 * Indented as hs_json_array_lines() indents items: the layout of a record
 * ("{\n  \"a\": 1,\n  \"b\": 2\n}" with HS_JSON_SPACED); an empty object is {}.
 *
 * Return: 0, -EINVAL where no value may come, or -E2BIG when nested too deep.
 */
int hs_json_object_lines(struct hs_json *j)
{
	return open_level(j, true, true);
}

/**
 * hs_json_end() - close the innermost open object or array
 * @j: the writer
 *
 * Return: 0, or -EINVAL if nothing is open or an object's last key has no value.
 */
int hs_json_end(struct hs_json *j)
{
	struct hs_json_level *l;

	if (j->err)
		return j->err;
	if (!j->depth)
		return fail(j, -EINVAL);
	l = &j->level[j->depth - 1];
	if (l->object && l->keyed)
		return fail(j, -EINVAL);
	if (l->lines && l->n)
		newline(j, j->depth - 1);
	putc(l->object ? '}' : ']', j->fp);
	j->depth--;
	return value_end(j);
}

static size_t utf8_len(const unsigned char *s, size_t avail)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* The string literal of @len bytes at @s, quotes included. */
static void quote(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	putc('"', fp);
	while (p < end) {
		size_t n;

		switch (*p) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\b':
			fputs("\\b", fp);
			break;
		case '\f':
			fputs("\\f", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(fp, "\\u%04x", *p);
				break;
			}
			n = utf8_len(p, (size_t)(end - p));
			if (!n) {
				fputs("\\ufffd", fp);
				break;
			}
			fwrite(p, 1, n, fp);
			p += n;
			continue;
		}
		p++;
	}
	putc('"', fp);
}

/**
 * hs_json_quote() - write @s as a JSON string literal, quotes included
 * @fp: where to write
 * @s: the text; NULL writes null
 */
void hs_json_quote(FILE *fp, const char *s)
{
	if (!s)
		fputs("null", fp);
	else
		quote(fp, s, strlen(s));
}

/**
 * hs_json_key() - the key of the next member of the current object
 * @j: the writer
 * @key: the key
 *
 * Return: 0, or -EINVAL outside an object or when the previous key has no value.
 */
int hs_json_key(struct hs_json *j, const char *key)
{
	struct hs_json_level *l;

	if (j->err)
		return j->err;
	if (!j->depth || !key)
		return fail(j, -EINVAL);
	l = &j->level[j->depth - 1];
	if (!l->object || l->keyed)
		return fail(j, -EINVAL);
	separate(j, l);
	quote(j->fp, key, strlen(key));
	fputs(j->flags & HS_JSON_SPACED ? ": " : ":", j->fp);
	l->keyed = true;
	l->n++;
	return 0;
}

/* Write one scalar's text. */
static int scalar(struct hs_json *j, const char *text)
{
	int err = value_begin(j);

	if (err)
		return err;
	fputs(text, j->fp);
	return value_end(j);
}

/**
 * hs_json_str_len() - write a string value of @len bytes
 * @j: the writer
 * @s: the bytes (need not be NUL-terminated)
 * @len: their count
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_str_len(struct hs_json *j, const char *s, size_t len)
{
	int err = value_begin(j);

	if (err)
		return err;
	quote(j->fp, s, len);
	return value_end(j);
}

/**
 * hs_json_str() - write a string value
 * @j: the writer
 * @s: the text; NULL writes null
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_str(struct hs_json *j, const char *s)
{
	if (!s)
		return hs_json_null(j);
	return hs_json_str_len(j, s, strlen(s));
}

/**
 * hs_json_int() - write a signed integer
 * @j: the writer
 * @v: the value
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_int(struct hs_json *j, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return scalar(j, buf);
}

/**
 * hs_json_uint() - write an unsigned integer
 * @j: the writer
 * @v: the value
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_uint(struct hs_json *j, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return scalar(j, buf);
}

/**
 * hs_json_format_real() - the text hs_json_real() writes for @v
 * @v: the value
 * @buf: output, at least 32 bytes
 * @len: its size
 *
 * "null" for NaN and infinities; whole numbers below 1e15 as integers;
 * otherwise the shortest %.Ng (N = 1..17) that reads back as @v.
 *
 * Return: @buf.
 */
char *hs_json_format_real(double v, char *buf, size_t len)
{
	int prec;

	if (!isfinite(v)) {
		snprintf(buf, len, "null");
		return buf;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/**
 * hs_json_real() - write a real in the shortest text that reads back exactly
 * @j: the writer
 * @v: the value; NaN and infinities write null
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_real(struct hs_json *j, double v)
{
	char buf[40];

	return scalar(j, hs_json_format_real(v, buf, sizeof(buf)));
}

/**
 * hs_json_fixed() - write a real with a fixed number of decimals
 * @j: the writer
 * @v: the value; NaN and infinities write null
 * @decimals: digits after the point, 0 to 17
 *
 * For values rounded on purpose, such as seconds to the millisecond (3).
 *
 * Return: 0, or -EINVAL where no value may come or for a bad @decimals.
 */
int hs_json_fixed(struct hs_json *j, double v, int decimals)
{
	char buf[352];

	if (decimals < 0 || decimals > 17)
		return fail(j, -EINVAL);
	if (!isfinite(v))
		return scalar(j, "null");
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return scalar(j, buf);
}

/**
 * hs_json_bool() - write true or false
 * @j: the writer
 * @v: the value
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_bool(struct hs_json *j, bool v)
{
	return scalar(j, v ? "true" : "false");
}

/**
 * hs_json_null() - write null
 * @j: the writer
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_null(struct hs_json *j)
{
	return scalar(j, "null");
}

/**
 * hs_json_raw() - write text that already is one JSON value
 * @j: the writer
 * @text: the value's text, written as is (a stored params column); NULL
 *	  writes null
 *
 * Return: 0, or -EINVAL where no value may come.
 */
int hs_json_raw(struct hs_json *j, const char *text)
{
	return scalar(j, text ? text : "null");
}
