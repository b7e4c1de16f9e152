#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hardening, black box: inputs that used to be taken silently or reported
# with the wrong status (issue 12).  Each case feeds the exact input and
# checks the documented exit status and one-line message.  The cases that
# need a user other than root (permissions, read-only media) run as nobody
# through setpriv(1) when the test runs as root, and are skipped otherwise.

. "$TESTS_SRCDIR/cli/setup.sh"

hs() {
	"$HSCTL" -d "$DB" "$@"
}

# ---- -d '' and -d :memory: name no file ----
expect_status 64 "$HSCTL" -d '' gen zipf --seed 1
expect_eq "$ERR" "hsctl: -d/--db: '' is not a file name (SQLite would use a throw-away in-memory database)"
expect_status 64 "$HSCTL" -d :memory: import --type lirs "$TESTDATA/traces/small.lirs"
expect_eq "$ERR" "hsctl: -d/--db: ':memory:' is not a file name (SQLite would use a throw-away in-memory database)"
expect_status 64 "$HSCTL" --db= sessions
expect_eq "$OUT" ""
expect_eq "$(ls)" ""

finish
