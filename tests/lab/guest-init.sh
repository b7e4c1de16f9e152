#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the MGLRU lab's initramfs (tests/lab/mglru-lab.sh builds it; busybox
# ash, static hsctl).  It brings a minimal guest up on a Debian cloud kernel,
# turns MGLRU on, runs the recordings listed in /lab.conf with the static
# hsctl against a cgroup2 hierarchy, and writes /data/out (the database, the
# logs and the kernel's own counters) as a tar to the second disk, which the
# host unpacks.  Every line meant for the host starts with "@@ "; the last
# one is "@@ LAB-DONE rc=N" (N: failed steps), without which the host counts
# the boot as failed.  The guest never reboots: it powers off, also after a
# failed step, so qemu exits.
PATH=/bin
export PATH
fails=0

say() {
	echo "@@ $*"
}

up() {
	cut -d' ' -f1 /proc/uptime
}

# step NAME CMD...: run a command, log its status, count failures
step() {
	name=$1
	shift
	"$@"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fails=$((fails + 1))
		say "FAIL $name rc=$rc"
	fi
	return "$rc"
}

finish() {
	say "uptime=$(up) writing results"
	if grep -q ' /data ' /proc/mounts; then
		[ -d /data/out ] || mkdir -p /data/out
		dmesg >/data/out/dmesg.txt 2>&1
		sync
		(cd /data && tar cf /dev/vdb out) || say "FAIL tar rc=$?"
		sync
	fi
	say "LAB-DONE rc=$fails uptime=$(up)"
	poweroff -f
	sleep 10
}

/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o size=64m tmpfs /tmp
mkdir -p /var/tmp
# shellcheck source=/dev/null # written by mglru-lab.sh
. /lab.conf
say "INIT uptime=$(up) kernel=$(uname -r) cpus=$(nproc) $(grep MemTotal /proc/meminfo)"
say "cmdline: $(cat /proc/cmdline)"
# page->flags field widths, on kernels with CONFIG_DEBUG_MEMORY_INIT booted
# with mminit_loglevel=4 (mglru-lab.sh --kernel-image)
l=$(dmesg | grep -m 1 'mminit::pageflags_layout_widths')
[ -z "$l" ] || say "page-flags layout: ${l#*pageflags_layout_widths }"

# Modules in dependency order (the host resolved it from their depends= tags).
while read -r m; do
	insmod "/lib/modules/$m.ko" || { say "FAIL insmod $m"; fails=$((fails + 1)); }
done </lib/modules/load.list
say "lsmod: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"

# zram swap for the anonymous workload
if [ -e /sys/block/zram0 ]; then
	if echo "$LAB_ZRAM" >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0; then
		say "zram0 swap $LAB_ZRAM ($(cat /sys/block/zram0/comp_algorithm))"
	else
		say "FAIL zram swap"
		fails=$((fails + 1))
	fi
else
	say "FAIL no zram0"
	fails=$((fails + 1))
fi

# The data disk: the workloads' files and the database (page cache, not shmem)
if ! step mke2fs mke2fs -q /dev/vda || ! step mount-data mount -t ext2 /dev/vda /data; then
	finish
fi
mkdir -p /data/out /out
mount --bind /data/out /out

# cgroup2 only: hsctl must find the v2 hierarchy and enable +memory itself
mount -t cgroup2 cgroup2 /sys/fs/cgroup
say "cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)" \
	"subtree_control: '$(cat /sys/fs/cgroup/cgroup.subtree_control)'"

# MGLRU on (6.1 boots with it off, 6.12 with it on), and debugfs for lru_gen
if [ -e /sys/kernel/mm/lru_gen/enabled ]; then
	say "lru_gen/enabled at boot: $(cat /sys/kernel/mm/lru_gen/enabled)"
	echo "${LAB_LRU_GEN:-y}" >/sys/kernel/mm/lru_gen/enabled
	say "lru_gen/enabled now: $(cat /sys/kernel/mm/lru_gen/enabled)"
else
	say "FAIL no /sys/kernel/mm/lru_gen"
	fails=$((fails + 1))
fi

# DAMON_LRU_SORT (CONFIG_DAMON_LRU_SORT=y in Debian's 6.12): with LAB_DAMON=y its
# parameters are written and then enabled=Y, as its admin guide does it
# (Documentation/admin-guide/mm/damon/lru_sort.rst); otherwise left as booted (off)
D=/sys/module/damon_lru_sort/parameters
damon_stats() {	# the module's counters of regions and bytes sorted, one line
	for f in nr_lru_sorted_hot_regions bytes_lru_sorted_hot_regions \
		nr_lru_sorted_cold_regions bytes_lru_sorted_cold_regions \
		nr_hot_quota_exceeds nr_cold_quota_exceeds; do
		printf '%s=%s ' "$f" "$(cat "$D/$f" 2>/dev/null)"
	done
}
if [ -d "$D" ]; then
	say "damon_lru_sort at boot: enabled=$(cat $D/enabled)"
	if [ "${LAB_DAMON:-n}" = y ]; then
		ok=1
		for p in $LAB_DAMON_PARAMS; do
			if ! echo "${p#*=}" >"$D/${p%%=*}"; then
				say "FAIL damon_lru_sort ${p%%=*}"
				ok=
			fi
		done
		if [ -n "$ok" ] && echo Y >"$D/enabled"; then
			sleep 1
			say "damon_lru_sort enabled=$(cat $D/enabled)" \
				"kdamond_pid=$(cat $D/kdamond_pid)"
			[ "$(cat $D/kdamond_pid)" -gt 0 ] ||
				{ say "FAIL damon_lru_sort: no kdamond"; fails=$((fails + 1)); }
		else
			say "FAIL damon_lru_sort enable"
			fails=$((fails + 1))
		fi
		for f in "$D"/*; do
			echo "${f##*/}=$(cat "$f" 2>/dev/null)"
		done >/out/damon_lru_sort-params.txt
		say "damon_lru_sort: $(tr '\n' ' ' </out/damon_lru_sort-params.txt)"
	fi
elif [ "${LAB_DAMON:-n}" = y ]; then
	say "FAIL no $D (CONFIG_DAMON_LRU_SORT)"
	fails=$((fails + 1))
fi
mount -t debugfs debugfs /sys/kernel/debug
say "tracefs mounted before hsctl: $(grep -c ' tracefs ' /proc/mounts)"
cat /proc/vmstat >/out/vmstat-before.txt

# The recordings: LAB_RUN_1, LAB_RUN_2, ... are hsctl argument lists
i=1
while :; do
	eval "args=\${LAB_RUN_$i:-}"
	[ -n "$args" ] || break
	say "uptime=$(up) run $i: hsctl -d /out/lab.db $args"
	# shellcheck disable=SC2086 # the argument list is split on purpose
	/bin/hsctl -d /out/lab.db $args >/out/run$i.out 2>/out/run$i.err
	rc=$?
	say "uptime=$(up) run $i: exit $rc"
	sed 's/^/@@   | /' /out/run$i.out /out/run$i.err
	[ "$rc" -eq 0 ] || fails=$((fails + 1))
	cat /sys/kernel/debug/lru_gen >/out/lru_gen-after-run$i.txt 2>/dev/null
	# what DAMON_LRU_SORT did up to here (its counters only grow; the session's
	# params hold them as they were when the run started)
	[ "${LAB_DAMON:-n}" != y ] || say "damon_lru_sort after run $i: $(damon_stats)"
	n=0
	for d in /sys/fs/cgroup/hsctl_*; do
		[ -d "$d" ] && n=$((n + 1))
	done
	say "cgroups left: $n" \
		"tracefs mounts: $(grep -c ' tracefs ' /proc/mounts)" \
		"subtree_control: '$(cat /sys/fs/cgroup/cgroup.subtree_control)'"
	i=$((i + 1))
done

# What the guest itself says about the sessions
{
	/bin/hsctl -d /out/lab.db sessions list &&
		for s in $(/bin/hsctl -d /out/lab.db sql --format csv \
			"SELECT session FROM recordings ORDER BY session" | sed 1d); do
			/bin/hsctl -d /out/lab.db sessions show "$s" || exit 1
		done
} >/out/sessions.txt 2>&1 || { say "FAIL sessions"; fails=$((fails + 1)); }
sed 's/^/@@   | /' /out/sessions.txt
cat /proc/vmstat >/out/vmstat-after.txt
cat /proc/swaps >/out/swaps.txt
cat /sys/kernel/mm/lru_gen/enabled >/out/lru_gen-enabled.txt 2>/dev/null
finish
