#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The EXAMPLES in every command's --help name only options that exist: each
# token starting with "-" in an example line ("    hsctl ...") must be in the
# option list of that command's --help or of the global `hsctl --help`
# (tokens after a bare "--" belong to the recorded command; "&&" and "|"
# start another command).  The command list comes from `hsctl --help`, so a
# new command's examples are checked too.  (Man page examples are run by
# man-examples.sh; these are only parsed, since record needs root.)
#
# And argp prints them whole: argp wraps doc text at its right margin (79
# columns unless ARGP_HELP_FMT says otherwise), which would split an example
# mid-command and break copy and paste.  Every example line in the source
# (a string literal "    ..." in cli/*.c) must appear as one whole line of
# some --help output, also with COLUMNS=60.  No page ends in a "Report bugs
# to" line: hsctl has no bug address (it used to print a placeholder URL).
. "$TESTS_SRCDIR/cli/setup.sh"

# opts_of HELPFILE: the option names in an argp --help, one a line
# ("  -f, --format=FMT   ..." gives -f and --format).
opts_of() {
	sed -n 's/^  *\(-[^ ].*\)$/\1/p' "$1" | sed 's/   .*//' | tr ',' '\n' |
		sed -e 's/^ *//' -e 's/[=[].*//' -e 's/ .*//' | grep '^-' | sort -u
}

"$HSCTL" --help >top.help || fail "hsctl --help exited $?"
opts_of top.help >top.opts
grep -q '^--db$' top.opts || fail "no --db in the global options: $(cat top.opts)"
# the command names: the lines of the "Commands:" section
sed -n '/^Commands:$/,/^$/p' top.help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' >cmds
[ "$(wc -l <cmds)" -ge 10 ] || fail "only $(wc -l <cmds) commands in hsctl --help"

# check_line CMDLINE: every option of each hsctl command in CMDLINE exists.
check_line() {
	set -f
	# shellcheck disable=SC2086 # split into words on purpose
	set -- $1
	set +f
	cmd=
	in_hsctl=0
	for w in "$@"; do
		case $w in
		hsctl)
			in_hsctl=1
			cmd=
			continue ;;
		'&&' | '|' | '||' | ';' | '#'*)
			in_hsctl=0
			continue ;;
		--)
			in_hsctl=0
			continue ;;
		esac
		[ "$in_hsctl" -eq 1 ] || continue
		case $w in
		-*)
			o=${w%%=*}
			case $o in
			--*) ;;
			*) o=$(printf '%s' "$o" | cut -c1-2) ;;	# -m64M: -m
			esac
			n=$((n + 1))
			if [ -n "$cmd" ] && grep -qxe "$o" "$cmd.opts"; then
				t_ok
			elif grep -qxe "$o" top.opts; then
				t_ok
			else
				t_bad "hsctl ${cmd:-} --help example '$line': no option $o"
			fi ;;
		*)
			if [ -z "$cmd" ] && grep -qx "$w" cmds; then
				cmd=$w
				[ -e "$cmd.opts" ] || t_bad "example names an unknown command '$w'"
			fi ;;
		esac
	done
}

n=0
lines=0
while IFS= read -r c; do
	"$HSCTL" "$c" --help >"$c.help" || t_bad "hsctl $c --help exited $?"
	opts_of "$c.help" >"$c.opts"
done <cmds
cp top.help top-level.help
for h in top-level $(cat cmds); do
	grep '^    hsctl ' "$h.help" >"$h.ex" || t_bad "hsctl $h --help has no example line"
	while IFS= read -r line; do
		lines=$((lines + 1))
		check_line "$line"
	done <"$h.ex"
done
[ "$lines" -ge 40 ] || t_bad "only $lines example lines found"
[ "$n" -ge 40 ] || t_bad "only $n options checked"

# --- no example line is wrapped ---
[ -n "$SRCDIR" ] || fail "SRCDIR is not set"
# the literals that start with four spaces, unescaped (\", \\) and without \n"
grep -h '^[[:space:]]*"    ' "$SRCDIR"/cli/*.c |
	sed -e 's/^[[:space:]]*"//' -e 's/\\n"[^"]*$//' -e 's/\\"/"/g' -e 's/\\\\/\\/g' >src.ex
[ "$(wc -l <src.ex)" -ge 40 ] || fail "only $(wc -l <src.ex) example lines in $SRCDIR/cli"
unset ARGP_HELP_FMT
for cols in "" 60; do
	: >all.help
	for c in "" $(cat cmds); do
		# shellcheck disable=SC2086 # no command word for the top level
		COLUMNS=$cols "$HSCTL" $c --help >>all.help
	done
	while IFS= read -r ex; do
		if grep -qFx -e "$ex" all.help; then
			t_ok
		else
			t_bad "COLUMNS=$cols: example split or missing in --help: '$ex'"
		fi
	done <src.ex
	expect_no_grep 'Report bugs\|example\.invalid' "$(cat all.help)"
done
finish
