/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CLOCK-Pro: LIRS's reuse-distance test done with clock hands, as the
 * authors' own simulator (clock-pro.c, Song Jiang, 2005) runs it.  Hot pages,
 * resident cold pages and the non-resident cold pages still in their test
 * period share one circular list swept by three hands.
 */

/*
 * Design
 * ======
 *
 * Reference: S. Jiang, F. Chen and X. Zhang, "CLOCK-Pro: An Effective
 * Improvement of the CLOCK Replacement", USENIX ATC 2005; POLICIES.md
 * section 4.4.  Where the paper leaves room, or where the authors' simulator
 * departs from it, this file does what that simulator does, so that the
 * defaults reproduce it reference for reference; the departures are listed
 * below and two of them are parameters.  No line of that program is copied.
 *
 * The idea is LIRS's: a page whose reuse distance is shorter than that of
 * the least recently used "hot" page deserves a hot slot more than that page
 * does.  CLOCK-Pro keeps every resident page and up to m recently evicted
 * ones in a single clock ordered by the time they entered or were last moved.
 * Memory m = m_h + m_c: at most m_h hot pages, which are never evicted, and
 * the rest ("cold" pages, m_c of them in steady state) from which victims are
 * taken.  A cold page gets a "test period" when it enters; if it is
 * referenced again before the test period ends, its reuse distance beat the
 * oldest hot page and it is promoted.  A cold page evicted during its test
 * period stays on the clock as a non-resident page, so a quick refault is
 * recognised, until its test period ends.
 *
 *                            HAND_hot
 *                              |   HAND_test
 *                              v   v
 *        clock.head --> [ a:H  b:c  c:n  d:H*  e:C  f:H  g:c* ] <-- clock.tail
 *           (oldest)       ^                     ^                  (newest)
 *                          |                     HAND_cold
 *          the hands move this way ------------------------>  and wrap from
 *          the tail to the head; pages enter (and hot pages passed by
 *          HAND_hot, and promoted pages, go) at the tail.
 *
 *          H hot   C cold resident, test over   c cold resident in test
 *          n cold non-resident (always in test)   * reference bit set
 *
 * The circle is a qlist: its head is the oldest position and its tail the
 * insertion point (the simulator's "clock head"); "clockwise" is head to tail
 * and then back to the head.  The three hands are key ids on it.
 *
 *   HAND_cold  finds a victim among the resident cold pages (below).
 *   HAND_hot   runs when a cold page is promoted: it passes hot pages,
 *              clearing a set reference bit (the page moves to the tail,
 *              keeping its place on the circle when the hand sits at the
 *              oldest end) or demoting the first one whose bit is clear to a
 *              resident cold page without a test period (it moves to the
 *              tail too); it passes cold pages untouched and stops on the
 *              next hot page after its one demotion.
 *   HAND_test  ends test periods: whenever HAND_hot passes it, it takes one
 *              step, ending the test period of a cold page under it
 *              (clearing its bit) and taking a non-resident one off the
 *              clock.  It also keeps non-resident pages at most m: when
 *              there are more, it moves on, ending the test periods of the
 *              resident cold pages it passes, to the next non-resident page
 *              and removes it.
 *
 * Reference to page x:
 *
 *   hit        set x's reference bit, nothing else (the CLOCK property).
 *              An immediate repeat (x was the previous reference) is not
 *              even that: it is skipped, as the simulator does (parameter
 *              skip_repeats).
 *   miss       the driver first asks for a victim (evict(), HAND_cold), then
 *              insert() places x:
 *              - warm-up: while more than m_c frames are free, x enters hot,
 *                so the first m - m_c misses of a cold run fill the hot set;
 *              - x is a non-resident page still in its test period (HAND_cold
 *                did not end it while finding the victim): its reuse
 *                distance beat the oldest hot page, so HAND_hot runs to
 *                demote one; x leaves its old place and enters hot, unless
 *                HAND_hot passed x before demoting anything (x's test period
 *                then ended under it), in which case x enters cold;
 *              - otherwise x enters at the tail as a resident cold page in a
 *                new test period.
 *
 * HAND_cold looks at the resident cold page under it:
 *
 *   bit clear, or the page's test period is over (see requeue_untested)
 *              the victim.  It stays on the clock as a non-resident page if
 *              it is in its test period and is forgotten otherwise; the hand
 *              moves to the next resident cold page, and HAND_test trims the
 *              non-resident pages to m.
 *   bit set, in test
 *              promotion: HAND_hot runs to demote a hot page; the page goes
 *              to the tail as hot (bit cleared), unless HAND_hot passed it
 *              before demoting anything: its test period then ended and its
 *              bit was cleared, so it is the victim after all.
 *   bit set, test over (requeue_untested only)
 *              the page's bit is cleared and it goes to the tail, still cold,
 *              with a new test period.
 *
 * What the simulator does, and this file too:
 *   - m_c is fixed: floor(cold_percent / 100 * m), at least cold_min and at
 *     most m (MIN/MAX_COLD_ALLOC_RATE 5.0, LOWEST_COLD_ALLOC 2); the paper's
 *     adaptive m_c is the parameter "adaptive" (below).
 *   - At most m non-resident pages (MAX_NONE_RES_PAGE = mem_size).
 *   - Immediate repeats are skipped (the driver still counts them as hits).
 *   - The first m - m_c misses fill the hot set.
 *   - HAND_hot runs exactly once per promotion and a promotion needs its
 *     demotion, so after warm-up there are always m - m_c hot pages.
 *   - HAND_cold evicts a resident cold page whose test period is over even
 *     when its bit is set (a page referenced only after its test period, the
 *     test period having cleared the bit when it ended).  The paper instead
 *     clears the bit and moves the page to the list head; with
 *     requeue_untested the page also gets a new test period, as Caffeine's
 *     ClockPro does.  hsctl keeps the simulator's behaviour by default, so
 *     that the defaults reproduce the published program (checked reference
 *     for reference: the same hit counts on the 13 LIRS traces at sizes 5 to
 *     3000).  The difference is small: at the POLICIES.md section 5.1 points
 *     at most 0.1 point of hit ratio (sprite at 500: 76.82% vs 76.92%).
 *
 * adaptive (off by default, as in the simulator): the paper's adaptive m_c.
 * The target starts at the fixed value and moves between max(1, cold_min)
 * (capped at m) and m minus that: +1 when a cold page is found referenced
 * in its test period (a refault of a non-resident page in test, HAND_cold
 * finding a set bit, or a test period ending with the bit set), -1 when a
 * test period ends without a reference.  A promotion demotes hot pages
 * until fewer than m - target are hot (none when there are fewer already),
 * and the warm-up threshold is the current target.
 *
 * Small memories, where the simulator refuses to run (m < 5): with
 * m_c = m there is no hot set and nothing can be promoted; a referenced
 * cold page under HAND_cold then gets a new test period, and a refault of
 * a non-resident page in test enters cold.  The algorithm then is CLOCK
 * with a memory of evicted pages.
 *
 * Hooks beyond the paper: a drop forgets the page wherever it is.  A PAGEOUT
 * hint evicts as HAND_cold would: a resident cold page in its test period
 * stays as a non-resident page; a hot page or a cold page whose test is over
 * is forgotten (a hint says the page is cold, so it is demoted and evicted).
 * A hand on a page that leaves the clock moves one step clockwise.  A COLD
 * hint (POLICIES.md section 2b) puts the page under HAND_cold with its
 * reference bit clear, CLOCK-Pro's eviction end: a hot page is first demoted
 * as HAND_hot demotes (resident cold, no test period; it counts in
 * clockpro.demotions and leaves a hot slot free, so the next promotion needs
 * no demotion), a cold page keeps its test period.  The page is unlinked
 * and put on the circle just before HAND_cold's page, and the hand on it:
 * HAND_cold's next victim, unless a reference sets the bit first (a cold page
 * in test is then promoted when the hand reaches it).  Nothing is evicted on
 * the spot.  As for LIRS, a reference right after the hint is not skipped as
 * an immediate repeat.  PAGEOUT answers "evict" and leaves the choice to the
 * driver's pageout mode (lib/sim.h).
 *
 * Protection (hs_sim_protect(), HS_PROT_SECOND_CHANCE): HAND_cold sparing a
 * referenced cold page (a promotion or a new test period), and HAND_hot
 * clearing a hot page's bit instead of demoting it.
 *
 * Cost: a hit is O(1).  The hands only move forward and every step either
 * consumes a reference bit set by a hit, ends a test period, removes a
 * non-resident page, demotes or promotes a page (one per miss), or passes a
 * page the hand will not see again until it has gone round the circle, which
 * it cannot do without handling every resident cold page (at least m_c) or
 * every hot page (m - m_c) on the way.  So a miss is amortised
 * O(1 + m / m_c + m / (m - m_c)): O(1) for a fixed share such as the default
 * 5%, large when cold_min or cold_percent makes one set tiny.  Per key: one
 * struct hs_qlink and a flags byte.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hs.h"
#include "policy.h"
#include "qlist.h"

/* struct cp_key flags */
#define K_CLOCK	0x01u	/* on the clock; no other flag is set without it */
#define K_RES	0x02u	/* resident (hot, or cold resident) */
#define K_HOT	0x04u	/* a hot page: resident, never in test */
#define K_TEST	0x08u	/* a cold page in its test period */
#define K_REF	0x10u	/* reference bit; never set on a non-resident page */

/* run_hot() results */
#define RH_DEMOTED	0x1u	/* a hot page was demoted: a promotion may go ahead */
#define RH_MATCHED	0x2u	/* the hand passed the cold page that asked for the run */

/* The per-key private area. */
struct cp_key {
	struct hs_qlink	link;		/* place on the clock; valid only with K_CLOCK */
	uint8_t		flags;		/* K_*; 0: not on the clock (unknown or forgotten) */
};

struct hs_policy {
	const struct hs_policy_env *env;	/* the driver's record array */
	struct hs_qctx	q;		/* where the clock links live */
	struct hs_qlist	clock;		/* head: oldest position; tail: where pages enter */
	uint32_t	hand_hot;	/* key under HAND_hot; HS_NIL only when the clock is empty */
	uint32_t	hand_cold;	/* key under HAND_cold; HS_NIL only when empty; may rest
					 * on a page that is not resident cold (after a drop or
					 * a hint), and then moves on before it is used */
	uint32_t	hand_test;	/* key under HAND_test; HS_NIL only when empty */
	uint64_t	m;		/* memory in pages (capacity) */
	uint64_t	cold_target;	/* m_c: fixed, or the adaptive target */
	uint64_t	cold_lo;	/* least m_c (adaptive bound; = m_c when fixed) */
	uint64_t	cold_hi;	/* most m_c (adaptive bound; = m_c when fixed) */
	uint64_t	nr_hot;		/* hot pages, <= m - cold_lo */
	uint64_t	nr_cold;	/* resident cold pages */
	uint64_t	nr_nonres;	/* non-resident cold pages in test, <= m */
	uint64_t	promotions;	/* cold pages made hot */
	uint64_t	demotions;	/* hot pages made cold */
	uint64_t	repeats;	/* immediate repeats skipped */
	uint32_t	last;		/* key of the previous access, HS_NIL at first */
	bool		adaptive;	/* the paper's adaptive m_c */
	bool		skip_repeats;	/* skip immediate repeats, as the simulator */
	bool		requeue_untested; /* HAND_cold re-tests a referenced cold page whose
					   * test is over instead of evicting it */
};

static const struct hs_param cp_params[] = {
	{ .name = "cold_percent", .type = HS_PARAM_DOUBLE, .def = "5",
	  .help = "memory for cold pages (m_c), in percent (clock-pro.c MIN_COLD_ALLOC_RATE)",
	  .min = 0.0, .max = 100.0 },
	{ .name = "cold_min", .type = HS_PARAM_U64, .def = "2",
	  .help = "fewest pages for cold pages (clock-pro.c LOWEST_COLD_ALLOC)",
	  .min = 1.0, .max = 18446744073709551616.0 },
	{ .name = "adaptive", .type = HS_PARAM_BOOL, .def = "false",
	  .help = "adapt m_c as the paper (+1 reference in test, -1 test period unused)" },
	{ .name = "skip_repeats", .type = HS_PARAM_BOOL, .def = "true",
	  .help = "ignore a reference to the page referenced just before, as clock-pro.c" },
	{ .name = "requeue_untested", .type = HS_PARAM_BOOL, .def = "false",
	  .help = "re-test a referenced cold page past its test (paper), not evict it (clock-pro.c)" },
	{ .name = NULL },
};

static inline struct cp_key *key_of(struct hs_folio *f)
{
	return hs_folio_priv(f);
}

static inline struct cp_key *key_at(const struct hs_policy *p, uint32_t id)
{
	return hs_folio_priv(hs_env_folio(p->env, id));
}

/* The position after id, clockwise (the tail wraps to the head). */
static inline uint32_t cw(const struct hs_policy *p, uint32_t id)
{
	uint32_t n = hs_q_next(&p->q, id);

	return n != HS_NIL ? n : p->clock.head;
}

/* The position before id. */
static inline uint32_t ccw(const struct hs_policy *p, uint32_t id)
{
	uint32_t n = hs_q_prev(&p->q, id);

	return n != HS_NIL ? n : p->clock.tail;
}

/* Most hot pages now: m - m_c. */
static inline uint64_t hot_max(const struct hs_policy *p)
{
	return p->m - p->cold_target;
}

/* Take id off the clock; a hand on it moves one step (none is left if it was alone). */
static void detach(struct hs_policy *p, uint32_t id)
{
	uint32_t next = p->clock.nr > 1 ? cw(p, id) : HS_NIL;

	if (p->hand_hot == id)
		p->hand_hot = next;
	if (p->hand_cold == id)
		p->hand_cold = next;
	if (p->hand_test == id)
		p->hand_test = next;
	hs_q_del(&p->q, &p->clock, id);
}

/* Put id at the tail; the first page on an empty clock gets all three hands. */
static void attach(struct hs_policy *p, uint32_t id)
{
	hs_q_push_tail(&p->q, &p->clock, id);
	if (p->clock.nr == 1)
		p->hand_hot = p->hand_cold = p->hand_test = id;
}

/* Move id (on the clock) to the tail; a hand on it moves one step first. */
static void move_to_tail(struct hs_policy *p, uint32_t id)
{
	uint32_t next = cw(p, id);

	if (p->hand_hot == id)
		p->hand_hot = next;
	if (p->hand_cold == id)
		p->hand_cold = next;
	if (p->hand_test == id)
		p->hand_test = next;
	hs_q_move_tail(&p->q, &p->clock, id);
}

/* Forget id: off the clock, no state.  The caller fixes the counters. */
static void forget(struct hs_policy *p, uint32_t id)
{
	detach(p, id);
	key_at(p, id)->flags = 0;
}

static void target_adjust(struct hs_policy *p, bool up)
{
	if (!p->adaptive)
		return;
	if (up && p->cold_target < p->cold_hi)
		p->cold_target++;
	else if (!up && p->cold_target > p->cold_lo)
		p->cold_target--;
}

/* A hand passes a cold page: its test period (if any) is over and its bit cleared. */
static void end_test(struct hs_policy *p, struct cp_key *k)
{
	if (k->flags & K_TEST)
		target_adjust(p, k->flags & K_REF);
	k->flags &= (uint8_t)~(K_TEST | K_REF);
}

/*
 * HAND_test: one step if @step (HAND_hot is passing it), then, while there
 * are more than m non-resident pages, on to the next one to remove it.
 */
static void run_test(struct hs_policy *p, bool step)
{
	struct cp_key *k;
	uint32_t t;

	if (step && p->hand_test != HS_NIL) {
		t = p->hand_test;
		k = key_at(p, t);
		p->hand_test = cw(p, t);
		if (!(k->flags & K_HOT)) {
			end_test(p, k);
			if (!(k->flags & K_RES)) {
				forget(p, t);
				p->nr_nonres--;
			}
		}
	}
	if (p->nr_nonres <= p->m)
		return;
	/* More than m >= 1 non-resident pages: one of them is ahead. */
	for (;;) {
		t = p->hand_test;
		k = key_at(p, t);
		if (!(k->flags & K_RES))
			break;
		if (!(k->flags & K_HOT))
			end_test(p, k);
		p->hand_test = cw(p, t);
	}
	end_test(p, k);
	p->hand_test = cw(p, t);
	forget(p, t);
	p->nr_nonres--;
}

/*
 * HAND_hot, for the cold page @cold (HS_NIL: none) that is to be promoted:
 * clear bits of hot pages until one is demoted, then go on to the next hot
 * page, passing cold pages (HAND_test goes along when it is passed).
 * Return: RH_* bits.
 */
static unsigned int run_hot(struct hs_policy *p, uint32_t cold)
{
	unsigned int r = 0;
	bool done = false;

	do {
		uint32_t h = p->hand_hot;
		struct cp_key *k = key_at(p, h);

		if (k->flags & K_HOT) {
			if (k->flags & K_REF) {
				k->flags &= (uint8_t)~K_REF;
				hs_sim_protect(p->env->sim, hs_env_folio(p->env, h),
					       HS_PROT_SECOND_CHANCE);
			} else {
				k->flags &= (uint8_t)~K_HOT;
				p->nr_hot--;
				p->nr_cold++;
				p->demotions++;
				r |= RH_DEMOTED;
				done = true;
			}
			/* HAND_test on h moves with HAND_hot, before h moves. */
			if (p->hand_test == h)
				p->hand_test = cw(p, h);
			p->hand_hot = cw(p, h);
			move_to_tail(p, h);
		} else {
			if (h == cold) {
				r |= RH_MATCHED;
				done = true;
			}
			p->hand_hot = cw(p, h);
		}
		if (ccw(p, p->hand_hot) == p->hand_test)
			run_test(p, true);
	} while (p->nr_hot > 0 && (!done || !(key_at(p, p->hand_hot)->flags & K_HOT)));
	return r;
}

/* Adaptive only: demote until at most m - target pages are hot. */
static void rebalance(struct hs_policy *p)
{
	while (p->adaptive && p->nr_hot > hot_max(p))
		run_hot(p, HS_NIL);
}

/* Put HAND_cold on a resident cold page (it normally is); false if there is none. */
static bool seek_cold(struct hs_policy *p)
{
	uint64_t n;

	if (p->nr_cold == 0 || p->hand_cold == HS_NIL)
		return false;
	for (n = 0; n <= p->clock.nr; n++) {
		uint8_t fl = key_at(p, p->hand_cold)->flags;

		if ((fl & (K_RES | K_HOT)) == K_RES)
			return true;
		p->hand_cold = cw(p, p->hand_cold);
	}
	return false;
}

/* A resident cold page (not under HAND_cold) goes to the tail as hot. */
static void make_hot(struct hs_policy *p, uint32_t id, struct cp_key *k)
{
	move_to_tail(p, id);
	k->flags = K_CLOCK | K_RES | K_HOT;
	p->nr_cold--;
	p->nr_hot++;
	p->promotions++;
}

/*
 * HAND_cold: find the next victim among the resident cold pages, promoting
 * or re-testing referenced ones on the way.
 * Return: the victim, now non-resident, or HS_NIL if no page is resident cold.
 */
static uint32_t run_cold(struct hs_policy *p)
{
	for (;;) {
		struct hs_folio *f;
		struct cp_key *k;
		unsigned int r;
		uint32_t c;

		if (!seek_cold(p))
			return HS_NIL;
		c = p->hand_cold;
		f = hs_env_folio(p->env, c);
		k = key_of(f);

		if (!(k->flags & K_REF) || (!(k->flags & K_TEST) && !p->requeue_untested)) {
			p->hand_cold = cw(p, c);
			p->nr_cold--;
			if (k->flags & K_TEST) {
				k->flags = K_CLOCK | K_TEST;
				p->nr_nonres++;
			} else {
				forget(p, c);
			}
			/* The simulator moves the hand on at once, past hot pages. */
			seek_cold(p);
			run_test(p, false);
			return c;
		}

		if (!(k->flags & K_TEST) || hot_max(p) == 0) {
			/* A new test period: the paper's rule, or nothing can be hot. */
			hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
			move_to_tail(p, c);
			k->flags = K_CLOCK | K_RES | K_TEST;
			continue;
		}
		/* Referenced in its test period: promote, with a demotion. */
		target_adjust(p, true);
		r = p->nr_hot < hot_max(p) ? RH_DEMOTED : run_hot(p, c);
		if (r & RH_DEMOTED) {
			hs_sim_protect(p->env->sim, f, HS_PROT_SECOND_CHANCE);
			make_hot(p, c, k);
			rebalance(p);
		} else if (k->flags & K_TEST) {
			/* HAND_hot stopped at c without ending its test (only after drops). */
			end_test(p, k);
		}
		/* Otherwise HAND_hot ended c's test and cleared its bit: next, it goes. */
	}
}

static int cp_create(const struct hs_policy_env *env, const struct hs_param_set *ps,
		     struct hs_policy **out)
{
	uint64_t m = env->capacity;
	struct hs_policy *p;
	double share;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->env = env;
	p->q.base = env->folios;
	p->q.stride = env->stride;
	p->q.off = env->priv_off + offsetof(struct cp_key, link);
	hs_q_init(&p->clock);
	p->hand_hot = p->hand_cold = p->hand_test = HS_NIL;
	p->m = m;

	/* The simulator's expression, truncated: MIN_COLD_ALLOC_RATE / 100.0 * mem_size. */
	share = hs_param_double(ps, "cold_percent") / 100.0 * (double)m;
	p->cold_target = share >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)share;
	p->cold_target = HS_MAX(p->cold_target, hs_param_u64(ps, "cold_min"));
	p->cold_target = HS_MIN(p->cold_target, m);
	p->adaptive = hs_param_bool(ps, "adaptive");
	if (p->adaptive) {
		p->cold_lo = HS_MIN(hs_param_u64(ps, "cold_min"), m);
		p->cold_hi = HS_MAX(p->cold_lo, m - p->cold_lo);
		p->cold_target = HS_MIN(p->cold_target, p->cold_hi);
	} else {
		p->cold_lo = p->cold_hi = p->cold_target;
	}
	p->skip_repeats = hs_param_bool(ps, "skip_repeats");
	p->requeue_untested = hs_param_bool(ps, "requeue_untested");
	p->last = HS_NIL;
	*out = p;
	return 0;
}

static void cp_destroy(struct hs_policy *p)
{
	free(p);
}

static void cp_hit(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	(void)a;
	if (p->skip_repeats && a->key == p->last) {
		p->repeats++;
		return;
	}
	p->last = a->key;
	key_of(f)->flags |= K_REF;
}

/* id (off the clock) enters at the tail as a resident cold page in a new test period. */
static void enter_cold(struct hs_policy *p, uint32_t id, struct cp_key *k)
{
	k->flags = K_CLOCK | K_RES | K_TEST;
	attach(p, id);
	p->nr_cold++;
}

static void enter_hot(struct hs_policy *p, uint32_t id, struct cp_key *k)
{
	k->flags = K_CLOCK | K_RES | K_HOT;
	attach(p, id);
	p->nr_hot++;
}

/* A miss on a non-resident page still in its test period. */
static void refault_in_test(struct hs_policy *p, uint32_t id, struct cp_key *k)
{
	unsigned int r;

	if (hot_max(p) == 0) {
		detach(p, id);
		p->nr_nonres--;
		enter_cold(p, id, k);
		return;
	}
	target_adjust(p, true);
	if (p->nr_hot < hot_max(p)) {
		r = RH_DEMOTED;		/* room in the hot set: no demotion needed */
	} else {
		r = run_hot(p, id);	/* may end id's test and take it off the clock */
	}
	if (k->flags & K_CLOCK) {
		detach(p, id);
		p->nr_nonres--;
	}
	if (r & RH_DEMOTED) {
		enter_hot(p, id, k);
		p->promotions++;
		rebalance(p);
	} else {
		enter_cold(p, id, k);
	}
}

static void cp_insert(struct hs_policy *p, struct hs_folio *f, const struct hs_access *a)
{
	uint64_t free_frames = p->m - (p->nr_hot + p->nr_cold);	/* before f */
	struct cp_key *k = key_of(f);
	uint32_t id = a->key;

	(void)a;
	p->last = id;
	if (k->flags & K_CLOCK)
		refault_in_test(p, id, k);
	else if (free_frames > p->cold_target)
		enter_hot(p, id, k);	/* warm-up: fill the hot set first */
	else
		enter_cold(p, id, k);
}

static size_t cp_evict(struct hs_policy *p, struct hs_folio *incoming, const struct hs_access *a,
		       size_t need, struct hs_folio **victims, size_t max)
{
	size_t n = 0;

	(void)incoming;
	(void)a;
	while (n < need && n < max) {
		uint32_t id = run_cold(p);

		if (id == HS_NIL) {
			/* No resident cold page (broken counts): demote one and retry. */
			if (p->nr_hot == 0 || !(run_hot(p, HS_NIL) & RH_DEMOTED))
				break;
			continue;
		}
		victims[n++] = hs_env_folio(p->env, id);
	}
	return n;
}

static void cp_remove(struct hs_policy *p, struct hs_folio *f, enum hs_remove_reason why)
{
	struct cp_key *k = key_of(f);
	uint8_t fl = k->flags;

	if (!(fl & K_CLOCK))
		return;		/* unknown, or already forgotten */
	if (why == HS_REMOVE_HINT && (fl & (K_RES | K_HOT | K_TEST)) == (K_RES | K_TEST)) {
		/* Evicted in its test period, as by HAND_cold: it stays, non-resident. */
		k->flags = K_CLOCK | K_TEST;
		p->nr_cold--;
		p->nr_nonres++;
		run_test(p, false);
		return;
	}
	if (fl & K_HOT)
		p->nr_hot--;
	else if (fl & K_RES)
		p->nr_cold--;
	else
		p->nr_nonres--;
	forget(p, hs_folio_id(p->env, f));
}

static enum hs_hint_verdict cp_hint(struct hs_policy *p, struct hs_folio *f,
				    const struct hs_access *a)
{
	struct cp_key *k = key_of(f);
	uint32_t id = a->key, prev;

	if (a->channel == HS_CH_PAGEOUT)
		return HS_HINT_EVICT;
	if (p->last == id)
		p->last = HS_NIL;
	if (k->flags & K_HOT) {
		k->flags = K_CLOCK | K_RES;
		p->nr_hot--;
		p->nr_cold++;
		p->demotions++;
	}
	k->flags &= (uint8_t)~K_REF;
	/* Not alone on the clock, or HAND_cold would be on it already. */
	if (p->hand_cold != id) {
		detach(p, id);
		prev = hs_q_prev(&p->q, p->hand_cold);
		if (prev == HS_NIL)
			hs_q_push_head(&p->q, &p->clock, id);
		else
			hs_q_insert_after(&p->q, &p->clock, prev, id);
		p->hand_cold = id;
	}
	return HS_HINT_KEEP;
}

static bool hand_ok(const struct hs_policy *p, uint32_t hand)
{
	if (p->clock.nr == 0)
		return hand == HS_NIL;
	return hand < p->env->nr_keys && (key_at(p, hand)->flags & K_CLOCK);
}

static int cp_check(const struct hs_policy *p)
{
	uint64_t hot = 0, cold = 0, nonres = 0, n = 0, on_clock = 0;
	const struct hs_policy_env *env = p->env;
	uint32_t prev = HS_NIL;
	uint32_t id, i;

	if (p->cold_lo > p->cold_target || p->cold_target > p->cold_hi || p->cold_hi > p->m)
		return -EUCLEAN;
	if (p->nr_hot > p->m - p->cold_lo || p->nr_nonres > p->m ||
	    p->nr_hot + p->nr_cold > p->m)
		return -EUCLEAN;
	if (!hand_ok(p, p->hand_hot) || !hand_ok(p, p->hand_cold) || !hand_ok(p, p->hand_test))
		return -EUCLEAN;

	for (id = p->clock.head; id != HS_NIL; id = hs_q_next(&p->q, id)) {
		uint8_t fl;

		if (id >= env->nr_keys || ++n > p->clock.nr || hs_q_prev(&p->q, id) != prev)
			return -EUCLEAN;
		fl = key_at(p, id)->flags;
		if (!(fl & K_CLOCK))
			return -EUCLEAN;
		if (fl & K_HOT) {
			if (!(fl & K_RES) || (fl & K_TEST))
				return -EUCLEAN;	/* hot: resident, never in test */
			hot++;
		} else if (fl & K_RES) {
			cold++;
		} else {
			if (!(fl & K_TEST) || (fl & K_REF))
				return -EUCLEAN;	/* non-resident: in test, no bit */
			nonres++;
		}
		prev = id;
	}
	if (n != p->clock.nr || p->clock.tail != prev)
		return -EUCLEAN;
	if (hot != p->nr_hot || cold != p->nr_cold || nonres != p->nr_nonres)
		return -EUCLEAN;

	for (i = 0; i < env->nr_keys; i++) {
		const struct hs_folio *f = hs_env_folio(env, i);
		uint8_t fl = ((const struct cp_key *)hs_folio_cpriv(f))->flags;

		if (!(fl & K_CLOCK) && fl)
			return -EUCLEAN;	/* off the clock: no state */
		if (!(fl & K_RES) != !hs_folio_is_resident(f))
			return -EUCLEAN;	/* resident = K_RES */
		on_clock += (fl & K_CLOCK) != 0;
	}
	return on_clock == p->clock.nr ? 0 : -EUCLEAN;
}

static void cp_dump(const struct hs_policy *p, FILE *fp)
{
	uint32_t id;

	fprintf(fp, "clock-pro: m=%" PRIu64 " m_c=%" PRIu64 " hot=%" PRIu64 " cold=%" PRIu64
		" nonresident=%" PRIu64 "\n", p->m, p->cold_target, p->nr_hot, p->nr_cold,
		p->nr_nonres);
	fprintf(fp, "clock (head first; H hot, C cold, c cold in test, n non-resident, * bit,"
		" ^hot @test <cold):");
	for (id = p->clock.head; id != HS_NIL; id = hs_q_next(&p->q, id)) {
		uint8_t fl = key_at(p, id)->flags;

		fprintf(fp, " %" PRIu32 ":%s%s%s%s%s", id,
			(fl & K_HOT) ? "H" : !(fl & K_RES) ? "n" : (fl & K_TEST) ? "c" : "C",
			(fl & K_REF) ? "*" : "", id == p->hand_hot ? "^" : "",
			id == p->hand_test ? "@" : "", id == p->hand_cold ? "<" : "");
	}
	fputc('\n', fp);
}

static void cp_report(const struct hs_policy *p, struct hs_metrics *m)
{
	hs_metrics_add(m, "clockpro.hot", (double)p->nr_hot);
	hs_metrics_add(m, "clockpro.cold", (double)p->nr_cold);
	hs_metrics_add(m, "clockpro.nonresident", (double)p->nr_nonres);
	hs_metrics_add(m, "clockpro.cold_target", (double)p->cold_target);
	hs_metrics_add(m, "clockpro.promotions", (double)p->promotions);
	hs_metrics_add(m, "clockpro.demotions", (double)p->demotions);
	hs_metrics_add(m, "clockpro.repeats", (double)p->repeats);
}

const struct hs_policy_ops hs_policy_clock_pro = {
	.abi		= HS_POLICY_ABI,
	.name		= "clock-pro",
	.summary	= "CLOCK-Pro (Jiang, Chen & Zhang 2005) as clock-pro.c",
	.params		= cp_params,
	.folio_priv	= sizeof(struct cp_key),
	.flags		= 0,
	.create		= cp_create,
	.destroy	= cp_destroy,
	.hit		= cp_hit,
	.insert		= cp_insert,
	.evict		= cp_evict,
	.remove		= cp_remove,
	.hint		= cp_hint,
	.check		= cp_check,
	.dump		= cp_dump,
	.report		= cp_report,
};
