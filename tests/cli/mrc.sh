#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl mrc end to end: the curves of a ten-access trace computed by hand
# below, the one-pass LRU and OPT curves against hsctl replay at every size
# of a generated session, a replayed policy, the size grammar, the stored
# curves and v_mrc, spatial sampling (--sample), and the usage errors with
# their exit status.
. "$TESTS_SRCDIR/cli/setup.sh"

# Keys 1 2 3 1 2 4 1 2 3 4.
#   LRU stack distances: the second 1 and 2 at 3, the third 1 and 2 at 3
#   (one 4 between), the second 3 and 4 at 4; four cold.
#   Hits: 0 at 1 and 2, 4 at 3, 6 from 4 on.
#   OPT stack (next uses as priorities, analyzers/optstack.c): distances
#   2 3 2 3 4 2 for the six repeats.  Hits: 0 at 1, 3 at 2, 5 at 3 (replay.sh
#   has OPT's 5 hits at 3 by hand), 6 from 4 on.  MIN at 2 by hand:
#   1m 2m 3m(-2) 1h 2m(-3) 4m(-2) 1h 2m(-1) 3m(-2) 4h = 3 hits.
printf '1\n2\n3\n1\n2\n4\n1\n2\n3\n4\n' >tiny.txt
expect_status 0 "$HSCTL" -d "$DB" import --type text --name tiny tiny.txt

expect_status 0 "$HSCTL" -d "$DB" mrc 1 --sizes 1..5 --format csv
CSV=$OUT
hits() {	# hits POLICY SIZE: hits of that point in $CSV
	printf '%s\n' "$CSV" | awk -F, -v p="$1" -v s="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["policy"] == p && $col["size"] == s { print $col["hits"] }'
}
expect_eq "$(printf '%s\n' "$CSV" | head -n 1)" \
	"curve,session,policy,method,size,accesses,hits,misses,miss_ratio"
expect_eq "$(hits lru 1) $(hits lru 2) $(hits lru 3) $(hits lru 4) $(hits lru 5)" "0 0 4 6 6"
expect_eq "$(hits opt 1) $(hits opt 2) $(hits opt 3) $(hits opt 4) $(hits opt 5)" "0 3 5 6 6"
expect_grep '^1,1,lru,stack,3,10,4,6,0.600000$' "$CSV"
expect_grep '^2,1,opt,stack,2,10,3,7,0.700000$' "$CSV"

# Stored: one curve per policy, one point per size; v_mrc joins them.
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT id, session, policy, params, method, accesses,
	points FROM mrc_curves ORDER BY id" --format csv
expect_eq "$OUT" 'id,session,policy,params,method,accesses,points
1,1,lru,{},stack,10,5
2,1,opt,"{""bypass"":false}",stack,10,5'
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT policy, size, hits, misses, miss_ratio FROM v_mrc
	WHERE size = 3 ORDER BY policy" --format csv
expect_eq "$OUT" 'policy,size,hits,misses,miss_ratio
lru,3,4,6,0.6
opt,3,5,5,0.5'

# --no-store stores nothing and prints no curve id.
expect_status 0 "$HSCTL" -d "$DB" mrc 1 --sizes 3 --no-store --format csv
expect_grep '^,1,lru,stack,3,10,4,6,0.600000$' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT count(*) FROM mrc_curves" --format csv
expect_eq "$OUT" 'count(*)
2'

# The table: miss% per point, the session named, under 80 columns.
expect_status 0 "$HSCTL" -d "$DB" mrc 1 --sizes 3 --no-store
expect_grep '^session 1 (tiny): 10 accesses, 4 distinct keys; size in objects$' "$OUT"
expect_grep '^lru  *stack  *3  *60.00  *4  *6$' "$OUT"
expect_grep '^opt  *stack  *3  *50.00  *5  *5$' "$OUT"

# JSON: an object with a points array.
expect_status 0 "$HSCTL" -d "$DB" mrc 1 --sizes 2 --no-store --format json
if command -v python3 >/dev/null 2>&1; then
	expect_eq "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([(p["policy"], p["size"], p["hits"]) for p in d["points"]])')" \
		"[('lru', 2, 0), ('opt', 2, 3)]"
fi

# One pass against the replay at EVERY size: a Zipf session of 60 keys,
# sizes 1 .. 61, hits equal for LRU and for OPT (demand) at each.
expect_status 0 "$HSCTL" -d "$DB" gen zipf --keys 60 --accesses 3000 --alpha 0.8 --seed 3
expect_status 0 "$HSCTL" -d "$DB" mrc 2 --sizes 1..61 --no-store --format csv
printf '%s\n' "$OUT" | awk -F, 'NR > 1 { print $3, $5, $7 }' | sort >mrc.txt
SIZES=$(seq -s, 1 61)
expect_status 0 "$HSCTL" -d "$DB" replay 2 --policy lru,opt --size "$SIZES" --no-store \
	--format csv
printf '%s\n' "$OUT" | awk -F, 'NR > 1 { print $3, $5, $7 }' | sort >replay.txt
expect_eq "$(wc -l <mrc.txt | tr -d ' ')" 122
expect_eq "$(cmp mrc.txt replay.txt && echo same)" same
# ...and OPT hits more than LRU at 15 (the curves are not one and the same).
expect_eq "$(awk '$2 == 15 { h[$1] = $3 } END { print (h["opt"] > h["lru"]) }' mrc.txt)" 1

# Another policy is replayed at each size, and equals hsctl replay there.
expect_status 0 "$HSCTL" -d "$DB" mrc 2 --policy arc,lru --sizes 5,20 --no-store --format csv
expect_grep '^,2,arc,replay,5,' "$OUT"
expect_grep '^,2,lru,stack,20,' "$OUT"
ARC=$(printf '%s\n' "$OUT" | awk -F, '$3 == "arc" && $5 == 20 { print $7 }')
expect_status 0 "$HSCTL" -d "$DB" replay 2 --policy arc --size 20 --no-store --format csv
expect_eq "$(printf '%s\n' "$OUT" | awk -F, 'NR == 2 { print $7 }')" "$ARC"

# Sizes: shares of the distinct keys, linear steps, log spacing (60 keys,
# 1..60:4 is 1, 60^(1/3) = 3.9 -> 4, 60^(2/3) = 15.3 -> 15, 60), memory sizes
# for page sessions (4K is one page), merged and sorted.
sizes() {	# sizes SPEC: the distinct sizes of session 2's lru curve
	"$HSCTL" -d "$DB" mrc 2 --policy lru --sizes "$1" --no-store --format csv |
		awk -F, 'NR > 1 { printf "%s%s", sep, $5; sep = " " }'
}
expect_eq "$(sizes 10%..100%/30%)" "6 24 42 60"
expect_eq "$(sizes 1..60:4)" "1 4 15 60"
expect_eq "$(sizes 4K..16K,50%,3,8K)" "1 2 3 4 30"
expect_eq "$(sizes 1..10/4)" "1 5 9 10"
expect_eq "$(sizes 2..2:5)" "2"

# --sample (SHARDS): rate 1 is the exact curve, number for number; a
# sampled curve is stored with its rate; only lru and opt can be sampled.
expect_status 0 "$HSCTL" -d "$DB" mrc 2 --sizes 1..61 --no-store --format csv --sample 1
expect_eq "$(printf '%s\n' "$OUT" | awk -F, 'NR > 1 { print $3, $5, $7 }' | sort)" \
	"$(cat mrc.txt)"
expect_status 0 "$HSCTL" -d "$DB" mrc 2 --sizes 60 --sample 0.5 --format csv
expect_grep '^[0-9]*,2,lru,stack,60,3000,' "$OUT"
expect_status 0 "$HSCTL" -d "$DB" sql "SELECT DISTINCT policy, sample_rate FROM v_mrc
	WHERE session = 2 ORDER BY policy" --format csv
expect_eq "$OUT" 'policy,sample_rate
lru,0.5
opt,0.5'
expect_status 0 "$HSCTL" -d "$DB" mrc 2 --sizes 60 --sample 0.5 --no-store
expect_grep 'spatial sample of 0.5 of the keys' "$OUT"
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --policy arc --sizes 5 --sample 0.5 --no-store
expect_grep 'only the one-pass curves' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sample 0 --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sample 1.5 --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sample x --no-store

# Errors: bad sizes (64), memory sizes on an object session (64), unknown
# policy (64), too many replayed runs (64), no such session (66).
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sizes 5..1 --no-store
expect_grep "expected N, N%" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sizes 0 --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sizes 1..10:1 --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sizes 1,,2 --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 1 --sizes 4K --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 1 --policy nosuch --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --policy arc --sizes 1..2000 --no-store
expect_grep 'more than 1024' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" mrc 2 --sizes 1..200000 --no-store
expect_status 66 "$HSCTL" -d "$DB" mrc 9 --no-store
expect_status 64 "$HSCTL" -d "$DB" mrc
expect_status 64 "$HSCTL" -d "$DB" mrc x

finish
