#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fault injection, the way SQLite's and jq's tests do it: run a command with
# its Nth allocation, or its Nth write, made to fail, for N = 1, 2, ... until
# the command succeeds, and check that every failing run ends cleanly.  Needs
# a build configured with --enable-fault-injection (lib/fault.c); any other
# build skips (77).  The recorder's offline build gets the same loop in C,
# in one process: tests/t-faults.c.
#
# The fault is chosen by the environment (lib/fault.h):
#   HSCTL_FAULT_ALLOC=N    fail the Nth allocation (hsctl's own and SQLite's)
#   HSCTL_FAULT_IO=N       fail the Nth write (SQLite's xWrite/xSync/xTruncate,
#                          hsctl's fwrite/fflush/fclose/gzwrite/gzclose)
#   HSCTL_FAULT_PERSIST=1  fail every counted call from the Nth on
#   HSCTL_FAULT_REPORT=F   write "allocs writes fired" to F at exit
# and this test by:
#   HSCTL_FAULTS_FULL=1    every N from 1 until the command succeeds, each N
#                          once failing only that call and once persistently
#                          (`make check-faults`); otherwise a sample (below)
#   HSCTL_FAULTS_SAMPLES=K the sample's size per command and kind (default 8)
#   HSCTL_FAULTS_ONLY=PAT  only the commands whose name below matches the
#                          shell pattern PAT ("replay*")
#
# The commands: import of a lirs file into a new database (the schema's
# creation) and of text (gzip) and oracle files into one that has sessions
# (testdata/traces), gen, replay of mglru, arc and opt (storing the runs),
# replay --no-store, and sql.  Each is first run with counting only, which
# says how many allocations and writes it makes and what a good run prints
# and stores.  The sample: N = 1..4, K more spread evenly, the last 8 (the
# commit and the clean-up), each run on a fresh copy of the database, every
# other N persistent; all N when there are at most K + 12.  A command makes
# about 2600 to 14000 allocations and 30 to 270 writes, and a run under ASan
# costs about 0.3 s of CPU with its check, so the sample (about 230 runs) is
# what keeps `make check` near a minute; the full loop is some 80000 runs.
#
# After each run with a fault fired: no crash (no signal, no sanitizer
# report: ASan's and UBSan's exit codes are set to 86 and 87, leak checking
# on), exit status 1 (runtime failure; hsctl(1)), standard error one line
# "hsctl: ..." (warnings aside; with persistent write faults standard output
# fails too, and main()'s "writing standard output" may follow), PRAGMA
# integrity_check ok, and the database either as before the command or as
# after a good run (sessions, their statuses, chunks, keys and runs
# counted): no partial session or run set.  A new database that a failed
# command leaves behind, with its schema or none, must serve it again.
# A run whose fault fired but which succeeded (SQLite recovers from some
# failed allocations by itself) must print and store what a good run does.

. "$TESTS_SRCDIR/cli/setup.sh"

T=$TESTDATA/traces
unset HSCTL_FAULT_ALLOC HSCTL_FAULT_IO HSCTL_FAULT_PERSIST HSCTL_FAULT_REPORT

HSCTL_FAULT_REPORT=$T_DIR/probe "$HSCTL" policy list >/dev/null 2>&1 || true
[ -s "$T_DIR/probe" ] ||
	skip "hsctl was built without fault injection (configure --enable-fault-injection)"
unset HSCTL_FAULT_REPORT

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:exitcode=86"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1:exitcode=87"
export ASAN_OPTIONS UBSAN_OPTIONS

FULL=${HSCTL_FAULTS_FULL:-0}
SAMPLES=${HSCTL_FAULTS_SAMPLES:-8}
case $SAMPLES in
'' | *[!0-9]*) SAMPLES=8 ;;
esac

# The database's shape: sessions, unfinished ones, chunks, key chunks, runs,
# and PRAGMA integrity_check's verdict.
state() {
	ASAN_OPTIONS=detect_leaks=0 "$HSCTL" -d "$1" --format csv sql "SELECT (SELECT count(*) FROM sessions) || '/' ||
		(SELECT count(*) FROM sessions WHERE status <> 'complete') || '/' ||
		(SELECT count(*) FROM access_chunks) || '/' ||
		(SELECT count(*) FROM session_keys) || '/' ||
		(SELECT count(*) FROM runs) || '/' ||
		(SELECT group_concat(integrity_check) FROM pragma_integrity_check) AS s" 2>&1 |
		tail -n 1
}

# A template database with two sessions: the demo trace and a small gen.
TPL=$T_DIR/tpl.db
"$HSCTL" -d "$TPL" import --type lirs --name demo "$TESTDATA/demo.trace" >/dev/null ||
	fail "cannot make the template database"
"$HSCTL" -d "$TPL" gen zipf --accesses 300 --keys 60 --seed 3 >/dev/null ||
	fail "cannot make the template database"
rm -f "$TPL-wal" "$TPL-shm"

NR_RUNS=0	# commands run with a fault chosen
NR_FIRED=0	# of them, those whose fault was reached
NR_ABSORBED=0	# of those, the ones that succeeded all the same
NR_BAD=0	# runs that broke a rule

# fresh FROM: the run's database, a copy of FROM ("-": none).
fresh() {
	rm -f "$T_DIR/run.db" "$T_DIR/run.db-wal" "$T_DIR/run.db-shm" "$T_DIR/run.db-journal"
	if [ "$1" != - ]; then
		cp "$1" "$T_DIR/run.db"
	fi
}

# bad WHAT: one broken rule of one run.
bad() {
	NR_BAD=$((NR_BAD + 1))
	t_bad "$C_NAME, $C_DESC: $*"
	if [ -s "$T_DIR/err" ]; then
		sed 's/^/    stderr: /' "$T_DIR/err" | head -n 12
	fi
}

# one KIND N PERSIST: run the case's command with that fault; check it.  Sets
# R_ST and R_FIRED.
one() {
	o_kind=$1
	o_n=$2
	o_persist=$3
	shift 3
	C_DESC="HSCTL_FAULT_$o_kind=$o_n${o_persist:+ persistent}"
	fresh "$C_FROM"
	rm -f "$T_DIR/rep"
	R_ST=0
	env "HSCTL_FAULT_$o_kind=$o_n" ${o_persist:+HSCTL_FAULT_PERSIST=1} \
		HSCTL_FAULT_REPORT="$T_DIR/rep" "$HSCTL" -d "$T_DIR/run.db" "$@" >"$T_DIR/out" 2>"$T_DIR/err" || R_ST=$?
	NR_RUNS=$((NR_RUNS + 1))
	R_FIRED=0
	if [ -s "$T_DIR/rep" ]; then
		R_FIRED=$(cut -d ' ' -f 3 "$T_DIR/rep")
	fi
	if [ "$R_ST" -gt 128 ] || [ "$R_ST" -eq 86 ] || [ "$R_ST" -eq 87 ] || [ ! -s "$T_DIR/rep" ]
	then
		bad "crashed: exit status $R_ST"
		return 0
	fi
	if [ "$R_FIRED" -gt 0 ]; then
		NR_FIRED=$((NR_FIRED + 1))
	fi
	if [ "$R_ST" -eq 0 ]; then
		if [ "$R_FIRED" -gt 0 ]; then
			NR_ABSORBED=$((NR_ABSORBED + 1))
		fi
		cmp -s "$T_DIR/out" "$T_DIR/ref.out" || bad "succeeded with other output"
		[ ! -s "$T_DIR/err" ] || bad "succeeded with messages"
		r_state=$(state "$T_DIR/run.db")
		[ "$r_state" = "$C_OK" ] || bad "succeeded, database $r_state, not $C_OK"
		t_ok
		return 0
	fi
	if [ "$R_FIRED" -eq 0 ]; then
		bad "failed (exit status $R_ST) without a fault"
		return 0
	fi
	[ "$R_ST" -eq 1 ] || bad "exit status $R_ST, not 1"
	# persistent, standard output fails too: main() may say so after the error
	r_lines=$(grep -vc '^hsctl: warning: ' "$T_DIR/err" || true)
	r_other=$(grep -vc '^hsctl: ' "$T_DIR/err" || true)
	if [ -n "$o_persist" ] && [ "$r_lines" -eq 2 ] &&
		tail -n 1 "$T_DIR/err" | grep -q '^hsctl: writing standard output: '; then
		r_lines=1
	fi
	[ "$r_lines" -eq 1 ] && [ "$r_other" -eq 0 ] ||
		bad "not one line 'hsctl: ...' on stderr"
	if [ "$C_FROM" = - ] && [ ! -s "$T_DIR/run.db" ]; then
		t_ok	# no database made: nothing to check
		return 0
	fi
	r_state=$(state "$T_DIR/run.db")
	if [ "$C_FROM" = - ] && { [ "$r_state" = 0/0/0/0/0/ok ] ||
		[ "${r_state%not an hsctl database (empty file)}" != "$r_state" ]; }; then
		:	# a new database, with its schema or none yet, no session
	elif [ "${r_state##*/}" != ok ]; then
		bad "integrity_check: $r_state"
	elif [ "$r_state" != "$C_BEFORE" ] && [ "$r_state" != "$C_OK" ]; then
		bad "database $r_state: neither as before ($C_BEFORE) nor as after it ($C_OK)"
	fi
	if [ "$C_FROM" = - ]; then
		# a new database a failed command made must serve the next one
		r_st=0
		"$HSCTL" -d "$T_DIR/run.db" "$@" >/dev/null 2>"$T_DIR/err" || r_st=$?
		[ "$r_st" -eq 0 ] || bad "the database left behind fails the command again ($r_st)"
	fi
	t_ok
}

# ns TOTAL: the N to try for a command that counted TOTAL calls of a kind.
ns() {
	if [ "$1" -le $((SAMPLES + 12)) ]; then
		seq 1 "$1"
		return 0
	fi
	seq 1 4
	awk -v t="$1" -v k="$SAMPLES" 'BEGIN {
		for (i = 1; i <= k; i++) print 4 + int(i * (t - 12) / (k + 1)) }'
	seq $(($1 - 7)) "$1"
}

# case NAME FROM CMD...: the fault loop of one command, on a copy of FROM
# ("-": a new database).
case_() {
	C_NAME=$1
	C_FROM=$2
	shift 2
	case $C_NAME in
	${HSCTL_FAULTS_ONLY:-*}) ;;
	*) return 0 ;;
	esac
	fresh "$C_FROM"
	C_BEFORE=$(state "$T_DIR/run.db")
	rm -f "$T_DIR/rep"
	c_st=0
	HSCTL_FAULT_ALLOC=0 HSCTL_FAULT_REPORT="$T_DIR/rep" \
		"$HSCTL" -d "$T_DIR/run.db" "$@" >"$T_DIR/ref.out" 2>"$T_DIR/err" || c_st=$?
	[ "$c_st" -eq 0 ] || fail "$C_NAME: exit status $c_st without a fault: $(cat "$T_DIR/err")"
	C_OK=$(state "$T_DIR/run.db")
	c_allocs=$(cut -d ' ' -f 1 "$T_DIR/rep")
	c_ios=$(cut -d ' ' -f 2 "$T_DIR/rep")
	c_runs=$NR_RUNS
	c_bad=$NR_BAD
	for kind in ALLOC IO; do
		if [ $kind = ALLOC ]; then c_total=$c_allocs; else c_total=$c_ios; fi
		if [ "$FULL" = 1 ]; then
			for persist in '' 1; do
				n=1
				while :; do
					one $kind $n "$persist" "$@"
					[ "$R_FIRED" -gt 0 ] || break
					[ $n -le $((c_total * 2 + 100)) ] || { bad "no end"; break; }
					n=$((n + 1))
				done
			done
		else
			i=0
			for n in $(ns "$c_total"); do
				persist=
				[ $((i % 2)) -eq 0 ] || persist=1
				one $kind "$n" "$persist" "$@"
				i=$((i + 1))
			done
			# then on until the command succeeds (with threads the count varies)
			n=$((c_total + 1))
			while :; do
				one $kind "$n" '' "$@"
				[ "$R_FIRED" -gt 0 ] || break
				[ $n -le $((c_total + 100)) ] || { bad "no end"; break; }
				n=$((n + 1))
			done
			[ "$R_ST" -eq 0 ] || bad "N = $n is past every call but did not succeed"
		fi
	done
	echo "# $C_NAME: $c_allocs allocations, $c_ios writes; $((NR_RUNS - c_runs)) runs," \
		"$((NR_BAD - c_bad)) broke a rule"
}

case_ "import, new database" - import --type lirs "$T/small.lirs"
case_ "import text" "$TPL" import --type text "$T/small.txt.gz"
case_ "import oracle" "$TPL" import --type oracle "$T/small.oracle.bin"
case_ gen "$TPL" gen zipf --accesses 500 --keys 100 --seed 1
case_ replay "$TPL" replay 1 --policy mglru,arc,opt --size 50 --threads 1
case_ "replay --no-store" "$TPL" replay 2 --policy mglru,arc,opt --size 20 --no-store
case_ sql "$TPL" sql "SELECT session, name, accesses FROM v_sessions ORDER BY session"

echo "# $NR_RUNS runs with a fault, $NR_FIRED reached it, $NR_ABSORBED succeeded all" \
	"the same; $NR_BAD broke a rule"
finish
