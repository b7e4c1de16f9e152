#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The OPT gap is one stored number: the replay table (vs-opt), its CSV and
# JSON (opt_gap) and v_policy_compare show the same value, compared with the
# demand-paging OPT run (bypass=false), also when that run was stored by an
# earlier replay and a bypass OPT run was stored after it.
. "$TESTS_SRCDIR/cli/setup.sh"

# Keys 1 2 3 1 2 4 1 2 3 4, capacity 2 (time t1..t10).
#   LRU: every reuse is 3 or more keys apart: 10 misses.
#   OPT (demand): 1m 2m 3m(-2: next use t5, 1's is t4) 1h 2m(-3) 4m(-2) 1h
#         2m(-1: never again) 3m(-2) 4h                          7 misses
#   OPT (bypass): 1m 2m, 3m not cached (next use t9 after 1's t4, 2's t5),
#         1h 2h, 4m not cached (t10 after t7, t8), 1h 2h, 3m 4m   6 misses
#   opt_gap vs the demand OPT: lru 10/7 = 1.4285714285714286,
#   OPT bypass 6/7 = 0.8571428571428571, OPT demand 1.
printf '1\n2\n3\n1\n2\n4\n1\n2\n3\n4\n' >tiny.txt
expect_status 0 "$HSCTL" -d "$DB" import --type text --name tiny tiny.txt

# Both OPT runs first; the bypass one is stored last.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy opt --param opt.bypass=false,true \
	--size 2 --format csv
expect_eq "$(printf '%s\n' "$OUT" | cut -d, -f4,8,26)" "$(printf '%s\n' \
	'params,misses,opt_gap' '"{""bypass"":false}",7,1.000000' \
	'"{""bypass"":true}",6,0.857143')"

# lru later, on its own: the gap comes from the stored demand OPT run, in
# every format, stored or not.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 2
expect_eq "$(printf '%s\n' "$OUT" | awk '$1 == "lru" { print $4, $NF }')" "10 1.429"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 2 --format csv
expect_eq "$(printf '%s\n' "$OUT" | cut -d, -f3,8,26 | tail -n 1)" "lru,10,1.428571"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 2 --format json --no-store
expect_grep '"policy": "lru", .*"misses": 10, .*"opt_gap": 1.4285714285714286,' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 2 --no-store
expect_eq "$(printf '%s\n' "$OUT" | awk '$1 == "lru" { print $4, $NF }')" "10 1.429"

# The view holds the same numbers for every stored run (two lru runs).
expect_status 0 "$HSCTL" -d "$DB" sql --format json \
	'SELECT policy, opt_gap FROM v_policy_compare ORDER BY opt_gap, policy'
expect_eq "$OUT" "$(printf '%s\n' '[' \
	'  {"policy": "opt", "opt_gap": 0.8571428571428571},' \
	'  {"policy": "opt", "opt_gap": 1},' \
	'  {"policy": "lru", "opt_gap": 1.4285714285714286},' \
	'  {"policy": "lru", "opt_gap": 1.4285714285714286}' ']')"

# All in one replay, the bypass OPT listed last: the same gaps.
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru,opt --param opt.bypass=false,true \
	--size 2
expect_eq "$(printf '%s\n' "$OUT" | awk 'NR > 2 { print $1, $4, $NF }')" "$(printf '%s\n' \
	'lru 10 1.429' 'opt(bypass=false) 7 1.000' 'opt(bypass=true) 6 0.857')"
expect_status 0 "$HSCTL" -d "$DB" sql --format json \
	'SELECT policy, opt_gap FROM v_policy_compare ORDER BY opt_gap, policy'
expect_eq "$OUT" "$(printf '%s\n' '[' \
	'  {"policy": "opt", "opt_gap": 0.8571428571428571},' \
	'  {"policy": "opt", "opt_gap": 0.8571428571428571},' \
	'  {"policy": "opt", "opt_gap": 1},' \
	'  {"policy": "opt", "opt_gap": 1},' \
	'  {"policy": "lru", "opt_gap": 1.4285714285714286},' \
	'  {"policy": "lru", "opt_gap": 1.4285714285714286},' \
	'  {"policy": "lru", "opt_gap": 1.4285714285714286}' ']')"

finish
