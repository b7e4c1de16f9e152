#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An import or a replay interrupted by SIGINT or SIGTERM, or killed outright,
# leaves the database readable and consistent: the interrupted import left no
# session behind (it is one transaction), an interrupted replay says that no
# run had finished and stored none (130 or 143), the earlier sessions and runs
# are intact, and a corrupt stored stream makes replay fail with 65, not crash.
. "$TESTS_SRCDIR/cli/setup.sh"

# A session to keep, and a trace large enough to interrupt in flight.
expect_status 0 "$HSCTL" -d "$DB" gen loop --keys 100 --accesses 1000 --seed 1
expect_status 0 "$HSCTL" -d "$DB" replay 1 --policy lru --size 50
awk 'BEGIN { for (i = 0; i < 300000; i++) print (i * 7919) % 1000003 }' >part.txt
mkfifo feed

interrupt() {	# interrupt SIGNAL: signal an import that is blocked mid-way on its input
	# a non-interactive shell starts background jobs with SIGINT ignored:
	# give the import the default disposition, as a terminal's Ctrl-C finds it
	env --default-signal=INT "$HSCTL" -d "$DB" import --type text --name big feed \
		>/dev/null 2>&1 &
	pid=$!
	exec 3>feed
	# 300000 records: several chunks are already written inside the transaction
	cat part.txt >&3
	sleep 1
	kill -s "$1" "$pid"
	sleep 0.2
	exec 3>&-	# should the signal not kill it, EOF ends it: no hang, a failure
	st=0
	wait "$pid" || st=$?
	if [ "$st" -gt 128 ]; then
		t_ok
	else
		t_bad "import after SIG$1 exited $st, expected death by the signal"
	fi
	expect_status 0 "$HSCTL" -d "$DB" sql --format csv "PRAGMA integrity_check"
	expect_grep '^ok$' "$OUT"
	expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
		"SELECT count(*) FROM sessions WHERE status != 'complete'"
	expect_grep '^0$' "$OUT"
	expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
		"SELECT count(*) FROM access_chunks WHERE session NOT IN (SELECT id FROM sessions)"
	expect_grep '^0$' "$OUT"
	expect_status 0 "$HSCTL" -d "$DB" sql --format csv \
		"SELECT count(*) FROM sessions WHERE name = 'big'"
	expect_grep '^0$' "$OUT"
	# what was there before is untouched and still replays
	expect_status 0 "$HSCTL" -d "$DB" --format csv replay 1 --policy lru --size 50 --no-store
	expect_grep '^,1,lru,{},50,1000,0,1000,' "$OUT"
}
interrupt INT
interrupt TERM
interrupt KILL

# A replay interrupted in its pass: every run shares the one pass, so none has
# finished; it says so, stores nothing and dies by the signal's status.
expect_status 0 "$HSCTL" -d "$DB" gen zipf --keys 100000 --accesses 2000000 --seed 2
LONG=$(printf '%s\n' "$OUT" | sed 's/^session \([0-9]*\):.*/\1/')
RUNS_BEFORE=$("$HSCTL" -d "$DB" --format csv sql 'SELECT count(*) AS n FROM runs' | tail -n 1)
replay_interrupt() {	# replay_interrupt SIGNAL STATUS
	env --default-signal=INT "$HSCTL" -d "$DB" replay "$LONG" --policy all \
		--size 1000,5000 --threads 1 >/dev/null 2>replay.err &
	pid=$!
	sleep 1
	kill -s "$1" "$pid"
	st=0
	wait "$pid" || st=$?
	expect_eq "$st" "$2"
	expect_grep "^hsctl: replay interrupted by SIG$1 after [0-9]* of 2000000 records (.*%): its 28 runs share one pass over the stream and none had finished; nothing was stored\$" "$(cat replay.err)"
	expect_eq "$(wc -l <replay.err | tr -d ' ')" 1
	expect_eq "$("$HSCTL" -d "$DB" --format csv sql 'SELECT count(*) AS n FROM runs' |
		tail -n 1)" "$RUNS_BEFORE"
}
replay_interrupt INT 130
replay_interrupt TERM 143

# A corrupt access chunk: replay says so and exits 65.
expect_status 0 "$HSCTL" -d "$DB" sql --write "UPDATE access_chunks SET data = x'ff' WHERE session = 1"
expect_status 65 "$HSCTL" -d "$DB" replay 1 --policy lru --size 50
expect_grep 'corrupt' "$ERR"
expect_status 0 "$HSCTL" -d "$DB" sql --format csv "SELECT count(*) FROM runs"
expect_grep '^1$' "$OUT"
finish
