#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The MGLRU lab: record with a static hsctl inside a minimal qemu guest that
# runs one of Debian's own cloud kernels (6.1 or 6.12, both CONFIG_LRU_GEN=y),
# with MGLRU on, cgroup v2, zram swap and a virtio disk, then check on the host
# what was recorded and replay it (see tests/lab/README).  Not part of
# `make check`: it needs root, downloads kernel packages and takes minutes
# under TCG.  Downloads and the static build are cached in the work dir; the
# per-run temporaries (initramfs tree, disk images) are removed on every exit
# path, qemu is never left running, and each run's results (the database,
# the console log and report.txt) stay in WORK/results/KVER-DATE.
set -euo pipefail

PROG=${0##*/}
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
LABDIR=$SRCDIR/tests/lab

KERNELS=all
WORK=/var/tmp/hsctl-lab
HSCTL=
REV=
PACKAGE=
INSTALL=1
TIMEOUT=1200
MEM=512M
LRU_GEN=y
DAMON=n
# DAMON_LRU_SORT's parameters with --damon-lru-sort y (Documentation/admin-guide/mm/damon/
# lru_sort.rst; tests/lab/README says why each differs from the module's default):
# the guide's defaults but for cold_min_age (1 s, not 120 s: the runs last seconds) and
# the watermarks (always active: they watch the machine's free memory, which stays
# high in this guest while the pressure is inside the recording's memory cgroup).
# --damon-param NAME=VALUE adds or replaces one.
DAMON_PARAMS="hot_thres_access_freq=500 cold_min_age=1000000 quota_ms=10
quota_reset_interval_ms=1000 wmarks_interval=1000000 wmarks_high=1000 wmarks_mid=999
wmarks_low=0 sample_interval=5000 aggr_interval=100000 min_nr_regions=10 max_nr_regions=1000"
KEEP=
KIMAGE=
APPEND=
PTI=on
# The guest's recordings, sized for a 512 MiB guest under TCG (see README)
# (LAB_ZRAM, LAB_RUN_1, LAB_RUN_2, LAB_RUN_3 in the environment replace them;
# LAB_RUN_4 .. LAB_RUN_9 add more).
ZRAM=${LAB_ZRAM:-256M}
RUN_1=${LAB_RUN_1-record -m 64M --workload scan-twice --size 96M --dir /data}
RUN_2=${LAB_RUN_2-record -m 48M --workload ycsb-f --size 96M --ops 100000}
RUN_3=${LAB_RUN_3-record -m 64M --workload zipf-read --size 128M --dir /data}

usage() {
	cat <<EOF
Usage: $PROG [OPTION]...
Boot Debian's cloud kernel with MGLRU in qemu (TCG), record two built-in
workloads with a static hsctl inside it, and report on the host.

  -k, --kernel VER     6.1, 6.12 or all (default: all, one boot each)
  -w, --work-dir DIR   downloads, builds and results (default: $WORK)
      --hsctl PATH     a statically linked hsctl to use (default: build one in
                       WORK/build from this source tree)
      --rev REV        build hsctl from git revision REV of this checkout (a
                       clean export, autoreconf'ed) instead of the working tree
      --package PKG    the kernel package (default: the newest one of the
                       series, from linux-image-cloud-amd64 for 6.1 and
                       linux-image-6.12-cloud-amd64 for 6.12); one kernel only
      --kernel-image PATH  boot this bzImage instead of a Debian package: a
                       kernel with everything the guest needs built in (no
                       modules), such as tests/lab/hitshield-build.sh makes;
                       the results are labelled with its release
      --no-install     do not apt-get install qemu-system-x86, busybox-static, cpio
      --timeout SEC    per boot (default: $TIMEOUT)
      --mem SIZE       guest memory (default: $MEM)
      --pti on|off     boot the guest with pti=on (default) or pti=off: with
                       page-table isolation every kernel entry reloads CR3,
                       which flushes qemu's emulated TLB, so the accessed
                       bits reclaim clears are set again by the next touch
                       (README: "The emulated accessed bit"; off is how the
                       lab booted before 2026-12-02)
      --append ARGS    more kernel command line for the guest; the guest
                       prints its /proc/cmdline
      --lru-gen y|n    MGLRU on (y, default) or off (n, the classic active/
                       inactive LRU) in the guest: the kernel's own A/B
      --damon-lru-sort y|n  turn DAMON_LRU_SORT on (y) over the chosen LRU,
                       with the lab's parameters (below), or leave it as the
                       kernel boots (n, default: off)
      --damon-param NAME=VALUE  one DAMON_LRU_SORT parameter, added to or
                       replacing the lab's:
$(echo $DAMON_PARAMS | fold -s -w 54 | sed 's/ *$//; s/^/                         /')
      --keep           keep the run's temporary directory
  -h, --help           this text

Needs root (apt-get, mknod, the guest's devices). Exit status: 0 when every
boot finished and every recording succeeded, 1 otherwise, 64 usage.
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	-k | --kernel) KERNELS=${2:?}; shift 2 ;;
	-w | --work-dir) WORK=${2:?}; shift 2 ;;
	--hsctl) HSCTL=${2:?}; shift 2 ;;
	--rev) REV=${2:?}; shift 2 ;;
	--package) PACKAGE=${2:?}; shift 2 ;;
	--kernel-image) KIMAGE=${2:?}; shift 2 ;;
	--no-install) INSTALL=; shift ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--append) APPEND=${2:?}; shift 2 ;;
	--pti)
		case ${2:-} in
		on | off) PTI=$2 ;;
		*) echo "$PROG: --pti takes on or off, not '${2:-}'" >&2; exit 64 ;;
		esac
		shift 2 ;;
	--lru-gen)
		case ${2:-} in
		y | n) LRU_GEN=$2 ;;
		*) echo "$PROG: --lru-gen takes y or n, not '${2:-}'" >&2; exit 64 ;;
		esac
		shift 2 ;;
	--damon-lru-sort)
		case ${2:-} in
		y | n) DAMON=$2 ;;
		*) echo "$PROG: --damon-lru-sort takes y or n, not '${2:-}'" >&2; exit 64 ;;
		esac
		shift 2 ;;
	--damon-param)
		case ${2:-} in
		[a-z]*=[0-9YN]*)
			# the module's names are [a-z_]; values numbers or Y/N
			case ${2%%=*} in
			*[!a-z_]*) echo "$PROG: --damon-param: bad name in '$2'" >&2; exit 64 ;;
			enabled | commit_inputs)
				echo "$PROG: --damon-param: ${2%%=*} is the lab's to set" >&2
				exit 64 ;;
			esac
			case ${2#*=} in
			*[!0-9YN]*) echo "$PROG: --damon-param: bad value in '$2'" >&2; exit 64 ;;
			esac
			DAMON_PARAMS=$(printf '%s\n' $DAMON_PARAMS | grep -v "^${2%%=*}=" || true)
			DAMON_PARAMS="$DAMON_PARAMS $2" ;;
		*) echo "$PROG: --damon-param takes NAME=VALUE, not '${2:-}'" >&2; exit 64 ;;
		esac
		shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 64 ;;
	esac
done
case $KERNELS in
6.1 | 6.12) ;;
all) KERNELS="6.1 6.12" ;;
*) echo "$PROG: --kernel: 6.1, 6.12 or all, not '$KERNELS'" >&2; exit 64 ;;
esac
if [ -n "$PACKAGE" ] && [ "$KERNELS" = "6.1 6.12" ]; then
	echo "$PROG: --package needs one --kernel" >&2
	exit 64
fi
if [ -n "$KIMAGE" ]; then
	if [ -n "$PACKAGE" ]; then
		echo "$PROG: --kernel-image and --package exclude each other" >&2
		exit 64
	fi
	if [ ! -f "$KIMAGE" ]; then
		echo "$PROG: --kernel-image $KIMAGE: no such file" >&2
		exit 64
	fi
	KIMAGE=$(cd "$(dirname "$KIMAGE")" && pwd)/$(basename "$KIMAGE")
	# the release from the bzImage's header ("... version 6.12.117-hitshield (...")
	KERNELS=$(file -b "$KIMAGE" | sed -n 's/.*, version \([^ ,]*\).*/\1/p')
	if [ -z "$KERNELS" ]; then
		echo "$PROG: --kernel-image $KIMAGE: not a bzImage with a version string" >&2
		exit 64
	fi
fi
[ "$(id -u)" -eq 0 ] || die "needs root (apt-get, mknod for the initramfs)"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# ---- cleanup: qemu and the temporaries, on every exit path ----
TMP=
QPID=
TPID=
# stopped SIG STATUS: a signal's trap: say so (the EXIT trap then cleans up)
stopped() {
	echo "$PROG: stopped by $1" >&2
	exit "$2"
}
cleanup() {
	trap '' INT TERM	# a second signal must not cut the cleanup short
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill "$QPID" 2>/dev/null || true	# timeout(1) passes it on to qemu
		wait "$QPID" 2>/dev/null || true
	fi
	QPID=
	if [ -n "$TPID" ]; then
		wait "$TPID" 2>/dev/null || true	# tail --pid saw qemu go
	fi
	TPID=
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		if [ -n "$KEEP" ]; then
			echo "$PROG: kept $TMP"
		else
			rm -rf "$TMP"
		fi
	fi
	TMP=
	trap 'stopped SIGINT 130' INT
	trap 'stopped SIGTERM 143' TERM
}
trap cleanup EXIT
trap 'stopped SIGINT 130' INT
trap 'stopped SIGTERM 143' TERM

stamp() {
	date +%s.%N
}

elapsed() {	# elapsed START: seconds since START, one decimal
	awk -v a="$1" -v b="$(stamp)" 'BEGIN { printf "%.1f", b - a }'
}

is_static() {	# no program interpreter: nothing for a dynamic loader to find in the guest
	local out
	if command -v readelf >/dev/null; then
		out=$(readelf -l "$1" 2>&1) || return 1
		case $out in *"program interpreter"*) return 1 ;; esac
		return 0
	fi
	out=$(file -L "$1")
	case $out in *"statically linked"*) return 0 ;; esac
	return 1
}

# ---- 1. host tools ----
if [ -n "$INSTALL" ]; then
	need=
	for p in qemu-system-x86 busybox-static cpio; do
		dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
	done
	if [ -n "$need" ]; then
		t=$(stamp)
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need \
			>"$WORK/apt-install.log" 2>&1 ||
			die "apt-get install$need failed (see $WORK/apt-install.log)"
		echo "installed$need in $(elapsed "$t") s"
	fi
fi
for c in qemu-system-x86_64 cpio gzip xz timeout; do
	command -v "$c" >/dev/null || die "$c not found (install qemu-system-x86, cpio, xz-utils)"
done
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found (install busybox-static)"
is_static "$BUSYBOX" || die "$BUSYBOX is not statically linked (install busybox-static)"

# ---- 2. a static hsctl ----
if [ -z "$HSCTL" ]; then
	t=$(stamp)
	if [ -n "$REV" ]; then
		sha=$(git -C "$SRCDIR" rev-parse --verify --short "$REV^{commit}") ||
			die "--rev $REV: not a commit of $SRCDIR"
		SRC=$WORK/src-$sha
		B=$WORK/build-$sha
		rev=$sha
		if [ ! -x "$SRC/configure" ]; then
			rm -rf "$SRC"
			mkdir -p "$SRC"
			git -C "$SRCDIR" archive "$sha" | tar -x -C "$SRC" ||
				die "git archive $sha failed"
			mkdir -p "$SRC/m4"	# empty in git, so not in the archive
			(cd "$SRC" && ./autogen.sh) >"$WORK/build.log" 2>&1 ||
				die "autogen.sh failed (see $WORK/build.log)"
		fi
	else
		SRC=$SRCDIR
		B=$WORK/build
		rev=$(git -C "$SRCDIR" describe --always --dirty 2>/dev/null || echo unknown)
		[ -x "$SRC/configure" ] || die "$SRC/configure missing: run ./autogen.sh there first"
	fi
	mkdir -p "$B"
	if [ ! -f "$B/Makefile" ]; then
		(cd "$B" && "$SRC/configure" -q LDFLAGS=-static PKG_CONFIG='pkg-config --static') \
			>>"$WORK/build.log" 2>&1 || die "configure failed (see $WORK/build.log)"
	fi
	make -C "$B" -j"$(nproc)" hsctl >>"$WORK/build.log" 2>&1 ||
		die "make hsctl failed (see $WORK/build.log)"
	HSCTL=$B/hsctl
	echo "static hsctl: $HSCTL ($(stat -c %s "$HSCTL") bytes, $(elapsed "$t") s)," \
		"source $SRC at $rev"
fi
[ -x "$HSCTL" ] || die "$HSCTL: not an executable"
HSCTL=$(cd "$(dirname "$HSCTL")" && pwd)/$(basename "$HSCTL")
is_static "$HSCTL" || die "$HSCTL is not statically linked (see tests/lab/README)"

# ---- 3. the kernel package ----
# pkg_for VER: the newest package of a series, through its metapackage
pkg_for() {
	local meta dep
	case $1 in
	6.1) meta=linux-image-cloud-amd64 ;;
	6.12) meta=linux-image-6.12-cloud-amd64 ;;
	esac
	dep=$(apt-cache depends "$meta" 2>/dev/null |
		awk -v v="linux-image-$1." '$1 == "Depends:" && index($2, v) == 1 { print $2; exit }')
	if [ -z "$dep" ]; then
		apt-get update >/dev/null 2>&1 || true
		dep=$(apt-cache depends "$meta" 2>/dev/null |
			awk -v v="linux-image-$1." '$1 == "Depends:" && index($2, v) == 1 {
				print $2; exit }')
	fi
	[ -n "$dep" ] || die "no $1 cloud kernel: $meta does not name one (apt-get update?)"
	echo "$dep"
}

# fetch PKG: the extracted package's directory (downloaded and extracted once)
fetch() {
	local pkg=$1 deb dir=$WORK/kpkg/$1
	if [ ! -f "$dir/.extracted" ]; then
		mkdir -p "$WORK/debs"
		chown _apt "$WORK/debs" 2>/dev/null || true	# apt's sandbox user
		deb=$(find "$WORK/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
		if [ -z "$deb" ]; then
			(cd "$WORK/debs" && apt-get download "$pkg" >/dev/null 2>&1) ||
				die "apt-get download $pkg failed"
			deb=$(find "$WORK/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
			[ -n "$deb" ] || die "apt-get download $pkg left no .deb in $WORK/debs"
		fi
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$deb" "$dir" || die "dpkg-deb -x $deb failed"
		touch "$dir/.extracted"
	fi
	echo "$dir"
}

# ---- 4. the initramfs ----
# modules KPKG STAGE: copy zram, virtio-blk and what they need (uncompressed,
# since busybox insmod reads no .xz), and write their load order
modules() {
	local kpkg=$1 stage=$2 mdir idx m
	: >"$stage/lib/modules/load.list"
	[ -n "$kpkg" ] || return 0	# --kernel-image: everything built in
	mdir=$(echo "$kpkg"/lib/modules/*)
	idx=$TMP/modindex
	# name (dashes as underscores) -> file
	find "$mdir/kernel" -name '*.ko' -o -name '*.ko.xz' | while read -r f; do
		m=${f##*/}
		m=${m%.xz}
		m=${m%.ko}
		echo "${m//-/_} $f"
	done >"$idx"
	: >"$stage/lib/modules/load.list"
	declare -A done_=()
	add() {	# depth-first: dependencies first
		local name=$1 f deps d
		[ -z "${done_[$name]:-}" ] || return 0
		done_[$name]=1
		f=$(awk -v n="$name" '$1 == n { print $2; exit }' "$idx")
		if [ -z "$f" ]; then
			grep -q "/${name//_/[-_]}\.ko\$" "$mdir/modules.builtin" 2>/dev/null && return 0
			return 1
		fi
		case $f in
		*.xz) xz -dc "$f" >"$stage/lib/modules/$name.ko" ;;
		*) cp "$f" "$stage/lib/modules/$name.ko" ;;
		esac
		deps=$(tr '\0' '\n' <"$stage/lib/modules/$name.ko" | sed -n 's/^depends=//p' |
			head -n 1 | tr ',' ' ')
		for d in $deps; do
			add "$d" || die "module $d (needed by $name) not found"
		done
		echo "$name" >>"$stage/lib/modules/load.list"
	}
	# zram and its allocator; zram's compressors (6.1: crypto API, lzo-rle by
	# default; 6.12: its own backends); virtio-blk and the PCI transport
	for m in zram lzo_rle lzo lz4 lz4hc virtio_pci virtio_blk; do
		add "$m" || true
	done
	grep -qx zram "$stage/lib/modules/load.list" ||
		grep -q '/zram\.ko$' "$mdir/modules.builtin" || die "no zram module in $kpkg"
	grep -qx virtio_blk "$stage/lib/modules/load.list" ||
		grep -q '/virtio_blk\.ko$' "$mdir/modules.builtin" || die "no virtio_blk in $kpkg"
}

initramfs() {	# initramfs KPKG OUT
	local kpkg=$1 out=$2 stage=$TMP/root d
	rm -rf "$stage"
	for d in bin dev proc sys tmp data out lib/modules var/tmp; do
		mkdir -p "$stage/$d"
	done
	mknod -m 600 "$stage/dev/console" c 5 1
	mknod -m 666 "$stage/dev/null" c 1 3
	cp "$BUSYBOX" "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	cp "$HSCTL" "$stage/bin/hsctl"
	cp "$LABDIR/guest-init.sh" "$stage/init"
	chmod 755 "$stage/init"
	{
		echo "LAB_ZRAM='$ZRAM'"
		echo "LAB_RUN_1='$RUN_1'"
		echo "LAB_RUN_2='$RUN_2'"
		echo "LAB_RUN_3='$RUN_3'"
		for i in 4 5 6 7 8 9; do
			eval "echo \"LAB_RUN_$i='\${LAB_RUN_$i:-}'\""
		done
		echo "LAB_LRU_GEN='$LRU_GEN'"
		echo "LAB_DAMON='$DAMON'"
		echo "LAB_DAMON_PARAMS='$(echo $DAMON_PARAMS)'"
	} >"$stage/lab.conf"
	modules "$kpkg" "$stage"
	(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
}

# ---- 5. one boot ----
h() {	# h ARGS: hsctl on the guest's database; a failure is printed and counted
	local rc=0
	"$HSCTL" -d "$DB" "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "!! hsctl $1 $2 ...: exit $rc"
		echo "hsctl $*: exit $rc" >>"$RES/failures"
	fi
	return 0
}

q() {	# q SQL: one column, csv without the header
	"$HSCTL" -d "$DB" sql --format csv "$1" | sed 1d
}

profiles() {	# profiles SESSION: the models matching the kernel the session was recorded on
	local rel gen major minor
	rel=$(q "SELECT kernel FROM recordings WHERE session = $1")
	gen=$(q "SELECT lru_gen FROM recordings WHERE session = $1")
	major=${rel%%.*}
	minor=${rel#*.}
	minor=${minor%%[!0-9]*}
	# hsctl fidelity's own choice (analyzers/fidelity.c, hs_fid_default_policy())
	if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 3 ]; }; then
		MG_PROFILE=p61
	elif [ "$major" -eq 6 ] && [ "$minor" -lt 8 ]; then
		MG_PROFILE=p63
	elif [ "$major" -eq 6 ] && [ "$minor" -lt 14 ]; then
		MG_PROFILE=p68
	else
		MG_PROFILE=p614
	fi
	if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 10 ]; }; then
		L2_PROFILE=p61
	else
		L2_PROFILE=p610
	fi
	case $gen in
	absent | "") MODEL=linux-2q ;;
	*) if [ $(($gen & 1)) -eq 1 ]; then MODEL=mglru; else MODEL=linux-2q; fi ;;
	esac
}

lru_gen_is() {	# lru_gen_is SESSION: the session recorded the MGLRU state --lru-gen asked for
	local gen on
	gen=$(q "SELECT lru_gen FROM recordings WHERE session = $1")
	case $gen in
	0x[0-9a-fA-F]* | [0-9]*) on=$(( (gen & 1) ? 1 : 0 )) ;;
	*) on=x ;;
	esac
	if [ "$on" != "$([ "$LRU_GEN" = y ] && echo 1 || echo 0)" ]; then
		echo "!! session $1: lru_gen '$gen' recorded, --lru-gen $LRU_GEN asked"
		echo "session $1: lru_gen '$gen', asked $LRU_GEN" >>"$RES/failures"
	fi
}

damon_is() {	# damon_is SESSION: the session recorded the DAMON_LRU_SORT state asked for
	local on
	on=$(q "SELECT coalesce(json_extract(params, '\$.damon_lru_sort.enabled'),
		json_extract(params, '\$.damon_lru_sort'), 'none') AS v
		FROM sessions WHERE id = $1")
	if [ "$on" != "$([ "$DAMON" = y ] && echo 1 || echo 0)" ] &&
		! { [ "$DAMON" = n ] && [ "$on" = absent ]; }; then
		echo "!! session $1: damon_lru_sort '$on' recorded, --damon-lru-sort $DAMON asked"
		echo "session $1: damon_lru_sort '$on', asked $DAMON" >>"$RES/failures"
	fi
}

report() {	# report: what the guest recorded, checked and replayed on the host
	local s
	echo "== sessions"
	h sessions list
	for s in $(q "SELECT session FROM recordings ORDER BY session"); do
		echo
		echo "== session $s: $(q "SELECT name || ' (' || status || ')' FROM sessions
			WHERE id = $s")"
		h sessions show "$s"
		echo "-- checks"
		h sql "SELECT name, status, got, want, note FROM record_checks
			WHERE session = $s ORDER BY name"
		echo "-- capture"
		h sql "SELECT kernel, lru_gen, coalesce(json_extract(s.params,
			'\$.hitshield_flags'), 'unknown') AS hitshield_flags,
			coalesce(json_extract(s.params, '\$.damon_lru_sort.enabled'),
			json_extract(s.params, '\$.damon_lru_sort'), 'unknown') AS damon_lru_sort,
			cgroup, cgroup_version,
			memory_limit_pages,
			events_decoded, touches, lost_events, lost_gaps, peak_pages,
			round(runtime_ns / 1e9, 1) AS runtime_s, round(build_s, 1) AS build_s
			FROM recordings JOIN sessions AS s ON s.id = session WHERE session = $s"
		h sql "SELECT cpu, subbufs, events, overrun, commit_overrun, dropped, lost
			FROM record_cpus WHERE session = $s ORDER BY cpu"
		echo "-- events by type"
		h sql "SELECT type, count(*) AS n FROM v_events WHERE session = $s
			GROUP BY type ORDER BY n DESC"
		echo "-- lru_gen snapshots: per memcg, the generations live and their seq range" \
			"at the first and the last snapshot"
		h sql "SELECT count(DISTINCT ts_ns) AS snapshots, count(*) AS rows,
			count(DISTINCT memcg_path) AS memcgs FROM lru_gen_snapshots WHERE session = $s"
		h sql "WITH g AS (SELECT memcg_path, ts_ns, count(*) AS gens, min(seq) AS lo,
				max(seq) AS hi, sum(anon_pages) AS anon, sum(file_pages) AS file
				FROM lru_gen_snapshots WHERE session = $s GROUP BY memcg_path, ts_ns),
			r AS (SELECT *, row_number() OVER (PARTITION BY memcg_path ORDER BY ts_ns)
				AS i, count(*) OVER (PARTITION BY memcg_path) AS n FROM g)
			SELECT memcg_path, n AS snapshots, min(gens) AS min_gens,
			max(gens) AS max_gens,
			max(CASE WHEN i = 1 THEN lo || '..' || hi END) AS first_seqs,
			max(CASE WHEN i = n THEN lo || '..' || hi END) AS last_seqs,
			max(anon) AS max_anon, max(file) AS max_file
			FROM r GROUP BY memcg_path ORDER BY snapshots DESC, memcg_path"
		echo "-- the kernel's counters (cgroup memory.stat, machine vmstat)"
		h sql "SELECT file, scope, name, delta FROM record_counters
			WHERE session = $s AND name IN ('workingset_refault_anon',
			'workingset_refault_file', 'workingset_activate_anon',
			'workingset_activate_file', 'pgscan', 'pgsteal', 'pswpin', 'pswpout',
			'pgmajfault', 'workingset_refault', 'pgpgin')
			ORDER BY file, scope, name"
		echo "-- folio lives"
		h sql "SELECT kind, death_cause, count(*) AS lives, sum(pages) AS pages,
			sum(refault) AS refaults FROM v_folio_lives
			WHERE session = $s GROUP BY kind, death_cause ORDER BY kind, death_cause"
		echo "-- the kernel's page-ins beside the replay: lives (one per page-in)," \
			"refaults (new lives of pages reclaimed before), file pages cached at the end"
		h sql "SELECT (SELECT count(*) FROM v_folio_lives WHERE session = $s
				AND kind = (SELECT kind FROM sessions WHERE id = $s)) AS kernel_page_ins,
			(SELECT sum(refault) FROM v_folio_lives WHERE session = $s
				AND kind = (SELECT kind FROM sessions WHERE id = $s)) AS kernel_refaults,
			(SELECT sum(delta) FROM record_counters WHERE session = $s
				AND file = 'memory.stat' AND name LIKE 'workingset_refault_%')
				AS memcg_workingset_refaults,
			(SELECT c.after / r.page_size FROM record_counters AS c, recordings AS r
				WHERE c.session = $s AND r.session = $s AND c.file = 'memory.stat'
				AND c.name = 'file') AS memcg_file_pages_end,
			(SELECT count(*) FROM v_folio_lives WHERE session = $s AND kind = 'file'
				AND death_cause = 'alive') AS file_lives_alive_end"
		profiles "$s"
		lru_gen_is "$s"
		damon_is "$s"
		echo "-- replay at the recorded limit, the booted kernel's profiles:" \
			"mglru.profile=$MG_PROFILE linux-2q.profile=$L2_PROFILE"
		h replay "$s" --policy mglru,hitshield,linux-2q,lru,opt --no-store \
			--param "mglru.profile=$MG_PROFILE" --param "hitshield.profile=$MG_PROFILE" \
			--param "linux-2q.profile=$L2_PROFILE"
		echo "-- per-page fidelity at the recorded limit (the model matching the kernel," \
			"lru, and a random baseline)"
		if [ "$MODEL" = mglru ]; then
			h fidelity "$s" --policy mglru,lru --param "mglru.profile=$MG_PROFILE"
		else
			h fidelity "$s" --policy linux-2q,lru --param "linux-2q.profile=$L2_PROFILE"
		fi
	done
}

FAILED=
fail() {	# fail WHAT: a boot that went wrong; the next kernel still runs
	echo "$PROG: $*" >&2
	FAILED=1
}

boot() {	# boot VER
	local ver=$1 pkg kpkg kname vmlinuz rc t0 t extra=
	t0=$(stamp)
	if [ -n "$KIMAGE" ]; then
		# a local build: no modules, and the page-flags layout in the kernel
		# log (CONFIG_DEBUG_MEMORY_INIT), which the guest prints
		kpkg=
		vmlinuz=$KIMAGE
		extra=" mminit_loglevel=4"
		echo "== $ver: $KIMAGE"
	else
		pkg=${PACKAGE:-$(pkg_for "$ver")}
		kpkg=$(fetch "$pkg")
		vmlinuz=$(echo "$kpkg"/boot/vmlinuz-*)
		[ -f "$vmlinuz" ] || die "$pkg: no /boot/vmlinuz-*"
		kname=${vmlinuz##*/vmlinuz-}
		echo "== $ver: $pkg ($kname), fetched in $(elapsed "$t0") s"
	fi

	TMP=$(mktemp -d "$WORK/tmp.XXXXXX")
	t=$(stamp)
	initramfs "$kpkg" "$TMP/initramfs.cpio.gz"
	echo "initramfs: $(stat -c %s "$TMP/initramfs.cpio.gz") bytes," \
		"modules: $(tr '\n' ' ' <"$TMP/root/lib/modules/load.list")($(elapsed "$t") s)"
	truncate -s 1G "$TMP/data.img"
	truncate -s 1G "$TMP/out.img"
	: >"$TMP/console.raw"

	t=$(stamp)
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg -m "$MEM" -smp 2 \
		-display none -monitor none -serial "file:$TMP/console.raw" \
		-no-reboot -net none \
		-kernel "$vmlinuz" -initrd "$TMP/initramfs.cpio.gz" \
		-drive "file=$TMP/data.img,format=raw,if=virtio,cache=unsafe" \
		-drive "file=$TMP/out.img,format=raw,if=virtio" \
		-append "console=ttyS0 quiet panic=-1 pti=$PTI$extra${APPEND:+ $APPEND}" </dev/null >"$TMP/qemu.log" 2>&1 &
	QPID=$!
	# the guest's "@@" lines as they come (tail ends within a second of qemu)
	tail --pid="$QPID" -n +1 -F "$TMP/console.raw" 2>/dev/null |
		sed -u -n 's/\r$//; s/^@@ /   /p' &
	TPID=$!
	rc=0
	wait "$QPID" || rc=$?
	QPID=
	wait "$TPID" 2>/dev/null || true
	TPID=
	echo "qemu exit $rc after $(elapsed "$t") s"

	RES=$WORK/results/$ver$([ "$DAMON" = n ] || echo -damon)-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$RES"
	tr -d '\r' <"$TMP/console.raw" >"$RES/console.log"
	if [ -s "$TMP/qemu.log" ]; then
		cp "$TMP/qemu.log" "$RES/qemu.log"
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		fail "$ver: no poweroff within $TIMEOUT s (see $RES/console.log)"
		return 0
	fi
	if ! grep -q '^@@ LAB-DONE rc=' "$RES/console.log"; then
		fail "$ver: the guest did not finish (see $RES/console.log)"
		return 0
	fi
	if ! tar -C "$RES" -xf "$TMP/out.img"; then
		fail "$ver: no results tar on the second disk"
		return 0
	fi
	cleanup
	DB=$RES/out/lab.db
	if [ ! -f "$DB" ]; then
		fail "$ver: no database came out (see $RES/console.log)"
		return 0
	fi
	report 2>&1 | tee "$RES/report.txt"
	echo "== $ver: results in $RES; total $(elapsed "$t0") s"
	grep -q '^@@ LAB-DONE rc=0 ' "$RES/console.log" || fail "$ver: a step failed in the guest"
	[ ! -f "$RES/failures" ] || fail "$ver: $(wc -l <"$RES/failures") host step(s) failed"
}

for v in $KERNELS; do
	boot "$v"
	cleanup
done
[ -z "$FAILED" ]
