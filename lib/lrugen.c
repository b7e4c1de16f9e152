/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for /sys/kernel/debug/lru_gen, lru_gen_full and the
 * /sys/kernel/mm/lru_gen knobs (format and rules in lrugen.h).  One pass over
 * the text, line by line, with a small state machine: the current memcg,
 * node and generation, how many tier lines the generation has had, and
 * whether its walker line was seen.  Rules that span lines (tier lines per
 * generation, 'x' marks, four generations per lruvec in lru_gen_full) are
 * checked when a generation ends and in one pass at the end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "hs.h"
#include "lrugen.h"

#define MAX_FIELDS	16		/* most fields on one numeric line */
#define LOAD_CHUNK	(64u * 1024)	/* first read buffer of hs_lrugen_load() */
#define LOAD_MAX	(256u << 20)	/* largest file hs_lrugen_load() reads */

/* ---- allocation, with the tests' failure hook ---- */

static unsigned long fail_nth;		/* the allocation that fails, counted down; 0: none */

/**
 * hs_lrugen_fail_alloc() - make an allocation of this module fail (tests)
 * @nth: 1 for the next allocation, 2 for the one after, ...; 0 turns it off
 *
 * Return: nothing.
 */
void hs_lrugen_fail_alloc(unsigned long nth)
{
	fail_nth = nth;
}

static bool alloc_fails(void)
{
	return fail_nth && --fail_nth == 0;
}

static void *lg_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : calloc(n, size);
}

static void *lg_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return alloc_fails() ? NULL : realloc(p, n * size);
}

/*
 * Room for @need elements of @size bytes in @arr (capacity *@cap, NULL when
 * 0): returns the array, moved or not, new elements zeroed; NULL when out of
 * memory (@arr is then unchanged).
 */
static void *grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 4;
	void *p;

	if (need <= *cap)
		return arr;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	p = lg_realloc(arr, n, size);
	if (!p)
		return NULL;
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*cap = n;
	return p;
}

/* ---- errors ---- */

/* One-line reasons go through hs_msg() (lib/fileio.h). */
#define set_msg hs_msg

/* ---- lines and fields ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One field of a numeric line: digits, then at most one letter. */
struct field {
	uint64_t	v;		/* the number */
	char		mark;		/* the letter after it, 0 for none */
};

/* A line without its end and outer blanks: [s, e). */
struct line {
	const char	*s;		/* first non-blank byte */
	const char	*e;		/* one past the last non-blank byte */
	size_t		no;		/* 1-based line number */
};

/* The parser's state. */
struct parser {
	struct hs_lrugen *lg;		/* what is being built */
	char		*err;		/* message buffer, may be NULL */
	size_t		errlen;		/* its size */
	size_t		no;		/* current line number */
	size_t		cap_memcgs;	/* capacity of lg->memcgs */
	size_t		cap_nodes;	/* capacity of the current memcg's nodes */
	size_t		cap_gens;	/* capacity of the current node's gens */
	int		full;		/* -1 not known yet, 0 lru_gen, 1 lru_gen_full */
	unsigned int	tiers_seen;	/* tier lines after the current generation */
	bool		walk_seen;	/* its walker line was seen */
};

static int bad(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record "line N: why" and return -EBADMSG. */
static int bad(struct parser *ps, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	set_msg(ps->err, ps->errlen, "line %zu: %s", ps->no, why);
	return -EBADMSG;
}

/* Parse an unsigned decimal in [s, e); 0, or -EBADMSG with a message. */
static int parse_u64(struct parser *ps, const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0;
	const char *c;

	for (c = s; c < e; c++) {
		unsigned int d = (unsigned int)(*c - '0');

		if (v > (UINT64_MAX - d) / 10)
			return bad(ps, "number \"%.*s\" out of range", (int)HS_MIN(e - s, 40), s);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Split a numeric line into fields; returns the count or -EBADMSG. */
static int split_fields(struct parser *ps, const struct line *ln, struct field *f)
{
	const char *c = ln->s;
	int n = 0;

	while (c < ln->e) {
		const char *s = c, *digits_end;
		int err;

		while (c < ln->e && is_digit(*c))
			c++;
		digits_end = c;
		if (c < ln->e && is_letter(*c))
			c++;
		if (digits_end == s || (c < ln->e && !is_blank(*c))) {
			while (c < ln->e && !is_blank(*c))
				c++;
			return bad(ps, "bad field \"%.*s\"", (int)HS_MIN(c - s, 40), s);
		}
		if (n == MAX_FIELDS)
			return bad(ps, "more than %d fields", MAX_FIELDS);
		err = parse_u64(ps, s, digits_end, &f[n].v);
		if (err)
			return err;
		f[n].mark = digits_end < c ? *digits_end : 0;
		n++;
		while (c < ln->e && is_blank(*c))
			c++;
	}
	return n;
}

/* The first word of a line, and where the rest begins (after blanks). */
static const char *first_word(const struct line *ln, const char **rest)
{
	const char *c = ln->s;

	while (c < ln->e && !is_blank(*c))
		c++;
	*rest = c;
	while (*rest < ln->e && is_blank(**rest))
		(*rest)++;
	return c;
}

static bool word_is(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) == n && !memcmp(s, w, n);
}

/* ---- the current memcg, node and generation ---- */

static struct hs_lrugen_memcg *cur_memcg(struct parser *ps)
{
	return ps->lg->nr_memcgs ? &ps->lg->memcgs[ps->lg->nr_memcgs - 1] : NULL;
}

static struct hs_lrugen_node *cur_node(struct parser *ps)
{
	struct hs_lrugen_memcg *mc = cur_memcg(ps);

	return mc && mc->nr_nodes ? &mc->nodes[mc->nr_nodes - 1] : NULL;
}

static struct hs_lrugen_gen *cur_gen(struct parser *ps)
{
	struct hs_lrugen_node *nd = cur_node(ps);

	return nd && nd->nr_gens ? &nd->gens[nd->nr_gens - 1] : NULL;
}

/* The current generation is complete: check its tier lines. */
static int finish_gen(struct parser *ps, const char *where)
{
	struct hs_lrugen_gen *g = cur_gen(ps);

	if (!g)
		return 0;
	if (ps->full < 0)
		ps->full = 0;		/* a generation ended without tier lines */
	if (ps->full && ps->tiers_seen < HS_LRUGEN_NR_TIERS)
		return bad(ps, "%s: generation %" PRIu64 " (line %zu) has %u of %d tier lines",
			   where, g->seq, g->line, ps->tiers_seen, HS_LRUGEN_NR_TIERS);
	return 0;
}

/* The current node is complete: it must have generations. */
static int finish_node(struct parser *ps, const char *where)
{
	struct hs_lrugen_node *nd = cur_node(ps);
	int err;

	if (!nd)
		return 0;
	err = finish_gen(ps, where);
	if (err)
		return err;
	if (!nd->nr_gens)
		return bad(ps, "%s: node %d (line %zu) has no generation lines", where, nd->nid,
			   nd->line);
	return 0;
}

static int finish_memcg(struct parser *ps, const char *where)
{
	struct hs_lrugen_memcg *mc = cur_memcg(ps);
	int err;

	if (!mc)
		return 0;
	err = finish_node(ps, where);
	if (err)
		return err;
	if (!mc->nr_nodes)
		return bad(ps, "%s: memcg %" PRIu64 " (line %zu) has no node lines", where, mc->id,
			   mc->line);
	return 0;
}

/* ---- one line of each kind ---- */

/* "memcg ID PATH" (PATH may be empty: no memcgs). */
static int memcg_line(struct parser *ps, const struct line *ln, const char *rest)
{
	struct hs_lrugen *lg = ps->lg;
	struct hs_lrugen_memcg *mc;
	const char *id_end = rest, *path;
	uint64_t id = 0;
	size_t i;
	int err;

	err = finish_memcg(ps, "new memcg");
	if (err)
		return err;
	while (id_end < ln->e && !is_blank(*id_end))
		id_end++;
	if (id_end == rest)
		return bad(ps, "memcg line without an id");
	for (path = rest; path < id_end && is_digit(*path); path++)
		;
	if (path < id_end)
		return bad(ps, "bad memcg id \"%.*s\"", (int)HS_MIN(id_end - rest, 40), rest);
	err = parse_u64(ps, rest, id_end, &id);
	if (err)
		return err;
	for (i = 0; i < lg->nr_memcgs; i++)
		if (lg->memcgs[i].id == id)
			return bad(ps, "memcg %" PRIu64 " seen twice (line %zu; torn read?)", id,
				   lg->memcgs[i].line);
	path = id_end;
	while (path < ln->e && is_blank(*path))
		path++;

	mc = grow(lg->memcgs, &ps->cap_memcgs, lg->nr_memcgs + 1, sizeof(*mc));
	if (!mc)
		return -ENOMEM;
	lg->memcgs = mc;
	mc = &lg->memcgs[lg->nr_memcgs];
	mc->path = lg_calloc((size_t)(ln->e - path) + 1, 1);
	if (!mc->path)
		return -ENOMEM;
	memcpy(mc->path, path, (size_t)(ln->e - path));
	mc->id = id;
	mc->line = ln->no;
	lg->nr_memcgs++;
	ps->cap_nodes = 0;
	return 0;
}

/* "node NID" */
static int node_line(struct parser *ps, const struct line *ln, const char *rest)
{
	struct hs_lrugen_memcg *mc = cur_memcg(ps);
	struct line num = { .s = rest, .e = ln->e, .no = ln->no };
	struct field f[MAX_FIELDS];
	struct hs_lrugen_node *nd;
	size_t i;
	int n, err;

	if (!mc)
		return bad(ps, "node line before any memcg line");
	err = finish_node(ps, "new node");
	if (err)
		return err;
	n = split_fields(ps, &num, f);
	if (n < 0)
		return n;
	if (n != 1 || f[0].mark || f[0].v > INT_MAX)
		return bad(ps, "bad node line (expected \"node NID\")");
	for (i = 0; i < mc->nr_nodes && mc->nodes[i].nid != (int)f[0].v; i++)
		;
	if (i < mc->nr_nodes)
		return bad(ps, "node %d of memcg %" PRIu64 " seen twice (line %zu; torn read?)",
			   mc->nodes[i].nid, mc->id, mc->nodes[i].line);

	nd = grow(mc->nodes, &ps->cap_nodes, mc->nr_nodes + 1, sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	mc->nodes = nd;
	nd = &mc->nodes[mc->nr_nodes++];
	nd->nid = (int)f[0].v;
	nd->line = ln->no;
	ps->cap_gens = 0;
	return 0;
}

/* "SEQ AGE_MS ANON FILE", the counts marked 'x' or not */
static int gen_line(struct parser *ps, const struct field *f, int n)
{
	struct hs_lrugen_node *nd = cur_node(ps);
	struct hs_lrugen_gen *prev = cur_gen(ps), *g;
	int t, err;

	if (n != 4)
		return bad(ps, "expected SEQ AGE_MS ANON FILE, found %d fields", n);
	if (f[0].mark || f[1].mark)
		return bad(ps, "unexpected letter '%c' after the seq or age of a generation",
			   f[0].mark ? f[0].mark : f[1].mark);
	for (t = 0; t < HS_LRUGEN_NR_TYPES; t++)
		if (f[2 + t].mark && f[2 + t].mark != 'x')
			return bad(ps, "unexpected letter '%c' after a page count", f[2 + t].mark);
	if (prev && (prev->seq == UINT64_MAX || f[0].v != prev->seq + 1))
		return bad(ps, "generation %" PRIu64 " after %" PRIu64 " (seqs are consecutive)",
			   f[0].v, prev->seq);
	if (nd->nr_gens == HS_LRUGEN_GENS_LIMIT)
		return bad(ps, "more than %d generations in one node", HS_LRUGEN_GENS_LIMIT);
	err = finish_gen(ps, "next generation");
	if (err)
		return err;

	g = grow(nd->gens, &ps->cap_gens, nd->nr_gens + 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	nd->gens = g;
	g = &nd->gens[nd->nr_gens++];
	g->seq = f[0].v;
	g->age_ms = f[1].v;
	for (t = 0; t < HS_LRUGEN_NR_TYPES; t++) {
		g->nr_pages[t] = f[2 + t].v;
		g->below_min[t] = f[2 + t].mark == 'x';
	}
	g->line = ps->no;
	ps->tiers_seen = 0;
	ps->walk_seen = false;
	return 0;
}

/* "TIER  N1 N2 N3  N1 N2 N3" */
static int tier_line(struct parser *ps, const struct field *f)
{
	struct hs_lrugen_gen *g = cur_gen(ps);
	int t;

	if (f[0].v != ps->tiers_seen)
		return bad(ps, "tier %" PRIu64 " where tier %u was expected", f[0].v,
			   ps->tiers_seen);
	for (t = 0; t < HS_LRUGEN_NR_TYPES; t++) {
		const struct field *c = &f[1 + 3 * t];
		struct hs_lrugen_tier *tr = &g->tiers[t][ps->tiers_seen];
		uint8_t kind;

		if (c[0].mark == 'R' && c[1].mark == 'T' && (!c[2].mark || c[2].mark == 'x')) {
			kind = HS_LRUGEN_TIER_AVG;
			tr->avg_refaulted = c[0].v;
			tr->avg_total = c[1].v;
		} else if (c[0].mark == 'r' && c[1].mark == 'e' && c[2].mark == 'p') {
			kind = HS_LRUGEN_TIER_HIST;
			tr->refaulted = c[0].v;
			tr->evicted = c[1].v;
			tr->protected = c[2].v;
		} else if ((!c[0].mark || c[0].mark == 'x') && c[1].mark == c[0].mark &&
			   c[2].mark == c[0].mark) {
			kind = HS_LRUGEN_TIER_NONE;
		} else {
			return bad(ps, "tier %u: letters \"%c%c%c\": not RT, rep or placeholders",
				   ps->tiers_seen,
				   c[0].mark ? c[0].mark : ' ', c[1].mark ? c[1].mark : ' ',
				   c[2].mark ? c[2].mark : ' ');
		}
		/* One kind per type and generation: the kernel picks it by seq. */
		if (ps->tiers_seen && kind != g->tier_kind[t])
			return bad(ps, "tier %u of generation %" PRIu64 " changes the counter kind",
				   ps->tiers_seen, g->seq);
		g->tier_kind[t] = kind;
	}
	ps->tiers_seen++;
	return 0;
}

/* The walker stats: all placeholders, or all upper-case or all lower-case letters. */
static int walk_line(struct parser *ps, const struct field *f, int n)
{
	struct hs_lrugen_walk *w = &cur_gen(ps)->walk;
	bool holder = !f[0].mark || f[0].mark == 'x';
	bool upper = f[0].mark >= 'A' && f[0].mark <= 'Z';
	int i;

	if (n > HS_LRUGEN_WALK_MAX)
		return bad(ps, "walker stats line with %d counters (at most %d)", n,
			   HS_LRUGEN_WALK_MAX);
	for (i = 0; i < n; i++) {
		char m = f[i].mark;

		if (holder ? m != f[0].mark :
		    (m == 'x' || !m || (m >= 'A' && m <= 'Z') != upper))
			return bad(ps, "walker line mixes placeholders and letter cases");
		if (!holder)
			w->codes[i] = upper ? (char)(m - 'A' + 'a') : m;
		w->v[i] = f[i].v;
	}
	w->n = (uint8_t)n;
	w->kind = holder ? HS_LRUGEN_WALK_EMPTY :
		  upper ? HS_LRUGEN_WALK_CURRENT : HS_LRUGEN_WALK_HIST;
	ps->walk_seen = true;
	return 0;
}

/*
 * After the tier lines of a generation in lru_gen_full: is this the next
 * generation line rather than the walker line?  A generation line has four
 * fields, the first two without letters, the counts with none or 'x'.  A
 * walker line has letters, or is placeholders: six plain zeros (6.1), four
 * "0x" (later), so the only look-alike is four plain zeros, which no
 * generation after another one can be (its seq is at least 1).
 */
static bool is_gen_shaped(const struct field *f, int n)
{
	int i;

	if (n != 4 || f[0].mark || f[1].mark)
		return false;
	for (i = 2; i < 4; i++)
		if (f[i].mark && f[i].mark != 'x')
			return false;
	for (i = 0; i < 4; i++)
		if (f[i].v || f[i].mark)
			return true;
	return false;
}

/* A line whose first field is a number: generation, tier or walker line. */
static int numeric_line(struct parser *ps, const struct line *ln)
{
	struct field f[MAX_FIELDS];
	struct hs_lrugen_gen *g;
	int n;

	if (!cur_node(ps))
		return bad(ps, "numbers before any node line");
	n = split_fields(ps, ln, f);
	if (n < 0)
		return n;
	g = cur_gen(ps);
	if (g && ps->full && ps->tiers_seen < HS_LRUGEN_NR_TIERS) {
		if (n == 1 + 3 * HS_LRUGEN_NR_TYPES && !f[0].mark) {
			ps->full = 1;
			return tier_line(ps, f);
		}
		if (ps->full > 0)
			return bad(ps, "expected tier line %u of generation %" PRIu64,
				   ps->tiers_seen, g->seq);
		/* not known yet and not a tier line: lru_gen; a generation line follows */
	}
	if (g && ps->full > 0 && !ps->walk_seen && !is_gen_shaped(f, n))
		return walk_line(ps, f, n);
	return gen_line(ps, f, n);
}

/* ---- rules over whole lruvecs ---- */

static int check_node(struct parser *ps, const struct hs_lrugen_node *nd)
{
	const struct hs_lrugen_gen *last = &nd->gens[nd->nr_gens - 1];
	uint64_t want;
	size_t i;
	int t;

	ps->no = nd->line;
	if (!ps->full) {
		for (i = 0; i < nd->nr_gens; i++) {
			const struct hs_lrugen_gen *g = &nd->gens[i];

			if (g->below_min[0] || g->below_min[1]) {
				ps->no = g->line;
				return bad(ps, "'x' mark in lru_gen (only lru_gen_full has them)");
			}
		}
		return 0;
	}
	/* lru_gen_full prints max_seq - 3 .. max_seq (0 .. max_seq while max_seq < 3) */
	want = last->seq < HS_LRUGEN_MAX_GENS - 1 ? last->seq + 1 : HS_LRUGEN_MAX_GENS;
	if (nd->nr_gens != want)
		return bad(ps, "node %d has %zu generations, lru_gen_full shows %" PRIu64
			   " (truncated?)", nd->nid, nd->nr_gens, want);
	for (t = 0; t < HS_LRUGEN_NR_TYPES; t++) {
		for (i = 1; i < nd->nr_gens; i++) {
			if (nd->gens[i].below_min[t] && !nd->gens[i - 1].below_min[t]) {
				ps->no = nd->gens[i].line;
				return bad(ps, "'x' above an unmarked count of the same type");
			}
		}
		if (last->below_min[t]) {
			ps->no = last->line;
			return bad(ps, "max_seq marked 'x' (below min_seq)");
		}
	}
	return 0;
}

static int check_all(struct parser *ps)
{
	size_t i, j;
	int err;

	for (i = 0; i < ps->lg->nr_memcgs; i++) {
		const struct hs_lrugen_memcg *mc = &ps->lg->memcgs[i];

		for (j = 0; j < mc->nr_nodes; j++) {
			err = check_node(ps, &mc->nodes[j]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- the entry points ---- */

static int parse_lines(struct parser *ps, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int err;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct line ln = { .s = p, .e = eol, .no = ++ps->no };
		const char *word_end, *rest;

		p = nl ? nl + 1 : end;
		if (memchr(ln.s, '\0', (size_t)(ln.e - ln.s)))
			return bad(ps, "a NUL byte (not a text file)");
		while (ln.s < ln.e && is_blank(*ln.s))
			ln.s++;
		while (ln.e > ln.s && is_blank(ln.e[-1]))
			ln.e--;
		if (ln.s == ln.e)
			continue;
		word_end = first_word(&ln, &rest);
		if (word_is(ln.s, word_end, "memcg"))
			err = memcg_line(ps, &ln, rest);
		else if (word_is(ln.s, word_end, "node"))
			err = node_line(ps, &ln, rest);
		else if (is_digit(*ln.s))
			err = numeric_line(ps, &ln);
		else if (!ps->lg->nr_memcgs)
			err = bad(ps, "expected a \"memcg\" line, found \"%.*s\"",
				  (int)HS_MIN(word_end - ln.s, 40), ln.s);
		else {
			ps->lg->nr_unknown++;
			if (!ps->lg->first_unknown)
				ps->lg->first_unknown = ln.no;
			err = 0;
		}
		if (err)
			return err;
	}
	if (!ps->lg->nr_memcgs) {
		ps->no = ps->no ? ps->no : 1;
		return bad(ps, "no \"memcg\" line (empty input)");
	}
	err = finish_memcg(ps, "end of input");
	if (err)
		return err;
	if (ps->full < 0)
		ps->full = 0;
	ps->lg->full = ps->full > 0;
	return check_all(ps);
}

/**
 * hs_lrugen_free() - free a snapshot
 * @lg: the snapshot, or NULL
 *
 * Return: nothing.
 */
void hs_lrugen_free(struct hs_lrugen *lg)
{
	size_t i, j;

	if (!lg)
		return;
	for (i = 0; i < lg->nr_memcgs; i++) {
		struct hs_lrugen_memcg *mc = &lg->memcgs[i];

		for (j = 0; j < mc->nr_nodes; j++)
			free(mc->nodes[j].gens);
		free(mc->nodes);
		free(mc->path);
	}
	free(lg->memcgs);
	free(lg);
}

/**
 * hs_lrugen_parse() - parse the text of lru_gen or lru_gen_full
 * @text: the contents
 * @len: their length
 * @out: the snapshot
 * @err: message buffer (may be NULL)
 * @errlen: its size
 *
 * Return: 0, -EBADMSG, -EINVAL or -ENOMEM (see lrugen.h).
 */
int hs_lrugen_parse(const char *text, size_t len, struct hs_lrugen **out, char *err,
		    size_t errlen)
{
	struct parser ps = { .err = err, .errlen = errlen, .full = -1 };
	int ret;

	if (!out || (!text && len)) {
		set_msg(err, errlen, "invalid arguments");
		return -EINVAL;
	}
	*out = NULL;
	ps.lg = lg_calloc(1, sizeof(*ps.lg));
	if (!ps.lg) {
		set_msg(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = parse_lines(&ps, text ? text : "", len);
	if (ret) {
		if (ret == -ENOMEM)
			set_msg(err, errlen, "out of memory");
		hs_lrugen_free(ps.lg);
		return ret;
	}
	*out = ps.lg;
	return 0;
}

/* Read the whole of @fd into a new buffer; 0 or -errno. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = LOAD_CHUNK, n = 0;
	char *b = lg_realloc(NULL, cap, 1);

	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= LOAD_MAX) {
				free(b);
				return -EFBIG;
			}
			nb = lg_realloc(b, cap * 2, 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			return -e;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/**
 * hs_lrugen_load() - read a snapshot file and parse it
 * @path: the file
 * @out: the snapshot
 * @err: message buffer (may be NULL)
 * @errlen: its size
 *
 * Return: 0 or a negative errno (see lrugen.h).
 */
int hs_lrugen_load(const char *path, struct hs_lrugen **out, char *err, size_t errlen)
{
	char why[256];
	char *buf = NULL;
	size_t len = 0;
	int fd, ret;

	if (!path || !out) {
		set_msg(err, errlen, "invalid arguments");
		return -EINVAL;
	}
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		set_msg(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = read_all(fd, &buf, &len);
	close(fd);
	if (ret) {
		set_msg(err, errlen, "%s: %s", path, ret == -EFBIG ? "larger than 256 MiB" :
			ret == -ENOMEM ? "out of memory" : strerror(-ret));
		return ret;
	}
	ret = hs_lrugen_parse(buf, len, out, why, sizeof(why));
	free(buf);
	if (ret)
		set_msg(err, errlen, "%s: %s", path, why);
	return ret;
}

/**
 * hs_lrugen_find_memcg() - a memcg by id
 * @lg: the snapshot
 * @id: its id
 *
 * Return: the memcg or NULL.
 */
const struct hs_lrugen_memcg *hs_lrugen_find_memcg(const struct hs_lrugen *lg, uint64_t id)
{
	size_t i;

	for (i = 0; lg && i < lg->nr_memcgs; i++)
		if (lg->memcgs[i].id == id)
			return &lg->memcgs[i];
	return NULL;
}

/**
 * hs_lrugen_find_path() - a memcg by cgroup path
 * @lg: the snapshot
 * @path: the path
 *
 * Return: the memcg or NULL.
 */
const struct hs_lrugen_memcg *hs_lrugen_find_path(const struct hs_lrugen *lg, const char *path)
{
	size_t i;

	for (i = 0; lg && path && i < lg->nr_memcgs; i++)
		if (!strcmp(lg->memcgs[i].path, path))
			return &lg->memcgs[i];
	return NULL;
}

/**
 * hs_lrugen_find_node() - a memcg's lruvec on a node
 * @mc: the memcg
 * @nid: the node id
 *
 * Return: the node or NULL.
 */
const struct hs_lrugen_node *hs_lrugen_find_node(const struct hs_lrugen_memcg *mc, int nid)
{
	size_t i;

	for (i = 0; mc && i < mc->nr_nodes; i++)
		if (mc->nodes[i].nid == nid)
			return &mc->nodes[i];
	return NULL;
}

/**
 * hs_lrugen_node_seqs() - max_seq and min_seq of a lruvec
 * @lg: the snapshot
 * @node: the lruvec
 * @max_seq: receives max_seq
 * @min_seq: receives min_seq per type
 *
 * Return: true when min_seq is exact (lru_gen_full).
 */
bool hs_lrugen_node_seqs(const struct hs_lrugen *lg, const struct hs_lrugen_node *node,
			 uint64_t *max_seq, uint64_t min_seq[HS_LRUGEN_NR_TYPES])
{
	size_t i;
	int t;

	*max_seq = node->gens[node->nr_gens - 1].seq;
	for (t = 0; t < HS_LRUGEN_NR_TYPES; t++) {
		min_seq[t] = node->gens[0].seq;
		if (!lg->full)
			continue;
		/* parse checked that the marks stop before max_seq */
		for (i = 0; i < node->nr_gens && node->gens[i].below_min[t]; i++)
			;
		min_seq[t] = node->gens[i].seq;
	}
	return lg->full;
}

/**
 * hs_lrugen_node_sample() - a lruvec as a struct hs_gen_sample
 * @lg: the snapshot
 * @node: the lruvec
 * @out: the row
 * @exact: receives whether min_seq is exact (may be NULL)
 *
 * Return: 0, -EINVAL or -ERANGE (see lrugen.h).
 */
int hs_lrugen_node_sample(const struct hs_lrugen *lg, const struct hs_lrugen_node *node,
			  struct hs_gen_sample *out, bool *exact)
{
	uint64_t max_seq, min_seq[HS_LRUGEN_NR_TYPES], lo;
	bool ex;
	size_t i;
	int t;

	if (!lg || !node || !out || !node->nr_gens)
		return -EINVAL;
	ex = hs_lrugen_node_seqs(lg, node, &max_seq, min_seq);
	lo = HS_MIN(min_seq[0], min_seq[1]);
	if (max_seq - lo >= HS_NR_GENS)
		return -ERANGE;
	memset(out, 0, sizeof(*out));
	out->max_seq = max_seq;
	out->min_seq[0] = min_seq[0];
	out->min_seq[1] = min_seq[1];
	for (i = 0; i < node->nr_gens; i++) {
		const struct hs_lrugen_gen *g = &node->gens[i];

		if (g->seq < lo)
			continue;
		for (t = 0; t < HS_LRUGEN_NR_TYPES; t++)
			out->pages[g->seq % HS_NR_GENS][t] = g->seq >= min_seq[t] ?
							     g->nr_pages[t] : 0;
	}
	if (exact)
		*exact = ex;
	return 0;
}

/**
 * hs_lrugen_walk_get() - a walker counter by meaning
 * @w: the walker line
 * @stat: the counter
 * @out: its value
 *
 * Return: 0 or -ENOENT.
 */
int hs_lrugen_walk_get(const struct hs_lrugen_walk *w, enum hs_lrugen_mm_stat stat,
		       uint64_t *out)
{
	/* The two code sets mainline has printed: 6.1-6.5 and 6.6 on. */
	static const char six[] = "loynfa", four[] = "tyfa";
	static const char letter[HS_LRUGEN_MM_NR][2] = {
		[HS_LRUGEN_MM_LEAF_TOTAL]	= { 'l', 't' },
		[HS_LRUGEN_MM_LEAF_OLD]		= { 'o', 0 },
		[HS_LRUGEN_MM_LEAF_YOUNG]	= { 'y', 'y' },
		[HS_LRUGEN_MM_NONLEAF_TOTAL]	= { 'n', 0 },
		[HS_LRUGEN_MM_NONLEAF_FOUND]	= { 'f', 'f' },
		[HS_LRUGEN_MM_NONLEAF_ADDED]	= { 'a', 'a' },
	};
	const char *hit;
	char want;

	if (!w || !out || (unsigned int)stat >= HS_LRUGEN_MM_NR)
		return -ENOENT;
	if (w->kind != HS_LRUGEN_WALK_CURRENT && w->kind != HS_LRUGEN_WALK_HIST)
		return -ENOENT;
	if (!strcmp(w->codes, six))
		want = letter[stat][0];
	else if (!strcmp(w->codes, four))
		want = letter[stat][1];
	else
		return -ENOENT;
	hit = want ? strchr(w->codes, want) : NULL;
	if (!hit)
		return -ENOENT;
	*out = w->v[hit - w->codes];
	return 0;
}

/* Trim blanks and line ends around [*s, *e). */
static void trim(const char **s, const char **e)
{
	while (*s < *e && (is_blank(**s) || **s == '\n'))
		(*s)++;
	while (*e > *s && (is_blank((*e)[-1]) || (*e)[-1] == '\n'))
		(*e)--;
}

/* An unsigned number in [s, e) in @base (8, 10 or 16), at most @max. */
static bool parse_base(const char *s, const char *e, unsigned int base, uint64_t max,
		       uint64_t *out)
{
	uint64_t v = 0;

	if (s == e)
		return false;
	for (; s < e; s++) {
		unsigned int d;

		if (is_digit(*s))
			d = (unsigned int)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return false;
		if (d >= base || v > (max - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/**
 * hs_lrugen_parse_enabled() - parse lru_gen/enabled
 * @text: contents
 * @len: their length
 * @caps: receives the mask
 * @err: message buffer (may be NULL)
 * @errlen: its size
 *
 * Return: 0, -EBADMSG or -EINVAL.
 */
int hs_lrugen_parse_enabled(const char *text, size_t len, unsigned int *caps, char *err,
			    size_t errlen)
{
	const char *s = text, *e = text ? text + len : NULL;
	unsigned int base = 10;
	uint64_t v;

	if (!caps || (!text && len)) {
		set_msg(err, errlen, "invalid arguments");
		return -EINVAL;
	}
	trim(&s, &e);
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (e - s > 1 && s[0] == '0') {
		base = 8;
		s++;
	}
	if (!parse_base(s, e, base, UINT_MAX, &v)) {
		set_msg(err, errlen, "lru_gen/enabled: not a mask such as \"0x0007\"");
		return -EBADMSG;
	}
	*caps = (unsigned int)v;
	return 0;
}

/**
 * hs_lrugen_parse_min_ttl() - parse lru_gen/min_ttl_ms
 * @text: contents
 * @len: their length
 * @ms: receives the value
 * @err: message buffer (may be NULL)
 * @errlen: its size
 *
 * Return: 0, -EBADMSG or -EINVAL.
 */
int hs_lrugen_parse_min_ttl(const char *text, size_t len, uint64_t *ms, char *err,
			    size_t errlen)
{
	const char *s = text, *e = text ? text + len : NULL;

	if (!ms || (!text && len)) {
		set_msg(err, errlen, "invalid arguments");
		return -EINVAL;
	}
	trim(&s, &e);
	if (!parse_base(s, e, 10, UINT32_MAX, ms)) {
		set_msg(err, errlen, "lru_gen/min_ttl_ms: not a number of milliseconds");
		return -EBADMSG;
	}
	return 0;
}
