#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The LRU arms of Debian's own 6.12 cloud kernel, side by side: MGLRU on and
# off, and DAMON_LRU_SORT over each (issue 10, item 2).  Boots every arm
# ROUNDS times with mglru-lab.sh, rotating the order from round to round (so
# drift on this shared host falls on every arm), the same LAB_RUN_*
# recordings and seeds on every boot, then prints the kernel's counters per
# arm and workload, mean [min..max] over the boots, and the models' replay of
# each recorded stream.  Not part of `make check`: root, minutes per boot
# under TCG.
set -euo pipefail

PROG=${0##*/}
LABDIR=$(cd "$(dirname "$0")" && pwd)
WORK=/var/tmp/hsctl-lab
ROUNDS=3
ARMS=mglru,classic,damon-classic,damon-mglru
LOCK=
LABARGS=()
SUMONLY=

usage() {
	cat <<EOF
Usage: $PROG [-r ROUNDS] [-a ARM,...] [-w WORK] [--lock FILE] [-- MGLRU-LAB-OPTION...]
       $PROG --summary DIR
Boot Debian's 6.12 cloud kernel in each arm ROUNDS times (default $ROUNDS),
rotating the arms' order every round, with tests/lab/mglru-lab.sh -k 6.12 and
the LAB_RUN_* recordings of the environment, and summarise per arm and
workload: pswpin, pswpout (machine vmstat), refaults and major faults (the
recording's memory cgroup), demand misses and pages read ahead (the replay's
kernel row), runtime, and what DAMON_LRU_SORT sorted during the run.

Arms (default: all, in this order):
  mglru          --lru-gen y
  classic        --lru-gen n
  damon-classic  --lru-gen n --damon-lru-sort y
  damon-mglru    --lru-gen y --damon-lru-sort y

  --lock FILE    take FILE with flock(1) for each boot, not for the whole run
  --summary DIR  summarise an earlier run's boots again (DIR/boots), replaying
                 with the hsctl the boots used, or \$HSCTL when set
Exit status: 0 every boot and recording succeeded, 1 otherwise, 64 usage.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-r | --rounds) ROUNDS=${2:?}; shift 2 ;;
	-a | --arms) ARMS=${2:?}; shift 2 ;;
	-w | --work-dir) WORK=${2:?}; shift 2 ;;
	--lock) LOCK=${2:?}; shift 2 ;;
	--summary) SUMONLY=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; LABARGS=("$@"); break ;;
	*) usage >&2; exit 64 ;;
	esac
done
case $ROUNDS in
'' | *[!0-9]* | 0) echo "$PROG: --rounds takes a positive count, not '$ROUNDS'" >&2; exit 64 ;;
esac
arm_args() {	# arm_args ARM: its mglru-lab.sh options
	case $1 in
	mglru) echo "--lru-gen y" ;;
	classic) echo "--lru-gen n" ;;
	damon-classic) echo "--lru-gen n --damon-lru-sort y" ;;
	damon-mglru) echo "--lru-gen y --damon-lru-sort y" ;;
	*) return 1 ;;
	esac
}
IFS=, read -r -a ARML <<<"$ARMS"
for a in "${ARML[@]}"; do
	arm_args "$a" >/dev/null || { echo "$PROG: --arms: no arm '$a'" >&2; exit 64; }
done

if [ -n "$SUMONLY" ]; then
	SUM=$SUMONLY
	[ -f "$SUM/boots" ] || { echo "$PROG: $SUM/boots: no such file" >&2; exit 64; }
	ROUNDS=0
else
	SUM=$WORK/results/lru-ab-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$SUM"
	echo "$PROG: boots and summary in $SUM" >&2
fi
failed=
n=${#ARML[@]}
for r in $(seq 1 "$ROUNDS"); do
	for i in $(seq 0 $((n - 1))); do
		arm=${ARML[$(((i + r - 1) % n))]}	# round r starts with arm r
		log=$SUM/round$r-$arm.log
		echo "== round $r, $arm ($(date -u +%H:%M:%S))" >&2
		rc=0
		# shellcheck disable=SC2046 # the arm's options are split on purpose
		if [ -n "$LOCK" ]; then
			flock "$LOCK" "$LABDIR/mglru-lab.sh" -w "$WORK" -k 6.12 $(arm_args "$arm") \
				"${LABARGS[@]}" >"$log" 2>&1 || rc=$?
		else
			"$LABDIR/mglru-lab.sh" -w "$WORK" -k 6.12 $(arm_args "$arm") \
				"${LABARGS[@]}" >"$log" 2>&1 || rc=$?
		fi
		if [ "$rc" -ne 0 ]; then
			echo "$PROG: round $r $arm: mglru-lab.sh exit $rc (see $log)" >&2
			failed=1
		fi
		res=$(sed -n 's/^== .*: results in \([^;]*\);.*/\1/p' "$log" | tail -n 1)
		[ -n "$res" ] && [ -f "$res/out/lab.db" ] || continue
		echo "$arm $r $res" >>"$SUM/boots"
	done
done
[ -f "$SUM/boots" ] || { echo "$PROG: no boot left a database" >&2; exit 1; }

HSCTL=${HSCTL:-$(sed -n 's/^static hsctl: \([^ ]*\) .*/\1/p' "$SUM"/round1-*.log 2>/dev/null | head -n 1)}
[ -x "${HSCTL:-}" ] || HSCTL=hsctl
sq() {	# sq DB SQL: csv rows without the header
	"$HSCTL" -d "$1" sql --format csv "$2" | sed 1d
}

# One row per recording:
# arm round name pswpin pswpout refaults majfaults demand readahead krefaults runtime_s
# damon_hot_bytes damon_cold_bytes mglru_misses mglru_refaults l2q_misses l2q_refaults
# (the replays: mglru p68 and linux-2q p610, 6.12's profiles, at the recorded limit,
# on a DAMON arm with the kernel's recorded DAMON actions, or where the session has
# none the draws model at the run's own rate;
# the DAMON bytes: what the module sorted between the start of the run, as the
# session's params hold it, and its end, as the guest printed it)
while read -r arm r res; do
	for s in $(sq "$res/out/lab.db" "SELECT session FROM recordings ORDER BY session"); do
		row=$(sq "$res/out/lab.db" "
			SELECT s.name AS name,
			(SELECT delta FROM record_counters WHERE session = s.id AND file = 'vmstat'
				AND name = 'pswpin') AS pswpin,
			(SELECT delta FROM record_counters WHERE session = s.id AND file = 'vmstat'
				AND name = 'pswpout') AS pswpout,
			(SELECT sum(delta) FROM record_counters WHERE session = s.id
				AND file = 'memory.stat' AND name LIKE 'workingset_refault_%')
				AS refaults,
			(SELECT delta FROM record_counters WHERE session = s.id
				AND file = 'memory.stat' AND name = 'pgmajfault') AS majfaults,
			round(rc.runtime_ns / 1e9, 2) AS runtime_s,
			coalesce(json_extract(s.params,
				'\$.damon_lru_sort.bytes_lru_sorted_hot_regions'), '') AS hot0,
			coalesce(json_extract(s.params,
				'\$.damon_lru_sort.bytes_lru_sorted_cold_regions'), '') AS cold0
			FROM sessions AS s JOIN recordings AS rc ON rc.session = s.id
			WHERE s.id = $s")
		IFS=, read -r name pswpin pswpout refaults majfaults runtime hot0 cold0 <<<"$row"
		# the guest's line after run $s (runs and sessions are numbered alike
		# when every run recorded)
		after=$(sed -n "s/^@@ damon_lru_sort after run $s: //p" "$res/console.log")
		hot=
		cold=
		if [ -n "$after" ] && [ -n "$hot0" ]; then
			h1=$(echo "$after" |
				sed -n 's/.*bytes_lru_sorted_hot_regions=\([0-9]*\).*/\1/p')
			c1=$(echo "$after" |
				sed -n 's/.*bytes_lru_sorted_cold_regions=\([0-9]*\).*/\1/p')
			hot=$((h1 - hot0))
			cold=$((c1 - cold0))
		fi
		# A DAMON arm's replays carry the best DAMON model the recording
		# allows (hsctl-replay(1)): the kernel's own cold actions where the
		# session recorded them (--damon-model recorded, schema 13 on), else
		# --damon-deprio at the folios the module deactivated a second
		# during the run over the guest's LRU pages (at the end of the boot)
		damon=()
		if [ -n "$cold" ]; then
			acts=$(sq "$res/out/lab.db" \
				"SELECT count(*) FROM v_ev_damos_apply WHERE session = $s" 2>/dev/null ||
				echo 0)
			if [ "${acts:-0}" -gt 0 ]; then
				damon=(--damon-model recorded)
			elif [ -f "$res/out/vmstat-after.txt" ]; then
				deprio=$(awk -v c="$cold" -v t="$runtime" '
					/^nr_(in)?active_(anon|file) / { lru += $2 }
					END { if (lru > 0 && t > 0 && c > 0)
						printf "%.4f", c / 4096 / t / lru }' \
					"$res/out/vmstat-after.txt")
				[ -z "$deprio" ] || damon=(--damon-deprio "$deprio")
			fi
		fi
		rep=$("$HSCTL" -d "$res/out/lab.db" replay "$s" --policy mglru,linux-2q \
			--no-store --param mglru.profile=p68 --param linux-2q.profile=p610 \
			"${damon[@]}" 2>&1)
		# "kernel, the workload's pages: D demand misses, R read ahead (...), F refaults,"
		kre='^kernel, the workload.s pages: \([0-9]*\) demand misses,'
		kre="$kre \\([0-9]*\\) read ahead"
		k=$(echo "$rep" | sed -n "s/$kre.*, \([0-9]*\) refaults, .*/\1,\2,\3/p")
		m=$(echo "$rep" | awk '$1 ~ /^mglru\(/ && $2 ~ /^[0-9]+$/ { print $4 "," $5 }')
		l=$(echo "$rep" | awk '$1 ~ /^linux-2q\(/ && $2 ~ /^[0-9]+$/ { print $4 "," $5 }')
		echo "$arm,$r,$name,$pswpin,$pswpout,$refaults,$majfaults,${k:-,,},$runtime" \
			"$hot,$cold,${m:-,},${l:-,}" | tr ' ' ,
	done
done <"$SUM/boots" >"$SUM/rows.csv"

HEAD=arm,round,name,pswpin,pswpout,refaults,majfaults,demand,readahead,krefaults,runtime_s
HEAD=$HEAD,damon_hot_bytes,damon_cold_bytes,mglru_misses,mglru_refaults,l2q_misses,l2q_refaults
{ echo "$HEAD"; cat "$SUM/rows.csv"; } >"$SUM/rows-with-header.csv"
echo "per recording: $SUM/rows-with-header.csv"
column -s, -t <"$SUM/rows-with-header.csv"
echo
echo "per workload and arm: mean [min..max] over the boots"
awk -F, -v head="$HEAD" '
	BEGIN { split(head, H, ",") }
	{ k = $3 " " $1; n[k]++
	  for (i = 4; i <= 17; i++) { if ($i == "") continue; c[k, i]++; s[k, i] += $i
		if (c[k, i] == 1 || $i + 0 < lo[k, i]) lo[k, i] = $i + 0
		if (c[k, i] == 1 || $i + 0 > hi[k, i]) hi[k, i] = $i + 0 } }
	END { for (k in n) { printf "%s|00|%s (%d boots)\n", k, k, n[k]
		for (i = 4; i <= 17; i++) if (c[k, i]) {
			f = (i == 11) ? "%.2f [%.2f..%.2f]" : "%.0f [%.0f..%.0f]"
			v = sprintf(f, s[k, i] / c[k, i], lo[k, i], hi[k, i])
			printf "%s|%02d|  %-17s %s\n", k, i, H[i], v } } }' "$SUM/rows.csv" |
	sort -t'|' -k1,1 -k2,2 | cut -d'|' -f3- >"$SUM/summary.txt"
cat "$SUM/summary.txt"
echo
echo "arm against arm: the kernel's difference (means), whether the arms' ranges are apart,"
echo "and the models' difference (each arm's recordings replayed by the model of its kernel)"
awk -F, -f "$LABDIR/lru-ab-pairs.awk" "$SUM/rows.csv" | tee "$SUM/pairs.txt"
[ -z "$failed" ]
