/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict number, size and list parsing shared by the CLI and the importers.
 * The libc converters are too forgiving (leading blanks, a sign on unsigned
 * input, trailing text, silent wrap-around), so every entry point here checks
 * the first character itself, insists that the whole string was consumed and
 * turns overflow into -ERANGE.  Only decimal input is accepted.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Read a run of decimal digits at *sp into *out, advancing *sp past them.
 * Returns -EINVAL when there is no digit and -ERANGE on overflow.
 */
static int read_digits(const char **sp, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*sp = s;
	*out = v;
	return 0;
}

/**
 * hs_parse_u64() - parse an unsigned decimal integer
 * @s: the text; only digits (no sign, no blanks, no trailing text)
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: receives the value on success
 *
 * Return: 0, -EINVAL if @s is not a decimal number, -ERANGE on overflow or
 * when the value lies outside [@min, @max].
 */
int hs_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int err;

	if (!s)
		return -EINVAL;
	err = read_digits(&s, &v);
	if (err == -EINVAL || (err == 0 && *s))
		return -EINVAL;
	if (err == -ERANGE) {
		/* still reject "99999999999999999999x" as not-a-number */
		while (is_digit(*s))
			s++;
		return *s ? -EINVAL : -ERANGE;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * hs_parse_i64() - parse a signed decimal integer
 * @s: the text: an optional '-' then digits
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: receives the value on success
 *
 * Return: 0, -EINVAL if @s is not a decimal number, -ERANGE on overflow or
 * when the value lies outside [@min, @max].
 */
int hs_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	bool neg = false;
	const char *p;
	uint64_t mag = 0;
	int64_t v;
	int err;

	if (!s)
		return -EINVAL;
	if (*s == '-') {
		neg = true;
		s++;
	}
	p = s;
	err = read_digits(&p, &mag);
	if (err == -EINVAL)
		return -EINVAL;
	while (is_digit(*p))
		p++;
	if (*p)
		return -EINVAL;
	if (err)
		return -ERANGE;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return -ERANGE;
		v = (int64_t)mag;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * hs_parse_double() - parse a finite decimal real number
 * @s: the text: optional sign, digits with an optional point and exponent
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: receives the value on success
 *
 * Hexadecimal floats, "inf" and "nan" are not accepted.  A value too small to
 * represent rounds towards zero and is accepted.
 *
 * Return: 0, -EINVAL if @s is not a number, -ERANGE on overflow or when the
 * value lies outside [@min, @max].
 */
int hs_parse_double(const char *s, double min, double max, double *out)
{
	const char *p;
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	p = s;
	if (*p == '-' || *p == '+')
		p++;
	/* a digit, or a point followed by a digit; rules out blanks, inf, nan, 0x */
	if (!is_digit(*p) && !(*p == '.' && is_digit(p[1])))
		return -EINVAL;
	if (*p == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE && fabs(v) > 1.0)
		return -ERANGE;
	if (!isfinite(v))
		return -ERANGE;
	if (!(v >= min && v <= max))
		return -ERANGE;
	*out = v;
	return 0;
}

/* A binary size suffix: returns its shift (10..40), 0 for none, -1 if unknown. */
static int suffix_shift(const char *s)
{
	static const char letters[] = "KMGT";
	const char *l;

	if (!*s)
		return 0;
	l = strchr(letters, s[0] >= 'a' && s[0] <= 'z' ? s[0] - 'a' + 'A' : s[0]);
	if (!l || !*l)
		return -1;
	if (s[1] && strcasecmp(s + 1, "iB"))
		return -1;
	return 10 * (int)(l - letters + 1);
}

/**
 * hs_parse_size() - parse a capacity, as a count or as a byte size
 * @s: digits, optionally followed by K, M, G, T, KiB, MiB, GiB or TiB (any case)
 * @unit_bytes: bytes per unit; 0 means suffixes are not allowed
 * @min: smallest accepted result (in units)
 * @max: largest accepted result (in units)
 * @out: receives the number of units, rounded down
 *
 * Return: 0, -EINVAL for malformed text or a suffix with @unit_bytes 0,
 * -ERANGE on overflow or a result outside [@min, @max].
 */
int hs_parse_size(const char *s, uint64_t unit_bytes, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	uint64_t n = 0;
	int shift;
	int err;

	if (!s)
		return -EINVAL;
	err = read_digits(&s, &n);
	if (err == -EINVAL)
		return -EINVAL;
	while (is_digit(*s))
		s++;
	shift = suffix_shift(s);
	if (shift < 0 || (shift > 0 && unit_bytes == 0))
		return -EINVAL;
	if (err)
		return -ERANGE;
	if (shift > 0) {
		if (n > (UINT64_MAX >> shift))
			return -ERANGE;
		n = (n << shift) / unit_bytes;
	}
	if (n < min || n > max)
		return -ERANGE;
	*out = n;
	return 0;
}

/**
 * hs_split_list() - split a comma-separated list in place
 * @s: the list; every ',' is replaced by a NUL
 * @items: receives pointers to the items, in order
 * @max: capacity of @items
 *
 * Return: the number of items (at least 1), -EINVAL if any item is empty
 * (including an empty @s), or -E2BIG for more than @max items.  @s may be
 * partly split when an error is returned.
 */
int hs_split_list(char *s, char **items, size_t max)
{
	size_t n = 0;
	char *comma;

	if (!s)
		return -EINVAL;
	for (;;) {
		comma = strchr(s, ',');
		if (comma)
			*comma = '\0';
		if (!*s)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		items[n++] = s;
		if (!comma)
			break;
		s = comma + 1;
	}
	return (int)n;
}
