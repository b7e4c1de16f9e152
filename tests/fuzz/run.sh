#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run libFuzzer harnesses for a bounded time each: what `make fuzz` and .ci/run call.
#
#   run.sh CORPUS_DIR PROGRAM...
#
# For each tests/fuzz/fuzz-NAME it starts from the seeds in CORPUS_DIR/NAME (read only: the
# repository's corpus grows by hand, see tests/fuzz/README) and from what earlier runs found in
# $FUZZ_WORK/NAME (default ./fuzz-work/NAME), which is where new inputs go, and fuzzes for
# $FUZZ_TIME seconds (default 60).  A crash, a broken property, a leak, a time-out (10 s per
# input) or running out of memory stops that harness; its input is kept as
# $FUZZ_WORK/NAME-crash-... and the log as $FUZZ_WORK/NAME.log.  One line per harness says
# what ran; the exit status is 1 when any harness failed, 2 on bad usage.
set -u

if [ $# -lt 2 ] || [ ! -d "$1" ]; then
	echo "usage: $0 CORPUS_DIR PROGRAM..." >&2
	exit 2
fi
corpus=$1
shift
time=${FUZZ_TIME:-60}
work=${FUZZ_WORK:-fuzz-work}
mkdir -p "$work" || exit 2
failed=0

for prog; do
	name=$(basename "$prog")
	name=${name#fuzz-}
	mkdir -p "$work/$name"
	log=$work/$name.log
	"$prog" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$name-" "$work/$name" "$corpus/$name" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([^ ]*\).*/cov \1, ft \2, corpus \3/p')
	if [ "$rc" = 0 ]; then
		echo "fuzz $name: ok, ${runs:-?} runs in ${time} s, ${cov:-no stats}"
	else
		failed=1
		echo "fuzz $name: FAILED (exit $rc) after ${runs:-?} runs, ${cov:-no stats}; log $log"
		grep -E 'ERROR|property broken|SUMMARY|Test unit written|runtime error' "$log" |
			head -20 | sed 's/^/    /'
	fi
done
exit "$failed"
