/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Typed policy parameters.  A policy declares its parameters as a table of
 * struct hs_param; the CLI parses "--param policy.key=value" against that table
 * after applying the defaults, and `hsctl policy describe` prints it.  Nothing
 * here prints or exits: errors come back as -EINVAL with a message in a buffer.
 */
#ifndef HS_PARAM_H
#define HS_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hs_param_type {
	HS_PARAM_U64,		/* unsigned integer, min/max inclusive */
	HS_PARAM_DOUBLE,	/* real number, min/max inclusive */
	HS_PARAM_BOOL,		/* true/false, 1/0, yes/no, on/off */
	HS_PARAM_ENUM,		/* one of choices ("a|b|c"); read back as its index */
};

struct hs_param {
	const char		*name;		/* key, e.g. "lambda"; NULL ends a table */
	enum hs_param_type	type;		/* how the value is parsed */
	const char		*def;		/* default value, parsed like user input */
	const char		*help;		/* one line for `hsctl policy describe` */
	const char		*choices;	/* HS_PARAM_ENUM only: "a|b|c" */
	double			min;		/* U64/DOUBLE: smallest accepted value */
	double			max;		/* U64/DOUBLE: largest accepted value */
};

struct hs_param_set;	/* opaque: one value per entry of a table */

/**
 * hs_param_set_new() - a set holding every parameter of @table at its default
 * @table: {NULL}-terminated table, or NULL for a policy without parameters
 * @out: the new set
 *
 * Return: 0, -ENOMEM, or -EINVAL if a default does not parse (a bug).
 */
int hs_param_set_new(const struct hs_param *table, struct hs_param_set **out);
void hs_param_set_free(struct hs_param_set *ps);

/**
 * hs_param_set_parse() - set one parameter from text
 * @ps: the set
 * @key: parameter name
 * @value: its text
 * @err: receives a one-line reason on failure ("unknown parameter 'x' (valid: a, b)")
 * @errlen: size of @err
 *
 * Return: 0, or -EINVAL for an unknown key or a bad or out-of-range value.
 */
int hs_param_set_parse(struct hs_param_set *ps, const char *key, const char *value,
		       char *err, size_t errlen);

/* Readers.  @name must be in the table with the matching type (asserted). */
uint64_t hs_param_u64(const struct hs_param_set *ps, const char *name);
double hs_param_double(const struct hs_param_set *ps, const char *name);
bool hs_param_bool(const struct hs_param_set *ps, const char *name);
unsigned int hs_param_enum(const struct hs_param_set *ps, const char *name);

/*
 * A boolean parameter that may be absent (a caller that does not know the
 * policy).  Return: 0 with *out set, -ENOENT if @ps has no such parameter,
 * -EINVAL if it is not a boolean.
 */
int hs_param_find_bool(const struct hs_param_set *ps, const char *name, bool *out);

struct hs_json;

/**
 * hs_param_set_json_members() - write the set as members of an open JSON object
 * @ps: the set (NULL or empty writes nothing)
 * @j: a writer (lib/json.h) inside an object
 *
 * Keys in table order, numbers as numbers, enums and bools as JSON strings and
 * booleans; the caller may add members of its own before closing the object.
 *
 * Return: 0, or the writer's error.
 */
int hs_param_set_json_members(const struct hs_param_set *ps, struct hs_json *j);

/**
 * hs_param_set_json() - the whole set as a canonical JSON object
 * @ps: the set (NULL or empty gives "{}")
 * @buf: output buffer
 * @len: its size
 *
 * Keys in table order, numbers as numbers, enums and bools as JSON strings and
 * booleans.  Two runs with the same effective parameters give the same text.
 *
 * Return: length written (excluding NUL), -ENOSPC, or -ENOMEM.
 */
int hs_param_set_json(const struct hs_param_set *ps, char *buf, size_t len);

/* The table the set was made from (NULL for an empty table). */
const struct hs_param *hs_param_set_table(const struct hs_param_set *ps);

#endif /* HS_PARAM_H */
