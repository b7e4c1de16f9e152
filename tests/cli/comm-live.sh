#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Task names of live recordings (the comm column of v_events and v_ev_*,
# hsctl-db(5) TASK NAMES); root and tracefs needed, else exit 77:
#   1. a command, sh -c "cat F; cat F", with sh and cat copied under names
#      of this run (sh-PID, cat-PID: an entry an older cat left in
#      saved_cmdlines under the same pid would hide the new one): the events
#      of each cat from its exec on are named cat-PID, and only those (two
#      pids, the children sh forked); sh's from its exec on are named
#      sh-PID; before its exec a pid carries at most the name of the task
#      that forked it (hsctl's child, or sh's: sh-PID when a read of the
#      names fell between the fork and the exec, which a busy machine makes
#      likely), never the name it execs, and every name tasks holds starts at
#      a birth or exec the trace shows, or at its start;
#   2. a built-in workload (no exec: its task is hsctl's child, named
#      hsctl): its pages' events are named hsctl, interrupted by SIGINT too;
#   3. a recorder killed by SIGKILL: `hsctl db recover` builds its session,
#      with no names (those were in the recorder's memory).
. "$TESTS_SRCDIR/cli/setup.sh"

[ "$(id -u)" -eq 0 ] || skip "live recording needs root (euid $(id -u))"
# Taken before looking at tracefs, as record-live.sh does: recover-live.sh,
# holding the lock, mounts and unmounts it (the ASan suite in CI saw this
# probe's umount fail with "not mounted" when the lock came after it).
live_lock comm-live.sh
need_tracefs

sql() {	# sql QUERY: one value, csv without the header
	"$HSCTL" -d "$DB" sql --format csv "$1" | sed 1d
}

mkdir data
dd if=/dev/zero of=data/f bs=1M count=16 status=none
SH=sh-$$
CAT=cat-$$
cp "$(command -v sh)" "data/$SH"
cp "$(command -v cat)" "data/$CAT"

# ---- 1. a command: sh and its two cats ----
expect_status 0 "$HSCTL" -d "$DB" --format json record -m 8M -- \
	"$T_DIR/data/$SH" -c "'$T_DIR/data/$CAT' '$T_DIR/data/f' >/dev/null;
	'$T_DIR/data/$CAT' '$T_DIR/data/f' >/dev/null"
expect_grep '"session": 1, "status": "complete"' "$OUT"
# sh: the pid that exec'd sh (the recorder's child)
shpid=$(sql "SELECT common_pid FROM v_ev_process_exec WHERE session = 1 AND comm = '$SH'")
case $shpid in
'' | *[!0-9]*) t_bad "no single exec named $SH: '$shpid'" ;;
*) t_ok ;;
esac
n=$(sql "SELECT count(*) FROM v_events WHERE session = 1 AND pid = $shpid AND comm = '$SH'")
[ "$n" -gt 0 ] && t_ok || t_bad "no event of $SH (pid $shpid) named so"
# the cats: the children sh forked, and nothing else
expect_eq "$(sql "SELECT group_concat(pid) FROM (SELECT DISTINCT pid FROM v_events
	WHERE session = 1 AND comm = '$CAT' ORDER BY pid)")" \
	"$(sql "SELECT group_concat(child_pid) FROM (SELECT DISTINCT child_pid
	FROM v_ev_process_fork WHERE session = 1 AND parent_pid = $shpid ORDER BY child_pid)")"
expect_eq "$(sql "SELECT count(DISTINCT pid) FROM v_events WHERE session = 1
	AND comm = '$CAT'")" 2
n=$(sql "SELECT count(*) FROM v_ev_filemap_get_pages WHERE session = 1 AND comm = '$CAT'")
[ "$n" -gt 0 ] && t_ok || t_bad "no filemap_get_pages of $CAT named so"
# a pid is named so only from its exec on, or from a traced fork by a task of that name
# (between fork and exec the kernel's child has its parent's comm)
expect_eq "$(sql "SELECT count(*) FROM v_events AS e WHERE session = 1 AND comm IN ('$SH', '$CAT')
	AND ts_ns < (SELECT min(x.ts_ns) FROM v_ev_process_exec AS x WHERE x.session = 1
	AND x.common_pid = e.pid) AND NOT EXISTS (SELECT 1 FROM v_ev_process_fork AS f
	WHERE f.session = 1 AND f.child_pid = e.pid AND f.ts_ns <= e.ts_ns
	AND f.comm = e.comm)")" 0
# and never with the name it execs
expect_eq "$(sql "SELECT count(*) FROM v_events AS e WHERE session = 1 AND comm = '$CAT'
	AND ts_ns < (SELECT min(x.ts_ns) FROM v_ev_process_exec AS x WHERE x.session = 1
	AND x.common_pid = e.pid)")" 0
# every span starts at the trace's start, a birth, an exec or a loss of its pid
expect_eq "$(sql "SELECT count(*) FROM tasks AS k WHERE session = 1 AND from_ns IS NOT NULL
	AND NOT EXISTS (SELECT 1 FROM events AS e WHERE e.session = 1 AND e.ts_ns = k.from_ns
	AND ((e.type IN (SELECT type FROM event_types WHERE name IN ('task_new',
	'process_fork')) AND e.a = k.pid) OR (e.type = (SELECT type FROM event_types
	WHERE name = 'process_exec') AND e.pid = k.pid) OR e.type = (SELECT type
	FROM event_types WHERE name = 'lost')))")" 0
# and spans of one pid never overlap
expect_eq "$(sql "SELECT count(*) FROM tasks AS a JOIN tasks AS b ON a.session = b.session
	AND a.pid = b.pid AND a.rowid < b.rowid WHERE a.session = 1
	AND coalesce(a.from_ns, 0) < coalesce(b.to_ns, 9e18)
	AND coalesce(b.from_ns, 0) < coalesce(a.to_ns, 9e18)")" 0

# ---- 2. a built-in workload, interrupted: its task is hsctl's child ----
env --default-signal=INT "$HSCTL" -d "$DB" record -m 8M --workload loop --passes 1000 \
	--file "$T_DIR/data/f" >out.2 2>err.2 &
pid=$!
sleep 2
kill -INT "$pid"
st=0
wait "$pid" || st=$?
expect_eq "exit $st" "exit 130"
expect_eq "$(sql "SELECT status FROM sessions WHERE id = 2")" interrupted
n=$(sql "SELECT count(*) FROM v_ev_filemap_get_pages WHERE session = 2 AND comm = 'hsctl'")
[ "$n" -gt 0 ] && t_ok || t_bad "no filemap_get_pages of the workload named hsctl"
# the workload's own task (hsctl's child: not the recorder's pid) among them
n=$(sql "SELECT count(DISTINCT pid) FROM v_events WHERE session = 2 AND comm = 'hsctl'
	AND pid <> $pid")
[ "$n" -gt 0 ] && t_ok || t_bad "no task but the recorder named hsctl"

# ---- 3. SIGKILL: db recover builds the session, without names ----
"$HSCTL" -d "$DB" record -m 8M --workload loop --passes 1000 --file "$T_DIR/data/f" \
	>out.3 2>err.3 &
pid=$!
sleep 2
kill -KILL "$pid"
wait "$pid" || true
expect_eq "$(sql "SELECT status FROM sessions WHERE id = 3")" recording
expect_status 0 "$HSCTL" -d "$DB" db recover
expect_eq "$(sql "SELECT status FROM sessions WHERE id = 3")" killed
n=$(sql "SELECT count(*) FROM v_events WHERE session = 3")
[ "$n" -gt 0 ] && t_ok || t_bad "the killed session has no events"
expect_eq "$(sql "SELECT count(comm) FROM v_events WHERE session = 3")" 0
expect_eq "$(sql "SELECT count(*) FROM tasks WHERE session = 3")" 0
expect_eq "$(sql "PRAGMA integrity_check")" ok

finish
