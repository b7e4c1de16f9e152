/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unit-test harness (see harness.h): case table runner and reporters.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>

#include "harness.h"

static const char *cur_case;
static int cur_failed;
static int cur_skipped;
static int verbose;

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: %s:%d: ", cur_case ? cur_case : "?", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed++;
}

void t_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "SKIP %s: ", cur_case ? cur_case : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_skipped = 1;
}

bool t_case_failed(void)
{
	return cur_failed != 0;
}

const char *t_shared(void)
{
	const char *s = getenv("HSCTL_SHARED");

	return s && *s ? s : NULL;
}

const char *t_testdata(void)
{
	const char *s = getenv("TESTDATA");

	return s && *s ? s : "testdata";
}

struct run {
	const struct t_case	*cases;		/* static table, or NULL */
	const char		*(*name)(size_t);	/* indexed form */
	void			(*fn)(size_t);
};

static const char *case_name(const struct run *r, size_t i)
{
	return r->cases ? r->cases[i].name : r->name(i);
}

static int run_all(const struct run *r, size_t n, int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *v = getenv("T_VERBOSE");
	size_t i;

	verbose = v && *v && strcmp(v, "0");
	for (i = 0; i < n; i++) {
		if (argc > 1) {		/* run only the named cases */
			int want = 0;

			for (int a = 1; a < argc; a++)
				want |= !strcmp(argv[a], case_name(r, i));
			if (!want)
				continue;
		}
		cur_case = case_name(r, i);
		cur_failed = 0;
		cur_skipped = 0;
		if (r->cases)
			r->cases[i].fn();
		else
			r->fn(i);
		if (cur_failed)
			failed++;
		else if (cur_skipped)
			skipped++;
		else
			passed++;
		if (verbose)
			fprintf(stderr, "%s %s\n",
				cur_failed ? "FAIL" : cur_skipped ? "SKIP" : "ok  ", cur_case);
	}
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	if (failed)
		return 1;
	if (passed == 0 && skipped > 0)
		return 77;
	return 0;
}

int t_main(const struct t_case *cases, size_t n, int argc, char **argv)
{
	struct run r = { .cases = cases };

	return run_all(&r, n, argc, argv);
}

int t_main_indexed(size_t n, const char *(*name)(size_t), void (*fn)(size_t), int argc,
		   char **argv)
{
	struct run r = { .name = name, .fn = fn };

	return run_all(&r, n, argc, argv);
}
