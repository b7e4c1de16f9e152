#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The bash completion (completion/hsctl), sourced into bash and driven as bash
# drives it: COMP_WORDS and COMP_CWORD set, _hsctl called, COMPREPLY printed
# sorted on one line.  Commands (and that its list is hsctl --help's), a
# command's options, option values, policy names (also after a comma),
# a policy's parameters and a parameter's choices.  Skips without bash.
. "$TESTS_SRCDIR/cli/setup.sh"

command -v bash >/dev/null 2>&1 || skip "no bash"
COMPLETION=$SRCDIR/completion/hsctl
[ -r "$COMPLETION" ] || fail "$COMPLETION is missing"

# comp WORD...: the completions of the last WORD (the one being typed) after
# the others, as bash would ask for them on `hsctl WORD... <TAB>`.
comp() {
	bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_hsctl
		((${#COMPREPLY[@]})) || exit 0
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " "
	' comp "$COMPLETION" "$HSCTL" "$@"
}

# Commands: the list in the script is the one hsctl --help prints.
expect_eq "$(comp '')" "db export fidelity gen import mrc policy record replay report sessions sql "
expect_status 0 "$HSCTL" --help
expect_eq "$(printf '%s\n' "$OUT" | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' |
	LC_ALL=C sort | tr '\n' ' ')" "$(comp '')"
expect_eq "$(comp re)" "record replay report "
expect_eq "$(comp gen s)" "scan-hot scan-mix shared-map "
# Global options; a command's options, from its --help.
expect_eq "$(comp --v)" "--verbose --version "
expect_eq "$(comp replay 1 --pa)" "--pageout --param --paranoid "
expect_eq "$(comp import --b)" "--block-order "
expect_eq "$(comp -d x.db import --f)" "--force --format "
# Option values.
expect_eq "$(comp import --type '')" "csv lirs lis oracle text u32be "
expect_eq "$(comp export --type o)" "oracle "
expect_eq "$(comp import --type lis --block-order '')" "forward reverse "
expect_eq "$(comp replay 1 --damon-model '')" "draws recorded regions "
expect_eq "$(comp --format c)" "csv "
expect_eq "$(comp sessions '')" "list rm show "
# Policy names, from hsctl policy list.
expect_eq "$(comp replay 1 --policy l)" "linux-2q lirs lrfu lru "
expect_eq "$(comp replay 1 --policy lru,c)" "lru,car lru,cart lru,clock lru,clock-pro "
expect_eq "$(comp policy describe hi)" "hitshield "
expect_eq "$(comp policy '')" "describe list "
# Parameters, from hsctl policy describe: POLICY. then POLICY.KEY= then a choice.
expect_eq "$(comp replay 1 --param lr)" "lrfu. lru. "
expect_eq "$(comp replay 1 --param lrfu.)" "lrfu.ghost= lrfu.lambda= "
expect_eq "$(comp replay 1 --param hitshield.co)" "hitshield.cold= hitshield.consume= "
# bash splits "hitshield.hook=" at '=' (COMP_WORDBREAKS): the value is its own word.
expect_eq "$(comp replay 1 --param hitshield.hook = '')" "after_first_touch top "
expect_eq "$(comp replay 1 --param lrfu.ghost = t)" "true "
# A number has no list of choices.
expect_eq "$(comp replay 1 --param lrfu.lambda = '')" ""

finish
