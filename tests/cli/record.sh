#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl record without a kernel to record: usage errors (64) before anything
# is touched, and a user who is not root gets 69 with the reason, and no
# database is created.  The live recordings are in record-live.sh.
. "$TESTS_SRCDIR/cli/setup.sh"

expect_status 64 "$HSCTL" -d "$DB" record
expect_grep 'nothing to record' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --workload scan-twice -- true
expect_grep 'not both' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --size 1M -- true
expect_grep 'workload options need --workload' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record -m 12Q -- true
expect_grep "memory-limit '12Q'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record -m 1000 -- true
expect_grep "memory-limit '1000'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --duration 0 -- true
expect_grep "duration '0'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --buffer-kb 4 -- true
expect_grep "buffer-kb '4'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --workload ycsb-f --theta 11
expect_grep "theta '11'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --workload ycsb-f --size 1P
expect_grep "size '1P'" "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --sample numa --workload loop
expect_grep 'sample is for commands' "$ERR"
expect_status 64 "$HSCTL" -d "$DB" record --sample idle -- true
expect_grep "unknown sampling 'idle' (valid: numa)" "$ERR"
[ ! -e "$DB" ] && t_ok || t_bad "a usage error created the database"

# --help: the examples and the exit statuses
expect_status 0 "$HSCTL" record --help
expect_grep 'EXAMPLES' "$OUT"
expect_grep 'scan-twice' "$OUT"
expect_grep 'Exit status' "$OUT"

# Not root: 69 with the reason (run as nobody when we are root and can drop to it).
if [ "$(id -u)" -ne 0 ]; then
	expect_status 69 "$HSCTL" -d "$DB" record --workload scan-twice
	expect_grep 'root' "$ERR"
elif command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	chmod 777 "$T_DIR"
	expect_status 69 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$HSCTL" -d "$DB" record -- true
	expect_grep 'needs root' "$ERR"
	expect_status 69 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$HSCTL" -d "$DB" record --list-events
	expect_grep 'root' "$ERR"
fi
[ ! -e "$DB" ] && t_ok || t_bad "a refused record created the database"
finish
