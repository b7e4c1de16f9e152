#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hsctl policy list / describe: the list holds exactly the policies of the
# registry (names read from POLICY_MODULES in Makefile.am, the list the
# registry is built from, and each ops table's .name in the source, not from
# hsctl), in every format; describe shows a policy's parameters; an unknown
# policy exits 64 naming every valid one.
. "$TESTS_SRCDIR/cli/setup.sh"

# POLICY_MODULES lines "policies/<file>.c" in list order (var = file, - as _), then each
# var's .name.
VARS=$(sed -n '/^POLICY_MODULES[[:space:]]*=/,/[^\\]$/ s|^.*policies/\([a-z0-9_-]*\)\.c.*$|\1|p' \
	"$SRCDIR/Makefile.am" | tr - _)
[ -n "$VARS" ] || fail "no policies found in POLICY_MODULES of $SRCDIR/Makefile.am"
NAMES=
for v in $VARS; do
	n=$(awk -v def="hs_policy_ops hs_policy_$v = " '
		index($0, def) { f = 1 }
		f && /\.name[[:space:]]*=/ { sub(/^[^"]*"/, ""); sub(/".*/, ""); print; exit }
	' "$SRCDIR"/policies/*.c)
	[ -n "$n" ] || fail "no .name for hs_policy_$v in $SRCDIR/policies"
	NAMES=${NAMES:+$NAMES }$n
done
NR=$(printf '%s\n' "$NAMES" | wc -w | tr -d ' ')
VALID=$(printf '%s\n' "$NAMES" | sed 's/ /, /g')

if command -v python3 >/dev/null 2>&1; then
	HAVE_PY=1
else
	HAVE_PY=0
	echo "note: python3 not found, JSON output is not parsed"
fi

# json_check PYTHON-EXPR TEXT: TEXT parses as JSON and EXPR (over d) is true.
json_check() {
	if [ "$HAVE_PY" -eq 0 ]; then
		return 0
	fi
	if printf '%s\n' "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" >"$T_DIR/py.err" 2>&1; then
		t_ok
	else
		t_bad "JSON check '$1' failed:"
		sed 's/^/    /' "$T_DIR/py.err" | tail -n 3
		printf '%s\n' "$2" | head -n 5 | sed 's/^/    /'
	fi
}

# --- list, table: a header and one row per registered policy, in registry order
expect_status 0 "$HSCTL" policy list
# the default table fits in 80 columns
expect_eq "$(printf '%s\n' "$OUT" | awk 'length > 80' | head -n 1)" ""
expect_grep '^name  *params  *summary$' "$OUT"
for n in $NAMES; do
	expect_grep "^$n  *[0-9][0-9]*  *[^ ]" "$OUT"
done
expect_eq "$(printf '%s\n' "$OUT" | sed 1d | awk '{print $1}' | tr '\n' ' ')" "$NAMES "
expect_eq "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" "$((NR + 1))"
LIST=$OUT

# no action is list
expect_status 0 "$HSCTL" policy
expect_eq "$OUT" "$LIST"

# --- list, csv: header plus one line each
expect_status 0 "$HSCTL" policy list --format csv
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" "name,params,summary"
expect_eq "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" "$((NR + 1))"
expect_eq "$(printf '%s\n' "$OUT" | sed 1d | cut -d, -f1 | tr '\n' ' ')" "$NAMES "

# --- list, json, via the global option and the local one
expect_status 0 "$HSCTL" --format json policy list
json_check "[p['name'] for p in d] == '$NAMES'.split() and \
all(isinstance(p['params'], int) and p['summary'] for p in d)" "$OUT"
expect_status 0 "$HSCTL" policy list --format=json
json_check "len(d) == $NR" "$OUT"

# --- describe a policy with parameters: lrfu has lambda in [0, 1] (issue 2)
expect_status 0 "$HSCTL" policy describe lrfu
expect_grep '^lrfu: ' "$OUT"
expect_grep '^name  *type  *default  *range  *help$' "$OUT"
expect_grep '^lambda  *number  *[0-9.e-]*  *\[0, 1\]  *[^ ]' "$OUT"
expect_grep 'lrfu\.NAME=VALUE' "$OUT"
expect_no_grep '^flags:' "$OUT"

expect_status 0 "$HSCTL" policy describe lrfu --format csv
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" "name,type,default,range,help"
expect_grep '^lambda,number,[0-9.e-]*,"\[0, 1\]",' "$OUT"

expect_status 0 "$HSCTL" policy describe lrfu --format json
json_check "d['name'] == 'lrfu' and d['offline'] is False and \
[p for p in d['params'] if p['name'] == 'lambda'][0]['range'] == '[0, 1]'" "$OUT"

# every registered policy describes, in every format
for n in $NAMES; do
	expect_status 0 "$HSCTL" policy describe "$n"
	expect_grep "^$n: [^ ]" "$OUT"
	expect_status 0 "$HSCTL" policy describe "$n" --format json
	json_check "d['name'] == '$n' and isinstance(d['params'], list)" "$OUT"
	expect_status 0 "$HSCTL" policy describe "$n" --format csv
	expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p)" "name,type,default,range,help"
done

# opt looks ahead: flagged offline
expect_status 0 "$HSCTL" policy describe opt
expect_grep '^flags: offline (needs the future)$' "$OUT"
expect_status 0 "$HSCTL" policy describe opt --format json
json_check "d['offline'] is True" "$OUT"

# a policy without parameters says so
expect_status 0 "$HSCTL" policy describe lru
expect_grep '^parameters: none$' "$OUT"

# --- usage errors: 64 and one line
expect_status 64 "$HSCTL" policy describe nope
expect_eq "$ERR" "hsctl: unknown policy 'nope' (valid: $VALID)"
expect_eq "$OUT" ""

expect_status 64 "$HSCTL" policy describe
expect_grep 'describe needs a policy NAME' "$ERR"

expect_status 64 "$HSCTL" policy describe lru arc
expect_grep "unexpected argument 'arc'" "$ERR"

expect_status 64 "$HSCTL" policy frob
expect_grep "unknown action 'frob' (valid: list, describe)" "$ERR"

expect_status 64 "$HSCTL" policy list --format xml
expect_eq "$ERR" "hsctl: unknown format 'xml' (valid: table, csv, json)"

# --- hsctl-policies(7) describes every policy and every parameter with its default
MAN7=$MANDIR/hsctl-policies.7
[ -r "$MAN7" ] || fail "$MAN7 is missing"
expect_status 0 "$HSCTL" --format csv policy list
for pol in $(printf '%s\n' "$OUT" | sed -n '2,$s/,.*//p'); do
	expect_grep "^\.B $(printf '%s' "$pol" | sed 's/-/\\\\-/g')\$" "$(cat "$MAN7")"
	"$HSCTL" --format csv policy describe "$pol" | sed 1d | cut -d, -f1,3 >params.csv
	while IFS=, read -r key def; do
		expect_grep "^\.IP \"\\\\fB$key\\\\fR = $def\" 4\$" "$(cat "$MAN7")"
	done <params.csv
done

finish
