#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Published numbers through the whole CLI path (import -> store -> replay ->
# SQL), as a user would get them.  Expected values are POLICIES.md section 5's:
# the ARC article's Table 1 on OLTP (LRU 32.83 and 64.63, MIN 53.61, ARC 38.93
# within 0.05 at 1,000 and 15,000 blocks) and cache2k's exact OPT hit count on
# cpp at 100 pages (7465).  Skips without $HSCTL_SHARED.
. "$TESTS_SRCDIR/cli/setup.sh"

[ -n "${HSCTL_SHARED:-}" ] || skip "HSCTL_SHARED is not set: no public traces here"
T=$HSCTL_SHARED/traces

expect_status 0 "$HSCTL" -d "$DB" --format json import --type lis --block-order reverse \
	"$T/arc/OLTP.lis.gz"
expect_grep '"session": *1' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,arc,opt --size 1000,15000
expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
	"SELECT policy || '@' || capacity, printf('%.2f', 100 * hit_ratio) FROM v_runs ORDER BY 1"
expect_grep '^lru@1000,32.83$' "$OUT"
expect_grep '^lru@15000,64.63$' "$OUT"
expect_grep '^opt@1000,53.61$' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
	"SELECT abs(100 * hit_ratio - 38.93) <= 0.05 FROM v_runs WHERE policy = 'arc' AND capacity = 1000"
expect_grep '^1$' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
	"SELECT abs(100 * hit_ratio - 65.40) <= 0.05 FROM v_runs WHERE policy = 'arc' AND capacity = 15000"
expect_grep '^1$' "$OUT"
# the OPT gap view pairs each run with opt at the same size
expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
	"SELECT count(*) FROM v_policy_compare WHERE opt_gap >= 1 AND policy != 'opt'"
expect_grep '^4$' "$OUT"

expect_status 0 "$HSCTL" -d "$DB" import --type lirs "$T/lirs/cpp.trace.gz"
expect_status 0 "$HSCTL" -d "$DB" replay 2 --policy opt --size 100 --format csv
expect_grep ',opt,[^,]*,100,9047,7465,' "$(printf '%s\n' "$OUT" | sed 's/"[^"]*"/P/g')"
finish
