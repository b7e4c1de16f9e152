/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 2Q: the full version of Johnson and Shasha's two-queue policy.  Keys seen
 * once wait in a small FIFO (A1in); keys that come back after leaving it,
 * remembered by a ghost FIFO of ids (A1out), earn a place in an LRU (Am).
 */

/*
 * Design
 * ======
 *
 * Reference: T. Johnson, D. Shasha, "2Q: A Low Overhead High Performance
 * Buffer Management Replacement Algorithm", VLDB 1994, the "full version"
 * (POLICIES.md §4.6).  Three queues, all threaded through the driver's
 * private area with lib/qlist.h (head = oldest):
 *
 *	  resident                                     non-resident (ids only)
 *	  A1in (FIFO, target Kin)                      A1out (FIFO, at most Kout)
 *	  head +---+---+---+ tail      evicted from    head +---+---+---+---+ tail
 *	  <--  | a | b | c | <-- new   A1in's head     <--  | p | q | r | s | <--
 *	  |    +---+---+---+  keys  ------------------>  |  +---+---+---+---+
 *	  |     hits: nothing                            | dropped past Kout
 *	  |                                              |
 *	  |    Am (LRU)                                  | a miss on a key in
 *	  |    head +---+---+---+---+ tail               | A1out enters Am's tail
 *	  |    <--  | w | x | y | z | <-------------------+
 *	  |         +---+---+---+---+   hits move to the tail
 *	  v         evicted (forgotten) from the head
 *
 * The rules (the paper's pseudo-code, in this file's words):
 *
 *   hit in Am           move the key to Am's tail (most recent).
 *   hit in A1in         nothing: a second access soon after the first is a
 *                       correlated reference, not evidence of reuse.
 *   miss, key in A1out  make room, then put the key at Am's tail.
 *   miss, otherwise     make room, then put the key at A1in's tail.
 *   make room           if |A1in| > Kin, evict A1in's head and push its id at
 *                       A1out's tail, dropping A1out's head while |A1out| >
 *                       Kout; otherwise evict Am's head and forget it.
 *
 * Sizes.  Kin = kin * c and Kout = kout * c for the capacity c, each rounded
 * to the nearest integer with halves rounded up (floor(x * c + 0.5)); Kin is
 * at least 1.  The paper recommends kin = 0.25 and kout = 0.5, the defaults.
 * Kout = 0 (kout small enough) disables A1out: 2Q then never promotes.
 *
 * Two corner cases the paper leaves open, and what this file does:
 *
 *  - |A1in| <= Kin but Am is empty (possible only when Kin >= c): the room is
 *    made from A1in as if it were over target.  Without this, nothing could
 *    be evicted.
 *  - The A1out hit consumes the ghost before room is made: evict() sees the
 *    incoming key in A1out, unlinks it and marks it "promote" (TQ_PROMOTE),
 *    and insert() then puts it in Am.  So the eviction that the miss causes
 *    cannot push the incoming key's own ghost out of A1out first, and A1out
 *    never counts a key that is already back in memory.  When no room is
 *    needed, insert() takes the key out of A1out itself.
 *
 * Hooks (lib/policy.h): hit(), insert() and evict() as above; evict()
 * returns exactly @need victims (fewer only when fewer are resident) and
 * reports no protections (2Q spares nothing it had chosen).  remove() for a
 * PAGEOUT hint treats the key as evicted (from A1in its id goes to A1out);
 * for a drop it forgets the key, resident or ghost.
 *
 * Hints (POLICIES.md section 2b).  COLD moves a resident key to the eviction
 * end of the queue that holds it: Am's LRU end (head) or A1in's oldest place
 * (head).  It is not evicted on the spot, and which queue the next eviction
 * draws from is still 2Q's rule (A1in while it is over Kin, else Am): a COLD
 * key in Am waits while A1in is over target, a COLD key in A1in goes before
 * any other A1in key and, as an A1in victim, leaves its id on A1out like the
 * others.  The latest COLD key of a queue is at its head.  PAGEOUT answers
 * "evict" and leaves the choice to the driver's pageout mode (lib/sim.h).
 *
 * Every operation is O(1).
 * Per key: one struct hs_qlink and a byte saying which queue holds it, for
 * ghosts too: A1out costs no memory beyond the driver's per-key array.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "policy-util.h"

enum tq_where {
	TQ_NONE = 0,		/* on no queue (never seen, or forgotten) */
	TQ_A1IN,		/* resident, on A1in */
	TQ_AM,			/* resident, on Am */
	TQ_A1OUT,		/* not resident, id on A1out */
	TQ_PROMOTE,		/* not resident, taken off A1out by evict(): insert() puts
				 * it on Am (exists only between evict() and insert()) */
};

struct tq_priv {
	struct hs_qlink	link;		/* place on the queue named by where */
	uint32_t	where;		/* enum tq_where */
};

struct hs_policy {
	struct hs_qctx		q;	/* where the links live (the driver's key array) */
	struct hs_qlist		a1in;	/* resident, seen once: FIFO, head = oldest */
	struct hs_qlist		am;	/* resident, seen again: LRU, head = least recent */
	struct hs_qlist		a1out;	/* ghost ids evicted from A1in: FIFO, head = oldest */
	uint64_t		kin;	/* Kin: A1in's size target, >= 1 */
	uint64_t		kout;	/* Kout: most ids A1out holds (0: no A1out) */
	uint64_t		promotions; /* misses found in A1out (entered Am) */
	uint32_t		promote; /* the key marked TQ_PROMOTE, or HS_NIL */
	const struct hs_policy_env *env; /* the run's description, valid until destroy() */
};

static const struct hs_param tq_params[] = {
	{ .name = "kin", .type = HS_PARAM_DOUBLE, .def = "0.25", .min = 0, .max = 1,
	  .help = "A1in size target as a fraction of capacity (Kin = round(kin*c), >= 1)" },
	{ .name = "kout", .type = HS_PARAM_DOUBLE, .def = "0.5", .min = 0, .max = 100,
	  .help = "A1out ghost ids as a fraction of capacity (Kout = round(kout*c))" },
	{ .name = NULL },
};

static struct tq_priv *tq_priv(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static const struct tq_priv *tq_cpriv(const struct hs_folio *f)
{
	return hs_folio_cpriv(f);
}

/* floor(frac * c + 0.5), saturating. */
static uint64_t tq_round(double frac, uint64_t c)
{
	double v = floor(frac * (double)c + 0.5);

	if (v >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)v;
}

static int tq_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		     struct hs_policy **out)
{
	struct hs_param_set *defaults = NULL;
	struct hs_policy *p;
	int err;

	if (!ps) {
		err = hs_param_set_new(tq_params, &defaults);
		if (err)
			return err;
		ps = defaults;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		hs_param_set_free(defaults);
		return -ENOMEM;
	}
	p->env = env;
	hs_q_ctx_init(&p->q, env, offsetof(struct tq_priv, link));
	hs_q_init(&p->a1in);
	hs_q_init(&p->am);
	hs_q_init(&p->a1out);
	p->promote = HS_NIL;
	p->kin = HS_MAX(tq_round(hs_param_double(ps, "kin"), env->capacity), 1);
	p->kout = tq_round(hs_param_double(ps, "kout"), env->capacity);
	hs_param_set_free(defaults);
	*out = p;
	return 0;
}

static void tq_destroy(struct hs_policy *p)
{
	free(p);
}

static void tq_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)a;
	if (tq_priv(f)->where == TQ_AM)
		hs_q_move_tail(&p->q, &p->am, a->key);
}

/*
 * A hit in Am and a miss found in A1out unlink the key, writing its
 * neighbours' links: fetch them.  The heads (evictions, A1out trims) are
 * popped through hs_q_pop_head(), which fetches one pop ahead.
 */
static void tq_prefetch(struct hs_policy *p, const struct hs_folio *f, uint32_t key)
{
	uint32_t where = tq_cpriv(f)->where;

	if (where == TQ_AM || where == TQ_A1OUT)
		hs_q_prefetch_neighbours(&p->q, key);
}

static void tq_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	struct tq_priv *tp = tq_priv(f);

	(void)a;
	if (tp->where == TQ_A1OUT) {
		hs_q_del(&p->q, &p->a1out, a->key);
		tp->where = TQ_PROMOTE;
	}
	if (tp->where == TQ_PROMOTE) {
		p->promote = HS_NIL;
		p->promotions++;
		hs_q_push_tail(&p->q, &p->am, a->key);
		tp->where = TQ_AM;
	} else {
		hs_q_push_tail(&p->q, &p->a1in, a->key);
		tp->where = TQ_A1IN;
	}
}

/* Remember id (just evicted from A1in) on A1out, trimming A1out to Kout. */
static void tq_ghost(struct hs_policy *p, uint32_t id)
{
	uint32_t old;

	if (!p->kout) {
		tq_priv(hs_env_folio(p->env, id))->where = TQ_NONE;
		return;
	}
	hs_q_push_tail(&p->q, &p->a1out, id);
	tq_priv(hs_env_folio(p->env, id))->where = TQ_A1OUT;
	while (p->a1out.nr > p->kout) {
		old = hs_q_pop_head(&p->q, &p->a1out);
		tq_priv(hs_env_folio(p->env, old))->where = TQ_NONE;
	}
}

static size_t tq_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
		       size_t need, struct hs_folio **victims, size_t max)
{
	struct tq_priv *tp;
	size_t n = 0;
	uint32_t id;

	(void)a;
	if (incoming && !hs_folio_is_resident(incoming)) {
		tp = tq_priv(incoming);
		if (tp->where == TQ_A1OUT) {
			hs_q_del(&p->q, &p->a1out, a->key);
			tp->where = TQ_PROMOTE;
			p->promote = a->key;
		}
	}
	while (n < need && n < max) {
		if (p->a1in.nr > p->kin || (hs_q_empty(&p->am) && !hs_q_empty(&p->a1in))) {
			id = hs_q_pop_head(&p->q, &p->a1in);
			tq_ghost(p, id);
		} else {
			id = hs_q_pop_head(&p->q, &p->am);
			if (id == HS_NIL)
				break;
			tq_priv(hs_env_folio(p->env, id))->where = TQ_NONE;
		}
		victims[n++] = hs_env_folio(p->env, id);
	}
	return n;
}

static void tq_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	uint32_t id = hs_folio_id(p->env, f);
	struct tq_priv *tp = tq_priv(f);

	switch (tp->where) {
	case TQ_A1IN:
		hs_q_del(&p->q, &p->a1in, id);
		if (why == HS_REMOVE_HINT)
			tq_ghost(p, id);
		else
			tp->where = TQ_NONE;
		break;
	case TQ_AM:
		hs_q_del(&p->q, &p->am, id);
		tp->where = TQ_NONE;
		break;
	case TQ_A1OUT:
		hs_q_del(&p->q, &p->a1out, id);
		tp->where = TQ_NONE;
		break;
	default:
		tp->where = TQ_NONE;
		break;
	}
}

static enum hs_hint_verdict tq_hint(struct hs_policy *p, struct hs_folio *f,
				    const struct hs_access *a)
{
	struct hs_qlist *l = tq_priv(f)->where == TQ_AM ? &p->am : &p->a1in;

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	if (l->head != a->key) {
		hs_q_del(&p->q, l, a->key);
		hs_q_push_head(&p->q, l, a->key);
	}
	return HS_HINT_KEEP;
}

/* Walk one queue: links consistent, every key says it is there. 0 or -EUCLEAN. */
static int tq_check_list(const struct hs_policy *p, const struct hs_qlist *l,
			 enum tq_where where, bool resident)
{
	uint32_t id;

	if (hs_q_check(&p->q, l, p->env, resident))
		return -EUCLEAN;
	for (id = l->head; id != HS_NIL; id = hs_q_next(&p->q, id))
		if (tq_cpriv(hs_env_folio(p->env, id))->where != where)
			return -EUCLEAN;
	return 0;
}

static int tq_check(const struct hs_policy *p)
{
	const struct hs_policy_env *env = p->env;
	uint64_t count[TQ_PROMOTE + 1] = { 0 };
	const struct hs_folio *f;
	uint64_t resident = 0;
	uint32_t where;
	uint32_t i;

	if (tq_check_list(p, &p->a1in, TQ_A1IN, true) ||
	    tq_check_list(p, &p->am, TQ_AM, true) ||
	    tq_check_list(p, &p->a1out, TQ_A1OUT, false))
		return -EUCLEAN;
	if (p->a1out.nr > p->kout || p->kin < 1)
		return -EUCLEAN;
	for (i = 0; i < env->nr_keys; i++) {
		f = hs_env_folio(env, i);
		where = tq_cpriv(f)->where;
		if (where > TQ_PROMOTE)
			return -EUCLEAN;
		count[where]++;
		if (hs_folio_is_resident(f))
			resident++;
		if (where == TQ_PROMOTE && (i != p->promote || hs_folio_is_resident(f)))
			return -EUCLEAN;
	}
	/* TQ_PROMOTE marks at most the incoming key, between evict() and insert(). */
	if (count[TQ_PROMOTE] != (p->promote != HS_NIL))
		return -EUCLEAN;
	if (count[TQ_A1IN] != p->a1in.nr || count[TQ_AM] != p->am.nr ||
	    count[TQ_A1OUT] != p->a1out.nr)
		return -EUCLEAN;
	return resident == p->a1in.nr + p->am.nr ? 0 : -EUCLEAN;
}

static void tq_dump_list(const struct hs_policy *p, FILE *fp, const char *name,
			 const struct hs_qlist *l)
{
	uint32_t id;

	fprintf(fp, " %s[%" PRIu64 "]:", name, l->nr);
	for (id = l->head; id != HS_NIL; id = hs_q_next(&p->q, id))
		fprintf(fp, " %" PRIu32, id);
	fputc('\n', fp);
}

static void tq_dump(const struct hs_policy *p, FILE *fp)
{
	fprintf(fp, "two-q: Kin %" PRIu64 " Kout %" PRIu64 ", oldest first\n", p->kin, p->kout);
	tq_dump_list(p, fp, "A1in", &p->a1in);
	tq_dump_list(p, fp, "Am", &p->am);
	tq_dump_list(p, fp, "A1out", &p->a1out);
}

static void tq_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "two-q.kin", (double)p->kin);
	hs_metrics_add(m, "two-q.kout", (double)p->kout);
	hs_metrics_add(m, "two-q.promotions", (double)p->promotions);
}

const struct hs_policy_ops hs_policy_two_q = {
	.abi		= HS_POLICY_ABI,
	.name		= "two-q",
	.summary	= "full 2Q: A1in FIFO, A1out ghosts, Am LRU (VLDB'94)",
	.params		= tq_params,
	.folio_priv	= sizeof(struct tq_priv),
	.flags		= 0,
	.create		= tq_create,
	.destroy	= tq_destroy,
	.hit		= tq_hit,
	.insert		= tq_insert,
	.evict		= tq_evict,
	.remove		= tq_remove,
	.hint		= tq_hint,
	.check		= tq_check,
	.dump		= tq_dump,
	.report		= tq_report,
	.prefetch	= tq_prefetch,
};
