#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Does the model evict what the kernel evicted (issue 9)?  The kernel row of
# a recorded session (v_kernel, printed first by hsctl replay) and the
# eviction log of replay --log-evictions (run_evictions, v_evictions).
#
# Session 1 is the text import of keys 10 20 30 10 (dense keys 0 1 2 0),
# turned into a recording by hand with a memory limit of 2 pages and these
# lives (flags: 0x01 readahead, 0x02 unseen birth, 0x08 swap-in, 0x10
# swap-out; wl: the workload's own):
#
#   life kind pages flags wl accesses death     refault  counts toward
#   0    file 4     0x00  1  3        reclaim   0        demand 4, evicted 4
#   1    file 2     0x01  1  0        alive     0        readahead 2, never used 2
#   2    file 1     0x01  1  5        pageout   1        readahead 1, evicted 1, refault 1
#   3    file 8     0x02  1  1        reclaim   0        evicted 8 (not a demand miss)
#   4    anon 1     0x08  1  1        alive     1        demand 1, refault 1, swap-in 1
#   5    anon 1     0x10  1  1        reclaim   0        demand 1, evicted 1, swap-out 1
#   6    file 16    0x00  0  0        reclaim   1        another process's: not counted
#   7    anon 1     0x08  0  1        alive     1        another process's: not counted
#
# Kernel row: 6 lives of 17 pages, 6 demand misses, 3 read ahead (2 never
# used), 2 refaults, 14 evicted, pswpin 1 and pswpout 1 from the lives; with
# the cgroup's memory.stat pswpin 7 and pswpout 9 stored, those instead.
#
# LRU at capacity 2 over a b c a evicts a (key 0, original 10) at position 2
# and b (key 1, original 20) at 3; FIFO the same.  At capacity 1 every access
# after the first evicts its predecessor: keys 0 1 2 at positions 1 2 3.
. "$TESTS_SRCDIR/cli/setup.sh"

H() {
	"$HSCTL" -d "$DB" "$@"
}

printf '10\n20\n30\n10\n' >abca.txt
expect_status 0 H import --type text abca.txt
expect_status 0 H sql --write "UPDATE sessions SET source = 'record' WHERE id = 1;
	INSERT INTO recordings (session, pid, memory_limit_pages) VALUES (1, 1, 2);
	INSERT INTO folio_lives (session, life, kind, dev, ino, tgid, first_page, pages,
		death_cause, refault, flags, workload, accesses, activations) VALUES
		(1, 0, 0, 1, 2, 0, 0, 4, 1, 0, 0, 1, 3, 0),
		(1, 1, 0, 1, 2, 0, 4, 2, 0, 0, 1, 1, 0, 0),
		(1, 2, 0, 1, 2, 0, 6, 1, 2, 1, 1, 1, 5, 0),
		(1, 3, 0, 1, 3, 0, 0, 8, 1, 0, 2, 1, 1, 0),
		(1, 4, 1, NULL, NULL, 100, 5, 1, 0, 1, 8, 1, 1, 0),
		(1, 5, 1, NULL, NULL, 100, 6, 1, 1, 0, 16, 1, 1, 0),
		(1, 6, 0, 1, 4, 0, 0, 16, 1, 1, 0, 0, 0, 0),
		(1, 7, 1, NULL, NULL, 200, 5, 1, 0, 1, 8, 0, 1, 0)"

# --- the view ---
expect_status 0 H sql --format csv 'SELECT * FROM v_kernel'
expect_eq "$OUT" 'session,policy,capacity,lives,pages,demand_miss_pages,readahead_pages,'\
'readahead_unused_pages,refault_pages,evicted_pages,pswpin_pages,pswpout_pages,pswp_source
1,kernel,2,6,17,6,3,2,2,14,1,1,lives'
expect_status 0 H sql --format csv \
	'SELECT scope, count(*) AS n, sum(pages) AS p FROM v_folio_lives GROUP BY 1 ORDER BY 1'
expect_eq "$OUT" "$(printf 'scope,n,p\nother,2,17\nworkload,6,17')"
expect_status 0 H sql --format csv 'SELECT tgid, scope FROM v_folio_lives WHERE kind = '"'anon'"'
	ORDER BY life'
expect_eq "$OUT" "$(printf 'tgid,scope\n100,workload\n100,workload\n200,other')"

# --- replay prints it first: table, CSV, JSON ---
expect_status 0 H replay 1 --policy lru --size 2 --no-store
expect_grep "^kernel, the workload's pages: 6 demand misses, 3 read ahead (2 never used), "\
'2 refaults, 14 evicted, pswpin 1, pswpout 1 (from lives)$' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | grep -A1 '^policy' | tail -n 1 | tr -s ' ')" 'kernel 2 6 2 3 2'
expect_status 0 H replay 1 --policy lru --size 2 --no-store --format csv
expect_eq "$(printf '%s\n' "$OUT" | sed -n 2p)" ',1,kernel,,2,,,6,,14,2,,,,,,,,,,1,1,,,,,3,2,lives'
expect_grep '^,1,lru,{},2,4,0,4,.*,nan,0,0,$' "$OUT"
expect_grep ',opt_gap,readahead_pages,readahead_unused,pswp_source$' "$OUT"
expect_status 0 H replay 1 --policy lru --size 2 --no-store --format json
expect_grep '^  {"run": null, "session": 1, "policy": "kernel", "params": null, "capacity": 2,'\
' "accesses": null, "hits": null, "misses": 6, "hit_ratio": null, "evictions": 14,'\
' "refaults": 2, "pingpong_keys": null, .* "pswpin": 1, "pswpout": 1, .*'\
' "readahead_pages": 3, "readahead_unused": 2, "pswp_source": "lives",'\
' "protection": null, "refault_hist": null, "metrics": null},$' "$OUT"

# --- a kernel without readahead events (6.1, 6.12: page_cache_sync_ra came with 6.18): the
# stored format files say so, and the line says where its read-ahead pages went; with the
# events' formats stored, the counts again ---
expect_status 0 H sql --write "INSERT INTO record_formats (session, path, content) VALUES
	(1, 'events/filemap/mm_filemap_add_to_page_cache/format', x'00')"
expect_status 0 H replay 1 --policy lru --size 2 --no-store
expect_grep "^kernel, the workload's pages: 6 demand misses, read ahead: not traced by this"\
" kernel (its pages are among the demand misses), 2 refaults, 14 evicted, pswpin 1, pswpout 1"\
' [(]from lives[)]$' "$OUT"
# a build that inferred readahead from the adds (lib/lc-stream.c) stored its counter
expect_status 0 H sql --write "INSERT INTO record_counters (session, file, scope, name, before,
	after, delta) VALUES (1, 'lifecycle', 'session', 'readahead_inferred', 0, 3, 3)"
expect_status 0 H replay 1 --policy lru --size 2 --no-store
expect_grep "^kernel, the workload's pages: 6 demand misses, 3 read ahead (2 never used;"\
" inferred from filemap adds, this kernel has no readahead events), 2 refaults, " "$OUT"
expect_status 0 H sql --write "INSERT INTO record_formats (session, path, content) VALUES
	(1, 'events/readahead/page_cache_sync_ra/format', x'00')"
expect_status 0 H replay 1 --policy lru --size 2 --no-store
expect_grep "^kernel, the workload's pages: 6 demand misses, 3 read ahead (2 never used), " "$OUT"

# --- the cgroup's own swap counters, when stored, take over ---
expect_status 0 H sql --write "INSERT INTO record_counters (session, file, scope, name, before,
	after, delta) VALUES (1, 'memory.stat', 'cgroup', 'pswpin', 0, 7, 7),
	(1, 'memory.stat', 'cgroup', 'pswpout', 0, 9, 9)"
expect_status 0 H sql --format csv 'SELECT pswpin_pages, pswpout_pages, pswp_source FROM v_kernel'
expect_eq "$OUT" "$(printf 'pswpin_pages,pswpout_pages,pswp_source\n7,9,memory.stat')"

# --- a session whose lives carry no mark (an older build): no kernel row, a warning ---
expect_status 0 H sql --write 'UPDATE folio_lives SET workload = 0'
expect_status 0 H replay 1 --policy lru --size 2 --no-store
expect_no_grep '^kernel' "$OUT"
expect_grep "^hsctl: warning: session 1: no life is marked as the workload's" "$ERR"
# an imported session has none either, silently
expect_status 0 H import --type text abca.txt
expect_status 0 H replay 2 --policy lru --size 2 --no-store --format csv
expect_no_grep 'kernel' "$OUT"
expect_eq "$ERR" ''

# --- the eviction log ---
expect_status 64 H replay 2 --policy lru --size 2 --log-evictions --no-store
expect_grep 'log-evictions stores the log: not with --no-store' "$ERR"
expect_status 0 H replay 2 --policy lru --size 2 --log-evictions
expect_status 0 H sql --format csv 'SELECT run, n, position, key, hinted, original_key
	FROM v_evictions ORDER BY run, n'
expect_eq "$OUT" "$(printf 'run,n,position,key,hinted,original_key\n1,0,2,0,0,10\n1,1,3,1,0,20')"
expect_status 0 H replay 2 --policy fifo,lru --size 1,2 --log-evictions
expect_status 0 H sql --format csv 'SELECT policy, capacity, group_concat(position || ":" || key,
	" ") AS log FROM (SELECT * FROM v_evictions WHERE run > 1 ORDER BY run, n)
	GROUP BY run ORDER BY run'
expect_eq "$OUT" 'policy,capacity,log
fifo,1,1:0 2:1 3:2
fifo,2,2:0 3:1
lru,1,1:0 2:1 3:2
lru,2,2:0 3:1'
# every run's log holds exactly its evictions; a run without --log-evictions has none
expect_status 0 H replay 2 --policy lru --size 1
expect_status 0 H sql --format csv 'SELECT r.id, r.evictions + r.hint_evictions AS runs,
	(SELECT count(*) FROM v_evictions AS e WHERE e.run = r.id) AS logged FROM runs AS r
	ORDER BY r.id'
expect_eq "$OUT" "$(printf 'id,runs,logged\n1,2,2\n2,3,3\n3,2,2\n4,3,3\n5,2,2\n6,3,0')"
expect_status 0 H sql --format csv 'SELECT count(*) AS n FROM run_evictions'
expect_eq "$OUT" "$(printf 'n\n5')"

# --- a corrupt chunk is an SQL error naming it (exit 1, hsctl-sql(1)), not a crash ---
expect_status 0 H sql --write "UPDATE run_evictions SET data = x'0000' WHERE run = 1"
expect_status 1 H sql 'SELECT * FROM v_evictions WHERE run = 1'
expect_grep 'hs_evictions: corrupt eviction chunk: truncated varint' "$ERR"
expect_status 0 H sql --write "UPDATE run_evictions SET data = x'00000202ff' WHERE run = 1"
expect_status 1 H sql 'SELECT * FROM v_evictions WHERE run = 1'
expect_grep 'hs_evictions: corrupt eviction chunk: bytes after the last eviction' "$ERR"
expect_status 0 H sql --write "UPDATE run_evictions SET encoding = 9, data = x'00000202'
	WHERE run = 1"
expect_status 1 H sql 'SELECT * FROM v_evictions WHERE run = 1'
expect_grep 'hs_evictions: corrupt eviction chunk: unknown eviction chunk encoding' "$ERR"
expect_status 0 H sql --write "UPDATE run_evictions SET encoding = 1, nr_evictions = 0
	WHERE run = 1"
expect_status 1 H sql 'SELECT * FROM v_evictions WHERE run = 1'
expect_grep 'hs_evictions: corrupt eviction chunk: bad chunk header' "$ERR"
# removing the session removes its runs' logs
expect_status 0 H sessions rm 2
expect_status 0 H sql --format csv 'SELECT count(*) AS n FROM run_evictions'
expect_eq "$OUT" "$(printf 'n\n0')"

finish
