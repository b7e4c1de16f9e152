#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl sessions (list, show, rm) and hsctl sql: formats, exact bytes of a
# hand-encoded chunk, the view columns scripts rely on, read-only refusal,
# SQL errors, cascading removal and every documented exit status.
#
# Hand-checked data: ids.txt holds the keys 100, 7, 100, 42 -> dense keys 0,
# 1, 0, 2, all PT file accesses (meta 0x01).  Encoded (hsctl-db(5)): "01 01"
# (key 0, meta changed), "04" (+1), "02" (-1), "08" (+2).  A loop over 50 keys
# replayed at capacity 50 misses each key once: 450 hits of 500, for LRU and
# OPT alike.
. "$TESTS_SRCDIR/cli/setup.sh"

H() {
	"$HSCTL" -d "$DB" "$@"
}

# --- no database yet ---
expect_status 66 H sessions
expect_grep "^hsctl: $DB: No such file or directory\$" "$ERR"
expect_status 66 H sql 'SELECT 1'
expect_status 66 H sessions show 1
expect_status 66 H sessions rm 1
[ ! -e "$DB" ] || t_bad "a read-only command created $DB"

# --- sessions 1 (text import), 2 (loop), 3 (zipf) ---
printf '100\n7\n100\n42\n' >ids.txt
expect_status 0 H import --type text ids.txt
expect_status 0 H gen loop --seed 1 --accesses 500 --keys 50 --name myloop
expect_status 0 H gen zipf --seed 1 --accesses 1000 --keys 100

expect_status 0 H sessions
expect_grep '^id  *source  *name  *status  *accesses  *keys  *unit  *started$' "$OUT"
expect_grep '^ *1  *import  *ids\.txt  *complete  *4  *3  *object  *20[0-9-]* [0-9:]*$' "$OUT"
expect_grep '^ *2  *gen  *myloop  *complete  *500  *50  *page  ' "$OUT"
expect_grep '^ *3  *gen  *zipf --alpha \.\.\.  *complete  *1000  *95  *page  ' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | awk 'length > 80' | wc -l | tr -d ' ')" 0
expect_status 0 H sessions list
expect_eq "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 4

expect_status 0 H sessions --format csv
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" 'id,source,name,status,accesses,keys,unit,started'
expect_grep '^2,gen,myloop,complete,500,50,page,20..-..-..T..:..:..Z$' "$OUT"
expect_grep '^3,gen,zipf --alpha 0.99 --keys 100 --accesses 1000 --seed 1,complete,1000,' "$OUT"
expect_grep '^1,import,ids\.txt,complete,4,3,object,20' "$OUT"

expect_status 0 H --format json sessions
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" '['
expect_grep '^  {"id": 1, "source": "import", "name": "ids.txt", "status": "complete", '\
'"accesses": 4, "keys": 3, "unit": "object", "started": "' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" ']'

# --- show ---
expect_status 0 H sessions show 2
expect_grep '^id  *2$' "$OUT"
expect_grep '^name  *myloop$' "$OUT"
expect_grep '^format  *loop$' "$OUT"
expect_grep '^records  *500$' "$OUT"
expect_grep '^distinct_keys  *50$' "$OUT"
expect_grep '^status  *complete$' "$OUT"
expect_grep '^runs  *0$' "$OUT"
expect_grep '^unit  *page$' "$OUT"
expect_grep '^visibility  *exact$' "$OUT"
expect_status 0 H sessions show 1 --format json
expect_grep '^  "visibility": "exact",$' "$OUT"
expect_grep '^  "origin": "ids.txt",$' "$OUT"
expect_grep '^  "kind": "file",$' "$OUT"
expect_grep '^  "channel": "pt",$' "$OUT"
expect_grep '^  "accesses": 4,$' "$OUT"
expect_grep '^  "runs": 0$' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" '{'
expect_status 0 H --format csv sessions show 1
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" \
	'id,source,name,origin,format,unit,kind,channel,visibility,params,status,started,ended,'\
'records,accesses,distinct_keys,host,hsctl_version,runs'
expect_grep '^1,import,ids\.txt,ids\.txt,text,object,file,pt,exact,' "$OUT"

expect_status 66 H sessions show 99
expect_eq "$ERR" 'hsctl: sessions: no session 99'
expect_status 64 H sessions show abc
expect_eq "$ERR" "hsctl: sessions: 'abc' is not a session id"
expect_status 64 H sessions show 0
expect_status 64 H sessions show
expect_status 64 H sessions show 1 2
expect_status 64 H sessions frobnicate
expect_grep "unknown action 'frobnicate'" "$ERR"
expect_status 64 H sessions --format xml
expect_status 0 H sessions --help
expect_grep 'EXAMPLES' "$OUT"

# --- sql: types and formats ---
expect_status 0 H sql 'SELECT 7 AS x'
expect_eq "$OUT" "$(printf 'x\n7')"
expect_status 0 H sql --format json \
	"SELECT 1 AS one, 2.5 AS r, NULL AS n, x'00ff' AS b, 'it''s' AS t"
expect_eq "$OUT" '[
  {"one": 1, "r": 2.5, "n": null, "b": "x'"'00ff'"'", "t": "it'"'"'s"}
]'
expect_status 0 H --format csv sql "SELECT 1 AS one, NULL AS n, 'a,b' AS t"
expect_eq "$OUT" "$(printf 'one,n,t\n1,,"a,b"')"
expect_status 0 H sql --format json 'SELECT * FROM sessions WHERE 0'
expect_eq "$OUT" '[]'
expect_status 0 H sql 'SELECT * FROM sessions WHERE 0'
expect_eq "$OUT" ''
# only the last statement that returns rows prints
expect_status 0 H sql 'SELECT 1 AS a; SELECT 2 AS b'
expect_eq "$OUT" "$(printf 'b\n2')"

# the chunk of session 1, byte by byte, and its original ids
expect_status 0 H sql --format csv 'SELECT chunk_no, first_seq, nr_records, nr_accesses,
	encoding, hex(data) AS data FROM access_chunks WHERE session = 1'
expect_eq "$OUT" 'chunk_no,first_seq,nr_records,nr_accesses,encoding,data
0,0,4,4,1,0101040208'
expect_status 0 H sql --format csv 'SELECT hs_key(1, 0) AS a, hs_key(1, 1) AS b,
	hs_key(1, 2) AS c, hs_key(1, 3) AS d'
expect_eq "$OUT" "$(printf 'a,b,c,d\n100,7,42,')"

# --- the view columns scripts rely on ---
expect_status 0 H sql --format csv 'SELECT * FROM v_sessions WHERE session = 2'
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" \
	'session,source,name,status,started,ended,accesses,distinct_keys,'\
'memory_limit_pages,lost_events,kernel,lru_gen,pswpin,pswpout,workload_exit'
expect_grep '^2,gen,myloop,complete,20[^,]*,20[^,]*,500,50,,,,,,,$' "$OUT"
expect_status 0 H replay 2 --policy lru,opt --size 50
expect_status 0 H sql --format csv 'SELECT * FROM v_runs ORDER BY run'
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" \
	'run,session,policy,params,capacity,accesses,hits,misses,hit_ratio,evictions,refaults,'\
'pingpong_keys,protected,protected_useful,protected_wasted,wall_s,pswpin,pswpout,'\
'cold_misses,opt_gap,peak_resident'
# A loop of 50 keys in 50 slots: 50 cold misses, OPT's own misses, all 50 resident.
expect_status 0 H sql --format csv 'SELECT policy, params, cold_misses, opt_gap, peak_resident
	FROM v_runs WHERE session = 2 ORDER BY policy'
expect_eq "$OUT" 'policy,params,cold_misses,opt_gap,peak_resident
lru,{},50,1,50
opt,"{""bypass"":false}",50,1,50'
expect_status 0 H sql --format csv 'SELECT policy, capacity, accesses, hits, misses, hit_ratio,
	evictions FROM v_runs ORDER BY policy'
expect_eq "$OUT" 'policy,capacity,accesses,hits,misses,hit_ratio,evictions
lru,50,500,450,50,0.9,0
opt,50,500,450,50,0.9,0'
expect_status 0 H sql --format json \
	'SELECT policy, hit_ratio, opt_gap FROM v_policy_compare ORDER BY policy'
expect_eq "$OUT" '[
  {"policy": "lru", "hit_ratio": 0.9, "opt_gap": 1},
  {"policy": "opt", "hit_ratio": 0.9, "opt_gap": 1}
]'
expect_status 0 H sessions show 2
expect_grep '^runs  *2$' "$OUT"

# --- sql errors and read-only refusal ---
expect_status 1 H sql 'SELECT * FROM foo'
expect_eq "$ERR" 'hsctl: sql: no such table: foo'
expect_status 1 H sql 'SELEC 1'
expect_grep '^hsctl: sql: near "SELEC": syntax error$' "$ERR"
expect_status 64 H sql 'DELETE FROM sessions'
expect_eq "$ERR" 'hsctl: sql: statement writes to the database; use --write'
expect_status 64 H sql 'SELECT 1; DELETE FROM sessions'
expect_status 64 H sql 'PRAGMA user_version = 5'
expect_status 0 H sql 'SELECT count(*) AS n FROM sessions'
expect_eq "$OUT" "$(printf 'n\n3')"
expect_status 64 H sql
expect_status 64 H sql 'SELECT 1' 'SELECT 2'
expect_status 64 H sql '  ;  '
expect_status 0 H sql --help
expect_grep 'EXAMPLES' "$OUT"

expect_status 0 H sql --write "UPDATE sessions SET name = 'renamed' WHERE id = 2"
expect_status 0 H sql 'SELECT name FROM v_sessions WHERE session = 2'
expect_eq "$OUT" "$(printf 'name\nrenamed')"
expect_status 1 H sql --write "UPDATE sessions SET kind = 'bogus' WHERE id = 2"
expect_grep '^hsctl: sql: CHECK constraint failed' "$ERR"

# --- rm: cascades, exit 66 for a missing one, the others still go ---
expect_status 0 H sessions rm 2
expect_status 0 H sql --format csv 'SELECT (SELECT count(*) FROM runs) AS runs,
	(SELECT count(*) FROM access_chunks WHERE session = 2) AS chunks,
	(SELECT count(*) FROM session_keys WHERE session = 2) AS keys'
expect_eq "$OUT" "$(printf 'runs,chunks,keys\n0,0,0')"
expect_status 66 H sessions show 2
expect_status 66 H sessions rm 2
expect_eq "$ERR" 'hsctl: sessions: no session 2'
expect_status 66 H sessions rm 99 1
expect_status 0 H sql --format csv 'SELECT id FROM sessions'
expect_eq "$OUT" "$(printf 'id\n3')"
expect_status 64 H sessions rm
expect_status 64 H sessions rm 3 x
expect_status 0 H sql --format csv 'SELECT id FROM sessions'
expect_eq "$OUT" "$(printf 'id\n3')"
# numbers are never reused
expect_status 0 H gen loop --seed 1 --accesses 10 --keys 5
expect_grep '^session 4:' "$OUT"

# --- a recorded session (made by hand): the recording's fields and self-checks ---
expect_status 0 H gen loop --seed 1 --accesses 10 --keys 5 --name rec
expect_grep '^session 5:' "$OUT"
expect_status 0 H sql --write "UPDATE sessions SET source = 'record' WHERE id = 5;
	INSERT INTO recordings (session, pid, workload, kernel, lru_gen, memory_limit_pages,
		workload_exit, runtime_ns, lost_events, events_decoded)
		VALUES (5, 1, 'scan-twice', '6.18.0', 'absent', 7, 0, 1500000000, 3, 1234);
	INSERT INTO folio_lives (session, life, kind, dev, ino, first_page, pages, death_cause,
		refault, flags, accesses, activations)
		VALUES (5, 0, 0, 1, 2, 0, 1, 1, 0, 0, 1, 0), (5, 1, 0, 1, 2, 0, 1, 0, 1, 0, 1, 0),
		(5, 2, 0, 1, 2, 1, 1, 3, 0, 0, 0, 0);
	INSERT INTO record_checks VALUES (5, 'reclaim_deaths', 'ok', 1, 1, NULL),
		(5, 'lost_events', 'differs', 2, 0, '2 gaps')"
expect_status 0 H sql --write "UPDATE sessions SET visibility = 'faults' WHERE id = 5"
expect_status 0 H sessions show 5
expect_grep '^kernel  *6\.18\.0$' "$OUT"
expect_grep '^visibility  *faults$' "$OUT"
expect_grep '^memory_limit_pages  *7$' "$OUT"
expect_grep '^workload_exit  *0$' "$OUT"
expect_grep '^workload_signal$' "$OUT"
expect_grep '^runtime_s  *1\.5$' "$OUT"
expect_grep '^lost_events  *3$' "$OUT"
expect_grep '^events  *1234$' "$OUT"
expect_grep '^lives  *3$' "$OUT"
expect_grep '^alive  *1$' "$OUT"
expect_grep '^died_reclaim  *1$' "$OUT"
expect_grep '^died_truncate  *1$' "$OUT"
expect_grep '^refaults  *1$' "$OUT"
expect_grep '^self-checks:$' "$OUT"
expect_grep '^name  *status  *got  *want  *note$' "$OUT"
expect_grep '^reclaim_deaths  *ok  *1  *1$' "$OUT"
expect_grep '^lost_events  *differs  *2  *0  *2 gaps$' "$OUT"
expect_status 0 H sessions show 5 --format json
expect_grep '^  "memory_limit_pages": 7,$' "$OUT"
expect_grep '^  "visibility": "faults",$' "$OUT"
expect_grep '^  "died_pageout": 0,$' "$OUT"
expect_grep '^  "checks": \[$' "$OUT"
expect_grep '^    {"name": "reclaim_deaths", "status": "ok", "got": 1, "want": 1, "note": null},$'\
	"$OUT"
expect_grep '^    {"name": "lost_events", "status": "differs", "got": 2, "want": 0,'\
' "note": "2 gaps"}$' "$OUT"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 2 | tr -d '\n')" '  ]}'
expect_status 0 H sessions show 5 --format csv
expect_eq "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" 2
expect_grep '^id,.*,memory_limit_pages,.*,refaults,' "$OUT"
expect_grep '^id,source,name,origin,format,unit,kind,channel,visibility,params,' "$OUT"
expect_grep '^5,record,rec,.*,page,file,pt,faults,' "$OUT"
expect_status 0 H sql --write 'DELETE FROM record_checks'
expect_status 0 H sessions show 5
expect_eq "$(printf '%s\n' "$OUT" | grep -c 'self-checks' || true)" 0
expect_status 0 H sessions show 5 --format json
expect_grep '^  "checks": \[\]$' "$OUT"
expect_status 0 H sessions rm 5
expect_status 0 H sql --format csv 'SELECT (SELECT count(*) FROM recordings) AS r,
	(SELECT count(*) FROM folio_lives) AS l'
expect_eq "$OUT" "$(printf 'r,l\n0,0')"

finish
