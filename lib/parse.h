/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict parsing of numbers and sizes for the CLI and the importers: no empty
 * strings, no trailing text, no silent overflow.  Returns 0, -EINVAL (not a
 * number of that form) or -ERANGE (outside [min, max] or overflow).
 */
#ifndef HS_PARSE_H
#define HS_PARSE_H

#include <stddef.h>
#include <stdint.h>

int hs_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int hs_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
int hs_parse_double(const char *s, double min, double max, double *out);

/*
 * A capacity: a plain count of units ("1000"), or, when @unit_bytes is not 0,
 * a byte size with a binary suffix K, M, G, T (also KiB/MiB/GiB/TiB, any case)
 * converted to units of @unit_bytes (rounded down; "4K" of 4096-byte pages is
 * 1).  A suffix with @unit_bytes 0 is -EINVAL.  Result in [min, max].
 */
int hs_parse_size(const char *s, uint64_t unit_bytes, uint64_t min, uint64_t max,
		  uint64_t *out);

/*
 * Split a comma-separated list in place: fills items[] with pointers into s
 * and returns the count, or -EINVAL (empty item) / -E2BIG (more than max).
 */
int hs_split_list(char *s, char **items, size_t max);

#endif /* HS_PARSE_H */
