#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The HitShield kernel A/B: build (or take from the cache) the two 6.12 arms
# with hitshield-build.sh, boot each ROUNDS times with mglru-lab.sh
# --kernel-image (alternating the order, so drift on this shared host falls
# on both arms), the same LAB_RUN_* recordings and seeds on every boot, then
# print the kernel's counters per arm with their spread.  Not part of `make
# check`: root, two kernel builds of ~25 min each on a first run, and minutes
# per boot under TCG.
set -euo pipefail

PROG=${0##*/}
LABDIR=$(cd "$(dirname "$0")" && pwd)
WORK=/var/tmp/hsctl-lab
ROUNDS=2
LABARGS=()
SUMONLY=

usage() {
	cat <<EOF
Usage: $PROG [-r ROUNDS] [-w WORK] [-- MGLRU-LAB-OPTION...]
Build both HitShield lab kernels (tests/lab/hitshield-build.sh), boot each
ROUNDS times (default $ROUNDS) with tests/lab/mglru-lab.sh --kernel-image and
the LAB_RUN_* recordings of the environment, and summarise per arm: pswpin,
pswpout (machine vmstat), refaults and major faults (the recording's memory
cgroup), runtime.  Exit status: 0 every boot and recording succeeded, 1
otherwise, 64 usage.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-r | --rounds) ROUNDS=${2:?}; shift 2 ;;
	-w | --work-dir) WORK=${2:?}; shift 2 ;;
	--summary) SUMONLY=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; LABARGS=("$@"); break ;;
	*) usage >&2; exit 64 ;;
	esac
done
case $ROUNDS in
'' | *[!0-9]* | 0) echo "$PROG: --rounds takes a positive count, not '$ROUNDS'" >&2; exit 64 ;;
esac

if [ -n "$SUMONLY" ]; then	# --summary DIR: summarise an earlier run's boots again
	SUM=$SUMONLY
	[ -f "$SUM/boots" ] || { echo "$PROG: $SUM/boots: no such file" >&2; exit 64; }
	ROUNDS=0
fi
[ -n "$SUMONLY" ] || imgs=$("$LABDIR/hitshield-build.sh" -w "$WORK") || { echo "$PROG: the kernel build failed" >&2; exit 1; }
declare -A IMG
while read -r arm path; do
	[ -z "$arm" ] || IMG[$arm]=$path
done <<<"${imgs:-}"

if [ -z "$SUMONLY" ]; then
	SUM=$WORK/results/hitshield-ab-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$SUM"
fi
failed=
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then order="vanilla hitshield"; else order="hitshield vanilla"; fi
	for arm in $order; do
		log=$SUM/round$r-$arm.log
		echo "== round $r, $arm" >&2
		rc=0
		"$LABDIR/mglru-lab.sh" -w "$WORK" --kernel-image "${IMG[$arm]}" "${LABARGS[@]}" \
			>"$log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "$PROG: round $r $arm: mglru-lab.sh exit $rc (see $log)" >&2; failed=1; }
		res=$(sed -n 's/^== .*: results in \([^;]*\);.*/\1/p' "$log" | tail -n 1)
		[ -n "$res" ] && [ -f "$res/out/lab.db" ] || continue
		echo "$arm $r $res" >>"$SUM/boots"
	done
done
[ -f "$SUM/boots" ] || { echo "$PROG: no boot left a database" >&2; exit 1; }

# The boot line of every boot (CONFIG_DEBUG_MEMORY_INIT, mminit_loglevel=4): the
# arms must agree on every field but the flag count, or the A/B measures the
# layout too (the build checked the compiler's widths; this is what ran)
echo "page-flags layout at boot:"
layouts=
while read -r arm r res; do
	l=$(sed -n 's/^@@ page-flags layout: //p' "$res/console.log" | head -n 1)
	echo "  $arm round $r: ${l:-none printed}"
	[ -n "$l" ] || failed=1
	layouts="$layouts${l% Flags *}
"
done <"$SUM/boots"
if [ "$(printf '%s' "$layouts" | sort -u | wc -l)" -ne 1 ]; then
	echo "$PROG: the arms booted with different page->flags layouts" >&2
	failed=1
fi

# one row per recording: arm round name pswpin pswpout refaults majfaults runtime_s hitshield_flags
# (read with the static hsctl the lab used)
HSCTL=$(sed -n 's/^static hsctl: \([^ ]*\) .*/\1/p' "$SUM"/round1-*.log | head -n 1)
[ -x "${HSCTL:-}" ] || HSCTL=hsctl
while read -r arm r res; do
	"$HSCTL" -d "$res/out/lab.db" sql --format csv "
		SELECT '$arm' AS arm, $r AS round, s.name AS name,
		(SELECT delta FROM record_counters WHERE session = s.id AND file = 'vmstat'
			AND name = 'pswpin') AS pswpin,
		(SELECT delta FROM record_counters WHERE session = s.id AND file = 'vmstat'
			AND name = 'pswpout') AS pswpout,
		(SELECT sum(delta) FROM record_counters WHERE session = s.id
			AND file = 'memory.stat' AND name LIKE 'workingset_refault_%') AS refaults,
		(SELECT delta FROM record_counters WHERE session = s.id AND file = 'memory.stat'
			AND name = 'pgmajfault') AS majfaults,
		round(rc.runtime_ns / 1e9, 2) AS runtime_s,
		coalesce(json_extract(s.params, '\$.hitshield_flags'), 'unknown') AS hs,
		rc.kernel AS kernel
		FROM sessions AS s JOIN recordings AS rc ON rc.session = s.id ORDER BY s.id" | sed 1d
done <"$SUM/boots" >"$SUM/rows.csv"

# and the models on each recorded stream, at the recorded limit (6.12: profile p68)
while read -r arm r res; do
	for s in $("$HSCTL" -d "$res/out/lab.db" sql --format csv \
		"SELECT session FROM recordings ORDER BY session" | sed 1d); do
		name=$("$HSCTL" -d "$res/out/lab.db" sql --format csv \
			"SELECT name FROM sessions WHERE id = $s" | sed 1d)
		"$HSCTL" -d "$res/out/lab.db" replay "$s" --policy mglru,hitshield --no-store \
			--param mglru.profile=p68 --param hitshield.profile=p68 2>&1 |
			awk -v a="$arm" -v r="$r" -v n="$name" '
				$1 == "kernel" && NF >= 4 { km = $3; kr = $4 }
				$1 ~ /^mglru\(/ && $2 ~ /^[0-9]+$/ { mm = $4; mr = $5 }
				$1 ~ /^hitshield\(/ && $2 ~ /^[0-9]+$/ { hm = $4; hr = $5 }
				END { print a "," r "," n "," km "," kr "," mm "," mr "," hm "," hr }'
	done
done <"$SUM/boots" >"$SUM/replay.csv"

{
	echo "arm,round,name,pswpin,pswpout,refaults,majfaults,runtime_s,hitshield_flags,kernel"
	cat "$SUM/rows.csv"
} >"$SUM/rows-with-header.csv"
echo "per recording: $SUM/rows-with-header.csv"
column -s, -t <"$SUM/rows-with-header.csv"
echo
echo "per arm and workload: mean [min..max] over the boots"
awk -F, '
	{ k = $3 " " $1; n[k]++
	  for (i = 4; i <= 8; i++) { s[k, i] += $i
		if (n[k] == 1 || $i < lo[k, i]) lo[k, i] = $i
		if (n[k] == 1 || $i > hi[k, i]) hi[k, i] = $i } }
	END { printf "%-22s %3s %-22s %-22s %-22s %-22s %-22s\n", "workload arm", "n",
		"pswpin", "pswpout", "refaults", "majfaults", "runtime_s"
	  for (k in n) { printf "%-22s %3d", k, n[k]
		for (i = 4; i <= 8; i++)
			printf " %-22s", sprintf(i == 8 ? "%.1f [%.1f..%.1f]" : "%.0f [%d..%d]",
				s[k, i] / n[k], lo[k, i], hi[k, i])
		printf "\n" } }' "$SUM/rows.csv" | sort
echo
echo "replay of each recorded stream (misses, refaults): the kernel's own, mglru p68, hitshield p68"
{
	echo "arm,round,name,kernel_misses,kernel_refaults,mglru_misses,mglru_refaults,hs_misses,hs_refaults"
	cat "$SUM/replay.csv"
} | column -s, -t
[ -z "$failed" ]
