/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz harness for the tracefs sub-buffer decoder (lib/decode.c).  The input
 * is one raw sub-buffer as trace_pipe_raw hands it out; it is decoded by
 * every decoder the harness could set up: the 6.1, 6.12 and 6.18 format
 * files in testdata/decode (always there: $TESTDATA, or the source tree's
 * testdata the harness was built from), and, when $HSCTL_SHARED names the
 * public fixtures, the fuller sets of fixtures/tracefs/{6.1,6.12,6.18}.
 *
 * The buffer is copied to the very end of a mapping followed by an
 * inaccessible page, so a read past its last byte faults even inside
 * libtraceevent, which the sanitizers do not see into.  Properties, from
 * decode.h: the answer is 0 or -EBADMSG, and -EBADMSG comes before any event
 * ("checked in full before a single event is delivered"); events have a type
 * the decoder said it has, HS_EV_LOST only first, the CPU asked for; the
 * statistics count what was delivered; a callback's non-zero value stops the
 * decoding after exactly that event; and the bytes past the committed data
 * do not matter: the same buffer cut right after them decodes the same.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decode.h"
#include "fuzz.h"

#ifndef FUZZ_TESTDATA
#define FUZZ_TESTDATA	"testdata"
#endif

#define MAX_DECODERS	6
#define REGION		(1u << 20)	/* largest input decoded */
#define CPU		3

static struct hs_decoder *dec[MAX_DECODERS];
static size_t nr_dec;
static uint8_t *region;			/* REGION bytes, then a PROT_NONE page */

struct seen {
	struct hs_decoder *d;
	size_t		n;		/* events delivered */
	size_t		data;		/* ... of them not HS_EV_LOST */
	size_t		stop;		/* return 1 from event number stop (1-based), 0 never */
	uint64_t	hash;		/* of the events, in order */
};

static void open_one(const char *base, const char *kernel)
{
	char dir[PATH_MAX];
	struct hs_decoder *d;
	int err;

	snprintf(dir, sizeof(dir), "%s/%s", base, kernel);
	err = hs_decoder_open(dir, 0, &d);
	if (err) {
		fprintf(stderr, "fuzz-decode: %s: %s\n", dir, d ? hs_decoder_errmsg(d) :
			strerror(-err));
		abort();
	}
	dec[nr_dec++] = d;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const kernels[] = { "6.1", "6.12", "6.18" };
	const char *td = getenv("TESTDATA"), *shared = getenv("HSCTL_SHARED");
	long page = sysconf(_SC_PAGESIZE);
	char base[PATH_MAX];
	size_t i;

	(void)argc;
	(void)argv;
	snprintf(base, sizeof(base), "%s/decode", td && *td ? td : FUZZ_TESTDATA);
	for (i = 0; i < 3; i++)
		open_one(base, kernels[i]);
	if (shared && *shared) {
		snprintf(base, sizeof(base), "%s/fixtures/tracefs", shared);
		if (access(base, R_OK) == 0)
			for (i = 0; i < 3; i++)
				open_one(base, kernels[i]);
	}
	region = mmap(NULL, REGION + (size_t)page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || mprotect(region + REGION, (size_t)page, PROT_NONE)) {
		perror("fuzz-decode: mmap");
		abort();
	}
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static int collect(void *arg, const struct hs_event *ev)
{
	struct seen *s = arg;

	s->n++;
	FUZZ_CHECK(ev->cpu == CPU, "event on cpu %u", ev->cpu);
	if (ev->type == HS_EV_LOST) {
		FUZZ_CHECK(s->n == 1, "HS_EV_LOST as event %zu", s->n);
	} else {
		FUZZ_CHECK(ev->type > HS_EV_NONE && ev->type < HS_EV_NR &&
			   ev->type != HS_EV_TOUCH && hs_decoder_has(s->d, ev->type),
			   "event of type %u", ev->type);
		s->data++;
	}
	s->hash = mix(s->hash, ev->type);
	s->hash = mix(s->hash, ev->ts_ns);
	s->hash = mix(s->hash, (uint64_t)ev->pid);
	s->hash = mix(s->hash, ev->pfn ^ ev->ino ^ ev->index ^ ev->a ^ ev->b ^ ev->c);
	return s->stop && s->n == s->stop;
}

/* The buffer's bytes at the end of the region: nothing after them can be read. */
static const uint8_t *place(const uint8_t *data, size_t size)
{
	uint8_t *p = region + REGION - size;

	memcpy(p, data, size);
	return p;
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void check(struct hs_decoder *d, const uint8_t *data, size_t size)
{
	struct seen s = { .d = d }, t = { .d = d };
	struct hs_decoder_stats before, after;
	uint64_t commit;
	size_t cut;
	int ret;

	hs_decoder_get_stats(d, &before);
	ret = hs_decoder_subbuf(d, place(data, size), size, CPU, collect, &s);
	hs_decoder_get_stats(d, &after);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG, "hs_decoder_subbuf() = %d", ret);
	if (ret) {
		FUZZ_CHECK(s.n == 0, "-EBADMSG after %zu events were delivered", s.n);
		FUZZ_CHECK(after.bad == before.bad + 1 && after.subbufs == before.subbufs &&
			   after.records == before.records, "statistics of a bad sub-buffer");
		return;
	}
	FUZZ_CHECK(after.subbufs == before.subbufs + 1 && after.bad == before.bad &&
		   after.records - before.records == s.data,
		   "statistics: %llu records counted, %zu delivered",
		   (unsigned long long)(after.records - before.records), s.data);

	/* Stopped by the callback: exactly that many events, its value returned. */
	if (s.n) {
		t.stop = 1 + size % s.n;
		ret = hs_decoder_subbuf(d, place(data, size), size, CPU, collect, &t);
		FUZZ_CHECK(ret == 1 && t.n == t.stop, "stopped at event %zu: %d after %zu",
			   t.stop, ret, t.n);
	}

	/*
	 * x86-64 layout (all three kernels): time stamp, 8-byte commit word,
	 * records from byte 16; a stored missed count follows them.
	 */
	commit = get_le(data + 8, 8);
	cut = 16 + (commit & ((1u << 27) - 1)) + ((commit & (1u << 30)) ? 8 : 0);
	FUZZ_CHECK(cut <= size, "accepted with a commit word of %#llx in %zu bytes",
		   (unsigned long long)commit, size);
	memset(&t, 0, sizeof(t));
	t.d = d;
	ret = hs_decoder_subbuf(d, place(data, cut), cut, CPU, collect, &t);
	FUZZ_CHECK(ret == 0 && t.n == s.n && t.hash == s.hash, "cut after the committed data"
		   " (%zu of %zu bytes): %d, %zu events instead of %zu", cut, size, ret, t.n,
		   s.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	if (size > REGION)
		return 0;
	for (i = 0; i < nr_dec; i++)
		check(dec[i], data, size);
	return 0;
}
