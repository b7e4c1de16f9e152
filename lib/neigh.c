/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The neighbour index of a recorded session's keys (lib/neigh.h): a sort of
 * the keys with an address by (space, page).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "neigh.h"

int hs_neigh_new(uint32_t nr_keys, struct hs_neigh **out)
{
	size_t n = nr_keys ? nr_keys : 1;
	struct hs_neigh *nb = calloc(1, sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	nb->nr_keys = nr_keys;
	nb->space = calloc(n, sizeof(*nb->space));
	nb->page = calloc(n, sizeof(*nb->page));
	nb->pos = malloc(n * sizeof(*nb->pos));
	if (!nb->space || !nb->page || !nb->pos) {
		hs_neigh_free(nb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		nb->pos[i] = HS_NEIGH_NOPOS;
	*out = nb;
	return 0;
}

void hs_neigh_set(struct hs_neigh *nb, uint32_t id, uint32_t space, uint64_t page)
{
	if (id >= nb->nr_keys || space == HS_NEIGH_NONE)
		return;
	nb->space[id] = space;
	nb->page[id] = page;
}

struct entry {
	uint64_t	page;
	uint32_t	space;
	uint32_t	id;
};

static int by_address(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int hs_neigh_finish(struct hs_neigh *nb)
{
	struct entry *e;
	uint32_t i, n = 0;

	for (i = 0; i < nb->nr_keys; i++)
		n += nb->space[i] != HS_NEIGH_NONE;
	free(nb->order);
	nb->order = malloc((n ? n : 1) * sizeof(*nb->order));
	/* sorted as self-contained entries: qsort() has no context argument */
	e = malloc((n ? n : 1) * sizeof(*e));
	if (!nb->order || !e) {
		free(e);
		return -ENOMEM;
	}
	n = 0;
	for (i = 0; i < nb->nr_keys; i++)
		if (nb->space[i] != HS_NEIGH_NONE)
			e[n++] = (struct entry){ .page = nb->page[i], .space = nb->space[i],
						 .id = i };
	qsort(e, n, sizeof(*e), by_address);
	for (i = 0; i < n; i++) {
		nb->order[i] = e[i].id;
		nb->pos[e[i].id] = i;
	}
	free(e);
	nb->nr_addr = n;
	return 0;
}

void hs_neigh_free(struct hs_neigh *nb)
{
	if (!nb)
		return;
	free(nb->space);
	free(nb->page);
	free(nb->order);
	free(nb->pos);
	free(nb);
}
