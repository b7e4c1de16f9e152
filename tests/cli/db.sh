#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl db info / migrate, and how every command treats files that are not
# (or not yet, or no longer) this hsctl's database: missing (66), not SQLite,
# another program's SQLite file, a newer schema (65, with the message naming
# the versions), an empty file (initialized by migrate or by any write).
. "$TESTS_SRCDIR/cli/setup.sh"

H() {
	"$HSCTL" -d "$DB" "$@"
}

# What schema 13 added (DAMON's regions' view): undone.
UNDO_13='DROP VIEW v_ev_damon_aggregated; DROP VIEW v_ev_damos_apply; PRAGMA user_version = 12;'
# What schema 12 added (the memcg flushes' view): undone.
UNDO_12='DROP VIEW v_ev_memcg_flush; PRAGMA user_version = 11;'
# What schema 11 added (the TLB events' views): undone.
UNDO_11='DROP VIEW v_ev_tlb_flush; DROP VIEW v_ev_sched_switch; DROP VIEW v_ev_migrate_task;
	PRAGMA user_version = 10;'
# What schema 10 added (tasks, the views' comm): undone, the views as schema 9 defined them.
UNDO_10='DROP VIEW v_events; CREATE VIEW v_events AS SELECT e.session AS session, e.seq
	AS seq, e.ts_ns AS ts_ns, e.cpu AS cpu, e.pid AS pid, t.name AS type, e.flags AS
	flags, e.folio_order AS folio_order, e.pfn AS pfn, e.dev AS dev, e.ino AS ino,
	e.idx AS idx, e.last AS last, e.addr AS addr, e.a AS a, e.b AS b, e.c AS c,
	e.type AS type_id FROM events AS e LEFT JOIN event_types AS t ON t.type =
	e.type; DROP VIEW v_ev_filemap_add; CREATE VIEW v_ev_filemap_add AS SELECT
	session, seq, ts_ns, cpu, pid AS common_pid, pfn, ino AS i_ino, idx AS "index",
	dev AS s_dev, folio_order AS "order" FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''filemap_add'\''); DROP VIEW v_ev_filemap_delete; CREATE
	VIEW v_ev_filemap_delete AS SELECT session, seq, ts_ns, cpu, pid AS common_pid,
	pfn, ino AS i_ino, idx AS "index", dev AS s_dev, folio_order AS "order" FROM
	events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''filemap_delete'\''); DROP VIEW v_ev_filemap_get_pages; CREATE VIEW
	v_ev_filemap_get_pages AS SELECT session, seq, ts_ns, cpu, pid AS common_pid,
	ino AS i_ino, dev AS s_dev, idx AS "index", last AS last_index FROM events WHERE
	type = (SELECT type FROM event_types WHERE name = '\''filemap_get_pages'\''); DROP
	VIEW v_ev_filemap_fault; CREATE VIEW v_ev_filemap_fault AS SELECT session, seq,
	ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS "index" FROM
	events WHERE type = (SELECT type FROM event_types WHERE name = '\''filemap_fault'\'');
	DROP VIEW v_ev_filemap_map_pages; CREATE VIEW v_ev_filemap_map_pages AS SELECT
	session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS
	"index", last AS last_index FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''filemap_map_pages'\''); DROP VIEW v_ev_readahead; CREATE
	VIEW v_ev_readahead AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino
	AS i_ino, dev AS s_dev, idx AS "index", folio_order AS "order", a AS req_count,
	(flags & 2) != 0 AS async FROM events WHERE type = (SELECT type FROM event_types
	WHERE name = '\''readahead'\''); DROP VIEW v_ev_lru_insertion; CREATE VIEW
	v_ev_lru_insertion AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, a
	AS lru, b AS flags FROM events WHERE type = (SELECT type FROM event_types WHERE
	name = '\''lru_insertion'\''); DROP VIEW v_ev_lru_activate; CREATE VIEW
	v_ev_lru_activate AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn
	FROM events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''lru_activate'\''); DROP VIEW v_ev_direct_reclaim_begin; CREATE VIEW
	v_ev_direct_reclaim_begin AS SELECT session, seq, ts_ns, cpu, pid AS common_pid,
	a AS "order", b AS gfp_flags FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''direct_reclaim_begin'\''); DROP VIEW
	v_ev_direct_reclaim_end; CREATE VIEW v_ev_direct_reclaim_end AS SELECT session,
	seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed FROM events WHERE type =
	(SELECT type FROM event_types WHERE name = '\''direct_reclaim_end'\''); DROP VIEW
	v_ev_memcg_reclaim_begin; CREATE VIEW v_ev_memcg_reclaim_begin AS SELECT
	session, seq, ts_ns, cpu, pid AS common_pid, a AS "order", b AS gfp_flags FROM
	events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''memcg_reclaim_begin'\''); DROP VIEW v_ev_memcg_reclaim_end; CREATE VIEW
	v_ev_memcg_reclaim_end AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a
	AS nr_reclaimed FROM events WHERE type = (SELECT type FROM event_types WHERE
	name = '\''memcg_reclaim_end'\''); DROP VIEW v_ev_softlimit_reclaim_begin; CREATE VIEW
	v_ev_softlimit_reclaim_begin AS SELECT session, seq, ts_ns, cpu, pid AS
	common_pid, a AS "order", b AS gfp_flags FROM events WHERE type = (SELECT type
	FROM event_types WHERE name = '\''softlimit_reclaim_begin'\''); DROP VIEW
	v_ev_softlimit_reclaim_end; CREATE VIEW v_ev_softlimit_reclaim_end AS SELECT
	session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed FROM events WHERE
	type = (SELECT type FROM event_types WHERE name = '\''softlimit_reclaim_end'\''); DROP
	VIEW v_ev_node_reclaim_begin; CREATE VIEW v_ev_node_reclaim_begin AS SELECT
	session, seq, ts_ns, cpu, pid AS common_pid, a AS "order", b AS gfp_flags FROM
	events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''node_reclaim_begin'\''); DROP VIEW v_ev_node_reclaim_end; CREATE VIEW
	v_ev_node_reclaim_end AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a
	AS nr_reclaimed FROM events WHERE type = (SELECT type FROM event_types WHERE
	name = '\''node_reclaim_end'\''); DROP VIEW v_ev_kswapd_wake; CREATE VIEW
	v_ev_kswapd_wake AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS
	nid, b AS "order" FROM events WHERE type = (SELECT type FROM event_types WHERE
	name = '\''kswapd_wake'\''); DROP VIEW v_ev_kswapd_sleep; CREATE VIEW
	v_ev_kswapd_sleep AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS
	nid FROM events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''kswapd_sleep'\''); DROP VIEW v_ev_lru_isolate; CREATE VIEW v_ev_lru_isolate AS
	SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_taken, b AS
	nr_scanned, c AS lru FROM events WHERE type = (SELECT type FROM event_types
	WHERE name = '\''lru_isolate'\''); DROP VIEW v_ev_shrink_inactive; CREATE VIEW
	v_ev_shrink_inactive AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS
	nr_reclaimed, b AS nr_scanned, c AS file FROM events WHERE type = (SELECT type
	FROM event_types WHERE name = '\''shrink_inactive'\''); DROP VIEW v_ev_shrink_active;
	CREATE VIEW v_ev_shrink_active AS SELECT session, seq, ts_ns, cpu, pid AS
	common_pid, a AS nr_deactivated, b AS nr_taken, c AS file FROM events WHERE type
	= (SELECT type FROM event_types WHERE name = '\''shrink_active'\''); DROP VIEW
	v_ev_reclaim_pages; CREATE VIEW v_ev_reclaim_pages AS SELECT session, seq,
	ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed, b AS nr_scanned FROM events
	WHERE type = (SELECT type FROM event_types WHERE name = '\''reclaim_pages'\''); DROP
	VIEW v_ev_write_folio; CREATE VIEW v_ev_write_folio AS SELECT session, seq,
	ts_ns, cpu, pid AS common_pid, pfn, (flags & 1) != 0 AS anon FROM events WHERE
	type = (SELECT type FROM event_types WHERE name = '\''write_folio'\''); DROP VIEW
	v_ev_shrink_slab_start; CREATE VIEW v_ev_shrink_slab_start AS SELECT session,
	seq, ts_ns, cpu, pid AS common_pid FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''shrink_slab_start'\''); DROP VIEW v_ev_shrink_slab_end;
	CREATE VIEW v_ev_shrink_slab_end AS SELECT session, seq, ts_ns, cpu, pid AS
	common_pid FROM events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''shrink_slab_end'\''); DROP VIEW v_ev_page_fault_user; CREATE VIEW
	v_ev_page_fault_user AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr
	AS address, a AS error_code FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''page_fault_user'\''); DROP VIEW v_ev_madvise; CREATE VIEW
	v_ev_madvise AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS
	start, a AS len_in, b AS behavior FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''madvise'\''); DROP VIEW v_ev_process_fork; CREATE VIEW
	v_ev_process_fork AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid AS
	parent_pid, a AS child_pid FROM events WHERE type = (SELECT type FROM
	event_types WHERE name = '\''process_fork'\''); DROP VIEW v_ev_process_exit; CREATE
	VIEW v_ev_process_exit AS SELECT session, seq, ts_ns, cpu, pid AS common_pid
	FROM events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''process_exit'\''); DROP VIEW v_ev_process_exec; CREATE VIEW v_ev_process_exec AS
	SELECT session, seq, ts_ns, cpu, pid AS common_pid FROM events WHERE type =
	(SELECT type FROM event_types WHERE name = '\''process_exec'\''); DROP VIEW
	v_ev_task_new; CREATE VIEW v_ev_task_new AS SELECT session, seq, ts_ns, cpu, pid
	AS common_pid, a AS pid, b AS clone_flags FROM events WHERE type = (SELECT type
	FROM event_types WHERE name = '\''task_new'\''); DROP VIEW v_ev_lost; CREATE VIEW
	v_ev_lost AS SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS lost FROM
	events WHERE type = (SELECT type FROM event_types WHERE name = '\''lost'\''); DROP
	VIEW v_ev_touch; CREATE VIEW v_ev_touch AS SELECT session, seq, ts_ns, cpu, pid
	AS common_pid, pid AS tgid, addr AS address, dev AS s_dev, ino AS i_ino, idx AS
	"index", (flags & 4) != 0 AS write, (flags & 1) != 0 AS anon, (flags & 8) != 0
	AS fd FROM events WHERE type = (SELECT type FROM event_types WHERE name =
	'\''touch'\''); DROP TABLE tasks; PRAGMA user_version = 9;
'
# What schema 9 added (the run views' new columns, the v_ev_* views): undone.
UNDO_9='DROP VIEW v_runs; DROP VIEW v_policy_compare; DROP VIEW v_refaults; DROP VIEW v_pingpong;
	CREATE VIEW v_runs AS
	SELECT id AS run, session, policy, params, capacity, accesses, hits, misses,
	CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio,
	evictions, refaults, pingpong_keys, protected, protected_useful,
	protected_wasted, wall_s, pswpin, pswpout
	FROM runs;
	CREATE VIEW v_policy_compare AS
	SELECT session, capacity, policy,
	CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio, opt_gap
	FROM runs;
	CREATE VIEW v_refaults AS
	SELECT h.run AS run, r.policy AS policy, r.capacity AS capacity, h.lo AS lo,
	h.hi AS hi, h.count AS count
	FROM run_refault_hist AS h JOIN runs AS r ON r.id = h.run;
	CREATE VIEW v_pingpong AS
	SELECT id AS run, session, policy, capacity, pingpong_keys, pingpong_refaults, misses,
	CASE WHEN misses > 0 THEN pingpong_refaults * 1.0 / misses END AS miss_share
	FROM runs;
	PRAGMA user_version = 8;
	DROP VIEW v_ev_filemap_add; DROP VIEW v_ev_filemap_delete; DROP VIEW
	v_ev_filemap_get_pages; DROP VIEW v_ev_filemap_fault; DROP VIEW
	v_ev_filemap_map_pages; DROP VIEW v_ev_readahead; DROP VIEW v_ev_lru_insertion;
	DROP VIEW v_ev_lru_activate; DROP VIEW v_ev_direct_reclaim_begin; DROP VIEW
	v_ev_direct_reclaim_end; DROP VIEW v_ev_memcg_reclaim_begin; DROP VIEW
	v_ev_memcg_reclaim_end; DROP VIEW v_ev_softlimit_reclaim_begin; DROP VIEW
	v_ev_softlimit_reclaim_end; DROP VIEW v_ev_node_reclaim_begin; DROP VIEW
	v_ev_node_reclaim_end; DROP VIEW v_ev_kswapd_wake; DROP VIEW v_ev_kswapd_sleep;
	DROP VIEW v_ev_lru_isolate; DROP VIEW v_ev_shrink_inactive; DROP VIEW
	v_ev_shrink_active; DROP VIEW v_ev_reclaim_pages; DROP VIEW v_ev_write_folio;
	DROP VIEW v_ev_shrink_slab_start; DROP VIEW v_ev_shrink_slab_end; DROP VIEW
	v_ev_page_fault_user; DROP VIEW v_ev_madvise; DROP VIEW v_ev_process_fork; DROP
	VIEW v_ev_process_exit; DROP VIEW v_ev_process_exec; DROP VIEW v_ev_task_new;
	DROP VIEW v_ev_lost; DROP VIEW v_ev_touch;'

# What schema 7 added (hsctl fidelity).
UNDO_7='DROP VIEW v_fidelity; DROP TABLE fidelity; PRAGMA user_version = 6;'

# What schema 6 added (the eviction logs, the kernel row, folio_lives.workload).
UNDO_6='DROP VIEW v_evictions; DROP TABLE run_evictions; DROP VIEW v_kernel;
	DROP VIEW v_folio_lives; ALTER TABLE folio_lives DROP COLUMN workload;
	CREATE VIEW v_folio_lives AS SELECT l.session AS session, k.name AS kind,
		l.dev AS dev, l.ino AS ino, l.tgid AS tgid, l.address AS address,
		l.first_page AS first_page, l.pages AS pages, l.born_ns AS born_ns,
		l.died_ns AS died_ns, d.name AS death_cause, l.refault AS refault,
		l.refault_distance AS refault_distance, l.refault_ns AS refault_ns,
		l.flags AS flags, l.accesses AS accesses, l.activations AS activations,
		l.pfn AS pfn, l.life AS life FROM folio_lives AS l
		LEFT JOIN life_kinds AS k ON k.kind = l.kind
		LEFT JOIN death_causes AS d ON d.cause = l.death_cause;
	PRAGMA user_version = 5;'

# What schema 5 added (runs.readahead_*).
UNDO_5='ALTER TABLE runs DROP COLUMN readahead_pages;
	ALTER TABLE runs DROP COLUMN readahead_unused;
	PRAGMA user_version = 4;'

# What schema 4 added (the miss-ratio curves of hsctl mrc).
UNDO_4='DROP VIEW v_mrc; DROP TABLE mrc_points; DROP TABLE mrc_curves;
	PRAGMA user_version = 3;'

# What schema 3 added (runs.opt_reference, runs.opt_gap, v_policy_compare reading it).
UNDO_3='DROP VIEW v_policy_compare; ALTER TABLE runs DROP COLUMN opt_gap;
	ALTER TABLE runs DROP COLUMN opt_reference;
	CREATE VIEW v_policy_compare AS
	  SELECT r.session AS session, r.capacity AS capacity, r.policy AS policy,
	    CASE WHEN r.accesses > 0 THEN r.hits * 1.0 / r.accesses END AS hit_ratio,
	    (SELECT r.misses * 1.0 / o.misses FROM runs AS o
	      WHERE o.session = r.session AND o.capacity = r.capacity AND o.policy = '"'opt'"'
	      ORDER BY o.id DESC LIMIT 1) AS opt_gap
	  FROM runs AS r;
	PRAGMA user_version = 2;'

# --- missing ---
expect_status 66 H db
expect_eq "$ERR" "hsctl: $DB: No such file or directory"
expect_status 66 H db info
expect_status 66 H db migrate
[ ! -e "$DB" ] || t_bad "db created $DB"

# --- a fresh database ---
expect_status 0 H gen loop --seed 1 --accesses 100 --keys 10
expect_status 0 H db
expect_grep '^path  *'"$DB"'$' "$OUT"
expect_grep '^application_id  *0x48534354$' "$OUT"
expect_grep '^hsctl_database  *yes$' "$OUT"
expect_grep '^schema_version  *13$' "$OUT"
expect_grep '^supported_version  *13$' "$OUT"
expect_grep '^sessions  *1$' "$OUT"
expect_grep '^runs  *0$' "$OUT"
expect_grep '^journal_mode  *wal$' "$OUT"
expect_grep '^page_size  *[0-9][0-9]*$' "$OUT"
expect_grep '^file_size  *[1-9][0-9]*$' "$OUT"
expect_status 0 H db info --format json
expect_grep '^  "application_id": "0x48534354",$' "$OUT"
expect_grep '^  "schema_version": 13,$' "$OUT"
expect_grep '^  "sessions": 1,$' "$OUT"
expect_grep '^  "journal_mode": "wal"$' "$OUT"
expect_status 0 H --format csv db info
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" \
	'path,application_id,hsctl_database,schema_version,supported_version,sessions,runs,'\
'file_size,page_size,pages,free_pages,journal_mode'
expect_status 0 H db migrate
expect_eq "$OUT" "$DB: schema version 13 (up to date)"
expect_status 0 H db migrate --format json
expect_eq "$OUT" "$(printf '{\n  "path": "%s",\n  "from_version": 13,\n  "to_version": 13\n}' \
	"$DB")"
expect_status 64 H db frobnicate
expect_grep "unknown action 'frobnicate' (valid: info, migrate, recover)" "$ERR"
expect_status 64 H db info extra
expect_status 64 H db --format yaml
expect_status 0 H db --help
expect_grep 'EXAMPLES' "$OUT"

# --- an empty file: info leaves it alone, migrate initializes it ---
: >empty.db
expect_status 0 "$HSCTL" -d empty.db db info
expect_grep '^application_id  *0x00000000$' "$OUT"
expect_grep '^schema_version  *0$' "$OUT"
expect_grep '^sessions$' "$OUT"
[ ! -s empty.db ] || t_bad "db info wrote into empty.db"
expect_status 65 "$HSCTL" -d empty.db sql 'SELECT 1'
expect_eq "$ERR" 'hsctl: empty.db: not an hsctl database (empty file)'
expect_status 0 "$HSCTL" -d empty.db db migrate
expect_eq "$OUT" 'empty.db: schema version 0 -> 13'
expect_status 0 "$HSCTL" -d empty.db db info
expect_grep '^schema_version  *13$' "$OUT"
expect_grep '^sessions  *0$' "$OUT"
expect_status 0 "$HSCTL" -d empty.db sql 'SELECT count(*) AS n FROM v_runs'

# --- a schema-1 file (made from a fresh one by dropping what schemas 13, 12, 11, 10, 9, 7, 6, 5, 4, 3 and 2
# added): read-only commands ask for a migration, migrate keeps its sessions ---
cp "$DB" v1.db
expect_status 0 "$HSCTL" -d v1.db sql --write "$UNDO_13$UNDO_12$UNDO_11$UNDO_10$UNDO_9$UNDO_7$UNDO_6$UNDO_5$UNDO_4$UNDO_3"'
	DROP VIEW v_folio_lives; DROP VIEW v_events;
	DROP VIEW v_record_checks; DROP VIEW v_sessions;
	CREATE VIEW v_sessions AS SELECT id AS session, source, name, status, started, ended,
		accesses, distinct_keys FROM sessions;
	DROP TABLE lru_gen_snapshots; DROP TABLE record_cpus; DROP TABLE record_checks;
	DROP TABLE record_counters; DROP TABLE record_keys; DROP TABLE folio_lives;
	DROP TABLE events; DROP TABLE death_causes; DROP TABLE life_kinds;
	DROP TABLE event_types; DROP TABLE record_spool; DROP TABLE record_formats;
	DROP TABLE recordings; PRAGMA user_version = 1'
expect_status 0 "$HSCTL" -d v1.db db info
expect_grep '^schema_version  *1$' "$OUT"
expect_grep '^sessions  *1$' "$OUT"
expect_status 65 "$HSCTL" -d v1.db sql 'SELECT 1'
expect_eq "$ERR" "hsctl: v1.db: database schema version 1 is older than this hsctl's (13);"\
" run 'hsctl db migrate'"
expect_status 0 "$HSCTL" -d v1.db db migrate
expect_eq "$OUT" 'v1.db: schema version 1 -> 13'
expect_status 0 "$HSCTL" -d v1.db sql --format csv \
	'SELECT session, accesses, memory_limit_pages, workload_exit FROM v_sessions'
expect_eq "$OUT" "$(printf 'session,accesses,memory_limit_pages,workload_exit\n1,100,,')"

# --- not SQLite ---
i=0
while [ $i -lt 100 ]; do
	echo "this is not a database"
	i=$((i + 1))
done >garbage.db
for cmd in 'db' 'db migrate' 'sessions' 'sql SELECT\ 1' 'gen loop --keys 5 --accesses 10'; do
	eval "expect_status 65 \"\$HSCTL\" -d garbage.db $cmd"
	expect_eq "$ERR" 'hsctl: garbage.db: file is not a database'
done
expect_eq "$(wc -l <garbage.db | tr -d ' ')" 100

# --- another program's SQLite file ---
cp "$DB" other.db
expect_status 0 "$HSCTL" -d other.db sql --write 'PRAGMA application_id = 7'
for cmd in 'db' 'sessions' 'sql SELECT\ 1' 'gen loop --keys 5 --accesses 10'; do
	eval "expect_status 65 \"\$HSCTL\" -d other.db $cmd"
	expect_eq "$ERR" 'hsctl: other.db: not an hsctl database'
done

# --- a newer hsctl's file: refused everywhere, never changed ---
cp "$DB" newer.db
expect_status 0 "$HSCTL" -d newer.db sql --write 'PRAGMA user_version = 99'
for cmd in 'db' 'db migrate' 'sessions' 'sql SELECT\ 1' 'gen loop --keys 5 --accesses 10' \
	'replay 1 --policy lru --size 5'; do
	eval "expect_status 65 \"\$HSCTL\" -d newer.db $cmd"
	expect_eq "$ERR" \
		'hsctl: newer.db: database schema version 99 is newer than this hsctl supports'\
' (13); upgrade hsctl'
done

# --- a schema-2 file with runs: migrate marks the demand-paging OPT runs and
# stores every run's OPT gap, as replay stores it; the newest OPT run is the
# bypass one, which the gap does not compare with ---
cp "$DB" v2.db
expect_status 0 "$HSCTL" -d v2.db replay 1 --policy lru,opt --param opt.bypass=false,true \
	--size 4 --format csv
RUNS_SQL='SELECT policy, params, opt_reference, opt_gap FROM runs ORDER BY id'
expect_status 0 "$HSCTL" -d v2.db sql --format csv "$RUNS_SQL"
STORED=$OUT
expect_status 0 "$HSCTL" -d v2.db sql --format csv 'SELECT * FROM v_policy_compare'
COMPARED=$OUT
expect_status 0 "$HSCTL" -d v2.db sql --write "$UNDO_13$UNDO_12$UNDO_11$UNDO_10$UNDO_9$UNDO_7$UNDO_6$UNDO_5$UNDO_4$UNDO_3"
expect_status 0 "$HSCTL" -d v2.db db migrate
expect_eq "$OUT" 'v2.db: schema version 2 -> 13'
expect_status 0 "$HSCTL" -d v2.db sql --format csv "$RUNS_SQL"
expect_eq "$OUT" "$STORED"
expect_status 0 "$HSCTL" -d v2.db sql --format csv 'SELECT * FROM v_policy_compare'
expect_eq "$OUT" "$COMPARED"

finish
