#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl gen, black box: exact access counts, distinct-key counts that follow
# from the generator's definition (a loop touches all its keys; a one-key hot
# set plus scans touches 1 + the scanned keys), determinism for a seed (the
# same session replays to the same numbers), what is stored with the session,
# the output formats, and usage errors.

. "$TESTS_SRCDIR/cli/setup.sh"

hs() {
	"$HSCTL" -d "$DB" "$@"
}

# The session id from a JSON line printed by gen.
sid() {
	printf '%s\n' "$OUT" | sed -n 's/^{"session": \([0-9]*\),.*/\1/p'
}

# ---- counts ----
expect_status 0 hs gen loop --keys 7 --accesses 20
expect_eq "$OUT" "session 1: 20 accesses, 7 distinct keys (loop --keys 7 --accesses 20 --seed 1)"
expect_status 0 hs gen loop --keys 30 --accesses 20
expect_grep '^session 2: 20 accesses, 20 distinct keys ' "$OUT"
# Hot set of one key; cycles of 10 hot + 5 scanned: 100 accesses = 6 cycles and 10 hot,
# so 6 * 5 = 30 scanned keys plus the hot one.
expect_status 0 hs gen scan-mix --hot-keys 1 --scan-len 5 --scan-every 10 --accesses 100
expect_grep '^session 3: 100 accesses, 31 distinct keys ' "$OUT"
expect_status 0 hs gen zipf --keys 1 --accesses 50
expect_grep '^session 4: 50 accesses, 1 distinct keys ' "$OUT"
expect_status 0 hs gen ycsb-f --keys 1 --accesses 51
expect_grep '^session 5: 51 accesses, 1 distinct keys ' "$OUT"
# Defaults: 100000 accesses over at most 10000 keys.
expect_status 0 hs gen zipf
W='(zipf --alpha 0.99 --keys 10000 --accesses 100000 --seed 1)'
expect_grep "^session 6: 100000 accesses, [0-9]* distinct keys $W\$" "$OUT"
D=$(printf '%s\n' "$OUT" | sed 's/.* accesses, \([0-9]*\) distinct.*/\1/')
expect_eq "$([ "$D" -gt 5000 ] && [ "$D" -le 10000 ] && echo ok)" ok

# ---- determinism: same seed, same session; another seed, another one ----
for type in zipf scan-mix ycsb-f; do
	expect_status 0 hs --format json gen "$type" --keys 2000 --accesses 30000 --seed 5
	A=$(sid)
	expect_status 0 hs --format json gen "$type" --keys 2000 --accesses 30000 --seed 5
	B=$(sid)
	expect_status 0 hs --format json gen "$type" --keys 2000 --accesses 30000 --seed 6
	C=$(sid)
	for s in A B C; do
		eval "id=\$$s"
		expect_status 0 hs replay "$id" --policy lru,arc --size 300 --no-store --format csv
		eval "R$s=\$(printf '%s\\n' \"\$OUT\" | cut -d, -f3-8)"
	done
	expect_eq "$RB" "$RA"
	if [ "$RC" = "$RA" ]; then
		t_bad "$type: seeds 5 and 6 replay the same: $RA"
	else
		t_ok
	fi
done

# ---- what is stored ----
expect_status 0 hs --format json gen ycsb-f --keys 100 --accesses 1000 --name ycsb
W='"accesses": 1000, "distinct_keys": [0-9]*, "name": "ycsb", "unit": "page"}'
expect_grep "^{\"session\": [0-9]*, $W\$" "$OUT"
ID=$(sid)
expect_status 0 hs --format csv sql \
	"SELECT source, format, unit, kind, channel, params FROM sessions WHERE id = $ID"
W='"{""type"":""ycsb-f"",""accesses"":1000,""seed"":1,""alpha"":0.99,""keys"":100,'
W=$W'""kind"":""anon"",""channel"":""pt""}"'
expect_grep "^gen,ycsb-f,page,anon,pt,$W\$" "$OUT"
expect_status 0 hs --format json gen loop --keys 10 --accesses 10 --kind anon --channel fd
ID=$(sid)
expect_status 0 hs --format csv sql "SELECT kind, channel, origin FROM sessions WHERE id = $ID"
expect_grep '^anon,fd,loop --keys 10 --accesses 10 --seed 1$' "$OUT"
expect_status 0 hs gen zipf --keys 10 --accesses 10 --format csv
expect_grep '^session,accesses,distinct_keys,name,unit$' "$OUT"
expect_grep '^[0-9]*,10,[0-9]*,zipf --alpha 0.99 --keys 10 --accesses 10 --seed 1,page$' "$OUT"
# scan-hot: 16 hot reads (keys 0..7), then 16 keys of the scan over 8..47, read(2)s
expect_status 0 hs gen scan-hot --keys 48 --hot-keys 8 --accesses 64
W='scan-hot --alpha 0.5 --keys 48 --hot-keys 8 --scan-len 16 --scan-every 16'
expect_grep "^session [0-9]*: 64 accesses, 40 distinct keys ($W --accesses 64 --seed 1)\$" "$OUT"
ID=$(echo "$OUT" | sed -n 's/^session \([0-9]*\):.*/\1/p')
expect_status 0 hs --format csv sql "SELECT kind, channel FROM sessions WHERE id = $ID"
expect_grep '^file,fd$' "$OUT"
expect_status 0 hs export --type text "$ID"
expect_eq "$(echo "$OUT" | head -n 20 | tr '\n' ' ')" "1 2 2 3 1 6 7 3 0 2 0 0 0 1 2 0 8 9 10 11 "
# shared-map: scan-hot's turns from 3 processes, own draws each (seed 1, 2, 3), one scan
# over 8..47 that wraps in the third turn
expect_status 0 hs gen shared-map --keys 48 --hot-keys 8 --procs 3 --accesses 96
W='shared-map --alpha 0.5 --keys 48 --procs 3 --hot-keys 8 --scan-len 16 --scan-every 16'
expect_grep "^session [0-9]*: 96 accesses, 48 distinct keys ($W --accesses 96 --seed 1)\$" "$OUT"
ID=$(echo "$OUT" | sed -n 's/^session \([0-9]*\):.*/\1/p')
expect_status 0 hs --format csv sql "SELECT kind, channel, params FROM sessions WHERE id = $ID"
W='"{""type"":""shared-map"",""accesses"":96,""seed"":1,""alpha"":0.5,""keys"":48,""procs"":3,'
W=$W'""hot_keys"":8,""scan_len"":16,""scan_every"":16,""kind"":""file"",""channel"":""pt""}"'
expect_grep "^file,pt,$W\$" "$OUT"
expect_status 0 hs export --type text "$ID"
expect_eq "$(echo "$OUT" | sed -n '1,3p;17,18p;33,35p;49,50p;65,67p;81,82p' | tr '\n' ' ')" \
	"1 2 2 8 9 6 1 5 24 25 1 1 5 40 41 "
# shared-map separates the policies at a quarter of the keys: the replays' misses, and
# the worst at least 15 % above CAR (issue 10's spread).  The scan's accesses carry
# HS_META_NORECENCY (its mapping is advised MADV_RANDOM), which the kernel models take
# as unseen: mglru and hitshield keep the hot set (45,056), linux-2q part of it, lru
# and car ignore the bit.  With one process the stream has other hot draws but the
# same shape, and every model misses within 0.7 % of these: the stream names no
# process, so no replay sees several young PTEs.
expect_status 0 hs gen shared-map --keys 16384 --hot-keys 2048 --accesses 86016
ID=$(echo "$OUT" | sed -n 's/^session \([0-9]*\):.*/\1/p')
expect_status 0 hs replay "$ID" --size 3072 --policy lru,linux-2q,mglru,hitshield,car --no-store
miss() { printf '%s\n' "$OUT" | awk -v p="$1" '$1 == p && $2 == 3072 { print $4 }'; }
expect_eq "$(miss lru) $(miss linux-2q) $(miss mglru) $(miss hitshield) $(miss car)" \
	"58184 50436 45056 45056 46802"
[ $(($(miss lru) * 100)) -ge $(($(miss car) * 115)) ] && t_ok ||
	t_bad "shared-map: lru misses $(miss lru), car $(miss car): less than 15 % apart"
expect_status 0 hs gen shared-map --keys 16384 --hot-keys 2048 --accesses 86016 --procs 1
ID=$(echo "$OUT" | sed -n 's/^session \([0-9]*\):.*/\1/p')
expect_status 0 hs replay "$ID" --size 3072 --policy lru,linux-2q,mglru,hitshield,car --no-store
expect_eq "$(miss lru) $(miss linux-2q) $(miss mglru) $(miss hitshield) $(miss car)" \
	"58235 50378 45056 45056 46830"
# ycsb-load: 192 arena pages in 2000 accesses (t-gen checks them one by one)
expect_status 0 hs gen ycsb-load --accesses 2000
W='(ycsb-load --accesses 2000 --seed 1)'
expect_grep "^session [0-9]*: 2000 accesses, 192 distinct keys $W\$" "$OUT"

# ---- usage errors ----
N=$(hs --format csv sql "SELECT count(*) FROM sessions" | tail -n 1)
expect_status 64 hs gen
expect_grep "missing TYPE (valid: zipf, loop, scan-mix, ycsb-f, scan-hot, ycsb-load, shared-map)" \
	"$ERR"
expect_status 64 hs gen lru
W='zipf, loop, scan-mix, ycsb-f, scan-hot, ycsb-load, shared-map'
expect_grep "unknown generator 'lru' (valid: $W)" "$ERR"
expect_status 64 hs gen zipf loop
expect_status 64 hs gen zipf --keys 0
expect_status 64 hs gen zipf --keys 10x
expect_status 64 hs gen zipf --accesses 0
expect_status 64 hs gen zipf --alpha -0.5
expect_status 64 hs gen zipf --alpha 101
expect_status 64 hs gen zipf --seed -1
expect_status 64 hs gen loop --alpha 1
expect_status 64 hs gen zipf --hot-keys 5
expect_status 64 hs gen scan-mix --scan-len 0
expect_status 64 hs gen scan-hot --keys 8 --hot-keys 8
expect_grep 'scan-hot: --hot-keys must be less than --keys' "$ERR"
expect_status 64 hs gen scan-hot --keys 1
expect_status 64 hs gen shared-map --keys 8 --hot-keys 8
expect_grep 'shared-map: --hot-keys must be less than --keys' "$ERR"
expect_status 64 hs gen shared-map --procs 65
expect_grep "procs '65': expected a whole number from 1 to 64" "$ERR"
expect_status 64 hs gen scan-hot --procs 2
expect_grep 'procs applies to shared-map only' "$ERR"
expect_status 64 hs gen ycsb-load --alpha 1
expect_grep 'alpha does not apply to ycsb-load' "$ERR"
expect_status 64 hs gen zipf --kind shm
expect_status 64 hs gen zipf --channel drop
expect_status 64 hs gen zipf --format xml
expect_eq "$(hs --format csv sql "SELECT count(*) FROM sessions" | tail -n 1)" "$N"
expect_status 0 hs gen --help
expect_grep '^Usage: hsctl gen' "$OUT"

finish
