// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lcs-misses - exact miss count of one libCacheSim policy on an oracleGeneral trace.
 *
 * bench/run compiles this against the libCacheSim checkout given as LIBCACHESIM=DIR (its
 * headers and the static libraries its cmake build made for cachesim) and never times it:
 * cachesim prints only a miss ratio rounded to four decimals, 1,000 misses apart on a 10 M
 * access trace, so the exact count that hsctl's must equal comes from here.  The loop is
 * cachesim's single-cache one (every request counted, objects of size 1 as with
 * --ignore-obj-size 1, the same cache parameters cachesim's create_cache passes), and
 * bench/run also checks that cachesim's printed ratio rounds from this count.
 *
 * Usage: lcs-misses TRACE POLICY SIZE   (POLICY: lru fifo clock arc twoq lirs belady)
 * Prints "REQUESTS MISSES"; exit 64 on a usage error, 1 when the trace cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libCacheSim.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		cache_t *(*init)(const common_cache_params_t, const char *);
	} algos[] = {
		{ "lru", LRU_init },	 { "fifo", FIFO_init }, { "clock", Clock_init },
		{ "arc", ARC_init },	 { "twoq", TwoQ_init }, { "lirs", LIRS_init },
		{ "belady", Belady_init },
	};
	common_cache_params_t cc = { 0 };
	reader_init_param_t rp = { 0 };
	unsigned long long req = 0, miss = 0;
	cache_t *(*init)(const common_cache_params_t, const char *) = NULL;
	request_t *r;
	reader_t *rd;
	cache_t *c;
	char *end;
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: lcs-misses TRACE POLICY SIZE\n");
		return 64;
	}
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		if (!strcasecmp(argv[2], algos[i].name))
			init = algos[i].init;
	cc.cache_size = strtoull(argv[3], &end, 10);
	if (!init || *end || !cc.cache_size) {
		fprintf(stderr, "lcs-misses: bad policy '%s' or size '%s'\n", argv[2], argv[3]);
		return 64;
	}
	/* cachesim's create_cache() and parse_cmd() settings for these policies */
	cc.default_ttl = 86400 * 300;
	cc.hashpower = 24;
	rp.ignore_obj_size = true;
	rp.ignore_size_zero_req = true;
	rp.obj_id_is_num = true;
	rp.cap_at_n_req = -1;

	rd = open_trace(argv[1], ORACLE_GENERAL_TRACE, &rp);
	if (!rd) {
		fprintf(stderr, "lcs-misses: cannot read %s\n", argv[1]);
		return 1;
	}
	c = init(cc, NULL);
	r = new_request();
	while (read_one_req(rd, r) == 0 && r->valid) {
		req++;
		if (!c->get(c, r))
			miss++;
	}
	printf("%llu %llu\n", req, miss);
	free_request(r);
	c->cache_free(c);
	close_trace(rd);
	return 0;
}
