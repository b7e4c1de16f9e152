#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The live-test lock (live_lock in tests/cli/setup.sh, t_live_lock() in
# tests/harness.c), on a private lock file ($HSCTL_LIVE_LOCK) so that no
# other live test waits for this one.  A background shell takes it with
# live_lock, which records its pid, and holds it; with
# HSCTL_LIVE_LOCK_WAIT=2:
#   1. live_lock gives up after 2 s (not before, and not much later): exit
#      77, "SKIP: LOCK held by PID (lock-holder) for 2 s", and one line
#      "waiting for LOCK held by PID (lock-holder)" on stderr;
#   2. as root, t-capture (the C side) and record-live.sh skip the same way,
#      naming the holder's pid (record-live.sh only where tracefs exists);
#   3. once the holder is gone, live_lock takes the lock at once and records
#      its own pid and command.
. "$TESTS_SRCDIR/cli/setup.sh"

HSCTL_LIVE_LOCK=$T_DIR/live.lock
export HSCTL_LIVE_LOCK
SETUP=$TESTS_SRCDIR/cli/setup.sh

# The holder: its own setup.sh (own temporary dir), the lock, then "held"; it
# lets go when $T_DIR/hold disappears (at the latest when this test's clean-up
# removes $T_DIR).
: >"$T_DIR/hold"
sh -c '. "$1"; live_lock lock-holder; : >"$2/held"
	while [ -e "$2/hold" ]; do sleep 0.1; done' sh "$SETUP" "$T_DIR" &
HOLDER=$!
i=0
while [ ! -e "$T_DIR/held" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -e "$T_DIR/held" ] || fail "the holder did not take $HSCTL_LIVE_LOCK"
expect_eq "$(cat "$HSCTL_LIVE_LOCK")" "$HOLDER lock-holder"

HSCTL_LIVE_LOCK_WAIT=2
export HSCTL_LIVE_LOCK_WAIT

# 1. the shell side
t0=$(date +%s)
# shellcheck disable=SC2016 # expanded by the child shell
expect_status 77 sh -c '. "$1"; live_lock waiter; echo "took it"' sh "$SETUP"
t1=$(date +%s)
expect_eq "$OUT" "SKIP: $HSCTL_LIVE_LOCK held by $HOLDER (lock-holder) for 2 s (HSCTL_LIVE_LOCK_WAIT)"
expect_eq "$ERR" "waiting for $HSCTL_LIVE_LOCK held by $HOLDER (lock-holder)"
if [ $((t1 - t0)) -ge 2 ] && [ $((t1 - t0)) -le 10 ]; then
	t_ok
else
	t_bad "live_lock gave up after $((t1 - t0)) s, expected 2 (up to 10)"
fi

# 2. the C side, and a live test as it is run: only while the lock is surely
# held, or they would run live without the machine's lock
if [ "$(id -u)" -eq 0 ]; then
	flock -n "$HSCTL_LIVE_LOCK" true && fail "the holder let go of $HSCTL_LIVE_LOCK early"
	[ -e "/proc/$HOLDER" ] || fail "the holder is gone"
	T_CAPTURE=$(dirname "$HSCTL")/tests/t-capture
	[ -x "$T_CAPTURE" ] || fail "no $T_CAPTURE (make check builds it)"
	expect_status 77 "$T_CAPTURE"
	expect_eq "$OUT" "SKIP: $HSCTL_LIVE_LOCK held by $HOLDER (lock-holder) for 2 s (HSCTL_LIVE_LOCK_WAIT)"
	expect_eq "$ERR" "waiting for $HSCTL_LIVE_LOCK held by $HOLDER (lock-holder)"
	if grep -q ' tracefs ' /proc/mounts || [ -d /sys/kernel/tracing ]; then
		expect_status 77 sh "$TESTS_SRCDIR/cli/record-live.sh"
		expect_grep "^SKIP: $HSCTL_LIVE_LOCK held by $HOLDER (lock-holder) for 2 s" "$OUT"
		expect_grep "^waiting for $HSCTL_LIVE_LOCK held by $HOLDER (lock-holder)$" "$ERR"
	fi
else
	echo "not root: t-capture and record-live.sh stop before the lock; not run"
fi

# 3. released: taken at once, and recorded
rm -f "$T_DIR/hold"
wait "$HOLDER" || fail "the holder exited $?"
HSCTL_LIVE_LOCK_WAIT=0
# shellcheck disable=SC2016 # expanded by the child shell
expect_status 0 sh -c '. "$1"; live_lock second; echo "$$"; cat "$HSCTL_LIVE_LOCK"' sh "$SETUP"
expect_eq "$(printf '%s\n' "$OUT" | sed -n 2p)" "$(printf '%s\n' "$OUT" | sed -n 1p) second"
expect_eq "$ERR" ""

finish
