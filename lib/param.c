/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Typed policy parameters (see param.h).  A set holds one value per entry of
 * a policy's {NULL}-terminated table, starts at the defaults and is changed
 * one key at a time from user text.  Every error message names what would
 * have been accepted, so the CLI can print it as is.  The values stay typed
 * until the JSON writer (lib/json.c) serialises them; the JSON form is
 * canonical: table order, no blanks, doubles in the shortest text that reads
 * back to the same value, so equal settings always give equal text.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "param.h"
#include "parse.h"

union param_value {
	uint64_t	u;		/* HS_PARAM_U64 */
	double		d;		/* HS_PARAM_DOUBLE */
	bool		b;		/* HS_PARAM_BOOL */
	unsigned int	e;		/* HS_PARAM_ENUM: index into choices */
};

struct hs_param_set {
	const struct hs_param	*table;		/* the policy's table; NULL if it has none */
	size_t			n;		/* entries in table before the NULL name */
	union param_value	val[];		/* val[i] is the value of table[i] */
};

/* Accepted spellings of a boolean, true ones at even indexes. */
static const char *const bool_words[] = {
	"true", "false", "1", "0", "yes", "no", "on", "off",
};

/* 2^64 as a double: any bound at or above it means "no upper limit". */
#define U64_LIMIT	18446744073709551616.0

static uint64_t bound_u64(double d)
{
	if (!(d > 0))
		return 0;
	if (d >= U64_LIMIT)
		return UINT64_MAX;
	return (uint64_t)d;
}

/* Find the @idx-th choice of "a|b|c": pointer and length, or -1 if none. */
static int choice_at(const char *choices, unsigned int idx, const char **start, size_t *len)
{
	const char *s = choices;
	unsigned int i = 0;

	if (!s)
		return -1;
	for (;;) {
		const char *bar = strchr(s, '|');
		size_t l = bar ? (size_t)(bar - s) : strlen(s);

		if (i == idx) {
			*start = s;
			*len = l;
			return 0;
		}
		if (!bar)
			return -1;
		s = bar + 1;
		i++;
	}
}

static int choice_find(const char *choices, const char *value, unsigned int *idx)
{
	size_t vlen = strlen(value);
	const char *start;
	unsigned int i;
	size_t len;

	for (i = 0; choice_at(choices, i, &start, &len) == 0; i++) {
		if (len == vlen && len > 0 && !memcmp(start, value, len)) {
			*idx = i;
			return 0;
		}
	}
	return -1;
}

/* snprintf that tolerates a NULL or empty buffer and appends at @*pos. */
static void __attribute__((format(printf, 4, 5)))
msg_add(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!buf || *pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

/* Describe what @p accepts, e.g. "a number in [0, 1]". */
static void describe_expected(const struct hs_param *p, char *buf, size_t len, size_t *pos)
{
	const char *start;
	unsigned int i;
	size_t l;

	switch (p->type) {
	case HS_PARAM_U64:
		if (p->max >= U64_LIMIT)
			msg_add(buf, len, pos, "an integer >= %" PRIu64, bound_u64(p->min));
		else
			msg_add(buf, len, pos, "an integer in [%" PRIu64 ", %" PRIu64 "]",
				bound_u64(p->min), bound_u64(p->max));
		break;
	case HS_PARAM_DOUBLE:
		if (isinf(p->max) && isinf(p->min))
			msg_add(buf, len, pos, "a number");
		else if (isinf(p->max))
			msg_add(buf, len, pos, "a number >= %g", p->min);
		else
			msg_add(buf, len, pos, "a number in [%g, %g]", p->min, p->max);
		break;
	case HS_PARAM_BOOL:
		msg_add(buf, len, pos, "true/false, 1/0, yes/no or on/off");
		break;
	case HS_PARAM_ENUM:
		msg_add(buf, len, pos, "one of: ");
		for (i = 0; choice_at(p->choices, i, &start, &l) == 0; i++)
			msg_add(buf, len, pos, "%s%.*s", i ? ", " : "", (int)l, start);
		break;
	}
}

static int parse_value(const struct hs_param *p, const char *text, union param_value *v)
{
	unsigned int i;

	switch (p->type) {
	case HS_PARAM_U64:
		if (hs_parse_u64(text, bound_u64(p->min), bound_u64(p->max), &v->u))
			return -EINVAL;
		return 0;
	case HS_PARAM_DOUBLE:
		if (hs_parse_double(text, p->min, p->max, &v->d))
			return -EINVAL;
		return 0;
	case HS_PARAM_BOOL:
		for (i = 0; i < sizeof(bool_words) / sizeof(bool_words[0]); i++) {
			if (!strcasecmp(text, bool_words[i])) {
				v->b = i % 2 == 0;
				return 0;
			}
		}
		return -EINVAL;
	case HS_PARAM_ENUM:
		return choice_find(p->choices, text, &v->e) ? -EINVAL : 0;
	}
	return -EINVAL;
}

/**
 * hs_param_set_new() - a set holding every parameter of @table at its default
 * @table: {NULL}-terminated table, or NULL for a policy without parameters
 * @out: the new set
 *
 * Return: 0, -ENOMEM, or -EINVAL if a default does not parse (a bug).
 */
int hs_param_set_new(const struct hs_param *table, struct hs_param_set **out)
{
	struct hs_param_set *ps;
	size_t n = 0;
	size_t i;

	while (table && table[n].name)
		n++;
	ps = calloc(1, sizeof(*ps) + n * sizeof(ps->val[0]));
	if (!ps)
		return -ENOMEM;
	ps->table = n ? table : NULL;
	ps->n = n;
	for (i = 0; i < n; i++) {
		if (!table[i].def || parse_value(&table[i], table[i].def, &ps->val[i])) {
			free(ps);
			return -EINVAL;
		}
	}
	*out = ps;
	return 0;
}

/**
 * hs_param_set_free() - release a set
 * @ps: the set, or NULL
 *
 * Return: nothing.
 */
void hs_param_set_free(struct hs_param_set *ps)
{
	free(ps);
}

static int find_index(const struct hs_param_set *ps, const char *name)
{
	size_t i;

	if (!ps || !name)
		return -1;
	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->table[i].name, name))
			return (int)i;
	return -1;
}

/**
 * hs_param_set_parse() - set one parameter from text
 * @ps: the set
 * @key: parameter name
 * @value: its text
 * @err: receives a one-line reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * On failure the set is unchanged and @err says what the valid keys or values
 * are, e.g. "unknown parameter 'x' for this policy (valid: lambda, ghost)" or
 * "bad value 'abc' for lambda: expected a number in [0, 1]".
 *
 * Return: 0, or -EINVAL for an unknown key or a bad or out-of-range value.
 */
int hs_param_set_parse(struct hs_param_set *ps, const char *key, const char *value,
		       char *err, size_t errlen)
{
	const struct hs_param *p;
	union param_value v;
	size_t pos = 0;
	int idx;

	if (err && errlen)
		err[0] = '\0';
	idx = find_index(ps, key);
	if (idx < 0) {
		size_t i;

		msg_add(err, errlen, &pos, "unknown parameter '%s' for this policy", key ? key : "");
		if (!ps || ps->n == 0) {
			msg_add(err, errlen, &pos, " (it has no parameters)");
			return -EINVAL;
		}
		msg_add(err, errlen, &pos, " (valid: ");
		for (i = 0; i < ps->n; i++)
			msg_add(err, errlen, &pos, "%s%s", i ? ", " : "", ps->table[i].name);
		msg_add(err, errlen, &pos, ")");
		return -EINVAL;
	}
	p = &ps->table[idx];
	if (!value || parse_value(p, value, &v)) {
		msg_add(err, errlen, &pos, "bad value '%s' for %s: expected ", value ? value : "",
			p->name);
		describe_expected(p, err, errlen, &pos);
		return -EINVAL;
	}
	ps->val[idx] = v;
	return 0;
}

static const union param_value *lookup(const struct hs_param_set *ps, const char *name,
				       enum hs_param_type type)
{
	int idx = find_index(ps, name);

	assert(idx >= 0);
	assert(ps->table[idx].type == type);
	(void)type;
	return &ps->val[idx];
}

/**
 * hs_param_u64() - read an unsigned integer parameter
 * @ps: the set
 * @name: a HS_PARAM_U64 entry of its table
 *
 * Return: its current value.
 */
uint64_t hs_param_u64(const struct hs_param_set *ps, const char *name)
{
	return lookup(ps, name, HS_PARAM_U64)->u;
}

/**
 * hs_param_double() - read a real parameter
 * @ps: the set
 * @name: a HS_PARAM_DOUBLE entry of its table
 *
 * Return: its current value.
 */
double hs_param_double(const struct hs_param_set *ps, const char *name)
{
	return lookup(ps, name, HS_PARAM_DOUBLE)->d;
}

/**
 * hs_param_bool() - read a boolean parameter
 * @ps: the set
 * @name: a HS_PARAM_BOOL entry of its table
 *
 * Return: its current value.
 */
bool hs_param_bool(const struct hs_param_set *ps, const char *name)
{
	return lookup(ps, name, HS_PARAM_BOOL)->b;
}

/**
 * hs_param_enum() - read an enumerated parameter
 * @ps: the set
 * @name: a HS_PARAM_ENUM entry of its table
 *
 * Return: the index of its current value in the "a|b|c" choices.
 */
unsigned int hs_param_enum(const struct hs_param_set *ps, const char *name)
{
	return lookup(ps, name, HS_PARAM_ENUM)->e;
}

/**
 * hs_param_find_bool() - read a boolean parameter that may be absent
 * @ps: the set (NULL: none)
 * @name: the parameter
 * @out: receives its value
 *
 * Return: 0, -ENOENT if @ps has no parameter @name, -EINVAL if it is not a
 * boolean.
 */
int hs_param_find_bool(const struct hs_param_set *ps, const char *name, bool *out)
{
	int idx = find_index(ps, name);

	if (idx < 0)
		return -ENOENT;
	if (ps->table[idx].type != HS_PARAM_BOOL)
		return -EINVAL;
	*out = ps->val[idx].b;
	return 0;
}

/**
 * hs_param_set_json_members() - write the set as members of an open object
 * @ps: the set (NULL or empty writes nothing)
 * @j: a writer inside an object
 *
 * Keys in table order, integers as integers, doubles as hs_json_real() writes
 * them, bools as JSON booleans, enums as their choice text.  A caller may add
 * members of its own before closing the object.
 *
 * Return: 0, or the writer's error.
 */
int hs_param_set_json_members(const struct hs_param_set *ps, struct hs_json *j)
{
	const char *start;
	size_t i, l;
	int err = 0;

	for (i = 0; ps && i < ps->n && !err; i++) {
		const struct hs_param *p = &ps->table[i];

		err = hs_json_key(j, p->name);
		if (err)
			break;
		switch (p->type) {
		case HS_PARAM_U64:
			err = hs_json_uint(j, ps->val[i].u);
			break;
		case HS_PARAM_DOUBLE:
			err = hs_json_real(j, ps->val[i].d);
			break;
		case HS_PARAM_BOOL:
			err = hs_json_bool(j, ps->val[i].b);
			break;
		case HS_PARAM_ENUM:
			if (choice_at(p->choices, ps->val[i].e, &start, &l))
				err = hs_json_null(j);
			else
				err = hs_json_str_len(j, start, l);
			break;
		}
	}
	return err;
}

/**
 * hs_param_set_json() - the whole set as a canonical JSON object
 * @ps: the set (NULL or empty gives "{}")
 * @buf: output buffer
 * @len: its size
 *
 * For example {"lambda":0.5,"bypass":false,"mode":"demand"}: the object of
 * hs_param_set_json_members(), compact (no blanks).
 *
 * Return: length written (excluding NUL), -ENOSPC, or -ENOMEM.
 */
int hs_param_set_json(const struct hs_param_set *ps, char *buf, size_t len)
{
	struct hs_json j;
	char *text = NULL;
	size_t n;
	int err;

	if (buf && len)
		buf[0] = '\0';
	err = hs_json_init_mem(&j, 0);
	if (err)
		return err;
	hs_json_object(&j);
	hs_param_set_json_members(ps, &j);
	hs_json_end(&j);
	err = hs_json_take(&j, &text);
	if (err)
		return err;
	n = strlen(text);
	if (!buf || n >= len) {
		free(text);
		return -ENOSPC;
	}
	memcpy(buf, text, n + 1);
	free(text);
	return (int)n;
}

/**
 * hs_param_set_table() - the table a set was made from
 * @ps: the set
 *
 * Return: the table, or NULL for a policy without parameters.
 */
const struct hs_param *hs_param_set_table(const struct hs_param_set *ps)
{
	return ps ? ps->table : NULL;
}
