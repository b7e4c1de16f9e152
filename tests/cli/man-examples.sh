#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every command in the EXAMPLES section of every man page runs and exits 0.
# Each page gets a fresh database that already holds session 1 (a small zipf
# session), and runs in a scratch directory where testdata/ is the source
# tree's, so examples may name files under testdata/.  Roff escapes (\- and
# \e) are undone before running; "hsctl" becomes "$HSCTL -d $DB".
. "$TESTS_SRCDIR/cli/setup.sh"

[ -n "${MANDIR:-}" ] || fail "MANDIR is not set"
ln -s "$TESTDATA" "$T_DIR/testdata"
n=0
for page in "$MANDIR"/*.1 "$MANDIR"/*.5; do
	name=$(basename "$page")
	rm -f "$DB" "$DB-wal" "$DB-shm"
	expect_status 0 "$HSCTL" -d "$DB" gen zipf --seed 1 --accesses 2000 --keys 500
	# the lines from .SH EXAMPLES to the next .SH that start with "hsctl "
	sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$page" | grep '^hsctl ' |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(aq/'"'"'/g' >"$T_DIR/.examples" || true
	while IFS= read -r line; do
		n=$((n + 1))
		rest=${line#hsctl }
		st=0
		eval "\"\$HSCTL\" -d \"\$DB\" $rest" >"$T_DIR/.out" 2>"$T_DIR/.err" </dev/null ||
			st=$?
		if [ "$st" -eq 0 ]; then
			t_ok
		else
			t_bad "$name: '$line' exited $st"
			sed 's/^/    stderr: /' "$T_DIR/.err" | head -n 5
		fi
	done <"$T_DIR/.examples"
done
[ "$n" -gt 10 ] || t_bad "only $n examples found in $MANDIR"
finish
