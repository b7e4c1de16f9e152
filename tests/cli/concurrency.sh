#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Several commands on one database at once (issue 12, F1): none loses work.
# A replay whose runs cannot be stored (another process holds the write lock
# longer than the busy timeout) still prints every result, says "runs not
# stored" and exits 1; a replay checks it may write before any work.  The
# lock is held by a small python3 sqlite3 process (skipped without python3);
# HSCTL_BUSY_TIMEOUT_MS shortens the wait to keep the test quick.  An
# import holds no lock while it reads its input, and an import, two storing
# replays and readers at once on one database all finish with every run
# stored.

. "$TESTS_SRCDIR/cli/setup.sh"

hs() {
	"$HSCTL" -d "$DB" "$@"
}
nruns() {
	hs --format csv sql 'SELECT count(*) AS n FROM runs' | tail -n 1
}

expect_status 0 hs gen zipf --seed 1 --keys 1000 --accesses 20000
expect_eq "$OUT" "session 1: 20000 accesses, 982 distinct keys (zipf --alpha 0.99 --keys 1000 --accesses 20000 --seed 1)"
expect_status 0 hs replay 1 --policy lru,arc --size 100 --no-store
WANT=$OUT
expect_grep '^lru  *100  ' "$WANT"
expect_grep '^arc  *100  ' "$WANT"
expect_status 0 hs --format csv replay 1 --policy lru,arc --size 100 --no-store
# every column but wall_s (16), which differs from run to run
nowall() {
	printf '%s\n' "$1" | cut -d, -f1-15,17-26
}
WANT_CSV=$(nowall "$OUT")

# ---- a replay that cannot store its runs prints them all the same ----
if command -v python3 >/dev/null 2>&1; then
	# hold_lock SECONDS: take the write lock in the background until killed or
	# SECONDS pass; returns once it is held (the holder's pid in $HOLDER).
	hold_lock() {
		rm -f held
		python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open("held", "w").close()
time.sleep(float(sys.argv[2]))' "$DB" "$1" &
		HOLDER=$!
		h_wait=0
		while [ ! -e held ] && [ "$h_wait" -lt 200 ]; do
			sleep 0.05
			h_wait=$((h_wait + 1))
		done
		[ -e held ] || fail "the lock holder did not start"
	}
	hold_lock 30
	HSCTL_BUSY_TIMEOUT_MS=300 expect_status 1 hs replay 1 --policy lru,arc --size 100
	expect_eq "$OUT" "$WANT"
	expect_eq "$ERR" "hsctl: $DB: runs not stored: database is locked"
	HSCTL_BUSY_TIMEOUT_MS=300 expect_status 1 hs --format csv replay 1 --policy lru,arc \
		--size 100
	# the same rows, with no run id
	expect_eq "$(nowall "$OUT")" "$WANT_CSV"
	expect_grep '^,1,lru,{},100,20000,' "$OUT"
	expect_eq "$ERR" "hsctl: $DB: runs not stored: database is locked"
	HSCTL_BUSY_TIMEOUT_MS=300 expect_status 1 hs --format json replay 1 --policy lru \
		--size 100
	expect_grep '^  {"run": null, "session": 1, "policy": "lru", ' "$OUT"
	kill "$HOLDER"
	wait "$HOLDER" 2>/dev/null || true
	expect_eq "$(nruns)" 0
	# The lock released within the wait: the runs are stored.
	hold_lock 1
	expect_status 0 hs replay 1 --policy lru,arc --size 100
	expect_eq "$OUT" "$WANT"
	expect_eq "$ERR" ""
	wait "$HOLDER" || true
	expect_eq "$(nruns)" 2
else
	echo "# no python3: lock cases skipped"
fi

# ---- an import holds no lock while it reads: a slow pipe ----
# The import stages its stream and writes it in one short transaction at the
# end, so a replay stores its runs meanwhile without waiting (a busy timeout
# of 0: the lock must be free at once).
rm -f imp.out imp.err
(printf '1\n'; sleep 2; printf '2\n1\n') | hs import --type text --name slow - \
	>imp.out 2>imp.err &
IMP=$!
sleep 0.5
N0=$(nruns)
HSCTL_BUSY_TIMEOUT_MS=0 expect_status 0 hs replay 1 --policy lru,arc --size 100
expect_eq "$OUT" "$WANT"
expect_eq "$ERR" ""
kill -0 "$IMP" 2>/dev/null || echo "# the import ended before the replay: not exercised"
IMP_STATUS=0
wait "$IMP" || IMP_STATUS=$?
expect_eq "$IMP_STATUS" 0
expect_eq "$(cat imp.out)" "session 2: 3 accesses, 2 distinct keys (slow)"
expect_eq "$(cat imp.err)" ""
expect_eq "$(nruns)" $((N0 + 2))
expect_eq "$(hs --format csv sql 'SELECT count(*) AS n FROM access_chunks WHERE session = 2' |
	tail -n 1)" 1

# ---- everything at once: an import, two storing replays, readers ----
# Each command exits 0, or a replay says its runs were not stored (and
# still prints them all): no run is lost silently.  With the default busy
# timeout every command gets its turn, so every run is stored.
N0=$(nruns)
rm -f imp.out imp.err
(seq 1 3000; sleep 1; seq 2001 5000) | hs import --type text --name mix - >imp.out 2>imp.err &
IMP=$!
hs replay 1 --policy lru,arc,lirs --size 50,100 >ra.out 2>ra.err &
RA=$!
hs replay 1 --policy car,clock,two-q --size 50,100 >rb.out 2>rb.err &
RB=$!
i=0
while [ "$i" -lt 10 ]; do
	expect_status 0 hs --format csv sql 'SELECT count(*) AS n FROM sessions'
	expect_grep '^[234]$' "$OUT"
	expect_status 0 hs sessions
	i=$((i + 1))
done
STORED=0
# check_replay PID NAME: its status and output; counts its 6 runs if stored
check_replay() {
	r_status=0
	wait "$1" || r_status=$?
	expect_eq "$(grep -c '^[a-z-]*  *[0-9]*  *[0-9.]*  ' "$2.out")" 6
	if [ "$r_status" -eq 0 ]; then
		expect_eq "$(cat "$2.err")" ""
		STORED=$((STORED + 6))
	else
		expect_eq "$r_status" 1
		expect_eq "$(cat "$2.err")" "hsctl: $DB: runs not stored: database is locked"
	fi
}
check_replay "$RA" ra
check_replay "$RB" rb
IMP_STATUS=0
wait "$IMP" || IMP_STATUS=$?
expect_eq "$IMP_STATUS" 0
expect_eq "$(cat imp.out)" "session 3: 6000 accesses, 5000 distinct keys (mix)"
expect_eq "$(cat imp.err)" ""
# every run that a replay did not report as not stored is in the table
expect_eq "$(nruns)" $((N0 + STORED))
# ... and with the default busy timeout, that is all of them
expect_eq "$STORED" 12
expect_eq "$(hs --format csv sql 'SELECT count(DISTINCT policy || capacity) AS n FROM runs
	WHERE id > '"$N0" | tail -n 1)" 12

# ---- a database that may not be written: 69 before any work ----
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	chmod 711 "$T_DIR" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$HSCTL" --version >/dev/null 2>&1
then
	mkdir ro
	cp "$DB" ro/c.db
	chmod 755 ro
	chmod 644 ro/c.db
	expect_status 69 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HSCTL" -v -d ro/c.db replay 1 --policy lru,arc --size 100
	expect_eq "$OUT" ""
	expect_eq "$ERR" "hsctl: ro/c.db: cannot open it for writing: Permission denied"
	expect_status 0 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HSCTL" -d ro/c.db replay 1 --policy lru,arc --size 100 --no-store
	expect_eq "$OUT" "$WANT"
else
	echo "# not root or no setpriv: permission case skipped"
fi

finish
