#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# DAMON's regions in a live recording (damon:damon_aggregated and
# damon:damos_before_apply, the views v_ev_damon_aggregated and
# v_ev_damos_apply of hsctl-db(5)); root, tracefs and DAMON's sysfs
# interface needed, else exit 77:
#   1. with a kdamond of this test's own monitoring the physical memory
#      (paddr, the biggest System RAM range of /proc/iomem, DAMON's 5 ms
#      samples and 100 ms aggregations) with one scheme that only counts
#      (action stat, every region), a recorded zipf-read holds its regions:
#      named after kdamond, inside the monitored range, each aggregation's
#      regions tiling it from its start with no gap or overlap, as many as
#      each row's nr_regions says, nr_accesses at most the samples an
#      aggregation takes (20); and the scheme's actions: scheme 0, inside
#      the range, each on a region of an aggregation; no region became a
#      page's life (the self-checks still pass);
#   2. with the kdamond off, a recording has none.
# The kdamond is turned off and removed on every exit path.
. "$TESTS_SRCDIR/cli/setup.sh"

[ "$(id -u)" -eq 0 ] || skip "live recording needs root (euid $(id -u))"
live_lock damon-live.sh
need_tracefs
K=/sys/kernel/mm/damon/admin/kdamonds
[ -w "$K/nr_kdamonds" ] || skip "no DAMON sysfs interface ($K)"
[ "$(cat "$K/nr_kdamonds")" = 0 ] || skip "a kdamond exists already (not this test's)"
"$HSCTL" record --list-events | grep -qx 'damon:damon_aggregated' ||
	skip "this kernel has no damon:damon_aggregated"

damon_off() {
	{ echo off >"$K/0/state"; } 2>/dev/null || true
	{ echo 0 >"$K/nr_kdamonds"; } 2>/dev/null || true
}
trap 'damon_off; t_cleanup' EXIT

sql() {	# sql QUERY: one value, csv without the header
	"$HSCTL" -d "$DB" sql --format csv "$1" | sed 1d
}

# The biggest System RAM range, as DAMON_RECLAIM and DAMON_LRU_SORT take by default.
MSTART= MEND=
for r in $(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : System RAM$/\1-\2/p' /proc/iomem); do
	s=$((0x${r%-*})) e=$((0x${r#*-} + 1))
	if [ -z "$MSTART" ] || [ $((e - s)) -gt $((MEND - MSTART)) ]; then
		MSTART=$s MEND=$e
	fi
done
[ -n "$MSTART" ] || skip "no System RAM range in /proc/iomem"

echo 1 >"$K/nr_kdamonds" || fail "cannot create a kdamond"
C=$K/0/contexts
echo 1 >"$C/nr_contexts" || fail "cannot create a DAMON context"
grep -qw paddr "$C/0/avail_operations" || skip "DAMON has no paddr operations here"
echo paddr >"$C/0/operations"
echo 5000 >"$C/0/monitoring_attrs/intervals/sample_us"
echo 100000 >"$C/0/monitoring_attrs/intervals/aggr_us"
echo 1 >"$C/0/targets/nr_targets"
echo 1 >"$C/0/targets/0/regions/nr_regions"
echo "$MSTART" >"$C/0/targets/0/regions/0/start"
echo "$MEND" >"$C/0/targets/0/regions/0/end"
echo 1 >"$C/0/schemes/nr_schemes"
echo stat >"$C/0/schemes/0/action"
# every region: the pattern's maximums start at 0 (6.18), which matches none
P=$C/0/schemes/0/access_pattern
echo $((MEND - MSTART)) >"$P/sz/max"
echo 4294967295 >"$P/nr_accesses/max"
echo 4294967295 >"$P/age/max"
echo on >"$K/0/state" || fail "the kdamond did not start"

# ---- 1. a recording while the kdamond runs ----
expect_status 0 "$HSCTL" -d "$DB" --format json record -m 16M --workload zipf-read \
	--size 32M --seed 1 --dir "$T_DIR"
expect_grep '"session": 1, "status": "complete"' "$OUT"
n=$(sql "SELECT count(*) FROM v_ev_damon_aggregated WHERE session = 1")
[ "$n" -gt 0 ] && t_ok || t_bad "no damon_aggregated event while a kdamond ran"
expect_eq "$(sql "SELECT count(*) FROM v_ev_damon_aggregated WHERE session = 1
	AND (comm IS NULL OR comm NOT LIKE 'kdamond.%')")" 0
expect_eq "$(sql "SELECT count(*) FROM v_ev_damon_aggregated WHERE session = 1
	AND NOT (start >= $MSTART AND start < \"end\" AND \"end\" <= $MEND)")" 0
expect_eq "$(sql "SELECT count(*) FROM v_ev_damon_aggregated WHERE session = 1
	AND (nr_accesses > 20 OR nr_regions < 1 OR target_id != 0)")" 0
# Each aggregation tiles the range: it starts at $MSTART, every next region
# starts where the one before it (by seq) ended, and the last ends at $MEND
# after nr_regions rows.  An aggregation cut at the recording's start or end
# is left out.
expect_eq "$(sql "WITH r AS (SELECT seq, start, \"end\", nr_regions,
		sum(start = $MSTART) OVER (ORDER BY seq) AS agg
		FROM v_ev_damon_aggregated WHERE session = 1),
	a AS (SELECT agg, count(*) AS n, min(nr_regions) AS lo, max(nr_regions) AS hi,
		min(start) AS s, max(\"end\") AS e FROM r WHERE agg > 0 GROUP BY agg)
	SELECT count(*) FROM a WHERE agg < (SELECT max(agg) FROM a)
		AND (n != lo OR lo != hi OR s != $MSTART OR e != $MEND)")" 0
expect_eq "$(sql "SELECT count(*) FROM (SELECT start, lag(\"end\") OVER (ORDER BY seq) AS prev
	FROM v_ev_damon_aggregated WHERE session = 1) WHERE start != $MSTART
	AND prev IS NOT NULL AND start != prev")" 0
n=$(sql "SELECT count(*) FROM v_ev_damon_aggregated WHERE session = 1 AND start = $MSTART")
[ "$n" -ge 2 ] && t_ok || t_bad "fewer than 2 aggregations in the run ($n)"
# the scheme acts on every region once an aggregation, before its row is traced
n=$(sql "SELECT count(*) FROM v_ev_damos_apply WHERE session = 1")
[ "$n" -gt 0 ] && t_ok || t_bad "no damos_before_apply event while a scheme ran"
expect_eq "$(sql "SELECT count(*) FROM v_ev_damos_apply WHERE session = 1
	AND (scheme_idx != 0 OR comm NOT LIKE 'kdamond.%'
	OR NOT (start >= $MSTART AND start < \"end\" AND \"end\" <= $MEND))")" 0
expect_eq "$(sql "SELECT count(*) FROM v_ev_damos_apply AS x WHERE session = 1
	AND x.seq < (SELECT max(seq) FROM v_ev_damon_aggregated WHERE session = 1)
	AND NOT EXISTS (SELECT 1 FROM v_ev_damon_aggregated AS g WHERE g.session = 1
	AND g.seq > x.seq AND g.start = x.start AND g.\"end\" = x.\"end\"
	AND g.nr_accesses = x.nr_accesses)")" 0
expect_eq "$(sql "SELECT count(*) FROM record_checks WHERE session = 1 AND status = 'fail'")" 0

# ---- 2. none without a kdamond ----
damon_off
expect_status 0 "$HSCTL" -d "$DB" --format json record -m 16M --workload zipf-read \
	--size 32M --seed 1 --dir "$T_DIR"
expect_grep '"session": 2, "status": "complete"' "$OUT"
expect_eq "$(sql "SELECT count(*) FROM v_ev_damon_aggregated WHERE session = 2")" 0
expect_eq "$(sql "SELECT count(*) FROM v_ev_damos_apply WHERE session = 2")" 0

# ---- 3. the replay of the kernel's actions (--damon-model recorded) ----
# session 1's only scheme is index 0, which DAMON_LRU_SORT's order makes the
# hot one: counted, not applied, so the replay is the plain one
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy linux-2q --no-store --format csv \
	--damon-model recorded
expect_grep "^hsctl: note: DAMON's recorded actions: cold: 0 regions, 0.0 MiB, 0 recorded pages" \
	"$ERR"
WITH=$OUT
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy linux-2q --no-store --format csv
expect_eq "$(printf '%s\n' "$WITH" | cut -d, -f1-12)" "$(printf '%s\n' "$OUT" | cut -d, -f1-12)"
expect_status 65 "$HSCTL" -d "$DB" replay 2 --policy linux-2q --no-store --damon-model recorded
expect_grep '^hsctl: --damon-model recorded: session 2 has no recorded DAMON scheme action' "$ERR"
expect_eq "$(sql "PRAGMA integrity_check")" ok

finish
