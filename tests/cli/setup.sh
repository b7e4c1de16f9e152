# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared prelude for the CLI tests, sourced by every tests/cli/*.sh:
#     . "$TESTS_SRCDIR/cli/setup.sh"
# It sets strict shell options and the C locale, makes a private temporary
# directory (removed on exit) and changes into it, and exports DB, a database
# path inside it.  Helpers: fail MSG (hard failure, exit 1); skip MSG (exit
# 77); expect_status N CMD... (runs CMD, checks its exit status, leaves its
# stdout in $OUT and stderr in $ERR); expect_grep / expect_no_grep PATTERN
# TEXT (basic regular expression, like grep); expect_eq GOT WANT; finish
# (prints "N passed, N failed", exits 0 or 1).  Assertions that fail print
# one "FAIL:" line and let the test go on.  Needs $HSCTL (skip when unset)
# and $TESTDATA; $SRCDIR is the source tree when $TESTS_SRCDIR is set.
# POSIX sh only.

set -eu
LC_ALL=C
export LC_ALL

if [ -z "${HSCTL:-}" ]; then
	echo "SKIP: HSCTL is not set (run through 'make check')"
	exit 77
fi
if [ ! -x "$HSCTL" ]; then
	echo "ERROR: HSCTL=$HSCTL is not an executable"
	exit 99
fi
if [ -z "${TESTDATA:-}" ]; then
	echo "ERROR: TESTDATA is not set"
	exit 99
fi

SRCDIR=
if [ -n "${TESTS_SRCDIR:-}" ]; then
	SRCDIR=$(cd "$TESTS_SRCDIR/.." && pwd)
fi
export SRCDIR

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hsctl-test.XXXXXX")
t_cleanup() {
	cd /
	rm -rf "$T_DIR"
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP
cd "$T_DIR"

DB=$T_DIR/hsctl.db
export DB

T_PASSED=0
T_FAILED=0
OUT=
ERR=

# fail MSG: report MSG and stop the test now.
fail() {
	echo "FAIL: $*"
	exit 1
}

# skip MSG: the whole test cannot run here.
skip() {
	echo "SKIP: $*"
	exit 77
}

t_ok() {
	T_PASSED=$((T_PASSED + 1))
}

t_bad() {
	T_FAILED=$((T_FAILED + 1))
	echo "FAIL: $*"
}

# expect_status N CMD...: run CMD; its status must be N.  Sets $OUT and $ERR.
expect_status() {
	t_want=$1
	shift
	t_st=0
	"$@" >"$T_DIR/.out" 2>"$T_DIR/.err" || t_st=$?
	# shellcheck disable=SC2034 # read by the tests that source this file
	OUT=$(cat "$T_DIR/.out")
	ERR=$(cat "$T_DIR/.err")
	if [ "$t_st" -eq "$t_want" ]; then
		t_ok
		return 0
	fi
	t_bad "'$*' exited $t_st, expected $t_want"
	if [ -n "$ERR" ]; then
		printf '%s\n' "$ERR" | sed 's/^/    stderr: /' | head -n 10
	fi
	return 0
}

# expect_grep PATTERN TEXT: TEXT must contain a line matching PATTERN.
expect_grep() {
	if printf '%s\n' "$2" | grep -q -e "$1"; then
		t_ok
	else
		t_bad "no line matches '$1' in:"
		printf '%s\n' "$2" | sed 's/^/    /' | head -n 20
	fi
	return 0
}

# expect_no_grep PATTERN TEXT: no line of TEXT may match PATTERN.
expect_no_grep() {
	if printf '%s\n' "$2" | grep -q -e "$1"; then
		t_bad "a line matches '$1' in:"
		printf '%s\n' "$2" | sed 's/^/    /' | head -n 20
	else
		t_ok
	fi
	return 0
}

# expect_eq GOT WANT: two strings must be equal.
expect_eq() {
	if [ "$1" = "$2" ]; then
		t_ok
	else
		t_bad "got '$1', expected '$2'"
	fi
	return 0
}

# finish: the summary line; exit 1 if anything failed.
finish() {
	echo "$T_PASSED passed, $T_FAILED failed"
	if [ "$T_FAILED" -ne 0 ]; then
		exit 1
	fi
	exit 0
}
