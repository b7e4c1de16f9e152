#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl import, black box: good imports of the small hand-made traces in
# testdata/traces (counts from testdata/README, counted by hand), every
# malformed input in testdata/bad (exit 65, a message naming the file and the
# line or byte offset, and no session left behind), usage and missing-file
# errors, and, when $HSCTL_SHARED is set, the public traces' counts from
# POLICIES.md section 5.3 and traces/README.md.

. "$TESTS_SRCDIR/cli/setup.sh"

T=$TESTDATA/traces
B=$TESTDATA/bad

hs() {
	"$HSCTL" -d "$DB" "$@"
}

# The number of sessions in the database.
nr_sessions() {
	hs --format csv sql "SELECT count(*) AS n FROM sessions" | tail -n 1
}

# good TYPE FILE ACCESSES DISTINCT [OPTION...]: import must print these counts.
good() {
	g_type=$1
	g_file=$2
	g_acc=$3
	g_dist=$4
	shift 4
	expect_status 0 hs import --type "$g_type" "$@" "$g_file"
	g_want="$g_acc accesses, $g_dist distinct keys ($(basename "$g_file"))"
	expect_grep "^session [0-9][0-9]*: $g_want\$" "$OUT"
	expect_eq "$ERR" ""
}

# ---- good imports of hand-made traces ----
good lirs "$T/small.lirs" 6 4
good text "$T/small.txt.gz" 6 4
good lis "$T/small.lis" 6 4 --block-order forward
good lis "$T/small.lis" 6 4 --block-order reverse
# Without --block-order, multi-block requests (2 of small.lis's 3) get a note on the order.
expect_status 0 hs import --type lis "$T/small.lis"
expect_grep '^session [0-9][0-9]*: 6 accesses, 4 distinct keys (small.lis)$' "$OUT"
expect_eq "$ERR" "hsctl: note: 2 of 3 requests span several blocks, touched first to last\
 (--block-order forward, the default); the ARC and CAR papers' figures need\
 --block-order reverse"
good csv "$T/small.csv" 4 3 --column 2 --header
good oracle "$T/small.oracle.bin" 4 2
good u32be "$T/small.u32be.gz" 5 3
# Without --header, "obj" is one more (string) key.
good csv "$T/small.csv" 5 4 --column 2
# --force reads text as u32be: "1\n2\n" and "3\n4\n" are the ids 0x310a320a and 0x330a340a.
good u32be "$B/u32be-text.txt" 2 2 --force
expect_status 0 hs --format csv sql "SELECT hs_key(max(id), 0) AS key FROM sessions \
	UNION ALL SELECT hs_key(max(id), 1) FROM sessions"
expect_eq "$(printf '%s\n' "$OUT" | tr '\n' ' ')" "key 822751754 856306698 "
# The demo trace: the file testdata/README describes, and its counts.
good text "$TESTDATA/demo.trace" 14574 3170
expect_eq "$(md5sum <"$TESTDATA/demo.trace" | cut -d' ' -f1)" 86b04244b617f2d1c26e7ca611102c22
# Plain input from standard input.
expect_status 0 sh -c "'$HSCTL' -d '$DB' import --type lirs - <'$T/small.lirs'"
expect_grep '^session [0-9]*: 6 accesses, 4 distinct keys' "$OUT"

# ---- what is stored ----
expect_status 0 hs --format json import --type lis --name mine --kind anon --channel fd \
	--block-order reverse "$T/small.lis"
W='"accesses": 6, "distinct_keys": 4, "name": "mine", "unit": "block"}'
expect_grep "^{\"session\": [0-9][0-9]*, $W\$" "$OUT"
ID=$(printf '%s\n' "$OUT" | sed 's/^{"session": \([0-9]*\),.*/\1/')
expect_status 0 hs --format csv sql \
	"SELECT source, name, format, unit, kind, channel, params FROM sessions WHERE id = $ID"
W='"{""type"":""lis"",""block_order"":""reverse""}"'
expect_grep "^import,mine,lis,block,anon,fd,$W\$" "$OUT"
expect_status 0 hs --format csv sql "SELECT origin FROM sessions WHERE id = $ID"
expect_grep "small.lis\$" "$OUT"
expect_status 0 hs --format csv import --type oracle "$T/small.oracle.bin"
expect_grep '^session,accesses,distinct_keys,name,unit$' "$OUT"
expect_grep '^[0-9][0-9]*,4,2,small.oracle.bin,object$' "$OUT"

# A stage of more than 1 MiB is committed in a rollback journal (lib/store.c,
# stage_journal_begin()), and the database is in WAL mode again afterwards, with
# no journal left: 600,000 keys x % 2000 of the generator x = (75 x + 74) mod 65537,
# whose period of 65,536 takes every x from 1 to 65,536 (so all 2,000 keys), in
# an order that makes most deltas of dense ids two bytes long (1,171,258 bytes).
awk 'BEGIN { x = 1; for (i = 0; i < 600000; i++) { x = (x * 75 + 74) % 65537; print x % 2000 } }' \
	>"$T_DIR/lcg.txt"
good text "$T_DIR/lcg.txt" 600000 2000
ID=$(hs --format csv sql "SELECT max(id) AS id FROM sessions" | tail -n 1)
expect_status 0 hs --format csv sql "SELECT sum(length(data)) AS b FROM access_chunks \
	WHERE session = $ID"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" 1171258
expect_status 0 hs --format csv sql --write "PRAGMA journal_mode"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" wal
expect_status 0 hs --format csv sql "PRAGMA integrity_check"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" ok
expect_status 1 test -e "$DB-journal"
expect_status 0 hs replay "$ID" --policy lru --size 2000 --no-store --format json
expect_grep '"accesses": 600000, "hits": 598000,' "$OUT"

# Killed in that commit, an import leaves a hot journal beside a half-written
# database, which no read-only connection may open.  Made here by a process
# that dies in a rollback-journal transaction after its pages spilled into the
# file: the next read-only command rolls the journal back first, and the
# database is the one before, whole.
expect_status 0 hs --format csv sql "SELECT count(*) AS n FROM access_chunks"
CHUNKS=$(printf '%s\n' "$OUT" | tail -n 1)
python3 - "$DB" <<'PY' || fail "cannot leave a hot journal"
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = DELETE")
db.execute("PRAGMA cache_size = 1")
db.execute("BEGIN")
db.execute("DELETE FROM access_chunks")
db.execute("DELETE FROM session_keys")
os._exit(0)
PY
expect_status 0 test -s "$DB-journal"
expect_status 0 hs --format csv sql "SELECT count(*) AS n FROM access_chunks"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" "$CHUNKS"
expect_status 1 test -e "$DB-journal"
expect_status 0 hs --format csv sql "PRAGMA integrity_check"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" ok
expect_status 0 hs --format csv sql --write "PRAGMA journal_mode"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" wal
expect_status 0 hs replay "$ID" --policy lru --size 2000 --no-store --format json
expect_grep '"accesses": 600000, "hits": 598000,' "$OUT"

# Block order, seen through LRU at capacity 2 (hand-computed):
#   forward 100 101 102 101 102 200: 101 and 102 hit -> 2 hits
#   reverse 102 101 100 102 101 200: each key was evicted before its reuse -> 0 hits
for order in forward:2 reverse:0; do
	expect_status 0 hs --format json import --type lis --block-order "${order%:*}" \
		"$T/small.lis"
	ID=$(printf '%s\n' "$OUT" | sed 's/^{"session": \([0-9]*\),.*/\1/')
	expect_status 0 hs replay "$ID" --policy lru --size 2 --no-store --format json
	expect_grep "\"accesses\": 6, \"hits\": ${order#*:}," "$OUT"
done

# ---- malformed inputs: 65, the place and the reason, and nothing stored ----
BEFORE=$(nr_sessions)
expect_grep '^[0-9][0-9]*$' "$BEFORE"
# TYPE|FILE|OPTION|WHERE: WHERE (a regular expression) follows the file name in the message.
while IFS='|' read -r type file opt where; do
	[ -n "$type" ] || continue
	# shellcheck disable=SC2086
	expect_status 65 hs import --type "$type" $opt "$B/$file"
	expect_grep "^hsctl: $B/$file$where" "$ERR"
	expect_eq "$(printf '%s\n' "$ERR" | wc -l | tr -d ' ')" 1
done <<'EOF'
text|text-nonnumeric.txt||:3: expected a decimal key, got 'three'$
text|text-garbage.bin||:1: expected a decimal key, got '\\x7fELF
text|text-truncated.gz||:[0-9][0-9]*: gzip data truncated (unexpected end of file)$
text|empty.txt||: no records$
lirs|lirs-blank-only.trace||: no records$
lirs|lirs-two-keys.trace||:4: expected a decimal key, got '7 8'$
lis|lis-3-fields.lis||:3: expected 4 fields, got 3$
lis|lis-n-zero.lis||:2: block count is 0$
lis|lis-n-absurd.lis||:2: block count 16777217 is absurd (more than 16777216)$
csv|csv-empty-key.csv|--header|:3: empty key in field 1$
csv|csv-bad-quote.csv||:2: unterminated quote in field 1$
oracle|oracle-truncated.bin||: byte 48: truncated record (10 of 24 bytes)$
oracle|oracle-wrong-format.bin||: byte 0: record 0 says its next access is [0-9]*, but there are only 1 records
u32be|u32be-trailing.bin||: byte 12: truncated record (3 of 4 bytes)$
u32be|empty.txt||: no records$
u32be|u32be-text.txt||: byte 0: text (printable ASCII and line ends), not u32be binary records; is it --type text? (--force reads it anyway)$
EOF
# The other readers on the same garbage.
expect_status 65 hs import --type lis "$B/text-garbage.bin"
expect_status 65 hs import --type lirs "$B/text-truncated.gz"
expect_status 65 hs import --type csv "$B/text-truncated.gz"
expect_status 65 hs import --type csv "$B/oracle-truncated.bin"
expect_grep "^hsctl: $B/oracle-truncated.bin:1: NUL byte: binary data, not csv text\$" "$ERR"
# A binary trace given a text type fails on its first line.
expect_status 65 hs import --type text "$T/small.u32be.gz"
expect_grep "^hsctl: $T/small.u32be.gz:1: " "$ERR"
expect_eq "$(nr_sessions)" "$BEFORE"

# ---- usage and missing input ----
expect_status 66 hs import --type text "$T/does-not-exist"
expect_grep "^hsctl: $T/does-not-exist: No such file or directory\$" "$ERR"
expect_status 66 hs import --type text "$T"
expect_grep "^hsctl: $T: Is a directory\$" "$ERR"
expect_status 64 hs import --type bogus "$T/small.lirs"
expect_grep "unknown type 'bogus' (valid: text, lirs, lis, csv, oracle, u32be)" "$ERR"
expect_status 64 hs import "$T/small.lirs"
expect_grep "missing --type (valid: text, lirs, lis, csv, oracle, u32be)" "$ERR"
expect_status 64 hs import --type text
expect_status 64 hs import --type text "$T/small.lirs" "$T/small.lirs"
expect_status 64 hs import --type text --block-order reverse "$T/small.lirs"
expect_status 64 hs import --type lis --block-order sideways "$T/small.lis"
expect_status 64 hs import --type text --header "$T/small.lirs"
expect_status 64 hs import --type csv --column 0 "$T/small.csv"
expect_status 64 hs import --type text --force "$T/small.lirs"
expect_grep "force applies to --type u32be only" "$ERR"
expect_status 64 hs import --type oracle --force "$T/small.oracle.bin"
expect_status 64 hs import --type text --kind shm "$T/small.lirs"
expect_status 64 hs import --type text --channel pageout "$T/small.lirs"
expect_status 64 hs import --type text --format yaml "$T/small.lirs"
expect_status 64 hs import --type text --bogus "$T/small.lirs"
expect_eq "$(nr_sessions)" "$BEFORE"
# A missing file never creates the database.
expect_status 66 "$HSCTL" -d "$T_DIR/new.db" import --type text "$T/does-not-exist"
expect_eq "$(if [ -e "$T_DIR/new.db" ]; then echo created; else echo absent; fi)" absent
expect_status 0 hs import --help
expect_grep '^Usage: hsctl import' "$OUT"

# ---- plain binary files of 1 MiB or more are read through a mapping ----
head -c 2097152 /dev/zero > "$T_DIR/zero.u32be"
good u32be "$T_DIR/zero.u32be" 524288 1
# standard input read partly already: the import starts where read(2) would, not at byte 0
expect_eq "$( (dd bs=4 count=1 of=/dev/null 2>/dev/null
	"$HSCTL" -d "$T_DIR/stdin.db" import --type u32be -) < "$T_DIR/zero.u32be")" \
	"session 1: 524287 accesses, 1 distinct keys (-)"

# ---- public traces (POLICIES.md 5.3, traces/README.md) ----
if [ -n "${HSCTL_SHARED:-}" ] && [ -d "$HSCTL_SHARED/traces" ]; then
	S=$HSCTL_SHARED/traces
	good lirs "$S/lirs/cpp.trace.gz" 9047 1223
	good lirs "$S/lirs/loop.trace.gz" 505500 1011
	good lis "$S/arc/OLTP.lis.gz" 914145 186880 --block-order reverse
	good lis "$S/arc/P3.lis.gz" 3912296 762543 --block-order forward
	# OLTP's 914145 requests are one block each: the order does not matter, no note.
	expect_status 0 hs import --type lis "$S/arc/OLTP.lis.gz"
	expect_eq "$ERR" ""
	good text "$S/libcachesim/cloudPhysicsIO.txt.gz" 113872 48974
	good oracle "$S/libcachesim/cloudPhysicsIO.oracleGeneral.bin.gz" 113872 48974
	good u32be "$S/cache2k/trace-mt-db-20160419-busy.trc.bin.gz" 5000000 76349
else
	echo "note: HSCTL_SHARED is not set; public trace counts not checked"
fi

finish
