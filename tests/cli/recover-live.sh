#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A SIGKILLed `hsctl record` is cleaned up completely by the next `hsctl
# record` or `hsctl db recover` (issue 12, item 5): the host ends up exactly
# as it was before the killed recorder started, each restored thing is
# named in one line, and what was recorded stays readable.  Live: root,
# tracefs and the cgroup v1 memory hierarchy of these machines, under the
# live-test lock for the whole test (it unmounts tracefs, when it can, to
# see the recorder mount it and the recovery unmount it again, and puts
# the mount back at the end, also on failure).
#
# The host state compared before and after ("the snapshot"): the tracefs
# lines of /proc/mounts, kernel.numa_balancing, the tracefs instances, the
# hsctl_<pid> memory cgroups, the undo notes in /run/hsctl and the
# hsctl_<pid>_* data files in /var/tmp and $TMPDIR; entries named after a
# process that is alive are left out (t-cgroup runs beside this test and
# owns groups of its own).
#
# HSCTL_TEST_PAUSE (read by `hsctl record`, for tests only): "workload"
# makes the recorder stop itself with SIGSTOP once everything is set up
# (tracefs mounted, instance, cgroup, numa_balancing, session) and the
# workload not yet released; "build" stops it inside the build's
# transaction.  The test waits for the stopped state and SIGKILLs it there.
#
#   1. killed before the workload starts (--sample numa, tracefs mounted by
#      it): `hsctl db recover` kills and removes the cgroup, puts
#      numa_balancing back, removes the instance, unmounts tracefs, builds
#      the session as killed (0 events);
#   2. killed during the workload (a command that reads a file, then sleeps):
#      the next `hsctl record` kills the workload still running in the
#      cgroup, removes instance and mount, builds the session with its
#      events;
#   3. killed during the build: `hsctl db recover` removes the data file and
#      builds the session (the half-done build was rolled back); nothing of
#      tracefs or cgroups is named, the recorder had undone those itself;
#   4. a live recorder (stopped, not killed) is left alone by a recovery,
#      then ends normally and leaves nothing, not even its note;
#   5. (when tracefs could be unmounted) the tracefs a killed recorder
#      mounted is in use (this test holds a file of it open): the recovery
#      says so and keeps that item, the next one, once the file is closed,
#      unmounts it.
. "$TESTS_SRCDIR/cli/setup.sh"

[ "$(id -u)" -eq 0 ] || skip "live recording needs root (euid $(id -u))"
CGROOT=/sys/fs/cgroup/memory
[ -d "$CGROOT" ] || skip "no cgroup v1 memory hierarchy at $CGROOT"
TRACING=/sys/kernel/tracing
NOTES=/run/hsctl
NUMA=/proc/sys/kernel/numa_balancing

live_lock recover-live.sh

mounted_before=$(grep -c ' tracefs ' /proc/mounts || true)
need_tracefs
numa_before=$(cat "$NUMA" 2>/dev/null || echo absent)
PIDS=

# Whatever happens: no recorder of ours left stopped, what it left undone,
# numa_balancing and the tracefs mount as they were.
live_cleanup() {
	exec 8<&-	# case 5's open tracefs file
	for p in $PIDS; do
		kill -KILL "$p" 2>/dev/null || true
	done
	"$HSCTL" -d "$DB" db recover >/dev/null 2>&1 || true
	if [ "$numa_before" != absent ] && [ "$(cat "$NUMA")" != "$numa_before" ]; then
		echo "$numa_before" >"$NUMA" || true
	fi
	if [ "$mounted_before" -gt 0 ] && ! grep -q ' tracefs ' /proc/mounts; then
		mount -t tracefs nodev "$TRACING" || echo "WARNING: could not mount tracefs back"
	elif [ "$mounted_before" -eq 0 ] && grep -q ' tracefs ' /proc/mounts; then
		umount "$TRACING" 2>/dev/null || true
	fi
	t_cleanup
}
trap live_cleanup EXIT

sql() {	# sql QUERY: one value, csv without the header
	"$HSCTL" -d "$DB" sql --format csv "$1" | sed 1d
}

keep_dead() {	# names on stdin, without those of a process alive
	while IFS= read -r n; do
		p=$(printf '%s\n' "$n" | sed -n -e 's/^hsctl_\([0-9][0-9]*\).*/\1/p' \
			-e 's/^\.\{0,1\}\([0-9][0-9]*\)-.*/\1/p')
		if [ -n "$p" ] && [ -d "/proc/$p" ]; then
			continue
		fi
		printf '%s\n' "$n"
	done
}

snapshot() {	# the host state this test compares, on stdout
	grep ' tracefs ' /proc/mounts || true
	echo "numa_balancing $(cat "$NUMA" 2>/dev/null || echo absent)"
	if grep -q ' tracefs ' /proc/mounts; then
		ls "$TRACING/instances" | keep_dead | sed 's/^/instance /'
	fi
	ls "$CGROOT" | grep '^hsctl_' | keep_dead | sed 's/^/cgroup /'
	ls -A "$NOTES" 2>/dev/null | keep_dead | sed 's/^/note /'
	for d in /var/tmp "${TMPDIR:-/tmp}"; do
		ls "$d" | grep '^hsctl_[0-9]*_' | keep_dead | sed "s|^|file $d/|"
	done
}

same_as_before() {	# same_as_before CASE: the snapshot equals the first one
	snapshot >after.txt
	if cmp -s before.txt after.txt; then
		t_ok
	else
		t_bad "$1: the host differs from before:"
		diff before.txt after.txt | sed 's/^/    /'
	fi
}

stopped() {	# stopped PID: wait (up to 60 s) until PID is stopped (SIGSTOP)
	i=0
	while [ "$i" -lt 600 ]; do
		st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || echo gone)
		[ "$st" = T ] && return 0
		[ "$st" = gone ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

kill9() {	# kill9 PID: SIGKILL and reap it
	kill -KILL "$1"
	wait "$1" || true
}

# tracefs unmounted for the cases, so the recorder mounts it: only when no one uses it
unmount_for_test() {
	if grep -q ' tracefs ' /proc/mounts; then
		umount "$TRACING" 2>/dev/null || return 1
	fi
	return 0
}

# Earlier killed recorders' leftovers are not this test's: clean them up first.
"$HSCTL" -d "$DB" db recover >/dev/null 2>&1 || true
MOUNT_CASE=1
if ! unmount_for_test; then
	MOUNT_CASE=0
	echo "note: tracefs is busy and cannot be unmounted: the mount is not tested"
fi
snapshot >before.txt
mkdir data

# ---- 1. killed before the workload starts ----
SAMPLE=
numa_line=0
if [ "$numa_before" = absent ]; then
	echo "note: no $NUMA: numa_balancing is not tested"
else
	SAMPLE="--sample numa"
	[ $((numa_before % 2)) -eq 0 ] && numa_line=1
fi
# shellcheck disable=SC2086 # SAMPLE is empty or two words
HSCTL_TEST_PAUSE=workload "$HSCTL" -d "$DB" record $SAMPLE -- sleep 600 >out.1 2>err.1 &
pid=$!
PIDS="$PIDS $pid"
stopped "$pid" && t_ok || t_bad "case 1: the recorder did not stop before the workload"
# everything is in place, and written down
[ -d "$TRACING/instances/hsctl_$pid" ] && t_ok || t_bad "case 1: no instance hsctl_$pid"
[ -d "$CGROOT/hsctl_$pid" ] && t_ok || t_bad "case 1: no cgroup hsctl_$pid"
note=$(ls "$NOTES" | grep "^$pid-.*\.note$" || true)
[ -n "$note" ] && t_ok || t_bad "case 1: no undo note of pid $pid in $NOTES"
if [ "$numa_line" = 1 ]; then
	expect_eq "numa_balancing $(cat "$NUMA")" "numa_balancing $((numa_before + 1))"
fi
kill9 "$pid"
# the kill left it all behind
[ -d "$CGROOT/hsctl_$pid" ] && t_ok || t_bad "case 1: the cgroup vanished by itself"
[ -d "$TRACING/instances/hsctl_$pid" ] && t_ok || t_bad "case 1: the instance vanished"
expect_status 0 "$HSCTL" -d "$DB" db recover
printf '%s\n' "$OUT" | sed 's/^/    case 1: /'
expect_grep "^killed recorder (pid $pid): .*cgroup $CGROOT/hsctl_$pid" "$OUT"
expect_grep "^killed recorder (pid $pid): removed tracefs instance $TRACING/instances/hsctl_$pid$" \
	"$OUT"
if [ "$MOUNT_CASE" = 1 ]; then
	expect_grep "^killed recorder (pid $pid): unmounted the tracefs it had mounted on $TRACING$" \
		"$OUT"
fi
if [ "$numa_line" = 1 ]; then
	expect_grep "^killed recorder (pid $pid): put $NUMA back from $((numa_before + 1)) to $numa_before$" \
		"$OUT"
else
	expect_no_grep "numa_balancing" "$OUT"
fi
s1=$(sql "SELECT max(id) FROM sessions")
expect_grep "^session $s1 of a killed recorder (pid $pid) built from its spool: 0 events, status killed$" \
	"$OUT"
same_as_before "case 1"
expect_eq "$(sql "SELECT status FROM sessions WHERE id = $s1")" killed
# a second recovery finds nothing left
expect_status 0 "$HSCTL" -d "$DB" db recover
expect_eq "$OUT" "nothing to recover"

# ---- 2. killed during the workload ----
# (a command, not a built-in workload: those end by themselves on EPIPE once
# their recorder is gone; a command runs on until the cgroup is emptied)
dd if=/dev/zero of=data/f bs=1M count=8 status=none oflag=direct	# not left in the cache
"$HSCTL" -d "$DB" record -m 16M -- sh -c "cat '$T_DIR/data/f' >/dev/null; exec sleep 600" \
	>out.2 2>err.2 &
pid=$!
PIDS="$PIDS $pid"
i=0
wl=
while [ "$i" -lt 300 ] && [ -z "$wl" ]; do
	sleep 0.1
	i=$((i + 1))
	for p in $(cat "$CGROOT/hsctl_$pid/cgroup.procs" 2>/dev/null || true); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && wl=$p
	done
done
[ -n "$wl" ] && t_ok || t_bad "case 2: no workload running in cgroup hsctl_$pid"
sleep 1	# the spool is committed twice a second
kill9 "$pid"
[ -n "$wl" ] && [ -d "/proc/$wl" ] && t_ok || t_bad "case 2: the workload did not outlive its recorder"
if [ "$MOUNT_CASE" = 1 ]; then
	grep -q ' tracefs ' /proc/mounts && t_ok || t_bad "case 2: tracefs is not mounted"
fi
# the next record cleans up first, then records
expect_status 0 "$HSCTL" -d "$DB" record -- true
printf '%s\n' "$ERR" | grep 'killed recorder' | sed 's/^/    case 2: /'
expect_grep "killed recorder (pid $pid): killed 1 process left in cgroup $CGROOT/hsctl_$pid and removed it$" \
	"$ERR"
expect_grep "killed recorder (pid $pid): removed tracefs instance $TRACING/instances/hsctl_$pid$" \
	"$ERR"
if [ "$MOUNT_CASE" = 1 ]; then
	expect_grep "killed recorder (pid $pid): unmounted the tracefs it had mounted on $TRACING$" \
		"$ERR"
fi
expect_no_grep "numa_balancing\|data file" "$ERR"
s2=$(sql "SELECT id FROM sessions WHERE status = 'killed' AND id > $s1")
expect_grep "session $s2 of a killed recorder (pid $pid) built from its spool: [1-9][0-9]* events, status killed$" \
	"$ERR"
# killed: gone, or a zombie its new parent has not reaped yet
wst=$(awk '{ print $3 }' "/proc/$wl/stat" 2>/dev/null || echo gone)
[ "$wst" = gone ] || [ "$wst" = Z ] && t_ok || t_bad "case 2: the workload $wl still runs ($wst)"
same_as_before "case 2"
# the 2048 pages cat read came into the page cache as lives of data/f
ino=$(stat -c %i data/f)
expect_eq "$(sql "SELECT sum(pages) FROM v_folio_lives WHERE session = $s2 AND ino = $ino")" 2048
expect_status 0 "$HSCTL" -d "$DB" --format csv replay "$s2" --policy lru --size 1000 --no-store

# ---- 3. killed during the build ----
HSCTL_TEST_PAUSE=build "$HSCTL" -d "$DB" record -m 16M --workload scan-twice --size 24M \
	>out.3 2>err.3 &
pid=$!
PIDS="$PIDS $pid"
stopped "$pid" && t_ok || t_bad "case 3: the recorder did not stop in the build"
datafile=$(ls /var/tmp "${TMPDIR:-/tmp}" 2>/dev/null | grep "^hsctl_${pid}_scan-twice_" |
	head -n 1)
[ -n "$datafile" ] && t_ok || t_bad "case 3: no data file hsctl_${pid}_scan-twice_*"
kill9 "$pid"
expect_status 0 "$HSCTL" -d "$DB" db recover
printf '%s\n' "$OUT" | sed 's/^/    case 3: /'
expect_grep "^killed recorder (pid $pid): removed its data file .*/$datafile$" "$OUT"
s3=$(sql "SELECT max(id) FROM sessions")
expect_grep "^session $s3 of a killed recorder (pid $pid) built from its spool: [1-9][0-9]* events, status killed$" \
	"$OUT"
# tracing and the cgroup were over before the build: the recorder had undone them itself
expect_no_grep "tracefs\|cgroup\|numa" "$OUT"
expect_eq "$(echo "$OUT" | wc -l)" 2
same_as_before "case 3"
expect_eq "$(sql "PRAGMA integrity_check")" ok
expect_eq "$(sql "SELECT status FROM sessions WHERE id = $s3")" killed
# scan-twice of 6144 pages: every touch was spooled before the build began
expect_eq "$(sql "SELECT touches FROM recordings WHERE session = $s3")" 12288
expect_status 0 "$HSCTL" -d "$DB" sessions show "$s3"

# ---- 4. a live recorder is left alone ----
HSCTL_TEST_PAUSE=workload "$HSCTL" -d "$DB" record -- true >out.4 2>err.4 &
pid=$!
PIDS="$PIDS $pid"
stopped "$pid" && t_ok || t_bad "case 4: the recorder did not stop before the workload"
expect_status 0 "$HSCTL" -d "$DB" db recover
expect_eq "$OUT" "nothing to recover"
[ -d "$CGROOT/hsctl_$pid" ] && t_ok || t_bad "case 4: a recovery removed a live recorder's cgroup"
[ -d "$TRACING/instances/hsctl_$pid" ] && t_ok ||
	t_bad "case 4: a recovery removed a live recorder's instance"
[ -n "$(ls "$NOTES" | grep "^$pid-")" ] && t_ok || t_bad "case 4: the live note is gone"
kill -CONT "$pid"
st=0
wait "$pid" || st=$?
expect_eq "case 4 exit $st" "case 4 exit 0"
same_as_before "case 4"

# ---- 5. the tracefs it mounted is busy: kept for a later recovery ----
if [ "$MOUNT_CASE" = 1 ]; then
	HSCTL_TEST_PAUSE=workload "$HSCTL" -d "$DB" record -- true >out.5 2>err.5 &
	pid=$!
	PIDS="$PIDS $pid"
	stopped "$pid" && t_ok || t_bad "case 5: the recorder did not stop before the workload"
	kill9 "$pid"
	exec 8<"$TRACING/trace"
	expect_status 0 "$HSCTL" -d "$DB" db recover
	printf '%s\n' "$OUT" | sed 's/^/    case 5: /'
	expect_grep "^killed recorder (pid $pid): tracefs on $TRACING: in use; left mounted for a later recover$" \
		"$OUT"
	expect_grep "^killed recorder (pid $pid): removed tracefs instance" "$OUT"
	[ -n "$(ls "$NOTES" | grep "^$pid-")" ] && t_ok || t_bad "case 5: the note was dropped"
	exec 8<&-
	expect_status 0 "$HSCTL" -d "$DB" db recover
	printf '%s\n' "$OUT" | sed 's/^/    case 5: /'
	expect_eq "$OUT" "killed recorder (pid $pid): unmounted the tracefs it had mounted on $TRACING"
	same_as_before "case 5"
fi

# all the sessions read back
expect_eq "$(sql "SELECT count(*) FROM sessions WHERE status = 'recording'")" 0
expect_eq "$(sql "PRAGMA integrity_check")" ok
finish
