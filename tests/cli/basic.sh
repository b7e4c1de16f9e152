#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The top-level CLI contract: --help lists every command of the table in
# cli/hsctl.c, --version works, every command's --help has EXAMPLES, and
# usage errors (no command, unknown command, unknown option, bad format)
# exit 64 with a one-line message; a failed write of stdout exits 1.
. "$TESTS_SRCDIR/cli/setup.sh"

# Command names from the dispatch table: "&hs_cmd_<name>," lines.
CMDS=$(sed -n 's/^[[:space:]]*&hs_cmd_\([a-z0-9_]*\),*$/\1/p' "$SRCDIR/cli/hsctl.c" | tr _ -)
[ -n "$CMDS" ] || fail "no commands found in $SRCDIR/cli/hsctl.c"

expect_status 0 "$HSCTL" --help
HELP=$OUT
expect_grep '^Usage: hsctl ' "$HELP"
for c in $CMDS; do
	expect_grep "^  $c  *[^ ]" "$HELP"
done
expect_grep 'EXAMPLES' "$HELP"
# the help fits in 80 columns
expect_eq "$(printf '%s\n' "$HELP" | awk 'length > 80' | head -n 1)" ""

expect_status 0 "$HSCTL" --version
expect_grep '^hsctl [0-9][0-9.]*' "$OUT"

expect_status 0 "$HSCTL" --usage
expect_grep 'Usage: hsctl' "$OUT"

# every command explains itself, with examples, under its own name
for c in $CMDS; do
	expect_status 0 "$HSCTL" "$c" --help
	expect_grep "^Usage: hsctl $c " "$OUT"
	expect_grep '^EXAMPLES' "$OUT"
	expect_grep "^ *hsctl $c" "$OUT"
done

# usage errors: 64, one line naming the problem
expect_status 64 "$HSCTL"
expect_grep 'no command given' "$ERR"
expect_eq "$OUT" ""

expect_status 64 "$HSCTL" frobnicate
expect_grep "unknown command 'frobnicate'" "$ERR"

expect_status 64 "$HSCTL" --bogus policy list
expect_grep "unrecognized option '--bogus'" "$ERR"

expect_status 64 "$HSCTL" -d
expect_grep 'requires an argument' "$ERR"

expect_status 64 "$HSCTL" --format xml policy list
expect_grep "unknown format 'xml' (valid: table, csv, json)" "$ERR"

# a command's own parser names the command
expect_status 64 "$HSCTL" policy --bogus
expect_grep "^hsctl policy: unrecognized option '--bogus'" "$ERR"

# hsctl policy --help: the summary, usage forms and the EXAMPLES block
expect_status 0 "$HSCTL" policy --help
expect_grep '^Usage: hsctl policy \[OPTION...\] \[list\]' "$OUT"
expect_grep 'describe NAME' "$OUT"
expect_grep '^EXAMPLES:' "$OUT"
expect_grep '^ *hsctl policy describe ' "$OUT"
expect_grep '--format' "$OUT"

# writing stdout fails: exit 1 with a message, never 0
if [ -w /dev/full ]; then
	t_st=0
	"$HSCTL" policy list >/dev/full 2>"$T_DIR/full.err" || t_st=$?
	expect_eq "$t_st" 1
	expect_grep '^hsctl: .*No space left on device' "$(cat "$T_DIR/full.err")"
fi

finish
