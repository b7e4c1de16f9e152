/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the index-linked lists in lib/qlist.h.  The links live at
 * an odd offset inside fixed-stride records, as in a policy's private area,
 * and two lists share one record array through two links.  After every
 * operation the list is walked head to tail and tail to head and compared
 * with the expected order written out by hand; the walk also checks nr, the
 * end pointers and that every prev mirrors the next before it.
 */
#include "config.h"

#include <string.h>

#include "harness.h"
#include "qlist.h"

#define NKEYS	8

/* A record as a policy might lay it out: other state around two links. */
struct rec {
	uint32_t	tag;		/* filler before the links */
	struct hs_qlink	a;		/* link for list A */
	uint8_t		flag;		/* filler between the links */
	struct hs_qlink	b;		/* link for list B */
};

static struct rec recs[NKEYS];

static const struct hs_qctx ctx_a = {
	.base = (char *)recs, .stride = sizeof(struct rec), .off = offsetof(struct rec, a),
};
static const struct hs_qctx ctx_b = {
	.base = (char *)recs, .stride = sizeof(struct rec), .off = offsetof(struct rec, b),
};

static void reset(void)
{
	memset(recs, 0xa5, sizeof(recs));	/* links start as garbage */
}

/*
 * Check that @l holds exactly want[0..n-1] from head to tail, walking both
 * ways; report the caller's line on a mismatch.
 */
static void expect_list(int line, const struct hs_qctx *c, const struct hs_qlist *l,
			const uint32_t *want, size_t n)
{
	uint32_t id, prev;
	size_t i;

	if (l->nr != n)
		t_fail(__FILE__, line, "nr == %llu, expected %zu", (unsigned long long)l->nr, n);
	if (n == 0) {
		if (l->head != HS_NIL || l->tail != HS_NIL || !hs_q_empty(l))
			t_fail(__FILE__, line, "empty list has ends %u/%u", l->head, l->tail);
		return;
	}
	if (hs_q_empty(l))
		t_fail(__FILE__, line, "non-empty list reads as empty");
	/* forward, checking each prev against the key before it */
	prev = HS_NIL;
	for (i = 0, id = l->head; id != HS_NIL && i <= n; i++, id = hs_q_next(c, id)) {
		if (i < n && id != want[i])
			t_fail(__FILE__, line, "forward [%zu] == %u, expected %u", i, id, want[i]);
		if (hs_q_prev(c, id) != prev)
			t_fail(__FILE__, line, "prev of %u == %u, expected %u", id,
			       hs_q_prev(c, id), prev);
		prev = id;
	}
	if (i != n)
		t_fail(__FILE__, line, "forward walk saw %zu keys, expected %zu", i, n);
	if (l->tail != prev)
		t_fail(__FILE__, line, "tail == %u, expected %u", l->tail, prev);
	/* backward */
	for (i = 0, id = l->tail; id != HS_NIL && i <= n; i++, id = hs_q_prev(c, id))
		if (i < n && id != want[n - 1 - i])
			t_fail(__FILE__, line, "backward [%zu] == %u, expected %u", i, id,
			       want[n - 1 - i]);
	if (i != n)
		t_fail(__FILE__, line, "backward walk saw %zu keys, expected %zu", i, n);
}

#define EXPECT(c, l, ...) do { \
	static const uint32_t want_[] = { __VA_ARGS__ }; \
	expect_list(__LINE__, (c), (l), want_, sizeof(want_) / sizeof(want_[0])); \
} while (0)
#define EXPECT_EMPTY(c, l) expect_list(__LINE__, (c), (l), NULL, 0)

static void empty(void)
{
	struct hs_qlist l;

	reset();
	hs_q_init(&l);
	EXPECT_EMPTY(&ctx_a, &l);
	T_EQ_U64(hs_q_pop_head(&ctx_a, &l), HS_NIL);
	EXPECT_EMPTY(&ctx_a, &l);
}

static void push(void)
{
	struct hs_qlist l;

	reset();
	hs_q_init(&l);
	hs_q_push_tail(&ctx_a, &l, 3);
	EXPECT(&ctx_a, &l, 3);
	hs_q_push_tail(&ctx_a, &l, 5);
	EXPECT(&ctx_a, &l, 3, 5);
	hs_q_push_head(&ctx_a, &l, 0);
	EXPECT(&ctx_a, &l, 0, 3, 5);
	hs_q_push_tail(&ctx_a, &l, 7);
	EXPECT(&ctx_a, &l, 0, 3, 5, 7);
	T_EQ_U64(l.head, 0);
	T_EQ_U64(l.tail, 7);
	/* push_head onto an empty list sets both ends */
	hs_q_init(&l);
	hs_q_push_head(&ctx_a, &l, 6);
	EXPECT(&ctx_a, &l, 6);
	hs_q_push_head(&ctx_a, &l, 2);
	EXPECT(&ctx_a, &l, 2, 6);
}

static void pop(void)
{
	struct hs_qlist l;

	reset();
	hs_q_init(&l);
	hs_q_push_tail(&ctx_a, &l, 1);
	hs_q_push_tail(&ctx_a, &l, 2);
	hs_q_push_tail(&ctx_a, &l, 4);
	T_EQ_U64(hs_q_pop_head(&ctx_a, &l), 1);
	EXPECT(&ctx_a, &l, 2, 4);
	T_EQ_U64(hs_q_pop_head(&ctx_a, &l), 2);
	EXPECT(&ctx_a, &l, 4);
	T_EQ_U64(hs_q_pop_head(&ctx_a, &l), 4);
	EXPECT_EMPTY(&ctx_a, &l);
	T_EQ_U64(hs_q_pop_head(&ctx_a, &l), HS_NIL);
	/* a popped key's links are cleared */
	T_EQ_U64(recs[4].a.prev, HS_NIL);
	T_EQ_U64(recs[4].a.next, HS_NIL);
}

static void del(void)
{
	struct hs_qlist l;
	uint32_t id;

	reset();
	hs_q_init(&l);
	for (id = 0; id < 5; id++)
		hs_q_push_tail(&ctx_a, &l, id);
	EXPECT(&ctx_a, &l, 0, 1, 2, 3, 4);
	hs_q_del(&ctx_a, &l, 2);		/* middle */
	EXPECT(&ctx_a, &l, 0, 1, 3, 4);
	hs_q_del(&ctx_a, &l, 0);		/* head */
	EXPECT(&ctx_a, &l, 1, 3, 4);
	hs_q_del(&ctx_a, &l, 4);		/* tail */
	EXPECT(&ctx_a, &l, 1, 3);
	hs_q_del(&ctx_a, &l, 3);
	EXPECT(&ctx_a, &l, 1);
	hs_q_del(&ctx_a, &l, 1);		/* only key */
	EXPECT_EMPTY(&ctx_a, &l);
	/* deleted keys can go back on */
	hs_q_push_tail(&ctx_a, &l, 2);
	hs_q_push_head(&ctx_a, &l, 4);
	EXPECT(&ctx_a, &l, 4, 2);
}

static void move_tail(void)
{
	struct hs_qlist l;
	uint32_t id;

	reset();
	hs_q_init(&l);
	for (id = 0; id < 4; id++)
		hs_q_push_tail(&ctx_a, &l, id);
	hs_q_move_tail(&ctx_a, &l, 0);		/* head to tail */
	EXPECT(&ctx_a, &l, 1, 2, 3, 0);
	hs_q_move_tail(&ctx_a, &l, 2);		/* middle to tail */
	EXPECT(&ctx_a, &l, 1, 3, 0, 2);
	hs_q_move_tail(&ctx_a, &l, 2);		/* already the tail: no change */
	EXPECT(&ctx_a, &l, 1, 3, 0, 2);
	/* a one-key list */
	hs_q_init(&l);
	hs_q_push_tail(&ctx_a, &l, 6);
	hs_q_move_tail(&ctx_a, &l, 6);
	EXPECT(&ctx_a, &l, 6);
}

static void insert_after(void)
{
	struct hs_qlist l;

	reset();
	hs_q_init(&l);
	hs_q_push_tail(&ctx_a, &l, 1);
	hs_q_insert_after(&ctx_a, &l, 1, 5);	/* after the only key: new tail */
	EXPECT(&ctx_a, &l, 1, 5);
	hs_q_insert_after(&ctx_a, &l, 1, 3);	/* between two keys */
	EXPECT(&ctx_a, &l, 1, 3, 5);
	hs_q_insert_after(&ctx_a, &l, 5, 7);	/* after the tail */
	EXPECT(&ctx_a, &l, 1, 3, 5, 7);
	T_EQ_U64(l.tail, 7);
	hs_q_insert_after(&ctx_a, &l, 3, 0);
	EXPECT(&ctx_a, &l, 1, 3, 0, 5, 7);
	hs_q_del(&ctx_a, &l, 0);
	hs_q_del(&ctx_a, &l, 7);
	EXPECT(&ctx_a, &l, 1, 3, 5);
}

static void two_links(void)
{
	struct hs_qlist a, b;
	uint32_t id;

	reset();
	hs_q_init(&a);
	hs_q_init(&b);
	/* every key on A in order, the odd ones on B in reverse */
	for (id = 0; id < NKEYS; id++) {
		hs_q_push_tail(&ctx_a, &a, id);
		if (id % 2)
			hs_q_push_head(&ctx_b, &b, id);
	}
	EXPECT(&ctx_a, &a, 0, 1, 2, 3, 4, 5, 6, 7);
	EXPECT(&ctx_b, &b, 7, 5, 3, 1);
	/* changing one list leaves the other intact */
	hs_q_del(&ctx_a, &a, 3);
	hs_q_move_tail(&ctx_a, &a, 5);
	EXPECT(&ctx_a, &a, 0, 1, 2, 4, 6, 7, 5);
	EXPECT(&ctx_b, &b, 7, 5, 3, 1);
	hs_q_move_tail(&ctx_b, &b, 7);
	T_EQ_U64(hs_q_pop_head(&ctx_b, &b), 5);
	EXPECT(&ctx_b, &b, 3, 1, 7);
	EXPECT(&ctx_a, &a, 0, 1, 2, 4, 6, 7, 5);
	/* the filler around the links was never written */
	for (id = 0; id < NKEYS; id++) {
		T_EQ_U64(recs[id].tag, 0xa5a5a5a5);
		T_EQ_U64(recs[id].flag, 0xa5);
	}
}

/* Many keys: a FIFO rotation keeps order and count. */
static void rotation(void)
{
	struct hs_qlist l;
	uint32_t id;
	int round;

	reset();
	hs_q_init(&l);
	for (id = 0; id < NKEYS; id++)
		hs_q_push_tail(&ctx_a, &l, id);
	/* 3 rounds of 8 pop-and-push; 24 is a multiple of 8, so the order returns */
	for (round = 0; round < 3 * NKEYS; round++) {
		id = hs_q_pop_head(&ctx_a, &l);
		T_EQ_U64(id, (uint32_t)(round % NKEYS));
		hs_q_push_tail(&ctx_a, &l, id);
	}
	EXPECT(&ctx_a, &l, 0, 1, 2, 3, 4, 5, 6, 7);
	/* 3 more: 0, 1, 2 go to the back */
	for (round = 0; round < 3; round++)
		hs_q_push_tail(&ctx_a, &l, hs_q_pop_head(&ctx_a, &l));
	EXPECT(&ctx_a, &l, 3, 4, 5, 6, 7, 0, 1, 2);
}

/*
 * The prefetches read links and write nothing, whatever they hold: the
 * head's HS_NIL prev, the tail's HS_NIL next, a deleted key's two HS_NILs
 * (_any fetches HS_NIL's address beyond the array: no fault, and no
 * sanitizer report since a prefetch is no access).
 */
static void prefetch(void)
{
	struct hs_qlist l;
	uint32_t id;

	reset();
	hs_q_init(&l);
	for (id = 0; id < NKEYS; id++)
		hs_q_push_tail(&ctx_a, &l, id);
	hs_q_del(&ctx_a, &l, 4);
	T_EQ_U64(hs_q_link(&ctx_a, 4)->prev, HS_NIL);
	T_EQ_U64(hs_q_link(&ctx_a, 4)->next, HS_NIL);
	for (id = 0; id < NKEYS; id++) {
		if (id != 4)
			hs_q_prefetch_neighbours(&ctx_a, id);
		hs_q_prefetch_neighbours_any(&ctx_a, id);
	}
	EXPECT(&ctx_a, &l, 0, 1, 2, 3, 5, 6, 7);
	for (id = 0; id < NKEYS; id++) {
		T_EQ_U64(recs[id].tag, 0xa5a5a5a5);
		T_EQ_U64(recs[id].flag, 0xa5);
	}
}

static const struct t_case cases[] = {
	{ "empty", empty },
	{ "push", push },
	{ "pop", pop },
	{ "del", del },
	{ "move_tail", move_tail },
	{ "insert_after", insert_after },
	{ "two_links", two_links },
	{ "rotation", rotation },
	{ "prefetch", prefetch },
};

int main(int argc, char **argv)
{
	return t_main(cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
