/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the build from the spool (lib/recbuild.c), offline, on
 * temporary-file stores.  Touch-only spools with hand-checked streams and
 * key identities (anon and file touches, a truncated touch blob, bad flags);
 * the real sub-buffer testdata/decode/6.12-cpu1-page655.bin (106 records,
 * the last one the add of ino 0xc index 22336) spooled alone, twice with a
 * corrupt sub-buffer between the copies, with its second copy moved a second
 * later by its header time stamp, in reverse time order, and as two CPUs
 * 3 us apart whose merge is checked against an independent sort; a kernel
 * event and a touch at the same time stamp; decoders made from saved format
 * files and the errors of that path.  With $HSCTL_SHARED: the whole 6.12
 * capture (raw-cpu0.bin and raw-cpu1.bin, 38480 + 64403 records, the
 * kernel's "entries:" counts that tests/t-decode.c checks) built with the
 * fixture's decoder and again from saved formats.  T_VERBOSE=1 also prints
 * the build speed of the capture.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "decode.h"
#include "event.h"
#include "harness.h"
#include "life.h"
#include "lifecycle.h"
#include "recbuild.h"
#include "store.h"
#include "workload.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SUBBUF		4096		/* sub-buffer size of the fixtures */
#define PAGE655_N	106		/* records in page 655 (its .txt has 106 lines) */
#define PAGE655_LAST_INDEX 22336	/* its last record: add ofs=91488256 = 22336 * 4096 */
#define KDEV(maj, min)	((uint64_t)(maj) << 20 | (min))
#define SEC		1000000000ull

static char scratch[64];	/* this run's directory; TMPDIR points at scratch/tmp */
static int db_seq;		/* numbers the stores */

/* ---- files, stores, queries ---- */

static void *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(fp);
	return buf;
}

static const char *tdpath(const char *rel)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/decode/%s", t_testdata(), rel);
	return p[k];
}

static struct hs_store *new_store(void)
{
	struct hs_store *st = NULL;
	char path[128];
	int err;

	snprintf(path, sizeof(path), "%s/t%d.db", scratch, ++db_seq);
	err = hs_store_open(path, 0, &st);
	if (err) {
		t_fail(__FILE__, __LINE__, "hs_store_open(%s): %d %s", path, err,
		       st ? hs_store_errmsg(st) : "");
		hs_store_close(st);
		return NULL;
	}
	return st;
}

/* A new recording; returns its session id or 0. */
static int64_t new_recording(struct hs_store *st)
{
	const struct hs_record_meta m = {
		.name = "t-recbuild", .origin = "tests/t-recbuild", .kind = "file",
		.channel = "fd", .visibility = "exact", .kernel = "6.12", .lru_gen = "absent",
		.clock = "mono", .instance = "hsctl_test", .page_size = 4096,
		.events_json = "[]",
	};
	int64_t id = 0;
	int err = hs_record_create(st, &m, &id);

	if (err) {
		t_fail(__FILE__, __LINE__, "hs_record_create: %d %s", err, hs_store_errmsg(st));
		return 0;
	}
	return id;
}

static void spool(struct hs_store *st, int64_t id, int cpu, uint64_t seq, const void *data,
		  size_t len)
{
	int err = hs_spool_add(st, id, cpu, seq, data, len);

	if (err)
		t_fail(__FILE__, __LINE__, "hs_spool_add(cpu %d, seq %" PRIu64 "): %d %s", cpu, seq,
		       err, hs_store_errmsg(st));
}

static void opts_init(struct hs_recbuild_opts *o, int64_t id, struct hs_decoder *d)
{
	memset(o, 0, sizeof(*o));
	o->decoder = d;
	o->meta.source = "record";
	o->meta.origin = "tests/t-recbuild";
	o->meta.unit = "page";
	o->meta.kind = "file";
	o->meta.channel = "fd";
	o->meta.visibility = "exact";
	o->meta.id = id;
}

/* hs_recbuild() and commit; returns its value. */
static int build(struct hs_store *st, const struct hs_recbuild_opts *o,
		 struct hs_lifecycle_checks *ck, struct hs_recbuild_result *res)
{
	struct hs_session_writer *w = (void *)1;
	char err[256] = "untouched";
	int64_t id = 0;
	int ret;

	ret = hs_recbuild(st, o, &w, ck, res, err, sizeof(err));
	if (ret) {
		T_ASSERT(w == NULL);
		T_ASSERT(err[0] && strcmp(err, "untouched"));
		return ret;
	}
	T_ASSERT(w != NULL);
	if (!w)
		return -EFAULT;
	ret = hs_session_commit(w, &id);
	if (ret)
		t_fail(__FILE__, __LINE__, "commit: %d %s", ret, hs_store_errmsg(st));
	T_EQ_I64(id, o->meta.id);
	return ret;
}

static int int_cb(const struct hs_sql_row *row, void *arg)
{
	int64_t *v = arg;

	v[1]++;
	if (row->ncols && row->types[0] == HS_SQL_INT)
		v[0] = row->ints[0];
	else
		v[0] = INT64_MIN;
	return 0;
}

/* The single integer a query returns; INT64_MIN when NULL, not one row, or failed. */
static int64_t q_int(struct hs_store *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int64_t q_int(struct hs_store *st, const char *fmt, ...)
{
	int64_t v[2] = { INT64_MIN, 0 };
	char sql[1024];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	err = hs_store_query(st, sql, int_cb, v);
	if (err) {
		t_fail(__FILE__, __LINE__, "%s: %d %s", sql, err, hs_store_errmsg(st));
		return INT64_MIN;
	}
	return v[1] == 1 ? v[0] : INT64_MIN;
}

/**
 * struct text - rows of a query as "a|b;c|d"
 */
struct text {
	char	buf[2048];	/* the rows */
	int	rows;		/* rows seen */
};

static int text_cb(const struct hs_sql_row *row, void *arg)
{
	struct text *t = arg;
	size_t len = strlen(t->buf);

	for (size_t i = 0; i < row->ncols && len < sizeof(t->buf); i++) {
		const char *sep = i ? "|" : (t->rows ? ";" : "");

		if (row->types[i] == HS_SQL_INT)
			len += (size_t)snprintf(t->buf + len, sizeof(t->buf) - len, "%s%" PRId64,
						sep, row->ints[i]);
		else if (row->types[i] == HS_SQL_NULL)
			len += (size_t)snprintf(t->buf + len, sizeof(t->buf) - len, "%sNULL", sep);
		else if (row->types[i] == HS_SQL_REAL)
			len += (size_t)snprintf(t->buf + len, sizeof(t->buf) - len, "%s%g", sep,
						row->reals[i]);
		else
			len += (size_t)snprintf(t->buf + len, sizeof(t->buf) - len, "%s%s", sep,
						row->texts[i]);
	}
	t->rows++;
	return 0;
}

static const char *q_text(struct hs_store *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *q_text(struct hs_store *st, const char *fmt, ...)
{
	static struct text t;
	char sql[1024];
	va_list ap;
	int err;

	memset(&t, 0, sizeof(t));
	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	err = hs_store_query(st, sql, text_cb, &t);
	if (err)
		t_fail(__FILE__, __LINE__, "%s: %d %s", sql, err, hs_store_errmsg(st));
	return t.buf;
}

/* The session's stream: up to @max records into keys/meta; returns the count. */
static size_t read_stream(struct hs_store *st, int64_t id, uint32_t *keys, uint8_t *meta,
			  size_t max)
{
	struct hs_session_reader *r = NULL;
	const uint32_t *k;
	const uint8_t *m;
	size_t n, total = 0;
	int ret;

	ret = hs_session_read_open(st, id, &r);
	T_EQ_I64(ret, 0);
	if (ret)
		return 0;
	while ((ret = hs_session_read_chunk(r, &k, &m, &n)) == 1) {
		for (size_t i = 0; i < n; i++, total++) {
			if (total < max) {
				keys[total] = k[i];
				meta[total] = m[i];
			}
		}
	}
	T_EQ_I64(ret, 0);
	hs_session_read_close(r);
	return total;
}

/* Entries left in $TMPDIR (the builder writes none: it decodes the saved formats in memory). */
static int tmp_entries(void)
{
	struct dirent *e;
	char path[96];
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/tmp", scratch);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* ---- touches ---- */

static void put_touch(uint8_t *p, uint64_t ts, uint64_t page, uint32_t flags)
{
	struct hs_touch t = { .ts_ns = ts, .page = page, .flags = flags, .pad = 0 };

	memcpy(p, &t, sizeof(t));
}

static struct hs_decoder *dec_6_12(void)
{
	struct hs_decoder *d = NULL;
	int err = hs_decoder_open(tdpath("6.12"), HS_DEC_ALL, &d);

	if (err) {
		t_fail(__FILE__, __LINE__, "hs_decoder_open(6.12): %d %s", err,
		       d ? hs_decoder_errmsg(d) : "");
		hs_decoder_free(d);
		return NULL;
	}
	return d;
}

/*
 * Anonymous touches of pages 10, 11, 10 (the second one a write) by pid 42:
 * keys 0, 1, 0 in order of first use; meta PT | ANON = 0x09, with WRITE 0x19.
 */
static void test_touch_anon(void)
{
	struct hs_lifecycle_checks ck;
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t blob[3 * 24], meta[8];
	uint32_t keys[8];
	int64_t id;

	if (!st || !d)
		goto out;
	id = new_recording(st);
	put_touch(blob, 1000, 10, HS_TOUCH_ANON);
	put_touch(blob + 24, 2000, 11, HS_TOUCH_ANON | HS_TOUCH_WRITE);
	put_touch(blob + 48, 3000, 10, HS_TOUCH_ANON);
	spool(st, id, HS_SPOOL_TOUCHES, 0, blob, sizeof(blob));
	opts_init(&o, id, d);
	o.meta.kind = "anon";
	o.meta.channel = "pt";
	o.workload_pid = 42;
	o.touch_only = true;
	T_EQ_I64(build(st, &o, &ck, &res), 0);
	T_EQ_U64(res.events, 0);
	T_EQ_U64(res.touches, 3);
	T_EQ_U64(res.gaps, 0);
	T_EQ_U64(res.bad_subbufs, 0);
	T_EQ_U64(res.bad_touches, 0);
	T_EQ_U64(res.lives, 0);
	T_EQ_U64(res.keys, 2);
	T_EQ_U64(res.rows, 2);		/* no events stored (touches never are), 2 keys */
	T_EQ_U64(res.first_ts, 1000);
	T_EQ_U64(res.last_ts, 3000);
	T_EQ_U64(ck.accesses, 3);
	T_EQ_U64(read_stream(st, id, keys, meta, 8), 3);
	T_EQ_U64(keys[0], 0);
	T_EQ_U64(keys[1], 1);
	T_EQ_U64(keys[2], 0);
	T_EQ_U64(meta[0], HS_CH_PT | HS_META_ANON);
	T_EQ_U64(meta[1], HS_CH_PT | HS_META_ANON | HS_META_WRITE);
	T_EQ_U64(meta[2], HS_CH_PT | HS_META_ANON);
	T_EQ_STR(q_text(st, "SELECT key, kind, tgid, page FROM record_keys WHERE session = %"
			PRId64 " ORDER BY key", id), "0|1|42|10;1|1|42|11");
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id), 0);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM folio_lives WHERE session = %" PRId64, id), 0);
	/* the four checks and the counters are stored even for an empty build */
	T_EQ_STR(q_text(st, "SELECT name, status, got, want FROM record_checks WHERE session = %"
			PRId64 " ORDER BY name", id),
		 "lost|ok|0|0;pageout|n/a|0|0;pfn-join|n/a|0|0;reclaim|n/a|0|0");
	T_EQ_I64(q_int(st, "SELECT after FROM record_counters WHERE session = %" PRId64
		       " AND file = 'lifecycle' AND scope = 'session' AND name = 'accesses'", id),
		 3);
	/* ... and the two of readahead inference: this decoder has no readahead events */
	T_EQ_I64(q_int(st, "SELECT count(*) FROM record_counters WHERE session = %" PRId64
		       " AND file = 'lifecycle'", id), 3 + 5 + 36 + 2);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/*
 * A touch-only recording of file touches of pages 5, 6, 5 of dev 8:1 ino
 * 1234 at 500, 600, 700 with flags @fl[0..2], spooled as one blob of the
 * first @split bytes and, when shorter than the three, one of the rest;
 * built into *@res.  Return: the session, or 0 when the build failed.
 */
static int64_t file_touches(struct hs_store *st, struct hs_decoder *d, const uint32_t fl[3],
			    size_t split, struct hs_recbuild_result *res)
{
	struct hs_recbuild_opts o;
	uint8_t blob[3 * 24];
	int64_t id = new_recording(st);

	put_touch(blob, 500, 5, fl[0]);
	put_touch(blob + 24, 600, 6, fl[1]);
	put_touch(blob + 48, 700, 5, fl[2]);
	spool(st, id, HS_SPOOL_TOUCHES, 0, blob, split);
	if (split < sizeof(blob))
		spool(st, id, HS_SPOOL_TOUCHES, 1, blob + split, sizeof(blob) - split);
	opts_init(&o, id, d);
	o.workload_pid = 4242;
	o.touch_only = true;
	o.touch_dev = KDEV(8, 1);
	o.touch_ino = 1234;
	T_EQ_I64(build(st, &o, NULL, res), 0);
	return t_case_failed() ? 0 : id;
}

/*
 * File touches through read() (FD) of pages 5, 6, 5 of dev 8:1 ino 1234,
 * the last a write: keys 0, 1, 0; meta FD = 0x00 and FD | WRITE = 0x10.
 */
static void test_touch_fd(void)
{
	static const uint32_t fl[3] = { HS_TOUCH_FD, HS_TOUCH_FD, HS_TOUCH_FD | HS_TOUCH_WRITE };
	struct hs_recbuild_result res;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t meta[8];
	uint32_t keys[8];
	int64_t id;

	/* two blobs: the stream goes on across them */
	if (!st || !d || !(id = file_touches(st, d, fl, 48, &res)))
		goto out;
	T_EQ_U64(res.touches, 3);
	T_EQ_U64(res.keys, 2);
	T_EQ_U64(read_stream(st, id, keys, meta, 8), 3);
	T_EQ_U64(keys[0], 0);
	T_EQ_U64(keys[1], 1);
	T_EQ_U64(keys[2], 0);
	T_EQ_U64(meta[0], HS_CH_FD);
	T_EQ_U64(meta[1], HS_CH_FD);
	T_EQ_U64(meta[2], HS_CH_FD | HS_META_WRITE);
	/* 8:1 in the kernel's encoding: 8 << 20 | 1 = 8388609 */
	T_EQ_STR(q_text(st, "SELECT key, kind, dev, ino, page FROM record_keys WHERE session = %"
			PRId64 " ORDER BY key", id), "0|0|8388609|1234|5;1|0|8388609|1234|6");
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/*
 * File touches through a mapping (PT) of pages 5 and 6, the second in a
 * part advised MADV_RANDOM (HS_TOUCH_NORECENCY), then page 5 again: meta
 * PT = 0x01, PT | NORECENCY = 0x21, PT.
 */
static void test_touch_norecency(void)
{
	static const uint32_t fl[3] = { 0, HS_TOUCH_NORECENCY, 0 };
	struct hs_recbuild_result res;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t meta[8];
	uint32_t keys[8];
	int64_t id;

	if (!st || !d || !(id = file_touches(st, d, fl, 3 * 24, &res)))
		goto out;
	T_EQ_U64(res.touches, 3);
	T_EQ_U64(res.bad_touches, 0);
	T_EQ_U64(read_stream(st, id, keys, meta, 8), 3);
	T_EQ_U64(keys[0], 0);
	T_EQ_U64(keys[1], 1);
	T_EQ_U64(keys[2], 0);
	T_EQ_U64(meta[0], HS_CH_PT);
	T_EQ_U64(meta[1], HS_CH_PT | HS_META_NORECENCY);
	T_EQ_U64(meta[2], HS_CH_PT);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/*
 * Malformed touches.  The unit of bad_touches is a record: a blob whose
 * length is not a multiple of 24 loses its tail, which counts as one bad
 * record; so does a whole record with unknown flag bits, with both ANON
 * and FD, or with NORECENCY on an FD touch.  A 50-byte blob: 2 touches and
 * a 2-byte tail (1 bad); a 96-byte blob whose second record says ANON | FD,
 * whose third has flag 0x100 and whose last says FD | NORECENCY: 4 records
 * read, 3 bad, 1 streamed.
 */
static void test_touch_bad(void)
{
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t blob[96], meta[8];
	uint32_t keys[8];
	int64_t id;

	if (!st || !d)
		goto out;
	id = new_recording(st);
	memset(blob, 0xee, sizeof(blob));
	put_touch(blob, 100, 7, HS_TOUCH_ANON);
	put_touch(blob + 24, 200, 8, HS_TOUCH_ANON);
	spool(st, id, HS_SPOOL_TOUCHES, 0, blob, 50);
	put_touch(blob, 300, 9, HS_TOUCH_ANON);
	put_touch(blob + 24, 400, 9, HS_TOUCH_ANON | HS_TOUCH_FD);
	put_touch(blob + 48, 500, 9, 0x100);
	put_touch(blob + 72, 600, 9, HS_TOUCH_FD | HS_TOUCH_NORECENCY);
	spool(st, id, HS_SPOOL_TOUCHES, 1, blob, 96);
	opts_init(&o, id, d);
	o.workload_pid = 7;
	o.touch_only = true;
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.touches, 6);
	T_EQ_U64(res.bad_touches, 4);
	T_EQ_U64(res.keys, 3);
	T_EQ_U64(read_stream(st, id, keys, meta, 8), 3);
	T_EQ_U64(keys[0], 0);
	T_EQ_U64(keys[1], 1);
	T_EQ_U64(keys[2], 2);
	T_EQ_STR(q_text(st, "SELECT group_concat(page) FROM (SELECT page FROM record_keys WHERE "
			"session = %" PRId64 " ORDER BY key)", id), "7,8,9");
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/* ---- the real sub-buffer ---- */

static int collect(void *arg, const struct hs_event *ev)
{
	struct hs_event *v = arg;
	size_t i = 0;

	while (v[i].type != HS_EV_NONE)
		i++;
	if (i >= PAGE655_N)
		return -E2BIG;
	v[i] = *ev;
	return 0;
}

/*
 * page 655 and its records as the decoder gives them (the reference the
 * build is compared with; the decoder itself is tested by t-decode).
 */
static uint8_t page655[SUBBUF];
static struct hs_event ref[PAGE655_N + 1];

static bool load_page655(struct hs_decoder *d)
{
	size_t len;
	void *p = slurp(tdpath("6.12-cpu1-page655.bin"), &len);
	int err;

	if (!p || len != SUBBUF) {
		t_fail(__FILE__, __LINE__, "cannot read page 655 (%zu bytes)", len);
		free(p);
		return false;
	}
	memcpy(page655, p, SUBBUF);
	free(p);
	memset(ref, 0, sizeof(ref));
	err = hs_decoder_subbuf(d, page655, SUBBUF, 1, collect, ref);
	T_EQ_I64(err, 0);
	T_EQ_U64(ref[PAGE655_N - 1].type, HS_EV_FILEMAP_ADD);
	T_EQ_U64(ref[PAGE655_N - 1].index, PAGE655_LAST_INDEX);
	T_EQ_U64(ref[PAGE655_N - 1].ino, 0xc);
	return !err && ref[PAGE655_N - 1].type == HS_EV_FILEMAP_ADD;
}

/* page 655 with its header time stamp (the first 8 bytes) moved by @delta ns */
static void shifted(uint8_t *out, uint64_t delta)
{
	uint64_t ts;

	memcpy(out, page655, SUBBUF);
	memcpy(&ts, out, sizeof(ts));
	ts += delta;
	memcpy(out, &ts, sizeof(ts));
}

/* Random bytes whose commit word (bytes 8..15) says 16 MiB: never a sub-buffer. */
static void garbage(uint8_t *out)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, commit = 1u << 24;

	for (size_t i = 0; i < SUBBUF; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out[i] = (uint8_t)x;
	}
	memcpy(out + 8, &commit, sizeof(commit));
}

/*
 * The header's time stamp moves every record: the shifted copy decodes to
 * the same records 1 s later (a property of the ring buffer's delta time
 * stamps, checked here so the tests below can rely on it).
 */
static void test_shift_property(void)
{
	static struct hs_event v[PAGE655_N + 1];
	struct hs_decoder *d = dec_6_12();
	uint8_t sb[SUBBUF];
	size_t i;

	if (!d || !load_page655(d))
		goto out;
	shifted(sb, SEC);
	memset(v, 0, sizeof(v));
	T_EQ_I64(hs_decoder_subbuf(d, sb, SUBBUF, 1, collect, v), 0);
	for (i = 0; i < PAGE655_N; i++)
		if (v[i].ts_ns != ref[i].ts_ns + SEC || v[i].type != ref[i].type)
			break;
	T_EQ_U64(i, PAGE655_N);
	garbage(sb);
	T_EQ_I64(hs_decoder_subbuf(d, sb, SUBBUF, 0, collect, v), -EBADMSG);
out:
	hs_decoder_free(d);
}

/* Columns of the events table row at @seq as "cpu|ts|type|a". */
static const char *event_at(struct hs_store *st, int64_t id, int64_t seq)
{
	return q_text(st, "SELECT cpu, ts_ns, type, a FROM events WHERE session = %" PRId64
		      " AND seq = %" PRId64, id, seq);
}

static const char *fmt_ev(unsigned int cpu, uint64_t ts, unsigned int type, int64_t a)
{
	static char s[128];

	snprintf(s, sizeof(s), "%u|%" PRIu64 "|%u|%" PRId64, cpu, ts, type, a);
	return s;
}

static int64_t counter(struct hs_store *st, int64_t id, const char *name)
{
	return q_int(st, "SELECT after FROM record_counters WHERE session = %" PRId64
		     " AND file = 'lifecycle' AND scope = 'session' AND name = '%s'", id, name);
}

/*
 * CPU 0's spool: page 655, a corrupt sub-buffer, page 655 again 1 s later.
 * 212 events decoded; the corrupt one is skipped (bad_subbufs 1) and marked
 * by a gap of unknown count (a = UINT64_MAX, stored as -1) at the time of
 * the first copy's last record, stored at seq 106; the second copy follows
 * at seq 107.  The lost check: 0 events of known count + 1 gap = 1, differs.
 */
static void corrupt_subbuf(bool one_row)
{
	struct hs_lifecycle_checks ck;
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t sb[SUBBUF], row[3 * SUBBUF];
	int64_t id;
	char want[128];

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	memcpy(row, page655, SUBBUF);
	garbage(sb);
	memcpy(row + SUBBUF, sb, SUBBUF);
	shifted(sb, SEC);
	memcpy(row + 2 * SUBBUF, sb, SUBBUF);
	if (one_row) {
		/* the recorder batches whole sub-buffers into one spool row */
		spool(st, id, 0, 0, row, sizeof(row));
	} else {
		spool(st, id, 0, 0, row, SUBBUF);
		spool(st, id, 0, 1, row + SUBBUF, SUBBUF);
		spool(st, id, 0, 2, row + 2 * SUBBUF, SUBBUF);
	}
	opts_init(&o, id, d);
	T_EQ_I64(build(st, &o, &ck, &res), 0);
	T_EQ_U64(res.events, 2 * PAGE655_N);
	T_EQ_U64(res.bad_subbufs, 1);
	T_EQ_U64(res.gaps, 1);
	T_EQ_U64(res.rows, 2 * PAGE655_N + 1 + res.lives + res.keys);
	T_EQ_U64(res.first_ts, ref[0].ts_ns);
	T_EQ_U64(res.last_ts, ref[PAGE655_N - 1].ts_ns + SEC);
	T_EQ_U64(ck.gaps, 1);
	T_EQ_U64(ck.gaps_uncounted, 1);
	T_EQ_U64(ck.unordered, 0);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id),
		 2 * PAGE655_N + 1);
	T_EQ_STR(event_at(st, id, 0), fmt_ev(0, ref[0].ts_ns, ref[0].type, (int64_t)ref[0].a));
	strcpy(want, fmt_ev(0, ref[PAGE655_N - 1].ts_ns, HS_EV_LOST, -1));
	T_EQ_STR(event_at(st, id, PAGE655_N), want);
	strcpy(want, fmt_ev(0, ref[0].ts_ns + SEC, ref[0].type, (int64_t)ref[0].a));
	T_EQ_STR(event_at(st, id, PAGE655_N + 1), want);
	T_EQ_STR(q_text(st, "SELECT status, got, want FROM record_checks WHERE session = %" PRId64
			" AND name = 'lost'", id), "differs|1|0");
	T_EQ_I64(counter(st, id, "gaps"), 1);
	T_EQ_I64(counter(st, id, "unordered"), 0);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

static void test_corrupt_subbuf(void)
{
	corrupt_subbuf(false);
}

/* The same three sub-buffers in one spool row: the same events, gap and checks. */
static void test_corrupt_in_row(void)
{
	corrupt_subbuf(true);
}

/*
 * A CPU whose time goes backwards (page 655 1 s late, then page 655): the
 * stream order is kept, and the builder counts all 106 records of the
 * second copy as unordered (each is older than the first copy's last).
 */
static void test_backwards(void)
{
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t sb[SUBBUF];
	char want[128];
	int64_t id;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	shifted(sb, SEC);
	spool(st, id, 1, 0, sb, SUBBUF);
	spool(st, id, 1, 1, page655, SUBBUF);
	opts_init(&o, id, d);
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.events, 2 * PAGE655_N);
	T_EQ_U64(res.first_ts, ref[0].ts_ns);
	T_EQ_U64(res.last_ts, ref[PAGE655_N - 1].ts_ns + SEC);
	strcpy(want, fmt_ev(1, ref[0].ts_ns + SEC, ref[0].type, (int64_t)ref[0].a));
	T_EQ_STR(event_at(st, id, 0), want);
	strcpy(want, fmt_ev(1, ref[0].ts_ns, ref[0].type, (int64_t)ref[0].a));
	T_EQ_STR(event_at(st, id, PAGE655_N), want);
	T_EQ_I64(counter(st, id, "unordered"), PAGE655_N);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/**
 * struct mref - one expected merged event
 */
struct mref {
	uint64_t	ts;		/* time stamp */
	unsigned int	cpu;		/* stream */
	unsigned int	pos;		/* position in its stream */
};

static int mref_cmp(const void *a, const void *b)
{
	const struct mref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/**
 * struct seqcheck - the events table read back in seq order against the expected order
 */
struct seqcheck {
	const struct mref *want;	/* expected (cpu, ts) per seq */
	size_t		n;		/* entries in want */
	size_t		seen;		/* rows read */
	size_t		bad;		/* rows that differ */
};

static int seq_cb(const struct hs_sql_row *row, void *arg)
{
	struct seqcheck *c = arg;

	if (c->seen < c->n && ((uint64_t)row->ints[0] != c->want[c->seen].cpu ||
			       (uint64_t)row->ints[1] != c->want[c->seen].ts)) {
		if (!c->bad)
			t_fail(__FILE__, __LINE__, "seq %zu: cpu %" PRId64 " ts %" PRId64
			       ", expected cpu %u ts %" PRIu64, c->seen, row->ints[0],
			       row->ints[1], c->want[c->seen].cpu, c->want[c->seen].ts);
		c->bad++;
	}
	c->seen++;
	return 0;
}

/*
 * Three CPUs: page 655 on CPUs 0 and 2, page 655 3 us later on CPU 1.  The
 * merge must equal a sort of all 318 records by (time stamp, cpu, position),
 * the reference order worked out here with qsort: CPUs 0 and 2 tie on every
 * record, and CPU 0 goes first; CPU 1 interleaves (records of page 655 are
 * mostly 5 to 500 us apart).
 */
static void test_merge_two_cpus(void)
{
	static struct mref want[3 * PAGE655_N];
	struct hs_recbuild_result res;
	struct seqcheck sc = { 0 };
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t sb[SUBBUF];
	size_t i, switches = 0;
	char sql[256];
	int64_t id;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	shifted(sb, 3000);
	/* CPU 1 first in the spool: the order of hs_spool_add must not matter */
	spool(st, id, 2, 0, page655, SUBBUF);
	spool(st, id, 1, 0, sb, SUBBUF);
	spool(st, id, 0, 0, page655, SUBBUF);
	for (i = 0; i < PAGE655_N; i++) {
		want[i] = (struct mref){ ref[i].ts_ns, 0, (unsigned int)i };
		want[PAGE655_N + i] = (struct mref){ ref[i].ts_ns + 3000, 1, (unsigned int)i };
		want[2 * PAGE655_N + i] = (struct mref){ ref[i].ts_ns, 2, (unsigned int)i };
	}
	qsort(want, 3 * PAGE655_N, sizeof(want[0]), mref_cmp);
	for (i = 1; i < 3 * PAGE655_N; i++)
		switches += want[i].cpu != want[i - 1].cpu;
	T_ASSERT(switches > 200);	/* the test means something: they do interleave */
	opts_init(&o, id, d);
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.events, 3 * PAGE655_N);
	sc.want = want;
	sc.n = 3 * PAGE655_N;
	snprintf(sql, sizeof(sql), "SELECT cpu, ts_ns FROM events WHERE session = %" PRId64
		 " ORDER BY seq", id);
	T_EQ_I64(hs_store_query(st, sql, seq_cb, &sc), 0);
	T_EQ_U64(sc.seen, 3 * PAGE655_N);
	T_EQ_U64(sc.bad, 0);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/*
 * A kernel event and a touch at the same time stamp: the kernel event goes
 * first.  Page 655's last record adds ino 0xc index 22336 (dev 253:0); a
 * touch of that page 1 ns before it finds no live folio (its earlier life
 * ended by the delete at 10.713186), a touch at the add's own time stamp
 * finds the new life: its accesses are 1.  Were the touch merged before the
 * add, they would be 0.
 */
static void test_touch_tie(void)
{
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	uint8_t blob[48];
	uint64_t t;
	int64_t id;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	t = ref[PAGE655_N - 1].ts_ns;
	put_touch(blob, t - 1, PAGE655_LAST_INDEX, HS_TOUCH_FD);
	put_touch(blob + 24, t, PAGE655_LAST_INDEX, HS_TOUCH_FD);
	spool(st, id, HS_SPOOL_TOUCHES, 0, blob, sizeof(blob));
	spool(st, id, 1, 0, page655, SUBBUF);
	opts_init(&o, id, d);
	o.touch_dev = KDEV(253, 0);
	o.touch_ino = 0xc;
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.events, PAGE655_N);
	T_EQ_U64(res.touches, 2);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id), PAGE655_N);
	T_EQ_STR(q_text(st, "SELECT accesses, died_ns IS NULL OR died_ns = 0 FROM folio_lives "
			"WHERE session = %" PRId64 " AND ino = 12 AND first_page = %d AND "
			"born_ns = %" PRIu64, id, PAGE655_LAST_INDEX, t), "1|1");
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/* no_events: nothing in the events table, the rest as usual */
static void test_no_events(void)
{
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	int64_t id;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	spool(st, id, 1, 0, page655, SUBBUF);
	opts_init(&o, id, d);
	o.no_events = true;
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.events, PAGE655_N);
	T_EQ_U64(res.rows, res.lives + res.keys);
	T_ASSERT(res.lives > 0);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id), 0);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM folio_lives WHERE session = %" PRId64, id),
		 (int64_t)res.lives);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/* ---- decoders from saved formats ---- */

static int save_file(struct hs_store *st, int64_t id, const char *dir, const char *rel)
{
	char path[600];
	size_t len;
	void *p;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	p = slurp(path, &len);
	if (!p) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		return -ENOENT;
	}
	err = hs_record_save_format(st, id, rel, p, len);
	free(p);
	if (err)
		t_fail(__FILE__, __LINE__, "save %s: %d %s", rel, err, hs_store_errmsg(st));
	return err;
}

/* walking a tracing dir's events/ for nftw(), which takes no argument */
static struct {
	struct hs_store	*st;		/* where to save */
	int64_t		id;		/* the session */
	const char	*dir;		/* the tracing dir */
	size_t		root;		/* length of its path */
	size_t		files;		/* files saved */
} walk;

static int save_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *rel = path + walk.root + 1;
	size_t len = strlen(rel);

	(void)sb;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (strcmp(rel, "events/header_page") &&
	    (len < 7 || strcmp(rel + len - 7, "/format")))
		return 0;
	if (save_file(walk.st, walk.id, walk.dir, rel))
		return 1;
	walk.files++;
	return 0;
}

/* Save a tracing dir's header_page and format files; returns how many. */
static size_t save_formats(struct hs_store *st, int64_t id, const char *dir)
{
	char events[600];

	walk.st = st;
	walk.id = id;
	walk.dir = dir;
	walk.root = strlen(dir);
	walk.files = 0;
	snprintf(events, sizeof(events), "%s/events", dir);
	if (nftw(events, save_one, 16, FTW_PHYS))
		t_fail(__FILE__, __LINE__, "saving the formats of %s failed", dir);
	return walk.files;
}

/*
 * page 655 decoded through the formats saved with the recording (o->decoder
 * NULL): the same 106 events; nothing is left in $TMPDIR.
 */
static void test_saved_formats(void)
{
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	int64_t id;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	T_ASSERT(save_formats(st, id, tdpath("6.12")) >= 2);
	spool(st, id, 1, 0, page655, SUBBUF);
	opts_init(&o, id, NULL);
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.events, PAGE655_N);
	T_EQ_U64(res.bad_subbufs, 0);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id), PAGE655_N);
	T_EQ_I64(tmp_entries(), 0);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/*
 * Errors: no saved formats (-ENOENT); formats without header_page
 * (-EBADMSG); a session that does not exist; each leaves no writer open
 * (a build afterwards works) and no temporary dir behind.
 */
static void test_errors(void)
{
	struct hs_recbuild_result res;
	struct hs_session_writer *w;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	char err[256];
	int64_t id, id2;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	spool(st, id, 1, 0, page655, SUBBUF);
	opts_init(&o, id, NULL);
	w = (void *)1;
	T_EQ_I64(hs_recbuild(st, &o, &w, NULL, NULL, err, sizeof(err)), -ENOENT);
	T_ASSERT(w == NULL);
	T_ASSERT(strstr(err, "no saved format") != NULL);

	/* a format file but no header_page */
	T_EQ_I64(save_file(st, id, tdpath("6.12"),
			   "events/filemap/mm_filemap_add_to_page_cache/format"), 0);
	T_EQ_I64(hs_recbuild(st, &o, &w, NULL, NULL, err, sizeof(err)), -EBADMSG);
	T_ASSERT(w == NULL);
	T_ASSERT(strstr(err, "header_page") != NULL);
	T_ASSERT(strstr(err, "hsctl-formats-") == NULL);
	T_EQ_I64(tmp_entries(), 0);

	/* no such session */
	id2 = new_recording(st);
	opts_init(&o, id2 + 100, d);
	T_ASSERT(hs_recbuild(st, &o, &w, NULL, NULL, err, sizeof(err)) < 0);
	T_ASSERT(w == NULL);

	/* bad arguments */
	T_EQ_I64(hs_recbuild(st, NULL, &w, NULL, NULL, err, sizeof(err)), -EINVAL);
	opts_init(&o, 0, d);
	T_EQ_I64(hs_recbuild(st, &o, &w, NULL, NULL, err, sizeof(err)), -EINVAL);

	/* nothing was left open: the first session still builds, with a decoder */
	opts_init(&o, id, d);
	T_EQ_I64(build(st, &o, NULL, &res), 0);
	T_EQ_U64(res.events, PAGE655_N);
	T_EQ_I64(tmp_entries(), 0);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/*
 * A store failure after the merge (the lives table dropped behind the
 * store's back): the whole build is rolled back, no writer is left open,
 * the session is still 'recording' and has no events, and the reason
 * names the lives.
 */
static void test_abort_mid_build(void)
{
	struct hs_session_info info;
	struct hs_session_writer *w;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = dec_6_12();
	struct hs_store *st = new_store();
	char err[256];
	int64_t id;
	int ret;

	if (!st || !d || !load_page655(d))
		goto out;
	id = new_recording(st);
	spool(st, id, 1, 0, page655, SUBBUF);
	T_EQ_I64(hs_store_query(st, "DROP VIEW IF EXISTS v_folio_lives; DROP TABLE folio_lives",
				NULL, NULL), 0);
	opts_init(&o, id, d);
	w = (void *)1;
	ret = hs_recbuild(st, &o, &w, NULL, NULL, err, sizeof(err));
	T_ASSERT(ret < 0);
	T_ASSERT(w == NULL);
	T_ASSERT(strstr(err, "lives") != NULL);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id), 0);
	T_EQ_I64(hs_session_get(st, id, &info), 0);
	T_EQ_STR(info.status, "recording");
	/* the store is usable: the spool is still there to read */
	T_EQ_I64(q_int(st, "SELECT count(*) FROM record_spool WHERE session = %" PRId64, id), 1);
out:
	hs_store_close(st);
	hs_decoder_free(d);
}

/* ---- the whole 6.12 capture ($HSCTL_SHARED) ---- */

static const char *fixture_6_12(void)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/fixtures/tracefs/6.12", t_shared());
	return p;
}

/* Spool raw-cpu<cpu>.bin of the 6.12 capture in 4096-byte sub-buffers; returns how many. */
static size_t spool_capture(struct hs_store *st, int64_t id, int cpu)
{
	char path[600];
	size_t len, off, n = 0;
	uint8_t *p;

	snprintf(path, sizeof(path), "%s/raw-cpu%d.bin", fixture_6_12(), cpu);
	p = slurp(path, &len);
	if (!p) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		return 0;
	}
	T_EQ_U64(len % SUBBUF, 0);
	T_EQ_I64(hs_store_tx_begin(st), 0);
	for (off = 0; off + SUBBUF <= len; off += SUBBUF)
		spool(st, id, cpu, n++, p + off, SUBBUF);
	T_EQ_I64(hs_store_tx_commit(st), 0);
	free(p);
	return n;
}

#define CAPTURE_EVENTS	(38480 + 64403)	/* stats-cpu0 + stats-cpu1 "entries:" */

/* What every build of the capture must show. */
static void check_capture(struct hs_store *st, int64_t id, const struct hs_recbuild_result *res,
			  const struct hs_lifecycle_checks *ck)
{
	int64_t lives;

	T_EQ_U64(res->events, CAPTURE_EVENTS);
	T_EQ_U64(res->gaps, 0);
	T_EQ_U64(res->bad_subbufs, 0);
	T_EQ_U64(res->touches, 0);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64, id),
		 CAPTURE_EVENTS);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64 " AND cpu = 0",
		       id), 38480);
	/* merged: time never goes back along seq */
	T_EQ_I64(q_int(st, "SELECT count(*) FROM (SELECT ts_ns, lag(ts_ns) OVER (ORDER BY seq) "
		       "AS prev FROM events WHERE session = %" PRId64 ") WHERE ts_ns < prev", id),
		 0);
	T_EQ_U64(ck->unordered, 0);
	/* lives by death cause add up to the lives; each stored */
	lives = q_int(st, "SELECT count(*) FROM folio_lives WHERE session = %" PRId64, id);
	T_EQ_I64(lives, (int64_t)res->lives);
	T_ASSERT(lives > 10000);
	T_EQ_I64(q_int(st, "SELECT sum(n) FROM (SELECT count(*) AS n FROM folio_lives WHERE "
		       "session = %" PRId64 " GROUP BY death_cause)", id), lives);
	T_EQ_I64(q_int(st, "SELECT sum(after) FROM record_counters WHERE session = %" PRId64
		       " AND file = 'lifecycle' AND name LIKE 'lives\\_%%' ESCAPE '\\'", id),
		 lives);
	T_EQ_U64(ck->lives[HS_LIFE_FILE] + ck->lives[HS_LIFE_ANON] + ck->lives[HS_LIFE_BDEV],
		 res->lives);
	/* pages of lives that died by reclaim, against the stored lives */
	T_EQ_I64(q_int(st, "SELECT sum(pages) FROM folio_lives WHERE session = %" PRId64
		       " AND death_cause = %d", id, HS_DEATH_RECLAIM),
		 (int64_t)ck->reclaim_death_pages);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM record_keys WHERE session = %" PRId64, id),
		 (int64_t)res->keys);
	/* checks: no loss; pfn-keyed events are the 49588 insertions and 318 write_folios */
	T_EQ_STR(q_text(st, "SELECT status, got, want FROM record_checks WHERE session = %" PRId64
			" AND name = 'lost'", id), "ok|0|0");
	T_EQ_I64(q_int(st, "SELECT CAST(want AS INTEGER) FROM record_checks WHERE session = %"
		       PRId64 " AND name = 'pfn-join'", id), 49588 + 318);
	T_EQ_I64(q_int(st, "SELECT CAST(got AS INTEGER) FROM record_checks WHERE session = %"
		       PRId64 " AND name = 'pfn-join'", id), (int64_t)ck->pfn_joined);
	/* the reclaim check's "want": nr_reclaimed summed over the stored events */
	T_EQ_I64(q_int(st, "SELECT CAST(want AS INTEGER) FROM record_checks WHERE session = %"
		       PRId64 " AND name = 'reclaim'", id),
		 q_int(st, "SELECT sum(a) FROM events WHERE session = %" PRId64 " AND type = %d",
		       id, HS_EV_SHRINK_INACTIVE));
	T_ASSERT(ck->reclaim_status != HS_LC_CHECK_NA);
	T_EQ_U64(ck->shrink_inactive_events, 372);
	/*
	 * The per-type views name the kernel's fields; their first rows are the
	 * first such lines of the fixture's trace.txt.gz (the kernel's own text,
	 * time rounded to the microsecond):
	 *   cat-347 [001] 10.012317: mm_vmscan_lru_shrink_inactive: nid=0
	 *	nr_scanned=65 nr_reclaimed=64 ... flags=RECLAIM_WB_FILE|...
	 *   sed-340 [001] 9.524362: mm_lru_insertion: pfn=0x93d3 lru=0
	 *   cat-347 [001] 9.621053: mm_filemap_add_to_page_cache: dev 0:3
	 *	ino fd00000 pfn=0x939d ofs=2113536 order=0	(index = ofs / 4096)
	 */
	T_EQ_I64(q_int(st, "SELECT count(*) FROM v_ev_shrink_inactive WHERE session = %" PRId64,
		       id), 372);
	T_EQ_STR(q_text(st, "SELECT common_pid, cpu, (ts_ns + 500) / 1000, nr_scanned, nr_reclaimed, file"
			" FROM v_ev_shrink_inactive WHERE session = %" PRId64 " ORDER BY seq"
			" LIMIT 1", id), "347|1|10012317|65|64|1");
	T_EQ_STR(q_text(st, "SELECT common_pid, cpu, (ts_ns + 500) / 1000, pfn, lru FROM"
			" v_ev_lru_insertion WHERE session = %" PRId64 " ORDER BY seq LIMIT 1", id),
		 "340|1|9524362|37843|0");
	T_EQ_STR(q_text(st, "SELECT common_pid, cpu, (ts_ns + 500) / 1000, s_dev, i_ino, pfn, \"index\","
			" \"order\" FROM v_ev_filemap_add WHERE session = %" PRId64 " ORDER BY seq"
			" LIMIT 1", id), "347|1|9621053|3|265289728|37789|516|0");
	T_EQ_I64(q_int(st, "SELECT count(*) FROM v_ev_lru_insertion WHERE session = %" PRId64,
		       id), 49588);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM v_ev_write_folio WHERE session = %" PRId64,
		       id), 318);
	T_EQ_U64(res->first_ts, (uint64_t)q_int(st, "SELECT min(ts_ns) FROM events WHERE "
						"session = %" PRId64, id));
	T_EQ_U64(res->last_ts, (uint64_t)q_int(st, "SELECT max(ts_ns) FROM events WHERE "
					       "session = %" PRId64, id));
}

/*
 * The stream's times: a recorded stream is timed (encoding 2), its times never
 * go back and lie within the events', and each is the time of an event: the
 * first and last records', and every readahead record's is the birth of a
 * readahead life.  A readahead record per page of each readahead life.
 */
static void check_stream_times(struct hs_store *st, int64_t id,
			       const struct hs_lifecycle_checks *ck)
{
	struct hs_session_reader *r = NULL;
	uint32_t *keys = NULL;
	uint8_t *meta = NULL;
	uint64_t *ts = NULL, back = 0, ra = 0, ra_bad = 0;
	int64_t n, i;

	T_EQ_I64(q_int(st, "SELECT count(*) FROM access_chunks WHERE session = %" PRId64
		       " AND encoding <> 2", id), 0);
	T_EQ_I64(hs_session_read_open(st, id, &r), 0);
	if (!r)
		return;
	n = hs_session_read_all_ts(r, &keys, &meta, &ts);
	T_ASSERT(n > 1000 && ts);
	if (n <= 1000 || !ts)
		goto out;
	for (i = 0; i < n; i++) {
		back += i && ts[i] < ts[i - 1];
		if (hs_meta_channel(meta[i]) != HS_CH_READAHEAD)
			continue;
		/*
		 * The page lives then, born at or before the record (at the add
		 * where readahead is traced; at the read that settled it where it
		 * is inferred, as on this 6.12 capture), and that is an event's time.
		 */
		if (ra++ < 200)
			ra_bad += q_int(st, "SELECT count(*) FROM record_keys AS k JOIN"
					" folio_lives AS l ON l.session = k.session AND l.dev = k.dev"
					" AND l.ino = k.ino AND k.page >= l.first_page AND k.page <"
					" l.first_page + l.pages WHERE k.session = %" PRId64 " AND"
					" k.key = %u AND l.born_ns <= %" PRIu64 " AND (coalesce("
					"l.died_ns, 0) = 0 OR l.died_ns >= %" PRIu64 ") AND"
					" EXISTS (SELECT 1 FROM events WHERE session = %" PRId64
					" AND ts_ns = %" PRIu64 ")", id, keys[i], ts[i], ts[i], id,
					ts[i]) == 0;
	}
	T_EQ_U64(back, 0);
	T_EQ_U64(ra_bad, 0);
	T_EQ_U64(ra, ck->readahead);
	/* every page of a readahead life, and the pages of demand folios no read asked for */
	T_ASSERT(q_int(st, "SELECT coalesce(sum(pages), 0) FROM folio_lives WHERE session = %"
		       PRId64 " AND flags & %d", id, HS_LIFE_F_READAHEAD) <= (int64_t)ra);
	T_ASSERT(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64
		       " AND ts_ns = %" PRIu64, id, ts[0]) > 0);
	T_ASSERT(q_int(st, "SELECT count(*) FROM events WHERE session = %" PRId64
		       " AND ts_ns = %" PRIu64, id, ts[n - 1]) > 0);
	if (getenv("T_VERBOSE"))
		fprintf(stderr, "stream: %" PRId64 " records, %" PRIu64 " readahead (%" PRIu64
			" pages of lives inferred, %" PRIu64 " lives unsettled), first t %"
			PRIu64 " key %u, last t %" PRIu64 "\n", n, ra, ck->readahead_inferred,
			ck->ra_unsettled, ts[0], keys[0], ts[n - 1]);
out:
	free(keys);
	free(meta);
	free(ts);
	hs_session_read_close(r);
}

static void test_capture_6_12(void)
{
	struct hs_lifecycle_checks ck;
	struct hs_kernel_row kr;
	struct hs_recbuild_result res;
	struct hs_recbuild_opts o;
	struct hs_decoder *d = NULL;
	struct hs_store *st;
	int64_t id, id2;

	if (!t_shared()) {
		t_skip("HSCTL_SHARED is not set");
		return;
	}
	st = new_store();
	if (!st)
		return;
	if (hs_decoder_open(fixture_6_12(), HS_DEC_ALL, &d)) {
		t_fail(__FILE__, __LINE__, "hs_decoder_open(%s)", fixture_6_12());
		goto out;
	}
	id = new_recording(st);
	T_ASSERT(spool_capture(st, id, 0) > 0);
	T_ASSERT(spool_capture(st, id, 1) > 0);
	opts_init(&o, id, d);
	if (build(st, &o, &ck, &res))
		goto out;
	check_capture(st, id, &res, &ck);
	check_stream_times(st, id, &ck);
	if (getenv("T_VERBOSE"))
		fprintf(stderr, "6.12 capture: %" PRIu64 " events, %" PRIu64 " lives, %" PRIu64
			" keys, %" PRIu64 " rows in %.3f s: %.0f events/s\n", res.events,
			res.lives, res.keys, res.rows, res.seconds,
			(double)res.events / res.seconds);

	/* again, decoded through the formats saved with a second recording */
	id2 = new_recording(st);
	T_ASSERT(save_formats(st, id2, fixture_6_12()) > 10);
	spool_capture(st, id2, 0);
	spool_capture(st, id2, 1);
	opts_init(&o, id2, NULL);
	if (build(st, &o, &ck, &res))
		goto out;
	check_capture(st, id2, &res, &ck);
	/*
	 * 6.12 has no readahead events: the build inferred readahead from the
	 * adds, stored its counters, and the kernel row says so.
	 */
	T_ASSERT(ck.readahead_inferred > 0);
	T_EQ_I64(q_int(st, "SELECT after FROM record_counters WHERE session = %" PRId64
		       " AND file = 'lifecycle' AND name = 'readahead_inferred'", id2),
		 (int64_t)ck.readahead_inferred);
	T_EQ_I64(q_int(st, "SELECT count(*) FROM record_counters WHERE session = %" PRId64
		       " AND file = 'lifecycle' AND name = 'readahead_unsettled'", id2), 1);
	T_EQ_I64(hs_store_kernel_row(st, id2, &kr), 0);
	T_EQ_I64(kr.readahead_traced, 2);
	T_EQ_I64(tmp_entries(), 0);
out:
	hs_decoder_free(d);
	hs_store_close(st);
}

static const struct t_case cases[] = {
	{ "touch_anon", test_touch_anon },
	{ "touch_fd", test_touch_fd },
	{ "touch_norecency", test_touch_norecency },
	{ "touch_bad", test_touch_bad },
	{ "shift_property", test_shift_property },
	{ "corrupt_subbuf", test_corrupt_subbuf },
	{ "corrupt-in-row", test_corrupt_in_row },
	{ "backwards", test_backwards },
	{ "merge_two_cpus", test_merge_two_cpus },
	{ "touch_tie", test_touch_tie },
	{ "no_events", test_no_events },
	{ "saved_formats", test_saved_formats },
	{ "errors", test_errors },
	{ "abort_mid_build", test_abort_mid_build },
	{ "capture_6_12", test_capture_6_12 },
};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	char tmp[96];
	int ret;

	snprintf(scratch, sizeof(scratch), "/tmp/t-recbuild.XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 99;
	}
	snprintf(tmp, sizeof(tmp), "%s/tmp", scratch);
	if (mkdir(tmp, 0700) || setenv("TMPDIR", tmp, 1)) {
		perror(tmp);
		return 99;
	}
	ret = t_main(cases, ARRAY_SIZE(cases), argc, argv);
	if (nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "cannot remove %s\n", scratch);
	return ret;
}
