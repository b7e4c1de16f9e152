/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pfn interval map (see pfnmap.h): disjoint [head, head + pages) ranges
 * in a treap keyed by head.
 */

/*
 * Design
 * ======
 *
 * Page-cache folios are keyed by their head pfn in the pagemap and vmscan
 * events (mm_lru_insertion, mm_lru_activate, mm_vmscan_write_folio), but a
 * large folio of order k covers 2^k frames, and after a silent split a tail
 * frame turns up as a head of its own.  So the question the lifecycle
 * builder asks is "which live folio contains this pfn?", a stabbing query
 * over disjoint intervals.  With the intervals ordered by head, the answer
 * is the interval with the greatest head <= pfn, if it reaches that far:
 *
 *	heads:   100      104         200            712
 *	ranges:  [100,104)[104,105)   [200,712)      [712,713)
 *	pfn 300: greatest head <= 300 is 200, and 300 < 200 + 512: found
 *	pfn 150: greatest head <= 150 is 104, and 150 >= 104 + 1: none
 *
 * Folios are naturally aligned in the buddy allocator, so probing the ten
 * aligned candidate heads in a hash would also work; the ordered tree needs
 * no such assumption and also answers "which ranges overlap [lo, hi)?",
 * which the builder needs when an add reuses frames of a folio whose delete
 * it never saw (migration moves page-cache folios silently).
 *
 * The tree is a treap (Seidel and Aragon, "Randomized search trees",
 * Algorithmica 16, 1996): a binary search tree on head that is also a heap
 * on a random priority, so its shape is that of a random insertion order
 * and its expected depth is O(log n) whatever order the heads come in
 * (pfns arrive in allocator order, which is far from random).  Insertion
 * splits the tree at the new head and merges the three parts; removal
 * merges the removed node's two subtrees.  Nodes live in one growing array
 * and link by index (0 is the null link), freed nodes on a free list
 * threaded through their left links: no allocation per operation once the
 * array has grown, and half the pointer size.  Priorities come from a
 * xorshift generator with a fixed seed, so runs are reproducible.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "pfnmap.h"

#define NIL		0u	/* the null link; node 0 is never used */
#define MIN_NODES	64	/* first array size */

struct pm_node {
	uint64_t	head;		/* first pfn (search key) */
	uint64_t	pages;		/* range length, >= 1 */
	uint64_t	val;		/* caller's value */
	uint32_t	left;		/* subtree of smaller heads, or the free-list link */
	uint32_t	right;		/* subtree of larger heads */
	uint32_t	prio;		/* heap order: a parent's prio >= its children's */
	uint32_t	pad;		/* keeps nodes 40 bytes */
};

struct hs_pfnmap {
	struct pm_node	*node;		/* node[1 .. used - 1] are allocated or free */
	uint32_t	cap;		/* entries allocated in node */
	uint32_t	used;		/* entries handed out so far (node 0 included) */
	uint32_t	free;		/* head of the free list (through left), or NIL */
	uint32_t	root;		/* tree root, or NIL */
	size_t		count;		/* ranges in the tree */
	uint64_t	rng;		/* xorshift64 state, never 0 */
};

/**
 * hs_pfnmap_new() - an empty map
 * @out: the map
 *
 * Return: 0 or -ENOMEM.
 */
int hs_pfnmap_new(struct hs_pfnmap **out)
{
	struct hs_pfnmap *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->node = calloc(MIN_NODES, sizeof(*m->node));
	if (!m->node) {
		free(m);
		return -ENOMEM;
	}
	m->cap = MIN_NODES;
	m->used = 1;
	m->rng = 0x9e3779b97f4a7c15ull;
	*out = m;
	return 0;
}

/**
 * hs_pfnmap_free() - free a map
 * @m: the map, or NULL
 *
 * Return: nothing.
 */
void hs_pfnmap_free(struct hs_pfnmap *m)
{
	if (!m)
		return;
	free(m->node);
	free(m);
}

static uint32_t next_prio(struct hs_pfnmap *m)
{
	uint64_t x = m->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	m->rng = x;
	return (uint32_t)(x >> 32);
}

static int node_alloc(struct hs_pfnmap *m, uint32_t *out)
{
	struct pm_node *nn;
	uint32_t i;

	if (m->free != NIL) {
		i = m->free;
		m->free = m->node[i].left;
		*out = i;
		return 0;
	}
	if (m->used == m->cap) {
		uint32_t ncap;

		if (m->cap > UINT32_MAX / 2)
			return -ENOMEM;
		ncap = m->cap * 2;
		nn = realloc(m->node, (size_t)ncap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		m->node = nn;
		m->cap = ncap;
	}
	*out = m->used++;
	return 0;
}

/* Split subtree @t into heads < @key (*l) and heads >= @key (*r). */
static void split(struct hs_pfnmap *m, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (t == NIL) {
		*l = NIL;
		*r = NIL;
		return;
	}
	if (m->node[t].head < key) {
		split(m, m->node[t].right, key, &m->node[t].right, r);
		*l = t;
	} else {
		split(m, m->node[t].left, key, l, &m->node[t].left);
		*r = t;
	}
}

/* Merge subtrees @a and @b, every head of @a below every head of @b. */
static uint32_t merge(struct hs_pfnmap *m, uint32_t a, uint32_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (m->node[a].prio >= m->node[b].prio) {
		m->node[a].right = merge(m, m->node[a].right, b);
		return a;
	}
	m->node[b].left = merge(m, a, m->node[b].left);
	return b;
}

/* The node with the greatest head <= @key, or NIL. */
static uint32_t find_le(const struct hs_pfnmap *m, uint64_t key)
{
	uint32_t t = m->root;
	uint32_t best = NIL;

	while (t != NIL) {
		if (m->node[t].head <= key) {
			best = t;
			t = m->node[t].right;
		} else {
			t = m->node[t].left;
		}
	}
	return best;
}

/* The node with the smallest head > @key, or NIL. */
static uint32_t find_gt(const struct hs_pfnmap *m, uint64_t key)
{
	uint32_t t = m->root;
	uint32_t best = NIL;

	while (t != NIL) {
		if (m->node[t].head > key) {
			best = t;
			t = m->node[t].left;
		} else {
			t = m->node[t].right;
		}
	}
	return best;
}

static void fill(const struct hs_pfnmap *m, uint32_t t, struct hs_pfnmap_ent *out)
{
	if (!out)
		return;
	out->head = m->node[t].head;
	out->pages = m->node[t].pages;
	out->val = m->node[t].val;
}

/**
 * hs_pfnmap_overlap() - the lowest range that overlaps [@lo, @lo + @pages)
 * @m: the map
 * @lo: first pfn of the query
 * @pages: its length; 0 matches nothing; a query past UINT64_MAX is cut there
 * @out: receives the range; may be NULL
 *
 * Return: true if one does.
 */
bool hs_pfnmap_overlap(const struct hs_pfnmap *m, uint64_t lo, uint64_t pages,
		       struct hs_pfnmap_ent *out)
{
	uint64_t last;
	uint32_t t;

	if (!pages)
		return false;
	last = pages - 1 > UINT64_MAX - lo ? UINT64_MAX : lo + (pages - 1);
	/* A range starting at or before lo overlaps if it reaches lo ... */
	t = find_le(m, lo);
	if (t != NIL && lo - m->node[t].head < m->node[t].pages) {
		fill(m, t, out);
		return true;
	}
	/* ... else the first range starting after lo, if it starts by last. */
	t = find_gt(m, lo);
	if (t != NIL && m->node[t].head <= last) {
		fill(m, t, out);
		return true;
	}
	return false;
}

/**
 * hs_pfnmap_insert() - add the range [@head, @head + @pages) with @val
 * @m: the map
 * @head: first pfn
 * @pages: length (>= 1)
 * @val: value stored with the range
 *
 * Ranges never overlap: remove the ones hs_pfnmap_overlap() reports first.
 *
 * Return: 0; -EINVAL when @pages is 0 or the range wraps past UINT64_MAX;
 * -EEXIST when it overlaps a range already in the map; -ENOMEM.  On error the
 * map is unchanged.
 */
int hs_pfnmap_insert(struct hs_pfnmap *m, uint64_t head, uint64_t pages, uint64_t val)
{
	uint32_t l, r, t;
	int err;

	if (!pages || pages - 1 > UINT64_MAX - head)
		return -EINVAL;
	if (hs_pfnmap_overlap(m, head, pages, NULL))
		return -EEXIST;
	err = node_alloc(m, &t);
	if (err)
		return err;
	m->node[t] = (struct pm_node){ .head = head, .pages = pages, .val = val,
				       .left = NIL, .right = NIL, .prio = next_prio(m) };
	split(m, m->root, head, &l, &r);
	m->root = merge(m, merge(m, l, t), r);
	m->count++;
	return 0;
}

/**
 * hs_pfnmap_find() - the range that contains @pfn
 * @m: the map
 * @pfn: any page frame number
 * @out: receives the range; may be NULL
 *
 * Return: true if one does.
 */
bool hs_pfnmap_find(const struct hs_pfnmap *m, uint64_t pfn, struct hs_pfnmap_ent *out)
{
	uint32_t t = find_le(m, pfn);

	if (t == NIL || pfn - m->node[t].head >= m->node[t].pages)
		return false;
	fill(m, t, out);
	return true;
}

/**
 * hs_pfnmap_remove() - remove the range whose first pfn is @head
 * @m: the map
 * @head: the range's head, exactly
 *
 * Return: 0, or -ENOENT when no range starts at @head.
 */
int hs_pfnmap_remove(struct hs_pfnmap *m, uint64_t head)
{
	uint32_t *link = &m->root;
	uint32_t t;

	while (*link != NIL && m->node[*link].head != head)
		link = head < m->node[*link].head ? &m->node[*link].left : &m->node[*link].right;
	t = *link;
	if (t == NIL)
		return -ENOENT;
	*link = merge(m, m->node[t].left, m->node[t].right);
	m->node[t].left = m->free;
	m->node[t].right = NIL;
	m->free = t;
	m->count--;
	return 0;
}

/**
 * hs_pfnmap_count() - ranges in the map
 * @m: the map
 *
 * Return: their number.
 */
size_t hs_pfnmap_count(const struct hs_pfnmap *m)
{
	return m->count;
}

struct walk {
	size_t		seen;		/* nodes visited */
	bool		any;		/* a range was visited before */
	uint64_t	prev_last;	/* last pfn of the previous range in order */
	bool		bad;		/* an invariant failed */
};

static void check_walk(const struct hs_pfnmap *m, uint32_t t, uint32_t depth, struct walk *w)
{
	const struct pm_node *n;

	if (t == NIL || w->bad)
		return;
	if (t >= m->used || depth > m->used) {
		w->bad = true;
		return;
	}
	n = &m->node[t];
	if ((n->left != NIL && m->node[n->left].prio > n->prio) ||
	    (n->right != NIL && m->node[n->right].prio > n->prio) ||
	    !n->pages || n->pages - 1 > UINT64_MAX - n->head) {
		w->bad = true;
		return;
	}
	check_walk(m, n->left, depth + 1, w);
	if (w->any && n->head <= w->prev_last)
		w->bad = true;
	w->any = true;
	w->prev_last = n->head + (n->pages - 1);
	w->seen++;
	check_walk(m, n->right, depth + 1, w);
}

/**
 * hs_pfnmap_check() - verify the tree (tests)
 * @m: the map
 *
 * Checks the search order, the heap order of priorities, that ranges are
 * disjoint, and the count.
 *
 * Return: 0, or -EFAULT when an invariant is broken.
 */
int hs_pfnmap_check(const struct hs_pfnmap *m)
{
	struct walk w = { 0 };

	check_walk(m, m->root, 0, &w);
	if (w.bad || w.seen != m->count)
		return -EFAULT;
	return 0;
}
