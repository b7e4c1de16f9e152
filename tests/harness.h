/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small unit-test harness.  A test program is a table of cases; t_main()
 * runs them in order, prints each failed assertion with its place, and ends
 * with "N passed, N failed" (plus ", N skipped").  Exit status: 0 all passed,
 * 1 some failed, 77 every case skipped, 99 the harness itself failed.
 * Silent unless something fails (set T_VERBOSE=1 to list every case).
 */
#ifndef HS_TEST_HARNESS_H
#define HS_TEST_HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct t_case {
	const char	*name;
	void		(*fn)(void);
};

/* Failure recorders used by the macros. */
void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Mark the current case skipped, with a reason (return from the case after it). */
void t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Did the current case fail so far? */
bool t_case_failed(void);

int t_main(const struct t_case *cases, size_t n, int argc, char **argv);
/* Same, for cases known only at run time: case i is named name(i) and runs fn(i). */
int t_main_indexed(size_t n, const char *(*name)(size_t), void (*fn)(size_t), int argc,
		   char **argv);

/* $HSCTL_SHARED (../shared beside the tree), or NULL when absent. */
const char *t_shared(void);
/* $TESTDATA, or "testdata" when unset. */
const char *t_testdata(void);

/*
 * The live-test lock: live tests (tracefs mounts, zram swap, sysctls, memory
 * pressure) run one at a time on a machine, whatever checkout they come from,
 * by taking flock(2) on /tmp/hsctl-live.lock ($HSCTL_LIVE_LOCK overrides the
 * path, for tests of the lock itself).  The taker writes "PID COMMAND" into
 * the file once it holds it.  A waiter says once on stderr "waiting for
 * LOCK held by PID (COMMAND)" and gives up after $HSCTL_LIVE_LOCK_WAIT
 * seconds (default 300, 0: do not wait); the holder is the pid the file
 * records while that process lives, else the one /proc/locks shows.  The
 * shell side is live_lock in tests/cli/setup.sh, the same protocol.
 *
 * t_live_lock() returns the lock's fd (close it to release the lock), or -1
 * with @why set to "LOCK held by PID (COMMAND) for N s", or the error: skip
 * the test (exit 77, or t_skip() for one case) with that reason.
 */
#define T_LIVE_LOCK		"/tmp/hsctl-live.lock"
#define T_LIVE_LOCK_WAIT	300
int t_live_lock(char *why, size_t len);

#define T_ASSERT(c) do { \
	if (!(c)) t_fail(__FILE__, __LINE__, "assertion failed: %s", #c); \
} while (0)

#define T_EQ_U64(a, b) do { \
	uint64_t t_a_ = (uint64_t)(a), t_b_ = (uint64_t)(b); \
	if (t_a_ != t_b_) t_fail(__FILE__, __LINE__, "%s == %" PRIu64 ", expected %s == %" PRIu64, \
				 #a, t_a_, #b, t_b_); \
} while (0)

#define T_EQ_I64(a, b) do { \
	int64_t t_a_ = (int64_t)(a), t_b_ = (int64_t)(b); \
	if (t_a_ != t_b_) t_fail(__FILE__, __LINE__, "%s == %" PRId64 ", expected %s == %" PRId64, \
				 #a, t_a_, #b, t_b_); \
} while (0)

#define T_EQ_STR(a, b) do { \
	const char *t_a_ = (a), *t_b_ = (b); \
	if (!t_a_ || !t_b_ || strcmp(t_a_, t_b_)) \
		t_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, \
		       t_a_ ? t_a_ : "(null)", t_b_ ? t_b_ : "(null)"); \
} while (0)

#define T_NEAR(a, b, eps) do { \
	double t_a_ = (double)(a), t_b_ = (double)(b); \
	if (!(t_a_ - t_b_ <= (eps) && t_b_ - t_a_ <= (eps))) \
		t_fail(__FILE__, __LINE__, "%s == %.6f, expected %.6f within %g", #a, t_a_, \
		       t_b_, (double)(eps)); \
} while (0)

#endif /* HS_TEST_HARNESS_H */
