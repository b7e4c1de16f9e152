/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz harness for the trace readers of `hsctl import` (lib/trace-in.c).  It
 * is built once per format, FUZZ_TRACE_TYPE naming it (fuzz-trace-text,
 * -lirs, -lis, -csv, -oracle, -u32be), so each reader has its own corpus of
 * plain files and gets its own time.  The input is the whole file: the reader
 * opens it by path, so it is written to a memfd and opened through
 * /proc/self/fd; a file starting with the gzip magic goes through the
 * reader's inflate path, as a .gz import does.
 *
 * Whatever the bytes, the reader must keep its contract (trace-in.h): every
 * call gives 1, 0 after at least one record, or one of the documented errors
 * with a message naming the file, and then keeps giving that error; it never
 * returns more than max_records records; the meta byte is the one asked for.
 * Where the answer is easy to know, it is checked too: plain text and lirs
 * against a line parser written here, oracle and u32be against the records'
 * bytes, lis forward against lis reverse (the same ranges, each the other way
 * round), csv with and without a header line.  And a plain input read again
 * gzip-compressed, as two members (its halves), must give the same records
 * and the same error with the same message: gzip is read transparently.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz.h"
#include "trace-in.h"

#ifndef FUZZ_TRACE_TYPE
#error "build with -DFUZZ_TRACE_TYPE=HS_TRACE_..."
#endif

#define MAX_RECORDS	(1u << 16)	/* a .lis line may ask for 2^24 blocks */
#define META		0x11		/* PT, write: any byte will do */

static int mfd = -1;
static char path[64];

/* The outcome of reading the whole input once. */
struct run {
	uint64_t	n;		/* records */
	uint64_t	sum;		/* of their keys, mod 2^64 */
	uint64_t	*keys;		/* the first MAX_RECORDS keys */
	int		end;		/* the last return: 0 or a negative errno */
	char		msg[512];
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mfd = memfd_create("fuzz-trace", 0);
	if (mfd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	return 0;
}

static void run(const struct hs_trace_opts *o, size_t size, struct run *out)
{
	struct hs_trace_reader *r;
	uint64_t key, done, total;
	uint8_t meta;
	int ret;

	out->n = out->sum = 0;
	ret = hs_trace_open(path, o, &r);
	FUZZ_CHECK(ret == 0, "hs_trace_open(%s) = %d", path, ret);
	while ((ret = hs_trace_next(r, &key, &meta)) == 1) {
		FUZZ_CHECK(meta == META, "meta %#x, asked for %#x", meta, META);
		FUZZ_CHECK(out->n < MAX_RECORDS, "more than max_records records");
		out->keys[out->n++] = key;
		out->sum += key;
		FUZZ_CHECK(hs_trace_records(r) == out->n, "hs_trace_records() %llu, %llu read",
			   (unsigned long long)hs_trace_records(r), (unsigned long long)out->n);
	}
	hs_trace_progress(r, &done, &total);
	FUZZ_CHECK(total == size && done <= total, "progress %llu of %llu, file %zu bytes",
		   (unsigned long long)done, (unsigned long long)total, size);
	out->end = ret;
	snprintf(out->msg, sizeof(out->msg), "%s", hs_trace_errmsg(r));
	switch (ret) {
	case 0:
		FUZZ_CHECK(out->n > 0, "end of input without a record and without -ENODATA");
		FUZZ_CHECK(!out->msg[0], "message \"%s\" without an error", out->msg);
		break;
	case -ENODATA:
		FUZZ_CHECK(out->n == 0, "-ENODATA after %llu records", (unsigned long long)out->n);
		/* fall through */
	case -EBADMSG:
	case -EFBIG:
		FUZZ_CHECK(ret != -EFBIG || out->n == MAX_RECORDS, "-EFBIG after %llu records",
			   (unsigned long long)out->n);
		FUZZ_CHECK(!strncmp(out->msg, path, strlen(path)) && out->msg[strlen(path)] == ':',
			   "error %d, message \"%s\" does not start with the file", ret, out->msg);
		FUZZ_CHECK(hs_trace_next(r, &key, &meta) == ret, "error %d is not sticky", ret);
		break;
	default:
		FUZZ_CHECK(0, "hs_trace_next() = %d (%s)", ret, out->msg);
	}
	hs_trace_close(r);
}

/*
 * The import's batch path: hs_trace_next_many() in batches of @batch gives
 * the same records, the same end and the same message as @a, read one by one.
 */
static void check_many(const struct hs_trace_opts *o, const struct run *a, size_t batch)
{
	static uint64_t keys[MAX_RECORDS + 4096];	/* room for a whole batch past the limit */
	struct hs_trace_reader *r;
	uint64_t n = 0;
	uint8_t meta;
	long got;

	FUZZ_CHECK(hs_trace_open(path, o, &r) == 0, "hs_trace_open(%s)", path);
	while ((got = hs_trace_next_many(r, keys + n, batch, &meta)) > 0) {
		FUZZ_CHECK((size_t)got <= batch && meta == META, "batch of %ld, meta %#x", got, meta);
		n += (uint64_t)got;
		FUZZ_CHECK(n <= MAX_RECORDS, "more than max_records records in batches");
	}
	FUZZ_CHECK(got == a->end && n == a->n && !memcmp(keys, a->keys, n * sizeof(*keys)) &&
		   !strcmp(hs_trace_errmsg(r), a->msg), "batches of %zu: %llu records, end %ld"
		   " (%s); one by one: %llu, end %d (%s)", batch, (unsigned long long)n, got,
		   hs_trace_errmsg(r), (unsigned long long)a->n, a->end, a->msg);
	hs_trace_close(r);
}

/* Plain text or lirs, as trace-in.h describes them.  Return: records, or -1 for bad data. */
static long ref_text(const uint8_t *p, size_t size, uint64_t *keys, bool lirs)
{
	const uint8_t *end = p + size;
	long n = 0;

	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		const uint8_t *e = nl ? nl : end, *s = p;
		uint64_t v = 0;

		if ((size_t)(e - p) > HS_TRACE_MAX_LINE)
			return -1;
		p = nl ? nl + 1 : end;
		while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (s == e || (lirs && e - s == 1 && *s == '*'))
			continue;
		for (; s < e; s++) {
			if (*s < '0' || *s > '9')
				return -1;
			if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
				return -1;
			v = v * 10 + (uint64_t)(*s - '0');
		}
		if (n == MAX_RECORDS)
			return -1;
		keys[n++] = v;
	}
	return n;
}

/* Plain text and lirs: the reader and the reference parser agree. */
static void check_text(const uint8_t *data, size_t size, const struct run *a, uint64_t *ref)
{
	long n = ref_text(data, size, ref, FUZZ_TRACE_TYPE == HS_TRACE_LIRS);

	if (n <= 0) {
		FUZZ_CHECK(a->end < 0, "%llu records where the reference finds %s",
			   (unsigned long long)a->n, n ? "bad data" : "none");
		return;
	}
	FUZZ_CHECK(a->end == 0 && a->n == (uint64_t)n, "%llu records, end %d (%s), the"
		   " reference reads %ld", (unsigned long long)a->n, a->end, a->msg, n);
	FUZZ_CHECK(!memcmp(a->keys, ref, (size_t)n * sizeof(*ref)),
		   "keys differ from the reference's");
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * u32be's text sniff, written again from its definition (trace-in.h): the
 * first 4096 bytes (all, if fewer) are printable ASCII, tabs and line ends,
 * with at least one newline.
 */
static bool ref_looks_text(const uint8_t *data, size_t size)
{
	size_t i, n = size < 4096 ? size : 4096;
	bool nl = false;

	for (i = 0; i < n; i++) {
		if (data[i] == '\n')
			nl = true;
		else if ((data[i] < 0x20 || data[i] > 0x7e) && data[i] != '\t' && data[i] != '\r')
			return false;
	}
	return nl;
}

/* oracle and u32be: the keys are the records' bytes; a partial record is an error. */
static void check_binary(const uint8_t *data, size_t size, const struct run *a)
{
	unsigned int rec = FUZZ_TRACE_TYPE == HS_TRACE_ORACLE ? 24 : 4;
	uint64_t i;

	if (size % rec)
		FUZZ_CHECK(a->end < 0, "%zu bytes, not whole records, accepted", size);
	else if (rec == 4 && size && a->end != -EFBIG)
		FUZZ_CHECK(a->end == 0, "%zu bytes of u32be: end %d (%s)", size, a->end, a->msg);
	for (i = 0; i < a->n; i++) {
		const uint8_t *p = data + i * rec;
		uint64_t want = rec == 24 ? get_le(p + 4, 8) :
			(uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];

		FUZZ_CHECK(a->keys[i] == want, "record %llu: key %llu, its bytes say %llu",
			   (unsigned long long)i, (unsigned long long)a->keys[i],
			   (unsigned long long)want);
	}
}

/* @n bytes as one gzip member at @out (small window and state: cheap).  Return: its bytes. */
static size_t gzip_member(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream zs;
	size_t len;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 1, Z_DEFLATED, 9 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	FUZZ_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END, "deflate of %zu bytes", n);
	len = cap - zs.avail_out;
	deflateEnd(&zs);
	return len;
}

/* The plain input again as two gzip members: the same answer, word for word. */
static void check_gzip(const uint8_t *data, size_t size, const struct run *a)
{
	static uint64_t k3[MAX_RECORDS];
	struct hs_trace_opts o = {
		.type = FUZZ_TRACE_TYPE,
		.meta = META,
		.max_records = MAX_RECORDS,
	};
	struct run g = { .keys = k3 };
	size_t half = size / 2, cap = 2 * (compressBound((uLong)size) + 64), len;
	uint8_t *gz = malloc(cap);

	if (!gz)
		abort();
	len = gzip_member(data, half, gz, cap);
	len += gzip_member(data + half, size - half, gz + len, cap - len);
	if (ftruncate(mfd, 0) || pwrite(mfd, gz, len, 0) != (ssize_t)len) {
		perror("memfd");
		abort();
	}
	free(gz);
	run(&o, len, &g);
	FUZZ_CHECK(g.end == a->end && !strcmp(g.msg, a->msg), "plain ends %d (%s), gzip %d"
		   " (%s)", a->end, a->msg, g.end, g.msg);
	FUZZ_CHECK(g.n == a->n && !memcmp(g.keys, a->keys, g.n * sizeof(*k3)),
		   "plain %llu records, gzip %llu or other keys", (unsigned long long)a->n,
		   (unsigned long long)g.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t k1[MAX_RECORDS], k2[MAX_RECORDS];
	struct hs_trace_opts o = {
		.type = FUZZ_TRACE_TYPE,
		.meta = META,
		.max_records = MAX_RECORDS,
	};
	struct run a = { .keys = k1 }, b = { .keys = k2 };
	bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;

	if (ftruncate(mfd, 0) || (size && pwrite(mfd, data, size, 0) != (ssize_t)size)) {
		perror("memfd");
		abort();
	}
	run(&o, size, &a);
	check_many(&o, &a, 1 + size % 7);
	check_many(&o, &a, 4096);
	switch (FUZZ_TRACE_TYPE) {
	case HS_TRACE_TEXT:
	case HS_TRACE_LIRS:
		if (!gz)
			check_text(data, size, &a, k2);
		break;
	case HS_TRACE_LIS:
		/* Reverse hands out each range the other way round: same count, same sum. */
		o.lis_reverse = true;
		run(&o, size, &b);
		FUZZ_CHECK(a.end == b.end && !strcmp(a.msg, b.msg), "forward ends %d (%s),"
			   " reverse %d (%s)", a.end, a.msg, b.end, b.msg);
		if (a.end != -EFBIG)
			FUZZ_CHECK(a.n == b.n && a.sum == b.sum, "forward %llu records, reverse"
				   " %llu", (unsigned long long)a.n, (unsigned long long)b.n);
		break;
	case HS_TRACE_CSV:
		/* Column 2 after a header line: the header's fields are never looked at. */
		o.csv_column = 2;
		o.csv_header = true;
		run(&o, size, &b);
		break;
	default:
		if (gz)
			break;
		if (FUZZ_TRACE_TYPE == HS_TRACE_U32BE && ref_looks_text(data, size)) {
			/* Refused as text given the wrong --type; --force reads the bytes. */
			FUZZ_CHECK(a.end == -EBADMSG && a.n == 0, "text read as u32be: %llu"
				   " records, end %d (%s)", (unsigned long long)a.n, a.end, a.msg);
			o.force = true;
			run(&o, size, &b);
			check_binary(data, size, &b);
			break;
		}
		check_binary(data, size, &a);
		break;
	}
	if (!gz)	/* last: it rewrites the file */
		check_gzip(data, size, &a);
	return 0;
}
