#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl fidelity without a kernel: what it refuses and how.  The figures are
# worked out on paper in tests/t-fidelity.c (a hand-built recorded session);
# record-live.sh runs the command on a real recording.
. "$TESTS_SRCDIR/cli/setup.sh"

H() {
	"$HSCTL" -d "$DB" "$@"
}

expect_status 0 H gen zipf --seed 1 --accesses 2000 --keys 500
printf '1\n2\n3\n1\n' >t.txt
expect_status 0 H import --type text t.txt

# no kernel truth: 65 naming why
expect_status 65 H fidelity 1
expect_eq "$ERR" "hsctl: session 1: a generated trace has no kernel truth"
expect_status 65 H fidelity 2 --policy lru
expect_eq "$ERR" "hsctl: session 2: an imported trace has no kernel truth"
# nothing was stored by a refusal
expect_status 0 H sql --format csv 'SELECT count(*) AS n FROM fidelity'
expect_eq "$OUT" "n
0"

# usage and missing things
expect_status 64 H fidelity
expect_status 64 H fidelity 1 2
expect_status 64 H fidelity x
expect_status 64 H fidelity 1 --size 0
expect_status 64 H fidelity 1 --seed -3
expect_status 66 H fidelity 9
expect_eq "$ERR" "hsctl: no session 9 (see 'hsctl sessions')"
expect_status 66 "$HSCTL" -d missing.db fidelity 1
[ ! -e missing.db ] && t_ok || t_bad "fidelity created a database"
expect_status 0 H fidelity --help
expect_grep '^  *hsctl fidelity 3 --against 4' "$OUT"

finish
