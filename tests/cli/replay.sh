#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl replay end to end, on a ten-access trace whose outcome is computed by
# hand below, plus the storage of runs, the output formats, parameter sweeps,
# threads vs one thread, and every usage error with its exit status.
. "$TESTS_SRCDIR/cli/setup.sh"

# Keys 1 2 3 1 2 4 1 2 3 4, capacity 3.
#   LRU:  1m 2m 3m 1h 2h 4m(-3) 1h 2h 3m(-4) 4m(-1)          4 hits, 6 misses
#   FIFO: 1m 2m 3m 1h 2h 4m(-1) 1m(-2) 2m(-3) 3m(-4) 4m(-1)  2 hits, 8 misses
#   OPT:  1m 2m 3m 1h 2h 4m(-3: next use farthest) 1h 2h
#         3m(-1 or -2: neither is used again) 4h             5 hits, 5 misses
#   LRU refaults: 3 (evicted at the 4, back at step 9) and 4 (evicted at step 9,
#   back at step 10): 2 refaults, no key twice, so no ping-pong.
printf '1\n2\n3\n1\n2\n4\n1\n2\n3\n4\n' >tiny.txt
expect_status 0 "$HSCTL" -d "$DB" import --type text --name tiny tiny.txt

expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,fifo,opt --size 3 --format csv
CSV=$OUT
field() {	# field POLICY COLUMN: a column of that policy's row in $CSV
	printf '%s\n' "$CSV" | awk -F, -v p="$1" -v c="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$3 == p { print $col[c] }'
}
expect_eq "$(field lru hits)" 4
expect_eq "$(field lru misses)" 6
expect_eq "$(field lru refaults)" 2
expect_eq "$(field lru pingpong_keys)" 0
expect_eq "$(field lru accesses)" 10
expect_eq "$(field fifo hits)" 2
expect_eq "$(field opt hits)" 5
expect_eq "$(field lru opt_gap)" 1.200000
expect_eq "$(field fifo opt_gap)" 1.600000
expect_eq "$(field lru hit_ratio)" 0.400000
# CSV cells hold single values: the lists and maps (protection, refault_hist,
# metrics) are JSON only, so the header ends at the readahead counters and
# pswp_source (the kernel row's) and no cell is a list.
expect_eq "$(printf '%s\n' "$CSV" | head -n 1 | tr ',' '\n' | tail -n 4 | tr '\n' ' ')" \
	"opt_gap readahead_pages readahead_unused pswp_source "
expect_eq "$(printf '%s\n' "$CSV" | head -n 1 | tr ',' '\n' | wc -l | tr -d ' ')" 29
expect_no_grep '\[' "$CSV"

# The runs are stored and v_runs agrees.
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT policy, hits, hit_ratio FROM v_runs ORDER BY policy" --format csv
expect_grep '^fifo,2,0.2$' "$OUT"
expect_grep '^lru,4,0.4$' "$OUT"
expect_grep '^opt,5,0.5$' "$OUT"

# The table names the session and fits in 80 columns.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy all --size 2,3 --no-store
expect_grep '^session 1 (tiny)' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | awk 'length > 80' | head -n 1)" ""
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT count(*) FROM runs" --format csv
expect_grep '^3$' "$OUT"

# Identical rows get a note after the table, saying why when the tool knows.  On
# tiny.txt, size 4 holds all 4 keys: 4 misses, all first accesses, for every
# policy; at size 3 LRFU with lambda = 1 is LRU (both 6 misses, FIFO 8);
# HitShield shields on a key's 4th generation update, which no key reaches
# in 10 accesses, so both thresholds run as MGLRU.
notes() {
	printf '%s\n' "$OUT" | sed -n '/^note: /,$p'
}
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,fifo,lrfu --param lrfu.lambda=1 \
	--size 3,4 --no-store
expect_eq "$(notes)" "note: identical rows at size 3: lru = lrfu(lambda=1); lrfu(lambda=1) is exactly
      LRU
note: identical rows at size 4: lru = fifo = lrfu(lambda=1); every miss was a
      key's first access (4 cold misses): no eviction choice mattered"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy mglru,hitshield \
	--param hitshield.threshold=0,4 --size 3 --no-store
expect_eq "$(notes)" "note: identical rows at size 3: mglru = hitshield(threshold=0) =
      hitshield(threshold=4); hitshield(threshold=0) set 0 shields and spent 0,
      so it ran as mglru; hitshield(threshold=4) set 0 shields and spent 0, so
      it ran as mglru"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,fifo --size 3 --no-store
expect_eq "$(notes)" ""
# Machine formats print rows only.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,fifo --size 4 --no-store --format csv
expect_eq "$(notes)" ""

# The memory estimate (hsctl-replay(1)): 8 MiB + keys x the runs' bytes per key
# (the driver's records: lru 16 + arc 24 = 40; lrfu 32 + opt 16 = 48), + bytes
# per resident key (lrfu 24 + opt 16, x min(size 3, 4 keys) = 120), + next uses
# for OPT (4 bytes x 10 records + 4 bytes x 4 keys) and the keys its pass keeps
# for it to step through (4 bytes x 10 records).  Shown with -v; without it
# only for a large sweep.
expect_status 0 "$HSCTL" -d "$DB" -v replay 1 --policy lru,arc --size 3 --no-store
expect_grep '^hsctl: replay: 2 runs over 4 keys: about 8.0 MiB of memory (estimate: 8 MiB + 4 keys x 40 bytes)$' "$ERR"
expect_status 0 "$HSCTL" -d "$DB" -v replay 1 --policy lrfu,opt --size 3 --no-store
expect_grep '^hsctl: replay: 2 runs over 4 keys: about 8.0 MiB of memory (estimate: 8 MiB + 4 keys x 48 bytes + 120 bytes for resident keys + next uses: 4 bytes x 10 records + 4 bytes x 4 keys + the keys kept: 4 bytes x 10 records)$' "$ERR"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,arc --size 3 --no-store
expect_eq "$ERR" ""

# JSON: an object with a runs array; params is an object.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lrfu --param lrfu.lambda=1,0.5 \
	--size 3 --format json
JSON=$OUT
if command -v python3 >/dev/null 2>&1; then
	expect_eq "$(printf '%s' "$JSON" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["runs"]), sorted(r["params"]["lambda"] for r in d["runs"]),
      [r["hits"] for r in d["runs"] if r["params"]["lambda"] == 1])')" "2 [0.5, 1] [4]"
fi

# JSON extras: ARC's protections by kind, the refault histogram, its own metrics.
# LRU's two refaults (see above), counting accesses from 0: 3 was evicted at
# seq 5 (by the 4) and came back at seq 8, distance 3, bucket [2, 4); 4 was
# evicted at 8 and came back at 9, distance 1, bucket [1, 2).
if command -v python3 >/dev/null 2>&1; then
	expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,arc --size 3 --no-store \
		--format json --channel fd
	expect_eq "$(printf '%s' "$OUT" | python3 -c '
import json, sys
r = {x["policy"]: x for x in json.load(sys.stdin)["runs"]}
print(r["lru"]["refault_hist"], r["lru"]["protection"], r["lru"]["metrics"],
      sorted(r["arc"]["metrics"])[:2])')" \
		"[{'lo': 1, 'hi': 2, 'count': 1}, {'lo': 2, 'hi': 4, 'count': 1}] {} {} ['arc.b1', 'arc.b2']"
fi
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --channel xx
expect_grep "unknown channel 'xx' (valid: pt, fd)" "$ERR"

# --pageout: the trace has no hints, so results stay; a mode other than the
# default joins the params and the label of the policies it reaches (not
# mglru, which has its own pageout parameter).
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,mglru --size 3 --no-store \
	--format csv --pageout recheck --recheck-window 2
expect_grep '^,1,lru,"{""pageout"":""recheck"",""recheck_window"":2}",3,10,4,6,' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | grep -c '^,1,mglru,')" 1
expect_eq "$(printf '%s\n' "$OUT" | grep -c '^,1,mglru,.*pageout"":""recheck""')" 0
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 3 --no-store --pageout ignore
expect_grep '^lru(pageout=ignore) ' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 3 --no-store \
	--pageout ignore-references --format csv
expect_grep '^,1,lru,{},3,' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy mglru --size 3 --no-store --pageout ignore
expect_grep 'warning: --pageout does not apply to mglru' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --pageout xx
expect_grep "unknown pageout mode 'xx' (valid: ignore-references, recheck, ignore)" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --recheck-window 4
expect_grep 'needs --pageout recheck' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --pageout recheck --recheck-window -1
# The model's readahead: windows of 2 to 65536 pages; on a session without
# addresses (this one is generated) there is nothing to read ahead.
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --readahead-model=1
expect_grep "readahead-model '1': expected pages from 2 to 65536" "$ERR"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 3 --no-store --format csv \
	--readahead-model
CSV=$OUT
expect_eq "$(field lru misses) $(field lru readahead_pages)" "6 0"
# Folio mode needs a recording's folios: a generated session replays page by
# page, with or without --no-folios, and its runs' params do not say folios.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 3 --no-store --format csv \
	--no-folios
CSV=$OUT
expect_eq "$(field lru misses)" "6"
expect_no_grep folios "$OUT"

# A session that saw faults only: the accessed-bit policies are warned about,
# the others are not.
expect_status 0 "$HSCTL" -d "$DB" import --type text --name faulty tiny.txt
expect_status 0 "$HSCTL" -d "$DB" sql --write "UPDATE sessions SET visibility = 'faults' WHERE id = 2"
expect_status 0 "$HSCTL" -d "$DB" replay 2 --policy mglru,lru --size 3 --no-store
expect_grep "warning: session 2 saw faults only: mglru ages on accessed bits" "$ERR"
expect_no_grep ": lru ages" "$ERR"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy mglru --size 3 --no-store
expect_no_grep "warning" "$ERR"
expect_status 0 "$HSCTL" -d "$DB" sessions rm 2

# N% of the distinct keys (4): 50% is 2; threads do not change results.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --size 50% --policy lru --format csv --no-store
expect_grep '^,1,lru,{},2,' "$OUT"
if command -v python3 >/dev/null 2>&1; then
	strip() {	# every field of every run but its id and its timing
		printf '%s' "$1" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["runs"]:
    r.pop("wall_s"); r.pop("run"); print(sorted(r.items()))'
	}
	expect_status 0 "$HSCTL" -d "$DB" replay 1 --size 1,2,3 --threads 1 --no-store \
		--format json
	ONE=$(strip "$OUT")
	expect_status 0 "$HSCTL" -d "$DB" replay 1 --size 1,2,3 --threads 2 --no-store \
		--format json
	expect_eq "$(strip "$OUT")" "$ONE"
fi
expect_status 0 "$HSCTL" -d "$DB" replay 1 --size 2 --paranoid --no-store

# Usage errors: 64 with a message naming the valid choices.
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy nosuch --size 3
expect_grep "unknown policy 'nosuch' (valid: .*lru" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lrfu --param lrfu.nosuch=1 --size 3
expect_grep 'nosuch' "$ERR"
expect_grep 'lambda' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lrfu --param lrfu.lambda=7 --size 3
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lru --param lrfu.lambda=1 --size 3
expect_grep 'not being replayed' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lru --param lambda --size 3
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lru --size abc
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lru --size 0
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lru --size 10K
expect_status 64 "$HSCTL" -d "$DB" replay 1 --policy lru
expect_grep 'missing --size' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay --size 3
expect_status 64 "$HSCTL" -d "$DB" replay x1 --size 3
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --threads 0
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --format yaml
expect_status 66 "$HSCTL" -d "$DB" replay 9 --size 3
expect_grep 'no session 9' "$ERR"
expect_status 66 "$HSCTL" -d "$T_DIR/none.db" replay 1 --size 3
expect_eq "$(ls "$T_DIR" | grep -c none.db || true)" 0

# A recorded session replays at its memory limit without --size, else at its
# peak usage: session 1 made a recording by hand (limit 3 pages), so LRU gives
# the 4 hits computed above.
cp "$DB" rec.db
expect_status 0 "$HSCTL" -d rec.db sql --write "UPDATE sessions SET source = 'record'
	WHERE id = 1; INSERT INTO recordings (session, pid, memory_limit_pages, peak_pages)
	VALUES (1, 1, 3, 5)"
expect_status 0 "$HSCTL" -d rec.db -v replay 1 --policy lru --no-store --format csv
expect_grep '^hsctl: no --size: capacity 3 pages, session 1.s memory limit$' "$ERR"
CSV=$OUT
expect_eq "$(field lru capacity)" 3
expect_eq "$(field lru hits)" 4
expect_status 0 "$HSCTL" -d rec.db replay 1 --policy lru --no-store --size 2 --format csv
CSV=$OUT
expect_eq "$(field lru capacity)" 2
expect_status 0 "$HSCTL" -d rec.db sql --write \
	'UPDATE recordings SET memory_limit_pages = NULL, peak_pages = 3'
expect_status 0 "$HSCTL" -d rec.db -v replay 1 --policy lru --no-store --format csv
expect_grep 'capacity 3 pages, session 1.s peak usage$' "$ERR"
CSV=$OUT
expect_eq "$(field lru hits)" 4
expect_status 0 "$HSCTL" -d rec.db sql --write 'UPDATE recordings SET peak_pages = NULL'
expect_status 64 "$HSCTL" -d rec.db replay 1 --policy lru --no-store
expect_eq "$ERR" 'hsctl: missing --size (e.g. --size 1000,5000): session 1 has no recorded'\
' memory limit'

# The DAMON model needs the trace clock: an imported session, or a recording
# without times, is refused with 65; its options are checked as usage.
expect_status 65 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-deprio 1
expect_eq "$ERR" 'hsctl: --damon-deprio: session 1 is imported, not recorded: it has no'\
' trace-clock times'
expect_status 65 "$HSCTL" -d rec.db replay 1 --policy linux-2q --size 3 --no-store \
	--damon-deprio 0.5/50
expect_grep "^hsctl: --damon-deprio: session 1's stream has no trace-clock times$" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-min-age 1000
expect_grep 'damon-min-age needs --damon-deprio' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-deprio 2000
expect_grep "damon-deprio '2000': expected RATE" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-deprio 1/0
# The region model likewise; it takes no RATE, and its own options need it.
expect_status 65 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model regions
expect_eq "$ERR" 'hsctl: --damon-model regions: session 1 is imported, not recorded: it has no'\
' trace-clock times'
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model regions --damon-deprio 1
expect_grep 'damon-model regions takes no --damon-deprio' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-quota 40
expect_grep 'damon-quota and --damon-pace need --damon-model regions' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model regions --damon-pace 0
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model lru
expect_grep "damon-model 'lru': expected draws, regions or recorded" "$ERR"
# The kernel's recorded actions: no monitoring, so none of its options.
expect_status 65 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model recorded
expect_eq "$ERR" 'hsctl: --damon-model recorded: session 1 is imported, not recorded: it has no'\
' trace-clock times'
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model recorded --damon-pace 2
expect_grep 'damon-model recorded takes no --damon-min-age, --damon-quota or --damon-pace' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" replay 1 --size 3 --damon-model recorded --damon-deprio 1
expect_grep 'damon-model recorded takes no --damon-deprio' "$ERR"
expect_status 65 "$HSCTL" -d rec.db replay 1 --policy linux-2q --size 3 --no-store \
	--damon-model regions
expect_grep '^hsctl: --damon-model regions: session 1 has no recorded key table, so no page frames$' \
	"$ERR"

# Only the first three runs and the two lrfu runs were stored: --no-store and
# failed invocations add nothing.
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT count(*) FROM runs" --format csv
expect_grep '^5$' "$OUT"
finish
