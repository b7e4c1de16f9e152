#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the HitShield kernel lab's two arms from Debian's linux-source-6.12:
# "hitshield" (tests/lab/hitshield-6.12.patch, a hand port of the RFC, see
# /work/shared/POLICIES.md section 2) and "vanilla" (the same source and the
# same .config, unpatched).  Both are bzImages with everything built in, for
# tests/lab/mglru-lab.sh --kernel-image.  Not part of `make check`: it needs
# root for apt-get and each bzImage takes ~25 min of two cores.
#
# Each arm is cached in WORK/kbuild/ARM-HASH, HASH being a hash of the source
# package version, the final .config and (hitshield only) the patch: a rerun
# with nothing changed is instant.  The build fails unless both arms have the
# same page->flags layout apart from the flag count (the RFC's three new flags
# would otherwise take MGLRU's tier bits on Debian's config; see
# /work/shared/patches/README).
set -euo pipefail

PROG=${0##*/}
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
LABDIR=$SRCDIR/tests/lab
PATCH=$LABDIR/hitshield-6.12.patch

WORK=/var/tmp/hsctl-lab
ARMS="vanilla hitshield"
INSTALL=1
JOBS=2
SRCPKG=linux-source-6.12
CLOUDPKG=linux-image-6.12.117+deb12-cloud-amd64

usage() {
	cat <<EOF
Usage: $PROG [OPTION]...
Build the HitShield lab's kernels: Debian's $SRCPKG with the RFC ported
(hitshield) and without it (vanilla), same config, cached by content hash.

  -a, --arm ARM        vanilla, hitshield or both (default: both, vanilla first)
  -w, --work-dir DIR   sources, builds and caches (default: $WORK)
  -j, --jobs N         make -jN (default: $JOBS)
      --patch FILE     the hitshield arm's patch (default: $PATCH);
                       the arm's cache hash includes it
      --no-install     do not apt-get install $SRCPKG and the build tools
  -h, --help           this text

Prints one line per arm: "ARM PATH-TO-bzImage". Needs root for apt-get.
Exit status: 0 both arms built (or cached) with equal page-flags layouts,
1 a step failed (its name is printed), 64 usage.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-a | --arm)
		case ${2:-} in
		vanilla | hitshield) ARMS=$2 ;;
		both) ARMS="vanilla hitshield" ;;
		*) echo "$PROG: --arm takes vanilla, hitshield or both, not '${2:-}'" >&2; exit 64 ;;
		esac
		shift 2 ;;
	-w | --work-dir) WORK=${2:?}; shift 2 ;;
	-j | --jobs) JOBS=${2:?}; shift 2 ;;
	--patch)
		[ -r "${2:-}" ] || { echo "$PROG: --patch: cannot read '${2:-}'" >&2; exit 64; }
		PATCH=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
		shift 2 ;;
	--no-install) INSTALL=; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 64 ;;
	esac
done
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
KB=$WORK/kbuild
mkdir -p "$KB"

# ---- cleanup: a failed step leaves no half-built tree behind ----
# The long steps (tar, cp, make) run through run(): in the background and
# waited for, because bash runs a signal's trap only after the foreground
# command ends; so SIGTERM from timeout(1) or kill stops a 25-minute make at
# once, the trap stops the step, and the step's partial output goes.
TMP=
CHILD=
# stopped SIG STATUS: a signal's trap: say so on the script's own stderr (fd 3:
# the trap may run inside run() while a step's output goes to its log), then
# exit; the EXIT trap cleans up
exec 3>&2
stopped() {
	echo "$PROG: stopped by $1${STEP:+ in step $STEP}" >&3
	exit "$2"
}
cleanup() {
	trap '' INT TERM
	if [ -n "$CHILD" ]; then	# set -e: every command here must succeed
		kill -TERM "$CHILD" 2>/dev/null || true
		wait "$CHILD" 2>/dev/null || true
		CHILD=
	fi
	if [ -n "$TMP" ] && [ -e "$TMP" ]; then
		rm -rf "$TMP"
	fi
	TMP=
	trap 'stopped SIGINT 130' INT
	trap 'stopped SIGTERM 143' TERM
}

run() {
	local rc=0

	"$@" &
	CHILD=$!
	wait "$CHILD" || rc=$?
	CHILD=
	return "$rc"
}
trap cleanup EXIT
trap 'stopped SIGINT 130' INT
trap 'stopped SIGTERM 143' TERM

STEP=
die() {
	echo "$PROG: ${STEP:+step $STEP: }$*" >&2
	exit 1
}

stamp() {
	date +%s
}

# ---- 1. the source package and the tools ----
STEP=install
if [ -n "$INSTALL" ]; then
	need=
	for p in $SRCPKG build-essential bc flex bison libelf-dev libssl-dev xz-utils; do
		dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
	done
	if [ -n "$need" ]; then
		[ "$(id -u)" -eq 0 ] || die "needs root to apt-get install$need"
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need \
			>"$KB/apt-install.log" 2>&1 ||
			die "apt-get install$need failed (see $KB/apt-install.log)"
	fi
fi
SRCVER=$(dpkg-query -W -f '${Version}' "$SRCPKG" 2>/dev/null) ||
	die "$SRCPKG is not installed"
TARBALL=/usr/src/$SRCPKG.tar.xz
[ -f "$TARBALL" ] || die "$TARBALL missing ($SRCPKG $SRCVER)"

# ---- 2. the base config: Debian's 6.12 cloud kernel's ----
STEP=base-config
BASECFG=$KB/config-$CLOUDPKG
if [ ! -f "$BASECFG" ]; then
	kp=$WORK/kpkg/$CLOUDPKG
	if [ ! -f "$kp/.extracted" ]; then
		TMP=$(mktemp -d "$KB/tmp.XXXXXX")
		chown _apt "$TMP" 2>/dev/null || true	# apt's sandbox user
		(cd "$TMP" && apt-get download "$CLOUDPKG" >/dev/null 2>&1) ||
			die "apt-get download $CLOUDPKG failed"
		dpkg-deb --fsys-tarfile "$TMP"/"${CLOUDPKG}"_*.deb |
			tar -x -O --wildcards './boot/config-*' >"$TMP/config" ||
			die "no /boot/config-* in $CLOUDPKG"
		mv "$TMP/config" "$BASECFG"
		cleanup
	else
		cp "$kp"/boot/config-* "$BASECFG.tmp" && mv "$BASECFG.tmp" "$BASECFG" ||
			die "no /boot/config-* in $kp"
	fi
fi

# ---- 3. one pristine source tree (shared by the config step) ----
STEP=unpack
PRISTINE=$KB/src-$SRCVER
if [ ! -f "$PRISTINE/.unpacked" ]; then
	rm -rf "$PRISTINE"
	TMP=$(mktemp -d "$KB/tmp.XXXXXX")
	run tar -C "$TMP" -xJf "$TARBALL" || die "tar -xJf $TARBALL failed"
	mv "$TMP/$SRCPKG" "$PRISTINE" || die "$TARBALL has no $SRCPKG/"
	touch "$PRISTINE/.unpacked"
	cleanup
fi

# ---- 4. the lab config, the same for both arms ----
# Every =m off before MODULES=n (Kconfig would otherwise make them all =y);
# what the guest needs built in; no debug info.  NUMA_BALANCING off frees
# page->flags bits: its LAST_CPUPID field (21 bits on this config) leaves
# page->flags, so the RFC's three flags fit beside MGLRU's two tier bits in
# both arms.  The lab guest has one node, where NUMA balancing never runs, so
# this changes no behaviour there; NR_CPUS <= 512 would free bits too but
# changes per-CPU sizing in both.  DEBUG_PAGE_REF makes the page_ref/* event
# formats print the page-flag names (so a recording shows whether PG_hitshield
# exists); DEBUG_MEMORY_INIT prints the layout at boot (mminit_loglevel=4).
STEP=config
CFG=$KB/config-lab-$SRCVER
if [ ! -f "$CFG" ] || [ "$CFG" -ot "$0" ] || [ "$CFG" -ot "$BASECFG" ]; then
	TMP=$(mktemp -d "$KB/tmp.XXXXXX")
	sed -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/' "$BASECFG" >"$TMP/.config"
	sc() { "$PRISTINE/scripts/config" --file "$TMP/.config" "$@" || die "scripts/config $*"; }
	sc --disable MODULES --disable DEBUG_INFO --disable DEBUG_INFO_BTF \
		--disable DEBUG_INFO_BTF_MODULES --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--enable DEBUG_INFO_NONE \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY "" --set-str LOCALVERSION "" --disable LOCALVERSION_AUTO \
		--enable VIRTIO_PCI --enable VIRTIO_BLK --enable EXT4_FS --enable EXT4_USE_FOR_EXT2 \
		--enable ZSMALLOC --enable ZRAM --enable ZRAM_BACKEND_LZ4 --enable ZRAM_BACKEND_LZO \
		--enable LZ4_COMPRESS --enable LZ4HC_COMPRESS \
		--enable MEMCG --enable LRU_GEN --enable LRU_GEN_ENABLED \
		--enable DAMON --enable DAMON_PADDR --enable DAMON_LRU_SORT --enable DAMON_SYSFS \
		--enable FTRACE --enable DEBUG_FS --enable SERIAL_8250_CONSOLE --enable DEVTMPFS \
		--enable HIST_TRIGGERS \
		--disable NUMA_BALANCING --enable DEBUG_PAGE_REF --enable DEBUG_MEMORY_INIT
	# What the lab guest (serial console, two virtio disks, zram, no network)
	# never uses, off to halve the build: on this shared 2-vCPU host a full
	# Debian-config build took over an hour per arm under the other sessions'
	# load.  Both arms get the same cut.
	sc --disable NET --disable XEN --disable INTEL_TDX_GUEST --disable AMD_MEM_ENCRYPT \
		--disable HYPERV --disable KEXEC --disable KEXEC_FILE --disable CRASH_DUMP \
		--disable HIBERNATION --disable SUSPEND --disable SECURITY --disable AUDIT \
		--disable INTEGRITY --disable IMA --disable EVM --disable KEYS \
		--disable FB --disable DRM --disable INPUT_MOUSE --disable INPUT_KEYBOARD \
		--disable MD --disable IOMMU_SUPPORT --disable QUOTA --disable FUSE_FS \
		--disable THERMAL --disable WATCHDOG --disable IO_URING --disable PTP_1588_CLOCK \
		--disable CPU_FREQ --disable X86_MCE --disable MICROCODE --disable PROFILING \
		--disable BPF_SYSCALL --disable KPROBES --disable EFI --disable HID \
		--disable USB_SUPPORT --disable SCSI --disable ATA --disable XFS_FS \
		--disable BTRFS_FS --disable NFS_FS --disable SOUND --disable WIRELESS \
		--disable RFKILL --disable I2C --disable HWMON --disable VFIO --disable DMADEVICES \
		--disable KVM --disable VIRTUALIZATION --disable X86_X2APIC_NOT_NEEDED \
		--disable SCHED_CORE --disable NUMA_EMU --disable X86_SGX --disable X86_USER_SHADOW_STACK
	make -s -C "$PRISTINE" O="$TMP/o" KCONFIG_CONFIG="$TMP/.config" olddefconfig \
		>"$TMP/olddefconfig.log" 2>&1 || die "make olddefconfig failed: $(tail -n 3 "$TMP/olddefconfig.log")"
	for want in MODULES=n NUMA_BALANCING=n DEBUG_PAGE_REF=y DEBUG_MEMORY_INIT=y LRU_GEN=y \
		LRU_GEN_ENABLED=y ZRAM=y VIRTIO_BLK=y MEMCG=y; do
		k=${want%=*}
		v=${want#*=}
		if [ "$v" = n ]; then
			! grep -q "^CONFIG_$k=" "$TMP/.config" || die "CONFIG_$k is still set"
		else
			grep -q "^CONFIG_$k=$v\$" "$TMP/.config" || die "CONFIG_$k=$v did not stick"
		fi
	done
	mv "$TMP/.config" "$CFG"
	cleanup
fi

# ---- 5. the arms ----
hash_of() {	# hash_of ARM
	{
		echo "$SRCPKG $SRCVER"
		cat "$CFG"
		if [ "$1" = hitshield ]; then
			cat "$PATCH"
		fi
	} | sha256sum | cut -c1-12
}

# layout TREE ARM: the page->flags field widths this tree's kernel was built
# with, from the compiler (a kbuild single-target .s of a probe file, after the
# build; with the build's LOCALVERSION, or kbuild would rewrite the release)
layout() {
	local tree=$1 arm=$2 probe=mm/hsctl_layout_probe
	cat >"$tree/$probe.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/* hsctl lab probe: not linked into the kernel, only compiled to assembly */
#include <linux/mm.h>
#include <linux/kbuild.h>
void hsctl_layout_probe(void);
void hsctl_layout_probe(void)
{
	DEFINE(HS_SECTIONS_WIDTH, SECTIONS_WIDTH);
	DEFINE(HS_NODES_WIDTH, NODES_WIDTH);
	DEFINE(HS_ZONES_WIDTH, ZONES_WIDTH);
	DEFINE(HS_LAST_CPUPID_WIDTH, LAST_CPUPID_WIDTH);
	DEFINE(HS_KASAN_TAG_WIDTH, KASAN_TAG_WIDTH);
	DEFINE(HS_LRU_GEN_WIDTH, LRU_GEN_WIDTH);
	DEFINE(HS_LRU_REFS_WIDTH, LRU_REFS_WIDTH);
	DEFINE(HS_NR_PAGEFLAGS, NR_PAGEFLAGS);
}
EOF
	make -s -C "$tree" LOCALVERSION="-$arm" "$probe.s" >"$tree/$probe.log" 2>&1 ||
		{ rm -f "$tree/$probe.c"; return 1; }
	sed -n 's/^.*->HS_\([A-Z_]*\) \$\{0,1\}\([0-9]*\) .*$/\1 \2/p' "$tree/$probe.s"
	rm -f "$tree/$probe.c" "$tree/$probe.s" "$tree/$probe.log" "$tree/mm/.hsctl_layout_probe.s.cmd"
}

build() {	# build ARM: WORK/kbuild/ARM-HASH/bzImage, built once
	local arm=$1 h out tree t
	h=$(hash_of "$arm")
	out=$KB/$arm-$h
	if [ -f "$out/bzImage" ] && [ -f "$out/layout" ]; then
		echo "$arm $out/bzImage (cached)" >&2
		return 0
	fi
	tree=$KB/tree-$arm
	STEP="$arm: source tree"
	if [ ! -f "$tree/.unpacked" ] || [ "$(cat "$tree/.unpacked")" != "$SRCVER $h" ]; then
		rm -rf "$tree"
		TMP=$tree
		seed=$PRISTINE
		# The patched arm starts from the built vanilla tree of the same
		# config when there is one: kbuild's per-file dependencies then
		# rebuild only what the patch touches (most of the kernel includes
		# page-flags.h, but not all of it), and the result is the same.
		if [ "$arm" = hitshield ] &&
			[ "$(cat "$KB/tree-vanilla/.built" 2>/dev/null)" = "$(hash_of vanilla)" ]; then
			seed=$KB/tree-vanilla
		fi
		run cp -a "$seed" "$tree" || die "cp $seed failed"
		rm -f "$tree/.built"
		if [ "$arm" = hitshield ]; then
			STEP="$arm: patch"
			patch -d "$tree" -p1 --no-backup-if-mismatch -s <"$PATCH" ||
				die "$PATCH does not apply to $SRCPKG $SRCVER"
		fi
		echo "$SRCVER $h" >"$tree/.unpacked"
		TMP=
	fi
	STEP="$arm: make bzImage"
	cp "$CFG" "$tree/.config"
	t=$(stamp)
	echo "$arm: make -j$JOBS bzImage, log $KB/$arm-$h.log (~25 min)" >&2
	if ! run make -C "$tree" -j"$JOBS" LOCALVERSION="-$arm" bzImage >"$KB/$arm-$h.log" 2>&1; then
		die "failed after $(( $(stamp) - t )) s: $(grep -m 1 -E 'error|Error' "$KB/$arm-$h.log")"
	fi
	echo "$h" >"$tree/.built"
	STEP="$arm: layout probe"
	TMP=$out.tmp
	rm -rf "$TMP"
	mkdir -p "$TMP"
	layout "$tree" "$arm" >"$TMP/layout" || die "the probe did not compile (see $tree/mm/hsctl_layout_probe.log)"
	[ "$(wc -l <"$TMP/layout")" -eq 8 ] || die "the probe printed $(wc -l <"$TMP/layout") of 8 widths"
	cp "$tree/arch/x86/boot/bzImage" "$TMP/bzImage"
	cp "$tree/.config" "$TMP/config"
	cp "$tree/include/config/kernel.release" "$TMP/release"
	echo "$(( $(stamp) - t ))" >"$TMP/build-seconds"
	rm -rf "$out"
	mv "$TMP" "$out"
	TMP=
	echo "$arm: built in $(( ($(cat "$out/build-seconds") + 30) / 60 )) min" >&2
}

for arm in $ARMS; do
	build "$arm"
done

# ---- 6. the same layout in both, apart from the flag count ----
STEP=compare-layouts
V=$KB/vanilla-$(hash_of vanilla)
P=$KB/hitshield-$(hash_of hitshield)
if [ -f "$V/layout" ] && [ -f "$P/layout" ]; then
	if ! diff <(grep -v '^NR_PAGEFLAGS ' "$V/layout") <(grep -v '^NR_PAGEFLAGS ' "$P/layout") \
		>/dev/null; then
		die "page->flags layouts differ: vanilla $(tr '\n' ' ' <"$V/layout")/ hitshield" \
			"$(tr '\n' ' ' <"$P/layout")"
	fi
	nv=$(awk '$1 == "NR_PAGEFLAGS" { print $2 }' "$V/layout")
	np=$(awk '$1 == "NR_PAGEFLAGS" { print $2 }' "$P/layout")
	[ "$np" -eq $((nv + 3)) ] || die "NR_PAGEFLAGS vanilla $nv, hitshield $np (want 3 more)"
	echo "layout (both): $(grep -v '^NR_PAGEFLAGS ' "$V/layout" | tr '\n' ' ')NR_PAGEFLAGS $nv/$np" >&2
fi
for arm in $ARMS; do
	echo "$arm $KB/$arm-$(hash_of "$arm")/bzImage"
done
