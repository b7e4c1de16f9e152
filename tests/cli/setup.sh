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
# (prints "N passed, N failed", exits 0 or 1); live_lock [WHAT] (takes the
# live-test lock on fd 9, or skips after a bounded wait; see below).
# Assertions that fail print one "FAIL:" line and let the test go on.  Needs
# $HSCTL (skip when unset) and $TESTDATA; $SRCDIR is the source tree when
# $TESTS_SRCDIR is set.  POSIX sh, with flock(1) for live_lock.

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

# live_lock [WHAT]: take the live-test lock, held on fd 9 until the test
# exits.  Live tests (tracefs mounts, zram swap, memory pressure) run one at
# a time on a machine: flock on /tmp/hsctl-live.lock ($HSCTL_LIVE_LOCK
# overrides the path, for tests of the lock itself), the protocol of
# t_live_lock() in tests/harness.c.  Once held, "PID WHAT" ($$ and WHAT,
# default $0) is written into the file.  While another holds it, one line
# "waiting for LOCK held by PID (WHAT)" goes to stderr; after
# $HSCTL_LIVE_LOCK_WAIT seconds (default 300, 0: do not wait) the test is
# skipped (exit 77) naming the holder.
live_lock() {
	t_lock=${HSCTL_LIVE_LOCK:-/tmp/hsctl-live.lock}
	t_wait=${HSCTL_LIVE_LOCK_WAIT:-300}
	case $t_wait in
	'' | *[!0-9]*) t_wait=300 ;;
	esac
	command -v flock >/dev/null 2>&1 || skip "no flock(1) for $t_lock"
	exec 9<>"$t_lock" || skip "cannot open $t_lock"
	if ! flock -n 9; then
		echo "waiting for $t_lock held by $(exec 9<&-; t_lock_holder "$t_lock")" >&2
		if ! flock -w "$t_wait" 9; then
			skip "$t_lock held by $(exec 9<&-; t_lock_holder "$t_lock") for $t_wait s (HSCTL_LIVE_LOCK_WAIT)"
		fi
	fi
	printf '%s %s\n' "$$" "${1:-$0}" >"$t_lock"
}

# t_lock_holder LOCK: "PID (COMMAND)" of the holder, as t_live_lock() finds it:
# the live pid /proc/locks shows (with the command LOCK records for it, else its
# command line), else the live pid LOCK records, else "an unknown process" and
# the processes that have LOCK open, the holder among them.
# need_tracefs: skip (77) unless tracefs is mounted or can be (a probe mount,
# undone at once).  Call it after live_lock: another live test's hsctl mounts
# tracefs while it records and unmounts it when done.
need_tracefs() {
	grep -q ' tracefs ' /proc/mounts && return 0
	mkdir -p /sys/kernel/tracing 2>/dev/null || true
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "tracefs cannot be mounted here"
	umount /sys/kernel/tracing
}

t_lock_holder() {
	t_rec=$(head -n 1 "$1" 2>/dev/null || true)
	t_rpid=${t_rec%% *}
	case $t_rpid in
	'' | *[!0-9]*) t_rpid=0 ;;
	esac
	t_ino=$(stat -c %i "$1" 2>/dev/null || echo 0)
	t_lpid=$(awk -v ino=":$t_ino" '$2 == "FLOCK" &&
		substr($6, length($6) - length(ino) + 1) == ino { print $5; exit }' \
		/proc/locks 2>/dev/null || true)
	if [ -n "$t_lpid" ] && [ "$t_lpid" != "$t_rpid" ] && [ -e "/proc/$t_lpid" ]; then
		echo "$t_lpid ($(tr '\0' ' ' <"/proc/$t_lpid/cmdline" 2>/dev/null | sed 's/ $//'))"
	elif [ "$t_rpid" -gt 0 ] && [ -e "/proc/$t_rpid" ]; then
		echo "$t_rpid (${t_rec#* })"
	else
		t_id=$(stat -L -c '%d:%i' "$1" 2>/dev/null || echo none)
		# shellcheck disable=SC2016 # awk's own $ fields
		t_open=$(stat -L -c '%d:%i %n' /proc/[0-9]*/fd/* 2>/dev/null |
			awk -v id="$t_id" -v me="$$" '$1 == id {
				split($2, p, "/"); if (p[3] != me && !seen[p[3]]++) printf " %s", p[3] }' ||
			true)
		echo "an unknown process${t_open:+ (open in$t_open)}"
	fi
}
