#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl export, black box.  Round trip: for each type, a generated session and
# an imported one are exported, the export is imported again, and both
# sessions are replayed with lru, arc, opt and clock at two sizes: accesses,
# hits and misses must be equal.  The text export of the demo trace is the
# file itself, byte for byte.  oracle: a hand-made trace's records, each field
# checked against values worked out by hand (and, with $HSCTL_SHARED, every
# obj_id and next_access_vtime of libCacheSim's own cloudPhysicsIO file).
# Errors: no such session (66, no file created), bad session id, unknown or
# missing type (64), a corrupt session (65), -o that cannot be created or
# written (1, no partial file left), oracle to a terminal (64, when script(1)
# can give us one).

. "$TESTS_SRCDIR/cli/setup.sh"

hs() {
	"$HSCTL" -d "$DB" "$@"
}

# The id of the session that import/gen just printed with --format json.
last_id() {
	printf '%s\n' "$OUT" | sed -n 's/^{"session": \([0-9]*\),.*/\1/p'
}

# replay_of ID: policy,capacity,accesses,hits,misses for lru, arc, opt, clock at 50 and 300.
replay_of() {
	hs --format csv replay "$1" --policy lru,arc,opt,clock --size 50,300 --no-store |
		awk -F, 'NR > 1 { print $3 "," $5 "," $6 "," $7 "," $8 }'
}

# round_trip ID TYPE FILE [IMPORT-OPTION...]: export ID as TYPE to FILE, import it, compare.
round_trip() {
	rt_id=$1
	rt_type=$2
	rt_file=$3
	shift 3
	expect_status 0 hs export --type "$rt_type" -o "$rt_file" "$rt_id"
	expect_eq "$ERR" ""
	expect_status 0 hs --format json import --type "$rt_type" "$@" "$rt_file"
	rt_new=$(last_id)
	rt_a=$(replay_of "$rt_id")
	rt_b=$(replay_of "$rt_new")
	# 4 policies x 2 sizes, with accesses
	expect_eq "$(printf '%s\n' "$rt_a" | grep -c ',[0-9]*,[0-9]*,[0-9]*$')" 8
	expect_eq "$rt_b" "$rt_a"
}

# ---- round trips ----
expect_status 0 hs --format json gen zipf --seed 3 --accesses 3000 --keys 400
GEN=$(last_id)
expect_status 0 hs --format json import --type lirs "$TESTDATA/demo.trace"
DEMO=$(last_id)
for type in text lirs csv oracle; do
	opt=
	[ "$type" = csv ] && opt=--header
	# shellcheck disable=SC2086 # $opt is one word or none
	round_trip "$GEN" "$type" "gen.$type" $opt
	# shellcheck disable=SC2086
	round_trip "$DEMO" "$type" "demo.$type.gz" $opt
done
# The gzip one really is gzip, and the plain one is not.
expect_status 0 gzip -t demo.oracle.gz
expect_status 1 gzip -t gen.oracle

# The demo trace is one key per line: its text export is the file itself.
expect_status 0 cmp gen.text gen.lirs
expect_status 0 hs export --type text "$DEMO"
expect_eq "$(printf '%s\n' "$OUT" | md5sum | cut -d' ' -f1)" \
	"$(md5sum <"$TESTDATA/demo.trace" | cut -d' ' -f1)"

# csv: the header, then key,kind,channel,write (gen and import default to file, pt).
expect_status 0 hs export --type csv "$DEMO"
expect_eq "$(printf '%s\n' "$OUT" | head -n 3)" "key,kind,channel,write
1001,file,pt,0
9,file,pt,0"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 14575

# The summary, in each format; with the records on stdout there is none.
expect_status 0 hs export --type text -o s.txt "$DEMO"
expect_grep '^records  *14574$' "$OUT"
expect_grep '^skipped  *0$' "$OUT"
expect_status 0 hs --format json export --type lirs -o s.txt "$DEMO"
W='"type": "lirs", "file": "s.txt", "records": 14574, "skipped": 0, "distinct_keys": 3170}'
expect_eq "$(printf '%s\n' "$OUT" | tr -d '\n' | sed 's/  */ /g; s/{ /{/')" \
	"{\"session\": $DEMO, $W"
expect_status 0 hs export --type csv -o s.csv --format csv "$DEMO"
expect_eq "$OUT" "session,type,file,records,skipped,distinct_keys
$DEMO,csv,s.csv,14574,0,3170"
expect_status 0 hs export --type text -o - "$DEMO"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 14574

# ---- oracle, by hand ----
# Keys 1 2 1 3 2.  libCacheSim counts next_access_vtime from 1 (traceConv:
# "reference count starts with 1"; testdata/README's small.oracle.bin): key 1
# at request 1 is next requested at request 3, key 2 at request 2 at request 5,
# and requests 3, 4 and 5 are never followed: 3 5 -1 -1 -1.  time is 0, size is
# 1 (the unit is object).
printf '1\n2\n1\n3\n2\n' >hand.txt
expect_status 0 hs --format json import --type text hand.txt
HAND=$(last_id)
expect_status 0 hs export --type oracle -o hand.bin "$HAND"
expect_eq "$(wc -c <hand.bin | tr -d ' ')" 120
# fields FILE: each record's u32 time, u64 id, u32 size and i64 next, one line each.
fields() {
	od -A n -t u4 -v -w24 "$1" | awk '{ print $1 }' >.t
	od -A n -t u8 -j 4 -v -w24 "$1" | awk '{ print $1 }' >.i
	od -A n -t u4 -j 12 -v -w24 "$1" | awk '{ print $1 }' >.s
	od -A n -t d8 -j 16 -v -w24 "$1" | awk '{ print $1 }' >.n
	paste -d' ' .t .i .s .n
}
expect_eq "$(fields hand.bin)" "0 1 1 3
0 2 1 5
0 1 1 -1
0 3 1 -1
0 2 1 -1"
# A lis session counts blocks: size 512.  Blocks 100 101 102 101 102 200.
expect_status 0 hs --format json import --type lis "$TESTDATA/traces/small.lis"
expect_status 0 hs export --type oracle -o lis.bin "$(last_id)"
expect_eq "$(fields lis.bin)" "0 100 512 -1
0 101 512 4
0 102 512 5
0 101 512 -1
0 102 512 -1
0 200 512 -1"

# libCacheSim's own file: every obj_id and next_access_vtime comes back the same.
CP=${HSCTL_SHARED:-}/traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin.gz
if [ -n "${HSCTL_SHARED:-}" ] && [ -r "$CP" ]; then
	expect_status 0 hs --format json import --type oracle "$CP"
	expect_status 0 hs export --type oracle -o cp.bin "$(last_id)"
	gzip -dc "$CP" >cp.orig
	expect_eq "$(wc -c <cp.bin | tr -d ' ')" 2732928
	od -A n -t x1 -v -w24 cp.orig | cut -c13-36,49-72 >cp.orig.f
	od -A n -t x1 -v -w24 cp.bin | cut -c13-36,49-72 >cp.bin.f
	expect_status 0 cmp cp.orig.f cp.bin.f
fi

# ---- errors ----
expect_status 66 hs export --type text -o none.txt 99
expect_grep 'no session 99' "$ERR"
[ ! -e none.txt ] && t_ok || t_bad "exporting a missing session created its -o file"
expect_status 66 "$HSCTL" -d "$T_DIR/no.db" export --type text 1
[ ! -e "$T_DIR/no.db" ] && t_ok || t_bad "export created a database"
expect_status 64 hs export --type text abc
expect_grep "'abc' is not a session id" "$ERR"
expect_status 64 hs export --type lis "$DEMO"
expect_grep "unknown type 'lis' (valid: text, lirs, csv, oracle)" "$ERR"
expect_status 64 hs export --type jpeg "$DEMO"
expect_grep "unknown type 'jpeg'" "$ERR"
expect_status 64 hs export "$DEMO"
expect_grep 'missing --type' "$ERR"
expect_status 64 hs export --type text
expect_grep 'missing SESSION' "$ERR"
# A session whose key table is gone (hsctl-db(5)'s session_keys): 65, no file left.
expect_status 0 hs --format json import --type text hand.txt
BROKEN=$(last_id)
expect_status 0 hs sql --write "DELETE FROM session_keys WHERE session = $BROKEN"
expect_status 65 hs export --type oracle -o broken.bin "$BROKEN"
expect_grep "session $BROKEN is corrupt (distinct_keys is 3, its key table holds 0)" "$ERR"
[ ! -e broken.bin ] && t_ok || t_bad "a failed export left its partial file"
# -o in a missing directory, -o a directory, a full device: 1, nothing left behind.
expect_status 1 hs export --type text -o nodir/x.txt "$DEMO"
expect_grep 'nodir/x.txt: No such file or directory' "$ERR"
mkdir adir
expect_status 1 hs export --type text -o adir "$DEMO"
expect_grep 'adir: Is a directory' "$ERR"
if [ -w /dev/full ]; then
	expect_status 1 hs export --type text -o /dev/full "$DEMO"
	expect_grep '/dev/full: .*No space left on device' "$ERR"
	[ -c /dev/full ] && t_ok || t_bad "a failed export removed /dev/full"
fi
# A file that cannot be written for want of permission: 69 (root may write anyway).
if [ "$(id -u)" -ne 0 ]; then
	mkdir ro && chmod 555 ro
	expect_status 69 hs export --type text -o ro/x.txt "$DEMO"
	expect_grep 'ro/x.txt: Permission denied' "$ERR"
fi
# oracle is binary: refused on a terminal (script(1) gives the command one).
if command -v script >/dev/null 2>&1 &&
	script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	expect_status 64 script -qec "'$HSCTL' -d '$DB' export --type oracle $DEMO" /dev/null
	expect_grep 'refusing to write binary oracle records to a terminal' "$OUT"
	# text to a terminal is fine
	expect_status 0 script -qec "'$HSCTL' -d '$DB' export --type text $HAND" /dev/null
fi

finish
