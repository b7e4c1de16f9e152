/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event decoder (see decode.h).  This is the one file that knows how the
 * kernel spells its events: a const table below names, for each hs_event
 * type, the tracefs event (with the older names a kernel may still use, such
 * as mm_vmscan_writepage for mm_vmscan_write_folio) and, for each hs_event
 * field, the kernel field names it may come from.  At open, the format files
 * of the wanted events, read from a tracing directory or taken from the
 * caller's buffers (struct fmt_src), are parsed into one private tep handle
 * (tep_parse_header_page(), tep_parse_event() parse from memory), the field
 * handles are resolved once and kept per event id in a table owned by the
 * decoder (no globals), so the hot path is a table look-up by common_type and
 * one tep_read_number_field() per field.
 *
 * Kernel differences the table absorbs (see the fixtures' README): event ids
 * differ on every kernel; mm_vmscan_lru_isolate's lru moved from offset 52 to
 * 48 when isolate_mode went (6.1 -> 6.12); mm_filemap_get_pages, _fault and
 * _map_pages exist from 6.12 (6.1 lacks them), the readahead events and
 * mm_vmscan_reclaim_pages only on 6.18; swap-out is mm_vmscan_write_folio (6.0
 * and later) or mm_vmscan_writepage (before); task_newtask's clone_flags is an
 * unsigned long on older kernels and a u64 on 6.18 (8 bytes either way on
 * 64-bit), and the shared fixtures hold no task/ formats at all (the 6.18
 * ones in testdata/decode do).  Fields are found by name, never by offset;
 * an event without a field marked required is treated as absent rather than
 * decoded with zeros.
 *
 * Sub-buffers are walked twice: first by check_subbuf(), which bounds-checks
 * every record header and payload exactly as kbuffer will walk them (kbuffer
 * itself trusts the commit and length words, so garbage could make it read
 * past the buffer or loop backwards), then by kbuffer to decode.  Lost events
 * are taken from the commit word directly: kbuffer_missed_events() reports
 * them only while the current record is the first in the sub-buffer, which
 * is not the case when the sub-buffer opens with a time extend.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "decode.h"
#include "fileio.h"
#include "hs.h"

/* The sub-buffer header's commit word (kernel/trace/ring_buffer.c). */
#define COMMIT_MASK		((1u << 27) - 1)	/* bytes of records after the header */
#define MISSED_EVENTS		(1u << 31)		/* events were lost before this one */
#define MISSED_STORED		(1u << 30)		/* ...and their count follows the records */

/* Record header type_len values (kbuffer.h names them too). */
#define TL_PADDING		29
#define TL_TIME_EXTEND		30
#define TL_TIME_STAMP		31

#define MAX_FILE		((size_t)1 << 20)	/* no format file is this large */
#define MAX_NAMES		3			/* spellings per event or field */
#define MAX_FIELDS		6			/* fields per event */
#define MAX_EVENT_ID		65535			/* common_type is an unsigned short */

/* Where a kernel field goes in struct hs_event. */
enum slot {
	S_NONE = 0,
	S_PFN,			/* ev.pfn */
	S_INO,			/* ev.ino */
	S_INDEX,		/* ev.index */
	S_LAST,			/* ev.last */
	S_DEV,			/* ev.dev */
	S_ORDER,		/* ev.order */
	S_ADDR,			/* ev.addr */
	S_A,			/* ev.a */
	S_B,			/* ev.b */
	S_C,			/* ev.c */
	S_WB_ANON,		/* reclaim_flags: RECLAIM_WB_ANON (0x1) sets HS_EVF_ANON */
	S_WB_FILE,		/* reclaim_flags: RECLAIM_WB_FILE (0x2) gives ev.c = 1 */
	S_FORCE,		/* memcg_flush_stats' force: ev.c |= 1 */
	S_NEEDS_FLUSH,		/* memcg_flush_stats' needs_flush: ev.c |= 2 */
};

#define RECLAIM_WB_ANON		0x1u
#define RECLAIM_WB_FILE		0x2u

struct field_spec {
	uint8_t		slot;			/* enum slot; S_NONE ends the list */
	bool		required;		/* without it the event counts as absent */
	const char	*names[MAX_NAMES];	/* kernel spellings, newest first */
};

struct event_spec {
	unsigned int	group;			/* HS_DEC_* set it belongs to */
	const char	*system;		/* tracefs system */
	const char	*names[MAX_NAMES];	/* kernel spellings, newest first */
	uint16_t	type;			/* enum hs_event_type */
	uint16_t	flags;			/* HS_EVF_* set on every event of it */
	struct field_spec fields[MAX_FIELDS];	/* ended by S_NONE */
};

#define F(s, ...)	{ .slot = (s), .required = true, .names = { __VA_ARGS__ } }
#define OPT(s, ...)	{ .slot = (s), .required = false, .names = { __VA_ARGS__ } }

/* The folio identity of filemap add/delete: order appeared with large folios. */
#define FILEMAP_FOLIO	F(S_PFN, "pfn"), F(S_INO, "i_ino"), F(S_INDEX, "index"), \
			F(S_DEV, "s_dev"), OPT(S_ORDER, "order")
#define FILEMAP_RANGE	F(S_INO, "i_ino"), F(S_DEV, "s_dev"), F(S_INDEX, "index"), \
			F(S_LAST, "last_index")
#define RA_FIELDS	F(S_INO, "i_ino"), F(S_DEV, "s_dev"), F(S_INDEX, "index"), \
			OPT(S_ORDER, "order"), OPT(S_A, "req_count", "size")
#define BEGIN_FIELDS	OPT(S_A, "order"), OPT(S_B, "gfp_flags")
#define END_FIELDS	F(S_A, "nr_reclaimed")

static const struct event_spec specs[] = {
	{ HS_DEC_FILEMAP, "filemap", { "mm_filemap_add_to_page_cache" }, HS_EV_FILEMAP_ADD, 0,
	  { FILEMAP_FOLIO } },
	{ HS_DEC_FILEMAP, "filemap", { "mm_filemap_delete_from_page_cache" },
	  HS_EV_FILEMAP_DELETE, 0, { FILEMAP_FOLIO } },
	{ HS_DEC_FILEMAP, "filemap", { "mm_filemap_get_pages" }, HS_EV_FILEMAP_GET_PAGES, 0,
	  { FILEMAP_RANGE } },
	{ HS_DEC_FILEMAP, "filemap", { "mm_filemap_fault" }, HS_EV_FILEMAP_FAULT, 0,
	  { F(S_INO, "i_ino"), F(S_DEV, "s_dev"), F(S_INDEX, "index") } },
	{ HS_DEC_FILEMAP, "filemap", { "mm_filemap_map_pages" }, HS_EV_FILEMAP_MAP_PAGES, 0,
	  { FILEMAP_RANGE } },
	{ HS_DEC_READAHEAD, "readahead", { "page_cache_sync_ra" }, HS_EV_READAHEAD, 0,
	  { RA_FIELDS } },
	{ HS_DEC_READAHEAD, "readahead", { "page_cache_async_ra" }, HS_EV_READAHEAD,
	  HS_EVF_ASYNC, { RA_FIELDS } },

	{ HS_DEC_PAGEMAP, "pagemap", { "mm_lru_insertion" }, HS_EV_LRU_INSERTION, 0,
	  { F(S_PFN, "pfn"), F(S_A, "lru"), F(S_B, "flags") } },
	{ HS_DEC_PAGEMAP, "pagemap", { "mm_lru_activate" }, HS_EV_LRU_ACTIVATE, 0,
	  { F(S_PFN, "pfn") } },

	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_direct_reclaim_begin" },
	  HS_EV_DIRECT_RECLAIM_BEGIN, 0, { BEGIN_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_direct_reclaim_end" },
	  HS_EV_DIRECT_RECLAIM_END, 0, { END_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_memcg_reclaim_begin" },
	  HS_EV_MEMCG_RECLAIM_BEGIN, 0, { BEGIN_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_memcg_reclaim_end" },
	  HS_EV_MEMCG_RECLAIM_END, 0, { END_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_memcg_softlimit_reclaim_begin" },
	  HS_EV_SOFTLIMIT_RECLAIM_BEGIN, 0, { BEGIN_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_memcg_softlimit_reclaim_end" },
	  HS_EV_SOFTLIMIT_RECLAIM_END, 0, { END_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_node_reclaim_begin" },
	  HS_EV_NODE_RECLAIM_BEGIN, 0, { BEGIN_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_node_reclaim_end" },
	  HS_EV_NODE_RECLAIM_END, 0, { END_FIELDS } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_kswapd_wake" }, HS_EV_KSWAPD_WAKE, 0,
	  { F(S_A, "nid"), OPT(S_B, "order") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_kswapd_sleep" }, HS_EV_KSWAPD_SLEEP, 0,
	  { F(S_A, "nid") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_lru_isolate" }, HS_EV_LRU_ISOLATE, 0,
	  { F(S_A, "nr_taken"), F(S_B, "nr_scanned"), OPT(S_C, "lru") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_lru_shrink_inactive" }, HS_EV_SHRINK_INACTIVE, 0,
	  { F(S_A, "nr_reclaimed"), F(S_B, "nr_scanned"), OPT(S_WB_FILE, "reclaim_flags") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_lru_shrink_active" }, HS_EV_SHRINK_ACTIVE, 0,
	  { F(S_A, "nr_deactivated"), F(S_B, "nr_taken"), OPT(S_WB_FILE, "reclaim_flags") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_reclaim_pages" }, HS_EV_RECLAIM_PAGES, 0,
	  { F(S_A, "nr_reclaimed"), F(S_B, "nr_scanned") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_vmscan_write_folio", "mm_vmscan_writepage" },
	  HS_EV_WRITE_FOLIO, 0, { F(S_PFN, "pfn"), F(S_WB_ANON, "reclaim_flags") } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_shrink_slab_start" }, HS_EV_SHRINK_SLAB_START, 0,
	  { { .slot = S_NONE } } },
	{ HS_DEC_VMSCAN, "vmscan", { "mm_shrink_slab_end" }, HS_EV_SHRINK_SLAB_END, 0,
	  { { .slot = S_NONE } } },

	{ HS_DEC_FAULTS, "exceptions", { "page_fault_user" }, HS_EV_PAGE_FAULT_USER, 0,
	  { F(S_ADDR, "address"), OPT(S_A, "error_code") } },
	{ HS_DEC_MADVISE, "syscalls", { "sys_enter_madvise" }, HS_EV_MADVISE, 0,
	  { F(S_ADDR, "start"), F(S_A, "len_in", "len"), F(S_B, "behavior") } },

	{ HS_DEC_SCHED, "sched", { "sched_process_fork" }, HS_EV_PROCESS_FORK, 0,
	  { F(S_A, "child_pid") } },
	{ HS_DEC_SCHED, "sched", { "sched_process_exit" }, HS_EV_PROCESS_EXIT, 0,
	  { { .slot = S_NONE } } },
	{ HS_DEC_SCHED, "sched", { "sched_process_exec" }, HS_EV_PROCESS_EXEC, 0,
	  { { .slot = S_NONE } } },
	{ HS_DEC_SCHED, "task", { "task_newtask" }, HS_EV_TASK_NEW, 0,
	  { F(S_A, "pid"), F(S_B, "clone_flags") } },

	{ HS_DEC_TLB, "tlb", { "tlb_flush" }, HS_EV_TLB_FLUSH, 0,
	  { F(S_A, "pages"), F(S_B, "reason") } },
	{ HS_DEC_TLB, "sched", { "sched_switch" }, HS_EV_SCHED_SWITCH, 0,
	  { F(S_A, "prev_pid"), F(S_B, "next_pid") } },
	{ HS_DEC_TLB, "sched", { "sched_migrate_task" }, HS_EV_MIGRATE_TASK, 0,
	  { F(S_A, "pid"), F(S_B, "orig_cpu"), F(S_C, "dest_cpu") } },

	{ HS_DEC_MEMCG, "memcg", { "memcg_flush_stats" }, HS_EV_MEMCG_FLUSH, 0,
	  { F(S_A, "id"), F(S_B, "stats_updates"), F(S_FORCE, "force"),
	    F(S_NEEDS_FLUSH, "needs_flush") } },

	{ HS_DEC_DAMON, "damon", { "damon_aggregated" }, HS_EV_DAMON_AGGREGATED, 0,
	  { F(S_INDEX, "start"), F(S_LAST, "end"), F(S_A, "nr_accesses"), F(S_B, "age"),
	    F(S_C, "nr_regions"), OPT(S_ADDR, "target_id") } },
	{ HS_DEC_DAMON, "damon", { "damos_before_apply" }, HS_EV_DAMOS_APPLY, 0,
	  { F(S_INDEX, "start"), F(S_LAST, "end"), F(S_A, "nr_accesses"), F(S_B, "age"),
	    F(S_C, "scheme_idx"), F(S_ADDR, "nr_regions") } },
};

#undef F
#undef OPT

struct dec_field {
	struct tep_format_field	*f;		/* handle in the decoder's tep */
	uint8_t			slot;		/* enum slot */
};

/* One kernel event found at open: its spec and resolved handles. */
struct dec_event {
	const struct event_spec	*spec;		/* what it decodes to */
	unsigned int		need;		/* payload bytes the fields span (offset + size) */
	unsigned int		nr_fields;	/* used entries of field[] */
	struct dec_field	field[MAX_FIELDS]; /* resolved handles, in spec order */
};

struct hs_decoder {
	struct tep_handle	*tep;		/* header_page and the wanted formats only */
	struct kbuffer		*kbuf;		/* record iterator, reloaded per sub-buffer */
	struct tep_format_field	*f_type;	/* common_type, same for every event */
	struct tep_format_field	*f_pid;		/* common_pid, same for every event */
	unsigned int		common_need;	/* payload bytes the common fields span */
	unsigned int		long_size;	/* the kernel's long: 4 or 8 (commit word) */
	unsigned int		data_start;	/* first record byte: 8 + long_size */
	size_t			subbuf_size;	/* header + data, from header_page */
	unsigned int		wanted;		/* HS_DEC_* */
	struct dec_event	ev[ARRAY_SIZE(specs)];	/* found events, nr_ev valid */
	struct hs_decoder_source src[ARRAY_SIZE(specs)];	/* the same, for callers */
	size_t			nr_ev;		/* entries used in ev[] and src[] */
	uint8_t			*by_id;		/* by_id[id]: index into ev[] + 1, 0 unknown */
	size_t			nr_ids;		/* entries in by_id: largest id found + 1 */
	uint64_t		present;	/* bit (1 << type) per hs_event_type found */
	struct hs_decoder_stats	stats;		/* counters since open */
	char			err[512];	/* last open error, "" if none */
};

/* What check_subbuf() learned from a sub-buffer it accepted. */
struct subbuf_info {
	uint64_t	ts;		/* the header's time stamp */
	uint64_t	missed;		/* events lost before it, UINT64_MAX unknown */
	bool		lost;		/* the header flags lost events */
	size_t		records;	/* data records (what kbuffer will return) */
};

static void set_err(struct hs_decoder *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct hs_decoder *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
}

/*
 * Where the format files come from: a tracing directory (@dir), or, when
 * @dir is NULL, the caller's buffers (hs_decoder_open_formats()).
 */
struct fmt_src {
	const char			*dir;		/* tracing dir, or NULL */
	const void			*header;	/* header_page text, or NULL */
	size_t				header_len;	/* ... its bytes */
	const struct hs_decoder_format	*fmts;		/* the format files */
	size_t				nr;		/* ... how many */
};

/* A copy of @len bytes of @text, NUL-terminated.  Return: 0, -EFBIG or -ENOMEM. */
static int copy_text(const void *text, size_t len, char **out, size_t *outlen)
{
	char *buf;

	if (len > MAX_FILE)
		return -EFBIG;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	if (len)
		memcpy(buf, text, len);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

/*
 * One format file, NUL-terminated (free it): events/header_page when
 * @system is NULL, else events/<system>/<name>/format.  @path receives its
 * name for messages: the file's path for a directory, the path relative to
 * a tracing directory for buffers.  Return: 0, -ENOENT when there is no
 * such file, -EFBIG when it is larger than MAX_FILE, -ENAMETOOLONG, or the
 * errno of open() or read().
 */
static int get_format(const struct fmt_src *src, const char *system, const char *name,
		      char *path, size_t size, char **buf, size_t *len)
{
	const char *dir = src->dir ? src->dir : "";
	const char *sep = src->dir ? "/" : "";
	size_t i;
	int n;

	*buf = NULL;
	if (system)
		n = snprintf(path, size, "%s%sevents/%s/%s/format", dir, sep, system, name);
	else
		n = snprintf(path, size, "%s%sevents/header_page", dir, sep);
	if (n < 0 || (size_t)n >= size) {
		path[0] = '\0';	/* only a directory's path can be too long */
		return -ENAMETOOLONG;
	}
	if (src->dir)
		return hs_read_file(path, MAX_FILE, buf, len);
	if (!system)
		return src->header ? copy_text(src->header, src->header_len, buf, len) : -ENOENT;
	for (i = 0; i < src->nr; i++) {
		const struct hs_decoder_format *f = &src->fmts[i];

		if (f->system && f->name && f->text && !strcmp(f->system, system) &&
		    !strcmp(f->name, name))
			return copy_text(f->text, f->len, buf, len);
	}
	return -ENOENT;
}

/* get_format() with the error set; the absent file (-ENOENT) is left to the caller. */
static int load_format(struct hs_decoder *d, const struct fmt_src *src, const char *system,
		       const char *name, char *path, size_t size, char **buf, size_t *len)
{
	int err = get_format(src, system, name, path, size, buf, len);

	if (err == -ENAMETOOLONG && !path[0] && system)
		set_err(d, "%s/events/%s/%s/format: path too long", src->dir ? src->dir : "",
			system, name);
	else if (err == -ENAMETOOLONG && !path[0])
		set_err(d, "%s/events/header_page: path too long",
			src->dir ? src->dir : "");
	else if (err && err != -ENOENT && err != -ENOTDIR)
		set_err(d, "%s: %s", path, strerror(-err));
	return err == -EFBIG ? -EBADMSG : err;
}

/*
 * The record layout kbuffer assumes: time stamp at 0, commit word (a long)
 * at 8, records from 8 + long.  Check that header_page says exactly that.
 */
static int load_header_page(struct hs_decoder *d, const struct fmt_src *src)
{
	char path[PATH_MAX];
	unsigned int off;
	const char *p;
	char *buf;
	size_t len;
	int err, hps, sbs;

	err = load_format(d, src, NULL, NULL, path, sizeof(path), &buf, &len);
	if (err == -ENOENT || err == -ENOTDIR)
		set_err(d, "%s: %s", path, strerror(-err));
	if (err)
		return err;
	err = -EBADMSG;
	if (tep_parse_header_page(d->tep, buf, len, (int)sizeof(long)) != 0) {
		set_err(d, "%s: cannot parse the sub-buffer header", path);
		goto out_free;
	}
	hps = tep_get_header_page_size(d->tep);
	sbs = tep_get_sub_buffer_size(d->tep);
	p = strstr(buf, " data;");
	if ((hps != 4 && hps != 8) || !p || sscanf(p, " data; offset:%u;", &off) != 1 ||
	    off != 8u + (unsigned int)hps || sbs <= (int)off) {
		set_err(d, "%s: unsupported sub-buffer header layout", path);
		goto out_free;
	}
	d->long_size = (unsigned int)hps;
	d->data_start = off;
	d->subbuf_size = (size_t)sbs;
	err = 0;
out_free:
	free(buf);
	return err;
}

static bool field_usable(const struct tep_format_field *f)
{
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
		return false;
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return false;
	return f->offset >= 0 && f->offset <= 65535;
}

static unsigned int field_end(const struct tep_format_field *f)
{
	return (unsigned int)f->offset + (unsigned int)f->size;
}

/* The common fields must be where every other event has them. */
static int check_common(struct hs_decoder *d, struct tep_event *e, const char *path)
{
	struct tep_format_field *t = tep_find_common_field(e, "common_type");
	struct tep_format_field *p = tep_find_common_field(e, "common_pid");

	if (!t || !p || !field_usable(t) || !field_usable(p)) {
		set_err(d, "%s: no common_type or common_pid field", path);
		return -EBADMSG;
	}
	if (!d->f_type) {
		d->f_type = t;
		d->f_pid = p;
		d->common_need = HS_MAX(field_end(t), field_end(p));
		return 0;
	}
	if (t->offset != d->f_type->offset || t->size != d->f_type->size ||
	    p->offset != d->f_pid->offset || p->size != d->f_pid->size) {
		set_err(d, "%s: common fields differ from the other events'", path);
		return -EBADMSG;
	}
	return 0;
}

/* Resolve a spec's fields on a parsed event.  Return: true when all required were found. */
static bool resolve_fields(struct dec_event *de, struct tep_event *e)
{
	const struct event_spec *s = de->spec;
	size_t i, j;

	de->nr_fields = 0;
	de->need = 0;
	for (i = 0; i < MAX_FIELDS && s->fields[i].slot != S_NONE; i++) {
		const struct field_spec *fs = &s->fields[i];
		struct tep_format_field *f = NULL;

		for (j = 0; j < MAX_NAMES && fs->names[j] && !f; j++) {
			f = tep_find_field(e, fs->names[j]);
			if (f && !field_usable(f))
				f = NULL;
		}
		if (!f) {
			if (fs->required)
				return false;
			continue;
		}
		de->field[de->nr_fields].f = f;
		de->field[de->nr_fields].slot = fs->slot;
		de->nr_fields++;
		de->need = HS_MAX(de->need, field_end(f));
	}
	return true;
}

/*
 * Find one spec's event: try each spelling's format file; a missing file
 * means that spelling is absent.  Return: 1 found (added to d->ev), 0 absent,
 * or a negative errno.
 */
static int load_event(struct hs_decoder *d, const struct fmt_src *src,
		      const struct event_spec *s)
{
	char path[PATH_MAX];
	struct dec_event *de;
	struct tep_event *e;
	size_t j, len;
	char *buf;
	int err;

	for (j = 0; j < MAX_NAMES && s->names[j]; j++) {
		err = load_format(d, src, s->system, s->names[j], path, sizeof(path), &buf, &len);
		if (err == -ENOENT || err == -ENOTDIR)
			continue;
		if (err)
			return err;
		/*
		 * The return value is not used: a print fmt libtraceevent cannot
		 * parse still leaves the fields usable, and a file it cannot parse
		 * at all is reported as an allocation failure (1.7.1), so the
		 * event being there afterwards is what counts.
		 */
		tep_parse_event(d->tep, buf, len, s->system);
		free(buf);
		e = tep_find_event_by_name(d->tep, s->system, s->names[j]);
		if (!e || e->id < 0 || e->id > MAX_EVENT_ID) {
			set_err(d, "%s: cannot parse the event format", path);
			return -EBADMSG;
		}
		err = check_common(d, e, path);
		if (err)
			return err;
		de = &d->ev[d->nr_ev];
		memset(de, 0, sizeof(*de));
		de->spec = s;
		if (!resolve_fields(de, e))
			return 0;	/* a layout we cannot decode: absent */
		de->need = HS_MAX(de->need, d->common_need);
		d->src[d->nr_ev].system = s->system;
		d->src[d->nr_ev].name = s->names[j];
		d->src[d->nr_ev].type = (enum hs_event_type)s->type;
		d->src[d->nr_ev].id = e->id;
		d->nr_ev++;
		return 1;
	}
	return 0;
}

static int build_id_table(struct hs_decoder *d)
{
	size_t i, max = 0;

	for (i = 0; i < d->nr_ev; i++)
		max = HS_MAX(max, (size_t)d->src[i].id);
	d->nr_ids = d->nr_ev ? max + 1 : 0;
	d->by_id = calloc(d->nr_ids ? d->nr_ids : 1, 1);
	if (!d->by_id)
		return -ENOMEM;
	for (i = 0; i < d->nr_ev; i++) {
		size_t id = (size_t)d->src[i].id;

		if (d->by_id[id]) {
			set_err(d, "events %s/%s and %s/%s share the id %zu", d->src[i].system,
				d->src[i].name, d->src[d->by_id[id] - 1].system,
				d->src[d->by_id[id] - 1].name, id);
			return -EBADMSG;
		}
		d->by_id[id] = (uint8_t)(i + 1);
		d->present |= UINT64_C(1) << d->src[i].type;
	}
	return 0;
}

/* Both constructors: @src is valid, or NULL for bad arguments (-EINVAL). */
static int decoder_open(const struct fmt_src *src, unsigned int wanted, struct hs_decoder **out)
{
	struct hs_decoder *d;
	size_t i;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	*out = d;
	if (!src || (wanted & ~HS_DEC_ALL)) {
		set_err(d, "bad decoder arguments");
		return -EINVAL;
	}
	d->wanted = wanted ? wanted : HS_DEC_ALL;
	d->tep = tep_alloc();
	if (!d->tep) {
		err = -ENOMEM;
		goto out_free;
	}
	err = load_header_page(d, src);
	if (err)
		goto out_err;
	d->kbuf = kbuffer_alloc(d->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!d->kbuf) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		if (!(specs[i].group & d->wanted))
			continue;
		err = load_event(d, src, &specs[i]);
		if (err < 0)
			goto out_err;
	}
	err = build_id_table(d);
	if (err)
		goto out_err;
	return 0;

out_err:
	if (err != -ENOMEM)
		return err;	/* *out stays set for hs_decoder_errmsg() */
out_free:
	hs_decoder_free(d);
	*out = NULL;
	return err;
}

int hs_decoder_open(const char *tracing_dir, unsigned int wanted, struct hs_decoder **out)
{
	const struct fmt_src src = { .dir = tracing_dir };

	return decoder_open(tracing_dir ? &src : NULL, wanted, out);
}

int hs_decoder_open_formats(const void *header_page, size_t header_len,
			    const struct hs_decoder_format *formats, size_t nr,
			    unsigned int wanted, struct hs_decoder **out)
{
	const struct fmt_src src = {
		.header = header_page, .header_len = header_len, .fmts = formats, .nr = nr,
	};

	return decoder_open(!formats && nr ? NULL : &src, wanted, out);
}

void hs_decoder_free(struct hs_decoder *d)
{
	if (!d)
		return;
	kbuffer_free(d->kbuf);
	if (d->tep)
		tep_free(d->tep);
	free(d->by_id);
	free(d);
}

const char *hs_decoder_errmsg(const struct hs_decoder *d)
{
	return d ? d->err : "";
}

bool hs_decoder_has(const struct hs_decoder *d, enum hs_event_type type)
{
	if (!d || (unsigned int)type >= HS_EV_NR)
		return false;
	if (type == HS_EV_LOST)
		return true;
	return d->present & (UINT64_C(1) << type);
}

size_t hs_decoder_nr_sources(const struct hs_decoder *d)
{
	return d ? d->nr_ev : 0;
}

const struct hs_decoder_source *hs_decoder_source(const struct hs_decoder *d, size_t i)
{
	return d && i < d->nr_ev ? &d->src[i] : NULL;
}

size_t hs_decoder_subbuf_size(const struct hs_decoder *d)
{
	return d ? d->subbuf_size : 0;
}

int hs_decoder_get_stats(const struct hs_decoder *d, struct hs_decoder_stats *st)
{
	*st = d->stats;
	return 0;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd_long(const struct hs_decoder *d, const uint8_t *p)
{
	uint64_t v;

	if (d->long_size == 4)
		return rd32(p);
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The decoder's entry for an event id, or NULL. */
static const struct dec_event *event_of(const struct hs_decoder *d, unsigned long long id)
{
	if (id >= d->nr_ids || !d->by_id[id])
		return NULL;
	return &d->ev[d->by_id[id] - 1];
}

/* A data record's payload must hold the common fields and every field read from it. */
static bool payload_ok(const struct hs_decoder *d, const uint8_t *p, uint64_t len)
{
	const struct dec_event *de;
	unsigned long long id;

	if (len < d->common_need)
		return false;
	if (tep_read_number_field(d->f_type, p, &id) != 0)
		return false;
	de = event_of(d, id);
	return !de || len >= de->need;
}

/*
 * Walk the records as kbuffer's __next_event() will, checking that each
 * header and payload lies inside the committed bytes and that the walk moves
 * forward.  Nothing is read outside [0, len).
 */
static int check_subbuf(const struct hs_decoder *d, const uint8_t *b, size_t len,
			struct subbuf_info *si)
{
	uint64_t commit, size, off, room, n;
	const uint8_t *data;
	uint32_t hdr, tl;

	memset(si, 0, sizeof(*si));
	if (len < d->data_start)
		return -EBADMSG;
	memcpy(&si->ts, b, sizeof(si->ts));
	/*
	 * The kernel sets the flags with local_add() of an int: RB_MISSED_EVENTS
	 * (1 << 31) sign-extends, so a flagged 64-bit commit word reads
	 * 0xffffffff8....... .  Only the low 32 bits carry meaning; the high ones
	 * are 0, or all ones exactly when bit 31 is set, and anything else is
	 * corruption.
	 */
	commit = rd_long(d, b + 8);
	if ((commit >> 32) == 0xffffffffu && (commit & MISSED_EVENTS))
		commit &= 0xffffffffu;
	if (commit & ~(uint64_t)(COMMIT_MASK | MISSED_EVENTS | MISSED_STORED))
		return -EBADMSG;
	if ((commit & MISSED_STORED) && !(commit & MISSED_EVENTS))
		return -EBADMSG;
	size = commit & COMMIT_MASK;
	room = len - d->data_start;
	if (size > room)
		return -EBADMSG;
	data = b + d->data_start;
	if (commit & MISSED_EVENTS) {
		si->lost = true;
		si->missed = UINT64_MAX;
		if (commit & MISSED_STORED) {
			if (room - size < d->long_size)
				return -EBADMSG;
			si->missed = rd_long(d, data + size);
		}
	}
	for (off = 0; off < size; ) {
		if (size - off < 4)
			return -EBADMSG;
		hdr = rd32(data + off);
		tl = hdr & 31;
		switch (tl) {
		case TL_PADDING:
			if (size - off < 8)
				return -EBADMSG;
			n = rd32(data + off + 4);
			if (n > size - off - 4)
				return -EBADMSG;
			off += 4 + n;
			break;
		case TL_TIME_EXTEND:
		case TL_TIME_STAMP:
			if (size - off < 8)
				return -EBADMSG;
			off += 8;
			break;
		case 0:
			if (size - off < 8)
				return -EBADMSG;
			n = rd32(data + off + 4);
			if (n < 4)
				return -EBADMSG;
			n = (n - 4 + 3) & ~(uint64_t)3;
			if (n > size - off - 8 || !payload_ok(d, data + off + 8, n))
				return -EBADMSG;
			off += 8 + n;
			si->records++;
			break;
		default:
			n = (uint64_t)tl * 4;
			if (n > size - off - 4 || !payload_ok(d, data + off + 4, n))
				return -EBADMSG;
			off += 4 + n;
			si->records++;
			break;
		}
	}
	return 0;
}

static void fill_event(const struct dec_event *de, const void *rec, struct hs_event *ev)
{
	unsigned long long v;
	unsigned int i;

	ev->type = de->spec->type;
	ev->flags = de->spec->flags;
	for (i = 0; i < de->nr_fields; i++) {
		if (tep_read_number_field(de->field[i].f, rec, &v) != 0)
			continue;	/* sizes were checked at open: cannot happen */
		switch (de->field[i].slot) {
		case S_PFN:
			ev->pfn = v;
			break;
		case S_INO:
			ev->ino = v;
			break;
		case S_INDEX:
			ev->index = v;
			break;
		case S_LAST:
			ev->last = v;
			break;
		case S_DEV:
			ev->dev = v;
			break;
		case S_ORDER:
			ev->order = (uint32_t)v;
			break;
		case S_ADDR:
			ev->addr = v;
			break;
		case S_A:
			ev->a = v;
			break;
		case S_B:
			ev->b = v;
			break;
		case S_C:
			ev->c = v;
			break;
		case S_WB_ANON:
			if (v & RECLAIM_WB_ANON)
				ev->flags |= HS_EVF_ANON;
			break;
		case S_WB_FILE:
			ev->c = (v & RECLAIM_WB_FILE) ? 1 : 0;
			break;
		case S_FORCE:
			ev->c |= v ? 1 : 0;
			break;
		case S_NEEDS_FLUSH:
			ev->c |= v ? 2 : 0;
			break;
		default:
			break;
		}
	}
}

int hs_decoder_subbuf(struct hs_decoder *d, const void *buf, size_t len, int cpu,
		      int (*cb)(void *arg, const struct hs_event *ev), void *arg)
{
	const struct dec_event *de;
	unsigned long long ts, v;
	struct subbuf_info si;
	struct hs_event ev;
	size_t seen = 0;
	void *rec;
	int err;

	if (!d || !buf || !cb || cpu < 0)
		return -EINVAL;
	err = check_subbuf(d, buf, len, &si);
	if (err) {
		d->stats.bad++;
		return err;
	}
	d->stats.subbufs++;
	if (si.lost) {
		memset(&ev, 0, sizeof(ev));
		ev.type = HS_EV_LOST;
		ev.ts_ns = si.ts;
		ev.cpu = (uint32_t)cpu;
		ev.a = si.missed;
		if (si.missed == UINT64_MAX)
			d->stats.missed_unknown++;
		else
			d->stats.missed += si.missed;
		err = cb(arg, &ev);
		if (err)
			return err;
	}
	/* kbuffer only reads the sub-buffer; its prototype just lacks the const. */
	if (kbuffer_load_subbuffer(d->kbuf, (void *)buf) < 0)
		return -EBADMSG;
	for (rec = kbuffer_read_event(d->kbuf, &ts); rec; rec = kbuffer_next_event(d->kbuf, &ts)) {
		if (++seen > si.records)
			return -EBADMSG;	/* kbuffer disagrees with check_subbuf() */
		tep_read_number_field(d->f_type, rec, &v);
		de = event_of(d, v);
		if (!de) {
			d->stats.skipped++;
			continue;
		}
		memset(&ev, 0, sizeof(ev));
		ev.ts_ns = ts;
		ev.cpu = (uint32_t)cpu;
		tep_read_number_field(d->f_pid, rec, &v);
		ev.pid = (int32_t)(uint32_t)v;
		fill_event(de, rec, &ev);
		d->stats.records++;
		err = cb(arg, &ev);
		if (err)
			return err;
	}
	if (seen != si.records)
		return -EBADMSG;
	return 0;
}

dev_t hs_decoder_kdev_to_dev(uint64_t kdev)
{
	return makedev((unsigned int)(kdev >> 20) & 0xfffu, (unsigned int)(kdev & 0xfffffu));
}

int hs_decoder_dev_to_kdev(dev_t dev, uint64_t *kdev)
{
	unsigned int maj = major(dev), min = minor(dev);

	if (maj > 0xfffu || min > 0xfffffu)
		return -ERANGE;
	*kdev = (uint64_t)maj << 20 | min;
	return 0;
}
