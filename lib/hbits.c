/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hierarchical bitmap's allocation and growth (lib/hbits.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbits.h"

#define MAX_BOUND	(1ull << 48)

/* Words of each level for @bound members; returns the number of levels. */
static unsigned int shape(uint64_t bound, uint64_t *words)
{
	unsigned int l = 0;
	uint64_t n = bound;

	do {
		n = (n + 63) / 64;
		words[l++] = n;
	} while (n > 1);
	return l;
}

static int alloc_levels(struct hs_hbits *b, uint64_t bound)
{
	uint64_t words[HS_HBITS_LEVELS];
	unsigned int l;

	memset(b, 0, sizeof(*b));
	b->levels = shape(bound, words);
	b->bound = bound;
	for (l = 0; l < b->levels; l++) {
		b->w[l] = calloc(words[l], sizeof(uint64_t));
		if (!b->w[l]) {
			hs_hbits_release(b);
			return -ENOMEM;
		}
	}
	return 0;
}

int hs_hbits_init(struct hs_hbits *b, uint64_t bound)
{
	if (!bound || bound > MAX_BOUND)
		return -EINVAL;
	return alloc_levels(b, bound);
}

/*
 * Growth makes new levels and copies level 0; the levels above are rebuilt
 * from it (a pass over bound / 64 words, amortized by doubling in the caller).
 */
int hs_hbits_grow(struct hs_hbits *b, uint64_t bound)
{
	struct hs_hbits nb;
	uint64_t old_words = (b->bound + 63) / 64, i;
	int ret;

	if (bound <= b->bound)
		return 0;
	if (bound > MAX_BOUND)
		return -EINVAL;
	ret = alloc_levels(&nb, bound);
	if (ret)
		return ret;
	memcpy(nb.w[0], b->w[0], old_words * sizeof(uint64_t));
	for (unsigned int l = 1; l < nb.levels; l++) {
		uint64_t below = (nb.bound + (1ull << (6 * l)) - 1) >> (6 * l);

		for (i = 0; i < below; i++)
			if (nb.w[l - 1][i])
				nb.w[l][i >> 6] |= 1ull << (i & 63);
	}
	hs_hbits_release(b);
	*b = nb;
	return 0;
}

void hs_hbits_release(struct hs_hbits *b)
{
	for (unsigned int l = 0; l < HS_HBITS_LEVELS; l++) {
		free(b->w[l]);
		b->w[l] = NULL;
	}
	b->levels = 0;
	b->bound = 0;
}

uint64_t hs_hbits_count(const struct hs_hbits *b)
{
	uint64_t n = 0, words = (b->bound + 63) / 64;

	for (uint64_t i = 0; i < words; i++)
		n += (uint64_t)__builtin_popcountll(b->w[0][i]);
	return n;
}
