/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON writer.  Every piece of JSON hsctl produces, whether printed
 * (--format json) or stored (the params and events columns), is written
 * through it, so escaping and number formatting are defined once: strings are
 * escaped and made valid UTF-8, integers print in full, reals print in the
 * shortest text that reads back as the same double (whole numbers below 1e15
 * without an exponent: 100, not 1e+02), or with a fixed number of decimals
 * where a caller asks for it (seconds to the millisecond), and NaN and
 * infinities print as null.
 *
 * Use: hs_json_init() on a FILE * (or hs_json_init_mem() for a string), then
 * nested hs_json_object()/hs_json_array() ... hs_json_end(), a hs_json_key()
 * before each member of an object, and value calls.  The writer checks the
 * nesting as it goes; the first error sticks and every later call returns it,
 * so a caller may check only the last one (hs_json_finish()).
 *
 * Layout: compact by default ({"a":1,"b":[2,3]}); HS_JSON_SPACED puts a blank
 * after each ':' and ',' ({"a": 1, "b": [2, 3]}); hs_json_array_lines() opens
 * an array whose items go on lines of their own, two blanks in, the closing
 * bracket on a line of its own (the row layout of --format json), and
 * hs_json_object_lines() does the same for an object's members (the layout
 * of a record).  A container with lines inside another one is indented two
 * blanks more.
 */
#ifndef HS_JSON_H
#define HS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HS_JSON_SPACED		0x1	/* "a": 1, "b": 2 */
#define HS_JSON_MAX_DEPTH	16	/* nesting the writer checks */

struct hs_json_level {
	bool		object;		/* an object (members need keys), else an array */
	bool		lines;		/* array items on lines of their own */
	bool		keyed;		/* object: a key was written, its value is next */
	size_t		n;		/* members or items written so far */
};

/* A writer; lives on the caller's stack.  Fields are private to lib/json.c. */
struct hs_json {
	FILE		*fp;		/* destination */
	unsigned int	flags;		/* HS_JSON_* */
	int		err;		/* first error, sticky (0: none) */
	int		depth;		/* open containers */
	bool		done;		/* a top-level value is complete */
	char		*mem;		/* hs_json_init_mem(): the text */
	size_t		mem_len;	/* its length */
	struct hs_json_level level[HS_JSON_MAX_DEPTH];
};

/**
 * hs_json_init() - start writing one JSON value to a stream
 * @j: the writer
 * @fp: where to write
 * @flags: 0 or HS_JSON_SPACED
 */
void hs_json_init(struct hs_json *j, FILE *fp, unsigned int flags);

/**
 * hs_json_init_mem() - start writing one JSON value into a string
 * @j: the writer
 * @flags: 0 or HS_JSON_SPACED
 *
 * hs_json_take() ends it and hands the text over.
 *
 * Return: 0 or -ENOMEM.
 */
int hs_json_init_mem(struct hs_json *j, unsigned int flags);

/**
 * hs_json_take() - end a hs_json_init_mem() writer and take its text
 * @j: the writer
 * @out: receives the malloc()ed, NUL-terminated text (the caller frees it)
 *
 * Always releases the writer's stream, also on error.
 *
 * Return: 0, the writer's first error, -EINVAL if the value is not complete,
 * or -ENOMEM.
 */
int hs_json_take(struct hs_json *j, char **out);

/**
 * hs_json_finish() - check that the value written to a stream is complete
 * @j: the writer
 *
 * Does not close or flush the stream.
 *
 * Return: 0, the writer's first error, -EINVAL if a container is still open
 * or nothing was written, or -EIO if the stream has an error.
 */
int hs_json_finish(struct hs_json *j);

int hs_json_object(struct hs_json *j);		/* { */
int hs_json_array(struct hs_json *j);		/* [ */
int hs_json_array_lines(struct hs_json *j);	/* [ with one item per line */
int hs_json_object_lines(struct hs_json *j);	/* { with one member per line */
int hs_json_end(struct hs_json *j);		/* closes the innermost container */

/* The key of the next member of the current object. */
int hs_json_key(struct hs_json *j, const char *key);

int hs_json_str(struct hs_json *j, const char *s);	/* NULL writes null */
int hs_json_str_len(struct hs_json *j, const char *s, size_t len);
int hs_json_int(struct hs_json *j, int64_t v);
int hs_json_uint(struct hs_json *j, uint64_t v);
int hs_json_real(struct hs_json *j, double v);		/* shortest exact text */
int hs_json_fixed(struct hs_json *j, double v, int decimals);	/* "%.*f" */
int hs_json_bool(struct hs_json *j, bool v);
int hs_json_null(struct hs_json *j);
/* Text that already is one JSON value (a stored params column); NULL writes null. */
int hs_json_raw(struct hs_json *j, const char *text);

/**
 * hs_json_quote() - write @s as a JSON string literal, quotes included
 * @fp: where to write
 * @s: the text; NULL writes null
 *
 * The escaping of hs_json_str(), for code that writes no structure around
 * it.  Errors show up in ferror(@fp).
 */
void hs_json_quote(FILE *fp, const char *s);

/**
 * hs_json_format_real() - the text hs_json_real() writes for @v
 * @v: the value
 * @buf: output, at least 32 bytes
 * @len: its size
 *
 * Return: @buf.
 */
char *hs_json_format_real(double v, char *buf, size_t len);

#endif /* HS_JSON_H */
