/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite store (see store.h; the schema is specified in man/hsctl-db.5).
 * Only this file and lib/store-rec.c (the recorder's tables, through the
 * private lib/store-int.h) include <sqlite3.h>; the schema and the shared
 * statements of both are here.  store-rec.c uses this file's internals and
 * this file calls nothing in store-rec.c (store-int.h says how the commit
 * still writes the recorder's buffered events).  The schema is an ordered array of
 * migrations: migration i takes a file from user_version i to i + 1, and all
 * pending ones run in one transaction together with the application_id and
 * user_version updates; an empty file takes the same schema from one script
 * instead (fresh_schema[], a third of the CPU).  Statements used more than once live in an
 * enum-indexed table, are prepared on first use (so a file that is opened
 * only for `hsctl sql` pays nothing) and finalized at close.
 *
 * A session is written inside one BEGIN IMMEDIATE transaction: the writer
 * renumbers keys through lib/keymap.c, buffers one chunk of HS_CHUNK_RECORDS
 * records and writes each full chunk as a blob (lib/codec.c), so an import
 * holds one chunk plus the key map.  The commit writes the original ids in
 * dense-id order as key chunks and the counts, and marks the session
 * complete; an abort rolls everything back.  A staged writer (imports)
 * writes its chunks to an unnamed temporary file instead and takes the write
 * lock only at the commit, which copies them over.  A reader fetches one chunk per
 * call with a point query, so no statement stays active between calls, all
 * inside one read transaction from its open to its close: another process
 * that deletes the session meanwhile cannot pull the stream away.
 *
 * The OPT gap of a run (runs.opt_gap, against the newest demand-paging OPT
 * run of its session and capacity) is defined here once, in C: storing runs
 * recomputes it for their sessions, the migration that added the column
 * computes it for what was stored, and hs_store_opt_gaps() applies it to
 * runs that are not stored, so every output reads one value.
 *
 * SQLite result codes become negative errnos here, with sqlite3_errmsg() kept
 * as the message.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "event.h"
#include "evlog.h"
#include "hs.h"
#include "keymap.h"
#include "life.h"
#include "lrugen.h"
#include "param.h"
#include "store-int.h"

#define BUSY_TIMEOUT_MS		10000		/* wait this long for another writer */
static int busy_timeout_ms = BUSY_TIMEOUT_MS;	/* hs_store_set_busy_timeout() */
#define NOW_SQL			"strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/*
 * The comm of an event's task (migration 9 -> 10): the name tasks holds for
 * its pid at its time, or NULL.  Part of shipped migrations: never edit it.
 */
#define TASK_COMM(ev)								\
	"(SELECT k.comm FROM tasks AS k WHERE k.session = " ev ".session"	\
	" AND k.pid = " ev ".pid AND (k.from_ns IS NULL OR k.from_ns <= " ev ".ts_ns)"	\
	" AND (k.to_ns IS NULL OR " ev ".ts_ns < k.to_ns))"

/*
 * Schema migrations.  Never edit a shipped entry: add one.  Entry i brings a
 * file from user_version i to i + 1.
 */
static const char *const migrations[] = {
	/* 0 -> 1: sessions, compact access stream, runs and their views */
	"CREATE TABLE sessions ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  source TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  origin TEXT,"
	"  format TEXT,"
	"  unit TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('file', 'anon')),"
	"  channel TEXT NOT NULL CHECK (channel IN ('pt', 'fd')),"
	"  visibility TEXT NOT NULL DEFAULT 'exact'"
	"    CHECK (visibility IN ('exact', 'sampled', 'faults')),"
	"  params TEXT NOT NULL DEFAULT '{}',"
	"  status TEXT NOT NULL,"
	"  started TEXT NOT NULL,"
	"  ended TEXT,"
	"  records INTEGER NOT NULL DEFAULT 0,"
	"  accesses INTEGER NOT NULL DEFAULT 0,"
	"  distinct_keys INTEGER NOT NULL DEFAULT 0,"
	"  host TEXT,"
	"  hsctl_version TEXT NOT NULL"
	");"
	"CREATE TABLE access_chunks ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  chunk_no INTEGER NOT NULL,"
	"  first_seq INTEGER NOT NULL,"
	"  nr_records INTEGER NOT NULL,"
	"  nr_accesses INTEGER NOT NULL,"
	"  encoding INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (session, chunk_no)"
	");"
	"CREATE TABLE session_keys ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  chunk_no INTEGER NOT NULL,"
	"  first_key INTEGER NOT NULL,"
	"  nr_keys INTEGER NOT NULL,"
	"  encoding INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (session, chunk_no)"
	");"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  policy TEXT NOT NULL,"
	"  params TEXT NOT NULL DEFAULT '{}',"
	"  capacity INTEGER NOT NULL,"
	"  records INTEGER NOT NULL,"
	"  accesses INTEGER NOT NULL,"
	"  hits INTEGER NOT NULL,"
	"  misses INTEGER NOT NULL,"
	"  cold_misses INTEGER NOT NULL,"
	"  evictions INTEGER NOT NULL,"
	"  refaults INTEGER NOT NULL,"
	"  hint_evictions INTEGER NOT NULL,"
	"  hint_refaults INTEGER NOT NULL,"
	"  hints INTEGER NOT NULL,"
	"  drops INTEGER NOT NULL,"
	"  pswpin INTEGER NOT NULL,"
	"  pswpout INTEGER NOT NULL,"
	"  pingpong_keys INTEGER NOT NULL,"
	"  pingpong_refaults INTEGER NOT NULL,"
	"  distinct_keys INTEGER NOT NULL,"
	"  protected INTEGER NOT NULL,"
	"  protected_useful INTEGER NOT NULL,"
	"  protected_wasted INTEGER NOT NULL,"
	"  prot_occupancy REAL NOT NULL,"
	"  peak_resident INTEGER NOT NULL,"
	"  wall_s REAL NOT NULL,"
	"  created TEXT NOT NULL"
	");"
	"CREATE INDEX runs_by_session ON runs (session, capacity, policy);"
	"CREATE TABLE run_protection ("
	"  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"
	"  total INTEGER NOT NULL,"
	"  useful INTEGER NOT NULL,"
	"  wasted INTEGER NOT NULL,"
	"  PRIMARY KEY (run, kind)"
	");"
	"CREATE TABLE run_refault_hist ("
	"  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  bucket INTEGER NOT NULL,"
	"  lo INTEGER NOT NULL,"
	"  hi INTEGER NOT NULL,"
	"  count INTEGER NOT NULL,"
	"  PRIMARY KEY (run, bucket)"
	");"
	"CREATE TABLE run_metrics ("
	"  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  value REAL,"
	"  PRIMARY KEY (run, name)"
	");"
	"CREATE TABLE run_generations ("
	"  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  aging INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  max_seq INTEGER NOT NULL,"
	"  min_seq_anon INTEGER NOT NULL,"
	"  min_seq_file INTEGER NOT NULL,"
	"  gen INTEGER NOT NULL,"
	"  anon_pages INTEGER NOT NULL,"
	"  file_pages INTEGER NOT NULL,"
	"  PRIMARY KEY (run, aging, gen)"
	");"
	"CREATE VIEW v_sessions AS"
	"  SELECT id AS session, source, name, status, started, ended, accesses, distinct_keys"
	"  FROM sessions;"
	"CREATE VIEW v_runs AS"
	"  SELECT id AS run, session, policy, params, capacity, accesses, hits, misses,"
	"    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio,"
	"    evictions, refaults, pingpong_keys, protected, protected_useful,"
	"    protected_wasted, wall_s, pswpin, pswpout"
	"  FROM runs;"
	"CREATE VIEW v_policy_compare AS"
	"  SELECT r.session AS session, r.capacity AS capacity, r.policy AS policy,"
	"    CASE WHEN r.accesses > 0 THEN r.hits * 1.0 / r.accesses END AS hit_ratio,"
	"    (SELECT r.misses * 1.0 / o.misses FROM runs AS o"
	"      WHERE o.session = r.session AND o.capacity = r.capacity AND o.policy = 'opt'"
	"      ORDER BY o.id DESC LIMIT 1) AS opt_gap"
	"  FROM runs AS r;"
	"CREATE VIEW v_refaults AS"
	"  SELECT h.run AS run, r.policy AS policy, r.capacity AS capacity, h.lo AS lo,"
	"    h.hi AS hi, h.count AS count"
	"  FROM run_refault_hist AS h JOIN runs AS r ON r.id = h.run;"
	"CREATE VIEW v_pingpong AS"
	"  SELECT id AS run, session, policy, capacity, pingpong_keys, pingpong_refaults, misses,"
	"    CASE WHEN misses > 0 THEN pingpong_refaults * 1.0 / misses END AS miss_share"
	"  FROM runs;",
	/*
	 * 1 -> 2: recorded sessions (hsctl record).  The lookup tables
	 * event_types, life_kinds and death_causes are filled from the C enums
	 * by fill_names() (their values are append-only), v_sessions gains the
	 * recording's columns.
	 */
	"CREATE TABLE recordings ("
	"  session INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,"
	"  pid INTEGER NOT NULL,"
	"  host TEXT,"
	"  workload TEXT,"
	"  kernel TEXT,"
	"  lru_gen TEXT,"
	"  clock TEXT,"
	"  instance TEXT,"
	"  cgroup TEXT,"
	"  cgroup_version INTEGER NOT NULL DEFAULT 0,"
	"  memory_limit_pages INTEGER,"
	"  buffer_kb INTEGER,"
	"  page_size INTEGER,"
	"  events TEXT NOT NULL DEFAULT '[]',"
	"  workload_exit INTEGER,"
	"  workload_signal INTEGER,"
	"  runtime_ns INTEGER,"
	"  lost_events INTEGER,"
	"  lost_gaps INTEGER,"
	"  subbufs INTEGER,"
	"  bytes INTEGER,"
	"  events_decoded INTEGER,"
	"  touches INTEGER,"
	"  peak_pages INTEGER,"
	"  record_cpu_s REAL,"
	"  build_s REAL"
	");"
	"CREATE TABLE record_formats ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  path TEXT NOT NULL,"
	"  content BLOB NOT NULL,"
	"  PRIMARY KEY (session, path)"
	");"
	"CREATE TABLE record_spool ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  cpu INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (session, cpu, seq)"
	");"
	"CREATE TABLE event_types ("
	"  type INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL"
	");"
	"CREATE TABLE life_kinds ("
	"  kind INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL"
	");"
	"CREATE TABLE death_causes ("
	"  cause INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL"
	");"
	"CREATE TABLE events ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  ts_ns INTEGER NOT NULL,"
	"  cpu INTEGER NOT NULL,"
	"  pid INTEGER NOT NULL,"
	"  type INTEGER NOT NULL,"
	"  flags INTEGER NOT NULL,"
	"  folio_order INTEGER NOT NULL,"
	"  pfn INTEGER NOT NULL,"
	"  dev INTEGER NOT NULL,"
	"  ino INTEGER NOT NULL,"
	"  idx INTEGER NOT NULL,"
	"  last INTEGER NOT NULL,"
	"  addr INTEGER NOT NULL,"
	"  a INTEGER NOT NULL,"
	"  b INTEGER NOT NULL,"
	"  c INTEGER NOT NULL,"
	"  PRIMARY KEY (session, seq)"
	") WITHOUT ROWID;"
	"CREATE TABLE folio_lives ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  life INTEGER NOT NULL,"
	"  kind INTEGER NOT NULL,"
	"  dev INTEGER,"
	"  ino INTEGER,"
	"  tgid INTEGER,"
	"  address INTEGER,"
	"  first_page INTEGER NOT NULL,"
	"  pages INTEGER NOT NULL,"
	"  pfn INTEGER,"
	"  born_ns INTEGER,"
	"  died_ns INTEGER,"
	"  death_cause INTEGER NOT NULL,"
	"  refault INTEGER NOT NULL CHECK (refault IN (0, 1)),"
	"  refault_distance INTEGER,"
	"  refault_ns INTEGER,"
	"  flags INTEGER NOT NULL,"
	"  accesses INTEGER NOT NULL,"
	"  activations INTEGER NOT NULL,"
	"  PRIMARY KEY (session, life)"
	") WITHOUT ROWID;"
	"CREATE TABLE record_keys ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  key INTEGER NOT NULL,"
	"  kind INTEGER NOT NULL,"
	"  dev INTEGER,"
	"  ino INTEGER,"
	"  tgid INTEGER,"
	"  page INTEGER NOT NULL,"
	"  PRIMARY KEY (session, key)"
	") WITHOUT ROWID;"
	"CREATE TABLE record_counters ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  file TEXT NOT NULL,"
	"  scope TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  before INTEGER NOT NULL,"
	"  after INTEGER NOT NULL,"
	"  delta INTEGER NOT NULL,"
	"  PRIMARY KEY (session, file, scope, name)"
	");"
	"CREATE TABLE record_checks ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('ok', 'differs', 'n/a')),"
	"  got REAL,"
	"  want REAL,"
	"  note TEXT,"
	"  PRIMARY KEY (session, name)"
	");"
	"CREATE TABLE record_cpus ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  cpu INTEGER NOT NULL,"
	"  subbufs INTEGER NOT NULL,"
	"  bytes INTEGER NOT NULL,"
	"  events INTEGER NOT NULL,"
	"  overrun INTEGER NOT NULL,"
	"  commit_overrun INTEGER NOT NULL,"
	"  dropped INTEGER NOT NULL,"
	"  lost INTEGER NOT NULL,"
	"  PRIMARY KEY (session, cpu)"
	");"
	"CREATE TABLE lru_gen_snapshots ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  ts_ns INTEGER NOT NULL,"
	"  memcg_id INTEGER NOT NULL,"
	"  memcg_path TEXT NOT NULL,"
	"  node INTEGER NOT NULL,"
	"  gen INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  age_ms INTEGER NOT NULL,"
	"  anon_pages INTEGER NOT NULL,"
	"  file_pages INTEGER NOT NULL,"
	"  PRIMARY KEY (session, ts_ns, memcg_id, node, seq)"
	");"
	"CREATE VIEW v_folio_lives AS"
	"  SELECT l.session AS session, k.name AS kind, l.dev AS dev, l.ino AS ino,"
	"    l.tgid AS tgid, l.address AS address, l.first_page AS first_page,"
	"    l.pages AS pages, l.born_ns AS born_ns, l.died_ns AS died_ns,"
	"    d.name AS death_cause, l.refault AS refault,"
	"    l.refault_distance AS refault_distance, l.refault_ns AS refault_ns,"
	"    l.flags AS flags, l.accesses AS accesses, l.activations AS activations,"
	"    l.pfn AS pfn, l.life AS life"
	"  FROM folio_lives AS l"
	"    LEFT JOIN life_kinds AS k ON k.kind = l.kind"
	"    LEFT JOIN death_causes AS d ON d.cause = l.death_cause;"
	"DROP VIEW v_sessions;"
	"CREATE VIEW v_sessions AS"
	"  SELECT s.id AS session, s.source AS source, s.name AS name, s.status AS status,"
	"    s.started AS started, s.ended AS ended, s.accesses AS accesses,"
	"    s.distinct_keys AS distinct_keys, r.memory_limit_pages AS memory_limit_pages,"
	"    r.lost_events AS lost_events, r.kernel AS kernel, r.lru_gen AS lru_gen,"
	"    (SELECT c.delta FROM record_counters AS c WHERE c.session = s.id"
	"      AND c.file = 'vmstat' AND c.scope = 'machine' AND c.name = 'pswpin') AS pswpin,"
	"    (SELECT c.delta FROM record_counters AS c WHERE c.session = s.id"
	"      AND c.file = 'vmstat' AND c.scope = 'machine' AND c.name = 'pswpout') AS pswpout,"
	"    r.workload_exit AS workload_exit"
	"  FROM sessions AS s LEFT JOIN recordings AS r ON r.session = s.id;"
	"CREATE VIEW v_events AS"
	"  SELECT e.session AS session, e.seq AS seq, e.ts_ns AS ts_ns, e.cpu AS cpu,"
	"    e.pid AS pid, t.name AS type, e.flags AS flags, e.folio_order AS folio_order,"
	"    e.pfn AS pfn, e.dev AS dev, e.ino AS ino, e.idx AS idx, e.last AS last,"
	"    e.addr AS addr, e.a AS a, e.b AS b, e.c AS c, e.type AS type_id"
	"  FROM events AS e LEFT JOIN event_types AS t ON t.type = e.type;"
	"CREATE VIEW v_record_checks AS"
	"  SELECT session, name, status, got, want, note FROM record_checks;",
	/*
	 * 2 -> 3: the OPT gap is stored with each run.  opt_reference marks the
	 * runs it compares with (demand-paging OPT: policy opt without bypass),
	 * from the run's typed parameters when stored; older runs from their
	 * params.  opt_gap itself is filled by refresh_opt_gaps() in C, for every
	 * session, in the same transaction; v_policy_compare reads the column.
	 */
	"ALTER TABLE runs ADD COLUMN opt_reference INTEGER NOT NULL DEFAULT 0"
	"  CHECK (opt_reference IN (0, 1));"
	"ALTER TABLE runs ADD COLUMN opt_gap REAL;"
	"UPDATE runs SET opt_reference = 1 WHERE policy = 'opt'"
	"  AND coalesce(json_extract(params, '$.bypass'), 0) = 0;"
	"DROP VIEW v_policy_compare;"
	"CREATE VIEW v_policy_compare AS"
	"  SELECT session, capacity, policy,"
	"    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio, opt_gap"
	"  FROM runs;",
	/*
	 * 3 -> 4: miss-ratio curves (hsctl mrc, lib/store-mrc.c): one row per
	 * curve, one per point, and the view that joins them.
	 */
	"CREATE TABLE mrc_curves ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  policy TEXT NOT NULL,"
	"  params TEXT NOT NULL DEFAULT '{}',"
	"  method TEXT NOT NULL CHECK (method IN ('stack', 'replay')),"
	"  accesses INTEGER NOT NULL,"
	"  points INTEGER NOT NULL,"
	"  wall_s REAL NOT NULL,"
	"  created TEXT NOT NULL"
	");"
	"CREATE INDEX mrc_curves_by_session ON mrc_curves (session, policy);"
	"CREATE TABLE mrc_points ("
	"  curve INTEGER NOT NULL REFERENCES mrc_curves(id) ON DELETE CASCADE,"
	"  size INTEGER NOT NULL,"
	"  hits INTEGER NOT NULL,"
	"  misses INTEGER NOT NULL,"
	"  PRIMARY KEY (curve, size)"
	") WITHOUT ROWID;"
	"CREATE VIEW v_mrc AS"
	"  SELECT c.id AS curve, c.session AS session, c.policy AS policy,"
	"    c.params AS params, c.method AS method, p.size AS size,"
	"    c.accesses AS accesses, p.hits AS hits, p.misses AS misses,"
	"    CASE WHEN c.accesses > 0 THEN p.misses * 1.0 / c.accesses END AS miss_ratio,"
	"    c.created AS created"
	"  FROM mrc_points AS p JOIN mrc_curves AS c ON c.id = p.curve;",
	/*
	 * 4 -> 5: readahead insertions of recorded streams (issue 9): pages
	 * READAHEAD records brought in, and those never accessed before they
	 * left or the run ended.  0 for older runs and streams without any.
	 */
	"ALTER TABLE runs ADD COLUMN readahead_pages INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN readahead_unused INTEGER NOT NULL DEFAULT 0;",
	/*
	 * 5 -> 6: what the kernel did, in pages, beside the policies.
	 * folio_lives gains workload (the builder's hs_folio_life.workload:
	 * the workload's own life or another process's) and v_folio_lives
	 * shows it as scope; v_kernel sums the workload's lives
	 * of each recorded session into the kernel row (hsctl-db(5) defines
	 * every column); run_evictions keeps replay --log-evictions' chunks,
	 * which v_evictions decodes through hs_evictions().
	 */
	"ALTER TABLE folio_lives ADD COLUMN workload INTEGER NOT NULL DEFAULT 0"
	"  CHECK (workload IN (0, 1));"
	"DROP VIEW v_folio_lives;"
	"CREATE VIEW v_folio_lives AS"
	"  SELECT l.session AS session, k.name AS kind, l.dev AS dev, l.ino AS ino,"
	"    l.tgid AS tgid, l.address AS address, l.first_page AS first_page,"
	"    l.pages AS pages, l.born_ns AS born_ns, l.died_ns AS died_ns,"
	"    d.name AS death_cause, l.refault AS refault,"
	"    l.refault_distance AS refault_distance, l.refault_ns AS refault_ns,"
	"    l.flags AS flags, l.accesses AS accesses, l.activations AS activations,"
	"    l.pfn AS pfn, l.life AS life,"
	"    CASE WHEN l.workload THEN 'workload' ELSE 'other' END AS scope"
	"  FROM folio_lives AS l"
	"    LEFT JOIN life_kinds AS k ON k.kind = l.kind"
	"    LEFT JOIN death_causes AS d ON d.cause = l.death_cause;"
	"CREATE VIEW v_kernel AS"
	"  SELECT r.session AS session, 'kernel' AS policy,"
	"    r.memory_limit_pages AS capacity,"
	"    coalesce(w.lives, 0) AS lives, coalesce(w.pages, 0) AS pages,"
	"    coalesce(w.demand_miss_pages, 0) AS demand_miss_pages,"
	"    coalesce(w.readahead_pages, 0) AS readahead_pages,"
	"    coalesce(w.readahead_unused_pages, 0) AS readahead_unused_pages,"
	"    coalesce(w.refault_pages, 0) AS refault_pages,"
	"    coalesce(w.evicted_pages, 0) AS evicted_pages,"
	"    CASE WHEN ci.delta IS NOT NULL AND co.delta IS NOT NULL THEN ci.delta"
	"      ELSE coalesce(w.swapin_pages, 0) END AS pswpin_pages,"
	"    CASE WHEN ci.delta IS NOT NULL AND co.delta IS NOT NULL THEN co.delta"
	"      ELSE coalesce(w.swapout_pages, 0) END AS pswpout_pages,"
	"    CASE WHEN ci.delta IS NOT NULL AND co.delta IS NOT NULL THEN 'memory.stat'"
	"      ELSE 'lives' END AS pswp_source"
	"  FROM recordings AS r"
	"    LEFT JOIN (SELECT session, count(*) AS lives, sum(pages) AS pages,"
	"      sum(CASE WHEN flags & 3 = 0 THEN pages ELSE 0 END) AS demand_miss_pages,"
	"      sum(CASE WHEN flags & 1 THEN pages ELSE 0 END) AS readahead_pages,"
	"      sum(CASE WHEN flags & 1 AND accesses = 0 THEN pages ELSE 0 END)"
	"        AS readahead_unused_pages,"
	"      sum(CASE WHEN refault THEN pages ELSE 0 END) AS refault_pages,"
	"      sum(CASE WHEN death_cause IN (1, 2) THEN pages ELSE 0 END) AS evicted_pages,"
	"      sum(CASE WHEN flags & 8 THEN pages ELSE 0 END) AS swapin_pages,"
	"      sum(CASE WHEN flags & 16 AND death_cause IN (1, 2) THEN pages ELSE 0 END)"
	"        AS swapout_pages"
	"      FROM folio_lives WHERE workload GROUP BY session) AS w ON w.session = r.session"
	"    LEFT JOIN record_counters AS ci ON ci.session = r.session"
	"      AND ci.file = 'memory.stat' AND ci.scope = 'cgroup' AND ci.name = 'pswpin'"
	"    LEFT JOIN record_counters AS co ON co.session = r.session"
	"      AND co.file = 'memory.stat' AND co.scope = 'cgroup' AND co.name = 'pswpout';"
	"CREATE TABLE run_evictions ("
	"  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  chunk_no INTEGER NOT NULL,"
	"  first_pos INTEGER NOT NULL,"
	"  nr_evictions INTEGER NOT NULL,"
	"  encoding INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (run, chunk_no)"
	");"
	"CREATE VIEW v_evictions AS"
	"  SELECT c.run AS run, r.session AS session, r.policy AS policy,"
	"    r.capacity AS capacity, c.chunk_no * 65536 + j.key AS n,"
	"    json_extract(j.value, '$[0]') AS position, json_extract(j.value, '$[1]') AS key,"
	"    json_extract(j.value, '$[2]') AS hinted,"
	"    hs_key(r.session, json_extract(j.value, '$[1]')) AS original_key"
	"  FROM run_evictions AS c JOIN runs AS r ON r.id = c.run,"
	"    json_each(hs_evictions(c.encoding, c.first_pos, c.nr_evictions, c.data)) AS j;",
	/*
	 * 6 -> 7: hsctl fidelity: per-page agreement of a model (or "random", the
	 * baseline) with the kernel's reclaims of a recorded session.
	 */
	"CREATE TABLE fidelity ("
	"  id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  against INTEGER REFERENCES sessions(id) ON DELETE CASCADE,"
	"  policy TEXT NOT NULL,"
	"  params TEXT NOT NULL DEFAULT '{}',"
	"  capacity INTEGER NOT NULL,"
	"  window_c16 INTEGER NOT NULL,"
	"  window_c4 INTEGER NOT NULL,"
	"  window_c1 INTEGER NOT NULL,"
	"  matched_c16 INTEGER NOT NULL,"
	"  matched_c4 INTEGER NOT NULL,"
	"  matched_c1 INTEGER NOT NULL,"
	"  kernel_reclaims INTEGER NOT NULL,"
	"  evictions INTEGER NOT NULL,"
	"  kernel_pages INTEGER NOT NULL,"
	"  model_pages INTEGER NOT NULL,"
	"  both_pages INTEGER NOT NULL,"
	"  jaccard REAL,"
	"  correlation REAL,"
	"  median_lag INTEGER,"
	"  lag_pairs INTEGER NOT NULL,"
	"  kernel_refaults INTEGER NOT NULL,"
	"  model_refaults INTEGER NOT NULL,"
	"  both_refaults INTEGER NOT NULL,"
	"  gap_accesses INTEGER NOT NULL,"
	"  model_misses INTEGER,"
	"  kernel_misses INTEGER,"
	"  model_pswpin INTEGER,"
	"  kernel_pswpin INTEGER,"
	"  model_pswpout INTEGER,"
	"  kernel_pswpout INTEGER,"
	"  created TEXT NOT NULL"
	");"
	"CREATE INDEX fidelity_session ON fidelity(session);"
	"CREATE VIEW v_fidelity AS"
	"  SELECT id, session, against, policy, params, capacity, kernel_reclaims, evictions,"
	"    1.0 * matched_c16 / nullif(kernel_reclaims, 0) AS share_c16,"
	"    1.0 * matched_c4 / nullif(kernel_reclaims, 0) AS share_c4,"
	"    1.0 * matched_c1 / nullif(kernel_reclaims, 0) AS share_c1,"
	"    jaccard, correlation, median_lag,"
	"    1.0 * both_refaults / nullif(kernel_refaults, 0) AS refault_recall,"
	"    1.0 * both_refaults / nullif(model_refaults, 0) AS refault_precision,"
	"    1.0 * (model_misses - kernel_misses) / nullif(kernel_misses, 0) AS misses_error,"
	"    1.0 * (evictions - kernel_reclaims) / nullif(kernel_reclaims, 0) AS evictions_error,"
	"    1.0 * (model_refaults - kernel_refaults) / nullif(kernel_refaults, 0)"
	"      AS refaults_error,"
	"    1.0 * (model_pswpin - kernel_pswpin) / nullif(kernel_pswpin, 0) AS pswpin_error,"
	"    1.0 * (model_pswpout - kernel_pswpout) / nullif(kernel_pswpout, 0) AS pswpout_error,"
	"    gap_accesses, created"
	"  FROM fidelity;",
	/*
	 * 7 -> 8: sampled curves (hsctl mrc --sample, SHARDS): the rate a
	 * curve was computed at, 1 for an exact curve; v_mrc shows it.
	 */
	"ALTER TABLE mrc_curves ADD COLUMN sample_rate REAL NOT NULL DEFAULT 1"
	"  CHECK (sample_rate > 0 AND sample_rate <= 1);"
	"DROP VIEW v_mrc;"
	"CREATE VIEW v_mrc AS"
	"  SELECT c.id AS curve, c.session AS session, c.policy AS policy,"
	"    c.params AS params, c.method AS method, p.size AS size,"
	"    c.accesses AS accesses, p.hits AS hits, p.misses AS misses,"
	"    CASE WHEN c.accesses > 0 THEN p.misses * 1.0 / c.accesses END AS miss_ratio,"
	"    c.created AS created, c.sample_rate AS sample_rate"
	"  FROM mrc_points AS p JOIN mrc_curves AS c ON c.id = p.curve;",
	/*
	 * 8 -> 9: the run views name what tells their rows apart, and each
	 * event type gets a view with the kernel's field names (below).  Two runs of
	 * one policy with other parameters (or of one session at two sizes)
	 * were indistinguishable rows: v_policy_compare gains params and run,
	 * v_refaults session and params, v_pingpong params; v_runs gains the
	 * counters users asked for (cold_misses, opt_gap, peak_resident).  New
	 * columns go at the end, so the existing ones keep their positions.
	 */
	"DROP VIEW v_runs;"
	"CREATE VIEW v_runs AS"
	"  SELECT id AS run, session, policy, params, capacity, accesses, hits, misses,"
	"    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio,"
	"    evictions, refaults, pingpong_keys, protected, protected_useful,"
	"    protected_wasted, wall_s, pswpin, pswpout, cold_misses, opt_gap, peak_resident"
	"  FROM runs;"
	"DROP VIEW v_policy_compare;"
	"CREATE VIEW v_policy_compare AS"
	"  SELECT session, capacity, policy,"
	"    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio, opt_gap,"
	"    params, id AS run"
	"  FROM runs;"
	"DROP VIEW v_refaults;"
	"CREATE VIEW v_refaults AS"
	"  SELECT h.run AS run, r.policy AS policy, r.capacity AS capacity, h.lo AS lo,"
	"    h.hi AS hi, h.count AS count, r.session AS session, r.params AS params"
	"  FROM run_refault_hist AS h JOIN runs AS r ON r.id = h.run;"
	"DROP VIEW v_pingpong;"
	"CREATE VIEW v_pingpong AS"
	"  SELECT id AS run, session, policy, capacity, pingpong_keys, pingpong_refaults, misses,"
	"    CASE WHEN misses > 0 THEN pingpong_refaults * 1.0 / misses END AS miss_share,"
	"    params"
	"  FROM runs;"
	/*
	 * ... and one view per event type (v_ev_NAME, NAME as in event_types),
	 * its columns named as the kernel's format file names the fields (pfn,
	 * i_ino, index, s_dev, nr_reclaimed, ...; common_pid), so that what
	 * trace-cmd report shows can be found without the generic a, b, c of
	 * v_events.
	 */
	"CREATE VIEW v_ev_filemap_add AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, ino AS i_ino, idx AS"
	"    \"index\", dev AS s_dev, folio_order AS \"order\""
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_add');"
	"CREATE VIEW v_ev_filemap_delete AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, ino AS i_ino, idx AS"
	"    \"index\", dev AS s_dev, folio_order AS \"order\""
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_delete');"
	"CREATE VIEW v_ev_filemap_get_pages AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS"
	"    s_dev, idx AS \"index\", last AS last_index"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_get_pages');"
	"CREATE VIEW v_ev_filemap_fault AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS"
	"    s_dev, idx AS \"index\""
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_fault');"
	"CREATE VIEW v_ev_filemap_map_pages AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS"
	"    s_dev, idx AS \"index\", last AS last_index"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_map_pages');"
	"CREATE VIEW v_ev_readahead AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS"
	"    s_dev, idx AS \"index\", folio_order AS \"order\", a AS req_count, (flags & 2)"
	"    != 0 AS async"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'readahead');"
	"CREATE VIEW v_ev_lru_insertion AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, a AS lru, b AS flags"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lru_insertion');"
	"CREATE VIEW v_ev_lru_activate AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lru_activate');"
	"CREATE VIEW v_ev_direct_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS"
	"    gfp_flags"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'direct_reclaim_begin');"
	"CREATE VIEW v_ev_direct_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'direct_reclaim_end');"
	"CREATE VIEW v_ev_memcg_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS"
	"    gfp_flags"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'memcg_reclaim_begin');"
	"CREATE VIEW v_ev_memcg_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'memcg_reclaim_end');"
	"CREATE VIEW v_ev_softlimit_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS"
	"    gfp_flags"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'softlimit_reclaim_begin');"
	"CREATE VIEW v_ev_softlimit_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'softlimit_reclaim_end');"
	"CREATE VIEW v_ev_node_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS"
	"    gfp_flags"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'node_reclaim_begin');"
	"CREATE VIEW v_ev_node_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'node_reclaim_end');"
	"CREATE VIEW v_ev_kswapd_wake AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nid, b AS \"order\""
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'kswapd_wake');"
	"CREATE VIEW v_ev_kswapd_sleep AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nid"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'kswapd_sleep');"
	"CREATE VIEW v_ev_lru_isolate AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_taken, b AS"
	"    nr_scanned, c AS lru"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lru_isolate');"
	"CREATE VIEW v_ev_shrink_inactive AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed, b AS"
	"    nr_scanned, c AS file"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_inactive');"
	"CREATE VIEW v_ev_shrink_active AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_deactivated, b AS"
	"    nr_taken, c AS file"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_active');"
	"CREATE VIEW v_ev_reclaim_pages AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed, b AS"
	"    nr_scanned"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'reclaim_pages');"
	"CREATE VIEW v_ev_write_folio AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, (flags & 1) != 0 AS"
	"    anon"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'write_folio');"
	"CREATE VIEW v_ev_shrink_slab_start AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_slab_start');"
	"CREATE VIEW v_ev_shrink_slab_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_slab_end');"
	"CREATE VIEW v_ev_page_fault_user AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS address, a AS"
	"    error_code"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'page_fault_user');"
	"CREATE VIEW v_ev_madvise AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS start, a AS"
	"    len_in, b AS behavior"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'madvise');"
	"CREATE VIEW v_ev_process_fork AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid AS parent_pid, a AS"
	"    child_pid"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'process_fork');"
	"CREATE VIEW v_ev_process_exit AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'process_exit');"
	"CREATE VIEW v_ev_process_exec AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'process_exec');"
	"CREATE VIEW v_ev_task_new AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS pid, b AS clone_flags"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'task_new');"
	"CREATE VIEW v_ev_lost AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS lost"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lost');"
	"CREATE VIEW v_ev_touch AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid AS tgid, addr AS"
	"    address, dev AS s_dev, ino AS i_ino, idx AS \"index\", (flags & 4) != 0 AS"
	"    write, (flags & 1) != 0 AS anon, (flags & 8) != 0 AS fd"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'touch');",
	/*
	 * 9 -> 10: task names, as trace-cmd report shows them (issue 11).
	 * tasks holds what the recorder learned of pid -> comm (saved_cmdlines,
	 * /proc), each name with the span of the trace it holds for; a pid whose
	 * name is not known at an event's time has none there.  v_events and
	 * every v_ev_* view gain comm, at the end (the columns before keep their
	 * positions): NULL where unknown.
	 */
	"CREATE TABLE tasks ("
	"  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  pid INTEGER NOT NULL,"
	"  comm TEXT NOT NULL,"
	"  from_ns INTEGER,"
	"  to_ns INTEGER"
	");"
	"CREATE INDEX tasks_by_pid ON tasks (session, pid);"
	"DROP VIEW v_events;"
	"CREATE VIEW v_events AS"
	"  SELECT e.session AS session, e.seq AS seq, e.ts_ns AS ts_ns, e.cpu AS cpu,"
	"    e.pid AS pid, t.name AS type, e.flags AS flags, e.folio_order AS folio_order,"
	"    e.pfn AS pfn, e.dev AS dev, e.ino AS ino, e.idx AS idx, e.last AS last,"
	"    e.addr AS addr, e.a AS a, e.b AS b, e.c AS c, e.type AS type_id,"
	"    " TASK_COMM("e") " AS comm"
	"  FROM events AS e LEFT JOIN event_types AS t ON t.type = e.type;"
	"DROP VIEW v_ev_filemap_add;"
	"CREATE VIEW v_ev_filemap_add AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, ino AS i_ino, idx AS"
	"    \"index\", dev AS s_dev, folio_order AS \"order\","
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_add');"
	"DROP VIEW v_ev_filemap_delete;"
	"CREATE VIEW v_ev_filemap_delete AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, ino AS i_ino, idx AS"
	"    \"index\", dev AS s_dev, folio_order AS \"order\","
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_delete');"
	"DROP VIEW v_ev_filemap_get_pages;"
	"CREATE VIEW v_ev_filemap_get_pages AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS"
	"    \"index\", last AS last_index,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_get_pages');"
	"DROP VIEW v_ev_filemap_fault;"
	"CREATE VIEW v_ev_filemap_fault AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS"
	"    \"index\","
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_fault');"
	"DROP VIEW v_ev_filemap_map_pages;"
	"CREATE VIEW v_ev_filemap_map_pages AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS"
	"    \"index\", last AS last_index,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'filemap_map_pages');"
	"DROP VIEW v_ev_readahead;"
	"CREATE VIEW v_ev_readahead AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, ino AS i_ino, dev AS s_dev, idx AS"
	"    \"index\", folio_order AS \"order\", a AS req_count, (flags & 2) != 0 AS async,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'readahead');"
	"DROP VIEW v_ev_lru_insertion;"
	"CREATE VIEW v_ev_lru_insertion AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, a AS lru, b AS flags,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lru_insertion');"
	"DROP VIEW v_ev_lru_activate;"
	"CREATE VIEW v_ev_lru_activate AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lru_activate');"
	"DROP VIEW v_ev_direct_reclaim_begin;"
	"CREATE VIEW v_ev_direct_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS gfp_flags,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'direct_reclaim_begin');"
	"DROP VIEW v_ev_direct_reclaim_end;"
	"CREATE VIEW v_ev_direct_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'direct_reclaim_end');"
	"DROP VIEW v_ev_memcg_reclaim_begin;"
	"CREATE VIEW v_ev_memcg_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS gfp_flags,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'memcg_reclaim_begin');"
	"DROP VIEW v_ev_memcg_reclaim_end;"
	"CREATE VIEW v_ev_memcg_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'memcg_reclaim_end');"
	"DROP VIEW v_ev_softlimit_reclaim_begin;"
	"CREATE VIEW v_ev_softlimit_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS gfp_flags,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'softlimit_reclaim_begin');"
	"DROP VIEW v_ev_softlimit_reclaim_end;"
	"CREATE VIEW v_ev_softlimit_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'softlimit_reclaim_end');"
	"DROP VIEW v_ev_node_reclaim_begin;"
	"CREATE VIEW v_ev_node_reclaim_begin AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS \"order\", b AS gfp_flags,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'node_reclaim_begin');"
	"DROP VIEW v_ev_node_reclaim_end;"
	"CREATE VIEW v_ev_node_reclaim_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'node_reclaim_end');"
	"DROP VIEW v_ev_kswapd_wake;"
	"CREATE VIEW v_ev_kswapd_wake AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nid, b AS \"order\","
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'kswapd_wake');"
	"DROP VIEW v_ev_kswapd_sleep;"
	"CREATE VIEW v_ev_kswapd_sleep AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'kswapd_sleep');"
	"DROP VIEW v_ev_lru_isolate;"
	"CREATE VIEW v_ev_lru_isolate AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_taken, b AS nr_scanned, c"
	"    AS lru,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lru_isolate');"
	"DROP VIEW v_ev_shrink_inactive;"
	"CREATE VIEW v_ev_shrink_inactive AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed, b AS nr_scanned,"
	"    c AS file,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_inactive');"
	"DROP VIEW v_ev_shrink_active;"
	"CREATE VIEW v_ev_shrink_active AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_deactivated, b AS nr_taken,"
	"    c AS file,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_active');"
	"DROP VIEW v_ev_reclaim_pages;"
	"CREATE VIEW v_ev_reclaim_pages AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS nr_reclaimed, b AS nr_scanned,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'reclaim_pages');"
	"DROP VIEW v_ev_write_folio;"
	"CREATE VIEW v_ev_write_folio AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pfn, (flags & 1) != 0 AS anon,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'write_folio');"
	"DROP VIEW v_ev_shrink_slab_start;"
	"CREATE VIEW v_ev_shrink_slab_start AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_slab_start');"
	"DROP VIEW v_ev_shrink_slab_end;"
	"CREATE VIEW v_ev_shrink_slab_end AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'shrink_slab_end');"
	"DROP VIEW v_ev_page_fault_user;"
	"CREATE VIEW v_ev_page_fault_user AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS address, a AS error_code,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'page_fault_user');"
	"DROP VIEW v_ev_madvise;"
	"CREATE VIEW v_ev_madvise AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS start, a AS len_in, b AS"
	"    behavior,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'madvise');"
	"DROP VIEW v_ev_process_fork;"
	"CREATE VIEW v_ev_process_fork AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid AS parent_pid, a AS child_pid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'process_fork');"
	"DROP VIEW v_ev_process_exit;"
	"CREATE VIEW v_ev_process_exit AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'process_exit');"
	"DROP VIEW v_ev_process_exec;"
	"CREATE VIEW v_ev_process_exec AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'process_exec');"
	"DROP VIEW v_ev_task_new;"
	"CREATE VIEW v_ev_task_new AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS pid, b AS clone_flags,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'task_new');"
	"DROP VIEW v_ev_lost;"
	"CREATE VIEW v_ev_lost AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS lost,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'lost');"
	"DROP VIEW v_ev_touch;"
	"CREATE VIEW v_ev_touch AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid AS tgid, addr AS address, dev"
	"    AS s_dev, ino AS i_ino, idx AS \"index\", (flags & 4) != 0 AS write, (flags & 1) != 0"
	"    AS anon, (flags & 8) != 0 AS fd,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'touch');",
	/*
	 * 10 -> 11: the workload's TLB events (lib/recorder.c, the replay's TLB
	 * model): a view for each new event type, as for the others.  The
	 * events table is unchanged; event_types gains the names from the enum.
	 */
	"CREATE VIEW v_ev_tlb_flush AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS pages, b AS reason,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'tlb_flush');"
	"CREATE VIEW v_ev_sched_switch AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS prev_pid, b AS next_pid,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'sched_switch');"
	"CREATE VIEW v_ev_migrate_task AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS pid, b AS orig_cpu,"
	"    c AS dest_cpu,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'migrate_task');",
	/*
	 * 11 -> 12: the memory cgroup's statistics flushes (lib/recorder.c; read
	 * by linux-2q's flushed statistics), with the kernel's field names.
	 */
	"CREATE VIEW v_ev_memcg_flush AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS memcg_id,"
	"    b AS stats_updates, c & 1 AS force, (c >> 1) & 1 AS needs_flush,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'memcg_flush');",
	/*
	 * 12 -> 13: DAMON's regions at each aggregation (damon:damon_aggregated)
	 * and those its schemes act on (damon:damos_before_apply), while a
	 * kdamond runs (DAMON_LRU_SORT in the kernel lab), with the kernel's
	 * field names; "end" is quoted, as SQL keeps the word.
	 */
	"CREATE VIEW v_ev_damon_aggregated AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, addr AS target_id,"
	"    c AS nr_regions, idx AS start, last AS \"end\", a AS nr_accesses, b AS age,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'damon_aggregated');"
	"CREATE VIEW v_ev_damos_apply AS"
	"  SELECT session, seq, ts_ns, cpu, pid AS common_pid, c AS scheme_idx,"
	"    addr AS nr_regions, idx AS start, last AS \"end\", a AS nr_accesses, b AS age,"
	"    " TASK_COMM("events") " AS comm"
	"  FROM events WHERE type ="
	"    (SELECT type FROM event_types WHERE name = 'damos_apply');",
};

static int refresh_opt_gaps(struct hs_store *st, int64_t session);

_Static_assert(HS_EVLOG_CHUNK == 65536, "v_evictions numbers evictions by 65536 a chunk");

_Static_assert(ARRAY_SIZE(migrations) == HS_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

/*
 * A new file's schema in one script: what migrations 0 -> 13 leave in
 * sqlite_master, statement for statement in the same order and with the same
 * text (the columns that ALTER TABLE added where it put them), so that a
 * new file and a migrated one are the same schema.  Running the 13
 * migrations on an empty file cost 23 ms of CPU on this project's VM (SQLite
 * parses 42 views that later ones drop, and reloads the whole schema after
 * each ALTER TABLE): 2.3 ns a record of a 10 M-record import into a new
 * database, 8 % of one at 81 K keys.  This script takes 8 ms.  Only an empty
 * file takes it (migrate()); one at an older version still migrates.  A new
 * migration must regenerate it from a migrated file (sqlite_master's sql in
 * rowid order, sqlite_sequence and the automatic indexes aside): t-store's
 * fresh_schema compares the two, and FRESH_SCHEMA_VERSION fails the build
 * until then.
 */
#define FRESH_SCHEMA_VERSION	13
static const char *const fresh_schema[] = {
	"CREATE TABLE sessions (  id INTEGER PRIMARY KEY AUTOINCREMENT,  source TEXT NOT "
	"NULL,  name TEXT NOT NULL,  origin TEXT,  format TEXT,  unit TEXT NOT NULL,  kind "
	"TEXT NOT NULL CHECK (kind IN ('file', 'anon')),  channel TEXT NOT NULL CHECK "
	"(channel IN ('pt', 'fd')),  visibility TEXT NOT NULL DEFAULT 'exact'    CHECK "
	"(visibility IN ('exact', 'sampled', 'faults')),  params TEXT NOT NULL DEFAULT '{}', "
	" status TEXT NOT NULL,  started TEXT NOT NULL,  ended TEXT,  records INTEGER NOT "
	"NULL DEFAULT 0,  accesses INTEGER NOT NULL DEFAULT 0,  distinct_keys INTEGER NOT "
	"NULL DEFAULT 0,  host TEXT,  hsctl_version TEXT NOT NULL)",
	"CREATE TABLE access_chunks (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  chunk_no INTEGER NOT NULL,  first_seq INTEGER NOT NULL,  "
	"nr_records INTEGER NOT NULL,  nr_accesses INTEGER NOT NULL,  encoding INTEGER NOT "
	"NULL,  data BLOB NOT NULL,  PRIMARY KEY (session, chunk_no))",
	"CREATE TABLE session_keys (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  chunk_no INTEGER NOT NULL,  first_key INTEGER NOT NULL,  nr_keys "
	"INTEGER NOT NULL,  encoding INTEGER NOT NULL,  data BLOB NOT NULL,  PRIMARY KEY "
	"(session, chunk_no))",
	"CREATE TABLE runs (  id INTEGER PRIMARY KEY AUTOINCREMENT,  session INTEGER NOT "
	"NULL REFERENCES sessions(id) ON DELETE CASCADE,  policy TEXT NOT NULL,  params TEXT "
	"NOT NULL DEFAULT '{}',  capacity INTEGER NOT NULL,  records INTEGER NOT NULL,  "
	"accesses INTEGER NOT NULL,  hits INTEGER NOT NULL,  misses INTEGER NOT NULL,  "
	"cold_misses INTEGER NOT NULL,  evictions INTEGER NOT NULL,  refaults INTEGER NOT "
	"NULL,  hint_evictions INTEGER NOT NULL,  hint_refaults INTEGER NOT NULL,  hints "
	"INTEGER NOT NULL,  drops INTEGER NOT NULL,  pswpin INTEGER NOT NULL,  pswpout "
	"INTEGER NOT NULL,  pingpong_keys INTEGER NOT NULL,  pingpong_refaults INTEGER NOT "
	"NULL,  distinct_keys INTEGER NOT NULL,  protected INTEGER NOT NULL,  "
	"protected_useful INTEGER NOT NULL,  protected_wasted INTEGER NOT NULL,  "
	"prot_occupancy REAL NOT NULL,  peak_resident INTEGER NOT NULL,  wall_s REAL NOT "
	"NULL,  created TEXT NOT NULL, opt_reference INTEGER NOT NULL DEFAULT 0  CHECK "
	"(opt_reference IN (0, 1)), opt_gap REAL, readahead_pages INTEGER NOT NULL DEFAULT "
	"0, readahead_unused INTEGER NOT NULL DEFAULT 0)",
	"CREATE INDEX runs_by_session ON runs (session, capacity, policy)",
	"CREATE TABLE run_protection (  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE,  kind TEXT NOT NULL,  total INTEGER NOT NULL,  useful INTEGER NOT NULL,  "
	"wasted INTEGER NOT NULL,  PRIMARY KEY (run, kind))",
	"CREATE TABLE run_refault_hist (  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE,  bucket INTEGER NOT NULL,  lo INTEGER NOT NULL,  hi INTEGER NOT NULL,  "
	"count INTEGER NOT NULL,  PRIMARY KEY (run, bucket))",
	"CREATE TABLE run_metrics (  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE,  name TEXT NOT NULL,  value REAL,  PRIMARY KEY (run, name))",
	"CREATE TABLE run_generations (  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE,  aging INTEGER NOT NULL,  seq INTEGER NOT NULL,  max_seq INTEGER NOT NULL, "
	" min_seq_anon INTEGER NOT NULL,  min_seq_file INTEGER NOT NULL,  gen INTEGER NOT "
	"NULL,  anon_pages INTEGER NOT NULL,  file_pages INTEGER NOT NULL,  PRIMARY KEY "
	"(run, aging, gen))",
	"CREATE TABLE recordings (  session INTEGER PRIMARY KEY REFERENCES sessions(id) ON "
	"DELETE CASCADE,  pid INTEGER NOT NULL,  host TEXT,  workload TEXT,  kernel TEXT,  "
	"lru_gen TEXT,  clock TEXT,  instance TEXT,  cgroup TEXT,  cgroup_version INTEGER "
	"NOT NULL DEFAULT 0,  memory_limit_pages INTEGER,  buffer_kb INTEGER,  page_size "
	"INTEGER,  events TEXT NOT NULL DEFAULT '[]',  workload_exit INTEGER,  "
	"workload_signal INTEGER,  runtime_ns INTEGER,  lost_events INTEGER,  lost_gaps "
	"INTEGER,  subbufs INTEGER,  bytes INTEGER,  events_decoded INTEGER,  touches "
	"INTEGER,  peak_pages INTEGER,  record_cpu_s REAL,  build_s REAL)",
	"CREATE TABLE record_formats (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  path TEXT NOT NULL,  content BLOB NOT NULL,  PRIMARY KEY (session, "
	"path))",
	"CREATE TABLE record_spool (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  cpu INTEGER NOT NULL,  seq INTEGER NOT NULL,  data BLOB NOT NULL,  "
	"PRIMARY KEY (session, cpu, seq))",
	"CREATE TABLE event_types (  type INTEGER PRIMARY KEY,  name TEXT NOT NULL)",
	"CREATE TABLE life_kinds (  kind INTEGER PRIMARY KEY,  name TEXT NOT NULL)",
	"CREATE TABLE death_causes (  cause INTEGER PRIMARY KEY,  name TEXT NOT NULL)",
	"CREATE TABLE events (  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE "
	"CASCADE,  seq INTEGER NOT NULL,  ts_ns INTEGER NOT NULL,  cpu INTEGER NOT NULL,  "
	"pid INTEGER NOT NULL,  type INTEGER NOT NULL,  flags INTEGER NOT NULL,  folio_order "
	"INTEGER NOT NULL,  pfn INTEGER NOT NULL,  dev INTEGER NOT NULL,  ino INTEGER NOT "
	"NULL,  idx INTEGER NOT NULL,  last INTEGER NOT NULL,  addr INTEGER NOT NULL,  a "
	"INTEGER NOT NULL,  b INTEGER NOT NULL,  c INTEGER NOT NULL,  PRIMARY KEY (session, "
	"seq)) WITHOUT ROWID",
	"CREATE TABLE folio_lives (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  life INTEGER NOT NULL,  kind INTEGER NOT NULL,  dev INTEGER,  ino "
	"INTEGER,  tgid INTEGER,  address INTEGER,  first_page INTEGER NOT NULL,  pages "
	"INTEGER NOT NULL,  pfn INTEGER,  born_ns INTEGER,  died_ns INTEGER,  death_cause "
	"INTEGER NOT NULL,  refault INTEGER NOT NULL CHECK (refault IN (0, 1)),  "
	"refault_distance INTEGER,  refault_ns INTEGER,  flags INTEGER NOT NULL,  accesses "
	"INTEGER NOT NULL,  activations INTEGER NOT NULL, workload INTEGER NOT NULL DEFAULT "
	"0  CHECK (workload IN (0, 1)),  PRIMARY KEY (session, life)) WITHOUT ROWID",
	"CREATE TABLE record_keys (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  key INTEGER NOT NULL,  kind INTEGER NOT NULL,  dev INTEGER,  ino "
	"INTEGER,  tgid INTEGER,  page INTEGER NOT NULL,  PRIMARY KEY (session, key)) "
	"WITHOUT ROWID",
	"CREATE TABLE record_counters (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  file TEXT NOT NULL,  scope TEXT NOT NULL,  name TEXT NOT NULL,  "
	"before INTEGER NOT NULL,  after INTEGER NOT NULL,  delta INTEGER NOT NULL,  PRIMARY "
	"KEY (session, file, scope, name))",
	"CREATE TABLE record_checks (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  name TEXT NOT NULL,  status TEXT NOT NULL CHECK (status IN ('ok', "
	"'differs', 'n/a')),  got REAL,  want REAL,  note TEXT,  PRIMARY KEY (session, name))",
	"CREATE TABLE record_cpus (  session INTEGER NOT NULL REFERENCES sessions(id) ON "
	"DELETE CASCADE,  cpu INTEGER NOT NULL,  subbufs INTEGER NOT NULL,  bytes INTEGER "
	"NOT NULL,  events INTEGER NOT NULL,  overrun INTEGER NOT NULL,  commit_overrun "
	"INTEGER NOT NULL,  dropped INTEGER NOT NULL,  lost INTEGER NOT NULL,  PRIMARY KEY "
	"(session, cpu))",
	"CREATE TABLE lru_gen_snapshots (  session INTEGER NOT NULL REFERENCES sessions(id) "
	"ON DELETE CASCADE,  ts_ns INTEGER NOT NULL,  memcg_id INTEGER NOT NULL,  memcg_path "
	"TEXT NOT NULL,  node INTEGER NOT NULL,  gen INTEGER NOT NULL,  seq INTEGER NOT "
	"NULL,  age_ms INTEGER NOT NULL,  anon_pages INTEGER NOT NULL,  file_pages INTEGER "
	"NOT NULL,  PRIMARY KEY (session, ts_ns, memcg_id, node, seq))",
	"CREATE VIEW v_sessions AS  SELECT s.id AS session, s.source AS source, s.name AS "
	"name, s.status AS status,    s.started AS started, s.ended AS ended, s.accesses AS "
	"accesses,    s.distinct_keys AS distinct_keys, r.memory_limit_pages AS "
	"memory_limit_pages,    r.lost_events AS lost_events, r.kernel AS kernel, r.lru_gen "
	"AS lru_gen,    (SELECT c.delta FROM record_counters AS c WHERE c.session = s.id     "
	" AND c.file = 'vmstat' AND c.scope = 'machine' AND c.name = 'pswpin') AS pswpin,    "
	"(SELECT c.delta FROM record_counters AS c WHERE c.session = s.id      AND c.file = "
	"'vmstat' AND c.scope = 'machine' AND c.name = 'pswpout') AS pswpout,    "
	"r.workload_exit AS workload_exit  FROM sessions AS s LEFT JOIN recordings AS r ON "
	"r.session = s.id",
	"CREATE VIEW v_record_checks AS  SELECT session, name, status, got, want, note FROM "
	"record_checks",
	"CREATE TABLE mrc_curves (  id INTEGER PRIMARY KEY AUTOINCREMENT,  session INTEGER "
	"NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,  policy TEXT NOT NULL,  params "
	"TEXT NOT NULL DEFAULT '{}',  method TEXT NOT NULL CHECK (method IN ('stack', "
	"'replay')),  accesses INTEGER NOT NULL,  points INTEGER NOT NULL,  wall_s REAL NOT "
	"NULL,  created TEXT NOT NULL, sample_rate REAL NOT NULL DEFAULT 1  CHECK "
	"(sample_rate > 0 AND sample_rate <= 1))",
	"CREATE INDEX mrc_curves_by_session ON mrc_curves (session, policy)",
	"CREATE TABLE mrc_points (  curve INTEGER NOT NULL REFERENCES mrc_curves(id) ON "
	"DELETE CASCADE,  size INTEGER NOT NULL,  hits INTEGER NOT NULL,  misses INTEGER NOT "
	"NULL,  PRIMARY KEY (curve, size)) WITHOUT ROWID",
	"CREATE VIEW v_folio_lives AS  SELECT l.session AS session, k.name AS kind, l.dev AS "
	"dev, l.ino AS ino,    l.tgid AS tgid, l.address AS address, l.first_page AS "
	"first_page,    l.pages AS pages, l.born_ns AS born_ns, l.died_ns AS died_ns,    "
	"d.name AS death_cause, l.refault AS refault,    l.refault_distance AS "
	"refault_distance, l.refault_ns AS refault_ns,    l.flags AS flags, l.accesses AS "
	"accesses, l.activations AS activations,    l.pfn AS pfn, l.life AS life,    CASE "
	"WHEN l.workload THEN 'workload' ELSE 'other' END AS scope  FROM folio_lives AS l    "
	"LEFT JOIN life_kinds AS k ON k.kind = l.kind    LEFT JOIN death_causes AS d ON "
	"d.cause = l.death_cause",
	"CREATE VIEW v_kernel AS  SELECT r.session AS session, 'kernel' AS policy,    "
	"r.memory_limit_pages AS capacity,    coalesce(w.lives, 0) AS lives, "
	"coalesce(w.pages, 0) AS pages,    coalesce(w.demand_miss_pages, 0) AS "
	"demand_miss_pages,    coalesce(w.readahead_pages, 0) AS readahead_pages,    "
	"coalesce(w.readahead_unused_pages, 0) AS readahead_unused_pages,    "
	"coalesce(w.refault_pages, 0) AS refault_pages,    coalesce(w.evicted_pages, 0) AS "
	"evicted_pages,    CASE WHEN ci.delta IS NOT NULL AND co.delta IS NOT NULL THEN "
	"ci.delta      ELSE coalesce(w.swapin_pages, 0) END AS pswpin_pages,    CASE WHEN "
	"ci.delta IS NOT NULL AND co.delta IS NOT NULL THEN co.delta      ELSE "
	"coalesce(w.swapout_pages, 0) END AS pswpout_pages,    CASE WHEN ci.delta IS NOT "
	"NULL AND co.delta IS NOT NULL THEN 'memory.stat'      ELSE 'lives' END AS "
	"pswp_source  FROM recordings AS r    LEFT JOIN (SELECT session, count(*) AS lives, "
	"sum(pages) AS pages,      sum(CASE WHEN flags & 3 = 0 THEN pages ELSE 0 END) AS "
	"demand_miss_pages,      sum(CASE WHEN flags & 1 THEN pages ELSE 0 END) AS "
	"readahead_pages,      sum(CASE WHEN flags & 1 AND accesses = 0 THEN pages ELSE 0 "
	"END)        AS readahead_unused_pages,      sum(CASE WHEN refault THEN pages ELSE 0 "
	"END) AS refault_pages,      sum(CASE WHEN death_cause IN (1, 2) THEN pages ELSE 0 "
	"END) AS evicted_pages,      sum(CASE WHEN flags & 8 THEN pages ELSE 0 END) AS "
	"swapin_pages,      sum(CASE WHEN flags & 16 AND death_cause IN (1, 2) THEN pages "
	"ELSE 0 END)        AS swapout_pages      FROM folio_lives WHERE workload GROUP BY "
	"session) AS w ON w.session = r.session    LEFT JOIN record_counters AS ci ON "
	"ci.session = r.session      AND ci.file = 'memory.stat' AND ci.scope = 'cgroup' AND "
	"ci.name = 'pswpin'    LEFT JOIN record_counters AS co ON co.session = r.session     "
	" AND co.file = 'memory.stat' AND co.scope = 'cgroup' AND co.name = 'pswpout'",
	"CREATE TABLE run_evictions (  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE,  chunk_no INTEGER NOT NULL,  first_pos INTEGER NOT NULL,  nr_evictions "
	"INTEGER NOT NULL,  encoding INTEGER NOT NULL,  data BLOB NOT NULL,  PRIMARY KEY "
	"(run, chunk_no))",
	"CREATE VIEW v_evictions AS  SELECT c.run AS run, r.session AS session, r.policy AS "
	"policy,    r.capacity AS capacity, c.chunk_no * 65536 + j.key AS n,    "
	"json_extract(j.value, '$[0]') AS position, json_extract(j.value, '$[1]') AS key,    "
	"json_extract(j.value, '$[2]') AS hinted,    hs_key(r.session, json_extract(j.value, "
	"'$[1]')) AS original_key  FROM run_evictions AS c JOIN runs AS r ON r.id = c.run,   "
	" json_each(hs_evictions(c.encoding, c.first_pos, c.nr_evictions, c.data)) AS j",
	"CREATE TABLE fidelity (  id INTEGER PRIMARY KEY,  session INTEGER NOT NULL "
	"REFERENCES sessions(id) ON DELETE CASCADE,  against INTEGER REFERENCES sessions(id) "
	"ON DELETE CASCADE,  policy TEXT NOT NULL,  params TEXT NOT NULL DEFAULT '{}',  "
	"capacity INTEGER NOT NULL,  window_c16 INTEGER NOT NULL,  window_c4 INTEGER NOT "
	"NULL,  window_c1 INTEGER NOT NULL,  matched_c16 INTEGER NOT NULL,  matched_c4 "
	"INTEGER NOT NULL,  matched_c1 INTEGER NOT NULL,  kernel_reclaims INTEGER NOT NULL,  "
	"evictions INTEGER NOT NULL,  kernel_pages INTEGER NOT NULL,  model_pages INTEGER "
	"NOT NULL,  both_pages INTEGER NOT NULL,  jaccard REAL,  correlation REAL,  "
	"median_lag INTEGER,  lag_pairs INTEGER NOT NULL,  kernel_refaults INTEGER NOT NULL, "
	" model_refaults INTEGER NOT NULL,  both_refaults INTEGER NOT NULL,  gap_accesses "
	"INTEGER NOT NULL,  model_misses INTEGER,  kernel_misses INTEGER,  model_pswpin "
	"INTEGER,  kernel_pswpin INTEGER,  model_pswpout INTEGER,  kernel_pswpout INTEGER,  "
	"created TEXT NOT NULL)",
	"CREATE INDEX fidelity_session ON fidelity(session)",
	"CREATE VIEW v_fidelity AS  SELECT id, session, against, policy, params, capacity, "
	"kernel_reclaims, evictions,    1.0 * matched_c16 / nullif(kernel_reclaims, 0) AS "
	"share_c16,    1.0 * matched_c4 / nullif(kernel_reclaims, 0) AS share_c4,    1.0 * "
	"matched_c1 / nullif(kernel_reclaims, 0) AS share_c1,    jaccard, correlation, "
	"median_lag,    1.0 * both_refaults / nullif(kernel_refaults, 0) AS refault_recall,  "
	"  1.0 * both_refaults / nullif(model_refaults, 0) AS refault_precision,    1.0 * "
	"(model_misses - kernel_misses) / nullif(kernel_misses, 0) AS misses_error,    1.0 * "
	"(evictions - kernel_reclaims) / nullif(kernel_reclaims, 0) AS evictions_error,    "
	"1.0 * (model_refaults - kernel_refaults) / nullif(kernel_refaults, 0)      AS "
	"refaults_error,    1.0 * (model_pswpin - kernel_pswpin) / nullif(kernel_pswpin, 0) "
	"AS pswpin_error,    1.0 * (model_pswpout - kernel_pswpout) / nullif(kernel_pswpout, "
	"0) AS pswpout_error,    gap_accesses, created  FROM fidelity",
	"CREATE VIEW v_mrc AS  SELECT c.id AS curve, c.session AS session, c.policy AS "
	"policy,    c.params AS params, c.method AS method, p.size AS size,    c.accesses AS "
	"accesses, p.hits AS hits, p.misses AS misses,    CASE WHEN c.accesses > 0 THEN "
	"p.misses * 1.0 / c.accesses END AS miss_ratio,    c.created AS created, "
	"c.sample_rate AS sample_rate  FROM mrc_points AS p JOIN mrc_curves AS c ON c.id = "
	"p.curve",
	"CREATE VIEW v_runs AS  SELECT id AS run, session, policy, params, capacity, "
	"accesses, hits, misses,    CASE WHEN accesses > 0 THEN hits * 1.0 / accesses END AS "
	"hit_ratio,    evictions, refaults, pingpong_keys, protected, protected_useful,    "
	"protected_wasted, wall_s, pswpin, pswpout, cold_misses, opt_gap, peak_resident  "
	"FROM runs",
	"CREATE VIEW v_policy_compare AS  SELECT session, capacity, policy,    CASE WHEN "
	"accesses > 0 THEN hits * 1.0 / accesses END AS hit_ratio, opt_gap,    params, id AS "
	"run  FROM runs",
	"CREATE VIEW v_refaults AS  SELECT h.run AS run, r.policy AS policy, r.capacity AS "
	"capacity, h.lo AS lo,    h.hi AS hi, h.count AS count, r.session AS session, "
	"r.params AS params  FROM run_refault_hist AS h JOIN runs AS r ON r.id = h.run",
	"CREATE VIEW v_pingpong AS  SELECT id AS run, session, policy, capacity, "
	"pingpong_keys, pingpong_refaults, misses,    CASE WHEN misses > 0 THEN "
	"pingpong_refaults * 1.0 / misses END AS miss_share,    params  FROM runs",
	"CREATE TABLE tasks (  session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE "
	"CASCADE,  pid INTEGER NOT NULL,  comm TEXT NOT NULL,  from_ns INTEGER,  to_ns "
	"INTEGER)",
	"CREATE INDEX tasks_by_pid ON tasks (session, pid)",
	"CREATE VIEW v_events AS  SELECT e.session AS session, e.seq AS seq, e.ts_ns AS "
	"ts_ns, e.cpu AS cpu,    e.pid AS pid, t.name AS type, e.flags AS flags, "
	"e.folio_order AS folio_order,    e.pfn AS pfn, e.dev AS dev, e.ino AS ino, e.idx AS "
	"idx, e.last AS last,    e.addr AS addr, e.a AS a, e.b AS b, e.c AS c, e.type AS "
	"type_id,    (SELECT k.comm FROM tasks AS k WHERE k.session = e.session AND k.pid = "
	"e.pid AND (k.from_ns IS NULL OR k.from_ns <= e.ts_ns) AND (k.to_ns IS NULL OR "
	"e.ts_ns < k.to_ns)) AS comm  FROM events AS e LEFT JOIN event_types AS t ON t.type "
	"= e.type",
	"CREATE VIEW v_ev_filemap_add AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, pfn, ino AS i_ino, idx AS    \"index\", dev AS s_dev, folio_order AS "
	"\"order\",    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'filemap_add')",
	"CREATE VIEW v_ev_filemap_delete AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, pfn, ino AS i_ino, idx AS    \"index\", dev AS s_dev, folio_order AS "
	"\"order\",    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'filemap_delete')",
	"CREATE VIEW v_ev_filemap_get_pages AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, ino AS i_ino, dev AS s_dev, idx AS    \"index\", last AS last_index,    "
	"(SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND k.pid = "
	"events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS "
	"NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type "
	"FROM event_types WHERE name = 'filemap_get_pages')",
	"CREATE VIEW v_ev_filemap_fault AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, ino AS i_ino, dev AS s_dev, idx AS    \"index\",    (SELECT k.comm FROM "
	"tasks AS k WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns "
	"IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < "
	"k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type FROM event_types WHERE "
	"name = 'filemap_fault')",
	"CREATE VIEW v_ev_filemap_map_pages AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, ino AS i_ino, dev AS s_dev, idx AS    \"index\", last AS last_index,    "
	"(SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND k.pid = "
	"events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS "
	"NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type "
	"FROM event_types WHERE name = 'filemap_map_pages')",
	"CREATE VIEW v_ev_readahead AS  SELECT session, seq, ts_ns, cpu, pid AS common_pid, "
	"ino AS i_ino, dev AS s_dev, idx AS    \"index\", folio_order AS \"order\", a AS "
	"req_count, (flags & 2) != 0 AS async,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = 'readahead')",
	"CREATE VIEW v_ev_lru_insertion AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, pfn, a AS lru, b AS flags,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'lru_insertion')",
	"CREATE VIEW v_ev_lru_activate AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, pfn,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session "
	"AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'lru_activate')",
	"CREATE VIEW v_ev_direct_reclaim_begin AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS \"order\", b AS gfp_flags,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'direct_reclaim_begin')",
	"CREATE VIEW v_ev_direct_reclaim_end AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_reclaimed,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'direct_reclaim_end')",
	"CREATE VIEW v_ev_memcg_reclaim_begin AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS \"order\", b AS gfp_flags,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'memcg_reclaim_begin')",
	"CREATE VIEW v_ev_memcg_reclaim_end AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_reclaimed,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'memcg_reclaim_end')",
	"CREATE VIEW v_ev_softlimit_reclaim_begin AS  SELECT session, seq, ts_ns, cpu, pid "
	"AS common_pid, a AS \"order\", b AS gfp_flags,    (SELECT k.comm FROM tasks AS k "
	"WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'softlimit_reclaim_begin')",
	"CREATE VIEW v_ev_softlimit_reclaim_end AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_reclaimed,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'softlimit_reclaim_end')",
	"CREATE VIEW v_ev_node_reclaim_begin AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS \"order\", b AS gfp_flags,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'node_reclaim_begin')",
	"CREATE VIEW v_ev_node_reclaim_end AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_reclaimed,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'node_reclaim_end')",
	"CREATE VIEW v_ev_kswapd_wake AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nid, b AS \"order\",    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'kswapd_wake')",
	"CREATE VIEW v_ev_kswapd_sleep AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nid,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'kswapd_sleep')",
	"CREATE VIEW v_ev_lru_isolate AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_taken, b AS nr_scanned, c    AS lru,    (SELECT k.comm FROM "
	"tasks AS k WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns "
	"IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < "
	"k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type FROM event_types WHERE "
	"name = 'lru_isolate')",
	"CREATE VIEW v_ev_shrink_inactive AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_reclaimed, b AS nr_scanned,    c AS file,    (SELECT k.comm "
	"FROM tasks AS k WHERE k.session = events.session AND k.pid = events.pid AND "
	"(k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR "
	"events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type FROM "
	"event_types WHERE name = 'shrink_inactive')",
	"CREATE VIEW v_ev_shrink_active AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_deactivated, b AS nr_taken,    c AS file,    (SELECT k.comm "
	"FROM tasks AS k WHERE k.session = events.session AND k.pid = events.pid AND "
	"(k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR "
	"events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type FROM "
	"event_types WHERE name = 'shrink_active')",
	"CREATE VIEW v_ev_reclaim_pages AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS nr_reclaimed, b AS nr_scanned,    (SELECT k.comm FROM tasks AS k "
	"WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'reclaim_pages')",
	"CREATE VIEW v_ev_write_folio AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, pfn, (flags & 1) != 0 AS anon,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'write_folio')",
	"CREATE VIEW v_ev_shrink_slab_start AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'shrink_slab_start')",
	"CREATE VIEW v_ev_shrink_slab_end AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'shrink_slab_end')",
	"CREATE VIEW v_ev_page_fault_user AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, addr AS address, a AS error_code,    (SELECT k.comm FROM tasks AS k "
	"WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'page_fault_user')",
	"CREATE VIEW v_ev_madvise AS  SELECT session, seq, ts_ns, cpu, pid AS common_pid, "
	"addr AS start, a AS len_in, b AS    behavior,    (SELECT k.comm FROM tasks AS k "
	"WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = 'madvise')",
	"CREATE VIEW v_ev_process_fork AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, pid AS parent_pid, a AS child_pid,    (SELECT k.comm FROM tasks AS k "
	"WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'process_fork')",
	"CREATE VIEW v_ev_process_exit AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'process_exit')",
	"CREATE VIEW v_ev_process_exec AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'process_exec')",
	"CREATE VIEW v_ev_task_new AS  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a "
	"AS pid, b AS clone_flags,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'task_new')",
	"CREATE VIEW v_ev_lost AS  SELECT session, seq, ts_ns, cpu, pid AS common_pid, a AS "
	"lost,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND k.pid "
	"= events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS "
	"NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type "
	"FROM event_types WHERE name = 'lost')",
	"CREATE VIEW v_ev_touch AS  SELECT session, seq, ts_ns, cpu, pid AS common_pid, pid "
	"AS tgid, addr AS address, dev    AS s_dev, ino AS i_ino, idx AS \"index\", (flags & "
	"4) != 0 AS write, (flags & 1) != 0    AS anon, (flags & 8) != 0 AS fd,    (SELECT "
	"k.comm FROM tasks AS k WHERE k.session = events.session AND k.pid = events.pid AND "
	"(k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR "
	"events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    (SELECT type FROM "
	"event_types WHERE name = 'touch')",
	"CREATE VIEW v_ev_tlb_flush AS  SELECT session, seq, ts_ns, cpu, pid AS common_pid, "
	"a AS pages, b AS reason,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'tlb_flush')",
	"CREATE VIEW v_ev_sched_switch AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS prev_pid, b AS next_pid,    (SELECT k.comm FROM tasks AS k WHERE "
	"k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR "
	"k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm "
	" FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'sched_switch')",
	"CREATE VIEW v_ev_migrate_task AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS pid, b AS orig_cpu,    c AS dest_cpu,    (SELECT k.comm FROM tasks "
	"AS k WHERE k.session = events.session AND k.pid = events.pid AND (k.from_ns IS NULL "
	"OR k.from_ns <= events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS "
	"comm  FROM events WHERE type =    (SELECT type FROM event_types WHERE name = "
	"'migrate_task')",
	"CREATE VIEW v_ev_memcg_flush AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, a AS memcg_id,    b AS stats_updates, c & 1 AS force, (c >> 1) & 1 AS "
	"needs_flush,    (SELECT k.comm FROM tasks AS k WHERE k.session = events.session AND "
	"k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= events.ts_ns) AND "
	"(k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events WHERE type =    "
	"(SELECT type FROM event_types WHERE name = 'memcg_flush')",
	"CREATE VIEW v_ev_damon_aggregated AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, addr AS target_id,    c AS nr_regions, idx AS start, last AS \"end\", a "
	"AS nr_accesses, b AS age,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'damon_aggregated')",
	"CREATE VIEW v_ev_damos_apply AS  SELECT session, seq, ts_ns, cpu, pid AS "
	"common_pid, c AS scheme_idx,    addr AS nr_regions, idx AS start, last AS \"end\", a "
	"AS nr_accesses, b AS age,    (SELECT k.comm FROM tasks AS k WHERE k.session = "
	"events.session AND k.pid = events.pid AND (k.from_ns IS NULL OR k.from_ns <= "
	"events.ts_ns) AND (k.to_ns IS NULL OR events.ts_ns < k.to_ns)) AS comm  FROM events "
	"WHERE type =    (SELECT type FROM event_types WHERE name = 'damos_apply')",
};

_Static_assert(FRESH_SCHEMA_VERSION == HS_STORE_SCHEMA_VERSION,
	       "fresh_schema[] is the schema that the migrations end at");
static bool fresh_script = true;	/* hs_store_set_fresh_script() */

/* The rows of ST_EVENT_INSERT_BATCH: 32 of 17 anonymous parameters (544 in all). */
#define EV_ROW		"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define EV_ROWS4	EV_ROW ", " EV_ROW ", " EV_ROW ", " EV_ROW
#define EV_ROWS16	EV_ROWS4 ", " EV_ROWS4 ", " EV_ROWS4 ", " EV_ROWS4
#define EV_ROWS32	EV_ROWS16 ", " EV_ROWS16
_Static_assert(STORE_EVENT_BATCH == 32, "EV_ROWS32 holds STORE_EVENT_BATCH rows");

static const char *const stmt_sql[ST_NR] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_SESSION_INSERT] =
		"INSERT INTO sessions (source, name, origin, format, unit, kind, channel, params,"
		" status, started, host, hsctl_version, visibility)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'writing', " NOW_SQL ", ?9, ?10, ?11)",
	[ST_SESSION_FINISH] =
		"UPDATE sessions SET status = ?5, ended = " NOW_SQL ","
		" records = ?2, accesses = ?3, distinct_keys = ?4 WHERE id = ?1",
	[ST_CHUNK_INSERT] =
		"INSERT INTO access_chunks (session, chunk_no, first_seq, nr_records, nr_accesses,"
		" encoding, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_KEYS_INSERT] =
		"INSERT INTO session_keys (session, chunk_no, first_key, nr_keys, encoding, data)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_KEYS_GET] =
		"SELECT first_key, nr_keys, encoding, data FROM session_keys"
		" WHERE session = ?1 AND chunk_no = ?2",
	[ST_SESSION_GET] =
		"SELECT s.id, s.source, s.name, s.kind, s.channel, s.unit, s.status, s.records,"
		" s.accesses, s.distinct_keys, s.visibility, coalesce(r.memory_limit_pages, 0),"
		" coalesce(r.peak_pages, 0) FROM sessions AS s"
		" LEFT JOIN recordings AS r ON r.session = s.id WHERE s.id = ?1",
	[ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = ?1",
	[ST_RUN_INSERT] =
		"INSERT INTO runs (session, policy, params, capacity, records, accesses, hits,"
		" misses, cold_misses, evictions, refaults, hint_evictions, hint_refaults, hints,"
		" drops, pswpin, pswpout, pingpong_keys, pingpong_refaults, distinct_keys,"
		" protected, protected_useful, protected_wasted, prot_occupancy, peak_resident,"
		" wall_s, opt_reference, created, readahead_pages, readahead_unused) VALUES (?1,"
		" ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
		" ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, " NOW_SQL ", ?28, ?29)",
	[ST_PROT_INSERT] =
		"INSERT INTO run_protection (run, kind, total, useful, wasted)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_HIST_INSERT] =
		"INSERT INTO run_refault_hist (run, bucket, lo, hi, count)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_METRIC_INSERT] =
		"INSERT OR REPLACE INTO run_metrics (run, name, value) VALUES (?1, ?2, ?3)",
	[ST_GEN_INSERT] =
		"INSERT INTO run_generations (run, aging, seq, max_seq, min_seq_anon, min_seq_file,"
		" gen, anon_pages, file_pages) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_SESSION_STATUS] = "SELECT status FROM sessions WHERE id = ?1",
	[ST_SESSION_REOPEN] =
		"UPDATE sessions SET source = ?2, name = coalesce(?3, name),"
		" origin = coalesce(?4, origin), format = coalesce(?5, format),"
		" unit = coalesce(?6, unit), kind = coalesce(?7, kind),"
		" channel = coalesce(?8, channel), params = coalesce(?9, params),"
		" visibility = coalesce(?10, visibility), hsctl_version = ?11 WHERE id = ?1",
	[ST_RECORD_SESSION] =
		"INSERT INTO sessions (source, name, origin, format, unit, kind, channel, params,"
		" status, started, host, hsctl_version, visibility)"
		" VALUES ('record', ?1, ?2, ?3, 'page', ?4, ?5, ?6, 'recording', " NOW_SQL ", ?7,"
		" ?8, ?9)",
	[ST_RECORD_INSERT] =
		"INSERT INTO recordings (session, pid, host, workload, kernel, lru_gen, clock,"
		" instance, cgroup, cgroup_version, memory_limit_pages, buffer_kb, page_size,"
		" events) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	[ST_FORMAT_INSERT] =
		"INSERT OR REPLACE INTO record_formats (session, path, content) VALUES (?1, ?2, ?3)",
	[ST_SPOOL_INSERT] =
		"INSERT INTO record_spool (session, cpu, seq, data) VALUES (?1, ?2, ?3, ?4)",
	[ST_SPOOL_NEXT_CPU] =
		"SELECT min(cpu) FROM record_spool WHERE session = ?1 AND cpu > ?2",
	[ST_SPOOL_DROP] = "DELETE FROM record_spool WHERE session = ?1",
	[ST_RECORD_LIST_OPEN] =
		"SELECT s.id, r.pid, r.host FROM sessions AS s"
		" LEFT JOIN recordings AS r ON r.session = s.id"
		" WHERE s.status = 'recording' ORDER BY s.id",
	[ST_EVENT_INSERT] =
		"INSERT INTO events (session, seq, ts_ns, cpu, pid, type, flags, folio_order, pfn,"
		" dev, ino, idx, last, addr, a, b, c) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		" ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
	[ST_EVENT_INSERT_BATCH] =
		"INSERT INTO events (session, seq, ts_ns, cpu, pid, type, flags, folio_order, pfn,"
		" dev, ino, idx, last, addr, a, b, c) VALUES " EV_ROWS32,
	[ST_LIFE_INSERT] =
		"INSERT INTO folio_lives (session, life, kind, dev, ino, tgid, address, first_page,"
		" pages, pfn, born_ns, died_ns, death_cause, refault, refault_distance, refault_ns,"
		" flags, accesses, activations, workload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	[ST_RKEY_INSERT] =
		"INSERT INTO record_keys (session, key, kind, dev, ino, tgid, page)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_COUNTER_INSERT] =
		"INSERT INTO record_counters (session, file, scope, name, before, after, delta)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_CHECK_INSERT] =
		"INSERT INTO record_checks (session, name, status, got, want, note)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_CPU_INSERT] =
		"INSERT INTO record_cpus (session, cpu, subbufs, bytes, events, overrun,"
		" commit_overrun, dropped, lost) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_LRUGEN_INSERT] =
		"INSERT INTO lru_gen_snapshots (session, ts_ns, memcg_id, memcg_path, node, gen,"
		" seq, age_ms, anon_pages, file_pages)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[ST_RECORD_FINISH] =
		"UPDATE recordings SET workload_exit = ?2, workload_signal = ?3, runtime_ns = ?4,"
		" lost_events = ?5, lost_gaps = ?6, subbufs = ?7, bytes = ?8, events_decoded = ?9,"
		" touches = ?10, peak_pages = ?11, record_cpu_s = ?12, build_s = ?13"
		" WHERE session = ?1",
	[ST_EVLOG_INSERT] =
		"INSERT INTO run_evictions (run, chunk_no, first_pos, nr_evictions, encoding, data)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
};

struct hs_session_reader {
	struct hs_store		*st;		/* the store */
	sqlite3_stmt		*stmt;		/* this reader's chunk query */
	int64_t			session;	/* session read */
	uint64_t		records;	/* records the session says it has */
	uint64_t		accesses;	/* FD + PT records it says it has */
	uint64_t		nr_keys;	/* its distinct keys: keys are below */
	uint64_t		chunk_no;	/* next chunk to read */
	uint64_t		seq;		/* records read (first_seq of the next) */
	uint64_t		acc_seen;	/* accesses read so far */
	uint32_t		*keys;		/* last chunk decoded, HS_CHUNK_RECORDS */
	uint8_t			*meta;		/* ... its meta bytes */
	uint64_t		*ts;		/* ... its times (timed sessions), or NULL */
	bool			timed;		/* the last chunk decoded had times */
	int64_t			enc0;		/* chunk 0's encoding: all match it */
	uint64_t		last_ts;	/* time of the last record read */
	bool			tx;		/* began the read transaction it ends */
};

/**
 * store_err() - set the store's one-line error message
 * @st: the store
 * @err: what to return
 * @fmt: printf format of the message
 *
 * Return: @err, so that callers can write "return store_err(...)".
 */
int store_err(struct hs_store *st, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->errmsg, sizeof(st->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

/**
 * store_sql_err() - a failed SQLite call: keep its message
 * @st: the store
 * @rc: SQLite's result code
 *
 * Return: the negative errno for @rc; -EPERM, with the reason, for what
 * authorize() refused.
 */
int store_sql_err(struct hs_store *st, int rc)
{
	const char *msg = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);

	/* SQLite says "not authorized" (for a function: with rc SQLITE_ERROR) */
	if (st->denied[0] && ((rc & 0xff) == SQLITE_AUTH || strstr(msg, "not authorized"))) {
		store_err(st, 0, "%s", st->denied);	/* authorize()'s reason */
		st->denied[0] = '\0';
		return -EPERM;
	}
	st->denied[0] = '\0';
	store_err(st, 0, "%s", msg);
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_NOTADB:
		return -EPROTO;
	case SQLITE_CORRUPT:
		return -EBADMSG;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_TOOBIG:
		return -EINVAL;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	default:
		return -EIO;
	}
}

/**
 * store_stmt() - a shared statement, prepared on first use
 * @st: the store
 * @id: which
 * @out: receives it (owned by @st; reset after use)
 *
 * Return: 0 or -errno.
 */
int store_stmt(struct hs_store *st, enum stmt_id id, sqlite3_stmt **out)
{
	int rc;

	if (!st->stmts[id]) {
		rc = sqlite3_prepare_v3(st->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
					&st->stmts[id], NULL);
		if (rc != SQLITE_OK)
			return store_sql_err(st, rc);
	}
	*out = st->stmts[id];
	return 0;
}

/**
 * store_run() - step a prepared, bound statement that returns no rows
 * @st: the store
 * @s: the statement; reset and its bindings cleared afterwards
 *
 * Return: 0 or -errno.
 */
int store_run(struct hs_store *st, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	int err = 0;

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		err = store_sql_err(st, rc);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return err;
}

/**
 * store_run_id() - run a shared statement without parameters
 * @st: the store
 * @id: which
 *
 * Return: 0 or -errno.
 */
int store_run_id(struct hs_store *st, enum stmt_id id)
{
	sqlite3_stmt *s = NULL;
	int err = store_stmt(st, id, &s);

	return err ? err : store_run(st, s);
}

/**
 * store_exec() - run SQL text, no rows wanted
 * @st: the store
 * @sql: one or more statements
 *
 * Return: 0 or -errno.
 */
int store_exec(struct hs_store *st, const char *sql)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_sql_err(st, rc);
}

/**
 * store_query_int() - the single integer a statement such as "PRAGMA user_version" returns
 * @st: the store
 * @sql: the statement
 * @out: receives the first column of the first row, 0 without rows
 *
 * Return: 0 or -errno.
 */
int store_query_int(struct hs_store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *s = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc == SQLITE_DONE)
		*out = 0;
	else
		err = store_sql_err(st, rc);
	sqlite3_finalize(s);
	return err;
}

/**
 * store_rollback() - roll back the open transaction, if any
 * @st: the store
 *
 * Keeps the message of the error that made the caller roll back, and ends
 * the write (st->writing, st->tx).
 *
 * Return: nothing.
 */
void store_rollback(struct hs_store *st)
{
	char keep[sizeof(st->errmsg)];

	memcpy(keep, st->errmsg, sizeof(keep));
	if (sqlite3_get_autocommit(st->db) == 0)
		store_run_id(st, ST_ROLLBACK);
	memcpy(st->errmsg, keep, sizeof(keep));
	st->writing = false;
	st->tx = false;
}

/* Statuses a session may be committed with ("recording" is hs_record_create()'s). */
const char *const store_statuses[] = { "complete", "interrupted", "timeout", "killed", NULL };

/**
 * store_status_valid() - is @status one a session may be committed with?
 * @status: "complete", "interrupted", "timeout" or "killed"
 *
 * Return: true if it is one of them.
 */
bool store_status_valid(const char *status)
{
	size_t i;

	for (i = 0; store_statuses[i]; i++)
		if (!strcmp(status, store_statuses[i]))
			return true;
	return false;
}

/**
 * store_host() - this machine's host name
 * @buf: receives it
 * @len: its size
 *
 * Return: @buf, or NULL when the name is unknown.
 */
const char *store_host(char *buf, size_t len)
{
	if (len < 2 || gethostname(buf, len - 1))
		return NULL;
	buf[len - 1] = '\0';
	return buf[0] ? buf : NULL;
}

/* Fill the lookup tables of schema 2 from the enums (append-only: INSERT OR IGNORE). */
static int fill_names(struct hs_store *st)
{
	static const char *const sql[] = {
		"INSERT OR IGNORE INTO event_types (type, name) VALUES (?1, ?2)",
		"INSERT OR IGNORE INTO life_kinds (kind, name) VALUES (?1, ?2)",
		"INSERT OR IGNORE INTO death_causes (cause, name) VALUES (?1, ?2)",
	};
	const unsigned int nr[] = { HS_EV_NR, HS_LIFE_KIND_NR, HS_DEATH_NR };
	size_t t;
	int err = 0;

	for (t = 0; !err && t < ARRAY_SIZE(sql); t++) {
		sqlite3_stmt *s = NULL;
		unsigned int i;
		int rc;

		rc = sqlite3_prepare_v2(st->db, sql[t], -1, &s, NULL);
		if (rc != SQLITE_OK)
			return store_sql_err(st, rc);
		for (i = 0; !err && i < nr[t]; i++) {
			const char *name = t == 0 ? hs_event_type_name((enum hs_event_type)i) :
					   t == 1 ? hs_life_kind_name((enum hs_life_kind)i) :
					   hs_death_cause_name((enum hs_death_cause)i);

			sqlite3_bind_int(s, 1, (int)i);
			sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
			err = store_run(st, s);
		}
		sqlite3_finalize(s);
	}
	return err;
}

/* A file at schema 2 or later written by an older build: add the names it lacks. */
static int update_names(struct hs_store *st)
{
	char sql[256];
	int64_t complete;
	int err;

	snprintf(sql, sizeof(sql), "SELECT (SELECT count(*) FROM event_types) >= %d AND"
		 " (SELECT count(*) FROM life_kinds) >= %d AND"
		 " (SELECT count(*) FROM death_causes) >= %d",
		 (int)HS_EV_NR, (int)HS_LIFE_KIND_NR, (int)HS_DEATH_NR);
	err = store_query_int(st, sql, &complete);
	if (err || complete)
		return err;
	err = store_run_id(st, ST_BEGIN);
	if (err)
		return err;
	err = fill_names(st);
	if (!err)
		err = store_run_id(st, ST_COMMIT);
	if (err)
		store_rollback(st);
	return err;
}

static int migrate(struct hs_store *st)
{
	char sql[96];
	int64_t version;
	int err;

	err = store_run_id(st, ST_BEGIN);
	if (err)
		return err;
	/* another process may have migrated since we looked */
	err = store_query_int(st, "PRAGMA user_version", &version);
	if (err)
		goto out_rollback;
	if (version > HS_STORE_SCHEMA_VERSION) {
		err = store_err(st, -EPROTO, "database schema version %lld is newer than this hsctl"
			      " supports (%d); upgrade hsctl", (long long)version,
			      HS_STORE_SCHEMA_VERSION);
		goto out_rollback;
	}
	if (version == 0 && fresh_script) {
		int64_t objects;

		err = store_query_int(st, "SELECT count(*) FROM sqlite_master", &objects);
		for (size_t i = 0; !err && !objects && i < ARRAY_SIZE(fresh_schema); i++)
			err = store_exec(st, fresh_schema[i]);
		if (err)
			goto out_rollback;
		if (!objects)
			version = HS_STORE_SCHEMA_VERSION;
	}
	for (; version < HS_STORE_SCHEMA_VERSION; version++) {
		err = store_exec(st, migrations[version]);
		if (err)
			goto out_rollback;
		/* 2 -> 3 added runs.opt_gap: compute it for what is stored */
		if (version == 2)
			err = refresh_opt_gaps(st, -1);
		if (err)
			goto out_rollback;
	}
	err = fill_names(st);
	if (err)
		goto out_rollback;
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 (int)HS_STORE_APPLICATION_ID, HS_STORE_SCHEMA_VERSION);
	err = store_exec(st, sql);
	if (err)
		goto out_rollback;
	err = store_run_id(st, ST_COMMIT);
	if (err)
		goto out_rollback;
	st->user_version = HS_STORE_SCHEMA_VERSION;
	return 0;

out_rollback:
	store_rollback(st);
	return err;
}

/* Is this file ours, and at which version?  Migrate it unless told not to. */
static int check_schema(struct hs_store *st)
{
	int64_t app_id, version, objects;
	bool fresh;
	int err;

	err = store_query_int(st, "PRAGMA application_id", &app_id);
	if (!err)
		err = store_query_int(st, "PRAGMA user_version", &version);
	if (!err)
		err = store_query_int(st, "SELECT count(*) FROM sqlite_master", &objects);
	if (err == -EPROTO)
		return store_err(st, -EPROTO, "file is not a database");
	if (err)
		return err;
	fresh = app_id == 0 && version == 0 && objects == 0;
	if (app_id != (int)HS_STORE_APPLICATION_ID && !fresh)
		return store_err(st, -EPROTO, "not an hsctl database");
	if (version > HS_STORE_SCHEMA_VERSION)
		return store_err(st, -EPROTO, "database schema version %lld is newer than this hsctl"
			       " supports (%d); upgrade hsctl", (long long)version,
			       HS_STORE_SCHEMA_VERSION);
	st->user_version = (int)version;
	if (version == HS_STORE_SCHEMA_VERSION || (st->flags & HS_STORE_NOMIGRATE))
		return 0;
	if (st->flags & HS_STORE_RDONLY) {
		if (fresh)
			return store_err(st, -EPROTO, "not an hsctl database (empty file)");
		return store_err(st, -EPROTO, "database schema version %lld is older than this"
			       " hsctl's (%d); run 'hsctl db migrate'", (long long)version,
			       HS_STORE_SCHEMA_VERSION);
	}
	return 0;
}

static void key_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv);
static void evictions_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* Does @path with @suffix exist?  @size receives its size (may be NULL). */
static bool exists_with(const char *path, const char *suffix, off_t *size)
{
	char name[4096];
	struct stat sb;

	if (size)
		*size = 1;
	if ((size_t)snprintf(name, sizeof(name), "%s%s", path, suffix) >= sizeof(name))
		return true;		/* cannot tell: assume it does */
	if (lstat(name, &sb))
		return false;
	if (size)
		*size = sb.st_size;
	return true;
}

/* May this process (effective ids) access @path with @mode?  Return: 0 or -errno. */
static int may(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) ? -errno : 0;
}

/* The directory of @path into @dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/*
 * Permissions first, so that a file or directory we may not use is reported
 * as such (-EACCES, or -EROFS on read-only media) instead of as SQLite's
 * "unable to open database file" or "attempt to write a readonly database"
 * half-way through.  A writer needs the file and, for the -wal and -shm
 * files of WAL mode (and for a new file), its directory.
 */
static int check_access(struct hs_store *st, const char *path, unsigned int flags)
{
	bool rdonly = flags & HS_STORE_RDONLY;
	char dir[4096];
	struct stat sb;
	int err;

	dir_of(path, dir, sizeof(dir));
	if (stat(path, &sb)) {
		err = -errno;
		if (err != -ENOENT || (flags & (HS_STORE_NOCREATE | HS_STORE_RDONLY)))
			return store_err(st, err, "%s", strerror(-err));
		err = may(dir, W_OK | X_OK);
		if (err)
			return store_err(st, err, "cannot create it in %s: %s", dir,
					 strerror(-err));
		return 0;
	}
	if (S_ISDIR(sb.st_mode))
		return 0;	/* SQLite says what is wrong */
	err = may(path, rdonly ? R_OK : R_OK | W_OK);
	if (err)
		return store_err(st, err, "cannot open it for %s: %s",
				 rdonly || may(path, R_OK) ? "reading" : "writing", strerror(-err));
	if (!rdonly && !(exists_with(path, "-wal", NULL) && exists_with(path, "-shm", NULL))) {
		err = may(dir, W_OK | X_OK);
		if (err)
			return store_err(st, err, "cannot create its -wal and -shm files in %s: %s",
					 dir, strerror(-err));
	}
	return 0;
}

/*
 * A short read-write connection that reads the schema and closes.  SQLite
 * does on its way what a read-only connection cannot: it rolls back a hot
 * -journal (a staged import killed in its commit) and restores the page it
 * saved, so the database is again the WAL database it was; and its close
 * removes the -wal and -shm files if no other connection uses them (it
 * checkpoints an empty log first: the database file is not written).
 */
static void rw_glance(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, busy_timeout_ms);
		sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	}
	sqlite3_close(db);
}

/* After a read-only connection that made the -wal and -shm files: rw_glance() removes them. */
static void remove_wal_files(const char *path)
{
	if (exists_with(path, "-wal", NULL) || exists_with(path, "-shm", NULL))
		rw_glance(path);
}

/*
 * Open @path read-only.  A WAL database is read through its -wal and -shm
 * files, which SQLite creates when they are missing, and a read-only
 * connection cannot remove at close.  So when neither exists:
 *  - if this process may write the file and its directory, the connection
 *    makes them and hs_store_close() lets SQLite's own last-connection
 *    cleanup remove them again (wal_cleanup);
 *  - else (read-only media, another user's database) they cannot be made or
 *    removed: the file is opened immutable=1, as SQLite documents for WAL
 *    databases on read-only media.  No -wal file means no connection is
 *    writing it.  An empty -wal without a -shm (left by a crash or an older
 *    hsctl) holds nothing either.
 * Otherwise another connection may be using them: a plain read-only open
 * shares them.  So too with a -journal file: a staged import commits in
 * journal_mode DELETE (stage_journal_begin()), and a reader then takes the
 * file's locks as usual.
 */
static int store_open_ro(struct hs_store *st, const char *path)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789/._-~";
	char dir[4096], uri[3 * 4096 + 32];
	bool wal, shm, can_write;
	const char *p;
	off_t wal_size;
	size_t o;

	dir_of(path, dir, sizeof(dir));
	can_write = !may(path, W_OK) && !may(dir, W_OK | X_OK);
	/*
	 * A -journal: a staged import is committing, or was killed while it
	 * did.  A hot journal makes every read-only connection fail ("attempt
	 * to write a readonly database"), so one that may write rolls it back
	 * first (a live commit holds its lock; the glance waits for it).
	 */
	if (can_write && exists_with(path, "-journal", NULL))
		rw_glance(path);
	wal = exists_with(path, "-wal", &wal_size);
	shm = exists_with(path, "-shm", NULL);
	if (shm || (wal && (wal_size || can_write)) || exists_with(path, "-journal", NULL))
		return sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READONLY, NULL);
	if (can_write) {
		st->wal_cleanup = true;
		return sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READONLY, NULL);
	}
	st->immutable = true;
	o = (size_t)snprintf(uri, sizeof(uri), "file:");
	for (p = path; *p && o + 4 < sizeof(uri); p++) {
		if (strchr(keep, *p))
			uri[o++] = *p;
		else
			o += (size_t)snprintf(uri + o, sizeof(uri) - o, "%%%02X", (unsigned char)*p);
	}
	snprintf(uri + o, sizeof(uri) - o, "?immutable=1");
	return sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
}

/* SQL functions no hsctl connection offers: they reach past the database. */
static const char *const denied_functions[] = {
	"fts3_tokenizer",	/* hands out and takes C pointers */
	"load_extension",	/* loads a shared library */
	"readfile", "writefile", "edit",	/* the sqlite3 shell's file access */
	NULL,
};

/* PRAGMAs a read-only connection may give an argument: they only look. */
static const char *const ro_arg_pragmas[] = {
	"table_info", "table_xinfo", "table_list", "index_info", "index_xinfo",
	"index_list", "foreign_key_list", "foreign_key_check", "integrity_check",
	"quick_check", NULL,
};

static bool in_list(const char *const *list, const char *name)
{
	size_t i;

	for (i = 0; name && list[i]; i++)
		if (!sqlite3_stricmp(list[i], name))
			return true;
	return false;
}

static int deny(struct hs_store *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int deny(struct hs_store *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->denied, sizeof(st->denied), fmt, ap);
	va_end(ap);
	return SQLITE_DENY;
}

/*
 * The authorizer of every connection (sqlite3_set_authorizer(), consulted
 * while a statement is prepared): the functions above are refused
 * everywhere; a read-only connection also refuses ATTACH and DETACH (which
 * would create or open other files) and PRAGMAs that set something, even
 * those sqlite3_stmt_readonly() lets through (query_only, cache_size).  The
 * reason goes to st->denied, from where store_sql_err() reports it.
 */
static int authorize(void *arg, int action, const char *a1, const char *a2, const char *db,
		     const char *trigger)
{
	struct hs_store *st = arg;
	bool rdonly = st->flags & HS_STORE_RDONLY;

	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_FUNCTION:
		if (in_list(denied_functions, a2))
			return deny(st, "%s() is not allowed", a2);
		return SQLITE_OK;
	case SQLITE_ATTACH:
		return rdonly ? deny(st, "ATTACH is not allowed on a read-only database")
			      : SQLITE_OK;
	case SQLITE_DETACH:
		return rdonly ? deny(st, "DETACH is not allowed on a read-only database")
			      : SQLITE_OK;
	case SQLITE_PRAGMA:
		/* as check_readonly() says it: a value sets something */
		if (rdonly && a2 && !in_list(ro_arg_pragmas, a1))
			return deny(st, "statement writes to the database; use --write");
		return SQLITE_OK;
	default:
		return SQLITE_OK;
	}
}

/* No extensions, no FTS3 pointers, no schema writes by hand, then the authorizer. */
static int lock_down(struct hs_store *st)
{
	static const int off[] = {
		SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER,
	};
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(off); i++) {
		rc = sqlite3_db_config(st->db, off[i], 0, (int *)NULL);
		if (rc != SQLITE_OK)
			return store_sql_err(st, rc);
	}
	rc = sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_set_authorizer(st->db, authorize, st);
	return rc == SQLITE_OK ? 0 : store_sql_err(st, rc);
}

/**
 * hs_store_set_busy_timeout() - how long stores opened from now wait for a lock
 * @ms: milliseconds (default 10000); 0 fails at once
 *
 * A command that finds the database locked by another connection's write
 * retries for this long, then fails with "database is locked" (-EIO).
 *
 * Return: nothing.
 */
void hs_store_set_busy_timeout(unsigned int ms)
{
	busy_timeout_ms = ms > INT_MAX ? INT_MAX : (int)ms;
}

/**
 * hs_store_set_fresh_script() - how stores opened from now make a new file's schema
 * @on: true (the default): in one script (fresh_schema[]); false: by every migration
 *
 * For tests, which compare the two.
 *
 * Return: nothing.
 */
void hs_store_set_fresh_script(bool on)
{
	fresh_script = on;
}

/**
 * hs_store_open() - open or create a database, migrating it to this version
 * @path: file name (":memory:" for tests)
 * @flags: HS_STORE_*
 * @out: the store
 *
 * A read-only open creates no file that outlives the store (see
 * store_open_ro()) and works on read-only media.
 *
 * Return: 0, -ENOENT, -EACCES or -EROFS (the file or its directory may not
 * be used so), -EPROTO (not ours / newer), -EIO, -ENOMEM.  On error *out is
 * still set when a message is available (read it, then close); it is NULL
 * only for -ENOMEM.
 */
int hs_store_open(const char *path, unsigned int flags, struct hs_store **out)
{
	bool memory = !strcmp(path, ":memory:") || !*path;
	struct hs_store *st;
	int rc, err;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->flags = flags;
	st->kc_chunk = -1;
	*out = st;
	if (!memory) {
		st->path = strdup(path);
		if (!st->path) {
			free(st);
			*out = NULL;
			return -ENOMEM;
		}
		err = check_access(st, path, flags);
		if (err)
			return err;
	}
	if (!memory && (flags & HS_STORE_RDONLY))
		rc = store_open_ro(st, path);
	else
		rc = sqlite3_open_v2(path, &st->db, flags & HS_STORE_RDONLY ? SQLITE_OPEN_READONLY :
				     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		if (!st->db) {
			free(st->path);
			free(st);
			*out = NULL;
			return -ENOMEM;
		}
		err = store_sql_err(st, rc);
		return err == -ENOMEM ? err : -EIO;
	}
	sqlite3_busy_timeout(st->db, busy_timeout_ms);
	err = check_schema(st);
	if (err)
		return err;
	if (!(flags & HS_STORE_RDONLY)) {
		/* in WAL mode, NORMAL is safe against corruption and saves fsyncs */
		err = store_exec(st, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
		if (err)
			return err;
	}
	err = store_exec(st, "PRAGMA foreign_keys = ON");
	if (err)
		return err;
	if (st->user_version < HS_STORE_SCHEMA_VERSION && !(flags & HS_STORE_NOMIGRATE)) {
		err = migrate(st);
		if (err)
			return err;
	}
	if (st->user_version >= 2 && !(flags & HS_STORE_RDONLY)) {
		err = update_names(st);
		if (err)
			return err;
	}
	rc = sqlite3_create_function_v2(st->db, "hs_key", 2, SQLITE_UTF8, st, key_fn, NULL,
					NULL, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	rc = sqlite3_create_function_v2(st->db, "hs_evictions", 4,
					SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, evictions_fn,
					NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	err = lock_down(st);
	if (err)
		return err;
	st->errmsg[0] = '\0';
	return 0;
}

/**
 * hs_store_close() - close a database
 * @st: the store, or NULL
 *
 * Readers should be closed first; an open writer's transaction is rolled back.
 *
 * Return: nothing.
 */
void hs_store_close(struct hs_store *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < ST_NR; i++)
		sqlite3_finalize(st->stmts[i]);
	sqlite3_close_v2(st->db);
	if (st->wal_cleanup)
		remove_wal_files(st->path);
	free(st->path);
	free(st->kc_ids);
	free(st);
}

/**
 * hs_store_errmsg() - the reason for the last failure
 * @st: the store
 *
 * Return: a one-line message, valid until the next call on @st.
 */
const char *hs_store_errmsg(const struct hs_store *st)
{
	return st->errmsg[0] ? st->errmsg : "unknown error";
}

/**
 * hs_store_path() - the database's file
 * @st: the store
 *
 * Return: the path it was opened with, or NULL for :memory:.
 */
const char *hs_store_path(const struct hs_store *st)
{
	return st->path;
}

/**
 * hs_store_user_version() - the schema version of the open file
 * @st: the store
 *
 * Return: HS_STORE_SCHEMA_VERSION after a normal open; with HS_STORE_NOMIGRATE
 * the version the file has (0 for an empty file).
 */
int hs_store_user_version(const struct hs_store *st)
{
	return st->user_version;
}

/**
 * hs_store_get_info() - facts about the open file for `hsctl db info`
 * @st: the store
 * @info: receives them
 *
 * Return: 0 or -errno.
 */
int hs_store_get_info(struct hs_store *st, struct hs_store_info *info)
{
	sqlite3_stmt *s = NULL;
	int64_t v;
	int rc, err;

	memset(info, 0, sizeof(*info));
	err = store_query_int(st, "PRAGMA application_id", &v);
	if (err)
		return err;
	info->application_id = (uint32_t)v;
	info->user_version = st->user_version;
	err = store_query_int(st, "PRAGMA page_size", &info->page_size);
	if (!err)
		err = store_query_int(st, "PRAGMA page_count", &info->page_count);
	if (!err)
		err = store_query_int(st, "PRAGMA freelist_count", &info->freelist_count);
	if (err)
		return err;
	info->sessions = -1;
	info->runs = -1;
	if (st->user_version >= 1) {
		err = store_query_int(st, "SELECT count(*) FROM sessions", &info->sessions);
		if (!err)
			err = store_query_int(st, "SELECT count(*) FROM runs", &info->runs);
		if (err)
			return err;
	}
	if (st->immutable) {
		/* SQLite reads it as a plain file: byte 18 of the header says WAL (2) */
		unsigned char hdr[20];
		int fd = open(st->path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr))
			snprintf(info->journal_mode, sizeof(info->journal_mode), "%s",
				 hdr[18] == 2 ? "wal" : "delete");
		if (fd >= 0)
			close(fd);
		if (info->journal_mode[0])
			return 0;
	}
	rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		snprintf(info->journal_mode, sizeof(info->journal_mode), "%s",
			 (const char *)sqlite3_column_text(s, 0));
	else
		err = store_sql_err(st, rc);
	sqlite3_finalize(s);
	return err;
}

/* ---- writing a session ---- */

/**
 * store_or() - a string, or a default for NULL and ""
 * @s: the string
 * @def: the default
 *
 * Return: @s when it is set and not empty, else @def.
 */
const char *store_or(const char *s, const char *def)
{
	return s && *s ? s : def;
}

/* A name for a session the user did not name: the origin's file name. */
static const char *derive_name(const struct hs_session_meta *m)
{
	const char *slash;

	if (m->name && *m->name)
		return m->name;
	if (m->origin && *m->origin) {
		slash = strrchr(m->origin, '/');
		if (slash && slash[1])
			return slash + 1;
		return m->origin;
	}
	return store_or(m->format, m->source);
}

/* Insert the sessions row of a new session. */
static int insert_session(struct hs_session_writer *w, const struct hs_session_meta *m)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	char host[256];
	int err;

	err = store_stmt(st, ST_SESSION_INSERT, &s);
	if (err)
		return err;
	sqlite3_bind_text(s, 1, m->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, derive_name(m), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, m->origin, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, m->format, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, store_or(m->unit, "page"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, store_or(m->kind, "file"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, store_or(m->channel, "pt"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, store_or(m->params_json, "{}"), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, store_host(host, sizeof(host)), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, PACKAGE_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, store_or(m->visibility, "exact"), -1, SQLITE_STATIC);
	err = store_run(st, s);
	if (!err)
		w->session = sqlite3_last_insert_rowid(st->db);
	return err;
}

/* Bind @v, or NULL (keep the column) when @v is NULL or empty. */
static void bind_or_keep(sqlite3_stmt *s, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* Take over session m->id, which must be in status 'recording', and update its row. */
static int reopen_session(struct hs_session_writer *w, const struct hs_session_meta *m)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	char status[16] = "";
	int rc, err;

	err = store_stmt(st, ST_SESSION_STATUS, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, m->id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		store_copy_col(status, sizeof(status), s, 0);
	else if (rc == SQLITE_DONE)
		err = store_err(st, -ENOENT, "no session %lld", (long long)m->id);
	else
		err = store_sql_err(st, rc);
	sqlite3_reset(s);
	if (err)
		return err;
	if (strcmp(status, "recording"))
		return store_err(st, -EINVAL, "session %lld is not being recorded (status %s)",
				 (long long)m->id, status);
	err = store_stmt(st, ST_SESSION_REOPEN, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, m->id);
	sqlite3_bind_text(s, 2, m->source, -1, SQLITE_STATIC);
	bind_or_keep(s, 3, m->name);
	bind_or_keep(s, 4, m->origin);
	bind_or_keep(s, 5, m->format);
	bind_or_keep(s, 6, m->unit);
	bind_or_keep(s, 7, m->kind);
	bind_or_keep(s, 8, m->channel);
	bind_or_keep(s, 9, m->params_json);
	bind_or_keep(s, 10, m->visibility);
	sqlite3_bind_text(s, 11, PACKAGE_VERSION, -1, SQLITE_STATIC);
	err = store_run(st, s);
	if (err)
		return err;
	w->session = m->id;
	w->recorded = true;
	return 0;
}

/*
 * The key map of an import starts at one 2 MiB huge page of slots (262,144
 * narrow ones, for 209,715 keys at 4/5 full) and of records: growing to
 * that size from 1,024 slots went through heap arrays whose every 4 KiB page
 * faulted on first touch, 790 of the 2,200 page faults of a 10 M-record
 * import (perf record -e page-faults).  4 MiB for an import of a handful of
 * keys is nothing beside SQLite's own.
 */
#define IMPORT_KEYS_HINT	(262144 / 5 * 4)

/*
 * A staged writer (meta.staged) holds no lock while the stream is read and
 * encoded: its chunks go to a file of its own, unnamed (O_TMPFILE, or
 * unlinked at once), under $TMPDIR, /var/tmp or /tmp (never beside the
 * database), one write() per chunk, and hs_session_commit() copies them over
 * in one short write transaction.  So a slow import (a pipe that trickles)
 * does not keep other writers out, and a crash leaves nothing behind.  (They
 * went to a table of SQLite's temporary database before: its pages, its
 * rollback journal and the copy back cost 47 K of the 75 K system calls of a
 * 10 M-record import.)
 *
 * The first STAGE_MEM_MAX bytes of chunks stay in memory instead, encoded
 * straight into a reserved range in huge pages (hs_huge_reserve()) and bound
 * from there at the commit: the write() into the file's page cache, the
 * pread() back and the file's release at close cost 1.9-2.3 ns a record of
 * a 10 M-record oracle import on this project's VM (perf: 95-115 samples at
 * 5 kHz, of 1,200-2,200), where the kernel's zeroing of the huge pages, 0.2
 * ms/MiB, is 0.6 ns.  Beyond that the file takes the rest, so a long import
 * holds no more than that in memory.
 */
#define STAGE_MEM_MAX	(256ull << 20)

struct stage_chunk {
	const uint8_t	*mem;		/* the blob in stage_mem, or NULL: in the file */
	uint64_t	off;		/* ... at this offset of the stage file */
	uint64_t	first_seq;	/* the row's columns */
	uint64_t	nr_accesses;
	uint32_t	nr_records;
	uint32_t	len;		/* the blob's bytes */
	int		encoding;
};

static void writer_free(struct hs_session_writer *w)
{
	if (w->stage_fd >= 0)
		close(w->stage_fd);
	hs_huge_free(w->stage_mem, STAGE_MEM_MAX);
	free(w->stage);
	for (size_t i = 0; i < ARRAY_SIZE(w->owned); i++)
		free(w->owned[i]);
	free(w->evbuf);
	hs_keymap_free(w->km);
	free(w->enc);
	free(w->meta);
	free(w->keys);
	free(w->ts);
	free(w->raw);
	free(w);
}

/* An unnamed read-write file in @dir.  Return: its descriptor, or -1 with errno set. */
static int stage_file_in(const char *dir)
{
	char path[PATH_MAX];
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
#endif
	if (snprintf(path, sizeof(path), "%s/hsctl_stage_XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* The stage file, in the first of $TMPDIR, /var/tmp and /tmp that takes one. */
static int stage_open(struct hs_session_writer *w)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp" };
	const char *dir = NULL;
	int err = ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(dirs) && w->stage_fd < 0; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		w->stage_fd = stage_file_in(dirs[i]);
		if (w->stage_fd < 0 && !dir) {
			dir = dirs[i];	/* the first one's reason is the one to give */
			err = errno;
		}
	}
	if (w->stage_fd >= 0)
		return 0;
	return store_err(w->st, -err, "cannot make a file to stage the stream in %s: %s",
			 dir ? dir : "/tmp", strerror(err));
}

/*
 * Where flush_chunk() encodes a chunk of at most @bound bytes: the stage's
 * memory while the chunk fits there and no chunk went to the file yet (the
 * chunks stay in order), else w->enc.
 */
static uint8_t *stage_out(struct hs_session_writer *w, size_t bound)
{
	if (w->staged && w->stage_mem && !w->stage_file_off &&
	    w->stage_mem_len + bound <= STAGE_MEM_MAX)
		return w->stage_mem + w->stage_mem_len;
	return w->enc;
}

/*
 * Append a chunk's row to the stage, and its blob: kept where stage_out()
 * put it in the stage's memory, or written to the stage file from w->enc.
 */
static int stage_chunk(struct hs_session_writer *w, const uint8_t *data, size_t len,
		       uint64_t nacc, int encoding)
{
	const uint8_t *p = data;
	bool in_mem = data != w->enc;
	size_t left = in_mem ? 0 : len;
	ssize_t n;

	if (w->stage_n == w->stage_cap) {
		size_t cap = w->stage_cap ? w->stage_cap * 2 : 64;
		struct stage_chunk *c = realloc(w->stage, cap * sizeof(*c));

		if (!c)
			return store_err(w->st, -ENOMEM, "out of memory");
		w->stage = c;
		w->stage_cap = cap;
	}
	while (left) {
		n = write(w->stage_fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return store_err(w->st, n < 0 ? -errno : -EIO,
					 "cannot stage the stream in a temporary file: %s",
					 strerror(n < 0 ? errno : EIO));
		p += n;
		left -= (size_t)n;
	}
	w->stage[w->stage_n++] = (struct stage_chunk){
		.mem = in_mem ? data : NULL, .off = w->stage_file_off, .first_seq = w->records,
		.nr_accesses = nacc, .nr_records = (uint32_t)w->n, .len = (uint32_t)len,
		.encoding = encoding,
	};
	if (in_mem)
		w->stage_mem_len += len;
	else
		w->stage_file_off += len;
	w->stage_off += len;
	return 0;
}

/* Copy @m for the commit, make the stage file and note the start time. */
static int stage_begin(struct hs_session_writer *w, const struct hs_session_meta *m)
{
	struct hs_store *st = w->st;
	const char **f[ARRAY_SIZE(w->owned)] = {
		&w->sm.source, &w->sm.name, &w->sm.origin, &w->sm.format, &w->sm.unit,
		&w->sm.kind, &w->sm.channel, &w->sm.params_json, &w->sm.visibility,
	};
	sqlite3_stmt *s = NULL;
	int rc, err;

	w->sm = *m;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		if (!*f[i])
			continue;
		w->owned[i] = strdup(*f[i]);
		if (!w->owned[i])
			return store_err(st, -ENOMEM, "out of memory");
		*f[i] = w->owned[i];
	}
	err = stage_open(w);
	if (err)
		return err;
	w->stage_mem = hs_huge_reserve(STAGE_MEM_MAX);	/* NULL: all to the file */
	w->staged = true;
	rc = sqlite3_prepare_v2(st->db, "SELECT " NOW_SQL, -1, &s, NULL);
	if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		store_copy_col(w->started, sizeof(w->started), s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : store_sql_err(st, rc);
}

/* Read @len bytes at @off of the stage file into @buf. */
static int stage_read(struct hs_session_writer *w, void *buf, size_t len, uint64_t off)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(w->stage_fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return store_err(w->st, n < 0 ? -errno : -EIO,
					 "cannot read the staged stream back: %s",
					 n < 0 ? strerror(errno) : "file shorter than written");
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * A staged session's commit in a rollback journal rather than the WAL.  In
 * WAL mode every page of the new chunks is written twice -- into the -wal
 * file, then by the checkpoint that the commit triggers (it reads the frames
 * back and writes them into the database file) -- and both copies are
 * synced.  The chunks of a new session go to pages the database file does
 * not have yet, or to free pages, and a rollback journal keeps only the
 * original content of the pages a transaction changes: the few b-tree pages
 * the rows are linked into.  So for the length of its transaction a staged
 * commit switches the database to journal_mode DELETE and writes each page
 * once: on a 10 M-record import of 29 MB of chunks the commit's system
 * time fell from 0.12-0.27 s to 0.04-0.05 s on this project's VM (29 K
 * pread and pwrite calls to 7 K), a third of the whole import's CPU.
 *
 * SQLite leaves WAL mode only when no other connection has the database
 * open (the pragma then answers "wal" at once: the commit goes through the
 * WAL as before), so no reader is in the middle of a snapshot.  Readers that
 * come meanwhile wait for the commit on the lock, up to their busy timeout
 * (10 s), where in WAL mode they would not wait: hence only stages of at
 * most STAGE_JOURNAL_MAX bytes, whose commit takes a second or two, and of
 * at least STAGE_JOURNAL_MIN, below which the switch costs more than it
 * saves.  synchronous is FULL meanwhile: NORMAL is safe against corruption
 * in WAL mode but not with a rollback journal.  stage_journal_end() goes
 * back to WAL mode; should that fail (a reader holds the file), the database
 * stays in DELETE mode, as valid, until the next read-write open sets WAL
 * mode again (hs_store_open()).
 */
#define STAGE_JOURNAL_MIN	(1ull << 20)
#define STAGE_JOURNAL_MAX	(256ull << 20)

/*
 * SQLite's page cache while a journaled staged commit runs (a cache_size,
 * negative: KiB).  The new chunks' pages only pass through it, each spill
 * writing them out in order as the commit would; its default of 2,000 KiB
 * grew the heap by 4 KiB pages, each a fault on first touch, 500 of the
 * 1,400 faults of an 81 K-key import (perf record -e page-faults), and a
 * fault costs about 10 us on this project's VM (a paravirtualized guest).
 * With 256 KiB: 910 faults, and 995 pwrite() calls instead of 873 (the
 * spills break a few 64 KiB blocks).  Whole imports against 2,000 KiB,
 * CPU per record, medians of 15 interleaved rounds: z81K.oracle 13.4 ->
 * 13.1 ns (ratio 0.957), z81K.u32be 9.9 -> 9.1 (0.931, every round
 * below 1), z763K.u32be 14.7 -> 14.2 (0.964); of 9: z763K.oracle 0.972,
 * z3.7M.oracle 0.967, z3.7M.u32be 0.975.  The stored bytes are the same.
 */
#define STAGE_CACHE		"-256"

/* The journal mode that a "PRAGMA main.journal_mode ..." statement answers, in @mode. */
static void journal_mode(struct hs_store *st, const char *sql, char *mode, size_t len)
{
	sqlite3_stmt *s = NULL;

	mode[0] = '\0';
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		store_copy_col(mode, len, s, 0);
	sqlite3_finalize(s);
}

/* Switch to a rollback journal for a staged commit.  Return: whether it did. */
static bool stage_journal_begin(struct hs_session_writer *w)
{
	struct hs_store *st = w->st;
	char mode[16];

	if (w->stage_off < STAGE_JOURNAL_MIN || w->stage_off > STAGE_JOURNAL_MAX)
		return false;
	journal_mode(st, "PRAGMA main.journal_mode", mode, sizeof(mode));
	if (strcmp(mode, "wal"))
		return false;	/* an in-memory database, or a mode this code did not set */
	journal_mode(st, "PRAGMA main.journal_mode = DELETE", mode, sizeof(mode));
	if (strcmp(mode, "delete"))
		return false;	/* another connection has the file open */
	if (store_exec(st, "PRAGMA main.synchronous = FULL")) {
		journal_mode(st, "PRAGMA main.journal_mode = WAL", mode, sizeof(mode));
		return false;
	}
	if (!store_query_int(st, "PRAGMA main.cache_size", &w->cache_kept) && w->cache_kept &&
	    store_exec(st, "PRAGMA main.cache_size = " STAGE_CACHE))
		w->cache_kept = 0;
	return true;
}

/*
 * Back to WAL mode after a commit or rollback that stage_journal_begin()
 * switched, and to the page cache's size before it.
 */
static void stage_journal_end(struct hs_session_writer *w)
{
	struct hs_store *st = w->st;
	char keep[sizeof(st->errmsg)], mode[16], sql[64];

	memcpy(keep, st->errmsg, sizeof(keep));
	journal_mode(st, "PRAGMA main.journal_mode = WAL", mode, sizeof(mode));
	store_exec(st, "PRAGMA main.synchronous = NORMAL");
	if (w->cache_kept) {
		snprintf(sql, sizeof(sql), "PRAGMA main.cache_size = %" PRId64, w->cache_kept);
		store_exec(st, sql);
	}
	memcpy(st->errmsg, keep, sizeof(keep));
}

/*
 * The journaled commit's writes, joined.  SQLite writes every page of the
 * new chunks with its own pwrite() of 4 KiB, in ascending order; ext4 then
 * takes each as a 4 KiB page-cache folio of its own.  26 MiB (an 81 K-key
 * import's chunks) written so took 22-23 ms of CPU and its fdatasync 4-5 ms
 * on this project's VM; in 64 KiB writes at 64 KiB boundaries 9-10 ms and
 * 1.5-2.3 ms (the kernel takes larger folios; 124 KiB writes, not aligned so,
 * 11 ms and 2.2-2.6 ms).  So while the staged commit runs (coalesce_begin()
 * to coalesce_end()), the main database file's methods are swapped for ones
 * that gather contiguous writes within one aligned 64 KiB block and write
 * them as one (the unix VFS writes at most 128 KiB - 1 bytes a call).  Every other method that
 * could observe the file -- a read, its size, a sync, a truncation, a lock
 * change, the shared memory, a mapping, a file control -- writes the buffer
 * out first, so SQLite sees the file it wrote; a write error shows at that
 * call instead (the commit's sync, at the latest: it fails as the write
 * would have).  Only the writes' sizes change, not the bytes: the file is
 * the same.  One file at a time per process (coalesce.busy); another
 * commit meanwhile writes as before.  The commit of an 81 K-key import:
 * 6,369 pwrite() calls -> 873.  With the fresh-file schema script, whole
 * imports into a new database against main (c50b0a5), CPU ns a record,
 * 11 interleaved rounds, medians: oracle 24.4 -> 22.0, 29.1 -> 23.6,
 * 37.3 -> 35.8 at 81 K, 763 K and 3.7 M keys; u32be 18.6 -> 15.3, 25.6 ->
 * 23.4, 33.4 -> 32.8; system time 0.6-1.8 ns of that.
 */
#define COALESCE_BYTES	(64u << 10)	/* a power of two */

static struct {
	int			busy;		/* taken (atomic) */
	sqlite3_file		*file;		/* the main database file, methods swapped */
	const sqlite3_io_methods *orig;		/* its own methods */
	sqlite3_io_methods	methods;	/* *orig with the ones below */
	unsigned char		*buf;		/* COALESCE_BYTES, for one aligned block */
	size_t			len;		/* bytes gathered */
	sqlite3_int64		off;		/* their offset in the file */
} coalesce;

static int co_flush(sqlite3_file *f)
{
	size_t len = coalesce.len;

	if (!len)
		return SQLITE_OK;
	coalesce.len = 0;
	return coalesce.orig->xWrite(f, coalesce.buf, (int)len, coalesce.off);
}

static int co_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 ofs)
{
	size_t n = (size_t)amt;
	int rc;

	if (coalesce.len && ofs == coalesce.off + (sqlite3_int64)coalesce.len &&
	    (uint64_t)(ofs - 1 + amt) / COALESCE_BYTES == (uint64_t)coalesce.off / COALESCE_BYTES) {
		memcpy(coalesce.buf + coalesce.len, buf, n);
		coalesce.len += n;
		return SQLITE_OK;
	}
	rc = co_flush(f);
	if (rc != SQLITE_OK)
		return rc;
	if (amt <= 0 || ofs < 0 || (uint64_t)ofs % COALESCE_BYTES + n > COALESCE_BYTES)
		return coalesce.orig->xWrite(f, buf, amt, ofs);
	memcpy(coalesce.buf, buf, n);
	coalesce.off = ofs;
	coalesce.len = n;
	return SQLITE_OK;
}

/* The methods that flush first, then do what the file's own do. */
#define CO_FLUSH_RC(f) do { int rc_ = co_flush(f); if (rc_ != SQLITE_OK) return rc_; } while (0)

static int co_close(sqlite3_file *f)
{
	const sqlite3_io_methods *orig = coalesce.orig;
	int rc = co_flush(f), rc2;

	/* not expected while coalescing, but then the file goes back to its own methods */
	f->pMethods = orig;
	coalesce.file = NULL;
	rc2 = orig->xClose(f);
	return rc != SQLITE_OK ? rc : rc2;
}

static int co_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 ofs)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xRead(f, buf, amt, ofs);
}

static int co_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xTruncate(f, size);
}

static int co_sync(sqlite3_file *f, int flags)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xSync(f, flags);
}

static int co_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xFileSize(f, size);
}

static int co_lock(sqlite3_file *f, int lock)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xLock(f, lock);
}

static int co_unlock(sqlite3_file *f, int lock)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xUnlock(f, lock);
}

static int co_file_control(sqlite3_file *f, int op, void *arg)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xFileControl(f, op, arg);
}

static int co_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xShmMap(f, pg, pgsz, extend, pp);
}

static int co_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xShmLock(f, offset, n, flags);
}

static void co_shm_barrier(sqlite3_file *f)
{
	(void)co_flush(f);	/* an error shows at the next call that returns one */
	coalesce.orig->xShmBarrier(f);
}

static int co_shm_unmap(sqlite3_file *f, int del)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xShmUnmap(f, del);
}

static int co_fetch(sqlite3_file *f, sqlite3_int64 ofs, int amt, void **pp)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xFetch(f, ofs, amt, pp);
}

static int co_unfetch(sqlite3_file *f, sqlite3_int64 ofs, void *p)
{
	CO_FLUSH_RC(f);
	return coalesce.orig->xUnfetch(f, ofs, p);
}

/*
 * Gather @st's main database file's writes from now on, if no other file's
 * are.  Return: whether it does (then coalesce_end() must follow).
 */
static bool coalesce_begin(struct hs_store *st)
{
	sqlite3_io_methods *m = &coalesce.methods;
	sqlite3_file *f = NULL;

	if (__atomic_exchange_n(&coalesce.busy, 1, __ATOMIC_ACQUIRE))
		return false;
	if (sqlite3_file_control(st->db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
	    !f || !f->pMethods || f->pMethods->iVersion < 1 ||
	    !(coalesce.buf = malloc(COALESCE_BYTES))) {
		__atomic_store_n(&coalesce.busy, 0, __ATOMIC_RELEASE);
		return false;
	}
	coalesce.orig = f->pMethods;
	coalesce.len = 0;
	*m = *f->pMethods;
	m->xClose = co_close;
	m->xRead = co_read;
	m->xWrite = co_write;
	m->xTruncate = co_truncate;
	m->xSync = co_sync;
	m->xFileSize = co_file_size;
	m->xLock = co_lock;
	m->xUnlock = co_unlock;
	m->xFileControl = co_file_control;
	if (m->iVersion >= 2) {
		m->xShmMap = m->xShmMap ? co_shm_map : NULL;
		m->xShmLock = m->xShmLock ? co_shm_lock : NULL;
		m->xShmBarrier = m->xShmBarrier ? co_shm_barrier : NULL;
		m->xShmUnmap = m->xShmUnmap ? co_shm_unmap : NULL;
	}
	if (m->iVersion >= 3) {
		m->xFetch = m->xFetch ? co_fetch : NULL;
		m->xUnfetch = m->xUnfetch ? co_unfetch : NULL;
	}
	coalesce.file = f;
	f->pMethods = m;
	return true;
}

/*
 * After coalesce_begin(), back to the file's own methods (after the commit
 * or its rollback, each of which synced: nothing is gathered then).
 * Return: 0, or -EIO if writing what was gathered failed.
 */
static int coalesce_end(struct hs_store *st)
{
	sqlite3_file *f = coalesce.file;
	int rc = SQLITE_OK;

	if (f) {	/* NULL: the file was closed meanwhile (co_close()) */
		rc = co_flush(f);
		f->pMethods = coalesce.orig;
		coalesce.file = NULL;
	}
	free(coalesce.buf);
	coalesce.buf = NULL;
	__atomic_store_n(&coalesce.busy, 0, __ATOMIC_RELEASE);
	return rc == SQLITE_OK ? 0 : store_err(st, -EIO, "writing the database: %s",
					       sqlite3_errstr(rc));
}

/*
 * The write transaction of a staged session: its row (started when
 * hs_session_begin() ran) and its staged chunks.
 */
static int stage_commit(struct hs_session_writer *w)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int rc, err;

	w->journal = stage_journal_begin(w);
	if (w->journal)
		w->coalesced = coalesce_begin(st);
	err = store_run_id(st, ST_BEGIN);
	if (!err)
		err = insert_session(w, &w->sm);
	if (err)
		return err;
	rc = sqlite3_prepare_v2(st->db, "UPDATE sessions SET started = ?2 WHERE id = ?1;", -1,
				&s, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, w->session);
		sqlite3_bind_text(s, 2, w->started, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE && rc != SQLITE_OK)
		return store_sql_err(st, rc);
	err = store_stmt(st, ST_CHUNK_INSERT, &s);
	for (size_t i = 0; !err && i < w->stage_n; i++) {
		const struct stage_chunk *c = &w->stage[i];
		const uint8_t *blob = c->mem ? c->mem : w->enc;

		err = c->mem ? 0 : stage_read(w, w->enc, c->len, c->off);
		if (err)
			break;
		sqlite3_bind_int64(s, 1, w->session);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)c->first_seq);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)c->nr_records);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)c->nr_accesses);
		sqlite3_bind_int(s, 6, c->encoding);
		sqlite3_bind_blob(s, 7, blob, (int)c->len, SQLITE_STATIC);
		err = store_run(st, s);
	}
	return err;
}

/**
 * hs_session_begin() - start writing a session
 * @st: the store (not read-only)
 * @m: what the session is; source is required, NULL unit/kind/channel mean
 *     "page", "file" and "pt", NULL params "{}"; with m->id set, NULL or
 *     empty fields keep what the row has
 * @out: the writer
 *
 * Opens the transaction (BEGIN IMMEDIATE).  Without m->id it inserts the
 * sessions row with status 'writing'; with m->id it takes over that row,
 * which hs_record_create() made in status 'recording', and updates it.
 * With m->staged (new sessions only) it takes no lock: the records are
 * encoded into a temporary table, and hs_session_commit() opens the
 * transaction and writes the row and the chunks.
 * Nothing is visible to others before the commit.
 *
 * Return: 0, -EINVAL (bad meta, or session m->id is not in status
 * 'recording'), -ENOENT (no session m->id), -EPERM (read-only store),
 * -EBUSY (another write in progress on @st, or the file is locked),
 * -ENOMEM, or -EIO.
 */
int hs_session_begin(struct hs_store *st, const struct hs_session_meta *m,
		     struct hs_session_writer **out)
{
	struct hs_session_writer *w;
	int err;

	*out = NULL;
	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	if (st->writing)
		return store_err(st, -EBUSY, "another write is in progress");
	if (!m || !m->source || !*m->source)
		return store_err(st, -EINVAL, "session has no source");
	if (m->status && !store_status_valid(m->status))
		return store_err(st, -EINVAL, "bad session status '%s'", m->status);
	if (m->id < 0)
		return store_err(st, -EINVAL, "bad session id %lld", (long long)m->id);
	if (m->staged && m->id)
		return store_err(st, -EINVAL, "a recording cannot be staged");
	w = calloc(1, sizeof(*w));
	if (!w)
		return store_err(st, -ENOMEM, "out of memory");
	w->st = st;
	w->stage_fd = -1;
	snprintf(w->status, sizeof(w->status), "%s", store_or(m->status, "complete"));
	w->raw = malloc(HS_CHUNK_RECORDS * sizeof(*w->raw));
	w->keys = malloc(HS_CHUNK_RECORDS * sizeof(*w->keys));
	w->meta = malloc(HS_CHUNK_RECORDS);
	w->enc = malloc(HS_MAX(hs_codec_ts_bound(HS_CHUNK_RECORDS),
			       hs_codec_ids_bound(HS_KEY_CHUNK_IDS)));
	if (!w->raw || !w->keys || !w->meta || !w->enc ||
	    hs_keymap_new(m->staged ? IMPORT_KEYS_HINT : 0, &w->km)) {
		err = store_err(st, -ENOMEM, "out of memory");
		goto out_free;
	}

	if (m->staged) {
		err = stage_begin(w, m);
		if (err)
			goto out_free;
		st->writing = true;
		*out = w;
		return 0;
	}
	err = store_run_id(st, ST_BEGIN);
	if (err)
		goto out_free;
	st->writing = true;
	err = m->id ? reopen_session(w, m) : insert_session(w, m);
	if (err)
		goto out_rollback;
	*out = w;
	return 0;

out_rollback:
	store_rollback(st);
out_free:
	writer_free(w);
	return err;
}

/*
 * How many of @n meta bytes are accesses, channel FD or PT (0 or 1, so bits
 * 1 and 2 clear), eight at a time: a byte loop was 7 instructions a record.
 */
static uint64_t count_accesses(const uint8_t *meta, size_t n)
{
	uint64_t nacc = 0, x, t;
	size_t i;

	_Static_assert(HS_CH_FD == 0 && HS_CH_PT == 1 && HS_META_CHANNEL_MASK == 7,
		       "an access is a meta byte with bits 1 and 2 clear");
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&x, meta + i, sizeof(x));
		x &= 0x0606060606060606ull;
		/* 1 in each byte that is not an access, then their sum in the top byte */
		t = (x >> 1 | x >> 2) & 0x0101010101010101ull;
		nacc += 8 - ((t * 0x0101010101010101ull) >> 56);
	}
	for (; i < n; i++)
		nacc += (meta[i] & HS_META_CHANNEL_MASK) <= HS_CH_PT;
	return nacc;
}

/* Renumber the buffered records and write them as the next access chunk. */
static int flush_chunk(struct hs_session_writer *w)
{
	struct hs_store *st = w->st;
	uint64_t nacc;
	sqlite3_stmt *s = NULL;
	uint8_t *out;
	size_t len;
	long added;
	int err;

	if (!w->n)
		return 0;
	/* the whole chunk at once: the map prefetches ahead */
	added = hs_keymap_add_many(w->km, w->raw, w->n, w->keys);
	if (added < 0)
		return store_err(st, (int)added, added == -ENOMEM ? "out of memory" :
			       "more than %u distinct keys", (unsigned int)HS_KEYMAP_MAX_KEYS);
	nacc = count_accesses(w->meta, w->n);
	if (w->timed > 0) {
		out = stage_out(w, hs_codec_ts_bound(w->n));
		len = hs_codec_encode_ts(w->keys, w->meta, w->ts, w->n, out);
	} else {
		out = stage_out(w, hs_codec_bound(w->n));
		len = hs_codec_encode(w->keys, w->meta, w->n, out);
	}
	if (w->staged) {
		err = stage_chunk(w, out, len, nacc,
				  w->timed > 0 ? HS_ENC_KEYS_META_TS : HS_ENC_KEYS_META);
	} else {
		err = store_stmt(st, ST_CHUNK_INSERT, &s);
		if (err)
			return err;
		sqlite3_bind_int64(s, 1, w->session);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)w->chunk_no);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)w->records);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)w->n);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)nacc);
		sqlite3_bind_int(s, 6, w->timed > 0 ? HS_ENC_KEYS_META_TS : HS_ENC_KEYS_META);
		sqlite3_bind_blob(s, 7, w->enc, (int)len, SQLITE_STATIC);
		err = store_run(st, s);
	}
	if (err)
		return err;
	w->records += w->n;
	w->accesses += nacc;
	w->chunk_no++;
	w->n = 0;
	return 0;
}

/* What every append checks first: a sticky error, the meta byte, no mixing with timed records. */
static int add_check(struct hs_session_writer *w, uint8_t meta)
{
	if (unlikely(w->err))
		return w->err;
	if (unlikely(!hs_meta_is_valid(meta)))
		return store_err(w->st, -EINVAL, "bad meta byte 0x%02x", meta);
	if (unlikely(w->timed > 0))
		return store_err(w->st, -EINVAL, "a record without a time in a timed session");
	return 0;
}

/**
 * hs_session_add() - append one record
 * @w: the writer
 * @key: original id (renumbered densely here)
 * @meta: channel, type and write bits (access.h)
 *
 * Buffers the record; every HS_CHUNK_RECORDS records the chunk is renumbered
 * and written.
 *
 * Return: 0, -EINVAL (bad meta byte: nothing added), or the error of a failed
 * chunk write (-ENOMEM, -EOVERFLOW for too many distinct keys, -EIO, ...):
 * then every later call fails too and the session can only be aborted.
 */
int hs_session_add(struct hs_session_writer *w, uint64_t key, uint8_t meta)
{
	int err = add_check(w, meta);

	if (unlikely(err))
		return err;
	w->timed = -1;
	w->raw[w->n] = key;
	w->meta[w->n] = meta;
	if (unlikely(++w->n == HS_CHUNK_RECORDS)) {
		w->err = flush_chunk(w);
		return w->err;
	}
	return 0;
}

/**
 * hs_session_add_many() - append records that share one meta byte
 * @w: the writer
 * @keys: original ids (renumbered densely here)
 * @n: their number
 * @meta: channel, type and write bits (access.h) of every one
 *
 * hs_session_add() for each key, with one check and array copies.
 *
 * Return: as hs_session_add(); on a failed chunk write the records after
 * that chunk are not added.
 */
int hs_session_add_many(struct hs_session_writer *w, const uint64_t *keys, size_t n,
			uint8_t meta)
{
	int err = add_check(w, meta);

	while (!err && n) {	/* a chunk's room at a time: hs_session_add_room() */
		uint64_t *room_keys;
		size_t room, take;

		err = hs_session_room(w, &room_keys, &room);
		if (err)
			break;
		take = HS_MIN(n, room);
		memcpy(room_keys, keys, take * sizeof(*keys));
		err = hs_session_add_room(w, take, meta);
		keys += take;
		n -= take;
	}
	return err;
}

/**
 * hs_session_room() - the free part of the chunk being filled, to write keys into
 * @w: the writer
 * @keys: receives where the next record's original id goes
 * @room: receives how many records fit there (at least 1)
 *
 * An import reads its records straight into the chunk, rather than into an
 * array that hs_session_add_many() copies (8 bytes a record).
 *
 * Return: 0, or the writer's sticky error.
 */
int hs_session_room(struct hs_session_writer *w, uint64_t **keys, size_t *room)
{
	if (unlikely(w->err))
		return w->err;
	*keys = w->raw + w->n;
	*room = HS_CHUNK_RECORDS - w->n;
	return 0;
}

/**
 * hs_session_add_room() - append the records written where hs_session_room() said
 * @w: the writer
 * @n: how many (at most the room it gave)
 * @meta: channel, type and write bits (access.h) of every one
 *
 * Return: as hs_session_add_many().
 */
int hs_session_add_room(struct hs_session_writer *w, size_t n, uint8_t meta)
{
	int err = add_check(w, meta);

	if (unlikely(err))
		return err;
	if (unlikely(n > HS_CHUNK_RECORDS - w->n))
		return store_err(w->st, -EINVAL, "%zu records for a room of %zu", n,
				 (size_t)(HS_CHUNK_RECORDS - w->n));
	if (!n)
		return 0;
	w->timed = -1;
	memset(w->meta + w->n, meta, n);
	w->n += n;
	if (w->n == HS_CHUNK_RECORDS)
		w->err = flush_chunk(w);
	return w->err;
}

/**
 * hs_session_keys() - distinct keys renumbered so far
 * @w: the writer
 *
 * Return: their count (the keys of the chunks written; the chunk being
 * filled is renumbered when it is written).
 */
uint64_t hs_session_keys(const struct hs_session_writer *w)
{
	return hs_keymap_count(w->km);
}

/**
 * hs_session_unseen() - how many of @n keys the session has not renumbered yet
 * @w: the writer
 * @keys: original ids (a sample of those to come: hs_trace_sample_keys())
 * @n: their number
 *
 * Return: the count.
 */
uint64_t hs_session_unseen(const struct hs_session_writer *w, const uint64_t *keys, size_t n)
{
	uint64_t fresh = 0;
	uint32_t id;

	for (size_t i = 0; i < n; i++)
		fresh += !hs_keymap_lookup(w->km, keys[i], &id);
	return fresh;
}

/**
 * hs_session_expect_keys() - size the renumbering map for about @keys keys
 * @w: the writer
 * @keys: distinct keys the session is expected to hold in all (an estimate)
 *
 * The map is sized for them at once (hs_keymap_expect()) rather than doubling
 * as they arrive.  A hint: more keys still fit, and a map that cannot grow
 * now grows later as it would have.
 *
 * Return: nothing.
 */
void hs_session_expect_keys(struct hs_session_writer *w, uint64_t keys)
{
	if (!w->err && keys < HS_KEYMAP_MAX_KEYS)
		(void)hs_keymap_expect(w->km, (size_t)keys);
}

/**
 * hs_session_add_ts() - append one record with its time
 * @w: the writer
 * @key: original id (renumbered densely here)
 * @meta: channel, type and write bits (access.h); HS_CH_READAHEAD allowed
 * @ts: the record's time on the trace clock (ns), not before the previous one
 *
 * A session's records either all have times (stored as HS_ENC_KEYS_META_TS,
 * what a recording writes) or none do (hs_session_add()).
 *
 * Return: 0, -EINVAL (bad meta byte, a time before the previous record's, or
 * a session begun without times: nothing added), or as hs_session_add().
 */
int hs_session_add_ts(struct hs_session_writer *w, uint64_t key, uint8_t meta, uint64_t ts)
{
	if (unlikely(w->err))
		return w->err;
	if (unlikely(!hs_meta_is_valid_ts(meta)))
		return store_err(w->st, -EINVAL, "bad meta byte 0x%02x", meta);
	if (unlikely(w->timed <= 0)) {
		if (w->timed < 0)
			return store_err(w->st, -EINVAL, "a timed record in an untimed session");
		w->ts = malloc(HS_CHUNK_RECORDS * sizeof(*w->ts));
		if (!w->ts)
			return store_err(w->st, -ENOMEM, "out of memory");
		w->timed = 1;
	} else if (unlikely(ts < w->last_ts)) {
		return store_err(w->st, -EINVAL, "record time %" PRIu64 " before the previous one",
				 ts);
	}
	w->raw[w->n] = key;
	w->meta[w->n] = meta;
	w->ts[w->n] = ts;
	w->last_ts = ts;
	if (unlikely(++w->n == HS_CHUNK_RECORDS)) {
		w->err = flush_chunk(w);
		return w->err;
	}
	return 0;
}

/* The original ids in dense-id order, as key chunks. */
static int write_keys(struct hs_session_writer *w)
{
	const uint64_t *ids = hs_keymap_ids(w->km);
	uint32_t count = hs_keymap_count(w->km);
	struct hs_store *st = w->st;
	uint64_t first, chunk = 0;
	sqlite3_stmt *s = NULL;
	int err;

	err = store_stmt(st, ST_KEYS_INSERT, &s);
	if (err)
		return err;
	for (first = 0; first < count; first += HS_KEY_CHUNK_IDS, chunk++) {
		size_t n = HS_MIN(count - first, HS_KEY_CHUNK_IDS);
		size_t len = hs_codec_ids_encode(ids + first, n, w->enc);

		sqlite3_bind_int64(s, 1, w->session);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)chunk);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)first);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)n);
		sqlite3_bind_int(s, 5, HS_IDS_DELTA);
		sqlite3_bind_blob(s, 6, w->enc, (int)len, SQLITE_STATIC);
		err = store_run(st, s);
		if (err)
			return err;
	}
	return 0;
}

/**
 * hs_session_commit() - finish a session
 * @w: the writer (freed, even on error)
 * @session: receives the new session's id (may be NULL)
 *
 * Writes the last chunk, the key chunks and the counts, sets the session's
 * status (meta.status, or hs_rec_finish()'s; "complete" by default) and
 * commits.  On any error everything is rolled back.
 *
 * Return: 0 or -errno.
 */
int hs_session_commit(struct hs_session_writer *w, int64_t *session)
{
	struct hs_store *st = w->st;
	sqlite3_stmt *s = NULL;
	int err = w->err;

	if (!err && w->flush)
		err = w->flush(w);	/* the events store-rec.c still buffers */
	if (!err)
		err = flush_chunk(w);
	if (!err && w->staged)
		err = stage_commit(w);
	if (!err)
		err = write_keys(w);
	if (!err)
		err = store_stmt(st, ST_SESSION_FINISH, &s);
	if (!err) {
		sqlite3_bind_int64(s, 1, w->session);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)w->records);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)w->accesses);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)hs_keymap_count(w->km));
		sqlite3_bind_text(s, 5, w->status, -1, SQLITE_STATIC);
		err = store_run(st, s);
	}
	if (!err)
		err = store_run_id(st, ST_COMMIT);
	if (err)
		store_rollback(st);
	if (w->journal) {
		int cerr = w->coalesced ? coalesce_end(st) : 0;

		if (!err && cerr) {
			err = cerr;
			store_rollback(st);
		}
		stage_journal_end(w);
	}
	if (!err) {
		st->writing = false;
		st->kc_chunk = -1;
		if (session)
			*session = w->session;
	}
	writer_free(w);
	return err;
}

/**
 * hs_session_abort() - drop a session being written
 * @w: the writer, or NULL (freed)
 *
 * Rolls the transaction back: no row or chunk of the session remains.  A
 * writer on a recording (meta.id) leaves its row in status 'recording' with
 * its spool and format files, as they were before hs_session_begin().
 *
 * Return: nothing.
 */
void hs_session_abort(struct hs_session_writer *w)
{
	if (!w)
		return;
	store_rollback(w->st);
	writer_free(w);
}

/* ---- reading sessions ---- */

/**
 * store_copy_col() - copy a text column, truncated to fit
 * @dst: receives it ("" for NULL)
 * @len: size of @dst
 * @s: the statement, on a row
 * @col: the column
 *
 * Return: nothing.
 */
void store_copy_col(char *dst, size_t len, sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

/*
 * The counts of a sessions row are trusted for allocations (a replay sizes
 * its per-key state by distinct_keys): check them against each other and
 * against the key table, whose rows hold the session's keys.
 */
static int check_counts(struct hs_store *st, int64_t id, int64_t records, int64_t accesses,
			int64_t keys)
{
	sqlite3_stmt *s = NULL;
	int64_t stored = 0;
	int rc, err = 0;

	if (records < 0 || accesses < 0 || accesses > records)
		return store_err(st, -EBADMSG, "session %lld is corrupt (%lld accesses in %lld"
				 " records)", (long long)id, (long long)accesses,
				 (long long)records);
	if (keys < 0 || keys > records)
		return store_err(st, -EBADMSG, "session %lld is corrupt (%lld distinct keys in"
				 " %lld records)", (long long)id, (long long)keys,
				 (long long)records);
	rc = sqlite3_prepare_v2(st->db, "SELECT coalesce(sum(nr_keys), 0) FROM session_keys"
				" WHERE session = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		stored = sqlite3_column_int64(s, 0);
	else
		err = store_sql_err(st, rc);
	sqlite3_finalize(s);
	/* fewer is caught by the reader, as a key out of range */
	if (!err && keys > stored)
		err = store_err(st, -EBADMSG, "session %lld is corrupt (distinct_keys is %lld, its"
				" key table holds %lld)", (long long)id, (long long)keys,
				(long long)stored);
	return err;
}

/**
 * hs_session_get() - a session's summary
 * @st: the store
 * @id: session id
 * @out: receives it (names truncated to fit)
 *
 * The counts are checked: accesses and distinct_keys cannot exceed records,
 * and distinct_keys cannot exceed the number of keys the key table holds.
 *
 * Return: 0, -ENOENT (no such session), -EBADMSG (counts that cannot be;
 * "session N is corrupt (...)"), or another -errno.
 */
int hs_session_get(struct hs_store *st, int64_t id, struct hs_session_info *out)
{
	sqlite3_stmt *s = NULL;
	int rc, err;

	err = store_stmt(st, ST_SESSION_GET, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		out->id = sqlite3_column_int64(s, 0);
		store_copy_col(out->source, sizeof(out->source), s, 1);
		store_copy_col(out->name, sizeof(out->name), s, 2);
		store_copy_col(out->kind, sizeof(out->kind), s, 3);
		store_copy_col(out->channel, sizeof(out->channel), s, 4);
		store_copy_col(out->unit, sizeof(out->unit), s, 5);
		store_copy_col(out->status, sizeof(out->status), s, 6);
		out->records = (uint64_t)sqlite3_column_int64(s, 7);
		out->accesses = (uint64_t)sqlite3_column_int64(s, 8);
		out->distinct_keys = (uint64_t)sqlite3_column_int64(s, 9);
		store_copy_col(out->visibility, sizeof(out->visibility), s, 10);
		out->memory_limit_pages = (uint64_t)sqlite3_column_int64(s, 11);
		out->peak_pages = (uint64_t)sqlite3_column_int64(s, 12);
		sqlite3_reset(s);
		/* the columns' own int64 values: a negative one is caught */
		return check_counts(st, id, (int64_t)out->records, (int64_t)out->accesses,
				    (int64_t)out->distinct_keys);
	} else if (rc == SQLITE_DONE) {
		err = store_err(st, -ENOENT, "no session %lld", (long long)id);
	} else {
		err = store_sql_err(st, rc);
	}
	sqlite3_reset(s);
	return err;
}

/**
 * hs_session_remove() - delete a session with its accesses, keys and runs
 * @st: the store (not read-only)
 * @id: session id
 *
 * Every table that refers to the session goes with it through ON DELETE
 * CASCADE (foreign keys are on in every connection): the recording, its
 * spool and format files, events, lives, keys, counters, checks, CPU rows
 * and lru_gen snapshots.
 *
 * Return: 0, -ENOENT if there is no such session, -EPERM on a read-only
 * store, or another -errno.
 */
int hs_session_remove(struct hs_store *st, int64_t id)
{
	sqlite3_stmt *s = NULL;
	int err;

	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	err = store_stmt(st, ST_SESSION_DELETE, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, id);
	err = store_run(st, s);
	if (err)
		return err;
	st->kc_chunk = -1;
	if (sqlite3_changes(st->db) == 0)
		return store_err(st, -ENOENT, "no session %lld", (long long)id);
	return 0;
}

/**
 * hs_session_read_open() - start reading a session's access stream
 * @st: the store
 * @id: session id
 * @out: the reader
 *
 * The reader reads inside one read transaction, from its open to its close
 * (unless @st is in a transaction already): it sees the session as it was
 * at the open, chunk after chunk, even when another process deletes or
 * changes it meanwhile.  Close the reader before writing through @st.
 *
 * Return: 0, -ENOENT (no such session), -ENOMEM, or another -errno.
 */
int hs_session_read_open(struct hs_store *st, int64_t id, struct hs_session_reader **out)
{
	struct hs_session_info info;
	struct hs_session_reader *r;
	int rc, err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return store_err(st, -ENOMEM, "out of memory");
	r->st = st;
	r->session = id;
	if (sqlite3_get_autocommit(st->db)) {
		err = store_exec(st, "BEGIN DEFERRED");
		if (err)
			goto out_free;
		r->tx = true;
	}
	/* the session's counts come from the same snapshot as its chunks */
	err = hs_session_get(st, id, &info);
	if (err)
		goto out_free;
	r->records = info.records;
	r->accesses = info.accesses;
	r->nr_keys = info.distinct_keys;
	r->keys = malloc(HS_CHUNK_RECORDS * sizeof(*r->keys));
	r->meta = malloc(HS_CHUNK_RECORDS);
	if (!r->keys || !r->meta) {
		err = store_err(st, -ENOMEM, "out of memory");
		goto out_free;
	}
	rc = sqlite3_prepare_v3(st->db,
				"SELECT first_seq, nr_records, nr_accesses, encoding, data"
				" FROM access_chunks WHERE session = ?1 AND chunk_no = ?2", -1,
				SQLITE_PREPARE_PERSISTENT, &r->stmt, NULL);
	if (rc != SQLITE_OK) {
		err = store_sql_err(st, rc);
		goto out_free;
	}
	sqlite3_bind_int64(r->stmt, 1, id);
	st->read_session = id;
	*out = r;
	return 0;

out_free:
	hs_session_read_close(r);
	return err;
}

static int corrupt(struct hs_session_reader *r, const char *why)
{
	return store_err(r->st, -EBADMSG, "session %lld: access chunk %llu is corrupt (%s)",
		       (long long)r->session, (unsigned long long)r->chunk_no, why);
}

/**
 * hs_session_read_chunk() - the next chunk of the stream
 * @r: the reader
 * @keys: receives the chunk's dense key ids
 * @meta: receives its meta bytes
 * @n: receives its number of records
 *
 * Everything is checked against the sessions row: chunk numbering, sequence
 * numbers, record and access counts, key range.
 *
 * Return: 1 with @keys, @meta and @n set (valid until the next call), 0 at
 * the end, or -errno (-EBADMSG: a missing or corrupt chunk).
 */
int hs_session_read_chunk(struct hs_session_reader *r, const uint32_t **keys,
			  const uint8_t **meta, size_t *n)
{
	int64_t first_seq, nr, nacc, enc;
	const char *why = NULL;
	const void *blob;
	uint64_t acc;
	int rc, len, err;

	if (r->seq >= r->records)
		return 0;
	sqlite3_bind_int64(r->stmt, 2, (sqlite3_int64)r->chunk_no);
	rc = sqlite3_step(r->stmt);
	if (rc != SQLITE_ROW) {
		err = rc == SQLITE_DONE ? corrupt(r, "missing") : store_sql_err(r->st, rc);
		sqlite3_reset(r->stmt);
		return err;
	}
	first_seq = sqlite3_column_int64(r->stmt, 0);
	nr = sqlite3_column_int64(r->stmt, 1);
	nacc = sqlite3_column_int64(r->stmt, 2);
	enc = sqlite3_column_int64(r->stmt, 3);
	blob = sqlite3_column_blob(r->stmt, 4);
	len = sqlite3_column_bytes(r->stmt, 4);
	if (first_seq < 0 || (uint64_t)first_seq != r->seq)
		err = corrupt(r, "wrong first_seq");
	else if (nr <= 0 || nr > (int64_t)HS_CHUNK_RECORDS || (uint64_t)nr > r->records - r->seq)
		err = corrupt(r, "wrong nr_records");
	else if (enc < 0 || enc > 255)
		err = corrupt(r, "unknown chunk encoding");
	else if (r->chunk_no && enc != r->enc0)
		err = corrupt(r, "encoding differs from chunk 0's");
	else if (enc == HS_ENC_KEYS_META_TS && !r->ts &&
		 !(r->ts = malloc(HS_CHUNK_RECORDS * sizeof(*r->ts))))
		err = store_err(r->st, -ENOMEM, "out of memory");
	else if (hs_codec_decode_ts(blob, (size_t)len, (unsigned int)enc, (size_t)nr,
				    r->nr_keys, r->keys, r->meta, r->ts, &acc, &why))
		err = corrupt(r, why);
	else if (acc != (uint64_t)nacc)
		err = corrupt(r, "wrong nr_accesses");
	else if (enc == HS_ENC_KEYS_META_TS && r->ts[0] < r->last_ts)
		err = corrupt(r, "time before the previous chunk's");
	else
		err = 0;
	sqlite3_reset(r->stmt);
	if (err)
		return err;
	if (!r->chunk_no)
		r->enc0 = enc;
	r->timed = enc == HS_ENC_KEYS_META_TS;
	if (r->timed)
		r->last_ts = r->ts[nr - 1];
	r->seq += (uint64_t)nr;
	r->acc_seen += acc;
	r->chunk_no++;
	if (r->seq == r->records && r->acc_seen != r->accesses)
		return store_err(r->st, -EBADMSG, "session %lld: %llu accesses stored, %llu"
			       " expected", (long long)r->session,
			       (unsigned long long)r->acc_seen, (unsigned long long)r->accesses);
	*keys = r->keys;
	*meta = r->meta;
	*n = (size_t)nr;
	return 1;
}

/**
 * hs_session_read_times() - the times of the chunk read last
 * @r: the reader
 *
 * Return: the trace-clock times (ns) of the records hs_session_read_chunk()
 * returned last, valid as long as they are, or NULL when the session has
 * none (only recorded sessions have them).
 */
const uint64_t *hs_session_read_times(const struct hs_session_reader *r)
{
	return r->timed ? r->ts : NULL;
}

/*
 * The rest of @r's stream into @keys and @meta (NULL: dropped), which have
 * room for @room records, and its times into *@ts, allocated on the first
 * timed chunk (@ts NULL: dropped).  More records than @room is -EBADMSG;
 * with @accesses_only, a record that is no access (a hint, a drop) is
 * -EOPNOTSUPP.
 */
static int64_t read_rest(struct hs_session_reader *r, uint32_t *keys, uint8_t *meta,
			 uint64_t **ts, uint64_t room, bool accesses_only)
{
	const uint32_t *k;
	const uint8_t *m;
	uint64_t at = 0;
	size_t n;
	int ret;

	while ((ret = hs_session_read_chunk(r, &k, &m, &n)) > 0) {
		const uint64_t *t = hs_session_read_times(r);

		if (n > room - at)
			return store_err(r->st, -EBADMSG, "session %lld holds more than %llu records",
					 (long long)r->session, (unsigned long long)room);
		for (size_t i = 0; accesses_only && i < n; i++)
			if (!hs_channel_is_access(hs_meta_channel(m[i])))
				return -EOPNOTSUPP;
		memcpy(keys + at, k, n * sizeof(*keys));
		if (meta)
			memcpy(meta + at, m, n);
		if (ts && t) {
			if (!*ts && !(*ts = malloc((size_t)room * sizeof(**ts))))
				return -ENOMEM;
			memcpy(*ts + at, t, n * sizeof(**ts));
		}
		at += n;
	}
	return ret < 0 ? ret : (int64_t)at;
}

/**
 * hs_session_read_keys() - the rest of a session's keys into the caller's array
 * @r: the reader
 * @keys: room for @room key ids
 * @room: at least what is left of the stream
 *
 * For a caller that allocates the array its own way (hsctl mrc: huge pages)
 * and needs no meta bytes, so every record must be an access.
 *
 * Return: the records read, -EBADMSG when more than @room are left,
 * -EOPNOTSUPP at a record that is no access, or the reader's -errno.
 */
int64_t hs_session_read_keys(struct hs_session_reader *r, uint32_t *keys, uint64_t room)
{
	return read_rest(r, keys, NULL, NULL, room, true);
}

/**
 * hs_session_read_all_ts() - the rest of a session's stream in memory, with times
 * @r: the reader
 * @keys: receives the key ids, one per record (free it)
 * @meta: receives the meta bytes (free it), or NULL to drop them
 * @ts: receives the times (free it; NULL when the session has none), or NULL
 *	to drop them
 *
 * The reader's checks hold for every chunk, so the count read is exactly
 * what the session row says is left; a corrupt stream is -EBADMSG with the
 * store's message.
 *
 * Return: the records read, -ENOMEM, or the reader's -errno.
 */
int64_t hs_session_read_all_ts(struct hs_session_reader *r, uint32_t **keys, uint8_t **meta,
			       uint64_t **ts)
{
	uint64_t left = r->records - r->seq;
	uint32_t *all_keys;
	uint8_t *all_meta = NULL;
	uint64_t *all_ts = NULL;
	int64_t got;

	*keys = NULL;
	if (meta)
		*meta = NULL;
	if (ts)
		*ts = NULL;
	if (left > SIZE_MAX / sizeof(*all_ts))
		return -ENOMEM;
	all_keys = malloc((size_t)(left ? left : 1) * sizeof(*all_keys));
	if (meta)
		all_meta = malloc((size_t)(left ? left : 1));
	if (!all_keys || (meta && !all_meta)) {
		got = -ENOMEM;
		goto out_free;
	}
	got = read_rest(r, all_keys, all_meta, ts ? &all_ts : NULL, left, false);
	if (got < 0)
		goto out_free;
	*keys = all_keys;
	if (meta)
		*meta = all_meta;
	if (ts)
		*ts = all_ts;
	return got;

out_free:
	free(all_keys);
	free(all_meta);
	free(all_ts);
	return got;
}

/**
 * hs_session_read_all() - the rest of a session's stream in memory
 * @r: the reader
 * @keys: receives the key ids, one per record (free it)
 * @meta: receives the meta bytes (free it), or NULL to drop them
 *
 * hs_session_read_all_ts() without the times.
 *
 * Return: the records read, -ENOMEM, or the reader's -errno.
 */
int64_t hs_session_read_all(struct hs_session_reader *r, uint32_t **keys, uint8_t **meta)
{
	return hs_session_read_all_ts(r, keys, meta, NULL);
}

/**
 * hs_session_read_rewind() - start again from the first chunk
 * @r: the reader
 *
 * Return: 0.
 */
int hs_session_read_rewind(struct hs_session_reader *r)
{
	r->chunk_no = 0;
	r->seq = 0;
	r->acc_seen = 0;
	r->timed = false;
	r->last_ts = 0;
	return 0;
}

/**
 * hs_session_read_close() - release a reader, ending its read transaction
 * @r: the reader, or NULL
 *
 * Return: nothing.
 */
void hs_session_read_close(struct hs_session_reader *r)
{
	char keep[sizeof(r->st->errmsg)];

	if (!r)
		return;
	sqlite3_finalize(r->stmt);
	if (r->tx && !sqlite3_get_autocommit(r->st->db)) {
		/* ends the read transaction; keeps the message of a failed read */
		memcpy(keep, r->st->errmsg, sizeof(keep));
		sqlite3_exec(r->st->db, "COMMIT", NULL, NULL, NULL);
		memcpy(r->st->errmsg, keep, sizeof(keep));
	}
	free(r->keys);
	free(r->meta);
	free(r->ts);
	free(r);
}

/*
 * SQL function hs_key(session, key): the original id of dense key @key, or
 * NULL if the session has no such key.  Decodes one key chunk and keeps it for
 * the next call, so a scan over a query's rows decodes each chunk about once.
 */
static void key_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct hs_store *st = sqlite3_user_data(ctx);
	int64_t session, key, chunk;
	const char *why = NULL;
	sqlite3_stmt *s = NULL;
	int rc;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;			/* NULL */
	session = sqlite3_value_int64(argv[0]);
	key = sqlite3_value_int64(argv[1]);
	if (key < 0)
		return;
	chunk = key / HS_KEY_CHUNK_IDS;
	if (st->kc_chunk != chunk || st->kc_session != session) {
		int64_t first, n, enc;

		st->kc_chunk = -1;
		if (!st->kc_ids) {
			st->kc_ids = malloc(HS_KEY_CHUNK_IDS * sizeof(*st->kc_ids));
			if (!st->kc_ids) {
				sqlite3_result_error_nomem(ctx);
				return;
			}
		}
		if (store_stmt(st, ST_KEYS_GET, &s)) {
			sqlite3_result_error(ctx, st->errmsg, -1);
			return;
		}
		sqlite3_bind_int64(s, 1, session);
		sqlite3_bind_int64(s, 2, chunk);
		rc = sqlite3_step(s);
		if (rc == SQLITE_DONE) {
			sqlite3_reset(s);
			return;		/* NULL */
		}
		if (rc != SQLITE_ROW) {
			sqlite3_reset(s);
			sqlite3_result_error_code(ctx, rc);
			return;
		}
		first = sqlite3_column_int64(s, 0);
		n = sqlite3_column_int64(s, 1);
		enc = sqlite3_column_int64(s, 2);
		if (first != chunk * HS_KEY_CHUNK_IDS || n <= 0 || n > (int64_t)HS_KEY_CHUNK_IDS ||
		    enc < 0 || enc > 255 ||
		    hs_codec_ids_decode(sqlite3_column_blob(s, 3),
					(size_t)sqlite3_column_bytes(s, 3), (unsigned int)enc,
					(size_t)n, st->kc_ids, &why)) {
			sqlite3_reset(s);
			sqlite3_result_error(ctx, "hs_key: corrupt key chunk", -1);
			return;
		}
		sqlite3_reset(s);
		st->kc_session = session;
		st->kc_chunk = chunk;
		st->kc_n = (size_t)n;
	}
	if ((uint64_t)(key - chunk * HS_KEY_CHUNK_IDS) >= st->kc_n)
		return;			/* NULL */
	sqlite3_result_int64(ctx, (sqlite3_int64)st->kc_ids[key - chunk * HS_KEY_CHUNK_IDS]);
}

/*
 * SQL hs_evictions(encoding, first_pos, nr_evictions, data): one run_evictions
 * chunk decoded into a JSON array of [position, key, hinted] triples, in
 * order, for json_each() (v_evictions).  A chunk that does not decode is an
 * SQL error naming the reason, never a partial answer; NULL gives NULL.
 */
static void evictions_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *why = "bad chunk header";
	int64_t enc, first, n;
	uint64_t *pos = NULL;
	uint32_t *keys = NULL;
	uint8_t *hinted = NULL;
	sqlite3_str *out;
	char msg[96];

	(void)argc;
	for (int i = 0; i < 4; i++)
		if (sqlite3_value_type(argv[i]) == SQLITE_NULL)
			return;		/* NULL */
	enc = sqlite3_value_int64(argv[0]);
	first = sqlite3_value_int64(argv[1]);
	n = sqlite3_value_int64(argv[2]);
	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[1]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[2]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[3]) != SQLITE_BLOB || enc < 0 || enc > 255 || first < 0 ||
	    n <= 0 || n > (int64_t)HS_EVLOG_CHUNK)
		goto bad;
	pos = malloc((size_t)n * sizeof(*pos));
	keys = malloc((size_t)n * sizeof(*keys));
	hinted = malloc((size_t)n);
	if (!pos || !keys || !hinted) {
		sqlite3_result_error_nomem(ctx);
		goto out;
	}
	if (hs_codec_evict_decode(sqlite3_value_blob(argv[3]),
				  (size_t)sqlite3_value_bytes(argv[3]), (unsigned int)enc,
				  (uint64_t)first, (size_t)n, pos, keys, hinted, &why))
		goto bad;
	out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	sqlite3_str_appendchar(out, 1, '[');
	for (int64_t i = 0; i < n; i++)
		sqlite3_str_appendf(out, "%s[%llu,%u,%u]", i ? "," : "",
				    (unsigned long long)pos[i], keys[i], hinted[i]);
	sqlite3_str_appendchar(out, 1, ']');
	if (sqlite3_str_errcode(out)) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error_nomem(ctx);
		goto out;
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
	goto out;
bad:
	snprintf(msg, sizeof(msg), "hs_evictions: corrupt eviction chunk: %s", why);
	sqlite3_result_error(ctx, msg, -1);
out:
	free(pos);
	free(keys);
	free(hinted);
}

/* ---- runs ---- */

/*
 * The OPT gap.  A run's opt_gap is its misses divided by the misses of the
 * reference run: the newest demand-paging OPT run (runs.opt_reference) of the
 * same session at the same capacity.  Demand-paging OPT, not the bypass
 * variant, because every other policy must cache each page it misses: OPT
 * with bypass plays by other rules, and a policy's distance to it mixes the
 * choice of victim with the choice not to cache.  0 / 0 is 1 (as good as
 * OPT); no reference, or a reference without misses, gives NULL.  This is the
 * one definition: the store keeps runs.opt_gap up to date with it whenever
 * runs are stored (an OPT run stored later updates the runs before it), and
 * hs_store_opt_gaps() applies it to runs not stored.
 */
struct gap_run {
	int64_t		id;		/* runs.id; stored runs first, oldest first */
	int64_t		capacity;
	int64_t		misses;
	bool		reference;	/* runs.opt_reference */
	bool		had_gap;	/* stored opt_gap was not NULL */
	double		old_gap;	/* ... and its value */
	double		gap;		/* the gap by the definition; NAN for NULL */
};

/* Is @rr a run of demand-paging OPT (the reference of opt_gap)? */
static bool run_is_opt_reference(const struct hs_run_record *rr)
{
	bool bypass = false;

	if (strcmp(rr->policy, "opt"))
		return false;
	/* no typed set (or no such parameter): the demand variant */
	if (rr->params && hs_param_find_bool(rr->params, "bypass", &bypass))
		bypass = false;
	return !bypass;
}

/* Fill r[i].gap for every run of @r (in store order) by the definition above. */
static void compute_opt_gaps(struct gap_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = n;

		while (k-- > 0)
			if (r[k].reference && r[k].capacity == r[i].capacity)
				break;
		if (k == (size_t)-1)
			r[i].gap = NAN;
		else if (r[k].misses)
			r[i].gap = (double)r[i].misses / (double)r[k].misses;
		else
			r[i].gap = r[i].misses ? NAN : 1.0;
	}
}

/* The runs of @session, oldest first, with room for @extra more; the caller frees *out. */
static int load_gap_runs(struct hs_store *st, int64_t session, struct gap_run **out,
			 size_t *n, size_t extra)
{
	sqlite3_stmt *s = NULL;
	struct gap_run *r = NULL;
	size_t cap = 0, nr = 0;
	int rc;

	rc = sqlite3_prepare_v2(st->db, "SELECT id, capacity, misses, opt_reference, opt_gap"
				" FROM runs WHERE session = ?1 ORDER BY id", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	sqlite3_bind_int64(s, 1, session);
	for (;;) {
		rc = sqlite3_step(s);
		if (rc != SQLITE_ROW)
			break;
		if (nr + extra >= cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct gap_run *nrr;

			while (nc < nr + extra + 1)
				nc *= 2;
			nrr = realloc(r, nc * sizeof(*r));
			if (!nrr) {
				sqlite3_finalize(s);
				free(r);
				return -ENOMEM;
			}
			r = nrr;
			cap = nc;
		}
		r[nr++] = (struct gap_run){
			.id = sqlite3_column_int64(s, 0),
			.capacity = sqlite3_column_int64(s, 1),
			.misses = sqlite3_column_int64(s, 2),
			.reference = sqlite3_column_int(s, 3) != 0,
			.had_gap = sqlite3_column_type(s, 4) != SQLITE_NULL,
			.old_gap = sqlite3_column_double(s, 4),
		};
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(r);
		return store_sql_err(st, rc);
	}
	if (!r && extra) {
		r = calloc(extra, sizeof(*r));
		if (!r)
			return -ENOMEM;
	}
	*out = r;
	*n = nr;
	return 0;
}

/* Store the gap of every run of @r[0..n) whose stored value differs. */
static int write_opt_gaps(struct hs_store *st, const struct gap_run *r, size_t n)
{
	sqlite3_stmt *s = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, "UPDATE runs SET opt_gap = ?2 WHERE id = ?1", -1, &s,
				NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	for (size_t i = 0; i < n && !err; i++) {
		bool has = !isnan(r[i].gap);

		if (has == r[i].had_gap && (!has || r[i].gap == r[i].old_gap))
			continue;
		sqlite3_bind_int64(s, 1, r[i].id);
		if (has)
			sqlite3_bind_double(s, 2, r[i].gap);
		else
			sqlite3_bind_null(s, 2);
		rc = sqlite3_step(s);
		if (rc != SQLITE_DONE)
			err = store_sql_err(st, rc);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return err;
}

/*
 * Bring runs.opt_gap of @session (every session if < 0) up to date, inside
 * the caller's transaction.
 */
static int refresh_opt_gaps(struct hs_store *st, int64_t session)
{
	struct gap_run *r = NULL;
	sqlite3_stmt *s = NULL;
	size_t n = 0;
	int rc, err;

	if (session < 0) {
		rc = sqlite3_prepare_v2(st->db, "SELECT DISTINCT session FROM runs"
					" ORDER BY session", -1, &s, NULL);
		if (rc != SQLITE_OK)
			return store_sql_err(st, rc);
		/* the UPDATEs only touch opt_gap, not what this statement reads */
		err = 0;
		while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW)
			err = refresh_opt_gaps(st, sqlite3_column_int64(s, 0));
		if (!err && rc != SQLITE_DONE)
			err = store_sql_err(st, rc);
		sqlite3_finalize(s);
		return err;
	}
	err = load_gap_runs(st, session, &r, &n, 0);
	if (!err) {
		compute_opt_gaps(r, n);
		err = write_opt_gaps(st, r, n);
	}
	free(r);
	return err;
}

/**
 * hs_store_opt_gaps() - the OPT gap of runs not stored
 * @st: the store (may be read-only)
 * @runs: runs of one session, as they would be stored (all of the same session)
 * @n: their number
 * @gaps: receives run i's gap in gaps[i], NAN where there is none
 *
 * The value runs.opt_gap would hold if @runs were stored now, after the
 * session's stored runs (see hsctl-db(5)): for `hsctl replay --no-store`.
 *
 * Return: 0 or -errno.
 */
int hs_store_opt_gaps(struct hs_store *st, const struct hs_run_record *runs, size_t n,
		      double *gaps)
{
	struct gap_run *r = NULL;
	size_t nr = 0, i;
	int err;

	if (!n)
		return 0;
	err = load_gap_runs(st, runs[0].session, &r, &nr, n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		r[nr + i] = (struct gap_run){
			.capacity = (int64_t)runs[i].stats->capacity,
			.misses = (int64_t)runs[i].stats->misses,
			.reference = run_is_opt_reference(&runs[i]),
		};
	compute_opt_gaps(r, nr + n);
	for (i = 0; i < n; i++)
		gaps[i] = r[nr + i].gap;
	free(r);
	return 0;
}

/**
 * hs_store_run_opt_gaps() - read back the stored OPT gap of runs
 * @st: the store
 * @ids: run ids
 * @n: their number
 * @gaps: receives runs.opt_gap of run ids[i] in gaps[i], NAN for NULL
 *
 * Return: 0, -ENOENT if a run is not stored, or -errno.
 */
int hs_store_run_opt_gaps(struct hs_store *st, const int64_t *ids, size_t n, double *gaps)
{
	sqlite3_stmt *s = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, "SELECT opt_gap FROM runs WHERE id = ?1", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc);
	for (size_t i = 0; i < n && !err; i++) {
		sqlite3_bind_int64(s, 1, ids[i]);
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			gaps[i] = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN :
				  sqlite3_column_double(s, 0);
		else if (rc == SQLITE_DONE)
			err = store_err(st, -ENOENT, "no run %lld", (long long)ids[i]);
		else
			err = store_sql_err(st, rc);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return err;
}

/* One row per live generation of one sample: what a line of debugfs lru_gen shows. */
static int save_generations(struct hs_store *st, sqlite3_stmt *s, int64_t run,
			    const struct hs_gen_sample *g)
{
	uint64_t lo = HS_MIN(g->min_seq[0], g->min_seq[1]);
	uint64_t gen;
	int err = 0;

	if (g->max_seq - lo >= HS_NR_GENS)	/* a policy bug: keep what is valid */
		lo = g->max_seq - (HS_NR_GENS - 1);
	for (gen = lo; !err && gen <= g->max_seq; gen++) {
		const uint64_t *pages = g->pages[gen % HS_NR_GENS];

		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, (int64_t)g->aging);
		sqlite3_bind_int64(s, 3, (int64_t)g->seq);
		sqlite3_bind_int64(s, 4, (int64_t)g->max_seq);
		sqlite3_bind_int64(s, 5, (int64_t)g->min_seq[0]);
		sqlite3_bind_int64(s, 6, (int64_t)g->min_seq[1]);
		sqlite3_bind_int64(s, 7, (int64_t)gen);
		sqlite3_bind_int64(s, 8, gen >= g->min_seq[0] ? (int64_t)pages[0] : 0);
		sqlite3_bind_int64(s, 9, gen >= g->min_seq[1] ? (int64_t)pages[1] : 0);
		err = store_run(st, s);
	}
	return err;
}

static int save_run(struct hs_store *st, const struct hs_run_record *rr, int64_t *id)
{
	const struct hs_sim_stats *x = rr->stats;
	const int64_t vals[] = {
		(int64_t)x->capacity, (int64_t)x->records, (int64_t)x->accesses,
		(int64_t)x->hits, (int64_t)x->misses, (int64_t)x->cold_misses,
		(int64_t)x->evictions, (int64_t)x->refaults, (int64_t)x->hint_evictions,
		(int64_t)x->hint_refaults, (int64_t)x->hints, (int64_t)x->drops,
		(int64_t)x->pswpin, (int64_t)x->pswpout, (int64_t)x->pingpong_keys,
		(int64_t)x->pingpong_refaults, (int64_t)x->distinct_keys, (int64_t)x->prot.total,
		(int64_t)x->prot.useful, (int64_t)x->prot.wasted,
	};
	sqlite3_stmt *s = NULL;
	int64_t run;
	size_t i;
	int err;

	err = store_stmt(st, ST_RUN_INSERT, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, rr->session);
	sqlite3_bind_text(s, 2, rr->policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, store_or(rr->params_json, "{}"), -1, SQLITE_STATIC);
	for (i = 0; i < ARRAY_SIZE(vals); i++)		/* ?4 .. ?23 */
		sqlite3_bind_int64(s, (int)i + 4, vals[i]);
	sqlite3_bind_double(s, 24, x->prot_occupancy);
	sqlite3_bind_int64(s, 25, (int64_t)x->peak_resident);
	sqlite3_bind_double(s, 26, rr->wall_s);
	sqlite3_bind_int(s, 27, run_is_opt_reference(rr));
	sqlite3_bind_int64(s, 28, (int64_t)x->readahead_pages);
	sqlite3_bind_int64(s, 29, (int64_t)x->readahead_unused);
	err = store_run(st, s);
	if (err)
		return err;
	run = sqlite3_last_insert_rowid(st->db);

	err = store_stmt(st, ST_PROT_INSERT, &s);
	for (i = 0; !err && i < HS_PROT_NR; i++) {
		const struct hs_prot_stats *p = &x->prot_kind[i];

		if (!p->total)
			continue;
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_text(s, 2, hs_prot_kind_name((enum hs_prot_kind)i), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(s, 3, (int64_t)p->total);
		sqlite3_bind_int64(s, 4, (int64_t)p->useful);
		sqlite3_bind_int64(s, 5, (int64_t)p->wasted);
		err = store_run(st, s);
	}
	if (!err)
		err = store_stmt(st, ST_HIST_INSERT, &s);
	for (i = 0; !err && i < HS_HIST_BUCKETS; i++) {
		if (!x->refault_hist[i])
			continue;
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_int64(s, 3, i ? (int64_t)1 << (i - 1) : 0);
		sqlite3_bind_int64(s, 4, (int64_t)1 << i);
		sqlite3_bind_int64(s, 5, (int64_t)x->refault_hist[i]);
		err = store_run(st, s);
	}
	if (!err && rr->metrics)
		err = store_stmt(st, ST_METRIC_INSERT, &s);
	for (i = 0; !err && rr->metrics && i < rr->metrics->n && i < HS_METRICS_MAX; i++) {
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_text(s, 2, rr->metrics->m[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 3, rr->metrics->m[i].value);
		err = store_run(st, s);
	}
	if (!err && rr->nr_gens)
		err = store_stmt(st, ST_GEN_INSERT, &s);
	for (i = 0; !err && i < rr->nr_gens; i++)
		err = save_generations(st, s, run, &rr->gens[i]);
	if (!err && rr->evlog && rr->evlog->nr_chunks)
		err = store_stmt(st, ST_EVLOG_INSERT, &s);
	for (i = 0; !err && rr->evlog && i < rr->evlog->nr_chunks; i++) {
		const struct hs_evlog_chunk *c = &rr->evlog->chunks[i];

		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_int64(s, 3, (int64_t)c->first_pos);
		sqlite3_bind_int64(s, 4, c->nr);
		sqlite3_bind_int64(s, 5, c->encoding);
		sqlite3_bind_blob64(s, 6, c->data, c->len, SQLITE_STATIC);
		err = store_run(st, s);
	}
	if (!err)
		*id = run;
	return err;
}

/*
 * The session this store has read (a replay's) is still there: another
 * process may have deleted it since.  (Other sessions meet the foreign key.)
 */
static int session_exists(struct hs_store *st, int64_t session)
{
	sqlite3_stmt *s = NULL;
	int rc, err;

	err = store_stmt(st, ST_SESSION_STATUS, &s);
	if (err)
		return err;
	sqlite3_bind_int64(s, 1, session);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		err = store_err(st, -ENOENT, "session %lld was deleted during the replay",
				(long long)session);
	else if (rc != SQLITE_ROW)
		err = store_sql_err(st, rc);
	sqlite3_reset(s);
	return err;
}

/**
 * hs_store_save_runs() - store runs in one transaction
 * @st: the store (not read-only)
 * @runs: the runs
 * @n: their number
 * @ids: receives run i's id in ids[i] (may be NULL)
 *
 * Each run gets a runs row, run_protection rows for the protection kinds it
 * used, run_refault_hist rows for its non-empty buckets and run_metrics rows.
 * runs.opt_gap of every run of the sessions concerned is brought up to date
 * (see hs_store_run_opt_gaps()).
 *
 * Return: 0, or -errno with nothing stored: -ENOENT when the session last
 * read through @st is gone ("session N was deleted during the replay"),
 * -EINVAL for another missing session (a foreign key).
 */
int hs_store_save_runs(struct hs_store *st, const struct hs_run_record *runs, size_t n,
		       int64_t *ids)
{
	size_t i;
	int err;

	if (st->flags & HS_STORE_RDONLY)
		return store_err(st, -EPERM, "database opened read-only");
	if (st->writing)
		return store_err(st, -EBUSY, "another write is in progress");
	for (i = 0; i < n; i++)
		if (!runs[i].stats || !runs[i].policy)
			return store_err(st, -EINVAL, "run %zu has no policy or statistics", i);
	err = store_run_id(st, ST_BEGIN);
	if (err)
		return err;
	st->writing = true;
	for (i = 0; i < n; i++) {
		int64_t id;

		if (runs[i].session == st->read_session) {
			err = session_exists(st, runs[i].session);
			if (err)
				goto out_rollback;
		}
		err = save_run(st, &runs[i], &id);
		if (err)
			goto out_rollback;
		if (ids)
			ids[i] = id;
	}
	/* the new runs, and older runs of the session when an OPT run came */
	for (i = 0; !err && i < n; i++)
		if (!i || runs[i].session != runs[i - 1].session)
			err = refresh_opt_gaps(st, runs[i].session);
	if (err)
		goto out_rollback;
	err = store_run_id(st, ST_COMMIT);
	if (err)
		goto out_rollback;
	st->writing = false;
	return 0;

out_rollback:
	store_rollback(st);
	return err;
}

/* ---- SQL ---- */

/* Does any statement in @sql return rows?  (Trial-prepared only; stops at an error.) */
static bool later_returns_rows(struct hs_store *st, const char *sql)
{
	while (sql && *sql) {
		sqlite3_stmt *s = NULL;
		const char *next = NULL;
		bool rows;

		if (sqlite3_prepare_v2(st->db, sql, -1, &s, &next) != SQLITE_OK)
			return false;
		rows = s && sqlite3_column_count(s) > 0;
		sqlite3_finalize(s);
		if (rows)
			return true;
		sql = next;
	}
	return false;
}

/* Refuse @sql on a read-only store if any of its statements would write. */
static int check_readonly(struct hs_store *st, const char *sql)
{
	while (sql && *sql) {
		sqlite3_stmt *s = NULL;
		const char *next = NULL;
		bool ro;
		int rc;

		rc = sqlite3_prepare_v2(st->db, sql, -1, &s, &next);
		if (rc != SQLITE_OK)
			return store_sql_err(st, rc);
		ro = !s || sqlite3_stmt_readonly(s);
		sqlite3_finalize(s);
		if (!ro)
			return store_err(st, -EPERM, "statement writes to the database; use --write");
		sql = next;
	}
	return 0;
}

struct row_buf {
	size_t			ncols;		/* columns of the current statement */
	const char		**names;	/* column names */
	enum hs_sql_type	*types;		/* per column, this row */
	int64_t			*ints;		/* INT values */
	double			*reals;		/* REAL values */
	const char		**texts;	/* TEXT values, BLOBs as hex */
	char			**hex;		/* per column: a BLOB's hex text */
	size_t			*hex_cap;	/* ... its size */
};

static void row_buf_free(struct row_buf *b)
{
	size_t i;

	for (i = 0; b->hex && i < b->ncols; i++)
		free(b->hex[i]);
	free(b->names);
	free(b->types);
	free(b->ints);
	free(b->reals);
	free(b->texts);
	free(b->hex);
	free(b->hex_cap);
	memset(b, 0, sizeof(*b));
}

static int row_buf_init(struct row_buf *b, sqlite3_stmt *s)
{
	size_t n = (size_t)sqlite3_column_count(s), i;

	b->ncols = n;
	b->names = calloc(n, sizeof(*b->names));
	b->types = calloc(n, sizeof(*b->types));
	b->ints = calloc(n, sizeof(*b->ints));
	b->reals = calloc(n, sizeof(*b->reals));
	b->texts = calloc(n, sizeof(*b->texts));
	b->hex = calloc(n, sizeof(*b->hex));
	b->hex_cap = calloc(n, sizeof(*b->hex_cap));
	if (!b->names || !b->types || !b->ints || !b->reals || !b->texts || !b->hex ||
	    !b->hex_cap)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		b->names[i] = sqlite3_column_name(s, (int)i);
		if (!b->names[i])
			return -ENOMEM;
	}
	return 0;
}

/* Fill the row from the statement's current row. */
static int row_buf_fill(struct row_buf *b, sqlite3_stmt *s)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < b->ncols; i++) {
		int c = (int)i;
		const unsigned char *p;
		size_t len, j, need;
		char *h;

		b->texts[i] = NULL;
		switch (sqlite3_column_type(s, c)) {
		case SQLITE_INTEGER:
			b->types[i] = HS_SQL_INT;
			b->ints[i] = sqlite3_column_int64(s, c);
			break;
		case SQLITE_FLOAT:
			b->types[i] = HS_SQL_REAL;
			b->reals[i] = sqlite3_column_double(s, c);
			break;
		case SQLITE_TEXT:
			b->types[i] = HS_SQL_TEXT;
			b->texts[i] = (const char *)sqlite3_column_text(s, c);
			if (!b->texts[i])
				return -ENOMEM;
			break;
		case SQLITE_BLOB:
			b->types[i] = HS_SQL_BLOB;
			p = sqlite3_column_blob(s, c);
			len = (size_t)sqlite3_column_bytes(s, c);
			need = 2 * len + 4;
			if (need > b->hex_cap[i]) {
				h = realloc(b->hex[i], need);
				if (!h)
					return -ENOMEM;
				b->hex[i] = h;
				b->hex_cap[i] = need;
			}
			h = b->hex[i];
			*h++ = 'x';
			*h++ = '\'';
			for (j = 0; j < len; j++) {
				*h++ = digits[p[j] >> 4];
				*h++ = digits[p[j] & 15];
			}
			*h++ = '\'';
			*h = '\0';
			b->texts[i] = b->hex[i];
			break;
		default:
			b->types[i] = HS_SQL_NULL;
			break;
		}
	}
	return 0;
}

/**
 * hs_store_query() - run SQL text
 * @st: the store
 * @sql: one or more statements
 * @cb: called for each result row of the last statement that returns rows
 * @arg: passed to @cb
 *
 * Statements run in order.  On a read-only store every statement is checked
 * first and nothing runs if one of them would write.
 *
 * Return: 0 (also when @cb stopped early), -EPERM (a write on a read-only
 * store), -ENOMEM, or the -errno of the SQLite error, whose message
 * hs_store_errmsg() then gives ("no such table: foo").
 */
int hs_store_query(struct hs_store *st, const char *sql,
		   int (*cb)(const struct hs_sql_row *row, void *arg), void *arg)
{
	const char *tail = sql;
	int err = 0;

	st->kc_chunk = -1;
	if (st->flags & HS_STORE_RDONLY) {
		err = check_readonly(st, sql);
		if (err)
			return err;
	}
	while (!err && tail && *tail) {
		struct row_buf b = { 0 };
		sqlite3_stmt *s = NULL;
		const char *next = NULL;
		bool deliver, stop = false;
		int rc;

		rc = sqlite3_prepare_v2(st->db, tail, -1, &s, &next);
		if (rc != SQLITE_OK)
			return store_sql_err(st, rc);
		tail = next;
		if (!s)
			continue;	/* a comment or blank space */
		deliver = sqlite3_column_count(s) > 0 && cb && !later_returns_rows(st, next);
		if (deliver && row_buf_init(&b, s))
			err = store_err(st, -ENOMEM, "out of memory");
		while (!err && !stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
			struct hs_sql_row row;

			if (!deliver)
				continue;
			if (row_buf_fill(&b, s)) {
				err = store_err(st, -ENOMEM, "out of memory");
				break;
			}
			row.ncols = b.ncols;
			row.names = b.names;
			row.types = b.types;
			row.ints = b.ints;
			row.reals = b.reals;
			row.texts = b.texts;
			stop = cb(&row, arg) != 0;
		}
		if (!err && !stop && rc != SQLITE_DONE)
			err = store_sql_err(st, rc);
		row_buf_free(&b);
		sqlite3_finalize(s);
		if (stop)
			break;
	}
	return err;
}
