/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event decoder: turns the raw per-CPU ring-buffer sub-buffers that
 * trace_pipe_raw hands out (tracefs_cpu_read) into struct hs_event.  It is set
 * up from a tracing directory (the live /sys/kernel/tracing or a copy of one),
 * or from the same files' texts in memory (the ones saved with a recording):
 * it parses events/header_page and only the format files of the events hsctl
 * records, resolves every field handle once per event id, and from then on
 * reads records with kbuffer and tep_read_number_field() on those handles.
 * Every kernel difference (event ids, field offsets, renamed events and
 * fields) ends here; events a kernel lacks are reported absent, never an error.
 *
 * A sub-buffer is checked in full before a single event is delivered: a
 * corrupt or truncated one gives -EBADMSG and nothing else, whatever its bytes.
 * Sub-buffers are read in the host's byte order, i.e. the tracing directory
 * and the data must come from a kernel of the host's endianness.
 */
#ifndef HS_DECODE_H
#define HS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

/* Event sets for hs_decoder_open() (@wanted). */
#define HS_DEC_FILEMAP		0x01u	/* filemap: add, delete, get_pages, fault, map_pages */
#define HS_DEC_READAHEAD	0x02u	/* readahead: page_cache_sync_ra, page_cache_async_ra */
#define HS_DEC_PAGEMAP		0x04u	/* pagemap: mm_lru_insertion, mm_lru_activate */
#define HS_DEC_VMSCAN		0x08u	/* vmscan: reclaim windows, counts, write_folio, slab */
#define HS_DEC_FAULTS		0x10u	/* exceptions: page_fault_user */
#define HS_DEC_MADVISE		0x20u	/* syscalls: sys_enter_madvise */
#define HS_DEC_SCHED		0x40u	/* sched: process fork, exit, exec; task: task_newtask */
#define HS_DEC_TLB		0x80u	/* tlb: tlb_flush; sched: sched_switch, sched_migrate_task
					 * (the workload's TLB; the recorder filters them) */
#define HS_DEC_MEMCG		0x100u	/* memcg: memcg_flush_stats (6.13 and later; the recorder
					 * filters it on the workload's memory cgroup) */
#define HS_DEC_DAMON		0x200u	/* damon: damon_aggregated, damos_before_apply (kdamond's
					 * regions at each aggregation, and those its schemes
					 * act on; only while DAMON runs) */
#define HS_DEC_ALL		0x3ffu	/* all of the above */

struct hs_decoder;

/**
 * struct hs_decoder_source - one kernel event the decoder turns into hs_events
 */
struct hs_decoder_source {
	const char	*system;	/* tracefs system, "filemap" */
	const char	*name;		/* the kernel's event name, "mm_filemap_add_to_page_cache" */
	enum hs_event_type type;	/* what it decodes to */
	int		id;		/* the kernel's event id (common_type) */
};

/**
 * struct hs_decoder_format - one format file in memory, for hs_decoder_open_formats()
 */
struct hs_decoder_format {
	const char	*system;	/* tracefs system, "filemap" */
	const char	*name;		/* event name, "mm_filemap_add_to_page_cache" */
	const void	*text;		/* the contents of events/<system>/<name>/format */
	size_t		len;		/* its bytes (need not end with a NUL) */
};

/**
 * struct hs_decoder_stats - what hs_decoder_subbuf() has seen so far
 */
struct hs_decoder_stats {
	uint64_t	subbufs;	/* sub-buffers decoded (corrupt ones not counted) */
	uint64_t	records;	/* records delivered as hs_events (HS_EV_LOST not counted) */
	uint64_t	skipped;	/* records of event ids the decoder does not know */
	uint64_t	bad;		/* sub-buffers rejected with -EBADMSG */
	uint64_t	missed;		/* events the sub-buffer headers said were lost */
	uint64_t	missed_unknown;	/* sub-buffers flagged lost with no count */
};

/**
 * hs_decoder_open() - set a decoder up from a tracing directory
 * @tracing_dir: "/sys/kernel/tracing", or a copy holding events/header_page and
 *	events/<system>/<event>/format
 * @wanted: HS_DEC_* sets of events to decode (0 means HS_DEC_ALL)
 * @out: the decoder
 *
 * Only the format files of the wanted events are read.  An event whose format
 * file is missing, or which lacks a field the decoder needs, is absent (see
 * hs_decoder_has()); that is not an error.
 *
 * Return: 0; -ENOENT when @tracing_dir or its events/header_page is missing;
 * the errno of open() or read() (-EACCES, -EISDIR, -EIO, ...) when a file that
 * exists cannot be read; -EBADMSG when header_page or a format file is
 * malformed (two events sharing an id included); -EINVAL for bad @wanted bits; -ENOMEM.  On error
 * other than -ENOMEM *out is still set so hs_decoder_errmsg() can be read;
 * free it afterwards.
 */
int hs_decoder_open(const char *tracing_dir, unsigned int wanted, struct hs_decoder **out);

/**
 * hs_decoder_open_formats() - set a decoder up from format files in memory
 * @header_page: the text of events/header_page, or NULL when there is none
 * @header_len: its bytes
 * @formats: the format files; only the wanted events' are read, the first
 *	of a (system, name) pair counts, others are ignored
 * @nr: entries in @formats (@formats may be NULL when 0)
 * @wanted: HS_DEC_* sets of events to decode (0 means HS_DEC_ALL)
 * @out: the decoder
 *
 * The same decoder hs_decoder_open() makes from a directory holding these
 * files, with nothing written anywhere.  The buffers are copied as they are
 * parsed and may be freed on return.  Messages name a file by its path in a
 * tracing directory ("events/header_page").
 *
 * Return: as hs_decoder_open(): 0; -ENOENT without @header_page; -EBADMSG
 * when header_page or a format file is malformed or larger than 1 MiB;
 * -EINVAL for bad arguments; -ENOMEM.  On error other than -ENOMEM *out is
 * still set so hs_decoder_errmsg() can be read; free it afterwards.
 */
int hs_decoder_open_formats(const void *header_page, size_t header_len,
			    const struct hs_decoder_format *formats, size_t nr,
			    unsigned int wanted, struct hs_decoder **out);

/**
 * hs_decoder_free() - free a decoder and its tep handle
 * @d: the decoder, or NULL
 *
 * Return: nothing.
 */
void hs_decoder_free(struct hs_decoder *d);

/**
 * hs_decoder_errmsg() - the reason for the last error of hs_decoder_open()
 * @d: the decoder
 *
 * Return: "PATH: reason", or "" if none.
 */
const char *hs_decoder_errmsg(const struct hs_decoder *d);

/**
 * hs_decoder_has() - does this kernel emit events of a type, and were they wanted
 * @d: the decoder
 * @type: an event type; HS_EV_LOST is always present, HS_EV_TOUCH never
 *
 * Return: true when at least one kernel event decoding to @type was found.
 */
bool hs_decoder_has(const struct hs_decoder *d, enum hs_event_type type);

/**
 * hs_decoder_nr_sources() - how many kernel events the decoder reads
 * @d: the decoder
 *
 * Return: the count (the events a recorder must enable).
 */
size_t hs_decoder_nr_sources(const struct hs_decoder *d);

/**
 * hs_decoder_source() - one kernel event the decoder reads
 * @d: the decoder
 * @i: 0 .. hs_decoder_nr_sources() - 1
 *
 * Return: its description (valid until hs_decoder_free()), or NULL for a bad @i.
 */
const struct hs_decoder_source *hs_decoder_source(const struct hs_decoder *d, size_t i);

/**
 * hs_decoder_subbuf_size() - the kernel's sub-buffer size from header_page
 * @d: the decoder
 *
 * Return: bytes (page header included), 4096 on x86-64 unless the kernel was
 * told otherwise through buffer_subbuf_size_kb.
 */
size_t hs_decoder_subbuf_size(const struct hs_decoder *d);

/**
 * hs_decoder_subbuf() - decode one raw sub-buffer
 * @d: the decoder
 * @buf: the sub-buffer, as tracefs_cpu_read() returns it (header included)
 * @len: its length; bytes past the header's commit are ignored
 * @cpu: the CPU whose buffer it came from (copied into every event)
 * @cb: called once per event in buffer order; a non-zero return stops the
 *	decoding and is returned
 * @arg: passed to @cb
 *
 * When the header says events were lost before this sub-buffer, an HS_EV_LOST
 * event (a = the count, or UINT64_MAX when the kernel did not store it; ts_ns
 * = the sub-buffer's time stamp) comes first.  Records of unknown or unwanted
 * event ids are skipped (counted in hs_decoder_stats.skipped).
 *
 * Return: 0, -EBADMSG when the sub-buffer is corrupt or truncated (then @cb
 * was not called at all), -EINVAL for a bad argument, or @cb's value.
 */
int hs_decoder_subbuf(struct hs_decoder *d, const void *buf, size_t len, int cpu,
		      int (*cb)(void *arg, const struct hs_event *ev), void *arg);

/**
 * hs_decoder_get_stats() - counters since the decoder was opened
 * @d: the decoder
 * @st: receives them
 *
 * Return: 0.
 */
int hs_decoder_get_stats(const struct hs_decoder *d, struct hs_decoder_stats *st);

/**
 * hs_decoder_kdev_to_dev() - a kernel dev_t from an event as a userspace dev_t
 * @kdev: major << 20 | minor, as in hs_event.dev (s_dev of the tracepoints)
 *
 * Return: makedev(major, minor), comparable with stat()'s st_dev.
 */
dev_t hs_decoder_kdev_to_dev(uint64_t kdev);

/**
 * hs_decoder_dev_to_kdev() - a userspace dev_t in the kernel's encoding
 * @dev: as stat() returns it
 * @kdev: receives major << 20 | minor
 *
 * Return: 0, or -ERANGE when the major does not fit 12 bits or the minor 20
 * (the kernel's internal dev_t cannot hold it).
 */
int hs_decoder_dev_to_kdev(dev_t dev, uint64_t *kdev);

#endif /* HS_DECODE_H */
