/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hsctl gen: make a synthetic session (lib/gen.c) without a kernel or a file.
 * The stream is a pure function of the generator, its options and --seed, so
 * the same command makes the same session on every machine.  The options are
 * stored with the session (params_json) and the session is printed like
 * `hsctl import` prints one.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "cmd.h"
#include "gen.h"
#include "hs.h"
#include "json.h"
#include "parse.h"
#include "store.h"

/* Dense key ids are 32-bit: keep every stream's distinct keys below that. */
#define MAX_KEYS	(1ull << 32)
#define MAX_ACCESSES	(1ull << 40)

enum {
	OPT_ACCESSES = 0x100,
	OPT_KEYS,
	OPT_SEED,
	OPT_ALPHA,
	OPT_NAME,
	OPT_KIND,
	OPT_CHANNEL,
	OPT_HOT_KEYS,
	OPT_SCAN_LEN,
	OPT_SCAN_EVERY,
	OPT_PROCS,
};

struct args {
	const char		*type_name;	/* TYPE argument */
	const char		*name;		/* --name, or NULL */
	struct hs_gen_opts	o;		/* generator options (type set at the end) */
	enum hs_type		kind;		/* --kind */
	enum hs_channel		channel;	/* --channel (default: pt) */
	bool			kind_set;	/* --kind given (else the generator's default) */
	bool			channel_set;	/* --channel given (else the generator's default) */
	bool			alpha_set;	/* --alpha given */
	bool			scan_set;	/* --hot-keys, --scan-len or --scan-every given */
	bool			scan_len_set;	/* --scan-len given */
	bool			scan_every_set;	/* --scan-every given */
	bool			procs_set;	/* --procs given */
};

static const struct argp_option options[] = {
	{ "accesses", OPT_ACCESSES, "N", 0, "Accesses in the session (default: 100000)", 0 },
	{ "keys", OPT_KEYS, "N", 0,
	  "Distinct keys: zipf and ycsb-f key space, loop length, scan-mix hot set "
	  "(default: 10000)", 0 },
	{ "seed", OPT_SEED, "N", 0, "Random seed (default: 1)", 0 },
	{ "alpha", OPT_ALPHA, "A", 0,
	  "Zipf exponent for zipf, scan-mix, ycsb-f, scan-hot and shared-map, 0 to 100 "
	  "(default: 0.99; scan-hot and shared-map: 0.5)", 0 },
	{ "name", OPT_NAME, "NAME", 0, "Session name (default: the generator spec)", 0 },
	{ "kind", OPT_KIND, "KIND", 0,
	  "Key type: anon or file (default: file; ycsb-f and ycsb-load: anon)", 0 },
	{ "channel", OPT_CHANNEL, "CH", 0,
	  "Access channel: pt or fd (default: pt; scan-hot: fd)", 0 },
	{ 0, 0, 0, 0, "scan-mix, scan-hot and shared-map options:", 1 },
	{ "hot-keys", OPT_HOT_KEYS, "N", 0,
	  "Size of the Zipf hot set (default: --keys; scan-hot, shared-map: --keys / 8)", 1 },
	{ "scan-len", OPT_SCAN_LEN, "N", 0,
	  "Scanned keys per scan (default: 5000; scan-hot, shared-map: 16)", 1 },
	{ "scan-every", OPT_SCAN_EVERY, "N", 0,
	  "Hot accesses between scans (default: 20000; scan-hot, shared-map: 16)", 1 },
	{ "procs", OPT_PROCS, "N", 0,
	  "shared-map: processes taking turns, 1 to 64 (default: 4)", 1 },
	{ 0 }
};

/* scan-hot and shared-map: a hot set and a cyclic scan over the other keys */
static bool is_hot(enum hs_gen_type t)
{
	return t == HS_GEN_SCAN_HOT || t == HS_GEN_SHARED_MAP;
}

static void parse_count(struct argp_state *state, const char *opt, const char *arg,
			uint64_t max, uint64_t *out)
{
	if (hs_parse_u64(arg, 1, max, out))
		argp_error(state, "--%s '%s': expected a whole number from 1 to %" PRIu64, opt, arg,
			   max);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case OPT_ACCESSES:
		parse_count(state, "accesses", arg, MAX_ACCESSES, &a->o.accesses);
		break;
	case OPT_KEYS:
		parse_count(state, "keys", arg, MAX_KEYS / 2, &a->o.keys);
		break;
	case OPT_SEED:
		if (hs_parse_u64(arg, 0, UINT64_MAX, &a->o.seed))
			argp_error(state, "--seed '%s': expected a whole number", arg);
		break;
	case OPT_ALPHA:
		if (hs_parse_double(arg, 0.0, 100.0, &a->o.alpha))
			argp_error(state, "--alpha '%s': expected a number from 0 to 100", arg);
		a->alpha_set = true;
		break;
	case OPT_NAME:
		a->name = arg;
		break;
	case OPT_KIND:
		a->kind = hs_cli_argp_kind(state, arg);
		a->kind_set = true;
		break;
	case OPT_CHANNEL:
		a->channel = hs_cli_argp_channel(state, arg);
		a->channel_set = true;
		break;
	case OPT_HOT_KEYS:
		parse_count(state, "hot-keys", arg, MAX_KEYS / 2, &a->o.hot_keys);
		a->scan_set = true;
		break;
	case OPT_SCAN_LEN:
		parse_count(state, "scan-len", arg, MAX_ACCESSES, &a->o.scan_len);
		a->scan_set = true;
		a->scan_len_set = true;
		break;
	case OPT_SCAN_EVERY:
		parse_count(state, "scan-every", arg, MAX_ACCESSES, &a->o.scan_every);
		a->scan_set = true;
		a->scan_every_set = true;
		break;
	case OPT_PROCS: {
		uint64_t n;

		parse_count(state, "procs", arg, HS_GEN_MAX_PROCS, &n);
		a->o.procs = (unsigned int)n;
		a->procs_set = true;
		break;
	}
	case ARGP_KEY_ARG:
		if (a->type_name)
			argp_error(state, "one TYPE at a time (got '%s' too)", arg);
		if (hs_gen_type_parse(arg, &a->o.type))
			argp_error(state, "unknown generator '%s' (valid: %s)", arg,
				   hs_gen_type_list());
		a->type_name = arg;
		break;
	case ARGP_KEY_END:
		if (!a->type_name)
			argp_error(state, "missing TYPE (valid: %s)", hs_gen_type_list());
		if (a->alpha_set && (a->o.type == HS_GEN_LOOP || a->o.type == HS_GEN_YCSB_LOAD))
			argp_error(state, "--alpha does not apply to %s", a->type_name);
		if (a->scan_set && a->o.type != HS_GEN_SCAN_MIX && !is_hot(a->o.type))
			argp_error(state, "--hot-keys, --scan-len and --scan-every apply to "
				   "scan-mix, scan-hot and shared-map only");
		if (a->procs_set && a->o.type != HS_GEN_SHARED_MAP)
			argp_error(state, "--procs applies to shared-map only");
		if (is_hot(a->o.type)) {
			if (!a->scan_len_set)
				a->o.scan_len = HS_GEN_HOT_SCAN_LEN;
			if (!a->scan_every_set)
				a->o.scan_every = HS_GEN_HOT_SCAN_EVERY;
			if (!a->alpha_set)
				a->o.alpha = HS_GEN_HOT_ALPHA;
			if (!a->channel_set && a->o.type == HS_GEN_SCAN_HOT)
				a->channel = HS_CH_FD;	/* the workload read(2)s */
			if (a->o.keys < 2)
				argp_error(state, "%s: --keys must be at least 2 (a hot key "
					   "and a scanned key)", a->type_name);
			if (a->o.hot_keys >= a->o.keys)
				argp_error(state, "%s: --hot-keys must be less than --keys",
					   a->type_name);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "TYPE",
	.children = hs_format_children,
	.doc = "Make a synthetic session: TYPE is zipf, loop, scan-mix, ycsb-f, scan-hot,\n"
	       "ycsb-load or shared-map. The same "
	       "options and seed always make the same session.\v"
	       "EXAMPLES:\n"
	       "    hsctl gen zipf --alpha 0.8 --keys 5000 --accesses 200000 --seed 7\n"
	       "    hsctl gen loop --keys 1200 --accesses 12000     # cyclic scan\n"
	       "    hsctl gen scan-mix --hot-keys 500 --scan-len 2000 --scan-every 10000\n"
	       "    hsctl gen ycsb-f --keys 100000 --accesses 1000000 --format json\n"
	       "    hsctl gen scan-hot --keys 65536 --hot-keys 8192 --accesses 344064\n"
	       "    hsctl gen ycsb-load --accesses 1000000\n"
	       "    hsctl gen shared-map --keys 65536 --hot-keys 8192 --accesses 344064\n"
	       "\nGenerators: zipf (key = Zipf rank - 1 over --keys keys), loop (0, 1, ..,\n"
	       "keys-1, 0, ..), scan-mix (a Zipf hot set of --hot-keys keys; after every\n"
	       "--scan-every hot accesses a scan of --scan-len never-seen keys), ycsb-f (YCSB\n"
	       "workload F: Zipf records, half read, half read-modify-write = a read then a\n"
	       "write of the same page; anonymous PT accesses by default), scan-hot (--scan-every\n"
	       "Zipf accesses to a hot set of --hot-keys keys, then the next --scan-len keys\n"
	       "of a cyclic scan over the other keys; like record --workload scan-hot),\n"
	       "ycsb-load (B+tree inserts of scattered keys with 1 KiB records appended, in\n"
	       "one anonymous arena; --keys does not apply; like record --workload ycsb-load),\n"
	       "shared-map (scan-hot's turns taken in rotation by --procs processes, each\n"
	       "with its own Zipf draws, mapping one file: PT accesses; like record\n"
	       "--workload shared-map).\n"
	       "Capacity of a replay counts pages. See hsctl-gen(1).\n"
	       "\nExit status: 0 made, 64 usage error, 69 the database may not be written,\n"
	       "1 other failure.",
};

/* The hot set as the generator resolves it (lib/gen.h). */
static uint64_t hot_keys(const struct hs_gen_opts *o)
{
	if (o->hot_keys)
		return o->hot_keys;
	if (is_hot(o->type))
		return o->keys / 8 ? o->keys / 8 : 1;
	return o->keys;
}

/* "zipf --alpha 0.99 --keys 10000 --accesses 100000 --seed 1": the command that remakes it. */
static void spec(const struct args *a, char *buf, size_t len)
{
	const struct hs_gen_opts *o = &a->o;
	size_t off;

	off = (size_t)snprintf(buf, len, "%s", hs_gen_type_name(o->type));
	if (o->type != HS_GEN_LOOP && o->type != HS_GEN_YCSB_LOAD && off < len)
		off += (size_t)snprintf(buf + off, len - off, " --alpha %g", o->alpha);
	if (is_hot(o->type) && off < len)	/* the scan's end */
		off += (size_t)snprintf(buf + off, len - off, " --keys %" PRIu64, o->keys);
	if (o->type == HS_GEN_SHARED_MAP && off < len)
		off += (size_t)snprintf(buf + off, len - off, " --procs %u", o->procs);
	if ((o->type == HS_GEN_SCAN_MIX || is_hot(o->type)) && off < len)
		off += (size_t)snprintf(buf + off, len - off,
					" --hot-keys %" PRIu64 " --scan-len %" PRIu64
					" --scan-every %" PRIu64,
					hot_keys(o), o->scan_len,
					o->scan_every);
	else if (o->type != HS_GEN_YCSB_LOAD && off < len)	/* no key space */
		off += (size_t)snprintf(buf + off, len - off, " --keys %" PRIu64, o->keys);
	if (off < len)
		snprintf(buf + off, len - off, " --accesses %" PRIu64 " --seed %" PRIu64,
			 o->accesses, o->seed);
}

/* The generator's settings as the session's params (a JSON object), or NULL. */
static char *params_json(const struct args *a, const char *kind, const char *channel)
{
	const struct hs_gen_opts *o = &a->o;
	struct hs_json j;
	char *text = NULL;

	if (hs_json_init_mem(&j, 0))
		return NULL;
	hs_json_object(&j);
	hs_json_key(&j, "type");
	hs_json_str(&j, hs_gen_type_name(o->type));
	hs_json_key(&j, "accesses");
	hs_json_uint(&j, o->accesses);
	hs_json_key(&j, "seed");
	hs_json_uint(&j, o->seed);
	if (o->type != HS_GEN_LOOP && o->type != HS_GEN_YCSB_LOAD) {
		hs_json_key(&j, "alpha");
		hs_json_real(&j, o->alpha);
	}
	if (o->type == HS_GEN_SHARED_MAP) {
		hs_json_key(&j, "keys");
		hs_json_uint(&j, o->keys);
		hs_json_key(&j, "procs");
		hs_json_uint(&j, o->procs);
	}
	if (o->type == HS_GEN_SCAN_MIX || is_hot(o->type)) {
		hs_json_key(&j, "hot_keys");
		hs_json_uint(&j, hot_keys(o));
		hs_json_key(&j, "scan_len");
		hs_json_uint(&j, o->scan_len);
		hs_json_key(&j, "scan_every");
		hs_json_uint(&j, o->scan_every);
	} else {
		hs_json_key(&j, "keys");
		hs_json_uint(&j, o->keys);
	}
	hs_json_key(&j, "kind");
	hs_json_str(&j, kind);
	hs_json_key(&j, "channel");
	hs_json_str(&j, channel);
	hs_json_end(&j);
	if (hs_json_take(&j, &text))
		return NULL;
	return text;
}

static int run(int argc, char **argv)
{
	struct hs_session_writer *w = NULL;
	struct hs_session_meta m = { 0 };
	struct hs_store *st = NULL;
	struct hs_gen *g = NULL;
	char origin[256], *pj = NULL;
	enum hs_type kind;
	struct args a;
	int64_t id = 0;
	uint64_t key;
	uint8_t meta;
	int ret, status;

	memset(&a, 0, sizeof(a));
	hs_gen_opts_init(&a.o, HS_GEN_ZIPF);	/* defaults; the type is set by TYPE */
	a.channel = HS_CH_PT;
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return HS_EXIT_USAGE;
	if (a.kind_set)
		kind = a.kind;
	else
		kind = a.o.type == HS_GEN_YCSB_F || a.o.type == HS_GEN_YCSB_LOAD ? HS_TYPE_ANON :
										     HS_TYPE_FILE;
	a.o.meta = hs_meta_make(a.channel, kind, false);
	if (a.o.type == HS_GEN_SCAN_MIX &&
	    (a.o.hot_keys ? a.o.hot_keys : a.o.keys) + a.o.accesses > MAX_KEYS) {
		hs_err("scan-mix: hot keys plus scanned keys could exceed %llu distinct keys",
		       (unsigned long long)MAX_KEYS);
		return HS_EXIT_USAGE;
	}

	ret = hs_gen_new(&a.o, &g);
	if (ret) {
		hs_err("gen %s: %s", hs_gen_type_name(a.o.type), strerror(-ret));
		return ret == -EINVAL ? HS_EXIT_USAGE : HS_EXIT_FAILURE;
	}
	status = hs_cli_open_store(0, &st);
	if (status)
		goto out_free_gen;

	spec(&a, origin, sizeof(origin));
	pj = params_json(&a, kind == HS_TYPE_ANON ? "anon" : "file", hs_channel_name(a.channel));
	if (!pj) {
		hs_err("out of memory");
		status = HS_EXIT_FAILURE;
		goto out_close_store;
	}
	m.source = "gen";
	m.name = a.name ? a.name : origin;
	m.origin = origin;
	m.format = hs_gen_type_name(a.o.type);
	m.unit = "page";
	m.kind = kind == HS_TYPE_ANON ? "anon" : "file";
	m.channel = hs_channel_name(a.channel);
	m.params_json = pj;

	ret = hs_session_begin(st, &m, &w);
	if (ret) {
		status = hs_cli_store_err(st, hs_exit_from_errno(ret));
		goto out_close_store;
	}
	while (hs_gen_next(g, &key, &meta) == 1) {
		ret = hs_session_add(w, key, meta);
		if (ret) {
			status = hs_cli_store_err(st, HS_EXIT_FAILURE);
			hs_session_abort(w);
			goto out_close_store;
		}
	}
	ret = hs_session_commit(w, &id);
	if (ret) {
		status = hs_cli_store_err(st, HS_EXIT_FAILURE);
		goto out_close_store;
	}
	status = hs_cli_print_session(st, id);

out_close_store:
	free(pj);
	hs_store_close(st);
out_free_gen:
	hs_gen_free(g);
	return status;
}

const struct hs_cmd hs_cmd_gen = {
	.name = "gen",
	.summary = "Make a synthetic session (zipf, loop, scan-mix, ycsb-f, scan-hot, ycsb-load, "
		   "shared-map)",
	.run = run,
};
